//! A pair's findings at a glance, at the top of the Findings page: the
//! headline, where the frame's time went as a waterfall, and one line a
//! finding. Everything is drawn from the engine's
//! [`Glance`](crate::engine::report::glance::Glance) (the vectors
//! `puffinLens.ui()` returns as `glance`), made once with the findings:
//! drawing is O(bars + lines).
//!
//! Colour is never the only mark: a slower part carries "▲", a faster one
//! "▼", and a part that is not a cost of the code is grey with "○ not a
//! cost".

use crate::engine::report::glance::{Bar, Glance, with_interval};
use egui::{Align, Color32, Layout, RichText, Sense, Stroke, pos2, vec2};

const UP: Color32 = Color32::from_rgb(0xd9, 0x82, 0x2b);
const DOWN: Color32 = Color32::from_rgb(0x4a, 0x78, 0xb0);
const GREY: Color32 = Color32::from_gray(150);
const FRAME: Color32 = Color32::from_gray(110);
const ROW_H: f32 = 20.0;

/// The bar's colour and its mark in words.
fn look(b: &Bar) -> (Color32, &'static str) {
    match (b.cost, b.delta_ns > 0.0) {
        (false, _) => (GREY, "○"),
        (true, true) => (UP, "▲"),
        (true, false) => (DOWN, "▼"),
    }
}

/// Draws the glance; a clicked scope's evidence goes to `clicked` (`link`
/// makes its location hash).
pub fn ui(
    ui: &mut egui::Ui,
    g: &Glance,
    link: &dyn Fn(&str) -> String,
    clicked: &mut Option<String>,
) {
    ui.label(RichText::new(&g.headline).size(18.0).strong());
    ui.add_space(6.0);
    waterfall_ui(ui, g, link, clicked);
    ui.add_space(8.0);
    if !g.findings.is_empty() {
        findings_ui(ui, g, link, clicked);
    }
}

/// Where the frame's time went: A's mean frame, each part from where the
/// last ended, its interval as a whisker, B's mean frame.
fn waterfall_ui(
    ui: &mut egui::Ui,
    g: &Glance,
    link: &dyn Fn(&str) -> String,
    clicked: &mut Option<String>,
) {
    ui.label(RichText::new("Where the frame's time went").strong());
    let width = ui.available_width().min(1000.0);
    let label_w = (width * 0.3).clamp(120.0, 300.0);
    let value_w = 230.0;
    let bar_w = (width - label_w - value_w).max(80.0);
    let (lo, hi) = g.range_ns();
    // The axis starts at `lo`: when that is not 0, the frames' bars are cut
    // there and say so (a break mark on them, the axis's first tick).
    let broken = lo > 0.0;
    let row = |ui: &mut egui::Ui,
               label: &str,
               name: Option<&str>,
               (from, to): (f64, f64),
               colour: Color32,
               ci: Option<[f64; 2]>,
               value: String,
               clicked: &mut Option<String>| {
        ui.horizontal(|ui| {
            ui.allocate_ui_with_layout(
                vec2(label_w, ROW_H),
                Layout::right_to_left(Align::Center),
                |ui| match name {
                    Some(n) => {
                        if ui
                            .link(RichText::new(label).code())
                            .on_hover_text("Show its evidence")
                            .clicked()
                        {
                            *clicked = Some(link(n));
                        }
                    }
                    None => {
                        ui.label(label);
                    }
                },
            );
            let (rect, _) = ui.allocate_exact_size(vec2(bar_w, ROW_H), Sense::hover());
            let x = |ns: f64| rect.left() + ((ns - lo) / (hi - lo)) as f32 * rect.width();
            let (x0, x1) = (x(from.min(to)), x(from.max(to)).max(x(from.min(to)) + 1.0));
            let bar = egui::Rect::from_x_y_ranges(x0..=x1, rect.top() + 3.0..=rect.bottom() - 3.0);
            let p = ui.painter();
            p.rect_filled(bar, 2.0, colour);
            if colour == GREY {
                // Hatched: not a cost, whatever the colours show.
                let mut hx = bar.left() - bar.height();
                while hx < bar.right() {
                    let (a, b) = (pos2(hx, bar.bottom()), pos2(hx + bar.height(), bar.top()));
                    p.with_clip_rect(bar)
                        .line_segment([a, b], Stroke::new(1.0, Color32::from_gray(90)));
                    hx += 6.0;
                }
            }
            if broken && from <= lo && bar.width() > 24.0 {
                // The break: two slanted cuts across the bar near the axis.
                let cut = Stroke::new(2.0, ui.visuals().panel_fill);
                for dx in [8.0, 13.0] {
                    let x0 = bar.left() + dx;
                    p.line_segment(
                        [
                            pos2(x0 - 3.0, bar.bottom() + 1.0),
                            pos2(x0 + 3.0, bar.top() - 1.0),
                        ],
                        cut,
                    );
                }
            }
            if let Some([l, u]) = ci {
                let (xl, xu, y) = (x(from + l), x(from + u), rect.center().y);
                let s = Stroke::new(1.0, ui.visuals().text_color());
                p.line_segment([pos2(xl, y), pos2(xu, y)], s);
                p.line_segment([pos2(xl, y - 4.0), pos2(xl, y + 4.0)], s);
                p.line_segment([pos2(xu, y - 4.0), pos2(xu, y + 4.0)], s);
            }
            ui.label(RichText::new(value).monospace());
        });
    };
    let ms = |ns: f64| format!("{:.3} ms", ns / 1e6);
    row(
        ui,
        "A's frame (mean)",
        None,
        (lo, g.a_ns),
        FRAME,
        None,
        ms(g.a_ns),
        clicked,
    );
    let mut level = g.a_ns;
    for b in &g.bars {
        let (colour, mark) = look(b);
        let value = format!(
            "{mark} {}{}",
            with_interval(b.delta_ns, b.ci_ns),
            if b.cost { "" } else { " not a cost" }
        );
        row(
            ui,
            &b.label,
            b.name.as_deref(),
            (level, level + b.delta_ns),
            colour,
            b.ci_ns,
            value,
            clicked,
        );
        level += b.delta_ns;
    }
    row(
        ui,
        "B's frame (mean)",
        None,
        (lo, g.b_ns),
        FRAME,
        None,
        ms(g.b_ns),
        clicked,
    );
    axis_ui(ui, (label_w, bar_w), (lo, hi));
    ui.horizontal_wrapped(|ui| {
        ui.add_space(label_w);
        ui.label(
            RichText::new(
                "▲ costs more · ▼ costs less · ○ hatched: not a cost of the code · ├─┤ the \
                 change's interval · each part starts where the last ended",
            )
            .weak()
            .small(),
        );
    });
}

/// The waterfall's axis under its bars: ticks at round milliseconds, the
/// first at `lo`; when `lo` is not 0 the axis is marked broken ("//") and
/// says where it starts.
fn axis_ui(ui: &mut egui::Ui, (label_w, bar_w): (f32, f32), (lo, hi): (f64, f64)) {
    let (lo_ms, hi_ms) = (lo / 1e6, hi / 1e6);
    ui.horizontal(|ui| {
        ui.allocate_ui_with_layout(
            vec2(label_w, ROW_H),
            Layout::right_to_left(Align::Center),
            |ui| {
                let text = if lo > 0.0 {
                    format!("axis from {lo_ms:.3} ms, not 0 //")
                } else {
                    "ms".to_owned()
                };
                ui.label(RichText::new(text).weak().small()).on_hover_text(
                    "The parts are read against the frames: the axis starts a little below the \
                     smallest level, so that a change of a few percent is visible; the frames' \
                     bars are cut there (the slanted marks)",
                );
            },
        );
        let (rect, _) = ui.allocate_exact_size(vec2(bar_w, ROW_H), Sense::hover());
        let x = |ms: f64| rect.left() + ((ms - lo_ms) / (hi_ms - lo_ms)) as f32 * rect.width();
        let p = ui.painter();
        let colour = ui.visuals().weak_text_color();
        p.line_segment(
            [rect.left_top(), rect.right_top()],
            Stroke::new(1.0, colour),
        );
        // About five ticks at 1, 2 or 5 times a power of ten.
        let raw = ((hi_ms - lo_ms) / 5.0).max(1e-6);
        let pow = 10f64.powf(raw.log10().floor());
        let step = [1.0, 2.0, 5.0, 10.0]
            .into_iter()
            .map(|m| m * pow)
            .find(|&s| s >= raw)
            .unwrap_or(10.0 * pow);
        let decimals = (-step.log10().floor()).max(0.0) as usize;
        let mut t = (lo_ms / step).ceil() * step;
        while t <= hi_ms {
            let xt = x(t);
            p.line_segment(
                [pos2(xt, rect.top()), pos2(xt, rect.top() + 4.0)],
                Stroke::new(1.0, colour),
            );
            p.text(
                pos2(xt, rect.top() + 5.0),
                egui::Align2::CENTER_TOP,
                format!("{t:.decimals$}"),
                egui::FontId::proportional(10.0),
                colour,
            );
            t += step;
        }
    });
}

/// One line a finding: rank, scope, kind, change per frame with its
/// interval drawn against the band, where. The sentence behind it on hover.
fn findings_ui(
    ui: &mut egui::Ui,
    g: &Glance,
    link: &dyn Fn(&str) -> String,
    clicked: &mut Option<String>,
) {
    egui::Grid::new("glance-findings")
        .striped(true)
        .num_columns(7)
        .spacing(vec2(10.0, 4.0))
        .show(ui, |ui| {
            for h in [
                "#",
                "scope",
                "what",
                "per frame",
                "against the noise",
                "A | B",
                "where",
            ] {
                let hint = match h {
                    "against the noise" => {
                        "The grey band is the noise a change must clear (± around zero); the \
                         line is the change's interval, the dot its estimate: a change when \
                         the whole line lies outside the band"
                    }
                    "A | B" => {
                        "Its cost per frame through A's frames, then B's (after the tick), on \
                         one scale"
                    }
                    "per frame" => {
                        "The change of its time per frame, B against A, with its interval \
                         [low, high]; none for a scope one side lacks (as recorded)"
                    }
                    "what" => "▲ costs more, ▼ costs less, ○ not a cost of the code",
                    _ => "",
                };
                let label = ui.label(RichText::new(h).strong());
                if !hint.is_empty() {
                    label.on_hover_text(hint);
                }
            }
            ui.end_row();
            for x in &g.findings {
                ui.label(x.rank.to_string());
                if x.name.is_empty() {
                    ui.label("–").on_hover_text(&x.details);
                } else if ui
                    .link(RichText::new(&x.name).code())
                    .on_hover_text(&x.details)
                    .clicked()
                {
                    *clicked = Some(link(&x.name));
                }
                let (fill, mark) = match (x.cost, x.delta_ns > 0.0) {
                    (false, _) => (GREY, "○ "),
                    (true, true) => (UP, "▲ "),
                    (true, false) => (DOWN, "▼ "),
                };
                egui::Frame::new()
                    .fill(fill.gamma_multiply(0.35))
                    .corner_radius(3.0)
                    .inner_margin(vec2(4.0, 1.0))
                    .show(ui, |ui| {
                        ui.label(format!("{mark}{}", x.badge));
                    })
                    .response
                    .on_hover_text(&x.details);
                ui.label(
                    RichText::new(if x.ci_ns.is_none() && x.delta_ns == 0.0 {
                        "–".to_owned()
                    } else {
                        with_interval(x.delta_ns, x.ci_ns)
                    })
                    .monospace(),
                );
                interval_ui(ui, x.delta_ns, x.ci_ns, x.band_ns);
                spark_ui(ui, &x.spark_a_ns, &x.spark_b_ns, fill);
                // Markdown: its text on one line (cut to the column; all
                // of it on hover), the evidence one click away on the name.
                let spans = super::inline_md::inline(&x.place, &|_| None);
                let text: String = spans.iter().map(|s| s.text.as_str()).collect();
                ui.scope(|ui| {
                    ui.set_max_width(360.0);
                    ui.add(egui::Label::new(&text).truncate())
                        .on_hover_text(&text);
                });
                ui.end_row();
            }
        });
}

/// A change's interval against the noise band around zero: the band grey,
/// the interval a line with the estimate a dot.
fn interval_ui(ui: &mut egui::Ui, delta_ns: f64, ci: Option<[f64; 2]>, band: Option<f64>) {
    let (rect, resp) = ui.allocate_exact_size(vec2(140.0, 14.0), Sense::hover());
    let (Some([l, u]), Some(band)) = (ci, band) else {
        return;
    };
    resp.on_hover_text(format!(
        "grey: the noise band, ±{:.3} ms around 0 (the line); black: the interval [{:+.3}, \
         {:+.3}] ms, the dot {:+.3} ms. A change when the whole interval lies outside the band",
        band / 1e6,
        l / 1e6,
        u / 1e6,
        delta_ns / 1e6
    ));
    let reach = l.abs().max(u.abs()).max(band).max(1.0) * 1.1;
    let x = |ns: f64| rect.center().x + (ns / reach) as f32 * rect.width() / 2.0;
    let p = ui.painter();
    p.rect_filled(
        egui::Rect::from_x_y_ranges(x(-band)..=x(band), rect.y_range()),
        0.0,
        Color32::from_gray(200).gamma_multiply(0.6),
    );
    let y = rect.center().y;
    let s = Stroke::new(2.0, ui.visuals().text_color());
    p.line_segment([pos2(x(l), y), pos2(x(u), y)], s);
    p.circle_filled(pos2(x(delta_ns), y), 3.0, ui.visuals().text_color());
    p.line_segment(
        [pos2(x(0.0), rect.top()), pos2(x(0.0), rect.bottom())],
        Stroke::new(1.0, FRAME),
    );
}

/// A finding's cost per frame through A's run then B's, on one scale (B in
/// the finding's colour), a tick where B starts.
fn spark_ui(ui: &mut egui::Ui, a: &[f64], b: &[f64], colour: Color32) {
    let (rect, resp) = ui.allocate_exact_size(vec2(90.0, 16.0), Sense::hover());
    if a.len() + b.len() < 2 {
        return;
    }
    let max = a.iter().chain(b).copied().fold(f64::MIN_POSITIVE, f64::max);
    let mean = |x: &[f64]| x.iter().sum::<f64>() / x.len().max(1) as f64 / 1e6;
    resp.on_hover_text(format!(
        "Its cost per frame through A's run (grey), then B's (after the tick), 0 to {:.3} ms; \
         the mean of the points: A {:.3} ms, B {:.3} ms (each point the largest of its stretch)",
        max / 1e6,
        mean(a),
        mean(b)
    ));
    let n = (a.len() + b.len()) as f32;
    let x = |k: usize| rect.left() + rect.width() * k as f32 / (n - 1.0);
    let y = |v: f64| rect.bottom() - rect.height() * (v / max).clamp(0.0, 1.0) as f32;
    let p = ui.painter();
    let line = |from: usize, vals: &[f64], c: Color32| {
        let pts: Vec<egui::Pos2> = vals
            .iter()
            .enumerate()
            .map(|(k, &v)| pos2(x(from + k), y(v)))
            .collect();
        p.add(egui::Shape::line(pts, Stroke::new(1.0, c)));
    };
    line(0, a, ui.visuals().weak_text_color());
    line(a.len(), b, colour);
    p.line_segment(
        [
            pos2(x(a.len()), rect.top()),
            pos2(x(a.len()), rect.bottom()),
        ],
        Stroke::new(1.0, ui.visuals().strong_text_color()),
    );
}
