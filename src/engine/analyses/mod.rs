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
//! module's re-exports. The comparison of two recordings stands in
//! [`change`], re-exported here at its modules' old paths.

pub mod activity;
pub mod by_child;
pub mod calls;
pub mod change;
pub mod children;
pub mod common;
pub mod coverage;
pub mod diff;
pub mod find;
pub mod flame;
pub mod frames;
pub mod gaps;
pub mod pacing;
pub mod stats;
pub mod tail;
pub mod transform;
pub mod tree;
pub mod waits;
pub mod window;

pub use change::{
    accounting, basis, compare, drift, effect, gap_diff, gate, judge, kinship, place, rename,
    restructure, shape, transient, verdict, wait_diff,
};

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
