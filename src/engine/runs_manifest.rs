//! The manifest of a folder of `ab` runs (`manifest.json`: what was run, in
//! which order, how each run went) and which of its runs are the finished
//! pairs: run k of A with run k of B, both recorded and at hand. The CLI's
//! `ab` writes it and `report DIR` reads it; the app opens a folder's (or a
//! zip's) files by it. Plain data: no file system here, the caller says
//! which files it has.
//!
//! A manifest's `file` names come from a file: they are matched as names
//! among the files at hand, never joined to a path unless
//! [`plain_name`] accepts them (no folder, no `..`, nothing absolute).

use crate::engine::analyses::judge::{DriftMode, Noise};
use crate::engine::write::escape;
use serde::{Deserialize, Serialize};

/// The manifest's own file name in an `ab` folder.
pub const MANIFEST: &str = "manifest.json";

/// Which build a run is of.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Side {
    A,
    B,
}

/// One run as the manifest keeps it.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Run {
    pub side: Side,
    /// 1, 2, … within its side.
    pub index: usize,
    /// The recording, relative to the folder.
    pub file: String,
    pub command: String,
    pub started_unix_ms: u128,
    pub duration_ms: u128,
    /// The command's exit status (`null`: ended by a signal, as an app
    /// served with `--addr` is when its frames are recorded).
    pub exit_code: Option<i32>,
    /// Its recording was made and reads: the run counts.
    #[serde(default)]
    pub recorded: bool,
}

/// `manifest.json`: what was run, in which order, and how it went.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Manifest {
    pub tool: String,
    pub a: String,
    pub b: String,
    pub runs_per_side: usize,
    pub order: Vec<Side>,
    pub runs: Vec<Run>,
}

impl Manifest {
    /// Reads a manifest's text; the error says what is wrong with it.
    pub fn parse(bytes: &[u8]) -> Result<Self, String> {
        serde_json::from_slice(bytes).map_err(|e| format!("not an `ab` manifest ({e})"))
    }
}

/// `file` when it is a plain file name (what `ab` writes: `a1.puffin`):
/// not empty, no folder separator, not `.` or `..`, no drive (`C:`), no
/// control or invisible character. Anything else is not looked for.
pub fn plain_name(file: &str) -> Option<&str> {
    let plain = !file.is_empty()
        && file != "."
        && file != ".."
        && !file.contains(['/', '\\', ':'])
        && matches!(escape::visible(file), std::borrow::Cow::Borrowed(_));
    plain.then_some(file)
}

/// One finished pair: run `index` of A and of B, their files.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pair {
    pub index: usize,
    pub a: String,
    pub b: String,
}

/// A manifest's finished pairs, in index order, and what was left out.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Pairs {
    pub pairs: Vec<Pair>,
    /// The runs a side the session planned.
    pub planned: usize,
    /// Runs of A and of B finished (recorded, at hand), paired or not.
    pub finished: (usize, usize),
    /// Each run listed as recorded that cannot be used, with why (`b3.puffin:
    /// missing`), in the manifest's order; its name made visible
    /// ([`escape::visible`]: no control or reordering character).
    pub unusable: Vec<String>,
}

impl Pairs {
    /// A's files, then B's, in pair order.
    pub fn files(&self) -> (Vec<String>, Vec<String>) {
        self.pairs
            .iter()
            .map(|p| (p.a.clone(), p.b.clone()))
            .unzip()
    }
}

/// The finished pairs of `manifest`: run k of A with run k of B when both
/// are recorded and `has` their file, in index order. A run not recorded
/// (it failed, or the session stopped first) is simply not a pair's; a run
/// recorded whose file is not plain ([`plain_name`]), is not at hand or is
/// listed twice is named in [`Pairs::unusable`].
pub fn finished_pairs(manifest: &Manifest, has: impl Fn(&str) -> bool) -> Pairs {
    let mut runs: std::collections::BTreeMap<(Side, usize), &str> = Default::default();
    let mut unusable = Vec::new();
    for run in manifest.runs.iter().filter(|r| r.recorded) {
        let why = match plain_name(&run.file) {
            None => Some("not a plain file name"),
            Some(file) if !has(file) => Some("missing"),
            Some(_) if runs.contains_key(&(run.side, run.index)) => Some("listed twice"),
            Some(file) => {
                runs.insert((run.side, run.index), file);
                None
            }
        };
        if let Some(why) = why {
            unusable.push(format!("{}: {why}", escape::visible(&run.file)));
        }
    }
    let count = |side| runs.keys().filter(|(s, _)| *s == side).count();
    let pairs = runs
        .iter()
        .filter(|((side, _), _)| *side == Side::A)
        .filter_map(|(&(_, index), a)| {
            let b = runs.get(&(Side::B, index))?;
            Some(Pair {
                index,
                a: (*a).to_owned(),
                b: (*b).to_owned(),
            })
        })
        .collect();
    Pairs {
        pairs,
        planned: manifest.runs_per_side,
        finished: (count(Side::A), count(Side::B)),
        unusable,
    }
}

/// The noise model of paired runs (`report --paired`, `report DIR`, the
/// app's folder of runs): each row judged by the pairs' differences, no
/// drift subtracted (the alternation cancels the machine).
pub fn paired_noise(noise: Noise) -> Noise {
    Noise {
        paired: true,
        drift: DriftMode::Off,
        ..noise
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(side: Side, index: usize, file: &str, recorded: bool) -> Run {
        Run {
            side,
            index,
            file: file.to_owned(),
            command: String::new(),
            started_unix_ms: 0,
            duration_ms: 0,
            exit_code: Some(0),
            recorded,
        }
    }

    fn manifest(runs: Vec<Run>) -> Manifest {
        Manifest {
            tool: "puffin-lens".into(),
            a: "a".into(),
            b: "b".into(),
            runs_per_side: 3,
            order: Vec::new(),
            runs,
        }
    }

    #[test]
    fn pairs_are_run_k_of_both_sides_finished_and_at_hand() {
        use Side::{A, B};
        let m = manifest(vec![
            run(A, 1, "a1.puffin", true),
            run(B, 1, "b1.puffin", true),
            run(B, 2, "b2.puffin", true),
            run(A, 2, "a2.puffin", true),
            run(A, 3, "a3.puffin", true),
            run(B, 3, "b3.puffin", false),
        ]);
        let all = finished_pairs(&m, |_| true);
        assert_eq!(
            all.files(),
            (
                vec!["a1.puffin".to_owned(), "a2.puffin".to_owned()],
                vec!["b1.puffin".to_owned(), "b2.puffin".to_owned()]
            )
        );
        assert_eq!(all.finished, (3, 2));
        assert!(all.unusable.is_empty(), "{:?}", all.unusable);
        // a2 missing: pair 2 goes, pair 1 stays (never a1 with b2).
        let some = finished_pairs(&m, |f| f != "a2.puffin");
        assert_eq!(some.pairs.len(), 1);
        assert_eq!(some.pairs[0].b, "b1.puffin");
        assert_eq!(some.unusable, ["a2.puffin: missing"]);
    }

    #[test]
    fn a_file_name_that_is_a_path_is_never_looked_for() {
        use Side::{A, B};
        for bad in [
            "../a1.puffin",
            "/etc/passwd",
            "x/a1.puffin",
            "..",
            "C:a1",
            "a\u{1b}[31m",
            "a\u{202e}1",
        ] {
            assert_eq!(plain_name(bad), None, "{bad}");
            let m = manifest(vec![run(A, 1, bad, true), run(B, 1, "b1.puffin", true)]);
            let asked = std::cell::RefCell::new(Vec::new());
            let p = finished_pairs(&m, |f| {
                asked.borrow_mut().push(f.to_owned());
                true
            });
            assert!(p.pairs.is_empty());
            assert_eq!(asked.into_inner(), ["b1.puffin"], "{bad}");
            let shown = escape::visible(bad);
            assert_eq!(p.unusable, [format!("{shown}: not a plain file name")]);
        }
        assert_eq!(plain_name("a1.puffin"), Some("a1.puffin"));
    }

    #[test]
    fn a_manifest_that_does_not_read_says_so() {
        let err = Manifest::parse(b"{\"runs\": 3}").unwrap_err();
        assert!(err.starts_with("not an `ab` manifest"), "{err}");
    }
}
