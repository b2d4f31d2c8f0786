//! `calls`: every call of a name in time order, with a summary.

use super::common::*;
use crate::engine::model::Trace;
use serde::Serialize;

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CallsSummary {
    pub count: u64,
    pub total_ns: i64,
    pub min_ns: i64,
    /// Lower median.
    pub median_ns: i64,
    pub mean_ns: f64,
    /// Nearest rank.
    pub p95_ns: i64,
    pub max_ns: i64,
    /// max / total (0 when the total is 0).
    pub max_share: f64,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct CallRow {
    pub frame_index: u64,
    pub thread: String,
    pub start_ns: i64,
    pub duration_ns: i64,
    pub data: String,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CallsReport {
    pub summary: CallsSummary,
    pub calls: Vec<CallRow>,
}

/// Every instance named (or with data) `name`, in time order (ties in file
/// order), with a summary. `None` when none matches.
pub fn calls(trace: &Trace, name: &str) -> Option<CallsReport> {
    let mut hits = named_instances(trace, name);
    if hits.is_empty() {
        return None;
    }
    let s = &trace.scopes;
    hits.sort_by_key(|&i| (s.start_ns[i.idx()], i.0));
    let mut durations: Vec<i64> = hits.iter().map(|&i| s.duration_ns[i.idx()]).collect();
    durations.sort_unstable();
    let n = durations.len();
    let total: i64 = durations.iter().fold(0i64, |a, &d| a.saturating_add(d));
    let max = durations[n - 1];
    let p95_rank = (95 * n).div_ceil(100).max(1);
    let summary = CallsSummary {
        count: n as u64,
        total_ns: total,
        min_ns: durations[0],
        median_ns: durations[(n - 1) / 2],
        mean_ns: total as f64 / n as f64,
        p95_ns: durations[p95_rank - 1],
        max_ns: max,
        max_share: if total == 0 {
            0.0
        } else {
            max as f64 / total as f64
        },
    };
    let calls = hits
        .into_iter()
        .map(|i| CallRow {
            frame_index: trace.frames.frame_index[trace.scope_frame(i).idx()],
            thread: trace.thread_name(trace.scope_thread(i)).to_owned(),
            start_ns: s.start_ns[i.idx()],
            duration_ns: s.duration_ns[i.idx()],
            data: trace.scope_data(i).to_owned(),
        })
        .collect();
    Some(CallsReport { summary, calls })
}
