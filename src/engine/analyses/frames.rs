//! `frames` (slowest first) and `threads` (per-thread totals of one frame).

use super::common::*;
use crate::engine::model::{FrameId, Trace};
use serde::Serialize;
use std::cmp::Reverse;

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct FrameRow {
    pub frame_index: u64,
    /// The frame's start (its metadata's range).
    pub start_ns: i64,
    pub duration_ns: i64,
    pub num_scopes: u64,
}

/// Frames, slowest first, ties in file order; at most `top`.
pub fn frames(trace: &Trace, top: Option<usize>) -> Vec<FrameRow> {
    let mut ids: Vec<FrameId> = trace.frames.ids().collect();
    ids.sort_by_key(|&f| (Reverse(trace.frames.duration_ns(f)), f.0));
    ids.truncate(top.unwrap_or(usize::MAX));
    ids.into_iter()
        .map(|f| FrameRow {
            frame_index: trace.frames.frame_index[f.idx()],
            start_ns: trace.frames.range_ns[f.idx()].0,
            duration_ns: trace.frames.duration_ns(f),
            num_scopes: trace.frames.num_scopes[f.idx()],
        })
        .collect()
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ThreadRow {
    pub name: String,
    pub num_scopes: u64,
    pub depth: u64,
    pub range_ns: (i64, i64),
    pub span_ns: i64,
}

/// Threads of one frame, in stored order.
pub fn threads(trace: &Trace, frame: FrameId) -> Vec<ThreadRow> {
    trace
        .frames
        .streams(frame)
        .map(|s| {
            let s = s as usize;
            let range = trace.streams.range_ns[s];
            ThreadRow {
                name: trace.thread_name(trace.streams.thread[s]).to_owned(),
                num_scopes: trace.streams.num_scopes[s],
                depth: trace.streams.depth[s],
                range_ns: range,
                span_ns: span_ns(range),
            }
        })
        .collect()
}
