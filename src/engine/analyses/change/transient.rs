//! A run's phases: its leading transient (start-up), its steady state and
//! its trailing transient (shutdown); a comparison compares the steady
//! states. See docs/statistics.md, section "What time conserves" ("A run is
//! phases"). Linear in the scopes.

use super::super::common::{frames_scopes, lower_median};
use super::effect::band_ns;
use super::judge::Noise;

use crate::engine::model::{FrameId, ScopeIdx, StrId, Trace};
use crate::engine::write::escape;
use rustc_hash::FxHashMap;
use serde::Serialize;
use std::ops::Range;

/// Runs shorter than this have no transient found (16 frames: a quarter
/// of them is 4 frames, the least edge that is not one frame's noise).
pub const MIN_FRAMES: usize = 16;

/// A name called only in a transient.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct EdgeName {
    pub name: String,
    /// Its time there (its calls' durations, summed).
    pub total_ns: i64,
}

/// One edge's transient, summed over the runs.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Edge {
    pub frames: u32,
    /// The frames' durations, summed.
    pub total_ns: i64,
    /// Names called only there, costliest first, then name.
    pub names: Vec<EdgeName>,
}

/// A recording's transients and the frames of its steady state.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Transients {
    pub leading: Edge,
    pub trailing: Edge,
    /// The steady frames, one range per run (ascending).
    #[serde(skip)]
    pub steady: Vec<Range<u32>>,
}

impl Transients {
    /// No frame is left out.
    pub fn is_empty(&self) -> bool {
        self.leading.frames == 0 && self.trailing.frames == 0
    }

    /// In words ("the first 3 frames are start-up (52.100 ms in all;
    /// `assets::preload` only there)"), Markdown; `None` when empty.
    pub fn words(&self) -> Option<String> {
        let edge = |e: &Edge, what: &str, which: &str| -> Option<String> {
            (e.frames > 0).then(|| {
                let names: Vec<String> = e
                    .names
                    .iter()
                    .take(3)
                    .map(|n| escape::markdown_code(&n.name))
                    .collect();
                let more = if e.names.len() > 3 { ", …" } else { "" };
                let only = match names.len() {
                    0 => String::new(),
                    _ => format!("; {}{more} only there", names.join(", ")),
                };
                format!(
                    "the {which} {} {} {what} ({} ms in all{only})",
                    e.frames,
                    if e.frames == 1 {
                        "frame is"
                    } else {
                        "frames are"
                    },
                    crate::units::ms(e.total_ns)
                )
            })
        };
        let parts: Vec<String> = [
            edge(&self.leading, "start-up", "first"),
            edge(&self.trailing, "shutdown", "last"),
        ]
        .into_iter()
        .flatten()
        .collect();
        (!parts.is_empty()).then(|| parts.join("; "))
    }
}

/// The transients of `t`'s runs (see the module doc), with `noise`'s band.
pub fn transients(t: &Trace, noise: &Noise) -> Transients {
    let mut out = Transients::default();
    // Each name's first and last frame, and its time, per frame position:
    // one pass (per definition, then per name).
    for run in 0..t.run_count() as u32 {
        let frames = t.run_frames(run);
        let n = frames.len();
        if n < MIN_FRAMES {
            out.steady.push(frames);
            continue;
        }
        let quarter = (n / 4) as u32;
        // Per definition: first and last frame (run positions) with a call.
        let mut by_def = vec![(u32::MAX, 0u32); t.defs.len()];
        for i in frames_scopes(t, frames.clone()) {
            let s = &mut by_def[t.scopes.def[i as usize].idx()];
            let f = t.scope_frame(ScopeIdx(i)).0 - frames.start;
            *s = (s.0.min(f), s.1.max(f));
        }
        // Per name: a name is only at an edge when each of its definitions
        // is (two definitions can share a name).
        let mut by_name: FxHashMap<StrId, (u32, u32)> = FxHashMap::default();
        for (d, &(f, l)) in by_def.iter().enumerate().filter(|(_, s)| s.0 != u32::MAX) {
            let e = by_name.entry(t.defs.name[d]).or_insert((u32::MAX, 0));
            *e = (e.0.min(f), e.1.max(l));
        }
        // Work only at an edge: names from the run's first frame on (its
        // last frame back), all within its first (last) quarter, then the
        // names that begin inside what they span (a staged start-up: load,
        // then compile, then warm a cache), until none is added. A name
        // called once in the middle of the first quarter is an event of
        // the steady state, not start-up.
        let spans: Vec<(u32, u32)> = by_name.values().copied().collect();
        let lead = grow_edge(&spans, |&(f, l)| (l < quarter).then_some((f, l + 1)));
        let n32 = n as u32;
        let trail = grow_edge(&spans, |&(f, l)| {
            (f >= n32 - quarter).then_some((n32 - 1 - l, n32 - f))
        });
        // Frames off the steady state, at each edge.
        let frame_ns = |f: u32| t.frames.duration_ns(FrameId(f));
        let dur: Vec<i64> = frames.clone().map(frame_ns).collect();
        let mut middle: Vec<i64> = dur[quarter as usize..n - quarter as usize].to_vec();
        let median = lower_median(&mut middle);
        let mut dev: Vec<i64> = middle.iter().map(|&x| (x - median).abs()).collect();
        let mad = lower_median(&mut dev) as f64 * 1.4826;
        let band = band_ns(median as f64, noise.pct, noise.ms).max(3.0 * mad);
        // A transient frame is one the steady state never shows: past the
        // band and past the middle's slowest frame (a stall the run repeats
        // that lands on an edge is no start-up or shutdown).
        let slowest = middle.iter().copied().max().unwrap_or(median);
        let off = |x: i64| x as f64 > median as f64 + band && x > slowest;
        // Off frames from an edge, within its quarter, that settle there: a
        // streak that fills the whole quarter is a level the run holds (a
        // step through it), not a transient.
        let off_at = |from: &mut dyn Iterator<Item = &i64>| {
            let k = from.take(quarter as usize).take_while(|&&x| off(x)).count() as u32;
            if k < quarter { k } else { 0 }
        };
        let lead = lead.max(off_at(&mut dur.iter()));
        let trail = trail.max(off_at(&mut dur.iter().rev()));
        let steady = frames.start + lead..frames.end - trail;
        // What each edge holds.
        for (edge, range, k) in [
            (&mut out.leading, frames.start..steady.start, lead),
            (&mut out.trailing, steady.end..frames.end, trail),
        ] {
            if k == 0 {
                continue;
            }
            edge.frames += k;
            edge.total_ns += range.clone().map(frame_ns).sum::<i64>();
            // The names called only in this edge, with their time.
            let mut totals: FxHashMap<StrId, i64> = by_name
                .iter()
                .filter(|&(_, &(f, l))| {
                    f + frames.start >= range.start && l + frames.start < range.end
                })
                .map(|(&name, _)| (name, 0))
                .collect();
            // Their time: the edge's scopes only (contiguous).
            for i in frames_scopes(t, range.clone()) {
                let name = t.defs.name[t.scopes.def[i as usize].idx()];
                if let Some(x) = totals.get_mut(&name) {
                    *x += t.scopes.duration_ns[i as usize];
                }
            }
            for (name, total) in totals {
                let text = t.str(name);
                match edge.names.iter_mut().find(|x| x.name == text) {
                    Some(x) => x.total_ns += total,
                    None => edge.names.push(EdgeName {
                        name: text.to_owned(),
                        total_ns: total,
                    }),
                }
            }
        }
        out.steady.push(steady);
    }
    for e in [&mut out.leading, &mut out.trailing] {
        e.names
            .sort_by(|x, y| (y.total_ns, &x.name).cmp(&(x.total_ns, &y.name)));
    }
    out
}

/// How far an edge's work only there reaches: `at` maps a name's span to
/// (its distance from the edge, how many frames from the edge it covers)
/// when it lies within the edge's quarter. From the names at the edge
/// (distance 0), then the names that begin inside what those cover, until
/// none is added.
fn grow_edge(spans: &[(u32, u32)], at: impl Fn(&(u32, u32)) -> Option<(u32, u32)>) -> u32 {
    let mut k = 0u32;
    loop {
        let next = spans
            .iter()
            .filter_map(&at)
            .filter(|&(from, _)| from == 0 || from < k)
            .map(|(_, covers)| covers)
            .fold(k, u32::max);
        if next == k {
            return k;
        }
        k = next;
    }
}

/// Two recordings' transients and steady states (what a comparison reads).
#[derive(Default)]
pub struct SteadyPair {
    pub a: Transients,
    pub b: Transients,
    steady_a: Option<Trace>,
    steady_b: Option<Trace>,
}

impl SteadyPair {
    /// The transients of `a` and `b`, and their steady states.
    pub fn of(a: &Trace, b: &Trace, noise: &Noise) -> Self {
        let (ta, tb) = (transients(a, noise), transients(b, noise));
        // Each without its transients' frames (a copy; `None`: none).
        let steady = |t: &Trace, tr: &Transients| {
            (!tr.is_empty()).then(|| crate::engine::model::keep_frames(t, &tr.steady))
        };
        Self {
            steady_a: steady(a, &ta),
            steady_b: steady(b, &tb),
            a: ta,
            b: tb,
        }
    }

    /// The steady states of `a` and `b` (the traces this was made of).
    pub fn traces<'t>(&'t self, a: &'t Trace, b: &'t Trace) -> (&'t Trace, &'t Trace) {
        (
            self.steady_a.as_ref().unwrap_or(a),
            self.steady_b.as_ref().unwrap_or(b),
        )
    }

    /// What the comparison left out, in a sentence (Markdown): "start-up
    /// in A only: …; the comparison is of the steady states"; `None` when
    /// nothing was.
    pub fn words(&self) -> Option<String> {
        let (wa, wb) = (self.a.words(), self.b.words());
        let which = match (&wa, &wb) {
            (None, None) => return None,
            (Some(_), None) => "in A only",
            (None, Some(_)) => "in B only",
            (Some(_), Some(_)) => "in both",
        };
        let what = match (
            self.a.leading.frames + self.b.leading.frames > 0,
            self.a.trailing.frames + self.b.trailing.frames > 0,
        ) {
            (true, false) => "start-up",
            (false, true) => "shutdown",
            _ => "start-up and shutdown",
        };
        let sides: Vec<String> = [("A", wa), ("B", wb)]
            .into_iter()
            .filter_map(|(side, w)| Some(format!("{side}: {}", w?)))
            .collect();
        Some(format!(
            "{what} {which} ({}), left out: the comparison is of the steady states, never a \
             change",
            sides.join("; ")
        ))
    }
}
