//! Restructured code: scopes that appear or vanish under a scope `P` both
//! recordings run at one place, judged by what entered at `P` (its own
//! time plus its unmatched children's, per unit). See docs/statistics.md,
//! section "What time conserves" (the first identity). A name is held by
//! places when every node of it lies under an unmatched child of one.

use super::super::diff::{DiffTree, joined};
use super::super::transform::{Stack, transformed_with_nodes};
use super::super::tree::{MAX_REPORT_LEVELS, MergedTree, NodeId};
use super::basis::Units;
use super::judge::{Change, Noise, Sample, judge_rows};
use crate::engine::model::{NO_PARENT, ScopeIdx, Trace};
use crate::engine::write::escape;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};

/// The most places judged, the costliest unmatched children first.
pub const MAX_PLACES: usize = 256;

const NONE: u32 = u32::MAX;

/// A scope of both recordings with children that only one side has.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Place {
    pub thread: String,
    /// Names from the thread's top level down to `parent`, " > " between
    /// (as a gap's `path`).
    pub path: String,
    pub parent: String,
    /// Its children only B has, and only A has (costliest first, then
    /// name).
    pub new: Vec<String>,
    pub gone: Vec<String>,
    /// B's time per unit in the new children; A's in the gone ones.
    pub new_per_frame_ns: f64,
    pub gone_per_frame_ns: f64,
    /// Children whose names both sides call, here in B only (moved in) or
    /// in A only (moved out): rows of their own, taken out of the place.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub moved_in: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub moved_out: Vec<String>,
    /// What entered at the place per unit: A's (times the drift factor:
    /// what B was expected to spend) and B's.
    pub expected_per_frame_ns: f64,
    pub b_per_frame_ns: f64,
    /// B − A of `parent`'s own time per unit here.
    pub parent_self_delta_per_frame_ns: f64,
    /// `parent`'s own time plus its unmatched children's, A against B:
    /// what entered here.
    pub change: Change,
    /// Judged unchanged (its interval inside the band), or not told apart
    /// while its interval lies short of what its new scopes hold (net of
    /// the gone): restructured, no cost. Otherwise its new and gone scopes
    /// stay new and gone, and the gate weighs the place's interval.
    pub restructured: bool,
    /// In a sentence (Markdown).
    pub words: String,
}

/// The places of a comparison, and which new and gone names they hold.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Restructures {
    /// Largest |change| first, then thread and path.
    pub places: Vec<Place>,
    /// Names each of whose nodes on its side lies under a place's
    /// unmatched child, with those places (indices into `places`), by name.
    #[serde(skip)]
    held: Vec<(String, Vec<u32>)>,
}

impl Restructures {
    /// The places less those a rename tells whole (every scope that
    /// appears or vanishes there is a renamed name, nothing moved in or
    /// out): the rename is the one row, with no place beside it.
    pub fn without_renamed(mut self, renamed: &[super::rename::Rename]) -> Self {
        let is_renamed = |n: &String| renamed.iter().any(|r| r.from == *n || r.to == *n);
        let told = |p: &Place| {
            !p.new.is_empty() | !p.gone.is_empty()
                && p.new.iter().chain(&p.gone).all(is_renamed)
                && p.moved_in.is_empty()
                && p.moved_out.is_empty()
        };
        let mut index = vec![NONE; self.places.len()];
        let mut kept = 0;
        for (k, p) in self.places.iter().enumerate() {
            if !told(p) {
                index[k] = kept;
                kept += 1;
            }
        }
        if kept as usize == self.places.len() {
            return self;
        }
        let mut k = 0;
        self.places.retain(|_| {
            k += 1;
            index[k - 1] != NONE
        });
        for (_, ks) in &mut self.held {
            ks.retain(|k| index[*k as usize] != NONE);
            for k in ks.iter_mut() {
                *k = index[*k as usize];
            }
        }
        self.held.retain(|(_, ks)| !ks.is_empty());
        self
    }

    /// Whether `name` is the parent of a restructured place.
    pub fn is_restructured_parent(&self, name: &str) -> bool {
        self.places
            .iter()
            .any(|p| p.restructured && p.parent == name)
    }

    /// The places `name` (a new or gone name) is held by, if every node of
    /// it is under one.
    fn places_of(&self, name: &str) -> Option<&[u32]> {
        let k = (self.held.binary_search_by(|(n, _)| n.as_str().cmp(name))).ok()?;
        Some(&self.held[k].1)
    }

    /// `name` is held by places, each restructured: no cost of its own.
    pub fn is_restructured(&self, name: &str) -> bool {
        self.places_of(name)
            .is_some_and(|ps| ps.iter().all(|&k| self.places[k as usize].restructured))
    }

    /// `name` is held by places (its cost is theirs).
    pub fn holds(&self, name: &str) -> bool {
        self.places_of(name).is_some()
    }

    /// A place (a restructured one with `restructured_only`) is at `thread`
    /// and `path`: a gap there is its parent's own time.
    pub fn has_place(&self, thread: &str, path: &str, restructured_only: bool) -> bool {
        (self.places.iter())
            .any(|p| (p.restructured || !restructured_only) && p.thread == thread && p.path == path)
    }

    /// The names place `k` holds (by name).
    pub fn held_at(&self, k: u32) -> Vec<&str> {
        self.held
            .iter()
            .filter(|(_, ks)| ks.contains(&k))
            .map(|(n, _)| n.as_str())
            .collect()
    }

    /// The restructured places.
    pub fn restructured(&self) -> impl Iterator<Item = &Place> {
        self.places.iter().filter(|p| p.restructured)
    }

    /// The gate's rows of the places that hold a new or gone name (those
    /// names are no rows of their own): each named after its costliest new
    /// scope (its gone one when none is new), its change what entered at
    /// the place, all of it the place's own (`noise_pct`: the table's).
    pub fn gate_rows(&self, noise_pct: f64) -> Vec<(String, Change, super::judge::Own)> {
        (self.places.iter().enumerate())
            .filter(|&(k, _)| self.held.iter().any(|(_, ks)| ks.contains(&(k as u32))))
            .filter_map(|(_, p)| {
                let name = p.new.first().or(p.gone.first())?.clone();
                let mut change = p.change.clone();
                if change.kind.is_change() {
                    change.kind = if change.delta_per_frame_ns > 0.0 && !p.new.is_empty() {
                        super::judge::Kind::New
                    } else if change.delta_per_frame_ns < 0.0 && !p.gone.is_empty() {
                        super::judge::Kind::Gone
                    } else {
                        change.kind
                    };
                }
                let own = super::judge::Own {
                    beyond_drift_ns: change.beyond_drift_ns(),
                    expected_ns: p.expected_per_frame_ns,
                    noise_pct,
                };
                Some((name, change, own))
            })
            .collect()
    }
}

/// Per side: the merged tree, each instance's node, each node's place
/// (`NONE`: not one), each node whose parent is a place and that both sides
/// have (a matched child), and each node's holding place (under an
/// unmatched child of it).
struct Side<'t> {
    trace: &'t Trace,
    tree: &'t MergedTree,
    node_of: &'t [u32],
    place: Vec<u32>,
    matched: Vec<bool>,
    held: Vec<u32>,
}

impl<'t> Side<'t> {
    /// Marked for `candidates` (`of`: a diff node's node here; `holds`: a
    /// candidate's unmatched children here), each of which holds its
    /// subtree (nodes are stored parents first).
    fn new(
        (trace, (tree, node_of)): (&'t Trace, Built<'t>),
        of: &[Option<NodeId>],
        candidates: &[Candidate],
        holds: fn(&Candidate) -> &[u32],
    ) -> Self {
        let n = tree.len();
        let mut side = Self {
            trace,
            tree,
            node_of,
            place: vec![NONE; n],
            matched: vec![false; n],
            held: vec![NONE; n],
        };
        let node = |m: u32| of[m as usize].map(|x| x.idx());
        for (k, c) in (0..).zip(candidates) {
            if let Some(x) = node(c.node) {
                side.place[x] = k;
            }
            for x in c.matched.iter().filter_map(|&m| node(m)) {
                side.matched[x] = true;
            }
            for x in holds(c).iter().filter_map(|&m| node(m)) {
                side.held[x] = k;
            }
        }
        for m in 0..n {
            let p = tree.parent[m];
            if side.held[m] == NONE && p != NONE {
                side.held[m] = side.held[p as usize];
            }
        }
        side
    }

    /// Each place's value per unit: the place node's instances' durations
    /// less their matched children's.
    fn samples(&self, places: usize, units: &Units) -> Vec<Sample> {
        let mut out = vec![vec![0i64; units.count]; places];
        let s = &self.trace.scopes;
        for (i, &m) in self.node_of.iter().enumerate() {
            if m == NONE {
                continue;
            }
            let m = m as usize;
            let mut add = |at: u32, sign: i64, scope: u32| {
                let u = units.of_scope(self.trace, ScopeIdx(scope)) as usize;
                if let Some(x) = out.get_mut(at as usize).and_then(|v| v.get_mut(u)) {
                    *x = x.saturating_add(sign * s.duration_ns[i]);
                }
            };
            // A place counts its whole time; a matched child (a place too,
            // maybe) leaves its parent's.
            if self.place[m] != NONE {
                add(self.place[m], 1, i as u32);
            }
            if self.matched[m] {
                add(self.place[self.tree.parent[m] as usize], -1, s.parent[i]);
            }
        }
        out.into_iter()
            .map(|v| Sample::per_unit(v, units))
            .collect()
    }
}

/// A scope node of both trees with unmatched children (diff nodes), and
/// their time per unit on their side.
#[derive(Default)]
struct Candidate {
    node: u32,
    new: Vec<u32>,
    gone: Vec<u32>,
    matched: Vec<u32>,
    /// Of `matched`, the children moved in (B only) and out (A only).
    moved: (Vec<u32>, Vec<u32>),
    new_ns: f64,
    gone_ns: f64,
    moved_ns: f64,
}

/// Each side's merged tree (every frame, [`MAX_REPORT_LEVELS`] deep, no
/// transform) and each scope's node in it, when the caller has them.
pub type Built<'t> = (&'t MergedTree, &'t [u32]);

/// The places of `a` against `b` (see the module doc), judged with `noise`
/// (its drift resolved) on the units `units`; on `trees` when given (else
/// built here).
pub fn restructures(
    a: &Trace,
    b: &Trace,
    units: (&Units, &Units),
    noise: &Noise,
    trees: Option<(Built, Built)>,
) -> Restructures {
    // Only a new or gone name is held by a place (a name both sides call
    // is a row of its own): without one there is nothing to judge, and
    // the trees are not built (one pass over the definitions' calls).
    let one_side = one_side_only_names(a, b);
    if one_side.is_empty() && same_callers(a, b) {
        return Restructures::default();
    }
    let (ua, ub) = (units.0.count.max(1) as f64, units.1.count.max(1) as f64);
    let floor_ns = noise.ms * 1e6;
    let built;
    let ((ta, of_a), (tb, of_b)) = match trees {
        Some(trees) => trees,
        None => {
            let side = |t: &Trace| {
                let (frames, stack) = (0..t.frames.len() as u32, Stack::default());
                let (tr, of) =
                    transformed_with_nodes(t, frames, None, MAX_REPORT_LEVELS, &stack, true);
                (tr.tree, of)
            };
            built = (side(a), side(b));
            ((&built.0.0, &built.0.1[..]), (&built.1.0, &built.1.1[..]))
        }
    };
    // Only what could hold a place is joined: under a node below the floor
    // on both sides, nothing can reach it.
    let d = joined(a, b, ta.clone(), tb.clone(), Some((ua, ub, floor_ns)));
    // Candidate places: a scope node of both trees with unmatched children
    // costing at least the band's floor per unit on their side.
    let mut candidates: Vec<Candidate> = Vec::new();
    for n in 0..d.len() as u32 {
        let (Some(_), Some(_)) = (d.a_node[n as usize], d.b_node[n as usize]) else {
            continue;
        };
        if d.parent[n as usize] == NONE {
            continue; // a thread: its own time is idle, not code
        }
        let mut c = Candidate {
            node: n,
            ..Default::default()
        };
        for &k in d.children(n) {
            // A child whose name both sides call is a row of its own
            // wherever it runs: one that moved here (or away) is taken out
            // of the place as a matched child is (code moved is one
            // movement, judged on its name's row).
            let moved = one_side.binary_search(&d.name(k)).is_err();
            match (d.a_node[k as usize], d.b_node[k as usize]) {
                (Some(_), Some(_)) => c.matched.push(k),
                (None, Some(_)) if moved => {
                    c.moved_ns += d.b_total_ns(k) as f64 / ub;
                    c.moved.0.push(k);
                    c.matched.push(k);
                }
                (Some(_), None) if moved => {
                    c.moved_ns += d.a_total_ns(k) as f64 / ua;
                    c.moved.1.push(k);
                    c.matched.push(k);
                }
                (None, Some(_)) => {
                    c.new_ns += d.b_total_ns(k) as f64 / ub;
                    c.new.push(k);
                }
                (Some(_), None) => {
                    c.gone_ns += d.a_total_ns(k) as f64 / ua;
                    c.gone.push(k);
                }
                (None, None) => {}
            }
        }
        let moved = !c.moved.0.is_empty() || !c.moved.1.is_empty();
        if c.new_ns.max(c.gone_ns).max(c.moved_ns) >= floor_ns
            && (!c.new.is_empty() || !c.gone.is_empty() || moved)
        {
            candidates.push(c);
        }
    }
    candidates.sort_by(|x, y| {
        (y.new_ns + y.gone_ns)
            .total_cmp(&(x.new_ns + x.gone_ns))
            .then(x.node.cmp(&y.node))
    });
    candidates.truncate(MAX_PLACES);
    if candidates.is_empty() {
        return Restructures::default();
    }
    let sa = Side::new((a, (&d.a, of_a)), &d.a_node, &candidates, |c| &c.gone);
    let sb = Side::new((b, (&d.b, of_b)), &d.b_node, &candidates, |c| &c.new);
    // A matched child of a place may itself be a place: its own series
    // counts it, and it still leaves its parent's.
    let n = candidates.len();
    let (xa, xb) = (sa.samples(n, units.0), sb.samples(n, units.1));
    let changes = judge_rows(&xa, &xb, &mut noise.clone());
    let mut places: Vec<(usize, Place)> = (candidates.iter().zip(changes).zip(&xb))
        .map(|((c, change), x)| place(&d, c, change, x, (ua, ub)))
        .enumerate()
        .collect();
    // Largest |change| first; the indices the names keep follow the sort.
    places.sort_by(|(_, p), (_, q)| {
        q.change
            .beyond_drift_ns()
            .abs()
            .total_cmp(&p.change.beyond_drift_ns().abs())
            .then_with(|| p.thread.cmp(&q.thread))
            .then_with(|| p.path.cmp(&q.path))
    });
    let mut rank = vec![0u32; places.len()];
    for (r, &(k, _)) in places.iter().enumerate() {
        rank[k] = r as u32;
    }
    let places: Vec<Place> = places.into_iter().map(|(_, p)| p).collect();
    // A name is held on a side when every node of it there is; a name both
    // sides run is a row of its own (held on neither). By name: (the side
    // first seen, held so far, its places).
    let mut names: BTreeMap<&str, (usize, bool, Vec<u32>)> = BTreeMap::new();
    for (s, side) in [&sa, &sb].into_iter().enumerate() {
        // Not a thread's node (no parent).
        for m in (0..side.tree.len()).filter(|&m| side.tree.parent[m] != NONE) {
            let name = side.tree.label(side.trace, NodeId(m as u32));
            let e = names.entry(name).or_insert((s, true, Vec::new()));
            e.1 &= e.0 == s && side.held[m] != NONE;
            if side.held[m] != NONE {
                e.2.push(rank[side.held[m] as usize]);
            }
        }
    }
    let held = (names.into_iter().filter(|(_, e)| e.1))
        .map(|(name, (_, _, mut ks))| {
            ks.sort_unstable();
            ks.dedup();
            (name.to_owned(), ks)
        })
        .collect();
    Restructures { places, held }
}

/// Whether both recordings call the same (caller's name, name) pairs (the
/// top level a caller of its own): the same when no code moved. One pass
/// over each side's scopes, on ids: each definition's name ranked among
/// both sides' names.
fn same_callers(a: &Trace, b: &Trace) -> bool {
    let mut names: Vec<(&str, usize, usize)> = Vec::new();
    for (side, t) in [a, b].into_iter().enumerate() {
        names.extend((0..t.defs.len()).map(|d| (t.str(t.defs.name[d]), side, d)));
    }
    names.sort_unstable();
    let mut rank = [vec![0u64; a.defs.len()], vec![0u64; b.defs.len()]];
    let mut r = 0u64;
    for (k, &(name, side, d)) in names.iter().enumerate() {
        if k > 0 && names[k - 1].0 != name {
            r += 1;
        }
        // 0 stands for the top level.
        rank[side][d] = r + 1;
    }
    let pairs = |t: &Trace, rank: &[u64]| {
        let s = &t.scopes;
        let mut v: Vec<u64> = (0..s.len())
            .map(|i| {
                let p = s.parent[i];
                let caller = if p == NO_PARENT {
                    0
                } else {
                    rank[s.def[p as usize].idx()]
                };
                caller << 32 | rank[s.def[i].idx()]
            })
            .collect();
        v.sort_unstable();
        v.dedup();
        v
    };
    let [ra, rb] = &rank;
    pairs(a, ra) == pairs(b, rb)
}

/// The scope names called on one side only, sorted.
fn one_side_only_names<'t>(a: &'t Trace, b: &'t Trace) -> Vec<&'t str> {
    fn called(t: &Trace) -> BTreeSet<&str> {
        let ids = super::super::common::called_names(t, None);
        ids.into_iter().map(|n| t.str(n)).collect()
    }
    called(a)
        .symmetric_difference(&called(b))
        .copied()
        .collect()
}

/// A candidate place made a [`Place`], its words included.
fn place(d: &DiffTree, c: &Candidate, change: Change, xb: &Sample, (ua, ub): (f64, f64)) -> Place {
    let n = c.node;
    let mut path = Vec::new();
    let mut at = n;
    while d.parent[at as usize] != NONE {
        path.push(d.name(at));
        at = d.parent[at as usize];
    }
    let thread = d.name(at).to_owned();
    path.reverse();
    // Costliest first (on the side that has them), then name.
    let names = |kids: &[u32], b: bool| {
        let total = |k| if b { d.b_total_ns(k) } else { d.a_total_ns(k) };
        let mut v: Vec<(i64, &str)> = kids.iter().map(|&k| (total(k), d.name(k))).collect();
        v.sort_by(|x, y| y.0.cmp(&x.0).then_with(|| x.1.cmp(y.1)));
        v.into_iter().map(|(_, s)| s.to_owned()).collect::<Vec<_>>()
    };
    let (new, gone) = (names(&c.new, true), names(&c.gone, false));
    let (moved_in, moved_out) = (names(&c.moved.0, true), names(&c.moved.1, false));
    let self_ns = |side: Option<super::super::diff::SideTotals>, u: f64| {
        side.map_or(0.0, |s| s.self_ns as f64 / u)
    };
    let parent_self_delta_per_frame_ns =
        self_ns(d.side(n, true), ub) - self_ns(d.side(n, false), ua);
    // Restructured: the place's time held (unchanged), or, not told apart,
    // it changed by less than what its new scopes hold (net of the gone):
    // they took their time from the parent's, whatever else it did.
    let net_ns = c.new_ns - c.gone_ns;
    let [lo, hi] = change.effect.ci_ns;
    let restructured = match change.kind {
        super::judge::Kind::Unchanged => true,
        super::judge::Kind::Inconclusive => {
            (net_ns > 0.0 && hi < net_ns) || (net_ns < 0.0 && lo > net_ns)
        }
        _ => false,
    };
    let b_per_frame_ns = xb.durations_ns.iter().map(|&x| x as f64).sum::<f64>() / ub;
    let expected_per_frame_ns = b_per_frame_ns - change.beyond_drift_ns();
    let mut p = Place {
        thread,
        path: path.join(" > "),
        parent: d.name(n).to_owned(),
        new,
        gone,
        new_per_frame_ns: c.new_ns,
        gone_per_frame_ns: c.gone_ns,
        moved_in,
        moved_out,
        expected_per_frame_ns,
        b_per_frame_ns,
        parent_self_delta_per_frame_ns,
        change,
        restructured,
        words: String::new(),
    };
    p.words = words(&p);
    p
}

/// The place in a sentence: what moved, and whether it costs.
fn words(p: &Place) -> String {
    use crate::units::ms_f;
    let code = |v: &[String]| {
        v.iter()
            .map(|n| escape::markdown_code(n))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let parent = escape::markdown_code(&p.parent);
    let per = p.change.effect.per;
    let mut moved = Vec::new();
    let scopes = |v: &[String]| if v.len() == 1 { "scope" } else { "scopes" };
    if !p.new.is_empty() {
        moved.push(format!(
            "new {} {} ({} ms per {per} in B)",
            scopes(&p.new),
            code(&p.new),
            ms_f(p.new_per_frame_ns)
        ));
    }
    if !p.gone.is_empty() {
        moved.push(format!(
            "{} {} gone ({} ms per {per} in A)",
            scopes(&p.gone),
            code(&p.gone),
            ms_f(p.gone_per_frame_ns)
        ));
    }
    for (v, how) in [(&p.moved_in, "moved in"), (&p.moved_out, "moved out")] {
        if !v.is_empty() {
            moved.push(format!("{} {how} (judged where they run)", code(v)));
        }
    }
    let own = format!(
        "{parent}'s own time {:+.3} ms per {per}",
        p.parent_self_delta_per_frame_ns / 1e6
    );
    let net = p.change.effect.text();
    let thread = escape::markdown(crate::units::thread_label(&p.thread));
    let moved = moved.join("; ");
    if p.restructured {
        format!(
            "restructured, no cost: in {parent} ({thread}), {moved}, {own}; {parent} and these \
             scopes together: {net}"
        )
    } else {
        format!(
            "in {parent} ({thread}): {moved}, {own}; what entered at {parent} (its own time and \
             these scopes): {net}"
        )
    }
}
