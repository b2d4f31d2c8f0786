//! The investigation's judgement on planted captures (recorded through
//! puffin's own API on a simulated clock, tests/common/planted.rs), whose
//! answers are known by construction: B's `physics::solve_contacts` is 60%
//! slower per call, `ui::layout` runs twice per frame at the same cost,
//! `audio::mix` is new, `legacy::update` gone, `assets::load` has one 30 ms
//! call; every duration jitters by ±1%; main waits 3.4 ms at the start of
//! `render::prepare` while three workers build meshes. Judged by `compare`,
//! `calls A B`, `gaps`, the report (JSON, Markdown, HTML) and the gate (the
//! app's diff table: tests/diff_view.rs).

mod common;

use common::planted::{self, AFTER, BEFORE, FRAMES, WAIT_MS};
use common::{code, run_in, stderr};
use puffin_lens::engine::analyses::{self, CompareTable, Kind};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;

/// A and B of the planted game loop, written to a temp dir.
fn pair(seed_a: u64, seed_b: u64) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let a = planted::record(&planted::game_loop(BEFORE, seed_a));
    let b = planted::record(&planted::game_loop(AFTER, seed_b));
    std::fs::write(dir.path().join("a.puffin"), a).unwrap();
    std::fs::write(dir.path().join("b.puffin"), b).unwrap();
    // PLANTED_OUT=DIR keeps a copy (to try the tool on by hand).
    if let Some(out) = std::env::var_os("PLANTED_OUT") {
        std::fs::create_dir_all(&out).unwrap();
        for f in ["a.puffin", "b.puffin"] {
            std::fs::copy(dir.path().join(f), Path::new(&out).join(f)).unwrap();
        }
    }
    dir
}

/// `puffin-lens ARGS` in `dir`: its exit status and stdout as JSON.
fn json(dir: &Path, args: &[&str]) -> (i32, Value) {
    let out = run_in(dir, args);
    assert!(
        matches!(code(&out), 0 | 4 | 5),
        "{args:?}: {}",
        stderr(&out)
    );
    (code(&out), serde_json::from_slice(&out.stdout).unwrap())
}

fn text(dir: &Path, args: &[&str]) -> String {
    let out = run_in(dir, args);
    assert!(
        matches!(code(&out), 0 | 4 | 5),
        "{args:?}: {}",
        stderr(&out)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn close(got: f64, want: f64, tolerance: f64) -> bool {
    (got - want).abs() <= tolerance
}

/// (name, data) -> the judgement's kind, of `compare --json`'s rows.
fn kinds(compare: &Value) -> BTreeMap<(String, String), String> {
    compare["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                (
                    r["name"].as_str().unwrap().to_owned(),
                    r["data"].as_str().unwrap().to_owned(),
                ),
                r["change"]["kind"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

#[test]
fn compare_judges_every_planted_row() {
    let d = pair(1, 2);
    let (status, c) = json(
        d.path(),
        &["compare", "a.puffin", "b.puffin", "--top", "100", "--json"],
    );
    assert_eq!(status, 0);
    let k = kinds(&c);
    let row = |name: &str, data: &str| k[&(name.to_owned(), data.to_owned())].as_str();
    // Planted changes, and their parents' (their totals changed too).
    assert_eq!(row("physics::solve_contacts", ""), "slower");
    assert_eq!(row("physics::step", ""), "slower");
    assert_eq!(row("frame", ""), "slower");
    assert_eq!(row("audio::mix", ""), "new");
    assert_eq!(row("legacy::update", ""), "gone");
    assert_eq!(row("assets::load", ""), "spike");
    // Per (name, data), ui::layout's second call is a new row.
    assert_eq!(row("ui::layout", "panel 1"), "new");
    // Jitter only: within noise.
    for (name, data) in [
        ("input", ""),
        ("physics::integrate", ""),
        ("render::upload", ""),
        ("render::prepare", ""),
        ("ui::layout", "panel 0"),
        ("mesh::build", "chunk 0"),
        ("mesh::build", "chunk 2"),
    ] {
        assert_eq!(row(name, data), "unchanged", "{name} {data}");
    }
    assert_eq!(
        (c["total_rows"].as_u64(), c["changed_rows"].as_u64()),
        (Some(15), Some(7))
    );
    let load = c["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == "assets::load")
        .unwrap();
    assert_eq!(load["change"]["rest"], "unchanged");
    // The change per frame splits into its parts exactly.
    for r in c["rows"].as_array().unwrap() {
        let ch = &r["change"];
        let sum = ch["per_call_part_ns"].as_f64().unwrap() + ch["count_part_ns"].as_f64().unwrap();
        assert!(
            close(sum, ch["delta_per_frame_ns"].as_f64().unwrap(), 1.0),
            "{r}"
        );
    }
    let solve = c["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == "physics::solve_contacts")
        .unwrap();
    assert!(
        close(
            solve["change"]["delta_per_frame_ns"].as_f64().unwrap(),
            1.2e6,
            0.03e6
        ),
        "{solve}"
    );
    // Its whole interval clears the band.
    let effect = &solve["change"]["effect"];
    assert_eq!(effect["verdict"], "changed", "{effect}");
    assert!(effect["ci_ns"][0].as_f64().unwrap() > effect["band_ns"].as_f64().unwrap());
    assert_eq!(solve["change"]["tested"], true);
    // The frame's change accounted for, first, as in the report.
    let (_, r) = json(
        d.path(),
        &[
            "report", "a.puffin", "b.puffin", "--format", "json", "--top", "100",
        ],
    );
    assert_eq!(c["frame"], r["comparison"]["frame"]);
    let names: Vec<&str> = c["frame"]["contributions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "physics::solve_contacts",
            "ui::layout",
            "audio::mix",
            "assets::load",
            "legacy::update"
        ]
    );
    // The text says it in words.
    let t = text(d.path(), &["compare", "a.puffin", "b.puffin"]);
    // The drift first (planted on one clock: none to speak of), then the frame.
    assert!(
        t.starts_with("drift: +0.") || t.starts_with("drift: -0."),
        "{t}"
    );
    // The frame is main's period, paced at 16.667 ms.
    assert!(t.contains("\nframe: median 16.66"), "{t}");
    assert!(
        t.contains("own time per frame on main: physics::solve_contacts +1.2"),
        "{t}"
    );
    assert!(
        t.contains(
            "7 of 15 (name, data) pairs changed beyond noise (7 of 12 names; judged per frame)"
        ),
        "{t}"
    );
    assert!(
        t.contains("one spike (the rest: unchanged (within noise))"),
        "{t}"
    );
}

#[test]
fn jitter_alone_is_never_a_change() {
    // Two runs of the same code, 20 seeds: every row and the frame within
    // noise, by compare's table and by the report's.
    for seed in 0..20u64 {
        let a = planted::record(&planted::game_loop(BEFORE, 100 + seed));
        let b = planted::record(&planted::game_loop(BEFORE, 200 + seed));
        let (ta, tb) = (
            puffin_lens::engine::load(&a).unwrap().trace,
            puffin_lens::engine::load(&b).unwrap().trace,
        );
        for by in [analyses::GroupBy::NameData, analyses::GroupBy::Name] {
            let table = CompareTable::grouped(&ta, &tb, by, analyses::Noise::default());
            let joined = table.with(&ta, &tb);
            for &p in joined.pairs() {
                assert_eq!(
                    joined.kind(p),
                    Kind::Unchanged,
                    "seed {seed}: {} {} {:?}",
                    joined.name(p),
                    joined.data(p),
                    joined.change(p)
                );
            }
        }
    }
    let d = tempfile::tempdir().unwrap();
    for (f, seed) in [("a.puffin", 7), ("b.puffin", 8)] {
        let bytes = planted::record(&planted::game_loop(BEFORE, seed));
        std::fs::write(d.path().join(f), bytes).unwrap();
    }
    let (_, r) = json(
        d.path(),
        &["report", "a.puffin", "b.puffin", "--format", "json"],
    );
    let c = &r["comparison"];
    assert_eq!(c["changed_rows"], 0, "{c}");
    assert_eq!(c["rows"], serde_json::json!([]));
    assert_eq!(c["frame"]["kind"], "unchanged");
    assert_eq!(
        c["look_first"].as_array().unwrap().len(),
        1,
        "only the recurring wait: {c}"
    );
    // At 2% of the frame the gate passes; at 0 it may not tell (a row may
    // have grown by a little, or not: exit 5), but never fails.
    for (pct, allowed) in [("2", &[0][..]), ("0", &[0, 5][..])] {
        let (status, _) = json(
            d.path(),
            &[
                "compare",
                "a.puffin",
                "b.puffin",
                "--fail-on-regression",
                pct,
                "--json",
            ],
        );
        assert!(
            allowed.contains(&status),
            "jitter never trips the gate: {status}"
        );
    }
}

#[test]
fn the_report_accounts_for_the_frame_and_says_what_to_look_at_first() {
    let d = pair(3, 4);
    let (status, r) = json(
        d.path(),
        &["report", "a.puffin", "b.puffin", "--format", "json"],
    );
    assert_eq!(status, 0);
    let c = &r["comparison"];
    // By name: ui::layout runs twice as often (its data rows nested).
    let judged: BTreeMap<&str, &str> = c["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["name"].as_str().unwrap(),
                r["change"]["kind"].as_str().unwrap(),
            )
        })
        .collect();
    let want: BTreeMap<&str, &str> = [
        ("frame", "slower"),
        ("physics::step", "slower"),
        ("physics::solve_contacts", "slower"),
        ("ui::layout", "more-often"),
        ("audio::mix", "new"),
        ("assets::load", "spike"),
        ("legacy::update", "gone"),
    ]
    .into();
    assert_eq!(judged, want);
    let layout = c["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == "ui::layout")
        .unwrap();
    let nested: Vec<(&str, &str)> = layout["by_data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["data"].as_str().unwrap(),
                r["change"]["kind"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(nested, [("panel 1", "new"), ("panel 0", "unchanged")]);
    assert_eq!(layout["change"]["calls_per_frame_b"], 2.0);
    // The spike's call: B's slowest frame (the hitch), on main.
    let (_, slowest) = json(d.path(), &["frames", "b.puffin", "--top", "1", "--json"]);
    let load = c["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == "assets::load")
        .unwrap();
    assert_eq!(load["spike_call"]["side"], "B");
    assert_eq!(load["spike_call"]["frame_index"], slowest[0]["frame_index"]);
    assert_eq!(load["spike_call"]["thread"], "main");
    // physics::step's change is its child's: its own time stayed.
    let step = c["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == "physics::step")
        .unwrap();
    assert!(
        step["self_delta_per_frame_ns"].as_f64().unwrap().abs() < 0.01e6,
        "{step}"
    );
    // Every name a list gives is a row of the table.
    let rows: Vec<&Value> = c["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| &r["name"])
        .collect();
    for list in ["spikes", "changes", "new", "gone"] {
        for name in c[list].as_array().unwrap() {
            assert!(rows.contains(&name), "{list}: {name}");
        }
    }
    // The frame: +1.2 (slower per call) +1.0 (twice as often) +0.6 (new)
    // +0.497 (the spike: 29.8 ms over 60 frames) -0.2 (gone) ms per frame
    // of self time on main. The loop is paced on 16.667 ms: the frame is
    // main's period, which held (its median to the nanosecond's rounding),
    // the work taken from the time between frames.
    let f = &c["frame"];
    assert_eq!(f["thread"], "main");
    assert_ne!(f["kind"], "slower", "{f}");
    // Paced (the period holds while the work varies): the time between
    // frames is the clock's, not a cost.
    assert_eq!(f["between_frames"]["paced"], true, "{f}");
    let glance_bar = c["glance"]["bars"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["part"] == "between_frames");
    assert!(
        glance_bar.is_none_or(|b| b["cost"] == false),
        "{glance_bar:?}"
    );
    let median = |k: &str| f[k].as_f64().unwrap() / 1e6;
    assert!(close(median("median_a_ns"), 16.667, 0.001), "{f}");
    assert!(close(median("median_b_ns"), 16.667, 0.001), "{f}");
    let parts: Vec<(&str, &str, f64)> = f["contributions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| {
            (
                x["name"].as_str().unwrap(),
                x["kind"].as_str().unwrap(),
                x["self_delta_per_frame_ns"].as_f64().unwrap() / 1e6,
            )
        })
        .collect();
    let want = [
        ("physics::solve_contacts", "slower", 1.2),
        ("ui::layout", "more-often", 1.0),
        ("audio::mix", "new", 0.6),
        ("assets::load", "spike", 29.8 / 60.0),
        ("legacy::update", "gone", -0.2),
    ];
    assert_eq!(parts.len(), want.len(), "{parts:?}");
    for ((name, kind, ms), (wn, wk, wms)) in parts.iter().zip(want) {
        assert_eq!((*name, *kind), (wn, wk));
        assert!(close(*ms, wms, 0.03), "{name}: {ms} ms, planted {wms}");
    }
    // The parts: the causes (+3.1 ms) and the time between frames, which
    // gave up what the period did not grow by; all of the time outside
    // main's scopes is between frames.
    let part = |name: &str| common::frame_part(f, name, "delta_ns");
    let delta = f["delta_mean_ns"].as_f64().unwrap();
    assert!(close(part("causes") / 1e6, 3.1, 0.05), "{f}");
    assert!(
        close(part("between_frames"), delta - part("causes"), 0.02e6),
        "{f}"
    );
    assert!(
        close(
            f["outside_scopes_ns"].as_f64().unwrap(),
            part("between_frames"),
            0.01e6
        ),
        "{f}"
    );
    // What to look at first: the three regressions by cost, the spike, the
    // wait at the start of render::prepare with the workers meanwhile.
    let first: Vec<&str> = c["look_first"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l.as_str().unwrap())
        .collect();
    assert_eq!(first.len(), 5, "{first:#?}");
    assert!(
        first[0].starts_with("`physics::solve_contacts`: slower per call"),
        "{first:#?}"
    );
    assert!(
        first[1].starts_with("`ui::layout`: runs more often, +1.0")
            && first[1].contains("1.00 → 2.00 calls per frame"),
        "{first:#?}"
    );
    assert!(first[2].starts_with("`audio::mix`: new in B"), "{first:#?}");
    assert!(
        first[3].starts_with("`assets::load`: one spike of 30.")
            || first[3].starts_with("`assets::load`: one spike of 29."),
        "{first:#?}"
    );
    assert!(
        first[4].starts_with("unprofiled time in B: main `frame > render::prepare`, a leading gap in 60 frames, median 3.4"),
        "{first:#?}"
    );
    // The wait is the same in A: said so, not told as a change.
    assert!(
        first[4].ends_with(
            "meanwhile worker-0..2 busy 96% (`mesh::build`); unchanged from A (there before \
             the change, within noise)"
        ),
        "{first:#?}"
    );
    // Markdown and HTML say the same.
    let md = text(d.path(), &["report", "a.puffin", "b.puffin"]);
    for needle in [
        "### Look at first",
        "1. `physics::solve_contacts`: slower per call",
        "| `ui::layout` |",
        "| ↳ data `panel 1` |",
        "**runs more often, +1.0",
        "1.00 → 2.00 calls per frame**",
        "**one spike** (the other calls: unchanged (within noise))",
        "**In parts**, each counted once and summing to it: the changes judged",
        "| main: `frame > render::prepare` | leading | — → `render::upload` | 60 |",
        "| worker-0..2 195.840 ms each (`mesh::build`) |",
    ] {
        assert!(md.contains(needle), "{needle:?} in\n{md}");
    }
    let html = text(
        d.path(),
        &["report", "a.puffin", "b.puffin", "--format", "html"],
    );
    assert!(html.contains("<h3>Look at first</h3>"));
    assert!(html.contains("<code>physics::solve_contacts</code>: slower per call"));
}

#[test]
fn gaps_find_the_wait_the_workers_fill_and_the_idle_between_frames() {
    let d = pair(5, 6);
    let (_, g) = json(d.path(), &["gaps", "b.puffin", "--json"]);
    let recurring = g["recurring"].as_array().unwrap();
    let shape: Vec<(&str, &str, &str, u64)> = recurring
        .iter()
        .map(|r| {
            (
                r["thread"].as_str().unwrap(),
                r["kind"].as_str().unwrap(),
                r["path"].as_str().unwrap(),
                r["frames"].as_u64().unwrap(),
            )
        })
        .collect();
    // Between frames (the hitch frame overruns its period: its next frame
    // starts 1 ms after it, less than the 1 ms... still idle), the wait,
    // the 0.3 ms trailing gap of every frame.
    assert_eq!(
        shape,
        [
            ("", "between-frames", "", FRAMES as u64 - 1),
            ("main", "leading", "frame > render::prepare", FRAMES as u64),
            ("main", "trailing", "frame", FRAMES as u64),
        ]
    );
    let wait = &recurring[1];
    assert!(
        close(
            wait["median_ns"].as_f64().unwrap(),
            WAIT_MS * 1e6,
            WAIT_MS * 1e4
        ),
        "{wait}"
    );
    assert_eq!(wait["before"], "render::upload");
    assert_eq!(wait["after"], Value::Null);
    // Each worker builds for 96% of every wait: 3.264 ms of it, 60 times.
    let others: Vec<(&str, i64, &str)> = wait["other_threads"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| {
            (
                o["thread"].as_str().unwrap(),
                o["busy_ns"].as_i64().unwrap(),
                o["scopes"][0]["name"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        others,
        [
            ("worker-0", 60 * 3_264_000, "mesh::build"),
            ("worker-1", 60 * 3_264_000, "mesh::build"),
            ("worker-2", 60 * 3_264_000, "mesh::build"),
        ]
    );
    // The trailing gap is exactly 0.3 ms in every frame; no worker runs then.
    let trailing = &recurring[2];
    assert_eq!(
        (
            trailing["median_ns"].as_i64(),
            trailing["total_ns"].as_i64()
        ),
        (Some(300_000), Some(60 * 300_000))
    );
    assert_eq!(trailing["other_threads"], serde_json::json!([]));
    // No gap is a one-off; the text lists the recurring ones with workers.
    assert_eq!(g["total_gaps"], 0);
    let t = text(d.path(), &["gaps", "b.puffin", "--thread", "main"]);
    assert!(t.contains("worker-0 195.840 (mesh::build)"), "{t}");
    assert!(t.contains("leading"), "{t}");
    // The single-thread view says when nothing else was recorded.
    assert_eq!(g["other_threads_recorded"], true);
}

#[test]
fn the_gate_fails_on_regressions_only() {
    let d = pair(9, 10);
    // 5% of A's ~8.6 ms frame is 0.43 ms: solve_contacts (+1.2 ms) and
    // ui::layout (+1.0 ms, twice as often) trip it; frame and
    // physics::step are as slower, but their own time did not change (the
    // gate counts causes); audio::mix is new where legacy::update was gone
    // (its place, main's `frame`): it counts net of it, +0.4 ms, under the
    // limit; the spike is a spike: neither trips.
    let (status, c) = json(
        d.path(),
        &[
            "compare",
            "a.puffin",
            "b.puffin",
            "--fail-on-regression",
            "5",
            "--json",
        ],
    );
    assert_eq!(status, 4);
    let mut tripped: Vec<(&str, &str)> = c["gate"]["tripped"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| (t["name"].as_str().unwrap(), t["kind"].as_str().unwrap()))
        .collect();
    tripped.sort();
    assert_eq!(
        tripped,
        [
            ("physics::solve_contacts", "slower"),
            ("ui::layout", "more-often"),
        ]
    );
    // At least 1.1 ms per frame: ui::layout (+1.0) no longer trips.
    let (_, c) = json(
        d.path(),
        &[
            "compare",
            "a.puffin",
            "b.puffin",
            "--fail-on-regression",
            "5",
            "--min-ms",
            "1.1",
            "--json",
        ],
    );
    let mut names: Vec<&str> = c["gate"]["tripped"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    names.sort();
    assert_eq!(names, ["physics::solve_contacts"]);
    // B against A (faster, fewer calls, gone, new) trips nothing.
    let (status, _) = json(
        d.path(),
        &[
            "compare",
            "b.puffin",
            "a.puffin",
            "--fail-on-regression",
            "5",
            "--json",
        ],
    );
    assert_eq!(status, 0);
    // The report gates the same, and writes the report anyway.
    let out = run_in(
        d.path(),
        &[
            "report",
            "a.puffin",
            "b.puffin",
            "--fail-on-regression",
            "5",
            "-o",
            "r.md",
        ],
    );
    assert_eq!(code(&out), 4);
    assert!(
        stderr(&out).contains("regression gate: FAILED: 2 row(s)"),
        "{}",
        stderr(&out)
    );
    let md = std::fs::read_to_string(d.path().join("r.md")).unwrap();
    assert!(md.contains("**Regression gate: failed.** 2 row(s)"), "{md}");
    // Usage errors.
    for bad in [
        vec![
            "compare",
            "a.puffin",
            "b.puffin",
            "--fail-on-regression",
            "-1",
        ],
        vec!["compare", "a.puffin", "b.puffin", "--min-ms", "1"],
        vec!["compare", "a.puffin", "b.puffin", "--alpha", "0"],
        vec!["compare", "a.puffin", "b.puffin", "--noise-ms", "x"],
    ] {
        assert_eq!(code(&run_in(d.path(), &bad)), 2, "{bad:?}");
    }
}

#[test]
fn calls_side_by_side() {
    let d = pair(11, 12);
    let (_, c) = json(
        d.path(),
        &[
            "calls",
            "a.puffin",
            "b.puffin",
            "physics::solve_contacts",
            "--json",
        ],
    );
    assert_eq!(c["change"]["kind"], "slower");
    assert!(
        close(c["a"]["median_ns"].as_f64().unwrap(), 2.0e6, 0.02e6),
        "{c}"
    );
    assert!(
        close(c["b"]["median_ns"].as_f64().unwrap(), 3.2e6, 0.032e6),
        "{c}"
    );
    assert_eq!(
        (c["a"]["count"].as_u64(), c["b"]["count"].as_u64()),
        (Some(60), Some(60))
    );
    assert_eq!(c["change"]["effect"]["verdict"], "changed");
    let (_, c) = json(
        d.path(),
        &["calls", "a.puffin", "b.puffin", "ui::layout", "--json"],
    );
    assert_eq!(c["change"]["kind"], "more-often");
    assert_eq!(
        (
            c["a"]["calls_per_frame"].as_f64(),
            c["b"]["calls_per_frame"].as_f64()
        ),
        (Some(1.0), Some(2.0))
    );
    let (_, c) = json(
        d.path(),
        &["calls", "a.puffin", "b.puffin", "assets::load", "--json"],
    );
    assert_eq!(
        (c["change"]["kind"].as_str(), c["change"]["rest"].as_str()),
        (Some("spike"), Some("unchanged"))
    );
    let (_, c) = json(
        d.path(),
        &["calls", "a.puffin", "b.puffin", "audio::mix", "--json"],
    );
    assert_eq!(
        (c["change"]["kind"].as_str(), c["a"].is_null()),
        (Some("new"), true)
    );
    let t = text(
        d.path(),
        &["calls", "a.puffin", "b.puffin", "physics::solve_contacts"],
    );
    assert!(
        t.starts_with("physics::solve_contacts: slower per call; +1.2")
            || t.starts_with("physics::solve_contacts: slower per call; +1.1"),
        "{t}"
    );
    assert!(t.contains("calls per frame"), "{t}");
    // One recording: as before.
    let (_, one) = json(d.path(), &["calls", "a.puffin", "ui::layout", "--json"]);
    assert_eq!(one["summary"]["count"], 60);
    // Neither side has it: exit 1, one line.
    let out = run_in(d.path(), &["calls", "a.puffin", "b.puffin", "nope"]);
    assert_eq!(code(&out), 1);
    assert!(
        stderr(&out).contains("no scope named \"nope\""),
        "{}",
        stderr(&out)
    );
}

#[test]
fn diff_judges_every_node() {
    let d = pair(13, 14);
    let (_, diff) = json(d.path(), &["diff", "a.puffin", "b.puffin", "--json"]);
    let mut kinds: BTreeMap<String, String> = BTreeMap::new();
    fn walk(n: &Value, path: &str, out: &mut BTreeMap<String, String>) {
        let path = format!("{path}/{}", n["name"].as_str().unwrap());
        out.insert(path.clone(), n["kind"].as_str().unwrap().to_owned());
        for c in n["children"].as_array().unwrap() {
            walk(c, &path, out);
        }
    }
    for t in diff["threads"].as_array().unwrap() {
        for r in t["roots"].as_array().unwrap() {
            walk(r, t["name"].as_str().unwrap(), &mut kinds);
        }
    }
    let want: BTreeMap<String, String> = [
        ("main/frame", "slower"),
        ("main/frame/physics::step", "slower"),
        ("main/frame/physics::step/physics::solve_contacts", "slower"),
        ("main/frame/physics::step/physics::integrate", "unchanged"),
        ("main/frame/ui::layout", "more-often"),
        ("main/frame/audio::mix", "new"),
        ("main/frame/legacy::update", "gone"),
        ("main/frame/assets::load", "spike"),
        ("main/frame/render::prepare", "unchanged"),
        ("main/frame/render::prepare/render::upload", "unchanged"),
        ("main/frame/input", "unchanged"),
        ("worker-0/mesh::build", "unchanged"),
        ("worker-1/mesh::build", "unchanged"),
        ("worker-2/mesh::build", "unchanged"),
    ]
    .into_iter()
    .map(|(p, k)| (p.to_owned(), k.to_owned()))
    .collect();
    assert_eq!(kinds, want);
    let t = text(d.path(), &["diff", "a.puffin", "b.puffin"]);
    assert!(t.contains("runs more often"), "{t}");
}

#[test]
fn slower_and_more_often_at_once() {
    // `net::poll`: once a frame at 1 ms in A; twice a frame at 1.5 ms in B
    // (±1% jitter), 30 frames, beside an unchanged `input`.
    let frames = |calls: usize, ms: f64, seed: u64| -> Vec<planted::Frame> {
        let mut rng = planted::Rng::new(seed);
        (0..30)
            .map(|f| {
                let start = planted::T0 + f * planted::PERIOD_NS;
                let mut t = start;
                let mut frame = planted::Span::new("frame", start, 0);
                for _ in 0..calls {
                    let end = t + rng.ns(ms, planted::JITTER);
                    frame = frame.child(planted::Span::new("net::poll", t, end));
                    t = end;
                }
                let end = t + rng.ns(0.5, planted::JITTER);
                frame = frame.child(planted::Span::new("input", t, end));
                frame.end_ns = end;
                vec![("main".to_owned(), vec![frame])]
            })
            .collect()
    };
    let d = tempfile::tempdir().unwrap();
    std::fs::write(
        d.path().join("a.puffin"),
        planted::record(&frames(1, 1.0, 1)),
    )
    .unwrap();
    std::fs::write(
        d.path().join("b.puffin"),
        planted::record(&frames(2, 1.5, 2)),
    )
    .unwrap();
    let (_, c) = json(d.path(), &["compare", "a.puffin", "b.puffin", "--json"]);
    let k = kinds(&c);
    assert_eq!(
        k[&("net::poll".to_owned(), String::new())],
        "slower-more-often"
    );
    // Two names: nothing measures how a row varies between runs, so
    // `input` is not called unchanged within 5% from one run a side (the
    // default spread is wider than the band), nor a change.
    assert_eq!(k[&("input".to_owned(), String::new())], "inconclusive");
    let poll = c["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == "net::poll")
        .unwrap();
    // +2 ms per frame: 1 ms from the count (one more 1 ms call), 1 ms from
    // the cost per call (two calls, 0.5 ms each slower).
    let ch = &poll["change"];
    assert!(
        close(ch["count_part_ns"].as_f64().unwrap(), 1e6, 0.03e6),
        "{ch}"
    );
    assert!(
        close(ch["per_call_part_ns"].as_f64().unwrap(), 1e6, 0.03e6),
        "{ch}"
    );
    let (_, diff) = json(d.path(), &["diff", "a.puffin", "b.puffin", "--json"]);
    let node = &diff["threads"][0]["roots"][0]["children"][0];
    assert_eq!(
        (node["name"].as_str(), node["kind"].as_str()),
        (Some("net::poll"), Some("slower-more-often"))
    );
    let (status, r) = json(
        d.path(),
        &[
            "report",
            "a.puffin",
            "b.puffin",
            "--format",
            "json",
            "--fail-on-regression",
            "10",
        ],
    );
    assert_eq!(status, 4);
    let row = r["comparison"]["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["name"] == "net::poll")
        .unwrap();
    assert_eq!(row["change"]["kind"], "slower-more-often");
    let md = text(d.path(), &["report", "a.puffin", "b.puffin"]);
    assert!(
        md.contains("**slower per call, runs more often, +1.99")
            && md.contains("mean call 1.000 ms → 1.500 ms (+50%), 1.00 → 2.00 calls per frame"),
        "{md}"
    );
}

/// The pull-request check (action.yml) as far as it runs here: its report
/// script on the planted pair writes the job summary and the outputs GitHub
/// would read; the gate's verdict is an output (the action fails the job
/// after commenting); without a gate the summary says so; a bad input is
/// an error annotation and the script's failure.
#[test]
fn the_pull_request_check_writes_the_summary_github_reads() {
    let d = pair(9, 10);
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/pr-report.sh");
    let run = |gate: Option<&str>, after: &str| {
        let (summary, output) = (d.path().join("summary.md"), d.path().join("output.txt"));
        let _ = std::fs::remove_file(&summary);
        let _ = std::fs::remove_file(&output);
        let mut cmd = std::process::Command::new("bash");
        cmd.arg(&script)
            .args(["a.puffin", after, "report.md"])
            .current_dir(d.path())
            .env("PUFFIN_LENS", env!("CARGO_BIN_EXE_puffin-lens"))
            .env("GITHUB_STEP_SUMMARY", &summary)
            .env("GITHUB_OUTPUT", &output)
            .env_remove("FAIL_ON_REGRESSION");
        if let Some(pct) = gate {
            cmd.env("FAIL_ON_REGRESSION", pct);
        }
        let out = cmd.output().unwrap();
        let read = |p: &Path| std::fs::read_to_string(p).unwrap_or_default();
        (out, read(&summary), read(&output))
    };
    let (out, summary, output) = run(Some("5"), "b.puffin");
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(
        summary.starts_with("# puffin-lens report: a.puffin → b.puffin"),
        "{summary}"
    );
    assert!(
        summary.contains("**Regression gate: failed.** 2 row(s)"),
        "{summary}"
    );
    assert_eq!(
        output,
        "report=report.md\ntripped=true\ninconclusive=false\n"
    );
    assert_eq!(
        summary,
        std::fs::read_to_string(d.path().join("report.md")).unwrap(),
        "the summary is the report"
    );
    // B against A: nothing trips.
    let (out, _, output) = run(Some("5"), "a.puffin");
    assert_eq!(code(&out), 0);
    assert_eq!(
        output,
        "report=report.md\ntripped=false\ninconclusive=false\n"
    );
    // No gate: reported, and said so.
    let (out, summary, output) = run(None, "b.puffin");
    assert_eq!(code(&out), 0);
    assert!(summary.contains("_Reported without a gate"), "{summary}");
    assert!(
        output.ends_with("tripped=false\ninconclusive=false\n"),
        "{output}"
    );
    // A missing recording: the CLI's line as an error annotation.
    let (out, summary, output) = run(Some("5"), "missing.puffin");
    assert_eq!(code(&out), 1);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.starts_with("::error title=puffin-lens::"),
        "{stdout}"
    );
    assert!(stdout.contains("missing.puffin"), "{stdout}");
    assert_eq!((summary.as_str(), output.as_str()), ("", ""));
}
