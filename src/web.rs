//! The browser entry point: starts the app on the page's canvas, installs
//! the `window.puffinLens` JavaScript API and loads `?url=…`.
//!
//! JavaScript API (every answer is about the recording the app shows, or
//! the side named `"a"`/`"b"`):
//! - `load(bytes, name?, side?)`: opens a recording (`Uint8Array`,
//!   `ArrayBuffer`, or a `File`/`Blob`, read a chunk at a time and refused
//!   by its size before any of it is read when it cannot fit; `name`
//!   defaults to the `File`'s); a promise of its summary, rejected with the
//!   error line.
//! - `summary(side?)`: what the overview shows (`null` when nothing is open),
//!   as `puffin-lens summary --json` prints it.
//! - `dumpJson(side?, pretty?)`: the documented JSON export, as
//!   `puffin-lens dump` writes it.
//! - `query(name, args?, side?)`: an analysis by subcommand name with its
//!   options as an object (`{top: 5}`), answered as `--json` prints it;
//!   throws on bad arguments or when there is no answer.
//! - `download(kind, side?)`: what "Export JSON" (`"json"`) or "Export CSV"
//!   (`"csv"`) save, offered as a download (also `"parquet"`, `"report"`,
//!   `"flame"`: the flame graph SVG of all frames, `"chrome"`, `"speedscope"`,
//!   `"folded"`: the exports for other viewers).
//! - `status()`: `{loading, fetching, error, replaced, a, b, shown, live,
//!   memory}`: `loading` is the load in flight (`{name, side, done_bytes,
//!   total_bytes}`), `replaced` the last request a later one for the same
//!   side cancelled (one line), `memory` what the app holds
//!   (`{in_use_bytes, wasm_bytes, limit_bytes}`), `decoded_by` how each
//!   side's recording was decoded (`{a, b}`: `"workers"`, the page's pool of
//!   decode workers; `"page"`, the page's own thread, a slice at a time: a
//!   JSON dump, `?workers=0`, or workers that could not start).
//!   `?workers=N` on the page's address sets the pool's size (default:
//!   `navigator.hardwareConcurrency - 1`, 1 to 8), `?run_kb=N` the bytes
//!   of records a worker decodes at a time (default 256; benchmarks).
//! - `show(view, options?)`: switches the view like a click would
//!   (`"overview"`, `"tree"` with `{mode, frame, expand, gap_ms}`, `"table"`
//!   with `{by, sort, descending, filter, thread}`); a promise of `ui()` once
//!   applied, rejected on bad options.
//! - `select(name)`: opens the details of a scope name; a promise of `ui()`.
//! - `transforms()`: the call-tree transforms shown (`["merge:NAME", …]`);
//!   `setTransforms(list)`: replaces them (thrown at once, naming it, when
//!   one does not parse); a promise of `ui()` once applied. `query(name,
//!   {transforms: […]})` answers through a stack of its own.
//! - `ui()`: what the app shows now, read from the views' own row vectors:
//!   `{view, frame, filter, selected_scope, rows, details, …}`.
//!
//! Timestamps in these answers are JavaScript numbers: epoch nanoseconds
//! above 2^53 come back rounded (by up to a few hundred ns); `dumpJson()`
//! keeps them exact as text.

use crate::app::platform;
use crate::app::platform::web::{Progress, check_room, element, escape_html, js_message};
use crate::app::{
    Export, Fetch, Incoming, PuffinLensApp, Shared, Side, Source, UiCommand, file_name,
};
use crate::engine::api;
use js_sys::{Function, JSON, Object, Promise, Reflect, Uint8Array};
use wasm_bindgen::JsCast as _;
use wasm_bindgen::prelude::*;

/// The id of the canvas in `index.html`.
const CANVAS_ID: &str = "puffin_lens_canvas";

pub fn start() {
    eframe::WebLogger::init(log::LevelFilter::Info).ok();
    platform::mark("wasm-started");
    // The same module runs in the decode workers (no window, no app).
    if web_sys::window().is_none() {
        platform::web::workers::install_worker_api();
        return;
    }
    let shared = Shared::default();
    if let Err(err) = install_api(&shared) {
        log::error!("cannot install window.puffinLens: {err:?}");
    }
    // ?url=A opens A; ?url=A&b=B opens both and lands on A's side, on the
    // pair's findings (as a drop does); a repeated url= or b= adds runs to
    // that side (?url=A1&url=A2&b=B1&b=B2: several runs a side, judged
    // between runs) and lands on the findings.
    let (a, b) = (page_params("url"), page_params("b"));
    if a.len() == 1 && b.len() == 1 {
        shared.borrow_mut().pair_when_loaded = true;
    }
    for (side, urls) in [(Side::A, a), (Side::B, b)] {
        for (k, url) in urls.into_iter().enumerate() {
            fetch_into(shared.clone(), url, side, k > 0);
        }
    }
    if let Some(live) = page_param("live") {
        shared.borrow_mut().connect = Some(live);
    }
    wasm_bindgen_futures::spawn_local(async move {
        let result = run(shared).await;
        let message = match &result {
            Ok(()) => None,
            Err(err) => Some(format!("puffin-lens could not start: {err:?}")),
        };
        set_loading_text(message.as_deref());
    });
}

async fn run(shared: Shared) -> Result<(), JsValue> {
    let document = web_sys::window()
        .and_then(|w| w.document())
        .ok_or("no document")?;
    let canvas = document
        .get_element_by_id(CANVAS_ID)
        .ok_or("no canvas element")?
        .dyn_into::<web_sys::HtmlCanvasElement>()?;
    create_gl_context(&canvas);
    track_drag(&canvas, &shared)?;
    let started = eframe::WebRunner::new()
        .start(
            canvas,
            eframe::WebOptions::default(),
            Box::new(move |cc| Ok(Box::new(PuffinLensApp::new(cc, shared)))),
        )
        .await;
    platform::mark("eframe-started");
    started
}

/// Where files are dragged over the canvas and dropped (eframe's events say
/// which files, not where): a drop onto a side's name in the top bar adds
/// runs to that side. Listening before eframe does, on the same canvas.
fn track_drag(canvas: &web_sys::HtmlCanvasElement, shared: &Shared) -> Result<(), JsValue> {
    let at = |e: &web_sys::DragEvent| [e.offset_x() as f32, e.offset_y() as f32];
    for (kind, dropped) in [("dragover", false), ("drop", true), ("dragleave", false)] {
        let s = shared.clone();
        let on = Closure::<dyn Fn(web_sys::DragEvent)>::new(move |e: web_sys::DragEvent| {
            let mut state = s.borrow_mut();
            match (kind, dropped) {
                ("dragleave", _) => state.drag_pos = None,
                (_, true) => {
                    state.drag_pos = None;
                    state.drop_pos = Some(at(&e));
                }
                _ => state.drag_pos = Some(at(&e)),
            }
        });
        canvas.add_event_listener_with_callback(kind, on.as_ref().unchecked_ref())?;
        on.forget();
    }
    Ok(())
}

/// Creates the canvas's WebGL2 context before eframe asks for one (it then
/// gets this one): without the multisampled, depth-buffered drawing buffer
/// WebGL gives by default. egui smooths its own edges and draws no depth
/// (eframe's desktop build has neither); in software GL (SwiftShader) the
/// start-up took 747 ms without them against 847 with (median of 7).
fn create_gl_context(canvas: &web_sys::HtmlCanvasElement) {
    let options = Object::new();
    for (key, value) in [("antialias", false), ("depth", false)] {
        Reflect::set(&options, &key.into(), &value.into()).ok();
    }
    if let Err(err) = canvas.get_context_with_context_options("webgl2", &options) {
        log::warn!("WebGL2 context: {err:?}");
    }
}

/// Hides the "Loading…" text once the app runs, or shows why it cannot.
fn set_loading_text(message: Option<&str>) {
    let Some(el) = element("loading_text") else {
        return;
    };
    match message {
        None => el.remove(),
        Some(msg) => el.set_inner_html(&format!("<p>{}</p>", escape_html(msg))),
    }
}

/// Every value of a parameter of the page's query string (`?b=…&b=…`), the
/// empty ones left out.
fn page_params(name: &str) -> Vec<String> {
    let Some(search) = web_sys::window().and_then(|w| w.location().search().ok()) else {
        return Vec::new();
    };
    let Ok(params) = web_sys::UrlSearchParams::new_with_str(&search) else {
        return Vec::new();
    };
    params
        .get_all(name)
        .iter()
        .filter_map(|v| v.as_string())
        .filter(|v| !v.is_empty())
        .collect()
}

/// A parameter of the page's query string (`?name=…`), when not empty.
fn page_param(name: &str) -> Option<String> {
    let search = web_sys::window()?.location().search().ok()?;
    web_sys::UrlSearchParams::new_with_str(&search)
        .ok()?
        .get(name)
        .filter(|u| !u.is_empty())
}

/// Downloads `url` into `side` (`add_run`: as one more run of it).
fn fetch_into(shared: Shared, url: String, side: Side, add_run: bool) {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT_FETCH: AtomicU64 = AtomicU64::new(1);
    let id = NEXT_FETCH.fetch_add(1, Ordering::Relaxed);
    // Its turn now, when asked: a download that ends later cannot jump a
    // later request.
    let turn = shared.borrow_mut().take_turn();
    // Started by the page already (?url= at its load), else started here.
    let (started, controller) = match take_prefetch(&url) {
        Some((response, controller)) => (Some(response), Some(controller)),
        None => (None, web_sys::AbortController::new().ok()),
    };
    // A later request for the same side cancels the download (Fetch::abort).
    let signal = controller.as_ref().map(|c| c.signal());
    shared.borrow_mut().fetches.push(Fetch {
        id,
        url: url.clone(),
        side,
        turn,
        add_run,
        abort: controller.map(|c| Box::new(move || c.abort()) as Box<dyn FnOnce()>),
    });
    wasm_bindgen_futures::spawn_local(async move {
        let result = fetch_bytes(&url, signal.as_ref(), started).await;
        let mut state = shared.borrow_mut();
        // Gone from the list: replaced by a later request; nothing to say.
        let Some(at) = state.fetches.iter().position(|f| f.id == id) else {
            log::info!("{url}: download dropped (replaced)");
            return;
        };
        state.fetches.remove(at);
        match result {
            Ok(bytes) => state.push(Incoming {
                add_run,
                name: file_name(&url),
                source: Source::Bytes(bytes),
                side: Some(side),
                on_done: None,
                turn,
            }),
            Err(err) => {
                state.pair_when_loaded = false;
                state.fail(err);
            }
        }
    });
}

/// The download of `url` that `index.html` started at the page's load
/// (`window.puffinLensPrefetch[url]`: `{response, controller}`), taken
/// (once) for the app to read.
fn take_prefetch(url: &str) -> Option<(Promise, web_sys::AbortController)> {
    let window = web_sys::window()?;
    let all = Reflect::get(&window, &"puffinLensPrefetch".into()).ok()?;
    if !all.is_object() {
        return None;
    }
    let entry = Reflect::get(&all, &url.into()).ok()?;
    if !entry.is_object() {
        return None;
    }
    let _ = Reflect::delete_property(all.unchecked_ref::<Object>(), &url.into());
    let response = Reflect::get(&entry, &"response".into())
        .ok()?
        .dyn_into::<Promise>()
        .ok()?;
    let controller = Reflect::get(&entry, &"controller".into())
        .ok()?
        .dyn_into::<web_sys::AbortController>()
        .ok()?;
    Some((response, controller))
}

/// Downloads `url` (or reads the download `started` for it), showing the
/// bytes received on the page's progress bar; refused (without reading
/// further) once it cannot fit in memory. Errors are one line naming the
/// URL (a refusal names the file).
async fn fetch_bytes(
    url: &str,
    signal: Option<&web_sys::AbortSignal>,
    started: Option<Promise>,
) -> Result<Vec<u8>, String> {
    fetch_bytes_inner(url, signal, started)
        .await
        .map_err(|err| match err {
            FetchError::Refused(msg) => msg,
            FetchError::Failed(msg) => format!("{url}: {msg}"),
        })
}

enum FetchError {
    /// Too large for memory ([`check_room`]'s line).
    Refused(String),
    Failed(String),
}

impl From<String> for FetchError {
    fn from(msg: String) -> Self {
        Self::Failed(msg)
    }
}

async fn fetch_bytes_inner(
    url: &str,
    signal: Option<&web_sys::AbortSignal>,
    started: Option<Promise>,
) -> Result<Vec<u8>, FetchError> {
    use wasm_bindgen_futures::JsFuture;
    let request = match started {
        Some(response) => response,
        None => {
            let window = web_sys::window().ok_or_else(|| "no window".to_owned())?;
            let init = web_sys::RequestInit::new();
            init.set_signal(signal);
            window.fetch_with_str_and_init(url, &init)
        }
    };
    // A network error and a response the server does not let this page
    // read (CORS) fail alike, without a status.
    let response: web_sys::Response = JsFuture::from(request)
        .await
        .map_err(|err| {
            format!(
                "cannot download ({}): the server is unreachable, or it does not allow this \
                 page to read the file (a recording on another site must be served with \
                 Access-Control-Allow-Origin)",
                js_message(err)
            )
        })?
        .dyn_into()
        .map_err(js_message)?;
    if !response.ok() {
        return Err(FetchError::Failed(format!(
            "cannot download: HTTP {} {}",
            response.status(),
            response.status_text()
        )));
    }
    let Some(body) = response.body() else {
        return Ok(Vec::new());
    };
    // Content-Length is the compressed size when the server compresses: a
    // hint for the bar, and a size to refuse at once when it cannot fit.
    let total = response
        .headers()
        .get("content-length")
        .ok()
        .flatten()
        .and_then(|len| len.parse::<usize>().ok())
        .unwrap_or(0);
    let name = file_name(url);
    let reader: web_sys::ReadableStreamDefaultReader = body
        .get_reader()
        .dyn_into()
        .map_err(|o| js_message(o.into()))?;
    let refuse = |size: usize, reader: &web_sys::ReadableStreamDefaultReader| {
        check_room(&name, size as u64, false, None).map_err(|msg| {
            let _ = reader.cancel();
            FetchError::Refused(msg)
        })
    };
    refuse(total, &reader)?;
    let progress = Progress::new(format!("Downloading {name}"), total);
    // The length the server claims was checked to fit just above.
    let mut bytes = Vec::new();
    let _ = bytes.try_reserve_exact(total);
    loop {
        progress.set(bytes.len(), total.max(bytes.len()));
        let chunk = JsFuture::from(reader.read()).await.map_err(js_message)?;
        let done = Reflect::get(&chunk, &"done".into()).map_err(js_message)?;
        if done.as_bool().unwrap_or(true) {
            break;
        }
        let value = Reflect::get(&chunk, &"value".into()).map_err(js_message)?;
        let value: Uint8Array = value.dyn_into().map_err(js_message)?;
        let start = bytes.len();
        let end = start + value.length() as usize;
        if end > bytes.capacity() {
            // More than claimed (or no length given): the file so far must
            // fit once more while the buffer grows.
            refuse(end, &reader)?;
        }
        bytes.resize(end, 0);
        value.copy_to(&mut bytes[start..]);
    }
    platform::mark(&format!("fetched {name}"));
    log::info!(
        "{name}: downloaded {} bytes (Content-Length {total}, buffer {})",
        bytes.len(),
        bytes.capacity()
    );
    Ok(bytes)
}

fn side_arg(value: &JsValue, shared: &Shared) -> Result<Side, JsValue> {
    match value.as_string() {
        None if value.is_undefined() || value.is_null() => Ok(shared.borrow().shown),
        Some(s) => Side::parse(&s).ok_or_else(|| {
            js_sys::Error::new(&format!("side must be \"a\" or \"b\", not {s:?}")).into()
        }),
        None => Err(js_sys::Error::new("side must be \"a\" or \"b\"").into()),
    }
}

fn parse_json(text: &str) -> Result<JsValue, JsValue> {
    JSON::parse(text)
}

/// A JavaScript value as JSON (`undefined` as `null`).
fn js_to_json(value: &JsValue) -> Result<serde_json::Value, JsValue> {
    if value.is_undefined() || value.is_null() {
        return Ok(serde_json::Value::Null);
    }
    let text = String::from(JSON::stringify(value)?);
    serde_json::from_str(&text).map_err(|e| js_sys::Error::new(&e.to_string()).into())
}

/// Queues `command`; a promise of `ui()` once the app applied it.
fn ui_promise(shared: &Shared, command: UiCommand) -> Promise {
    let mut pending = Some(command);
    let shared = shared.clone();
    Promise::new(&mut |resolve: Function, reject: Function| {
        let Some(command) = pending.take() else {
            return;
        };
        shared.borrow_mut().command(
            command,
            Some(Box::new(move |result| {
                let _ = match result {
                    Ok(ui) => {
                        resolve.call1(&JsValue::NULL, &parse_json(&ui).unwrap_or(JsValue::NULL))
                    }
                    Err(msg) => reject.call1(&JsValue::NULL, &js_sys::Error::new(&msg)),
                };
            })),
        );
    })
}

/// What `load()` was given: bytes (copied in at once) or a `File`/`Blob`.
enum LoadSource {
    Bytes(Vec<u8>),
    Blob(web_sys::Blob),
}

fn set_fn(obj: &Object, name: &str, f: JsValue) -> Result<(), JsValue> {
    Reflect::set(obj, &JsValue::from_str(name), &f).map(|_| ())
}

fn install_api(shared: &Shared) -> Result<(), JsValue> {
    let api = Object::new();

    let s = shared.clone();
    let load =
        Closure::<dyn Fn(JsValue, JsValue, JsValue, JsValue) -> Result<Promise, JsValue>>::new(
            move |bytes: JsValue, name: JsValue, side: JsValue, options: JsValue| {
                // {add_run: true}: one more run of the side (several runs a side).
                let add_run = options.is_object()
                    && Reflect::get(&options, &"add_run".into())
                        .ok()
                        .and_then(|v| v.as_bool())
                        .unwrap_or(false);
                let blob = bytes.dyn_ref::<web_sys::Blob>().cloned();
                if !(blob.is_some()
                    || bytes.is_instance_of::<Uint8Array>()
                    || bytes.is_instance_of::<js_sys::ArrayBuffer>())
                {
                    return Err(js_sys::Error::new(
                    "load(bytes, name): bytes must be a Uint8Array, an ArrayBuffer or a File (Blob)",
                )
                .into());
                }
                let name = name
                    .as_string()
                    .or_else(|| bytes.dyn_ref::<web_sys::File>().map(|file| file.name()))
                    .unwrap_or_else(|| "recording.puffin".to_owned());
                let side = if side.is_undefined() || side.is_null() {
                    None
                } else {
                    Some(side_arg(&side, &s)?)
                };
                let source = match blob {
                    // Read a chunk at a time (a launched or picked file), refused
                    // by its size before any of it is read.
                    Some(blob) => LoadSource::Blob(blob),
                    None => {
                        let bytes = Uint8Array::new(&bytes);
                        // Refused before copying it in when it cannot fit.
                        if let Err(msg) = check_room(&name, u64::from(bytes.length()), false, None)
                        {
                            s.borrow_mut().fail(msg.clone());
                            return Ok(Promise::reject(&js_sys::Error::new(&msg)));
                        }
                        LoadSource::Bytes(bytes.to_vec())
                    }
                };
                let mut pending = Some((source, name));
                let s = s.clone();
                // Its turn and side when load() is called, before a Blob is read.
                let (turn, side) = {
                    let mut shared = s.borrow_mut();
                    let side = Some(shared.side_now(side));
                    (shared.take_turn(), side)
                };
                Ok(Promise::new(&mut |resolve: Function, reject: Function| {
                    let Some((source, name)) = pending.take() else {
                        return;
                    };
                    let on_done = Box::new(move |result: Result<String, String>| {
                        let _ = match result {
                            Ok(summary) => {
                                let value = parse_json(&summary).unwrap_or(JsValue::NULL);
                                resolve.call1(&JsValue::NULL, &value)
                            }
                            Err(msg) => reject.call1(&JsValue::NULL, &js_sys::Error::new(&msg)),
                        };
                    });
                    match source {
                        LoadSource::Bytes(bytes) => s.borrow_mut().push(Incoming {
                            add_run,
                            name,
                            source: Source::Bytes(bytes),
                            side,
                            on_done: Some(on_done),
                            turn,
                        }),
                        LoadSource::Blob(blob) => {
                            let s = s.clone();
                            wasm_bindgen_futures::spawn_local(async move {
                                match platform::web::read_file(&blob, &name).await {
                                    Ok(bytes) => s.borrow_mut().push(Incoming {
                                        add_run,
                                        name,
                                        source: Source::Bytes(bytes),
                                        side,
                                        on_done: Some(on_done),
                                        turn,
                                    }),
                                    Err(msg) => {
                                        s.borrow_mut().fail(msg.clone());
                                        on_done(Err(msg));
                                    }
                                }
                            });
                        }
                    }
                }))
            },
        );
    set_fn(&api, "load", load.into_js_value())?;

    let s = shared.clone();
    let summary =
        Closure::<dyn Fn(JsValue) -> Result<JsValue, JsValue>>::new(move |side: JsValue| {
            let side = side_arg(&side, &s)?;
            match s.borrow().loaded(side) {
                Some(loaded) => parse_json(&loaded.summary.to_json()),
                None => Ok(JsValue::NULL),
            }
        });
    set_fn(&api, "summary", summary.into_js_value())?;

    let s = shared.clone();
    let dump = Closure::<dyn Fn(JsValue, JsValue) -> Result<JsValue, JsValue>>::new(
        move |side: JsValue, pretty: JsValue| {
            let side = side_arg(&side, &s)?;
            Ok(match s.borrow().loaded(side) {
                Some(loaded) => JsValue::from_str(&crate::engine::export_string(
                    loaded.trace(),
                    &loaded.name,
                    pretty.is_truthy(),
                )),
                None => JsValue::NULL,
            })
        },
    );
    set_fn(&api, "dumpJson", dump.into_js_value())?;

    let s = shared.clone();
    let query = Closure::<dyn Fn(JsValue, JsValue, JsValue) -> Result<JsValue, JsValue>>::new(
        move |name: JsValue, args: JsValue, side: JsValue| {
            let name = name
                .as_string()
                .ok_or_else(|| js_sys::Error::new("query(name, args): name must be a string"))?;
            let args = js_to_json(&args)?;
            let side = side_arg(&side, &s)?;
            let state = s.borrow();
            let (main, other) = match side {
                Side::A => (state.a.as_ref(), state.b.as_ref()),
                Side::B => (state.b.as_ref(), state.a.as_ref()),
            };
            let main = main.ok_or_else(|| {
                // Asked for (not started yet), decoding, or downloading.
                let coming = (state.incoming.last().map(|i| i.name.clone()))
                    .or(state.loading.as_ref().map(|l| l.name.clone()))
                    .or(state.fetching().map(file_name));
                match coming {
                    Some(name) => js_sys::Error::new(&format!(
                        "no recording is open yet: {name} is loading (await load()'s promise, \
                         or until status().loading is null)"
                    )),
                    None => js_sys::Error::new("no recording is open"),
                }
            })?;
            let answer = api::query_json(main.trace(), other.map(|o| o.trace()), &name, &args)
                .map_err(|e| js_sys::Error::new(&e.to_string()))?;
            parse_json(&answer)
        },
    );
    set_fn(&api, "query", query.into_js_value())?;

    let s = shared.clone();
    let export = Closure::<dyn Fn(JsValue, JsValue) -> Result<(), JsValue>>::new(
        move |kind: JsValue, side: JsValue| {
            let kind = kind.as_string().unwrap_or_default();
            let what = Export::parse(&kind).ok_or_else(|| {
                js_sys::Error::new(&format!(
                    "download(kind): kind must be \"json\", \"csv\", \"parquet\", \"report\", \"flame\", \"chrome\", \"speedscope\" or \"folded\", not {kind:?}"
                ))
            })?;
            let side = side_arg(&side, &s)?;
            let state = s.borrow();
            let loaded = state
                .loaded(side)
                .ok_or_else(|| js_sys::Error::new("no recording is open"))?;
            let (name, mime, bytes) = match what {
                // The report of A, and of B against A when both are open.
                Export::Report => crate::app::report_file(
                    state.a.as_deref().unwrap_or(loaded),
                    state.b.as_deref(),
                ),
                _ => what.file(loaded).map_err(|e| js_sys::Error::new(&e))?,
            };
            crate::app::platform::web::download(&name, mime, &bytes)
                .map_err(|e| js_sys::Error::new(&e).into())
        },
    );
    set_fn(&api, "download", export.into_js_value())?;

    // show(view, options) and select(name): applied by the app at its next
    // frame; the promise resolves with ui() once applied.
    let s = shared.clone();
    let show = Closure::<dyn Fn(JsValue, JsValue) -> Result<Promise, JsValue>>::new(
        move |view: JsValue, options: JsValue| {
            let view = view
                .as_string()
                .ok_or_else(|| js_sys::Error::new("show(view, options): view must be a string"))?;
            let options = js_to_json(&options)?;
            Ok(ui_promise(&s, UiCommand::Show { view, options }))
        },
    );
    set_fn(&api, "show", show.into_js_value())?;

    let s = shared.clone();
    let select =
        Closure::<dyn Fn(JsValue) -> Result<Promise, JsValue>>::new(move |name: JsValue| {
            let name = name
                .as_string()
                .ok_or_else(|| js_sys::Error::new("select(name): name must be a string"))?;
            Ok(ui_promise(&s, UiCommand::Select(name)))
        });
    set_fn(&api, "select", select.into_js_value())?;

    // setTransforms([...]): the stack, checked now (a bad one throws,
    // naming it), applied at the next frame; a promise of ui().
    let s = shared.clone();
    let set_transforms =
        Closure::<dyn Fn(JsValue) -> Result<Promise, JsValue>>::new(move |list: JsValue| {
            let list = js_to_json(&list)?;
            let items: Vec<String> = serde_json::from_value(list).map_err(|_| {
                js_sys::Error::new("setTransforms(list): list must be an array of strings")
            })?;
            let stack = crate::engine::analyses::transform::Stack::parse(&items)
                .map_err(|e| js_sys::Error::new(&format!("setTransforms: {e}")))?;
            Ok(ui_promise(&s, UiCommand::Transforms(stack)))
        });
    set_fn(&api, "setTransforms", set_transforms.into_js_value())?;

    let s = shared.clone();
    let transforms = Closure::<dyn Fn() -> Result<JsValue, JsValue>>::new(move || {
        let ui: Option<serde_json::Value> = s
            .borrow()
            .ui
            .as_deref()
            .and_then(|j| serde_json::from_str(j).ok());
        let list = ui
            .and_then(|u| u.get("transforms").cloned())
            .unwrap_or_else(|| serde_json::json!([]));
        parse_json(&list.to_string())
    });
    set_fn(&api, "transforms", transforms.into_js_value())?;

    let s = shared.clone();
    let ui = Closure::<dyn Fn() -> Result<JsValue, JsValue>>::new(move || {
        match s.borrow().ui.as_deref() {
            Some(json) => parse_json(json),
            None => Ok(JsValue::NULL),
        }
    });
    set_fn(&api, "ui", ui.into_js_value())?;

    // Back and forward (and a typed hash) move the views too.
    let s = shared.clone();
    let on_hash = Closure::<dyn Fn()>::new(move || {
        let hash = crate::app::platform::web::location_hash();
        s.borrow_mut().command(UiCommand::Hash(hash), None);
    });
    if let Some(window) = web_sys::window() {
        window.add_event_listener_with_callback("hashchange", on_hash.as_ref().unchecked_ref())?;
    }
    on_hash.forget();

    let s = shared.clone();
    let status = Closure::<dyn Fn() -> Result<JsValue, JsValue>>::new(move || {
        let state = s.borrow();
        let value = serde_json::json!({
            "loading": state.loading,
            "fetching": state.fetching(),
            "reading": platform::web::reading(),
            "error": state.error,
            "replaced": state.replaced,
            "memory": {
                "in_use_bytes": platform::web::memory_in_use_bytes(),
                "wasm_bytes": platform::web::wasm_memory_bytes(),
                "limit_bytes": platform::web::memory_limit_bytes(),
            },
            "a": state.a.as_ref().map(|l| l.name.clone()),
            "b": state.b.as_ref().map(|l| l.name.clone()),
            "decoded_by": {
                "a": state.a.as_ref().map(|l| l.decoded_by),
                "b": state.b.as_ref().map(|l| l.decoded_by),
            },
            "shown": state.shown.label().to_lowercase(),
            "live": state.live,
            "timings": platform::web::timings(),
            // Decode workers started and ready (0: none yet, or none wanted).
            "workers_ready": platform::web::workers::ready_count(),
        });
        parse_json(&value.to_string())
    });
    set_fn(&api, "status", status.into_js_value())?;

    // connect("ws://127.0.0.1:8586"): watch a running app through `puffin-lens relay`.
    let s = shared.clone();
    let connect = Closure::<dyn Fn(String)>::new(move |url: String| {
        let mut state = s.borrow_mut();
        state.connect = Some(url);
        if let Some(ctx) = &state.ctx {
            ctx.request_repaint();
        }
    });
    set_fn(&api, "connect", connect.into_js_value())?;
    set_fn(
        &api,
        "version",
        JsValue::from_str(env!("CARGO_PKG_VERSION")),
    )?;

    let window = web_sys::window().ok_or("no window")?;
    Reflect::set(&window, &JsValue::from_str("puffinLens"), &api)?;
    Ok(())
}
