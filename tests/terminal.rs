//! `report` to a terminal: run under a pseudo-terminal (util-linux
//! `script`), it prints aligned tables and text bars, not Markdown; colour
//! only without `NO_COLOR`; piped, the Markdown as before; and a recording's
//! escape sequences never reach the terminal.

mod common;

use common::hostile::hostile_capture;
use puffin_lens::engine::write::puffin::{Compression, Format, write_recording};
use std::path::Path;
use std::process::Command;

/// `puffin-lens ARGS` under a pseudo-terminal in `dir`, `no_color` set or
/// not: what it printed (the terminal's carriage returns taken out).
fn on_a_terminal(dir: &Path, args: &str, no_color: bool) -> String {
    let exe = env!("CARGO_BIN_EXE_puffin-lens");
    let mut cmd = Command::new("script");
    cmd.current_dir(dir)
        .args(["-qec", &format!("'{exe}' {args}"), "/dev/null"])
        .env("TERM", "xterm-256color")
        .env_remove("NO_COLOR");
    if no_color {
        cmd.env("NO_COLOR", "1");
    }
    let out = cmd.output().expect("util-linux script runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).replace('\r', "")
}

#[test]
fn a_terminal_gets_tables_and_bars_not_markdown() {
    let dir = common::fixtures_dir();
    let args = "report twins/live_demo_quiet.puffin twins/live_demo_hog.puffin";
    let text = on_a_terminal(&dir, args, false);
    for markdown in ["```", "| --- |", "## ", "**"] {
        assert!(!text.contains(markdown), "{markdown:?} in:\n{text}");
    }
    for section in [
        "Where the frame's time went",
        "Findings, most costly first",
        "Frame pacing",
        "▲ slower, ▼ faster, ○ not a cost",
    ] {
        assert!(text.contains(section), "{section:?} not in:\n{text}");
    }
    // Colour on a terminal; none with NO_COLOR, the marks and signs stay.
    assert!(text.contains("\u{1b}["), "{text}");
    let plain = on_a_terminal(&dir, args, true);
    assert!(!plain.contains('\u{1b}'), "{plain}");
    assert!(plain.contains("▲ +"), "{plain}");
    // The headline is the report's, the same words as in its JSON.
    let (_, json) = common::json_in(
        &dir,
        &[
            "report",
            "twins/live_demo_quiet.puffin",
            "twins/live_demo_hog.puffin",
            "--format",
            "json",
        ],
    );
    let headline = json["comparison"]["glance"]["headline"].as_str().unwrap();
    assert!(plain.contains(headline), "{headline}\n{plain}");
    // Piped: the Markdown, as it always was.
    let piped = common::run_in(
        &dir,
        &[
            "report",
            "twins/live_demo_quiet.puffin",
            "twins/live_demo_hog.puffin",
        ],
    );
    let md = String::from_utf8(piped.stdout).unwrap();
    assert!(
        md.contains("## At a glance") && md.contains("```mermaid"),
        "{md}"
    );
    // One recording: its headline, slowest frames, totals and pacing.
    let one = on_a_terminal(&dir, "report real/rerun_viewer_plots_a.puffin", true);
    for section in ["Slowest frames", "Most time, by name", "Frame pacing"] {
        assert!(one.contains(section), "{section:?} not in:\n{one}");
    }
    assert!(!one.contains("| --- |"), "{one}");
}

#[test]
fn a_recording_s_escape_sequences_never_reach_the_terminal() {
    let dir = tempfile::tempdir().unwrap();
    for (b, name) in [(false, "a.puffin"), (true, "b.puffin")] {
        let bytes = write_recording(&hostile_capture(b), Format::Pfd4(Compression::Lz4));
        std::fs::write(dir.path().join(name), bytes).unwrap();
    }
    for args in ["report a.puffin b.puffin", "report a.puffin"] {
        let text = on_a_terminal(dir.path(), args, true);
        assert!(!text.contains('\u{1b}'), "{args}: {text}");
        assert!(!text.contains('\u{7}'), "{args}: {text}");
        assert!(text.contains("puffin-lens report"), "{args}: {text}");
    }
}
