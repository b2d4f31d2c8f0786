//! The Findings page (egui_kittest): a pair opens on it, its sentences are
//! the CLI binary's (`report --format json`, run as a process), each link
//! opens the view that shows its evidence and Back returns; one recording
//! has the same page.

mod common;

use common::ui::{command, open_with, ui_now};
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable as _;
use puffin_lens::app::{PuffinLensApp, Settings, Side, Source, UiCommand};
use serde_json::Value;

/// The app with `a` open as A, then `b` as B (as two drops), run until the
/// findings are made.
fn open_pair(a: &[u8], b: &[u8]) -> Harness<'static, PuffinLensApp> {
    let mut h = open_with(None, Settings::default(), "a.puffin", a.to_vec());
    h.state().open("b.puffin", Source::Bytes(b.to_vec()), None);
    for _ in 0..200 {
        h.step();
        if h.state().recording(Side::B).is_some() && ui_now(&h)["computing"] == false {
            break;
        }
    }
    h.run_steps(2);
    h
}

use common::cli_report;

fn pairs() -> Vec<(&'static str, Vec<u8>, Vec<u8>)> {
    use common::shapes::{Editor, Gc, Lookup, editor_bytes};
    let read = |p: &str| std::fs::read(common::fixtures_dir().join(p)).unwrap();
    let changed = Editor {
        gc: Gc::Every {
            every: 10,
            phase: 3,
            ms: 12.0,
        },
        lookup: Lookup::Linear { from: 0.3, to: 3.0 },
        ..Editor::steady(60)
    };
    vec![
        (
            "planted editor",
            editor_bytes(Editor::steady(60), 1),
            editor_bytes(changed, 2),
        ),
        (
            "live twins",
            read("twins/live_demo_quiet.puffin"),
            read("twins/live_demo_hog.puffin"),
        ),
        (
            "viewer",
            read("real/rerun_viewer_plots_a.puffin"),
            read("real/rerun_viewer_plots_b.puffin"),
        ),
    ]
}

#[test]
fn a_pair_opens_on_its_findings_in_the_reports_words_and_links_to_the_evidence() {
    for (what, a, b) in pairs() {
        let mut h = open_pair(&a, &b);
        let ui = ui_now(&h);
        assert_eq!(ui["view"], "findings", "{what}: {ui}");
        assert_eq!(ui["computing"], false, "{what}");
        let cli = cli_report(&a, &b);
        let c = &cli["comparison"];
        let sentences: Vec<&Value> = ui["look_first"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| &x["sentence"])
            .collect();
        let expected: Vec<&Value> = c["look_first"].as_array().unwrap().iter().collect();
        assert_eq!(sentences, expected, "{what}");
        assert_eq!(ui["noise"]["model"], c["noise"]["model"], "{what}");
        assert_eq!(ui["frame"]["median_b_ns"], c["frame"]["median_b_ns"]);
        assert_eq!(ui["conditions"], c["conditions"], "{what}");
        let names = |v: &Value| -> Vec<String> {
            v.as_array()
                .unwrap()
                .iter()
                .map(|r| r["name"].as_str().unwrap().to_owned())
                .collect()
        };
        assert_eq!(names(&ui["changes"]), names(&c["rows"]), "{what}");
        // The glance is the report's, as drawn: the headline on the page.
        assert_eq!(ui["glance"], c["glance"], "{what}");
        h.get_by_label(c["glance"]["headline"].as_str().unwrap());
        // The page says it: its first heading is the report's.
        h.get_by_label_contains("What changed (B against A)");
        // Each link opens the diff table on its scope, both sides' calls;
        // Back (the hash the page had) returns.
        let findings_hash = "view=findings&frame=all".to_owned();
        for item in ui["look_first"].as_array().unwrap() {
            let Some(link) = item["link"].as_str() else {
                continue;
            };
            let got = command(&mut h, UiCommand::Hash(link.to_owned())).unwrap();
            assert_eq!(got["view"], "diff", "{what}: {link}");
            let name = link.rsplit("scope=").next().unwrap();
            let shown = got["details"]["name"].as_str().unwrap_or_default();
            assert_eq!(
                puffin_lens::app::nav::encode_hash(&[("s", shown.to_owned())]),
                format!("s={name}"),
                "{what}: {link}"
            );
            let back = command(&mut h, UiCommand::Hash(findings_hash.clone())).unwrap();
            assert_eq!(back["view"], "findings", "{what}");
        }
    }
}

#[test]
fn the_glance_adds_up_to_the_frames_change_and_names_each_change_by_its_kind() {
    for (what, a, b) in pairs() {
        let c = &cli_report(&a, &b)["comparison"];
        let g = &c["glance"];
        let f = |v: &Value| v.as_f64().unwrap();
        // A's frame, every part, B's frame: the waterfall closes exactly.
        let parts: f64 = g["bars"]
            .as_array()
            .unwrap()
            .iter()
            .map(|b| f(&b["delta_ns"]))
            .sum();
        assert!(
            (f(&g["a_ns"]) + parts - f(&g["b_ns"])).abs() < 1.0,
            "{what}: {g}"
        );
        assert_eq!(g["a_ns"], c["frame"]["mean_a_ns"], "{what}");
        // Each cause bar is a name the accounting counted as a change, its
        // share beyond the drift.
        for bar in g["bars"].as_array().unwrap() {
            if bar["part"] == "cause" {
                let name = bar["name"].as_str().unwrap();
                let x = c["frame"]["contributions"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .find(|x| x["name"] == name)
                    .unwrap_or_else(|| panic!("{what}: {name}"));
                assert_eq!(x["beyond_drift_ns"], bar["delta_ns"], "{what}: {name}");
                assert!(!matches!(
                    x["kind"].as_str(),
                    Some("unchanged" | "inconclusive")
                ));
            } else if bar["part"] != "unprofiled" {
                assert_eq!(bar["cost"], false, "{what}: {bar}");
            }
        }
        // The headline says the frame's verdict.
        let h = g["headline"].as_str().unwrap();
        match c["frame"]["effect"]["verdict"].as_str().unwrap() {
            "changed" => assert!(h.contains("slower") || h.contains("faster"), "{what}: {h}"),
            "unchanged" => assert!(h.contains("unchanged"), "{what}: {h}"),
            _ => assert!(h.contains("not told apart"), "{what}: {h}"),
        }
    }
    // The planted editor: the new periodic stall and the growing lookup,
    // each one line with its kind.
    let (_, a, b) = pairs().remove(0);
    let g = &cli_report(&a, &b)["comparison"]["glance"];
    let badge = |name: &str| {
        g["findings"]
            .as_array()
            .unwrap()
            .iter()
            .find(|x| x["name"] == name)
            .unwrap_or_else(|| panic!("{name}: {g}"))["badge"]
            .as_str()
            .unwrap()
            .to_owned()
    };
    assert!(badge("gc::sweep").starts_with("new"), "{g}");
    assert!(badge("cache::lookup").contains("grows through B"), "{g}");
    // Its line's sparkline grows through B, flat through A.
    let lookup = g["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["name"] == "cache::lookup")
        .unwrap();
    let series = |k: &str| -> Vec<f64> {
        lookup[k]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_f64().unwrap())
            .collect()
    };
    let (sa, sb) = (series("spark_a_ns"), series("spark_b_ns"));
    assert!(!sa.is_empty() && sb.len() > 10, "{lookup}");
    assert!(sb[sb.len() - 1] > 5.0 * sb[0], "{sb:?}");
    let (lo, hi) = sa
        .iter()
        .fold((f64::MAX, 0.0f64), |(l, h), &v| (l.min(v), h.max(v)));
    assert!(hi < 1.5 * lo, "{sa:?}");
}

#[test]
fn the_planted_changes_are_on_the_page_with_their_links() {
    let (_, a, b) = pairs().remove(0);
    let h = open_pair(&a, &b);
    let ui = ui_now(&h);
    let look: Vec<(&str, Option<&str>)> = ui["look_first"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| (x["sentence"].as_str().unwrap(), x["link"].as_str()))
        .collect();
    // The new periodic stall and the growing lookup lead, each linked to
    // its own scope.
    for name in ["gc::sweep", "cache::lookup"] {
        let (s, link) = look
            .iter()
            .find(|(s, _)| s.contains(&format!("`{name}`")))
            .unwrap_or_else(|| panic!("{name}: {look:?}"));
        assert_eq!(
            *link,
            Some(format!("view=diff&mode=table&scope={name}").as_str()),
            "{s}"
        );
    }
    let lookup = ui["changes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == "cache::lookup")
        .expect("cache::lookup changed");
    assert!(
        lookup["over_time"].as_str().unwrap().starts_with("grows "),
        "{lookup}"
    );
}

/// `show("diff")` as a table of every row (`more`: further options), its ui().
fn diff_table(h: &mut Harness<'static, PuffinLensApp>, more: Value) -> Value {
    let mut options = serde_json::json!({"mode": "table", "hide_below": 0.0});
    if let (Some(o), Value::Object(m)) = (options.as_object_mut(), more) {
        o.extend(m);
    }
    command(
        h,
        UiCommand::Show {
            view: "diff".into(),
            options,
        },
    )
    .unwrap()
}

/// The diff table marks a wrapper apart from its cause: in the planted
/// game loop `physics::solve_contacts` got 60% slower per call, and
/// `physics::step` (which calls it, its own time unchanged) and `frame`
/// carry that change as wrappers; the cause and the other changes do not.
#[test]
fn the_diff_table_marks_wrappers_apart_from_their_causes() {
    use common::planted::{AFTER, BEFORE, game_loop, record};
    let (a, b) = (record(&game_loop(BEFORE, 1)), record(&game_loop(AFTER, 2)));
    let mut h = open_pair(&a, &b);
    let ui = diff_table(&mut h, serde_json::json!({}));
    let rows = ui["rows"].as_array().unwrap();
    let row = |name: &str| {
        rows.iter()
            .find(|r| r["name"] == name)
            .unwrap_or_else(|| panic!("{name}: {ui}"))
    };
    let cause = row("physics::solve_contacts");
    assert_eq!(cause["change"]["kind"], "slower", "{cause}");
    assert_eq!(cause["wrapper"], false);
    for w in ["physics::step", "frame"] {
        let r = row(w);
        assert_ne!(r["change"]["kind"], "unchanged", "{r}");
        assert_eq!(r["wrapper"], true, "{w}: {r}");
    }
    // New, gone and the per-frame count change are no wrappers.
    for n in ["audio::mix", "legacy::update", "ui::layout"] {
        assert_eq!(row(n)["wrapper"], false, "{n}");
    }
}

/// A rename at one place is one row of the diff table, "old → new", A's
/// calls of the old name against B's of the new, judged as the CLI judges
/// the rename; its row's details show both names' calls. A move under a new
/// name stays a gone row and a new one.
#[test]
fn a_rename_is_one_row_of_the_diff_table() {
    use common::shapes::{Editor, editor_bytes};
    let a = editor_bytes(Editor::steady(60), 1);
    let renamed = Editor {
        physics: ("sim::advance", true),
        ..Editor::steady(60)
    };
    let b = editor_bytes(renamed, 51);
    let cli = cli_report(&a, &b);
    let cli_rename = &cli["comparison"]["renames"][0];
    assert_eq!(cli_rename["to"], "sim::advance", "{cli_rename}");
    let mut h = open_pair(&a, &b);
    let show = |h: &mut Harness<'static, PuffinLensApp>| {
        diff_table(h, serde_json::json!({"sort": "name"}))
    };
    let ui = show(&mut h);
    let rows = ui["rows"].as_array().unwrap();
    let named: Vec<&Value> = rows
        .iter()
        .filter(|r| {
            let n = r["name"].as_str().unwrap();
            n.contains("physics::step") || n.contains("sim::advance")
        })
        .collect();
    assert_eq!(named.len(), 1, "{named:?}");
    let row = named[0];
    assert_eq!(row["name"], "physics::step → sim::advance");
    assert_eq!(row["status"], "both");
    assert_eq!(row["renamed"]["from"], "physics::step");
    assert_eq!(row["change"]["kind"], cli_rename["change"]["kind"], "{row}");
    assert_eq!(row["a"]["count"], row["b"]["count"], "{row}");
    // Its details: A's calls of the old name, B's of the new.
    h.get_by_label("physics::step → sim::advance").click();
    h.run_steps(3);
    let d = h.state_mut().diff_view().unwrap().details().unwrap();
    assert_eq!(d.name, "physics::step → sim::advance");
    assert_eq!(d.a.len() as u64, row["a"]["count"].as_u64().unwrap());
    assert_eq!(d.b.len() as u64, row["b"]["count"].as_u64().unwrap());

    // Moved under a new name: two rows.
    let moved = Editor {
        physics: ("sim::advance", false),
        ..renamed
    };
    let mut h = open_pair(&a, &editor_bytes(moved, 51));
    let ui = show(&mut h);
    let status = |n: &str| {
        ui["rows"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["name"] == n)
            .map(|r| r["status"].clone())
    };
    assert_eq!(status("physics::step"), Some("gone".into()));
    assert_eq!(status("sim::advance"), Some("new".into()));
}

#[test]
fn one_recording_has_the_same_page() {
    let bytes =
        std::fs::read(common::fixtures_dir().join("real/rerun_viewer_plots_a.puffin")).unwrap();
    let mut h = open_with(None, Settings::default(), "a.puffin", bytes);
    // One recording lands on its overview; the page is a key away.
    assert_eq!(ui_now(&h)["view"], "overview");
    let ui = command(
        &mut h,
        UiCommand::Show {
            view: "findings".into(),
            options: Value::Null,
        },
    )
    .unwrap();
    assert_eq!(ui["view"], "findings");
    assert_eq!(ui["look_first"], serde_json::json!([]));
    h.run_steps(2);
    let ui = ui_now(&h);
    assert_eq!(ui["computing"], false, "{ui}");
    h.get_by_label_contains("Slowest frames");
    assert!(ui["outliers"].as_u64().is_some(), "{ui}");
    // Its picture first: the headline (the CLI's), then its frame times,
    // the slowest frame among the bars.
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("a.puffin"),
        std::fs::read(common::fixtures_dir().join("real/rerun_viewer_plots_a.puffin")).unwrap(),
    )
    .unwrap();
    let (_, cli) = common::json_in(dir.path(), &["report", "a.puffin", "--format", "json"]);
    let headline = cli["recordings"][0]["headline"].as_str().unwrap();
    assert_eq!(ui["headline"], headline);
    h.get_by_label(&headline.replace('`', ""));
    let bars = ui["picture"]["bars"].as_array().unwrap();
    assert!(!bars.is_empty() && bars.len() <= 400, "{}", bars.len());
    let slowest = &cli["recordings"][0]["slowest_frames"][0];
    assert!(
        bars.iter()
            .any(|b| b[0] == slowest["frame_index"] && b[1] == slowest["duration_ns"]),
        "{slowest}"
    );
}

/// Runs `a{k}.puffin` and `b{k}.puffin` of `runs` each in a temp dir.
fn runs_dir(a: &[Vec<u8>], b: &[Vec<u8>]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (side, runs) in [("a", a), ("b", b)] {
        for (k, bytes) in runs.iter().enumerate() {
            std::fs::write(dir.path().join(format!("{side}{}.puffin", k + 1)), bytes).unwrap();
        }
    }
    dir
}

#[test]
fn several_runs_a_side_are_judged_between_runs_as_the_cli_judges_them() {
    use common::shapes::{Editor, Gc, editor_bytes};
    let stall = Editor {
        gc: Gc::Every {
            every: 10,
            phase: 4,
            ms: 12.0,
        },
        ..Editor::steady(60)
    };
    let a: Vec<Vec<u8>> = (1..=3)
        .map(|s| editor_bytes(Editor::steady(60), s))
        .collect();
    let b: Vec<Vec<u8>> = (4..=6).map(|s| editor_bytes(stall, s)).collect();
    // As a user adds them: A's first run, then its others with "+", then B's.
    let mut h = open_with(None, Settings::default(), "a1.puffin", a[0].clone());
    for (k, bytes) in a.iter().enumerate().skip(1) {
        h.state().open_run(
            &format!("a{}.puffin", k + 1),
            Source::Bytes(bytes.clone()),
            Side::A,
        );
    }
    h.state()
        .open("b1.puffin", Source::Bytes(b[0].clone()), Some(Side::B));
    for (k, bytes) in b.iter().enumerate().skip(1) {
        h.state().open_run(
            &format!("b{}.puffin", k + 1),
            Source::Bytes(bytes.clone()),
            Side::B,
        );
    }
    for _ in 0..400 {
        h.step();
        let done = !h.state().is_loading()
            && h.state()
                .recording(Side::B)
                .is_some_and(|r| r.loaded().runs.len() == 3);
        if done && ui_now(&h)["computing"] == false {
            break;
        }
    }
    h.run_steps(2);
    let ui = ui_now(&h);
    assert_eq!(ui["view"], "findings", "{ui}");
    assert_eq!(
        ui["runs"],
        serde_json::json!({
            "a": ["a1.puffin", "a2.puffin", "a3.puffin"],
            "b": ["b1.puffin", "b2.puffin", "b3.puffin"],
            // Added by hand, not a folder of `ab` runs: not pairs.
            "paired": false,
        })
    );
    assert!(ui["paired"].is_null(), "{}", ui["paired"]);
    assert_eq!(ui["noise"]["model"], "between-runs", "{}", ui["noise"]);
    // The CLI binary on the same runs says the same.
    let dir = runs_dir(&a, &b);
    let (_, cli) = common::json_in(
        dir.path(),
        &[
            "report",
            "a1.puffin",
            "a2.puffin",
            "a3.puffin",
            "--vs",
            "b1.puffin",
            "b2.puffin",
            "b3.puffin",
            "--format",
            "json",
        ],
    );
    let c = &cli["comparison"];
    assert_eq!(c["noise"]["runs"], serde_json::json!([3, 3]));
    // Each run kept apart when added one at a time.
    assert_eq!(ui["noise"]["runs"], c["noise"]["runs"]);
    let sentences: Vec<&Value> = ui["look_first"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| &x["sentence"])
        .collect();
    assert_eq!(
        sentences,
        c["look_first"]
            .as_array()
            .unwrap()
            .iter()
            .collect::<Vec<_>>()
    );
    assert!(
        sentences
            .iter()
            .any(|s| s.as_str().unwrap().contains("`gc::sweep`")),
        "{sentences:?}"
    );
    // A damaged run among them is named, and the rest still judged.
    h.state().open_run(
        "broken.puffin",
        Source::Bytes(b"not a recording".to_vec()),
        Side::A,
    );
    h.run_steps(4);
    let error = h.state().error().unwrap_or_default().to_owned();
    assert!(
        error.starts_with("broken.puffin: ") && error.ends_with("(left out of A's runs)"),
        "{error}"
    );
    assert_eq!(h.state().recording(Side::A).unwrap().loaded().runs.len(), 3);
}

/// A file dropped in a test, as the desktop gives one (a path, its bytes).
#[derive(Debug)]
struct Dropped(std::path::PathBuf, Vec<u8>);

impl egui::DroppedFile for Dropped {
    fn path(&self) -> &std::path::Path {
        &self.0
    }
    fn bytes(&self) -> Result<Vec<u8>, String> {
        Ok(self.1.clone())
    }
}

/// Three files dropped at once ask which are runs of A and which of B, the
/// first half by name A's; the user's choice opens them so (and Cancel
/// opens none).
#[test]
fn three_files_dropped_at_once_ask_which_side_each_is_a_run_of() {
    use common::shapes::{Editor, editor_bytes};
    let bytes = |s| editor_bytes(Editor::steady(40), s);
    let mut h = Harness::builder()
        .with_size(egui::vec2(1400.0, 900.0))
        .build_eframe(|cc| {
            PuffinLensApp::with_context(&cc.egui_ctx, Default::default(), Settings::default())
                .with_threaded_loading(false)
        });
    let drop = |h: &mut Harness<'static, PuffinLensApp>| {
        // Given out of name order: the dialog lists them by name.
        for (name, seed) in [("c.puffin", 3), ("a.puffin", 1), ("b.puffin", 2)] {
            h.input_mut()
                .dropped_files
                .push(std::sync::Arc::new(Dropped(name.into(), bytes(seed))));
        }
        h.run_steps(2);
    };
    drop(&mut h);
    let ui = ui_now(&h);
    assert_eq!(
        ui["split"]["names"],
        serde_json::json!(["c.puffin", "a.puffin", "b.puffin"])
    );
    // The first half by name (a, b) A's; c B's.
    assert_eq!(ui["split"]["to_a"], serde_json::json!([false, true, true]));
    h.get_by_label("Cancel").click();
    h.run_steps(2);
    assert!(ui_now(&h)["split"].is_null());
    assert!(
        h.state().recording(Side::A).is_none(),
        "Cancel opens nothing"
    );

    // Again, and Open as proposed.
    drop(&mut h);
    h.get_by_label("A: 2 runs, B: 1 run");
    h.get_by_label("Open").click();
    for _ in 0..400 {
        h.step();
        if !h.state().is_loading()
            && h.state()
                .recording(Side::A)
                .is_some_and(|r| r.loaded().runs.len() == 2)
            && h.state().recording(Side::B).is_some()
        {
            break;
        }
    }
    h.run_steps(2);
    let a = h.state().recording(Side::A).unwrap().loaded().runs.clone();
    let b = h.state().recording(Side::B).unwrap().loaded().runs.clone();
    assert_eq!(
        (a, b),
        (
            vec!["a.puffin".to_owned(), "b.puffin".to_owned()],
            vec!["c.puffin".to_owned()]
        )
    );
}

/// The slowest frames of each recording link to the timeline at that frame,
/// on its side: B's open B.
#[test]
fn a_slowest_frame_links_to_the_timeline_of_its_side() {
    use puffin_lens::app::views::findings::Block;
    let (_, a, b) = pairs().remove(1);
    let mut h = open_pair(&a, &b);
    let links: Vec<String> = h
        .state_mut()
        .findings_view()
        .unwrap()
        .findings()
        .unwrap()
        .blocks
        .iter()
        .filter_map(|b| match b {
            Block::Table(rows) => Some(rows),
            _ => None,
        })
        .flatten()
        .filter_map(|row| row.first()?.first()?.link.clone())
        .filter(|l| l.starts_with("view=timeline"))
        .collect();
    let b_link = links
        .iter()
        .find(|l| l.ends_with("&side=b"))
        .unwrap_or_else(|| panic!("{links:?}"));
    let a_link = links
        .iter()
        .find(|l| l.ends_with("&side=a"))
        .unwrap_or_else(|| panic!("{links:?}"));
    let frame_of = |l: &str| -> u64 {
        l.split('&')
            .find_map(|p| p.strip_prefix("frame="))
            .unwrap()
            .parse()
            .unwrap()
    };
    for (link, side) in [(b_link, "b"), (a_link, "a")] {
        let ui = command(&mut h, UiCommand::Hash(link.clone())).unwrap();
        assert_eq!(ui["shown"], side, "{link}");
        assert_eq!(ui["view"], "timeline", "{link}");
        assert_eq!(ui["frame"], frame_of(link), "{link}");
    }
}

/// Each changed row of the diff table has a sparkline of its cost through
/// A's frames and B's: the planted growing lookup rises through B and is
/// flat through A; the new stall is in every 10th frame of B only; an
/// unchanged row has none.
#[test]
fn changed_rows_have_a_sparkline_of_their_cost_through_the_runs() {
    let (_, a, b) = pairs().remove(0);
    let mut h = open_pair(&a, &b);
    let ui = diff_table(&mut h, serde_json::json!({}));
    let diff = h.state_mut().diff_view().unwrap();
    let lookup = diff.spark("cache::lookup").expect("a sparkline");
    assert_eq!((lookup.a.len(), lookup.b.len()), (60, 60));
    let mean = |x: &[f32]| x.iter().sum::<f32>() / x.len() as f32;
    let (first, last) = (mean(&lookup.b[..10]), mean(&lookup.b[50..]));
    assert!(last > 4.0 * first, "grows through B: {first} → {last}");
    let (first, last) = (mean(&lookup.a[..10]), mean(&lookup.a[50..]));
    assert!(
        (last - first).abs() < 0.5 * first,
        "flat through A: {first} → {last}"
    );
    let gc = diff.spark("gc::sweep").expect("a sparkline");
    assert!(gc.a.iter().all(|&v| v == 0.0), "new in B");
    let stalls: Vec<usize> = (0..gc.b.len()).filter(|&k| gc.b[k] > 0.0).collect();
    assert_eq!(stalls, (3..60).step_by(10).collect::<Vec<_>>());
    // The rows say which have one; an unchanged row has none.
    for r in ui["rows"].as_array().unwrap() {
        let kind = r["change"]["kind"].as_str().unwrap();
        if matches!(kind, "unchanged" | "inconclusive") {
            assert!(r["spark_points"].is_null(), "{r}");
        }
    }
    assert!(
        ui["rows"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["spark_points"] == serde_json::json!([60, 60]))
    );
}

/// The frame chart marks a stall every Nth frame, each of its frames, in
/// the words `report` uses for the frames' shape; steady frames have none;
/// overlapping frames are said.
#[test]
fn the_frame_chart_marks_a_stall_every_nth_frame_and_says_overlapping_frames() {
    use common::shapes::{Editor, Gc, editor_bytes};
    let stall = Editor {
        gc: Gc::Every {
            every: 10,
            phase: 3,
            ms: 12.0,
        },
        ..Editor::steady(60)
    };
    let bytes = editor_bytes(stall, 7);
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("s.puffin"), &bytes).unwrap();
    let (_, cli) = common::json_in(dir.path(), &["report", "s.puffin", "--format", "json"]);
    let words = cli["recordings"][0]["frame_shape"]["words"]
        .as_str()
        .unwrap()
        .to_owned();
    let h = open_with(None, Settings::default(), "s.puffin", bytes);
    let ui = ui_now(&h);
    assert_eq!(ui["view"], "overview");
    let p = &ui["overview"]["periodic"];
    // The report names the scope behind it; the chart's words are the
    // frames' own, the same sentence up to that.
    let own = p["words"].as_str().unwrap();
    assert!(
        words.starts_with(own.trim_end_matches('.')),
        "{own} / {words}"
    );
    assert_eq!(p["frames"], 6, "{p}");
    assert_eq!(p["first"], 3, "{p}");
    assert!(ui["overview"]["overlap"].is_null());

    let h = open_with(
        None,
        Settings::default(),
        "q.puffin",
        editor_bytes(Editor::steady(60), 7),
    );
    assert!(ui_now(&h)["overview"]["periodic"].is_null());
}

/// A scope's details in the diff split its calls by call site, judged, the
/// site the report places the change at first: `text::shape` got slower
/// only where `ui::tooltip` calls it.
#[test]
fn the_details_split_a_change_by_call_site_as_the_report_places_it() {
    use common::shapes::{Editor, editor_bytes};
    let a = Editor {
        shape_ms: (0.4, Some(0.5)),
        ..Editor::steady(60)
    };
    let b = Editor {
        shape_ms: (0.4, Some(2.5)),
        ..a
    };
    let (a, b) = (editor_bytes(a, 1), editor_bytes(b, 8));
    let cli = cli_report(&a, &b);
    let row = cli["comparison"]["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == "text::shape")
        .unwrap()
        .clone();
    let mut h = open_pair(&a, &b);
    let ui = command(
        &mut h,
        UiCommand::Hash("view=diff&mode=table&scope=text::shape".into()),
    )
    .unwrap();
    let d = &ui["details"];
    assert_eq!(d["name"], "text::shape");
    let callers: Vec<&str> = d["sites"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["caller"].as_str().unwrap())
        .collect();
    let cli_callers: Vec<&str> = row["place"]["sites"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["caller"].as_str().unwrap())
        .collect();
    assert_eq!(callers, cli_callers);
    assert_eq!(d["placed_at"], row["place"]["at"]);
    let at = d["placed_at"].as_u64().expect("placed") as usize;
    assert_eq!(callers[at], "ui::tooltip");
    assert_eq!(d["sites"][at]["kind"], "slower");
    h.get_by_label_contains("changed only where ui::tooltip calls it");
}

/// Two recordings of different apps: the Findings page says there is no
/// scope name in common and that they look like runs of different apps, as
/// the CLI's report does.
#[test]
fn a_pair_of_two_apps_says_so_on_the_findings_page() {
    use common::shapes::{Editor, editor_bytes};
    let read = |p: &str| std::fs::read(common::fixtures_dir().join(p)).unwrap();
    let (a, b) = (
        editor_bytes(Editor::steady(40), 1),
        read("real/rerun_sdk_points.puffin"),
    );
    let cli = cli_report(&a, &b);
    let h = open_pair(&a, &b);
    let ui = ui_now(&h);
    assert_eq!(ui["view"], "findings");
    assert_eq!(ui["conditions"], cli["comparison"]["conditions"]);
    let conditions: Vec<&str> = ui["conditions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_str().unwrap())
        .collect();
    assert!(
        conditions[0].starts_with("A and B look like runs of different apps"),
        "{conditions:?}"
    );
    h.get_by_label_contains("no scope name in common");
    h.get_by_label_contains("look like runs of different apps");
}

/// The Findings page's list items' links: (the span's text, its hash).
fn item_links(h: &mut Harness<'static, PuffinLensApp>) -> Vec<(String, String)> {
    use puffin_lens::app::views::findings::Block;
    h.state_mut()
        .findings_view()
        .unwrap()
        .findings()
        .unwrap()
        .blocks
        .iter()
        .filter_map(|b| match b {
            Block::Item(_, spans) => Some(spans),
            _ => None,
        })
        .flatten()
        .filter_map(|s| Some((s.text.clone(), s.link.clone()?)))
        .collect()
}

/// Each step of "Where it changed" links to the differential flame graph
/// focused on it: the planted game loop's path down to
/// `physics::solve_contacts`.
#[test]
fn a_changed_path_links_to_the_flame_graph_focused_on_its_step() {
    use common::planted::{AFTER, BEFORE, game_loop, record};
    let (a, b) = (record(&game_loop(BEFORE, 1)), record(&game_loop(AFTER, 2)));
    let mut h = open_pair(&a, &b);
    let links: Vec<(String, String)> = item_links(&mut h)
        .into_iter()
        .filter(|(_, l)| l.contains("mode=flame"))
        .collect();
    let (_, link) = links
        .iter()
        .find(|(t, _)| t == "physics::solve_contacts")
        .unwrap_or_else(|| panic!("{links:?}"));
    let ui = command(&mut h, UiCommand::Hash(link.clone())).unwrap();
    assert_eq!(ui["view"], "diff");
    assert_eq!(ui["mode"], "flame");
    let focus: Vec<&str> = ui["focus"]
        .as_array()
        .unwrap_or_else(|| panic!("{ui}"))
        .iter()
        .map(|x| x.as_str().unwrap())
        .collect();
    assert_eq!(focus.last(), Some(&"physics::solve_contacts"), "{focus:?}");
    assert!(focus.contains(&"physics::step"), "{focus:?}");
    // The focused node is drawn across the whole width.
    let root = &ui["nodes"][0];
    assert_eq!(root["path"], serde_json::json!(focus), "{}", ui["nodes"]);
    assert_eq!(
        (root["x0"].as_f64(), root["x1"].as_f64()),
        (Some(0.0), Some(1.0))
    );
}

/// Each step of a recording's hot path links to its flame graph focused on
/// that step (B's on side B); one recording's page links alike.
#[test]
fn a_hot_path_links_to_the_flame_graph_of_its_side() {
    let (_, a, b) = pairs().remove(0);
    let links = |h: &mut Harness<'static, PuffinLensApp>| -> Vec<String> {
        item_links(h)
            .into_iter()
            .map(|(_, l)| l)
            .filter(|l| l.starts_with("view=flame"))
            .collect()
    };
    let mut h = open_pair(&a, &b);
    let all = links(&mut h);
    let on_b = all
        .iter()
        .find(|l| l.ends_with("side=b"))
        .unwrap_or_else(|| panic!("{all:?}"));
    let on_a = all
        .iter()
        .find(|l| l.ends_with("&side=a"))
        .unwrap_or_else(|| panic!("{all:?}"));
    for (link, side) in [(on_b, "b"), (on_a, "a")] {
        let ui = command(&mut h, UiCommand::Hash(link.clone())).unwrap();
        assert_eq!(ui["shown"], side, "{link}");
        assert_eq!(ui["view"], "flame", "{link}");
        let focus = link
            .split("focus=")
            .nth(1)
            .unwrap()
            .split('&')
            .next()
            .unwrap();
        let want: Vec<String> = focus.split("%1F").map(|x| x.replace("%20", " ")).collect();
        assert_eq!(ui["focus"], serde_json::json!(want), "{link}");
    }
    // One recording: its page's hot path links to its flame graph.
    let h1 = open_with(None, Settings::default(), "a.puffin", a.clone());
    let mut h1 = h1;
    command(
        &mut h1,
        UiCommand::Show {
            view: "findings".into(),
            options: Value::Null,
        },
    )
    .unwrap();
    h1.run_steps(2);
    let one = links(&mut h1);
    assert!(
        !one.is_empty() && one.iter().all(|l| !l.contains("side=")),
        "{one:?}"
    );
}

/// The findings read with the keyboard: Tab reaches each finding's scope
/// (in the waterfall and the table, in rank order), and Enter on one opens
/// its evidence, as a click does.
#[test]
fn the_findings_are_reached_and_opened_with_the_keyboard() {
    use egui_kittest::kittest::NodeT as _;
    let (_, a, b) = pairs().remove(0);
    let mut h = open_pair(&a, &b);
    let ui = ui_now(&h);
    let names: Vec<String> = ui["glance"]["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["name"].as_str().unwrap().to_owned())
        // (A finding of no scope, the time between frames, has no link.)
        .filter(|n| !n.is_empty())
        .collect();
    assert!(names.len() >= 2, "{}", ui["glance"]);
    // Tab through the page, noting what takes the focus.
    let mut focused: Vec<String> = Vec::new();
    for _ in 0..120 {
        h.key_press(egui::Key::Tab);
        h.run_steps(1);
        let now = h
            .query_by(|n| n.is_focused())
            .and_then(|n| n.accesskit_node().label());
        if let Some(label) = now {
            focused.push(label);
        }
    }
    let first = |name: &str| focused.iter().position(|l| l == name);
    for name in &names {
        assert!(first(name).is_some(), "{name} never focused: {focused:?}");
    }
    // In rank order (each name's first focus).
    let order: Vec<usize> = names.iter().filter_map(|n| first(n)).collect();
    assert!(
        order.windows(2).all(|w| w[0] < w[1]),
        "{names:?}: {focused:?}"
    );
    // Enter on the first finding opens its evidence.
    let target = &names[0];
    for _ in 0..240 {
        let now = h
            .query_by(|n| n.is_focused())
            .and_then(|n| n.accesskit_node().label());
        if now.as_deref() == Some(target.as_str()) {
            break;
        }
        h.key_press(egui::Key::Tab);
        h.run_steps(1);
    }
    h.key_press(egui::Key::Enter);
    h.run_steps(3);
    let ui = ui_now(&h);
    assert_ne!(ui["view"], "findings", "Enter on {target} opened nothing");
    assert!(ui.to_string().contains(target.as_str()), "{target}: {ui}");
}

/// The Markdown report (a pull request's comment) draws the waterfall as a
/// Mermaid chart: A's frame, the frame after each part in turn, B's frame,
/// the same numbers as the JSON's `glance`.
#[test]
fn the_markdown_waterfall_chart_steps_through_the_glances_parts() {
    for (what, a, b) in pairs() {
        let json = cli_report(&a, &b);
        let g = &json["comparison"]["glance"];
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.puffin"), &a).unwrap();
        std::fs::write(dir.path().join("b.puffin"), &b).unwrap();
        let out = common::run_in(dir.path(), &["report", "a.puffin", "b.puffin"]);
        let md = String::from_utf8(out.stdout).unwrap();
        let chart = md
            .split("```mermaid\n")
            .nth(1)
            .and_then(|c| c.split("```").next())
            .unwrap_or_else(|| panic!("{what}: no chart in\n{md}"));
        let bars: Vec<f64> = (chart.lines())
            .find_map(|l| l.strip_prefix("    bar ["))
            .and_then(|l| l.strip_suffix(']'))
            .unwrap_or_else(|| panic!("{what}: {chart}"))
            .split(", ")
            .map(|v| v.parse().unwrap())
            .collect();
        let parts = g["bars"].as_array().unwrap();
        assert_eq!(bars.len(), parts.len() + 2, "{what}: {chart}");
        let mut total = g["a_ns"].as_f64().unwrap();
        let mut expected = vec![total / 1e6];
        for p in parts {
            total += p["delta_ns"].as_f64().unwrap();
            expected.push(total / 1e6);
        }
        expected.push(g["b_ns"].as_f64().unwrap() / 1e6);
        for (got, want) in bars.iter().zip(&expected) {
            assert!(
                (got - want).abs() < 0.0006,
                "{what}: {bars:?} against {expected:?}"
            );
        }
        // Each part's label is on the axis, in order.
        let axis = (chart.lines())
            .find(|l| l.starts_with("    x-axis"))
            .unwrap();
        let mut at = 0;
        for p in parts {
            let label = p["label"].as_str().unwrap();
            // As the chart writes it: what Mermaid would misread is `?`.
            let safe: Vec<char> = label
                .chars()
                .map(|c| {
                    if c.is_ascii_alphanumeric() || " _:.-/()'".contains(c) {
                        c
                    } else {
                        '?'
                    }
                })
                .collect();
            let shown: String = safe[safe.len().saturating_sub(24)..].iter().collect();
            let shown = shown.as_str();
            at += axis[at..]
                .find(shown)
                .unwrap_or_else(|| panic!("{what}: {label} not after {at} in {axis}"));
        }
    }
}

/// The pacing picture draws what `pacing A B --json` answers: both sides'
/// frame times on one scale (the slowest of each stretch of the CLI's
/// periods: B's worst frame among its bars), their distributions from the
/// fastest frame to the slowest, the CLI's budget, its headline on the page.
#[test]
fn the_pacing_picture_draws_the_cli_s_frames_and_budget() {
    let (_, a, b) = pairs().remove(1);
    let h = open_pair(&a, &b);
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.puffin"), &a).unwrap();
    std::fs::write(dir.path().join("b.puffin"), &b).unwrap();
    let (code, cli) = common::json_in(dir.path(), &["pacing", "a.puffin", "b.puffin", "--json"]);
    assert_eq!(code, 0);
    let ui = ui_now(&h);
    let pic = &ui["pacing_picture"];
    assert_eq!(pic["budget_ns"], cli["budget_ns"]);
    assert_eq!(ui["pacing"]["headline"], cli["headline"]);
    h.get_by_label(&cli["headline"].as_str().unwrap().replace('`', ""));
    let sides = pic["sides"].as_array().unwrap();
    assert_eq!(sides.len(), 2);
    for (side, key) in sides.iter().zip(["a", "b"]) {
        let bars = side["bars"].as_array().unwrap();
        let frames = cli[key]["frames"].as_u64().unwrap() as usize;
        assert_eq!(bars.len(), frames.min(400), "{key}");
        let worst = &cli[key]["worst"];
        assert!(
            bars.iter()
                .any(|b| b[0] == worst["frame_index"] && b[1] == worst["duration_ns"]),
            "{key}: {worst}"
        );
        let q = side["quantiles_ns"].as_array().unwrap();
        assert!(q[0].as_f64().unwrap() <= cli[key]["median_ns"].as_f64().unwrap());
        assert_eq!(
            q.last().unwrap().as_f64(),
            worst["duration_ns"].as_f64(),
            "{key}"
        );
        // Bars over the budget are frames the CLI counts over it.
        let over = bars
            .iter()
            .filter(|b| b[1].as_f64().unwrap() > pic["over_ns"].as_f64().unwrap())
            .count();
        assert!(
            over <= cli[key]["over_budget"].as_u64().unwrap() as usize,
            "{key}"
        );
    }
}

/// The page uses a wide screen: at 1920 px the frames' pacing stands beside
/// the glance (its heading right of the middle, level with the headline's
/// band), at 1280 px under it; the waterfall says where its axis starts
/// when that is not 0.
#[test]
fn a_wide_screen_puts_the_pacing_beside_the_glance_and_the_axis_says_its_break() {
    // The example pair (Try an example): frames of 16.6 ms, 1.6 ms longer in B.
    let read =
        |f: &str| std::fs::read(format!("{}/samples/{f}", env!("CARGO_MANIFEST_DIR"))).unwrap();
    let mut h = open_pair(
        &read("example_before.puffin"),
        &read("example_after.puffin"),
    );
    let rect_of = |h: &Harness<'static, PuffinLensApp>, label: &str| h.get_by_label(label).rect();
    let ui = ui_now(&h);
    let headline = ui["glance"]["headline"].as_str().unwrap().to_owned();
    for (width, beside) in [(1920.0, true), (1280.0, false)] {
        h.set_size(egui::vec2(width, 1080.0));
        h.run_steps(3);
        let heading = rect_of(&h, "Frame pacing");
        let glance = rect_of(&h, &headline);
        if beside {
            assert!(heading.left() > width / 2.0, "{width}: {heading:?}");
            assert!(
                heading.top() < glance.bottom() + 200.0,
                "{width}: {heading:?} {glance:?}"
            );
        } else {
            assert!(heading.left() < 100.0, "{width}: {heading:?}");
            assert!(
                heading.top() > glance.bottom(),
                "{width}: {heading:?} {glance:?}"
            );
        }
    }
    // Its frames move by a tenth: the axis does not start at 0, and says so.
    use egui_kittest::kittest::NodeT as _;
    // (A label's text is its node's value.)
    let label = h
        .query_by_label_contains("axis from ")
        .and_then(|n| n.accesskit_node().value())
        .expect("the axis's break is said");
    assert!(label.ends_with(" ms, not 0 //"), "{label}");
}
