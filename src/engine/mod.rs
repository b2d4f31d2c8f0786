//! The engine: decode `.puffin` recordings and JSON dumps into one columnar
//! model ([`Trace`]), and export it as the documented JSON.
//!
//! This module is the one place that knows the puffin format (see
//! [`decode`] for the byte layout). It never depends on UI crates and builds
//! for native and `wasm32-unknown-unknown` alike.

pub mod api;
pub mod bytes;
pub mod decode;
pub mod export;
pub mod json_in;
pub mod model;
pub mod query;
#[cfg(not(target_arch = "wasm32"))]
pub mod write;

#[cfg(not(target_arch = "wasm32"))]
pub use decode::decode_puffin_parallel;
pub use decode::{Decoded, Diagnostic, LoadError, PuffinDecoder, Severity, decode_puffin};
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
