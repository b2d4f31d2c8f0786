//! One verdict everywhere (issue 64): on generated pairs (changed and the
//! same code), the planted job loop and the real Rerun Viewer pair,
//! `report`, `compare`, `calls`, `diff` and the app's diff table give every
//! scope name the same kind: each reads the one judgement, none decides its
//! own.

mod common;

use common::ui::{command, open_with};
use common::{generator, json_in, planted};
use puffin_lens::app::{Settings, Side, Source, UiCommand};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;

/// Name → kind of a comparison's whole-name rows (no data string).
fn name_rows(rows: &Value) -> BTreeMap<String, String> {
    rows.as_array()
        .unwrap()
        .iter()
        .filter(|r| r["data"].as_str().unwrap_or("").is_empty())
        .map(|r| {
            (
                r["name"].as_str().unwrap().to_owned(),
                r["change"]["kind"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

/// Name → kind of the app's diff table (its whole-name rows), with `a` and
/// `b` in `dir` open as A and B: what `puffinLens.ui()` reads, the vectors
/// the table paints.
fn app_rows(dir: &Path, a: &str, b: &str) -> BTreeMap<String, String> {
    let read = |f: &str| std::fs::read(dir.join(f)).unwrap();
    let mut h = open_with(None, Settings::default(), a, read(a));
    h.state().open(b, Source::Bytes(read(b)), Some(Side::B));
    for _ in 0..100 {
        h.step();
        if h.state().recording(Side::B).is_some() {
            break;
        }
    }
    h.run_steps(2);
    let ui = command(
        &mut h,
        UiCommand::Show {
            view: "diff".into(),
            options: serde_json::json!({"mode": "table", "filter": "", "hide_below": 0}),
        },
    )
    .unwrap_or_else(|e| panic!("show diff: {e}"));
    name_rows(&ui["rows"])
}

/// Checks `a` against `b` in `dir`: `calls` on every name when `all_calls`,
/// else on the names `report` judged anything but unchanged; the app's
/// table when `app`. Returns how many names were compared.
fn agree(dir: &Path, a: &str, b: &str, all_calls: bool, app: bool) -> usize {
    let what = format!("{} {a} {b}", dir.display());
    let (_, r) = json_in(
        dir,
        &["report", a, b, "--format", "json", "--top", "100000"],
    );
    let c = &r["comparison"];
    // The report lists the changed rows; the others by name.
    let mut report = name_rows(&c["rows"]);
    for (list, kind) in [("unchanged", "unchanged"), ("inconclusive", "inconclusive")] {
        for n in c[list]["names"].as_array().unwrap() {
            report
                .entry(n.as_str().unwrap().to_owned())
                .or_insert_with(|| kind.to_owned());
        }
    }
    let (_, cmp) = json_in(dir, &["compare", a, b, "--json", "--top", "100000"]);
    // The counts are of one set: the same names and pairs changed.
    for key in [
        "total_names",
        "changed_names",
        "total_pairs",
        "changed_pairs",
    ] {
        assert_eq!(c[key], cmp[key], "{what}: {key}, report against compare");
    }
    let compare = name_rows(&cmp["rows"]);
    // compare's rows are (name, data) pairs: a name with data strings has
    // no whole-name row there (the report judges it as a name too).
    let with_data: Vec<&str> = cmp["rows"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| !r["data"].as_str().unwrap_or("").is_empty())
        .map(|r| r["name"].as_str().unwrap())
        .collect();
    report.retain(|name, _| compare.contains_key(name) || !with_data.contains(&name.as_str()));
    // The names the report tells as structure (a rename's two names, a
    // restructured place's parent and the new and gone names it holds):
    // compare keeps their rows and says the same of each (`structure`).
    let mut structure: BTreeMap<String, String> = BTreeMap::new();
    for r in c["renames"].as_array().unwrap() {
        let (from, to) = (r["from"].as_str().unwrap(), r["to"].as_str().unwrap());
        for n in [from, to] {
            structure.insert(n.to_owned(), format!("renamed: {from} → {to}"));
        }
    }
    for p in c["places"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["restructured"] == true)
    {
        let parent = p["parent"].as_str().unwrap();
        let label = format!("restructured: under {parent}");
        let held = ["new", "gone"]
            .map(|k| p[k].as_array().unwrap().clone())
            .concat();
        for n in held.iter().map(|n| n.as_str().unwrap()).chain([parent]) {
            structure
                .entry(n.to_owned())
                .or_insert_with(|| label.clone());
        }
    }
    let told: BTreeMap<String, String> = (cmp["rows"].as_array().unwrap().iter())
        .filter_map(|r| {
            let s = r["structure"].as_str()?;
            Some((r["name"].as_str().unwrap().to_owned(), s.to_owned()))
        })
        .collect();
    let in_compare: BTreeMap<String, String> = (structure.iter())
        .filter(|(n, _)| {
            cmp["rows"]
                .as_array()
                .unwrap()
                .iter()
                .any(|r| r["name"] == n.as_str())
        })
        .map(|(n, s)| (n.clone(), s.clone()))
        .collect();
    assert_eq!(
        told, in_compare,
        "{what}: compare's structure against report's"
    );
    // The app's table is compare's, every name, with each rename one row
    // ("from → to") of the report's rename's kind.
    if app {
        let mut want = compare.clone();
        for r in c["renames"].as_array().unwrap() {
            let (from, to) = (r["from"].as_str().unwrap(), r["to"].as_str().unwrap());
            want.remove(from);
            want.remove(to);
            let kind = r["change"]["kind"].as_str().unwrap().to_owned();
            want.insert(format!("{from} → {to}"), kind);
        }
        assert_eq!(
            app_rows(dir, a, b),
            want,
            "{what}: the app's table against compare"
        );
    }
    let mut compare = compare;
    compare.retain(|name, _| !structure.contains_key(name));
    report.retain(|name, _| !structure.contains_key(name));
    assert_eq!(report, compare, "{what}: report against compare");
    // calls A B NAME judges the name alone, as the comparison did.
    for (name, kind) in &compare {
        if !all_calls && kind == "unchanged" {
            continue;
        }
        let (_, calls) = json_in(dir, &["calls", a, b, name, "--json"]);
        assert_eq!(
            calls["change"]["kind"].as_str(),
            Some(kind.as_str()),
            "{what}: calls {name} against compare"
        );
    }
    // diff's tree: a name at one node only is judged there as a name.
    let (_, d) = json_in(dir, &["diff", a, b, "--json"]);
    let mut nodes: BTreeMap<String, Vec<String>> = BTreeMap::new();
    fn walk(n: &Value, out: &mut BTreeMap<String, Vec<String>>) {
        out.entry(n["name"].as_str().unwrap().to_owned())
            .or_default()
            .push(n["kind"].as_str().unwrap_or("").to_owned());
        for c in n["children"].as_array().into_iter().flatten() {
            walk(c, out);
        }
    }
    for t in d["threads"].as_array().unwrap() {
        for root in t["roots"].as_array().unwrap() {
            walk(root, &mut nodes);
        }
    }
    let mut compared = 0;
    for (name, kinds) in &nodes {
        if let ([kind], Some(by_name)) = (kinds.as_slice(), compare.get(name)) {
            assert_eq!(kind, by_name, "{what}: diff's node {name} against compare");
            compared += 1;
        }
    }
    assert!(compared > 0, "{what}: no name at one node");
    compare.len()
}

#[test]
fn report_compare_calls_and_diff_give_every_name_one_kind() {
    let mut names = 0;
    for k in 0..4u64 {
        for same in [false, true] {
            let pair = generator::random_pair(1000 + k, same);
            let dir = tempfile::tempdir().unwrap();
            generator::write_pair(&pair, 7000 + 2 * k, dir.path());
            names += agree(dir.path(), "a.puffin", "b.puffin", true, true);
        }
    }
    let jobs = planted::jobs_pair(1, 2);
    names += agree(jobs.path(), "a.puffin", "b.puffin", true, true);
    let real = common::fixtures_dir().join("real");
    names += agree(
        &real,
        "rerun_viewer_plots_a.puffin",
        "rerun_viewer_plots_b.puffin",
        false,
        // (The app's `ui()` lists the table's first 500 (name, data) rows,
        // which the real pair's data rows fill before every name has one:
        // the app is checked on the planted pairs.)
        false,
    );
    assert!(names > 100, "{names} names");
}
