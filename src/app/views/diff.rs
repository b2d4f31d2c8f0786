//! The diff view: what changed between A (before) and B (after). *Table*:
//! the `compare` rows per (name, data), sortable by any column, filtered,
//! small rows hidden. *Tree*: the differential call tree (the `diff`
//! query), slower in red and faster in green, opened on the path to the
//! largest regression. Totals as recorded or per frame (per second when a
//! side is unframed: [`crate::engine::analyses::basis`]); per frame by
//! default when the sides' frame counts (or seconds) differ, so an
//! unchanged scope is at 0% and its colour neutral in every mode. Derived
//! rows are rebuilt when their inputs change, never per repaint.

use super::BUILD_SLICE;
use super::widgets::{Pointing, breadcrumb, cell_label, f64_order, rows_table, triangle};
use crate::app::loaded::Loaded;
use crate::app::nav::{
    Matcher, decode_hash, encode_hash, hash_value, sort_option, string_list_option,
};
use crate::engine::Trace;
use crate::engine::analyses::basis::{Basis, Units};
use crate::engine::analyses::diff::{DiffTree, DiffTreeBuilder};
use crate::engine::analyses::flame::{FlameLayout, icicle};
use crate::engine::analyses::rename::{Rename, renames_in};
use crate::engine::analyses::transform::Stack;
use crate::engine::analyses::{
    self, CompareBuilder, CompareTable, GroupBy, HistogramBin, Joined, Kind, NameOrder, Noise,
    Pair, SideStats, compare_warnings,
};
use crate::units::{ms_f, thread_label};
use egui::{Color32, RichText, Sense};
use egui_extras::Column;
use egui_plot::{Bar, BarChart, Plot};
use std::sync::Arc;

const ROW_HEIGHT: f32 = 18.0;
const SLOWER: Color32 = Color32::from_rgb(220, 60, 60);
const FASTER: Color32 = Color32::from_rgb(60, 170, 90);
const A_COLOR: Color32 = Color32::from_rgb(90, 130, 200);
const B_COLOR: Color32 = Color32::from_rgb(235, 140, 40);

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum DiffMode {
    #[default]
    Table,
    Tree,
    /// The differential flame graph.
    Flame,
}

impl DiffMode {
    pub fn as_str(self) -> &'static str {
        match self {
            DiffMode::Table => "table",
            DiffMode::Tree => "tree",
            DiffMode::Flame => "flame",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "table" => Some(DiffMode::Table),
            "tree" => Some(DiffMode::Tree),
            "flame" => Some(DiffMode::Flame),
            _ => None,
        }
    }
}

/// Totals as recorded, or divided by each side's number of frames.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Normalize {
    Total,
    PerFrame,
}

impl Normalize {
    pub fn as_str(self) -> &'static str {
        match self {
            Normalize::Total => "total",
            Normalize::PerFrame => "per-frame",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "total" => Some(Normalize::Total),
            "per-frame" => Some(Normalize::PerFrame),
            _ => None,
        }
    }
}

/// A sortable column of the table mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DiffSort {
    Name,
    ACount,
    ATotal,
    APerCall,
    BCount,
    BTotal,
    BPerCall,
    /// Δ of the totals, signed: slower first when descending (the default).
    Delta,
    /// |Δ| of the totals: the largest change first, either way (the CLI's
    /// `compare --sort abs-delta`).
    AbsDelta,
    DeltaPerCall,
    DeltaPercent,
}

impl DiffSort {
    pub const ALL: [DiffSort; 11] = [
        DiffSort::Name,
        DiffSort::ACount,
        DiffSort::ATotal,
        DiffSort::APerCall,
        DiffSort::BCount,
        DiffSort::BTotal,
        DiffSort::BPerCall,
        DiffSort::Delta,
        DiffSort::AbsDelta,
        DiffSort::DeltaPerCall,
        DiffSort::DeltaPercent,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            DiffSort::Name => "name",
            DiffSort::ACount => "a_count",
            DiffSort::ATotal => "a_total",
            DiffSort::APerCall => "a_per_call",
            DiffSort::BCount => "b_count",
            DiffSort::BTotal => "b_total",
            DiffSort::BPerCall => "b_per_call",
            DiffSort::Delta => "delta",
            DiffSort::AbsDelta => "abs_delta",
            DiffSort::DeltaPerCall => "delta_per_call",
            DiffSort::DeltaPercent => "delta_percent",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        DiffSort::ALL.into_iter().find(|c| c.as_str() == s)
    }
}

/// The details of one scope name on both sides.
pub struct DiffDetails {
    pub name: String,
    pub a: Vec<i64>,
    pub b: Vec<i64>,
    /// Both sides' durations in the same bins.
    pub a_bins: Vec<HistogramBin>,
    pub b_bins: Vec<HistogramBin>,
    /// Its calls split by call site (caller and thread), each judged, and
    /// the site the change is placed at (`report`'s place): one name only.
    pub sites: Option<crate::engine::analyses::place::Placed>,
}

pub struct DiffView {
    a: Arc<Loaded>,
    b: Arc<Loaded>,
    /// The noise model the rows are judged with (paired runs: a folder of
    /// `ab` runs).
    noise: Noise,
    mode: DiffMode,
    normalize: Normalize,
    /// What "per frame" is per, and each side's units (frames, or seconds).
    basis: Basis,
    units: (usize, usize),
    warnings: Vec<String>,
    /// The run-to-run drift's line (as the report words it), set when the
    /// table is built.
    drift: Option<String>,
    /// The rows joined, read with A's and B's traces ([`Self::joined`]).
    table: CompareTable,
    /// While the table is being built a slice at a time ([`Self::start`]):
    /// the build, when it started and in how many slices so far.
    building: Option<DiffBuild>,
    build_started: web_time::Instant,
    build_slices: usize,
    /// Every row (an index into the table's pairs) by name, then data; and
    /// each pair's position in that order (the sorts' tie-break).
    by_name: Vec<u32>,
    rank: Vec<u32>,
    sort: DiffSort,
    descending: bool,
    filter: (String, bool),
    hide_below_ms: f64,
    /// The table's rows shown, in order (positions in `by_name`).
    rows: Vec<u32>,
    /// Renames at one place (as the report finds them), shown as one row:
    /// by the new name's pair (an index into the table's pairs), the gone
    /// name's pair and the rename; the gone name's row is not shown.
    renamed: rustc_hash::FxHashMap<u32, (u32, Rename)>,
    renamed_from: rustc_hash::FxHashSet<u32>,
    /// Each changed row's cost through the runs (the first [`SPARK_ROWS`]
    /// changed rows in the shown order), by name: made when the rows'
    /// order changes, for the names it lacks.
    sparks: rustc_hash::FxHashMap<String, Arc<Spark>>,
    selected: Option<u32>,
    details: Option<DiffDetails>,
    /// The differential tree, built when the tree mode is first shown: at
    /// once natively, a slice per frame in the browser (`tree_build`, and
    /// when it started).
    tree: Option<DiffTree>,
    tree_build: Option<(DiffTreeBuilder, web_time::Instant)>,
    /// How `show()` asked the tree to be opened while it was being built.
    tree_expand: Option<fn(&mut DiffView)>,
    /// Whether what the view builds on demand (the tree) is built a slice
    /// per frame ([`Self::start`]) or at once ([`Self::new`]).
    sliced: bool,
    expanded: Vec<bool>,
    t_rows: Vec<u32>,
    /// The flame mode: widths from A (else B), the focused node's names
    /// from its thread down, its layout (for the width it was made for),
    /// the node under the pointer.
    flame_from_a: bool,
    flame_focus: Vec<String>,
    flame: FlameLayout<u32>,
    flame_width: f32,
    flame_hover: Option<u32>,
    /// The transforms the tree and flame modes show.
    stack: Stack,
}

/// The rows shown, from their sort keys ([`DiffView::sort_keys`]).
fn sorted_rows(mut keys: Vec<u128>) -> Vec<u32> {
    keys.sort_unstable();
    keys.into_iter().map(|k| k as u32).collect()
}

/// The diff table's rows built a slice at a time: the compare table, then
/// its rows in name order (the sorts' tie-break). One per view, while it
/// builds: the sizes of its stages do not matter.
#[allow(clippy::large_enum_variant)]
enum DiffBuild {
    Table(CompareBuilder),
    Order(CompareTable, NameOrder<u32>),
    /// Built: the rows' first sort is left (their keys made a chunk at a
    /// time: reading both sides' numbers of 3.6M rows takes longer than
    /// sorting them), `keys` those of the table's pairs `..next`.
    Sort {
        keys: Vec<u128>,
        next: u32,
    },
}

impl DiffBuild {
    /// Works until `more` says stop; the table and its rows by name once done.
    fn step(
        &mut self,
        ta: &Trace,
        tb: &Trace,
        more: &mut dyn FnMut() -> bool,
    ) -> Option<(CompareTable, Vec<u32>)> {
        loop {
            match self {
                DiffBuild::Table(builder) => {
                    let table = builder.step(ta, tb, more)?;
                    let pairs = table.with(ta, tb).pairs().len() as u32;
                    let order = NameOrder::new((0..pairs).collect());
                    *self = DiffBuild::Order(table, order);
                }
                DiffBuild::Order(table, order) => {
                    let by_name = order.step(&table.with(ta, tb), usize::MAX, more)?;
                    return Some((std::mem::take(table), by_name));
                }
                DiffBuild::Sort { .. } => return None,
            }
            if !more() {
                return None;
            }
        }
    }

    /// How far along, 0 to 1.
    fn progress(&self, ta: &Trace, tb: &Trace) -> f32 {
        match self {
            DiffBuild::Table(builder) => 0.6 * builder.progress(ta, tb),
            DiffBuild::Order(_, order) => 0.6 + 0.35 * order.progress(),
            DiffBuild::Sort { .. } => 0.95,
        }
    }
}

impl DiffView {
    /// The view with its table built before it returns.
    pub fn new(a: Arc<Loaded>, b: Arc<Loaded>) -> Self {
        Self::new_with(a, b, Noise::default())
    }

    /// [`Self::new`], the rows judged with `noise`.
    pub fn new_with(a: Arc<Loaded>, b: Arc<Loaded>, noise: Noise) -> Self {
        let mut view = Self::start_with(a, b, noise);
        view.sliced = false;
        while view.step_build(None) {}
        view
    }

    /// The view, its table to be built a slice per frame ([`Self::step_build`],
    /// which its `ui` calls): a page's thread keeps drawing meanwhile.
    pub fn start(a: Arc<Loaded>, b: Arc<Loaded>) -> Self {
        Self::start_with(a, b, Noise::default())
    }

    /// [`Self::start`], the rows judged with `noise` (paired runs: a folder
    /// of `ab` runs, as `report DIR` judges it).
    pub fn start_with(a: Arc<Loaded>, b: Arc<Loaded>, noise: Noise) -> Self {
        let (ta, tb) = (a.trace(), b.trace());
        let basis = Basis::of(ta, tb);
        let units = (Units::new(ta, basis).count, Units::new(tb, basis).count);
        let normalize = if units.0 == units.1 {
            Normalize::Total
        } else {
            Normalize::PerFrame
        };
        Self {
            basis,
            units,
            warnings: compare_warnings(ta, tb),
            drift: None,
            a,
            b,
            noise,
            mode: DiffMode::Table,
            normalize,
            table: CompareTable::default(),
            building: Some(DiffBuild::Table(CompareBuilder::grouped(
                GroupBy::NameData,
                noise,
            ))),
            build_started: web_time::Instant::now(),
            build_slices: 0,
            by_name: Vec::new(),
            rank: Vec::new(),
            sort: DiffSort::Delta,
            descending: true,
            filter: (String::new(), false),
            hide_below_ms: 0.0,
            rows: Vec::new(),
            renamed: Default::default(),
            renamed_from: Default::default(),
            sparks: Default::default(),
            selected: None,
            details: None,
            tree: None,
            tree_build: None,
            stack: Stack::default(),
            tree_expand: None,
            sliced: true,
            expanded: Vec::new(),
            t_rows: Vec::new(),
            flame_from_a: false,
            flame_focus: Vec::new(),
            flame: FlameLayout::default(),
            flame_width: 1000.0,
            flame_hover: None,
        }
    }

    /// Builds the table for at most `budget` (all of it when `None`);
    /// whether it is still being built.
    pub fn step_build(&mut self, budget: Option<web_time::Duration>) -> bool {
        let Some(mut build) = self.building.take() else {
            return false;
        };
        let started = web_time::Instant::now();
        let mut more = || budget.is_none_or(|b| started.elapsed() < b);
        self.build_slices += 1;
        if let DiffBuild::Sort { keys, next } = &mut build {
            // The rows' first order, in slices of their own, from each
            // pair's position by name.
            if self.rank.len() != self.by_name.len() {
                self.rank = vec![0; self.by_name.len()];
                for (r, &k) in self.by_name.iter().enumerate() {
                    self.rank[k as usize] = r as u32;
                }
            }
            if self.sort == DiffSort::Name {
                self.resort();
            } else {
                let all = self.by_name.len() as u32;
                let made_keys = *next < all;
                while *next < all {
                    let end = all.min(next.saturating_add(analyses::CHUNK as u32));
                    self.sort_keys(*next..end, keys);
                    *next = end;
                    if end < all && !more() {
                        self.building = Some(build);
                        return true;
                    }
                }
                // The sort (a third of the keys' time) in a slice of its own
                // unless this one has room.
                if made_keys && budget.is_some_and(|b| started.elapsed() > b / 3) {
                    self.building = Some(build);
                    return true;
                }
                self.rows = sorted_rows(std::mem::take(keys));
            }
            self.fill_sparks();
            log::info!(
                "compared {} and {} in {:.1} ms ({} slices, {} rows)",
                self.a.name,
                self.b.name,
                self.build_started.elapsed().as_secs_f64() * 1e3,
                self.build_slices,
                self.by_name.len()
            );
            return false;
        }
        let (ta, tb) = (self.a.trace(), self.b.trace());
        let Some((table, by_name)) = build.step(ta, tb, &mut more) else {
            self.building = Some(build);
            return true;
        };
        let with = table.with(ta, tb);
        let noise_pct = with.noise().pct;
        // Paired runs alternated: the shift every name shares is the
        // code's, and no row is judged beyond it (as the report says).
        let paired = self.noise.paired;
        self.drift = with.drift().map(|d| {
            if paired {
                crate::engine::analyses::drift::paired_sentence(d)
            } else {
                crate::engine::analyses::drift::status(d, noise_pct)
            }
        });
        self.table = table;
        self.find_renames(&by_name);
        self.building = Some(DiffBuild::Sort {
            keys: Vec::with_capacity(by_name.len()),
            next: 0,
        });
        self.by_name = by_name;
        // The first sort now if the slice has room (a small comparison is
        // then done in one step), else in the next slice.
        if budget.is_none_or(|b| started.elapsed() < b / 2) {
            return self.step_build(budget.map(|b| b.saturating_sub(started.elapsed())));
        }
        true
    }

    /// While what the shown mode needs is being built (the table; the
    /// tree for the tree and flame modes): how far along, 0 to 1.
    pub fn building(&self) -> Option<f32> {
        match (&self.tree_build, self.mode) {
            (Some((tree, _)), DiffMode::Tree | DiffMode::Flame) => Some(tree.progress()),
            _ => self
                .building
                .as_ref()
                .map(|b| b.progress(self.a.trace(), self.b.trace())),
        }
    }

    /// Whether this view shows `a` and `b`, judged as paired runs or not
    /// (else it must be rebuilt).
    pub fn shows(&self, a: &Arc<Loaded>, b: &Arc<Loaded>, paired: bool) -> bool {
        Arc::ptr_eq(&self.a, a) && Arc::ptr_eq(&self.b, b) && self.noise.paired == paired
    }

    /// The noise model its rows are judged with.
    pub fn noise(&self) -> Noise {
        self.noise
    }

    pub fn mode(&self) -> DiffMode {
        self.mode
    }

    pub fn normalize(&self) -> Normalize {
        self.normalize
    }

    pub fn sort(&self) -> (DiffSort, bool) {
        (self.sort, self.descending)
    }

    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    /// The drift's line shown above the table (`None` until the table is
    /// built, or with too few busy names to estimate it).
    pub fn drift(&self) -> Option<&str> {
        self.drift.as_deref()
    }

    pub fn details(&self) -> Option<&DiffDetails> {
        self.details.as_ref()
    }

    pub fn set_mode(&mut self, mode: DiffMode) {
        self.mode = mode;
        if mode != DiffMode::Table && self.tree.is_none() && self.tree_build.is_none() {
            let (a, b) = (self.a.trace(), self.b.trace());
            let builder =
                DiffTreeBuilder::new(a, b, None, u32::MAX).with_transforms(a, b, None, &self.stack);
            self.tree_build = Some((builder, web_time::Instant::now()));
            self.step_tree(self.sliced.then_some(BUILD_SLICE));
        }
        if mode == DiffMode::Flame {
            self.flame_relayout();
        }
    }

    /// Shows the tree and flame modes through `stack` (both trees merged
    /// again when it changed; the table compares every scope).
    pub fn set_transforms(&mut self, stack: &Stack) {
        if &self.stack == stack {
            return;
        }
        self.stack = stack.clone();
        self.tree = None;
        self.tree_build = None;
        self.flame_focus.clear();
        self.set_mode(self.mode);
    }

    /// Builds the differential tree for at most `budget` (all of it when
    /// `None`), then opens it on the largest regression; whether it is
    /// still being built.
    fn step_tree(&mut self, budget: Option<web_time::Duration>) -> bool {
        let Some((builder, build_started)) = self.tree_build.as_mut() else {
            return false;
        };
        let started = web_time::Instant::now();
        let mut more = || budget.is_none_or(|b| started.elapsed() < b);
        let Some(tree) = builder.step(self.a.trace(), self.b.trace(), &mut more) else {
            return true;
        };
        log::info!(
            "diff tree of {} and {} ({} nodes) in {:.1} ms",
            self.a.name,
            self.b.name,
            tree.len(),
            build_started.elapsed().as_secs_f64() * 1e3
        );
        self.tree_build = None;
        self.expanded = vec![false; tree.len()];
        self.tree = Some(tree);
        self.tree_expand.take().unwrap_or(Self::expand_regression)(self);
        if self.mode == DiffMode::Flame {
            self.flame_relayout();
        }
        false
    }

    /// The flame mode's widths: from A (to see what is gone) or B.
    pub fn set_flame_width_from_a(&mut self, from_a: bool) {
        if from_a != self.flame_from_a {
            self.flame_from_a = from_a;
            self.flame_relayout();
        }
    }

    /// Focuses the flame mode on the node with these names (thread first;
    /// empty: the threads); a path not in the tree focuses as deep as it goes.
    pub fn set_flame_focus(&mut self, path: Vec<String>) {
        self.flame_focus = path;
        self.flame_relayout();
    }

    pub fn flame_focus(&self) -> &[String] {
        &self.flame_focus
    }

    /// Whether the flame mode's widths are A's (else B's).
    pub fn flame_width_from_a(&self) -> bool {
        self.flame_from_a
    }

    /// The names from the thread down to node `n` of the differential tree.
    pub fn flame_path(&self, n: u32) -> Vec<String> {
        let Some(tree) = &self.tree else {
            return Vec::new();
        };
        let mut path = vec![tree.name(n).to_owned()];
        let mut p = tree.parent[n as usize];
        while p != u32::MAX {
            path.push(tree.name(p).to_owned());
            p = tree.parent[p as usize];
        }
        path.reverse();
        path
    }

    /// The side total (raw ns) the flame widths come from.
    fn flame_total(&self, tree: &DiffTree, n: u32) -> i64 {
        if self.flame_from_a {
            tree.a_total_ns(n)
        } else {
            tree.b_total_ns(n)
        }
    }

    fn flame_relayout(&mut self) {
        let Some(tree) = &self.tree else {
            return;
        };
        // Resolve the focus by names, as deep as it goes.
        let mut node: Option<u32> = None;
        let mut kept = 0;
        for name in &self.flame_focus {
            let candidates: &[u32] = match node {
                None => &tree.threads,
                Some(n) => tree.children(n),
            };
            match candidates.iter().find(|&&c| tree.name(c) == name) {
                Some(&c) => {
                    node = Some(c);
                    kept += 1;
                }
                None => break,
            }
        }
        let roots: Vec<u32> = match node {
            Some(n) => vec![n],
            None => tree.threads.clone(),
        };
        let by_total = |v: &[u32]| {
            let mut v = v.to_vec();
            v.sort_by(|&x, &y| {
                self.flame_total(tree, y)
                    .cmp(&self.flame_total(tree, x))
                    .then_with(|| tree.name(x).cmp(tree.name(y)))
            });
            v
        };
        let layout = icicle(
            &by_total(&roots),
            &|n| by_total(tree.children(n)),
            &|n| self.flame_total(tree, n),
            1.0 / self.flame_width.max(50.0) as f64,
            200_000,
            true,
        );
        self.flame = layout;
        self.flame_focus.truncate(kept);
    }

    pub fn set_normalize(&mut self, normalize: Normalize) {
        if normalize != self.normalize {
            self.normalize = normalize;
            self.resort();
            if self.tree.is_some() {
                self.expand_regression();
            }
        }
    }

    pub fn set_sort(&mut self, sort: DiffSort, descending: bool) {
        if (sort, descending) != (self.sort, self.descending) {
            self.sort = sort;
            self.descending = descending;
            self.resort();
        }
    }

    pub fn set_filter(&mut self, filter: &str, substring: bool) {
        if self.filter.0 != filter || self.filter.1 != substring {
            self.filter = (filter.to_owned(), substring);
            self.resort();
        }
    }

    pub fn set_hide_below_ms(&mut self, ms: f64) {
        if ms != self.hide_below_ms {
            self.hide_below_ms = ms.max(0.0);
            self.resort();
        }
    }

    /// (A, B) divisors of totals: 1, or each side's units (frames, or
    /// per second its seconds).
    fn divisors(&self) -> (f64, f64) {
        match self.normalize {
            Normalize::Total => (1.0, 1.0),
            Normalize::PerFrame => self.per_unit(),
        }
    }

    /// Each side's units, as divisors.
    fn per_unit(&self) -> (f64, f64) {
        (self.units.0.max(1) as f64, self.units.1.max(1) as f64)
    }

    /// What "per frame" is per.
    pub fn basis(&self) -> Basis {
        self.basis
    }

    /// Each side's units: its frames, or per second its seconds.
    pub fn units(&self) -> (usize, usize) {
        self.units
    }

    /// `puffinLens.ui()`'s per-unit figures of totals `(a, b)` (ns, as
    /// recorded), whatever the shown normalization.
    fn per_unit_json(&self, a: f64, b: f64) -> [(&'static str, serde_json::Value); 4] {
        let (da, db) = self.per_unit();
        let (a, b) = (a / da, b / db);
        [
            ("a_total_per_frame_ns", a.into()),
            ("b_total_per_frame_ns", b.into()),
            ("delta_total_per_frame_ns", (b - a).into()),
            (
                "delta_pct",
                if a > 0.0 {
                    (100.0 * (b - a) / a).into()
                } else {
                    serde_json::Value::Null
                },
            ),
        ]
    }

    /// The renames at one place among the gone and new names, each of one
    /// row (no data values): kept to show as one row.
    fn find_renames(&mut self, by_name: &[u32]) {
        let joined = self.table.with(self.a.trace(), self.b.trace());
        let (ua, ub) = (
            Units::new(self.a.trace(), joined.basis()),
            Units::new(self.b.trace(), joined.basis()),
        );
        let found = renames_in(
            self.a.trace(),
            self.b.trace(),
            &joined,
            (&ua, &ub),
            &joined.noise(),
        );
        let mut renamed = rustc_hash::FxHashMap::default();
        let mut renamed_from = rustc_hash::FxHashSet::default();
        if !found.is_empty() {
            let pairs = joined.pairs();
            let only_row = |name: &str| {
                let mut rows = by_name
                    .iter()
                    .filter(|&&k| joined.name(pairs[k as usize]) == name);
                match (rows.next(), rows.next()) {
                    (Some(&k), None) => Some(k),
                    _ => None,
                }
            };
            for r in found {
                if let (Some(from), Some(to)) = (only_row(&r.from), only_row(&r.to)) {
                    renamed_from.insert(from);
                    renamed.insert(to, (from, r));
                }
            }
        }
        self.renamed = renamed;
        self.renamed_from = renamed_from;
    }

    /// A row's both sides: a rename's A side is its old name's.
    fn sides_of(&self, joined: &Joined, k: u32) -> (Option<SideStats>, Option<SideStats>) {
        let pairs = joined.pairs();
        let sides = joined.stats(pairs[k as usize]);
        match self.renamed.get(&k) {
            Some(&(from, _)) => (joined.stats(pairs[from as usize]).0, sides.1),
            None => sides,
        }
    }

    /// The row shown for pair `k` (a rename: one row, "old → new", A's
    /// calls of the old name against B's of the new).
    fn shown_row(&self, joined: &Joined, k: u32) -> analyses::CompareRow {
        let pairs = joined.pairs();
        let mut row = joined.row(pairs[k as usize]);
        if let Some((from, rename)) = self.renamed.get(&k) {
            let a = joined.stats(pairs[*from as usize]).0;
            row.name = format!("{} → {}", rename.from, rename.to);
            row.status = analyses::Status::Both;
            row.change = rename.change.clone();
            if let (Some(a), Some(b)) = (&a, &row.b) {
                row.delta_total_ns = b.total_ns - a.total_ns;
                row.delta_per_call_ns = Some(b.per_call_ns - a.per_call_ns);
            }
            row.a = a;
        }
        row
    }

    /// Whether row `r` (a position in `by_name`) is a rename's shown row.
    fn rename_at(&self, r: u32) -> Option<&Rename> {
        self.renamed.get(&self.by_name[r as usize]).map(|(_, x)| x)
    }

    /// Row `r` of the table by name (a position in `by_name`).
    fn pair(&self, r: u32) -> Pair {
        self.joined().pairs()[self.by_name[r as usize] as usize]
    }

    /// The compare rows, read with A's and B's traces.
    fn joined(&self) -> Joined<'_> {
        self.table.with(self.a.trace(), self.b.trace())
    }

    /// A row's (A total, B total) in the shown normalization, ns.
    fn totals(&self, (a, b): &(Option<SideStats>, Option<SideStats>)) -> (f64, f64) {
        let (da, db) = self.divisors();
        (
            a.as_ref().map_or(0.0, |s| s.total_ns as f64 / da),
            b.as_ref().map_or(0.0, |s| s.total_ns as f64 / db),
        )
    }

    fn key(&self, joined: &Joined, p: Pair, sides: &(Option<SideStats>, Option<SideStats>)) -> f64 {
        let (ta, tb) = self.totals(sides);
        let (a, b) = sides;
        let count = |s: &Option<SideStats>| s.as_ref().map_or(0.0, |s| s.count as f64);
        let per_call =
            |s: &Option<SideStats>| s.as_ref().map_or(f64::NEG_INFINITY, |s| s.per_call_ns);
        match self.sort {
            DiffSort::Name => 0.0,
            DiffSort::ACount => count(a),
            DiffSort::BCount => count(b),
            DiffSort::ATotal => ta,
            DiffSort::BTotal => tb,
            DiffSort::APerCall => per_call(a),
            DiffSort::BPerCall => per_call(b),
            DiffSort::Delta => tb - ta,
            DiffSort::AbsDelta => (tb - ta).abs(),
            DiffSort::DeltaPerCall => joined.delta_per_call_ns(p).unwrap_or(f64::NEG_INFINITY),
            DiffSort::DeltaPercent => percent(ta, tb),
        }
    }

    /// Orders the rows by the sort key, ties by name then data: one `u128`
    /// per row (the key mapped to an order-preserving integer, then the
    /// row's rank by name: its position in `by_name`), sorted without a
    /// comparator.
    fn resort(&mut self) {
        if let Some(DiffBuild::Sort { keys, next }) = &mut self.building {
            // The first sort is being made: made again, as now asked.
            keys.clear();
            *next = 0;
            return;
        }
        if self.sort == DiffSort::Name {
            // `by_name` is in name order already.
            let matcher = Matcher::new(&self.filter.0, self.filter.1);
            let hide_ns = self.hide_below_ms * 1e6;
            // No filter and nothing hidden: every row, without reading it.
            let everything = matcher.is_empty() && hide_ns <= 0.0;
            let joined = self.joined();
            let mut rows: Vec<u32> = (0..self.by_name.len() as u32)
                .filter(|&i| {
                    let k = self.by_name[i as usize];
                    if self.renamed_from.contains(&k) {
                        return false;
                    }
                    let p = self.pair(i);
                    everything
                        || self.keeps(&joined, &matcher, hide_ns, p, &self.sides_of(&joined, k))
                })
                .collect();
            if self.descending {
                rows.reverse();
            }
            self.rows = rows;
            return;
        }
        let mut keys = Vec::with_capacity(self.by_name.len());
        self.sort_keys(0..self.by_name.len() as u32, &mut keys);
        self.rows = sorted_rows(keys);
        self.fill_sparks();
    }

    /// The sparklines of the first [`SPARK_ROWS`] changed rows shown that
    /// lack one: each name's cost per unit through A's runs and B's (one
    /// pass over each side's scopes for all of them).
    fn fill_sparks(&mut self) {
        let joined = self.joined();
        let mut want: Vec<String> = Vec::new();
        for &i in &self.rows {
            if want.len() >= SPARK_ROWS {
                break;
            }
            if self.rename_at(i).is_some() {
                continue;
            }
            let p = self.pair(i);
            if matches!(joined.kind(p), Kind::Unchanged | Kind::Inconclusive) {
                continue;
            }
            let name = joined.name(p);
            if !self.sparks.contains_key(name) && !want.iter().any(|w| w == name) {
                want.push(name.to_owned());
            }
        }
        if want.is_empty() {
            return;
        }
        let names: Vec<&str> = want.iter().map(String::as_str).collect();
        let basis = self.basis;
        let side = |t: &Trace| {
            let units = Units::new(t, basis);
            let series = crate::engine::analyses::shape::series_by_name(t, &units, &names);
            // Where each run starts, in units.
            (series, units.run_starts())
        };
        let (sa, ra) = side(self.a.trace());
        let (sb, rb) = side(self.b.trace());
        for ((name, a), b) in want.into_iter().zip(sa.iter()).zip(sb.iter()) {
            self.sparks.insert(
                name,
                Arc::new(Spark {
                    a: pooled(a, SPARK_POINTS),
                    b: pooled(b, SPARK_POINTS),
                    a_units: a.len(),
                    b_units: b.len(),
                    a_runs: ra.clone(),
                    b_runs: rb.clone(),
                }),
            );
        }
    }

    /// A changed row's sparkline, when made.
    pub fn spark(&self, name: &str) -> Option<&Spark> {
        self.sparks.get(name).map(|s| &**s)
    }

    /// Appends the sort keys of the table's pairs `range` (read in the
    /// table's order, which reads both sides' groups nearly in order) that
    /// the filter and the hidden threshold keep: the sort column's value
    /// mapped to an order-preserving integer, then the row's position in
    /// `by_name` (ties stay by name ascending).
    fn sort_keys(&self, range: std::ops::Range<u32>, keys: &mut Vec<u128>) {
        let matcher = Matcher::new(&self.filter.0, self.filter.1);
        let hide_ns = self.hide_below_ms * 1e6;
        let joined = self.joined();
        let everything = matcher.is_empty() && hide_ns <= 0.0;
        let desc = self.descending;
        let pairs = joined.pairs();
        keys.extend(range.filter_map(|k| {
            if self.renamed_from.contains(&k) {
                return None;
            }
            let p = pairs[k as usize];
            let sides = self.sides_of(&joined, k);
            if !everything && !self.keeps(&joined, &matcher, hide_ns, p, &sides) {
                return None;
            }
            // + 0.0: a negative zero ties with zero, as compared before.
            let v = f64_order(self.key(&joined, p, &sides) + 0.0);
            let v = if desc { !v } else { v };
            Some((u128::from(v) << 32) | u128::from(self.rank[k as usize]))
        }));
    }

    /// Whether row `p` is shown: a side's total at the hidden threshold or
    /// above, and its name or data matching the filter.
    fn keeps(
        &self,
        joined: &Joined,
        matcher: &Matcher,
        hide_ns: f64,
        p: Pair,
        sides: &(Option<SideStats>, Option<SideStats>),
    ) -> bool {
        let (ta, tb) = self.totals(sides);
        (ta >= hide_ns || tb >= hide_ns)
            && (matcher.is_empty() || matcher.test(joined.name(p)) || matcher.test(joined.data(p)))
    }

    /// The tree's (A, B, B − A) totals of node `n` in the shown normalization.
    fn node_totals(&self, tree: &DiffTree, n: u32) -> (f64, f64, f64) {
        let (da, db) = self.divisors();
        let a = tree.a_total_ns(n) as f64 / da;
        let b = tree.b_total_ns(n) as f64 / db;
        (a, b, b - a)
    }

    /// A flame cell's fill: grey for a thread, else by its change in the
    /// shown normalization (neutral where unchanged).
    fn node_color(&self, tree: &DiffTree, n: u32) -> Color32 {
        if tree.parent[n as usize] == u32::MAX {
            Color32::from_gray(170)
        } else {
            let (a, b, d) = self.node_totals(tree, n);
            change_color(d, a.max(b))
        }
    }

    /// Children by |Δ| in the shown normalization, then name.
    fn sorted_children(&self, tree: &DiffTree, n: u32) -> Vec<u32> {
        let mut kids = tree.children(n).to_vec();
        kids.sort_by(|&x, &y| {
            let (dx, dy) = (
                self.node_totals(tree, x).2.abs(),
                self.node_totals(tree, y).2.abs(),
            );
            dy.partial_cmp(&dx)
                .unwrap_or(std::cmp::Ordering::Equal)
                .then_with(|| tree.name(x).cmp(tree.name(y)))
        });
        kids
    }

    /// Opens every thread and the path to the largest regression: the
    /// scope whose total grew the most (in the shown normalization; the
    /// deepest of equals, where the change comes from).
    pub fn expand_regression(&mut self) {
        let Some(tree) = self.tree.take() else {
            return;
        };
        self.expanded.fill(false);
        let mut worst: Option<(f64, u32, u32)> = None;
        for n in 0..tree.len() as u32 {
            if tree.parent[n as usize] == u32::MAX {
                self.expanded[n as usize] = true;
                continue;
            }
            let d = self.node_totals(&tree, n).2;
            let depth = tree.depth[n as usize];
            if d > 0.0 && worst.is_none_or(|(wd, wdepth, _)| (d, depth) > (wd, wdepth)) {
                worst = Some((d, depth, n));
            }
        }
        if let Some((_, _, n)) = worst {
            let mut p = tree.parent[n as usize];
            while p != u32::MAX {
                self.expanded[p as usize] = true;
                p = tree.parent[p as usize];
            }
        }
        self.tree = Some(tree);
        self.rebuild_tree_rows();
    }

    /// Expands every node (`all`) or the threads only.
    pub fn expand_all(&mut self, all: bool) {
        if let Some(tree) = &self.tree {
            for n in 0..tree.len() {
                self.expanded[n] = all || tree.parent[n] == u32::MAX;
            }
            self.rebuild_tree_rows();
        }
    }

    fn rebuild_tree_rows(&mut self) {
        let Some(tree) = &self.tree else {
            return;
        };
        let mut rows = Vec::new();
        let mut stack: Vec<u32> = tree.threads.iter().rev().copied().collect();
        while let Some(n) = stack.pop() {
            rows.push(n);
            if self.expanded[n as usize] {
                stack.extend(self.sorted_children(tree, n).into_iter().rev());
            }
        }
        self.t_rows = rows;
    }

    fn select_row(&mut self, r: u32) {
        self.selected = Some(r);
        if let Some(rename) = self.rename_at(r) {
            let (from, to) = (rename.from.clone(), rename.to.clone());
            self.details_of_names(&from, &to);
            return;
        }
        let name = self.joined().name(self.pair(r)).to_owned();
        self.details_of(name);
    }

    /// Shows the details of the scope `name` on both sides (a finding's
    /// link; the location hash's `scope`).
    pub fn select_name(&mut self, name: &str) {
        self.selected = None;
        self.details_of(name.to_owned());
    }

    fn details_of(&mut self, name: String) {
        self.details_of_names(&name, &name);
    }

    /// The details of A's calls of `a_name` against B's of `b_name` (one
    /// name, or a rename's old and new).
    fn details_of_names(&mut self, a_name: &str, b_name: &str) {
        let name = if a_name == b_name {
            a_name.to_owned()
        } else {
            format!("{a_name} → {b_name}")
        };
        let a = analyses::durations_named(self.a.trace(), a_name);
        let b = analyses::durations_named(self.b.trace(), b_name);
        let lo = a
            .first()
            .into_iter()
            .chain(b.first())
            .copied()
            .min()
            .unwrap_or(0);
        let hi = a
            .last()
            .into_iter()
            .chain(b.last())
            .copied()
            .max()
            .unwrap_or(0);
        // Its call sites, judged (a pass over each side's scopes, once per
        // click).
        let sites = (a_name == b_name)
            .then(|| {
                let joined = self.joined();
                let (ua, ub) = (
                    Units::new(self.a.trace(), joined.basis()),
                    Units::new(self.b.trace(), joined.basis()),
                );
                crate::engine::analyses::place::place(
                    self.a.trace(),
                    self.b.trace(),
                    &[a_name],
                    (&ua, &ub),
                    &joined.noise(),
                )
                .pop()
                .flatten()
            })
            .flatten();
        self.details = Some(DiffDetails {
            a_bins: analyses::histogram(&a, lo, hi),
            b_bins: analyses::histogram(&b, lo, hi),
            name,
            a,
            b,
            sites,
        });
    }

    /// `puffinLens.show("diff", options)`: applies `{mode, sort, descending,
    /// filter, hide_below, normalize, expand: "all"|"regression"|"threads"}`
    /// (`expand` after `mode` and `normalize`); returns the scope filter to use
    /// (`filter` unless the options set it).
    pub fn show(&mut self, options: &serde_json::Value, filter: String) -> Result<String, String> {
        const KNOWN: [&str; 9] = [
            "mode",
            "sort",
            "descending",
            "filter",
            "hide_below",
            "normalize",
            "expand",
            "width",
            "focus",
        ];
        let opts = match options {
            serde_json::Value::Null => serde_json::Map::new(),
            serde_json::Value::Object(o) => o.clone(),
            other => {
                return Err(format!(
                    "show(\"diff\", options): options must be an object, not {other}"
                ));
            }
        };
        if let Some(k) = opts.keys().find(|k| !KNOWN.contains(&k.as_str())) {
            return Err(format!(
                "show(\"diff\"): unknown option {k:?} (known: {})",
                KNOWN.join(", ")
            ));
        }
        let bad = |k: &str, v: &serde_json::Value| format!("show: bad {k}: {v}");
        if let Some(v) = opts.get("mode") {
            self.set_mode(
                v.as_str()
                    .and_then(DiffMode::parse)
                    .ok_or_else(|| bad("mode", v))?,
            );
        }
        if let Some(v) = opts.get("normalize") {
            self.set_normalize(
                v.as_str()
                    .and_then(Normalize::parse)
                    .ok_or_else(|| bad("normalize", v))?,
            );
        }
        if let Some(v) = opts.get("expand") {
            let expand: fn(&mut DiffView) = match v.as_str() {
                Some("all") => |d| d.expand_all(true),
                Some("regression") => Self::expand_regression,
                Some("threads") => |d| d.expand_all(false),
                _ => return Err(bad("expand", v)),
            };
            // Once the tree is built, if it is being built.
            match self.tree_build {
                Some(_) => self.tree_expand = Some(expand),
                None => expand(self),
            }
        }
        if let Some(v) = opts.get("hide_below") {
            self.set_hide_below_ms(v.as_f64().ok_or_else(|| bad("hide_below", v))?);
        }
        if let Some(v) = opts.get("width") {
            match v.as_str() {
                Some("a") => self.set_flame_width_from_a(true),
                Some("b") => self.set_flame_width_from_a(false),
                _ => return Err(bad("width", v)),
            }
        }
        if let Some(v) = opts.get("focus") {
            self.set_flame_focus(string_list_option(v).ok_or_else(|| bad("focus", v))?);
        }
        if let Some((sort, desc)) = sort_option(&opts, DiffSort::parse, |c| c == DiffSort::Name)? {
            self.set_sort(sort, desc);
        }
        match opts.get("filter") {
            Some(v) => Ok(v.as_str().ok_or_else(|| bad("filter", v))?.to_owned()),
            None => Ok(filter),
        }
    }

    /// Feeds what `ui()` reads to `h` (cheap: indices, no JSON), so the app
    /// republishes `ui()` only when it changed.
    pub fn fingerprint(&self, h: &mut impl std::hash::Hasher) {
        use std::hash::Hash as _;
        (
            self.mode.as_str(),
            self.normalize.as_str(),
            self.sort.as_str(),
        )
            .hash(h);
        (self.descending, self.rows.len(), self.t_rows.len()).hash(h);
        self.rows.iter().take(500).for_each(|r| r.hash(h));
        self.t_rows.iter().take(500).for_each(|r| r.hash(h));
        self.warnings.hash(h);
        (self.flame_from_a, &self.flame_focus, self.flame.rects.len()).hash(h);
    }

    /// The location hash's part for this view.
    pub fn hash(&self) -> String {
        let mut pairs = vec![
            ("view", "diff".to_owned()),
            ("mode", self.mode.as_str().to_owned()),
            ("sort", self.sort.as_str().to_owned()),
            ("desc", u8::from(self.descending).to_string()),
            ("normalize", self.normalize.as_str().to_owned()),
        ];
        if self.mode == DiffMode::Flame {
            let width = if self.flame_from_a { "a" } else { "b" };
            pairs.push(("width", width.to_owned()));
            if !self.flame_focus.is_empty() {
                pairs.push(("focus", self.flame_focus.join("\u{1f}")));
            }
        }
        if let Some(d) = &self.details {
            pairs.push(("scope", d.name.clone()));
        }
        encode_hash(&pairs)
    }

    /// Goes where a hash written by [`Self::hash`] says.
    pub fn apply_hash(&mut self, hash: &str) {
        let pairs = decode_hash(hash);
        let get = |k: &str| hash_value(&pairs, k);
        if let Some(mode) = get("mode").and_then(DiffMode::parse) {
            self.set_mode(mode);
        }
        if let Some(n) = get("normalize").and_then(Normalize::parse) {
            self.set_normalize(n);
        }
        if let Some(sort) = get("sort").and_then(DiffSort::parse) {
            let desc = get("desc").map_or(sort != DiffSort::Name, |d| d == "1");
            self.set_sort(sort, desc);
        }
        if self.mode == DiffMode::Flame {
            self.set_flame_width_from_a(get("width") == Some("a"));
            let focus = get("focus")
                .map(|f| f.split('\u{1f}').map(str::to_owned).collect())
                .unwrap_or_default();
            self.set_flame_focus(focus);
        }
        match get("scope") {
            Some(name) => self.select_name(name),
            None => self.details = None,
        }
    }

    /// `puffinLens.ui()`'s rows: the table's compare rows, or the tree's
    /// expanded rows, in display order (totals in the shown normalization).
    pub fn rows_json(&self, limit: usize) -> Vec<serde_json::Value> {
        use serde_json::json;
        match self.mode {
            DiffMode::Table => self
                .rows
                .iter()
                .take(limit)
                .map(|&i| {
                    let p = self.pair(i);
                    let k = self.by_name[i as usize];
                    let joined = self.joined();
                    let sides = self.sides_of(&joined, k);
                    let total =
                        |s: &Option<SideStats>| s.as_ref().map_or(0.0, |s| s.total_ns as f64);
                    let row = self.shown_row(&joined, k);
                    let rename = self.rename_at(i);
                    let wrapper = rename.is_none() && joined.is_wrapper(p, &row.change);
                    let mut v = serde_json::to_value(row).unwrap_or_default();
                    for (k, x) in self.per_unit_json(total(&sides.0), total(&sides.1)) {
                        v[k] = x;
                    }
                    // The badge the row wears: its change is its children's.
                    v["wrapper"] = wrapper.into();
                    if let Some(r) = rename {
                        v["renamed"] = json!({"from": r.from, "to": r.to});
                    }
                    // Its sparkline's points a side, when it has one.
                    if let Some(s) = self
                        .sparks
                        .get(v["name"].as_str().unwrap_or_default())
                        .filter(|_| rename.is_none())
                    {
                        v["spark_points"] = json!([s.a.len(), s.b.len()]);
                    }
                    v
                })
                .collect(),
            DiffMode::Tree => {
                let Some(tree) = &self.tree else {
                    return Vec::new();
                };
                self.t_rows
                    .iter()
                    .take(limit)
                    .map(|&n| {
                        if tree.parent[n as usize] == u32::MAX {
                            json!({"depth": 0, "thread": tree.name(n)})
                        } else {
                            let (a, b, d) = self.node_totals(tree, n);
                            let mut v = json!({"depth": tree.depth[n as usize], "name": tree.name(n),
                                "a_total_ns": a, "b_total_ns": b, "delta_total_ns": d});
                            let (ra, rb) = (tree.a_total_ns(n) as f64, tree.b_total_ns(n) as f64);
                            for (k, x) in self.per_unit_json(ra, rb) {
                                v[k] = x;
                            }
                            v
                        }
                    })
                    .collect()
            }
            // The laid-out nodes (what is painted), totals in the shown
            // normalization.
            DiffMode::Flame => {
                let Some(tree) = &self.tree else {
                    return Vec::new();
                };
                self.flame
                    .rects
                    .iter()
                    .take(limit.max(20_000))
                    .map(|r| {
                        let (a, b, d) = self.node_totals(tree, r.node);
                        let mut v = json!({"depth": r.depth, "path": self.flame_path(r.node), "x0": r.x0,
                            "x1": r.x1, "a_total_ns": a, "b_total_ns": b, "delta_total_ns": d,
                            "new": tree.a_node[r.node as usize].is_none(),
                            "gone": tree.b_node[r.node as usize].is_none(),
                            "color": color_hex(self.node_color(tree, r.node))});
                        let (ra, rb) =
                            (tree.a_total_ns(r.node) as f64, tree.b_total_ns(r.node) as f64);
                        for (k, x) in self.per_unit_json(ra, rb) {
                            v[k] = x;
                        }
                        v
                    })
                    .collect()
            }
        }
    }

    pub fn ui(&mut self, ui: &mut egui::Ui) {
        // What the shown mode needs a slice per frame (the table, or the
        // tree), then the rest; then drawn.
        let tree_first = self.mode != DiffMode::Table && self.tree_build.is_some();
        let more = if tree_first {
            self.step_tree(Some(BUILD_SLICE))
        } else {
            self.step_build(Some(BUILD_SLICE))
        };
        if more {
            ui.ctx().request_repaint();
        }
        self.banner(ui);
        ui.horizontal(|ui| {
            let mut mode = self.mode;
            ui.selectable_value(&mut mode, DiffMode::Table, "Table")
                .on_hover_text("What changed per (name, data)");
            ui.selectable_value(&mut mode, DiffMode::Tree, "Tree")
                .on_hover_text("Where in the call tree it changed");
            ui.selectable_value(&mut mode, DiffMode::Flame, "Flame")
                .on_hover_text("The differential flame graph: widths from B (or A), red slower, green faster");
            if mode != self.mode {
                self.set_mode(mode);
            }
            ui.separator();
            let mut normalize = self.normalize;
            ui.label("totals");
            ui.selectable_value(&mut normalize, Normalize::Total, "as recorded");
            let (per, tip) = match self.basis {
                Basis::Frame => (
                    "per frame",
                    "Each side divided by its number of frames: captures of different lengths compare fairly",
                ),
                Basis::Second => (
                    "per second",
                    "Each side divided by its seconds (a side is one frame, or frames far longer than their scopes): captures of different lengths compare fairly",
                ),
            };
            ui.selectable_value(&mut normalize, Normalize::PerFrame, per)
                .on_hover_text(tip);
            self.set_normalize(normalize);
            ui.separator();
            match self.mode {
                DiffMode::Table => {
                    let mut hide = self.hide_below_ms;
                    ui.label("hide below");
                    ui.add(
                        egui::DragValue::new(&mut hide)
                            .range(0.0..=1e6)
                            .speed(0.05)
                            .suffix(" ms"),
                    )
                    .on_hover_text("Hide rows under this total on both sides");
                    self.set_hide_below_ms(hide);
                }
                DiffMode::Flame => {
                    let mut from_a = self.flame_from_a;
                    ui.label("widths");
                    ui.selectable_value(&mut from_a, false, "B")
                        .on_hover_text("As B ran: what is new shows");
                    ui.selectable_value(&mut from_a, true, "A")
                        .on_hover_text("As A ran: what is gone shows");
                    self.set_flame_width_from_a(from_a);
                }
                DiffMode::Tree => {
                    if ui.button("Expand largest regression").clicked() {
                        self.expand_regression();
                    }
                    if ui.button("Expand all").clicked() {
                        self.expand_all(true);
                    }
                    if ui.button("Collapse").clicked() {
                        self.expand_all(false);
                    }
                }
            }
        });
        if self.details.is_some() {
            self.details_ui(ui);
        }
        if let (Some((build, _)), DiffMode::Tree | DiffMode::Flame) = (&self.tree_build, self.mode)
        {
            let done = build.progress();
            ui.horizontal(|ui| {
                ui.spinner();
                ui.label(format!(
                    "Joining the call trees of {} and {}: {:.0}%",
                    self.a.name,
                    self.b.name,
                    100.0 * done
                ));
            });
            return;
        }
        match self.mode {
            DiffMode::Table => self.table_ui(ui),
            DiffMode::Tree => self.tree_ui(ui),
            DiffMode::Flame => self.flame_ui(ui),
        }
    }

    fn flame_ui(&mut self, ui: &mut egui::Ui) {
        const ROW: f32 = 18.0;
        // The breadcrumb.
        ui.horizontal_wrapped(|ui| {
            if let Some(k) = breadcrumb(ui, &self.flame_focus) {
                let path = self.flame_focus[..k].to_vec();
                self.set_flame_focus(path);
            }
            ui.label(
                RichText::new(format!(
                    "widths: {} · red slower, green faster in B (stronger: larger change) · \
                     outlined: new in B (thick, +) or gone (thin, −) · click to focus",
                    if self.flame_from_a { "A" } else { "B" }
                ))
                .weak(),
            );
        });
        let width = ui.available_width().max(50.0);
        if (width - self.flame_width).abs() >= 0.5 {
            self.flame_width = width;
            self.flame_relayout();
        }
        let Some(tree) = &self.tree else {
            return;
        };
        let rows = self.flame.rows.max(1);
        let mut clicked = None;
        let mut hovered = None;
        egui::ScrollArea::vertical()
            .id_salt("diff_flame")
            .auto_shrink([false, false])
            .show_viewport(ui, |ui, viewport| {
                let (rect, response) =
                    ui.allocate_exact_size(egui::vec2(width, rows as f32 * ROW), Sense::click());
                let visible = egui::Rect::from_min_size(
                    rect.min + viewport.min.to_vec2(),
                    egui::vec2(width, viewport.height()),
                );
                let painter = ui.painter_at(visible);
                let first = ((visible.top() - rect.top()) / ROW).floor().max(0.0) as u32;
                let last = ((visible.bottom() - rect.top()) / ROW).ceil().max(0.0) as u32;
                for depth in first..=last.min(self.flame.rows) {
                    let y = rect.top() + depth as f32 * ROW;
                    for r in self.flame.row(depth) {
                        let (x0, x1) = (
                            rect.left() + (r.x0 * width as f64) as f32,
                            rect.left() + (r.x1 * width as f64) as f32,
                        );
                        let cell = egui::Rect::from_min_max(
                            egui::pos2(x0, y),
                            egui::pos2(x1, y + ROW - 1.0),
                        );
                        let n = r.node as usize;
                        let is_thread = tree.parent[n] == u32::MAX;
                        let fill = self.node_color(tree, r.node);
                        painter.rect_filled(cell, 1.0, fill);
                        let (new, gone) = (tree.a_node[n].is_none(), tree.b_node[n].is_none());
                        if new || gone {
                            painter.rect_stroke(
                                cell.shrink(0.5),
                                1.0,
                                egui::Stroke::new(if new { 2.0 } else { 1.0 }, Color32::BLACK),
                                egui::StrokeKind::Inside,
                            );
                        }
                        if self.flame_hover == Some(r.node) {
                            painter.rect_stroke(
                                cell,
                                1.0,
                                egui::Stroke::new(1.5, Color32::WHITE),
                                egui::StrokeKind::Inside,
                            );
                        }
                        let name = if is_thread {
                            thread_label(tree.name(n as u32))
                        } else {
                            tree.name(n as u32)
                        };
                        let label = match (new, gone) {
                            (true, _) => format!("+ {name}"),
                            (_, true) => format!("− {name}"),
                            _ => name.to_owned(),
                        };
                        cell_label(&painter, cell, &label, Color32::from_gray(15));
                    }
                }
                let hit = response.hover_pos().and_then(|p| {
                    let depth = ((p.y - rect.top()) / ROW).floor() as u32;
                    let x = ((p.x - rect.left()) / width) as f64;
                    self.flame.at(depth, x).map(|r| r.node)
                });
                hovered = hit;
                if let Some(n) = hit {
                    let (a, b, d) = self.node_totals(tree, n);
                    response.clone().on_hover_ui_at_pointer(|ui| {
                        ui.strong(thread_label(tree.name(n)));
                        ui.label(format!(
                            "A {} ms · B {} ms · Δ {:+.3} ms ({})",
                            ms_f(a),
                            ms_f(b),
                            d / 1e6,
                            percent_text(a, b)
                        ));
                        ui.label(RichText::new("click: focus").weak());
                    });
                }
                if response.clicked() {
                    clicked = hit;
                }
            });
        self.flame_hover = hovered;
        if let Some(n) = clicked {
            let path = self.flame_path(n);
            self.set_flame_focus(path);
        }
    }

    fn banner(&self, ui: &mut egui::Ui) {
        let (ta, tb) = (self.a.trace(), self.b.trace());
        let span = |t: &crate::engine::Trace| -> i64 {
            t.frames.ids().map(|f| t.frames.duration_ns(f)).sum()
        };
        ui.label(
            RichText::new(format!(
                "A: {} ({} frames, {} ms)  vs  B: {} ({} frames, {} ms)",
                self.a.name,
                ta.frames.len(),
                crate::units::ms(span(ta)),
                self.b.name,
                tb.frames.len(),
                crate::units::ms(span(tb)),
            ))
            .strong(),
        );
        for w in &self.warnings {
            ui.label(RichText::new(format!("Warning: {w}")).color(ui.visuals().warn_fg_color));
        }
        if let Some(d) = &self.drift {
            ui.label(RichText::new(d).strong());
        }
    }

    fn details_ui(&mut self, ui: &mut egui::Ui) {
        let Some(d) = &self.details else {
            return;
        };
        let mut close = false;
        egui::Frame::group(ui.style()).show(ui, |ui| {
            ui.horizontal(|ui| {
                ui.strong(&d.name);
                let stat = |v: &[i64]| {
                    if v.is_empty() {
                        "none".to_owned()
                    } else {
                        let total: i64 = v.iter().sum();
                        format!(
                            "{} calls, {} ms, p95 {} ms, max {} ms",
                            v.len(),
                            crate::units::ms(total),
                            crate::units::ms(v[((95 * v.len()).div_ceil(100)).max(1) - 1]),
                            crate::units::ms(v[v.len() - 1])
                        )
                    }
                };
                ui.label(RichText::new(format!("A: {}", stat(&d.a))).color(A_COLOR));
                ui.label(RichText::new(format!("B: {}", stat(&d.b))).color(B_COLOR));
                close = ui.small_button("close").clicked();
            });
            let bars = |bins: &[HistogramBin], shift: f64| -> Vec<Bar> {
                bins.iter()
                    .map(|b| {
                        let width = ((b.hi_ns - b.lo_ns) as f64 / 1e6).max(1e-6);
                        let mid = (b.lo_ns + b.hi_ns) as f64 / 2e6 + shift * width / 4.0;
                        Bar::new(mid, b.count as f64).width(width * 0.45)
                    })
                    .collect()
            };
            let (a, b) = (bars(&d.a_bins, -1.0), bars(&d.b_bins, 1.0));
            Plot::new(("diff_histogram", &d.name))
                .height(110.0)
                .allow_zoom(false)
                .allow_drag(false)
                .allow_scroll(false)
                .include_y(0.0)
                .show(ui, |p| {
                    p.bar_chart(BarChart::new("A", a).color(A_COLOR));
                    p.bar_chart(BarChart::new("B", b).color(B_COLOR));
                });
            if let Some(placed) = d.sites.as_ref().filter(|p| p.sites.len() > 1) {
                let unit = self.basis.unit();
                egui::CollapsingHeader::new(format!(
                    "by call site ({}){}",
                    placed.sites.len(),
                    match (placed.at, placed.everywhere) {
                        (Some(k), _) => format!(
                            ": changed only where {} calls it",
                            if placed.path.is_empty() {
                                placed.sites[k].caller.clone()
                            } else {
                                placed.path.join(" > ")
                            }
                        ),
                        (None, true) => ": changed at every call site".to_owned(),
                        _ => String::new(),
                    }
                ))
                .id_salt(("diff_sites", &d.name))
                .default_open(placed.at.is_some())
                .show(ui, |ui| {
                    egui::Grid::new(("diff_sites_grid", &d.name))
                        .striped(true)
                        .show(ui, |ui| {
                            for h in [
                                "caller".to_owned(),
                                "thread".to_owned(),
                                format!("calls/{unit}"),
                                "ms per call".to_owned(),
                                "judgement".to_owned(),
                            ] {
                                ui.strong(h);
                            }
                            ui.end_row();
                            for (k, s) in placed.sites.iter().enumerate() {
                                let caller = if s.caller.is_empty() {
                                    "(top level)"
                                } else {
                                    s.caller.as_str()
                                };
                                let text = RichText::new(caller);
                                ui.label(if Some(k) == placed.at {
                                    text.strong()
                                } else {
                                    text
                                });
                                ui.label(thread_label(&s.thread));
                                ui.label(format!(
                                    "{:.2} → {:.2}",
                                    s.calls_per_unit_a, s.calls_per_unit_b
                                ));
                                ui.label(format!(
                                    "{} → {}",
                                    ms_f(s.per_call_a_ns),
                                    ms_f(s.per_call_b_ns)
                                ));
                                ui.label(s.change.kind.words());
                                ui.end_row();
                            }
                        });
                });
            }
        });
        if close {
            self.details = None;
            self.selected = None;
        }
    }

    fn table_ui(&mut self, ui: &mut egui::Ui) {
        // What the judgement's "per frame" is per (a second for a recording
        // that is one frame).
        let unit = {
            let (ta, tb) = (self.a.trace(), self.b.trace());
            self.table.with(ta, tb).basis().unit()
        };
        if let Some(done) = self.building() {
            ui.horizontal(|ui| {
                ui.spinner();
                ui.label(format!(
                    "Comparing {} and {}: {:.0}%",
                    self.a.name,
                    self.b.name,
                    100.0 * done
                ));
            });
            return;
        }
        let per = match self.normalize {
            Normalize::Total => "ms",
            Normalize::PerFrame => "ms/frame",
        };
        let headers: Vec<(String, Option<DiffSort>)> = vec![
            ("name".into(), Some(DiffSort::Name)),
            ("data".into(), None),
            ("A n".into(), Some(DiffSort::ACount)),
            (format!("A {per}"), Some(DiffSort::ATotal)),
            ("A ms/call".into(), Some(DiffSort::APerCall)),
            ("B n".into(), Some(DiffSort::BCount)),
            (format!("B {per}"), Some(DiffSort::BTotal)),
            ("B ms/call".into(), Some(DiffSort::BPerCall)),
            (format!("Δ {per}"), Some(DiffSort::Delta)),
            ("Δ ms/call".into(), Some(DiffSort::DeltaPerCall)),
            ("Δ%".into(), Some(DiffSort::DeltaPercent)),
            ("A | B".into(), None),
            ("interval".into(), None),
            ("".into(), None),
        ];
        ui.horizontal(|ui| {
            ui.label(
                RichText::new(format!(
                    "{} of {} rows · click a header to sort (again to reverse), a row for both sides' calls · Δ:",
                    self.rows.len(),
                    self.by_name.len()
                ))
                .weak(),
            );
            let by_size = self.sort == DiffSort::AbsDelta;
            if ui
                .selectable_label(self.sort == DiffSort::Delta && self.descending, "slower first")
                .on_hover_text("B − A, signed: what got slower first, what got faster last")
                .clicked()
            {
                self.set_sort(DiffSort::Delta, true);
            }
            if ui
                .selectable_label(by_size && self.descending, "largest |Δ|")
                .on_hover_text(
                    "|B − A|: the largest changes first, slower or faster \
                     (as `puffin-lens compare --sort abs-delta`)",
                )
                .clicked()
            {
                self.set_sort(DiffSort::AbsDelta, true);
            }
        });
        // Narrow enough at 1280 px for the interval and the judgement.
        let mut builder = rows_table(ui, "diff_table", 180.0).column(
            Column::initial(100.0)
                .at_least(40.0)
                .clip(true)
                .resizable(true),
        );
        for _ in 0..9 {
            builder = builder.column(Column::exact(68.0));
        }
        builder = builder.column(Column::exact(SPARK_WIDTH));
        builder = builder.column(Column::exact(INTERVAL_WIDTH));
        builder = builder.column(Column::remainder().at_least(80.0));
        let mut clicked_header = None;
        let mut clicked_row = None;
        let (da, db) = self.divisors();
        let joined = self.table.with(self.a.trace(), self.b.trace());
        builder
            .header(ROW_HEIGHT + 2.0, |mut h| {
                for (title, col) in &headers {
                    h.col(|ui| match col {
                        Some(c) => {
                            if ui
                                .add(egui::Button::new(RichText::new(title).strong()).frame(false))
                                .clicked()
                            {
                                clicked_header = Some(*c);
                            }
                            let shown = *c == self.sort
                                || (*c == DiffSort::Delta && self.sort == DiffSort::AbsDelta);
                            if shown {
                                let (rect, _) = ui.allocate_exact_size(
                                    egui::vec2(10.0, ROW_HEIGHT),
                                    Sense::hover(),
                                );
                                let dir = if self.descending {
                                    Pointing::Down
                                } else {
                                    Pointing::Up
                                };
                                triangle(ui, rect.center(), dir, ui.visuals().strong_text_color());
                            }
                        }
                        None => {
                            ui.strong(title);
                        }
                    });
                }
            })
            .body(|body| {
                body.rows(ROW_HEIGHT, self.rows.len(), |mut row| {
                    let i = self.rows[row.index()];
                    // Made for the rows in view only.
                    let r = &self.shown_row(&joined, self.by_name[i as usize]);
                    row.set_selected(self.selected == Some(i));
                    let cell = |row: &mut egui_extras::TableRow<'_, '_>, text: RichText| {
                        row.col(|ui| {
                            ui.add(egui::Label::new(text).selectable(false).truncate());
                        });
                    };
                    let side = |s: &Option<analyses::SideStats>, div: f64| match s {
                        Some(s) => [
                            s.count.to_string(),
                            ms_f(s.total_ns as f64 / div),
                            ms_f(s.per_call_ns),
                        ],
                        None => ["-".into(), "-".into(), "-".into()],
                    };
                    let (ta, tb) = (
                        r.a.as_ref().map_or(0.0, |s| s.total_ns as f64 / da),
                        r.b.as_ref().map_or(0.0, |s| s.total_ns as f64 / db),
                    );
                    let delta = tb - ta;
                    let color = change_color(delta, ta.max(tb));
                    cell(&mut row, RichText::new(&r.name));
                    cell(&mut row, RichText::new(&r.data));
                    for s in side(&r.a, da).into_iter().chain(side(&r.b, db)) {
                        cell(&mut row, RichText::new(s));
                    }
                    cell(
                        &mut row,
                        RichText::new(format!("{:+.3}", delta / 1e6)).color(color),
                    );
                    cell(
                        &mut row,
                        RichText::new(
                            r.delta_per_call_ns
                                .map_or("-".into(), |d| format!("{:+.3}", d / 1e6)),
                        ),
                    );
                    cell(&mut row, RichText::new(percent_text(ta, tb)).color(color));
                    let spark = self
                        .rename_at(i)
                        .is_none()
                        .then(|| self.sparks.get(&r.name))
                        .flatten();
                    match spark {
                        Some(s) => {
                            row.col(|ui| {
                                spark_ui(ui, s, if delta > 0.0 { SLOWER } else { FASTER })
                                    .on_hover_text(format!(
                                        "{} per {unit} through A's {} and B's {}: A grey, B after \
                                         the line; a tick where a run starts",
                                        r.name, s.a_units, s.b_units
                                    ));
                            });
                        }
                        None => {
                            row.col(|_| {});
                        }
                    }
                    row.col(|ui| error_bar(ui, &r.change))
                        .1
                        .on_hover_text(interval_tip(&r.change, unit));
                    let wrapper =
                        self.rename_at(i).is_none() && joined.is_wrapper(self.pair(i), &r.change);
                    row.col(|ui| {
                        // The noise model's judgement (as `compare`'s).
                        let kind = r.change.kind;
                        if wrapper {
                            // Its children's change, not its own: outlined,
                            // apart from the causes.
                            let stroke = if r.change.delta_per_frame_ns > 0.0 {
                                SLOWER
                            } else {
                                FASTER
                            };
                            outlined_badge(ui, "wraps a change", stroke);
                            return;
                        }
                        let fill = match kind {
                            Kind::Unchanged => None,
                            // Neither a change nor unchanged: grey.
                            Kind::Inconclusive => Some(Color32::from_gray(90)),
                            Kind::Spike => Some(Color32::from_rgb(120, 70, 10)),
                            Kind::Gone => Some(FASTER),
                            Kind::New => Some(SLOWER),
                            k if r.change.delta_per_frame_ns > 0.0 || k.is_regression() => {
                                Some(SLOWER)
                            }
                            _ => Some(FASTER),
                        };
                        if let Some(fill) = fill {
                            badge(ui, kind.words(), fill);
                        }
                    })
                    .1
                    .on_hover_text(if wrapper {
                        format!(
                            "{}\n\na wrapper: its own time did not change (less than half of \
                             its change); the change is in the scopes it calls",
                            judgement_tip(&r.change, unit)
                        )
                    } else {
                        judgement_tip(&r.change, unit)
                    });
                    if row.response().clicked() {
                        clicked_row = Some(i);
                    }
                });
            });
        if let Some(mut c) = clicked_header {
            // The Δ column sorts by |Δ| while that order is chosen.
            if c == DiffSort::Delta && self.sort == DiffSort::AbsDelta {
                c = DiffSort::AbsDelta;
            }
            if c == self.sort {
                self.set_sort(c, !self.descending);
            } else {
                self.set_sort(c, c != DiffSort::Name);
            }
        }
        if let Some(r) = clicked_row {
            self.select_row(r);
        }
    }

    fn tree_ui(&mut self, ui: &mut egui::Ui) {
        let Some(tree) = self.tree.take() else {
            return;
        };
        let per = match self.normalize {
            Normalize::Total => "ms",
            Normalize::PerFrame => "ms/frame",
        };
        let mut toggle = None;
        rows_table(ui, "diff_tree", 360.0)
            .column(Column::exact(90.0))
            .column(Column::exact(90.0))
            .column(Column::exact(90.0))
            .column(Column::remainder().at_least(70.0))
            .header(ROW_HEIGHT, |mut h| {
                for title in [
                    "scope".to_owned(),
                    format!("A {per}"),
                    format!("B {per}"),
                    format!("Δ {per}"),
                    "Δ%".to_owned(),
                ] {
                    h.col(|ui| {
                        ui.strong(title);
                    });
                }
            })
            .body(|body| {
                body.rows(ROW_HEIGHT, self.t_rows.len(), |mut row| {
                    let n = self.t_rows[row.index()];
                    let i = n as usize;
                    let (a, b, d) = self.node_totals(&tree, n);
                    let color = change_color(d, a.max(b));
                    row.col(|ui| {
                        ui.add_space(tree.depth[i] as f32 * 14.0);
                        let (rect, resp) =
                            ui.allocate_exact_size(egui::vec2(14.0, ROW_HEIGHT), Sense::click());
                        if !tree.children(n).is_empty() {
                            let dir = if self.expanded[i] {
                                Pointing::Down
                            } else {
                                Pointing::Right
                            };
                            triangle(ui, rect.center(), dir, ui.visuals().text_color());
                            if resp.clicked() {
                                toggle = Some(n);
                            }
                        }
                        let text = if tree.parent[i] == u32::MAX {
                            RichText::new(format!("thread {}", thread_label(tree.name(i as u32))))
                                .strong()
                        } else {
                            RichText::new(tree.name(i as u32))
                        };
                        ui.add(egui::Label::new(text).selectable(false).truncate());
                    });
                    let side = |present: bool, v: f64| if present { ms_f(v) } else { "-".into() };
                    for text in [
                        side(tree.a_node[i].is_some(), a),
                        side(tree.b_node[i].is_some(), b),
                    ] {
                        row.col(|ui| {
                            ui.add(egui::Label::new(text).selectable(false));
                        });
                    }
                    row.col(|ui| {
                        ui.add(
                            egui::Label::new(
                                RichText::new(format!("{:+.3}", d / 1e6)).color(color),
                            )
                            .selectable(false),
                        );
                    });
                    row.col(|ui| {
                        let text = match (tree.a_node[i].is_some(), tree.b_node[i].is_some()) {
                            (false, true) => "new".to_owned(),
                            (true, false) => "gone".to_owned(),
                            _ => percent_text(a, b),
                        };
                        ui.add(
                            egui::Label::new(RichText::new(text).color(color)).selectable(false),
                        );
                    });
                    if row.response().clicked() && toggle.is_none() {
                        toggle = Some(n);
                    }
                });
            });
        self.tree = Some(tree);
        if let Some(n) = toggle {
            self.expanded[n as usize] = !self.expanded[n as usize];
            self.rebuild_tree_rows();
        }
    }
}

/// (B − A) / A in percent; +inf when A is 0 and B is not.
fn percent(a: f64, b: f64) -> f64 {
    if a == 0.0 {
        if b == 0.0 { 0.0 } else { f64::INFINITY }
    } else {
        100.0 * (b - a) / a
    }
}

fn percent_text(a: f64, b: f64) -> String {
    let p = percent(a, b);
    if p.is_infinite() {
        "new".into()
    } else {
        format!("{p:+.1}%")
    }
}

/// `#rrggbb` of `c` (what `puffinLens.ui()` gives a flame cell's fill as).
fn color_hex(c: Color32) -> String {
    format!("#{:02x}{:02x}{:02x}", c.r(), c.g(), c.b())
}

/// The interval column's width.
const INTERVAL_WIDTH: f32 = 110.0;
/// The sparkline column's width.
const SPARK_WIDTH: f32 = 70.0;
/// How many changed rows get a sparkline, and its most points a side.
const SPARK_ROWS: usize = 200;
const SPARK_POINTS: usize = 120;

/// A changed row's cost per unit (frame, or second) through each side's
/// runs, at most [`SPARK_POINTS`] points a side (the most of each stretch).
#[derive(Clone, Debug, PartialEq)]
pub struct Spark {
    pub a: Vec<f32>,
    pub b: Vec<f32>,
    /// The units each side's series had before pooling.
    pub a_units: usize,
    pub b_units: usize,
    /// Where each side's runs after the first start, in units.
    pub a_runs: Vec<u32>,
    pub b_runs: Vec<u32>,
}

/// `x` in at most `n` points, each the largest of its stretch (a stall
/// stays visible).
fn pooled(x: &[f64], n: usize) -> Vec<f32> {
    if x.len() <= n {
        return x.iter().map(|&v| v as f32).collect();
    }
    (0..n)
        .map(|k| {
            let (lo, hi) = (
                k * x.len() / n,
                ((k + 1) * x.len() / n).max(k * x.len() / n + 1),
            );
            x[lo..hi].iter().copied().fold(0.0, f64::max) as f32
        })
        .collect()
}

/// A sparkline: A's series then B's, on one scale (B coloured as its
/// change), a tick where each run starts. Drawn for the rows in view only.
fn spark_ui(ui: &mut egui::Ui, s: &Spark, color: Color32) -> egui::Response {
    let (rect, resp) = ui.allocate_exact_size(
        egui::vec2(SPARK_WIDTH - 6.0, ROW_HEIGHT - 2.0),
        Sense::hover(),
    );
    let painter = ui.painter_at(rect);
    let max =
        s.a.iter()
            .chain(&s.b)
            .copied()
            .fold(f32::MIN_POSITIVE, f32::max);
    let n = (s.a.len() + s.b.len()).max(2) as f32;
    let x = |k: usize| rect.left() + rect.width() * k as f32 / (n - 1.0);
    let y = |v: f32| rect.bottom() - rect.height() * (v / max).clamp(0.0, 1.0);
    let weak = ui.visuals().weak_text_color();
    let line = |from: usize, vals: &[f32], c: Color32| {
        let pts: Vec<egui::Pos2> = vals
            .iter()
            .enumerate()
            .map(|(k, &v)| egui::pos2(x(from + k), y(v)))
            .collect();
        painter.add(egui::Shape::line(pts, egui::Stroke::new(1.0, c)));
    };
    line(0, &s.a, weak);
    line(s.a.len(), &s.b, color);
    // A | B, and each later run's start.
    let tick = |k: usize, c: Color32| {
        painter.line_segment(
            [
                egui::pos2(x(k), rect.top()),
                egui::pos2(x(k), rect.bottom()),
            ],
            (1.0, c),
        );
    };
    tick(s.a.len(), ui.visuals().strong_text_color());
    let at = |u: u32, units: usize, points: usize| (u as usize * points) / units.max(1);
    for &u in &s.a_runs {
        tick(at(u, s.a_units, s.a.len()), weak);
    }
    for &u in &s.b_runs {
        tick(s.a.len() + at(u, s.b_units, s.b.len()), weak);
    }
    resp
}

/// A row's effect as an error bar: its interval (a line) and estimate (a
/// dot) against the band (grey, ±band around 0), on a scale that holds
/// them all; coloured as its judgement (slower red, faster green,
/// inconclusive and unchanged grey). Drawn for the rows in view only.
fn error_bar(ui: &mut egui::Ui, change: &analyses::Change) {
    let e = &change.effect;
    let (rect, _) =
        ui.allocate_exact_size(egui::vec2(INTERVAL_WIDTH - 8.0, ROW_HEIGHT), Sense::hover());
    let finite = |v: f64| v.is_finite().then_some(v);
    let (lo, hi) = (
        finite(e.ci_ns[0]).unwrap_or(e.delta_ns),
        finite(e.ci_ns[1]).unwrap_or(e.delta_ns),
    );
    let scale = [lo.abs(), hi.abs(), e.band_ns.abs(), e.delta_ns.abs()]
        .into_iter()
        .filter(|v| v.is_finite())
        .fold(f64::MIN_POSITIVE, f64::max)
        * 1.15;
    let x = |v: f64| rect.center().x + (v / scale) as f32 * rect.width() / 2.0;
    let y = rect.center().y;
    let painter = ui.painter_at(rect);
    let band = e.band_ns.abs();
    if band.is_finite() && band > 0.0 {
        painter.rect_filled(
            egui::Rect::from_x_y_ranges(x(-band)..=x(band), (y - 5.0)..=(y + 5.0)),
            1.0,
            ui.visuals().faint_bg_color.gamma_multiply(2.0),
        );
    }
    let axis = ui.visuals().weak_text_color();
    painter.line_segment(
        [egui::pos2(x(0.0), y - 6.0), egui::pos2(x(0.0), y + 6.0)],
        (1.0, axis),
    );
    let color = match change.kind {
        Kind::Unchanged | Kind::Inconclusive => ui.visuals().text_color(),
        k if change.delta_per_frame_ns > 0.0 || k.is_regression() => SLOWER,
        _ => FASTER,
    };
    painter.line_segment([egui::pos2(x(lo), y), egui::pos2(x(hi), y)], (2.0, color));
    for v in [lo, hi] {
        painter.line_segment(
            [egui::pos2(x(v), y - 3.0), egui::pos2(x(v), y + 3.0)],
            (1.5, color),
        );
    }
    painter.circle_filled(egui::pos2(x(e.delta_ns), y), 2.5, color);
}

/// The interval column's tooltip: the effect in words, with its band.
fn interval_tip(change: &analyses::Change, unit: &str) -> String {
    format!(
        "the change beyond the drift, per {unit}: {}\nthe bar: its interval; grey: the band \
         (±{:.3} ms) inside which a change is only noise",
        change.effect.text(),
        change.effect.band_ns / 1e6
    )
}

/// The colour of a change of `delta` against `scale` (the larger side;
/// the table, the tree and the flame mode): red slower, green faster, stronger the larger; grey within the noise
/// model's default percentage of `scale` (jitter: an unchanged scope stays
/// grey).
pub fn change_color(delta: f64, scale: f64) -> Color32 {
    let strength = if scale > 0.0 {
        (delta.abs() / scale).clamp(0.0, 1.0) as f32
    } else {
        0.0
    };
    if scale > 0.0 && delta.abs() < analyses::judge::DEFAULT_NOISE_PCT / 100.0 * scale {
        return Color32::GRAY;
    }
    let base = if delta > 0.0 {
        SLOWER
    } else if delta < 0.0 {
        FASTER
    } else {
        return Color32::GRAY;
    };
    Color32::GRAY.lerp_to_gamma(base, 0.35 + 0.65 * strength)
}

/// A row's judgement with its numbers (the badge's tooltip).
fn judgement_tip(c: &analyses::Change, unit: &str) -> String {
    let mut t = format!(
        "{}\nΔ per {unit} {:+.3} ms (per call part {:+.3}, of which the run-to-run drift {:+.3}; \
         count part {:+.3})\ncalls per {unit} {:.2} → {:.2}",
        c.kind.words(),
        c.delta_per_frame_ns / 1e6,
        c.per_call_part_ns / 1e6,
        c.drift_part_ns / 1e6,
        c.count_part_ns / 1e6,
        c.calls_per_frame_a,
        c.calls_per_frame_b
    );
    if let (Some(a), Some(b)) = (c.median_a_ns, c.median_b_ns) {
        t.push_str(&format!(
            "\nmedian per call {} → {} ms",
            ms_f(a as f64),
            ms_f(b as f64)
        ));
    }
    t.push_str(&format!(
        "\n{}: {}",
        c.effect.verdict.as_str(),
        c.effect.text()
    ));
    if let Some(settle) = &c.effect.settle {
        t.push_str(&format!("\n{settle}"));
    }
    t
}

/// A badge drawn as an outline: a wrapper's, whose change is its
/// children's.
fn outlined_badge(ui: &mut egui::Ui, text: &str, stroke: Color32) {
    egui::Frame::new()
        .stroke(egui::Stroke::new(1.0, stroke))
        .corner_radius(3.0)
        .inner_margin(egui::Margin::symmetric(4, 0))
        .show(ui, |ui| {
            ui.label(RichText::new(text).color(stroke).small());
        });
}

fn badge(ui: &mut egui::Ui, text: &str, fill: Color32) {
    egui::Frame::new()
        .fill(fill)
        .corner_radius(3.0)
        .inner_margin(egui::Margin::symmetric(4, 0))
        .show(ui, |ui| {
            ui.label(RichText::new(text).color(Color32::WHITE).small());
        });
}
