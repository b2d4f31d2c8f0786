//! Live capture from the command line: `record` (save a running app's
//! frames to a file) and `relay` (its stream over a WebSocket, for the web
//! app, which cannot open TCP connections).

use super::{EXIT_BAD_INPUT, EXIT_DAMAGED, EXIT_OK, write_atomically};
use anyhow::Context as _;
use puffin_lens::engine::live::{Message, Retention};
use puffin_lens::engine::live_tcp::{self, LiveClient, LiveOptions, LiveSink, LiveStatus};
use std::io::{IsTerminal as _, Write as _};
use std::net::{SocketAddr, TcpListener};
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// Sets `flag` on Ctrl-C (once per process).
fn on_ctrl_c(flag: &Arc<AtomicBool>) {
    let flag = flag.clone();
    // Fails only when a handler is already set (never, in this process).
    let _ = ctrlc::set_handler(move || flag.store(true, Ordering::SeqCst));
}

pub fn record(
    addr: &str,
    output: &Path,
    frames: Option<u64>,
    seconds: Option<f64>,
) -> anyhow::Result<i32> {
    let interrupted = Arc::new(AtomicBool::new(false));
    on_ctrl_c(&interrupted);
    let options = LiveOptions {
        reconnect: false,
        max_frames: frames,
        retention: Retention {
            max_frames: usize::MAX,
            max_mb: usize::MAX,
        },
    };
    let mut client =
        LiveClient::start(addr, options, || {}).context("cannot start the capture thread")?;
    let addr = client.addr.clone();
    let terminal = std::io::stderr().is_terminal();
    eprintln!(
        "puffin-lens: recording {addr}{}{} (Ctrl-C stops and saves)",
        frames.map_or(String::new(), |n| format!(", {n} frames")),
        seconds.map_or(String::new(), |s| format!(", at most {s} s")),
    );
    let started = Instant::now();
    let deadline = seconds.map(|s| started + Duration::from_secs_f64(s.max(0.0)));
    while !client.is_finished() {
        if interrupted.load(Ordering::SeqCst) || deadline.is_some_and(|d| Instant::now() >= d) {
            client.stop();
            break;
        }
        if terminal {
            let state = client.state();
            eprint!(
                "\r{:>8} frames  {:>9.1} MB  {:>6.1} s  {}   ",
                state.recording.received_frames,
                state.bytes_received as f64 / 1e6,
                started.elapsed().as_secs_f64(),
                state.status.describe(),
            );
            let _ = std::io::stderr().flush();
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    if terminal {
        eprintln!();
    }
    let state = client.state();
    let n = state.recording.frames();
    let broke = match &state.status {
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
    let bytes = state.recording.to_puffin();
    drop(state);
    write_atomically(output, |w| Ok(w.write_all(&bytes)?))?;
    eprintln!(
        "puffin-lens: saved {n} frames ({:.1} MB) to {}",
        bytes.len() as f64 / 1e6,
        output.display()
    );
    Ok(match broke {
        Some(why) => {
            eprintln!("puffin-lens: damaged: {why}; the frames before it are saved");
            EXIT_DAMAGED
        }
        None => EXIT_OK,
    })
}

pub fn relay(addr: &str, listen: &str) -> anyhow::Result<i32> {
    let addr = live_tcp::with_default_port(addr);
    let listener = TcpListener::bind(listen).with_context(|| format!("{listen}: cannot listen"))?;
    let local: SocketAddr = listener.local_addr()?;
    let reach = if local.ip().is_loopback() {
        "loopback only: this machine's browsers can connect, other machines cannot"
    } else {
        "ALL NETWORK INTERFACES: any machine that reaches this one can watch the profile"
    };
    eprintln!(
        "puffin-lens: relaying {addr} as ws://{local} ({reach})\n\
         puffin-lens: open the web app with ?live=ws://{local} (or Connect… and that address); Ctrl-C stops"
    );
    for stream in listener.incoming() {
        let stream = match stream {
            Ok(s) => s,
            Err(err) => {
                eprintln!("puffin-lens: relay: accept failed: {err}");
                continue;
            }
        };
        let addr = addr.clone();
        std::thread::spawn(move || {
            let peer = stream
                .peer_addr()
                .map_or_else(|_| "?".to_owned(), |a| a.to_string());
            match tungstenite::accept(stream) {
                Ok(ws) => {
                    eprintln!("puffin-lens: relay: {peer} connected");
                    let stop = Arc::new(AtomicBool::new(false));
                    let mut sink = WsSink {
                        ws,
                        gone: stop.clone(),
                    };
                    live_tcp::run(&addr, true, &stop, &mut sink);
                    eprintln!("puffin-lens: relay: {peer} disconnected");
                }
                Err(err) => eprintln!("puffin-lens: relay: {peer}: not a WebSocket client: {err}"),
            }
        });
    }
    Ok(EXIT_BAD_INPUT)
}

/// Forwards each message as one binary WebSocket message (the version
/// and the record, as on the TCP stream) and each status change as a text
/// message `{"status": …, "message": …}`.
struct WsSink {
    ws: tungstenite::WebSocket<std::net::TcpStream>,
    /// Set when the browser is gone: ends the upstream connection.
    gone: Arc<AtomicBool>,
}

impl WsSink {
    fn alive(&self) -> bool {
        !self.gone.load(Ordering::SeqCst)
    }

    fn send(&mut self, m: tungstenite::Message) {
        if self.alive() && self.ws.send(m).is_err() {
            self.gone.store(true, Ordering::SeqCst);
        }
    }
}

impl LiveSink for WsSink {
    fn bytes(&mut self, _n: usize) {}

    fn message(&mut self, message: &Message<'_>) -> bool {
        let mut bytes = Vec::with_capacity(message.record.len() + 2);
        bytes.extend_from_slice(&message.version.to_le_bytes());
        bytes.extend_from_slice(message.record);
        self.send(tungstenite::Message::binary(bytes));
        self.alive()
    }

    fn status(&mut self, status: LiveStatus) {
        let (kind, message) = status.kind_message();
        let text = serde_json::json!({ "status": kind, "message": message }).to_string();
        self.send(tungstenite::Message::text(text));
    }

    fn idle(&mut self) {
        if self.alive() && self.ws.flush().is_err() {
            self.gone.store(true, Ordering::SeqCst);
        }
    }
}
