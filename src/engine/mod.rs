//! The engine: bytes → model → analyses → answers and exports. No UI crate;
//! builds for native and `wasm32-unknown-unknown` alike.
//!
//! ```text
//! read → model ← analyses ← api ← {cli, app}
//!                            write ← api
//! ```
//!
//! - [`read`]: everything that turns bytes into the model: the `.puffin`
//!   decoder (the one place that knows the puffin format; byte layout in
//!   [`read::puffin`]), JSON dumps, the live stream;
//! - [`model`]: the columnar [`Trace`] with its interner and builder;
//! - [`analyses`]: every question asked of a trace (one file per analysis or
//!   family), and the report built from them;
//! - [`write`]: what leaves the engine: the JSON export, Parquet, `.puffin`
//!   files, and the escaping of a recording's text for each target;
//! - [`api`]: each analysis declared once (arguments, answer) for the CLI and
//!   the JavaScript API;
//! - [`record`] (native): a running app's frames captured, and the
//!   alternated A/B runs of two builds recorded, for the CLI and the
//!   desktop app;
//! - [`runs_manifest`]: a folder of `ab` runs' manifest and its finished
//!   pairs, for the CLI and the app.

pub mod analyses;
pub mod api;
pub mod invariants;
pub mod model;
pub mod read;
#[cfg(not(target_arch = "wasm32"))]
pub mod record;
pub mod reltime;
pub mod report;
pub mod runs_manifest;
pub mod write;

pub use model::{DefId, FrameId, ScopeIdx, ScopeKind, StrId, StreamId, ThreadId, Trace};
#[cfg(not(target_arch = "wasm32"))]
pub use read::decode_puffin_parallel;
pub use read::{
    Decoded, Diagnostic, LoadError, PuffinDecoder, Severity, SizeEstimate, SteppedDecoder,
    decode_puffin, load,
};
pub use write::json::{export_string, write_export};

/// `a` and `b` at once where there are threads (rayon's pool), one after
/// the other in the browser (the page's workers split work by recording
/// instead). The answers are the same either way.
pub fn join<A: Send, B: Send>(
    a: impl FnOnce() -> A + Send,
    b: impl FnOnce() -> B + Send,
) -> (A, B) {
    #[cfg(not(target_arch = "wasm32"))]
    {
        rayon::join(a, b)
    }
    #[cfg(target_arch = "wasm32")]
    {
        (a(), b())
    }
}
