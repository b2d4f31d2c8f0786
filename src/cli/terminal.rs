//! `report` printed to a terminal: what a terminal shows well (hyperfine's
//! and criterion's way), not the Markdown meant for a pull request. The
//! headline, where the frame's time went as text bars, the findings and the
//! frame pacing as aligned tables, each recording's headline; up and down
//! marked by a sign and a symbol (▲ slower, ▼ faster, ○ not a cost), colour
//! only on top of them and never with `NO_COLOR` or `TERM=dumb`. Every name
//! from a recording goes through [`printable`]: no escape sequence of a
//! recording reaches the terminal.

use super::text::{Align, Table, ms, ms_f, printable};
use puffin_lens::engine::analyses::pacing::{Pacing, PacingReport, figure_label};
use puffin_lens::engine::report::{ComparisonReport, RecordingReport, Report};
use std::fmt::Write as _;

/// Whether to colour: a terminal that is not `dumb`, and no `NO_COLOR`
/// (<https://no-color.org>: set to anything but empty).
pub fn colour_wanted() -> bool {
    std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
        && std::env::var("TERM").map_or(true, |t| t != "dumb")
}

struct Style {
    colour: bool,
}

impl Style {
    fn paint(&self, code: &str, s: &str) -> String {
        if self.colour {
            format!("\x1b[{code}m{s}\x1b[0m")
        } else {
            s.to_owned()
        }
    }
    fn bold(&self, s: &str) -> String {
        self.paint("1", s)
    }
    fn dim(&self, s: &str) -> String {
        self.paint("2", s)
    }
    /// A change: worse red, better green (the sign and the mark say it
    /// without colour).
    fn change(&self, delta: f64, s: &str) -> String {
        if delta > 0.0 {
            self.paint("31", s)
        } else if delta < 0.0 {
            self.paint("32", s)
        } else {
            s.to_owned()
        }
    }
}

/// Markdown's inline marks taken out of a sentence of the report (code
/// spans' backticks stay: they delimit names).
fn plain(s: &str) -> String {
    printable(&s.replace("**", "").replace("\\", "")).into_owned()
}

/// The report for a terminal, `colour` or not.
pub fn render(report: &Report, colour: bool) -> String {
    let st = Style { colour };
    let mut o = String::new();
    let names: Vec<&str> = report
        .recordings
        .iter()
        .map(|r| r.summary.file.as_str())
        .collect();
    let _ = writeln!(
        o,
        "{}\n",
        st.bold(&format!(
            "puffin-lens report: {}",
            printable(&names.join(" → "))
        ))
    );
    if let Some(c) = &report.comparison {
        comparison(&mut o, c, &st);
    }
    for r in &report.recordings {
        recording(&mut o, r, report.comparison.is_none(), &st);
    }
    let _ = writeln!(
        o,
        "{}",
        st.dim(
            "The whole report (every section, the evidence of each finding): --format md, or \
             -o report.md | report.html | report.json"
        )
    );
    o
}

fn comparison(o: &mut String, c: &ComparisonReport, st: &Style) {
    let g = &c.glance;
    let unit = c.frame.basis.unit();
    let _ = writeln!(o, "{}\n", st.bold(&plain(&g.headline)));
    let _ = writeln!(
        o,
        "{}",
        st.bold(&format!(
            "Where the {unit}'s time went (the mean {unit}, each part counted once)"
        ))
    );
    let widest = g
        .bars
        .iter()
        .map(|b| b.delta_ns.abs())
        .fold(0.0f64, f64::max)
        .max(1.0);
    let mut t = Table::new(&[
        ("", Align::Left),
        ("part", Align::Left),
        ("ms", Align::Right),
        ("interval", Align::Left),
        ("", Align::Left),
    ]);
    t.row(vec![
        String::new(),
        format!("A's {unit}"),
        ms_f(g.a_ns),
        String::new(),
        String::new(),
    ]);
    for b in &g.bars {
        let mark = if !b.cost {
            "○"
        } else if b.delta_ns > 0.0 {
            "▲"
        } else {
            "▼"
        };
        let len = ((b.delta_ns.abs() / widest) * 30.0).round().max(1.0) as usize;
        let bar = "█".repeat(len);
        t.row(vec![
            mark.to_owned(),
            plain(&b.label),
            format!("{:+.3}", b.delta_ns / 1e6),
            b.ci_ns
                .map(|[l, u]| format!("[{:+.3}, {:+.3}]", l / 1e6, u / 1e6))
                .unwrap_or_default(),
            if b.cost {
                bar
            } else {
                format!("{bar} (not a cost)")
            },
        ]);
    }
    t.row(vec![
        String::new(),
        format!("B's {unit}"),
        ms_f(g.b_ns),
        String::new(),
        String::new(),
    ]);
    let mut text = String::new();
    t.render(&mut text);
    // Colour each part's line by its sign, after the table aligned it.
    for (k, line) in text.lines().enumerate() {
        // (The header, A's frame, then the parts.)
        let delta = k
            .checked_sub(2)
            .and_then(|k| g.bars.get(k))
            .map_or(0.0, |b| if b.cost { b.delta_ns } else { 0.0 });
        let _ = writeln!(o, "  {}", st.change(delta, line));
    }
    let _ = writeln!(o, "  {}", st.dim("▲ slower, ▼ faster, ○ not a cost of the code; [lo, hi]: where the change lies (99% sure or more)"));
    if !g.findings.is_empty() {
        let _ = writeln!(o, "\n{}", st.bold("Findings, most costly first"));
        let mut t = Table::new(&[
            ("#", Align::Right),
            ("scope", Align::Left),
            ("what", Align::Left),
            (&format!("per {unit}"), Align::Right),
            ("interval", Align::Left),
            ("where", Align::Left),
        ]);
        for f in &g.findings {
            t.row(vec![
                f.rank.to_string(),
                if f.name.is_empty() {
                    "–".to_owned()
                } else {
                    printable(&f.name).into_owned()
                },
                format!("{}{}", f.badge, if f.cost { "" } else { " ○" }),
                format!("{:+.3} ms", f.delta_ns / 1e6),
                f.ci_ns
                    .map(|[l, u]| format!("[{:+.3}, {:+.3}]", l / 1e6, u / 1e6))
                    .unwrap_or_default(),
                plain(&f.place),
            ]);
        }
        let mut text = String::new();
        t.render(&mut text);
        for (k, line) in text.lines().enumerate() {
            let delta = k
                .checked_sub(1)
                .and_then(|k| g.findings.get(k))
                .map_or(0.0, |f| if f.cost { f.delta_ns } else { 0.0 });
            let _ = writeln!(o, "  {}", st.change(delta, line));
        }
    }
    let _ = writeln!(o);
    if let Some(p) = &c.pacing {
        pacing(o, p, st);
    }
}

fn recording(o: &mut String, r: &RecordingReport, alone: bool, st: &Style) {
    let label = if r.label.is_empty() {
        String::new()
    } else {
        format!("{} ({}): ", r.label, printable(&r.summary.file))
    };
    let _ = writeln!(o, "{}{}\n", st.bold(&label), plain(&r.headline));
    if !alone {
        return;
    }
    if let Some(rows) = r.slowest_frames.as_array().filter(|r| !r.is_empty()) {
        let _ = writeln!(o, "{}", st.bold("Slowest frames"));
        let mut t = Table::new(&[
            ("frame", Align::Right),
            ("ms", Align::Right),
            ("scopes", Align::Right),
        ]);
        for f in rows.iter().take(5) {
            t.row(vec![
                f["frame_index"].to_string(),
                ms(f["duration_ns"].as_i64().unwrap_or(0)),
                f["num_scopes"].to_string(),
            ]);
        }
        indent(o, &t);
    }
    if !r.totals.is_empty() {
        let _ = writeln!(o, "{}", st.bold("Most time, by name"));
        let mut t = Table::new(&[
            ("name", Align::Left),
            ("calls", Align::Right),
            ("total ms", Align::Right),
            ("own ms", Align::Right),
            ("p95 ms", Align::Right),
            ("max ms", Align::Right),
        ]);
        for x in r.totals.iter().take(10) {
            t.row(vec![
                printable(&x.name).into_owned(),
                x.count.to_string(),
                ms(x.total_ns),
                ms(x.self_ns),
                ms(x.p95_ns),
                ms(x.max_ns),
            ]);
        }
        indent(o, &t);
    }
    if let Some(p) = &r.pacing {
        pacing(o, p, st);
    }
}

fn indent(o: &mut String, t: &Table) {
    let mut text = String::new();
    t.render(&mut text);
    for line in text.lines() {
        let _ = writeln!(o, "  {line}");
    }
    let _ = writeln!(o);
}

fn pacing(o: &mut String, p: &PacingReport, st: &Style) {
    let _ = writeln!(o, "{}", st.bold("Frame pacing"));
    let _ = writeln!(o, "  {}", plain(&p.headline));
    let _ = writeln!(
        o,
        "  {}",
        st.dim(&format!(
            "periods on {}, start to start; budget {} ms ({})",
            printable(&p.thread),
            ms_f(p.budget_ns),
            p.budget_source
        ))
    );
    let sides: Vec<(&str, &Pacing)> = std::iter::once(("A", &p.a))
        .chain(p.b.as_ref().map(|b| ("B", b)))
        .collect();
    let pair = sides.len() == 2;
    let mut headers = vec![("", Align::Left)];
    headers.extend(
        sides
            .iter()
            .map(|&(l, _)| (if pair { l } else { "" }, Align::Right)),
    );
    if pair {
        headers.push(("B − A", Align::Right));
        headers.push(("interval", Align::Left));
        headers.push(("verdict", Align::Left));
    }
    let mut t = Table::new(&headers);
    type Get = fn(&Pacing) -> f64;
    let rows: [(&str, Option<&str>, Get); 9] = [
        ("median ms", None, |s| s.median_ns as f64),
        ("P95 ms", Some("p95"), |s| s.p95_ns as f64),
        ("P99 ms", Some("p99"), |s| s.p99_ns as f64),
        ("1% low ms", Some("low_1pct"), |s| s.low_1pct_ns),
        ("0.1% low ms", Some("low_01pct"), |s| s.low_01pct_ns),
        ("worst ms", None, |s| s.worst.duration_ns as f64),
        ("over budget %", Some("over_budget"), |s| {
            s.over_budget_share
        }),
        ("stutters %", Some("stutter"), |s| s.stutter_share),
        ("frame to frame ms", Some("frame_to_frame"), |s| {
            s.frame_to_frame_ns
        }),
    ];
    let mut deltas = Vec::new();
    for (label, figure, get) in rows {
        let share = label.ends_with('%');
        let cell = |v: f64| {
            if share {
                format!("{:.1}", v * 100.0)
            } else if label.starts_with("frame to frame") {
                ms_f(v)
            } else {
                format!(
                    "{} ({:.0} fps)",
                    ms_f(v),
                    if v > 0.0 { 1e9 / v } else { 0.0 }
                )
            }
        };
        let mut row = vec![label.to_owned()];
        row.extend(sides.iter().map(|(_, s)| cell(get(s))));
        let mut delta = 0.0;
        if pair {
            match figure.and_then(|f| p.changes.iter().find(|c| c.figure == f)) {
                Some(c) => {
                    let v = |x: f64| {
                        if share {
                            format!("{:+.1}", x * 100.0)
                        } else {
                            format!("{:+.3}", x / 1e6)
                        }
                    };
                    let mark = match (c.effect.verdict.as_str(), c.effect.delta_ns > 0.0) {
                        ("changed", true) => "▲ ",
                        ("changed", false) => "▼ ",
                        _ => "",
                    };
                    if c.effect.verdict.as_str() == "changed" {
                        delta = c.effect.delta_ns;
                    }
                    row.push(format!("{mark}{}", v(c.effect.delta_ns)));
                    row.push(format!(
                        "[{}, {}]",
                        v(c.effect.ci_ns[0]),
                        v(c.effect.ci_ns[1])
                    ));
                    row.push(c.effect.verdict.as_str().to_owned());
                }
                None => row.extend([String::new(), String::new(), String::new()]),
            }
        }
        deltas.push(delta);
        t.row(row);
    }
    let mut text = String::new();
    t.render(&mut text);
    for (k, line) in text.lines().enumerate() {
        let d = k
            .checked_sub(1)
            .and_then(|k| deltas.get(k))
            .copied()
            .unwrap_or(0.0);
        let _ = writeln!(o, "  {}", st.change(d, line));
    }
    if let Some((c, settle)) = p
        .changes
        .iter()
        .find_map(|c| c.effect.settle.as_ref().map(|s| (c, s)))
    {
        let _ = writeln!(
            o,
            "  {}",
            st.dim(&format!(
                "{} inconclusive: {settle}",
                figure_label(c.figure)
            ))
        );
    }
    for (label, s) in &sides {
        let slow = &s.slow_frames;
        let Some(c) = slow.culprits.first() else {
            continue;
        };
        let who = if pair {
            format!("{label}'s ")
        } else {
            String::new()
        };
        let _ = writeln!(
            o,
            "  {who}{} slow frames ({}): {} ms against {} ms; most of it `{}` {:+.3} ms, high in {} of them and {} of the other {}",
            slow.frames,
            slow.rule,
            ms_f(slow.mean_ns),
            ms_f(slow.typical_mean_ns),
            printable(&c.part),
            c.excess_ns / 1e6,
            c.in_slow,
            c.in_typical,
            s.frames - slow.frames
        );
    }
    let _ = writeln!(o);
}
