//! The native live client: a thread that connects to a running app's
//! `puffin_http` server, reads its stream ([`super::live`]) into a
//! [`LiveRecording`], and connects again when the app restarts.

use super::live::{LiveRecording, MessageReader, Retention, StreamError};
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

/// Where a connection stands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LiveStatus {
    Connecting,
    /// Connected; frames arrive as the app sends them.
    Connected,
    /// Waiting to connect again; why the last attempt or connection ended.
    Reconnecting(String),
    /// The stream cannot be read (protocol mismatch, not a puffin_http
    /// server); tried again every few seconds.
    Failed(String),
    /// Ended for good: `None` when asked to (or the server closed the
    /// stream cleanly), else why it broke.
    Ended(Option<String>),
}

impl LiveStatus {
    /// One line for a status bar.
    pub fn describe(&self) -> String {
        match self {
            LiveStatus::Connecting => "connecting".to_owned(),
            LiveStatus::Connected => "connected".to_owned(),
            LiveStatus::Reconnecting(why) => format!("reconnecting ({why})"),
            LiveStatus::Failed(why) => why.clone(),
            LiveStatus::Ended(None) => "disconnected".to_owned(),
            LiveStatus::Ended(Some(why)) => format!("disconnected: {why}"),
        }
    }
}

/// What the reading thread shares with whoever shows it.
pub struct LiveState {
    pub recording: LiveRecording,
    pub status: LiveStatus,
    /// Bytes read from the network, all connections together.
    pub bytes_received: u64,
    /// Connections made so far.
    pub connections: u32,
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
        let state = Arc::new(Mutex::new(LiveState {
            recording: LiveRecording::new(options.retention),
            status: LiveStatus::Connecting,
            bytes_received: 0,
            connections: 0,
        }));
        let stop = Arc::new(AtomicBool::new(false));
        let thread = {
            let (addr, state, stop) = (addr.clone(), state.clone(), stop.clone());
            std::thread::Builder::new()
                .name("puffin-lens-live".to_owned())
                .spawn(move || {
                    let mut run = Run {
                        addr,
                        options,
                        state,
                        stop,
                        on_change: Box::new(on_change),
                        last_notify: Instant::now(),
                    };
                    run.run();
                    (run.on_change)();
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

fn lock(state: &Mutex<LiveState>) -> MutexGuard<'_, LiveState> {
    state
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// How one connection ended.
enum End {
    /// Asked to stop, or the frame limit was reached.
    Done,
    /// The server closed the connection (cleanly or in a record).
    Closed(Result<(), StreamError>),
    Io(std::io::Error),
    Stream(StreamError),
}

struct Run {
    addr: String,
    options: LiveOptions,
    state: Arc<Mutex<LiveState>>,
    stop: Arc<AtomicBool>,
    on_change: Box<dyn Fn() + Send>,
    last_notify: Instant,
}

impl Run {
    fn set_status(&mut self, status: LiveStatus) {
        lock(&self.state).status = status;
        (self.on_change)();
    }

    fn stopped(&self) -> bool {
        self.stop.load(Ordering::SeqCst)
    }

    /// Sleeps up to `d`, waking early when asked to stop.
    fn pause(&self, d: Duration) {
        let until = Instant::now() + d;
        while !self.stopped() && Instant::now() < until {
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    fn run(&mut self) {
        while !self.stopped() {
            let stream = match connect(&self.addr) {
                Ok(s) => s,
                Err(err) => {
                    let why = format!("{}: cannot connect: {err}", self.addr);
                    if !self.options.reconnect {
                        self.set_status(LiveStatus::Ended(Some(why)));
                        return;
                    }
                    self.set_status(LiveStatus::Reconnecting(why));
                    self.pause(RETRY);
                    continue;
                }
            };
            lock(&self.state).connections += 1;
            self.set_status(LiveStatus::Connected);
            let (status, wait) = match self.read(stream) {
                End::Done => (LiveStatus::Ended(None), None),
                End::Closed(Ok(())) if !self.options.reconnect => (LiveStatus::Ended(None), None),
                End::Closed(Ok(())) => (
                    LiveStatus::Reconnecting("the app closed the connection".to_owned()),
                    Some(RETRY),
                ),
                End::Closed(Err(err)) | End::Stream(err @ StreamError::Cut { .. }) => {
                    (broken(&self.options, err.to_string()), Some(RETRY))
                }
                End::Io(err) => (
                    broken(&self.options, format!("connection lost: {err}")),
                    Some(RETRY),
                ),
                End::Stream(err) => {
                    let why = format!("{}: {err}", self.addr);
                    if self.options.reconnect {
                        (LiveStatus::Failed(why), Some(RETRY_FAILED))
                    } else {
                        (LiveStatus::Ended(Some(why)), None)
                    }
                }
            };
            self.set_status(status);
            match wait {
                Some(d) if self.options.reconnect => self.pause(d),
                _ => return,
            }
        }
        self.set_status(LiveStatus::Ended(None));
    }

    fn read(&mut self, mut stream: TcpStream) -> End {
        let mut reader = MessageReader::new();
        let mut buf = vec![0u8; 256 << 10];
        let mut changed = false;
        loop {
            if self.stopped() {
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
                    self.notify(&mut changed);
                    continue;
                }
                Err(e) => return End::Io(e),
            };
            reader.feed(&buf[..n]);
            let mut state = lock(&self.state);
            state.bytes_received += n as u64;
            loop {
                match reader.next_message() {
                    Ok(Some(message)) => {
                        state.recording.push(&message);
                        changed = true;
                        if let Some(max) = self.options.max_frames
                            && state.recording.received_frames >= max
                        {
                            return End::Done;
                        }
                    }
                    Ok(None) => break,
                    Err(err) => return End::Stream(err),
                }
            }
            drop(state);
            self.notify(&mut changed);
        }
    }

    fn notify(&mut self, changed: &mut bool) {
        if *changed && self.last_notify.elapsed() >= NOTIFY_EVERY {
            *changed = false;
            self.last_notify = Instant::now();
            (self.on_change)();
        }
    }
}

fn broken(options: &LiveOptions, why: String) -> LiveStatus {
    if options.reconnect {
        LiveStatus::Reconnecting(why)
    } else {
        LiveStatus::Ended(Some(why))
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
