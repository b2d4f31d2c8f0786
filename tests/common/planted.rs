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
