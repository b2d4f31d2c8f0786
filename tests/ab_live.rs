//! `puffin-lens ab --addr`: each run's app serves puffin_http; the tool
//! waits until it listens, skips the warm-up, records the frames asked for
//! and stops it. Apart from tests/ab.rs: puffin's profiler is one per
//! process, and this app's frames must not reach the planted recordings.

mod common;

use common::{code, run_in, stderr};
use serde_json::Value;

/// A free port on the loopback (nothing listens on it once returned).
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port()
}

#[test]
fn an_app_serving_puffin_http_is_recorded_run_by_run_and_stopped() {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};
    // The app: this process's own profiler and puffin_http server on the
    // real clock; each run's command (`sleep`) stands for starting it, and
    // the tool stops it (its process group) once the run is recorded.
    puffin::set_scopes_on(true);
    let port = free_port();
    let _server = puffin_http::Server::new(&format!("127.0.0.1:{port}")).unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let running = stop.clone();
    let app = std::thread::spawn(move || {
        while !running.load(Ordering::SeqCst) {
            {
                puffin::profile_scope!("frame_body");
                puffin::profile_scope!("update");
                std::thread::sleep(std::time::Duration::from_millis(1));
            }
            puffin::GlobalProfiler::lock().new_frame();
            std::thread::sleep(std::time::Duration::from_millis(2));
        }
    });
    let dir = tempfile::tempdir().unwrap();
    let addr = format!("127.0.0.1:{port}");
    let out = run_in(
        dir.path(),
        &[
            "ab", "--a", "sleep 30", "--b", "sleep 30", "--addr", &addr, "--frames", "20",
            "--warmup", "3", "--runs", "1", "--out", "runs", "--format", "json",
        ],
    );
    stop.store(true, Ordering::SeqCst);
    app.join().unwrap();
    assert!(matches!(code(&out), 0 | 5), "{}", stderr(&out));
    let manifest = common::manifest(&dir.path().join("runs"));
    for (r, file) in manifest["runs"]
        .as_array()
        .unwrap()
        .iter()
        .zip(["a1", "b1"])
    {
        // Stopped by the tool, well before its 30 s: no exit status.
        assert!(r["exit_code"].is_null(), "{r}");
        assert!(r["duration_ms"].as_u64().unwrap() < 20_000, "{r}");
        let bytes = std::fs::read(dir.path().join("runs").join(format!("{file}.puffin"))).unwrap();
        let d = puffin_lens::engine::load(&bytes).unwrap();
        assert_eq!(d.trace.frames.len(), 20, "{file}");
    }
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["comparison"]["frames_a"], 20);
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
