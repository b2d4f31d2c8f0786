//! `puffin-lens ab --addr`: each run's app serves puffin_http; the tool
//! waits until it listens, skips the warm-up, records the frames asked for
//! and stops it. Apart from tests/ab.rs: puffin's profiler is one per
//! process, and this app's frames must not reach the planted recordings.

mod common;

use common::{code, example_app as ab_app, free_port, run_in, stderr};
use serde_json::Value;

/// `ab` on the example app, A against B (`plant`), two pairs of short runs
/// with the gate at 2%: its exit status, stderr and the JSON report.
fn session(dir: &std::path::Path, plant: &str) -> (i32, String, Value) {
    let addr = format!("127.0.0.1:{}", free_port());
    let (a, b) = (ab_app(&addr, ""), ab_app(&addr, plant));
    let out = run_in(
        dir,
        &[
            "ab",
            "--a",
            &a,
            "--b",
            &b,
            "--addr",
            &addr,
            "--frames",
            "20",
            "--warmup",
            "3",
            "--runs",
            "2",
            "--out",
            "runs",
            "--format",
            "json",
            "--fail-on-regression",
            "2",
        ],
    );
    let report = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
    (code(&out), stderr(&out), report)
}

#[test]
fn the_example_app_against_itself_is_recorded_run_by_run_and_never_fails() {
    let dir = tempfile::tempdir().unwrap();
    let (status, err, report) = session(dir.path(), "");
    assert!(matches!(status, 0 | 5), "{status}: {err}");
    let manifest = common::manifest(&dir.path().join("runs"));
    for (r, file) in manifest["runs"]
        .as_array()
        .unwrap()
        .iter()
        .zip(["a1", "b1", "b2", "a2"])
    {
        // Stopped by the tool (the app runs until killed): no exit status.
        assert!(r["exit_code"].is_null(), "{r}");
        let bytes = std::fs::read(dir.path().join("runs").join(format!("{file}.puffin"))).unwrap();
        let d = puffin_lens::engine::load(&bytes).unwrap();
        assert_eq!(d.trace.frames.len(), 20, "{file}");
    }
    let c = &report["comparison"];
    assert_eq!(c["noise"]["model"], "paired-runs", "{}", c["noise"]);
    // The folder judged again: the same comparison.
    let again = run_in(
        dir.path(),
        &[
            "report",
            "runs",
            "--format",
            "json",
            "--fail-on-regression",
            "2",
        ],
    );
    assert_eq!(code(&again), status, "{}", stderr(&again));
    let again: Value = serde_json::from_slice(&again.stdout).unwrap();
    assert_eq!(again["comparison"], report["comparison"]);
}

#[test]
fn the_example_app_calling_a_scope_twice_a_frame_runs_more_often() {
    let dir = tempfile::tempdir().unwrap();
    let (status, err, report) = session(dir.path(), "--plant more-often");
    // Calls are the program's: said whether or not two short pairs of a
    // debug build tell its time per frame apart.
    let c = &report["comparison"];
    let changed = (c["rows"].as_array().unwrap().iter())
        .find(|r| r["name"] == "ai::plan")
        .map(|r| &r["change"]);
    let said = (c["calls_changed"].as_array().unwrap().iter()).find(|r| r["name"] == "ai::plan");
    let plan = changed
        .or(said)
        .unwrap_or_else(|| panic!("{status}: {err}\n{:#}", c["calls_changed"]));
    assert_eq!(plan["calls_per_frame_a"], 1.0, "{plan:#}");
    assert_eq!(plan["calls_per_frame_b"], 2.0, "{plan:#}");
    assert_eq!(plan["calls"], "more-often", "{plan:#}");
    assert!(matches!(status, 4 | 5), "{status}: {err}");
}

#[test]
fn a_port_in_use_or_an_app_that_hangs_is_named_and_the_session_stops() {
    let dir = tempfile::tempdir().unwrap();
    // Something else listens at the address: it would be recorded in the
    // run's place.
    let other = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = other.local_addr().unwrap().to_string();
    let app = ab_app(&addr, "");
    let args = |a: &str| -> Vec<String> {
        [
            "ab", "--a", a, "--b", a, "--addr", &addr, "--runs", "1", "--out", "runs", "--force",
        ]
        .iter()
        .map(|s| s.to_string())
        .chain(["--start-timeout".into(), "1".into()])
        .collect()
    };
    let run = |a: &str| {
        let args = args(a);
        run_in(
            dir.path(),
            &args.iter().map(String::as_str).collect::<Vec<_>>(),
        )
    };
    let out = run(&app);
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("run 1 of 2 (a1)") && stderr(&out).contains("in use"),
        "{}",
        stderr(&out)
    );
    drop(other);
    // An app that accepts the connection and never sends a frame: stopped
    // after --start-timeout without one, named.
    let port = addr.rsplit(':').next().unwrap();
    let hangs = format!(
        "python3 -c 'import socket, time; s = socket.socket(); \
         s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); s.bind((\"127.0.0.1\", {port})); \
         s.listen(); c = s.accept(); time.sleep(60)'"
    );
    let started = std::time::Instant::now();
    let out = run(&hangs);
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    assert!(started.elapsed().as_secs() < 30, "{:?}", started.elapsed());
    let err = stderr(&out);
    assert!(
        err.contains("run 1 of 2 (a1)") && err.contains("no frame"),
        "{err}"
    );
}

#[test]
fn an_app_that_never_serves_is_named_and_stopped() {
    let dir = tempfile::tempdir().unwrap();
    let addr = format!("127.0.0.1:{}", free_port());
    let ab = |a: &str, timeout: &str| {
        run_in(
            dir.path(),
            &[
                "ab",
                "--a",
                a,
                "--b",
                "sleep 30",
                "--addr",
                &addr,
                "--runs",
                "1",
                "--out",
                "runs",
                "--force",
                "--start-timeout",
                timeout,
            ],
        )
    };
    // Exits before serving.
    let out = ab("exit 2", "10");
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("run 1 of 2 (a1)") && err.contains("before serving"),
        "{err}"
    );
    // Never serves: stopped at the time-out, named.
    let started = std::time::Instant::now();
    let out = ab("sleep 30", "0.5");
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    assert!(started.elapsed().as_secs() < 10);
    let err = stderr(&out);
    assert!(
        err.contains("did not serve") && err.contains("--start-timeout"),
        "{err}"
    );
    let manifest = common::manifest(&dir.path().join("runs"));
    assert!(manifest["runs"][0]["exit_code"].is_null());
}

#[test]
fn ctrl_c_stops_the_running_app_and_keeps_the_finished_runs() {
    let dir = tempfile::tempdir().unwrap();
    let addr = format!("127.0.0.1:{}", free_port());
    let app = ab_app(&addr, "");
    let ab = std::process::Command::new(env!("CARGO_BIN_EXE_puffin-lens"))
        .args([
            "ab", "--a", &app, "--b", &app, "--addr", &addr, "--frames", "20", "--warmup", "2",
            "--runs", "50", "--out", "runs",
        ])
        .current_dir(dir.path())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Two runs finished (a pair), the third one's app serving: interrupt.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
    let manifest = dir.path().join("runs/manifest.json");
    loop {
        assert!(std::time::Instant::now() < deadline, "no two runs in 120 s");
        let recorded = std::fs::read_to_string(&manifest)
            .ok()
            .and_then(|t| serde_json::from_str::<Value>(&t).ok())
            .map_or(0, |m| {
                m["runs"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .filter(|r| r["recorded"] == true)
                    .count()
            });
        if recorded >= 2 && std::net::TcpStream::connect(&addr).is_ok() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let pid = ab.id().to_string();
    assert!(
        std::process::Command::new("kill")
            .args(["-INT", &pid])
            .status()
            .unwrap()
            .success()
    );
    let out = ab.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{err}");
    assert!(err.contains("interrupted") && err.contains("kept"), "{err}");
    // The app it had started is stopped: nothing serves any more.
    std::thread::sleep(std::time::Duration::from_millis(700));
    assert!(
        std::net::TcpStream::connect(&addr).is_err(),
        "the app still serves"
    );
    // The finished runs are judged as the pairs they are.
    let again = run_in(dir.path(), &["report", "runs", "--format", "json"]);
    assert_eq!(code(&again), 0, "{}", stderr(&again));
    let report: Value = serde_json::from_slice(&again.stdout).unwrap();
    assert!(report["comparison"]["noise"]["runs"][0].as_u64().unwrap() >= 1);
}

#[test]
fn two_apps_already_running_are_recorded_alternately_and_left_running() {
    let dir = tempfile::tempdir().unwrap();
    let (addr_a, addr_b) = (
        format!("127.0.0.1:{}", free_port()),
        format!("127.0.0.1:{}", free_port()),
    );
    let _a = common::Started::serving(&ab_app(&addr_a, ""), &addr_a);
    let _b = common::Started::serving(&ab_app(&addr_b, "--plant more-often"), &addr_b);
    let args = |a: &str, b: &str| {
        [
            "ab", "--attach", "--a", a, "--b", b, "--frames", "20", "--warmup", "3", "--runs", "2",
            "--out", "runs", "--format", "json",
        ]
        .map(str::to_owned)
    };
    // One app twice is no A/B session.
    let same = run_in(
        dir.path(),
        &args(&addr_a, &addr_a).each_ref().map(|s| s.as_str()),
    );
    assert_eq!(code(&same), 2, "{}", stderr(&same));
    assert!(
        stderr(&same).contains("are the same address"),
        "{}",
        stderr(&same)
    );
    let out = run_in(
        dir.path(),
        &args(&addr_a, &addr_b).each_ref().map(|s| s.as_str()),
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let manifest = common::manifest(&dir.path().join("runs"));
    for (r, (file, addr)) in manifest["runs"].as_array().unwrap().iter().zip([
        ("a1", &addr_a),
        ("b1", &addr_b),
        ("b2", &addr_b),
        ("a2", &addr_a),
    ]) {
        // Recorded from the address; nothing started, nothing stopped.
        assert_eq!(r["command"], addr.as_str(), "{r}");
        assert!(r["exit_code"].is_null(), "{r}");
        assert_eq!(r["recorded"], true, "{r}");
        let bytes = std::fs::read(dir.path().join("runs").join(format!("{file}.puffin"))).unwrap();
        let d = puffin_lens::engine::load(&bytes).unwrap();
        assert_eq!(d.trace.frames.len(), 20, "{file}");
    }
    // B's app calls ai::plan twice a frame: its runs say so.
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let c = &report["comparison"];
    assert_eq!(c["noise"]["model"], "paired-runs", "{}", c["noise"]);
    let plan = (c["rows"].as_array().unwrap().iter())
        .find(|r| r["name"] == "ai::plan")
        .map(|r| &r["change"])
        .or((c["calls_changed"].as_array().unwrap().iter()).find(|r| r["name"] == "ai::plan"))
        .unwrap_or_else(|| panic!("{:#}", c["calls_changed"]));
    assert_eq!(plan["calls_per_frame_a"], 1.0, "{plan:#}");
    assert_eq!(plan["calls_per_frame_b"], 2.0, "{plan:#}");
    // Both apps still serve.
    assert!(std::net::TcpStream::connect(&addr_a).is_ok());
    assert!(std::net::TcpStream::connect(&addr_b).is_ok());
}
