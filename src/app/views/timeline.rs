//! The timeline: every thread's scopes as a zoomable flame chart. One lane
//! per thread name, bars nested by depth and coloured by a stable hash of
//! the scope name, frame boundaries, hatched unprofiled gaps (idle stretches
//! of threads that run tasks shaded faintly, unhatched: the engine's
//! [`analyses::ThreadRoles`] tells them apart), a time ruler.
//!
//! Drawing is O(visible): each lane keeps, per depth, its instances sorted
//! by start (indices into the model's scope table, built once) with the
//! running maximum of ends, so the first visible bar is a binary search;
//! bars narrower than a pixel are merged into one bar per pixel column,
//! found by binary search too, so the whole 2M-scope recording in range
//! costs about one search per pixel column and depth.

use super::widgets::{busy_lines, transform_menu};
use crate::app::loaded::Loaded;
use crate::app::nav::Matcher;
use crate::engine::analyses::transform::{Applier, Stack, Target, Transform};
use crate::engine::analyses::tree::{MergedTree, MergedTreeBuilder};
use crate::engine::analyses::{self, BusyThread, WindowThread};
use crate::engine::model::NO_PARENT;
use crate::engine::{ScopeIdx, StreamId, Trace};
use crate::units::{ms, thread_label};
use egui::{Color32, Pos2, Rect, RichText, Sense, Stroke, vec2};
use std::ops::Range;
use std::sync::Arc;

const RULER_HEIGHT: f32 = 22.0;
const LANE_HEADER: f32 = 18.0;
const ROW: f32 = 18.0;
const GAP_COLOR: Color32 = Color32::from_rgb(200, 90, 90);
/// An idle stretch (a thread that runs tasks, waiting between them): a
/// faint shade, not the unprofiled gap's hatching.
const IDLE_COLOR: Color32 = Color32::from_rgba_premultiplied(110, 110, 120, 22);
const SELECTION: Color32 = Color32::from_rgba_premultiplied(60, 120, 200, 50);
/// Time between kept frames whose indices jump: the capture left frames out
/// there (not idle time, not an unprofiled gap).
const NOT_RECORDED: Color32 = Color32::from_rgba_premultiplied(70, 70, 90, 60);

/// One lane: a thread name's instances, by depth.
pub struct Lane {
    /// The raw thread name (as in the JSON).
    pub thread: String,
    /// As shown: `(unnamed)` for the empty name, numbered among same-named threads.
    pub label: String,
    /// Per depth: instances sorted by start.
    by_depth: Vec<Vec<u32>>,
    /// Per depth: their starts (contiguous, for the searches of drawing).
    starts: Vec<Vec<i64>>,
    /// Per depth: running maximum of the ends (first visible bar search).
    max_end: Vec<Vec<i64>>,
    /// Per depth: the durations' prefix sums (`cum[k]`: the bars before
    /// `k`), so a pixel column's covered time is two look-ups.
    cum: Vec<Vec<i64>>,
    /// Per depth: the longest bar of every run of bars ([`Longest`]), so a
    /// column's heaviest bar is a few look-ups however many it holds.
    longest: Vec<Longest>,
    /// Unprofiled gaps at least the threshold: (start, end, depth), by start.
    gaps: Vec<(i64, i64, u32)>,
    /// Running maximum of gap ends.
    gaps_max_end: Vec<i64>,
    /// Idle stretches at least the threshold (between top-level scopes of
    /// a thread that runs tasks): (start, end, depth), by start.
    idle: Vec<(i64, i64, u32)>,
    /// Running maximum of idle ends.
    idle_max_end: Vec<i64>,
    pub collapsed: bool,
}

impl Lane {
    pub fn depth(&self) -> usize {
        self.by_depth.len()
    }
}

/// What is selected on the timeline.
#[derive(Clone, Debug, PartialEq)]
pub enum Selection {
    Instance(ScopeIdx),
    /// A time window: what each other thread ran in it.
    Window {
        lo_ns: i64,
        hi_ns: i64,
        busy: Vec<BusyThread>,
        window: Vec<WindowThread>,
    },
}

/// What the last paint drew in a lane (for `ui()` and tests).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LanePaint {
    pub thread: String,
    pub depth: usize,
    /// Rectangles painted, a merged run counting once.
    pub bars: usize,
    /// Of which merged "many small scopes" bars.
    pub merged: usize,
    /// Unprofiled gaps painted, hatched: (start, end, depth, where).
    pub gaps: Vec<(i64, i64, u32, Rect)>,
    /// Idle stretches painted, shaded: (start, end, depth, where).
    pub idle: Vec<(i64, i64, u32, Rect)>,
    /// Where the lane starts (its header's top), and the height of a depth row.
    pub top: f32,
}

/// The height of one depth row of a lane.
pub const ROW_HEIGHT: f32 = ROW;
/// The height of a lane's header.
pub const LANE_HEADER_HEIGHT: f32 = LANE_HEADER;

/// What a click on the timeline asks of the app.
pub enum TimelineAction {
    Select(String),
    /// Show the table of what ran inside this window.
    TableOfWindow(i64, i64),
    /// Push this transform on the stack (a bar's menu).
    Transform(Transform),
}

pub struct TimelineView {
    loaded: Arc<Loaded>,
    lanes: Vec<Lane>,
    /// The lane of each stream.
    stream_lane: Vec<usize>,
    gap_ns: i64,
    /// Which threads run tasks (their top-level stretches are idle), worked
    /// out when the gaps first are.
    roles: Option<analyses::ThreadRoles>,
    /// The range shown when fitting (the frame selection).
    fit: (i64, i64),
    /// The range shown.
    range: (i64, i64),
    selection: Option<Selection>,
    /// Where a ruler drag started (ns).
    ruler_drag: Option<i64>,
    /// Per def / per data string: whether it matches the search (empty: no search).
    def_match: Vec<bool>,
    data_match: Vec<bool>,
    filter: (String, bool),
    painted: Vec<LanePaint>,
    /// The canvas of the last paint (x of the range, for tests).
    canvas: Rect,
    /// Spans between kept frames whose indices jump (frames the capture
    /// left out, or a restart): shaded "not recorded", by start.
    not_recorded: Vec<(i64, i64)>,
    /// How many of them the last paint showed.
    not_recorded_painted: usize,
    /// The call-tree transforms: the scopes they merge, fold or drop are
    /// dimmed here, not removed (the timeline's truth is time).
    stack: Stack,
    /// Per instance, a bit: dimmed by the transforms.
    dimmed: Vec<u64>,
    /// While `dimmed` is worked out a slice per frame.
    dim_build: Option<DimBuild>,
    /// The bar whose menu is open.
    menu_bar: Option<ScopeIdx>,
    /// Frame boundaries the last paint drew.
    frame_lines_painted: usize,
    /// While the lanes' index (or, after a threshold change, the gaps) is
    /// worked out a slice per frame ([`Self::step_index`]).
    index: Option<IndexBuild>,
    /// Whether the index is built a slice per frame ([`Self::sliced`]).
    is_sliced: bool,
}

/// The lanes' index, built a slice at a time in the browser (the whole of
/// a 2M-scope recording took 1.7 s at once there): each instance to its
/// lane and depth, then each list's order, starts and running maximum of
/// ends, then the gaps.
enum IndexBuild {
    /// Instances from `next` on go to their lane's list at their depth.
    Scopes { next: usize },
    /// Lists from lane `lane`, depth `depth` on: sorted, starts, max ends.
    Lists { lane: usize, depth: usize },
    /// Streams from `next` on: their gaps (with their lane, and whether
    /// idle), found so far.
    Gaps {
        next: usize,
        found: Vec<(usize, (i64, i64, u32), bool)>,
    },
}

/// Instances put in their lists between two looks at the clock.
const INDEX_CHUNK: usize = 1 << 14;

/// Frame boundaries closer than this (points) are not all drawn.
const FRAME_LINE_MIN_PX: f32 = 8.0;

/// Frames narrower than this on average (points): their boundaries are
/// marked on the ruler only, not drawn across the lanes.
const FRAME_LINE_ACROSS_PX: f32 = 48.0;

/// A column is drawn in the colour of the scope covering most of it, at
/// full strength; its height is how much of its time scopes cover, the
/// full row from half on, in this many steps (at least three: a column
/// with a scope is never thinner than six points).
const DENSITY_STEPS: u8 = 8;

/// A run of pixel columns of one depth row, drawn as one rectangle: the
/// bar covering most of each of its columns and how much scopes cover.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Run {
    /// Columns `c0..c1` from the canvas's left edge.
    c0: u32,
    c1: u32,
    /// The bar (its position in the depth's list) covering most of them.
    pos: usize,
    /// How much of the columns' time scopes cover, in `DENSITY_STEPS`
    /// (`DENSITY_STEPS`: half or more).
    density: u8,
    /// The columns hold other bars too, or the bar is under a column wide
    /// (a "many small scopes" column).
    many: bool,
}

/// Which instances the transforms merge, fold or drop: each instance's node
/// of the merged tree of all frames, then the stack applied to it.
enum DimBuild {
    Merge(Box<MergedTreeBuilder>),
    Apply(Box<(MergedTree, Vec<u32>, Applier)>),
}

impl TimelineView {
    /// Indexes the recording's lanes (once, now).
    pub fn new(loaded: Arc<Loaded>, gap_ns: i64) -> Self {
        let mut view = Self::sliced(loaded, gap_ns);
        view.is_sliced = false;
        view.step_index(None);
        view
    }

    /// The timeline whose index is built a slice per frame as it is shown
    /// (the browser); it says how far it got until then.
    pub fn sliced(loaded: Arc<Loaded>, gap_ns: i64) -> Self {
        let trace = loaded.trace();
        // One lane per thread: by name, and within a frame the k-th stream
        // of a name goes to that name's k-th lane (same-named threads, such as
        // unnamed workers, run side by side; a recording may give them new
        // ids every frame).
        let mut keys: Vec<(crate::engine::StrId, u32)> = Vec::with_capacity(trace.streams.len());
        let mut nth: rustc_hash::FxHashMap<crate::engine::StrId, u32> = Default::default();
        for f in trace.frames.ids() {
            nth.clear();
            for st in trace.frames.streams(f) {
                let name = trace.threads.name[trace.streams.thread[st as usize].idx()];
                let k = nth.entry(name).or_default();
                keys.push((name, *k));
                *k += 1;
            }
        }
        let mut distinct = keys.clone();
        distinct.sort_by(|a, b| trace.str(a.0).cmp(trace.str(b.0)).then(a.1.cmp(&b.1)));
        distinct.dedup();
        let stream_lane: Vec<usize> = keys
            .iter()
            .map(|key| {
                distinct
                    .binary_search_by(|d| {
                        trace.str(d.0).cmp(trace.str(key.0)).then(d.1.cmp(&key.1))
                    })
                    .unwrap_or(0)
            })
            .collect();
        let lanes: Vec<Lane> = distinct
            .iter()
            .map(|&(name, k)| {
                let several = distinct.iter().filter(|d| d.0 == name).count() > 1;
                let base = thread_label(trace.str(name));
                Lane {
                    thread: trace.str(name).to_owned(),
                    label: if several {
                        format!("{base} #{}", k + 1)
                    } else {
                        base.to_owned()
                    },
                    by_depth: Vec::new(),
                    starts: Vec::new(),
                    max_end: Vec::new(),
                    cum: Vec::new(),
                    longest: Vec::new(),
                    gaps: Vec::new(),
                    gaps_max_end: Vec::new(),
                    idle: Vec::new(),
                    idle_max_end: Vec::new(),
                    collapsed: false,
                }
            })
            .collect();
        let fit = full_range(trace, 0..trace.frames.len() as u32);
        let frames = &trace.frames.range_ns;
        let not_recorded = analyses::frame_breaks(trace)
            .into_iter()
            .map(|p| (frames[p as usize - 1].1, frames[p as usize].0))
            .filter(|(a, b)| a < b)
            .collect::<Vec<_>>();
        let mut not_recorded = not_recorded;
        not_recorded.sort_unstable();
        let mut view = Self {
            loaded,
            lanes,
            stream_lane,
            gap_ns: -1,
            roles: None,
            fit,
            range: fit,
            selection: None,
            ruler_drag: None,
            def_match: Vec::new(),
            data_match: Vec::new(),
            filter: (String::new(), false),
            painted: Vec::new(),
            canvas: Rect::NOTHING,
            not_recorded,
            not_recorded_painted: 0,
            stack: Stack::default(),
            dimmed: Vec::new(),
            dim_build: None,
            menu_bar: None,
            frame_lines_painted: 0,
            index: Some(IndexBuild::Scopes { next: 0 }),
            is_sliced: true,
        };
        view.gap_ns = gap_ns;
        view
    }

    /// Works on the index for at most `budget` (`None`: to the end);
    /// whether it is still at it.
    pub fn step_index(&mut self, budget: Option<web_time::Duration>) -> bool {
        let Some(build) = self.index.as_mut() else {
            return false;
        };
        let started = web_time::Instant::now();
        let more = || budget.is_none_or(|b| started.elapsed() < b);
        let loaded = self.loaded.clone();
        let trace = loaded.trace();
        let s = &trace.scopes;
        let lanes = &mut self.lanes;
        loop {
            match build {
                IndexBuild::Scopes { next } => {
                    let end = (*next + INDEX_CHUNK).min(s.len());
                    for i in *next..end {
                        let lane = &mut lanes[self.stream_lane[s.stream[i].idx()]];
                        let d = s.depth[i] as usize;
                        if lane.by_depth.len() <= d {
                            lane.by_depth.resize_with(d + 1, Vec::new);
                        }
                        lane.by_depth[d].push(i as u32);
                    }
                    *next = end;
                    if end == s.len() {
                        *build = IndexBuild::Lists { lane: 0, depth: 0 };
                    }
                }
                IndexBuild::Lists { lane, depth } => {
                    let Some(l) = lanes.get_mut(*lane) else {
                        *build = IndexBuild::Gaps {
                            next: 0,
                            found: Vec::new(),
                        };
                        continue;
                    };
                    let Some(list) = l.by_depth.get_mut(*depth) else {
                        (*lane, *depth) = (*lane + 1, 0);
                        continue;
                    };
                    if !list.is_sorted_by_key(|&i| s.start_ns[i as usize]) {
                        list.sort_by_key(|&i| (s.start_ns[i as usize], i));
                    }
                    l.starts
                        .push(list.iter().map(|&i| s.start_ns[i as usize]).collect());
                    let mut m = i64::MIN;
                    l.max_end.push(
                        list.iter()
                            .map(|&i| {
                                m = m.max(s.end_ns(ScopeIdx(i)));
                                m
                            })
                            .collect(),
                    );
                    let mut total = 0i64;
                    let cum: Vec<i64> = std::iter::once(0)
                        .chain(list.iter().map(|&i| {
                            total += s.duration_ns[i as usize].max(0);
                            total
                        }))
                        .collect();
                    l.longest.push(Longest::new(&cum));
                    l.cum.push(cum);
                    *depth += 1;
                }
                IndexBuild::Gaps { next, found } => {
                    if *next == trace.streams.len() {
                        // The engine's stretches: what `gaps` and the
                        // report list.
                        for lane in lanes.iter_mut() {
                            lane.gaps.clear();
                            lane.idle.clear();
                        }
                        for (lane, gap, idle) in std::mem::take(found) {
                            if idle {
                                lanes[lane].idle.push(gap);
                            } else {
                                lanes[lane].gaps.push(gap);
                            }
                        }
                        let running_max = |list: &mut Vec<(i64, i64, u32)>| {
                            list.sort_unstable();
                            let mut m = i64::MIN;
                            list.iter()
                                .map(|g| {
                                    m = m.max(g.1);
                                    m
                                })
                                .collect()
                        };
                        for lane in lanes.iter_mut() {
                            lane.gaps_max_end = running_max(&mut lane.gaps);
                            lane.idle_max_end = running_max(&mut lane.idle);
                        }
                        self.index = None;
                        return false;
                    }
                    let lane = self.stream_lane[*next];
                    let roles = self
                        .roles
                        .get_or_insert_with(|| analyses::ThreadRoles::of(trace));
                    analyses::gaps::for_each_stretch(
                        trace,
                        roles,
                        StreamId(*next as u32),
                        self.gap_ns.max(1),
                        |x| {
                            found.push((
                                lane,
                                (x.start_ns, x.end_ns, x.depth),
                                x.kind == analyses::GapKind::Idle,
                            ))
                        },
                    );
                    *next += 1;
                }
            }
            if !more() {
                return true;
            }
        }
    }

    /// Whether the lanes can be drawn (the gaps may still be worked out).
    fn lanes_ready(&self) -> bool {
        matches!(self.index, None | Some(IndexBuild::Gaps { .. }))
    }

    /// How far the index is (0 to 1), while it is built.
    pub fn indexing(&self) -> Option<f32> {
        let trace = self.trace();
        let of = |a: usize, b: usize| a as f32 / b.max(1) as f32;
        Some(match self.index.as_ref()? {
            IndexBuild::Scopes { next } => 0.5 * of(*next, trace.scopes.len()),
            IndexBuild::Lists { lane, .. } => 0.5 + 0.2 * of(*lane, self.lanes.len()),
            IndexBuild::Gaps { next, .. } => 0.7 + 0.3 * of(*next, trace.streams.len()),
        })
    }

    fn trace(&self) -> &Trace {
        self.loaded.trace()
    }

    pub fn lanes(&self) -> &[Lane] {
        &self.lanes
    }

    pub fn range(&self) -> (i64, i64) {
        self.range
    }

    pub fn selection(&self) -> Option<&Selection> {
        self.selection.as_ref()
    }

    pub fn painted(&self) -> &[LanePaint] {
        &self.painted
    }

    /// The last paint's canvas.
    pub fn canvas(&self) -> Rect {
        self.canvas
    }

    /// The x of time `t` on the last paint's canvas.
    pub fn x_of(&self, t: i64) -> f32 {
        let (lo, hi) = self.range;
        let w = self.canvas.width().max(1.0) as f64;
        self.canvas.left() + ((t - lo) as f64 / (hi - lo).max(1) as f64 * w) as f32
    }

    /// The time at `x` on the last paint's canvas.
    pub fn t_of(&self, x: f32) -> i64 {
        let (lo, hi) = self.range;
        let w = self.canvas.width().max(1.0) as f64;
        lo + (((x - self.canvas.left()) as f64 / w) * (hi - lo) as f64).round() as i64
    }

    /// Recomputes the gaps when the tree view's threshold changes (in
    /// slices, as the index: the old gaps stay drawn until then).
    pub fn set_gap_ns(&mut self, gap_ns: i64) {
        if gap_ns == self.gap_ns {
            return;
        }
        self.gap_ns = gap_ns;
        match &mut self.index {
            Some(IndexBuild::Scopes { .. } | IndexBuild::Lists { .. }) => {}
            gaps => {
                *gaps = Some(IndexBuild::Gaps {
                    next: 0,
                    found: Vec::new(),
                })
            }
        }
        if !self.is_sliced {
            self.step_index(None);
        }
    }

    /// The range "fit all" returns to: the frame selection's.
    pub fn set_fit(&mut self, frames: Range<u32>) {
        let fit = full_range(self.loaded.trace(), frames);
        if fit != self.fit {
            self.fit = fit;
            self.range = fit;
        }
    }

    pub fn fit_all(&mut self) {
        self.range = self.fit;
    }

    pub fn set_range(&mut self, lo: i64, hi: i64) {
        if hi > lo {
            self.range = (lo, hi);
        }
    }

    /// Zooms by `factor` (>1 in) around time `at`.
    pub fn zoom(&mut self, factor: f64, at: i64) {
        let (lo, hi) = self.range;
        let factor = factor.max(1e-3);
        let nlo = at - ((at - lo) as f64 / factor) as i64;
        let nhi = at + ((hi - at) as f64 / factor) as i64;
        if nhi - nlo >= 100 {
            self.range = (nlo, nhi);
        }
    }

    fn pan(&mut self, dt: i64) {
        self.range = (self.range.0 + dt, self.range.1 + dt);
    }

    /// Zooms to instance `i` (with a margin) and selects it.
    pub fn show_instance(&mut self, i: ScopeIdx) {
        let s = &self.trace().scopes;
        let (start, end) = (s.start_ns[i.idx()], s.end_ns(i));
        let pad = ((end - start) / 10).max(1_000);
        self.range = (start - pad, end + pad);
        let lane = self.stream_lane[self.trace().scopes.stream[i.idx()].idx()];
        self.lanes[lane].collapsed = false;
        self.selection = Some(Selection::Instance(i));
    }

    /// Selects the window `[lo, hi]`: per-thread busy time and the slowest scopes in it.
    pub fn select_window(&mut self, lo: i64, hi: i64) {
        let (lo, hi) = (lo.min(hi), lo.max(hi));
        let trace = self.loaded.trace();
        self.selection = Some(Selection::Window {
            lo_ns: lo,
            hi_ns: hi,
            busy: analyses::busy_in(trace, lo, hi, None),
            window: analyses::window(trace, lo, hi, 5),
        });
    }

    pub fn set_filter(&mut self, filter: &str, substring: bool) {
        if self.filter.0 == filter && self.filter.1 == substring {
            return;
        }
        self.filter = (filter.to_owned(), substring);
        let m = Matcher::new(filter, substring);
        let trace = self.loaded.trace();
        if m.is_empty() {
            self.def_match.clear();
            self.data_match.clear();
            return;
        }
        self.def_match = trace
            .defs
            .name
            .iter()
            .map(|&n| m.test(trace.str(n)))
            .collect();
        self.data_match = (0..trace.strings.len() as u32)
            .map(|s| m.test(trace.str(crate::engine::StrId(s))))
            .collect();
    }

    /// Dims the scopes `stack` merges, folds or drops (worked out a slice
    /// per frame by [`Self::step_dimmed`]).
    pub fn set_transforms(&mut self, stack: &Stack) {
        if &self.stack == stack {
            return;
        }
        self.stack = stack.clone();
        self.dimmed.clear();
        self.dim_build = (!stack.is_empty()).then(|| {
            let trace = self.loaded.trace();
            DimBuild::Merge(Box::new(
                MergedTreeBuilder::recording(trace, 0..trace.frames.len() as u32, None, u32::MAX)
                    .split_data(stack.split_defs(trace)),
            ))
        });
    }

    /// Works out the dimmed scopes for at most `budget`; whether it is
    /// still at it.
    pub fn step_dimmed(&mut self, budget: Option<web_time::Duration>) -> bool {
        let Some(build) = self.dim_build.as_mut() else {
            return false;
        };
        let started = web_time::Instant::now();
        let mut more = || budget.is_none_or(|b| started.elapsed() < b);
        let trace = self.loaded.trace();
        if let DimBuild::Merge(builder) = build {
            let Some(tree) = builder.step(trace, &mut more) else {
                return true;
            };
            let node_of = builder.take_node_of();
            let applier = Applier::new(&tree, &self.stack);
            *build = DimBuild::Apply(Box::new((tree, node_of, applier)));
        }
        let DimBuild::Apply(apply) = build else {
            return true;
        };
        let (tree, node_of, applier) = &mut **apply;
        let Some(t) = applier.step(trace, tree, &mut more) else {
            return true;
        };
        let mut dimmed = vec![0u64; trace.scopes.len().div_ceil(64)];
        for (i, &n) in node_of.iter().enumerate() {
            if n != u32::MAX && !t.heads[n as usize] {
                dimmed[i / 64] |= 1 << (i % 64);
            }
        }
        self.dimmed = dimmed;
        self.dim_build = None;
        false
    }

    /// Whether the transforms merge, fold or drop instance `i`.
    fn is_dimmed(&self, i: usize) -> bool {
        self.dimmed
            .get(i / 64)
            .is_some_and(|w| w & (1 << (i % 64)) != 0)
    }

    fn matches(&self, i: usize) -> Option<bool> {
        if self.def_match.is_empty() {
            return None;
        }
        let s = &self.trace().scopes;
        Some(self.def_match[s.def[i].idx()] || self.data_match[s.data[i].idx()])
    }

    /// Feeds what `ui()` reads to `h` (the range, the selection and the
    /// last paint's counts; no JSON), so the app republishes on change only.
    pub fn fingerprint(&self, h: &mut impl std::hash::Hasher) {
        use std::hash::Hash as _;
        self.range.hash(h);
        match &self.selection {
            None => 0u8.hash(h),
            Some(Selection::Instance(i)) => (1u8, i.0).hash(h),
            Some(Selection::Window { lo_ns, hi_ns, .. }) => (2u8, lo_ns, hi_ns).hash(h),
        }
        for l in &self.painted {
            (l.bars, l.merged, l.gaps.len(), l.idle.len()).hash(h);
        }
        self.not_recorded_painted.hash(h);
        self.frame_lines_painted.hash(h);
        self.dimmed.len().hash(h);
        self.dim_build.is_some().hash(h);
        self.indexing().map(|f| (f * 100.0) as u32).hash(h);
    }

    /// `puffinLens.ui()` for the timeline (the last paint).
    pub fn to_json(&self) -> serde_json::Value {
        let trace = self.trace();
        let selection = match &self.selection {
            None => serde_json::Value::Null,
            Some(Selection::Instance(i)) => serde_json::json!({
                "kind": "instance",
                "name": trace.scope_name(*i),
                "data": trace.scope_data(*i),
                "start_ns": trace.scopes.start_ns[i.idx()],
                "duration_ns": trace.scopes.duration_ns[i.idx()],
                "thread": trace.thread_name(trace.scope_thread(*i)),
            }),
            Some(Selection::Window {
                lo_ns,
                hi_ns,
                busy,
                window,
            }) => serde_json::json!({
                "kind": "window", "lo_ns": lo_ns, "hi_ns": hi_ns, "busy": busy, "window": window,
            }),
        };
        serde_json::json!({
            "range_ns": [self.range.0, self.range.1],
            "lanes": self.painted.iter().map(|l| serde_json::json!({
                "thread": l.thread, "depth": l.depth, "bars": l.bars, "merged": l.merged,
                "gaps": l.gaps.len(), "idle": l.idle.len(), "top": l.top,
            })).collect::<Vec<_>>(),
            // Where the last paint drew (points): the range's x, a lane's
            // first row starts `header` below its top, each row `row` high.
            "x": [self.canvas.left(), self.canvas.right()],
            "header": LANE_HEADER,
            "row": ROW,
            "selection": selection,
            "not_recorded": self.not_recorded_painted,
            "frame_lines": self.frame_lines_painted,
            "dimmed_by_transforms": self.dimmed.iter().map(|w| w.count_ones() as u64).sum::<u64>(),
            "dimming": self.dim_build.is_some(),
            "indexing": self.indexing(),
        })
    }

    /// The bar at `pos` on the last paint: (instance).
    fn hit(&self, pos: Pos2, layout: &[(usize, f32)]) -> Option<Hit> {
        let t = self.t_of(pos.x);
        for &(li, top) in layout {
            let lane = &self.lanes[li];
            if lane.collapsed {
                continue;
            }
            let y = pos.y - top - LANE_HEADER;
            if y < 0.0 || y >= lane.depth() as f32 * ROW {
                continue;
            }
            let d = (y / ROW) as usize;
            let list = &lane.by_depth[d];
            let s = &self.trace().scopes;
            let k = list.partition_point(|&i| s.start_ns[i as usize] <= t);
            if k > 0 {
                let i = list[k - 1] as usize;
                // A bar at least a few pixels wide around the pointer.
                let slack = ((self.range.1 - self.range.0) as f64
                    / self.canvas.width().max(1.0) as f64
                    * 2.0) as i64;
                if s.end_ns(ScopeIdx(i as u32)) + slack >= t {
                    return Some(Hit::Bar(ScopeIdx(i as u32)));
                }
            }
            // A gap (or an idle stretch) at this depth?
            let g = lane
                .gaps
                .iter()
                .chain(&lane.idle)
                .find(|g| g.2 as usize == d && g.0 <= t && t <= g.1);
            if let Some(&(a, b, _)) = g {
                return Some(Hit::Gap(a, b));
            }
            return None;
        }
        None
    }

    pub fn ui(&mut self, ui: &mut egui::Ui) -> Option<TimelineAction> {
        let mut action = None;
        if self.step_index(Some(super::INDEX_SLICE)) {
            ui.ctx().request_repaint();
        }
        if !self.lanes_ready() {
            let done = self.indexing().unwrap_or(0.0);
            ui.horizontal(|ui| {
                ui.spinner();
                ui.label(format!(
                    "Indexing the timeline of {} scopes… {:.0}%",
                    self.trace().scopes.len(),
                    done * 100.0
                ));
            });
            self.painted.clear();
            return None;
        }
        if self.step_dimmed(Some(super::BUILD_SLICE)) {
            ui.ctx().request_repaint();
        }
        ui.horizontal(|ui| {
            if ui
                .button("Fit all")
                .on_hover_text("Show the whole frame selection (F or Home)")
                .clicked()
            {
                self.fit_all();
            }
            ui.label(
                RichText::new(format!(
                    "{} ms shown · Ctrl/Cmd+wheel or pinch to zoom, drag to pan, arrows too; \
                     double-click a bar to fit it; drag on the ruler to select a window",
                    ms(self.range.1 - self.range.0)
                ))
                .weak(),
            );
        });
        // The selection below the lanes, in a panel of its own: selecting
        // never moves the bars under the pointer.
        egui::Panel::bottom("timeline_selection")
            .resizable(true)
            .min_size(60.0)
            .show(ui, |ui| match self.selection.clone() {
                Some(sel) => {
                    if let Some(a) = self.selection_panel(ui, &sel) {
                        action = Some(a);
                    }
                }
                None => {
                    ui.label(
                        RichText::new(
                            "Click a bar for its details, a hatched gap or a drag on the ruler \
                             for what every thread ran in that window.",
                        )
                        .weak(),
                    );
                }
            });
        let (keys_fit, keys_left, keys_right) = ui.input(|i| {
            (
                i.key_pressed(egui::Key::F) || i.key_pressed(egui::Key::Home),
                i.key_pressed(egui::Key::ArrowLeft),
                i.key_pressed(egui::Key::ArrowRight),
            )
        });
        if !ui.ctx().egui_wants_keyboard_input() {
            let step = (self.range.1 - self.range.0) / 10;
            if keys_fit {
                self.fit_all();
            }
            if keys_left {
                self.pan(-step);
            }
            if keys_right {
                self.pan(step);
            }
        }
        let width = ui.available_width();
        // The ruler.
        let (ruler, ruler_resp) =
            ui.allocate_exact_size(vec2(width, RULER_HEIGHT), Sense::click_and_drag());
        self.canvas = Rect::from_min_max(
            Pos2::new(ruler.left(), ruler.top()),
            Pos2::new(ruler.right(), ruler.bottom()),
        );
        self.ruler_ui(ui, ruler, &ruler_resp);
        // The lanes, in a vertical scroll area.
        let total_height: f32 = self
            .lanes
            .iter()
            .map(|l| {
                LANE_HEADER
                    + if l.collapsed {
                        0.0
                    } else {
                        l.depth() as f32 * ROW
                    }
            })
            .sum();
        egui::ScrollArea::vertical()
            .id_salt("timeline_lanes")
            .auto_shrink([false, false])
            .show(ui, |ui| {
                let (rect, resp) = ui.allocate_exact_size(
                    vec2(width, total_height.max(ui.available_height())),
                    Sense::click_and_drag(),
                );
                let mut layout = Vec::with_capacity(self.lanes.len());
                let mut y = rect.top();
                for (li, lane) in self.lanes.iter().enumerate() {
                    layout.push((li, y));
                    y += LANE_HEADER
                        + if lane.collapsed {
                            0.0
                        } else {
                            lane.depth() as f32 * ROW
                        };
                }
                if let Some(a) = self.interact(ui, &resp, rect, &layout) {
                    action = Some(a);
                }
                self.paint(ui, rect, &layout);
            });
        action
    }

    fn interact(
        &mut self,
        ui: &egui::Ui,
        resp: &egui::Response,
        rect: Rect,
        layout: &[(usize, f32)],
    ) -> Option<TimelineAction> {
        let ns_per_px = (self.range.1 - self.range.0) as f64 / rect.width().max(1.0) as f64;
        if resp.hovered() {
            let (zoom, scroll_x) = ui.input(|i| (i.zoom_delta(), i.smooth_scroll_delta.x));
            if let Some(p) = resp.hover_pos() {
                if zoom != 1.0 {
                    let at = self.t_of(p.x);
                    self.zoom(zoom as f64, at);
                }
                if scroll_x != 0.0 {
                    self.pan((-(scroll_x as f64) * ns_per_px) as i64);
                }
            }
        }
        if resp.dragged() {
            let dx = resp.drag_delta().x as f64;
            self.pan((-dx * ns_per_px) as i64);
        }
        let pos = resp.interact_pointer_pos().or(resp.hover_pos());
        // Lane headers: a click collapses or expands the lane.
        if resp.clicked()
            && let Some(p) = pos
            && let Some(&(li, _)) = layout
                .iter()
                .find(|&&(_, top)| p.y >= top && p.y < top + LANE_HEADER)
        {
            self.lanes[li].collapsed = !self.lanes[li].collapsed;
            return None;
        }
        let hit = pos.and_then(|p| self.hit(p, layout));
        if resp.double_clicked()
            && let Some(Hit::Bar(i)) = hit
        {
            let s = &self.trace().scopes;
            self.range = (
                s.start_ns[i.idx()],
                s.end_ns(i).max(s.start_ns[i.idx()] + 1),
            );
            return None;
        }
        if resp.clicked() {
            match hit {
                Some(Hit::Bar(i)) => {
                    self.selection = Some(Selection::Instance(i));
                    return Some(TimelineAction::Select(
                        self.trace().scope_name(i).to_owned(),
                    ));
                }
                Some(Hit::Gap(a, b)) => self.select_window(a, b),
                None => {}
            }
        }
        // The menu is of the bar right-clicked (the pointer then moves into
        // the menu).
        if resp.secondary_clicked() {
            self.menu_bar = match hit {
                Some(Hit::Bar(i)) => Some(i),
                _ => None,
            };
        }
        if let Some(i) = self.menu_bar {
            let target = Target::of_instance(self.trace(), i);
            let mut picked = None;
            resp.context_menu(|ui| {
                ui.label(RichText::new("The timeline dims what a transform hides").weak());
                picked = transform_menu(ui, &target);
            });
            if let Some(t) = picked {
                return Some(TimelineAction::Transform(t));
            }
        }
        if let Some(Hit::Bar(i)) = hit
            && resp.hovered()
        {
            let text = self.tooltip(i);
            resp.clone().on_hover_text_at_pointer(text);
        }
        None
    }

    fn tooltip(&self, i: ScopeIdx) -> String {
        let trace = self.trace();
        let s = &trace.scopes;
        let def = s.def[i.idx()].idx();
        let file = trace.str(trace.defs.file[def]);
        let d = match (file, trace.defs.line[def]) {
            ("", _) => String::new(),
            (f, 0) => f.to_owned(),
            (f, l) => format!("{f}:{l}"),
        };
        let parent = s.parent[i.idx()];
        let share = if parent == NO_PARENT {
            String::new()
        } else {
            let p = s.duration_ns[parent as usize].max(1);
            format!(
                "\n{:.1}% of {}",
                100.0 * s.duration_ns[i.idx()] as f64 / p as f64,
                trace.scope_name(ScopeIdx(parent))
            )
        };
        let dimmed = if self.is_dimmed(i.idx()) {
            "\nmerged, folded or dropped by the transforms: dimmed, not removed (the timeline \
             shows every scope where it ran)"
        } else {
            ""
        };
        format!(
            "{}{}\n{} ms (self {} ms){}{}{dimmed}",
            trace.scope_name(i),
            match trace.scope_data(i) {
                "" => String::new(),
                data => format!(" [{data}]"),
            },
            ms(s.duration_ns[i.idx()]),
            ms(s.self_ns[i.idx()]),
            share,
            if d.is_empty() {
                String::new()
            } else {
                format!("\n{d}")
            }
        )
    }

    fn ruler_ui(&mut self, ui: &egui::Ui, rect: Rect, resp: &egui::Response) {
        let painter = ui.painter_at(rect);
        painter.rect_filled(rect, 0.0, ui.visuals().extreme_bg_color);
        let (lo, hi) = self.range;
        let span = (hi - lo).max(1) as f64;
        // Ticks at 1, 2 or 5 times a power of ten, at least 90 px apart.
        let min_step = span * 90.0 / rect.width().max(1.0) as f64;
        let mut step = 1.0f64;
        while step < min_step {
            step *= 10.0;
        }
        for k in [0.2, 0.5] {
            if step * k >= min_step {
                step *= k;
                break;
            }
        }
        let origin = self.fit.0;
        let first = ((lo - origin) as f64 / step).ceil() as i64;
        let color = ui.visuals().text_color();
        let mut k = first;
        loop {
            let t = origin as f64 + k as f64 * step;
            if t > hi as f64 {
                break;
            }
            let x = self.x_of(t as i64);
            painter.line_segment(
                [
                    Pos2::new(x, rect.bottom() - 6.0),
                    Pos2::new(x, rect.bottom()),
                ],
                Stroke::new(1.0, color),
            );
            let label = format_ms((t - origin as f64) / 1e6, step / 1e6);
            painter.text(
                Pos2::new(x + 3.0, rect.top() + 2.0),
                egui::Align2::LEFT_TOP,
                label,
                egui::FontId::proportional(11.0),
                color,
            );
            k += 1;
        }
        // Frame boundaries: a mark each at the ruler's foot (thinned to
        // FRAME_LINE_MIN_PX apart), whatever the zoom.
        let boundaries = self.frame_boundaries_x();
        self.frame_lines_painted = boundaries.len();
        let mark = ui.visuals().weak_text_color();
        for x in boundaries {
            painter.line_segment(
                [
                    Pos2::new(x, rect.bottom() - 10.0),
                    Pos2::new(x, rect.bottom()),
                ],
                Stroke::new(1.0, mark),
            );
        }
        // Drag on the ruler: select a window.
        if resp.drag_started()
            && let Some(p) = ui
                .input(|i| i.pointer.press_origin())
                .or(resp.interact_pointer_pos())
        {
            // From where the button went down, not where the drag was noticed.
            self.ruler_drag = Some(self.t_of(p.x));
        }
        if let (Some(from), Some(p)) = (self.ruler_drag, resp.interact_pointer_pos()) {
            let to = self.t_of(p.x);
            let (a, b) = (self.x_of(from.min(to)), self.x_of(from.max(to)));
            painter.rect_filled(Rect::from_x_y_ranges(a..=b, rect.y_range()), 0.0, SELECTION);
            if resp.drag_stopped() {
                self.ruler_drag = None;
                if from != to {
                    self.select_window(from, to);
                }
            }
        }
    }

    fn paint(&mut self, ui: &egui::Ui, rect: Rect, layout: &[(usize, f32)]) {
        let painter = ui.painter_at(rect);
        let clip = ui.clip_rect();
        let trace = self.loaded.clone();
        let trace = trace.trace();
        let s = &trace.scopes;
        let (lo, hi) = self.range;
        let text_color = ui.visuals().text_color();
        let font = egui::FontId::proportional(11.0);
        let mut painted = Vec::with_capacity(self.lanes.len());
        // Where the capture left frames out: shaded, labelled when wide enough.
        self.not_recorded_painted = 0;
        let first = self.not_recorded.partition_point(|&(_, b)| b < lo);
        for &(a, b) in self.not_recorded[first..]
            .iter()
            .take_while(|&&(a, _)| a <= hi)
        {
            let (xa, xb) = (
                self.x_of(a).max(rect.left()),
                self.x_of(b).min(rect.right()),
            );
            if xb - xa < 0.5 {
                continue;
            }
            self.not_recorded_painted += 1;
            let r = Rect::from_x_y_ranges(xa..=xb, rect.y_range());
            painter.rect_filled(r, 0.0, NOT_RECORDED);
            if xb - xa > 90.0 {
                painter.text(
                    Pos2::new((xa + xb) / 2.0, rect.top() + 4.0),
                    egui::Align2::CENTER_TOP,
                    "not recorded",
                    font.clone(),
                    ui.visuals().weak_text_color(),
                );
            }
        }
        // Frame boundaries: marked on the ruler ([`Self::ruler_ui`]); across
        // the lanes, faint and behind the bars, only when frames are at
        // least FRAME_LINE_ACROSS_PX wide (closer, they would be a curtain
        // over the lanes' empty rows).
        let boundaries = self.frame_boundaries_x();
        let in_view = self.frame_boundaries_in_view();
        if in_view == 0 || rect.width() / in_view as f32 >= FRAME_LINE_ACROSS_PX {
            for &x in &boundaries {
                painter.line_segment(
                    [Pos2::new(x, rect.top()), Pos2::new(x, rect.bottom())],
                    Stroke::new(1.0, ui.visuals().weak_text_color().gamma_multiply(0.3)),
                );
            }
        }
        // Pixel columns from the canvas's left edge, one per point.
        let xl = self.canvas.left();
        let columns = self.canvas.width().max(0.0).ceil() as u32;
        for &(li, top) in layout {
            let lane = &self.lanes[li];
            let mut stat = LanePaint {
                thread: lane.thread.clone(),
                depth: lane.depth(),
                top,
                ..Default::default()
            };
            // The lane header.
            let header =
                Rect::from_min_size(Pos2::new(rect.left(), top), vec2(rect.width(), LANE_HEADER));
            if header.intersects(clip) {
                painter.rect_filled(header, 0.0, ui.visuals().faint_bg_color);
                painter.text(
                    header.left_center() + vec2(4.0, 0.0),
                    egui::Align2::LEFT_CENTER,
                    format!("{} {}", if lane.collapsed { "+" } else { "-" }, lane.label),
                    egui::FontId::proportional(12.0),
                    text_color,
                );
            }
            if lane.collapsed {
                painted.push(stat);
                continue;
            }
            for (d, list) in lane.by_depth.iter().enumerate() {
                let y0 = top + LANE_HEADER + d as f32 * ROW;
                let row_rect =
                    Rect::from_min_size(Pos2::new(rect.left(), y0), vec2(rect.width(), ROW));
                if !row_rect.intersects(clip) {
                    continue;
                }
                let runs = self.row_runs(lane, d, columns);
                // Runs of one fill and height side by side (sub-pixel
                // columns of one name) go out as one rectangle.
                let mut pending: Option<(f32, f32, Color32, f32)> = None;
                let flush = |p: &mut Option<(f32, f32, Color32, f32)>| {
                    if let Some((a, b, fill, inset)) = p.take() {
                        painter.rect_filled(
                            Rect::from_min_max(
                                Pos2::new(a, y0 + 1.0 + inset),
                                Pos2::new(b, y0 + ROW - 1.0 - inset),
                            ),
                            0.0,
                            fill,
                        );
                    }
                };
                let mut last_pos = usize::MAX;
                for run in &runs {
                    let i = list[run.pos] as usize;
                    let name = trace.scope_name(ScopeIdx(i as u32));
                    let mut fill = name_color(name);
                    if self.matches(i) == Some(false) || self.is_dimmed(i) {
                        fill = fill.gamma_multiply(0.25);
                    }
                    // Under half covered: shorter, centred, never fainter.
                    let inset = ((ROW - 2.0)
                        * (1.0 - f32::from(run.density) / f32::from(DENSITY_STEPS))
                        / 2.0)
                        .floor();
                    let (x0, x1) = (xl + run.c0 as f32, xl + run.c1 as f32);
                    if run.pos != last_pos {
                        stat.bars += 1;
                        stat.merged += usize::from(run.many);
                        last_pos = run.pos;
                    }
                    let selected = self.selection == Some(Selection::Instance(ScopeIdx(i as u32)));
                    if x1 - x0 <= 40.0 && !selected {
                        match &mut pending {
                            Some((_, b, f, h)) if *b == x0 && *f == fill && *h == inset => *b = x1,
                            _ => {
                                flush(&mut pending);
                                pending = Some((x0, x1, fill, inset));
                            }
                        }
                        continue;
                    }
                    flush(&mut pending);
                    let bar = Rect::from_min_max(
                        Pos2::new(x0, y0 + 1.0 + inset),
                        Pos2::new(x1, y0 + ROW - 1.0 - inset),
                    );
                    painter.rect_filled(bar, 1.0, fill);
                    if selected {
                        painter.rect_stroke(
                            bar,
                            1.0,
                            Stroke::new(2.0, text_color),
                            egui::StrokeKind::Inside,
                        );
                    }
                    if bar.width() > 40.0 {
                        // The label on the part in view.
                        let shown = bar.intersect(rect);
                        let label = format!("{name} {}", ms(s.duration_ns[i]));
                        let galley = painter.layout_no_wrap(label, font.clone(), Color32::BLACK);
                        let galley = if galley.size().x + 6.0 < shown.width() {
                            Some(galley)
                        } else {
                            let galley = painter.layout_no_wrap(
                                name.to_owned(),
                                font.clone(),
                                Color32::BLACK,
                            );
                            (galley.size().x + 6.0 < shown.width()).then_some(galley)
                        };
                        if let Some(galley) = galley {
                            painter.galley(
                                shown.left_center() + vec2(3.0, -galley.size().y / 2.0),
                                galley,
                                Color32::BLACK,
                            );
                        }
                    }
                }
                flush(&mut pending);
            }
            // Gaps, hatched.
            let k0 = lane.gaps_max_end.partition_point(|&e| e < lo);
            for &(a, b, d) in &lane.gaps[k0..] {
                if a > hi {
                    break;
                }
                let (x0, x1) = (self.x_of(a), self.x_of(b));
                if x1 - x0 < 2.0 {
                    continue;
                }
                let y0 = top + LANE_HEADER + d as f32 * ROW;
                let g = Rect::from_min_max(
                    Pos2::new(x0.max(rect.left()), y0 + 2.0),
                    Pos2::new(x1.min(rect.right()), y0 + ROW - 2.0),
                );
                hatch(&painter, g);
                stat.gaps.push((a, b, d, g));
            }
            // Idle stretches, shaded faintly (waiting, not unprofiled work).
            let k0 = lane.idle_max_end.partition_point(|&e| e < lo);
            for &(a, b, d) in &lane.idle[k0..] {
                if a > hi {
                    break;
                }
                let (x0, x1) = (self.x_of(a), self.x_of(b));
                if x1 - x0 < 2.0 {
                    continue;
                }
                let y0 = top + LANE_HEADER + d as f32 * ROW;
                let g = Rect::from_min_max(
                    Pos2::new(x0.max(rect.left()), y0 + 2.0),
                    Pos2::new(x1.min(rect.right()), y0 + ROW - 2.0),
                );
                painter.rect_filled(g, 0.0, IDLE_COLOR);
                stat.idle.push((a, b, d, g));
            }
            painted.push(stat);
        }
        // The selected window, across every lane.
        if let Some(Selection::Window { lo_ns, hi_ns, .. }) = &self.selection {
            let (a, b) = (self.x_of(*lo_ns), self.x_of(*hi_ns));
            painter.rect_filled(Rect::from_x_y_ranges(a..=b, rect.y_range()), 0.0, SELECTION);
        }
        self.painted = painted;
    }

    /// What each pixel column of depth row `d` of `lane` shows (the last
    /// paint's canvas and range), as runs of columns: the bar covering most
    /// of a column's time at full strength when scopes cover half of it or
    /// more, shaded by how much they cover below that. Costs a few searches
    /// per run, whatever the number of bars in a column (the prefix sums
    /// give the covered time, [`Longest`] the longest bar inside).
    fn row_runs(&self, lane: &Lane, d: usize, columns: u32) -> Vec<Run> {
        let (starts, max_end, cum, longest) = (
            &lane.starts[d],
            &lane.max_end[d],
            &lane.cum[d],
            &lane.longest[d],
        );
        let n = starts.len();
        let (lo, hi) = self.range;
        let ns_per_col = (hi - lo).max(1) as f64 / self.canvas.width().max(1.0) as f64;
        let t_of = |c: u32| lo as f64 + c as f64 * ns_per_col;
        let col_of = |t: i64| ((t - lo) as f64 / ns_per_col).floor();
        let dur = |j: usize| cum[j + 1] - cum[j];
        let end_of = |j: usize| starts[j] + dur(j);
        let mut runs: Vec<Run> = Vec::new();
        let mut push = |run: Run| match runs.last_mut() {
            Some(last)
                if last.c1 == run.c0
                    && last.pos == run.pos
                    && last.density == run.density
                    && last.many == run.many =>
            {
                last.c1 = run.c1;
            }
            _ => runs.push(run),
        };
        let (mut k, mut c) = (0usize, 0u32);
        while c < columns {
            let (t0, t1) = (t_of(c), t_of(c + 1));
            // The first bar ending after the column's start.
            k = gallop(max_end, k, t0.floor() as i64 + 1);
            if k == n {
                break;
            }
            if starts[k] as f64 >= t1 {
                // Nothing here: on to the column of the next bar.
                let next = col_of(starts[k]);
                c = if next > c as f64 {
                    next.min(columns as f64) as u32
                } else {
                    c + 1
                };
                continue;
            }
            // Bars k..m start before the column's end.
            let m = gallop(starts, k, t1.ceil() as i64).max(k + 1);
            let width = t1 - t0;
            let overlap = |j: usize| (end_of(j) as f64).min(t1) - (starts[j] as f64).max(t0);
            let covered = ((cum[m] - cum[k]) as f64
                - (t0 - starts[k] as f64).max(0.0)
                - (end_of(m - 1) as f64 - t1).max(0.0))
            .clamp(0.0, width);
            let mut best = (overlap(k), k);
            if m - 1 > k && overlap(m - 1) > best.0 {
                best = (overlap(m - 1), m - 1);
            }
            if m > k + 2
                && let Some(j) = longest.find(cum, k + 1, m - 1)
                && overlap(j) > best.0
            {
                best = (overlap(j), j);
            }
            let (covers, pos) = best;
            if covers >= width {
                // One bar over the whole column: and over every column up
                // to the one its end falls in.
                let c1 = col_of(end_of(pos)).clamp(c as f64 + 1.0, columns as f64) as u32;
                push(Run {
                    c0: c,
                    c1,
                    pos,
                    density: DENSITY_STEPS,
                    many: false,
                });
                c = c1;
                continue;
            }
            let steps = f64::from(DENSITY_STEPS);
            let density = ((covered / width * 2.0 * steps).ceil()).clamp(3.0, steps) as u8;
            push(Run {
                c0: c,
                c1: c + 1,
                pos,
                density,
                many: m - k > 1 || (dur(pos) as f64) < width,
            });
            c += 1;
        }
        runs
    }

    /// The frame boundaries in view, at least FRAME_LINE_MIN_PX apart (x
    /// on the last paint's canvas).
    fn frame_boundaries_x(&self) -> Vec<f32> {
        let (lo, hi) = self.range;
        let mut xs: Vec<f32> = Vec::new();
        for &(a, _) in &self.trace().frames.range_ns {
            if a >= lo && a <= hi {
                let x = self.x_of(a);
                if xs
                    .last()
                    .is_none_or(|&last| (x - last).abs() >= FRAME_LINE_MIN_PX)
                {
                    xs.push(x);
                }
            }
        }
        xs
    }

    /// How many frames start in view.
    fn frame_boundaries_in_view(&self) -> usize {
        let (lo, hi) = self.range;
        self.trace()
            .frames
            .range_ns
            .iter()
            .filter(|&&(a, _)| a >= lo && a <= hi)
            .count()
    }

    fn selection_panel(&mut self, ui: &mut egui::Ui, sel: &Selection) -> Option<TimelineAction> {
        let mut close = false;
        let mut action = None;
        egui::ScrollArea::vertical()
            .id_salt("timeline_selection_scroll")
            .show(ui, |ui| {
                ui.horizontal(|ui| {
                    match sel {
                        Selection::Instance(i) => {
                            ui.strong(self.trace().scope_name(*i));
                            ui.label(format!(
                                "{} ms at +{} ms",
                                ms(self.trace().scopes.duration_ns[i.idx()]),
                                ms(self.trace().scopes.start_ns[i.idx()] - self.fit.0)
                            ));
                        }
                        Selection::Window { lo_ns, hi_ns, .. } => {
                            ui.strong(format!("Window of {} ms", ms(hi_ns - lo_ns)));
                            ui.label(
                                RichText::new(format!(
                                    "+{} to +{} ms",
                                    ms(lo_ns - self.fit.0),
                                    ms(hi_ns - self.fit.0)
                                ))
                                .weak(),
                            );
                        }
                    }
                    if let Selection::Window { lo_ns, hi_ns, .. } = sel
                        && ui
                            .small_button("table of this window")
                            .on_hover_text(
                                "The table view, of what ran entirely inside this window",
                            )
                            .clicked()
                    {
                        action = Some(TimelineAction::TableOfWindow(*lo_ns, *hi_ns));
                    }
                    close = ui.small_button("clear").clicked();
                });
                if let Selection::Window { busy, window, .. } = sel {
                    if busy.is_empty() {
                        ui.label("No thread was busy in this window.");
                    }
                    busy_lines(ui, busy, window);
                }
            });
        if close {
            self.selection = None;
        }
        action
    }
}

/// The first index at or after `from` whose start is at least `t`
/// (`starts` sorted): an exponential search from `from`, so a step to the
/// next pixel column costs the log of the bars it skips.
fn gallop(starts: &[i64], from: usize, t: i64) -> usize {
    let mut step = 1;
    let mut hi = from;
    while hi < starts.len() && starts[hi] < t {
        hi = from + step;
        step *= 2;
    }
    let lo = from + step / 4;
    let hi = hi.min(starts.len());
    let lo = lo.min(hi);
    lo + starts[lo..hi].partition_point(|&s| s < t)
}

/// The longest bar of any run of a depth's bars (their positions in the
/// list), from a pyramid of maxima: level `l` holds the position of the
/// longest bar of each block of `FAN^(l+1)` bars. A query looks at fewer
/// than `2 * FAN` entries per level (about 100 for 2M bars), where a scan
/// of a zoomed-out column would look at every bar in it.
#[derive(Clone, Debug, Default, PartialEq)]
struct Longest {
    levels: Vec<Vec<u32>>,
}

/// The pyramid's fan-out.
const FAN: usize = 8;

impl Longest {
    /// From the durations' prefix sums (`cum.len()` is the bars plus one).
    fn new(cum: &[i64]) -> Self {
        let dur = |j: u32| cum[j as usize + 1] - cum[j as usize];
        let n = cum.len().saturating_sub(1);
        let mut levels: Vec<Vec<u32>> = Vec::new();
        let mut below: Vec<u32> = (0..n as u32).collect();
        while below.len() > 1 {
            let level: Vec<u32> = below
                .chunks(FAN)
                .map(|c| {
                    *c.iter()
                        .max_by_key(|&&j| (dur(j), std::cmp::Reverse(j)))
                        .unwrap()
                })
                .collect();
            below = level.clone();
            levels.push(level);
        }
        Self { levels }
    }

    /// The position of the longest bar in `lo..hi` (the first of equals).
    fn find(&self, cum: &[i64], lo: usize, hi: usize) -> Option<usize> {
        let dur = |j: usize| cum[j + 1] - cum[j];
        let mut best: Option<usize> = None;
        let mut consider = |j: usize| {
            if best.is_none_or(|b| dur(j) > dur(b) || (dur(j) == dur(b) && j < b)) {
                best = Some(j);
            }
        };
        let item = |level: usize, b: usize| {
            if level == 0 {
                b
            } else {
                self.levels[level - 1][b] as usize
            }
        };
        let (mut lo, mut hi, mut level) = (lo, hi, 0);
        loop {
            let (up_lo, up_hi) = (lo.div_ceil(FAN), hi / FAN);
            if level == self.levels.len() || up_lo >= up_hi {
                (lo..hi).for_each(|b| consider(item(level, b)));
                return best;
            }
            (lo..up_lo * FAN).for_each(|b| consider(item(level, b)));
            (up_hi * FAN..hi).for_each(|b| consider(item(level, b)));
            (lo, hi, level) = (up_lo, up_hi, level + 1);
        }
    }
}

enum Hit {
    Bar(ScopeIdx),
    Gap(i64, i64),
}

/// The time span of frames `frames` (positions): earliest start, latest end.
fn full_range(trace: &Trace, frames: Range<u32>) -> (i64, i64) {
    let n = trace.frames.len() as u32;
    let frames = frames.start.min(n)..frames.end.min(n);
    let lo = frames
        .clone()
        .map(|f| trace.frames.range_ns[f as usize].0)
        .min();
    let hi = frames.map(|f| trace.frames.range_ns[f as usize].1).max();
    match (lo, hi) {
        (Some(lo), Some(hi)) if hi > lo => (lo, hi),
        (Some(lo), _) => (lo, lo + 1_000_000),
        _ => (0, 1_000_000),
    }
}

/// A stable colour for a scope name: FNV-1a of its bytes (the same on every
/// platform and run) picks a hue.
pub fn name_color(name: &str) -> Color32 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in name.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    let hue = (h % 360) as f32 / 360.0;
    let hsva = egui::ecolor::Hsva::new(hue, 0.45, 0.85, 1.0);
    Color32::from(hsva)
}

/// Milliseconds for the ruler, with as many decimals as the tick step needs.
fn format_ms(v: f64, step_ms: f64) -> String {
    let decimals = if step_ms >= 1.0 {
        0
    } else {
        (-step_ms.log10()).ceil().clamp(0.0, 6.0) as usize
    };
    format!("{v:.decimals$} ms")
}

/// Diagonal hatching in `r`.
fn hatch(painter: &egui::Painter, r: Rect) {
    painter.rect_stroke(
        r,
        0.0,
        Stroke::new(1.0, GAP_COLOR),
        egui::StrokeKind::Inside,
    );
    let step = 6.0;
    let mut x = r.left() - r.height();
    while x < r.right() {
        let a = Pos2::new(x, r.bottom());
        let b = Pos2::new(x + r.height(), r.top());
        let clipped = clip_segment(a, b, r);
        if let Some((a, b)) = clipped {
            painter.line_segment([a, b], Stroke::new(1.0, GAP_COLOR));
        }
        x += step;
    }
}

/// A 45° segment from `a` (bottom) to `b` (top) cut to `r`'s x range.
fn clip_segment(a: Pos2, b: Pos2, r: Rect) -> Option<(Pos2, Pos2)> {
    let (mut a, mut b) = (a, b);
    if a.x < r.left() {
        let dx = r.left() - a.x;
        a = Pos2::new(r.left(), a.y - dx);
    }
    if b.x > r.right() {
        let dx = b.x - r.right();
        b = Pos2::new(r.right(), b.y + dx);
    }
    (a.x < b.x).then_some((a, b))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gallop_finds_the_first_start_at_or_after() {
        let starts: Vec<i64> = (0..1000).map(|k| k * 10).collect();
        for from in [0, 1, 7, 500, 999] {
            for t in [-5, 0, 5, 10, 4995, 5000, 9990, 9991, 20_000] {
                let want = from + starts[from..].partition_point(|&s| s < t);
                assert_eq!(gallop(&starts, from, t), want, "from {from}, t {t}");
            }
        }
        assert_eq!(gallop(&[], 0, 5), 0);
    }

    /// The index built a few instances, lists or streams at a time (as in
    /// the browser) is the index built at once, and so are the gaps after
    /// a threshold change; until the lanes are ready nothing is drawn.
    #[test]
    fn the_index_built_in_slices_is_the_index_built_at_once() {
        use crate::engine::write::puffin::{Compression, Format, worst_case_capture};
        let frames = worst_case_capture(6, 3_000, 40, 7);
        let bytes =
            crate::engine::write::puffin::write_recording(&frames, Format::Pfd4(Compression::Lz4));
        let decoded = crate::engine::decode_puffin(&bytes).expect("decodes");
        let loaded = Arc::new(Loaded::new("w.puffin".into(), decoded, bytes.len(), 0.0));
        let index = |v: &TimelineView| {
            v.lanes
                .iter()
                .map(|l| {
                    (
                        l.by_depth.clone(),
                        l.starts.clone(),
                        l.max_end.clone(),
                        (l.cum.clone(), l.longest.clone()),
                        l.gaps.clone(),
                        l.gaps_max_end.clone(),
                    )
                })
                .collect::<Vec<_>>()
        };
        let mut at_once = TimelineView::new(loaded.clone(), 1);
        assert!(at_once.indexing().is_none());
        let mut sliced = TimelineView::sliced(loaded.clone(), 1);
        assert!(!sliced.lanes_ready());
        let mut steps = 0;
        while sliced.step_index(Some(web_time::Duration::ZERO)) {
            steps += 1;
            let done = sliced.indexing().expect("still indexing");
            assert!((0.0..=1.0).contains(&done));
        }
        // A step per chunk of instances, per list, per stream.
        let streams = loaded.trace().streams.len();
        assert!(steps > streams, "{steps} steps, {streams} streams");
        assert!(sliced.lanes_ready() && sliced.indexing().is_none());
        let want = index(&at_once);
        assert!(want.iter().any(|l| !l.4.is_empty()), "the capture has gaps");
        assert_eq!(index(&sliced), want);
        // A new threshold: the gaps again, in slices; the lanes stay drawable.
        at_once.set_gap_ns(2_000);
        sliced.set_gap_ns(2_000);
        assert!(sliced.lanes_ready() && sliced.indexing().is_some());
        while sliced.step_index(Some(web_time::Duration::ZERO)) {}
        let want = index(&at_once);
        assert_ne!(want, index(&TimelineView::new(loaded, 1)));
        assert_eq!(index(&sliced), want);
    }

    /// The pyramid's longest bar of any run is a scan's (the first of
    /// equal ones), on runs of every length and position.
    #[test]
    fn the_longest_bar_of_a_run_is_found_as_a_scan_finds_it() {
        let mut x = 12345u64;
        for n in [0usize, 1, 2, 7, 8, 9, 63, 64, 65, 700] {
            let durations: Vec<i64> = (0..n)
                .map(|_| {
                    x = x
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    ((x >> 33) % 50) as i64
                })
                .collect();
            let mut cum = vec![0i64];
            for d in &durations {
                cum.push(cum.last().unwrap() + d);
            }
            let longest = Longest::new(&cum);
            for lo in 0..=n {
                for hi in (lo..=n).step_by(1 + n / 40) {
                    let want = (lo..hi).fold(None, |best: Option<usize>, j| match best {
                        Some(b) if durations[b] >= durations[j] => Some(b),
                        _ => Some(j),
                    });
                    assert_eq!(longest.find(&cum, lo, hi), want, "n {n}, {lo}..{hi}");
                }
            }
        }
    }

    #[test]
    fn name_colours_are_stable() {
        // FNV-1a: the same on every platform, run and recording.
        assert_eq!(name_color("render"), name_color("render"));
        assert_ne!(name_color("render"), name_color("update"));
    }
}
