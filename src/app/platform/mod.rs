//! What differs between the desktop and the browser: picking files,
//! saving them, and (in [`web`]) what the app needs from the page: its
//! progress bar, yielding to the browser, reading files, downloads and the
//! location hash. The browser entry point (`src/web.rs`) builds on this,
//! never the other way round.

use super::shared::Shared;

#[cfg(not(target_arch = "wasm32"))]
pub mod record_ab;
#[cfg(not(target_arch = "wasm32"))]
use super::{loaded::Source, shared::Incoming};

/// Whether heavy view computations run a slice per frame (the browser: one
/// thread draws and computes) or at once (native: the work is short there,
/// and tests read a view's answer right after asking).
pub const SLICED_VIEWS: bool = cfg!(target_arch = "wasm32");

/// Opens the file picker; the chosen files arrive through `shared`
/// (`into`: each added as a run of that side; see
/// [`super::shared::given_targets`]).
use super::runs_given::is_runs_folder;
use super::shared::{GivenFile, Split};

/// A file the user gave, read now (natively: dropped bytes, or its path).
#[cfg(not(target_arch = "wasm32"))]
pub fn read_given_now(file: &GivenFile, name: &str) -> Result<Vec<u8>, String> {
    let path = match file {
        GivenFile::Dropped(f) => match f.bytes() {
            Ok(bytes) => return Ok(bytes),
            Err(_) => f.path().to_path_buf(),
        },
        GivenFile::Path(path) => path.clone(),
    };
    std::fs::read(&path).map_err(|err| format!("{name}: cannot read: {err}"))
}

/// A file the user gave, read (in the browser, in chunks with progress).
#[cfg(target_arch = "wasm32")]
pub async fn read_given(file: &GivenFile, name: &str) -> Result<Vec<u8>, String> {
    match file {
        GivenFile::Picked(f) => web::read_file(f.inner(), name).await,
        GivenFile::Dropped(f) => match f.web_file() {
            Some(web_file) => web::read_file(web_file, name).await,
            None => f
                .bytes_async()
                .await
                .map_err(|err| format!("{name}: cannot read: {err}")),
        },
    }
}

pub fn pick_files(shared: &Shared, into: Option<super::Side>) {
    #[cfg(not(target_arch = "wasm32"))]
    {
        let picked = rfd::FileDialog::new()
            .set_title("Open a .puffin recording or JSON dump")
            .add_filter(
                "puffin recordings, JSON dumps, zipped folders of ab runs",
                &["puffin", "json", "zip"],
            )
            .add_filter("all files", &["*"])
            .pick_files();
        let mut state = shared.borrow_mut();
        let picked = picked.unwrap_or_default();
        let names: Vec<String> = picked
            .iter()
            .map(|p| file_name(&p.to_string_lossy()))
            .collect();
        if is_runs_folder(&names) {
            // A folder of `ab` runs: the app opens it by its manifest.
            let files = picked.into_iter().map(GivenFile::Path).collect();
            state.runs_files = Some((names, files));
            if let Some(ctx) = &state.ctx {
                ctx.request_repaint();
            }
            return;
        }
        if into.is_none() && names.len() > 2 {
            // Which are A's and which B's: the app asks.
            let files = picked.into_iter().map(GivenFile::Path).collect();
            state.split = Some(Split::new(names, files));
            if let Some(ctx) = &state.ctx {
                ctx.request_repaint();
            }
            return;
        }
        let targets = super::shared::given_targets(&names, into);
        // Each side's first run first.
        let mut given: Vec<_> = picked.into_iter().zip(names).zip(targets).collect();
        given.sort_by_key(|(_, (_, add_run))| *add_run);
        for ((path, name), (side, add_run)) in given {
            state.push(Incoming {
                add_run,
                name,
                source: Source::Path(path),
                side,
                on_done: None,
                turn: 0,
            });
        }
    }
    #[cfg(target_arch = "wasm32")]
    {
        let shared = shared.clone();
        wasm_bindgen_futures::spawn_local(async move {
            let picked = rfd::AsyncFileDialog::new()
                .add_filter(
                    "puffin recordings, JSON dumps, zipped folders of ab runs",
                    &["puffin", "json", "zip"],
                )
                .pick_files()
                .await;
            let picked = picked.unwrap_or_default();
            let names: Vec<String> = picked.iter().map(|f| f.file_name()).collect();
            if is_runs_folder(&names) {
                // A folder of `ab` runs: the app opens it by its manifest.
                let files = picked.into_iter().map(GivenFile::Picked).collect();
                let mut state = shared.borrow_mut();
                state.runs_files = Some((names, files));
                if let Some(ctx) = &state.ctx {
                    ctx.request_repaint();
                }
                return;
            }
            if into.is_none() && names.len() > 2 {
                // Which are A's and which B's: the app asks.
                let files = picked.into_iter().map(GivenFile::Picked).collect();
                let mut state = shared.borrow_mut();
                state.split = Some(Split::new(names, files));
                if let Some(ctx) = &state.ctx {
                    ctx.request_repaint();
                }
                return;
            }
            let targets = super::shared::given_targets(&names, into);
            // Their turns and sides when picked, before any is read.
            let asked: Vec<(u64, super::Side, bool)> = targets
                .into_iter()
                .map(|(side, add_run)| {
                    let mut s = shared.borrow_mut();
                    let side = s.side_now(side);
                    (s.take_turn(), side, add_run)
                })
                .collect();
            // Each side's first run first: a run added to a side never
            // arrives before the side's first.
            let mut picked: Vec<_> = picked.into_iter().zip(asked).collect();
            picked.sort_by_key(|(_, (_, _, add_run))| *add_run);
            for (file, (turn, side, add_run)) in picked {
                let name = file.file_name();
                let result = web::read_file(file.inner(), &name).await;
                shared
                    .borrow_mut()
                    .open_read(name, (Some(side), add_run), turn, result);
            }
        });
    }
}

/// Hands `bytes` to the user as a file named `name`: a save dialog on the
/// desktop (`Ok(false)` when cancelled), a download in the browser.
pub fn save_file(name: &str, mime: &str, bytes: &[u8]) -> Result<bool, String> {
    #[cfg(not(target_arch = "wasm32"))]
    {
        let _ = mime;
        let Some(path) = rfd::FileDialog::new().set_file_name(name).save_file() else {
            return Ok(false);
        };
        std::fs::write(&path, bytes)
            .map(|()| true)
            .map_err(|err| format!("{}: cannot write: {err}", path.display()))
    }
    #[cfg(target_arch = "wasm32")]
    {
        web::download(name, mime, bytes).map(|()| true)
    }
}

/// The page's location hash when the app starts (the browser only).
pub fn initial_hash() -> Option<String> {
    #[cfg(target_arch = "wasm32")]
    {
        Some(web::location_hash()).filter(|h| !h.is_empty())
    }
    #[cfg(not(target_arch = "wasm32"))]
    {
        None
    }
}

/// Writes where the user is to the location hash (the browser only; the
/// desktop keeps the state per recording while the app runs).
pub fn set_hash(hash: &str) {
    #[cfg(target_arch = "wasm32")]
    web::set_location_hash(hash);
    #[cfg(not(target_arch = "wasm32"))]
    let _ = hash;
}

/// The engine's findings, asked for off the page's thread: `None` until
/// they are there, then once the answer.
pub type FindingsPoll = Box<dyn FnMut() -> Option<Result<crate::engine::report::Findings, String>>>;

/// Makes the findings of `a` (against `b`) off the caller's thread:
/// natively on a background thread (`threaded`), in the browser in a decode
/// worker from the recordings' kept bytes. `None` when neither can (no
/// thread wanted, no worker ready, no bytes kept): the caller makes them.
pub fn findings_elsewhere(
    a: std::sync::Arc<crate::app::Loaded>,
    b: Option<std::sync::Arc<crate::app::Loaded>>,
    paired: bool,
    ctx: &egui::Context,
    threaded: bool,
) -> Option<FindingsPoll> {
    #[cfg(not(target_arch = "wasm32"))]
    {
        if !threaded {
            return None;
        }
        let (tx, rx) = std::sync::mpsc::channel();
        let ctx = ctx.clone();
        std::thread::spawn(move || {
            let started = web_time::Instant::now();
            let mut f = crate::engine::report::findings_with(
                (&a.name, &a.decoded),
                b.as_deref().map(|b| (b.name.as_str(), &b.decoded)),
                super::runs_given::report_options(paired),
            );
            f.compute_ms = started.elapsed().as_secs_f64() * 1e3;
            let _ = tx.send(f);
            ctx.request_repaint();
        });
        Some(Box::new(move || match rx.try_recv() {
            Ok(f) => Some(Ok(f)),
            Err(std::sync::mpsc::TryRecvError::Empty) => None,
            Err(std::sync::mpsc::TryRecvError::Disconnected) => {
                Some(Err("the findings thread stopped".to_owned()))
            }
        }))
    }
    #[cfg(target_arch = "wasm32")]
    {
        let _ = threaded;
        web::workers::findings(a, b, paired, ctx)
    }
}

/// Writes the location hash in place of the current one (no new history
/// entry): where a hash just navigated to (a link, Back) is written as the
/// app states it.
pub fn replace_hash(hash: &str) {
    #[cfg(target_arch = "wasm32")]
    web::replace_location_hash(hash);
    #[cfg(not(target_arch = "wasm32"))]
    let _ = hash;
}

/// Marks a moment of the start-up or of a load (`performance.mark`, named
/// `puffin-lens:WHAT`) in the browser, for `status().timings`; nothing
/// natively.
pub fn mark(what: &str) {
    #[cfg(target_arch = "wasm32")]
    web::mark(what);
    #[cfg(not(target_arch = "wasm32"))]
    let _ = what;
}

/// Starts the browser's decode workers once the frame being drawn is on
/// screen (they take a while to start; the first load then finds them
/// ready); nothing natively (a thread per load).
pub fn prestart_decoders() {
    #[cfg(target_arch = "wasm32")]
    wasm_bindgen_futures::spawn_local(async {
        web::yield_to_browser().await;
        web::workers::prestart();
    });
}

/// The last component of a path or URL (without a query string).
pub fn file_name(path: &str) -> String {
    let path = path.split(['?', '#']).next().unwrap_or(path);
    let name = path
        .rsplit(['/', '\\'])
        .find(|s| !s.is_empty())
        .unwrap_or("recording.puffin");
    name.to_owned()
}

/// The page: what the app needs from the browser.
#[cfg(target_arch = "wasm32")]
pub mod web {
    /// `performance.mark("puffin-lens:" + what)`.
    pub fn mark(what: &str) {
        use wasm_bindgen::JsCast as _;
        let Some(window) = web_sys::window() else {
            return;
        };
        let Ok(perf) = js_sys::Reflect::get(&window, &"performance".into()) else {
            return;
        };
        if let Ok(f) = js_sys::Reflect::get(&perf, &"mark".into())
            .and_then(|f| f.dyn_into::<js_sys::Function>())
        {
            let _ = f.call1(&perf, &format!("puffin-lens:{what}").into());
        }
    }

    /// The start-up and load marks so far (`{name, at_ms}` from the
    /// page's start, in time order), the .wasm's download first.
    pub fn timings() -> serde_json::Value {
        use wasm_bindgen::JsCast as _;
        let entries = |kind: &str| -> Vec<wasm_bindgen::JsValue> {
            let Some(window) = web_sys::window() else {
                return Vec::new();
            };
            let Ok(perf) = js_sys::Reflect::get(&window, &"performance".into()) else {
                return Vec::new();
            };
            js_sys::Reflect::get(&perf, &"getEntriesByType".into())
                .and_then(|f| f.dyn_into::<js_sys::Function>())
                .and_then(|f| f.call1(&perf, &kind.into()))
                .map(|list| js_sys::Array::from(&list).to_vec())
                .unwrap_or_default()
        };
        let field = |e: &wasm_bindgen::JsValue, k: &str| js_sys::Reflect::get(e, &k.into()).ok();
        let text = |e: &wasm_bindgen::JsValue, k: &str| {
            field(e, k).and_then(|v| v.as_string()).unwrap_or_default()
        };
        let at = |e: &wasm_bindgen::JsValue, k: &str| {
            field(e, k).and_then(|v| v.as_f64()).unwrap_or(0.0)
        };
        let mut out: Vec<(String, f64)> = Vec::new();
        for e in entries("resource") {
            if text(&e, "name")
                .split('?')
                .next()
                .is_some_and(|n| n.ends_with(".wasm"))
            {
                out.push(("wasm-downloaded".to_owned(), at(&e, "responseEnd")));
            }
        }
        // The browser's first paint of the page (the app's first frame on
        // screen, or the "Loading" text before it).
        for e in entries("paint") {
            if text(&e, "name") == "first-paint" {
                out.push(("first-paint".to_owned(), at(&e, "startTime")));
            }
        }
        for e in entries("mark") {
            if let Some(what) = text(&e, "name").strip_prefix("puffin-lens:") {
                out.push((what.to_owned(), at(&e, "startTime")));
            }
        }
        out.sort_by(|a, b| a.1.total_cmp(&b.1));
        out.into_iter()
            .map(|(name, at_ms)| serde_json::json!({"name": name, "at_ms": at_ms}))
            .collect()
    }

    pub mod workers;

    use js_sys::{Promise, Uint8Array};
    use wasm_bindgen::JsCast as _;
    use wasm_bindgen::prelude::*;

    pub fn element(id: &str) -> Option<web_sys::Element> {
        web_sys::window()?.document()?.get_element_by_id(id)
    }

    pub fn escape_html(text: &str) -> String {
        text.replace('&', "&amp;").replace('<', "&lt;")
    }

    thread_local! {
        /// Every task with something to show on the progress bar; the bar
        /// shows the latest, and hides when none is left.
        static BARS: std::cell::RefCell<Vec<(u64, String, usize, usize)>> =
            const { std::cell::RefCell::new(Vec::new()) };
        static NEXT_BAR: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
        /// Files being read into memory (dropped, picked, given to `load()`).
        static READING: std::cell::RefCell<Vec<String>> =
            const { std::cell::RefCell::new(Vec::new()) };
    }

    /// The first file still being read into memory, for `status().reading`
    /// (before its load starts, `status().loading` is `null`).
    pub fn reading() -> Option<String> {
        READING.with_borrow(|r| r.first().cloned())
    }

    /// A file in [`READING`] while this lives.
    struct Reading(String);

    impl Reading {
        fn new(name: &str) -> Self {
            READING.with_borrow_mut(|r| r.push(name.to_owned()));
            Self(name.to_owned())
        }
    }

    impl Drop for Reading {
        fn drop(&mut self) {
            READING.with_borrow_mut(|r| {
                if let Some(i) = r.iter().position(|n| *n == self.0) {
                    r.remove(i);
                }
            });
        }
    }

    /// A task's line on the page's progress bar (`what` is being done, bytes
    /// done of total; a total of 0 is unknown), gone when dropped: a task
    /// that ends, fails or is cancelled cannot leave the bar behind, and one
    /// that ends does not hide another's. The bar is HTML over the canvas:
    /// the browser repaints it for next to nothing, while a repaint of the
    /// canvas costs as much as a decoding slice in software WebGL.
    pub struct Progress(u64);

    impl Progress {
        pub fn new(what: String, total_bytes: usize) -> Self {
            let id = NEXT_BAR.with(|n| {
                n.set(n.get() + 1);
                n.get()
            });
            BARS.with_borrow_mut(|bars| bars.push((id, what, 0, total_bytes)));
            render_progress();
            Self(id)
        }

        pub fn set(&self, done_bytes: usize, total_bytes: usize) {
            BARS.with_borrow_mut(|bars| {
                if let Some(bar) = bars.iter_mut().find(|b| b.0 == self.0) {
                    (bar.2, bar.3) = (done_bytes, total_bytes);
                }
            });
            render_progress();
        }
    }

    impl Drop for Progress {
        fn drop(&mut self) {
            BARS.with_borrow_mut(|bars| bars.retain(|b| b.0 != self.0));
            render_progress();
        }
    }

    fn render_progress() {
        let (Some(bar), Some(label), Some(fill)) = (
            element("load_progress"),
            element("load_progress_label"),
            element("load_progress_fill"),
        ) else {
            return;
        };
        let latest = BARS.with_borrow(|bars| bars.last().cloned());
        let Some((_, what, done_bytes, total_bytes)) = latest else {
            let _ = bar.set_attribute("hidden", "");
            return;
        };
        let done_mb = done_bytes as f64 / 1e6;
        let (text, percent) = if total_bytes == 0 {
            (format!("{what}: {done_mb:.1} MB"), 100.0)
        } else {
            let total_mb = total_bytes as f64 / 1e6;
            let percent = 100.0 * done_bytes as f64 / total_bytes as f64;
            (format!("{what}: {done_mb:.1} of {total_mb:.1} MB"), percent)
        };
        label.set_inner_html(&escape_html(&text));
        let _ = fill.set_attribute("style", &format!("width: {percent:.1}%"));
        let _ = bar.remove_attribute("hidden");
    }

    /// The most the app may hold: a wasm32 address space is 4 GiB, and on
    /// a device that says it has little memory (`navigator.deviceMemory`,
    /// in GB, reported up to 8) half of that memory, since a tab taking
    /// more is likely to be killed there. The page's `?memory_limit_mb=N`
    /// sets the limit (at most 4 GiB) whatever the device says: to give the
    /// app more or less, or to try what happens at the limit.
    pub fn memory_limit_bytes() -> u64 {
        const WASM32_BYTES: u64 = 4 << 30;
        let asked = web_sys::window()
            .and_then(|w| w.location().search().ok())
            .and_then(|search| web_sys::UrlSearchParams::new_with_str(&search).ok())
            .and_then(|params| params.get("memory_limit_mb"))
            .and_then(|mb| mb.parse::<u64>().ok())
            .map(|mb| mb << 20);
        let device = js_sys::Reflect::get(&js_sys::global(), &"navigator".into())
            .and_then(|navigator| js_sys::Reflect::get(&navigator, &"deviceMemory".into()))
            .ok()
            .and_then(|gb| gb.as_f64())
            .filter(|gb| gb.is_finite() && *gb > 0.0)
            .map(|gb| (gb * f64::from(1u32 << 30) / 2.0) as u64);
        asked
            .or(device)
            .map_or(WASM32_BYTES, |limit| limit.min(WASM32_BYTES))
    }

    /// Bytes the app holds now (the allocator's count: the wasm memory
    /// itself only grows, so its size is the high-water mark, not the use).
    pub fn memory_in_use_bytes() -> u64 {
        counting::IN_USE.load(std::sync::atomic::Ordering::Relaxed) as u64
    }

    /// The wasm memory's size (what the page has taken from the browser).
    pub fn wasm_memory_bytes() -> u64 {
        wasm_bindgen::memory()
            .dyn_into::<js_sys::WebAssembly::Memory>()
            .ok()
            .and_then(|m| m.buffer().dyn_into::<js_sys::ArrayBuffer>().ok())
            .map_or(0, |b| b.byte_length() as u64)
    }

    /// Room kept free for the views and the UI besides the recordings.
    const HEADROOM_BYTES: u64 = 256 << 20;
    /// What the views build per scope on top of the model: the timeline's
    /// lanes took 23 bytes a scope on a 2M-scope capture with every view
    /// opened (README, The web app), rounded up for their growth.
    pub const VIEW_BYTES_PER_SCOPE: u64 = 32;

    thread_local! {
        /// What the decodes in flight are expected to take yet.
        static PROMISED: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
    }

    /// Room promised to a decode in flight (what [`check_room`] estimated
    /// it to take), counted as used until the decode ends, so that two
    /// loads at once cannot each take the same free memory.
    pub struct Reservation(u64);

    impl Drop for Reservation {
        fn drop(&mut self) {
            PROMISED.with(|p| p.set(p.get().saturating_sub(self.0)));
        }
    }

    /// [`check_room`] for a recording whose bytes are in memory, keeping the
    /// room it needs for the decode's duration.
    pub fn reserve_room(
        name: &str,
        estimate: crate::engine::SizeEstimate,
        file_bytes: u64,
    ) -> Result<Reservation, String> {
        let needed = check_room(name, file_bytes, true, Some(estimate))?;
        PROMISED.with(|p| p.set(p.get().saturating_add(needed)));
        Ok(Reservation(needed))
    }

    /// Whether a recording of `file_bytes` fits in memory: its bytes, unless
    /// already `read` in, plus what decoding it holds (`estimate`, once its
    /// bytes are at hand). The app lives in a wasm32 address space of
    /// [`memory_limit_bytes`], shared with what is open already and what
    /// is being decoded; a recording that cannot fit is refused here, before
    /// any of it is spent, so the recording shown stays. Returns the bytes
    /// it needs.
    pub fn check_room(
        name: &str,
        file_bytes: u64,
        read: bool,
        estimate: Option<crate::engine::SizeEstimate>,
    ) -> Result<u64, String> {
        use crate::units::{bytes, count};
        let limit = memory_limit_bytes();
        // What the app holds, plus half of what is free inside its memory
        // (the allocator cannot always reuse freed blocks for larger ones),
        // plus what the decodes in flight will take.
        let in_use = memory_in_use_bytes();
        let used = in_use
            + wasm_memory_bytes().saturating_sub(in_use) / 2
            + PROMISED.with(std::cell::Cell::get);
        let decoded = estimate.map_or(0, |e| {
            e.model_bytes()
                .saturating_add(e.scopes.saturating_mul(VIEW_BYTES_PER_SCOPE))
        });
        let needed = decoded.saturating_add(if read { 0 } else { file_bytes });
        let headroom = HEADROOM_BYTES.min(limit / 8);
        let free = limit.saturating_sub(used).saturating_sub(headroom);
        if needed <= free {
            return Ok(needed);
        }
        let what = match estimate {
            Some(e) => format!(
                "its {} scopes (a {} file) need about {} decoded",
                count(e.scopes),
                bytes(file_bytes),
                bytes(needed)
            ),
            None => format!("the file is {}", bytes(file_bytes)),
        };
        Err(format!(
            "{name}: too large to open in the browser: {what}, and {} of this tab's {} is free; \
             open it in the desktop app (puffin-lens open {name}) or analyze it with the \
             command-line tool (puffin-lens summary {name})",
            bytes(free),
            bytes(limit),
        ))
    }

    /// Counts the bytes allocated and not yet freed, for [`memory_in_use_bytes`].
    #[allow(unsafe_code)]
    mod counting {
        use std::alloc::{GlobalAlloc, Layout, System};
        use std::sync::atomic::{AtomicUsize, Ordering};

        pub static IN_USE: AtomicUsize = AtomicUsize::new(0);

        struct Counting;

        // SAFETY: every call is forwarded to `System` unchanged; only the
        // count of live bytes is kept besides.
        unsafe impl GlobalAlloc for Counting {
            unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
                // SAFETY: the caller's contract, forwarded.
                let ptr = unsafe { System.alloc(layout) };
                if !ptr.is_null() {
                    IN_USE.fetch_add(layout.size(), Ordering::Relaxed);
                }
                ptr
            }

            unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
                // SAFETY: the caller's contract, forwarded.
                let ptr = unsafe { System.alloc_zeroed(layout) };
                if !ptr.is_null() {
                    IN_USE.fetch_add(layout.size(), Ordering::Relaxed);
                }
                ptr
            }

            unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
                // SAFETY: the caller's contract, forwarded.
                unsafe { System.dealloc(ptr, layout) };
                IN_USE.fetch_sub(layout.size(), Ordering::Relaxed);
            }

            unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
                // SAFETY: the caller's contract, forwarded.
                let new = unsafe { System.realloc(ptr, layout, new_size) };
                if !new.is_null() {
                    IN_USE.fetch_add(new_size, Ordering::Relaxed);
                    IN_USE.fetch_sub(layout.size(), Ordering::Relaxed);
                }
                new
            }
        }

        #[global_allocator]
        static GLOBAL: Counting = Counting;
    }

    /// Reads a file the user gave (dropped, picked, or a `File`/`Blob` passed
    /// to `load()`) into memory a chunk at a time, showing the bytes read on
    /// the page's progress bar: one copy of a large file into wasm memory
    /// would block the page for most of a second. Refused by its size before
    /// anything is read when it cannot fit. Errors are one line naming `name`.
    pub async fn read_file(file: &web_sys::Blob, name: &str) -> Result<Vec<u8>, String> {
        use wasm_bindgen_futures::JsFuture;
        const CHUNK: usize = 32 << 20;
        let _reading = Reading::new(name);
        let size = file.size() as usize;
        check_room(name, size as u64, false, None)?;
        let progress = Progress::new(format!("Reading {name}"), size);
        let mut bytes = Vec::new();
        bytes
            .try_reserve_exact(size)
            .map_err(|_| format!("{name}: cannot read: not enough memory for {size} bytes"))?;
        let fail = |err| format!("{name}: cannot read: {}", js_message(err));
        while bytes.len() < size {
            progress.set(bytes.len(), size);
            let start = bytes.len();
            let end = (start + CHUNK).min(size);
            let chunk = file
                .slice_with_f64_and_f64(start as f64, end as f64)
                .map_err(fail)?;
            let buffer = JsFuture::from(chunk.array_buffer()).await.map_err(fail)?;
            let chunk = Uint8Array::new(&buffer);
            if chunk.length() == 0 {
                break; // the file shrank meanwhile
            }
            bytes.resize(start + chunk.length() as usize, 0);
            chunk.copy_to(&mut bytes[start..]);
        }
        Ok(bytes)
    }

    /// Lets the browser handle input and paint a frame before going on: waits
    /// for the next animation frame, then for a message posted from it (which
    /// runs after that frame is painted), or [`YIELD_AT_MOST_MS`] when no
    /// frame comes sooner (the app's first paint takes ~0.4 s in a software
    /// GL: work waiting on it would sit idle). A hidden page paints no
    /// frames and goes on at once (a message, unlike a timer, is not
    /// throttled there).
    pub async fn yield_to_browser() {
        let promise = Promise::new(&mut |resolve, _reject| {
            let Ok(channel) = web_sys::MessageChannel::new() else {
                let _ = resolve.call0(&JsValue::UNDEFINED);
                return;
            };
            channel.port1().set_onmessage(Some(&resolve));
            let port = channel.port2();
            let window = web_sys::window();
            let visible = window
                .as_ref()
                .and_then(|w| w.document())
                .is_some_and(|d| !d.hidden());
            let after_frame = window.filter(|_| visible).and_then(|w| {
                let post = Closure::once_into_js({
                    let port = port.clone();
                    move || {
                        let _ = port.post_message(&JsValue::NULL);
                    }
                });
                let later = Closure::once_into_js({
                    let port = port.clone();
                    move || {
                        let _ = port.post_message(&JsValue::NULL);
                    }
                });
                let _ = w.set_timeout_with_callback_and_timeout_and_arguments_0(
                    later.unchecked_ref(),
                    YIELD_AT_MOST_MS,
                );
                w.request_animation_frame(post.unchecked_ref()).ok()
            });
            if after_frame.is_none() {
                let _ = port.post_message(&JsValue::NULL);
            }
        });
        let _ = wasm_bindgen_futures::JsFuture::from(promise).await;
    }

    /// The longest [`yield_to_browser`] waits for a frame.
    const YIELD_AT_MOST_MS: i32 = 50;

    pub fn js_message(value: JsValue) -> String {
        value
            .dyn_ref::<js_sys::Error>()
            .map(|e| String::from(e.message()))
            .or_else(|| value.as_string())
            .unwrap_or_else(|| format!("{value:?}"))
    }

    /// Offers `bytes` as a download named `name`.
    pub fn download(name: &str, mime: &str, bytes: &[u8]) -> Result<(), String> {
        let fail = |what: &str, err: JsValue| format!("{name}: cannot {what}: {}", js_message(err));
        let parts = js_sys::Array::of1(&Uint8Array::from(bytes));
        let options = web_sys::BlobPropertyBag::new();
        options.set_type(mime);
        let blob = web_sys::Blob::new_with_u8_array_sequence_and_options(&parts, &options)
            .map_err(|e| fail("create the file", e))?;
        let url = web_sys::Url::create_object_url_with_blob(&blob)
            .map_err(|e| fail("create the download", e))?;
        let document = web_sys::window()
            .and_then(|w| w.document())
            .ok_or_else(|| format!("{name}: no document"))?;
        let anchor = document
            .create_element("a")
            .map_err(|e| fail("create the link", e))?
            .dyn_into::<web_sys::HtmlAnchorElement>()
            .map_err(|e| fail("create the link", e.into()))?;
        anchor.set_href(&url);
        anchor.set_download(name);
        anchor.click();
        web_sys::Url::revoke_object_url(&url).map_err(|e| fail("clean up", e))?;
        Ok(())
    }

    /// The location hash without its `#`.
    pub fn location_hash() -> String {
        web_sys::window()
            .and_then(|w| w.location().hash().ok())
            .map(|h| h.trim_start_matches('#').to_owned())
            .unwrap_or_default()
    }

    /// Sets the location hash (a new history entry when it changes).
    pub fn set_location_hash(hash: &str) {
        if location_hash() == hash {
            return;
        }
        if let Some(w) = web_sys::window() {
            let _ = w.location().set_hash(hash);
        }
    }

    /// Replaces the location hash (no new history entry).
    pub fn replace_location_hash(hash: &str) {
        if location_hash() == hash {
            return;
        }
        if let Some(w) = web_sys::window() {
            let _ = w.location().replace(&format!("#{hash}"));
        }
    }

    /// A live stream through `puffin-lens relay`: a WebSocket whose binary
    /// messages are puffin_http messages and whose text messages are the
    /// relay's status (`{"status", "message"}`). Reconnects a second after it
    /// closes; closed when dropped.
    pub struct LiveSocket {
        inner: std::rc::Rc<std::cell::RefCell<SocketInner>>,
    }

    struct SocketInner {
        url: String,
        state: std::sync::Arc<std::sync::Mutex<crate::engine::read::live::LiveState>>,
        on_change: std::rc::Rc<dyn Fn()>,
        ws: Option<web_sys::WebSocket>,
        handlers: Vec<Closure<dyn FnMut(JsValue)>>,
        dropped: bool,
    }

    impl LiveSocket {
        pub fn open(
            url: &str,
            state: std::sync::Arc<std::sync::Mutex<crate::engine::read::live::LiveState>>,
            on_change: impl Fn() + 'static,
        ) -> Self {
            let inner = std::rc::Rc::new(std::cell::RefCell::new(SocketInner {
                url: url.to_owned(),
                state,
                on_change: std::rc::Rc::new(on_change),
                ws: None,
                handlers: Vec::new(),
                dropped: false,
            }));
            connect(&inner);
            Self { inner }
        }
    }

    impl Drop for LiveSocket {
        fn drop(&mut self) {
            let mut inner = self.inner.borrow_mut();
            inner.dropped = true;
            if let Some(ws) = inner.ws.take() {
                ws.set_onmessage(None);
                ws.set_onclose(None);
                let _ = ws.close();
            }
            inner.handlers.clear();
        }
    }

    fn set_status(inner: &SocketInner, status: crate::engine::read::live::LiveStatus) {
        crate::engine::read::live::lock(&inner.state).set_status(status);
        (inner.on_change)();
    }

    fn connect(inner_rc: &std::rc::Rc<std::cell::RefCell<SocketInner>>) {
        use crate::engine::read::live::{LiveStatus, MessageReader};
        let url = inner_rc.borrow().url.clone();
        let ws = match web_sys::WebSocket::new(&url) {
            Ok(ws) => ws,
            Err(err) => {
                // A malformed address does not get better by retrying.
                let inner = inner_rc.borrow();
                set_status(
                    &inner,
                    LiveStatus::Ended(Some(format!("{url}: {}", js_message(err)))),
                );
                return;
            }
        };
        ws.set_binary_type(web_sys::BinaryType::Arraybuffer);
        let weak = std::rc::Rc::downgrade(inner_rc);
        let mut reader = MessageReader::new();
        let on_message = Closure::<dyn FnMut(JsValue)>::new(move |event: JsValue| {
            let Some(inner) = weak.upgrade() else { return };
            let inner = inner.borrow();
            let Ok(event) = event.dyn_into::<web_sys::MessageEvent>() else {
                return;
            };
            let data = event.data();
            if let Some(text) = data.as_string() {
                let v: serde_json::Value = serde_json::from_str(&text).unwrap_or_default();
                let message = v["message"].as_str().unwrap_or_default().to_owned();
                let status = match v["status"].as_str().unwrap_or_default() {
                    "connected" => LiveStatus::Connected,
                    "reconnecting" => LiveStatus::Reconnecting(message),
                    "failed" => LiveStatus::Failed(message),
                    "ended" => LiveStatus::Reconnecting(format!(
                        "the relay's app connection ended {message}"
                    )),
                    _ => LiveStatus::Connecting,
                };
                set_status(&inner, status);
                return;
            }
            reader.feed(&Uint8Array::new(&data).to_vec());
            let mut state = crate::engine::read::live::lock(&inner.state);
            state.bytes_received += Uint8Array::new(&data).length() as u64;
            loop {
                match reader.next_message() {
                    Ok(Some(m)) => state.recording.push(&m),
                    Ok(None) => break,
                    Err(err) => {
                        state.set_status(LiveStatus::Failed(format!("{}: {err}", inner.url)));
                        reader = MessageReader::new();
                        break;
                    }
                }
            }
            drop(state);
            (inner.on_change)();
        });
        let weak = std::rc::Rc::downgrade(inner_rc);
        let on_close = Closure::<dyn FnMut(JsValue)>::new(move |event: JsValue| {
            let Some(rc) = weak.upgrade() else { return };
            let code = event
                .dyn_into::<web_sys::CloseEvent>()
                .map(|e| e.code())
                .unwrap_or(0);
            {
                let inner = rc.borrow();
                if inner.dropped {
                    return;
                }
                set_status(
                    &inner,
                    LiveStatus::Reconnecting(format!(
                        "no relay at {} (closed, code {code}): is `puffin-lens relay` running?",
                        inner.url
                    )),
                );
            }
            let weak = std::rc::Rc::downgrade(&rc);
            let retry = Closure::once_into_js(move || {
                if let Some(rc) = weak.upgrade()
                    && !rc.borrow().dropped
                {
                    connect(&rc);
                }
            });
            if let Some(w) = web_sys::window() {
                let _ = w.set_timeout_with_callback_and_timeout_and_arguments_0(
                    retry.unchecked_ref(),
                    1000,
                );
            }
        });
        ws.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        ws.set_onclose(Some(on_close.as_ref().unchecked_ref()));
        let mut inner = inner_rc.borrow_mut();
        inner.ws = Some(ws);
        inner.handlers = vec![on_message, on_close];
    }
}
