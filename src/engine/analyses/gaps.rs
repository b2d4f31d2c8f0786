//! `gaps`: unprofiled time, complete: every stretch no child covers
//! (leading, between, trailing, top-level, idle, between frames), the idle
//! stretches of threads that run tasks apart, what the other threads ran
//! meanwhile, and the gaps that recur at one place ([`GapPlace`]). The rule
//! of a frame-driving thread ([`DRIVING_COVER_PCT`], [`DRIVING_SPAN_PCT`];
//! [`ThreadRoles`]) and the fields: see docs/cli.md, "Gaps: unprofiled or
//! idle". The timeline's hatching and the comparison's gap places
//! (`gap_diff`) find the same stretches ([`for_each_stretch`]).

use super::common::*;
use super::waits::{RecurringWaitsFor, WaitIndex, WaitsFor};
use crate::engine::model::{FrameId, ScopeIdx, StrId, StreamId, Trace};
use crate::engine::write::escape;
use rustc_hash::FxHashMap;
use serde::Serialize;
use std::cmp::Reverse;

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct NameData {
    pub name: String,
    pub data: String,
}

impl NameData {
    fn of(trace: &Trace, i: ScopeIdx) -> Self {
        Self {
            name: trace.scope_name(i).to_owned(),
            data: trace.scope_data(i).to_owned(),
        }
    }
}

/// Where a stretch of unprofiled time is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum GapKind {
    /// A scope's start to its first child.
    Leading,
    /// Between two children.
    Between,
    /// The last child's end to the scope's end.
    Trailing,
    /// Between two top-level scopes of a frame-driving thread in a frame.
    TopLevel,
    /// Between consecutive frames: no scope on any thread.
    BetweenFrames,
    /// Between two top-level scopes of a thread that runs tasks: waiting,
    /// not unprofiled work.
    Idle,
    /// The whole of a scope with no child that waits for other threads'
    /// work (a join, a barrier): a wait, never unprofiled time.
    Whole,
}

impl GapKind {
    pub fn as_str(self) -> &'static str {
        match self {
            GapKind::Leading => "leading",
            GapKind::Between => "between",
            GapKind::Trailing => "trailing",
            GapKind::TopLevel => "top-level",
            GapKind::BetweenFrames => "between-frames",
            GapKind::Idle => "idle",
            GapKind::Whole => "whole",
        }
    }
}

/// A stretch of one stream: `[start_ns, end_ns)`, the depth its row would
/// have (the parent's depth + 1; 0 at the top level), its kind, the scope
/// it is in (`None` at the top level) and its neighbours.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stretch {
    pub start_ns: i64,
    pub end_ns: i64,
    pub depth: u32,
    pub kind: GapKind,
    pub parent: Option<ScopeIdx>,
    pub after: Option<ScopeIdx>,
    pub before: Option<ScopeIdx>,
}

impl Stretch {
    fn len_ns(&self) -> i64 {
        self.end_ns.saturating_sub(self.start_ns)
    }
}

/// Top-level scopes cover at least this share of a frame-driving thread's
/// frames' time (percent; see the module doc).
pub const DRIVING_COVER_PCT: f64 = 50.0;
/// A frame-driving thread's top-level scopes span (first start to last
/// end) at least this share of its frames' time (percent).
pub const DRIVING_SPAN_PCT: f64 = 80.0;

/// How a thread's top-level stretches read (see the module doc).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ThreadRole {
    /// Its top-level scopes make up its frames: a stretch between two of
    /// them is unprofiled work (`top-level`).
    FrameDriving,
    /// It runs tasks: a stretch between two of its top-level scopes is
    /// waiting (`idle`).
    Tasks,
}

/// One thread name's role and the numbers that decided it, summed over the
/// frames it has top-level scopes in (a frame counted once per stream).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ThreadActivity {
    pub thread: String,
    pub role: ThreadRole,
    /// Streams (a thread's scopes in one frame) with a top-level scope.
    pub frames: u64,
    /// Those frames' time: each from the first top-level scope's start of
    /// any thread in it to the last one's end.
    pub frames_ns: i64,
    /// The thread's span: per frame, its first top-level scope's start to
    /// its last one's end. The denominator of `share_of_thread_pct`.
    pub span_ns: i64,
    /// Time its top-level scopes cover (their union).
    pub covered_ns: i64,
}

/// Each thread's role (by name), and each stream's.
#[derive(Clone, Debug, Default)]
pub struct ThreadRoles {
    /// Per stream: whether its thread runs tasks.
    tasks: Vec<bool>,
    /// Per thread name (by its string id), the span in ns.
    span: FxHashMap<StrId, i64>,
    /// Every thread name with a top-level scope, by name.
    pub threads: Vec<ThreadActivity>,
}

impl ThreadRoles {
    /// The roles of every thread of `trace` (one pass over the top-level
    /// scopes).
    pub fn of(trace: &Trace) -> Self {
        let s = &trace.scopes;
        // Per stream: (first start, last end, covered), None without a
        // top-level scope.
        let mut per_stream: Vec<Option<(i64, i64, i64)>> = Vec::with_capacity(trace.streams.len());
        let mut tops: Vec<(i64, i64)> = Vec::new();
        for st in 0..trace.streams.len() as u32 {
            tops.clear();
            tops.extend(
                s.top_level(trace.streams.scopes(StreamId(st)))
                    .map(|i| (s.start_ns[i.idx()], s.end_ns(i))),
            );
            if !tops.is_sorted() {
                tops.sort_unstable();
            }
            let last = tops.iter().map(|t| t.1).max();
            per_stream.push(last.map(|last| (tops[0].0, last, union_ns(tops.iter().copied()))));
        }
        // Each frame's time: its streams' first start to last end.
        let mut frame_range: Vec<Option<(i64, i64)>> = vec![None; trace.frames.len()];
        for (st, x) in per_stream.iter().enumerate() {
            if let Some((a, b, _)) = *x {
                let r = &mut frame_range[trace.streams.frame[st].idx()];
                *r = Some(r.map_or((a, b), |(lo, hi)| (lo.min(a), hi.max(b))));
            }
        }
        let mut by_name: FxHashMap<StrId, (u64, i64, i64, i64)> = FxHashMap::default();
        for (st, x) in per_stream.iter().enumerate() {
            let Some((a, b, covered)) = *x else { continue };
            let (lo, hi) = frame_range[trace.streams.frame[st].idx()].unwrap_or((a, b));
            let name = trace.threads.name[trace.streams.thread[st].idx()];
            let e = by_name.entry(name).or_default();
            e.0 += 1;
            e.1 = e.1.saturating_add(hi.saturating_sub(lo));
            e.2 = e.2.saturating_add(b.saturating_sub(a));
            e.3 = e.3.saturating_add(covered);
        }
        let role = |frames_ns: i64, span_ns: i64, covered_ns: i64| {
            let pct = |x: i64| 100.0 * x as f64 / frames_ns as f64;
            if frames_ns <= 0
                || (pct(covered_ns) >= DRIVING_COVER_PCT && pct(span_ns) >= DRIVING_SPAN_PCT)
            {
                ThreadRole::FrameDriving
            } else {
                ThreadRole::Tasks
            }
        };
        let mut threads: Vec<ThreadActivity> = by_name
            .iter()
            .map(
                |(&name, &(frames, frames_ns, span_ns, covered_ns))| ThreadActivity {
                    thread: trace.str(name).to_owned(),
                    role: role(frames_ns, span_ns, covered_ns),
                    frames,
                    frames_ns,
                    span_ns,
                    covered_ns,
                },
            )
            .collect();
        threads.sort_by(|a, b| a.thread.cmp(&b.thread));
        let tasks = (0..trace.streams.len())
            .map(|st| {
                let name = trace.threads.name[trace.streams.thread[st].idx()];
                by_name
                    .get(&name)
                    .is_some_and(|&(_, f, sp, c)| role(f, sp, c) == ThreadRole::Tasks)
            })
            .collect();
        let span = by_name.iter().map(|(&n, x)| (n, x.2)).collect();
        Self {
            tasks,
            span,
            threads,
        }
    }

    /// Whether the thread of stream `st` runs tasks (its top-level
    /// stretches are idle).
    pub fn runs_tasks(&self, st: StreamId) -> bool {
        self.tasks.get(st.idx()).copied().unwrap_or(false)
    }
}

/// Every stretch of stream `st` of at least `min_ns` (at least 1 ns), in
/// stream order of their parents (top level first). Children that overlap
/// (a malformed stream) cover the union of their times. A top-level
/// stretch is `idle` when the stream's thread runs tasks (`roles`), else
/// `top-level`.
pub fn for_each_stretch(
    trace: &Trace,
    roles: &ThreadRoles,
    st: StreamId,
    min_ns: i64,
    mut f: impl FnMut(Stretch),
) {
    let top_kind = if roles.runs_tasks(st) {
        GapKind::Idle
    } else {
        GapKind::TopLevel
    };
    let s = &trace.scopes;
    let min = min_ns.max(1);
    let range = trace.streams.scopes(st);
    let mut kids: Vec<ScopeIdx> = Vec::new();
    let sorted = |kids: &mut Vec<ScopeIdx>| {
        if !kids.is_sorted_by_key(|c| s.start_ns[c.idx()]) {
            kids.sort_by_key(|&c| (s.start_ns[c.idx()], c.0));
        }
    };
    kids.extend(s.top_level(range.clone()));
    sorted(&mut kids);
    let mut prev: Option<(i64, ScopeIdx)> = None;
    for &c in &kids {
        if let Some((end, after)) = prev
            && s.start_ns[c.idx()].saturating_sub(end) >= min
        {
            f(Stretch {
                start_ns: end,
                end_ns: s.start_ns[c.idx()],
                depth: 0,
                kind: top_kind,
                parent: None,
                after: Some(after),
                before: Some(c),
            });
        }
        let e = s.end_ns(c);
        prev = Some(match prev {
            Some((end, after)) if end >= e => (end, after),
            _ => (e, c),
        });
    }
    for i in range {
        let iu = i as usize;
        if s.subtree_end[iu] <= i + 1 {
            continue; // a leaf: all its time is its own
        }
        kids.clear();
        kids.extend(s.children(ScopeIdx(i)));
        sorted(&mut kids);
        let depth = s.depth[iu] + 1;
        let mut prev_end = s.start_ns[iu];
        let mut after: Option<ScopeIdx> = None;
        for &c in &kids {
            if s.start_ns[c.idx()].saturating_sub(prev_end) >= min {
                f(Stretch {
                    start_ns: prev_end,
                    end_ns: s.start_ns[c.idx()],
                    depth,
                    kind: if after.is_none() {
                        GapKind::Leading
                    } else {
                        GapKind::Between
                    },
                    parent: Some(ScopeIdx(i)),
                    after,
                    before: Some(c),
                });
            }
            if s.end_ns(c) >= prev_end {
                prev_end = s.end_ns(c);
                after = Some(c);
            }
        }
        let end = s.end_ns(ScopeIdx(i));
        if end.saturating_sub(prev_end) >= min {
            f(Stretch {
                start_ns: prev_end,
                end_ns: end,
                depth,
                kind: GapKind::Trailing,
                parent: Some(ScopeIdx(i)),
                after,
                before: None,
            });
        }
    }
}

/// How long another thread was busy in a gap, and with what.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct BusyThread {
    pub thread: String,
    pub busy_ns: i64,
    /// Its top-level scopes by their time in the gap, most first (at most 3).
    pub scopes: Vec<BusyScope>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct BusyScope {
    pub name: String,
    pub busy_ns: i64,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Gap {
    /// The thread ("" between frames: no thread ran).
    pub thread: String,
    /// The frame (between frames: the earlier one).
    pub frame_index: u64,
    pub kind: GapKind,
    /// The scope the gap is in (`null` at the top level and between frames).
    pub parent: Option<NameData>,
    /// Scope names from the thread's top level to the parent, " > " between.
    pub path: String,
    /// The sibling that ends where the gap starts (`null` for a leading gap).
    pub after: Option<NameData>,
    /// The sibling that starts where the gap ends (`null` for a trailing gap).
    pub before: Option<NameData>,
    pub start_ns: i64,
    pub end_ns: i64,
    pub duration_ns: i64,
    pub other_threads: Vec<BusyThread>,
    /// What the gap waits for: the last work on another thread to end in
    /// it (the critical path) and the gap's three parts (`null` when no
    /// other thread's top-level scope ends in it, for idle stretches and
    /// between frames; see [`super::waits`]).
    pub waits_for: Option<WaitsFor>,
}

/// Where a stretch of unprofiled time is, by names: what a recurring gap
/// is grouped by, and what a comparison matches A's and B's gaps on.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct GapPlace {
    pub thread: String,
    pub kind: GapKind,
    /// The parent's path of names from the thread's top level, " > "
    /// between ("" at the top level).
    pub path: String,
    /// The scope before the gap (`null`: the parent's start).
    pub after: Option<String>,
    /// The scope after the gap (`null`: the parent's end).
    pub before: Option<String>,
}

impl GapPlace {
    /// The place of a gap of `kind` on `thread` in `t`, by the scopes it is
    /// in, after and before (`at`): the parent's path, its neighbours' names.
    pub fn of(t: &Trace, thread: String, kind: GapKind, at: [Option<ScopeIdx>; 3]) -> Self {
        let name = |i: Option<ScopeIdx>| i.map(|i| t.scope_name(i).to_owned());
        GapPlace {
            thread,
            kind,
            path: path_of(t, at[0]),
            after: name(at[1]),
            before: name(at[2]),
        }
    }

    /// The scope the gap is in (the path's last name; "" at the top level).
    pub fn parent(&self) -> &str {
        self.path.rsplit(" > ").next().unwrap_or("")
    }

    /// Where it is, in words ("between `sim::step` and `draw::batch` in
    /// `main_loop`"): Markdown, each name a code span that holds whatever
    /// the recording named it (backticks, markup) literally.
    pub fn words(&self) -> String {
        let q = |x: &Option<String>| x.as_deref().map_or(String::new(), escape::markdown_code);
        let parent = escape::markdown_code(self.parent());
        match self.kind {
            GapKind::TopLevel | GapKind::Idle => format!(
                "between top-level {} and {}",
                q(&self.after),
                q(&self.before)
            ),
            GapKind::Leading => {
                format!("at the start of {parent}, before {}", q(&self.before))
            }
            GapKind::Trailing => format!("at the end of {parent}, after {}", q(&self.after)),
            GapKind::Between => format!(
                "between {} and {} in {parent}",
                q(&self.after),
                q(&self.before)
            ),
            GapKind::BetweenFrames => "between frames".to_owned(),
            GapKind::Whole => format!("all through {parent} (no scope in it: it waits)"),
        }
    }
}

/// Gaps at one place (thread, kind, parent path, neighbours' names) in
/// several frames.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RecurringGap {
    #[serde(flatten)]
    pub place: GapPlace,
    /// Times the gap occurred (a frame with two counts twice).
    pub occurrences: u64,
    /// Deprecated: `occurrences` under its old name (it counts occurrences,
    /// not frames); kept for one release.
    pub frames: u64,
    /// Lower median.
    pub median_ns: i64,
    pub max_ns: i64,
    pub total_ns: i64,
    /// `total_ns` of the thread's span (`thread_span_ns`), in percent, at
    /// most 100 (`null` between frames).
    pub share_of_thread_pct: Option<f64>,
    /// What `share_of_thread_pct` is of: `"thread-span"` (`null` between
    /// frames).
    pub share_of: Option<&'static str>,
    /// The thread's span: per frame, its first top-level scope's start to
    /// its last one's end, summed over frames (`null` between frames).
    pub thread_span_ns: Option<i64>,
    /// What the other threads ran in these gaps, summed; busiest first.
    pub other_threads: Vec<BusyThread>,
    /// The longest occurrence: its frame and start, for `window`.
    pub longest_frame_index: u64,
    pub longest_start_ns: i64,
    /// What its occurrences wait for, medians over them (`null` as a
    /// gap's `waits_for`; see [`super::waits`]).
    pub waits_for: Option<RecurringWaitsFor>,
}

/// The `gaps` answer.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct GapsReport {
    /// False when the recording has one thread only: nothing can say what
    /// ran meanwhile.
    pub other_threads_recorded: bool,
    /// One-off gaps of at least --min-ms, longest first (ties by start):
    /// every gap but the usual occurrences of a recurring one (those up to
    /// twice its median are its row; a longer one is listed here too).
    pub gaps: Vec<Gap>,
    /// How many one-off gaps there are in all (`gaps` lists --top of them).
    pub total_gaps: usize,
    /// Gaps that recur in at least two frames and sum to at least --min-ms,
    /// largest total first (each occurrence at least [`RECURRING_FLOOR_NS`]).
    pub recurring: Vec<RecurringGap>,
    pub total_recurring: usize,
    /// Idle stretches (kind `idle`: between top-level scopes of a thread
    /// that runs tasks, waiting for work), never in the lists above: the
    /// one-off ones, as `gaps`.
    pub idle: Vec<Gap>,
    pub total_idle: usize,
    /// Idle stretches at one place in two or more frames, as `recurring`.
    pub recurring_idle: Vec<RecurringGap>,
    pub total_recurring_idle: usize,
    /// Each thread's role (frame-driving or tasks) and the numbers behind
    /// it, by name (all threads, whatever --thread).
    pub threads: Vec<ThreadActivity>,
}

/// Occurrences shorter than this are not counted as recurring gaps (timer
/// resolution and the profiler's own cost).
pub const RECURRING_FLOOR_NS: i64 = 10_000;

/// What the threads but `except` ran in the windows `[lo, hi)` (summed
/// over them), from the index of every thread's top-level scopes:
/// busiest thread first, ties by name; idle threads left out.
pub fn busy_threads(
    trace: &Trace,
    index: &WaitIndex,
    except: Option<StrId>,
    windows: &[(i64, i64)],
) -> Vec<BusyThread> {
    let mut out: Vec<BusyThread> = Vec::new();
    for iv in index.threads.iter().filter(|t| Some(t.thread) != except) {
        let mut busy = 0i64;
        let mut by_name: FxHashMap<StrId, i64> = FxHashMap::default();
        for &(lo, hi) in windows {
            iv.overlaps(lo, hi, |&(_, _, i), o| {
                busy = busy.saturating_add(o);
                let e = by_name.entry(trace.defs.name[trace.scopes.def[i.idx()].idx()]);
                let e = e.or_default();
                *e = e.saturating_add(o);
            });
        }
        if busy == 0 {
            continue;
        }
        let mut scopes: Vec<BusyScope> = by_name
            .into_iter()
            .map(|(n, busy_ns)| BusyScope {
                name: trace.str(n).to_owned(),
                busy_ns,
            })
            .collect();
        scopes.sort_by(|x, y| y.busy_ns.cmp(&x.busy_ns).then_with(|| x.name.cmp(&y.name)));
        scopes.truncate(3);
        out.push(BusyThread {
            thread: trace.str(iv.thread).to_owned(),
            busy_ns: busy,
            scopes,
        });
    }
    // Threads are indexed by name: a stable sort keeps name order on ties.
    out.sort_by_key(|b| Reverse(b.busy_ns));
    out
}

/// How long each thread (by name) was busy at its top level within
/// `[lo_ns, hi_ns)`, except `except` (the thread the window is about): most
/// busy first, ties by name; idle threads are left out.
pub fn busy_in(trace: &Trace, lo_ns: i64, hi_ns: i64, except: Option<&str>) -> Vec<BusyThread> {
    let except = except.and_then(|name| trace.strings.find(name));
    busy_threads(trace, &WaitIndex::of(trace), except, &[(lo_ns, hi_ns)])
}

/// Names from the top level down to `i`, " > " between.
pub fn path_of(trace: &Trace, i: Option<ScopeIdx>) -> String {
    let up =
        |k: &ScopeIdx| Some(ScopeIdx(trace.scopes.parent[k.idx()])).filter(|p| p.0 != u32::MAX);
    let mut names: Vec<&str> = std::iter::successors(i, up)
        .map(|k| trace.scope_name(k))
        .collect();
    names.reverse();
    names.join(" > ")
}

/// A found stretch, without strings.
#[derive(Clone, Copy)]
struct Found {
    x: Stretch,
    thread: StrId,
    frame: FrameId,
}

/// Where a stretch is by a trace's ids: thread, kind, the parent's path
/// ([`Paths`]), after's and before's names (`u32::MAX`: none).
pub(super) type PlaceId = (u32, GapKind, u32, u32, u32);

/// Each scope's path of names, interned (computed for the parents of gaps
/// and their ancestors only).
pub(super) struct Paths {
    id: Vec<u32>,
    interned: FxHashMap<(u32, u32), u32>,
}

impl Paths {
    pub(super) fn new(trace: &Trace) -> Self {
        Self {
            id: vec![u32::MAX; trace.scopes.len()],
            interned: FxHashMap::default(),
        }
    }

    fn of(&mut self, trace: &Trace, i: ScopeIdx) -> u32 {
        let mut chain: Vec<u32> = Vec::new();
        let mut at = i.0;
        let mut up = u32::MAX; // the path id above the chain
        loop {
            if self.id[at as usize] != u32::MAX {
                up = self.id[at as usize];
                break;
            }
            chain.push(at);
            let p = trace.scopes.parent[at as usize];
            if p == u32::MAX {
                break;
            }
            at = p;
        }
        for &k in chain.iter().rev() {
            let name = trace.defs.name[trace.scopes.def[k as usize].idx()].0;
            let next = self.interned.len() as u32;
            up = *self.interned.entry((up, name)).or_insert(next);
            self.id[k as usize] = up;
        }
        up
    }

    /// The place of a stretch of `kind` on `thread` by its parent, after
    /// and before.
    pub(super) fn place(
        &mut self,
        trace: &Trace,
        thread: StrId,
        kind: GapKind,
        [parent, after, before]: [Option<ScopeIdx>; 3],
    ) -> PlaceId {
        let name = |i: Option<ScopeIdx>| {
            i.map_or(u32::MAX, |i| {
                trace.defs.name[trace.scopes.def[i.idx()].idx()].0
            })
        };
        let path = parent.map_or(u32::MAX, |p| self.of(trace, p));
        (thread.0, kind, path, name(after), name(before))
    }
}

/// Unprofiled time (on threads named `thread`, or all): the single gaps of
/// at least `min_ns` (the first `top`, longest first, ties by start) and the
/// gaps that recur in two or more frames summing to at least `min_ns` (the
/// first `top`, largest total first); the idle stretches of threads that
/// run tasks likewise, apart.
pub fn gaps(trace: &Trace, thread: Option<&str>, min_ns: i64, top: usize) -> GapsReport {
    let stream_ok = stream_filter(trace, thread, None);
    let roles = ThreadRoles::of(trace);
    let floor = RECURRING_FLOOR_NS.min(min_ns).max(1);
    let mut found: Vec<Found> = Vec::new();
    for (st, _) in stream_ok.iter().enumerate().filter(|(_, ok)| **ok) {
        let thread = trace.threads.name[trace.streams.thread[st].idx()];
        let frame = trace.streams.frame[st];
        for_each_stretch(trace, &roles, StreamId(st as u32), floor, |x| {
            found.push(Found { x, thread, frame });
        });
    }
    // Between frames: consecutive frame indices only (a frame the capture
    // did not keep is not idle time), with a thread filter none.
    let mut frames: Vec<FrameId> = trace.frames.ids().collect();
    frames.sort_by_key(|f| (trace.frames.range_ns[f.idx()].0, f.0));
    if thread.is_none() {
        for w in frames.windows(2) {
            let (x, y) = (w[0], w[1]);
            let fr = &trace.frames;
            if fr.frame_index[x.idx()].checked_add(1) != Some(fr.frame_index[y.idx()]) {
                continue;
            }
            let x = Stretch {
                start_ns: fr.range_ns[x.idx()].1,
                end_ns: fr.range_ns[y.idx()].0,
                depth: 0,
                kind: GapKind::BetweenFrames,
                parent: None,
                after: None,
                before: None,
            };
            if x.len_ns() >= floor {
                found.push(Found {
                    x,
                    thread: StrId(u32::MAX),
                    frame: w[0],
                });
            }
        }
    }
    let index = WaitIndex::of(trace);
    let others = index.threads.len() > 1;
    let mut ctx = Ctx {
        trace,
        index: &index,
        roles: &roles,
        min_ns,
        top,
        waits: others.then_some(&index),
    };
    let (idle, found): (Vec<Found>, Vec<Found>) =
        found.into_iter().partition(|f| f.x.kind == GapKind::Idle);
    let (gaps, total_gaps, recurring, total_recurring) = ctx.rank(found);
    // Idle stretches wait for work, not for a thread's result.
    ctx.waits = None;
    let (idle, total_idle, recurring_idle, total_recurring_idle) = ctx.rank(idle);
    GapsReport {
        other_threads_recorded: others,
        gaps,
        total_gaps,
        recurring,
        total_recurring,
        idle,
        total_idle,
        recurring_idle,
        total_recurring_idle,
        threads: roles.threads,
    }
}

/// One list's ranking: one-off (the first `top`, and how many in all) and
/// recurring (likewise).
type Ranked = (Vec<Gap>, usize, Vec<RecurringGap>, usize);

/// What ranking a list of stretches reads.
struct Ctx<'a> {
    trace: &'a Trace,
    index: &'a WaitIndex,
    roles: &'a ThreadRoles,
    min_ns: i64,
    top: usize,
    /// Traces what the gaps wait for (`None`: not traced).
    waits: Option<&'a WaitIndex>,
}

impl Ctx<'_> {
    fn rank(&self, found: Vec<Found>) -> Ranked {
        let (trace, index, min_ns, top) = (self.trace, self.index, self.min_ns, self.top);
        // The thread, none between frames.
        let except = |t: StrId| (t.0 != u32::MAX).then_some(t);
        let thread_name =
            |t: StrId| except(t).map_or_else(String::new, |t| trace.str(t).to_owned());

        // Recurring: stretches grouped by place: sorted by (place, index), one run a place
        // (no map of vectors: a worst case has a million places).
        let mut paths = Paths::new(trace);
        let mut keyed: Vec<(PlaceId, u32)> = (found.iter().enumerate())
            .map(|(k, f)| {
                let at = [f.x.parent, f.x.after, f.x.before];
                (paths.place(trace, f.thread, f.x.kind, at), k as u32)
            })
            .collect();
        keyed.sort_unstable();
        let members: Vec<u32> = keyed.iter().map(|&(_, k)| k).collect();
        let mut at = 0;
        let runs: Vec<std::ops::Range<usize>> = (keyed.chunk_by(|x, y| x.0 == y.0))
            .filter_map(|run| {
                at += run.len();
                (run.len() >= 2).then_some(at - run.len()..at)
            })
            .collect();
        drop(keyed);
        let len = |k: u32| found[k as usize].x.len_ns();
        // A usual occurrence of a recurring gap (at most twice its median) is
        // listed with it, not again as a one-off. The groups: (total, median,
        // longest, occurrences).
        let mut usual = vec![false; found.len()];
        let mut groups: Vec<(i64, i64, i64, &[u32])> = Vec::new();
        for r in runs {
            let ks = &members[r];
            let mut d: Vec<i64> = ks.iter().map(|&k| len(k)).collect();
            let total = d.iter().fold(0i64, |sum, &x| sum.saturating_add(x));
            let median = lower_median(&mut d);
            for &k in ks {
                usual[k as usize] = len(k) <= median.saturating_mul(2);
            }
            if total >= min_ns.max(1) {
                groups.push((total, median, d[d.len() - 1], ks));
            }
        }
        // Largest total first; ties by the first occurrence's start.
        groups.sort_by_key(|&(total, _, _, ks)| {
            (Reverse(total), found[ks[0] as usize].x.start_ns, ks[0])
        });
        let total_recurring = groups.len();
        let recurring: Vec<RecurringGap> = groups
            .into_iter()
            .take(top)
            .map(|(total, median_ns, max_ns, ks)| {
                let first = found[ks[0] as usize];
                let longest = (ks.iter())
                    .max_by_key(|&&k| (len(k), Reverse(found[k as usize].x.start_ns)))
                    .map_or(first, |&k| found[k as usize]);
                let windows: Vec<(i64, i64)> = ks
                    .iter()
                    .map(|&k| (found[k as usize].x.start_ns, found[k as usize].x.end_ns))
                    .collect();
                let span = (first.thread.0 != u32::MAX)
                    .then(|| self.roles.span.get(&first.thread).copied().unwrap_or(0));
                RecurringGap {
                    place: GapPlace::of(
                        trace,
                        thread_name(first.thread),
                        first.x.kind,
                        [first.x.parent, first.x.after, first.x.before],
                    ),
                    occurrences: ks.len() as u64,
                    frames: ks.len() as u64,
                    median_ns,
                    max_ns,
                    total_ns: total,
                    share_of_thread_pct: span
                        .filter(|&span| span > 0)
                        .map(|span| (100.0 * total as f64 / span as f64).min(100.0)),
                    share_of: span.map(|_| "thread-span"),
                    thread_span_ns: span,
                    other_threads: busy_threads(trace, index, except(first.thread), &windows),
                    longest_frame_index: trace.frames.frame_index[longest.frame.idx()],
                    longest_start_ns: longest.x.start_ns,
                    waits_for: self
                        .waits
                        .filter(|_| first.x.kind != GapKind::BetweenFrames)
                        .and_then(|w| super::waits::recurring(trace, w, first.thread, &windows)),
                }
            })
            .collect();

        // One-off gaps: at least min_ns, not a usual occurrence of a recurring one.
        let mut singles: Vec<Found> = found
            .into_iter()
            .zip(usual)
            .filter(|(f, usual)| !usual && f.x.len_ns() >= min_ns.max(1))
            .map(|(f, _)| f)
            .collect();
        singles.sort_by_key(|f| {
            (
                Reverse(f.x.len_ns()),
                f.x.start_ns,
                f.x.kind,
                f.x.parent.map_or(u32::MAX, |p| p.0),
            )
        });
        let total_gaps = singles.len();
        let gaps = singles
            .into_iter()
            .take(top)
            .map(|f| Gap {
                thread: thread_name(f.thread),
                frame_index: trace.frames.frame_index[f.frame.idx()],
                kind: f.x.kind,
                parent: f.x.parent.map(|p| NameData::of(trace, p)),
                path: path_of(trace, f.x.parent),
                after: f.x.after.map(|i| NameData::of(trace, i)),
                before: f.x.before.map(|i| NameData::of(trace, i)),
                start_ns: f.x.start_ns,
                end_ns: f.x.end_ns,
                duration_ns: f.x.len_ns(),
                other_threads: busy_threads(
                    trace,
                    index,
                    except(f.thread),
                    &[(f.x.start_ns, f.x.end_ns)],
                ),
                waits_for: self
                    .waits
                    .filter(|_| f.x.kind != GapKind::BetweenFrames)
                    .and_then(|w| w.trace(f.thread, f.x.start_ns, f.x.end_ns))
                    .map(|t| WaitsFor::of(trace, &t)),
            })
            .collect();
        (gaps, total_gaps, recurring, total_recurring)
    }
}

/// Time within `[lo_ns, hi_ns)` that some thread's top-level scope covers
/// (their union), and how many thread names the recording has.
pub fn covered_in(trace: &Trace, lo_ns: i64, hi_ns: i64) -> (i64, usize) {
    let index = WaitIndex::of(trace);
    let mut parts: Vec<(i64, i64)> = Vec::new();
    for iv in &index.threads {
        iv.overlaps(lo_ns, hi_ns, |&(start, end, _), _| {
            parts.push((start.max(lo_ns), end.min(hi_ns)));
        });
    }
    parts.sort_unstable();
    (union_ns(parts), index.threads.len())
}
