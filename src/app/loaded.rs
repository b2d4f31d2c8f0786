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
    /// Each run's file bytes, kept in the browser (a worker makes the
    /// findings from them, off the page's thread); empty natively, for a
    /// live capture, and when a run's were not kept.
    pub bytes: Vec<Arc<Vec<u8>>>,
    /// The files of its runs (one, or several runs of one side added to it).
    pub runs: Vec<String>,
}

impl Loaded {
    pub fn new(name: String, decoded: Decoded, size_bytes: usize, load_ms: f64) -> Self {
        let summary = summary(&name, &decoded);
        Self {
            name: name.clone(),
            decoded,
            summary,
            size_bytes,
            load_ms,
            decoded_by: "here",
            bytes: Vec::new(),
            runs: vec![name],
        }
    }

    /// This recording with `run` added as one more run of the same side
    /// (`engine::model::concat`): named by its runs' files joined with
    /// ` + `, as the command line names a side of several runs; the runs'
    /// diagnostics kept, each run's bytes kept only when all were.
    pub fn with_run(&self, run: Loaded) -> Loaded {
        let trace =
            crate::engine::model::concat(vec![self.decoded.trace.clone(), run.decoded.trace]);
        let mut diagnostics = self.decoded.diagnostics.clone();
        diagnostics.extend(run.decoded.diagnostics);
        let mut runs = self.runs.clone();
        runs.extend(run.runs);
        let bytes = if self.bytes.len() == self.runs.len() && run.bytes.len() == 1 {
            self.bytes.iter().cloned().chain(run.bytes).collect()
        } else {
            Vec::new()
        };
        let mut out = Loaded::new(
            runs.join(" + "),
            Decoded { trace, diagnostics },
            self.size_bytes + run.size_bytes,
            self.load_ms + run.load_ms,
        );
        out.decoded_by = run.decoded_by;
        out.bytes = bytes;
        out.runs = runs;
        out
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
