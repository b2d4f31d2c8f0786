//! The second planted pair, a job-system loop (tests/common/planted.rs,
//! `jobs_loop`): what it plants, read back through the CLI. The causes'
//! judgements on it (gaps across A and B, waits traced to what they wait
//! for, the median accounted, per frame everywhere) are tested beside this.

mod common;

use common::planted::{self, JOBS_AFTER, JOBS_BEFORE};
use common::{code, json_in, stderr};

#[test]
fn jobs_pair_records_what_it_plants() {
    let dir = planted::jobs_pair(1, 2);
    for (f, plan) in [("a.puffin", JOBS_BEFORE), ("b.puffin", JOBS_AFTER)] {
        let (rc, frames) = json_in(dir.path(), &["frames", f, "--json"]);
        assert_eq!(rc, 0, "{f}");
        let n = frames["frames"].as_array().map(Vec::len).unwrap_or(0);
        assert_eq!(n as usize, plan.frames, "{f}: {frames:#}");
        let out = common::run_in(dir.path(), &["calls", f, "job::cloth", "--json"]);
        assert_eq!(code(&out), 0, "{}", stderr(&out));
    }
}
