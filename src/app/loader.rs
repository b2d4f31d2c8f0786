//! Loading a recording without freezing the UI: natively on a named
//! background thread (frames decompressed on all cores), in the browser in
//! slices of at most [`SLICE`] across repaints.

use crate::engine::api::{Summary, summary};
use crate::engine::{Decoded, PuffinDecoder, Trace, json_in};
use web_time::{Duration, Instant};

/// Longest stretch of work (decoding plus the rest of the app's frame)
/// between two repaints in the browser. Rendering a frame takes another
/// 40-50 ms in headless Chromium's software WebGL, so the page still
/// repaints about every 80-90 ms there, and far more often with a GPU.
pub const SLICE: Duration = Duration::from_millis(35);

/// A decoded recording, as every view reads it.
pub struct Loaded {
    /// The file name (no directories).
    pub name: String,
    pub decoded: Decoded,
    pub summary: Summary,
    pub size_bytes: usize,
    /// Wall time from start of loading to the model being ready.
    pub load_ms: f64,
}

impl Loaded {
    pub fn new(name: String, decoded: Decoded, size_bytes: usize, load_ms: f64) -> Self {
        let summary = summary(&name, &decoded);
        Self {
            name,
            decoded,
            summary,
            size_bytes,
            load_ms,
        }
    }

    pub fn trace(&self) -> &Trace {
        &self.decoded.trace
    }

    /// Decodes `bytes` at once, on this thread (tests, small files).
    pub fn decode_now(name: &str, bytes: &[u8]) -> Result<Self, String> {
        let started = Instant::now();
        let decoded = crate::engine::load(bytes).map_err(|err| format!("{name}: {err}"))?;
        finish(name, decoded, bytes.len(), started)
    }
}

/// Where a recording's bytes come from.
pub enum Source {
    Bytes(Vec<u8>),
    /// Read on the loading thread (native).
    #[cfg(not(target_arch = "wasm32"))]
    Path(std::path::PathBuf),
}

/// The state of a load.
pub enum Poll {
    Pending {
        done_bytes: usize,
        total_bytes: usize,
    },
    Ready(Box<Result<Loaded, String>>),
}

/// One recording being loaded.
pub struct LoadJob {
    pub name: String,
    started: Instant,
    inner: Inner,
    /// Time spent decoding in slices, and how many slices.
    busy: Duration,
    slices: u32,
}

enum Inner {
    #[cfg(not(target_arch = "wasm32"))]
    Thread {
        progress: std::sync::Arc<[std::sync::atomic::AtomicUsize; 2]>,
        rx: std::sync::mpsc::Receiver<Result<Loaded, String>>,
    },
    Sliced(PuffinDecoder<Vec<u8>>),
    Done(Option<Result<Loaded, String>>),
}

/// A decode that kept no frame at all is unusable; anything else is shown.
fn finish(name: &str, decoded: Decoded, size: usize, started: Instant) -> Result<Loaded, String> {
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
    Ok(Loaded::new(name.to_owned(), decoded, size, ms))
}

impl LoadJob {
    /// Starts loading. `threaded` (native only) decodes on a background
    /// thread; otherwise [`Self::poll`] decodes a slice at a time.
    pub fn start(name: String, source: Source, ctx: &egui::Context, threaded: bool) -> Self {
        let started = Instant::now();
        #[cfg(not(target_arch = "wasm32"))]
        if threaded {
            return Self::start_thread(name, source, ctx.clone(), started);
        }
        let _ = (threaded, ctx);
        // On wasm `Source` has one variant.
        #[allow(clippy::infallible_destructuring_match)]
        let bytes = match source {
            Source::Bytes(bytes) => bytes,
            #[cfg(not(target_arch = "wasm32"))]
            Source::Path(path) => match std::fs::read(&path) {
                Ok(bytes) => bytes,
                Err(err) => {
                    let result = Err(format!("{}: cannot read: {err}", path.display()));
                    return Self::done(name, started, result);
                }
            },
        };
        if json_in::looks_like_json(&bytes) {
            // JSON dumps are parsed in one go (streaming, but not sliced).
            let result = json_in::load_json(&bytes)
                .map_err(|err| format!("{name}: {err}"))
                .and_then(|d| finish(&name, d, bytes.len(), started));
            return Self::done(name, started, result);
        }
        match PuffinDecoder::new(bytes) {
            Ok(decoder) => Self {
                name,
                started,
                inner: Inner::Sliced(decoder),
                busy: Duration::ZERO,
                slices: 0,
            },
            Err(err) => {
                let result = Err(format!("{name}: {err}"));
                Self::done(name, started, result)
            }
        }
    }

    fn done(name: String, started: Instant, result: Result<Loaded, String>) -> Self {
        Self {
            name,
            started,
            inner: Inner::Done(Some(result)),
            busy: Duration::ZERO,
            slices: 0,
        }
    }

    #[cfg(not(target_arch = "wasm32"))]
    fn start_thread(name: String, source: Source, ctx: egui::Context, started: Instant) -> Self {
        use std::sync::atomic::{AtomicUsize, Ordering};
        let progress = std::sync::Arc::new([AtomicUsize::new(0), AtomicUsize::new(0)]);
        let (tx, rx) = std::sync::mpsc::channel();
        let thread_progress = progress.clone();
        let thread_name = name.clone();
        let spawned = std::thread::Builder::new()
            .name("puffin-lens-decode".to_owned())
            .spawn(move || {
                let name = thread_name;
                let bytes = match source {
                    Source::Bytes(bytes) => Ok(bytes),
                    Source::Path(path) => std::fs::read(&path)
                        .map_err(|err| format!("{}: cannot read: {err}", path.display())),
                };
                let result = bytes.and_then(|bytes| {
                    thread_progress[1].store(bytes.len(), Ordering::Relaxed);
                    ctx.request_repaint();
                    let decoded = if json_in::looks_like_json(&bytes) {
                        json_in::load_json(&bytes)
                    } else {
                        PuffinDecoder::new(&bytes[..]).map(|d| {
                            d.run_parallel_with_progress(|done| {
                                thread_progress[0].store(done, Ordering::Relaxed);
                                ctx.request_repaint();
                            })
                        })
                    };
                    decoded
                        .map_err(|err| format!("{name}: {err}"))
                        .and_then(|d| finish(&name, d, bytes.len(), started))
                });
                let _ = tx.send(result);
                ctx.request_repaint();
            });
        match spawned {
            Ok(_) => Self {
                name,
                started,
                inner: Inner::Thread { progress, rx },
                busy: Duration::ZERO,
                slices: 0,
            },
            Err(err) => {
                let result = Err(format!("{name}: cannot start the decoding thread: {err}"));
                Self::done(name, started, result)
            }
        }
    }

    /// Advances the load (a slice of decoding at most `budget` long in the
    /// browser) and reports where it stands.
    pub fn poll(&mut self, budget: Duration) -> Poll {
        match &mut self.inner {
            #[cfg(not(target_arch = "wasm32"))]
            Inner::Thread { progress, rx } => match rx.try_recv() {
                Ok(result) => Poll::Ready(Box::new(result)),
                Err(std::sync::mpsc::TryRecvError::Empty) => {
                    use std::sync::atomic::Ordering;
                    Poll::Pending {
                        done_bytes: progress[0].load(Ordering::Relaxed),
                        total_bytes: progress[1].load(Ordering::Relaxed),
                    }
                }
                Err(std::sync::mpsc::TryRecvError::Disconnected) => Poll::Ready(Box::new(Err(
                    format!("{}: the decoding thread stopped unexpectedly", self.name),
                ))),
            },
            Inner::Sliced(decoder) => {
                let slice_start = Instant::now();
                self.slices += 1;
                while decoder.step() {
                    if slice_start.elapsed() >= budget {
                        self.busy += slice_start.elapsed();
                        return Poll::Pending {
                            done_bytes: decoder.bytes_done(),
                            total_bytes: decoder.bytes_total(),
                        };
                    }
                }
                let Inner::Sliced(decoder) = std::mem::replace(&mut self.inner, Inner::Done(None))
                else {
                    unreachable!("matched above")
                };
                let size = decoder.bytes_total();
                let decoded = decoder.finish();
                self.busy += slice_start.elapsed();
                log::info!(
                    "{}: decoded in {:.0} ms of work in {} slices, {:.0} ms since the start",
                    self.name,
                    self.busy.as_secs_f64() * 1e3,
                    self.slices,
                    self.started.elapsed().as_secs_f64() * 1e3
                );
                Poll::Ready(Box::new(finish(&self.name, decoded, size, self.started)))
            }
            Inner::Done(result) => Poll::Ready(Box::new(
                result
                    .take()
                    .unwrap_or_else(|| Err(format!("{}: already loaded", self.name))),
            )),
        }
    }
}
