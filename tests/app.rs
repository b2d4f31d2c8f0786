//! The app (egui_kittest): opening recordings, the overview's banners, the
//! highlighted slowest frames and selection, errors and damaged files.
//! Recordings are generated, so every expected answer is known.

mod common;

use egui_kittest::Harness;
use egui_kittest::kittest::Queryable as _;
use puffin_lens::app::{PuffinLensApp, Settings, Shared, Side, Source};
use puffin_lens::engine::FrameId;
use puffin_lens::engine::write::puffin::{
    Compression, Format, FrameData, Registration, ScopeNode, ThreadData, write_recording,
};

const T0: i64 = 5_000_000_000;

/// Frame durations in ms, in file order; frame_index = 100 + position.
/// The slowest is position 2 (30 ms), then position 4 (12 ms).
const DURATIONS_MS: [i64; 6] = [5, 8, 30, 6, 12, 7];

fn frames(registered: bool) -> Vec<FrameData> {
    let mut start = T0;
    DURATIONS_MS
        .iter()
        .enumerate()
        .map(|(i, &ms)| {
            let end = start + ms * 1_000_000;
            let frame = ScopeNode::new(1, start, end)
                .child(ScopeNode::new(2, start, start + ms * 400_000).data("update"));
            let worker = ScopeNode::new(3, start + 1_000_000, start + 2_000_000).data("job");
            let data = FrameData {
                frame_index: 100 + i as u64,
                threads: vec![
                    ThreadData {
                        name: "main".into(),
                        start_time_ns: Some(T0),
                        scopes: vec![frame],
                    },
                    ThreadData {
                        name: "worker".into(),
                        start_time_ns: Some(T0),
                        scopes: vec![worker],
                    },
                ],
                registrations: if registered && i == 0 {
                    vec![
                        Registration::named(1, "frame", "app::run", "src/app.rs", 10),
                        Registration::function(2, "app::update", "src/app.rs", 20),
                        Registration::named(3, "job", "app::worker", "src/worker.rs", 7),
                    ]
                } else {
                    Vec::new()
                },
            };
            start = end + 1_000_000;
            data
        })
        .collect()
}

fn recording(registered: bool) -> Vec<u8> {
    write_recording(&frames(registered), Format::Pfd4(Compression::Lz4))
}

fn harness() -> Harness<'static, PuffinLensApp> {
    Harness::builder()
        .with_size(egui::vec2(1280.0, 900.0))
        .build_eframe(|cc| {
            PuffinLensApp::with_context(&cc.egui_ctx, Shared::default(), Settings::default())
                .with_threaded_loading(false)
        })
}

/// Opens a recording and runs the app until the load has ended.
fn open(h: &mut Harness<'static, PuffinLensApp>, name: &str, bytes: Vec<u8>, side: Option<Side>) {
    h.state().open(name, Source::Bytes(bytes), side);
    for _ in 0..200 {
        h.step();
        if !h.state().is_loading() && h.state().shared().borrow().incoming.is_empty() {
            break;
        }
    }
    h.run_steps(3);
    assert!(!h.state().is_loading(), "{name} still loading");
}

#[test]
fn registered_recording_has_no_banner_and_shows_its_summary() {
    let mut h = harness();
    open(&mut h, "good.puffin", recording(true), None);
    let view = h.state().view(Side::A).expect("A is shown");
    let s = &view.loaded().summary;
    assert_eq!((s.frames, s.threads, s.scopes), (6, 2, 18));
    assert!(s.has_registration);
    assert!(
        h.query_by_label_contains("No scope registration").is_none(),
        "no banner for a registered recording"
    );
    h.get_by_label("PFD4");
    h.get_by_label("lz4");
    h.get_by_label_contains("A: good.puffin");
}

#[test]
fn recording_without_registration_shows_the_banner() {
    let mut h = harness();
    open(&mut h, "bare.puffin", recording(false), None);
    h.get_by_label_contains("No scope registration");
    h.get_by_label_contains("scope#<id>");
    let view = h.state().view(Side::A).expect("A is shown");
    assert!(!view.loaded().summary.has_registration);
}

#[test]
fn slowest_frames_are_highlighted_and_selection_follows_clicks() {
    let mut h = harness();
    open(&mut h, "good.puffin", recording(true), None);
    let view = h.state().view(Side::A).expect("A is shown");
    // The slowest frame is selected first; with the default 16.7 ms budget
    // only it is over budget.
    assert_eq!(view.selected(), Some(FrameId(2)));
    assert_eq!(view.highlighted_frames(), &[FrameId(2)]);
    assert!(view.highlights_over_budget());
    assert!(view.is_highlighted(FrameId(2)));
    assert!(!view.is_highlighted(FrameId(4)));
    h.get_by_label_contains("Frame 102 · 30.000 ms");
    h.get_by_label_contains("the 1 frame(s) over the 16.7 ms budget");

    // A 10 ms budget: the 30 and 12 ms frames are over it, slowest first.
    h.state_mut().set_frame_budget_ms(10.0);
    h.run_steps(2);
    let view = h.state().view(Side::A).expect("A");
    assert_eq!(view.highlighted_frames(), &[FrameId(2), FrameId(4)]);

    // No frame over a 100 ms budget: the slowest 10% (at least one) instead,
    // not most of a short recording.
    h.state_mut().set_frame_budget_ms(100.0);
    h.run_steps(2);
    let view = h.state().view(Side::A).expect("A");
    assert!(!view.highlights_over_budget());
    assert_eq!(view.highlighted_frames(), &[FrameId(2)]);
    h.get_by_label_contains("no frame is over the 100 ms budget");

    // Clicking a row of the slowest-frames list selects that frame, and the
    // selected-frame panel follows.
    h.get_by_label("frame 104").click();
    h.run_steps(3);
    assert_eq!(
        h.state().view(Side::A).expect("A").selected(),
        Some(FrameId(4))
    );
    h.get_by_label_contains("Frame 104 · 12.000 ms");
    assert!(h.query_by_label_contains("Frame 102 · ").is_none());
}

/// A real click (tests/common/ui.rs), then two frames for what it changed.
fn click(h: &mut Harness<'static, PuffinLensApp>, pos: egui::Pos2) {
    common::ui::click(h, pos);
    h.run_steps(2);
}

#[test]
fn a_click_on_a_chart_bar_selects_its_frame() {
    let mut h = harness();
    open(&mut h, "good.puffin", recording(true), None);
    for f in [FrameId(0), FrameId(5), FrameId(3)] {
        let pos = h
            .state()
            .view(Side::A)
            .expect("A")
            .chart_bar_pos(f)
            .expect("the chart was drawn");
        click(&mut h, pos);
        assert_eq!(h.state().view(Side::A).expect("A").selected(), Some(f));
    }
    h.get_by_label_contains("Frame 103 · 6.000 ms");
}

#[test]
fn filter_shortcut_filters_the_frame_scopes_and_escape_clears_it() {
    let mut h = harness();
    open(&mut h, "good.puffin", recording(true), None);
    assert_eq!(h.state().view(Side::A).expect("A").listed_scopes().len(), 3);
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::F);
    h.run_steps(2);
    h.event(egui::Event::Text("jo".into()));
    h.run_steps(2);
    assert_eq!(h.state().filter(), "jo");
    let listed = h.state().view(Side::A).expect("A").listed_scopes().to_vec();
    assert_eq!(listed.len(), 1, "{listed:?}");
    assert_eq!(listed[0].name, "job");
    h.get_by_label_contains("Scopes starting with \"jo\"");
    h.key_press(egui::Key::Escape);
    h.run_steps(2);
    assert_eq!(h.state().filter(), "");
    assert_eq!(h.state().view(Side::A).expect("A").listed_scopes().len(), 3);
}

#[test]
fn bad_file_shows_one_error_line_and_the_app_keeps_working() {
    let mut h = harness();
    open(&mut h, "junk.bin", b"hello, not a recording".to_vec(), None);
    let err = h.state().error().expect("an error").to_owned();
    assert!(
        err.starts_with("junk.bin: not a .puffin recording"),
        "{err}"
    );
    h.get_by_label_contains("Error: junk.bin: not a .puffin recording");
    assert!(h.state().view(Side::A).is_none());

    open(&mut h, "good.puffin", recording(true), None);
    assert!(h.state().error().is_none(), "a good load clears the error");
    assert!(h.state().view(Side::A).is_some());
}

#[test]
fn damaged_recording_keeps_its_intact_frames_and_warns() {
    let bytes = recording(true);
    // Cut the file in the middle of the last frame.
    let cut = bytes.len() - 10;
    let mut h = harness();
    open(&mut h, "cut.puffin", bytes[..cut].to_vec(), None);
    let view = h
        .state()
        .view(Side::A)
        .expect("the intact frames are shown");
    let s = &view.loaded().summary;
    assert!(s.damaged);
    assert_eq!(s.frames, 5);
    assert!(
        s.diagnostics[0].starts_with("damaged: frame #5"),
        "{:?}",
        s.diagnostics
    );
    h.get_by_label_contains("cut.puffin is damaged: showing the intact frames");
}

#[test]
fn second_recording_opens_as_b_is_shown_and_example_button_loads_a() {
    let mut h = harness();
    open(&mut h, "before.puffin", recording(true), None);
    open(&mut h, "after.puffin", recording(false), None);
    assert_eq!(
        h.state().view(Side::A).expect("A").loaded().name,
        "before.puffin"
    );
    assert_eq!(
        h.state().view(Side::B).expect("B").loaded().name,
        "after.puffin"
    );
    // What the user just opened is what they see: the pair's findings,
    // with a word on them.
    assert_eq!(h.state().shown(), Side::B);
    assert_eq!(
        h.state().recording(Side::B).expect("B").view,
        puffin_lens::app::View::Findings
    );
    let notice = h.state().notice().expect("a notice").to_owned();
    assert!(
        notice.starts_with(
            "Showing the findings of B (after.puffin) against A (before.puffin), as \
             `puffin-lens report` judges them"
        ),
        "{notice}"
    );
    h.get_by_label_contains("Showing the findings of B");
    {
        let shared = h.state().shared().borrow();
        assert_eq!(shared.b.as_ref().expect("published").name, "after.puffin");
    }
    h.get_by_label("Try an example").click();
    for _ in 0..200 {
        h.step();
        if common::ui::ui_now(&h)["computing"] == false
            && h.state()
                .view(Side::B)
                .is_some_and(|b| b.loaded().name == "example_after.puffin")
        {
            break;
        }
    }
    // The example pair, on its findings with the frame pacing: B's autosave
    // frames miss their vsync.
    let a = h.state().view(Side::A).expect("A").loaded().clone();
    assert_eq!(a.name, "example_before.puffin");
    assert!(a.summary.frames == 300 && a.summary.threads == 4);
    assert_eq!(
        h.state().view(Side::B).expect("B").loaded().name,
        "example_after.puffin"
    );
    assert_eq!(
        h.state().recording(Side::B).expect("B").view,
        puffin_lens::app::View::Findings
    );
    h.run_steps(2);
    let ui = common::ui::ui_now(&h);
    let headline = ui["pacing"]["headline"].as_str().unwrap_or_default();
    assert!(headline.starts_with("B's slow frames got worse"), "{ui}");
    assert!(headline.contains("`save::autosave`"), "{headline}");
    h.get_by_label_contains("Frame pacing");
}

#[test]
fn welcome_screen_offers_open_and_example() {
    let mut h = harness();
    h.run_steps(2);
    h.get_by_label_contains("Drop a .puffin recording");
    h.get_by_label("Open a recording…");
    assert!(h.state().view(Side::A).is_none());
}

/// Starts loading a 2M-scope capture as `big.puffin` (A) and leaves it
/// decoding: it takes more than one slice.
fn start_big_load(h: &mut Harness<'static, PuffinLensApp>) {
    let big = write_recording(
        &puffin_lens::engine::write::puffin::synthetic_capture(200, 3, 10_000),
        Format::Pfd4(Compression::Lz4),
    );
    h.state().open("big.puffin", Source::Bytes(big), None);
    h.step();
    assert!(
        h.state().is_loading(),
        "big.puffin takes more than one slice"
    );
}

/// The latest request for a side wins: a recording opened while another
/// one still decodes for A replaces it (A is not shown yet, so the new one
/// goes there too), the replaced load says so in the notice and in
/// `status().replaced`, and nothing of it arrives later.
#[test]
fn a_recording_opened_while_another_decodes_replaces_it() {
    let mut h = harness();
    start_big_load(&mut h);
    open(&mut h, "small.puffin", recording(true), None);
    h.run_steps(5);
    assert_eq!(
        h.state().view(Side::A).expect("A").loaded().name,
        "small.puffin"
    );
    assert!(h.state().view(Side::B).is_none());
    let line = "big.puffin (A) was replaced by small.puffin before it finished loading";
    assert_eq!(h.state().shared().borrow().replaced.as_deref(), Some(line));
    assert_eq!(h.state().notice(), Some(line));
    h.get_by_label(line);
}

/// An error stays until a recording asked for after it loads: a file that
/// fails while another one decodes is still reported once that one is shown.
#[test]
fn an_error_during_another_load_outlives_that_load() {
    let mut h = harness();
    start_big_load(&mut h);
    open(
        &mut h,
        "junk.bin",
        b"not a recording".to_vec(),
        Some(Side::B),
    );
    assert_eq!(
        h.state().view(Side::A).expect("A").loaded().name,
        "big.puffin"
    );
    let err = h
        .state()
        .error()
        .expect("the junk's error stays")
        .to_owned();
    assert!(
        err.starts_with("junk.bin: not a .puffin recording"),
        "{err}"
    );
    assert_eq!(
        h.state().shared().borrow().error.as_deref(),
        Some(err.as_str())
    );
    // A recording asked for after the error clears it.
    open(&mut h, "good.puffin", recording(true), Some(Side::B));
    assert_eq!(h.state().error(), None);
}

/// An error from outside the app (a download that failed, a file the
/// browser could not read or that is too large) shows in the error line.
#[test]
fn an_error_from_outside_shows_in_the_error_line() {
    let mut h = harness();
    open(&mut h, "good.puffin", recording(true), None);
    let line = "big.puffin: too large to open in the browser: the file is 32.0 MiB";
    h.state().shared().borrow_mut().fail(line.to_owned());
    h.run_steps(2);
    assert_eq!(h.state().error(), Some(line));
    h.get_by_label_contains(line);
    // The recording shown stays.
    assert_eq!(
        h.state().view(Side::A).expect("A").loaded().name,
        "good.puffin"
    );
}

/// Requests win in the order they were made, not the order their bytes
/// arrive: a big file dropped, then a small one; the small one's bytes come
/// first and load; the big one's, later, are dropped quietly, said in
/// `status().replaced`. In the other order the later (big) one wins.
#[test]
fn requests_are_honoured_in_the_order_made() {
    use puffin_lens::app::Incoming;
    // Each request's turn and side taken when it is made (as a drop does).
    let ask = |h: &mut Harness<'static, PuffinLensApp>| {
        let shared = h.state().shared().clone();
        let mut s = shared.borrow_mut();
        (s.take_turn(), s.side_now(None))
    };
    let push = |h: &mut Harness<'static, PuffinLensApp>, name: &str, (turn, side): (u64, Side)| {
        h.state().shared().borrow_mut().push(Incoming {
            add_run: false,
            name: name.to_owned(),
            source: Source::Bytes(recording(true)),
            side: Some(side),
            on_done: None,
            turn,
        });
        for _ in 0..200 {
            h.step();
            if !h.state().is_loading() && h.state().shared().borrow().incoming.is_empty() {
                break;
            }
        }
    };
    let mut h = harness();
    let (big, small) = (ask(&mut h), ask(&mut h));
    push(&mut h, "small.puffin", small);
    push(&mut h, "big.puffin", big);
    h.run_steps(2);
    let shown = h
        .state()
        .recording(Side::A)
        .map(|r| r.loaded().name.clone());
    assert_eq!(shown.as_deref(), Some("small.puffin"));
    assert!(
        h.state().recording(Side::B).is_none(),
        "the late bytes open nothing"
    );
    assert_eq!(
        h.state().shared().borrow().replaced.as_deref(),
        Some(
            "big.puffin (A) was replaced by small.puffin, asked for after it, before it finished loading"
        )
    );
    // The other order: both arrive in turn; the later is what is shown.
    let mut h = harness();
    let (small, big) = (ask(&mut h), ask(&mut h));
    push(&mut h, "small.puffin", small);
    push(&mut h, "big.puffin", big);
    h.run_steps(2);
    let shown = h.state().shown();
    assert_eq!(
        h.state()
            .recording(shown)
            .map(|r| r.loaded().name.clone())
            .as_deref(),
        Some("big.puffin")
    );
}
