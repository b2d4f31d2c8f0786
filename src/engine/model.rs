//! The columnar model every query, view and export reads.
//!
//! Struct-of-arrays tables with typed `u32` handles:
//!
//! - [`FrameTable`]: one row per frame, in file order; each owns a contiguous
//!   range of streams.
//! - [`StreamTable`]: one row per (frame, thread) stream, in stored order; each
//!   owns a contiguous range of scope instances.
//! - [`ThreadTable`]: distinct threads (name + start time).
//! - [`ScopeTable`]: one row per scope instance, depth-first pre-order, so a
//!   parent always comes before its children and a subtree is the contiguous
//!   range `i..subtree_end[i]`. The first child of `i` is `i + 1` (when
//!   `i + 1 < subtree_end[i]`), the next sibling of a child `c` is
//!   `subtree_end[c]`: children are reachable in O(children).
//! - [`ScopeDefs`]: scope definitions (registrations), keyed by the id in the
//!   recording. Instances point to a definition; names resolve through it.

use hashbrown::HashTable;
use rustc_hash::{FxHashMap, FxHasher};
use std::hash::Hasher as _;
use std::ops::Range;

macro_rules! handle {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
        pub struct $name(pub u32);

        impl $name {
            #[inline]
            pub fn idx(self) -> usize {
                self.0 as usize
            }
        }
    };
}

handle!(
    /// An interned string.
    StrId
);
handle!(
    /// A scope instance (row of [`ScopeTable`]).
    ScopeIdx
);
handle!(
    /// A scope definition (row of [`ScopeDefs`]).
    DefId
);
handle!(
    /// A thread (row of [`ThreadTable`]).
    ThreadId
);
handle!(
    /// A frame (row of [`FrameTable`]), in file order.
    FrameId
);
handle!(
    /// A per-frame thread stream (row of [`StreamTable`]).
    StreamId
);

/// Calls `$method($args)` on every column of a [`ScopeTable`].
macro_rules! each_scope_column {
    ($table:expr, $method:ident $(, $arg:expr)*) => {{
        let t = $table;
        t.start_ns.$method($($arg),*);
        t.duration_ns.$method($($arg),*);
        t.self_ns.$method($($arg),*);
        t.parent.$method($($arg),*);
        t.subtree_end.$method($($arg),*);
        t.def.$method($($arg),*);
        t.data.$method($($arg),*);
        t.depth.$method($($arg),*);
        t.stream.$method($($arg),*);
    }};
}

/// `parent` of a top-level scope.
pub const NO_PARENT: u32 = u32::MAX;

/// Deduplicated strings; `StrId(0)` is always `""`.
#[derive(Clone)]
pub struct Interner {
    buf: String,
    ends: Vec<usize>,
    table: HashTable<u32>,
}

impl Default for Interner {
    fn default() -> Self {
        let mut interner = Self {
            buf: String::new(),
            ends: Vec::new(),
            table: HashTable::new(),
        };
        interner.intern("");
        interner
    }
}

#[inline]
fn hash_str(s: &str) -> u64 {
    hash_bytes(s.as_bytes())
}

#[inline]
fn hash_bytes(bytes: &[u8]) -> u64 {
    let mut hasher = FxHasher::default();
    hasher.write(bytes);
    hasher.finish()
}

/// String `id` of an interner's text buffer and end offsets.
#[inline]
fn slice<'a>(buf: &'a str, ends: &[usize], id: u32) -> &'a str {
    let i = id as usize;
    let start = if i == 0 { 0 } else { ends[i - 1] };
    &buf[start..ends[i]]
}

impl Interner {
    /// Strings `buf[ends[i - 1]..ends[i]]` (a fragment's, read back from
    /// its bytes), not indexed: [`Self::get`] only.
    pub(crate) fn from_parts(buf: String, ends: Vec<usize>) -> Self {
        Self {
            buf,
            ends,
            table: HashTable::new(),
        }
    }

    /// The text buffer and end offsets ([`Self::from_parts`]).
    pub(crate) fn parts(&self) -> (&str, &[usize]) {
        (&self.buf, &self.ends)
    }

    #[inline]
    pub fn get(&self, id: StrId) -> &str {
        slice(&self.buf, &self.ends, id.0)
    }

    #[inline]
    pub fn intern(&mut self, s: &str) -> StrId {
        if s.is_empty() && !self.ends.is_empty() {
            return StrId(0);
        }
        let hash = hash_str(s);
        let Self { buf, ends, table } = self;
        if let Some(&id) = table.find(hash, |&id| slice(buf, ends, id) == s) {
            return StrId(id);
        }
        let id = ends.len() as u32;
        buf.push_str(s);
        ends.push(buf.len());
        table.insert_unique(hash, id, |&other| hash_str(slice(buf, ends, other)));
        StrId(id)
    }

    /// Interns the longest valid UTF-8 prefix of `bytes` (a puffin stream
    /// string, possibly cut inside a character). Bytes equal to a string
    /// already held are found without validating them again.
    #[inline]
    pub fn intern_utf8_prefix(&mut self, bytes: &[u8]) -> StrId {
        if bytes.is_empty() && !self.ends.is_empty() {
            return StrId(0);
        }
        let Self { buf, ends, table } = self;
        let hash = hash_bytes(bytes);
        if let Some(&id) = table.find(hash, |&id| slice(buf, ends, id).as_bytes() == bytes) {
            return StrId(id);
        }
        let s = utf8_prefix(bytes);
        if s.len() < bytes.len() {
            return self.intern(s);
        }
        // Valid and new: inserted without looking it up again.
        let id = ends.len() as u32;
        buf.push_str(s);
        ends.push(buf.len());
        table.insert_unique(hash, id, |&other| hash_str(slice(buf, ends, other)));
        StrId(id)
    }

    /// Makes room for `n` more strings in the index (a hint: when the memory
    /// cannot be had, the index grows as strings come).
    pub fn reserve(&mut self, n: usize) {
        let Self { buf, ends, table } = self;
        if ends.try_reserve_exact(n).is_ok() {
            let _ = table.try_reserve(n, |&id| hash_str(slice(buf, ends, id)));
        }
    }

    /// Looks a string up without interning it.
    pub fn find(&self, s: &str) -> Option<StrId> {
        self.table
            .find(hash_str(s), |&id| self.get(StrId(id)) == s)
            .map(|&id| StrId(id))
    }

    pub fn len(&self) -> usize {
        self.ends.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// Bytes held (text plus index), for memory reports.
    pub fn heap_bytes(&self) -> usize {
        self.buf.capacity()
            + self.ends.capacity() * std::mem::size_of::<usize>()
            + self.table.capacity() * (std::mem::size_of::<u32>() + 1)
    }
}

/// What a scope definition is, as the export's `kind` names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ScopeKind {
    /// `profile_function!` (registered without a scope name).
    Function,
    /// `profile_scope!` (registered with a scope name).
    Named,
    /// Legacy capture: name and location were inline in the stream.
    Unknown,
    /// Seen in a stream but never registered: named `scope#<id>`.
    Unregistered,
}

impl ScopeKind {
    pub fn as_str(self) -> &'static str {
        match self {
            ScopeKind::Function => "function",
            ScopeKind::Named => "named",
            ScopeKind::Unknown => "unknown",
            ScopeKind::Unregistered => "unregistered",
        }
    }

    pub fn is_registered(self) -> bool {
        self != ScopeKind::Unregistered
    }
}

/// Scope definitions, one row per scope id of the recording.
#[derive(Clone, Default)]
pub struct ScopeDefs {
    /// The id written in the recording.
    pub raw_id: Vec<u32>,
    pub name: Vec<StrId>,
    pub function: Vec<StrId>,
    pub file: Vec<StrId>,
    pub line: Vec<u32>,
    pub kind: Vec<ScopeKind>,
    by_raw_id: FxHashMap<u32, DefId>,
}

impl ScopeDefs {
    pub fn len(&self) -> usize {
        self.raw_id.len()
    }

    pub fn is_empty(&self) -> bool {
        self.raw_id.is_empty()
    }

    pub fn by_raw_id(&self, raw_id: u32) -> Option<DefId> {
        self.by_raw_id.get(&raw_id).copied()
    }

    /// Registered definitions, sorted by raw id.
    pub fn registered_sorted(&self) -> Vec<DefId> {
        let mut ids: Vec<DefId> = (0..self.len() as u32)
            .map(DefId)
            .filter(|d| self.kind[d.idx()].is_registered())
            .collect();
        ids.sort_by_key(|d| self.raw_id[d.idx()]);
        ids
    }

    /// Whether any definition came from a registration (or a legacy inline name).
    pub fn has_registration(&self) -> bool {
        self.kind.iter().any(|k| k.is_registered())
    }

    fn push(&mut self, raw_id: u32, def: DefRow) -> DefId {
        let id = self.push_unindexed(raw_id, def);
        self.by_raw_id.insert(raw_id, id);
        id
    }

    /// A definition not found by its raw id (a fragment's legacy
    /// definitions: their ids are given when merged).
    fn push_unindexed(&mut self, raw_id: u32, def: DefRow) -> DefId {
        let id = DefId(self.raw_id.len() as u32);
        self.raw_id.push(raw_id);
        self.name.push(def.name);
        self.function.push(def.function);
        self.file.push(def.file);
        self.line.push(def.line);
        self.kind.push(def.kind);
        id
    }

    fn set(&mut self, id: DefId, def: DefRow) {
        let i = id.idx();
        self.name[i] = def.name;
        self.function[i] = def.function;
        self.file[i] = def.file;
        self.line[i] = def.line;
        self.kind[i] = def.kind;
    }

    fn truncate(&mut self, len: usize) {
        for (i, raw) in self.raw_id.drain(len..).enumerate() {
            // Only the entry that names this definition (an unindexed
            // one's raw id may name another).
            if self.by_raw_id.get(&raw) == Some(&DefId((len + i) as u32)) {
                self.by_raw_id.remove(&raw);
            }
        }
        self.name.truncate(len);
        self.function.truncate(len);
        self.file.truncate(len);
        self.line.truncate(len);
        self.kind.truncate(len);
    }
}

/// One definition's fields.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DefRow {
    pub name: StrId,
    pub function: StrId,
    pub file: StrId,
    pub line: u32,
    pub kind: ScopeKind,
}

/// Frames, in file order.
#[derive(Clone, Default)]
pub struct FrameTable {
    pub frame_index: Vec<u64>,
    /// From the frame's metadata.
    pub range_ns: Vec<(i64, i64)>,
    /// From the frame's metadata.
    pub num_scopes: Vec<u64>,
    /// Streams of each frame: `first_stream[f]..first_stream[f + 1]`.
    pub(crate) first_stream: Vec<u32>,
}

impl FrameTable {
    pub fn len(&self) -> usize {
        self.frame_index.len()
    }

    pub fn is_empty(&self) -> bool {
        self.frame_index.is_empty()
    }

    pub fn streams(&self, f: FrameId) -> Range<u32> {
        self.first_stream[f.idx()]..self.first_stream[f.idx() + 1]
    }

    /// `end - start`, or 0 when the range is empty (start > end).
    pub fn duration_ns(&self, f: FrameId) -> i64 {
        let (start, end) = self.range_ns[f.idx()];
        if start > end {
            0
        } else {
            end.saturating_sub(start)
        }
    }

    pub fn ids(&self) -> impl Iterator<Item = FrameId> + use<> {
        (0..self.len() as u32).map(FrameId)
    }
}

/// Per-frame thread streams, in stored order.
#[derive(Clone, Default)]
pub struct StreamTable {
    pub frame: Vec<FrameId>,
    pub thread: Vec<ThreadId>,
    /// From the stream's metadata.
    pub num_scopes: Vec<u64>,
    /// From the stream's metadata.
    pub depth: Vec<u64>,
    /// From the stream's metadata.
    pub range_ns: Vec<(i64, i64)>,
    /// Scopes of each stream: `first_scope[s]..first_scope[s + 1]`.
    pub(crate) first_scope: Vec<u32>,
}

impl StreamTable {
    pub fn len(&self) -> usize {
        self.frame.len()
    }

    pub fn is_empty(&self) -> bool {
        self.frame.is_empty()
    }

    pub fn scopes(&self, s: StreamId) -> Range<u32> {
        self.first_scope[s.idx()]..self.first_scope[s.idx() + 1]
    }
}

/// Distinct threads.
#[derive(Clone, Default)]
pub struct ThreadTable {
    pub name: Vec<StrId>,
    pub start_time_ns: Vec<Option<i64>>,
    by_key: FxHashMap<(Option<i64>, StrId), ThreadId>,
}

impl ThreadTable {
    pub fn len(&self) -> usize {
        self.name.len()
    }

    pub fn is_empty(&self) -> bool {
        self.name.is_empty()
    }
}

/// Scope instances, depth-first pre-order within each stream; streams in order.
#[derive(Clone, Default)]
pub struct ScopeTable {
    pub start_ns: Vec<i64>,
    pub duration_ns: Vec<i64>,
    /// Duration minus the children's durations, never negative.
    pub self_ns: Vec<i64>,
    /// Parent instance, or [`NO_PARENT`].
    pub parent: Vec<u32>,
    /// One past the last descendant.
    pub subtree_end: Vec<u32>,
    pub def: Vec<DefId>,
    pub data: Vec<StrId>,
    /// 0 for top-level scopes.
    pub depth: Vec<u32>,
    pub stream: Vec<StreamId>,
}

impl ScopeTable {
    /// Bytes one scope instance takes in the columns.
    pub const BYTES_PER_SCOPE: u64 = (3 * size_of::<i64>()
        + 2 * size_of::<u32>()
        + size_of::<DefId>()
        + size_of::<StrId>()
        + size_of::<u32>()
        + size_of::<StreamId>()) as u64;
}

impl ScopeTable {
    pub fn len(&self) -> usize {
        self.start_ns.len()
    }

    pub fn is_empty(&self) -> bool {
        self.start_ns.is_empty()
    }

    #[inline]
    pub fn end_ns(&self, i: ScopeIdx) -> i64 {
        self.start_ns[i.idx()].saturating_add(self.duration_ns[i.idx()])
    }

    /// Children of `i`, in stream order, in O(children).
    #[inline]
    pub fn children(&self, i: ScopeIdx) -> Children<'_> {
        Children {
            next: i.0 + 1,
            end: self.subtree_end[i.idx()],
            subtree_end: &self.subtree_end,
        }
    }

    /// Top-level scopes of a range of instances (a stream), in stream order.
    pub fn top_level(&self, range: Range<u32>) -> Children<'_> {
        Children {
            next: range.start,
            end: range.end,
            subtree_end: &self.subtree_end,
        }
    }

    fn truncate(&mut self, len: usize) {
        each_scope_column!(self, truncate, len);
    }

    /// Resident bytes per instance (the columns' element sizes).
    pub const BYTES_PER_INSTANCE: usize = 8 * 3 + 4 * 6;
}

/// Iterator over siblings.
pub struct Children<'a> {
    next: u32,
    end: u32,
    subtree_end: &'a [u32],
}

impl Iterator for Children<'_> {
    type Item = ScopeIdx;

    #[inline]
    fn next(&mut self) -> Option<ScopeIdx> {
        if self.next >= self.end {
            return None;
        }
        let i = self.next;
        self.next = self.subtree_end[i as usize];
        Some(ScopeIdx(i))
    }
}

/// Where a trace came from and how it was stored.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FormatInfo {
    /// Frame record kinds seen, e.g. `["PFD4"]` (sorted, deduplicated).
    pub record_kinds: Vec<String>,
    /// Compressions seen, e.g. `["lz4"]` (sorted, deduplicated).
    pub compressions: Vec<String>,
    /// Whether the input was a JSON dump.
    pub from_json: bool,
}

impl FormatInfo {
    pub(crate) fn note_record(&mut self, kind: &str) {
        add_sorted(&mut self.record_kinds, kind);
    }

    pub(crate) fn note_compression(&mut self, kind: &str) {
        add_sorted(&mut self.compressions, kind);
    }
}

fn add_sorted(list: &mut Vec<String>, item: &str) {
    if let Err(pos) = list.binary_search_by(|x| x.as_str().cmp(item)) {
        list.insert(pos, item.to_owned());
    }
}

/// A decoded recording.
#[derive(Clone, Default)]
pub struct Trace {
    pub strings: Interner,
    pub defs: ScopeDefs,
    pub frames: FrameTable,
    pub threads: ThreadTable,
    pub streams: StreamTable,
    pub scopes: ScopeTable,
    pub format: FormatInfo,
    /// Several recordings of one side, one after the other ([`concat`]):
    /// the first frame of each run after the first (empty: one run).
    pub runs: Vec<u32>,
}

impl Trace {
    #[inline]
    pub fn str(&self, id: StrId) -> &str {
        self.strings.get(id)
    }

    /// Resolved name of an instance (registration name, or `scope#<id>`).
    #[inline]
    pub fn scope_name(&self, i: ScopeIdx) -> &str {
        self.str(self.defs.name[self.scopes.def[i.idx()].idx()])
    }

    #[inline]
    pub fn scope_data(&self, i: ScopeIdx) -> &str {
        self.str(self.scopes.data[i.idx()])
    }

    #[inline]
    pub fn scope_raw_id(&self, i: ScopeIdx) -> u32 {
        self.defs.raw_id[self.scopes.def[i.idx()].idx()]
    }

    pub fn thread_name(&self, t: ThreadId) -> &str {
        self.str(self.threads.name[t.idx()])
    }

    pub fn scope_frame(&self, i: ScopeIdx) -> FrameId {
        self.streams.frame[self.scopes.stream[i.idx()].idx()]
    }

    pub fn scope_thread(&self, i: ScopeIdx) -> ThreadId {
        self.streams.thread[self.scopes.stream[i.idx()].idx()]
    }

    /// Resident bytes of the scope-instance columns (capacity, not length).
    pub fn scope_table_bytes(&self) -> usize {
        let s = &self.scopes;
        (s.start_ns.capacity() + s.duration_ns.capacity() + s.self_ns.capacity()) * 8
            + (s.parent.capacity()
                + s.subtree_end.capacity()
                + s.def.capacity()
                + s.data.capacity()
                + s.depth.capacity()
                + s.stream.capacity())
                * 4
    }

    /// Shrinks every column to its length.
    pub fn shrink_to_fit(&mut self) {
        each_scope_column!(&mut self.scopes, shrink_to_fit);
    }

    /// The recording's start, what every `*_rel_ms` of an answer counts
    /// from (see `engine::reltime`): the earliest frame start (a frame whose
    /// range is empty, start after end, does not count) or scope start,
    /// whichever is earlier; 0 for a recording with neither. One pass over
    /// the scopes' starts.
    pub fn recording_start_ns(&self) -> i64 {
        let frames = self.frames.range_ns.iter().filter(|r| r.0 <= r.1);
        frames
            .map(|r| r.0)
            .chain(self.scopes.start_ns.iter().copied())
            .min()
            .unwrap_or(0)
    }

    /// How many recordings the trace holds (see [`concat`]).
    pub fn run_count(&self) -> usize {
        self.runs.len() + 1
    }

    /// The run frame `f` belongs to.
    pub fn run_of_frame(&self, f: FrameId) -> u32 {
        self.runs.partition_point(|&first| first <= f.0) as u32
    }

    /// The frames of run `k`.
    pub fn run_frames(&self, k: u32) -> Range<u32> {
        let k = k as usize;
        let start = if k == 0 { 0 } else { self.runs[k - 1] };
        let end = self
            .runs
            .get(k)
            .copied()
            .unwrap_or(self.frames.len() as u32);
        start..end
    }
}

/// Several recordings of one side (runs of the same code) as one trace:
/// their frames one run after the other, strings interned anew, scope
/// definitions merged by what they are (name, function, file, line, kind:
/// two runs' raw ids need not agree), threads by (start time, name) as in
/// a decode. `runs` records where each run starts (a trace that is itself
/// several runs keeps them). One run is returned as it is.
pub fn concat(mut runs: Vec<Trace>) -> Trace {
    if runs.len() <= 1 {
        return runs.pop().unwrap_or_default();
    }
    let mut b = TraceBuilder::new();
    let mut defs_by_row: FxHashMap<(u32, u32, u32, u32, ScopeKind), DefId> = FxHashMap::default();
    for (k, run) in runs.iter().enumerate() {
        if k > 0 {
            b.trace.runs.push(b.trace.frames.len() as u32);
        }
        // A trace of several runs keeps them (a run added to a side).
        let offset = b.trace.frames.len() as u32;
        b.trace.runs.extend(run.runs.iter().map(|&r| offset + r));
        let strs: Vec<StrId> = (0..run.strings.len() as u32)
            .map(|i| b.trace.strings.intern(run.strings.get(StrId(i))))
            .collect();
        let defs: Vec<DefId> = (0..run.defs.len())
            .map(|d| {
                let row = DefRow {
                    name: strs[run.defs.name[d].idx()],
                    function: strs[run.defs.function[d].idx()],
                    file: strs[run.defs.file[d].idx()],
                    line: run.defs.line[d],
                    kind: run.defs.kind[d],
                };
                let key = (row.name.0, row.function.0, row.file.0, row.line, row.kind);
                *defs_by_row.entry(key).or_insert_with(|| {
                    let raw = run.defs.raw_id[d];
                    let defs = &mut b.trace.defs;
                    if defs.by_raw_id(raw).is_none() {
                        defs.push(raw, row)
                    } else {
                        defs.push_unindexed(raw, row)
                    }
                })
            })
            .collect();
        let threads: Vec<ThreadId> = (0..run.threads.len())
            .map(|t| {
                let name = run.strings.get(run.threads.name[t]).to_owned();
                b.thread(run.threads.start_time_ns[t], &name)
            })
            .collect();
        for kind in &run.format.record_kinds {
            b.trace.format.note_record(kind);
        }
        for kind in &run.format.compressions {
            b.trace.format.note_compression(kind);
        }
        b.trace.format.from_json |= run.format.from_json;
        append_tables(&mut b.trace, run, (&threads, &defs, &strs));
    }
    b.finish()
}

/// The trace with only the frames of `keep` (ascending, disjoint ranges of
/// frame positions), each range a run of its own (a run's frames cut at
/// its edges stay one run): what a comparison of steady states reads
/// ([`crate::engine::analyses::transient`]). Strings, definitions and
/// threads are kept whole. Linear in the kept scopes.
pub fn keep_frames(t: &Trace, keep: &[Range<u32>]) -> Trace {
    let mut out = Trace {
        strings: t.strings.clone(),
        defs: t.defs.clone(),
        threads: t.threads.clone(),
        format: t.format.clone(),
        ..Trace::default()
    };
    let (ff, fs, fc) = (&t.frames, &t.streams, &t.scopes);
    for (k, r) in keep.iter().enumerate() {
        let r = r.start.min(ff.len() as u32)..r.end.min(ff.len() as u32);
        if r.is_empty() {
            continue;
        }
        if k > 0 && !out.frames.is_empty() {
            out.runs.push(out.frames.len() as u32);
        }
        let (f0, s0, c0) = (
            out.frames.len() as u32,
            out.streams.len() as u32,
            out.scopes.len() as u32,
        );
        // The streams and scopes of frames `r`: contiguous.
        let streams = ff.first_stream[r.start as usize]..ff.first_stream[r.end as usize];
        let scopes = fs.first_scope[streams.start as usize]..fs.first_scope[streams.end as usize];
        let (fr, sr, cr) = (
            r.start as usize..r.end as usize,
            streams.start as usize..streams.end as usize,
            scopes.start as usize..scopes.end as usize,
        );
        // Each kept index moves down by the start of its range, up by what
        // is already kept.
        let frame = |f: u32| f - r.start + f0;
        let stream = |x: u32| x - streams.start + s0;
        let scope = |x: u32| x - scopes.start + c0;
        let f = &mut out.frames;
        f.frame_index.extend_from_slice(&ff.frame_index[fr.clone()]);
        f.range_ns.extend_from_slice(&ff.range_ns[fr.clone()]);
        f.num_scopes.extend_from_slice(&ff.num_scopes[fr.clone()]);
        f.first_stream
            .extend(ff.first_stream[fr].iter().map(|&x| stream(x)));
        let st = &mut out.streams;
        st.frame
            .extend(fs.frame[sr.clone()].iter().map(|x| FrameId(frame(x.0))));
        st.thread.extend_from_slice(&fs.thread[sr.clone()]);
        st.num_scopes.extend_from_slice(&fs.num_scopes[sr.clone()]);
        st.depth.extend_from_slice(&fs.depth[sr.clone()]);
        st.range_ns.extend_from_slice(&fs.range_ns[sr.clone()]);
        st.first_scope
            .extend(fs.first_scope[sr.clone()].iter().map(|&x| scope(x)));
        let c = &mut out.scopes;
        c.start_ns.extend_from_slice(&fc.start_ns[cr.clone()]);
        c.duration_ns.extend_from_slice(&fc.duration_ns[cr.clone()]);
        c.self_ns.extend_from_slice(&fc.self_ns[cr.clone()]);
        c.parent.extend(
            fc.parent[cr.clone()]
                .iter()
                .map(|&p| if p == NO_PARENT { NO_PARENT } else { scope(p) }),
        );
        c.subtree_end
            .extend(fc.subtree_end[cr.clone()].iter().map(|&e| scope(e)));
        c.def.extend_from_slice(&fc.def[cr.clone()]);
        c.data.extend_from_slice(&fc.data[cr.clone()]);
        c.depth.extend_from_slice(&fc.depth[cr.clone()]);
        c.stream
            .extend(fc.stream[cr].iter().map(|x| StreamId(stream(x.0))));
    }
    // The closing entries of the offset columns.
    out.frames.first_stream.push(out.streams.len() as u32);
    out.streams.first_scope.push(out.scopes.len() as u32);
    out
}

/// Appends `run`'s frames, streams and scopes to `t`, with `run`'s thread,
/// definition and string ids mapped to `t`'s (`ids`). `run`'s offset
/// columns may be closed (a finished trace's: one entry more) or not (a
/// fragment's); the entry that closes them is not copied.
fn append_tables(t: &mut Trace, run: &Trace, ids: (&[ThreadId], &[DefId], &[StrId])) {
    let (threads, defs, strs) = ids;
    let (f0, s0, c0) = (
        t.frames.len() as u32,
        t.streams.len() as u32,
        t.scopes.len() as u32,
    );
    let (ff, fs, fc) = (&run.frames, &run.streams, &run.scopes);
    let f = &mut t.frames;
    f.frame_index.extend_from_slice(&ff.frame_index);
    f.range_ns.extend_from_slice(&ff.range_ns);
    f.num_scopes.extend_from_slice(&ff.num_scopes);
    f.first_stream
        .extend(ff.first_stream[..ff.len()].iter().map(|&s| s + s0));
    let s = &mut t.streams;
    s.frame.extend(fs.frame.iter().map(|f| FrameId(f.0 + f0)));
    s.thread.extend(fs.thread.iter().map(|t| threads[t.idx()]));
    s.num_scopes.extend_from_slice(&fs.num_scopes);
    s.depth.extend_from_slice(&fs.depth);
    s.range_ns.extend_from_slice(&fs.range_ns);
    s.first_scope
        .extend(fs.first_scope[..fs.len()].iter().map(|&c| c + c0));
    let c = &mut t.scopes;
    c.start_ns.extend_from_slice(&fc.start_ns);
    c.duration_ns.extend_from_slice(&fc.duration_ns);
    c.self_ns.extend_from_slice(&fc.self_ns);
    c.parent.extend(
        fc.parent
            .iter()
            .map(|&p| if p == NO_PARENT { NO_PARENT } else { p + c0 }),
    );
    c.subtree_end.extend(fc.subtree_end.iter().map(|&e| e + c0));
    c.def.extend(fc.def.iter().map(|d| defs[d.idx()]));
    c.data.extend(fc.data.iter().map(|d| strs[d.idx()]));
    c.depth.extend_from_slice(&fc.depth);
    c.stream
        .extend(fc.stream.iter().map(|s| StreamId(s.0 + s0)));
}

/// A rollback point: everything added after it can be discarded.
#[derive(Clone, Copy, Debug)]
pub struct Mark {
    frames: usize,
    streams: usize,
    scopes: usize,
    defs: usize,
    threads: usize,
}

/// An open scope while building.
struct Open {
    idx: u32,
    children_ns: i64,
}

/// The one way to fill a [`Trace`]: frames, then their streams, then scopes
/// in pre-order (open, children, close).
#[derive(Default)]
pub struct TraceBuilder {
    pub trace: Trace,
    stack: Vec<Open>,
    /// Legacy captures: (name, location) -> definition.
    legacy_defs: FxHashMap<(StrId, StrId), DefId>,
    next_legacy_id: u32,
    /// Cache: raw id -> definition, for small ids (the common case).
    dense_defs: Vec<u32>,
    /// Scopes the recording is expected to hold ([`Self::reserve_scopes`]),
    /// until the strings have been given room for them.
    strings_hint: Option<usize>,
    /// A fragment's builder ([`Self::fragment`]): what depends on the
    /// records before it (definitions, threads, `scope#<id>` names) is
    /// logged here to be replayed when merged, in order.
    log: Option<Vec<Event>>,
}

/// What a fragment's builder did that depends on the whole recording's
/// state, in order, with `at`: how many of the fragment's strings were
/// interned before it (the merge interns them in the same order, so the
/// merged model is the one a single decoder builds, string ids included).
/// `local`: the fragment's definition or thread made by the event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// A record begins ([`TraceBuilder::mark`]).
    Mark,
    /// The record since the last mark is dropped (damaged).
    Rollback,
    /// A scope id not seen before in the fragment.
    UseRaw { at: u32, raw: u32, local: u32 },
    /// A registration; `created` when the fragment had no definition for it.
    Register {
        at: u32,
        raw: u32,
        row: DefRow,
        created: Option<u32>,
    },
    /// A legacy (name, location) pair not seen before in the fragment.
    Legacy {
        at: u32,
        name: StrId,
        location: StrId,
        local: u32,
    },
    /// A thread not seen before in the fragment.
    Thread {
        at: u32,
        start_time_ns: Option<i64>,
        name: StrId,
        local: u32,
    },
}

impl TraceBuilder {
    pub fn new() -> Self {
        Self {
            next_legacy_id: 1,
            ..Default::default()
        }
    }

    /// A builder for a fragment of a recording (a run of its records
    /// decoded on its own, [`crate::engine::read::fragment`]).
    pub fn fragment() -> Self {
        Self {
            log: Some(Vec::new()),
            ..Self::new()
        }
    }

    /// The fragment's log ([`Self::fragment`]); empty otherwise.
    pub fn take_log(&mut self) -> Vec<Event> {
        self.log.as_mut().map(std::mem::take).unwrap_or_default()
    }

    fn log(&mut self, event: impl FnOnce(u32) -> Event) {
        let at = self.trace.strings.len() as u32;
        if let Some(log) = &mut self.log {
            log.push(event(at));
        }
    }

    pub fn mark(&mut self) -> Mark {
        self.log(|_| Event::Mark);
        let t = &self.trace;
        Mark {
            frames: t.frames.len(),
            streams: t.streams.len(),
            scopes: t.scopes.len(),
            defs: t.defs.len(),
            threads: t.threads.len(),
        }
    }

    /// Discards everything added since `mark` (a damaged frame).
    pub fn rollback(&mut self, mark: Mark) {
        self.log(|_| Event::Rollback);
        let t = &mut self.trace;
        t.frames.frame_index.truncate(mark.frames);
        t.frames.range_ns.truncate(mark.frames);
        t.frames.num_scopes.truncate(mark.frames);
        t.frames.first_stream.truncate(mark.frames);
        t.streams.frame.truncate(mark.streams);
        t.streams.thread.truncate(mark.streams);
        t.streams.num_scopes.truncate(mark.streams);
        t.streams.depth.truncate(mark.streams);
        t.streams.range_ns.truncate(mark.streams);
        t.streams.first_scope.truncate(mark.streams);
        t.scopes.truncate(mark.scopes);
        if t.defs.len() > mark.defs {
            t.defs.truncate(mark.defs);
            let defs_len = mark.defs as u32;
            self.legacy_defs.retain(|_, d| d.0 < defs_len);
            self.next_legacy_id = self
                .legacy_defs
                .values()
                .map(|d| t.defs.raw_id[d.idx()] + 1)
                .max()
                .unwrap_or(1);
        }
        for i in mark.threads..t.threads.len() {
            let key = (t.threads.start_time_ns[i], t.threads.name[i]);
            t.threads.by_key.remove(&key);
        }
        t.threads.name.truncate(mark.threads);
        t.threads.start_time_ns.truncate(mark.threads);
        self.stack.clear();
        self.dense_defs.clear();
    }

    /// Sets the current frame's metadata (legacy records carry it after the streams).
    pub fn set_frame_meta(&mut self, frame_index: u64, range_ns: (i64, i64), num_scopes: u64) {
        let f = &mut self.trace.frames;
        if let (Some(fi), Some(r), Some(n)) = (
            f.frame_index.last_mut(),
            f.range_ns.last_mut(),
            f.num_scopes.last_mut(),
        ) {
            *fi = frame_index;
            *r = range_ns;
            *n = num_scopes;
        }
    }

    #[inline]
    pub fn intern(&mut self, s: &str) -> StrId {
        self.trace.strings.intern(s)
    }

    /// See [`Interner::intern_utf8_prefix`].
    #[inline]
    pub fn intern_utf8_prefix(&mut self, bytes: &[u8]) -> StrId {
        self.trace.strings.intern_utf8_prefix(bytes)
    }

    pub fn thread(&mut self, start_time_ns: Option<i64>, name: &str) -> ThreadId {
        let name = self.intern(name);
        let threads = &mut self.trace.threads;
        if let Some(&id) = threads.by_key.get(&(start_time_ns, name)) {
            return id;
        }
        let id = ThreadId(threads.name.len() as u32);
        threads.name.push(name);
        threads.start_time_ns.push(start_time_ns);
        threads.by_key.insert((start_time_ns, name), id);
        self.log(|at| Event::Thread {
            at,
            start_time_ns,
            name,
            local: id.0,
        });
        id
    }

    pub fn begin_frame(&mut self, frame_index: u64, range_ns: (i64, i64), num_scopes: u64) {
        self.reserve_strings();
        let f = &mut self.trace.frames;
        f.frame_index.push(frame_index);
        f.range_ns.push(range_ns);
        f.num_scopes.push(num_scopes);
        f.first_stream.push(self.trace.streams.len() as u32);
    }

    /// Starts a stream of the current frame; its metadata comes with [`Self::end_stream`].
    pub fn begin_stream(&mut self, thread: ThreadId) -> StreamId {
        debug_assert!(!self.trace.frames.is_empty(), "a stream belongs to a frame");
        let s = &mut self.trace.streams;
        let id = StreamId(s.frame.len() as u32);
        s.frame
            .push(FrameId(self.trace.frames.frame_index.len() as u32 - 1));
        s.thread.push(thread);
        s.num_scopes.push(0);
        s.depth.push(0);
        s.range_ns.push((i64::MAX, i64::MIN));
        s.first_scope.push(self.trace.scopes.len() as u32);
        self.stack.clear();
        id
    }

    pub fn end_stream(&mut self, id: StreamId, num_scopes: u64, depth: u64, range_ns: (i64, i64)) {
        let s = &mut self.trace.streams;
        s.num_scopes[id.idx()] = num_scopes;
        s.depth[id.idx()] = depth;
        s.range_ns[id.idx()] = range_ns;
    }

    /// Reserves room for `n` more scope instances.
    /// Makes room for `n` scopes: a hint from untrusted metadata, so when
    /// the memory cannot be had the columns just grow as scopes come.
    pub fn reserve_scopes(&mut self, n: usize) {
        self.strings_hint = Some(n.saturating_add(self.trace.scopes.len()));
        let s = &mut self.trace.scopes;
        let _enough = s.start_ns.try_reserve_exact(n).is_ok()
            && s.duration_ns.try_reserve_exact(n).is_ok()
            && s.self_ns.try_reserve_exact(n).is_ok()
            && s.parent.try_reserve_exact(n).is_ok()
            && s.subtree_end.try_reserve_exact(n).is_ok()
            && s.def.try_reserve_exact(n).is_ok()
            && s.data.try_reserve_exact(n).is_ok()
            && s.depth.try_reserve_exact(n).is_ok()
            && s.stream.try_reserve_exact(n).is_ok();
    }

    /// Once 2^17 strings are held (a few frames of per-call data) and they keep
    /// pace with the scopes (a data string per call), makes room for the rest
    /// of the recording's in one step: the string table is rehashed once, not
    /// at every doubling (the worst case's 20M scopes: most of the decode time
    /// went to rehashing). Waiting for 2^20 strings first cost the 2M-scope
    /// worst case a fifth of its decode (summary 0.37-0.39 -> 0.28-0.30 s):
    /// every doubling up to there rehashes by reading each string again.
    fn reserve_strings(&mut self) {
        const MANY: usize = 1 << 17;
        let Some(hint) = self.strings_hint else {
            return;
        };
        let (strings, scopes) = (self.trace.strings.len(), self.trace.scopes.len());
        if strings < MANY || scopes == 0 {
            return;
        }
        self.strings_hint = None;
        if strings.saturating_mul(2) >= scopes {
            let expected = (hint as u128 * strings as u128 / scopes as u128) as usize;
            self.trace.strings.reserve(expected.saturating_sub(strings));
        }
    }

    /// Sets a stream's thread (JSON input may name it after its scopes).
    pub fn set_stream_thread(&mut self, id: StreamId, thread: ThreadId) {
        self.trace.streams.thread[id.idx()] = thread;
    }

    /// Sets the fields of the innermost open scope (JSON input may give them
    /// after the children).
    pub fn patch_open_scope(&mut self, def: DefId, start_ns: i64, data: StrId) {
        if let Some(open) = self.stack.last() {
            let s = &mut self.trace.scopes;
            let i = open.idx as usize;
            s.def[i] = def;
            s.start_ns[i] = start_ns;
            s.data[i] = data;
        }
    }

    /// Drops the first `n` frames with their streams and scopes (a live
    /// capture's retention), in one pass over what stays. Definitions,
    /// threads and strings stay. Call between frames.
    pub fn drop_front_frames(&mut self, n: usize) {
        let t = &mut self.trace;
        let n = n.min(t.frames.len());
        if n == 0 {
            return;
        }
        let s0 = t
            .frames
            .first_stream
            .get(n)
            .copied()
            .unwrap_or(t.streams.len() as u32);
        let c0 = t
            .streams
            .first_scope
            .get(s0 as usize)
            .copied()
            .unwrap_or(t.scopes.len() as u32);
        let f = &mut t.frames;
        f.frame_index.drain(..n);
        f.range_ns.drain(..n);
        f.num_scopes.drain(..n);
        f.first_stream.drain(..n);
        f.first_stream.iter_mut().for_each(|x| *x -= s0);
        let st = &mut t.streams;
        let s0u = s0 as usize;
        st.frame.drain(..s0u);
        st.frame.iter_mut().for_each(|x| x.0 -= n as u32);
        st.thread.drain(..s0u);
        st.num_scopes.drain(..s0u);
        st.depth.drain(..s0u);
        st.range_ns.drain(..s0u);
        st.first_scope.drain(..s0u);
        st.first_scope.iter_mut().for_each(|x| *x -= c0);
        let sc = &mut t.scopes;
        each_scope_column!(&mut *sc, drain, ..c0 as usize);
        sc.parent
            .iter_mut()
            .filter(|p| **p != NO_PARENT)
            .for_each(|p| *p -= c0);
        sc.subtree_end.iter_mut().for_each(|x| *x -= c0);
        sc.stream.iter_mut().for_each(|x| x.0 -= s0);
        self.stack.clear();
    }

    /// Appends a fragment (records decoded by a [`Self::fragment`] builder,
    /// its `trace` not finished) as if its records were decoded here: its
    /// log replayed in order (strings interned in the fragment's order,
    /// definitions and threads resolved, damaged records rolled back), then
    /// its frames, streams and scopes appended with their ids translated.
    /// An id out of range (a malformed fragment) is an error, and nothing
    /// of the fragment's columns is appended.
    pub fn merge_fragment(&mut self, frag: &Trace, events: &[Event]) -> Result<(), String> {
        let bad = |what: &str| format!("malformed fragment: {what} out of range");
        // Each of the fragment's definitions and threads was made by one of
        // its events: a local id past their count is malformed (and would
        // ask for a giant map).
        fn put<T: Copy>(map: &mut Vec<T>, i: u32, value: T, most: usize) -> Result<(), String> {
            let i = i as usize;
            if i >= most {
                return Err("malformed fragment: definition or thread out of range".to_owned());
            }
            if map.len() <= i {
                map.resize(i + 1, value);
            }
            map[i] = value;
            Ok(())
        }
        let most = events.len();
        self.reserve_strings();
        let n_strings = frag.strings.len();
        let mut strs: Vec<StrId> = Vec::with_capacity(n_strings);
        let intern_to = |b: &mut Self, strs: &mut Vec<StrId>, at: u32| {
            let at = (at as usize).min(n_strings);
            while strs.len() < at {
                let s = frag.strings.get(StrId(strs.len() as u32));
                strs.push(b.trace.strings.intern(s));
            }
        };
        let mut defs: Vec<DefId> = Vec::with_capacity(frag.defs.len());
        let mut threads: Vec<ThreadId> = Vec::with_capacity(frag.threads.len());
        let mut mark = None;
        for event in events {
            match *event {
                Event::Mark => mark = Some(self.mark()),
                Event::Rollback => {
                    if let Some(mark) = mark {
                        self.rollback(mark);
                    }
                }
                Event::UseRaw { at, raw, local } => {
                    intern_to(self, &mut strs, at);
                    let d = self.def_for_raw_id(raw);
                    put(&mut defs, local, d, most)?;
                }
                Event::Register {
                    at,
                    raw,
                    row,
                    created,
                } => {
                    intern_to(self, &mut strs, at);
                    let s = |id: StrId| strs.get(id.idx()).copied().ok_or_else(|| bad("string"));
                    let row = DefRow {
                        name: s(row.name)?,
                        function: s(row.function)?,
                        file: s(row.file)?,
                        ..row
                    };
                    self.register(raw, row);
                    if let (Some(local), Some(d)) = (created, self.trace.defs.by_raw_id(raw)) {
                        put(&mut defs, local, d, most)?;
                    }
                }
                Event::Legacy {
                    at,
                    name,
                    location,
                    local,
                } => {
                    intern_to(self, &mut strs, at);
                    if name.idx() >= n_strings || location.idx() >= n_strings {
                        return Err(bad("string"));
                    }
                    let (name, location) = (
                        frag.strings.get(name).to_owned(),
                        frag.strings.get(location).to_owned(),
                    );
                    let d = self.legacy_def(&name, &location);
                    put(&mut defs, local, d, most)?;
                }
                Event::Thread {
                    at,
                    start_time_ns,
                    name,
                    local,
                } => {
                    intern_to(self, &mut strs, at);
                    if name.idx() >= n_strings {
                        return Err(bad("string"));
                    }
                    let name = frag.strings.get(name).to_owned();
                    let t = self.thread(start_time_ns, &name);
                    put(&mut threads, local, t, most)?;
                }
            }
        }
        intern_to(self, &mut strs, n_strings as u32);
        for kind in &frag.format.record_kinds {
            self.trace.format.note_record(kind);
        }
        for kind in &frag.format.compressions {
            self.trace.format.note_compression(kind);
        }

        // Check every id first: nothing is appended from a malformed fragment.
        let (ff, fs, fc) = (&frag.frames, &frag.streams, &frag.scopes);
        let (n_frames, n_streams, n_scopes) = (ff.len(), fs.len(), fc.len());
        let in_range = |v: u32, n: usize| (v as usize) < n;
        if ff.first_stream.len() != n_frames
            || fs.first_scope.len() != n_streams
            || ff.first_stream.iter().any(|&s| s as usize > n_streams)
            || fs.frame.iter().any(|f| !in_range(f.0, n_frames))
            || fs.thread.iter().any(|t| !in_range(t.0, threads.len()))
            || fs.first_scope.iter().any(|&c| c as usize > n_scopes)
        {
            return Err(bad("frame or stream"));
        }
        if fc.def.iter().any(|d| !in_range(d.0, defs.len()))
            || fc.data.iter().any(|d| !in_range(d.0, strs.len()))
            || fc.stream.iter().any(|s| !in_range(s.0, n_streams))
            || fc
                .parent
                .iter()
                .any(|&p| p != NO_PARENT && !in_range(p, n_scopes))
            || fc.subtree_end.iter().any(|&e| e as usize > n_scopes)
        {
            return Err(bad("scope"));
        }
        append_tables(&mut self.trace, frag, (&threads, &defs, &strs));
        Ok(())
    }

    /// The trace built so far, closed as [`Self::finish`] would (a copy).
    pub fn snapshot(&self) -> Trace {
        let mut t = self.trace.clone();
        t.frames.first_stream.push(t.streams.len() as u32);
        t.streams.first_scope.push(t.scopes.len() as u32);
        t
    }

    /// Closes the frame table (call once at the end).
    pub fn finish(mut self) -> Trace {
        let t = &mut self.trace;
        t.frames.first_stream.push(t.streams.len() as u32);
        t.streams.first_scope.push(t.scopes.len() as u32);
        t.shrink_to_fit();
        self.trace
    }

    #[inline]
    pub fn open_scope(&mut self, def: DefId, start_ns: i64, data: StrId, stream: StreamId) {
        let s = &mut self.trace.scopes;
        let idx = s.start_ns.len() as u32;
        let (parent, depth) = match self.stack.last() {
            Some(open) => (open.idx, self.stack.len() as u32),
            None => (NO_PARENT, 0),
        };
        s.start_ns.push(start_ns);
        s.duration_ns.push(0);
        s.self_ns.push(0);
        s.parent.push(parent);
        s.subtree_end.push(idx + 1);
        s.def.push(def);
        s.data.push(data);
        s.depth.push(depth);
        s.stream.push(stream);
        self.stack.push(Open {
            idx,
            children_ns: 0,
        });
    }

    /// Closes the innermost open scope; returns its start for validation.
    #[inline]
    pub fn close_scope(&mut self, duration_ns: i64) {
        let Some(open) = self.stack.pop() else {
            return;
        };
        let s = &mut self.trace.scopes;
        let i = open.idx as usize;
        s.duration_ns[i] = duration_ns;
        s.self_ns[i] = duration_ns.saturating_sub(open.children_ns).max(0);
        s.subtree_end[i] = s.start_ns.len() as u32;
        if let Some(parent) = self.stack.last_mut() {
            parent.children_ns = parent.children_ns.saturating_add(duration_ns);
        }
    }

    /// Start of the innermost open scope.
    #[inline]
    pub fn open_start_ns(&self) -> Option<i64> {
        self.stack
            .last()
            .map(|o| self.trace.scopes.start_ns[o.idx as usize])
    }

    /// The definition for a recording's scope id, created unregistered
    /// (`scope#<id>`) if unseen.
    #[inline]
    pub fn def_for_raw_id(&mut self, raw_id: u32) -> DefId {
        const DENSE_LIMIT: u32 = 1 << 16;
        if let Some(&d) = self.dense_defs.get(raw_id as usize)
            && d != u32::MAX
        {
            return DefId(d);
        }
        let d = self.def_for_raw_id_slow(raw_id);
        if raw_id < DENSE_LIMIT {
            let i = raw_id as usize;
            if self.dense_defs.len() <= i {
                self.dense_defs.resize(i + 1, u32::MAX);
            }
            self.dense_defs[i] = d.0;
        }
        d
    }

    fn def_for_raw_id_slow(&mut self, raw_id: u32) -> DefId {
        if let Some(d) = self.trace.defs.by_raw_id(raw_id) {
            return d;
        }
        // A fragment's: named when merged, if the recording has no
        // definition for it by then.
        let name = if self.log.is_some() {
            StrId(0)
        } else {
            self.intern(&format!("scope#{raw_id}"))
        };
        let d = self.trace.defs.push(
            raw_id,
            DefRow {
                name,
                function: StrId(0),
                file: StrId(0),
                line: 0,
                kind: ScopeKind::Unregistered,
            },
        );
        self.log(|at| Event::UseRaw {
            at,
            raw: raw_id,
            local: d.0,
        });
        d
    }

    /// Applies a registration; the first registration of an id wins.
    /// Returns false when the id was already registered.
    pub fn register(&mut self, raw_id: u32, def: DefRow) -> bool {
        let (applied, created) = match self.trace.defs.by_raw_id(raw_id) {
            Some(d) if self.trace.defs.kind[d.idx()].is_registered() => (false, None),
            Some(d) => {
                self.trace.defs.set(d, def);
                (true, None)
            }
            None => (true, Some(self.trace.defs.push(raw_id, def).0)),
        };
        // Logged even when the fragment had it registered already: the
        // merge applies it in order, the first registration winning.
        self.log(|at| Event::Register {
            at,
            raw: raw_id,
            row: def,
            created,
        });
        applied
    }

    /// Names an unregistered id (JSON input carries names on instances).
    pub fn name_unregistered(&mut self, d: DefId, name: StrId) {
        let defs = &mut self.trace.defs;
        if defs.kind[d.idx()] == ScopeKind::Unregistered {
            defs.name[d.idx()] = name;
        }
    }

    /// Legacy captures: the definition for an inline (name, location) pair,
    /// numbered from 1 in order of first appearance.
    pub fn legacy_def(&mut self, name: &str, location: &str) -> DefId {
        let name_id = self.intern(name);
        let loc_id = self.intern(location);
        if let Some(&d) = self.legacy_defs.get(&(name_id, loc_id)) {
            return d;
        }
        if self.log.is_some() {
            // A fragment's: numbered (and its file named) when merged.
            let d = self.trace.defs.push_unindexed(
                0,
                DefRow {
                    name: name_id,
                    function: StrId(0),
                    file: StrId(0),
                    line: 0,
                    kind: ScopeKind::Unknown,
                },
            );
            self.legacy_defs.insert((name_id, loc_id), d);
            self.log(|at| Event::Legacy {
                at,
                name: name_id,
                location: loc_id,
                local: d.0,
            });
            return d;
        }
        let (file, line) = split_location(location);
        let file = self.intern(file);
        // Numbered past any id a PFD4 record of the same file already used
        // (a file mixing layouts): one definition per id, or the export
        // would name one id twice (found by fuzzing).
        let mut raw_id = self.next_legacy_id;
        while self.trace.defs.by_raw_id(raw_id).is_some() {
            raw_id += 1;
        }
        self.next_legacy_id = raw_id.saturating_add(1);
        let d = self.trace.defs.push(
            raw_id,
            DefRow {
                name: name_id,
                function: StrId(0),
                file,
                line,
                kind: ScopeKind::Unknown,
            },
        );
        self.legacy_defs.insert((name_id, loc_id), d);
        d
    }
}

/// `file:line` -> (file, line) when what follows the last `:` is a line
/// number, else (location, 0).
pub fn split_location(location: &str) -> (&str, u32) {
    if let Some((file, line)) = location.rsplit_once(':')
        && !line.is_empty()
        && line.bytes().all(|b| b.is_ascii_digit())
        && let Ok(line) = line.parse::<u32>()
    {
        return (file, line);
    }
    (location, 0)
}

/// The longest valid UTF-8 prefix of `bytes` (puffin's behaviour for bad strings).
#[inline]
pub fn utf8_prefix(bytes: &[u8]) -> &str {
    if bytes.is_empty() {
        return "";
    }
    match std::str::from_utf8(bytes) {
        Ok(s) => s,
        Err(err) => {
            // `valid_up_to` is a char boundary by definition.
            std::str::from_utf8(&bytes[..err.valid_up_to()]).unwrap_or_default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_keep_their_ids_across_a_reservation() {
        let mut strings = Interner::default();
        let text = |k: u32| format!("assets/mesh_{k}.glb");
        let first: Vec<StrId> = (0..1000).map(|k| strings.intern(&text(k))).collect();
        strings.reserve(50_000);
        let rest: Vec<StrId> = (1000..20_000)
            .map(|k| strings.intern_utf8_prefix(text(k).as_bytes()))
            .collect();
        for (k, id) in (0..).zip(first.iter().chain(&rest)) {
            assert_eq!(strings.get(*id), text(k));
            assert_eq!(strings.find(&text(k)), Some(*id));
            assert_eq!(strings.intern(&text(k)), *id, "interned once");
        }
        assert_eq!(strings.len(), 20_001, "with \"\"");
        // A cut character is left out; the prefix is found again.
        let cut = strings.intern_utf8_prefix(b"caf\xC3");
        assert_eq!(strings.get(cut), "caf");
        assert_eq!(strings.intern("caf"), cut);
    }

    #[test]
    fn interner_dedups() {
        let mut i = Interner::default();
        let a = i.intern("a");
        let b = i.intern("b");
        assert_eq!(i.intern("a"), a);
        assert_ne!(a, b);
        assert_eq!(i.get(b), "b");
        assert_eq!(i.intern(""), StrId(0));
        assert_eq!(i.find("b"), Some(b));
        assert_eq!(i.find("c"), None);
    }

    #[test]
    fn interning_bytes_keeps_the_valid_utf8_prefix() {
        let mut i = Interner::default();
        let zz = i.intern("zz");
        // "zz" then the first byte of "é": cut inside a character.
        assert_eq!(i.intern_utf8_prefix(b"zz\xc3"), zz);
        assert_eq!(i.intern_utf8_prefix(b"zz"), zz);
        let e = i.intern_utf8_prefix("zé".as_bytes());
        assert_eq!(i.get(e), "zé");
        assert_eq!(i.intern("zé"), e);
        assert_eq!(i.intern_utf8_prefix(b""), StrId(0));
        let invalid = i.intern_utf8_prefix(b"\xff");
        assert_eq!(i.get(invalid), "");
    }

    #[test]
    fn locations_split_on_line_numbers_only() {
        assert_eq!(split_location("src/main.rs:42"), ("src/main.rs", 42));
        assert_eq!(split_location("main.rs"), ("main.rs", 0));
        assert_eq!(split_location("C:thing"), ("C:thing", 0));
        assert_eq!(split_location("a:"), ("a:", 0));
    }

    #[test]
    fn tree_navigation() {
        let mut b = TraceBuilder::new();
        b.begin_frame(0, (0, 10), 3);
        let t = b.thread(None, "main");
        let s = b.begin_stream(t);
        let d = b.def_for_raw_id(1);
        b.open_scope(d, 0, StrId(0), s);
        b.open_scope(d, 1, StrId(0), s);
        b.close_scope(2);
        b.open_scope(d, 4, StrId(0), s);
        b.close_scope(3);
        b.close_scope(10);
        b.end_stream(s, 3, 2, (0, 10));
        let trace = b.finish();
        let kids: Vec<_> = trace.scopes.children(ScopeIdx(0)).collect();
        assert_eq!(kids, vec![ScopeIdx(1), ScopeIdx(2)]);
        assert_eq!(trace.scopes.self_ns[0], 5);
        assert_eq!(trace.scopes.parent[2], 0);
        assert_eq!(trace.scope_name(ScopeIdx(0)), "scope#1");
        assert_eq!(ScopeTable::BYTES_PER_INSTANCE, 48);
    }
}
