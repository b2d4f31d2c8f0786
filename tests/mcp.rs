//! `puffin-lens mcp` driven by real MCP clients: the official Python SDK
//! (tests/mcp_client.py: a whole investigation of the planted before/after
//! pair, its answers checked against the CLI's `--json`; bad arguments,
//! a damaged file, a hostile recording and a huge one) and the MCP
//! inspector's CLI (web/node_modules, listing the tools); and a client that
//! leaves in the middle of a call, by hand over the raw protocol.
//!
//! The Python SDK (`pip install mcp`) and the inspector (`npm ci` in web/)
//! are installed by scripts/setup.sh: without them these tests fail and say
//! so, as the DuckDB check of tests/parquet.rs does.

mod common;

use common::hostile::hostile_capture;
use common::planted;
use puffin_lens::engine::write::puffin::{
    Compression, Format, FrameData, Registration, ScopeNode, ThreadData, write_recording,
};
use serde_json::{Value, json};
use std::io::BufRead as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_puffin-lens");

fn manifest_dir() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The Python SDK is importable, or the test fails saying how to get it.
fn require_python_mcp() {
    let ok = Command::new("python3")
        .args(["-c", "import mcp.client.stdio"])
        .output()
        .is_ok_and(|o| o.status.success());
    assert!(
        ok,
        "the Python MCP SDK is missing (python3 -c 'import mcp' fails): run scripts/setup.sh \
         --browser (it runs pip install mcp)"
    );
}

/// A recording of `frames` frames whose answers are huge: per frame one
/// root with 5000 children (1000 names, each data string unique), half of
/// them `hot` (50k calls of one name), 0.01 ms gaps between them.
fn huge_recording(frames: u64) -> Vec<u8> {
    const MS: i64 = 1_000_000;
    const T0: i64 = 1_700_000_000_000_000_000;
    let names = 1000u32;
    let mut regs: Vec<Registration> = (0..names)
        .map(|i| Registration::named(i + 2, &format!("work::n{i}"), "f", "src/work.rs", i))
        .collect();
    regs.push(Registration::named(1, "frame", "frame", "src/main.rs", 1));
    regs.push(Registration::named(5000, "hot", "hot", "src/hot.rs", 2));
    let frames: Vec<FrameData> = (0..frames)
        .map(|f| {
            let t = T0 + f as i64 * 100 * MS;
            let mut at = t;
            let mut root = ScopeNode::new(1, t, t);
            for i in 0..5000u32 {
                let (id, len) = if i % 2 == 0 {
                    (5000, 5_000)
                } else {
                    ((i / 2) % names + 2, 8_000 + i as i64)
                };
                at += 10_000;
                root = root.child(
                    ScopeNode::new(id, at, at + len)
                        .data(&format!("data {f}-{i} {}", "x".repeat(40))),
                );
                at += len;
            }
            root.stop_ns = at + MS;
            FrameData {
                frame_index: f,
                threads: vec![ThreadData {
                    name: "main".to_owned(),
                    start_time_ns: Some(T0),
                    scopes: vec![root],
                }],
                registrations: if f == 0 { regs.clone() } else { Vec::new() },
            }
        })
        .collect();
    write_recording(&frames, Format::Pfd4(Compression::Lz4))
}

/// puffin's profiler is one per process: the planted captures and the
/// live app of `record` take turns.
static PUFFIN: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// The planted pair, a damaged copy of B, a file that is not a recording,
/// the hostile pair and a huge recording, in one temp dir.
fn recordings() -> (tempfile::TempDir, Vec<(&'static str, PathBuf)>) {
    let dir = {
        let _turn = PUFFIN.lock().unwrap_or_else(|p| p.into_inner());
        planted::jobs_pair(11, 12)
    };
    let d = dir.path().to_owned();
    let b = std::fs::read(d.join("b.puffin")).unwrap();
    std::fs::write(d.join("damaged.puffin"), &b[..b.len() * 3 / 5]).unwrap();
    std::fs::write(
        d.join("notes.puffin"),
        b"these are my notes, not a recording",
    )
    .unwrap();
    std::fs::write(
        d.join("hostile-a.puffin"),
        write_recording(&hostile_capture(false), Format::Pfd4(Compression::Lz4)),
    )
    .unwrap();
    std::fs::write(
        d.join("hostile-b.puffin"),
        write_recording(&hostile_capture(true), Format::Pfd4(Compression::Zstd)),
    )
    .unwrap();
    std::fs::write(d.join("huge.puffin"), huge_recording(20)).unwrap();
    let files = [
        "a.puffin",
        "b.puffin",
        "damaged.puffin",
        "notes.puffin",
        "hostile-a.puffin",
        "hostile-b.puffin",
        "huge.puffin",
    ]
    .map(|f| (f, d.join(f)))
    .to_vec();
    (dir, files)
}

#[test]
fn the_python_sdk_runs_a_whole_investigation_and_every_answer_is_the_clis() {
    require_python_mcp();
    let (dir, files) = recordings();
    let config = json!({
        "bin": BIN,
        "files": files.iter().map(|(k, p)| (k.to_string(), json!(p))).collect::<serde_json::Map<_, _>>(),
        "agents_md": manifest_dir().join("docs/agents.md"),
    });
    let out = Command::new("python3")
        .arg(manifest_dir().join("tests/mcp_client.py"))
        .arg(config.to_string())
        .current_dir(dir.path())
        .output()
        .expect("python3 runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    // The script's measurements (sizes, times), for the record.
    print!("{stdout}");
    assert!(
        out.status.success(),
        "tests/mcp_client.py failed:\n{stdout}\n{stderr}"
    );
    assert!(stdout.contains("all checks passed"), "{stdout}\n{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}

#[test]
fn the_inspector_cli_lists_the_tools() {
    let inspector = manifest_dir().join("web/node_modules/.bin/mcp-inspector");
    assert!(
        inspector.exists(),
        "the MCP inspector is missing ({}): run scripts/setup.sh (npm ci in web/)",
        inspector.display()
    );
    let out = Command::new(&inspector)
        .args(["--cli", BIN, "mcp", "--method", "tools/list"])
        .stdin(Stdio::null())
        .output()
        .expect("the inspector runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let listed: Value = serde_json::from_str(&stdout).expect("the inspector prints JSON");
    let mut names: Vec<&str> = listed["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    names.sort_unstable();
    assert_eq!(
        names,
        [
            "calls",
            "children",
            "close_recording",
            "compare",
            "gaps",
            "open_recording",
            "pacing",
            "query",
            "record",
            "report",
            "scope",
            "tree",
            "window"
        ]
    );
    for tool in listed["tools"].as_array().unwrap() {
        assert_eq!(tool["inputSchema"]["type"], "object", "{tool}");
        let description = tool["description"].as_str().unwrap();
        assert!(description.len() > 80, "{description}");
    }
}

fn send(stdin: &mut impl std::io::Write, message: &Value) {
    // The server may be gone already: that is what the test is about.
    let _ = writeln!(stdin, "{message}");
    let _ = stdin.flush();
}

/// Starts `puffin-lens mcp` and initializes the session by hand.
fn start_raw() -> (
    std::process::Child,
    std::process::ChildStdin,
    std::io::BufReader<std::process::ChildStdout>,
) {
    let mut child = Command::new(BIN)
        .arg("mcp")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("puffin-lens mcp starts");
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = std::io::BufReader::new(child.stdout.take().unwrap());
    send(
        &mut stdin,
        &json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "raw", "version": "0"}}}),
    );
    let mut line = String::new();
    stdout.read_line(&mut line).unwrap();
    let init: Value = serde_json::from_str(&line).expect("a JSON-RPC message");
    assert_eq!(init["id"], 1, "{init}");
    assert_eq!(
        init["result"]["serverInfo"]["name"], "puffin-lens",
        "{init}"
    );
    send(
        &mut stdin,
        &json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    );
    (child, stdin, stdout)
}

/// Waits at most `limit` for `child` to exit.
fn wait_exit(child: &mut std::process::Child, limit: Duration) -> std::process::ExitStatus {
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            panic!("puffin-lens mcp did not exit within {limit:?} of stdin closing");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn a_client_that_leaves_in_the_middle_of_a_call_ends_the_server_cleanly() {
    let dir = tempfile::tempdir().unwrap();
    let huge = dir.path().join("huge.puffin");
    std::fs::write(&huge, huge_recording(40)).unwrap();
    // Left in the middle of opening (decoding) and of a report.
    for leave_after in ["open_recording", "report"] {
        let (mut child, mut stdin, mut stdout) = start_raw();
        send(
            &mut stdin,
            &json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
                "name": "open_recording", "arguments": {"path": huge}}}),
        );
        if leave_after == "report" {
            let mut line = String::new();
            stdout.read_line(&mut line).unwrap();
            let opened: Value = serde_json::from_str(&line).unwrap();
            assert_ne!(opened["result"]["isError"], true, "{opened}");
            send(
                &mut stdin,
                &json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {
                    "name": "report", "arguments": {"a": "r1"}}}),
            );
        }
        // The client goes away: stdin closes with the call running.
        drop(stdin);
        let status = wait_exit(&mut child, Duration::from_secs(60));
        let mut rest = String::new();
        std::io::Read::read_to_string(&mut stdout, &mut rest).unwrap();
        let mut err = String::new();
        std::io::Read::read_to_string(child.stderr.as_mut().unwrap(), &mut err).unwrap();
        assert_eq!(status.code(), Some(0), "{leave_after}: {err}");
        assert!(!err.contains("panicked"), "{leave_after}: {err}");
        // Whatever it still wrote is protocol.
        for line in rest.lines() {
            let m: Value = serde_json::from_str(line).expect("stdout carries JSON-RPC only");
            assert_eq!(m["jsonrpc"], "2.0");
        }
    }
}

#[test]
fn stdout_carries_protocol_messages_only_and_bad_calls_are_tool_errors() {
    let (dir, files) = recordings();
    let path = |name: &str| files.iter().find(|(f, _)| *f == name).unwrap().1.clone();
    let (mut child, mut stdin, mut stdout) = start_raw();
    let calls = [
        json!({"name": "open_recording", "arguments": {"path": path("damaged.puffin")}}),
        json!({"name": "open_recording", "arguments": {"path": path("notes.puffin")}}),
        json!({"name": "open_recording", "arguments": {"path": dir.path().join("missing.puffin")}}),
        json!({"name": "calls", "arguments": {"a": "r7", "name": "x"}}),
        json!({"name": "tree", "arguments": {"a": "r1", "transforms": ["bogus:x"]}}),
        json!({"name": "report", "arguments": {"a": "r1", "top": 0}}),
        json!({"name": "report", "arguments": {"a": 5}}),
        json!({"name": "window", "arguments": {"a": "r1", "lo": "soon", "hi": 1}}),
    ];
    for (i, call) in calls.iter().enumerate() {
        send(
            &mut stdin,
            &json!({"jsonrpc": "2.0", "id": 10 + i, "method": "tools/call", "params": call}),
        );
    }
    drop(stdin);
    let mut answers = Vec::new();
    let mut line = String::new();
    while stdout.read_line(&mut line).unwrap() > 0 {
        let m: Value = serde_json::from_str(&line).expect("stdout carries JSON-RPC only");
        assert_eq!(m["jsonrpc"], "2.0", "{m}");
        answers.push(m);
        line.clear();
    }
    let status = wait_exit(&mut child, Duration::from_secs(60));
    assert_eq!(status.code(), Some(0));
    answers.sort_by_key(|m| m["id"].as_u64());
    assert_eq!(answers.len(), calls.len(), "{answers:?}");
    let text = |m: &Value| {
        m["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .to_owned()
    };
    // The damaged file opens with what was kept, and says so.
    let damaged = &answers[0];
    assert_ne!(damaged["result"]["isError"], true, "{damaged}");
    let opened: Value = serde_json::from_str(&text(damaged)).unwrap();
    assert_eq!(opened["summary"]["damaged"], true);
    assert!(opened["notes"].to_string().contains("damaged"), "{opened}");
    for (m, says) in answers[1..].iter().zip([
        "notes.puffin",
        "cannot read",
        "unknown recording id \"r7\"",
        "bogus",
        "top",
        "a: expected an id",
        "lo",
    ]) {
        assert_eq!(m["result"]["isError"], true, "{m}");
        let t = text(m);
        assert!(t.contains(says), "{t:?} should say {says:?}");
        assert!(!t.contains('\n'), "one line: {t:?}");
    }
}

#[test]
fn record_captures_a_running_app_and_opens_it() {
    let _turn = PUFFIN.lock().unwrap_or_else(|p| p.into_inner());
    // An app instrumented with puffin, serving its frames with puffin_http.
    puffin::set_scopes_on(true);
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .unwrap()
        .port();
    let server = puffin_http::Server::new(&format!("127.0.0.1:{port}")).expect("serves");
    puffin::GlobalProfiler::lock().emit_scope_snapshot();
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let app = {
        let stop = stop.clone();
        std::thread::Builder::new()
            .name("main".into())
            .spawn(move || {
                while !stop.load(std::sync::atomic::Ordering::SeqCst) {
                    {
                        puffin::profile_scope!("frame_body");
                        puffin::profile_scope!("update");
                        std::thread::sleep(Duration::from_millis(1));
                    }
                    puffin::GlobalProfiler::lock().new_frame();
                    std::thread::sleep(Duration::from_millis(2));
                }
            })
            .unwrap()
    };
    let dir = tempfile::tempdir().unwrap();
    let saved = dir.path().join("run.puffin");
    let (mut child, mut stdin, mut stdout) = start_raw();
    send(
        &mut stdin,
        &json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
            "name": "record", "arguments": {"addr": format!("127.0.0.1:{port}"), "frames": 20,
            "output": saved}}}),
    );
    let mut line = String::new();
    stdout.read_line(&mut line).unwrap();
    send(
        &mut stdin,
        &json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {
            "name": "calls", "arguments": {"a": "r1", "name": "update"}}}),
    );
    let mut calls = String::new();
    stdout.read_line(&mut calls).unwrap();
    drop(stdin);
    assert_eq!(
        wait_exit(&mut child, Duration::from_secs(30)).code(),
        Some(0)
    );
    stop.store(true, std::sync::atomic::Ordering::SeqCst);
    app.join().unwrap();
    drop(server);
    let recorded: Value = serde_json::from_str(&line).unwrap();
    assert_ne!(recorded["result"]["isError"], true, "{recorded}");
    let opened: Value =
        serde_json::from_str(recorded["result"]["content"][0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(opened["id"], "r1", "{opened}");
    assert_eq!(opened["summary"]["frames"], 20, "{opened}");
    assert!(saved.exists(), "output saves the recording");
    let calls: Value = serde_json::from_str(&calls).unwrap();
    let calls: Value =
        serde_json::from_str(calls["result"]["content"][0]["text"].as_str().unwrap()).unwrap();
    assert!(calls["summary"]["count"].as_u64().unwrap() >= 19, "{calls}");
}
