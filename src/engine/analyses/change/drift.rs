//! Run-to-run drift: the shift in per-call cost that the busy scopes of A
//! and B share, and how far each name strays from it. Two runs of the same
//! code on a shared machine differ by 10-20% as a whole (CPU frequency,
//! other tenants, caches), and each name by a few percent of its own;
//! samples from within one run see neither. The model of change
//! ([`super::effect`]) judges each row against the shared shift and carries
//! both uncertainties in every interval.
//!
//! The estimate rests on **the names that did not change**: a changed
//! name's log ratio of own time per call (B over A) is an outlier of the
//! shift the others share, whatever its size, so it must not move the
//! estimate. The densest half of the votes (the shortest interval holding
//! `⌊n/2⌋ + 1` of them, the least-median-of-squares location, which no
//! minority moves) gives a centre and a scale (`1.4826 (1 + 5/(n − 1))`
//! times its half-width), the scale at most the prior `τ₀` (unchanged names
//! vary between runs by no more); the votes within 2.5 scales of the centre
//! are the unchanged names ([`unchanged`]). The drift is their median; `τ`
//! is every voting name's robust spread around it (names the machine moved
//! unevenly are far but not changed: they must widen it), its standard error
//! `1.2533 τ / √n`. See docs/statistics.md (the table of constants) and [`super::effect`]'s
//! module doc.

use super::effect::four_digits;
use serde::Serialize;
use std::ops::Range;

/// Calls on each side a row needs to vote.
pub const MIN_CALLS: u64 = 50;
/// Own time per call on each side a row needs to vote: below it the timer's
/// resolution and the profiler's own cost dominate.
pub const MIN_SELF_PER_CALL_NS: f64 = 1_000.0;
pub use super::effect::MIN_SCOPES;
/// The rows listed in [`Drift::scopes`].
pub const LISTED_SCOPES: usize = 20;

/// The common shift in per-call cost between A and B.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Drift {
    /// B's per-call cost over A's that the busy rows share (1.21: B ran 21%
    /// slower across the board).
    pub factor: f64,
    /// `(factor - 1)` in percent.
    pub pct: f64,
    /// The names' own spread around it, `exp(τ) − 1`, in percent.
    pub spread_pct: f64,
    /// The estimate's standard error, `exp(se) − 1`, in percent.
    pub stderr_pct: f64,
    /// `τ` and the standard error on the log scale (what every row's
    /// interval carries).
    pub tau: f64,
    pub se: f64,
    /// Rows that voted.
    pub scopes_used: usize,
    /// Of those, the rows the estimate rests on: the names that did not
    /// change (see [`unchanged`]).
    pub scopes_unchanged: usize,
    /// Of those, the rows whose ratio is within the noise percentage of the
    /// factor (moved together).
    pub moved_together: usize,
    /// The names the estimate rests on agree within the prior spread
    /// (their robust spread at most `τ₀`): they can be told to be the ones
    /// that did not change. Where they do not (most names changed, each by
    /// its own amount), no drift is estimated: nothing is subtracted.
    pub agree: bool,
    /// The names agree and the drift's interval (at the comparison's
    /// alpha) lies outside the noise percentage: the comparison names it,
    /// and rows are judged beyond it. Unnamed, it is neither subtracted
    /// nor drawn; its error is carried in every interval.
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
#[derive(Clone, Copy, Debug, Default, PartialEq)]
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

/// The votes that did not change, as a range of `sorted` (the votes' log
/// ratios, ascending; at least one). It starts from the densest half (the
/// shortest interval holding `⌊n/2⌋ + 1` votes: its midpoint, and
/// `1.4826 (1 + 5/(n − 1))` times its half-width as the scale) and keeps
/// the votes within 2.5 scales of the centre, then takes the centre and
/// scale of those (their median, 1.4826 MAD) and keeps again, until the
/// kept votes hold (a reweighted least-median-of-squares location). The
/// scale is at most `prior_tau` when that is positive: names that did not
/// change vary between runs by no more. A step that would keep fewer than
/// half the votes (at least 3) keeps the last: where most names changed,
/// none can be told to be the unchanged ones.
pub fn unchanged(sorted: &[f64], prior_tau: f64) -> Range<usize> {
    let n = sorted.len();
    let h = n / 2 + 1;
    let (from, half_width) = (0..=n - h)
        .map(|i| (i, (sorted[i + h - 1] - sorted[i]) / 2.0))
        .min_by(|x, y| x.1.total_cmp(&y.1))
        .unwrap_or((0, 0.0));
    let cap = if prior_tau > 0.0 {
        prior_tau
    } else {
        f64::INFINITY
    };
    let mut kept = from..from + h;
    let mut centre = sorted[from] + half_width;
    let mut scale = 1.4826 * (1.0 + 5.0 / (n.max(2) - 1) as f64) * half_width;
    for _ in 0..20 {
        let within = 2.5 * scale.min(cap);
        let lo = sorted.partition_point(|l| *l < centre - within);
        let hi = sorted.partition_point(|l| *l <= centre + within);
        if hi - lo < n.div_ceil(2).max(3) || (lo..hi) == kept {
            break;
        }
        kept = lo..hi;
        (centre, scale) = super::effect::robust_spread(&sorted[kept.clone()]);
    }
    kept
}

/// The drift of the names `rows` (each with A's and B's sums), with
/// `noise_pct` the noise model's percentage, `alpha` its level and
/// `prior_tau` the names' run-to-run spread runs of the same code show (see
/// [`unchanged`]). `None` with fewer than [`MIN_SCOPES`] voting names.
pub fn estimate<'r>(
    rows: impl Iterator<Item = (&'r str, Side, Side)>,
    noise_pct: f64,
    alpha: f64,
    prior_tau: f64,
) -> Option<Drift> {
    // (log ratio, own time of both sides, name, calls)
    let mut votes: Vec<(f64, i64, &str, u64, u64)> = rows
        .filter(|(_, a, b)| a.votes() && b.votes())
        .map(|(name, a, b)| {
            (
                libm::log(b.per_call() / a.per_call()),
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
    let logs: Vec<f64> = votes.iter().map(|v| v.0).collect();
    let mut sorted = logs.clone();
    sorted.sort_by(f64::total_cmp);
    let kept = &sorted[unchanged(&sorted, prior_tau)];
    // The centre is the unchanged names'; the spread is every name's around
    // it (1.4826 MAD), so that names the machine moved unevenly (far, but
    // not changed) still widen it: a pair's changes can only widen it, and
    // one run a side holds it to the prior (`Noise::one_run_tau`).
    let (centre, kept_scale) = super::effect::robust_spread(kept);
    let agree = prior_tau <= 0.0 || kept_scale <= prior_tau;
    let mut dev: Vec<f64> = logs.iter().map(|l| (l - centre).abs()).collect();
    let tau = 1.4826 * super::effect::median(&mut dev);
    let n = votes.len() as f64;
    let se = 1.2533 * tau / n.sqrt();
    let factor = libm::exp(centre);
    let together = libm::log(1.0 + noise_pct / 100.0);
    let moved_together = logs
        .iter()
        .filter(|l| (*l - centre).abs() <= together)
        .count();
    let q = super::effect::t_quantile(1.0 - alpha / 2.0, n - 1.0);
    votes.sort_by(|x, y| y.1.cmp(&x.1).then_with(|| x.2.cmp(y.2)));
    let scopes_used = votes.len();
    votes.truncate(LISTED_SCOPES);
    Some(Drift {
        factor: four_digits(factor),
        pct: four_digits(100.0 * (factor - 1.0)),
        spread_pct: four_digits(100.0 * (libm::exp(tau) - 1.0)),
        stderr_pct: four_digits(100.0 * (libm::exp(se) - 1.0)),
        tau: four_digits(tau),
        se: four_digits(se),
        scopes_used,
        scopes_unchanged: kept.len(),
        moved_together,
        agree,
        named: agree && centre.abs() - q * se > together,
        scopes: votes
            .into_iter()
            .map(|(l, _, name, calls_a, calls_b)| DriftScope {
                name: name.to_owned(),
                calls_a,
                calls_b,
                ratio: four_digits(libm::exp(l)),
            })
            .collect(),
    })
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
        "B ran {pct:.1}% {how} across the board (±{} standard error; {} of {} busy scopes \
         moved together, the others spread ±{}). That is machine speed or load, or a change \
         that slows or speeds up everything (allocator, build profile); each row below is judged \
         beyond it, its error carried. To tell them apart, record both on one machine, or \
         several runs per side.",
        small_pct(d.stderr_pct),
        d.moved_together,
        d.scopes_used,
        small_pct(d.spread_pct)
    )
}

/// What paired runs say of the shift the busy names share: the runs
/// alternated, so it is not the machine's, and no row is judged beyond it.
pub fn paired_sentence(d: &Drift) -> String {
    let how = if d.factor >= 1.0 { "slower" } else { "faster" };
    format!(
        "B's busy scopes run {:.1}% {how} per call across the board (±{} standard error; {} of \
         {} moved together, the others spread ±{}). The runs alternated on one machine, so this \
         is the code's (an allocator, a build flag, a helper called everywhere), not the \
         machine's: every row is judged B against A as it is, this shift included.",
        d.pct.abs(),
        small_pct(d.stderr_pct),
        d.moved_together,
        d.scopes_used,
        small_pct(d.spread_pct)
    )
}

/// A percentage to one decimal, two significant digits under 0.1% ("0.03%",
/// not "0.0%").
fn small_pct(p: f64) -> String {
    if p.abs() < 0.1 && p != 0.0 {
        format!("{p:.2}%")
    } else {
        format!("{p:.1}%")
    }
}

/// What the comparison says of any drift estimate, in one sentence
/// (Markdown: no names in it): [`sentence`] when named, else why it is not
/// (its interval reaches inside the noise percentage). The report,
/// `compare` and the app's diff view say the same.
pub fn status(d: &Drift, noise_pct: f64) -> String {
    if d.named {
        return sentence(d);
    }
    if !d.agree {
        return format!(
            "not estimated: no group of the {} busy names agrees within the run-to-run spread \
             (their ratios B/A spread ±{} around the densest {}): most of them changed, each by \
             its own amount, so none can be told to be the machine's. Nothing is subtracted; \
             rows are judged as measured, the machine's error carried in every interval.",
            d.scopes_used,
            small_pct(d.spread_pct),
            d.scopes_unchanged,
        );
    }
    format!(
        "{:+.1}% (±{} standard error, from the {} of {} busy names that did not change, spread \
         ±{}): not told apart from the noise percentage ({noise_pct}%), so not called machine \
         drift and not subtracted; its error and the names' spread are carried in every \
         interval.",
        d.pct,
        small_pct(d.stderr_pct),
        d.scopes_unchanged,
        d.scopes_used,
        small_pct(d.spread_pct)
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
        let d = estimate(rows.iter().copied(), 5.0, 0.01, 0.12).unwrap();
        assert!((d.factor - 1.2).abs() < 1e-3, "{d:?}");
        assert_eq!((d.scopes_used, d.moved_together), (9, 8));
        assert!(d.named);
        assert!(d.spread_pct < 0.1);
        // Too few calls or too little own time: no vote.
        let few: Vec<(&str, Side, Side)> = rows
            .iter()
            .map(|&(n, a, _)| (n, a, side(10, 1_000)))
            .collect();
        assert_eq!(estimate(few.into_iter(), 5.0, 0.01, 0.12), None);
    }

    /// Half the names changed (by +10% to +60%, a simulated clock's ±1%
    /// on the rest): the drift rests on the four that did not, is about
    /// 0; the median of all eight would have been +5.5%. A minority changing by any amount leaves it where it was.
    #[test]
    fn the_drift_rests_on_the_names_that_did_not_change() {
        let names: Vec<String> = (0..8).map(|k| format!("s{k}")).collect();
        let ratios = [0.99, 1.0, 1.005, 1.01, 1.1, 1.25, 1.4, 1.6];
        let rows: Vec<(&str, Side, Side)> = names
            .iter()
            .zip(ratios)
            .map(|(n, r)| {
                (
                    n.as_str(),
                    side(100, 10_000),
                    side(100, (10_000.0 * r) as i64),
                )
            })
            .collect();
        let d = estimate(rows.iter().copied(), 5.0, 0.01, 0.12).unwrap();
        assert_eq!((d.scopes_used, d.scopes_unchanged), (8, 4), "{d:?}");
        assert!(d.pct.abs() < 0.5 && !d.named, "{d:?}");
        // Any size of change in a minority: the same estimate.
        for big in [2.0, 10.0, 100.0] {
            let mut moved = rows.clone();
            moved[7].2 = side(100, (10_000.0 * big) as i64);
            let e = estimate(moved.iter().copied(), 5.0, 0.01, 0.12).unwrap();
            assert_eq!((e.factor, e.tau), (d.factor, d.tau), "{big}: {e:?}");
        }
        // Every name 20% slower but two changed further: 1.2, named.
        let rows: Vec<(&str, Side, Side)> = names
            .iter()
            .enumerate()
            .map(|(k, n)| {
                let r = [1.2, 1.19, 1.21, 1.195, 1.205, 1.2, 2.0, 0.5][k];
                (
                    n.as_str(),
                    side(100, 10_000),
                    side(100, (10_000.0 * r) as i64),
                )
            })
            .collect();
        let d = estimate(rows.iter().copied(), 5.0, 0.01, 0.12).unwrap();
        assert!(d.named && (d.factor - 1.2).abs() < 0.005, "{d:?}");
        assert_eq!(d.scopes_unchanged, 6);
    }

    /// Names that moved apart (B does other work per call, as the Rerun
    /// SDK logging ten times bigger point clouds: ratios 3x to 52x) give a
    /// wide spread and a wide error, and every row's interval carries the
    /// spread.
    #[test]
    fn names_that_moved_apart_are_a_wide_spread() {
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
        let d = estimate(rows.iter().copied(), 5.0, 0.01, 0.12).unwrap();
        assert!(d.spread_pct > 40.0 && d.stderr_pct > 20.0, "{d:?}");
        assert_eq!(d.moved_together, 2);
        // Names that moved apart are the pair's changes: with one run a side
        // they never widen a name's spread past the prior.
        let noise = super::super::judge::Noise::default().with_drift(Some(&d));
        assert!(d.tau > super::super::effect::DEFAULT_TAU);
        assert_eq!(noise.tau, super::super::effect::DEFAULT_TAU);
        // 20% slower together: a drift, named, its error small.
        let rows: Vec<(&str, Side, Side)> = names
            .iter()
            .map(|n| (n.as_str(), side(100, 10_000), side(100, 12_000)))
            .collect();
        let d = estimate(rows.iter().copied(), 5.0, 0.01, 0.12).unwrap();
        assert!(d.named && d.tau == 0.0, "{d:?}");
        let noise = super::super::judge::Noise::default().with_drift(Some(&d));
        assert!((noise.drift_factor() - 1.2).abs() < 1e-3);
        // Names that agree better than the prior: their own spread.
        assert_eq!(noise.tau, 0.0);
    }
}
