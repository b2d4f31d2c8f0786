//! A run over time: each thread's busy time per time bucket, for a
//! recording whose frames say nothing about when it worked (an unframed
//! one, see [`super::change::basis`]: the Rerun SDK's one 10 s frame). A
//! thread is busy while one of its top-level scopes runs (their union, so
//! nested and overlapping scopes count once); a bucket's busy time is that
//! union's overlap with the bucket, at most the bucket's width.
//!
//! The buckets run from the first frame's start to the last frame's end
//! (the span [`super::change::basis::unframed`] reports), [`bucket_ns_for`]
//! wide, the last one cut at the end.

use crate::engine::model::Trace;
use serde::Serialize;

/// At most this many buckets (a chart's width in bars).
pub const MAX_BUCKETS: i64 = 200;
/// The narrowest bucket.
pub const MIN_BUCKET_NS: i64 = 1_000_000;

/// One thread's busy time per bucket.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ThreadBusy {
    /// The thread's name ("" for an unnamed one).
    pub thread: String,
    /// Per bucket, the time its top-level scopes cover in it.
    pub busy_ns: Vec<i64>,
}

/// Every thread's busy time over the recording's span, bucketed.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct BusyOverTime {
    /// The first bucket's start: the first frame's start.
    pub start_ns: i64,
    /// The last bucket's end: the last frame's end.
    pub end_ns: i64,
    /// Each bucket's width (the last one may be cut at `end_ns`).
    pub bucket_ns: i64,
    /// Threads with a top-level scope in the span, by name.
    pub threads: Vec<ThreadBusy>,
}

impl BusyOverTime {
    /// How many buckets there are.
    pub fn buckets(&self) -> usize {
        bucket_count(self.end_ns - self.start_ns, self.bucket_ns)
    }

    /// Bucket `k`'s `[start, end)` in ns (the last one cut at `end_ns`).
    pub fn bucket(&self, k: usize) -> (i64, i64) {
        let lo = self.start_ns + k as i64 * self.bucket_ns;
        (lo, (lo + self.bucket_ns).min(self.end_ns))
    }
}

fn bucket_count(span_ns: i64, bucket_ns: i64) -> usize {
    if span_ns <= 0 || bucket_ns <= 0 {
        0
    } else {
        (span_ns as u64).div_ceil(bucket_ns as u64) as usize
    }
}

/// A round bucket width (1, 2 or 5 times a power of ten ns, at least
/// [`MIN_BUCKET_NS`]) giving at most [`MAX_BUCKETS`] buckets over
/// `span_ns`: 100 ms for a 10 s run, 1 s for a few minutes.
pub fn bucket_ns_for(span_ns: i64) -> i64 {
    let mut unit = MIN_BUCKET_NS;
    loop {
        for m in [1, 2, 5] {
            let w = unit.saturating_mul(m);
            if span_ns <= w.saturating_mul(MAX_BUCKETS) || w == i64::MAX {
                return w;
            }
        }
        unit = unit.saturating_mul(10);
    }
}

/// The union of `intervals` (`[start, end)`, any order, overlaps allowed)
/// distributed over `buckets` buckets of `bucket_ns` from `start_ns`, the
/// last one cut at `end_ns`: per bucket, the time the union covers in it.
/// O(n log n) for unsorted intervals, O(n + buckets) for sorted ones.
pub fn busy_buckets(
    intervals: &mut [(i64, i64)],
    start_ns: i64,
    end_ns: i64,
    bucket_ns: i64,
) -> Vec<i64> {
    let n = bucket_count(end_ns - start_ns, bucket_ns);
    let mut out = vec![0i64; n];
    if n == 0 {
        return out;
    }
    if !intervals.is_sorted() {
        intervals.sort_unstable();
    }
    let mut add = |a: i64, b: i64| {
        // [a, b) clipped to the span, then split at bucket edges.
        let (mut a, b) = (a.max(start_ns), b.min(end_ns));
        while a < b {
            let k = ((a - start_ns) / bucket_ns) as usize;
            let edge = (start_ns + (k as i64 + 1) * bucket_ns).min(b);
            out[k] += edge - a;
            a = edge;
        }
    };
    let mut run: Option<(i64, i64)> = None;
    for &(a, b) in intervals.iter() {
        if b <= a {
            continue;
        }
        run = match run {
            Some((lo, hi)) if a <= hi => Some((lo, hi.max(b))),
            Some((lo, hi)) => {
                add(lo, hi);
                Some((a, b))
            }
            None => Some((a, b)),
        };
    }
    if let Some((lo, hi)) = run {
        add(lo, hi);
    }
    out
}

/// Each thread's busy time (its top-level scopes' union, same-named
/// threads together) per bucket of `bucket_ns` over the recording's span
/// (first frame's start to last frame's end). Threads by name; empty for
/// a recording without frames.
pub fn busy_over_time(trace: &Trace, bucket_ns: i64) -> BusyOverTime {
    let r = &trace.frames.range_ns;
    let (Some(start_ns), Some(end_ns)) = (r.iter().map(|r| r.0).min(), r.iter().map(|r| r.1).max())
    else {
        return BusyOverTime::default();
    };
    let end_ns = end_ns.max(start_ns);
    let threads: Vec<ThreadBusy> = (super::waits::WaitIndex::of(trace).threads.iter())
        .filter_map(|t| {
            let mut v: Vec<(i64, i64)> = t.by_start.iter().map(|&(a, b, _)| (a, b)).collect();
            let inside = v.iter().any(|&(a, b)| b > a && b > start_ns && a < end_ns);
            inside.then(|| ThreadBusy {
                thread: trace.str(t.thread).to_owned(),
                busy_ns: busy_buckets(&mut v, start_ns, end_ns, bucket_ns),
            })
        })
        .collect();
    BusyOverTime {
        start_ns,
        end_ns,
        bucket_ns,
        threads,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: i64 = 1_000_000;

    #[test]
    fn union_split_at_bucket_edges() {
        // Buckets of 10 ms over [0, 25): 10, 10, 5 wide.
        let mut v = vec![
            (12 * MS, 14 * MS), // inside the second, overlapped below
            (2 * MS, 8 * MS),
            (5 * MS, 13 * MS),  // overlaps both neighbours: 2-14 once
            (20 * MS, 30 * MS), // cut at the end
            (-5 * MS, MS),      // cut at the start
            (9 * MS, 9 * MS),   // empty
        ];
        let b = busy_buckets(&mut v, 0, 25 * MS, 10 * MS);
        assert_eq!(b, vec![MS + 8 * MS, 4 * MS, 5 * MS]);
        for (k, busy) in b.iter().enumerate() {
            let width = (25 * MS - k as i64 * 10 * MS).min(10 * MS);
            assert!(*busy <= width);
        }
        assert!(busy_buckets(&mut [], 0, 0, MS).is_empty());
        assert_eq!(busy_buckets(&mut [], 0, MS, MS), vec![0]);
    }

    #[test]
    fn round_widths() {
        assert_eq!(bucket_ns_for(0), MS);
        assert_eq!(bucket_ns_for(200 * MS), MS);
        assert_eq!(bucket_ns_for(201 * MS), 2 * MS);
        // The Rerun SDK's 10.4 s run: 100 ms buckets, 104 of them.
        let w = bucket_ns_for(10_378 * MS);
        assert_eq!(w, 100 * MS);
        assert_eq!(bucket_count(10_378 * MS, w), 104);
        // An hour: 20 s.
        assert_eq!(bucket_ns_for(3_600_000 * MS), 20_000 * MS);
        assert!(bucket_ns_for(i64::MAX) > 0);
    }
}
