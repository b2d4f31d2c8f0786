//! The tree view, two modes. *Merged*: the merged call tree of the frame
//! selection (threads as top rows). *Frame*: the instance tree of one frame
//! in time order, with synthetic gap rows where unprofiled time reaches a
//! threshold (on a thread that runs tasks, [`analyses::ThreadRoles`], the
//! stretches between its top-level scopes are idle rows: waiting, not
//! unprofiled work). Rows are a flat vector of what is expanded, rebuilt when the
//! expansion, the data or the search changes, never per repaint; the table
//! draws only the visible rows.

use super::widgets::{Pointing, TRANSFORM_KEYS, busy_lines, rows_table, transform_menu, triangle};
use crate::app::loaded::Loaded;
use crate::app::nav::Matcher;
use crate::engine::analyses::transform::{Applier, Stack, Target, Transform};
use crate::engine::analyses::tree::{MergedTree, MergedTreeBuilder, NodeId};
use crate::engine::analyses::{self, BusyThread, WindowThread};
use crate::engine::model::NO_PARENT;
use crate::engine::{FrameId, ScopeIdx, StreamId, Trace};
use crate::units::{ms, thread_label};
use egui::{Color32, RichText, Sense};
use egui_extras::Column;
use rustc_hash::FxHashSet;
use std::ops::Range;
use std::sync::Arc;

const ROW_HEIGHT: f32 = 18.0;

const MATCH: Color32 = Color32::from_rgb(255, 200, 60);
const GAP: Color32 = Color32::from_rgb(200, 120, 120);
/// Idle rows: a thread that runs tasks waiting between them.
const IDLE: Color32 = Color32::from_rgb(140, 140, 150);
/// A gap row's label: unprofiled time.
pub const GAP_LABEL: &str = "… unprofiled gap";
/// An idle row's label: a task thread waiting between its top-level scopes.
pub const IDLE_LABEL: &str = "… idle (waiting for work)";
/// Matches expanded to by a search, at most.
const MAX_REVEALED: usize = 10_000;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum TreeMode {
    #[default]
    Merged,
    Frame,
}

impl TreeMode {
    pub fn as_str(self) -> &'static str {
        match self {
            TreeMode::Merged => "merged",
            TreeMode::Frame => "frame",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "merged" => Some(TreeMode::Merged),
            "frame" => Some(TreeMode::Frame),
            _ => None,
        }
    }
}

/// How much to expand.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Expand {
    All,
    /// Follow the largest child from every thread.
    Hot,
    /// This many levels below the threads.
    Levels(u32),
}

/// A row of the frame-mode tree.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FrameRow {
    /// A thread stream of the frame.
    Thread(StreamId),
    Scope(ScopeIdx),
    /// Unprofiled time at `depth` (1 = between top-level scopes), or
    /// `idle` time: between top-level scopes of a thread that runs tasks
    /// (waiting for work, not unprofiled).
    Gap {
        depth: u32,
        start_ns: i64,
        duration_ns: i64,
        idle: bool,
    },
}

/// What ran while a selected gap row's thread was not profiled (or idle).
pub struct GapWindow {
    pub thread: String,
    /// The row is an idle one (the thread runs tasks and waited).
    pub idle: bool,
    pub start_ns: i64,
    pub end_ns: i64,
    /// Other threads' busy time inside the gap.
    pub busy: Vec<BusyThread>,
    /// The `window` query: the slowest scopes that ran entirely inside it.
    pub window: Vec<WindowThread>,
}

/// What a click in the tree asks of the app.
pub enum TreeAction {
    /// Open the details of this scope name.
    Select(String),
    /// Zoom the timeline to this instance.
    ShowInTimeline(ScopeIdx),
    /// Push this transform on the stack (the row's menu).
    Transform(Transform),
}

pub struct TreeView {
    loaded: Arc<Loaded>,
    mode: TreeMode,
    /// Gap rows from this much unprofiled time (frame mode).
    gap_ns: i64,
    filter: (String, bool),

    // Merged mode: the tree of `merged_frames`, transformed by `stack`.
    merged_frames: Option<Range<u32>>,
    merged: MergedTree,
    /// The tree as merged, before the transforms (kept while a stack is
    /// applied, so another stack is applied without merging again).
    m_base: Option<MergedTree>,
    stack: Stack,
    /// What the stack matched nothing of.
    m_warnings: Vec<String>,
    /// While the stack is applied a slice per frame (in the browser): the
    /// application and when it started.
    m_apply: Option<(Applier, web_time::Instant)>,
    m_expanded: Vec<bool>,
    m_match: Vec<bool>,
    m_rows: Vec<NodeId>,
    m_selected: Option<NodeId>,
    /// While the merged tree is built a slice per frame (in the browser):
    /// the build and when it started, and how `expand` asked it opened.
    m_build: Option<(MergedTreeBuilder, web_time::Instant)>,
    m_expand: Option<Expand>,
    /// Whether a merged tree is built a slice per frame ([`Self::set_sliced`]).
    sliced: bool,

    // Frame mode: the instance tree of `frame`.
    frame: Option<FrameId>,
    f_expanded: FxHashSet<u32>,
    f_threads_open: FxHashSet<u32>,
    f_match: FxHashSet<u32>,
    f_rows: Vec<FrameRow>,
    f_selected: Option<FrameRow>,
    gap_window: Option<GapWindow>,
    /// Which threads run tasks (their top-level stretches are idle rows),
    /// worked out when frame rows are first built.
    roles: Option<analyses::ThreadRoles>,

    scroll_to: Option<usize>,
}

impl TreeView {
    pub fn new(loaded: Arc<Loaded>) -> Self {
        Self {
            loaded,
            mode: TreeMode::Merged,
            gap_ns: 1_000_000,
            filter: (String::new(), false),
            merged_frames: None,
            merged: MergedTree::default(),
            m_base: None,
            stack: Stack::default(),
            m_warnings: Vec::new(),
            m_apply: None,
            m_expanded: Vec::new(),
            m_match: Vec::new(),
            m_rows: Vec::new(),
            m_selected: None,
            m_build: None,
            m_expand: None,
            sliced: false,
            frame: None,
            f_expanded: FxHashSet::default(),
            f_threads_open: FxHashSet::default(),
            f_match: FxHashSet::default(),
            f_rows: Vec::new(),
            f_selected: None,
            gap_window: None,
            roles: None,
            scroll_to: None,
        }
    }

    fn trace(&self) -> &Trace {
        self.loaded.trace()
    }

    pub fn mode(&self) -> TreeMode {
        self.mode
    }

    pub fn set_mode(&mut self, mode: TreeMode) {
        self.mode = mode;
    }

    pub fn gap_ms(&self) -> f64 {
        self.gap_ns as f64 / 1e6
    }

    pub fn set_gap_ms(&mut self, gap_ms: f64) {
        let gap_ns = (gap_ms.max(0.0) * 1e6).round() as i64;
        if gap_ns != self.gap_ns {
            self.gap_ns = gap_ns;
            self.rebuild_frame_rows();
        }
    }

    pub fn merged(&self) -> &MergedTree {
        &self.merged
    }

    /// The merged rows shown (thread and scope nodes, in display order).
    pub fn merged_rows(&self) -> &[NodeId] {
        &self.m_rows
    }

    /// The frame-mode rows shown.
    pub fn frame_rows(&self) -> &[FrameRow] {
        &self.f_rows
    }

    pub fn frame(&self) -> Option<FrameId> {
        self.frame
    }

    pub fn gap_window(&self) -> Option<&GapWindow> {
        self.gap_window.as_ref()
    }

    pub fn selected_frame_row(&self) -> Option<FrameRow> {
        self.f_selected
    }

    /// Brings the merged tree to the frame selection (computed when it changes).
    /// Merges frames `frames`: at once natively; in the browser a slice per
    /// frame ([`Self::step_merged`], which `ui` calls), the first slice now
    /// (a small tree is done in it).
    pub fn set_merged_frames(&mut self, frames: Range<u32>) {
        if self.start_merged_frames(frames) {
            self.step_merged(self.sliced.then_some(super::BUILD_SLICE));
        }
    }

    /// Starts merging frames `frames` if they changed (whether they did), to
    /// be built by [`Self::step_merged`].
    pub fn start_merged_frames(&mut self, frames: Range<u32>) -> bool {
        if self.merged_frames.as_ref() == Some(&frames) {
            return false;
        }
        let trace = self.loaded.trace();
        let builder = MergedTreeBuilder::new(trace, frames.clone(), None, u32::MAX)
            .split_data(self.stack.split_defs(trace));
        self.m_build = Some((builder, web_time::Instant::now()));
        self.merged_frames = Some(frames);
        self.merged = MergedTree::default();
        self.m_base = None;
        self.m_apply = None;
        self.m_expanded.clear();
        self.m_match.clear();
        self.m_rows.clear();
        self.m_selected = None;
        true
    }

    /// Builds the merged tree for at most `budget` (all of it when `None`),
    /// then opens it on its hottest paths (or as `expand` asked meanwhile);
    /// whether it is still being built.
    pub fn step_merged(&mut self, budget: Option<web_time::Duration>) -> bool {
        if self.m_apply.is_some() {
            return self.step_apply(budget.map(|b| b.min(super::TRANSFORM_SLICE)));
        }
        let Some((builder, build_started)) = self.m_build.as_mut() else {
            return false;
        };
        let started = web_time::Instant::now();
        let mut more = || budget.is_none_or(|b| started.elapsed() < b);
        let Some(tree) = builder.step(self.loaded.trace(), &mut more) else {
            return true;
        };
        log::info!(
            "{}: merged tree of {} frames ({} nodes) in {:.1} ms",
            self.loaded.name,
            tree.frames,
            tree.len(),
            build_started.elapsed().as_secs_f64() * 1e3
        );
        self.m_build = None;
        self.merged = tree;
        self.m_base = None;
        let how = self.m_expand.take().unwrap_or(Expand::Hot);
        self.transform_merged(how, false);
        false
    }

    /// The transforms the merged tree shows.
    pub fn transforms(&self) -> &Stack {
        &self.stack
    }

    /// What the transforms matched nothing of.
    pub fn transform_warnings(&self) -> &[String] {
        &self.m_warnings
    }

    /// Shows the merged tree through `stack` (applied to the tree as
    /// merged: nothing is merged again).
    pub fn set_transforms(&mut self, stack: &Stack) {
        if &self.stack == stack {
            return;
        }
        let remerge = self.stack.splits() != stack.splits();
        self.stack = stack.clone();
        if remerge && let Some(frames) = self.merged_frames.take() {
            // Split by data: merged again, with the data.
            self.set_merged_frames(frames);
        } else if self.m_build.is_none() && self.merged_frames.is_some() {
            self.m_apply = None;
            self.transform_merged(Expand::Hot, true);
        }
    }

    /// `merged` from `m_base` through the stack, then opened as `how` says:
    /// at once natively, a slice per frame in the browser
    /// ([`Self::step_merged`] does it).
    fn transform_merged(&mut self, how: Expand, first_slice_now: bool) {
        let base = match self.m_base.take() {
            Some(base) => base,
            None => std::mem::take(&mut self.merged),
        };
        if self.stack.is_empty() {
            self.m_apply = None;
            self.merged = base;
            self.m_warnings.clear();
            self.opened(how);
            return;
        }
        self.m_apply = Some((Applier::new(&base, &self.stack), web_time::Instant::now()));
        self.m_base = Some(base);
        self.merged = MergedTree::default();
        self.m_expanded.clear();
        self.m_rows.clear();
        self.m_expand = Some(how);
        // The first slice now (a small tree is done in it), unless this
        // frame spent its slice merging: the next frames go on.
        if !self.sliced {
            self.step_apply(None);
        } else if first_slice_now {
            self.step_apply(Some(super::TRANSFORM_SLICE));
        }
    }

    /// Applies the stack for at most `budget` (all of it when `None`);
    /// whether it is still being applied.
    fn step_apply(&mut self, budget: Option<web_time::Duration>) -> bool {
        let (Some((applier, started)), Some(base)) = (self.m_apply.as_mut(), self.m_base.as_ref())
        else {
            return false;
        };
        let slice = web_time::Instant::now();
        let mut more = || budget.is_none_or(|b| slice.elapsed() < b);
        let Some(t) = applier.step(self.loaded.trace(), base, &mut more) else {
            return true;
        };
        log::info!(
            "{}: transforms {} on {} nodes in {:.1} ms",
            self.loaded.name,
            self.stack,
            base.len(),
            started.elapsed().as_secs_f64() * 1e3
        );
        self.m_apply = None;
        self.merged = t.tree;
        self.m_warnings = t.warnings;
        let how = self.m_expand.take().unwrap_or(Expand::Hot);
        self.opened(how);
        false
    }

    /// The merged tree shown: opened as `how` says, the search's matches
    /// marked.
    fn opened(&mut self, how: Expand) {
        self.m_expanded = vec![false; self.merged.len()];
        self.m_selected = None;
        self.expand_merged(how);
        self.refresh_merged_matches();
    }

    /// Builds merged trees a slice per frame (the browser's single thread),
    /// the first slice when the frames are set; else at once.
    pub fn set_sliced(&mut self, sliced: bool) {
        self.sliced = sliced;
    }

    /// While the merged tree is being built: how far along, 0 to 1.
    pub fn building(&self) -> Option<f32> {
        match (&self.m_build, &self.m_apply) {
            (Some((b, _)), _) => Some(b.progress()),
            (None, Some((a, _))) => Some(a.progress()),
            (None, None) => None,
        }
    }

    /// Shows frame `f` in frame mode (its threads open, top level listed).
    pub fn set_frame(&mut self, f: Option<FrameId>) {
        if f == self.frame {
            return;
        }
        self.frame = f;
        self.f_expanded.clear();
        self.f_threads_open = match f {
            Some(f) => self.trace().frames.streams(f).collect(),
            None => FxHashSet::default(),
        };
        self.f_selected = None;
        self.gap_window = None;
        // What a user opens first: the way to the slowest scope of each thread.
        self.expand_frame(Expand::Hot);
        self.refresh_frame_matches();
    }

    /// The search (the app's scope filter): expands to matches and highlights them.
    pub fn set_filter(&mut self, filter: &str, substring: bool) {
        if self.filter.0 == filter && self.filter.1 == substring {
            return;
        }
        self.filter = (filter.to_owned(), substring);
        self.refresh_merged_matches();
        self.refresh_frame_matches();
    }

    pub fn expand(&mut self, how: Expand) {
        match self.mode {
            // Once it is built, if it is being built.
            TreeMode::Merged if self.m_build.is_some() || self.m_apply.is_some() => {
                self.m_expand = Some(how)
            }
            TreeMode::Merged => self.expand_merged(how),
            TreeMode::Frame => self.expand_frame(how),
        }
    }

    fn expand_merged(&mut self, how: Expand) {
        let t = &self.merged;
        self.m_expanded.fill(false);
        if how != Expand::Levels(0) {
            for &th in &t.threads {
                self.m_expanded[th.idx()] = true;
            }
        }
        match how {
            Expand::All => self.m_expanded.fill(true),
            Expand::Levels(n) => {
                for i in 0..t.len() {
                    if t.depth[i] < n {
                        self.m_expanded[i] = true;
                    }
                }
            }
            Expand::Hot => {
                for &th in &t.threads {
                    let mut n = th;
                    while let Some(&c) = t.children(n).first() {
                        self.m_expanded[n.idx()] = true;
                        n = c;
                    }
                }
            }
        }
        self.rebuild_merged_rows();
    }

    fn expand_frame(&mut self, how: Expand) {
        let Some(f) = self.frame else {
            return;
        };
        let trace = self.loaded.trace();
        let range = analyses::frame_scopes(trace, f);
        let s = &trace.scopes;
        self.f_threads_open = if how == Expand::Levels(0) {
            FxHashSet::default()
        } else {
            trace.frames.streams(f).collect()
        };
        self.f_expanded.clear();
        match how {
            Expand::All => self.f_expanded.extend(range),
            Expand::Levels(n) => {
                self.f_expanded
                    .extend(range.filter(|&i| s.depth[i as usize] + 1 < n));
            }
            Expand::Hot => {
                for st in trace.frames.streams(f) {
                    let top = s.top_level(trace.streams.scopes(StreamId(st)));
                    let mut cur =
                        top.max_by_key(|&i| (s.duration_ns[i.idx()], std::cmp::Reverse(i.0)));
                    while let Some(i) = cur {
                        self.f_expanded.insert(i.0);
                        cur = s
                            .children(i)
                            .max_by_key(|&c| (s.duration_ns[c.idx()], std::cmp::Reverse(c.0)));
                    }
                }
            }
        }
        self.rebuild_frame_rows();
    }

    fn refresh_merged_matches(&mut self) {
        let matcher = Matcher::new(&self.filter.0, self.filter.1);
        let trace = self.loaded.trace();
        let t = &self.merged;
        self.m_match = vec![false; t.len()];
        if !matcher.is_empty() {
            let mut revealed = 0;
            for n in 0..t.len() {
                if t.parent[n] == u32::MAX || !matcher.test(t.label(trace, NodeId(n as u32))) {
                    continue;
                }
                self.m_match[n] = true;
                if revealed < MAX_REVEALED {
                    revealed += 1;
                    let mut p = t.parent[n];
                    while p != u32::MAX {
                        self.m_expanded[p as usize] = true;
                        p = t.parent[p as usize];
                    }
                }
            }
        }
        self.rebuild_merged_rows();
        if let Some(first) = self.m_rows.iter().position(|n| self.m_match[n.idx()]) {
            self.scroll_to = Some(first);
        }
    }

    fn refresh_frame_matches(&mut self) {
        self.f_match.clear();
        let matcher = Matcher::new(&self.filter.0, self.filter.1);
        if let (Some(f), false) = (self.frame, matcher.is_empty()) {
            let trace = self.loaded.trace();
            let s = &trace.scopes;
            let mut revealed = 0;
            for i in analyses::frame_scopes(trace, f) {
                let si = ScopeIdx(i);
                if !(matcher.test(trace.scope_name(si)) || matcher.test(trace.scope_data(si))) {
                    continue;
                }
                self.f_match.insert(i);
                if revealed < MAX_REVEALED {
                    revealed += 1;
                    let mut p = s.parent[i as usize];
                    while p != NO_PARENT {
                        self.f_expanded.insert(p);
                        p = s.parent[p as usize];
                    }
                }
            }
        }
        self.rebuild_frame_rows();
        if let Some(first) = self
            .f_rows
            .iter()
            .position(|r| matches!(r, FrameRow::Scope(i) if self.f_match.contains(&i.0)))
        {
            self.scroll_to = Some(first);
        }
    }

    fn rebuild_merged_rows(&mut self) {
        let t = &self.merged;
        let mut rows = Vec::new();
        let mut stack: Vec<NodeId> = t.threads.iter().rev().copied().collect();
        while let Some(n) = stack.pop() {
            rows.push(n);
            if self.m_expanded.get(n.idx()).copied().unwrap_or(false) {
                stack.extend(t.children(n).iter().rev());
            }
        }
        self.m_rows = rows;
    }

    fn rebuild_frame_rows(&mut self) {
        let Some(f) = self.frame else {
            self.f_rows.clear();
            return;
        };
        let loaded = self.loaded.clone();
        let trace = loaded.trace();
        let s = &trace.scopes;
        let roles = self
            .roles
            .take()
            .unwrap_or_else(|| analyses::ThreadRoles::of(trace));
        let mut streams: Vec<u32> = trace.frames.streams(f).collect();
        streams.sort_by(|&a, &b| {
            trace
                .thread_name(trace.streams.thread[a as usize])
                .cmp(trace.thread_name(trace.streams.thread[b as usize]))
        });
        let by_time = |mut v: Vec<ScopeIdx>| {
            v.sort_by_key(|&c| (s.start_ns[c.idx()], c.0));
            v
        };
        let mut rows = Vec::new();
        // (scope, children pending in time order, position, previous end)
        for st in streams {
            rows.push(FrameRow::Thread(StreamId(st)));
            if !self.f_threads_open.contains(&st) {
                continue;
            }
            let top = by_time(s.top_level(trace.streams.scopes(StreamId(st))).collect());
            // A task thread's stretches between top-level scopes: waiting.
            let idle = roles.runs_tasks(StreamId(st));
            let mut prev_end: Option<i64> = None;
            for &i in &top {
                if let Some(end) = prev_end {
                    self.push_gap(&mut rows, 1, end, s.start_ns[i.idx()], idle);
                }
                self.push_scope(&mut rows, trace, i);
                prev_end = Some(prev_end.map_or(s.end_ns(i), |e| e.max(s.end_ns(i))));
            }
        }
        self.roles = Some(roles);
        self.f_rows = rows;
    }

    fn push_gap(&self, rows: &mut Vec<FrameRow>, depth: u32, from: i64, to: i64, idle: bool) {
        let d = to.saturating_sub(from);
        if d >= self.gap_ns.max(1) {
            rows.push(FrameRow::Gap {
                depth,
                start_ns: from,
                duration_ns: d,
                idle,
            });
        }
    }

    /// Pushes `i` and, when expanded, its subtree (iteratively: nesting may be deep).
    fn push_scope(&self, rows: &mut Vec<FrameRow>, trace: &Trace, root: ScopeIdx) {
        let s = &trace.scopes;
        enum Step {
            Scope(ScopeIdx),
            Gap(u32, i64, i64),
        }
        let mut stack = vec![Step::Scope(root)];
        while let Some(step) = stack.pop() {
            let i = match step {
                Step::Gap(depth, from, to) => {
                    self.push_gap(rows, depth, from, to, false);
                    continue;
                }
                Step::Scope(i) => i,
            };
            rows.push(FrameRow::Scope(i));
            if !self.f_expanded.contains(&i.0) {
                continue;
            }
            let mut kids: Vec<ScopeIdx> = s.children(i).collect();
            if kids.is_empty() {
                continue; // a leaf: all its time is its own, no gap
            }
            kids.sort_by_key(|&c| (s.start_ns[c.idx()], c.0));
            let depth = s.depth[i.idx()] + 2;
            // Pushed in reverse: trailing gap, then (child, gap before it)…
            let mut steps = Vec::with_capacity(kids.len() * 2 + 1);
            let mut prev_end = s.start_ns[i.idx()];
            for &c in &kids {
                steps.push(Step::Gap(depth, prev_end, s.start_ns[c.idx()]));
                steps.push(Step::Scope(c));
                prev_end = prev_end.max(s.end_ns(c));
            }
            steps.push(Step::Gap(depth, prev_end, s.end_ns(i)));
            stack.extend(steps.into_iter().rev());
        }
    }

    /// Frame mode on the frame of instance `i`, its ancestors expanded, it selected.
    pub fn reveal(&mut self, i: ScopeIdx) {
        let f = self.trace().scope_frame(i);
        self.mode = TreeMode::Frame;
        self.set_frame(Some(f));
        let stream = self.trace().scopes.stream[i.idx()];
        self.f_threads_open.insert(stream.0);
        let mut p = self.trace().scopes.parent[i.idx()];
        while p != NO_PARENT {
            self.f_expanded.insert(p);
            p = self.trace().scopes.parent[p as usize];
        }
        self.rebuild_frame_rows();
        self.f_selected = Some(FrameRow::Scope(i));
        self.scroll_to = self.f_rows.iter().position(|r| *r == FrameRow::Scope(i));
    }

    fn toggle_merged(&mut self, n: NodeId) {
        if let Some(e) = self.m_expanded.get_mut(n.idx()) {
            *e = !*e;
            self.rebuild_merged_rows();
        }
    }

    fn toggle_frame(&mut self, row: FrameRow) {
        match row {
            FrameRow::Thread(st) => {
                if !self.f_threads_open.remove(&st.0) {
                    self.f_threads_open.insert(st.0);
                }
            }
            FrameRow::Scope(i) => {
                if !self.f_expanded.remove(&i.0) {
                    self.f_expanded.insert(i.0);
                }
            }
            FrameRow::Gap { .. } => return,
        }
        self.rebuild_frame_rows();
    }

    /// Selects a frame-mode row; a gap row shows what ran meanwhile.
    pub fn select_frame_row(&mut self, row: FrameRow) -> Option<TreeAction> {
        self.f_selected = Some(row);
        self.gap_window = None;
        match row {
            FrameRow::Scope(i) => Some(TreeAction::Select(self.trace().scope_name(i).to_owned())),
            FrameRow::Gap {
                start_ns,
                duration_ns,
                idle,
                ..
            } => {
                let end = start_ns.saturating_add(duration_ns);
                let thread = self.gap_thread(row).unwrap_or_default();
                let trace = self.loaded.trace();
                self.gap_window = Some(GapWindow {
                    busy: analyses::busy_in(trace, start_ns, end, Some(&thread)),
                    window: analyses::window(trace, start_ns, end, 5)
                        .into_iter()
                        .filter(|w| w.thread != thread)
                        .collect(),
                    thread,
                    idle,
                    start_ns,
                    end_ns: end,
                });
                None
            }
            FrameRow::Thread(_) => None,
        }
    }

    /// The thread name a frame-mode row belongs to.
    fn gap_thread(&self, row: FrameRow) -> Option<String> {
        let pos = self.f_rows.iter().position(|r| *r == row)?;
        self.f_rows[..pos].iter().rev().find_map(|r| match r {
            FrameRow::Thread(st) => Some(
                self.trace()
                    .thread_name(self.trace().streams.thread[st.idx()])
                    .to_owned(),
            ),
            _ => None,
        })
    }

    /// The rows as `puffinLens.ui()` lists them (at most `limit`).
    pub fn rows_json(&self, limit: usize) -> Vec<serde_json::Value> {
        use serde_json::json;
        let trace = self.trace();
        match self.mode {
            TreeMode::Merged => {
                let t = &self.merged;
                self.m_rows
                    .iter()
                    .take(limit)
                    .map(|&n| {
                        let i = n.idx();
                        if t.parent[i] == u32::MAX {
                            json!({"depth": 0, "thread": t.label(trace, NodeId(i as u32))})
                        } else {
                            json!({"depth": t.depth[i], "name": t.label(trace, NodeId(i as u32)),
                                "count": t.count[i], "total_ns": t.total_ns[i], "self_ns": t.self_ns[i]})
                        }
                    })
                    .collect()
            }
            TreeMode::Frame => self
                .f_rows
                .iter()
                .take(limit)
                .map(|r| match *r {
                    FrameRow::Thread(st) => json!({"depth": 0,
                        "thread": trace.thread_name(trace.streams.thread[st.idx()])}),
                    FrameRow::Scope(i) => json!({"depth": trace.scopes.depth[i.idx()] + 1,
                        "name": trace.scope_name(i), "data": trace.scope_data(i),
                        "start_ns": trace.scopes.start_ns[i.idx()],
                        "duration_ns": trace.scopes.duration_ns[i.idx()],
                        "self_ns": trace.scopes.self_ns[i.idx()]}),
                    FrameRow::Gap {
                        depth,
                        start_ns,
                        duration_ns,
                        idle: false,
                    } => json!({"depth": depth, "gap": true, "start_ns": start_ns,
                        "duration_ns": duration_ns}),
                    FrameRow::Gap {
                        depth,
                        start_ns,
                        duration_ns,
                        idle: true,
                    } => json!({"depth": depth, "gap": true, "idle": true,
                        "start_ns": start_ns, "duration_ns": duration_ns}),
                })
                .collect(),
        }
    }

    pub fn ui(&mut self, ui: &mut egui::Ui) -> Option<TreeAction> {
        let mut action = None;
        ui.horizontal(|ui| {
            for mode in [TreeMode::Merged, TreeMode::Frame] {
                let label = match mode {
                    TreeMode::Merged => "Merged",
                    TreeMode::Frame => "Frame",
                };
                if ui
                    .selectable_label(self.mode == mode, label)
                    .on_hover_text(match mode {
                        TreeMode::Merged => "Every instance merged by its path of scope names, over the frame selection",
                        TreeMode::Frame => "The instances of one frame in time order, with unprofiled gaps (and idle time on threads that run tasks)",
                    })
                    .clicked()
                {
                    self.mode = mode;
                }
            }
            ui.separator();
            if ui
                .button("Expand hottest path")
                .on_hover_text("From every thread, follow the largest child")
                .clicked()
            {
                self.expand(Expand::Hot);
            }
            if ui.button("Expand all").clicked() {
                self.expand(Expand::All);
            }
            if ui.button("Collapse").clicked() {
                self.expand(Expand::Levels(0));
            }
            if self.mode == TreeMode::Frame {
                if let Some(FrameRow::Scope(i)) = self.f_selected
                    && ui
                        .button("Show in timeline")
                        .on_hover_text("Zoom the timeline to the selected scope")
                        .clicked()
                {
                    action = Some(TreeAction::ShowInTimeline(i));
                }
                ui.separator();
                let mut gap_ms = self.gap_ms();
                ui.label("gap rows from");
                if ui
                    .add(
                        egui::DragValue::new(&mut gap_ms)
                            .range(0.0..=1000.0)
                            .speed(0.05)
                            .suffix(" ms"),
                    )
                    .changed()
                {
                    self.set_gap_ms(gap_ms);
                }
            }
        });
        if self.step_merged(Some(super::BUILD_SLICE)) {
            ui.ctx().request_repaint();
        }
        match self.mode {
            TreeMode::Merged if self.m_build.is_some() || self.m_apply.is_some() => {
                let done = self.building().unwrap_or(0.0);
                ui.horizontal(|ui| {
                    ui.spinner();
                    let what = if self.m_apply.is_some() {
                        "Applying the transforms"
                    } else {
                        "Merging the call tree"
                    };
                    ui.label(format!("{what}: {:.0}%", 100.0 * done));
                });
            }
            TreeMode::Merged => {
                let frames = self.merged.frames;
                ui.label(
                    RichText::new(format!(
                        "{frames} frame(s) merged · {} nodes · click a row for its details, the triangle to expand",
                        self.merged.len().saturating_sub(self.merged.threads.len())
                    ))
                    .weak(),
                );
                self.merged_table(ui, &mut action);
            }
            TreeMode::Frame => {
                let trace = self.loaded.trace();
                match self.frame {
                    Some(f) => {
                        ui.label(
                            RichText::new(format!(
                                "frame {} · {} ms · unprofiled gaps of at least {} ms shown in red, idle time (a thread that runs tasks waiting between them) in grey; click a gap to see what other threads ran",
                                trace.frames.frame_index[f.idx()],
                                ms(trace.frames.duration_ns(f)),
                                self.gap_ms()
                            ))
                            .weak(),
                        );
                    }
                    None => {
                        ui.label("No frame selected: select one on the overview.");
                        return None;
                    }
                }
                if self.gap_window.is_some() {
                    self.gap_panel(ui);
                }
                self.frame_table(ui, &mut action);
            }
        }
        action
    }

    fn gap_panel(&mut self, ui: &mut egui::Ui) {
        let Some(g) = &self.gap_window else {
            return;
        };
        let mut close = false;
        egui::Frame::group(ui.style()).show(ui, |ui| {
            ui.horizontal(|ui| {
                ui.strong(format!(
                    "{} of {} ms on {}",
                    if g.idle { "Idle time" } else { "Gap" },
                    ms(g.end_ns - g.start_ns),
                    thread_label(&g.thread)
                ));
                ui.label(RichText::new(format!("{}..{} ns", g.start_ns, g.end_ns)).weak());
                close = ui.small_button("close").clicked();
            });
            if g.busy.is_empty() {
                ui.label("No other thread was busy meanwhile.");
            }
            busy_lines(ui, &g.busy, &g.window);
        });
        if close {
            self.gap_window = None;
        }
    }

    fn merged_table(&mut self, ui: &mut egui::Ui, action: &mut Option<TreeAction>) {
        let loaded = self.loaded.clone();
        let trace = loaded.trace();
        // The menu from the keyboard: a key per transform on the selected row.
        if let Some(n) = self.m_selected
            && self
                .merged
                .parent
                .get(n.idx())
                .is_some_and(|&p| p != u32::MAX)
            && !ui.ctx().egui_wants_keyboard_input()
            && let Some(t) = ui.input(|i| {
                let target = Target::of(trace, &self.merged, n);
                target.offers().into_iter().map(|(_, t)| t).find(|t| {
                    TRANSFORM_KEYS.iter().any(|&(op, key, shift)| {
                        t.op() == op && i.key_pressed(key) && i.modifiers.shift == shift
                    })
                })
            })
        {
            *action = Some(TreeAction::Transform(t));
        }
        let frames = self.merged.frames.max(1) as f64;
        let mut toggle = None;
        let mut select = None;
        let mut table = rows_table(ui, "merged_tree", 360.0)
            .column(Column::exact(70.0))
            .column(Column::exact(80.0))
            .column(Column::exact(80.0))
            .column(Column::exact(70.0))
            .column(Column::exact(90.0))
            .column(Column::exact(80.0))
            .column(Column::remainder().at_least(80.0));
        if let Some(row) = self.scroll_to.take() {
            table = table.scroll_to_row(row, Some(egui::Align::Center));
        }
        let t = &self.merged;
        let mut picked = None;
        table
            .header(ROW_HEIGHT, |mut h| {
                for (title, tip) in [
                    ("scope", "Scopes merged by their path of names"),
                    ("count", "Instances merged"),
                    ("total ms", "Summed durations"),
                    ("self ms", "Summed durations minus the children's"),
                    ("% thread", "Share of the thread's total"),
                    ("ms / frame", "Total divided by the frames merged"),
                    ("max ms", "Longest single instance"),
                    (
                        "total / self",
                        "Bar: total (light) and self (dark), of the thread",
                    ),
                ] {
                    h.col(|ui| {
                        ui.strong(title).on_hover_text(tip);
                    });
                }
            })
            .body(|body| {
                body.rows(ROW_HEIGHT, self.m_rows.len(), |mut row| {
                    let n = self.m_rows[row.index()];
                    let i = n.idx();
                    let is_thread = t.parent[i] == u32::MAX;
                    row.set_selected(self.m_selected == Some(n));
                    let thread_total = t.total_ns[t.thread_of(n).idx()].max(1);
                    let has_children = !t.children(n).is_empty();
                    row.col(|ui| {
                        let depth = t.depth[i];
                        if tree_handle(ui, depth, has_children, self.m_expanded[i]) {
                            toggle = Some(n);
                        }
                        let name = t.label(trace, NodeId(i as u32));
                        let mut text = if is_thread {
                            RichText::new(format!("thread {}", thread_label(name))).strong()
                        } else {
                            RichText::new(name)
                        };
                        if self.m_match.get(i).copied().unwrap_or(false) {
                            text = text.color(MATCH).strong();
                        }
                        ui.add(egui::Label::new(text).truncate().selectable(false));
                    });
                    let cell = |row: &mut egui_extras::TableRow<'_, '_>, s: String| {
                        row.col(|ui| {
                            ui.add(egui::Label::new(s).selectable(false));
                        });
                    };
                    if is_thread {
                        cell(&mut row, String::new());
                        cell(&mut row, ms(t.total_ns[i]));
                        cell(&mut row, String::new());
                        cell(&mut row, String::new());
                        cell(
                            &mut row,
                            format!("{:.3}", t.total_ns[i] as f64 / frames / 1e6),
                        );
                        cell(&mut row, String::new());
                    } else {
                        cell(&mut row, t.count[i].to_string());
                        cell(&mut row, ms(t.total_ns[i]));
                        cell(&mut row, ms(t.self_ns[i]));
                        cell(
                            &mut row,
                            format!("{:.1}%", 100.0 * t.total_ns[i] as f64 / thread_total as f64),
                        );
                        cell(
                            &mut row,
                            format!("{:.3}", t.total_ns[i] as f64 / frames / 1e6),
                        );
                        cell(&mut row, ms(t.max_ns[i]));
                    }
                    row.col(|ui| {
                        let total = t.total_ns[i] as f32 / thread_total as f32;
                        let self_share = if is_thread {
                            0.0
                        } else {
                            t.self_ns[i] as f32 / thread_total as f32
                        };
                        share_bar(ui, total, self_share);
                    });
                    let response = row.response();
                    if response.clicked() {
                        select = Some(n);
                    }
                    if !is_thread {
                        response.context_menu(|ui| {
                            if let Some(tf) = transform_menu(ui, &Target::of(trace, t, n)) {
                                picked = Some(tf);
                            }
                        });
                    }
                });
            });
        if let Some(tf) = picked {
            *action = Some(TreeAction::Transform(tf));
        }
        if let Some(n) = toggle {
            self.toggle_merged(n);
        } else if let Some(n) = select {
            self.m_selected = Some(n);
            if self.merged.parent[n.idx()] == u32::MAX {
                self.toggle_merged(n);
            } else {
                *action = Some(TreeAction::Select(self.merged.label(trace, n).to_owned()));
            }
        }
    }

    fn frame_table(&mut self, ui: &mut egui::Ui, action: &mut Option<TreeAction>) {
        let loaded = self.loaded.clone();
        let trace = loaded.trace();
        let s = &trace.scopes;
        let Some(f) = self.frame else {
            return;
        };
        let frame_start = trace.frames.range_ns[f.idx()].0;
        let mut toggle = None;
        let mut select = None;
        let mut table = rows_table(ui, "frame_tree", 360.0)
            .column(Column::exact(90.0))
            .column(Column::exact(90.0))
            .column(Column::exact(80.0))
            .column(Column::remainder().at_least(80.0).clip(true));
        if let Some(row) = self.scroll_to.take() {
            table = table.scroll_to_row(row, Some(egui::Align::Center));
        }
        table
            .header(ROW_HEIGHT, |mut h| {
                for (title, tip) in [
                    ("scope", "Instances in time order"),
                    ("start +ms", "Start, from the frame's start"),
                    ("duration ms", "Duration"),
                    ("self ms", "Duration minus the children's"),
                    ("data", "The scope's data string"),
                ] {
                    h.col(|ui| {
                        ui.strong(title).on_hover_text(tip);
                    });
                }
            })
            .body(|body| {
                body.rows(ROW_HEIGHT, self.f_rows.len(), |mut row| {
                    let r = self.f_rows[row.index()];
                    row.set_selected(self.f_selected == Some(r));
                    let cell = |row: &mut egui_extras::TableRow<'_, '_>, s: String| {
                        row.col(|ui| {
                            ui.add(egui::Label::new(s).selectable(false).truncate());
                        });
                    };
                    match r {
                        FrameRow::Thread(st) => {
                            let open = self.f_threads_open.contains(&st.0);
                            row.col(|ui| {
                                if tree_handle(ui, 0, true, open) {
                                    toggle = Some(r);
                                }
                                let name = trace.thread_name(trace.streams.thread[st.idx()]);
                                ui.add(
                                    egui::Label::new(
                                        RichText::new(format!("thread {}", thread_label(name)))
                                            .strong(),
                                    )
                                    .selectable(false),
                                );
                            });
                            let (a, b) = trace.streams.range_ns[st.idx()];
                            cell(&mut row, String::new());
                            cell(&mut row, ms(if a > b { 0 } else { b - a }));
                            cell(&mut row, String::new());
                            cell(
                                &mut row,
                                format!("{} scopes", trace.streams.num_scopes[st.idx()]),
                            );
                        }
                        FrameRow::Scope(i) => {
                            let open = self.f_expanded.contains(&i.0);
                            let has_children = s.subtree_end[i.idx()] > i.0 + 1;
                            row.col(|ui| {
                                if tree_handle(ui, s.depth[i.idx()] + 1, has_children, open) {
                                    toggle = Some(r);
                                }
                                let mut text = RichText::new(trace.scope_name(i));
                                if self.f_match.contains(&i.0) {
                                    text = text.color(MATCH).strong();
                                }
                                ui.add(egui::Label::new(text).truncate().selectable(false));
                            });
                            cell(&mut row, ms(s.start_ns[i.idx()] - frame_start));
                            cell(&mut row, ms(s.duration_ns[i.idx()]));
                            cell(&mut row, ms(s.self_ns[i.idx()]));
                            cell(&mut row, trace.scope_data(i).to_owned());
                        }
                        FrameRow::Gap {
                            depth,
                            start_ns,
                            duration_ns,
                            idle,
                        } => {
                            let (label, color) = if idle {
                                (IDLE_LABEL, IDLE)
                            } else {
                                (GAP_LABEL, GAP)
                            };
                            row.col(|ui| {
                                tree_handle(ui, depth, false, false);
                                ui.add(
                                    egui::Label::new(RichText::new(label).color(color).italics())
                                        .selectable(false),
                                );
                            });
                            cell(&mut row, ms(start_ns - frame_start));
                            row.col(|ui| {
                                ui.add(
                                    egui::Label::new(RichText::new(ms(duration_ns)).color(color))
                                        .selectable(false),
                                );
                            });
                            cell(&mut row, String::new());
                            cell(&mut row, String::new());
                        }
                    }
                    if row.response().clicked() {
                        select = Some(r);
                    }
                });
            });
        if let Some(r) = toggle {
            self.toggle_frame(r);
        } else if let Some(r) = select {
            if matches!(r, FrameRow::Thread(_)) {
                self.toggle_frame(r);
            }
            *action = self.select_frame_row(r);
        }
    }
}

/// Indentation and an expand/collapse triangle; returns whether it was clicked.
fn tree_handle(ui: &mut egui::Ui, depth: u32, has_children: bool, open: bool) -> bool {
    ui.add_space(depth as f32 * 14.0);
    let (rect, response) = ui.allocate_exact_size(egui::vec2(14.0, ROW_HEIGHT), Sense::click());
    if !has_children {
        return false;
    }
    let color = if response.hovered() {
        ui.visuals().strong_text_color()
    } else {
        ui.visuals().text_color()
    };
    let direction = if open {
        Pointing::Down
    } else {
        Pointing::Right
    };
    triangle(ui, rect.center(), direction, color);
    response.clicked()
}

/// A bar: `total` of the width in a light colour, `self_share` of it dark.
fn share_bar(ui: &mut egui::Ui, total: f32, self_share: f32) {
    let (rect, _) = ui.allocate_exact_size(
        egui::vec2(ui.available_width(), ROW_HEIGHT - 4.0),
        Sense::hover(),
    );
    let w = rect.width();
    let bar = |frac: f32| {
        egui::Rect::from_min_size(
            rect.min,
            egui::vec2(w * frac.clamp(0.0, 1.0), rect.height()),
        )
    };
    ui.painter()
        .rect_filled(bar(total), 2.0, Color32::from_rgb(120, 160, 210));
    ui.painter()
        .rect_filled(bar(self_share), 2.0, Color32::from_rgb(40, 80, 150));
}
