//! The query API behind the web page's `puffinLens.query(name, args)` and
//! `summary()` answers exactly what the CLI prints with `--json`.

mod common;

use common::{code, run_in, stderr, temp_file};
use puffin_lens::engine::api::{self, QueryError};
use puffin_lens::engine::write::puffin::{
    Compression, Format, FrameData, ScopeNode, ThreadData, synthetic_capture, write_recording,
};
use serde_json::{Value, json};
use std::path::Path;

const SAMPLE: &str = "threads_demo.puffin";

fn samples() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/samples"))
}

fn decode(path: &Path) -> puffin_lens::engine::Decoded {
    puffin_lens::engine::load(&std::fs::read(path).expect("read")).expect("decodes")
}

fn cli_json(dir: &Path, args: &[&str]) -> String {
    let out = run_in(dir, args);
    assert_eq!(code(&out), 0, "{args:?}: {}", stderr(&out));
    let text = String::from_utf8(out.stdout).expect("utf-8");
    text.strip_suffix('\n')
        .expect("ends with a newline")
        .to_owned()
}

#[test]
fn every_query_answers_as_the_cli_json() {
    let dir = samples();
    let trace = decode(&dir.join(SAMPLE)).trace;
    let cases: Vec<(&str, Value, Vec<&str>)> = vec![
        ("frames", Value::Null, vec![]),
        ("frames", json!({"top": 3}), vec!["--top", "3"]),
        ("threads", json!({}), vec![]),
        ("threads", json!({"frame": 3}), vec!["--frame", "3"]),
        ("top", Value::Null, vec![]),
        ("top", json!({"top": 4}), vec!["--top", "4"]),
        ("find", json!({"prefix": "job"}), vec!["job"]),
        (
            "find",
            json!({"prefix": "w", "field": "data", "top": 3, "thread": ""}),
            vec!["w", "--field", "data", "--top", "3", "--thread", ""],
        ),
        ("find", json!({"aggregate": true}), vec!["--aggregate"]),
        (
            "find",
            json!({"aggregate": true, "by": "name", "frame": 8}),
            vec!["--aggregate", "--by", "name", "--frame", "8"],
        ),
        (
            "children",
            json!({"name": "frame_body"}),
            vec!["frame_body"],
        ),
        (
            "children",
            json!({"name": "worker", "ordered": true}),
            vec!["worker", "--ordered"],
        ),
        ("calls", json!({"name": "serial_tail"}), vec!["serial_tail"]),
        ("tree", Value::Null, vec![]),
        (
            "tree",
            json!({"frame": 3, "thread": "main", "depth": 2}),
            vec!["--frame", "3", "--thread", "main", "--depth", "2"],
        ),
        ("callers", json!({"name": "job"}), vec!["job"]),
        (
            "window",
            json!({"lo": 1795967542988049428_i64, "hi": 1795967543000000000_i64, "top": 2}),
            vec!["1795967542988049428", "1795967543000000000", "--top", "2"],
        ),
        ("gaps", json!({"min_ms": 0.05}), vec!["--min-ms", "0.05"]),
        (
            "gaps",
            json!({"thread": "main", "min_ms": 0.01}),
            vec!["--thread", "main", "--min-ms", "0.01"],
        ),
        ("scope", json!({"id": 2}), vec!["2"]),
    ];
    for (name, args, extra) in cases {
        let answer = api::query_json(&trace, None, name, &args)
            .unwrap_or_else(|err| panic!("{name} {args}: {err}"));
        let mut cli_args = vec![name, SAMPLE];
        cli_args.extend(extra);
        cli_args.push("--json");
        assert_eq!(answer, cli_json(dir, &cli_args), "{name} {args}");
    }
}

/// A before/after pair: `b` has a slower `update` and a new scope.
fn pair() -> (Vec<u8>, Vec<u8>) {
    let mut before = synthetic_capture(4, 2, 30);
    let after = before.clone();
    before.push(FrameData {
        frame_index: 99,
        threads: vec![ThreadData {
            name: "main".into(),
            start_time_ns: Some(0),
            scopes: vec![ScopeNode::new(1, 10_000_000_000, 10_030_000_000).data("extra")],
        }],
        registrations: Vec::new(),
    });
    let format = Format::Pfd4(Compression::Zstd);
    (
        write_recording(&before, format),
        write_recording(&after, format),
    )
}

#[test]
fn compare_and_diff_answer_as_the_cli_and_need_b() {
    let (a, b) = pair();
    let (dir, a_path) = temp_file("a.puffin", &a);
    std::fs::write(dir.path().join("b.puffin"), &b).expect("write b");
    let ta = decode(&a_path).trace;
    let tb = decode(&dir.path().join("b.puffin")).trace;
    for (name, args, extra) in [
        ("compare", Value::Null, vec![]),
        (
            "compare",
            json!({"top": 5, "sort": "per-call", "hide_below": 0.001}),
            vec!["--top", "5", "--sort", "per-call", "--hide-below", "0.001"],
        ),
        ("compare", json!({"filter": "ex"}), vec!["--filter", "ex"]),
        ("diff", Value::Null, vec![]),
        (
            "diff",
            json!({"thread": "main", "depth": 2}),
            vec!["--thread", "main", "--depth", "2"],
        ),
    ] {
        let answer = api::query_json(&ta, Some(&tb), name, &args).expect("answers");
        let mut cli_args = vec![name, "a.puffin", "b.puffin", "--json"];
        cli_args.extend(extra);
        assert_eq!(answer, cli_json(dir.path(), &cli_args), "{name} {args}");
    }
    for name in ["compare", "diff"] {
        assert!(matches!(
            api::query_json(&ta, None, name, &Value::Null),
            Err(QueryError::NoB)
        ));
    }
}

#[test]
fn summary_is_what_the_cli_prints() {
    let dir = samples();
    let decoded = decode(&dir.join(SAMPLE));
    let summary = api::summary(SAMPLE, &decoded).to_json();
    let dir_arg = dir.join(SAMPLE);
    // The CLI names the file without its directories, as the web app does.
    let out = cli_json(
        Path::new("/"),
        &["summary", &dir_arg.to_string_lossy(), "--json"],
    );
    assert_eq!(summary, out);
    let s: Value = serde_json::from_str(&summary).expect("parses");
    assert_eq!(s["frames"], 12);
    assert_eq!(s["threads"], 4, "main plus three unnamed workers per frame");
    assert_eq!(s["scopes"], 504);
    assert_eq!(s["formats"], json!(["PFD4"]));
    assert_eq!(s["slowest_frame_index"], 8);
}

#[test]
fn summary_of_a_damaged_file_lists_its_problems_and_exits_3() {
    let bytes = std::fs::read(samples().join(SAMPLE)).expect("read");
    let (dir, _) = temp_file("cut.puffin", &bytes[..bytes.len() - 100]);
    let out = run_in(dir.path(), &["summary", "cut.puffin", "--json"]);
    assert_eq!(code(&out), 3, "{}", stderr(&out));
    let s: Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(s["damaged"], true);
    assert_eq!(s["frames"], 11);
    let first = s["diagnostics"][0].as_str().expect("a diagnostic");
    assert!(first.starts_with("damaged: frame #11"), "{first}");
}

#[test]
fn bad_questions_get_clear_errors() {
    let trace = decode(&samples().join(SAMPLE)).trace;
    let err = |name: &str, args: Value| {
        api::query_json(&trace, None, name, &args)
            .expect_err("an error")
            .to_string()
    };
    assert_eq!(
        err("nope", Value::Null),
        "unknown query \"nope\" (known: frames, threads, top, find, tree, children, callers, calls, window, gaps, compare, diff, pacing, scope)"
    );
    let msg = err("top", json!({"top": "ten"}));
    assert!(
        msg.starts_with("bad arguments for top: top: invalid type: string \"ten\""),
        "{msg}"
    );
    let msg = err("top", json!({"limit": 3}));
    assert!(msg.contains("unknown field `limit`"), "{msg}");
    let msg = err("children", json!({}));
    assert!(msg.contains("missing field `name`"), "{msg}");
    // Not-found answers carry the CLI's message.
    let api_msg = err("calls", json!({"name": "missing"}));
    let out = run_in(samples(), &["calls", SAMPLE, "missing", "--json"]);
    assert_eq!(code(&out), 1);
    assert_eq!(
        stderr(&out).trim(),
        format!("puffin-lens: {SAMPLE}: {api_msg}")
    );
    let api_msg = err("scope", json!({"id": 77}));
    let out = run_in(samples(), &["scope", SAMPLE, "77"]);
    assert_eq!(
        stderr(&out).trim(),
        format!("puffin-lens: {SAMPLE}: {api_msg}")
    );
}

/// A count past every scope means all of them, not an allocation of that
/// size (the query fuzzer found `{"top": 4000000000000000}` aborting):
/// every analysis with a count answers, in the API and the CLI alike.
#[test]
fn a_count_larger_than_the_recording_answers_with_everything() {
    let dir = samples();
    let trace = decode(&dir.join(SAMPLE)).trace;
    let huge = "4000000000000000";
    for (name, key) in [("top", "top"), ("frames", "top"), ("find", "top")] {
        let args = json!({ key: 4_000_000_000_000_000u64 });
        let ask = |args: &Value| -> Value {
            let text = api::query_json(&trace, None, name, args).expect(name);
            serde_json::from_str(&text).expect("JSON")
        };
        let answer = ask(&args);
        let every = ask(&json!({ key: trace.scopes.len() }));
        assert_eq!(answer, every, "{name}: everything, once");
        let flag = format!("--{key}");
        let cli = cli_json(dir, &[name, SAMPLE, &flag, huge, "--json"]);
        assert_eq!(
            serde_json::from_str::<Value>(&cli).unwrap(),
            answer,
            "{name}"
        );
    }
}
