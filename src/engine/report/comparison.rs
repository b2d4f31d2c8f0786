//! The comparison's sections (B against A): the judged table, the
//! conditions that differ, spikes, drift, and what to look at first.

use super::text::{between_frames, cell, describe_per, msu, num, path_md, signed_ms, text};
use super::{
    CallsChanged, ComparisonReport, DataRow, DiffHotPath, JudgedRow, NoiseUsed, OffCriticalPath,
    OverTime, ParallelFigures, RecordingReport, RenameRow, ReportOptions, SpikeCall, Unchanged,
};
use crate::engine::Decoded;
use crate::engine::analyses::accounting::{frame_account, self_by_name};
use crate::engine::analyses::basis::{Basis, Units};
use crate::engine::analyses::compare::{
    COUNTED_NAMES, CompareTable, Joined, Pair, SideStats, Status, compare_warnings,
};
use crate::engine::analyses::diff::{joined_children, joined_threads};
use crate::engine::analyses::drift;
use crate::engine::analyses::find::GroupBy;
use crate::engine::analyses::gap_diff::{GapVerdict, gap_changes};
use crate::engine::analyses::gaps::{GapKind, GapPlace};
use crate::engine::analyses::judge::{Change, DriftMode, Kind};
use crate::engine::analyses::kinship;
use crate::engine::analyses::place::place;
use crate::engine::analyses::rename::{Rename, renames_in};
use crate::engine::analyses::restructure::{Restructures, restructures};
use crate::engine::analyses::shape::{self, Shape, classify_runs, compared_words, series_by_name};
use crate::engine::analyses::transform::{Stack, Transformed, transformed_with_nodes};
use crate::engine::analyses::transient::SteadyPair;
use crate::engine::analyses::tree::{MAX_REPORT_LEVELS, MergedTree, NodeId};
use crate::engine::analyses::verdict::frame_gate;
use crate::engine::analyses::wait_diff::{WaitChange, wait_changes};
use crate::engine::analyses::waits::concurrency;
use crate::engine::model::Trace;
use crate::engine::write::escape;
use crate::units::thread_label;
use rustc_hash::FxHashMap;
use serde_json::json;

/// Both recordings' trees, sections and each scope's node in the tree
/// (empty when the report's stack transforms the trees):
/// [`super::Report::transformed`]'s `sides`, made beside the comparison's
/// first steps.
pub(super) type Sides = (
    (Transformed, RecordingReport, Vec<u32>),
    (Transformed, RecordingReport, Vec<u32>),
);

/// The comparison of `a` and `b`, with their trees and sections: `sides`
/// makes them on another core (rayon) while the steady states are found and
/// the names' table judged, the one the comparison waits for first.
pub(super) fn comparison(
    da: &Decoded,
    db: &Decoded,
    sides: impl FnOnce() -> Sides + Send,
    opts: &ReportOptions,
    stack: &Stack,
) -> (ComparisonReport, Sides) {
    let (a, b) = (&da.trace, &db.trace);
    let (sides, (edges, by_name)) = crate::engine::join(sides, || {
        // The steady states are compared: each run's start-up and shutdown
        // (its transients) are left out and said so.
        let edges = SteadyPair::of(a, b, &opts.noise);
        // One grouping for the table, its lists and the gate: by name, each
        // name's (name, data) rows nested under it when data splits it.
        let (sa, sb) = edges.traces(a, b);
        let by_name = CompareTable::grouped(sa, sb, GroupBy::Name, opts.noise);
        (edges, by_name)
    });
    let mut c = judged(a, b, &edges, by_name, (&sides, stack), opts);
    c.pacing = super::pacing(da, Some(db), &opts.noise, opts.tail_gate);
    // The slow frames beside the mean: a tail that changed is said in the
    // headline even when the typical frame did not (see `pacing`).
    if let Some(tail) = c.pacing.as_ref().and_then(|p| p.changed_sentence()) {
        c.glance.headline = format!("{} {tail} (frame pacing).", c.glance.headline.trim_end());
    }
    (c, sides)
}

fn judged(
    a: &Trace,
    b: &Trace,
    edges: &SteadyPair,
    by_name: CompareTable,
    (sides, stack): (&Sides, &Stack),
    opts: &ReportOptions,
) -> ComparisonReport {
    let gaps = (&sides.0.1.recurring_gaps[..], &sides.1.1.recurring_gaps[..]);
    let (a, b) = edges.traces(a, b);
    // The change path walks the steady states' trees: the sides' own
    // (their whole recordings') where a side has no transient.
    let steady_tree = |t: &Trace, trimmed: bool| {
        trimmed.then(|| {
            let frames = 0..t.frames.len() as u32;
            let (tr, of) =
                transformed_with_nodes(t, frames, None, MAX_REPORT_LEVELS, stack, stack.is_empty());
            (tr.tree, of)
        })
    };
    let (sta, stb) = crate::engine::join(
        || steady_tree(a, !edges.a.is_empty()),
        || steady_tree(b, !edges.b.is_empty()),
    );
    let (ta, of_a) = sta
        .as_ref()
        .map_or((&sides.0.0.tree, &sides.0.2), |(t, of)| (t, of));
    let (tb, of_b) = stb
        .as_ref()
        .map_or((&sides.1.0.tree, &sides.1.2), |(t, of)| (t, of));
    // The untransformed trees, each scope's node in them: the restructured
    // places are judged on them (built there when a stack transformed these).
    let built = stack
        .is_empty()
        .then_some(((ta, &of_a[..]), (tb, &of_b[..])));
    let names = by_name.with(a, b);
    // The (name, data) rows judged against the names' drift.
    let noise = names.noise();
    // Each side's units on the comparison's basis, once.
    let (ua, ub) = (Units::new(a, names.basis()), Units::new(b, names.basis()));
    // Beside the (name, data) rows: the gap places judged with the same
    // noise and drift; a gone name and a new one at the same place (one
    // renamed row, out of the new and gone); scopes that appear or vanish
    // under a scope both run, judged by what entered there (restructured
    // places hold no cost).
    let ((gap_diff, renamed, places), by_data) = crate::engine::join(
        || {
            let gap_diff = gap_changes(a, b, &noise, names.basis(), opts.top);
            let renamed = renames_in(a, b, &names, (&ua, &ub), &noise);
            let places = restructures(a, b, (&ua, &ub), &noise, built).without_renamed(&renamed);
            (gap_diff, renamed, places)
        },
        || CompareTable::grouped(a, b, GroupBy::NameData, noise),
    );
    let data_rows = by_data.with(a, b);
    let all: Vec<Pair> = names.pairs().to_vec();
    let total_rows = all.len();
    let mut listed: Vec<(Pair, Change)> = all
        .iter()
        .filter(|&&p| names.kind(p).is_change())
        .map(|&p| (p, names.change(p)))
        .collect();
    // A gap in a restructured place is its parent's remaining own time.
    let gap_diff = gap_diff.without_places(&places, true);
    listed.retain(|(p, _)| {
        let n = names.name(*p);
        // The parent of a restructured place changed only by what it holds
        // (its own time went to the new scopes, code moved in or out is
        // judged on its own rows): no change of its own.
        !renamed.iter().any(|r| r.from == n || r.to == n)
            && !places.is_restructured(n)
            && !places.is_restructured_parent(n)
    });
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
    let unchanged = unchanged(&names, &all, &listed, opts.top, Kind::Unchanged);
    let inconclusive = unchanged_names(&names, &all, opts.top, Kind::Inconclusive);
    // The (name, data) pairs, counted as `compare` counts its rows.
    let total_pairs = data_rows.pairs().len();
    let changed_pairs = data_rows
        .pairs()
        .iter()
        .filter(|&&p| {
            let n = data_rows.name(p);
            // As the names are counted: a rename's and a restructured
            // place's names are structure, not changes of their own.
            data_rows.kind(p).is_change()
                && !places.is_restructured(n)
                && !places.is_restructured_parent(n)
                && !renamed.iter().any(|r| r.from == n || r.to == n)
        })
        .count();
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
    // Own time per unit of the comparison's basis (per second when a side
    // is unframed), as the rows' changes are.
    let (fa, fb) = (ua.count.max(1) as f64, ub.count.max(1) as f64);
    let waits = wait_changes((a, b), gaps.0, gaps.1, &names, &noise);
    // Which listed names run on several threads at once (A's and B's).
    let listed_names: Vec<&str> = listed.iter().map(|(p, _)| names.name(*p)).collect();
    let (conc_a, conc_b) = (concurrency(a, &listed_names), concurrency(b, &listed_names));
    // The spikes' calls: every spike's instances found in one pass a side.
    let spike_names: Vec<&str> = listed
        .iter()
        .filter(|(_, c)| c.kind == Kind::Spike)
        .map(|(p, _)| names.name(*p))
        .collect();
    let mut spike_calls = spike_calls(a, b, &spike_names);
    let mut at = 0usize;
    let rows: Vec<JudgedRow> = listed
        .into_iter()
        .map(|(p, change)| {
            let parallel =
                parallel_figures(&change, &conc_a[at], &conc_b[at], &waits, names.name(p));
            at += 1;
            let name = names.name(p);
            let own =
                |m: &FxHashMap<&str, i64>, f: f64| m.get(name).copied().unwrap_or(0) as f64 / f;
            let spike_call = (change.kind == Kind::Spike)
                .then(|| spike_calls.remove(name))
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
            let data_words = data_place(&data, &data_rows, &change);
            data.truncate(opts.top);
            let self_delta = own(&own_b, fb) - own(&own_a, fa);
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
                self_delta_per_frame_ns: self_delta,
                spike_call,
                parallel,
                gap: gap_diff
                    .own_time_words(name, None, self_delta)
                    .map(|(_, words)| words),
                over_time: None,
                place: None,
                place_words: data_words,
            }
        })
        .collect();
    let mut rows = rows;
    shapes_of_rows((a, &ua), (b, &ub), &mut rows, &opts.noise);
    {
        let row_names: Vec<&str> = rows.iter().map(|r| r.name.as_str()).collect();
        let placed = place(a, b, &row_names, (&ua, &ub), &noise);
        for (r, p) in rows.iter_mut().zip(placed) {
            // The call site, then the data (set above) when one holds it.
            let site = p.as_ref().and_then(|p| p.words(names.basis()));
            r.place_words = match (site, r.place_words.take()) {
                (Some(s), Some(d)) => Some(format!("{s}; {d}")),
                (s, d) => s.or(d),
            };
            r.place = p;
        }
    }
    let frame = frame_account(a, b, &names, (&renamed, &places), &gap_diff, opts.top);
    // What reaches the frame: with a frame-driving thread that waits for
    // workers, a name that runs only on other threads and is no wait's
    // critical work is off the critical path: reported, not gated.
    let off_path = off_critical_path(a, b, &frame.thread, gaps, &rows, names.basis(), &waits);
    let gate = opts.gate.map(|g| {
        // Renamed names are one row each way: neither new nor gone.
        frame_gate(
            &names,
            &g,
            all.clone(),
            |n| off_path.off(n) || renamed.iter().any(|r| r.from == n || r.to == n),
            &gap_diff,
            &waits,
            &places,
        )
    });
    // From each thread, the child with the largest |Δ| (ties: the first
    // name), while something changed: the diff tree's order, walked along
    // one path instead of built whole.
    // Per unit of the basis (frame or second): with 60 frames in A and 90
    // in B an unchanged scope's sums differ by half, its time per frame not.
    // The trees are the steady states': their units.
    let (ua, ub) = (
        Units::new(a, names.basis()).count,
        Units::new(b, names.basis()).count,
    );
    let (ua, ub) = (ua.max(1) as f64, ub.max(1) as f64);
    let change_paths = joined_threads((a, ta), (b, tb))
        .into_iter()
        .map(|(thread, mut na, mut nb)| {
            let total =
                |tree: &MergedTree, n: Option<NodeId>| n.map_or(0, |n| tree.total_ns[n.idx()]);
            let per_unit = |at: i64, bt: i64| bt as f64 / ub - at as f64 / ua;
            let mut steps = Vec::new();
            while steps.len() < MAX_REPORT_LEVELS as usize {
                let kids = joined_children((a, ta, na), (b, tb, nb));
                let Some(&(name, ca, cb)) = kids.iter().max_by(|x, y| {
                    let d = |(_, ca, cb): &&(&str, Option<NodeId>, Option<NodeId>)| {
                        per_unit(total(ta, *ca), total(tb, *cb)).abs()
                    };
                    d(x).total_cmp(&d(y)).then_with(|| y.0.cmp(x.0))
                }) else {
                    break;
                };
                let (at, bt) = (total(ta, ca), total(tb, cb));
                let delta_per_unit = per_unit(at, bt);
                // Down to the band's floor: below it nothing changed.
                if delta_per_unit.abs() < (noise.ms * 1e6).max(0.5) {
                    break;
                }
                steps.push(json!({
                    "name": name,
                    "a_total_ns": at,
                    "b_total_ns": bt,
                    "delta_total_ns": bt.saturating_sub(at),
                    "a_total_per_frame_ns": (at as f64 / ua).round() as i64,
                    "b_total_per_frame_ns": (bt as f64 / ub).round() as i64,
                    "delta_total_per_frame_ns": delta_per_unit.round() as i64,
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
    let mut c = ComparisonReport {
        warnings: compare_warnings(a, b),
        drift: names.drift().cloned(),
        drift_judged: noise.drift != DriftMode::Off,
        conditions: {
            let mut c = conditions(a, b, &names, &renamed, &places);
            if let Some(w) = edges.words() {
                c.insert(0, capitalize(&w));
            }
            c.extend(parallel_sections(gaps, &waits));
            c
        },
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
            run_spread: (a.run_count() == 1 && b.run_count() == 1).then(|| super::RunSpread {
                pct: crate::engine::analyses::effect::four_digits(100.0 * libm::expm1(noise.tau)),
                prior_pct: crate::engine::analyses::effect::four_digits(
                    100.0 * libm::expm1(opts.noise.tau),
                ),
                measured_pct: names.drift().map(|d| d.spread_pct),
            }),
            model: if opts.noise.paired && a.run_count() == b.run_count() && a.run_count() > 1 {
                "paired-runs"
            } else if a.run_count() > 1 && b.run_count() > 1 {
                "between-runs"
            } else {
                "within-run"
            },
        },
        frame,
        look_first: Vec::new(),
        glance: Default::default(),
        total_rows,
        changed_rows,
        counted: COUNTED_NAMES,
        total_names: total_rows,
        changed_names: changed_rows,
        total_pairs,
        changed_pairs,
        rows,
        spikes,
        changes,
        new,
        gone,
        unchanged,
        inconclusive,
        gate,
        change_paths,
        waits,
        gaps: gap_diff,
        pacing: None,
        off_critical_path: off_path.rows,
        calls_changed: calls_changed(&names, &all),
        transients: (edges.a.clone(), edges.b.clone()),
        places: places.places,
        renames: renamed
            .into_iter()
            .map(|r| RenameRow {
                words: rename_words(&r, names.basis()),
                rename: r,
            })
            .collect(),
    };
    // A row whose own-time change is a wait's: the wait is what changed.
    for k in 0..c.rows.len() {
        let r = &c.rows[k];
        if r.gap.is_none()
            && let Some(w) = wait_in(&c, &r.name, r.self_delta_per_frame_ns)
        {
            let w = &c.waits[w];
            let why = (w.uneven_split.as_deref())
                .or(w.lost_parallelism.as_deref())
                .map_or_else(
                    || match w.causes.first() {
                        Some(x) => format!("the work it waits for, `{}`, changed per call", x.name),
                        None => "its parts in `waits`".to_owned(),
                    },
                    str::to_owned,
                );
            c.rows[k].gap = Some(format!(
                "a {} wait (median {} → {}): {why}",
                if w.delta_median_ns >= 0 {
                    "longer"
                } else {
                    "shorter"
                },
                msu(w.median_a_ns),
                msu(w.median_b_ns)
            ));
        }
    }
    c
}

/// The names whose calls per unit changed while their time is not a
/// change ([`CallsChanged`]).
fn calls_changed(names: &Joined, all: &[Pair]) -> Vec<CallsChanged> {
    let unit = names.basis().unit();
    let mut out: Vec<CallsChanged> = all
        .iter()
        .filter_map(|&p| {
            let c = names.change(p);
            let calls = c.calls.filter(|_| !c.kind.is_change())?;
            let name = names.name(p).to_owned();
            let per_call = match (c.per_call_a_ns, c.per_call_b_ns) {
                (Some(x), Some(y)) if x > 0.0 => format!(
                    ", each call {} → {} ({:+.0}%)",
                    msu(x.round() as i64),
                    msu(y.round() as i64),
                    100.0 * (y / x - 1.0)
                ),
                _ => String::new(),
            };
            let time = match c.kind {
                Kind::Unchanged => format!("its time per {unit} unchanged (within noise)"),
                _ => format!("its time per {unit} not told apart from noise"),
            };
            let words = format!(
                "{}: {}, {} → {} calls per {unit}{per_call}; {time}",
                escape::markdown_code(&name),
                calls.words(),
                calls_figure(c.calls_per_frame_a),
                calls_figure(c.calls_per_frame_b),
            );
            Some(CallsChanged {
                name,
                calls,
                time: c.kind,
                calls_per_frame_a: c.calls_per_frame_a,
                calls_per_frame_b: c.calls_per_frame_b,
                per_call_a_ns: c.per_call_a_ns,
                per_call_b_ns: c.per_call_b_ns,
                words,
            })
        })
        .collect();
    let ratio = |x: &CallsChanged| {
        let (a, b) = (x.calls_per_frame_a.max(1e-9), x.calls_per_frame_b.max(1e-9));
        (b / a).ln().abs()
    };
    out.sort_by(|x, y| {
        ratio(y)
            .total_cmp(&ratio(x))
            .then_with(|| x.name.cmp(&y.name))
    });
    out
}

/// `s` with its first letter upper-case.
fn capitalize(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map_or_else(String::new, |f| f.to_uppercase().chain(c).collect())
}

/// Calls per unit as read: whole numbers plain, others to two decimals.
fn calls_figure(x: f64) -> String {
    if (x - x.round()).abs() < 0.005 {
        format!("{}", x.round() as i64)
    } else {
        format!("{x:.2}")
    }
}

/// A changed name placed by its data: one (name, data) row judged a change
/// the same way as the name, holding more than half of the name's change,
/// and no other data of it changed. "only with data `mesh` (0.40 → 2.00 ms
/// per call); its other data (2) unchanged or not told apart". `None`
/// without data or when the change is not in one.
fn data_place(data: &[(Pair, Change)], rows: &Joined, name: &Change) -> Option<String> {
    use crate::units::ms_f;
    if data.len() < 2 || !name.kind.is_change() {
        return None;
    }
    let moved: Vec<&(Pair, Change)> = data.iter().filter(|(_, c)| c.kind.is_change()).collect();
    let [(p, c)] = moved[..] else {
        return None;
    };
    let same_way = c.delta_per_frame_ns.signum() == name.delta_per_frame_ns.signum();
    if !same_way || c.delta_per_frame_ns.abs() * 2.0 <= name.delta_per_frame_ns.abs() {
        return None;
    }
    let (a, b) = rows.stats(*p);
    let per_call = |s: &Option<crate::engine::analyses::compare::SideStats>| {
        s.as_ref().map_or("—".to_owned(), |s| ms_f(s.per_call_ns))
    };
    Some(format!(
        "{} only with data {} ({} → {} ms per call); its other data ({}) unchanged or not told \
         apart",
        c.kind.words(),
        escape::markdown_code(rows.data(*p)),
        per_call(&a),
        per_call(&b),
        data.len() - 1
    ))
}

/// Whether the parallel sections (waits for two or more threads at once
/// in A, matched in B) ran less in parallel in B: all of them together
/// (more likely the machine: fewer free cores) or some (more likely the
/// code: a lock), in one sentence; `None` when none did.
fn parallel_sections(
    gaps: (
        &[crate::engine::analyses::gaps::RecurringGap],
        &[crate::engine::analyses::gaps::RecurringGap],
    ),
    waits: &[WaitChange],
) -> Option<String> {
    use crate::engine::analyses::wait_diff::parallelism_fell;
    let mut sections: Vec<(String, f64, f64)> = Vec::new();
    for (place, ga, gb) in crate::engine::analyses::gap_diff::match_recurring(gaps.0, gaps.1) {
        let (Some(wa), Some(wb)) = (
            ga.and_then(|g| g.waits_for.as_ref()),
            gb.and_then(|g| g.waits_for.as_ref()),
        ) else {
            continue;
        };
        // A wait that grew by its work's split, or by its work, is the
        // code's: fewer threads at once is then no condition of the run.
        let code = waits.iter().any(|w| {
            w.place.thread == place.thread
                && w.place.kind == place.kind
                && w.place.path == place.path
                && w.place.after == place.after
                && w.place.before == place.before
                && (w.uneven_split.is_some()
                    || w.parts.iter().any(|p| p.part == "work" && p.changed))
        });
        if code {
            continue;
        }
        if wa.median_parallelism >= 1.5 {
            let place = gb.map_or(String::new(), |g| {
                match g.place.path.rsplit(" > ").next().filter(|p| !p.is_empty()) {
                    Some(parent) => format!(
                        "{} in {}",
                        cell(thread_label(&g.place.thread)),
                        escape::markdown_code(parent)
                    ),
                    None => format!("{} at the top level", cell(thread_label(&g.place.thread))),
                }
            });
            sections.push((place, wa.median_parallelism, wb.median_parallelism));
        }
    }
    let lost: Vec<&(String, f64, f64)> = sections
        .iter()
        .filter(|(_, a, b)| parallelism_fell(*a, *b))
        .collect();
    if lost.is_empty() {
        return None;
    }
    let list = lost
        .iter()
        .map(|(p, a, b)| format!("{} ({a:.1} → {b:.1} threads at once)", sentence_md(p)))
        .collect::<Vec<_>>()
        .join(", ");
    Some(if sections.len() == 1 {
        format!(
            "The one parallel section ran less in parallel in B ({list}): with one section a \
             capture cannot tell fewer free cores from a lock (whether every section lost overlap \
             together, or only one, would)."
        )
    } else if lost.len() == sections.len() {
        format!(
            "Every parallel section ran less in parallel in B ({} of {}: {list}): more likely \
             the machine (fewer free cores) than the code.",
            lost.len(),
            sections.len()
        )
    } else {
        format!(
            "Only {} of {} parallel sections ran less in parallel in B ({list}): more likely the \
             code (a lock) than the machine.",
            lost.len(),
            sections.len()
        )
    })
}

/// Names off the frame's critical path (see [`off_critical_path`]).
struct OffPath {
    /// Every name that runs only off the frame thread and is no wait's
    /// critical work (empty when the frame thread waits for nothing).
    names: std::collections::BTreeSet<String>,
    /// The listed changed rows among them.
    rows: Vec<OffCriticalPath>,
}

impl OffPath {
    fn off(&self, name: &str) -> bool {
        self.names.contains(name)
    }
}

/// With a frame-driving thread (`thread`) that waits for other threads'
/// work in either recording: the names that never run on it and are no
/// wait's critical work (the last to finish), and of the listed changed
/// rows, those, with the slack left: the critical work's median call
/// against the row's mean call in B. Empty without such waits (a
/// worker-driven recording is gated on all its threads' time).
fn off_critical_path(
    a: &Trace,
    b: &Trace,
    thread: &str,
    gaps: (
        &[crate::engine::analyses::gaps::RecurringGap],
        &[crate::engine::analyses::gaps::RecurringGap],
    ),
    rows: &[JudgedRow],
    basis: Basis,
    waits: &[WaitChange],
) -> OffPath {
    let mut out = OffPath {
        names: crate::engine::analyses::wait_diff::off_critical_path_names(
            a, b, thread, gaps, waits,
        ),
        rows: Vec::new(),
    };
    if out.names.is_empty() {
        return out;
    }
    // B's waits (A's without one in B) give the critical work's median.
    let critical_ns = gaps
        .1
        .iter()
        .filter(|g| g.place.thread == thread)
        .filter_map(|g| g.waits_for.as_ref())
        .map(|w| (w.critical.name.clone(), w.median_critical_duration_ns))
        .max_by_key(|x| x.1);
    let off_rows: Vec<&JudgedRow> = rows.iter().filter(|r| out.off(&r.name)).collect();
    for r in off_rows {
        let (critical_name, critical_ns) = critical_ns.clone().unwrap_or_default();
        let per_call_ns = r.b.as_ref().map_or(0.0, |s| s.per_call_ns);
        let slack_ns = (critical_ns as f64 - per_call_ns).max(0.0);
        let head = format!(
            "{} {} per {} ({}), off the critical path",
            escape::markdown_code(&r.name),
            signed_ms(r.change.beyond_drift_ns()),
            basis.unit(),
            r.change.kind.words(),
        );
        out.rows.push(OffCriticalPath {
            words: if r.name == critical_name {
                // The last to finish, but its wait did not move: the
                // frame did not see the change.
                format!(
                    "{head}: the wait of {} it ends did not grow (another worker's work, or \
                     slack, took it up)",
                    cell(thread_label(thread)),
                )
            } else {
                format!(
                    "{head}: {} waits for {} (median {} ms), about {} ms of slack left",
                    cell(thread_label(thread)),
                    escape::markdown_code(&critical_name),
                    crate::units::ms(critical_ns),
                    crate::units::ms_f(slack_ns),
                )
            },
            name: r.name.clone(),
            delta_per_frame_ns: r.change.beyond_drift_ns(),
            critical: critical_name,
            slack_ns,
        });
    }
    out
}

/// "`physics::step` renamed `sim::advance` (in `update` on main, 1.00 →
/// 1.00 calls per frame): unchanged, +0.012 ms per frame [-0.031, +0.054]
/// (99.9%)".
fn rename_words(r: &Rename, basis: Basis) -> String {
    let verdict = if r.change.kind.is_change() {
        describe_per(&r.change, basis)
    } else {
        format!("{}, {}", r.change.kind.words(), r.change.effect.text())
    };
    format!(
        "{} renamed {} ({} on {}, {:.2} → {:.2} calls per {}): {verdict}",
        escape::markdown_code(&r.from),
        escape::markdown_code(&r.to),
        if r.place.parent.is_empty() {
            "at the top level".to_owned()
        } else {
            format!("in {}", escape::markdown_code(&r.place.parent))
        },
        cell(thread_label(&r.place.thread)),
        r.calls_per_unit_a,
        r.calls_per_unit_b,
        basis.unit()
    )
}

/// Each listed row's shape through A's and B's runs (one pass over each
/// side's scopes for all of them), said when either is not steady.
fn shapes_of_rows(
    (a, ua): (&Trace, &Units),
    (b, ub): (&Trace, &Units),
    rows: &mut [JudgedRow],
    noise: &crate::engine::analyses::judge::Noise,
) {
    let basis = ua.basis;
    let names: Vec<&str> = rows.iter().map(|r| r.name.as_str()).collect();
    let side = |t: &Trace, units: &Units| {
        let runs = units.run_starts();
        let n = units.count;
        let shapes: Vec<Shape> = series_by_name(t, units, &names)
            .iter()
            .map(|x| classify_runs(x, &runs, shape::band_ns(x, noise.pct, noise.ms)))
            .collect();
        (shapes, n)
    };
    let ((sa, na), (sb, nb)) = (side(a, ua), side(b, ub));
    for ((r, sa), sb) in rows.iter_mut().zip(sa).zip(sb) {
        // A side without the name has no shape to speak of.
        let sa = if r.a.is_some() { sa } else { Shape::Steady };
        let sb = if r.b.is_some() { sb } else { Shape::Steady };
        r.over_time = compared_words(&sa, &sb, basis.unit(), (na, nb)).map(|words| OverTime {
            a: sa,
            b: sb,
            words,
        });
    }
}

/// The names of `all` judged `kind` (unchanged, or inconclusive), the
/// costliest first (the larger side's time per frame, then the name), the
/// first `top` of them; and the spikes of `listed` whose other calls are
/// unchanged.
fn unchanged(
    names: &Joined,
    all: &[Pair],
    listed: &[(Pair, Change)],
    top: usize,
    kind: Kind,
) -> Unchanged {
    Unchanged {
        apart_from_a_spike: listed
            .iter()
            .filter(|(_, c)| c.kind == Kind::Spike && c.rest == Some(kind))
            .map(|(p, _)| names.name(*p).to_owned())
            .collect(),
        ..unchanged_names(names, all, top, kind)
    }
}

/// [`unchanged`] without the spikes.
fn unchanged_names(names: &Joined, all: &[Pair], top: usize, kind: Kind) -> Unchanged {
    let (ua, ub) = names.frames();
    let (ua, ub) = (ua.max(1) as f64, ub.max(1) as f64);
    let mut rows: Vec<(f64, &str)> = all
        .iter()
        .filter(|&&p| names.kind(p) == kind)
        .map(|&p| {
            let (sa, sb) = names.stats(p);
            let per = |s: Option<SideStats>, u: f64| s.map_or(0.0, |s| s.total_ns as f64 / u);
            (per(sa, ua).max(per(sb, ub)), names.name(p))
        })
        .collect();
    rows.sort_by(|x, y| y.0.total_cmp(&x.0).then_with(|| x.1.cmp(y.1)));
    let total = rows.len();
    rows.truncate(top);
    Unchanged {
        names: rows.into_iter().map(|(_, n)| n.to_owned()).collect(),
        total,
        apart_from_a_spike: Vec::new(),
    }
}

/// A name's figures per thread when it runs on several threads at once
/// (`None` otherwise): its per-frame change summed over threads is not
/// frame time.
fn parallel_figures(
    change: &Change,
    a: &crate::engine::analyses::waits::Concurrency,
    b: &crate::engine::analyses::waits::Concurrency,
    waits: &[WaitChange],
    name: &str,
) -> Option<ParallelFigures> {
    let at_once = a.max_threads_at_once.max(b.max_threads_at_once);
    if at_once < 2 {
        return None;
    }
    let mut threads = b.threads.clone();
    threads.extend(a.threads.iter().cloned());
    threads.sort();
    threads.dedup();
    let per_call_delta_ns = change
        .median_a_ns
        .zip(change.median_b_ns)
        .map(|(x, y)| (y - x) as f64);
    let critical = waits
        .iter()
        .flat_map(|w| w.causes.iter().map(move |c| (w, c)))
        .find(|(_, c)| c.name == name);
    Some(ParallelFigures {
        per_thread_delta_per_frame_ns: change.delta_per_frame_ns / threads.len().max(1) as f64,
        summed_over_threads_ns: change.delta_per_frame_ns,
        threads_at_once: at_once,
        threads,
        per_call_delta_ns,
        critical_path_delta_ns: critical.map(|(_, c)| c.attributed_ns),
        critical_thread: critical.map(|(_, c)| c.critical_thread.clone()),
    })
}

/// What differs between the runs besides their code, as far as the
/// recordings show: threads present in one only, names registered or
/// called in one only, the number of frames and the time span.
pub(super) fn conditions(
    a: &Trace,
    b: &Trace,
    names: &Joined,
    renamed: &[Rename],
    places: &Restructures,
) -> Vec<String> {
    let mut out = kin_conditions(a, b, renamed);
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
        let n = names.name(p);
        // A rename and a restructured name are told as such.
        if renamed.iter().any(|r| r.from == n || r.to == n) || places.is_restructured(n) {
            continue;
        }
        match names.facts(p).status {
            Status::Gone => only_a.push(n),
            Status::New => only_b.push(n),
            Status::Both => {}
        }
    }
    for p in places.restructured() {
        out.push(format!(
            "Restructured in {}: scopes that appear or vanish under it, its time held (see \
             Restructured).",
            escape::markdown_code(&p.parent),
        ));
    }
    for r in renamed {
        out.push(format!(
            "Renamed at one place: {} → {} (one row, see Renamed).",
            escape::markdown_code(&r.from),
            escape::markdown_code(&r.to)
        ));
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
                "{} scope name{} called only in {side} ({}{}): new or removed code, start-up work \
                 (restoring saved state), or a path the other run did not take (its row says which, \
                 and how it ran through the run).",
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

/// Whether the runs are of one app: A against B, and each run of a side
/// of several against that side's others ([`kinship`]). A run of another
/// app makes every judgement of the pair, or between the side's runs,
/// one of unlike work.
fn kin_conditions(a: &Trace, b: &Trace, renamed: &[Rename]) -> Vec<String> {
    let (ra, rb) = (kinship::self_by_run(a), kinship::self_by_run(b));
    let same: Vec<(String, String)> = renamed
        .iter()
        .map(|r| (r.from.clone(), r.to.clone()))
        .collect();
    let list = |names: &[String]| -> String {
        let mut v: Vec<String> = names
            .iter()
            .take(4)
            .map(|n| escape::markdown_code(n))
            .collect();
        let more = names.len().saturating_sub(4);
        let last = if more > 0 {
            Some(format!("{more} more"))
        } else {
            v.pop()
        };
        match last {
            Some(last) if !v.is_empty() => format!("{} and {last}", v.join(", ")),
            Some(last) => last,
            None => String::new(),
        }
    };
    let mut out = Vec::new();
    let kin = kinship::kinship(
        &ra.iter().collect::<Vec<_>>(),
        &rb.iter().collect::<Vec<_>>(),
        &same,
    );
    if kin.unlike() {
        let only: Vec<String> = kin
            .busy
            .iter()
            .filter(|n| !kin.common.contains(n))
            .cloned()
            .collect();
        out.push(format!(
            "A and B look like runs of different apps: of the {} names that hold their time \
             ({:.0}% of each side's own time), {} {} called on both sides{}; only on one side: {}. \
             Every judgement here compares unlike work: check that these are the recordings you \
             meant.",
            kin.busy.len(),
            kinship::BUSY_SHARE * 100.0,
            kin.common.len(),
            if kin.common.len() == 1 { "is" } else { "are" },
            if kin.common.is_empty() {
                String::new()
            } else {
                format!(" ({})", list(&kin.common))
            },
            list(&only),
        ));
    }
    for (side, t) in [("A", a), ("B", b)] {
        for (k, kin) in kinship::unlike_runs(t) {
            out.push(format!(
                "{side}'s run {} of {} looks like a run of another app: of the {} names that hold \
                 its time, {} {} called in {side}'s other runs. Judged between runs, it makes \
                 {side}'s noise look larger than it is: leave it out if it is not the app you meant.",
                k + 1,
                t.run_count(),
                kin.busy.len(),
                kin.common.len(),
                if kin.common.len() == 1 { "is" } else { "are" },
            ));
        }
    }
    out
}

/// Each spike's call: the largest call of the name on the side with the
/// larger total (the names' instances found in one pass a side).
pub(super) fn spike_calls<'n>(
    a: &Trace,
    b: &Trace,
    names: &[&'n str],
) -> FxHashMap<&'n str, SpikeCall> {
    let largest = |t: &Trace| -> Vec<Option<(i64, crate::engine::analyses::calls::CallRow)>> {
        crate::engine::analyses::common::named_instances_of(t, names)
            .into_iter()
            .map(|hits| {
                let c = crate::engine::analyses::calls::calls_of(t, hits)?;
                let total = c.summary.total_ns;
                let worst = c
                    .calls
                    .into_iter()
                    .max_by_key(|c| (c.duration_ns, std::cmp::Reverse(c.start_ns)))?;
                Some((total, worst))
            })
            .collect()
    };
    let (la, lb) = crate::engine::join(|| largest(a), || largest(b));
    names
        .iter()
        .zip(la.into_iter().zip(lb))
        .filter_map(|(&name, (ca, cb))| {
            let b_side = cb.as_ref().map_or(0, |c| c.0) > ca.as_ref().map_or(0, |c| c.0);
            let (side, (_, call)) = if b_side { ("B", cb?) } else { ("A", ca?) };
            Some((
                name,
                SpikeCall {
                    side,
                    frame_index: call.frame_index,
                    thread: call.thread,
                    duration_ns: call.duration_ns,
                },
            ))
        })
        .collect()
}

/// Whether a recurring gap of a recording's report (JSON) is at `p`.
fn place_is(p: &GapPlace, g: &serde_json::Value) -> bool {
    p.thread == text(&g["thread"])
        && p.path == text(&g["path"])
        && p.kind.as_str() == text(&g["kind"])
        && p.after.as_deref() == g["after"].as_str()
        && p.before.as_deref() == g["before"].as_str()
}

/// What to look at first: the names that account for the frame's change
/// (regressions and new ones, largest first), the spikes, then the largest
/// recurring unprofiled stretch of B.
pub(super) fn look_first(
    c: &ComparisonReport,
    b: &RecordingReport,
    opts: &ReportOptions,
) -> Vec<String> {
    let unit = c.frame.basis.unit();
    let mut lines: Vec<String> = Vec::new();
    let min_ns = opts.noise.ms * 1e6;
    let thread = cell(thread_label(&c.frame.thread)).into_owned();
    let mut told = vec![false; c.waits.len()];
    let mut told_gaps: Vec<GapPlace> = Vec::new();
    for r in c
        .renames
        .iter()
        .filter(|r| r.rename.change.kind.is_regression())
    {
        lines.push(r.words.clone());
    }
    for x in &c.frame.contributions {
        let bad = x.kind.is_regression() || x.kind == Kind::New;
        if !bad || x.self_delta_per_frame_ns < min_ns {
            continue;
        }
        // A rename is told as one (above, when it changed).
        if c.renames
            .iter()
            .any(|r| r.rename.from == x.name || r.rename.to == x.name)
        {
            continue;
        }
        // Its own time grew as a wait in it: the cause, not "slower per call".
        if let Some(k) = wait_in(c, &x.name, x.self_delta_per_frame_ns) {
            told[k] = true;
            lines.push(format!(
                "{}; {} per {unit} of {}'s own time on {thread}",
                wait_md(&c.waits[k], c),
                signed_ms(x.self_delta_per_frame_ns),
                escape::markdown_code(&x.name),
            ));
            continue;
        }
        // Its own time changed as a gap in it: the gap is the cause.
        if x.gap.is_some()
            && let Some((_, g, _)) =
                c.gaps
                    .explains(&x.name, Some(&c.frame.thread), x.self_delta_per_frame_ns)
        {
            told_gaps.push(g.place.clone());
            lines.push(format!(
                "{}; {} per {unit} of {}'s own time on {thread}",
                sentence_md(&g.sentence),
                signed_ms(x.self_delta_per_frame_ns),
                escape::markdown_code(&x.name),
            ));
            continue;
        }
        let why = c.rows.iter().find(|r| r.name == x.name).map_or_else(
            || x.kind.words().to_owned(),
            |r| {
                let mut why = describe_per(&r.change, c.basis);
                if let Some(p) = &r.place_words {
                    why = format!("{why}; {p}");
                }
                if let Some(t) = &r.over_time {
                    why = format!("{why}; {}", t.words);
                }
                why
            },
        );
        lines.push(format!(
            "{}: {why}; {} per {unit} of its own time on {thread}",
            escape::markdown_code(&x.name),
            signed_ms(x.self_delta_per_frame_ns)
        ));
    }
    // New and grown gaps no contribution told (at the top level, on other
    // threads), not waits (those are told below, by what they wait for),
    // nor a growth whose median per frame fell (a few longer stretches in
    // a typical frame that got shorter: the table tells it).
    for g in c.gaps.changed.iter().filter(|g| {
        g.verdict.is_growth()
            && !g.is_wait()
            && g.beyond_drift_ns >= min_ns
            // A stretch that only moved within its scope is no growth.
            && c.gaps.scope_net_ns(g) >= min_ns
            && (g.verdict == GapVerdict::New || g.delta_median_per_frame_ns >= 0)
    }) {
        if !told_gaps.contains(&g.place) {
            lines.push(sentence_md(&g.sentence));
            told_gaps.push(g.place.clone());
        }
    }
    // Grown waits no contribution told (on another thread than the
    // accounted one, or in time outside its scopes).
    for (w, _) in c.waits.iter().zip(&told).filter(|(_, t)| !**t) {
        if w.delta_median_ns as f64 >= min_ns {
            lines.push(wait_md(w, c));
        }
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
    // Calls that changed while the time did not: a fact of the program.
    for x in &c.calls_changed {
        lines.push(x.words.clone());
    }
    // The largest recurring stretch inside the frames of B.
    let recurring = b.gaps["recurring"]
        .as_array()
        .map_or(&[][..], |v| v.as_slice());
    let frames = b.summary.frames as i64;
    // A wait told above is not told again as unprofiled time.
    let a_told_wait = |g: &serde_json::Value| {
        c.waits
            .iter()
            .any(|w| place_is(&w.place, g) && w.delta_median_ns as f64 >= min_ns)
    };
    if let Some(g) = recurring.iter().find(|g| {
        !between_frames(g)
            && num(&g["median_ns"]) as f64 >= min_ns
            && num(&g["frames"]) * 2 >= frames
            && !a_told_wait(g)
            && !told_gaps.iter().any(|p| place_is(p, g))
            // A restructured place's stretch is its parent's remaining own
            // time (told with the place).
            && !c.places.iter().any(|p| {
                p.restructured && p.thread == text(&g["thread"]) && p.path == text(&g["path"])
            })
    }) {
        // A place judged unchanged was there before the change too.
        let unchanged = c.gaps.unchanged.iter().any(|u| place_is(&u.place, g));
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
            "unprofiled time in B: {} {}, a {} gap {}, median {}{}: {}{}",
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
                    " ({}% of the thread's span)",
                    if p < 1.0 {
                        format!("{p:.1}")
                    } else {
                        format!("{p:.0}")
                    }
                )),
            if others.is_empty() {
                "no other thread ran meanwhile".to_owned()
            } else {
                format!("meanwhile {}", others.join("; "))
            },
            if unchanged {
                "; unchanged from A (there before the change, within noise)"
            } else {
                ""
            }
        ));
    }
    lines.truncate(opts.top);
    // The drift, past the noise, after the changes (the only line when
    // nothing else changed: it is then the answer).
    if let Some(d) = c.drift.as_ref().filter(|d| d.named) {
        lines.push(if c.drift_judged {
            format!(
                "run-to-run drift, not a change in the code: {}",
                drift::sentence(d)
            )
        } else {
            drift::paired_sentence(d)
        });
    }
    lines
}

/// The wait of `c.waits` (on the accounted thread, in `parent`'s own time)
/// that makes up at least half of `self_delta_ns` (the parent's own-time
/// change per frame).
pub(super) fn wait_in(c: &ComparisonReport, parent: &str, self_delta_ns: f64) -> Option<usize> {
    let per_frame =
        |w: &WaitChange| w.delta_median_ns as f64 * w.b.traced as f64 / c.frames_b.max(1) as f64;
    c.waits.iter().position(|w| {
        w.place.thread == c.frame.thread
            && w.place.parent() == parent
            && w.place.kind != crate::engine::analyses::gaps::GapKind::TopLevel
            && per_frame(w) * 2.0 >= self_delta_ns
    })
}

/// A gap's sentence (`analyses::gap_diff`, its names in backticks) in
/// Markdown: the code spans kept, a table's pipes escaped.
pub(super) fn sentence_md(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

/// Threads in words, numbered runs told once (`pool-0..2`).
pub(super) fn threads_md(threads: &[String]) -> String {
    let rows: Vec<(String, String)> = threads.iter().map(|t| (t.clone(), String::new())).collect();
    numbered_runs(&rows)
        .into_iter()
        .map(|(t, _, _)| cell(&t).into_owned())
        .collect::<Vec<_>>()
        .join(", ")
}

/// A wait that grew or shrank, the cause first: "main waits 1.003 ms
/// longer in `jobs::run`: `job::cloth` is 1.002 ms slower per call on
/// pool-0..2, the last to finish (pool-2)", then its parts in A and B.
pub(super) fn wait_md(w: &WaitChange, c: &ComparisonReport) -> String {
    let longer = if w.delta_median_ns >= 0 {
        "longer"
    } else {
        "shorter"
    };
    let place = if w.place.path.is_empty() {
        "at the top level".to_owned()
    } else {
        format!("in {}", escape::markdown_code(w.place.parent()))
    };
    let what = if w.place.kind == GapKind::Whole {
        "the whole scope, no scope in it".to_owned()
    } else {
        format!("a {} gap", w.place.kind.as_str())
    };
    let head = format!(
        "{} waits {} {longer} {place} ({what}, median {} → {})",
        cell(thread_label(&w.place.thread)),
        msu(w.delta_median_ns.abs()),
        msu(w.median_a_ns),
        msu(w.median_b_ns),
    );
    let causes: Vec<String> = w
        .causes
        .iter()
        .map(|x| {
            format!(
                "{} is {} {} per call on {}, the last to finish ({})",
                escape::markdown_code(&x.name),
                msu(x.per_call_delta_ns.abs().round() as i64),
                if x.per_call_delta_ns >= 0.0 {
                    "slower"
                } else {
                    "faster"
                },
                threads_md(&x.threads),
                cell(thread_label(&x.critical_thread)),
            )
        })
        .collect();
    // Each part's medians, and its means where a tail sets them apart
    // (the means sum to the mean wait).
    let min_ns = c.noise.ms * 1e6;
    let part = |name: &str, (ma, mb): (i64, i64), (xa, xb): (f64, f64)| {
        let tail = (xa - ma as f64).abs() >= min_ns || (xb - mb as f64).abs() >= min_ns;
        format!(
            "{name} {} → {}{}",
            msu(ma),
            msu(mb),
            if tail {
                format!(
                    " (mean {} → {})",
                    msu(xa.round() as i64),
                    msu(xb.round() as i64)
                )
            } else {
                String::new()
            }
        )
    };
    let (a, b) = (&w.a, &w.b);
    let parts = [
        part(
            "dispatch",
            (a.median_dispatch_ns, b.median_dispatch_ns),
            (a.mean_dispatch_ns, b.mean_dispatch_ns),
        ),
        part(
            "waiting",
            (a.median_waiting_ns, b.median_waiting_ns),
            (a.mean_waiting_ns, b.mean_waiting_ns),
        ),
        part(
            "wake-up",
            (a.median_wake_ns, b.median_wake_ns),
            (a.mean_wake_ns, b.mean_wake_ns),
        ),
    ]
    .join(", ");
    if let Some(lost) = &w.lost_parallelism {
        return format!("{head}: it {lost}; {parts}");
    }
    if let Some(split) = &w.uneven_split {
        return format!("{head}: the work it waits for was {split}; {parts}");
    }
    if causes.is_empty() {
        // No critical work changed per call: the part whose mean moved most.
        let (what, d) = [
            (
                "dispatch latency (until the first work starts)",
                b.mean_dispatch_ns - a.mean_dispatch_ns,
            ),
            (
                "the waiting for the others' work",
                b.mean_waiting_ns - a.mean_waiting_ns,
            ),
            (
                "the wake-up after the last work ends",
                b.mean_wake_ns - a.mean_wake_ns,
            ),
        ]
        .into_iter()
        .max_by(|x, y| x.1.abs().total_cmp(&y.1.abs()))
        .unwrap_or(("", 0.0));
        format!(
            "{head}: {what} {} in the mean while the critical work ({} on {}) did not change \
             per call beyond the drift; {parts}",
            signed_ms(d),
            escape::markdown_code(&w.b.critical.name),
            cell(thread_label(&w.b.critical.thread)),
        )
    } else {
        format!(
            "{head}: {} ({:.0}% of the growth); {parts}",
            causes.join("; "),
            w.attributed_pct
        )
    }
}

/// Threads that ran the same (`what`) whose names are one prefix and
/// consecutive numbers, told once (`worker-0..2`), in order: (threads,
/// what, how many threads).
pub(super) fn numbered_runs(rows: &[(String, String)]) -> Vec<(String, String, usize)> {
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
