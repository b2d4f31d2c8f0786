//! `puffin-lens mcp`: the analyses as an MCP (Model Context Protocol)
//! server over stdio, for coding agents. One engine: every tool answers
//! through `engine::api` (the CLI's `--json`, byte for byte when nothing is
//! cut) or `engine::report` (the report's JSON, condensed for an agent).
//!
//! stdout carries the protocol only; diagnostics go to stderr. Every
//! result's text is capped ([`bound`]: the longest lists are cut and the
//! answer says what was cut and how to get more); every call runs off the
//! protocol's thread with a time limit; a panic in an analysis is a tool
//! error, never the end of the server. The server ends (exit 0) when the
//! client closes stdin, even in the middle of a call.

use super::EXIT_OK;
use anyhow::Context as _;
use puffin_lens::engine::api::{self, GateArgs, NoiseArgs, Request, TransformArgs};
use puffin_lens::engine::{self, Decoded, analyses};
use rmcp::handler::server::router::prompt::PromptRouter;
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{
    CallToolResult, ContentBlock, GetPromptResult, Implementation, JsonObject, ListResourcesResult,
    PaginatedRequestParams, PromptMessage, ReadResourceRequestParams, ReadResourceResponse,
    ReadResourceResult, Resource, ResourceContents, Role, ServerCapabilities, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{
    ErrorData, RoleServer, ServerHandler, ServiceExt as _, prompt, prompt_handler, prompt_router,
    tool, tool_handler, tool_router,
};
use serde::Deserialize;
use serde_json::{Map, Value, json};
use std::collections::BTreeMap;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// docs/agents.md: the investigation's guidance (the server's instructions
/// are drawn from it; the whole file is a resource).
const AGENTS_MD: &str = include_str!("../../docs/agents.md");
const AGENTS_MD_URI: &str = "puffin-lens://docs/agents.md";

/// A result's text when the call does not say (`max_bytes`): about 6k tokens.
const DEFAULT_MAX_BYTES: usize = 24_000;
/// The most a call may ask for.
const MAX_MAX_BYTES: usize = 200_000;
/// Longer strings are cut in a result that is over its size (a 100 KB scope
/// name).
const MAX_STRING_CHARS: usize = 2_000;
/// An analysis that takes longer is answered with an error (it goes on in
/// the background and its answer is dropped).
const CALL_TIMEOUT: Duration = Duration::from_secs(120);
/// Recordings open at once.
const MAX_OPEN: usize = 16;
/// `record`'s longest capture.
const MAX_RECORD_SECONDS: f64 = 600.0;
/// `report`'s rows per list when the call does not say (`top`).
const REPORT_TOP: usize = 5;

/// Runs the server on stdin/stdout until the client closes stdin.
pub fn serve() -> anyhow::Result<i32> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .context("cannot start the MCP server's runtime")?;
    let result = runtime.block_on(async {
        match Lens::new().serve(rmcp::transport::stdio()).await {
            Ok(running) => {
                let _ = running.waiting().await;
                Ok(())
            }
            // stdin closed before the session started: nothing to serve.
            Err(rmcp::service::ServerInitializeError::ConnectionClosed(_)) => Ok(()),
            Err(err) => Err(anyhow::Error::new(err).context("the MCP session failed to start")),
        }
    });
    // An analysis still running for a client that left is abandoned.
    runtime.shutdown_timeout(Duration::from_millis(200));
    eprintln!("puffin-lens: mcp: the client closed the connection");
    result.map(|()| EXIT_OK)
}

/// A recording opened by `open_recording` or `record`.
struct Opened {
    id: String,
    /// As given (or `record:ADDR`).
    path: String,
    decoded: Decoded,
}

#[derive(Default)]
struct State {
    next: u32,
    open: BTreeMap<u32, Arc<Opened>>,
    /// The last reports made (their key: the ids and options), for paging.
    reports: Vec<(String, Arc<Value>)>,
}

impl State {
    fn get(&self, id: &str) -> Result<Arc<Opened>, String> {
        id.strip_prefix('r')
            .and_then(|n| n.parse::<u32>().ok())
            .and_then(|n| self.open.get(&n).cloned())
            .ok_or_else(|| {
                let open: Vec<&str> = self.open.values().map(|o| o.id.as_str()).collect();
                format!(
                    "unknown recording id {id:?} (open: {}): open_recording gives an id",
                    if open.is_empty() {
                        "none".to_owned()
                    } else {
                        open.join(", ")
                    }
                )
            })
    }
}

#[derive(Clone)]
pub struct Lens {
    state: Arc<Mutex<State>>,
    tool_router: ToolRouter<Self>,
    prompt_router: PromptRouter<Self>,
}

type ToolResult = Result<CallToolResult, ErrorData>;

fn text_result(text: String) -> CallToolResult {
    CallToolResult::success(vec![ContentBlock::text(text)])
}

/// A tool error: one line.
fn error_result(message: &str) -> CallToolResult {
    let line: String = message
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    CallToolResult::error(vec![ContentBlock::text(line)])
}

fn answer(result: Result<String, String>) -> ToolResult {
    Ok(match result {
        Ok(text) => text_result(text),
        Err(message) => error_result(&message),
    })
}

/// Runs `f` off the protocol's thread, within [`CALL_TIMEOUT`] (or
/// `timeout`); a panic comes back as an error.
async fn blocking<T: Send + 'static>(
    what: &str,
    timeout: Duration,
    f: impl FnOnce() -> Result<T, String> + Send + 'static,
) -> Result<T, String> {
    match tokio::time::timeout(timeout, tokio::task::spawn_blocking(f)).await {
        Err(_) => Err(format!(
            "{what}: no answer within {} s; ask a narrower question (a thread, a frame, a \
             smaller top) or use the CLI",
            timeout.as_secs()
        )),
        Ok(Err(join)) => {
            let why = match join.try_into_panic() {
                Ok(p) => p
                    .downcast_ref::<&str>()
                    .map(|s| (*s).to_owned())
                    .or_else(|| p.downcast_ref::<String>().cloned())
                    .unwrap_or_default(),
                Err(e) => e.to_string(),
            };
            Err(format!(
                "{what}: internal error (a bug in puffin-lens): {why}"
            ))
        }
        Ok(Ok(result)) => result,
    }
}

/// `args` as `T`, or the error naming the argument.
fn parse<T: serde::de::DeserializeOwned>(tool: &str, args: JsonObject) -> Result<T, String> {
    serde_path_to_error::deserialize(Value::Object(args)).map_err(|err| {
        let path = err.path().to_string();
        let inner = err.into_inner();
        if path == "." {
            format!("bad arguments for {tool}: {inner}")
        } else {
            format!("bad arguments for {tool}: {path}: {inner}")
        }
    })
}

fn take_string(tool: &str, args: &mut JsonObject, key: &str) -> Result<Option<String>, String> {
    match args.remove(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(other) => Err(format!(
            "bad arguments for {tool}: {key}: expected a recording id (\"r1\"), got {other}"
        )),
    }
}

fn take_max_bytes(tool: &str, args: &mut JsonObject) -> Result<usize, String> {
    match args.remove("max_bytes") {
        None | Some(Value::Null) => Ok(DEFAULT_MAX_BYTES),
        Some(v) => match v.as_u64() {
            Some(n) if (1_000..=MAX_MAX_BYTES as u64).contains(&n) => Ok(n as usize),
            _ => Err(format!(
                "bad arguments for {tool}: max_bytes: expected 1000 to {MAX_MAX_BYTES}, got {v}"
            )),
        },
    }
}

fn take_usize(tool: &str, args: &mut JsonObject, key: &str) -> Result<Option<usize>, String> {
    match args.remove(key) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => v
            .as_u64()
            .map(|n| Some(n as usize))
            .ok_or_else(|| format!("bad arguments for {tool}: {key}: expected 0 or more, got {v}")),
    }
}

/// `value` as compact JSON of at most `max_bytes`: when it is longer, the
/// longest lists are cut (and then the longest strings) until it fits, and
/// the answer is wrapped as `{"answer", "cut": [what was cut], "more"}`.
fn bound(mut value: Value, max_bytes: usize, more: &str) -> String {
    let whole = json_len(&value);
    if whole <= max_bytes {
        return value.to_string();
    }
    let mut cut_lists: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    // Room for the note around the answer.
    let budget = max_bytes.saturating_sub(1_500).max(500);
    let mut size = whole;
    for _ in 0..500 {
        if size <= budget {
            break;
        }
        let Some((path, len, list_size)) = longest_list(&value) else {
            break;
        };
        // What this list may keep for the whole to fit (at least one item).
        let target = list_size.saturating_sub(size - budget);
        let keep = ((len as f64 * target as f64 / list_size as f64) as usize).clamp(1, len - 1);
        if let Some(Value::Array(items)) = pointer_mut(&mut value, &path) {
            items.truncate(keep);
        }
        cut_lists.entry(path).or_insert((keep, len)).0 = keep;
        size = json_len(&value);
    }
    let mut cut: Vec<String> = cut_lists
        .iter()
        .map(|(path, (kept, total))| {
            let shown = if path.is_empty() { "the list" } else { path };
            format!("{shown}: the first {kept} of {total} items")
        })
        .collect();
    if size > budget {
        let n = cut_strings(&mut value);
        if n > 0 {
            cut.push(format!(
                "{n} strings longer than {MAX_STRING_CHARS} characters, cut there"
            ));
        }
        size = json_len(&value);
    }
    if size > budget {
        // Nothing left to cut in place: the text itself, cut.
        let text = value.to_string();
        let mut end = budget.min(text.len());
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        return json!({
            "answer_text": &text[..end],
            "cut": [format!("the answer's JSON text after {end} of {whole} bytes")],
            "more": more,
        })
        .to_string();
    }
    json!({
        "answer": value,
        "cut": cut,
        "shown_bytes": size,
        "whole_bytes": whole,
        "more": more,
    })
    .to_string()
}

/// The length of `value`'s compact JSON, without writing it.
fn json_len(value: &Value) -> usize {
    struct Count(usize);
    impl std::io::Write for Count {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0 += buf.len();
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut c = Count(0);
    let _ = serde_json::to_writer(&mut c, value);
    c.0
}

/// The longest list (by its JSON's length) with more than one item: its
/// JSON pointer, its items and its JSON's length.
fn longest_list(value: &Value) -> Option<(String, usize, usize)> {
    /// A step of the path: a key or an index.
    enum Step<'a> {
        Key(&'a str),
        Index(usize),
    }
    fn pointer(steps: &[Step<'_>]) -> String {
        let mut out = String::new();
        for s in steps {
            out.push('/');
            match s {
                Step::Key(k) => out.push_str(&k.replace('~', "~0").replace('/', "~1")),
                Step::Index(i) => out.push_str(&i.to_string()),
            }
        }
        out
    }
    fn walk<'a>(
        v: &'a Value,
        steps: &mut Vec<Step<'a>>,
        best: &mut Option<(String, usize, usize)>,
    ) -> usize {
        match v {
            Value::Array(items) => {
                let mut size = 2 + items.len().saturating_sub(1);
                for (i, item) in items.iter().enumerate() {
                    steps.push(Step::Index(i));
                    size += walk(item, steps, best);
                    steps.pop();
                }
                if items.len() > 1 && best.as_ref().is_none_or(|b| size > b.2) {
                    *best = Some((pointer(steps), items.len(), size));
                }
                size
            }
            Value::Object(map) => {
                let mut size = 2 + map.len().saturating_sub(1);
                for (k, item) in map {
                    steps.push(Step::Key(k));
                    size += walk(item, steps, best) + json_len(&Value::String(k.clone())) + 1;
                    steps.pop();
                }
                size
            }
            other => json_len(other),
        }
    }
    let mut best = None;
    walk(value, &mut Vec::new(), &mut best);
    best
}

fn pointer_mut<'a>(value: &'a mut Value, path: &str) -> Option<&'a mut Value> {
    if path.is_empty() {
        Some(value)
    } else {
        value.pointer_mut(path)
    }
}

/// Cuts every string longer than [`MAX_STRING_CHARS`]; how many were.
fn cut_strings(value: &mut Value) -> usize {
    match value {
        Value::String(s) if s.chars().count() > MAX_STRING_CHARS => {
            let total = s.chars().count();
            let head: String = s.chars().take(MAX_STRING_CHARS).collect();
            *s = format!("{head}…[cut: {} more characters]", total - MAX_STRING_CHARS);
            1
        }
        Value::Array(items) => items.iter_mut().map(cut_strings).sum(),
        Value::Object(map) => map.values_mut().map(cut_strings).sum(),
        _ => 0,
    }
}

/// What `open_recording` and `record` say about a recording: its summary
/// and everything unusual in it.
fn opened_summary(o: &Opened) -> Value {
    let trace = &o.decoded.trace;
    let name = puffin_lens::app::file_name(&o.path);
    let summary = api::summary(&name, &o.decoded);
    let mut notes: Vec<String> = Vec::new();
    if !summary.has_registration {
        notes.push(
            "no scope registration: every name is scope#<id>; say so first and draw no \
             conclusion from names"
                .to_owned(),
        );
    }
    if let Some(note) = analyses::unregistered_note(&summary.unregistered_scope_ids) {
        notes.push(format!("partial registration: {note}"));
    }
    if let Some(u) = analyses::basis::unframed(trace) {
        notes.push(u.sentence());
    }
    if let Some(note) = analyses::frame_coverage(trace)
        .as_ref()
        .and_then(analyses::absent_note)
    {
        notes.push(format!(
            "frames left out: {note} (puffin's FrameView keeps the recent and the slowest: the \
             median is biased upward)"
        ));
    }
    if summary.damaged {
        notes.push(format!(
            "damaged: only the intact frames were kept ({} frames); every answer about it is \
             partial (see diagnostics)",
            summary.frames
        ));
    }
    let mut s = serde_json::from_str::<Value>(&summary.to_json()).unwrap_or(Value::Null);
    // The diagnostics of a badly damaged file: the first 20.
    if let Some(Value::Array(d)) = s.get_mut("diagnostics")
        && d.len() > 20
    {
        let more = d.len() - 20;
        d.truncate(20);
        d.push(Value::String(format!("… and {more} more")));
    }
    json!({
        "id": o.id,
        "path": o.path,
        "summary": s,
        "notes": notes,
        "next": "report {a: id} (one recording) or {a, b} (before/after) for the judged \
                 investigation",
    })
}

/// Opens the recording at `path` as `super::load` does for the CLI.
fn open_file(path: &str) -> Result<Decoded, String> {
    super::load(std::path::Path::new(path)).map_err(|err| format!("{err:#}"))
}

#[derive(Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
struct OpenParams {
    /// The recording: a .puffin file (any puffin version) or a JSON dump. An absolute
    /// path, or one relative to the server's working folder.
    path: String,
    /// The most bytes of text in the result (default 24000).
    #[serde(default)]
    #[allow(dead_code)]
    max_bytes: Option<usize>,
}

#[derive(Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
struct CloseParams {
    /// The recording's id ("r1").
    id: String,
}

#[derive(Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
struct RecordParams {
    /// The app's puffin_http server: host:port (the port defaults to 8585).
    addr: String,
    /// Stop after this many seconds (at most 600; default 10 when frames is not given).
    #[serde(default)]
    seconds: Option<f64>,
    /// Stop after this many frames.
    #[serde(default)]
    frames: Option<u64>,
    /// Also save the recording to this .puffin file.
    #[serde(default)]
    output: Option<String>,
}

/// Recording ids: one ("r1"), or several runs of one side (["r1", "r2"]).
#[derive(Deserialize, schemars::JsonSchema, Clone, serde::Serialize)]
#[serde(untagged)]
enum Side {
    One(String),
    Runs(Vec<String>),
}

impl Side {
    fn ids(&self) -> Vec<String> {
        match self {
            Side::One(id) => vec![id.clone()],
            Side::Runs(ids) => ids.clone(),
        }
    }
}

/// `report`'s arguments (the schema; the options are read by the engine's
/// own argument types).
#[derive(Deserialize, schemars::JsonSchema)]
#[allow(dead_code)]
struct ReportParams {
    /// Recording A's id ("r1"), or the ids of A's runs (["r1", "r2"]: several runs of the
    /// same code, the noise model then uses the spread between runs).
    a: Side,
    /// Recording B's id (before/after: A is before), or the ids of B's runs.
    #[serde(default)]
    b: Option<Side>,
    /// "overview" (the default: what to look at first, the changes by kind, gaps, waits,
    /// drift), or a path into the full report's JSON (the CLI's `report --format json`):
    /// "comparison.rows", "comparison.look_first", "comparison.gaps.changed",
    /// "comparison.waits", "comparison.frame", "comparison.drift", "recordings.0" (A),
    /// "recordings.1.gaps", "recordings.0.outliers", … (lists are paged by offset and top).
    #[serde(default)]
    section: Option<String>,
    /// With a section that is a list: skip this many items.
    #[serde(default)]
    offset: Option<usize>,
    /// Rows per list (default 5 for the overview; a section that is a list: items shown,
    /// default all that fit).
    #[serde(default)]
    top: Option<usize>,
    /// The most bytes of text in the result (default 24000, at most 200000).
    #[serde(default)]
    max_bytes: Option<usize>,
    /// Single gaps shorter than this (ms) are left out, and recurring ones whose total is
    /// (default 1).
    #[serde(default)]
    gap_ms: Option<f64>,
    /// A change smaller than this percentage is noise (default 5).
    #[serde(default)]
    noise_pct: Option<f64>,
    /// A change smaller than this many ms per frame is noise (default 0.05).
    #[serde(default)]
    noise_ms: Option<f64>,
    /// Significance level of the rank tests (default 0.01).
    #[serde(default)]
    alpha: Option<f64>,
    /// Judge B's per-call times as they are, not against the run-to-run drift.
    #[serde(default)]
    no_drift: Option<bool>,
    /// The regression gate: a cause costing more than PCT% of A's mean frame beyond the
    /// drift trips it (comparison.gate).
    #[serde(default)]
    fail_on_regression: Option<f64>,
    /// With fail_on_regression: and more than this many ms per frame.
    #[serde(default)]
    min_ms: Option<f64>,
    /// The gate also trips on a drift past PCT%.
    #[serde(default)]
    fail_on_drift: Option<f64>,
    /// The tail gate: B's P99 frame longer than A's by more than PCT% of A's, its whole
    /// interval above, fails it (comparison.pacing.gate).
    #[serde(default)]
    fail_on_p99: Option<f64>,
    /// The tail gate on the 1% low (the mean of the slowest 1% of frames) likewise.
    #[serde(default)]
    fail_on_low: Option<f64>,
    /// Call-tree transforms for the hot paths, in order: "only-my-code", "merge:NAME",
    /// "focus:PATH", "focus-function:NAME", "collapse:NAME", "collapse-crate:CRATE",
    /// "collapse-recursion[:NAME]", "drop:NAME", "split-data:NAME".
    #[serde(default)]
    transforms: Option<Vec<String>>,
}

/// The report's options, read by the engine's argument types (the CLI's
/// `report` options, `-` written `_`).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ReportOptionsJson {
    #[serde(default = "default_gap_ms")]
    gap_ms: f64,
    #[serde(flatten)]
    noise: NoiseArgs,
    #[serde(flatten)]
    gate: GateArgs,
    #[serde(flatten)]
    transform: TransformArgs,
}

fn default_gap_ms() -> f64 {
    1.0
}

#[derive(Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
struct PairParams {
    /// The recording before (A): a .puffin file's path.
    a: String,
    /// The recording after (B): a .puffin file's path.
    b: String,
}

impl Default for Lens {
    fn default() -> Self {
        Self::new()
    }
}

impl Lens {
    pub fn new() -> Self {
        Self {
            state: Arc::default(),
            tool_router: Self::tool_router(),
            prompt_router: Self::prompt_router(),
        }
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        // A panic never happens with the lock held (the analyses run
        // outside it); a poisoned lock's state is still whole.
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn add(&self, path: String, decoded: Decoded) -> Result<Arc<Opened>, String> {
        let mut state = self.state();
        if state.open.len() >= MAX_OPEN {
            return Err(format!(
                "{MAX_OPEN} recordings are open: close_recording one first"
            ));
        }
        state.next += 1;
        let n = state.next;
        let opened = Arc::new(Opened {
            id: format!("r{n}"),
            path,
            decoded,
        });
        state.open.insert(n, opened.clone());
        Ok(opened)
    }

    /// An analysis of `engine::api` named `query`, its arguments `args`
    /// (`a`, `b`, `max_bytes`, and the rest as `Request::from_json` reads
    /// them).
    async fn analysis(&self, query: &str, mut args: JsonObject) -> Result<String, String> {
        let a_id = take_string(query, &mut args, "a")?
            .ok_or_else(|| format!("bad arguments for {query}: a: the recording's id (\"r1\")"))?;
        let b_id = take_string(query, &mut args, "b")?;
        let max_bytes = take_max_bytes(query, &mut args)?;
        if matches!(query, "calls" | "pacing") && b_id.is_some() && !args.contains_key("compare") {
            args.insert("compare".to_owned(), Value::Bool(true));
        }
        let request =
            Request::from_json(query, &Value::Object(args.clone())).map_err(|e| e.to_string())?;
        let needs_b = request.needs_b()
            || matches!(&request, Request::Calls(c) if c.compare)
            || matches!(&request, Request::Pacing(p) if p.compare);
        if needs_b && b_id.is_none() {
            return Err(format!(
                "{query} compares two recordings: give b, the id of the recording after"
            ));
        }
        if !needs_b && b_id.is_some() {
            return Err(format!("{query} answers about one recording: leave out b"));
        }
        let (a, b) = {
            let state = self.state();
            let a = state.get(&a_id)?;
            let b = b_id.as_deref().map(|id| state.get(id)).transpose()?;
            (a, b)
        };
        let what = format!("{query} of {}", a.id);
        let more = format!(
            "narrow the question ({}) or ask with a larger max_bytes (at most {MAX_MAX_BYTES}); \
             the CLI's `puffin-lens {query} … --json` writes it whole",
            narrowing(query)
        );
        blocking(&what, CALL_TIMEOUT, move || {
            let answer = api::answer(&request, &a.decoded.trace, b.as_ref().map(|b| &b.decoded.trace))
                .map_err(|e| {
                    let file = puffin_lens::app::file_name(&a.path);
                    format!("{file}: {e}")
                })?;
            let value = serde_json::to_value(answer.with_rel_times(&a.decoded.trace))
                .map_err(|e| format!("cannot write the answer: {e}"))?;
            let damaged: Vec<&str> = std::iter::once(&a)
                .chain(b.as_ref())
                .filter(|o| o.decoded.is_damaged())
                .map(|o| o.id.as_str())
                .collect();
            // Room for the note of a damaged recording.
            let room = if damaged.is_empty() { 0 } else { 200 };
            let text = bound(value, max_bytes - room, &more);
            Ok(if damaged.is_empty() {
                text
            } else {
                format!(
                    "{{\"partial\":\"{} damaged: the answer covers the intact frames\",\"answer\":{text}}}",
                    damaged.join(" and ")
                )
            })
        })
        .await
    }

    async fn report_tool(&self, mut args: JsonObject) -> Result<String, String> {
        const TOOL: &str = "report";
        let a: Side = match args.remove("a") {
            Some(v) => serde_json::from_value(v).map_err(|_| {
                format!("bad arguments for {TOOL}: a: expected an id or a list of ids")
            })?,
            None => {
                return Err(format!(
                    "bad arguments for {TOOL}: a: the recording's id (\"r1\")"
                ));
            }
        };
        let b: Option<Side> = match args.remove("b") {
            None | Some(Value::Null) => None,
            Some(v) => Some(serde_json::from_value(v).map_err(|_| {
                format!("bad arguments for {TOOL}: b: expected an id or a list of ids")
            })?),
        };
        let section = take_string(TOOL, &mut args, "section")?;
        let offset = take_usize(TOOL, &mut args, "offset")?.unwrap_or(0);
        let max_bytes = take_max_bytes(TOOL, &mut args)?;
        let top = match args.get("top") {
            Some(v) if !v.is_null() => Some(v.as_u64().filter(|&n| n >= 1).ok_or_else(|| {
                format!("bad arguments for {TOOL}: top: expected 1 or more, got {v}")
            })? as usize),
            _ => None,
        };
        args.remove("top");
        let key = json!([a, b, args]).to_string();
        let opts: ReportOptionsJson = parse(TOOL, args)?;
        let report_opts = engine::report::ReportOptions {
            top: 10_000,
            gap_ms: opts.gap_ms,
            noise: opts
                .noise
                .noise()
                .map_err(|e| format!("bad arguments for {TOOL}: {e}"))?,
            gate: opts
                .gate
                .gate()
                .map_err(|e| format!("bad arguments for {TOOL}: {e}"))?,
            tail_gate: opts
                .gate
                .tail_gate()
                .map_err(|e| format!("bad arguments for {TOOL}: {e}"))?,
        };
        if !(report_opts.gap_ms.is_finite() && report_opts.gap_ms >= 0.0) {
            return Err(format!(
                "bad arguments for {TOOL}: gap_ms: expected 0 or more"
            ));
        }
        if (report_opts.gate.is_some() || report_opts.tail_gate.is_set()) && b.is_none() {
            return Err(format!(
                "bad arguments for {TOOL}: the regression gate compares two recordings: give b"
            ));
        }
        let stack = opts.transform.transforms;
        let (side_a, side_b) = {
            let state = self.state();
            let get = |s: &Side| -> Result<Vec<Arc<Opened>>, String> {
                s.ids().iter().map(|id| state.get(id)).collect()
            };
            (get(&a)?, b.as_ref().map(get).transpose()?)
        };
        if side_a.is_empty() || side_b.as_ref().is_some_and(Vec::is_empty) {
            return Err(format!("bad arguments for {TOOL}: a side has no recording"));
        }
        let cached = self
            .state()
            .reports
            .iter()
            .find(|(k, _)| *k == key)
            .map(|(_, v)| v.clone());
        let full = match cached {
            Some(v) => v,
            None => {
                let v = blocking("report", CALL_TIMEOUT, move || {
                    let (na, da) = side(&side_a);
                    let b = side_b.as_deref().map(side);
                    let report = engine::report::Report::transformed(
                        (&na, da.get()),
                        b.as_ref().map(|(n, d)| (n.as_str(), d.get())),
                        report_opts,
                        &stack,
                    );
                    let start_ns = da.get().trace.recording_start_ns();
                    serde_json::to_value(engine::reltime::RelTimes::new(&report, start_ns))
                        .map_err(|e| format!("cannot write the report: {e}"))
                })
                .await?;
                let v = Arc::new(v);
                let mut state = self.state();
                state.reports.insert(0, (key, v.clone()));
                state.reports.truncate(4);
                v
            }
        };
        let ids = |s: &Side| json!(s);
        let call = json!({"a": ids(&a), "b": b.as_ref().map(ids)});
        match section.as_deref() {
            None | Some("overview") => Ok(bound(
                overview(&full, top.unwrap_or(REPORT_TOP), &call),
                max_bytes,
                "report {section: PATH} pages any part of the full report (offset, top)",
            )),
            Some(path) => {
                let pointer = format!("/{}", path.replace('.', "/"));
                let part = full.pointer(&pointer).ok_or_else(|| {
                    let keys = |v: &Value| match v {
                        Value::Object(m) => m.keys().cloned().collect::<Vec<_>>().join(", "),
                        _ => String::new(),
                    };
                    format!(
                        "report: no section {path:?} (the report has: {}; comparison has: {})",
                        keys(&full),
                        keys(&full["comparison"])
                    )
                })?;
                let value = match part {
                    Value::Array(items) => {
                        let total = items.len();
                        // Without top: as many items as fit.
                        let fit = || {
                            let mut used = 1_000;
                            let mut end = offset.min(total);
                            while end < total {
                                used += json_len(&items[end]) + 1;
                                if used > max_bytes && end > offset {
                                    break;
                                }
                                end += 1;
                            }
                            end
                        };
                        let end = top.map_or_else(fit, |t| offset.saturating_add(t).min(total));
                        let page: Vec<Value> = items
                            .iter()
                            .skip(offset)
                            .take(end.saturating_sub(offset))
                            .cloned()
                            .collect();
                        json!({
                            "section": path,
                            "offset": offset,
                            "items": page,
                            "total": total,
                            "next_offset": (end < total).then_some(end),
                        })
                    }
                    other => json!({"section": path, "value": other}),
                };
                Ok(bound(
                    value,
                    max_bytes,
                    "a list section is paged: ask again with offset (and top)",
                ))
            }
        }
    }
}

/// A side's recordings as one (several runs: `engine::model::concat`).
enum SideData<'a> {
    One(&'a Decoded),
    Runs(Box<Decoded>),
}

impl SideData<'_> {
    fn get(&self) -> &Decoded {
        match self {
            SideData::One(d) => d,
            SideData::Runs(d) => d,
        }
    }
}

/// A side's name (its files joined) and its recording.
fn side(runs: &[Arc<Opened>]) -> (String, SideData<'_>) {
    let name = runs
        .iter()
        .map(|o| puffin_lens::app::file_name(&o.path))
        .collect::<Vec<_>>()
        .join(" + ");
    (name, side_decoded(runs))
}

fn side_decoded(runs: &[Arc<Opened>]) -> SideData<'_> {
    if let [one] = runs {
        return SideData::One(&one.decoded);
    }
    let trace = engine::model::concat(runs.iter().map(|o| o.decoded.trace.clone()).collect());
    let diagnostics = runs
        .iter()
        .flat_map(|o| o.decoded.diagnostics.iter().cloned())
        .collect();
    SideData::Runs(Box::new(Decoded { trace, diagnostics }))
}

/// How to ask `query` a narrower question.
fn narrowing(query: &str) -> &'static str {
    match query {
        "calls" => "by_child groups the calls; window over a frame's time",
        "window" => "a shorter window, top, scopes",
        "gaps" => "thread, min_ms, top",
        "tree" | "diff" => "thread, frame, depth, transforms",
        "compare" => "top, filter, hide_below",
        "pacing" => "budget",
        "find" | "top" | "frames" => "top, thread, frame",
        _ => "its arguments",
    }
}

/// The first `top` items of the list at `key` in `v` (`[]` when absent).
fn first(v: &Value, key: &str, top: usize) -> Value {
    match v.get(key) {
        Some(Value::Array(items)) => Value::Array(items.iter().take(top).cloned().collect()),
        _ => Value::Array(Vec::new()),
    }
}

fn count(v: &Value, key: &str) -> usize {
    v.get(key).and_then(Value::as_array).map_or(0, Vec::len)
}

/// Keeps `keys` of the object `v` (those it has).
fn pick(v: &Value, keys: &[&str]) -> Value {
    let mut out = Map::new();
    for k in keys {
        if let Some(x) = v.get(*k) {
            out.insert((*k).to_owned(), x.clone());
        }
    }
    Value::Object(out)
}

/// The report for an agent: the judged investigation's first things, each
/// list cut to `top` with its length, and where the rest is.
fn overview(full: &Value, top: usize, call: &Value) -> Value {
    let recordings: Vec<Value> = full["recordings"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default()
        .iter()
        .map(|r| {
            let mut o = pick(
                r,
                &[
                    "label",
                    "median_frame_ns",
                    "median_note",
                    "unframed",
                    "frames_absent_note",
                ],
            );
            let s = &r["summary"];
            o["file"] = s["file"].clone();
            o["frames"] = s["frames"].clone();
            o["threads"] = s["threads"].clone();
            o["damaged"] = s["damaged"].clone();
            let warning = r["registration"]["warning"].as_str().unwrap_or_default();
            if !warning.is_empty() {
                o["registration_warning"] = Value::String(warning.to_owned());
            }
            o["slowest_frames"] = first(r, "slowest_frames", top);
            o["outliers"] = Value::Array(
                first(r, "outliers", top)
                    .as_array()
                    .map(Vec::as_slice)
                    .unwrap_or_default()
                    .iter()
                    .map(|x| {
                        pick(
                            x,
                            &[
                                "name",
                                "kind",
                                "count",
                                "total_ns",
                                "max_ns",
                                "max_share",
                                "frame_index",
                                "thread",
                                "calls_in_frame",
                                "tail",
                            ],
                        )
                    })
                    .collect(),
            );
            o["total_outliers"] = json!(count(r, "outliers"));
            o["recurring_gaps"] = Value::Array(
                first(&r["gaps"], "recurring", top)
                    .as_array()
                    .map(Vec::as_slice)
                    .unwrap_or_default()
                    .iter()
                    .map(|g| {
                        pick(
                            g,
                            &[
                                "thread",
                                "kind",
                                "path",
                                "after",
                                "before",
                                "occurrences",
                                "median_ns",
                                "total_ns",
                                "share_of_thread_pct",
                            ],
                        )
                    })
                    .collect(),
            );
            o["total_recurring_gaps"] = r["gaps"]["total_recurring"].clone();
            o["hot_paths"] = first(r, "hot_paths", top);
            o["over_time"] = first(r, "over_time", top);
            o["frame_shape"] = r["frame_shape"].clone();
            if let Some(x) = s.get("overlapping_frames") {
                o["overlapping_frames"] = x["sentence"].clone();
            }
            o
        })
        .collect();
    let mut out = Map::new();
    out.insert("tool".to_owned(), full["tool"].clone());
    if let Some(t) = full.get("transforms") {
        out.insert("transforms".to_owned(), t.clone());
        out.insert("transform_warnings".to_owned(), full["warnings"].clone());
    }
    let c = &full["comparison"];
    if c.is_object() {
        let mut frame = pick(
            &c["frame"],
            &[
                "thread",
                "median_a_ns",
                "median_b_ns",
                "mean_a_ns",
                "mean_b_ns",
                "delta_mean_ns",
                "rate_a_fps",
                "rate_b_fps",
                "between_frames",
                "kind",
                "effect",
                "parts",
                "lead",
                "lead_reason",
                "skew",
                "explained_pct",
                "outside_scopes_ns",
            ],
        );
        frame["contributions"] = first(&c["frame"], "contributions", top);
        frame["total_contributions"] = json!(count(&c["frame"], "contributions"));
        if let Some(m) = c["frame"].get("median").filter(|m| m.is_object()) {
            let mut median = pick(
                m,
                &["delta_median_ns", "outside_scopes_ns", "unexplained_ns"],
            );
            median["contributions"] = first(m, "contributions", top);
            frame["median"] = median;
        }
        let rows: Vec<Value> = first(c, "rows", top)
            .as_array()
            .map(Vec::as_slice)
            .unwrap_or_default()
            .iter()
            .map(|r| {
                let ch = &r["change"];
                let mut row = json!({
                    "name": r["name"],
                    "kind": ch["kind"],
                    "self_delta_per_frame_ns": r["self_delta_per_frame_ns"],
                });
                for k in [
                    "median_a_ns",
                    "median_b_ns",
                    "typical_a_ns",
                    "typical_b_ns",
                    "calls_per_frame_a",
                    "calls_per_frame_b",
                    "delta_per_frame_ns",
                    "drift_part_ns",
                    "per_call_a_ns",
                    "per_call_b_ns",
                    "effect",
                ] {
                    if let Some(x) = ch.get(k) {
                        row[k] = x.clone();
                    }
                }
                // Where and when it changed: words only (the sites and
                // shapes are in the full report's rows).
                for (k, from) in [("over_time", "words"), ("place_words", "")] {
                    let x = if from.is_empty() { &r[k] } else { &r[k][from] };
                    if !x.is_null() {
                        row[k] = x.clone();
                    }
                }
                for k in ["gap", "spike_call", "parallel"] {
                    if let Some(x) = r.get(k).filter(|x| !x.is_null()) {
                        row[k] = x.clone();
                    }
                }
                row
            })
            .collect();
        let gaps_changed: Vec<Value> = first(&c["gaps"], "changed", top)
            .as_array()
            .map(Vec::as_slice)
            .unwrap_or_default()
            .iter()
            .map(|g| pick(g, &["verdict", "thread", "kind", "path", "sentence"]))
            .collect();
        let mut by_kind = Map::new();
        for r in c["rows"].as_array().map(Vec::as_slice).unwrap_or_default() {
            if let (Some(kind), Some(name)) = (r["change"]["kind"].as_str(), r["name"].as_str()) {
                let list = by_kind
                    .entry(kind.to_owned())
                    .or_insert_with(|| Value::Array(Vec::new()));
                if let Value::Array(l) = list {
                    l.push(Value::String(name.to_owned()));
                }
            }
        }
        let comparison = json!({
            "headline": c["glance"]["headline"],
            // The glance without its sparklines and sentences (the rows
            // and look_first below say those): the budget is the reader's.
            "glance": {
                "a_ns": c["glance"]["a_ns"],
                "b_ns": c["glance"]["b_ns"],
                "bars": c["glance"]["bars"],
                "findings": c["glance"]["findings"].as_array().map(|l| l.iter().take(top.max(5)).map(|x| json!({
                    "rank": x["rank"],
                    "name": x["name"],
                    "badge": x["badge"],
                    "delta_ns": x["delta_ns"],
                    "ci_ns": x["ci_ns"],
                    "place": x["place"],
                    "cost": x["cost"],
                })).collect::<Vec<_>>()),
            },
            "warnings": c["warnings"],
            "drift": c["drift"],
            "conditions": c["conditions"],
            "basis": c["basis"],
            "units": c["units"],
            "noise": c["noise"],
            "frame": frame,
            "look_first": first(c, "look_first", top.max(5)),
            "total_look_first": count(c, "look_first"),
            "changed_names": c["changed_names"],
            "total_names": c["total_names"],
            "changes_by_kind": by_kind,
            "rows": rows,
            "total_rows": count(c, "rows"),
            "gaps_changed": gaps_changed,
            "total_gaps_changed": count(&c["gaps"], "changed"),
            "waits": first(c, "waits", top),
            "total_waits": count(c, "waits"),
            "unchanged": {
                "names": first(&c["unchanged"], "names", top * 2),
                "total": c["unchanged"]["total"],
                "apart_from_a_spike": c["unchanged"]["apart_from_a_spike"],
            },
            "gate": c.get("gate").cloned().unwrap_or(Value::Null),
            "renames": c["renames"],
            "off_critical_path": c["off_critical_path"],
            "places": first(c, "places", top),
            "total_places": count(c, "places"),
            "calls_changed": first(c, "calls_changed", top),
            "transients": c["transients"],
        });
        out.insert("comparison".to_owned(), comparison);
    }
    out.insert("recordings".to_owned(), Value::Array(recordings));
    let a = &call["a"];
    let b = &call["b"];
    let mut more = vec![
        json!(format!(
            "report {{a: {a}{}, section: \"comparison.rows\", offset: {top}}}: every judged name, paged",
            if b.is_null() {
                String::new()
            } else {
                format!(", b: {b}")
            }
        )),
        json!(
            "report {section: \"comparison.gaps.changed\" | \"comparison.waits\" | \"recordings.0.gaps\" | \"recordings.1.outliers\" | …}: any part of the full report"
        ),
        json!("calls {a, b, name}: back a per-call claim (both sides' calls, judged)"),
        json!(
            "window {a, lo, hi}: what ran in a gap (lo/hi: epoch ns, or \"12.5ms\" since the recording's start)"
        ),
        json!(
            "tree {a, depth, transforms}, children {a, name, ordered}, gaps {a, thread}, scope {a, id}: the details"
        ),
    ];
    if b.is_null() {
        more.remove(0);
    }
    out.insert("more".to_owned(), Value::Array(more));
    Value::Object(out)
}

/// The schema of an analysis tool: `a`, `b` when it compares, `max_bytes`,
/// and the analysis' own arguments as the CLI declares them (its clap
/// arguments, `-` written `_`; the transform flags as `transforms`).
fn analysis_schema(query: &str) -> Arc<JsonObject> {
    let mut props = Map::new();
    let mut required = vec![Value::String("a".to_owned())];
    props.insert(
        "a".to_owned(),
        json!({"type": "string", "description": "The recording's id (\"r1\", from open_recording)."}),
    );
    if api::needs_b(query) || matches!(query, "calls" | "pacing") {
        props.insert(
            "b".to_owned(),
            json!({"type": "string", "description": if query == "calls" {
                "The recording after (B): both sides' calls side by side, judged."
            } else if query == "pacing" {
                "The recording after (B): each tail figure judged, B against A."
            } else {
                "The recording after (B), compared with A."
            }}),
        );
        if api::needs_b(query) {
            required.push(Value::String("b".to_owned()));
        }
    }
    props.insert(
        "max_bytes".to_owned(),
        json!({"type": "integer", "minimum": 1000, "maximum": MAX_MAX_BYTES,
               "description": "The most bytes of text in the result (default 24000): longer answers cut their longest lists and say so."}),
    );
    let cmd = <Request as clap::Subcommand>::augment_subcommands(clap::Command::new("q"));
    if let Some(sub) = cmd.find_subcommand(query) {
        let mut transforms = Vec::new();
        for arg in sub.get_arguments() {
            let id = arg.get_id().as_str();
            if matches!(id, "help" | "version") {
                continue;
            }
            let help = arg.get_help().map(|h| h.to_string()).unwrap_or_default();
            if TRANSFORM_IDS.contains(&id) {
                let value = arg
                    .get_value_names()
                    .and_then(|v| v.first())
                    .map(|v| format!(":{v}"))
                    .unwrap_or_default();
                transforms.push(format!("\"{id}{value}\": {help}"));
                continue;
            }
            let key = id.replace('-', "_");
            let is_flag = matches!(
                arg.get_action(),
                clap::ArgAction::SetTrue | clap::ArgAction::SetFalse
            );
            let value_name = arg
                .get_value_names()
                .and_then(|v| v.first())
                .map(|v| v.to_string())
                .unwrap_or_default();
            let ty = if is_flag {
                json!("boolean")
            } else if matches!(key.as_str(), "lo" | "hi") {
                json!(["integer", "string"])
            } else if matches!(value_name.as_str(), "N" | "I") || key == "id" {
                json!("integer")
            } else if matches!(value_name.as_str(), "MS" | "PCT" | "P" | "X") {
                json!("number")
            } else {
                json!("string")
            };
            let mut p = json!({"type": ty, "description": help});
            let defaults: Vec<String> = arg
                .get_default_values()
                .iter()
                .map(|d| d.to_string_lossy().into_owned())
                .collect();
            if let [d] = defaults.as_slice()
                && !is_flag
            {
                p["description"] = Value::String(format!("{help} (default {d})"));
            }
            let possible: Vec<Value> = arg
                .get_possible_values()
                .iter()
                .filter(|v| !v.is_hide_set())
                .map(|v| Value::String(v.get_name().to_owned()))
                .collect();
            if !possible.is_empty() && !is_flag {
                p["enum"] = Value::Array(possible);
            }
            if arg.is_positional() && arg.is_required_set() {
                required.push(Value::String(key.clone()));
            }
            props.insert(key, p);
        }
        if !transforms.is_empty() {
            props.insert(
                "transforms".to_owned(),
                json!({"type": "array", "items": {"type": "string"}, "description": format!(
                    "Call-tree transforms, applied in order: {}", transforms.join("; ")
                )}),
            );
        }
    }
    let schema = json!({
        "type": "object",
        "properties": props,
        "required": required,
        "additionalProperties": false,
    });
    match schema {
        Value::Object(m) => Arc::new(m),
        _ => Arc::default(),
    }
}

/// The transform flags' clap ids (one `transforms` list in JSON): the
/// transforms' names.
use puffin_lens::engine::analyses::transform::TRANSFORM_NAMES as TRANSFORM_IDS;

fn schema<T: schemars::JsonSchema + std::any::Any>() -> Arc<JsonObject> {
    rmcp::handler::server::common::schema_for_type::<T>()
}

#[tool_router]
impl Lens {
    #[tool(
        description = "Open a .puffin recording (or a JSON dump) and get its id (\"r1\", \"r2\", …) \
for the other tools, with a summary: frames, threads, scopes, span, registration, and anything \
unusual (one frame or unframed: figures per second; partial or no registration: names are \
scope#<id>; frames left out by the capture; a damaged file: what was kept). Use it first, once \
per file; several recordings can be open at once. Not for live apps: use record.",
        input_schema = schema::<OpenParams>()
    )]
    async fn open_recording(&self, Parameters(args): Parameters<JsonObject>) -> ToolResult {
        let result = async {
            let mut args = args;
            let max_bytes = take_max_bytes("open_recording", &mut args)?;
            let p: OpenParams = parse("open_recording", args)?;
            let path = p.path.clone();
            let decoded =
                blocking("open_recording", CALL_TIMEOUT, move || open_file(&path)).await?;
            let opened = self.add(p.path, decoded)?;
            Ok(bound(
                opened_summary(&opened),
                max_bytes,
                "summary {a: id} via query for the rest",
            ))
        }
        .await;
        answer(result)
    }

    #[tool(
        description = "Close a recording opened by open_recording or record, freeing its memory. \
Use it when many recordings have been opened (at most 16 at once).",
        input_schema = schema::<CloseParams>()
    )]
    async fn close_recording(&self, Parameters(args): Parameters<JsonObject>) -> ToolResult {
        let result = (|| {
            let p: CloseParams = parse("close_recording", args)?;
            let mut state = self.state();
            let opened = state.get(&p.id)?;
            state.open.retain(|_, o| o.id != opened.id);
            state.reports.clear();
            Ok(json!({"closed": opened.id, "path": opened.path}).to_string())
        })();
        answer(result)
    }

    #[tool(
        description = "The judged investigation of one recording (a) or a before/after pair (a, b), \
the CLI's `report` condensed for an agent: with b, first the comparison (warnings, the run-to-run \
drift, the frame's change and the names that account for it, look_first: ranked sentences to \
QUOTE, every changed name with its kind of change: slower, more-often, spike, new, gone, …, the \
changed gaps of unprofiled time with a sentence each, the waits and what they wait for, what is \
unchanged); then each recording's outliers, recurring gaps and hot paths. The judgement calls \
(noise or change, which kind) are made: read them, do not redo them. Use it right after \
open_recording. Each list shows `top` items (default 5) and its total: get the rest with \
section (a path into the full JSON report, e.g. \"comparison.rows\") and offset. Not for one \
scope's calls (calls) or what ran in a time window (window).",
        input_schema = schema::<ReportParams>()
    )]
    async fn report(&self, Parameters(args): Parameters<JsonObject>) -> ToolResult {
        answer(self.report_tool(args).await)
    }

    #[tool(
        description = "Every call of one scope NAME in a, in time order, with a summary (count, \
median, p95, max, the largest call's share; tail: the slow calls). With b: both sides' calls \
side by side, judged (did it really change per call, or does it run more often?): use it to back \
a per-call claim of the report. by_child groups the calls by the data of a child scope. Not for \
totals of every name (report, or query find with aggregate). Long call lists are cut to fit.",
        input_schema = analysis_schema("calls")
    )]
    async fn calls(&self, Parameters(args): Parameters<JsonObject>) -> ToolResult {
        answer(self.analysis("calls", args).await)
    }

    #[tool(
        description = "What ran on each thread inside the time window [lo, hi] of recording a: per \
thread its profiled, unprofiled and no-scope time, its scopes with starts and ends, how busy each \
thread was, and how much of the window no scope covered. Use it to look into one gap (take lo/hi \
from a gap's start_ns/end_ns, or \"12.5ms\" since the recording's start). Not for a whole frame's \
tree (tree with frame).",
        input_schema = analysis_schema("window")
    )]
    async fn window(&self, Parameters(args): Parameters<JsonObject>) -> ToolResult {
        answer(self.analysis("window", args).await)
    }

    #[tool(
        description = "Unprofiled time in recording a: every stretch no child scope covers (leading, \
between, trailing, top-level, between-frames), single and recurring, ranked by total, with what \
the other threads ran meanwhile and what a wait waits for (waits_for). Idle time of task threads \
is listed apart (not a cost). Use it for \"where is the time no scope explains\"; the report \
already has the recurring gaps and, with b, the changed ones.",
        input_schema = analysis_schema("gaps")
    )]
    async fn gaps(&self, Parameters(args): Parameters<JsonObject>) -> ToolResult {
        answer(self.analysis("gaps", args).await)
    }

    #[tool(
        description = "The merged call tree of recording a (all frames, or one: frame), per thread: \
count, total, self and max per node, children by total. Use depth to keep it short and transforms \
to hide the noise (\"only-my-code\", \"merge:profiling::*\", \"focus-function:NAME\", …). Not to \
compare two recordings (query diff, or report).",
        input_schema = analysis_schema("tree")
    )]
    async fn tree(&self, Parameters(args): Parameters<JsonObject>) -> ToolResult {
        answer(self.analysis("tree", args).await)
    }

    #[tool(
        description = "The children of the slowest call named NAME in recording a, with the gaps \
between them (ordered: in time order, gaps in place). Use it to drill into one slow call. Not for \
all calls (calls) or the merged tree (tree).",
        input_schema = analysis_schema("children")
    )]
    async fn children(&self, Parameters(args): Parameters<JsonObject>) -> ToolResult {
        answer(self.analysis("children", args).await)
    }

    #[tool(
        description = "Compare recordings a and b per (name, data), each row judged by the noise \
model beyond the run-to-run drift (kind: slower, faster, more-often, spike, new, gone, unchanged, \
…). The report already judges every name: use compare for the (name, data) rows, a filter, or a \
sort. Not for one name's calls (calls with b).",
        input_schema = analysis_schema("compare")
    )]
    async fn compare(&self, Parameters(args): Parameters<JsonObject>) -> ToolResult {
        answer(self.analysis("compare", args).await)
    }

    #[tool(
        description = "The frames' pacing in recording a, as frame-time analyzers read it: mean, \
median, P90/P95/P99, the 1% and 0.1% lows (ms and fps), the worst frame, frames over the budget \
(budget in ms; default the paced period or 60 Hz), stutters, frame to frame, the pattern of the \
slow frames, and the slow frames traced to the parts that make them slow (scopes' own time, time \
between scopes and between frames; how many slow and other frames each is high in). With b: each \
tail figure judged B against A (changed / unchanged / inconclusive, with its interval). Use it \
for \"why are some frames slow\" and \"did the slow frames get worse\"; the report holds the same \
section (pacing). The mean frame's change is the report's (frame), not this.",
        input_schema = analysis_schema("pacing")
    )]
    async fn pacing(&self, Parameters(args): Parameters<JsonObject>) -> ToolResult {
        answer(self.analysis("pacing", args).await)
    }

    #[tool(
        description = "Where scope id ID is in the code (name, function, file, line) in recording \
a. Use it to go from a scope to its source.",
        input_schema = analysis_schema("scope")
    )]
    async fn scope(&self, Parameters(args): Parameters<JsonObject>) -> ToolResult {
        answer(self.analysis("scope", args).await)
    }

    #[tool(
        description = "Any other analysis of the CLI by name, with its JSON arguments (the CLI's \
options, `-` written `_`): frames (slowest frames), threads (per-thread totals of a frame), top \
(slowest calls anywhere), find (prefix search; aggregate: totals per name), callers (who calls \
NAME, what it calls), diff (the differential tree of a and b, with transforms). Arguments: \
{name: QUERY, a: id, b?: id, args: {...}, max_bytes?}. Use the dedicated tools for calls, window, \
gaps, tree, children, compare and scope.",
        input_schema = query_schema()
    )]
    async fn query(&self, Parameters(mut args): Parameters<JsonObject>) -> ToolResult {
        let result = async {
            let name = take_string("query", &mut args, "name")?
                .ok_or("bad arguments for query: name: the analysis' name (frames, top, …)")?;
            let mut inner = match args.remove("args") {
                None | Some(Value::Null) => Map::new(),
                Some(Value::Object(m)) => m,
                Some(other) => {
                    return Err(format!("bad arguments for query: args: expected an object, got {other}"));
                }
            };
            for key in ["a", "b", "max_bytes"] {
                if let Some(v) = args.remove(key) {
                    inner.insert(key.to_owned(), v);
                }
            }
            if let Some(k) = args.keys().next() {
                return Err(format!(
                    "bad arguments for query: unknown field {k:?} (the analysis' arguments go in args)"
                ));
            }
            self.analysis(&name, inner).await
        }
        .await;
        answer(result)
    }

    #[tool(
        description = "Record a running app's frames from its puffin_http server (host:port) for \
seconds (default 10, at most 600) or until frames frames arrived, then open the recording (its id \
and summary, as open_recording). output also saves it as a .puffin file. Use it when the app is \
running now; for a file, open_recording.",
        input_schema = schema::<RecordParams>()
    )]
    async fn record(&self, Parameters(args): Parameters<JsonObject>) -> ToolResult {
        let result = async {
            let p: RecordParams = parse("record", args)?;
            let seconds = match (p.seconds, p.frames) {
                (Some(s), _) if !(s > 0.0 && s <= MAX_RECORD_SECONDS) => {
                    return Err(format!(
                        "bad arguments for record: seconds: expected more than 0 and at most \
                         {MAX_RECORD_SECONDS}, got {s}"
                    ));
                }
                (Some(s), _) => s,
                (None, Some(0)) => {
                    return Err("bad arguments for record: frames: expected 1 or more".to_owned());
                }
                (None, Some(_)) => MAX_RECORD_SECONDS,
                (None, None) => 10.0,
            };
            let (addr, frames, output) = (p.addr.clone(), p.frames, p.output.clone());
            let timeout = Duration::from_secs_f64(seconds) + Duration::from_secs(30);
            let decoded = blocking("record", timeout, move || {
                let stop = AtomicBool::new(false);
                let captured = super::live::capture(&addr, frames, Some(seconds), &stop, false)
                    .map_err(|e| format!("{e:#}"))?;
                if let Some(out) = &output {
                    super::write_atomically(std::path::Path::new(out), |w| {
                        use std::io::Write as _;
                        Ok(w.write_all(&captured.bytes)?)
                    })
                    .map_err(|e| format!("{e:#}"))?;
                }
                let mut decoded = engine::load(&captured.bytes).map_err(|e| format!("{e:#}"))?;
                if let Some(why) = captured.broke {
                    decoded.diagnostics.push(engine::Diagnostic {
                        severity: engine::Severity::Damage,
                        record: None,
                        frame_index: None,
                        byte_offset: 0,
                        message: format!("the stream broke: {why}; the frames before it are kept"),
                    });
                }
                Ok(decoded)
            })
            .await?;
            let path = p.output.unwrap_or_else(|| format!("record:{}", p.addr));
            let opened = self.add(path, decoded)?;
            Ok(bound(opened_summary(&opened), DEFAULT_MAX_BYTES, ""))
        }
        .await;
        answer(result)
    }
}

fn query_schema() -> Arc<JsonObject> {
    let names: Vec<Value> = api::query_names().into_iter().map(Value::String).collect();
    let schema = json!({
        "type": "object",
        "properties": {
            "name": {"type": "string", "enum": names, "description": "The analysis (a subcommand of the CLI)."},
            "a": {"type": "string", "description": "The recording's id (\"r1\")."},
            "b": {"type": "string", "description": "The recording after (B), for compare, diff and calls."},
            "args": {"type": "object", "description": "The analysis' arguments as the CLI's --json options, `-` written `_` (e.g. {\"top\": 5}, {\"prefix\": \"draw\", \"aggregate\": true}, {\"name\": \"load_mesh\"} for callers)."},
            "max_bytes": {"type": "integer", "minimum": 1000, "maximum": MAX_MAX_BYTES, "description": "The most bytes of text in the result (default 24000)."}
        },
        "required": ["name", "a"],
        "additionalProperties": false,
    });
    match schema {
        Value::Object(m) => Arc::new(m),
        _ => Arc::default(),
    }
}

#[prompt_router]
impl Lens {
    #[prompt(
        name = "investigate_pair",
        description = "Investigate a before/after pair of .puffin recordings: what changed, what \
kind of change, and why the frame is slow."
    )]
    async fn investigate_pair(&self, Parameters(p): Parameters<PairParams>) -> GetPromptResult {
        let text = format!(
            "Investigate this before/after pair of puffin recordings with the puffin-lens tools.\n\n\
A (before): {a}\nB (after): {b}\n\n\
1. open_recording each (A first): read the notes (registration, one frame, frames left out, \
damage) and say anything unusual first.\n\
2. report {{a: A's id, b: B's id}}: quote comparison.look_first; give the frame's change \
(frame.lead says whether the median or the mean leads), the drift (never call the drift a \
regression), and each changed name with its kind (slower per call, runs more often, spike, new, \
gone); the changed gaps by their sentence. Names not listed are unchanged within noise.\n\
3. Back the main per-call claim with calls {{a, b, name}}, and look into the largest new or grown \
gap with window {{a: B's id, lo, hi}} (a gap's start and end from report section \
\"recordings.1.gaps\" or gaps {{a: B's id}}).\n\
4. Answer: what changed, of which kind, what it costs per frame, and where to look in the code \
(scope {{a, id}}).",
            a = p.a,
            b = p.b
        );
        GetPromptResult::new(vec![PromptMessage::new_text(Role::User, text)])
    }
}

/// The server's instructions: how to use the tools, then docs/agents.md's
/// kinds of change and rules of thumb.
fn instructions() -> String {
    let section = |title: &str| -> &str {
        let start = AGENTS_MD.find(title).unwrap_or(AGENTS_MD.len());
        let rest = &AGENTS_MD[start..];
        let end = rest[title.len()..]
            .find("\n## ")
            .map_or(rest.len(), |e| e + title.len() + 1);
        &rest[..end]
    };
    format!(
        "puffin-lens answers \"why is this frame slow?\" and \"what changed between these two \
captures?\" from .puffin recordings (apps instrumented with the puffin crate). The judgement \
calls (noise or change, which kind of change, what is unprofiled and what ran meanwhile) are made \
by the tool: read them, do not redo them.\n\n\
Start here: open_recording each file (before first: it is A), then report {{a, b}} (or {{a}} for \
one recording). Quote comparison.look_first. Registration first: with no registration every name \
is scope#<id>. Then, only to back a per-call claim or to look into one gap: calls {{a, b, name}}, \
window {{a, lo, hi}}. The rest (tree, children, gaps, compare, scope, query) answers details; \
each answer is the CLI's --json for the same question, cut to max_bytes with a note saying what \
was cut. Durations are nanoseconds (_ns), timestamps epoch nanoseconds, *_rel_ms milliseconds \
since the recording's start. The whole guide is the resource {AGENTS_MD_URI}.\n\n{}\n{}",
        section("## Kinds of change"),
        section("## Rules of thumb"),
    )
}

#[tool_handler(router = self.tool_router)]
#[prompt_handler(router = self.prompt_router)]
impl ServerHandler for Lens {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_prompts()
                .enable_resources()
                .build(),
        )
        .with_server_info(Implementation::new(
            "puffin-lens",
            env!("CARGO_PKG_VERSION"),
        ))
        .with_instructions(instructions())
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        Ok(ListResourcesResult::with_all_items(vec![
            Resource::new(AGENTS_MD_URI, "agents.md")
                .with_title("Investigating a puffin recording with puffin-lens")
                .with_description(
                    "The investigation's guide: which keys of the report to read, in which \
                     order, the kinds of change and the rules of thumb.",
                )
                .with_mime_type("text/markdown"),
        ]))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        if request.uri == AGENTS_MD_URI {
            Ok(
                ReadResourceResult::new(vec![ResourceContents::text(AGENTS_MD, request.uri)])
                    .into(),
            )
        } else {
            Err(ErrorData::resource_not_found(
                format!("no resource {:?} (there is {AGENTS_MD_URI})", request.uri),
                None,
            ))
        }
    }
}
