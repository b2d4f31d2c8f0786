//! `puffin-lens ab`: builds A and B run alternately (their commands here
//! hand out planted recordings of the game loop, one per run, as a build's
//! `--record {out}` would write them), every run kept with a manifest, then
//! judged as `report A1 A2 … --vs B1 B2 …`.

mod common;

use common::planted::{self, AFTER, BEFORE};
use common::{code, json_in, run_in, stderr};
use serde_json::Value;
use std::path::Path;

/// A command that writes the next recording of `pool` (a folder of
/// `.puffin` files, taken in name order) to `{out}`: one build's run.
fn pop(pool: &str) -> String {
    format!("f=$(ls -1 {pool}/*.puffin | head -n 1) && mv \"$f\" {{out}}")
}

/// A temp dir with `runs` planted recordings a side in `pool_a` (the game
/// loop before the change) and `pool_b` (after), other seeds each run.
fn pools(runs: u64) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (pool, plan, seed) in [("pool_a", BEFORE, 100), ("pool_b", AFTER, 200)] {
        std::fs::create_dir(dir.path().join(pool)).unwrap();
        for k in 0..runs {
            let bytes = planted::record(&planted::game_loop(plan, seed + k));
            std::fs::write(dir.path().join(pool).join(format!("{k}.puffin")), bytes).unwrap();
        }
    }
    dir
}

#[test]
fn runs_alternate_are_kept_and_judged_as_report_judges_them() {
    let dir = pools(2);
    let (a, b) = (pop("pool_a"), pop("pool_b"));
    let args = ["--format", "json", "--fail-on-regression", "2"];
    let mut ab = vec!["ab", "--a", &a, "--b", &b, "--runs", "2", "--out", "runs"];
    ab.extend(args);
    let out = run_in(dir.path(), &ab);
    let status = code(&out);
    assert!(matches!(status, 4 | 5), "{status}: {}", stderr(&out));
    // A progress line per run, in the A B B A order.
    let err = stderr(&out);
    let lines: Vec<&str> = err.lines().filter(|l| l.contains("ab: run")).collect();
    assert_eq!(lines.len(), 4, "{err}");
    for (line, want) in lines.iter().zip(["A #1", "B #1", "B #2", "A #2"]) {
        assert!(line.contains(want) && line.contains("60 frames"), "{line}");
    }
    // Every run kept, with the manifest.
    let manifest = common::manifest(&dir.path().join("runs"));
    assert_eq!(manifest["order"], serde_json::json!(["a", "b", "b", "a"]));
    let runs = manifest["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 4);
    for (r, (file, side)) in runs
        .iter()
        .zip([("a1", "a"), ("b1", "b"), ("b2", "b"), ("a2", "a")])
    {
        assert_eq!(r["file"], format!("{file}.puffin"));
        assert_eq!(r["side"], side);
        assert_eq!(r["exit_code"], 0);
        assert!(
            dir.path()
                .join("runs")
                .join(format!("{file}.puffin"))
                .is_file()
        );
    }
    // The pools are used up: each run wrote its own recording.
    assert_eq!(
        std::fs::read_dir(dir.path().join("pool_a"))
            .unwrap()
            .count(),
        0
    );
    // The answer is `report`'s on the kept runs, two a side.
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let (again_status, again) = json_in(
        &dir.path().join("runs"),
        &[
            "report",
            "a1.puffin",
            "a2.puffin",
            "--vs",
            "b1.puffin",
            "b2.puffin",
            "--format",
            "json",
            "--fail-on-regression",
            "2",
        ],
    );
    assert_eq!(status, again_status);
    assert_eq!(report["comparison"], again["comparison"]);
    assert_eq!(report["comparison"]["units"], serde_json::json!([120, 120]));
}

fn failed(dir: &Path, a: &str, b: &str) -> (i32, String) {
    let out = run_in(
        dir,
        &["ab", "--a", a, "--b", b, "--runs", "2", "--out", "runs"],
    );
    (code(&out), stderr(&out))
}

#[test]
fn a_run_that_fails_is_named_and_the_runs_before_it_are_kept() {
    let dir = pools(2);
    let a = pop("pool_a");
    // B's first run exits 3: run 2 of 4.
    let (status, err) = failed(dir.path(), &a, "exit 3 # {out}");
    assert_eq!(status, 1, "{err}");
    assert!(
        err.contains("run 2 of 4 (b1)") && err.contains("failed"),
        "{err}"
    );
    let manifest = common::manifest(&dir.path().join("runs"));
    let runs = manifest["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 2);
    assert_eq!(runs[0]["exit_code"], 0);
    assert_eq!(runs[1]["exit_code"], 3);
    assert!(dir.path().join("runs/a1.puffin").is_file());
    // A command that succeeds without writing a recording.
    let dir = pools(2);
    let (status, err) = failed(dir.path(), "true {out}", &pop("pool_b"));
    assert_eq!(status, 1, "{err}");
    assert!(
        err.contains("run 1 of 4 (a1)") && err.contains("no recording"),
        "{err}"
    );
}

#[test]
fn usage_errors_are_caught_before_anything_runs() {
    let dir = pools(1);
    // A command that writes nowhere.
    let (status, err) = failed(dir.path(), "true", &pop("pool_b"));
    assert_eq!(status, 2, "{err}");
    assert!(err.contains("{out}"), "{err}");
    assert!(!dir.path().join("runs").exists());
    // An --out that holds files: refused, kept as it was; --force writes.
    std::fs::create_dir(dir.path().join("runs")).unwrap();
    std::fs::write(dir.path().join("runs/old.txt"), "keep").unwrap();
    let (status, err) = failed(dir.path(), &pop("pool_a"), &pop("pool_b"));
    assert_eq!(status, 2, "{err}");
    assert!(
        err.contains("not empty") && err.contains("--force"),
        "{err}"
    );
    assert_eq!(
        std::fs::read_dir(dir.path().join("pool_a"))
            .unwrap()
            .count(),
        1
    );
    let out = run_in(
        dir.path(),
        &[
            "ab",
            "--a",
            &pop("pool_a"),
            "--b",
            &pop("pool_b"),
            "--runs",
            "1",
            "--out",
            "runs",
            "--force",
        ],
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(dir.path().join("runs/b1.puffin").is_file());
}
