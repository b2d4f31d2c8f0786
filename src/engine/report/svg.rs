//! The report's inline SVG charts: frame durations, gaps and an outlier's
//! calls.

use super::text::{between_frames, msu, num, text};
use super::{Outlier, RecordingReport};
use crate::engine::write::escape;
use crate::units::thread_label;
use serde_json::Value;
use std::fmt::Write as _;

/// Frame durations in file order: one bar per frame, the median dashed.
pub(super) fn frames_svg(r: &RecordingReport) -> String {
    let d = &r.frame_durations_ns;
    let (w, h) = (900.0, 160.0);
    let max = d.iter().copied().max().unwrap_or(1).max(1) as f64;
    let bw = w / d.len().max(1) as f64;
    let mut o = format!(
        "<svg class=\"chart frames\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{}\" \
         role=\"img\"><title>frame times (ms), one bar per frame in file order</title>",
        h + 20.0
    );
    for (k, &ns) in d.iter().enumerate() {
        let bh = ns as f64 / max * h;
        let color = if ns > r.median_frame_ns * 2 {
            "#d9822b"
        } else {
            "#4a78b0"
        };
        let _ = write!(
            o,
            "<rect x=\"{:.2}\" y=\"{:.2}\" width=\"{:.2}\" height=\"{bh:.2}\" fill=\"{color}\"/>",
            k as f64 * bw,
            h - bh,
            (bw - 0.5).max(0.5)
        );
    }
    let my = h - r.median_frame_ns as f64 / max * h;
    let _ = write!(
        o,
        "<line x1=\"0\" x2=\"{w}\" y1=\"{my:.2}\" y2=\"{my:.2}\" stroke=\"#222\" stroke-dasharray=\"4 3\"/>\
         <text x=\"4\" y=\"{}\" font-size=\"12\">max {} · dashed: median {} · orange: over twice the median</text></svg>",
        h + 15.0,
        msu(max as i64),
        msu(r.median_frame_ns)
    );
    o
}

/// Each gap as a bar on its thread's lane, the other threads' busy time
/// in that window beside it.
pub(super) fn gaps_svg(r: &RecordingReport, list: &str) -> String {
    let gaps = r.gaps[list].as_array().map_or(&[][..], |v| v.as_slice());
    let shown = &gaps[..gaps.len().min(20)];
    // A recurring gap's bar is its total, a one-off gap's its duration.
    let size = |g: &Value| {
        if g["total_ns"].is_null() {
            num(&g["duration_ns"])
        } else {
            num(&g["total_ns"])
        }
    };
    let max = shown.iter().map(size).max().unwrap_or(1).max(1) as f64;
    let row = 22.0;
    let mut o = format!(
        "<svg class=\"chart gaps\" xmlns=\"http://www.w3.org/2000/svg\" width=\"900\" height=\"{}\" \
         role=\"img\"><title>unprofiled gaps: red the gap, blue the busiest other thread meanwhile</title>",
        row * shown.len() as f64 + 6.0
    );
    for (k, g) in shown.iter().enumerate() {
        let y = k as f64 * row + 3.0;
        let gw = size(g) as f64 / max * 420.0;
        let busy = g["other_threads"]
            .as_array()
            .and_then(|v| v.iter().max_by_key(|b| num(&b["busy_ns"])));
        let bw = busy.map_or(0.0, |b| num(&b["busy_ns"]) as f64 / max * 420.0);
        let label = if g["total_ns"].is_null() {
            format!("#{}", num(&g["frame_index"]))
        } else {
            format!("{} in {} frames", text(&g["kind"]), num(&g["frames"]))
        };
        let thread = text(&g["thread"]);
        let _ = write!(
            o,
            "<rect x=\"230\" y=\"{y}\" width=\"{gw:.2}\" height=\"8\" fill=\"#c0392b\"/>\
             <rect x=\"230\" y=\"{:.1}\" width=\"{bw:.2}\" height=\"8\" fill=\"#4a78b0\"/>\
             <text x=\"0\" y=\"{:.1}\" font-size=\"12\">{} {} {}</text>",
            y + 9.0,
            y + 13.0,
            escape::html(if between_frames(g) {
                "between frames"
            } else {
                thread_label(thread)
            }),
            escape::html(&label),
            msu(size(g)),
        );
        if let Some(b) = busy {
            let _ = write!(
                o,
                "<text x=\"{:.1}\" y=\"{:.1}\" font-size=\"11\">{} busy {}</text>",
                236.0 + gw.max(bw),
                y + 13.0,
                escape::html(thread_label(text(&b["thread"]))),
                msu(num(&b["busy_ns"]))
            );
        }
    }
    o.push_str("</svg>");
    o
}

/// The histogram of an outlier's call durations (20 bins).
pub(super) fn calls_svg(x: &Outlier) -> String {
    let max = x.calls_ns.iter().copied().max().unwrap_or(1).max(1) as f64;
    let mut bins = [0u32; 20];
    for &c in &x.calls_ns {
        let b = ((c as f64 / max) * 19.999) as usize;
        bins[b.min(19)] += 1;
    }
    let top = bins.iter().copied().max().unwrap_or(1).max(1) as f64;
    let (w, h) = (400.0, 90.0);
    let mut o = format!(
        "<svg class=\"chart calls\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{}\" \
         role=\"img\"><title>{}: calls by duration</title>",
        h + 18.0,
        escape::html(&x.name)
    );
    for (k, &n) in bins.iter().enumerate() {
        let bh = if n == 0 {
            0.0
        } else {
            (n as f64 / top * h).max(2.0)
        };
        let _ = write!(
            o,
            "<rect x=\"{:.1}\" y=\"{:.1}\" width=\"18\" height=\"{bh:.1}\" fill=\"{}\"/>",
            k as f64 * 20.0,
            h - bh,
            if k == 19 { "#d9822b" } else { "#4a78b0" }
        );
    }
    let _ = write!(
        o,
        "<text x=\"0\" y=\"{}\" font-size=\"12\">{}: {} calls from 0 to {} (orange: the largest)</text></svg>",
        h + 14.0,
        escape::html(&x.name),
        x.count,
        msu(max as i64)
    );
    o
}

/// Where the frame's time went: A's mean frame, each part of its change as
/// a bar up (slower, orange, "▲") or down (faster, blue, "▼") from where the
/// last ended, its interval as a whisker, the parts that are not a cost
/// grey and dashed, and B's mean frame. Colour is never the only mark: the
/// arrows and the hatching say it too.
pub(super) fn waterfall_svg(g: &super::glance::Glance) -> String {
    let rows = g.bars.len() + 2;
    let (label_w, bar_w, row_h) = (300.0, 560.0, 22.0);
    let w = label_w + bar_w + 160.0;
    let h = rows as f64 * row_h + 10.0;
    let (lo, hi) = g.range_ns();
    let x = |ns: f64| label_w + (ns - lo) / (hi - lo) * bar_w;
    let mut o = format!(
        "<svg class=\"chart waterfall\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" \
         height=\"{h}\" role=\"img\"><title>where the frame's time went: A's mean frame, each \
         part of the change, B's mean frame</title>"
    );
    let row = |o: &mut String,
               k: usize,
               label: &str,
               from: f64,
               to: f64,
               style: &str,
               note: &str,
               ci: Option<[f64; 2]>| {
        let y = 5.0 + k as f64 * row_h;
        let (x0, x1) = (x(from.min(to)), x(from.max(to)));
        let _ = write!(
            o,
            "<text x=\"{:.1}\" y=\"{:.1}\" font-size=\"12\">{}</text>\
             <rect x=\"{x0:.2}\" y=\"{:.1}\" width=\"{:.2}\" height=\"{:.1}\" {style}/>\
             <text x=\"{:.1}\" y=\"{:.1}\" font-size=\"12\">{}</text>",
            4.0,
            y + 15.0,
            escape::html(&short(label, 44)),
            y + 3.0,
            (x1 - x0).max(1.0),
            row_h - 6.0,
            x(from.max(to)).max(x(to)) + 6.0,
            y + 15.0,
            escape::html(note),
        );
        if let Some([l, u]) = ci {
            let (xl, xu, ym) = (x(from + l), x(from + u), y + row_h / 2.0);
            let _ = write!(
                o,
                "<line x1=\"{xl:.2}\" x2=\"{xu:.2}\" y1=\"{ym:.1}\" y2=\"{ym:.1}\" stroke=\"#222\"/>\
                 <line x1=\"{xl:.2}\" x2=\"{xl:.2}\" y1=\"{:.1}\" y2=\"{:.1}\" stroke=\"#222\"/>\
                 <line x1=\"{xu:.2}\" x2=\"{xu:.2}\" y1=\"{:.1}\" y2=\"{:.1}\" stroke=\"#222\"/>",
                ym - 4.0,
                ym + 4.0,
                ym - 4.0,
                ym + 4.0
            );
        }
    };
    let ms = |ns: f64| format!("{:.3} ms", ns / 1e6);
    row(
        &mut o,
        0,
        "A's frame (mean)",
        lo,
        g.a_ns,
        "fill=\"#777\"",
        &ms(g.a_ns),
        None,
    );
    let mut level = g.a_ns;
    for (k, b) in g.bars.iter().enumerate() {
        let next = level + b.delta_ns;
        let up = b.delta_ns > 0.0;
        let style = if !b.cost {
            "fill=\"#ddd\" stroke=\"#777\" stroke-dasharray=\"3 2\""
        } else if up {
            "fill=\"#d9822b\""
        } else {
            "fill=\"#4a78b0\""
        };
        let note = format!(
            "{} {:+.3} ms{}",
            if up { "▲" } else { "▼" },
            b.delta_ns / 1e6,
            if b.cost { "" } else { " (not a cost)" }
        );
        row(&mut o, k + 1, &b.label, level, next, style, &note, b.ci_ns);
        level = next;
    }
    row(
        &mut o,
        rows - 1,
        "B's frame (mean)",
        lo,
        g.b_ns,
        "fill=\"#777\"",
        &ms(g.b_ns),
        None,
    );
    o.push_str("</svg>");
    o
}

/// `s` cut to `n` characters, "…" marking the cut.
fn short(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_owned()
    } else {
        let mut t: String = s.chars().take(n - 1).collect();
        t.push('…');
        t
    }
}
