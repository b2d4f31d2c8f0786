//! Helpers the analyses share: ranking and top-k of instances, frame and
//! stream selection, the `--thread` a user gives resolved to a thread's name,
//! dense group ids, instances by name, the spike rule.

use crate::engine::model::{FrameId, ScopeIdx, StrId, StreamId, Trace};
use crate::engine::write::escape::visible;
use crate::units::thread_label;
use rustc_hash::FxHashMap;
use std::cmp::{Ordering, Reverse};
use std::collections::BinaryHeap;
use std::ops::Range;

/// Per scope definition of `t`, the index of its name in `names`
/// (`u32::MAX`: not asked).
pub fn def_slots(t: &Trace, names: &[&str]) -> Vec<u32> {
    let slot_of: FxHashMap<&str, u32> = names
        .iter()
        .enumerate()
        .map(|(k, &n)| (n, k as u32))
        .collect();
    t.defs
        .name
        .iter()
        .map(|&n| slot_of.get(t.str(n)).copied().unwrap_or(u32::MAX))
        .collect()
}

/// The names `t` calls (a registration may list names it never calls), on
/// the threads named `thread` when given: sorted by id, each once.
pub fn called_names(t: &Trace, thread: Option<&str>) -> Vec<StrId> {
    let on = stream_filter(t, thread, None);
    let mut called = vec![false; t.defs.len()];
    for st in (0..on.len()).filter(|&st| on[st]) {
        for i in t.streams.scopes(StreamId(st as u32)) {
            called[t.scopes.def[i as usize].idx()] = true;
        }
    }
    let mut names: Vec<StrId> = (0..t.defs.len())
        .filter(|&k| called[k])
        .map(|k| t.defs.name[k])
        .collect();
    names.sort_unstable();
    names.dedup();
    names
}

/// The calls of `names` in `t`, in scope order, each as `(its name's index
/// in names, the scope)`; a call directly inside a call of the same name is
/// left out (it counts once, in the outer one). One pass over the scopes.
pub fn calls_of_names<'t>(
    t: &'t Trace,
    names: &[&str],
) -> impl Iterator<Item = (usize, ScopeIdx)> + 't {
    const NONE: u32 = u32::MAX;
    let def_slot = def_slots(t, names);
    let s = &t.scopes;
    (0..s.len()).filter_map(move |i| {
        let slot = def_slot[s.def[i].0 as usize];
        let parent = s.parent[i];
        let nested = parent != crate::engine::model::NO_PARENT
            && def_slot[s.def[parent as usize].0 as usize] == slot;
        (slot != NONE && !nested).then_some((slot as usize, ScopeIdx(i as u32)))
    })
}

/// Instances, groups or rows a sliced build ([`super::CompareBuilder`],
/// [`super::tree::MergedTreeBuilder`]) handles between two looks at the clock.
pub const CHUNK: usize = 1 << 15;

/// `end - start`, or 0 for an empty range (start > end).
pub(super) fn span_ns((start, end): (i64, i64)) -> i64 {
    end.saturating_sub(start).max(0)
}

/// Ranking of an instance for "slowest first, ties by earlier start, then
/// file order": larger is better.
pub(super) type Rank = (i64, Reverse<i64>, Reverse<u32>);

pub(super) fn rank(trace: &Trace, i: u32) -> Rank {
    (
        trace.scopes.duration_ns[i as usize],
        Reverse(trace.scopes.start_ns[i as usize]),
        Reverse(i),
    )
}

/// The `k` best instances among `candidates`, best first, in O(n log k).
pub(super) fn top_k(
    trace: &Trace,
    candidates: impl Iterator<Item = u32>,
    k: usize,
) -> Vec<ScopeIdx> {
    if k == 0 {
        return Vec::new();
    }
    // `k` is the caller's (any number, "all" included): room for no more
    // than there are scopes.
    let room = k.min(trace.scopes.len()).saturating_add(1);
    let mut heap: BinaryHeap<Reverse<Rank>> = BinaryHeap::with_capacity(room);
    let durations = &trace.scopes.duration_ns;
    for i in candidates {
        if heap.len() == k {
            // Cheap reject before building the full key.
            let worst = heap.peek().map_or(i64::MIN, |r| r.0.0);
            if durations[i as usize] < worst {
                continue;
            }
            let key = rank(trace, i);
            if heap.peek().is_some_and(|r| key > r.0) {
                heap.pop();
                heap.push(Reverse(key));
            }
        } else {
            heap.push(Reverse(rank(trace, i)));
        }
    }
    // Ascending by `Reverse`: best first.
    (heap.into_sorted_vec().into_iter())
        .map(|Reverse((_, _, Reverse(i)))| ScopeIdx(i))
        .collect()
}

/// The first `n` of `items` in the order of `cmp` (a total order): a
/// selection, then a sort of those `n` only.
pub(super) fn first_n<T>(mut items: Vec<T>, n: usize, cmp: impl Fn(&T, &T) -> Ordering) -> Vec<T> {
    if n == 0 {
        return Vec::new();
    }
    if n < items.len() {
        items.select_nth_unstable_by(n - 1, &cmp);
        items.truncate(n);
    }
    items.sort_unstable_by(cmp);
    items
}

/// Largest |change| first (`of`: a row's change and key, a name say), ties by key.
pub(super) fn largest_first<T, K: Ord + ?Sized>(rows: &mut [T], of: impl Fn(&T) -> (f64, &K)) {
    rows.sort_by(|x, y| {
        let ((dx, nx), (dy, ny)) = (of(x), of(y));
        dy.abs().total_cmp(&dx.abs()).then_with(|| nx.cmp(ny))
    });
}

/// Dense group ids for `u64` keys: a hash map behind a direct-mapped cache,
/// so runs of equal keys and small working sets (the usual case: a few
/// hundred distinct scope names) are found without hashing into the map.
/// Measured on the 2M-scope capture: the merged tree 34 -> 22 ms natively
/// and 170 -> 52 ms in wasm. (The (name, data) groups use [`PairIndex`].)
pub(crate) struct GroupIndex {
    map: FxHashMap<u64, u32>,
    cache: Vec<(u64, u32)>,
}

impl GroupIndex {
    const CACHE_BITS: u32 = 12;

    pub(crate) fn new() -> Self {
        Self {
            map: FxHashMap::default(),
            cache: vec![(u64::MAX, 0); 1 << Self::CACHE_BITS],
        }
    }

    /// The id of `key`, made by `new` the first time it is seen.
    #[inline]
    pub(crate) fn get_or_insert(&mut self, key: u64, new: impl FnOnce() -> u32) -> u32 {
        let slot = (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - Self::CACHE_BITS)) as usize;
        let cached = self.cache[slot];
        if cached.0 == key {
            return cached.1;
        }
        let id = *self.map.entry(key).or_insert_with(new);
        self.cache[slot] = (key, id);
        id
    }
}

/// Dense group ids of (name, data) string pairs of one trace, found by the
/// data string's id (by the name's when grouping by name only): an array
/// lookup for a data string seen with one name (most, when scopes carry
/// per-call data: a hash map of 2M such pairs was most of the diff table's
/// grouping), a hash map for the pairs whose data string was first seen
/// with another name (no data, data shared by several names). For a few
/// instances of a trace of many strings (one frame of a big capture) the
/// array would cost more than it saves: then every pair is in the map.
#[derive(Clone, Debug, Default)]
pub(crate) struct PairIndex {
    by_name_only: bool,
    /// Per string id: the first group with that data (or name) and its name;
    /// empty when sparse.
    first: Vec<(u32, StrId)>,
    others: FxHashMap<u64, u32>,
}

impl PairIndex {
    const NONE: u32 = u32::MAX;

    /// For up to `instances` instances of a trace of `strings` strings.
    pub(crate) fn new(by: super::GroupBy, strings: usize, instances: usize) -> Self {
        let dense = instances.saturating_mul(8) >= strings;
        Self {
            by_name_only: by == super::GroupBy::Name,
            first: if dense {
                vec![(Self::NONE, StrId(0)); strings]
            } else {
                Vec::new()
            },
            others: FxHashMap::default(),
        }
    }

    /// The slot of (`name`, `data`) in `first`, and the pair as one key.
    #[inline]
    fn slot(&self, name: StrId, data: StrId) -> (usize, u64) {
        if self.by_name_only {
            (name.idx(), u64::from(name.0) << 32)
        } else {
            (data.idx(), (u64::from(name.0) << 32) | u64::from(data.0))
        }
    }

    /// The id of (`name`, `data`) (`data` is ignored when grouping by
    /// name), made by `new` the first time it is seen.
    #[inline]
    pub(crate) fn get_or_insert(
        &mut self,
        name: StrId,
        data: StrId,
        new: impl FnOnce() -> u32,
    ) -> u32 {
        let (slot, key) = self.slot(name, data);
        if self.first.is_empty() {
            return *self.others.entry(key).or_insert_with(new);
        }
        if slot >= self.first.len() {
            // A string the trace did not have when this index was made.
            self.first.resize(slot + 1, (Self::NONE, StrId(0)));
        }
        let (g, first_name) = self.first[slot];
        if g == Self::NONE {
            let g = new();
            self.first[slot] = (g, name);
            g
        } else if first_name == name {
            g
        } else {
            *self.others.entry(key).or_insert_with(new)
        }
    }

    /// The id of (`name`, `data`), if it was seen.
    pub(crate) fn get(&self, name: StrId, data: StrId) -> Option<u32> {
        let (slot, key) = self.slot(name, data);
        match self.first.get(slot) {
            Some(&(g, _)) if g == Self::NONE => None,
            Some(&(g, first_name)) if first_name == name => Some(g),
            // First seen with another name; sparse (every pair in the map),
            // or a string made after it.
            _ => self.others.get(&key).copied(),
        }
    }
}

pub(super) fn all_scopes(trace: &Trace) -> Range<u32> {
    0..trace.scopes.len() as u32
}

/// The scope instances of frame `f` (contiguous: frames and their streams
/// are stored in order).
pub fn frame_scopes(trace: &Trace, f: FrameId) -> Range<u32> {
    frames_scopes(trace, f.0..f.0 + 1)
}

/// The instances of frames `frames` (positions), as one contiguous range
/// (frames, their streams and their scopes are stored in order).
pub fn frames_scopes(trace: &Trace, frames: Range<u32>) -> Range<u32> {
    let frames = clamp_frames(trace, frames);
    if frames.is_empty() {
        return 0..0;
    }
    let first = trace.frames.streams(FrameId(frames.start)).start;
    let last = trace.frames.streams(FrameId(frames.end - 1)).end;
    if first >= last {
        return 0..0;
    }
    trace.streams.scopes(StreamId(first)).start..trace.streams.scopes(StreamId(last - 1)).end
}

/// The frame with this `frame_index` (the first in file order when indices
/// repeat after a restart).
pub fn frame_by_index(trace: &Trace, frame_index: u64) -> Option<FrameId> {
    trace
        .frames
        .frame_index
        .iter()
        .position(|&f| f == frame_index)
        .map(|f| FrameId(f as u32))
}

/// The slowest frame (ties: first in file order).
pub fn slowest_frame(trace: &Trace) -> Option<FrameId> {
    trace
        .frames
        .ids()
        .max_by_key(|&f| (trace.frames.duration_ns(f), Reverse(f.0)))
}

/// A thread asked for (`--thread`, the query's `thread`) that none of the
/// recordings has: a usage error, never an empty answer.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("no thread {asked} ({})", threads_listed(.known))]
pub struct UnknownThread {
    /// What was asked for, as printed (control characters visible, quoted).
    pub asked: String,
    /// The recordings' threads as the tables print them: sorted, each once.
    pub known: Vec<String>,
}

fn threads_listed(known: &[String]) -> String {
    if known.is_empty() {
        "the recording has no threads".to_owned()
    } else {
        format!("threads: {}", known.join(", "))
    }
}

/// The thread name `asked` selects in `traces` (one recording, or A and B):
/// the name itself when a thread has it, else the name of the threads whose
/// label the tables print is `asked` (`(unnamed)` for the empty name, control
/// characters shown as escapes). A thread literally named `(unnamed)` wins
/// over the label. Every `--thread` and the query API's `thread` go through
/// here; the analyses then match the name.
pub fn resolve_thread(traces: &[&Trace], asked: &str) -> Result<String, UnknownThread> {
    let mut names: Vec<&str> = traces
        .iter()
        .flat_map(|t| t.threads.name.iter().map(|&n| t.str(n)))
        .collect();
    names.sort_unstable();
    names.dedup();
    if names.contains(&asked) {
        return Ok(asked.to_owned());
    }
    if let Some(name) = names.iter().find(|&&n| visible(thread_label(n)) == asked) {
        return Ok((*name).to_owned());
    }
    // As the tables print them, quoted: `"(unnamed)"`, `"main"`.
    let known: std::collections::BTreeSet<String> = (names.iter())
        .map(|n| format!("\"{}\"", visible(thread_label(n))))
        .collect();
    Err(UnknownThread {
        asked: format!("\"{}\"", visible(asked)),
        known: known.into_iter().collect(),
    })
}

/// Which streams pass a thread-name and frame-index filter.
pub(super) fn stream_filter(
    trace: &Trace,
    thread: Option<&str>,
    frame_index: Option<u64>,
) -> Vec<bool> {
    let thread_id: Option<Option<StrId>> = thread.map(|t| trace.strings.find(t));
    (0..trace.streams.len())
        .map(|s| {
            let name = trace.threads.name[trace.streams.thread[s].idx()];
            let name_ok = thread_id.is_none_or(|id| id == Some(name));
            let frame_ok = frame_index
                .is_none_or(|fi| trace.frames.frame_index[trace.streams.frame[s].idx()] == fi);
            name_ok && frame_ok
        })
        .collect()
}

/// Instances whose name or data equals `name`, in file order.
pub fn named_instances(trace: &Trace, name: &str) -> Vec<ScopeIdx> {
    named_instances_of(trace, &[name]).swap_remove(0)
}

/// [`named_instances`] of several names in one pass over the scopes: each
/// name's instances, in `names`' order.
pub fn named_instances_of(trace: &Trace, names: &[&str]) -> Vec<Vec<ScopeIdx>> {
    let mut out = vec![Vec::new(); names.len()];
    let mut slot_of: FxHashMap<u32, usize> = FxHashMap::default();
    for (k, name) in names.iter().enumerate() {
        if let Some(id) = trace.strings.find(name) {
            slot_of.entry(id.0).or_insert(k);
        }
    }
    if slot_of.is_empty() {
        return out;
    }
    let def_slot: Vec<Option<usize>> = trace
        .defs
        .name
        .iter()
        .map(|n| slot_of.get(&n.0).copied())
        .collect();
    let s = &trace.scopes;
    for i in all_scopes(trace) {
        let by_def = def_slot[s.def[i as usize].idx()];
        let by_data = slot_of.get(&s.data[i as usize].0).copied();
        if let Some(k) = by_def {
            out[k].push(ScopeIdx(i));
        }
        if let Some(k) = by_data.filter(|&k| by_def != Some(k)) {
            out[k].push(ScopeIdx(i));
        }
    }
    out
}

/// Why [`children`] or [`calls`] found nothing for `name`.
pub fn no_scope_named(name: &str) -> String {
    format!("no scope named {name:?} (nor with that data)")
}

/// One call dominates: at least 2 calls and the largest is more than half of
/// the total (the rule of `calls`, `compare` and the scope details).
pub fn spike(count: u64, max_ns: i64, total_ns: i64) -> bool {
    count >= 2 && max_ns.saturating_mul(2) > total_ns
}

/// The lower median of `values` padded with zeros to `units` values (a
/// unit without the name counts 0), which it sorts; 0 for no unit.
pub fn lower_median_padded(values: &mut [i64], units: usize) -> i64 {
    if units == 0 {
        return 0;
    }
    values.sort_unstable();
    let k = (units - 1) / 2;
    let negative = values.partition_point(|&v| v < 0);
    let zeros = units.saturating_sub(values.len());
    if k < negative {
        values[k]
    } else if k < negative + zeros {
        0
    } else {
        values.get(k - zeros).copied().unwrap_or(0)
    }
}

/// The lower median of `v` (0 when empty), which it sorts.
pub fn lower_median(v: &mut [i64]) -> i64 {
    let n = v.len();
    lower_median_padded(v, n)
}

/// The time sorted intervals `[start, end)` cover (their union).
pub fn union_ns(sorted: impl IntoIterator<Item = (i64, i64)>) -> i64 {
    let (mut covered, mut reach) = (0i64, i64::MIN);
    for (a, b) in sorted {
        let a = a.max(reach);
        if b > a {
            covered = covered.saturating_add(b.saturating_sub(a));
            reach = b;
        }
    }
    covered
}

/// `part` of `whole` in percent (0 when `whole` is 0).
pub fn pct(part: f64, whole: f64) -> f64 {
    if whole.abs() > 0.0 {
        100.0 * part / whole
    } else {
        0.0
    }
}

/// Frame positions `range` (file order) of the trace, clamped to it.
pub fn clamp_frames(trace: &Trace, range: Range<u32>) -> Range<u32> {
    let n = trace.frames.len() as u32;
    range.start.min(n)..range.end.min(n)
}

/// Nodes depth first from `roots` (each node, then its `children` in order),
/// without recursion: how the tree and diff answers list their rows.
pub(super) fn preorder<'t, N: Copy + 't>(
    roots: &[N],
    children: impl Fn(N) -> &'t [N] + 't,
) -> impl Iterator<Item = N> + 't {
    let mut stack: Vec<N> = roots.iter().rev().copied().collect();
    std::iter::from_fn(move || {
        let n = stack.pop()?;
        stack.extend(children(n).iter().rev());
        Some(n)
    })
}

/// Children lists (CSR) of `len` nodes from `(parent, child)` edges, each
/// list in edge order: node `n`'s children are `list[start[n]..start[n + 1]]`.
pub(super) fn children_lists<C: Copy + Default>(
    len: usize,
    edges: impl Iterator<Item = (u32, C)> + Clone,
) -> (Vec<u32>, Vec<C>) {
    let mut start = vec![0u32; len + 1];
    for (p, _) in edges.clone() {
        start[p as usize + 1] += 1;
    }
    for i in 0..len {
        start[i + 1] += start[i];
    }
    let mut fill = start.clone();
    let mut list = vec![C::default(); start[len] as usize];
    for (p, c) in edges {
        list[fill[p as usize] as usize] = c;
        fill[p as usize] += 1;
    }
    (start, list)
}

/// `items` written as a JSON list, each as `f` makes it: the nested tree
/// answers, written while walked.
pub(super) struct SeqOf<I, F>(pub I, pub F);

impl<I: Iterator + Clone, T: serde::Serialize, F: Fn(I::Item) -> T> serde::Serialize
    for SeqOf<I, F>
{
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.0.clone().map(&self.1))
    }
}

/// Rows with a name and a data string, as [`NameOrder`] sorts them.
pub trait NamedRows<R> {
    /// The same for rows of the same name, different otherwise.
    fn name_key(&self, row: R) -> u64;
    fn name(&self, row: R) -> &str;
    fn data(&self, row: R) -> &str;
}

/// Rows ([`NamedRows`]: the diff's, the table's) in name order, then
/// data, a slice at a time: the rows bucketed by their name (few: scope
/// names), buckets in name order, each bucket sorted by data.
///
/// A bucket is sorted by integer keys, not by comparing strings (which
/// reads two strings scattered over the string table per comparison: most
/// of the diff table's first build on the worst case): a row's key is the
/// 12 bytes of its data after the common prefix of its bucket's non-empty
/// data strings, read as a big-endian integer (zero past the end, and for
/// no data), so a smaller key is a smaller string; only rows whose keys tie
/// are ordered by their whole strings. Each row's data is read twice, in
/// the rows' own order (for its bucket's prefix, then for its key).
#[derive(Debug)]
pub struct NameOrder<R> {
    items: Vec<R>,
    buckets: Vec<Bucket<R>>,
    bucket_of: FxHashMap<u64, u32>,
    /// Each row's bucket, while bucketing.
    bucket: Vec<u32>,
    /// The rows grouped by bucket, buckets in name order, and their keys
    /// (the data's in the high 96 bits), filled `placed` rows at a time.
    grouped: Vec<R>,
    keys: Vec<u128>,
    placed: usize,
    /// Where each bucket's next row goes in `grouped`, while placing.
    at: Vec<usize>,
    /// Buckets in name order, and where each starts in `grouped`.
    order: Vec<(u32, usize)>,
    /// Buckets sorted so far (in name order).
    sorted: usize,
}

/// A bucket of [`NameOrder`]: a row of it (for its name), its rows' count,
/// its first row with data and the common prefix of its rows' data, bytes.
#[derive(Clone, Copy, Debug)]
struct Bucket<R> {
    row: R,
    count: usize,
    with_data: Option<R>,
    common: usize,
}

/// The first 12 bytes of `rest` as the high 96 bits of a big-endian integer.
fn data_key(rest: &[u8]) -> u128 {
    let mut key = [0u8; 16];
    let n = rest.len().min(12);
    key[..n].copy_from_slice(&rest[..n]);
    u128::from_be_bytes(key)
}

impl<R: Copy> NameOrder<R> {
    pub fn new(items: Vec<R>) -> Self {
        Self {
            bucket: Vec::with_capacity(items.len()),
            items,
            buckets: Vec::new(),
            bucket_of: FxHashMap::default(),
            grouped: Vec::new(),
            keys: Vec::new(),
            placed: 0,
            at: Vec::new(),
            order: Vec::new(),
            sorted: 0,
        }
    }

    /// How far along, 0 to 1.
    pub fn progress(&self) -> f32 {
        let rows = self.items.len().max(self.grouped.len()).max(1) as f32;
        let sorted = self
            .order
            .get(self.sorted)
            .map_or(self.grouped.len(), |b| b.1);
        let bucketed = if self.order.is_empty() {
            self.bucket.len()
        } else {
            self.grouped.len()
        };
        (bucketed as f32 + self.placed as f32 + sorted as f32) / rows / 3.0
    }

    /// Orders until `more` says stop (asked after each chunk or bucket), or
    /// until the first `n` rows are in order; those rows once they are.
    pub fn step(
        &mut self,
        j: &dyn NamedRows<R>,
        n: usize,
        more: &mut dyn FnMut() -> bool,
    ) -> Option<Vec<R>> {
        // Bucketing, and each bucket's common prefix.
        while self.order.is_empty() && self.bucket.len() < self.items.len() {
            let end = (self.bucket.len() + CHUNK).min(self.items.len());
            for k in self.bucket.len()..end {
                let p = self.items[k];
                let buckets = &mut self.buckets;
                let b = *self.bucket_of.entry(j.name_key(p)).or_insert_with(|| {
                    buckets.push(Bucket {
                        row: p,
                        count: 0,
                        with_data: None,
                        common: 0,
                    });
                    buckets.len() as u32 - 1
                });
                let bucket = &mut self.buckets[b as usize];
                bucket.count += 1;
                let data = j.data(p).as_bytes();
                if !data.is_empty() {
                    match bucket.with_data {
                        None => {
                            bucket.with_data = Some(p);
                            bucket.common = data.len();
                        }
                        Some(first) => {
                            let first = &j.data(first).as_bytes()[..bucket.common];
                            bucket.common =
                                first.iter().zip(data).take_while(|(x, y)| x == y).count();
                        }
                    }
                }
                self.bucket.push(b);
            }
            if !more() {
                return None;
            }
        }
        if self.order.is_empty() && !self.buckets.is_empty() {
            let mut by_name: Vec<u32> = (0..self.buckets.len() as u32).collect();
            by_name.sort_unstable_by(|&x, &y| {
                j.name(self.buckets[x as usize].row)
                    .cmp(j.name(self.buckets[y as usize].row))
            });
            self.at = vec![0usize; self.buckets.len()];
            let mut sum = 0;
            for &b in &by_name {
                self.at[b as usize] = sum;
                self.order.push((b, sum));
                sum += self.buckets[b as usize].count;
            }
            self.grouped = vec![self.items[0]; self.items.len()];
            self.keys = vec![0; self.items.len()];
            self.bucket_of = FxHashMap::default();
            if !more() {
                return None;
            }
        }
        // Each row placed in its bucket, with its key.
        while self.placed < self.items.len() && !self.order.is_empty() {
            let end = (self.placed + CHUNK).min(self.items.len());
            for k in self.placed..end {
                let (p, b) = (self.items[k], self.bucket[k] as usize);
                let data = j.data(p).as_bytes();
                let key = data_key(data.get(self.buckets[b].common..).unwrap_or_default());
                let at = &mut self.at[b];
                self.grouped[*at] = p;
                self.keys[*at] = key;
                *at += 1;
            }
            self.placed = end;
            if end == self.items.len() {
                self.items = Vec::new();
                self.bucket = Vec::new();
                self.at = Vec::new();
            }
            if !more() {
                return None;
            }
        }
        // Sorting each bucket by data, in name order, up to the first `n`.
        while self.sorted < self.order.len() {
            let (b, start) = self.order[self.sorted];
            if start >= n {
                break;
            }
            let range = start..start + self.buckets[b as usize].count;
            sort_bucket(&mut self.grouped[range.clone()], &mut self.keys[range], j);
            self.sorted += 1;
            if self.sorted < self.order.len() && !more() {
                return None;
            }
        }
        self.keys = Vec::new();
        let mut out = std::mem::take(&mut self.grouped);
        out.truncate(n);
        Some(out)
    }
}

/// Orders a bucket's `rows` by data, given their keys ([`NameOrder`]).
fn sort_bucket<R: Copy>(rows: &mut [R], keys: &mut [u128], j: &dyn NamedRows<R>) {
    const DATA: u128 = !(u32::MAX as u128);
    for (i, key) in keys.iter_mut().enumerate() {
        *key = (*key & DATA) | i as u128;
    }
    keys.sort_unstable();
    let data = |k: u128| j.data(rows[(k as u32) as usize]);
    let mut start = 0;
    while start < keys.len() {
        let key = keys[start] & DATA;
        let end = start
            + keys[start..]
                .iter()
                .take_while(|&&k| k & DATA == key)
                .count();
        if end - start > 1 {
            keys[start..end].sort_by(|&x, &y| data(x).cmp(data(y)));
        }
        start = end;
    }
    let sorted: Vec<R> = keys.iter().map(|&k| rows[(k as u32) as usize]).collect();
    rows.copy_from_slice(&sorted);
}

/// What a transformed answer says of its call-tree transforms (see
/// `transform`): the stack as written (`merge:NAME`, …), in the order
/// applied, and one line per transform that matched nothing.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Applied {
    pub transforms: Vec<String>,
    pub warnings: Vec<String>,
}
