//! The flame graph (egui_kittest) on the analyses' scenario: every node of
//! the `tree` answer laid out with width = total / shown total, a click
//! focuses a node and the breadcrumb and Esc go back, the filter dims and
//! states the share, the name order, and the hash keeps where the user is.

mod common;

use common::scenario::*;
use common::ui::{click, command, open_scenario, ui_now};
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable as _;
use puffin_lens::app::{PuffinLensApp, Side, UiCommand};
use puffin_lens::engine::api;
use puffin_lens::engine::write::puffin::{Compression, Format, write_recording};
use serde_json::{Value, json};
use std::collections::BTreeMap;

fn show(h: &mut Harness<'static, PuffinLensApp>, options: Value) -> Value {
    command(
        h,
        UiCommand::Show {
            view: "flame".into(),
            options,
        },
    )
    .unwrap_or_else(|e| panic!("show flame: {e}"));
    h.run_steps(2);
    ui_now(h)
}

/// path (thread, names…) → total_ns, from the `tree` query's answer.
fn tree_totals(tree: &Value) -> BTreeMap<Vec<String>, i64> {
    fn walk(node: &Value, path: &mut Vec<String>, out: &mut BTreeMap<Vec<String>, i64>) {
        path.push(node["name"].as_str().unwrap().to_owned());
        out.insert(path.clone(), node["total_ns"].as_i64().unwrap());
        for c in node["children"].as_array().unwrap() {
            walk(c, path, out);
        }
        path.pop();
    }
    let mut out = BTreeMap::new();
    for th in tree["threads"].as_array().unwrap() {
        let name = th["name"].as_str().unwrap().to_owned();
        out.insert(vec![name.clone()], th["total_ns"].as_i64().unwrap());
        for root in th["roots"].as_array().unwrap() {
            walk(root, &mut vec![name.clone()], &mut out);
        }
    }
    out
}

fn nodes(ui: &Value) -> BTreeMap<Vec<String>, (f64, f64, i64, u64)> {
    ui["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| {
            let path = n["path"]
                .as_array()
                .unwrap()
                .iter()
                .map(|p| p.as_str().unwrap().to_owned())
                .collect();
            (
                path,
                (
                    n["x0"].as_f64().unwrap(),
                    n["x1"].as_f64().unwrap(),
                    n["total_ns"].as_i64().unwrap(),
                    n["depth"].as_u64().unwrap(),
                ),
            )
        })
        .collect()
}

#[test]
fn every_node_of_the_tree_with_width_its_share_of_the_total() {
    let mut h = open_scenario(None);
    let ui = show(&mut h, json!({"frame": null}));
    assert_eq!(ui["view"], "flame");
    assert_eq!(ui["order"], "heavy");
    let trace = write_recording(&scenario(), Format::Pfd4(Compression::Lz4));
    let trace = puffin_lens::engine::load(&trace).unwrap().trace;
    let tree: Value =
        serde_json::from_str(&api::query_json(&trace, None, "tree", &json!({})).unwrap()).unwrap();
    let expected = tree_totals(&tree);
    let got = nodes(&ui);
    assert_eq!(
        got.keys().collect::<Vec<_>>(),
        expected.keys().collect::<Vec<_>>(),
        "the same nodes as `tree`"
    );
    let total = ui["total_ns"].as_i64().unwrap();
    assert_eq!(
        total,
        ["main", "rayon-1", "rayon-2"]
            .iter()
            .map(|t| expected[&vec![t.to_string()]])
            .sum::<i64>()
    );
    for (path, &(x0, x1, total_ns, depth)) in &got {
        assert_eq!(total_ns, expected[path], "{path:?}");
        let width = (x1 - x0) * total as f64;
        assert!(
            (width - total_ns as f64).abs() < 1.0,
            "{path:?}: {width} vs {total_ns}"
        );
        assert_eq!(depth as usize, path.len() - 1, "threads are depth 0");
    }
    // Left-heavy: main (the largest thread) starts at 0; under frame, the
    // largest child first.
    assert_eq!(got[&vec!["main".to_owned()]].0, 0.0);
    let child_x0 = |name: &str| got[&vec!["main".into(), "frame".into(), name.into()]].0;
    assert!(
        child_x0("load") < child_x0("app::render")
            && child_x0("app::render") < child_x0("app::update"),
        "load (30 ms), render (12 ms), update (7 ms)"
    );
    // By name: the siblings' order changes.
    let by_name = nodes(&show(&mut h, json!({"order": "name"})));
    let x0 = |name: &str| by_name[&vec!["main".into(), "frame".into(), name.into()]].0;
    assert!(x0("app::render") < x0("app::update") && x0("app::update") < x0("load"));
    let threads: Vec<f64> = ["main", "rayon-1", "rayon-2"]
        .iter()
        .map(|t| by_name[&vec![t.to_string()]].0)
        .collect();
    assert!(threads.windows(2).all(|w| w[0] < w[1]), "threads by name");
}

#[test]
fn a_click_focuses_the_breadcrumb_and_esc_go_back() {
    let mut h = open_scenario(Some(1.0 / 60.0));
    show(&mut h, json!({"frame": null}));
    // Click `app::render` under main/frame.
    let center = {
        let flame = h
            .state()
            .recording(Side::A)
            .unwrap()
            .flame
            .as_ref()
            .unwrap();
        let t = flame.tree();
        let r = flame
            .layout()
            .rects
            .iter()
            .find(|r| flame.path_names(r.node) == ["main", "frame", "app::render"])
            .copied()
            .expect("render laid out");
        assert!(t.total_ns[r.node.idx()] > 0);
        flame.node_center(&r)
    };
    click(&mut h, center);
    h.run_steps(2);
    let ui = ui_now(&h);
    assert_eq!(ui["focus"], json!(["main", "frame", "app::render"]));
    let got = nodes(&ui);
    // The focused node is the full width, its child below it.
    assert_eq!(
        got[&vec!["main".into(), "frame".into(), "app::render".into()]].0,
        0.0
    );
    assert_eq!(
        got[&vec!["main".into(), "frame".into(), "app::render".into()]].1,
        1.0
    );
    assert_eq!(got.len(), 2, "render and its load: {got:?}");
    // The breadcrumb goes back to `frame`; Esc to `main`; "all" to the roots.
    h.get_by_label("frame").click();
    h.run_steps(3);
    assert_eq!(ui_now(&h)["focus"], json!(["main", "frame"]));
    h.key_press(egui::Key::Escape);
    h.run_steps(3);
    assert_eq!(ui_now(&h)["focus"], json!(["main"]));
    h.get_by_label("all").click();
    h.run_steps(3);
    assert_eq!(ui_now(&h)["focus"], Value::Null);
    // The hash keeps the view, thread, focus and order.
    show(
        &mut h,
        json!({"thread": "main", "focus": ["main", "frame"], "order": "name"}),
    );
    let hash = h.state().recording(Side::A).unwrap().hash();
    assert!(hash.contains("view=flame"), "{hash}");
    let mut again = open_scenario(None);
    again
        .state_mut()
        .recording_mut(Side::A)
        .unwrap()
        .apply_hash(&hash);
    again.run_steps(3);
    let ui = ui_now(&again);
    assert_eq!(ui["view"], "flame");
    assert_eq!(ui["thread"], "main");
    assert_eq!(ui["focus"], json!(["main", "frame"]));
    assert_eq!(ui["order"], "name");
}

#[test]
fn the_filter_states_the_share_it_matches() {
    let mut h = open_scenario(None);
    show(&mut h, json!({"frame": null, "thread": "main"}));
    h.state_mut().set_filter("load");
    h.run_steps(3);
    let ui = ui_now(&h);
    // One thread: main is the only root; load runs 1 + 1 + 30 ms of it.
    let main = ns(20.0) + ns(8.0) + ns(31.0);
    let share = ui["share"]["share"].as_f64().unwrap();
    assert!(
        (share - ns(32.0) as f64 / main as f64).abs() < 1e-9,
        "{}",
        ui["share"]
    );
    assert_eq!(ui["share"]["of"], "main");
    h.get_by_label_contains("load: 54.2% of main");
    // A bad option is refused with what is known.
    let err = command(
        &mut h,
        UiCommand::Show {
            view: "flame".into(),
            options: json!({"order": "sideways"}),
        },
    )
    .unwrap_err();
    assert!(err.contains("order"), "{err}");
}

#[test]
fn the_sandwich_lists_exactly_callers_and_callees() {
    let mut h = open_scenario(None);
    let trace = write_recording(&scenario(), Format::Pfd4(Compression::Lz4));
    let trace = puffin_lens::engine::load(&trace).unwrap().trace;
    for name in ["load", "frame", "app::render", "job"] {
        let ui = show(
            &mut h,
            json!({"frame": null, "thread": null, "sandwich": name}),
        );
        let sw = &ui["sandwich"];
        assert_eq!(sw["name"], name);
        let expected: Value = serde_json::from_str(
            &api::query_json(&trace, None, "callers", &json!({ "name": name })).unwrap(),
        )
        .unwrap();
        // The first row each way is the `callers` query's answer.
        let row = |side: &str| -> BTreeMap<String, i64> {
            sw[side]
                .as_array()
                .unwrap()
                .iter()
                .filter(|n| n["depth"] == 1)
                .map(|n| {
                    let path = n["path"].as_array().unwrap();
                    (
                        path.last().unwrap().as_str().unwrap().to_owned(),
                        n["total_ns"].as_i64().unwrap(),
                    )
                })
                .collect()
        };
        let query = |side: &str| -> BTreeMap<String, i64> {
            expected[side]
                .as_array()
                .unwrap()
                .iter()
                .map(|r| {
                    (
                        r["name"].as_str().unwrap_or("(top level)").to_owned(),
                        r["total_ns"].as_i64().unwrap(),
                    )
                })
                .collect()
        };
        assert_eq!(row("callers"), query("callers"), "{name}: callers");
        assert_eq!(row("callees"), query("callees"), "{name}: callees");
        // The scope's own row is its total over every call.
        let root = &sw["callers"][0];
        assert_eq!(root["depth"], 0);
        assert_eq!(root["total_ns"], expected["total_ns"], "{name}");
    }
    // Back to the graph.
    let ui = show(&mut h, json!({"sandwich": null}));
    assert_eq!(ui["sandwich"], Value::Null);
}
