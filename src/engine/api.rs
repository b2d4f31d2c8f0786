//! The analyses, declared once: each is a typed request (its arguments,
//! their defaults and their `--help`, for clap and serde alike) answered in
//! one place ([`answer`]). The command line parses a [`Request`] from its
//! arguments and renders the [`Answer`] as text or JSON; the web page's
//! `puffinLens.query(name, args)` deserializes the same request from a JSON
//! object ([`query_json`]). The JSON answers are byte for byte what the
//! matching subcommand prints with `--json` (without the newline).
//!
//! Arguments are an object whose keys are the subcommand's options with `-`
//! written `_` (`{"top": 5}`, `{"min_ms": 0.5, "thread": "main"}`) and its
//! positional arguments by name (`prefix`, `name`, `lo`, `hi`, `id`); missing
//! keys take the subcommand's defaults. `compare` compares the shown
//! recording (A) with the second one (B).

use super::analyses::diff::{DiffReport, diff_tree_judged};
use super::analyses::gate::Gate;
use super::analyses::judge::{self, Noise};
use super::analyses::pacing::TailGate;
use super::analyses::transform::{Stack, Transform, transformed_tree};
use super::analyses::tree::TreeReport;
use super::analyses::{self, CompareOptions, CompareSort, Field, FindFilter, GroupBy};
use super::model::Trace;
use clap::{Args, FromArgMatches, Subcommand};
use serde::Deserialize;

#[derive(Debug, thiserror::Error)]
pub enum QueryError {
    #[error("unknown query {0:?} (known: {known})", known = query_names().join(", "))]
    Unknown(String),
    #[error("bad arguments for {query}: {message}")]
    BadArgs { query: String, message: String },
    #[error("this analysis compares two recordings: open a second one (B)")]
    NoB,
    /// The question has no answer in this recording (the CLI's exit 1).
    #[error("{0}")]
    NotFound(String),
    /// `thread` names no thread of the recording(s) (the CLI's exit 2).
    #[error(transparent)]
    UnknownThread(#[from] analyses::UnknownThread),
}

/// The defaults of an argument struct, as clap fills them in (so each
/// default is written once, in the `#[arg]` attribute).
fn clap_defaults<T: Args + FromArgMatches>() -> T {
    let cmd = T::augment_args(clap::Command::new("defaults").no_binary_name(true));
    let matches = cmd
        .try_get_matches_from(std::iter::empty::<String>())
        .expect("every argument of this struct has a default");
    T::from_arg_matches(&matches).expect("the defaults parse")
}

macro_rules! defaults_from_clap {
    ($($t:ty),*) => {$(
        impl Default for $t {
            fn default() -> Self {
                clap_defaults()
            }
        }
    )*};
}

#[derive(Args, Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct FramesArgs {
    /// Show at most N frames.
    #[arg(long, value_name = "N")]
    pub top: Option<usize>,
}

#[derive(Args, Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct ThreadsArgs {
    /// The frame with this frame_index (the first one after a restart).
    #[arg(long, value_name = "I")]
    pub frame: Option<u64>,
}

#[derive(Args, Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct TopArgs {
    /// How many instances.
    #[arg(long, value_name = "N", default_value_t = 10)]
    pub top: usize,
}

#[derive(Args, Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct FindArgs {
    /// Prefix of the name or data; empty or absent matches every scope.
    #[arg(default_value = "")]
    pub prefix: String,
    /// Which field the prefix applies to.
    #[arg(long, value_enum, default_value_t = Field::Any)]
    pub field: Field,
    /// Only scopes on threads with this name (or its label in the tables: `(unnamed)`).
    #[arg(long, value_name = "T")]
    pub thread: Option<String>,
    /// Only scopes of the frame(s) with this frame_index.
    #[arg(long, value_name = "I")]
    pub frame: Option<u64>,
    /// How many rows.
    #[arg(long, value_name = "N", default_value_t = 20)]
    pub top: usize,
    /// Group the matches and total them.
    #[arg(long)]
    pub aggregate: bool,
    /// Grouping for --aggregate.
    #[arg(long, value_enum, default_value_t = GroupBy::NameData, requires = "aggregate")]
    pub by: GroupBy,
    /// With --aggregate: totals per node name of the transformed call tree.
    #[command(flatten)]
    #[serde(flatten)]
    pub transform: TransformArgs,
}

#[derive(Args, Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct TreeArgs {
    /// Only the frame with this frame_index (default: all frames merged).
    #[arg(long, value_name = "I")]
    pub frame: Option<u64>,
    /// Only threads with this name (or its label in the tables: `(unnamed)`).
    #[arg(long, value_name = "T")]
    pub thread: Option<String>,
    /// List N levels (roots are level 1); deeper nodes are counted, not listed.
    #[arg(long, value_name = "N")]
    pub depth: Option<u32>,
    #[command(flatten)]
    #[serde(flatten)]
    pub transform: TransformArgs,
}

#[derive(Args, Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ChildrenArgs {
    /// Scope name or data string.
    pub name: String,
    /// List children in time order instead of slowest first.
    #[arg(long)]
    #[serde(default)]
    pub ordered: bool,
}

#[derive(Args, Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct CallsArgs {
    /// Scope name or data string.
    pub name: String,
    /// Compare the calls with recording B's (the CLI: `calls A B NAME`).
    #[arg(skip)]
    #[serde(default)]
    pub compare: bool,
    /// Break the calls down by the data of the scopes named CHILD (a name or a glob) inside
    /// each, at any depth: per group of calls with the same CHILD data, their count and
    /// total, median and max, and CHILD's own totals.
    #[arg(long, value_name = "CHILD", value_parser = pattern_arg)]
    #[serde(default)]
    pub by_child: Option<String>,
    #[command(flatten)]
    #[serde(flatten)]
    pub noise: NoiseArgs,
}

#[derive(Args, Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct CallersArgs {
    /// Scope name (exact).
    pub name: String,
    #[command(flatten)]
    #[serde(flatten)]
    pub transform: TransformArgs,
}

/// `window --top` when not given.
const WINDOW_TOP: usize = 5;

fn window_top() -> usize {
    WINDOW_TOP
}

/// `window --scopes` when not given.
const WINDOW_SCOPES: usize = 50;

fn window_scopes() -> usize {
    WINDOW_SCOPES
}

/// A window's edge: epoch nanoseconds (`1795967542870000000`), or
/// milliseconds since the recording's start with `ms` after them (`12.5ms`:
/// the text's "at" times, the JSON's `*_rel_ms`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum TimeArg {
    Ns(i64),
    RelMs(f64),
}

impl TimeArg {
    /// Epoch nanoseconds in `trace`'s recording.
    pub fn ns_in(self, trace: &Trace) -> i64 {
        match self {
            TimeArg::Ns(ns) => ns,
            TimeArg::RelMs(ms) => trace.recording_start_ns().saturating_add(ms_to_ns(ms)),
        }
    }
}

impl std::str::FromStr for TimeArg {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        let bad = || {
            format!(
                "expected epoch nanoseconds (an integer) or milliseconds since the \
                 recording's start (`12.5ms`), got {s:?}"
            )
        };
        match s.trim().strip_suffix("ms") {
            Some(ms) => match ms.trim().parse::<f64>() {
                Ok(v) if v.is_finite() => Ok(TimeArg::RelMs(v)),
                _ => Err(bad()),
            },
            None => s.trim().parse::<i64>().map(TimeArg::Ns).map_err(|_| bad()),
        }
    }
}

impl<'de> Deserialize<'de> for TimeArg {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl serde::de::Visitor<'_> for Visitor {
            type Value = TimeArg;

            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(
                    "epoch nanoseconds (an integer) or milliseconds since the recording's \
                     start (\"12.5ms\")",
                )
            }

            fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<TimeArg, E> {
                Ok(TimeArg::Ns(v))
            }

            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<TimeArg, E> {
                i64::try_from(v)
                    .map(TimeArg::Ns)
                    .map_err(|_| E::custom(format!("{v} ns is past i64")))
            }

            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<TimeArg, E> {
                v.parse().map_err(E::custom)
            }
        }
        d.deserialize_any(Visitor)
    }
}

#[derive(Args, Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct WindowArgs {
    /// Window start: epoch nanoseconds, or milliseconds since the recording's start (`12.5ms`).
    #[arg(allow_negative_numbers = true)]
    pub lo: TimeArg,
    /// Window end: epoch nanoseconds, or milliseconds since the recording's start (`14ms`).
    #[arg(allow_negative_numbers = true)]
    pub hi: TimeArg,
    /// Slowest scopes to show per thread.
    #[arg(long, value_name = "N", default_value_t = WINDOW_TOP)]
    #[serde(default = "window_top")]
    pub top: usize,
    /// Scopes to list per thread in time order, with their starts and ends.
    #[arg(long, value_name = "N", default_value_t = WINDOW_SCOPES)]
    #[serde(default = "window_scopes")]
    pub scopes: usize,
}

#[derive(Args, Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct GapsArgs {
    /// Only gaps on threads with this name (or its label in the tables: `(unnamed)`).
    #[arg(long, value_name = "T")]
    pub thread: Option<String>,
    /// Shortest single gap to list, and the least total of a recurring one, in milliseconds.
    #[arg(long, value_name = "X", default_value_t = 1.0, value_parser = ms_arg)]
    pub min_ms: f64,
    /// How many gaps, and how many recurring gaps, to list.
    #[arg(long, value_name = "N", default_value_t = 20)]
    pub top: usize,
}

#[derive(Args, Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct CompareArgs {
    /// How many rows.
    #[arg(long, value_name = "N", default_value_t = 50)]
    pub top: usize,
    /// Keep rows whose name or data starts with P.
    #[arg(long, value_name = "P")]
    pub filter: Option<String>,
    /// Hide rows under MS milliseconds of total time in both recordings.
    #[arg(long, value_name = "MS")]
    pub hide_below: Option<f64>,
    /// Row order.
    #[arg(long, value_enum, default_value_t = CompareSort::AbsDelta)]
    pub sort: CompareSort,
    #[command(flatten)]
    #[serde(flatten)]
    pub noise: NoiseArgs,
    #[command(flatten)]
    #[serde(flatten)]
    pub gate: GateArgs,
}

/// Transforms of the merged call tree (see `analyses::transform`), applied
/// in the order given. In JSON: `{"transforms": ["merge:NAME", ...]}`; on
/// the command line one flag per transform, repeatable, in order.
#[derive(Deserialize, Clone, Debug, PartialEq, Default)]
#[serde(default)]
pub struct TransformArgs {
    pub transforms: Stack,
}

/// The command line's transform flags: (flag, its value's name, help).
const TRANSFORM_FLAGS: [(&str, &str, &str); 9] = [
    (
        "merge",
        "NAME",
        "Merge scopes named NAME (a glob: `profiling::*`) into their parent: their own \
time goes to it, their children move up (for thin wrappers).",
    ),
    (
        "focus",
        "PATH",
        "Show only the subtree at PATH, names from a thread's top level separated by \
';' (`frame;update;physics`), as the root.",
    ),
    (
        "focus-function",
        "NAME",
        "Show every call of NAME, wherever it is, merged as one root (its \
callers gone).",
    ),
    (
        "collapse",
        "NAME",
        "Fold the subtree of scopes named NAME into their own time (they keep \
their total).",
    ),
    (
        "collapse-crate",
        "CRATE",
        "Collapse each run of nested scopes from CRATE (a glob) into one \
node `[CRATE]` (the crate read from the scope's file, or the name's `module::`).",
    ),
    (
        "only-my-code",
        "",
        "Collapse every dependency crate (a versioned folder, a Cargo registry or \
git checkout) into one node per run: the app's own scopes stay as they are.",
    ),
    (
        "collapse-recursion",
        "NAME",
        "Merge a scope directly inside itself into the outer one (NAME \
or `all`, the default).",
    ),
    (
        "drop",
        "NAME",
        "Remove scopes named NAME and their subtrees, and their time with them (the \
totals say what is shown of what was recorded).",
    ),
    (
        "split-data",
        "NAME",
        "Split the nodes of scopes named NAME by their data string \
(`NAME [data]`).",
    ),
];

impl clap::FromArgMatches for TransformArgs {
    fn from_arg_matches(m: &clap::ArgMatches) -> Result<Self, clap::Error> {
        let mut given: Vec<(usize, Transform)> = Vec::new();
        for (flag, value, _) in TRANSFORM_FLAGS {
            let Some(indices) = m.indices_of(flag) else {
                continue;
            };
            if value.is_empty() {
                if m.get_flag(flag) {
                    given.extend(indices.map(|i| (i, Transform::OnlyMyCode)));
                }
                continue;
            }
            let values = m.get_many::<Transform>(flag).into_iter().flatten();
            given.extend(indices.zip(values.cloned()));
        }
        given.sort_by_key(|(i, _)| *i);
        Ok(Self {
            transforms: Stack(given.into_iter().map(|(_, t)| t).collect()),
        })
    }

    fn update_from_arg_matches(&mut self, m: &clap::ArgMatches) -> Result<(), clap::Error> {
        *self = Self::from_arg_matches(m)?;
        Ok(())
    }
}

impl clap::Args for TransformArgs {
    fn augment_args(mut cmd: clap::Command) -> clap::Command {
        for (flag, value, help) in TRANSFORM_FLAGS {
            let arg = clap::Arg::new(flag)
                .long(flag)
                .help(help)
                .help_heading("Transforms (applied in the order given)");
            let arg = if value.is_empty() {
                arg.action(clap::ArgAction::SetTrue)
            } else {
                let arg = arg
                    .value_name(value)
                    .action(clap::ArgAction::Append)
                    .value_parser(move |v: &str| Transform::new(flag, Some(v)));
                if flag == "collapse-recursion" {
                    arg.num_args(0..=1).default_missing_value("all")
                } else {
                    arg
                }
            };
            cmd = cmd.arg(arg);
        }
        cmd
    }

    fn augment_args_for_update(cmd: clap::Command) -> clap::Command {
        Self::augment_args(cmd)
    }
}

/// The noise model's thresholds (see `analyses::judge`).
#[derive(Args, Deserialize, Clone, Debug, PartialEq)]
#[serde(default)]
pub struct NoiseArgs {
    /// A change smaller than this percentage (of A's median per call, or of A's calls per
    /// frame) is noise.
    #[arg(long, value_name = "PCT", default_value_t = judge::DEFAULT_NOISE_PCT, value_parser = percent_arg)]
    pub noise_pct: f64,
    /// A change smaller than this many milliseconds per frame is noise.
    #[arg(long, value_name = "MS", default_value_t = judge::DEFAULT_NOISE_MS, value_parser = ms_arg)]
    pub noise_ms: f64,
    /// Significance level of the rank tests (Mann-Whitney U), between 0 and 1.
    #[arg(long, value_name = "P", default_value_t = judge::DEFAULT_ALPHA, value_parser = alpha_arg)]
    pub alpha: f64,
    /// Judge B's per-call times as they are, not against the run-to-run drift (the shift
    /// the busy scopes share: machine speed or load between the two runs).
    #[arg(long)]
    pub no_drift: bool,
    /// The runs a side were recorded alternately on one machine (as `ab` records them):
    /// run k of A and run k of B are a pair. Each row is judged by the pairs' differences,
    /// the machine cancelled in each, and no drift is subtracted (a shift every name shares
    /// is the code's, and is told).
    #[arg(long)]
    pub paired: bool,
    /// With one run a side: how far one name's cost per call varies between two runs of
    /// the same code on this machine, beyond the drift they share (the prior: measured on
    /// real twins, see docs/statistics.md). The pair's own names measure it too, but their
    /// changes only widen it: the smaller of the two is used. Raise it on a noisy shared
    /// runner; several runs a side (or `ab`) measure it instead. [default: 12.75, a log
    /// spread of 0.12]
    #[arg(long, value_name = "PCT", value_parser = percent_arg)]
    pub run_spread_pct: Option<f64>,
}

impl NoiseArgs {
    /// The thresholds, checked (the JavaScript API's arguments skip clap).
    pub fn noise(&self) -> Result<Noise, String> {
        let mut noise = Noise::new(self.noise_pct, self.noise_ms, self.alpha)?;
        if let Some(pct) = self.run_spread_pct {
            percent_arg(&pct.to_string()).map_err(|e| format!("run_spread_pct: {e}"))?;
            noise.tau = libm::log1p(pct / 100.0);
        }
        Ok(if self.no_drift || self.paired {
            Noise {
                drift: judge::DriftMode::Off,
                paired: self.paired,
                ..noise
            }
        } else {
            noise
        })
    }
}

/// The regression gate.
#[derive(Args, Deserialize, Clone, Debug, PartialEq)]
#[serde(default)]
pub struct GateArgs {
    /// Exit 4 when a row judged slower per call or run more often (never a spike, never
    /// noise) costs more than PCT percent of A's mean frame, per frame.
    #[arg(long, value_name = "PCT", value_parser = percent_arg)]
    pub fail_on_regression: Option<f64>,
    /// With --fail-on-regression: and more than MS milliseconds per frame.
    #[arg(long, value_name = "MS", default_value_t = 0.0, value_parser = ms_arg, requires = "fail_on_regression")]
    pub min_ms: f64,
    /// Also exit 4 when the run-to-run drift (B's per-call cost against A's, across the
    /// board) is past PCT percent, slower or faster: for a job whose two runs must be
    /// comparable. Without it the gate never fails on drift alone.
    #[arg(long, value_name = "PCT", value_parser = percent_arg)]
    pub fail_on_drift: Option<f64>,
    /// Exit 4 when B's P99 frame (frame pacing) is judged longer than A's by more than PCT
    /// percent of A's, its whole interval above; 5 when its interval straddles that.
    #[arg(long, value_name = "PCT", value_parser = percent_arg)]
    pub fail_on_p99: Option<f64>,
    /// The same for the 1% low (the mean of the slowest 1% of frames, as a frame time).
    #[arg(long, value_name = "PCT", value_parser = percent_arg)]
    pub fail_on_low: Option<f64>,
}

/// The tail gate of `--fail-on-p99` and `--fail-on-low`, checked.
fn tail_gate(p99: Option<f64>, low: Option<f64>) -> Result<TailGate, String> {
    for (what, v) in [("fail_on_p99", p99), ("fail_on_low", low)] {
        if let Some(v) = v {
            percent_arg(&v.to_string()).map_err(|e| format!("{what}: {e}"))?;
        }
    }
    Ok(TailGate {
        p99_pct: p99,
        low_pct: low,
    })
}

impl GateArgs {
    /// The tail gate (frame pacing), checked.
    pub fn tail_gate(&self) -> Result<TailGate, String> {
        tail_gate(self.fail_on_p99, self.fail_on_low)
    }

    /// The gate, checked; `None` without `--fail-on-regression`.
    pub fn gate(&self) -> Result<Option<Gate>, String> {
        if let Some(d) = self.fail_on_drift {
            percent_arg(&d.to_string()).map_err(|e| format!("fail_on_drift: {e}"))?;
        }
        let pct = match (self.fail_on_regression, self.fail_on_drift) {
            (None, None) => return Ok(None),
            // The drift alone: rows never trip a gate that asked for none.
            (None, Some(_)) => f64::INFINITY,
            (Some(pct), _) => pct,
        };
        if pct.is_finite() {
            percent_arg(&pct.to_string()).map_err(|e| format!("fail_on_regression: {e}"))?;
        }
        ms_arg(&self.min_ms.to_string()).map_err(|e| format!("min_ms: {e}"))?;
        Ok(Some(Gate {
            pct,
            min_ms: self.min_ms,
            drift_pct: self.fail_on_drift,
        }))
    }
}

/// A scope name or a glob, checked (a malformed glob is a usage error).
fn pattern_arg(s: &str) -> Result<String, String> {
    analyses::transform::Pattern::new(s).map(|_| s.to_owned())
}

fn percent_arg(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(v) if v.is_finite() && (0.0..=1000.0).contains(&v) => Ok(v),
        _ => Err(format!("expected a percentage from 0 to 1000, got {s:?}")),
    }
}

fn ms_arg(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(v) if v.is_finite() && v >= 0.0 => Ok(v),
        _ => Err(format!("expected 0 or more milliseconds, got {s:?}")),
    }
}

fn alpha_arg(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(v) if v.is_finite() && v > 0.0 && v < 1.0 => Ok(v),
        _ => Err(format!(
            "expected a probability between 0 and 1 (exclusive), got {s:?}"
        )),
    }
}

#[derive(Args, Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct DiffArgs {
    /// Only threads with this name (or its label in the tables: `(unnamed)`).
    #[arg(long, value_name = "T")]
    pub thread: Option<String>,
    /// List N levels (roots are level 1); deeper nodes are counted, not listed.
    #[arg(long, value_name = "N")]
    pub depth: Option<u32>,
    #[command(flatten)]
    #[serde(flatten)]
    pub noise: NoiseArgs,
    #[command(flatten)]
    #[serde(flatten)]
    pub transform: TransformArgs,
}

#[derive(Args, Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct PacingArgs {
    /// The frame budget in milliseconds: a frame longer than this is over it. Default: on
    /// frames paced by a clock (vsync, a limiter), their median period (a frame 5% over it
    /// missed its slot); else 16.667 ms (60 Hz).
    #[arg(long, value_name = "MS", value_parser = budget_arg)]
    pub budget: Option<f64>,
    /// A change of a tail figure smaller than this percentage of A's is noise (for a share
    /// of frames: of A's share, at least one point).
    #[arg(long, value_name = "PCT", default_value_t = judge::DEFAULT_NOISE_PCT, value_parser = percent_arg)]
    pub noise_pct: f64,
    /// A change of a tail figure smaller than this many milliseconds is noise.
    #[arg(long, value_name = "MS", default_value_t = judge::DEFAULT_NOISE_MS, value_parser = ms_arg)]
    pub noise_ms: f64,
    /// The intervals' level: 1 − P (two-sided), between 0 and 1.
    #[arg(long, value_name = "P", default_value_t = judge::DEFAULT_ALPHA, value_parser = alpha_arg)]
    pub alpha: f64,
    /// With B: exit 4 when B's P99 frame is judged longer than A's by more than PCT percent
    /// of A's, its whole interval above; 5 when its interval straddles that.
    #[arg(long, value_name = "PCT", value_parser = percent_arg)]
    pub fail_on_p99: Option<f64>,
    /// With B: the same for the 1% low (the mean of the slowest 1% of frames).
    #[arg(long, value_name = "PCT", value_parser = percent_arg)]
    pub fail_on_low: Option<f64>,
    /// Compare with recording B (the CLI: `pacing A B`).
    #[arg(skip)]
    #[serde(default)]
    pub compare: bool,
}

fn budget_arg(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(v) if v.is_finite() && v > 0.0 && v <= 1e6 => Ok(v),
        _ => Err(format!(
            "expected a frame budget in milliseconds, more than 0, got {s:?}"
        )),
    }
}

#[derive(Args, Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ScopeArgs {
    /// The scope id (the "id" of a scope in the export).
    pub id: u32,
}

defaults_from_clap!(
    FramesArgs,
    ThreadsArgs,
    TopArgs,
    FindArgs,
    TreeArgs,
    GapsArgs,
    CompareArgs,
    NoiseArgs,
    GateArgs,
    DiffArgs,
    PacingArgs
);

/// An analysis with its arguments: one subcommand of the CLI, one name of
/// `puffinLens.query`. The doc comments and `after_help` are the
/// subcommands' `--help`.
#[derive(Subcommand, Deserialize, Clone, Debug, PartialEq)]
#[serde(rename_all = "kebab-case")]
pub enum Request {
    /// Frames, slowest first: bad frames stand out.
    #[command(
        after_help = "Examples:\n  puffin-lens frames capture.puffin --top 5\n  \
puffin-lens frames capture.puffin --json | jq '.[0].frame_index'\n\n\
JSON: [{\"frame_index\",\"start_ns\",\"start_rel_ms\",\"duration_ns\",\"num_scopes\"}], slowest first, \
ties in file order."
    )]
    Frames(FramesArgs),
    /// Per-thread totals of one frame (default: the slowest).
    #[command(after_help = "Examples:\n  puffin-lens threads capture.puffin\n  \
puffin-lens threads capture.puffin --frame 42\n\n\
JSON: [{\"name\",\"num_scopes\",\"depth\",\"range_ns\",\"span_ns\"}] in stored order.")]
    Threads(ThreadsArgs),
    /// The slowest scope instances of the whole recording.
    #[command(after_help = "Examples:\n  puffin-lens top capture.puffin\n  \
puffin-lens top capture.puffin --top 50 --json\n\n\
JSON: [{\"name\",\"data\",\"duration_ns\",\"start_ns\",\"thread\",\"frame_index\",\"id\"}], \
slowest first, ties by earlier start.")]
    Top(TopArgs),
    /// Scope instances whose name or data starts with PREFIX, or their totals.
    #[command(
        after_help = "Examples:\n  puffin-lens find capture.puffin load_ --thread main\n  \
puffin-lens find capture.puffin mesh_ --field data --frame 7\n  \
puffin-lens find capture.puffin --aggregate              # total time per (name, data)\n  \
puffin-lens find capture.puffin --aggregate --by name    # total time per name\n\n\
JSON: the rows of `top`; with --aggregate \
[{\"name\",\"data\",\"count\",\"total_ns\",\"self_ns\",\"min_ns\",\"max_ns\",\"mean_ns\"}] \
by total desc, ties by name then data (no \"data\" with --by name)."
    )]
    Find(FindArgs),
    /// The merged call tree: where the time goes, per thread, over all frames (or one).
    #[command(
        long_about = "The merged call tree of the selected frames (all by default), one per \
thread name: scope instances merge by the path of scope names from the thread's top level \
(data strings do not split nodes). Children are sorted by total time, slowest first.",
        after_help = "Examples:\n  puffin-lens tree capture.puffin --depth 3\n  \
puffin-lens tree capture.puffin --frame 42 --thread main\n  \
puffin-lens tree capture.puffin --json | jq '.threads[0].roots[0]'\n\n\
JSON: {\"frames\",\"threads\":[{\"name\",\"total_ns\",\"roots\":[node]}]}, \
node = {\"name\",\"count\",\"total_ns\",\"self_ns\",\"max_ns\",\"children\":[node]}; \
threads by name; children by total_ns desc, then name; self_ns = duration minus the children's, \
summed; below --depth (and below 256 levels), \"children\" is []."
    )]
    Tree(TreeArgs),
    /// The children of the slowest instance named NAME, with the gaps between them.
    #[command(
        after_help = "Examples:\n  puffin-lens children capture.puffin frame_body\n  \
puffin-lens children capture.puffin frame_body --ordered   # time order, gaps in place\n\n\
NAME matches a scope name or a data string exactly.\n\
JSON: {\"parent\":{\"name\",\"data\",\"start_ns\",\"duration_ns\",\"thread\",\"frame_index\"},\
\"children\":[{\"name\",\"data\",\"start_ns\",\"duration_ns\",\"gap_before_ns\"}],\"trailing_gap_ns\"}"
    )]
    Children(ChildrenArgs),
    /// Who calls NAME and what NAME calls, over all frames (a "sandwich" view).
    #[command(
        after_help = "Examples:\n  puffin-lens callers capture.puffin load_mesh\n  \
puffin-lens callers capture.puffin load_mesh --json | jq .callers\n\n\
NAME matches a scope name exactly. Every instance named NAME counts; callers groups them by \
their parent's name (null for a top-level instance), summing NAME's durations; callees groups \
their direct children by name, summing the children's durations.\n\
JSON: {\"name\",\"count\",\"total_ns\",\"self_ns\",\"callers\":[row],\"callees\":[row]}, \
row = {\"name\",\"count\",\"total_ns\"}, by total_ns desc, then name."
    )]
    Callers(CallersArgs),
    /// Every call of NAME in time order, with a summary; spikes flagged. With two recordings
    /// (`calls A B NAME`): both sides' calls side by side, judged.
    #[command(
        after_help = "Examples:\n  puffin-lens calls capture.puffin load_mesh\n  \
puffin-lens calls capture.puffin load_mesh --json | jq .summary\n  \
puffin-lens calls before.puffin after.puffin load_mesh   # per call: did it really change?\n  \
puffin-lens calls capture.puffin 'Encoder<_>::append' --by-child 'chunk::*'   # by the chunk written\n\n\
With A and B: per side the calls, calls per frame, min, median, p95, max and the largest call's \
share, and the noise model's judgement (compare's): the rank test's p of the durations and of \
the calls per frame. JSON: {\"name\",\"a\":{\"count\",\"frames\",\"frames_with_calls\",\
\"calls_per_frame\",\"total_ns\",\"per_frame_ns\",\"min_ns\",\"median_ns\",\"p95_ns\",\"max_ns\",\
\"max_share\"}|null,\"b\":{...}|null,\"change\":{...},\"calls_a\":[call],\"calls_b\":[call]}: each \
side's every call as one recording's calls (call = {\"frame_index\",\"thread\",\"start_ns\",\"duration_ns\",\
\"data\"}, in time order; as many as a.count and b.count; [] for a side without one).\n\n\
With one recording, JSON: {\"summary\":{\"count\",\"total_ns\",\"min_ns\",\"median_ns\",\"mean_ns\",\"p95_ns\",\"max_ns\",\"max_share\"},\
\"calls\":[{\"frame_index\",\"thread\",\"start_ns\",\"duration_ns\",\"data\"}]} in time order; \
median is the lower median, p95 the nearest rank.\n\n\
With --by-child CHILD (one recording): the calls grouped by the data strings of the CHILD scopes \
inside each (distinct, sorted; [] for a call with none inside; a CHILD inside a CHILD counts in \
its outer one). JSON: {\"parent\",\"child\",\"calls\",\"total_ns\",\"calls_with_child\",\
\"child_calls\",\"child_total_ns\",\"groups\":[{\"child_data\":[...],\"calls\",\"total_ns\",\
\"share_pct\",\"median_ns\",\"max_ns\",\"slowest_at_ns\",\"slowest_thread\",\
\"slowest_frame_index\",\"child_calls\",\"child_total_ns\",\"child_self_ns\"}],\"total_groups\"}, \
groups by total_ns desc, then calls desc, then child_data; their calls and totals add up to the \
parent's."
    )]
    Calls(CallsArgs),
    /// What ran on each thread inside a time window [LO, HI]: per thread its profiled,
    /// unprofiled (in a scope, in none of its children) and no-scope time, every scope with its
    /// start and end, how busy each was, and how much of it no thread's scope covered.
    #[command(
        after_help = "Examples:\n  puffin-lens window capture.puffin 1795967542870000000 1795967542875000000\n  \
puffin-lens window capture.puffin 1234.5ms 1236ms    # ms since the recording's start\n\n\
Take LO and HI from the start_ns/end_ns of `gaps`, `top` or `children` (or their start_rel_ms, \
the text's \"at\" times, with ms after them).\n\
JSON: {\"lo_ns\",\"hi_ns\",\"duration_ns\",\"split\":[{\"thread\",\"profiled_ns\",\"unprofiled_ns\",\
\"no_scope_ns\",\"unprofiled_in\":[{\"name\",\"unprofiled_ns\"}],\"scopes\":[scope],\"total_scopes\",\
\"partial\":[scope]}],\"no_thread_profiled_ns\",\"threads\":[{\"thread\",\"count\",\"top\":[{\"name\",\"data\",\"duration_ns\"}]}],\
\"busy\":[{\"thread\",\"busy_ns\",\"scopes\":[{\"name\",\"busy_ns\"}]}],\"covered_ns\",\"uncovered_ns\",\
\"threads_recorded\"}: threads by name (their scopes wholly inside the window); busy: each thread's \
top-level scopes' time in the window, a scope partly inside counted by its overlap, busiest \
first; uncovered_ns: the window's time no thread's scope covered (idle or unprofiled: with \
threads_recorded 1 there is no other thread to tell). split: every thread by name; each instant \
is profiled (the deepest open scope has no children), unprofiled (it has children, none open \
then) or no scope; the three add up to duration_ns. scope = {\"name\",\"data\",\"depth\",\
\"start_ns\",\"end_ns\",\"duration_ns\",\"start_in_window_ms\",\"end_in_window_ms\" (from LO),\
\"overlap_ns\",\"partial\",\"unprofiled_ns\"}, in time order, the first --scopes of total_scopes; \
partial: the scopes only partly inside. no_thread_profiled_ns: the time no thread was in profiled \
time. Every *_ns point in time has its *_rel_ms (ms since the recording's start) beside it."
    )]
    Window(WindowArgs),
    /// Unprofiled time: every stretch no child covers, single and recurring, and what ran meanwhile.
    #[command(
        long_about = "Unprofiled time, complete: a gap is a stretch of at least --min-ms covered \
by no child scope: leading (a scope's start to its first child: where code dispatches work and \
waits), between two children, trailing (the last child to the scope's end), top-level (between \
two top-level scopes of a frame-driving thread in a frame) or between-frames (no scope on any \
thread between consecutive frames). For each, what the other threads ran meanwhile (their \
top-level scopes' overlap with the gap). Gaps at the same place (thread, kind, parent path, \
neighbours) two or more times are also aggregated into recurring gaps, ranked by their total: a \
0.4 ms wait in every frame outweighs one 5 ms stall. A thread drives the frames when its \
top-level scopes cover at least 50% and span at least 80% of its frames' time; any other runs \
tasks (a worker, a pool), and the stretches between its top-level scopes are kind idle: waiting \
for work, listed apart (idle, recurring_idle) and never ranked as unprofiled cost. Shares are of \
the thread's span (per frame, its first top-level scope's start to its last one's end), at most \
100%.",
        after_help = "Examples:\n  puffin-lens gaps capture.puffin --thread main\n  \
puffin-lens gaps capture.puffin --min-ms 0.5 --json | jq '.recurring[0]'\n\n\
JSON: {\"other_threads_recorded\",\"gaps\":[gap],\"total_gaps\",\"recurring\":[recurring],\
\"total_recurring\",\"idle\":[gap],\"total_idle\",\"recurring_idle\":[recurring],\
\"total_recurring_idle\",\"threads\":[thread]}; gap = {\"thread\",\"frame_index\",\"kind\",\
\"parent\":{\"name\",\"data\"}|null,\"path\",\"after\":{...}|null,\"before\":{...}|null,\"start_ns\",\
\"end_ns\",\"duration_ns\",\"other_threads\":[{\"thread\",\"busy_ns\",\"scopes\":[{\"name\",\
\"busy_ns\"}]}],\"waits_for\":waits|null}, longest first; recurring = {\"thread\",\"kind\",\"path\",\"after\",\"before\",\
\"occurrences\" (a frame with two counts twice),\"frames\" (deprecated: occurrences \
under its old name),\"median_ns\",\"max_ns\",\"total_ns\",\
\"share_of_thread_pct\" (of thread_span_ns, at most 100; null between frames),\"share_of\" \
(\"thread-span\"; null between frames),\"thread_span_ns\",\"other_threads\",\"longest_frame_index\",\
\"longest_start_ns\",\"waits_for\":recurring_waits|null}, largest total first (occurrences of at least \
0.01 ms); waits = {\"critical\":work (the last top-level scope on another thread to end in the \
gap: what it waits for),\"critical_ends_before_gap_end_ns\",\"first\":work (the first to start in \
it),\"dispatch_ns\" (gap start to first start),\"waiting_ns\" (to the critical end),\"wake_ns\" \
(to the gap end; the three sum to duration_ns),\"threads_working\",\"threads_busy_at_start\"}, \
work = {\"thread\",\"name\",\"data\",\"start_ns\",\"end_ns\",\"duration_ns\"}; recurring_waits = \
{\"traced\" (occurrences with a wait),\"critical\":{\"thread\",\"name\",\"data\",\"occurrences\"} \
(the most frequent),\"median_critical_duration_ns\",\"first\":{...},\"median_dispatch_ns\",\
\"median_waiting_ns\",\"median_wake_ns\",\"mean_dispatch_ns\",\"mean_waiting_ns\",\"mean_wake_ns\" \
(the means sum to the traced occurrences' mean),\"median_threads_working\"}; waits_for is null \
when no other thread's work ends in the gap, for idle and between frames; thread = \
{\"thread\",\"role\" (frame-driving or tasks),\"frames\",\"frames_ns\",\"span_ns\",\"covered_ns\"}, \
by name, every thread whatever --thread. kind: leading, between, trailing, top-level, \
between-frames (thread \"\"), idle (only in idle and recurring_idle). other_threads_recorded is \
false when the recording has one thread: then nothing can say what ran meanwhile."
    )]
    Gaps(GapsArgs),
    /// Compare two recordings per (name, data), judged: slower per call, runs more often, one
    /// spike, new, gone, or unchanged within noise.
    #[command(
        long_about = "Compare two recordings per (name, data), each row judged by a noise model \
per frame (each side's totals divided by its frames; per second when a side is one frame or \
frames of 1 s or more) beyond the run-to-run drift (the per-call cost every busy name shares, \
B against A: machine speed or load; estimated, named, and judged against; --no-drift turns it \
off): slower/faster per call when the typical call (the time-weighted median) moved by at \
least --noise-pct beyond the drift, the change costs at least --noise-ms per frame, it exceeds \
how far the row wanders within each capture (or between each side's runs, with --vs), and a \
Mann-Whitney U test agrees, p < --alpha (a side with fewer than 5 calls is judged by the \
thresholds alone); runs more/less often likewise for the calls per frame; both at once \
(slower-more-often, ...); costlier/cheaper when only the cost per frame moved (a mix of call \
sizes, a tail); a tail (calls past a side's far-out fence, Q3 + 3 IQR) that is not itself a \
change is set apart (`tail`) and the row judged by its typical calls; one spike when one or two \
calls of one side are its tail, none of the other's, and the typical calls did not change \
(judged on their own: `rest`); new, gone; everything else unchanged. The change per frame splits \
exactly into the drift's part, a per-call part beyond it and a count part. Several runs a \
side: compare A1 A2 --vs B1 B2.",
        after_help = "Examples:\n  puffin-lens compare before.puffin after.puffin\n  \
puffin-lens compare a1.puffin a2.puffin --vs b1.puffin b2.puffin   # several runs a side\n  \
puffin-lens compare before.puffin after.puffin --filter physics --hide-below 0.5\n  \
puffin-lens compare before.puffin after.puffin --sort per-call --json\n  \
puffin-lens compare before.puffin after.puffin --fail-on-regression 2 --min-ms 0.1   # a CI gate\n\n\
Sorts: abs-delta = |B-A| of total time, the largest changes first either way (default; also \
`delta`); signed-delta = B-A, what got slower first and faster last (the app's diff table); \
total = larger total; per-call = |B-A| of the per-call time (one-sided rows last); count = \
larger count; name. Ties by name then data.\n\
The gate (--fail-on-regression PCT): exit 4 when a scope name judged slower per call, run \
more often or costlier costs more than PCT percent of A's mean frame (and more than --min-ms) \
per frame beyond the drift, and its own time changed by as much (the gate counts causes, not \
the wrappers above them); judged per name, over every row the filters keep. It never trips on \
the drift alone; --fail-on-drift PCT fails on a drift past PCT percent too.\n\
JSON: {\"warnings\":[...],\"drift\":{\"factor\",\"pct\",\"spread_pct\",\"stderr_pct\",\"scopes_used\",\"scopes_unchanged\",\
\"moved_together\",\"named\",\"scopes\":[{\"name\",\"calls_a\",\"calls_b\",\"ratio\"}]}|null,\"basis\":\"frame\"|\"second\",\
\"units\":[a,b],\"frame\":{\"basis\",\"thread\",\"median_a_ns\",\"median_b_ns\",\"delta_median_ns\",\
\"mean_a_ns\",\"mean_b_ns\",\"delta_mean_ns\",\"rate_a_fps\",\"rate_b_fps\",\
\"between_frames\":{\"mean_a_ns\",\"mean_b_ns\",\"effect\"}|null,\"kind\",\"p\",\"contributions\":[{\"name\",\"kind\",\
\"self_delta_per_frame_ns\",\"gap\"?}],\"gaps\":[{\"verdict\",\"kind\",\"path\",\"after\",\"before\",\"parent\",\
\"delta_per_frame_ns\",\"beyond_drift_ns\",\"delta_median_per_frame_ns\",\"wait\",\"sentence\"}],\"total_contributions\",\"explained_ns\",\"explained_pct\",\
\"outside_scopes_ns\",\"drift_ns\",\"drift_pct\",\"notes\",\"median\":{\"contributions\":[{\"name\",\"kind\",\
\"self_median_a_ns\",\"self_median_b_ns\",\"self_delta_median_ns\"}],\"total_contributions\",\
\"outside_scopes_a_ns\",\"outside_scopes_b_ns\",\"outside_scopes_ns\",\"accounted_ns\",\"unexplained_ns\"},\
\"lead\":\"median\"|\"mean\",\"lead_reason\",\"skew\":{\"side\",\"unit\",\
\"frame_index\",\"duration_ns\",\"median_ns\",\"adds_to_mean_ns\",\"mean_minus_median_ns\"}|null},\"frames_a\",\"frames_b\",\"total_rows\",\"changed_rows\",\"counted\":\"name-data pairs\",\
\"total_names\",\"changed_names\",\"total_pairs\",\"changed_pairs\",\"rows\":[{\"name\",\
\"data\",\"a\":{\"count\",\"total_ns\",\"per_call_ns\",\"max_ns\"}|null,\"b\":{...}|null,\"delta_total_ns\",\
\"delta_per_call_ns\"|null,\"status\":\"both\"|\"new\"|\"gone\",\"spike\",\"change\":{\"kind\",\"rest\"?,\
\"delta_per_frame_ns\",\"per_call_part_ns\",\"count_part_ns\",\"drift_part_ns\",\"median_a_ns\",\
\"median_b_ns\",\"typical_a_ns\"?,\"typical_b_ns\"?,\"calls_per_frame_a\",\"calls_per_frame_b\",\
\"per_call_a_ns\",\"per_call_b_ns\",\"effect\":{\"per\",\"delta_ns\",\"ci_ns\",\"band_ns\",\"level\",\
\"verdict\":\"changed\"|\"unchanged\"|\"inconclusive\",\"settle\"?},\"tested\"},\"gap\"?}],\
\"gaps\":{\"basis\",\"places\",\"changed\":[{\"thread\",\"kind\",\"path\",\"after\",\"before\",\"verdict\":\
\"new\"|\"grew\"|\"gone\"|\"shrank\"|\"unchanged\",\"a\":{\"frames_with\",\"frames\",\"occurrences\",\"median_ns\",\
\"median_per_frame_ns\",\"mean_per_frame_ns\",\"total_ns\",\"max_ns\",\"other_threads\"},\"b\":{...},\
\"delta_per_frame_ns\",\"beyond_drift_ns\",\"delta_median_per_frame_ns\",\"other_threads_idle\",\"change\",\
\"sentence\"}],\"unchanged\":[...],\"total_unchanged\",\"not_judged\"},\
\"gate\"?:{\"pct\",\"min_ms\",\"mean_frame_a_ns\",\"limit_ns\",\"tripped\":[{\"name\",\"data\",\"kind\",\
\"delta_per_frame_ns\",\"beyond_drift_ns\",\"own_beyond_drift_ns\",\"frame_pct\",\"ci_ns\",\"level\"}],\
\"inconclusive\":[...],\"causes\",\"alpha\",\"drift_limit_pct\"?,\
\"drift_tripped\",\"tripped_gaps\":[{\"thread\",\"kind\",\"path\",\"after\",\"before\",\"verdict\",\
\"delta_per_frame_ns\",\"beyond_drift_ns\",\"frame_pct\",\"sentence\"}]}}; kind: unchanged, slower, faster, more-often, less-often, slower-more-often, \
slower-less-often, faster-more-often, faster-less-often, costlier, cheaper, spike, new, gone. \
Medians and p-values are null for rows the thresholds alone call unchanged.\n\
Exit status: 4 when the gate trips (it wins over 3, a damaged recording)."
    )]
    Compare(CompareArgs),
    /// The call trees of two recordings side by side: where in the tree the time changed.
    #[command(
        long_about = "The merged call trees of A (before) and B (after), all frames, joined by \
thread name and path of scope names: per node A's and B's count, total and self time, and per \
frame A's and B's total (each side's sum divided by its frames, so recordings of different \
lengths compare: an unchanged scope is at 0% with 60 frames in A and 90 in B), B - A and its \
share of A. Per second of each side's run instead when a side is unframed (one frame, or frames \
of 1 s or more). Children are sorted by the size of the change per frame, largest first.",
        after_help = "Examples:\n  puffin-lens diff before.puffin after.puffin\n  \
puffin-lens diff before.puffin after.puffin --thread main --depth 4\n  \
puffin-lens diff before.puffin after.puffin --json | jq '.threads[0].roots[0]'\n\n\
JSON: {\"warnings\":[...],\"basis\":\"frame\"|\"second\",\"units\":[a,b],\"frames_a\",\"frames_b\",\
\"threads\":[{\"name\",\"a_total_ns\",\"b_total_ns\",\"a_total_per_frame_ns\",\"b_total_per_frame_ns\",\
\"delta_pct\",\"roots\":[node]}]}, node = {\"name\",\"a\":{\"count\",\"total_ns\",\"self_ns\"}|null,\
\"b\":{...}|null,\"delta_total_ns\",\"a_total_per_frame_ns\",\"b_total_per_frame_ns\",\
\"delta_total_per_frame_ns\",\"delta_pct\"|null,\"kind\",\"children\":[node]}; a, b and delta_total_ns \
sum over all frames, *_per_frame_ns and delta_pct are per unit of basis (units: each side's frames, \
or seconds); threads: the union, by name (a missing side's total is 0); children: the union, by \
|delta_total_per_frame_ns| desc, then name; deltas = B - A, a missing side counting 0; \
kind: the noise model's judgement of the node's calls per frame, as compare's (slower, \
more-often, spike, new, gone, unchanged, ...; --noise-pct, --noise-ms, --alpha)."
    )]
    Diff(DiffArgs),
    /// The source location of a scope id (function, file, line), from the registration.
    /// The frames' pacing: percentiles, the 1% and 0.1% lows, frames over a budget, stutter,
    /// and the code that makes the slow frames slow. With two recordings (`pacing A B`): each
    /// tail figure judged, B against A.
    #[command(
        long_about = "The frames' distribution on the frame period (start to start on the \
frame-driving thread; a run's last frame, with no next start, is left out): mean, median, P90, \
P95, P99 (nearest rank), the 1% and 0.1% lows (the mean of the slowest 1% and 0.1% of frames, \
also as fps), the worst frame, frames over the budget, stutters (a frame more than 2.5x the \
median of its 10 neighbours each side) and frame to frame (the mean change between consecutive \
frames). The slow frames (over the budget, or the slowest 5% when most frames are over it) \
are traced to the parts of the frame that make them slow: each name's own time on the frame \
thread, the time between its top-level scopes and the time between frames, with how many slow \
and other frames each part is high in.\n\nWith A and B, each tail figure (P95, P99, the lows, \
the shares over the budget and stuttering, frame to frame) gets B − A with a bootstrap interval \
(blocks of frames, or the runs with several a side) and a verdict against the noise band. The \
mean and the median are the typical frame's: `report` and `compare` judge them.",
        after_help = "Examples:\n  puffin-lens pacing capture.puffin\n  \
puffin-lens pacing before.puffin after.puffin --budget 16.7\n  \
puffin-lens pacing a1.puffin a2.puffin --vs b1.puffin b2.puffin --json | jq '.changes[] | {figure, verdict: .effect.verdict}'\n\n\
JSON: {\"thread\",\"budget_ns\",\"budget_source\",\"a\":side,\"b\":side|null,\"changes\":[{\"figure\",\"a\",\"b\",\
\"effect\",\"words\"}],\"headline\"}, side = {\"frames\",\"censored\",\"runs\",\"mean_ns\",\"median_ns\",\
\"p90_ns\",\"p95_ns\",\"p99_ns\",\"low_1pct_ns\",\"low_01pct_ns\",\"fps\",\"worst\",\"over_budget\",\
\"over_budget_share\",\"stutters\",\"stutter_frames\",\"frame_to_frame_ns\",\"paced\",\"pattern\",\
\"slow_frames\":{\"rule\",\"frames\",\"frame_indices\",\"excess_ns\",\"culprits\":[{\"part\",\"kind\",\
\"slow_mean_ns\",\"typical_mean_ns\",\"excess_ns\",\"share\",\"in_slow\",\"in_typical\"}]}}. \
docs/statistics.md#frame-pacing gives every formula."
    )]
    Pacing(PacingArgs),
    #[command(after_help = "Examples:\n  puffin-lens scope capture.puffin 3\n\n\
JSON: {\"id\",\"name\",\"function\",\"file\",\"line\",\"kind\"}; exit 1 when the id is not registered.")]
    Scope(ScopeArgs),
}

impl Request {
    /// The subcommand name (= the `puffinLens.query` name).
    pub fn name(&self) -> &'static str {
        match self {
            Request::Frames(_) => "frames",
            Request::Threads(_) => "threads",
            Request::Top(_) => "top",
            Request::Find(_) => "find",
            Request::Tree(_) => "tree",
            Request::Children(_) => "children",
            Request::Callers(_) => "callers",
            Request::Calls(_) => "calls",
            Request::Window(_) => "window",
            Request::Gaps(_) => "gaps",
            Request::Compare(_) => "compare",
            Request::Diff(_) => "diff",
            Request::Pacing(_) => "pacing",
            Request::Scope(_) => "scope",
        }
    }

    /// Whether the request compares two recordings (A and B).
    pub fn needs_b(&self) -> bool {
        needs_b(self.name())
    }

    /// The request `name` with `args` (a JSON object, or `null` for the
    /// defaults), as `puffinLens.query(name, args)` passes them.
    pub fn from_json(name: &str, args: &serde_json::Value) -> Result<Self, QueryError> {
        if !query_names().iter().any(|n| n == name) {
            return Err(QueryError::Unknown(name.to_owned()));
        }
        // `null` (no arguments) means every default.
        let args = if args.is_null() {
            serde_json::Value::Object(Default::default())
        } else {
            args.clone()
        };
        let mut tagged = serde_json::Map::new();
        tagged.insert(name.to_owned(), args.clone());
        // The error names the argument (`top: invalid value…`).
        serde_path_to_error::deserialize(serde_json::Value::Object(tagged)).map_err(|err| {
            let path = err.path().to_string();
            let key = path.split_once('.').map_or("", |(_, key)| key);
            let inner = err.into_inner().to_string();
            // A flattened group's field is not on the path: the group
            // read alone names it.
            let flattened = || {
                flattened_error::<NoiseArgs>(&args)
                    .or_else(|| flattened_error::<GateArgs>(&args))
                    .or_else(|| flattened_error::<TransformArgs>(&args))
            };
            QueryError::BadArgs {
                query: name.to_owned(),
                // An unknown field names itself.
                message: if inner.starts_with("unknown field") {
                    inner
                } else if key.is_empty() {
                    flattened().unwrap_or(inner)
                } else {
                    format!("{key}: {inner}")
                },
            }
        })
    }
}

/// `T`'s complaint about `args`, naming the field, if it has one.
fn flattened_error<T: serde::de::DeserializeOwned>(args: &serde_json::Value) -> Option<String> {
    serde_path_to_error::deserialize::<_, T>(args.clone())
        .err()
        .map(|err| {
            let path = err.path().to_string();
            format!("{path}: {}", err.into_inner())
        })
}

/// Whether the analysis `name` compares two recordings (A and B).
pub fn needs_b(name: &str) -> bool {
    matches!(name, "compare" | "diff")
}

/// The analyses [`query_json`] answers, in the CLI's order.
pub fn query_names() -> Vec<String> {
    Request::augment_subcommands(clap::Command::new("names"))
        .get_subcommands()
        .map(|c| c.get_name().to_owned())
        .collect()
}

/// The answer to a [`Request`]: what `--json` prints (the payload only; the
/// extra fields are for the text rendering).
#[derive(Clone, Debug, PartialEq)]
pub enum Answer {
    /// `frames`: the rows, the recording's frames in all, and a note when
    /// the capture kept only some frame indices.
    Frames {
        rows: Vec<analyses::FrameRow>,
        total: usize,
        absent: Option<String>,
    },
    Threads {
        frame_index: u64,
        duration_ns: i64,
        rows: Vec<analyses::ThreadRow>,
    },
    /// `top` and `find`: the rows, and how many instances there are.
    Instances {
        rows: Vec<analyses::InstanceRow>,
        total: usize,
    },
    /// `find --aggregate`: the rows, and how many groups there are.
    Aggregate {
        by: GroupBy,
        rows: Vec<analyses::AggregateRow>,
        total: usize,
    },
    Tree(Box<TreeReport>),
    Children(analyses::ChildrenReport),
    Callers(analyses::CallersReport),
    Calls(analyses::CallsReport),
    /// `calls A B NAME`.
    CallsCompared(Box<analyses::CallsComparison>),
    /// `calls FILE NAME --by-child CHILD`.
    CallsByChild(analyses::ByChildReport),
    Window(analyses::WindowReport),
    Gaps(Box<analyses::GapsReport>),
    Compare(Box<analyses::CompareReport>),
    Diff(Box<DiffReport>),
    Pacing(Box<analyses::pacing::PacingReport>),
    Scope(analyses::ScopeInfo),
}

impl serde::Serialize for Answer {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Answer::Frames { rows, .. } => rows.serialize(s),
            Answer::Threads { rows, .. } => rows.serialize(s),
            Answer::Instances { rows, .. } => rows.serialize(s),
            Answer::Aggregate { rows, .. } => rows.serialize(s),
            Answer::Tree(v) => v.serialize(s),
            Answer::Children(v) => v.serialize(s),
            Answer::Callers(v) => v.serialize(s),
            Answer::Calls(v) => v.serialize(s),
            Answer::CallsCompared(v) => v.serialize(s),
            Answer::CallsByChild(v) => v.serialize(s),
            Answer::Window(v) => v.serialize(s),
            Answer::Gaps(v) => v.serialize(s),
            Answer::Compare(v) => v.serialize(s),
            Answer::Diff(v) => v.serialize(s),
            Answer::Pacing(v) => v.serialize(s),
            Answer::Scope(v) => v.serialize(s),
        }
    }
}

impl Answer {
    /// Compact JSON of the answer alone: its epoch times without their
    /// `*_rel_ms` (see [`Self::to_json_in`]).
    pub fn to_json(&self) -> String {
        // The answers hold only strings and numbers: serializing cannot fail.
        serde_json::to_string(self).unwrap_or_default()
    }

    /// Compact JSON, as `--json` prints it (without the newline): beside
    /// each point in time its milliseconds since the start of `a`'s
    /// recording (see `engine::reltime`).
    pub fn to_json_in(&self, a: &Trace) -> String {
        serde_json::to_string(&self.with_rel_times(a)).unwrap_or_default()
    }

    /// The answer to serialize with the relative times of `a`'s recording
    /// (the trace the request was answered about).
    pub fn with_rel_times<'a>(&'a self, a: &Trace) -> super::reltime::RelTimes<'a, Self> {
        super::reltime::RelTimes::of(self, a)
    }
}

fn no_such_scope(name: &str) -> QueryError {
    QueryError::NotFound(analyses::no_scope_named(name))
}

fn no_frame(frame_index: u64) -> QueryError {
    QueryError::NotFound(format!("no frame with frame_index {frame_index}"))
}

/// The `thread` argument as the analyses match it: the name of the thread
/// whose name or printed label (`(unnamed)`) it is, in `a` or `b`.
fn thread_arg(
    thread: &Option<String>,
    a: &Trace,
    b: Option<&Trace>,
) -> Result<Option<String>, QueryError> {
    let traces: Vec<&Trace> = std::iter::once(a).chain(b).collect();
    Ok(thread
        .as_deref()
        .map(|t| analyses::resolve_thread(&traces, t))
        .transpose()?)
}

/// Milliseconds to nanoseconds, as the CLI rounds them.
pub fn ms_to_ns(ms: f64) -> i64 {
    (ms * 1e6).round() as i64
}

/// Answers `request` about trace `a` (and `b` for `compare`).
pub fn answer(request: &Request, a: &Trace, b: Option<&Trace>) -> Result<Answer, QueryError> {
    Ok(match request {
        Request::Frames(args) => Answer::Frames {
            rows: analyses::frames(a, args.top),
            total: a.frames.len(),
            absent: analyses::frame_coverage(a)
                .as_ref()
                .and_then(analyses::absent_note),
        },
        Request::Threads(args) => {
            let frame = match args.frame {
                Some(i) => analyses::frame_by_index(a, i).ok_or_else(|| no_frame(i))?,
                None => analyses::slowest_frame(a).ok_or_else(|| {
                    QueryError::NotFound("the recording has no frames".to_owned())
                })?,
            };
            Answer::Threads {
                frame_index: a.frames.frame_index[frame.idx()],
                duration_ns: a.frames.duration_ns(frame),
                rows: analyses::threads(a, frame),
            }
        }
        Request::Top(args) => Answer::Instances {
            rows: analyses::top(a, args.top),
            total: a.scopes.len(),
        },
        Request::Find(args) => {
            let thread = thread_arg(&args.thread, a, None)?;
            let filter = FindFilter {
                prefix: args.prefix.clone(),
                field: args.field,
                thread: thread.clone(),
                frame_index: args.frame,
                frame_position: None,
            };
            let stack = &args.transform.transforms;
            if !stack.is_empty() && (!args.aggregate || args.field == Field::Data) {
                return Err(QueryError::BadArgs {
                    query: "find".to_owned(),
                    message: "transforms apply to the call tree: with --aggregate, and a prefix \
                              of the name (not --field data)"
                        .to_owned(),
                });
            }
            if args.aggregate && !stack.is_empty() {
                let frames = match args.frame {
                    Some(i) => {
                        let f = analyses::frame_by_index(a, i).ok_or_else(|| no_frame(i))?;
                        f.0..f.0 + 1
                    }
                    None => 0..a.frames.len() as u32,
                };
                let t = transformed_tree(a, frames, thread.as_deref(), u32::MAX, stack);
                let (rows, total) = analyses::aggregate_in_tree(a, &t.tree, &args.prefix, args.top);
                Answer::Aggregate {
                    by: GroupBy::Name,
                    rows,
                    total,
                }
            } else if args.aggregate {
                let (rows, total) = analyses::aggregate_counted(a, &filter, args.by, args.top);
                Answer::Aggregate {
                    by: args.by,
                    rows,
                    total,
                }
            } else {
                let (rows, total) = analyses::find_counted(a, &filter, args.top);
                Answer::Instances { rows, total }
            }
        }
        Request::Tree(args) => {
            let thread = thread_arg(&args.thread, a, None)?;
            let frames = match args.frame {
                Some(i) => {
                    let f = analyses::frame_by_index(a, i).ok_or_else(|| no_frame(i))?;
                    f.0..f.0 + 1
                }
                None => 0..a.frames.len() as u32,
            };
            // A thread's total is its roots': merged even when none is listed.
            let levels = TreeReport::levels_of(args.depth).max(1);
            let stack = &args.transform.transforms;
            let t = transformed_tree(a, frames, thread.as_deref(), levels, stack);
            Answer::Tree(Box::new(t.into_report(a, stack, args.depth)))
        }
        Request::Children(args) => Answer::Children(
            analyses::children(a, &args.name, args.ordered)
                .ok_or_else(|| no_such_scope(&args.name))?,
        ),
        Request::Callers(args) => {
            let stack = &args.transform.transforms;
            let found = if stack.is_empty() {
                analyses::callers(a, &args.name)
            } else {
                let t = transformed_tree(a, 0..a.frames.len() as u32, None, u32::MAX, stack);
                analyses::callers_in_tree(a, &t.tree, &args.name).map(|mut r| {
                    r.applied = t.applied(stack);
                    r
                })
            };
            Answer::Callers(
                found.ok_or_else(|| {
                    QueryError::NotFound(format!("no scope named {:?}", args.name))
                })?,
            )
        }
        Request::Calls(args) => {
            let noise = args.noise.noise().map_err(|message| QueryError::BadArgs {
                query: "calls".to_owned(),
                message,
            })?;
            if let Some(child) = &args.by_child {
                if args.compare {
                    return Err(QueryError::BadArgs {
                        query: "calls".to_owned(),
                        message: "by_child breaks down one recording's calls: give one \
                                  recording (calls FILE NAME --by-child CHILD)"
                            .to_owned(),
                    });
                }
                use analyses::ByChildError;
                Answer::CallsByChild(analyses::by_child(a, &args.name, child).map_err(
                    |e| match e {
                        ByChildError::BadPattern(message) => QueryError::BadArgs {
                            query: "calls".to_owned(),
                            message: format!("by_child: {message}"),
                        },
                        ByChildError::NoParent => no_such_scope(&args.name),
                        ByChildError::NoChild { inside } => QueryError::NotFound(format!(
                            "no scope named {child:?} inside any call of {:?} (inside them: {})",
                            args.name,
                            if inside.is_empty() {
                                "no scope".to_owned()
                            } else {
                                inside
                                    .iter()
                                    .map(|n| format!("{n:?}"))
                                    .collect::<Vec<_>>()
                                    .join(", ")
                            }
                        )),
                    },
                )?)
            } else if args.compare {
                let b = b.ok_or(QueryError::NoB)?;
                Answer::CallsCompared(Box::new(
                    analyses::calls_compared(a, b, &args.name, &noise)
                        .ok_or_else(|| no_such_scope(&args.name))?,
                ))
            } else {
                Answer::Calls(
                    analyses::calls(a, &args.name).ok_or_else(|| no_such_scope(&args.name))?,
                )
            }
        }
        Request::Pacing(args) => {
            let b = match (args.compare, b) {
                (true, None) => return Err(QueryError::NoB),
                (true, b) => b,
                (false, _) => None,
            };
            for (what, ok) in [
                (
                    "budget",
                    args.budget
                        .is_none_or(|v| budget_arg(&v.to_string()).is_ok()),
                ),
                (
                    "noise_pct",
                    percent_arg(&args.noise_pct.to_string()).is_ok(),
                ),
                ("noise_ms", ms_arg(&args.noise_ms.to_string()).is_ok()),
                ("alpha", alpha_arg(&args.alpha.to_string()).is_ok()),
            ] {
                if !ok {
                    return Err(QueryError::BadArgs {
                        query: "pacing".to_owned(),
                        message: format!("{what}: out of range"),
                    });
                }
            }
            if b.is_none() && (args.fail_on_p99.is_some() || args.fail_on_low.is_some()) {
                return Err(QueryError::BadArgs {
                    query: "pacing".to_owned(),
                    message: "fail_on_p99 / fail_on_low: the tail gate compares two recordings"
                        .to_owned(),
                });
            }
            let report = analyses::pacing::pacing(
                a,
                b,
                args.budget,
                args.noise_pct,
                args.noise_ms,
                args.alpha,
                tail_gate(args.fail_on_p99, args.fail_on_low).map_err(|message| {
                    QueryError::BadArgs {
                        query: "pacing".to_owned(),
                        message,
                    }
                })?,
            );
            for (side, p, t) in std::iter::once(("", &report.a, a))
                .chain(report.b.as_ref().zip(b).map(|(p, t)| ("B: ", p, t)))
            {
                if p.frames == 0 {
                    let side = if report.b.is_some() && side.is_empty() {
                        "A: "
                    } else {
                        side
                    };
                    return Err(QueryError::NotFound(format!(
                        "{side}no frame period: the recording has {} frame{} and no frame \
                         followed by the next (pacing needs consecutive frames)",
                        t.frames.len(),
                        if t.frames.len() == 1 { "" } else { "s" }
                    )));
                }
            }
            Answer::Pacing(Box::new(report))
        }
        Request::Window(args) => Answer::Window(analyses::window_report(
            a,
            args.lo.ns_in(a),
            args.hi.ns_in(a),
            args.top,
            args.scopes,
        )),
        Request::Gaps(args) => {
            if !(args.min_ms.is_finite() && args.min_ms >= 0.0) {
                return Err(QueryError::BadArgs {
                    query: "gaps".to_owned(),
                    message: format!(
                        "min_ms: expected 0 or more milliseconds, got {}",
                        args.min_ms
                    ),
                });
            }
            let thread = thread_arg(&args.thread, a, None)?;
            Answer::Gaps(Box::new(analyses::gaps(
                a,
                thread.as_deref(),
                ms_to_ns(args.min_ms),
                args.top,
            )))
        }
        Request::Compare(args) => {
            let b = b.ok_or(QueryError::NoB)?;
            let bad = |message: String| QueryError::BadArgs {
                query: "compare".to_owned(),
                message,
            };
            let opts = CompareOptions {
                top: args.top,
                filter: args.filter.clone(),
                hide_below_ns: args.hide_below.map_or(0, ms_to_ns),
                sort: args.sort,
                noise: args.noise.noise().map_err(bad)?,
            };
            let gate = args.gate.gate().map_err(bad)?;
            let tail = args.gate.tail_gate().map_err(bad)?;
            let mut report = analyses::compare(a, b, &opts, gate.as_ref());
            // The tail gate reads frame pacing, on the whole recordings.
            if tail.is_set() {
                let n = &opts.noise;
                report.tail_gate =
                    analyses::pacing::pacing(a, Some(b), None, n.pct, n.ms, n.alpha, tail).gate;
            }
            Answer::Compare(Box::new(report))
        }
        Request::Diff(args) => {
            let b = b.ok_or(QueryError::NoB)?;
            let thread = thread_arg(&args.thread, a, Some(b))?;
            // A thread's totals are its roots': joined even when none is listed.
            let levels = TreeReport::levels_of(args.depth).max(1);
            let noise = args.noise.noise().map_err(|message| QueryError::BadArgs {
                query: "diff".to_owned(),
                message,
            })?;
            let stack = &args.transform.transforms;
            let (d, kinds, applied) =
                diff_tree_judged(a, b, thread.as_deref(), levels, &noise, stack);
            Answer::Diff(Box::new(
                DiffReport::new(a, b, d, args.depth)
                    .with_kinds(kinds)
                    .with_applied(applied),
            ))
        }
        Request::Scope(args) => match analyses::scope(a, args.id) {
            Some(info) => Answer::Scope(info),
            None if a.defs.has_registration() => {
                return Err(QueryError::NotFound(format!(
                    "scope id {} is not registered in this recording",
                    args.id
                )));
            }
            None => {
                return Err(QueryError::NotFound(format!(
                    "scope id {}: the recording has no scope registration",
                    args.id
                )));
            }
        },
    })
}

/// Answers the analysis `name` with `args` (a JSON object, or `null` for the
/// defaults) about trace `a` (and `b` for `compare`), as the CLI's `--json`.
pub fn query_json(
    a: &Trace,
    b: Option<&Trace>,
    name: &str,
    args: &serde_json::Value,
) -> Result<String, QueryError> {
    let request = Request::from_json(name, args)?;
    answer(&request, a, b).map(|answer| answer.to_json_in(a))
}

/// What the overview and `puffin-lens summary` show about a recording.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Summary {
    pub file: String,
    pub frames: usize,
    /// Threads: for each thread name, the most streams of that name in one
    /// frame, summed (same-named threads of a frame count separately).
    pub threads: usize,
    /// Scope instances, all depths.
    pub scopes: usize,
    /// The recording's start: every answer's `*_rel_ms` is milliseconds
    /// since it (the earliest frame or scope start, see
    /// [`Trace::recording_start_ns`]).
    pub recording_start_ns: i64,
    /// Earliest frame start and latest frame end (`null` without frames).
    pub start_ns: Option<i64>,
    pub end_ns: Option<i64>,
    pub span_ns: i64,
    /// Frame record kinds seen (`PFD4`, …; `JSON` for a JSON dump).
    pub formats: Vec<String>,
    /// Compressions seen (`lz4`, `zstd`, `none`).
    pub compressions: Vec<String>,
    /// Registered scope definitions.
    pub registered_scopes: usize,
    /// False when names fall back to `scope#<id>` (no registration at all).
    pub has_registration: bool,
    /// Frame indices of the slowest frame (`null` without frames).
    pub slowest_frame_index: Option<u64>,
    pub slowest_frame_ns: i64,
    /// Scope ids used but never registered, by id: `{id, instances}` (empty
    /// when every used id is registered, or when nothing is registered).
    pub unregistered_scope_ids: Vec<analyses::UnregisteredId>,
    /// The smallest and the largest frame index (`null` without frames).
    pub frame_index_range: Option<[u64; 2]>,
    /// Frame indices between the first and the last that are not in the
    /// file (after a restart of the index, each range counted apart).
    pub frames_absent: u64,
    /// Some frame was skipped or cut short.
    pub damaged: bool,
    /// `warning: …` / `damaged: …` lines, in file order.
    pub diagnostics: Vec<String>,
    /// Frames overlap one another (`new_frame` called inside a scope):
    /// absent when they do not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub overlapping_frames: Option<analyses::Overlap>,
}

impl Summary {
    /// Compact JSON, as `summary --json` prints it (without the newline)
    /// and the web page's `summary()` returns it: `start_ns` and `end_ns`
    /// with their `*_rel_ms` (see `engine::reltime`).
    pub fn to_json(&self) -> String {
        let rel = super::reltime::RelTimes::new(self, self.recording_start_ns);
        // Strings and numbers only: serializing cannot fail.
        serde_json::to_string(&rel).unwrap_or_default()
    }
}

fn thread_count(trace: &Trace) -> usize {
    let mut most_per_name: rustc_hash::FxHashMap<super::StrId, usize> = Default::default();
    let mut in_frame: rustc_hash::FxHashMap<super::StrId, usize> = Default::default();
    for f in trace.frames.ids() {
        in_frame.clear();
        for s in trace.frames.streams(f) {
            let name = trace.threads.name[trace.streams.thread[s as usize].idx()];
            *in_frame.entry(name).or_default() += 1;
        }
        for (&name, &n) in &in_frame {
            let most = most_per_name.entry(name).or_default();
            *most = (*most).max(n);
        }
    }
    most_per_name.values().sum()
}

/// Summarizes a decoded recording named `file`.
pub fn summary(file: &str, decoded: &super::Decoded) -> Summary {
    let trace = &decoded.trace;
    let frames = &trace.frames;
    let start_ns = frames.range_ns.iter().map(|r| r.0).min();
    let end_ns = frames.range_ns.iter().map(|r| r.1).max();
    let slowest = analyses::slowest_frame(trace);
    let coverage = analyses::frame_coverage(trace);
    Summary {
        file: file.to_owned(),
        frames: frames.len(),
        threads: thread_count(trace),
        scopes: trace.scopes.len(),
        recording_start_ns: trace.recording_start_ns(),
        start_ns,
        end_ns,
        span_ns: match (start_ns, end_ns) {
            (Some(s), Some(e)) => e.saturating_sub(s).max(0),
            _ => 0,
        },
        formats: trace.format.record_kinds.clone(),
        compressions: trace.format.compressions.clone(),
        registered_scopes: trace.defs.registered_sorted().len(),
        has_registration: trace.defs.has_registration(),
        slowest_frame_index: slowest.map(|f| frames.frame_index[f.idx()]),
        slowest_frame_ns: slowest.map_or(0, |f| frames.duration_ns(f)),
        unregistered_scope_ids: analyses::unregistered_ids(trace),
        frame_index_range: coverage.map(|c| [c.first, c.last]),
        frames_absent: coverage.map_or(0, |c| c.absent),
        damaged: decoded.is_damaged(),
        overlapping_frames: analyses::overlapping_frames(trace),
        diagnostics: decoded
            .diagnostics
            .iter()
            .map(|d| format!("{}: {d}", d.severity.as_str()))
            .collect(),
    }
}
