//! Words and numbers every part of the report shares: a judged change
//! described, milliseconds, Markdown cells and paths, and the accessors of
//! the answers' JSON.

use crate::engine::analyses::basis::Basis;
use crate::engine::analyses::judge::{Change, Kind};
use crate::engine::write::escape;
use crate::units::ms;
use serde_json::Value;

/// A judged change in words, with its numbers.
pub fn describe(c: &Change) -> String {
    describe_per(c, Basis::Frame)
}

/// [`describe`], its calls counted per unit of `basis` (per frame, or per
/// second).
pub fn describe_per(c: &Change, basis: Basis) -> String {
    let unit = basis.unit();
    let mut parts = vec![c.kind.words().to_owned()];
    let per_call = matches!(
        c.kind,
        Kind::Slower
            | Kind::Faster
            | Kind::SlowerMoreOften
            | Kind::SlowerLessOften
            | Kind::FasterMoreOften
            | Kind::FasterLessOften
    );
    let count = matches!(
        c.kind,
        Kind::MoreOften
            | Kind::LessOften
            | Kind::SlowerMoreOften
            | Kind::SlowerLessOften
            | Kind::FasterMoreOften
            | Kind::FasterLessOften
    );
    if per_call && let (Some(ma), Some(mb)) = (c.median_a_ns, c.median_b_ns) {
        parts.push(format!("median {} → {}", msu(ma), msu(mb)));
    }
    if count {
        parts.push(format!(
            "{:.2} → {:.2} calls per {unit}",
            c.calls_per_frame_a, c.calls_per_frame_b
        ));
    }
    let p = if per_call { c.p_per_call } else { c.p_count };
    if let Some(p) = p.filter(|_| per_call || count) {
        parts.push(p_text(p));
    }
    if c.few_calls {
        parts.push("fewer than 5 calls: judged by the thresholds alone".to_owned());
    }
    parts.join(", ")
}

pub(super) fn p_text(p: f64) -> String {
    if p < 0.001 {
        "p < 0.001".to_owned()
    } else {
        format!("p = {p:.3}")
    }
}

pub(super) fn signed_ms(ns: f64) -> String {
    // No "-0.000": under half a nanosecond is none.
    let ns = if ns.abs() < 0.5 { 0.0 } else { ns };
    format!("{:+.3} ms", ns / 1e6)
}

/// `12.345 ms`.
pub(super) fn msu(ns: i64) -> String {
    format!("{} ms", ms(ns))
}

/// Recording text as Markdown (a cell, a heading, running text).
pub(super) fn cell(s: &str) -> std::borrow::Cow<'_, str> {
    escape::markdown(s)
}

/// A gap's path in Markdown: `(top level)` when it has none.
pub(super) fn path_md(path: &str) -> String {
    if path.is_empty() {
        "(top level)".to_owned()
    } else {
        escape::markdown_code(path)
    }
}

/// Whether a gap (its JSON) is between frames: by its kind, since a thread
/// may be named "" (the Rerun SDK's main thread).
pub(super) fn between_frames(gap: &Value) -> bool {
    text(&gap["kind"]) == "between-frames"
}

pub(super) fn num(v: &Value) -> i64 {
    v.as_i64().unwrap_or(0)
}

pub(super) fn text(v: &Value) -> &str {
    v.as_str().unwrap_or("")
}
