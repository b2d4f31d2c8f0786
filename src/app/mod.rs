//! The egui application, the same on the desktop and in the browser: the
//! shell (this file: top bar, opening files, progress, errors, export;
//! `loaded`, `loader`, `platform`, `shared`, `recording`, `nav`, `live`) and
//! the views (`views/`), which read the engine's model and keep only UI state.
//!
//! May import: `engine`. Within the shell the imports run
//! `mod.rs` → `recording` → `views` → `nav`, `loaded` and
//! `loader` → `platform` → `shared` → `loaded`; what differs per target lives
//! in `platform`.

pub mod live;
mod loaded;
mod loader;
pub mod nav;
pub mod platform;
mod recording;
mod shared;
pub mod views;

pub use loaded::{Loaded, Source};
pub use loader::{LoadJob, Poll, SLICE};
pub use nav::{FrameSel, View};
pub use platform::file_name;
pub use recording::{Action, Recording, UI_ROWS};
pub use shared::{
    Fetch, Incoming, LoadStatus, OnDone, Shared, SharedState, Side, UiCommand, dropped_side,
};
pub use views::details::{DetailsAction, DetailsPanel};
pub use views::diff::DiffView;
pub use views::overview::OverviewView;
pub use views::table::TableView;
pub use views::tree::TreeView;

use crate::engine::read::live::Retention;
use egui::{Color32, Key, KeyboardShortcut, Modifiers, RichText};
use live::{LiveAction, LiveSession};
use std::sync::Arc;

/// The example recording behind "Try an example" (four threads, a few frames).
pub const EXAMPLE_NAME: &str = "threads_demo.puffin";
pub const EXAMPLE_BYTES: &[u8] = include_bytes!("../../samples/threads_demo.puffin");

use crate::engine::analyses::transform::{Stack, Transform};

const OPEN: KeyboardShortcut = KeyboardShortcut::new(Modifiers::COMMAND, Key::O);
const FIND: KeyboardShortcut = KeyboardShortcut::new(Modifiers::COMMAND, Key::F);

/// View settings: the only thing persisted (never trace data).
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
#[serde(default)]
pub struct Settings {
    /// The frame budget line of the frame chart, in ms: frames over it are
    /// highlighted.
    pub frame_budget_ms: f64,
    /// The scope filter matches substrings (any case) instead of prefixes.
    pub substring: bool,
    /// The address Connect… offers: a puffin_http server natively, a
    /// `puffin-lens relay` WebSocket in the browser.
    pub live_addr: String,
    /// How much of a live capture is kept.
    pub live_retention: Retention,
    /// Transforms applied to every recording opened (`merge:profiling::*`),
    /// shown in its breadcrumbs and removable there.
    pub default_transforms: Vec<String>,
}

impl Default for Settings {
    fn default() -> Self {
        Self {
            frame_budget_ms: 16.7,
            substring: false,
            live_addr: live::default_addr().to_owned(),
            live_retention: Retention::default(),
            default_transforms: Vec::new(),
        }
    }
}

impl Settings {
    /// The default transforms that read (a stored one that no longer does
    /// is left out).
    pub fn default_stack(&self) -> Stack {
        Stack(
            self.default_transforms
                .iter()
                .filter_map(|t| t.parse().ok())
                .collect(),
        )
    }
}

/// Frame budgets offered in the top bar (60, 30 and 120 frames per second).
const BUDGETS_MS: [(f64, &str); 3] = [(16.7, "60 fps"), (33.3, "30 fps"), (8.3, "120 fps")];

/// One side of a comparison: what is loading and what is shown.
#[derive(Default)]
struct Slot {
    job: Option<(LoadJob, Option<OnDone>)>,
    rec: Option<Recording>,
    /// What the job in flight replaced (one line), told once it is shown.
    replaced: Option<String>,
    /// When the job in flight was asked for ([`PuffinLensApp::tick`]).
    asked_at: u64,
    /// The turn of the latest request taken for this side, and its name: an
    /// earlier request whose bytes arrive later is dropped.
    turn: (u64, String),
}

pub struct PuffinLensApp {
    shared: Shared,
    settings: Settings,
    a: Slot,
    b: Slot,
    shown: Side,
    /// Filters the lists (Ctrl/Cmd-F focuses it, Esc clears it).
    filter: String,
    /// The last error, shown until dismissed or until a recording asked
    /// for after it loads.
    error: Option<String>,
    /// When the error was set, on the clock of [`Self::tick`].
    error_at: u64,
    /// Counts requests and errors, to tell which came first.
    tick: u64,
    /// Natively, decode on a background thread (tests decode in slices).
    threaded: bool,
    /// A one-line note about what just happened (a second recording opened).
    notice: Option<String>,
    /// The location hash the page was opened with, applied to the first
    /// recording that loads.
    pending_hash: Option<String>,
    /// The hash last written (so the app's own changes are not re-applied).
    last_hash: String,
    /// A fingerprint of the last published `ui()`, to republish on change only.
    ui_fingerprint: u64,
    /// A against B, made when the diff view is first shown with both open.
    diff: Option<DiffView>,
    /// A connection to a running app, shown as A.
    live: Option<LiveSession>,
    /// The Connect… dialog, with the address being typed.
    connect_dialog: Option<String>,
    /// Rows the top bar took on the last frame.
    top_bar_rows: u32,
    /// Frames drawn (the first is marked for `status().timings`).
    frames_drawn: u64,
    /// A recording loaded this frame: its first view is marked ("shown
    /// NAME") once the frame is drawn.
    shown_mark: Option<String>,
}

impl PuffinLensApp {
    /// The app as eframe creates it, with settings restored from storage.
    pub fn new(cc: &eframe::CreationContext<'_>, shared: Shared) -> Self {
        let settings = cc
            .storage
            .and_then(|s| eframe::get_value(s, eframe::APP_KEY))
            .unwrap_or_default();
        Self::with_context(&cc.egui_ctx, shared, settings)
    }

    pub fn with_context(ctx: &egui::Context, shared: Shared, settings: Settings) -> Self {
        shared.borrow_mut().ctx = Some(ctx.clone());
        ctx.request_repaint();
        Self {
            shared,
            settings,
            a: Slot::default(),
            b: Slot::default(),
            shown: Side::A,
            filter: String::new(),
            error: None,
            error_at: 0,
            tick: 0,
            threaded: cfg!(not(target_arch = "wasm32")),
            notice: None,
            pending_hash: platform::initial_hash(),
            last_hash: String::new(),
            ui_fingerprint: 0,
            diff: None,
            live: None,
            connect_dialog: None,
            top_bar_rows: 1,
            frames_drawn: 0,
            shown_mark: None,
        }
    }

    /// The live connection, when there is one.
    pub fn live(&self) -> Option<&LiveSession> {
        self.live.as_ref()
    }

    pub fn live_mut(&mut self) -> Option<&mut LiveSession> {
        self.live.as_mut()
    }

    /// Connects to a running app (`host:port` of its puffin_http server;
    /// in the browser a `puffin-lens relay` WebSocket address). Its frames
    /// are shown as A; a recording open as A moves to B, to compare with.
    pub fn connect(&mut self, ctx: &egui::Context, addr: &str) {
        self.live = None;
        match LiveSession::start(addr, self.settings.live_retention, ctx) {
            Ok(session) => {
                log::info!("live: connecting to {}", session.addr);
                if self.a.rec.is_some() && self.b.rec.is_none() && self.b.job.is_none() {
                    std::mem::swap(&mut self.a, &mut self.b);
                }
                self.a = Slot::default();
                self.diff = None;
                self.shown = Side::A;
                self.settings.live_addr = addr.trim().to_owned();
                self.live = Some(session);
                self.error = None;
                self.notice = None;
                self.publish();
            }
            Err(err) => {
                self.set_error(err);
                self.publish();
            }
        }
    }

    /// Shows newer live frames when due (views rebuilt with where the user
    /// was: view, frame, scope, sort), and publishes the connection's status.
    fn poll_live(&mut self, ctx: &egui::Context) {
        let Some(live) = self.live.as_mut() else {
            self.shared.borrow_mut().live = None;
            return;
        };
        if let Some((decoded, kept_bytes)) = live.due() {
            let started = web_time::Instant::now();
            let loaded = Arc::new(Loaded::new(live.name(), decoded, kept_bytes, 0.0));
            let budget = self.settings.frame_budget_ms;
            let default_stack = self.settings.default_stack();
            let rec = match self.a.rec.take() {
                Some(old) => {
                    let hash = old.hash();
                    let mut rec = Recording::new(loaded, budget, default_stack.clone());
                    rec.apply_hash(&hash);
                    rec
                }
                None => Recording::new(loaded, budget, default_stack.clone()),
            };
            self.a.rec = Some(rec);
            if self.shown == Side::A {
                let (filter, substring) = (self.filter.clone(), self.settings.substring);
                if let Some(rec) = self.a.rec.as_mut() {
                    rec.sync(&filter, substring);
                }
            }
            self.diff = None;
            live.refreshed(started);
            let shared = &mut *self.shared.borrow_mut();
            shared.a = self.a.rec.as_ref().map(|r| r.loaded().clone());
        }
        if let Some(wait) = live.next_check() {
            ctx.request_repaint_after(wait);
        }
        self.shared.borrow_mut().live = Some(live.status_json());
    }

    fn apply_live_action(&mut self, action: LiveAction) {
        let Some(live) = self.live.as_mut() else {
            return;
        };
        live.apply(&action);
        match action {
            LiveAction::Save => {
                let bytes = live.to_puffin();
                if let Err(err) =
                    platform::save_file("live_capture.puffin", "application/octet-stream", &bytes)
                {
                    self.set_error(err);
                }
            }
            LiveAction::Disconnect => self.live = None,
            LiveAction::Retention(r) => self.settings.live_retention = r,
            LiveAction::Pause(_) | LiveAction::Clear => {}
        }
    }

    fn connect_dialog(&mut self, ctx: &egui::Context) {
        let Some(mut addr) = self.connect_dialog.take() else {
            return;
        };
        let mut open = true;
        let mut go = false;
        egui::Window::new("Connect to a running app")
            .open(&mut open)
            .collapsible(false)
            .resizable(false)
            .show(ctx, |ui| {
                if cfg!(target_arch = "wasm32") {
                    ui.label(
                        "Browsers cannot open TCP connections: run `puffin-lens relay` next to \
                         the app (it forwards 127.0.0.1:8585 to ws://127.0.0.1:8586), then \
                         connect to the relay's address.",
                    );
                } else {
                    ui.label(
                        "The app serves its frames with puffin_http: \
                         `puffin_http::Server::new(\"127.0.0.1:8585\")` and \
                         `puffin::set_scopes_on(true)`.",
                    );
                }
                let edit = ui.add(
                    egui::TextEdit::singleline(&mut addr)
                        .hint_text(live::default_addr())
                        .desired_width(260.0),
                );
                let enter = edit.lost_focus() && ui.input(|i| i.key_pressed(Key::Enter));
                ui.horizontal(|ui| {
                    go = ui.button("Connect").clicked() || enter;
                });
            });
        if go {
            self.connect(ctx, &addr);
        } else if open {
            self.connect_dialog = Some(addr);
        }
    }

    /// Decode on this thread in slices instead of on a background thread.
    pub fn with_threaded_loading(mut self, threaded: bool) -> Self {
        self.threaded = threaded;
        self
    }

    pub fn shared(&self) -> &Shared {
        &self.shared
    }

    /// The scope filter (Ctrl/Cmd-F, Esc clears).
    pub fn filter(&self) -> &str {
        &self.filter
    }

    /// Sets the scope filter, as typing it does.
    pub fn set_filter(&mut self, filter: &str) {
        self.filter = filter.to_owned();
    }

    pub fn error(&self) -> Option<&str> {
        self.error.as_deref()
    }

    pub fn shown(&self) -> Side {
        self.shown
    }

    /// The overview of a side, once loaded.
    pub fn view(&self, side: Side) -> Option<&OverviewView> {
        self.slot(side).rec.as_ref().map(|r| &r.overview)
    }

    pub fn view_mut(&mut self, side: Side) -> Option<&mut OverviewView> {
        self.slot_mut(side).rec.as_mut().map(|r| &mut r.overview)
    }

    /// A side's recording and its views, once loaded.
    pub fn recording(&self, side: Side) -> Option<&Recording> {
        self.slot(side).rec.as_ref()
    }

    pub fn recording_mut(&mut self, side: Side) -> Option<&mut Recording> {
        self.slot_mut(side).rec.as_mut()
    }

    /// The diff view of A against B, made (or remade, when A or B changed)
    /// on demand; `None` unless both are open.
    pub fn diff_view(&mut self) -> Option<&mut DiffView> {
        let (a, b) = (self.a.rec.as_ref()?.loaded(), self.b.rec.as_ref()?.loaded());
        if !self.diff.as_ref().is_some_and(|d| d.shows(a, b)) {
            // In the browser its table is built a slice per frame as it is drawn.
            self.diff = Some(if platform::SLICED_VIEWS {
                DiffView::start(a.clone(), b.clone())
            } else {
                DiffView::new(a.clone(), b.clone())
            });
        }
        self.diff.as_mut()
    }

    /// The one-line notice shown under the top bar, if any.
    pub fn notice(&self) -> Option<&str> {
        self.notice.as_deref()
    }

    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// Sets the frame budget of every open recording's chart.
    pub fn set_frame_budget_ms(&mut self, budget_ms: f64) {
        self.settings.frame_budget_ms = budget_ms;
        for side in [Side::A, Side::B] {
            if let Some(view) = self.view_mut(side) {
                view.set_budget_ms(budget_ms);
            }
        }
    }

    pub fn is_loading(&self) -> bool {
        self.a.job.is_some() || self.b.job.is_some()
    }

    fn slot(&self, side: Side) -> &Slot {
        match side {
            Side::A => &self.a,
            Side::B => &self.b,
        }
    }

    fn slot_mut(&mut self, side: Side) -> &mut Slot {
        match side {
            Side::A => &mut self.a,
            Side::B => &mut self.b,
        }
    }

    /// Queues a recording (as the JavaScript API and file pickers do).
    pub fn open(&self, name: &str, source: Source, side: Option<Side>) {
        self.shared.borrow_mut().push(Incoming {
            name: name.to_owned(),
            source,
            side,
            on_done: None,
            turn: 0,
        });
    }

    /// Starts loading a recording. Without a side it becomes A unless a
    /// recording is shown there (then B, to compare). The latest request
    /// for a side wins: whatever was still loading or downloading for it is
    /// cancelled, its `load()` promise rejected, and `status().replaced`
    /// and the notice line say so.
    fn start_load(&mut self, ctx: &egui::Context, incoming: Incoming) {
        let side = incoming.side.unwrap_or(if self.a.rec.is_none() {
            Side::A
        } else {
            Side::B
        });
        let started = web_time::Instant::now();
        let name = incoming.name.clone();
        // Made before the request this side took last: its bytes came late.
        let (latest, latest_name) = self.slot(side).turn.clone();
        if incoming.turn < latest {
            let line = format!(
                "{} ({}) was replaced by {}, asked for after it, before it finished loading",
                incoming.name,
                side.label(),
                latest_name
            );
            log::info!("{line}");
            if let Some(on_done) = incoming.on_done {
                on_done(Err(line.clone()));
            }
            self.shared.borrow_mut().replaced = Some(line);
            return;
        }
        self.slot_mut(side).turn = (incoming.turn, incoming.name.clone());
        let mut replaced = self
            .shared
            .borrow_mut()
            .cancel_fetches(side, &incoming.name);
        if let Some((old, on_done)) = self.slot_mut(side).job.take() {
            let line = format!(
                "{} ({}) was replaced by {} before it finished loading",
                old.name,
                side.label(),
                incoming.name
            );
            if let Some(on_done) = on_done {
                on_done(Err(line.clone()));
            }
            replaced.push(line);
        }
        platform::mark(&format!("load-start {}", incoming.name));
        let first_frame = self.frames_drawn == 0;
        let job = LoadJob::start(
            incoming.name,
            incoming.source,
            ctx,
            self.threaded,
            first_frame,
        );
        log::info!(
            "{name}: load started in {:.0} ms",
            started.elapsed().as_secs_f64() * 1e3
        );
        self.tick += 1;
        let asked_at = self.tick;
        let slot = self.slot_mut(side);
        slot.job = Some((job, incoming.on_done));
        slot.asked_at = asked_at;
        slot.replaced = replaced.pop();
        if let Some(line) = slot.replaced.clone() {
            log::info!("{line}");
            self.notice = Some(line.clone());
            self.shared.borrow_mut().replaced = Some(line);
        }
    }

    /// Advances the loads, decoding for what is left of `SLICE` this frame;
    /// returns whether one needs another frame to go on.
    fn poll_loads(&mut self, frame_start: web_time::Instant) -> bool {
        let mut running = None;
        let mut needs_frames = false;
        for side in [Side::A, Side::B] {
            let slot = self.slot_mut(side);
            let Some((job, _)) = &mut slot.job else {
                continue;
            };
            let budget = SLICE.saturating_sub(frame_start.elapsed());
            match job.poll(budget) {
                Poll::Pending {
                    done_bytes,
                    total_bytes,
                    needs_polling,
                } => {
                    needs_frames |= needs_polling;
                    running = Some(LoadStatus {
                        name: job.name.clone(),
                        side: side.label(),
                        done_bytes,
                        total_bytes,
                    });
                }
                Poll::Ready(result) => {
                    let on_done = slot.job.take().and_then(|(_, on_done)| on_done);
                    self.finish_load(side, *result, on_done);
                }
            }
        }
        self.shared.borrow_mut().loading = running;
        needs_frames
    }

    fn finish_load(&mut self, side: Side, result: Result<Loaded, String>, on_done: Option<OnDone>) {
        match result {
            Ok(loaded) => {
                for d in &loaded.summary.diagnostics {
                    log::warn!("{}: {d}", loaded.name);
                }
                let summary_json = serde_json::to_string(&loaded.summary).unwrap_or_default();
                platform::mark(&format!("decoded {}", loaded.name));
                let loaded = Arc::new(loaded);
                let started = web_time::Instant::now();
                let mut rec = Recording::new(
                    loaded.clone(),
                    self.settings.frame_budget_ms,
                    self.settings.default_stack(),
                );
                platform::mark(&format!("overview {}", loaded.name));
                self.shown_mark = Some(loaded.name.clone());
                log::info!(
                    "{}: {} scopes loaded in {:.0} ms; overview built in {:.1} ms",
                    loaded.name,
                    loaded.summary.scopes,
                    loaded.load_ms,
                    started.elapsed().as_secs_f64() * 1e3
                );
                if let Some(hash) = self.pending_hash.take() {
                    rec.apply_hash(&hash);
                }
                self.slot_mut(side).rec = Some(rec);
                // An error from before this request is over; a later one
                // (another request refused meanwhile) stays.
                if self.error_at < self.slot(side).asked_at {
                    self.error = None;
                }
                // What the user just opened is what they see.
                self.shown = side;
                self.notice = match (&self.a.rec, &self.b.rec) {
                    (Some(a), Some(_)) => Some(format!(
                        "Showing {} {}. A ({}) and B can now be compared: the Diff view (key 5) \
                         shows what changed; A/B above switch between them.",
                        side.label(),
                        loaded.name,
                        a.loaded().name,
                    )),
                    // Said again once the recording that replaced it is shown.
                    _ => self.slot_mut(side).replaced.take(),
                };
                let diff_now = self.a.rec.is_some() && self.b.rec.is_some() && {
                    let mut shared = self.shared.borrow_mut();
                    std::mem::take(&mut shared.diff_when_loaded)
                };
                if diff_now {
                    self.shown = Side::A;
                    self.notice = None;
                    if let Some(rec) = self.a.rec.as_mut() {
                        rec.view = View::Diff;
                    }
                }
                self.publish();
                if let Some(on_done) = on_done {
                    on_done(Ok(summary_json));
                }
            }
            Err(msg) => {
                log::error!("{msg}");
                self.set_error(msg.clone());
                self.publish();
                if let Some(on_done) = on_done {
                    on_done(Err(msg));
                }
            }
        }
    }

    /// Shows `msg` as the error line until dismissed or outdated.
    fn set_error(&mut self, msg: String) {
        self.tick += 1;
        self.error = Some(msg);
        self.error_at = self.tick;
    }

    /// Tells the outside (JavaScript API) what the app shows now.
    fn publish(&self) {
        let mut shared = self.shared.borrow_mut();
        shared.a = self.a.rec.as_ref().map(|r| r.loaded().clone());
        shared.b = self.b.rec.as_ref().map(|r| r.loaded().clone());
        shared.shown = self.shown;
        shared.error = self.error.clone();
    }

    fn close(&mut self, side: Side) {
        if side == Side::A {
            self.live = None;
        }
        *self.slot_mut(side) = Slot::default();
        if side == Side::A && self.b.rec.is_some() {
            std::mem::swap(&mut self.a, &mut self.b);
        }
        self.shown = Side::A;
        self.notice = None;
        self.publish();
    }

    fn take_input(&mut self, ctx: &egui::Context) {
        // Errors from outside (a download or a file that could not be read).
        let failed = self.shared.borrow_mut().failed.take();
        if let Some(msg) = failed {
            log::error!("{msg}");
            self.set_error(msg);
            self.publish();
        }
        let incoming = std::mem::take(&mut self.shared.borrow_mut().incoming);
        for item in incoming {
            self.start_load(ctx, item);
        }
        let dropped = ctx.input(|i| i.raw.dropped_files.clone());
        let count = dropped.len();
        for (i, file) in dropped.into_iter().enumerate() {
            let name = file_name(&file.path().to_string_lossy());
            // Its turn and side now, when dropped: bytes read later cannot
            // jump it.
            let (turn, side) = {
                let mut shared = self.shared.borrow_mut();
                (
                    shared.take_turn(),
                    Some(shared.side_now(dropped_side(count, i))),
                )
            };
            #[cfg(not(target_arch = "wasm32"))]
            {
                let source = match file.bytes() {
                    Ok(bytes) => Source::Bytes(bytes),
                    Err(_) => Source::Path(file.path().to_path_buf()),
                };
                self.start_load(
                    ctx,
                    Incoming {
                        name,
                        source,
                        side,
                        on_done: None,
                        turn,
                    },
                );
            }
            #[cfg(target_arch = "wasm32")]
            {
                let shared = self.shared.clone();
                wasm_bindgen_futures::spawn_local(async move {
                    let started = web_time::Instant::now();
                    let result = match file.web_file() {
                        Some(web_file) => platform::web::read_file(web_file, &name).await,
                        None => file
                            .bytes_async()
                            .await
                            .map_err(|err| format!("{name}: cannot read: {err}")),
                    };
                    log::info!(
                        "{name}: read the dropped file in {:.0} ms",
                        started.elapsed().as_secs_f64() * 1e3
                    );
                    shared.borrow_mut().open_read(name, side, turn, result);
                });
            }
        }
        let (open, find, escape) = ctx.input_mut(|i| {
            (
                i.consume_shortcut(&OPEN),
                i.consume_shortcut(&FIND),
                i.consume_key(Modifiers::NONE, Key::Escape),
            )
        });
        if open {
            platform::pick_files(&self.shared);
        }
        if find {
            ctx.memory_mut(|m| m.request_focus(filter_id()));
        }
        // Esc: in a focused flame graph (no filter typed), one level up;
        // else it clears the filter and the error line.
        let flame_up = escape
            && self.filter.is_empty()
            && self
                .slot_mut(self.shown)
                .rec
                .as_mut()
                .filter(|rec| rec.view == View::Flame)
                .and_then(|rec| rec.flame.as_mut())
                .is_some_and(|flame| flame.focus_up());
        // Esc with nothing else to undo, or Backspace outside a text field:
        // the last transform goes.
        let idle = escape && !flame_up && self.filter.is_empty() && self.error.is_none();
        let backspace =
            !ctx.egui_wants_keyboard_input() && ctx.input(|i| i.key_pressed(Key::Backspace));
        if (idle || backspace)
            && let Some(rec) = self.slot_mut(self.shown).rec.as_mut()
        {
            rec.pop_transform();
        }
        if escape && !flame_up {
            self.filter.clear();
            self.error = None;
            ctx.memory_mut(|m| m.surrender_focus(filter_id()));
        }
        // Keys 1-6 switch views, unless a text field has the keyboard.
        if !ctx.egui_wants_keyboard_input()
            && let Some(rec) = self.slot_mut(self.shown).rec.as_mut()
        {
            for view in View::ALL {
                if ctx.input_mut(|i| i.consume_key(Modifiers::NONE, view.key())) {
                    rec.view = view;
                }
            }
        }
    }

    /// Applies the requests of `puffinLens.show`/`select` and hash changes.
    fn take_commands(&mut self) {
        let commands = std::mem::take(&mut self.shared.borrow_mut().commands);
        for (command, on_done) in commands {
            let result = self.apply_command(command);
            let result = result.map(|()| self.ui_json().to_string());
            if let Some(on_done) = on_done {
                on_done(result);
            }
        }
    }

    fn apply_command(&mut self, command: UiCommand) -> Result<(), String> {
        let substring = self.settings.substring;
        let slot = match self.shown {
            Side::A => &mut self.a,
            Side::B => &mut self.b,
        };
        let Some(rec) = slot.rec.as_mut() else {
            if let UiCommand::Hash(hash) = command {
                self.pending_hash = Some(hash);
                return Ok(());
            }
            return Err("no recording is open".to_owned());
        };
        match command {
            UiCommand::Show { view, options } if view == "diff" => self.show_diff(&options),
            UiCommand::Show { view, options } => {
                let mut filter = std::mem::take(&mut self.filter);
                let result = rec.show(&view, &options, &mut filter, substring);
                rec.sync(&filter, substring);
                self.filter = filter;
                result
            }
            UiCommand::Select(name) => {
                if rec.select_scope(&name) {
                    Ok(())
                } else {
                    Err(crate::engine::analyses::no_scope_named(&name))
                }
            }
            UiCommand::Transforms(stack) => {
                rec.transforms = stack;
                rec.transform_notice = None;
                let filter = self.filter.clone();
                rec.sync(&filter, substring);
                Ok(())
            }
            UiCommand::Hash(hash) => {
                if hash != self.last_hash {
                    rec.apply_hash(&hash);
                    if rec.view == View::Diff {
                        match self.diff_view() {
                            Some(diff) => diff.apply_hash(&hash),
                            None => {
                                if let Some(rec) = self.slot_mut(self.shown).rec.as_mut() {
                                    rec.view = View::Overview;
                                }
                            }
                        }
                    }
                    self.last_hash = hash;
                }
                Ok(())
            }
        }
    }

    /// `puffinLens.show("diff", options)`.
    fn show_diff(&mut self, options: &serde_json::Value) -> Result<(), String> {
        let (filter, substring) = (self.filter.clone(), self.settings.substring);
        let diff = self
            .diff_view()
            .ok_or("the diff needs two recordings open (A and B)")?;
        // A small comparison is done within the slice, before show() answers.
        diff.step_build(Some(views::BUILD_SLICE));
        let filter = diff.show(options, filter)?;
        diff.set_filter(&filter, substring);
        self.filter = filter;
        if let Some(rec) = self.slot_mut(self.shown).rec.as_mut() {
            rec.view = View::Diff;
        }
        Ok(())
    }

    /// What `puffinLens.ui()` returns: the shown recording's views.
    pub fn ui_json(&self) -> serde_json::Value {
        match self.slot(self.shown).rec.as_ref() {
            Some(rec) => {
                let mut v = rec.ui_json(&self.filter);
                v["shown"] = self.shown.label().to_lowercase().into();
                v["top_bar_rows"] = self.top_bar_rows.into();
                if let (View::Diff, Some(diff)) = (rec.view, &self.diff) {
                    let (sort, descending) = diff.sort();
                    v["mode"] = diff.mode().as_str().into();
                    v["building"] = diff.building().into();
                    v["normalize"] = diff.normalize().as_str().into();
                    v["basis"] = diff.basis().unit().into();
                    v["units"] = serde_json::json!([diff.units().0, diff.units().1]);
                    v["warnings"] = diff.warnings().into();
                    v["drift"] = diff.drift().into();
                    v["sort"] = sort.as_str().into();
                    v["descending"] = descending.into();
                    v["rows"] = diff.rows_json(UI_ROWS).into();
                    if diff.mode() == crate::app::views::diff::DiffMode::Flame {
                        v["nodes"] = v["rows"].take();
                        v["rows"] = serde_json::Value::Array(Vec::new());
                        v["width"] = if diff.flame_width_from_a() { "a" } else { "b" }.into();
                        v["focus"] = if diff.flame_focus().is_empty() {
                            serde_json::Value::Null
                        } else {
                            diff.flame_focus().into()
                        };
                    }
                }
                v
            }
            None => serde_json::Value::Null,
        }
    }

    /// Republishes `ui()` when what it reads changed, and writes the
    /// location hash.
    fn publish_ui(&mut self) {
        use std::hash::{Hash as _, Hasher as _};
        let mut h = rustc_hash::FxHasher::default();
        self.shown.label().hash(&mut h);
        self.filter.hash(&mut h);
        if let Some(rec) = self.slot(self.shown).rec.as_ref() {
            rec.hash().hash(&mut h);
            rec.tree.merged_rows().len().hash(&mut h);
            rec.tree
                .merged_rows()
                .iter()
                .take(UI_ROWS)
                .for_each(|n| n.hash(&mut h));
            rec.tree
                .frame_rows()
                .iter()
                .take(UI_ROWS)
                .for_each(|r| r.hash(&mut h));
            rec.tree.frame_rows().len().hash(&mut h);
            rec.table.thread().hash(&mut h);
            rec.tree.gap_window().map(|g| g.start_ns).hash(&mut h);
            rec.table
                .rows()
                .iter()
                .take(UI_ROWS)
                .for_each(|r| r.hash(&mut h));
            rec.table.rows().len().hash(&mut h);
            // Progress in whole percents: ui() follows a build.
            let percent = |b: Option<f32>| b.map(|b| (b * 100.0) as u32);
            percent(rec.table.building()).hash(&mut h);
            percent(rec.tree.building()).hash(&mut h);
            if let (View::Timeline, Some(t)) = (rec.view, &rec.timeline) {
                t.fingerprint(&mut h);
            }
            if let (View::Flame, Some(f)) = (rec.view, &rec.flame) {
                f.fingerprint(&mut h);
            }
            let hash = match (&self.diff, rec.view) {
                (Some(diff), View::Diff) => {
                    diff.fingerprint(&mut h);
                    percent(diff.building()).hash(&mut h);
                    diff.hash()
                }
                _ => rec.hash(),
            };
            hash.hash(&mut h);
            if hash != self.last_hash {
                platform::set_hash(&hash);
                self.last_hash = hash;
            }
        }
        let fingerprint = h.finish();
        if fingerprint != self.ui_fingerprint || self.shared.borrow().ui.is_none() {
            self.ui_fingerprint = fingerprint;
            self.shared.borrow_mut().ui = Some(self.ui_json().to_string());
        }
    }

    fn export(&mut self, what: Export) {
        let Some(rec) = self.slot(self.shown).rec.as_ref() else {
            return;
        };
        let file = match (what, &self.a.rec, &self.b.rec) {
            // The report of A, and of B against A when both are open.
            (Export::Report, Some(a), b) => Ok(report_file(
                a.loaded(),
                b.as_ref().map(|b| b.loaded().as_ref()),
            )),
            // What the flame view shows: the frame selection, its thread.
            (Export::Flame, ..) => flame_file(
                rec.loaded(),
                rec.frames.positions(rec.loaded().trace()),
                rec.flame.as_ref().and_then(|f| f.thread()),
            ),
            _ => what.file(rec.loaded()),
        };
        let saved = file.and_then(|(name, mime, bytes)| platform::save_file(&name, mime, &bytes));
        if let Err(err) = saved {
            self.set_error(err);
        }
    }

    fn top_bar(&mut self, ui: &mut egui::Ui) {
        let response = ui.horizontal_wrapped(|ui| {
            let row_height = ui.heading("puffin-lens").rect.height();
            ui.separator();
            if ui
                .button("Open…")
                .on_hover_text(format!(
                    "Open a .puffin recording or JSON dump ({}); a second one opens as B",
                    ui.ctx().format_shortcut(&OPEN)
                ))
                .clicked()
            {
                platform::pick_files(&self.shared);
            }
            if ui
                .button("Try an example")
                .on_hover_text("A small bundled recording: four threads, a few frames")
                .clicked()
            {
                self.open(
                    EXAMPLE_NAME,
                    Source::Bytes(EXAMPLE_BYTES.to_vec()),
                    Some(Side::A),
                );
            }
            if ui
                .button("Connect…")
                .on_hover_text("Watch a running app live (its puffin_http server)")
                .clicked()
            {
                self.connect_dialog = Some(self.settings.live_addr.clone());
            }
            let has_view = self.slot(self.shown).rec.is_some();
            ui.add_enabled_ui(has_view, |ui| {
                ui.menu_button("Export", |ui| {
                    let items = [
                        (
                            Export::Json,
                            "JSON",
                            "The documented JSON export (same bytes as `puffin-lens dump`)",
                        ),
                        (Export::FramesCsv, "Frames (CSV)", "The frames list as CSV"),
                        (
                            Export::Parquet,
                            "Parquet tables (zip)",
                            "The scopes, frames and scope_defs tables of `puffin-lens export`, \
                             zipped: for DuckDB, Spark, Polars",
                        ),
                        (
                            Export::Flame,
                            "Flame graph (SVG)",
                            "`puffin-lens flamegraph`: an interactive SVG of the frame selection \
                             (zoom and search in the SVG), for flamegraph.pl's readers",
                        ),
                        (
                            Export::Chrome,
                            "Chrome trace (Perfetto)",
                            "The Trace Event Format: open it in Perfetto UI (Open trace file), \
                             chrome://tracing (Load) or the Firefox Profiler",
                        ),
                        (
                            Export::Speedscope,
                            "speedscope",
                            "speedscope's own format: drop it on speedscope",
                        ),
                        (
                            Export::Folded,
                            "Folded stacks",
                            "thread;outer;…;inner self_ns per line: for inferno, flamegraph.pl \
                             or speedscope",
                        ),
                        (
                            Export::Report,
                            "Report (HTML)",
                            "`puffin-lens report` as one page with charts: A, or B against A \
                             when both are open",
                        ),
                    ];
                    for (what, label, hover) in items {
                        if ui.button(label).on_hover_text(hover).clicked() {
                            self.export(what);
                            ui.close();
                        }
                    }
                });
            });
            ui.separator();
            for side in [Side::A, Side::B] {
                let Some(rec) = self.slot(side).rec.as_ref() else {
                    continue;
                };
                // Long names are elided in the middle: the bar stays one row.
                let name = &rec.loaded().name;
                let label = format!("{}: {}", side.label(), crate::units::elide(name, 24));
                if ui
                    .selectable_label(self.shown == side, label)
                    .on_hover_text(format!("Show this recording ({name})"))
                    .clicked()
                {
                    self.shown = side;
                    self.publish();
                }
                if ui.small_button("×").on_hover_text("Close").clicked() {
                    self.close(side);
                    return row_height;
                }
            }
            ui.separator();
            ui.add(
                egui::TextEdit::singleline(&mut self.filter)
                    .id(filter_id())
                    .hint_text(format!(
                        "filter scopes ({})",
                        ui.ctx().format_shortcut(&FIND)
                    ))
                    .desired_width(120.0),
            );
            ui.checkbox(&mut self.settings.substring, "substring")
                .on_hover_text(
                    "Match anywhere in the name, any case (else: names starting with the filter)",
                );
            if let Some(rec) = self.slot_mut(self.shown).rec.as_mut() {
                let mut on = rec.transforms.0.contains(&Transform::OnlyMyCode);
                if ui
                    .checkbox(&mut on, "only my code")
                    .on_hover_text(
                        "Collapse every dependency crate's scopes into one node per run \
                         ([egui], [wgpu]): the app's own scopes stay as they are",
                    )
                    .changed()
                {
                    if on {
                        rec.push_transform(Transform::OnlyMyCode);
                    } else {
                        rec.transforms.0.retain(|t| *t != Transform::OnlyMyCode);
                    }
                }
            }
            ui.separator();
            ui.menu_button("Settings", |ui| self.settings_menu(ui))
                .response
                .on_hover_text(format!(
                    "The frame budget (now {} ms) and the theme",
                    self.settings.frame_budget_ms
                ));
            row_height
        });
        // One row of controls, unless the window is too narrow for them.
        let row_height = response.inner.max(1.0);
        let gap = ui.spacing().item_spacing.y;
        self.top_bar_rows =
            ((response.response.rect.height() + gap) / (row_height + gap)).round() as u32;
    }

    /// The top bar's Settings menu: the frame budget and the theme.
    fn settings_menu(&mut self, ui: &mut egui::Ui) {
        let mut budget = self.settings.frame_budget_ms;
        ui.label("Frame budget: the red line of the frame chart; frames over it are highlighted");
        for (ms, fps) in BUDGETS_MS {
            ui.selectable_value(&mut budget, ms, format!("{ms} ms ({fps})"));
        }
        ui.horizontal(|ui| {
            ui.label("other");
            ui.add(
                egui::DragValue::new(&mut budget)
                    .range(0.1..=10_000.0)
                    .speed(0.1)
                    .suffix(" ms"),
            );
        });
        if budget != self.settings.frame_budget_ms {
            self.set_frame_budget_ms(budget);
        }
        ui.separator();
        ui.label("Theme");
        ui.horizontal(theme_buttons);
    }

    /// Rows the top bar took on the last frame (1 unless the window is too
    /// narrow for its controls).
    pub fn top_bar_rows(&self) -> u32 {
        self.top_bar_rows
    }

    fn status_lines(&mut self, ui: &mut egui::Ui) {
        if let Some(action) = self.live.as_ref().and_then(|live| live.ui(ui)) {
            self.apply_live_action(action);
        }
        if let Some(err) = self.error.clone() {
            egui::Frame::new()
                .fill(Color32::from_rgb(130, 30, 30))
                .inner_margin(6.0)
                .corner_radius(4.0)
                .show(ui, |ui| {
                    ui.horizontal(|ui| {
                        // The button first: a long line wraps beside it.
                        if ui.small_button("dismiss").clicked() {
                            self.error = None;
                        }
                        ui.add(
                            egui::Label::new(
                                RichText::new(format!("Error: {err}"))
                                    .color(Color32::WHITE)
                                    .strong(),
                            )
                            .wrap(),
                        );
                    });
                });
        }
        let (loading, fetching) = {
            let shared = self.shared.borrow();
            (shared.loading.clone(), shared.fetching().map(str::to_owned))
        };
        if let Some(url) = fetching {
            ui.horizontal(|ui| {
                // In the browser the page's progress bar moves instead (a
                // spinner would repaint the canvas all along).
                #[cfg(not(target_arch = "wasm32"))]
                ui.spinner();
                ui.label(format!("Downloading {url}…"));
            });
        }
        // In the browser the page's HTML progress bar shows how far it is
        // (the canvas is not redrawn while decoding).
        #[cfg(target_arch = "wasm32")]
        if let Some(status) = &loading {
            ui.label(format!("Decoding {} ({})…", status.name, status.side));
        }
        #[cfg(not(target_arch = "wasm32"))]
        if let Some(status) = loading {
            let frac = if status.total_bytes == 0 {
                0.0
            } else {
                status.done_bytes as f32 / status.total_bytes as f32
            };
            ui.add(egui::ProgressBar::new(frac).show_percentage().text(format!(
                "Decoding {} ({}): {:.1} of {:.1} MB",
                status.name,
                status.side,
                status.done_bytes as f64 / 1e6,
                status.total_bytes as f64 / 1e6
            )));
        }
    }

    fn welcome(&mut self, ui: &mut egui::Ui) {
        ui.vertical_centered(|ui| {
            ui.add_space(ui.available_height() * 0.25);
            ui.heading("Drop a .puffin recording (or a JSON dump) anywhere on this window");
            ui.label(
                "Everything is analyzed on this machine; nothing is uploaded. \
                 A second recording opens as B, for a before/after comparison.",
            );
            ui.add_space(12.0);
            if ui.button("Open a recording…").clicked() {
                platform::pick_files(&self.shared);
            }
            ui.add_space(6.0);
            if ui.button("Try an example").clicked() {
                self.open(
                    EXAMPLE_NAME,
                    Source::Bytes(EXAMPLE_BYTES.to_vec()),
                    Some(Side::A),
                );
            }
        });
    }

    fn drop_overlay(ctx: &egui::Context) {
        if ctx.input(|i| i.raw.hovered_files.is_empty()) {
            return;
        }
        let painter = ctx.layer_painter(egui::LayerId::new(
            egui::Order::Foreground,
            egui::Id::unique("drop_overlay"),
        ));
        let rect = ctx.content_rect();
        painter.rect_filled(rect, 0.0, Color32::from_black_alpha(180));
        painter.text(
            rect.center(),
            egui::Align2::CENTER_CENTER,
            "Drop to open (a second recording opens as B)",
            egui::FontId::proportional(24.0),
            Color32::WHITE,
        );
    }
}

/// What "Export JSON" / "Export CSV" save.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Export {
    /// The documented JSON export, as `puffin-lens dump` writes it.
    Json,
    /// The frames list as CSV.
    FramesCsv,
    /// The three Parquet tables of `puffin-lens export`, zipped in its
    /// folder layout (`scopes/`, `frames/`, `scope_defs/`).
    Parquet,
    /// `puffin-lens report A [B] --format html`: A, or B against A when
    /// both are open.
    Report,
    /// `puffin-lens flamegraph`: the interactive SVG of the frame selection
    /// (and of the flame view's thread).
    Flame,
    /// `export --format chrome`: the Trace Event Format (Perfetto UI,
    /// chrome://tracing, the Firefox Profiler).
    Chrome,
    /// `export --format speedscope`.
    Speedscope,
    /// `export --format folded`.
    Folded,
}

/// The HTML report of `a` (and of B against A): name, MIME type, contents.
pub fn report_file(a: &Loaded, b: Option<&Loaded>) -> (String, &'static str, Vec<u8>) {
    use crate::engine::report::{Report, ReportOptions};
    let report = Report::new(
        (&a.name, &a.decoded),
        b.map(|b| (b.name.as_str(), &b.decoded)),
        ReportOptions::default(),
    );
    let name = match b {
        Some(b) => format!("{}-vs-{}.report.html", a.name, b.name),
        None => format!("{}.report.html", a.name),
    };
    (name, "text/html", report.html().into_bytes())
}

impl Export {
    /// `"json"` or `"csv"`.
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "json" => Some(Export::Json),
            "csv" => Some(Export::FramesCsv),
            "parquet" => Some(Export::Parquet),
            "report" => Some(Export::Report),
            "flame" => Some(Export::Flame),
            "chrome" => Some(Export::Chrome),
            "speedscope" => Some(Export::Speedscope),
            "folded" => Some(Export::Folded),
            _ => None,
        }
    }

    /// The file to save: name, MIME type and contents.
    pub fn file(self, loaded: &Loaded) -> Result<(String, &'static str, Vec<u8>), String> {
        Ok(match self {
            Export::Json => (
                format!("{}.json", loaded.name),
                "application/json",
                crate::engine::export_string(loaded.trace(), &loaded.name, false).into_bytes(),
            ),
            Export::FramesCsv => (
                format!("{}.frames.csv", loaded.name),
                "text/csv",
                crate::engine::write::json::frames_csv(loaded.trace()).into_bytes(),
            ),
            Export::Parquet => (
                format!("{}.parquet.zip", loaded.name),
                "application/zip",
                parquet_zip(loaded)
                    .map_err(|err| format!("{}: Parquet export: {err}", loaded.name))?,
            ),
            Export::Report => report_file(loaded, None),
            Export::Flame => flame_file(loaded, 0..loaded.trace().frames.len() as u32, None)?,
            Export::Chrome | Export::Speedscope => {
                use crate::engine::write::chrome;
                let mut bytes = Vec::new();
                let (suffix, written) = if self == Export::Chrome {
                    (
                        "trace.json",
                        chrome::write_chrome(loaded.trace(), &loaded.name, &mut bytes),
                    )
                } else {
                    (
                        "speedscope.json",
                        chrome::write_speedscope(loaded.trace(), &loaded.name, &mut bytes),
                    )
                };
                written.map_err(|err| format!("{}: export: {err}", loaded.name))?;
                let stem = loaded
                    .name
                    .rsplit_once('.')
                    .map_or(loaded.name.as_str(), |(stem, _)| stem);
                (format!("{stem}.{suffix}"), "application/json", bytes)
            }
            Export::Folded => {
                let trace = loaded.trace();
                let stem = loaded
                    .name
                    .rsplit_once('.')
                    .map_or(loaded.name.as_str(), |(stem, _)| stem);
                (
                    format!("{stem}.folded"),
                    "text/plain",
                    crate::engine::write::folded::folded(trace, 0..trace.frames.len() as u32, None)
                        .into_bytes(),
                )
            }
        })
    }
}

/// `puffin-lens flamegraph` of these frames (and thread): name, MIME type,
/// contents.
pub fn flame_file(
    loaded: &Loaded,
    frames: std::ops::Range<u32>,
    thread: Option<&str>,
) -> Result<(String, &'static str, Vec<u8>), String> {
    use crate::engine::write::folded;
    let lines = folded::folded(loaded.trace(), frames, thread);
    let title = match thread {
        Some(t) => format!("{} (thread {t})", loaded.name),
        None => loaded.name.clone(),
    };
    let svg = folded::flamegraph_svg(&lines, &title, None)
        .map_err(|err| format!("{}: flame graph: {err}", loaded.name))?;
    Ok((format!("{}.flame.svg", loaded.name), "image/svg+xml", svg))
}

/// `scopes/<stem>.parquet`, `frames/<stem>.parquet` and
/// `scope_defs/<stem>.parquet` in a zip (stored: Parquet pages are
/// compressed already).
fn parquet_zip(loaded: &Loaded) -> Result<Vec<u8>, Box<dyn std::error::Error>> {
    use std::io::Write as _;
    let stem = loaded
        .name
        .rsplit_once('.')
        .map_or(loaded.name.as_str(), |(stem, _)| stem);
    let tables = crate::engine::write::parquet::write_tables(loaded.trace(), &loaded.name)?;
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let options = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Stored)
        .large_file(true);
    for (table, bytes) in tables {
        zip.start_file(format!("{}/{stem}.parquet", table.name()), options)?;
        zip.write_all(&bytes)?;
    }
    Ok(zip.finish()?.into_inner())
}

/// Overview · Tree · Table · Timeline · Diff (keys 1-5) and the frame selection.
fn view_bar(ui: &mut egui::Ui, rec: &mut Recording, diff_enabled: bool) {
    ui.horizontal(|ui| {
        for view in View::ALL {
            let enabled = view != View::Diff || diff_enabled;
            let key = match view.key() {
                egui::Key::Num6 => 6,
                egui::Key::Num5 => 5,
                egui::Key::Num4 => 4,
                egui::Key::Num3 => 3,
                egui::Key::Num2 => 2,
                _ => 1,
            };
            let hint = if enabled {
                format!("key {key}")
            } else {
                "Open a second recording (B) to compare it with A".to_owned()
            };
            if ui
                .add_enabled(
                    enabled,
                    egui::Button::selectable(
                        rec.view == view,
                        RichText::new(view.title()).strong(),
                    ),
                )
                .on_hover_text(hint)
                .on_disabled_hover_text("Open a second recording (B) to compare it with A")
                .clicked()
            {
                rec.view = view;
            }
        }
        ui.separator();
        let trace = rec.loaded().clone();
        let trace = trace.trace();
        ui.label("frames:");
        if ui
            .selectable_label(
                rec.frames == FrameSel::All,
                format!("all {}", trace.frames.len()),
            )
            .on_hover_text("The tree and the table cover every frame")
            .clicked()
        {
            rec.frames = FrameSel::All;
        }
        if let Some(f) = rec.overview.selected() {
            let one = FrameSel::One(f);
            if ui
                .selectable_label(rec.frames == one, one.label(trace))
                .on_hover_text("The frame selected on the overview")
                .clicked()
            {
                rec.frames = one;
            }
        }
        if let Some((a, b)) = rec.overview.range() {
            let range = FrameSel::Range(a, b);
            if ui
                .selectable_label(rec.frames == range, range.label(trace))
                .on_hover_text("The range dragged on the overview's frame chart")
                .clicked()
            {
                rec.frames = range;
            }
        }
    });
}

/// What the transform breadcrumbs ask.
enum BarAction {
    /// Remove the transform at this position.
    Remove(usize),
    Clear,
    /// Keep this stack for every recording opened.
    SaveDefault,
    ClearDefault,
}

/// The transform stack as breadcrumbs under the view bar: each removable
/// (Backspace or Esc remove the last), the default stack's marked, what
/// they matched nothing of said; nothing when there is no stack.
fn transform_bar(ui: &mut egui::Ui, rec: &Recording, default: &Stack) -> Option<BarAction> {
    let mut action = None;
    if rec.transforms.is_empty() && rec.transform_notice.is_none() {
        if !default.is_empty() {
            ui.horizontal(|ui| {
                ui.label(RichText::new("No transforms (this recording's default removed).").weak());
                if ui
                    .small_button("Forget the default")
                    .on_hover_text(format!("Stop applying {default} to every recording opened"))
                    .clicked()
                {
                    action = Some(BarAction::ClearDefault);
                }
            });
        }
        return action;
    }
    ui.horizontal_wrapped(|ui| {
        ui.label(RichText::new("Transforms:").strong())
            .on_hover_text(
                "Applied in order to the tree, the flame graph and the diff (right-click a node \
                 to add one; Backspace removes the last)",
            );
        for (i, t) in rec.transforms.0.iter().enumerate() {
            if i > 0 {
                ui.label(">");
            }
            let mut label = t.describe();
            if default.0.contains(t) {
                label.push_str(" (default)");
            }
            if ui
                .button(format!("{label}  x"))
                .on_hover_text(format!("{t}: click to remove"))
                .clicked()
            {
                action = Some(BarAction::Remove(i));
            }
        }
        if !rec.transforms.is_empty() {
            if ui.small_button("Clear").clicked() {
                action = Some(BarAction::Clear);
            }
            if &rec.transforms != default
                && ui
                    .small_button("Save as default")
                    .on_hover_text("Apply this stack to every recording opened from now on")
                    .clicked()
            {
                action = Some(BarAction::SaveDefault);
            }
        }
        let note = match rec.view {
            View::Timeline => {
                Some("(the timeline dims what they merge or drop: its truth is time)")
            }
            View::Table | View::Overview => {
                Some("(the tree, the flame graph and the diff show them; the timeline dims)")
            }
            _ => None,
        };
        if let Some(note) = note {
            ui.label(RichText::new(note).weak());
        }
    });
    let warn = ui.visuals().warn_fg_color;
    for w in rec.transform_warnings().iter().chain(&rec.transform_notice) {
        ui.label(RichText::new(w).color(warn));
    }
    action
}

/// Light / dark / system theme (egui's own switch uses emoji glyphs that
/// the bundled fonts lack).
fn theme_buttons(ui: &mut egui::Ui) {
    use egui::ThemePreference;
    let current = ui.ctx().options(|o| o.theme_preference);
    for (pref, label) in [
        (ThemePreference::Light, "Light"),
        (ThemePreference::Dark, "Dark"),
        (ThemePreference::System, "System"),
    ] {
        if ui.selectable_label(current == pref, label).clicked() {
            ui.ctx().set_theme(pref);
        }
    }
}

fn filter_id() -> egui::Id {
    egui::Id::unique("scope_filter")
}

impl eframe::App for PuffinLensApp {
    fn ui(&mut self, ui: &mut egui::Ui, _frame: &mut eframe::Frame) {
        let frame_start = web_time::Instant::now();
        let ctx = ui.ctx().clone();
        self.take_input(&ctx);
        if self.poll_loads(frame_start) {
            ctx.request_repaint();
        }
        let connect = self.shared.borrow_mut().connect.take();
        if let Some(addr) = connect {
            self.connect(&ctx, &addr);
        }
        self.poll_live(&ctx);
        self.connect_dialog(&ctx);
        self.take_commands();
        egui::Panel::top("top_bar").show(ui, |ui| self.top_bar(ui));
        let (filter, substring) = (self.filter.clone(), self.settings.substring);
        let loading = self.is_loading();
        let mut actions: Vec<Action> = Vec::new();
        let wants_diff = self
            .slot(self.shown)
            .rec
            .as_ref()
            .is_some_and(|r| r.view == View::Diff);
        if wants_diff {
            let stack = self
                .slot(self.shown)
                .rec
                .as_ref()
                .map(|r| r.transforms.clone())
                .unwrap_or_default();
            match self.diff_view() {
                Some(diff) => {
                    diff.set_filter(&filter, substring);
                    diff.set_transforms(&stack);
                }
                None => {
                    if let Some(rec) = self.slot_mut(self.shown).rec.as_mut() {
                        rec.view = View::Overview;
                    }
                }
            }
        }
        let diff_enabled = self.a.rec.is_some() && self.b.rec.is_some();
        if let Some(rec) = self.slot_mut(self.shown).rec.as_mut() {
            rec.sync(&filter, substring);
            if let Some(details) = rec.details.as_mut() {
                egui::Panel::right("details")
                    .resizable(true)
                    .default_size(360.0)
                    .show(ui, |ui| {
                        egui::ScrollArea::vertical().show(ui, |ui| {
                            if let Some(a) = details.ui(ui) {
                                actions.push(a.into());
                            }
                        });
                    });
            }
        }
        let default_stack = self.settings.default_stack();
        let mut bar_action = None;
        egui::CentralPanel::default().show(ui, |ui| {
            self.status_lines(ui);
            let notice = self.notice.clone();
            let (slot, diff) = match self.shown {
                Side::A => (&mut self.a, &mut self.diff),
                Side::B => (&mut self.b, &mut self.diff),
            };
            match slot.rec.as_mut() {
                Some(rec) => {
                    if let Some(notice) = notice {
                        ui.label(RichText::new(notice).color(ui.visuals().warn_fg_color));
                    }
                    view_bar(ui, rec, diff_enabled);
                    bar_action = transform_bar(ui, rec, &default_stack);
                    ui.separator();
                    match rec.view {
                        View::Overview => {
                            if let Some(name) = rec.overview.ui(ui, &filter) {
                                actions.push(Action::Select(name));
                            }
                        }
                        View::Tree => {
                            if let Some(a) = rec.tree.ui(ui) {
                                actions.push(a.into());
                            }
                        }
                        View::Table => {
                            let trace = rec.loaded().clone();
                            let positions = rec.frames.positions(trace.trace());
                            let label = rec.frames.label(trace.trace());
                            if let Some(a) = rec.table.ui(ui, positions, &label) {
                                actions.push(a.into());
                            }
                        }
                        View::Timeline => {
                            if let Some(a) = rec.timeline_mut().ui(ui) {
                                actions.push(a.into());
                            }
                        }
                        View::Flame => {
                            if let Some(a) = rec.flame_mut().ui(ui) {
                                actions.push(a.into());
                            }
                        }
                        View::Diff => match diff.as_mut() {
                            Some(diff) => diff.ui(ui),
                            None => {
                                ui.label("Open a second recording (B) to compare it with A.");
                            }
                        },
                    }
                }
                None if !loading => self.welcome(ui),
                None => {}
            }
        });
        if let Some(rec) = self.slot_mut(self.shown).rec.as_mut() {
            for a in actions {
                rec.apply(a);
            }
            match bar_action {
                Some(BarAction::Remove(i)) if i < rec.transforms.0.len() => {
                    rec.transforms.0.remove(i);
                }
                Some(BarAction::Clear) => rec.transforms.0.clear(),
                _ => {}
            }
            let stack = rec.transforms.clone();
            rec.sync(&filter, substring);
            match bar_action {
                Some(BarAction::SaveDefault) => {
                    self.settings.default_transforms =
                        stack.0.iter().map(|t| t.to_string()).collect();
                }
                Some(BarAction::ClearDefault) => self.settings.default_transforms.clear(),
                _ => {}
            }
        }
        self.publish_ui();
        Self::drop_overlay(&ctx);
        self.frames_drawn += 1;
        if self.frames_drawn == 1 {
            platform::mark("first-frame");
            platform::prestart_decoders();
        }
        if let Some(name) = self.shown_mark.take() {
            platform::mark(&format!("shown {name}"));
        }
    }

    fn save(&mut self, storage: &mut dyn eframe::Storage) {
        eframe::set_value(storage, eframe::APP_KEY, &self.settings);
    }
}

/// Opens the desktop app connected to a running app's puffin_http server.
#[cfg(not(target_arch = "wasm32"))]
pub fn run_native_live(addr: String) -> eframe::Result {
    run_native_with(Vec::new(), Some(addr))
}

/// Opens the desktop app, with up to two recordings (A, then B).
#[cfg(not(target_arch = "wasm32"))]
pub fn run_native(files: Vec<std::path::PathBuf>) -> eframe::Result {
    run_native_with(files, None)
}

#[cfg(not(target_arch = "wasm32"))]
fn run_native_with(files: Vec<std::path::PathBuf>, live: Option<String>) -> eframe::Result {
    let options = eframe::NativeOptions {
        viewport: egui::ViewportBuilder::default()
            .with_title("puffin-lens")
            .with_inner_size([1280.0, 800.0])
            .with_drag_and_drop(true),
        ..Default::default()
    };
    eframe::run_native(
        "puffin-lens",
        options,
        Box::new(move |cc| {
            let shared = Shared::default();
            if let Some(addr) = live {
                shared.borrow_mut().connect = Some(addr);
            }
            let app = PuffinLensApp::new(cc, shared);
            for (path, side) in files.into_iter().zip([Side::A, Side::B]) {
                let name = file_name(&path.to_string_lossy());
                app.open(&name, Source::Path(path), Some(side));
            }
            Ok(Box::new(app))
        }),
    )
}
