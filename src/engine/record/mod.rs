//! Recording runs, natively: a running app's frames captured from its
//! puffin_http server ([`capture`]) and the alternated A/B runs of two
//! builds kept in one folder with their manifest ([`ab`]). Both the CLI
//! (`record`, `ab`) and the desktop app (Record A/B…) go through here; the
//! browser cannot open TCP connections or start programs, so none of this
//! builds for wasm32.

pub mod ab;
pub mod capture;
