//! The frame's change accounted for: the median and mean frame of A and
//! B, judged like a row's calls, and the names whose own (self) time per
//! frame on the busiest thread changed. Every name's own-time change plus
//! the change outside that thread's scopes is exactly the mean's change; the
//! names judged a change explain a share of it. The median's change is
//! accounted too, from medians of parts ([`MedianChange`]), and when a
//! spike skews a side's mean the median leads ([`Lead`]). `compare` and the
//! report answer with it.

use super::super::gaps::GapKind;
use super::super::{common::largest_first, coverage};
use super::basis::{Basis, Units};
use super::gap_diff::{GapChanges, GapVerdict};
use super::judge::{Kind, Noise, Sample, estimate};
use crate::engine::model::{ScopeIdx, StrId, StreamId, Trace};
use rustc_hash::FxHashMap;
use serde::Serialize;
use std::cmp::Reverse;
use std::collections::BTreeSet;

/// The frame's change (per second, see [`super::basis`]: the busiest
/// thread's scope time in each second takes the frame's place).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FrameChange {
    /// What a "frame" is here: `frame`, or `second`.
    pub basis: Basis,
    /// The thread the change is accounted on (the one whose scopes cover
    /// the most time in A).
    pub thread: String,
    /// Lower medians of the frame durations.
    pub median_a_ns: i64,
    pub median_b_ns: i64,
    pub delta_median_ns: i64,
    pub mean_a_ns: f64,
    pub mean_b_ns: f64,
    pub delta_mean_ns: f64,
    /// The frame durations judged like a row's calls, as measured (no
    /// drift scales the frame: it holds idle time and vsync): the typical
    /// frame's kind when its slow frames were set apart (`tail`).
    pub kind: Kind,
    /// The frame's effect (its mean; its typical frames' when its slow
    /// frames were set apart) with its interval.
    pub effect: super::effect::Effect,
    /// What `effect` is the change of: `mean` (the mean frame), `typical`
    /// (the typical frames, the slow ones set apart: `set_apart`) or
    /// `slow_frames` (the time past each side's far-out fence per frame:
    /// the typical frame did not change, the slow frames did). The mean's
    /// change is `delta_mean_ns` whichever it is.
    pub judged_by: &'static str,
    /// The frames past their side's far-out fence, judged apart
    /// ([`super::judge::Tail`]): what the typical frame's verdict leaves
    /// out. Not in the JSON: how the slow frames changed is frame pacing's
    /// (one verdict of the slow frames); `set_apart` says which were left
    /// out.
    #[serde(skip)]
    pub tail: Option<super::judge::Tail>,
    /// With the slow frames set apart (the frame judged by its typical
    /// frames): how many a side, past which fence. Their change is frame
    /// pacing's (`comparison.pacing`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub set_apart: Option<SetApart>,
    /// Names whose self time per frame on `thread` changed by at least the
    /// noise milliseconds, largest first (the first --top).
    pub contributions: Vec<Contribution>,
    pub total_contributions: usize,
    /// What the run-to-run drift accounts for of the mean's change: A's
    /// scope time per frame on `thread` times (factor − 1); 0 without drift.
    pub drift_ns: f64,
    /// Its share of the frame's movement, in percent, signed (see
    /// `parts`: never past 100% when the frame hardly moved).
    pub drift_pct: f64,
    /// The contributions of every name judged a change (listed or not),
    /// summed, beyond the drift.
    pub explained_ns: f64,
    /// `explained_ns`'s share of the frame's movement (see `parts`).
    pub explained_pct: f64,
    /// The mean's change outside `thread`'s scopes (unprofiled time, idle,
    /// other threads): the mean's change minus every name's self time.
    pub outside_scopes_ns: f64,
    /// Why the figures may mislead (frames the capture did not keep).
    pub notes: Vec<String>,
    /// The median frame's change accounted for (see [`MedianChange`]).
    pub median: MedianChange,
    /// Which of the two a reader should take first: `median` when the mean
    /// and the median moved apart (a spike skews a side's mean), `mean`
    /// otherwise (see [`Lead`]).
    pub lead: Lead,
    /// Why, in a sentence ("A's frame 20 (35.6 ms, median 8.13 ms) adds
    /// 0.46 ms to A's mean: …").
    pub lead_reason: String,
    /// The frame that skews a side's mean when the lead is the median.
    pub skew: Option<Skew>,
    /// The mean's change in signed parts that sum to it, each counted once
    /// (see docs/statistics.md, "The frame's parts").
    pub parts: Vec<FramePart>,
    /// The restructured places' own-time changes on `thread`, summed (set
    /// by the comparison that finds them; 0 otherwise).
    pub restructured_ns: f64,
    /// Names whose calls left `thread` for another thread, or came to it
    /// ([`moved`]), by name: one movement each, their work judged where it
    /// now runs (their row), their own time on `thread` a part of the
    /// frame's account (`moved_ns`), not a cause.
    pub moved: Vec<Moved>,
    /// The moved names' own-time changes on `thread`, summed.
    pub moved_ns: f64,
    /// Frames per second at A's and B's mean period (0 per second).
    pub rate_a_fps: f64,
    pub rate_b_fps: f64,
    /// The stretch on `thread` between frames (its last top-level scope's
    /// end to the next frame's start), judged as measured: per frame only.
    pub between_frames: Option<BetweenFrames>,
    /// The gaps on `thread` judged a change (new, grew, gone, shrank; see
    /// [`super::gap_diff`]), largest first: contributions of their own. One
    /// in a scope is part of that scope's own time (its contribution's
    /// `gap` says so); one at the top level is part of
    /// `outside_scopes_ns`, and is explained (`explained_ns`).
    pub gaps: Vec<GapContribution>,
}

/// The slow frames the typical frame's verdict left out (see
/// [`FrameChange::set_apart`]).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SetApart {
    pub frames_a: usize,
    pub frames_b: usize,
    /// Each side's far-out fence (`null` on a side without frames).
    pub fence_a_ns: Option<i64>,
    pub fence_b_ns: Option<i64>,
}

/// The time between frames on the frame thread: outside every scope of it,
/// part of the frame's period. On a loop paced by a clock (vsync, a frame
/// limiter) it is the rest of the period, the mirror of the work before it:
/// never a cost. On a free-running loop it is the frame's own unscoped time
/// (a sleep, a present, code without a scope): a cost like any other.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct BetweenFrames {
    pub mean_a_ns: f64,
    pub mean_b_ns: f64,
    pub effect: super::effect::Effect,
    /// Both sides' periods are paced by a clock ([`paced`]): the change is
    /// the mirror of the work's, not a cost.
    pub paced: bool,
}

/// Whether a side's frames are paced by a clock: over the frames with time
/// between them whose work (the period less the time between frames)
/// stays under the median period (a frame past it overruns any clock), the
/// periods vary by less than half as much as the work (median absolute
/// deviations). A free loop's period carries its work and the time after
/// it (it varies at least as much); a clock's absorbs the work (it hardly
/// varies). `false` with fewer than 8 such frames or work that does not
/// vary.
pub fn paced(periods_ns: &[i64], between_ns: &[i64]) -> bool {
    let mut sorted = periods_ns.to_vec();
    sorted.sort_unstable();
    let Some(&median) = sorted.get(sorted.len().saturating_sub(1) / 2) else {
        return false;
    };
    let (work, periods): (Vec<f64>, Vec<f64>) = periods_ns
        .iter()
        .zip(between_ns)
        // (A frame with no time between (a run's last, or one whose next
        // frame the capture did not keep) ends at its own end: no period.)
        .filter(|&(_, &b)| b > 0)
        .map(|(&p, &b)| ((p - b) as f64, p as f64))
        .filter(|&(w, _)| w < median as f64)
        .unzip();
    if work.len() < 8 {
        return false;
    }
    let mad = |x: &[f64]| {
        let mut v = x.to_vec();
        let m = super::effect::median(&mut v);
        let mut dev: Vec<f64> = x.iter().map(|y| (y - m).abs()).collect();
        super::effect::median(&mut dev)
    };
    let work_mad = mad(&work);
    work_mad > 0.0 && mad(&periods) < 0.5 * work_mad
}

/// A signed part of the frame's change ([`FrameChange::parts`]).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FramePart {
    /// `causes`, `between_frames`, `drift`, `restructured` or
    /// `unaccounted`.
    pub part: &'static str,
    pub delta_ns: f64,
    /// Its share of the frame's movement, signed.
    pub share_pct: f64,
}

impl FrameChange {
    /// The parts of the mean's change from the figures that hold them: the
    /// causes, the drift, the restructured time, and what is left; and
    /// `explained_pct` as the causes' share. Called whenever one of them
    /// moves.
    pub fn account(&mut self) {
        let between = self
            .between_frames
            .as_ref()
            .map_or(0.0, |b| b.mean_b_ns - b.mean_a_ns);
        let left = self.delta_mean_ns
            - self.explained_ns
            - between
            - self.drift_ns
            - self.restructured_ns
            - self.moved_ns;
        let parts = [
            ("causes", self.explained_ns),
            ("between_frames", between),
            ("drift", self.drift_ns),
            ("restructured", self.restructured_ns),
            ("moved", self.moved_ns),
            ("unaccounted", left),
        ];
        let gross: f64 = parts.iter().map(|(_, x)| x.abs()).sum();
        let share = |x: f64| super::super::common::pct(x, gross);
        self.parts = parts
            .iter()
            .map(|&(part, delta_ns)| FramePart {
                part,
                delta_ns,
                share_pct: share(delta_ns),
            })
            .collect();
        self.explained_pct = share(self.explained_ns);
        self.drift_pct = share(self.drift_ns);
    }
}

/// A changed gap on the frame thread, as a contribution.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct GapContribution {
    pub verdict: GapVerdict,
    pub kind: GapKind,
    pub path: String,
    pub after: Option<String>,
    pub before: Option<String>,
    /// The scope whose own time it is part of (`null` at the top level:
    /// outside the thread's scopes).
    pub parent: Option<String>,
    /// B − A of its mean time per frame, and of it beyond the drift.
    pub delta_per_frame_ns: f64,
    pub beyond_drift_ns: f64,
    /// B − A of its median time per frame.
    pub delta_median_per_frame_ns: i64,
    /// Other threads worked through it: a wait (see `waits`).
    pub wait: bool,
    pub sentence: String,
}

/// The median frame's change accounted for. Medians do not add up the
/// way means do, so it is built from medians of parts:
///
/// - each name's **median own time per frame**: on each side, the lower
///   median over every frame (unit) of the name's self time on the frame
///   thread in that frame (0 in a frame without it; per second, each scope's
///   self time counts in the second it starts);
/// - the **median time outside the thread's scopes** per frame: the frame's
///   duration minus every name's self time in it (unprofiled gaps between
///   top-level scopes, idle);
/// - their B − A differences. Their sum is `accounted_ns`; what the median
///   frame moved beyond it (the median of a sum is not the sum of the
///   medians: frames whose parts vary together or apart) is
///   `unexplained_ns`, reported as it is, not spread over the names.
///
/// On a steady loop every part is near its median in most frames and the
/// rest is near 0; a spike in one frame moves no median.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct MedianChange {
    /// Names whose median own time per frame changed by at least the noise
    /// milliseconds, largest |change| first (the first --top).
    pub contributions: Vec<MedianContribution>,
    pub total_contributions: usize,
    /// The median time outside the thread's scopes per frame, A and B.
    pub outside_scopes_a_ns: i64,
    pub outside_scopes_b_ns: i64,
    /// B − A of those.
    pub outside_scopes_ns: i64,
    /// Every name's median change (listed or not) plus `outside_scopes_ns`.
    pub accounted_ns: i64,
    /// `delta_median_ns − accounted_ns`.
    pub unexplained_ns: i64,
}

/// A name's median own time per frame on the frame thread, A and B.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MedianContribution {
    pub name: String,
    /// The name's judgement (by its calls' whole durations).
    pub kind: Kind,
    pub self_median_a_ns: i64,
    pub self_median_b_ns: i64,
    /// B − A.
    pub self_delta_median_ns: i64,
    /// As a contribution's `gap`: what its change is when changed gaps in
    /// it make up at least half of it (absent otherwise).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gap: Option<String>,
}

/// Which of the mean's and the median's accounting leads.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Lead {
    /// The two agree: the mean (whose parts add up exactly).
    #[default]
    Mean,
    /// They disagree by at least the noise (the noise milliseconds, or the
    /// noise percentage of the larger change): a few frames far from the
    /// rest skew a side's mean, and the median is what most frames did.
    Median,
}

/// The frame that skews a side's mean: of the side whose mean lies
/// farthest from its median, the frame (unit) farthest from that median.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Skew {
    /// `A` or `B`.
    pub side: String,
    /// The frame's position among the side's units (per second: the
    /// second's).
    pub unit: usize,
    /// The frame's `frame_index` (`null` per second).
    pub frame_index: Option<u64>,
    pub duration_ns: i64,
    /// The side's median frame.
    pub median_ns: i64,
    /// What this one frame adds to the side's mean: (duration − median) /
    /// frames.
    pub adds_to_mean_ns: f64,
    /// The side's mean minus its median.
    pub mean_minus_median_ns: f64,
    /// The slow units that skew it (`analyses::shape::slow_units`; 1 when
    /// one frame alone does), and what they add to the mean together.
    pub slow_units: usize,
    pub slow_adds_to_mean_ns: f64,
    /// Their shape when they recur: `periodic` (`every` Nth unit), or
    /// `null`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub every: Option<u32>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Contribution {
    pub name: String,
    /// The name's judgement (by its calls' whole durations).
    pub kind: Kind,
    /// B − A of its self time per frame on the thread.
    pub self_delta_per_frame_ns: f64,
    /// Of it, what is beyond the drift (its own time in A times `f − 1`
    /// taken out): what a changed name adds to the frame's causes.
    pub beyond_drift_ns: f64,
    /// When changed gaps in it (not waits) make up at least half of its
    /// own-time change: what it is ("unprofiled: the new gap between
    /// `sim::step` and `draw::batch` (+1.50 ms per frame)"), not a change
    /// per call (absent otherwise).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gap: Option<String>,
    /// Its calls moved to this thread (off the frame's), or from it (onto
    /// the frame's): its own time here is the movement's, not a cause.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub moved: Option<String>,
}

/// A name whose calls moved between the frame thread and another thread:
/// at least half of one side's calls on the frame thread are gone from it
/// (or new on it), and one other thread gained (lost) as many calls per
/// frame, within [`super::rename::CALLS_TOLERANCE`].
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Moved {
    pub name: String,
    pub from: String,
    pub to: String,
    /// Its calls per frame on the frame thread, A and B.
    pub calls_per_frame_a: f64,
    pub calls_per_frame_b: f64,
    /// B − A of its own time per frame on the frame thread.
    pub frame_thread_delta_ns: f64,
}

/// The names of `names` (run on both sides) whose calls moved between
/// `thread` and another thread (see [`Moved`]), by name; one pass over
/// each side's scopes. `frame_thread_delta_ns` is left 0 (the caller's
/// accounting sets it).
pub fn moved(a: &Trace, b: &Trace, thread: &str, names: &[&str], units: (f64, f64)) -> Vec<Moved> {
    use std::collections::BTreeMap;
    // Per name: calls per unit on `thread`, and on each other thread.
    let count = |t: &Trace, per: f64| {
        let frame_thread = t.strings.find(thread);
        let threads = t.threads.name.len();
        let on_frame: Vec<bool> = (t.threads.name.iter())
            .map(|&n| Some(n) == frame_thread)
            .collect();
        let mut on = vec![0u64; names.len()];
        // Calls per (name, thread index): counted in a table (a name looked
        // up per thread, not per call), or a map where the table would be
        // large.
        let dense = names.len().saturating_mul(threads) <= 1 << 20;
        let mut table = vec![0u64; if dense { names.len() * threads } else { 0 }];
        let mut map: FxHashMap<(usize, usize), u64> = FxHashMap::default();
        for (slot, idx) in super::super::common::calls_of_names(t, names) {
            let th = t.scope_thread(idx).idx();
            if on_frame[th] {
                on[slot] += 1;
            } else if dense {
                table[slot * threads + th] += 1;
            } else {
                *map.entry((slot, th)).or_default() += 1;
            }
        }
        let counts = (table.iter().enumerate())
            .filter(|(_, n)| **n > 0)
            .map(|(k, &n)| ((k / threads.max(1), k % threads.max(1)), n))
            .chain(map);
        let mut off: Vec<BTreeMap<String, f64>> = vec![BTreeMap::new(); names.len()];
        for ((slot, th), n) in counts {
            *off[slot]
                .entry(t.str(t.threads.name[th]).to_owned())
                .or_default() += n as f64 / per;
        }
        let on = on.into_iter().map(|n| n as f64 / per).collect::<Vec<f64>>();
        (on, off)
    };
    let ((on_a, off_a), (on_b, off_b)) = (count(a, units.0.max(1.0)), count(b, units.1.max(1.0)));
    let tol = super::rename::CALLS_TOLERANCE;
    let close = |x: f64, y: f64| (x - y).abs() <= tol * x.max(y);
    let mut out = Vec::new();
    for (k, name) in names.iter().enumerate() {
        let (ma, mb) = (on_a[k], on_b[k]);
        // Each other thread's gain in calls per unit, B − A.
        let others: BTreeSet<&String> = off_a[k].keys().chain(off_b[k].keys()).collect();
        let gain = |t: &String| {
            off_b[k].get(t).copied().unwrap_or(0.0) - off_a[k].get(t).copied().unwrap_or(0.0)
        };
        let (off, on) = (ma - mb, mb - ma);
        let pick = |sign: f64| {
            others
                .iter()
                .map(|&t| (t, sign * gain(t)))
                .max_by(|x, y| x.1.total_cmp(&y.1).then_with(|| y.0.cmp(x.0)))
        };
        let m = if off > 0.0 && off >= 0.5 * ma {
            pick(1.0)
                .filter(|&(_, g)| close(g, off))
                .map(|(t, _)| (thread.to_owned(), t.clone()))
        } else if on > 0.0 && on >= 0.5 * mb {
            pick(-1.0)
                .filter(|&(_, g)| close(g, on))
                .map(|(t, _)| (t.clone(), thread.to_owned()))
        } else {
            None
        };
        if let Some((from, to)) = m {
            out.push(Moved {
                name: (*name).to_owned(),
                from,
                to,
                calls_per_frame_a: ma,
                calls_per_frame_b: mb,
                frame_thread_delta_ns: 0.0,
            });
        }
    }
    out.sort_by(|x, y| x.name.cmp(&y.name));
    out
}

/// The streams of the threads named `id` (every stream with `None`).
fn streams_named(t: &Trace, id: Option<StrId>) -> impl Iterator<Item = StreamId> + '_ {
    let name = |st: &StreamId| t.threads.name[t.streams.thread[st.idx()].idx()];
    (0..t.streams.len() as u32)
        .map(StreamId)
        .filter(move |st| id.is_none_or(|id| name(st) == id))
}

/// Self time per scope name on the threads named `thread` (all threads
/// with `None`): summed per scope definition, then per name (a few hundred
/// strings, not one lookup per instance).
pub fn self_by_name<'t>(t: &'t Trace, thread: Option<&str>) -> FxHashMap<&'t str, i64> {
    let mut out: FxHashMap<&str, i64> = FxHashMap::default();
    let id = match thread.map(|name| t.strings.find(name)) {
        Some(None) => return out,
        id => id.flatten(),
    };
    let mut per_def = vec![0i64; t.defs.len()];
    for st in streams_named(t, id) {
        for i in t.streams.scopes(st) {
            let d = &mut per_def[t.scopes.def[i as usize].idx()];
            *d = d.saturating_add(t.scopes.self_ns[i as usize]);
        }
    }
    for (def, &ns) in per_def.iter().enumerate().filter(|(_, ns)| **ns != 0) {
        let e = out.entry(t.str(t.defs.name[def])).or_default();
        *e = e.saturating_add(ns);
    }
    out
}

/// The units' durations: the frames' periods on `thread`, start to start,
/// with the time between frames of each
/// ([`crate::engine::analyses::frames::frame_periods_ns`]); or per second
/// the time the threads named `thread` spend in top-level scopes in each
/// second (and no time between frames).
fn unit_durations(t: &Trace, units: &Units, thread: &str) -> (Vec<i64>, Option<Vec<i64>>) {
    if units.basis == Basis::Frame {
        let (periods, between) = crate::engine::analyses::frames::frame_periods_ns(t, thread);
        return (periods, Some(between));
    }
    let mut busy = vec![0i64; units.count];
    let Some(id) = t.strings.find(thread) else {
        return (busy, None);
    };
    let seconds: Vec<(i64, i64)> = units.seconds().collect();
    for st in streams_named(t, Some(id)) {
        for i in t.scopes.top_level(t.streams.scopes(st)) {
            let (s, e) = (t.scopes.start_ns[i.idx()], t.scopes.end_ns(i));
            let (first, last) = units.scope_seconds(t, i);
            let (first, last) = (first as usize, last as usize);
            for (k, b) in busy.iter_mut().enumerate().take(last + 1).skip(first) {
                let (lo, hi) = seconds[k];
                *b = b.saturating_add(e.min(hi).saturating_sub(s.max(lo)).max(0));
            }
        }
    }
    (busy, None)
}

/// Each name's self time per unit on the threads named `thread`:
/// `(name, unit, ns)` sorted by name then unit, one entry per (name, unit)
/// where it is not 0. Summed per definition a stream (or a second) at a
/// time: entries are per (frame, name), not per scope. With the names
/// that hold scopes there (their own time is not their whole).
fn self_per_unit<'t>(t: &'t Trace, units: &Units, thread: &str) -> SelfPerUnit<'t> {
    let Some(id) = t.strings.find(thread) else {
        return (Vec::new(), BTreeSet::new());
    };
    let mut parent_def = vec![false; t.defs.len()];
    let mut per_def = vec![0i64; t.defs.len()];
    let mut touched: Vec<u32> = Vec::new();
    let mut entries: Vec<(StrId, u32, i64)> = Vec::new();
    let mut flush = |per_def: &mut [i64], touched: &mut Vec<u32>, unit: u32| {
        for d in touched.drain(..) {
            let ns = std::mem::take(&mut per_def[d as usize]);
            if ns != 0 {
                entries.push((t.defs.name[d as usize], unit, ns));
            }
        }
    };
    for st in streams_named(t, Some(id)) {
        let mut current = None;
        for i in t.streams.scopes(st) {
            let unit = units.of_scope(t, ScopeIdx(i));
            if current.is_some_and(|c| c != unit) {
                flush(&mut per_def, &mut touched, current.unwrap_or(0));
            }
            current = Some(unit);
            let def = t.scopes.def[i as usize].idx();
            parent_def[def] |= t.scopes.subtree_end[i as usize] > i + 1;
            if per_def[def] == 0 {
                touched.push(def as u32);
            }
            per_def[def] = per_def[def].saturating_add(t.scopes.self_ns[i as usize]);
        }
        if let Some(unit) = current {
            flush(&mut per_def, &mut touched, unit);
        }
    }
    // Several definitions of one name, or one name's entries of a unit
    // from several streams: summed once sorted (by the name's interned id:
    // one id a name).
    entries.sort_unstable_by_key(|x| (x.0.0, x.1));
    entries.dedup_by(|next, kept| {
        let same = (next.0, next.1) == (kept.0, kept.1);
        if same {
            kept.2 = kept.2.saturating_add(next.2);
        }
        same
    });
    let entries = entries
        .into_iter()
        .map(|(n, u, ns)| (t.str(n), u, ns))
        .collect();
    let parents = (parent_def.iter().zip(&t.defs.name))
        .filter(|(p, _)| **p)
        .map(|(_, &n)| t.str(n))
        .collect();
    (entries, parents)
}

/// Where each name's entries of [`self_per_unit`] are (one run a name).
fn name_ranges<'t>(entries: &[(&'t str, u32, i64)]) -> FxHashMap<&'t str, std::ops::Range<usize>> {
    let mut out: FxHashMap<&str, std::ops::Range<usize>> = FxHashMap::default();
    let mut start = 0;
    for group in entries.chunk_by(|x, y| x.0 == y.0) {
        out.insert(group[0].0, start..start + group.len());
        start += group.len();
    }
    out
}

/// [`self_per_unit`]'s entries and the names that hold scopes.
type SelfPerUnit<'t> = (Vec<(&'t str, u32, i64)>, BTreeSet<&'t str>);

/// `name`'s own time in each of `units` (0 where it did not run), from
/// [`self_per_unit`]'s entries (one name's contiguous) and where each
/// name's are ([`name_ranges`]).
fn own_series(
    entries: &[(&str, u32, i64)],
    ranges: &FxHashMap<&str, std::ops::Range<usize>>,
    name: &str,
    units: usize,
) -> Vec<i64> {
    let mut v = vec![0i64; units];
    let range = ranges.get(name).cloned().unwrap_or_default();
    for &(_, u, ns) in &entries[range] {
        if let Some(x) = v.get_mut(u as usize) {
            *x = x.saturating_add(ns);
        }
    }
    v
}

/// One side's median parts: each name's median own time per unit, and
/// the median time outside the thread's scopes per unit.
type MedianParts<'t> = (FxHashMap<&'t str, i64>, i64);

fn median_parts<'t>(entries: &[(&'t str, u32, i64)], durations: &[i64]) -> MedianParts<'t> {
    let mut scoped = vec![0i64; durations.len()];
    let mut by_name: FxHashMap<&str, i64> = FxHashMap::default();
    let mut values: Vec<i64> = Vec::new();
    for group in entries.chunk_by(|x, y| x.0 == y.0) {
        values.clear();
        for &(_, u, ns) in group {
            if let Some(s) = scoped.get_mut(u as usize) {
                *s = s.saturating_add(ns);
            }
            values.push(ns);
        }
        by_name.insert(
            group[0].0,
            super::super::common::lower_median_padded(&mut values, durations.len()),
        );
    }
    let mut outside: Vec<i64> = durations
        .iter()
        .zip(&scoped)
        .map(|(&d, &s)| d.saturating_sub(s))
        .collect();
    (by_name, super::super::common::lower_median(&mut outside))
}

/// The median's accounting of `delta_median_ns` (see [`MedianChange`]).
fn median_change(
    ((by_a, outside_a), (by_b, outside_b)): &(MedianParts, MedianParts),
    delta_median_ns: i64,
    kind_of: &FxHashMap<&str, Kind>,
    min_ns: f64,
    top: usize,
) -> MedianChange {
    let names: BTreeSet<&str> = by_a.keys().chain(by_b.keys()).copied().collect();
    let mut all_names = 0i64;
    let mut contributions: Vec<MedianContribution> = names
        .into_iter()
        .filter_map(|n| {
            let [x, y] = [by_a, by_b].map(|p| p.get(n).copied().unwrap_or(0));
            let d = y.saturating_sub(x);
            all_names = all_names.saturating_add(d);
            (d.unsigned_abs() as f64 >= min_ns).then(|| MedianContribution {
                name: n.to_owned(),
                kind: kind_of.get(n).copied().unwrap_or_default(),
                self_median_a_ns: x,
                self_median_b_ns: y,
                self_delta_median_ns: d,
                gap: None,
            })
        })
        .collect();
    largest_first(&mut contributions, |c| {
        (c.self_delta_median_ns as f64, &c.name)
    });
    let total_contributions = contributions.len();
    contributions.truncate(top);
    let outside = outside_b.saturating_sub(*outside_a);
    let accounted = all_names.saturating_add(outside);
    MedianChange {
        contributions,
        total_contributions,
        outside_scopes_a_ns: *outside_a,
        outside_scopes_b_ns: *outside_b,
        outside_scopes_ns: outside,
        accounted_ns: accounted,
        unexplained_ns: delta_median_ns.saturating_sub(accounted),
    }
}

/// Whether the mean and the median disagree, and why: they do when their
/// changes differ by at least the noise (its milliseconds, or its
/// percentage of the larger change); the skew is then named on the side
/// whose mean lies farthest from its median, by its frame farthest from it.
fn lead(
    (a, b): (&Trace, &Trace),
    (da, db): (&[i64], &[i64]),
    (median_a, median_b): (i64, i64),
    (mean_a, mean_b): (f64, f64),
    noise: &Noise,
    basis: Basis,
) -> (Lead, String, Option<Skew>) {
    let delta_mean = mean_b - mean_a;
    let delta_median = (median_b - median_a) as f64;
    let gap = (delta_mean - delta_median).abs();
    let larger = delta_mean.abs().max(delta_median.abs());
    let threshold = super::effect::band_ns(larger, noise.pct, noise.ms);
    let unit = basis.unit();
    let moved = format!(
        "the mean {unit} moved {:+.3} ms, the median {:+.3} ms",
        delta_mean / 1e6,
        delta_median / 1e6
    );
    if gap < threshold || da.is_empty() || db.is_empty() {
        return (
            Lead::Mean,
            format!("{moved}: they agree (within the noise), and the mean's parts add up exactly"),
            None,
        );
    }
    let (skew_a, skew_b) = (mean_a - median_a as f64, mean_b - median_b as f64);
    let (side, t, d, median, skew) = if skew_a.abs() >= skew_b.abs() {
        ("A", a, da, median_a, skew_a)
    } else {
        ("B", b, db, median_b, skew_b)
    };
    let (pos, &dur) = (d.iter().enumerate())
        .max_by_key(|&(k, v)| ((v - median).unsigned_abs(), Reverse(k)))
        .expect("a side with units");
    let frame_index = (basis == Basis::Frame)
        .then(|| t.frames.frame_index.get(pos).copied())
        .flatten();
    let adds = (dur - median) as f64 / d.len() as f64;
    // Several slow units (a stall every Nth frame, or a few at random):
    // they skew the mean together, and are said as such.
    let x: Vec<f64> = d.iter().map(|&v| v as f64).collect();
    let band = super::shape::band_ns(&x, noise.pct, noise.ms);
    let hits = super::shape::slow_units(&x, band);
    let every = match super::shape::periodic(&x, band) {
        Some(super::shape::Shape::Periodic { every, .. }) => Some(every),
        _ => None,
    };
    let slow_adds: f64 = hits.iter().map(|&k| (d[k] - median) as f64).sum::<f64>() / d.len() as f64;
    // "frame 136" or "second 4".
    let slowest = frame_index.map_or_else(|| format!("{unit} {pos}"), |i| format!("frame {i}"));
    let at = format!(
        "{:.2} ms; {side}'s median {unit} {:.3} ms)",
        dur as f64 / 1e6,
        median as f64 / 1e6
    );
    let leads = format!(
        "({side}'s mean lies {:+.3} ms from its median): {moved}, so the median (what most \
         {unit}s did) leads",
        skew / 1e6
    );
    let reason = if hits.len() >= 2 {
        let which = match every {
            Some(e) => format!(
                "every {} {unit} of {side} ({} of {};",
                super::shape::ordinal(e),
                hits.len(),
                d.len()
            ),
            None => format!("{} of {side}'s {} {unit}s (", hits.len(), d.len()),
        };
        let adds = slow_adds / 1e6;
        format!(
            "{which} the slowest {slowest}, {at} skew {side}'s mean by {adds:+.3} ms together \
             {leads}"
        )
    } else {
        let adds = adds / 1e6;
        format!("{side}'s {slowest} ({at} skews {side}'s mean by {adds:+.3} ms {leads}")
    };
    (
        Lead::Median,
        reason,
        Some(Skew {
            side: side.to_owned(),
            unit: pos,
            frame_index,
            duration_ns: dur,
            median_ns: median,
            adds_to_mean_ns: adds,
            mean_minus_median_ns: skew,
            slow_units: hits.len().max(1),
            slow_adds_to_mean_ns: if hits.len() >= 2 { slow_adds } else { adds },
            every,
        }),
    )
}

/// The frame's change: medians and means, judged like a row, and the
/// mean's change accounted for by the self time per name on the busiest
/// thread (their sum and the time outside that thread's scopes add up to
/// it exactly); `kind_of`: each name's judgement (the comparison's rows by
/// name). A name that holds scopes on the thread has its own time judged
/// as its own series, but where `as_given` says its kind is final (a
/// restructured place's names: no cause).
pub fn frame_change(
    a: &Trace,
    b: &Trace,
    kind_of: &FxHashMap<&str, Kind>,
    as_given: &dyn Fn(&str) -> bool,
    noise: &Noise,
    basis: Basis,
    top: usize,
) -> FrameChange {
    let thread = crate::engine::analyses::frames::frame_thread(a, Some(b));
    let (ua, ub) = (Units::new(a, basis), Units::new(b, basis));
    let [(da, between_a), (db, between_b)] =
        [(a, &ua), (b, &ub)].map(|(t, u)| unit_durations(t, u, &thread));
    // The frame as measured (see its effect below).
    let mut judged = estimate(
        Some(&Sample::per_unit(da.clone(), &ua)),
        Some(&Sample::per_unit(db.clone(), &ub)),
        &noise.as_measured(),
    );
    let mean = |d: &[i64]| d.iter().map(|&x| x as f64).sum::<f64>() / d.len().max(1) as f64;
    let (mean_a, mean_b) = (mean(&da), mean(&db));
    let between_frames = between_a.zip(between_b).map(|(ba, bb)| {
        let (mean_a_ns, mean_b_ns) = (mean(&ba), mean(&bb));
        let paced = paced(&da, &ba) && paced(&db, &bb);
        let mut judged = estimate(
            Some(&Sample::per_unit(ba, &ua)),
            Some(&Sample::per_unit(bb, &ub)),
            &noise.as_measured(),
        );
        judged.decide(noise.alpha);
        let effect = judged.effect;
        BetweenFrames {
            mean_a_ns,
            mean_b_ns,
            effect,
            paced,
        }
    });
    let fps = |m: f64| {
        if m > 0.0 && basis == Basis::Frame {
            1e9 / m
        } else {
            0.0
        }
    };
    let delta_mean = mean_b - mean_a;
    let ((entries_a, parents_a), (entries_b, parents_b)) = crate::engine::join(
        || self_per_unit(a, &ua, &thread),
        || self_per_unit(b, &ub, &thread),
    );
    // Each name's own time on the thread: its entries summed (one walk of
    // the thread a side).
    let [sa, sb] = [&entries_a, &entries_b].map(|entries| {
        let mut out: FxHashMap<&str, i64> = FxHashMap::default();
        for &(n, _, ns) in entries.iter() {
            let e = out.entry(n).or_default();
            *e = e.saturating_add(ns);
        }
        out.retain(|_, ns| *ns != 0);
        out
    });
    let (fa, fb) = (ua.count.max(1) as f64, ub.count.max(1) as f64);
    let all_names: BTreeSet<&str> = sa.keys().chain(sb.keys()).copied().collect();
    let min_ns = (noise.ms * 1e6).max(f64::MIN_POSITIVE);
    let factor = noise.drift_factor();
    let mut profiled = 0.0;
    let own_a = |n: &str| sa.get(n).copied().unwrap_or(0) as f64 / fa;
    // Names run on both sides whose calls moved to or from the thread.
    let mut moved = {
        let both: Vec<&str> = all_names
            .iter()
            .copied()
            .filter(|n| !matches!(kind_of.get(n), Some(Kind::New | Kind::Gone)))
            .collect();
        self::moved(a, b, &thread, &both, (fa, fb))
    };
    let moved_to = |n: &str| {
        let m = moved.iter().find(|m| m.name == n)?;
        Some(if m.from == thread {
            m.to.clone()
        } else {
            m.from.clone()
        })
    };
    // A name that holds scopes here: its own time is not its whole (its
    // row's), and is judged as its own series per frame. (A leaf's own
    // time is its whole: its row's verdict.)
    let (ranges_a, ranges_b) = (name_ranges(&entries_a), name_ranges(&entries_b));
    let own_kind = |n: &str| {
        let mut judged = estimate(
            Some(&Sample::per_unit(
                own_series(&entries_a, &ranges_a, n, da.len()),
                &ua,
            )),
            Some(&Sample::per_unit(
                own_series(&entries_b, &ranges_b, n, db.len()),
                &ub,
            )),
            noise,
        );
        judged.decide(noise.alpha);
        match judged.kind {
            Kind::Spike => judged.rest.unwrap_or_default(),
            k => k,
        }
    };
    let mut contributions: Vec<Contribution> = all_names
        .iter()
        .filter_map(|&n| {
            let d = sb.get(n).copied().unwrap_or(0) as f64 / fb - own_a(n);
            profiled += d;
            let whole = kind_of.get(n).copied().unwrap_or_default();
            let parent = (parents_a.contains(n) || parents_b.contains(n)) && !as_given(n);
            (d.abs() >= min_ns).then(|| Contribution {
                name: n.to_owned(),
                kind: match whole {
                    Kind::New | Kind::Gone => whole,
                    _ if parent => own_kind(n),
                    _ => whole,
                },
                self_delta_per_frame_ns: d,
                beyond_drift_ns: d - own_a(n) * (factor - 1.0),
                gap: None,
                moved: moved_to(n),
            })
        })
        .collect();
    for m in &mut moved {
        let n = m.name.as_str();
        m.frame_thread_delta_ns = sb.get(n).copied().unwrap_or(0) as f64 / fb - own_a(n);
    }
    let moved_ns: f64 = moved.iter().map(|m| m.frame_thread_delta_ns).sum();
    largest_first(&mut contributions, |c| (c.self_delta_per_frame_ns, &c.name));
    // Explained by every name judged a change, not only the listed ones:
    // --top limits what is printed, never what is explained. A moved
    // name's own time here is the movement's (`moved_ns`).
    let explained: f64 = contributions
        .iter()
        .filter(|c| c.kind.is_change() && c.moved.is_none())
        .map(|c| c.beyond_drift_ns)
        .sum();
    let total_contributions = contributions.len();
    contributions.truncate(top);
    let scopes_a_ns = sa.values().map(|&ns| ns as f64).sum::<f64>() / fa;
    let drift_ns = scopes_a_ns * (factor - 1.0);
    // The frame's effect: the period's change as measured, what the loop
    // lives (a paced loop's clock absorbs a slower machine's work, a free
    // loop's period carries it); the drift is one of its parts (`parts`),
    // never subtracted from it. Its interval carries each name's own
    // run-to-run term, summed over the names (as independent): tau times
    // the root of their squared costs.
    // (The frame whole and its typical part: what is past the fence is
    // the frames' own, [`super::judge::Tail`].)
    {
        let names_ns = sa
            .values()
            .map(|&ns| (ns as f64 / fa).powi(2))
            .sum::<f64>()
            .sqrt();
        let typical = judged.raw.typical.as_deref_mut().map(|t| &mut t.raw.row);
        for row in std::iter::once(&mut judged.raw.row).chain(typical) {
            // (Not `hypot`: the same bits on native and wasm.)
            row.se_ns = (row.se_ns.powi(2) + (noise.tau * names_ns).powi(2)).sqrt();
        }
        judged.decide(noise.alpha);
    }
    let notes = [("A", a), ("B", b)]
        .into_iter()
        .filter_map(|(label, t)| {
            let note = coverage::frame_coverage(t)
                .as_ref()
                .and_then(coverage::absent_note)?;
            Some(format!(
                "{label} kept only some frames ({note}): puffin's FrameView keeps the recent and \
                 the slowest, so its median and mean are biased upward"
            ))
        })
        .collect();
    let [median_a, median_b] =
        [judged.median_a_ns, judged.median_b_ns].map(Option::unwrap_or_default);
    let parts = (median_parts(&entries_a, &da), median_parts(&entries_b, &db));
    let median = median_change(&parts, median_b - median_a, kind_of, min_ns, top);
    let (lead, lead_reason, skew) = lead(
        (a, b),
        (&da, &db),
        (median_a, median_b),
        (mean_a, mean_b),
        noise,
        basis,
    );
    let mut frame = FrameChange {
        basis,
        thread,
        median_a_ns: median_a,
        median_b_ns: median_b,
        delta_median_ns: median_b - median_a,
        mean_a_ns: mean_a,
        mean_b_ns: mean_b,
        delta_mean_ns: delta_mean,
        rate_a_fps: fps(mean_a),
        rate_b_fps: fps(mean_b),
        between_frames,
        // A spike of the frame is its tail's business (`tail`): the
        // frame's kind is its typical frames'.
        kind: match judged.kind {
            Kind::Spike => judged.rest.unwrap_or_default(),
            k => k,
        },
        judged_by: match judged.raw.part {
            super::judge::Part::Whole => "mean",
            super::judge::Part::Typical => "typical",
            super::judge::Part::Tail => "slow_frames",
        },
        effect: judged.effect,
        set_apart: judged.tail.as_ref().filter(|t| t.apart).map(|t| SetApart {
            frames_a: t.calls_a,
            frames_b: t.calls_b,
            fence_a_ns: t.fence_a_ns,
            fence_b_ns: t.fence_b_ns,
        }),
        tail: judged.tail,
        contributions,
        total_contributions,
        drift_ns,
        drift_pct: 0.0,
        explained_ns: explained,
        explained_pct: 0.0,
        parts: Vec::new(),
        restructured_ns: 0.0,
        moved,
        moved_ns,
        // Whole nanoseconds: what is left of summing floats is not time.
        outside_scopes_ns: (delta_mean - profiled).round(),
        notes,
        median,
        lead,
        lead_reason,
        skew,
        gaps: Vec::new(),
    };
    frame.account();
    frame
}

/// The frame's change with the changed gaps of `gaps` on its thread: each
/// a contribution of its own (`frame.gaps`), each name whose own-time
/// change they make up said to be that gap (`gap`), and the top-level ones
/// (outside the thread's scopes) explained.
pub fn with_gaps(frame: &mut FrameChange, gaps: &GapChanges) {
    // A name not judged a change whose own-time change is its judged gaps
    // (its total too wide to tell, say): the gaps explain it.
    let mut by_gaps = 0.0;
    for c in &mut frame.contributions {
        let found = gaps.own_time_words(&c.name, Some(&frame.thread), c.self_delta_per_frame_ns);
        if let Some((sum, _)) = &found
            && !c.kind.is_change()
        {
            by_gaps += sum;
        }
        c.gap = found.map(|(_, words)| words);
    }
    for c in &mut frame.median.contributions {
        c.gap = gaps
            .own_time_words(&c.name, Some(&frame.thread), c.self_delta_median_ns as f64)
            .map(|(_, words)| words);
    }
    frame.gaps = gaps
        .changed
        .iter()
        .filter(|g| g.place.thread == frame.thread)
        .map(|g| GapContribution {
            verdict: g.verdict,
            kind: g.place.kind,
            path: g.place.path.clone(),
            after: g.place.after.clone(),
            before: g.place.before.clone(),
            parent: g.in_scope().then(|| g.place.parent().to_owned()),
            delta_per_frame_ns: g.delta_per_frame_ns,
            beyond_drift_ns: g.beyond_drift_ns,
            delta_median_per_frame_ns: g.delta_median_per_frame_ns,
            wait: g.is_wait(),
            sentence: g.sentence.clone(),
        })
        .collect();
    let outside: f64 = frame
        .gaps
        .iter()
        .filter(|g| g.parent.is_none())
        .map(|g| g.beyond_drift_ns)
        .sum();
    frame.explained_ns += outside + by_gaps;
    frame.account();
}

/// The frame's account as every command tells it (`report`, `compare`, the
/// app's views): [`frame_change`] on the names' verdicts, the changed gaps
/// as parts ([`with_gaps`]), each rename one entry and each restructured
/// place on the frame's thread one entry (time that only moved between a
/// parent and the scopes it holds is no part of the change).
pub fn frame_account(
    a: &Trace,
    b: &Trace,
    names: &super::compare::Joined,
    (renamed, places): (&[super::rename::Rename], &super::restructure::Restructures),
    gaps: &GapChanges,
    top: usize,
) -> FrameChange {
    let noise = names.noise();
    // A restructured name is no change of the frame's, nor is the parent
    // of a restructured place: its own time went to the scopes it holds
    // now, and what it holds more or less is its children's (code moved).
    let restructured = |n: &str| places.is_restructured(n) || places.is_restructured_parent(n);
    let mut kinds = names.kinds_by_name();
    for (n, k) in kinds.iter_mut() {
        if restructured(n) {
            *k = Kind::Unchanged;
        }
    }
    let mut frame = frame_change(a, b, &kinds, &restructured, &noise, names.basis(), top);
    with_gaps(&mut frame, gaps);
    merge_renames(&mut frame, renamed, noise.ms * 1e6);
    merge_restructured(&mut frame, places, noise.ms * 1e6);
    frame
}

/// The frame's accounting with each rename's gone and new name as one
/// entry ("`from → to`"), kept when it moved by at least `min_ns`.
fn merge_renames(frame: &mut FrameChange, renamed: &[super::rename::Rename], min_ns: f64) {
    for r in renamed {
        merge_entries(
            frame,
            &|n| n == r.from || n == r.to,
            format!("{} → {}", r.from, r.to),
            r.change.kind,
            min_ns,
        );
    }
}

/// The frame's accounting with each restructured place on the frame's
/// thread (its parent and the new and gone names it holds) as one entry
/// ("`P` (restructured)"): time that only moved between them is no part
/// of the change; what is left of their sum, kept when it reaches
/// `min_ns`, is.
fn merge_restructured(
    frame: &mut FrameChange,
    places: &super::restructure::Restructures,
    min_ns: f64,
) {
    for (k, p) in places.places.iter().enumerate() {
        if !p.restructured || p.thread != frame.thread {
            continue;
        }
        let held = places.held_at(k as u32);
        frame.restructured_ns += frame
            .contributions
            .iter()
            .filter(|x| x.name == p.parent || held.contains(&x.name.as_str()))
            .map(|x| x.self_delta_per_frame_ns)
            .sum::<f64>();
        merge_entries(
            frame,
            &|n| n == p.parent || held.contains(&n),
            format!("{} (restructured)", p.parent),
            Kind::Unchanged,
            min_ns,
        );
    }
    frame.account();
}

/// The entries of the names `is` says yes to as one, `name`, of `kind`,
/// kept when it moved by at least `min_ns` (the mean's and the median's
/// accounting alike).
fn merge_entries(
    frame: &mut FrameChange,
    is: &dyn Fn(&str) -> bool,
    name: String,
    kind: Kind,
    min_ns: f64,
) {
    let mean: Vec<Contribution> = frame
        .contributions
        .iter()
        .filter(|x| is(&x.name))
        .cloned()
        .collect();
    if !mean.is_empty() {
        frame.contributions.retain(|x| !is(&x.name));
        frame.total_contributions -= mean.len();
        let sum: f64 = mean.iter().map(|x| x.self_delta_per_frame_ns).sum();
        if sum.abs() >= min_ns {
            frame.contributions.push(Contribution {
                name: name.clone(),
                kind,
                self_delta_per_frame_ns: sum,
                beyond_drift_ns: mean.iter().map(|x| x.beyond_drift_ns).sum(),
                gap: None,
                moved: None,
            });
            frame.total_contributions += 1;
        }
        frame.contributions.sort_by(|x, y| {
            y.self_delta_per_frame_ns
                .abs()
                .total_cmp(&x.self_delta_per_frame_ns.abs())
                .then_with(|| x.name.cmp(&y.name))
        });
    }
    let m = &mut frame.median;
    let med: Vec<MedianContribution> = m
        .contributions
        .iter()
        .filter(|x| is(&x.name))
        .cloned()
        .collect();
    if !med.is_empty() {
        m.contributions.retain(|x| !is(&x.name));
        m.total_contributions -= med.len();
        let sum: i64 = med.iter().map(|x| x.self_delta_median_ns).sum();
        if sum.unsigned_abs() as f64 >= min_ns {
            m.contributions.push(MedianContribution {
                name,
                kind,
                self_median_a_ns: med.iter().map(|x| x.self_median_a_ns).sum(),
                self_median_b_ns: med.iter().map(|x| x.self_median_b_ns).sum(),
                self_delta_median_ns: sum,
                gap: None,
            });
            m.total_contributions += 1;
        }
        m.contributions.sort_by(|x, y| {
            y.self_delta_median_ns
                .abs()
                .cmp(&x.self_delta_median_ns.abs())
                .then_with(|| x.name.cmp(&y.name))
        });
    }
}
