//! A hostile recording (tests/common/hostile.rs) through every output of
//! every subcommand: nothing it carries becomes markup, script, a link, a
//! table break or a terminal escape, and every name still shows, literally.

mod common;

use common::hostile::{CANARY, hostile_capture, hostile_strings};
use common::{code, run, stderr};
use puffin_lens::engine::write::escape;
use puffin_lens::engine::write::puffin::{Compression, Format, write_recording};
use serde_json::Value;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// A and B written as `.puffin` files (names with markup) in a temp dir.
fn recordings() -> (tempfile::TempDir, PathBuf, PathBuf) {
    let dir = tempfile::tempdir().expect("temp dir");
    let a = dir.path().join("<img src=x onerror=alert(1)>a.puffin");
    let b = dir.path().join("b\"onload=x.puffin");
    std::fs::write(
        &a,
        write_recording(&hostile_capture(false), Format::Pfd4(Compression::Lz4)),
    )
    .unwrap();
    std::fs::write(
        &b,
        write_recording(&hostile_capture(true), Format::Pfd4(Compression::Zstd)),
    )
    .unwrap();
    (dir, a, b)
}

fn s(p: &Path) -> &str {
    p.to_str().expect("utf-8 temp path")
}

/// Runs the CLI; it must succeed.
fn ok(args: &[&str]) -> String {
    let out = run(args);
    assert_eq!(code(&out), 0, "{args:?}: {}", stderr(&out));
    String::from_utf8(out.stdout).expect("utf-8 output")
}

/// Text for a terminal: one line per row, no control or reordering character.
fn assert_terminal_safe(what: &str, text: &str) {
    for (n, line) in text.lines().enumerate() {
        if let Some(c) = line
            .chars()
            .find(|&c| c.is_control() || escape::visible(&c.to_string()).len() > c.len_utf8())
        {
            panic!("{what}: line {n} holds {c:?}: {line:.200}");
        }
    }
}

#[test]
fn every_analysis_prints_safe_text_and_exact_json() {
    let (_dir, a, b) = recordings();
    let (a, b) = (s(&a), s(&b));
    let names = hostile_strings();
    let root = names[0].as_str();
    let spiky = names[5].as_str();
    let lo = "1700000000000000000";
    let hi = "1700000000100000000";
    let commands: Vec<Vec<&str>> = vec![
        vec!["summary", a],
        vec!["frames", a],
        vec!["threads", a],
        vec!["top", a, "--top", "100"],
        vec!["find", a, "<"],
        vec!["find", a, "--aggregate"],
        vec!["tree", a],
        vec!["children", a, root],
        vec!["callers", a, spiky],
        vec!["calls", a, spiky],
        vec!["window", a, lo, hi],
        vec!["gaps", a],
        vec!["compare", a, b],
        vec!["diff", a, b],
        vec!["scope", a, "1"],
    ];
    for args in &commands {
        let text = ok(args);
        assert!(!text.trim().is_empty(), "{args:?} printed nothing");
        assert_terminal_safe(&format!("{args:?}"), &text);
        let mut json_args = args.clone();
        json_args.push("--json");
        let json: Value = serde_json::from_str(&ok(&json_args))
            .unwrap_or_else(|e| panic!("{json_args:?}: not JSON: {e}"));
        // The strings come back exactly (JSON escaping, not ours).
        let mut strings = Vec::new();
        collect_strings(&json, &mut strings);
        if matches!(args[0], "frames" | "summary") {
            continue; // numbers and the file's name only
        }
        assert!(
            strings
                .iter()
                .any(|x| names.iter().any(|n| x.contains(n.as_str()))),
            "{json_args:?}: no hostile string came back exactly"
        );
    }
    // The tree shows every thread and name, each on its own line.
    let tree = ok(&["tree", a]);
    assert!(tree.contains("tab\\there nul\\u{0} \\u{1b"), "{tree}");
    assert!(tree.contains("bidi \\u{202e}desr"), "{tree}");
}

fn collect_strings(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::String(s) => out.push(s.clone()),
        Value::Array(a) => a.iter().for_each(|v| collect_strings(v, out)),
        Value::Object(o) => o.values().for_each(|v| collect_strings(v, out)),
        _ => {}
    }
}

#[test]
fn exports_and_dumps_keep_the_strings_exactly() {
    let (dir, a, _b) = recordings();
    let dump = ok(&["dump", s(&a)]);
    let json: Value = serde_json::from_str(&dump).expect("the dump is JSON");
    let mut strings = Vec::new();
    collect_strings(&json, &mut strings);
    for name in hostile_strings() {
        assert!(strings.contains(&name), "the dump lost {name:.80?}");
    }
    // It reads back as the same recording.
    let again = dir.path().join("again.json");
    std::fs::write(&again, &dump).unwrap();
    assert_eq!(
        ok(&["dump", s(&again)]),
        dump.replace("<img src=x onerror=alert(1)>a.puffin", "again.json")
    );
    for format in ["parquet", "json"] {
        let out = dir.path().join(format!("out-{format}"));
        ok(&["export", s(&a), "-o", s(&out), "--format", format]);
        assert!(
            std::fs::read_dir(&out).unwrap().count() > 0,
            "{format}: nothing written"
        );
    }
}

/// Parses the Markdown as GitHub does (tables, strikethrough, task lists).
fn markdown_events(md: &str) -> Vec<pulldown_cmark::Event<'_>> {
    use pulldown_cmark::{Options, Parser};
    Parser::new_ext(
        md,
        Options::ENABLE_TABLES | Options::ENABLE_GFM | Options::ENABLE_STRIKETHROUGH,
    )
    .collect()
}

/// What the Markdown shows: no HTML, link, image or strikethrough, headings
/// only ours, every table row as wide as its header; returns the shown text.
fn check_markdown(md: &str) -> String {
    use pulldown_cmark::{Event, Tag, TagEnd};
    let mut shown = String::new();
    let mut heading: Option<String> = None;
    let (mut header_cells, mut row_cells, mut in_head) = (0, 0, false);
    let mut code: Option<String> = None;
    for event in markdown_events(md) {
        if let Some(c) = &mut code {
            match event {
                Event::Text(t) => c.push_str(&t),
                Event::End(TagEnd::CodeBlock) => check_mermaid(&code.take().unwrap()),
                e => panic!("{e:?} in a code block"),
            }
            continue;
        }
        match event {
            // The one code block is ours: the waterfall as a Mermaid chart.
            Event::Start(Tag::CodeBlock(kind)) => {
                assert!(
                    matches!(&kind, pulldown_cmark::CodeBlockKind::Fenced(l) if &**l == "mermaid"),
                    "a code block that is not ours: {kind:?}"
                );
                code = Some(String::new());
            }
            Event::Html(h) | Event::InlineHtml(h) => panic!("raw HTML in the Markdown: {h:.200}"),
            Event::Start(Tag::Link { dest_url, .. }) => panic!("a link to {dest_url:.200}"),
            Event::Start(Tag::Image { dest_url, .. }) => panic!("an image from {dest_url:.200}"),
            Event::Start(Tag::Strikethrough) => panic!("strikethrough from the input"),
            Event::Start(Tag::Heading { .. }) => heading = Some(String::new()),
            Event::End(TagEnd::Heading(_)) => {
                let h = heading.take().unwrap_or_default();
                const OURS: [&str; 18] = [
                    "puffin-lens report",
                    "At a glance",
                    "Over time",
                    "Look at first",
                    "Judged changes",
                    "Summary",
                    "Slowest",
                    "Threads of",
                    "Totals",
                    "Hot path",
                    "Unprofiled",
                    "Idle time",
                    "Outliers",
                    "What changed",
                    "Where it changed",
                    "Frame pacing",
                    "A (",
                    "B (",
                ];
                assert!(
                    OURS.iter().any(|o| h.starts_with(o)),
                    "a heading that is not ours: {h:.200}"
                );
            }
            Event::Start(Tag::TableHead) => (in_head, header_cells) = (true, 0),
            Event::End(TagEnd::TableHead) => in_head = false,
            Event::Start(Tag::TableRow) => row_cells = 0,
            Event::End(TagEnd::TableRow) => {
                assert_eq!(row_cells, header_cells, "a row lost or gained cells")
            }
            Event::Start(Tag::TableCell) if in_head => header_cells += 1,
            Event::Start(Tag::TableCell) => row_cells += 1,
            Event::Text(t) | Event::Code(t) => {
                if let Some(h) = &mut heading {
                    h.push_str(&t);
                }
                shown.push_str(&t);
            }
            _ => {}
        }
    }
    shown
}

/// The waterfall's Mermaid chart: its five lines, each label of the few
/// characters kept (nothing of a name closes the label, the list or the
/// block, or reaches Mermaid's markup). The pacing's chart holds no text of
/// the recording: its fixed title and axis, then lines of numbers.
fn check_mermaid(chart: &str) {
    let lines: Vec<&str> = chart.lines().collect();
    if lines
        .get(1)
        .is_some_and(|l| l.starts_with("    title \"Frame times: "))
    {
        assert_eq!(
            lines[2],
            "    x-axis [\"median\", \"P90\", \"P95\", \"P99\", \"1% low\", \"0.1% low\", \"worst\"]",
            "{chart}"
        );
        assert!(lines[3].starts_with("    y-axis \"ms\" 0 --> "), "{chart}");
        assert!((6..=7).contains(&lines.len()), "{chart}");
        for line in &lines[4..] {
            let values = (line.strip_prefix("    line [")).and_then(|l| l.strip_suffix(']'));
            for v in values.unwrap_or_else(|| panic!("{chart}")).split(", ") {
                v.parse::<f64>()
                    .unwrap_or_else(|_| panic!("{v:?} in {chart}"));
            }
        }
        return;
    }
    assert_eq!(lines.len(), 5, "{chart}");
    assert_eq!(lines[0], "xychart-beta");
    assert!(lines[1].starts_with("    title \""), "{chart}");
    let axis = (lines[2].strip_prefix("    x-axis [\"")).and_then(|l| l.strip_suffix("\"]"));
    let axis = axis.unwrap_or_else(|| panic!("{chart}"));
    for label in axis.split("\", \"") {
        assert!(
            (label.chars()).all(|c| c.is_ascii_alphanumeric() || " _:.-/()'?…".contains(c)),
            "{label:?} in {chart}"
        );
    }
    assert!(lines[3].starts_with("    y-axis \"ms per "), "{chart}");
    let bars = (lines[4].strip_prefix("    bar [")).and_then(|l| l.strip_suffix(']'));
    for v in bars.unwrap_or_else(|| panic!("{chart}")).split(", ") {
        v.parse::<f64>()
            .unwrap_or_else(|_| panic!("{v:?} in {chart}"));
    }
}

#[test]
fn the_markdown_report_shows_every_name_literally() {
    let (_dir, a, b) = recordings();
    for args in [
        vec!["report", s(&a), "--top", "100"],
        vec!["report", s(&a), s(&b), "--top", "100"],
    ] {
        let md = ok(&args);
        let shown = check_markdown(&md);
        for name in hostile_strings() {
            assert!(
                shown.contains(&*escape::visible(&name)),
                "{args:?}: {name:.80?} is not shown literally"
            );
        }
        assert!(
            shown.contains("<img src=x onerror=alert(1)>a.puffin"),
            "the file name, literally"
        );
        assert_terminal_safe("report", &md);
    }
}

/// The tags and attributes the report writes itself (pulldown-cmark's and
/// the charts').
const TAGS: &[&str] = &[
    "html",
    "head",
    "meta",
    "title",
    "style",
    "body",
    "h1",
    "h2",
    "h3",
    "p",
    "table",
    "thead",
    "tbody",
    "tr",
    "th",
    "td",
    "code",
    "strong",
    "em",
    "ul",
    "ol",
    "li",
    "blockquote",
    "svg",
    "rect",
    "line",
    "text",
];
const ATTRIBUTES: &[&str] = &[
    "lang",
    "charset",
    "name",
    "content",
    "style",
    "class",
    "xmlns",
    "width",
    "height",
    "role",
    "x",
    "y",
    "x1",
    "x2",
    "y1",
    "y2",
    "fill",
    "stroke",
    "stroke-dasharray",
    "font-size",
];

/// Tokenizes the page as a browser does: every tag and attribute must be
/// one of ours, no attribute carries script; returns the text shown.
fn check_html(html: &str) -> String {
    use html5gum::{Token, Tokenizer};
    let mut shown = String::new();
    let (mut tags, mut in_title) = (BTreeSet::new(), false);
    for token in Tokenizer::new(html) {
        match token.expect("infallible") {
            Token::StartTag(tag) => {
                let name = String::from_utf8_lossy(&tag.name).into_owned();
                assert!(
                    TAGS.contains(&name.as_str()),
                    "a <{name:.100}> tag came from the input"
                );
                for (attr, value) in &tag.attributes {
                    let attr = String::from_utf8_lossy(attr);
                    let value = String::from_utf8_lossy(value);
                    assert!(
                        ATTRIBUTES.contains(&attr.as_ref()),
                        "attribute {attr:.100} on <{name}> came from the input"
                    );
                    assert!(
                        !value.contains(CANARY) && !value.contains("javascript:"),
                        "script in an attribute: {value:.200}"
                    );
                }
                in_title = name == "title";
                tags.insert(name);
            }
            Token::EndTag(_) => in_title = false,
            Token::Comment(c) => panic!(
                "a comment came through: {:.200}",
                String::from_utf8_lossy(&c)
            ),
            Token::String(t) if !in_title => shown.push_str(&String::from_utf8_lossy(&t)),
            _ => {}
        }
    }
    assert!(
        tags.contains("svg") && tags.contains("table"),
        "charts and tables are there"
    );
    shown
}

#[test]
fn the_html_report_holds_no_element_or_attribute_from_the_input() {
    let (dir, a, b) = recordings();
    for (k, args) in [
        vec!["report", s(&a), "--top", "100", "--format", "html"],
        vec!["report", s(&a), s(&b), "--top", "100", "--format", "html"],
    ]
    .into_iter()
    .enumerate()
    {
        let html = ok(&args);
        let shown = check_html(&html);
        for name in hostile_strings() {
            assert!(
                shown.contains(&*escape::visible(&name)),
                "{args:?}: {name:.80?} is not shown literally"
            );
        }
        // For the browser test and for people to look at.
        let _ = std::fs::write(dir.path().join(format!("report{k}.html")), &html);
    }
}

#[test]
fn json_reports_round_trip_the_strings() {
    let (_dir, a, b) = recordings();
    let json: Value =
        serde_json::from_str(&ok(&["report", s(&a), s(&b), "--format", "json"])).expect("JSON");
    let mut strings = Vec::new();
    collect_strings(&json, &mut strings);
    for name in &hostile_strings()[..4] {
        assert!(strings.contains(name), "{name:.80?}");
    }
}
