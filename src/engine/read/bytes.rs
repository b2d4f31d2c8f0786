//! A bounds-checked little-endian reader over untrusted bytes, with bincode 1.x
//! varint decoding (`bincode::options()`, as puffin uses it).
//!
//! Every read checks the bytes that remain; a length field is never trusted
//! for an allocation larger than what is left.

use crate::engine::model::utf8_prefix;
use std::fmt;

/// Why a read failed, with the offset (relative to the reader's slice) where it happened.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReadError {
    /// Offset in the slice being read.
    pub offset: usize,
    pub kind: ReadErrorKind,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReadErrorKind {
    /// Needed `needed` bytes, only `left` remain.
    Truncated {
        what: &'static str,
        needed: u64,
        left: usize,
    },
    /// A bincode varint tag byte that is not valid.
    BadVarint(u8),
    /// A value does not fit the target type.
    Overflow(&'static str),
    /// An `Option` tag other than 0 or 1.
    BadOptionTag(u8),
    /// Anything else, described.
    Invalid(String),
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            ReadErrorKind::Truncated { what, needed, left } => write!(
                f,
                "{what} needs {needed} bytes but only {left} remain (offset {})",
                self.offset
            ),
            ReadErrorKind::BadVarint(tag) => {
                write!(
                    f,
                    "invalid varint tag 0x{tag:02x} at offset {}",
                    self.offset
                )
            }
            ReadErrorKind::Overflow(what) => {
                write!(f, "{what} out of range at offset {}", self.offset)
            }
            ReadErrorKind::BadOptionTag(tag) => {
                write!(f, "invalid option tag {tag} at offset {}", self.offset)
            }
            ReadErrorKind::Invalid(msg) => write!(f, "{msg} at offset {}", self.offset),
        }
    }
}

pub type ReadResult<T> = Result<T, ReadError>;

/// Cursor over a byte slice.
#[derive(Clone, Copy)]
pub struct ByteReader<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> ByteReader<'a> {
    pub fn new(bytes: &'a [u8]) -> Self {
        Self { bytes, pos: 0 }
    }

    #[inline]
    pub fn pos(&self) -> usize {
        self.pos
    }

    #[inline]
    pub fn remaining(&self) -> usize {
        self.bytes.len() - self.pos
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.pos >= self.bytes.len()
    }

    pub fn error(&self, kind: ReadErrorKind) -> ReadError {
        ReadError {
            offset: self.pos,
            kind,
        }
    }

    pub fn invalid(&self, msg: impl Into<String>) -> ReadError {
        self.error(ReadErrorKind::Invalid(msg.into()))
    }

    #[inline]
    fn truncated(&self, what: &'static str, needed: u64) -> ReadError {
        self.error(ReadErrorKind::Truncated {
            what,
            needed,
            left: self.remaining(),
        })
    }

    /// Takes `len` bytes, failing (without allocating) when fewer remain.
    #[inline]
    pub fn take(&mut self, len: u64, what: &'static str) -> ReadResult<&'a [u8]> {
        if len > self.remaining() as u64 {
            return Err(self.truncated(what, len));
        }
        let len = len as usize;
        let out = &self.bytes[self.pos..self.pos + len];
        self.pos += len;
        Ok(out)
    }

    #[inline]
    fn array<const N: usize>(&mut self, what: &'static str) -> ReadResult<[u8; N]> {
        match self.bytes.get(self.pos..self.pos + N) {
            Some(slice) => {
                self.pos += N;
                let mut out = [0; N];
                out.copy_from_slice(slice);
                Ok(out)
            }
            None => Err(self.truncated(what, N as u64)),
        }
    }

    #[inline]
    pub fn u8(&mut self, what: &'static str) -> ReadResult<u8> {
        match self.bytes.get(self.pos) {
            Some(&b) => {
                self.pos += 1;
                Ok(b)
            }
            None => Err(self.truncated(what, 1)),
        }
    }

    #[inline]
    pub fn peek_u8(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    #[inline]
    pub fn u32_le(&mut self, what: &'static str) -> ReadResult<u32> {
        self.array::<4>(what).map(u32::from_le_bytes)
    }

    #[inline]
    pub fn u64_le(&mut self, what: &'static str) -> ReadResult<u64> {
        self.array::<8>(what).map(u64::from_le_bytes)
    }

    #[inline]
    pub fn i64_le(&mut self, what: &'static str) -> ReadResult<i64> {
        self.array::<8>(what).map(i64::from_le_bytes)
    }

    /// A puffin stream string: `u8` length + bytes, longest valid UTF-8 prefix kept.
    #[inline]
    pub fn short_str(&mut self, what: &'static str) -> ReadResult<&'a str> {
        self.short_bytes(what).map(utf8_prefix)
    }

    /// A puffin stream string's raw bytes (not yet checked for UTF-8).
    #[inline]
    pub fn short_bytes(&mut self, what: &'static str) -> ReadResult<&'a [u8]> {
        let len = self.u8(what)?;
        self.take(u64::from(len), what)
    }

    /// bincode 1.x varint unsigned integer.
    #[inline]
    pub fn varint_u64(&mut self, what: &'static str) -> ReadResult<u64> {
        let tag = self.u8(what)?;
        match tag {
            0..=250 => Ok(u64::from(tag)),
            251 => self
                .array::<2>(what)
                .map(|b| u64::from(u16::from_le_bytes(b))),
            252 => self
                .array::<4>(what)
                .map(|b| u64::from(u32::from_le_bytes(b))),
            253 => self.array::<8>(what).map(u64::from_le_bytes),
            254 => {
                let v = u128::from_le_bytes(self.array::<16>(what)?);
                u64::try_from(v).map_err(|_| self.error(ReadErrorKind::Overflow(what)))
            }
            _ => Err(ReadError {
                offset: self.pos - 1,
                kind: ReadErrorKind::BadVarint(tag),
            }),
        }
    }

    pub fn varint_u32(&mut self, what: &'static str) -> ReadResult<u32> {
        let v = self.varint_u64(what)?;
        u32::try_from(v).map_err(|_| self.error(ReadErrorKind::Overflow(what)))
    }

    /// bincode 1.x varint signed integer (zigzag).
    #[inline]
    pub fn varint_i64(&mut self, what: &'static str) -> ReadResult<i64> {
        let n = self.varint_u64(what)?;
        Ok(((n >> 1) as i64) ^ -((n & 1) as i64))
    }

    pub fn option_tag(&mut self, what: &'static str) -> ReadResult<bool> {
        match self.u8(what)? {
            0 => Ok(false),
            1 => Ok(true),
            tag => Err(ReadError {
                offset: self.pos - 1,
                kind: ReadErrorKind::BadOptionTag(tag),
            }),
        }
    }

    /// bincode string: varint length + bytes; invalid UTF-8 keeps its longest valid prefix.
    pub fn bincode_str(&mut self, what: &'static str) -> ReadResult<&'a str> {
        let len = self.varint_u64(what)?;
        let bytes = self.take(len, what)?;
        Ok(utf8_prefix(bytes))
    }

    /// bincode byte vector: varint length + bytes.
    pub fn bincode_bytes(&mut self, what: &'static str) -> ReadResult<&'a [u8]> {
        let len = self.varint_u64(what)?;
        self.take(len, what)
    }
}

/// Writes a bincode 1.x varint (used by the recording writer).
pub fn write_varint_u64(out: &mut Vec<u8>, v: u64) {
    if v < 251 {
        out.push(v as u8);
    } else if v <= u64::from(u16::MAX) {
        out.push(251);
        out.extend_from_slice(&(v as u16).to_le_bytes());
    } else if v <= u64::from(u32::MAX) {
        out.push(252);
        out.extend_from_slice(&(v as u32).to_le_bytes());
    } else {
        out.push(253);
        out.extend_from_slice(&v.to_le_bytes());
    }
}

/// Writes a bincode 1.x zigzag varint.
pub fn write_varint_i64(out: &mut Vec<u8>, v: i64) {
    write_varint_u64(out, ((v << 1) ^ (v >> 63)) as u64);
}

/// Writes a bincode string.
pub fn write_bincode_str(out: &mut Vec<u8>, s: &str) {
    write_varint_u64(out, s.len() as u64);
    out.extend_from_slice(s.as_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varints_round_trip() {
        for v in [
            0u64,
            1,
            250,
            251,
            255,
            65535,
            65536,
            u32::MAX as u64,
            u64::MAX,
        ] {
            let mut buf = Vec::new();
            write_varint_u64(&mut buf, v);
            assert_eq!(ByteReader::new(&buf).varint_u64("v").unwrap(), v);
        }
        for v in [0i64, -1, 1, i64::MIN, i64::MAX, 1_754_660_609_545_096_612] {
            let mut buf = Vec::new();
            write_varint_i64(&mut buf, v);
            assert_eq!(ByteReader::new(&buf).varint_i64("v").unwrap(), v);
        }
    }

    #[test]
    fn huge_length_is_an_error_not_an_allocation() {
        let mut buf = Vec::new();
        write_varint_u64(&mut buf, 4_000_000_000);
        buf.extend_from_slice(b"abc");
        let err = ByteReader::new(&buf).bincode_bytes("stream").unwrap_err();
        assert!(matches!(
            err.kind,
            ReadErrorKind::Truncated {
                needed: 4_000_000_000,
                left: 3,
                ..
            }
        ));
    }

    #[test]
    fn invalid_utf8_keeps_prefix() {
        assert_eq!(utf8_prefix(b"ab\xffcd"), "ab");
        assert_eq!(utf8_prefix("é".as_bytes()), "é");
        assert_eq!(utf8_prefix(&"é".as_bytes()[..1]), "");
    }
}
