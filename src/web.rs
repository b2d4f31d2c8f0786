//! The browser entry point: starts the app on the page's canvas, installs
//! the `window.puffinLens` JavaScript API and loads `?url=…`.
//!
//! JavaScript API (every answer is about the recording the app shows, or
//! the side named `"a"`/`"b"`):
//! - `load(bytes, name, side?)`: opens a recording (`Uint8Array` or
//!   `ArrayBuffer`); a promise of its summary, rejected with the error line.
//! - `summary(side?)`: what the overview shows (`null` when nothing is open),
//!   as `puffin-lens summary --json` prints it.
//! - `dumpJson(side?, pretty?)`: the documented JSON export, as
//!   `puffin-lens dump` writes it.
//! - `query(name, args?, side?)`: an analysis by subcommand name with its
//!   options as an object (`{top: 5}`), answered as `--json` prints it;
//!   throws on bad arguments or when there is no answer.
//! - `download(kind, side?)`: what "Export JSON" (`"json"`) or "Export CSV"
//!   (`"csv"`) save, offered as a download.
//! - `status()`: `{loading, fetching, error, a, b, shown}`.

use crate::app::{Export, Incoming, PuffinLensApp, Shared, Side, Source, file_name};
use crate::engine::api;
use js_sys::{Function, JSON, Object, Promise, Reflect, Uint8Array};
use wasm_bindgen::JsCast as _;
use wasm_bindgen::prelude::*;

/// The id of the canvas in `index.html`.
const CANVAS_ID: &str = "puffin_lens_canvas";

pub fn start() {
    eframe::WebLogger::init(log::LevelFilter::Info).ok();
    let shared = Shared::default();
    if let Err(err) = install_api(&shared) {
        log::error!("cannot install window.puffinLens: {err:?}");
    }
    if let Some(url) = url_param() {
        fetch_into(shared.clone(), url);
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
    eframe::WebRunner::new()
        .start(
            canvas,
            eframe::WebOptions::default(),
            Box::new(move |cc| Ok(Box::new(PuffinLensApp::new(cc, shared)))),
        )
        .await
}

fn element(id: &str) -> Option<web_sys::Element> {
    web_sys::window()?.document()?.get_element_by_id(id)
}

fn escape_html(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;")
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

/// Shows the page's progress bar (`what` is being done, bytes done of total;
/// a total of 0 is unknown), or hides it (`None`). It is HTML over the
/// canvas: the browser repaints it for next to nothing, while a repaint of
/// the canvas costs as much as a decoding slice in software WebGL.
pub fn show_progress(progress: Option<(&str, usize, usize)>) {
    let (Some(bar), Some(label), Some(fill)) = (
        element("load_progress"),
        element("load_progress_label"),
        element("load_progress_fill"),
    ) else {
        return;
    };
    let Some((what, done_bytes, total_bytes)) = progress else {
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

/// Reads a file the user gave (dropped or picked) into memory a chunk at a
/// time, showing the bytes read on the page's progress bar: one copy of a
/// large file into wasm memory would block the page for most of a second.
pub async fn read_file(file: &web_sys::File) -> Result<Vec<u8>, String> {
    use wasm_bindgen_futures::JsFuture;
    const CHUNK: usize = 32 << 20;
    let size = file.size() as usize;
    let what = format!("Reading {}", file.name());
    let mut bytes = Vec::new();
    bytes
        .try_reserve_exact(size)
        .map_err(|_| format!("not enough memory for {size} bytes"))?;
    while bytes.len() < size {
        show_progress(Some((&what, bytes.len(), size)));
        let start = bytes.len();
        let end = (start + CHUNK).min(size);
        let chunk = file
            .slice_with_f64_and_f64(start as f64, end as f64)
            .map_err(js_message)?;
        let buffer = JsFuture::from(chunk.array_buffer())
            .await
            .map_err(js_message)?;
        let chunk = Uint8Array::new(&buffer);
        if chunk.length() == 0 {
            break; // the file shrank meanwhile
        }
        bytes.resize(start + chunk.length() as usize, 0);
        chunk.copy_to(&mut bytes[start..]);
    }
    show_progress(None);
    Ok(bytes)
}

/// Lets the browser handle input and paint a frame before going on: waits
/// for the next animation frame, then for a message posted from it (which
/// runs after that frame is painted). A hidden page paints no frames and
/// goes on at once (a message, unlike a timer, is not throttled there).
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
            w.request_animation_frame(post.unchecked_ref()).ok()
        });
        if after_frame.is_none() {
            let _ = port.post_message(&JsValue::NULL);
        }
    });
    let _ = wasm_bindgen_futures::JsFuture::from(promise).await;
}

/// `?url=…` of the page.
fn url_param() -> Option<String> {
    let search = web_sys::window()?.location().search().ok()?;
    web_sys::UrlSearchParams::new_with_str(&search)
        .ok()?
        .get("url")
        .filter(|u| !u.is_empty())
}

fn fetch_into(shared: Shared, url: String) {
    shared.borrow_mut().fetching = Some(url.clone());
    wasm_bindgen_futures::spawn_local(async move {
        let result = fetch_bytes(&url).await;
        show_progress(None);
        let mut state = shared.borrow_mut();
        state.fetching = None;
        match result {
            Ok(bytes) => state.push(Incoming {
                name: file_name(&url),
                source: Source::Bytes(bytes),
                side: None,
                on_done: None,
            }),
            Err(err) => state.fail(format!("{url}: {err}")),
        }
    });
}

/// Downloads `url`, showing the bytes received on the page's progress bar.
async fn fetch_bytes(url: &str) -> Result<Vec<u8>, String> {
    use wasm_bindgen_futures::JsFuture;
    let window = web_sys::window().ok_or("no window")?;
    let response: web_sys::Response = JsFuture::from(window.fetch_with_str(url))
        .await
        .map_err(js_message)?
        .dyn_into()
        .map_err(js_message)?;
    if !response.ok() {
        return Err(format!(
            "cannot download: HTTP {} {}",
            response.status(),
            response.status_text()
        ));
    }
    let Some(body) = response.body() else {
        return Ok(Vec::new());
    };
    // Content-Length is the compressed size when the server compresses: a
    // hint for the bar only.
    let total = response
        .headers()
        .get("content-length")
        .ok()
        .flatten()
        .and_then(|len| len.parse::<usize>().ok())
        .unwrap_or(0);
    let what = format!("Downloading {}", file_name(url));
    let reader: web_sys::ReadableStreamDefaultReader = body
        .get_reader()
        .dyn_into()
        .map_err(|o| js_message(o.into()))?;
    // Not reserved from the header: a server may claim any length.
    let mut bytes = Vec::new();
    loop {
        show_progress(Some((&what, bytes.len(), total.max(bytes.len()))));
        let chunk = JsFuture::from(reader.read()).await.map_err(js_message)?;
        let done = Reflect::get(&chunk, &"done".into()).map_err(js_message)?;
        if done.as_bool().unwrap_or(true) {
            break;
        }
        let value = Reflect::get(&chunk, &"value".into()).map_err(js_message)?;
        let value: Uint8Array = value.dyn_into().map_err(js_message)?;
        let start = bytes.len();
        bytes.resize(start + value.length() as usize, 0);
        value.copy_to(&mut bytes[start..]);
    }
    Ok(bytes)
}

fn js_message(value: JsValue) -> String {
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

fn set_fn(obj: &Object, name: &str, f: JsValue) -> Result<(), JsValue> {
    Reflect::set(obj, &JsValue::from_str(name), &f).map(|_| ())
}

fn install_api(shared: &Shared) -> Result<(), JsValue> {
    let api = Object::new();

    let s = shared.clone();
    let load = Closure::<dyn Fn(JsValue, JsValue, JsValue) -> Result<Promise, JsValue>>::new(
        move |bytes: JsValue, name: JsValue, side: JsValue| {
            if !(bytes.is_instance_of::<Uint8Array>()
                || bytes.is_instance_of::<js_sys::ArrayBuffer>())
            {
                return Err(js_sys::Error::new(
                    "load(bytes, name): bytes must be a Uint8Array or ArrayBuffer",
                )
                .into());
            }
            let bytes = Uint8Array::new(&bytes).to_vec();
            let name = name
                .as_string()
                .unwrap_or_else(|| "recording.puffin".to_owned());
            let side = if side.is_undefined() || side.is_null() {
                None
            } else {
                Some(side_arg(&side, &s)?)
            };
            let mut pending = Some((bytes, name));
            let s = s.clone();
            Ok(Promise::new(&mut |resolve: Function, reject: Function| {
                let Some((bytes, name)) = pending.take() else {
                    return;
                };
                s.borrow_mut().push(Incoming {
                    name,
                    source: Source::Bytes(bytes),
                    side,
                    on_done: Some(Box::new(move |result| {
                        let _ = match result {
                            Ok(summary) => {
                                let value = parse_json(&summary).unwrap_or(JsValue::NULL);
                                resolve.call1(&JsValue::NULL, &value)
                            }
                            Err(msg) => reject.call1(&JsValue::NULL, &js_sys::Error::new(&msg)),
                        };
                    })),
                });
            }))
        },
    );
    set_fn(&api, "load", load.into_js_value())?;

    let s = shared.clone();
    let summary =
        Closure::<dyn Fn(JsValue) -> Result<JsValue, JsValue>>::new(move |side: JsValue| {
            let side = side_arg(&side, &s)?;
            match s.borrow().loaded(side) {
                Some(loaded) => {
                    parse_json(&serde_json::to_string(&loaded.summary).unwrap_or_default())
                }
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
            let args: serde_json::Value = if args.is_undefined() || args.is_null() {
                serde_json::Value::Null
            } else {
                let text = String::from(JSON::stringify(&args)?);
                serde_json::from_str(&text).map_err(|e| js_sys::Error::new(&e.to_string()))?
            };
            let side = side_arg(&side, &s)?;
            let state = s.borrow();
            let (main, other) = match side {
                Side::A => (state.a.as_ref(), state.b.as_ref()),
                Side::B => (state.b.as_ref(), state.a.as_ref()),
            };
            let main = main.ok_or_else(|| js_sys::Error::new("no recording is open"))?;
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
                    "download(kind): kind must be \"json\" or \"csv\", not {kind:?}"
                ))
            })?;
            let side = side_arg(&side, &s)?;
            let state = s.borrow();
            let loaded = state
                .loaded(side)
                .ok_or_else(|| js_sys::Error::new("no recording is open"))?;
            let (name, mime, bytes) = what.file(loaded);
            download(&name, mime, &bytes).map_err(|e| js_sys::Error::new(&e).into())
        },
    );
    set_fn(&api, "download", export.into_js_value())?;

    let s = shared.clone();
    let status = Closure::<dyn Fn() -> Result<JsValue, JsValue>>::new(move || {
        let state = s.borrow();
        let value = serde_json::json!({
            "loading": state.loading,
            "fetching": state.fetching,
            "error": state.error,
            "a": state.a.as_ref().map(|l| l.name.clone()),
            "b": state.b.as_ref().map(|l| l.name.clone()),
            "shown": state.shown.label().to_lowercase(),
        });
        parse_json(&value.to_string())
    });
    set_fn(&api, "status", status.into_js_value())?;
    set_fn(
        &api,
        "version",
        JsValue::from_str(env!("CARGO_PKG_VERSION")),
    )?;

    let window = web_sys::window().ok_or("no window")?;
    Reflect::set(&window, &JsValue::from_str("puffinLens"), &api)?;
    Ok(())
}
