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
    let per_call = c.kind.is_per_call();
    let count = matches!(
        c.kind,
        Kind::MoreOften
            | Kind::LessOften
            | Kind::SlowerMoreOften
            | Kind::SlowerLessOften
            | Kind::FasterMoreOften
            | Kind::FasterLessOften
    );
    // Faster or slower beyond the drift, while the row took longer (or
    // less) as measured: said so in the same phrase.
    let against_drift = c.kind.is_change()
        && c.drift_part_ns != 0.0
        && c.delta_per_frame_ns.signum() != c.beyond_drift_ns().signum();
    if against_drift {
        parts[0].push_str(" than the drift predicts");
    }
    parts.push(c.effect.text());
    if per_call && let (Some(ma), Some(mb)) = (c.per_call_a_ns, c.per_call_b_ns) {
        // The per-call change beyond the drift, in percent.
        let expected = ma * c.raw.factor;
        let pct = if expected > 0.0 {
            format!(
                " ({:+.0}%{})",
                100.0 * (mb / expected - 1.0),
                if c.raw.factor != 1.0 {
                    " beyond the drift"
                } else {
                    ""
                }
            )
        } else {
            String::new()
        };
        parts.push(format!(
            "mean call {} → {}{pct}",
            msu(ma.round() as i64),
            msu(mb.round() as i64)
        ));
    }
    if count {
        parts.push(format!(
            "{:.2} → {:.2} calls per {unit}",
            c.calls_per_frame_a, c.calls_per_frame_b
        ));
    }
    // The calls' tail, the evidence of a change in call sizes.
    if (per_call || matches!(c.kind, Kind::Costlier | Kind::Cheaper))
        && let (Some(qa), Some(qb)) = (c.calls_a_ns, c.calls_b_ns)
    {
        parts.push(format!(
            "P90 call {} → {}, P99 {} → {}, longest {} → {}",
            ms(qa.p90),
            msu(qb.p90),
            ms(qa.p99),
            msu(qb.p99),
            ms(qa.max),
            msu(qb.max)
        ));
    }
    if let Some(settle) = &c.effect.settle {
        parts.push(settle.clone());
    }
    parts.join(", ")
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
