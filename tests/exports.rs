//! `export --format chrome|speedscope|folded`: the Trace Event Format, the
//! speedscope file format and folded stacks, checked against the model they
//! come from (event counts, per-thread sums, nesting, exact times), on the
//! analyses' scenario, a hostile recording, a damaged file and a JSON dump.

mod common;

use common::hostile::{hostile_capture, hostile_strings};
use common::scenario::*;
use common::{code, run, stderr, temp_file};
use puffin_lens::engine::write::puffin::{Compression, Format, FrameData, write_recording};
use serde_json::Value;
use std::collections::BTreeMap;

fn write(frames: &[FrameData], name: &str) -> (tempfile::TempDir, String) {
    let (dir, path) = temp_file(
        name,
        &write_recording(frames, Format::Pfd4(Compression::Lz4)),
    );
    (dir, path.to_str().unwrap().to_owned())
}

fn stdout_of(args: &[&str], status: i32) -> String {
    let out = run(args);
    assert_eq!(code(&out), status, "{args:?}: {}", stderr(&out));
    String::from_utf8(out.stdout).unwrap()
}

fn export(file: &str, format: &str) -> Value {
    serde_json::from_str(&stdout_of(
        &["export", file, "-o", "-", "--format", format],
        0,
    ))
    .unwrap_or_else(|e| panic!("{format}: not JSON: {e}"))
}

/// (start_ns, duration_ns, name, thread) of every scope, from the JSON export.
fn scopes(file: &str) -> (i64, Vec<(i64, i64, String, String)>) {
    let dump: Value = serde_json::from_str(&stdout_of(&["dump", file], 0)).unwrap();
    let mut out = Vec::new();
    let mut origin = i64::MAX;
    fn walk(s: &Value, thread: &str, out: &mut Vec<(i64, i64, String, String)>) {
        out.push((
            s["start_ns"].as_i64().unwrap(),
            s["duration_ns"].as_i64().unwrap(),
            s["name"].as_str().unwrap().to_owned(),
            thread.to_owned(),
        ));
        for c in s["children"].as_array().into_iter().flatten() {
            walk(c, thread, out);
        }
    }
    for f in dump["frames"].as_array().unwrap() {
        origin = origin.min(f["range_ns"][0].as_i64().unwrap());
        for t in f["threads"].as_array().unwrap() {
            let name = t["name"].as_str().unwrap_or("");
            for s in t["scopes"].as_array().unwrap() {
                walk(s, name, &mut out);
            }
        }
    }
    (origin, out)
}

#[test]
fn chrome_trace_holds_every_scope_as_a_complete_event_at_its_exact_time() {
    let (_d, a) = write(&scenario(), "s.puffin");
    let trace = export(&a, "chrome");
    assert_eq!(trace["displayTimeUnit"], "ns");
    let events = trace["traceEvents"].as_array().unwrap();
    let (origin, expected) = scopes(&a);
    assert_eq!(trace["otherData"]["start_ns"], origin.to_string());
    let tid_name: BTreeMap<i64, String> = events
        .iter()
        .filter(|e| e["ph"] == "M" && e["name"] == "thread_name")
        .map(|e| {
            (
                e["tid"].as_i64().unwrap(),
                e["args"]["name"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    assert_eq!(
        tid_name.values().collect::<Vec<_>>(),
        ["main", "rayon-1", "rayon-2"],
        "a lane per thread, in order of appearance"
    );
    let complete: Vec<&Value> = events.iter().filter(|e| e["ph"] == "X").collect();
    assert_eq!(complete.len(), expected.len(), "one event per scope");
    let mut got: Vec<(i64, i64, String, String)> = complete
        .iter()
        .map(|e| {
            let us = |v: &Value| (v.as_f64().unwrap() * 1000.0).round() as i64;
            (
                us(&e["ts"]) + origin,
                us(&e["dur"]),
                e["name"].as_str().unwrap().to_owned(),
                tid_name[&e["tid"].as_i64().unwrap()].clone(),
            )
        })
        .collect();
    let mut want = expected.clone();
    got.sort();
    want.sort();
    assert_eq!(got, want);
    // Frames as global instants; a parent before its child at equal starts.
    let frames: Vec<&str> = events
        .iter()
        .filter(|e| e["ph"] == "i")
        .map(|e| e["name"].as_str().unwrap())
        .collect();
    assert_eq!(frames, ["frame 10", "frame 11", "frame 12"]);
    let main: Vec<&str> = complete
        .iter()
        .filter(|e| tid_name[&e["tid"].as_i64().unwrap()] == "main")
        .map(|e| e["name"].as_str().unwrap())
        .take(4)
        .collect();
    assert_eq!(main, ["frame", "app::update", "app::render", "load"]);
    let load = complete.iter().find(|e| e["name"] == "load").unwrap();
    assert_eq!(load["args"]["data"], "tex.png");
    assert_eq!(load["args"]["file"], "src/assets.rs");
    assert_eq!(load["args"]["line"], 42);
    assert_eq!(load["args"]["frame_index"], 10);
}

#[test]
fn speedscope_profiles_open_and_close_every_scope_in_order() {
    let (_d, a) = write(&scenario(), "s.puffin");
    let doc = export(&a, "speedscope");
    assert_eq!(
        doc["$schema"],
        "https://www.speedscope.app/file-format-schema.json"
    );
    assert!(
        doc["exporter"]
            .as_str()
            .unwrap()
            .starts_with("puffin-lens ")
    );
    let frames = doc["shared"]["frames"].as_array().unwrap();
    let (origin, expected) = scopes(&a);
    let profiles = doc["profiles"].as_array().unwrap();
    let names: Vec<&str> = profiles
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["main", "rayon-1", "rayon-2"]);
    for p in profiles {
        assert_eq!(p["type"], "evented");
        assert_eq!(p["unit"], "nanoseconds");
        let mut stack: Vec<u64> = Vec::new();
        let mut last = i64::MIN;
        let mut opened = Vec::new();
        for e in p["events"].as_array().unwrap() {
            let at = e["at"].as_i64().unwrap();
            assert!(at >= last, "events in order");
            last = at;
            let f = e["frame"].as_u64().unwrap();
            match e["type"].as_str().unwrap() {
                "O" => {
                    stack.push(f);
                    opened.push((at + origin, frames[f as usize]["name"].as_str().unwrap()));
                }
                "C" => assert_eq!(stack.pop(), Some(f), "closes the innermost"),
                other => panic!("{other}"),
            }
        }
        assert!(stack.is_empty());
        let thread = p["name"].as_str().unwrap();
        let mut want: Vec<(i64, &str)> = expected
            .iter()
            .filter(|s| s.3 == thread)
            .map(|s| (s.0, s.2.as_str()))
            .collect();
        want.sort();
        opened.sort();
        assert_eq!(opened, want, "{thread}: every scope opened at its start");
    }
    let load = frames.iter().find(|f| f["name"] == "load").unwrap();
    assert_eq!(
        (load["file"].as_str(), load["line"].as_u64()),
        (Some("src/assets.rs"), Some(42))
    );
}

#[test]
fn folded_is_the_flamegraph_commands_stacks_and_files_land_in_the_folder() {
    let (dir, a) = write(&scenario(), "s.puffin");
    let folded = stdout_of(&["export", &a, "-o", "-", "--format", "folded"], 0);
    assert_eq!(folded, stdout_of(&["flamegraph", &a, "--folded"], 0));
    let out = dir.path().join("out");
    for format in ["chrome", "speedscope", "folded"] {
        stdout_of(
            &[
                "export",
                &a,
                "-o",
                out.to_str().unwrap(),
                "--format",
                format,
            ],
            0,
        );
    }
    let mut files: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    files.sort();
    assert_eq!(files, ["s.folded", "s.speedscope.json", "s.trace.json"]);
    // Stdout takes one recording of a single-file format.
    let out = run(&["export", &a, &a, "-o", "-", "--format", "chrome"]);
    assert_eq!(code(&out), 1);
    assert!(stderr(&out).contains("one recording"), "{}", stderr(&out));
    let out = run(&["export", &a, "-o", "-", "--format", "parquet"]);
    assert!(
        stderr(&out).contains("-o - (stdout) takes --format chrome"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn hostile_names_damaged_files_and_json_dumps() {
    let (dir, h) = write(&hostile_capture(false), "h.puffin");
    for format in ["chrome", "speedscope"] {
        let doc = export(&h, format);
        let text = doc.to_string();
        for name in hostile_strings() {
            let as_json = serde_json::to_string(&name).unwrap();
            assert!(
                text.contains(&as_json[1..as_json.len() - 1]),
                "{format}: {name:.60}"
            );
        }
    }
    let folded = stdout_of(&["export", &h, "-o", "-", "--format", "folded"], 0);
    assert!(folded.lines().all(|l| {
        l.rsplit_once(' ')
            .is_some_and(|(_, n)| n.parse::<i64>().is_ok())
    }));
    // A damaged file: its intact frames, exit 3.
    let bytes = write_recording(&scenario(), Format::Pfd4(Compression::Lz4));
    let cut = dir.path().join("cut.puffin");
    std::fs::write(&cut, &bytes[..bytes.len() - 20]).unwrap();
    let doc: Value = serde_json::from_str(&stdout_of(
        &[
            "export",
            cut.to_str().unwrap(),
            "-o",
            "-",
            "--format",
            "chrome",
        ],
        3,
    ))
    .unwrap();
    let frames = doc["traceEvents"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["ph"] == "i")
        .count();
    assert_eq!(frames, 2, "the two intact frames");
    // A JSON dump exports as its recording does (but for the file name).
    let (_d2, a) = write(&scenario(), "s.puffin");
    let dump = dir.path().join("s.json");
    std::fs::write(&dump, stdout_of(&["dump", &a], 0)).unwrap();
    let from_dump = export(dump.to_str().unwrap(), "chrome");
    let from_file = export(&a, "chrome");
    assert_eq!(from_dump["traceEvents"], from_file["traceEvents"]);
}
