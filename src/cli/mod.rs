//! The command-line interface: subcommands over the engine.
//!
//! Exit status: 0 success; 1 unusable input; 2 usage error; 3 damaged
//! recording, answered from the intact frames; 4 the regression gate
//! (`--fail-on-regression`) tripped.

mod ab;
mod analyze;
mod desktop;
mod export;
mod file;
mod live;
mod mcp;
mod terminal;
mod text;

use anyhow::Context as _;
use clap::{CommandFactory as _, FromArgMatches as _, Parser, Subcommand};
use puffin_lens::engine::{self, Decoded};
use std::io::{BufWriter, IsTerminal as _, Write as _};
use std::path::{Path, PathBuf};

/// Exit status: everything decoded.
pub const EXIT_OK: i32 = 0;
/// Exit status: unusable input (missing file, not a recording, nothing decodable).
pub const EXIT_BAD_INPUT: i32 = 1;
/// Exit status: usage error.
pub const EXIT_USAGE: i32 = 2;
/// Exit status: damaged recording; the answer covers the intact frames.
pub const EXIT_DAMAGED: i32 = 3;
/// Exit status: `--fail-on-regression` tripped (it wins over 3).
pub const EXIT_REGRESSION: i32 = 4;
/// Exit status: `--fail-on-regression` could not tell: no cause's interval
/// lies above the limit, but one straddles it (it wins over 3; 4 wins over
/// it). Record more runs a side.
pub const EXIT_INCONCLUSIVE: i32 = 5;

#[derive(Parser)]
#[command(
    name = "puffin-lens",
    version,
    about = "Analyze .puffin profiler recordings (from apps instrumented with the puffin crate)",
    long_about = "Analyze .puffin profiler recordings (from apps instrumented with the puffin crate).\n\n\
Every subcommand accepts a .puffin recording (any version: PFD1-PFD4, lz4, zstd or \
uncompressed) or a JSON dump in the documented layout (ours or `rerun dump-puffin`'s).",
    after_help = "Exit status: 0 ok, 1 unusable input, 2 usage error, \
3 damaged recording (answered from the intact frames; stderr names each damaged frame), \
4 the regression gate of compare/report --fail-on-regression tripped, \
5 the gate was inconclusive (a cause's interval straddles the limit: record more runs a side).\n\n\
A typical investigation:\n  \
puffin-lens frames capture.puffin --top 5        # the slowest frames\n  \
puffin-lens threads capture.puffin               # per-thread totals of the slowest frame\n  \
puffin-lens top capture.puffin                   # the slowest scopes anywhere\n  \
puffin-lens tree capture.puffin --depth 3        # where the time goes, merged over frames\n  \
puffin-lens callers capture.puffin load_mesh     # who calls it, what it calls\n  \
puffin-lens find capture.puffin --aggregate      # total time per (name, data)\n  \
puffin-lens children capture.puffin frame_body --ordered   # drill in, with gaps\n  \
puffin-lens gaps capture.puffin --thread main    # unprofiled time, and who ran then\n  \
puffin-lens calls capture.puffin load_mesh       # outliers before averages\n  \
puffin-lens compare before.puffin after.puffin   # what changed\n  \
puffin-lens scope capture.puffin 3               # go to the code\n  \
puffin-lens report capture.puffin -o report.md   # all of the above in one document\n\n\
Live, from an app serving its frames with puffin_http:\n  \
puffin-lens connect 127.0.0.1:8585               # the desktop app, updating as frames arrive\n  \
puffin-lens record 127.0.0.1:8585 -o run.puffin --seconds 30   # headless, for CI\n  \
puffin-lens relay                                # for the web app: ?live=ws://127.0.0.1:8586\n\n\
For coding agents (MCP over stdio; see docs/agents.md):\n  \
puffin-lens mcp                                  # {\"command\": \"puffin-lens\", \"args\": [\"mcp\"]}\n\n\
Every analysis prints an aligned table, or JSON with --json.\n\n\
Without a subcommand, puffin-lens opens the desktop app (also: puffin-lens open A.puffin [B.puffin])."
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Open the desktop app, with recording A (and B, to compare) loaded.
    #[command(after_help = "Examples:\n  puffin-lens open capture.puffin\n  \
puffin-lens open before.puffin after.puffin\n  \
puffin-lens                                  # the app with nothing loaded\n\n\
Drop more files on the window, or use Open… (Ctrl/Cmd-O). Exit status: 0 when the window \
closes; 1 when no window can be opened (no display).")]
    Open {
        /// Recordings: A, then B (optional).
        #[arg(num_args = 0..=2)]
        files: Vec<PathBuf>,
    },
    /// Open the desktop app connected to a running app's puffin_http server.
    #[command(
        after_help = "Examples:\n  puffin-lens connect                    # 127.0.0.1:8585\n  \
puffin-lens connect 192.168.1.20:8585\n\n\
The app being profiled serves its frames with `puffin_http::Server::new(\"127.0.0.1:8585\")` \
(puffin_http 0.17, puffin 0.20; older servers work too). Frames stream into the views; \
the status line has Pause, Clear and Save recording. The connection comes back by itself \
when the app restarts. Exit status: 0 when the window closes; 1 when no window can be opened."
    )]
    Connect {
        /// The server: host:port (the port defaults to 8585).
        #[arg(default_value = "127.0.0.1:8585")]
        addr: String,
    },
    /// Save a running app's frames (puffin_http) to a .puffin file, headless.
    #[command(
        long_about = "Save a running app's frames to a .puffin file, without a window: for CI \
jobs that profile a run and then analyze it. Connects to the app's puffin_http server and \
records until --frames frames arrived, --seconds passed, Ctrl-C, or the app closes the \
connection; then saves what arrived (PFD4 with every scope registration: puffin 0.20, \
puffin_viewer and puffin-lens open it).",
        after_help = "Examples:\n  \
puffin-lens record 127.0.0.1:8585 -o run.puffin --frames 600\n  \
my_app & puffin-lens record 127.0.0.1:8585 -o run.puffin --seconds 30 && puffin-lens frames run.puffin --top 5\n\n\
puffin_http sends a frame only once the app ends one, and takes a new client at its next frame. \
Exit status: 0 frames saved; 1 nothing usable arrived (refused, protocol version, not puffin_http: \
one line says which); 2 usage error; 3 the stream broke after some frames (those are saved)."
    )]
    Record {
        /// The server: host:port (the port defaults to 8585).
        addr: String,
        /// The recording to write (replaced once the capture ends).
        #[arg(short, long, value_name = "FILE")]
        output: PathBuf,
        /// Stop after this many frames.
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
        frames: Option<u64>,
        /// Stop after this many seconds.
        #[arg(long, value_name = "S", value_parser = positive_seconds)]
        seconds: Option<f64>,
    },
    /// Forward a running app's puffin_http stream over a WebSocket, for the web app.
    #[command(
        long_about = "Forward a running app's puffin_http stream over a WebSocket, so that the \
web app (browsers cannot open TCP connections) shows it live: open the page with \
?live=ws://127.0.0.1:8586, or use Connect…. Each browser gets its own connection to the app; \
the relay reconnects to the app when it restarts.",
        after_help = "Examples:\n  \
puffin-lens relay                                   # 127.0.0.1:8585 -> ws://127.0.0.1:8586\n  \
puffin-lens relay 127.0.0.1:8585 --listen 127.0.0.1:9000\n  \
puffin-lens relay --allow-origin https://tools.example.com   # a hosted copy of the app\n\n\
Who may connect: the stream carries the app's scope names, data and file paths, so the relay \
serves only pages of the app. A browser names the page that opens a WebSocket (its Origin): \
the relay accepts http(s)://localhost, 127.0.0.1 and [::1] on any port (the app served on this \
machine), plus each --allow-origin, and refuses any other page with 403 and one log line \
naming it. On a loopback listener the Host header must name a loopback address too (no DNS \
rebinding). Clients that are not browsers send no Origin and are accepted.\n\n\
The relay listens on loopback only unless --listen names another interface (it says so when \
it starts). Exit status: 1 when it cannot listen; 2 for a bad --allow-origin; otherwise it \
runs until Ctrl-C."
    )]
    Relay {
        /// The server: host:port (the port defaults to 8585).
        #[arg(default_value = "127.0.0.1:8585")]
        addr: String,
        /// Where browsers connect (host:port).
        #[arg(long, default_value = "127.0.0.1:8586", value_name = "ADDR")]
        listen: String,
        /// Also serve pages of this origin (scheme://host[:port], e.g. a hosted copy of the
        /// app: https://tools.example.com; `null` for a page opened from a file). Repeatable.
        #[arg(long = "allow-origin", value_name = "ORIGIN", value_parser = live::parse_allowed_origin)]
        allow_origin: Vec<live::AllowedOrigin>,
    },
    /// Export many recordings as Parquet tables, JSON exports, or for other viewers, on all cores.
    #[command(
        long_about = "Export recordings as Parquet tables that DuckDB, Spark, Polars or DataFusion \
read as they are: one file per input and table, OUT/scopes/<input>.parquet (one row per scope \
instance), OUT/frames/<input>.parquet and OUT/scope_defs/<input>.parquet, so a dataset grows by \
adding files and engines read OUT/scopes/*.parquet. Folders are searched (recursively) for \
*.puffin and *.json. The schema is in README. Every row carries `recording`, the input's path.",
        after_help = "Examples:\n  \
puffin-lens export captures/ -o fleet/\n  \
puffin-lens export a.puffin b.puffin -o out/ --jobs 1\n  \
puffin-lens export captures/ -o traces/ --format chrome     # Perfetto UI, chrome://tracing\n  \
puffin-lens export capture.puffin -o - --format speedscope > capture.speedscope.json\n  \
puffin-lens export capture.puffin -o - --format folded | inferno-flamegraph > flame.svg\n  \
duckdb -c \"SELECT name, quantile_cont(duration_ns, 0.95) / 1e6 AS p95_ms FROM 'fleet/scopes/*.parquet' GROUP BY name ORDER BY p95_ms DESC LIMIT 10\"\n\n\
Other viewers: --format chrome writes OUT/<input>.trace.json (the Trace Event Format: every \
scope a complete event with its data, file and line; thread names; each frame's start as an \
instant event; times in µs from the first frame, its epoch ns in otherData.start_ns), \
speedscope OUT/<input>.speedscope.json (an evented profile per thread), folded \
OUT/<input>.folded (`thread;outer;…;inner self_ns`, as `flamegraph --folded`). -o - writes \
one input to stdout.\n\
Files are written under a temporary name and renamed, so nothing is ever half-written. \
Exit status: 0 all exported; 1 an input was unreadable (reported and skipped; the others are \
exported); 2 usage error; 3 a recording was damaged (its intact frames are exported)."
    )]
    Export {
        /// Recordings (.puffin or JSON dumps) and folders of them.
        #[arg(required = true, value_name = "FILE_OR_DIR")]
        inputs: Vec<PathBuf>,
        /// The output folder (created when missing); `-` for stdout (one input, and
        /// --format chrome, speedscope or folded).
        #[arg(short, long, value_name = "OUT_DIR")]
        output: PathBuf,
        /// What to write per input.
        #[arg(long, value_enum, default_value_t = export::ExportFormat::Parquet)]
        format: export::ExportFormat,
        /// Recordings exported at once (default: the number of cores). Peak memory is about
        /// this many times the largest recording's model.
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=1024))]
        jobs: Option<u64>,
        #[command(flatten)]
        transform: engine::api::TransformArgs,
    },
    /// The whole investigation in one document: Markdown, HTML or JSON.
    #[command(
        long_about = "The investigation of a recording in one document, with the workflow's \
judgement calls built in: the registration check (loud when names are scope#<id>), the slowest \
frames against the median (with a warning when the capture kept only some frames), the threads \
of the slowest frame, the slowest call of each name, totals per name with p95, the hot path of \
the merged tree (stopping where a scope's own time outweighs its largest child), unprofiled \
time (gaps that recur frame after frame, ranked by their total, and one-off gaps of at least \
--gap-ms, each with what the other threads ran meanwhile), and the outliers (a scope whose \
largest call, or whose calls in one frame, are more than half of its total).\n\n\
With B, first: the run-to-run drift (the per-call cost every busy name shares: machine speed or \
load, named when past the noise and judged against), what else differs between the runs; the \
frame's change (median and mean, judged) and the names that account for it (self time per frame \
on the busiest thread, with the drift's share and the share explained); what to look at first; \
every name judged by the noise model beyond the drift (slower/faster per call, runs more/less \
often, costlier/cheaper, one spike, new, gone; unchanged within noise is left out), with its \
(name, data) rows nested when data splits it; and where it changed in the differential tree. \
A recording that is one frame (an app that never ends a puffin frame) is said to be so and \
judged per second. Several runs a side (A1 A2 --vs B1 B2) make the noise model the spread \
between runs. --fail-on-regression PCT makes it a pull-request check (exit 4) that counts \
causes beyond the drift, never the drift alone (--fail-on-drift PCT opts in to that).",
        after_help = "Examples:\n  \
puffin-lens report capture.puffin                       # on a terminal: tables and bars\n  \
puffin-lens report before.puffin after.puffin | less    # Markdown when piped\n  \
puffin-lens report before.puffin after.puffin -o report.md   # for a pull request\n  \
puffin-lens report before.puffin after.puffin --fail-on-regression 2 --min-ms 0.1 -o report.md\n  \
puffin-lens report a1.puffin a2.puffin --vs b1.puffin b2.puffin -o report.md   # runs a side\n  \
puffin-lens report runs/ -o report.md                   # the pairs `ab` recorded in runs/\n  \
puffin-lens report capture.puffin -o report.html        # one self-contained page with charts\n  \
puffin-lens report before.puffin after.puffin --format json | jq .comparison.look_first\n\n\
--format defaults to the extension of -o (md, html, json, txt); to a terminal, text (aligned \
tables and text bars; NO_COLOR honoured); else md (a pipe, a file). In JSON the recordings' \
sections are the --json of their queries (frames, threads, gaps); the comparison's rows are \
judged per name. Exit status: 0 ok; 1 unusable input; 2 usage error; 3 a recording is damaged \
(reported from its intact frames); 4 the regression gate tripped (the report is written; stderr \
names the rows); 5 the gate was inconclusive (a cause's interval straddles the limit; stderr says \
how many runs a side would settle it)."
    )]
    Report {
        /// The recording (A), and a second one (B) to compare with it; with --vs, every
        /// recording of A (several runs of the same code); or a folder `ab` recorded (its
        /// finished pairs, judged paired).
        #[arg(required = true, num_args = 1.., value_name = "A [B]")]
        files: Vec<PathBuf>,
        /// Several runs a side: the recordings before --vs are A's, these are B's (the noise
        /// model then uses the spread between each side's runs).
        #[arg(long, num_args = 1.., value_name = "B")]
        vs: Option<Vec<PathBuf>>,
        /// md (GitHub Markdown), html (self-contained, with charts), json, or text (for a
        /// terminal: the default there).
        #[arg(long, value_enum)]
        format: Option<ReportFormat>,
        /// Write to this file instead of stdout.
        #[arg(short, long, value_name = "OUT")]
        output: Option<PathBuf>,
        /// Rows per list.
        #[arg(long, default_value_t = 10, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=100_000))]
        top: u64,
        /// Report single unprofiled gaps of at least this many milliseconds (and recurring
        /// ones whose total is).
        #[arg(long, default_value_t = 1.0, value_name = "MS", value_parser = non_negative_ms)]
        gap_ms: f64,
        #[command(flatten)]
        noise: engine::api::NoiseArgs,
        #[command(flatten)]
        gate: engine::api::GateArgs,
        #[command(flatten)]
        transform: engine::api::TransformArgs,
    },
    /// Run builds A and B alternately, keep every run's recording, and judge them
    #[command(
        long_about = "Run build A and build B alternately on this machine, A B B A … (an order \
that cancels a linear drift of the machine), --runs times each; keep each run's recording in \
--out (a1.puffin, b1.puffin, …) with manifest.json (the order, commands, start times, \
durations and exit codes); then judge them as pairs (run k of A with run k of B, which met the \
same machine: `report A1 A2 … --vs B1 B2 … --paired`; no drift subtracted, a slowdown every \
name shares is the code's). Each \
command writes its own recording: put {out} where it takes the output file (the tool puts \
each run's path there, quoted); or, with --addr, each command starts the app serving \
puffin_http there: the tool waits until it listens (--start-timeout), skips --warmup frames, \
records --frames frames and stops the app (its process group); or, with --attach, --a and \
--b are the addresses of two apps already running and each run records --frames frames from one \
of them. Commands run with `sh -c`.",
        after_help = "Examples:\n  \
puffin-lens ab --a './old/game --bench --record {out}' --b './new/game --bench --record {out}' \
--runs 5 --out runs/\n  \
puffin-lens ab --a './old/game' --b './new/game' --addr 127.0.0.1:8585 --frames 300 --out runs/\n  \
puffin-lens ab --attach --a 127.0.0.1:8585 --b 127.0.0.1:8586 --frames 300 --out runs/\n  \
puffin-lens ab --a './old/game --bench --record {out}' --b './new/game --bench --record {out}' \
--until-decided --max-runs 20 --fail-on-regression 2 --out runs/\n  \
puffin-lens report runs/                                  # judge the kept pairs again\n\n\
A progress line per run goes to stderr. A run that cannot start, exits non-zero or writes no \
recording stops the session with an error naming it; the runs before it stay in --out and \
in its manifest (so does every finished run on Ctrl-C); with --addr so does an app that \
exits before serving or never serves. With --until-decided (and --fail-on-regression) the \
session looks at the gate after --runs pairs (3) and, while a cause straddles the limit, records \
up to as many pairs as it needs (at least twice as many) until --max-runs (20); each look at \
alpha divided by the looks planned, so that looking more than once does not raise the chance of \
a false failure.\n\
Exit status: as `report` (0 written; 4 or 5 from --fail-on-regression); 1 a run failed or a \
recording is unusable; 2 usage error (--out not empty without --force, a command without \
{out})."
    )]
    Ab {
        /// Build A's command (before), writing its recording to {out}.
        #[arg(long, value_name = "CMD")]
        a: String,
        /// Build B's command (after), writing its recording to {out}.
        #[arg(long, value_name = "CMD")]
        b: String,
        /// Runs of each build (5); with --until-decided, the pairs of the first look (3).
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=1000))]
        runs: Option<u64>,
        /// Record until the regression gate is decided: look at the gate after --runs
        /// pairs, then after at least twice as many (as many as its undecided causes
        /// need), up to --max-runs; each look at alpha divided by the looks the budget
        /// allows, so the session's chance of a false failure stays within alpha.
        #[arg(long, requires = "fail_on_regression")]
        until_decided: bool,
        /// With --until-decided: the most runs of each build.
        #[arg(long, default_value_t = 20, value_name = "N", requires = "until_decided", value_parser = clap::value_parser!(u64).range(1..=1000))]
        max_runs: u64,
        /// The folder the runs and manifest.json are kept in (new or empty).
        #[arg(long, value_name = "DIR")]
        out: PathBuf,
        /// Write into --out even when it holds files.
        #[arg(long)]
        force: bool,
        /// Record each run from the app's puffin_http server at this address (the
        /// commands start the app; the tool stops it) instead of a file it writes.
        #[arg(long, value_name = "HOST:PORT")]
        addr: Option<String>,
        /// --a and --b are the addresses (host:port) of two apps already running and
        /// serving puffin_http: each run records --frames frames from one of them,
        /// alternately (nothing is started or stopped).
        #[arg(long, conflicts_with = "addr")]
        attach: bool,
        /// With --addr or --attach: the frames recorded in each run.
        #[arg(long, default_value_t = 300, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
        frames: u64,
        /// With --addr or --attach: the frames skipped first in each run (start-up,
        /// warm-up).
        #[arg(long, default_value_t = 30, value_name = "N")]
        warmup: u64,
        /// With --addr: the seconds an app may take to start serving (and, with --attach
        /// too, the longest a frame may take to come).
        #[arg(long, default_value_t = 30.0, value_name = "S", value_parser = positive_seconds)]
        start_timeout: f64,
        /// md (GitHub Markdown), html, json or text (for a terminal).
        #[arg(long, value_enum)]
        format: Option<ReportFormat>,
        /// Write the report to this file instead of stdout.
        #[arg(short, long, value_name = "FILE")]
        output: Option<PathBuf>,
        /// Rows per list.
        #[arg(long, default_value_t = 10, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=100_000))]
        top: u64,
        #[command(flatten)]
        noise: engine::api::NoiseArgs,
        #[command(flatten)]
        gate: engine::api::GateArgs,
    },
    /// An interactive flame graph (SVG) of the merged call tree, or of A against B.
    #[command(
        long_about = "An interactive SVG flame graph of the merged call tree (the `tree` \
query's merging: instances merged by their path of scope names, threads by name), rendered by \
the inferno crate from the folded stacks: click to zoom, Ctrl-F to search, as flamegraph.pl's. \
Widths are self time summed in nanoseconds; colours by name. With --diff B: the differential \
flame graph, widths from B, red where B is slower, blue where it is faster (each stack's self \
time per frame in A against B: each side's sum divided by its frames, per second when a side is \
one frame, so recordings of different lengths compare).",
        after_help = "Examples:\n  \
puffin-lens flamegraph capture.puffin -o flame.svg\n  \
puffin-lens flamegraph capture.puffin --thread main --frame 42 -o frame42.svg\n  \
puffin-lens flamegraph before.puffin --diff after.puffin -o what-changed.svg\n  \
puffin-lens flamegraph capture.puffin --folded | inferno-flamegraph > flame.svg\n\n\
--folded prints the folded stacks instead (`thread;outer;…;inner self_ns`, sorted; in a name \
`%` is written %25 and `;` %3B), the input of flamegraph.pl, inferno and speedscope.\n\
Exit status: 0 written; 1 unusable input; 2 usage error; 3 a recording is damaged (drawn from \
its intact frames)."
    )]
    Flamegraph {
        /// The recording.
        file: PathBuf,
        /// Draw B against the recording (a differential flame graph).
        #[arg(long, value_name = "B")]
        diff: Option<PathBuf>,
        /// Only the threads of this name.
        #[arg(long, value_name = "NAME")]
        thread: Option<String>,
        /// Only the frame with this frame_index (not with --diff).
        #[arg(long, value_name = "I", conflicts_with = "diff")]
        frame: Option<u64>,
        /// Print the folded stacks instead of the SVG.
        #[arg(long)]
        folded: bool,
        /// Write to this file instead of stdout.
        #[arg(short, long, value_name = "OUT")]
        output: Option<PathBuf>,
        #[command(flatten)]
        transform: engine::api::TransformArgs,
    },
    /// The analyses as an MCP server over stdio, for coding agents.
    #[command(
        long_about = "Serve the analyses to a coding agent over the Model Context Protocol (MCP), \
on stdin and stdout (stdout carries the protocol only; diagnostics go to stderr). Tools: \
open_recording (an id and a summary with anything unusual), report (the judged investigation, \
condensed and paged), calls, window, gaps, tree, children, compare, scope, query (any other \
analysis), record (from a running app's puffin_http server), close_recording. Each answer is the \
--json of the same CLI query, its text capped (max_bytes, default 24000) with a note saying what \
was cut. Errors (a bad path, an unknown id, bad arguments) are tool errors. The instructions are \
docs/agents.md's guidance; the whole guide is the resource puffin-lens://docs/agents.md; the \
prompt investigate_pair walks a before/after pair.",
        after_help = "A client's configuration (Claude Desktop, Cursor, VS Code, …):\n  \
{\"mcpServers\": {\"puffin-lens\": {\"command\": \"puffin-lens\", \"args\": [\"mcp\"]}}}\n\n\
Try it: npx @modelcontextprotocol/inspector --cli puffin-lens mcp --method tools/list\n\n\
Exit status: 0 when the client closes stdin (even in the middle of a call); 1 when the session \
cannot start."
    )]
    Mcp,
    /// Make .puffin files open with puffin-lens on a Linux desktop (or undo it).
    #[command(
        long_about = "Install the Linux desktop integration for this user: a .desktop entry \
(applications/puffin-lens.desktop, running this binary with `open %F`), a shared-mime-info type \
application/x-puffin for *.puffin files and files starting with PUF0 \
(mime/packages/puffin-lens.xml), and the icon, under $XDG_DATA_HOME (default ~/.local/share). \
File managers then offer puffin-lens for recordings. Run it again after moving the binary.",
        after_help = "Examples:\n  puffin-lens install-desktop\n  \
xdg-mime default puffin-lens.desktop application/x-puffin   # make it the default\n  \
puffin-lens install-desktop --uninstall\n\n\
Exit status: 0 done; 1 the files cannot be written."
    )]
    InstallDesktop {
        /// Remove what install-desktop wrote.
        #[arg(long)]
        uninstall: bool,
    },
    /// What a recording holds: frames, threads, scopes, time span, format, problems.
    #[command(after_help = "Examples:\n  puffin-lens summary capture.puffin\n  \
puffin-lens summary capture.puffin --json\n\n\
JSON: {\"file\",\"frames\",\"threads\",\"scopes\",\"recording_start_ns\",\"start_ns\",\"end_ns\",\"span_ns\",\"formats\",\
\"compressions\",\"registered_scopes\",\"has_registration\",\"slowest_frame_index\",\
\"slowest_frame_ns\",\"unregistered_scope_ids\":[{\"id\",\"instances\"}],\"frame_index_range\":[first,last],\
\"frames_absent\",\"damaged\",\"diagnostics\",\"overlapping_frames\" (only when frames overlap: new_frame called inside a scope)}; \"file\" is the bare file name, as in the web app.")]
    Summary {
        /// The recording: a .puffin file or a JSON dump.
        file: PathBuf,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Write the documented JSON export of a recording.
    #[command(
        long_about = "Write the documented JSON export of a recording (layout in README): \
registered scopes, then every frame in file order with its threads and nested scopes.\n\n\
The output works with the classic jq recipes written for `rerun dump-puffin`.",
        after_help = "Examples:\n  \
puffin-lens dump capture.puffin > capture.json\n  \
puffin-lens dump capture.puffin --pretty -o capture.json\n  \
puffin-lens dump capture.puffin | jq '[.. | objects | select(has(\"duration_ns\") and has(\"name\"))] | sort_by(-.duration_ns) | .[0:10]'\n\n\
Exit status: 0 ok; 1 unusable input; 2 usage error; 3 damaged recording: the export holds the \
intact frames and stderr names each damaged frame (position, frame_index, byte offset, reason)."
    )]
    Dump {
        /// The recording: a .puffin file or a JSON dump.
        file: PathBuf,
        /// Write to this file instead of stdout.
        #[arg(short, long, value_name = "OUT")]
        output: Option<PathBuf>,
        /// Indent the JSON (two spaces) instead of writing it compactly.
        #[arg(long)]
        pretty: bool,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum ReportFormat {
    Md,
    Html,
    Json,
    /// For a terminal: the headline, text bars and aligned tables (the
    /// default when stdout is one and no -o is given).
    Text,
}

/// `--gap-ms`: zero or more.
fn non_negative_ms(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(v) if v >= 0.0 && v.is_finite() => Ok(v),
        _ => Err(format!(
            "expected a number of milliseconds (0 or more), got {s:?}"
        )),
    }
}

fn report_cmd(
    files: Vec<PathBuf>,
    vs: Option<Vec<PathBuf>>,
    format: Option<ReportFormat>,
    output: Option<&Path>,
    opts: engine::report::ReportOptions,
    stack: &engine::analyses::transform::Stack,
) -> anyhow::Result<i32> {
    let format = report_format(format, output);
    // `A`, `A B`, several runs a side (`A1 A2 --vs B1 B2`), or a folder of
    // `ab` runs (paired).
    let mut opts = opts;
    let (files, vs) = match (files.as_slice(), &vs) {
        ([dir], None) if dir.is_dir() => {
            let (a, b) = match ab::runs_in(dir) {
                Ok(runs) => runs,
                Err(err) => {
                    eprintln!("puffin-lens: error: {err:#}");
                    return Ok(EXIT_BAD_INPUT);
                }
            };
            opts.noise = engine::runs_manifest::paired_noise(opts.noise);
            (a, Some(b))
        }
        _ => (files, vs),
    };
    if opts.noise.paired && vs.as_ref().is_some_and(|b| b.len() != files.len()) {
        eprintln!(
            "puffin-lens: error: --paired pairs run k of A with run k of B: give as many a side \
             ({} against {})",
            files.len(),
            vs.as_ref().map_or(0, Vec::len)
        );
        return Ok(EXIT_USAGE);
    }
    let (a, b): (Vec<PathBuf>, Option<Vec<PathBuf>>) = match vs {
        Some(b) => (files, Some(b)),
        None => match files.as_slice() {
            [_] => (files, None),
            [a, b] => (vec![a.clone()], Some(vec![b.clone()])),
            _ => {
                eprintln!(
                    "puffin-lens: error: report takes A, or A and B; several runs a side are \
                     written A1 A2 --vs B1 B2"
                );
                return Ok(EXIT_USAGE);
            }
        },
    };
    if opts.gate.is_some() && b.is_none() {
        eprintln!("puffin-lens: error: --fail-on-regression compares two recordings: give B too");
        return Ok(EXIT_USAGE);
    }
    if opts.tail_gate.is_set() && b.is_none() {
        eprintln!(
            "puffin-lens: error: --fail-on-p99 and --fail-on-low compare two recordings: give B too"
        );
        return Ok(EXIT_USAGE);
    }
    let judged = judge(&a, b.as_deref(), opts, stack)?;
    emit(&judged, format, output)
}

/// The report's format: as asked, else by `output`'s extension (md, html,
/// json), else Markdown.
fn report_format(format: Option<ReportFormat>, output: Option<&Path>) -> ReportFormat {
    format.unwrap_or_else(|| {
        match output
            .and_then(|o| o.extension())
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase)
            .as_deref()
        {
            Some("html" | "htm") => ReportFormat::Html,
            Some("json") => ReportFormat::Json,
            Some("txt") => ReportFormat::Text,
            // Markdown is for files and pipes; a person at a terminal
            // reads the text.
            None if output.is_none() && std::io::stdout().is_terminal() => ReportFormat::Text,
            _ => ReportFormat::Md,
        }
    })
}

/// A report judged: the report, A's first timestamp (JSON's times count
/// from it), and whether a recording was damaged.
struct Judged {
    report: engine::report::Report,
    start_ns: i64,
    damaged: bool,
}

/// Loads A's recordings (and B's) and judges them as `report` does.
fn judge(
    a: &[PathBuf],
    b: Option<&[PathBuf]>,
    opts: engine::report::ReportOptions,
    stack: &engine::analyses::transform::Stack,
) -> anyhow::Result<Judged> {
    let (da, db) = load_sides(a, b)?;
    if opts.noise.paired
        && let Some(db) = &db
        && da.trace.run_count() != db.trace.run_count()
    {
        anyhow::bail!(
            "--paired: {} run(s) of A could be read against {} of B; run k of A pairs with run \
             k of B, so a run that cannot be read leaves its pair out: judge the others",
            da.trace.run_count(),
            db.trace.run_count()
        );
    }
    let name = |paths: &[PathBuf]| {
        let names: Vec<String> = paths
            .iter()
            .map(|p| puffin_lens::app::file_name(&p.to_string_lossy()))
            .collect();
        names.join(" + ")
    };
    let (na, nb) = (name(a), b.map(name));
    let report = engine::report::Report::transformed(
        (&na, &da),
        nb.as_deref().zip(db.as_ref()),
        opts,
        stack,
    );
    Ok(Judged {
        report,
        start_ns: da.trace.recording_start_ns(),
        damaged: da.is_damaged() || db.as_ref().is_some_and(|d| d.is_damaged()),
    })
}

/// Writes a judged report in `format` (to `output`, or stdout) and tells
/// the gate's verdict on stderr: the exit status.
fn emit(judged: &Judged, format: ReportFormat, output: Option<&Path>) -> anyhow::Result<i32> {
    let report = &judged.report;
    let text = match format {
        ReportFormat::Md => report.markdown(),
        ReportFormat::Html => report.html(),
        ReportFormat::Text => terminal::render(
            report,
            output.is_none() && std::io::stdout().is_terminal() && terminal::colour_wanted(),
        ),
        // Each recording's times from its own start; the comparison's from A's.
        ReportFormat::Json => {
            serde_json::to_string_pretty(&engine::reltime::RelTimes::new(report, judged.start_ns))?
                + "\n"
        }
    };
    match output {
        Some(out) => write_atomically(out, |w| Ok(w.write_all(text.as_bytes())?))?,
        None => {
            let mut stdout = std::io::stdout().lock();
            stdout.write_all(text.as_bytes())?;
            stdout.flush()?;
        }
    }
    let comparison = report.comparison.as_ref();
    let gate = comparison.and_then(|c| c.gate.as_ref());
    let tail = comparison
        .and_then(|c| c.pacing.as_ref())
        .and_then(|p| p.gate.as_ref());
    let mut text = String::new();
    if let Some(g) = gate.filter(|g| g.failed() || g.is_inconclusive()) {
        analyze::render_gate(&mut text, g);
    }
    if let Some(t) = tail.filter(|t| t.failed() || t.is_inconclusive()) {
        analyze::render_tail_gate(&mut text, t);
    }
    eprint!("{text}");
    Ok(if let Some(status) = analyze::gate_status(gate, tail) {
        status
    } else if judged.damaged {
        EXIT_DAMAGED
    } else {
        EXIT_OK
    })
}

fn flamegraph(
    a: &Path,
    b: Option<&Path>,
    thread: Option<&str>,
    frame: Option<u64>,
    folded_only: bool,
    output: Option<&Path>,
    stack: &engine::analyses::transform::Stack,
) -> anyhow::Result<i32> {
    use puffin_lens::engine::write::folded;
    let da = load(a)?;
    let db = b.map(load).transpose()?;
    let name = |p: &Path| puffin_lens::app::file_name(&p.to_string_lossy());
    let trace = &da.trace;
    // The thread's name, from its name or its label in the tables.
    let traces: Vec<&engine::Trace> = std::iter::once(trace)
        .chain(db.as_ref().map(|d| &d.trace))
        .collect();
    let thread = thread
        .map(|t| engine::analyses::resolve_thread(&traces, t))
        .transpose()
        .with_context(|| match b {
            Some(b) => format!("{} and {}", a.display(), b.display()),
            None => a.display().to_string(),
        })?;
    let thread = thread.as_deref();
    let frames = match frame {
        Some(i) => {
            let f = engine::analyses::frame_by_index(trace, i)
                .with_context(|| format!("{}: no frame with frame_index {i}", a.display()))?;
            f.0..f.0 + 1
        }
        None => 0..trace.frames.len() as u32,
    };
    let lines = match &db {
        Some(db) => folded::folded_diff(trace, &db.trace, thread, stack),
        None => folded::folded_transformed(trace, frames, thread, stack),
    };
    let bytes = if folded_only {
        lines.into_bytes()
    } else {
        let what = match (thread.map(puffin_lens::units::thread_label), frame) {
            (Some(t), Some(i)) => format!(" (thread {t}, frame {i})"),
            (Some(t), None) => format!(" (thread {t})"),
            (None, Some(i)) => format!(" (frame {i})"),
            (None, None) => String::new(),
        };
        let title = match &b {
            Some(b) => format!("{} → {}{what}", name(a), name(b)),
            None => format!("{}{what}", name(a)),
        };
        let subtitle = b.map(|_| {
            "widths: B per frame; red: slower in B, blue: faster (self time per stack per frame)"
                .to_owned()
        });
        folded::flamegraph_svg(&lines, &title, subtitle).context("cannot draw the flame graph")?
    };
    match output {
        Some(out) => write_atomically(out, |w| Ok(w.write_all(&bytes)?))?,
        None => {
            let mut stdout = std::io::stdout().lock();
            stdout.write_all(&bytes)?;
            stdout.flush()?;
        }
    }
    let damaged = da.is_damaged() || db.as_ref().is_some_and(|d| d.is_damaged());
    Ok(if damaged { EXIT_DAMAGED } else { EXIT_OK })
}

/// `--seconds`, `--start-timeout`: a positive number.
fn positive_seconds(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(v) if v > 0.0 && v.is_finite() => Ok(v),
        _ => Err(format!("expected a positive number of seconds, got {s:?}")),
    }
}

pub fn main() -> i32 {
    let command = analyze::add_subcommands(Cli::command());
    let parsed = command
        .try_get_matches()
        .and_then(|matches| match matches.subcommand_name() {
            Some(name) if analyze::is_analysis(name) => Ok(Parsed::Analysis(matches)),
            _ => Cli::from_arg_matches(&matches).map(Parsed::Cli),
        });
    let cli = match parsed {
        Ok(Parsed::Analysis(matches)) => {
            return match analyze::run(&matches) {
                Ok(code) => code,
                Err(err) => report(&err),
            };
        }
        Ok(Parsed::Cli(cli)) => cli,
        Err(err) => {
            // Prints help/version to stdout, usage errors to stderr.
            let _ = err.print();
            return if err.use_stderr() {
                EXIT_USAGE
            } else {
                EXIT_OK
            };
        }
    };
    match run(cli) {
        Ok(code) => code,
        Err(err) => report(&err),
    }
}

enum Parsed {
    Cli(Cli),
    Analysis(clap::ArgMatches),
}

/// Reports an error once: one line on stderr, exit 2 for a thread the
/// recording does not have (a usage error) and 1 for the rest (a closed
/// stdout pipe ends quietly).
fn report(err: &anyhow::Error) -> i32 {
    if is_broken_pipe(err) {
        return EXIT_OK;
    }
    eprintln!("puffin-lens: error: {err:#}");
    if err
        .chain()
        .any(|cause| cause.is::<engine::analyses::UnknownThread>())
    {
        EXIT_USAGE
    } else {
        EXIT_BAD_INPUT
    }
}

/// The desktop app's log on stderr: what it loaded (info) and problems
/// (warnings and errors from any crate).
struct StderrLog;

impl log::Log for StderrLog {
    fn enabled(&self, meta: &log::Metadata<'_>) -> bool {
        meta.level() <= log::Level::Warn
            || (meta.level() <= log::Level::Info && meta.target().starts_with("puffin_lens"))
    }

    fn log(&self, record: &log::Record<'_>) {
        if self.enabled(record.metadata()) {
            eprintln!("puffin-lens: {}", record.args());
        }
    }

    fn flush(&self) {}
}

fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|cause| {
        cause
            .downcast_ref::<std::io::Error>()
            .is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

fn run(cli: Cli) -> anyhow::Result<i32> {
    match cli.command.unwrap_or(Command::Open { files: Vec::new() }) {
        Command::Open { files } => {
            static LOG: StderrLog = StderrLog;
            if log::set_logger(&LOG).is_ok() {
                log::set_max_level(log::LevelFilter::Info);
            }
            for f in &files {
                anyhow::ensure!(f.is_file(), "{}: no such file", f.display());
            }
            puffin_lens::app::run_native(files)
                .map_err(|err| anyhow::anyhow!("cannot open the app window: {err}"))?;
            Ok(EXIT_OK)
        }
        Command::Connect { addr } => {
            static LOG: StderrLog = StderrLog;
            if log::set_logger(&LOG).is_ok() {
                log::set_max_level(log::LevelFilter::Info);
            }
            puffin_lens::app::run_native_live(addr)
                .map_err(|err| anyhow::anyhow!("cannot open the app window: {err}"))?;
            Ok(EXIT_OK)
        }
        Command::Record {
            addr,
            output,
            frames,
            seconds,
        } => live::record(&addr, &output, frames, seconds),
        Command::Relay {
            addr,
            listen,
            allow_origin,
        } => live::relay(&addr, &listen, &allow_origin),
        Command::Export {
            inputs,
            output,
            format,
            jobs,
            transform,
        } => export::export(
            &inputs,
            &output,
            format,
            jobs.map(|j| j as usize),
            &transform.transforms,
        ),
        Command::Report {
            files,
            vs,
            format,
            output,
            top,
            gap_ms,
            noise,
            gate,
            transform,
        } => report_cmd(
            files,
            vs,
            format,
            output.as_deref(),
            engine::report::ReportOptions {
                top: top as usize,
                gap_ms,
                noise: noise.noise().map_err(anyhow::Error::msg)?,
                gate: gate.gate().map_err(anyhow::Error::msg)?,
                tail_gate: gate.tail_gate().map_err(anyhow::Error::msg)?,
            },
            &transform.transforms,
        ),
        Command::Ab {
            a,
            b,
            runs,
            until_decided,
            max_runs,
            out,
            force,
            addr,
            attach,
            frames,
            warmup,
            start_timeout,
            format,
            output,
            top,
            noise,
            gate,
        } => {
            let runs = runs.unwrap_or(if until_decided { 3 } else { 5 }) as usize;
            let max_runs = if until_decided {
                max_runs as usize
            } else {
                runs
            };
            if runs > max_runs {
                eprintln!("puffin-lens: error: --runs {runs} is more than --max-runs {max_runs}");
                return Ok(EXIT_USAGE);
            }
            let recorder = match addr {
                Some(addr) => ab::Recorder::Http {
                    addr,
                    frames,
                    warmup,
                    start_timeout_s: start_timeout,
                },
                None if attach => ab::Recorder::Attached {
                    frames,
                    warmup,
                    stall_s: start_timeout,
                },
                None => ab::Recorder::Out,
            };
            if let Err(err) =
                engine::record::ab::check(&a, &b, runs, &out, force, &recorder, ab::NAMES)
            {
                eprintln!("puffin-lens: error: {err:#}");
                return Ok(EXIT_USAGE);
            }
            // The runs alternated: paired, the machine not subtracted.
            let noise = engine::api::NoiseArgs {
                paired: true,
                ..noise
            };
            let mut opts = engine::report::ReportOptions {
                top: top as usize,
                gap_ms: 1.0,
                noise: noise.noise().map_err(anyhow::Error::msg)?,
                gate: gate.gate().map_err(anyhow::Error::msg)?,
                tail_gate: gate.tail_gate().map_err(anyhow::Error::msg)?,
            };
            // Each look at the gate spends its share of alpha.
            let looks = ab::looks(runs, max_runs);
            opts.noise.alpha /= looks as f64;
            let stack = engine::analyses::transform::Stack::default();
            let mut session = ab::session(&a, &b, &out, &recorder)?;
            let mut pairs = runs;
            let judged = loop {
                ab::record_until(&mut session, pairs)?;
                let judged = judge(&session.files_a, Some(&session.files_b), opts, &stack)?;
                let gate = (judged.report.comparison.as_ref()).and_then(|c| c.gate.as_ref());
                let Some(g) = gate.filter(|g| until_decided && g.is_inconclusive()) else {
                    break judged;
                };
                if pairs >= max_runs {
                    eprintln!(
                        "puffin-lens ab: {pairs} pairs (--max-runs) and the gate is still \
                         undecided"
                    );
                    break judged;
                }
                let next = ab::next_look(pairs, g.runs_to_settle(pairs), max_runs);
                eprintln!(
                    "puffin-lens ab: after {pairs} pairs the gate is undecided ({} cause(s) \
                     straddle the limit at alpha {:.4}): recording up to {next} pairs",
                    g.inconclusive.len(),
                    opts.noise.alpha
                );
                pairs = next;
            };
            if until_decided {
                eprintln!(
                    "puffin-lens ab: judged after {} pairs ({} run(s) in all, {looks} look(s) \
                     planned, each at alpha {:.4})",
                    session.pairs(),
                    2 * session.pairs(),
                    opts.noise.alpha
                );
            }
            emit(
                &judged,
                report_format(format, output.as_deref()),
                output.as_deref(),
            )
        }
        Command::Flamegraph {
            file,
            diff,
            thread,
            frame,
            folded,
            output,
            transform,
        } => flamegraph(
            &file,
            diff.as_deref(),
            thread.as_deref(),
            frame,
            folded,
            output.as_deref(),
            &transform.transforms,
        ),
        Command::InstallDesktop { uninstall } => desktop::install_desktop(uninstall),
        Command::Mcp => mcp::serve(),
        Command::Summary { file, json } => summary(&file, json),
        Command::Dump {
            file,
            output,
            pretty,
        } => dump(&file, output.as_deref(), pretty),
    }
}

/// Reads and decodes a recording, reporting diagnostics on stderr.
/// Errors (exit 1) when nothing usable is left.
pub(crate) fn load(path: &Path) -> anyhow::Result<Decoded> {
    told(path, decode(path))
}

/// [`load`] without a word on stderr: the decoded recording, or why not.
fn decode(path: &Path) -> anyhow::Result<anyhow::Result<Decoded>> {
    let shown = path.display();
    Ok(file::decode(path)
        .with_context(|| format!("{shown}"))?
        .with_context(|| format!("{shown}")))
}

/// What [`decode`] found, its diagnostics said on stderr.
fn told(path: &Path, decoded: anyhow::Result<anyhow::Result<Decoded>>) -> anyhow::Result<Decoded> {
    let shown = path.display();
    let decoded = decoded??;
    for d in &decoded.diagnostics {
        eprintln!("puffin-lens: {}: {shown}: {d}", d.severity.as_str());
    }
    if decoded.trace.frames.is_empty() && decoded.is_damaged() {
        anyhow::bail!("{shown}: no frame could be decoded");
    }
    Ok(decoded)
}

/// Side A and (when given) side B, as [`load_side`] loads them: one file a
/// side is decoded at once with the other (on another core), its words on
/// stderr then said in order, A's first.
pub(crate) fn load_sides(
    a: &[PathBuf],
    b: Option<&[PathBuf]>,
) -> anyhow::Result<(Decoded, Option<Decoded>)> {
    if let ([one_a], Some([one_b])) = (a, b) {
        let (da, db) = rayon::join(|| decode(one_a), || decode(one_b));
        let da = told(one_a, da)?;
        return Ok((da, Some(told(one_b, db)?)));
    }
    let da = load_side(a, "A")?;
    Ok((da, b.map(|b| load_side(b, "B")).transpose()?))
}

/// A side's recordings as one (several runs of the same code, `A1 A2 --vs
/// B1 B2`: [`engine::model::concat`]); one is loaded as it is. A run that
/// cannot be read is named on stderr and left out; none readable is an
/// error.
pub(crate) fn load_side(paths: &[PathBuf], side: &str) -> anyhow::Result<Decoded> {
    if let [one] = paths {
        return load(one);
    }
    let (mut runs, mut diagnostics) = (Vec::new(), Vec::new());
    for p in paths {
        match load(p) {
            Ok(d) => {
                runs.push(d.trace);
                diagnostics.extend(d.diagnostics);
            }
            // Named, left out, and the answer marked as from part of the
            // input (exit 3, as a damaged recording's).
            Err(err) => {
                eprintln!("puffin-lens: error: {err:#} (left out of {side}'s runs)");
                diagnostics.push(engine::Diagnostic {
                    severity: engine::Severity::Damage,
                    record: None,
                    frame_index: None,
                    byte_offset: 0,
                    message: format!("{}: left out of {side}'s runs: {err:#}", p.display()),
                });
            }
        }
    }
    if runs.is_empty() {
        anyhow::bail!(
            "{side}: none of its {} recordings could be read",
            paths.len()
        );
    }
    Ok(Decoded {
        trace: engine::model::concat(runs),
        diagnostics,
    })
}

/// How a side is named in messages: its file, or its runs' files joined.
pub(crate) fn side_name(paths: &[PathBuf]) -> String {
    let names: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
    names.join(" + ")
}

pub(crate) fn status(decoded: &Decoded) -> i32 {
    if decoded.is_damaged() {
        EXIT_DAMAGED
    } else {
        EXIT_OK
    }
}

fn summary(path: &Path, json: bool) -> anyhow::Result<i32> {
    let decoded = load(path)?;
    let name = puffin_lens::app::file_name(&path.to_string_lossy());
    let s = engine::api::summary(&name, &decoded);
    let out = if json {
        s.to_json() + "\n"
    } else {
        let list = |v: &[String]| {
            if v.is_empty() {
                "-".to_owned()
            } else {
                v.join(", ")
            }
        };
        let mut out = format!(
            "file               {}\nframes             {}\nthreads            {}\nscopes             {}\n\
time span          {} ms\nformat             {}\ncompression        {}\nregistered scopes  {}{}\n",
            s.file,
            s.frames,
            s.threads,
            s.scopes,
            text::ms(s.span_ns),
            list(&s.formats),
            list(&s.compressions),
            s.registered_scopes,
            if s.has_registration {
                ""
            } else {
                " (no registration: names are scope#<id>)"
            },
        );
        if let Some(i) = s.slowest_frame_index {
            out += &format!(
                "slowest frame      {i} ({} ms)\n",
                text::ms(s.slowest_frame_ns)
            );
        }
        if let Some([first, last]) = s.frame_index_range {
            let cov = engine::analyses::frame_coverage(&decoded.trace);
            out += &match cov.as_ref().and_then(engine::analyses::absent_note) {
                Some(note) => format!("frame indices      {note}\n"),
                None => format!("frame indices      {first}-{last}, all in this recording\n"),
            };
        }
        if let Some(note) = engine::analyses::unregistered_note(&s.unregistered_scope_ids) {
            out += &format!("unregistered ids   {note}\n");
        }
        if s.damaged {
            out += "damaged            yes: only the intact frames are counted\n";
        }
        if let Some(x) = &s.overlapping_frames {
            out += &format!("overlapping frames {}\n", x.sentence);
        }
        out
    };
    let mut stdout = std::io::stdout().lock();
    stdout.write_all(out.as_bytes())?;
    stdout.flush()?;
    Ok(status(&decoded))
}

fn dump(path: &Path, output: Option<&Path>, pretty: bool) -> anyhow::Result<i32> {
    let decoded = load(path)?;
    let name = path.to_string_lossy();
    match output {
        Some(out) => {
            let file = std::fs::File::create(out)
                .with_context(|| format!("{}: cannot create", out.display()))?;
            engine::write_export(&decoded.trace, &name, file, pretty)
                .with_context(|| format!("{}: cannot write", out.display()))?;
        }
        None => {
            let stdout = std::io::stdout();
            let terminal = stdout.is_terminal();
            let mut lock = engine::write_export(&decoded.trace, &name, stdout.lock(), pretty)
                .context("cannot write to stdout")?;
            if terminal {
                let _ = writeln!(lock);
            }
        }
    }
    Ok(status(&decoded))
}

/// Writes through `write` to a temporary name next to `path`, then renames
/// it: `path` is never half-written, and a failed write leaves nothing. A
/// `path` that is not a regular file (a device, a FIFO) is written in place.
pub(crate) fn write_atomically(
    path: &Path,
    write: impl FnOnce(&mut BufWriter<std::fs::File>) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    // A device, a pipe or a socket (`-o /dev/null`, `-o /dev/stdout`, a
    // FIFO) is written in place: a rename would replace it with a file.
    if std::fs::metadata(path).is_ok_and(|m| !m.is_file()) {
        let file = std::fs::OpenOptions::new()
            .write(true)
            .open(path)
            .with_context(|| format!("{}", path.display()))?;
        let mut w = BufWriter::with_capacity(1 << 20, file);
        write(&mut w)?;
        return Ok(w.flush()?);
    }
    let mut tmp_name = std::ffi::OsString::from(".");
    tmp_name.push(path.file_name().unwrap_or_default());
    tmp_name.push(".part");
    let tmp = path.with_file_name(tmp_name);
    let result = (|| {
        let file = std::fs::File::create(&tmp).with_context(|| format!("{}", tmp.display()))?;
        let mut w = BufWriter::with_capacity(1 << 20, file);
        write(&mut w)?;
        w.flush()?;
        std::fs::rename(&tmp, path).with_context(|| format!("{}", path.display()))
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}
