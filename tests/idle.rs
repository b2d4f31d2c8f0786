//! Idle versus unprofiled (`gaps`, the report, the timeline): a thread that
//! runs tasks waits between its top-level scopes (kind `idle`, listed
//! apart, never ranked as unprofiled cost); a thread whose top-level scopes
//! make up its frames has unprofiled work between them (`top-level`).
//! Shares are of the thread's span, at most 100%. On a planted game loop
//! with a worker, on the real Rerun SDK capture (one long frame, three
//! waiting workers) and on the real Rerun Viewer.

mod common;

use common::scenario::{ns, scope, t, thread};
use common::ui::{command, open_with, ui_now};
use common::{run, temp_file};
use puffin_lens::app::{Settings, Side, UiCommand};
use puffin_lens::engine::write::puffin::{
    Compression, Format, FrameData, Registration, write_recording,
};
use serde_json::{Value, json};

const STEP: u32 = 1;
const DRAW: u32 = 2;
const JOB: u32 = 3;
const INNER: u32 = 4;
const FRAMES: usize = 4;
const PERIOD_MS: f64 = 20.0;
/// main: sim::step, 1.5 ms unprofiled, draw::batch (the frame ends there).
const STEP_MS: (f64, f64) = (0.0, 6.0);
const DRAW_MS: (f64, f64) = (7.5, 16.0);
/// worker: two jobs, waiting 6 ms between them; the first has 1 ms of its
/// own after its child (unprofiled work inside a task).
const JOB_A_MS: (f64, f64) = (1.0, 3.0);
const INNER_MS: (f64, f64) = (1.0, 2.0);
const JOB_B_MS: (f64, f64) = (9.0, 10.0);

fn game() -> Vec<FrameData> {
    (0..FRAMES)
        .map(|k| {
            let o = k as f64 * PERIOD_MS;
            FrameData {
                frame_index: k as u64,
                threads: vec![
                    thread(
                        "main",
                        0,
                        vec![
                            scope(STEP, o + STEP_MS.0, o + STEP_MS.1, ""),
                            scope(DRAW, o + DRAW_MS.0, o + DRAW_MS.1, ""),
                        ],
                    ),
                    thread(
                        "worker",
                        1,
                        vec![
                            scope(JOB, o + JOB_A_MS.0, o + JOB_A_MS.1, "a").child(scope(
                                INNER,
                                o + INNER_MS.0,
                                o + INNER_MS.1,
                                "",
                            )),
                            scope(JOB, o + JOB_B_MS.0, o + JOB_B_MS.1, "b"),
                        ],
                    ),
                ],
                registrations: if k == 0 {
                    vec![
                        Registration::function(STEP, "sim::step", "src/sim.rs", 1),
                        Registration::function(DRAW, "draw::batch", "src/draw.rs", 2),
                        Registration::function(JOB, "job", "src/worker.rs", 3),
                        Registration::function(INNER, "job::inner", "src/worker.rs", 4),
                    ]
                } else {
                    vec![]
                },
            }
        })
        .collect()
}

fn json_of(args: &[&str]) -> Value {
    let out = run(args);
    assert!(out.status.success(), "{args:?}: {}", common::stderr(&out));
    serde_json::from_slice(&out.stdout).expect("JSON")
}

fn text_of(args: &[&str]) -> String {
    let out = run(args);
    assert!(out.status.success(), "{args:?}: {}", common::stderr(&out));
    String::from_utf8(out.stdout).expect("UTF-8")
}

fn list<'a>(g: &'a Value, key: &str) -> &'a [Value] {
    g[key].as_array().map_or(&[][..], |v| v.as_slice())
}

/// Every share is of the thread's span, said so, consistent with the
/// total and at most 100%.
fn check_shares(g: &Value) {
    for key in ["recurring", "recurring_idle"] {
        for r in list(g, key) {
            if r["kind"] == "between-frames" {
                assert_eq!(r["share_of_thread_pct"], Value::Null, "{r}");
                assert_eq!(r["share_of"], Value::Null, "{r}");
                continue;
            }
            let share = r["share_of_thread_pct"].as_f64().expect("a share");
            assert!((0.0..=100.0).contains(&share), "{key}: {r}");
            assert_eq!(r["share_of"], "thread-span", "{r}");
            let span = r["thread_span_ns"].as_i64().unwrap() as f64;
            let total = r["total_ns"].as_i64().unwrap() as f64;
            let want = (100.0 * total / span).min(100.0);
            assert!((share - want).abs() < 1e-6, "{r}");
            // The span is the thread's, as in `threads`.
            let t = list(g, "threads")
                .iter()
                .find(|t| t["thread"] == r["thread"])
                .expect("the thread's role");
            assert_eq!(t["span_ns"], r["thread_span_ns"], "{r}");
        }
    }
}

fn role<'a>(g: &'a Value, thread: &str) -> &'a str {
    list(g, "threads")
        .iter()
        .find(|t| t["thread"] == thread)
        .and_then(|t| t["role"].as_str())
        .unwrap_or_else(|| panic!("no role for {thread:?}: {}", g["threads"]))
}

/// Unprofiled items (one-off and recurring) and idle items of `thread`.
fn of_thread<'a>(g: &'a Value, keys: [&str; 2], thread: &str) -> Vec<&'a Value> {
    keys.iter()
        .flat_map(|k| list(g, k))
        .filter(|x| x["thread"] == thread)
        .collect()
}

#[test]
fn a_worker_waits_between_tasks_and_a_game_loop_has_unprofiled_work() {
    let bytes = write_recording(&game(), Format::Pfd4(Compression::Lz4));
    let (_d, path) = temp_file("game.puffin", &bytes);
    let p = path.to_str().unwrap();
    let g = json_of(&["gaps", p, "--min-ms", "0.5", "--json"]);
    check_shares(&g);
    assert_eq!(role(&g, "main"), "frame-driving");
    assert_eq!(role(&g, "worker"), "tasks");
    // The rule's numbers, from the planted times: a frame runs from the
    // first top-level start (main's 0) to the last end (main's 16 ms).
    let frame_ms = DRAW_MS.1 - STEP_MS.0;
    let worker = list(&g, "threads")
        .iter()
        .find(|t| t["thread"] == "worker")
        .unwrap();
    let n = FRAMES as f64;
    assert_eq!(worker["frames"], FRAMES);
    assert_eq!(worker["frames_ns"], ns(n * frame_ms));
    assert_eq!(worker["span_ns"], ns(n * (JOB_B_MS.1 - JOB_A_MS.0)));
    assert_eq!(
        worker["covered_ns"],
        ns(n * (JOB_A_MS.1 - JOB_A_MS.0 + JOB_B_MS.1 - JOB_B_MS.0))
    );

    // main's 1.5 ms between sim::step and draw::batch: unprofiled work,
    // ranked, its share of main's span.
    let top_level: Vec<&Value> = list(&g, "recurring")
        .iter()
        .filter(|r| r["kind"] == "top-level")
        .collect();
    assert_eq!(top_level.len(), 1, "{g}");
    let r = top_level[0];
    let gap_ms = DRAW_MS.0 - STEP_MS.1;
    assert_eq!(
        (
            r["thread"].as_str(),
            r["after"].as_str(),
            r["before"].as_str()
        ),
        (Some("main"), Some("sim::step"), Some("draw::batch"))
    );
    assert_eq!(r["frames"], FRAMES);
    assert_eq!(r["total_ns"], ns(n * gap_ms));
    let share = r["share_of_thread_pct"].as_f64().unwrap();
    assert!((share - 100.0 * gap_ms / frame_ms).abs() < 1e-9, "{r}");

    // The worker's waits: idle, apart, never among the unprofiled.
    for x in of_thread(&g, ["recurring", "gaps"], "worker") {
        assert_ne!(x["kind"], "idle", "{x}");
        assert_ne!(x["kind"], "top-level", "{x}");
    }
    let idle = list(&g, "recurring_idle");
    assert_eq!(idle.len(), 1, "{g}");
    let wait_ms = JOB_B_MS.0 - JOB_A_MS.1;
    let span_ms = JOB_B_MS.1 - JOB_A_MS.0;
    assert_eq!(
        (
            idle[0]["thread"].as_str(),
            idle[0]["kind"].as_str(),
            idle[0]["path"].as_str(),
            idle[0]["frames"].as_u64(),
            idle[0]["median_ns"].as_i64(),
            idle[0]["total_ns"].as_i64(),
        ),
        (
            Some("worker"),
            Some("idle"),
            Some(""),
            Some(FRAMES as u64),
            Some(ns(wait_ms)),
            Some(ns(n * wait_ms))
        )
    );
    let share = idle[0]["share_of_thread_pct"].as_f64().unwrap();
    assert!(
        (share - 100.0 * wait_ms / span_ms).abs() < 1e-9,
        "{}",
        idle[0]
    );
    // main was busy through the worker's wait, by its overlap: sim::step
    // to its end, then draw::batch from its start.
    assert_eq!(idle[0]["other_threads"][0]["thread"], "main");
    let overlap_ms = (STEP_MS.1 - JOB_A_MS.1) + (JOB_B_MS.0 - DRAW_MS.0);
    assert_eq!(
        idle[0]["other_threads"][0]["busy_ns"],
        ns(n * overlap_ms),
        "{}",
        idle[0]
    );
    // The work inside a task stays unprofiled: job's 1 ms after its child.
    assert!(
        list(&g, "recurring").iter().any(|r| r["thread"] == "worker"
            && r["kind"] == "trailing"
            && r["path"] == "job"
            && r["total_ns"] == ns(n * (JOB_A_MS.1 - INNER_MS.1))),
        "{g}"
    );
    // Each wait is a usual occurrence of the recurring one: no one-off.
    assert_eq!(g["total_idle"], 0);
    assert_eq!(g["total_recurring_idle"], 1);

    // The text lists the waits apart, with the threads' roles.
    let text = text_of(&["gaps", p, "--min-ms", "0.5"]);
    let (unprofiled, idle_part) = text.split_once("\nIdle:").expect("an idle section");
    assert!(unprofiled.contains("top-level"), "{text}");
    assert!(!unprofiled.contains("worker (top level)"), "{text}");
    assert!(idle_part.contains("worker (top level)"), "{text}");
    assert!(idle_part.contains("worker: runs tasks"), "{text}");
    assert!(idle_part.contains("main: drives the frames"), "{text}");
    assert!(text.contains("% of thread span"), "{text}");

    // The report: the same lists, the waits in their own section.
    let md = text_of(&["report", p, "--gap-ms", "0.5"]);
    let (unprofiled, idle_part) = md.split_once("Idle time").expect("an idle section");
    assert!(!unprofiled.contains("worker (top level)"), "{md}");
    assert!(idle_part.contains("worker (top level)"), "{md}");
    assert!(idle_part.contains("Run tasks: worker"), "{md}");

    // The timeline hatches main's gap and shades the worker's waits.
    let mut h = open_with(None, Settings::default(), "game.puffin", bytes);
    command(
        &mut h,
        UiCommand::Show {
            view: "timeline".into(),
            options: json!({"frame": 0}),
        },
    )
    .expect("shows the timeline");
    h.run_steps(2);
    let _ = ui_now(&h);
    let tl = h
        .state()
        .recording(Side::A)
        .unwrap()
        .timeline
        .as_ref()
        .unwrap();
    let lane = |name: &str| tl.painted().iter().find(|l| l.thread == name).unwrap();
    let main = lane("main");
    assert_eq!(
        main.gaps
            .iter()
            .map(|g| (g.0, g.1, g.2))
            .collect::<Vec<_>>(),
        [(t(STEP_MS.1), t(DRAW_MS.0), 0)]
    );
    assert!(main.idle.is_empty());
    let w = lane("worker");
    assert_eq!(
        w.idle.iter().map(|g| (g.0, g.1, g.2)).collect::<Vec<_>>(),
        [(t(JOB_A_MS.1), t(JOB_B_MS.0), 0)]
    );
    // Its only hatched gap is inside the first job.
    assert_eq!(
        w.gaps.iter().map(|g| (g.0, g.1, g.2)).collect::<Vec<_>>(),
        [(t(INNER_MS.1), t(JOB_A_MS.1), 1)]
    );
}

const SDK: &str = "tests/fixtures/real/rerun_sdk_points.puffin";
const VIEWER: &str = "tests/fixtures/real/rerun_viewer_plots_a.puffin";
const SDK_WORKERS: [&str; 3] = [
    "ChunkBatcher::cmds_to_chunks",
    "RecordingStream::batcher_to_sink",
    "file_writer",
];

#[test]
fn the_sdk_workers_wait_and_the_real_work_comes_first() {
    let g = json_of(&["gaps", SDK, "--top", "100000", "--json"]);
    check_shares(&g);
    for w in SDK_WORKERS {
        assert_eq!(role(&g, w), "tasks", "{w}");
        // Their waits are idle; none is ranked as unprofiled.
        for x in of_thread(&g, ["recurring", "gaps"], w) {
            assert!(!x["path"].as_str().unwrap().is_empty(), "{x}");
        }
        let waits: i64 = of_thread(&g, ["recurring_idle", "idle"], w)
            .iter()
            .map(|x| {
                x["total_ns"]
                    .as_i64()
                    .or(x["duration_ns"].as_i64())
                    .unwrap()
            })
            .sum();
        let t = list(&g, "threads")
            .iter()
            .find(|t| t["thread"] == w)
            .unwrap();
        // Waiting is most of what these threads' spans hold.
        let (covered, span) = (
            t["covered_ns"].as_i64().unwrap(),
            t["span_ns"].as_i64().unwrap(),
        );
        assert!(waits > span / 2 && waits > 10 * covered, "{w}: {t}");
    }
    // Python's time between calls into the SDK: the main thread "" runs
    // tasks too (a few short scopes in the long frame).
    assert_eq!(role(&g, ""), "tasks");
    // The first unprofiled time is real work: inside encode_arrow, before
    // its lz4::compress.
    let first = &list(&g, "recurring")[0];
    assert!(
        first["path"]
            .as_str()
            .unwrap()
            .ends_with("transport_to_app::encode_arrow"),
        "{first}"
    );
    assert_eq!(first["before"], "lz4::compress", "{first}");
    assert_eq!(first["kind"], "leading", "{first}");
    assert!(
        list(&g, "gaps")[0]["path"]
            .as_str()
            .unwrap()
            .ends_with("encode_arrow"),
        "{}",
        g["gaps"][0]
    );
    // The report says the same.
    let md = text_of(&["report", SDK]);
    let (unprofiled, idle) = md.split_once("Idle time").expect("an idle section");
    let unprofiled = unprofiled
        .split_once("Unprofiled time: recurring gaps")
        .expect("the unprofiled section")
        .1;
    for w in SDK_WORKERS {
        let place = format!("{w} (top level)");
        assert!(!unprofiled.contains(&place), "{place} in\n{unprofiled}");
        assert!(idle.contains(&place), "{place} in\n{idle}");
    }
}

#[test]
fn the_sdk_workers_waits_are_shaded_not_hatched() {
    let bytes = std::fs::read(SDK).unwrap();
    let mut h = open_with(None, Settings::default(), "sdk.puffin", bytes);
    command(
        &mut h,
        UiCommand::Show {
            view: "timeline".into(),
            options: json!({"all": true}),
        },
    )
    .expect("shows the timeline");
    h.run_steps(2);
    let tl = h
        .state()
        .recording(Side::A)
        .unwrap()
        .timeline
        .as_ref()
        .unwrap();
    for w in SDK_WORKERS {
        let lane = tl
            .painted()
            .iter()
            .find(|l| l.thread == w)
            .unwrap_or_else(|| panic!("a lane for {w}"));
        assert!(
            lane.gaps.iter().all(|g| g.2 > 0),
            "{w}: hatched at the top level"
        );
        assert!(!lane.idle.is_empty(), "{w}: no idle stretch drawn");
        assert!(lane.idle.iter().all(|g| g.2 == 0));
    }
}

#[test]
fn the_viewer_main_drives_the_frames_and_rayon_runs_tasks() {
    let g = json_of(&["gaps", VIEWER, "--min-ms", "0", "--top", "100000", "--json"]);
    check_shares(&g);
    assert_eq!(role(&g, "main"), "frame-driving");
    let rayon: Vec<&Value> = list(&g, "threads")
        .iter()
        .filter(|t| t["thread"].as_str().unwrap().starts_with("rayon"))
        .collect();
    assert!(!rayon.is_empty());
    for t in rayon {
        assert_eq!(t["role"], "tasks", "{t}");
        let name = t["thread"].as_str().unwrap();
        for x in of_thread(&g, ["recurring", "gaps"], name) {
            assert!(!x["path"].as_str().unwrap().is_empty(), "{x}");
        }
        assert!(!of_thread(&g, ["recurring_idle", "idle"], name).is_empty());
    }
    // main's top-level gaps (between its event handlers) stay unprofiled.
    let main_idle = of_thread(&g, ["recurring_idle", "idle"], "main");
    assert!(main_idle.is_empty(), "{main_idle:?}");
}
