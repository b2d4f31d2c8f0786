//! Every question asked of a trace: pure functions over the model, one file
//! per analysis or family (SPEC.md "Who uses it, and how"), and the report
//! built from them. The command line prints their results as text or JSON;
//! the app's views read the same results.
//!
//! Every returned list is sorted as documented on its function, with ties
//! broken explicitly, so answers are deterministic. Threads are identified by
//! name. Instances are read from the columnar model only: no re-decoding.
//!
//! May import: `model` (and `write::escape`, for the report's Markdown and
//! HTML). The files share helpers from [`common`] and never import this
//! module's re-exports.

pub mod accounting;
pub mod activity;
pub mod basis;
pub mod by_child;
pub mod calls;
pub mod children;
pub mod common;
pub mod compare;
pub mod coverage;
pub mod diff;
pub mod drift;
pub mod effect;
pub mod find;
pub mod flame;
pub mod frames;
pub mod gap_diff;
pub mod gaps;
pub mod gate;
pub mod judge;
pub mod kinship;
pub mod place;
pub mod rename;
pub mod restructure;
pub mod shape;
pub mod stats;
pub mod tail;
pub mod transform;
pub mod transient;
pub mod tree;
pub mod verdict;
pub mod wait_diff;
pub mod waits;
pub mod window;

pub use by_child::*;
pub use calls::*;
pub use children::*;
pub use common::*;
pub use compare::*;
pub use coverage::*;
pub use find::*;
pub use flame::*;
pub use frames::*;
pub use gaps::*;
pub use judge::{Change, DriftMode, Kind, Noise};
pub use stats::*;
pub use tree::*;
pub use verdict::*;
pub use window::*;
