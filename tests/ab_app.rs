//! A folder of `ab` runs opened in the app (egui_kittest): its
//! `manifest.json` and runs dropped together, or one zip of the folder,
//! open as A's and B's runs by the manifest and are judged as pairs, as
//! `puffin-lens report DIR` (the binary, run as a process) judges them. The
//! runs are planted recordings of the game loop handed out by `ab` itself
//! (as tests/ab.rs does), the machine's speed moving ±20% between pairs.

mod common;

use common::planted::{self, BEFORE, Plan};
use common::ui::ui_now;
use common::{code, json_in, run_in, stderr};
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable as _;
use puffin_lens::app::{PuffinLensApp, Settings, Side};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// The machine's speed in each pair of runs (both builds of a pair ran at
/// it), as in tests/ab.rs.
const MACHINE: [f64; 4] = [1.0, 1.22, 0.84, 1.12];

/// `dir/pool_a` and `dir/pool_b` filled with A's and B's recordings (see
/// [`ab_folder`]), made when missing.
fn fill_pools(dir: &Path) {
    let b = Plan {
        solve_ms: BEFORE.solve_ms * 1.1,
        ..BEFORE
    };
    for (pool, plan, seed) in [("pool_a", BEFORE, 300), ("pool_b", b, 400)] {
        std::fs::create_dir_all(dir.join(pool)).unwrap();
        for (k, scale) in MACHINE.iter().enumerate() {
            let plan = Plan {
                scale: plan.scale * scale,
                ..plan
            };
            let bytes = planted::record(&planted::game_loop(plan, seed + k as u64));
            std::fs::write(dir.join(pool).join(format!("{k}.puffin")), bytes).unwrap();
        }
    }
}

/// `ab` run in a temp dir: A the game loop, B with
/// `physics::solve_contacts` 10% slower per call (a change the machine's
/// ±20% hides unless the runs are paired), run k of both at `MACHINE[k]`;
/// the runs and manifest in `runs/`.
fn ab_folder() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    fill_pools(dir.path());
    // Each run takes the next recording of its pool, as a build's
    // `--record {out}` would write it.
    let pop = |pool: &str| format!("f=$(ls -1 {pool}/*.puffin | head -n 1) && mv \"$f\" {{out}}");
    let (a, b) = (pop("pool_a"), pop("pool_b"));
    let runs = MACHINE.len().to_string();
    let out = run_in(
        dir.path(),
        &["ab", "--a", &a, "--b", &b, "--runs", &runs, "--out", "runs"],
    );
    assert!(
        matches!(code(&out), 0 | 4 | 5),
        "{}: {}",
        code(&out),
        stderr(&out)
    );
    dir
}

/// A file dropped in a test, as the desktop gives one (a path, its bytes).
#[derive(Debug)]
struct Dropped(PathBuf, Vec<u8>);

impl egui::DroppedFile for Dropped {
    fn path(&self) -> &Path {
        &self.0
    }
    fn bytes(&self) -> Result<Vec<u8>, String> {
        Ok(self.1.clone())
    }
}

/// The app (decoding on this thread), its first frame drawn.
fn app() -> Harness<'static, PuffinLensApp> {
    let mut h = Harness::builder()
        .with_size(egui::vec2(1400.0, 900.0))
        .build_eframe(|cc| {
            PuffinLensApp::with_context(&cc.egui_ctx, Default::default(), Settings::default())
                .with_threaded_loading(false)
        });
    h.run_steps(1);
    h
}

/// The app (decoding on this thread) with `files` dropped on it at once,
/// run until both sides are open and the findings are made.
fn dropped(files: Vec<(String, Vec<u8>)>) -> Harness<'static, PuffinLensApp> {
    let mut h = app();
    for (name, bytes) in files {
        h.input_mut()
            .dropped_files
            .push(std::sync::Arc::new(Dropped(name.into(), bytes)));
    }
    for _ in 0..2000 {
        h.step();
        let opened = h.state().recording(Side::B).is_some() && ui_now(&h)["computing"] == false;
        let refused = h.state().recording(Side::A).is_none() && h.state().error().is_some();
        if !h.state().is_loading() && (opened || refused) {
            break;
        }
    }
    h.run_steps(2);
    h
}

/// The files of a side's runs.
fn runs_of(h: &Harness<'static, PuffinLensApp>, side: Side) -> Vec<String> {
    h.state().recording(side).unwrap().loaded().runs.clone()
}

/// Every file of `dir`, by name (as a folder's files are dropped).
fn files_of(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read(&p).unwrap())
        })
        .collect();
    files.sort();
    files
}

/// `dir` zipped (deflated, as `zip -r` and CI artifacts are) under the
/// folder `inside/`, with the `extra` entries.
fn zipped(dir: &Path, inside: &str, extra: &[(&str, Vec<u8>)]) -> Vec<u8> {
    use std::io::Write as _;
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let options = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated);
    zip.add_directory(inside, options).unwrap();
    for (name, bytes) in files_of(dir) {
        zip.start_file(format!("{inside}{name}"), options).unwrap();
        zip.write_all(&bytes).unwrap();
    }
    for (name, bytes) in extra {
        zip.start_file(*name, options).unwrap();
        zip.write_all(bytes).unwrap();
    }
    zip.finish().unwrap().into_inner()
}

/// The names of a list of rows (`changes` of the app, `rows` of the CLI).
fn names(v: &Value) -> Vec<(String, String)> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let kind = r["kind"].as_str().or(r["change"]["kind"].as_str());
            (
                r["name"].as_str().unwrap().to_owned(),
                kind.unwrap().to_owned(),
            )
        })
        .collect()
}

/// The app's findings (its `ui()`) are the CLI's `report DIR` comparison.
fn assert_as_cli(ui: &Value, c: &Value, what: &str) {
    assert_eq!(ui["view"], "findings", "{what}: {ui}");
    assert_eq!(c["noise"]["model"], "paired-runs", "{what}: {}", c["noise"]);
    assert_eq!(ui["noise"], c["noise"], "{what}");
    assert_eq!(ui["drift"], c["drift"], "{what}");
    assert_eq!(ui["conditions"], c["conditions"], "{what}");
    assert_eq!(ui["frame"]["median_a_ns"], c["frame"]["median_a_ns"]);
    assert_eq!(ui["frame"]["median_b_ns"], c["frame"]["median_b_ns"]);
    assert_eq!(ui["frame"]["kind"], c["frame"]["kind"], "{what}");
    let sentences: Vec<&Value> = (ui["look_first"].as_array().unwrap().iter())
        .map(|x| &x["sentence"])
        .collect();
    let expected: Vec<&Value> = c["look_first"].as_array().unwrap().iter().collect();
    assert_eq!(sentences, expected, "{what}");
    assert_eq!(names(&ui["changes"]), names(&c["rows"]), "{what}");
}

#[test]
fn an_ab_folder_dropped_opens_as_paired_runs_judged_as_report_dir_judges_them() {
    let dir = ab_folder();
    let runs = dir.path().join("runs");
    let (_, cli) = json_in(dir.path(), &["report", "runs", "--format", "json"]);
    let c = &cli["comparison"];
    // The 10% change is told apart from the machine only paired.
    let solve = (c["rows"].as_array().unwrap().iter())
        .find(|r| r["name"] == "physics::solve_contacts")
        .unwrap_or_else(|| panic!("{:#}", c["rows"]));
    assert_eq!(solve["change"]["kind"], "slower");

    // The folder's files dropped at once (no split dialog: the manifest
    // says which are A's and B's).
    let mut h = dropped(files_of(&runs));
    let ui = ui_now(&h);
    assert!(ui["split"].is_null(), "{}", ui["split"]);
    assert!(h.state().error().is_none(), "{:?}", h.state().error());
    let files = |s: &str| {
        (1..=4)
            .map(|k| format!("{s}{k}.puffin"))
            .collect::<Vec<_>>()
    };
    assert_eq!(runs_of(&h, Side::A), files("a"));
    assert_eq!(runs_of(&h, Side::B), files("b"));
    assert_eq!(
        ui["paired"],
        serde_json::json!({"source": "manifest.json", "pairs": 4})
    );
    assert_eq!(ui["runs"]["paired"], true);
    assert_as_cli(&ui, c, "the folder's files");
    // The side chips say so.
    h.get_by_label("A: 4 runs, paired");
    h.get_by_label("B: 4 runs, paired");
    // The diff view judges with the same noise: the change is slower there
    // too.
    let diff = h.state_mut().diff_view().unwrap();
    assert!(diff.noise().paired);
    let rows = diff.rows_json(usize::MAX);
    let row = (rows.iter())
        .find(|r| r["name"] == "physics::solve_contacts")
        .unwrap_or_else(|| panic!("{rows:#?}"));
    assert_eq!(row["change"]["kind"], "slower", "{row:#}");

    // A run added to a side ends the pairing: judged between runs again.
    let extra = std::fs::read(runs.join("a1.puffin")).unwrap();
    h.state().open_run(
        "extra.puffin",
        puffin_lens::app::Source::Bytes(extra),
        Side::A,
    );
    for _ in 0..400 {
        h.step();
        if !h.state().is_loading() && runs_of(&h, Side::A).len() == 5 {
            break;
        }
    }
    h.run_steps(2);
    assert!(h.state().paired().is_none());
    assert!(!h.state_mut().diff_view().unwrap().noise().paired);
    h.get_by_label_contains("A: 5 runs (");

    // A zip of the folder (a CI artifact) opens the same.
    let h = dropped(vec![(
        "artifact.zip".to_owned(),
        zipped(&runs, "runs/", &[]),
    )]);
    let ui = ui_now(&h);
    assert!(h.state().error().is_none(), "{:?}", h.state().error());
    assert_eq!(
        ui["paired"],
        serde_json::json!({"source": "artifact.zip: runs/manifest.json", "pairs": 4})
    );
    assert_as_cli(&ui, c, "the zip");

    // A manifest naming a path is not followed, even to a file the zip
    // holds there: that pair is left out, named.
    let manifest = std::fs::read_to_string(runs.join("manifest.json")).unwrap();
    let hostile = manifest.replace("\"a1.puffin\"", "\"../a1.puffin\"");
    assert_ne!(hostile, manifest);
    std::fs::write(runs.join("manifest.json"), hostile).unwrap();
    let a1 = std::fs::read(runs.join("a1.puffin")).unwrap();
    let zip = zipped(&runs, "runs/", &[("a1.puffin", a1)]);
    let h = dropped(vec![("artifact.zip".to_owned(), zip)]);
    assert_eq!(
        h.state().error(),
        Some(
            "artifact.zip: runs/manifest.json: ../a1.puffin: not a plain file name; 3 of 4 \
             pairs opened"
        )
    );
    assert_eq!(
        runs_of(&h, Side::A),
        ["a2.puffin", "a3.puffin", "a4.puffin"]
    );
    assert_eq!(
        runs_of(&h, Side::B),
        ["b2.puffin", "b3.puffin", "b4.puffin"]
    );
    assert_eq!(ui_now(&h)["paired"]["pairs"], 3);
}

#[test]
fn a_manifest_naming_a_missing_run_opens_the_other_pairs_and_says_which() {
    let dir = ab_folder();
    let runs = dir.path().join("runs");
    std::fs::remove_file(runs.join("b3.puffin")).unwrap();
    let h = dropped(files_of(&runs));
    assert_eq!(
        h.state().error(),
        Some("manifest.json: b3.puffin: missing; 3 of 4 pairs opened")
    );
    h.get_by_label_contains("b3.puffin: missing");
    assert_eq!(
        runs_of(&h, Side::A),
        ["a1.puffin", "a2.puffin", "a4.puffin"]
    );
    assert_eq!(
        runs_of(&h, Side::B),
        ["b1.puffin", "b2.puffin", "b4.puffin"]
    );
    // The CLI judges the same three pairs.
    let (_, cli) = json_in(dir.path(), &["report", "runs", "--format", "json"]);
    let ui = ui_now(&h);
    assert_eq!(ui["paired"]["pairs"], 3);
    assert_as_cli(&ui, &cli["comparison"], "three pairs");

    // A run that does not read leaves its pair out, named.
    std::fs::write(runs.join("a2.puffin"), b"not a recording").unwrap();
    let h = dropped(files_of(&runs));
    let err = h.state().error().unwrap_or_default().to_owned();
    assert!(
        err.starts_with("manifest.json: b3.puffin: missing; a2.puffin: ")
            && err.ends_with("(pair 2 left out); 2 of 4 pairs opened"),
        "{err}"
    );
    assert_eq!(ui_now(&h)["paired"]["pairs"], 2);

    // A manifest with no pair left: nothing opens, the line says why.
    let lone = tempfile::tempdir().unwrap();
    std::fs::copy(
        runs.join("manifest.json"),
        lone.path().join("manifest.json"),
    )
    .unwrap();
    std::fs::copy(runs.join("a1.puffin"), lone.path().join("a1.puffin")).unwrap();
    let h = dropped(files_of(lone.path()));
    assert!(h.state().recording(Side::A).is_none());
    let err = h.state().error().unwrap_or_default();
    assert!(
        err.starts_with(
            "manifest.json: no finished pair of runs (A: 1, B: 0): b1.puffin: missing, \
             b2.puffin: missing, a2.puffin: missing"
        ),
        "{err}"
    );
}

/// The app (decoding on this thread) recording A/B runs as `form` says,
/// run until the session ended and its pairs are open on their findings.
fn recorded(form: puffin_lens::app::AbForm) -> Harness<'static, PuffinLensApp> {
    let mut h = app();
    let ctx = h.ctx.clone();
    h.state_mut().record_ab(&ctx, form).unwrap();
    assert!(h.state().is_recording_ab());
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(300);
    while h.state().is_recording_ab() {
        assert!(std::time::Instant::now() < deadline, "no end in 300 s");
        std::thread::sleep(std::time::Duration::from_millis(50));
        h.step();
    }
    for _ in 0..2000 {
        h.step();
        if !h.state().is_loading()
            && h.state().recording(Side::B).is_some()
            && ui_now(&h)["computing"] == false
        {
            break;
        }
    }
    h.run_steps(2);
    h
}

#[test]
fn record_ab_runs_two_commands_alternately_and_opens_them_paired_as_report_dir_judges_them() {
    // The planted pools of `ab_folder`, each run's command taking the next
    // recording of its side's pool.
    let pools = ab_folder();
    let pop = |pool: &str| {
        let pool = pools.path().join(pool);
        format!(
            "f=$(ls -1 '{}'/*.puffin | head -n 1) && mv \"$f\" {{out}}",
            pool.display()
        )
    };
    // ab_folder's own session took its pools: fill them again.
    fill_pools(pools.path());
    let out = pools.path().join("app_runs");
    let h = recorded(puffin_lens::app::AbForm {
        mode: puffin_lens::app::AbMode::Writes,
        a: pop("pool_a"),
        b: pop("pool_b"),
        runs: MACHINE.len(),
        out: out.display().to_string(),
        ..Default::default()
    });
    assert!(h.state().error().is_none(), "{:?}", h.state().error());
    assert!(h.state().record_ab_error().is_none());
    let files = |s: &str| {
        (1..=4)
            .map(|k| format!("{s}{k}.puffin"))
            .collect::<Vec<_>>()
    };
    assert_eq!(runs_of(&h, Side::A), files("a"));
    assert_eq!(runs_of(&h, Side::B), files("b"));
    let ui = ui_now(&h);
    assert_eq!(
        ui["paired"],
        serde_json::json!({"source": "manifest.json", "pairs": 4})
    );
    // The runs the app recorded, judged by the CLI, read the same; and
    // the 10% change is found, as in the folder `ab` recorded.
    let (_, cli) = json_in(pools.path(), &["report", "app_runs", "--format", "json"]);
    let c = &cli["comparison"];
    assert_as_cli(&ui, c, "recorded by the app");
    let solve = (c["rows"].as_array().unwrap().iter())
        .find(|r| r["name"] == "physics::solve_contacts")
        .unwrap_or_else(|| panic!("{:#}", c["rows"]));
    assert_eq!(solve["change"]["kind"], "slower");

    // A folder that holds files is refused before anything runs, in the
    // dialog's words.
    let mut h = recorded_refused(puffin_lens::app::AbForm {
        mode: puffin_lens::app::AbMode::Writes,
        a: pop("pool_a"),
        b: pop("pool_b"),
        out: out.display().to_string(),
        ..Default::default()
    });
    let err = h.state().record_ab_error().unwrap_or_default().to_owned();
    assert!(
        err.starts_with("Record A/B: ") && err.contains("exists and is not empty"),
        "{err}"
    );
    h.run_steps(3);
    h.get_by_label_contains("exists and is not empty");
}

/// The app given `form`, which does not hold: nothing starts.
fn recorded_refused(form: puffin_lens::app::AbForm) -> Harness<'static, PuffinLensApp> {
    let mut h = app();
    let ctx = h.ctx.clone();
    assert!(h.state_mut().record_ab(&ctx, form).is_err());
    assert!(!h.state().is_recording_ab());
    h
}

#[test]
fn record_ab_from_two_running_apps_opens_their_runs_paired_and_stop_keeps_the_pairs() {
    let dir = tempfile::tempdir().unwrap();
    let (addr_a, addr_b) = (
        format!("127.0.0.1:{}", common::free_port()),
        format!("127.0.0.1:{}", common::free_port()),
    );
    let _a = common::Started::serving(&common::example_app(&addr_a, ""), &addr_a);
    let _b = common::Started::serving(&common::example_app(&addr_b, "--plant more-often"), &addr_b);
    let out = dir.path().join("runs");
    let form = puffin_lens::app::AbForm {
        mode: puffin_lens::app::AbMode::TwoApps,
        a: addr_a.clone(),
        b: addr_b.clone(),
        runs: 2,
        frames: 20,
        warmup: 3,
        out: out.display().to_string(),
        ..Default::default()
    };
    let h = recorded(form.clone());
    assert!(h.state().error().is_none(), "{:?}", h.state().error());
    assert_eq!(runs_of(&h, Side::A), ["a1.puffin", "a2.puffin"]);
    assert_eq!(runs_of(&h, Side::B), ["b1.puffin", "b2.puffin"]);
    let ui = ui_now(&h);
    assert_eq!(ui["view"], "findings", "{ui}");
    assert_eq!(ui["paired"]["pairs"], 2);
    let manifest = common::manifest(&out);
    let commands: Vec<&str> = (manifest["runs"].as_array().unwrap().iter())
        .map(|r| r["command"].as_str().unwrap())
        .collect();
    assert_eq!(commands, [&addr_a, &addr_b, &addr_b, &addr_a]);
    let (_, cli) = json_in(dir.path(), &["report", "runs", "--format", "json"]);
    assert_as_cli(&ui, &cli["comparison"], "two running apps");

    // Stopped after its first pair: the pair kept opens, and the dialog
    // says the session ended early.
    let mut h = app();
    let ctx = h.ctx.clone();
    let more = dir.path().join("more");
    let form = puffin_lens::app::AbForm {
        runs: 50,
        out: more.display().to_string(),
        ..form
    };
    h.state_mut().record_ab(&ctx, form).unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
    while !h
        .state()
        .record_ab_status()
        .unwrap_or_default()
        .starts_with("run 3 of")
    {
        assert!(
            std::time::Instant::now() < deadline,
            "no third run in 120 s"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
        h.step();
    }
    // The dialog shows how it goes.
    h.run_steps(2);
    h.get_by_label_contains("Recording into");
    h.get_by_label_contains("run 3 of 100 (b2)");
    h.get_by_label("Stop").click();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while h.state().is_recording_ab() || h.state().recording(Side::B).is_none() {
        assert!(std::time::Instant::now() < deadline, "not stopped in 60 s");
        std::thread::sleep(std::time::Duration::from_millis(20));
        h.step();
    }
    h.run_steps(3);
    let err = h.state().record_ab_error().unwrap_or_default().to_owned();
    assert!(
        err.starts_with("Record A/B ended early (stopped in run 3 of 100 (b2)")
            && err.ends_with("its 1 finished pair(s) open"),
        "{err}"
    );
    h.get_by_label_contains("Record A/B ended early");
    let notice = h.state().notice().unwrap_or_default();
    assert!(notice.starts_with("Opened 1 pair of runs"), "{notice}");
    assert_eq!(runs_of(&h, Side::A), ["a1.puffin"]);
    assert_eq!(runs_of(&h, Side::B), ["b1.puffin"]);
    // Nothing was started, so nothing was stopped: both apps still serve.
    assert!(std::net::TcpStream::connect(&addr_a).is_ok());
    assert!(std::net::TcpStream::connect(&addr_b).is_ok());
}

/// Connect… ▸ Record A/B runs… opens the dialog; A and B the same address
/// is refused there, before anything runs.
#[test]
fn the_record_ab_dialog_opens_from_the_top_bar_and_says_what_does_not_hold() {
    let mut h = app();
    h.get_by_label("Connect…").click();
    h.run_steps(2);
    h.get_by_label("Record A/B runs…").click();
    h.run_steps(3);
    h.get_by_label_contains("A's and B's runs alternate");
    h.get_by_label("Two running apps").click();
    h.run_steps(1);
    let boxes = h
        .query_all_by_role(egui::accesskit::Role::TextInput)
        .count();
    assert!(boxes >= 3, "A, B and the folder: {boxes}");
    // Record with B given A's address (the form as the dialog holds it).
    let dir = tempfile::tempdir().unwrap();
    let form = puffin_lens::app::AbForm {
        b: "127.0.0.1:8585".to_owned(),
        out: dir.path().join("runs").display().to_string(),
        ..Default::default()
    };
    let ctx = h.ctx.clone();
    let err = h.state_mut().record_ab(&ctx, form).unwrap_err();
    assert!(
        err.contains("A and B are the same address (127.0.0.1:8585)"),
        "{err}"
    );
    h.run_steps(3);
    h.get_by_label_contains("are the same address");
    assert!(!h.state().is_recording_ab());
    assert!(!dir.path().join("runs").exists(), "nothing was written");
}
