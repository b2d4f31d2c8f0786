//! The merged call tree: scope instances of a set of frames merged by the
//! path of scope names from their thread's top level (data strings do not
//! split nodes), one tree per thread name.
//!
//! Stored flat (struct-of-arrays, parents before children, each node's
//! children contiguous and sorted by total time descending, then name), so
//! the tree view walks it without allocating and the JSON answer
//! ([`TreeReport`]) is built from it.

use super::common::*;
use crate::engine::model::{FrameId, ScopeIdx, StrId, StreamId, Trace};
use rustc_hash::FxHashMap;
use serde::Serialize;
use std::collections::BTreeMap;
use std::ops::Range;

/// A node of a [`MergedTree`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct NodeId(pub u32);

impl NodeId {
    #[inline]
    pub fn idx(self) -> usize {
        self.0 as usize
    }
}

/// The merged call tree of some frames. Thread nodes are the roots of the
/// arena (depth 0, named after the thread, count 0, total the sum of their
/// children's); scope nodes have depth 1 and more.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MergedTree {
    /// How many frames were merged.
    pub frames: usize,
    /// Thread nodes, sorted by thread name.
    pub threads: Vec<NodeId>,
    pub name: Vec<StrId>,
    pub count: Vec<u64>,
    pub total_ns: Vec<i64>,
    pub self_ns: Vec<i64>,
    pub max_ns: Vec<i64>,
    /// The shortest call (`i64::MAX` for a thread node).
    pub min_ns: Vec<i64>,
    /// `u32::MAX` for thread nodes.
    pub parent: Vec<u32>,
    pub depth: Vec<u32>,
    /// Children of node `n`: `child_list[child_start[n]..child_start[n + 1]]`.
    child_start: Vec<u32>,
    child_list: Vec<NodeId>,
    /// Names the recording does not hold, made by transforms (a crate's
    /// node, a name split by its data): a `name` with [`LABEL_BIT`] set is
    /// `labels[id & !LABEL_BIT]`. Read names through [`Self::label`].
    pub labels: Vec<Label>,
}

/// Set in a [`MergedTree`] node's `name` that is one of its own
/// [`Label`]s, not a string of the recording.
pub const LABEL_BIT: u32 = 1 << 31;

/// A node name made by a transform (the `transform` module).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Label {
    /// What the node is called: `name [data]` for a name split by its
    /// data, `[crate]` for a crate's collapsed scopes.
    pub text: String,
    /// The scope name it stands for (a name split by data), or `None` for
    /// a crate's node.
    pub scope: Option<StrId>,
    /// The crate (a crate's node).
    pub crate_name: Option<String>,
}

impl MergedTree {
    pub fn len(&self) -> usize {
        self.name.len()
    }

    pub fn is_empty(&self) -> bool {
        self.name.is_empty()
    }

    /// Children, by total time descending, then name.
    #[inline]
    pub fn children(&self, n: NodeId) -> &[NodeId] {
        let (a, b) = (self.child_start[n.idx()], self.child_start[n.idx() + 1]);
        &self.child_list[a as usize..b as usize]
    }

    /// The name of node `n` (a thread's, a scope's, or a transform's
    /// label).
    #[inline]
    pub fn label<'t>(&'t self, trace: &'t Trace, n: NodeId) -> &'t str {
        self.label_of(trace, self.name[n.idx()])
    }

    /// The text of a `name` id of this tree.
    #[inline]
    pub fn label_of<'t>(&'t self, trace: &'t Trace, id: StrId) -> &'t str {
        self.made_label(id)
            .map_or_else(|| trace.str(id), |l| l.text.as_str())
    }

    /// The [`Label`] a `name` id of this tree is (`None`: a string of the
    /// recording).
    #[inline]
    pub fn made_label(&self, id: StrId) -> Option<&Label> {
        (id.0 & LABEL_BIT != 0).then(|| &self.labels[(id.0 & !LABEL_BIT) as usize])
    }

    /// The scope name node `n` stands for: its name, the name a split by
    /// data came from, or `None` (a thread, a crate's node).
    pub fn scope_name(&self, n: NodeId) -> Option<StrId> {
        let id = self.name[n.idx()];
        if self.parent[n.idx()] == u32::MAX {
            None
        } else {
            self.made_label(id).map_or(Some(id), |l| l.scope)
        }
    }

    /// The thread node `n` belongs to.
    pub fn thread_of(&self, mut n: NodeId) -> NodeId {
        while self.parent[n.idx()] != u32::MAX {
            n = NodeId(self.parent[n.idx()]);
        }
        n
    }

    /// The path from the thread node down to `n`, inclusive.
    pub fn path(&self, n: NodeId) -> Vec<NodeId> {
        let up = |n: &NodeId| Some(NodeId(self.parent[n.idx()])).filter(|p| p.0 != u32::MAX);
        let mut path: Vec<NodeId> = std::iter::successors(Some(n), up).collect();
        path.reverse();
        path
    }

    /// Each thread node's total (its own time, merged roots', plus its
    /// roots' totals), the children lists (CSR, in node order:
    /// [`Self::sort_children`] sorts them) and the thread list (by name).
    pub(crate) fn link(&mut self, trace: &Trace, threads: Vec<u32>) {
        // Parents come first: a thread's total is reset before its roots add.
        for n in 0..self.len() {
            let p = self.parent[n];
            if p == u32::MAX {
                self.total_ns[n] = self.self_ns[n];
            } else if self.parent[p as usize] == u32::MAX {
                self.total_ns[p as usize] =
                    self.total_ns[p as usize].saturating_add(self.total_ns[n]);
            }
        }
        let edges = (self.parent.iter().enumerate())
            .filter(|(_, p)| **p != u32::MAX)
            .map(|(n, &p)| (p, NodeId(n as u32)));
        (self.child_start, self.child_list) = children_lists(self.len(), edges);
        let mut threads: Vec<NodeId> = threads.into_iter().map(NodeId).collect();
        threads.sort_by(|a, b| self.label(trace, *a).cmp(self.label(trace, *b)));
        self.threads = threads;
    }

    /// Sorts the children lists of nodes `nodes` by total time descending,
    /// then name.
    pub(crate) fn sort_children(&mut self, trace: &Trace, nodes: Range<usize>) {
        let mut list = std::mem::take(&mut self.child_list);
        let start = &self.child_start;
        let by_total = |a: &NodeId, b: &NodeId| {
            self.total_ns[b.idx()]
                .cmp(&self.total_ns[a.idx()])
                .then_with(|| self.label(trace, *a).cmp(self.label(trace, *b)))
        };
        // Siblings have distinct names: an unstable sort is deterministic.
        for n in nodes {
            list[start[n] as usize..start[n + 1] as usize].sort_unstable_by(by_total);
        }
        self.child_list = list;
    }

    pub(crate) fn push(&mut self, name: StrId, parent: u32, depth: u32) -> u32 {
        let id = self.name.len() as u32;
        self.name.push(name);
        self.count.push(0);
        self.total_ns.push(0);
        self.self_ns.push(0);
        self.max_ns.push(0);
        self.min_ns.push(i64::MAX);
        self.parent.push(parent);
        self.depth.push(depth);
        id
    }
}

/// Merges the instances of frames `frames` (positions in file order),
/// optionally of threads named `thread` only.
pub fn merged_tree(trace: &Trace, frames: Range<u32>, thread: Option<&str>) -> MergedTree {
    merged_tree_levels(trace, frames, thread, u32::MAX)
}

/// [`merged_tree`] with `levels` levels of scopes (roots are level 1):
/// deeper instances are skipped while merging, not built and pruned (their
/// time is in their ancestors' totals all the same).
pub fn merged_tree_levels(
    trace: &Trace,
    frames: Range<u32>,
    thread: Option<&str>,
    levels: u32,
) -> MergedTree {
    MergedTreeBuilder::new(trace, frames, thread, levels)
        .step(trace, &mut || true)
        .expect("a build given all the time it needs ends")
}

/// A [`MergedTree`] built a slice at a time (a page's thread keeps drawing
/// between slices): frames merged stream by stream, then the children
/// lists made and sorted. [`merged_tree_levels`] is this run to its end.
pub struct MergedTreeBuilder {
    tree: MergedTree,
    /// Frames left to merge, the next first.
    frames: Range<u32>,
    levels: u32,
    /// `Some(None)`: a thread name the recording lacks (an empty tree).
    only: Option<Option<StrId>>,
    thread_node: FxHashMap<StrId, u32>,
    child_of: GroupIndex,
    stack: Vec<u32>,
    /// With [`Self::recording`]: each instance's node (`u32::MAX` for one
    /// not merged: another thread, deeper than `levels`).
    node_of: Option<Vec<u32>>,
    /// With [`Self::split_data`]: per definition, whether its instances
    /// are split by their data string.
    split: Option<Vec<bool>>,
    /// (name, data) -> label id, for the split names.
    split_label: FxHashMap<(StrId, StrId), StrId>,
}

impl MergedTreeBuilder {
    pub fn new(trace: &Trace, frames: Range<u32>, thread: Option<&str>, levels: u32) -> Self {
        let frames = clamp_frames(trace, frames);
        Self {
            tree: MergedTree {
                frames: frames.len(),
                ..Default::default()
            },
            frames,
            levels,
            only: thread.map(|t| trace.strings.find(t)),
            thread_node: FxHashMap::default(),
            child_of: GroupIndex::new(),
            stack: Vec::new(),
            node_of: None,
            split: None,
            split_label: FxHashMap::default(),
        }
    }

    /// Splits the nodes of the definitions `split` says yes to by their
    /// instances' data strings (`name [data]`; an instance without data
    /// keeps the plain name). `None`: nothing is split.
    pub fn split_data(mut self, split: Option<Vec<bool>>) -> Self {
        self.split = split;
        self
    }

    /// [`Self::new`], also keeping each instance's node (see
    /// [`Self::take_node_of`]).
    pub fn recording(trace: &Trace, frames: Range<u32>, thread: Option<&str>, levels: u32) -> Self {
        Self {
            node_of: Some(vec![u32::MAX; trace.scopes.len()]),
            ..Self::new(trace, frames, thread, levels)
        }
    }

    /// Each instance's node, once the tree is built (empty unless made
    /// [`Self::recording`]).
    pub fn take_node_of(&mut self) -> Vec<u32> {
        self.node_of.take().unwrap_or_default()
    }

    /// How far along, 0 to 1 (the merge; the last step, children lists,
    /// is counted as done).
    pub fn progress(&self) -> f32 {
        1.0 - self.frames.len() as f32 / self.tree.frames.max(1) as f32
    }

    /// Merges until `more` says stop (asked after each [`CHUNK`] of scopes
    /// or so, at the end of a stream); the tree once it is built.
    pub fn step(&mut self, trace: &Trace, more: &mut dyn FnMut() -> bool) -> Option<MergedTree> {
        let s = &trace.scopes;
        let def_name = &trace.defs.name;
        let Self {
            tree,
            levels,
            only,
            thread_node,
            child_of,
            stack,
            node_of,
            split,
            split_label,
            ..
        } = self;
        let mut merged = 0usize;
        for f in self.frames.by_ref() {
            for st in trace.frames.streams(FrameId(f)) {
                let tname = trace.threads.name[trace.streams.thread[st as usize].idx()];
                if only.is_some_and(|o| o != Some(tname)) {
                    continue;
                }
                let root = *thread_node
                    .entry(tname)
                    .or_insert_with(|| tree.push(tname, u32::MAX, 0));
                stack.clear();
                let scopes = trace.streams.scopes(StreamId(st));
                merged += scopes.len();
                for i in scopes {
                    let i = i as usize;
                    let depth = s.depth[i] as usize;
                    if depth >= *levels as usize {
                        continue;
                    }
                    stack.truncate(depth);
                    let parent = stack.last().copied().unwrap_or(root);
                    let def = s.def[i].idx();
                    let mut name = def_name[def];
                    if split.as_ref().is_some_and(|sp| sp[def]) && s.data[i] != StrId(0) {
                        let data = s.data[i];
                        name = *split_label.entry((name, data)).or_insert_with(|| {
                            tree.labels.push(Label {
                                text: format!("{} [{}]", trace.str(name), trace.str(data)),
                                scope: Some(name),
                                crate_name: None,
                            });
                            StrId((tree.labels.len() - 1) as u32 | LABEL_BIT)
                        });
                    }
                    let key = (u64::from(parent) << 32) | u64::from(name.0);
                    let node = child_of.get_or_insert(key, || {
                        tree.push(name, parent, tree.depth[parent as usize] + 1)
                    });
                    let n = node as usize;
                    let d = s.duration_ns[i];
                    tree.count[n] += 1;
                    tree.total_ns[n] = tree.total_ns[n].saturating_add(d);
                    tree.self_ns[n] = tree.self_ns[n].saturating_add(s.self_ns[i]);
                    tree.max_ns[n] = tree.max_ns[n].max(d);
                    tree.min_ns[n] = tree.min_ns[n].min(d);
                    if let Some(of) = node_of.as_mut() {
                        of[i] = node;
                    }
                    stack.push(node);
                }
            }
            if merged >= CHUNK {
                merged = 0;
                if !more() {
                    return None;
                }
            }
        }
        let mut tree = std::mem::take(tree);
        self.child_of = GroupIndex::new();
        // The nodes are in (parents before children): the children lists,
        // sorted, and the thread list.
        tree.link(trace, std::mem::take(thread_node).into_values().collect());
        tree.sort_children(trace, 0..tree.len());
        Some(tree)
    }
}

// ---------------------------------------------------------------------------
// The JSON answer of `puffin-lens tree`

/// The answer of `tree`: the merged tree down to the listed levels, with
/// the names it uses held once (names, not data strings: few even when
/// the tree is large). Serialized as nested
/// `{frames, threads: [{name, total_ns, roots: [{name, count, total_ns,
/// self_ns, max_ns, children}]}]}` while it is walked: no nested values
/// and no string per node are made.
#[derive(Clone, Debug, PartialEq)]
pub struct TreeReport {
    pub frames: usize,
    /// Its `name` column holds indices into `names`, not the trace's ids.
    tree: MergedTree,
    names: Vec<String>,
    /// Nodes deeper than this are counted in their ancestors, not listed.
    levels: u32,
    /// The transforms applied, and each thread's total before them (by
    /// thread node).
    applied: Option<(Applied, Vec<(NodeId, i64)>)>,
}

/// Levels a [`TreeReport`] lists at most: the nested answer is written
/// recursively, and a damaged recording may nest scopes arbitrarily deep.
/// Deeper nodes are counted in their ancestors, not listed.
pub const MAX_REPORT_LEVELS: u32 = 256;

/// A node of a [`TreeReport`] in the order it is listed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TreeRow<'r> {
    /// 0 for a thread, 1 for its roots.
    pub depth: u32,
    pub name: &'r str,
    /// Index of `name` among [`TreeReport::names`].
    pub name_index: u32,
    pub count: u64,
    pub total_ns: i64,
    pub self_ns: i64,
    pub max_ns: i64,
}

impl TreeReport {
    /// The report of `tree` (merged from `trace`), listing `depth` levels
    /// (roots are level 1; all, up to [`MAX_REPORT_LEVELS`], when `None`).
    /// Build `tree` with [`merged_tree_levels`] at [`Self::levels_of`] to
    /// merge no more than is listed.
    pub fn new(trace: &Trace, mut tree: MergedTree, depth: Option<u32>) -> Self {
        let mut local: FxHashMap<StrId, u32> = FxHashMap::default();
        let mut names = Vec::new();
        tree.name = tree
            .name
            .iter()
            .map(|&id| {
                StrId(*local.entry(id).or_insert_with(|| {
                    names.push(tree.label_of(trace, id).to_owned());
                    names.len() as u32 - 1
                }))
            })
            .collect();
        tree.labels.clear();
        TreeReport {
            frames: tree.frames,
            tree,
            names,
            levels: Self::levels_of(depth),
            applied: None,
        }
    }

    /// The report of a transformed tree: which transforms made it
    /// (`None`: none) and each thread node's total before them.
    pub fn with_applied(mut self, applied: Option<Applied>, recorded: Vec<(NodeId, i64)>) -> Self {
        self.applied = applied.map(|a| (a, recorded));
        self
    }

    /// The transforms applied (none for a plain tree).
    pub fn applied(&self) -> Option<&Applied> {
        self.applied.as_ref().map(|(a, _)| a)
    }

    /// Thread node `t`'s total before the transforms.
    pub fn recorded_total_ns(&self, t: NodeId) -> Option<i64> {
        let (_, rec) = self.applied.as_ref()?;
        rec.iter().find(|(n, _)| *n == t).map(|&(_, ns)| ns)
    }

    /// Per thread (by name) whose total the transforms changed: (name,
    /// shown total, recorded total).
    pub fn shown_of_recorded(&self) -> Vec<(&str, i64, i64)> {
        self.tree
            .threads
            .iter()
            .filter_map(|&t| {
                let rec = self.recorded_total_ns(t)?;
                let r = self.row(t);
                (rec != r.total_ns).then_some((r.name, r.total_ns, rec))
            })
            .collect()
    }

    /// The levels listed for `depth`.
    pub fn levels_of(depth: Option<u32>) -> u32 {
        depth.unwrap_or(MAX_REPORT_LEVELS).min(MAX_REPORT_LEVELS)
    }

    /// The distinct names, indexed by [`TreeRow::name_index`].
    pub fn names(&self) -> &[String] {
        &self.names
    }

    fn row(&self, n: NodeId) -> TreeRow<'_> {
        let (t, i) = (&self.tree, n.idx());
        TreeRow {
            depth: t.depth[i],
            name: &self.names[t.name[i].0 as usize],
            name_index: t.name[i].0,
            count: t.count[i],
            total_ns: t.total_ns[i],
            self_ns: t.self_ns[i],
            max_ns: t.max_ns[i],
        }
    }

    /// The listed children of `n`.
    fn children(&self, n: NodeId) -> &[NodeId] {
        if self.tree.depth[n.idx()] < self.levels {
            self.tree.children(n)
        } else {
            &[]
        }
    }

    /// Every listed node, threads included, depth first (a thread, then
    /// its roots and their children by total time), as the text lists them.
    pub fn rows(&self) -> impl Iterator<Item = TreeRow<'_>> {
        preorder(&self.tree.threads, |n| self.children(n)).map(|n| self.row(n))
    }
}

impl Serialize for TreeReport {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct as _;
        /// A thread (its roots listed) or a scope node (its children).
        struct Node<'r>(&'r TreeReport, NodeId);
        impl Serialize for Node<'_> {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                let (r, thread) = (self.0.row(self.1), self.0.tree.depth[self.1.idx()] == 0);
                let mut st =
                    s.serialize_struct(if thread { "TreeThread" } else { "TreeNode" }, 6)?;
                st.serialize_field("name", r.name)?;
                if !thread {
                    st.serialize_field("count", &r.count)?;
                }
                st.serialize_field("total_ns", &r.total_ns)?;
                if thread {
                    if let Some(ns) = self.0.recorded_total_ns(self.1) {
                        st.serialize_field("recorded_total_ns", &ns)?;
                    }
                } else {
                    st.serialize_field("self_ns", &r.self_ns)?;
                    st.serialize_field("max_ns", &r.max_ns)?;
                }
                let nodes = SeqOf(self.0.children(self.1).iter(), |&c| Node(self.0, c));
                st.serialize_field(if thread { "roots" } else { "children" }, &nodes)?;
                st.end()
            }
        }
        let mut st = s.serialize_struct("TreeReport", 4)?;
        st.serialize_field("frames", &self.frames)?;
        if let Some(a) = self.applied() {
            st.serialize_field("transforms", &a.transforms)?;
            st.serialize_field("warnings", &a.warnings)?;
        }
        let threads = SeqOf(self.tree.threads.iter(), |&t| Node(self, t));
        st.serialize_field("threads", &threads)?;
        st.end()
    }
}

// ---------------------------------------------------------------------------
// callers (the "sandwich" of a scope name)

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct CallerRow {
    /// `None` for a top-level instance (no caller).
    pub name: Option<String>,
    pub count: u64,
    pub total_ns: i64,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct CallersReport {
    pub name: String,
    pub count: u64,
    pub total_ns: i64,
    pub self_ns: i64,
    /// Instances grouped by their parent's name, summing their durations.
    pub callers: Vec<CallerRow>,
    /// Their direct children grouped by name, summing the children's durations.
    pub callees: Vec<CallerRow>,
    /// The transforms the tree it was read from had (see
    /// [`callers_in_tree`]).
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub applied: Option<Applied>,
}

/// Instances named `name` (by name only, not data), in file order.
pub fn instances_named(trace: &Trace, name: &str) -> Vec<ScopeIdx> {
    let Some(id) = trace.strings.find(name) else {
        return Vec::new();
    };
    let def_ok: Vec<bool> = trace.defs.name.iter().map(|&n| n == id).collect();
    let s = &trace.scopes;
    all_scopes(trace)
        .filter(|&i| def_ok[s.def[i as usize].idx()])
        .map(ScopeIdx)
        .collect()
}

/// Sorted rows of a name -> (count, total) grouping: total descending,
/// then name (`None` as "").
fn caller_rows<S: Into<String>>(
    groups: impl IntoIterator<Item = (Option<S>, (u64, i64))>,
) -> Vec<CallerRow> {
    let mut rows: Vec<CallerRow> = groups
        .into_iter()
        .map(|(name, (count, total_ns))| CallerRow {
            name: name.map(Into::into),
            count,
            total_ns,
        })
        .collect();
    rows.sort_by(|a, b| {
        b.total_ns.cmp(&a.total_ns).then_with(|| {
            a.name
                .as_deref()
                .unwrap_or("")
                .cmp(b.name.as_deref().unwrap_or(""))
        })
    });
    rows
}

/// Callers and callees of every instance named `name`, over all frames.
/// `None` when no scope has that name.
pub fn callers(trace: &Trace, name: &str) -> Option<CallersReport> {
    let hits = instances_named(trace, name);
    if hits.is_empty() {
        return None;
    }
    let s = &trace.scopes;
    let def_name = |i: ScopeIdx| trace.defs.name[s.def[i.idx()].idx()];
    let mut up: FxHashMap<Option<StrId>, (u64, i64)> = FxHashMap::default();
    let mut down: FxHashMap<Option<StrId>, (u64, i64)> = FxHashMap::default();
    let (mut total, mut self_total) = (0i64, 0i64);
    for &i in &hits {
        let d = s.duration_ns[i.idx()];
        total = total.saturating_add(d);
        self_total = self_total.saturating_add(s.self_ns[i.idx()]);
        let p = s.parent[i.idx()];
        let caller = (p != crate::engine::model::NO_PARENT).then(|| def_name(ScopeIdx(p)));
        let e = up.entry(caller).or_default();
        e.0 += 1;
        e.1 = e.1.saturating_add(d);
        for c in s.children(i) {
            let e = down.entry(Some(def_name(c))).or_default();
            e.0 += 1;
            e.1 = e.1.saturating_add(s.duration_ns[c.idx()]);
        }
    }
    Some(CallersReport {
        name: name.to_owned(),
        count: hits.len() as u64,
        total_ns: total,
        self_ns: self_total,
        callers: caller_rows(up.into_iter().map(|(n, x)| (n.map(|n| trace.str(n)), x))),
        callees: caller_rows(down.into_iter().map(|(n, x)| (n.map(|n| trace.str(n)), x))),
        applied: None,
    })
}

/// Totals per node name of a merged (transformed) tree, as `find
/// --aggregate --by name` rows (a name split by data is a row per data
/// string, `NAME [data]`): names starting with `prefix`, by total time
/// descending, then name; the first `n`, and how many names there are.
pub fn aggregate_in_tree(
    trace: &Trace,
    tree: &MergedTree,
    prefix: &str,
    n: usize,
) -> (Vec<super::AggregateRow>, usize) {
    let mut groups: BTreeMap<&str, (u64, i64, i64, i64, i64)> = BTreeMap::new();
    for i in 0..tree.len() {
        let label = tree.label(trace, NodeId(i as u32));
        if tree.parent[i] == u32::MAX || !label.starts_with(prefix) {
            continue;
        }
        let g = groups.entry(label).or_insert((0, 0, 0, i64::MAX, 0));
        g.0 += tree.count[i];
        g.1 = g.1.saturating_add(tree.total_ns[i]);
        g.2 = g.2.saturating_add(tree.self_ns[i]);
        g.3 = g.3.min(tree.min_ns[i]);
        g.4 = g.4.max(tree.max_ns[i]);
    }
    let total = groups.len();
    let mut rows: Vec<super::AggregateRow> = groups
        .into_iter()
        .filter(|(_, g)| g.0 > 0)
        .map(
            |(name, (count, total_ns, self_ns, min_ns, max_ns))| super::AggregateRow {
                name: name.to_owned(),
                data: None,
                count,
                total_ns,
                self_ns,
                min_ns,
                max_ns,
                mean_ns: total_ns as f64 / count as f64,
            },
        )
        .collect();
    // By name already: a stable sort by total.
    rows.sort_by_key(|r| std::cmp::Reverse(r.total_ns));
    rows.truncate(n);
    (rows, total)
}

/// [`callers`] read from a merged (transformed) tree: its nodes named
/// `name`, grouped by their parent's name, and their children by name.
/// On an untransformed tree of all frames it is [`callers`]' answer.
pub fn callers_in_tree(trace: &Trace, tree: &MergedTree, name: &str) -> Option<CallersReport> {
    let mut up: BTreeMap<Option<&str>, (u64, i64)> = BTreeMap::new();
    let mut down: BTreeMap<Option<&str>, (u64, i64)> = BTreeMap::new();
    let (mut count, mut total, mut self_total) = (0u64, 0i64, 0i64);
    let add = |m: &mut BTreeMap<_, (u64, i64)>, k, c: u64, t: i64| {
        let e = m.entry(k).or_default();
        e.0 += c;
        e.1 = e.1.saturating_add(t);
    };
    for i in 0..tree.len() {
        let n = NodeId(i as u32);
        let p = tree.parent[i];
        if p == u32::MAX || tree.label(trace, n) != name {
            continue;
        }
        count += tree.count[i];
        total = total.saturating_add(tree.total_ns[i]);
        self_total = self_total.saturating_add(tree.self_ns[i]);
        let caller = (tree.parent[p as usize] != u32::MAX).then(|| tree.label(trace, NodeId(p)));
        add(&mut up, caller, tree.count[i], tree.total_ns[i]);
        for &c in tree.children(n) {
            let k = Some(tree.label(trace, c));
            add(&mut down, k, tree.count[c.idx()], tree.total_ns[c.idx()]);
        }
    }
    if count == 0 {
        return None;
    }
    Some(CallersReport {
        name: name.to_owned(),
        count,
        total_ns: total,
        self_ns: self_total,
        callers: caller_rows(up),
        callees: caller_rows(down),
        applied: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::model::TraceBuilder;

    /// A frame whose one thread nests `levels` scopes, one inside the other.
    fn nested(levels: u32) -> Trace {
        let mut b = TraceBuilder::new();
        b.begin_frame(0, (0, 1_000_000), u64::from(levels));
        let t = b.thread(None, "main");
        let s = b.begin_stream(t);
        let d = b.def_for_raw_id(1);
        for k in 0..levels {
            b.open_scope(d, i64::from(k), StrId(0), s);
        }
        for k in (0..levels).rev() {
            b.close_scope(1_000_000 - 2 * i64::from(k));
        }
        b.end_stream(s, u64::from(levels), u64::from(levels), (0, 1_000_000));
        b.finish()
    }

    #[test]
    fn deep_nesting_is_merged_and_reported_without_recursing_past_the_cap() {
        let trace = nested(20_000);
        let tree = merged_tree(&trace, 0..1, None);
        assert_eq!(tree.len(), 20_001, "a thread node and one node per level");
        let report = TreeReport::new(&trace, tree, None);
        let json = serde_json::to_string(&report).expect("serializes");
        // Too deep for serde_json's parser: the rows say what is listed.
        let deepest = report.rows().last().expect("listed");
        assert_eq!(deepest.depth, MAX_REPORT_LEVELS);
        assert_eq!(deepest.count, 1);
        assert_eq!(
            json.matches("\"children\"").count(),
            MAX_REPORT_LEVELS as usize
        );
        assert_eq!(report.rows().count(), 1 + MAX_REPORT_LEVELS as usize);
        // Merged no deeper than listed, the same answer.
        let levels = TreeReport::levels_of(None);
        let pruned = merged_tree_levels(&trace, 0..1, None, levels);
        assert_eq!(pruned.len(), 1 + MAX_REPORT_LEVELS as usize);
        let pruned = TreeReport::new(&trace, pruned, None);
        assert_eq!(serde_json::to_string(&pruned).expect("serializes"), json);
    }
}
