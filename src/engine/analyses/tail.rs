//! Heavy tails: a scope whose slow calls hold a real share of its total,
//! and whether they recur at a regular interval. One rule ([`tail`]) for
//! the report's outliers (`kind: "tail"`) and `calls NAME`.
//!
//! A call is **slow** when it is more than [`TAIL_K`] times the scope's
//! (lower) median and more than [`TAIL_MIN_NS`]. The scope has a **tail**
//! when at least [`TAIL_MIN_CALLS`] calls are slow and together hold at
//! least [`TAIL_MIN_SHARE`] of its total: its median then says little of
//! what it costs. (One call holding half the total is the spike rule,
//! [`super::common::spike`].)
//!
//! The slow calls **recur regularly** when there are at least
//! [`CADENCE_MIN_INTERVALS`] intervals between their starts (time order)
//! and the interquartile range of those intervals is at most
//! [`REGULAR_IQR`] of their median: "about every 1.0 s". Otherwise they
//! are irregular. Sorting the durations and the slow calls' starts:
//! O(n log n) for n calls.

use super::stats::ScopeStats;
use crate::engine::model::{ScopeIdx, StrId, Trace};
use serde::Serialize;

/// A slow call is more than this many times the median…
pub const TAIL_K: i64 = 10;
/// …and more than this (1 ms).
pub const TAIL_MIN_NS: i64 = 1_000_000;
/// The slow calls' share of the total that makes a tail.
pub const TAIL_MIN_SHARE: f64 = 0.2;
/// Fewer slow calls are a spike's business, not a tail.
pub const TAIL_MIN_CALLS: u64 = 3;
/// Intervals needed to call the slow calls regular.
pub const CADENCE_MIN_INTERVALS: usize = 3;
/// Regular: the intervals' interquartile range over their median, at most.
pub const REGULAR_IQR: f64 = 0.5;

/// A scope's heavy tail (see the module doc for the rule).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Tail {
    /// A call is slow above this: max([`TAIL_K`] × median, [`TAIL_MIN_NS`]).
    pub threshold_ns: i64,
    pub slow_calls: u64,
    pub slow_total_ns: i64,
    /// The slow calls' share of the scope's total, 0 to 1.
    pub share: f64,
    /// Of all the scope's calls: lower median, nearest-rank p99, max.
    pub median_ns: i64,
    pub p99_ns: i64,
    pub max_ns: i64,
    pub cadence: Cadence,
}

impl Tail {
    /// One line: "11 slow calls (over 8.000 ms: 10x the median, at least
    /// 1.000 ms) hold 29% of the total (106.380 ms); median 0.800 | p99
    /// 10.390 | max 10.546 ms; recurring about once a second (median
    /// interval 1000.000 ms, IQR 0.000 ms)".
    pub fn words(&self) -> String {
        use crate::units::ms;
        let c = &self.cadence;
        let spread = format!(
            "(median interval {} ms, IQR {} ms)",
            ms(c.median_interval_ns),
            ms(c.q3_interval_ns - c.q1_interval_ns)
        );
        let recurs = match (c.regular, c.intervals) {
            (true, _) => format!("recurring {} {spread}", c.words()),
            (false, 0) => "irregular".to_owned(),
            (false, _) => format!("irregular {spread}"),
        };
        format!(
            "{} slow calls (over {} ms: {TAIL_K}x the median, at least {} ms) hold {:.0}% of the \
             total ({} ms); median {} | p99 {} | max {} ms; {recurs}",
            self.slow_calls,
            ms(self.threshold_ns),
            ms(TAIL_MIN_NS),
            self.share * 100.0,
            ms(self.slow_total_ns),
            ms(self.median_ns),
            ms(self.p99_ns),
            ms(self.max_ns),
        )
    }
}

/// How the slow calls recur: the intervals between consecutive slow calls'
/// starts.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Cadence {
    /// Slow calls − 1.
    pub intervals: u64,
    /// Lower median and nearest-rank quartiles of the intervals (0 without
    /// one).
    pub median_interval_ns: i64,
    pub q1_interval_ns: i64,
    pub q3_interval_ns: i64,
    /// At least [`CADENCE_MIN_INTERVALS`] intervals, a median above 0,
    /// and an interquartile range at most [`REGULAR_IQR`] of the median.
    pub regular: bool,
}

impl Cadence {
    /// "about once a second", "about every 283.4 ms", or "irregular".
    pub fn words(&self) -> String {
        if !self.regular {
            return "irregular".to_owned();
        }
        let s = self.median_interval_ns as f64 / 1e9;
        if (0.9..=1.1).contains(&s) {
            "about once a second".to_owned()
        } else if s >= 1.0 {
            format!("about every {s:.1} s")
        } else {
            format!(
                "about every {} ms",
                crate::units::ms(self.median_interval_ns)
            )
        }
    }
}

/// Above this a call is slow, for a scope of this (lower) median.
pub fn slow_threshold_ns(median_ns: i64) -> i64 {
    median_ns.saturating_mul(TAIL_K).max(TAIL_MIN_NS)
}

/// Whether `slow_calls` slow calls totalling `slow_total_ns` make a tail of
/// a scope totalling `total_ns`.
pub fn is_tail(slow_calls: u64, slow_total_ns: i64, total_ns: i64) -> bool {
    slow_calls >= TAIL_MIN_CALLS
        && total_ns > 0
        && slow_total_ns as f64 >= TAIL_MIN_SHARE * total_ns as f64
}

/// Nearest rank `pct` of sorted values (0 when empty; rank 50 is the lower
/// median).
fn rank(sorted: &[i64], pct: usize) -> i64 {
    let r = (pct * sorted.len()).div_ceil(100).max(1);
    sorted.get(r - 1).copied().unwrap_or(0)
}

/// The tail of a scope's calls, `(start_ns, duration_ns)` each, in any
/// order; `None` when it has none.
pub fn tail(calls: &[(i64, i64)]) -> Option<Tail> {
    if calls.is_empty() {
        return None;
    }
    let mut durations: Vec<i64> = calls.iter().map(|c| c.1).collect();
    durations.sort_unstable();
    let n = durations.len();
    let median_ns = durations[(n - 1) / 2];
    let threshold_ns = slow_threshold_ns(median_ns);
    let total_ns = durations.iter().fold(0i64, |a, &d| a.saturating_add(d));
    // The slow calls are the top of the sorted durations.
    let slow = &durations[durations.partition_point(|&d| d <= threshold_ns)..];
    let slow_total_ns = slow.iter().fold(0i64, |a, &d| a.saturating_add(d));
    if !is_tail(slow.len() as u64, slow_total_ns, total_ns) {
        return None;
    }
    let mut starts: Vec<i64> = calls
        .iter()
        .filter(|c| c.1 > threshold_ns)
        .map(|c| c.0)
        .collect();
    starts.sort_unstable();
    let mut intervals: Vec<i64> = starts
        .windows(2)
        .map(|w| w[1].saturating_sub(w[0]))
        .collect();
    intervals.sort_unstable();
    let quartile = |pct| rank(&intervals, pct);
    let (median, q1, q3) = (quartile(50), quartile(25), quartile(75));
    Some(Tail {
        threshold_ns,
        slow_calls: slow.len() as u64,
        slow_total_ns,
        share: slow_total_ns as f64 / total_ns as f64,
        median_ns,
        p99_ns: rank(&durations, 99),
        max_ns: durations[n - 1],
        cadence: Cadence {
            intervals: intervals.len() as u64,
            median_interval_ns: median,
            q1_interval_ns: q1,
            q3_interval_ns: q3,
            regular: intervals.len() >= CADENCE_MIN_INTERVALS
                && median > 0
                && (q3 - q1) as f64 <= REGULAR_IQR * median as f64,
        },
    })
}

/// A name's tail, and its calls.
#[derive(Clone, Debug, PartialEq)]
pub struct NamedTail {
    pub name: StrId,
    pub tail: Tail,
    /// Every call of the name, in time order (ties in file order).
    pub calls: Vec<ScopeIdx>,
}

/// The tail of every name that has one, given `stats` grouped by name over
/// every instance of `trace` (their medians pick the candidates). Ordered
/// as `stats`' rows. Linear in the instances: one pass sums each name's
/// slow calls, a second gathers the calls of the names whose slow calls
/// pass [`is_tail`], whose tails [`tail`] then computes as `calls` does.
pub fn tails_by_name(trace: &Trace, stats: &ScopeStats) -> Vec<NamedTail> {
    const NONE: u32 = u32::MAX;
    let defs = &trace.defs;
    let row_of: rustc_hash::FxHashMap<StrId, u32> = (0..stats.len())
        .map(|r| (stats.name[r], r as u32))
        .collect();
    // Per registration: its name's row.
    let def_row: Vec<u32> = (0..defs.len())
        .map(|d| row_of.get(&defs.name[d]).copied().unwrap_or(NONE))
        .collect();
    let threshold: Vec<i64> = stats
        .median_ns
        .iter()
        .map(|&m| slow_threshold_ns(m))
        .collect();
    let s = &trace.scopes;
    let mut slow = vec![(0u64, 0i64); stats.len()];
    for i in 0..s.len() {
        let r = def_row[s.def[i].idx()];
        if r != NONE && s.duration_ns[i] > threshold[r as usize] {
            let e = &mut slow[r as usize];
            e.0 += 1;
            e.1 = e.1.saturating_add(s.duration_ns[i]);
        }
    }
    // The candidates' calls, in file order.
    let mut slot = vec![NONE; stats.len()];
    let mut rows = Vec::new();
    for (r, &(n, total)) in slow.iter().enumerate() {
        if is_tail(n, total, stats.total_ns[r]) {
            slot[r] = rows.len() as u32;
            rows.push(r);
        }
    }
    if rows.is_empty() {
        return Vec::new();
    }
    let mut calls: Vec<Vec<ScopeIdx>> = rows
        .iter()
        .map(|&r| Vec::with_capacity(stats.count[r] as usize))
        .collect();
    for i in 0..s.len() {
        let r = def_row[s.def[i].idx()];
        if r != NONE && slot[r as usize] != NONE {
            calls[slot[r as usize] as usize].push(ScopeIdx(i as u32));
        }
    }
    rows.into_iter()
        .zip(calls)
        .filter_map(|(r, mut calls)| {
            let timed: Vec<(i64, i64)> = calls
                .iter()
                .map(|&i| (s.start_ns[i.idx()], s.duration_ns[i.idx()]))
                .collect();
            calls.sort_by_key(|&i| (s.start_ns[i.idx()], i.0));
            Some(NamedTail {
                name: stats.name[r],
                tail: tail(&timed)?,
                calls,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: i64 = 1_000_000;

    #[test]
    fn one_call_in_ten_slow_every_second() {
        // 0.5 ms calls every 100 ms, every tenth 20 ms: 10 slow calls, one a second.
        let calls: Vec<(i64, i64)> = (0..100)
            .map(|k| (k * 100 * MS, if k % 10 == 3 { 20 * MS } else { MS / 2 }))
            .collect();
        let t = tail(&calls).expect("a tail");
        assert_eq!((t.slow_calls, t.slow_total_ns), (10, 200 * MS));
        assert_eq!(
            (t.median_ns, t.threshold_ns, t.max_ns),
            (MS / 2, 5 * MS, 20 * MS)
        );
        assert_eq!(t.share, 200.0 / (200.0 + 45.0));
        assert_eq!(t.cadence.median_interval_ns, 1000 * MS);
        assert!(t.cadence.regular);
        assert_eq!(t.cadence.words(), "about once a second");
    }

    #[test]
    fn irregular_and_below_the_rules() {
        // Slow calls at uneven times.
        let mut calls: Vec<(i64, i64)> = (0..100).map(|k| (k * MS, MS / 10)).collect();
        for (at, k) in [(0, 3), (1, 5), (2, 40), (3, 41), (4, 90)] {
            calls[k] = (k as i64 * MS, 5 * MS + at);
        }
        let t = tail(&calls).expect("a tail");
        assert_eq!(t.slow_calls, 5);
        assert!(!t.cadence.regular);
        assert_eq!(t.cadence.words(), "irregular");
        // Two slow calls: a spike's business.
        assert_eq!(tail(&calls[..40]), None);
        // Slow by the ratio but under the floor: 0.01 ms calls, 0.5 ms ones.
        let small: Vec<(i64, i64)> = (0..50)
            .map(|k| (k * MS, if k % 5 == 0 { MS / 2 } else { MS / 100 }))
            .collect();
        assert_eq!(tail(&small), None);
        assert_eq!(tail(&[]), None);
    }
}
