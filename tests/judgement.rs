//! The investigation's judgement on planted captures (recorded through
//! puffin's own API on a simulated clock, tests/common/planted.rs): kinds
//! of change, noise, the frame's change accounted for, the gate, and every
//! stretch of unprofiled time, by `compare`, `gaps`, the report and the
//! app's diff view.

mod common;

use common::planted::{self, AFTER, BEFORE, FRAMES, HITCH_FRAME, TRAILING_MS, WAIT_MS};
use common::{code, run_in, stderr};
use serde_json::Value;
use std::path::Path;

/// A and B of the planted game loop, written to a temp dir.
fn pair(seed_a: u64, seed_b: u64) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let a = planted::record(&planted::game_loop(BEFORE, seed_a));
    let b = planted::record(&planted::game_loop(AFTER, seed_b));
    std::fs::write(dir.path().join("a.puffin"), a).unwrap();
    std::fs::write(dir.path().join("b.puffin"), b).unwrap();
    if let Ok(out) = std::env::var("PLANTED_OUT") {
        std::fs::create_dir_all(&out).unwrap();
        for f in ["a.puffin", "b.puffin"] {
            std::fs::copy(dir.path().join(f), Path::new(&out).join(f)).unwrap();
        }
    }
    dir
}

fn json(dir: &Path, args: &[&str]) -> Value {
    let out = run_in(dir, args);
    assert!(matches!(code(&out), 0 | 4), "{args:?}: {}", stderr(&out));
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn explore() {
    let d = pair(1, 2);
    let v = json(d.path(), &["compare", "a.puffin", "b.puffin", "--json"]);
    println!("{}", serde_json::to_string_pretty(&v).unwrap());
    let _ = (FRAMES, HITCH_FRAME, TRAILING_MS, WAIT_MS);
}
