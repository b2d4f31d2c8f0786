//! `compare`: two recordings joined per (name, data).

use super::super::common::*;
use super::super::find::{Acc, Accumulator, GroupBy};
use super::basis::{Basis, Units, mean_frame_ns};
use super::drift::{self, Drift};
use super::judge::{
    Change, DriftMode, Kind, Noise, Own, Sums, judge_rows, needs_calls, samples, sort_calls,
    untested,
};
use crate::engine::model::{ScopeIdx, StrId, Trace};
use rustc_hash::FxHashMap;
use serde::Serialize;
use std::cmp::Ordering;

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SideStats {
    pub count: u64,
    pub total_ns: i64,
    pub per_call_ns: f64,
    pub max_ns: i64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Both,
    New,
    Gone,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CompareRow {
    pub name: String,
    pub data: String,
    pub a: Option<SideStats>,
    pub b: Option<SideStats>,
    pub delta_total_ns: i64,
    pub delta_per_call_ns: Option<f64>,
    pub status: Status,
    /// The judgement's kind is `spike` ([`Kind::Spike`]).
    pub spike: bool,
    /// The judgement of the noise model (see `judge`).
    pub change: Change,
    /// When changed gaps in the name (not waits) make up at least half of
    /// its own-time change on the frame thread: what that change is
    /// ("unprofiled: the new gap between `sim::step` and `draw::batch`
    /// (+1.50 ms per frame)"), not a change per call of its own (absent
    /// otherwise; see the frame's `gaps`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gap: Option<String>,
    /// What `report` tells of the name as structure, its row aside
    /// ("renamed: `from` → `to`", "restructured: under `P`"; absent
    /// otherwise).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub structure: Option<String>,
}

/// `counted` of an answer whose rows are scope names, each judged as a whole.
pub const COUNTED_NAMES: &str = "names";
/// `counted` of an answer whose rows are (name, data) pairs.
pub const COUNTED_PAIRS: &str = "name-data pairs";

/// How `compare` sorts its rows (ties always by name, then data).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CompareSort {
    /// |B − A| of the total, descending: the largest changes first, slower
    /// or faster (`delta` is its older name).
    #[default]
    #[value(alias = "delta")]
    #[serde(alias = "delta")]
    AbsDelta,
    /// B − A of the total, descending: what got slower first, what got
    /// faster last (the app's diff table's default order).
    SignedDelta,
    /// The larger of the two totals, descending.
    Total,
    /// |B − A| of the per-call time, descending; rows on one side only last.
    PerCall,
    /// The larger of the two counts, descending.
    Count,
    /// Name, then data, ascending.
    Name,
}

#[derive(Clone, Debug, Default)]
pub struct CompareOptions {
    pub top: usize,
    /// Keep rows whose name or data starts with this.
    pub filter: Option<String>,
    /// Drop rows under this total in both traces.
    pub hide_below_ns: i64,
    pub sort: CompareSort,
    pub noise: Noise,
}

/// What makes a comparison of `a` and `b` misleading: one has a scope
/// registration and the other none (its names are `scope#<id>`); a side
/// without scopes; two sides with no scope name in common (every row new
/// or gone: nothing is judged). Linear in the scopes.
pub fn compare_warnings(a: &Trace, b: &Trace) -> Vec<String> {
    let mut warnings = Vec::new();
    let (na, nb) = (called_names(a, None), called_names(b, None));
    // A side without scopes has no registration either: not a mismatch.
    if a.defs.has_registration() != b.defs.has_registration() && !na.is_empty() && !nb.is_empty() {
        let (with, without) = if a.defs.has_registration() {
            ("A", "B")
        } else {
            ("B", "A")
        };
        warnings.push(format!(
            "registration mismatch: {with} has scope registration and {without} has none, \
             so names will not match (unregistered scopes are named scope#<id>)"
        ));
    }
    let empty = match (na.is_empty(), nb.is_empty()) {
        (true, true) => Some("A and B have no scopes: nothing to compare"),
        (true, false) => Some("A has no scopes: nothing can be compared (every row is new in B)"),
        (false, true) => Some("B has no scopes: nothing can be compared (every row is gone in B)"),
        (false, false) => {
            let shared = nb.iter().any(|&n| {
                a.strings
                    .find(b.str(n))
                    .is_some_and(|id| na.binary_search(&id).is_ok())
            });
            (!shared).then_some(
                "A and B have no scope name in common: nothing can be compared (different apps, \
                 or a registration mismatch); every row is new or gone",
            )
        }
    };
    warnings.extend(empty.map(str::to_owned));
    warnings
}

/// Two traces' (name, data) groups joined by interned ids: B's strings are
/// looked up in A's interner once per distinct string, rows hold group
/// indices (no owned strings), and [`CompareRow`]s are made only for the
/// rows an answer lists or a view shows. Read it through [`Self::with`]
/// and the traces it was made of.
#[derive(Clone, Debug, Default)]
pub struct CompareTable {
    ga: Vec<Acc>,
    gb: Vec<Acc>,
    /// B's string id -> A's (`NONE` when A lacks the string).
    b_to_a: Vec<u32>,
    pairs: Vec<Pair>,
    /// The frames of A and B (per second: their seconds).
    frames: (usize, usize),
    /// What `frames` counts.
    basis: Basis,
    noise: Noise,
    /// The judgements that needed the calls (the rows the thresholds alone
    /// could not call unchanged), by (A's group, B's group).
    tested: FxHashMap<(u32, u32), Change>,
    /// The run-to-run drift this table estimated (none when it was given
    /// one, when drift is off, or with too few busy rows).
    drift: Option<Drift>,
}

/// A [`CompareTable`] with the traces it joins.
#[derive(Clone, Copy)]
pub struct Joined<'t> {
    a: &'t Trace,
    b: &'t Trace,
    table: &'t CompareTable,
}

/// A row of a [`Joined`]: a group of A, of B, or of both.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pair {
    a: u32,
    b: u32,
}

const NONE: u32 = u32::MAX;

/// What judging a row needs, without its strings.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RowFacts {
    pub status: Status,
    pub spike: bool,
    pub delta_total_ns: i64,
}

fn stats(g: &Acc) -> SideStats {
    SideStats {
        count: g.count,
        total_ns: g.total_ns,
        per_call_ns: g.total_ns as f64 / g.count as f64,
        max_ns: g.max_ns,
    }
}

impl CompareTable {
    /// The table of rows grouped `by` (name, or (name, data)), judged with
    /// the noise model's thresholds `noise`.
    pub fn grouped(a: &Trace, b: &Trace, by: GroupBy, noise: Noise) -> Self {
        (CompareBuilder::grouped(by, noise).step(a, b, &mut || true))
            .expect("a build given all the time it needs ends")
    }

    /// The table read with `a` and `b`, the traces it was made of.
    pub fn with<'t>(&'t self, a: &'t Trace, b: &'t Trace) -> Joined<'t> {
        Joined { a, b, table: self }
    }
}

/// [`CompareTable::grouped`] a slice at a time, for a caller that must keep
/// drawing (the browser's single thread): each [`Self::step`] works in
/// chunks until its `more` says stop.
#[derive(Debug)]
pub struct CompareBuilder {
    stage: BuildStage,
    /// The next instance or group of the stage.
    next: usize,
    /// A's groups (kept through the join: B's are looked up in it), B's.
    acc: [Accumulator; 2],
    matched: Vec<bool>,
    table: CompareTable,
    by: GroupBy,
    /// Each instance's group (A's, B's), for the judgement's calls.
    group_of: [Vec<u32>; 2],
    /// Per group of A (of B): its candidate's number, or `NONE`.
    candidate_of: [Vec<u32>; 2],
    /// The rows to judge from their calls.
    candidates: Vec<Pair>,
    /// Calls of the candidates: (candidate, frame position, duration).
    calls: [Calls; 2],
    /// A's and B's units (frames, or seconds when a side is unframed).
    units: [Units; 2],
}

/// Calls of the rows to judge: (candidate, frame position, duration).
type Calls = Vec<(u32, u32, i64)>;

/// A stage of a build; a side is 0 for A, 1 for B.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum BuildStage {
    /// A side's instances grouped, A's then B's.
    Group(usize),
    /// B's groups looked up in A's, then A's left over (gone).
    Join,
    /// The calls of the rows to judge, A's then B's (the rows judged once
    /// B's are in).
    Calls(usize),
}

impl CompareBuilder {
    /// A builder of the rows grouped `by`, judged with `noise`.
    pub fn grouped(by: GroupBy, noise: Noise) -> Self {
        Self {
            stage: BuildStage::Group(0),
            next: 0,
            acc: [Accumulator::recording(by), Accumulator::recording(by)],
            matched: Vec::new(),
            table: CompareTable {
                noise,
                ..Default::default()
            },
            by,
            group_of: Default::default(),
            candidate_of: Default::default(),
            candidates: Vec::new(),
            calls: Default::default(),
            units: Default::default(),
        }
    }

    /// How far along, 0 to 1.
    pub fn progress(&self, a: &Trace, b: &Trace) -> f32 {
        let (done, of) = match self.stage {
            BuildStage::Group(s) => (s, [a, b][s].scopes.len()),
            BuildStage::Join => (2, self.table.gb.len()),
            BuildStage::Calls(s) => (3 + s, [a, b][s].scopes.len()),
        };
        // Six parts: the five stages, and the judgement that ends the last.
        (done as f32 + self.next as f32 / of.max(1) as f32).min(6.0) / 6.0
    }

    /// Works on `a` and `b` (the same each time) until `more` says stop
    /// (asked after each chunk); the table once it is done.
    pub fn step(
        &mut self,
        a: &Trace,
        b: &Trace,
        more: &mut dyn FnMut() -> bool,
    ) -> Option<CompareTable> {
        const UNSEEN: u32 = NONE - 1;
        loop {
            let chunk = self.next..self.next + CHUNK;
            match self.stage {
                BuildStage::Group(s) => {
                    let t = [a, b][s];
                    let end = chunk.end.min(t.scopes.len());
                    self.acc[s].add(t, chunk.start as u32..end as u32, |_| true);
                    self.next = end;
                    if end == t.scopes.len() {
                        self.next = 0;
                        if s == 0 {
                            self.stage = BuildStage::Group(1);
                        } else {
                            self.group_of = self
                                .acc
                                .each_mut()
                                .map(|acc| acc.group_of.take().unwrap_or_default());
                            let ga = self.acc[0].groups.len();
                            self.table.gb = std::mem::take(&mut self.acc[1]).groups;
                            self.matched = vec![false; ga];
                            self.table.b_to_a = vec![UNSEEN; b.strings.len()];
                            self.table.pairs = Vec::with_capacity(ga.max(self.table.gb.len()));
                            self.stage = BuildStage::Join;
                        }
                    }
                }
                BuildStage::Join => {
                    let CompareTable {
                        gb, b_to_a, pairs, ..
                    } = &mut self.table;
                    let mut map = |id: StrId| {
                        let m = &mut b_to_a[id.0 as usize];
                        if *m == UNSEEN {
                            *m = a.strings.find(b.str(id)).map_or(NONE, |s| s.0);
                        }
                        *m
                    };
                    let end = chunk.end.min(gb.len());
                    for (j, g) in gb[chunk.start..end].iter().enumerate() {
                        let (name, data) = (map(g.name), map(g.data));
                        let hit = (name != NONE && data != NONE)
                            .then(|| self.acc[0].find(StrId(name), StrId(data)))
                            .flatten();
                        if let Some(i) = hit {
                            self.matched[i as usize] = true;
                        }
                        pairs.push(Pair {
                            a: hit.unwrap_or(NONE),
                            b: (chunk.start + j) as u32,
                        });
                    }
                    self.next = end;
                    if end == gb.len() {
                        self.table.ga = std::mem::take(&mut self.acc[0]).groups;
                        self.next = 0;
                        let matched = std::mem::take(&mut self.matched);
                        self.table.pairs.extend(
                            (0..self.table.ga.len() as u32)
                                .filter(|&i| !matched[i as usize])
                                .map(|i| Pair { a: i, b: NONE }),
                        );
                        let basis = Basis::of(a, b);
                        self.units = [Units::new(a, basis), Units::new(b, basis)];
                        self.table.basis = basis;
                        self.table.frames = (self.units[0].count, self.units[1].count);
                        self.estimate_drift(a);
                        self.pick_candidates();
                        self.stage = BuildStage::Calls(0);
                    }
                }
                BuildStage::Calls(s) => {
                    let t = [a, b][s];
                    let (of, cand, units) =
                        (&self.group_of[s], &self.candidate_of[s], &self.units[s]);
                    let end = chunk.end.min(t.scopes.len());
                    if !self.candidates.is_empty() {
                        for i in chunk.start..end {
                            let c = of.get(i).and_then(|&g| cand.get(g as usize));
                            if let Some(&c) = c.filter(|&&c| c != NONE) {
                                let frame = units.of_scope(t, ScopeIdx(i as u32));
                                self.calls[s].push((c, frame, t.scopes.duration_ns[i]));
                            }
                        }
                    }
                    self.next = end;
                    if end == t.scopes.len() {
                        self.next = 0;
                        if s == 0 {
                            self.stage = BuildStage::Calls(1);
                        } else {
                            self.group_of = Default::default();
                            self.candidate_of = Default::default();
                            self.judge_candidates();
                            let done = std::mem::take(&mut self.table);
                            *self = Self::grouped(self.by, done.noise);
                            return Some(done);
                        }
                    }
                }
            }
            if !more() {
                return None;
            }
        }
    }

    /// With [`DriftMode::Estimate`]: the drift of the names in both (see
    /// [`drift`]; per name whatever the table's grouping, so that every
    /// table of a comparison, and the app's, judges against one factor),
    /// which the table then judges against.
    fn estimate_drift(&mut self, a: &Trace) {
        let t = &self.table;
        if matches!(t.noise.drift, DriftMode::Factor(_)) {
            return;
        }
        let na = sides_by_name(t.ga.iter().map(|g| (g.name.0, g)));
        // B's names in A's ids (the join looked each one up).
        let nb = sides_by_name(t.gb.iter().filter_map(|g| {
            let id = *t.b_to_a.get(g.name.0 as usize)?;
            (id < NONE - 1).then_some((id, g))
        }));
        let (noise, drift) = resolve_drift((&na, &nb), |&id| a.str(StrId(id)), t.noise);
        (self.table.noise, self.table.drift) = (noise, drift);
    }

    /// The rows whose judgement needs their calls: a possible spike, or a
    /// per-call or count part past the thresholds. Every other row in both
    /// is unchanged by the thresholds alone.
    fn pick_candidates(&mut self) {
        let t = &self.table;
        let mut cand_a = vec![NONE; t.ga.len()];
        let mut cand_b = vec![NONE; t.gb.len()];
        for &p in &t.pairs {
            let (Some(ga), Some(gb)) = (t.ga.get(p.a as usize), t.gb.get(p.b as usize)) else {
                continue;
            };
            if needs_calls(sums(ga), sums(gb), t.frames, &t.noise) {
                cand_a[p.a as usize] = self.candidates.len() as u32;
                cand_b[p.b as usize] = self.candidates.len() as u32;
                self.candidates.push(p);
            }
        }
        self.candidate_of = [cand_a, cand_b];
    }

    /// Judges each candidate from its calls.
    fn judge_candidates(&mut self) {
        let n = self.candidates.len();
        let mut calls = std::mem::take(&mut self.calls);
        let [sa, sb] = [0, 1].map(|s| {
            sort_calls(&mut calls[s], n);
            samples(&calls[s], n, &self.units[s])
        });
        let changes = judge_rows(&sa, &sb, &mut self.table.noise);
        let pairs = self.candidates.iter().map(|p| (p.a, p.b));
        self.table.tested.extend(pairs.zip(changes));
    }
}

fn sums(g: &Acc) -> Sums {
    Sums {
        count: g.count,
        total_ns: g.total_ns,
        max_ns: g.max_ns,
    }
}

impl NamedRows<Pair> for Joined<'_> {
    fn name_key(&self, p: Pair) -> u64 {
        Joined::name_key(self, p)
    }

    fn name(&self, p: Pair) -> &str {
        Joined::name(self, p)
    }

    fn data(&self, p: Pair) -> &str {
        Joined::data(self, p)
    }
}

/// Rows as indices into [`Joined::pairs`].
impl NamedRows<u32> for Joined<'_> {
    fn name_key(&self, k: u32) -> u64 {
        Joined::name_key(self, self.table.pairs[k as usize])
    }

    fn name(&self, k: u32) -> &str {
        Joined::name(self, self.table.pairs[k as usize])
    }

    fn data(&self, k: u32) -> &str {
        Joined::data(self, self.table.pairs[k as usize])
    }
}

impl<'t> Joined<'t> {
    /// Each row's judgement by its name (rows grouped by name).
    pub fn kinds_by_name(&self) -> rustc_hash::FxHashMap<&str, Kind> {
        self.pairs()
            .iter()
            .map(|&p| (self.name(p), self.kind(p)))
            .collect()
    }

    /// Every row, in no particular order.
    pub fn pairs(&self) -> &'t [Pair] {
        &self.table.pairs
    }

    fn sides(&self, p: Pair) -> (Option<&'t Acc>, Option<&'t Acc>) {
        (
            self.table.ga.get(p.a as usize),
            self.table.gb.get(p.b as usize),
        )
    }

    /// A row's numbers on each side.
    pub fn stats(&self, p: Pair) -> (Option<SideStats>, Option<SideStats>) {
        let (a, b) = self.sides(p);
        (a.map(stats), b.map(stats))
    }

    pub fn name(&self, p: Pair) -> &'t str {
        match self.sides(p) {
            (Some(g), _) => self.a.str(g.name),
            (None, Some(g)) => self.b.str(g.name),
            (None, None) => "",
        }
    }

    pub fn data(&self, p: Pair) -> &'t str {
        match self.sides(p) {
            (Some(g), _) => self.a.str(g.data),
            (None, Some(g)) => self.b.str(g.data),
            (None, None) => "",
        }
    }

    /// The row's name as one number: A's string id, or B's (above 2^32)
    /// when A lacks the name.
    pub fn name_key(&self, p: Pair) -> u64 {
        match self.sides(p) {
            (Some(g), _) => u64::from(g.name.0),
            (None, Some(g)) => match self.table.b_to_a[g.name.0 as usize] {
                NONE => (1 << 32) | u64::from(g.name.0),
                id => u64::from(id),
            },
            (None, None) => 0,
        }
    }

    fn totals(&self, p: Pair) -> (i64, i64) {
        let (a, b) = self.sides(p);
        (a.map_or(0, |g| g.total_ns), b.map_or(0, |g| g.total_ns))
    }

    fn delta_total_ns(&self, p: Pair) -> i64 {
        let (ta, tb) = self.totals(p);
        tb.saturating_sub(ta)
    }

    /// B − A of the per-call time (`None` unless both sides have the row).
    pub fn delta_per_call_ns(&self, p: Pair) -> Option<f64> {
        let (a, b) = self.sides(p);
        Some(stats(b?).per_call_ns - stats(a?).per_call_ns)
    }

    pub fn facts(&self, p: Pair) -> RowFacts {
        let (a, b) = self.sides(p);
        let (ta, tb) = self.totals(p);
        let larger = if tb > ta { b } else { a };
        RowFacts {
            status: match (a, b) {
                (Some(_), Some(_)) => Status::Both,
                (None, _) => Status::New,
                (_, None) => Status::Gone,
            },
            spike: larger.is_some_and(|g| spike(g.count, g.max_ns, g.total_ns)),
            delta_total_ns: tb.saturating_sub(ta),
        }
    }

    /// The noise model's judgement of a row.
    pub fn change(&self, p: Pair) -> Change {
        if let Some(c) = self.table.tested.get(&(p.a, p.b)) {
            return c.clone();
        }
        let (a, b) = self.sides(p);
        untested(
            a.map(sums),
            b.map(sums),
            self.table.frames,
            &self.table.noise,
            self.table.basis,
        )
    }

    /// A row's own time per unit: its change beyond the drift, and what A's
    /// times the drift factor expected (for the gate's causes).
    pub fn own(&self, p: Pair) -> Own {
        let (a, b) = self.sides(p);
        let (ua, ub) = self.table.frames;
        let own = |g: Option<&Acc>, units: usize| {
            g.map_or(0.0, |g| g.self_ns as f64 / units.max(1) as f64)
        };
        let factor = if a.is_some() && b.is_some() {
            self.table.noise.drift_factor()
        } else {
            1.0
        };
        let expected = own(a, ua) * factor;
        Own {
            beyond_drift_ns: own(b, ub) - expected,
            expected_ns: expected,
            noise_pct: self.table.noise.pct,
        }
    }

    /// Whether a changed row is a wrapper: its own (self) time moved less
    /// than half of its change beyond the drift, so the change is in what
    /// it calls, not in it (the gate's rule for a cause, either way).
    /// Unchanged, inconclusive, new, gone and spike rows are not.
    pub fn is_wrapper(&self, p: Pair, change: &Change) -> bool {
        if matches!(
            change.kind,
            Kind::Unchanged | Kind::Inconclusive | Kind::Spike | Kind::New | Kind::Gone
        ) {
            return false;
        }
        let beyond = change.beyond_drift_ns();
        beyond != 0.0 && self.own(p).beyond_drift_ns.abs() < 0.5 * beyond.abs()
    }

    /// The run-to-run drift the table estimated (see [`drift`]).
    pub fn drift(&self) -> Option<&'t Drift> {
        self.table.drift.as_ref()
    }

    /// The thresholds the table judged with, its drift factor included:
    /// what another table of the same comparison is built with.
    pub fn noise(&self) -> Noise {
        self.table.noise
    }

    /// The kind of a row's change (what [`Self::change`] says, cheaper).
    pub fn kind(&self, p: Pair) -> Kind {
        match self.table.tested.get(&(p.a, p.b)) {
            Some(c) => c.kind,
            None => match self.sides(p) {
                (None, _) => Kind::New,
                (_, None) => Kind::Gone,
                _ => Kind::Unchanged,
            },
        }
    }

    /// The frames of A and of B (per second: their seconds).
    pub fn frames(&self) -> (usize, usize) {
        self.table.frames
    }

    /// What the table's "per frame" is per.
    pub fn basis(&self) -> Basis {
        self.table.basis
    }

    /// The gate's unit: A's mean frame, or a second.
    pub fn unit_ns(&self) -> f64 {
        match self.table.basis {
            Basis::Frame => mean_frame_ns(self.a),
            Basis::Second => super::basis::SECOND_NS as f64,
        }
    }

    pub fn row(&self, p: Pair) -> CompareRow {
        let (a, b) = self.sides(p);
        let facts = self.facts(p);
        let change = self.change(p);
        CompareRow {
            name: self.name(p).to_owned(),
            data: self.data(p).to_owned(),
            a: a.map(stats),
            b: b.map(stats),
            delta_total_ns: facts.delta_total_ns,
            delta_per_call_ns: self.delta_per_call_ns(p),
            status: facts.status,
            // The judgement's, as every command says it.
            spike: change.kind == Kind::Spike,
            change,
            gap: None,
            structure: None,
        }
    }

    /// The order of `sort` (a total order: ties by name, then data).
    pub fn cmp(&self, sort: CompareSort, x: Pair, y: Pair) -> Ordering {
        let by_name = || {
            self.name(x)
                .cmp(self.name(y))
                .then_with(|| self.data(x).cmp(self.data(y)))
        };
        let larger_total = |p: Pair| {
            let (ta, tb) = self.totals(p);
            ta.max(tb)
        };
        let larger_count = |p: Pair| {
            let (a, b) = self.sides(p);
            a.map_or(0, |g| g.count).max(b.map_or(0, |g| g.count))
        };
        match sort {
            CompareSort::AbsDelta => self
                .delta_total_ns(y)
                .unsigned_abs()
                .cmp(&self.delta_total_ns(x).unsigned_abs()),
            CompareSort::SignedDelta => self.delta_total_ns(y).cmp(&self.delta_total_ns(x)),
            CompareSort::Total => larger_total(y).cmp(&larger_total(x)),
            CompareSort::Count => larger_count(y).cmp(&larger_count(x)),
            CompareSort::PerCall => {
                // Descending, rows on one side only (`None`) last.
                let [p, q] = [x, y].map(|r| self.delta_per_call_ns(r).map(f64::abs));
                (p.is_none().cmp(&q.is_none())).then(q.partial_cmp(&p).unwrap_or(Ordering::Equal))
            }
            CompareSort::Name => Ordering::Equal,
        }
        .then_with(by_name)
    }

    /// The first `n` of `pairs` in the order of `sort`: a selection, then a
    /// sort of those `n` only.
    pub fn first(&self, pairs: Vec<Pair>, n: usize, sort: CompareSort) -> Vec<Pair> {
        if sort == CompareSort::Name {
            // By name, then data (see [`NameOrder`]).
            return (NameOrder::new(pairs).step(self, n, &mut || true))
                .expect("an order given all the time it needs ends");
        }
        first_n(pairs, n, |x, y| self.cmp(sort, *x, *y))
    }

    /// The rows of `compare` with `opts`.
    pub fn rows(&self, opts: &CompareOptions) -> Vec<CompareRow> {
        self.kept_rows(opts).1
    }

    /// The rows `opts` keep before `--top` (how many, how many changed),
    /// and the first `--top` of them.
    pub fn kept_rows(&self, opts: &CompareOptions) -> ((usize, usize), Vec<CompareRow>) {
        let n = opts.top;
        let (mut total, mut changed) = (0, 0);
        // The candidates for the first `n`: every kept row by name (its
        // order is built in steps), else a buffer cut back to the best `n`
        // whenever it holds twice as many (memory O(n), not O(rows)).
        let mut buf: Vec<Pair> = Vec::new();
        let cut = n.saturating_mul(2).max(1024);
        let cmp = |x: &Pair, y: &Pair| self.cmp(opts.sort, *x, *y);
        for p in self.kept_iter(opts) {
            total += 1;
            changed += usize::from(self.kind(p).is_change());
            if n == 0 {
                continue;
            }
            buf.push(p);
            if opts.sort != CompareSort::Name && buf.len() >= cut {
                buf.select_nth_unstable_by(n - 1, cmp);
                buf.truncate(n);
            }
        }
        let rows = self
            .first(buf, n, opts.sort)
            .into_iter()
            .map(|p| self.row(p))
            .collect();
        ((total, changed), rows)
    }

    /// The rows `opts`' filters keep, and how many of them are judged a
    /// change.
    pub fn counted(&self, opts: &CompareOptions) -> (usize, usize) {
        self.kept_iter(opts).fold((0, 0), |(n, changed), p| {
            (n + 1, changed + usize::from(self.kind(p).is_change()))
        })
    }

    /// The rows `opts`' filters keep, in no particular order.
    pub fn kept_iter<'s>(&'s self, opts: &'s CompareOptions) -> impl Iterator<Item = Pair> + 's {
        self.pairs().iter().copied().filter(|&p| {
            let keep_filter = opts
                .filter
                .as_deref()
                .is_none_or(|f| self.name(p).starts_with(f) || self.data(p).starts_with(f));
            let (ta, tb) = self.totals(p);
            keep_filter && (ta >= opts.hide_below_ns || tb >= opts.hide_below_ns)
        })
    }
}

/// Groups' calls and own time summed per name (`K`: how the caller keys a
/// name), the drift estimate's input.
fn sides_by_name<'g, K: std::hash::Hash + Eq>(
    groups: impl Iterator<Item = (K, &'g Acc)>,
) -> FxHashMap<K, drift::Side> {
    let mut m: FxHashMap<K, drift::Side> = FxHashMap::default();
    for (name, g) in groups {
        let s = m.entry(name).or_default();
        s.count += g.count;
        s.self_ns = s.self_ns.saturating_add(g.self_ns);
    }
    m
}

/// `noise` with the drift resolved for `a` against `b` (estimated from
/// their names, as a comparison's tables do, when asked to estimate), and
/// the estimate: for an analysis that judges without a [`CompareTable`]
/// (the differential tree).
pub fn with_estimated_drift(a: &Trace, b: &Trace, noise: Noise) -> (Noise, Option<Drift>) {
    if matches!(noise.drift, DriftMode::Factor(_)) {
        return (noise, None);
    }
    fn by_name(t: &Trace) -> FxHashMap<&str, drift::Side> {
        let groups = super::super::find::accumulate(t, GroupBy::Name, |_| true);
        sides_by_name(groups.iter().map(|g| (t.str(g.name), g)))
    }
    resolve_drift((&by_name(a), &by_name(b)), |&name| name, noise)
}

/// `noise` judging against the drift of the names both sides of `sides`
/// have (`name`: a key's name), and the estimate: `None` with `--no-drift`
/// (the names' spread still measured), or too few busy names.
fn resolve_drift<'k, K: std::hash::Hash + Eq>(
    (na, nb): (&'k FxHashMap<K, drift::Side>, &FxHashMap<K, drift::Side>),
    name: impl Fn(&'k K) -> &'k str,
    noise: Noise,
) -> (Noise, Option<Drift>) {
    let rows = (na.iter()).filter_map(|(k, &sa)| Some((name(k), sa, *nb.get(k)?)));
    let estimate = drift::estimate(rows, noise.pct, noise.alpha, noise.tau);
    let noise = noise.with_drift(estimate.as_ref());
    (
        noise,
        estimate.filter(|_| noise.drift != DriftMode::Off || noise.paired),
    )
}
