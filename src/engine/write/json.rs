//! The documented JSON export (see SPEC.md), written straight from the model
//! by a streaming writer: no intermediate JSON tree.

use crate::engine::model::{FrameId, ScopeIdx, StreamId, Trace};
use std::io::{self, Write};

/// Flush the buffer to the sink when it grows past this.
const FLUSH_AT: usize = 1 << 16;

/// A minimal streaming JSON writer: compact, or pretty with two-space indents
/// (the layout of `serde_json::to_string_pretty`).
pub struct JsonWriter<W: Write> {
    out: W,
    buf: Vec<u8>,
    pretty: bool,
    /// Per open container: has it got an element yet?
    has_items: Vec<bool>,
    /// Set after a key: the next value follows on the same line.
    after_key: bool,
}

impl<W: Write> JsonWriter<W> {
    pub fn new(out: W, pretty: bool) -> Self {
        Self {
            out,
            buf: Vec::with_capacity(FLUSH_AT + 4096),
            pretty,
            has_items: Vec::with_capacity(64),
            after_key: false,
        }
    }

    #[inline]
    fn maybe_flush(&mut self) -> io::Result<()> {
        if self.buf.len() >= FLUSH_AT {
            self.out.write_all(&self.buf)?;
            self.buf.clear();
        }
        Ok(())
    }

    fn newline_indent(&mut self) {
        self.buf.push(b'\n');
        for _ in 0..self.has_items.len() {
            self.buf.extend_from_slice(b"  ");
        }
    }

    /// Separator before a value or key.
    #[inline]
    fn before_item(&mut self) {
        if self.after_key {
            self.after_key = false;
            return;
        }
        if let Some(has) = self.has_items.last_mut() {
            if *has {
                self.buf.push(b',');
            }
            *has = true;
            if self.pretty {
                self.newline_indent();
            }
        }
    }

    #[inline]
    pub fn begin_object(&mut self) {
        self.before_item();
        self.buf.push(b'{');
        self.has_items.push(false);
    }

    #[inline]
    pub fn end_object(&mut self) -> io::Result<()> {
        self.end(b'}')
    }

    #[inline]
    pub fn begin_array(&mut self) {
        self.before_item();
        self.buf.push(b'[');
        self.has_items.push(false);
    }

    #[inline]
    pub fn end_array(&mut self) -> io::Result<()> {
        self.end(b']')
    }

    #[inline]
    fn end(&mut self, close: u8) -> io::Result<()> {
        let had = self.has_items.pop().unwrap_or(false);
        if self.pretty && had {
            self.newline_indent();
        }
        self.buf.push(close);
        self.maybe_flush()
    }

    /// An object key (a literal known to need no escaping).
    #[inline]
    pub fn key(&mut self, key: &str) {
        self.before_item();
        self.buf.push(b'"');
        self.buf.extend_from_slice(key.as_bytes());
        self.buf
            .extend_from_slice(if self.pretty { b"\": " } else { b"\":" });
        self.after_key = true;
    }

    /// An object key that may need escaping.
    pub fn key_escaped(&mut self, key: &str) {
        self.before_item();
        write_escaped(&mut self.buf, key);
        self.buf
            .extend_from_slice(if self.pretty { b": " } else { b":" });
        self.after_key = true;
    }

    #[inline]
    pub fn string(&mut self, s: &str) {
        self.before_item();
        write_escaped(&mut self.buf, s);
    }

    #[inline]
    pub fn i64(&mut self, v: i64) {
        self.before_item();
        self.buf
            .extend_from_slice(itoa::Buffer::new().format(v).as_bytes());
    }

    #[inline]
    pub fn u64(&mut self, v: u64) {
        self.before_item();
        self.buf
            .extend_from_slice(itoa::Buffer::new().format(v).as_bytes());
    }

    pub fn f64(&mut self, v: f64) {
        self.before_item();
        if v.is_finite() {
            let mut s = format!("{v}");
            if !s.contains(['.', 'e', 'E']) {
                s.push_str(".0");
            }
            self.buf.extend_from_slice(s.as_bytes());
        } else {
            self.buf.extend_from_slice(b"null");
        }
    }

    pub fn bool(&mut self, v: bool) {
        self.before_item();
        self.buf
            .extend_from_slice(if v { b"true" } else { b"false" });
    }

    pub fn null(&mut self) {
        self.before_item();
        self.buf.extend_from_slice(b"null");
    }

    /// `[a, b]` pair of integers.
    pub fn i64_pair(&mut self, (a, b): (i64, i64)) -> io::Result<()> {
        self.begin_array();
        self.i64(a);
        self.i64(b);
        self.end_array()
    }

    /// Writes what is buffered and returns the sink.
    pub fn finish(mut self) -> io::Result<W> {
        self.out.write_all(&self.buf)?;
        self.buf.clear();
        self.out.flush()?;
        Ok(self.out)
    }
}

/// JSON string escaping: quotes, backslashes and control characters; all
/// other text (non-ASCII included) is written as UTF-8.
#[inline]
pub fn write_escaped(buf: &mut Vec<u8>, s: &str) {
    buf.push(b'"');
    let bytes = s.as_bytes();
    let mut start = 0;
    for (i, &b) in bytes.iter().enumerate() {
        if b >= 0x20 && b != b'"' && b != b'\\' {
            continue;
        }
        buf.extend_from_slice(&bytes[start..i]);
        match b {
            b'"' => buf.extend_from_slice(b"\\\""),
            b'\\' => buf.extend_from_slice(b"\\\\"),
            b'\n' => buf.extend_from_slice(b"\\n"),
            b'\r' => buf.extend_from_slice(b"\\r"),
            b'\t' => buf.extend_from_slice(b"\\t"),
            0x08 => buf.extend_from_slice(b"\\b"),
            0x0c => buf.extend_from_slice(b"\\f"),
            _ => {
                const HEX: &[u8; 16] = b"0123456789abcdef";
                buf.extend_from_slice(b"\\u00");
                buf.push(HEX[(b >> 4) as usize]);
                buf.push(HEX[(b & 0xf) as usize]);
            }
        }
        start = i + 1;
    }
    buf.extend_from_slice(&bytes[start..]);
    buf.push(b'"');
}

/// Writes the documented export of `trace`, with `"file": file`.
pub fn write_export<W: Write>(trace: &Trace, file: &str, out: W, pretty: bool) -> io::Result<W> {
    let mut w = JsonWriter::new(out, pretty);
    w.begin_object();
    w.key("file");
    w.string(file);
    w.key("scopes");
    w.begin_object();
    let defs = &trace.defs;
    for d in defs.registered_sorted() {
        let i = d.idx();
        w.key_escaped(itoa::Buffer::new().format(defs.raw_id[i]));
        w.begin_object();
        w.key("name");
        w.string(trace.str(defs.name[i]));
        w.key("function");
        w.string(trace.str(defs.function[i]));
        w.key("file");
        w.string(trace.str(defs.file[i]));
        w.key("line");
        w.u64(u64::from(defs.line[i]));
        w.key("kind");
        w.string(defs.kind[i].as_str());
        w.end_object()?;
    }
    w.end_object()?;
    w.key("frames");
    w.begin_array();
    for f in trace.frames.ids() {
        write_frame(&mut w, trace, f)?;
    }
    w.end_array()?;
    w.end_object()?;
    w.finish()
}

fn write_frame<W: Write>(w: &mut JsonWriter<W>, trace: &Trace, f: FrameId) -> io::Result<()> {
    let frames = &trace.frames;
    w.begin_object();
    w.key("frame_index");
    w.u64(frames.frame_index[f.idx()]);
    w.key("range_ns");
    w.i64_pair(frames.range_ns[f.idx()])?;
    w.key("duration_ns");
    w.i64(frames.duration_ns(f));
    w.key("num_scopes");
    w.u64(frames.num_scopes[f.idx()]);
    w.key("threads");
    w.begin_array();
    for s in frames.streams(f) {
        write_stream(w, trace, StreamId(s))?;
    }
    w.end_array()?;
    w.end_object()
}

fn write_stream<W: Write>(w: &mut JsonWriter<W>, trace: &Trace, s: StreamId) -> io::Result<()> {
    let streams = &trace.streams;
    w.begin_object();
    let thread = streams.thread[s.idx()];
    w.key("name");
    w.string(trace.thread_name(thread));
    // As `rerun dump-puffin` 0.41 writes it: `null` when the stream info has none.
    w.key("start_time_ns");
    match trace.threads.start_time_ns[thread.idx()] {
        Some(t) => w.i64(t),
        None => w.null(),
    }
    w.key("num_scopes");
    w.u64(streams.num_scopes[s.idx()]);
    w.key("depth");
    w.u64(streams.depth[s.idx()]);
    w.key("range_ns");
    w.i64_pair(streams.range_ns[s.idx()])?;
    w.key("scopes");
    w.begin_array();
    let scopes = &trace.scopes;
    // Pre-order walk: close every subtree that ends before the next scope.
    let mut open_ends: Vec<u32> = Vec::new();
    for i in streams.scopes(s) {
        while open_ends.last().is_some_and(|&end| end <= i) {
            open_ends.pop();
            w.end_array()?;
            w.end_object()?;
        }
        let idx = ScopeIdx(i);
        w.begin_object();
        w.key("id");
        w.u64(u64::from(trace.scope_raw_id(idx)));
        w.key("name");
        w.string(trace.scope_name(idx));
        w.key("start_ns");
        w.i64(scopes.start_ns[i as usize]);
        w.key("duration_ns");
        w.i64(scopes.duration_ns[i as usize]);
        w.key("data");
        w.string(trace.scope_data(idx));
        w.key("children");
        w.begin_array();
        open_ends.push(scopes.subtree_end[i as usize]);
    }
    while open_ends.pop().is_some() {
        w.end_array()?;
        w.end_object()?;
    }
    w.end_array()?;
    w.end_object()
}

/// The export as a `String` (for the app and tests).
pub fn export_string(trace: &Trace, file: &str, pretty: bool) -> String {
    let bytes = write_export(trace, file, Vec::new(), pretty).unwrap_or_default();
    // The writer only emits valid UTF-8 (escaped `&str`s and ASCII).
    String::from_utf8(bytes).unwrap_or_default()
}

/// The frames as CSV, in file order: one row per frame with its position,
/// `frame_index`, time range, duration and scope count.
pub fn frames_csv(trace: &Trace) -> String {
    let frames = &trace.frames;
    let mut out = String::from("position,frame_index,start_ns,end_ns,duration_ns,num_scopes\n");
    for f in frames.ids() {
        let i = f.idx();
        let (start, end) = frames.range_ns[i];
        out.push_str(&format!(
            "{i},{},{start},{end},{},{}\n",
            frames.frame_index[i],
            frames.duration_ns(f),
            frames.num_scopes[i]
        ));
    }
    out
}
