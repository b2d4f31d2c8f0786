//! Whether two runs are of the same app: the names that hold a run's time
//! (its *busy* names) should be called in the other run too. A pair whose
//! busy names are mostly called on one side only compares unlike work, and
//! its judgement says nothing about a change of code.
//!
//! A run's busy names are the names with the most self time that together
//! hold [`BUSY_SHARE`] of it (at most [`MAX_BUSY`]): what the run spends its
//! time in, not its many small names. Self time, so that a wrapper and the
//! name it wraps are not counted twice.

use crate::engine::model::Trace;
use std::collections::{BTreeMap, BTreeSet};

/// The share of a run's self time its busy names hold.
pub const BUSY_SHARE: f64 = 0.9;
/// The most busy names a run has.
pub const MAX_BUSY: usize = 40;
/// Below this many busy names (the two sides together) nothing is judged.
pub const MIN_BUSY: usize = 4;

/// Self time by name, per run of `t` (index: run), sorted by name: every
/// name called in the run, 0 for one with no time of its own.
pub fn self_by_run(t: &Trace) -> Vec<BTreeMap<String, u64>> {
    let runs = t.run_count();
    let defs = t.defs.len();
    // A definition's self time in a run (`None`: not called there).
    let mut by_def = vec![None::<u64>; runs * defs];
    let s = &t.scopes;
    for i in 0..s.def.len() {
        let frame = t.streams.frame[s.stream[i].idx()];
        let slot = t.run_of_frame(frame) as usize * defs + s.def[i].idx();
        *by_def[slot].get_or_insert(0) += s.self_ns[i].max(0) as u64;
    }
    (0..runs)
        .map(|run| {
            let mut m = BTreeMap::new();
            for d in 0..defs {
                if let Some(ns) = by_def[run * defs + d] {
                    *m.entry(t.str(t.defs.name[d]).to_owned()).or_insert(0) += ns;
                }
            }
            m
        })
        .collect()
}

/// The busy names of a run's self times: most first (ties by name).
pub fn busy(selfs: &BTreeMap<String, u64>) -> Vec<String> {
    let total: u64 = selfs.values().sum();
    let mut v: Vec<(&String, u64)> = selfs.iter().map(|(n, &ns)| (n, ns)).collect();
    v.sort_by(|x, y| y.1.cmp(&x.1).then(x.0.cmp(y.0)));
    let mut held = 0u64;
    let mut out = Vec::new();
    for (n, ns) in v {
        if ns == 0 || out.len() >= MAX_BUSY || held as f64 >= BUSY_SHARE * total as f64 {
            break;
        }
        held += ns;
        out.push(n.clone());
    }
    out
}

/// How much two sides' busy names have in common.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Kinship {
    /// The busy names of either side (sorted).
    pub busy: Vec<String>,
    /// Those called on both sides (sorted).
    pub common: Vec<String>,
}

impl Kinship {
    /// Fewer than half the busy names called on both sides, of enough to
    /// judge: the sides look like runs of different apps.
    pub fn unlike(&self) -> bool {
        self.busy.len() >= MIN_BUSY && self.common.len() * 2 < self.busy.len()
    }
}

/// The kinship of side `x` (self times per name, several runs merged) and
/// side `y`; `same` holds name pairs taken as one (renames: from, to).
pub fn kinship(
    x: &[&BTreeMap<String, u64>],
    y: &[&BTreeMap<String, u64>],
    same: &[(String, String)],
) -> Kinship {
    let merge = |side: &[&BTreeMap<String, u64>]| {
        let mut m = BTreeMap::<String, u64>::new();
        for (n, &ns) in side.iter().flat_map(|run| run.iter()) {
            *m.entry(n.clone()).or_insert(0) += ns;
        }
        m
    };
    // (A side's merged names: every name called on it.)
    let (mx, my) = (merge(x), merge(y));
    let busy: BTreeSet<String> = busy(&mx).into_iter().chain(busy(&my)).collect();
    let common = busy
        .iter()
        .filter(|n| {
            // Called on a side as `n` or as a name it is taken as (renames
            // either way).
            let called = |m: &BTreeMap<String, u64>| {
                m.contains_key(*n)
                    || same.iter().any(|(from, to)| {
                        (from == *n && m.contains_key(to)) || (to == *n && m.contains_key(from))
                    })
            };
            called(&mx) && called(&my)
        })
        .cloned()
        .collect();
    Kinship {
        busy: busy.into_iter().collect(),
        common,
    }
}

/// The runs of `t` (of several) unlike the side's other runs, with their
/// kinship to them: index of the run, kinship. Sorted by run.
pub fn unlike_runs(t: &Trace) -> Vec<(usize, Kinship)> {
    if t.run_count() < 2 {
        return Vec::new();
    }
    let runs = self_by_run(t);
    (0..runs.len())
        .filter_map(|k| {
            let others: Vec<&BTreeMap<String, u64>> =
                runs[..k].iter().chain(&runs[k + 1..]).collect();
            let kin = kinship(&[&runs[k]], &others, &[]);
            // Judged on the run's own busy names: a run of another app has
            // few of them called in the others.
            let own: BTreeSet<String> = busy(&runs[k]).into_iter().collect();
            let kin = Kinship {
                common: kin.common.into_iter().filter(|n| own.contains(n)).collect(),
                busy: own.into_iter().collect(),
            };
            kin.unlike().then_some((k, kin))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(v: &[(&str, u64)]) -> BTreeMap<String, u64> {
        v.iter().map(|&(n, ns)| (n.to_owned(), ns)).collect()
    }

    #[test]
    fn busy_names_hold_most_of_the_time_and_no_more() {
        let x = m(&[("a", 50), ("b", 30), ("c", 15), ("d", 4), ("e", 1)]);
        // 50 + 30 = 80 < 90, + 15 = 95: a, b, c.
        assert_eq!(busy(&x), ["a", "b", "c"]);
    }

    #[test]
    fn unlike_when_fewer_than_half_are_called_on_both_sides() {
        let x = m(&[("a", 40), ("b", 30), ("z", 20), ("c", 10)]);
        let y = m(&[("p", 40), ("q", 30), ("z", 20), ("r", 10)]);
        let k = kinship(&[&x], &[&y], &[]);
        // a, b, z hold 90% of x; p, q, z of y.
        assert_eq!(k.busy, ["a", "b", "p", "q", "z"]);
        assert_eq!(k.common, ["z"]);
        assert!(k.unlike());
        // The same names, other times: alike.
        let y2 = m(&[("a", 10), ("b", 50), ("c", 20), ("z", 20)]);
        assert!(!kinship(&[&x], &[&y2], &[]).unlike());
        // Renames count as common.
        let same: Vec<(String, String)> = [("a", "p"), ("b", "q")]
            .iter()
            .map(|&(f, t)| (f.to_owned(), t.to_owned()))
            .collect();
        assert!(!kinship(&[&x], &[&y], &same).unlike());
    }
}
