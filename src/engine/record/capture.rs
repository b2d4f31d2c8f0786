//! A capture: the frames a running app's puffin_http server sends, until
//! enough arrived, time ran out, the caller stopped it, the app went quiet
//! or closed the connection; the frames that arrived kept as `.puffin`
//! bytes.

use crate::engine::read::live::Retention;
use crate::engine::read::live_tcp::{LiveClient, LiveOptions, LiveStatus};
use anyhow::Context as _;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// When a capture ends.
#[derive(Clone, Copy, Debug, Default)]
pub struct Until {
    /// After this many frames.
    pub frames: Option<u64>,
    /// After this many seconds.
    pub seconds: Option<f64>,
    /// When no frame arrived for this many seconds (an app that hangs): the
    /// frames before are kept and [`Captured::broke`] says so.
    pub stall_s: Option<f64>,
}

/// How a capture goes, told about ten times a second.
pub struct Tick<'a> {
    pub frames: u64,
    pub bytes_received: u64,
    pub elapsed_s: f64,
    pub status: &'a LiveStatus,
}

/// What a capture recorded: the `.puffin` bytes of its frames.
pub struct Captured {
    pub bytes: Vec<u8>,
    pub frames: usize,
    /// The address as connected to (with puffin_http's default port).
    pub addr: String,
    /// Why the stream broke after some frames (those are in `bytes`).
    pub broke: Option<String>,
}

/// Records from the puffin_http server at `addr` until `until` or `stop`
/// says, or the app closes the connection; `tick` is told how it goes.
/// Errors when no frame arrived.
pub fn capture(
    addr: &str,
    until: Until,
    stop: &AtomicBool,
    tick: &mut dyn FnMut(&Tick<'_>),
) -> anyhow::Result<Captured> {
    let options = LiveOptions {
        reconnect: false,
        max_frames: until.frames,
        retention: Retention {
            max_frames: usize::MAX,
            max_mb: usize::MAX,
        },
    };
    let mut client =
        LiveClient::start(addr, options, || {}).context("cannot start the capture thread")?;
    let addr = client.addr.clone();
    let started = Instant::now();
    let deadline = (until.seconds).map(|s| started + Duration::from_secs_f64(s.max(0.0)));
    let (mut last_frames, mut last_frame_at, mut stalled) = (0, started, None);
    while !client.is_finished() {
        if stop.load(Ordering::SeqCst) || deadline.is_some_and(|d| Instant::now() >= d) {
            client.stop();
            break;
        }
        let received = client.state().recording.received_frames;
        if received != last_frames {
            (last_frames, last_frame_at) = (received, Instant::now());
        } else if let Some(s) =
            (until.stall_s).filter(|&s| last_frame_at.elapsed().as_secs_f64() > s)
        {
            stalled = Some(format!(
                "{addr}: no frame for {s} s after {received} (the app hangs, or stopped ending \
                 frames)"
            ));
            client.stop();
            break;
        }
        {
            let state = client.state();
            tick(&Tick {
                frames: state.recording.received_frames,
                bytes_received: state.bytes_received,
                elapsed_s: started.elapsed().as_secs_f64(),
                status: &state.status,
            });
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let state = client.state();
    let n = state.recording.frames();
    let broke = match &state.status {
        _ if stalled.is_some() => stalled,
        LiveStatus::Ended(Some(why)) => Some(why.clone()),
        _ => None,
    };
    if n == 0 {
        let why = broke.unwrap_or_else(|| {
            format!(
                "{addr}: no frame arrived in {:.1} s (puffin_http sends a frame when the app \
                 ends one: is it calling GlobalProfiler::lock().new_frame() with scopes on?)",
                started.elapsed().as_secs_f64()
            )
        });
        anyhow::bail!("{why}; nothing saved");
    }
    Ok(Captured {
        bytes: state.recording.to_puffin(),
        frames: n,
        addr,
        broke,
    })
}
