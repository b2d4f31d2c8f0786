//! What leaves the engine: the documented JSON export ([`json`]), the
//! Parquet tables ([`parquet`]), `.puffin` recordings of every layout
//! (natively: [`puffin`], for tests, benchmarks and saving a live capture)
//! and a recording's text escaped for each output it lands in ([`escape`]).
//!
//! May import: `model` (and `read::bytes`' varint writers).

pub mod chrome;
pub mod escape;
pub mod folded;
pub mod json;
pub mod parquet;
#[cfg(not(target_arch = "wasm32"))]
pub mod puffin;
