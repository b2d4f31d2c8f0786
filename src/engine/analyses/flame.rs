//! The flame graph: the merged call tree ([`MergedTree`], the `tree` query's
//! merging and totals) laid out as an icicle, roots at the top. A node's
//! width is its share of the shown roots' total; its children sit under it
//! from the left, in the chosen order, and what they leave uncovered is its
//! self time. Nodes narrower than the smallest width drawn are not laid out
//! one by one: their time stays in their parent's width, so the layout is
//! bounded by what can be seen, not by the size of the tree.

use super::tree::{MergedTree, NodeId};
use crate::engine::model::Trace;
use serde::Serialize;

/// How siblings are ordered from left to right.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum FlameOrder {
    /// Largest total first ("left-heavy"): the biggest block is always at
    /// the left (ties by name).
    #[default]
    Heavy,
    /// By name: the same call keeps its place between two selections.
    Name,
}

impl FlameOrder {
    pub fn as_str(self) -> &'static str {
        match self {
            FlameOrder::Heavy => "heavy",
            FlameOrder::Name => "name",
        }
    }

    /// As [`Self::as_str`] writes it.
    pub fn parse(s: &str) -> Option<Self> {
        use serde::de::{Deserialize as _, value};
        Self::deserialize(value::StrDeserializer::<value::Error>::new(s)).ok()
    }
}

/// One laid-out node: `[x0, x1)` as fractions of the shown width, `depth`
/// rows below the top (the shown roots are depth 0). `N` is the tree's node
/// id (a merged tree's [`NodeId`], a differential tree's `u32`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FlameRect<N = NodeId> {
    pub node: N,
    pub depth: u32,
    pub x0: f64,
    pub x1: f64,
}

/// The laid-out nodes, by depth then left to right.
#[derive(Clone, Debug, Default)]
pub struct FlameLayout<N = NodeId> {
    pub rects: Vec<FlameRect<N>>,
    /// The shown roots' total: the full width.
    pub total_ns: i64,
    /// Rows laid out (the deepest depth + 1).
    pub rows: u32,
    /// Nodes at least `min_width` wide were left out to stay within
    /// `max_rects`.
    pub truncated: bool,
}

impl<N> FlameLayout<N> {
    /// The rects of row `depth` (left to right).
    pub fn row(&self, depth: u32) -> &[FlameRect<N>] {
        let a = self.rects.partition_point(|r| r.depth < depth);
        let b = self.rects.partition_point(|r| r.depth <= depth);
        &self.rects[a..b]
    }

    /// The rect at `x` (a fraction) in row `depth`.
    pub fn at(&self, depth: u32, x: f64) -> Option<&FlameRect<N>> {
        let row = self.row(depth);
        let i = row.partition_point(|r| r.x1 <= x);
        row.get(i).filter(|r| r.x0 <= x)
    }
}

/// `children` of a node in `order` (the tree keeps them by total, then name).
pub fn ordered_children(
    tree: &MergedTree,
    trace: &Trace,
    children: &[NodeId],
    order: FlameOrder,
) -> Vec<NodeId> {
    let mut v = children.to_vec();
    if order == FlameOrder::Name {
        v.sort_by(|&a, &b| {
            tree.label(trace, a)
                .cmp(tree.label(trace, b))
                .then(a.cmp(&b))
        });
    }
    v
}

/// Lays out `roots` side by side (widths by their totals) and everything
/// under them at least `min_width` wide, at most `max_rects` nodes.
pub fn flame_layout(
    tree: &MergedTree,
    trace: &Trace,
    roots: &[NodeId],
    order: FlameOrder,
    min_width: f64,
    max_rects: usize,
) -> FlameLayout {
    let roots = ordered_children(tree, trace, roots, order);
    icicle(
        &roots,
        &|n| ordered_children(tree, trace, tree.children(n), order),
        &|n| tree.total_ns[n.idx()],
        min_width,
        max_rects,
        order == FlameOrder::Heavy,
    )
}

/// The icicle layout of any tree: `roots` side by side by `total`, each
/// node's `children` (in the order given) under it from the left, nodes
/// narrower than `min_width` left out with what is under them (when
/// `largest_first`, the siblings after the first such one too), at most
/// `max_rects` nodes. Edges come from integer offsets, so they are exact.
pub fn icicle<N: Copy + Default>(
    roots: &[N],
    children: &dyn Fn(N) -> Vec<N>,
    total: &dyn Fn(N) -> i64,
    min_width: f64,
    max_rects: usize,
    largest_first: bool,
) -> FlameLayout<N> {
    let total = |n: N| total(n).max(0);
    let total_ns: i64 = roots.iter().map(|&r| total(r)).sum();
    let mut layout = FlameLayout {
        total_ns,
        ..FlameLayout::default()
    };
    if total_ns <= 0 {
        return layout;
    }
    let frac = |ns: i64| ns as f64 / total_ns as f64;
    let min_width = min_width.max(0.0);
    // (node, depth, left edge in ns from the left of the roots), depth
    // first; children pushed right to left so the leftmost is laid out first.
    let mut stack: Vec<(N, u32, i64)> = Vec::new();
    let mut left = 0i64;
    for &r in roots {
        stack.push((r, 0, left));
        left += total(r);
    }
    stack.reverse();
    let mut kids: Vec<(N, i64)> = Vec::new();
    while let Some((n, depth, left)) = stack.pop() {
        let width = frac(total(n));
        if width < min_width || width <= 0.0 {
            continue;
        }
        if layout.rects.len() == max_rects {
            layout.truncated = true;
            break;
        }
        layout.rects.push(FlameRect {
            node: n,
            depth,
            x0: frac(left),
            x1: frac(left + total(n)).min(1.0),
        });
        layout.rows = layout.rows.max(depth + 1);
        kids.clear();
        let mut cleft = left;
        for c in children(n) {
            if frac(total(c)) >= min_width {
                kids.push((c, cleft));
            } else if largest_first {
                // The rest are no wider.
                break;
            }
            cleft += total(c);
        }
        stack.extend(kids.iter().rev().map(|&(c, l)| (c, depth + 1, l)));
    }
    layout
        .rects
        .sort_by(|a, b| a.depth.cmp(&b.depth).then(a.x0.total_cmp(&b.x0)));
    layout
}

/// The time of the nodes under `roots` whose name `matches`, each counted
/// once (a match inside a match adds nothing): the share search reports.
pub fn matched_total_ns(
    tree: &MergedTree,
    roots: &[NodeId],
    matches: &dyn Fn(NodeId) -> bool,
) -> i64 {
    let mut sum = 0i64;
    let mut stack: Vec<NodeId> = roots.to_vec();
    while let Some(n) = stack.pop() {
        if matches(n) {
            sum = sum.saturating_add(tree.total_ns[n.idx()].max(0));
        } else {
            stack.extend_from_slice(tree.children(n));
        }
    }
    sum
}
