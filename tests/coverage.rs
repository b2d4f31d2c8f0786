//! What a real app's capture holds of what it ran: scope ids its scopes use
//! but never registers (the frames that registered them were not kept), and
//! frame indices the capture left out (puffin's FrameView keeps the recent
//! and the slowest frames). `summary`, its `--json`, the report and the app's
//! overview say both in one wording; the frame chart marks the breaks, the
//! timeline shades the spans "not recorded", gaps never span frames; and the
//! top bar fits one row at 1280 px with A and B open.

mod common;

use common::ui::{command, ui_now};
use common::{code, run, stderr, temp_file};
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable as _;
use puffin_lens::app::{PuffinLensApp, Settings, Shared, Side, Source, UiCommand};
use puffin_lens::engine::write::puffin::{
    Compression, Format, FrameData, Registration, ScopeNode, ThreadData, write_recording,
};
use serde_json::{Value, json};

const MS: i64 = 1_000_000;
const T0: i64 = 1_700_000_000_000_000_000;

/// Frame indices 1, 2, 3, 7, 8, 20, then a restart: 1, 2, 5. In runs of
/// increasing indices, 4-6 and 9-19 are absent (14), then 3-4 (2): 16.
const INDICES: [u64; 9] = [1, 2, 3, 7, 8, 20, 1, 2, 5];
/// Where the index does not follow the previous one.
const BREAKS: [u32; 4] = [3, 5, 6, 8];

/// Frames of 10 ms, 50 ms apart. Main: `frame` (id 1, registered) with a
/// child of id 37 in every frame; a worker runs id 38 in the even positions.
/// Only ids 1 and 2 are registered (with the first frame; `registered`
/// false: nothing is).
fn capture(registered: bool) -> Vec<FrameData> {
    INDICES
        .iter()
        .enumerate()
        .map(|(p, &index)| {
            let t = T0 + p as i64 * 50 * MS;
            let main = ScopeNode::new(1, t, t + 10 * MS)
                .child(ScopeNode::new(37, t + MS, t + 3 * MS))
                .child(ScopeNode::new(2, t + 6 * MS, t + 8 * MS));
            let mut threads = vec![ThreadData {
                name: "main".into(),
                start_time_ns: Some(T0),
                scopes: vec![main],
            }];
            if p % 2 == 0 {
                threads.push(ThreadData {
                    name: "worker".into(),
                    start_time_ns: Some(T0),
                    scopes: vec![ScopeNode::new(38, t + 2 * MS, t + 9 * MS)],
                });
            }
            FrameData {
                frame_index: index,
                threads,
                registrations: if registered && p == 0 {
                    vec![
                        Registration::named(1, "frame", "app::run", "src/app.rs", 1),
                        Registration::named(2, "paint", "app::paint", "src/app.rs", 2),
                    ]
                } else {
                    Vec::new()
                },
            }
        })
        .collect()
}

fn file(registered: bool) -> (tempfile::TempDir, std::path::PathBuf) {
    temp_file(
        "app.puffin",
        &write_recording(&capture(registered), Format::Pfd4(Compression::Lz4)),
    )
}

fn stdout(args: &[&str]) -> String {
    let out = run(args);
    assert_eq!(code(&out), 0, "{args:?}: {}", stderr(&out));
    String::from_utf8(out.stdout).unwrap()
}

const UNREGISTERED_NOTE: &str = "2 scope ids used by 14 instances but never registered \
(37: 9 instances, 38: 5 instances): shown as scope#<id>. The frames that registered them are \
not in this recording";
const ABSENT_NOTE: &str = "9 of frame indices 1-20; 16 not in this recording (the capture kept \
only some frames); the frame index restarted once, counted as two ranges";

#[test]
fn summary_and_report_say_what_the_capture_left_out() {
    let (_dir, path) = file(true);
    let path = path.to_str().unwrap();
    let json: Value = serde_json::from_str(&stdout(&["summary", path, "--json"])).unwrap();
    assert_eq!(
        json["unregistered_scope_ids"],
        json!([{"id": 37, "instances": 9}, {"id": 38, "instances": 5}])
    );
    assert_eq!(json["frame_index_range"], json!([1, 20]));
    assert_eq!(json["frames_absent"], 16);

    let text = stdout(&["summary", path]);
    assert!(
        text.contains(&format!("frame indices      {ABSENT_NOTE}")),
        "{text}"
    );
    assert!(
        text.contains(&format!("unregistered ids   {UNREGISTERED_NOTE}")),
        "{text}"
    );

    // `frames` says its frames are not a sample; the report that its
    // median is biased.
    let frames = stdout(&["frames", path]);
    assert!(
        frames.starts_with(&format!(
            "note: the capture kept only some frames ({ABSENT_NOTE})"
        )),
        "{frames}"
    );
    let r: Value = serde_json::from_str(&stdout(&["report", path, "--format", "json"])).unwrap();
    assert!(
        r["recordings"][0]["median_note"]
            .as_str()
            .unwrap()
            .ends_with("the median is biased upward"),
        "{r}"
    );
    assert!(!stdout(&["frames", "samples/threads_demo.puffin"]).contains("note:"));

    // The report says the same, in the same words.
    let md = stdout(&["report", path]);
    let md_plain = md.replace('\\', "");
    assert!(
        md_plain.contains(&format!("Frames: {ABSENT_NOTE}.")),
        "{md}"
    );
    assert!(md_plain.contains(UNREGISTERED_NOTE), "{md}");
}

#[test]
fn a_capture_without_registration_or_missing_frames_says_nothing_of_them() {
    let (_dir, path) = file(false);
    let json: Value =
        serde_json::from_str(&stdout(&["summary", path.to_str().unwrap(), "--json"])).unwrap();
    // No registration at all has its own warning; no list of unregistered ids.
    assert_eq!(json["has_registration"], false);
    assert_eq!(json["unregistered_scope_ids"], json!([]));
    // The bundled example: every index from the first to the last.
    let json: Value = serde_json::from_str(&stdout(&[
        "summary",
        "samples/threads_demo.puffin",
        "--json",
    ]))
    .unwrap();
    assert_eq!(json["frames_absent"], 0);
    assert_eq!(json["unregistered_scope_ids"], json!([]));
    let text = stdout(&["summary", "samples/threads_demo.puffin"]);
    assert!(text.contains("all in this recording"), "{text}");
    assert!(!text.contains("unregistered ids"), "{text}");
}

#[test]
fn gaps_never_span_the_time_between_frames() {
    let (_dir, path) = file(true);
    let path = path.to_str().unwrap();
    let gaps: Value = serde_json::from_str(&stdout(&[
        "gaps", path, "--min-ms", "0.001", "--top", "1000", "--json",
    ]))
    .unwrap();
    // Between frames only where the index follows on (1-2, 2-3, 7-8, and
    // after the restart 1-2): a frame the capture did not keep is not idle.
    let between: Vec<u64> = gaps["gaps"]
        .as_array()
        .unwrap()
        .iter()
        .chain(gaps["recurring"].as_array().unwrap())
        .filter(|g| g["kind"] == "between-frames")
        .map(|g| g["frames"].as_u64().unwrap_or(1))
        .collect();
    assert_eq!(between.iter().sum::<u64>(), 4, "{gaps}");
    // Every other gap (one-off, or a recurring one's longest occurrence)
    // lies inside its frame.
    let windows: Vec<(i64, i64, &Value)> = gaps["gaps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| {
            (
                g["start_ns"].as_i64().unwrap(),
                g["end_ns"].as_i64().unwrap(),
                g,
            )
        })
        .chain(gaps["recurring"].as_array().unwrap().iter().map(|g| {
            let lo = g["longest_start_ns"].as_i64().unwrap();
            (lo, lo + g["max_ns"].as_i64().unwrap(), g)
        }))
        .filter(|(_, _, g)| g["kind"] != "between-frames")
        .collect();
    assert!(windows.len() >= 2, "{gaps}");
    for (lo, hi, g) in windows {
        let p = (lo - T0) / (50 * MS);
        let (start, end) = (T0 + p * 50 * MS, T0 + p * 50 * MS + 10 * MS);
        assert!(start <= lo && hi <= end, "a gap outside its frame: {g}");
    }
}

fn app(width: f32, registered: bool) -> Harness<'static, PuffinLensApp> {
    let mut h = Harness::builder()
        .with_size(egui::vec2(width, 800.0))
        .build_eframe(|cc| {
            PuffinLensApp::with_context(&cc.egui_ctx, Shared::default(), Settings::default())
                .with_threaded_loading(false)
        });
    let bytes = write_recording(&capture(registered), Format::Pfd4(Compression::Lz4));
    h.state()
        .open("a real app.puffin", Source::Bytes(bytes), Some(Side::A));
    for _ in 0..100 {
        h.step();
        if h.state().recording(Side::A).is_some() {
            break;
        }
    }
    h.run_steps(3);
    assert!(h.state().recording(Side::A).is_some(), "loaded");
    h
}

#[test]
fn the_overview_banners_the_ids_and_marks_the_breaks() {
    let h = app(1280.0, true);
    h.get_by_label("Some scope ids were never registered");
    h.get_by_label_contains(UNREGISTERED_NOTE);
    h.get_by_label_contains(&format!("Frames: {ABSENT_NOTE}"));
    let overview = &h.state().recording(Side::A).unwrap().overview;
    assert_eq!(overview.breaks(), BREAKS);
    assert_eq!(overview.absent_note(), Some(ABSENT_NOTE));
    // Without registration: the loud banner of its own, not this one.
    let h = app(1280.0, false);
    assert!(
        h.query_by_label("Some scope ids were never registered")
            .is_none()
    );
    h.get_by_label("No scope registration in this recording");
}

#[test]
fn the_timeline_shades_what_was_not_recorded_and_draws_no_gap_there() {
    let mut h = app(1280.0, true);
    command(
        &mut h,
        UiCommand::Show {
            view: "timeline".into(),
            options: json!({"all": true}),
        },
    )
    .expect("shows the timeline");
    h.run_steps(2);
    let ui = ui_now(&h);
    // Each break, the restart included, is a span forward in time: 4, all shown.
    assert_eq!(ui["not_recorded"], 4, "{ui}");
    let tl = h
        .state()
        .recording(Side::A)
        .unwrap()
        .timeline
        .as_ref()
        .unwrap();
    // The gaps drawn lie inside frames.
    for lane in tl.painted() {
        for &(lo, hi, _, _) in &lane.gaps {
            let p = (lo - T0) / (50 * MS);
            assert!(
                lo >= T0 + p * 50 * MS && hi <= T0 + p * 50 * MS + 10 * MS,
                "a gap between frames: {lo}..{hi}"
            );
        }
    }
}

#[test]
fn the_top_bar_is_one_row_at_1280_px_with_a_and_b_open() {
    let open_b = |h: &mut Harness<'static, PuffinLensApp>| {
        let bytes = write_recording(&capture(true), Format::Pfd4(Compression::Zstd));
        h.state().open(
            "a second, longer file name.puffin",
            Source::Bytes(bytes),
            Some(Side::B),
        );
        for _ in 0..100 {
            h.step();
            if h.state().recording(Side::B).is_some() {
                break;
            }
        }
        h.run_steps(3);
    };
    let mut h = app(1280.0, true);
    open_b(&mut h);
    assert!(h.state().recording(Side::B).is_some());
    assert_eq!(h.state().top_bar_rows(), 1);
    assert_eq!(ui_now(&h)["top_bar_rows"], 1);
    // The measure can tell: a narrow window wraps.
    let mut narrow = app(700.0, true);
    open_b(&mut narrow);
    assert!(narrow.state().top_bar_rows() > 1);
    // The frame budget and the theme are in the Settings menu.
    h.get_by_label("Settings").click();
    h.run_steps(2);
    h.get_by_label("16.7 ms (60 fps)");
    h.get_by_label("Dark");
}
