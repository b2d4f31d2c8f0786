//! Bad input for a comparison (issue 42): two sides with no scope in common
//! are said to be so instead of judged silently, and so is a side without
//! scopes; with too few busy names the drift is not estimated, the answer
//! says `drift: null` and the report says why, and the rows are then judged
//! as they are.

mod common;

use common::{code, run_in, stderr};
use puffin_lens::engine::analyses::drift::{MIN_CALLS, MIN_SCOPES};
use puffin_lens::engine::write::puffin::{
    Compression, Format, FrameData, Registration, ScopeNode, ThreadData, write_recording,
};
use serde_json::Value;
use std::path::Path;

const T0: i64 = 1_800_000_000_000_000_000;
const FRAMES: usize = 60;

/// A recording of `FRAMES` frames on `main`: each frame calls every
/// `(name, per-call µs)` of `scopes` once, one after the other, `scale`
/// times as long, with a 1% jitter that repeats every 7 frames.
fn capture(scopes: &[(&str, f64)], scale: f64) -> Vec<u8> {
    let mut frames = Vec::new();
    let mut t = T0;
    for f in 0..FRAMES {
        let jitter = 1.0 + 0.01 * ((f % 7) as f64 - 3.0) / 3.0;
        let mut calls = Vec::new();
        for (k, (_, us)) in scopes.iter().enumerate() {
            let d = (us * 1e3 * scale * jitter).round() as i64;
            calls.push(ScopeNode::new(1 + k as u32, t, t + d));
            t += d;
        }
        frames.push(FrameData {
            frame_index: f as u64,
            threads: vec![ThreadData {
                name: "main".into(),
                start_time_ns: Some(T0),
                scopes: calls,
            }],
            registrations: if f == 0 {
                scopes
                    .iter()
                    .enumerate()
                    .map(|(k, (name, _))| {
                        Registration::named(1 + k as u32, name, "app::run", "src/app.rs", k as u32)
                    })
                    .collect()
            } else {
                Vec::new()
            },
        });
        t += 100_000;
    }
    write_recording(&frames, Format::Pfd4(Compression::Lz4))
}

fn pair(a: &[u8], b: &[u8]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.puffin"), a).unwrap();
    std::fs::write(dir.path().join("b.puffin"), b).unwrap();
    dir
}

/// `args` run in `dir`: the exit status and stdout.
fn run(dir: &Path, args: &[&str]) -> (i32, String) {
    let out = run_in(dir, args);
    assert!(
        matches!(code(&out), 0 | 4 | 5),
        "{args:?}: {}",
        stderr(&out)
    );
    (code(&out), String::from_utf8(out.stdout).unwrap())
}

fn json(dir: &Path, args: &[&str]) -> (i32, Value) {
    let (status, out) = run(dir, args);
    (status, serde_json::from_str(&out).unwrap())
}

const APP_A: [(&str, f64); 6] = [
    ("a::input", 120.0),
    ("a::update", 900.0),
    ("a::physics", 2_000.0),
    ("a::layout", 300.0),
    ("a::render", 4_000.0),
    ("a::present", 50.0),
];

const NOTHING_IN_COMMON: &str = "A and B have no scope name in common: nothing can be compared";

fn warnings(v: &Value) -> Vec<&str> {
    v["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w.as_str().unwrap())
        .collect()
}

#[test]
fn two_sides_with_no_scope_name_in_common_say_so_and_never_trip_the_gate() {
    // Another app: the same shape under other names, three times as slow.
    let other: Vec<(String, f64)> = APP_A
        .iter()
        .map(|(n, us)| (n.replacen("a::", "b::", 1), *us))
        .collect();
    let other: Vec<(&str, f64)> = other.iter().map(|(n, us)| (n.as_str(), *us)).collect();
    let d = pair(&capture(&APP_A, 1.0), &capture(&other, 3.0));
    let gate = ["--fail-on-regression", "0.1"];

    let (status, c) = json(
        d.path(),
        &[&["compare", "a.puffin", "b.puffin", "--json"][..], &gate].concat(),
    );
    assert_eq!(status, 0, "every row is new or gone: {}", c["gate"]);
    let w = warnings(&c);
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(w[0].starts_with(NOTHING_IN_COMMON), "{w:?}");
    assert!(w[0].contains("different apps, or a registration mismatch"));
    assert!(c["drift"].is_null());
    assert_eq!(c["gate"]["tripped"], Value::Array(Vec::new()));
    let kinds: Vec<&str> = c["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["change"]["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds.len(), 12);
    assert!(
        kinds.iter().all(|k| matches!(*k, "new" | "gone")),
        "{kinds:?}"
    );

    // compare's text leads with it, on one line.
    let (_, text) = run(d.path(), &["compare", "a.puffin", "b.puffin"]);
    let first = text.lines().next().unwrap();
    assert!(
        first.starts_with(&format!("warning: {NOTHING_IN_COMMON}")),
        "{text}"
    );

    // The report: in its JSON, and first under the comparison's heading.
    let (status, r) = json(
        d.path(),
        &[
            &["report", "a.puffin", "b.puffin", "--format", "json"][..],
            &gate,
        ]
        .concat(),
    );
    assert_eq!(status, 0);
    let cmp = &r["comparison"];
    assert!(warnings(cmp)[0].starts_with(NOTHING_IN_COMMON), "{cmp}");
    assert_eq!(cmp["gate"]["tripped"], Value::Array(Vec::new()));
    assert_eq!(cmp["changes"], Value::Array(Vec::new()));
    let (status, md) = run(
        d.path(),
        &[&["report", "a.puffin", "b.puffin"][..], &gate].concat(),
    );
    assert_eq!(status, 0);
    let section = md
        .split("## What changed (B against A)\n\n")
        .nth(1)
        .expect("a comparison section");
    assert!(
        section.starts_with(&format!("> [!WARNING]\n> {NOTHING_IN_COMMON}")),
        "{section}"
    );

    // The differential tree says it too.
    let (_, text) = run(d.path(), &["diff", "a.puffin", "b.puffin"]);
    assert!(text.contains(NOTHING_IN_COMMON), "{text}");

    // One name in common: compared, and no such warning.
    let mut shared = other.clone();
    shared[2] = APP_A[2];
    let d = pair(&capture(&APP_A, 1.0), &capture(&shared, 1.0));
    let (_, c) = json(d.path(), &["compare", "a.puffin", "b.puffin", "--json"]);
    assert_eq!(warnings(&c), Vec::<&str>::new());
}

#[test]
fn a_side_without_scopes_is_said_to_be_so() {
    let d = pair(&capture(&APP_A, 1.0), &capture(&[], 1.0));
    let (status, c) = json(
        d.path(),
        &[
            "compare",
            "a.puffin",
            "b.puffin",
            "--json",
            "--fail-on-regression",
            "0.1",
        ],
    );
    assert_eq!(status, 0);
    assert_eq!(
        warnings(&c),
        ["B has no scopes: nothing can be compared (every row is gone in B)"]
    );
    let (_, c) = json(d.path(), &["compare", "b.puffin", "a.puffin", "--json"]);
    assert_eq!(
        warnings(&c),
        ["A has no scopes: nothing can be compared (every row is new in B)"]
    );
}

#[test]
fn too_few_busy_names_leave_the_drift_unestimated_and_the_report_says_so() {
    // MIN_SCOPES - 1 busy names (MIN_CALLS calls or more, 1 µs or more of
    // own time per call, each over the noise's 0.05 ms per frame at x1.3),
    // and names too quick to vote.
    assert!(FRAMES as u64 >= MIN_CALLS);
    let busy = &APP_A[1..MIN_SCOPES];
    let mut scopes: Vec<(&str, f64)> = busy.to_vec();
    scopes.extend([("quick_a", 0.4), ("quick_b", 0.5), ("quick_c", 0.6)]);
    // B: every duration x1.3.
    let d = pair(&capture(&scopes, 1.0), &capture(&scopes, 1.3));
    let (_, c) = json(d.path(), &["compare", "a.puffin", "b.puffin", "--json"]);
    assert!(c["drift"].is_null(), "{}", c["drift"]);
    let (status, r) = json(
        d.path(),
        &[
            "report",
            "a.puffin",
            "b.puffin",
            "--format",
            "json",
            "--fail-on-regression",
            "1",
        ],
    );
    let cmp = &r["comparison"];
    assert!(cmp["drift"].is_null());
    assert_eq!(cmp["drift_judged"], true);
    // Judged as they are, with the default spread of a name and of the
    // machine: every busy name 30% slower from one run a side is not told
    // apart from a machine or a run that slow (inconclusive, not listed),
    // and the gate cannot tell either (exit 5).
    let listed: Vec<&str> = cmp["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["name"].as_str().unwrap())
        .collect();
    assert!(listed.is_empty(), "{listed:?}");
    for (name, _) in busy {
        assert!(
            cmp["inconclusive"]["names"]
                .as_array()
                .unwrap()
                .iter()
                .any(|n| n == name),
            "{name} in {}",
            cmp["inconclusive"]
        );
    }
    assert_eq!(status, 5);
    let (_, md) = run(d.path(), &["report", "a.puffin", "b.puffin"]);
    let line = md
        .lines()
        .find(|l| l.starts_with("**Run-to-run drift**"))
        .expect("a drift line");
    assert!(
        line.starts_with(&format!(
            "**Run-to-run drift**: not estimated: fewer than {MIN_SCOPES} names with at least \
             {MIN_CALLS} calls"
        )),
        "{line}"
    );
    assert!(
        line.contains("judged B against A as they are, with the prior run-to-run spread"),
        "{line}"
    );

    // One more busy name: estimated (30%), named, and nothing judged.
    scopes.push(APP_A[0]);
    let d = pair(&capture(&scopes, 1.0), &capture(&scopes, 1.3));
    let (status, r) = json(
        d.path(),
        &[
            "report",
            "a.puffin",
            "b.puffin",
            "--format",
            "json",
            "--fail-on-regression",
            "1",
        ],
    );
    let drift = &r["comparison"]["drift"];
    assert_eq!(drift["scopes_used"], MIN_SCOPES, "{drift}");
    assert!(
        (drift["pct"].as_f64().unwrap() - 30.0).abs() < 0.5,
        "{drift}"
    );
    assert_eq!(status, 0, "{}", r["comparison"]["gate"]);
    let (_, md) = run(d.path(), &["report", "a.puffin", "b.puffin"]);
    assert!(!md.contains("not estimated"), "{md}");
    assert!(md.contains("B ran 30.0% slower across the board"), "{md}");
}

/// One run a side whose own changes are half its busy names (five much
/// slower or faster, one 80% slower, six within ±10%): their spread around
/// the drift is the changes', far past what runs of the same code vary.
/// The name's run-to-run spread is then the prior, and the 80% slower name
/// is told; taken from the pair (a prior as wide as the pair's spread) the
/// changes would hide it.
#[test]
fn a_pairs_own_changes_never_widen_a_names_spread_past_the_prior() {
    let names: Vec<String> = (0..12).map(|k| format!("job_{k:02}")).collect();
    let b_times = [
        0.90, 0.94, 0.98, 1.02, 1.06, 1.10, 2.5, 2.5, 0.4, 0.4, 2.5, 1.8,
    ];
    let a: Vec<(&str, f64)> = names.iter().map(|n| (n.as_str(), 1000.0)).collect();
    let b: Vec<(&str, f64)> = names
        .iter()
        .zip(b_times)
        .map(|(n, x)| (n.as_str(), 1000.0 * x))
        .collect();
    let d = pair(&capture(&a, 1.0), &capture(&b, 1.0));
    let kind_of = |v: &Value, name: &str| -> String {
        let c = &v["comparison"];
        c["rows"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["name"] == name)
            .map_or_else(
                || {
                    let inconclusive = c["inconclusive"]["names"].as_array().unwrap();
                    if inconclusive.iter().any(|n| n == name) {
                        "inconclusive".to_owned()
                    } else {
                        "unchanged".to_owned()
                    }
                },
                |r| r["change"]["kind"].as_str().unwrap().to_owned(),
            )
    };
    let args = [
        "report", "a.puffin", "b.puffin", "--format", "json", "--top", "50",
    ];
    let (_, v) = json(d.path(), &args);
    let spread = &v["comparison"]["noise"]["run_spread"];
    let (pct, prior, measured) = (
        spread["pct"].as_f64().unwrap(),
        spread["prior_pct"].as_f64().unwrap(),
        spread["measured_pct"].as_f64().unwrap(),
    );
    assert!(measured > 2.0 * prior, "{spread}");
    assert_eq!(pct, prior, "{spread}");
    assert_eq!(kind_of(&v, "job_11"), "slower", "{spread}");
    // A prior wider than the pair's spread: the pair's own (the changes).
    let mut wide = args.to_vec();
    wide.extend(["--run-spread-pct", "1000"]);
    let (_, v) = json(d.path(), &wide);
    let spread = &v["comparison"]["noise"]["run_spread"];
    assert!(
        (spread["pct"].as_f64().unwrap() - measured).abs() < 0.05,
        "{spread}"
    );
    assert_eq!(kind_of(&v, "job_11"), "inconclusive", "{spread}");
}
