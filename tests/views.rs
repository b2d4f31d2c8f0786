//! The tree, table and details views (egui_kittest) on the analyses'
//! scenario, whose answers are known by construction: merged totals, gap
//! rows and what ran meanwhile, every sort column, the filter, the spike
//! warning, callers/callees navigation, revealing a slow call, the
//! JavaScript API's show/select/ui and the location hash.

mod common;

use common::scenario::*;
use common::ui::{command, open_scenario, ui_now};
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable as _;
use puffin_lens::app::views::table::SortCol;
use puffin_lens::app::views::tree::{FrameRow, TreeMode};
use puffin_lens::app::{FrameSel, PuffinLensApp, Side, UiCommand, View};
use puffin_lens::engine::FrameId;
use puffin_lens::engine::analyses::transform::Stack;
use serde_json::{Value, json};

fn opened() -> Harness<'static, PuffinLensApp> {
    // Frames of 1/60 s where it matters: a double click is two clicks within 0.3 s.
    open_scenario(None)
}

fn show(h: &mut Harness<'static, PuffinLensApp>, view: &str, options: Value) -> Value {
    command(
        h,
        UiCommand::Show {
            view: view.to_owned(),
            options,
        },
    )
    .unwrap_or_else(|e| panic!("show {view}: {e}"))
}

/// The tree rows' names (thread rows by their thread).
fn tree_names(ui: &Value) -> Vec<&str> {
    ui["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["name"].as_str().or(r["thread"].as_str()).unwrap())
        .collect()
}

#[test]
fn merged_tree_totals_and_expansion() {
    let mut h = opened();
    let ui = show(&mut h, "tree", json!({"mode": "merged", "expand": "all"}));
    assert_eq!(ui["view"], "tree");
    assert_eq!(ui["frame"], Value::Null, "all frames by default");
    let rows = ui["rows"].as_array().expect("rows");
    let brief: Vec<(u64, String, u64, i64, i64)> = rows
        .iter()
        .map(|r| {
            (
                r["depth"].as_u64().unwrap(),
                r["name"]
                    .as_str()
                    .or(r["thread"].as_str())
                    .unwrap()
                    .to_owned(),
                r["count"].as_u64().unwrap_or(0),
                r["total_ns"].as_i64().unwrap_or(0),
                r["self_ns"].as_i64().unwrap_or(0),
            )
        })
        .collect();
    let row = |d: u64, name: &str, count: u64, total: f64, self_ms: f64| {
        (d, name.to_owned(), count, ns(total), ns(self_ms))
    };
    assert_eq!(
        brief,
        vec![
            (0, "main".to_owned(), 0, 0, 0),
            row(1, "frame", 3, 59.0, 10.0),
            row(2, "load", 1, 30.0, 30.0),
            row(2, "app::render", 2, 12.0, 10.0),
            row(3, "load", 2, 2.0, 2.0),
            row(2, "app::update", 2, 7.0, 7.0),
            (0, "rayon-1".to_owned(), 0, 0, 0),
            row(1, "job", 2, 4.0, 4.0),
            (0, "rayon-2".to_owned(), 0, 0, 0),
            row(1, "job", 2, 6.5, 6.5),
        ]
    );
    // Drawn: the names and the thread rows are on screen.
    h.get_by_label("app::render");
    h.get_by_label("thread rayon-2");

    // One level: threads and their roots.
    let ui = show(&mut h, "tree", json!({"expand": 1}));
    let names = tree_names(&ui);
    assert_eq!(names, ["main", "frame", "rayon-1", "job", "rayon-2", "job"]);

    // The hottest path: frame, then its largest child (the 30 ms load).
    let ui = show(&mut h, "tree", json!({"expand": "hot"}));
    assert_eq!(ui["rows"][2]["name"], "load");
    assert_eq!(ui["rows"][2]["total_ns"], ns(30.0));

    // One frame merged.
    let ui = show(&mut h, "tree", json!({"frame": 11, "expand": "all"}));
    assert_eq!(ui["frame"], 11);
    assert_eq!(ui["rows"][1]["total_ns"], ns(8.0));
    assert_eq!(ui["rows"].as_array().unwrap().len(), 5, "{}", ui["rows"]);
}

#[test]
fn search_expands_to_and_highlights_matches() {
    let mut h = opened();
    show(&mut h, "tree", json!({"mode": "merged", "expand": 0}));
    assert_eq!(
        ui_now(&h)["rows"].as_array().unwrap().len(),
        3,
        "threads only"
    );
    h.state_mut().recording_mut(Side::A).unwrap().view = View::Tree;
    // Typing in the filter (Ctrl/Cmd-F) expands the tree to the matches.
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::F);
    h.run_steps(2);
    h.event(egui::Event::Text("app::".into()));
    h.run_steps(3);
    let ui = ui_now(&h);
    let names = tree_names(&ui);
    assert_eq!(
        names,
        [
            "main",
            "frame",
            "load",
            "app::render",
            "app::update",
            "rayon-1",
            "rayon-2"
        ]
    );
}

#[test]
fn frame_mode_gap_rows_and_what_other_threads_ran() {
    let mut h = opened();
    let ui = show(
        &mut h,
        "tree",
        json!({"mode": "frame", "frame": 10, "expand": "all", "gap_ms": 1.0}),
    );
    assert_eq!(ui["tree_mode"], "frame");
    assert_eq!(ui["tree_frame"], 10);
    let rows = ui["rows"].as_array().unwrap();
    let main: Vec<Value> = rows
        .iter()
        .take_while(|r| r["thread"] != "rayon-1")
        .cloned()
        .collect();
    // update ends at 5 ms, render starts at 10: a 5 ms gap; load ends at
    // 11 ms, render at 18: a 7 ms trailing gap; render ends at 18 ms, the
    // frame at 20: a 2 ms trailing gap. The 0.5 ms before update is under
    // the 1 ms threshold; leaves have no gap rows.
    assert_eq!(
        main,
        vec![
            json!({"depth": 0, "thread": "main"}),
            json!({"depth": 1, "name": "frame", "data": "frame 0", "start_ns": t(0.0),
                "duration_ns": ns(20.0), "self_ns": ns(7.5)}),
            json!({"depth": 2, "name": "app::update", "data": "", "start_ns": t(0.5),
                "duration_ns": ns(4.5), "self_ns": ns(4.5)}),
            json!({"depth": 2, "gap": true, "start_ns": t(5.0), "duration_ns": ns(5.0)}),
            json!({"depth": 2, "name": "app::render", "data": "", "start_ns": t(10.0),
                "duration_ns": ns(8.0), "self_ns": ns(7.0)}),
            json!({"depth": 3, "name": "load", "data": "tex.png", "start_ns": t(10.0),
                "duration_ns": ns(1.0), "self_ns": ns(1.0)}),
            json!({"depth": 3, "gap": true, "start_ns": t(11.0), "duration_ns": ns(7.0)}),
            json!({"depth": 2, "gap": true, "start_ns": t(18.0), "duration_ns": ns(2.0)}),
        ]
    );
    // Between rayon-1's top-level jobs (7.2 to 7.5 ms): under the threshold;
    // at 0.2 ms it shows, as idle: rayon-1 runs tasks (no scope spans its
    // frame), so it waited for work rather than ran unprofiled code.
    let ui = show(&mut h, "tree", json!({"gap_ms": 0.2}));
    let rayon1: Vec<&Value> = ui["rows"]
        .as_array()
        .unwrap()
        .iter()
        .skip_while(|r| r["thread"] != "rayon-1")
        .take_while(|r| r["thread"] != "rayon-2")
        .collect();
    assert_eq!(
        rayon1[2],
        &json!({"depth": 1, "gap": true, "idle": true, "start_ns": t(7.2), "duration_ns": ns(0.3)})
    );
    // Drawn as idle: that one and rayon-2's 0.5 ms between c and d.
    assert_eq!(h.query_all_by_label("… idle (waiting for work)").count(), 2);
    show(&mut h, "tree", json!({"gap_ms": 1.0}));

    // Clicking the 5 ms gap row lists who was busy meanwhile.
    let gap_rows = h.query_all_by_label("… unprofiled gap").count();
    assert_eq!(gap_rows, 3, "every gap row is drawn");
    h.query_all_by_label("… unprofiled gap")
        .next()
        .unwrap()
        .click();
    h.run_steps(3);
    let rec = h.state().recording(Side::A).unwrap();
    let g = rec.tree.gap_window().expect("the gap was selected");
    assert_eq!((g.start_ns, g.end_ns), (t(5.0), t(10.0)));
    assert_eq!(g.thread, "main");
    // rayon-2: c (5-8 ms) and 1.5 ms of d (8.5-12); rayon-1: a and b, 2 ms each.
    let busy: Vec<(&str, i64)> = g
        .busy
        .iter()
        .map(|b| (b.thread.as_str(), b.busy_ns))
        .collect();
    assert_eq!(busy, vec![("rayon-2", ns(4.5)), ("rayon-1", ns(4.0))]);
    // The window query: what ran entirely inside the gap (d does not).
    let inside: Vec<(&str, u64)> = g
        .window
        .iter()
        .map(|w| (w.thread.as_str(), w.count))
        .collect();
    assert_eq!(inside, vec![("rayon-1", 2), ("rayon-2", 1)]);
    assert!(
        rec.tree
            .selected_frame_row()
            .is_some_and(|r| matches!(r, FrameRow::Gap { .. }))
    );
    h.get_by_label_contains("rayon-2: busy 4.500 ms");
    assert_eq!(ui_now(&h)["gap"]["busy"][0]["thread"], "rayon-2");
}

/// The scenario's table rows by name: (name, count, total, self, min, median, p95, max) in ms.
fn expected_rows() -> Vec<(&'static str, u64, [f64; 6])> {
    vec![
        ("frame", 3, [59.0, 10.0, 8.0, 20.0, 31.0, 31.0]),
        ("load", 3, [32.0, 32.0, 1.0, 1.0, 30.0, 30.0]),
        ("app::render", 2, [12.0, 10.0, 4.0, 4.0, 8.0, 8.0]),
        ("app::update", 2, [7.0, 7.0, 2.5, 2.5, 4.5, 4.5]),
        // 2, 2, 3, 3.5: lower median 2, p95 (nearest rank 4) 3.5.
        ("job", 4, [10.5, 10.5, 2.0, 2.0, 3.5, 3.5]),
    ]
}

#[test]
fn table_sorts_by_every_column_and_filters() {
    let mut h = opened();
    let ui = show(&mut h, "table", json!({"by": "name"}));
    assert_eq!(ui["view"], "table");
    assert_eq!(ui["table"]["sort"], "total");
    let expected = expected_rows();
    // Every column, both directions, against an order computed here.
    for col in SortCol::ALL {
        for descending in [true, false] {
            let ui = show(
                &mut h,
                "table",
                json!({"sort": col.as_str(), "descending": descending}),
            );
            let got: Vec<&str> = ui["rows"]
                .as_array()
                .unwrap()
                .iter()
                .map(|r| r["name"].as_str().unwrap())
                .collect();
            let mut want = expected.clone();
            let key = |r: &(&str, u64, [f64; 6])| -> f64 {
                match col {
                    SortCol::Name => 0.0,
                    SortCol::Count => r.1 as f64,
                    SortCol::Total => r.2[0],
                    SortCol::SelfTime => r.2[1],
                    SortCol::Mean => r.2[0] / r.1 as f64,
                    SortCol::Min => r.2[2],
                    SortCol::Median => r.2[3],
                    SortCol::P95 => r.2[4],
                    SortCol::Max => r.2[5],
                }
            };
            want.sort_by(|a, b| {
                let o = if col == SortCol::Name {
                    a.0.cmp(b.0)
                } else {
                    key(a).partial_cmp(&key(b)).unwrap()
                };
                let o = if descending { o.reverse() } else { o };
                // Ties by name, A to Z (and for the name column itself, reversed).
                o.then_with(|| a.0.cmp(b.0))
            });
            let want: Vec<&str> = want.iter().map(|r| r.0).collect();
            assert_eq!(got, want, "sort by {col:?}, descending {descending}");
        }
    }
    // The statistics of one row, exactly.
    let ui = show(&mut h, "table", json!({"sort": "total"}));
    let mut row = ui["rows"][4].clone();
    let percent = row["percent"].take().as_f64().unwrap();
    // Of the profiled time: the self times of every instance.
    assert!((percent - 100.0 * 7.0 / (10.0 + 32.0 + 10.0 + 7.0 + 10.5)).abs() < 1e-9);
    assert_eq!(
        row,
        json!({"name": "app::update", "count": 2, "total_ns": ns(7.0), "self_ns": ns(7.0),
            "mean_ns": ns(3.5) as f64, "min_ns": ns(2.5), "median_ns": ns(2.5), "p95_ns": ns(4.5),
            "max_ns": ns(4.5), "percent": null})
    );
    // A header click sorts (again reverses).
    h.get_by_label("count").click();
    h.run_steps(3);
    assert_eq!(
        ui_names(&h),
        ["job", "frame", "load", "app::render", "app::update"]
    );
    h.get_by_label("count").click();
    h.run_steps(3);
    assert_eq!(
        ui_names(&h),
        ["app::render", "app::update", "frame", "load", "job"]
    );

    // The filter: a prefix, or a substring in any case.
    let ui = show(
        &mut h,
        "table",
        json!({"filter": "app::", "sort": "name", "descending": false}),
    );
    assert_eq!(ui["filter"], "app::");
    assert_eq!(ui_names(&h), ["app::render", "app::update"]);
    h.state_mut().recording_mut(Side::A).unwrap().view = View::Table;
    show(&mut h, "table", json!({"filter": "OA"}));
    assert!(ui_names(&h).is_empty(), "OA is no prefix");
    h.get_by_label("substring").click();
    h.run_steps(3);
    assert_eq!(ui_names(&h), ["load"]);

    // By (name, data), one thread.
    let ui = show(
        &mut h,
        "table",
        json!({"by": "name-data", "thread": "rayon-2", "filter": "", "sort": "total"}),
    );
    let rows: Vec<(&str, i64)> = ui["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["data"].as_str().unwrap(), r["total_ns"].as_i64().unwrap()))
        .collect();
    assert_eq!(rows, vec![("d", ns(3.5)), ("c", ns(3.0))]);
}

fn ui_names(h: &Harness<'static, PuffinLensApp>) -> Vec<String> {
    ui_now(h)["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["name"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn details_spike_warning_callers_navigation_and_reveal() {
    let mut h = opened();
    // A table that lists nothing: the only scope names on screen are the details'.
    show(&mut h, "table", json!({"filter": "zzz"}));
    let ui = command(&mut h, UiCommand::Select("load".into())).expect("select");
    let d = &ui["details"];
    assert_eq!(ui["selected_scope"], "load");
    assert_eq!(d["count"], 3);
    assert_eq!(d["total_ns"], ns(32.0));
    assert_eq!(d["p95_ns"], ns(30.0));
    assert_eq!(d["spike"], true);
    assert!((d["max_share"].as_f64().unwrap() - 30.0 / 32.0).abs() < 1e-12);
    let binned: u64 = d["histogram"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["count"].as_u64().unwrap())
        .sum();
    assert_eq!(binned, 3, "every call is in a bin");
    assert_eq!(d["histogram"][0]["lo_ns"], ns(1.0));
    assert_eq!(
        d["callers"],
        json!([{"name": "frame", "count": 1, "total_ns": ns(30.0)},
               {"name": "app::render", "count": 2, "total_ns": ns(2.0)}])
    );
    h.get_by_label_contains("Spike: one call is 94% of the total");
    h.get_by_label("src/assets.rs:42");

    // Callers are links: the details move there.
    h.get_by_label("app::render").click();
    h.run_steps(3);
    assert_eq!(ui_selected(&h), "app::render");
    // 8 of 12 ms in one call: a spike too.
    assert_eq!(ui_now(&h)["details"]["spike"], true);
    assert!((ui_now(&h)["details"]["max_share"].as_f64().unwrap() - 8.0 / 12.0).abs() < 1e-12);
    h.get_by_label("frame").click();
    h.run_steps(3);
    assert_eq!(ui_selected(&h), "frame");
    // frame's callees: load, app::render, app::update.
    h.get_by_label("load").click();
    h.run_steps(3);
    assert_eq!(ui_selected(&h), "load");

    // The slowest call: the tree switches to its frame and reveals it.
    h.get_by_label_contains("30.000 ms · frame 12 · main")
        .click();
    h.run_steps(3);
    let ui = ui_now(&h);
    assert_eq!(ui["view"], "tree");
    assert_eq!(ui["tree_mode"], "frame");
    assert_eq!(ui["tree_frame"], 12);
    assert_eq!(ui["frame"], 12);
    let rec = h.state().recording(Side::A).unwrap();
    let Some(FrameRow::Scope(i)) = rec.tree.selected_frame_row() else {
        panic!("a scope row is selected")
    };
    let trace = rec.loaded().trace();
    assert_eq!(trace.scopes.duration_ns[i.idx()], ns(30.0));
    assert!(
        rec.tree.frame_rows().contains(&FrameRow::Scope(i)),
        "revealed"
    );
    assert_eq!(rec.overview.selected(), Some(FrameId(2)));

    // No call of job dominates (3.5 of 10.5 ms): no warning.
    let ui = command(&mut h, UiCommand::Select("job".into())).expect("select");
    assert_eq!(ui["details"]["spike"], false);
    h.run_steps(2);
    assert!(h.query_by_label_contains("Spike:").is_none());
}

fn ui_selected(h: &Harness<'static, PuffinLensApp>) -> String {
    ui_now(h)["selected_scope"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

#[test]
fn view_keys_hash_round_trip_and_bad_requests() {
    let mut h = opened();
    h.key_press(egui::Key::Num3);
    h.run_steps(2);
    assert_eq!(ui_now(&h)["view"], "table");
    h.key_press(egui::Key::Num2);
    h.run_steps(2);
    assert_eq!(ui_now(&h)["view"], "tree");
    h.key_press(egui::Key::Num1);
    h.run_steps(2);
    assert_eq!(ui_now(&h)["view"], "overview");

    show(
        &mut h,
        "table",
        json!({"sort": "p95", "by": "name-data", "frame": 10}),
    );
    command(&mut h, UiCommand::Select("job".into())).unwrap();
    let rec = h.state().recording(Side::A).unwrap();
    let hash = rec.hash();
    assert_eq!(
        hash,
        "view=table&frame=10&scope=job&sort=p95&desc=1&by=name-data"
    );
    // Somewhere else, then back through the hash (as back/forward do).
    show(&mut h, "tree", json!({"mode": "frame", "frame": null}));
    command(&mut h, UiCommand::Select("frame".into())).unwrap();
    let ui = command(&mut h, UiCommand::Hash(hash.clone())).unwrap();
    assert_eq!(ui["view"], "table");
    assert_eq!(ui["frame"], 10);
    assert_eq!(ui["selected_scope"], "job");
    assert_eq!(ui["table"]["sort"], "p95");
    assert_eq!(ui["table"]["by"], "name-data");
    let rec = h.state().recording(Side::A).unwrap();
    assert_eq!(rec.frames, FrameSel::One(FrameId(0)));
    assert_eq!(rec.tree.mode(), TreeMode::Frame, "the tree keeps its mode");

    let err = |h: &mut Harness<'static, PuffinLensApp>, cmd| command(h, cmd).expect_err("an error");
    assert_eq!(
        err(
            &mut h,
            UiCommand::Show {
                view: "sunburst".into(),
                options: Value::Null
            }
        ),
        "show(view): view must be \"findings\", \"overview\", \"tree\", \"table\", \"timeline\", \"flame\" or \"diff\", not \"sunburst\""
    );
    assert_eq!(
        err(
            &mut h,
            UiCommand::Show {
                view: "tree".into(),
                options: json!({"zoom": 2})
            }
        ),
        "show(\"tree\"): unknown option \"zoom\" (known: mode, frame, expand, gap_ms)"
    );
    assert_eq!(
        err(
            &mut h,
            UiCommand::Show {
                view: "tree".into(),
                options: json!({"frame": 999})
            }
        ),
        "show: no frame with frame_index 999"
    );
    assert_eq!(
        err(&mut h, UiCommand::Select("nope".into())),
        "no scope named \"nope\" (nor with that data)"
    );
}

#[test]
fn a_range_dragged_on_the_frame_chart_selects_those_frames() {
    let mut h = opened();
    let view = h.state().view(Side::A).unwrap();
    let from = view.chart_bar_pos(FrameId(0)).expect("drawn");
    let to = view.chart_bar_pos(FrameId(1)).expect("drawn");
    h.event(egui::Event::PointerMoved(from));
    h.event(egui::Event::PointerButton {
        pos: from,
        button: egui::PointerButton::Primary,
        pressed: true,
        modifiers: egui::Modifiers::NONE,
    });
    h.step();
    for k in 1..=5 {
        h.event(egui::Event::PointerMoved(
            from + (to - from) * (k as f32 / 5.0),
        ));
        h.step();
    }
    h.event(egui::Event::PointerButton {
        pos: to,
        button: egui::PointerButton::Primary,
        pressed: false,
        modifiers: egui::Modifiers::NONE,
    });
    h.run_steps(3);
    assert_eq!(
        h.state().recording(Side::A).unwrap().frames,
        FrameSel::Range(FrameId(0), FrameId(1))
    );
    assert_eq!(ui_now(&h)["frame"], json!([10, 11]));
    // The tree merges those two frames.
    let ui = show(&mut h, "tree", json!({"mode": "merged", "expand": 1}));
    assert_eq!(ui["rows"][1]["count"], 2);
    assert_eq!(ui["rows"][1]["total_ns"], ns(28.0));
}

#[test]
fn a_scope_clicked_on_the_overview_opens_its_details() {
    let mut h = opened();
    // The slowest frame (12) is selected: its scopes are frame and load.
    h.get_by_label("load").click();
    h.run_steps(3);
    let ui = ui_now(&h);
    assert_eq!(ui["view"], "overview");
    assert_eq!(ui["selected_scope"], "load");
    h.get_by_label("src/assets.rs:42");
    // Closing the details.
    h.get_by_label("close").click();
    h.run_steps(3);
    assert_eq!(ui_now(&h)["details"], Value::Null);
}

/// Right-click a row: the transforms menu; what it picks is a breadcrumb,
/// in the hash, in `ui()`; Backspace pops it; `setTransforms` and the hash
/// set the stack (a bad one left out with a notice); the tree and the flame
/// graph show what the engine's `tree` answer says.
#[test]
fn transforms_from_the_menu_breadcrumbs_keys_hash_and_the_api() {
    let mut h = opened();
    show(&mut h, "tree", json!({"mode": "merged", "expand": "all"}));
    h.get_by_label("app::render").click_secondary();
    h.run_steps(2);
    h.get_by_label("Merge app::render  (M)").click();
    h.run_steps(3);
    let ui = ui_now(&h);
    assert_eq!(ui["transforms"], json!(["merge:app::render"]));
    let names = tree_names(&ui);
    assert_eq!(
        names,
        [
            "main",
            "frame",
            "load",
            "app::update",
            "rayon-1",
            "job",
            "rayon-2",
            "job"
        ]
    );
    // The load under render moved up: one node of 3 calls, 32 ms.
    assert_eq!(ui["rows"][2]["count"], 3);
    assert_eq!(ui["rows"][2]["total_ns"], ns(32.0));
    h.get_by_label("Merge app::render  x");
    let hash = h.state().recording(Side::A).unwrap().hash();
    assert!(hash.contains("tf=merge:app::render"), "{hash}");
    // The tree's rows are the engine's answer through the same stack.
    let trace = h
        .state()
        .recording(Side::A)
        .unwrap()
        .loaded()
        .trace()
        .clone();
    let cli: Value = serde_json::from_str(
        &puffin_lens::engine::api::query_json(
            &trace,
            None,
            "tree",
            &json!({"transforms": ["merge:app::render"]}),
        )
        .unwrap(),
    )
    .unwrap();
    let main = &cli["threads"][0]["roots"][0];
    assert_eq!(main["children"][0]["name"], "load");
    assert_eq!(main["children"][0]["total_ns"], ui["rows"][2]["total_ns"]);

    // Backspace (no text field focused) pops it.
    h.key_press(egui::Key::Backspace);
    h.run_steps(3);
    let ui = ui_now(&h);
    assert_eq!(ui["transforms"], json!([]));
    assert!(tree_names(&ui).contains(&"app::render"));

    // setTransforms: a stack; a name that matches nothing is said.
    let ui = command(
        &mut h,
        UiCommand::Transforms(Stack::parse(&["drop:load", "merge:nothing"]).unwrap()),
    )
    .unwrap();
    assert_eq!(ui["transforms"], json!(["drop:load", "merge:nothing"]));
    assert_eq!(
        ui["transform_warnings"],
        json!(["merge:nothing: no scope matches; nothing changed"])
    );
    assert!(!tree_names(&ui).contains(&"load"), "{}", ui["rows"]);
    h.get_by_label("merge:nothing: no scope matches; nothing changed");

    // The flame graph shows the same stack.
    let ui = show(&mut h, "flame", json!({}));
    let paths: Vec<String> = ui["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| {
            n["path"]
                .as_array()
                .unwrap()
                .iter()
                .map(|p| p.as_str().unwrap())
                .collect::<Vec<_>>()
                .join(";")
        })
        .collect();
    assert!(!paths.iter().any(|p| p.ends_with("load")), "{paths:?}");
    assert!(
        paths.iter().any(|p| p.ends_with("app::render")),
        "{paths:?}"
    );

    // A hash with a stack restores it; a transform that does not read is
    // left out with a notice, the rest shown.
    let ui = command(
        &mut h,
        UiCommand::Hash("view=tree&frame=all&tf=collapse:frame%1Fmerge:%5Bx".into()),
    )
    .unwrap();
    assert_eq!(ui["transforms"], json!(["collapse:frame"]));
    assert!(
        ui["transform_notice"]
            .as_str()
            .unwrap()
            .contains("unclosed ["),
        "{}",
        ui["transform_notice"]
    );
    assert_eq!(tree_names(&ui)[..2], ["main", "frame"]);

    // The top bar's toggle.
    h.get_by_label("only my code").click();
    h.run_steps(3);
    assert_eq!(
        ui_now(&h)["transforms"],
        json!(["collapse:frame", "only-my-code"])
    );
    h.get_by_label("only my code").click();
    h.run_steps(3);
    assert_eq!(ui_now(&h)["transforms"], json!(["collapse:frame"]));
}

/// The keyboard menu on a selected row; the saved default stack applied to
/// a recording opened; the timeline dims what a transform drops.
#[test]
fn transform_keys_the_default_stack_and_the_timeline() {
    use puffin_lens::app::Settings;
    use puffin_lens::engine::write::puffin::{Compression, Format, write_recording};
    let settings = Settings {
        default_transforms: vec!["merge:app::update".to_owned(), "not a transform".to_owned()],
        ..Settings::default()
    };
    let bytes = write_recording(&scenario(), Format::Pfd4(Compression::Lz4));
    let mut h = common::ui::open_with(None, settings, "s.puffin", bytes);
    // The default (what reads of it) is applied and marked.
    let ui = show(&mut h, "tree", json!({"mode": "merged", "expand": "all"}));
    assert_eq!(ui["transforms"], json!(["merge:app::update"]));
    assert!(!tree_names(&ui).contains(&"app::update"));
    h.get_by_label("Merge app::update (default)  x");
    // Select a row, press D: dropped.
    h.get_by_label("app::render").click();
    h.run_steps(2);
    h.key_press(egui::Key::D);
    h.run_steps(3);
    let ui = ui_now(&h);
    assert_eq!(
        ui["transforms"],
        json!(["merge:app::update", "drop:app::render"])
    );
    assert!(!tree_names(&ui).contains(&"app::render"), "{}", ui["rows"]);
    // The timeline dims the dropped scopes and their children (2 renders,
    // 2 loads inside them), and keeps every bar.
    let ui = show(&mut h, "timeline", json!({"all": true}));
    assert_eq!(ui["view"], "timeline");
    for _ in 0..20 {
        h.step();
        if !ui_now(&h)["dimming"].as_bool().unwrap_or(true) {
            break;
        }
    }
    let ui = ui_now(&h);
    // Dimmed: the merged updates (2), the dropped renders (2) and their loads (2).
    assert_eq!(ui["dimmed_by_transforms"], 6, "{ui}");
}

const SDK: &str = "tests/fixtures/real/rerun_sdk_points.puffin";
const SDK_WORKERS: [&str; 3] = [
    "ChunkBatcher::cmds_to_chunks",
    "RecordingStream::batcher_to_sink",
    "file_writer",
];

fn open_sdk() -> (Harness<'static, PuffinLensApp>, puffin_lens::engine::Trace) {
    let bytes = std::fs::read(SDK).expect("the SDK capture");
    let trace = puffin_lens::engine::load(&bytes).expect("decodes").trace;
    let h = common::ui::open_with(
        None,
        puffin_lens::app::Settings::default(),
        "sdk.puffin",
        bytes,
    );
    (h, trace)
}

/// Thread `name`'s top-level scopes, `[start, end)`.
fn top_level_of(trace: &puffin_lens::engine::Trace, name: &str) -> Vec<(i64, i64)> {
    let s = &trace.scopes;
    (0..s.len())
        .filter(|&i| s.parent[i] == puffin_lens::engine::model::NO_PARENT)
        .filter(|&i| {
            let st = s.stream[i].idx();
            trace.thread_name(trace.streams.thread[st]) == name
        })
        .map(|i| (s.start_ns[i], s.start_ns[i] + s.duration_ns[i]))
        .collect()
}

/// The time `intervals` cover (their union) inside `[lo, hi)`: clipped
/// first, then swept in start order.
fn covered(intervals: &[(i64, i64)], lo: i64, hi: i64) -> i64 {
    let mut clipped: Vec<(i64, i64)> = intervals
        .iter()
        .map(|&(a, b)| (a.max(lo), b.min(hi)))
        .filter(|(a, b)| b > a)
        .collect();
    clipped.sort();
    let (mut total, mut reach) = (0, i64::MIN);
    for (a, b) in clipped {
        let a = a.max(reach);
        if b > a {
            total += b - a;
            reach = b;
        }
    }
    total
}

#[test]
fn the_sdk_capture_is_one_frame_and_its_overview_shows_the_run() {
    let (mut h, trace) = open_sdk();
    let ui = ui_now(&h);
    assert_eq!(ui["view"], "overview");
    let o = &ui["overview"];
    // Said at the top, in the report's words.
    let (lo, hi) = trace.frames.range_ns[0];
    assert_eq!(trace.frames.len(), 1);
    let sentence = o["unframed"]["sentence"].as_str().unwrap();
    assert_eq!(
        sentence,
        format!(
            "One frame covers the whole {:.1} s run (the app never ends a puffin frame): \
             figures are per second, and per-frame statistics are left out.",
            (hi - lo) as f64 / 1e9
        )
    );
    h.get_by_label(sentence);
    assert_eq!(o["unframed"]["frames"], 1);
    assert_eq!(o["unframed"]["span_ns"], hi - lo);
    // The run chart instead of one bar against the budget line.
    assert_eq!(o["chart"], "run");
    assert_eq!(o["frame_bars"], 0);
    h.get_by_label("Busy time per thread (s since the start)");
    assert!(h.query_by_label("Frame times (ms)").is_none());
    let run = &o["run"];
    assert_eq!(
        (run["start_ns"].as_i64(), run["end_ns"].as_i64()),
        (Some(lo), Some(hi))
    );
    // 10.4 s in 100 ms buckets (at most 200 round ones): 104, in seconds
    // since the start, the last one cut at the end.
    assert_eq!(run["bucket_ns"], 100_000_000);
    let buckets = run["buckets"].as_array().unwrap();
    let n = ((hi - lo) as f64 / 1e8).ceil() as usize;
    assert_eq!(buckets.len(), n);
    for (k, b) in buckets.iter().enumerate() {
        assert!(
            (b["start_s"].as_f64().unwrap() - k as f64 * 0.1).abs() < 1e-9,
            "{b}"
        );
    }
    let last_end = buckets[n - 1]["end_s"].as_f64().unwrap();
    assert!((last_end - (hi - lo) as f64 / 1e9).abs() < 1e-9);
    // Every thread with scopes, by name; each worker's busy time per
    // bucket as the trace gives it, bucket by bucket.
    let threads = run["threads"].as_array().unwrap();
    let names: Vec<&str> = threads
        .iter()
        .map(|t| t["thread"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["", SDK_WORKERS[0], SDK_WORKERS[1], SDK_WORKERS[2]]);
    for w in SDK_WORKERS {
        let t = threads.iter().find(|t| t["thread"] == w).unwrap();
        let tops = top_level_of(&trace, w);
        let want: Vec<i64> = (0..n as i64)
            .map(|k| {
                covered(
                    &tops,
                    lo + k * 100_000_000,
                    (lo + (k + 1) * 100_000_000).min(hi),
                )
            })
            .collect();
        let got: Vec<i64> = t["busy_ns"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_i64().unwrap())
            .collect();
        assert_eq!(got, want, "{w}");
        // The busiest bucket (first of equals) and the whole run's busy time.
        let max = *want.iter().max().unwrap();
        assert!(max > 0 && max <= 100_000_000, "{w}: {max}");
        let k = want.iter().position(|&v| v == max).unwrap();
        assert_eq!(t["busiest"]["bucket"], k, "{w}");
        assert_eq!(t["busiest"]["busy_ns"], max, "{w}");
        assert_eq!(t["total_busy_ns"], covered(&tops, lo, hi), "{w}");
    }
    // file_writer works most: over half a second of the run.
    let fw = threads
        .iter()
        .find(|t| t["thread"] == "file_writer")
        .unwrap();
    assert!(fw["total_busy_ns"].as_i64().unwrap() > 500_000_000);

    // A drag across the chart from 2 s to 3 s opens the timeline on it.
    let rec = h.state().recording(Side::A).unwrap();
    let (a, b) = (
        rec.overview.run_chart_pos(2.0, 3).expect("drawn"),
        rec.overview.run_chart_pos(3.0, 3).expect("drawn"),
    );
    h.event(egui::Event::PointerMoved(a));
    h.step();
    let press = |pos, pressed| egui::Event::PointerButton {
        pos,
        button: egui::PointerButton::Primary,
        pressed,
        modifiers: egui::Modifiers::NONE,
    };
    h.event(press(a, true));
    h.step();
    for x in 1..=4 {
        h.event(egui::Event::PointerMoved(a + (b - a) * (x as f32 / 4.0)));
        h.step();
    }
    h.event(press(b, false));
    h.run_steps(3);
    let ui = ui_now(&h);
    assert_eq!(ui["view"], "timeline");
    let range = ui["range_ns"].as_array().unwrap();
    let (r0, r1) = (range[0].as_i64().unwrap(), range[1].as_i64().unwrap());
    // Within a few pixels (10.4 s over the chart's width).
    let px = 50_000_000;
    assert!((r0 - (lo + 2_000_000_000)).abs() < px, "{r0}");
    assert!((r1 - (lo + 3_000_000_000)).abs() < px, "{r1}");
}

#[test]
fn a_framed_capture_keeps_its_frame_chart() {
    let h = opened();
    let o = &ui_now(&h)["overview"];
    assert_eq!(o["unframed"], Value::Null);
    assert_eq!(o["chart"], "frames");
    assert_eq!(o["frame_bars"], 3);
    assert_eq!(o["run"], Value::Null);
    h.get_by_label("Frame times (ms)");
    assert!(
        h.query_by_label("Busy time per thread (s since the start)")
            .is_none()
    );
}

#[test]
fn the_sdk_workers_top_level_waits_are_idle_rows_in_the_tree() {
    let (mut h, trace) = open_sdk();
    let ui = show(
        &mut h,
        "tree",
        json!({"mode": "frame", "frame": 0, "expand": 1, "gap_ms": 1.0}),
    );
    assert_eq!(ui["tree_mode"], "frame");
    let rec = h.state().recording(Side::A).unwrap();
    // Each top-level gap row, by thread: (idle, start, duration).
    type GapRows = Vec<(bool, i64, i64)>;
    let mut by_thread: Vec<(String, GapRows)> = Vec::new();
    for r in rec.tree.frame_rows() {
        match *r {
            FrameRow::Thread(st) => by_thread.push((
                trace.thread_name(trace.streams.thread[st.idx()]).to_owned(),
                Vec::new(),
            )),
            FrameRow::Gap {
                depth: 1,
                start_ns,
                duration_ns,
                idle,
            } => by_thread
                .last_mut()
                .unwrap()
                .1
                .push((idle, start_ns, duration_ns)),
            FrameRow::Gap { depth, .. } => panic!("a gap at depth {depth} with nothing expanded"),
            FrameRow::Scope(_) => {}
        }
    }
    for w in SDK_WORKERS {
        let (_, gaps) = by_thread.iter().find(|(t, _)| t == w).unwrap();
        // Every stretch of at least 1 ms between its top-level scopes, as
        // the trace gives them, and each one idle.
        let mut tops = top_level_of(&trace, w);
        tops.sort();
        let mut want = Vec::new();
        let mut reach = tops[0].1;
        for &(a, b) in &tops[1..] {
            if a - reach >= 1_000_000 {
                want.push((true, reach, a - reach));
            }
            reach = reach.max(b);
        }
        assert!(!want.is_empty(), "{w} waits");
        assert_eq!(gaps, &want, "{w}");
    }
    // None drawn as unprofiled; the idle label is, and selecting one says idle.
    assert!(h.query_by_label("… unprofiled gap").is_none());
    h.query_all_by_label("… idle (waiting for work)")
        .next()
        .expect("an idle row drawn")
        .click();
    h.run_steps(3);
    let ui = ui_now(&h);
    assert_eq!(ui["gap"]["idle"], true, "{}", ui["gap"]);
    h.get_by_label_contains("Idle time of");
}
