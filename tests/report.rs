//! `puffin-lens report` on recordings with answers known by construction.

mod common;

use common::{code, run, stderr, temp_file};
use puffin_lens::engine::write::puffin::{
    Compression, Format, FrameData, Registration, ScopeNode, ThreadData, write_recording,
};
use serde_json::Value;

const MS: i64 = 1_000_000;
const T0: i64 = 1_700_000_000_000_000_000;

fn regs() -> Vec<Registration> {
    vec![
        Registration::named(1, "frame_body", "game::run", "src/game.rs", 10),
        Registration::named(2, "update", "game::update", "src/game.rs", 20),
        Registration::named(3, "render", "game::render", "src/render.rs", 30),
        Registration::named(4, "job", "game::worker", "src/worker.rs", 40),
        Registration::named(5, "load", "game::load", "src/load.rs", 50),
        Registration::named(6, "physics", "game::physics", "src/physics.rs", 60),
        Registration::named(7, "ai", "game::ai", "src/ai.rs", 70),
    ]
}

/// Five frames of 20 ms. Main: `frame_body` > `update` 2 ms, a 5 ms gap,
/// `render` 2 ms, `load` (1 ms; 6 ms in frame 3: 60% of its 10 ms total).
/// Worker: `job` covering the gap.
fn capture(registered: bool) -> Vec<FrameData> {
    (0..5)
        .map(|f| {
            let t = T0 + f * 20 * MS;
            let load_ms = if f == 3 { 6 } else { 1 };
            let body = ScopeNode::new(1, t, t + 18 * MS)
                .child(ScopeNode::new(2, t, t + 2 * MS))
                .child(ScopeNode::new(3, t + 7 * MS, t + 9 * MS))
                .child(ScopeNode::new(5, t + 9 * MS, t + (9 + load_ms) * MS));
            FrameData {
                frame_index: f as u64,
                threads: vec![
                    ThreadData {
                        name: "main".into(),
                        start_time_ns: None,
                        scopes: vec![body],
                    },
                    ThreadData {
                        name: "worker".into(),
                        start_time_ns: None,
                        scopes: vec![ScopeNode::new(4, t + 2 * MS, t + 7 * MS)],
                    },
                ],
                registrations: if registered && f == 0 {
                    regs()
                } else {
                    Vec::new()
                },
            }
        })
        .collect()
}

/// Ten frames: `physics` 2 ms (4 ms in B, every frame), `ai` 1 ms (in B
/// 10 ms in frame 6 only), `render` 1 ms in both.
fn game(b: bool) -> Vec<FrameData> {
    (0..10)
        .map(|f| {
            let t = T0 + f * 20 * MS;
            let physics = if b { 4 } else { 2 };
            let ai = if b && f == 6 { 10 } else { 1 };
            let body = ScopeNode::new(1, t, t + (physics + ai + 1) * MS)
                .child(ScopeNode::new(6, t, t + physics * MS))
                .child(ScopeNode::new(7, t + physics * MS, t + (physics + ai) * MS))
                .child(ScopeNode::new(
                    3,
                    t + (physics + ai) * MS,
                    t + (physics + ai + 1) * MS,
                ));
            FrameData {
                frame_index: f as u64,
                threads: vec![ThreadData {
                    name: "main".into(),
                    start_time_ns: None,
                    scopes: vec![body],
                }],
                registrations: if f == 0 { regs() } else { Vec::new() },
            }
        })
        .collect()
}

fn report_json(args: &[&str]) -> Value {
    let mut all = vec!["report"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["--format", "json"]);
    let out = run(&all);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    serde_json::from_slice(&out.stdout).expect("JSON")
}

#[test]
fn one_recording_gaps_outliers_and_sections() {
    let bytes = write_recording(&capture(true), Format::Pfd4(Compression::Lz4));
    let (_d, path) = temp_file("game.puffin", &bytes);
    let p = path.to_str().unwrap();
    let r = report_json(&[p]);
    let rec = &r["recordings"][0];
    assert_eq!(rec["registration"]["has_registration"], true);
    assert_eq!(rec["registration"]["warning"], "");
    // Each section is its query's --json.
    let cli = |args: &[&str]| -> Value { serde_json::from_slice(&run(args).stdout).expect("JSON") };
    assert_eq!(
        rec["slowest_frames"],
        cli(&["frames", p, "--top", "10", "--json"])
    );
    assert_eq!(
        rec["slowest_scopes"],
        cli(&["top", p, "--top", "10", "--json"])
    );
    assert_eq!(rec["gaps"], cli(&["gaps", p, "--min-ms", "1", "--json"]));
    // The 5 ms gap on main, with the worker busy through it.
    let gaps = rec["gaps"].as_array().unwrap();
    let gap = gaps
        .iter()
        .find(|g| g["thread"] == "main" && g["duration_ns"] == 5 * MS)
        .expect("the 5 ms gap");
    assert_eq!(gap["after"]["name"], "update");
    let busy = &gap["other_threads"][0];
    assert_eq!(busy["thread"], "worker");
    assert_eq!(busy["busy_ns"], 5 * MS);
    // `load`: one call of 6 ms is 60% of its 10 ms, in frame 3.
    let outliers = rec["outliers"].as_array().unwrap();
    assert_eq!(outliers.len(), 1, "{outliers:?}");
    assert_eq!(outliers[0]["name"], "load");
    assert_eq!(outliers[0]["frame_index"], 3);
    assert_eq!(outliers[0]["max_share"], 0.6);
    assert_eq!(outliers[0]["thread"], "main");
    // Totals per name with p95; the hot path follows the largest child.
    let load = rec["totals"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "load")
        .unwrap();
    assert_eq!(
        (load["count"].as_i64(), load["total_ns"].as_i64()),
        (Some(5), Some(10 * MS))
    );
    assert_eq!(load["p95_ns"], 6 * MS);
    let main_path = rec["hot_paths"]
        .as_array()
        .unwrap()
        .iter()
        .find(|h| h["thread"] == "main")
        .unwrap();
    let steps: Vec<&str> = main_path["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert_eq!(steps, ["frame_body", "load"]);

    // Markdown: the same, for people.
    let md = run(&["report", p]);
    assert_eq!(code(&md), 0);
    let md = String::from_utf8(md.stdout).unwrap();
    for needle in [
        "# puffin-lens report: game.puffin",
        "Scope registration: present (7 scopes registered)",
        "| main | 0 | 5.000 ms | frame_body | update | worker 5.000 ms |",
        "| load | 5 | 10.000 ms | 6.000 ms | 60% | 3 | main |",
        "- **main**: `frame_body` 90.000 ms > `load` 10.000 ms",
    ] {
        assert!(md.contains(needle), "{needle:?} in\n{md}");
    }
}

#[test]
fn a_recording_without_registration_gets_the_loud_warning() {
    let bytes = write_recording(&capture(false), Format::Pfd4(Compression::Lz4));
    let (_d, path) = temp_file("noreg.puffin", &bytes);
    let r = report_json(&[path.to_str().unwrap()]);
    let reg = &r["recordings"][0]["registration"];
    assert_eq!(reg["has_registration"], false);
    assert_eq!(reg["unregistered_ids"], serde_json::json!([1, 2, 3, 4, 5]));
    assert!(
        reg["warning"]
            .as_str()
            .unwrap()
            .starts_with("NO SCOPE REGISTRATION")
    );
    let md = String::from_utf8(run(&["report", path.to_str().unwrap()]).stdout).unwrap();
    assert!(md.contains("> [!WARNING]\n> NO SCOPE REGISTRATION"), "{md}");
}

#[test]
fn two_recordings_a_change_and_a_spike_told_apart() {
    let (_da, a) = temp_file(
        "a.puffin",
        &write_recording(&game(false), Format::Pfd4(Compression::Lz4)),
    );
    let (_db, b) = temp_file(
        "b.puffin",
        &write_recording(&game(true), Format::Pfd4(Compression::Lz4)),
    );
    let (a, b) = (a.to_str().unwrap(), b.to_str().unwrap());
    let r = report_json(&[a, b]);
    assert_eq!(r["recordings"].as_array().unwrap().len(), 2);
    assert_eq!(r["recordings"][0]["label"], "A");
    let c = &r["comparison"];
    assert_eq!(c["frames_a"], 10);
    assert_eq!(c["frames_b"], 10);
    assert_eq!(c["normalized"], false);
    // physics doubled in every frame: a change; ai grew by one call: a spike.
    assert!(
        c["changes"].as_array().unwrap().contains(&"physics".into()),
        "{c}"
    );
    assert!(
        !c["changes"].as_array().unwrap().contains(&"ai".into()),
        "{c}"
    );
    assert_eq!(c["spikes"], serde_json::json!(["ai"]));
    // The rows are compare's.
    let compare: Value =
        serde_json::from_slice(&run(&["compare", a, b, "--top", "10", "--json"]).stdout).unwrap();
    assert_eq!(c["rows"], compare["rows"]);
    // Where it changed: frame_body, then physics (+20 ms against ai's +9 ms).
    let path: Vec<&str> = c["hot_paths"][0]["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert_eq!(path, ["frame_body", "physics"]);
    let md = String::from_utf8(run(&["report", a, b]).stdout).unwrap();
    assert!(md.contains("| ai |  | 10.000 ms | 19.000 ms | 9.000 ms | 0.900 ms | **one spike** (one call dominates) |"), "{md}");
    // The same count and total on both sides: unchanged, and not a change.
    assert!(
        md.contains("| render |  | 10.000 ms | 10.000 ms | 0.000 ms | 0.000 ms | unchanged |"),
        "{md}"
    );
    assert!(
        md.contains("Judgement: **unchanged** when A and B have the same count"),
        "{md}"
    );
    assert!(
        !c["changes"].as_array().unwrap().contains(&"render".into()),
        "{c}"
    );
    assert!(
        !c["spikes"].as_array().unwrap().contains(&"render".into()),
        "{c}"
    );
    assert!(
        md.contains(
            "- **Real changes** (spread over the calls, not one spike): `frame_body`, `physics`"
        ),
        "{md}"
    );
}

#[test]
fn html_is_one_page_with_charts_and_formats_follow_the_extension() {
    let bytes = write_recording(&capture(true), Format::Pfd4(Compression::Lz4));
    let (dir, path) = temp_file("game.puffin", &bytes);
    let p = path.to_str().unwrap();
    let html = dir.path().join("r.html");
    let out = run(&["report", p, "-o", html.to_str().unwrap()]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(page.starts_with("<!DOCTYPE html>"));
    assert!(page.contains("class=\"chart frames\""));
    assert!(page.contains("class=\"chart gaps\""));
    assert!(page.contains("class=\"chart calls\""));
    assert!(page.contains("<table>"));
    // Self-contained: nothing to fetch.
    for external in ["src=", "href=", "@import", "url("] {
        assert!(!page.contains(external), "{external} in the page");
    }
    let json = dir.path().join("r.json");
    run(&["report", p, "-o", json.to_str().unwrap()]);
    let v: Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    assert!(v["recordings"].is_array());
    // Usage and input errors.
    assert_eq!(code(&run(&["report", p, "--top", "0"])), 2);
    assert_eq!(code(&run(&["report", p, "--gap-ms", "-1"])), 2);
    assert_eq!(code(&run(&["report", "missing.puffin"])), 1);
}
