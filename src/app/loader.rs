//! Loading a recording without freezing the UI: natively on a named
//! background thread (frames decompressed on all cores). In the browser a
//! `.puffin` file is decoded by the page's pool of Web Workers
//! (`platform::web::workers`), a run of records each, while the page's
//! thread only splits the file into runs and merges the fragments that come
//! back, in order, in stretches of at most [`SLICE`]; where workers cannot
//! start (or with `?workers=0`), and for JSON dumps, a task decodes on the
//! page's thread in slices of at most [`SLICE`] and yields to the browser
//! between them. Either way the page's HTML progress bar advances (the
//! canvas is not redrawn for it: in software WebGL a repaint of a large page
//! costs as much as a slice), and `status()` names the path taken. Without a
//! thread, tests poll the decoder a slice per frame.

use super::loaded::{Loaded, Source};
#[cfg(not(target_arch = "wasm32"))]
use crate::engine::read::json;
use crate::engine::{Decoded, PuffinDecoder, SteppedDecoder};
use web_time::{Duration, Instant};

/// Longest stretch of decoding before the browser gets to handle input and
/// paint again.
pub const SLICE: Duration = Duration::from_millis(40);

/// Recordings up to this size (as stored) are decoded on the browser page's
/// own thread unless the decode workers are already running: a 3.4 MB,
/// 200k-scope one takes about 0.1 s of work there (in 40 ms slices), less
/// than the workers take to start while the app itself is starting.
#[cfg(target_arch = "wasm32")]
const PAGE_DECODE_MAX_BYTES: usize = 16 << 20;

/// Recordings up to this size given before the app's first frame (a
/// `?url=`) are decoded within that frame (a 3.4 MB, 200k-scope one takes
/// about 0.1 s there), which then shows them.
#[cfg(target_arch = "wasm32")]
const FIRST_FRAME_MAX_BYTES: usize = 4 << 20;

impl Loaded {
    /// Decodes `bytes` at once, on this thread (tests, small files).
    pub fn decode_now(name: &str, bytes: &[u8]) -> Result<Self, String> {
        let started = Instant::now();
        let decoded = crate::engine::load(bytes).map_err(|err| format!("{name}: {err}"))?;
        finish(name, decoded, bytes.len(), started, "here")
    }
}

/// The state of a load.
pub enum Poll {
    Pending {
        done_bytes: usize,
        total_bytes: usize,
        /// The load advances only when polled again (the app must repaint);
        /// otherwise it asks for a repaint itself when there is news.
        needs_polling: bool,
    },
    Ready(Box<Result<Loaded, String>>),
}

/// One recording being loaded.
pub struct LoadJob {
    pub name: String,
    inner: Inner,
}

enum Inner {
    #[cfg(not(target_arch = "wasm32"))]
    Thread {
        progress: std::sync::Arc<[std::sync::atomic::AtomicUsize; 2]>,
        rx: std::sync::mpsc::Receiver<Result<Loaded, String>>,
        /// Set when the job is dropped (replaced or closed): the thread
        /// stops decoding after its current batch and sends nothing.
        _cancel: CancelOnDrop,
    },
    #[cfg(not(target_arch = "wasm32"))]
    Sliced(Box<SlicedDecode>),
    #[cfg(target_arch = "wasm32")]
    Browser(std::rc::Rc<std::cell::RefCell<BrowserTask>>),
    Done(Option<Box<Result<Loaded, String>>>),
}

/// Raises its flag when dropped.
#[cfg(not(target_arch = "wasm32"))]
struct CancelOnDrop(std::sync::Arc<std::sync::atomic::AtomicBool>);

#[cfg(not(target_arch = "wasm32"))]
impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        self.0.store(true, std::sync::atomic::Ordering::Relaxed);
    }
}

/// What the browser's decoding task and the app share.
#[cfg(target_arch = "wasm32")]
struct BrowserTask {
    done_bytes: usize,
    total_bytes: usize,
    result: Option<Result<Loaded, String>>,
    /// The app dropped the job (replaced or closed): stop decoding.
    cancelled: bool,
}

#[cfg(target_arch = "wasm32")]
impl Drop for LoadJob {
    fn drop(&mut self) {
        if let Inner::Browser(task) = &self.inner {
            task.borrow_mut().cancelled = true;
        }
    }
}

/// The largest file whose bytes the browser keeps with its recording (for
/// the findings' worker); a larger one's findings are made on the page.
#[cfg(target_arch = "wasm32")]
const KEEP_BYTES_MAX: usize = 128 << 20;

/// A decode done a slice at a time.
struct SlicedDecode {
    decoder: SteppedDecoder<Vec<u8>>,
    started: Instant,
    /// Time spent decoding, and in how many slices.
    busy: Duration,
    slices: u32,
}

impl SlicedDecode {
    fn new(decoder: SteppedDecoder<Vec<u8>>, started: Instant) -> Self {
        Self {
            decoder,
            started,
            busy: Duration::ZERO,
            slices: 0,
        }
    }

    /// Decodes for at most `budget`; returns whether the decoder is done.
    fn run_slice(&mut self, budget: Duration) -> bool {
        let start = Instant::now();
        let mut done = true;
        while self.decoder.step() {
            if start.elapsed() >= budget {
                done = false;
                break;
            }
        }
        self.busy += start.elapsed();
        self.slices += 1;
        done
    }

    /// Finishes the decode and logs how it went.
    fn finish(self, name: &str, decoded_by: &'static str) -> Result<Loaded, String> {
        let size = self.decoder.bytes_total();
        let decoded = self.decoder.finish();
        log::info!(
            "{name}: decoded in {:.0} ms of work in {} slices, {:.0} ms since the start",
            self.busy.as_secs_f64() * 1e3,
            self.slices,
            self.started.elapsed().as_secs_f64() * 1e3
        );
        decoded
            .map_err(|err| format!("{name}: {err}"))
            .and_then(|decoded| finish(name, decoded, size, self.started, decoded_by))
    }
}

/// A decode that kept no frame at all is unusable; anything else is shown.
fn finish(
    name: &str,
    decoded: Decoded,
    size: usize,
    started: Instant,
    decoded_by: &'static str,
) -> Result<Loaded, String> {
    if decoded.trace.frames.is_empty() && decoded.is_damaged() {
        let first = decoded
            .diagnostics
            .iter()
            .find(|d| d.severity == crate::engine::Severity::Damage)
            .map(|d| format!(": {d}"))
            .unwrap_or_default();
        return Err(format!("{name}: no frame could be decoded{first}"));
    }
    let ms = started.elapsed().as_secs_f64() * 1e3;
    let mut loaded = Loaded::new(name.to_owned(), decoded, size, ms);
    loaded.decoded_by = decoded_by;
    Ok(loaded)
}

impl LoadJob {
    /// Starts loading. `threaded` (native only) decodes on a background
    /// thread; otherwise [`Self::poll`] decodes a slice at a time.
    /// `first_frame`: asked for before the app's first frame is drawn (a
    /// `?url=`): in the browser a small file is then decoded at once, so
    /// that the first frame shows it (in a software GL each frame until
    /// then costs 0.3-0.5 s).
    pub fn start(
        name: String,
        source: Source,
        ctx: &egui::Context,
        threaded: bool,
        first_frame: bool,
    ) -> Self {
        let started = Instant::now();
        #[cfg(not(target_arch = "wasm32"))]
        if threaded {
            return Self::start_thread(name, source, ctx.clone(), started);
        }
        let _ = (threaded, ctx, first_frame);
        // On wasm `Source` has one variant.
        #[allow(clippy::infallible_destructuring_match)]
        let bytes = match source {
            Source::Bytes(bytes) => bytes,
            #[cfg(not(target_arch = "wasm32"))]
            Source::Path(path) => match std::fs::read(&path) {
                Ok(bytes) => bytes,
                Err(err) => {
                    let result = Err(format!("{}: cannot read: {err}", path.display()));
                    return Self::done(name, result);
                }
            },
        };
        // Refused before decoding when it cannot fit (the browser's 4 GiB);
        // the bytes themselves are already in memory.
        #[cfg(target_arch = "wasm32")]
        let reservation = {
            let estimate = crate::engine::SizeEstimate::of(&bytes);
            match super::platform::web::reserve_room(&name, estimate, bytes.len() as u64) {
                Ok(reservation) => reservation,
                Err(msg) => {
                    log::warn!("{msg}");
                    return Self::done(name, Err(msg));
                }
            }
        };
        #[cfg(target_arch = "wasm32")]
        let at_once = first_frame && bytes.len() <= FIRST_FRAME_MAX_BYTES;
        match SteppedDecoder::new(bytes) {
            #[cfg(target_arch = "wasm32")]
            Ok(decoder) if at_once => {
                let mut work = SlicedDecode::new(decoder, started);
                work.run_slice(Duration::MAX);
                let result = work.finish(&name, "page");
                drop(reservation);
                Self::done(name, result)
            }
            #[cfg(target_arch = "wasm32")]
            Ok(decoder) => {
                Self::start_browser_task(name, decoder, started, ctx.clone(), reservation)
            }
            #[cfg(not(target_arch = "wasm32"))]
            Ok(decoder) => Self {
                name,
                inner: Inner::Sliced(Box::new(SlicedDecode::new(decoder, started))),
            },
            Err(err) => {
                let result = Err(format!("{name}: {err}"));
                Self::done(name, result)
            }
        }
    }

    fn done(name: String, result: Result<Loaded, String>) -> Self {
        Self {
            name,
            inner: Inner::Done(Some(Box::new(result))),
        }
    }

    #[cfg(not(target_arch = "wasm32"))]
    fn start_thread(name: String, source: Source, ctx: egui::Context, started: Instant) -> Self {
        use std::ops::ControlFlow;
        use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
        let progress = std::sync::Arc::new([AtomicUsize::new(0), AtomicUsize::new(0)]);
        let (tx, rx) = std::sync::mpsc::channel();
        let thread_progress = progress.clone();
        let thread_name = name.clone();
        let cancelled = std::sync::Arc::new(AtomicBool::new(false));
        let cancel = CancelOnDrop(cancelled.clone());
        let spawned = std::thread::Builder::new()
            .name("puffin-lens-decode".to_owned())
            .spawn(move || {
                let name = thread_name;
                let bytes = match source {
                    Source::Bytes(bytes) => Ok(bytes),
                    Source::Path(path) => std::fs::read(&path)
                        .map_err(|err| format!("{}: cannot read: {err}", path.display())),
                };
                let is_cancelled = || cancelled.load(Ordering::Relaxed);
                let result = bytes.and_then(|bytes| {
                    thread_progress[1].store(bytes.len(), Ordering::Relaxed);
                    ctx.request_repaint();
                    let decoded = if crate::engine::read::looks_like_json(&bytes) {
                        json::load_json(&bytes)
                    } else {
                        PuffinDecoder::new(&bytes[..]).map(|d| {
                            d.run_parallel_with_progress(|done| {
                                if is_cancelled() {
                                    return ControlFlow::Break(());
                                }
                                thread_progress[0].store(done, Ordering::Relaxed);
                                ctx.request_repaint();
                                ControlFlow::Continue(())
                            })
                        })
                    };
                    decoded
                        .map_err(|err| format!("{name}: {err}"))
                        .and_then(|d| finish(&name, d, bytes.len(), started, "thread"))
                });
                if is_cancelled() {
                    // Replaced or closed: nobody waits for it; its memory
                    // is freed now rather than after a whole decode.
                    log::info!("{name}: decoding stopped: the load was replaced or closed");
                    return;
                }
                let _ = tx.send(result);
                ctx.request_repaint();
            });
        match spawned {
            Ok(_) => Self {
                name,
                inner: Inner::Thread {
                    progress,
                    rx,
                    _cancel: cancel,
                },
            },
            Err(err) => {
                let result = Err(format!("{name}: cannot start the decoding thread: {err}"));
                Self::done(name, result)
            }
        }
    }

    /// Decodes in the browser: by the decode workers when they can run
    /// ([`decode_by_workers`]), else on the page's event loop: a slice, then
    /// a yield to the browser (which handles input and paints the progress
    /// bar), and so on.
    #[cfg(target_arch = "wasm32")]
    fn start_browser_task(
        name: String,
        decoder: SteppedDecoder<Vec<u8>>,
        started: Instant,
        ctx: egui::Context,
        reservation: super::platform::web::Reservation,
    ) -> Self {
        use super::platform::web::{self, workers};
        // A copy of the file's bytes, kept with the recording: a worker
        // makes the findings from it, off the page's thread.
        let kept: Vec<_> = (decoder.bytes_total() <= KEEP_BYTES_MAX)
            .then(|| std::sync::Arc::new(decoder.input().to_vec()))
            .into_iter()
            .collect();
        let keep = move |result: Result<Loaded, String>| {
            result.map(|mut l| {
                l.bytes = kept;
                l
            })
        };
        let task = std::rc::Rc::new(std::cell::RefCell::new(BrowserTask {
            done_bytes: 0,
            total_bytes: decoder.bytes_total(),
            result: None,
            cancelled: false,
        }));
        let shared = task.clone();
        let task_name = name.clone();
        // The bar's line goes when the task ends, whichever way.
        let progress = web::Progress::new(format!("Decoding {name}"), decoder.bytes_total());
        wasm_bindgen_futures::spawn_local(async move {
            let name = task_name;
            let n = workers::wanted();
            // A small file does not wait for the workers to start (they
            // take 0.1-0.9 s, more while the app itself starts): the page's
            // thread decodes it sooner. A ready pool takes any file.
            let by_workers = n > 0
                && (workers::ready(n).is_some() || decoder.bytes_total() > PAGE_DECODE_MAX_BYTES);
            let decoder = match decoder {
                SteppedDecoder::Puffin(puffin) if by_workers => {
                    let outcome = match workers::pool(n).await {
                        Ok(pool) => {
                            decode_by_workers(&name, puffin, &pool, started, &shared, &progress)
                                .await
                        }
                        Err(why) => Err((puffin, format!("cannot start: {why}"))),
                    };
                    match outcome {
                        Ok(Some(result)) => {
                            drop((progress, reservation));
                            shared.borrow_mut().result = Some(keep(result));
                            ctx.request_repaint();
                            return;
                        }
                        Ok(None) => return,
                        Err((puffin, why)) => {
                            workers::discard(&why);
                            log::warn!("{name}: decoding on the page's thread instead");
                            // From the start: a fresh decoder of the same bytes.
                            match PuffinDecoder::new(puffin.into_bytes()) {
                                Ok(d) => SteppedDecoder::Puffin(d),
                                Err(err) => {
                                    shared.borrow_mut().result =
                                        Some(Err(format!("{name}: {err}")));
                                    ctx.request_repaint();
                                    return;
                                }
                            }
                        }
                    }
                }
                other => other,
            };
            // On the page's thread: a slice, then the browser paints (the
            // frame that started the load) and handles input, and so on.
            let mut work = SlicedDecode::new(decoder, started);
            loop {
                if shared.borrow().cancelled {
                    log::info!("{name}: decoding cancelled");
                    return;
                }
                if work.run_slice(SLICE) {
                    break;
                }
                let (done_bytes, total_bytes) =
                    (work.decoder.bytes_done(), work.decoder.bytes_total());
                shared.borrow_mut().done_bytes = done_bytes;
                progress.set(done_bytes, total_bytes);
                web::yield_to_browser().await;
            }
            let result = keep(work.finish(&name, "page"));
            // The model now counts as memory in use.
            drop((progress, reservation));
            shared.borrow_mut().result = Some(result);
            ctx.request_repaint();
        });
        Self {
            name,
            inner: Inner::Browser(task),
        }
    }

    /// Advances the load (a slice of decoding at most `budget` long when it
    /// is polled a slice per frame) and reports where it stands.
    pub fn poll(&mut self, budget: Duration) -> Poll {
        #[cfg(target_arch = "wasm32")]
        let _ = budget;
        match &mut self.inner {
            #[cfg(not(target_arch = "wasm32"))]
            Inner::Thread { progress, rx, .. } => match rx.try_recv() {
                Ok(result) => Poll::Ready(Box::new(result)),
                Err(std::sync::mpsc::TryRecvError::Empty) => {
                    use std::sync::atomic::Ordering;
                    Poll::Pending {
                        done_bytes: progress[0].load(Ordering::Relaxed),
                        total_bytes: progress[1].load(Ordering::Relaxed),
                        needs_polling: false,
                    }
                }
                Err(std::sync::mpsc::TryRecvError::Disconnected) => Poll::Ready(Box::new(Err(
                    format!("{}: the decoding thread stopped unexpectedly", self.name),
                ))),
            },
            #[cfg(not(target_arch = "wasm32"))]
            Inner::Sliced(work) => {
                if !work.run_slice(budget) {
                    return Poll::Pending {
                        done_bytes: work.decoder.bytes_done(),
                        total_bytes: work.decoder.bytes_total(),
                        needs_polling: true,
                    };
                }
                let Inner::Sliced(work) = std::mem::replace(&mut self.inner, Inner::Done(None))
                else {
                    unreachable!("matched above")
                };
                Poll::Ready(Box::new(work.finish(&self.name, "page")))
            }
            #[cfg(target_arch = "wasm32")]
            Inner::Browser(task) => {
                let mut task = task.borrow_mut();
                match task.result.take() {
                    Some(result) => Poll::Ready(Box::new(result)),
                    None => Poll::Pending {
                        done_bytes: task.done_bytes,
                        total_bytes: task.total_bytes,
                        needs_polling: false,
                    },
                }
            }
            Inner::Done(result) => Poll::Ready(
                result
                    .take()
                    .unwrap_or_else(|| Box::new(Err(format!("{}: already loaded", self.name)))),
            ),
        }
    }
}

/// Bytes of records (compressed, as in the file) each worker decodes at a
/// time: big enough that a message's cost is nothing next to the decoding,
/// small enough that merging one fragment stays well within a [`SLICE`].
#[cfg(target_arch = "wasm32")]
const RUN_BYTES: usize = 256 << 10;

/// Runs handed to each worker ahead of the merge: a run takes a worker a
/// few milliseconds, and the page's thread may be away for a canvas repaint
/// (50-100 ms in software WebGL) before it hands out more; with this many
/// queued the workers do not wait for it. Costs at most this many runs'
/// fragments held at once (a few MB each).
#[cfg(target_arch = "wasm32")]
const RUNS_PER_WORKER: usize = 16;

/// The decode workers' path: this thread locates runs of records and hands
/// them out in turn, then merges the fragments back in file order, yielding
/// to the browser when a stretch of merging reaches [`SLICE`]; the workers
/// do the decompression and decoding meanwhile. `Ok(None)`: cancelled.
/// `Err`: a worker failed (the decoder comes back, for the page's thread to
/// start over with).
#[cfg(target_arch = "wasm32")]
async fn decode_by_workers(
    name: &str,
    mut decoder: PuffinDecoder<Vec<u8>>,
    pool: &super::platform::web::workers::Pool,
    started: Instant,
    task: &std::rc::Rc<std::cell::RefCell<BrowserTask>>,
    progress: &super::platform::web::Progress,
) -> Result<Option<Result<Loaded, String>>, (PuffinDecoder<Vec<u8>>, String)> {
    use crate::engine::read::fragment::Fragment;
    type Answer =
        std::pin::Pin<Box<dyn std::future::Future<Output = Result<(Vec<u8>, f64), String>>>>;
    let total_bytes = decoder.bytes_total();
    let run_bytes = super::platform::web::workers::run_bytes(RUN_BYTES);
    let mut in_flight: std::collections::VecDeque<(crate::engine::read::Run, Answer)> =
        std::collections::VecDeque::new();
    let (mut sent, mut busy, mut longest, mut stretch) =
        (0usize, Duration::ZERO, Duration::ZERO, Duration::ZERO);
    // Where this thread's time goes: handing out runs, reading fragments
    // back, merging them.
    let (mut sending, mut reading, mut merging) = (Duration::ZERO, Duration::ZERO, Duration::ZERO);
    // The workers' own time on the runs, and this thread's waits for them.
    let (mut working_ms, mut waiting) = (0.0, Duration::ZERO);
    loop {
        let t = Instant::now();
        while in_flight.len() < pool.len() * RUNS_PER_WORKER {
            let Some(run) = decoder.next_run(run_bytes) else {
                break;
            };
            let answer = pool.decode(
                sent,
                &decoder.bytes()[run.bytes.clone()],
                run.bytes.start,
                run.first_record,
            );
            in_flight.push_back((run, Box::pin(answer)));
            sent += 1;
        }
        stretch += t.elapsed();
        sending += t.elapsed();
        let Some((run, answer)) = in_flight.pop_front() else {
            break;
        };
        // This thread is free meanwhile (the browser paints, handles input).
        let t = Instant::now();
        let answer = answer.await;
        waiting += t.elapsed();
        if t.elapsed() >= Duration::from_millis(1) {
            // It was not there yet: the browser ran other tasks meanwhile,
            // and this thread's stretch of work ended.
            busy += stretch;
            longest = longest.max(stretch);
            stretch = Duration::ZERO;
        }
        if task.borrow().cancelled {
            log::info!("{name}: decoding cancelled");
            return Ok(None);
        }
        let t = Instant::now();
        let merged = answer.and_then(|(bytes, ms): (Vec<u8>, f64)| {
            working_ms += ms;
            let fragment = Fragment::from_bytes(&bytes)?;
            drop(bytes);
            reading += t.elapsed();
            let t = Instant::now();
            let merged = fragment.merge_into(&mut decoder);
            merging += t.elapsed();
            merged
        });
        if let Err(why) = merged {
            return Err((decoder, format!("a run at byte {}: {why}", run.bytes.start)));
        }
        stretch += t.elapsed();
        task.borrow_mut().done_bytes = run.bytes.end;
        progress.set(run.bytes.end, total_bytes);
        if stretch >= SLICE {
            busy += stretch;
            longest = longest.max(stretch);
            stretch = Duration::ZERO;
            super::platform::web::yield_to_browser().await;
        }
    }
    busy += stretch;
    longest = longest.max(stretch);
    let t = Instant::now();
    let decoded = decoder.finish();
    busy += t.elapsed();
    log::info!(
        "{name}: decoded by {} workers in {:.0} ms ({sent} runs, {working_ms:.0} ms of their work; \
         {:.0} ms waited for); the page's thread spent {:.0} ms on it \
         (handing out {:.0}, reading back {:.0}, merging {:.0}), at most {:.0} ms at a time",
        pool.len(),
        started.elapsed().as_secs_f64() * 1e3,
        waiting.as_secs_f64() * 1e3,
        busy.as_secs_f64() * 1e3,
        sending.as_secs_f64() * 1e3,
        reading.as_secs_f64() * 1e3,
        merging.as_secs_f64() * 1e3,
        longest.as_secs_f64() * 1e3,
    );
    Ok(Some(finish(name, decoded, total_bytes, started, "workers")))
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;
    use crate::engine::write::puffin::{Compression, Format, synthetic_capture, write_recording};

    fn capture() -> Vec<u8> {
        write_recording(
            &synthetic_capture(200, 2, 2_000),
            Format::Pfd4(Compression::Lz4),
        )
    }

    /// Starts a threaded load of `bytes` and takes the job apart: its
    /// progress, its channel, its cancel flag.
    fn start_thread(
        name: &str,
        bytes: &[u8],
    ) -> (
        std::sync::Arc<[std::sync::atomic::AtomicUsize; 2]>,
        std::sync::mpsc::Receiver<Result<Loaded, String>>,
        CancelOnDrop,
    ) {
        let ctx = egui::Context::default();
        let job = LoadJob::start(
            name.into(),
            Source::Bytes(bytes.to_vec()),
            &ctx,
            true,
            false,
        );
        match job.inner {
            Inner::Thread {
                progress,
                rx,
                _cancel: cancel,
            } => (progress, rx, cancel),
            _ => panic!("a threaded job"),
        }
    }

    /// A job dropped while its thread decodes (replaced or closed) stops
    /// the decoding early and sends nothing; one kept sends the recording.
    #[test]
    fn a_dropped_threaded_load_stops_decoding() {
        use std::sync::atomic::Ordering;
        let bytes = capture();
        let (progress, rx, _cancel) = start_thread("kept.puffin", &bytes);
        let loaded = rx.recv().expect("sent").expect("decodes");
        assert_eq!(loaded.trace().frames.len(), 200);
        assert_eq!(progress[0].load(Ordering::Relaxed), bytes.len());

        let (progress, rx, cancel) = start_thread("dropped.puffin", &bytes);
        drop(cancel);
        // The thread ends without sending (the channel closes)...
        assert!(rx.recv().is_err(), "a cancelled load sends nothing");
        // ...before it decoded the whole file.
        let done = progress[0].load(Ordering::Relaxed);
        assert!(
            done < bytes.len(),
            "stopped at {done} of {} bytes",
            bytes.len()
        );
    }
}
