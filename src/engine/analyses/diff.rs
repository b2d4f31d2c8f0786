//! The differential call tree: the merged call trees of two recordings (A,
//! before; B, after; all frames) joined by thread name and path of scope
//! names. Stored flat like [`MergedTree`]: every node points to its node in
//! A's and in B's tree (either may be missing), children sorted by
//! |B − A| of their totals per frame, largest first, then name.
//!
//! **Per frame, always.** A's and B's totals sum over all their frames, so
//! with 60 frames in A and 90 in B an unchanged scope would show +50%; the
//! tree's changes are B's total per frame minus A's (each side's total
//! divided by its frames; per second of each side's run when a side is
//! unframed, see [`super::change::basis`]). The sums stay beside them.

use super::change::basis::{Basis, Units};
use super::change::compare::compare_warnings;
use super::change::judge::{Kind, Noise, Sums, judge_rows, needs_calls, samples};
use super::common::{Applied, CHUNK};
use super::transform::{self, Stack};
use super::tree::{MergedTree, MergedTreeBuilder, NodeId, TreeReport};
use crate::engine::model::{ScopeIdx, Trace};
use serde::Serialize;

/// The joined tree. Thread nodes are the roots of the arena (depth 0).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DiffTree {
    /// The merged trees joined (with the frames merged on each side).
    pub a: MergedTree,
    pub b: MergedTree,
    /// What the per-frame figures are per ([`Basis::of`] the two sides).
    pub basis: Basis,
    /// Units on each side: its frames, or per second its seconds.
    pub a_units: usize,
    pub b_units: usize,
    /// Thread nodes, sorted by thread name.
    pub threads: Vec<u32>,
    /// Each node's index into `names`.
    name: Vec<u32>,
    /// The distinct names (few: scope names, not data strings).
    names: Vec<String>,
    pub a_node: Vec<Option<NodeId>>,
    pub b_node: Vec<Option<NodeId>>,
    pub parent: Vec<u32>,
    pub depth: Vec<u32>,
    /// Children of node `n`: `child_list[child_start[n]..child_start[n + 1]]`.
    child_start: Vec<u32>,
    child_list: Vec<u32>,
}

impl DiffTree {
    pub fn len(&self) -> usize {
        self.name.len()
    }

    pub fn is_empty(&self) -> bool {
        self.name.is_empty()
    }

    /// Node `n`'s name (a thread's for a thread node).
    #[inline]
    pub fn name(&self, n: u32) -> &str {
        &self.names[self.name[n as usize] as usize]
    }

    pub fn children(&self, n: u32) -> &[u32] {
        let n = n as usize;
        &self.child_list[self.child_start[n] as usize..self.child_start[n + 1] as usize]
    }

    /// A's total of node `n` (0 when A has no such node).
    pub fn a_total_ns(&self, n: u32) -> i64 {
        self.a_node[n as usize].map_or(0, |x| self.a.total_ns[x.idx()])
    }

    pub fn b_total_ns(&self, n: u32) -> i64 {
        self.b_node[n as usize].map_or(0, |x| self.b.total_ns[x.idx()])
    }

    /// A's total of node `n` per unit (frame, or second: [`Self::basis`]).
    pub fn a_total_per_frame_ns(&self, n: u32) -> f64 {
        self.a_total_ns(n) as f64 / self.a_units.max(1) as f64
    }

    pub fn b_total_per_frame_ns(&self, n: u32) -> f64 {
        self.b_total_ns(n) as f64 / self.b_units.max(1) as f64
    }

    /// |B − A| of the totals per unit, scaled by both sides' units (B's
    /// total times A's units minus A's times B's), exact in integers: the
    /// tree's order, with no rounding to break a tie two ways (with as many
    /// units a side, the order of the sums).
    pub fn order_key(&self, n: u32) -> u128 {
        let (ua, ub) = (self.a_units.max(1) as i128, self.b_units.max(1) as i128);
        (self.b_total_ns(n) as i128 * ua - self.a_total_ns(n) as i128 * ub).unsigned_abs()
    }

    /// B − A of the totals per unit: what the tree's change is.
    pub fn delta_total_per_frame_ns(&self, n: u32) -> f64 {
        self.b_total_per_frame_ns(n) - self.a_total_per_frame_ns(n)
    }

    /// The change per unit in percent of A's (`None` where A's is 0).
    pub fn delta_pct(&self, n: u32) -> Option<f64> {
        let a = self.a_total_per_frame_ns(n);
        (a > 0.0).then(|| 100.0 * self.delta_total_per_frame_ns(n) / a)
    }

    pub fn side(&self, n: u32, b: bool) -> Option<SideTotals> {
        let (tree, node) = if b {
            (&self.b, self.b_node[n as usize])
        } else {
            (&self.a, self.a_node[n as usize])
        };
        node.map(|x| SideTotals {
            count: tree.count[x.idx()],
            total_ns: tree.total_ns[x.idx()],
            self_ns: tree.self_ns[x.idx()],
        })
    }
}

/// One side's numbers of a diff node.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct SideTotals {
    pub count: u64,
    pub total_ns: i64,
    pub self_ns: i64,
}

/// One side of a join: a trace, its merged tree and the nodes to join
/// (a node's children, or the thread nodes).
type Side<'t> = (&'t Trace, &'t MergedTree, &'t [NodeId]);

/// Names joined from both sides: `(name, A's node, B's node)`.
pub type JoinedNames<'t> = Vec<(&'t str, Option<NodeId>, Option<NodeId>)>;

/// Thread nodes of both trees joined by thread name, sorted by name.
pub fn joined_threads<'t>(
    a: (&'t Trace, &'t MergedTree),
    b: (&'t Trace, &'t MergedTree),
) -> JoinedNames<'t> {
    join_by_name((a.0, a.1, &a.1.threads), (b.0, b.1, &b.1.threads))
}

/// Children of A's node `na` and of B's node `nb` (either may be missing)
/// joined by name, sorted by name.
pub fn joined_children<'t>(
    (a, ta, na): (&'t Trace, &'t MergedTree, Option<NodeId>),
    (b, tb, nb): (&'t Trace, &'t MergedTree, Option<NodeId>),
) -> JoinedNames<'t> {
    fn kids(t: &MergedTree, n: Option<NodeId>) -> &[NodeId] {
        n.map_or(&[], |n| t.children(n))
    }
    join_by_name((a, ta, kids(ta, na)), (b, tb, kids(tb, nb)))
}

/// A merge join of two lists of distinct names.
fn join_by_name<'t>(a: Side<'t>, b: Side<'t>) -> JoinedNames<'t> {
    use std::cmp::Ordering;
    let sorted = |(t, tree, nodes): Side<'t>| {
        let mut v: Vec<(&'t str, NodeId)> = nodes.iter().map(|&c| (tree.label(t, c), c)).collect();
        v.sort_unstable_by(|x, y| x.0.cmp(y.0));
        v
    };
    let (xs, ys) = (sorted(a), sorted(b));
    let mut out = Vec::with_capacity(xs.len().max(ys.len()));
    let (mut i, mut j) = (0, 0);
    while i < xs.len() || j < ys.len() {
        let order = match (xs.get(i), ys.get(j)) {
            (Some(x), Some(y)) => x.0.cmp(y.0),
            (Some(_), None) => Ordering::Less,
            _ => Ordering::Greater,
        };
        let (x, y) = (
            xs.get(i).filter(|_| order.is_le()),
            ys.get(j).filter(|_| order.is_ge()),
        );
        i += usize::from(x.is_some());
        j += usize::from(y.is_some());
        let name = x.or(y).map_or("", |p| p.0);
        out.push((name, x.map(|p| p.1), y.map(|p| p.1)));
    }
    out
}

/// Joins the merged trees of `a` and `b` (all frames; threads named
/// `thread` only when given).
pub fn diff_tree(a: &Trace, b: &Trace, thread: Option<&str>) -> DiffTree {
    DiffTreeBuilder::new(a, b, thread, u32::MAX)
        .step(a, b, &mut || true)
        .expect("a build given all the time it needs ends")
}

/// The join of `a`'s merged tree `ta` and `b`'s `tb`; with `floor`
/// `(A's units, B's units, ns)`, only nodes whose totals per unit sum to
/// `ns` or more have their children joined (what they hold cannot reach it).
pub fn joined(
    a: &Trace,
    b: &Trace,
    ta: MergedTree,
    tb: MergedTree,
    floor: Option<(f64, f64, f64)>,
) -> DiffTree {
    let mut join = Join::new(a, b, ta, tb);
    join.floor = floor;
    (join.step(a, b, &mut || true)).expect("a join given all the time it needs ends")
}

/// [`diff_tree`] of `levels` levels (threads named `thread` only when
/// given) transformed by `stack`, with each node judged by the noise model
/// (its calls in A against its calls in B, per frame; see `judge`): thread
/// nodes are `Unchanged`; and what the stack did (`None` without one).
pub fn diff_tree_judged(
    a: &Trace,
    b: &Trace,
    thread: Option<&str>,
    levels: u32,
    noise: &Noise,
    stack: &Stack,
) -> (DiffTree, Vec<Kind>, Option<Applied>) {
    // Each side's tree with each instance's node in it: the nodes' calls.
    let side = |t: &Trace| {
        let frames = 0..t.frames.len() as u32;
        transform::transformed_with_nodes(t, frames, thread, levels, stack, true)
    };
    let ((ta, of_a), (tb, of_b)) = (side(a), side(b));
    let applied = ta.applied(stack).map(|mut applied| {
        applied.warnings.extend(tb.warnings.iter().cloned());
        applied.warnings.sort();
        applied.warnings.dedup();
        applied
    });
    let d = joined(a, b, ta.tree, tb.tree, None);
    let kinds = judge_nodes(a, b, &d, (&of_a, &of_b), noise);
    (d, kinds, applied)
}

/// Each node of `d` judged: its merged nodes' sums, and for a node past
/// the thresholds its calls (`node_of`: each instance's merged node in A's
/// and in B's tree).
fn judge_nodes(
    a: &Trace,
    b: &Trace,
    d: &DiffTree,
    node_of: (&[u32], &[u32]),
    noise: &Noise,
) -> Vec<Kind> {
    const NONE: u32 = u32::MAX;
    let frames = (d.a.frames, d.b.frames);
    // Against the drift the comparison's table judges against.
    let (noise, _) = super::change::compare::with_estimated_drift(a, b, *noise);
    let units = (Units::new(a, Basis::Frame), Units::new(b, Basis::Frame));
    let mut kinds = vec![Kind::Unchanged; d.len()];
    // Merged node -> diff node, per side; diff node -> candidate.
    let (mut inv_a, mut inv_b) = (vec![NONE; d.a.len()], vec![NONE; d.b.len()]);
    let mut candidate = vec![NONE; d.len()];
    let mut candidates: Vec<u32> = Vec::new();
    let sums = |t: &MergedTree, x: NodeId| Sums {
        count: t.count[x.idx()],
        total_ns: t.total_ns[x.idx()],
        max_ns: t.max_ns[x.idx()],
    };
    for n in 0..d.len() {
        let (na, nb) = (d.a_node[n], d.b_node[n]);
        if let Some(x) = na {
            inv_a[x.idx()] = n as u32;
        }
        if let Some(y) = nb {
            inv_b[y.idx()] = n as u32;
        }
        if d.parent[n] == NONE {
            continue; // a thread
        }
        kinds[n] = match (na, nb) {
            (None, _) => Kind::New,
            (_, None) => Kind::Gone,
            (Some(x), Some(y)) => {
                if needs_calls(sums(&d.a, x), sums(&d.b, y), frames, &noise) {
                    candidate[n] = candidates.len() as u32;
                    candidates.push(n as u32);
                }
                Kind::Unchanged
            }
        };
    }
    if candidates.is_empty() {
        return kinds;
    }
    let calls = |t: &Trace, of: &[u32], inv: &[u32]| {
        let mut out: Vec<(u32, u32, i64)> = Vec::new();
        for (i, &m) in of.iter().enumerate() {
            let dn = inv.get(m as usize).copied().unwrap_or(NONE);
            let c = candidate.get(dn as usize).copied().unwrap_or(NONE);
            if c != NONE {
                let frame = t.scope_frame(ScopeIdx(i as u32)).0;
                out.push((c, frame, t.scopes.duration_ns[i]));
            }
        }
        out.sort_unstable();
        out
    };
    let (ca, cb) = (calls(a, node_of.0, &inv_a), calls(b, node_of.1, &inv_b));
    let n = candidates.len();
    let (sa, sb) = (samples(&ca, n, &units.0), samples(&cb, n, &units.1));
    // The tree's nodes judged as one family, as a table's rows are.
    let changes = judge_rows(&sa, &sb, &mut noise.clone());
    for (&node, c) in candidates.iter().zip(changes) {
        kinds[node as usize] = c.kind;
    }
    kinds
}

/// A [`DiffTree`] built a slice at a time: A's merged tree, B's (each a
/// slice at a time: [`MergedTreeBuilder`]), then their join, node by node,
/// then its children lists. [`diff_tree`] is this run to its end.
pub struct DiffTreeBuilder {
    build_a: MergedTreeBuilder,
    build_b: MergedTreeBuilder,
    ta: Option<MergedTree>,
    tb: Option<MergedTree>,
    join: Option<Join>,
    /// Applied to each side's tree once merged.
    stack: Stack,
    /// What the stack matched nothing of, on either side.
    warnings: Vec<String>,
}

impl DiffTreeBuilder {
    pub fn new(a: &Trace, b: &Trace, thread: Option<&str>, levels: u32) -> Self {
        Self {
            build_a: MergedTreeBuilder::new(a, 0..a.frames.len() as u32, thread, levels),
            build_b: MergedTreeBuilder::new(b, 0..b.frames.len() as u32, thread, levels),
            ta: None,
            tb: None,
            join: None,
            stack: Stack::default(),
            warnings: Vec::new(),
        }
    }

    /// Both trees transformed by `stack` before they are joined (merged at
    /// all levels then).
    pub fn with_transforms(
        mut self,
        a: &Trace,
        b: &Trace,
        thread: Option<&str>,
        stack: &Stack,
    ) -> Self {
        if !stack.is_empty() {
            self.build_a = MergedTreeBuilder::new(a, 0..a.frames.len() as u32, thread, u32::MAX)
                .split_data(stack.split_defs(a));
            self.build_b = MergedTreeBuilder::new(b, 0..b.frames.len() as u32, thread, u32::MAX)
                .split_data(stack.split_defs(b));
        }
        self.stack = stack.clone();
        self
    }

    /// What the transforms matched nothing of (once built).
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    fn transformed(&mut self, t: &Trace, tree: MergedTree) -> MergedTree {
        if self.stack.is_empty() {
            return tree;
        }
        let tr = transform::apply(t, &tree, &self.stack);
        for w in tr.warnings {
            if !self.warnings.contains(&w) {
                self.warnings.push(w);
            }
        }
        tr.tree
    }

    /// How far along, 0 to 1.
    pub fn progress(&self) -> f32 {
        if let Some(join) = &self.join {
            return 0.8 + 0.2 * join.progress();
        }
        let side = |built: &Option<MergedTree>, build: &MergedTreeBuilder| {
            built.as_ref().map_or_else(|| build.progress(), |_| 1.0)
        };
        0.4 * side(&self.ta, &self.build_a) + 0.4 * side(&self.tb, &self.build_b)
    }

    /// Builds until `more` says stop; the tree once it is built.
    pub fn step(
        &mut self,
        a: &Trace,
        b: &Trace,
        more: &mut dyn FnMut() -> bool,
    ) -> Option<DiffTree> {
        if self.join.is_none() {
            if self.ta.is_none() {
                let tree = self.build_a.step(a, more)?;
                self.ta = Some(self.transformed(a, tree));
                if !more() {
                    return None;
                }
            }
            if self.tb.is_none() {
                let tree = self.build_b.step(b, more)?;
                self.tb = Some(self.transformed(b, tree));
                if !more() {
                    return None;
                }
            }
            self.join = Some(Join::new(a, b, self.ta.take()?, self.tb.take()?));
        }
        self.join.as_mut()?.step(a, b, more)
    }
}

/// The join of A's and B's merged trees, a slice at a time: pairs of nodes
/// (A's, B's, either missing) taken from a stack, their children joined by
/// name; then the children lists made and sorted.
#[derive(Default)]
struct Join {
    /// The tree so far (`a` and `b` hold the merged trees joined).
    d: DiffTree,
    /// Names held once: a lookup per node, a String per distinct name.
    local: rustc_hash::FxHashMap<String, u32>,
    /// Pairs to join: (diff node, A node, B node).
    stack: Vec<(u32, Option<NodeId>, Option<NodeId>)>,
    /// See [`joined`].
    floor: Option<(f64, f64, f64)>,
}

impl Join {
    fn new(a: &Trace, b: &Trace, ta: MergedTree, tb: MergedTree) -> Self {
        let basis = Basis::of(a, b);
        let mut join = Self {
            d: DiffTree {
                basis,
                a_units: Units::new(a, basis).count,
                b_units: Units::new(b, basis).count,
                ..Default::default()
            },
            ..Default::default()
        };
        for (name, na, nb) in joined_threads((a, &ta), (b, &tb)) {
            let name = join.intern(name);
            let id = push(&mut join.d, name, u32::MAX, 0, na, nb);
            join.d.threads.push(id);
            join.stack.push((id, na, nb));
        }
        join.d.a = ta;
        join.d.b = tb;
        join
    }

    fn intern(&mut self, name: &str) -> u32 {
        if let Some(&id) = self.local.get(name) {
            return id;
        }
        self.d.names.push(name.to_owned());
        let id = self.d.names.len() as u32 - 1;
        self.local.insert(name.to_owned(), id);
        id
    }

    /// How far along, 0 to 1 (nodes made against the larger tree's).
    fn progress(&self) -> f32 {
        let larger = self.d.a.len().max(self.d.b.len()).max(1);
        (self.d.len() as f32 / larger as f32).min(1.0)
    }

    fn step(&mut self, a: &Trace, b: &Trace, more: &mut dyn FnMut() -> bool) -> Option<DiffTree> {
        let mut made = 0;
        let joining = !self.stack.is_empty();
        // The trees are read while the join grows (their labels are
        // interned): out of `self.d` meanwhile.
        let (ta, tb) = (std::mem::take(&mut self.d.a), std::mem::take(&mut self.d.b));
        let mut paused = false;
        while let Some((id, na, nb)) = self.stack.pop() {
            if let Some((ua, ub, ns)) = self.floor {
                let per_unit = |t: &MergedTree, n: Option<NodeId>, u: f64| {
                    n.map_or(0.0, |n| t.total_ns[n.idx()] as f64 / u)
                };
                // A margin for the sums of quotients the caller compares.
                if per_unit(&ta, na, ua) + per_unit(&tb, nb, ub) < ns * (1.0 - 1e-9) {
                    continue;
                }
            }
            let depth = self.d.depth[id as usize] + 1;
            for (name, ca, cb) in joined_children((a, &ta, na), (b, &tb, nb)) {
                let name = self.intern(name);
                let c = push(&mut self.d, name, id, depth, ca, cb);
                self.stack.push((c, ca, cb));
                made += 1;
            }
            if made >= CHUNK {
                made = 0;
                if !more() {
                    paused = true;
                    break;
                }
            }
        }
        self.d.a = ta;
        self.d.b = tb;
        if paused {
            return None;
        }
        // The children lists in a slice of their own.
        if joining && !more() {
            return None;
        }
        let mut d = std::mem::take(&mut self.d);
        // Children (CSR), by |delta per frame| descending, then name.
        let edges = (d.parent.iter().enumerate())
            .filter(|(_, p)| **p != u32::MAX)
            .map(|(c, &p)| (p, c as u32));
        let (start, mut list) = super::common::children_lists(d.len(), edges);
        let keys: Vec<u128> = (0..d.len() as u32).map(|n| d.order_key(n)).collect();
        for n in 0..d.len() {
            let kids = &mut list[start[n] as usize..start[n + 1] as usize];
            // Siblings' names differ: the order is total.
            kids.sort_unstable_by(|&x, &y| {
                (keys[y as usize].cmp(&keys[x as usize])).then_with(|| d.name(x).cmp(d.name(y)))
            });
        }
        (d.child_start, d.child_list) = (start, list);
        Some(d)
    }
}

fn push(
    d: &mut DiffTree,
    name: u32,
    parent: u32,
    depth: u32,
    a: Option<NodeId>,
    b: Option<NodeId>,
) -> u32 {
    let id = d.name.len() as u32;
    d.name.push(name);
    d.parent.push(parent);
    d.depth.push(depth);
    d.a_node.push(a);
    d.b_node.push(b);
    id
}

// ---------------------------------------------------------------------------
// The JSON answer of `puffin-lens diff`

/// The answer of `diff`: the differential tree down to the listed levels,
/// serialized as nested `{warnings, basis, units: [a, b], frames_a,
/// frames_b, threads: [{name, a_total_ns, b_total_ns, a_total_per_frame_ns,
/// b_total_per_frame_ns, delta_pct, roots: [{name, a, b, delta_total_ns,
/// a_total_per_frame_ns, b_total_per_frame_ns, delta_total_per_frame_ns,
/// delta_pct, kind, children}]}]}` while it is walked (no nested values, no
/// string per node). `a`/`b` and `delta_total_ns` sum over all frames; the
/// `*_per_frame_ns` and `delta_pct` are per unit of `basis`.
#[derive(Clone, Debug, PartialEq)]
pub struct DiffReport {
    pub warnings: Vec<String>,
    tree: DiffTree,
    /// Each node's judgement (empty: not judged).
    kinds: Vec<Kind>,
    /// Nodes deeper than this are counted in their ancestors, not listed.
    levels: u32,
    /// The transforms both trees had, as written.
    transforms: Option<Vec<String>>,
}

/// A node of a [`DiffReport`] in the order it is listed.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DiffRow<'r> {
    /// 0 for a thread, 1 for its roots.
    pub depth: u32,
    pub name: &'r str,
    /// Index of `name` among [`DiffReport::names`].
    pub name_index: u32,
    /// The node's judgement (`None` for a thread, or when not judged).
    pub kind: Option<Kind>,
    pub a: Option<SideTotals>,
    pub b: Option<SideTotals>,
    /// A's and B's totals (0 where missing; a thread's sums its roots').
    pub a_total_ns: i64,
    pub b_total_ns: i64,
    /// Those per unit of each side ([`DiffReport::basis`]), and B − A.
    pub a_total_per_frame_ns: f64,
    pub b_total_per_frame_ns: f64,
    pub delta_total_per_frame_ns: f64,
    /// Of A's per unit, in percent (`None` where A's is 0).
    pub delta_pct: Option<f64>,
}

impl DiffReport {
    /// The report of `d`, listing `depth` levels (roots are level 1; all, up
    /// to [`MAX_REPORT_LEVELS`], when `None`). Build `d` with
    /// [`DiffTreeBuilder`] at [`TreeReport::levels_of`]`.max(1)` to join
    /// no more than is listed.
    pub fn new(a: &Trace, b: &Trace, d: DiffTree, depth: Option<u32>) -> Self {
        DiffReport {
            warnings: compare_warnings(a, b),
            tree: d,
            kinds: Vec::new(),
            levels: TreeReport::levels_of(depth),
            transforms: None,
        }
    }

    /// The report of trees transformed by `applied`'s stack (its warnings
    /// added to the report's).
    pub fn with_applied(mut self, applied: Option<Applied>) -> Self {
        if let Some(a) = applied {
            self.warnings.extend(a.warnings);
            self.transforms = Some(a.transforms);
        }
        self
    }

    /// The transforms both trees had, as written.
    pub fn transforms(&self) -> Option<&[String]> {
        self.transforms.as_deref()
    }

    /// The report with each node's judgement ([`diff_tree_judged`]).
    pub fn with_kinds(mut self, kinds: Vec<Kind>) -> Self {
        self.kinds = kinds;
        self
    }

    /// The distinct names, indexed by [`DiffRow::name_index`].
    pub fn names(&self) -> &[String] {
        &self.tree.names
    }

    fn row(&self, n: u32) -> DiffRow<'_> {
        let d = &self.tree;
        DiffRow {
            depth: d.depth[n as usize],
            name: d.name(n),
            name_index: d.name[n as usize],
            kind: (self.kinds.get(n as usize).copied()).filter(|_| d.depth[n as usize] > 0),
            a: d.side(n, false),
            b: d.side(n, true),
            a_total_ns: d.a_total_ns(n),
            b_total_ns: d.b_total_ns(n),
            a_total_per_frame_ns: d.a_total_per_frame_ns(n),
            b_total_per_frame_ns: d.b_total_per_frame_ns(n),
            delta_total_per_frame_ns: d.delta_total_per_frame_ns(n),
            delta_pct: d.delta_pct(n),
        }
    }

    /// What the per-frame figures are per, and each side's units (frames,
    /// or seconds) and frames.
    pub fn basis(&self) -> Basis {
        self.tree.basis
    }

    pub fn units(&self) -> (usize, usize) {
        (self.tree.a_units, self.tree.b_units)
    }

    pub fn frames(&self) -> (usize, usize) {
        (self.tree.a.frames, self.tree.b.frames)
    }

    fn children(&self, n: u32) -> &[u32] {
        if self.tree.depth[n as usize] < self.levels {
            self.tree.children(n)
        } else {
            &[]
        }
    }

    /// Every listed node, threads included, depth first, as the text lists them.
    pub fn rows(&self) -> impl Iterator<Item = DiffRow<'_>> {
        super::common::preorder(&self.tree.threads, |n| self.children(n)).map(|n| self.row(n))
    }
}

impl Serialize for DiffReport {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use super::common::SeqOf;
        use serde::ser::SerializeStruct as _;
        /// A thread (its roots listed) or a scope node (its children).
        struct Node<'r>(&'r DiffReport, u32);
        impl Serialize for Node<'_> {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                let r = self.0.row(self.1);
                let thread = r.depth == 0;
                let mut st =
                    s.serialize_struct(if thread { "DiffThread" } else { "DiffNode" }, 10)?;
                st.serialize_field("name", r.name)?;
                if thread {
                    st.serialize_field("a_total_ns", &r.a_total_ns)?;
                    st.serialize_field("b_total_ns", &r.b_total_ns)?;
                } else {
                    st.serialize_field("a", &r.a)?;
                    st.serialize_field("b", &r.b)?;
                    let delta_ns = r.b_total_ns.saturating_sub(r.a_total_ns);
                    st.serialize_field("delta_total_ns", &delta_ns)?;
                }
                st.serialize_field("a_total_per_frame_ns", &r.a_total_per_frame_ns)?;
                st.serialize_field("b_total_per_frame_ns", &r.b_total_per_frame_ns)?;
                if !thread {
                    st.serialize_field("delta_total_per_frame_ns", &r.delta_total_per_frame_ns)?;
                }
                st.serialize_field("delta_pct", &r.delta_pct)?;
                // A thread has no kind.
                if let Some(kind) = r.kind {
                    st.serialize_field("kind", &kind)?;
                }
                let nodes = SeqOf(self.0.children(self.1).iter(), |&c| Node(self.0, c));
                st.serialize_field(if thread { "roots" } else { "children" }, &nodes)?;
                st.end()
            }
        }
        let mut st = s.serialize_struct("DiffReport", 7)?;
        st.serialize_field("warnings", &self.warnings)?;
        st.serialize_field("basis", &self.tree.basis)?;
        st.serialize_field("units", &[self.tree.a_units, self.tree.b_units])?;
        st.serialize_field("frames_a", &self.tree.a.frames)?;
        st.serialize_field("frames_b", &self.tree.b.frames)?;
        if let Some(t) = &self.transforms {
            st.serialize_field("transforms", t)?;
        }
        let threads = SeqOf(self.tree.threads.iter(), |&t| Node(self, t));
        st.serialize_field("threads", &threads)?;
        st.end()
    }
}
