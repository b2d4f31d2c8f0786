//! A generator of planted pairs (issue 64): random frame loops with worker
//! threads, on puffin's simulated clock (every duration exact, ±2% jitter),
//! and 3-6 primitive changes at random places and sizes between A and B,
//! each with the answer the judgement should give. `tests/generated_pairs.rs`
//! and `benches/generated.rs` read the report of each pair against it.
//!
//! A loop: main runs `frame` holding 6-10 scopes (1-2 calls a frame each, 0.3
//! to 1.5 ms a call), then `jobs::run`, in which main waits (no scope) while
//! 2-3 workers each run one `job::work`; then the time between frames: the
//! next frame starts `between_ms` after (free-running) or on the 16.667 ms
//! period (paced, vsync).

#![allow(dead_code)]

use super::planted::{Frame, Rng, Span, T0, record};

/// The scope names a loop draws from (a new scope takes one it does not use).
pub const POOL: [&str; 20] = [
    "input::poll",
    "sim::step",
    "physics::solve",
    "physics::integrate",
    "ai::think",
    "anim::update",
    "ui::layout",
    "ui::paint",
    "audio::mix",
    "net::poll",
    "render::cull",
    "render::sort",
    "render::submit",
    "assets::stream",
    "script::run",
    "particles::update",
    "camera::update",
    "scene::update",
    "cloth::solve",
    "nav::path",
];
const PERIOD_NS: i64 = 16_666_667;
pub const JITTER: f64 = 0.02;

#[derive(Clone, Debug)]
pub struct Scope {
    pub name: &'static str,
    pub ms: f64,
    pub calls: usize,
    /// `(every, extra_ms)`: one call `extra_ms` longer every `every`-th frame.
    pub every: Option<(usize, f64)>,
    /// `(frame, ms)`: one call of `ms` in that frame (a spike).
    pub spike: Option<(usize, f64)>,
    /// `(from_frame, factor)`: each call `factor` times as long from then on.
    pub step: Option<(usize, f64)>,
    /// `(share, ms)`: a heavy tail, the same code on both sides: in a random
    /// `share` of frames (drawn per recording) its first call takes `ms`.
    pub tail: Option<(f64, f64)>,
    /// Two call costs in a fixed mix: every second call takes this many ms.
    pub mix: Option<f64>,
    /// Each call holds these two scopes, 40% and 45% of it (restructured).
    pub holds: Option<[&'static str; 2]>,
    /// Runs on this thread instead of main, from the frame's start, which
    /// no one waits for.
    pub thread: Option<&'static str>,
}

impl Scope {
    fn new(name: &'static str, ms: f64, calls: usize) -> Self {
        Self {
            name,
            ms,
            calls,
            every: None,
            spike: None,
            step: None,
            tail: None,
            mix: None,
            holds: None,
            thread: None,
        }
    }

    /// Whether the loop gave it a feature of its own code (a tail, a mix,
    /// a spike both sides share): no change is planted in it.
    fn shared(&self) -> bool {
        self.tail.is_some() || self.mix.is_some() || self.spike.is_some()
    }
}

#[derive(Clone, Debug)]
pub struct Loop {
    pub frames: usize,
    pub scopes: Vec<Scope>,
    pub workers: usize,
    pub job_ms: f64,
    /// `None`: paced on 16.667 ms; `Some(ms)`: free-running, `ms` between.
    pub between_ms: Option<f64>,
    /// Unscoped time in `frame` (main, no scope) before `jobs::run`.
    pub unscoped_ms: f64,
}

/// One primitive change, as planted.
#[derive(Clone, Debug, PartialEq)]
pub enum Plant {
    /// Each call `factor` times as long (slower past 1, faster below).
    PerCall(&'static str, f64),
    /// Calls per frame from one count to another.
    Calls(&'static str, usize, usize),
    New(&'static str),
    Gone(&'static str),
    /// One call of this many ms in one frame of B.
    Spike(&'static str, f64),
    /// One call this many ms longer every n-th frame of B.
    Every(&'static str, usize, f64),
    /// Each call `factor` times as long from the middle of B's run on.
    Step(&'static str, f64),
    /// The workers' job `factor` times as long: main's wait for it too.
    Job(f64),
    /// The time between frames of a free-running loop from one to another.
    Between(f64, f64),
    /// Renamed at its place (from, to), the same cost.
    Rename(&'static str, &'static str),
    /// Two new scopes inside each call take 85% of it, its time held.
    Restructure(&'static str, [&'static str; 2]),
    /// Moved off main to a thread of its own (`loader`) no one waits for.
    Moved(&'static str),
    /// Unscoped time inside `frame` from one to another (ms): `frame`'s
    /// own time, slower or faster.
    Unscoped(f64, f64),
    /// The workers' job split across more workers (from, to), its work
    /// per frame the same: each job shorter, main's wait for them too
    /// (`jobs::run` faster).
    Split(usize, usize),
}

impl Plant {
    /// Its primitive's name (a row of the table the bench prints).
    pub fn primitive(&self) -> &'static str {
        match self {
            Plant::PerCall(_, f) if *f > 1.0 => "slower per call",
            Plant::PerCall(..) => "faster per call",
            Plant::Calls(_, a, b) if b > a => "more calls",
            Plant::Calls(..) => "fewer calls",
            Plant::New(_) => "new scope",
            Plant::Gone(_) => "gone scope",
            Plant::Spike(..) => "one spike",
            Plant::Every(..) => "every n-th frame",
            Plant::Step(..) => "step through the run",
            Plant::Job(_) => "worker's job (a wait)",
            Plant::Between(..) => "time between frames",
            Plant::Rename(..) => "renamed scope",
            Plant::Restructure(..) => "scopes added, time held",
            Plant::Moved(_) => "moved to another thread",
            Plant::Unscoped(..) => "unscoped time in a scope",
            Plant::Split(..) => "work split across threads",
        }
    }

    /// The scope name whose row says it (`None`: the frame's own part).
    pub fn name(&self) -> Option<&'static str> {
        match self {
            Plant::PerCall(n, _)
            | Plant::Calls(n, ..)
            | Plant::New(n)
            | Plant::Gone(n)
            | Plant::Spike(n, _)
            | Plant::Every(n, ..)
            | Plant::Step(n, _)
            | Plant::Restructure(n, _)
            | Plant::Moved(n) => Some(n),
            Plant::Rename(_, to) => Some(to),
            Plant::Job(_) => Some("job::work"),
            Plant::Split(..) => Some("jobs::run"),
            Plant::Between(..) | Plant::Unscoped(..) => None,
        }
    }

    /// Every name the change touches (its row's, and a rename's old name,
    /// a restructure's new ones, a job's `jobs::run` that waits for it):
    /// none of them is an unplanted name.
    pub fn touched(&self) -> Vec<&'static str> {
        match self {
            Plant::Rename(from, to) => vec![from, to],
            Plant::Restructure(n, [x, y]) => vec![n, x, y],
            Plant::Job(_) | Plant::Split(..) => vec!["job::work", "jobs::run"],
            p => p.name().into_iter().collect(),
        }
    }

    /// The kinds a row may be judged for this change to be found with its
    /// kind (for the time between frames: `changed`, the part's verdict).
    pub fn kinds(&self) -> &'static [&'static str] {
        match self {
            Plant::PerCall(_, f) if *f > 1.0 => &["slower"],
            Plant::PerCall(..) => &["faster"],
            Plant::Calls(_, a, b) if b > a => &["more-often"],
            Plant::Calls(..) => &["less-often"],
            Plant::New(_) => &["new"],
            Plant::Gone(_) => &["gone"],
            Plant::Spike(..) => &["spike"],
            Plant::Every(..) => &["costlier", "slower"],
            Plant::Step(..) => &["slower", "costlier"],
            Plant::Job(f) if *f > 1.0 => &["slower"],
            Plant::Job(_) => &["faster"],
            Plant::Between(..) => &["changed"],
            // A rename costs nothing: found with its kind when its cost is
            // not judged a change (unchanged, or not told apart: with one
            // run a side a row's prior spread can leave a same-cost row
            // inconclusive, never a cost).
            Plant::Rename(..) => &["renamed", "renamed, inconclusive"],
            Plant::Restructure(..) => &["restructured"],
            Plant::Moved(_) => &["moved"],
            Plant::Unscoped(a, b) if b > a => &["slower"],
            Plant::Unscoped(..) => &["faster"],
            Plant::Split(..) => &["faster"],
        }
    }
}

/// A generated pair: A's loop, B's, and what was planted.
#[derive(Clone, Debug)]
pub struct Pair {
    pub a: Loop,
    pub b: Loop,
    pub plants: Vec<Plant>,
}

impl Pair {
    /// Whether at least half of A's names changed (its scopes, `job::work`
    /// and `jobs::run`): then no majority of names is left to tell the
    /// machine's drift by (docs/statistics.md, "Generated pairs").
    pub fn most_changed(&self) -> bool {
        let mut planted: Vec<&str> = self.plants.iter().flat_map(Plant::touched).collect();
        planted.sort_unstable();
        planted.dedup();
        let names = self.a.scopes.len() + 2;
        planted.len() * 2 >= names
    }
}

fn pick(rng: &mut Rng, n: usize) -> usize {
    (rng.next_u64() % n as u64) as usize
}

fn between(rng: &mut Rng, lo: f64, hi: f64) -> f64 {
    lo + (hi - lo) * rng.unit().abs().min(1.0)
}

/// A random loop from `rng`.
pub fn random_loop(rng: &mut Rng) -> Loop {
    let n = 6 + pick(rng, 5);
    let mut names: Vec<&'static str> = POOL.to_vec();
    // A random subset, in a random order.
    for i in (1..names.len()).rev() {
        names.swap(i, pick(rng, i + 1));
    }
    let scopes = names[..n]
        .iter()
        .map(|&name| Scope::new(name, between(rng, 0.3, 1.5), 1 + pick(rng, 2)))
        .collect();
    let mut l = Loop {
        frames: 120 + 60 * pick(rng, 3),
        scopes,
        workers: 2 + pick(rng, 2),
        job_ms: between(rng, 1.0, 2.5),
        between_ms: (pick(rng, 2) == 0).then(|| between(rng, 1.0, 3.0)),
        unscoped_ms: 0.2,
    };
    // The code's own features, on both sides (drawn apart, so that the
    // changes planted stay those of the pairs before them): in a third of
    // the loops a scope with a heavy tail, in a third one of two call
    // costs in a fixed mix, in a quarter a spike in the same frame of both
    // recordings.
    let mut own = Rng::new(rng.next_u64() ^ 0x7A11);
    let mut free: Vec<usize> = (0..l.scopes.len()).collect();
    let mut take = |own: &mut Rng| free.remove(pick(own, free.len()));
    if pick(&mut own, 3) == 0 {
        let i = take(&mut own);
        l.scopes[i].ms = between(&mut own, 0.05, 0.2);
        l.scopes[i].tail = Some((between(&mut own, 0.03, 0.08), between(&mut own, 3.0, 8.0)));
    }
    if pick(&mut own, 3) == 0 {
        let i = take(&mut own);
        l.scopes[i].calls = 2 + pick(&mut own, 3);
        l.scopes[i].mix = Some(between(&mut own, 0.05, 0.2));
    }
    if pick(&mut own, 4) == 0 {
        let i = take(&mut own);
        l.scopes[i].spike = Some((
            10 + pick(&mut own, l.frames - 20),
            between(&mut own, 20.0, 40.0),
        ));
    }
    l
}

/// The pool's names `l` does not run and no plant has used, in the pool's
/// order (a new scope's, a rename's, a restructure's).
fn unused<'u>(l: &'u Loop, used: &'u [&str]) -> impl Iterator<Item = &'static str> + 'u {
    POOL.iter()
        .copied()
        .filter(move |n| !l.scopes.iter().any(|s| s.name == *n) && !used.contains(n))
}

/// A pair: a random loop and 3-6 primitive changes on distinct scopes (a
/// `same` pair: none).
pub fn random_pair(seed: u64, same: bool) -> Pair {
    let mut rng = Rng::new(seed);
    let a = random_loop(&mut rng);
    let mut b = a.clone();
    let mut plants = Vec::new();
    if same {
        return Pair { a, b, plants };
    }
    let want = 3 + pick(&mut rng, 4);
    let mut used: Vec<&'static str> = Vec::new();
    let mut tries = 0;
    while plants.len() < want && tries < 100 {
        tries += 1;
        let i = pick(&mut rng, b.scopes.len());
        let s = b.scopes[i].clone();
        let kind = pick(&mut rng, 16);
        if (used.contains(&s.name) || s.shared()) && !matches!(kind, 9 | 10 | 14 | 15) {
            continue;
        }
        let plant = match kind {
            0 => {
                let f = between(&mut rng, 1.4, 2.0);
                b.scopes[i].ms *= f;
                Plant::PerCall(s.name, f)
            }
            1 => {
                let f = between(&mut rng, 0.4, 0.7);
                b.scopes[i].ms *= f;
                Plant::PerCall(s.name, f)
            }
            2 => {
                b.scopes[i].calls = s.calls * 2;
                Plant::Calls(s.name, s.calls, s.calls * 2)
            }
            3 if s.calls == 2 => {
                b.scopes[i].calls = 1;
                Plant::Calls(s.name, 2, 1)
            }
            4 => {
                let Some(name) = unused(&b, &used).next() else {
                    continue;
                };
                b.scopes
                    .insert(i, Scope::new(name, between(&mut rng, 0.5, 1.5), 1));
                used.push(name);
                Plant::New(name)
            }
            5 if b.scopes.len() > 5 => {
                b.scopes.remove(i);
                Plant::Gone(s.name)
            }
            6 => {
                let frame = 10 + pick(&mut rng, b.frames - 20);
                let ms = between(&mut rng, 20.0, 40.0);
                b.scopes[i].spike = Some((frame, ms));
                Plant::Spike(s.name, ms)
            }
            7 => {
                let every = 4 + pick(&mut rng, 7);
                let ms = between(&mut rng, 3.0, 8.0);
                b.scopes[i].every = Some((every, ms));
                Plant::Every(s.name, every, ms)
            }
            8 => {
                let f = between(&mut rng, 1.5, 2.0);
                b.scopes[i].step = Some((b.frames / 2, f));
                Plant::Step(s.name, f)
            }
            9 if !used.contains(&"job::work") => {
                let f = between(&mut rng, 1.4, 1.8);
                b.job_ms *= f;
                used.push("job::work");
                Plant::Job(f)
            }
            10 if !plants.iter().any(|p| matches!(p, Plant::Between(..))) => {
                let from = a.between_ms.unwrap_or(1.0);
                let to = from + between(&mut rng, 1.5, 3.0);
                b.between_ms = Some(to);
                // A paced A runs free in B, its frame period the work and `to`.
                Plant::Between(from, to)
            }
            11 => {
                let Some(to) = unused(&b, &used).next() else {
                    continue;
                };
                b.scopes[i].name = to;
                Plant::Rename(s.name, to)
            }
            12 => {
                let free: Vec<&'static str> = unused(&b, &used).take(2).collect();
                let [x, y] = free[..] else { continue };
                b.scopes[i].holds = Some([x, y]);
                Plant::Restructure(s.name, [x, y])
            }
            13 => {
                b.scopes[i].thread = Some("loader");
                Plant::Moved(s.name)
            }
            14 if !plants.iter().any(|p| matches!(p, Plant::Unscoped(..))) => {
                let to = a.unscoped_ms + between(&mut rng, 1.0, 2.5);
                b.unscoped_ms = to;
                Plant::Unscoped(a.unscoped_ms, to)
            }
            15 if !used.contains(&"job::work") => {
                let to = b.workers * 2;
                b.job_ms *= b.workers as f64 / to as f64;
                b.workers = to;
                used.push("job::work");
                Plant::Split(a.workers, to)
            }
            _ => continue,
        };
        used.extend(plant.touched());
        plants.push(plant);
    }
    // A paced A whose B runs free changes the time between frames as a
    // whole: A free too, so that only the planted gap differs.
    if let (None, Some(Plant::Between(from, _))) = (
        a.between_ms,
        plants.iter().find(|p| matches!(p, Plant::Between(..))),
    ) {
        let from = *from;
        let mut a = a;
        a.between_ms = Some(from);
        return Pair { a, b, plants };
    }
    Pair { a, b, plants }
}

/// The frames of `l`, its durations jittered from `seed`.
pub fn frames(l: &Loop, seed: u64) -> Vec<Frame> {
    let mut rng = Rng::new(seed);
    let mut next_start = T0;
    (0..l.frames)
        .map(|f| {
            let start = next_start;
            let mut t = start;
            let mut main = Span::new("frame", start, 0);
            // Scopes moved off main run on their own thread from the start.
            let mut side: Vec<Span> = Vec::new();
            let mut side_t = start;
            for s in &l.scopes {
                for call in 0..s.calls {
                    let mut ms = s.ms;
                    if let Some((from, factor)) = s.step
                        && f >= from
                    {
                        ms *= factor;
                    }
                    if let Some(mix) = s.mix
                        && call % 2 == 1
                    {
                        ms = mix;
                    }
                    if call == 0 {
                        if let Some((share, tail)) = s.tail
                            && rng.unit().abs() < share
                        {
                            ms = tail;
                        }
                        if let Some((every, extra)) = s.every
                            && f % every == every - 1
                        {
                            ms += extra;
                        }
                        if let Some((frame, spike)) = s.spike
                            && f == frame
                        {
                            ms = spike;
                        }
                    }
                    let at = if s.thread.is_some() { side_t } else { t };
                    let mut span = Span::new(s.name, at, at + rng.ns(ms, JITTER));
                    if let Some([x, y]) = s.holds {
                        let d = span.end_ns - at;
                        let mid = at + d * 40 / 100;
                        span = span.child(Span::new(x, at, mid)).child(Span::new(
                            y,
                            mid,
                            mid + d * 45 / 100,
                        ));
                    }
                    if s.thread.is_some() {
                        side_t = span.end_ns;
                        side.push(span);
                    } else {
                        t = span.end_ns;
                        main = main.child(span);
                    }
                }
            }
            // Unscoped time in `frame` before the jobs.
            t += rng.ns(l.unscoped_ms, JITTER);
            // jobs::run: main waits (no scope) while the workers run.
            let j0 = t;
            let dispatch = (0.05 * 1e6) as i64;
            let mut job_end = j0;
            let workers: Vec<(String, Vec<Span>)> = (0..l.workers)
                .map(|w| {
                    let s0 = j0 + dispatch * (w as i64 + 1);
                    let job = Span::new("job::work", s0, s0 + rng.ns(l.job_ms, JITTER));
                    job_end = job_end.max(job.end_ns);
                    (format!("worker-{w}"), vec![job])
                })
                .collect();
            t = job_end + dispatch;
            main = main.child(Span::new("jobs::run", j0, t));
            main.end_ns = t;
            next_start = match l.between_ms {
                Some(ms) => t + rng.ns(ms, JITTER),
                None => (T0 + (f as i64 + 1) * PERIOD_NS).max(t + 1_000_000),
            };
            let mut frame = vec![("main".to_owned(), vec![main])];
            frame.extend(workers);
            if !side.is_empty() {
                frame.push(("loader".to_owned(), side));
            }
            frame
        })
        .collect()
}

/// The `.puffin` bytes of `l` from `seed`.
pub fn bytes(l: &Loop, seed: u64) -> Vec<u8> {
    record(&frames(l, seed))
}

/// How the report of a pair read against what was planted.
#[derive(Clone, Debug, Default)]
pub struct Score {
    /// Per plant: its primitive, found at its place (a row of its name, or
    /// the frame's part), found with its kind, and the kind read.
    pub plants: Vec<(&'static str, bool, bool, String)>,
    /// Rows of names nothing was planted in (nor their wrappers) and how
    /// many of them were judged a change; their names.
    pub unplanted: usize,
    pub unplanted_changed: Vec<String>,
    /// The frame's parts summed against its change (ns), and the change.
    pub parts_sum_ns: f64,
    pub delta_mean_ns: f64,
    /// The gate (2% of A's frame) failed, or could not decide (exit 5).
    pub gate_failed: bool,
    pub gate_undecided: bool,
    /// Per periodic stall planted (`Plant::Every`): a tail figure of frame
    /// pacing judged changed, and the stall's scope a culprit of B's slow
    /// frames, high in at least half of them.
    pub stalls: Vec<(bool, bool)>,
    /// Tail figures judged changed on this pair (a same-code pair: none
    /// should be).
    pub tail_changed: usize,
}

/// The report of `pair` (recorded from `seed`), in process, read against
/// its plants.
pub fn score(pair: &Pair, seed: u64) -> Score {
    let c = super::planted::compared(
        &frames(&pair.a, seed),
        &frames(&pair.b, seed.wrapping_add(1)),
    );
    let v = serde_json::to_value(&c).unwrap();
    let rows = v["rows"].as_array().cloned().unwrap_or_default();
    let kind_of = |name: &str| {
        rows.iter()
            .find(|r| r["name"] == name && r["data"].as_str().unwrap_or("").is_empty())
            .map(|r| r["change"]["kind"].as_str().unwrap_or("").to_owned())
    };
    let mut out = Score::default();
    for p in &pair.plants {
        let read = match p {
            Plant::Rename(from, to) => v["renames"]
                .as_array()
                .and_then(|rs| rs.iter().find(|r| r["from"] == *from && r["to"] == *to))
                .map(|r| match r["change"]["kind"].as_str() {
                    Some("unchanged") | None => "renamed".to_owned(),
                    Some(k) => format!("renamed, {k}"),
                }),
            Plant::Restructure(n, [x, y]) => {
                let places = v["places"].as_array().cloned().unwrap_or_default();
                if places
                    .iter()
                    .any(|p| p["parent"] == *n && p["restructured"] == true)
                {
                    Some("restructured".to_owned())
                } else {
                    Some(format!(
                        "{n}: {:?}, {x}: {:?}, {y}: {:?}",
                        kind_of(n),
                        kind_of(x),
                        kind_of(y)
                    ))
                }
            }
            // One movement off the frame thread, its work where it runs.
            Plant::Moved(n) => v["frame"]["moved"]
                .as_array()
                .and_then(|ms| ms.iter().find(|m| m["name"] == *n && m["to"] == "loader"))
                .map(|_| "moved".to_owned())
                .or_else(|| kind_of(n)),
            // `frame`'s own time, a part of the frame's account.
            Plant::Unscoped(..) => v["frame"]["contributions"].as_array().and_then(|cs| {
                cs.iter()
                    .find(|c| c["name"] == "frame")
                    .and_then(|c| c["kind"].as_str().map(str::to_owned))
            }),
            _ => match p.name() {
                Some(name) => kind_of(name),
                None => v["frame"]["between_frames"]["effect"]["verdict"]
                    .as_str()
                    .map(str::to_owned),
            },
        };
        let found = read
            .as_deref()
            .is_some_and(|k| !matches!(k, "unchanged" | "inconclusive"));
        let right = read.as_deref().is_some_and(|k| p.kinds().contains(&k));
        out.plants
            .push((p.primitive(), found, right, read.unwrap_or_default()));
    }
    // Every name of either loop but the planted ones and the wrappers that
    // carry their changes (`frame`; `jobs::run`, whose own time is the
    // wait for a planted job); the report lists the changed rows only.
    let planted: Vec<&str> = pair.plants.iter().flat_map(Plant::touched).collect();
    let mut names: Vec<&str> = [&pair.a, &pair.b]
        .iter()
        .flat_map(|l| l.scopes.iter().map(|s| s.name))
        .chain(["job::work", "jobs::run"])
        .filter(|n| !planted.contains(n))
        .collect();
    names.sort_unstable();
    names.dedup();
    out.unplanted = names.len();
    for r in &rows {
        let name = r["name"].as_str().unwrap_or("");
        let kind = r["change"]["kind"].as_str().unwrap_or("");
        if names.contains(&name) && !matches!(kind, "unchanged" | "inconclusive") {
            out.unplanted_changed.push(format!("{name}: {kind}"));
        }
    }
    out.parts_sum_ns = v["frame"]["parts"].as_array().map_or(0.0, |ps| {
        ps.iter()
            .map(|p| p["delta_ns"].as_f64().unwrap_or(0.0))
            .sum()
    });
    out.delta_mean_ns = v["frame"]["delta_mean_ns"].as_f64().unwrap_or(0.0);
    out.gate_failed = c.gate.as_ref().is_some_and(|g| g.failed());
    out.gate_undecided = c.gate.as_ref().is_some_and(|g| g.is_inconclusive());
    let pacing = &v["pacing"];
    let changes = pacing["changes"].as_array().cloned().unwrap_or_default();
    out.tail_changed = changes
        .iter()
        .filter(|c| c["effect"]["verdict"] == "changed")
        .count();
    let slow = &pacing["b"]["slow_frames"];
    for p in &pair.plants {
        if let Plant::Every(name, ..) = p {
            let frames = slow["frames"].as_u64().unwrap_or(u64::MAX);
            let traced = slow["culprits"].as_array().is_some_and(|cs| {
                cs.iter()
                    .any(|c| c["part"] == *name && c["in_slow"].as_u64().unwrap_or(0) * 2 >= frames)
            });
            out.stalls.push((out.tail_changed > 0, traced));
        }
    }
    out
}

/// Writes `pair` (recorded from `seed`, as [`score`] records it) to
/// `dir/a.puffin` and `dir/b.puffin`, and what was planted to
/// `dir/planted.txt`: to try the tool on by hand.
pub fn write_pair(pair: &Pair, seed: u64, dir: &std::path::Path) {
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(dir.join("a.puffin"), bytes(&pair.a, seed)).unwrap();
    std::fs::write(dir.join("b.puffin"), bytes(&pair.b, seed.wrapping_add(1))).unwrap();
    std::fs::write(dir.join("planted.txt"), format!("{:#?}\n", pair.plants)).unwrap();
}
