//! puffin-lens: analyze `.puffin` profiler recordings.
//!
//! [`engine`] decodes recordings into a columnar model, answers the
//! analyses and exports them; it never depends on a UI crate. [`app`] is the
//! egui application (desktop and browser); [`web`] its browser entry point
//! and JavaScript API.

#[cfg(feature = "app")]
pub mod app;
pub mod engine;
pub mod units;
#[cfg(all(target_arch = "wasm32", feature = "app"))]
pub mod web;
