//! The recordings in tests/fixtures (copied from shared/fixtures) dump
//! byte for byte to their expected exports, and JSON dumps load back.

mod common;

use common::{code, fixtures_dir, run_in};
use puffin_lens::engine;

const FIXTURES: [&str; 5] = [
    "capture_PFD1",
    "capture_PFD2",
    "capture_PFD3",
    "capture_PFD4",
    "threads_pfd4",
];

fn expected(name: &str) -> Vec<u8> {
    std::fs::read(fixtures_dir().join(format!("{name}.expected.json"))).expect("expected export")
}

#[test]
fn cli_dump_matches_expected_exports() {
    for name in FIXTURES {
        let file = format!("{name}.puffin");
        let out = run_in(&fixtures_dir(), &["dump", &file]);
        assert_eq!(code(&out), 0, "{name}: {}", common::stderr(&out));
        assert!(out.stderr.is_empty(), "{name}: {}", common::stderr(&out));
        assert!(
            out.stdout == expected(name),
            "{name}: dump differs from {name}.expected.json"
        );
    }
}

#[test]
fn dump_to_file_matches_and_pretty_is_the_same_document() {
    let dir = tempfile::tempdir().expect("temp dir");
    let out_path = dir.path().join("out.json");
    let out = run_in(
        &fixtures_dir(),
        &[
            "dump",
            "threads_pfd4.puffin",
            "-o",
            out_path.to_str().unwrap(),
        ],
    );
    assert_eq!(code(&out), 0);
    assert!(out.stdout.is_empty());
    assert_eq!(std::fs::read(&out_path).unwrap(), expected("threads_pfd4"));

    let pretty = run_in(
        &fixtures_dir(),
        &["dump", "threads_pfd4.puffin", "--pretty"],
    );
    assert_eq!(code(&pretty), 0);
    let text = String::from_utf8(pretty.stdout).unwrap();
    assert!(text.starts_with("{\n  \"file\": \"threads_pfd4.puffin\",\n  \"scopes\": {\n"));
    let a: serde_json::Value = serde_json::from_str(&text).unwrap();
    let b: serde_json::Value = serde_json::from_slice(&expected("threads_pfd4")).unwrap();
    assert_eq!(a, b);
    // serde_json's pretty layout: nested indents, empty arrays inline.
    assert!(text.contains("\n          \"range_ns\": [\n            "));
    assert!(text.contains("\"children\": []"));
    assert!(text.ends_with("\n  ]\n}"));
}

#[test]
fn json_round_trip_is_byte_identical() {
    for name in FIXTURES {
        let bytes = std::fs::read(fixtures_dir().join(format!("{name}.puffin"))).unwrap();
        let decoded = engine::load(&bytes).unwrap();
        let file = format!("{name}.puffin");
        let first = engine::export_string(&decoded.trace, &file, false);
        let reloaded = engine::load(first.as_bytes()).unwrap();
        assert!(reloaded.trace.format.from_json);
        let second = engine::export_string(&reloaded.trace, &file, false);
        assert!(first == second, "{name}: dump -> load -> dump differs");
        assert_eq!(reloaded.trace.scopes.len(), decoded.trace.scopes.len());
        assert_eq!(reloaded.trace.scopes.self_ns, decoded.trace.scopes.self_ns);
        assert_eq!(reloaded.trace.scopes.parent, decoded.trace.scopes.parent);
    }
}

#[test]
fn cli_accepts_json_dumps_as_input() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("dump.json"), expected("capture_PFD4")).unwrap();
    let out = run_in(dir.path(), &["dump", "dump.json"]);
    assert_eq!(code(&out), 0, "{}", common::stderr(&out));
    let expected = String::from_utf8(expected("capture_PFD4"))
        .unwrap()
        .replacen("\"capture_PFD4.puffin\"", "\"dump.json\"", 1);
    assert_eq!(String::from_utf8(out.stdout).unwrap(), expected);
}

#[test]
fn json_keys_in_any_order_and_unknown_keys_are_accepted() {
    // As another tool might write it: children before the other fields,
    // extra keys, scopes after frames, no thread metadata.
    let doc = r#"{"frames":[{"threads":[{"scopes":[{"children":[{"data":"","id":2,"duration_ns":3,"start_ns":11,"name":"inner","children":[]}],
        "extra":true,"id":1,"name":"outer","start_ns":10,"duration_ns":10,"data":"d"}],"name":"main"}],
        "frame_index":7,"range_ns":[10,20],"num_scopes":2}],
        "scopes":{"1":{"name":"outer","function":"f","file":"a.rs","line":3,"kind":"named"}},"file":"x"}"#;
    let decoded = engine::load(doc.as_bytes()).unwrap();
    let t = &decoded.trace;
    assert_eq!(t.frames.frame_index, vec![7]);
    assert_eq!(t.scopes.len(), 2);
    assert_eq!(t.scope_name(engine::ScopeIdx(0)), "outer");
    assert_eq!(t.scope_name(engine::ScopeIdx(1)), "inner");
    assert_eq!(t.scopes.self_ns, vec![7, 3]);
    assert_eq!(t.scope_data(engine::ScopeIdx(0)), "d");
    assert_eq!(t.thread_name(t.scope_thread(engine::ScopeIdx(1))), "main");
}
