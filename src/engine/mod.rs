//! The engine: decode `.puffin` recordings and JSON dumps into one columnar
//! model ([`Trace`]), and export it as the documented JSON.
//!
//! This module is the one place that knows the puffin format (see
//! [`decode`] for the byte layout). It never depends on UI crates and builds
//! for native and `wasm32-unknown-unknown` alike.

pub mod api;
pub mod bytes;
pub mod decode;
pub mod diff;
pub mod escape;
pub mod export;
pub mod invariants;
pub mod json_in;
pub mod live;
#[cfg(not(target_arch = "wasm32"))]
pub mod live_tcp;
pub mod model;
pub mod parquet;
pub mod query;
pub mod report;
pub mod tree;
#[cfg(not(target_arch = "wasm32"))]
pub mod write;

#[cfg(not(target_arch = "wasm32"))]
pub use decode::decode_puffin_parallel;
pub use decode::{
    Decoded, Diagnostic, LoadError, PuffinDecoder, Severity, SizeEstimate, decode_puffin,
};
pub use export::{export_string, write_export};
pub use model::{DefId, FrameId, ScopeIdx, ScopeKind, StrId, StreamId, ThreadId, Trace};

/// Loads a recording: a `.puffin` file or a JSON dump, told apart by content.
/// Natively, frames are decompressed in parallel.
pub fn load(bytes: &[u8]) -> Result<Decoded, LoadError> {
    if json_in::looks_like_json(bytes) {
        json_in::load_json(bytes)
    } else {
        #[cfg(not(target_arch = "wasm32"))]
        {
            decode_puffin_parallel(bytes)
        }
        #[cfg(target_arch = "wasm32")]
        {
            decode_puffin(bytes)
        }
    }
}

/// A recording decoded a piece at a time (a frame per step), whatever its
/// kind: a `.puffin` file or a JSON dump, told apart by content.
pub enum SteppedDecoder<B> {
    Puffin(PuffinDecoder<B>),
    Json(json_in::JsonDecoder<B>),
}

impl<B: AsRef<[u8]>> SteppedDecoder<B> {
    pub fn new(bytes: B) -> Result<Self, LoadError> {
        if json_in::looks_like_json(bytes.as_ref()) {
            Ok(Self::Json(json_in::JsonDecoder::new(bytes)))
        } else {
            PuffinDecoder::new(bytes).map(Self::Puffin)
        }
    }

    /// Decodes the next piece; returns whether there is more to do.
    pub fn step(&mut self) -> bool {
        match self {
            Self::Puffin(d) => d.step(),
            Self::Json(d) => d.step(),
        }
    }

    pub fn bytes_done(&self) -> usize {
        match self {
            Self::Puffin(d) => d.bytes_done(),
            Self::Json(d) => d.bytes_done(),
        }
    }

    pub fn bytes_total(&self) -> usize {
        match self {
            Self::Puffin(d) => d.bytes_total(),
            Self::Json(d) => d.bytes_total(),
        }
    }

    /// Decodes what is left. A damaged `.puffin` file keeps its intact
    /// frames; an invalid JSON dump is an error.
    pub fn finish(self) -> Result<Decoded, LoadError> {
        match self {
            Self::Puffin(d) => Ok(d.finish()),
            Self::Json(d) => d.finish(),
        }
    }
}
