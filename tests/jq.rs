//! The export works with the classic jq recipes written for `rerun dump-puffin`.
//! Needs `jq` on PATH (`.ci/run` installs it).

mod common;

use common::{code, run_in, temp_file};
use puffin_lens::engine::write::puffin::{Compression, Format, synthetic_capture, write_recording};
use puffin_lens::engine::{self, ScopeIdx};
use std::process::Command;

const TEN_SLOWEST: &str = r#"[.. | objects | select(has("duration_ns") and has("name"))] | sort_by(-.duration_ns) | .[0:10]"#;

fn jq(filter: &str, file: &std::path::Path) -> serde_json::Value {
    let out = Command::new("jq")
        .args(["-c", filter])
        .arg(file)
        .output()
        .expect("jq must be installed (apt-get install jq)");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("jq printed JSON")
}

#[test]
fn jq_ten_slowest_scopes_recipe() {
    let bytes = write_recording(
        &synthetic_capture(8, 2, 1_000),
        Format::Pfd4(Compression::Lz4),
    );
    let (dir, _) = temp_file("rec.puffin", &bytes);
    let out = run_in(dir.path(), &["dump", "rec.puffin", "-o", "rec.json"]);
    assert_eq!(code(&out), 0);
    let result = jq(TEN_SLOWEST, &dir.path().join("rec.json"));
    let rows = result.as_array().expect("an array");
    assert_eq!(rows.len(), 10);

    // The same answer from the model.
    let trace = engine::load(&bytes).unwrap().trace;
    let mut all: Vec<ScopeIdx> = (0..trace.scopes.len() as u32).map(ScopeIdx).collect();
    all.sort_by_key(|&i| std::cmp::Reverse(trace.scopes.duration_ns[i.idx()]));
    let ours: Vec<i64> = all[..10]
        .iter()
        .map(|&i| trace.scopes.duration_ns[i.idx()])
        .collect();
    let theirs: Vec<i64> = rows
        .iter()
        .map(|r| r["duration_ns"].as_i64().unwrap())
        .collect();
    assert_eq!(theirs, ours);
    for row in rows {
        // jq holds numbers as doubles: nanosecond timestamps since the epoch
        // come back rounded, so compare as doubles.
        let start = row["start_ns"].as_f64().unwrap();
        let found = all[..].iter().any(|&i| {
            trace.scopes.start_ns[i.idx()] as f64 == start
                && trace.scope_name(i) == row["name"].as_str().unwrap()
                && trace.scope_data(i) == row["data"].as_str().unwrap()
        });
        assert!(found, "{row}");
        assert!(row["children"].is_array() && row["id"].is_u64());
    }
}

#[test]
fn jq_total_time_per_name_recipe() {
    let fixture = common::fixtures_dir().join("threads_pfd4.expected.json");
    let totals = jq(
        r#"[.. | objects | select(has("duration_ns") and has("name") and has("children"))] | group_by(.name) | map({name: .[0].name, count: length, total: (map(.duration_ns) | add)}) | sort_by(-.total)"#,
        &fixture,
    );
    let trace =
        engine::load(&std::fs::read(common::fixtures_dir().join("threads_pfd4.puffin")).unwrap())
            .unwrap()
            .trace;
    let mut ours = std::collections::BTreeMap::<String, (u64, i64)>::new();
    for i in 0..trace.scopes.len() as u32 {
        let e = ours
            .entry(trace.scope_name(ScopeIdx(i)).to_owned())
            .or_default();
        e.0 += 1;
        e.1 += trace.scopes.duration_ns[i as usize];
    }
    for row in totals.as_array().unwrap() {
        let (count, total) = ours[row["name"].as_str().unwrap()];
        assert_eq!(row["count"].as_u64().unwrap(), count);
        assert_eq!(row["total"].as_i64().unwrap(), total);
    }
    assert_eq!(totals.as_array().unwrap().len(), ours.len());
}
