//! The analysis subcommands: each parses an engine [`Request`] (declared
//! once in `engine::api`, with its `--help`), answers it with
//! [`api::answer`] and prints the [`Answer`] as an aligned table, or as JSON
//! with `--json`. Adding an analysis touches the query, its request and
//! [`render`] here, nothing else.

use super::text::{Align, Table, cell, ms, ms_f, printable, write_columns};
use super::{EXIT_BAD_INPUT, EXIT_DAMAGED, EXIT_INCONCLUSIVE, EXIT_OK, EXIT_REGRESSION};
use clap::{Arg, ArgAction, ArgMatches, Command, FromArgMatches as _, Subcommand as _};
use puffin_lens::engine::analyses::diff::{DiffReport, DiffRow};
use puffin_lens::engine::analyses::tree::{TreeReport, TreeRow};
use puffin_lens::engine::analyses::{self, GroupBy};
use puffin_lens::engine::api::{self, Answer, QueryError, Request};
use puffin_lens::units::thread_label;
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::PathBuf;

use Align::{Left, Right};

/// Adds every analysis to `cli` as a subcommand: the request's own
/// arguments after the recording(s) (`FILE`, or `A B` to compare) and
/// `--json`.
pub(super) fn add_subcommands(cli: Command) -> Command {
    let requests = Request::augment_subcommands(Command::new("requests"));
    let mut cli = cli;
    for sub in requests.get_subcommands() {
        let mut cmd = Command::new(sub.get_name().to_owned());
        if let Some(about) = sub.get_about() {
            cmd = cmd.about(about.clone());
        }
        if let Some(about) = sub.get_long_about() {
            cmd = cmd.long_about(about.clone());
        }
        if let Some(after) = sub.get_after_help() {
            cmd = cmd.after_help(after.clone());
        }
        let compares = api::needs_b(sub.get_name());
        if sub.get_name() == "pacing" {
            cmd = cmd
                .arg(
                    Arg::new("a")
                        .value_name("FILE")
                        .required(true)
                        .num_args(1..)
                        .value_parser(clap::value_parser!(PathBuf))
                        .help(
                            "The recording; or A then B to compare them; with --vs, every \
                             recording of A (several runs of the same code)",
                        ),
                )
                .override_usage(
                    "puffin-lens pacing [OPTIONS] <FILE>\n       \
                     puffin-lens pacing [OPTIONS] <A> <B>\n       \
                     puffin-lens pacing [OPTIONS] <A>... --vs <B>...",
                )
                .arg(vs_arg());
        } else if compares {
            // `A B`, or several runs a side: `A1 A2 --vs B1 B2`.
            cmd = cmd
                .arg(
                    Arg::new("a")
                        .value_name("A")
                        .required(true)
                        .num_args(1..)
                        .value_parser(clap::value_parser!(PathBuf))
                        .help(
                            "The \"before\" recording (A), then the \"after\" one (B); with --vs, \
                             every recording of A (several runs of the same code)",
                        ),
                )
                .override_usage(format!(
                    "puffin-lens {0} [OPTIONS] <A> <B>\n       \
                     puffin-lens {0} [OPTIONS] <A>... --vs <B>...",
                    sub.get_name()
                ));
        } else {
            cmd = cmd.arg(
                Arg::new("file")
                    .value_name("FILE")
                    .required(true)
                    .value_parser(clap::value_parser!(PathBuf))
                    .help("The recording: a .puffin file or a JSON dump"),
            );
        }
        if compares || sub.get_name() == "calls" {
            cmd = cmd.arg(vs_arg());
        }
        cmd = cmd.args(
            sub.get_arguments()
                .filter(|a| a.get_id() != "help")
                .map(|a| {
                    if sub.get_name() == "calls" && a.get_id() == "name" {
                        // With --vs, NAME comes last (after B's runs).
                        a.clone().required(false).default_value("")
                    } else {
                        a.clone()
                    }
                }),
        );
        if sub.get_name() == "calls" {
            // `calls A B NAME`: the second recording comes before the name;
            // `calls A1 A2 --vs B1 B2 NAME`: the runs of A, then --vs.
            cmd = cmd
                .override_usage(
                    "puffin-lens calls [OPTIONS] <FILE> <NAME>\n       \
                     puffin-lens calls [OPTIONS] <A> <B> <NAME>\n       \
                     puffin-lens calls [OPTIONS] <A>... --vs <B>... <NAME>",
                )
                .arg(
                    Arg::new("name_after_b")
                        .value_name("NAME")
                        .hide(true)
                        .num_args(0..)
                        .help("With A and B: the scope name"),
                );
        }
        cmd = cmd.arg(
            Arg::new("json")
                .long("json")
                .action(ArgAction::SetTrue)
                .help("Print JSON instead of a table"),
        );
        cli = cli.subcommand(cmd);
    }
    cli
}

/// `--vs B...`: the recordings of B, when a side has several runs.
fn vs_arg() -> Arg {
    Arg::new("vs")
        .long("vs")
        .value_name("B")
        .num_args(1..)
        .value_parser(clap::value_parser!(PathBuf))
        .help(
            "Several runs a side: the recordings before --vs are A's, these are B's (runs of \
             the same code; the noise model then uses the spread between each side's runs)",
        )
}

/// A usage error (exit 2) with `msg`, worded as clap words its own.
fn usage(msg: &str) -> anyhow::Result<i32> {
    eprintln!("error: {msg}\n\nFor more information, try '--help'.");
    Ok(super::EXIT_USAGE)
}

/// Whether `name` is an analysis subcommand.
pub(super) fn is_analysis(name: &str) -> bool {
    Request::has_subcommand(name)
}

/// Runs the analysis subcommand in `matches` (the top-level matches).
pub(super) fn run(matches: &ArgMatches) -> anyhow::Result<i32> {
    let mut request = Request::from_arg_matches(matches)?;
    let Some((_, sub)) = matches.subcommand() else {
        anyhow::bail!("no subcommand");
    };
    let json = sub.get_flag("json");
    let paths = |id: &str| -> Vec<PathBuf> {
        sub.get_many::<PathBuf>(id)
            .map(|v| v.cloned().collect())
            .unwrap_or_default()
    };
    let vs: Option<Vec<PathBuf>> = sub
        .try_get_many::<PathBuf>("vs")
        .ok()
        .flatten()
        .map(|v| v.cloned().collect());
    // The sides' recordings: `A B`, `A1 A2 --vs B1 B2`, or one recording.
    let needs_b = request.needs_b();
    let sides: (Vec<PathBuf>, Option<Vec<PathBuf>>) = match &mut request {
        Request::Calls(args) => {
            let mut positional = paths("file");
            positional.push(PathBuf::from(&args.name));
            positional.extend(
                sub.get_many::<String>("name_after_b")
                    .into_iter()
                    .flatten()
                    .map(PathBuf::from),
            );
            positional.retain(|p| !p.as_os_str().is_empty());
            match vs {
                // `calls A... --vs B... NAME`: the name is the last value.
                Some(mut b) => {
                    let (Some(name), false) = (b.pop(), b.is_empty()) else {
                        return usage(
                            "calls A... --vs B... NAME: give B's recordings, then the scope name",
                        );
                    };
                    args.name = name.to_string_lossy().into_owned();
                    args.compare = true;
                    (positional, Some(b))
                }
                None => match positional.len() {
                    2 => {
                        args.name = positional[1].to_string_lossy().into_owned();
                        (positional[..1].to_vec(), None)
                    }
                    // `calls A B NAME`: what parsed as the name is B.
                    3 => {
                        args.name = positional[2].to_string_lossy().into_owned();
                        args.compare = true;
                        (positional[..1].to_vec(), Some(positional[1..2].to_vec()))
                    }
                    _ => {
                        return usage(
                            "calls FILE NAME, calls A B NAME or calls A... --vs B... NAME",
                        );
                    }
                },
            }
        }
        Request::Pacing(args) => {
            let a = paths("a");
            match (vs, a.len()) {
                (Some(b), _) => {
                    args.compare = true;
                    (a, Some(b))
                }
                (None, 1) if args.fail_on_p99.is_some() || args.fail_on_low.is_some() => {
                    eprintln!(
                        "puffin-lens: error: --fail-on-p99 and --fail-on-low compare two \
                         recordings: give B too"
                    );
                    return Ok(super::EXIT_USAGE);
                }
                (None, 1) => (a, None),
                (None, 2) => {
                    args.compare = true;
                    (a[..1].to_vec(), Some(a[1..].to_vec()))
                }
                (None, _) => {
                    return usage(
                        "pacing FILE, pacing A B, or pacing A... --vs B... (several runs a side)",
                    );
                }
            }
        }
        other if needs_b => {
            let a = paths("a");
            match vs {
                Some(b) => (a, Some(b)),
                None if a.len() == 2 => (a[..1].to_vec(), Some(a[1..].to_vec())),
                None => {
                    return usage(&format!(
                        "{} compares <A> with <B>: give two recordings, or <A>... --vs <B>... \
                         (several runs a side)",
                        other.name()
                    ));
                }
            }
        }
        _ => (paths("file"), None),
    };
    if let Request::Calls(args) = &request
        && args.compare
        && args.by_child.is_some()
    {
        return usage(
            "--by-child breaks down one recording's calls: calls FILE NAME --by-child CHILD",
        );
    }
    let file = super::side_name(&sides.0);
    let file_b = sides.1.as_deref().map(super::side_name);
    let (a, b) = super::load_sides(&sides.0, sides.1.as_deref())?;
    let damaged = a.is_damaged() || b.as_ref().is_some_and(|b| b.is_damaged());
    match api::answer(&request, &a.trace, b.as_ref().map(|b| &b.trace)) {
        Ok(answer) => {
            let mut out = std::io::BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
            if json {
                serde_json::to_writer(&mut out, &answer.with_rel_times(&a.trace))?;
                out.write_all(b"\n")?;
                if let Some(note) = cut_note(&request, &answer) {
                    eprintln!("puffin-lens: {file}: {note}");
                }
            } else {
                match &answer {
                    Answer::Tree(report) => write_tree(&mut out, report)?,
                    Answer::Diff(report) => write_diff(&mut out, report)?,
                    _ => out.write_all(
                        render(&request, &answer, a.trace.recording_start_ns()).as_bytes(),
                    )?,
                }
            }
            out.flush()?;
            let (gate, tail) = match &answer {
                Answer::Compare(r) => (r.gate.as_ref(), r.tail_gate.as_ref()),
                Answer::Pacing(r) => (None, r.gate.as_ref()),
                _ => (None, None),
            };
            Ok(if let Some(status) = gate_status(gate, tail) {
                status
            } else if damaged {
                EXIT_DAMAGED
            } else {
                EXIT_OK
            })
        }
        // One line on stderr and exit 1: the question has no answer here.
        Err(QueryError::NotFound(msg)) => {
            eprintln!("puffin-lens: {file}: {msg}");
            Ok(EXIT_BAD_INPUT)
        }
        // A usage error (exit 2, see `super::report`), naming the
        // recording(s) it was asked of.
        Err(QueryError::UnknownThread(err)) => Err(anyhow::Error::new(err).context(match file_b {
            Some(pb) => format!("{file} and {pb}"),
            None => file,
        })),
        Err(err) => Err(err.into()),
    }
}

/// The answer as an aligned table; its points in time as milliseconds
/// since `start_ns`, the recording's start ([`at`]).
fn render(request: &Request, answer: &Answer, start_ns: i64) -> String {
    let mut out = String::new();
    match answer {
        Answer::Frames {
            rows,
            total,
            absent,
        } => {
            if let Some(note) = absent {
                let _ = writeln!(
                    out,
                    "note: the capture kept only some frames ({note}): puffin's FrameView keeps \
                     the recent and the slowest, so these frames are not a sample and a median \
                     of them is biased upward"
                );
            }
            let mut t = Table::new(&[
                ("frame", Right),
                ("ms", Right),
                ("scopes", Right),
                ("at ms", Right),
            ]);
            for r in rows {
                t.row(vec![
                    r.frame_index.to_string(),
                    ms(r.duration_ns),
                    r.num_scopes.to_string(),
                    at(r.start_ns, start_ns),
                ]);
            }
            t.render(&mut out);
            more(&mut out, rows.len(), *total, top_of(request));
        }
        Answer::Threads {
            frame_index,
            duration_ns,
            rows,
        } => {
            let _ = writeln!(out, "frame {frame_index} ({} ms)", ms(*duration_ns));
            let mut t = Table::new(&[
                ("thread", Left),
                ("scopes", Right),
                ("depth", Right),
                ("span ms", Right),
                ("starts at ms", Right),
            ]);
            for r in rows {
                t.row(vec![
                    thread_label(&r.name).to_owned(),
                    r.num_scopes.to_string(),
                    r.depth.to_string(),
                    ms(r.span_ns),
                    if r.num_scopes == 0 {
                        "-".into()
                    } else {
                        at(r.range_ns.0, start_ns)
                    },
                ]);
            }
            t.render(&mut out);
        }
        Answer::Instances { rows, total } => {
            render_instances(&mut out, rows, start_ns);
            more(&mut out, rows.len(), *total, top_of(request));
        }
        Answer::Aggregate { by, rows, total } => {
            let mut headers = vec![("name", Left)];
            if *by == GroupBy::NameData {
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
            for r in rows {
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
            t.render(&mut out);
            more(&mut out, rows.len(), *total, top_of(request));
        }
        Answer::Tree(report) => {
            let mut text = Vec::new();
            let _ = write_tree(&mut text, report);
            out.push_str(&String::from_utf8_lossy(&text));
        }
        Answer::Callers(report) => render_callers(&mut out, report),
        Answer::Children(report) => {
            let p = &report.parent;
            let _ = writeln!(
                &mut out,
                "{}{} — {} ms on thread {:?}, frame {}, at {} ms (start_ns {})",
                printable(&p.name),
                if p.data.is_empty() {
                    String::new()
                } else {
                    format!(" [{}]", printable(&p.data))
                },
                ms(p.duration_ns),
                p.thread,
                p.frame_index,
                at(p.start_ns, start_ns),
                p.start_ns
            );
            let mut t = Table::new(&[
                ("name", Left),
                ("data", Left),
                ("ms", Right),
                ("gap before ms", Right),
                ("at ms", Right),
            ]);
            for c in &report.children {
                t.row(vec![
                    c.name.clone(),
                    c.data.clone(),
                    ms(c.duration_ns),
                    ms(c.gap_before_ns),
                    at(c.start_ns, start_ns),
                ]);
            }
            t.render(&mut out);
            let covered: i64 = report.children.iter().map(|c| c.duration_ns).sum();
            let _ = writeln!(
                &mut out,
                "trailing gap {} ms; children cover {} of {} ms ({} unprofiled)",
                ms(report.trailing_gap_ns),
                ms(covered),
                ms(p.duration_ns),
                ms((p.duration_ns - covered).max(0))
            );
        }
        Answer::Calls(report) => {
            let s = &report.summary;
            let _ = writeln!(
                &mut out,
                "{} calls, total {} ms: min {} | median {} | mean {} | p95 {} | max {} ms",
                s.count,
                ms(s.total_ns),
                ms(s.min_ns),
                ms(s.median_ns),
                ms_f(s.mean_ns),
                ms(s.p95_ns),
                ms(s.max_ns)
            );
            if analyses::spike(s.count, s.max_ns, s.total_ns) {
                let _ = writeln!(
                    &mut out,
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
            if let Some(tail) = &report.tail {
                let _ = writeln!(&mut out, "heavy tail: {}", tail.words());
            }
            let mut t = Table::new(&[
                ("frame", Right),
                ("thread", Left),
                ("ms", Right),
                ("data", Left),
                ("at ms", Right),
            ]);
            for c in &report.calls {
                t.row(vec![
                    c.frame_index.to_string(),
                    thread_label(&c.thread).to_owned(),
                    ms(c.duration_ns),
                    c.data.clone(),
                    at(c.start_ns, start_ns),
                ]);
            }
            t.render(&mut out);
        }
        Answer::CallsCompared(c) => render_calls_compared(&mut out, c),
        Answer::CallsByChild(r) => render_by_child(&mut out, r, start_ns),
        Answer::Window(w) => {
            let span = w.hi_ns.saturating_sub(w.lo_ns).max(0);
            let _ = writeln!(
                &mut out,
                "window at {}..{} ms ({} ms; {}..{} ns): scopes covered {} ms; no thread's scope covered {} ms ({:.0}%){}",
                at(w.lo_ns, start_ns),
                at(w.hi_ns, start_ns),
                ms(span),
                w.lo_ns,
                w.hi_ns,
                ms(w.covered_ns),
                ms(w.uncovered_ns),
                100.0 * w.uncovered_ns as f64 / span.max(1) as f64,
                if w.threads_recorded <= 1 {
                    " (the recording has one thread: idle and unprofiled look alike)"
                } else {
                    ""
                }
            );
            if !w.busy.is_empty() {
                let _ = writeln!(
                    &mut out,
                    "busy: {}",
                    meanwhile(&w.busy, w.threads_recorded > 1)
                );
            }
            render_window_split(&mut out, w, span);
            let mut t = Table::new(&[
                ("thread", Left),
                ("scopes", Right),
                ("name", Left),
                ("data", Left),
                ("ms", Right),
            ]);
            for r in &w.threads {
                for (k, s) in r.top.iter().enumerate() {
                    let first = k == 0;
                    t.row(vec![
                        if first {
                            thread_label(&r.thread).to_owned()
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
            t.render(&mut out);
            render_window_scopes(&mut out, w);
        }
        Answer::Gaps(report) => {
            let Request::Gaps(api::GapsArgs { min_ms, top, .. }) = request else {
                unreachable!("a gaps answer comes from a gaps request")
            };
            render_gaps(&mut out, report, *min_ms, *top, start_ns);
        }
        Answer::Compare(report) => {
            let Request::Compare(args) = request else {
                unreachable!("a compare answer comes from a compare request")
            };
            render_compare(&mut out, report, args.noise.noise_pct, args.top);
        }
        Answer::Diff(report) => {
            let mut text = Vec::new();
            let _ = write_diff(&mut text, report);
            out.push_str(&String::from_utf8_lossy(&text));
        }
        Answer::Pacing(report) => render_pacing(&mut out, report),
        Answer::Scope(info) => {
            let _ = writeln!(
                &mut out,
                "{} ({} scope, id {})",
                printable(&info.name),
                info.kind,
                info.id
            );
            if !info.function.is_empty() {
                let _ = writeln!(&mut out, "  in {}", printable(&info.function));
            }
            let _ = if info.line > 0 {
                writeln!(&mut out, "  at {}:{}", printable(&info.file), info.line)
            } else {
                writeln!(&mut out, "  at {}", printable(&info.file))
            };
        }
    }
    out
}

/// Other threads' busy time, with what they ran: `rayon-2 4.500 (job)`.
fn meanwhile(others: &[analyses::BusyThread], recorded: bool) -> String {
    if others.is_empty() {
        return if recorded {
            "idle".into()
        } else {
            "(no other thread recorded)".into()
        };
    }
    others
        .iter()
        .map(|o| {
            let names: Vec<String> = o.scopes.iter().map(|s| cell(&s.name)).collect();
            format!(
                "{} {} ({})",
                cell(thread_label(&o.thread)),
                ms(o.busy_ns),
                names.join(", ")
            )
        })
        .collect::<Vec<_>>()
        .join(", ")
}

fn render_gaps(
    out: &mut String,
    report: &analyses::GapsReport,
    min_ms: f64,
    top: usize,
    start_ns: i64,
) {
    let _ = writeln!(
        out,
        "Recurring gaps (the same place in 2+ frames, at least {min_ms} ms in all), largest total first:"
    );
    gap_tables(
        out,
        report,
        (&report.recurring, report.total_recurring),
        (&report.gaps, report.total_gaps),
        &format!(
            "\nOne-off gaps of at least {min_ms} ms (not a recurring gap's usual occurrence), longest first:"
        ),
        top,
        start_ns,
    );
    let _ = writeln!(
        out,
        "\nIdle: waiting between the top-level scopes of a thread that runs tasks (not unprofiled work), recurring, largest total first:"
    );
    gap_tables(
        out,
        report,
        (&report.recurring_idle, report.total_recurring_idle),
        (&report.idle, report.total_idle),
        &format!("\nOne-off idle stretches of at least {min_ms} ms, longest first:"),
        top,
        start_ns,
    );
    // Each thread's role, and the numbers behind it.
    let roles: Vec<String> = report
        .threads
        .iter()
        .map(|t| {
            let pct = |x: i64| 100.0 * x as f64 / t.frames_ns.max(1) as f64;
            format!(
                "{}: {} (its scopes cover {:.1}%, span {:.1}% of its frames)",
                cell(thread_label(&t.thread)),
                match t.role {
                    analyses::ThreadRole::FrameDriving => "drives the frames",
                    analyses::ThreadRole::Tasks => "runs tasks",
                },
                pct(t.covered_ns),
                pct(t.span_ns),
            )
        })
        .collect();
    if !roles.is_empty() {
        let _ = writeln!(
            out,
            "\nThreads (one drives the frames when its top-level scopes cover at least {:.0}% and span at least {:.0}% of them: its top-level gaps are unprofiled work; any other runs tasks, and waits between them):",
            analyses::DRIVING_COVER_PCT,
            analyses::DRIVING_SPAN_PCT
        );
        for r in roles {
            let _ = writeln!(out, "  {r}");
        }
        let _ = writeln!(
            out,
            "% of thread span: of the thread's first top-level scope's start to its last one's end, per frame, summed"
        );
    }
    if !report.other_threads_recorded {
        let _ = writeln!(
            out,
            "note: the recording has one thread: nothing shows what ran during these gaps"
        );
    }
}

/// A recurring list, then its one-off list under its heading, each cut at
/// `top`.
fn gap_tables(
    out: &mut String,
    report: &analyses::GapsReport,
    (recurring, total_recurring): (&[analyses::RecurringGap], usize),
    (singles, total_singles): (&[analyses::Gap], usize),
    one_off_heading: &str,
    top: usize,
    start_ns: i64,
) {
    // The kind, not the empty name, says between frames: a thread may be
    // named "" (the Rerun SDK's Python main thread).
    let where_ = |kind: analyses::GapKind, thread: &str, path: &str| {
        if kind == analyses::GapKind::BetweenFrames {
            "(between frames)".to_owned()
        } else if path.is_empty() {
            format!("{} (top level)", thread_label(thread))
        } else {
            format!("{}: {path}", thread_label(thread))
        }
    };
    if recurring.is_empty() {
        let _ = writeln!(out, "  none");
    } else {
        let mut t = Table::new(&[
            ("total ms", Right),
            ("frames", Right),
            ("median ms", Right),
            ("% of thread span", Right),
            ("kind", Left),
            ("in", Left),
            ("after", Left),
            ("before", Left),
            ("meanwhile (busy ms)", Left),
            ("waits for (median dispatch / waiting / wake-up ms)", Left),
        ]);
        for g in recurring {
            t.row(vec![
                ms(g.total_ns),
                g.frames.to_string(),
                ms(g.median_ns),
                g.share_of_thread_pct
                    .map_or("-".into(), |p| format!("{p:.1}%")),
                g.place.kind.as_str().into(),
                where_(g.place.kind, &g.place.thread, &g.place.path),
                g.place.after.clone().unwrap_or_else(|| "-".into()),
                g.place.before.clone().unwrap_or_else(|| "-".into()),
                meanwhile(&g.other_threads, report.other_threads_recorded),
                g.waits_for.as_ref().map_or("-".into(), |w| {
                    waits_cell(
                        (&w.critical.thread, &w.critical.name),
                        (w.median_dispatch_ns, w.median_waiting_ns, w.median_wake_ns),
                    )
                }),
            ]);
        }
        t.render(out);
    }
    more(out, recurring.len(), total_recurring, top);
    let _ = writeln!(out, "{one_off_heading}");
    if singles.is_empty() {
        let _ = writeln!(out, "  none");
    } else {
        let mut t = Table::new(&[
            ("ms", Right),
            ("frame", Right),
            ("kind", Left),
            ("in", Left),
            ("after", Left),
            ("before", Left),
            ("meanwhile (busy ms)", Left),
            ("waits for (dispatch / waiting / wake-up ms)", Left),
            ("at ms", Right),
        ]);
        for g in singles {
            t.row(vec![
                ms(g.duration_ns),
                g.frame_index.to_string(),
                g.kind.as_str().into(),
                where_(g.kind, &g.thread, &g.path),
                g.after.as_ref().map_or("-".into(), |x| x.name.clone()),
                g.before.as_ref().map_or("-".into(), |x| x.name.clone()),
                meanwhile(&g.other_threads, report.other_threads_recorded),
                g.waits_for.as_ref().map_or("-".into(), |w| {
                    waits_cell(
                        (&w.critical.thread, &w.critical.name),
                        (w.dispatch_ns, w.waiting_ns, w.wake_ns),
                    )
                }),
                at(g.start_ns, start_ns),
            ]);
        }
        t.render(out);
    }
    more(out, singles.len(), total_singles, top);
}

/// What --top cut from an answer whose JSON is a bare array (`frames`,
/// `top`, `find`, `find --aggregate`: their shape stays, scripts read
/// `.[0]`), said on stderr: `None` when nothing was cut. The answers that
/// are objects give it in their JSON (`total_*` beside the list).
fn cut_note(request: &Request, answer: &Answer) -> Option<String> {
    let (shown, total) = match answer {
        Answer::Frames { rows, total, .. } => (rows.len(), *total),
        Answer::Instances { rows, total } => (rows.len(), *total),
        Answer::Aggregate { rows, total, .. } => (rows.len(), *total),
        _ => return None,
    };
    (total > shown).then(|| {
        format!(
            "--top {} listed {shown} of {total} rows; --top {total} lists them all",
            top_of(request)
        )
    })
}

/// What a gap waits for: `pool-2 job::cloth (0.100 / 3.100 / 0.030)`, the
/// critical work (the last to end in it) and the gap's three parts.
fn waits_cell((thread, name): (&str, &str), (dispatch, waiting, wake): (i64, i64, i64)) -> String {
    format!(
        "{} {} ({} / {} / {})",
        cell(thread_label(thread)),
        cell(name),
        ms(dispatch),
        ms(waiting),
        ms(wake)
    )
}

/// "… 345 more, --top N shows them" when a list was cut.
fn more(out: &mut String, shown: usize, total: usize, top: usize) {
    if total > shown {
        let _ = writeln!(
            out,
            "… {} more, --top {} shows them",
            total - shown,
            total.max(top)
        );
    }
}

/// `calls FILE PARENT --by-child CHILD`: a row per group of calls.
fn render_by_child(out: &mut String, r: &analyses::ByChildReport, start_ns: i64) {
    let _ = writeln!(
        out,
        "{} by the data of its {} scopes: {} calls, total {} ms; {} with {} inside ({} of them, {} ms); {} group{}",
        printable(&r.parent),
        printable(&r.child),
        r.calls,
        ms(r.total_ns),
        r.calls_with_child,
        printable(&r.child),
        r.child_calls,
        ms(r.child_total_ns),
        r.total_groups,
        if r.total_groups == 1 { "" } else { "s" }
    );
    let data_header = format!("{} data", r.child);
    let mut t = Table::new(&[
        (data_header.as_str(), Left),
        ("calls", Right),
        ("total ms", Right),
        ("share", Right),
        ("median ms", Right),
        ("max ms", Right),
        ("child calls", Right),
        ("child total ms", Right),
        ("child self ms", Right),
        ("slowest thread", Left),
        ("slowest at ms", Right),
    ]);
    for g in &r.groups {
        let key = if g.child_data.is_empty() {
            format!("(no {})", r.child)
        } else {
            g.child_data
                .iter()
                .map(|d| if d.is_empty() { "(empty)" } else { d.as_str() })
                .collect::<Vec<_>>()
                .join(" + ")
        };
        t.row(vec![
            key,
            g.calls.to_string(),
            ms(g.total_ns),
            format!("{:.1}%", g.share_pct),
            ms(g.median_ns),
            ms(g.max_ns),
            g.child_calls.to_string(),
            ms(g.child_total_ns),
            ms(g.child_self_ns),
            thread_label(&g.slowest_thread).to_owned(),
            at(g.slowest_at_ns, start_ns),
        ]);
    }
    t.render(out);
}

/// `pacing`: the headline, the figures side by side with each tail
/// figure's change, then each side's slow frames and their culprits.
fn render_pacing(out: &mut String, r: &analyses::pacing::PacingReport) {
    use analyses::pacing::{Pacing, figure_label};
    let _ = writeln!(out, "{}", printable(&r.headline));
    let _ = writeln!(
        out,
        "\nperiods on `{}` (start to start), budget {} ms ({})\n",
        printable(&r.thread),
        ms_f(r.budget_ns),
        r.budget_source
    );
    let sides: Vec<(&str, &Pacing)> = std::iter::once(("A", &r.a))
        .chain(r.b.as_ref().map(|b| ("B", b)))
        .collect();
    let mut headers = vec![("figure", Left)];
    headers.extend(
        sides
            .iter()
            .map(|&(l, _)| (if sides.len() == 1 { "value" } else { l }, Right)),
    );
    if r.b.is_some() {
        headers.push(("B − A [interval]", Left));
        headers.push(("verdict", Left));
    }
    let mut t = Table::new(&headers);
    let fps = |ns: f64| {
        if ns > 0.0 {
            format!("{:.1}", 1e9 / ns)
        } else {
            "-".to_owned()
        }
    };
    let pct = |x: f64| format!("{:.1}%", x * 100.0);
    type Cell = fn(&Pacing) -> String;
    let rows: [(&str, Option<&str>, Cell); 14] = [
        ("frames", None, |p| p.frames.to_string()),
        ("mean ms", None, |p| ms_f(p.mean_ns)),
        ("median ms", None, |p| ms(p.median_ns)),
        ("P90 ms", None, |p| ms(p.p90_ns)),
        ("P95 ms", Some("p95"), |p| ms(p.p95_ns)),
        ("P99 ms", Some("p99"), |p| ms(p.p99_ns)),
        ("1% low ms", Some("low_1pct"), |p| ms_f(p.low_1pct_ns)),
        ("0.1% low ms", Some("low_01pct"), |p| ms_f(p.low_01pct_ns)),
        ("worst ms (frame)", None, |p| {
            format!("{} ({})", ms(p.worst.duration_ns), p.worst.frame_index)
        }),
        ("over budget", Some("over_budget"), |p| {
            format!("{} ({:.1}%)", p.over_budget, p.over_budget_share * 100.0)
        }),
        ("stutters", Some("stutter"), |p| {
            format!("{} ({:.1}%)", p.stutters, p.stutter_share * 100.0)
        }),
        ("frame to frame ms", Some("frame_to_frame"), |p| {
            ms_f(p.frame_to_frame_ns)
        }),
        ("paced by a clock", None, |p| {
            if p.paced { "yes" } else { "no" }.to_owned()
        }),
        ("runs", None, |p| p.runs.to_string()),
    ];
    for (label, figure, cell) in rows {
        let mut row = vec![label.to_owned()];
        row.extend(sides.iter().map(|(_, p)| cell(p)));
        if r.b.is_some() {
            match figure.and_then(|f| r.changes.iter().find(|c| c.figure == f)) {
                Some(c) => {
                    row.push(c.change_text());
                    row.push(c.effect.verdict.as_str().to_owned());
                }
                None => row.extend([String::new(), String::new()]),
            }
        }
        t.row(row);
    }
    let mut fps_row = vec!["fps: median / 1% low / 0.1% low".to_owned()];
    fps_row.extend(sides.iter().map(|(_, p)| {
        format!(
            "{} / {} / {}",
            fps(p.median_ns as f64),
            fps(p.low_1pct_ns),
            fps(p.low_01pct_ns)
        )
    }));
    if r.b.is_some() {
        fps_row.extend([String::new(), String::new()]);
    }
    t.row(fps_row);
    t.render(out);
    for (label, p) in &sides {
        if p.per_run.is_empty() {
            continue;
        }
        let _ = writeln!(out, "\n{label}'s runs, each on its own:");
        let mut t = Table::new(&[
            ("run", Right),
            ("frames", Right),
            ("median ms", Right),
            ("P95 ms", Right),
            ("P99 ms", Right),
            ("1% low ms", Right),
            ("over budget", Right),
            ("stutters", Right),
            ("worst ms (frame)", Right),
        ]);
        for x in &p.per_run {
            t.row(vec![
                x.run.to_string(),
                x.frames.to_string(),
                ms(x.median_ns),
                ms(x.p95_ns),
                ms(x.p99_ns),
                ms_f(x.low_1pct_ns),
                pct(x.over_budget_share),
                pct(x.stutter_share),
                format!("{} ({})", ms(x.worst.duration_ns), x.worst.frame_index),
            ]);
        }
        t.render(out);
    }
    if let Some(g) = &r.gate {
        render_tail_gate(out, g);
    }
    for c in r.changes.iter().filter(|c| c.effect.settle.is_some()) {
        if let Some(settle) = &c.effect.settle {
            let _ = writeln!(out, "{} inconclusive: {settle}", figure_label(c.figure));
            break;
        }
    }
    for (label, p) in &sides {
        let who = if sides.len() == 1 {
            String::new()
        } else {
            format!("{label}: ")
        };
        if let Some(pattern) = &p.pattern {
            let _ = writeln!(out, "\n{who}the frames through the run: {pattern}");
        }
        let s = &p.slow_frames;
        if s.frames == 0 {
            continue;
        }
        let _ = writeln!(
            out,
            "\n{who}{} slow frames ({}): {} ms on average against {} ms for the others, {:+.3} ms; \
             slowest: {}",
            s.frames,
            s.rule,
            ms_f(s.mean_ns),
            ms_f(s.typical_mean_ns),
            s.excess_ns / 1e6,
            s.frame_indices
                .iter()
                .take(8)
                .map(u64::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        );
        let mut t = Table::new(&[
            ("part", Left),
            ("slow ms", Right),
            ("others ms", Right),
            ("excess ms", Right),
            ("share", Right),
            ("high in slow", Right),
            ("high in others", Right),
        ]);
        for c in &s.culprits {
            t.row(vec![
                printable(&c.part).into_owned(),
                ms_f(c.slow_mean_ns),
                ms_f(c.typical_mean_ns),
                format!("{:+.3}", c.excess_ns / 1e6),
                pct(c.share),
                format!("{} of {}", c.in_slow, s.frames),
                format!("{} of {}", c.in_typical, p.frames - s.frames),
            ]);
        }
        t.render(out);
    }
}

fn render_calls_compared(out: &mut String, c: &analyses::CallsComparison) {
    let ch = &c.change;
    let _ = writeln!(
        out,
        "{}: {}; {:+.3} ms per frame (per call part {:+.3}, count part {:+.3})",
        printable(&c.name),
        ch.kind.words(),
        ch.delta_per_frame_ns / 1e6,
        ch.per_call_part_ns / 1e6,
        ch.count_part_ns / 1e6
    );
    if let Some(rest) = ch.rest {
        let _ = writeln!(
            out,
            "the typical calls (without the spike): {}",
            rest.words()
        );
    }
    if let Some(t) = ch.apart() {
        let _ = writeln!(
            out,
            "set apart (the tail, not itself a change; the effect is the typical calls'): {}",
            t.words("call")
        );
    }
    let _ = writeln!(
        out,
        "effect: {}: {}",
        ch.effect.verdict.as_str(),
        ch.effect.text()
    );
    if let Some(settle) = &ch.effect.settle {
        let _ = writeln!(out, "to settle it: {settle}");
    }
    let mut t = Table::new(&[("", Left), ("A", Right), ("B", Right)]);
    let cells = |f: &dyn Fn(&analyses::CallsSide) -> String| -> [String; 2] {
        [&c.a, &c.b].map(|s| s.as_ref().map_or("-".to_owned(), f))
    };
    let rows: [(&str, [String; 2]); 9] = [
        ("calls", cells(&|s| s.count.to_string())),
        (
            "frames with calls",
            cells(&|s| format!("{} of {}", s.frames_with_calls, s.frames)),
        ),
        (
            "calls per frame",
            cells(&|s| format!("{:.2}", s.calls_per_frame)),
        ),
        ("ms per frame", cells(&|s| ms_f(s.per_frame_ns))),
        ("min ms", cells(&|s| ms(s.min_ns))),
        ("median ms", cells(&|s| ms(s.median_ns))),
        ("p95 ms", cells(&|s| ms(s.p95_ns))),
        ("max ms", cells(&|s| ms(s.max_ns))),
        (
            "largest call's share",
            cells(&|s| format!("{:.0}%", 100.0 * s.max_share)),
        ),
    ];
    for (label, [a, b]) in rows {
        t.row(vec![label.to_owned(), a, b]);
    }
    t.render(out);
}

/// `window`'s split per thread: profiled, unprofiled (and in which
/// scopes), no scope.
fn render_window_split(out: &mut String, w: &analyses::WindowReport, span: i64) {
    let _ = writeln!(
        out,
        "per thread: profiled (in a scope without children), unprofiled (in a scope, in none of its children), no scope:"
    );
    let mut t = Table::new(&[
        ("thread", Left),
        ("profiled ms", Right),
        ("unprofiled ms", Right),
        ("no scope ms", Right),
        ("unprofiled in (ms)", Left),
    ]);
    for r in &w.split {
        let within: Vec<String> = r
            .unprofiled_in
            .iter()
            .map(|u| format!("{} {}", u.name, ms(u.unprofiled_ns)))
            .collect();
        t.row(vec![
            thread_label(&r.thread).to_owned(),
            ms(r.profiled_ns),
            ms(r.unprofiled_ns),
            ms(r.no_scope_ns),
            if within.is_empty() {
                "-".into()
            } else {
                within.join(", ")
            },
        ]);
    }
    t.render(out);
    let _ = writeln!(
        out,
        "no thread in profiled time: {} ms ({:.0}%)",
        ms(w.no_thread_profiled_ns),
        100.0 * w.no_thread_profiled_ns as f64 / span.max(1) as f64
    );
}

/// `window`'s scopes per thread in time order, from the window's start.
fn render_window_scopes(out: &mut String, w: &analyses::WindowReport) {
    if w.split.iter().all(|r| r.scopes.is_empty()) {
        return;
    }
    let _ = writeln!(
        out,
        "scopes in time order (from / to: ms from the window's start; partly: only partly inside):"
    );
    let mut t = Table::new(&[
        ("thread", Left),
        ("from", Right),
        ("to", Right),
        ("ms", Right),
        ("inside ms", Right),
        ("name", Left),
        ("data", Left),
        ("", Left),
    ]);
    for r in &w.split {
        for (k, sc) in r.scopes.iter().enumerate() {
            t.row(vec![
                if k == 0 {
                    thread_label(&r.thread).to_owned()
                } else {
                    String::new()
                },
                format!("{:.3}", sc.start_in_window_ms),
                format!("{:.3}", sc.end_in_window_ms),
                ms(sc.duration_ns),
                ms(sc.overlap_ns),
                format!("{}{}", "  ".repeat(sc.depth as usize), sc.name),
                sc.data.clone(),
                if sc.partial {
                    "partly".into()
                } else {
                    String::new()
                },
            ]);
        }
    }
    t.render(out);
    for r in &w.split {
        more_named(out, &r.thread, r.scopes.len(), r.total_scopes, "--scopes");
    }
}

/// "… thread: 345 more, --scopes N shows them" when a thread's list was cut.
fn more_named(out: &mut String, thread: &str, shown: usize, total: usize, flag: &str) {
    if total > shown {
        let _ = writeln!(
            out,
            "… {}: {} more, {flag} {total} shows them",
            thread_label(thread),
            total - shown,
        );
    }
}

/// A point in time as milliseconds since `start_ns`, the recording's start
/// (`1,234.567`: the JSON's `*_rel_ms`).
fn at(ns: i64, start_ns: i64) -> String {
    puffin_lens::units::at_ms(puffin_lens::engine::reltime::rel_ms(ns, start_ns))
}

fn render_instances(out: &mut String, rows: &[analyses::InstanceRow], start_ns: i64) {
    let mut t = Table::new(&[
        ("ms", Right),
        ("name", Left),
        ("data", Left),
        ("thread", Left),
        ("frame", Right),
        ("id", Right),
        ("at ms", Right),
    ]);
    for r in rows {
        t.row(vec![
            ms(r.duration_ns),
            r.name.clone(),
            r.data.clone(),
            thread_label(&r.thread).to_owned(),
            r.frame_index.to_string(),
            r.id.to_string(),
            at(r.start_ns, start_ns),
        ]);
    }
    t.render(out);
}

fn render_compare(out: &mut String, report: &analyses::CompareReport, noise_pct: f64, top: usize) {
    for w in &report.warnings {
        let _ = writeln!(out, "warning: {w}");
    }
    if let Some(d) = &report.drift {
        let _ = writeln!(out, "drift: {}", analyses::drift::status(d, noise_pct));
    }
    let f = &report.frame;
    let _ = writeln!(
        out,
        "frame: median {} -> {} ms, mean {} -> {} ms ({:+.3} ms): {}",
        ms(f.median_a_ns),
        ms(f.median_b_ns),
        ms_f(f.mean_a_ns),
        ms_f(f.mean_b_ns),
        f.delta_mean_ns / 1e6,
        f.kind.words_once()
    );
    if let Some(bf) = &f.between_frames {
        let _ = writeln!(
            out,
            "frame period on {} (start to start): {:.1} -> {:.1} fps; between frames {} -> {} ms ({:+.3} ms): {}",
            printable(thread_label(&f.thread)),
            f.rate_a_fps,
            f.rate_b_fps,
            ms_f(bf.mean_a_ns),
            ms_f(bf.mean_b_ns),
            (bf.mean_b_ns - bf.mean_a_ns) / 1e6,
            bf.effect.verdict.as_str()
        );
    }
    if !f.contributions.is_empty() {
        let parts: Vec<String> = f
            .contributions
            .iter()
            .map(|x| {
                format!(
                    "{} {:+.3} ({})",
                    printable(&x.name),
                    x.self_delta_per_frame_ns / 1e6,
                    match &x.moved {
                        Some(t) if x.self_delta_per_frame_ns < 0.0 =>
                            format!("moved to {}", printable(thread_label(t))),
                        Some(t) => format!("moved here from {}", printable(thread_label(t))),
                        None => x.gap.as_deref().unwrap_or(x.kind.words()).to_owned(),
                    }
                )
            })
            .collect();
        let _ = writeln!(
            out,
            "own time per frame on {}: {}; the changes judged {:.0}% of the frame's movement",
            printable(thread_label(&f.thread)),
            parts.join(", "),
            f.explained_pct
        );
    }
    write_gap_changes(out, &report.gaps);
    write_median(out, f);
    let _ = writeln!(
        out,
        "A {} frames, B {}; {} of {} (name, data) pairs changed beyond noise ({} of {} names; judged per {})",
        report.frames_a,
        report.frames_b,
        report.changed_pairs,
        report.total_pairs,
        report.changed_names,
        report.total_names,
        report.basis.unit()
    );
    if report.basis == analyses::basis::Basis::Second {
        let _ = writeln!(
            out,
            "per second: a side is one frame, or frames far longer than their scopes; A runs {} s, B {} s (Δ ms/frame is per second)",
            report.units.0, report.units.1
        );
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
        ("Δ ms/frame", Right),
        ("judgement", Left),
    ]);
    let side = |s: &Option<analyses::SideStats>| match s {
        Some(s) => [s.count.to_string(), ms(s.total_ns), ms_f(s.per_call_ns)],
        None => ["-".into(), "-".into(), "-".into()],
    };
    for r in &report.rows {
        let [an, at, ap] = side(&r.a);
        let [bn, bt, bp] = side(&r.b);
        let mut note = r
            .gap
            .clone()
            .unwrap_or_else(|| r.change.kind.words().to_owned());
        if let Some(rest) = r.change.rest {
            let _ = write!(note, " (the rest: {})", rest.words());
        } else if let (true, Some(t)) = (r.change.kind.is_change(), r.change.apart()) {
            let _ = write!(note, " (typical calls; apart: {})", t.words("call"));
        }
        if let Some(s) = &r.structure {
            let _ = write!(note, "; {s}");
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
            format!("{:+.3}", r.change.delta_per_frame_ns / 1e6),
            note,
        ]);
    }
    t.render(out);
    more(out, report.rows.len(), report.total_rows, top);
    if let Some(g) = &report.gate {
        render_gate(out, g);
    }
    if let Some(t) = &report.tail_gate {
        render_tail_gate(out, t);
    }
}

/// The changed gaps, one sentence each, and how many places are unchanged.
fn write_gap_changes(out: &mut String, g: &analyses::gap_diff::GapChanges) {
    if g.places == 0 {
        return;
    }
    let _ = writeln!(
        out,
        "unprofiled gaps: {} of {} places changed beyond noise",
        g.changed.len(),
        g.places
    );
    for c in &g.changed {
        let _ = writeln!(out, "  {}: {}", c.verdict.as_str(), printable(&c.sentence));
    }
}

/// The gate's verdict, and the rows that tripped it.
/// The exit status the gates ask for: 4 when either failed, else 5 when
/// either is inconclusive; `None` when they passed or none was asked.
pub(super) fn gate_status(
    gate: Option<&analyses::gate::GateResult>,
    tail: Option<&analyses::pacing::TailGateResult>,
) -> Option<i32> {
    if gate.is_some_and(|g| g.failed()) || tail.is_some_and(|t| t.failed()) {
        Some(EXIT_REGRESSION)
    } else if gate.is_some_and(|g| g.is_inconclusive()) || tail.is_some_and(|t| t.is_inconclusive())
    {
        Some(EXIT_INCONCLUSIVE)
    } else {
        None
    }
}

/// The tail gate, one line a figure: "tail gate: FAILED: P99 16.667 →
/// 25.000 ms, …".
pub(super) fn render_tail_gate(out: &mut String, t: &analyses::pacing::TailGateResult) {
    use analyses::pacing::GateOutcome;
    for c in &t.checks {
        let outcome = match c.outcome {
            GateOutcome::Failed => "FAILED",
            GateOutcome::Passed => "passed",
            GateOutcome::Inconclusive => "INCONCLUSIVE",
        };
        let _ = writeln!(out, "tail gate: {outcome}: {}", c.sentence);
    }
}

pub(super) fn render_gate(out: &mut String, g: &analyses::gate::GateResult) {
    if g.drift_tripped {
        let _ = writeln!(
            out,
            "regression gate: FAILED: the run-to-run drift is past --fail-on-drift {}%",
            g.drift_limit_pct.unwrap_or(0.0)
        );
    }
    if !g.pct.is_finite() {
        // Only --fail-on-drift: no row limit.
        if !g.drift_tripped {
            let _ = writeln!(
                out,
                "regression gate: passed (the drift is within --fail-on-drift)"
            );
        }
        return;
    }
    for x in &g.tripped_gaps {
        let _ = writeln!(
            out,
            "regression gate: FAILED: a {} gap costs {:+.3} ms per frame beyond the drift ({:.1}% of the frame, limit {} ms): {}",
            if x.verdict == analyses::gap_diff::GapVerdict::New {
                "new"
            } else {
                "grown"
            },
            x.beyond_drift_ns / 1e6,
            x.frame_pct,
            ms(g.limit_ns.round() as i64),
            printable(&x.sentence)
        );
    }
    let row = |r: &analyses::gate::Tripped| {
        format!(
            "  {}{}: {}, {:+.3} ms per frame [{:+.3}, {:+.3}] ({:.1}% of the frame)",
            printable(&r.name),
            r.data
                .as_deref()
                .filter(|d| !d.is_empty())
                .map_or(String::new(), |d| format!(" [{}]", printable(d))),
            printable(r.because.as_deref().unwrap_or(r.kind.words())),
            r.beyond_drift_ns / 1e6,
            r.ci_ns[0] / 1e6,
            r.ci_ns[1] / 1e6,
            r.frame_pct
        )
    };
    if g.tripped.is_empty() {
        if !g.tripped_gaps.is_empty() {
            return;
        }
        if !g.lost_parallelism.is_empty() {
            let _ = writeln!(
                out,
                "regression gate: INCONCLUSIVE: a wait grew past {} ms per frame only because its work ran less in parallel; {}",
                ms(g.limit_ns.round() as i64),
                g.settle()
            );
            for r in &g.inconclusive {
                let _ = writeln!(out, "{}", row(r));
            }
        } else if g.inconclusive.is_empty() {
            let _ = writeln!(
                out,
                "regression gate: passed (no cause's interval reaches {} ms per frame beyond the drift; {} cause(s) tested)",
                ms(g.limit_ns.round() as i64),
                g.causes
            );
        } else {
            let _ = writeln!(
                out,
                "regression gate: INCONCLUSIVE: {} cause(s) may cost more than {} ms per frame beyond the drift, or may not (their intervals straddle the limit); {}:",
                g.inconclusive.len(),
                ms(g.limit_ns.round() as i64),
                g.settle()
            );
            for r in &g.inconclusive {
                let _ = writeln!(out, "{}", row(r));
            }
        }
        return;
    }
    let _ = writeln!(
        out,
        "regression gate: FAILED: {} row(s) cost more than {} ms per frame beyond the drift ({}% of A's mean frame, at least {} ms), their whole interval above it:",
        g.tripped.len(),
        ms(g.limit_ns.round() as i64),
        g.pct,
        g.min_ms
    );
    for r in &g.tripped {
        let _ = writeln!(out, "{}", row(r));
    }
}

/// The merged tree, indented, with count, total, self and max columns,
/// written as it is walked (twice: the columns' widths, then the lines).
/// The transforms an answer was read with, and what they matched nothing of.
fn write_applied(
    out: &mut impl std::io::Write,
    applied: Option<&puffin_lens::engine::analyses::Applied>,
) -> std::io::Result<()> {
    if let Some(a) = applied {
        writeln!(out, "transforms: {}", printable(&a.transforms.join(", ")))?;
        for w in &a.warnings {
            writeln!(out, "warning: {}", printable(w))?;
        }
    }
    Ok(())
}

fn write_tree(out: &mut impl std::io::Write, report: &TreeReport) -> std::io::Result<()> {
    write_applied(out, report.applied())?;
    writeln!(out, "{} frame(s) merged", report.frames)?;
    for (thread, shown, recorded) in report.shown_of_recorded() {
        writeln!(
            out,
            "thread {}: shown {} of {} ms",
            printable(thread_label(thread)),
            ms(shown),
            ms(recorded)
        )?;
    }
    let headers = [
        ("scope", Left),
        ("count", Right),
        ("total ms", Right),
        ("self ms", Right),
        ("max ms", Right),
        ("% of thread", Right),
    ];
    let names = indented_cells(report.names());
    let mut thread_ns = 0;
    let fill = |cells: &mut [String; 6], r: &TreeRow| {
        if r.depth == 0 {
            thread_ns = r.total_ns;
            cells[0].push_str(&cell(&format!("thread {}", thread_label(r.name))));
            cells[2].push_str(&ms(r.total_ns));
            return;
        }
        let [scope, count, total, self_, max, share] = cells;
        scope.extend(std::iter::repeat_n(' ', 2 * r.depth as usize));
        scope.push_str(&names[r.name_index as usize]);
        let _ = write!(count, "{}", r.count);
        let _ = write!(total, "{:.3}", r.total_ns as f64 / 1e6);
        let _ = write!(self_, "{:.3}", r.self_ns as f64 / 1e6);
        let _ = write!(max, "{:.3}", r.max_ns as f64 / 1e6);
        if thread_ns == 0 {
            share.push('-');
        } else {
            let _ = write!(
                share,
                "{:.1}%",
                100.0 * r.total_ns as f64 / thread_ns as f64
            );
        }
    };
    write_columns(out, &headers, || report.rows(), fill)
}

/// A tree's names as cells, once each (a tree has few names, many nodes):
/// leading spaces are indentation, not elided.
fn indented_cells(names: &[String]) -> Vec<String> {
    names
        .iter()
        .map(|n| {
            let text = n.trim_start_matches(' ');
            format!("{}{}", &n[..n.len() - text.len()], cell(text))
        })
        .collect()
}

/// `part` as a percentage of `whole`, one decimal.
fn percent(part: i64, whole: i64) -> String {
    if whole == 0 {
        "-".into()
    } else {
        format!("{:.1}%", 100.0 * part as f64 / whole as f64)
    }
}

fn render_callers(out: &mut String, report: &analyses::CallersReport) {
    let mut text = Vec::new();
    let _ = write_applied(&mut text, report.applied.as_ref());
    out.push_str(&String::from_utf8_lossy(&text));
    let _ = writeln!(
        out,
        "{}: {} calls, total {} ms, self {} ms",
        printable(&report.name),
        report.count,
        ms(report.total_ns),
        ms(report.self_ns)
    );
    for (title, rows) in [("callers", &report.callers), ("callees", &report.callees)] {
        let _ = writeln!(out);
        let mut t = Table::new(&[
            (title, Left),
            ("count", Right),
            ("total ms", Right),
            ("% of total", Right),
        ]);
        for r in rows {
            t.row(vec![
                r.name.clone().unwrap_or_else(|| "(top level)".into()),
                r.count.to_string(),
                ms(r.total_ns),
                percent(r.total_ns, report.total_ns),
            ]);
        }
        if rows.is_empty() {
            t.row(vec![
                "(none)".into(),
                String::new(),
                String::new(),
                String::new(),
            ]);
        }
        t.render(out);
    }
}

/// The median frame's accounting (after the lead's reason when the
/// median leads: a spike skews a side's mean).
fn write_median(out: &mut String, f: &analyses::accounting::FrameChange) {
    use analyses::accounting::Lead;
    if f.lead == Lead::Median {
        let _ = writeln!(out, "lead: median: {}", printable(&f.lead_reason));
    }
    let m = &f.median;
    let mut parts: Vec<String> = m
        .contributions
        .iter()
        .map(|x| {
            format!(
                "{} {:+.3} ({})",
                printable(&x.name),
                x.self_delta_median_ns as f64 / 1e6,
                x.gap.as_deref().unwrap_or(x.kind.words())
            )
        })
        .collect();
    parts.push(format!(
        "outside scopes {:+.3}",
        m.outside_scopes_ns as f64 / 1e6
    ));
    let _ = writeln!(
        out,
        "median own time per frame on {} ({:+.3} ms): {}; unaccounted {:+.3}",
        printable(thread_label(&f.thread)),
        f.delta_median_ns as f64 / 1e6,
        parts.join(", "),
        m.unexplained_ns as f64 / 1e6
    );
}

/// The differential tree, indented: A, B, B - A and its share of A, each
/// side's total per frame (per second when a side is unframed), written as
/// it is walked (twice: the columns' widths, then the lines).
fn write_diff(out: &mut impl std::io::Write, report: &DiffReport) -> std::io::Result<()> {
    if let Some(t) = report.transforms() {
        writeln!(out, "transforms: {}", printable(&t.join(", ")))?;
    }
    for w in &report.warnings {
        writeln!(out, "warning: {w}")?;
    }
    let ((ua, ub), (fa, fb)) = (report.units(), report.frames());
    let (ah, bh, dh) = match report.basis() {
        analyses::basis::Basis::Frame => {
            writeln!(
                out,
                "per frame: each side's totals divided by its frames (A {fa}, B {fb})"
            )?;
            ("A ms/frame", "B ms/frame", "Δ ms/frame")
        }
        analyses::basis::Basis::Second => {
            writeln!(
                out,
                "per second: a side is one frame, or frames far longer than their scopes; \
                 each side's totals divided by its seconds (A {ua} s, B {ub} s)"
            )?;
            ("A ms/s", "B ms/s", "Δ ms/s")
        }
    };
    let headers = [
        ("scope", Left),
        (ah, Right),
        (bh, Right),
        (dh, Right),
        ("Δ%", Right),
        ("judgement", Left),
    ];
    let names = indented_cells(report.names());
    let fill = |cells: &mut [String; 6], r: &DiffRow| {
        let [scope, a, b, delta, change, judgement] = cells;
        if let Some(kind) = r.kind.filter(|&k| k != analyses::Kind::Unchanged) {
            judgement.push_str(kind.words());
        }
        let (at, bt) = (r.a_total_per_frame_ns, r.b_total_per_frame_ns);
        // A thread is present where its total is not 0; a node where it is.
        let (a_present, b_present) = if r.depth == 0 {
            scope.push_str(&cell(&format!("thread {}", thread_label(r.name))));
            let _ = write!(a, "{:.3}", at / 1e6);
            let _ = write!(b, "{:.3}", bt / 1e6);
            (r.a_total_ns > 0, r.b_total_ns > 0)
        } else {
            scope.extend(std::iter::repeat_n(' ', 2 * r.depth as usize));
            scope.push_str(&names[r.name_index as usize]);
            for (cell, side, per) in [(&mut *a, r.a, at), (&mut *b, r.b, bt)] {
                match side {
                    Some(_) => {
                        let _ = write!(cell, "{:.3}", per / 1e6);
                    }
                    None => cell.push('-'),
                }
            }
            (r.a.is_some(), r.b.is_some())
        };
        let _ = write!(delta, "{:+.3}", r.delta_total_per_frame_ns / 1e6);
        match (a_present, b_present, r.delta_pct) {
            (false, true, _) => change.push_str("new"),
            (true, false, _) => change.push_str("gone"),
            (_, _, None) => change.push('-'),
            (_, _, Some(pct)) => {
                let _ = write!(change, "{pct:+.1}%");
            }
        }
    };
    write_columns(out, &headers, || report.rows(), fill)
}

/// The `--top` of a listing request (what "--top N shows them" names).
fn top_of(request: &Request) -> usize {
    match request {
        Request::Frames(a) => a.top.unwrap_or(usize::MAX),
        Request::Top(a) => a.top,
        Request::Find(a) => a.top,
        Request::Gaps(a) => a.top,
        Request::Compare(a) => a.top,
        _ => usize::MAX,
    }
}
