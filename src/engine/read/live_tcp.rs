//! The native live client: a thread that connects to a running app's
//! `puffin_http` server, reads its stream ([`super::live`]) into a
//! [`LiveRecording`], and connects again when the app restarts.

use super::live::{LiveRecording, Message, MessageReader, Retention, StreamError};
pub use super::live::{LiveState, LiveStatus};
use std::io::Read as _;
use std::net::{TcpStream, ToSocketAddrs as _};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// The port `puffin_http::Server` examples listen on.
pub const DEFAULT_PORT: u16 = 8585;

/// `host:port`, with puffin_http's default port added when none is given.
pub fn with_default_port(addr: &str) -> String {
    let addr = addr.trim();
    let has_port = addr
        .rsplit_once(':')
        .is_some_and(|(host, port)| !host.ends_with(':') && port.parse::<u16>().is_ok());
    if has_port {
        addr.to_owned()
    } else {
        format!("{addr}:{DEFAULT_PORT}")
    }
}

#[derive(Clone, Copy, Debug)]
pub struct LiveOptions {
    /// Connect again after the connection ends (the desktop app); else the
    /// first connection's end is the end (`record`).
    pub reconnect: bool,
    /// Stop after this many frames.
    pub max_frames: Option<u64>,
    pub retention: Retention,
}

impl Default for LiveOptions {
    fn default() -> Self {
        Self {
            reconnect: true,
            max_frames: None,
            retention: Retention::default(),
        }
    }
}

/// Pause between connection attempts.
const RETRY: Duration = Duration::from_millis(500);
/// Pause before trying again a server whose stream could not be read.
const RETRY_FAILED: Duration = Duration::from_secs(5);
/// At most this often, `on_change` is called while frames arrive.
const NOTIFY_EVERY: Duration = Duration::from_millis(100);

/// A connection to a puffin_http server, read on a background thread.
/// Dropping it disconnects.
pub struct LiveClient {
    pub addr: String,
    state: Arc<Mutex<LiveState>>,
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl LiveClient {
    /// Connects to `addr` (`host:port`) on a new thread; `on_change` is
    /// called when frames arrive (at most every 100 ms) or the status changes.
    pub fn start(
        addr: &str,
        options: LiveOptions,
        on_change: impl Fn() + Send + 'static,
    ) -> std::io::Result<Self> {
        let addr = with_default_port(addr);
        let state = Arc::new(Mutex::new(LiveState::new(LiveRecording::new(
            options.retention,
        ))));
        let stop = Arc::new(AtomicBool::new(false));
        let thread = {
            let (addr, state, stop) = (addr.clone(), state.clone(), stop.clone());
            std::thread::Builder::new()
                .name("puffin-lens-live".to_owned())
                .spawn(move || {
                    let mut sink = StateSink {
                        state,
                        max_frames: options.max_frames,
                        on_change: Box::new(on_change),
                        last_notify: Instant::now(),
                        changed: false,
                    };
                    run(&addr, options.reconnect, &stop, &mut sink);
                    (sink.on_change)();
                })?
        };
        Ok(Self {
            addr,
            state,
            stop,
            thread: Some(thread),
        })
    }

    /// The shared state (briefly: the reading thread waits for it).
    pub fn state(&self) -> MutexGuard<'_, LiveState> {
        lock(&self.state)
    }

    /// The shared state, for whoever outlives this client.
    pub fn shared_state(&self) -> Arc<Mutex<LiveState>> {
        self.state.clone()
    }

    /// Whether the reading thread has ended (status [`LiveStatus::Ended`]).
    pub fn is_finished(&self) -> bool {
        self.thread.as_ref().is_none_or(|t| t.is_finished())
    }

    /// Disconnects and waits for the thread (at most a read timeout).
    pub fn stop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl Drop for LiveClient {
    fn drop(&mut self) {
        self.stop();
    }
}

use super::live::lock;

/// Where [`run`] delivers what it reads.
pub trait LiveSink {
    /// `n` bytes arrived.
    fn bytes(&mut self, n: usize);
    /// A whole message arrived; false ends the connection for good.
    fn message(&mut self, message: &Message<'_>) -> bool;
    fn status(&mut self, status: LiveStatus);
    /// Called after each read (and while waiting), to batch notifications.
    fn idle(&mut self) {}
}

/// Reads `addr`'s stream into `sink` until `stop` is set, the sink says
/// so, or (without `reconnect`) the first connection ends; then the status
/// is [`LiveStatus::Ended`].
pub fn run(addr: &str, reconnect: bool, stop: &AtomicBool, sink: &mut dyn LiveSink) {
    let stopped = || stop.load(Ordering::SeqCst);
    // Sleeps up to `d`, waking early when asked to stop.
    let pause = |d: Duration| {
        let until = Instant::now() + d;
        while !stopped() && Instant::now() < until {
            std::thread::sleep(Duration::from_millis(20));
        }
    };
    let broken = |why: String| {
        if reconnect {
            LiveStatus::Reconnecting(why)
        } else {
            LiveStatus::Ended(Some(why))
        }
    };
    while !stopped() {
        let stream = match connect(addr) {
            Ok(s) => s,
            Err(err) => {
                sink.status(broken(format!("{addr}: cannot connect: {err}")));
                if !reconnect {
                    return;
                }
                pause(RETRY);
                continue;
            }
        };
        sink.status(LiveStatus::Connected);
        let (status, wait) = match read(stream, stop, sink) {
            End::Done => (LiveStatus::Ended(None), None),
            End::Closed(Ok(())) if !reconnect => (LiveStatus::Ended(None), None),
            End::Closed(Ok(())) => (
                LiveStatus::Reconnecting("the app closed the connection".to_owned()),
                Some(RETRY),
            ),
            End::Closed(Err(err)) => (broken(err.to_string()), Some(RETRY)),
            End::Io(err) => (broken(format!("connection lost: {err}")), Some(RETRY)),
            End::Stream(err) => {
                let why = format!("{addr}: {err}");
                if reconnect {
                    (LiveStatus::Failed(why), Some(RETRY_FAILED))
                } else {
                    (LiveStatus::Ended(Some(why)), None)
                }
            }
        };
        let ended = matches!(status, LiveStatus::Ended(_));
        sink.status(status);
        match wait {
            Some(d) if reconnect => pause(d),
            _ => return,
        }
        if ended {
            return;
        }
    }
    sink.status(LiveStatus::Ended(None));
}

/// How one connection ended.
enum End {
    /// Asked to stop, or the sink had enough.
    Done,
    /// The server closed the connection (cleanly or in a record).
    Closed(Result<(), StreamError>),
    Io(std::io::Error),
    Stream(StreamError),
}

fn read(mut stream: TcpStream, stop: &AtomicBool, sink: &mut dyn LiveSink) -> End {
    let mut reader = MessageReader::new();
    let mut buf = vec![0u8; 256 << 10];
    loop {
        if stop.load(Ordering::SeqCst) {
            return End::Done;
        }
        let n = match stream.read(&mut buf) {
            Ok(0) => return End::Closed(reader.finish()),
            Ok(n) => n,
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock
                        | std::io::ErrorKind::TimedOut
                        | std::io::ErrorKind::Interrupted
                ) =>
            {
                sink.idle();
                continue;
            }
            Err(e) => return End::Io(e),
        };
        reader.feed(&buf[..n]);
        sink.bytes(n);
        loop {
            match reader.next_message() {
                Ok(Some(message)) => {
                    if !sink.message(&message) {
                        return End::Done;
                    }
                }
                Ok(None) => break,
                Err(err) => return End::Stream(err),
            }
        }
        sink.idle();
    }
}

/// The desktop app's and `record`'s sink: the shared [`LiveState`].
struct StateSink {
    state: Arc<Mutex<LiveState>>,
    max_frames: Option<u64>,
    on_change: Box<dyn Fn() + Send>,
    last_notify: Instant,
    changed: bool,
}

impl LiveSink for StateSink {
    fn bytes(&mut self, n: usize) {
        lock(&self.state).bytes_received += n as u64;
    }

    fn message(&mut self, message: &Message<'_>) -> bool {
        let mut state = lock(&self.state);
        state.recording.push(message);
        self.changed = true;
        self.max_frames
            .is_none_or(|max| state.recording.received_frames < max)
    }

    fn status(&mut self, status: LiveStatus) {
        lock(&self.state).set_status(status);
        (self.on_change)();
    }

    fn idle(&mut self) {
        if self.changed && self.last_notify.elapsed() >= NOTIFY_EVERY {
            self.changed = false;
            self.last_notify = Instant::now();
            (self.on_change)();
        }
    }
}

fn connect(addr: &str) -> std::io::Result<TcpStream> {
    let mut last = None;
    for a in addr.to_socket_addrs()? {
        match TcpStream::connect_timeout(&a, Duration::from_secs(2)) {
            Ok(s) => {
                s.set_read_timeout(Some(Duration::from_millis(100)))?;
                let _ = s.set_nodelay(true);
                return Ok(s);
            }
            Err(e) => last = Some(e),
        }
    }
    Err(last.unwrap_or_else(|| std::io::Error::other("the address resolves to nothing")))
}
