//! Folded stacks (Brendan Gregg's format, the input of flamegraph.pl,
//! inferno and speedscope) and the interactive flame graph SVG rendered
//! from them with the `inferno` crate.
//!
//! One line per node of the merged call tree (the `tree` query's merging:
//! threads by name, an unnamed one as `(unnamed)`) that has self time:
//! `thread;outer;…;inner <self time in ns>`, lines sorted. A name is written
//! as one frame of a line: `%` as `%25`, `;` as `%3B` (so a name never
//! splits a frame; undo with percent-decoding), and control or reordering
//! characters as `\u{…}` ([`escape::visible`]), so a line stays a line.
//! The differential form has two counts, A's and B's self time **per
//! frame** (each side's sum divided by its frames, rounded to the
//! nanosecond; per second of each side's run when a side is unframed, see
//! [`crate::engine::analyses::basis`]): `stack a_ns b_ns`, the union of
//! both trees' stacks. Per frame, so that recordings of different lengths
//! compare: with 60 frames in A and 90 in B an unchanged stack has equal
//! counts, and the graph's colours (B − A) show only what changed.

use super::escape;
use crate::engine::analyses::basis::{Basis, Units};
use crate::engine::analyses::transform::{Stack, transformed_tree};
use crate::engine::analyses::{MergedTree, NodeId};
use crate::engine::model::Trace;
use crate::units::thread_label;
use std::borrow::Cow;
use std::collections::BTreeMap;
use std::ops::Range;

/// `s` as one frame of a folded stack.
pub fn folded_name(s: &str) -> Cow<'_, str> {
    let s = escape::visible(s);
    if !s.contains(['%', ';']) {
        return s;
    }
    Cow::Owned(s.replace('%', "%25").replace(';', "%3B"))
}

/// Every stack of `tree` with its self time (ns, at least 0), by stack.
fn stacks(tree: &MergedTree, trace: &Trace) -> BTreeMap<String, i64> {
    let mut out = BTreeMap::new();
    // (node, its stack's text)
    let mut todo: Vec<(NodeId, String)> = tree
        .threads
        .iter()
        .map(|&t| {
            let name = thread_label(tree.label(trace, t));
            (t, folded_name(name).into_owned())
        })
        .collect();
    while let Some((n, stack)) = todo.pop() {
        let self_ns = tree.self_ns[n.idx()].max(0);
        // A thread's own time is its merged roots' (a transform's).
        if self_ns > 0 {
            *out.entry(stack.clone()).or_insert(0) += self_ns;
        }
        for &c in tree.children(n) {
            let name = folded_name(tree.label(trace, c));
            todo.push((c, format!("{stack};{name}")));
        }
    }
    out
}

/// The folded stacks of frames `frames` (positions), optionally of one
/// thread: `stack self_ns` lines, sorted, each ending in a newline.
pub fn folded(trace: &Trace, frames: Range<u32>, thread: Option<&str>) -> String {
    folded_transformed(trace, frames, thread, &Stack::default())
}

/// [`folded`] of the tree `stack` transforms.
pub fn folded_transformed(
    trace: &Trace,
    frames: Range<u32>,
    thread: Option<&str>,
    stack: &Stack,
) -> String {
    let tree = transformed_tree(trace, frames, thread, u32::MAX, stack).tree;
    let mut out = String::new();
    for (stack, ns) in stacks(&tree, trace) {
        out.push_str(&stack);
        out.push(' ');
        out.push_str(itoa::Buffer::new().format(ns));
        out.push('\n');
    }
    out
}

/// A's and B's folded stacks joined: `stack a_ns b_ns`, each side's self
/// time per frame (per second when a side is unframed; 0 where a side
/// lacks the stack), sorted.
pub fn folded_diff(a: &Trace, b: &Trace, thread: Option<&str>, stack: &Stack) -> String {
    let tree = |t: &Trace| transformed_tree(t, 0..t.frames.len() as u32, thread, u32::MAX, stack);
    let basis = Basis::of(a, b);
    let per_unit = |t: &Trace| {
        let units = Units::new(t, basis).count.max(1) as f64;
        move |ns: i64| (ns as f64 / units).round() as i64
    };
    let (pa, pb) = (per_unit(a), per_unit(b));
    let sa = stacks(&tree(a).tree, a);
    let sb = stacks(&tree(b).tree, b);
    let mut joined: BTreeMap<&str, (i64, i64)> = BTreeMap::new();
    for (k, &v) in &sa {
        joined.entry(k).or_default().0 = pa(v);
    }
    for (k, &v) in &sb {
        joined.entry(k).or_default().1 = pb(v);
    }
    let mut out = String::new();
    // A stack under half a nanosecond per frame on both sides: no line.
    for (stack, (x, y)) in joined.into_iter().filter(|(_, c)| *c != (0, 0)) {
        out.push_str(&format!("{stack} {x} {y}\n"));
    }
    out
}

/// An interactive SVG flame graph (zoom and search in the SVG, as
/// flamegraph.pl's) of folded `lines` (one or two counts), titled `title`.
/// Widths are nanoseconds of self time summed (per frame in the
/// differential form: [`folded_diff`]); colours by name (hashed,
/// deterministic) or, with two counts, red where B is slower and blue where
/// it is faster.
pub fn flamegraph_svg(
    lines: &str,
    title: &str,
    subtitle: Option<String>,
) -> std::io::Result<Vec<u8>> {
    use inferno::flamegraph::{self, Options};
    let mut opts = Options::default();
    opts.title = escape::visible(title).into_owned();
    opts.subtitle = subtitle.map(|s| escape::visible(&s).into_owned());
    opts.count_name = "ns".to_owned();
    opts.name_type = "Scope:".to_owned();
    opts.hash = true;
    opts.deterministic = true;
    opts.min_width = 0.1;
    let mut svg = Vec::new();
    if lines.trim().is_empty() {
        // inferno refuses an empty profile; an empty graph says why.
        flamegraph::from_lines(&mut opts, ["(no scope time) 1"], &mut svg)?;
    } else {
        flamegraph::from_lines(&mut opts, lines.lines(), &mut svg)?;
    }
    Ok(svg)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_never_split_a_frame_or_a_line() {
        assert_eq!(folded_name("App::update"), "App::update");
        assert_eq!(folded_name("a;b 100%"), "a%3Bb 100%25");
        assert_eq!(folded_name("two\nlines"), "two\\nlines");
    }
}
