//! The sandwich of one scope name in the flame view, as speedscope has it:
//! its callers as an inverted flame graph above it (who calls it, and who
//! calls them, up to the thread's top level) and its callees as a flame
//! graph below it (what it calls, merged over every call), built from the
//! flame view's merged tree: every node of that name counts, grouped by the
//! names around it, so the first row each way is exactly the `callers`
//! query's answer (callers by parent name, a top-level call as
//! `(top level)`; callees by child name).

use crate::engine::analyses::{FlameLayout, MergedTree, NodeId, icicle};
use crate::engine::model::Trace;
use rustc_hash::FxHashMap;

/// A small tree of names with totals (node 0 is the scope itself).
#[derive(Default)]
pub struct NameTree {
    pub name: Vec<String>,
    pub total_ns: Vec<i64>,
    pub children: Vec<Vec<u32>>,
    index: FxHashMap<(u32, String), u32>,
}

impl NameTree {
    fn new(root: &str) -> Self {
        let mut t = NameTree::default();
        t.name.push(root.to_owned());
        t.total_ns.push(0);
        t.children.push(Vec::new());
        t
    }

    /// The child of `parent` named `name`, made when missing.
    fn child(&mut self, parent: u32, name: &str) -> u32 {
        if let Some(&c) = self.index.get(&(parent, name.to_owned())) {
            return c;
        }
        let c = self.name.len() as u32;
        self.name.push(name.to_owned());
        self.total_ns.push(0);
        self.children.push(Vec::new());
        self.children[parent as usize].push(c);
        self.index.insert((parent, name.to_owned()), c);
        c
    }

    /// Children by total, largest first, then name.
    pub fn sorted_children(&self, n: u32) -> Vec<u32> {
        let mut v = self.children[n as usize].clone();
        v.sort_by(|&a, &b| {
            self.total_ns[b as usize]
                .cmp(&self.total_ns[a as usize])
                .then_with(|| self.name[a as usize].cmp(&self.name[b as usize]))
        });
        v
    }

    /// Lays the tree out for `min_width` (a fraction of the width).
    pub fn layout(&self, min_width: f64) -> FlameLayout<u32> {
        icicle(
            &[0],
            &|n| self.sorted_children(n),
            &|n| self.total_ns[n as usize],
            min_width,
            100_000,
            true,
        )
    }
}

/// The name a caller chain stops at: a top-level call.
pub const TOP_LEVEL: &str = "(top level)";

/// The sandwich of `name`: (callers, inverted; callees).
pub fn sandwich(tree: &MergedTree, trace: &Trace, name: &str) -> (NameTree, NameTree) {
    let mut callers = NameTree::new(name);
    let mut callees = NameTree::new(name);
    let label = |n: NodeId| tree.label(trace, n);
    let is_thread = |n: NodeId| tree.parent[n.idx()] == u32::MAX;
    for n in (0..tree.len() as u32).map(NodeId) {
        if is_thread(n) || label(n) != name {
            continue;
        }
        let total = tree.total_ns[n.idx()];
        callers.total_ns[0] += total;
        callees.total_ns[0] += total;
        // Up the chain of callers.
        let mut at = 0u32;
        let mut p = NodeId(tree.parent[n.idx()]);
        loop {
            let caller = if is_thread(p) { TOP_LEVEL } else { label(p) };
            at = callers.child(at, caller);
            callers.total_ns[at as usize] += total;
            if is_thread(p) {
                break;
            }
            p = NodeId(tree.parent[p.idx()]);
        }
        // Down the callees, merged by their path under `n`.
        let mut todo: Vec<(NodeId, u32)> = tree.children(n).iter().map(|&c| (c, 0)).collect();
        while let Some((c, parent)) = todo.pop() {
            let at = callees.child(parent, label(c));
            callees.total_ns[at as usize] += tree.total_ns[c.idx()];
            todo.extend(tree.children(c).iter().map(|&g| (g, at)));
        }
    }
    (callers, callees)
}
