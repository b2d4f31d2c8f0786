//! The analysis subcommands: each runs one engine query and prints it as an
//! aligned table, or as JSON with `--json`.

use super::text::{Align, Table, ms, ms_f};
use super::{EXIT_BAD_INPUT, EXIT_DAMAGED, EXIT_OK, load, status};
use clap::{Args, Subcommand, ValueEnum};
use puffin_lens::engine::Trace;
use puffin_lens::engine::query::{self, CompareOptions, CompareSort, Field, FindFilter, GroupBy};
use puffin_lens::units::thread_label;
use serde::Serialize;
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::PathBuf;

use Align::{Left, Right};

#[derive(Args)]
pub(super) struct Common {
    /// The recording: a .puffin file or a JSON dump.
    file: PathBuf,
    /// Print JSON instead of a table.
    #[arg(long)]
    json: bool,
}

#[derive(Subcommand)]
pub(super) enum Analysis {
    /// Frames, slowest first: bad frames stand out.
    #[command(
        after_help = "Examples:\n  puffin-lens frames capture.puffin --top 5\n  \
puffin-lens frames capture.puffin --json | jq '.[0].frame_index'\n\n\
JSON: [{\"frame_index\",\"duration_ns\",\"num_scopes\"}], slowest first, ties in file order."
    )]
    Frames {
        #[command(flatten)]
        common: Common,
        /// Show at most N frames.
        #[arg(long, value_name = "N")]
        top: Option<usize>,
    },
    /// Per-thread totals of one frame (default: the slowest).
    #[command(after_help = "Examples:\n  puffin-lens threads capture.puffin\n  \
puffin-lens threads capture.puffin --frame 42\n\n\
JSON: [{\"name\",\"num_scopes\",\"depth\",\"range_ns\",\"span_ns\"}] in stored order.")]
    Threads {
        #[command(flatten)]
        common: Common,
        /// The frame with this frame_index (the first one after a restart).
        #[arg(long, value_name = "I")]
        frame: Option<u64>,
    },
    /// The slowest scope instances of the whole recording.
    #[command(after_help = "Examples:\n  puffin-lens top capture.puffin\n  \
puffin-lens top capture.puffin --top 50 --json\n\n\
JSON: [{\"name\",\"data\",\"duration_ns\",\"start_ns\",\"thread\",\"frame_index\",\"id\"}], \
slowest first, ties by earlier start.")]
    Top {
        #[command(flatten)]
        common: Common,
        /// How many instances.
        #[arg(long, value_name = "N", default_value_t = 10)]
        top: usize,
    },
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
    Find {
        #[command(flatten)]
        common: Common,
        /// Prefix of the name or data; empty or absent matches every scope.
        #[arg(default_value = "")]
        prefix: String,
        /// Which field the prefix applies to.
        #[arg(long, value_enum, default_value_t = FieldArg::Any)]
        field: FieldArg,
        /// Only scopes on threads with this name.
        #[arg(long, value_name = "T")]
        thread: Option<String>,
        /// Only scopes of the frame(s) with this frame_index.
        #[arg(long, value_name = "I")]
        frame: Option<u64>,
        /// How many rows.
        #[arg(long, value_name = "N", default_value_t = 20)]
        top: usize,
        /// Group the matches and total them.
        #[arg(long)]
        aggregate: bool,
        /// Grouping for --aggregate.
        #[arg(long, value_enum, default_value_t = ByArg::NameData, requires = "aggregate")]
        by: ByArg,
    },
    /// The children of the slowest instance named NAME, with the gaps between them.
    #[command(
        after_help = "Examples:\n  puffin-lens children capture.puffin frame_body\n  \
puffin-lens children capture.puffin frame_body --ordered   # time order, gaps in place\n\n\
NAME matches a scope name or a data string exactly.\n\
JSON: {\"parent\":{\"name\",\"data\",\"start_ns\",\"duration_ns\",\"thread\",\"frame_index\"},\
\"children\":[{\"name\",\"data\",\"start_ns\",\"duration_ns\",\"gap_before_ns\"}],\"trailing_gap_ns\"}"
    )]
    Children {
        #[command(flatten)]
        common: Common,
        /// Scope name or data string.
        name: String,
        /// List children in time order instead of slowest first.
        #[arg(long)]
        ordered: bool,
    },
    /// Every call of NAME with its duration: check outliers before averages.
    #[command(
        after_help = "Examples:\n  puffin-lens calls capture.puffin load_mesh\n  \
puffin-lens calls capture.puffin load_mesh --json | jq .summary\n\n\
JSON: {\"summary\":{\"count\",\"total_ns\",\"min_ns\",\"median_ns\",\"mean_ns\",\"p95_ns\",\"max_ns\",\"max_share\"},\
\"calls\":[{\"frame_index\",\"thread\",\"start_ns\",\"duration_ns\",\"data\"}]} in time order; \
median is the lower median, p95 the nearest rank."
    )]
    Calls {
        #[command(flatten)]
        common: Common,
        /// Scope name or data string.
        name: String,
    },
    /// What ran on each thread inside a time window [LO, HI] (absolute ns).
    #[command(
        after_help = "Examples:\n  puffin-lens window capture.puffin 1795967542870000000 1795967542875000000\n\n\
Take LO and HI from the start_ns/end_ns of `gaps`, `top` or `children`.\n\
JSON: [{\"thread\",\"count\",\"top\":[{\"name\",\"data\",\"duration_ns\"}]}] by thread name."
    )]
    Window {
        #[command(flatten)]
        common: Common,
        /// Window start, absolute nanoseconds.
        #[arg(allow_negative_numbers = true)]
        lo: i64,
        /// Window end, absolute nanoseconds.
        #[arg(allow_negative_numbers = true)]
        hi: i64,
        /// Slowest scopes to show per thread.
        #[arg(long, value_name = "N", default_value_t = 5)]
        top: usize,
    },
    /// Unprofiled gaps between consecutive child scopes, and what other threads did then.
    #[command(
        after_help = "Examples:\n  puffin-lens gaps capture.puffin --thread main\n  \
puffin-lens gaps capture.puffin --min-ms 0.5 --json\n\n\
JSON: [{\"thread\",\"frame_index\",\"parent\",\"after\",\"before\",\"start_ns\",\"end_ns\",\
\"duration_ns\",\"other_threads\":[{\"thread\",\"busy_ns\"}]}], longest first; other_threads \
are looked up across all frames, most busy first."
    )]
    Gaps {
        #[command(flatten)]
        common: Common,
        /// Only gaps on threads with this name.
        #[arg(long, value_name = "T")]
        thread: Option<String>,
        /// Shortest gap to report, in milliseconds.
        #[arg(long, value_name = "X", default_value_t = 1.0)]
        min_ms: f64,
    },
    /// Compare two recordings per (name, data): what got slower, what is new or gone.
    #[command(
        after_help = "Examples:\n  puffin-lens compare before.puffin after.puffin\n  \
puffin-lens compare before.puffin after.puffin --filter physics --hide-below 0.5\n  \
puffin-lens compare before.puffin after.puffin --sort per-call --json\n\n\
Sorts: delta = |B-A| of total time (default); total = larger total; per-call = |B-A| of the \
per-call time (one-sided rows last); count = larger count; name. Ties by name then data.\n\
JSON: {\"warnings\":[...],\"rows\":[{\"name\",\"data\",\"a\":{\"count\",\"total_ns\",\"per_call_ns\",\
\"max_ns\"}|null,\"b\":{...}|null,\"delta_total_ns\",\"delta_per_call_ns\"|null,\
\"status\":\"both\"|\"new\"|\"gone\",\"spike\"}]}"
    )]
    Compare {
        /// The "before" recording.
        a: PathBuf,
        /// The "after" recording.
        b: PathBuf,
        /// Print JSON instead of a table.
        #[arg(long)]
        json: bool,
        /// How many rows.
        #[arg(long, value_name = "N", default_value_t = 50)]
        top: usize,
        /// Keep rows whose name or data starts with P.
        #[arg(long, value_name = "P")]
        filter: Option<String>,
        /// Hide rows under MS milliseconds of total time in both recordings.
        #[arg(long, value_name = "MS")]
        hide_below: Option<f64>,
        /// Row order.
        #[arg(long, value_enum, default_value_t = SortArg::Delta)]
        sort: SortArg,
    },
    /// The source location of a scope id (function, file, line), from the registration.
    #[command(after_help = "Examples:\n  puffin-lens scope capture.puffin 3\n\n\
JSON: {\"id\",\"name\",\"function\",\"file\",\"line\",\"kind\"}; exit 1 when the id is not registered.")]
    Scope {
        #[command(flatten)]
        common: Common,
        /// The scope id (the \"id\" of a scope in the export).
        id: u32,
    },
}

#[derive(Clone, Copy, ValueEnum)]
pub(super) enum FieldArg {
    Any,
    Name,
    Data,
}

#[derive(Clone, Copy, ValueEnum)]
pub(super) enum ByArg {
    NameData,
    Name,
}

#[derive(Clone, Copy, ValueEnum)]
pub(super) enum SortArg {
    Delta,
    Total,
    PerCall,
    Count,
    Name,
}

/// Prints `value` as JSON, or the text `render` builds.
fn emit<T: Serialize>(
    json: bool,
    value: &T,
    render: impl FnOnce(&mut String),
) -> anyhow::Result<()> {
    let mut out = if json {
        serde_json::to_string(value)?
    } else {
        let mut text = String::new();
        render(&mut text);
        text
    };
    if json {
        out.push('\n');
    }
    let mut stdout = std::io::stdout().lock();
    stdout.write_all(out.as_bytes())?;
    stdout.flush()?;
    Ok(())
}

/// One line on stderr and exit 1: the question has no answer in this recording.
fn not_found(msg: String) -> anyhow::Result<i32> {
    eprintln!("puffin-lens: {msg}");
    Ok(EXIT_BAD_INPUT)
}

impl Analysis {
    pub fn run(self) -> anyhow::Result<i32> {
        match self {
            Analysis::Compare {
                a,
                b,
                json,
                top,
                filter,
                hide_below,
                sort,
            } => {
                let da = load(&a)?;
                let db = load(&b)?;
                let opts = CompareOptions {
                    top,
                    filter,
                    hide_below_ns: hide_below.map_or(0, |ms| (ms * 1e6).round() as i64),
                    sort: match sort {
                        SortArg::Delta => CompareSort::Delta,
                        SortArg::Total => CompareSort::Total,
                        SortArg::PerCall => CompareSort::PerCall,
                        SortArg::Count => CompareSort::Count,
                        SortArg::Name => CompareSort::Name,
                    },
                };
                let report = query::compare(&da.trace, &db.trace, &opts);
                emit(json, &report, |out| render_compare(out, &report))?;
                Ok(if da.is_damaged() || db.is_damaged() {
                    EXIT_DAMAGED
                } else {
                    EXIT_OK
                })
            }
            other => {
                let common = other.common();
                let decoded = load(&common.file)?;
                let json = common.json;
                match other.answer(&decoded.trace, json)? {
                    Some(msg) => not_found(format!("{}: {msg}", common.file.display())),
                    None => Ok(status(&decoded)),
                }
            }
        }
    }

    fn common(&self) -> &Common {
        match self {
            Analysis::Frames { common, .. }
            | Analysis::Threads { common, .. }
            | Analysis::Top { common, .. }
            | Analysis::Find { common, .. }
            | Analysis::Children { common, .. }
            | Analysis::Calls { common, .. }
            | Analysis::Window { common, .. }
            | Analysis::Gaps { common, .. }
            | Analysis::Scope { common, .. } => common,
            Analysis::Compare { .. } => unreachable!("compare has two files"),
        }
    }

    /// Prints the answer; `Some(message)` when there is none.
    fn answer(&self, trace: &Trace, json: bool) -> anyhow::Result<Option<String>> {
        match self {
            Analysis::Frames { top, .. } => {
                let rows = query::frames(trace, *top);
                emit(json, &rows, |out| {
                    let mut t = Table::new(&[("frame", Right), ("ms", Right), ("scopes", Right)]);
                    for r in &rows {
                        t.row(vec![
                            r.frame_index.to_string(),
                            ms(r.duration_ns),
                            r.num_scopes.to_string(),
                        ]);
                    }
                    t.render(out);
                })?;
            }
            Analysis::Threads { frame, .. } => {
                let f = match frame {
                    Some(i) => match query::frame_by_index(trace, *i) {
                        Some(f) => f,
                        None => return Ok(Some(format!("no frame with frame_index {i}"))),
                    },
                    None => match query::slowest_frame(trace) {
                        Some(f) => f,
                        None => return Ok(Some("the recording has no frames".to_owned())),
                    },
                };
                let rows = query::threads(trace, f);
                emit(json, &rows, |out| {
                    let _ = writeln!(
                        out,
                        "frame {} ({} ms)",
                        trace.frames.frame_index[f.idx()],
                        ms(trace.frames.duration_ns(f))
                    );
                    let mut t = Table::new(&[
                        ("thread", Left),
                        ("scopes", Right),
                        ("depth", Right),
                        ("span ms", Right),
                        ("start_ns", Right),
                    ]);
                    for r in &rows {
                        t.row(vec![
                            thread_label(&r.name).to_owned(),
                            r.num_scopes.to_string(),
                            r.depth.to_string(),
                            ms(r.span_ns),
                            if r.num_scopes == 0 {
                                "-".into()
                            } else {
                                r.range_ns.0.to_string()
                            },
                        ]);
                    }
                    t.render(out);
                })?;
            }
            Analysis::Top { top, .. } => {
                let rows = query::top(trace, *top);
                emit(json, &rows, |out| render_instances(out, &rows))?;
            }
            Analysis::Find {
                prefix,
                field,
                thread,
                frame,
                top,
                aggregate,
                by,
                ..
            } => {
                let filter = FindFilter {
                    prefix: prefix.clone(),
                    field: match field {
                        FieldArg::Any => Field::Any,
                        FieldArg::Name => Field::Name,
                        FieldArg::Data => Field::Data,
                    },
                    thread: thread.clone(),
                    frame_index: *frame,
                    frame_position: None,
                };
                if *aggregate {
                    let by = match by {
                        ByArg::NameData => GroupBy::NameData,
                        ByArg::Name => GroupBy::Name,
                    };
                    let rows = query::aggregate(trace, &filter, by, *top);
                    emit(json, &rows, |out| {
                        let mut headers = vec![("name", Left)];
                        if by == GroupBy::NameData {
                            headers.push(("data", Left));
                        }
                        headers.extend([
                            ("count", Right),
                            ("total ms", Right),
                            ("self ms", Right),
                            ("mean ms", Right),
                            ("min ms", Right),
                            ("max ms", Right),
                        ]);
                        let mut t = Table::new(&headers);
                        for r in &rows {
                            let mut cells = vec![r.name.clone()];
                            if let Some(data) = &r.data {
                                cells.push(data.clone());
                            }
                            cells.extend([
                                r.count.to_string(),
                                ms(r.total_ns),
                                ms(r.self_ns),
                                ms_f(r.mean_ns),
                                ms(r.min_ns),
                                ms(r.max_ns),
                            ]);
                            t.row(cells);
                        }
                        t.render(out);
                    })?;
                } else {
                    let rows = query::find(trace, &filter, *top);
                    emit(json, &rows, |out| render_instances(out, &rows))?;
                }
            }
            Analysis::Children { name, ordered, .. } => {
                let Some(report) = query::children(trace, name, *ordered) else {
                    return Ok(Some(query::no_scope_named(name)));
                };
                emit(json, &report, |out| {
                    let p = &report.parent;
                    let _ = writeln!(
                        out,
                        "{}{} — {} ms on thread {:?}, frame {}, start_ns {}",
                        p.name,
                        if p.data.is_empty() {
                            String::new()
                        } else {
                            format!(" [{}]", p.data)
                        },
                        ms(p.duration_ns),
                        p.thread,
                        p.frame_index,
                        p.start_ns
                    );
                    let mut t = Table::new(&[
                        ("name", Left),
                        ("data", Left),
                        ("ms", Right),
                        ("gap before ms", Right),
                        ("start_ns", Right),
                    ]);
                    for c in &report.children {
                        t.row(vec![
                            c.name.clone(),
                            c.data.clone(),
                            ms(c.duration_ns),
                            ms(c.gap_before_ns),
                            c.start_ns.to_string(),
                        ]);
                    }
                    t.render(out);
                    let covered: i64 = report.children.iter().map(|c| c.duration_ns).sum();
                    let _ = writeln!(
                        out,
                        "trailing gap {} ms; children cover {} of {} ms ({} unprofiled)",
                        ms(report.trailing_gap_ns),
                        ms(covered),
                        ms(p.duration_ns),
                        ms((p.duration_ns - covered).max(0))
                    );
                })?;
            }
            Analysis::Calls { name, .. } => {
                let Some(report) = query::calls(trace, name) else {
                    return Ok(Some(query::no_scope_named(name)));
                };
                emit(json, &report, |out| {
                    let s = &report.summary;
                    let _ = writeln!(
                        out,
                        "{} calls, total {} ms: min {} | median {} | mean {} | p95 {} | max {} ms",
                        s.count,
                        ms(s.total_ns),
                        ms(s.min_ns),
                        ms(s.median_ns),
                        ms_f(s.mean_ns),
                        ms(s.p95_ns),
                        ms(s.max_ns)
                    );
                    if s.count >= 2 && s.max_share > 0.5 {
                        let _ = writeln!(
                            out,
                            "spike: 1 call is {:.0}% of the total; the mean ({} ms) is {:.1}x the median ({} ms)",
                            s.max_share * 100.0,
                            ms_f(s.mean_ns),
                            if s.median_ns > 0 {
                                s.mean_ns / s.median_ns as f64
                            } else {
                                f64::INFINITY
                            },
                            ms(s.median_ns)
                        );
                    }
                    let mut t = Table::new(&[
                        ("frame", Right),
                        ("thread", Left),
                        ("ms", Right),
                        ("data", Left),
                        ("start_ns", Right),
                    ]);
                    for c in &report.calls {
                        t.row(vec![
                            c.frame_index.to_string(),
                            c.thread.clone(),
                            ms(c.duration_ns),
                            c.data.clone(),
                            c.start_ns.to_string(),
                        ]);
                    }
                    t.render(out);
                })?;
            }
            Analysis::Window { lo, hi, top, .. } => {
                let rows = query::window(trace, *lo, *hi, *top);
                emit(json, &rows, |out| {
                    let _ = writeln!(out, "window {lo}..{hi} ns ({} ms)", ms(hi - lo));
                    let mut t = Table::new(&[
                        ("thread", Left),
                        ("scopes", Right),
                        ("name", Left),
                        ("data", Left),
                        ("ms", Right),
                    ]);
                    for r in &rows {
                        for (k, s) in r.top.iter().enumerate() {
                            let first = k == 0;
                            t.row(vec![
                                if first {
                                    r.thread.clone()
                                } else {
                                    String::new()
                                },
                                if first {
                                    r.count.to_string()
                                } else {
                                    String::new()
                                },
                                s.name.clone(),
                                s.data.clone(),
                                ms(s.duration_ns),
                            ]);
                        }
                    }
                    t.render(out);
                })?;
            }
            Analysis::Gaps { thread, min_ms, .. } => {
                let min_ns = (min_ms * 1e6).round() as i64;
                let rows = query::gaps(trace, thread.as_deref(), min_ns);
                emit(json, &rows, |out| {
                    if rows.is_empty() {
                        let _ = writeln!(out, "no gap of at least {min_ms} ms");
                        return;
                    }
                    let mut t = Table::new(&[
                        ("ms", Right),
                        ("thread", Left),
                        ("frame", Right),
                        ("in", Left),
                        ("after", Left),
                        ("before", Left),
                        ("meanwhile (busy ms)", Left),
                        ("start_ns", Right),
                    ]);
                    for g in &rows {
                        let others: Vec<String> = g
                            .other_threads
                            .iter()
                            .map(|o| format!("{} {}", thread_label(&o.thread), ms(o.busy_ns)))
                            .collect();
                        t.row(vec![
                            ms(g.duration_ns),
                            g.thread.clone(),
                            g.frame_index.to_string(),
                            g.parent.name.clone(),
                            g.after.name.clone(),
                            g.before.name.clone(),
                            if others.is_empty() {
                                "idle".into()
                            } else {
                                others.join(", ")
                            },
                            g.start_ns.to_string(),
                        ]);
                    }
                    t.render(out);
                })?;
            }
            Analysis::Scope { id, .. } => {
                let Some(info) = query::scope(trace, *id) else {
                    return Ok(Some(if trace.defs.has_registration() {
                        format!("scope id {id} is not registered in this recording")
                    } else {
                        format!("scope id {id}: the recording has no scope registration")
                    }));
                };
                emit(json, &info, |out| {
                    let _ = writeln!(out, "{} ({} scope, id {})", info.name, info.kind, info.id);
                    if !info.function.is_empty() {
                        let _ = writeln!(out, "  in {}", info.function);
                    }
                    let _ = if info.line > 0 {
                        writeln!(out, "  at {}:{}", info.file, info.line)
                    } else {
                        writeln!(out, "  at {}", info.file)
                    };
                })?;
            }
            Analysis::Compare { .. } => unreachable!("handled in run"),
        }
        Ok(None)
    }
}

fn render_instances(out: &mut String, rows: &[query::InstanceRow]) {
    let mut t = Table::new(&[
        ("ms", Right),
        ("name", Left),
        ("data", Left),
        ("thread", Left),
        ("frame", Right),
        ("id", Right),
        ("start_ns", Right),
    ]);
    for r in rows {
        t.row(vec![
            ms(r.duration_ns),
            r.name.clone(),
            r.data.clone(),
            r.thread.clone(),
            r.frame_index.to_string(),
            r.id.to_string(),
            r.start_ns.to_string(),
        ]);
    }
    t.render(out);
}

fn render_compare(out: &mut String, report: &query::CompareReport) {
    for w in &report.warnings {
        let _ = writeln!(out, "warning: {w}");
    }
    let mut t = Table::new(&[
        ("name", Left),
        ("data", Left),
        ("A n", Right),
        ("A ms", Right),
        ("A ms/call", Right),
        ("B n", Right),
        ("B ms", Right),
        ("B ms/call", Right),
        ("Δ ms", Right),
        ("Δ ms/call", Right),
        ("", Left),
    ]);
    let side = |s: &Option<query::SideStats>| match s {
        Some(s) => [s.count.to_string(), ms(s.total_ns), ms_f(s.per_call_ns)],
        None => ["-".into(), "-".into(), "-".into()],
    };
    for r in &report.rows {
        let [an, at, ap] = side(&r.a);
        let [bn, bt, bp] = side(&r.b);
        let mut note = match r.status {
            query::Status::Both => String::new(),
            query::Status::New => "new".into(),
            query::Status::Gone => "gone".into(),
        };
        if r.spike {
            if !note.is_empty() {
                note.push(' ');
            }
            note.push_str("spike");
        }
        t.row(vec![
            r.name.clone(),
            r.data.clone(),
            an,
            at,
            ap,
            bn,
            bt,
            bp,
            format!("{:+.3}", r.delta_total_ns as f64 / 1e6),
            r.delta_per_call_ns
                .map_or("-".into(), |d| format!("{:+.3}", d / 1e6)),
            note,
        ]);
    }
    t.render(out);
}
