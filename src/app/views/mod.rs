//! One file per view, each a struct with `fn ui(&mut self, ui, …)` that
//! reads the engine's model (through [`Loaded`](super::loaded::Loaded)) and
//! keeps only UI state; derived data is computed when its inputs change,
//! never per repaint. `widgets` holds the pieces they share.
//!
//! May import: `engine`, `app::loaded`, `app::nav`. Never the shell
//! (`app/mod.rs`, loading, platform, shared state).

/// Work per frame while a view builds a large answer a slice at a time (in
/// the browser, when the shell asks for it; natively an answer is built at
/// once): each frame's task stays well under half a second, repaint included.
pub const BUILD_SLICE: web_time::Duration = web_time::Duration::from_millis(150);

/// What applying a transform stack may take of a frame in the browser:
/// shorter than a build's slice, so adding or popping a transform keeps the
/// page's tasks (with the frame's painting) under 200 ms.
pub const TRANSFORM_SLICE: web_time::Duration = web_time::Duration::from_millis(50);

/// What the timeline's index may take of a frame in the browser (the same
/// as a transform's: a whole recording's timeline keeps the page's tasks
/// under 200 ms).
pub const INDEX_SLICE: web_time::Duration = TRANSFORM_SLICE;

pub mod details;
pub mod diff;
pub mod findings;
pub mod flame;
pub mod glance;
pub mod inline_md;
pub mod overview;
pub mod sandwich;
pub mod table;
pub mod timeline;
pub mod tree;
pub mod widgets;
