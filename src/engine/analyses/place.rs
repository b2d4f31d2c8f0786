//! Where a changed name changed: its calls split by call site (the caller's
//! name and the thread), each site judged by the model of change as a row
//! of its own, the sites of one name as one family.
//!
//! The name is **placed** at a site when that site holds more than half of
//! the name's effect (the same sign), its own verdict is a change and no
//! other site's is: "slower where `ui::tooltip` calls it on main (0.500 →
//! 2.490 ms per call); its other call site unchanged: `ui::label`". When
//! every site changed, the change is "at every call site"; when some did,
//! they are named. A name with one call site has its one site listed (no
//! words). One pass over each side's scopes for every name asked.

use super::basis::{Basis, Units};
use super::judge::{Change, Kind, Noise, Sample, decide_family, estimate, samples};
use crate::engine::model::{NO_PARENT, ScopeIdx, Trace};
use crate::engine::write::escape::markdown_code;
use rustc_hash::FxHashMap;
use serde::Serialize;

/// One call site of a name: the caller (`""` at the top level) on a thread.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Site {
    pub caller: String,
    pub thread: String,
    pub calls_per_unit_a: f64,
    pub calls_per_unit_b: f64,
    /// The mean call (0 on a side without the site).
    pub per_call_a_ns: f64,
    pub per_call_b_ns: f64,
    pub change: Change,
}

/// A name's call sites and where it changed.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Placed {
    /// Largest |Δ per unit| first (ties: caller, thread).
    pub sites: Vec<Site>,
    /// The site holding more than half of the name's effect, changed.
    pub at: Option<usize>,
    /// Every site changed and none holds most of it.
    pub everywhere: bool,
}

type Key = (String, String);

/// Per name: its calls grouped by site, as `(site, unit, duration)`.
fn calls_by_site(t: &Trace, units: &Units, names: &[&str]) -> Vec<FxHashMap<Key, Vec<(u32, i64)>>> {
    const NONE: u32 = u32::MAX;
    let slot_of: FxHashMap<&str, u32> = names
        .iter()
        .enumerate()
        .map(|(k, &n)| (n, k as u32))
        .collect();
    let def_slot: Vec<u32> = (0..t.defs.len())
        .map(|d| slot_of.get(t.str(t.defs.name[d])).copied().unwrap_or(NONE))
        .collect();
    let mut out: Vec<FxHashMap<Key, Vec<(u32, i64)>>> = vec![FxHashMap::default(); names.len()];
    let s = &t.scopes;
    for i in 0..s.len() {
        let slot = def_slot[s.def[i].0 as usize];
        if slot == NONE {
            continue;
        }
        let parent = s.parent[i];
        // A call directly inside a call of the same name counts once.
        if parent != NO_PARENT && def_slot[s.def[parent as usize].0 as usize] == slot {
            continue;
        }
        let idx = ScopeIdx(i as u32);
        let caller = if parent == NO_PARENT {
            String::new()
        } else {
            t.scope_name(ScopeIdx(parent)).to_owned()
        };
        let thread = t.thread_name(t.scope_thread(idx)).to_owned();
        out[slot as usize]
            .entry((caller, thread))
            .or_default()
            .push((units.of_scope(t, idx), s.duration_ns[i]));
    }
    out
}

fn sample(calls: Option<&Vec<(u32, i64)>>, units: &Units) -> Option<Sample> {
    let calls = calls?;
    let mut v: Vec<(u32, u32, i64)> = calls.iter().map(|&(u, d)| (0, u, d)).collect();
    v.sort_unstable();
    samples(&v, 1, units).pop()
}

/// Each of `names`' call sites in A and B, judged, and where it changed
/// (`None` for a name with no call in either).
pub fn place(
    a: &Trace,
    b: &Trace,
    names: &[&str],
    units: (&Units, &Units),
    noise: &Noise,
) -> Vec<Option<Placed>> {
    let (ca, cb) = (
        calls_by_site(a, units.0, names),
        calls_by_site(b, units.1, names),
    );
    let (ua, ub) = (units.0.count.max(1) as f64, units.1.count.max(1) as f64);
    ca.into_iter()
        .zip(cb)
        .map(|(ma, mb)| {
            let mut keys: Vec<&Key> = ma.keys().chain(mb.keys()).collect();
            keys.sort();
            keys.dedup();
            if keys.is_empty() {
                return None;
            }
            let mut sites: Vec<Site> = keys
                .iter()
                .map(|&k| {
                    let (sa, sb) = (sample(ma.get(k), units.0), sample(mb.get(k), units.1));
                    let per_call = |c: Option<&Vec<(u32, i64)>>| {
                        c.map_or(0.0, |c| {
                            c.iter().map(|&(_, d)| d as f64).sum::<f64>() / c.len().max(1) as f64
                        })
                    };
                    Site {
                        caller: k.0.clone(),
                        thread: k.1.clone(),
                        calls_per_unit_a: ma.get(k).map_or(0, Vec::len) as f64 / ua,
                        calls_per_unit_b: mb.get(k).map_or(0, Vec::len) as f64 / ub,
                        per_call_a_ns: per_call(ma.get(k)),
                        per_call_b_ns: per_call(mb.get(k)),
                        change: estimate(sa.as_ref(), sb.as_ref(), noise),
                    }
                })
                .collect();
            decide_family(sites.iter_mut().map(|s| &mut s.change), noise.alpha);
            sites.sort_by(|x, y| {
                y.change
                    .beyond_drift_ns()
                    .abs()
                    .total_cmp(&x.change.beyond_drift_ns().abs())
                    .then_with(|| (&x.caller, &x.thread).cmp(&(&y.caller, &y.thread)))
            });
            let total: f64 = sites.iter().map(|s| s.change.beyond_drift_ns()).sum();
            let changed = sites.iter().filter(|s| s.change.kind.is_change()).count();
            let at = sites.iter().position(|s| {
                let d = s.change.beyond_drift_ns();
                s.change.kind.is_change() && d * total > 0.0 && d.abs() > 0.5 * total.abs()
            });
            // Placed only where the others held: the same change at every
            // site is the name's, not one site's (and one site is no split).
            let at = at.filter(|_| changed == 1 && sites.len() > 1);
            let everywhere =
                sites.len() > 1 && at.is_none() && sites.iter().all(|s| s.change.kind.is_change());
            Some(Placed {
                sites,
                at,
                everywhere,
            })
        })
        .collect()
}

impl Placed {
    /// "slower where `ui::tooltip` calls it on main (0.500 → 2.490 ms per
    /// call); its other call site unchanged: `ui::label` (3.00 calls per
    /// frame)"; "at every call site (2)"; `None` when neither.
    pub fn words(&self, basis: Basis) -> Option<String> {
        use crate::units::ms_f;
        if self.everywhere {
            return Some(format!("at every call site ({})", self.sites.len()));
        }
        // One call site: nothing to place (its `sites` say where).
        if self.sites.len() < 2 {
            return None;
        }
        let name = |s: &Site| {
            if s.caller.is_empty() {
                "the top level".to_owned()
            } else {
                markdown_code(&s.caller)
            }
        };
        let Some(at) = self.at else {
            let (moved, held): (Vec<&Site>, Vec<&Site>) =
                self.sites.iter().partition(|s| s.change.kind.is_change());
            if moved.len() < 2 {
                return None;
            }
            let list = |v: &[&Site]| v.iter().map(|s| name(s)).collect::<Vec<_>>().join(", ");
            return Some(format!(
                "changed at {} of {} call sites ({}); not told changed at {}",
                moved.len(),
                self.sites.len(),
                list(&moved),
                list(&held)
            ));
        };
        let at = &self.sites[at];
        let caller = if at.caller.is_empty() {
            "the top level".to_owned()
        } else {
            markdown_code(&at.caller)
        };
        let kind = match at.change.kind {
            Kind::New => "new".to_owned(),
            k => k.words().to_owned(),
        };
        let mut s = format!(
            "{kind} where {caller} calls it on {} ({} → {} ms per call)",
            crate::engine::write::escape::markdown(&at.thread),
            ms_f(at.per_call_a_ns),
            ms_f(at.per_call_b_ns)
        );
        let others: Vec<&Site> = self
            .sites
            .iter()
            .enumerate()
            .filter(|(k, _)| Some(*k) != self.at)
            .map(|(_, s)| s)
            .collect();
        let say = |v: &[&Site]| {
            v.iter()
                .map(|s| {
                    format!(
                        "{} ({:.2} calls per {})",
                        if s.caller.is_empty() {
                            "the top level".to_owned()
                        } else {
                            markdown_code(&s.caller)
                        },
                        s.calls_per_unit_b.max(s.calls_per_unit_a),
                        basis.unit()
                    )
                })
                .collect::<Vec<_>>()
                .join(", ")
        };
        let (same, moved): (Vec<&Site>, Vec<&Site>) =
            others.into_iter().partition(|s| !s.change.kind.is_change());
        if !same.is_empty() {
            s += &format!(
                "; its other call site{} unchanged or not told apart: {}",
                if same.len() == 1 { "" } else { "s" },
                say(&same)
            );
        }
        if !moved.is_empty() {
            s += &format!("; also changed: {}", say(&moved));
        }
        Some(s)
    }
}
