//! The scope details panel: what a scope name is (function, `file:line`,
//! kind), how it behaves (count, total, self, a histogram of its per-call
//! durations with min, median, p95 and max marked, the spike warning), its
//! slowest calls, and its callers and callees. Computed once when a scope is
//! selected.

use crate::app::loaded::Loaded;
use crate::engine::ScopeIdx;
use crate::engine::analyses::{CallerRow, ScopeDetails, scope_details};
use crate::units::{ms, ms_f, thread_label};
use egui::{Color32, RichText};
use egui_plot::{Bar, BarChart, Plot, VLine};
use std::sync::Arc;

/// Slowest calls listed.
const SLOWEST: usize = 10;

pub struct DetailsPanel {
    loaded: Arc<Loaded>,
    name: String,
    details: ScopeDetails,
    bars: Vec<Bar>,
}

/// What a click in the details asks of the app.
pub enum DetailsAction {
    /// Move the details to this scope name.
    Select(String),
    /// Show this instance in the tree (frame mode).
    Reveal(ScopeIdx),
    /// Show this instance in the timeline.
    ShowInTimeline(ScopeIdx),
    Close,
}

impl DetailsPanel {
    /// The details of `name`; `None` when no scope has that name.
    pub fn new(loaded: Arc<Loaded>, name: &str) -> Option<Self> {
        let details = scope_details(loaded.trace(), name, SLOWEST)?;
        let bars = details
            .histogram
            .iter()
            .map(|b| {
                let mid = (b.lo_ns + b.hi_ns) as f64 / 2.0 / 1e6;
                let width = ((b.hi_ns - b.lo_ns) as f64 / 1e6).max(1e-6);
                Bar::new(mid, b.count as f64).width(width * 0.95)
            })
            .collect();
        Some(Self {
            loaded,
            name: name.to_owned(),
            details,
            bars,
        })
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    pub fn details(&self) -> &ScopeDetails {
        &self.details
    }

    /// As `puffinLens.ui().details` gives it.
    pub fn to_json(&self) -> serde_json::Value {
        let d = &self.details;
        serde_json::json!({
            "name": self.name,
            "count": d.callers.count,
            "total_ns": d.callers.total_ns,
            "self_ns": d.callers.self_ns,
            "min_ns": d.min_ns,
            "median_ns": d.median_ns,
            "p95_ns": d.p95_ns,
            "max_ns": d.max_ns,
            "max_share": d.max_share,
            "spike": d.spike,
            "histogram": d.histogram,
            "callers": d.callers.callers,
            "callees": d.callers.callees,
        })
    }

    pub fn ui(&mut self, ui: &mut egui::Ui) -> Option<DetailsAction> {
        let mut action = None;
        let trace = self.loaded.trace();
        let d = &self.details;
        ui.horizontal(|ui| {
            ui.heading(&self.name);
            if ui.small_button("close").clicked() {
                action = Some(DetailsAction::Close);
            }
        });
        if let Some(info) = &d.info {
            if !info.function.is_empty() {
                ui.label(format!("in {}", info.function));
            }
            let location = if info.line > 0 {
                format!("{}:{}", info.file, info.line)
            } else {
                info.file.clone()
            };
            if !location.is_empty() {
                ui.horizontal(|ui| {
                    ui.monospace(&location);
                    if ui
                        .small_button("copy")
                        .on_hover_text("Copy file:line")
                        .clicked()
                    {
                        ui.ctx().copy_text(location.clone());
                    }
                });
            }
            ui.label(RichText::new(format!("{} scope, id {}", info.kind, info.id)).weak());
        } else {
            ui.label(RichText::new("no registration: no source location").weak());
        }
        ui.separator();
        egui::Grid::new("details_numbers")
            .num_columns(4)
            .spacing([12.0, 2.0])
            .show(ui, |ui| {
                let cell = |ui: &mut egui::Ui, k: &str, v: String| {
                    ui.label(RichText::new(k).weak());
                    ui.label(RichText::new(v).strong());
                };
                cell(ui, "calls", d.callers.count.to_string());
                cell(ui, "total", format!("{} ms", ms(d.callers.total_ns)));
                ui.end_row();
                cell(ui, "self", format!("{} ms", ms(d.callers.self_ns)));
                cell(ui, "mean", format!("{} ms", ms_f(d.mean_ns)));
                ui.end_row();
                cell(ui, "min", format!("{} ms", ms(d.min_ns)));
                cell(ui, "median", format!("{} ms", ms(d.median_ns)));
                ui.end_row();
                cell(ui, "p95", format!("{} ms", ms(d.p95_ns)));
                cell(ui, "max", format!("{} ms", ms(d.max_ns)));
                ui.end_row();
            });
        if d.spike {
            egui::Frame::new()
                .fill(Color32::from_rgb(120, 70, 10))
                .inner_margin(4.0)
                .corner_radius(3.0)
                .show(ui, |ui| {
                    ui.label(
                        RichText::new(format!(
                            "Spike: one call is {:.0}% of the total; look at that call before the average",
                            d.max_share * 100.0
                        ))
                        .color(Color32::WHITE),
                    );
                });
        }
        ui.label(RichText::new("Per-call durations (ms)").strong());
        let chart = BarChart::new("calls", self.bars.clone())
            .color(Color32::from_rgb(90, 130, 170))
            .element_formatter(Box::new(|bar, _| {
                format!(
                    "{:.3}–{:.3} ms: {} calls",
                    bar.argument - bar.bar_width / 2.0 / 0.95,
                    bar.argument + bar.bar_width / 2.0 / 0.95,
                    bar.value
                )
            }));
        let marks = [
            ("min", d.min_ns, Color32::GRAY),
            ("median", d.median_ns, Color32::from_rgb(80, 200, 120)),
            ("p95", d.p95_ns, Color32::from_rgb(235, 140, 40)),
            ("max", d.max_ns, Color32::from_rgb(220, 60, 60)),
        ];
        Plot::new(("details_histogram", &self.name))
            .height(140.0)
            .allow_zoom(false)
            .allow_drag(false)
            .allow_scroll(false)
            .include_y(0.0)
            .show(ui, |p| {
                p.bar_chart(chart);
                for (label, ns, color) in marks {
                    p.vline(VLine::new(label, ns as f64 / 1e6).color(color));
                }
            });
        // The marks' key, under the chart (a legend would cover the bars).
        ui.horizontal(|ui| {
            for (label, ns, color) in marks {
                ui.label(RichText::new(format!("| {label} {}", ms(ns))).color(color));
            }
        });
        ui.label(RichText::new("Slowest calls").strong())
            .on_hover_text("Click one to show it in the tree (frame mode)");
        for &i in &d.slowest {
            let s = &trace.scopes;
            let text = format!(
                "{} ms · frame {} · {}{}",
                ms(s.duration_ns[i.idx()]),
                trace.frames.frame_index[trace.scope_frame(i).idx()],
                thread_label(trace.thread_name(trace.scope_thread(i))),
                match trace.scope_data(i) {
                    "" => String::new(),
                    data => format!(" · {data}"),
                }
            );
            ui.horizontal(|ui| {
                if ui.link(text).on_hover_text("Show it in the tree").clicked() {
                    action = Some(DetailsAction::Reveal(i));
                }
                if ui
                    .small_button("timeline")
                    .on_hover_text("Show it in the timeline")
                    .clicked()
                {
                    action = Some(DetailsAction::ShowInTimeline(i));
                }
            });
        }
        ui.separator();
        for (title, rows) in [
            ("Callers", &d.callers.callers),
            ("Callees", &d.callers.callees),
        ] {
            ui.label(RichText::new(title).strong());
            if rows.is_empty() {
                ui.label(RichText::new("none").weak());
            }
            if let Some(name) = caller_rows(ui, rows, d.callers.total_ns) {
                action = Some(DetailsAction::Select(name));
            }
        }
        action
    }
}

/// Lists rows (clickable names); returns the name clicked.
fn caller_rows(ui: &mut egui::Ui, rows: &[CallerRow], total_ns: i64) -> Option<String> {
    let mut clicked = None;
    egui::Grid::new(ui.next_auto_id())
        .num_columns(3)
        .striped(true)
        .show(ui, |ui| {
            for r in rows {
                match &r.name {
                    Some(name) => {
                        if ui.link(name).clicked() {
                            clicked = Some(name.clone());
                        }
                    }
                    None => {
                        ui.label(RichText::new("(top level)").weak());
                    }
                }
                ui.label(format!("{}×", r.count));
                let share = if total_ns > 0 {
                    100.0 * r.total_ns as f64 / total_ns as f64
                } else {
                    0.0
                };
                ui.label(format!("{} ms ({share:.0}%)", ms(r.total_ns)));
                ui.end_row();
            }
        });
    clicked
}
