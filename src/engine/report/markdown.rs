//! The report as GitHub-flavoured Markdown ([`Report::markdown`]): the
//! comparison's table and the sections of each recording.

use super::comparison::{numbered_runs, sentence_md, threads_md, wait_in, wait_md};
use super::text::{between_frames, cell, describe_per, msu, num, signed_ms, text};
use super::{ComparisonReport, Outlier, RecordingReport, Report};
use crate::engine::analyses::accounting::Lead;
use crate::engine::analyses::basis::Basis;
use crate::engine::analyses::compare::SideStats;
use crate::engine::analyses::drift;
use crate::engine::analyses::judge::{Change, Kind};
use crate::engine::analyses::tail::{Cadence, TAIL_K, TAIL_MIN_NS, TAIL_MIN_SHARE};
use crate::engine::write::escape;
use crate::units::thread_label;
use serde_json::Value;
use std::fmt::Write as _;

/// The legend under the comparison table.
const JUDGEMENT_LEGEND: &str = "Judged per name and per frame: each name's effect (B's time per \
frame minus A's times the run-to-run drift) with an interval that carries the frames' own \
variation (batch means, or the runs of several a side), the names' run-to-run spread and the \
drift's error, at the level the comparison's false-discovery rate allows (the percentage \
printed). A name is **changed** when its whole interval lies outside the band (±the noise \
percentage of its time, at least the noise milliseconds), **unchanged** when it lies inside, \
**inconclusive** otherwise. A name's calls past its side's far-out fence (the third quartile \
plus three interquartile ranges) are its tail: a tail that is not itself a change is set apart \
and the name judged by its typical calls (each cut at the fence). A changed name is \
**slower/faster per call** or **runs more/less often** when that part's own interval clears \
the band, **costs more/less per frame** when neither does alone (its mix of call sizes, or a \
tail); **one spike** when one or two calls of one side are its tail, none of the other's, and \
its typical calls did not change (they are judged on their own); **new/gone in B** when one \
side lacks the name. Unchanged and inconclusive names are not listed.";

impl Report {
    /// GitHub-flavoured Markdown, for a pull request or a terminal.
    pub fn markdown(&self) -> String {
        self.render_md(false)
    }

    /// Markdown; with `charts`, a `<!--chart:KIND:R:I-->` line where each
    /// chart goes (replaced by [`Self::html`]).
    pub(super) fn render_md(&self, charts: bool) -> String {
        let mut o = String::new();
        let title = match self.recordings.as_slice() {
            [a, b] => format!("{} → {}", a.summary.file, b.summary.file),
            [a] => a.summary.file.clone(),
            _ => String::new(),
        };
        let _ = writeln!(o, "# puffin-lens report: {}\n", cell(&title));
        if let Some(a) = &self.applied {
            let list: Vec<String> = a
                .transforms
                .iter()
                .map(|t| escape::markdown_code(t))
                .collect();
            let _ = writeln!(
                o,
                "Call trees (hot paths) read with the transforms {}: the tables count every scope.\n",
                list.join(", ")
            );
            for w in &a.warnings {
                let _ = writeln!(o, "> warning: {}\n", cell(w));
            }
        }
        if let Some(c) = &self.comparison {
            glance_md(&mut o, c, charts);
            if let Some(p) = &c.pacing {
                pacing_md(&mut o, p, "## ", charts);
            }
            comparison_md(&mut o, c);
        }
        for (k, r) in self.recordings.iter().enumerate() {
            recording_md(&mut o, r, charts.then_some(k));
        }
        let _ = writeln!(o, "_{}_", self.tool);
        o
    }
}

fn heading(r: &RecordingReport) -> String {
    if r.label.is_empty() {
        String::new()
    } else {
        format!("{} ({}): ", r.label, cell(&r.summary.file))
    }
}

fn recording_md(o: &mut String, r: &RecordingReport, charts: Option<usize>) {
    let s = &r.summary;
    let h = heading(r);
    let _ = writeln!(o, "## {h}Summary\n\n**{}**\n", r.headline);
    let _ = writeln!(
        o,
        "{} frames, {} threads, {} scopes over {}; format {} ({}){}.\n",
        s.frames,
        s.threads,
        s.scopes,
        msu(s.span_ns),
        s.formats.join(", "),
        s.compressions.join(", "),
        if s.damaged {
            "; **damaged: only the intact frames are counted**"
        } else {
            ""
        }
    );
    if let Some(note) = &r.frames_absent_note {
        let _ = writeln!(o, "Frames: {note}.\n");
    }
    if let Some(x) = &s.overlapping_frames {
        let _ = writeln!(o, "> [!WARNING]\n> {}.\n", cell(&x.sentence));
    }
    if !r.registration.warning.is_empty() {
        let _ = writeln!(o, "> [!WARNING]\n> {}\n", cell(&r.registration.warning));
    } else {
        let _ = writeln!(
            o,
            "Scope registration: present ({} scopes registered).\n",
            s.registered_scopes
        );
    }
    if let Some(u) = &r.unframed {
        let _ = writeln!(o, "> [!IMPORTANT]\n> {}\n", u.sentence());
    } else {
        slowest_frames_md(o, r, &h, charts);
    }
    // (Compared, both sides' pacing is the comparison's section.)
    if let Some(p) = &r.pacing {
        pacing_md(o, p, &format!("### {h}"), charts.is_some());
    }
    if let Some(rows) = r.slowest_frame_threads.as_array() {
        let frame = r
            .slowest_frames
            .get(0)
            .map_or(0, |f| num(&f["frame_index"]));
        if r.unframed.is_some() {
            let _ = writeln!(o, "### {h}Threads (frame {frame})\n");
        } else {
            let _ = writeln!(o, "\n### {h}Threads of the slowest frame ({frame})\n");
        }
        let _ = writeln!(
            o,
            "| thread | span | scopes | depth |\n|---|---:|---:|---:|"
        );
        for t in rows {
            let _ = writeln!(
                o,
                "| {} | {} | {} | {} |",
                cell(thread_label(text(&t["name"]))),
                msu(num(&t["span_ns"])),
                num(&t["num_scopes"]),
                num(&t["depth"])
            );
        }
    }
    let _ = writeln!(
        o,
        "\n### {h}Slowest scopes (the slowest call of each name, nested scopes)\n"
    );
    let _ = writeln!(
        o,
        "| scope | data | duration | thread | frame |\n|---|---|---:|---|---:|"
    );
    for x in r.slowest_scopes.as_array().into_iter().flatten() {
        let _ = writeln!(
            o,
            "| {} | {} | {} | {} | {} |",
            cell(text(&x["name"])),
            cell(text(&x["data"])),
            msu(num(&x["duration_ns"])),
            cell(thread_label(text(&x["thread"]))),
            num(&x["frame_index"])
        );
    }
    let shown = r.slowest_scopes.as_array().map_or(0, Vec::len);
    more_md(o, shown, r.total_slowest_scopes as i64);
    let _ = writeln!(o, "\n### {h}Totals per scope\n");
    let _ = writeln!(
        o,
        "| scope | calls | total | self | p95 | max |\n|---|---:|---:|---:|---:|---:|"
    );
    for t in &r.totals {
        let _ = writeln!(
            o,
            "| {} | {} | {} | {} | {} | {} |",
            cell(&t.name),
            t.count,
            msu(t.total_ns),
            msu(t.self_ns),
            msu(t.p95_ns),
            msu(t.max_ns)
        );
    }
    more_md(o, r.totals.len(), r.total_names as i64);
    let _ = writeln!(
        o,
        "\n### {h}Hot path (merged over all frames, largest child first)\n"
    );
    for p in &r.hot_paths {
        let path: Vec<String> = p
            .steps
            .iter()
            .map(|st| format!("{} {}", escape::markdown_code(&st.name), msu(st.total_ns)))
            .collect();
        let _ = writeln!(
            o,
            "- **{}**: {}{}",
            cell(thread_label(&p.thread)),
            path.join(" > "),
            p.stop
                .as_ref()
                .map_or(String::new(), |s| format!(". Stops at {}", cell(s)))
        );
    }
    gaps_md(o, r, &h, charts);
    let _ = writeln!(
        o,
        "\n### {h}Outliers: one call, or one frame's calls, is most of the total; heavy tails\n"
    );
    let (ones, tails): (Vec<&Outlier>, Vec<&Outlier>) =
        r.outliers.iter().partition(|x| x.tail.is_none());
    if ones.is_empty() {
        let _ = writeln!(
            o,
            "None: no scope's largest call, nor its calls in any one frame, is more than half of \
             its total.\n"
        );
    } else {
        let _ = writeln!(
            o,
            "Averages of these scopes mislead: look at the call (or the frame).\n\n\
             | scope | kind | calls | total | largest call | calls in that frame | share | frame | thread | at (ms) |\n\
             |---|---|---:|---:|---:|---:|---:|---:|---|---:|"
        );
        for x in &ones {
            let _ = writeln!(
                o,
                "| {} | {} | {} | {} | {} | {} ({}) | {:.0}% | {} | {} | {} |",
                cell(&x.name),
                if x.kind == "call" {
                    "one call"
                } else {
                    "one frame's burst"
                },
                x.count,
                msu(x.total_ns),
                msu(x.max_ns),
                x.calls_in_frame,
                msu(x.frame_total_ns),
                x.max_share * 100.0,
                x.frame_index,
                cell(thread_label(&x.thread)),
                crate::units::at_ms(crate::engine::reltime::rel_ms(
                    x.start_ns,
                    r.recording_start_ns
                ))
            );
        }
        o.push('\n');
    }
    if tails.is_empty() {
        let _ = writeln!(
            o,
            "No heavy tail: no scope's slow calls (over {}x its median and {}) hold {:.0}% of its \
             total.\n",
            TAIL_K,
            msu(TAIL_MIN_NS),
            TAIL_MIN_SHARE * 100.0
        );
    } else {
        let _ = writeln!(
            o,
            "Heavy tails: slow calls (over {}x the scope's median and {}) hold at least {:.0}% of \
             its total, so its median says little of its cost. Look at the slow calls \
             (`calls NAME`); a regular interval points at periodic work (a flush, a timer, a \
             collection).\n\n\
             | scope | calls | total | slow calls | their total | share | median | p99 | max | recurs |\n\
             |---|---:|---:|---:|---:|---:|---:|---:|---:|---|",
            TAIL_K,
            msu(TAIL_MIN_NS),
            TAIL_MIN_SHARE * 100.0
        );
        for x in &tails {
            let Some(tail) = &x.tail else { continue };
            let _ = writeln!(
                o,
                "| {} | {} | {} | {} (over {}) | {} | {:.0}% | {} | {} | {} | {} |",
                cell(&x.name),
                x.count,
                msu(x.total_ns),
                tail.slow_calls,
                msu(tail.threshold_ns),
                msu(tail.slow_total_ns),
                tail.share * 100.0,
                msu(tail.median_ns),
                msu(tail.p99_ns),
                msu(tail.max_ns),
                cadence_md(&tail.cadence)
            );
        }
        o.push('\n');
    }
    if let Some(k) = charts {
        for j in 0..r.outliers.len() {
            let _ = writeln!(o, "<!--chart:calls:{k}:{j}-->\n");
        }
    }
    over_time_md(o, r, &h);
}

/// The heaviest names' and the frames' shapes through the run (only those
/// not steady).
fn over_time_md(o: &mut String, r: &RecordingReport, h: &str) {
    let _ = writeln!(
        o,
        "\n### {h}Over time: steps, trends, periodic and burst costs (the {} heaviest names)\n",
        super::recording::SHAPED_NAMES
    );
    if let Some(f) = &r.frame_shape {
        let _ = writeln!(o, "**Frames**: {}.\n", sentence_md(&f.words));
    }
    if r.over_time.is_empty() {
        let _ = writeln!(o, "Every one is steady through the run.\n");
        return;
    }
    for s in &r.over_time {
        let _ = writeln!(
            o,
            "- {}: {}",
            escape::markdown_code(&s.name),
            cell(&s.words)
        );
    }
    o.push('\n');
}

/// A tail's cadence in a cell: "about once a second (IQR 12.000 ms)", or
/// "irregular".
fn cadence_md(c: &Cadence) -> String {
    if c.regular {
        format!(
            "{} (interquartile range {})",
            c.words(),
            msu(c.q3_interval_ns - c.q1_interval_ns)
        )
    } else {
        c.words()
    }
}

/// The gaps section: recurring gaps (by total), then single gaps, then the
/// idle stretches of threads that run tasks (apart: waiting is not
/// unprofiled work).
/// The slowest frames' section (framed recordings only).
fn slowest_frames_md(o: &mut String, r: &RecordingReport, h: &str, charts: Option<usize>) {
    let _ = writeln!(
        o,
        "### {h}Slowest frames (median frame {})\n\nEach frame's duration as puffin measures \
         it: the span of its scopes on every thread{}.\n",
        msu(r.median_frame_ns),
        if r.period.is_some() {
            " (the period, start to start, is the headline's and frame pacing's)"
        } else {
            ""
        }
    );
    if let Some(note) = &r.median_note {
        let _ = writeln!(o, "> [!NOTE]\n> {}\n", cell(note));
    }
    if let Some(k) = charts {
        let _ = writeln!(o, "<!--chart:frames:{k}:0-->\n");
    }
    let _ = writeln!(
        o,
        "| frame | duration | vs median | scopes |\n|---:|---:|---:|---:|"
    );
    for f in r.slowest_frames.as_array().into_iter().flatten() {
        let d = num(&f["duration_ns"]);
        let _ = writeln!(
            o,
            "| {} | {} | {:.1}x | {} |",
            num(&f["frame_index"]),
            msu(d),
            d as f64 / r.median_frame_ns.max(1) as f64,
            num(&f["num_scopes"])
        );
    }
    o.push('\n');
}

fn gaps_md(o: &mut String, r: &RecordingReport, h: &str, charts: Option<usize>) {
    let g = &r.gaps;
    let list = |k: &str| g[k].as_array().map_or(&[][..], |v| v.as_slice());
    let (recurring, singles) = (list("recurring"), list("gaps"));
    let recorded = g["other_threads_recorded"].as_bool().unwrap_or(false);
    let meanwhile = |x: &Value| -> String {
        let busy: Vec<(String, String)> = x["other_threads"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|b| {
                let names: Vec<String> = b["scopes"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .map(|n| escape::markdown_code(text(&n["name"])))
                    .collect();
                (
                    text(&b["thread"]).to_owned(),
                    format!("{} ({})", msu(num(&b["busy_ns"])), names.join(", ")),
                )
            })
            .collect();
        // Threads that ran the same told once: `worker-0..2 195.840 ms each (…)`.
        let others: Vec<String> = numbered_runs(&busy)
            .into_iter()
            .map(|(threads, what, n)| {
                let what = if n > 1 {
                    what.replacen(" (", " each (", 1)
                } else {
                    what
                };
                format!("{} {what}", cell(&threads))
            })
            .collect();
        if others.is_empty() {
            if recorded {
                "none (idle)"
            } else {
                "no other thread recorded"
            }
            .to_owned()
        } else {
            others.join(", ")
        }
    };
    let place = |x: &Value| {
        let thread = text(&x["thread"]);
        let path = text(&x["path"]);
        if between_frames(x) {
            "between frames (no thread runs)".to_owned()
        } else if path.is_empty() {
            format!("{} (top level)", cell(thread_label(thread)))
        } else {
            format!(
                "{}: {}",
                cell(thread_label(thread)),
                escape::markdown_code(path)
            )
        }
    };
    let name_of = |v: &Value| -> String {
        let n = if v.is_object() { &v["name"] } else { v };
        n.as_str().map_or("—".to_owned(), escape::markdown_code)
    };
    let _ = writeln!(
        o,
        "\n### {h}Unprofiled time: recurring gaps ({} found)\n",
        num(&g["total_recurring"])
    );
    if recurring.is_empty() {
        let _ = writeln!(
            o,
            "None: no gap at one place in two or more frames sums to the threshold."
        );
    } else {
        if let Some(k) = charts {
            let _ = writeln!(o, "<!--chart:recurring:{k}:0-->\n");
        }
        let _ = writeln!(
            o,
            "The same stretch without a profiled child, {}, largest total first.\n\n\
             | where | kind | after → before | {} | median | total | % of thread span | other threads meanwhile |\n\
             |---|---|---|---:|---:|---:|---:|---|",
            if r.unframed.is_some() {
                "time after time"
            } else {
                "frame after frame"
            },
            if r.unframed.is_some() {
                "times"
            } else {
                "frames"
            }
        );
        for x in recurring {
            let _ = writeln!(
                o,
                "| {} | {} | {} |",
                place(x),
                text(&x["kind"]),
                recurring_cells(x, &name_of, &meanwhile)
            );
        }
        more_md(o, recurring.len(), num(&g["total_recurring"]));
    }
    let _ = writeln!(
        o,
        "\n### {h}Unprofiled time: one-off gaps ({} found)\n",
        num(&g["total_gaps"])
    );
    if singles.is_empty() {
        let _ = writeln!(o, "None at or above the threshold.");
    } else {
        if let Some(k) = charts {
            let _ = writeln!(o, "<!--chart:gaps:{k}:0-->\n");
        }
        let _ = writeln!(
            o,
            "| where | kind | frame | gap | after → before | other threads meanwhile |\n|---|---|---:|---:|---|---|"
        );
        for x in singles {
            let _ = writeln!(
                o,
                "| {} | {} | {} | {} | {} → {} | {} |",
                place(x),
                text(&x["kind"]),
                num(&x["frame_index"]),
                msu(num(&x["duration_ns"])),
                name_of(&x["after"]),
                name_of(&x["before"]),
                meanwhile(x)
            );
        }
        more_md(o, singles.len(), num(&g["total_gaps"]));
    }
    let times = if r.unframed.is_some() {
        "times"
    } else {
        "frames"
    };
    idle_md(o, (g, times), h, &place, &name_of, &meanwhile);
    if !recorded {
        let _ = writeln!(
            o,
            "\nThe recording has one thread: nothing shows what ran during these gaps."
        );
    }
}

/// Where the median frame's change went: each name's median self time per
/// frame on the frame thread, B − A, the median time outside its scopes,
/// and what the medians of the parts leave unaccounted.
/// Why a name's own time moved, in the frame's accounting: a wait for the
/// critical work on another thread (the waits' attribution), the gap its
/// own-time change is, or its judged kind.
fn why_md(
    c: &ComparisonReport,
    name: &str,
    delta_ns: f64,
    kind: Kind,
    gap: Option<&str>,
) -> String {
    match wait_in(c, name, delta_ns) {
        Some(k) => match c.waits[k].causes.first() {
            Some(cause) => format!(
                "a wait for {} on {}",
                escape::markdown_code(&cause.name),
                cell(thread_label(&cause.critical_thread))
            ),
            None => "a wait".to_owned(),
        },
        None => gap.map_or_else(|| kind.words().to_owned(), sentence_md),
    }
}

/// A moved name's own time on the frame thread in words: "moved to
/// `loader`" (it left) or "moved here from `loader`" (it came).
fn moved_md(delta_ns: f64, other: &str) -> String {
    if delta_ns < 0.0 {
        format!("moved to {}", cell(thread_label(other)))
    } else {
        format!("moved here from {}", cell(thread_label(other)))
    }
}

/// The frame's parts in words: "the causes +3.100 ms (85%), unaccounted
/// +0.200 ms (5%)…", parts under a microsecond left out; the shares are of
/// the frame's movement (the parts' absolute values summed).
fn frame_parts_md(f: &crate::engine::analyses::accounting::FrameChange) -> String {
    let words = |part: &str| match part {
        "causes" => "the changes judged",
        "between_frames" => "between frames",
        "drift" => "the run-to-run drift",
        "restructured" => "restructured (moved, no cost)",
        "moved" => "work moved to or from other threads (judged where it runs)",
        _ => "unaccounted (within noise)",
    };
    let shown: Vec<String> = f
        .parts
        .iter()
        .filter(|p| p.delta_ns.abs() >= 1e3)
        .map(|p| {
            format!(
                "{} {} ({:.0}%)",
                words(p.part),
                signed_ms(p.delta_ns),
                p.share_pct.abs()
            )
        })
        .collect();
    if shown.is_empty() {
        "none".to_owned()
    } else {
        shown.join(", ")
    }
}

fn median_md(c: &ComparisonReport, unit: &str) -> String {
    let f = &c.frame;
    let m = &f.median;
    let mut parts: Vec<String> = m
        .contributions
        .iter()
        .map(|x| {
            format!(
                "{} {} ({})",
                escape::markdown_code(&x.name),
                signed_ms(x.self_delta_median_ns as f64),
                why_md(
                    c,
                    &x.name,
                    x.self_delta_median_ns as f64,
                    x.kind,
                    x.gap.as_deref()
                )
            )
        })
        .collect();
    let more = m.total_contributions - m.contributions.len();
    if more > 0 {
        parts.push(format!("… {more} more (--top shows them)"));
    }
    if parts.is_empty() {
        parts.push("no name's median moved past the noise".to_owned());
    }
    let thread = cell(thread_label(&f.thread));
    format!(
        "**Where the median {unit}'s {} went** (each name's median self time per {unit} on \
         {thread}, B − A): {}; outside {thread}'s scopes (unprofiled, idle or waiting): {}; \
         left unaccounted by the medians of the parts: {}.",
        signed_ms(f.delta_median_ns as f64),
        parts.join(", "),
        signed_ms(m.outside_scopes_ns as f64),
        signed_ms(m.unexplained_ns as f64),
    )
}

/// A recurring gap's cells after its place (and kind), as the unprofiled
/// and the idle tables give them: neighbours, count, median, total, share
/// of the thread's span, what ran meanwhile.
fn recurring_cells(
    x: &Value,
    name_of: &dyn Fn(&Value) -> String,
    meanwhile: &dyn Fn(&Value) -> String,
) -> String {
    format!(
        "{} → {} | {} | {} | {} | {} | {}",
        name_of(&x["after"]),
        name_of(&x["before"]),
        num(&x["frames"]),
        msu(num(&x["median_ns"])),
        msu(num(&x["total_ns"])),
        x["share_of_thread_pct"]
            .as_f64()
            .map_or("—".to_owned(), |p| format!("{p:.1}%")),
        meanwhile(x)
    )
}

/// The idle stretches of the gaps section: recurring then one-off, in one
/// table, with the threads' roles.
fn idle_md(
    o: &mut String,
    (g, times): (&Value, &str),
    h: &str,
    place: &dyn Fn(&Value) -> String,
    name_of: &dyn Fn(&Value) -> String,
    meanwhile: &dyn Fn(&Value) -> String,
) {
    let list = |k: &str| g[k].as_array().map_or(&[][..], |v| v.as_slice());
    let (recurring, singles) = (list("recurring_idle"), list("idle"));
    let total = num(&g["total_recurring_idle"]) + num(&g["total_idle"]);
    let _ = writeln!(
        o,
        "\n### {h}Idle time: threads that run tasks, waiting ({total} found)\n"
    );
    let role = |r: &str| -> String {
        let v: Vec<String> = list("threads")
            .iter()
            .filter(|t| t["role"] == r)
            .map(|t| cell(thread_label(text(&t["thread"]))).into_owned())
            .collect();
        if v.is_empty() {
            "none".to_owned()
        } else {
            v.join(", ")
        }
    };
    let _ = writeln!(
        o,
        "Between the top-level scopes of a thread that runs tasks (no scope spans its frames): \
         waiting for work, or a host program's own code between its calls, never ranked above as \
         unprofiled. Drive the frames (their top-level gaps are unprofiled work): {}. Run tasks: {}.\n",
        role("frame-driving"),
        role("tasks")
    );
    if recurring.is_empty() && singles.is_empty() {
        let _ = writeln!(o, "None at or above the threshold.");
        return;
    }
    let _ = writeln!(
        o,
        "| where | after → before | {} | median | total | % of thread span | other threads meanwhile |\n\
         |---|---|---:|---:|---:|---:|---|",
        times
    );
    for x in recurring {
        let _ = writeln!(
            o,
            "| {} | {} |",
            place(x),
            recurring_cells(x, name_of, meanwhile)
        );
    }
    for x in singles {
        let _ = writeln!(
            o,
            "| {} | {} → {} | #{} | {} | {} | — | {} |",
            place(x),
            name_of(&x["after"]),
            name_of(&x["before"]),
            num(&x["frame_index"]),
            msu(num(&x["duration_ns"])),
            msu(num(&x["duration_ns"])),
            meanwhile(x)
        );
    }
    more_md(o, recurring.len(), num(&g["total_recurring_idle"]));
    more_md(o, singles.len(), num(&g["total_idle"]));
}

/// "… 12 more (--top shows them)." under a cut list.
fn more_md(o: &mut String, shown: usize, total: i64) {
    if total > shown as i64 {
        let _ = writeln!(o, "\n… {} more (`--top` shows them).", total - shown as i64);
    }
}

/// The comparison at a glance: the headline, where the frame's time went
/// (an SVG waterfall in HTML, its bars as a table in Markdown) and one line
/// a finding.
fn glance_md(o: &mut String, c: &ComparisonReport, charts: bool) {
    use super::glance::with_interval;
    let g = &c.glance;
    let unit = c.frame.basis.unit();
    let _ = writeln!(o, "## At a glance\n\n**{}**\n", cell(&g.headline));
    if charts {
        let _ = writeln!(o, "<!--chart:waterfall:0:0-->\n");
    }
    let _ = writeln!(
        o,
        "**Where the {unit}'s time went** (the mean {unit}, each part counted once):\n\n\
         | part | per {unit} | what it is |\n| --- | ---: | --- |\n| A's {unit} | {} | |",
        msu(g.a_ns.round() as i64)
    );
    for b in &g.bars {
        let _ = writeln!(
            o,
            "| {} | {} | {} |",
            b.name
                .as_deref()
                .map_or_else(|| cell(&b.label).into_owned(), escape::markdown_code),
            with_interval(b.delta_ns, b.ci_ns),
            match (b.part.as_str(), b.cost) {
                ("cause", _) => "a cause",
                ("unprofiled", _) => "a cause (unprofiled or smaller)",
                ("moved", _) => "work moved between threads: not a cost here, judged where it runs",
                (_, false) => "not a cost",
                _ => "",
            }
        );
    }
    let _ = writeln!(o, "| B's {unit} | {} | |\n", msu(g.b_ns.round() as i64));
    if !charts {
        waterfall_mermaid(o, g, unit);
    }
    if g.findings.is_empty() {
        return;
    }
    let _ = writeln!(
        o,
        "| # | scope | what | per {unit} | where |\n| ---: | --- | --- | ---: | --- |"
    );
    for x in &g.findings {
        let _ = writeln!(
            o,
            "| {} | {} | {}{} | {} | {} |",
            x.rank,
            if x.name.is_empty() {
                "–".to_owned()
            } else {
                escape::markdown_code(&x.name)
            },
            cell(&x.badge),
            if x.cost { "" } else { " ○" },
            if x.delta_ns == 0.0 && x.ci_ns.is_none() {
                "–".to_owned()
            } else {
                with_interval(x.delta_ns, x.ci_ns)
            },
            sentence_md(&x.place)
        );
    }
    let _ = writeln!(
        o,
        "\n○ not a cost of the code (restructured, moved between threads, the clock's time \
         between frames, start-up, calls alone). [lo, hi]: where the change lies, 99% sure or \
         more (how sure, row by row, is the JSON's `level`; docs/statistics.md says how it is \
         set). The details below say how each was judged.\n"
    );
}

/// The waterfall as a picture where Markdown allows no SVG (a pull
/// request's comment, a job summary: GitHub draws Mermaid charts): a bar a
/// step, A's frame, the frame after each part of the change in turn, B's
/// frame, on an axis around them, so that each step up or down is the
/// part's change. Names are the recording's: only letters, digits and
/// `_:.-/()'` and spaces are kept in a label (the rest become `?`), long
/// ones cut to their last 24 characters.
fn waterfall_mermaid(o: &mut String, g: &super::glance::Glance, unit: &str) {
    if g.bars.is_empty() {
        return;
    }
    let label = |text: &str| {
        let safe: String = text
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || " _:.-/()'".contains(c) {
                    c
                } else {
                    '?'
                }
            })
            .collect();
        let n = safe.chars().count();
        let cut: String = safe.chars().skip(n.saturating_sub(24)).collect();
        format!("\"{}{cut}\"", if n > 24 { "…" } else { "" })
    };
    let mut labels = vec![label(&format!("A's {unit}"))];
    let mut totals_ms = vec![g.a_ns / 1e6];
    let mut total_ns = g.a_ns;
    for b in &g.bars {
        total_ns += b.delta_ns;
        labels.push(label(&b.label));
        totals_ms.push(total_ns / 1e6);
    }
    labels.push(label(&format!("B's {unit}")));
    totals_ms.push(g.b_ns / 1e6);
    let (lo, hi) = totals_ms
        .iter()
        .fold((f64::MAX, f64::MIN), |(lo, hi), &v| (lo.min(v), hi.max(v)));
    let pad = ((hi - lo) * 0.25).max(0.01);
    let values: Vec<String> = totals_ms.iter().map(|v| format!("{v:.3}")).collect();
    let _ = writeln!(
        o,
        "```mermaid\nxychart-beta\n    title \"The mean {unit}, A to B: after each part (ms)\"\n    \
         x-axis [{}]\n    y-axis \"ms per {unit}\" {:.3} --> {:.3}\n    bar [{}]\n```\n",
        labels.join(", "),
        (lo - pad).max(0.0),
        hi + pad,
        values.join(", ")
    );
}

/// The "Frame pacing" section (`h`: its heading's marks and prefix, `## `
/// for a comparison's, `### ` under one recording): the headline, the figures side by side with each
/// tail figure's change, a percentile chart (Mermaid) with the budget, and
/// each side's slow frames traced to their parts.
/// The tail gate (`--fail-on-p99`, `--fail-on-low`): an alert when it
/// failed or is undecided, a line when it passed; one item a figure.
fn tail_gate_md(o: &mut String, t: &crate::engine::analyses::pacing::TailGateResult) {
    let head = if t.failed() {
        "> [!CAUTION]\n> **Tail gate: failed.** B's slow frames grew past the limit (frame pacing):"
    } else if t.is_inconclusive() {
        "> [!WARNING]\n> **Tail gate: inconclusive.** Not settled against the limit (frame pacing):"
    } else {
        "**Tail gate: passed** (frame pacing):"
    };
    let _ = writeln!(o, "{head}\n");
    let lead = if t.failed() || t.is_inconclusive() {
        "> - "
    } else {
        "- "
    };
    for c in &t.checks {
        let _ = writeln!(o, "{lead}{}", cell(&c.sentence));
    }
    o.push('\n');
}

fn pacing_md(
    o: &mut String,
    p: &crate::engine::analyses::pacing::PacingReport,
    h: &str,
    charts: bool,
) {
    use crate::engine::analyses::pacing::{Pacing, figure_label};
    let _ = writeln!(
        o,
        "{h}Frame pacing\n\n**{}**\n\nEach frame's period, start to start on {} (a run's \
         last frame, with no next start, is left out); the budget {} ({}).\n",
        cell(&p.headline),
        escape::markdown_code(&p.thread),
        msu(p.budget_ns.round() as i64),
        p.budget_source
    );
    let sides: Vec<(&str, &Pacing)> = std::iter::once(("A", &p.a))
        .chain(p.b.as_ref().map(|b| ("B", b)))
        .collect();
    let compared = sides.len() == 2;
    let fps = |ns: f64| {
        if ns > 0.0 {
            format!(" ({:.1} fps)", 1e9 / ns)
        } else {
            String::new()
        }
    };
    let _ = writeln!(
        o,
        "| | {} |{}\n| --- |{}{}",
        if compared { "A | B" } else { "" },
        if compared {
            " B − A [interval] | verdict |"
        } else {
            ""
        },
        if compared {
            " ---: | ---: |"
        } else {
            " ---: |"
        },
        if compared { " ---: | --- |" } else { "" }
    );
    type Cell = fn(&Pacing) -> (f64, bool);
    let rows: [(&str, Option<&str>, Cell); 10] = [
        ("mean", None, |s| (s.mean_ns, true)),
        ("median", None, |s| (s.median_ns as f64, true)),
        ("P90", None, |s| (s.p90_ns as f64, true)),
        ("P95", Some("p95"), |s| (s.p95_ns as f64, true)),
        ("P99", Some("p99"), |s| (s.p99_ns as f64, true)),
        ("1% low", Some("low_1pct"), |s| (s.low_1pct_ns, true)),
        ("0.1% low", Some("low_01pct"), |s| (s.low_01pct_ns, true)),
        ("worst", None, |s| (s.worst.duration_ns as f64, true)),
        ("over the budget", Some("over_budget"), |s| {
            (s.over_budget_share, false)
        }),
        ("stutters", Some("stutter"), |s| (s.stutter_share, false)),
    ];
    for (label, figure, value) in rows {
        let cells: Vec<String> = sides
            .iter()
            .map(|(_, s)| {
                let (v, time) = value(s);
                if time {
                    format!("{}{}", msu(v.round() as i64), fps(v))
                } else {
                    format!("{:.1}%", v * 100.0)
                }
            })
            .collect();
        let change = match figure.and_then(|f| p.changes.iter().find(|c| c.figure == f)) {
            Some(c) if compared => {
                format!(" {} | {} |", c.change_text(), c.effect.verdict.as_str())
            }
            _ if compared => " | |".to_owned(),
            _ => String::new(),
        };
        let _ = writeln!(o, "| {label} | {} |{change}", cells.join(" | "));
    }
    let f2f: Vec<String> = sides
        .iter()
        .map(|(_, s)| msu(s.frame_to_frame_ns.round() as i64))
        .collect();
    let change = p
        .changes
        .iter()
        .find(|c| c.figure == "frame_to_frame")
        .filter(|_| compared)
        .map_or(String::new(), |c| {
            format!(" {} | {} |", c.change_text(), c.effect.verdict.as_str())
        });
    let _ = writeln!(o, "| frame to frame | {} |{change}", f2f.join(" | "));
    let frames: Vec<String> = sides.iter().map(|(_, s)| s.frames.to_string()).collect();
    let _ = writeln!(
        o,
        "| frames | {} |{}\n",
        frames.join(" | "),
        if compared { " | |" } else { "" }
    );
    if let Some(c) = p
        .changes
        .iter()
        .find_map(|c| c.effect.settle.as_ref().map(|s| (c, s)))
    {
        let _ = writeln!(
            o,
            "{} inconclusive: {}.\n",
            figure_label(c.0.figure),
            cell(c.1)
        );
    }
    // Several runs a side: each run's figures.
    for (label, s) in &sides {
        if s.per_run.is_empty() {
            continue;
        }
        let _ = writeln!(
            o,
            "{label}'s runs, each on its own:\n\n| run | frames | median | P95 | P99 | 1% low | \
             over the budget | stutters | worst (frame) |\n| ---: | ---: | ---: | ---: | ---: | \
             ---: | ---: | ---: | ---: |"
        );
        for r in &s.per_run {
            let _ = writeln!(
                o,
                "| {} | {} | {} | {} | {} | {} | {:.1}% | {:.1}% | {} ({}) |",
                r.run,
                r.frames,
                msu(r.median_ns),
                msu(r.p95_ns),
                msu(r.p99_ns),
                msu(r.low_1pct_ns.round() as i64),
                r.over_budget_share * 100.0,
                r.stutter_share * 100.0,
                msu(r.worst.duration_ns),
                r.worst.frame_index
            );
        }
        o.push('\n');
    }
    // The percentile curve: each side's line, and the budget.
    let points = |s: &Pacing| s.curve_ns().map(|v| format!("{:.3}", v / 1e6)).join(", ");
    let hi = sides
        .iter()
        .map(|(_, s)| s.worst.duration_ns as f64)
        .fold(p.budget_ns, f64::max)
        / 1e6;
    let lines: Vec<String> = sides
        .iter()
        .map(|(_, s)| format!("    line [{}]", points(s)))
        .collect();
    if !charts {
        let _ = writeln!(
            o,
            "```mermaid\nxychart-beta\n    title \"Frame times: {} (ms); the flat line is the budget\"\n    \
         x-axis [\"median\", \"P90\", \"P95\", \"P99\", \"1% low\", \"0.1% low\", \"worst\"]\n    \
         y-axis \"ms\" 0 --> {:.1}\n{}\n    line [{}]\n```\n",
            if compared { "A, then B" } else { "the frames" },
            hi * 1.1,
            lines.join("\n"),
            vec![format!("{:.3}", p.budget_ns / 1e6); 7].join(", ")
        );
    }
    for (label, s) in &sides {
        if let Some(pattern) = &s.pattern {
            let _ = writeln!(
                o,
                "{}The frames through the run: {}.\n",
                if compared {
                    format!("{label}: ")
                } else {
                    String::new()
                },
                cell(pattern)
            );
        }
        let slow = &s.slow_frames;
        if slow.frames == 0 || slow.culprits.is_empty() {
            continue;
        }
        let _ = writeln!(
            o,
            "**{}{} slow frames** ({}): {} on average against {} for the others ({}); the \
             slowest: {}.\n\n| part | slow frames | the others | excess | high in slow | high in \
             others |\n| --- | ---: | ---: | ---: | ---: | ---: |",
            if compared {
                format!("{label}'s ")
            } else {
                String::new()
            },
            slow.frames,
            slow.rule,
            msu(slow.mean_ns.round() as i64),
            msu(slow.typical_mean_ns.round() as i64),
            signed_ms(slow.excess_ns),
            slow.frame_indices
                .iter()
                .take(8)
                .map(u64::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        );
        for c in &slow.culprits {
            let _ = writeln!(
                o,
                "| {} | {} | {} | {} ({:.0}%) | {} of {} | {} of {} |",
                if c.kind == "scope" {
                    escape::markdown_code(&c.part)
                } else {
                    cell(&c.part).into_owned()
                },
                msu(c.slow_mean_ns.round() as i64),
                msu(c.typical_mean_ns.round() as i64),
                signed_ms(c.excess_ns),
                c.share * 100.0,
                c.in_slow,
                slow.frames,
                c.in_typical,
                s.frames - slow.frames
            );
        }
        let _ = writeln!(o);
    }
}

fn comparison_md(o: &mut String, c: &ComparisonReport) {
    let unit = c.frame.basis.unit();
    let _ = writeln!(o, "## What changed (B against A)\n");
    for w in &c.warnings {
        let _ = writeln!(o, "> [!WARNING]\n> {}\n", cell(w));
    }
    let _ = writeln!(o, "{}\n", drift_md(c));
    if !c.conditions.is_empty() {
        let _ = writeln!(o, "**What else differs between the runs**:\n");
        for x in &c.conditions {
            let _ = writeln!(o, "- {x}");
        }
        o.push('\n');
    }
    let f = &c.frame;
    let (what, counted) = match f.basis {
        Basis::Frame => (
            "**The frame**".to_owned(),
            format!("A has {} frames, B {}", c.frames_a, c.frames_b),
        ),
        Basis::Second => (
            format!(
                "**Per second** (a recording that is one frame, or frames far longer than \
                 their scopes, is judged per second of its run): {}'s scope time per second",
                cell(thread_label(&f.thread))
            ),
            format!("A runs {} s, B {} s", c.units.0, c.units.1),
        ),
    };
    let _ = writeln!(
        o,
        "{what}: median {} → {} ({}), mean {} → {} ({} per {unit}): {} ({}{}). \
         {counted}; every figure below is per {unit}.\n",
        msu(f.median_a_ns),
        msu(f.median_b_ns),
        signed_ms(f.delta_median_ns as f64),
        msu(f.mean_a_ns.round() as i64),
        msu(f.mean_b_ns.round() as i64),
        signed_ms(f.delta_mean_ns),
        f.kind.words_once(),
        f.effect.text(),
        match f.judged_by {
            "slow_frames" => format!(
                ": the slow {unit}s' time past each side's far-out fence, the typical {unit} \
                 unchanged"
            ),
            "typical" =>
                format!(": the {unit}s cut at each side's far-out fence, the slowest set apart"),
            _ => String::new(),
        },
    );
    if let Some(t) = f.tail.as_ref().filter(|t| t.apart) {
        // One verdict of the slow frames: frame pacing's.
        let how = match c.pacing.as_ref() {
            Some(p) => match p.changed_sentence() {
                Some(changed) => format!("frame pacing (below) judges them: {}", cell(&changed)),
                None => {
                    let first = p.headline.split(". A: ").next().unwrap_or_default();
                    let mut chars = first.chars();
                    let lower: String = chars
                        .next()
                        .map(|c| c.to_lowercase().chain(chars).collect())
                        .unwrap_or_default();
                    format!("frame pacing (below) judges them: {}", cell(&lower))
                }
            },
            None => "how they changed is frame pacing's".to_owned(),
        };
        let _ = writeln!(
            o,
            "**Its slow frames, set apart** (past each side's far-out fence; the frame above is \
             judged by its typical frames): {}; {how}.\n",
            t.words(unit)
        );
    }
    if let Some(bf) = &f.between_frames {
        let _ = writeln!(
            o,
            "**The frame is {}'s period**, one frame's start to the next's ({:.1} → {:.1} \
             frames per second); between frames, outside every scope of it ({}): {} → {} ({}).\n",
            cell(thread_label(&f.thread)),
            f.rate_a_fps,
            f.rate_b_fps,
            if bf.paced {
                "paced by a clock, vsync or a frame limiter: the rest of the period, the mirror \
                 of the work, not a cost"
            } else {
                "a free-running loop: a sleep, a present or code without a scope, the frame's \
                 own time"
            },
            msu(bf.mean_a_ns.round() as i64),
            msu(bf.mean_b_ns.round() as i64),
            // The judged effect beside the means only when it is of the
            // mean (judged by the typical frames, it says so).
            if (bf.effect.delta_ns - (bf.mean_b_ns - bf.mean_a_ns)).abs() < 1.0 {
                bf.effect.text()
            } else {
                format!(
                    "{} a {unit}; in the typical {unit}s {}",
                    signed_ms(bf.mean_b_ns - bf.mean_a_ns),
                    bf.effect.text()
                )
            },
        );
    }
    let median_leads = f.lead == Lead::Median;
    if median_leads {
        let _ = writeln!(
            o,
            "**The median {unit} leads**: {}.\n",
            cell(&f.lead_reason)
        );
        let _ = writeln!(o, "{}\n", median_md(c, unit));
    }
    if !f.contributions.is_empty() {
        let parts: Vec<String> = f
            .contributions
            .iter()
            .map(|x| {
                let why = match &x.moved {
                    Some(t) => moved_md(x.self_delta_per_frame_ns, t),
                    None => why_md(
                        c,
                        &x.name,
                        x.self_delta_per_frame_ns,
                        x.kind,
                        x.gap.as_deref(),
                    ),
                };
                format!(
                    "{} {} ({why})",
                    escape::markdown_code(&x.name),
                    signed_ms(x.self_delta_per_frame_ns),
                )
            })
            .collect();
        let more = f.total_contributions - f.contributions.len();
        let _ = writeln!(
            o,
            "**Where the mean {unit}'s {} went** (self time per {unit} on {}): {}{}. \
             **In parts**, each counted once and summing to it: {}. Outside {}'s scopes \
             (unprofiled, idle or waiting): {}.\n",
            signed_ms(f.delta_mean_ns),
            cell(thread_label(&f.thread)),
            parts.join(", "),
            if more > 0 {
                format!(", … {more} more (--top shows them)")
            } else {
                String::new()
            },
            frame_parts_md(f),
            cell(thread_label(&f.thread)),
            signed_ms(f.outside_scopes_ns)
        );
        // Only a drift the comparison names is told as a part of the change.
        if f.drift_ns.abs() >= c.noise.ms * 1e6 && c.drift.as_ref().is_some_and(|d| d.named) {
            let _ = writeln!(
                o,
                "Of the mean {unit}'s {}, the run-to-run drift accounts for {} ({:.0}% of its \
                 movement): {}'s scope time in A times the drift factor.\n",
                signed_ms(f.delta_mean_ns),
                signed_ms(f.drift_ns),
                f.drift_pct,
                cell(thread_label(&f.thread)),
            );
        }
    }
    if !median_leads && (f.median.total_contributions > 0 || f.median.outside_scopes_ns != 0) {
        let _ = writeln!(o, "{}\n", median_md(c, unit));
    }
    for n in &f.notes {
        let _ = writeln!(o, "> [!NOTE]\n> {}\n", cell(n));
    }
    if let Some(g) = &c.gate {
        if g.drift_tripped {
            let _ = writeln!(
                o,
                "> [!CAUTION]\n> **Regression gate: failed on the drift.** B's per-call cost \
                 moved {:+.1}% across the board, past --fail-on-drift {}%.\n",
                c.drift.as_ref().map_or(0.0, |d| d.pct),
                g.drift_limit_pct.unwrap_or(0.0)
            );
        }
        if g.pct.is_finite() && !g.tripped_gaps.is_empty() {
            let _ = writeln!(
                o,
                "> [!CAUTION]\n> **Regression gate: failed on unprofiled time.** {} gap(s) \
                 new or grown by more than {} per {unit} beyond the drift, no other thread \
                 working meanwhile:\n",
                g.tripped_gaps.len(),
                msu(g.limit_ns.round() as i64),
            );
            for t in &g.tripped_gaps {
                let _ = writeln!(
                    o,
                    "> - {} ({:.1}% of the frame)",
                    sentence_md(&t.sentence),
                    t.frame_pct
                );
            }
            o.push('\n');
        }
        if !g.pct.is_finite() {
            // Only --fail-on-drift: no row limit.
        } else if g.tripped.is_empty() && !g.tripped_gaps.is_empty() {
            // Told above.
        } else if g.tripped.is_empty() && !g.lost_parallelism.is_empty() {
            let _ = writeln!(
                o,
                "> [!WARNING]\n> **Regression gate: inconclusive.** A wait grew past the limit \
                 ({} per {unit}) only because its work ran less in parallel: {}.\n",
                msu(g.limit_ns.round() as i64),
                sentence_md(&g.settle())
            );
        } else if g.tripped.is_empty() && !g.inconclusive.is_empty() {
            let _ = writeln!(
                o,
                "> [!WARNING]\n> **Regression gate: inconclusive.** {} cause(s) may cost more \
                 than {} per {unit} beyond the drift, or may not: their intervals straddle the \
                 limit ({}% of A's mean {unit}, at least {} ms). To settle it, {}.\n",
                g.inconclusive.len(),
                msu(g.limit_ns.round() as i64),
                g.pct,
                g.min_ms,
                g.settle()
            );
            for t in &g.inconclusive {
                let _ = writeln!(
                    o,
                    "> - {}: {} per {unit} [{}, {}] beyond the drift",
                    escape::markdown_code(&t.name),
                    signed_ms(t.beyond_drift_ns),
                    signed_ms(t.ci_ns[0]),
                    signed_ms(t.ci_ns[1]),
                );
            }
            o.push('\n');
        } else if g.tripped.is_empty() {
            let _ = writeln!(
                o,
                "**Regression gate: passed.** No cause's interval (a name whose own time \
                 changed) reaches {} per {unit} beyond the drift ({}% of A's mean {unit}, at \
                 least {} ms; {} cause(s) tested).\n",
                msu(g.limit_ns.round() as i64),
                g.pct,
                g.min_ms,
                g.causes
            );
        } else {
            let _ = writeln!(
                o,
                "> [!CAUTION]\n> **Regression gate: failed.** {} row(s) cost more than {} per \
                 frame ({}% of A's mean frame, at least {} ms):\n",
                g.tripped.len(),
                msu(g.limit_ns.round() as i64),
                g.pct,
                g.min_ms
            );
            for t in &g.tripped {
                let _ = writeln!(
                    o,
                    "> - {}: {}, {} per {unit} [{}, {}] beyond the drift ({:.1}% of the frame; \
                     {} in all)",
                    escape::markdown_code(&t.name),
                    t.because.as_deref().unwrap_or(t.kind.words()),
                    signed_ms(t.beyond_drift_ns),
                    signed_ms(t.ci_ns[0]),
                    signed_ms(t.ci_ns[1]),
                    t.frame_pct,
                    signed_ms(t.delta_per_frame_ns),
                );
            }
            o.push('\n');
        }
    }
    if let Some(t) = c.pacing.as_ref().and_then(|p| p.gate.as_ref()) {
        tail_gate_md(o, t);
    }
    if !c.look_first.is_empty() {
        let _ = writeln!(o, "### Look at first\n");
        for (k, l) in c.look_first.iter().enumerate() {
            let _ = writeln!(o, "{}. {l}", k + 1);
        }
        o.push('\n');
    }
    gap_changes_md(o, c);
    if !c.waits.is_empty() {
        let _ = writeln!(
            o,
            "### Waits traced across threads\n\nGaps in which other threads work, matched in A \
             and B, that changed: what each waits for (the last work on another thread to end \
             in it: the critical path), and its parts' medians (dispatch: until the first other \
             thread starts; waiting: until the critical work ends; wake-up: after it).\n"
        );
        for w in &c.waits {
            let _ = writeln!(o, "- {}", wait_md(w, c));
        }
        o.push('\n');
    }
    let _ = writeln!(
        o,
        "### Judged changes ({} of {} names changed; {} of {} (name, data) pairs{})\n",
        c.changed_names,
        c.total_names,
        c.changed_pairs,
        c.total_pairs,
        if c.rows.len() < c.changed_rows {
            format!("; the {} largest listed, --top shows more", c.rows.len())
        } else {
            String::new()
        }
    );
    if c.rows.is_empty() {
        let _ = writeln!(o, "None: every name is within noise.\n");
    } else {
        let _ = writeln!(
            o,
            "| scope | A per {unit} | B per {unit} | Δ per {unit} | calls per {unit} | median per call | judgement |\n\
             |---|---:|---:|---:|---:|---:|---|"
        );
        let min_ns = c.noise.ms * 1e6;
        for r in &c.rows {
            let note = match &r.spike_call {
                Some(s) => format!(": frame {} of {}", s.frame_index, s.side),
                // Its total moved, its own time did not: its children's change.
                None if is_wrapper(r, min_ns) => {
                    " (in its children: its own time did not change)".to_owned()
                }
                None => String::new(),
            };
            let note = match &r.parallel {
                Some(p) => format!(
                    "{note}; on {} threads in parallel ({}): per {unit} {} per thread, {}, \
                     summed over threads {} (not frame time)",
                    p.threads.len(),
                    threads_md(&p.threads),
                    signed_ms(p.per_thread_delta_per_frame_ns),
                    p.critical_path_delta_ns.map_or_else(
                        || "none through a grown wait".to_owned(),
                        |d| format!(
                            "{} on the critical path ({})",
                            signed_ms(d),
                            cell(thread_label(p.critical_thread.as_deref().unwrap_or("")))
                        )
                    ),
                    signed_ms(p.summed_over_threads_ns),
                ),
                None => note,
            };
            let note = match &r.place_words {
                Some(p) => format!("{note}; {}", sentence_md(p)),
                None => note,
            };
            let note = match &r.over_time {
                Some(t) => format!("{note}; over time: {}", cell(&t.words)),
                None => note,
            };
            // Its change is a longer wait in it for another thread's work:
            // the cause named, never "slower per call".
            let wait = wait_in(c, &r.name, r.change.delta_per_frame_ns).and_then(|k| {
                let cause = c.waits[k].causes.first()?;
                Some(format!(
                    "a wait: its own time grew waiting for {} on {} (see Waits)",
                    escape::markdown_code(&cause.name),
                    cell(thread_label(&cause.critical_thread))
                ))
            });
            judged_row_md(
                o,
                (&escape::markdown_code(&r.name), &note),
                &r.a,
                &r.b,
                &r.change,
                c,
                (
                    r.parallel.as_ref().map(|p| p.threads.len()),
                    wait.as_deref().or(r.gap.as_deref()),
                ),
            );
            for d in &r.by_data {
                let label = format!("↳ data {}", escape::markdown_code(&d.data));
                judged_row_md(o, (&label, ""), &d.a, &d.b, &d.change, c, (None, None));
            }
            if r.total_data > r.by_data.len() {
                let _ = writeln!(
                    o,
                    "| ↳ … {} more data strings |  |  |  |  |  |  |",
                    r.total_data - r.by_data.len()
                );
            }
        }
    }
    let _ = writeln!(
        o,
        "\n{} Noise: {}%, {} ms per {unit}, alpha {}. {}",
        if c.basis == Basis::Second {
            JUDGEMENT_LEGEND
                .replace("per frame", "per second")
                .replace("its frames", "its seconds")
        } else {
            JUDGEMENT_LEGEND.to_owned()
        },
        c.noise.pct,
        c.noise.ms,
        c.noise.alpha,
        if c.noise.model == "paired-runs" {
            format!(
                "Noise model: paired runs ({} pairs recorded alternately, A B B A): each row is \
                 judged by its differences within pairs, so the machine, which weighed on both \
                 runs of a pair alike, cancels, and a change must exceed how far those \
                 differences vary.",
                c.noise.runs.0
            )
        } else if c.noise.model == "between-runs" {
            format!(
                "Noise model: between runs ({} runs of A, {} of B): a change must also exceed \
                 how far the row varies between one side's runs.",
                c.noise.runs.0, c.noise.runs.1
            )
        } else {
            format!(
                "Noise model: within one run a side: a change must also exceed how far the row \
                 wanders between fifths of each capture (frames are not independent), and how \
                 far a name varies between two runs of the same code, ±{}; record several runs \
                 a side (A1 A2 --vs B1 B2), or alternate them with `ab`, for the honest noise.",
                c.noise
                    .run_spread
                    .as_ref()
                    .map_or(String::new(), run_spread_words)
            )
        }
    );
    let list = |v: &[String]| {
        if v.is_empty() {
            "none".to_owned()
        } else {
            v.iter()
                .map(|n| escape::markdown_code(n))
                .collect::<Vec<_>>()
                .join(", ")
        }
    };
    // A wrapper (its total moved, its own time did not, or went to the
    // scopes it holds now: a restructured place's parent) is no second
    // cause.
    let wrapper = |n: &String| {
        c.rows
            .iter()
            .find(|r| &r.name == n)
            .is_some_and(|r| is_wrapper(r, c.noise.ms * 1e6))
            || c.places.iter().any(|p| p.restructured && &p.parent == n)
    };
    let (wrappers, causes): (Vec<String>, Vec<String>) =
        c.changes.iter().cloned().partition(wrapper);
    let _ = writeln!(
        o,
        "\n- **Real changes** (per call or how often; not one spike): {}",
        list(&causes)
    );
    if !wrappers.is_empty() {
        let _ = writeln!(
            o,
            "- **Through their children only** (their own time did not change, or went to new \
             scopes under them: not a second cause): {}",
            list(&wrappers)
        );
    }
    let _ = writeln!(
        o,
        "- **Explained by one spike** (an average would mislead; see `calls`): {}",
        list(&c.spikes)
    );
    let _ = writeln!(o, "- **New in B**: {}", list(&c.new));
    let _ = writeln!(o, "- **Gone in B**: {}", list(&c.gone));
    if !c.off_critical_path.is_empty() {
        let words: Vec<String> = c
            .off_critical_path
            .iter()
            .map(|r| sentence_md(&r.words))
            .collect();
        let _ = writeln!(
            o,
            "- **Off the critical path** (not gated: the frame does not wait for it): {}",
            words.join("; ")
        );
    }
    let restructured: Vec<String> = c
        .places
        .iter()
        .filter(|p| p.restructured)
        .map(|p| sentence_md(&p.words))
        .collect();
    if !restructured.is_empty() {
        let _ = writeln!(
            o,
            "- **Restructured, no cost** (scopes that appear or vanish under a scope whose \
             time holds): {}",
            restructured.join("; ")
        );
    }
    if !c.calls_changed.is_empty() {
        let words: Vec<String> = c
            .calls_changed
            .iter()
            .map(|r| sentence_md(&r.words))
            .collect();
        let _ = writeln!(
            o,
            "- **Calls changed, time not a change** (how often code runs is the program's): {}",
            words.join("; ")
        );
    }
    if !c.renames.is_empty() {
        let words: Vec<String> = c.renames.iter().map(|r| sentence_md(&r.words)).collect();
        let _ = writeln!(
            o,
            "- **Renamed** (one scope at one place): {}",
            words.join("; ")
        );
    }
    let _ = writeln!(o, "- {}", unchanged_md(&c.unchanged));
    if c.inconclusive.total > 0 {
        let _ = writeln!(
            o,
            "- {} (their interval straddles the band's edge: record more frames or several runs a \
             side; `calls A B NAME` says how many)",
            unchanged_md(&c.inconclusive).replacen(
                "**Unchanged (only noise)**",
                "**Inconclusive (not told apart from noise)**",
                1
            )
        );
    }
    let _ = writeln!(o);
    if !c.change_paths.is_empty() {
        let _ = writeln!(
            o,
            "### Where it changed (differential tree, largest |Δ| per {unit} first)\n"
        );
        for p in &c.change_paths {
            let path: Vec<String> = p
                .steps
                .iter()
                .map(|st| {
                    format!(
                        "{} {:+.3} ms",
                        escape::markdown_code(text(&st["name"])),
                        num(&st["delta_total_per_frame_ns"]) as f64 / 1e6
                    )
                })
                .collect();
            let _ = writeln!(
                o,
                "- **{}**: {}",
                cell(thread_label(&p.thread)),
                path.join(" > ")
            );
        }
        o.push('\n');
    }
}

/// One row of the judged table (`label` already Markdown; `note` after the
/// judgement).
/// A changed row whose total moved while its own time did not: its
/// children's change (a wrapper), not a spike, new or gone.
fn is_wrapper(r: &super::JudgedRow, min_ns: f64) -> bool {
    r.spike_call.is_none()
        && r.self_delta_per_frame_ns.abs() < min_ns
        && r.change.delta_per_frame_ns.abs() >= min_ns
        && !matches!(r.change.kind, Kind::New | Kind::Gone)
}

/// Which run-to-run spread of a name one run a side was judged with.
fn run_spread_words(r: &super::RunSpread) -> String {
    match r.measured_pct {
        Some(m) if m > r.prior_pct => format!(
            "{:.1}% (the prior, `--run-spread-pct`: this pair's busy names spread ±{m:.1}%, \
             more than runs of the same code do here, which is the changes themselves)",
            r.pct
        ),
        Some(m) => format!(
            "{m:.1}% (this pair's busy names, within the prior ±{:.1}%)",
            r.prior_pct
        ),
        None => format!(
            "{:.1}% (the prior, `--run-spread-pct`: too few busy names to measure it)",
            r.pct
        ),
    }
}

/// The drift's line at the top of the comparison: named past the noise
/// percentage, mentioned otherwise.
fn drift_md(c: &ComparisonReport) -> String {
    match (&c.drift, c.drift_judged) {
        (Some(d), false) if c.noise.model == "paired-runs" && d.named => format!(
            "> [!IMPORTANT]\n> **Shared change**: {}",
            drift::paired_sentence(d)
        ),
        (Some(d), false) if c.noise.model == "paired-runs" => format!(
            "**Shared change**: none past the noise: B's busy scopes {:+.1}% per call across the \
             board (±{:.1}% standard error). The runs alternated, so rows are judged B against A \
             as they are, the machine cancelled in each pair.",
            d.pct, d.stderr_pct
        ),
        (None, false) if c.noise.model == "paired-runs" => "**Shared change**: not estimated \
             (too few busy names); rows are judged B against A as they are: the runs \
             alternated, so the machine is not subtracted."
            .to_owned(),
        (_, false) => "**Run-to-run drift**: not judged (--no-drift): each row's per-call change \
             is B against A as it is, machine speed included."
            .to_owned(),
        (None, true) => format!(
            "**Run-to-run drift**: not estimated: fewer than {} names with at least {} calls \
             and {} µs of own time per call on both sides. Rows are judged B against A as they \
             are, with the prior run-to-run spread of a name (±{:.1}%) and the machine's \
             possible drift (±{:.1}%) in every interval: a change smaller than those is \
             inconclusive from one run a side.",
            drift::MIN_SCOPES,
            drift::MIN_CALLS,
            drift::MIN_SELF_PER_CALL_NS / 1e3,
            c.noise.run_spread.as_ref().map_or(
                100.0 * libm::expm1(crate::engine::analyses::effect::DEFAULT_TAU),
                |r| r.pct
            ),
            100.0 * (libm::exp(crate::engine::analyses::effect::DEFAULT_DRIFT_SE) - 1.0),
        ),
        (Some(d), true) if d.named => format!(
            "> [!IMPORTANT]\n> **Run-to-run drift**: {}",
            drift::sentence(d)
        ),
        (Some(d), true) => format!("**Run-to-run drift**: {}", drift::status(d, c.noise.pct)),
    }
}

/// The gap places of A and B judged: each changed one in a sentence, and
/// how many are unchanged.
fn gap_changes_md(o: &mut String, c: &ComparisonReport) {
    let g = &c.gaps;
    if g.places == 0 {
        return;
    }
    let _ = writeln!(
        o,
        "### Unprofiled gaps, B against A ({} of {} places changed)\n\n\
         Each place of unprofiled time (thread, kind, parent, neighbours) matched in A and B, \
         its time per {} judged like a row (a {} without it counts 0).\n",
        g.changed.len(),
        g.places,
        g.basis.unit(),
        g.basis.unit(),
    );
    for x in &g.changed {
        let _ = writeln!(
            o,
            "- **{}**: {}",
            x.verdict.as_str(),
            sentence_md(&x.sentence)
        );
    }
    if g.total_unchanged > 0 {
        let _ = writeln!(
            o,
            "- unchanged (within noise): {} place(s)",
            g.total_unchanged
        );
    }
    o.push('\n');
}

fn judged_row_md(
    o: &mut String,
    (label, note): (&str, &str),
    a: &Option<SideStats>,
    b: &Option<SideStats>,
    ch: &Change,
    c: &ComparisonReport,
    (parallel, gap): (Option<usize>, Option<&str>),
) {
    // On threads in parallel: per thread (the sum is not frame time).
    let (threads, per_thread) = match parallel {
        Some(n) => (n.max(1) as f64, " per thread"),
        None => (1.0, ""),
    };
    let per_frame = |s: &Option<SideStats>, frames: usize| {
        s.as_ref().map_or("—".to_owned(), |s| {
            msu((s.total_ns as f64 / frames.max(1) as f64 / threads).round() as i64) + per_thread
        })
    };
    let median = |m: Option<i64>| m.map_or("—".to_owned(), msu);
    let judgement = match ch.kind {
        // Its own time's change is a gap in it, not a change per call.
        _ if gap.is_some() => format!("**{}**", sentence_md(gap.unwrap_or_default())),
        Kind::Spike => format!(
            "**one spike** (the other calls: {})",
            ch.rest.unwrap_or_default().words()
        ),
        Kind::New | Kind::Gone | Kind::Unchanged | Kind::Inconclusive => ch.kind.words().to_owned(),
        _ => match (ch.apart(), ch.tail.as_ref()) {
            // Judged by its typical calls: what was set apart said.
            (Some(t), _) => format!(
                "**{}** (its typical calls; set apart: {})",
                describe_per(ch, c.basis),
                t.words("call")
            ),
            // Judged by its tail, its typical calls unchanged.
            (None, Some(t)) if ch.raw.part == crate::engine::analyses::judge::Part::Tail => {
                format!(
                    "**{}** (its tail: {}; its typical calls unchanged)",
                    describe_per(ch, c.basis),
                    t.words("call")
                )
            }
            _ => format!("**{}**", describe_per(ch, c.basis)),
        },
    } + note;
    let _ = writeln!(
        o,
        "| {label} | {} | {} | {} | {:.2} → {:.2} | {} → {} | {} |",
        per_frame(a, c.units.0),
        per_frame(b, c.units.1),
        signed_ms(ch.delta_per_frame_ns / threads) + per_thread,
        ch.calls_per_frame_a,
        ch.calls_per_frame_b,
        median(ch.median_a_ns),
        median(ch.median_b_ns),
        judgement
    );
}

/// The names judged unchanged, in one line: "**Unchanged (only noise)**:
/// `a`, `b` … (N names)", and the spikes whose other calls are unchanged.
fn unchanged_md(u: &super::Unchanged) -> String {
    let names = u
        .names
        .iter()
        .map(|n| escape::markdown_code(n))
        .collect::<Vec<_>>()
        .join(", ");
    let mut line = if u.total == 0 {
        "**Unchanged (only noise)**: none".to_owned()
    } else {
        format!(
            "**Unchanged (only noise)**: {names}{} ({} name{}{})",
            if u.names.len() < u.total { " …" } else { "" },
            u.total,
            if u.total == 1 { "" } else { "s" },
            if u.names.len() < u.total {
                format!(", the {} costliest listed, --top shows more", u.names.len())
            } else {
                String::new()
            }
        )
    };
    if !u.apart_from_a_spike.is_empty() {
        let _ = write!(
            line,
            "; unchanged but for one spike: {}",
            u.apart_from_a_spike
                .iter()
                .map(|n| escape::markdown_code(n))
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    line
}
