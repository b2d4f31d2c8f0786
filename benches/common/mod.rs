//! Shared by the benchmarks.

use std::time::{Duration, Instant};

/// Runs `f` `runs` times; the fastest time and the last result.
pub fn best_of<T>(runs: usize, mut f: impl FnMut() -> T) -> (Duration, T) {
    let mut best = Duration::MAX;
    let mut last = None;
    for _ in 0..runs {
        let t = Instant::now();
        let out = f();
        best = best.min(t.elapsed());
        last = Some(out);
    }
    (best, last.expect("runs > 0"))
}
