//! Everything that turns bytes into the model ([`Trace`](crate::engine::model::Trace)):
//! the `.puffin` decoder ([`puffin`], its byte layout in the module doc), the
//! JSON-dump reader ([`json`]), the live puffin_http stream ([`live`], and
//! natively its TCP client [`live_tcp`]), the bounds-checked byte reader they
//! share ([`bytes`]) and what they produce ([`decoded`]). Which format a file
//! is gets decided here, once, above both readers.
//!
//! May import: `model`. Nothing here imports `analyses`, `api` or `write`
//! (tests aside).

pub mod bytes;
pub mod decoded;
pub mod fragment;
pub mod json;
pub mod live;
#[cfg(not(target_arch = "wasm32"))]
pub mod live_tcp;
pub mod puffin;

pub use decoded::{Decoded, Diagnostic, LoadError, Severity, SizeEstimate};
#[cfg(not(target_arch = "wasm32"))]
pub use puffin::decode_puffin_parallel;
pub use puffin::{PuffinDecoder, Run, decode_puffin};

/// Whether `bytes` looks like a JSON document (first non-blank byte is `{`).
pub fn looks_like_json(bytes: &[u8]) -> bool {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    bytes
        .iter()
        .find(|b| !b.is_ascii_whitespace())
        .is_some_and(|&b| b == b'{')
}

impl SizeEstimate {
    /// A `.puffin` file or a JSON dump, told apart by content.
    pub fn of(bytes: &[u8]) -> Self {
        if looks_like_json(bytes) {
            Self::of_json(bytes)
        } else {
            Self::of_puffin(bytes)
        }
    }
}

/// Loads a recording: a `.puffin` file or a JSON dump, told apart by content.
/// Natively, frames are decompressed in parallel.
pub fn load(bytes: &[u8]) -> Result<Decoded, LoadError> {
    if looks_like_json(bytes) {
        json::load_json(bytes)
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

/// [`load`], calling `progress(bytes_done)` as the decode moves through the
/// bytes (a `.puffin` file: after each batch of frames; bytes before
/// `bytes_done` are not read again), natively.
#[cfg(not(target_arch = "wasm32"))]
pub fn load_with_progress(
    bytes: &[u8],
    progress: impl Fn(usize) + Sync,
) -> Result<Decoded, LoadError> {
    if looks_like_json(bytes) {
        json::load_json(bytes)
    } else {
        Ok(
            PuffinDecoder::new(bytes)?.run_parallel_with_progress(|done| {
                progress(done);
                std::ops::ControlFlow::Continue(())
            }),
        )
    }
}

/// A recording decoded a piece at a time (a frame per step), whatever its
/// kind: a `.puffin` file or a JSON dump, told apart by content.
pub enum SteppedDecoder<B> {
    Puffin(PuffinDecoder<B>),
    Json(json::JsonDecoder<B>),
}

impl<B: AsRef<[u8]>> SteppedDecoder<B> {
    pub fn new(bytes: B) -> Result<Self, LoadError> {
        if looks_like_json(bytes.as_ref()) {
            Ok(Self::Json(json::JsonDecoder::new(bytes)))
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

    /// Every byte given to decode (the whole file).
    pub fn input(&self) -> &[u8] {
        match self {
            Self::Puffin(d) => d.input(),
            Self::Json(d) => d.input(),
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
