//! The overview: summary, warnings, the frame-time chart, the slowest
//! frames, and the selected frame's threads and slowest scopes. An
//! unframed recording (one frame over the whole run, or frames far longer
//! than their scopes: [`basis::unframed`]) says so at the top, and a run
//! chart takes the frame chart's place: per thread, its busy time (its
//! top-level scopes' union) per time bucket, seconds since the start
//! ([`activity::busy_over_time`], computed when the recording loads).

use crate::app::loaded::Loaded;
use crate::engine::FrameId;
use crate::engine::analyses::activity::{self, BusyOverTime};
use crate::engine::analyses::basis::{self, Unframed};
use crate::engine::analyses::{self, FindFilter, InstanceRow, ThreadRow};
use crate::units::{ms, thread_label};
use egui::{Color32, RichText};
use egui_extras::{Column, TableBuilder};
use egui_plot::{Bar, BarChart, Plot};
use std::sync::Arc;

const BAR: Color32 = Color32::from_rgb(90, 130, 170);
const SLOW: Color32 = Color32::from_rgb(235, 140, 40);
/// The marks between bars where frame indices jump (frames left out).
const BREAK: Color32 = Color32::from_rgb(150, 150, 160);
const SELECTED: Color32 = Color32::from_rgb(80, 200, 255);
const IN_RANGE: Color32 = Color32::from_rgb(120, 180, 120);
const BUDGET: Color32 = Color32::from_rgb(220, 60, 60);
/// Scopes listed for the selected frame.
const SCOPE_ROWS: usize = 200;

/// The overview of one recording. Everything derived from the trace is
/// computed once (or when the selection or filter changes), not per repaint.
pub struct OverviewView {
    loaded: Arc<Loaded>,
    /// Frames, slowest first (ties in file order).
    slowest: Vec<FrameId>,
    /// Whether frame `i` (file order) is highlighted: over the frame
    /// budget, or (when none is) among the slowest 10%.
    highlighted: Vec<bool>,
    /// The highlighted frames, slowest first.
    highlighted_list: Vec<FrameId>,
    /// The frame budget line, in ms.
    budget_ms: f64,
    /// Whether the highlight is the frames over budget (else the slowest 10%).
    over_budget: bool,
    selected: Option<FrameId>,
    /// A range of frames dragged on the chart (inclusive, file order).
    range: Option<(FrameId, FrameId)>,
    /// Where a drag on the chart started (frame position).
    drag_from: Option<f64>,
    /// The chart's bars, rebuilt when the selection or highlight changes.
    bars: Vec<Bar>,
    threads: Vec<ThreadRow>,
    scopes: Vec<InstanceRow>,
    /// The filter `scopes` was computed with.
    scopes_filter: String,
    scroll_to_selected: bool,
    /// The chart's last plot-to-screen transform (to locate bars).
    chart_transform: Option<egui_plot::PlotTransform>,
    /// Scope ids used but never registered, said as `summary` says it.
    unregistered_note: Option<String>,
    /// Frame indices the capture left out, said as `summary` says it.
    absent_note: Option<String>,
    /// Positions (file order) whose frame index does not follow the
    /// previous frame's: a break mark on the chart before each.
    breaks: Vec<u32>,
    /// Why the recording is unframed, if it is: the run chart replaces
    /// the frame chart.
    unframed: Option<Unframed>,
    /// The run chart's data (unframed recordings only).
    run: Option<RunChart>,
    /// A window (ns) clicked or dragged on the run chart, for the
    /// recording to open in the timeline ([`Self::take_window`]).
    window: Option<(i64, i64)>,
    /// A stall every Nth frame (the frames' own durations, as `report`
    /// finds it): its words and the positions it marks on the chart.
    periodic: Option<(String, Vec<u32>)>,
    /// Frames that overlap one another (`report`'s sentence).
    overlap: Option<analyses::frames::Overlap>,
}

/// The run chart: busy time per thread and bucket, and its bars.
struct RunChart {
    busy: Arc<BusyOverTime>,
    /// Per thread (as `busy.threads`), one bar per bucket: x the bucket's
    /// middle in seconds since the start, height its busy share of the
    /// lane, stacked on the thread's lane (the first thread on top).
    bars: Vec<Vec<Bar>>,
    /// Where a drag on the chart started (seconds since the start).
    drag_from: Option<f64>,
    transform: Option<egui_plot::PlotTransform>,
}

/// The mark over each frame of a stall every Nth frame.
const PERIODIC: Color32 = Color32::from_rgb(200, 80, 200);

/// The frames' own stall every Nth frame, as `report` finds it in their
/// durations (file order): its words and the frames' positions.
fn periodic_frames(trace: &crate::engine::Trace) -> Option<(String, Vec<u32>)> {
    use crate::engine::analyses::shape::{self, Shape};
    let frames = &trace.frames;
    let x: Vec<f64> = frames.ids().map(|f| frames.duration_ns(f) as f64).collect();
    let noise = crate::engine::analyses::Noise::default();
    let band = shape::band_ns(&x, noise.pct, noise.ms);
    let p = shape::periodic(&x, band)?;
    let Shape::Periodic { every, phase, .. } = p else {
        return None;
    };
    let at = (phase..x.len() as u32)
        .step_by(every.max(1) as usize)
        .collect();
    Some((shape::frame_words(&p, x.len(), &[]), at))
}

/// A lane's bar at 100% busy (of a lane 1 high).
const LANE_FILL: f64 = 0.85;

impl RunChart {
    fn new(busy: BusyOverTime) -> Self {
        let n = busy.threads.len();
        let bars = busy
            .threads
            .iter()
            .enumerate()
            .map(|(k, t)| {
                let base = (n - 1 - k) as f64;
                (0..busy.buckets())
                    .map(|b| {
                        let (lo, hi) = busy.bucket(b);
                        let width = (hi - lo).max(1) as f64;
                        let share = t.busy_ns[b] as f64 / width;
                        let mid_s = ((lo + hi) as f64 / 2.0 - busy.start_ns as f64) / 1e9;
                        Bar::new(mid_s, LANE_FILL * share)
                            .base_offset(base)
                            .width(width / 1e9)
                            .fill(BAR)
                            .stroke(egui::Stroke::NONE)
                    })
                    .collect()
            })
            .collect();
        Self {
            busy: Arc::new(busy),
            bars,
            drag_from: None,
            transform: None,
        }
    }

    /// Seconds since the start, as the chart's x.
    fn seconds(&self, ns: i64) -> f64 {
        (ns - self.busy.start_ns) as f64 / 1e9
    }

    /// The bucket at `x` seconds since the start, if any.
    fn bucket_at(&self, x: f64) -> Option<usize> {
        let k = (x * 1e9 / self.busy.bucket_ns as f64).floor();
        (k >= 0.0 && (k as usize) < self.busy.buckets()).then_some(k as usize)
    }

    /// What `puffinLens.ui()` says of it.
    fn to_json(&self) -> serde_json::Value {
        let b = &self.busy;
        let buckets: Vec<serde_json::Value> = (0..b.buckets())
            .map(|k| {
                let (lo, hi) = b.bucket(k);
                serde_json::json!({"start_s": self.seconds(lo), "end_s": self.seconds(hi)})
            })
            .collect();
        let threads: Vec<serde_json::Value> = b
            .threads
            .iter()
            .map(|t| {
                // The busiest bucket, the first of equals.
                let busiest = t
                    .busy_ns
                    .iter()
                    .enumerate()
                    .max_by_key(|&(k, &v)| (v, std::cmp::Reverse(k)))
                    .map(|(k, &v)| {
                        serde_json::json!({"bucket": k, "start_s": self.seconds(b.bucket(k).0),
                            "busy_ns": v})
                    });
                serde_json::json!({"thread": t.thread, "busy_ns": t.busy_ns,
                    "total_busy_ns": t.busy_ns.iter().sum::<i64>(), "busiest": busiest})
            })
            .collect();
        serde_json::json!({
            "start_ns": b.start_ns,
            "end_ns": b.end_ns,
            "bucket_ns": b.bucket_ns,
            "buckets": buckets,
            "threads": threads,
        })
    }
}

impl OverviewView {
    /// Shows `loaded` with its slowest frame selected.
    pub fn new(loaded: Arc<Loaded>, budget_ms: f64) -> Self {
        let trace = loaded.trace();
        let mut slowest: Vec<FrameId> = trace.frames.ids().collect();
        slowest.sort_by_key(|&f| (std::cmp::Reverse(trace.frames.duration_ns(f)), f.0));
        let unregistered_note = analyses::unregistered_note(&loaded.summary.unregistered_scope_ids);
        let absent_note = analyses::frame_coverage(trace)
            .as_ref()
            .and_then(analyses::absent_note);
        let breaks = analyses::frame_breaks(trace);
        let unframed = basis::unframed(trace);
        let run = unframed.as_ref().map(|u| {
            RunChart::new(activity::busy_over_time(
                trace,
                activity::bucket_ns_for(u.span_ns),
            ))
        });
        let (periodic, overlap) = if unframed.is_none() {
            (
                periodic_frames(trace),
                analyses::frames::overlapping_frames(trace),
            )
        } else {
            (None, None)
        };
        let mut view = Self {
            periodic,
            overlap,
            highlighted: vec![false; slowest.len()],
            highlighted_list: Vec::new(),
            slowest,
            loaded,
            budget_ms: f64::NAN,
            over_budget: false,
            selected: None,
            range: None,
            drag_from: None,
            bars: Vec::new(),
            threads: Vec::new(),
            scopes: Vec::new(),
            scopes_filter: String::new(),
            scroll_to_selected: false,
            chart_transform: None,
            unregistered_note,
            absent_note,
            breaks,
            unframed,
            run,
            window: None,
        };
        view.set_budget_ms(budget_ms);
        let first = view.slowest.first().copied();
        view.select(first);
        view
    }

    pub fn loaded(&self) -> &Arc<Loaded> {
        &self.loaded
    }

    /// Why the recording is unframed (the overview says so and shows the
    /// run chart), or `None`.
    pub fn unframed(&self) -> Option<&Unframed> {
        self.unframed.as_ref()
    }

    /// The window (ns) last clicked or dragged on the run chart, once.
    pub fn take_window(&mut self) -> Option<(i64, i64)> {
        self.window.take()
    }

    /// Where `seconds` since the start is on the run chart, at the middle
    /// of thread lane `lane` (0 = the top one), after a repaint.
    pub fn run_chart_pos(&self, seconds: f64, lane: usize) -> Option<egui::Pos2> {
        let run = self.run.as_ref()?;
        let n = run.busy.threads.len();
        let y = n.checked_sub(lane + 1)? as f64 + 0.5;
        let t = run.transform.as_ref()?;
        Some(t.position_from_point(&egui_plot::PlotPoint::new(seconds, y)))
    }

    /// What `puffinLens.ui()` says of the overview: `unframed` (its
    /// sentence and numbers, or null), `chart` ("frames" or "run"), the
    /// frame chart's bar count, and the run chart's buckets and busy time.
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::json!({
            "unframed": self.unframed.as_ref().map(|u| serde_json::json!({
                "sentence": u.sentence(),
                "frames": u.frames,
                "median_frame_ns": u.median_frame_ns,
                "span_ns": u.span_ns,
            })),
            "chart": if self.run.is_some() { "run" } else { "frames" },
            "frame_bars": if self.run.is_some() { 0 } else { self.bars.len() },
            "run": self.run.as_ref().map(RunChart::to_json),
            "periodic": self.periodic.as_ref().map(|(words, at)| serde_json::json!({
                "words": words, "frames": at.len(),
                "first": at.first(),
            })),
            "overlap": self.overlap.as_ref().map(|o| o.sentence.clone()),
        })
    }

    pub fn selected(&self) -> Option<FrameId> {
        self.selected
    }

    /// Frames in the highlight, slowest first.
    pub fn highlighted_frames(&self) -> &[FrameId] {
        &self.highlighted_list
    }

    /// Whether the highlight is the frames over budget (else the slowest 10%).
    pub fn highlights_over_budget(&self) -> bool {
        self.over_budget
    }

    /// The range of frames dragged on the chart, if any.
    pub fn range(&self) -> Option<(FrameId, FrameId)> {
        self.range
    }

    /// Where the middle of frame `f`'s bar was drawn (after a repaint).
    pub fn chart_bar_pos(&self, f: FrameId) -> Option<egui::Pos2> {
        let bar = self.bars.get(f.idx())?;
        let t = self.chart_transform.as_ref()?;
        Some(t.position_from_point(&egui_plot::PlotPoint::new(bar.argument, bar.value / 2.0)))
    }

    /// The scopes listed for the selected frame (after the filter).
    pub fn listed_scopes(&self) -> &[InstanceRow] {
        &self.scopes
    }

    pub fn is_highlighted(&self, f: FrameId) -> bool {
        self.highlighted.get(f.idx()).copied().unwrap_or(false)
    }

    /// Sets the frame budget: frames over it are highlighted; when none
    /// is, the slowest 10% (at least one) are.
    pub fn set_budget_ms(&mut self, budget_ms: f64) {
        if budget_ms == self.budget_ms {
            return;
        }
        self.budget_ms = budget_ms;
        let budget_ns = (budget_ms * 1e6).round() as i64;
        let frames = &self.loaded.trace().frames;
        let over: Vec<FrameId> = self
            .slowest
            .iter()
            .copied()
            .filter(|&f| frames.duration_ns(f) > budget_ns)
            .collect();
        self.over_budget = !over.is_empty();
        self.highlighted_list = if over.is_empty() {
            let n = self.slowest.len().div_ceil(10);
            self.slowest[..n].to_vec()
        } else {
            over
        };
        self.highlighted.fill(false);
        for f in &self.highlighted_list {
            self.highlighted[f.idx()] = true;
        }
        self.rebuild_bars();
    }

    /// Selects a frame (or none) and recomputes what depends on it.
    pub fn select(&mut self, f: Option<FrameId>) {
        let f = f.filter(|f| f.idx() < self.slowest.len());
        if f == self.selected && !self.bars.is_empty() {
            return;
        }
        self.selected = f;
        self.range = None;
        self.threads = match f {
            Some(f) => analyses::threads(self.loaded.trace(), f),
            None => Vec::new(),
        };
        self.refresh_scopes();
        self.rebuild_bars();
        self.scroll_to_selected = true;
    }

    fn refresh_scopes(&mut self) {
        self.scopes = match self.selected {
            Some(f) => {
                let trace = self.loaded.trace();
                let filter = FindFilter {
                    prefix: self.scopes_filter.clone(),
                    frame_position: Some(f),
                    ..FindFilter::default()
                };
                analyses::find(trace, &filter, SCOPE_ROWS)
            }
            None => Vec::new(),
        };
    }

    fn set_filter(&mut self, filter: &str) {
        if filter != self.scopes_filter {
            self.scopes_filter = filter.to_owned();
            self.refresh_scopes();
        }
    }

    fn rebuild_bars(&mut self) {
        let trace = self.loaded.trace();
        let frames = &trace.frames;
        self.bars = frames
            .ids()
            .map(|f| {
                let in_range = self
                    .range
                    .is_some_and(|(a, b)| a.min(b) <= f && f <= a.max(b));
                let color = if Some(f) == self.selected && self.range.is_none() {
                    SELECTED
                } else if in_range {
                    IN_RANGE
                } else if self.highlighted[f.idx()] {
                    SLOW
                } else {
                    BAR
                };
                Bar::new(f.idx() as f64, frames.duration_ns(f) as f64 / 1e6)
                    .width(0.9)
                    .fill(color)
            })
            .collect();
    }

    /// Draws the overview; returns the scope name clicked in the selected
    /// frame's list (to open its details).
    pub fn ui(&mut self, ui: &mut egui::Ui, filter: &str) -> Option<String> {
        self.set_filter(filter);
        self.banners(ui);
        ui.horizontal_top(|ui| {
            self.summary_grid(ui);
        });
        if let Some(note) = &self.absent_note {
            ui.label(format!(
                "Frames: {note}; the chart marks each break in the indices."
            ));
        }
        ui.add_space(6.0);
        if self.run.is_some() {
            self.run_chart(ui);
        } else {
            self.chart(ui);
        }
        ui.add_space(6.0);
        ui.columns(2, |cols| {
            self.slowest_frames(&mut cols[0]);
            self.selected_frame(&mut cols[1])
        })
    }

    /// Frame indices the capture left out (the overview's line), if any.
    pub fn absent_note(&self) -> Option<&str> {
        self.absent_note.as_deref()
    }

    /// Where the frame chart marks a break in the frame indices.
    pub fn breaks(&self) -> &[u32] {
        &self.breaks
    }

    fn banners(&self, ui: &mut egui::Ui) {
        let s = &self.loaded.summary;
        if let Some(u) = &self.unframed {
            banner(
                ui,
                Color32::from_rgb(40, 70, 100),
                if u.frames == 1 {
                    "One frame: the recording never ends a puffin frame"
                } else {
                    "Frames far longer than their scopes"
                },
                &u.sentence(),
                |ui| {
                    ui.label(
                        RichText::new(
                            "The chart below shows the run over time instead of frame times.",
                        )
                        .color(Color32::WHITE),
                    );
                },
            );
        }
        if let Some(o) = &self.overlap {
            banner(
                ui,
                Color32::from_rgb(110, 70, 20),
                "Frames overlap one another",
                &o.sentence,
                |_| {},
            );
        }
        if let Some(note) = &self.unregistered_note {
            banner(
                ui,
                Color32::from_rgb(110, 70, 20),
                "Some scope ids were never registered",
                note,
                |_| {},
            );
        }
        if !s.has_registration && s.scopes > 0 {
            banner(
                ui,
                Color32::from_rgb(120, 40, 30),
                "No scope registration in this recording",
                "Scope names fall back to scope#<id> and there are no source locations. \
                 Capture again with a puffin version that writes scope registrations \
                 (puffin 0.19 or later, with the recording started before the scopes first run).",
                |_| {},
            );
        }
        if !s.diagnostics.is_empty() {
            let damaged = s.damaged;
            let title = if damaged {
                format!(
                    "{} is damaged: showing the intact frames ({} problem{})",
                    s.file,
                    s.diagnostics.len(),
                    if s.diagnostics.len() == 1 { "" } else { "s" }
                )
            } else {
                format!(
                    "{} warning(s) while decoding {}",
                    s.diagnostics.len(),
                    s.file
                )
            };
            let color = if damaged {
                Color32::from_rgb(110, 80, 10)
            } else {
                Color32::from_rgb(50, 60, 80)
            };
            banner(ui, color, &title, &s.diagnostics[0], |ui| {
                if s.diagnostics.len() > 1 {
                    egui::CollapsingHeader::new("all problems")
                        .id_salt("diagnostics")
                        .show(ui, |ui| {
                            egui::ScrollArea::vertical().max_height(120.0).show_rows(
                                ui,
                                14.0,
                                s.diagnostics.len(),
                                |ui, rows| {
                                    for line in &s.diagnostics[rows] {
                                        ui.label(line);
                                    }
                                },
                            );
                        });
                }
            });
        }
    }

    fn summary_grid(&self, ui: &mut egui::Ui) {
        let s = &self.loaded.summary;
        let join = |v: &[String]| {
            if v.is_empty() {
                "-".to_owned()
            } else {
                v.join(", ")
            }
        };
        egui::Grid::new("summary")
            .num_columns(4)
            .spacing([16.0, 2.0])
            .show(ui, |ui| {
                let cell = |ui: &mut egui::Ui, k: &str, v: String| {
                    ui.label(RichText::new(k).weak());
                    ui.label(RichText::new(v).strong());
                };
                cell(ui, "Frames", s.frames.to_string());
                cell(ui, "Format", join(&s.formats));
                ui.end_row();
                cell(ui, "Threads", s.threads.to_string());
                cell(ui, "Compression", join(&s.compressions));
                ui.end_row();
                cell(ui, "Scopes", s.scopes.to_string());
                cell(ui, "Registered scopes", s.registered_scopes.to_string());
                ui.end_row();
                cell(ui, "Time span", format!("{} ms", ms(s.span_ns)));
                cell(
                    ui,
                    "Size",
                    crate::units::bytes(self.loaded.size_bytes as u64),
                );
                ui.end_row();
                cell(
                    ui,
                    "Slowest frame",
                    match s.slowest_frame_index {
                        Some(i) => format!("#{i}: {} ms", ms(s.slowest_frame_ns)),
                        None => "-".to_owned(),
                    },
                );
                cell(ui, "Loaded in", format!("{:.0} ms", self.loaded.load_ms));
                ui.end_row();
            });
    }

    fn chart(&mut self, ui: &mut egui::Ui) {
        ui.horizontal(|ui| {
            ui.strong("Frame times (ms)");
            let highlight = if self.over_budget {
                format!(
                    "orange: the {} frame(s) over the {} ms budget (red line)",
                    self.highlighted_list.len(),
                    self.budget_ms
                )
            } else {
                format!(
                    "no frame is over the {} ms budget (red line); orange: the slowest 10% ({})",
                    self.budget_ms,
                    self.highlighted_list.len()
                )
            };
            ui.label(
                RichText::new(format!(
                    "one bar per frame in file order; {highlight}; click a bar to select its frame, drag across bars to select a range"
                ))
                .weak(),
            );
        });
        // Bars carry no names (no string per bar per repaint); the tooltip
        // looks the frame up.
        let loaded = self.loaded.clone();
        let chart = BarChart::new("frame time", self.bars.clone()).element_formatter(Box::new(
            move |bar, _| {
                let position = bar.argument as usize;
                let index = loaded.trace().frames.frame_index.get(position);
                format!(
                    "frame {} (#{position})\n{:.3} ms",
                    index.copied().unwrap_or_default(),
                    bar.value
                )
            },
        ));
        let n = self.bars.len();
        let response = Plot::new("frame_chart")
            .height(170.0)
            .allow_zoom([true, false])
            .allow_drag(false)
            .allow_scroll([true, false])
            .allow_boxed_zoom(false)
            .include_y(0.0)
            .include_x(-0.5)
            .include_x(n as f64 - 0.5)
            .y_axis_label("ms")
            .show(ui, |plot_ui| {
                plot_ui.bar_chart(chart);
                if let Some((words, at)) = &self.periodic {
                    // A mark over each frame of the stall every Nth frame.
                    let frames = &self.loaded.trace().frames;
                    let marks: Vec<[f64; 2]> = at
                        .iter()
                        .map(|&p| {
                            let ms = frames.duration_ns(FrameId(p)) as f64 / 1e6;
                            [p as f64, ms]
                        })
                        .collect();
                    plot_ui.points(
                        egui_plot::Points::new(words.clone(), marks)
                            .shape(egui_plot::MarkerShape::Down)
                            .radius(4.0)
                            .color(PERIODIC),
                    );
                }
                if !self.breaks.is_empty() {
                    // One series for every break: cheap with thousands.
                    let marks: Vec<[f64; 2]> =
                        self.breaks.iter().map(|&p| [p as f64 - 0.5, 0.0]).collect();
                    plot_ui.points(
                        egui_plot::Points::new("frame indices jump here", marks)
                            .shape(egui_plot::MarkerShape::Diamond)
                            .radius(3.5)
                            .color(BREAK),
                    );
                }
                plot_ui.hline(
                    egui_plot::HLine::new("frame budget", self.budget_ms)
                        .color(BUDGET)
                        .style(egui_plot::LineStyle::dashed_loose()),
                );
            });
        self.chart_transform = Some(response.transform);
        let x_at = |pos: egui::Pos2| response.transform.value_from_position(pos).x;
        if response.response.drag_started()
            && let Some(pos) = ui
                .input(|i| i.pointer.press_origin())
                .or(response.response.interact_pointer_pos())
        {
            self.drag_from = Some(x_at(pos));
        }
        if response.response.drag_stopped()
            && let (Some(from), Some(pos)) = (
                self.drag_from.take(),
                response.response.interact_pointer_pos(),
            )
        {
            let clamp = |x: f64| x.round().clamp(0.0, n.saturating_sub(1) as f64) as u32;
            let (a, b) = (clamp(from), clamp(x_at(pos)));
            if n > 0 && a != b {
                self.range = Some((FrameId(a.min(b)), FrameId(a.max(b))));
                self.rebuild_bars();
            }
        }
        if response.response.clicked()
            && let Some(pos) = response.response.interact_pointer_pos()
        {
            let x = response.transform.value_from_position(pos).x.round();
            if x >= 0.0 && (x as usize) < n {
                self.select(Some(FrameId(x as u32)));
            }
        }
    }

    /// The run over time: per thread a lane, per bucket its busy share.
    /// A click opens its bucket in the timeline, a drag the window dragged.
    fn run_chart(&mut self, ui: &mut egui::Ui) {
        let Some(run) = self.run.as_mut() else {
            return;
        };
        let busy = run.busy.clone();
        ui.horizontal(|ui| {
            ui.strong("Busy time per thread (s since the start)");
            ui.label(
                RichText::new(format!(
                    "one lane per thread; a bar per {} ms: the share of it the thread's top-level \
                     scopes cover; click a bar, or drag across the chart, to open that window \
                     in the timeline",
                    ms(busy.bucket_ns)
                ))
                .weak(),
            );
        });
        let n = busy.threads.len();
        let span_s = run.seconds(busy.end_ns);
        let frame_starts: Vec<f64> = if self.loaded.trace().frames.len() <= 100 {
            let r = &self.loaded.trace().frames.range_ns;
            r.iter().skip(1).map(|r| run.seconds(r.0)).collect()
        } else {
            Vec::new()
        };
        let response = Plot::new("run_chart")
            .height((34.0 * n as f32 + 40.0).clamp(90.0, 320.0))
            .allow_zoom([true, false])
            .allow_drag(false)
            .allow_scroll([true, false])
            .allow_boxed_zoom(false)
            .show_axes([true, false])
            .show_grid([true, false])
            .include_y(0.0)
            .include_y(n.max(1) as f64)
            .include_x(0.0)
            .include_x(span_s)
            .x_axis_label("s")
            .label_formatter(|_| None)
            .show(ui, |plot_ui| {
                for (k, (t, bars)) in busy.threads.iter().zip(&run.bars).enumerate() {
                    let b = busy.clone();
                    let chart = BarChart::new(format!("busy {k}"), bars.clone())
                        .element_formatter(Box::new(move |bar, _| bucket_tip(&b, k, bar.argument)));
                    plot_ui.bar_chart(chart);
                    plot_ui.text(
                        egui_plot::Text::new(
                            format!("lane {k}"),
                            egui_plot::PlotPoint::new(0.0, (n - 1 - k) as f64 + 0.98),
                            RichText::new(thread_label(&t.thread)).small(),
                        )
                        .anchor(egui::Align2::LEFT_TOP),
                    );
                }
                for (j, &x) in frame_starts.iter().enumerate() {
                    plot_ui.vline(
                        egui_plot::VLine::new(format!("frame {}", j + 1), x)
                            .color(BREAK)
                            .style(egui_plot::LineStyle::dashed_loose()),
                    );
                }
            });
        run.transform = Some(response.transform);
        let x_at = |pos: egui::Pos2| response.transform.value_from_position(pos).x;
        if response.response.drag_started()
            && let Some(pos) = ui
                .input(|i| i.pointer.press_origin())
                .or(response.response.interact_pointer_pos())
        {
            run.drag_from = Some(x_at(pos));
        }
        let to_ns = |x: f64| busy.start_ns + (x.clamp(0.0, span_s) * 1e9).round() as i64;
        if response.response.drag_stopped()
            && let (Some(from), Some(pos)) = (
                run.drag_from.take(),
                response.response.interact_pointer_pos(),
            )
        {
            let (a, b) = (to_ns(from), to_ns(x_at(pos)));
            if a != b {
                self.window = Some((a.min(b), a.max(b)));
            }
        }
        if response.response.clicked()
            && let Some(pos) = response.response.interact_pointer_pos()
            && let Some(k) = run.bucket_at(x_at(pos))
        {
            self.window = Some(busy.bucket(k));
        }
    }

    fn slowest_frames(&mut self, ui: &mut egui::Ui) {
        ui.strong("Slowest frames");
        let trace = self.loaded.trace();
        let frames = &trace.frames;
        let mut clicked = None;
        let scroll_to = if self.scroll_to_selected {
            self.selected
                .and_then(|sel| self.slowest.iter().position(|&f| f == sel))
        } else {
            None
        };
        let mut table = TableBuilder::new(ui)
            .id_salt("slowest_frames")
            .striped(true)
            .auto_shrink([false, false])
            .column(Column::auto().at_least(70.0))
            .column(Column::auto().at_least(80.0))
            .column(Column::auto().at_least(60.0))
            .column(Column::remainder());
        if let Some(row) = scroll_to {
            table = table.scroll_to_row(row, None);
        }
        table
            .header(18.0, |mut h| {
                h.col(|ui| {
                    ui.strong("frame");
                });
                h.col(|ui| {
                    ui.strong("ms");
                });
                h.col(|ui| {
                    ui.strong("scopes");
                });
                h.col(|ui| {
                    ui.strong("position");
                });
            })
            .body(|body| {
                body.rows(18.0, self.slowest.len(), |mut row| {
                    let f = self.slowest[row.index()];
                    let i = f.idx();
                    let selected = Some(f) == self.selected;
                    row.set_selected(selected);
                    row.col(|ui| {
                        let mut text = RichText::new(format!("frame {}", frames.frame_index[i]));
                        if self.highlighted[i] {
                            text = text.color(SLOW);
                        }
                        if ui.selectable_label(selected, text).clicked() {
                            clicked = Some(f);
                        }
                    });
                    row.col(|ui| {
                        ui.label(ms(frames.duration_ns(f)));
                    });
                    row.col(|ui| {
                        ui.label(frames.num_scopes[i].to_string());
                    });
                    row.col(|ui| {
                        ui.label(format!("#{i}"));
                    });
                });
            });
        self.scroll_to_selected = false;
        if clicked.is_some() {
            self.select(clicked);
            self.scroll_to_selected = false;
        }
    }

    fn selected_frame(&mut self, ui: &mut egui::Ui) -> Option<String> {
        let Some(f) = self.selected else {
            ui.label("No frame selected.");
            return None;
        };
        let trace = self.loaded.trace();
        ui.strong(format!(
            "Frame {} · {} ms · position #{}",
            trace.frames.frame_index[f.idx()],
            ms(trace.frames.duration_ns(f)),
            f.idx()
        ));
        egui::Grid::new("threads_of_frame")
            .striped(true)
            .num_columns(4)
            .show(ui, |ui| {
                for h in ["thread", "scopes", "depth", "span ms"] {
                    ui.label(RichText::new(h).weak());
                }
                ui.end_row();
                for t in &self.threads {
                    ui.label(thread_label(&t.name));
                    ui.label(t.num_scopes.to_string());
                    ui.label(t.depth.to_string());
                    ui.label(ms(t.span_ns));
                    ui.end_row();
                }
            });
        ui.add_space(4.0);
        let title = if self.scopes_filter.is_empty() {
            "Slowest scopes in this frame".to_owned()
        } else {
            format!(
                "Scopes starting with {:?} in this frame",
                self.scopes_filter
            )
        };
        ui.strong(title);
        let mut clicked = None;
        TableBuilder::new(ui)
            .id_salt("frame_scopes")
            .striped(true)
            .auto_shrink([false, false])
            .column(Column::initial(180.0).at_least(80.0).clip(true))
            .column(Column::auto().at_least(70.0))
            .column(Column::auto().at_least(60.0))
            .column(Column::remainder())
            .header(18.0, |mut h| {
                for t in ["name", "ms", "thread", "data"] {
                    h.col(|ui| {
                        ui.strong(t);
                    });
                }
            })
            .body(|body| {
                body.rows(18.0, self.scopes.len(), |mut row| {
                    let r = &self.scopes[row.index()];
                    row.col(|ui| {
                        if ui
                            .add(
                                egui::Label::new(&r.name)
                                    .truncate()
                                    .sense(egui::Sense::click()),
                            )
                            .on_hover_text("Open its details")
                            .clicked()
                        {
                            clicked = Some(r.name.clone());
                        }
                    });
                    row.col(|ui| {
                        ui.label(ms(r.duration_ns));
                    });
                    row.col(|ui| {
                        ui.label(thread_label(&r.thread));
                    });
                    row.col(|ui| {
                        ui.add(egui::Label::new(&r.data).truncate());
                    });
                });
            });
        clicked
    }
}

/// The run chart's tooltip: thread `k`'s bucket at `x` s (a bar's middle).
fn bucket_tip(b: &BusyOverTime, k: usize, x: f64) -> String {
    let j = (x * 1e9 / b.bucket_ns.max(1) as f64).floor().max(0.0) as usize;
    let j = j.min(b.buckets().saturating_sub(1));
    let (lo, hi) = b.bucket(j);
    let busy_ns = b.threads[k].busy_ns.get(j).copied().unwrap_or(0);
    format!(
        "{}\n{:.2}-{:.2} s\nbusy {} ms ({:.0}%)",
        thread_label(&b.threads[k].thread),
        (lo - b.start_ns) as f64 / 1e9,
        (hi - b.start_ns) as f64 / 1e9,
        ms(busy_ns),
        100.0 * busy_ns as f64 / (hi - lo).max(1) as f64
    )
}

/// A full-width coloured box: a strong title, a line of text, then `more`.
fn banner(
    ui: &mut egui::Ui,
    fill: Color32,
    title: &str,
    body: &str,
    more: impl FnOnce(&mut egui::Ui),
) {
    egui::Frame::new()
        .fill(fill)
        .inner_margin(6.0)
        .corner_radius(4.0)
        .show(ui, |ui| {
            ui.set_width(ui.available_width());
            ui.label(RichText::new(title).strong().color(Color32::WHITE));
            ui.label(RichText::new(body).color(Color32::WHITE));
            more(ui);
        });
    ui.add_space(4.0);
}
