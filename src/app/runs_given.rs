//! A folder of `ab` runs given to the app: its `manifest.json` and `.puffin`
//! files dropped or picked together, or one `.zip` holding them (a zipped
//! folder, a CI artifact). Which files are the finished pairs is the
//! manifest's say (`engine::runs_manifest`); the files are matched by the
//! manifest's `file` names among those given (in a zip, beside the
//! manifest), never opened as paths. Plain data: the shell reads the files
//! and opens the runs (`open_runs`). Imports the engine only.

use crate::engine::analyses::judge::Noise;
use crate::engine::report::ReportOptions;
use crate::engine::runs_manifest::{self, MANIFEST, Manifest, Pairs};
use crate::engine::write::escape;

/// The runs of a manifest, read, to open as A's and B's (pair by pair).
pub struct RunsGiven {
    /// Where the manifest is, for the messages (`manifest.json`,
    /// `ci.zip: runs/manifest.json`), made visible.
    pub source: String,
    /// Each finished pair: its index and A's and B's run (file name, its
    /// bytes or why they cannot be read).
    pub pairs: Vec<(usize, GivenRun, GivenRun)>,
    /// The runs a side the session planned.
    pub planned: usize,
    /// What of the manifest cannot be used, one phrase each
    /// (`b3.puffin: missing`).
    pub unusable: Vec<String>,
    /// When it was given ([`super::SharedState::take_turn`]).
    pub turn: u64,
}

/// One run's file: its name and bytes (or why it cannot be read).
pub struct GivenRun {
    pub name: String,
    pub bytes: Result<Vec<u8>, String>,
}

/// Whether files given together (their names) are a folder of `ab` runs:
/// its manifest among them, or one `.zip` alone.
pub fn is_runs_folder(names: &[String]) -> bool {
    names.iter().any(|n| n == MANIFEST)
        || matches!(names, [one] if one.to_ascii_lowercase().ends_with(".zip"))
}

/// A manifest read and its finished pairs among the files at hand.
pub struct Plan {
    source: String,
    pairs: Pairs,
}

impl Plan {
    /// Reads the manifest (`bytes`, from `source`) and finds its finished
    /// pairs among the files `has` says are at hand. `Err`: one line naming
    /// the manifest and what is wrong (it does not read, no pair is left).
    pub fn new(
        source: &str,
        bytes: Result<Vec<u8>, String>,
        has: impl Fn(&str) -> bool,
    ) -> Result<Self, String> {
        let source = escape::visible(source).into_owned();
        let manifest = bytes
            .and_then(|b| Manifest::parse(&b))
            .map_err(|e| format!("{source}: {e}"))?;
        let pairs = runs_manifest::finished_pairs(&manifest, has);
        if pairs.pairs.is_empty() {
            let mut line = format!(
                "{source}: no finished pair of runs (A: {}, B: {})",
                pairs.finished.0, pairs.finished.1
            );
            if !pairs.unusable.is_empty() {
                line += &format!(": {}", pairs.unusable.join(", "));
            }
            return Err(line);
        }
        Ok(Self { source, pairs })
    }

    /// The files to read, in the order of their pairs (A's, then B's).
    #[cfg(target_arch = "wasm32")]
    pub fn files(&self) -> Vec<String> {
        (self.pairs.pairs.iter())
            .flat_map(|p| [p.a.clone(), p.b.clone()])
            .collect()
    }

    /// The runs given, each file's bytes from `read`.
    pub fn given(
        self,
        turn: u64,
        mut read: impl FnMut(&str) -> Result<Vec<u8>, String>,
    ) -> RunsGiven {
        let mut run = |name: &str| GivenRun {
            name: name.to_owned(),
            bytes: read(name),
        };
        let pairs = (self.pairs.pairs.iter())
            .map(|p| (p.index, run(&p.a), run(&p.b)))
            .collect();
        RunsGiven {
            source: self.source,
            pairs,
            planned: self.pairs.planned,
            unusable: self.pairs.unusable,
            turn,
        }
    }
}

/// The largest file read out of a zip (the browser's memory is 4 GiB).
const ZIP_ENTRY_MAX: u64 = 2 << 30;

/// The runs in a zip (`name`, its `bytes`): the one `manifest.json` nearest
/// its root, and the runs it names beside it. `Err`: one line naming the
/// zip and what is wrong.
pub fn runs_in_zip(name: &str, bytes: Vec<u8>, turn: u64) -> Result<RunsGiven, String> {
    use std::io::Read as _;
    let shown = escape::visible(name).into_owned();
    let mut zip = zip::ZipArchive::new(std::io::Cursor::new(bytes))
        .map_err(|e| format!("{shown}: not a zip that reads ({e})"))?;
    // The entries named manifest.json, nearest the root first.
    let mut manifests: Vec<(usize, String)> = zip
        .file_names()
        .filter_map(Result::ok)
        .filter(|n| *n == MANIFEST || n.ends_with(&format!("/{MANIFEST}")))
        .map(|n| (n.matches('/').count(), n.into_owned()))
        .collect();
    manifests.sort();
    let at = match manifests.as_slice() {
        [] => {
            return Err(format!(
                "{shown}: holds no {MANIFEST} (not a zipped folder of `ab` runs)"
            ));
        }
        [(depth, first), (next, second), ..] if depth == next => {
            return Err(format!(
                "{shown}: holds several folders of runs ({}, {}): zip one",
                escape::visible(first),
                escape::visible(second)
            ));
        }
        [(_, first), ..] => first.clone(),
    };
    let folder = at[..at.len() - MANIFEST.len()].to_owned();
    // The entries beside the manifest, by file name.
    let beside: std::collections::BTreeSet<String> = zip
        .file_names()
        .filter_map(Result::ok)
        .filter_map(|n| n.strip_prefix(folder.as_str()).map(str::to_owned))
        .collect();
    let mut read = |entry: &str| -> Result<Vec<u8>, String> {
        let shown = escape::visible(entry);
        let index = zip
            .index_for_name(entry)
            .ok_or_else(|| format!("{shown}: missing"))?;
        let file = zip.by_index(index).map_err(|e| format!("{shown}: {e}"))?;
        let mut out = Vec::new();
        file.take(ZIP_ENTRY_MAX + 1)
            .read_to_end(&mut out)
            .map_err(|e| format!("{shown}: cannot unzip ({e})"))?;
        if out.len() as u64 > ZIP_ENTRY_MAX {
            return Err(format!(
                "{shown}: larger than {} unzipped",
                crate::units::bytes(ZIP_ENTRY_MAX)
            ));
        }
        Ok(out)
    };
    let manifest = read(&at);
    let plan = Plan::new(&format!("{name}: {at}"), manifest, |file| {
        beside.contains(file)
    })?;
    Ok(plan.given(turn, |file| read(&format!("{folder}{file}"))))
}

/// The noise model of a comparison: paired runs' (as `report DIR` judges a
/// folder of `ab` runs), or the default.
pub fn noise(paired: bool) -> Noise {
    if paired {
        runs_manifest::paired_noise(Noise::default())
    } else {
        Noise::default()
    }
}

/// The report's options (the findings, Export ▸ Report): the default, with
/// [`noise`].
pub fn report_options(paired: bool) -> ReportOptions {
    ReportOptions {
        noise: noise(paired),
        ..ReportOptions::default()
    }
}
