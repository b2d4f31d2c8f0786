//! What a recording holds of what the app ran: scope ids its scopes use but
//! it never registers, and frame indices the capture left out (puffin's
//! `FrameView` keeps the recent and the slowest frames, so a saved capture
//! often holds a fraction of the indices it spans). One wording for the
//! summary, the app's overview and the report.

use crate::engine::model::Trace;
use crate::units::count;
use serde::Serialize;

/// A scope id used by scope instances but never registered in the file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct UnregisteredId {
    pub id: u32,
    pub instances: u64,
}

/// The ids used but never registered, by id. Empty when every used id is
/// registered, and when the file registers nothing at all (that has its own
/// warning: every name is `scope#<id>`).
pub fn unregistered_ids(trace: &Trace) -> Vec<UnregisteredId> {
    let defs = &trace.defs;
    if !defs.has_registration() {
        return Vec::new();
    }
    let mut instances = vec![0u64; defs.len()];
    for d in &trace.scopes.def {
        instances[d.idx()] += 1;
    }
    let mut ids: Vec<UnregisteredId> = (0..defs.len())
        .filter(|&i| !defs.kind[i].is_registered() && instances[i] > 0)
        .map(|i| UnregisteredId {
            id: defs.raw_id[i],
            instances: instances[i],
        })
        .collect();
    ids.sort_by_key(|u| u.id);
    ids
}

/// Which frame indices the recording holds of those it spans.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct FrameCoverage {
    /// The smallest and the largest frame index.
    pub first: u64,
    pub last: u64,
    /// Frames in the file.
    pub kept: usize,
    /// Indices between consecutive frames that are not in the file, summed
    /// over each run of increasing indices (a restart of the counter starts
    /// a new run, not a gap).
    pub absent: u64,
    /// Times the index went down (or repeated): the app restarted.
    pub restarts: usize,
}

/// `None` without frames.
pub fn frame_coverage(trace: &Trace) -> Option<FrameCoverage> {
    let idx = &trace.frames.frame_index;
    let (&first, &last) = (idx.iter().min()?, idx.iter().max()?);
    let mut cov = FrameCoverage {
        first,
        last,
        kept: idx.len(),
        ..FrameCoverage::default()
    };
    for w in idx.windows(2) {
        if w[1] > w[0] {
            cov.absent = cov.absent.saturating_add(w[1] - w[0] - 1);
        } else {
            cov.restarts += 1;
        }
    }
    Some(cov)
}

/// File positions `p` (from 1) where frame `p`'s index does not follow frame
/// `p - 1`'s: frames were left out there, or the counter restarted.
pub fn frame_breaks(trace: &Trace) -> Vec<u32> {
    let idx = &trace.frames.frame_index;
    (1..idx.len())
        .filter(|&p| idx[p] != idx[p - 1].wrapping_add(1))
        .map(|p| p as u32)
        .collect()
}

/// The note on unregistered ids (`None` when there are none): which ids,
/// how many instances, what the user sees and the likely cause.
pub fn unregistered_note(ids: &[UnregisteredId]) -> Option<String> {
    const LISTED: usize = 8;
    if ids.is_empty() {
        return None;
    }
    let mut list: Vec<String> = ids
        .iter()
        .take(LISTED)
        .map(|u| format!("{}: {} instances", u.id, count(u.instances)))
        .collect();
    if ids.len() > LISTED {
        list.push(format!("and {} more", ids.len() - LISTED));
    }
    let total: u64 = ids.iter().map(|u| u.instances).sum();
    Some(format!(
        "{} scope id{} used by {} instance{} but never registered ({}): shown as scope#<id>. \
         The frames that registered them are not in this recording: puffin registers a scope \
         with the first frame it appears in, and a capture that keeps only some frames \
         (puffin's FrameView keeps the recent and the slowest) can leave that frame out.",
        ids.len(),
        if ids.len() == 1 { "" } else { "s" },
        count(total),
        if total == 1 { "" } else { "s" },
        list.join(", ")
    ))
}

/// The line on absent frame indices (`None` when none is absent):
/// `1,142 of frame indices 1-3000; 1,858 not in this recording`.
pub fn absent_note(cov: &FrameCoverage) -> Option<String> {
    (cov.absent > 0).then(|| {
        format!(
            "{} of frame indices {}-{}; {} not in this recording (the capture kept only some \
             frames){}",
            count(cov.kept as u64),
            cov.first,
            cov.last,
            count(cov.absent),
            match cov.restarts {
                0 => String::new(),
                1 => "; the frame index restarted once, counted as two ranges".to_owned(),
                n => format!("; the frame index restarted {n} times, each range counted apart"),
            }
        )
    })
}
