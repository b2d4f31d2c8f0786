//! The page's pool of decode workers: Web Workers (`web/decode_worker.js`)
//! that run this same wasm module (sent to them compiled, so it is neither
//! fetched nor compiled again) and decode runs of a recording's records into
//! fragments (`engine::read::fragment`), handed back as transferred bytes.
//!
//! The pool starts with the first load that wants it and stays for the next
//! ones; a worker that fails takes the pool down with it (the load in flight
//! falls back to the page's thread, the next load starts a new pool).
//!
//! Messages, page → worker: `{id, init: {script, module}}` once, then
//! `{id, bytes, len, base, record, out?}` (`bytes` transferred, the run its
//! first `len`; `out` a fragment's buffer given back, transferred); worker →
//! page: `{id, ready: true}`, `{id, out, len, bytes, ms}` (the fragment the
//! first `len` bytes of `out`, `bytes` given back, both transferred; `ms` the
//! worker's time on the run) or `{id, error}`. Buffers go back and forth
//! rather than new ones per run: a new one costs its pages' first touch.

use js_sys::{Array, Function, Object, Promise, Reflect, Uint8Array};
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;
use wasm_bindgen::JsCast as _;
use wasm_bindgen::prelude::*;

/// Most workers a pool starts, whatever the machine reports.
pub const MAX_WORKERS: usize = 8;

/// Smallest buffer made for a run's bytes (runs are about 256 KB and a
/// record more), so that most can be used again for the next.
const SPARE_BYTES: u32 = 1 << 20;

/// Most buffers kept for reuse.
const MAX_SPARE: usize = 64;

/// How long a new worker may take to load the module and answer.
const START_TIMEOUT_MS: i32 = 20_000;

/// Requests waiting for their worker's answer: id → (resolve, reject).
type Pending = Rc<RefCell<HashMap<u32, (Function, Function)>>>;

struct Slot {
    worker: web_sys::Worker,
    pending: Pending,
    _on_message: Closure<dyn FnMut(web_sys::MessageEvent)>,
    _on_error: Closure<dyn FnMut(JsValue)>,
}

impl Drop for Slot {
    fn drop(&mut self) {
        self.worker.terminate();
    }
}

/// Started workers, each with its requests in flight.
pub struct Pool {
    slots: Vec<Slot>,
    next_id: std::cell::Cell<u32>,
    /// Buffers the workers gave back with their answers, for the next runs'
    /// bytes: a fresh buffer per run costs its pages' first touch, several
    /// times the copy itself.
    spare: Rc<RefCell<Vec<js_sys::ArrayBuffer>>>,
    /// The same for the fragments' buffers, given back to the workers to
    /// write the next fragments in.
    spare_out: Rc<RefCell<Vec<js_sys::ArrayBuffer>>>,
    /// Set when a worker reports an error.
    failed: Rc<std::cell::Cell<bool>>,
}

thread_local! {
    static POOL: RefCell<Option<Rc<Pool>>> = const { RefCell::new(None) };
    /// A pool being started: settles once it is ready or failed (a load
    /// asking meanwhile waits for it rather than start another).
    static STARTING: RefCell<Option<Promise>> = const { RefCell::new(None) };
}

/// A number given on the page's address (`?name=N`).
fn page_number(name: &str) -> Option<usize> {
    web_sys::window()?
        .location()
        .search()
        .ok()
        .and_then(|s| web_sys::UrlSearchParams::new_with_str(&s).ok())
        .and_then(|p| p.get(name))
        .and_then(|n| n.parse::<usize>().ok())
}

/// The size of a run (bytes of records as stored) a worker decodes at a
/// time: `default`, or `?run_kb=N` on the page's address (benchmarks).
pub fn run_bytes(default: usize) -> usize {
    page_number("run_kb").map_or(default, |kb| kb.max(1) << 10)
}

/// How many workers to start: `?workers=N` on the page's address (0: none,
/// decode on the page's thread), else `navigator.hardwareConcurrency - 1`,
/// at least 1, at most [`MAX_WORKERS`].
pub fn wanted() -> usize {
    let Some(window) = web_sys::window() else {
        return 0;
    };
    match page_number("workers") {
        Some(n) => n.min(MAX_WORKERS),
        None => {
            let cores = window.navigator().hardware_concurrency() as usize;
            cores.saturating_sub(1).clamp(1, MAX_WORKERS)
        }
    }
}

/// Starts the pool in the background (after the app's first frame, while
/// the user picks a file or a download runs), so that the first load finds
/// it ready.
pub fn prestart() {
    let n = wanted();
    if n == 0 {
        return;
    }
    wasm_bindgen_futures::spawn_local(async move {
        if let Err(why) = pool(n).await {
            // The first load tries again, and says so when it falls back.
            discard(&format!("cannot start: {why} (the page's thread decodes)"));
        }
    });
}

/// The pool if it is started and none of its workers failed (even while
/// idle: it would never answer again, so the pool is not used again).
fn live() -> Option<Rc<Pool>> {
    POOL.with_borrow(|p| p.clone()).filter(|p| !p.failed.get())
}

/// The pool of `n` workers if it is started and ready (no waiting).
pub fn ready(n: usize) -> Option<Rc<Pool>> {
    live().filter(|p| p.slots.len() == n)
}

/// How many workers are started and ready (0 while the pool starts, or
/// when none is wanted or one failed).
pub fn ready_count() -> usize {
    live().map_or(0, |p| p.slots.len())
}

/// The pool of `n` workers, started (and waited for) if it is not yet.
pub async fn pool(n: usize) -> Result<Rc<Pool>, String> {
    if let Some(starting) = STARTING.with_borrow(|s| s.clone()) {
        let _ = wasm_bindgen_futures::JsFuture::from(starting).await;
    }
    if let Some(pool) = ready(n) {
        return Ok(pool);
    }
    POOL.with_borrow_mut(|p| *p = None);
    let mut settle = None;
    let starting = Promise::new(&mut |resolve, _| settle = Some(resolve));
    STARTING.with_borrow_mut(|s| *s = Some(starting));
    let started = start_and_wait(n).await;
    STARTING.with_borrow_mut(|s| *s = None);
    if let Some(settle) = settle {
        let _ = settle.call0(&JsValue::NULL);
    }
    started
}

/// Starts `n` workers and waits until each answers.
async fn start_and_wait(n: usize) -> Result<Rc<Pool>, String> {
    super::mark("workers-start");
    let pool = Rc::new(start(n)?);
    let ready: Vec<_> = (0..n).map(|i| pool.ready(i)).collect();
    // A worker that never answers (its script blocked without an error)
    // must not hold the load: past the limit it counts as failed.
    let waiting: Vec<Pending> = pool.slots.iter().map(|s| s.pending.clone()).collect();
    let give_up = Closure::once_into_js(move || {
        for pending in waiting {
            if let Some((_, reject)) = pending.borrow_mut().remove(&0) {
                let _ = reject.call1(&JsValue::NULL, &"did not start within 20 s".into());
            }
        }
    });
    if let Some(window) = web_sys::window() {
        let _ = window.set_timeout_with_callback_and_timeout_and_arguments_0(
            give_up.unchecked_ref(),
            START_TIMEOUT_MS,
        );
    }
    for answer in ready {
        answer.await?;
    }
    POOL.with_borrow_mut(|p| *p = Some(pool.clone()));
    super::mark("workers-ready");
    Ok(pool)
}

/// Drops the pool (a worker failed); the next load starts another.
pub fn discard(why: &str) {
    log::warn!("decode workers: {why}");
    POOL.with_borrow_mut(|p| *p = None);
}

/// The URL of this app's JavaScript module (the worker imports it): the
/// `modulepreload` link Trunk puts in the page.
fn script_url() -> Result<String, String> {
    let document = web_sys::window()
        .and_then(|w| w.document())
        .ok_or("no document")?;
    let link = document
        .query_selector("link[rel=modulepreload]")
        .ok()
        .flatten()
        .ok_or("the page names no module script")?;
    Reflect::get(&link, &"href".into())
        .ok()
        .and_then(|h| h.as_string())
        .ok_or_else(|| "the module link has no address".to_owned())
}

fn start(n: usize) -> Result<Pool, String> {
    let script = script_url()?;
    let base = web_sys::window()
        .and_then(|w| w.location().href().ok())
        .ok_or("no page address")?;
    let url = web_sys::Url::new_with_base("decode_worker.js", &base)
        .map_err(super::js_message)?
        .href();
    let options = web_sys::WorkerOptions::new();
    options.set_type(web_sys::WorkerType::Module);
    let mut slots = Vec::with_capacity(n);
    let failed_flag: Rc<std::cell::Cell<bool>> = Rc::default();
    for _ in 0..n {
        let worker = web_sys::Worker::new_with_options(&url, &options)
            .map_err(|e| format!("cannot start a worker: {}", super::js_message(e)))?;
        let pending: Pending = Rc::default();
        let answers = pending.clone();
        let on_message = Closure::<dyn FnMut(web_sys::MessageEvent)>::new(
            move |event: web_sys::MessageEvent| {
                let data = event.data();
                let id = Reflect::get(&data, &"id".into())
                    .ok()
                    .and_then(|v| v.as_f64())
                    .unwrap_or(-1.0) as u32;
                let Some((resolve, reject)) = answers.borrow_mut().remove(&id) else {
                    return;
                };
                match Reflect::get(&data, &"error".into())
                    .ok()
                    .and_then(|e| e.as_string())
                {
                    Some(error) => drop(reject.call1(&JsValue::NULL, &error.into())),
                    None => drop(resolve.call1(&JsValue::NULL, &data)),
                }
            },
        );
        let failed = pending.clone();
        let flag = failed_flag.clone();
        let on_error = Closure::<dyn FnMut(JsValue)>::new(move |event: JsValue| {
            flag.set(true);
            let message = Reflect::get(&event, &"message".into())
                .ok()
                .and_then(|m| m.as_string())
                .unwrap_or_else(|| {
                    "the worker could not run (blocked, or its script failed)".to_owned()
                });
            for (_, (_, reject)) in failed.borrow_mut().drain() {
                let _ = reject.call1(&JsValue::NULL, &message.clone().into());
            }
        });
        worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
        worker.set_onmessageerror(Some(on_error.as_ref().unchecked_ref()));
        slots.push(Slot {
            worker,
            pending,
            _on_message: on_message,
            _on_error: on_error,
        });
    }
    let pool = Pool {
        slots,
        next_id: std::cell::Cell::new(1),
        spare: Rc::default(),
        spare_out: Rc::default(),
        failed: failed_flag,
    };
    // Each worker gets the module and the script to run it with first.
    let init = Object::new();
    Reflect::set(&init, &"script".into(), &script.into()).map_err(super::js_message)?;
    Reflect::set(&init, &"module".into(), &wasm_bindgen::module()).map_err(super::js_message)?;
    for slot in &pool.slots {
        let message = Object::new();
        Reflect::set(&message, &"id".into(), &0.into()).map_err(super::js_message)?;
        Reflect::set(&message, &"init".into(), &init).map_err(super::js_message)?;
        slot.worker
            .post_message(&message)
            .map_err(|e| format!("cannot reach a worker: {}", super::js_message(e)))?;
    }
    Ok(pool)
}

impl Pool {
    pub fn len(&self) -> usize {
        self.slots.len()
    }

    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }

    /// Worker `i`'s answer to request `id`: its message, or its error.
    fn answer(
        &self,
        i: usize,
        id: u32,
    ) -> impl std::future::Future<Output = Result<JsValue, String>> + use<> {
        let pending = self.slots[i % self.slots.len()].pending.clone();
        let promise = Promise::new(&mut |resolve, reject| {
            pending.borrow_mut().insert(id, (resolve, reject));
        });
        async move {
            wasm_bindgen_futures::JsFuture::from(promise)
                .await
                .map_err(super::js_message)
        }
    }

    /// Worker `i`'s answer to the `init` message [`start`] posted (id 0).
    fn ready(
        &self,
        i: usize,
    ) -> impl std::future::Future<Output = Result<JsValue, String>> + use<> {
        self.answer(i, 0)
    }

    /// Posts `fields` (plus a new id) to worker `i`, transferring
    /// `transfer`; the answer's message, or its error.
    fn request(
        &self,
        i: usize,
        fields: &Object,
        transfer: &[JsValue],
    ) -> impl std::future::Future<Output = Result<JsValue, String>> + use<> {
        let id = self.next_id.get();
        self.next_id.set(id.wrapping_add(1).max(1));
        let answer = self.answer(i, id);
        let _ = Reflect::set(fields, &"id".into(), &id.into());
        let transfer: Array = transfer.iter().collect();
        let posted = self.slots[i % self.slots.len()]
            .worker
            .post_message_with_transfer(fields, &transfer)
            .map_err(|e| format!("cannot reach a worker: {}", super::js_message(e)));
        async move {
            posted?;
            answer.await
        }
    }

    /// Has worker `i` decode one run: `bytes` (copied out of wasm memory
    /// and transferred), at byte `base` of the file with record number
    /// `first_record`. Resolves with the fragment's bytes and the worker's
    /// time on it (ms).
    pub fn decode(
        &self,
        i: usize,
        bytes: &[u8],
        base: usize,
        first_record: usize,
    ) -> impl std::future::Future<Output = Result<(Vec<u8>, f64), String>> + use<> {
        let len = bytes.len() as u32;
        let spare = self
            .spare
            .borrow_mut()
            .pop()
            .filter(|b| b.byte_length() >= len);
        let buffer = spare.unwrap_or_else(|| js_sys::ArrayBuffer::new(len.max(SPARE_BYTES)));
        Uint8Array::new_with_byte_offset_and_length(&buffer, 0, len).copy_from(bytes);
        let message = Object::new();
        let _ = Reflect::set(&message, &"bytes".into(), &buffer);
        let _ = Reflect::set(&message, &"len".into(), &len.into());
        let _ = Reflect::set(&message, &"base".into(), &(base as f64).into());
        let _ = Reflect::set(&message, &"record".into(), &(first_record as f64).into());
        let mut transfer = vec![JsValue::from(buffer)];
        if let Some(out) = self.spare_out.borrow_mut().pop() {
            let _ = Reflect::set(&message, &"out".into(), &out);
            transfer.push(out.into());
        }
        let answer = self.request(i, &message, &transfer);
        let (spares, spare_outs) = (self.spare.clone(), self.spare_out.clone());
        async move {
            let data = answer.await?;
            if let Some(back) = Reflect::get(&data, &"bytes".into())
                .ok()
                .and_then(|b| b.dyn_into::<js_sys::ArrayBuffer>().ok())
            {
                let mut spares = spares.borrow_mut();
                if spares.len() < MAX_SPARE {
                    spares.push(back);
                }
            }
            let out = Reflect::get(&data, &"out".into())
                .map_err(super::js_message)?
                .dyn_into::<js_sys::ArrayBuffer>()
                .map_err(|_| "a worker answered without a fragment".to_owned())?;
            let number = |key: &str| {
                Reflect::get(&data, &key.into())
                    .ok()
                    .and_then(|v| v.as_f64())
                    .unwrap_or(0.0)
            };
            let (len, ms) = (number("len") as u32, number("ms"));
            if len > out.byte_length() {
                return Err("a worker's fragment is longer than its buffer".to_owned());
            }
            let fragment = Uint8Array::new_with_byte_offset_and_length(&out, 0, len).to_vec();
            let mut spare_outs = spare_outs.borrow_mut();
            if spare_outs.len() < MAX_SPARE {
                spare_outs.push(out);
            }
            Ok((fragment, ms))
        }
    }
}

impl Pool {
    /// Has the last worker make the findings of `a` (against `b`): each
    /// `(name, bytes)` copied out of wasm memory and transferred; the
    /// worker decodes them and reports (`engine::report::findings`).
    pub fn findings(
        &self,
        a: (&str, &[std::sync::Arc<Vec<u8>>]),
        b: Option<(&str, &[std::sync::Arc<Vec<u8>>])>,
        paired: bool,
    ) -> impl std::future::Future<Output = Result<crate::engine::report::Findings, String>> + use<>
    {
        let request = Object::new();
        let mut transfer = Vec::new();
        for (key, side) in [("a", Some(a)), ("b", b)] {
            match side {
                Some((name, runs)) => {
                    let list = Array::new();
                    for bytes in runs {
                        let buffer = Uint8Array::from(&bytes[..]).buffer();
                        list.push(&buffer);
                        transfer.push(JsValue::from(buffer));
                    }
                    let _ = Reflect::set(&request, &key.into(), &list);
                    let _ = Reflect::set(&request, &format!("name_{key}").into(), &name.into());
                }
                None => {
                    let _ = Reflect::set(&request, &key.into(), &JsValue::NULL);
                }
            }
        }
        let _ = Reflect::set(&request, &"paired".into(), &paired.into());
        let message = Object::new();
        let _ = Reflect::set(&message, &"findings".into(), &request);
        let answer = self.request(self.slots.len().saturating_sub(1), &message, &transfer);
        async move {
            let data = answer.await?;
            let json = Reflect::get(&data, &"json".into())
                .ok()
                .and_then(|j| j.as_string())
                .ok_or("a worker answered without findings")?;
            serde_json::from_str(&json).map_err(|e| format!("a worker's findings: {e}"))
        }
    }
}

/// The findings of `a` (against `b`) made in a decode worker, from their
/// kept bytes: `None` when no worker is ready or a side kept no bytes.
pub fn findings(
    a: std::sync::Arc<crate::app::Loaded>,
    b: Option<std::sync::Arc<crate::app::Loaded>>,
    paired: bool,
    ctx: &egui::Context,
) -> Option<super::super::FindingsPoll> {
    let pool = live().filter(|p| !p.is_empty())?;
    // Every run's bytes, or the page makes them.
    let kept = |l: &crate::app::Loaded| (l.bytes.len() == l.runs.len()).then(|| l.bytes.clone());
    let a_bytes = kept(&a)?;
    let b_side = match &b {
        Some(b) => Some((b.name.clone(), kept(b)?)),
        None => None,
    };
    let answer = pool.findings(
        (&a.name, &a_bytes),
        b_side.as_ref().map(|(n, runs)| (n.as_str(), &runs[..])),
        paired,
    );
    let slot: Rc<RefCell<Option<Result<crate::engine::report::Findings, String>>>> = Rc::default();
    let (into, ctx) = (slot.clone(), ctx.clone());
    wasm_bindgen_futures::spawn_local(async move {
        let result = answer.await;
        *into.borrow_mut() = Some(result);
        ctx.request_repaint();
    });
    Some(Box::new(move || slot.borrow_mut().take()))
}

/// In a worker (no window): installs `puffinLensDecodeRun(bytes, base,
/// record, spare)` for `web/decode_worker.js`, which answers a run's
/// fragment as a `Uint8Array`: the start of `spare` (an `ArrayBuffer` the
/// page gave back) when it is large enough, else of a new buffer.
pub fn install_worker_api() {
    let run = Closure::<dyn Fn(Uint8Array, f64, f64, JsValue) -> Uint8Array>::new(
        |bytes: Uint8Array, base: f64, record: f64, spare: JsValue| {
            let bytes = bytes.to_vec();
            let fragment =
                crate::engine::read::fragment::decode_run(&bytes, base as usize, record as usize);
            drop(bytes);
            let out = fragment.to_bytes();
            let len = out.len() as u32;
            // Written into the buffer the page gave back when it is large
            // enough, else into a new one with room for the next ones.
            let buffer = spare
                .dyn_into::<js_sys::ArrayBuffer>()
                .ok()
                .filter(|b| b.byte_length() >= len)
                .unwrap_or_else(|| {
                    js_sys::ArrayBuffer::new(
                        len.checked_next_power_of_two()
                            .unwrap_or(len)
                            .max(SPARE_BYTES),
                    )
                });
            let view = Uint8Array::new_with_byte_offset_and_length(&buffer, 0, len);
            view.copy_from(&out);
            view
        },
    );
    let _ = Reflect::set(
        &js_sys::global(),
        &"puffinLensDecodeRun".into(),
        run.as_ref(),
    );
    run.forget();
    // `puffinLensFindings(a, b, name_a, name_b, paired)`: the findings
    // (JSON) of recording `a` (against `b`, or `null`; judged as paired
    // runs when `paired`), decoded here.
    let findings =
        Closure::<dyn Fn(Array, JsValue, String, JsValue, bool) -> Result<String, JsValue>>::new(
            |a: Array, b: JsValue, name_a: String, name_b: JsValue, paired: bool| {
                let started = js_sys::Date::now();
                // A side: its runs decoded and joined (engine::model::concat).
                let side = |runs: &Array, name: &str| -> Result<crate::engine::Decoded, JsValue> {
                    let mut traces = Vec::new();
                    let mut diagnostics = Vec::new();
                    for run in runs.iter() {
                        let bytes = Uint8Array::new(&run).to_vec();
                        let d = crate::engine::load(&bytes)
                            .map_err(|e| JsValue::from(format!("{name}: {e:#}")))?;
                        traces.push(d.trace);
                        diagnostics.extend(d.diagnostics);
                    }
                    Ok(crate::engine::Decoded {
                        trace: crate::engine::model::concat(traces),
                        diagnostics,
                    })
                };
                let da = side(&a, &name_a)?;
                let name_b = name_b.as_string().unwrap_or_default();
                let db = match b.dyn_into::<Array>() {
                    Ok(b) => Some(side(&b, &name_b)?),
                    Err(_) => None,
                };
                let mut f = crate::engine::report::findings_with(
                    (&name_a, &da),
                    db.as_ref().map(|d| (name_b.as_str(), d)),
                    crate::app::runs_given::report_options(paired),
                );
                f.compute_ms = js_sys::Date::now() - started;
                serde_json::to_string(&f).map_err(|e| JsValue::from(e.to_string()))
            },
        );
    let _ = Reflect::set(
        &js_sys::global(),
        &"puffinLensFindings".into(),
        findings.as_ref(),
    );
    findings.forget();
}
