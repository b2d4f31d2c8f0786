//! Bad arguments, over a table: every subcommand exits 2 with a clear
//! `error:` line naming what is wrong; every analysis through the query API
//! (what `puffinLens.query` throws) names the bad key or value.

mod common;

use common::{code, run_in, stderr};
use puffin_lens::engine::{self, api};
use serde_json::{Value, json};
use std::path::Path;

const SAMPLE: &str = "threads_demo.puffin";

fn samples() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/samples"))
}

#[test]
fn every_subcommand_refuses_bad_arguments_with_exit_2() {
    let f = SAMPLE;
    // (arguments, what the error line must name)
    let cases: &[(&[&str], &str)] = &[
        (&["frames", f, "--top", "x"], "--top"),
        (&["threads", f, "--frame", "-3"], "-3"),
        (&["top", f, "--top", "ten"], "--top"),
        (&["find", f, "--field", "both"], "--field"),
        (&["find", f, "--by", "name"], "--aggregate"),
        (&["tree", f, "--depth", "deep"], "--depth"),
        (&["children", f], "<NAME>"),
        (&["callers", f, "a", "b"], "'b'"),
        (&["calls", f, "--nope"], "--nope"),
        (&["window", f, "1"], "<HI>"),
        (&["window", f, "a", "b"], "'a'"),
        (&["gaps", f, "--min-ms", "fast"], "--min-ms"),
        (&["compare", f], "<B>"),
        (&["compare", f, f, "--sort", "size"], "--sort"),
        (&["diff", f, f, "--depth", "-1"], "-1"),
        (&["scope", f, "x"], "<ID>"),
        (&["summary"], "<FILE>"),
        (&["dump", f, "--pretty=yes"], "--pretty"),
        (&["report", f, "--format", "pdf"], "--format"),
        (&["report", f, "--top", "0"], "--top"),
        (&["export", f], "--output"),
        (&["export", f, "-o", "out", "--format", "csv"], "--format"),
        (&["record", "127.0.0.1:1"], "--output"),
        (
            &["record", "127.0.0.1:1", "-o", "x", "--frames", "0"],
            "--frames",
        ),
        (&["relay", "--listen"], "--listen"),
        (&["connect", "a", "b"], "'b'"),
        (&["install-desktop", "--force"], "--force"),
        (&["open", "a", "b", "c"], "'c'"),
        (&["nope"], "'nope'"),
    ];
    for (args, names) in cases {
        let out = run_in(samples(), args);
        let err = stderr(&out);
        assert_eq!(code(&out), 2, "{args:?}: {err}");
        assert!(err.starts_with("error: "), "{args:?}: {err}");
        // The message: what clap prints before the usage line.
        let message = err.split("Usage:").next().unwrap_or_default();
        assert!(
            message.contains(names),
            "{args:?}: {message:?} should name {names}"
        );
        assert!(out.stdout.is_empty(), "{args:?}: printed to stdout");
    }
}

#[test]
fn every_analysis_names_the_bad_key_or_value() {
    let bytes = std::fs::read(samples().join(SAMPLE)).unwrap();
    let trace = engine::load(&bytes).unwrap().trace;
    // (query, arguments, what the message must contain)
    let cases: Vec<(&str, Value, &str)> = vec![
        ("frames", json!({ "top": -1 }), "top"),
        ("frames", json!({ "limit": 1 }), "unknown field `limit`"),
        ("threads", json!({ "frame": "slowest" }), "frame"),
        (
            "top",
            json!({ "top": "ten" }),
            "invalid type: string \"ten\"",
        ),
        ("find", json!({ "field": "both" }), "unknown variant `both`"),
        ("find", json!({ "by": 3 }), "by"),
        ("tree", json!({ "depth": -2 }), "depth"),
        ("tree", json!({ "thread": 7 }), "thread"),
        ("children", json!({}), "missing field `name`"),
        (
            "children",
            json!({ "name": "x", "ordered": "yes" }),
            "ordered",
        ),
        ("callers", json!({ "name": null }), "name"),
        ("calls", json!({ "nam": "x" }), "missing field `name`"),
        (
            "calls",
            json!({ "name": "x", "nam": "x" }),
            "unknown field `nam`",
        ),
        ("calls", json!({ "name": "x", "alpha": 2 }), "alpha"),
        ("compare", json!({ "noise_pct": -1 }), "noise_pct"),
        (
            "compare",
            json!({ "fail_on_regression": "a lot" }),
            "fail_on_regression",
        ),
        (
            "compare",
            json!({ "noize_pct": 1 }),
            "unknown field `noize_pct`",
        ),
        ("window", json!({ "lo": 1 }), "missing field `hi`"),
        ("window", json!({ "lo": "a", "hi": 2 }), "lo"),
        ("gaps", json!({ "min_ms": "fast" }), "min_ms"),
        ("gaps", json!({ "min-ms": 1 }), "unknown field `min-ms`"),
        (
            "compare",
            json!({ "sort": "size" }),
            "unknown variant `size`",
        ),
        ("diff", json!({ "depth": "all" }), "depth"),
        ("scope", json!({}), "missing field `id`"),
        ("scope", json!({ "id": -1 }), "id"),
        ("nope", json!({}), "unknown query \"nope\""),
        ("top", json!([1, 2]), "top"),
    ];
    for (name, args, needle) in cases {
        let err = api::query_json(&trace, Some(&trace), name, &args)
            .expect_err(&format!("{name} {args} is refused"))
            .to_string();
        assert!(
            err.contains(needle),
            "{name} {args}: {err:?} should contain {needle:?}"
        );
        assert!(!err.contains('\n'), "{name} {args}: one line: {err:?}");
    }
}
