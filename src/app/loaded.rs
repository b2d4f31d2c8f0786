//! A decoded recording as every view reads it ([`Loaded`]), and where a
//! recording's bytes come from ([`Source`]). The bottom of the app: imports
//! the engine only.

use crate::engine::api::{Summary, summary};
use crate::engine::{Decoded, Trace};
use std::sync::Arc;

/// A decoded recording, as every view reads it.
pub struct Loaded {
    /// The file name (no directories).
    pub name: String,
    pub decoded: Decoded,
    pub summary: Summary,
    pub size_bytes: usize,
    /// Wall time from start of loading to the model being ready.
    pub load_ms: f64,
    /// How it was decoded, for `status()` and the log: `"workers"` (the
    /// browser's decode workers), `"page"` (the page's thread, a slice at a
    /// time), `"thread"` (natively, a background thread on all cores) or
    /// `"here"` (at once, on the caller's thread).
    pub decoded_by: &'static str,
    /// The file's bytes, kept in the browser (a worker makes the findings
    /// from them, off the page's thread); `None` natively and for a live
    /// capture.
    pub bytes: Option<Arc<Vec<u8>>>,
}

impl Loaded {
    pub fn new(name: String, decoded: Decoded, size_bytes: usize, load_ms: f64) -> Self {
        let summary = summary(&name, &decoded);
        Self {
            name,
            decoded,
            summary,
            size_bytes,
            load_ms,
            decoded_by: "here",
            bytes: None,
        }
    }

    pub fn trace(&self) -> &Trace {
        &self.decoded.trace
    }
}

/// Where a recording's bytes come from.
pub enum Source {
    Bytes(Vec<u8>),
    /// Read on the loading thread (native).
    #[cfg(not(target_arch = "wasm32"))]
    Path(std::path::PathBuf),
}
