//! Property tests (proptest): random traces (threads, nesting, data strings
//! up to and past the 127-byte limit, unregistered ids, frame index
//! restarts) written in every layout and compression decode to the export
//! the writer's input implies; the JSON export reads back to the same bytes;
//! every analysis answers the same on the `.puffin` file and on its JSON dump.

mod common;

use common::{expected_export, parse};
use proptest::prelude::*;
use puffin_lens::engine::api::{Request, answer};
use puffin_lens::engine::read::json::load_json;
use puffin_lens::engine::write::puffin::{
    Compression, Format, FrameData, Registration, ScopeNode, ThreadData, write_recording,
};
use puffin_lens::engine::{self, export_string};

/// A scope's shape; times are laid out afterwards.
#[derive(Clone, Debug)]
struct Shape {
    id: u32,
    self_ns: i64,
    data: String,
    children: Vec<Shape>,
}

fn data() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => "[a-z0-9 _]{0,12}",
        1 => "\\PC{0,70}",
    ]
}

fn shape() -> impl Strategy<Value = Shape> {
    let leaf = (1u32..9, 0i64..50_000, data()).prop_map(|(id, self_ns, data)| Shape {
        id,
        self_ns,
        data,
        children: Vec::new(),
    });
    leaf.prop_recursive(4, 32, 4, |inner| {
        (
            1u32..9,
            0i64..50_000,
            data(),
            prop::collection::vec(inner, 0..4),
        )
            .prop_map(|(id, self_ns, data, children)| Shape {
                id,
                self_ns,
                data,
                children,
            })
    })
}

/// Children one after the other from `start`; the parent ends after them
/// plus its own time. Names and locations for the legacy layouts.
fn place(s: &Shape, start: i64) -> ScopeNode {
    let mut node = ScopeNode::new(s.id, start, start).data(&s.data).named(
        &format!("scope_{}", s.id),
        &format!("src/m{}.rs:{}", s.id, s.id * 10),
    );
    let mut t = start;
    for c in &s.children {
        let child = place(c, t);
        t = child.stop_ns;
        node.children.push(child);
    }
    node.stop_ns = t + s.self_ns;
    node
}

const T0: i64 = 1_800_000_000_000_000_000;

fn frames() -> impl Strategy<Value = Vec<FrameData>> {
    let thread = (
        prop::sample::select(vec!["main", "worker", "", "render thread"]),
        prop::option::of(0i64..1_000),
        prop::collection::vec(shape(), 0..3),
    );
    let frame = (0u64..4, prop::collection::vec(thread, 1..4));
    (
        prop::collection::vec(frame, 1..5),
        prop::collection::btree_set(1u32..9, 0..8),
    )
        .prop_map(|(frames, registered)| {
            frames
                .into_iter()
                .enumerate()
                .map(|(f, (index, threads))| {
                    let mut t = T0 + f as i64 * 10_000_000;
                    let mut seen = std::collections::BTreeSet::new();
                    let threads = threads
                        .into_iter()
                        // One stream per (start time, name) in a frame.
                        .filter(|(name, start, _)| seen.insert((*start, *name)))
                        .map(|(name, start_time_ns, shapes)| ThreadData {
                            name: name.to_owned(),
                            start_time_ns,
                            scopes: shapes
                                .iter()
                                .map(|s| {
                                    let node = place(s, t);
                                    t = node.stop_ns;
                                    node
                                })
                                .collect(),
                        })
                        .collect();
                    FrameData {
                        // Frame indices restart now and then (an app restart).
                        frame_index: f as u64 * 2 + index,
                        threads,
                        registrations: if f == 0 {
                            registered
                                .iter()
                                .map(|&id| {
                                    Registration::named(
                                        id,
                                        &format!("scope_{id}"),
                                        "m::f",
                                        &format!("src/m{id}.rs"),
                                        id * 10,
                                    )
                                })
                                .collect()
                        } else {
                            Vec::new()
                        },
                    }
                })
                .collect()
        })
}

const FORMATS: [Format; 9] = [
    Format::Pfd4(Compression::None),
    Format::Pfd4(Compression::Lz4),
    Format::Pfd4(Compression::Zstd),
    Format::Pfd3(Compression::None),
    Format::Pfd3(Compression::Lz4),
    Format::Pfd3(Compression::Zstd),
    Format::Pfd2,
    Format::Pfd1,
    Format::Legacy,
];

/// The analyses compared between the `.puffin` file and its JSON dump.
fn requests(names: &[String]) -> Vec<Request> {
    let mut asks: Vec<(&str, serde_json::Value)> = vec![
        ("frames", serde_json::json!({})),
        ("threads", serde_json::json!({})),
        ("top", serde_json::json!({ "top": 50 })),
        (
            "find",
            serde_json::json!({ "aggregate": true, "by": "name", "top": 1000 }),
        ),
        (
            "find",
            serde_json::json!({ "aggregate": true, "top": 1000 }),
        ),
        (
            "find",
            serde_json::json!({ "prefix": "scope_1", "top": 1000 }),
        ),
        ("tree", serde_json::json!({})),
        ("gaps", serde_json::json!({ "min_ms": 0.01 })),
    ];
    for n in names.iter().take(3) {
        asks.push(("calls", serde_json::json!({ "name": n })));
        asks.push(("callers", serde_json::json!({ "name": n })));
        asks.push((
            "children",
            serde_json::json!({ "name": n, "ordered": true }),
        ));
    }
    asks.into_iter()
        .map(|(name, args)| Request::from_json(name, &args).expect("valid request"))
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn every_layout_decodes_to_the_writers_input(frames in frames()) {
        for format in FORMATS {
            let legacy = !matches!(format, Format::Pfd4(_));
            let bytes = write_recording(&frames, format);
            let decoded = engine::load(&bytes).expect("decodes");
            prop_assert!(decoded.diagnostics.is_empty(), "{format:?}: {:?}", decoded.diagnostics);
            let got = parse(export_string(&decoded.trace, "x.puffin", false).as_bytes());
            prop_assert_eq!(got, expected_export("x.puffin", &frames, legacy), "{:?}", format);
        }
    }

    #[test]
    fn the_json_round_trip_is_exact_and_answers_the_same(frames in frames()) {
        let bytes = write_recording(&frames, Format::Pfd4(Compression::Lz4));
        let decoded = engine::load(&bytes).expect("decodes");
        let json = export_string(&decoded.trace, "x.puffin", false);
        let back = load_json(json.as_bytes()).expect("reads its own export");
        prop_assert!(back.diagnostics.is_empty());
        prop_assert_eq!(&export_string(&back.trace, "x.puffin", false), &json);
        let names: Vec<String> = {
            let t = &decoded.trace;
            let mut v: Vec<String> = (0..t.scopes.len() as u32)
                .map(|i| t.scope_name(engine::ScopeIdx(i)).to_owned())
                .collect();
            v.sort();
            v.dedup();
            v
        };
        for request in requests(&names) {
            let on_file = answer(&request, &decoded.trace, None).map(|a| a.to_json());
            let on_json = answer(&request, &back.trace, None).map(|a| a.to_json());
            prop_assert_eq!(
                on_file.as_ref().map_err(|e| e.to_string()),
                on_json.as_ref().map_err(|e| e.to_string()),
                "{:?}", request
            );
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// The report's JSON lines up with itself on any pair: every name a
    /// list gives is a row of its table, every contribution to the frame
    /// is a name of A or B, the rows are judged changes, and the change
    /// per frame splits into its parts.
    #[test]
    fn the_report_lines_up_with_itself(a in frames(), b in frames(), top in 1usize..6) {
        use puffin_lens::engine::report::{Report, ReportOptions};
        let load = |f: &[FrameData]| engine::load(&write_recording(f, Format::Pfd4(Compression::Lz4))).expect("decodes");
        let (da, db) = (load(&a), load(&b));
        let opts = ReportOptions { top, ..Default::default() };
        let r = serde_json::to_value(Report::new(("a", &da), Some(("b", &db)), opts)).unwrap();
        let c = &r["comparison"];
        let rows: Vec<&str> = c["rows"].as_array().unwrap().iter().map(|x| x["name"].as_str().unwrap()).collect();
        prop_assert!(rows.len() <= top);
        prop_assert!(rows.len() <= c["changed_rows"].as_u64().unwrap() as usize);
        // The lists name every changed name (--top cuts the rows only), each once.
        let mut listed: Vec<&str> = Vec::new();
        for list in ["spikes", "changes", "new", "gone"] {
            listed.extend(c[list].as_array().unwrap().iter().map(|n| n.as_str().unwrap()));
        }
        prop_assert_eq!(listed.len(), c["changed_rows"].as_u64().unwrap() as usize);
        for name in &rows {
            prop_assert!(listed.contains(name), "row {} in none of the lists {:?}", name, listed);
        }
        for row in c["rows"].as_array().unwrap() {
            let ch = &row["change"];
            prop_assert_ne!(ch["kind"].as_str().unwrap(), "unchanged");
            let parts = ch["per_call_part_ns"].as_f64().unwrap() + ch["count_part_ns"].as_f64().unwrap();
            let delta = ch["delta_per_frame_ns"].as_f64().unwrap();
            prop_assert!((parts - delta).abs() <= 1e-6 * delta.abs().max(1.0), "{}", row);
        }
        let names = |d: &engine::Decoded| -> Vec<String> {
            let t = &d.trace;
            (0..t.scopes.len() as u32).map(|i| t.scope_name(engine::ScopeIdx(i)).to_owned()).collect()
        };
        let (na, nb) = (names(&da), names(&db));
        // (A rename's entry is "old → new": old a name of A, new of B; a
        // restructured place's is "P (restructured)", P the parent of a
        // place judged restructured.)
        for x in c["frame"]["contributions"].as_array().unwrap() {
            let n = x["name"].as_str().unwrap();
            if let Some(parent) = n.strip_suffix(" (restructured)").filter(|_| !na.iter().chain(&nb).any(|m| m == n)) {
                let place = c["places"].as_array().unwrap().iter().any(|p| p["parent"] == parent && p["restructured"] == true);
                prop_assert!(place, "{} is no restructured place of {}", n, c["places"]);
                continue;
            }
            match n.split_once(" → ").filter(|_| !na.iter().chain(&nb).any(|m| m == n)) {
                Some((from, to)) => {
                    prop_assert!(na.iter().any(|m| m == from) && nb.iter().any(|m| m == to), "{}", n);
                    let renamed = c["renames"].as_array().unwrap().iter().any(|r| r["from"] == from && r["to"] == to);
                    prop_assert!(renamed, "{} is no rename of {}", n, c["renames"]);
                }
                None => prop_assert!(na.iter().chain(&nb).any(|m| m == n), "{}", n),
            }
        }
        // The gate agrees with the rows it checks: every tripped name is a
        // regression of the comparison (by name).
        let gated = serde_json::to_value(Report::new(
            ("a", &da),
            Some(("b", &db)),
            ReportOptions { top: 10_000, gate: Some(puffin_lens::engine::analyses::gate::Gate { pct: 0.0, min_ms: 0.0, drift_pct: None }), ..Default::default() },
        )).unwrap();
        let all: Vec<(&str, &str)> = gated["comparison"]["rows"].as_array().unwrap().iter()
            .map(|x| (x["name"].as_str().unwrap(), x["change"]["kind"].as_str().unwrap())).collect();
        for t in gated["comparison"]["gate"]["tripped"].as_array().unwrap() {
            let name = t["name"].as_str().unwrap();
            prop_assert!(all.iter().any(|(n, k)| *n == name && *k == t["kind"].as_str().unwrap()), "{}", t);
        }
    }
}
