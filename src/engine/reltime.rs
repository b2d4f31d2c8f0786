//! Times relative to the recording's start, for every answer at once.
//!
//! Every point in time an answer gives is epoch nanoseconds (exact). Beside
//! each one the JSON also gives the milliseconds since the recording's start
//! ([`Trace::recording_start_ns`]): `start_ns` → `start_rel_ms`,
//! `longest_start_ns` → `longest_start_rel_ms`, `range_ns: [a, b]` →
//! `range_rel_ms: [a', b']`, a `null` time → a `null` one. That is done here
//! once, while the answer is serialized ([`RelTimes`]), never field by field
//! in the analyses: a new time field gets its relative time by its name.
//!
//! A key is a point in time when it is `start_ns`, `end_ns`, `lo_ns`,
//! `hi_ns`, `range_ns` or `longest_start_ns`, or ends with `_at_ns` (name a
//! new point in time so); its value is an integer, `null`, or a pair of
//! integers. Durations never have those names (`duration_ns`, `span_ns`,
//! `*_total_ns`; `*_before_gap_end_ns` is a duration, so `*_end_ns` is not a
//! rule). A struct with
//! a `recording_start_ns` field (before its times; it gets no relative time
//! of its own) counts its times
//! from that start: a report's `recordings[i]` each from its own recording.
//!
//! [`rel_ms`] is the one formula: `(ns - start_ns) as f64 / 1e6`, so a
//! reader computing it from the two integers gets the same number exactly.

use super::model::Trace;
use serde::ser::{
    self, Impossible, Serialize, SerializeMap, SerializeSeq, SerializeStruct,
    SerializeStructVariant, SerializeTuple, SerializeTupleStruct, SerializeTupleVariant,
    Serializer,
};
use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

/// Milliseconds from `start_ns` to `ns` (negative before it).
pub fn rel_ms(ns: i64, start_ns: i64) -> f64 {
    ns.saturating_sub(start_ns) as f64 / 1e6
}

/// [`rel_ms`] from the start of `trace`'s recording.
pub fn rel_ms_in(trace: &Trace, ns: i64) -> f64 {
    rel_ms(ns, trace.recording_start_ns())
}

/// The key that carries the start a subtree's times count from.
pub const START_KEY: &str = "recording_start_ns";

/// `value`, serialized with a `*_rel_ms` beside each point in time (see the
/// module's doc).
pub struct RelTimes<'a, T: ?Sized> {
    value: &'a T,
    start_ns: i64,
}

impl<'a, T: ?Sized + Serialize> RelTimes<'a, T> {
    /// Times counted from `start_ns`.
    pub fn new(value: &'a T, start_ns: i64) -> Self {
        Self { value, start_ns }
    }

    /// Times counted from the start of `trace`'s recording.
    pub fn of(value: &'a T, trace: &Trace) -> Self {
        Self::new(value, trace.recording_start_ns())
    }
}

impl<T: ?Sized + Serialize> Serialize for RelTimes<'_, T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.value.serialize(Ser {
            inner: s,
            start_ns: self.start_ns,
        })
    }
}

/// The relative key of a point-in-time key (`start_ns` → `start_rel_ms`),
/// `None` for any other key.
pub fn rel_key_of(key: &str) -> Option<String> {
    let exact = matches!(
        key,
        "start_ns" | "end_ns" | "lo_ns" | "hi_ns" | "range_ns" | "longest_start_ns"
    );
    // Not `*_end_ns`: `critical_ends_before_gap_end_ns` is a duration.
    let suffixed = key.ends_with("_at_ns");
    // The start itself is no point of the answer's.
    (key != START_KEY && (exact || suffixed)).then(|| format!("{}_rel_ms", &key[..key.len() - 3]))
}

/// [`rel_key_of`] as a `&'static str` for a struct's field (its names are
/// static and few: each is made once and kept).
fn static_rel_key(key: &'static str) -> Option<&'static str> {
    static KEYS: OnceLock<Mutex<HashMap<&'static str, Option<&'static str>>>> = OnceLock::new();
    let mut keys = KEYS
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    *keys
        .entry(key)
        .or_insert_with(|| rel_key_of(key).map(|k| &*Box::leak(k.into_boxed_str())))
}

/// A value wrapped to pass the start on to what it holds.
struct Wrap<'a, T: ?Sized> {
    value: &'a T,
    start_ns: i64,
}

impl<T: ?Sized + Serialize> Serialize for Wrap<'_, T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.value.serialize(Ser {
            inner: s,
            start_ns: self.start_ns,
        })
    }
}

/// What a point-in-time field holds.
enum Time {
    One(i64),
    Pair(i64, i64),
    Null,
}

impl Time {
    fn of<T: ?Sized + Serialize>(value: &T) -> Option<Time> {
        value.serialize(Grab).ok()
    }

    /// The relative value, serialized.
    fn rel(&self, start_ns: i64) -> RelValue {
        match *self {
            Time::One(ns) => RelValue::One(rel_ms(ns, start_ns)),
            Time::Pair(a, b) => RelValue::Pair([rel_ms(a, start_ns), rel_ms(b, start_ns)]),
            Time::Null => RelValue::Null,
        }
    }
}

enum RelValue {
    One(f64),
    Pair([f64; 2]),
    Null,
}

impl Serialize for RelValue {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            RelValue::One(v) => v.serialize(s),
            RelValue::Pair(v) => v.serialize(s),
            RelValue::Null => s.serialize_none(),
        }
    }
}

/// The serializer that adds the relative times, around the real one.
struct Ser<S> {
    inner: S,
    start_ns: i64,
}

macro_rules! forward {
    ($($f:ident($t:ty)),*) => {$(
        fn $f(self, v: $t) -> Result<S::Ok, S::Error> {
            self.inner.$f(v)
        }
    )*};
}

impl<S: Serializer> Serializer for Ser<S> {
    type Ok = S::Ok;
    type Error = S::Error;
    type SerializeSeq = Compound<S::SerializeSeq>;
    type SerializeTuple = Compound<S::SerializeTuple>;
    type SerializeTupleStruct = Compound<S::SerializeTupleStruct>;
    type SerializeTupleVariant = Compound<S::SerializeTupleVariant>;
    type SerializeMap = Map<S::SerializeMap>;
    type SerializeStruct = Compound<S::SerializeStruct>;
    type SerializeStructVariant = Compound<S::SerializeStructVariant>;

    forward!(
        serialize_bool(bool),
        serialize_i8(i8),
        serialize_i16(i16),
        serialize_i32(i32),
        serialize_i64(i64),
        serialize_i128(i128),
        serialize_u8(u8),
        serialize_u16(u16),
        serialize_u32(u32),
        serialize_u64(u64),
        serialize_u128(u128),
        serialize_f32(f32),
        serialize_f64(f64),
        serialize_char(char),
        serialize_str(&str),
        serialize_bytes(&[u8]),
        serialize_unit_struct(&'static str)
    );

    fn serialize_none(self) -> Result<S::Ok, S::Error> {
        self.inner.serialize_none()
    }

    fn serialize_some<T: ?Sized + Serialize>(self, value: &T) -> Result<S::Ok, S::Error> {
        let start_ns = self.start_ns;
        self.inner.serialize_some(&Wrap { value, start_ns })
    }

    fn serialize_unit(self) -> Result<S::Ok, S::Error> {
        self.inner.serialize_unit()
    }

    fn serialize_unit_variant(
        self,
        name: &'static str,
        index: u32,
        variant: &'static str,
    ) -> Result<S::Ok, S::Error> {
        self.inner.serialize_unit_variant(name, index, variant)
    }

    fn serialize_newtype_struct<T: ?Sized + Serialize>(
        self,
        name: &'static str,
        value: &T,
    ) -> Result<S::Ok, S::Error> {
        let start_ns = self.start_ns;
        self.inner
            .serialize_newtype_struct(name, &Wrap { value, start_ns })
    }

    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        name: &'static str,
        index: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<S::Ok, S::Error> {
        let start_ns = self.start_ns;
        self.inner
            .serialize_newtype_variant(name, index, variant, &Wrap { value, start_ns })
    }

    fn serialize_seq(self, len: Option<usize>) -> Result<Self::SerializeSeq, S::Error> {
        Ok(Compound::new(self.inner.serialize_seq(len)?, self.start_ns))
    }

    fn serialize_tuple(self, len: usize) -> Result<Self::SerializeTuple, S::Error> {
        Ok(Compound::new(
            self.inner.serialize_tuple(len)?,
            self.start_ns,
        ))
    }

    fn serialize_tuple_struct(
        self,
        name: &'static str,
        len: usize,
    ) -> Result<Self::SerializeTupleStruct, S::Error> {
        let inner = self.inner.serialize_tuple_struct(name, len)?;
        Ok(Compound::new(inner, self.start_ns))
    }

    fn serialize_tuple_variant(
        self,
        name: &'static str,
        index: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Self::SerializeTupleVariant, S::Error> {
        let inner = self
            .inner
            .serialize_tuple_variant(name, index, variant, len)?;
        Ok(Compound::new(inner, self.start_ns))
    }

    fn serialize_map(self, len: Option<usize>) -> Result<Self::SerializeMap, S::Error> {
        Ok(Map {
            inner: self.inner.serialize_map(len)?,
            start_ns: self.start_ns,
            key: None,
        })
    }

    fn serialize_struct(
        self,
        name: &'static str,
        len: usize,
    ) -> Result<Self::SerializeStruct, S::Error> {
        let inner = self.inner.serialize_struct(name, len)?;
        Ok(Compound::new(inner, self.start_ns))
    }

    fn serialize_struct_variant(
        self,
        name: &'static str,
        index: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Self::SerializeStructVariant, S::Error> {
        let inner = self
            .inner
            .serialize_struct_variant(name, index, variant, len)?;
        Ok(Compound::new(inner, self.start_ns))
    }

    fn is_human_readable(&self) -> bool {
        self.inner.is_human_readable()
    }
}

/// A sequence, tuple or struct being serialized.
struct Compound<C> {
    inner: C,
    start_ns: i64,
}

impl<C> Compound<C> {
    fn new(inner: C, start_ns: i64) -> Self {
        Self { inner, start_ns }
    }

    fn wrap<'a, T: ?Sized>(&self, value: &'a T) -> Wrap<'a, T> {
        Wrap {
            value,
            start_ns: self.start_ns,
        }
    }
}

macro_rules! elements {
    ($($trait:ident::$f:ident),*) => {$(
        impl<C: $trait> $trait for Compound<C> {
            type Ok = C::Ok;
            type Error = C::Error;

            fn $f<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<(), C::Error> {
                let value = self.wrap(value);
                self.inner.$f(&value)
            }

            fn end(self) -> Result<C::Ok, C::Error> {
                self.inner.end()
            }
        }
    )*};
}

elements!(
    SerializeSeq::serialize_element,
    SerializeTuple::serialize_element,
    SerializeTupleStruct::serialize_field,
    SerializeTupleVariant::serialize_field
);

macro_rules! fields {
    ($($trait:ident),*) => {$(
        impl<C: $trait> $trait for Compound<C> {
            type Ok = C::Ok;
            type Error = C::Error;

            fn serialize_field<T: ?Sized + Serialize>(
                &mut self,
                key: &'static str,
                value: &T,
            ) -> Result<(), C::Error> {
                if key == START_KEY
                    && let Some(Time::One(ns)) = Time::of(value)
                {
                    self.start_ns = ns;
                }
                let wrapped = self.wrap(value);
                self.inner.serialize_field(key, &wrapped)?;
                if let Some(rel_key) = static_rel_key(key)
                    && let Some(time) = Time::of(value)
                {
                    self.inner.serialize_field(rel_key, &time.rel(self.start_ns))?;
                }
                Ok(())
            }

            fn skip_field(&mut self, key: &'static str) -> Result<(), C::Error> {
                self.inner.skip_field(key)
            }

            fn end(self) -> Result<C::Ok, C::Error> {
                self.inner.end()
            }
        }
    )*};
}

fields!(SerializeStruct, SerializeStructVariant);

/// A map being serialized (a flattened struct, a `serde_json::Value`
/// object): its keys read as a struct's.
struct Map<M> {
    inner: M,
    start_ns: i64,
    /// The key whose value comes next, when it is a string.
    key: Option<String>,
}

impl<M: SerializeMap> SerializeMap for Map<M> {
    type Ok = M::Ok;
    type Error = M::Error;

    fn serialize_key<T: ?Sized + Serialize>(&mut self, key: &T) -> Result<(), M::Error> {
        self.key = key.serialize(KeyGrab).ok();
        self.inner.serialize_key(&Wrap {
            value: key,
            start_ns: self.start_ns,
        })
    }

    fn serialize_value<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<(), M::Error> {
        let key = self.key.take();
        if key.as_deref() == Some(START_KEY)
            && let Some(Time::One(ns)) = Time::of(value)
        {
            self.start_ns = ns;
        }
        self.inner.serialize_value(&Wrap {
            value,
            start_ns: self.start_ns,
        })?;
        if let Some(rel_key) = key.as_deref().and_then(rel_key_of)
            && let Some(time) = Time::of(value)
        {
            self.inner
                .serialize_entry(&rel_key, &time.rel(self.start_ns))?;
        }
        Ok(())
    }

    fn end(self) -> Result<M::Ok, M::Error> {
        self.inner.end()
    }
}

/// Not a point in time (or not a string key): the grabbers' only error.
#[derive(Debug)]
struct NotTime;

impl std::fmt::Display for NotTime {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("not a point in time")
    }
}

impl std::error::Error for NotTime {}

impl ser::Error for NotTime {
    fn custom<T: std::fmt::Display>(_: T) -> Self {
        NotTime
    }
}

macro_rules! not_time {
    ($($f:ident($t:ty)),*) => {$(
        fn $f(self, _: $t) -> Result<Self::Ok, NotTime> {
            Err(NotTime)
        }
    )*};
}

macro_rules! not_time_compounds {
    () => {
        type SerializeTupleStruct = Impossible<Self::Ok, NotTime>;
        type SerializeTupleVariant = Impossible<Self::Ok, NotTime>;
        type SerializeMap = Impossible<Self::Ok, NotTime>;
        type SerializeStruct = Impossible<Self::Ok, NotTime>;
        type SerializeStructVariant = Impossible<Self::Ok, NotTime>;

        not_time!(
            serialize_bool(bool),
            serialize_i128(i128),
            serialize_u128(u128),
            serialize_f32(f32),
            serialize_f64(f64),
            serialize_char(char),
            serialize_bytes(&[u8]),
            serialize_unit_struct(&'static str)
        );

        fn serialize_unit_variant(
            self,
            _: &'static str,
            _: u32,
            _: &'static str,
        ) -> Result<Self::Ok, NotTime> {
            Err(NotTime)
        }

        fn serialize_newtype_struct<T: ?Sized + Serialize>(
            self,
            _: &'static str,
            value: &T,
        ) -> Result<Self::Ok, NotTime> {
            value.serialize(self)
        }

        fn serialize_newtype_variant<T: ?Sized + Serialize>(
            self,
            _: &'static str,
            _: u32,
            _: &'static str,
            _: &T,
        ) -> Result<Self::Ok, NotTime> {
            Err(NotTime)
        }

        fn serialize_tuple_struct(
            self,
            _: &'static str,
            _: usize,
        ) -> Result<Self::SerializeTupleStruct, NotTime> {
            Err(NotTime)
        }

        fn serialize_tuple_variant(
            self,
            _: &'static str,
            _: u32,
            _: &'static str,
            _: usize,
        ) -> Result<Self::SerializeTupleVariant, NotTime> {
            Err(NotTime)
        }

        fn serialize_map(self, _: Option<usize>) -> Result<Self::SerializeMap, NotTime> {
            Err(NotTime)
        }

        fn serialize_struct(
            self,
            _: &'static str,
            _: usize,
        ) -> Result<Self::SerializeStruct, NotTime> {
            Err(NotTime)
        }

        fn serialize_struct_variant(
            self,
            _: &'static str,
            _: u32,
            _: &'static str,
            _: usize,
        ) -> Result<Self::SerializeStructVariant, NotTime> {
            Err(NotTime)
        }
    };
}

/// Reads a point-in-time value: an integer, `null`, or a pair of integers.
struct Grab;

impl Serializer for Grab {
    type Ok = Time;
    type Error = NotTime;
    type SerializeSeq = Pair;
    type SerializeTuple = Pair;

    not_time_compounds!();

    not_time!(serialize_str(&str));

    fn serialize_i8(self, v: i8) -> Result<Time, NotTime> {
        Ok(Time::One(v.into()))
    }

    fn serialize_i16(self, v: i16) -> Result<Time, NotTime> {
        Ok(Time::One(v.into()))
    }

    fn serialize_i32(self, v: i32) -> Result<Time, NotTime> {
        Ok(Time::One(v.into()))
    }

    fn serialize_i64(self, v: i64) -> Result<Time, NotTime> {
        Ok(Time::One(v))
    }

    fn serialize_u8(self, v: u8) -> Result<Time, NotTime> {
        Ok(Time::One(v.into()))
    }

    fn serialize_u16(self, v: u16) -> Result<Time, NotTime> {
        Ok(Time::One(v.into()))
    }

    fn serialize_u32(self, v: u32) -> Result<Time, NotTime> {
        Ok(Time::One(v.into()))
    }

    fn serialize_u64(self, v: u64) -> Result<Time, NotTime> {
        i64::try_from(v).map(Time::One).map_err(|_| NotTime)
    }

    fn serialize_none(self) -> Result<Time, NotTime> {
        Ok(Time::Null)
    }

    fn serialize_some<T: ?Sized + Serialize>(self, value: &T) -> Result<Time, NotTime> {
        value.serialize(self)
    }

    fn serialize_unit(self) -> Result<Time, NotTime> {
        Ok(Time::Null)
    }

    fn serialize_seq(self, _: Option<usize>) -> Result<Pair, NotTime> {
        Ok(Pair(Vec::with_capacity(2)))
    }

    fn serialize_tuple(self, _: usize) -> Result<Pair, NotTime> {
        Ok(Pair(Vec::with_capacity(2)))
    }
}

/// A sequence read as a pair of integers.
struct Pair(Vec<i64>);

impl Pair {
    fn push<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<(), NotTime> {
        match value.serialize(Grab)? {
            Time::One(v) if self.0.len() < 2 => {
                self.0.push(v);
                Ok(())
            }
            _ => Err(NotTime),
        }
    }

    fn finish(self) -> Result<Time, NotTime> {
        match self.0[..] {
            [a, b] => Ok(Time::Pair(a, b)),
            _ => Err(NotTime),
        }
    }
}

impl SerializeSeq for Pair {
    type Ok = Time;
    type Error = NotTime;

    fn serialize_element<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<(), NotTime> {
        self.push(value)
    }

    fn end(self) -> Result<Time, NotTime> {
        self.finish()
    }
}

impl SerializeTuple for Pair {
    type Ok = Time;
    type Error = NotTime;

    fn serialize_element<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<(), NotTime> {
        self.push(value)
    }

    fn end(self) -> Result<Time, NotTime> {
        self.finish()
    }
}

/// Reads a map's key when it is a string.
struct KeyGrab;

impl Serializer for KeyGrab {
    type Ok = String;
    type Error = NotTime;
    type SerializeSeq = Impossible<String, NotTime>;
    type SerializeTuple = Impossible<String, NotTime>;

    not_time_compounds!();

    not_time!(
        serialize_i8(i8),
        serialize_i16(i16),
        serialize_i32(i32),
        serialize_i64(i64),
        serialize_u8(u8),
        serialize_u16(u16),
        serialize_u32(u32),
        serialize_u64(u64)
    );

    fn serialize_str(self, v: &str) -> Result<String, NotTime> {
        Ok(v.to_owned())
    }

    fn serialize_none(self) -> Result<String, NotTime> {
        Err(NotTime)
    }

    fn serialize_some<T: ?Sized + Serialize>(self, _: &T) -> Result<String, NotTime> {
        Err(NotTime)
    }

    fn serialize_unit(self) -> Result<String, NotTime> {
        Err(NotTime)
    }

    fn serialize_seq(self, _: Option<usize>) -> Result<Self::SerializeSeq, NotTime> {
        Err(NotTime)
    }

    fn serialize_tuple(self, _: usize) -> Result<Self::SerializeTuple, NotTime> {
        Err(NotTime)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(serde::Serialize)]
    struct Gap {
        start_ns: i64,
        duration_ns: i64,
        longest_start_ns: Option<i64>,
        range_ns: (i64, i64),
        ends_before_end_ns: i64,
        inner: Vec<Inner>,
    }

    #[derive(serde::Serialize)]
    struct Inner {
        recording_start_ns: i64,
        end_ns: i64,
    }

    #[test]
    fn times_get_their_relative_ms_and_durations_do_not() {
        let gap = Gap {
            start_ns: 1_000_000_001_500_000,
            duration_ns: 7,
            longest_start_ns: None,
            range_ns: (1_000_000_000_000_000, 1_000_000_002_000_000),
            ends_before_end_ns: 1_000_000_000_000_000,
            inner: vec![Inner {
                recording_start_ns: 1_000_000_001_000_000,
                end_ns: 1_000_000_001_250_000,
            }],
        };
        let json = serde_json::to_string(&RelTimes::new(&gap, 1_000_000_000_000_000)).unwrap();
        assert_eq!(
            json,
            "{\"start_ns\":1000000001500000,\"start_rel_ms\":1.5,\"duration_ns\":7,\
             \"longest_start_ns\":null,\"longest_start_rel_ms\":null,\
             \"range_ns\":[1000000000000000,1000000002000000],\"range_rel_ms\":[0.0,2.0],\
             \"ends_before_end_ns\":1000000000000000,\"inner\":[{\"recording_start_ns\":1000000001000000,\
             \"end_ns\":1000000001250000,\"end_rel_ms\":0.25}]}"
        );
        // A `serde_json::Value` (an object is a map) reads the same (its
        // keys sorted: a start inside it would come after `end_ns`).
        let value = serde_json::to_value(&gap).unwrap();
        let again = serde_json::to_value(RelTimes::new(&value, 1_000_000_000_000_000)).unwrap();
        assert_eq!(again["start_rel_ms"], 1.5);
        assert_eq!(again["range_rel_ms"], serde_json::json!([0.0, 2.0]));
        assert_eq!(again["inner"][0]["end_rel_ms"], 1.25);
        assert!(again.get("ends_before_end_rel_ms").is_none());
    }
}
