//! `--top` cuts what is listed, never what is counted: every `--json` list
//! it cuts says its total (docs/cli.md, "How `--top` cuts").

mod common;

use common::planted;

#[test]
fn find_says_on_stderr_what_top_cut_and_keeps_its_array() {
    let dir = planted::jobs_pair(51, 52);
    let d = dir.path();
    // B: 90 frames of 3 job::cloth.
    let out = common::run_in(d, &["find", "b.puffin", "job::", "--top", "5", "--json"]);
    assert_eq!(common::code(&out), 0, "{}", common::stderr(&out));
    let rows: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(rows.as_array().unwrap().len(), 5);
    assert_eq!(
        common::stderr(&out),
        "puffin-lens: b.puffin: --top 5 listed 5 of 270 rows; --top 270 lists them all\n"
    );
    // Nothing cut, nothing said.
    let all = common::run_in(d, &["find", "b.puffin", "job::", "--top", "270", "--json"]);
    assert!(all.stderr.is_empty(), "{}", common::stderr(&all));
    let agg = common::run_in(
        d,
        &[
            "find",
            "b.puffin",
            "--aggregate",
            "--by",
            "name",
            "--top",
            "2",
            "--json",
        ],
    );
    assert!(
        common::stderr(&agg).contains("--top 2 listed 2 of 12 rows"),
        "{}",
        common::stderr(&agg)
    );
}

#[test]
fn gaps_give_each_lists_total_and_calls_list_every_call() {
    let dir = planted::jobs_pair(53, 54);
    let d = dir.path();
    let (_, g) = common::json_in(
        d,
        &[
            "gaps", "b.puffin", "--min-ms", "0.05", "--top", "1", "--json",
        ],
    );
    for (list, total) in [
        ("recurring", "total_recurring"),
        ("gaps", "total_gaps"),
        ("recurring_idle", "total_recurring_idle"),
        ("idle", "total_idle"),
    ] {
        let n = g[list].as_array().unwrap().len() as u64;
        assert!(n <= 1, "{list}");
        assert!(g[total].as_u64().unwrap() >= n, "{total}");
    }
    // B's main has recurring gaps in main_loop (after sim::step, the
    // leading wait in jobs::run), at the top level, and between frames.
    assert!(g["total_recurring"].as_u64().unwrap() >= 3, "{g}");
    let (_, calls) = common::json_in(d, &["calls", "b.puffin", "job::cloth", "--json"]);
    assert_eq!(calls["summary"]["count"], 270);
    assert_eq!(calls["calls"].as_array().unwrap().len(), 270);
}
