//! A hostile recording: every string it carries (scope names, functions,
//! file paths, data, thread names) is an attack on some output: HTML and
//! script, event-handler attributes, attribute break-outs, Markdown links,
//! emphasis and tables, quotes, line breaks, terminal escapes, NUL, bidi
//! overrides, our own chart markers, and a 100 KB name.
//!
//! Every script in it sets `window.__puffinLensPwned` ([`CANARY`]): a page
//! that shows it safely leaves that global unset.
//!
//! Shared by the integration tests and `examples/capture.rs hostile` (which
//! includes this file by path), so the browser test opens what the Rust tests
//! check.
#![allow(dead_code)]

use puffin_lens::engine::write::puffin::{FrameData, Registration, ScopeNode, ThreadData};

/// The global an injected script would set.
pub const CANARY: &str = "__puffinLensPwned";

/// The attack strings, each distinct.
pub fn hostile_strings() -> Vec<String> {
    let pwn = |n: u32| format!("window.{CANARY}={n}");
    let mut v = vec![
        format!("<script>{}</script>", pwn(1)),
        format!("<img src=x onerror=\"{}\">", pwn(2)),
        format!("main<b onmouseover=\"{}\">x</b>", pwn(3)),
        format!("<svg onload={}>", pwn(4)),
        format!("\"><script>{}</script>", pwn(5)),
        format!("'><iframe srcdoc=\"<script>parent.{CANARY}=6</script>\"></iframe>"),
        format!("[click me](javascript:{})", pwn(7)),
        format!("<a href=\"javascript:{}\">link</a>", pwn(8)),
        "![image](x.png \"title\") <https://evil.example/>".to_owned(),
        "**bold** _em_ ~~strike~~ `code` $x^2$".to_owned(),
        "| a | b |".to_owned(),
        "# heading".to_owned(),
        "- list item".to_owned(),
        "1. numbered".to_owned(),
        "line one\nline two\r\n# injected heading".to_owned(),
        "tab\there nul\u{0} \u{1b}[31mred\u{1b}[0m \u{1b}]0;title\u{7} del\u{7f}".to_owned(),
        "bidi \u{202e}desrever\u{202c} \u{2066}isolate\u{2069} zero\u{200b}width".to_owned(),
        "<!--chart:frames:0:0--> <!-- open comment".to_owned(),
        "&lt;script&gt; &amp; &#60;entity".to_owned(),
        "```fence``` and \\| backslash pipe \\".to_owned(),
        "]]> <![CDATA[ x ]]> <?xml ?>".to_owned(),
        "quotes \" ' ` and = signs".to_owned(),
    ];
    // 100 KB, made of scripts.
    let unit = format!("<script>{}</script>", pwn(9));
    v.push(unit.repeat(100_000 / unit.len() + 1));
    v
}

const MS: i64 = 1_000_000;
const T0: i64 = 1_700_000_000_000_000_000;

/// Recording A (`b == false`) or B: six frames on three threads named by
/// attack strings. On the first thread a root scope holds every other scope
/// as a child with 1.5 ms unprofiled gaps between them (so the gaps, their
/// parents and neighbours are hostile too); frame 3 has one 12 ms call (an
/// outlier). Every scope id is registered with a hostile name, function and
/// path. B leaves one name out (gone), adds one (new) and makes one slower.
pub fn hostile_capture(b: bool) -> Vec<FrameData> {
    let strings = hostile_strings();
    let n = strings.len();
    let id_of = |i: usize| i as u32 + 1;
    let mut registrations: Vec<Registration> = (0..n)
        .map(|i| {
            Registration::named(
                id_of(i),
                &strings[i],
                &strings[(i + 1) % n],
                &format!("src/{}.rs", strings[(i + 2) % n]),
                i as u32 + 10,
            )
        })
        .collect();
    let new_id = id_of(n);
    if b {
        registrations.push(Registration::named(
            new_id,
            &format!("new in B <script>window.{CANARY}=10</script>"),
            "<b>f</b>",
            "src/<i>new</i>.rs",
            1,
        ));
    }
    let gone = 3; // left out of B
    let slower = 4; // 3x longer in B
    let threads = [&strings[2], &strings[n - 1], &strings[16]];
    (0..6u64)
        .map(|f| {
            let t = T0 + f as i64 * 200 * MS;
            let mut at = t + MS;
            let mut root = ScopeNode::new(id_of(0), t, t).data(&strings[1]);
            let mut kids: Vec<usize> = (1..n).filter(|&i| !(b && i == gone)).collect();
            if b {
                kids.push(n);
            }
            for i in kids {
                let mut len = MS / 2;
                if f == 3 && i == 5 {
                    len = 12 * MS;
                }
                if b && i == slower {
                    len *= 3;
                }
                let id = if i == n { new_id } else { id_of(i) };
                root = root
                    .child(ScopeNode::new(id, at, at + len).data(&strings[(i + f as usize) % n]));
                at += len + 3 * MS / 2;
            }
            root.stop_ns = at;
            let worker = ScopeNode::new(id_of(6), t + 2 * MS, t + 30 * MS)
                .data(&strings[7])
                .child(ScopeNode::new(id_of(7), t + 3 * MS, t + 10 * MS).data(&strings[14]));
            FrameData {
                frame_index: f,
                threads: vec![
                    ThreadData {
                        name: threads[0].clone(),
                        start_time_ns: Some(T0),
                        scopes: vec![root],
                    },
                    ThreadData {
                        name: threads[1].clone(),
                        start_time_ns: Some(T0 + 1),
                        scopes: vec![worker],
                    },
                    ThreadData {
                        name: threads[2].clone(),
                        start_time_ns: Some(T0 + 2),
                        scopes: vec![
                            ScopeNode::new(id_of(8), t + MS, t + 4 * MS).data(&strings[0]),
                        ],
                    },
                ],
                registrations: if f == 0 {
                    registrations.clone()
                } else {
                    Vec::new()
                },
            }
        })
        .collect()
}
