//! View benchmark: `cargo bench --bench views`.
//!
//! - the merged call tree of a 2-million-scope capture, all frames;
//! - the table view's statistics of 1 million rows ((name, data) groups),
//!   then sorting them by every column and filtering them;
//! - the diff of two 2M-scope captures (compare rows and differential tree),
//!   and frames of the diff view with 100k expanded rows;
//! - the flame graph of the 2M-scope capture (tree of 100k distinct paths
//!   too): first layout, frames, a focus change;
//! - the scale worst case (issue 21: 2M scopes on random paths, a unique
//!   data string on most; A and B): what each view computes when it is
//!   first shown (merged tree, table by name and data, timeline index,
//!   diff table, diff tree, findings: the report and frames of its page),
//!   natively: the browser runs the same code, 2-4x slower in wasm;
//! - frames of the table (1M rows) and of the tree (100k expanded rows)
//!   drawn by the views' own `ui` on a headless `egui::Context`, scrolling
//!   as they go: layout and tessellation, no GPU.

mod common;

use common::{best_of, loaded, ms};
use puffin_lens::app::views::diff::DiffMode;
use puffin_lens::app::views::findings::FindingsView;
use puffin_lens::app::views::flame::FlameView;
use puffin_lens::app::views::table::{FilterOn, SortCol};
use puffin_lens::app::views::timeline::TimelineView;
use puffin_lens::app::views::tree::{Expand, TreeMode};
use puffin_lens::app::{DiffView, TableView, TreeView};
use puffin_lens::engine::FrameId;
use puffin_lens::engine::analyses::GroupBy;
use puffin_lens::engine::analyses::diff::diff_tree;
use puffin_lens::engine::analyses::tree::merged_tree;
use puffin_lens::engine::write::puffin::{
    FrameData, Registration, ScopeNode, ThreadData, synthetic_capture, worst_case_capture,
};
use std::time::Instant;

const RUNS: usize = 5;
const FRAMES_DRAWN: usize = 120;

/// `frames` frames of `per_frame` scopes on one thread: top-level scopes
/// with 4 children each, every scope with its own data string.
fn distinct_capture(frames: usize, per_frame: usize) -> Vec<FrameData> {
    let mut t = 1_700_000_000_000_000_000i64;
    let mut k = 0u64;
    (0..frames)
        .map(|f| {
            let mut scopes = Vec::new();
            let mut made = 0;
            while made < per_frame {
                let start = t;
                let mut top = ScopeNode::new(1, start, start + 5_000).data(&format!("top-{k}"));
                k += 1;
                for c in 0..4 {
                    let s = start + 100 + c * 1_200;
                    top = top.child(ScopeNode::new(2, s, s + 1_000).data(&format!("item-{k}")));
                    k += 1;
                }
                scopes.push(top);
                made += 5;
                t += 6_000;
            }
            FrameData {
                frame_index: f as u64,
                threads: vec![ThreadData {
                    name: "main".into(),
                    start_time_ns: Some(0),
                    scopes,
                }],
                registrations: if f == 0 {
                    vec![
                        Registration::named(1, "task", "app::run", "src/app.rs", 1),
                        Registration::named(2, "item", "app::run", "src/app.rs", 2),
                    ]
                } else {
                    Vec::new()
                },
            }
        })
        .collect()
}

/// One frame of one thread: a root holding `names` leaves, each with its own
/// registered name (so the merged tree has `names` nodes); `slower` scales
/// every other leaf's duration.
fn wide_capture(names: u32, slower: i64) -> Vec<FrameData> {
    let t0 = 1_700_000_000_000_000_000i64;
    let mut root = ScopeNode::new(1, t0, t0 + i64::from(names) * 3_000);
    let mut regs = vec![Registration::named(1, "root", "app::run", "src/app.rs", 1)];
    for k in 0..names {
        let id = k + 2;
        regs.push(Registration::named(
            id,
            &format!("leaf_{k}"),
            "app::run",
            "src/app.rs",
            2,
        ));
        let start = t0 + i64::from(k) * 3_000;
        let d = if k % 2 == 0 { 1_000 * slower } else { 1_000 };
        root = root.child(ScopeNode::new(id, start, start + d));
    }
    vec![FrameData {
        frame_index: 0,
        threads: vec![ThreadData {
            name: "main".into(),
            start_time_ns: Some(0),
            scopes: vec![root],
        }],
        registrations: regs,
    }]
}

/// Draws `FRAMES_DRAWN` frames of `ui`, scrolling down a page each frame;
/// (mean, worst) time of a frame (layout + tessellation).
fn frame_times(mut draw: impl FnMut(&mut egui::Ui)) -> (f64, f64) {
    let ctx = egui::Context::default();
    let screen = egui::Rect::from_min_size(egui::Pos2::ZERO, egui::vec2(1400.0, 900.0));
    let mut times = Vec::new();
    for k in 0..FRAMES_DRAWN + 5 {
        let mut raw = egui::RawInput {
            screen_rect: Some(screen),
            ..Default::default()
        };
        raw.events
            .push(egui::Event::PointerMoved(egui::pos2(600.0, 500.0)));
        if k > 2 {
            raw.events.push(egui::Event::MouseWheel {
                unit: egui::MouseWheelUnit::Point,
                delta: egui::vec2(0.0, -800.0),
                modifiers: egui::Modifiers::NONE,
                phase: egui::TouchPhase::Move,
                source: egui::MouseWheelSource::Wheel,
            });
        }
        let started = Instant::now();
        let out = ctx.run_ui(raw, |ui| draw(ui));
        let prims = ctx.tessellate(out.shapes, out.pixels_per_point);
        std::hint::black_box(prims);
        if k >= 5 {
            times.push(ms(started.elapsed()));
        }
    }
    let mean = times.iter().sum::<f64>() / times.len() as f64;
    let worst = times.iter().copied().fold(0.0, f64::max);
    (mean, worst)
}

/// The findings page of a pair, from the pair loaded to its first frame:
/// the report (off the page's thread in the app), then the first frame
/// drawn (a fresh context: fonts, the glance laid out and tessellated);
/// then frames of the page, scrolling.
fn findings_first_paint(
    what: &str,
    a: &std::sync::Arc<puffin_lens::app::Loaded>,
    b: &std::sync::Arc<puffin_lens::app::Loaded>,
) {
    let (report, findings) = best_of(RUNS, || FindingsView::new(a.clone(), Some(b.clone())));
    let (mut firsts, mut reports, mut warm) = (Vec::new(), Vec::new(), Vec::new());
    let raw = || egui::RawInput {
        screen_rect: Some(egui::Rect::from_min_size(
            egui::Pos2::ZERO,
            egui::vec2(1280.0, 720.0),
        )),
        ..Default::default()
    };
    for _ in 0..RUNS {
        let started = Instant::now();
        let mut view = FindingsView::new(a.clone(), Some(b.clone()));
        reports.push(ms(started.elapsed()));
        // A fresh context (its fonts made in this frame), then one that
        // has drawn a frame already (the app running when the pair comes).
        for (fresh, times) in [(true, &mut firsts), (false, &mut warm)] {
            let ctx = egui::Context::default();
            if !fresh {
                let out = ctx.run_ui(raw(), |ui| {
                    ui.label("Drop a .puffin file");
                });
                std::hint::black_box(ctx.tessellate(out.shapes, out.pixels_per_point));
                view = FindingsView::new(a.clone(), Some(b.clone()));
            }
            let started = Instant::now();
            let out = ctx.run_ui(raw(), |ui| {
                view.ui(ui);
            });
            std::hint::black_box(ctx.tessellate(out.shapes, out.pixels_per_point));
            times.push(ms(started.elapsed()));
        }
    }
    firsts.sort_by(f64::total_cmp);
    reports.sort_by(f64::total_cmp);
    warm.sort_by(f64::total_cmp);
    let mut findings = findings;
    let (mean, worst) = frame_times(|ui| {
        findings.ui(ui);
    });
    println!(
        "findings at a glance, {what}: the report {:.1} ms (best of {RUNS}; then median {:.1}, \
         {:.1}-{:.1}), the first frame {:.1} ms (median of {RUNS}; {:.1}-{:.1}; in a context \
         that has drawn: {:.1}), first paint {:.1} ms (medians: {:.1}; warm {:.1}); then \
         {mean:.2} ms per frame (worst {worst:.2})",
        ms(report),
        reports[RUNS / 2],
        reports[0],
        reports[RUNS - 1],
        firsts[RUNS / 2],
        firsts[0],
        firsts[RUNS - 1],
        warm[RUNS / 2],
        ms(report) + firsts[RUNS / 2],
        reports[RUNS / 2] + firsts[RUNS / 2],
        reports[RUNS / 2] + warm[RUNS / 2],
    );
}

fn main() {
    // `VIEWS_ONLY=findings`: the findings page's first paint alone.
    if std::env::var("VIEWS_ONLY").as_deref() == Ok("findings") {
        let a = loaded("a_200k", &worst_case_capture(20, 10_000, 300, 1));
        let b = loaded("b_200k", &worst_case_capture(20, 10_000, 300, 2));
        findings_first_paint("200k-scope pair (random paths)", &a, &b);
        let a = loaded("a_capture", &synthetic_capture(20, 3, 10_000));
        let b = loaded("b_capture", &synthetic_capture(20, 3, 10_000));
        findings_first_paint(
            "200k-scope pair (the benchmark capture, versus.mjs's)",
            &a,
            &b,
        );
        if std::env::var("VIEWS_2M").as_deref() == Ok("0") {
            return;
        }
        let a = loaded("a_2m", &worst_case_capture(200, 10_000, 300, 1));
        let b = loaded("b_2m", &worst_case_capture(200, 10_000, 300, 2));
        findings_first_paint("2M-scope worst case", &a, &b);
        return;
    }
    // The merged tree of 2M scopes.
    let big = loaded("big", &synthetic_capture(200, 3, 10_000));
    let trace = big.trace();
    let n = trace.frames.len() as u32;
    let (t, tree) = best_of(RUNS, || merged_tree(trace, 0..n, None));
    println!(
        "merged tree, {} scopes, all {n} frames: {:.1} ms ({} nodes)",
        trace.scopes.len(),
        ms(t),
        tree.len()
    );
    let (t, stats) = best_of(RUNS, || {
        let mut v = TableView::new(big.clone());
        v.set_inputs(0..n, None, GroupBy::NameData);
        v
    });
    println!(
        "table statistics of the same capture by (name, data): {:.1} ms ({} rows)",
        ms(t),
        stats.rows().len()
    );
    drop(stats);
    let mut view = TreeView::new(big.clone());
    view.set_merged_frames(0..n);
    view.expand(Expand::All);
    let (mean, worst) = frame_times(|ui| {
        view.ui(ui);
    });
    println!(
        "  merged tree view, {} rows expanded: {mean:.2} ms per frame (worst {worst:.2})",
        view.merged_rows().len()
    );
    drop(view);

    // The timeline of the 2M-scope capture: indexing, then frames with the
    // whole recording in range and with a 1 ms window.
    let started = Instant::now();
    let mut timeline = TimelineView::new(big.clone(), 1_000_000);
    println!(
        "\ntimeline index of {} scopes (lanes, per-depth starts, gaps): {:.1} ms",
        big.trace().scopes.len(),
        ms(started.elapsed())
    );
    timeline.fit_all();
    let (mean, worst) = frame_times(|ui| {
        timeline.ui(ui);
    });
    let painted: usize = timeline.painted().iter().map(|l| l.bars).sum();
    println!(
        "  timeline, whole recording in range: {mean:.2} ms per frame (worst {worst:.2}), {painted} bars painted"
    );
    let (lo, hi) = timeline.range();
    let mid = lo + (hi - lo) / 2;
    timeline.set_range(mid, mid + 1_000_000);
    let (mean, worst) = frame_times(|ui| {
        timeline.ui(ui);
    });
    let painted: usize = timeline.painted().iter().map(|l| l.bars).sum();
    println!(
        "  timeline, a 1 ms window: {mean:.2} ms per frame (worst {worst:.2}), {painted} bars painted"
    );
    drop(timeline);

    // The diff of two 2M-scope captures: the compare rows, then the tree.
    let other = loaded("other", &synthetic_capture(190, 4, 10_500));
    let (t, _) = best_of(RUNS, || DiffView::new(big.clone(), other.clone()));
    println!(
        "\ndiff of {} and {} scopes: compare rows {:.1} ms",
        big.trace().scopes.len(),
        other.trace().scopes.len(),
        ms(t)
    );
    let (t, d) = best_of(RUNS, || diff_tree(big.trace(), other.trace(), None));
    println!("  differential tree {:.1} ms ({} nodes)", ms(t), d.len());
    drop(d);
    drop(other);
    drop(big);

    // The diff tree view with 100k expanded rows: 100k distinct scope names.
    let wide_a = loaded("wide_a", &wide_capture(100_000, 1));
    let wide_b = loaded("wide_b", &wide_capture(100_000, 2));
    let mut diff = DiffView::new(wide_a, wide_b);
    let started = Instant::now();
    diff.set_mode(DiffMode::Tree);
    diff.expand_all(true);
    println!(
        "  diff of two 100k-name captures: tree built and expanded in {:.1} ms",
        ms(started.elapsed())
    );
    let (mean, worst) = frame_times(|ui| diff.ui(ui));
    println!("  diff tree view, 100k rows: {mean:.2} ms per frame (worst {worst:.2})");
    diff.set_mode(DiffMode::Table);
    let (mean, worst) = frame_times(|ui| diff.ui(ui));
    println!("  diff table view, 100k rows: {mean:.2} ms per frame (worst {worst:.2})");

    // The table: 1M (name, data) rows.
    let table_rec = loaded("table", &distinct_capture(10, 100_000));
    let frames = 0..table_rec.trace().frames.len() as u32;
    let (t, _) = best_of(RUNS, || {
        let mut v = TableView::new(table_rec.clone());
        v.set_inputs(frames.clone(), None, GroupBy::NameData);
        v
    });
    println!(
        "\ntable statistics of {} scopes (stats, string ranks, first sort): {:.1} ms",
        table_rec.trace().scopes.len(),
        ms(t)
    );
    let mut table = TableView::new(table_rec.clone());
    table.set_inputs(frames.clone(), None, GroupBy::NameData);
    println!("  rows: {}", table.rows().len());
    for col in SortCol::ALL {
        let started = Instant::now();
        table.set_sort(col, col != SortCol::Total);
        table.set_sort(col, col == SortCol::Name);
        println!(
            "  sort by {:<7} {:>6.1} ms",
            col.as_str(),
            ms(started.elapsed()) / 2.0
        );
    }
    table.set_sort(SortCol::Total, true);
    table.set_filter_on(FilterOn::Data);
    for (filter, substring) in [("item-1", false), ("77", true), ("", false)] {
        let started = Instant::now();
        table.set_filter(filter, substring);
        println!(
            "  filter {filter:?}{} {:>6.1} ms ({} rows)",
            if substring { " (substring)" } else { "" },
            ms(started.elapsed()),
            table.rows().len()
        );
    }
    let label = "all frames".to_owned();
    let (mean, worst) = frame_times(|ui| {
        table.ui(ui, frames.clone(), &label);
    });
    println!("  table view, 1M rows: {mean:.2} ms per frame (worst {worst:.2})");

    // The tree: one frame of 100k scopes, all expanded.
    let one = loaded("one", &distinct_capture(1, 100_000));
    let mut tree = TreeView::new(one.clone());
    tree.set_mode(TreeMode::Frame);
    tree.set_frame(Some(FrameId(0)));
    let started = Instant::now();
    tree.expand(Expand::All);
    println!(
        "\nframe tree, {} rows expanded: expand all in {:.1} ms",
        tree.frame_rows().len(),
        ms(started.elapsed())
    );
    let (mean, worst) = frame_times(|ui| {
        tree.ui(ui);
    });
    println!("  tree view, 100k rows: {mean:.2} ms per frame (worst {worst:.2})");

    // The scale worst case: each view's first computation.
    println!();
    let worst_a = loaded("worst_a", &worst_case_capture(200, 10_000, 300, 1));
    let worst_b = loaded("worst_b", &worst_case_capture(200, 10_000, 300, 2));
    let n = worst_a.trace().frames.len() as u32;
    let (t, view) = best_of(RUNS, || {
        let mut v = TreeView::new(worst_a.clone());
        v.set_merged_frames(0..n);
        v
    });
    println!(
        "worst case ({} scopes on random paths): merged tree view {:.1} ms ({} nodes)",
        worst_a.trace().scopes.len(),
        ms(t),
        view.merged().len()
    );
    drop(view);
    let (t, v) = best_of(RUNS, || {
        let mut v = TableView::new(worst_a.clone());
        v.set_inputs(0..n, None, GroupBy::NameData);
        v
    });
    println!(
        "  table by (name, data): {:.1} ms ({} rows)",
        ms(t),
        v.rows().len()
    );
    drop(v);
    let (t, _) = best_of(RUNS, || TimelineView::new(worst_a.clone(), 1_000_000));
    println!("  timeline index: {:.1} ms", ms(t));
    let (t, _) = best_of(RUNS, || DiffView::new(worst_a.clone(), worst_b.clone()));
    println!("  diff table (A and B): {:.1} ms", ms(t));
    let mut diff = DiffView::new(worst_a.clone(), worst_b.clone());
    let started = Instant::now();
    diff.set_mode(DiffMode::Tree);
    println!("  diff tree: {:.1} ms", ms(started.elapsed()));
    drop(diff);
    // The findings: the report made (off the page's thread in the app),
    // then frames of the page drawn from its blocks, scrolling.
    let (t, findings) = best_of(RUNS, || {
        FindingsView::new(worst_a.clone(), Some(worst_b.clone()))
    });
    println!(
        "  findings (the report, its blocks): {:.1} ms ({} blocks)",
        ms(t),
        findings.findings().map_or(0, |f| f.blocks.len())
    );
    let mut findings = findings;
    let (mean, worst) = frame_times(|ui| {
        findings.ui(ui);
    });
    println!("  findings page: {mean:.2} ms per frame (worst {worst:.2})");
    drop(findings);
    drop(worst_a);
    drop(worst_b);

    // The flame graph: the 2M-scope capture, and the worst case: 2M scopes
    // nested at random from 300 names, so call paths rarely repeat.
    println!();
    let big = loaded("big", &synthetic_capture(200, 3, 10_000));
    let worst = loaded("worst", &worst_case_capture(200, 10_000, 300, 1));
    for (what, rec) in [
        ("2M-scope capture", &big),
        ("2M scopes on random paths", &worst),
    ] {
        let n = rec.trace().frames.len() as u32;
        let (t, flame) = best_of(RUNS, || {
            let mut f = FlameView::new(rec.clone(), 0..n);
            f.ensure_layout(1400.0);
            f
        });
        let mut flame = flame;
        println!(
            "flame graph, {what}: first layout {:.1} ms ({} tree nodes, {} laid out)",
            ms(t),
            flame.tree().len(),
            flame.layout().rects.len()
        );
        let (mean, worst) = frame_times(|ui| {
            flame.ui(ui);
        });
        println!("  flame view: {mean:.2} ms per frame (worst {worst:.2})");
        // Focus the deepest node laid out, then back to the roots.
        let deepest = flame
            .layout()
            .rects
            .iter()
            .max_by_key(|r| r.depth)
            .map(|r| flame.path_names(r.node));
        let started = Instant::now();
        flame.set_focus(deepest.unwrap_or_default());
        flame.set_focus(Vec::new());
        println!(
            "  focus a node and back: {:.2} ms per change",
            ms(started.elapsed()) / 2.0
        );
    }
}
