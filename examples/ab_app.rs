//! An app doing real work on the real clock, instrumented with puffin and
//! serving its frames with puffin_http, with a switch for a planted change:
//! what `puffin-lens ab` is tried on (docs/cli.md, "Builds A and B run
//! alternately").
//!
//! ```text
//! cargo build --release --example ab_app
//! puffin-lens ab --a 'target/release/examples/ab_app 127.0.0.1:8590' \
//!   --b 'target/release/examples/ab_app 127.0.0.1:8590 --plant slower' \
//!   --addr 127.0.0.1:8590 --frames 300 --runs 5 --out runs/
//! ```
//!
//! Each frame (`frame`): `physics::step` (20% of the frame: sorting and
//! summing a vector), `ai::plan` (a hash chain, once a frame), `render::build`
//! (the rest: a small matrix product), then a sleep to about 60 frames per
//! second. `--plant`:
//! - `slower`: `physics::step` does 10% more work per call;
//! - `more-often`: `ai::plan` runs twice a frame;
//! - `everything`: every scope does 10% more work (a slower allocator or
//!   build flag would).
//!
//! Runs until killed; with `AB_APP_FRAMES=N` it runs N frames and prints
//! the mean work of a frame (its scopes and puffin's end of frame, by the
//! wall clock) and exits: how `scripts/bench-ab.sh cost` measures what recording adds.

use std::hint::black_box;
use std::time::{Duration, Instant};

/// Work units: how much each scope does (calibrated by nothing but its
/// own loop: the same binary does the same work).
struct Plan {
    physics: usize,
    ai_calls: usize,
    ai: usize,
    render: usize,
}

fn physics(n: usize, seed: u64) -> u64 {
    puffin::profile_scope!("physics::step");
    let mut v: Vec<u64> = (0..n as u64)
        .map(|i| (i ^ seed).wrapping_mul(0x9E37_79B9_7F4A_7C15))
        .collect();
    v.sort_unstable();
    v.iter().fold(0u64, |a, &x| a.wrapping_add(x >> 7))
}

fn plan(n: usize, seed: u64) -> u64 {
    puffin::profile_scope!("ai::plan");
    let mut h = seed | 1;
    for _ in 0..n {
        h ^= h << 13;
        h ^= h >> 7;
        h ^= h << 17;
    }
    h
}

fn render(n: usize) -> f64 {
    puffin::profile_scope!("render::build");
    let m: Vec<f64> = (0..n * n).map(|i| (i % 17) as f64 * 0.5).collect();
    let mut out = 0.0;
    for i in 0..n {
        for j in 0..n {
            let mut s = 0.0;
            for k in 0..n {
                s += m[i * n + k] * m[k * n + j];
            }
            out += s;
        }
    }
    out
}

fn main() {
    let mut args = std::env::args().skip(1);
    let addr = args.next().unwrap_or_else(|| "127.0.0.1:8590".to_owned());
    let plant = match (args.next().as_deref(), args.next()) {
        (None, _) => "none".to_owned(),
        (Some("--plant"), Some(p)) => p,
        _ => {
            eprintln!("usage: ab_app [HOST:PORT] [--plant slower|more-often|everything]");
            std::process::exit(2);
        }
    };
    let base = Plan {
        physics: 300_000,
        ai_calls: 1,
        ai: 1_200_000,
        render: 150,
    };
    let more = |n: usize| n + n / 10;
    let plan_of = match plant.as_str() {
        "none" => base,
        "slower" => Plan {
            physics: more(base.physics),
            ..base
        },
        "more-often" => Plan {
            ai_calls: 2,
            ..base
        },
        "everything" => Plan {
            physics: more(base.physics),
            ai: more(base.ai),
            render: (base.render as f64 * 1.1f64.cbrt()).round() as usize,
            ..base
        },
        other => {
            eprintln!("ab_app: --plant {other:?}: expected slower, more-often or everything");
            std::process::exit(2);
        }
    };
    puffin::set_scopes_on(true);
    let _server = match puffin_http::Server::new(&addr) {
        Ok(s) => s,
        Err(err) => {
            eprintln!("ab_app: cannot serve on {addr}: {err:#}");
            std::process::exit(1);
        }
    };
    eprintln!("ab_app: serving puffin frames on {addr} (plant: {plant})");
    let frames: Option<u64> = std::env::var("AB_APP_FRAMES")
        .ok()
        .and_then(|n| n.parse().ok());
    let mut work = Duration::ZERO;
    for frame in 0u64.. {
        if frames == Some(frame) {
            let mean_ms = work.as_secs_f64() * 1e3 / frame.max(1) as f64;
            println!("{mean_ms:.4}");
            return;
        }
        let started = Instant::now();
        {
            puffin::profile_scope!("frame");
            black_box(physics(plan_of.physics, frame));
            for k in 0..plan_of.ai_calls {
                black_box(plan(plan_of.ai, frame + k as u64));
            }
            black_box(render(plan_of.render));
        }
        puffin::GlobalProfiler::lock().new_frame();
        work += started.elapsed();
        std::thread::sleep(Duration::from_millis(16).saturating_sub(started.elapsed()));
    }
}
