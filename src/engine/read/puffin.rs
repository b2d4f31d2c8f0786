//! Decoder for `.puffin` recordings into a [`Trace`](crate::engine::model::Trace).
//!
//! # Container
//!
//! ```text
//! file    = "PUF0" record* [u32 0 sentinel]
//! record  = "PFD4" u32 meta_len  FrameMeta  u32 packed_len u8 compression packed  u32 reg_len Vec<ScopeDetails>
//!         | "PFD3" u32 meta_len  FrameMeta  u32 packed_len u8 compression packed
//!         | "PFD2" u32 meta_len  FrameMeta  u32 packed_len packed            (zstd)
//!         | "PFD1" u32 len zstd(LegacyFrameData)
//!         | u32 len LegacyFrameData                                          (no magic)
//! compression = 0 none | 1 lz4 (u32 size prepended) | 2 zstd
//! packed  = bincode BTreeMap<ThreadInfo, StreamInfo>, compressed
//! ```
//!
//! All bincode is 1.x with `bincode::options()`: varint integers, zigzag for
//! signed, `u8` option tags, varint-length strings and sequences.
//!
//! - `FrameMeta      = frame_index u64, range_ns (i64, i64), num_bytes u64, num_scopes u64`
//! - `ThreadInfo     = start_time_ns Option<i64>, name String`
//! - `StreamInfo     = stream Vec<u8>, num_scopes u64, depth u64, range_ns (i64, i64)`
//! - `ScopeDetails   = scope_id Option<u32>, scope_name Option<String>, function_name String, file_path String, line_nr u32`
//! - `LegacyFrameData = frame_index u64, streams BTreeMap<ThreadInfo, StreamInfo>, range_ns (i64, i64), num_bytes u64, num_scopes u64`
//!
//! # Thread streams
//!
//! Fixed-width little-endian, strings are `u8` length + bytes (at most 127).
//!
//! ```text
//! PFD4:      '(' u32 scope_id  i64 start_ns  str data  u64 children_len  children  ')' i64 stop_ns
//! PFD1-PFD3: '(' i64 start_ns  str name  str location  str data  u64 children_len  children  ')' i64 stop_ns
//! ```
//!
//! A `children_len` of `u64::MAX` marks a scope that was never closed.
//!
//! puffin 0.20 cannot parse the legacy stream layout, and its bincode path
//! trusts length fields for allocations, so this module parses everything
//! itself with bounds-checked reads ([`super::bytes`]); only the decompressors
//! (`lz4_flex`, `zstd`/`ruzstd`) are shared with puffin.

use super::bytes::{ByteReader, ReadError};
use super::decoded::{Decoded, Diagnostic, LoadError, Severity, SizeEstimate};
use crate::engine::model::{DefRow, Event, ScopeKind, StreamId, Trace, TraceBuilder};
use std::fmt;
#[cfg(not(target_arch = "wasm32"))]
use std::ops::ControlFlow;

/// Largest decompressed size accepted for one frame.
const MAX_UNPACKED_BYTES: usize = 1 << 31;

/// Which stream layout a record uses.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Layout {
    /// PFD4: scope ids, registrations separate.
    Ids,
    /// PFD1-PFD3 and magic-less records: names and locations inline.
    Legacy,
}

/// Decodes a recording frame by frame, so callers can show progress or
/// spread the work over several UI frames.
pub struct PuffinDecoder<B> {
    bytes: B,
    pos: usize,
    record: usize,
    builder: TraceBuilder,
    diagnostics: Vec<Diagnostic>,
    done: bool,
    scratch: Vec<u8>,
    /// Where `bytes` starts in the file (a run decoded on its own): added
    /// to the offsets diagnostics give.
    base: usize,
}

/// A run of consecutive whole records, located by
/// [`PuffinDecoder::next_run`] to be decoded on its own (by the
/// `fragment` module, which reads this one: never the other way round).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Run {
    /// Its bytes in the file.
    pub bytes: std::ops::Range<usize>,
    /// The position of its first record in the file (0-based).
    pub first_record: usize,
}

/// Human-readable rendering of a 4-byte magic.
pub(crate) fn show_magic(bytes: &[u8]) -> String {
    let shown: String = bytes
        .iter()
        .map(|&b| {
            if b.is_ascii_graphic() {
                (b as char).to_string()
            } else {
                format!("\\x{b:02x}")
            }
        })
        .collect();
    format!("\"{shown}\"")
}

impl<B: AsRef<[u8]>> PuffinDecoder<B> {
    /// Every byte given to decode (the whole file).
    pub fn input(&self) -> &[u8] {
        self.bytes.as_ref()
    }

    /// Checks the `PUF0` magic.
    pub fn new(bytes: B) -> Result<Self, LoadError> {
        let data = bytes.as_ref();
        if data.is_empty() {
            return Err(LoadError::Empty);
        }
        if !data.starts_with(b"PUF0") {
            return Err(LoadError::BadMagic {
                found: show_magic(&data[..data.len().min(4)]),
            });
        }
        let mut decoder = Self {
            bytes,
            pos: 4,
            record: 0,
            builder: TraceBuilder::new(),
            diagnostics: Vec::new(),
            done: false,
            scratch: Vec::new(),
            base: 0,
        };
        let hint = decoder.scope_count_hint();
        decoder.builder.reserve_scopes(hint);
        Ok(decoder)
    }

    /// Sum of the frames' claimed scope counts (from metadata only, no
    /// decompression), to size the columns once instead of growing them.
    /// Capped at one scope per byte of file, as metadata is untrusted.
    fn scope_count_hint(&self) -> usize {
        SizeEstimate::of_puffin(self.bytes.as_ref()).reserved as usize
    }

    /// Bytes consumed so far (for progress).
    pub fn bytes_done(&self) -> usize {
        self.pos
    }

    pub fn bytes_total(&self) -> usize {
        self.bytes.as_ref().len()
    }

    /// Frames decoded so far.
    pub fn frames_done(&self) -> usize {
        self.builder.trace.frames.len()
    }

    pub fn is_done(&self) -> bool {
        self.done
    }

    /// Decodes all remaining frames.
    pub fn run(mut self) -> Decoded {
        while self.step() {}
        self.finish()
    }

    pub fn finish(mut self) -> Decoded {
        // The parallel path reports a broken container before the frames.
        self.diagnostics.sort_by_key(|d| (d.byte_offset, d.record));
        let mut trace = self.builder.finish();
        if trace.format.record_kinds.is_empty() {
            trace.format.note_record("PUF0");
        }
        Decoded {
            trace,
            diagnostics: self.diagnostics,
        }
    }

    fn damage(&mut self, record: Option<usize>, frame_index: Option<u64>, at: usize, msg: String) {
        self.diagnostics.push(Diagnostic {
            severity: Severity::Damage,
            record,
            frame_index,
            byte_offset: (self.base + at) as u64,
            message: msg,
        });
    }

    /// Locates the next run of whole records, at least `min_bytes` long
    /// (the last may be shorter), without decoding them; `None` at the end.
    /// A broken container ends the file as in [`Self::step`]. The runs are
    /// decoded elsewhere and given back in order to [`Self::merge`].
    pub fn next_run(&mut self, min_bytes: usize) -> Option<Run> {
        let (start, first_record) = (self.pos, self.record);
        while self.pos - start < min_bytes.max(1) && self.next_record().is_some() {}
        (self.pos > start).then_some(Run {
            bytes: start..self.pos,
            first_record,
        })
    }

    /// Appends a run decoded on its own (its trace, the events its merge
    /// resolves and its diagnostics), as if its records had been decoded
    /// here (runs in file order, each once).
    pub fn merge_run(
        &mut self,
        trace: &Trace,
        events: &[Event],
        diagnostics: &[Diagnostic],
    ) -> Result<(), String> {
        self.builder.merge_fragment(trace, events)?;
        self.diagnostics.extend(diagnostics.iter().cloned());
        Ok(())
    }

    /// Decodes the next frame record. Returns false once the end is reached.
    pub fn step(&mut self) -> bool {
        match self.next_record() {
            Some((record, start, parts)) => {
                self.decode_record(record, start, parts, None);
                true
            }
            None => false,
        }
    }

    /// Locates the next frame record (container only, nothing decoded).
    /// A broken container ends the file: reported, then `None`.
    fn next_record(&mut self) -> Option<(usize, usize, RecordParts)> {
        if self.done {
            return None;
        }
        let data = self.bytes.as_ref();
        let start = self.pos;
        let record = self.record;
        let left = data.len() - start;
        if left == 0 {
            self.done = true;
            return None;
        }
        if left < 4 {
            self.done = true;
            self.damage(
                Some(record),
                None,
                start,
                format!("truncated: {left} stray bytes where a frame record header should be"),
            );
            return None;
        }
        let header: [u8; 4] = data[start..start + 4].try_into().unwrap_or([0; 4]);
        if header == [0; 4] {
            self.done = true;
            return None;
        }
        let outcome = match &header {
            b"PFD4" | b"PFD3" | b"PFD2" => self.split_meta_record(&header, start),
            b"PFD1" => split_len_record(data, start, 4, "PFD1"),
            b"PFD0" => split_len_record(data, start, 4, "PFD0"),
            [b'P', b'F', b'D', _] => Err(format!(
                "unknown frame record version {} (newer than this reader?); the rest of the file cannot be read",
                show_magic(&header)
            )),
            _ => split_len_record(data, start, 0, "legacy"),
        };
        match outcome {
            Ok(parts) => {
                self.pos = parts.end;
                self.record += 1;
                Some((record, start, parts))
            }
            Err(msg) => {
                self.done = true;
                self.damage(Some(record), None, start, msg);
                None
            }
        }
    }

    /// Splits a PFD2/3/4 record into its blocks without decoding them.
    fn split_meta_record(&self, header: &[u8; 4], start: usize) -> Result<RecordParts, String> {
        split_meta_record(self.bytes.as_ref(), header, start)
    }

    /// Decodes one located record. `unpacked`: its payload, already
    /// decompressed (parallel path), or `None` to decompress here.
    fn decode_record(
        &mut self,
        record: usize,
        start: usize,
        parts: RecordParts,
        unpacked: Option<Result<Vec<u8>, String>>,
    ) {
        let data = self.bytes.as_ref();
        let mut scratch = std::mem::take(&mut self.scratch);
        let mut frame_index = None;
        let result = (|| -> Result<(), String> {
            let meta = match &parts.meta {
                Some(range) => {
                    let meta = read_meta(&data[range.clone()])
                        .map_err(|e| format!("frame metadata: {e}"))?;
                    frame_index = Some(meta.frame_index);
                    Some(meta)
                }
                None => None,
            };
            let kind = parts.kind;
            if kind == RecordKind::Pfd0 {
                return Err(
                    "PFD0 records (lz4-compressed, from 2021 and before) are no longer readable"
                        .to_owned(),
                );
            }
            self.builder.trace.format.note_record(kind.name());
            self.builder
                .trace
                .format
                .note_compression(compression_name(parts.compression));
            let hint = meta.as_ref().map_or(0, |m| m.num_bytes);
            let owned;
            let unpacked: &[u8] = match unpacked {
                Some(result) => {
                    owned = result?;
                    &owned
                }
                None => unpack(data, &parts, hint, &mut scratch)?.unwrap_or(&scratch),
            };
            let mark = self.builder.mark();
            let result = match meta {
                Some(meta) => {
                    self.builder
                        .begin_frame(meta.frame_index, meta.range_ns, meta.num_scopes);
                    let layout = if kind == RecordKind::Pfd4 {
                        Layout::Ids
                    } else {
                        Layout::Legacy
                    };
                    let mut r = ByteReader::new(unpacked);
                    read_streams(&mut self.builder, &mut r, layout)
                }
                None => {
                    self.builder.begin_frame(0, (i64::MAX, i64::MIN), 0);
                    read_legacy_frame(&mut self.builder, unpacked, &mut frame_index)
                }
            };
            if let Err(msg) = result {
                self.builder.rollback(mark);
                return Err(msg);
            }
            Ok(())
        })();
        if let Err(msg) = result {
            self.damage(Some(record), frame_index, start, msg);
        }
        if let Some(reg) = parts.registrations {
            self.read_registrations(record, frame_index, reg);
        }
        self.scratch = scratch;
    }

    fn read_registrations(
        &mut self,
        record: usize,
        frame_index: Option<u64>,
        range: std::ops::Range<usize>,
    ) {
        let data = self.bytes.as_ref();
        let mut r = ByteReader::new(&data[range.clone()]);
        let mut warnings = Vec::new();
        let result = (|| -> Result<(), ReadError> {
            let n = r.varint_u64("registration count")?;
            for _ in 0..n {
                let at = range.start + r.pos();
                let id = if r.option_tag("scope id tag")? {
                    Some(r.varint_u32("scope id")?)
                } else {
                    None
                };
                let scope_name = if r.option_tag("scope name tag")? {
                    Some(r.bincode_str("scope name")?)
                } else {
                    None
                };
                let function = r.bincode_str("function name")?;
                let file = r.bincode_str("file path")?;
                let line = r.varint_u32("line number")?;
                let Some(id) = id.filter(|&id| id != 0) else {
                    let what = scope_name.unwrap_or(function);
                    warnings.push((
                        at,
                        format!(
                            "registration without a scope id skipped ({what:?} at {file}:{line})"
                        ),
                    ));
                    continue;
                };
                let b = &mut self.builder;
                let row = DefRow {
                    name: b.intern(scope_name.unwrap_or(function)),
                    function: b.intern(function),
                    file: b.intern(file),
                    line,
                    kind: if scope_name.is_some() {
                        ScopeKind::Named
                    } else {
                        ScopeKind::Function
                    },
                };
                b.register(id, row);
            }
            Ok(())
        })();
        for (at, message) in warnings {
            self.diagnostics.push(Diagnostic {
                severity: Severity::Warning,
                record: Some(record),
                frame_index,
                byte_offset: (self.base + at) as u64,
                message,
            });
        }
        if let Err(e) = result {
            let at = range.start + e.offset;
            self.damage(
                Some(record),
                frame_index,
                at,
                format!("scope registrations: {e}"),
            );
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum RecordKind {
    Pfd4,
    Pfd3,
    Pfd2,
    Pfd1,
    Pfd0,
    Legacy,
}

impl RecordKind {
    fn name(self) -> &'static str {
        match self {
            RecordKind::Pfd4 => "PFD4",
            RecordKind::Pfd3 => "PFD3",
            RecordKind::Pfd2 => "PFD2",
            RecordKind::Pfd1 => "PFD1",
            RecordKind::Pfd0 => "PFD0",
            RecordKind::Legacy => "legacy",
        }
    }
}

/// Byte ranges of a record's blocks (absolute offsets in the file).
#[derive(Clone)]
struct RecordParts {
    kind: RecordKind,
    meta: Option<std::ops::Range<usize>>,
    compression: u8,
    payload: std::ops::Range<usize>,
    registrations: Option<std::ops::Range<usize>>,
    end: usize,
}

/// `[magic] u32 len payload` records (PFD1, PFD0, magic-less legacy).
fn split_len_record(
    data: &[u8],
    start: usize,
    magic_len: usize,
    name: &'static str,
) -> Result<RecordParts, String> {
    let mut r = ByteReader::new(&data[start + magic_len..]);
    let container = |e: ReadError| {
        if magic_len == 0 {
            format!(
                "not a frame record (no PFD magic; as a legacy record: {e}); the rest of the file cannot be read"
            )
        } else {
            format!("{name}: {e}; the rest of the file cannot be read")
        }
    };
    let len = r.u32_le("record length").map_err(container)?;
    let at = start + magic_len + r.pos();
    r.take(u64::from(len), "record payload")
        .map_err(container)?;
    let (kind, compression) = match name {
        "PFD1" => (RecordKind::Pfd1, 2),
        "PFD0" => (RecordKind::Pfd0, 1),
        _ => (RecordKind::Legacy, 0),
    };
    Ok(RecordParts {
        kind,
        meta: None,
        compression,
        payload: at..at + len as usize,
        registrations: None,
        end: at + len as usize,
    })
}

fn compression_name(kind: u8) -> &'static str {
    match kind {
        0 => "none",
        1 => "lz4",
        2 => "zstd",
        _ => "unknown",
    }
}

/// Decompresses a record's payload into `scratch`; `Ok(Some(payload))` when
/// it is stored uncompressed (no copy).
fn unpack<'d>(
    data: &'d [u8],
    parts: &RecordParts,
    size_hint: u64,
    scratch: &mut Vec<u8>,
) -> Result<Option<&'d [u8]>, String> {
    let payload = &data[parts.payload.clone()];
    match parts.compression {
        0 => Ok(Some(payload)),
        1 => decompress_lz4(payload, scratch).map(|()| None),
        2 => decompress_zstd(payload, size_hint, scratch).map(|()| None),
        other => Err(format!("unknown compression kind {other}")),
    }
}

/// The metadata's unpacked size, for sizing the zstd output (0: unknown).
#[cfg(not(target_arch = "wasm32"))]
fn meta_size_hint(data: &[u8], parts: &RecordParts) -> u64 {
    parts
        .meta
        .clone()
        .and_then(|m| read_meta(&data[m]).ok())
        .map_or(0, |m| m.num_bytes)
}

/// Fewest stream bytes one scope takes (`(` id start empty-data children `)`
/// stop): bounds a frame's claimed scope count by its claimed size.
const MIN_SCOPE_STREAM_BYTES: u64 = 29;

impl SizeEstimate {
    /// PFD2-PFD4 records: their metadata's `num_scopes` and `num_bytes`
    /// (each bounded by what one frame may decompress to). Records whose
    /// metadata is compressed with the streams (PFD1, magic-less) and
    /// whatever follows a broken container count one scope per 8 bytes.
    pub fn of_puffin(data: &[u8]) -> Self {
        let mut estimate = Self::default();
        let mut pos = 4.min(data.len());
        while pos + 4 <= data.len() {
            let header: [u8; 4] = data[pos..pos + 4].try_into().unwrap_or([0; 4]);
            if !matches!(&header, b"PFD4" | b"PFD3" | b"PFD2") {
                break;
            }
            let Ok(parts) = split_meta_record(data, &header, pos) else {
                break;
            };
            if let Some(meta) = parts.meta.and_then(|m| read_meta(&data[m]).ok()) {
                let frame_bytes = meta.num_bytes.min(MAX_UNPACKED_BYTES as u64);
                let most_scopes = MAX_UNPACKED_BYTES as u64 / MIN_SCOPE_STREAM_BYTES;
                estimate.scopes = estimate
                    .scopes
                    .saturating_add(meta.num_scopes.min(most_scopes));
                estimate.max_frame_bytes = estimate.max_frame_bytes.max(frame_bytes);
            }
            pos = parts.end;
        }
        let rest = data.len().saturating_sub(pos) as u64;
        if rest > 4 {
            estimate.scopes = estimate.scopes.saturating_add(rest / 8);
            estimate.max_frame_bytes = estimate
                .max_frame_bytes
                .max(rest.saturating_mul(8).min(MAX_UNPACKED_BYTES as u64));
        }
        estimate.reserved = estimate.scopes.min(data.len() as u64);
        estimate
    }
}

/// Splits a PFD2-PFD4 record starting at `start` into its parts.
fn split_meta_record(data: &[u8], header: &[u8; 4], start: usize) -> Result<RecordParts, String> {
    let mut r = ByteReader::new(&data[start + 4..]);
    let kind = match header {
        b"PFD4" => RecordKind::Pfd4,
        b"PFD3" => RecordKind::Pfd3,
        _ => RecordKind::Pfd2,
    };
    let container =
        |e: ReadError| format!("{}: {e}; the rest of the file cannot be read", kind.name());
    let meta_len = r.u32_le("meta length").map_err(container)?;
    let meta_at = start + 4 + r.pos();
    r.take(u64::from(meta_len), "meta block")
        .map_err(container)?;
    let packed_len = r.u32_le("stream block length").map_err(container)?;
    let compression = if kind == RecordKind::Pfd2 {
        2
    } else {
        r.u8("compression byte").map_err(container)?
    };
    let packed_at = start + 4 + r.pos();
    r.take(u64::from(packed_len), "stream block")
        .map_err(container)?;
    let mut reg = None;
    if kind == RecordKind::Pfd4 {
        let reg_len = r.u32_le("registration block length").map_err(container)?;
        let reg_at = start + 4 + r.pos();
        r.take(u64::from(reg_len), "registration block")
            .map_err(container)?;
        reg = Some(reg_at..reg_at + reg_len as usize);
    }
    Ok(RecordParts {
        kind,
        meta: Some(meta_at..meta_at + meta_len as usize),
        compression,
        payload: packed_at..packed_at + packed_len as usize,
        registrations: reg,
        end: start + 4 + r.pos(),
    })
}

struct FrameMeta {
    frame_index: u64,
    range_ns: (i64, i64),
    num_bytes: u64,
    num_scopes: u64,
}

fn read_meta(bytes: &[u8]) -> Result<FrameMeta, ReadError> {
    let mut r = ByteReader::new(bytes);
    let frame_index = r.varint_u64("frame_index")?;
    let range_ns = (r.varint_i64("range start")?, r.varint_i64("range end")?);
    let num_bytes = r.varint_u64("num_bytes")?;
    let num_scopes = r.varint_u64("num_scopes")?;
    Ok(FrameMeta {
        frame_index,
        range_ns,
        num_bytes,
        num_scopes,
    })
}

fn decompress_lz4(packed: &[u8], out: &mut Vec<u8>) -> Result<(), String> {
    let mut r = ByteReader::new(packed);
    let size = r
        .u32_le("lz4 size prefix")
        .map_err(|e| format!("lz4: {e}"))? as usize;
    let body = &packed[4..];
    // One lz4 byte can expand to at most 255 bytes: a larger claim is a lie.
    let max = body.len().saturating_mul(255).saturating_add(16);
    if size > max || size > MAX_UNPACKED_BYTES {
        return Err(format!(
            "lz4 block claims {size} decompressed bytes, impossible for {} compressed bytes",
            body.len()
        ));
    }
    // Not cleared first: only growth is zero-filled, and every byte up to
    // `size` is overwritten (checked below).
    out.resize(size, 0);
    let n = lz4_flex::decompress_into(body, out).map_err(|e| format!("lz4: {e}"))?;
    if n != size {
        return Err(format!("lz4: decompressed {n} bytes, expected {size}"));
    }
    Ok(())
}

/// Most bytes a zstd payload may decompress to: near the metadata's unpacked
/// size when known (plus room for thread headers), else [`MAX_UNPACKED_BYTES`].
/// A decompression bomb is an error, not an allocation.
fn zstd_limit(size_hint: u64) -> usize {
    if size_hint == 0 {
        return MAX_UNPACKED_BYTES;
    }
    size_hint
        .saturating_add(size_hint / 2 + (1 << 20))
        .min(MAX_UNPACKED_BYTES as u64) as usize
}

/// Reads a decompressor to its end, failing past `limit` bytes.
fn read_limited(reader: impl std::io::Read, limit: usize, out: &mut Vec<u8>) -> Result<(), String> {
    use std::io::Read as _;
    reader
        .take(limit as u64 + 1)
        .read_to_end(out)
        .map_err(|e| format!("zstd: {e}"))?;
    if out.len() > limit {
        return Err(format!(
            "zstd: payload decompresses to more than {limit} bytes, far beyond the frame's stated size"
        ));
    }
    Ok(())
}

/// zstd, native: one-shot into a buffer sized from the metadata's unpacked
/// size (untrusted, so bounded), falling back to streaming when it does not fit.
#[cfg(not(target_arch = "wasm32"))]
fn decompress_zstd(packed: &[u8], size_hint: u64, out: &mut Vec<u8>) -> Result<(), String> {
    out.clear();
    let bound = (packed.len() as u64)
        .saturating_mul(64)
        .min(MAX_UNPACKED_BYTES as u64);
    let hint = size_hint.saturating_add(size_hint / 8 + 4096).min(bound) as usize;
    if hint > 0 {
        out.reserve(hint);
        thread_local! {
            // One decompression context per thread, reused frame after frame.
            static CONTEXT: std::cell::RefCell<Option<zstd::bulk::Decompressor<'static>>> =
                const { std::cell::RefCell::new(None) };
        }
        let done = CONTEXT.with_borrow_mut(|context| {
            if context.is_none() {
                *context = zstd::bulk::Decompressor::new().ok();
            }
            context
                .as_mut()
                .is_some_and(|ctx| ctx.decompress_to_buffer(packed, out).is_ok())
        });
        if done {
            return Ok(());
        }
        out.clear();
    }
    let decoder =
        zstd::stream::read::Decoder::with_buffer(packed).map_err(|e| format!("zstd: {e}"))?;
    read_limited(decoder, zstd_limit(size_hint), out)
}

/// zstd on wasm: `ruzstd`, as puffin uses there.
#[cfg(target_arch = "wasm32")]
fn decompress_zstd(mut packed: &[u8], size_hint: u64, out: &mut Vec<u8>) -> Result<(), String> {
    out.clear();
    let decoder =
        ruzstd::decoding::StreamingDecoder::new(&mut packed).map_err(|e| format!("zstd: {e}"))?;
    read_limited(decoder, zstd_limit(size_hint), out)
}

/// `bincode BTreeMap<ThreadInfo, StreamInfo>` into the current frame.
fn read_streams(
    b: &mut TraceBuilder,
    r: &mut ByteReader<'_>,
    layout: Layout,
) -> Result<(), String> {
    let n = r
        .varint_u64("thread count")
        .map_err(|e| format!("thread streams: {e}"))?;
    for _ in 0..n {
        let header = (|| -> Result<_, ReadError> {
            let start_time = if r.option_tag("thread start time tag")? {
                Some(r.varint_i64("thread start time")?)
            } else {
                None
            };
            let name = r.bincode_str("thread name")?;
            let stream = r.bincode_bytes("thread stream")?;
            Ok((start_time, name, stream))
        })()
        .map_err(|e| format!("thread streams: {e}"))?;
        let (start_time, name, stream) = header;
        let thread = b.thread(start_time, name);
        let sid = b.begin_stream(thread);
        let parsed = match layout {
            Layout::Ids => parse_stream_ids(b, stream, sid),
            Layout::Legacy => parse_stream_legacy(b, stream, sid),
        };
        parsed.map_err(|e| format!("thread {name:?}: stream {e}"))?;
        let meta = (|| -> Result<_, ReadError> {
            Ok((
                r.varint_u64("stream num_scopes")?,
                r.varint_u64("stream depth")?,
                (
                    r.varint_i64("stream range start")?,
                    r.varint_i64("stream range end")?,
                ),
            ))
        })()
        .map_err(|e| format!("thread {name:?}: {e}"))?;
        b.end_stream(sid, meta.0, meta.1, meta.2);
    }
    Ok(())
}

/// A legacy frame body (PFD1 payload, magic-less record).
fn read_legacy_frame(
    b: &mut TraceBuilder,
    bytes: &[u8],
    frame_index_out: &mut Option<u64>,
) -> Result<(), String> {
    let mut r = ByteReader::new(bytes);
    let frame_index = r
        .varint_u64("frame_index")
        .map_err(|e| format!("legacy frame: {e}"))?;
    *frame_index_out = Some(frame_index);
    read_streams(b, &mut r, Layout::Legacy)?;
    let meta = (|| -> Result<_, ReadError> {
        let range = (r.varint_i64("range start")?, r.varint_i64("range end")?);
        let _num_bytes = r.varint_u64("num_bytes")?;
        let num_scopes = r.varint_u64("num_scopes")?;
        Ok((range, num_scopes))
    })()
    .map_err(|e| format!("legacy frame metadata: {e}"))?;
    b.set_frame_meta(frame_index, meta.0, meta.1);
    Ok(())
}

const SCOPE_BEGIN: u8 = b'(';
const SCOPE_END: u8 = b')';

/// A stream error, located at an offset in the stream.
fn stream_err(offset: usize, msg: impl fmt::Display) -> String {
    format!("offset {offset}: {msg}")
}

/// Shared pre-order walk of both layouts; `open` reads one scope header
/// (after `'('`) and returns (definition, start, data, children length).
#[inline(always)]
fn parse_stream_with(
    b: &mut TraceBuilder,
    stream: &[u8],
    sid: StreamId,
    mut open: impl FnMut(
        &mut TraceBuilder,
        &mut ByteReader<'_>,
    ) -> Result<
        (
            crate::engine::model::DefId,
            i64,
            crate::engine::model::StrId,
            u64,
        ),
        ReadError,
    >,
) -> Result<(), String> {
    let mut r = ByteReader::new(stream);
    // End offsets of the open scopes' children.
    let mut ends: Vec<usize> = Vec::new();
    loop {
        let limit = ends.last().copied().unwrap_or(stream.len());
        let pos = r.pos();
        if pos == limit {
            let Some(_) = ends.pop() else {
                return Ok(());
            };
            // Close the innermost scope.
            let end_at = r.pos();
            let tag = r.u8("scope end").map_err(|e| stream_err(end_at, e))?;
            if tag != SCOPE_END {
                return Err(stream_err(
                    end_at,
                    format!("expected ')' to close a scope, found 0x{tag:02x}"),
                ));
            }
            let stop_ns = r
                .i64_le("scope stop time")
                .map_err(|e| stream_err(end_at, e))?;
            let start_ns = b.open_start_ns().unwrap_or(stop_ns);
            if stop_ns < start_ns {
                return Err(stream_err(
                    end_at,
                    format!("scope stops before it starts (stop {stop_ns} < start {start_ns})"),
                ));
            }
            let Some(duration_ns) = stop_ns.checked_sub(start_ns) else {
                return Err(stream_err(
                    end_at,
                    format!("scope duration overflows (start {start_ns}, stop {stop_ns})"),
                ));
            };
            b.close_scope(duration_ns);
            continue;
        }
        if pos > limit {
            return Err(stream_err(pos, "a scope runs past the end of its parent"));
        }
        let tag = r.u8("scope begin").map_err(|e| stream_err(pos, e))?;
        if tag != SCOPE_BEGIN {
            return Err(stream_err(
                pos,
                format!("expected '(' to open a scope, found 0x{tag:02x}"),
            ));
        }
        let (def, start_ns, data, children_len) =
            open(b, &mut r).map_err(|e| stream_err(pos, e))?;
        if children_len == u64::MAX {
            return Err(stream_err(pos, "scope was never closed"));
        }
        let children_end = (r.pos() as u64)
            .checked_add(children_len)
            .filter(|&end| end <= limit as u64)
            .ok_or_else(|| {
                stream_err(
                    pos,
                    format!(
                        "scope claims {children_len} bytes of children, more than the {} left",
                        limit.saturating_sub(r.pos())
                    ),
                )
            })?;
        if ends.len() >= u32::MAX as usize - 1 {
            return Err(stream_err(pos, "nesting too deep"));
        }
        b.open_scope(def, start_ns, data, sid);
        ends.push(children_end as usize);
    }
}

fn parse_stream_ids(b: &mut TraceBuilder, stream: &[u8], sid: StreamId) -> Result<(), String> {
    parse_stream_with(b, stream, sid, |b, r| {
        let id = r.u32_le("scope id")?;
        let start_ns = r.i64_le("scope start time")?;
        let data = r.short_bytes("scope data")?;
        let children_len = r.u64_le("scope size")?;
        let def = b.def_for_raw_id(id);
        let data = b.intern_utf8_prefix(data);
        Ok((def, start_ns, data, children_len))
    })
}

fn parse_stream_legacy(b: &mut TraceBuilder, stream: &[u8], sid: StreamId) -> Result<(), String> {
    parse_stream_with(b, stream, sid, |b, r| {
        let start_ns = r.i64_le("scope start time")?;
        let name = r.short_str("scope name")?;
        let location = r.short_str("scope location")?;
        let data = r.short_bytes("scope data")?;
        let children_len = r.u64_le("scope size")?;
        let def = b.legacy_def(name, location);
        let data = b.intern_utf8_prefix(data);
        Ok((def, start_ns, data, children_len))
    })
}

#[cfg(not(target_arch = "wasm32"))]
impl PuffinDecoder<&[u8]> {
    /// Decodes all remaining frames, decompressing batches of frames on the
    /// rayon pool while the previous batch is parsed into the model (the
    /// model itself is built on one thread, in file order). Same result as
    /// [`Self::run`].
    pub fn run_parallel(self) -> Decoded {
        self.run_parallel_with_progress(|_| ControlFlow::Continue(()))
    }

    /// [`Self::run_parallel`], calling `progress(bytes_done)` after each
    /// batch of frames (for a progress bar). When it answers `Break` the
    /// decode stops there (a load that was replaced) and returns the frames
    /// decoded so far.
    pub fn run_parallel_with_progress(
        mut self,
        progress: impl Fn(usize) -> ControlFlow<()> + Sync,
    ) -> Decoded {
        const BATCH: usize = 16;
        let data: &[u8] = self.bytes;
        let mut records = Vec::new();
        while let Some(record) = self.next_record() {
            records.push(record);
        }
        let unpack_batch = |batch: &[(usize, usize, RecordParts)]| -> Vec<Result<Vec<u8>, String>> {
            use rayon::prelude::*;
            batch
                .par_iter()
                .map(|(_, _, parts)| {
                    let mut out = Vec::new();
                    let hint = meta_size_hint(data, parts);
                    match unpack(data, parts, hint, &mut out)? {
                        Some(raw) => Ok(raw.to_vec()),
                        None => Ok(out),
                    }
                })
                .collect()
        };
        let mut batches = records.chunks(BATCH);
        let mut current = batches.next().map(|b| (b, unpack_batch(b)));
        while let Some((batch, unpacked)) = current.take() {
            let next = batches.next();
            let (next_unpacked, flow) = rayon::join(
                || next.map(|b| (b, unpack_batch(b))),
                || {
                    for ((record, start, parts), unpacked) in batch.iter().zip(unpacked) {
                        self.decode_record(*record, *start, parts.clone(), Some(unpacked));
                    }
                    match batch.last() {
                        Some((_, _, last)) => progress(last.end),
                        None => ControlFlow::Continue(()),
                    }
                },
            );
            if flow.is_break() {
                break;
            }
            current = next_unpacked;
        }
        self.finish()
    }
}

impl PuffinDecoder<Vec<u8>> {
    /// Appends whole frame records (live capture) to decode with
    /// [`Self::step`]. The caller frames them ([`record_extent`]).
    pub fn push_records(&mut self, records: &[u8]) {
        self.bytes.extend_from_slice(records);
        self.done = false;
    }

    /// The recording as it is now, without ending it.
    pub fn snapshot(&self) -> Decoded {
        let mut diagnostics = self.diagnostics.clone();
        diagnostics.sort_by_key(|d| (d.byte_offset, d.record));
        Decoded {
            trace: self.builder.snapshot(),
            diagnostics,
        }
    }

    /// Forgets the bytes before `from` (record boundaries, `from >= 4`)
    /// and the first `frames` frames of the model. Diagnostics stay.
    pub fn drop_front(&mut self, from: usize, frames: usize) {
        let from = from.clamp(4, self.bytes.len());
        self.bytes.drain(4..from);
        self.pos -= from - 4;
        self.builder.drop_front_frames(frames);
    }

    /// The bytes decoded so far: `PUF0` and the records.
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// The bytes given, back (to start over another way).
    pub fn into_bytes(self) -> Vec<u8> {
        self.bytes
    }
}

/// Where one frame record ends, read from its length fields only (see the
/// module doc for the layouts); for framing records that arrive over a
/// stream. Only records with a `PFD` magic are accepted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Extent {
    /// The record is `len` bytes long. `registrations`: the offset of a
    /// PFD4 record's `u32 reg_len` (its last block).
    Complete {
        len: usize,
        registrations: Option<usize>,
    },
    /// More bytes are needed; `claimed`: the length known so far (at least).
    Partial { claimed: u64 },
    /// Not a frame record.
    Invalid(String),
}

/// See [`Extent`].
pub fn record_extent(data: &[u8]) -> Extent {
    let Some(header) = data.get(..4) else {
        return Extent::Partial { claimed: 4 };
    };
    // Per block: bytes between its u32 length and its body (PFD3/PFD4's
    // compression byte).
    let blocks: &[u64] = match header {
        b"PFD4" => &[0, 1, 0],
        b"PFD3" => &[0, 1],
        b"PFD2" => &[0, 0],
        b"PFD1" => &[0],
        b"PFD0" => {
            return Extent::Invalid(
                "PFD0 records (lz4-compressed, from 2021 and before) are no longer readable"
                    .to_owned(),
            );
        }
        [b'P', b'F', b'D', _] => {
            return Extent::Invalid(format!(
                "unknown frame record version {} (newer than this reader?)",
                show_magic(header)
            ));
        }
        _ => {
            return Extent::Invalid(format!(
                "not a frame record: it starts with {}, expected \"PFD1\" to \"PFD4\"",
                show_magic(header)
            ));
        }
    };
    let mut pos: u64 = 4;
    let mut registrations = None;
    for (i, &extra) in blocks.iter().enumerate() {
        let at = pos as usize;
        let Some(len) = data.get(at..at + 4) else {
            return Extent::Partial { claimed: pos + 4 };
        };
        if header == b"PFD4" && i == 2 {
            registrations = Some(at);
        }
        let len = u32::from_le_bytes([len[0], len[1], len[2], len[3]]);
        pos += 4 + extra + u64::from(len);
    }
    if (data.len() as u64) < pos {
        return Extent::Partial { claimed: pos };
    }
    Extent::Complete {
        len: pos as usize,
        registrations,
    }
}

impl<'a> PuffinDecoder<&'a [u8]> {
    /// A decoder of one run's bytes (`bytes`: the run, starting at
    /// `base` in the file) into a fragment: what depends on the records
    /// before the run is logged for the merge ([`TraceBuilder::fragment`]).
    pub(crate) fn for_run(bytes: &'a [u8], base: usize, first_record: usize) -> Self {
        Self {
            bytes,
            pos: 0,
            record: first_record,
            builder: TraceBuilder::fragment(),
            diagnostics: Vec::new(),
            done: false,
            scratch: Vec::new(),
            base,
        }
    }

    /// Decodes the whole run; returns its builder and diagnostics.
    pub(crate) fn run_fragment(mut self) -> (TraceBuilder, Vec<Diagnostic>) {
        while self.step() {}
        (self.builder, self.diagnostics)
    }
}

/// Decodes a whole `.puffin` recording on this thread.
pub fn decode_puffin(bytes: &[u8]) -> Result<Decoded, LoadError> {
    Ok(PuffinDecoder::new(bytes)?.run())
}

/// Decodes a whole `.puffin` recording, decompressing on all cores (native).
#[cfg(not(target_arch = "wasm32"))]
pub fn decode_puffin_parallel(bytes: &[u8]) -> Result<Decoded, LoadError> {
    Ok(PuffinDecoder::new(bytes)?.run_parallel())
}
