//! `puffin-lens report`: the investigation of SPEC.md in one document, built
//! from the existing queries (each JSON section is the `--json` of its
//! query), with the workflow's judgement calls: registration first,
//! outliers before averages, gaps with the other threads, and changes that
//! one spike explains called out as such.
//!
//! Rendered as GitHub-flavoured Markdown ([`Report::markdown`]), one
//! self-contained HTML page with inline SVG charts ([`Report::html`]), or
//! JSON (serde).

use super::analyses::accounting::{FrameChange, frame_change, self_by_name};
use super::analyses::basis::{Basis, Unframed, unframed};
use super::analyses::calls::calls;
use super::analyses::common::Applied;
use super::analyses::common::spike;
use super::analyses::compare::{CompareTable, Joined, Pair, SideStats, Status, compare_warnings};
use super::analyses::coverage;
use super::analyses::diff::{joined_children, joined_threads};
use super::analyses::drift::{self, Drift};
use super::analyses::find::{GroupBy, InstanceRow};
use super::analyses::gate::{Gate, GateResult};
use super::analyses::judge::{Change, DriftMode, Kind, Noise};
use super::analyses::stats::scope_stats;
use super::analyses::tail::{
    Cadence, NamedTail, TAIL_K, TAIL_MIN_NS, TAIL_MIN_SHARE, Tail, tails_by_name,
};
use super::analyses::transform::{Stack, transformed_tree};
use super::analyses::tree::{MAX_REPORT_LEVELS, MergedTree, NodeId};
use crate::engine::Decoded;
use crate::engine::api::{self, Answer, Request, Summary};
use crate::engine::model::{ScopeIdx, StrId, Trace};
use crate::engine::write::escape;
use crate::units::{ms, thread_label};
use rustc_hash::FxHashMap;
use serde::Serialize;
use serde_json::{Value, json};
use std::fmt::Write as _;

#[derive(Clone, Copy, Debug)]
pub struct ReportOptions {
    /// Rows per list.
    pub top: usize,
    /// Single gaps shorter than this are left out (and recurring ones whose
    /// total is).
    pub gap_ms: f64,
    /// The comparison's noise model.
    pub noise: Noise,
    /// The regression gate (`--fail-on-regression`).
    pub gate: Option<Gate>,
}

impl Default for ReportOptions {
    fn default() -> Self {
        Self {
            top: 10,
            gap_ms: 1.0,
            noise: Noise::default(),
            gate: None,
        }
    }
}

/// The whole report.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    pub tool: String,
    /// The call-tree transforms the hot paths were read with (none unless
    /// given).
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub applied: Option<Applied>,
    /// With two recordings: B against A (first: what a reader wants first).
    pub comparison: Option<ComparisonReport>,
    pub recordings: Vec<RecordingReport>,
}

/// One recording's sections.
#[derive(Clone, Debug, Serialize)]
pub struct RecordingReport {
    /// `A` or `B` (empty with one recording).
    pub label: String,
    pub summary: Summary,
    pub registration: RegistrationCheck,
    /// The lower median frame duration.
    pub median_frame_ns: i64,
    /// `frames --top N`.
    pub slowest_frames: Value,
    /// `threads` (of the slowest frame).
    pub slowest_frame_threads: Value,
    /// The slowest call of each name, slowest first (the first N; rows of
    /// `top`), but top-level scopes with children (a thread's frame scope,
    /// the same in every frame).
    pub slowest_scopes: Value,
    /// Names in `slowest_scopes` before the first N.
    pub total_slowest_scopes: usize,
    /// Totals per name, largest total first: `{name, count, total_ns, self_ns, p95_ns, max_ns}`
    /// (the first N).
    pub totals: Vec<TotalRow>,
    /// Names in all (`totals` lists the first N).
    pub total_names: usize,
    /// Per thread, the merged tree's path following the largest child.
    pub hot_paths: Vec<HotPath>,
    /// `gaps --min-ms X --top N`: single and recurring gaps.
    pub gaps: Value,
    /// Scopes whose largest call (`call`), or whose calls in one frame
    /// (`burst`), are more than half of their total, and scopes whose slow
    /// calls hold a real share of it (`tail`, after the name's other row).
    pub outliers: Vec<Outlier>,
    /// Why the median frame may mislead (`null` when nothing does).
    pub median_note: Option<String>,
    /// The recording never ends a puffin frame, or its frames are far
    /// longer than their scopes (see `analyses::basis`): `null` otherwise.
    /// Its per-frame sections (the slowest frames, the frame chart) are
    /// left out of the Markdown and HTML.
    pub unframed: Option<Unframed>,
    /// Every frame's duration, in file order (the frame-time chart).
    pub frame_durations_ns: Vec<i64>,
    /// Frame indices the capture left out, said as the summary says it
    /// (`null` when none is absent).
    pub frames_absent_note: Option<String>,
}

#[derive(Clone, Debug, Serialize)]
pub struct RegistrationCheck {
    pub has_registration: bool,
    /// Ids seen in streams but never registered (named `scope#<id>`).
    pub unregistered_ids: Vec<u32>,
    /// Empty when all is well.
    pub warning: String,
}

#[derive(Clone, Debug, Serialize)]
pub struct TotalRow {
    pub name: String,
    pub count: u64,
    pub total_ns: i64,
    pub self_ns: i64,
    pub p95_ns: i64,
    pub max_ns: i64,
}

#[derive(Clone, Debug, Serialize)]
pub struct HotPath {
    pub thread: String,
    /// From the heaviest root down: `{name, count, total_ns, self_ns}`.
    pub steps: Vec<HotStep>,
    /// Why the path stops where it does: the last step's own time is more
    /// than its largest child's total (`null` when it stops at a leaf).
    pub stop: Option<String>,
}

#[derive(Clone, Debug, Serialize)]
pub struct HotStep {
    pub name: String,
    pub count: u64,
    pub total_ns: i64,
    pub self_ns: i64,
}

#[derive(Clone, Debug, Serialize)]
pub struct Outlier {
    pub name: String,
    /// `call`: one call is most of the total; `burst`: one frame's calls;
    /// `tail`: the slow calls hold a real share of it (`tail`).
    pub kind: &'static str,
    pub count: u64,
    pub total_ns: i64,
    /// The largest call.
    pub max_ns: i64,
    /// The call's (or the frame's calls', or the slow calls') share of the
    /// total.
    pub max_share: f64,
    /// For a tail: the slow calls, the median against p99 and max, and how
    /// they recur (`null` for the other kinds).
    pub tail: Option<Tail>,
    /// Where the largest call ran (for a burst: the frame).
    pub frame_index: u64,
    pub thread: String,
    /// Calls in that frame, and their total.
    pub calls_in_frame: u64,
    pub frame_total_ns: i64,
    /// Every call's duration, in time order (for the histogram).
    pub calls_ns: Vec<i64>,
}

#[derive(Clone, Debug, Serialize)]
pub struct ComparisonReport {
    /// `compare`'s warnings (a registration mismatch).
    pub warnings: Vec<String>,
    /// The run-to-run drift every row was judged against (`null` with
    /// `--no-drift`, or with too few busy names to estimate it).
    pub drift: Option<Drift>,
    /// Rows were judged against the drift (false with `--no-drift`).
    pub drift_judged: bool,
    /// What else differs between the two runs' conditions, as far as the
    /// capture shows (sentences: threads or names in one run only, the
    /// frames, the time span).
    pub conditions: Vec<String>,
    pub frames_a: usize,
    pub frames_b: usize,
    /// Figures are per frame: each side's totals divided by its frames
    /// (false per second).
    pub per_frame: bool,
    /// What the figures are per: `frame`, or `second` when a side is
    /// unframed (see `analyses::basis`).
    pub basis: Basis,
    /// How many of them A and B have (their frames, or their seconds).
    pub units: (usize, usize),
    /// The noise model's thresholds.
    pub noise: NoiseUsed,
    /// The frame's change, and the names that account for it.
    pub frame: FrameChange,
    /// What to look at first, most costly first (Markdown sentences).
    pub look_first: Vec<String>,
    /// Names in A or B.
    pub total_rows: usize,
    /// Names judged a change (not within noise).
    pub changed_rows: usize,
    /// The changed names, largest |Δ per frame| beyond the drift first: the
    /// first --top of `changed_rows`. The lists below name every changed
    /// row, listed or not.
    pub rows: Vec<JudgedRow>,
    /// Rows judged one spike.
    pub spikes: Vec<String>,
    /// Rows judged slower/faster per call or run more/less often.
    pub changes: Vec<String>,
    pub new: Vec<String>,
    pub gone: Vec<String>,
    /// With --fail-on-regression: the gate over every name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gate: Option<GateResult>,
    /// Per thread, the differential tree's path following the largest |Δ|.
    pub hot_paths: Vec<DiffHotPath>,
}

#[derive(Clone, Debug, Serialize)]
pub struct NoiseUsed {
    pub pct: f64,
    pub ms: f64,
    pub alpha: f64,
    /// Recordings of A and of B (several runs a side: `A1 A2 --vs B1 B2`).
    pub runs: (usize, usize),
    /// `between-runs` (both sides have several runs: a change must exceed how
    /// far each row's cost varies between one side's runs) or `within-run`
    /// (how far it wanders between fifths of each capture).
    pub model: &'static str,
}

/// A name's row: both sides' totals, its judgement, and its (name, data)
/// rows when data splits it.
#[derive(Clone, Debug, Serialize)]
pub struct JudgedRow {
    pub name: String,
    pub a: Option<SideStats>,
    pub b: Option<SideStats>,
    pub change: Change,
    /// The name's rows per data string, largest |Δ per frame| first (the
    /// first --top; empty when the name has one data string).
    pub by_data: Vec<DataRow>,
    /// How many data strings the name has (when more than one).
    pub total_data: usize,
    /// B − A of the name's own (self) time per frame, all threads: near 0
    /// when its change is its children's.
    pub self_delta_per_frame_ns: f64,
    /// For a spike: the call (its side, frame, thread and duration).
    pub spike_call: Option<SpikeCall>,
}

#[derive(Clone, Debug, Serialize)]
pub struct SpikeCall {
    /// `A` or `B`.
    pub side: &'static str,
    pub frame_index: u64,
    pub thread: String,
    pub duration_ns: i64,
}

#[derive(Clone, Debug, Serialize)]
pub struct DataRow {
    pub data: String,
    pub a: Option<SideStats>,
    pub b: Option<SideStats>,
    pub change: Change,
}

#[derive(Clone, Debug, Serialize)]
pub struct DiffHotPath {
    pub thread: String,
    /// `{name, a_total_ns, b_total_ns, delta_total_ns}`.
    pub steps: Vec<Value>,
}

fn ask(name: &str, args: Value, a: &Decoded, b: Option<&Decoded>) -> Option<Answer> {
    let request = Request::from_json(name, &args).ok()?;
    api::answer(&request, &a.trace, b.map(|b| &b.trace)).ok()
}

fn to_value(answer: Option<Answer>) -> Value {
    answer.map_or(Value::Null, |a| {
        serde_json::to_value(&a).unwrap_or(Value::Null)
    })
}

impl Report {
    /// The report of `a` (and B against A).
    pub fn new(a: (&str, &Decoded), b: Option<(&str, &Decoded)>, opts: ReportOptions) -> Self {
        Self::transformed(a, b, opts, &Stack::default())
    }

    /// [`Self::new`] with the call trees (the hot paths, A's and B's) read
    /// through `stack`.
    pub fn transformed(
        a: (&str, &Decoded),
        b: Option<(&str, &Decoded)>,
        opts: ReportOptions,
        stack: &Stack,
    ) -> Self {
        let mut warnings = Vec::new();
        let label = |l: &str| {
            if b.is_some() {
                l.to_owned()
            } else {
                String::new()
            }
        };
        // Each recording's merged tree (every frame, as many levels as
        // the `tree` answer lists), made once for its hot paths and the
        // comparison's.
        let mut tree = |d: &Decoded| {
            let t = &d.trace;
            let tr = transformed_tree(t, 0..t.frames.len() as u32, None, MAX_REPORT_LEVELS, stack);
            warnings.extend(tr.warnings);
            tr.tree
        };
        let tree_a = tree(a.1);
        let tree_b = b.map(|(_, d)| tree(d));
        warnings.sort();
        warnings.dedup();
        let applied = (!stack.is_empty()).then(|| Applied {
            transforms: stack.written(),
            warnings,
        });
        let mut recordings = vec![recording(&label("A"), a.0, a.1, &tree_a, opts)];
        let comparison = b.zip(tree_b).map(|((name, decoded), tree_b)| {
            recordings.push(recording("B", name, decoded, &tree_b, opts));
            let mut c = comparison(a.1, decoded, (&tree_a, &tree_b), &opts);
            c.look_first = look_first(&c, &recordings[1], &opts);
            c
        });
        Self {
            tool: format!("puffin-lens {}", env!("CARGO_PKG_VERSION")),
            applied,
            comparison,
            recordings,
        }
    }
}

fn recording(
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
    let mut durations: Vec<i64> = t.frames.ids().map(|f| t.frames.duration_ns(f)).collect();
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
    let outliers: Vec<Outlier> = totals
        .iter()
        .flat_map(|r| {
            let one = one_call_or_burst(t, r, &heaviest);
            let tail = tails
                .get(r.name.as_str())
                .and_then(|x| tail_outlier(t, r, x));
            one.into_iter().chain(tail)
        })
        .collect();
    let total_names = totals.len();
    totals.truncate(n);
    let (slowest_scopes, total_slowest_scopes) = slowest_per_name(t, n);
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
    RecordingReport {
        label: label.to_owned(),
        summary,
        registration: RegistrationCheck {
            has_registration: t.defs.has_registration(),
            unregistered_ids,
            warning,
        },
        median_frame_ns,
        slowest_frames: to_value(ask("frames", json!({ "top": n }), d, None)),
        slowest_frame_threads: to_value(ask("threads", json!({}), d, None)),
        slowest_scopes,
        total_slowest_scopes,
        totals,
        total_names,
        hot_paths,
        gaps: to_value(ask(
            "gaps",
            json!({ "min_ms": opts.gap_ms, "top": n }),
            d,
            None,
        )),
        outliers,
        median_note: coverage::frame_coverage(t)
            .as_ref()
            .and_then(coverage::absent_note)
            .map(|note| {
                format!(
                    "the capture kept only some frames ({note}; puffin's FrameView keeps the \
                     recent and the slowest): the median is biased upward"
                )
            }),
        frame_durations_ns,
        unframed: unframed(t),
        frames_absent_note: coverage::frame_coverage(t)
            .as_ref()
            .and_then(coverage::absent_note),
    }
}

/// `r`'s outlier of kind `call` (one call is more than half of its total)
/// or `burst` (one frame's calls are), if it is one.
fn one_call_or_burst(
    t: &Trace,
    r: &TotalRow,
    heaviest: &FxHashMap<&str, (u64, u64, i64, u64)>,
) -> Option<Outlier> {
    let call = spike(r.count, r.max_ns, r.total_ns);
    let burst = heaviest
        .get(r.name.as_str())
        .copied()
        .filter(|&(_, count, total, frames)| {
            count >= 2 && frames >= 2 && total.saturating_mul(2) > r.total_ns
        });
    if !call && burst.is_none() {
        return None;
    }
    let calls = calls(t, &r.name)?;
    let worst = calls
        .calls
        .iter()
        .max_by_key(|c| (c.duration_ns, std::cmp::Reverse(c.start_ns)))?;
    let (frame_index, thread, in_frame, frame_total) = match burst.filter(|_| !call) {
        Some((f, count, total, _)) => {
            let first = calls.calls.iter().find(|c| c.frame_index == f)?;
            (f, first.thread.clone(), count, total)
        }
        None => {
            let in_frame = calls
                .calls
                .iter()
                .filter(|c| c.frame_index == worst.frame_index);
            let (count, total) =
                in_frame.fold((0u64, 0i64), |(n, s), c| (n + 1, s + c.duration_ns));
            (worst.frame_index, worst.thread.clone(), count, total)
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

fn comparison(
    a: &Decoded,
    b: &Decoded,
    trees: (&MergedTree, &MergedTree),
    opts: &ReportOptions,
) -> ComparisonReport {
    let (ta, tb) = trees;
    let (a, b) = (&a.trace, &b.trace);
    // One grouping for the table, its lists and the gate: by name, each
    // name's (name, data) rows nested under it when data splits it.
    let by_name = CompareTable::grouped(a, b, GroupBy::Name, opts.noise);
    let names = by_name.with(a, b);
    // The (name, data) rows judged against the names' drift.
    let noise = names.noise();
    let by_data = CompareTable::judged(a, b, noise);
    let data_rows = by_data.with(a, b);
    let all: Vec<Pair> = names.pairs().to_vec();
    let total_rows = all.len();
    let mut listed: Vec<(Pair, Change)> = all
        .iter()
        .filter(|&&p| names.kind(p).is_change())
        .map(|&p| (p, names.change(p)))
        .collect();
    let changed_rows = listed.len();
    listed.sort_by(|(x, cx), (y, cy)| {
        cy.beyond_drift_ns()
            .abs()
            .total_cmp(&cx.beyond_drift_ns().abs())
            .then_with(|| names.name(*x).cmp(names.name(*y)))
    });
    // Every changed name by kind, whatever --top lists (--top limits what
    // is printed, never what is judged).
    let list = |f: &dyn Fn(Kind) -> bool| -> Vec<String> {
        listed
            .iter()
            .filter(|(_, c)| f(c.kind))
            .map(|(p, _)| names.name(*p).to_owned())
            .collect()
    };
    let spikes = list(&|k| k == Kind::Spike);
    let new = list(&|k| k == Kind::New);
    let gone = list(&|k| k == Kind::Gone);
    let changes = list(&|k| !matches!(k, Kind::Spike | Kind::New | Kind::Gone));
    listed.truncate(opts.top);
    // The (name, data) rows of the listed names, when a name has several.
    let mut nested: FxHashMap<&str, Vec<(Pair, Change)>> = listed
        .iter()
        .map(|(p, _)| (names.name(*p), Vec::new()))
        .collect();
    for &p in data_rows.pairs() {
        if let Some(v) = nested.get_mut(data_rows.name(p)) {
            v.push((p, data_rows.change(p)));
        }
    }
    let (own_a, own_b) = (self_by_name(a, None), self_by_name(b, None));
    let (fa, fb) = (a.frames.len().max(1) as f64, b.frames.len().max(1) as f64);
    let rows: Vec<JudgedRow> = listed
        .into_iter()
        .map(|(p, change)| {
            let name = names.name(p);
            let own =
                |m: &FxHashMap<&str, i64>, f: f64| m.get(name).copied().unwrap_or(0) as f64 / f;
            let spike_call = (change.kind == Kind::Spike)
                .then(|| spike_call(a, b, name))
                .flatten();
            let (sa, sb) = names.stats(p);
            let mut data = nested.remove(names.name(p)).unwrap_or_default();
            if data.len() < 2 {
                data.clear();
            }
            data.sort_by(|(x, cx), (y, cy)| {
                cy.delta_per_frame_ns
                    .abs()
                    .total_cmp(&cx.delta_per_frame_ns.abs())
                    .then_with(|| data_rows.data(*x).cmp(data_rows.data(*y)))
            });
            let total_data = data.len();
            data.truncate(opts.top);
            JudgedRow {
                name: names.name(p).to_owned(),
                a: sa,
                b: sb,
                change,
                by_data: data
                    .into_iter()
                    .map(|(q, change)| {
                        let (da, db) = data_rows.stats(q);
                        DataRow {
                            data: data_rows.data(q).to_owned(),
                            a: da,
                            b: db,
                            change,
                        }
                    })
                    .collect(),
                total_data,
                self_delta_per_frame_ns: own(&own_b, fb) - own(&own_a, fa),
                spike_call,
            }
        })
        .collect();
    let gate = opts.gate.map(|g| {
        let regressions: Vec<(Pair, Change)> = all
            .iter()
            .filter(|&&p| names.kind(p).is_regression())
            .map(|&p| (p, names.change(p)))
            .collect();
        g.check(
            names.unit_ns(),
            names.drift(),
            regressions
                .iter()
                .map(|(p, c)| (names.name(*p), None, c, names.own(*p))),
        )
    });
    let frame = frame_change(
        a,
        b,
        &names.kinds_by_name(),
        &noise,
        names.basis(),
        opts.top,
    );
    // From each thread, the child with the largest |Δ| (ties: the first
    // name), while something changed: the diff tree's order, walked along
    // one path instead of built whole.
    let hot_paths = joined_threads((a, ta), (b, tb))
        .into_iter()
        .map(|(thread, mut na, mut nb)| {
            let total =
                |tree: &MergedTree, n: Option<NodeId>| n.map_or(0, |n| tree.total_ns[n.idx()]);
            let mut steps = Vec::new();
            while steps.len() < MAX_REPORT_LEVELS as usize {
                let kids = joined_children((a, ta, na), (b, tb, nb));
                let Some(&(name, ca, cb)) = kids.iter().max_by_key(|(name, ca, cb)| {
                    let delta = total(tb, *cb).saturating_sub(total(ta, *ca));
                    (delta.unsigned_abs(), std::cmp::Reverse(*name))
                }) else {
                    break;
                };
                let (at, bt) = (total(ta, ca), total(tb, cb));
                let delta = bt.saturating_sub(at);
                if delta == 0 {
                    break;
                }
                steps.push(json!({
                    "name": name,
                    "a_total_ns": at,
                    "b_total_ns": bt,
                    "delta_total_ns": delta,
                }));
                (na, nb) = (ca, cb);
            }
            DiffHotPath {
                thread: thread.to_owned(),
                steps,
            }
        })
        .filter(|p| !p.steps.is_empty())
        .collect();
    ComparisonReport {
        warnings: compare_warnings(a, b),
        drift: names.drift().cloned(),
        drift_judged: noise.drift != DriftMode::Off,
        conditions: conditions(a, b, &names),
        frames_a: a.frames.len(),
        frames_b: b.frames.len(),
        per_frame: names.basis() == Basis::Frame,
        basis: names.basis(),
        units: names.frames(),
        noise: NoiseUsed {
            pct: opts.noise.pct,
            ms: opts.noise.ms,
            alpha: opts.noise.alpha,
            runs: (a.run_count(), b.run_count()),
            model: if a.run_count() > 1 && b.run_count() > 1 {
                "between-runs"
            } else {
                "within-run"
            },
        },
        frame,
        look_first: Vec::new(),
        total_rows,
        changed_rows,
        rows,
        spikes,
        changes,
        new,
        gone,
        gate,
        hot_paths,
    }
}

/// What differs between the runs besides their code, as far as the
/// recordings show: threads present in one only, names registered or
/// called in one only, the number of frames and the time span.
fn conditions(a: &Trace, b: &Trace, names: &Joined) -> Vec<String> {
    let mut out = Vec::new();
    let threads = |t: &Trace| -> std::collections::BTreeSet<String> {
        t.threads
            .name
            .iter()
            .map(|&n| thread_label(t.str(n)).to_owned())
            .collect()
    };
    let (tha, thb) = (threads(a), threads(b));
    for (side, only) in [
        ("A", tha.difference(&thb).collect::<Vec<_>>()),
        ("B", thb.difference(&tha).collect::<Vec<_>>()),
    ] {
        if !only.is_empty() {
            let list: Vec<String> = only
                .iter()
                .take(5)
                .map(|t| format!("`{}`", cell(t)))
                .collect();
            out.push(format!(
                "Threads only in {side}: {}{}.",
                list.join(", "),
                if only.len() > 5 {
                    format!(" and {} more", only.len() - 5)
                } else {
                    String::new()
                }
            ));
        }
    }
    let (mut only_a, mut only_b) = (Vec::new(), Vec::new());
    for &p in names.pairs() {
        match names.facts(p).status {
            Status::Gone => only_a.push(names.name(p)),
            Status::New => only_b.push(names.name(p)),
            Status::Both => {}
        }
    }
    for (side, mut only) in [("A", only_a), ("B", only_b)] {
        if !only.is_empty() {
            only.sort_unstable();
            let list: Vec<String> = only
                .iter()
                .take(5)
                .map(|n| format!("`{}`", cell(n)))
                .collect();
            out.push(format!(
                "{} scope name{} called only in {side} ({}{}): code that ran in one run only, \
                 such as start-up work (restoring saved state) or a path the other did not take.",
                only.len(),
                if only.len() == 1 { "" } else { "s" },
                list.join(", "),
                if only.len() > 5 { ", …" } else { "" }
            ));
        }
    }
    let (fa, fb) = (a.frames.len(), b.frames.len());
    let span_ms = |t: &Trace| {
        let r = t.frames.range_ns.iter();
        let lo = r.clone().map(|r| r.0).min().unwrap_or(0);
        let hi = r.map(|r| r.1).max().unwrap_or(0);
        hi.saturating_sub(lo) as f64 / 1e6
    };
    let (sa, sb) = (span_ms(a), span_ms(b));
    if fa != fb || (sa - sb).abs() > 0.1 * sa.max(sb) {
        out.push(format!(
            "A has {fa} frame{} over {:.1} s, B {fb} over {:.1} s: figures are per {}.",
            if fa == 1 { "" } else { "s" },
            sa / 1e3,
            sb / 1e3,
            names.basis().unit()
        ));
    }
    out
}

/// A spike's call: the largest call of `name` on the side with the larger
/// total.
fn spike_call(a: &Trace, b: &Trace, name: &str) -> Option<SpikeCall> {
    let largest = |t: &Trace| {
        let c = calls(t, name)?;
        let total = c.summary.total_ns;
        let worst = c
            .calls
            .into_iter()
            .max_by_key(|c| (c.duration_ns, std::cmp::Reverse(c.start_ns)))?;
        Some((total, worst))
    };
    let (ca, cb) = (largest(a), largest(b));
    let b_side = cb.as_ref().map_or(0, |c| c.0) > ca.as_ref().map_or(0, |c| c.0);
    let (side, (_, call)) = if b_side { ("B", cb?) } else { ("A", ca?) };
    Some(SpikeCall {
        side,
        frame_index: call.frame_index,
        thread: call.thread,
        duration_ns: call.duration_ns,
    })
}

/// What to look at first: the names that account for the frame's change
/// (regressions and new ones, largest first), the spikes, then the largest
/// recurring unprofiled stretch of B.
fn look_first(c: &ComparisonReport, b: &RecordingReport, opts: &ReportOptions) -> Vec<String> {
    let unit = c.frame.basis.unit();
    let mut lines: Vec<String> = Vec::new();
    let min_ns = opts.noise.ms * 1e6;
    let thread = cell(thread_label(&c.frame.thread)).into_owned();
    for x in &c.frame.contributions {
        let bad = x.kind.is_regression() || x.kind == Kind::New;
        if !bad || x.self_delta_per_frame_ns < min_ns {
            continue;
        }
        let why = c.rows.iter().find(|r| r.name == x.name).map_or_else(
            || x.kind.words().to_owned(),
            |r| describe_per(&r.change, c.basis),
        );
        lines.push(format!(
            "{}: {why}; {} per {unit} of its own time on {thread}",
            escape::markdown_code(&x.name),
            signed_ms(x.self_delta_per_frame_ns)
        ));
    }
    for r in c.rows.iter() {
        let Some(s) = &r.spike_call else { continue };
        lines.push(format!(
            "{}: one spike of {} in {}, frame {} on {}; the other calls: {}",
            escape::markdown_code(&r.name),
            msu(s.duration_ns),
            s.side,
            s.frame_index,
            cell(thread_label(&s.thread)),
            r.change.rest.unwrap_or_default().words()
        ));
    }
    // The largest recurring stretch inside the frames of B.
    let recurring = b.gaps["recurring"]
        .as_array()
        .map_or(&[][..], |v| v.as_slice());
    let frames = b.summary.frames as i64;
    if let Some(g) = recurring.iter().find(|g| {
        !between_frames(g)
            && num(&g["median_ns"]) as f64 >= min_ns
            && num(&g["frames"]) * 2 >= frames
    }) {
        // (thread, busy %, what it ran), threads that ran the same as much
        // told once: `worker-0..2 busy 96% (`mesh::build`)`.
        let mut others: Vec<(String, String)> = Vec::new();
        for o in g["other_threads"].as_array().into_iter().flatten() {
            let names: Vec<String> = o["scopes"]
                .as_array()
                .into_iter()
                .flatten()
                .take(2)
                .map(|n| escape::markdown_code(text(&n["name"])))
                .collect();
            let pct = (100.0 * num(&o["busy_ns"]) as f64 / num(&g["total_ns"]).max(1) as f64)
                .round() as u64;
            others.push((
                text(&o["thread"]).to_owned(),
                format!("busy {pct}% ({})", names.join(", ")),
            ));
        }
        let others: Vec<String> = numbered_runs(&others)
            .into_iter()
            .take(4)
            .map(|(threads, what, _)| format!("{} {what}", cell(&threads)))
            .collect();
        lines.push(format!(
            "unprofiled time in B: {} {}, a {} gap {}, median {}{}: {}",
            cell(thread_label(text(&g["thread"]))),
            path_md(text(&g["path"])),
            text(&g["kind"]),
            if b.unframed.is_some() {
                format!("{} times", num(&g["frames"]))
            } else {
                format!("in {} frames", num(&g["frames"]))
            },
            msu(num(&g["median_ns"])),
            g["share_of_thread_pct"]
                .as_f64()
                .map_or(String::new(), |p| format!(
                    " ({p:.0}% of the thread's span)"
                )),
            if others.is_empty() {
                "no other thread ran meanwhile".to_owned()
            } else {
                format!("meanwhile {}", others.join("; "))
            }
        ));
    }
    lines.truncate(opts.top);
    // The drift, past the noise, after the changes (the only line when
    // nothing else changed: it is then the answer).
    if let Some(d) = c.drift.as_ref().filter(|d| d.named) {
        lines.push(format!(
            "run-to-run drift, not a change in the code: {}",
            drift::sentence(d)
        ));
    }
    lines
}

/// Threads that ran the same (`what`) whose names are one prefix and
/// consecutive numbers, told once (`worker-0..2`), in order: (threads,
/// what, how many threads).
fn numbered_runs(rows: &[(String, String)]) -> Vec<(String, String, usize)> {
    let split = |t: &str| {
        let digits = t.len() - t.trim_end_matches(|c: char| c.is_ascii_digit()).len();
        let (prefix, n) = t.split_at(t.len() - digits);
        Some((prefix.to_owned(), n.parse::<u64>().ok()?))
    };
    let mut out: Vec<(String, String, usize)> = Vec::new();
    let mut k = 0;
    while k < rows.len() {
        let (t, what) = &rows[k];
        let mut end = k + 1;
        if let Some((prefix, first)) = split(t) {
            while let Some((p, n)) = rows.get(end).and_then(|r| split(&r.0))
                && p == prefix
                && Some(n) == first.checked_add((end - k) as u64)
                && rows[end].1 == *what
            {
                end += 1;
            }
            if end - k > 1 {
                let last = first.saturating_add((end - k - 1) as u64);
                out.push((format!("{prefix}{first}..{last}"), what.clone(), end - k));
                k = end;
                continue;
            }
        }
        out.push((thread_label(t).to_owned(), what.clone(), 1));
        k += 1;
    }
    out
}

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

fn p_text(p: f64) -> String {
    if p < 0.001 {
        "p < 0.001".to_owned()
    } else {
        format!("p = {p:.3}")
    }
}

fn signed_ms(ns: f64) -> String {
    // No "-0.000": under half a nanosecond is none.
    let ns = if ns.abs() < 0.5 { 0.0 } else { ns };
    format!("{:+.3} ms", ns / 1e6)
}

/// The legend under the comparison table.
const JUDGEMENT_LEGEND: &str = "Judged per name and per frame (each side's totals divided by its \
frames) with a noise model: **slower/faster per call** when the calls' median moved by at least \
the noise percentage, the change costs at least the noise milliseconds per frame, and a \
Mann-Whitney U test of the calls agrees (p below alpha; a side with fewer than 5 calls is judged \
by the thresholds alone); **runs more/less often** likewise for the calls per frame; **one \
spike** when one call is more than half of a side's total (the other calls judged on their \
own); **new/gone in B** when one side lacks the name. Everything else is **unchanged** (within \
noise) and not listed.";

/// `12.345 ms`.
fn msu(ns: i64) -> String {
    format!("{} ms", ms(ns))
}

/// Recording text as Markdown (a cell, a heading, running text).
fn cell(s: &str) -> std::borrow::Cow<'_, str> {
    escape::markdown(s)
}

/// A gap's path in Markdown: `(top level)` when it has none.
fn path_md(path: &str) -> String {
    if path.is_empty() {
        "(top level)".to_owned()
    } else {
        escape::markdown_code(path)
    }
}

/// Whether a gap (its JSON) is between frames: by its kind, since a thread
/// may be named "" (the Rerun SDK's main thread).
fn between_frames(gap: &Value) -> bool {
    text(&gap["kind"]) == "between-frames"
}

fn num(v: &Value) -> i64 {
    v.as_i64().unwrap_or(0)
}

fn text(v: &Value) -> &str {
    v.as_str().unwrap_or("")
}

impl Report {
    /// GitHub-flavoured Markdown, for a pull request or a terminal.
    pub fn markdown(&self) -> String {
        self.render_md(false)
    }

    /// Markdown; with `charts`, a `<!--chart:KIND:R:I-->` line where each
    /// chart goes (replaced by [`Self::html`]).
    fn render_md(&self, charts: bool) -> String {
        let mut o = String::new();
        let title = match self.recordings.as_slice() {
            [a, b] => format!("{} → {}", a.summary.file, b.summary.file),
            [a] => a.summary.file.clone(),
            _ => String::new(),
        };
        let _ = writeln!(o, "# puffin-lens report: {}\n", cell(&title));
        if let Some(a) = &self.applied {
            let list: Vec<String> = a
                .transforms
                .iter()
                .map(|t| escape::markdown_code(t))
                .collect();
            let _ = writeln!(
                o,
                "Call trees (hot paths) read with the transforms {}: the tables count every scope.\n",
                list.join(", ")
            );
            for w in &a.warnings {
                let _ = writeln!(o, "> warning: {}\n", cell(w));
            }
        }
        if let Some(c) = &self.comparison {
            comparison_md(&mut o, c);
        }
        for (k, r) in self.recordings.iter().enumerate() {
            recording_md(&mut o, r, charts.then_some(k));
        }
        let _ = writeln!(o, "_{}_", self.tool);
        o
    }
}

fn heading(r: &RecordingReport) -> String {
    if r.label.is_empty() {
        String::new()
    } else {
        format!("{} ({}): ", r.label, cell(&r.summary.file))
    }
}

fn recording_md(o: &mut String, r: &RecordingReport, charts: Option<usize>) {
    let s = &r.summary;
    let h = heading(r);
    let _ = writeln!(o, "## {h}Summary\n");
    let _ = writeln!(
        o,
        "{} frames, {} threads, {} scopes over {}; format {} ({}){}.\n",
        s.frames,
        s.threads,
        s.scopes,
        msu(s.span_ns),
        s.formats.join(", "),
        s.compressions.join(", "),
        if s.damaged {
            "; **damaged: only the intact frames are counted**"
        } else {
            ""
        }
    );
    if let Some(note) = &r.frames_absent_note {
        let _ = writeln!(o, "Frames: {note}.\n");
    }
    if !r.registration.warning.is_empty() {
        let _ = writeln!(o, "> [!WARNING]\n> {}\n", cell(&r.registration.warning));
    } else {
        let _ = writeln!(
            o,
            "Scope registration: present ({} scopes registered).\n",
            s.registered_scopes
        );
    }
    if let Some(u) = &r.unframed {
        let _ = writeln!(o, "> [!IMPORTANT]\n> {}\n", u.sentence());
    } else {
        slowest_frames_md(o, r, &h, charts);
    }
    if let Some(rows) = r.slowest_frame_threads.as_array() {
        let frame = r
            .slowest_frames
            .get(0)
            .map_or(0, |f| num(&f["frame_index"]));
        if r.unframed.is_some() {
            let _ = writeln!(o, "### {h}Threads (frame {frame})\n");
        } else {
            let _ = writeln!(o, "\n### {h}Threads of the slowest frame ({frame})\n");
        }
        let _ = writeln!(
            o,
            "| thread | span | scopes | depth |\n|---|---:|---:|---:|"
        );
        for t in rows {
            let _ = writeln!(
                o,
                "| {} | {} | {} | {} |",
                cell(thread_label(text(&t["name"]))),
                msu(num(&t["span_ns"])),
                num(&t["num_scopes"]),
                num(&t["depth"])
            );
        }
    }
    let _ = writeln!(
        o,
        "\n### {h}Slowest scopes (the slowest call of each name, nested scopes)\n"
    );
    let _ = writeln!(
        o,
        "| scope | data | duration | thread | frame |\n|---|---|---:|---|---:|"
    );
    for x in r.slowest_scopes.as_array().into_iter().flatten() {
        let _ = writeln!(
            o,
            "| {} | {} | {} | {} | {} |",
            cell(text(&x["name"])),
            cell(text(&x["data"])),
            msu(num(&x["duration_ns"])),
            cell(thread_label(text(&x["thread"]))),
            num(&x["frame_index"])
        );
    }
    let shown = r.slowest_scopes.as_array().map_or(0, Vec::len);
    more_md(o, shown, r.total_slowest_scopes as i64);
    let _ = writeln!(o, "\n### {h}Totals per scope\n");
    let _ = writeln!(
        o,
        "| scope | calls | total | self | p95 | max |\n|---|---:|---:|---:|---:|---:|"
    );
    for t in &r.totals {
        let _ = writeln!(
            o,
            "| {} | {} | {} | {} | {} | {} |",
            cell(&t.name),
            t.count,
            msu(t.total_ns),
            msu(t.self_ns),
            msu(t.p95_ns),
            msu(t.max_ns)
        );
    }
    more_md(o, r.totals.len(), r.total_names as i64);
    let _ = writeln!(
        o,
        "\n### {h}Hot path (merged over all frames, largest child first)\n"
    );
    for p in &r.hot_paths {
        let path: Vec<String> = p
            .steps
            .iter()
            .map(|st| format!("{} {}", escape::markdown_code(&st.name), msu(st.total_ns)))
            .collect();
        let _ = writeln!(
            o,
            "- **{}**: {}{}",
            cell(thread_label(&p.thread)),
            path.join(" > "),
            p.stop
                .as_ref()
                .map_or(String::new(), |s| format!(". Stops at {}", cell(s)))
        );
    }
    gaps_md(o, r, &h, charts);
    let _ = writeln!(
        o,
        "\n### {h}Outliers: one call, or one frame's calls, is most of the total; heavy tails\n"
    );
    let (ones, tails): (Vec<&Outlier>, Vec<&Outlier>) =
        r.outliers.iter().partition(|x| x.tail.is_none());
    if ones.is_empty() {
        let _ = writeln!(
            o,
            "None: no scope's largest call, nor its calls in any one frame, is more than half of \
             its total.\n"
        );
    } else {
        let _ = writeln!(
            o,
            "Averages of these scopes mislead: look at the call (or the frame).\n\n\
             | scope | kind | calls | total | largest call | calls in that frame | share | frame | thread |\n\
             |---|---|---:|---:|---:|---:|---:|---:|---|"
        );
        for x in &ones {
            let _ = writeln!(
                o,
                "| {} | {} | {} | {} | {} | {} ({}) | {:.0}% | {} | {} |",
                cell(&x.name),
                if x.kind == "call" {
                    "one call"
                } else {
                    "one frame's burst"
                },
                x.count,
                msu(x.total_ns),
                msu(x.max_ns),
                x.calls_in_frame,
                msu(x.frame_total_ns),
                x.max_share * 100.0,
                x.frame_index,
                cell(thread_label(&x.thread))
            );
        }
        o.push('\n');
    }
    if tails.is_empty() {
        let _ = writeln!(
            o,
            "No heavy tail: no scope's slow calls (over {}x its median and {}) hold {:.0}% of its \
             total.\n",
            TAIL_K,
            msu(TAIL_MIN_NS),
            TAIL_MIN_SHARE * 100.0
        );
    } else {
        let _ = writeln!(
            o,
            "Heavy tails: slow calls (over {}x the scope's median and {}) hold at least {:.0}% of \
             its total, so its median says little of its cost. Look at the slow calls \
             (`calls NAME`); a regular interval points at periodic work (a flush, a timer, a \
             collection).\n\n\
             | scope | calls | total | slow calls | their total | share | median | p99 | max | recurs |\n\
             |---|---:|---:|---:|---:|---:|---:|---:|---:|---|",
            TAIL_K,
            msu(TAIL_MIN_NS),
            TAIL_MIN_SHARE * 100.0
        );
        for x in &tails {
            let Some(tail) = &x.tail else { continue };
            let _ = writeln!(
                o,
                "| {} | {} | {} | {} (over {}) | {} | {:.0}% | {} | {} | {} | {} |",
                cell(&x.name),
                x.count,
                msu(x.total_ns),
                tail.slow_calls,
                msu(tail.threshold_ns),
                msu(tail.slow_total_ns),
                tail.share * 100.0,
                msu(tail.median_ns),
                msu(tail.p99_ns),
                msu(tail.max_ns),
                cadence_md(&tail.cadence)
            );
        }
        o.push('\n');
    }
    if let Some(k) = charts {
        for j in 0..r.outliers.len() {
            let _ = writeln!(o, "<!--chart:calls:{k}:{j}-->\n");
        }
    }
}

/// A tail's cadence in a cell: "about once a second (IQR 12.000 ms)", or
/// "irregular".
fn cadence_md(c: &Cadence) -> String {
    if c.regular {
        format!(
            "{} (interquartile range {})",
            c.words(),
            msu(c.q3_interval_ns - c.q1_interval_ns)
        )
    } else {
        c.words()
    }
}

/// The gaps section: recurring gaps (by total), then single gaps, then the
/// idle stretches of threads that run tasks (apart: waiting is not
/// unprofiled work).
/// The slowest frames' section (framed recordings only).
fn slowest_frames_md(o: &mut String, r: &RecordingReport, h: &str, charts: Option<usize>) {
    let _ = writeln!(
        o,
        "### {h}Slowest frames (median frame {})\n",
        msu(r.median_frame_ns)
    );
    if let Some(note) = &r.median_note {
        let _ = writeln!(o, "> [!NOTE]\n> {}\n", cell(note));
    }
    if let Some(k) = charts {
        let _ = writeln!(o, "<!--chart:frames:{k}:0-->\n");
    }
    let _ = writeln!(
        o,
        "| frame | duration | vs median | scopes |\n|---:|---:|---:|---:|"
    );
    for f in r.slowest_frames.as_array().into_iter().flatten() {
        let d = num(&f["duration_ns"]);
        let _ = writeln!(
            o,
            "| {} | {} | {:.1}x | {} |",
            num(&f["frame_index"]),
            msu(d),
            d as f64 / r.median_frame_ns.max(1) as f64,
            num(&f["num_scopes"])
        );
    }
}

fn gaps_md(o: &mut String, r: &RecordingReport, h: &str, charts: Option<usize>) {
    let g = &r.gaps;
    let list = |k: &str| g[k].as_array().map_or(&[][..], |v| v.as_slice());
    let (recurring, singles) = (list("recurring"), list("gaps"));
    let recorded = g["other_threads_recorded"].as_bool().unwrap_or(false);
    let meanwhile = |x: &Value| -> String {
        let busy: Vec<(String, String)> = x["other_threads"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|b| {
                let names: Vec<String> = b["scopes"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .map(|n| escape::markdown_code(text(&n["name"])))
                    .collect();
                (
                    text(&b["thread"]).to_owned(),
                    format!("{} ({})", msu(num(&b["busy_ns"])), names.join(", ")),
                )
            })
            .collect();
        // Threads that ran the same told once: `worker-0..2 195.840 ms each (…)`.
        let others: Vec<String> = numbered_runs(&busy)
            .into_iter()
            .map(|(threads, what, n)| {
                let what = if n > 1 {
                    what.replacen(" (", " each (", 1)
                } else {
                    what
                };
                format!("{} {what}", cell(&threads))
            })
            .collect();
        if others.is_empty() {
            if recorded {
                "none (idle)"
            } else {
                "no other thread recorded"
            }
            .to_owned()
        } else {
            others.join(", ")
        }
    };
    let place = |x: &Value| {
        let thread = text(&x["thread"]);
        let path = text(&x["path"]);
        if between_frames(x) {
            "between frames (no thread runs)".to_owned()
        } else if path.is_empty() {
            format!("{} (top level)", cell(thread_label(thread)))
        } else {
            format!(
                "{}: {}",
                cell(thread_label(thread)),
                escape::markdown_code(path)
            )
        }
    };
    let name_of = |v: &Value| -> String {
        let n = if v.is_object() { &v["name"] } else { v };
        n.as_str().map_or("—".to_owned(), escape::markdown_code)
    };
    let _ = writeln!(
        o,
        "\n### {h}Unprofiled time: recurring gaps ({} found)\n",
        num(&g["total_recurring"])
    );
    if recurring.is_empty() {
        let _ = writeln!(
            o,
            "None: no gap at one place in two or more frames sums to the threshold."
        );
    } else {
        if let Some(k) = charts {
            let _ = writeln!(o, "<!--chart:recurring:{k}:0-->\n");
        }
        let _ = writeln!(
            o,
            "The same stretch without a profiled child, {}, largest total first.\n\n\
             | where | kind | after → before | {} | median | total | % of thread span | other threads meanwhile |\n\
             |---|---|---|---:|---:|---:|---:|---|",
            if r.unframed.is_some() {
                "time after time"
            } else {
                "frame after frame"
            },
            if r.unframed.is_some() {
                "times"
            } else {
                "frames"
            }
        );
        for x in recurring {
            let _ = writeln!(
                o,
                "| {} | {} | {} |",
                place(x),
                text(&x["kind"]),
                recurring_cells(x, &name_of, &meanwhile)
            );
        }
        more_md(o, recurring.len(), num(&g["total_recurring"]));
    }
    let _ = writeln!(
        o,
        "\n### {h}Unprofiled time: one-off gaps ({} found)\n",
        num(&g["total_gaps"])
    );
    if singles.is_empty() {
        let _ = writeln!(o, "None at or above the threshold.");
    } else {
        if let Some(k) = charts {
            let _ = writeln!(o, "<!--chart:gaps:{k}:0-->\n");
        }
        let _ = writeln!(
            o,
            "| where | kind | frame | gap | after → before | other threads meanwhile |\n|---|---|---:|---:|---|---|"
        );
        for x in singles {
            let _ = writeln!(
                o,
                "| {} | {} | {} | {} | {} → {} | {} |",
                place(x),
                text(&x["kind"]),
                num(&x["frame_index"]),
                msu(num(&x["duration_ns"])),
                name_of(&x["after"]),
                name_of(&x["before"]),
                meanwhile(x)
            );
        }
        more_md(o, singles.len(), num(&g["total_gaps"]));
    }
    let times = if r.unframed.is_some() {
        "times"
    } else {
        "frames"
    };
    idle_md(o, (g, times), h, &place, &name_of, &meanwhile);
    if !recorded {
        let _ = writeln!(
            o,
            "\nThe recording has one thread: nothing shows what ran during these gaps."
        );
    }
}

/// A recurring gap's cells after its place (and kind), as the unprofiled
/// and the idle tables give them: neighbours, count, median, total, share
/// of the thread's span, what ran meanwhile.
fn recurring_cells(
    x: &Value,
    name_of: &dyn Fn(&Value) -> String,
    meanwhile: &dyn Fn(&Value) -> String,
) -> String {
    format!(
        "{} → {} | {} | {} | {} | {} | {}",
        name_of(&x["after"]),
        name_of(&x["before"]),
        num(&x["frames"]),
        msu(num(&x["median_ns"])),
        msu(num(&x["total_ns"])),
        x["share_of_thread_pct"]
            .as_f64()
            .map_or("—".to_owned(), |p| format!("{p:.1}%")),
        meanwhile(x)
    )
}

/// The idle stretches of the gaps section: recurring then one-off, in one
/// table, with the threads' roles.
fn idle_md(
    o: &mut String,
    (g, times): (&Value, &str),
    h: &str,
    place: &dyn Fn(&Value) -> String,
    name_of: &dyn Fn(&Value) -> String,
    meanwhile: &dyn Fn(&Value) -> String,
) {
    let list = |k: &str| g[k].as_array().map_or(&[][..], |v| v.as_slice());
    let (recurring, singles) = (list("recurring_idle"), list("idle"));
    let total = num(&g["total_recurring_idle"]) + num(&g["total_idle"]);
    let _ = writeln!(
        o,
        "\n### {h}Idle time: threads that run tasks, waiting ({total} found)\n"
    );
    let role = |r: &str| -> String {
        let v: Vec<String> = list("threads")
            .iter()
            .filter(|t| t["role"] == r)
            .map(|t| cell(thread_label(text(&t["thread"]))).into_owned())
            .collect();
        if v.is_empty() {
            "none".to_owned()
        } else {
            v.join(", ")
        }
    };
    let _ = writeln!(
        o,
        "Between the top-level scopes of a thread that runs tasks (no scope spans its frames): \
         waiting for work, or a host program's own code between its calls, never ranked above as \
         unprofiled. Drive the frames (their top-level gaps are unprofiled work): {}. Run tasks: {}.\n",
        role("frame-driving"),
        role("tasks")
    );
    if recurring.is_empty() && singles.is_empty() {
        let _ = writeln!(o, "None at or above the threshold.");
        return;
    }
    let _ = writeln!(
        o,
        "| where | after → before | {} | median | total | % of thread span | other threads meanwhile |\n\
         |---|---|---:|---:|---:|---:|---|",
        times
    );
    for x in recurring {
        let _ = writeln!(
            o,
            "| {} | {} |",
            place(x),
            recurring_cells(x, name_of, meanwhile)
        );
    }
    for x in singles {
        let _ = writeln!(
            o,
            "| {} | {} → {} | #{} | {} | {} | — | {} |",
            place(x),
            name_of(&x["after"]),
            name_of(&x["before"]),
            num(&x["frame_index"]),
            msu(num(&x["duration_ns"])),
            msu(num(&x["duration_ns"])),
            meanwhile(x)
        );
    }
    more_md(o, recurring.len(), num(&g["total_recurring_idle"]));
    more_md(o, singles.len(), num(&g["total_idle"]));
}

/// "… 12 more (--top shows them)." under a cut list.
fn more_md(o: &mut String, shown: usize, total: i64) {
    if total > shown as i64 {
        let _ = writeln!(o, "\n… {} more (`--top` shows them).", total - shown as i64);
    }
}

fn comparison_md(o: &mut String, c: &ComparisonReport) {
    let unit = c.frame.basis.unit();
    let _ = writeln!(o, "## What changed (B against A)\n");
    for w in &c.warnings {
        let _ = writeln!(o, "> [!WARNING]\n> {}\n", cell(w));
    }
    let _ = writeln!(o, "{}\n", drift_md(c));
    if !c.conditions.is_empty() {
        let _ = writeln!(o, "**What else differs between the runs**:\n");
        for x in &c.conditions {
            let _ = writeln!(o, "- {x}");
        }
        o.push('\n');
    }
    let f = &c.frame;
    let (what, counted) = match f.basis {
        Basis::Frame => (
            "**The frame**".to_owned(),
            format!("A has {} frames, B {}", c.frames_a, c.frames_b),
        ),
        Basis::Second => (
            format!(
                "**Per second** (a recording that is one frame, or frames far longer than \
                 their scopes, is judged per second of its run): {}'s scope time per second",
                cell(thread_label(&f.thread))
            ),
            format!("A runs {} s, B {} s", c.units.0, c.units.1),
        ),
    };
    let _ = writeln!(
        o,
        "{what}: median {} → {} ({}), mean {} → {} ({} per {unit}): {}{}. \
         {counted}; every figure below is per {unit}.\n",
        msu(f.median_a_ns),
        msu(f.median_b_ns),
        signed_ms(f.delta_median_ns as f64),
        msu(f.mean_a_ns.round() as i64),
        msu(f.mean_b_ns.round() as i64),
        signed_ms(f.delta_mean_ns),
        f.kind.words(),
        f.p.map_or(String::new(), |p| format!(" ({})", p_text(p))),
    );
    if !f.contributions.is_empty() {
        let parts: Vec<String> = f
            .contributions
            .iter()
            .map(|x| {
                format!(
                    "{} {} ({})",
                    escape::markdown_code(&x.name),
                    signed_ms(x.self_delta_per_frame_ns),
                    x.kind.words()
                )
            })
            .collect();
        let more = f.total_contributions - f.contributions.len();
        let _ = writeln!(
            o,
            "**Where the mean {unit}'s {} went** (self time per {unit} on {}): {}{}; \
             **{:.0}% explained** by the names judged a change. Outside {}'s scopes \
             (unprofiled, idle or waiting): {}.\n",
            signed_ms(f.delta_mean_ns),
            cell(thread_label(&f.thread)),
            parts.join(", "),
            if more > 0 {
                format!(", … {more} more (--top shows them)")
            } else {
                String::new()
            },
            f.explained_pct,
            cell(thread_label(&f.thread)),
            signed_ms(f.outside_scopes_ns)
        );
        if f.drift_ns.abs() >= c.noise.ms * 1e6 {
            let _ = writeln!(
                o,
                "Of the mean frame's {}, the run-to-run drift accounts for {} ({:.0}%): {}'s \
                 scope time in A times the drift factor.\n",
                signed_ms(f.delta_mean_ns),
                signed_ms(f.drift_ns),
                f.drift_pct,
                cell(thread_label(&f.thread)),
            );
        }
    }
    for n in &f.notes {
        let _ = writeln!(o, "> [!NOTE]\n> {}\n", cell(n));
    }
    if let Some(g) = &c.gate {
        if g.drift_tripped {
            let _ = writeln!(
                o,
                "> [!CAUTION]\n> **Regression gate: failed on the drift.** B's per-call cost \
                 moved {:+.1}% across the board, past --fail-on-drift {}%.\n",
                c.drift.as_ref().map_or(0.0, |d| d.pct),
                g.drift_limit_pct.unwrap_or(0.0)
            );
        }
        if !g.pct.is_finite() {
            // Only --fail-on-drift: no row limit.
        } else if g.tripped.is_empty() {
            let _ = writeln!(
                o,
                "**Regression gate: passed.** No name judged slower per call, run more often \
                 or costlier costs more than {} per {unit} beyond the drift in its own time \
                 ({}% of A's mean {unit}, at least {} ms).\n",
                msu(g.limit_ns.round() as i64),
                g.pct,
                g.min_ms
            );
        } else {
            let _ = writeln!(
                o,
                "> [!CAUTION]\n> **Regression gate: failed.** {} row(s) cost more than {} per \
                 frame ({}% of A's mean frame, at least {} ms):\n",
                g.tripped.len(),
                msu(g.limit_ns.round() as i64),
                g.pct,
                g.min_ms
            );
            for t in &g.tripped {
                let _ = writeln!(
                    o,
                    "> - {}: {}, {} per {unit} beyond the drift ({:.1}% of the frame; {} in all)",
                    escape::markdown_code(&t.name),
                    t.kind.words(),
                    signed_ms(t.beyond_drift_ns),
                    t.frame_pct,
                    signed_ms(t.delta_per_frame_ns),
                );
            }
            o.push('\n');
        }
    }
    if !c.look_first.is_empty() {
        let _ = writeln!(o, "### Look at first\n");
        for (k, l) in c.look_first.iter().enumerate() {
            let _ = writeln!(o, "{}. {l}", k + 1);
        }
        o.push('\n');
    }
    let _ = writeln!(
        o,
        "### Judged changes ({} of {} names changed{})\n",
        c.changed_rows,
        c.total_rows,
        if c.rows.len() < c.changed_rows {
            format!("; the {} largest listed, --top shows more", c.rows.len())
        } else {
            String::new()
        }
    );
    if c.rows.is_empty() {
        let _ = writeln!(o, "None: every name is within noise.\n");
    } else {
        let _ = writeln!(
            o,
            "| scope | A per {unit} | B per {unit} | Δ per {unit} | calls per {unit} | median per call | judgement |\n\
             |---|---:|---:|---:|---:|---:|---|"
        );
        let min_ns = c.noise.ms * 1e6;
        for r in &c.rows {
            let note = match &r.spike_call {
                Some(s) => format!(": frame {} of {}", s.frame_index, s.side),
                // Its total moved, its own time did not: its children's change.
                None if r.self_delta_per_frame_ns.abs() < min_ns
                    && r.change.delta_per_frame_ns.abs() >= min_ns
                    && !matches!(r.change.kind, Kind::New | Kind::Gone) =>
                {
                    " (in its children: its own time did not change)".to_owned()
                }
                None => String::new(),
            };
            judged_row_md(
                o,
                (&escape::markdown_code(&r.name), &note),
                &r.a,
                &r.b,
                &r.change,
                c,
            );
            for d in &r.by_data {
                let label = format!("↳ data {}", escape::markdown_code(&d.data));
                judged_row_md(o, (&label, ""), &d.a, &d.b, &d.change, c);
            }
            if r.total_data > r.by_data.len() {
                let _ = writeln!(
                    o,
                    "| ↳ … {} more data strings |  |  |  |  |  |  |",
                    r.total_data - r.by_data.len()
                );
            }
        }
    }
    let _ = writeln!(
        o,
        "\n{} Noise: {}%, {} ms per {unit}, alpha {}. {}",
        if c.basis == Basis::Second {
            JUDGEMENT_LEGEND
                .replace("per frame", "per second")
                .replace("its frames", "its seconds")
        } else {
            JUDGEMENT_LEGEND.to_owned()
        },
        c.noise.pct,
        c.noise.ms,
        c.noise.alpha,
        if c.noise.model == "between-runs" {
            format!(
                "Noise model: between runs ({} runs of A, {} of B): a change must also exceed \
                 how far the row varies between one side's runs.",
                c.noise.runs.0, c.noise.runs.1
            )
        } else {
            "Noise model: within one run a side: a change must also exceed how far the row \
             wanders between fifths of each capture (frames are not independent); record \
             several runs a side (A1 A2 --vs B1 B2) for the honest noise."
                .to_owned()
        }
    );
    let list = |v: &[String]| {
        if v.is_empty() {
            "none".to_owned()
        } else {
            v.iter()
                .map(|n| escape::markdown_code(n))
                .collect::<Vec<_>>()
                .join(", ")
        }
    };
    let _ = writeln!(
        o,
        "\n- **Real changes** (per call or how often; not one spike): {}",
        list(&c.changes)
    );
    let _ = writeln!(
        o,
        "- **Explained by one spike** (an average would mislead; see `calls`): {}",
        list(&c.spikes)
    );
    let _ = writeln!(o, "- **New in B**: {}", list(&c.new));
    let _ = writeln!(o, "- **Gone in B**: {}\n", list(&c.gone));
    if !c.hot_paths.is_empty() {
        let _ = writeln!(
            o,
            "### Where it changed (differential tree, largest |Δ| first, totals over all frames)\n"
        );
        for p in &c.hot_paths {
            let path: Vec<String> = p
                .steps
                .iter()
                .map(|st| {
                    format!(
                        "{} {:+.3} ms",
                        escape::markdown_code(text(&st["name"])),
                        num(&st["delta_total_ns"]) as f64 / 1e6
                    )
                })
                .collect();
            let _ = writeln!(
                o,
                "- **{}**: {}",
                cell(thread_label(&p.thread)),
                path.join(" > ")
            );
        }
        o.push('\n');
    }
}

/// One row of the judged table (`label` already Markdown; `note` after the
/// judgement).
/// The drift's line at the top of the comparison: named past the noise
/// percentage, mentioned otherwise.
fn drift_md(c: &ComparisonReport) -> String {
    match (&c.drift, c.drift_judged) {
        (_, false) => "**Run-to-run drift**: not judged (--no-drift): each row's per-call change \
             is B against A as it is, machine speed included."
            .to_owned(),
        (None, true) => format!(
            "**Run-to-run drift**: not estimated: fewer than {} names with at least {} calls \
             and {} µs of own time per call on both sides. Rows are judged B against A as they are.",
            drift::MIN_SCOPES,
            drift::MIN_CALLS,
            drift::MIN_SELF_PER_CALL_NS / 1e3
        ),
        (Some(d), true) if d.named => format!(
            "> [!IMPORTANT]\n> **Run-to-run drift**: {}",
            drift::sentence(d)
        ),
        (Some(d), true) => format!(
            "**Run-to-run drift**: {:+.1}% (±{:.1}%, from {} busy names), within the noise \
             percentage ({}%); rows are judged against it.",
            d.pct, d.spread_pct, d.scopes_used, c.noise.pct
        ),
    }
}

fn judged_row_md(
    o: &mut String,
    (label, note): (&str, &str),
    a: &Option<SideStats>,
    b: &Option<SideStats>,
    ch: &Change,
    c: &ComparisonReport,
) {
    let per_frame = |s: &Option<SideStats>, frames: usize| {
        s.as_ref().map_or("—".to_owned(), |s| {
            msu((s.total_ns as f64 / frames.max(1) as f64).round() as i64)
        })
    };
    let median = |m: Option<i64>| m.map_or("—".to_owned(), msu);
    let judgement = match ch.kind {
        Kind::Spike => format!(
            "**one spike** (the other calls: {})",
            ch.rest.unwrap_or_default().words()
        ),
        Kind::New | Kind::Gone | Kind::Unchanged => ch.kind.words().to_owned(),
        _ => format!("**{}**", describe_per(ch, c.basis)),
    } + note;
    let _ = writeln!(
        o,
        "| {label} | {} | {} | {} | {:.2} → {:.2} | {} → {} | {} |",
        per_frame(a, c.units.0),
        per_frame(b, c.units.1),
        signed_ms(ch.delta_per_frame_ns),
        ch.calls_per_frame_a,
        ch.calls_per_frame_b,
        median(ch.median_a_ns),
        median(ch.median_b_ns),
        judgement
    );
}

impl Report {
    /// One self-contained page (no external requests): the Markdown's
    /// sections plus inline SVG charts (frame times, the gaps, the calls of
    /// each outlier).
    pub fn html(&self) -> String {
        use pulldown_cmark::{Options, Parser, html};
        let md = self.render_md(true);
        let mut body = String::new();
        html::push_html(
            &mut body,
            Parser::new_ext(&md, Options::ENABLE_TABLES | Options::ENABLE_GFM),
        );
        let mut out = String::with_capacity(body.len() + 4096);
        let mut rest = body.as_str();
        while let Some(at) = rest.find("<!--chart:") {
            out.push_str(&rest[..at]);
            let end = rest[at..].find("-->").map_or(rest.len(), |e| at + e + 3);
            let spec: Vec<&str> = rest[at + 10..end.saturating_sub(3)].split(':').collect();
            if let [kind, r, j] = spec.as_slice() {
                let r = r.parse::<usize>().ok().and_then(|r| self.recordings.get(r));
                let j = j.parse::<usize>().unwrap_or(0);
                if let Some(r) = r {
                    out.push_str(&match *kind {
                        "frames" => frames_svg(r),
                        "gaps" => gaps_svg(r, "gaps"),
                        "recurring" => gaps_svg(r, "recurring"),
                        "calls" => r.outliers.get(j).map(calls_svg).unwrap_or_default(),
                        _ => String::new(),
                    });
                }
            }
            rest = &rest[end..];
        }
        out.push_str(rest);
        let title = self
            .recordings
            .iter()
            .map(|r| r.summary.file.as_str())
            .collect::<Vec<_>>()
            .join(" vs ");
        format!(
            "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
             <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
             <title>puffin-lens report: {}</title><style>{CSS}</style></head>\n<body>\n{out}</body></html>\n",
            escape::html(&title)
        )
    }
}

const CSS: &str = "body{font:14px/1.45 system-ui,sans-serif;max-width:1100px;margin:24px auto;padding:0 16px;color:#222}\
table{border-collapse:collapse;margin:8px 0}th,td{border:1px solid #ccc;padding:3px 8px}\
th{background:#f3f3f3}td{font-variant-numeric:tabular-nums}code{background:#f3f3f3;padding:0 3px}\
blockquote{border-left:4px solid #d9822b;background:#fff5e6;margin:8px 0;padding:6px 12px}\
svg{display:block;margin:8px 0}h2{border-bottom:1px solid #ddd;margin-top:32px}";

/// Frame durations in file order: one bar per frame, the median dashed.
fn frames_svg(r: &RecordingReport) -> String {
    let d = &r.frame_durations_ns;
    let (w, h) = (900.0, 160.0);
    let max = d.iter().copied().max().unwrap_or(1).max(1) as f64;
    let bw = w / d.len().max(1) as f64;
    let mut o = format!(
        "<svg class=\"chart frames\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{}\" \
         role=\"img\"><title>frame times (ms), one bar per frame in file order</title>",
        h + 20.0
    );
    for (k, &ns) in d.iter().enumerate() {
        let bh = ns as f64 / max * h;
        let color = if ns > r.median_frame_ns * 2 {
            "#d9822b"
        } else {
            "#4a78b0"
        };
        let _ = write!(
            o,
            "<rect x=\"{:.2}\" y=\"{:.2}\" width=\"{:.2}\" height=\"{bh:.2}\" fill=\"{color}\"/>",
            k as f64 * bw,
            h - bh,
            (bw - 0.5).max(0.5)
        );
    }
    let my = h - r.median_frame_ns as f64 / max * h;
    let _ = write!(
        o,
        "<line x1=\"0\" x2=\"{w}\" y1=\"{my:.2}\" y2=\"{my:.2}\" stroke=\"#222\" stroke-dasharray=\"4 3\"/>\
         <text x=\"4\" y=\"{}\" font-size=\"12\">max {} · dashed: median {} · orange: over twice the median</text></svg>",
        h + 15.0,
        msu(max as i64),
        msu(r.median_frame_ns)
    );
    o
}

/// Each gap as a bar on its thread's lane, the other threads' busy time
/// in that window beside it.
fn gaps_svg(r: &RecordingReport, list: &str) -> String {
    let gaps = r.gaps[list].as_array().map_or(&[][..], |v| v.as_slice());
    let shown = &gaps[..gaps.len().min(20)];
    // A recurring gap's bar is its total, a one-off gap's its duration.
    let size = |g: &Value| {
        if g["total_ns"].is_null() {
            num(&g["duration_ns"])
        } else {
            num(&g["total_ns"])
        }
    };
    let max = shown.iter().map(size).max().unwrap_or(1).max(1) as f64;
    let row = 22.0;
    let mut o = format!(
        "<svg class=\"chart gaps\" xmlns=\"http://www.w3.org/2000/svg\" width=\"900\" height=\"{}\" \
         role=\"img\"><title>unprofiled gaps: red the gap, blue the busiest other thread meanwhile</title>",
        row * shown.len() as f64 + 6.0
    );
    for (k, g) in shown.iter().enumerate() {
        let y = k as f64 * row + 3.0;
        let gw = size(g) as f64 / max * 420.0;
        let busy = g["other_threads"]
            .as_array()
            .and_then(|v| v.iter().max_by_key(|b| num(&b["busy_ns"])));
        let bw = busy.map_or(0.0, |b| num(&b["busy_ns"]) as f64 / max * 420.0);
        let label = if g["total_ns"].is_null() {
            format!("#{}", num(&g["frame_index"]))
        } else {
            format!("{} in {} frames", text(&g["kind"]), num(&g["frames"]))
        };
        let thread = text(&g["thread"]);
        let _ = write!(
            o,
            "<rect x=\"230\" y=\"{y}\" width=\"{gw:.2}\" height=\"8\" fill=\"#c0392b\"/>\
             <rect x=\"230\" y=\"{:.1}\" width=\"{bw:.2}\" height=\"8\" fill=\"#4a78b0\"/>\
             <text x=\"0\" y=\"{:.1}\" font-size=\"12\">{} {} {}</text>",
            y + 9.0,
            y + 13.0,
            escape::html(if between_frames(g) {
                "between frames"
            } else {
                thread_label(thread)
            }),
            escape::html(&label),
            msu(size(g)),
        );
        if let Some(b) = busy {
            let _ = write!(
                o,
                "<text x=\"{:.1}\" y=\"{:.1}\" font-size=\"11\">{} busy {}</text>",
                236.0 + gw.max(bw),
                y + 13.0,
                escape::html(thread_label(text(&b["thread"]))),
                msu(num(&b["busy_ns"]))
            );
        }
    }
    o.push_str("</svg>");
    o
}

/// The histogram of an outlier's call durations (20 bins).
fn calls_svg(x: &Outlier) -> String {
    let max = x.calls_ns.iter().copied().max().unwrap_or(1).max(1) as f64;
    let mut bins = [0u32; 20];
    for &c in &x.calls_ns {
        let b = ((c as f64 / max) * 19.999) as usize;
        bins[b.min(19)] += 1;
    }
    let top = bins.iter().copied().max().unwrap_or(1).max(1) as f64;
    let (w, h) = (400.0, 90.0);
    let mut o = format!(
        "<svg class=\"chart calls\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{}\" \
         role=\"img\"><title>{}: calls by duration</title>",
        h + 18.0,
        escape::html(&x.name)
    );
    for (k, &n) in bins.iter().enumerate() {
        let bh = if n == 0 {
            0.0
        } else {
            (n as f64 / top * h).max(2.0)
        };
        let _ = write!(
            o,
            "<rect x=\"{:.1}\" y=\"{:.1}\" width=\"18\" height=\"{bh:.1}\" fill=\"{}\"/>",
            k as f64 * 20.0,
            h - bh,
            if k == 19 { "#d9822b" } else { "#4a78b0" }
        );
    }
    let _ = write!(
        o,
        "<text x=\"0\" y=\"{}\" font-size=\"12\">{}: {} calls from 0 to {} (orange: the largest)</text></svg>",
        h + 14.0,
        escape::html(&x.name),
        x.count,
        msu(max as i64)
    );
    o
}
