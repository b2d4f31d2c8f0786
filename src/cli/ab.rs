//! `ab`: the two builds run alternately on this machine (A B B A …, an order
//! that cancels a linear drift of the machine), each run's recording kept
//! in one folder with a manifest, then judged as `report A1 A2 … --vs B1 B2
//! …` judges several runs a side.
//!
//! Each run is a command that writes its own recording to `{out}` (the
//! tool puts the run's path there). Recording a running app's puffin_http
//! server between runs is not built yet.

use anyhow::{Context as _, bail};
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::time::{Instant, SystemTime, UNIX_EPOCH};

/// Which build a run is of.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Side {
    A,
    B,
}

/// The order of `runs` runs a side: A B B A, repeated (a linear drift of
/// the machine then weighs on both sides alike).
pub fn order(runs: usize) -> Vec<Side> {
    (0..2 * runs)
        .map(|k| match k % 4 {
            0 | 3 => Side::A,
            _ => Side::B,
        })
        .collect()
}

/// One run as the manifest keeps it.
#[derive(Clone, Debug, Serialize)]
pub struct Run {
    pub side: Side,
    /// 1, 2, … within its side.
    pub index: usize,
    /// The recording, relative to the folder.
    pub file: String,
    pub command: String,
    pub started_unix_ms: u128,
    pub duration_ms: u128,
    /// The command's exit status (`null`: ended by a signal).
    pub exit_code: Option<i32>,
}

/// `manifest.json`: what was run, in which order, and how it went.
#[derive(Clone, Debug, Serialize)]
pub struct Manifest {
    pub tool: String,
    pub a: String,
    pub b: String,
    pub runs_per_side: usize,
    pub order: Vec<Side>,
    pub runs: Vec<Run>,
}

/// `command` with `{out}` replaced by `out`, quoted for `sh -c`.
fn with_out(command: &str, out: &Path) -> String {
    let quoted = format!("'{}'", out.to_string_lossy().replace('\'', r"'\''"));
    command.replace("{out}", &quoted)
}

/// Checks what can be checked before anything runs: both commands write
/// `{out}`, the folder is new (or empty, or `force`).
pub fn check(a: &str, b: &str, runs: usize, out: &Path, force: bool) -> anyhow::Result<()> {
    for (side, cmd) in [("--a", a), ("--b", b)] {
        if !cmd.contains("{out}") {
            bail!(
                "{side} {cmd:?} does not write its recording: put {{out}} where the command takes \
                 the output file (recording a running app's puffin_http server is not built yet)"
            );
        }
    }
    if runs == 0 {
        bail!("--runs must be at least 1");
    }
    if out.exists() {
        let empty = out
            .read_dir()
            .with_context(|| format!("{}: not a folder", out.display()))?
            .next()
            .is_none();
        if !empty && !force {
            bail!(
                "{}: exists and is not empty (its runs would be mixed with these): give another \
                 --out, or --force to write over it",
                out.display()
            );
        }
    }
    Ok(())
}

/// Runs A and B alternately (`runs` each) into `out`, a progress line per
/// run on stderr and the manifest written after each; the runs' files, A's
/// then B's. A run that fails (cannot start, exits non-zero, writes no
/// recording) ends the session with an error naming it; the runs before
/// it are kept in the folder and the manifest.
pub fn record(
    a: &str,
    b: &str,
    runs: usize,
    out: &Path,
) -> anyhow::Result<(Vec<PathBuf>, Vec<PathBuf>)> {
    std::fs::create_dir_all(out).with_context(|| format!("{}", out.display()))?;
    let mut manifest = Manifest {
        tool: format!("puffin-lens {}", env!("CARGO_PKG_VERSION")),
        a: a.to_owned(),
        b: b.to_owned(),
        runs_per_side: runs,
        order: order(runs),
        runs: Vec::new(),
    };
    let (mut files_a, mut files_b) = (Vec::new(), Vec::new());
    let total = manifest.order.len();
    for (k, side) in manifest.order.clone().into_iter().enumerate() {
        let (cmd, files, letter) = match side {
            Side::A => (a, &mut files_a, "a"),
            Side::B => (b, &mut files_b, "b"),
        };
        let index = files.len() + 1;
        let name = format!("{letter}{index}.puffin");
        let path = out.join(&name);
        let command = with_out(cmd, &path);
        let started_unix_ms = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_millis());
        let started = Instant::now();
        let status = std::process::Command::new("sh")
            .arg("-c")
            .arg(&command)
            .stdin(std::process::Stdio::null())
            .status()
            .with_context(|| format!("run {} ({letter}{index}): `sh` could not start", k + 1))?;
        let duration_ms = started.elapsed().as_millis();
        manifest.runs.push(Run {
            side,
            index,
            file: name.clone(),
            command: command.clone(),
            started_unix_ms,
            duration_ms,
            exit_code: status.code(),
        });
        write_manifest(out, &manifest)?;
        if !status.success() {
            bail!(
                "run {} of {total} ({letter}{index}): `{command}` failed ({status}); the {k} \
                 run(s) before it are kept in {}",
                k + 1,
                out.display()
            );
        }
        let frames = match super::load(&path) {
            Ok(d) => d.trace.frames.len(),
            Err(err) => bail!(
                "run {} of {total} ({letter}{index}): no recording in {}: {err:#}; the {k} run(s) \
                 before it are kept",
                k + 1,
                path.display()
            ),
        };
        eprintln!(
            "puffin-lens ab: run {}/{total}: {} #{index}, {:.2} s, {frames} frames",
            k + 1,
            letter.to_uppercase(),
            duration_ms as f64 / 1e3
        );
        files.push(path);
    }
    Ok((files_a, files_b))
}

fn write_manifest(out: &Path, manifest: &Manifest) -> anyhow::Result<()> {
    let path = out.join("manifest.json");
    let text = serde_json::to_string_pretty(manifest)? + "\n";
    std::fs::write(&path, text).with_context(|| format!("{}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_order_alternates_in_abba_blocks() {
        use Side::{A, B};
        assert_eq!(order(1), [A, B]);
        assert_eq!(order(2), [A, B, B, A]);
        assert_eq!(order(3), [A, B, B, A, A, B]);
        for n in 1..20 {
            let o = order(n);
            assert_eq!(o.iter().filter(|s| **s == A).count(), n);
            assert_eq!(o.iter().filter(|s| **s == B).count(), n);
        }
    }

    #[test]
    fn the_output_path_is_quoted_for_the_shell() {
        let cmd = with_out("app --record {out}", Path::new("/tmp/it's here/a1.puffin"));
        assert_eq!(cmd, r"app --record '/tmp/it'\''s here/a1.puffin'");
    }
}
