//! The judgement: what changed between two recordings (`compare`, `report`'s
//! comparison, `calls A B`, the gate), by the model of docs/statistics.md.
//! Its floors read bottom-up, each importing only those below it (and the
//! one-recording analyses of [`super`], and `model`):
//!
//! - **the model**: [`basis`] (what "per frame" is per), [`effect`] (an
//!   effect with its interval), [`drift`], [`shape`] (through a run),
//!   [`judge`] (a row's verdict and kind), [`kinship`] (like runs);
//! - **the decomposition**, the rows and what time conserves: [`compare`]
//!   (the table of rows every other part reads), [`restructure`],
//!   [`transient`], [`gap_diff`], [`wait_diff`], [`place`], [`rename`],
//!   [`accounting`] (the frame's parts);
//! - **the verdict and its words**: [`gate`], [`verdict`].
//!
//! A floor's files may import each other without a circle. Nothing here is
//! imported by the one-recording analyses but the differential tree
//! ([`super::diff`], its nodes judged) and `calls A B` ([`super::calls`]).

pub mod accounting;
pub mod basis;
pub mod compare;
pub mod drift;
pub mod effect;
pub mod gap_diff;
pub mod gate;
pub mod judge;
pub mod kinship;
pub mod place;
pub mod rename;
pub mod restructure;
pub mod shape;
pub mod transient;
pub mod verdict;
pub mod wait_diff;
