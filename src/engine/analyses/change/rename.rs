//! Renames: a name only in A and a name only in B at the same place (the
//! thread, parent and a neighbour where most of its calls are) with as many
//! calls and a like cost are one scope under a new name, judged as one row.
//! See docs/statistics.md, section "Places and renames". One pass over each
//! side's scopes; the matching is over the gone × new names.

use super::basis::Units;
use super::judge::{Change, Kind, Noise, Sample, judge};
use crate::engine::model::{NO_PARENT, ScopeIdx, Trace};
use rustc_hash::FxHashMap;
use serde::Serialize;

/// Calls per unit may differ by this fraction (of the larger).
pub const CALLS_TOLERANCE: f64 = 0.1;
/// The mean call may differ by this factor at most: further apart, a gone
/// name and a new one at one place are more likely other code than the
/// same code renamed (a 3x costlier scope where a small one was is new
/// work; the same code renamed and 30% slower is a rename).
pub const MAX_COST_RATIO: f64 = 2.0;

/// A neighbour that is the name itself (a name called twice in a row): so
/// that a renamed pair's own names stand for each other.
pub const ITSELF: &str = "(itself)";

/// Where a name's calls mostly are.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct Place {
    pub thread: String,
    pub parent: String,
    /// The sibling just before it and just after it (`""`: none; [`ITSELF`]:
    /// the name itself).
    pub previous: String,
    pub next: String,
}

/// A gone name and a new name at one place.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Rename {
    /// A's name.
    pub from: String,
    /// B's name.
    pub to: String,
    pub place: Place,
    pub calls_per_unit_a: f64,
    pub calls_per_unit_b: f64,
    /// A's calls of `from` against B's calls of `to`.
    pub change: Change,
}

/// Each of `names`' place, calls and total time, one pass.
pub fn places(t: &Trace, names: &[&str]) -> Vec<(Place, u64, i64)> {
    let mut seen: Vec<FxHashMap<Place, u64>> = vec![FxHashMap::default(); names.len()];
    let mut totals = vec![0i64; names.len()];
    let s = &t.scopes;
    for (slot, idx) in super::super::common::calls_of_names(t, names) {
        let i = idx.idx();
        let neighbour = |k: usize| match t.scope_name(ScopeIdx(k as u32)) {
            n if n == names[slot] => ITSELF.to_owned(),
            n => n.to_owned(),
        };
        totals[slot] = totals[slot].saturating_add(s.duration_ns[i]);
        let parent = s.parent[i];
        // The siblings. Pre-order: the scope just before is the parent, or
        // the previous sibling's last descendant (climb to the sibling);
        // the next sibling starts at this one's subtree end.
        let before = {
            let mut j = i.checked_sub(1);
            loop {
                match j {
                    Some(k) if s.stream[k] == s.stream[i] && k as u32 != parent => {
                        if s.parent[k] == parent {
                            break neighbour(k);
                        }
                        j = (s.parent[k] != NO_PARENT).then_some(s.parent[k] as usize);
                    }
                    _ => break String::new(),
                }
            }
        };
        let end = s.subtree_end[i] as usize;
        let after = (end < s.len() && s.parent[end] == parent && s.stream[end] == s.stream[i])
            .then(|| neighbour(end));
        let place = Place {
            thread: t.thread_name(t.scope_thread(idx)).to_owned(),
            parent: if parent == NO_PARENT {
                String::new()
            } else {
                t.scope_name(ScopeIdx(parent)).to_owned()
            },
            previous: before,
            next: after.unwrap_or_default(),
        };
        *seen[slot].entry(place).or_insert(0) += 1;
    }
    seen.into_iter()
        .zip(totals)
        .map(|(m, total)| {
            let c = m.values().sum();
            // The most frequent place (ties: the least, for determinism).
            let place = m
                .into_iter()
                .max_by(|(p, x), (q, y)| x.cmp(y).then_with(|| q.cmp(p)))
                .map(|(p, _)| p)
                .unwrap_or_default();
            (place, c, total)
        })
        .collect()
}

/// Whether two places are one (see the module doc), the renamed pair's
/// own names standing for each other among the neighbours.
fn same_place(pa: &Place, pb: &Place) -> bool {
    pa.thread == pb.thread
        && pa.parent == pb.parent
        && (pa.previous == pb.previous || pa.next == pb.next)
}

/// The renames among the names `names` judges gone (only in A) and new
/// (only in B), sorted by A's name, each judged with `noise` on `units`'
/// basis.
pub fn renames_in(
    a: &Trace,
    b: &Trace,
    names: &super::compare::Joined,
    units: (&Units, &Units),
    noise: &Noise,
) -> Vec<Rename> {
    // By name: a table of (name, data) pairs has a name in many rows; the
    // name is gone (new) when each of its rows is.
    let mut by_name: FxHashMap<&str, (bool, bool)> = Default::default();
    for &p in names.pairs() {
        let e = by_name.entry(names.name(p)).or_insert((true, true));
        let k = names.kind(p);
        e.0 &= k == Kind::Gone;
        e.1 &= k == Kind::New;
    }
    let of = |new: bool| -> Vec<&str> {
        let mut v: Vec<&str> = by_name
            .iter()
            .filter(|(_, gn)| if new { gn.1 } else { gn.0 })
            .map(|(&name, _)| name)
            .collect();
        v.sort_unstable();
        v
    };
    let (gone, new) = (of(false), of(true));
    if gone.is_empty() || new.is_empty() {
        return Vec::new();
    }
    let (pa, pb) = (places(a, &gone), places(b, &new));
    let (ua, ub) = (units.0.count.max(1) as f64, units.1.count.max(1) as f64);
    let matches = |i: usize, j: usize| {
        let (ra, rb) = (pa[i].1 as f64 / ua, pb[j].1 as f64 / ub);
        same_place(&pa[i].0, &pb[j].0)
            && pa[i].1 > 0
            && pb[j].1 > 0
            && (ra - rb).abs() <= CALLS_TOLERANCE * ra.max(rb)
            && {
                let (ca, cb) = (
                    pa[i].2 as f64 / pa[i].1 as f64,
                    pb[j].2 as f64 / pb[j].1 as f64,
                );
                ca.max(cb) <= MAX_COST_RATIO * ca.min(cb).max(1.0)
            }
    };
    let mut out = Vec::new();
    for i in 0..gone.len() {
        let cands: Vec<usize> = (0..new.len()).filter(|&j| matches(i, j)).collect();
        let [j] = cands[..] else { continue };
        // The only one the other way too.
        if (0..gone.len()).filter(|&k| matches(k, j)).count() != 1 {
            continue;
        }
        let sa = sample_of(a, gone[i], units.0);
        let sb = sample_of(b, new[j], units.1);
        out.push(Rename {
            from: gone[i].to_owned(),
            to: new[j].to_owned(),
            place: pa[i].0.clone(),
            calls_per_unit_a: pa[i].1 as f64 / ua,
            calls_per_unit_b: pb[j].1 as f64 / ub,
            change: judge(Some(&sa), Some(&sb), noise),
        });
    }
    out.sort_by(|x, y| x.from.cmp(&y.from));
    out
}

/// The calls of `name` in `t` as one row's sample on `units`.
fn sample_of(t: &Trace, name: &str, units: &Units) -> Sample {
    let defs = super::super::common::def_slots(t, &[name]);
    let calls = (0..t.scopes.len()).filter(|&i| defs[t.scopes.def[i].idx()] == 0);
    let unit = |i: usize| units.of_scope(t, ScopeIdx(i as u32));
    Sample::of_calls(calls.map(|i| (unit(i), t.scopes.duration_ns[i])), units)
}
