//! The editor loop of the issue on the shapes of a change, on puffin's
//! simulated clock: `frame` > `update` > `ui::draw` > three `ui::label` >
//! `text::shape`, then `cache::lookup`, `physics::step`, and `render`.
//! What it plants is drawn from a seed: the trend's ends, the stall's
//! period, phase, size and place in the tree, the step's frame and height,
//! the jitter.

#![allow(dead_code)]

use super::planted::{Frame, Rng, Span, T0, record};

/// A frame starts every 40 ms (the longest planted frame takes about 25).
pub const FRAME_NS: i64 = 40_000_000;

/// How `cache::lookup` costs through the run (ms per frame).
#[derive(Clone, Copy, Debug)]
pub enum Lookup {
    Flat(f64),
    /// From `from` in the first frame to `to` in the last, linearly.
    Linear {
        from: f64,
        to: f64,
    },
    /// From `from` to `to` by frame `by`, then holds.
    Settles {
        from: f64,
        to: f64,
        by: usize,
    },
}

/// Where `gc::sweep` runs.
#[derive(Clone, Copy, Debug)]
pub enum Gc {
    Never,
    /// In frames `phase`, `phase + every`, …
    Every {
        every: usize,
        phase: usize,
        ms: f64,
    },
    /// In each frame with probability `p`.
    Random {
        p: f64,
        ms: f64,
    },
}

#[derive(Clone, Copy, Debug)]
pub struct Editor {
    pub frames: usize,
    pub lookup: Lookup,
    pub gc: Gc,
    /// `gc::sweep` under `update` (else a top-level scope of `main`).
    pub gc_in_update: bool,
    /// `render` costs `base` before this frame and `after` from it (ms).
    pub render: (f64, Option<(usize, f64)>),
    pub jitter: f64,
    /// The name of the 0.8 ms physics step, and whether it runs in
    /// `update` (after `cache::lookup`) or at the end of `frame`.
    pub physics: (&'static str, bool),
    /// `text::shape` under each of the three `ui::label`s, and under one
    /// `ui::tooltip` after them (none: no tooltip), in ms.
    pub shape_ms: (f64, Option<f64>),
    /// A second `ui::tooltip` > `text::shape` (ms), inside a `ui::popup`
    /// after `ui::draw` (none: no popup).
    pub popup_ms: Option<f64>,
}

impl Editor {
    pub fn steady(frames: usize) -> Self {
        Self {
            frames,
            lookup: Lookup::Flat(0.3),
            gc: Gc::Never,
            gc_in_update: true,
            render: (1.0, None),
            jitter: 0.03,
            physics: ("physics::step", true),
            shape_ms: (0.4, None),
            popup_ms: None,
        }
    }
}

/// The frames of `plan`, jittered from `seed` (which also draws the random
/// stalls).
pub fn editor(plan: Editor, seed: u64) -> Vec<Frame> {
    let mut rng = Rng::new(seed);
    let j = plan.jitter;
    (0..plan.frames)
        .map(|f| {
            let start = T0 + f as i64 * FRAME_NS;
            let mut t = start;
            let leaf = |name: &'static str, ms: f64, t: &mut i64, rng: &mut Rng| {
                let s = Span::new(name, *t, *t + rng.ns(ms, j).max(1));
                *t = s.end_ns;
                s
            };
            let u0 = t;
            let d0 = t;
            let mut draw = Span::new("ui::draw", d0, 0);
            for _ in 0..3 {
                let l0 = t;
                let shape = leaf("text::shape", plan.shape_ms.0, &mut t, &mut rng);
                t += 50_000;
                draw = draw.child(Span::new("ui::label", l0, t).child(shape));
            }
            if let Some(ms) = plan.shape_ms.1 {
                let t0 = t;
                let shape = leaf("text::shape", ms, &mut t, &mut rng);
                t += 30_000;
                draw = draw.child(Span::new("ui::tooltip", t0, t).child(shape));
            }
            draw.end_ns = t;
            let popup = plan.popup_ms.map(|ms| {
                let p0 = t;
                let t0 = t;
                let shape = leaf("text::shape", ms, &mut t, &mut rng);
                t += 30_000;
                let tip = Span::new("ui::tooltip", t0, t).child(shape);
                t += 20_000;
                Span::new("ui::popup", p0, t).child(tip)
            });
            let lookup_ms = match plan.lookup {
                Lookup::Flat(ms) => ms,
                Lookup::Linear { from, to } => {
                    from + (to - from) * f as f64 / (plan.frames - 1).max(1) as f64
                }
                Lookup::Settles { from, to, by } => {
                    from + (to - from) * (f.min(by) as f64 / by.max(1) as f64)
                }
            };
            let lookup = leaf("cache::lookup", lookup_ms, &mut t, &mut rng);
            let (physics_name, in_update) = plan.physics;
            let physics = leaf(physics_name, 0.8, &mut t, &mut rng);
            let gc_ms = match plan.gc {
                Gc::Never => None,
                Gc::Every { every, phase, ms } => (f % every == phase).then_some(ms),
                Gc::Random { p, ms } => ((rng.unit() + 1.0) / 2.0 < p).then_some(ms),
            };
            let mut update = Span::new("update", u0, 0).child(draw);
            if let Some(p) = popup {
                update = update.child(p);
            }
            let mut update = update.child(lookup);
            let mut top_physics = None;
            if in_update {
                update = update.child(physics);
            } else {
                top_physics = Some(physics);
            }
            let mut top_gc = None;
            if let Some(ms) = gc_ms {
                let gc = leaf("gc::sweep", ms, &mut t, &mut rng);
                if plan.gc_in_update {
                    update = update.child(gc);
                } else {
                    top_gc = Some(gc);
                }
            }
            update.end_ns = t;
            let mut main = Span::new("frame", start, 0).child(update);
            if let Some(gc) = top_gc {
                main = main.child(gc);
            }
            let render_ms = match plan.render.1 {
                Some((at, after)) if f >= at => after,
                _ => plan.render.0,
            };
            main = main.child(leaf("render", render_ms, &mut t, &mut rng));
            if let Some(p) = top_physics {
                // At the end of the frame: its time moves after `render`.
                let d = p.end_ns - p.start_ns;
                let s = Span::new(p.name, t, t + d);
                t += d;
                main = main.child(s);
            }
            main.end_ns = t + 200_000;
            vec![("main".to_owned(), vec![main])]
        })
        .collect()
}

/// The `.puffin` bytes of `plan` from `seed`.
pub fn editor_bytes(plan: Editor, seed: u64) -> Vec<u8> {
    record(&editor(plan, seed))
}

/// The editor loop with a worker, where the app ends puffin's frame inside
/// `frame` (`overlap`): main's scope of frame k is reported with frame k+1,
/// whose worker ran later. Without: each frame holds its own.
pub fn worker_loop(frames: usize, overlap: bool, seed: u64) -> Vec<u8> {
    use super::planted::{Rng, Span, record};
    let main = editor(Editor::steady(frames), seed);
    let mut rng = Rng::new(seed);
    let out: Vec<super::planted::Frame> = (0..frames)
        .map(|k| {
            let t = main[k][0].1[0].start_ns;
            let w0 = t + 1_000_000 + (rng.unit().abs() * 1e6) as i64;
            let worker = (
                "worker".to_owned(),
                vec![Span::new("job", w0, w0 + 8_000_000)],
            );
            let m = if overlap {
                // The previous frame's scope (none in the first).
                if k == 0 {
                    Vec::new()
                } else {
                    main[k - 1][0].1.clone()
                }
            } else {
                main[k][0].1.clone()
            };
            vec![("main".to_owned(), m), worker]
        })
        .collect();
    record(&out)
}
