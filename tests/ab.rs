//! `puffin-lens ab`: builds A and B run alternately (their commands here
//! hand out planted recordings of the game loop, one per run, as a build's
//! `--record {out}` would write them), every run kept with a manifest, then
//! judged as `report A1 A2 … --vs B1 B2 …`.

mod common;

use common::planted::{self, AFTER, BEFORE, Plan};
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
    // The answer is `report --paired`'s on the kept runs, two a side.
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
            "--paired",
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

/// The machine's speed in each pair of runs: both builds of a pair ran at
/// it (they alternated), and it moves ±20% between pairs, as a shared
/// runner's does between minutes.
const MACHINE: [f64; 4] = [1.0, 1.22, 0.84, 1.12];

/// Pools of `MACHINE.len()` runs a side: A `a`, B `b`, run `k` of both at
/// the machine's speed `MACHINE[k]`.
fn machine_pools(a: Plan, b: Plan) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (pool, plan, seed) in [("pool_a", a, 300), ("pool_b", b, 400)] {
        std::fs::create_dir(dir.path().join(pool)).unwrap();
        for (k, scale) in MACHINE.iter().enumerate() {
            let plan = Plan {
                scale: plan.scale * scale,
                ..plan
            };
            let bytes = planted::record(&planted::game_loop(plan, seed + k as u64));
            std::fs::write(dir.path().join(pool).join(format!("{k}.puffin")), bytes).unwrap();
        }
    }
    dir
}

/// `ab` on the pools (judged paired), then the same runs judged unpaired
/// (`report A… --vs B…`): each status and comparison.
fn paired_and_not(dir: &Path) -> ((i32, Value), (i32, Value)) {
    let (a, b) = (pop("pool_a"), pop("pool_b"));
    let runs = MACHINE.len().to_string();
    let gate = ["--format", "json", "--fail-on-regression", "2"];
    let mut ab = vec!["ab", "--a", &a, "--b", &b, "--runs", &runs, "--out", "runs"];
    ab.extend(gate);
    let out = run_in(dir, &ab);
    let paired: Value = serde_json::from_slice(&out.stdout).unwrap();
    let files = |side: &'static str| (1..=MACHINE.len()).map(move |k| format!("{side}{k}.puffin"));
    let mut report: Vec<String> = vec!["report".into()];
    report.extend(files("a"));
    report.push("--vs".into());
    report.extend(files("b"));
    report.extend(gate.iter().map(|s| s.to_string()));
    let args: Vec<&str> = report.iter().map(String::as_str).collect();
    let (status, unpaired) = json_in(&dir.join("runs"), &args);
    (
        (code(&out), paired["comparison"].clone()),
        (status, unpaired["comparison"].clone()),
    )
}

/// A name's row in a comparison.
fn row<'c>(c: &'c Value, name: &str) -> &'c Value {
    c["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == name)
        .unwrap_or_else(|| panic!("{name} not in {:#}", c["rows"]))
}

#[test]
fn paired_runs_decide_a_10_percent_change_the_machine_hides_unpaired() {
    let keep = std::env::var("KEEP").is_ok();
    // `physics::solve_contacts` 10% slower per call (+0.2 ms a frame, 2%
    // of the frame's work); the machine's ±20% between pairs.
    let dir = machine_pools(
        BEFORE,
        Plan {
            solve_ms: BEFORE.solve_ms * 1.1,
            ..BEFORE
        },
    );
    let ((status, paired), (_, unpaired)) = paired_and_not(dir.path());
    if keep {
        let _ = std::fs::remove_dir_all("/tmp/paired10");
        std::fs::rename(dir.path().join("runs"), "/tmp/paired10").unwrap();
    }
    assert_eq!(
        paired["noise"]["model"], "paired-runs",
        "{:#}",
        paired["noise"]
    );
    assert_eq!(unpaired["noise"]["model"], "between-runs");
    let solve = row(&paired, "physics::solve_contacts");
    assert_eq!(solve["change"]["kind"], "slower", "{solve:#}");
    let ci = &solve["change"]["effect"]["ci_ns"];
    let (lo, hi) = (ci[0].as_f64().unwrap(), ci[1].as_f64().unwrap());
    // +0.2 ms a call at the machine's mean speed.
    let truth = 200_000.0 * MACHINE.iter().sum::<f64>() / MACHINE.len() as f64;
    assert!(lo > 0.0 && lo < truth && hi > truth, "{ci}");
    // Every other row unchanged or inconclusive, none a change.
    let changed: Vec<&Value> = (paired["rows"].as_array().unwrap().iter())
        .filter(|r| r["change"]["effect"]["verdict"] == "changed")
        .collect();
    assert!(
        changed.iter().all(|r| matches!(
            r["name"].as_str(),
            Some("physics::solve_contacts" | "physics::step" | "frame")
        )),
        "{changed:#?}"
    );
    // Unpaired, the same runs cannot tell it from the machine.
    let inconclusive = &unpaired["inconclusive"]["names"];
    assert!(
        inconclusive
            .as_array()
            .unwrap()
            .contains(&"physics::solve_contacts".into()),
        "{inconclusive}"
    );
    // 2% of the frame: the gate counts it when paired.
    assert!(matches!(status, 4 | 5), "{status}");
}

#[test]
fn paired_runs_of_the_same_code_judge_nothing_changed() {
    let dir = machine_pools(BEFORE, BEFORE);
    let ((status, paired), _) = paired_and_not(dir.path());
    assert_eq!(status, 0, "{:#}", paired["gate"]);
    let changed: Vec<&Value> = (paired["rows"].as_array().unwrap().iter())
        .filter(|r| r["change"]["effect"]["verdict"] == "changed")
        .collect();
    assert!(changed.is_empty(), "{changed:#?}");
}

#[test]
fn a_slowdown_every_name_shares_is_the_codes_when_paired_the_machines_unpaired() {
    // B 15% slower across the board (an allocator, a build flag).
    let dir = machine_pools(
        BEFORE,
        Plan {
            scale: 1.15,
            ..BEFORE
        },
    );
    let ((status, paired), (unpaired_status, unpaired)) = paired_and_not(dir.path());
    // Paired: the shift is told as the code's, every busy row is slower,
    // and the gate fails.
    assert_eq!(status, 4, "{:#}", paired["gate"]);
    assert_eq!(paired["drift_judged"], false);
    let d = &paired["drift"];
    assert!((d["pct"].as_f64().unwrap() - 15.0).abs() < 2.0, "{d:#}");
    let look = paired["look_first"].to_string();
    assert!(
        look.contains("the code's") && look.contains("alternated"),
        "{look}"
    );
    let solve = row(&paired, "physics::solve_contacts");
    assert_eq!(solve["change"]["kind"], "slower", "{solve:#}");
    // Unpaired: the same shift is taken for the machine's, judged beyond,
    // and the gate does not fail on it.
    assert_eq!(unpaired["drift_judged"], true);
    assert_ne!(unpaired_status, 4, "{:#}", unpaired["gate"]);
}

#[test]
fn a_folder_of_runs_is_judged_paired_again() {
    let dir = machine_pools(BEFORE, BEFORE);
    let ((status, paired), _) = paired_and_not(dir.path());
    let args = [
        "report",
        "runs",
        "--format",
        "json",
        "--fail-on-regression",
        "2",
    ];
    let (again_status, again) = json_in(dir.path(), &args);
    assert_eq!(status, again_status);
    assert_eq!(paired, again["comparison"]);
    // Pairs are run k of A and run k of B: as many a side.
    let out = run_in(
        &dir.path().join("runs"),
        &[
            "report",
            "a1.puffin",
            "a2.puffin",
            "--vs",
            "b1.puffin",
            "--paired",
        ],
    );
    assert_eq!(code(&out), 2, "{}", stderr(&out));
    assert!(stderr(&out).contains("as many a side"), "{}", stderr(&out));
    // A folder without a manifest.
    std::fs::remove_file(dir.path().join("runs/manifest.json")).unwrap();
    let out = run_in(dir.path(), &["report", "runs"]);
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    assert!(stderr(&out).contains("manifest.json"), "{}", stderr(&out));
}

/// Pools of `runs` a side for `--until-decided`: run `k` of both sides at
/// the machine's speed `MACHINE[k % 4]`, and `physics::solve_contacts`
/// varying ±4% of its own from run to run (a name's run-to-run spread,
/// which no pairing cancels). B's call costs `factor` times A's.
fn noisy_pools(runs: usize, factor: f64) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let mut rng = planted::Rng::new(7);
    for (pool, factor, seed) in [("pool_a", 1.0, 500), ("pool_b", factor, 600)] {
        std::fs::create_dir(dir.path().join(pool)).unwrap();
        for k in 0..runs {
            let plan = Plan {
                solve_ms: BEFORE.solve_ms * factor * (1.0 + 0.04 * rng.unit()),
                scale: MACHINE[k % MACHINE.len()],
                ..BEFORE
            };
            let bytes = planted::record(&planted::game_loop(plan, seed + k as u64));
            std::fs::write(dir.path().join(pool).join(format!("{k:03}.puffin")), bytes).unwrap();
        }
    }
    dir
}

fn until_decided(dir: &Path, max: &str, limit_pct: &str) -> (i32, String) {
    let (a, b) = (pop("pool_a"), pop("pool_b"));
    let out = run_in(
        dir,
        &[
            "ab",
            "--a",
            &a,
            "--b",
            &b,
            "--until-decided",
            "--max-runs",
            max,
            "--out",
            "runs",
            "--fail-on-regression",
            limit_pct,
            "--format",
            "json",
        ],
    );
    (code(&out), stderr(&out))
}

#[test]
fn until_decided_records_more_pairs_only_while_the_gate_is_undecided() {
    // 10% slower per call: 0.2 ms a frame against a limit of 1% (0.09 ms).
    let dir = noisy_pools(12, 1.1);
    let (status, err) = until_decided(dir.path(), "12", "1");
    assert_eq!(status, 4, "{err}");
    // Three pairs first (3 looks planned: 3, 6, 12 at most), then more.
    assert!(err.contains("after 3 pairs the gate is undecided"), "{err}");
    let last = err.lines().find(|l| l.contains("judged after")).unwrap();
    assert!(last.contains("each at alpha 0.0033"), "{last}");
    let pairs: usize = last
        .split("judged after ")
        .nth(1)
        .and_then(|s| s.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap();
    assert!(pairs > 3 && pairs <= 12, "{last}");
    // Every run recorded is in the manifest, and judged again the same.
    let manifest = common::manifest(&dir.path().join("runs"));
    assert_eq!(manifest["runs"].as_array().unwrap().len(), 2 * pairs);
    assert_eq!(manifest["runs_per_side"], pairs);
    // The same code against a limit of 2% (0.17 ms; the name's ±4% a run
    // leaves 1% undecidable in 12 pairs): passed within the budget, never
    // a failure on the way.
    let dir = noisy_pools(12, 1.0);
    let (status, err) = until_decided(dir.path(), "12", "2");
    assert_eq!(status, 0, "{err}");
    assert!(!err.contains("FAILED"), "{err}");
    assert!(err.contains("judged after"), "{err}");
}

/// The pull-request check's `ab` mode (scripts/pr-ab.sh, action.yml's
/// `run`): a repository whose base commit's `run.sh` hands out A's
/// recordings and whose head's hands out B's; both built (`BUILD`), run
/// alternately and judged as pairs, the summary and outputs written.
#[test]
fn the_pull_request_check_builds_base_and_head_and_judges_their_runs_paired() {
    let dir = machine_pools(BEFORE, AFTER);
    let repo = dir.path().join("repo");
    std::fs::create_dir(&repo).unwrap();
    let git = |args: &[&str]| {
        let out = std::process::Command::new("git")
            .args(["-c", "user.name=t", "-c", "user.email=t@t"])
            .args(args)
            .current_dir(&repo)
            .output()
            .unwrap();
        assert!(out.status.success(), "git {args:?}: {}", stderr(&out));
        String::from_utf8_lossy(&out.stdout).trim().to_owned()
    };
    let script = |pool: &str| {
        format!(
            "#!/bin/sh\ntest -f built || exit 9\n{}\n",
            pop(&dir.path().join(pool).to_string_lossy()).replace("{out}", "\"$1\"")
        )
    };
    git(&["init", "-q"]);
    std::fs::write(repo.join("run.sh"), script("pool_a")).unwrap();
    git(&["add", "run.sh"]);
    git(&["commit", "-qm", "base"]);
    let base = git(&["rev-parse", "HEAD"]);
    std::fs::write(repo.join("run.sh"), script("pool_b")).unwrap();
    git(&["commit", "-qam", "head"]);
    let pr_ab = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/pr-ab.sh");
    let output = dir.path().join("output.txt");
    let out = std::process::Command::new("bash")
        .arg(&pr_ab)
        .args([base.as_str(), "report.md"])
        .current_dir(&repo)
        .env("PUFFIN_LENS", env!("CARGO_BIN_EXE_puffin-lens"))
        .env("GITHUB_STEP_SUMMARY", dir.path().join("summary.md"))
        .env("GITHUB_OUTPUT", &output)
        .env("BUILD", "touch built")
        .env("RUN", "sh run.sh {out}")
        .env("RUNS", MACHINE.len().to_string())
        .env("FAIL_ON_REGRESSION", "2")
        .output()
        .unwrap();
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(
        std::fs::read_to_string(&output).unwrap(),
        "report=report.md\ntripped=true\ninconclusive=false\nruns=puffin-lens-ab-runs\n"
    );
    let summary = std::fs::read_to_string(dir.path().join("summary.md")).unwrap();
    assert!(
        summary.contains("Noise model: paired runs (4 pairs"),
        "{summary}"
    );
    assert!(summary.contains("Judged from 4 pairs of runs"), "{summary}");
    // Both revisions were built in their own trees; the base's is gone.
    assert!(repo.join("built").is_file());
    assert!(git(&["worktree", "list"]).lines().count() == 1);
    // A base the checkout does not have: a usage error, said.
    let out = std::process::Command::new("bash")
        .arg(&pr_ab)
        .arg("0123456789abcdef0123456789abcdef01234567")
        .current_dir(&repo)
        .env("PUFFIN_LENS", env!("CARGO_BIN_EXE_puffin-lens"))
        .env("RUN", "sh run.sh {out}")
        .output()
        .unwrap();
    assert_eq!(code(&out), 2, "{}", stderr(&out));
    assert!(stderr(&out).contains("fetch-depth"), "{}", stderr(&out));
}
