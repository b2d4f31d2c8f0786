//! `puffin-lens report`: the investigation of SPEC.md in one document, built
//! from the existing queries (each JSON section is the `--json` of its
//! query), with the workflow's judgement calls: registration first,
//! outliers before averages, gaps with the other threads, and changes that
//! one spike explains called out as such.
//!
//! Rendered as GitHub-flavoured Markdown ([`Report::markdown`]), one
//! self-contained HTML page with inline SVG charts ([`Report::html`]), or
//! JSON (serde).

use super::analyses::calls::calls;
use super::analyses::common::spike;
use super::analyses::compare::{
    CompareOptions, CompareSort, CompareTable, Pair, Status, compare_warnings,
};
use super::analyses::coverage;
use super::analyses::diff::{joined_children, joined_threads};
use super::analyses::find::GroupBy;
use super::analyses::stats::scope_stats;
use super::analyses::tree::{MAX_REPORT_LEVELS, MergedTree, NodeId, merged_tree_levels};
use crate::engine::Decoded;
use crate::engine::api::{self, Answer, Request, Summary};
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
    /// Gaps shorter than this are left out.
    pub gap_ms: f64,
}

impl Default for ReportOptions {
    fn default() -> Self {
        Self {
            top: 10,
            gap_ms: 1.0,
        }
    }
}

/// The whole report.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    pub tool: String,
    pub recordings: Vec<RecordingReport>,
    /// With two recordings: B against A.
    pub comparison: Option<ComparisonReport>,
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
    /// `top --top N`.
    pub slowest_scopes: Value,
    /// Totals per name, largest total first: `{name, count, total_ns, self_ns, p95_ns, max_ns}`.
    pub totals: Vec<TotalRow>,
    /// Per thread, the merged tree's path following the largest child.
    pub hot_paths: Vec<HotPath>,
    /// `gaps --min-ms X`.
    pub gaps: Value,
    /// Scopes whose largest call is more than half of their total.
    pub outliers: Vec<Outlier>,
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
    pub count: u64,
    pub total_ns: i64,
    pub max_ns: i64,
    /// max / total.
    pub max_share: f64,
    /// Where the largest call ran.
    pub frame_index: u64,
    pub thread: String,
    /// Every call's duration, in time order (for the histogram).
    pub calls_ns: Vec<i64>,
}

#[derive(Clone, Debug, Serialize)]
pub struct ComparisonReport {
    /// `compare`'s warnings (a registration mismatch).
    pub warnings: Vec<String>,
    pub frames_a: usize,
    pub frames_b: usize,
    /// Totals are summed over all frames, never divided by the frame count.
    pub normalized: bool,
    /// The rows of `compare --top N` (largest |Δ total| first).
    pub rows: Value,
    /// Rows whose change one call explains (`spike`), by name.
    pub spikes: Vec<String>,
    /// Rows that changed in both, without one call explaining it.
    pub changes: Vec<String>,
    pub new: Vec<String>,
    pub gone: Vec<String>,
    /// Per thread, the differential tree's path following the largest |Δ|.
    pub hot_paths: Vec<DiffHotPath>,
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
        let tree = |d: &Decoded| {
            let t = &d.trace;
            merged_tree_levels(t, 0..t.frames.len() as u32, None, MAX_REPORT_LEVELS)
        };
        let tree_a = tree(a.1);
        let mut recordings = vec![recording(&label("A"), a.0, a.1, &tree_a, opts)];
        let comparison = b.map(|(name, decoded)| {
            let tree_b = tree(decoded);
            recordings.push(recording("B", name, decoded, &tree_b, opts));
            comparison(a.1, decoded, (&tree_a, &tree_b), opts)
        });
        Self {
            tool: format!("puffin-lens {}", env!("CARGO_PKG_VERSION")),
            recordings,
            comparison,
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
    let outliers: Vec<Outlier> = totals
        .iter()
        .filter(|r| spike(r.count, r.max_ns, r.total_ns))
        .filter_map(|r| {
            let calls = calls(t, &r.name)?;
            let worst = calls
                .calls
                .iter()
                .max_by_key(|c| (c.duration_ns, std::cmp::Reverse(c.start_ns)))?;
            Some(Outlier {
                name: r.name.clone(),
                count: r.count,
                total_ns: r.total_ns,
                max_ns: r.max_ns,
                max_share: r.max_ns as f64 / r.total_ns.max(1) as f64,
                frame_index: worst.frame_index,
                thread: worst.thread.clone(),
                calls_ns: calls.calls.iter().map(|c| c.duration_ns).collect(),
            })
        })
        .collect();
    totals.truncate(n);
    // The first child is the largest (children by total, then name).
    let hot_paths = tree
        .threads
        .iter()
        .map(|&th| {
            let mut steps = Vec::new();
            let mut level = tree.children(th);
            while let Some(&n) = level.first() {
                steps.push(HotStep {
                    name: t.str(tree.name[n.idx()]).to_owned(),
                    count: tree.count[n.idx()],
                    total_ns: tree.total_ns[n.idx()],
                    self_ns: tree.self_ns[n.idx()],
                });
                level = tree.children(n);
            }
            HotPath {
                thread: t.str(tree.name[th.idx()]).to_owned(),
                steps,
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
        slowest_scopes: to_value(ask("top", json!({ "top": n }), d, None)),
        totals,
        hot_paths,
        gaps: to_value(ask("gaps", json!({ "min_ms": opts.gap_ms }), d, None)),
        outliers,
        frame_durations_ns,
        frames_absent_note: coverage::frame_coverage(t)
            .as_ref()
            .and_then(coverage::absent_note),
    }
}

fn comparison(
    a: &Decoded,
    b: &Decoded,
    trees: (&MergedTree, &MergedTree),
    opts: ReportOptions,
) -> ComparisonReport {
    let table = CompareTable::new(&a.trace, &b.trace);
    let joined = table.with(&a.trace, &b.trace);
    // Judged by name: the rows of a name (all its data strings) together,
    // names in the order of their first row (largest |Δ total| first). Each
    // row judged once; per list (spikes, changes, new, gone), each name's
    // first row.
    let mut first: [FxHashMap<u64, Pair>; 4] = Default::default();
    for &p in joined.pairs() {
        let r = joined.facts(p);
        let list = match judge(r.status, r.spike, r.delta_total_ns, r.count_a, r.count_b) {
            Judgement::Spike => 0,
            Judgement::Change => 1,
            Judgement::New => 2,
            Judgement::Gone => 3,
            Judgement::Unchanged => continue,
        };
        first[list]
            .entry(joined.name_key(p))
            .and_modify(|q| {
                if joined.cmp(CompareSort::AbsDelta, p, *q).is_lt() {
                    *q = p;
                }
            })
            .or_insert(p);
    }
    let [spikes, changes, new, gone] = first.map(|rows| {
        joined
            .first(
                rows.into_values().collect(),
                opts.top,
                CompareSort::AbsDelta,
            )
            .into_iter()
            .map(|p| joined.name(p).to_owned())
            .collect::<Vec<String>>()
    });
    // From each thread, the child with the largest |Δ| (ties: the first
    // name), while something changed: the diff tree's order, walked along
    // one path instead of built whole.
    let (ta, tb) = trees;
    let (a, b) = (&a.trace, &b.trace);
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
        frames_a: a.frames.len(),
        frames_b: b.frames.len(),
        normalized: false,
        // `compare --top N`'s rows: the first N of the full comparison.
        rows: serde_json::to_value(joined.rows(&CompareOptions {
            top: opts.top,
            filter: None,
            hide_below_ns: 0,
            sort: CompareSort::AbsDelta,
        }))
        .unwrap_or(Value::Null),
        spikes,
        changes,
        new,
        gone,
        hot_paths,
    }
}

/// How the report judges a row of the comparison (stated in its legend).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Judgement {
    New,
    Gone,
    /// The same count and the same total in A and B.
    Unchanged,
    /// One call is more than half of a side's total: the change is that call.
    Spike,
    /// A change spread over the calls.
    Change,
}

fn judge(
    status: Status,
    spike: bool,
    delta_total_ns: i64,
    count_a: Option<u64>,
    count_b: Option<u64>,
) -> Judgement {
    match status {
        Status::New => Judgement::New,
        Status::Gone => Judgement::Gone,
        Status::Both if delta_total_ns == 0 && count_a == count_b => Judgement::Unchanged,
        Status::Both if spike => Judgement::Spike,
        Status::Both => Judgement::Change,
    }
}

/// The legend under the comparison table.
const JUDGEMENT_LEGEND: &str = "Judgement: **unchanged** when A and B have the same count and \
the same total; **one spike** when one call is more than half of a side's total (the change is \
that call, not the average: see `calls`); **change** otherwise; **new in B** and **gone in B** \
when only one side has the row.";

/// `12.345 ms`.
fn msu(ns: i64) -> String {
    format!("{} ms", ms(ns))
}

/// Recording text as Markdown (a cell, a heading, running text).
fn cell(s: &str) -> std::borrow::Cow<'_, str> {
    escape::markdown(s)
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
    let _ = writeln!(
        o,
        "### {h}Slowest frames (median frame {})\n",
        msu(r.median_frame_ns)
    );
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
    if let Some(rows) = r.slowest_frame_threads.as_array() {
        let frame = r
            .slowest_frames
            .get(0)
            .map_or(0, |f| num(&f["frame_index"]));
        let _ = writeln!(o, "\n### {h}Threads of the slowest frame ({frame})\n");
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
    let _ = writeln!(o, "\n### {h}Slowest scopes\n");
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
            "- **{}**: {}",
            cell(thread_label(&p.thread)),
            path.join(" > ")
        );
    }
    let gaps = r.gaps.as_array().map_or(&[][..], |v| v.as_slice());
    let _ = writeln!(o, "\n### {h}Unprofiled gaps ({} found)\n", gaps.len());
    if gaps.is_empty() {
        let _ = writeln!(o, "None at or above the threshold.");
    } else {
        if let Some(k) = charts {
            let _ = writeln!(o, "<!--chart:gaps:{k}:0-->\n");
        }
        let _ = writeln!(
            o,
            "| thread | frame | gap | inside | after | other threads busy then |\n|---|---:|---:|---|---|---|"
        );
        for g in gaps {
            let others: Vec<String> = g["other_threads"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|b| {
                    format!(
                        "{} {}",
                        cell(thread_label(text(&b["thread"]))),
                        msu(num(&b["busy_ns"]))
                    )
                })
                .collect();
            let _ = writeln!(
                o,
                "| {} | {} | {} | {} | {} | {} |",
                cell(thread_label(text(&g["thread"]))),
                num(&g["frame_index"]),
                msu(num(&g["duration_ns"])),
                cell(text(&g["parent"]["name"])),
                cell(text(&g["after"]["name"])),
                if others.is_empty() {
                    "none".to_owned()
                } else {
                    others.join(", ")
                }
            );
        }
    }
    let _ = writeln!(o, "\n### {h}Outliers: one call is most of the total\n");
    if r.outliers.is_empty() {
        let _ = writeln!(
            o,
            "None: no scope's largest call is more than half of its total.\n"
        );
    } else {
        let _ = writeln!(
            o,
            "Averages of these scopes mislead: look at the one call.\n\n\
             | scope | calls | total | largest call | share | frame | thread |\n|---|---:|---:|---:|---:|---:|---|"
        );
        for x in &r.outliers {
            let _ = writeln!(
                o,
                "| {} | {} | {} | {} | {:.0}% | {} | {} |",
                cell(&x.name),
                x.count,
                msu(x.total_ns),
                msu(x.max_ns),
                x.max_share * 100.0,
                x.frame_index,
                cell(thread_label(&x.thread))
            );
        }
        o.push('\n');
        if let Some(k) = charts {
            for j in 0..r.outliers.len() {
                let _ = writeln!(o, "<!--chart:calls:{k}:{j}-->\n");
            }
        }
    }
}

fn comparison_md(o: &mut String, c: &ComparisonReport) {
    let _ = writeln!(o, "## What changed (B against A)\n");
    for w in &c.warnings {
        let _ = writeln!(o, "> [!WARNING]\n> {}\n", cell(w));
    }
    let _ = writeln!(
        o,
        "A has {} frames, B {}; totals are summed over all frames, not normalized{}.\n",
        c.frames_a,
        c.frames_b,
        if c.frames_a != c.frames_b {
            " (the frame counts differ: compare per call, or per frame)"
        } else {
            ""
        }
    );
    let _ = writeln!(
        o,
        "| scope | data | A total | B total | Δ total | Δ per call | judgement |\n|---|---|---:|---:|---:|---:|---|"
    );
    for r in c.rows.as_array().into_iter().flatten() {
        let total = |side: &Value| {
            if side.is_null() {
                "—".to_owned()
            } else {
                msu(num(&side["total_ns"]))
            }
        };
        let status = match text(&r["status"]) {
            "new" => Status::New,
            "gone" => Status::Gone,
            _ => Status::Both,
        };
        let count = |side: &Value| side["count"].as_u64();
        let judgement = match judge(
            status,
            r["spike"].as_bool().unwrap_or(false),
            num(&r["delta_total_ns"]),
            count(&r["a"]),
            count(&r["b"]),
        ) {
            Judgement::New => "new in B",
            Judgement::Gone => "gone in B",
            Judgement::Unchanged => "unchanged",
            Judgement::Spike => "**one spike** (one call dominates)",
            Judgement::Change => "change",
        };
        let per_call = r["delta_per_call_ns"]
            .as_f64()
            .map_or("—".to_owned(), |d| msu(d.round() as i64));
        let _ = writeln!(
            o,
            "| {} | {} | {} | {} | {} | {} | {} |",
            cell(text(&r["name"])),
            cell(text(&r["data"])),
            total(&r["a"]),
            total(&r["b"]),
            msu(num(&r["delta_total_ns"])),
            per_call,
            judgement
        );
    }
    let _ = writeln!(o, "\n{JUDGEMENT_LEGEND}");
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
        "\n- **Real changes** (spread over the calls, not one spike): {}",
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
            "### Where it changed (differential tree, largest |Δ| first)\n"
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
                        "gaps" => gaps_svg(r),
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
fn gaps_svg(r: &RecordingReport) -> String {
    let gaps = r.gaps.as_array().map_or(&[][..], |v| v.as_slice());
    let shown = &gaps[..gaps.len().min(20)];
    let max = shown
        .iter()
        .map(|g| num(&g["duration_ns"]))
        .max()
        .unwrap_or(1)
        .max(1) as f64;
    let row = 22.0;
    let mut o = format!(
        "<svg class=\"chart gaps\" xmlns=\"http://www.w3.org/2000/svg\" width=\"900\" height=\"{}\" \
         role=\"img\"><title>unprofiled gaps: red the gap, blue the busiest other thread meanwhile</title>",
        row * shown.len() as f64 + 6.0
    );
    for (k, g) in shown.iter().enumerate() {
        let y = k as f64 * row + 3.0;
        let gw = num(&g["duration_ns"]) as f64 / max * 420.0;
        let busy = g["other_threads"]
            .as_array()
            .and_then(|v| v.iter().max_by_key(|b| num(&b["busy_ns"])));
        let bw = busy.map_or(0.0, |b| num(&b["busy_ns"]) as f64 / max * 420.0);
        let _ = write!(
            o,
            "<rect x=\"230\" y=\"{y}\" width=\"{gw:.2}\" height=\"8\" fill=\"#c0392b\"/>\
             <rect x=\"230\" y=\"{:.1}\" width=\"{bw:.2}\" height=\"8\" fill=\"#4a78b0\"/>\
             <text x=\"0\" y=\"{:.1}\" font-size=\"12\">{} #{} {}</text>",
            y + 9.0,
            y + 13.0,
            escape::html(thread_label(text(&g["thread"]))),
            num(&g["frame_index"]),
            msu(num(&g["duration_ns"])),
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
