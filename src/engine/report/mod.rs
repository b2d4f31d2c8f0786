//! `puffin-lens report`: the investigation of SPEC.md in one document, built
//! from the existing queries (each JSON section is the `--json` of its
//! query), with the workflow's judgement calls: registration first,
//! outliers before averages, gaps with the other threads, and changes that
//! one spike explains called out as such.
//!
//! Rendered as GitHub-flavoured Markdown ([`Report::markdown`]), one
//! self-contained HTML page with inline SVG charts ([`Report::html`]), or
//! JSON (serde).

use super::analyses::accounting::FrameChange;
use super::analyses::basis::{Basis, Unframed};
use super::analyses::common::Applied;
use super::analyses::compare::SideStats;
use super::analyses::drift::Drift;
use super::analyses::gap_diff::GapChanges;
use super::analyses::gate::{Gate, GateResult};
use super::analyses::judge::{Change, Noise};
use super::analyses::pacing::TailGate;
use super::analyses::shape::Shape;
use super::analyses::tail::Tail;
use super::analyses::transform::{Stack, transformed_with_nodes};
use super::analyses::tree::MAX_REPORT_LEVELS;
use super::analyses::wait_diff::WaitChange;
use crate::engine::Decoded;
use crate::engine::api::{self, Answer, Request, Summary};
use comparison::{comparison, look_first};
use recording::recording;
pub use recording::recording_headline;
use serde::Serialize;
use serde_json::Value;

mod comparison;
pub mod glance;
mod html;
mod markdown;
mod recording;
mod svg;
mod text;

pub use text::{describe, describe_per};

#[derive(Clone, Copy, Debug)]
pub struct ReportOptions {
    /// Rows per list.
    pub top: usize,
    /// Single gaps shorter than this are left out (and recurring ones whose
    /// total is).
    pub gap_ms: f64,
    /// The comparison's noise model.
    pub noise: Noise,
    /// The regression gate (`--fail-on-regression`).
    pub gate: Option<Gate>,
    /// The tail gate (`--fail-on-p99`, `--fail-on-low`): frame pacing's.
    pub tail_gate: TailGate,
}

impl Default for ReportOptions {
    fn default() -> Self {
        Self {
            top: 10,
            gap_ms: 1.0,
            noise: Noise::default(),
            gate: None,
            tail_gate: TailGate::default(),
        }
    }
}

/// The whole report.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    pub tool: String,
    /// The call-tree transforms the hot paths were read with (none unless
    /// given).
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub applied: Option<Applied>,
    /// With two recordings: B against A (first: what a reader wants first).
    pub comparison: Option<ComparisonReport>,
    pub recordings: Vec<RecordingReport>,
}

/// One recording's sections.
#[derive(Clone, Debug, Serialize)]
pub struct RecordingReport {
    /// The recording in one sentence: its frames and median, the slowest
    /// frame, the name with the most own time (see [`recording_headline`]).
    pub headline: String,
    /// `A` or `B` (empty with one recording).
    pub label: String,
    /// The recording's start: this recording's `*_rel_ms` count from it
    /// (see `engine::reltime`).
    pub recording_start_ns: i64,
    pub summary: Summary,
    pub registration: RegistrationCheck,
    /// The lower median frame duration (the frame's scopes' span, as
    /// puffin measures a frame).
    pub median_frame_ns: i64,
    /// The frame period (start to start on the frame-driving thread, as
    /// `pacing` counts it): what the headline leads with. `null` without
    /// two consecutive frames.
    pub period: Option<super::analyses::pacing::PeriodBrief>,
    /// `frames --top N`.
    pub slowest_frames: Value,
    /// `threads` (of the slowest frame).
    pub slowest_frame_threads: Value,
    /// The slowest call of each name, slowest first (the first N; rows of
    /// `top`), but top-level scopes with children (a thread's frame scope,
    /// the same in every frame).
    pub slowest_scopes: Value,
    /// Names in `slowest_scopes` before the first N.
    pub total_slowest_scopes: usize,
    /// Totals per name, largest total first: `{name, count, total_ns, self_ns, p95_ns, max_ns}`
    /// (the first N).
    pub totals: Vec<TotalRow>,
    /// Names in all (`totals` lists the first N).
    pub total_names: usize,
    /// Per thread, the merged tree's path following the largest child.
    pub hot_paths: Vec<HotPath>,
    /// `gaps --min-ms X --top N`: single and recurring gaps.
    pub gaps: Value,
    /// `gaps`' recurring gaps as found (the comparison's waits match them).
    #[serde(skip)]
    pub recurring_gaps: Vec<super::analyses::gaps::RecurringGap>,
    /// Scopes whose largest call (`call`), or whose calls in one frame
    /// (`burst`), are more than half of their total, and scopes whose slow
    /// calls hold a real share of it (`tail`, after the name's other row).
    pub outliers: Vec<Outlier>,
    /// Why the median frame may mislead (`null` when nothing does).
    pub median_note: Option<String>,
    /// The recording never ends a puffin frame, or its frames are far
    /// longer than their scopes (see `analyses::basis`): `null` otherwise.
    /// Its per-frame sections (the slowest frames, the frame chart) are
    /// left out of the Markdown and HTML.
    pub unframed: Option<Unframed>,
    /// Every frame's duration, in file order (the frame-time chart).
    pub frame_durations_ns: Vec<i64>,
    /// Frame indices the capture left out, said as the summary says it
    /// (`null` when none is absent).
    pub frames_absent_note: Option<String>,
    /// The heaviest names' shapes through the run, those not steady (see
    /// `analyses::shape`), heaviest first.
    pub over_time: Vec<NamedShape>,
    /// The frame durations' shape, when not steady (`null` otherwise).
    pub frame_shape: Option<FrameShape>,
    /// `pacing FILE`: the frames' distribution on the frame period and the
    /// slow frames' culprits (`null` without two consecutive frames, and in
    /// a comparison: `comparison.pacing` holds both sides).
    pub pacing: Option<super::analyses::pacing::PacingReport>,
}

#[derive(Clone, Debug, Serialize)]
pub struct RegistrationCheck {
    pub has_registration: bool,
    /// Ids seen in streams but never registered (named `scope#<id>`).
    pub unregistered_ids: Vec<u32>,
    /// Empty when all is well.
    pub warning: String,
}

#[derive(Clone, Debug, Serialize)]
pub struct TotalRow {
    pub name: String,
    pub count: u64,
    pub total_ns: i64,
    pub self_ns: i64,
    pub p95_ns: i64,
    pub max_ns: i64,
}

#[derive(Clone, Debug, Serialize)]
pub struct HotPath {
    pub thread: String,
    /// From the heaviest root down: `{name, count, total_ns, self_ns}`.
    pub steps: Vec<HotStep>,
    /// Why the path stops where it does: the last step's own time is more
    /// than its largest child's total (`null` when it stops at a leaf).
    pub stop: Option<String>,
}

#[derive(Clone, Debug, Serialize)]
pub struct HotStep {
    pub name: String,
    pub count: u64,
    pub total_ns: i64,
    pub self_ns: i64,
}

#[derive(Clone, Debug, Serialize)]
pub struct Outlier {
    pub name: String,
    /// `call`: one call is most of the total; `burst`: one frame's calls;
    /// `tail`: the slow calls hold a real share of it (`tail`).
    pub kind: &'static str,
    pub count: u64,
    pub total_ns: i64,
    /// The largest call.
    pub max_ns: i64,
    /// The call's (or the frame's calls', or the slow calls') share of the
    /// total.
    pub max_share: f64,
    /// For a tail: the slow calls, the median against p99 and max, and how
    /// they recur (`null` for the other kinds).
    pub tail: Option<Tail>,
    /// Where the largest call ran (for a burst: the frame).
    pub frame_index: u64,
    pub thread: String,
    /// When the largest call started (for a burst: the frame's first call).
    pub start_ns: i64,
    /// Calls in that frame, and their total.
    pub calls_in_frame: u64,
    pub frame_total_ns: i64,
    /// Every call's duration, in time order (for the histogram).
    pub calls_ns: Vec<i64>,
}

#[derive(Clone, Debug, Serialize)]
pub struct ComparisonReport {
    /// `compare`'s warnings (a registration mismatch).
    pub warnings: Vec<String>,
    /// The run-to-run drift every row was judged against (`null` with
    /// `--no-drift`, or with too few busy names to estimate it); with paired
    /// runs, the shift every busy name shares, told and not subtracted (the
    /// machine weighed on both sides alike: it is the code's).
    pub drift: Option<Drift>,
    /// Rows were judged against the drift (false with `--no-drift`).
    pub drift_judged: bool,
    /// What else differs between the two runs' conditions, as far as the
    /// capture shows (sentences: threads or names in one run only, the
    /// frames, the time span).
    pub conditions: Vec<String>,
    pub frames_a: usize,
    pub frames_b: usize,
    /// Figures are per frame: each side's totals divided by its frames
    /// (false per second).
    pub per_frame: bool,
    /// What the figures are per: `frame`, or `second` when a side is
    /// unframed (see `analyses::basis`).
    pub basis: Basis,
    /// How many of them A and B have (their frames, or their seconds).
    pub units: (usize, usize),
    /// The noise model's thresholds.
    pub noise: NoiseUsed,
    /// The frame's change, and the names that account for it.
    pub frame: FrameChange,
    /// What to look at first, most costly first (Markdown sentences).
    pub look_first: Vec<String>,
    /// The comparison at a glance: a headline, where the frame's time went
    /// (a waterfall that sums to the frame's change) and one line a finding
    /// (see `report::glance`).
    pub glance: glance::Glance,
    /// Names in A or B.
    pub total_rows: usize,
    /// Names judged a change (not within noise).
    pub changed_rows: usize,
    /// What `total_rows` and `changed_rows` count: `names` (each judged as
    /// a whole; `compare`'s rows count `name-data pairs`).
    pub counted: &'static str,
    /// Both counts under explicit names, as `compare` gives them: the
    /// names (= `total_rows`, `changed_rows`) and the (name, data) pairs
    /// (= `compare`'s `total_rows`, `changed_rows`).
    pub total_names: usize,
    pub changed_names: usize,
    pub total_pairs: usize,
    pub changed_pairs: usize,
    /// The changed names, largest |Δ per frame| beyond the drift first: the
    /// first --top of `changed_rows`. The lists below name every changed
    /// row, listed or not.
    pub rows: Vec<JudgedRow>,
    /// Rows judged one spike.
    pub spikes: Vec<String>,
    /// Rows judged slower/faster per call or run more/less often.
    pub changes: Vec<String>,
    /// New and gone names: neither is a rename (those are in `renames`).
    pub new: Vec<String>,
    pub gone: Vec<String>,
    /// A gone name and a new name at the same place (`analyses::rename`),
    /// judged as one row, by A's name.
    pub renames: Vec<RenameRow>,
    /// Scopes that appear or vanish under a scope both recordings run,
    /// each place judged by what entered there (its own time and those
    /// scopes'): `restructured` (no cost; its new and gone names are in
    /// none of the lists above) or not (`analyses::restructure`).
    pub places: Vec<super::analyses::restructure::Place>,
    /// Names whose time per frame is not a change (unchanged, or
    /// inconclusive) but whose calls per frame are, judged on the calls
    /// alone (the program's, not the machine's): largest relative change of
    /// the calls first, then name.
    pub calls_changed: Vec<CallsChanged>,
    /// Each side's start-up and shutdown (its runs' transients), left out
    /// of everything above: the comparison is of the steady states
    /// (`analyses::transient`). `frames_a` and `frames_b` count the steady
    /// frames.
    pub transients: (
        super::analyses::transient::Transients,
        super::analyses::transient::Transients,
    ),
    /// Changed rows that do not reach the frame: with a frame-driving
    /// thread that waits for workers, names that never run on it and are
    /// no wait's critical work. Not gated.
    pub off_critical_path: Vec<OffCriticalPath>,
    /// The names judged unchanged (their interval inside the band).
    pub unchanged: Unchanged,
    /// The names judged inconclusive (their interval straddles the band's
    /// edge: neither a change nor unchanged; `apart_from_a_spike` empty).
    pub inconclusive: Unchanged,
    /// With --fail-on-regression: the gate over every name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gate: Option<GateResult>,
    /// Per thread, the differential tree's path following the largest |Δ|:
    /// where it changed (a recording's `hot_paths` are its heaviest path).
    pub change_paths: Vec<DiffHotPath>,
    /// Recurring gaps with other threads working (waits) whose median
    /// changed beyond the noise, matched by place in A and B, each with
    /// what it waits for on both sides and the critical work's per-call
    /// change it is attributed to; largest |change| first (see
    /// `analyses::waits`).
    pub waits: Vec<WaitChange>,
    /// The gap places (unprofiled time) of A and B judged with the rows'
    /// noise and drift: new, grew, gone, shrank or unchanged (see
    /// `analyses::gap_diff`); the changed ones are rows of their own, in
    /// the frame's accounting (`frame.gaps`), Look at first and the gate.
    pub gaps: GapChanges,
    /// `pacing A B`: both sides' frame distributions, each tail figure
    /// judged (P95, P99, the lows, the shares over the budget and
    /// stuttering, frame to frame) and the slow frames' culprits; of the
    /// whole recordings (`null` without two consecutive frames a side).
    pub pacing: Option<super::analyses::pacing::PacingReport>,
}

/// A name whose calls per frame changed while its time is not a change.
#[derive(Clone, Debug, Serialize)]
pub struct CallsChanged {
    pub name: String,
    /// `more-often` or `less-often`.
    pub calls: super::analyses::judge::Kind,
    /// Its time's verdict: `unchanged` or `inconclusive`.
    pub time: super::analyses::judge::Kind,
    pub calls_per_frame_a: f64,
    pub calls_per_frame_b: f64,
    /// The mean call, A and B.
    pub per_call_a_ns: Option<f64>,
    pub per_call_b_ns: Option<f64>,
    /// In a sentence (Markdown).
    pub words: String,
}

/// The names a comparison judged unchanged: what is only noise.
#[derive(Clone, Debug, Serialize)]
pub struct Unchanged {
    /// The first --top of them, the costliest first (the larger side's
    /// time per frame, then the name).
    pub names: Vec<String>,
    /// How many names are unchanged in all (`names` lists the first --top).
    pub total: usize,
    /// Names judged one spike whose other calls are unchanged: only noise
    /// but for that one call (every such name, listed in `spikes` too).
    pub apart_from_a_spike: Vec<String>,
}

/// A name that runs on several threads at once: its change per thread.
#[derive(Clone, Debug, Serialize)]
pub struct ParallelFigures {
    /// The threads that ran it (A's and B's, by name).
    pub threads: Vec<String>,
    /// The most of them in a call at one time (either side).
    pub threads_at_once: u32,
    /// The change per frame per thread: the sum below over `threads`.
    pub per_thread_delta_per_frame_ns: f64,
    /// The change per frame summed over its threads (the row's
    /// `change.delta_per_frame_ns`): they run in parallel, so this is not
    /// frame time.
    pub summed_over_threads_ns: f64,
    /// B − A of its median call.
    pub per_call_delta_ns: Option<f64>,
    /// What it adds to the frame through a wait it is the critical path
    /// of (`waits[].causes[].attributed_ns`); `null` when no grown wait
    /// waits for it.
    pub critical_path_delta_ns: Option<f64>,
    /// The thread it finished last on in that wait.
    pub critical_thread: Option<String>,
}

#[derive(Clone, Debug, Serialize)]
pub struct NoiseUsed {
    pub pct: f64,
    pub ms: f64,
    pub alpha: f64,
    /// Recordings of A and of B (several runs a side: `A1 A2 --vs B1 B2`).
    pub runs: (usize, usize),
    /// `paired-runs` (runs recorded alternately, `ab`: each row judged by
    /// its differences within pairs, the machine cancelled in each),
    /// `between-runs` (both sides have several runs: a change must exceed how
    /// far each row's cost varies between one side's runs) or `within-run`
    /// (how far it wanders between fifths of each capture).
    pub model: &'static str,
    /// With one run a side (`null` otherwise): how far a name's cost per
    /// call was taken to vary between runs beyond the drift, and whence.
    pub run_spread: Option<RunSpread>,
}

/// A name's run-to-run spread with one run a side, `exp(τ) − 1` in percent:
/// the pair's busy names' spread around the drift (`measured_pct`; `null`
/// with too few busy names), at most the prior (`prior_pct`,
/// `--run-spread-pct`). `pct` is the one the comparison judges against (a
/// table whose own rows agree better measures less, and uses that).
#[derive(Clone, Debug, Serialize)]
pub struct RunSpread {
    pub pct: f64,
    pub prior_pct: f64,
    pub measured_pct: Option<f64>,
}

/// A name's row: both sides' totals, its judgement, and its (name, data)
/// rows when data splits it.
#[derive(Clone, Debug, Serialize)]
pub struct JudgedRow {
    pub name: String,
    pub a: Option<SideStats>,
    pub b: Option<SideStats>,
    pub change: Change,
    /// The name's rows per data string, largest |Δ per frame| first (the
    /// first --top; empty when the name has one data string).
    pub by_data: Vec<DataRow>,
    /// How many data strings the name has (when more than one).
    pub total_data: usize,
    /// B − A of the name's own (self) time per frame, all threads: near 0
    /// when its change is its children's.
    pub self_delta_per_frame_ns: f64,
    /// For a spike: the call (its side, frame, thread and duration).
    pub spike_call: Option<SpikeCall>,
    /// When it runs on several threads at once: its figures per thread and
    /// on the critical path (`null` otherwise).
    pub parallel: Option<ParallelFigures>,
    /// When changed gaps in it (not waits) make up at least half of its
    /// own-time change: what that change is ("unprofiled: the new gap
    /// between `sim::step` and `draw::batch` in `main_loop` (+1.50 ms per
    /// frame)"), not a change per call of its own (absent otherwise).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gap: Option<String>,
    /// Its shape through each side's run, when either is not steady
    /// (absent otherwise; see `analyses::shape`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub over_time: Option<OverTime>,
    /// Its call sites (caller and thread), each judged, when it has two or
    /// more (absent otherwise; see `analyses::place`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub place: Option<super::analyses::place::Placed>,
    /// Where it changed, in words (absent when no one site holds most of
    /// the change and not every site changed).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub place_words: Option<String>,
}

/// A changed row off the frame's critical path.
#[derive(Clone, Debug, Serialize)]
pub struct OffCriticalPath {
    pub name: String,
    /// Its change per unit beyond the drift (summed over threads).
    pub delta_per_frame_ns: f64,
    /// The work the frame thread waits for (the last to finish, in B).
    pub critical: String,
    /// The critical work's median call minus this row's mean call in B: how
    /// much longer it could take before it would reach the frame (about).
    pub slack_ns: f64,
    pub words: String,
}

/// A rename and its sentence.
#[derive(Clone, Debug, Serialize)]
pub struct RenameRow {
    #[serde(flatten)]
    pub rename: super::analyses::rename::Rename,
    pub words: String,
}

/// A row's shape through each side's run.
#[derive(Clone, Debug, Serialize)]
pub struct OverTime {
    pub a: Shape,
    pub b: Shape,
    /// "grows 0.046 ms a frame, 0.300 → 3.000 ms, not levelling off through
    /// B; steady in A".
    pub words: String,
}

/// A name's shape through one recording (not steady).
#[derive(Clone, Debug, Serialize)]
pub struct NamedShape {
    pub name: String,
    pub shape: Shape,
    pub words: String,
}

/// The frame durations' shape, and the names whose series share it (the
/// same period and phase, or the same step unit or burst), largest first.
#[derive(Clone, Debug, Serialize)]
pub struct FrameShape {
    pub shape: Shape,
    /// "every 10th frame is 2.1x the median (12.400 ms against 5.900 ms):
    /// `gc::sweep`".
    pub words: String,
    pub names: Vec<String>,
}

#[derive(Clone, Debug, Serialize)]
pub struct SpikeCall {
    /// `A` or `B`.
    pub side: &'static str,
    pub frame_index: u64,
    pub thread: String,
    pub duration_ns: i64,
}

#[derive(Clone, Debug, Serialize)]
pub struct DataRow {
    pub data: String,
    pub a: Option<SideStats>,
    pub b: Option<SideStats>,
    pub change: Change,
}

#[derive(Clone, Debug, Serialize)]
pub struct DiffHotPath {
    pub thread: String,
    /// `{name, a_total_ns, b_total_ns, delta_total_ns,
    /// a_total_per_frame_ns, b_total_per_frame_ns, delta_total_per_frame_ns}`:
    /// the sums over all frames and per unit of the basis (frame, or second
    /// for an unframed side); each step the child whose time per unit
    /// changed most.
    pub steps: Vec<Value>,
}

fn ask(name: &str, args: Value, a: &Decoded, b: Option<&Decoded>) -> Option<Answer> {
    let request = Request::from_json(name, &args).ok()?;
    api::answer(&request, &a.trace, b.map(|b| &b.trace)).ok()
}

/// `pacing` of `a` (and B against A), as the query answers it.
fn pacing(
    a: &Decoded,
    b: Option<&Decoded>,
    noise: &Noise,
    gate: TailGate,
) -> Option<super::analyses::pacing::PacingReport> {
    let request = Request::Pacing(api::PacingArgs {
        noise_pct: noise.pct,
        noise_ms: noise.ms,
        alpha: noise.alpha,
        fail_on_p99: gate.p99_pct,
        fail_on_low: gate.low_pct,
        compare: b.is_some(),
        ..Default::default()
    });
    match api::answer(&request, &a.trace, b.map(|b| &b.trace)) {
        Ok(Answer::Pacing(p)) => Some(*p),
        _ => None,
    }
}

fn to_value(answer: Option<Answer>) -> Value {
    answer.map_or(Value::Null, |a| {
        serde_json::to_value(&a).unwrap_or(Value::Null)
    })
}

impl Report {
    /// The report of `a` (and B against A).
    pub fn new(a: (&str, &Decoded), b: Option<(&str, &Decoded)>, opts: ReportOptions) -> Self {
        Self::transformed(a, b, opts, &Stack::default())
    }

    /// [`Self::new`] with the call trees (the hot paths, A's and B's) read
    /// through `stack`.
    pub fn transformed(
        a: (&str, &Decoded),
        b: Option<(&str, &Decoded)>,
        opts: ReportOptions,
        stack: &Stack,
    ) -> Self {
        let label = |l: &str| {
            if b.is_some() {
                l.to_owned()
            } else {
                String::new()
            }
        };
        // Each recording's merged tree (every frame, as many levels as
        // the `tree` answer lists), made once for its hot paths and the
        // comparison's, and its section: A's and B's at once (rayon; one
        // thread where there are no others, as in the browser).
        // A pair's untransformed trees keep each scope's node: the
        // restructured places are judged on them.
        let record = b.is_some() && stack.is_empty();
        let side = |label: &str, name: &str, d: &Decoded| {
            let t = &d.trace;
            let frames = 0..t.frames.len() as u32;
            let (tr, of) =
                transformed_with_nodes(t, frames, None, MAX_REPORT_LEVELS, stack, record);
            let section = recording(label, name, d, &tr.tree, opts);
            (tr, section, of)
        };
        let (mut recordings, mut warnings) = (Vec::new(), Vec::new());
        let comparison = match b {
            None => {
                let (tr, section, _) = side(&label("A"), a.0, a.1);
                warnings = tr.warnings;
                recordings.push(section);
                None
            }
            Some((name, decoded)) => {
                let sides =
                    || crate::engine::join(|| side("A", a.0, a.1), || side("B", name, decoded));
                let (mut c, ((tr_a, section_a, _), (tr_b, section_b, _))) =
                    comparison(a.1, decoded, sides, &opts, stack);
                c.look_first = look_first(&c, &section_b, &opts);
                c.glance = glance::glance(&c, opts.top);
                glance::with_sparks(&mut c.glance, (&a.1.trace, &decoded.trace), c.basis);
                warnings.extend(tr_a.warnings.into_iter().chain(tr_b.warnings));
                recordings.extend([section_a, section_b]);
                Some(c)
            }
        };
        warnings.sort();
        warnings.dedup();
        let applied = (!stack.is_empty()).then(|| Applied {
            transforms: stack.written(),
            warnings,
        });
        Self {
            tool: format!("puffin-lens {}", env!("CARGO_PKG_VERSION")),
            applied,
            comparison,
            recordings,
        }
    }
}

/// What the app's Findings page shows of a report (of `A` against `B`, or
/// of `A` alone): its Markdown, its look-first sentences and the facts
/// `puffinLens.ui()` lists (`noise`, `drift`, `conditions`, `frame`,
/// `changes`, `renames`; one recording: `over_time`, `outliers`). Plain
/// data: a browser worker makes it, and the page reads it.
#[derive(Clone, Debug, Serialize, serde::Deserialize)]
pub struct Findings {
    pub markdown: String,
    pub look_first: Vec<String>,
    /// A pair's comparison at a glance (`None` for one recording).
    pub glance: Option<glance::Glance>,
    pub facts: Value,
    /// `pacing` of the pair (or of the one recording), as the app's pacing
    /// picture draws it.
    pub pacing: Option<PacingPicture>,
    /// Wall time to make it (set by the caller, which has a clock on
    /// every target; 0 until then).
    pub compute_ms: f64,
}

/// What the app's pacing picture draws of [`super::analyses::pacing`]'s
/// answer: each side's periods in run order and its percentile figures,
/// the budget and the headline. Plain data, as [`Findings`].
#[derive(Clone, Debug, Serialize, serde::Deserialize)]
pub struct PacingPicture {
    pub headline: String,
    pub budget_ns: f64,
    /// A frame over this is over the budget.
    pub over_ns: f64,
    /// A, then B (for a pair).
    pub sides: Vec<PacingSide>,
}

#[derive(Clone, Debug, Serialize, serde::Deserialize)]
pub struct PacingSide {
    /// `A`, `B`, or empty for one recording.
    pub label: String,
    /// `(frame_index, period_ns)` of each counted frame, in run order.
    pub series: Vec<(u64, i64)>,
    /// The median, P90, P95, P99, 1% low, 0.1% low and worst, in ns.
    pub figures_ns: [f64; 7],
}

impl PacingPicture {
    fn of(p: &super::analyses::pacing::PacingReport) -> Self {
        let side = |label: &str, s: &super::analyses::pacing::Pacing| PacingSide {
            label: label.to_owned(),
            series: s.series.clone(),
            figures_ns: s.curve_ns(),
        };
        let sides = match &p.b {
            Some(b) => vec![side("A", &p.a), side("B", b)],
            None => vec![side("", &p.a)],
        };
        Self {
            headline: p.headline.clone(),
            budget_ns: p.budget_ns,
            over_ns: p.over_ns,
            sides,
        }
    }
}

/// The [`Findings`] of the report `puffin-lens report A [B]` writes (the
/// default options).
pub fn findings(a: (&str, &Decoded), b: Option<(&str, &Decoded)>) -> Findings {
    findings_with(a, b, ReportOptions::default())
}

/// [`findings`] of the report made with `opts` (paired runs: the noise of
/// `report DIR`, [`crate::engine::runs_manifest::paired_noise`]).
pub fn findings_with(
    a: (&str, &Decoded),
    b: Option<(&str, &Decoded)>,
    opts: ReportOptions,
) -> Findings {
    let report = Report::new(a, b, opts);
    let markdown = report.markdown();
    let mut facts = serde_json::json!({});
    let mut look_first = Vec::new();
    // Each recording's hot paths (as "Hot path" lists them): each thread
    // and its steps' names, from the heaviest root down.
    let hot_paths: Vec<Vec<Value>> = report
        .recordings
        .iter()
        .map(|r| {
            r.hot_paths
                .iter()
                .map(|p| {
                    serde_json::json!({
                        "thread": p.thread,
                        "steps": p.steps.iter().map(|s| s.name.clone()).collect::<Vec<_>>(),
                    })
                })
                .collect()
        })
        .collect();
    let mut glance = None;
    if let Some(c) = &report.comparison {
        look_first = c.look_first.clone();
        glance = Some(c.glance.clone());
        facts = serde_json::json!({
            "glance": c.glance,
            "noise": c.noise,
            "drift": c.drift,
            "conditions": c.conditions,
            "frame": {
                "thread": c.frame.thread,
                "median_a_ns": c.frame.median_a_ns,
                "median_b_ns": c.frame.median_b_ns,
                "mean_a_ns": c.frame.mean_a_ns,
                "mean_b_ns": c.frame.mean_b_ns,
                "kind": c.frame.kind.as_str(),
                "effect": c.frame.effect.text(),
            },
            "changes": c.rows.iter().map(|r| serde_json::json!({
                "name": r.name,
                "kind": r.change.kind.as_str(),
                "effect": r.change.effect.text(),
                "over_time": r.over_time.as_ref().map(|o| o.words.clone()),
                "place": r.place_words,
            })).collect::<Vec<_>>(),
            "renames": c.renames.iter().map(|r| r.words.clone()).collect::<Vec<_>>(),
            // The differential tree's paths (as "Where it changed" lists
            // them): each thread and its steps' names, outermost first.
            "change_paths": c.change_paths.iter().map(|p| serde_json::json!({
                "thread": p.thread,
                "steps": p.steps.iter().map(|s| s["name"].clone()).collect::<Vec<_>>(),
            })).collect::<Vec<_>>(),
        });
    } else if let Some(r) = report.recordings.first() {
        facts = serde_json::json!({
            "headline": r.headline,
            "over_time": r.over_time,
            "outliers": r.outliers.len(),
        });
    }
    facts["hot_paths"] = hot_paths.into();
    let pacing = match &report.comparison {
        Some(c) => c.pacing.as_ref(),
        None => report.recordings.first().and_then(|r| r.pacing.as_ref()),
    };
    if let Some(p) = pacing {
        facts["pacing"] = serde_json::json!({
            "headline": p.headline,
            "budget_ns": p.budget_ns,
            "changes": p.changes.iter().map(|c| serde_json::json!({
                "figure": c.figure,
                "verdict": c.effect.verdict.as_str(),
            })).collect::<Vec<_>>(),
        });
    }
    Findings {
        markdown,
        look_first,
        glance,
        facts,
        pacing: pacing.map(PacingPicture::of),
        compute_ms: 0.0,
    }
}
