//! A printed thread name is an accepted name: `--thread` (and the query
//! API's `thread`) takes the label the tables print, `(unnamed)` for a
//! thread named `""` (the Rerun SDK's main thread), as well as the raw name;
//! a thread no recording has is a usage error naming the threads, never an
//! empty answer.

mod common;

use common::{code, run, stderr, temp_file};
use puffin_lens::engine::api::{self, QueryError};
use puffin_lens::engine::write::puffin::{Compression, Format, synthetic_capture, write_recording};
use serde_json::{Value, json};

/// The Rerun SDK's capture: its main thread is named "".
const SDK: &str = "tests/fixtures/real/rerun_sdk_points.puffin";

fn ok_stdout(args: &[&str]) -> String {
    let out = run(args);
    assert_eq!(code(&out), 0, "{args:?}: {}", stderr(&out));
    String::from_utf8(out.stdout).expect("utf-8")
}

fn ok_json(args: &[&str]) -> Value {
    let mut with_json = args.to_vec();
    with_json.push("--json");
    serde_json::from_str(&ok_stdout(&with_json)).expect("JSON")
}

/// The thread column of the `threads` table (its first cell: a name, then
/// two spaces or more), as printed.
fn printed_threads(file: &str) -> Vec<String> {
    ok_stdout(&["threads", file])
        .lines()
        .skip(2) // "frame …" and the header
        .map(|l| l.split("  ").next().unwrap_or_default().to_owned())
        .collect()
}

/// The threads of a `tree --json` answer, by name.
fn tree_threads(tree: &Value) -> Vec<&str> {
    tree["threads"]
        .as_array()
        .expect("threads")
        .iter()
        .map(|t| t["name"].as_str().expect("name"))
        .collect()
}

#[test]
fn the_sdk_main_thread_is_selected_by_its_printed_label() {
    let printed = printed_threads(SDK);
    assert!(
        printed.iter().any(|t| t == "(unnamed)"),
        "the threads table prints the main thread as (unnamed): {printed:?}"
    );

    // tree: the label and the raw name give the same answer, the main
    // thread's ("" in JSON), with its time.
    let by_label = ok_json(&["tree", SDK, "--thread", "(unnamed)"]);
    assert_eq!(by_label, ok_json(&["tree", SDK, "--thread", ""]));
    assert_eq!(tree_threads(&by_label), [""]);
    assert!(by_label["threads"][0]["total_ns"].as_i64().unwrap() > 0);
    assert!(
        !by_label["threads"][0]["roots"]
            .as_array()
            .unwrap()
            .is_empty()
    );

    // Every label the table prints selects that one thread.
    let all = ok_json(&["tree", SDK]);
    assert_eq!(tree_threads(&all).len(), printed.len());
    for label in &printed {
        let one = ok_json(&["tree", SDK, "--thread", label]);
        assert_eq!(one["threads"].as_array().unwrap().len(), 1, "{label}");
        let name = tree_threads(&one)[0];
        assert!(name == label || (name.is_empty() && label == "(unnamed)"));
    }

    // find: the main thread's scopes, and only them.
    let found = ok_json(&["find", SDK, "--thread", "(unnamed)", "--top", "1000"]);
    assert_eq!(
        found,
        ok_json(&["find", SDK, "--thread", "", "--top", "1000"])
    );
    let rows = found.as_array().unwrap();
    assert!(!rows.is_empty());
    assert!(rows.iter().all(|r| r["thread"] == ""), "{found}");
    let everything = ok_json(&["find", SDK, "--top", "100000"]);
    let on_main = everything
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["thread"] == "")
        .count();
    assert_eq!(rows.len(), on_main);

    // gaps: the main thread's, printed as its label, none "between frames"
    // (the capture is one frame).
    let gaps = ok_json(&["gaps", SDK, "--thread", "(unnamed)", "--min-ms", "0"]);
    assert_eq!(
        gaps,
        ok_json(&["gaps", SDK, "--thread", "", "--min-ms", "0"])
    );
    let list = gaps["gaps"].as_array().unwrap();
    assert!(!list.is_empty(), "{gaps}");
    assert!(list.iter().all(|g| g["thread"] == ""), "{gaps}");
    let text = ok_stdout(&["gaps", SDK, "--thread", "(unnamed)", "--min-ms", "0"]);
    assert!(text.contains("(unnamed) (top level)"), "{text}");
    assert!(!text.contains("between frames"), "{text}");

    // diff and the flame graph take it too.
    let diff = ok_json(&["diff", SDK, SDK, "--thread", "(unnamed)"]);
    assert_eq!(diff, ok_json(&["diff", SDK, SDK, "--thread", ""]));
    assert_eq!(diff["threads"].as_array().unwrap().len(), 1);
    assert_eq!(diff["threads"][0]["name"], "");
    let folded = ok_stdout(&["flamegraph", SDK, "--folded", "--thread", "(unnamed)"]);
    assert_eq!(
        folded,
        ok_stdout(&["flamegraph", SDK, "--folded", "--thread", ""])
    );
    assert!(!folded.is_empty());
    assert!(
        folded.lines().all(|l| l.starts_with("(unnamed);")),
        "{folded}"
    );

    // calls (no --thread of its own) prints the same label, which the
    // others accept.
    let main_scope = rows[0]["name"].as_str().unwrap();
    let calls = ok_stdout(&["calls", SDK, main_scope]);
    assert!(calls.contains("  (unnamed)  "), "{calls}");
}

#[test]
fn an_unknown_thread_is_a_usage_error_naming_the_threads() {
    let mut labels = printed_threads(SDK);
    labels.sort();
    labels.dedup();
    let listed = labels
        .iter()
        .map(|l| format!("\"{l}\""))
        .collect::<Vec<_>>()
        .join(", ");
    // (arguments, the thread asked for as the message quotes it)
    let cases: &[(&[&str], &str)] = &[
        (&["tree", SDK, "--thread", "nope"], "\"nope\""),
        (&["find", SDK, "--thread", "nope"], "\"nope\""),
        (
            &["find", SDK, "--thread", "nope", "--aggregate"],
            "\"nope\"",
        ),
        (&["gaps", SDK, "--thread", "nope"], "\"nope\""),
        (
            &["diff", SDK, SDK, "--thread", "nope", "--json"],
            "\"nope\"",
        ),
        (
            &["flamegraph", SDK, "--folded", "--thread", "nope"],
            "\"nope\"",
        ),
        // This capture has no thread named "main".
        (&["tree", SDK, "--thread", "main", "--json"], "\"main\""),
        // A control character is shown, not sent to the terminal.
        (
            &["gaps", SDK, "--thread", "a\u{1b}[2Jb"],
            "\"a\\u{1b}[2Jb\"",
        ),
    ];
    for (args, asked) in cases {
        let out = run(args);
        let err = stderr(&out);
        assert_eq!(code(&out), 2, "{args:?}: {err}");
        assert!(out.stdout.is_empty(), "{args:?}: printed to stdout");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(err.starts_with("puffin-lens: error: "), "{args:?}: {err}");
        assert!(err.contains("rerun_sdk_points.puffin"), "{args:?}: {err}");
        assert!(
            err.contains(&format!("no thread {asked} ")),
            "{args:?}: {err}"
        );
        assert!(
            err.contains(&listed),
            "{args:?}: {err} should list {listed}"
        );
    }
}

#[test]
fn the_query_api_takes_the_label_and_refuses_an_unknown_thread_alike() {
    let trace = puffin_lens::engine::load(&std::fs::read(SDK).unwrap())
        .unwrap()
        .trace;
    for (query, extra) in [
        ("tree", json!({})),
        ("find", json!({"top": 1000})),
        ("gaps", json!({"min_ms": 0.0})),
    ] {
        let with = |thread: &str| {
            let mut args = extra.clone();
            args["thread"] = json!(thread);
            api::query_json(&trace, None, query, &args)
        };
        let by_label = with("(unnamed)").expect("answers");
        assert_eq!(by_label, with("").expect("answers"), "{query}");
        // What the CLI prints.
        let mut cli: Vec<String> = vec![query.into(), SDK.into(), "--thread".into()];
        cli.push("(unnamed)".into());
        for (k, v) in extra.as_object().unwrap() {
            cli.push(format!("--{}", k.replace('_', "-")));
            cli.push(v.to_string());
        }
        cli.push("--json".into());
        let cli: Vec<&str> = cli.iter().map(String::as_str).collect();
        assert_eq!(format!("{by_label}\n"), ok_stdout(&cli), "{query}");

        // An unknown thread: the CLI's message, without the file.
        let err = with("nope").expect_err("unknown thread");
        assert!(matches!(err, QueryError::UnknownThread(_)), "{err:?}");
        let out = run(&[query, SDK, "--thread", "nope"]);
        let prefix = format!("puffin-lens: error: {SDK}: ");
        assert_eq!(
            stderr(&out).strip_prefix(&prefix).map(str::trim_end),
            Some(err.to_string().as_str()),
            "{query}"
        );
    }
}

#[test]
fn a_thread_literally_named_unnamed_wins_over_the_label() {
    let mut frames = synthetic_capture(3, 2, 40);
    for f in &mut frames {
        f.threads[0].name = "(unnamed)".into();
        f.threads[1].name = String::new();
    }
    let (_dir, path) = temp_file(
        "literal.puffin",
        &write_recording(&frames, Format::Pfd4(Compression::Lz4)),
    );
    let file = path.to_str().unwrap();
    let literal = ok_json(&["tree", file, "--thread", "(unnamed)"]);
    assert_eq!(tree_threads(&literal), ["(unnamed)"]);
    let empty = ok_json(&["tree", file, "--thread", ""]);
    assert_eq!(tree_threads(&empty), [""]);
    assert_ne!(literal["threads"][0]["total_ns"], Value::Null);
    // Both print as "(unnamed)": listed once.
    let out = run(&["tree", file, "--thread", "nope"]);
    assert_eq!(code(&out), 2);
    assert!(
        stderr(&out).contains("(threads: \"(unnamed)\", \"worker-2\")"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn an_empty_path_prints_readably() {
    let a = "tests/fixtures/real/rerun_viewer_plots_a.puffin";
    let b = "tests/fixtures/real/rerun_viewer_plots_b.puffin";
    for args in [
        vec!["report", a, b],
        vec!["report", SDK, SDK],
        vec!["report", SDK],
    ] {
        let md = ok_stdout(&args);
        assert!(!md.contains("` `"), "{args:?}: an empty code span in\n{md}");
    }
}
