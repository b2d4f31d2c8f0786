//! The comparison at a glance: one headline, where the frame's time went as
//! a waterfall, and one line a finding. Read from the comparison's own
//! accounting ([`crate::engine::analyses::accounting::FrameChange`]) and
//! rows, nothing recomputed: the bars sum to the frame's change exactly, as
//! its parts do. The Markdown, the HTML report (an SVG waterfall) and the
//! app's findings page draw these vectors.

use super::ComparisonReport;
use super::text::cell;
use crate::engine::analyses::effect::Verdict;
use crate::engine::analyses::judge::Kind;
use serde::{Deserialize, Serialize};

/// The comparison in one sentence, a waterfall and one line a finding.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Glance {
    /// "B's frame is 3.912 ms (27%) slower [+3.5, +4.4]: 3 causes; the gate
    /// fails." Plain text (names in backticks).
    pub headline: String,
    /// A's mean frame, the parts of its change in order, B's mean frame:
    /// `a_ns` plus every bar's `delta_ns` is `b_ns`.
    pub a_ns: f64,
    pub b_ns: f64,
    pub bars: Vec<Bar>,
    /// The findings, costliest first (at most the report's --top).
    pub findings: Vec<Finding>,
}

impl Glance {
    /// The waterfall's axis, in ns: every level its bars reach and their
    /// whiskers, from a little below the lowest (not from zero: the parts
    /// are read against the frames) to a little above the highest.
    pub fn range_ns(&self) -> (f64, f64) {
        let (mut lo, mut hi, mut level) = (
            self.a_ns.min(self.b_ns),
            self.a_ns.max(self.b_ns),
            self.a_ns,
        );
        for b in &self.bars {
            let next = level + b.delta_ns;
            lo = lo.min(level.min(next));
            hi = hi.max(level.max(next));
            if let Some([l, u]) = b.ci_ns {
                lo = lo.min(level + l);
                hi = hi.max(level + u);
            }
            level = next;
        }
        let span = (hi - lo).max(1.0);
        ((lo - 0.15 * span).max(0.0), hi + 0.05 * span)
    }
}

/// One part of the frame's change.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Bar {
    /// What it is: a scope's name, "2 more causes", "unprofiled time",
    /// "the machine (drift)", "restructured", "`x` moved to `loader`", "not
    /// accounted for".
    pub label: String,
    /// `cause`, `unprofiled`, `between_frames`, `drift`, `restructured`,
    /// `moved` or `unaccounted`.
    pub part: String,
    /// A cost of the code (false: restructured, the machine, or what no
    /// part accounts for; drawn apart and grey).
    pub cost: bool,
    /// Its change of the mean frame, beyond the drift for a cause.
    pub delta_ns: f64,
    /// Its interval, where one is known: a cause whose row is its own time
    /// (a leaf); `null` otherwise.
    pub ci_ns: Option<[f64; 2]>,
    /// The scope it links to (`null` for the sums).
    pub name: Option<String>,
}

/// One finding, in one line.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Finding {
    pub rank: usize,
    /// The scope ("" for a start-up with no name of its own).
    pub name: String,
    /// The kind in a few words: "slower per call", "runs more often",
    /// "new", "spike", "grows through B", "restructured", "start-up".
    pub badge: String,
    /// Its change per frame, its interval and the band it was judged
    /// against (`ci_ns` and `band_ns` absent where none was judged).
    pub delta_ns: f64,
    pub ci_ns: Option<[f64; 2]>,
    pub band_ns: Option<f64>,
    /// Where: the call site, the thread or the data ("" when nothing more
    /// than the name). Markdown: names in code spans, text escaped.
    pub place: String,
    /// A cost of the code (false: restructured, moved between threads, the
    /// clock's time between frames, start-up, calls alone).
    pub cost: bool,
    /// The sentence behind it (Markdown), for the details.
    pub details: String,
    /// Its cost per unit (frame, or second) through A's run and B's, at
    /// most [`SPARK_POINTS`] points a side, each the largest of its stretch
    /// (a stall stays visible); empty for a line that is not a scope.
    pub spark_a_ns: Vec<f64>,
    pub spark_b_ns: Vec<f64>,
}

/// The most points a side of a finding's sparkline.
pub const SPARK_POINTS: usize = 60;

/// Each finding's sparkline through A's and B's runs (one pass over each
/// side's scopes for all of them).
pub fn with_sparks(
    g: &mut Glance,
    (a, b): (&crate::engine::model::Trace, &crate::engine::model::Trace),
    basis: crate::engine::analyses::basis::Basis,
) {
    use crate::engine::analyses::basis::Units;
    let names: Vec<String> = g
        .findings
        .iter()
        .filter(|x| !x.name.is_empty())
        .map(|x| x.name.clone())
        .collect();
    let refs: Vec<&str> = names.iter().map(String::as_str).collect();
    let series = |t: &crate::engine::model::Trace| {
        crate::engine::analyses::shape::series_by_name(t, &Units::new(t, basis), &refs)
    };
    let (sa, sb) = crate::engine::join(|| series(a), || series(b));
    for x in g.findings.iter_mut().filter(|x| !x.name.is_empty()) {
        if let Some(k) = names.iter().position(|n| *n == x.name) {
            x.spark_a_ns = pooled(&sa[k], SPARK_POINTS);
            x.spark_b_ns = pooled(&sb[k], SPARK_POINTS);
        }
    }
}

/// `x` in at most `n` points, each the largest of its stretch, in whole
/// nanoseconds.
fn pooled(x: &[f64], n: usize) -> Vec<f64> {
    let n = n.min(x.len());
    (0..n)
        .map(|k| {
            let (lo, hi) = (
                k * x.len() / n,
                ((k + 1) * x.len() / n).max(k * x.len() / n + 1),
            );
            x[lo..hi].iter().copied().fold(0.0, f64::max).round()
        })
        .collect()
}

/// A kind in the fewest words a badge holds.
pub fn badge(kind: Kind) -> &'static str {
    match kind {
        Kind::Unchanged => "unchanged",
        Kind::Inconclusive => "not told apart",
        Kind::Slower => "slower per call",
        Kind::Faster => "faster per call",
        Kind::MoreOften => "runs more often",
        Kind::LessOften => "runs less often",
        Kind::SlowerMoreOften => "slower, more often",
        Kind::SlowerLessOften => "slower, less often",
        Kind::FasterMoreOften => "faster, more often",
        Kind::FasterLessOften => "faster, less often",
        Kind::Costlier => "costs more per frame",
        Kind::Cheaper => "costs less per frame",
        Kind::Spike => "one spike",
        Kind::New => "new",
        Kind::Gone => "gone",
    }
}

/// An interval worth drawing: none for a row one side lacks (new, gone),
/// whose figure is as recorded, not estimated.
fn interval(kind: Kind, ci_ns: [f64; 2]) -> Option<[f64; 2]> {
    (!matches!(kind, Kind::New | Kind::Gone) && ci_ns[1] - ci_ns[0] >= 1.0).then_some(ci_ns)
}

/// `+1.234` (ms, signed, three decimals; "0.000" under half a nanosecond).
fn ms(ns: f64) -> String {
    let ns = if ns.abs() < 0.5 { 0.0 } else { ns };
    format!("{:+.3}", ns / 1e6)
}

/// `+1.234 ms [+1.100, +1.400]`: one notation everywhere.
pub fn with_interval(delta_ns: f64, ci_ns: Option<[f64; 2]>) -> String {
    match ci_ns {
        Some([lo, hi]) => format!("{} ms [{}, {}]", ms(delta_ns), ms(lo), ms(hi)),
        None => format!("{} ms", ms(delta_ns)),
    }
}

/// The glance of a comparison whose accounting, rows and gate are final.
pub fn glance(c: &ComparisonReport, top: usize) -> Glance {
    let f = &c.frame;
    let min_ns = (c.noise.ms * 1e6).max(0.5);
    let row = |name: &str| c.rows.iter().find(|r| r.name == name);
    let mut bars: Vec<Bar> = Vec::new();
    // The causes the accounting counted (names judged a change), each
    // beyond the drift; what the list leaves out, summed.
    let mut listed = 0.0;
    for x in f
        .contributions
        .iter()
        .filter(|x| x.kind.is_change() && x.moved.is_none())
    {
        if x.beyond_drift_ns.abs() < min_ns {
            continue;
        }
        listed += x.beyond_drift_ns;
        // The row's interval is of its whole time: a whisker only where
        // that is its own time (within a tenth).
        let ci_ns = row(&x.name).and_then(|r| {
            let e = &r.change.effect;
            interval(r.change.kind, e.ci_ns)?;
            let beyond = e.delta_ns;
            ((beyond - x.beyond_drift_ns).abs() <= 0.1 * x.beyond_drift_ns.abs()).then(|| {
                [
                    e.ci_ns[0] - beyond + x.beyond_drift_ns,
                    e.ci_ns[1] - beyond + x.beyond_drift_ns,
                ]
            })
        });
        bars.push(Bar {
            label: x.name.clone(),
            part: "cause".to_owned(),
            cost: true,
            delta_ns: x.beyond_drift_ns,
            ci_ns,
            name: Some(x.name.clone()),
        });
    }
    let rest = f.explained_ns - listed;
    if rest.abs() >= min_ns {
        bars.push(Bar {
            label: "unprofiled time and smaller causes".to_owned(),
            part: "unprofiled".to_owned(),
            cost: true,
            delta_ns: rest,
            ci_ns: None,
            name: None,
        });
    }
    // The time between frames on the frame thread: the frame's, outside
    // every scope of it. Paced by a clock, the mirror of the work (no
    // cost); on a free-running loop, the frame's own unscoped time (a cost).
    if let Some(bf) = f.between_frames.as_ref() {
        let d = bf.mean_b_ns - bf.mean_a_ns;
        if d.abs() >= min_ns {
            bars.push(Bar {
                label: if bf.paced {
                    "between frames (the clock's: vsync, a frame limiter)"
                } else {
                    "between frames (unscoped, outside every scope)"
                }
                .to_owned(),
                part: "between_frames".to_owned(),
                cost: !bf.paced
                    && bf.effect.verdict == crate::engine::analyses::effect::Verdict::Changed,
                delta_ns: d,
                // The bar is the mean's part; its interval only when the
                // effect is of the mean too (judged by the typical frames,
                // it is another quantity: the finding says it).
                ci_ns: ((bf.effect.delta_ns - d).abs() < 1.0).then_some(bf.effect.ci_ns),
                name: None,
            });
        }
    }
    // The parts that are not the code's cost, in the accounting's order;
    // the last, what no part accounts for, closes the waterfall on B (with
    // any part under the noise milliseconds that drew no bar).
    for p in f
        .parts
        .iter()
        .filter(|p| matches!(p.part, "drift" | "restructured"))
    {
        if p.delta_ns.abs() < min_ns {
            continue;
        }
        bars.push(Bar {
            label: if p.part == "drift" {
                "the machine (run-to-run drift)"
            } else {
                "restructured (no cost)"
            }
            .to_owned(),
            part: p.part.to_owned(),
            cost: false,
            delta_ns: p.delta_ns,
            ci_ns: None,
            name: None,
        });
    }
    // Work moved between the frame thread and another: the frame's part
    // of each movement (no cost here; the work is judged where it runs).
    for m in &f.moved {
        if m.frame_thread_delta_ns.abs() < min_ns {
            continue;
        }
        let label = if m.from == f.thread {
            format!("{} moved to {}", m.name, m.to)
        } else {
            format!("{} moved here from {}", m.name, m.from)
        };
        bars.push(Bar {
            label,
            part: "moved".to_owned(),
            cost: false,
            delta_ns: m.frame_thread_delta_ns,
            ci_ns: None,
            name: Some(m.name.clone()),
        });
    }
    let left = f.delta_mean_ns - bars.iter().map(|b| b.delta_ns).sum::<f64>();
    if left.abs() >= 0.5 {
        bars.push(Bar {
            label: "not accounted for (noise)".to_owned(),
            part: "unaccounted".to_owned(),
            cost: false,
            delta_ns: left,
            ci_ns: None,
            name: None,
        });
    }
    // The causes the headline counts are the findings that are costs: one
    // set, before --top cuts the list.
    let mut findings = findings(c);
    let causes = findings.iter().filter(|x| x.cost).count();
    findings.truncate(top);
    Glance {
        headline: headline(c, causes),
        a_ns: f.mean_a_ns,
        b_ns: f.mean_b_ns,
        bars,
        findings,
    }
}

/// The headline: the frame's change with its interval, the causes, the gate.
fn headline(c: &ComparisonReport, causes: usize) -> String {
    let f = &c.frame;
    let unit = f.basis.unit();
    let e = &f.effect;
    // The estimate and its interval are of one quantity: the frame's
    // effect (its period as measured; the machine's share is a part of
    // the waterfall), never one estimate beside another's interval.
    let pct = if f.mean_a_ns > 0.0 {
        100.0 * e.delta_ns / f.mean_a_ns
    } else {
        0.0
    };
    let interval = format!("[{}, {}] ms", ms(e.ci_ns[0]), ms(e.ci_ns[1]));
    let slower = |d: f64| if d > 0.0 { "slower" } else { "faster" };
    // The frame rate beside the period.
    let fps = if f.rate_a_fps > 0.0 && f.rate_b_fps > 0.0 {
        format!(" ({:.1} → {:.1} fps)", f.rate_a_fps, f.rate_b_fps)
    } else {
        String::new()
    };
    let frame = match (e.verdict, f.judged_by) {
        // The typical frame held and the slow frames changed: the mean's
        // change first (the waterfall's), then the slow frames' share with
        // its own interval.
        (Verdict::Changed, "slow_frames") => format!(
            "B's {unit} is {:.3} ms ({:.0}%) {} on average{fps}: its slow {unit}s add {} ms \
             a {unit} {interval}, the typical {unit} unchanged (median {} → {} ms)",
            f.delta_mean_ns.abs() / 1e6,
            (100.0 * f.delta_mean_ns / f.mean_a_ns.max(1.0)).abs(),
            slower(f.delta_mean_ns),
            ms(e.delta_ns),
            crate::units::ms(f.median_a_ns),
            crate::units::ms(f.median_b_ns),
        ),
        // The slowest frames set apart: the mean's change first (the
        // waterfall's), then the estimate judged, said what it is.
        (Verdict::Changed, "typical") => format!(
            "B's {unit} is {:.3} ms ({:.0}%) {} on average{fps}; judged with the slowest \
             {unit}s cut at each side's far-out fence: {} ms {interval} (the median {unit} {} \
             ms)",
            f.delta_mean_ns.abs() / 1e6,
            (100.0 * f.delta_mean_ns / f.mean_a_ns.max(1.0)).abs(),
            slower(f.delta_mean_ns),
            ms(e.delta_ns),
            ms(f.delta_median_ns as f64),
        ),
        (Verdict::Changed, _) => format!(
            "B's {unit} is {:.3} ms ({:.0}%) {} {interval}",
            e.delta_ns.abs() / 1e6,
            pct.abs(),
            slower(e.delta_ns),
        ),
        (Verdict::Unchanged, _) => format!(
            "B's {unit} is unchanged: {} ms {interval}, within ±{:.3} ms",
            ms(e.delta_ns),
            e.band_ns / 1e6
        ),
        (Verdict::Inconclusive, _) => format!(
            "B's {unit}: {} ms {interval}, not told apart from noise (±{:.3} ms)",
            ms(e.delta_ns),
            e.band_ns / 1e6
        ),
    };
    let frame = if f.judged_by != "mean" && e.verdict == Verdict::Changed {
        frame
    } else {
        format!("{frame}{fps}")
    };
    // Names whose change the frame carries but that were not told apart
    // from noise: the honest answer is to record more, not "nothing".
    let untold = f
        .contributions
        .iter()
        .filter(|x| x.kind == Kind::Inconclusive && x.self_delta_per_frame_ns.abs() >= e.band_ns)
        .count();
    let causes = match causes {
        0 if untold > 0 => format!(
            "no cause told apart from noise ({untold} name{} moved as much as the band; \
             several runs a side, or puffin-lens ab, would tell)",
            if untold == 1 { "" } else { "s" }
        ),
        0 => "no cause in the code".to_owned(),
        1 => "1 cause".to_owned(),
        n => format!("{n} causes"),
    };
    let gate = match &c.gate {
        None => String::new(),
        Some(g) if !g.tripped.is_empty() || !g.tripped_gaps.is_empty() => {
            format!(
                "; the gate fails on {}",
                g.tripped.len() + g.tripped_gaps.len()
            )
        }
        Some(g) if g.drift_tripped => "; the gate fails on the drift".to_owned(),
        Some(g) if !g.inconclusive.is_empty() => "; the gate is undecided".to_owned(),
        Some(_) => "; the gate passes".to_owned(),
    };
    format!("{frame}: {causes}{gate}.")
}

/// One line a finding: the changed rows (the gate's causes among them),
/// then calls that changed alone, restructured places and start-up.
fn findings(c: &ComparisonReport) -> Vec<Finding> {
    let mut out: Vec<Finding> = Vec::new();
    let min_ns = (c.noise.ms * 1e6).max(0.5);
    for r in c.rows.iter().filter(|r| r.change.kind.is_change()) {
        // A wrapper: its change is its children's, each a line of its own.
        if r.spike_call.is_none()
            && r.self_delta_per_frame_ns.abs() < min_ns
            && !matches!(r.change.kind, Kind::New | Kind::Gone)
        {
            continue;
        }
        let e = &r.change.effect;
        // A scope whose children changed too: its line is its own time's
        // (the waterfall's bar), each child's change a line of its own.
        let own = c
            .frame
            .contributions
            .iter()
            .find(|x| x.name == r.name)
            .filter(|x| (e.delta_ns - x.beyond_drift_ns).abs() >= min_ns && r.parallel.is_none());
        let mut badge = match own {
            Some(x) => format!("its own time: {}", self::badge(x.kind)),
            None => badge(r.change.kind).to_owned(),
        };
        if r.gap.is_some() {
            badge = "a longer wait or gap".to_owned();
        }
        if let Some(t) = r.over_time.as_ref().filter(|_| own.is_none()) {
            let shape = match (&t.a, &t.b) {
                (_, crate::engine::analyses::shape::Shape::Trend { slope_ns, .. })
                    if *slope_ns > 0.0 =>
                {
                    Some("grows through B")
                }
                (_, crate::engine::analyses::shape::Shape::Periodic { .. }) => {
                    Some("periodic in B")
                }
                (_, crate::engine::analyses::shape::Shape::Step { .. }) => Some("steps in B"),
                _ => None,
            };
            if let Some(s) = shape {
                badge = format!("{badge}, {s}");
            }
        }
        let place = r.place_words.clone().unwrap_or_else(|| {
            r.parallel
                .as_ref()
                .and_then(|p| p.critical_thread.clone())
                .map_or(String::new(), |t| format!("on {}", cell(&t)))
        });
        let details = r
            .gap
            .clone()
            .unwrap_or_else(|| super::text::describe_per(&r.change, c.basis));
        // On threads in parallel: what the frame pays is the critical path
        // of the wait that waits for it (its change summed over the
        // threads is no frame time); none when no grown wait does.
        let (delta_ns, ci_ns, details) = match &r.parallel {
            Some(p) => (
                p.critical_path_delta_ns.unwrap_or(0.0),
                None,
                format!(
                    "{details}; {} per {} summed over its {} threads in parallel (not frame \
                     time), {} through the wait on its critical path",
                    ms(p.summed_over_threads_ns),
                    c.frame.basis.unit(),
                    p.threads.len(),
                    p.critical_path_delta_ns.map_or("none".to_owned(), ms)
                ),
            ),
            None => match own {
                Some(x) => (
                    x.beyond_drift_ns,
                    None,
                    format!(
                        "{details}; its own time {} per {}, its whole time {} (its children's \
                         changes are lines of their own)",
                        ms(x.beyond_drift_ns),
                        c.frame.basis.unit(),
                        with_interval(e.delta_ns, Some(e.ci_ns))
                    ),
                ),
                None => (e.delta_ns, interval(r.change.kind, e.ci_ns), details),
            },
        };
        out.push(Finding {
            rank: 0,
            name: r.name.clone(),
            badge,
            delta_ns,
            ci_ns,
            band_ns: Some(e.band_ns),
            place,
            cost: true,
            details,
            ..Default::default()
        });
    }
    for x in &c.calls_changed {
        out.push(Finding {
            rank: 0,
            name: x.name.clone(),
            badge: format!("{} (calls alone)", badge(x.calls)),
            delta_ns: 0.0,
            ci_ns: None,
            band_ns: None,
            place: format!(
                "{:.2} → {:.2} calls a frame",
                x.calls_per_frame_a, x.calls_per_frame_b
            ),
            cost: false,
            details: x.words.clone(),
            ..Default::default()
        });
    }
    for p in c.places.iter().filter(|p| p.restructured) {
        out.push(Finding {
            rank: 0,
            name: p.parent.clone(),
            badge: "restructured (no cost)".to_owned(),
            delta_ns: p.change.effect.delta_ns,
            ci_ns: Some(p.change.effect.ci_ns),
            band_ns: Some(p.change.effect.band_ns),
            place: format!("on {}", cell(&p.thread)),
            cost: false,
            details: p.words.clone(),
            ..Default::default()
        });
    }
    for (side, t) in [("A", &c.transients.0), ("B", &c.transients.1)] {
        if let Some(w) = t.words() {
            out.push(Finding {
                rank: 0,
                // Its first name only there, or none (not a scope).
                name: t
                    .leading
                    .names
                    .first()
                    .map_or_else(String::new, |n| n.name.clone()),
                badge: format!(
                    "{} in {side} (left out)",
                    match (t.leading.frames > 0, t.trailing.frames > 0) {
                        (true, false) => "start-up",
                        (false, true) => "shutdown",
                        _ => "start-up and shutdown",
                    }
                ),
                delta_ns: 0.0,
                ci_ns: None,
                band_ns: None,
                place: match t.leading.frames + t.trailing.frames {
                    1 => "1 frame".to_owned(),
                    n => format!("{n} frames"),
                },
                cost: false,
                details: w,
                ..Default::default()
            });
        }
    }
    // The time between frames on the frame thread, as its bar says it: a
    // cost on a free-running loop when it changed, the clock's otherwise.
    if let Some(bf) = c.frame.between_frames.as_ref() {
        let d = bf.mean_b_ns - bf.mean_a_ns;
        let changed = bf.effect.verdict == crate::engine::analyses::effect::Verdict::Changed;
        let of_mean = (bf.effect.delta_ns - d).abs() < 1.0;
        if d.abs() >= min_ns && (changed || bf.paced) {
            out.push(Finding {
                rank: 0,
                name: String::new(),
                badge: if bf.paced {
                    "between frames: the clock's (no cost)"
                } else if d > 0.0 {
                    "longer between frames"
                } else {
                    "shorter between frames"
                }
                .to_owned(),
                // The mean's change, as its bar: with the judged effect's
                // interval only when that is of the mean too (judged by
                // the typical frames it is another quantity, said in
                // words beside the mean's).
                delta_ns: d,
                ci_ns: of_mean.then_some(bf.effect.ci_ns),
                band_ns: of_mean.then_some(bf.effect.band_ns),
                place: format!("on {}, outside every scope", cell(&c.frame.thread)),
                cost: !bf.paced && changed,
                details: format!(
                    "the time from the frame's last scope to the next frame's start: {} → {} \
                     ms{}{}",
                    crate::units::ms(bf.mean_a_ns.round() as i64),
                    crate::units::ms(bf.mean_b_ns.round() as i64),
                    if bf.paced {
                        " (a loop paced by a clock: the rest of the period, the mirror of the \
                         work before it)"
                    } else {
                        " (unscoped: a sleep, a present, code without a scope)"
                    },
                    if of_mean {
                        String::new()
                    } else {
                        format!(
                            "; in the typical frames {}",
                            with_interval(bf.effect.delta_ns, Some(bf.effect.ci_ns))
                        )
                    }
                ),
                ..Default::default()
            });
        }
    }
    // Work moved to or from the frame thread: the frame's part of it.
    for m in &c.frame.moved {
        let off = m.from == c.frame.thread;
        out.push(Finding {
            rank: 0,
            name: m.name.clone(),
            badge: if off {
                format!("moved to {}", m.to)
            } else {
                format!("moved here from {}", m.from)
            },
            delta_ns: m.frame_thread_delta_ns,
            ci_ns: None,
            band_ns: None,
            place: format!("own time on {}", cell(&c.frame.thread)),
            cost: false,
            details: format!(
                "its calls on {}: {:.2} → {:.2} a frame; its work is judged where it runs \
                 (its row, or `calls A B NAME`), not as a cost of {}",
                cell(&c.frame.thread),
                m.calls_per_frame_a,
                m.calls_per_frame_b,
                cell(&c.frame.thread)
            ),
            ..Default::default()
        });
    }
    // What moved as much as the band but was not told apart from noise.
    for x in c
        .frame
        .contributions
        .iter()
        .filter(|x| x.kind == Kind::Inconclusive)
    {
        if x.self_delta_per_frame_ns.abs() >= c.frame.effect.band_ns {
            out.push(Finding {
                rank: 0,
                name: x.name.clone(),
                badge: "not told apart from noise".to_owned(),
                delta_ns: x.self_delta_per_frame_ns,
                ci_ns: None,
                band_ns: None,
                place: format!("own time on {}", cell(&c.frame.thread)),
                cost: false,
                details: "its interval straddles the band's edge: record more frames or several \
                          runs a side (`ab`)"
                    .to_owned(),
                ..Default::default()
            });
        }
    }
    // Costs first, largest first; then the rest in the order above.
    out.sort_by(|x, y| {
        y.cost
            .cmp(&x.cost)
            .then_with(|| y.delta_ns.abs().total_cmp(&x.delta_ns.abs()))
            .then_with(|| x.name.cmp(&y.name))
    });
    for (k, x) in out.iter_mut().enumerate() {
        x.rank = k + 1;
    }
    out
}
