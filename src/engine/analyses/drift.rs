//! Run-to-run drift: the shift in per-call cost that the busy scopes of A
//! and B share. Two runs of the same code on a shared machine differ by
//! 10-20% as a whole (CPU frequency, other tenants, caches); samples from
//! within one run cannot see that, so a rank test calls every row of such a
//! pair significant. The comparison estimates the common shift and judges
//! each row against it ([`super::judge`]).
//!
//! The estimate: take every scope name called at least [`MIN_CALLS`] times
//! on each side whose
//! own (self) time per call is at least [`MIN_SELF_PER_CALL_NS`] on each
//! side. Own time, not total: a parent whose child got slower keeps its own
//! time, so one slower leaf moves one ratio, not its whole path. Its ratio
//! is B's own time per call over A's. The drift factor is the median of the
//! ratios' logarithms, one vote a row (not weighted by time: a change in one
//! heavy scope must not become the drift), and its spread the median
//! absolute deviation of the logarithms around it. At least [`MIN_SCOPES`]
//! rows, or there is no estimate. Linear in the rows after a sort of the
//! ratios.

use serde::Serialize;

/// Calls on each side a row needs to vote.
pub const MIN_CALLS: u64 = 50;
/// Own time per call on each side a row needs to vote: below it the timer's
/// resolution and the profiler's own cost dominate.
pub const MIN_SELF_PER_CALL_NS: f64 = 1_000.0;
/// Rows that must vote for an estimate.
pub const MIN_SCOPES: usize = 5;
/// The rows listed in [`Drift::scopes`].
pub const LISTED_SCOPES: usize = 20;
/// The largest spread (percent) of the names' ratios around the factor for
/// a coherent drift: a shared machine's run-to-run drift was seen at 8.5%
/// (the Rerun Viewer twin pair); a changed workload at 135%.
pub const MAX_SPREAD_PCT: f64 = 25.0;
/// The largest factor (B over A, or A over B) a machine's speed or load is
/// taken to explain.
pub const MAX_FACTOR: f64 = 2.0;
/// The least share (percent) of the voters' own time whose names lie within
/// [`MAX_SPREAD_PCT`] of the factor (the heaviest name outside it set
/// aside: one changed name is a change, not a workload), for a coherent
/// drift: a machine that runs slower slows the busiest names too. The Rerun Viewer's twin pair
/// agrees on most of its time; an SDK pair logging ten times bigger point
/// clouds agrees on its light names only (its busiest moved 3.7x to 7.7x
/// while the median name held: a small spread, no drift).
pub const MIN_AGREEING_TIME_PCT: f64 = 50.0;

/// The common shift in per-call cost between A and B.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Drift {
    /// B's per-call cost over A's that the busy rows share (1.21: B ran 21%
    /// slower across the board).
    pub factor: f64,
    /// `(factor - 1)` in percent.
    pub pct: f64,
    /// The rows' spread around it: `exp(MAD of the log ratios) - 1`, in
    /// percent.
    pub spread_pct: f64,
    /// The estimate's standard error, in percent: that of a median of
    /// `scopes_used` log ratios with this spread (`1.858 MAD / sqrt(n)`,
    /// normal approximation). A drift within twice it is not told apart
    /// from the names' own spread (the Rerun SDK's twin runs: 9.4% ±14.3%
    /// from 18 names, 4 of them together).
    pub stderr_pct: f64,
    /// Rows that voted.
    pub scopes_used: usize,
    /// Of those, the rows whose ratio is within the noise percentage of the
    /// factor (moved together).
    pub moved_together: usize,
    /// Of the voters' own time (both sides), the percentage whose names lie
    /// within [`MAX_SPREAD_PCT`] of the factor, the heaviest name outside
    /// it set aside: one name's change is what a comparison looks for, so
    /// it must not unmake the drift, as it must not make it (a leaf 1.7x
    /// slower holding half the time, the others 5% faster together).
    pub agreeing_time_pct: f64,
    /// The busy names agree on a common factor: their spread is at most
    /// [`MAX_SPREAD_PCT`], at least [`MIN_AGREEING_TIME_PCT`] of their time
    /// agrees with it, and the factor is within [`MAX_FACTOR`] either way.
    /// A machine that runs slower slows every name alike; names that moved
    /// apart (one 52x, another 3x: B does different work per call, as a
    /// bigger batch) are changes of their own, so an incoherent estimate
    /// is reported but rows are judged as measured (factor 1).
    pub coherent: bool,
    /// The drift is coherent, past the noise percentage and past twice its
    /// standard error: the comparison names it. Rows are judged beyond a
    /// coherent drift either way.
    pub named: bool,
    /// The voting rows with the most own time (A's and B's summed), most
    /// first, ties by name then data: at most [`LISTED_SCOPES`].
    pub scopes: Vec<DriftScope>,
}

/// A name that voted.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DriftScope {
    pub name: String,
    pub calls_a: u64,
    pub calls_b: u64,
    /// B's own time per call over A's.
    pub ratio: f64,
}

/// A row's sums on one side, for the estimate.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Side {
    pub count: u64,
    pub self_ns: i64,
}

impl Side {
    fn per_call(self) -> f64 {
        self.self_ns as f64 / self.count.max(1) as f64
    }

    fn votes(self) -> bool {
        self.count >= MIN_CALLS && self.per_call() >= MIN_SELF_PER_CALL_NS
    }
}

/// The drift of the names `rows` (each with A's and B's sums), with
/// `noise_pct` the noise model's percentage. `None` with fewer than
/// [`MIN_SCOPES`] voting names.
pub fn estimate<'r>(
    rows: impl Iterator<Item = (&'r str, Side, Side)>,
    noise_pct: f64,
) -> Option<Drift> {
    // (log ratio, own time of both sides, name, calls)
    let mut votes: Vec<(f64, i64, &str, u64, u64)> = rows
        .filter(|(_, a, b)| a.votes() && b.votes())
        .map(|(name, a, b)| {
            (
                (b.per_call() / a.per_call()).ln(),
                a.self_ns.saturating_add(b.self_ns),
                name,
                a.count,
                b.count,
            )
        })
        .filter(|v| v.0.is_finite())
        .collect();
    if votes.len() < MIN_SCOPES {
        return None;
    }
    let mut logs: Vec<f64> = votes.iter().map(|v| v.0).collect();
    let centre = median(&mut logs);
    let mut deviations: Vec<f64> = logs.iter().map(|l| (l - centre).abs()).collect();
    let mad = median(&mut deviations);
    let factor = centre.exp();
    let together = (1.0 + noise_pct / 100.0).ln();
    let moved_together = logs
        .iter()
        .filter(|l| (*l - centre).abs() <= together)
        .count();
    let pct = 100.0 * (factor - 1.0);
    let spread_pct = 100.0 * (mad.exp() - 1.0);
    // The standard error of a median: 1.2533 sigma / sqrt(n), sigma
    // estimated as 1.4826 MAD.
    let stderr = 1.2533 * 1.4826 * mad / (votes.len() as f64).sqrt();
    let band = (1.0 + MAX_SPREAD_PCT / 100.0).ln();
    // (agreeing, all, the heaviest dissenter's) own time.
    let (agreeing_ns, voting_ns, heaviest_apart_ns) =
        votes
            .iter()
            .fold((0i128, 0i128, 0i128), |(near, all, apart), v| {
                let w = i128::from(v.1.max(0));
                if (v.0 - centre).abs() <= band {
                    (near + w, all + w, apart)
                } else {
                    (near, all + w, apart.max(w))
                }
            });
    let agreeing_time_pct =
        100.0 * agreeing_ns as f64 / (voting_ns - heaviest_apart_ns).max(1) as f64;
    let coherent = spread_pct <= MAX_SPREAD_PCT
        && agreeing_time_pct >= MIN_AGREEING_TIME_PCT
        && (1.0 / MAX_FACTOR..=MAX_FACTOR).contains(&factor);
    votes.sort_by(|x, y| y.1.cmp(&x.1).then_with(|| x.2.cmp(y.2)));
    let scopes_used = votes.len();
    votes.truncate(LISTED_SCOPES);
    Some(Drift {
        factor: four_digits(factor),
        pct: four_digits(pct),
        spread_pct: four_digits(spread_pct),
        stderr_pct: four_digits(100.0 * (stderr.exp() - 1.0)),
        scopes_used,
        moved_together,
        agreeing_time_pct: four_digits(agreeing_time_pct),
        coherent,
        named: coherent && pct.abs() > noise_pct && centre.abs() > 2.0 * stderr,
        scopes: votes
            .into_iter()
            .map(|(l, _, name, calls_a, calls_b)| DriftScope {
                name: name.to_owned(),
                calls_a,
                calls_b,
                ratio: four_digits(l.exp()),
            })
            .collect(),
    })
}

/// The median (the mean of the two middle values for an even count) of a
/// non-empty slice, which it sorts.
fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

/// To 4 significant digits: `ln`/`exp` may differ in their last bit between
/// the native and the WebAssembly build; the rounded value does not.
fn four_digits(x: f64) -> f64 {
    format!("{x:.3e}").parse().unwrap_or(x)
}

/// What the comparison says of a named drift, in one sentence (Markdown:
/// no names in it).
pub fn sentence(d: &Drift) -> String {
    let (how, pct) = if d.factor >= 1.0 {
        ("slower", d.pct)
    } else {
        ("faster", -d.pct)
    };
    format!(
        "B ran {pct:.1}% {how} across the board (±{:.1}%; {} of {} busy scopes moved together). \
         That is machine speed or load, or a change that slows or speeds up everything \
         (allocator, build profile); each row below is judged beyond it. To tell them apart, \
         record both on one machine, or several runs per side.",
        d.spread_pct, d.moved_together, d.scopes_used
    )
}

/// What the comparison says of any drift estimate, in one sentence
/// (Markdown: no names in it): [`sentence`] when named, else why it is not
/// (the names moved apart, or it is within the noise percentage or its
/// standard error) and how rows are judged. The report, `compare` and the
/// app's diff view say the same.
pub fn status(d: &Drift, noise_pct: f64) -> String {
    if d.named {
        return sentence(d);
    }
    if !d.coherent {
        return format!(
            "none common to the busy names: their per-call ratios B/A spread ±{:.1}% around \
             {:.2}x ({} of {} within the noise of it; {:.0}% of their time within {}% of it), \
             so they changed each on its own (B does other work per call), not with the \
             machine. Rows are judged B against A as they are.",
            d.spread_pct,
            d.factor,
            d.moved_together,
            d.scopes_used,
            d.agreeing_time_pct,
            MAX_SPREAD_PCT
        );
    }
    let why = if d.pct.abs() <= noise_pct {
        format!("within the noise percentage ({noise_pct}%)")
    } else {
        format!(
            "within twice its standard error (±{:.1}%; {} of {} busy names moved together): \
             not told apart from the names' own spread, so not called machine drift",
            d.stderr_pct, d.moved_together, d.scopes_used
        )
    };
    format!(
        "{:+.1}% (±{:.1}%, from {} busy names), {why}; rows are judged against it.",
        d.pct, d.spread_pct, d.scopes_used
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn side(count: u64, per_call_ns: i64) -> Side {
        Side {
            count,
            self_ns: per_call_ns * count as i64,
        }
    }

    #[test]
    fn one_changed_row_does_not_move_the_estimate() {
        let names: Vec<String> = (0..9).map(|k| format!("s{k}")).collect();
        let rows: Vec<(&str, Side, Side)> = names
            .iter()
            .enumerate()
            .map(|(k, n)| {
                let a = 10_000 + 1_000 * k as i64;
                // Every row 20% slower, one of them 3 times slower.
                let b = if k == 4 { a * 3 } else { a * 6 / 5 };
                (n.as_str(), side(100, a), side(100, b))
            })
            .collect();
        let d = estimate(rows.iter().copied(), 5.0).unwrap();
        assert!((d.factor - 1.2).abs() < 1e-3, "{d:?}");
        assert_eq!((d.scopes_used, d.moved_together), (9, 8));
        assert!(d.named);
        assert!(d.spread_pct < 0.1);
        // Too few calls or too little own time: no vote.
        let few: Vec<(&str, Side, Side)> = rows
            .iter()
            .map(|&(n, a, _)| (n, a, side(10, 1_000)))
            .collect();
        assert_eq!(estimate(few.into_iter(), 5.0), None);
    }

    /// One heavy name changed (1.7x, more than half the voters' time), the
    /// others 5% faster together: the drift is theirs, and coherent
    /// (the property test's case: the change had made it incoherent, and a
    /// name that only drifted was judged faster).
    #[test]
    fn one_heavy_changed_name_does_not_unmake_the_drift() {
        let names: Vec<String> = (0..7).map(|k| format!("s{k}")).collect();
        let rows: Vec<(&str, Side, Side)> = names
            .iter()
            .enumerate()
            .map(|(k, n)| {
                let (a, r) = match k {
                    0 => (437_442, 0.95 * 1.7),
                    1 => (267_509, 0.95),
                    _ => (2_000, 0.95),
                };
                (n.as_str(), side(100, a), side(100, (a as f64 * r) as i64))
            })
            .collect();
        let d = estimate(rows.iter().copied(), 5.0).unwrap();
        assert!((d.factor - 0.95).abs() < 1e-3, "{d:?}");
        assert_eq!(d.agreeing_time_pct, 100.0, "{d:?}");
        assert!(d.coherent, "{d:?}");
    }

    /// Names that moved apart (B does other work per call, as the Rerun
    /// SDK logging ten times bigger point clouds: ratios 3x to 52x) or a
    /// common factor no machine explains (5x) are no drift: reported, not
    /// named, and rows are judged as measured.
    #[test]
    fn names_that_moved_apart_or_too_far_are_no_drift() {
        let names: Vec<String> = (0..11).map(|k| format!("s{k}")).collect();
        let ratios = [52.0, 36.2, 32.8, 23.7, 9.5, 10.1, 3.4, 15.0, 5.1, 4.3, 5.0];
        let rows: Vec<(&str, Side, Side)> = names
            .iter()
            .zip(ratios)
            .map(|(n, r)| {
                (
                    n.as_str(),
                    side(1_000, 10_000),
                    side(100, (10_000.0 * r) as i64),
                )
            })
            .collect();
        let d = estimate(rows.iter().copied(), 5.0).unwrap();
        assert!(d.spread_pct > MAX_SPREAD_PCT, "{d:?}");
        assert!(!d.coherent && !d.named, "{d:?}");
        let noise = super::super::judge::Noise::default().with_drift(Some(&d));
        assert_eq!(noise.drift_factor(), 1.0);
        // The median name held and the spread is small, but the busiest
        // names (most of the time) moved 4x: no drift.
        let weights = [
            50_000, 40_000, 30_000, 2_000, 2_000, 2_000, 2_000, 2_000, 2_000, 2_000, 2_000,
        ];
        let ratios = [4.0, 3.7, 7.6, 1.0, 1.01, 0.99, 1.0, 1.02, 0.98, 1.0, 1.0];
        let rows: Vec<(&str, Side, Side)> = names
            .iter()
            .zip(ratios.iter().zip(weights))
            .map(|(n, (r, w))| (n.as_str(), side(100, w), side(100, (w as f64 * r) as i64)))
            .collect();
        let d = estimate(rows.iter().copied(), 5.0).unwrap();
        assert!(d.spread_pct < MAX_SPREAD_PCT, "{d:?}");
        assert!(d.agreeing_time_pct < 10.0, "{d:?}");
        assert!(!d.coherent && !d.named, "{d:?}");
        // Every name 5x: together, but past what a machine explains.
        let rows: Vec<(&str, Side, Side)> = names
            .iter()
            .map(|n| (n.as_str(), side(100, 10_000), side(100, 50_000)))
            .collect();
        let d = estimate(rows.iter().copied(), 5.0).unwrap();
        assert_eq!(d.moved_together, 11);
        assert!(!d.coherent && !d.named, "{d:?}");
        // 20% slower together: a drift, named, judged beyond.
        let rows: Vec<(&str, Side, Side)> = names
            .iter()
            .map(|n| (n.as_str(), side(100, 10_000), side(100, 12_000)))
            .collect();
        let d = estimate(rows.iter().copied(), 5.0).unwrap();
        assert!(d.coherent && d.named, "{d:?}");
        let noise = super::super::judge::Noise::default().with_drift(Some(&d));
        assert!((noise.drift_factor() - 1.2).abs() < 1e-3);
    }
}
