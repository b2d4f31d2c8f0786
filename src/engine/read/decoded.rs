//! What a reader produces: the model and what went wrong on the way
//! ([`Decoded`], [`Diagnostic`]), why a recording cannot be used at all
//! ([`LoadError`]), and what decoding one will cost ([`SizeEstimate`]).

use crate::engine::model::Trace;
use std::fmt;

/// How serious a [`Diagnostic`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Severity {
    /// Something was skipped but every frame is intact.
    Warning,
    /// A frame (or the rest of the file) could not be decoded.
    Damage,
}

impl Severity {
    /// `warning` or `damaged`, as messages and summaries label it.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Warning => "warning",
            Severity::Damage => "damaged",
        }
    }
}

/// A problem found while decoding, located in the file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    pub severity: Severity,
    /// Position of the frame record in the file (0-based), when known.
    pub record: Option<usize>,
    /// `frame_index` from the record's metadata, when it could be read.
    pub frame_index: Option<u64>,
    /// Byte offset in the file.
    pub byte_offset: u64,
    pub message: String,
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(record) = self.record {
            write!(f, "frame #{record}")?;
            if let Some(index) = self.frame_index {
                write!(f, " (frame_index {index})")?;
            }
            write!(f, " at byte {}: {}", self.byte_offset, self.message)
        } else {
            write!(f, "at byte {}: {}", self.byte_offset, self.message)
        }
    }
}

/// A recording that cannot be used at all.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    #[error("the file is empty")]
    Empty,
    #[error(
        "not a .puffin recording or JSON dump: it starts with {found}, expected \"PUF0\" or a JSON object"
    )]
    BadMagic { found: String },
    #[error("invalid JSON dump: {0}")]
    Json(String),
}

/// The result of decoding: the model plus what went wrong on the way.
pub struct Decoded {
    pub trace: Trace,
    /// In file order.
    pub diagnostics: Vec<Diagnostic>,
}

impl Decoded {
    pub fn is_damaged(&self) -> bool {
        self.diagnostics
            .iter()
            .any(|d| d.severity == Severity::Damage)
    }
}

/// What decoding a recording will hold in memory, read from its container
/// alone (metadata, no decompression): lets the browser refuse a recording
/// that cannot fit in its address space before spending any of it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SizeEstimate {
    /// Scope instances the frames claim.
    pub scopes: u64,
    /// Scopes the columns are sized for before decoding: the claims, up
    /// to one per byte of input (metadata is untrusted); past that they
    /// grow by doubling.
    pub reserved: u64,
    /// The largest frame's decompressed streams (the decoder's buffer).
    pub max_frame_bytes: u64,
}

impl SizeEstimate {
    /// Bytes of the decoded model (its scope columns) plus the decoder's
    /// frame buffer; the caller adds the input and its own structures.
    pub fn model_bytes(&self) -> u64 {
        let per_scope = crate::engine::model::ScopeTable::BYTES_PER_SCOPE;
        let columns = if self.scopes <= self.reserved {
            self.scopes.saturating_mul(per_scope)
        } else {
            // Grown by doubling: the capacity is the next power of two, and
            // the smaller blocks each column left behind are not all reused
            // by the larger ones: in wasm the memory peaked at 1.5 times the
            // columns' capacity (25 M scopes: 2.46 GB for 33.5 M x 48 bytes).
            let capacity = self.scopes.checked_next_power_of_two().unwrap_or(u64::MAX);
            capacity.saturating_mul(per_scope).saturating_mul(3) / 2
        };
        columns.saturating_add(self.max_frame_bytes)
    }
}
