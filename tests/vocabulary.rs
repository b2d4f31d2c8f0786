//! One vocabulary (issue 43, item 6): the report and `compare` say what
//! they count and count it the same way, two different things never share
//! a key name (`change_paths` against a recording's `hot_paths`), and the
//! report lists the names that are only noise. On the planted job-system
//! pair (60 vs 90 frames) and the planted game loop, whose unchanged names
//! are known by construction.

mod common;

use common::planted::{self, AFTER, BEFORE};
use common::{code, json_in, run_in, stderr};
use serde_json::Value;
use std::collections::BTreeSet;
use std::path::Path;

fn text(dir: &Path, args: &[&str]) -> String {
    let out = run_in(dir, args);
    assert_eq!(code(&out), 0, "{args:?}: {}", stderr(&out));
    String::from_utf8(out.stdout).unwrap()
}

fn set(v: &Value) -> BTreeSet<String> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_str().unwrap().to_owned())
        .collect()
}

fn names(list: &[&str]) -> BTreeSet<String> {
    list.iter().map(|s| s.to_string()).collect()
}

/// The game loop's pair, written to a temp dir as `a.puffin`, `b.puffin`.
fn game_pair() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let a = planted::record(&planted::game_loop(BEFORE, 1));
    let b = planted::record(&planted::game_loop(AFTER, 2));
    std::fs::write(dir.path().join("a.puffin"), a).unwrap();
    std::fs::write(dir.path().join("b.puffin"), b).unwrap();
    dir
}

/// The report's and `compare`'s counts on `dir`'s pair: both give names
/// and (name, data) pairs under the same keys, with the same numbers, and
/// each says what its `total_rows` counts. Returns (names, changed names,
/// pairs, changed pairs).
fn counts_agree(dir: &Path) -> (u64, u64, u64, u64) {
    let (_, r) = json_in(dir, &["report", "a.puffin", "b.puffin", "--format", "json"]);
    let (_, c) = json_in(dir, &["compare", "a.puffin", "b.puffin", "--json"]);
    let r = &r["comparison"];
    assert_eq!(r["counted"], "names");
    assert_eq!(c["counted"], "name-data pairs");
    for key in [
        "total_names",
        "changed_names",
        "total_pairs",
        "changed_pairs",
    ] {
        assert_eq!(r[key], c[key], "{key}");
    }
    // What each one's rows are.
    assert_eq!(r["total_rows"], r["total_names"]);
    assert_eq!(r["changed_rows"], r["changed_names"]);
    assert_eq!(c["total_rows"], c["total_pairs"]);
    assert_eq!(c["changed_rows"], c["changed_pairs"]);
    let n = |k: &str| r[k].as_u64().unwrap();
    (
        n("total_names"),
        n("changed_names"),
        n("total_pairs"),
        n("changed_pairs"),
    )
}

#[test]
fn report_and_compare_count_names_and_pairs_alike() {
    // Jobs: 12 names; job::cloth splits into 3 data strings (14 pairs).
    // Changed: job::cloth (its 3 pairs), jobs::run, draw::batch,
    // assets::stream (A's hitch), main_loop (A's one 35 ms hitch inside it
    // set apart as its tail: its typical calls grew by the new gap).
    let dir = planted::jobs_pair(1, 2);
    assert_eq!(counts_agree(dir.path()), (12, 5, 14, 7));
    let md = text(dir.path(), &["report", "a.puffin", "b.puffin"]);
    assert!(
        md.contains("### Judged changes (5 of 12 names changed; 7 of 14 (name, data) pairs)\n"),
        "{md}"
    );
    let t = text(dir.path(), &["compare", "a.puffin", "b.puffin"]);
    assert!(
        t.contains(
            "A 60 frames, B 90; 7 of 14 (name, data) pairs changed beyond noise \
             (5 of 12 names; judged per frame)"
        ),
        "{t}"
    );
    // Game loop: 12 names, 15 pairs; 7 names changed (the 5 planted
    // changes and the two parents above solve_contacts and ui::layout).
    let dir = game_pair();
    assert_eq!(counts_agree(dir.path()), (12, 7, 15, 7));
    // --filter: compare counts the names its filter keeps, as it counts rows.
    let (_, c) = json_in(
        dir.path(),
        &[
            "compare", "a.puffin", "b.puffin", "--filter", "physics", "--json",
        ],
    );
    assert_eq!(
        (&c["total_names"], &c["changed_names"]),
        (&Value::from(3), &Value::from(2)),
        "physics::step, solve_contacts (changed), integrate"
    );
}

#[test]
fn the_path_of_the_largest_change_is_not_called_a_hot_path() {
    let dir = planted::jobs_pair(1, 2);
    let (_, r) = json_in(
        dir.path(),
        &["report", "a.puffin", "b.puffin", "--format", "json"],
    );
    let c = &r["comparison"];
    assert!(c.get("hot_paths").is_none(), "renamed: change_paths");
    let main = c["change_paths"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["thread"] == "main")
        .expect("main changed");
    let steps: Vec<&str> = main["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert_eq!(steps[0], "main_loop", "{main}");
    for s in main["steps"].as_array().unwrap() {
        for key in ["a_total_ns", "b_total_ns", "delta_total_ns"] {
            assert!(s[key].is_i64(), "{s}");
        }
    }
    // A recording's hot_paths stay its heaviest path, with its own shape.
    for rec in r["recordings"].as_array().unwrap() {
        let paths = rec["hot_paths"].as_array().unwrap();
        assert!(!paths.is_empty());
        for p in paths {
            let keys: BTreeSet<&str> = p.as_object().unwrap().keys().map(|k| k.as_str()).collect();
            assert_eq!(keys, BTreeSet::from(["thread", "steps", "stop"]), "{p}");
            assert!(p["steps"][0]["self_ns"].is_i64(), "{p}");
        }
    }
    // A recurring gap counts occurrences, under that name (`frames`, the
    // old one, deprecated): B's new gap after sim::step, once in each of
    // its 90 frames.
    let b_gaps = r["recordings"][1]["gaps"]["recurring"].as_array().unwrap();
    for g in b_gaps {
        assert_eq!(g["occurrences"], g["frames"], "{g}");
    }
    let new_gap = b_gaps
        .iter()
        .find(|g| g["after"] == "sim::step" && g["before"] == "draw::batch")
        .expect("B's new gap");
    assert_eq!(new_gap["occurrences"], 90);
    // The Markdown keeps its heading for it.
    let md = text(dir.path(), &["report", "a.puffin", "b.puffin"]);
    assert!(
        md.contains("### Where it changed (differential tree"),
        "{md}"
    );
}

#[test]
fn the_report_lists_what_is_only_noise() {
    let dir = planted::jobs_pair(1, 2);
    let (_, r) = json_in(
        dir.path(),
        &["report", "a.puffin", "b.puffin", "--format", "json"],
    );
    let c = &r["comparison"];
    let u = &c["unchanged"];
    // What B leaves as it was (the gaps around them changed, not they).
    let planted_unchanged = names(&[
        "input",
        "sim::step",
        "draw::sort",
        "draw::submit",
        "present",
        "jobs::merge",
        "frame::end",
    ]);
    assert_eq!(set(&u["names"]), planted_unchanged);
    assert_eq!(u["total"], 7);
    // assets::stream is judged one spike (A's 35 ms hitch), not unchanged;
    // its other calls are: the report says so apart.
    assert_eq!(set(&u["apart_from_a_spike"]), names(&["assets::stream"]));
    assert_eq!(set(&c["spikes"]), names(&["assets::stream"]));
    // Costliest first: sim::step 2.0 ms, draw::submit 0.8, input and
    // present 0.5 each, draw::sort 0.4, jobs::merge 0.3, frame::end 0.2.
    let order: Vec<&str> = u["names"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_str().unwrap())
        .collect();
    assert_eq!(order[..2], ["sim::step", "draw::submit"]);
    assert_eq!(
        names(&order[2..4]),
        names(&["input", "present"]),
        "{order:?}"
    );
    assert_eq!(order[4..], ["draw::sort", "jobs::merge", "frame::end"]);
    // Unchanged and changed names partition the names.
    let changed: BTreeSet<String> = c["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|row| row["name"].as_str().unwrap().to_owned())
        .collect();
    assert!(changed.is_disjoint(&planted_unchanged));
    // Unchanged, inconclusive (none: main_loop's one hitch is set apart)
    // and changed names partition the names.
    assert_eq!(set(&c["inconclusive"]["names"]), names(&[]));
    assert_eq!(
        u["total"].as_u64().unwrap()
            + c["inconclusive"]["total"].as_u64().unwrap()
            + c["changed_names"].as_u64().unwrap(),
        c["total_names"].as_u64().unwrap()
    );
    // The Markdown says it in one line.
    let md = text(dir.path(), &["report", "a.puffin", "b.puffin"]);
    let line = md
        .lines()
        .find(|l| l.starts_with("- **Unchanged (only noise)**: "))
        .unwrap_or_else(|| panic!("{md}"));
    assert!(
        line.starts_with("- **Unchanged (only noise)**: `sim::step`, `draw::submit`, "),
        "{line}"
    );
    assert!(
        line.ends_with("`frame::end` (7 names); unchanged but for one spike: `assets::stream`"),
        "{line}"
    );
    // --top cuts the list, never the count.
    let (_, r3) = json_in(
        dir.path(),
        &[
            "report", "a.puffin", "b.puffin", "--format", "json", "--top", "3",
        ],
    );
    let u3 = &r3["comparison"]["unchanged"];
    assert_eq!(u3["total"], 7);
    assert_eq!(u3["names"].as_array().unwrap().len(), 3);
    assert_eq!(u3["names"][0], "sim::step");
    let md3 = text(
        dir.path(),
        &["report", "a.puffin", "b.puffin", "--top", "3"],
    );
    assert!(
        md3.contains(" … (7 names, the 3 costliest listed, --top shows more)"),
        "{md3}"
    );

    // The game loop: B leaves input, physics::integrate, render::prepare,
    // render::upload and mesh::build as they were; assets::load is B's one
    // 30 ms call.
    let dir = game_pair();
    let (_, r) = json_in(
        dir.path(),
        &["report", "a.puffin", "b.puffin", "--format", "json"],
    );
    let u = &r["comparison"]["unchanged"];
    assert_eq!(
        set(&u["names"]),
        names(&[
            "input",
            "physics::integrate",
            "render::prepare",
            "render::upload",
            "mesh::build"
        ])
    );
    assert_eq!(u["total"], 5);
    assert_eq!(set(&u["apart_from_a_spike"]), names(&["assets::load"]));
}
