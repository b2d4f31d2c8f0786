//! The comparison's verdict: `compare`'s answer and the gate that weighs
//! what reaches the frame, for `compare` and `report` alike. Read from the
//! table of rows ([`super::compare`]), the places where scopes appear or
//! vanish ([`super::restructure`]), the waits ([`super::wait_diff`]), the
//! renames ([`super::rename`]), the gaps ([`super::gap_diff`]) and the
//! frame's accounting ([`super::accounting`]); nothing below imports it.

use super::super::find::GroupBy;
use super::basis::{Basis, Units};
use super::compare::{
    COUNTED_PAIRS, CompareOptions, CompareRow, CompareTable, Joined, Pair, Status, compare_warnings,
};
use super::drift::Drift;
use super::gate::{Gate, GateResult};
use super::judge::{Change, Kind, Own};
use crate::engine::model::Trace;
use serde::Serialize;

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CompareReport {
    pub warnings: Vec<String>,
    /// The run-to-run drift every row was judged against (`null` with
    /// `--no-drift` or too few busy names: see `analyses::drift`).
    pub drift: Option<Drift>,
    /// The frame's change, and the names (judged by name) that account for
    /// it: first, as in the report.
    pub frame: super::accounting::FrameChange,
    /// Frames of A and of B.
    pub frames_a: usize,
    pub frames_b: usize,
    /// What `change`'s "per frame" is per: `frame`, or `second` when a side
    /// is unframed (see `analyses::basis`).
    pub basis: Basis,
    /// How many of them A and B have (their frames, or their seconds).
    pub units: (usize, usize),
    /// Rows after --filter and --hide-below, before --top.
    pub total_rows: usize,
    /// Of those, how many the noise model judged a change (not unchanged).
    pub changed_rows: usize,
    /// What `total_rows` and `changed_rows` count: [`COUNTED_PAIRS`] (the
    /// rows are (name, data) pairs; the report's count names).
    pub counted: &'static str,
    /// The names the same filters keep, each judged as a whole (as the
    /// report counts), and how many changed.
    pub total_names: usize,
    pub changed_names: usize,
    /// `total_rows` and `changed_rows` under the names the report gives them.
    pub total_pairs: usize,
    pub changed_pairs: usize,
    pub rows: Vec<CompareRow>,
    /// With `--fail-on-regression`: what the gate checked and what tripped
    /// it (over every kept row, not only the listed ones).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gate: Option<super::gate::GateResult>,
    /// With `--fail-on-p99` or `--fail-on-low`: the tail gate, on frame
    /// pacing ([`crate::engine::analyses::pacing::TailGate`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tail_gate: Option<crate::engine::analyses::pacing::TailGateResult>,
    /// The gap places (unprofiled time) of A and B judged with the same
    /// noise and drift ([`super::gap_diff`]).
    pub gaps: super::gap_diff::GapChanges,
    /// Each side's start-up and shutdown (its runs' transients), left out:
    /// every row above is of the steady states ([`super::transient`]);
    /// `frames_a` and `frames_b` count the steady frames.
    pub transients: (super::transient::Transients, super::transient::Transients),
    /// What was left out, in a sentence (`null` when nothing was).
    pub left_out: Option<String>,
}

/// The gate as it weighs what reaches the frame, for `report` and
/// `compare` alike: the rows of `pairs` less the names `left_out` holds
/// (off the critical path, renamed) and those `places` holds (each place
/// that holds one is a row instead: [`super::restructure`]); then the
/// changed gaps' causes ([`GateResult::with_gaps`]); then the waits that
/// ran less in parallel ([`GateResult::with_lost_parallelism`]).
pub fn frame_gate(
    names: &Joined,
    gate: &Gate,
    pairs: Vec<Pair>,
    left_out: impl Fn(&str) -> bool,
    gaps: &super::gap_diff::GapChanges,
    waits: &[super::wait_diff::WaitChange],
    places: &super::restructure::Restructures,
) -> GateResult {
    // Two recordings with no name in common (another app, or names that
    // do not match): nothing is new against anything.
    let common = (names.pairs().iter()).any(|&p| names.facts(p).status == Status::Both);
    let rows: Vec<(&str, Change, Own)> = (pairs.into_iter())
        .map(|p| (names.name(p), p))
        .filter(|&(n, _)| !left_out(n) && !places.holds(n))
        .map(|(n, p)| (n, names.change(p), names.own(p)))
        .filter(|(_, c, _)| common || c.kind != Kind::New)
        .collect();
    let place_rows = places.gate_rows(names.noise().pct);
    let rows = (rows.iter().map(|(n, c, own)| (*n, c, own)))
        .chain(place_rows.iter().map(|(n, c, own)| (n.as_str(), c, own)));
    gate.check(
        names.unit_ns(),
        names.drift(),
        names.noise().alpha,
        rows.map(|(n, c, own)| (n, None, c, *own)),
    )
    .with_gaps(&gaps.without_places(places, false))
    .with_lost_parallelism(waits)
}

/// `compare`'s gate: `report`'s ([`frame_gate`]) over the rows
/// `opts` keeps: renamed names and names off the critical path of
/// `thread` (the frame's) left out, gaps and waits found as `report` finds
/// them at its defaults (recurring gaps of at least 1 ms on every thread).
#[allow(clippy::too_many_arguments)]
fn gate_as_report(
    (a, b): (&Trace, &Trace),
    names: &Joined,
    gate: &Gate,
    opts: &CompareOptions,
    thread: &str,
    gaps: &super::gap_diff::GapChanges,
    renamed: &[super::rename::Rename],
    places: &super::restructure::Restructures,
) -> GateResult {
    let noise = names.noise();
    // `report`'s defaults: gaps of 1 ms or more, the 10 largest recurring.
    let recurring = |t: &Trace| super::super::gaps::gaps(t, None, 1_000_000, 10).recurring;
    let (ra, rb) = (recurring(a), recurring(b));
    let waits = super::wait_diff::wait_changes((a, b), &ra, &rb, names, &noise);
    let off = super::wait_diff::off_critical_path_names(a, b, thread, (&ra, &rb), &waits);
    frame_gate(
        names,
        gate,
        names.kept_iter(opts).collect(),
        |n| off.contains(n) || renamed.iter().any(|r| r.from == n || r.to == n),
        gaps,
        &waits,
        places,
    )
}

/// Joins two traces on (name, data). See [`CompareSort`] for the order.
/// With `gate`, checks it as `report` does over every kept row.
pub fn compare(a: &Trace, b: &Trace, opts: &CompareOptions, gate: Option<&Gate>) -> CompareReport {
    // The steady states, as `report` compares them.
    let edges = super::transient::SteadyPair::of(a, b, &opts.noise);
    let (a, b) = edges.traces(a, b);
    // Judged per name: the drift, the frame's accounting, and the gate (a
    // scope that now runs twice per frame is one row, not a new (name,
    // data) row). Done, and the names' table dropped, before the (name,
    // data) table is built: one of the two at a time in memory.
    let by_name = CompareTable::grouped(a, b, GroupBy::Name, opts.noise);
    let names = by_name.with(a, b);
    let (noise, basis, units) = (names.noise(), names.basis(), names.frames());
    // The structure `report` tells: renames, and the places where scopes
    // appear or vanish (restructured when their time held).
    let (ua, ub) = (Units::new(a, basis), Units::new(b, basis));
    let renamed = super::rename::renames_in(a, b, &names, (&ua, &ub), &noise);
    let places =
        super::restructure::restructures(a, b, (&ua, &ub), &noise, None).without_renamed(&renamed);
    let gaps =
        super::gap_diff::gap_changes(a, b, &noise, basis, opts.top).without_places(&places, true);
    let frame = super::accounting::frame_account(
        a,
        b,
        &names,
        (&renamed, &places),
        &gaps,
        opts.top.min(50),
    );
    let gate = gate.map(|g| {
        let thread = &frame.thread;
        gate_as_report((a, b), &names, g, opts, thread, &gaps, &renamed, &places)
    });
    // A name the report tells as structure (a rename's, a restructured
    // place's) is no changed name of the count, as in the report.
    let told = |n: &str| structure(n, &renamed, &places).is_some();
    let changed_told = |t: &Joined| {
        (t.kept_iter(opts))
            .filter(|&p| t.kind(p).is_change() && told(t.name(p)))
            .count()
    };
    let (drift, (total_names, changed_names)) = (names.drift().cloned(), names.counted(opts));
    let changed_names = changed_names - changed_told(&names);
    drop(by_name);
    // The (name, data) rows judged against the same drift.
    let table = CompareTable::grouped(a, b, GroupBy::NameData, noise);
    let data = table.with(a, b);
    let ((total_rows, changed_rows), mut rows) = data.kept_rows(opts);
    let changed_rows = changed_rows - changed_told(&data);
    for r in &mut rows {
        let c = frame.contributions.iter().find(|c| c.name == r.name);
        r.gap = c.and_then(|c| c.gap.clone());
        r.structure = structure(&r.name, &renamed, &places);
    }
    CompareReport {
        warnings: compare_warnings(a, b),
        drift,
        frame,
        frames_a: a.frames.len(),
        frames_b: b.frames.len(),
        basis,
        units,
        total_rows,
        changed_rows,
        counted: COUNTED_PAIRS,
        total_names,
        changed_names,
        total_pairs: total_rows,
        changed_pairs: changed_rows,
        rows,
        gate,
        tail_gate: None,
        gaps,
        left_out: edges.words(),
        transients: (edges.a.clone(), edges.b.clone()),
    }
}

/// What `report` tells of `name` as structure, not as a row of its own:
/// "renamed: `from` → `to`", or "restructured: under `P`" (a name a
/// restructured place holds, or its parent).
fn structure(
    name: &str,
    renamed: &[super::rename::Rename],
    places: &super::restructure::Restructures,
) -> Option<String> {
    if let Some(r) = renamed.iter().find(|r| r.from == name || r.to == name) {
        return Some(format!("renamed: {} → {}", r.from, r.to));
    }
    if !(places.is_restructured(name) || places.is_restructured_parent(name)) {
        return None;
    }
    let p = (places.restructured())
        .find(|p| p.parent == name || p.new.iter().chain(&p.gone).any(|n| n == name))?;
    Some(format!("restructured: under {}", p.parent))
}
