//! `compare`: two recordings joined per (name, data).

use super::common::*;
use super::find::{Acc, Accumulator, GroupBy};
use crate::engine::model::{StrId, Trace};
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
    pub spike: bool,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CompareReport {
    pub warnings: Vec<String>,
    pub rows: Vec<CompareRow>,
}

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
}

/// What makes a comparison of `a` and `b` misleading: one has a scope
/// registration and the other none (its names are `scope#<id>`).
pub fn compare_warnings(a: &Trace, b: &Trace) -> Vec<String> {
    let mut warnings = Vec::new();
    if a.defs.has_registration() != b.defs.has_registration() {
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
    pub count_a: Option<u64>,
    pub count_b: Option<u64>,
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
    pub fn new(a: &Trace, b: &Trace) -> Self {
        let mut builder = CompareBuilder::new();
        loop {
            if let Some(table) = builder.step(a, b, &mut || true) {
                return table;
            }
        }
    }

    /// The table read with `a` and `b`, the traces it was made of.
    pub fn with<'t>(&'t self, a: &'t Trace, b: &'t Trace) -> Joined<'t> {
        Joined { a, b, table: self }
    }
}

/// [`CompareTable::new`] a slice at a time, for a caller that must keep
/// drawing (the browser's single thread): each [`Self::step`] works in
/// chunks until its `more` says stop.
#[derive(Debug, Default)]
pub struct CompareBuilder {
    stage: BuildStage,
    /// The next instance or group of the stage.
    next: usize,
    /// A's groups (kept through the join: B's are looked up in it), B's.
    acc_a: Accumulator,
    acc_b: Accumulator,
    matched: Vec<bool>,
    table: CompareTable,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum BuildStage {
    #[default]
    GroupA,
    GroupB,
    Join,
    Gone,
}

impl CompareBuilder {
    pub fn new() -> Self {
        Self {
            acc_a: Accumulator::new(GroupBy::NameData),
            acc_b: Accumulator::new(GroupBy::NameData),
            ..Default::default()
        }
    }

    /// How far along, 0 to 1.
    pub fn progress(&self, a: &Trace, b: &Trace) -> f32 {
        let (done, of) = match self.stage {
            BuildStage::GroupA => (0.0, a.scopes.len()),
            BuildStage::GroupB => (1.0, b.scopes.len()),
            BuildStage::Join | BuildStage::Gone => (2.0, self.table.gb.len()),
        };
        (done + self.next as f32 / of.max(1) as f32).min(3.0) / 3.0
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
                BuildStage::GroupA | BuildStage::GroupB => {
                    let (t, acc) = if self.stage == BuildStage::GroupA {
                        (a, &mut self.acc_a)
                    } else {
                        (b, &mut self.acc_b)
                    };
                    let end = chunk.end.min(t.scopes.len());
                    acc.add(t, chunk.start as u32..end as u32, |_| true);
                    self.next = end;
                    if end == t.scopes.len() {
                        self.next = 0;
                        if self.stage == BuildStage::GroupA {
                            self.stage = BuildStage::GroupB;
                        } else {
                            let ga = self.acc_a.groups.len();
                            self.table.gb = std::mem::take(&mut self.acc_b).groups;
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
                        let hit = if name == NONE || data == NONE {
                            None
                        } else {
                            self.acc_a.find(StrId(name), StrId(data))
                        };
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
                        self.table.ga = std::mem::take(&mut self.acc_a).groups;
                        self.next = 0;
                        self.stage = BuildStage::Gone;
                    }
                }
                BuildStage::Gone => {
                    let matched = std::mem::take(&mut self.matched);
                    self.table.pairs.extend(
                        (0..self.table.ga.len() as u32)
                            .filter(|&i| !matched[i as usize])
                            .map(|i| Pair { a: i, b: NONE }),
                    );
                    let done = std::mem::take(&mut self.table);
                    *self = Self::new();
                    return Some(done);
                }
            }
            if !more() {
                return None;
            }
        }
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
        match self.sides(p) {
            (Some(a), Some(b)) => Some(stats(b).per_call_ns - stats(a).per_call_ns),
            _ => None,
        }
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
            count_a: a.map(|g| g.count),
            count_b: b.map(|g| g.count),
        }
    }

    pub fn row(&self, p: Pair) -> CompareRow {
        let (a, b) = self.sides(p);
        let facts = self.facts(p);
        CompareRow {
            name: self.name(p).to_owned(),
            data: self.data(p).to_owned(),
            a: a.map(stats),
            b: b.map(stats),
            delta_total_ns: facts.delta_total_ns,
            delta_per_call_ns: self.delta_per_call_ns(p),
            status: facts.status,
            spike: facts.spike,
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
                let key = |p: Pair| self.delta_per_call_ns(p).map(f64::abs);
                match (key(x), key(y)) {
                    (Some(p), Some(q)) => q.partial_cmp(&p).unwrap_or(Ordering::Equal),
                    (Some(_), None) => Ordering::Less,
                    (None, Some(_)) => Ordering::Greater,
                    (None, None) => Ordering::Equal,
                }
            }
            CompareSort::Name => Ordering::Equal,
        }
        .then_with(by_name)
    }

    /// The first `n` of `pairs` in the order of `sort`: a selection, then a
    /// sort of those `n` only.
    pub fn first(&self, mut pairs: Vec<Pair>, n: usize, sort: CompareSort) -> Vec<Pair> {
        if sort == CompareSort::Name {
            return self.first_by_name(pairs, n);
        }
        let cmp = |x: &Pair, y: &Pair| self.cmp(sort, *x, *y);
        if n < pairs.len() {
            if n == 0 {
                return Vec::new();
            }
            pairs.select_nth_unstable_by(n - 1, cmp);
            pairs.truncate(n);
        }
        pairs.sort_unstable_by(cmp);
        pairs
    }

    /// [`Self::first`] by name, then data (see [`NameOrder`]).
    fn first_by_name(&self, pairs: Vec<Pair>, n: usize) -> Vec<Pair> {
        let mut order = NameOrder::new(pairs);
        loop {
            if let Some(rows) = order.step(self, n, &mut || true) {
                return rows;
            }
        }
    }

    /// The rows of `compare` with `opts`.
    pub fn rows(&self, opts: &CompareOptions) -> Vec<CompareRow> {
        let kept: Vec<Pair> = self
            .pairs()
            .iter()
            .copied()
            .filter(|&p| {
                let keep_filter = opts
                    .filter
                    .as_deref()
                    .is_none_or(|f| self.name(p).starts_with(f) || self.data(p).starts_with(f));
                let (ta, tb) = self.totals(p);
                keep_filter && (ta >= opts.hide_below_ns || tb >= opts.hide_below_ns)
            })
            .collect();
        self.first(kept, opts.top, opts.sort)
            .into_iter()
            .map(|p| self.row(p))
            .collect()
    }
}

/// Joins two traces on (name, data). See [`CompareSort`] for the order.
pub fn compare(a: &Trace, b: &Trace, opts: &CompareOptions) -> CompareReport {
    CompareReport {
        warnings: compare_warnings(a, b),
        rows: CompareTable::new(a, b).with(a, b).rows(opts),
    }
}
