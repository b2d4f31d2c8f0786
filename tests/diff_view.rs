//! The diff view (egui_kittest) on the scenario's diff pair, whose
//! differences are known by construction: the table's rows and order, the
//! differential tree opened on the largest regression, the normalization,
//! both sides' calls, and the JavaScript API's show/ui and hash.

mod common;

use common::scenario::*;
use common::ui::{command, ui_now};
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable as _;
use puffin_lens::app::{PuffinLensApp, Settings, Shared, Side, Source, UiCommand};
use puffin_lens::engine::write::puffin::{Compression, Format, FrameData, write_recording};
use serde_json::{Value, json};

fn open_pair(a: &[FrameData], b: &[FrameData]) -> Harness<'static, PuffinLensApp> {
    let format = Format::Pfd4(Compression::Lz4);
    open_bytes(write_recording(a, format), write_recording(b, format))
}

/// The app with recordings A and B (their bytes) open.
fn open_bytes(a: Vec<u8>, b: Vec<u8>) -> Harness<'static, PuffinLensApp> {
    let mut h = Harness::builder()
        .with_size(egui::vec2(1400.0, 900.0))
        .build_eframe(|cc| {
            PuffinLensApp::with_context(&cc.egui_ctx, Shared::default(), Settings::default())
                .with_threaded_loading(false)
        });
    h.state().open("a.puffin", Source::Bytes(a), Some(Side::A));
    h.state().open("b.puffin", Source::Bytes(b), Some(Side::B));
    for _ in 0..100 {
        h.step();
        if h.state().recording(Side::B).is_some() && h.state().recording(Side::A).is_some() {
            break;
        }
    }
    h.run_steps(2);
    h
}

fn show_diff(h: &mut Harness<'static, PuffinLensApp>, options: Value) -> Value {
    command(
        h,
        UiCommand::Show {
            view: "diff".into(),
            options,
        },
    )
    .unwrap_or_else(|e| panic!("show diff: {e}"))
}

fn names(ui: &Value) -> Vec<String> {
    ui["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let name = r["name"].as_str().or(r["thread"].as_str()).unwrap();
            match r["data"].as_str() {
                Some(d) if !d.is_empty() => format!("{name}/{d}"),
                _ => name.to_owned(),
            }
        })
        .collect()
}

#[test]
fn table_mode_lists_what_got_slower_first() {
    let mut h = open_pair(&diff_a(), &diff_b(true));
    let ui = show_diff(&mut h, json!({"mode": "table"}));
    assert_eq!(ui["view"], "diff");
    assert_eq!(ui["mode"], "table");
    assert_eq!(
        ui["normalize"], "total",
        "same frame counts: totals as recorded"
    );
    assert_eq!(ui["warnings"], json!([]));
    // B - A of the totals, largest first; ties by name, then data. B's new
    // `physics` is where A's `app::update` was (same parent, same
    // siblings): a rename at one place, one row, as the report has it.
    assert_eq!(
        names(&ui),
        [
            "mix",
            "load/tex.png",
            "app::render",
            "frame/frame 0",
            "job/a",
            "app::update → physics",
            "job/b",
            "job/c",
            "job/d",
        ]
    );
    assert_eq!(ui["rows"][0]["status"], "new");
    assert_eq!(ui["rows"][5]["status"], "both");
    assert_eq!(ui["rows"][5]["renamed"]["from"], "app::update");
    assert_eq!(ui["rows"][1]["delta_total_ns"], ns(1.0));
    // Improvements first, then a filter and hide-below.
    let ui = show_diff(&mut h, json!({"sort": "delta", "descending": false}));
    assert_eq!(names(&ui)[0], "job/d");
    // Or the largest changes first, either way (the CLI's --sort abs-delta).
    let signed: Vec<i64> = show_diff(&mut h, json!({"sort": "delta", "descending": true}))["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["delta_total_ns"].as_i64().unwrap())
        .collect();
    let ui = show_diff(&mut h, json!({"sort": "abs_delta", "descending": true}));
    assert_eq!(ui["sort"], "abs_delta");
    let by_size: Vec<i64> = ui["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["delta_total_ns"].as_i64().unwrap())
        .collect();
    assert!(
        by_size
            .windows(2)
            .all(|w| w[0].unsigned_abs() >= w[1].unsigned_abs()),
        "{by_size:?}"
    );
    assert_ne!(by_size, signed, "the two orders differ here");
    let ui = show_diff(
        &mut h,
        json!({"filter": "job", "hide_below": 2.5, "sort": "name"}),
    );
    assert_eq!(names(&ui), ["job/c", "job/d"]);
    let ui = show_diff(
        &mut h,
        json!({"filter": "job", "hide_below": 0.0, "sort": "name", "descending": true}),
    );
    assert_eq!(names(&ui), ["job/d", "job/c", "job/b", "job/a"]);
    let ui = show_diff(
        &mut h,
        json!({"filter": "", "hide_below": 0.0, "sort": "delta_percent"}),
    );
    // New rows (+inf) first, then load's +100%.
    assert_eq!(names(&ui)[..2], ["mix", "load/tex.png"]);

    // A row's calls on both sides, binned alike.
    show_diff(&mut h, json!({"sort": "delta"}));
    h.get_by_label("load").click();
    h.run_steps(3);
    let diff = h.state_mut().diff_view().unwrap();
    let d = diff.details().expect("details of load");
    assert_eq!(d.name, "load");
    assert_eq!((d.a.clone(), d.b.clone()), (vec![ns(1.0)], vec![ns(2.0)]));
    assert_eq!(d.a_bins.len(), d.b_bins.len());
    assert_eq!(d.a_bins[0].count, 1);
    assert_eq!(d.b_bins.last().unwrap().count, 1);
    h.get_by_label_contains("A: 1 calls, 1.000 ms");
}

#[test]
fn tree_mode_opens_on_the_largest_regression() {
    let mut h = open_pair(&diff_a(), &diff_b(true));
    let ui = show_diff(&mut h, json!({"mode": "tree"}));
    assert_eq!(ui["mode"], "tree");
    // physics (+4 ms, new) is the largest growth: main and frame open.
    assert_eq!(
        names(&ui),
        [
            "audio",
            "mix",
            "main",
            "frame",
            "app::update",
            "physics",
            "app::render",
            "rayon-1",
            "job",
            "rayon-2",
            "job"
        ]
    );
    let row = |ui: &Value, k: usize| ui["rows"][k].clone();
    assert_eq!(
        row(&ui, 5),
        json!({"depth": 2, "name": "physics", "a_total_ns": 0.0, "b_total_ns": ns(4.0) as f64,
            "delta_total_ns": ns(4.0) as f64,
            // Per frame whatever the normalization (one frame a side).
            "a_total_per_frame_ns": 0.0, "b_total_per_frame_ns": ns(4.0) as f64,
            "delta_total_per_frame_ns": ns(4.0) as f64, "delta_pct": null})
    );
    assert_eq!(row(&ui, 4)["delta_total_ns"], -(ns(4.5) as f64));
    h.get_by_label("physics");
    h.get_by_label("thread audio");
    // The hash keeps the mode.
    let hash = h.state_mut().diff_view().unwrap().hash();
    assert_eq!(
        hash,
        "view=diff&mode=tree&sort=delta&desc=1&normalize=total"
    );
    show_diff(&mut h, json!({"mode": "table", "sort": "name"}));
    let ui = command(&mut h, UiCommand::Hash(hash)).unwrap();
    assert_eq!(ui["mode"], "tree");
    assert_eq!(ui["sort"], "delta");
}

#[test]
fn captures_of_different_lengths_compare_per_frame() {
    // B holds the same frame twice: its totals double, its per-frame ones do not.
    let mut twice = diff_b(true);
    let mut second = twice[0].clone();
    second.frame_index = 11;
    second.registrations.clear();
    twice.push(second);
    let mut h = open_pair(&diff_a(), &twice);
    let ui = show_diff(&mut h, json!({"mode": "tree"}));
    assert_eq!(
        ui["normalize"], "per-frame",
        "frame counts differ: per frame by default"
    );
    let load = |ui: &Value| {
        ui["rows"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["name"] == "load")
            .cloned()
    };
    show_diff(&mut h, json!({"mode": "tree"}));
    h.state_mut().diff_view().unwrap().expand_all(true);
    h.run_steps(2);
    let per_frame = load(&ui_now(&h)).expect("load listed");
    assert_eq!(per_frame["b_total_ns"], ns(2.0) as f64);
    assert_eq!(per_frame["delta_total_ns"], ns(1.0) as f64);
    show_diff(&mut h, json!({"normalize": "total"}));
    h.state_mut().diff_view().unwrap().expand_all(true);
    h.run_steps(2);
    let total = load(&ui_now(&h)).expect("load listed");
    assert_eq!(total["b_total_ns"], ns(4.0) as f64);
    assert_eq!(total["delta_total_ns"], ns(3.0) as f64);
}

#[test]
fn the_diff_needs_both_recordings_and_warns_on_mismatched_registration() {
    let mut h = open_pair(&diff_a(), &diff_b(false));
    let ui = show_diff(&mut h, json!({}));
    assert!(
        ui["warnings"][0]
            .as_str()
            .unwrap()
            .starts_with("registration mismatch"),
        "{ui}"
    );
    h.get_by_label_contains("Warning: registration mismatch");
    let err = command(
        &mut h,
        UiCommand::Show {
            view: "diff".into(),
            options: json!({"zoom": 1}),
        },
    )
    .expect_err("refused");
    assert_eq!(
        err,
        "show(\"diff\"): unknown option \"zoom\" (known: mode, sort, descending, filter, hide_below, normalize, expand, width, focus)"
    );

    // Only A open: refused with the reason; key 5 does nothing.
    let mut one = Harness::builder()
        .with_size(egui::vec2(1400.0, 900.0))
        .build_eframe(|cc| {
            PuffinLensApp::with_context(&cc.egui_ctx, Shared::default(), Settings::default())
                .with_threaded_loading(false)
        });
    let bytes = write_recording(&diff_a(), Format::Pfd4(Compression::Lz4));
    one.state().open("a.puffin", Source::Bytes(bytes), None);
    one.run_steps(20);
    let err = command(
        &mut one,
        UiCommand::Show {
            view: "diff".into(),
            options: Value::Null,
        },
    )
    .expect_err("no B");
    assert_eq!(err, "the diff needs two recordings open (A and B)");
    one.key_press(egui::Key::Num5);
    one.run_steps(3);
    assert_eq!(ui_now(&one)["view"], "overview");
}

#[test]
fn a_spike_is_flagged_in_the_table() {
    // B calls job "a" twice: 2 ms and 0.1 ms, so one call is most of its total.
    let mut b = diff_b(true);
    let rayon = b[0]
        .threads
        .iter_mut()
        .find(|t| t.name == "rayon-1")
        .expect("rayon-1");
    rayon.scopes.push(scope(JOB, 7.5, 7.6, "a"));
    let mut h = open_pair(&diff_a(), &b);
    let ui = show_diff(&mut h, json!({"mode": "table", "filter": "job"}));
    let job_a = ui["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["data"] == "a")
        .cloned()
        .expect("job a");
    assert_eq!(job_a["spike"], true);
    assert_eq!(job_a["b"]["count"], 2);
    let others: Vec<&Value> = ui["rows"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["data"] != "a")
        .collect();
    assert!(others.iter().all(|r| r["spike"] == false), "{others:?}");
    // The table's badge is the noise model's judgement, as `compare`'s.
    assert_eq!(job_a["change"]["kind"], "spike");
    h.get_by_label("one spike");
}

#[test]
fn the_differential_flame_graph_colours_what_changed() {
    use puffin_lens::app::views::diff::change_color;
    let mut h = open_pair(&diff_a(), &diff_b(true));
    let ui = show_diff(&mut h, json!({"mode": "flame"}));
    assert_eq!(ui["mode"], "flame");
    assert_eq!(ui["width"], "b");
    let node = |ui: &Value, path: &[&str]| -> Option<Value> {
        ui["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .find(|n| n["path"] == json!(path))
            .cloned()
    };
    // Widths from B: B's totals as shares of B's threads; `load` under
    // render 2x slower (+1 ms), `physics` new, `update` gone (not shown).
    let nodes = ui["nodes"].as_array().unwrap();
    let b_total: f64 = nodes
        .iter()
        .filter(|n| n["depth"] == 0)
        .map(|n| n["b_total_ns"].as_f64().unwrap())
        .sum();
    for n in nodes {
        let w = n["x1"].as_f64().unwrap() - n["x0"].as_f64().unwrap();
        let b = n["b_total_ns"].as_f64().unwrap();
        assert!((w * b_total - b).abs() < 1.0, "{n}");
    }
    let load = node(&ui, &["main", "frame", "app::render", "load"]).expect("load");
    assert_eq!(load["delta_total_ns"], ns(1.0) as f64);
    let physics = node(&ui, &["main", "frame", "physics"]).expect("physics");
    assert_eq!(physics["new"], true);
    assert!(
        node(&ui, &["main", "frame", "app::update"]).is_none(),
        "gone: no width in B"
    );
    assert!(node(&ui, &["audio"]).is_some(), "a thread only in B");
    // The colours' signs: red for slower, green for faster.
    let slower = change_color(ns(1.0) as f64, ns(2.0) as f64);
    let faster = change_color(-(ns(4.5) as f64), ns(4.5) as f64);
    assert!(slower.r() > slower.g() && faster.g() > faster.r());
    // Widths from A: what is gone shows, marked.
    let ui = show_diff(&mut h, json!({"width": "a"}));
    let update = node(&ui, &["main", "frame", "app::update"]).expect("update in A");
    assert_eq!(update["gone"], true);
    assert_eq!(update["delta_total_ns"], -(ns(4.5) as f64));
    assert!(node(&ui, &["audio"]).is_none(), "no width in A");
    // A click focuses; the hash keeps mode, width and focus.
    let ui = show_diff(&mut h, json!({"focus": ["main", "frame"]}));
    assert_eq!(ui["focus"], json!(["main", "frame"]));
    let first = &ui["nodes"][0];
    assert_eq!(
        (first["x0"].as_f64(), first["x1"].as_f64()),
        (Some(0.0), Some(1.0))
    );
    let diff = h.state_mut().diff_view().unwrap();
    let hash = diff.hash();
    assert!(
        hash.contains("mode=flame") && hash.contains("width=a"),
        "{hash}"
    );
}

#[test]
fn the_table_judges_the_planted_pair_as_compare_does() {
    use common::planted::{AFTER, BEFORE, game_loop, record};
    use puffin_lens::engine::analyses::{self, CompareOptions};
    let (a, b) = (record(&game_loop(BEFORE, 1)), record(&game_loop(AFTER, 2)));
    let (ta, tb) = (
        puffin_lens::engine::load(&a).unwrap().trace,
        puffin_lens::engine::load(&b).unwrap().trace,
    );
    let want = analyses::compare(
        &ta,
        &tb,
        &CompareOptions {
            top: usize::MAX,
            ..Default::default()
        },
        None,
    );
    let mut h = open_bytes(a, b);
    let ui = show_diff(
        &mut h,
        json!({"mode": "table", "filter": "", "hide_below": 0}),
    );
    let kinds = |rows: Vec<Value>| -> std::collections::BTreeMap<(String, String), Value> {
        rows.into_iter()
            .map(|r| {
                (
                    (
                        r["name"].as_str().unwrap().to_owned(),
                        r["data"].as_str().unwrap().to_owned(),
                    ),
                    r["change"].clone(),
                )
            })
            .collect()
    };
    let got = kinds(ui["rows"].as_array().unwrap().clone());
    // Through a string, as the app's answer comes (serde_json's float
    // parsing may land one ulp from the value).
    let expected =
        kinds(serde_json::from_str(&serde_json::to_string(&want.rows).unwrap()).unwrap());
    assert_eq!(got, expected);
    let kind = |name: &str, data: &str| got[&(name.to_owned(), data.to_owned())]["kind"].clone();
    assert_eq!(kind("physics::solve_contacts", ""), "slower");
    assert_eq!(kind("ui::layout", "panel 1"), "new");
    assert_eq!(kind("assets::load", ""), "spike");
    assert_eq!(kind("input", ""), "unchanged");
    // The badges say so.
    // The cause wears "slower per call"; `physics::step` and `frame`, whose
    // own time held, wear "wraps a change".
    assert_eq!(h.query_all_by_label("slower per call").count(), 1);
    assert_eq!(h.query_all_by_label("wraps a change").count(), 2);
    h.get_by_label("one spike");
}

#[test]
fn the_table_names_the_drift_and_judges_against_it() {
    use common::planted::{BEFORE, Plan, game_loop, record};
    // Every duration ×1.2: the same code on a slower machine.
    let slower = Plan {
        scale: 1.2,
        ..BEFORE
    };
    let (a, b) = (record(&game_loop(BEFORE, 1)), record(&game_loop(slower, 2)));
    let mut h = open_bytes(a, b);
    let ui = show_diff(
        &mut h,
        json!({"mode": "table", "filter": "", "hide_below": 0}),
    );
    let drift = ui["drift"].as_str().unwrap();
    assert!(drift.starts_with("B ran 20."), "{drift}");
    assert!(drift.contains("slower across the board"), "{drift}");
    h.get_by_label(drift);
    for r in ui["rows"].as_array().unwrap() {
        assert_eq!(r["change"]["kind"], "unchanged", "{r}");
    }
}
