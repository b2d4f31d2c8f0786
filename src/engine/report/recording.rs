//! One recording's sections of the report: its registration, totals, hot
//! paths, outliers (one call or a burst, the tail), slowest frames and
//! gaps, each from the api's answers.

use super::text::msu;
use super::{
    FrameShape, HotPath, HotStep, NamedShape, Outlier, RecordingReport, RegistrationCheck,
    ReportOptions, TotalRow, ask, to_value,
};
use crate::engine::Decoded;
use crate::engine::analyses::basis::unframed;
use crate::engine::analyses::basis::{Basis, Units};
use crate::engine::analyses::calls::calls_of;
use crate::engine::analyses::common::{named_instances_of, spike};
use crate::engine::analyses::coverage;
use crate::engine::analyses::find::{GroupBy, InstanceRow};
use crate::engine::analyses::shape::{self, classify_runs, series_by_name};
use crate::engine::analyses::stats::scope_stats;
use crate::engine::analyses::tail::{NamedTail, tails_by_name};
use crate::engine::analyses::tree::MergedTree;
use crate::engine::api::{self, Answer};
use crate::engine::model::{ScopeIdx, StrId, Trace};
use crate::engine::write::escape;
use rustc_hash::FxHashMap;
use serde_json::{Value, json};
use std::fmt::Write as _;

pub(super) fn recording(
    label: &str,
    name: &str,
    d: &Decoded,
    tree: &MergedTree,
    opts: ReportOptions,
) -> RecordingReport {
    let t = &d.trace;
    let summary = api::summary(name, d);
    let unregistered_ids: Vec<u32> = {
        let defs = &t.defs;
        let mut v: Vec<u32> = (0..defs.len())
            .filter(|&i| !defs.kind[i].is_registered())
            .map(|i| defs.raw_id[i])
            .collect();
        v.sort_unstable();
        v
    };
    let warning = if !t.defs.has_registration() && !t.scopes.is_empty() {
        "NO SCOPE REGISTRATION: every scope is named scope#<id>, so names say nothing about \
         the code. The recording was saved without the scope registrations (puffin 0.16+ sends \
         them with the first frame a client or file gets): record again from the start, or \
         compare ids with `puffin-lens scope FILE ID` on a recording that has them."
            .to_owned()
    } else {
        coverage::unregistered_note(&coverage::unregistered_ids(t)).unwrap_or_default()
    };
    // Overlapping frames (`new_frame` inside a scope): each frame's range
    // mixes two, so the frame time is the late thread's own.
    let overlap = summary.overlapping_frames.clone();
    let mut durations: Vec<i64> = match &overlap {
        Some(o) => crate::engine::analyses::frames::thread_frame_ns(t, &o.thread),
        None => t.frames.ids().map(|f| t.frames.duration_ns(f)).collect(),
    };
    let frame_durations_ns = durations.clone();
    durations.sort_unstable();
    let median_frame_ns = durations
        .get(durations.len().saturating_sub(1) / 2)
        .copied()
        .unwrap_or(0);
    let n = opts.top;
    let stats = scope_stats(t, 0..t.frames.len() as u32, None, GroupBy::Name, None);
    let mut totals: Vec<TotalRow> = (0..stats.name.len())
        .map(|i| TotalRow {
            name: t.str(stats.name[i]).to_owned(),
            count: stats.count[i],
            total_ns: stats.total_ns[i],
            self_ns: stats.self_ns[i],
            p95_ns: stats.p95_ns[i],
            max_ns: stats.max_ns[i],
        })
        .collect();
    totals.sort_by(|x, y| {
        y.total_ns
            .cmp(&x.total_ns)
            .then_with(|| x.name.cmp(&y.name))
    });
    let heaviest = heaviest_frames(t);
    let tails: FxHashMap<&str, NamedTail> = tails_by_name(t, &stats)
        .into_iter()
        .map(|x| (t.str(x.name), x))
        .collect();
    // The calls of the names with one call or a burst to show, found in
    // one pass.
    let shown: Vec<&str> = totals
        .iter()
        .filter(|r| one_call_or_burst_shown(r, &heaviest))
        .map(|r| r.name.as_str())
        .collect();
    let mut instances: FxHashMap<&str, Vec<ScopeIdx>> = shown
        .iter()
        .copied()
        .zip(named_instances_of(t, &shown))
        .collect();
    let outliers: Vec<Outlier> = totals
        .iter()
        .flat_map(|r| {
            let one = instances
                .remove(r.name.as_str())
                .and_then(|hits| one_call_or_burst(t, r, &heaviest, hits));
            let tail = tails
                .get(r.name.as_str())
                .and_then(|x| tail_outlier(t, r, x));
            one.into_iter().chain(tail)
        })
        .collect();
    let total_names = totals.len();
    let (over_time, frame_shape) = over_time(t, &totals, &frame_durations_ns, opts);
    totals.truncate(n);
    let (slowest_scopes, total_slowest_scopes) = slowest_per_name(t, n);
    let gaps = ask("gaps", json!({ "min_ms": opts.gap_ms, "top": n }), d, None);
    // The first child is the largest (children by total, then name).
    let hot_paths = tree
        .threads
        .iter()
        .map(|&th| {
            let mut steps = Vec::new();
            let mut level = tree.children(th);
            let mut stop = None;
            let thread_ns = tree.total_ns[th.idx()];
            while let Some(&n) = level.first() {
                let self_ns = tree.self_ns[n.idx()];
                steps.push(HotStep {
                    name: tree.label(t, n).to_owned(),
                    count: tree.count[n.idx()],
                    total_ns: tree.total_ns[n.idx()],
                    self_ns,
                });
                level = tree.children(n);
                // Its own code costs more than any child: the path ends here.
                if let Some(&c) = level.first()
                    && self_ns > tree.total_ns[c.idx()]
                {
                    stop = Some(format!(
                        "{}: {} self, {:.0}% of the thread's time, more than its largest child ({} {}): the time is in its own code, or unprofiled",
                        tree.label(t, n),
                        msu(self_ns),
                        100.0 * self_ns as f64 / thread_ns.max(1) as f64,
                        tree.label(t, c),
                        msu(tree.total_ns[c.idx()])
                    ));
                    break;
                }
            }
            HotPath {
                thread: tree.label(t, th).to_owned(),
                steps,
                stop,
            }
        })
        .collect();
    let mut r = RecordingReport {
        headline: String::new(),
        label: label.to_owned(),
        recording_start_ns: summary.recording_start_ns,
        summary,
        registration: RegistrationCheck {
            has_registration: t.defs.has_registration(),
            unregistered_ids,
            warning,
        },
        median_frame_ns,
        period: crate::engine::analyses::pacing::period_brief(t),
        slowest_frames: to_value(ask("frames", json!({ "top": n }), d, None)),
        slowest_frame_threads: to_value(ask("threads", json!({}), d, None)),
        slowest_scopes,
        total_slowest_scopes,
        totals,
        total_names,
        hot_paths,
        recurring_gaps: match &gaps {
            Some(Answer::Gaps(g)) => g.recurring.clone(),
            _ => Vec::new(),
        },
        gaps: to_value(gaps),
        outliers,
        median_note: coverage::frame_coverage(t)
            .as_ref()
            .and_then(coverage::absent_note)
            .map(|note| {
                format!(
                    "the capture kept only some frames ({note}; puffin's FrameView keeps the \
                     recent and the slowest): the median is biased upward"
                )
            })
            .or_else(|| {
                overlap.as_ref().map(|o| {
                    format!(
                        "frames overlap (new_frame is called inside a scope): each frame's time \
                         here is {}'s own (its top-level scopes), not the frame's range, which \
                         mixes two frames",
                        o.thread
                    )
                })
            }),
        frame_durations_ns,
        unframed: unframed(t),
        frames_absent_note: coverage::frame_coverage(t)
            .as_ref()
            .and_then(coverage::absent_note),
        over_time,
        frame_shape,
        // Compared, both sides' pacing is the comparison's.
        pacing: if label.is_empty() {
            super::pacing(d, None, &opts.noise, Default::default())
        } else {
            None
        },
    };
    r.headline = recording_headline(&r);
    r
}

/// One recording in a sentence: "300 frames, median period 16.667 ms (60 fps;
/// the frame's scopes span 9.842 ms); the slowest period 35.600 ms (frame 20,
/// 2.1x the median); the most own time: `render` 8.120 ms a frame." (names in
/// backticks; per second when unframed; a single frame, which has no period:
/// its span).
pub fn recording_headline(r: &RecordingReport) -> String {
    let s = &r.summary;
    let ms = |ns: f64| format!("{:.3} ms", ns / 1e6);
    let top = r
        .totals
        .iter()
        .max_by(|x, y| x.self_ns.cmp(&y.self_ns).then_with(|| y.name.cmp(&x.name)));
    let (per, units) = match &r.unframed {
        Some(_) => ("a second", (s.span_ns as f64 / 1e9).max(1e-9)),
        None => ("a frame", (s.frames as f64).max(1.0)),
    };
    let mut out = match &r.unframed {
        Some(_) => format!(
            "{} scopes over {}, no frames",
            s.scopes,
            ms(s.span_ns as f64)
        ),
        // The frame is its period: the headline leads with it, and the
        // scopes' span is said beside it.
        None if r.period.is_some() => {
            let p = r.period.as_ref().expect("checked");
            format!(
                "{} frames, median period {} ({} fps; the frame's scopes span {}); the slowest \
                 period {} (frame {}, {:.1}x the median)",
                s.frames,
                ms(p.median_ns as f64),
                p.median_fps,
                ms(r.median_frame_ns as f64),
                ms(p.worst.duration_ns as f64),
                p.worst.frame_index,
                p.worst.duration_ns as f64 / p.median_ns.max(1) as f64
            )
        }
        None => {
            let mut o = format!(
                "{} frames, median {}",
                s.frames,
                ms(r.median_frame_ns as f64)
            );
            if let Some(f) = r.slowest_frames.get(0) {
                let d = f["duration_ns"].as_i64().unwrap_or(0);
                let _ = write!(
                    o,
                    "; the slowest {} (frame {}, {:.1}x the median)",
                    ms(d as f64),
                    f["frame_index"].as_u64().unwrap_or(0),
                    d as f64 / r.median_frame_ns.max(1) as f64
                );
            }
            o
        }
    };
    if let Some(t) = top {
        let _ = write!(
            out,
            "; the most own time: {} {} {per}",
            escape::markdown_code(&t.name),
            ms(t.self_ns as f64 / units)
        );
    }
    out.push('.');
    out
}

/// Names classed over time: the heaviest this many (by total).
pub const SHAPED_NAMES: usize = 30;

/// The heaviest names' shapes through the run (those not steady), and the
/// frame durations' shape with the names that share it.
fn over_time(
    t: &Trace,
    totals: &[TotalRow],
    frame_durations_ns: &[i64],
    opts: ReportOptions,
) -> (Vec<NamedShape>, Option<FrameShape>) {
    let framed = unframed(t).is_none();
    let basis = if framed { Basis::Frame } else { Basis::Second };
    let units = Units::new(t, basis);
    let names: Vec<&str> = totals
        .iter()
        .take(SHAPED_NAMES)
        .map(|r| r.name.as_str())
        .collect();
    let runs = units.run_starts();
    let (pct, ms) = (opts.noise.pct, opts.noise.ms);
    let shaped: Vec<NamedShape> = series_by_name(t, &units, &names)
        .iter()
        .zip(&names)
        .filter_map(|(x, &name)| {
            let shape = classify_runs(x, &runs, shape::band_ns(x, pct, ms));
            (!shape.is_steady()).then(|| NamedShape {
                name: name.to_owned(),
                words: shape.words(basis.unit(), x.len()),
                shape,
            })
        })
        .collect();
    let frame_shape = framed.then(|| {
        let x: Vec<f64> = frame_durations_ns.iter().map(|&d| d as f64).collect();
        // A stall every Nth frame is the frames' shape even when they also
        // grow or step (the names' rows carry those).
        let band = shape::band_ns(&x, pct, ms);
        let shape = match (runs.is_empty(), shape::periodic(&x, band)) {
            (true, Some(p)) => p,
            _ => classify_runs(&x, &runs, band),
        };
        (!shape.is_steady()).then(|| {
            let names: Vec<String> = shaped
                .iter()
                .filter(|s| shape::same_moment(&shape, &s.shape))
                .map(|s| s.name.clone())
                .collect();
            FrameShape {
                words: shape::frame_words(&shape, x.len(), &names),
                shape,
                names,
            }
        })
    });
    (shaped, frame_shape.flatten())
}

/// `r`'s outlier of kind `call` (one call is more than half of its total)
/// or `burst` (one frame's calls are), if it is one.
/// Whether [`one_call_or_burst`] shows `r`: one call, or one frame's
/// calls, more than half its total.
fn one_call_or_burst_shown(r: &TotalRow, heaviest: &FxHashMap<&str, (u64, u64, i64, u64)>) -> bool {
    spike(r.count, r.max_ns, r.total_ns) || burst(r, heaviest).is_some()
}

fn burst(
    r: &TotalRow,
    heaviest: &FxHashMap<&str, (u64, u64, i64, u64)>,
) -> Option<(u64, u64, i64, u64)> {
    heaviest
        .get(r.name.as_str())
        .copied()
        .filter(|&(_, count, total, frames)| {
            count >= 2 && frames >= 2 && total.saturating_mul(2) > r.total_ns
        })
}

fn one_call_or_burst(
    t: &Trace,
    r: &TotalRow,
    heaviest: &FxHashMap<&str, (u64, u64, i64, u64)>,
    hits: Vec<ScopeIdx>,
) -> Option<Outlier> {
    let call = spike(r.count, r.max_ns, r.total_ns);
    let burst = burst(r, heaviest);
    if !call && burst.is_none() {
        return None;
    }
    let calls = calls_of(t, hits)?;
    let worst = calls
        .calls
        .iter()
        .max_by_key(|c| (c.duration_ns, std::cmp::Reverse(c.start_ns)))?;
    let (frame_index, thread, start_ns, in_frame, frame_total) = match burst.filter(|_| !call) {
        Some((f, count, total, _)) => {
            let first = calls.calls.iter().find(|c| c.frame_index == f)?;
            (f, first.thread.clone(), first.start_ns, count, total)
        }
        None => {
            let in_frame = calls
                .calls
                .iter()
                .filter(|c| c.frame_index == worst.frame_index);
            let (count, total) =
                in_frame.fold((0u64, 0i64), |(n, s), c| (n + 1, s + c.duration_ns));
            (
                worst.frame_index,
                worst.thread.clone(),
                worst.start_ns,
                count,
                total,
            )
        }
    };
    Some(Outlier {
        name: r.name.clone(),
        kind: if call { "call" } else { "burst" },
        count: r.count,
        total_ns: r.total_ns,
        max_ns: r.max_ns,
        max_share: if call { r.max_ns } else { frame_total } as f64 / r.total_ns.max(1) as f64,
        frame_index,
        thread,
        start_ns,
        calls_in_frame: in_frame,
        frame_total_ns: frame_total,
        calls_ns: calls.calls.iter().map(|c| c.duration_ns).collect(),
        tail: None,
    })
}

/// `r`'s outlier of kind `tail`: its largest call's frame and thread, as
/// for a `call`.
fn tail_outlier(t: &Trace, r: &TotalRow, x: &NamedTail) -> Option<Outlier> {
    let s = &t.scopes;
    let worst = *x.calls.iter().max_by_key(|&&i| {
        (
            s.duration_ns[i.idx()],
            std::cmp::Reverse(s.start_ns[i.idx()]),
        )
    })?;
    let frame = t.scope_frame(worst);
    let (in_frame, frame_total) = x
        .calls
        .iter()
        .filter(|&&i| t.scope_frame(i) == frame)
        .fold((0u64, 0i64), |(n, sum), &i| {
            (n + 1, sum.saturating_add(s.duration_ns[i.idx()]))
        });
    Some(Outlier {
        name: r.name.clone(),
        kind: "tail",
        count: r.count,
        total_ns: r.total_ns,
        max_ns: r.max_ns,
        max_share: x.tail.share,
        tail: Some(x.tail.clone()),
        frame_index: t.frames.frame_index[frame.idx()],
        thread: t.thread_name(t.scope_thread(worst)).to_owned(),
        start_ns: s.start_ns[worst.idx()],
        calls_in_frame: in_frame,
        frame_total_ns: frame_total,
        calls_ns: x.calls.iter().map(|&i| s.duration_ns[i.idx()]).collect(),
    })
}

/// Per name, the frame whose calls of it sum highest: (frame_index, calls
/// there, their total, frames with a call).
fn heaviest_frames(t: &Trace) -> FxHashMap<&str, (u64, u64, i64, u64)> {
    let mut per: FxHashMap<(StrId, u32), (u64, i64)> = FxHashMap::default();
    for i in 0..t.scopes.len() {
        let name = t.defs.name[t.scopes.def[i].idx()];
        let frame = t.scope_frame(ScopeIdx(i as u32)).0;
        let e = per.entry((name, frame)).or_default();
        e.0 += 1;
        e.1 = e.1.saturating_add(t.scopes.duration_ns[i]);
    }
    let mut out: FxHashMap<&str, (u64, u64, i64, u64)> = FxHashMap::default();
    for ((name, frame), (count, total)) in per {
        let fi = t.frames.frame_index[frame as usize];
        let e = out.entry(t.str(name)).or_insert((fi, count, total, 0));
        e.3 += 1;
        // Ties: the earlier frame (by index), so the answer is one.
        if (total, std::cmp::Reverse(fi)) > (e.2, std::cmp::Reverse(e.0)) {
            (e.0, e.1, e.2) = (fi, count, total);
        }
    }
    out
}

/// The slowest call of each name, slowest first (ties by earlier start):
/// the first `n` as `top`'s rows, and how many names there are. Top-level
/// scopes with children (a thread's frame scope, which would fill the list
/// once per frame) are left out; a worker's top-level job stays.
fn slowest_per_name(t: &Trace, n: usize) -> (Value, usize) {
    let s = &t.scopes;
    let mut best: FxHashMap<StrId, ScopeIdx> = FxHashMap::default();
    for i in 0..s.len() {
        if s.depth[i] == 0 && s.subtree_end[i] as usize > i + 1 {
            continue;
        }
        let name = t.defs.name[s.def[i].idx()];
        let key = |k: usize| {
            (
                s.duration_ns[k],
                std::cmp::Reverse(s.start_ns[k]),
                std::cmp::Reverse(k),
            )
        };
        best.entry(name)
            .and_modify(|b| {
                if key(i) > key(b.idx()) {
                    *b = ScopeIdx(i as u32);
                }
            })
            .or_insert(ScopeIdx(i as u32));
    }
    let total = best.len();
    let mut rows: Vec<ScopeIdx> = best.into_values().collect();
    rows.sort_by_key(|&i| {
        (
            std::cmp::Reverse(s.duration_ns[i.idx()]),
            s.start_ns[i.idx()],
            i.0,
        )
    });
    rows.truncate(n);
    let rows: Vec<InstanceRow> = rows.into_iter().map(|i| InstanceRow::new(t, i)).collect();
    (serde_json::to_value(rows).unwrap_or(Value::Null), total)
}
