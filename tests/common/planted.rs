//! Planted captures recorded through puffin's own API on a simulated clock:
//! `ThreadProfiler::initialize` takes our ns source, so every scope lasts
//! exactly what the test says (plus seeded jitter), and the bytes are what
//! puffin 0.20 writes (`FrameData::write_into`, as `FrameView::write`).
//!
//! The before/after pair is the game loop of the issue that asked for the
//! judgement: one scope slower per call, one called twice as often, one new,
//! one gone, a single-frame hitch, jitter-only rows, and the main thread
//! waiting at the start of `render::prepare` while three workers build
//! meshes (no wait scope).

#![allow(dead_code)]

use std::cell::Cell;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// One scope on the simulated clock: absolute start and end (ns), children.
#[derive(Clone, Debug)]
pub struct Span {
    pub name: &'static str,
    pub data: String,
    pub start_ns: i64,
    pub end_ns: i64,
    pub children: Vec<Span>,
}

impl Span {
    pub fn new(name: &'static str, start_ns: i64, end_ns: i64) -> Self {
        Self {
            name,
            data: String::new(),
            start_ns,
            end_ns,
            children: Vec::new(),
        }
    }

    pub fn data(mut self, data: impl Into<String>) -> Self {
        self.data = data.into();
        self
    }

    pub fn child(mut self, c: Span) -> Self {
        self.children.push(c);
        self
    }
}

/// One frame: per thread name, its top-level spans.
pub type Frame = Vec<(String, Vec<Span>)>;

thread_local! {
    static NOW_NS: Cell<i64> = const { Cell::new(0) };
}

fn now_ns() -> i64 {
    NOW_NS.with(Cell::get)
}

/// puffin's profiler is one per process: one capture at a time.
static CAPTURE: Mutex<()> = Mutex::new(());

/// Scope ids by name, registered once per process (puffin's ids are global).
fn scope_id(name: &'static str) -> puffin::ScopeId {
    static IDS: Mutex<Option<HashMap<&'static str, puffin::ScopeId>>> = Mutex::new(None);
    let mut ids = IDS.lock().unwrap();
    *ids.get_or_insert_with(HashMap::new)
        .entry(name)
        .or_insert_with(|| {
            puffin::ThreadProfiler::call(|tp| {
                tp.register_named_scope(name, format!("planted::{name}"), "src/planted.rs", 1)
            })
        })
}

fn play(span: &Span) {
    NOW_NS.with(|c| c.set(span.start_ns));
    let id = scope_id(span.name);
    let offset = puffin::ThreadProfiler::call(|tp| tp.begin_scope(id, &span.data));
    for c in &span.children {
        play(c);
    }
    NOW_NS.with(|c| c.set(span.end_ns));
    puffin::ThreadProfiler::call(|tp| tp.end_scope(offset));
}

/// Records `frames` through puffin (each thread of a frame a real thread of
/// that name, its clock the spans' times) and returns the `.puffin` bytes.
pub fn record(frames: &[Frame]) -> Vec<u8> {
    let _one = CAPTURE.lock().unwrap_or_else(|e| e.into_inner());
    let got: Arc<Mutex<Vec<Arc<puffin::FrameData>>>> = Arc::default();
    let sink = {
        let got = got.clone();
        let mut gp = puffin::GlobalProfiler::lock();
        // Frames of an earlier capture in this process: out.
        gp.new_frame();
        // Every registration again with the next frame (ids are global).
        gp.emit_scope_snapshot();
        gp.add_sink(Box::new(move |f| got.lock().unwrap().push(f)))
    };
    for frame in frames {
        for (thread, spans) in frame {
            let spans = spans.clone();
            std::thread::Builder::new()
                .name(thread.clone())
                .spawn(move || {
                    puffin::ThreadProfiler::initialize(now_ns, puffin::internal_profile_reporter);
                    for s in &spans {
                        play(s);
                    }
                })
                .unwrap()
                .join()
                .unwrap();
        }
        puffin::GlobalProfiler::lock().new_frame();
    }
    puffin::GlobalProfiler::lock().remove_sink(sink);
    let mut out = b"PUF0".to_vec();
    for f in got.lock().unwrap().iter() {
        f.write_into(None, &mut out).unwrap();
    }
    out
}

/// A small deterministic generator (SplitMix64) for the jitter.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Self(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in [-1, 1).
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 52) as f64 - 1.0
    }

    /// `ms` milliseconds with ±`jitter` relative jitter, in ns.
    pub fn ns(&mut self, ms: f64, jitter: f64) -> i64 {
        (ms * 1e6 * (1.0 + jitter * self.unit())).round() as i64
    }
}

/// The epoch of the planted captures (2026-11-01).
pub const T0: i64 = 1_793_491_200_000_000_000;
/// A frame starts every 16.667 ms.
pub const PERIOD_NS: i64 = 16_666_667;
pub const FRAMES: usize = 60;
/// The frame of B with the hitch (its `assets::load` takes 30 ms).
pub const HITCH_FRAME: usize = 30;
/// The relative jitter of every duration.
pub const JITTER: f64 = 0.01;

/// What differs between the two sides of the game loop.
#[derive(Clone, Copy, Debug)]
pub struct Plan {
    /// `physics::solve_contacts`, per call.
    pub solve_ms: f64,
    /// `ui::layout` calls per frame (1 ms each).
    pub layout_calls: usize,
    /// `audio::mix` (0.6 ms) runs.
    pub audio: bool,
    /// `legacy::update` (0.2 ms) runs.
    pub legacy: bool,
    /// The frame whose `assets::load` takes 30 ms (0.2 ms elsewhere).
    pub hitch: Option<usize>,
    /// Every duration (and the wait) times this: a machine that runs the
    /// same code slower or faster across the board (run-to-run drift).
    pub scale: f64,
}

/// A: the "before" plan.
pub const BEFORE: Plan = Plan {
    solve_ms: 2.0,
    layout_calls: 1,
    audio: false,
    legacy: true,
    hitch: None,
    scale: 1.0,
};

/// B: `solve_contacts` +60% per call, `ui::layout` twice per frame,
/// `audio::mix` new, `legacy::update` gone, one 30 ms `assets::load`.
pub const AFTER: Plan = Plan {
    solve_ms: 3.2,
    layout_calls: 2,
    audio: true,
    legacy: false,
    hitch: Some(HITCH_FRAME),
    scale: 1.0,
};

/// The wait at the start of `render::prepare` (main runs no scope while
/// the workers build meshes).
pub const WAIT_MS: f64 = 3.4;
/// `frame`'s trailing gap (after its last child).
pub const TRAILING_MS: f64 = 0.3;

/// The game loop of `plan`, its durations jittered from `seed`.
pub fn game_loop(plan: Plan, seed: u64) -> Vec<Frame> {
    let mut rng = Rng::new(seed);
    let mut prev_end = T0;
    (0..FRAMES)
        .map(|f| {
            // On the period, or 1 ms after a frame that overran it.
            let start = (T0 + f as i64 * PERIOD_NS).max(prev_end + 1_000_000);
            let mut t = start;
            let mut main = Span::new("frame", start, 0);
            let leaf = |name: &'static str, ms: f64, t: &mut i64, rng: &mut Rng| {
                let s = Span::new(name, *t, *t + rng.ns(ms * plan.scale, JITTER));
                *t = s.end_ns;
                s
            };
            main = main.child(leaf("input", 0.5, &mut t, &mut rng));
            // physics::step > solve_contacts, integrate
            let p0 = t;
            let solve = leaf("physics::solve_contacts", plan.solve_ms, &mut t, &mut rng);
            let integrate = leaf("physics::integrate", 0.5, &mut t, &mut rng);
            main = main.child(
                Span::new("physics::step", p0, t)
                    .child(solve)
                    .child(integrate),
            );
            for k in 0..plan.layout_calls {
                let s = leaf("ui::layout", 1.0, &mut t, &mut rng).data(format!("panel {k}"));
                main = main.child(s);
            }
            if plan.audio {
                main = main.child(leaf("audio::mix", 0.6, &mut t, &mut rng));
            }
            if plan.legacy {
                main = main.child(leaf("legacy::update", 0.2, &mut t, &mut rng));
            }
            let load_ms = if plan.hitch == Some(f) { 30.0 } else { 0.2 };
            main = main.child(leaf("assets::load", load_ms, &mut t, &mut rng));
            // render::prepare: waits WAIT_MS (no scope), then uploads.
            let r0 = t;
            let wait_end = r0 + rng.ns(WAIT_MS * plan.scale, JITTER);
            let mut u = wait_end;
            let upload = leaf("render::upload", 0.5, &mut u, &mut rng);
            let prepare = Span::new("render::prepare", r0, u).child(upload);
            t = u;
            main = main.child(prepare);
            main.end_ns = t + (TRAILING_MS * plan.scale * 1e6) as i64;
            prev_end = main.end_ns;
            // Three workers build meshes during the wait (96% of it).
            let workers: Vec<(String, Vec<Span>)> = (0..3)
                .map(|w| {
                    let b0 = r0 + (WAIT_MS * plan.scale * 0.02 * 1e6) as i64;
                    let b1 = r0 + (WAIT_MS * plan.scale * 0.98 * 1e6) as i64;
                    (
                        format!("worker-{w}"),
                        vec![Span::new("mesh::build", b0, b1).data(format!("chunk {w}"))],
                    )
                })
                .collect();
            let mut frame = vec![("main".to_owned(), vec![main])];
            frame.extend(workers);
            frame
        })
        .collect()
}

/// The second planted pair: a job-system loop (issue 43). `main` runs
/// `main_loop` (input, `sim::step`, `draw::batch` > sort + submit,
/// `jobs::run`, present), then a top-level gap, then `frame::end`. In
/// `jobs::run` main dispatches three jobs to `pool-0..2` and waits (no
/// scope) for them, then runs `jobs::merge`; `pool-2` starts last, so it
/// finishes last: its `job::cloth` is the critical path.
#[derive(Clone, Copy, Debug)]
pub struct JobsPlan {
    pub frames: usize,
    /// New in B: unprofiled time in `main_loop` between `sim::step` and
    /// `draw::batch` (0 = none).
    pub sim_gap_ms: f64,
    /// The top-level gap between `main_loop` and `frame::end`.
    pub top_gap_ms: f64,
    /// The gap in `draw::batch` between `draw::sort` and `draw::submit`
    /// (0 = none: gone in B).
    pub draw_gap_ms: f64,
    /// `job::cloth` per call on each worker.
    pub cloth_ms: f64,
    /// The frame whose `assets::stream` takes 35 ms (0.2 ms elsewhere).
    pub hitch: Option<usize>,
    /// `None`: frames paced on [`PERIOD_NS`] (or 1 ms after a frame that
    /// overran it); `Some(ms)`: free-running, each frame `ms` after the
    /// last one's end (its main thread's period the work and `ms`).
    pub between_ms: Option<f64>,
}

/// A: 60 frames, a 0.4 ms top-level gap, a 0.6 ms gap in `draw::batch`,
/// 2 ms jobs, one 35 ms hitch (frame 20) that skews A's mean.
pub const JOBS_BEFORE: JobsPlan = JobsPlan {
    frames: 60,
    sim_gap_ms: 0.0,
    top_gap_ms: 0.4,
    draw_gap_ms: 0.6,
    cloth_ms: 2.0,
    hitch: Some(JOBS_HITCH_FRAME),
    between_ms: None,
};

/// B: 90 frames; a new 1.5 ms gap after `sim::step`, the top-level gap
/// grown to 1.2 ms, the gap in `draw::batch` gone, each `job::cloth` 1 ms
/// slower (main's wait in `jobs::run` 1 ms longer), no hitch. Every other
/// scope unchanged.
pub const JOBS_AFTER: JobsPlan = JobsPlan {
    frames: 90,
    sim_gap_ms: 1.5,
    top_gap_ms: 1.2,
    draw_gap_ms: 0.0,
    cloth_ms: 3.0,
    hitch: None,
    between_ms: None,
};

pub const JOBS_HITCH_FRAME: usize = 20;
/// Main alone in `jobs::run` before the first worker starts (dispatch).
pub const JOBS_DISPATCH_MS: f64 = 0.10;
/// Each next worker starts this much after the previous one.
pub const JOBS_STAGGER_MS: f64 = 0.05;
/// `jobs::merge` starts this long after the last job ends (wake-up).
pub const JOBS_WAKE_MS: f64 = 0.03;

/// The job-system loop of `plan`, its durations jittered from `seed`.
pub fn jobs_loop(plan: JobsPlan, seed: u64) -> Vec<Frame> {
    let mut rng = Rng::new(seed);
    let mut prev_end = T0;
    (0..plan.frames)
        .map(|f| {
            let start = match plan.between_ms {
                None => (T0 + f as i64 * PERIOD_NS).max(prev_end + 1_000_000),
                Some(_) if f == 0 => T0,
                Some(ms) => prev_end + (ms * 1e6) as i64,
            };
            let mut t = start;
            let leaf = |name: &'static str, ms: f64, t: &mut i64, rng: &mut Rng| {
                let s = Span::new(name, *t, *t + rng.ns(ms, JITTER));
                *t = s.end_ns;
                s
            };
            let gap = |ms: f64, t: &mut i64| *t += (ms * 1e6) as i64;
            let mut main_loop = Span::new("main_loop", start, 0);
            main_loop = main_loop.child(leaf("input", 0.5, &mut t, &mut rng));
            let stream_ms = if plan.hitch == Some(f) { 35.0 } else { 0.2 };
            main_loop = main_loop.child(leaf("assets::stream", stream_ms, &mut t, &mut rng));
            main_loop = main_loop.child(leaf("sim::step", 2.0, &mut t, &mut rng));
            gap(plan.sim_gap_ms, &mut t);
            let d0 = t;
            let sort = leaf("draw::sort", 0.4, &mut t, &mut rng);
            gap(plan.draw_gap_ms, &mut t);
            let submit = leaf("draw::submit", 0.8, &mut t, &mut rng);
            main_loop = main_loop.child(Span::new("draw::batch", d0, t).child(sort).child(submit));
            // jobs::run: dispatch (alone), wait for pool-0..2, merge.
            let r0 = t;
            let mut last_end = r0;
            let workers: Vec<(String, Vec<Span>)> = (0..3)
                .map(|w| {
                    let b0 = r0 + ((JOBS_DISPATCH_MS + JOBS_STAGGER_MS * w as f64) * 1e6) as i64;
                    let b1 = b0 + rng.ns(plan.cloth_ms, JITTER);
                    last_end = last_end.max(b1);
                    (
                        format!("pool-{w}"),
                        vec![Span::new("job::cloth", b0, b1).data(format!("cloth {w}"))],
                    )
                })
                .collect();
            let mut u = last_end + (JOBS_WAKE_MS * 1e6) as i64;
            let merge = leaf("jobs::merge", 0.3, &mut u, &mut rng);
            main_loop = main_loop.child(Span::new("jobs::run", r0, u).child(merge));
            t = u;
            main_loop = main_loop.child(leaf("present", 0.5, &mut t, &mut rng));
            main_loop.end_ns = t;
            gap(plan.top_gap_ms, &mut t);
            let end = leaf("frame::end", 0.2, &mut t, &mut rng);
            prev_end = end.end_ns;
            let mut frame = vec![("main".to_owned(), vec![main_loop, end])];
            frame.extend(workers);
            frame
        })
        .collect()
}

/// A (`JOBS_BEFORE`) and B (`JOBS_AFTER`) of the job-system loop written
/// to a temp dir as `a.puffin` and `b.puffin`. `PLANTED_OUT=DIR` keeps a
/// copy (to try the tool on by hand).
pub fn jobs_pair(seed_a: u64, seed_b: u64) -> tempfile::TempDir {
    jobs_pair_of((JOBS_BEFORE, seed_a), (JOBS_AFTER, seed_b))
}

/// [`jobs_pair`] of any two plans.
pub fn jobs_pair_of(
    (plan_a, seed_a): (JobsPlan, u64),
    (plan_b, seed_b): (JobsPlan, u64),
) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let a = record(&jobs_loop(plan_a, seed_a));
    let b = record(&jobs_loop(plan_b, seed_b));
    std::fs::write(dir.path().join("a.puffin"), a).unwrap();
    std::fs::write(dir.path().join("b.puffin"), b).unwrap();
    if let Some(out) = std::env::var_os("PLANTED_OUT") {
        std::fs::create_dir_all(&out).unwrap();
        for f in ["a.puffin", "b.puffin"] {
            std::fs::copy(dir.path().join(f), std::path::Path::new(&out).join(f)).unwrap();
        }
    }
    dir
}

/// The report's comparison of `a` and `b` (recorded), in process, with the
/// gate at 2% of A's frame.
pub fn compared(a: &[Frame], b: &[Frame]) -> puffin_lens::engine::report::ComparisonReport {
    use puffin_lens::engine::{self, analyses::gate::Gate, report};
    let (a, b) = (
        engine::load(&record(a)).unwrap(),
        engine::load(&record(b)).unwrap(),
    );
    let opts = report::ReportOptions {
        gate: Some(Gate {
            pct: 2.0,
            min_ms: 0.0,
            drift_pct: None,
        }),
        ..Default::default()
    };
    report::Report::new(("a", &a), Some(("b", &b)), opts)
        .comparison
        .unwrap()
}
