//! `export`: many recordings as Parquet tables (or JSON exports) in one
//! run, on all cores, for query engines over fleets of captures.

use super::{EXIT_BAD_INPUT, EXIT_DAMAGED, EXIT_OK, write_atomically};
use anyhow::Context as _;
use puffin_lens::engine::analyses::transform::Stack;
use puffin_lens::engine::{self, write::parquet::Table};
use rayon::prelude::*;
use std::collections::BTreeSet;
use std::io::IsTerminal as _;
use std::path::{Path, PathBuf};
use std::time::Instant;

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ExportFormat {
    /// Three Parquet tables per input: scopes/, frames/, scope_defs/.
    Parquet,
    /// The documented JSON export per input: json/<input>.json.
    Json,
    /// Chrome's Trace Event Format (Perfetto UI, chrome://tracing, the Firefox
    /// Profiler): <input>.trace.json.
    Chrome,
    /// speedscope's file format: <input>.speedscope.json.
    Speedscope,
    /// Folded stacks (inferno, flamegraph.pl, speedscope): <input>.folded.
    Folded,
}

impl ExportFormat {
    /// The file one input becomes, for the formats of one file per input.
    fn single_file(self, out_name: &str) -> Option<String> {
        match self {
            ExportFormat::Parquet | ExportFormat::Json => None,
            ExportFormat::Chrome => Some(format!("{out_name}.trace.json")),
            ExportFormat::Speedscope => Some(format!("{out_name}.speedscope.json")),
            ExportFormat::Folded => Some(format!("{out_name}.folded")),
        }
    }
}

/// Writes one of the single-file formats of `trace` (named `file`) to `w`.
fn write_single(
    format: ExportFormat,
    trace: &puffin_lens::engine::Trace,
    file: &str,
    w: impl std::io::Write,
    stack: &Stack,
) -> std::io::Result<()> {
    use puffin_lens::engine::write::{chrome, folded};
    match format {
        ExportFormat::Chrome => chrome::write_chrome(trace, file, w),
        ExportFormat::Speedscope => chrome::write_speedscope(trace, file, w),
        _ => {
            let mut w = w;
            let text = folded::folded_transformed(trace, 0..trace.frames.len() as u32, None, stack);
            w.write_all(text.as_bytes())?;
            w.flush()
        }
    }
}

/// `export FILE -o - --format chrome|speedscope|folded`: one input to stdout.
fn export_to_stdout(input: &Path, format: ExportFormat, stack: &Stack) -> anyhow::Result<i32> {
    anyhow::ensure!(
        format.single_file("x").is_some(),
        "-o - (stdout) takes --format chrome, speedscope or folded"
    );
    let decoded = super::load(input)?;
    let name = puffin_lens::app::file_name(&input.to_string_lossy());
    let stdout = std::io::stdout();
    write_single(
        format,
        &decoded.trace,
        &name,
        std::io::BufWriter::new(stdout.lock()),
        stack,
    )
    .context("cannot write to stdout")?;
    Ok(super::status(&decoded))
}

/// One recording to export.
struct Input {
    path: PathBuf,
    /// The path as given (a file argument) or found (under a folder argument):
    /// the `recording` column.
    shown: String,
    /// The output files' base name (unique in the run).
    out_name: String,
    size_bytes: u64,
}

/// What happened to one input.
enum Outcome {
    Done {
        scopes: usize,
        damaged: bool,
        problems: Vec<String>,
    },
    Skipped(String),
}

pub fn export(
    inputs: &[PathBuf],
    out_dir: &Path,
    format: ExportFormat,
    jobs: Option<usize>,
    stack: &Stack,
) -> anyhow::Result<i32> {
    if !stack.is_empty() && format != ExportFormat::Folded {
        eprintln!(
            "puffin-lens: error: transforms apply to the call tree: --format folded only \
             (chrome and speedscope keep every scope; their viewers transform)"
        );
        return Ok(super::EXIT_USAGE);
    }
    if out_dir == Path::new("-") {
        anyhow::ensure!(
            inputs.len() == 1 && !inputs[0].is_dir(),
            "-o - (stdout) takes one recording"
        );
        return export_to_stdout(&inputs[0], format, stack);
    }
    let inputs = collect(inputs)?;
    anyhow::ensure!(
        !inputs.is_empty(),
        "no recordings found (folders are searched for *.puffin and *.json)"
    );
    let folders: &[&str] = match format {
        ExportFormat::Parquet => &["scopes", "frames", "scope_defs"],
        ExportFormat::Json => &["json"],
        ExportFormat::Chrome | ExportFormat::Speedscope | ExportFormat::Folded => &[""],
    };
    for f in folders {
        let dir = out_dir.join(f);
        std::fs::create_dir_all(&dir)
            .with_context(|| format!("{}: cannot create", dir.display()))?;
    }
    let jobs = jobs.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(jobs)
        .thread_name(|i| format!("puffin-lens-export-{i}"))
        .build()
        .context("cannot start the worker threads")?;
    let total_bytes: u64 = inputs.iter().map(|i| i.size_bytes).sum();
    let bar = if std::io::stderr().is_terminal() {
        let bar = indicatif::ProgressBar::new(total_bytes);
        if let Ok(style) = indicatif::ProgressStyle::with_template(
            "{bar:40} {binary_bytes}/{binary_total_bytes} {msg} ETA {eta}",
        ) {
            bar.set_style(style);
        }
        bar
    } else {
        indicatif::ProgressBar::hidden()
    };
    let done = std::sync::atomic::AtomicUsize::new(0);
    let started = Instant::now();
    let outcomes: Vec<Outcome> = pool.install(|| {
        inputs
            .par_iter()
            .map(|input| {
                let outcome = export_one(input, out_dir, format, stack);
                let n = done.fetch_add(1, std::sync::atomic::Ordering::SeqCst) + 1;
                bar.inc(input.size_bytes);
                bar.set_message(format!("{n}/{} files", inputs.len()));
                outcome
            })
            .collect()
    });
    bar.finish_and_clear();
    let (mut exported, mut scopes, mut damaged, mut skipped) = (0, 0usize, 0, 0);
    for (input, outcome) in inputs.iter().zip(&outcomes) {
        match outcome {
            Outcome::Done {
                scopes: n,
                damaged: d,
                problems,
            } => {
                exported += 1;
                scopes += n;
                damaged += usize::from(*d);
                for p in problems {
                    eprintln!("puffin-lens: {p}");
                }
            }
            Outcome::Skipped(why) => {
                skipped += 1;
                eprintln!("puffin-lens: error: {}: {why}; skipped", input.shown);
            }
        }
    }
    let secs = started.elapsed().as_secs_f64();
    eprintln!(
        "puffin-lens: exported {exported} of {} recordings ({scopes} scopes, {:.1} MB read) to {} \
         in {secs:.2} s ({:.1} M scopes/s, {jobs} jobs){}{}",
        inputs.len(),
        total_bytes as f64 / 1e6,
        out_dir.display(),
        scopes as f64 / secs.max(1e-9) / 1e6,
        if damaged > 0 {
            format!("; {damaged} damaged (their intact frames exported)")
        } else {
            String::new()
        },
        if skipped > 0 {
            format!("; {skipped} unreadable, skipped")
        } else {
            String::new()
        },
    );
    Ok(if skipped > 0 {
        EXIT_BAD_INPUT
    } else if damaged > 0 {
        EXIT_DAMAGED
    } else {
        EXIT_OK
    })
}

fn is_recording(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("puffin") || e.eq_ignore_ascii_case("json"))
}

/// The inputs: files as given, folders searched (recursively, sorted) for
/// `*.puffin` and `*.json`. Output names are the paths below the folder
/// (or the file name), `/` written `__`, unique in the run.
fn collect(args: &[PathBuf]) -> anyhow::Result<Vec<Input>> {
    let mut found: Vec<(PathBuf, String)> = Vec::new();
    for arg in args {
        let meta = std::fs::metadata(arg)
            .with_context(|| format!("{}: no such file or folder", arg.display()))?;
        if meta.is_dir() {
            let mut files = Vec::new();
            walk(arg, &mut files)?;
            files.sort();
            for f in files {
                let rel = f.strip_prefix(arg).unwrap_or(&f);
                let base = rel
                    .with_extension("")
                    .to_string_lossy()
                    .replace(['/', '\\'], "__");
                found.push((f, base));
            }
        } else {
            let base = arg.file_stem().map_or_else(
                || "recording".to_owned(),
                |s| s.to_string_lossy().into_owned(),
            );
            found.push((arg.clone(), base));
        }
    }
    let mut taken = BTreeSet::new();
    let mut inputs = Vec::new();
    for (path, base) in found {
        let mut name = base.clone();
        let mut k = 2;
        while !taken.insert(name.clone()) {
            name = format!("{base}-{k}");
            k += 1;
        }
        let size_bytes = std::fs::metadata(&path).map_or(0, |m| m.len());
        inputs.push(Input {
            shown: path.to_string_lossy().into_owned(),
            path,
            out_name: name,
            size_bytes,
        });
    }
    Ok(inputs)
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> anyhow::Result<()> {
    let entries =
        std::fs::read_dir(dir).with_context(|| format!("{}: cannot list", dir.display()))?;
    for entry in entries {
        let path = entry
            .with_context(|| format!("{}: cannot list", dir.display()))?
            .path();
        if path.is_dir() {
            walk(&path, out)?;
        } else if is_recording(&path) {
            out.push(path);
        }
    }
    Ok(())
}

fn export_one(input: &Input, out_dir: &Path, format: ExportFormat, stack: &Stack) -> Outcome {
    let decoded = match super::file::decode(&input.path)
        .map_err(|e| format!("{e:#}"))
        .and_then(|d| d.map_err(|e| e.to_string()))
    {
        Ok(d) => d,
        Err(why) => return Outcome::Skipped(why),
    };
    let problems: Vec<String> = decoded
        .diagnostics
        .iter()
        .map(|d| format!("{}: {}: {d}", d.severity.as_str(), input.shown))
        .collect();
    if decoded.trace.frames.is_empty() && decoded.is_damaged() {
        return Outcome::Skipped(format!(
            "no frame could be decoded ({})",
            problems.first().map_or("", |p| p.as_str())
        ));
    }
    let trace = &decoded.trace;
    let result = match format {
        ExportFormat::Parquet => Table::ALL.iter().try_for_each(|&table| {
            let path = out_dir
                .join(table.name())
                .join(format!("{}.parquet", input.out_name));
            write_atomically(&path, |w| {
                engine::write::parquet::write_table(trace, &input.shown, table, w)
                    .map(|_| ())
                    .map_err(anyhow::Error::from)
            })
        }),
        ExportFormat::Json => {
            let path = out_dir
                .join("json")
                .join(format!("{}.json", input.out_name));
            write_atomically(&path, |w| {
                engine::write_export(trace, &input.shown, w, false)
                    .map(|_| ())
                    .map_err(anyhow::Error::from)
            })
        }
        ExportFormat::Chrome | ExportFormat::Speedscope | ExportFormat::Folded => {
            let name = format.single_file(&input.out_name).unwrap_or_default();
            let file = puffin_lens::app::file_name(&input.shown);
            write_atomically(&out_dir.join(name), |w| {
                write_single(format, trace, &file, w, stack).map_err(anyhow::Error::from)
            })
        }
    };
    match result {
        Ok(()) => Outcome::Done {
            scopes: trace.scopes.len(),
            damaged: decoded.is_damaged(),
            problems,
        },
        Err(err) => Outcome::Skipped(format!("cannot write: {err:#}")),
    }
}
