//! The analyses by name with JSON arguments, answered as JSON: what the web
//! page's `puffinLens.query(name, args)` calls. The answers are byte for byte
//! what the matching subcommand prints with `--json` (without the newline).
//!
//! Arguments are an object whose keys are the subcommand's options with `-`
//! written `_` (`{"top": 5}`, `{"min_ms": 0.5, "thread": "main"}`) and its
//! positional arguments by name (`prefix`, `name`, `lo`, `hi`, `id`); missing
//! keys take the subcommand's defaults. `compare` compares the shown
//! recording (A) with the second one (B).

use super::Trace;
use super::query::{self, CompareOptions, CompareSort, Field, FindFilter, GroupBy};
use serde::Deserialize;
use serde::de::DeserializeOwned;

/// The analyses [`query_json`] answers, in the CLI's order.
pub const QUERY_NAMES: &[&str] = &[
    "frames", "threads", "top", "find", "children", "calls", "window", "gaps", "compare", "scope",
];

#[derive(Debug, thiserror::Error)]
pub enum QueryError {
    #[error("unknown query {0:?} (known: {known})", known = QUERY_NAMES.join(", "))]
    Unknown(String),
    #[error("bad arguments for {query}: {message}")]
    BadArgs { query: String, message: String },
    #[error("compare needs a second recording (B)")]
    NoB,
    /// The question has no answer in this recording (the CLI's exit 1).
    #[error("{0}")]
    NotFound(String),
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct FramesArgs {
    top: Option<usize>,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct ThreadsArgs {
    frame: Option<u64>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, default)]
struct TopArgs {
    top: usize,
}

impl Default for TopArgs {
    fn default() -> Self {
        Self { top: 10 }
    }
}

#[derive(Deserialize, Clone, Copy, Default)]
#[serde(rename_all = "kebab-case")]
enum FieldArg {
    #[default]
    Any,
    Name,
    Data,
}

#[derive(Deserialize, Clone, Copy, Default)]
#[serde(rename_all = "kebab-case")]
enum ByArg {
    #[default]
    NameData,
    Name,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, default)]
struct FindArgs {
    prefix: String,
    field: FieldArg,
    thread: Option<String>,
    frame: Option<u64>,
    top: usize,
    aggregate: bool,
    by: ByArg,
}

impl Default for FindArgs {
    fn default() -> Self {
        Self {
            prefix: String::new(),
            field: FieldArg::Any,
            thread: None,
            frame: None,
            top: 20,
            aggregate: false,
            by: ByArg::NameData,
        }
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ChildrenArgs {
    name: String,
    #[serde(default)]
    ordered: bool,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CallsArgs {
    name: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct WindowArgs {
    lo: i64,
    hi: i64,
    #[serde(default = "five")]
    top: usize,
}

fn five() -> usize {
    5
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, default)]
struct GapsArgs {
    thread: Option<String>,
    min_ms: f64,
}

impl Default for GapsArgs {
    fn default() -> Self {
        Self {
            thread: None,
            min_ms: 1.0,
        }
    }
}

#[derive(Deserialize, Clone, Copy, Default)]
#[serde(rename_all = "kebab-case")]
enum SortArg {
    #[default]
    Delta,
    Total,
    PerCall,
    Count,
    Name,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, default)]
struct CompareArgs {
    top: usize,
    filter: Option<String>,
    hide_below: Option<f64>,
    sort: SortArg,
}

impl Default for CompareArgs {
    fn default() -> Self {
        Self {
            top: 50,
            filter: None,
            hide_below: None,
            sort: SortArg::Delta,
        }
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ScopeArgs {
    id: u32,
}

fn parse<T: DeserializeOwned>(query: &str, args: &serde_json::Value) -> Result<T, QueryError> {
    // `null` (no arguments) means every default.
    let args = if args.is_null() {
        serde_json::Value::Object(Default::default())
    } else {
        args.clone()
    };
    serde_json::from_value(args).map_err(|err| QueryError::BadArgs {
        query: query.to_owned(),
        message: err.to_string(),
    })
}

fn to_json<T: serde::Serialize>(value: &T) -> String {
    // The result structs hold only strings and numbers: serializing cannot fail.
    serde_json::to_string(value).unwrap_or_default()
}

fn no_such_scope(name: &str) -> QueryError {
    QueryError::NotFound(query::no_scope_named(name))
}

/// Milliseconds to nanoseconds, as the CLI rounds them.
pub fn ms_to_ns(ms: f64) -> i64 {
    (ms * 1e6).round() as i64
}

/// Answers the analysis `name` with `args` (a JSON object, or `null` for the
/// defaults) about trace `a` (and `b` for `compare`), as the CLI's `--json`.
pub fn query_json(
    a: &Trace,
    b: Option<&Trace>,
    name: &str,
    args: &serde_json::Value,
) -> Result<String, QueryError> {
    let not_found = |msg: String| Err(QueryError::NotFound(msg));
    Ok(match name {
        "frames" => {
            let args: FramesArgs = parse(name, args)?;
            to_json(&query::frames(a, args.top))
        }
        "threads" => {
            let args: ThreadsArgs = parse(name, args)?;
            let frame = match args.frame {
                Some(i) => match query::frame_by_index(a, i) {
                    Some(f) => f,
                    None => return not_found(format!("no frame with frame_index {i}")),
                },
                None => match query::slowest_frame(a) {
                    Some(f) => f,
                    None => return not_found("the recording has no frames".to_owned()),
                },
            };
            to_json(&query::threads(a, frame))
        }
        "top" => {
            let args: TopArgs = parse(name, args)?;
            to_json(&query::top(a, args.top))
        }
        "find" => {
            let args: FindArgs = parse(name, args)?;
            let filter = FindFilter {
                prefix: args.prefix,
                field: match args.field {
                    FieldArg::Any => Field::Any,
                    FieldArg::Name => Field::Name,
                    FieldArg::Data => Field::Data,
                },
                thread: args.thread,
                frame_index: args.frame,
                frame_position: None,
            };
            if args.aggregate {
                let by = match args.by {
                    ByArg::NameData => GroupBy::NameData,
                    ByArg::Name => GroupBy::Name,
                };
                to_json(&query::aggregate(a, &filter, by, args.top))
            } else {
                to_json(&query::find(a, &filter, args.top))
            }
        }
        "children" => {
            let args: ChildrenArgs = parse(name, args)?;
            query::children(a, &args.name, args.ordered)
                .map(|report| to_json(&report))
                .ok_or_else(|| no_such_scope(&args.name))?
        }
        "calls" => {
            let args: CallsArgs = parse(name, args)?;
            query::calls(a, &args.name)
                .map(|report| to_json(&report))
                .ok_or_else(|| no_such_scope(&args.name))?
        }
        "window" => {
            let args: WindowArgs = parse(name, args)?;
            to_json(&query::window(a, args.lo, args.hi, args.top))
        }
        "gaps" => {
            let args: GapsArgs = parse(name, args)?;
            to_json(&query::gaps(
                a,
                args.thread.as_deref(),
                ms_to_ns(args.min_ms),
            ))
        }
        "compare" => {
            let args: CompareArgs = parse(name, args)?;
            let b = b.ok_or(QueryError::NoB)?;
            let opts = CompareOptions {
                top: args.top,
                filter: args.filter,
                hide_below_ns: args.hide_below.map_or(0, ms_to_ns),
                sort: match args.sort {
                    SortArg::Delta => CompareSort::Delta,
                    SortArg::Total => CompareSort::Total,
                    SortArg::PerCall => CompareSort::PerCall,
                    SortArg::Count => CompareSort::Count,
                    SortArg::Name => CompareSort::Name,
                },
            };
            to_json(&query::compare(a, b, &opts))
        }
        "scope" => {
            let args: ScopeArgs = parse(name, args)?;
            match query::scope(a, args.id) {
                Some(info) => to_json(&info),
                None if a.defs.has_registration() => {
                    return not_found(format!(
                        "scope id {} is not registered in this recording",
                        args.id
                    ));
                }
                None => {
                    return not_found(format!(
                        "scope id {}: the recording has no scope registration",
                        args.id
                    ));
                }
            }
        }
        other => return Err(QueryError::Unknown(other.to_owned())),
    })
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
    /// Some frame was skipped or cut short.
    pub damaged: bool,
    /// `warning: …` / `damaged: …` lines, in file order.
    pub diagnostics: Vec<String>,
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
    let slowest = query::slowest_frame(trace);
    Summary {
        file: file.to_owned(),
        frames: frames.len(),
        threads: thread_count(trace),
        scopes: trace.scopes.len(),
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
        damaged: decoded.is_damaged(),
        diagnostics: decoded
            .diagnostics
            .iter()
            .map(|d| format!("{}: {d}", d.severity.as_str()))
            .collect(),
    }
}
