//! `compare`: two recordings joined per (name, data).

use super::common::*;
use super::find::{GroupBy, accumulate};
use crate::engine::model::Trace;
use rustc_hash::FxHashMap;
use serde::Serialize;
use std::cmp::Ordering;

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SideStats {
    pub count: u64,
    pub total_ns: i64,
    pub per_call_ns: f64,
    pub max_ns: i64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Both,
    New,
    Gone,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CompareRow {
    pub name: String,
    pub data: String,
    pub a: Option<SideStats>,
    pub b: Option<SideStats>,
    pub delta_total_ns: i64,
    pub delta_per_call_ns: Option<f64>,
    pub status: Status,
    pub spike: bool,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CompareReport {
    pub warnings: Vec<String>,
    pub rows: Vec<CompareRow>,
}

/// How `compare` sorts its rows (ties always by name, then data).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CompareSort {
    /// |B − A| of the total, descending: the largest changes first, slower
    /// or faster (`delta` is its older name).
    #[default]
    #[value(alias = "delta")]
    #[serde(alias = "delta")]
    AbsDelta,
    /// B − A of the total, descending: what got slower first, what got
    /// faster last (the app's diff table's default order).
    SignedDelta,
    /// The larger of the two totals, descending.
    Total,
    /// |B − A| of the per-call time, descending; rows on one side only last.
    PerCall,
    /// The larger of the two counts, descending.
    Count,
    /// Name, then data, ascending.
    Name,
}

#[derive(Clone, Debug, Default)]
pub struct CompareOptions {
    pub top: usize,
    /// Keep rows whose name or data starts with this.
    pub filter: Option<String>,
    /// Drop rows under this total in both traces.
    pub hide_below_ns: i64,
    pub sort: CompareSort,
}

fn side_stats(trace: &Trace) -> FxHashMap<(String, String), SideStats> {
    accumulate(trace, GroupBy::NameData, |_| true)
        .into_iter()
        .map(|g| {
            (
                (trace.str(g.name).to_owned(), trace.str(g.data).to_owned()),
                SideStats {
                    count: g.count,
                    total_ns: g.total_ns,
                    per_call_ns: g.total_ns as f64 / g.count as f64,
                    max_ns: g.max_ns,
                },
            )
        })
        .collect()
}

/// A side's single call dominates it: at least 2 calls and the largest is
/// more than half of the total.
fn is_spike(side: &SideStats) -> bool {
    spike(side.count, side.max_ns, side.total_ns)
}

/// What makes a comparison of `a` and `b` misleading: one has a scope
/// registration and the other none (its names are `scope#<id>`).
pub fn compare_warnings(a: &Trace, b: &Trace) -> Vec<String> {
    let mut warnings = Vec::new();
    if a.defs.has_registration() != b.defs.has_registration() {
        let (with, without) = if a.defs.has_registration() {
            ("A", "B")
        } else {
            ("B", "A")
        };
        warnings.push(format!(
            "registration mismatch: {with} has scope registration and {without} has none, \
             so names will not match (unregistered scopes are named scope#<id>)"
        ));
    }
    warnings
}

/// Joins two traces on (name, data). See [`CompareSort`] for the order.
pub fn compare(a: &Trace, b: &Trace, opts: &CompareOptions) -> CompareReport {
    let warnings = compare_warnings(a, b);
    let mut sa = side_stats(a);
    let sb = side_stats(b);
    let mut rows: Vec<CompareRow> = Vec::with_capacity(sa.len().max(sb.len()));
    for (key, b_stats) in sb {
        let a_stats = sa.remove(&key);
        rows.push(make_row(key, a_stats, Some(b_stats)));
    }
    for (key, a_stats) in sa {
        rows.push(make_row(key, Some(a_stats), None));
    }
    rows.retain(|r| {
        let keep_filter = opts
            .filter
            .as_deref()
            .is_none_or(|p| r.name.starts_with(p) || r.data.starts_with(p));
        let total = |s: &Option<SideStats>| s.as_ref().map_or(0, |s| s.total_ns);
        let keep_size = total(&r.a) >= opts.hide_below_ns || total(&r.b) >= opts.hide_below_ns;
        keep_filter && keep_size
    });
    let by_name = |x: &CompareRow, y: &CompareRow| x.name.cmp(&y.name).then(x.data.cmp(&y.data));
    let total = |r: &CompareRow| {
        r.a.as_ref()
            .map_or(0, |s| s.total_ns)
            .max(r.b.as_ref().map_or(0, |s| s.total_ns))
    };
    let count = |r: &CompareRow| {
        r.a.as_ref()
            .map_or(0, |s| s.count)
            .max(r.b.as_ref().map_or(0, |s| s.count))
    };
    match opts.sort {
        CompareSort::AbsDelta => rows.sort_by(|x, y| {
            y.delta_total_ns
                .unsigned_abs()
                .cmp(&x.delta_total_ns.unsigned_abs())
                .then_with(|| by_name(x, y))
        }),
        CompareSort::SignedDelta => rows.sort_by(|x, y| {
            y.delta_total_ns
                .cmp(&x.delta_total_ns)
                .then_with(|| by_name(x, y))
        }),
        CompareSort::Total => {
            rows.sort_by(|x, y| total(y).cmp(&total(x)).then_with(|| by_name(x, y)))
        }
        CompareSort::Count => {
            rows.sort_by(|x, y| count(y).cmp(&count(x)).then_with(|| by_name(x, y)))
        }
        CompareSort::PerCall => rows.sort_by(|x, y| {
            let key = |r: &CompareRow| r.delta_per_call_ns.map(f64::abs);
            match (key(x), key(y)) {
                (Some(p), Some(q)) => q.partial_cmp(&p).unwrap_or(Ordering::Equal),
                (Some(_), None) => Ordering::Less,
                (None, Some(_)) => Ordering::Greater,
                (None, None) => Ordering::Equal,
            }
            .then_with(|| by_name(x, y))
        }),
        CompareSort::Name => rows.sort_by(by_name),
    }
    rows.truncate(opts.top);
    CompareReport { warnings, rows }
}

fn make_row(
    (name, data): (String, String),
    a: Option<SideStats>,
    b: Option<SideStats>,
) -> CompareRow {
    let ta = a.as_ref().map_or(0, |s| s.total_ns);
    let tb = b.as_ref().map_or(0, |s| s.total_ns);
    let status = match (&a, &b) {
        (Some(_), Some(_)) => Status::Both,
        (None, _) => Status::New,
        (_, None) => Status::Gone,
    };
    let delta_per_call_ns = match (&a, &b) {
        (Some(a), Some(b)) => Some(b.per_call_ns - a.per_call_ns),
        _ => None,
    };
    let larger = if tb > ta { b.as_ref() } else { a.as_ref() };
    CompareRow {
        name,
        data,
        spike: larger.is_some_and(is_spike),
        a,
        b,
        delta_total_ns: tb.saturating_sub(ta),
        delta_per_call_ns,
        status,
    }
}
