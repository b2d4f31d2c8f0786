//! puffin-lens: analyze `.puffin` profiler recordings.
//!
//! [`engine`] decodes recordings into a columnar model and exports them; it
//! never depends on a UI crate.

pub mod engine;
