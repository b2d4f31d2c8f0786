//! Transform benchmark: `cargo bench --bench transforms`.
//!
//! On the scale worst case (issue 21: 2M scopes on random paths of 300
//! names, all frames merged) and on a 600k-node tree (one thread, 200
//! frames of 3,000 scopes on distinct paths): the merged tree, then each
//! stack applied to it (what the app does when a transform is added or
//! popped: nothing is merged or decoded again), and the tree view's whole
//! re-answer (apply, open the hottest path, rows).

mod common;

use common::{best_of, loaded, ms};
use puffin_lens::app::TreeView;
use puffin_lens::engine::analyses::transform::{Applier, Stack, apply};
use puffin_lens::engine::analyses::tree::merged_tree;
use puffin_lens::engine::write::puffin::{
    FrameData, Registration, ScopeNode, ThreadData, worst_case_capture,
};
use std::time::Duration;

const RUNS: usize = 5;

/// 200 frames of 3,000 scopes whose paths rarely repeat: 1,000 top-level
/// scopes a frame, each with two children, names (`fn_N`) from a frame's
/// own range.
fn wide_capture() -> Vec<FrameData> {
    let t0 = 1_700_000_000_000_000_000i64;
    (0..200u64)
        .map(|f| {
            let mut t = t0 + f as i64 * 20_000_000;
            let scopes = (0..1_000u32)
                .map(|k| {
                    let id = 1 + (f as u32 * 1_000 + k) % 200_000;
                    let node = ScopeNode::new(id, t, t + 9_000)
                        .child(ScopeNode::new(id + 1, t + 1_000, t + 3_000))
                        .child(ScopeNode::new(id + 2, t + 4_000, t + 8_000));
                    t += 10_000;
                    node
                })
                .collect();
            FrameData {
                frame_index: f,
                threads: vec![ThreadData {
                    name: "main".into(),
                    start_time_ns: Some(t0),
                    scopes,
                }],
                registrations: if f == 0 {
                    (1..=200_002)
                        .map(|id| {
                            Registration::named(id, &format!("fn_{id}"), "f", "src/main.rs", 1)
                        })
                        .collect()
                } else {
                    Vec::new()
                },
            }
        })
        .collect()
}

fn main() {
    let cases = [
        (
            "worst case (2M scopes)",
            loaded("worst", &worst_case_capture(200, 10_000, 300, 1)),
        ),
        ("600k-node tree", loaded("wide", &wide_capture())),
    ];
    let stacks: [&[&str]; 6] = [
        &["merge:fn_1*"],
        &["collapse-recursion"],
        &["focus-function:fn_2"],
        &["drop:fn_3*"],
        &["only-my-code"],
        &["merge:fn_1*", "collapse-recursion", "drop:fn_3*"],
    ];
    for (what, l) in &cases {
        let trace = l.trace();
        let frames = 0..trace.frames.len() as u32;
        let (merge, tree) = best_of(RUNS, || merged_tree(trace, frames.clone(), None));
        println!(
            "{what}: {} scopes, merged tree of {} nodes in {:.1} ms",
            trace.scopes.len(),
            tree.len(),
            ms(merge)
        );
        for s in stacks {
            let stack = Stack::parse(s).expect("parses");
            let (d, out) = best_of(RUNS, || apply(trace, &tree, &stack));
            // A slice at a time, as the browser does it: the longest slice.
            let mut applier = Applier::new(&tree, &stack);
            let mut longest = Duration::ZERO;
            loop {
                let t = std::time::Instant::now();
                let done = applier.step(trace, &tree, &mut || false).is_some();
                longest = longest.max(t.elapsed());
                if done {
                    break;
                }
            }
            println!(
                "  apply {:<44} {:>7.1} ms ({:.2}x the merge) -> {} nodes; sliced: longest slice {:.1} ms",
                stack.to_string(),
                ms(d),
                ms(d) / ms(merge),
                out.tree.len(),
                ms(longest)
            );
        }
        // The tree view: add a transform, then pop it.
        let mut view = TreeView::new(l.clone());
        view.set_merged_frames(frames.clone());
        let add = Stack::parse(&["merge:fn_1*"]).expect("parses");
        let (d_add, _) = best_of(RUNS, || {
            view.set_transforms(&add);
            view.set_transforms(&Stack::default());
        });
        println!(
            "  tree view: add merge:fn_1* then pop it (apply, open the hot path, rows): {:.1} ms",
            ms(d_add)
        );
    }
}
