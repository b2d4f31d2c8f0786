//! A recording decoded in pieces: runs of whole records
//! ([`PuffinDecoder::next_run`]) decoded each on its own, anywhere (the
//! browser's Web Workers), into [`Fragment`]s that travel as bytes and are
//! merged back in file order ([`PuffinDecoder::merge`]). The merged model is
//! the one a single decoder builds, string ids included: what a run's
//! records depend on from the records before them (a scope id registered
//! earlier, a thread seen before, a legacy definition's number) is logged in
//! the fragment ([`Event`]) and resolved by the merge.
//!
//! # Bytes
//!
//! All integers little-endian; `n` is a `u32` count.
//!
//! ```text
//! fragment    = "PLF1" diagnostics format strings events frames streams scopes
//! diagnostics = n (u8 severity, opt_u64 record, opt_u64 frame_index, u64 byte_offset, str message)*
//! format      = n str* n str*                       record kinds, compressions
//! strings     = n u32 text_len text u32 end*        ends relative to text, n of them
//! events      = n (u8 tag, fields)*                 see `put_event`
//! frames      = n u64 frame_index* (i64 i64)* u64 num_scopes* u32 first_stream*
//! streams     = n u32 frame* u32 thread* u64 num_scopes* u64 depth* (i64 i64)* u32 first_scope*
//! scopes      = n i64 start* i64 duration* i64 self* u32 parent* u32 subtree_end*
//!               u32 def* u32 data* u32 depth* u32 stream*
//! str         = u32 len bytes      opt_u64 = u8 tag [u64]
//! ```
//!
//! Both ends are this crate's; the reader still checks every length and id
//! and answers a malformed fragment with an error, never a panic.

use super::bytes::{ByteReader, ReadError};
use super::decoded::{Decoded, Diagnostic, LoadError, Severity};
use super::puffin::PuffinDecoder;
use crate::engine::model::{
    DefId, DefRow, Event, FrameId, Interner, ScopeKind, StrId, StreamId, ThreadId, Trace,
};

/// One run of records, decoded on its own.
#[derive(Clone, Default)]
pub struct Fragment {
    /// Its frames, streams, scopes, strings and definitions, with ids of
    /// its own (not finished: no closing offsets).
    pub trace: Trace,
    /// What the merge resolves, in order.
    pub events: Vec<Event>,
    /// Found while decoding it, located in the file.
    pub diagnostics: Vec<Diagnostic>,
}

impl Fragment {
    /// Appends it to `decoder`, as if its records had been decoded there
    /// (runs in file order, each once).
    pub fn merge_into<B: AsRef<[u8]>>(&self, decoder: &mut PuffinDecoder<B>) -> Result<(), String> {
        decoder.merge_run(&self.trace, &self.events, &self.diagnostics)
    }
}

const MAGIC: &[u8; 4] = b"PLF1";

/// Decodes one run: `bytes` are its records, which start at byte `base` of
/// the file with record number `first_record`.
pub fn decode_run(bytes: &[u8], base: usize, first_record: usize) -> Fragment {
    let (mut builder, diagnostics) =
        PuffinDecoder::for_run(bytes, base, first_record).run_fragment();
    let events = builder.take_log();
    Fragment {
        trace: builder.trace,
        events,
        diagnostics,
    }
}

/// Decodes a `.puffin` recording a run at a time (runs of at least
/// `run_bytes`), each run on its own through its bytes, then merged: the
/// browser's worker path, on one thread (tests, fuzzing).
pub fn decode_in_runs(bytes: &[u8], run_bytes: usize) -> Result<Decoded, LoadError> {
    let mut decoder = PuffinDecoder::new(bytes)?;
    while let Some(run) = decoder.next_run(run_bytes) {
        let fragment = decode_run(&bytes[run.bytes.clone()], run.bytes.start, run.first_record);
        let fragment = Fragment::from_bytes(&fragment.to_bytes())
            .unwrap_or_else(|err| panic!("a fragment does not read back: {err}"));
        fragment
            .merge_into(&mut decoder)
            .unwrap_or_else(|err| panic!("a fragment does not merge: {err}"));
    }
    Ok(decoder.finish())
}

/// Appends little-endian numbers.
struct Out(Vec<u8>);

impl Out {
    fn u8(&mut self, v: u8) {
        self.0.push(v);
    }
    fn u32(&mut self, v: u32) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn u64(&mut self, v: u64) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn i64(&mut self, v: i64) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn len(&mut self, n: usize) {
        self.u32(n as u32);
    }
    fn str(&mut self, s: &str) {
        self.len(s.len());
        self.0.extend_from_slice(s.as_bytes());
    }
    fn opt_u64(&mut self, v: Option<u64>) {
        match v {
            Some(v) => {
                self.u8(1);
                self.u64(v);
            }
            None => self.u8(0),
        }
    }
    fn opt_i64(&mut self, v: Option<i64>) {
        self.opt_u64(v.map(|v| v as u64));
    }
    fn u32s(&mut self, vs: impl ExactSizeIterator<Item = u32>) {
        self.0.reserve(vs.len() * 4);
        vs.for_each(|v| self.u32(v));
    }
    fn u64s(&mut self, vs: &[u64]) {
        self.0.reserve(vs.len() * 8);
        vs.iter().for_each(|&v| self.u64(v));
    }
    fn i64s(&mut self, vs: &[i64]) {
        self.0.reserve(vs.len() * 8);
        vs.iter().for_each(|&v| self.i64(v));
    }
    fn ranges(&mut self, vs: &[(i64, i64)]) {
        self.0.reserve(vs.len() * 16);
        vs.iter().for_each(|&(a, b)| {
            self.i64(a);
            self.i64(b);
        });
    }
}

/// A definition's kind as its byte: its position here (one table for both
/// directions).
const KINDS: [ScopeKind; 4] = [
    ScopeKind::Function,
    ScopeKind::Named,
    ScopeKind::Unknown,
    ScopeKind::Unregistered,
];

fn kind_code(kind: ScopeKind) -> u8 {
    KINDS.iter().position(|&k| k == kind).unwrap_or(0) as u8
}

fn put_event(out: &mut Out, event: &Event) {
    match *event {
        Event::Mark => out.u8(0),
        Event::Rollback => out.u8(1),
        Event::UseRaw { at, raw, local } => {
            out.u8(2);
            out.u32(at);
            out.u32(raw);
            out.u32(local);
        }
        Event::Register {
            at,
            raw,
            row,
            created,
        } => {
            out.u8(3);
            out.u32(at);
            out.u32(raw);
            out.u32(row.name.0);
            out.u32(row.function.0);
            out.u32(row.file.0);
            out.u32(row.line);
            out.u8(kind_code(row.kind));
            out.opt_u64(created.map(u64::from));
        }
        Event::Legacy {
            at,
            name,
            location,
            local,
        } => {
            out.u8(4);
            out.u32(at);
            out.u32(name.0);
            out.u32(location.0);
            out.u32(local);
        }
        Event::Thread {
            at,
            start_time_ns,
            name,
            local,
        } => {
            out.u8(5);
            out.u32(at);
            out.opt_i64(start_time_ns);
            out.u32(name.0);
            out.u32(local);
        }
    }
}

impl Fragment {
    /// The fragment as bytes (see the module doc), to send to another thread.
    pub fn to_bytes(&self) -> Vec<u8> {
        let t = &self.trace;
        let mut out = Out(Vec::with_capacity(
            64 + t.scopes.len() * 48 + t.strings.parts().0.len() + t.strings.len() * 4,
        ));
        out.0.extend_from_slice(MAGIC);
        out.len(self.diagnostics.len());
        for d in &self.diagnostics {
            out.u8(match d.severity {
                Severity::Warning => 0,
                Severity::Damage => 1,
            });
            out.opt_u64(d.record.map(|r| r as u64));
            out.opt_u64(d.frame_index);
            out.u64(d.byte_offset);
            out.str(&d.message);
        }
        for list in [&t.format.record_kinds, &t.format.compressions] {
            out.len(list.len());
            list.iter().for_each(|s| out.str(s));
        }
        let (text, ends) = t.strings.parts();
        out.len(ends.len());
        out.str(text);
        out.u32s(ends.iter().map(|&e| e as u32));
        out.len(self.events.len());
        self.events.iter().for_each(|e| put_event(&mut out, e));
        let f = &t.frames;
        out.len(f.len());
        out.u64s(&f.frame_index);
        out.ranges(&f.range_ns);
        out.u64s(&f.num_scopes);
        out.u32s(f.first_stream.iter().copied());
        let s = &t.streams;
        out.len(s.len());
        out.u32s(s.frame.iter().map(|f| f.0));
        out.u32s(s.thread.iter().map(|t| t.0));
        out.u64s(&s.num_scopes);
        out.u64s(&s.depth);
        out.ranges(&s.range_ns);
        out.u32s(s.first_scope.iter().copied());
        let c = &t.scopes;
        out.len(c.len());
        out.i64s(&c.start_ns);
        out.i64s(&c.duration_ns);
        out.i64s(&c.self_ns);
        out.u32s(c.parent.iter().copied());
        out.u32s(c.subtree_end.iter().copied());
        out.u32s(c.def.iter().map(|d| d.0));
        out.u32s(c.data.iter().map(|d| d.0));
        out.u32s(c.depth.iter().copied());
        out.u32s(c.stream.iter().map(|s| s.0));
        out.0
    }

    /// Reads [`Self::to_bytes`]'s bytes back. The ids inside are checked
    /// by the merge.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, String> {
        read(bytes).map_err(|e| format!("malformed fragment: {e}"))
    }
}

fn read(bytes: &[u8]) -> Result<Fragment, ReadError> {
    let mut r = ByteReader::new(bytes);
    let magic = r.take(4, "magic")?;
    if magic != MAGIC {
        return Err(r.invalid("magic: not PLF1"));
    }
    let mut fragment = Fragment::default();
    let n = count(&mut r, 1)?;
    for _ in 0..n {
        let severity = match r.u8("severity")? {
            0 => Severity::Warning,
            _ => Severity::Damage,
        };
        let record = opt_u64(&mut r)?.map(|v| v as usize);
        let frame_index = opt_u64(&mut r)?;
        let byte_offset = r.u64_le("byte offset")?;
        let message = string(&mut r)?.to_owned();
        fragment.diagnostics.push(Diagnostic {
            severity,
            record,
            frame_index,
            byte_offset,
            message,
        });
    }
    let t = &mut fragment.trace;
    for list in [&mut t.format.record_kinds, &mut t.format.compressions] {
        let n = count(&mut r, 4)?;
        for _ in 0..n {
            list.push(string(&mut r)?.to_owned());
        }
    }
    let n = count(&mut r, 4)?;
    let text = string(&mut r)?.to_owned();
    let ends: Vec<usize> = u32s(&mut r, n)?.map(|e| e as usize).collect();
    let mut prev = 0;
    for &end in &ends {
        if end < prev || end > text.len() || !text.is_char_boundary(end) {
            return Err(r.invalid("strings: bad end"));
        }
        prev = end;
    }
    if ends.first() != Some(&0) {
        return Err(r.invalid("strings: the first string is not empty"));
    }
    t.strings = Interner::from_parts(text, ends);
    let n = count(&mut r, 1)?;
    let mut events = Vec::with_capacity(n);
    for _ in 0..n {
        events.push(get_event(&mut r)?);
    }
    fragment.events = events;
    let t = &mut fragment.trace;
    let n = count(&mut r, 36)?;
    let f = &mut t.frames;
    f.frame_index = u64s(&mut r, n)?.collect();
    f.range_ns = ranges(&mut r, n)?;
    f.num_scopes = u64s(&mut r, n)?.collect();
    f.first_stream = u32s(&mut r, n)?.collect();
    let n = count(&mut r, 44)?;
    let s = &mut t.streams;
    s.frame = u32s(&mut r, n)?.map(FrameId).collect();
    s.thread = u32s(&mut r, n)?.map(ThreadId).collect();
    s.num_scopes = u64s(&mut r, n)?.collect();
    s.depth = u64s(&mut r, n)?.collect();
    s.range_ns = ranges(&mut r, n)?;
    s.first_scope = u32s(&mut r, n)?.collect();
    let n = count(&mut r, 48)?;
    let c = &mut t.scopes;
    c.start_ns = i64s(&mut r, n)?.collect();
    c.duration_ns = i64s(&mut r, n)?.collect();
    c.self_ns = i64s(&mut r, n)?.collect();
    c.parent = u32s(&mut r, n)?.collect();
    c.subtree_end = u32s(&mut r, n)?.collect();
    c.def = u32s(&mut r, n)?.map(DefId).collect();
    c.data = u32s(&mut r, n)?.map(StrId).collect();
    c.depth = u32s(&mut r, n)?.collect();
    c.stream = u32s(&mut r, n)?.map(StreamId).collect();
    if r.remaining() != 0 {
        return Err(r.invalid("end: trailing bytes"));
    }
    Ok(fragment)
}

/// A count of items of at least `min_bytes` each, checked against the
/// bytes left (no allocation bigger than the input).
fn count(r: &mut ByteReader<'_>, min_bytes: usize) -> Result<usize, ReadError> {
    let n = r.u32_le("count")? as usize;
    if n.saturating_mul(min_bytes) > r.remaining() {
        return Err(r.invalid("count: more items than bytes left"));
    }
    Ok(n)
}

fn string<'a>(r: &mut ByteReader<'a>) -> Result<&'a str, ReadError> {
    let n = r.u32_le("string length")? as usize;
    let bytes = r.take(n as u64, "string")?;
    std::str::from_utf8(bytes).map_err(|_| r.invalid("string: not UTF-8"))
}

fn opt_u64(r: &mut ByteReader<'_>) -> Result<Option<u64>, ReadError> {
    Ok(if r.u8("option tag")? != 0 {
        Some(r.u64_le("option value")?)
    } else {
        None
    })
}

fn column<'a, const N: usize>(
    r: &mut ByteReader<'a>,
    n: usize,
) -> Result<impl ExactSizeIterator<Item = [u8; N]> + 'a, ReadError> {
    let bytes = r.take(n.saturating_mul(N) as u64, "column")?;
    Ok(bytes
        .chunks_exact(N)
        .map(|c| c.try_into().unwrap_or([0; N])))
}

fn u32s<'a>(
    r: &mut ByteReader<'a>,
    n: usize,
) -> Result<impl ExactSizeIterator<Item = u32> + 'a, ReadError> {
    Ok(column::<4>(r, n)?.map(u32::from_le_bytes))
}

fn u64s<'a>(
    r: &mut ByteReader<'a>,
    n: usize,
) -> Result<impl ExactSizeIterator<Item = u64> + 'a, ReadError> {
    Ok(column::<8>(r, n)?.map(u64::from_le_bytes))
}

fn i64s<'a>(
    r: &mut ByteReader<'a>,
    n: usize,
) -> Result<impl ExactSizeIterator<Item = i64> + 'a, ReadError> {
    Ok(column::<8>(r, n)?.map(i64::from_le_bytes))
}

fn ranges(r: &mut ByteReader<'_>, n: usize) -> Result<Vec<(i64, i64)>, ReadError> {
    Ok(column::<16>(r, n)?
        .map(|c| {
            let (a, b) = c.split_at(8);
            (
                i64::from_le_bytes(a.try_into().unwrap_or([0; 8])),
                i64::from_le_bytes(b.try_into().unwrap_or([0; 8])),
            )
        })
        .collect())
}

fn get_event(r: &mut ByteReader<'_>) -> Result<Event, ReadError> {
    let tag = r.u8("event")?;
    let u32 = |r: &mut ByteReader<'_>| r.u32_le("event field");
    Ok(match tag {
        0 => Event::Mark,
        1 => Event::Rollback,
        2 => Event::UseRaw {
            at: u32(r)?,
            raw: u32(r)?,
            local: u32(r)?,
        },
        3 => {
            let (at, raw) = (u32(r)?, u32(r)?);
            let (name, function, file, line) = (u32(r)?, u32(r)?, u32(r)?, u32(r)?);
            let kind = *KINDS
                .get(usize::from(r.u8("kind")?))
                .ok_or_else(|| r.invalid("kind: unknown"))?;
            let created = opt_u64(r)?.map(|v| v as u32);
            Event::Register {
                at,
                raw,
                row: DefRow {
                    name: StrId(name),
                    function: StrId(function),
                    file: StrId(file),
                    line,
                    kind,
                },
                created,
            }
        }
        4 => Event::Legacy {
            at: u32(r)?,
            name: StrId(u32(r)?),
            location: StrId(u32(r)?),
            local: u32(r)?,
        },
        5 => {
            let at = u32(r)?;
            let start_time_ns = opt_u64(r)?.map(|v| v as i64);
            Event::Thread {
                at,
                start_time_ns,
                name: StrId(u32(r)?),
                local: u32(r)?,
            }
        }
        _ => return Err(r.invalid("event: unknown tag")),
    })
}
