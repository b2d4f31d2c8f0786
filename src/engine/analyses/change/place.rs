//! Where a changed name changed: its calls split by call site (caller and
//! thread), each site a row, the sites of one name a family. See
//! docs/statistics.md, section "Places and renames". Placed at a caller,
//! it descends (that caller's own callers, [`MAX_DEPTH`] at most) while one
//! part holds the change and the others held. One pass over each side's
//! scopes for every name asked.

use super::super::common::largest_first;
use super::basis::{Basis, Units};
use super::judge::{Change, Kind, Noise, Sample, decide_family, estimate};
use crate::engine::model::{NO_PARENT, StrId, Trace};
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
    /// With `at`: the call path the change was placed on, outermost first
    /// (its last name is `at`'s caller), as deep as one part held it.
    pub path: Vec<String>,
}

/// A site at some depth: the thread and the caller chain, nearest caller
/// first (`""` for the top level).
type Key = (String, Vec<String>);

/// Callers read above a call, at most (the descent's depth).
pub const MAX_DEPTH: usize = 4;

/// One call: its thread, its callers' names (nearest first, `MAX_DEPTH` at
/// most; `""` past the top level), its unit and duration.
#[derive(Clone, Copy, Debug)]
struct Call {
    /// Into the side's [`Keys`].
    key: u32,
    unit: u32,
    duration_ns: i64,
}

/// A side's distinct (thread, caller chain)s, made once each.
type Keys = Vec<Key>;

/// Per name: its calls with their caller chains. One pass over the scopes;
/// strings are made once per distinct (thread, chain).
fn calls_of(t: &Trace, units: &Units, names: &[&str]) -> (Vec<Vec<Call>>, Keys) {
    let mut ids: FxHashMap<(u32, [u32; MAX_DEPTH]), u32> = FxHashMap::default();
    let mut keys: Keys = Vec::new();
    let mut out: Vec<Vec<Call>> = vec![Vec::new(); names.len()];
    let s = &t.scopes;
    for (slot, idx) in super::super::common::calls_of_names(t, names) {
        let (i, parent) = (idx.idx(), s.parent[idx.idx()]);
        // The callers' name ids, nearest first (0, `""`, past the top).
        let mut chain = [0u32; MAX_DEPTH];
        let mut p = parent;
        for c in chain.iter_mut() {
            if p == NO_PARENT {
                break;
            }
            *c = t.defs.name[s.def[p as usize].idx()].0;
            p = s.parent[p as usize];
        }
        let thread = t.threads.name[t.scope_thread(idx).idx()].0;
        let key = *ids.entry((thread, chain)).or_insert_with(|| {
            keys.push((
                t.str(StrId(thread)).to_owned(),
                chain.iter().map(|&c| t.str(StrId(c)).to_owned()).collect(),
            ));
            (keys.len() - 1) as u32
        });
        out[slot].push(Call {
            key,
            unit: units.of_scope(t, idx),
            duration_ns: s.duration_ns[i],
        });
    }
    (out, keys)
}

fn sample(calls: &[&Call], units: &Units) -> Option<Sample> {
    let of = |c: &&Call| (c.unit, c.duration_ns);
    (!calls.is_empty()).then(|| Sample::of_calls(calls.iter().map(of), units))
}

/// The sites of `a`'s and `b`'s calls at `depth` callers, judged as one
/// family, largest |Δ| first, and the one that holds the change (see the
/// module doc).
fn sites_at(
    (a, b): (&[&Call], &[&Call]),
    (ka, kb): (&Keys, &Keys),
    depth: usize,
    units: (&Units, &Units),
    noise: &Noise,
) -> (Vec<Site>, Vec<Key>, Option<usize>, bool) {
    let [mut ga, mut gb]: [FxHashMap<Key, Vec<&Call>>; 2] = Default::default();
    for (calls, keys, groups) in [(a, ka, &mut ga), (b, kb, &mut gb)] {
        // Each distinct key's prefix made once.
        let mut prefix: FxHashMap<u32, Key> = FxHashMap::default();
        for &c in calls {
            let k = prefix.entry(c.key).or_insert_with(|| {
                let full = &keys[c.key as usize];
                (full.0.clone(), full.1[..depth].to_vec())
            });
            groups.entry(k.clone()).or_default().push(c);
        }
    }
    let keys: std::collections::BTreeSet<Key> = ga.keys().chain(gb.keys()).cloned().collect();
    let (ua, ub) = (units.0.count.max(1) as f64, units.1.count.max(1) as f64);
    let empty: Vec<&Call> = Vec::new();
    let mut sites: Vec<(Site, Key)> = keys
        .into_iter()
        .map(|k| {
            let (ca, cb) = (ga.get(&k).unwrap_or(&empty), gb.get(&k).unwrap_or(&empty));
            let per_call = |c: &[&Call]| {
                c.iter().map(|c| c.duration_ns as f64).sum::<f64>() / c.len().max(1) as f64
            };
            let (sa, sb) = (sample(ca, units.0), sample(cb, units.1));
            (
                Site {
                    caller: k.1.first().cloned().unwrap_or_default(),
                    thread: k.0.clone(),
                    calls_per_unit_a: ca.len() as f64 / ua,
                    calls_per_unit_b: cb.len() as f64 / ub,
                    per_call_a_ns: per_call(ca),
                    per_call_b_ns: per_call(cb),
                    change: estimate(sa.as_ref(), sb.as_ref(), noise),
                },
                k,
            )
        })
        .collect();
    decide_family(sites.iter_mut().map(|s| &mut s.0.change), noise.alpha);
    largest_first(&mut sites, |s| (s.0.change.beyond_drift_ns(), &s.1));
    let (sites, keys): (Vec<Site>, Vec<Key>) = sites.into_iter().unzip();
    let total: f64 = sites.iter().map(|s| s.change.beyond_drift_ns()).sum();
    let changed = sites.iter().filter(|s| s.change.kind.is_change()).count();
    let at = sites.iter().position(|s| {
        let d = s.change.beyond_drift_ns();
        s.change.kind.is_change() && d * total > 0.0 && d.abs() > 0.5 * total.abs()
    });
    // Placed only where the others held: the same change at every site is
    // the name's, not one site's (and one site is no split).
    let at = at.filter(|_| changed == 1 && sites.len() > 1);
    let everywhere =
        sites.len() > 1 && at.is_none() && sites.iter().all(|s| s.change.kind.is_change());
    (sites, keys, at, everywhere)
}

/// Each of `names`' call sites in A and B, judged, and where it changed
/// (`None` for a name with no call in either). Placed at a caller, it
/// descends: that caller's calls split by their own caller, and so on
/// ([`MAX_DEPTH`] callers at most), while one part holds the change and
/// the others held; `path` is the deepest such chain, outermost first.
pub fn place(
    a: &Trace,
    b: &Trace,
    names: &[&str],
    units: (&Units, &Units),
    noise: &Noise,
) -> Vec<Option<Placed>> {
    let ((ca, ka), (cb, kb)) = (calls_of(a, units.0, names), calls_of(b, units.1, names));
    let keys = (&ka, &kb);
    ca.into_iter()
        .zip(cb)
        .map(|(ca, cb)| {
            if ca.is_empty() && cb.is_empty() {
                return None;
            }
            let (ra, rb): (Vec<&Call>, Vec<&Call>) = (ca.iter().collect(), cb.iter().collect());
            let (sites, found, at, everywhere) = sites_at((&ra, &rb), keys, 1, units, noise);
            let mut path = at.map_or_else(Vec::new, |k| {
                let mut key = found[k].clone();
                for depth in 2..=MAX_DEPTH {
                    if key.1.last().is_some_and(String::is_empty) {
                        break; // the top level: nothing above
                    }
                    // The calls at the placed site, split one caller further.
                    fn under<'c>(v: &[&'c Call], keys: &Keys, key: &Key) -> Vec<&'c Call> {
                        v.iter()
                            .copied()
                            .filter(|c| {
                                let full = &keys[c.key as usize];
                                full.0 == key.0 && full.1[..key.1.len()] == key.1[..]
                            })
                            .collect()
                    }
                    let (sa, sb) = (under(&ra, &ka, &key), under(&rb, &kb, &key));
                    let (_, deeper, at, _) = sites_at((&sa, &sb), keys, depth, units, noise);
                    let Some(j) = at else { break };
                    key = deeper[j].clone();
                }
                key.1
            });
            // Outermost first; without the top level's "".
            path.retain(|c| !c.is_empty());
            path.reverse();
            Some(Placed {
                sites,
                at,
                everywhere,
                path,
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
        let caller = if self.path.len() > 1 {
            markdown_code(&self.path.join(" > "))
        } else {
            name(at)
        };
        let kind = match at.change.kind {
            Kind::New => "new",
            k => k.words(),
        };
        let mut s = format!(
            "{kind} where {caller} calls it on {} ({} → {} ms per call)",
            crate::engine::write::escape::markdown(&at.thread),
            ms_f(at.per_call_a_ns),
            ms_f(at.per_call_b_ns)
        );
        let others = (self.sites.iter().enumerate())
            .filter(|(k, _)| Some(*k) != self.at)
            .map(|(_, s)| s);
        let say = |v: &[&Site]| {
            v.iter()
                .map(|s| {
                    format!(
                        "{} ({:.2} calls per {})",
                        name(s),
                        s.calls_per_unit_b.max(s.calls_per_unit_a),
                        basis.unit()
                    )
                })
                .collect::<Vec<_>>()
                .join(", ")
        };
        let (same, moved): (Vec<&Site>, Vec<&Site>) =
            others.partition(|s| !s.change.kind.is_change());
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
