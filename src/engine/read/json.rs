//! Loads a JSON dump in the SPEC.md layout (ours, or `rerun dump-puffin`'s)
//! into the same [`Trace`], streaming: serde visitors push straight into the
//! [`TraceBuilder`], no JSON tree is built. Keys may come in any order;
//! unknown keys are ignored.

use super::decoded::{Decoded, LoadError, SizeEstimate};
use crate::engine::model::{DefId, DefRow, ScopeKind, StrId, StreamId, ThreadId, TraceBuilder};
use serde::Deserialize;
use serde::de::{self, DeserializeSeed, IgnoredAny, MapAccess, SeqAccess, Visitor};
use std::fmt;

impl SizeEstimate {
    /// A JSON dump: one `"start_ns"` key per scope (frames and threads have
    /// `range_ns`); read as it goes, so no frame buffer.
    pub fn of_json(bytes: &[u8]) -> Self {
        Self {
            scopes: memchr::memmem::find_iter(bytes, b"\"start_ns\"").count() as u64,
            reserved: 0,
            max_frame_bytes: 0,
        }
    }
}

/// Parses a JSON dump at once.
pub fn load_json(bytes: &[u8]) -> Result<Decoded, LoadError> {
    JsonDecoder::new(bytes).finish()
}

/// Parses a JSON dump a piece at a time ([`Self::step`]: a frame, or a
/// member of the root object), so a caller can spread the work (the browser
/// app: across slices, with progress). The document's structure is walked
/// here; each frame, and the registrations, are parsed by serde visitors
/// straight into the [`TraceBuilder`].
pub struct JsonDecoder<B> {
    bytes: B,
    pos: usize,
    state: JsonState,
    saw_frames: bool,
    builder: TraceBuilder,
    error: Option<String>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum JsonState {
    /// Before the root object's `{`.
    Start,
    /// In the root object, before a member (`first`: no `,` expected).
    Members {
        first: bool,
    },
    /// In the `"frames"` array, before an element.
    Frames {
        first: bool,
    },
    Done,
}

impl<B: AsRef<[u8]>> JsonDecoder<B> {
    /// Every byte given to decode (the whole file).
    pub fn input(&self) -> &[u8] {
        self.bytes.as_ref()
    }

    pub fn new(bytes: B) -> Self {
        let pos = if bytes.as_ref().starts_with(b"\xEF\xBB\xBF") {
            3
        } else {
            0
        };
        Self {
            bytes,
            pos,
            state: JsonState::Start,
            saw_frames: false,
            builder: TraceBuilder::new(),
            error: None,
        }
    }

    pub fn bytes_done(&self) -> usize {
        self.pos
    }

    pub fn bytes_total(&self) -> usize {
        self.bytes.as_ref().len()
    }

    /// Parses the next piece; returns whether there is more to do.
    pub fn step(&mut self) -> bool {
        if self.state == JsonState::Done {
            return false;
        }
        if let Err(msg) = self.step_inner() {
            self.error = Some(msg);
            self.state = JsonState::Done;
        }
        self.state != JsonState::Done
    }

    /// The trace, or why the document is not a JSON dump.
    pub fn finish(mut self) -> Result<Decoded, LoadError> {
        while self.step() {}
        if let Some(msg) = self.error {
            return Err(LoadError::Json(msg));
        }
        let mut trace = self.builder.finish();
        trace.format.from_json = true;
        trace.format.note_record("JSON");
        Ok(Decoded {
            trace,
            diagnostics: Vec::new(),
        })
    }

    fn step_inner(&mut self) -> Result<(), String> {
        let bytes = self.bytes.as_ref();
        let mut pos = skip_ws(bytes, self.pos);
        match self.state {
            JsonState::Start => {
                expect(bytes, pos, b'{', "a JSON object")?;
                self.state = JsonState::Members { first: true };
                pos += 1;
            }
            JsonState::Members { .. } if bytes.get(pos) == Some(&b'}') => {
                pos = skip_ws(bytes, pos + 1);
                if pos != bytes.len() {
                    return Err(syntax_error(bytes, pos, "trailing characters"));
                }
                if !self.saw_frames {
                    return Err("missing field `frames`".to_owned());
                }
                self.state = JsonState::Done;
            }
            JsonState::Members { first } => {
                if !first {
                    expect(bytes, pos, b',', "`,` or `}`")?;
                    pos = skip_ws(bytes, pos + 1);
                }
                let key_end = value_end(bytes, pos)?;
                let key: std::borrow::Cow<'_, str> =
                    parse_span(bytes, pos, key_end, |d| Deserialize::deserialize(d))?;
                pos = skip_ws(bytes, key_end);
                expect(bytes, pos, b':', "`:`")?;
                pos = skip_ws(bytes, pos + 1);
                if key == "frames" {
                    expect(bytes, pos, b'[', "an array of frames")?;
                    self.saw_frames = true;
                    self.state = JsonState::Frames { first: true };
                    pos += 1;
                } else {
                    let end = value_end(bytes, pos)?;
                    if key == "scopes" {
                        let b = &mut self.builder;
                        parse_span(bytes, pos, end, |d| RegistrationsSeed { b }.deserialize(d))?;
                    } else {
                        parse_span(bytes, pos, end, |d| IgnoredAny::deserialize(d))?;
                    }
                    pos = end;
                    self.state = JsonState::Members { first: false };
                }
            }
            JsonState::Frames { .. } if bytes.get(pos) == Some(&b']') => {
                pos += 1;
                self.state = JsonState::Members { first: false };
            }
            JsonState::Frames { first } => {
                if !first {
                    expect(bytes, pos, b',', "`,` or `]`")?;
                    pos = skip_ws(bytes, pos + 1);
                }
                let end = value_end(bytes, pos)?;
                let b = &mut self.builder;
                parse_span(bytes, pos, end, |d| FrameSeed { b }.deserialize(d))?;
                pos = end;
                self.state = JsonState::Frames { first: false };
            }
            JsonState::Done => {}
        }
        self.pos = pos;
        Ok(())
    }
}

fn skip_ws(bytes: &[u8], mut pos: usize) -> usize {
    while bytes.get(pos).is_some_and(|b| b.is_ascii_whitespace()) {
        pos += 1;
    }
    pos
}

fn expect(bytes: &[u8], pos: usize, byte: u8, what: &str) -> Result<(), String> {
    match bytes.get(pos) {
        Some(&b) if b == byte => Ok(()),
        Some(_) => Err(syntax_error(bytes, pos, &format!("expected {what}"))),
        None => Err(syntax_error(bytes, pos, "EOF while parsing")),
    }
}

/// End (exclusive) of the JSON value starting at `start`, found by counting
/// brackets outside strings; serde then checks the value itself.
fn value_end(bytes: &[u8], start: usize) -> Result<usize, String> {
    let eof = || syntax_error(bytes, bytes.len(), "EOF while parsing a value");
    let mut i = start;
    let mut depth = 0usize;
    loop {
        match *bytes.get(i).ok_or_else(eof)? {
            b'"' => {
                i += 1;
                loop {
                    match *bytes.get(i).ok_or_else(eof)? {
                        b'\\' => i += 2,
                        b'"' => break,
                        _ => i += 1,
                    }
                }
            }
            b'{' | b'[' => depth += 1,
            b'}' | b']' if depth > 0 => depth -= 1,
            _ if depth > 0 => {}
            b',' | b'}' | b']' => return Ok(i),
            b if b.is_ascii_whitespace() => return Ok(i),
            _ => {}
        }
        i += 1;
        // A string or container at the top closes the value.
        if depth == 0 && matches!(bytes[i - 1], b'"' | b'}' | b']') {
            return Ok(i);
        }
    }
}

/// Parses `bytes[start..end]` with serde_json; errors are placed in the
/// whole document.
fn parse_span<'de, T>(
    bytes: &'de [u8],
    start: usize,
    end: usize,
    parse: impl FnOnce(
        &mut serde_json::Deserializer<serde_json::de::SliceRead<'de>>,
    ) -> serde_json::Result<T>,
) -> Result<T, String> {
    let span = &bytes[start..end];
    let mut de = serde_json::Deserializer::from_slice(span);
    parse(&mut de)
        .and_then(|value| de.end().map(|()| value))
        .map_err(|err| {
            // Line and column within the span, back to a byte offset.
            let mut offset = 0;
            for _ in 1..err.line() {
                offset += span[offset..]
                    .iter()
                    .position(|&b| b == b'\n')
                    .map_or(span.len() - offset, |p| p + 1);
            }
            let offset = start + (offset + err.column()).saturating_sub(1).min(span.len());
            let msg = err.to_string();
            let msg = msg.split(" at line ").next().unwrap_or(&msg);
            syntax_error(bytes, offset, msg)
        })
}

/// `msg at line L column C (byte N)`, counted in the whole document.
fn syntax_error(bytes: &[u8], offset: usize, msg: &str) -> String {
    let before = &bytes[..offset.min(bytes.len())];
    let line_start = before
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |p| p + 1);
    let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
    let column = before.len() - line_start + 1;
    format!("{msg} at line {line} column {column} (byte {offset})")
}

#[derive(serde::Deserialize)]
struct Registration {
    #[serde(default)]
    name: String,
    #[serde(default)]
    function: String,
    #[serde(default)]
    file: String,
    #[serde(default)]
    line: u32,
    #[serde(default)]
    kind: String,
}

struct RegistrationsSeed<'a> {
    b: &'a mut TraceBuilder,
}

impl<'de> DeserializeSeed<'de> for RegistrationsSeed<'_> {
    type Value = ();
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for RegistrationsSeed<'_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a map of scope id to registration")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            let id: u32 = key
                .parse()
                .map_err(|_| de::Error::custom(format!("scope id {key:?} is not a number")))?;
            let reg: Registration = map.next_value()?;
            let kind = match reg.kind.as_str() {
                "function" => ScopeKind::Function,
                "named" => ScopeKind::Named,
                _ => ScopeKind::Unknown,
            };
            let b = &mut *self.b;
            let row = DefRow {
                name: b.intern(&reg.name),
                function: b.intern(&reg.function),
                file: b.intern(&reg.file),
                line: reg.line,
                kind,
            };
            b.register(id, row);
        }
        Ok(())
    }
}

struct FrameSeed<'a> {
    b: &'a mut TraceBuilder,
}

impl<'de> DeserializeSeed<'de> for FrameSeed<'_> {
    type Value = ();
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for FrameSeed<'_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a frame object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        self.b.begin_frame(0, (i64::MAX, i64::MIN), 0);
        let mut frame_index = 0;
        let mut range_ns = (i64::MAX, i64::MIN);
        let mut num_scopes = 0;
        while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            match key.as_ref() {
                "frame_index" => frame_index = map.next_value()?,
                "range_ns" => range_ns = map.next_value()?,
                "num_scopes" => num_scopes = map.next_value()?,
                "threads" => map.next_value_seed(ThreadsSeed { b: self.b })?,
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        self.b.set_frame_meta(frame_index, range_ns, num_scopes);
        Ok(())
    }
}

struct ThreadsSeed<'a> {
    b: &'a mut TraceBuilder,
}

impl<'de> DeserializeSeed<'de> for ThreadsSeed<'_> {
    type Value = ();
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for ThreadsSeed<'_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an array of threads")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while seq.next_element_seed(ThreadSeed { b: self.b })?.is_some() {}
        Ok(())
    }
}

struct ThreadSeed<'a> {
    b: &'a mut TraceBuilder,
}

impl<'de> DeserializeSeed<'de> for ThreadSeed<'_> {
    type Value = ();
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for ThreadSeed<'_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a thread object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        // The thread's name may come after its scopes: start with a
        // placeholder and set it at the end.
        let sid = self.b.begin_stream(ThreadId(u32::MAX));
        let mut name = String::new();
        let mut start_time_ns = None;
        let mut num_scopes = 0;
        let mut depth = 0;
        let mut range_ns = (i64::MAX, i64::MIN);
        while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            match key.as_ref() {
                "name" => name = map.next_value()?,
                // `null` or absent (dumps before the key): no start time.
                "start_time_ns" => start_time_ns = map.next_value()?,
                "num_scopes" => num_scopes = map.next_value()?,
                "depth" => depth = map.next_value()?,
                "range_ns" => range_ns = map.next_value()?,
                "scopes" => map.next_value_seed(ScopesSeed { b: self.b, sid })?,
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        let thread = self.b.thread(start_time_ns, &name);
        self.b.set_stream_thread(sid, thread);
        self.b.end_stream(sid, num_scopes, depth, range_ns);
        Ok(())
    }
}

struct ScopesSeed<'a> {
    b: &'a mut TraceBuilder,
    sid: StreamId,
}

impl<'de> DeserializeSeed<'de> for ScopesSeed<'_> {
    type Value = ();
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for ScopesSeed<'_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an array of scopes")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let sid = self.sid;
        while seq
            .next_element_seed(ScopeSeed { b: self.b, sid })?
            .is_some()
        {}
        Ok(())
    }
}

struct ScopeSeed<'a> {
    b: &'a mut TraceBuilder,
    sid: StreamId,
}

impl<'de> DeserializeSeed<'de> for ScopeSeed<'_> {
    type Value = ();
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for ScopeSeed<'_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a scope object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        // Opened first (pre-order), fields patched in as they arrive.
        self.b.open_scope(DefId(u32::MAX), 0, StrId(0), self.sid);
        let mut id = None;
        let mut name: Option<std::borrow::Cow<'de, str>> = None;
        let mut start_ns = 0i64;
        let mut duration_ns = None;
        let mut data = StrId(0);
        while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            match key.as_ref() {
                "id" => id = Some(map.next_value::<u32>()?),
                "name" => name = Some(map.next_value()?),
                "start_ns" => start_ns = map.next_value()?,
                "duration_ns" => duration_ns = Some(map.next_value::<i64>()?),
                "data" => {
                    let s: std::borrow::Cow<'de, str> = map.next_value()?;
                    data = self.b.intern(&s);
                }
                "children" => map.next_value_seed(ScopesSeed {
                    b: self.b,
                    sid: self.sid,
                })?,
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        let id = id.ok_or_else(|| de::Error::missing_field("id"))?;
        let duration_ns = duration_ns.ok_or_else(|| de::Error::missing_field("duration_ns"))?;
        let def = self.b.def_for_raw_id(id);
        if let Some(name) = name {
            let name = self.b.intern(&name);
            self.b.name_unregistered(def, name);
        }
        self.b.patch_open_scope(def, start_ns, data);
        self.b.close_scope(duration_ns);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::export_string;
    use crate::engine::write::puffin::{Compression, Format, synthetic_capture, write_recording};

    fn sample_dump(pretty: bool) -> String {
        let bytes = write_recording(
            &synthetic_capture(3, 1, 12),
            Format::Pfd4(Compression::None),
        );
        let decoded = crate::engine::decode_puffin(&bytes).expect("decodes");
        export_string(&decoded.trace, "x.puffin", pretty)
    }

    #[test]
    fn stepping_reads_a_frame_at_a_time_and_round_trips() {
        for pretty in [false, true] {
            let dump = sample_dump(pretty);
            let mut decoder = JsonDecoder::new(dump.as_bytes());
            let mut steps = 0;
            let mut last_done = 0;
            while decoder.step() {
                steps += 1;
                assert!(
                    decoder.bytes_done() >= last_done,
                    "progress never goes back"
                );
                last_done = decoder.bytes_done();
            }
            assert_eq!(decoder.bytes_done(), decoder.bytes_total());
            // `{`, file, scopes, `[` of frames, 3 frames, `]`, `}`.
            assert_eq!(steps + 1, 9);
            let decoded = decoder.finish().expect("parses");
            assert_eq!(export_string(&decoded.trace, "x.puffin", pretty), dump);
        }
    }

    #[test]
    fn members_in_any_order_and_unknown_ones_ignored() {
        let dump = sample_dump(false);
        let json: serde_json::Value = serde_json::from_str(&dump).unwrap();
        let reordered = format!(
            "{{\"extra\": [1, {{\"a\": \"]}}\\\"\"}}], \"frames\": {}, \"scopes\": {}, \"file\": \"x.puffin\"}}",
            json["frames"], json["scopes"]
        );
        let decoded = load_json(reordered.as_bytes()).expect("parses");
        assert_eq!(export_string(&decoded.trace, "x.puffin", false), dump);
    }

    #[test]
    fn every_truncation_is_an_error_with_a_position_never_a_panic() {
        let dump = sample_dump(true);
        for cut in 0..dump.len() {
            let err = match load_json(&dump.as_bytes()[..cut]) {
                Err(LoadError::Json(msg)) => msg,
                Err(other) => panic!("cut at {cut}: unexpected error {other}"),
                Ok(_) => panic!("cut at {cut}: a truncated dump parsed"),
            };
            assert!(err.contains(" at line "), "cut at {cut}: {err}");
        }
    }

    #[test]
    fn errors_name_line_column_and_byte_of_the_whole_document() {
        let doc = b"{\n  \"frames\": [\n    {\"frame_index\": }\n  ]\n}";
        let Err(LoadError::Json(msg)) = load_json(doc) else {
            panic!("invalid JSON parsed");
        };
        assert_eq!(msg, "expected value at line 3 column 21 (byte 36)");
        let Err(LoadError::Json(msg)) = load_json(b"{\"frames\": []} x") else {
            panic!("trailing characters parsed");
        };
        assert_eq!(msg, "trailing characters at line 1 column 16 (byte 15)");
        let Err(LoadError::Json(msg)) = load_json(b"{\"scopes\": {}}") else {
            panic!("a dump without frames parsed");
        };
        assert_eq!(msg, "missing field `frames`");
    }
}
