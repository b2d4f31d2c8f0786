//! The second planted pair, a job-system loop (tests/common/planted.rs,
//! `jobs_loop`): what it plants, read back through the CLI. The causes'
//! judgements on it (gaps across A and B, waits traced to what they wait
//! for, the median accounted, per frame everywhere) are tested beside this.

mod common;

use common::json_in;
use common::planted::{self, JOBS_AFTER, JOBS_BEFORE};

#[test]
fn jobs_pair_records_what_it_plants() {
    let dir = planted::jobs_pair(1, 2);
    for (f, plan) in [("a.puffin", JOBS_BEFORE), ("b.puffin", JOBS_AFTER)] {
        let (rc, summary) = json_in(dir.path(), &["summary", f, "--json"]);
        assert_eq!(rc, 0, "{f}");
        assert_eq!(summary["frames"], plan.frames as u64, "{f}: {summary:#}");
        assert_eq!(summary["threads"], 4, "{f}: main and pool-0..2");
        // Each worker runs one job a frame, `plan.cloth_ms` long (±1%).
        let (rc, calls) = json_in(dir.path(), &["calls", f, "job::cloth", "--json"]);
        assert_eq!(rc, 0, "{f}");
        assert_eq!(
            calls["summary"]["count"],
            3 * plan.frames as u64,
            "{f}: {calls:#}"
        );
        let median_ms = calls["summary"]["median_ns"].as_f64().unwrap() / 1e6;
        assert!(
            (median_ms / plan.cloth_ms - 1.0).abs() < 0.01,
            "{f}: {median_ms}"
        );
    }
}
