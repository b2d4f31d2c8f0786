//! `calls FILE PARENT --by-child CHILD`: a parent's calls broken down by
//! the data of a scope inside them, on a planted capture with exact answers
//! (the simulated clock, no jitter) and on the Rerun SDK's real capture
//! (which chunk each `Encoder<_>::append` handled, and what each cost).

mod common;

use common::planted::{Frame, Span, record};
use common::{code, fixtures_dir, json_in, run_in, stderr};
use serde_json::{Value, json};
use std::path::Path;

const MS: i64 = 1_000_000;
const T0: i64 = 1_700_000_000_000_000_000;

/// `Encoder::append` on thread `writer`, 12 calls over 2 frames:
/// - 6 write "chunk A": 2.0 ms each, `chunk::write` 1.5 ms inside (its own
///   `lz4` 0.5 ms: 1.0 ms self);
/// - 3 write "chunk B": 5.0, 5.0 and (frame 1) 8.0 ms, `chunk::write` 4.0,
///   4.0 and 7.0 ms; the 7.0 ms one holds a nested `chunk::write` "inner"
///   of 2.0 ms (it counts in its outer one: self 5.0);
/// - 1 writes both: 3.0 ms, a `chunk::write` "chunk A" and one "chunk B"
///   of 1.0 ms each;
/// - 2 write nothing: 0.5 ms each, an `encode` 0.2 ms inside.
fn planted() -> Vec<Frame> {
    // (data of the chunk::write scopes with their ms, parent ms, frame)
    type Call = (Vec<(&'static str, i64)>, i64, usize);
    let calls: Vec<Call> = vec![
        (vec![("chunk A", 1_500_000)], 2 * MS, 0),
        (vec![("chunk B", 4 * MS)], 5 * MS, 0),
        (vec![], MS / 2, 0),
        (vec![("chunk A", 1_500_000)], 2 * MS, 0),
        (vec![("chunk A", MS), ("chunk B", MS)], 3 * MS, 0),
        (vec![("chunk A", 1_500_000)], 2 * MS, 0),
        (vec![("chunk B", 4 * MS)], 5 * MS, 1),
        (vec![("chunk A", 1_500_000)], 2 * MS, 1),
        (vec![("chunk B", 7 * MS)], 8 * MS, 1),
        (vec![], MS / 2, 1),
        (vec![("chunk A", 1_500_000)], 2 * MS, 1),
        (vec![("chunk A", 1_500_000)], 2 * MS, 1),
    ];
    let mut frames: Vec<Vec<Span>> = vec![Vec::new(), Vec::new()];
    let mut t = T0;
    for (chunks, parent_ns, frame) in calls {
        if frame == 1 && frames[1].is_empty() {
            t += 10 * MS;
        }
        let mut span = Span::new("Encoder::append", t, t + parent_ns);
        let mut at = t + MS / 10;
        if chunks.is_empty() {
            span = span.child(Span::new("encode", at, at + MS / 5));
        }
        for (data, d) in chunks {
            let mut chunk = Span::new("chunk::write", at, at + d).data(data);
            if d == 1_500_000 {
                chunk = chunk.child(Span::new("lz4", at + MS / 10, at + MS / 10 + MS / 2));
            }
            if d == 7 * MS {
                chunk = chunk.child(Span::new("chunk::write", at + MS, at + 3 * MS).data("inner"));
            }
            span = span.child(chunk);
            at += d;
        }
        frames[frame].push(span);
        t += parent_ns + MS;
    }
    frames
        .into_iter()
        .map(|spans| vec![("writer".to_owned(), spans)])
        .collect()
}

fn planted_file() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("w.puffin"), record(&planted())).unwrap();
    dir
}

fn by_child(dir: &Path, file: &str, parent: &str, child: &str) -> Value {
    let (status, v) = json_in(dir, &["calls", file, parent, "--by-child", child, "--json"]);
    assert_eq!(status, 0);
    v
}

/// The fields of a group that the plant fixes exactly.
fn exact(g: &Value) -> Value {
    json!({
        "child_data": g["child_data"],
        "calls": g["calls"],
        "total_ns": g["total_ns"],
        "median_ns": g["median_ns"],
        "max_ns": g["max_ns"],
        "child_calls": g["child_calls"],
        "child_total_ns": g["child_total_ns"],
        "child_self_ns": g["child_self_ns"],
        "slowest_frame_index": g["slowest_frame_index"],
        "slowest_thread": g["slowest_thread"],
    })
}

#[test]
fn planted_groups_are_exact_and_sorted_by_cost() {
    let dir = planted_file();
    let v = by_child(dir.path(), "w.puffin", "Encoder::append", "chunk::write");
    assert_eq!(v["parent"], "Encoder::append");
    assert_eq!(v["child"], "chunk::write");
    assert_eq!(v["calls"], 12);
    assert_eq!(v["total_ns"], 34 * MS);
    assert_eq!(v["calls_with_child"], 10);
    // 6 A + 3 B (outer ones) + 2 in the call that writes both.
    assert_eq!(v["child_calls"], 11);
    assert_eq!(v["child_total_ns"], 9 * MS + 15 * MS + 2 * MS);
    assert_eq!(v["total_groups"], 4);
    // The planted frames' indices (puffin's count on from the process's).
    let (_, calls) = json_in(
        dir.path(),
        &["calls", "w.puffin", "Encoder::append", "--json"],
    );
    let f0 = calls["calls"][0]["frame_index"].as_u64().unwrap();
    assert_eq!(calls["calls"][11]["frame_index"], f0 + 1);
    let groups: Vec<Value> = v["groups"].as_array().unwrap().iter().map(exact).collect();
    assert_eq!(
        groups,
        vec![
            json!({"child_data": ["chunk B"], "calls": 3, "total_ns": 18 * MS,
                   "median_ns": 5 * MS, "max_ns": 8 * MS, "child_calls": 3,
                   "child_total_ns": 15 * MS, "child_self_ns": 13 * MS,
                   "slowest_frame_index": f0 + 1, "slowest_thread": "writer"}),
            json!({"child_data": ["chunk A"], "calls": 6, "total_ns": 12 * MS,
                   "median_ns": 2 * MS, "max_ns": 2 * MS, "child_calls": 6,
                   "child_total_ns": 9 * MS, "child_self_ns": 6 * MS,
                   "slowest_frame_index": f0, "slowest_thread": "writer"}),
            json!({"child_data": ["chunk A", "chunk B"], "calls": 1, "total_ns": 3 * MS,
                   "median_ns": 3 * MS, "max_ns": 3 * MS, "child_calls": 2,
                   "child_total_ns": 2 * MS, "child_self_ns": 2 * MS,
                   "slowest_frame_index": f0, "slowest_thread": "writer"}),
            json!({"child_data": [], "calls": 2, "total_ns": MS,
                   "median_ns": MS / 2, "max_ns": MS / 2, "child_calls": 0,
                   "child_total_ns": 0, "child_self_ns": 0,
                   "slowest_frame_index": f0, "slowest_thread": "writer"}),
        ]
    );
    let shares: Vec<f64> = v["groups"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["share_pct"].as_f64().unwrap())
        .collect();
    for (got, want) in shares.iter().zip([18.0, 12.0, 3.0, 1.0]) {
        assert!((got - 100.0 * want / 34.0).abs() < 1e-9, "{shares:?}");
    }
    // The slowest call of A: the first 2.0 ms one, in time order.
    let first = &v["groups"][1];
    assert_eq!(first["slowest_at_ns"], T0);
    assert_eq!(first["slowest_at_rel_ms"], 0.0);
    // A glob finds the same scopes.
    let globbed = by_child(dir.path(), "w.puffin", "Encoder::append", "chunk::*");
    assert_eq!(globbed["groups"], v["groups"]);
}

#[test]
fn planted_text_names_each_group_and_its_cost() {
    let dir = planted_file();
    let out = run_in(
        dir.path(),
        &[
            "calls",
            "w.puffin",
            "Encoder::append",
            "--by-child",
            "chunk::write",
        ],
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert!(
        lines[0].starts_with(
            "Encoder::append by the data of its chunk::write scopes: 12 calls, total 34.000 ms; \
             10 with chunk::write inside (11 of them, 26.000 ms); 4 groups"
        ),
        "{text}"
    );
    assert!(lines[1].starts_with("chunk::write data"), "{text}");
    let cells = |line: &str| {
        line.split_whitespace()
            .map(str::to_owned)
            .collect::<Vec<_>>()
    };
    // chunk B: 3 calls, 18 ms, 52.9%, median 5, max 8, 3 child calls, 15 total, 13 self.
    let b = cells(lines[2]);
    assert_eq!(
        b[..10],
        [
            "chunk", "B", "3", "18.000", "52.9%", "5.000", "8.000", "3", "15.000", "13.000"
        ]
    );
    assert!(lines[4].starts_with("chunk A + chunk B "), "{text}");
    assert!(lines[5].starts_with("(no chunk::write) "), "{text}");
}

#[test]
fn the_query_api_answers_as_the_cli() {
    let dir = planted_file();
    let path = dir.path().join("w.puffin");
    let trace = puffin_lens::engine::load(&std::fs::read(&path).unwrap())
        .unwrap()
        .trace;
    let api = puffin_lens::engine::api::query_json(
        &trace,
        None,
        "calls",
        &json!({"name": "Encoder::append", "by_child": "chunk::write"}),
    )
    .unwrap();
    let cli = run_in(
        dir.path(),
        &[
            "calls",
            "w.puffin",
            "Encoder::append",
            "--by-child",
            "chunk::write",
            "--json",
        ],
    );
    assert_eq!(code(&cli), 0, "{}", stderr(&cli));
    assert_eq!(format!("{api}\n"), String::from_utf8(cli.stdout).unwrap());
}

#[test]
fn no_such_child_names_what_is_inside() {
    let dir = planted_file();
    let out = run_in(
        dir.path(),
        &["calls", "w.puffin", "Encoder::append", "--by-child", "nope"],
    );
    assert_eq!(code(&out), 1);
    assert_eq!(
        stderr(&out).trim(),
        "puffin-lens: w.puffin: no scope named \"nope\" inside any call of \"Encoder::append\" \
         (inside them: \"chunk::write\", \"encode\")"
    );
    let out = run_in(
        dir.path(),
        &["calls", "w.puffin", "nope", "--by-child", "chunk::write"],
    );
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    // A malformed glob is a usage error.
    let out = run_in(
        dir.path(),
        &[
            "calls",
            "w.puffin",
            "Encoder::append",
            "--by-child",
            "chunk[",
            "--json",
        ],
    );
    assert_eq!(code(&out), 2, "{}", stderr(&out));
    // Two recordings: not broken down (one recording's calls).
    std::fs::copy(dir.path().join("w.puffin"), dir.path().join("v.puffin")).unwrap();
    let out = run_in(
        dir.path(),
        &[
            "calls",
            "w.puffin",
            "v.puffin",
            "Encoder::append",
            "--by-child",
            "chunk::write",
        ],
    );
    assert_eq!(code(&out), 2, "{}", stderr(&out));
}

/// The Rerun SDK's capture: which chunk (`Chunk>::from_chunk_batch`'s data,
/// its columns and rows) each `Encoder<_>::append` wrote, and what each cost.
#[test]
fn real_sdk_capture_groups_add_up() {
    let dir = fixtures_dir().join("real");
    let parent = "Encoder<_>::append";
    let child = "Chunk>::from_chunk_batch";
    let v = by_child(&dir, "rerun_sdk_points.puffin", parent, child);
    let (_, calls) = json_in(
        &dir,
        &["calls", "rerun_sdk_points.puffin", parent, "--json"],
    );
    let groups = v["groups"].as_array().unwrap();
    assert_eq!(v["total_groups"], groups.len());
    assert!(groups.len() >= 2, "{v}");
    let sum = |key: &str| groups.iter().map(|g| g[key].as_i64().unwrap()).sum::<i64>();
    // The groups partition the parent's calls: counts and totals add up.
    assert_eq!(v["calls"], calls["summary"]["count"]);
    assert_eq!(v["total_ns"], calls["summary"]["total_ns"]);
    assert_eq!(json!(sum("calls")), v["calls"]);
    assert_eq!(json!(sum("total_ns")), v["total_ns"]);
    assert_eq!(json!(sum("child_calls")), v["child_calls"]);
    assert_eq!(json!(sum("child_total_ns")), v["child_total_ns"]);
    let with_child: i64 = groups
        .iter()
        .filter(|g| !g["child_data"].as_array().unwrap().is_empty())
        .map(|g| g["calls"].as_i64().unwrap())
        .sum();
    assert_eq!(json!(with_child), v["calls_with_child"]);
    // The child's own totals are find --aggregate's under this parent: every
    // from_chunk_batch of the capture runs inside an append.
    let (_, agg) = json_in(
        &dir,
        &[
            "find",
            "rerun_sdk_points.puffin",
            child,
            "--field",
            "name",
            "--aggregate",
            "--json",
        ],
    );
    let agg = agg.as_array().unwrap();
    let count: i64 = agg.iter().map(|r| r["count"].as_i64().unwrap()).sum();
    let total: i64 = agg.iter().map(|r| r["total_ns"].as_i64().unwrap()).sum();
    assert_eq!(json!(count), v["child_calls"]);
    assert_eq!(json!(total), v["child_total_ns"]);
    let mut last = (i64::MAX, u64::MAX);
    for g in groups {
        let (t, c) = (
            g["total_ns"].as_i64().unwrap(),
            g["calls"].as_u64().unwrap(),
        );
        assert!(
            t <= last.0 && (t < last.0 || c <= last.1),
            "sorted by cost: {v}"
        );
        last = (t, c);
        assert!(g["median_ns"].as_i64().unwrap() <= g["max_ns"].as_i64().unwrap());
        assert!(g["max_ns"].as_i64().unwrap() <= t);
        assert!(g["child_self_ns"].as_i64().unwrap() <= g["child_total_ns"].as_i64().unwrap());
        assert!(g["child_total_ns"].as_i64().unwrap() <= t);
        assert_eq!(g["slowest_thread"], "file_writer");
    }
    // The chunks of 7 and of 10 rows (5 columns) are most of the calls.
    let keys: Vec<&Value> = groups.iter().map(|g| &g["child_data"]).collect();
    assert!(
        keys.contains(&&json!(["num_columns=5 num_rows=7"])),
        "{keys:?}"
    );
    assert!(
        keys.contains(&&json!(["num_columns=5 num_rows=10"])),
        "{keys:?}"
    );
    // Deterministic: the same answer twice.
    assert_eq!(by_child(&dir, "rerun_sdk_points.puffin", parent, child), v);
}
