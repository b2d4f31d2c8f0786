//! `puffin-lens flamegraph`: the folded stacks add up to the `tree` answer's
//! totals, the SVG (inferno) holds a frame for every node, the
//! differential form carries A's and B's self time per stack, and a hostile
//! recording's names stay text in the SVG.

mod common;

use common::hostile::{CANARY, hostile_capture, hostile_strings};
use common::scenario::*;
use common::{code, run, stderr, temp_file};
use puffin_lens::engine::write::escape;
use puffin_lens::engine::write::puffin::{Compression, Format, FrameData, write_recording};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};

fn write(frames: &[FrameData], name: &str) -> (tempfile::TempDir, String) {
    let (dir, path) = temp_file(
        name,
        &write_recording(frames, Format::Pfd4(Compression::Lz4)),
    );
    (dir, path.to_str().unwrap().to_owned())
}

fn stdout(args: &[&str]) -> String {
    let out = run(args);
    assert_eq!(code(&out), 0, "{args:?}: {}", stderr(&out));
    String::from_utf8(out.stdout).unwrap()
}

/// stack → count(s), from folded lines.
fn folded(text: &str) -> BTreeMap<String, Vec<i64>> {
    text.lines()
        .map(|l| {
            let mut parts: Vec<&str> = l.rsplitn(3, ' ').collect();
            parts.reverse();
            let counts = parts[1..].iter().map(|c| c.parse().unwrap()).collect();
            (parts[0].to_owned(), counts)
        })
        .collect()
}

#[test]
fn folded_stacks_add_up_to_the_trees_totals() {
    let (_d, a) = write(&scenario(), "s.puffin");
    let text = stdout(&["flamegraph", &a, "--folded"]);
    let mut lines: Vec<&str> = text.lines().collect();
    let sorted = {
        let mut s = lines.clone();
        s.sort();
        s
    };
    assert_eq!(lines, sorted, "lines sorted");
    lines.dedup();
    let stacks = folded(&text);
    let tree: Value = serde_json::from_str(&stdout(&["tree", &a, "--json"])).unwrap();
    fn walk(node: &Value, prefix: &str, stacks: &BTreeMap<String, Vec<i64>>) -> usize {
        let path = format!("{prefix};{}", node["name"].as_str().unwrap());
        let sum: i64 = stacks
            .iter()
            .filter(|(s, _)| *s == &path || s.starts_with(&format!("{path};")))
            .map(|(_, c)| c[0])
            .sum();
        assert_eq!(sum, node["total_ns"].as_i64().unwrap(), "{path}");
        1 + node["children"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| walk(c, &path, stacks))
            .sum::<usize>()
    }
    let mut nodes = 0;
    for th in tree["threads"].as_array().unwrap() {
        for r in th["roots"].as_array().unwrap() {
            nodes += walk(r, th["name"].as_str().unwrap(), &stacks);
        }
    }
    assert!(nodes >= 6 && stacks.len() <= nodes);
    // One thread, one frame.
    let one = folded(&stdout(&[
        "flamegraph",
        &a,
        "--folded",
        "--thread",
        "main",
        "--frame",
        "12",
    ]));
    assert_eq!(
        one.keys().collect::<Vec<_>>(),
        ["main;frame", "main;frame;load"]
    );
    assert_eq!(one["main;frame;load"], [ns(30.0)]);
}

/// The SVG's elements (name → count) and its text, tokenized as a browser does.
fn svg_parts(svg: &str) -> (BTreeMap<String, usize>, BTreeSet<String>, String) {
    use html5gum::{Token, Tokenizer};
    let (mut tags, mut attrs, mut text) = (BTreeMap::new(), BTreeSet::new(), String::new());
    let mut in_script = false;
    for token in Tokenizer::new(svg) {
        match token.expect("infallible") {
            Token::StartTag(t) => {
                let name = String::from_utf8_lossy(&t.name).into_owned();
                in_script = name == "script";
                for k in t.attributes.keys() {
                    attrs.insert(String::from_utf8_lossy(k).into_owned());
                }
                *tags.entry(name).or_insert(0) += 1;
            }
            Token::EndTag(_) => in_script = false,
            Token::String(s) if !in_script => {
                text.push_str(&String::from_utf8_lossy(&s));
                text.push('\n');
            }
            _ => {}
        }
    }
    (tags, attrs, text)
}

#[test]
fn the_svg_holds_a_frame_for_every_node() {
    let (dir, a) = write(&scenario(), "s.puffin");
    let out = dir.path().join("flame.svg");
    stdout(&["flamegraph", &a, "-o", out.to_str().unwrap()]);
    let svg = std::fs::read_to_string(&out).unwrap();
    let (tags, _, text) = svg_parts(&svg);
    // A frame (g > title + rect + text) per distinct stack prefix, plus "all".
    let stacks = folded(&stdout(&["flamegraph", &a, "--folded"]));
    let mut prefixes = BTreeSet::new();
    for s in stacks.keys() {
        let parts: Vec<&str> = s.split(';').collect();
        for k in 1..=parts.len() {
            prefixes.insert(parts[..k].join(";"));
        }
    }
    assert_eq!(tags["g"], prefixes.len() + 1, "{tags:?}"); // + "all"
    for name in ["frame", "app::render", "load", "job", "rayon-1"] {
        assert!(text.contains(name), "{name}");
    }
    assert_eq!(tags["script"], 1, "inferno's own zoom and search");
}

#[test]
fn the_differential_form_carries_a_and_b() {
    let (_d1, a) = write(&diff_a(), "a.puffin");
    let (_d2, b) = write(&diff_b(true), "b.puffin");
    let diff = folded(&stdout(&["flamegraph", &a, "--diff", &b, "--folded"]));
    // load under render: 1 ms in A, 2 ms in B; update gone, physics new.
    assert_eq!(diff["main;frame;app::render;load"], [ns(1.0), ns(2.0)]);
    assert_eq!(diff["main;frame;app::update"], [ns(4.5), 0]);
    assert_eq!(diff["main;frame;physics"], [0, ns(4.0)]);
    assert_eq!(diff["audio;mix"], [0, ns(3.0)]);
    let svg = stdout(&["flamegraph", &a, "--diff", &b]);
    assert!(
        svg.contains("red: slower in B"),
        "the subtitle explains the colours"
    );
    // --frame needs one recording.
    let out = run(&["flamegraph", &a, "--diff", &b, "--frame", "10"]);
    assert_eq!(code(&out), 2, "{}", stderr(&out));
}

#[test]
fn a_hostile_recordings_names_stay_text_in_the_svg() {
    let (_d, benign) = write(&scenario(), "s.puffin");
    let (known_tags, known_attrs, _) = svg_parts(&stdout(&["flamegraph", &benign]));
    let (_d2, hostile) = write(&hostile_capture(false), "h.puffin");
    let svg = stdout(&["flamegraph", &hostile]);
    let (tags, attrs, text) = svg_parts(&svg);
    for t in tags.keys() {
        assert!(
            known_tags.contains_key(t),
            "a <{t:.80}> element came from the input"
        );
    }
    assert!(
        attrs.is_subset(&known_attrs),
        "{:?}",
        attrs.difference(&known_attrs)
    );
    assert_eq!(tags["script"], 1);
    // The script is inferno's, not a name (every name is in the text).
    let script = svg.split("<script").nth(1).unwrap();
    let script = script.split("</script>").next().unwrap();
    assert!(!script.contains(CANARY));
    for name in hostile_strings().iter().filter(|n| n.len() < 1000) {
        let shown = escape::visible(name).replace(';', "%3B");
        assert!(text.contains(&shown), "{shown:.80}");
    }
}
