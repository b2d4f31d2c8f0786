//! Gaps judged across A and B: each place of unprofiled time ([`GapPlace`])
//! matched between the recordings, its time per frame judged as a row is
//! ([`super::judge`]; a frame without it counts 0): new, gone, grew, shrank
//! or unchanged. Idle stretches and the time between frames are not judged
//! ([`NOT_JUDGED`]). See docs/cli.md, "unprofiled gaps judged across A and
//! B". Linear: the stretches interned into places by ids, one sort of the
//! occurrences, one hash join of the places by their names.

use super::super::common::largest_first;
use super::super::gaps::{
    BusyThread, GapKind, GapPlace, Paths, PlaceId, RECURRING_FLOOR_NS, RecurringGap, ThreadRoles,
    busy_threads, for_each_stretch,
};
use super::super::waits::WaitIndex;
use super::basis::{Basis, Units};
use super::judge::{
    Change, Kind, Noise, Sample, Sums, decide_family, estimate, needs_calls, untested,
};
use crate::engine::model::{ScopeIdx, StrId, StreamId, Trace};
use crate::engine::write::escape;
use rustc_hash::FxHashMap;
use serde::Serialize;
use std::collections::BTreeMap;

/// What a comparison of gaps leaves out, in words (the JSON's
/// `not_judged`).
pub const NOT_JUDGED: &str = "idle stretches (threads that run tasks, waiting for work) and the time \
                              between frames (the frame's own part: frame.between_frames)";

/// The recurring gaps of A and B matched by place: `(A's, B's)`, either
/// side `None` where only the other has it; sorted by place.
pub fn match_recurring<'g>(
    a: &'g [RecurringGap],
    b: &'g [RecurringGap],
) -> Vec<(GapPlace, Option<&'g RecurringGap>, Option<&'g RecurringGap>)> {
    let mut by_place: BTreeMap<GapPlace, (Option<&RecurringGap>, Option<&RecurringGap>)> =
        BTreeMap::new();
    for g in a {
        by_place.entry(g.place.clone()).or_default().0 = Some(g);
    }
    for g in b {
        by_place.entry(g.place.clone()).or_default().1 = Some(g);
    }
    by_place.into_iter().map(|(p, (x, y))| (p, x, y)).collect()
}

/// A place's verdict.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum GapVerdict {
    /// Only in B (beyond the noise milliseconds per frame).
    New,
    /// More time per frame in B, beyond the noise.
    Grew,
    /// Only in A.
    Gone,
    /// Less time per frame in B, beyond the noise.
    Shrank,
    /// Within noise.
    Unchanged,
}

impl GapVerdict {
    pub fn as_str(self) -> &'static str {
        match self {
            GapVerdict::New => "new",
            GapVerdict::Grew => "grew",
            GapVerdict::Gone => "gone",
            GapVerdict::Shrank => "shrank",
            GapVerdict::Unchanged => "unchanged",
        }
    }

    /// New or grew: more unprofiled time, a cause of its own.
    pub fn is_growth(self) -> bool {
        matches!(self, GapVerdict::New | GapVerdict::Grew)
    }
}

/// One side of a place.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct GapSide {
    /// Frames (units of the basis) with the gap, of `frames`.
    pub frames_with: usize,
    pub frames: usize,
    /// Occurrences (a frame may have several).
    pub occurrences: u64,
    /// Lower median of its time per frame over the frames with it (`null`
    /// without any).
    pub median_ns: Option<i64>,
    /// Lower median of its time per frame over every frame (0 in a frame
    /// without it).
    pub median_per_frame_ns: i64,
    /// Its total over every frame, divided by them.
    pub mean_per_frame_ns: f64,
    pub total_ns: i64,
    pub max_ns: i64,
    /// What the other threads ran in its occurrences, summed; busiest
    /// first (empty: other threads idle).
    pub other_threads: Vec<BusyThread>,
}

/// A place judged.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct GapChange {
    #[serde(flatten)]
    pub place: GapPlace,
    pub verdict: GapVerdict,
    pub a: GapSide,
    pub b: GapSide,
    /// B − A of the mean time per frame.
    pub delta_per_frame_ns: f64,
    /// Of it, beyond the run-to-run drift (what the verdict judges).
    pub beyond_drift_ns: f64,
    /// B − A of the median time per frame (every frame counted).
    pub delta_median_per_frame_ns: i64,
    /// The other threads were idle in its occurrences (in B; in A when
    /// gone).
    pub other_threads_idle: bool,
    /// The judgement behind the verdict (as a scope row's, each frame's
    /// time in it one "call"). In JSON `judged`, its numbers without the
    /// row's kind (the verdict is the gap's kind: a scope row's "slower"
    /// would read as a cost per call).
    #[serde(rename = "judged", serialize_with = "judged_numbers")]
    pub change: Change,
    /// In a sentence.
    pub sentence: String,
}

/// A gap's [`Change`] as JSON: its numbers, not its kind.
fn judged_numbers<S: serde::Serializer>(c: &Change, s: S) -> Result<S::Ok, S::Error> {
    let mut v = serde_json::to_value(c).map_err(serde::ser::Error::custom)?;
    if let Some(o) = v.as_object_mut() {
        o.remove("kind");
        o.remove("rest");
    }
    v.serialize(s)
}

/// The gap places of A and B judged.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct GapChanges {
    /// What a "frame" is here (`frame`, or `second`).
    pub basis: Basis,
    /// Places in A or B.
    pub places: usize,
    /// Every place judged new, grew, gone or shrank: largest |change beyond
    /// the drift| per frame first, ties by place.
    pub changed: Vec<GapChange>,
    /// Places judged unchanged: the first --top, most time per frame (the
    /// larger side's mean) first, ties by place.
    pub unchanged: Vec<GapChange>,
    pub total_unchanged: usize,
    /// What is left out ([`NOT_JUDGED`]).
    pub not_judged: &'static str,
}

impl GapChanges {
    /// The changed gaps of `g`'s scope (its thread and name, wherever it
    /// runs; not waits), summed beyond the drift: a scope's unprofiled time
    /// is its own time, conserved as a whole, so a stretch that only moved
    /// (between neighbours, a place gone and another new; or with its scope,
    /// code moved to another caller) sums to about nothing.
    pub fn scope_net_ns(&self, g: &GapChange) -> f64 {
        let (thread, scope) = (&g.place.thread, g.place.parent());
        (self.changed.iter())
            .filter(|x| !x.is_wait() && x.place.thread == *thread && x.place.parent() == scope)
            .map(|x| x.beyond_drift_ns)
            .sum()
    }

    /// These changes less the gaps inside a place's parent (restructured
    /// ones only with `restructured_only`; see [`super::restructure`]): such
    /// a gap is the parent's remaining own time, which the place's row
    /// weighs, no change of its own.
    pub fn without_places(
        &self,
        places: &super::restructure::Restructures,
        restructured_only: bool,
    ) -> Self {
        let mut out = self.clone();
        out.changed.retain(|g| {
            let p = &g.place;
            !(g.in_scope() && places.has_place(&p.thread, &p.path, restructured_only))
        });
        out
    }

    /// Of a scope name's own-time change per frame (beyond the drift), what
    /// the changed gaps (not waits) inside scopes named `parent` on the
    /// threads named `thread` (any with `None`) that changed the same way
    /// explain, summed; the largest of them, and how many they are: `None`
    /// when none did.
    pub fn explains<'s>(
        &'s self,
        parent: &str,
        thread: Option<&str>,
        own_beyond_drift_ns: f64,
    ) -> Option<(f64, &'s GapChange, usize)> {
        let gaps: Vec<&GapChange> = (self.changed.iter())
            .filter(|g| g.in_scope() && g.place.parent() == parent && !g.is_wait())
            .filter(|g| thread.is_none_or(|t| g.place.thread == t))
            .filter(|g| g.beyond_drift_ns.signum() == own_beyond_drift_ns.signum())
            .collect();
        let sum = gaps.iter().map(|g| g.beyond_drift_ns).sum();
        Some((sum, *gaps.first()?, gaps.len()))
    }

    /// What a scope name's own-time change is when its changed gaps (not
    /// waits) make up at least half of it: "unprofiled: the new gap between
    /// `sim::step` and `draw::batch` (+1.50 ms per frame)", and what they
    /// explain per frame.
    pub fn own_time_words(
        &self,
        parent: &str,
        thread: Option<&str>,
        own_delta_ns: f64,
    ) -> Option<(f64, String)> {
        let (sum, main, count) = self.explains(parent, thread, own_delta_ns)?;
        if own_delta_ns == 0.0 || sum.abs() * 2.0 < own_delta_ns.abs() {
            return None;
        }
        let more = match count - 1 {
            0 => String::new(),
            others => format!(" and {others} more"),
        };
        Some((
            sum,
            format!("unprofiled: {}{more}", main.short(self.basis.unit())),
        ))
    }
}

impl GapChange {
    /// In a scope (leading, between, trailing): part of its own time.
    pub fn in_scope(&self) -> bool {
        matches!(
            self.place.kind,
            GapKind::Leading | GapKind::Between | GapKind::Trailing
        )
    }

    /// Another thread worked for at least half of its time (in B; in A when
    /// gone), or the other threads did between them (workers that ran one
    /// after another): a wait for that work (see [`super::super::waits`]), whose
    /// cause is the work, not code without a scope.
    pub fn is_wait(&self) -> bool {
        let side = self.side();
        let busy = side
            .other_threads
            .iter()
            .map(|t| t.busy_ns)
            .fold(0i64, i64::saturating_add);
        side.total_ns > 0 && busy.saturating_mul(2) >= side.total_ns
    }

    /// B's side, or A's when the gap is gone.
    pub fn side(&self) -> &GapSide {
        if self.verdict == GapVerdict::Gone {
            &self.a
        } else {
            &self.b
        }
    }

    /// In a few words: "the new gap between `sim::step` and `draw::batch`
    /// (+1.50 ms per frame)".
    pub fn short(&self, unit: &str) -> String {
        format!(
            "the {} gap {} ({:+.2} ms per {unit})",
            match self.verdict {
                GapVerdict::Grew => "grown",
                GapVerdict::Shrank => "shrunk",
                v => v.as_str(),
            },
            self.place.words(),
            self.delta_per_frame_ns / 1e6
        )
    }
}

/// A side's places and occurrences, by ids.
struct Side {
    /// Each place's key (ids of this trace) and a scope of its first
    /// occurrence for its names: (parent, after, before).
    places: Vec<(PlaceId, [Option<ScopeIdx>; 3])>,
    /// (place, unit, start, end), sorted.
    occ: Vec<(u32, u32, i64, i64)>,
    /// Each place's run of occurrences in `occ`.
    runs: Vec<std::ops::Range<usize>>,
    units: Units,
}

impl Side {
    /// The occurrences of place `k` (none without one).
    fn occ_of(&self, k: Option<u32>) -> &[(u32, u32, i64, i64)] {
        k.map_or(&[], |k| &self.occ[self.runs[k as usize].clone()])
    }
}

fn side(trace: &Trace, basis: Basis) -> Side {
    let units = Units::new(trace, basis);
    let roles = ThreadRoles::of(trace);
    let mut paths = Paths::new(trace);
    let mut index: FxHashMap<PlaceId, u32> = FxHashMap::default();
    let mut places: Vec<(PlaceId, [Option<ScopeIdx>; 3])> = Vec::new();
    let mut occ: Vec<(u32, u32, i64, i64)> = Vec::new();
    for st in 0..trace.streams.len() as u32 {
        let thread: StrId = trace.threads.name[trace.streams.thread[st as usize].idx()];
        for_each_stretch(trace, &roles, StreamId(st), RECURRING_FLOOR_NS, |x| {
            if x.kind == GapKind::Idle {
                return;
            }
            let Some(at) = x.parent.or(x.after).or(x.before) else {
                return;
            };
            let key = paths.place(trace, thread, x.kind, [x.parent, x.after, x.before]);
            let k = *index.entry(key).or_insert_with(|| {
                places.push((key, [x.parent, x.after, x.before]));
                places.len() as u32 - 1
            });
            occ.push((k, units.of_scope(trace, at), x.start_ns, x.end_ns));
        });
    }
    occ.sort_unstable();
    let mut runs = vec![0..0; places.len()];
    let mut at = 0;
    for run in occ.chunk_by(|x, y| x.0 == y.0) {
        runs[run[0].0 as usize] = at..at + run.len();
        at += run.len();
    }
    Side {
        places,
        occ,
        runs,
        units,
    }
}

/// One side of one place from its occurrences (sorted by unit): its time
/// in each unit with it (in unit order), its sums as a row of one call a
/// unit (the units' count, the total, the longest unit), and its figures.
fn side_of(occ: &[(u32, u32, i64, i64)], units: &Units) -> (Vec<(u32, i64)>, Sums, GapSide) {
    let mut per_unit: Vec<(u32, i64)> = Vec::new();
    let (mut total, mut longest) = (0i64, 0i64);
    for &(_, u, s, e) in occ {
        let d = e.saturating_sub(s);
        total = total.saturating_add(d);
        longest = longest.max(d);
        match per_unit.last_mut() {
            Some((last, sum)) if *last == u => *sum = sum.saturating_add(d),
            _ => per_unit.push((u, d)),
        }
    }
    let mut sorted: Vec<i64> = per_unit.iter().map(|x| x.1).collect();
    let with = sorted.len();
    let frames = units.count.max(with);
    // Lower median over every unit, the units without it 0 (which sorts them).
    let median_all = super::super::common::lower_median_padded(&mut sorted, frames);
    let gs = GapSide {
        frames_with: with,
        frames: units.count,
        occurrences: occ.len() as u64,
        median_ns: with.checked_sub(1).map(|n| sorted[n / 2]),
        median_per_frame_ns: median_all,
        mean_per_frame_ns: total as f64 / units.count.max(1) as f64,
        total_ns: total,
        max_ns: longest,
        other_threads: Vec::new(),
    };
    let sums = Sums {
        count: frames as u64,
        total_ns: total,
        max_ns: sorted.last().copied().unwrap_or(0),
    };
    (per_unit, sums, gs)
}

/// A side's time per unit as the judge's sample: one "call" a unit, its
/// time in it (0 in a unit without the gap).
fn sample(per_unit: &[(u32, i64)], units: &Units) -> Sample {
    let mut durations_ns = vec![0i64; units.count];
    for &(u, d) in per_unit {
        if let Some(x) = durations_ns.get_mut(u as usize) {
            *x = x.saturating_add(d);
        }
    }
    Sample::per_unit(durations_ns, units)
}

/// The verdict of a judged place (`has_a`, `has_b`: it occurs on that side).
fn verdict(c: &Change, has_a: bool, has_b: bool, noise: &Noise) -> GapVerdict {
    let past_ms = c.delta_per_frame_ns.abs() >= (noise.ms * 1e6).max(f64::MIN_POSITIVE);
    let direction = |kind: Kind| {
        if !kind.is_change() {
            // Unchanged, or inconclusive (its `change.effect` says so).
            GapVerdict::Unchanged
        } else if c.beyond_drift_ns() > 0.0 {
            GapVerdict::Grew
        } else {
            GapVerdict::Shrank
        }
    };
    match (has_a, has_b) {
        (false, true) if past_ms => GapVerdict::New,
        (true, false) if past_ms => GapVerdict::Gone,
        (true, true) => match c.kind {
            // One occurrence is most of the time: the others decide.
            Kind::Spike => direction(c.rest.unwrap_or(Kind::Unchanged)),
            k => direction(k),
        },
        _ => GapVerdict::Unchanged,
    }
}

fn ms(ns: impl Into<f64>) -> String {
    format!("{:.2}", ns.into() / 1e6)
}

/// What the other threads ran, in words ("other threads idle", "while
/// pool-0 (`job::cloth`), pool-1 (`job::cloth`) ran").
fn meanwhile(busy: &[BusyThread]) -> String {
    if busy.is_empty() {
        return "other threads idle".to_owned();
    }
    let list: Vec<String> = busy
        .iter()
        .take(3)
        .map(|t| match t.scopes.first() {
            Some(s) => format!(
                "{} ({})",
                thread_md(&t.thread),
                escape::markdown_code(&s.name)
            ),
            None => thread_md(&t.thread),
        })
        .collect();
    let more = match busy.len().saturating_sub(3) {
        0 => String::new(),
        more => format!(" and {more} more"),
    };
    format!("while {}{more} ran", list.join(", "))
}

/// A thread's label as Markdown text (escaped; `""` is "(unnamed)").
fn thread_md(thread: &str) -> String {
    escape::markdown(crate::units::thread_label(thread)).into_owned()
}

/// The place's change in one sentence, Markdown (names as code spans, the
/// thread escaped): what the report, `compare` and the JSON's `sentence`
/// give.
fn sentence(g: &GapChange, unit: &str) -> String {
    let place = g.place.words();
    let thread = thread_md(&g.place.thread);
    let (a, b) = (&g.a, &g.b);
    let meanwhile = meanwhile(&g.side().other_threads);
    // Code without a scope unless another thread worked for at least half
    // of it (then a wait for that work).
    let idle = !g.is_wait();
    let med = |s: &GapSide| ms(s.median_ns.unwrap_or(0) as f64);
    let frames = |s: &GapSide| format!("{} of {} {unit}s", s.frames_with, s.frames);
    let per_frame = format!("{:+.2} ms per {unit}", g.delta_per_frame_ns / 1e6);
    match g.verdict {
        GapVerdict::New => format!(
            "{thread}: a new unprofiled stretch {place}, {} ms in {} (none in A), {meanwhile}: {}",
            med(b),
            frames(b),
            if idle {
                "code without a scope, or a blocking call, added by the change"
            } else {
                "a wait for the other threads' work, or code without a scope, added by the change"
            }
        ),
        GapVerdict::Gone => format!(
            "{thread}: the unprofiled stretch {place} is gone ({} ms in {} in A, in 0 of {} in \
             B), {meanwhile} in A: code without a scope, or a blocking call, removed by the change",
            med(a),
            frames(a),
            b.frames
        ),
        GapVerdict::Grew | GapVerdict::Shrank => format!(
            "{thread}: the unprofiled stretch {place} {} from {} to {} ms per {unit} on average \
             ({per_frame}; median {} -> {} ms per {unit} in {} in A, {} in B; longest single \
             stretch {} -> {} ms), \
             {meanwhile}: {}",
            g.verdict.as_str(),
            ms(a.mean_per_frame_ns),
            ms(b.mean_per_frame_ns),
            med(a),
            med(b),
            frames(a),
            frames(b),
            ms(a.max_ns as f64),
            ms(b.max_ns as f64),
            match (g.verdict == GapVerdict::Grew, idle) {
                (true, true) => "more code without a scope, or a longer blocking call",
                (true, false) => "a longer wait for the other threads' work (see its waits_for)",
                (false, true) => "less code without a scope, or a shorter blocking call",
                (false, false) => "a shorter wait for the other threads' work",
            }
        ),
        GapVerdict::Unchanged => format!(
            "{thread}: the unprofiled stretch {place}, {} ms in {} in A and {} ms in {} in B: \
             unchanged (within noise)",
            med(a),
            frames(a),
            med(b),
            frames(b)
        ),
    }
}

/// The places of `a` and `b` by their names: `(place, A's index, B's
/// index)`.
fn joined(
    (a, sa): (&Trace, &Side),
    (b, sb): (&Trace, &Side),
) -> Vec<(GapPlace, Option<u32>, Option<u32>)> {
    let named = |t: &Trace, &(key, scopes): &(PlaceId, [Option<ScopeIdx>; 3])| {
        GapPlace::of(t, t.str(StrId(key.0)).to_owned(), key.1, scopes)
    };
    let mut by_place: FxHashMap<GapPlace, (Option<u32>, Option<u32>)> = FxHashMap::default();
    for (k, p) in sa.places.iter().enumerate() {
        by_place.entry(named(a, p)).or_default().0 = Some(k as u32);
    }
    for (k, p) in sb.places.iter().enumerate() {
        by_place.entry(named(b, p)).or_default().1 = Some(k as u32);
    }
    by_place.into_iter().map(|(p, (x, y))| (p, x, y)).collect()
}

/// The gap places of `a` and `b` judged against `noise` (its drift
/// resolved, as the comparison's rows are judged) per unit of `basis`:
/// every changed place, and the first `top` unchanged ones.
pub fn gap_changes(a: &Trace, b: &Trace, noise: &Noise, basis: Basis, top: usize) -> GapChanges {
    let (sa, sb) = (side(a, basis), side(b, basis));
    let frames = (sa.units.count, sb.units.count);
    // Each place's estimates, then every place decided as one family.
    let mut estimated: Vec<_> = joined((a, &sa), (b, &sb))
        .into_iter()
        .map(|(place, ka, kb)| {
            let of = |s: &Side, k: Option<u32>| side_of(s.occ_of(k), &s.units);
            let (x, y) = (of(&sa, ka), of(&sb, kb));
            let (has_a, has_b) = (ka.is_some(), kb.is_some());
            let change = match (has_a, has_b) {
                (true, true) if needs_calls(x.1, y.1, frames, noise) => estimate(
                    Some(&sample(&x.0, &sa.units)),
                    Some(&sample(&y.0, &sb.units)),
                    noise,
                ),
                _ => untested(
                    has_a.then_some(x.1),
                    has_b.then_some(y.1),
                    frames,
                    noise,
                    sa.units.basis,
                ),
            };
            (place, ka, kb, x, y, change)
        })
        .collect();
    decide_family(estimated.iter_mut().map(|e| &mut e.5), noise.alpha);
    type Row = (GapChange, Option<u32>, Option<u32>);
    let judged = estimated.into_iter().map(|(place, ka, kb, x, y, change)| {
        let g = GapChange {
            place,
            verdict: verdict(&change, ka.is_some(), kb.is_some(), noise),
            delta_per_frame_ns: y.2.mean_per_frame_ns - x.2.mean_per_frame_ns,
            beyond_drift_ns: change.beyond_drift_ns(),
            delta_median_per_frame_ns: y
                .2
                .median_per_frame_ns
                .saturating_sub(x.2.median_per_frame_ns),
            a: x.2,
            b: y.2,
            other_threads_idle: true,
            change,
            sentence: String::new(),
        };
        (g, ka, kb)
    });
    let by_place = |x: &Row, y: &Row| x.0.place.cmp(&y.0.place);
    let (mut changed, unchanged): (Vec<Row>, Vec<Row>) =
        judged.partition(|g| g.0.verdict != GapVerdict::Unchanged);
    largest_first(&mut changed, |g| (g.0.beyond_drift_ns, &g.0.place));
    let most = |g: &Row| g.0.a.mean_per_frame_ns.max(g.0.b.mean_per_frame_ns);
    let by_most = |x: &Row, y: &Row| most(y).total_cmp(&most(x)).then_with(|| by_place(x, y));
    let total_unchanged = unchanged.len();
    // Places are distinct: a total order.
    let mut unchanged = super::super::common::first_n(unchanged, top, by_most);
    // What ran meanwhile, for the listed places only.
    // (Indexed only when a place is listed: a worst case has none.)
    let (ia, ib) = if !changed.is_empty() || !unchanged.is_empty() {
        (WaitIndex::of(a), WaitIndex::of(b))
    } else {
        (WaitIndex::default(), WaitIndex::default())
    };
    let busy = |t: &Trace, s: &Side, k: Option<u32>, ix: &WaitIndex, thread: &str| {
        let w: Vec<(i64, i64)> = s.occ_of(k).iter().map(|o| (o.2, o.3)).collect();
        busy_threads(t, ix, t.strings.find(thread), &w)
    };
    let unit = basis.unit();
    for (g, ka, kb) in changed.iter_mut().chain(unchanged.iter_mut()) {
        g.a.other_threads = busy(a, &sa, *ka, &ia, &g.place.thread);
        g.b.other_threads = busy(b, &sb, *kb, &ib, &g.place.thread);
        g.other_threads_idle = g.side().other_threads.is_empty();
        g.sentence = sentence(g, unit);
    }
    let strip = |v: Vec<Row>| v.into_iter().map(|x| x.0).collect();
    GapChanges {
        basis,
        places: changed.len() + total_unchanged,
        changed: strip(changed),
        unchanged: strip(unchanged),
        total_unchanged,
        not_judged: NOT_JUDGED,
    }
}
