//! Live capture against a real `puffin_http::Server` in this process (and
//! fake servers on 127.0.0.1 for the faults): `record`, the reconnecting
//! client, and the desktop app's live model.

mod common;

use common::{code, run, stderr};
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable as _;
use puffin_lens::app::{PuffinLensApp, Settings, Shared, Side};
use puffin_lens::engine::read::live::{LiveStatus, Retention};
use puffin_lens::engine::read::live_tcp::{LiveClient, LiveOptions};
use puffin_lens::engine::write::json::export_string;
use puffin_lens::engine::write::puffin::{Compression, Format, synthetic_capture, write_frame};
use puffin_lens::engine::{self, ScopeIdx};
use std::io::Write as _;
use std::net::TcpListener;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// puffin's profiler is global: one profiled app at a time.
static PROFILER: Mutex<()> = Mutex::new(());

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port()
}

/// An app instrumented with puffin, serving its frames with puffin_http:
/// a main thread (`frame_body` > `update` > `physics`) and two workers
/// (`job` with data), a frame every 4 ms. Every frame it ends is also kept
/// (puffin's own `FrameData`) to compare with what arrives.
struct ProfiledApp {
    server: Option<puffin_http::Server>,
    port: u16,
    sink: puffin::FrameSinkId,
    sent: Arc<Mutex<Vec<Arc<puffin::FrameData>>>>,
    stop: Arc<AtomicBool>,
    threads: Vec<std::thread::JoinHandle<()>>,
}

/// A puffin_http server on `port`. puffin registers a scope once per
/// process, with the first frame it appears in; a server started later in
/// the same process (another test, a restart) only sends what it saw, so the
/// profiler re-sends every registration with its next frame, as a freshly
/// started app does.
fn serve(port: u16) -> puffin_http::Server {
    try_serve(port).expect("server starts")
}

fn try_serve(port: u16) -> anyhow::Result<puffin_http::Server> {
    let server = puffin_http::Server::new(&format!("127.0.0.1:{port}"))?;
    puffin::GlobalProfiler::lock().emit_scope_snapshot();
    Ok(server)
}

/// A puffin_http server on a free port. A port the OS calls free can still
/// be refused by listen(): a client socket of an earlier test (a relay or
/// `record` that has exited) may hold it in TIME_WAIT. Then another is tried.
fn serve_on_free_port() -> (puffin_http::Server, u16) {
    let mut last = None;
    for _ in 0..20 {
        let port = free_port();
        match try_serve(port) {
            Ok(server) => return (server, port),
            Err(err) => last = Some(err),
        }
    }
    panic!("no port to serve on: {:#}", last.expect("tried"));
}

impl ProfiledApp {
    /// Starts the app and its server on a free port (`self.port`).
    fn start() -> Self {
        puffin::set_scopes_on(true);
        let (server, port) = serve_on_free_port();
        let sent: Arc<Mutex<Vec<Arc<puffin::FrameData>>>> = Arc::default();
        let s = sent.clone();
        let sink = puffin::GlobalProfiler::lock()
            .add_sink(Box::new(move |frame| s.lock().unwrap().push(frame)));
        let stop = Arc::new(AtomicBool::new(false));
        let mut threads = Vec::new();
        for w in 0..2 {
            let stop = stop.clone();
            threads.push(
                std::thread::Builder::new()
                    .name(format!("worker {w}"))
                    .spawn(move || {
                        let mut i = 0;
                        while !stop.load(Ordering::SeqCst) {
                            puffin::profile_scope!("job", format!("item {i}"));
                            i += 1;
                            std::thread::sleep(Duration::from_millis(1));
                        }
                    })
                    .unwrap(),
            );
        }
        let stop2 = stop.clone();
        threads.push(
            std::thread::Builder::new()
                .name("main".into())
                .spawn(move || {
                    while !stop2.load(Ordering::SeqCst) {
                        {
                            puffin::profile_scope!("frame_body");
                            {
                                puffin::profile_scope!("update");
                                puffin::profile_scope!("physics");
                                std::thread::sleep(Duration::from_millis(1));
                            }
                        }
                        puffin::GlobalProfiler::lock().new_frame();
                        std::thread::sleep(Duration::from_millis(3));
                    }
                })
                .unwrap(),
        );
        Self {
            server: Some(server),
            port,
            sink,
            sent,
            stop,
            threads,
        }
    }

    /// Drops the server (its clients are disconnected); the app runs on.
    fn stop_server(&mut self) {
        self.server = None;
    }

    fn sent_frame(&self, frame_index: u64) -> Option<Arc<puffin::FrameData>> {
        let sent = self.sent.lock().unwrap();
        sent.iter()
            .find(|f| f.meta().frame_index == frame_index)
            .cloned()
    }
}

impl Drop for ProfiledApp {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        for t in self.threads.drain(..) {
            let _ = t.join();
        }
        self.server = None;
        puffin::GlobalProfiler::lock().remove_sink(self.sink);
    }
}

/// Waits up to 20 s for `done`.
fn wait_for(what: &str, mut done: impl FnMut() -> bool) {
    let until = Instant::now() + Duration::from_secs(20);
    while !done() {
        assert!(Instant::now() < until, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// puffin's own reader over a saved file: every frame, in order.
fn read_with_puffin(bytes: &[u8]) -> Vec<puffin::FrameData> {
    let mut r = &bytes[4..];
    assert_eq!(&bytes[..4], b"PUF0");
    let mut frames = Vec::new();
    while let Some(f) = puffin::FrameData::read_next(&mut r).expect("puffin reads the file") {
        frames.push(f);
    }
    frames
}

/// A frame as puffin sees it: index, range, scope count, and every
/// thread's name and stream bytes.
type Content = (u64, (i64, i64), usize, Vec<(String, Vec<u8>)>);

fn content(f: &puffin::FrameData) -> Content {
    let unpacked = f.unpacked().expect("unpacks");
    let streams = unpacked
        .thread_streams
        .iter()
        .map(|(t, s)| (t.name.clone(), s.stream.bytes().to_vec()))
        .collect();
    (
        f.meta().frame_index,
        f.meta().range_ns,
        f.meta().num_scopes,
        streams,
    )
}

fn names(t: &engine::Trace) -> std::collections::BTreeSet<String> {
    (0..t.scopes.len() as u32)
        .map(|i| t.scope_name(ScopeIdx(i)).to_owned())
        .collect()
}

#[test]
fn record_saves_exactly_the_frames_sent() {
    let _guard = PROFILER.lock().unwrap_or_else(|e| e.into_inner());
    let app = ProfiledApp::start();
    let port = app.port;
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run.puffin");
    let addr = format!("127.0.0.1:{port}");
    let result = run(&[
        "record",
        &addr,
        "-o",
        out.to_str().unwrap(),
        "--frames",
        "25",
    ]);
    assert_eq!(code(&result), 0, "{}", stderr(&result));
    assert!(
        stderr(&result).contains("saved 25 frames"),
        "{}",
        stderr(&result)
    );
    let bytes = std::fs::read(&out).unwrap();
    // puffin 0.20's own reader opens it, frame for frame what the app sent.
    let frames = read_with_puffin(&bytes);
    assert_eq!(frames.len(), 25);
    for (i, f) in frames.iter().enumerate() {
        let sent = app
            .sent_frame(f.meta().frame_index)
            .expect("a frame the app sent");
        assert_eq!(content(f), content(&sent));
        if i > 0 {
            assert_eq!(f.meta().frame_index, frames[i - 1].meta().frame_index + 1);
        }
    }
    // And we read it: registered names, every thread.
    let decoded = engine::load(&bytes).unwrap();
    assert!(decoded.diagnostics.is_empty(), "{:?}", decoded.diagnostics);
    let t = &decoded.trace;
    assert_eq!(t.frames.len(), 25);
    let n = names(t);
    for name in ["frame_body", "update", "physics", "job"] {
        assert!(n.contains(name), "{name} in {n:?}");
    }
    assert!(t.defs.kind.iter().all(|k| k.is_registered()));
    drop(app);
}

#[test]
fn the_client_reconnects_when_the_app_restarts() {
    let _guard = PROFILER.lock().unwrap_or_else(|e| e.into_inner());
    let mut app = ProfiledApp::start();
    let port = app.port;
    let client =
        LiveClient::start(&format!("127.0.0.1:{port}"), LiveOptions::default(), || {}).unwrap();
    wait_for("frames", || client.state().recording.frames() >= 5);
    app.stop_server();
    wait_for("the disconnect", || {
        matches!(client.state().status, LiveStatus::Reconnecting(_))
    });
    let before = client.state().recording.received_frames;
    let _server = serve(port);
    wait_for("frames after reconnecting", || {
        client.state().recording.received_frames >= before + 5
    });
    let state = client.state();
    assert_eq!(state.status, LiveStatus::Connected);
    assert!(state.connections >= 2, "{}", state.connections);
    // The second connection's first frame registered every scope again.
    let t = state.recording.snapshot().trace;
    assert!(t.defs.kind.iter().all(|k| k.is_registered()));
    assert!(names(&t).contains("physics"));
}

#[test]
fn the_desktop_app_shows_the_live_recording_it_saves() {
    let _guard = PROFILER.lock().unwrap_or_else(|e| e.into_inner());
    let mut app = ProfiledApp::start();
    let port = app.port;
    let mut h = Harness::builder()
        .with_size(egui::vec2(1400.0, 900.0))
        .build_eframe(|cc| {
            PuffinLensApp::with_context(&cc.egui_ctx, Shared::default(), Settings::default())
        });
    let ctx = h.ctx.clone();
    h.state_mut().connect(&ctx, &format!("127.0.0.1:{port}"));
    let step_until = |h: &mut Harness<'static, PuffinLensApp>,
                      what: &str,
                      done: &dyn Fn(&PuffinLensApp) -> bool| {
        let until = Instant::now() + Duration::from_secs(20);
        loop {
            h.step();
            if done(h.state()) {
                return;
            }
            assert!(Instant::now() < until, "timed out waiting for {what}");
            std::thread::sleep(Duration::from_millis(30));
        }
    };
    let shown_frames = |app: &PuffinLensApp| {
        app.recording(Side::A)
            .map_or(0, |r| r.loaded().trace().frames.len())
    };
    step_until(&mut h, "frames in the views", &|app| {
        shown_frames(app) >= 10
    });
    h.get_by_label("LIVE");
    h.get_by_label("connected");
    // The views keep up as frames arrive.
    let first = shown_frames(h.state());
    step_until(&mut h, "more frames", &|app| shown_frames(app) > first);
    // Paused, frames still arrive but the views stay.
    h.get_by_label("Pause").click();
    h.run_steps(2);
    assert!(h.state().live().unwrap().paused);
    let paused_at = shown_frames(h.state());
    let received = h.state().live().unwrap().state().recording.received_frames;
    step_until(&mut h, "frames while paused", &|app| {
        app.live().unwrap().state().recording.received_frames > received + 10
    });
    assert_eq!(shown_frames(h.state()), paused_at);
    h.get_by_label("Resume").click();
    // The app stops serving: once everything is shown, the views hold
    // exactly what Save recording writes.
    app.stop_server();
    step_until(&mut h, "the disconnect", &|app| {
        matches!(
            app.live().unwrap().state().status,
            LiveStatus::Reconnecting(_)
        )
    });
    let total = h.state().live().unwrap().state().recording.frames();
    step_until(&mut h, "every frame shown", &|app| {
        shown_frames(app) == total
    });
    let saved = h.state().live().unwrap().to_puffin();
    let shown = export_string(
        h.state().recording(Side::A).unwrap().loaded().trace(),
        "x",
        false,
    );
    let reopened = engine::load(&saved).unwrap();
    assert!(reopened.diagnostics.is_empty());
    assert_eq!(export_string(&reopened.trace, "x", false), shown);
    // What puffin reads in the saved file is what the app sent.
    for f in read_with_puffin(&saved) {
        let sent = app.sent_frame(f.meta().frame_index).expect("sent");
        assert_eq!(content(&f), content(&sent));
    }
    // The status line says what happened.
    h.get_by_label_contains("reconnecting");
    let status = h
        .state()
        .shared()
        .borrow()
        .live
        .clone()
        .expect("status published");
    assert_eq!(status["status"], "reconnecting");
    assert_eq!(status["frames"], total);
    // Clear: the views show an empty recording, every view still draws.
    h.get_by_label("Clear").click();
    step_until(&mut h, "the cleared recording", &|app| {
        shown_frames(app) == 0
    });
    for key in [
        egui::Key::Num2,
        egui::Key::Num3,
        egui::Key::Num4,
        egui::Key::Num1,
    ] {
        h.key_press(key);
        h.run_steps(2);
    }
    assert_eq!(h.state().live().unwrap().state().recording.frames(), 0);
    drop(app);
}

#[test]
fn retention_drops_the_oldest_frames_while_live() {
    let _guard = PROFILER.lock().unwrap_or_else(|e| e.into_inner());
    let app = ProfiledApp::start();
    let port = app.port;
    let options = LiveOptions {
        retention: Retention {
            max_frames: 30,
            max_mb: 256,
        },
        ..Default::default()
    };
    let client = LiveClient::start(&format!("127.0.0.1:{port}"), options, || {}).unwrap();
    wait_for("frames past the limit", || {
        client.state().recording.received_frames >= 80
    });
    let state = client.state();
    let rec = &state.recording;
    assert!(rec.frames() <= 30 && rec.frames() >= 27, "{}", rec.frames());
    assert!(rec.dropped_frames >= 50);
    let t = rec.snapshot().trace;
    // The newest frames, consecutive, names intact.
    let idx = &t.frames.frame_index;
    assert!(idx.windows(2).all(|w| w[1] == w[0] + 1), "{idx:?}");
    assert!(t.defs.kind.iter().all(|k| k.is_registered()));
    let saved = engine::load(&rec.to_puffin()).unwrap();
    assert_eq!(
        export_string(&saved.trace, "x", false),
        export_string(&t, "x", false)
    );
}

/// A server on 127.0.0.1 that writes `bytes` to its first client, then
/// closes the connection (or keeps it open for `hold`).
fn fake_server(bytes: Vec<u8>, hold: Duration) -> (u16, std::thread::JoinHandle<()>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let t = std::thread::spawn(move || {
        if let Ok((mut s, _)) = listener.accept() {
            let _ = s.write_all(&bytes);
            let _ = s.flush();
            std::thread::sleep(hold);
        }
    });
    (port, t)
}

/// puffin_http messages (version 2) of a synthetic capture.
fn messages(frames: usize) -> Vec<Vec<u8>> {
    synthetic_capture(frames, 1, 30)
        .iter()
        .map(|f| {
            let mut m = 2u16.to_le_bytes().to_vec();
            write_frame(&mut m, f, Format::Pfd4(Compression::Lz4));
            m
        })
        .collect()
}

fn record_from(bytes: Vec<u8>, extra: &[&str]) -> (std::process::Output, Option<Vec<u8>>) {
    let (port, t) = fake_server(bytes, Duration::from_millis(0));
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("x.puffin");
    let addr = format!("127.0.0.1:{port}");
    let mut args = vec!["record", addr.as_str(), "-o", out.to_str().unwrap()];
    args.extend_from_slice(extra);
    let result = run(&args);
    let _ = t.join();
    (result, std::fs::read(&out).ok())
}

#[test]
fn record_names_what_is_wrong_with_a_server() {
    // Not profiling, but free ports must not be taken meanwhile.
    let _guard = PROFILER.lock().unwrap_or_else(|e| e.into_inner());
    // Usage errors.
    for bad in [
        &["--frames", "0"][..],
        &["--seconds", "nan"],
        &["--seconds", "0"],
    ] {
        let mut args = vec!["record", "127.0.0.1:1", "-o", "x.puffin"];
        args.extend_from_slice(bad);
        let result = run(&args);
        assert_eq!(code(&result), 2, "{bad:?}: {}", stderr(&result));
    }
    // Nothing listens.
    let port = free_port();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("x.puffin");
    let result = run(&[
        "record",
        &format!("127.0.0.1:{port}"),
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code(&result), 1);
    let err = stderr(&result);
    assert!(
        err.contains("cannot connect") && err.contains("nothing saved"),
        "{err}"
    );
    assert!(!out.exists());

    // A newer protocol with records we do not know.
    let (result, saved) = record_from([9, 0, b'P', b'F', b'D', b'7', 1, 0, 0, 0, 0].to_vec(), &[]);
    assert_eq!(code(&result), 1);
    let err = stderr(&result);
    assert!(
        err.contains("protocol version 9") && err.contains("versions 1 to 2"),
        "{err}"
    );
    assert!(saved.is_none());

    // Not puffin_http.
    let (result, _) = record_from(b"SSH-2.0-OpenSSH_9.2\r\n".to_vec(), &[]);
    assert_eq!(code(&result), 1);
    assert!(
        stderr(&result).contains("not a puffin_http stream"),
        "{}",
        stderr(&result)
    );

    // A record claiming 4 GB: refused, nothing allocated for it.
    let (result, _) = record_from(
        [2, 0, b'P', b'F', b'D', b'4', 0xff, 0xff, 0xff, 0xfe].to_vec(),
        &[],
    );
    assert_eq!(code(&result), 1);
    assert!(
        stderr(&result).contains("more than the limit"),
        "{}",
        stderr(&result)
    );

    // Cut in the middle of the fourth record: the three before are saved.
    let m = messages(4);
    let mut bytes: Vec<u8> = m[..3].concat();
    bytes.extend_from_slice(&m[3][..m[3].len() / 2]);
    let (result, saved) = record_from(bytes, &[]);
    assert_eq!(code(&result), 3, "{}", stderr(&result));
    assert!(
        stderr(&result).contains("in the middle of a frame record"),
        "{}",
        stderr(&result)
    );
    let saved = engine::load(&saved.expect("saved")).unwrap();
    assert_eq!(saved.trace.frames.len(), 3);

    // The app closes the connection after two frames: a clean end.
    let (result, saved) = record_from(messages(2).concat(), &[]);
    assert_eq!(code(&result), 0, "{}", stderr(&result));
    assert_eq!(engine::load(&saved.unwrap()).unwrap().trace.frames.len(), 2);

    // Connected, but no frame comes: --seconds ends it, nothing saved.
    let (port, t) = fake_server(Vec::new(), Duration::from_secs(3));
    let result = run(&[
        "record",
        &format!("127.0.0.1:{port}"),
        "-o",
        out.to_str().unwrap(),
        "--seconds",
        "0.5",
    ]);
    let _ = t.join();
    assert_eq!(code(&result), 1);
    assert!(
        stderr(&result).contains("no frame arrived"),
        "{}",
        stderr(&result)
    );
    assert!(!out.exists());
}

/// A running `puffin-lens relay`: its stderr collected, killed on drop.
struct Relay {
    child: std::process::Child,
    log: Arc<Mutex<String>>,
    port: u16,
}

impl Relay {
    fn start(app_port: u16, extra: &[&str]) -> Self {
        use std::io::BufRead as _;
        let port = free_port();
        let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_puffin-lens"))
            .args(["relay", &format!("127.0.0.1:{app_port}")])
            .args(["--listen", &format!("127.0.0.1:{port}")])
            .args(extra)
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("the relay starts");
        let log = Arc::new(Mutex::new(String::new()));
        let stderr = child.stderr.take().unwrap();
        let l = log.clone();
        std::thread::spawn(move || {
            for line in std::io::BufReader::new(stderr)
                .lines()
                .map_while(Result::ok)
            {
                l.lock().unwrap().push_str(&(line + "\n"));
            }
        });
        let relay = Self { child, log, port };
        wait_for("the relay to listen", || relay.log().contains("relaying"));
        relay
    }

    fn log(&self) -> String {
        self.log.lock().unwrap().clone()
    }

    /// Opens a WebSocket handshake with these headers; returns the HTTP
    /// status and what arrives after it until the connection closes, a
    /// frame of the app arrives or `listen` has passed.
    fn handshake(&self, host: &str, origin: Option<&str>, listen: Duration) -> (u16, Vec<u8>) {
        use std::io::Read as _;
        let mut s = std::net::TcpStream::connect(("127.0.0.1", self.port)).unwrap();
        let origin = origin.map_or(String::new(), |o| format!("Origin: {o}\r\n"));
        write!(
            s,
            "GET / HTTP/1.1\r\nHost: {host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\
             Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n{origin}\r\n"
        )
        .unwrap();
        s.set_read_timeout(Some(Duration::from_millis(100)))
            .unwrap();
        let mut got = Vec::new();
        let until = Instant::now() + listen;
        let mut buf = [0u8; 65536];
        while Instant::now() < until {
            match s.read(&mut buf) {
                Ok(0) => break, // closed
                Ok(n) => got.extend_from_slice(&buf[..n]),
                Err(_) => {}
            }
            let head_end = got.windows(4).position(|w| w == b"\r\n\r\n");
            if head_end.is_some_and(|p| has_binary_message(&got[p + 4..])) {
                break;
            }
        }
        let text = String::from_utf8_lossy(&got[..got.len().min(12)]).into_owned();
        let status = text
            .strip_prefix("HTTP/1.1 ")
            .and_then(|t| t.get(..3))
            .and_then(|c| c.parse().ok())
            .unwrap_or_else(|| panic!("no HTTP status: {text:?}"));
        let head_end = got
            .windows(4)
            .position(|w| w == b"\r\n\r\n")
            .map_or(got.len(), |p| p + 4);
        (status, got.split_off(head_end))
    }
}

impl Drop for Relay {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Whether `bytes`, read from the relay after its 101, hold a binary
/// WebSocket message (a frame of the app): walks the server's frames
/// (RFC 6455: unmasked; 7-bit, 16-bit or 64-bit lengths).
fn has_binary_message(mut bytes: &[u8]) -> bool {
    while bytes.len() >= 2 {
        let opcode = bytes[0] & 0x0f;
        let (len, header) = match bytes[1] & 0x7f {
            126 if bytes.len() >= 4 => (u16::from_be_bytes([bytes[2], bytes[3]]) as usize, 4),
            127 if bytes.len() >= 10 => (
                u64::from_be_bytes(bytes[2..10].try_into().unwrap()) as usize,
                10,
            ),
            126 | 127 => return false,
            n => (n as usize, 2),
        };
        if opcode == 2 {
            return true;
        }
        bytes = bytes.get(header + len..).unwrap_or_default();
    }
    false
}

#[test]
fn the_relay_streams_only_to_pages_of_the_app() {
    let _profiler = PROFILER.lock().unwrap_or_else(|e| e.into_inner());
    let app = ProfiledApp::start();
    let app_port = app.port;
    let relay = Relay::start(app_port, &["--allow-origin", "https://Tools.Example.com/"]);
    assert!(
        relay
            .log()
            .contains("localhost and https://tools.example.com may connect"),
        "{}",
        relay.log()
    );
    let host = format!("127.0.0.1:{}", relay.port);
    let stream_for = Duration::from_secs(3);

    // A page of another site: 403, one log line naming it, nothing streamed.
    let (status, body) = relay.handshake(&host, Some("http://evil.example"), stream_for);
    assert_eq!(status, 403);
    let body = String::from_utf8_lossy(&body);
    assert!(
        body.contains("origin http://evil.example is not allowed"),
        "{body}"
    );
    assert!(body.len() < 300, "only the reason: {body}");
    wait_for("the refusal logged", || relay.log().contains("refused"));
    let log = relay.log();
    assert_eq!(log.matches("refused").count(), 1, "{log}");
    assert!(
        log.contains("origin http://evil.example is not allowed"),
        "{log}"
    );

    // A DNS-rebinding page: Host names another site on the loopback listener.
    let (status, body) =
        relay.handshake("evil.example:8586", Some("http://evil.example"), stream_for);
    assert_eq!(status, 403);
    assert!(String::from_utf8_lossy(&body).contains("Host \"evil.example:8586\""));
    let (status, _) = relay.handshake("evil.example", None, stream_for);
    assert_eq!(status, 403, "Host is checked without an Origin too");

    // The app's own pages (served here, on any port) and the allowed origin:
    // the app's frames arrive.
    for origin in [
        Some("http://127.0.0.1:8080"),
        Some("http://localhost:1234"),
        Some("https://tools.example.com"),
        None,
    ] {
        let (status, stream) = relay.handshake(&host, origin, stream_for);
        assert_eq!(status, 101, "{origin:?}");
        assert!(
            has_binary_message(&stream),
            "{origin:?}: no frame streamed ({} bytes)",
            stream.len()
        );
    }
    assert_eq!(relay.log().matches("refused").count(), 3, "{}", relay.log());
}

#[test]
fn the_relay_refuses_a_wildcard_origin() {
    let out = run(&["relay", "--allow-origin", "*"]);
    assert_eq!(code(&out), 2);
    assert!(stderr(&out).contains("every web page"), "{}", stderr(&out));
    let out = run(&["relay", "--allow-origin", "https://tools.example.com/app"]);
    assert_eq!(code(&out), 2);
    assert!(stderr(&out).contains("no path"), "{}", stderr(&out));
}
