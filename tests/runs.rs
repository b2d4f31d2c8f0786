//! Several recordings per side (`A1 A2 --vs B1 B2`): the runs of one side
//! are one trace, the noise model uses the spread between each side's
//! runs, and the same runs on both sides are nothing. Planted on the
//! simulated clock (the game loop of tests/common/planted.rs).

mod common;

use common::planted::{self, AFTER, BEFORE, Plan};
use common::{code, run_in, stderr};
use serde_json::Value;
use std::path::Path;

/// Writes each (file, plan, seed).
fn write(dir: &Path, runs: &[(&str, Plan, u64)]) {
    for (file, plan, seed) in runs {
        let bytes = planted::record(&planted::game_loop(*plan, *seed));
        std::fs::write(dir.join(file), bytes).unwrap();
    }
}

use common::json_in as json;

fn kind(c: &Value, name: &str) -> String {
    c["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == name)
        .map_or("unchanged".to_owned(), |r| {
            r["change"]["kind"].as_str().unwrap().to_owned()
        })
}

/// The names judged a change, sorted.
fn changed(c: &Value) -> Vec<String> {
    let mut v: Vec<String> = c["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["name"].as_str().unwrap().to_owned())
        .collect();
    v.sort();
    v
}

#[test]
fn the_same_runs_on_both_sides_are_nothing() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        &[("a1.puffin", BEFORE, 1), ("a2.puffin", BEFORE, 2)],
    );
    let (status, r) = json(
        d.path(),
        &[
            "report",
            "a1.puffin",
            "a2.puffin",
            "--vs",
            "a1.puffin",
            "a2.puffin",
            "--format",
            "json",
            "--fail-on-regression",
            "0.1",
        ],
    );
    assert_eq!(status, 0);
    let c = &r["comparison"];
    assert_eq!(c["noise"]["model"], "between-runs");
    assert_eq!(c["noise"]["runs"], serde_json::json!([2, 2]));
    assert_eq!(c["frames_a"], 2 * planted::FRAMES);
    assert_eq!(c["changed_rows"], 0, "{}", c["rows"]);
    assert_eq!(c["drift"]["factor"], 1.0);
    // compare and diff take the same syntax.
    let (status, c) = json(
        d.path(),
        &[
            "compare",
            "a1.puffin",
            "a2.puffin",
            "--vs",
            "a1.puffin",
            "a2.puffin",
            "--json",
        ],
    );
    assert_eq!(status, 0);
    assert_eq!(c["changed_rows"], 0);
    let (_, diff) = json(
        d.path(),
        &[
            "diff",
            "a1.puffin",
            "a2.puffin",
            "--vs",
            "a1.puffin",
            "a2.puffin",
            "--json",
        ],
    );
    assert!(diff["threads"].as_array().is_some_and(|t| !t.is_empty()));
}

#[test]
fn drift_and_a_regression_with_two_runs_a_side() {
    // B: every duration ×1.2, solve_contacts 2.0 → 3.2 ms before the drift,
    // ui::layout twice per frame, audio::mix new, legacy::update gone.
    let b = Plan {
        scale: 1.2,
        hitch: None,
        ..AFTER
    };
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        &[
            ("a1.puffin", BEFORE, 1),
            ("a2.puffin", BEFORE, 2),
            ("b1.puffin", b, 3),
            ("b2.puffin", b, 4),
        ],
    );
    let args = [
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
    ];
    let (status, r) = json(d.path(), &args);
    let c = &r["comparison"];
    assert!(
        (c["drift"]["pct"].as_f64().unwrap() - 20.0).abs() < 1.0,
        "{}",
        c["drift"]
    );
    assert_eq!(kind(c, "physics::solve_contacts"), "slower");
    assert_eq!(kind(c, "ui::layout"), "more-often");
    assert_eq!(kind(c, "audio::mix"), "new");
    assert_eq!(kind(c, "legacy::update"), "gone");
    for name in changed(c) {
        assert!(
            [
                "physics::solve_contacts",
                "ui::layout",
                "audio::mix",
                "legacy::update",
                "physics::step",
                "frame"
            ]
            .contains(&name.as_str()),
            "{name}: {}",
            c["rows"]
        );
    }
    assert_eq!(status, 4);
    let mut tripped: Vec<&str> = c["gate"]["tripped"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    tripped.sort();
    // audio::mix is new code where legacy::update was (main's `frame`):
    // it counts net of it, +0.5 ms per frame, past the 2% limit.
    assert_eq!(
        tripped,
        ["audio::mix", "physics::solve_contacts", "ui::layout"]
    );
    // calls takes them too: A's runs, --vs, B's runs, the name.
    let (_, calls) = json(
        d.path(),
        &[
            "calls",
            "a1.puffin",
            "a2.puffin",
            "--vs",
            "b1.puffin",
            "b2.puffin",
            "physics::solve_contacts",
            "--json",
        ],
    );
    assert_eq!(calls["change"]["kind"], "slower", "{calls}");
}

#[test]
fn a_row_that_varies_between_runs_is_judged_by_that_spread() {
    // solve_contacts takes 2.0 ms in one run of A and 3.0 in the other; B's
    // runs 2.3 and 3.3: the same code, run to run. A single pair of runs
    // (a1 against b1) reads +15%; two runs a side see it vary by ±0.5 ms.
    let plan = |solve_ms| Plan { solve_ms, ..BEFORE };
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        &[
            ("a1.puffin", plan(2.0), 1),
            ("a2.puffin", plan(3.0), 2),
            ("b1.puffin", plan(2.3), 3),
            ("b2.puffin", plan(3.3), 4),
        ],
    );
    let (_, r) = json(
        d.path(),
        &["report", "a1.puffin", "b1.puffin", "--format", "json"],
    );
    assert_eq!(kind(&r["comparison"], "physics::solve_contacts"), "slower");
    assert_eq!(r["comparison"]["noise"]["model"], "within-run");
    let (status, r) = json(
        d.path(),
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
            "1",
        ],
    );
    let c = &r["comparison"];
    assert_eq!(c["noise"]["model"], "between-runs");
    // +0.3 ms against a row that varies ±0.5 ms between runs: neither a
    // change nor unchanged within 5% from two runs a side (not listed),
    // and the gate at 1% cannot tell either: exit 5, never 4.
    assert!(
        c["inconclusive"]["names"]
            .as_array()
            .unwrap()
            .iter()
            .any(|n| n == "physics::solve_contacts"),
        "{}",
        c["inconclusive"]
    );
    assert_eq!(status, 5);
    // The Markdown says which noise model it used.
    let out = run_in(
        d.path(),
        &[
            "report",
            "a1.puffin",
            "a2.puffin",
            "--vs",
            "b1.puffin",
            "b2.puffin",
        ],
    );
    let md = String::from_utf8(out.stdout).unwrap();
    assert!(
        md.contains("Noise model: between runs (2 runs of A, 2 of B)"),
        "{md}"
    );
}

#[test]
fn bad_runs_are_named_and_left_out() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        &[("a1.puffin", BEFORE, 1), ("b1.puffin", BEFORE, 2)],
    );
    std::fs::write(d.path().join("bad.puffin"), b"not a recording").unwrap();
    // --vs with no files: a usage error.
    let out = run_in(d.path(), &["report", "a1.puffin", "--vs"]);
    assert_eq!(code(&out), 2, "{}", stderr(&out));
    let out = run_in(d.path(), &["compare", "a1.puffin", "--vs"]);
    assert_eq!(code(&out), 2, "{}", stderr(&out));
    // compare with one recording and no --vs: a usage error naming both forms.
    let out = run_in(d.path(), &["compare", "a1.puffin"]);
    assert_eq!(code(&out), 2, "{}", stderr(&out));
    assert!(stderr(&out).contains("--vs"), "{}", stderr(&out));
    // A run that cannot be read: named, the rest compared, exit 3 (an
    // answer from part of the input).
    let out = run_in(
        d.path(),
        &[
            "compare",
            "a1.puffin",
            "bad.puffin",
            "--vs",
            "b1.puffin",
            "--json",
        ],
    );
    assert_eq!(code(&out), 3, "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("bad.puffin") && err.contains("left out of A's runs"),
        "{err}"
    );
    let c: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(c["frames_a"], planted::FRAMES);
    // Every run unreadable: an error naming the side.
    let out = run_in(
        d.path(),
        &["compare", "bad.puffin", "bad.puffin", "--vs", "b1.puffin"],
    );
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("A: none of its 2 recordings could be read"),
        "{}",
        stderr(&out)
    );
}

/// The conditions that say a run is of another app, in a report's JSON.
fn other_app(c: &Value) -> Vec<String> {
    c["conditions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_str().unwrap().to_owned())
        .filter(|x| x.contains("another app") || x.contains("different apps"))
        .collect()
}

/// A run of another app (a real capture of rerun's SDK among the planted
/// game loop's runs) is named in the run's conditions, by its place among
/// the side's runs; the same app's runs are not; a pair of two apps is.
#[test]
fn a_run_of_another_app_is_flagged() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        &[
            ("a1.puffin", BEFORE, 1),
            ("a2.puffin", BEFORE, 2),
            ("b1.puffin", AFTER, 3),
            ("b2.puffin", AFTER, 4),
        ],
    );
    std::fs::copy(
        common::fixtures_dir().join("real/rerun_sdk_points.puffin"),
        d.path().join("other.puffin"),
    )
    .unwrap();
    let report = |args: &[&str]| {
        let mut all = vec!["report"];
        all.extend_from_slice(args);
        all.extend_from_slice(&["--format", "json"]);
        let (status, r) = json(d.path(), &all);
        assert_eq!(status, 0);
        other_app(&r["comparison"])
    };
    // The same app, before and after a change: nothing said.
    assert_eq!(
        report(&["a1.puffin", "a2.puffin", "--vs", "b1.puffin", "b2.puffin"]),
        Vec::<String>::new()
    );
    // The second of B's three runs is another app's.
    let said = report(&[
        "a1.puffin",
        "a2.puffin",
        "--vs",
        "b1.puffin",
        "other.puffin",
        "b2.puffin",
    ]);
    assert_eq!(said.len(), 1, "{said:?}");
    assert!(
        said[0].starts_with("B's run 2 of 3 looks like a run of another app"),
        "{said:?}"
    );
    // One recording a side, of two apps.
    let said = report(&["a1.puffin", "--vs", "other.puffin"]);
    assert_eq!(said.len(), 1, "{said:?}");
    assert!(
        said[0].starts_with("A and B look like runs of different apps"),
        "{said:?}"
    );
}

/// The pull-request check's report script takes glob patterns per side:
/// several runs a side become `A1 A2 --vs B1 B2`; a pattern that matches
/// nothing is an error.
#[test]
fn the_pull_request_check_takes_globs_of_runs() {
    let d = tempfile::tempdir().unwrap();
    let b = Plan {
        solve_ms: 3.2,
        ..BEFORE
    };
    write(
        d.path(),
        &[
            ("before-1.puffin", BEFORE, 1),
            ("before-2.puffin", BEFORE, 2),
            ("after-1.puffin", b, 3),
            ("after-2.puffin", b, 4),
        ],
    );
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/pr-report.sh");
    let run = |before: &str, after: &str| {
        let output = d.path().join("output.txt");
        let _ = std::fs::remove_file(&output);
        let out = std::process::Command::new("bash")
            .arg(&script)
            .args([before, after, "report.md"])
            .current_dir(d.path())
            .env("PUFFIN_LENS", env!("CARGO_BIN_EXE_puffin-lens"))
            .env("GITHUB_STEP_SUMMARY", d.path().join("summary.md"))
            .env("GITHUB_OUTPUT", &output)
            .env("FAIL_ON_REGRESSION", "2")
            .output()
            .unwrap();
        (out, std::fs::read_to_string(output).unwrap_or_default())
    };
    let (out, output) = run("before-*.puffin", "after-*.puffin");
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(
        output,
        "report=report.md\ntripped=true\ninconclusive=false\n"
    );
    let md = std::fs::read_to_string(d.path().join("report.md")).unwrap();
    assert!(
        md.starts_with("# puffin-lens report: before-1.puffin + before-2.puffin → after-1.puffin + after-2.puffin"),
        "{md}"
    );
    assert!(
        md.contains("Noise model: between runs (2 runs of A, 2 of B)"),
        "{md}"
    );
    let (out, _) = run("nothing-*.puffin", "after-*.puffin");
    assert_eq!(code(&out), 2);
    assert!(
        stderr(&out).contains("no recording matches before"),
        "{}",
        stderr(&out)
    );
}

/// `engine::model::concat` on its own: two recordings one after the other,
/// every column appended, names resolved as in each run.
#[test]
fn concat_appends_the_runs() {
    use puffin_lens::engine::{self, analyses, model};
    let a = planted::record(&planted::game_loop(BEFORE, 1));
    let b = planted::record(&planted::game_loop(AFTER, 2));
    let (ta, tb) = (
        engine::load(&a).unwrap().trace,
        engine::load(&b).unwrap().trace,
    );
    let both = model::concat(vec![ta.clone(), tb.clone()]);
    assert_eq!(both.run_count(), 2);
    assert_eq!(both.frames.len(), ta.frames.len() + tb.frames.len());
    assert_eq!(both.scopes.len(), ta.scopes.len() + tb.scopes.len());
    assert_eq!(both.run_frames(1).start as usize, ta.frames.len());
    // Each scope keeps its name and data, and its time.
    for (k, (t, base)) in [(&ta, 0usize), (&tb, ta.scopes.len())]
        .into_iter()
        .enumerate()
    {
        for i in 0..t.scopes.len() as u32 {
            let (x, y) = (model::ScopeIdx(i), model::ScopeIdx(i + base as u32));
            assert_eq!(t.scope_name(x), both.scope_name(y), "run {k}");
            assert_eq!(t.scope_data(x), both.scope_data(y), "run {k}");
            assert_eq!(
                t.scopes.duration_ns[i as usize],
                both.scopes.duration_ns[y.0 as usize]
            );
        }
    }
    // Per name, the totals add up.
    let total = |t: &model::Trace, name: &str| -> i64 {
        analyses::named_instances(t, name)
            .iter()
            .map(|i| t.scopes.duration_ns[i.0 as usize])
            .sum()
    };
    for name in [
        "frame",
        "physics::solve_contacts",
        "audio::mix",
        "legacy::update",
    ] {
        assert_eq!(
            total(&both, name),
            total(&ta, name) + total(&tb, name),
            "{name}"
        );
    }
    // One run is returned as it is.
    assert_eq!(
        model::concat(vec![ta.clone()]).scopes.len(),
        ta.scopes.len()
    );
    assert_eq!(model::concat(vec![ta]).run_count(), 1);
}
