//! The frame's account (issue 64), on planted captures whose every duration
//! is exact (puffin's own recorder on a simulated clock, ±1% jitter): the
//! drift rests on the names that did not change, and the headline's figure
//! is the estimate its interval is of.

mod common;

use common::planted::{Frame, Rng, Span, record};
use serde_json::Value;

const T0: i64 = 1_793_491_200_000_000_000;
const FRAMES: usize = 120;

/// A free-running loop: `frame` (work of `names`, each `ms` a call with 1%
/// jitter) on main, then `between_ms` outside every scope before the next
/// frame starts.
fn free_loop(names: &[(&'static str, f64)], between_ms: f64, seed: u64) -> Vec<u8> {
    let mut rng = Rng::new(seed);
    let mut t = T0;
    let frames: Vec<Frame> = (0..FRAMES)
        .map(|_| {
            let mut main = Span::new("frame", t, 0);
            for &(name, ms) in names {
                let s = Span::new(name, t, t + rng.ns(ms, 0.01));
                t = s.end_ns;
                main = main.child(s);
            }
            main.end_ns = t;
            t += rng.ns(between_ms, 0.01);
            vec![("main".to_owned(), vec![main])]
        })
        .collect();
    record(&frames)
}

fn report(a: &[u8], b: &[u8]) -> Value {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.puffin"), a).unwrap();
    std::fs::write(dir.path().join("b.puffin"), b).unwrap();
    let (_, v) = common::json_in(
        dir.path(),
        &["report", "a.puffin", "b.puffin", "--format", "json"],
    );
    v["comparison"].clone()
}

fn f(v: &Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"))
}

/// Half the busy names changed (+10% to +60% a call) on a clock with no
/// drift: the drift rests on the four that did not, is about 0, and no bar
/// is the machine's; the headline's figure is its interval's estimate.
#[test]
fn the_drift_rests_on_the_names_that_did_not_change() {
    let names_a: Vec<(&'static str, f64)> = vec![
        ("a0", 0.5),
        ("a1", 0.7),
        ("a2", 0.9),
        ("a3", 1.1),
        ("c0", 0.5),
        ("c1", 0.6),
        ("c2", 0.8),
        ("c3", 1.0),
    ];
    let ratios = [1.0, 1.0, 1.0, 1.0, 1.1, 1.25, 1.4, 1.6];
    let names_b: Vec<(&'static str, f64)> = names_a
        .iter()
        .zip(ratios)
        .map(|(&(n, ms), r)| (n, ms * r))
        .collect();
    let a = free_loop(&names_a, 2.0, 5);
    let b = free_loop(&names_b, 2.0, 6);
    let c = report(&a, &b);
    let d = &c["drift"];
    assert_eq!(d["scopes_used"], 8, "{d:#}");
    assert_eq!(d["scopes_unchanged"], 4, "{d:#}");
    assert!(f(&d["pct"]).abs() < 1.0, "{d:#}");
    let g = &c["glance"];
    assert!(
        g["bars"]
            .as_array()
            .unwrap()
            .iter()
            .all(|b| b["part"] != "drift"),
        "{g:#}"
    );
    // The two largest changes (+0.32, +0.60 ms a frame) are causes, and
    // only changed names are (+0.05 ms is the band's floor; +0.15 ms is
    // judged against every name's spread, changed names' included, held
    // to the prior: it may stay inconclusive).
    let causes: Vec<&str> = g["bars"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|b| b["part"] == "cause")
        .map(|b| b["label"].as_str().unwrap())
        .collect();
    assert!(causes.contains(&"c2") && causes.contains(&"c3"), "{g:#}");
    assert!(causes.iter().all(|n| n.starts_with('c')), "{causes:?}");
    let e = &c["frame"]["effect"];
    let h = g["headline"].as_str().unwrap();
    let want = format!("{:.3} ms", f(&e["delta_ns"]) / 1e6);
    assert!(h.contains(&want), "{h} / {e}");
}
