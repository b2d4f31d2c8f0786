//! Loads a JSON dump in the SPEC.md layout (ours, or `rerun dump-puffin`'s)
//! into the same [`Trace`], streaming: serde visitors push straight into the
//! [`TraceBuilder`], no JSON tree is built. Keys may come in any order;
//! unknown keys are ignored.

use super::decode::{Decoded, LoadError};
use super::model::{DefId, DefRow, ScopeKind, StrId, StreamId, ThreadId, TraceBuilder};
use serde::de::{self, DeserializeSeed, IgnoredAny, MapAccess, SeqAccess, Visitor};
use std::fmt;

/// Whether `bytes` looks like a JSON document (first non-blank byte is `{`).
pub fn looks_like_json(bytes: &[u8]) -> bool {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    bytes
        .iter()
        .find(|b| !b.is_ascii_whitespace())
        .is_some_and(|&b| b == b'{')
}

/// Parses a JSON dump.
pub fn load_json(bytes: &[u8]) -> Result<Decoded, LoadError> {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let mut builder = TraceBuilder::new();
    let mut de = serde_json::Deserializer::from_slice(bytes);
    RootSeed { b: &mut builder }
        .deserialize(&mut de)
        .and_then(|()| de.end())
        .map_err(|e| LoadError::Json(e.to_string()))?;
    let mut trace = builder.finish();
    trace.format.from_json = true;
    trace.format.note_record("JSON");
    Ok(Decoded {
        trace,
        diagnostics: Vec::new(),
    })
}

struct RootSeed<'a> {
    b: &'a mut TraceBuilder,
}

impl<'de> DeserializeSeed<'de> for RootSeed<'_> {
    type Value = ();
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for RootSeed<'_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a puffin JSON dump object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let mut saw_frames = false;
        while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            match key.as_ref() {
                "scopes" => map.next_value_seed(RegistrationsSeed { b: self.b })?,
                "frames" => {
                    saw_frames = true;
                    map.next_value_seed(FramesSeed { b: self.b })?;
                }
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        if !saw_frames {
            return Err(de::Error::missing_field("frames"));
        }
        Ok(())
    }
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

struct FramesSeed<'a> {
    b: &'a mut TraceBuilder,
}

impl<'de> DeserializeSeed<'de> for FramesSeed<'_> {
    type Value = ();
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for FramesSeed<'_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an array of frames")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while seq.next_element_seed(FrameSeed { b: self.b })?.is_some() {}
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
        let mut num_scopes = 0;
        let mut depth = 0;
        let mut range_ns = (i64::MAX, i64::MIN);
        while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            match key.as_ref() {
                "name" => name = map.next_value()?,
                "num_scopes" => num_scopes = map.next_value()?,
                "depth" => depth = map.next_value()?,
                "range_ns" => range_ns = map.next_value()?,
                "scopes" => map.next_value_seed(ScopesSeed { b: self.b, sid })?,
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        let thread = self.b.thread(None, &name);
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
