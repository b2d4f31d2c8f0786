//! What a comparison's "per frame" is. An app that ends a puffin frame per
//! display refresh has frames of 5-300 ms, and per-frame figures are what
//! its user reads. An app that never ends one (the Rerun SDK, a server, a
//! batch job) has one frame covering its whole run, or a few far longer
//! than their scopes: per frame there means per run, and statistics over
//! its frames have n = 1.
//!
//! The rule: a recording is **unframed** when its median frame lasts at
//! least [`UNFRAMED_MEDIAN_FRAME_NS`] (1 s). A comparison with an unframed
//! side is judged **per second** on both sides: each side's run is cut into
//! one-second bins from its first frame's start, and the bins take the
//! frames' place everywhere (calls per bin, cost per bin, the rank test of
//! calls per bin, the accounting of the busiest thread's scope time per
//! bin, the gate's threshold as a percentage of a second).

use crate::engine::model::{ScopeIdx, Trace};
use serde::Serialize;

/// A median frame at least this long: the recording is unframed.
pub const UNFRAMED_MEDIAN_FRAME_NS: i64 = 1_000_000_000;
/// The bin of the per-second basis.
pub const SECOND_NS: i64 = 1_000_000_000;

/// What a comparison's figures are per.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Basis {
    /// Per frame of the recording.
    #[default]
    Frame,
    /// Per second of the recording (a side is unframed).
    Second,
}

impl Basis {
    /// Per frame of both, or per second when either is unframed.
    pub fn of(a: &Trace, b: &Trace) -> Self {
        if unframed(a).is_some() || unframed(b).is_some() {
            Basis::Second
        } else {
            Basis::Frame
        }
    }

    /// "frame" or "second", for sentences ("per frame").
    pub fn unit(self) -> &'static str {
        match self {
            Basis::Frame => "frame",
            Basis::Second => "second",
        }
    }
}

/// Why a recording is unframed.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Unframed {
    pub frames: usize,
    /// The lower median frame.
    pub median_frame_ns: i64,
    /// From the first frame's start to the last frame's end.
    pub span_ns: i64,
}

impl Unframed {
    /// The sentence a report leads with.
    pub fn sentence(&self) -> String {
        let span = format!("{:.1} s", self.span_ns as f64 / 1e9);
        if self.frames == 1 {
            format!(
                "One frame covers the whole {span} run (the app never ends a puffin frame): \
                 figures are per second, and per-frame statistics are left out."
            )
        } else {
            format!(
                "{} frames cover the {span} run, with a median of {:.1} s (frames far longer \
                 than their scopes): figures are per second, and per-frame statistics are left out.",
                self.frames,
                self.median_frame_ns as f64 / 1e9
            )
        }
    }
}

/// `Some` when `t` is unframed (see the module's rule).
pub fn unframed(t: &Trace) -> Option<Unframed> {
    let f = &t.frames;
    if f.is_empty() {
        return None;
    }
    let mut d: Vec<i64> = f.ids().map(|i| f.duration_ns(i)).collect();
    let median = super::super::common::lower_median(&mut d);
    (median >= UNFRAMED_MEDIAN_FRAME_NS).then(|| {
        let (lo, hi) = span(&f.range_ns);
        Unframed {
            frames: f.len(),
            median_frame_ns: median,
            span_ns: hi.saturating_sub(lo),
        }
    })
}

/// The first start and the last end of frame ranges `r`.
fn span(r: &[(i64, i64)]) -> (i64, i64) {
    let lo = r.iter().map(|r| r.0).min().unwrap_or(0);
    let hi = r.iter().map(|r| r.1).max().unwrap_or(lo);
    (lo, hi.max(lo))
}

/// A recording's units on a basis: how many there are, which one each
/// scope falls in (by its start), and which run each belongs to (a side
/// of several recordings, [`crate::engine::model::concat`]: per second,
/// each run has bins of its own, so the time between runs is no unit).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Units {
    pub basis: Basis,
    /// Per second: each run's first bin's start and its first unit.
    run_starts: Vec<(i64, u32)>,
    /// Per frame: each run's first frame (after the first), as the trace's.
    frame_runs: Vec<u32>,
    /// Frames, or one-second bins (at least 1 a run for a recording with
    /// frames).
    pub count: usize,
}

impl Units {
    pub fn new(t: &Trace, basis: Basis) -> Self {
        match basis {
            Basis::Frame => Self {
                basis,
                run_starts: Vec::new(),
                frame_runs: t.runs.clone(),
                count: t.frames.len(),
            },
            Basis::Second => {
                let mut run_starts = Vec::new();
                let mut count = 0u32;
                for k in 0..t.run_count() as u32 {
                    let frames = t.run_frames(k);
                    if frames.is_empty() {
                        continue;
                    }
                    let (lo, hi) =
                        span(&t.frames.range_ns[frames.start as usize..frames.end as usize]);
                    run_starts.push((lo, count));
                    count += ((hi - lo) as u64).div_ceil(SECOND_NS as u64).max(1) as u32;
                }
                Self {
                    basis,
                    run_starts,
                    frame_runs: Vec::new(),
                    count: count as usize,
                }
            }
        }
    }

    /// The unit scope `i` starts in: its frame's position, or its second
    /// (in its run's bins).
    pub fn of_scope(&self, t: &Trace, i: ScopeIdx) -> u32 {
        match self.basis {
            Basis::Frame => t.scope_frame(i).0,
            Basis::Second => {
                let run = t.run_of_frame(t.scope_frame(i)) as usize;
                self.second_in_run(run, t.scopes.start_ns[i.idx()])
            }
        }
    }

    /// The unit of `ns` in run `run`'s seconds (clamped to its bins).
    fn second_in_run(&self, run: usize, ns: i64) -> u32 {
        let Some(&(start, first)) = self.run_starts.get(run) else {
            return 0;
        };
        let k = (ns.saturating_sub(start).max(0) / SECOND_NS) as u64;
        first + k.min(u64::from(self.run_end(run).saturating_sub(first + 1))) as u32
    }

    /// Per second: the unit after run `run`'s last.
    fn run_end(&self, run: usize) -> u32 {
        self.run_starts
            .get(run + 1)
            .map_or(self.count as u32, |r| r.1)
    }

    /// Per second: the first and last units scope `i` overlaps.
    pub fn scope_seconds(&self, t: &Trace, i: ScopeIdx) -> (u32, u32) {
        let run = t.run_of_frame(t.scope_frame(i)) as usize;
        (
            self.second_in_run(run, t.scopes.start_ns[i.idx()]),
            self.second_in_run(run, t.scopes.end_ns(i)),
        )
    }

    /// The first unit of each run after the first (empty: one run).
    pub fn run_starts(&self) -> Vec<u32> {
        match self.basis {
            Basis::Frame => self.frame_runs.clone(),
            Basis::Second => self.run_starts.iter().skip(1).map(|r| r.1).collect(),
        }
    }

    /// Each unit's `[start, end)` per second (empty per frame).
    pub fn seconds(&self) -> impl Iterator<Item = (i64, i64)> + '_ {
        self.run_starts
            .iter()
            .enumerate()
            .flat_map(move |(k, &(start, first))| {
                (0..i64::from(self.run_end(k) - first)).map(move |j| {
                    let s = start + j * SECOND_NS;
                    (s, s + SECOND_NS)
                })
            })
    }
}

/// The mean frame duration of `trace` (0 without frames).
pub fn mean_frame_ns(trace: &Trace) -> f64 {
    let f = &trace.frames;
    if f.is_empty() {
        return 0.0;
    }
    f.ids().map(|i| f.duration_ns(i) as f64).sum::<f64>() / f.len() as f64
}
