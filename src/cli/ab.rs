//! `ab` in the terminal: the session of alternated runs
//! (`engine::record::ab`), its progress on stderr, Ctrl-C that stops the
//! running app and keeps the finished runs; and a folder of runs read back
//! for `report DIR`.

use anyhow::{Context as _, bail};
use puffin_lens::engine::record::ab::{Control, Names, Progress};
use puffin_lens::engine::runs_manifest::{self, MANIFEST, Manifest};
use std::path::{Path, PathBuf};

pub use puffin_lens::engine::record::ab::{Recorder, Session, looks, next_look};

/// The settings as the command line names them.
pub const NAMES: Names = Names {
    a: "--a",
    b: "--b",
    runs: "--runs",
    out: "--out",
    force: "--force",
    addr: "--addr",
    start_timeout: "--start-timeout",
};

/// The session's control: Ctrl-C stops it.
static CONTROL: Control = Control::new();

/// A session writing into `out`, Ctrl-C stopping its running app, keeping
/// the finished runs (the manifest is written after each) and ending the
/// process (exit 130).
pub fn session<'s>(
    a: &'s str,
    b: &'s str,
    out: &'s Path,
    recorder: &'s Recorder,
) -> anyhow::Result<Session<'s>> {
    let kept = out.display().to_string();
    let _ = ctrlc::set_handler(move || {
        CONTROL.stop();
        eprintln!(
            "puffin-lens ab: interrupted; the finished runs are kept in {kept} (its \
             manifest.json lists them; `puffin-lens report {kept}` judges their pairs)"
        );
        std::process::exit(130);
    });
    Session::new(a, b, out, recorder, &CONTROL, NAMES)
}

/// Records until `runs` pairs, a line per run on stderr. A run that failed
/// because Ctrl-C stopped its app is no failure to report: this thread
/// waits for the handler to end the process.
pub fn record_until(session: &mut Session<'_>, runs: usize) -> anyhow::Result<()> {
    let told = session.record_until(runs, &mut |p| {
        if let Progress::Recorded {
            run,
            total,
            side,
            index,
            duration_ms,
            frames,
        } = p
        {
            eprintln!(
                "puffin-lens ab: run {run}/{total}: {side:?} #{index}, {:.2} s, {frames} frames",
                *duration_ms as f64 / 1e3
            );
        }
    });
    if told.is_err() {
        while CONTROL.is_stopped() {
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
    }
    told
}

/// The runs a folder of `ab` holds, paired: A's and B's recordings in
/// their order, as many a side (the pairs its manifest lists as finished,
/// `engine::runs_manifest::finished_pairs`: a session cut short keeps its
/// whole pairs, and says what it left out).
pub fn runs_in(dir: &Path) -> anyhow::Result<(Vec<PathBuf>, Vec<PathBuf>)> {
    let path = dir.join(MANIFEST);
    let text = std::fs::read(&path)
        .with_context(|| format!("{}: not a folder of `ab` runs", path.display()))?;
    let manifest = Manifest::parse(&text)
        .map_err(anyhow::Error::msg)
        .with_context(|| format!("{}", path.display()))?;
    // Only plain names are joined to the folder (runs_manifest::plain_name).
    let found = runs_manifest::finished_pairs(&manifest, |file| dir.join(file).is_file());
    if found.pairs.is_empty() {
        bail!(
            "{}: no finished pair of runs (A: {}, B: {})",
            path.display(),
            found.finished.0,
            found.finished.1
        );
    }
    let pairs = found.pairs.len();
    if pairs != manifest.runs_per_side || !found.unusable.is_empty() {
        let unusable = found.unusable.join(", ");
        eprintln!(
            "puffin-lens: {}: {pairs} finished pair(s) of {} planned; judging those{}",
            dir.display(),
            manifest.runs_per_side,
            if unusable.is_empty() {
                String::new()
            } else {
                format!(" ({unusable})")
            }
        );
    }
    let (a, b) = found.files();
    let join = |files: Vec<String>| files.iter().map(|f| dir.join(f)).collect();
    Ok((join(a), join(b)))
}
