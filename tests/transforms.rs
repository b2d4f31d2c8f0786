//! Call-tree transforms (`analyses::transform`): the engine's stack against
//! a reference (a plain owned tree per thread, built from the instances and
//! transformed by the obvious recursive definitions), on generated traces
//! (proptest), the shared fixtures and the bundled example; the
//! conservation laws; bad input; the CLI's flags in order; and "only my
//! code" on a real egui app's own instrumentation.

mod common;

use common::{code, fixtures_dir, run, stderr, temp_file};
use proptest::prelude::*;
use puffin_lens::engine::analyses::transform::{
    Applier, Stack, Transform, apply, origin, transformed_tree,
};
use puffin_lens::engine::api::{Request, TransformArgs, TreeArgs, answer};
use puffin_lens::engine::model::Trace;
use puffin_lens::engine::write::puffin::{
    Compression, Format, FrameData, Registration, ScopeNode, ThreadData, write_recording,
};
use puffin_lens::engine::{self};
use serde_json::Value;
use std::collections::BTreeMap;

// ---------------------------------------------------------------------------
// The reference

#[derive(Clone, Debug, Default, PartialEq)]
struct RNode {
    count: u64,
    total: i64,
    self_: i64,
    max: i64,
    children: BTreeMap<String, RNode>,
}

/// Thread name -> its node (count 0; `self_`: merged roots' own time;
/// `total` computed by [`totals`]).
type RTree = BTreeMap<String, RNode>;

fn combine(into: &mut RNode, n: RNode) {
    into.count += n.count;
    into.total += n.total;
    into.self_ += n.self_;
    into.max = into.max.max(n.max);
    for (k, c) in n.children {
        combine(into.children.entry(k).or_default(), c);
    }
}

fn name_of(trace: &Trace, i: usize) -> &str {
    trace.str(trace.defs.name[trace.scopes.def[i].idx()])
}

/// Every instance merged by its path of labels (a split name's label is
/// `name [data]`).
fn reference_base(trace: &Trace, split: &dyn Fn(&str) -> bool) -> RTree {
    let s = &trace.scopes;
    let label = |i: usize| {
        let name = name_of(trace, i);
        let data = trace.str(s.data[i]);
        if split(name) && !data.is_empty() {
            format!("{name} [{data}]")
        } else {
            name.to_owned()
        }
    };
    let mut out = RTree::new();
    // A thread recorded without scopes is still a thread.
    for &t in &trace.streams.thread {
        out.entry(trace.str(trace.threads.name[t.idx()]).to_owned())
            .or_default();
    }
    for i in 0..s.len() {
        let thread = trace.threads.name[trace.streams.thread[s.stream[i].idx()].idx()];
        let mut path = vec![label(i)];
        let mut p = s.parent[i];
        while p != u32::MAX {
            path.push(label(p as usize));
            p = s.parent[p as usize];
        }
        path.reverse();
        let mut node = out.entry(trace.str(thread).to_owned()).or_default();
        for l in path {
            node = node.children.entry(l).or_default();
        }
        node.count += 1;
        node.total += s.duration_ns[i];
        node.self_ += s.self_ns[i];
        node.max = node.max.max(s.duration_ns[i]);
    }
    out
}

fn ref_merge(node: &mut RNode, m: &dyn Fn(&str) -> bool) {
    for (name, mut c) in std::mem::take(&mut node.children) {
        ref_merge(&mut c, m);
        if m(&name) {
            node.self_ += c.self_;
            for (gn, g) in c.children {
                combine(node.children.entry(gn).or_default(), g);
            }
        } else {
            combine(node.children.entry(name).or_default(), c);
        }
    }
}

/// The total removed from `node`'s subtree.
fn ref_drop(node: &mut RNode, m: &dyn Fn(&str) -> bool) -> i64 {
    let mut removed = 0;
    node.children.retain(|name, c| {
        if m(name) {
            removed += c.total;
            false
        } else {
            true
        }
    });
    for c in node.children.values_mut() {
        let r = ref_drop(c, m);
        c.total -= r;
        removed += r;
    }
    removed
}

fn self_sum(n: &RNode) -> i64 {
    n.self_ + n.children.values().map(self_sum).sum::<i64>()
}

fn ref_collapse(node: &mut RNode, m: &dyn Fn(&str) -> bool) {
    for (name, c) in node.children.iter_mut() {
        if m(name) {
            c.self_ = self_sum(c);
            c.children.clear();
        } else {
            ref_collapse(c, m);
        }
    }
}

fn ref_recursion(node: &mut RNode, name: Option<&str>, m: &dyn Fn(&str) -> bool) {
    for (cn, mut c) in std::mem::take(&mut node.children) {
        ref_recursion(&mut c, Some(&cn), m);
        if name == Some(cn.as_str()) && m(&cn) {
            node.self_ += c.self_;
            for (gn, g) in c.children {
                combine(node.children.entry(gn).or_default(), g);
            }
        } else {
            combine(node.children.entry(cn).or_default(), c);
        }
    }
}

fn ref_outermost(node: RNode, m: &dyn Fn(&str) -> bool, out: &mut BTreeMap<String, RNode>) {
    for (name, c) in node.children {
        if m(&name) {
            combine(out.entry(name).or_default(), c);
        } else {
            ref_outermost(c, m, out);
        }
    }
}

fn ref_crates(node: &mut RNode, parent: Option<&str>, krate: &dyn Fn(&str) -> Option<String>) {
    for (name, mut c) in std::mem::take(&mut node.children) {
        let k = krate(&name);
        ref_crates(&mut c, k.as_deref(), krate);
        match k {
            Some(k) if parent == Some(k.as_str()) => {
                node.self_ += c.self_;
                for (gn, g) in c.children {
                    combine(node.children.entry(gn).or_default(), g);
                }
            }
            Some(k) => combine(node.children.entry(format!("[{k}]")).or_default(), c),
            None => combine(node.children.entry(name).or_default(), c),
        }
    }
}

/// A thread's total: its own time and its roots'.
fn totals(tree: &mut RTree) {
    for t in tree.values_mut() {
        t.total = t.self_ + t.children.values().map(|c| c.total).sum::<i64>();
    }
}

fn reference(trace: &Trace, stack: &Stack) -> RTree {
    let splits: Vec<&Transform> = stack
        .0
        .iter()
        .filter(|t| matches!(t, Transform::SplitData(_)))
        .collect();
    let split = |name: &str| {
        splits.iter().any(|t| match t {
            Transform::SplitData(p) => p.matches(name),
            _ => false,
        })
    };
    let mut tree = reference_base(trace, &split);
    // Crates by scope name (the first definition's file).
    let mut crate_of: BTreeMap<String, Option<(String, bool)>> = BTreeMap::new();
    for (i, &n) in trace.defs.name.iter().enumerate() {
        crate_of.entry(trace.str(n).to_owned()).or_insert_with(|| {
            origin(trace.str(trace.defs.file[i]), trace.str(n))
                .map(|o| (o.crate_name, o.dependency))
        });
    }
    let plain = |label: &str| -> String {
        // A split label's name.
        match label.find(" [") {
            Some(i) if label.ends_with(']') && crate_of.contains_key(&label[..i]) => {
                label[..i].to_owned()
            }
            _ => label.to_owned(),
        }
    };
    for t in &stack.0 {
        match t {
            Transform::Merge(p) => {
                let m = |n: &str| p.matches(&plain(n));
                tree.values_mut().for_each(|th| ref_merge(th, &m));
            }
            Transform::Drop(p) => {
                let m = |n: &str| p.matches(&plain(n));
                tree.values_mut().for_each(|th| {
                    ref_drop(th, &m);
                });
            }
            Transform::Collapse(p) => {
                let m = |n: &str| p.matches(&plain(n));
                tree.values_mut().for_each(|th| ref_collapse(th, &m));
            }
            Transform::CollapseRecursion(p) => {
                let m = |n: &str| p.as_ref().is_none_or(|p| p.matches(&plain(n)));
                for th in tree.values_mut() {
                    for (cn, mut c) in std::mem::take(&mut th.children) {
                        ref_recursion(&mut c, Some(&cn), &m);
                        combine(th.children.entry(cn).or_default(), c);
                    }
                }
            }
            Transform::Focus(path) => {
                let mut out = RTree::new();
                for (name, th) in std::mem::take(&mut tree) {
                    let mut node = Some(&th);
                    for step in path {
                        node = node.and_then(|n| n.children.get(step));
                    }
                    if let Some(n) = node {
                        let mut root = RNode::default();
                        root.children
                            .insert(path.last().unwrap().clone(), n.clone());
                        out.insert(name, root);
                    }
                }
                tree = out;
            }
            Transform::FocusFunction(p) => {
                let m = |n: &str| p.matches(&plain(n));
                let mut out = RTree::new();
                for (name, th) in std::mem::take(&mut tree) {
                    let mut roots = BTreeMap::new();
                    ref_outermost(th, &m, &mut roots);
                    if !roots.is_empty() {
                        out.insert(
                            name,
                            RNode {
                                children: roots,
                                ..Default::default()
                            },
                        );
                    }
                }
                tree = out;
            }
            Transform::CollapseCrate(_) | Transform::OnlyMyCode => {
                let krate = |label: &str| -> Option<String> {
                    if let Some(c) = label.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
                        return Some(c.to_owned());
                    }
                    let (c, dep) = crate_of.get(&plain(label))?.clone()?;
                    match t {
                        Transform::OnlyMyCode => dep.then_some(c),
                        Transform::CollapseCrate(p) => p.matches(&c).then_some(c),
                        _ => None,
                    }
                };
                tree.values_mut()
                    .for_each(|th| ref_crates(th, None, &krate));
            }
            Transform::SplitData(_) => {}
        }
        totals(&mut tree);
    }
    totals(&mut tree);
    tree
}

/// The engine's `tree` answer (all frames, all levels) as an [`RTree`]
/// (thread `self_` left 0: the answer gives totals).
fn engine_tree(trace: &Trace, stack: &Stack) -> (RTree, Value) {
    let req = Request::Tree(TreeArgs {
        transform: TransformArgs {
            transforms: stack.clone(),
        },
        ..Default::default()
    });
    let json: Value = serde_json::from_str(&answer(&req, trace, None).unwrap().to_json()).unwrap();
    fn node(v: &Value) -> RNode {
        RNode {
            count: v["count"].as_u64().unwrap(),
            total: v["total_ns"].as_i64().unwrap(),
            self_: v["self_ns"].as_i64().unwrap(),
            max: v["max_ns"].as_i64().unwrap(),
            children: kids(&v["children"]),
        }
    }
    fn kids(v: &Value) -> BTreeMap<String, RNode> {
        let mut out = BTreeMap::new();
        for c in v.as_array().unwrap() {
            let prev = out.insert(c["name"].as_str().unwrap().to_owned(), node(c));
            assert!(prev.is_none(), "two siblings named {}", c["name"]);
        }
        out
    }
    let mut tree = RTree::new();
    for t in json["threads"].as_array().unwrap() {
        tree.insert(
            t["name"].as_str().unwrap().to_owned(),
            RNode {
                total: t["total_ns"].as_i64().unwrap(),
                children: kids(&t["roots"]),
                ..Default::default()
            },
        );
    }
    (tree, json)
}

/// The reference with the threads' own time folded into their totals only
/// (as the answer shows them).
fn comparable(mut tree: RTree) -> RTree {
    for t in tree.values_mut() {
        t.self_ = 0;
    }
    tree
}

fn assert_same(trace: &Trace, stack: &Stack) {
    let (got, json) = engine_tree(trace, stack);
    let want = comparable(reference(trace, stack));
    assert_eq!(got, want, "stack {stack}: engine {json}");
}

// ---------------------------------------------------------------------------
// Generated traces

#[derive(Clone, Debug)]
struct Shape {
    id: u32,
    self_ns: i64,
    data: u8,
    children: Vec<Shape>,
}

fn shape() -> impl Strategy<Value = Shape> {
    let leaf = (1u32..7, 0i64..5_000, 0u8..3).prop_map(|(id, self_ns, data)| Shape {
        id,
        self_ns,
        data,
        children: Vec::new(),
    });
    leaf.prop_recursive(5, 40, 4, |inner| {
        (
            1u32..7,
            0i64..5_000,
            0u8..3,
            prop::collection::vec(inner, 0..4),
        )
            .prop_map(|(id, self_ns, data, children)| Shape {
                id,
                self_ns,
                data,
                children,
            })
    })
}

fn place(s: &Shape, start: i64) -> ScopeNode {
    let data = ["", "a.glb", "b.glb"][s.data as usize];
    let mut node = ScopeNode::new(s.id, start, start).data(data);
    let mut t = start;
    for c in &s.children {
        let child = place(c, t);
        t = child.stop_ns;
        node.children.push(child);
    }
    node.stop_ns = t + s.self_ns;
    node
}

/// Scope `id`'s file: ids 1-2 the app's own, 3-4 crate `dep` (a
/// dependency), 5 `other`, 6 `dep` again.
fn file_of(id: u32) -> &'static str {
    match id {
        1 | 2 => "src/main.rs",
        3 | 4 | 6 => "dep-1.2.0/src/lib.rs",
        _ => "other-0.3.1/src/thing.rs",
    }
}

fn capture(frames: Vec<Vec<(&'static str, Vec<Shape>)>>) -> Vec<u8> {
    let t0 = 1_800_000_000_000_000_000i64;
    let data: Vec<FrameData> = frames
        .into_iter()
        .enumerate()
        .map(|(f, threads)| {
            let mut t = t0 + f as i64 * 10_000_000;
            FrameData {
                frame_index: f as u64,
                threads: threads
                    .into_iter()
                    .map(|(name, shapes)| ThreadData {
                        name: name.to_owned(),
                        start_time_ns: Some(t0),
                        scopes: shapes
                            .iter()
                            .map(|s| {
                                let n = place(s, t);
                                t = n.stop_ns;
                                n
                            })
                            .collect(),
                    })
                    .collect(),
                registrations: if f == 0 {
                    (1..7)
                        .map(|id| Registration::named(id, &format!("s{id}"), "f", file_of(id), id))
                        .collect()
                } else {
                    Vec::new()
                },
            }
        })
        .collect();
    write_recording(&data, Format::Pfd4(Compression::None))
}

fn trace_of(bytes: &[u8]) -> Trace {
    engine::load(bytes).expect("loads").trace
}

fn transform() -> impl Strategy<Value = Transform> {
    let name = prop_oneof![
        (1u32..7).prop_map(|i| format!("s{i}")),
        Just("s[1-3]".to_owned()),
        Just("s*".to_owned()),
        Just("nothing".to_owned()),
    ];
    let path = prop::collection::vec((1u32..7).prop_map(|i| format!("s{i}")), 1..3)
        .prop_map(|p| p.join(";"));
    prop_oneof![
        name.clone().prop_map(|n| format!("merge:{n}")),
        name.clone().prop_map(|n| format!("drop:{n}")),
        name.clone().prop_map(|n| format!("collapse:{n}")),
        name.clone().prop_map(|n| format!("focus-function:{n}")),
        name.clone().prop_map(|n| format!("collapse-recursion:{n}")),
        name.clone().prop_map(|n| format!("split-data:{n}")),
        Just("collapse-recursion:all".to_owned()),
        Just("only-my-code".to_owned()),
        Just("collapse-crate:dep".to_owned()),
        Just("collapse-crate:*".to_owned()),
        path.prop_map(|p| format!("focus:{p}")),
    ]
    .prop_map(|s| s.parse().expect("a valid transform"))
}

fn threads() -> impl Strategy<Value = Vec<Vec<(&'static str, Vec<Shape>)>>> {
    let thread = (
        prop::sample::select(vec!["main", "worker", "s1"]),
        prop::collection::vec(shape(), 0..3),
    );
    prop::collection::vec(
        prop::collection::vec(thread, 1..3).prop_map(|mut ts| {
            let mut seen = std::collections::BTreeSet::new();
            ts.retain(|(n, _)| seen.insert(*n));
            ts
        }),
        1..4,
    )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    /// Any stack of up to three transforms: the engine's tree is the
    /// reference's.
    #[test]
    fn the_stack_equals_the_reference(frames in threads(), stack in prop::collection::vec(transform(), 1..4)) {
        let trace = trace_of(&capture(frames));
        let stack = Stack(stack);
        assert_same(&trace, &stack);
        // A slice at a time (3 nodes, then the page draws): the same tree.
        let base = transformed_tree(&trace, 0..trace.frames.len() as u32, None, u32::MAX, &Stack(stack.splits().into_iter().map(|p| Transform::SplitData(p.clone())).collect()));
        let whole = apply(&trace, &base.tree, &stack);
        let mut sliced = Applier::new(&base.tree, &stack).chunk(3);
        let mut slices = 0;
        let got = loop {
            if let Some(t) = sliced.step(&trace, &base.tree, &mut || false) {
                break t;
            }
            slices += 1;
            prop_assert!(slices < 100_000);
        };
        prop_assert_eq!(&got.tree, &whole.tree);
        prop_assert_eq!(&got.node_of, &whole.node_of);
        prop_assert_eq!(&got.warnings, &whole.warnings);
    }

    /// Conservation: merge, collapse, collapse-recursion, split-data and the
    /// crate collapses keep every thread's total; merge keeps the sum of
    /// own times; drop removes exactly the dropped scopes' totals (their
    /// outermost instances'); focus-function's roots hold exactly the
    /// outermost calls' durations.
    #[test]
    fn conservation(frames in threads(), t in transform()) {
        let trace = trace_of(&capture(frames));
        let (before, _) = engine_tree(&trace, &Stack::default());
        let stack = Stack(vec![t.clone()]);
        let (after, _) = engine_tree(&trace, &stack);
        let thread_totals = |t: &RTree| t.iter().map(|(k, v)| (k.clone(), v.total)).collect::<BTreeMap<_, _>>();
        fn all_self(n: &RNode) -> i64 { n.self_ + n.children.values().map(all_self).sum::<i64>() }
        let s = &trace.scopes;
        // Outermost instances matching `m`, per thread: their durations.
        let outermost = |m: &dyn Fn(&str) -> bool| {
            let mut per: BTreeMap<String, i64> = BTreeMap::new();
            for i in 0..s.len() {
                if !m(name_of(&trace, i)) { continue; }
                let mut p = s.parent[i];
                let mut inner = false;
                while p != u32::MAX {
                    inner |= m(name_of(&trace, p as usize));
                    p = s.parent[p as usize];
                }
                if !inner {
                    let th = trace.threads.name[trace.streams.thread[s.stream[i].idx()].idx()];
                    *per.entry(trace.str(th).to_owned()).or_default() += s.duration_ns[i];
                }
            }
            per
        };
        match &t {
            Transform::Merge(_) | Transform::Collapse(_) | Transform::CollapseRecursion(_)
            | Transform::SplitData(_) | Transform::OnlyMyCode | Transform::CollapseCrate(_) => {
                prop_assert_eq!(thread_totals(&before), thread_totals(&after));
                if matches!(t, Transform::Merge(_)) {
                    let sum = |t: &RTree| t.values().map(|th| th.children.values().map(all_self).sum::<i64>()).sum::<i64>();
                    // The merged roots' own time is the thread's (the total).
                    let thread_self: i64 = after.values().map(|th| th.total - th.children.values().map(|c| c.total).sum::<i64>()).sum();
                    prop_assert_eq!(sum(&before), sum(&after) + thread_self);
                }
            }
            Transform::Drop(p) => {
                let dropped = outermost(&|n| p.matches(n));
                for (th, total) in thread_totals(&before) {
                    let d = dropped.get(&th).copied().unwrap_or(0);
                    prop_assert_eq!(after[&th].total, total - d, "thread {}", th);
                }
            }
            Transform::FocusFunction(p) => {
                let calls = outermost(&|n| p.matches(n));
                let shown = thread_totals(&after);
                prop_assert_eq!(shown, calls);
            }
            Transform::Focus(_) => {}
        }
    }
}

// ---------------------------------------------------------------------------
// Recordings on disk

/// Stacks made of a recording's own names.
fn stacks_for(trace: &Trace) -> Vec<Stack> {
    let mut names: Vec<&str> = trace.defs.name.iter().map(|&n| trace.str(n)).collect();
    names.sort();
    names.dedup();
    let mut out = vec![
        Stack::parse(&["only-my-code"]).unwrap(),
        Stack::parse(&["collapse-recursion"]).unwrap(),
        Stack::parse(&["collapse-crate:*"]).unwrap(),
    ];
    for n in names.iter().take(6) {
        let n = n.replace(['*', '?', '[', '\\'], "?");
        for op in ["merge", "drop", "collapse", "focus-function", "split-data"] {
            out.push(Stack::parse(&[format!("{op}:{n}")]).unwrap());
        }
        out.push(Stack::parse(&[format!("merge:{n}"), "only-my-code".to_owned()]).unwrap());
    }
    out
}

#[test]
fn fixtures_and_the_bundled_example_equal_the_reference() {
    let mut files: Vec<std::path::PathBuf> = std::fs::read_dir(fixtures_dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "puffin"))
        .collect();
    files.sort();
    files
        .push(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("samples/threads_demo.puffin"));
    assert!(files.len() >= 6, "{files:?}");
    for f in files {
        let trace = trace_of(&std::fs::read(&f).unwrap());
        // Callers read from the tree are the instances' callers.
        let base =
            puffin_lens::engine::analyses::merged_tree(&trace, 0..trace.frames.len() as u32, None);
        for &n in &trace.defs.name {
            let name = trace.str(n);
            assert_eq!(
                puffin_lens::engine::analyses::callers_in_tree(&trace, &base, name),
                puffin_lens::engine::analyses::callers(&trace, name),
                "{}: {name}",
                f.display()
            );
        }
        // Totals per name read from the tree are the instances' totals.
        let filter = puffin_lens::engine::analyses::FindFilter {
            prefix: String::new(),
            field: puffin_lens::engine::analyses::Field::Any,
            thread: None,
            frame_index: None,
            frame_position: None,
        };
        assert_eq!(
            puffin_lens::engine::analyses::aggregate_in_tree(&trace, &base, "", 100_000),
            puffin_lens::engine::analyses::aggregate_counted(
                &trace,
                &filter,
                puffin_lens::engine::analyses::GroupBy::Name,
                100_000
            ),
            "{}",
            f.display()
        );
        let stacks = stacks_for(&trace);
        assert!(stacks.len() > 5, "{}", f.display());
        for stack in stacks {
            assert_same(&trace, &stack);
        }
    }
}

// ---------------------------------------------------------------------------
// Planted cases with exact answers

/// main: `frame` (10 ms) > `profiling::wrap` (8) > `update` (6) > `s`
/// recursion 3 deep (1 ms own each); `egui` code (a dependency) around the
/// app's `ui` callback.
fn planted() -> Trace {
    const MS: i64 = 1_000_000;
    let t = 1_800_000_000_000_000_000i64;
    let rec = ScopeNode::new(5, t + 3 * MS, t + 6 * MS).child(
        ScopeNode::new(5, t + 4 * MS, t + 6 * MS).child(ScopeNode::new(5, t + 5 * MS, t + 6 * MS)),
    );
    let egui = ScopeNode::new(6, t + 7 * MS, t + 10 * MS).child(
        ScopeNode::new(7, t + 7 * MS, t + 9 * MS)
            .child(ScopeNode::new(8, t + 8 * MS, t + 9 * MS).data("panel")),
    );
    let frame = ScopeNode::new(1, t, t + 10 * MS)
        .child(
            ScopeNode::new(2, t + MS, t + 7 * MS)
                .child(ScopeNode::new(3, t + MS, t + 7 * MS).child(rec)),
        )
        .child(egui);
    let regs = vec![
        Registration::named(1, "frame", "f", "src/main.rs", 1),
        Registration::named(2, "profiling::wrap", "f", "profiling-1.0.18/src/lib.rs", 1),
        Registration::named(3, "update", "f", "src/main.rs", 2),
        Registration::named(5, "s", "f", "src/main.rs", 3),
        Registration::named(6, "Context::run", "f", "egui-0.37.0/src/context.rs", 1),
        Registration::named(7, "Ui::show", "f", "egui-0.37.0/src/ui.rs", 1),
        Registration::named(8, "my_ui", "f", "src/main.rs", 4),
    ];
    let bytes = write_recording(
        &[FrameData {
            frame_index: 0,
            threads: vec![ThreadData {
                name: "main".into(),
                start_time_ns: Some(t),
                scopes: vec![frame],
            }],
            registrations: regs,
        }],
        Format::Pfd4(Compression::Lz4),
    );
    trace_of(&bytes)
}

fn tree_json(trace: &Trace, stack: &[&str]) -> Value {
    engine_tree(trace, &Stack::parse(stack).unwrap()).1
}

/// `name:total_ms(children)` of a JSON tree, compactly.
fn outline(v: &Value) -> String {
    let kids = |v: &Value| -> String {
        let parts: Vec<String> = v.as_array().unwrap().iter().map(outline).collect();
        if parts.is_empty() {
            String::new()
        } else {
            format!("({})", parts.join(" "))
        }
    };
    if let Some(roots) = v.get("roots") {
        format!(
            "{}={}{}",
            v["name"].as_str().unwrap(),
            v["total_ns"].as_i64().unwrap() / 1_000_000,
            kids(roots)
        )
    } else {
        format!(
            "{}={}/{}{}",
            v["name"].as_str().unwrap(),
            v["total_ns"].as_i64().unwrap() / 1_000_000,
            v["self_ns"].as_i64().unwrap() / 1_000_000,
            kids(&v["children"])
        )
    }
}

fn main_outline(trace: &Trace, stack: &[&str]) -> String {
    outline(&tree_json(trace, stack)["threads"][0])
}

#[test]
fn each_transform_on_a_planted_tree() {
    let t = planted();
    assert_eq!(
        main_outline(&t, &[]),
        "main=10(frame=10/1(profiling::wrap=6/0(update=6/3(s=3/1(s=2/1(s=1/1)))) Context::run=3/1(Ui::show=2/1(my_ui=1/1))))"
    );
    // Merge the wrapper: `update` moves up, its time stays.
    assert_eq!(
        main_outline(&t, &["merge:profiling::*"]),
        "main=10(frame=10/1(update=6/3(s=3/1(s=2/1(s=1/1))) Context::run=3/1(Ui::show=2/1(my_ui=1/1))))"
    );
    assert_eq!(
        main_outline(&t, &["collapse-recursion:all"]),
        "main=10(frame=10/1(profiling::wrap=6/0(update=6/3(s=3/3)) Context::run=3/1(Ui::show=2/1(my_ui=1/1))))"
    );
    assert_eq!(
        main_outline(&t, &["collapse:update"]),
        "main=10(frame=10/1(profiling::wrap=6/0(update=6/6) Context::run=3/1(Ui::show=2/1(my_ui=1/1))))"
    );
    // Drop: the time leaves every ancestor.
    assert_eq!(
        main_outline(&t, &["drop:s"]),
        "main=7(frame=7/1(Context::run=3/1(Ui::show=2/1(my_ui=1/1)) profiling::wrap=3/0(update=3/3)))"
    );
    assert_eq!(
        main_outline(&t, &["focus:frame;profiling::wrap;update"]),
        "main=6(update=6/3(s=3/1(s=2/1(s=1/1))))"
    );
    assert_eq!(
        main_outline(&t, &["focus-function:s"]),
        "main=3(s=3/1(s=2/1(s=1/1)))"
    );
    // Only my code: egui's run of two scopes is one node, the app's
    // callback inside it stays; the wrapper crate `profiling` too.
    assert_eq!(
        main_outline(&t, &["only-my-code"]),
        "main=10(frame=10/1([profiling]=6/0(update=6/3(s=3/1(s=2/1(s=1/1)))) [egui]=3/2(my_ui=1/1)))"
    );
    assert_eq!(
        main_outline(&t, &["split-data:my_ui", "focus-function:my_ui*"]),
        "main=1(my_ui [panel]=1/1)"
    );
    // In order: merging `update` first makes `s` a child of the wrapper.
    assert_eq!(
        main_outline(&t, &["merge:update", "focus:frame;profiling::wrap;s"]),
        "main=3(s=3/1(s=2/1(s=1/1)))"
    );
}

#[test]
fn transforms_reach_callers_diff_flamegraph_and_the_report() {
    let t = planted();
    let q = |name: &str, args: Value| {
        serde_json::from_str::<Value>(
            &puffin_lens::engine::api::query_json(&t, Some(&t), name, &args).unwrap(),
        )
        .unwrap()
    };
    let c = q(
        "callers",
        serde_json::json!({"name": "update", "transforms": ["merge:profiling::wrap"]}),
    );
    assert_eq!(c["callers"][0]["name"], "frame");
    assert_eq!(
        c["transforms"],
        serde_json::json!(["merge:profiling::wrap"])
    );
    // Without transforms: the instance-based answer, no `transforms` key.
    let c = q("callers", serde_json::json!({"name": "update"}));
    assert_eq!(c["callers"][0]["name"], "profiling::wrap");
    assert!(c.get("transforms").is_none());
    // find --aggregate: per node name of the transformed tree.
    let rows = q(
        "find",
        serde_json::json!({"aggregate": true, "transforms": ["merge:profiling::*", "collapse-recursion"]}),
    );
    let names: Vec<(&str, u64, i64)> = rows
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["name"].as_str().unwrap(),
                r["count"].as_u64().unwrap(),
                r["total_ns"].as_i64().unwrap() / 1_000_000,
            )
        })
        .collect();
    assert_eq!(
        names,
        [
            ("frame", 1, 10),
            ("update", 1, 6),
            ("Context::run", 1, 3),
            ("s", 1, 3),
            ("Ui::show", 1, 2),
            ("my_ui", 1, 1)
        ]
    );
    let err = puffin_lens::engine::api::query_json(
        &t,
        None,
        "find",
        &serde_json::json!({"transforms": ["merge:x"]}),
    )
    .unwrap_err()
    .to_string();
    assert!(err.contains("with --aggregate"), "{err}");
    let d = q("diff", serde_json::json!({"transforms": ["only-my-code"]}));
    assert_eq!(d["transforms"], serde_json::json!(["only-my-code"]));
    let roots = &d["threads"][0]["roots"][0]["children"];
    let names: Vec<&str> = roots
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["[egui]", "[profiling]"]);
    let folded = puffin_lens::engine::write::folded::folded_transformed(
        &t,
        0..1,
        None,
        &Stack::parse(&["only-my-code"]).unwrap(),
    );
    assert!(
        folded.contains("main;frame;[egui];my_ui 1000000\n"),
        "{folded}"
    );
    assert!(!folded.contains("Ui::show"), "{folded}");
}

#[test]
fn bad_input_is_named() {
    for (bad, words) in [
        ("merge:[a", "unclosed ["),
        ("frobnicate:x", "unknown transform \"frobnicate\""),
        ("merge:", "merge needs a scope name"),
        ("focus:a;;b", "focus needs a path"),
        ("only-my-code:x", "takes no argument"),
        ("merge:a\\", "ends with an escape"),
    ] {
        let err = bad.parse::<Transform>().unwrap_err();
        assert!(err.contains(words), "{bad}: {err}");
    }
    let t = planted();
    // The JS API names the key.
    let err = puffin_lens::engine::api::query_json(
        &t,
        None,
        "tree",
        &serde_json::json!({"transforms": ["merge:[a"]}),
    )
    .unwrap_err()
    .to_string();
    assert!(
        err.contains("transforms") && err.contains("unclosed ["),
        "{err}"
    );
    // A name that matches nothing: a warning, the tree unchanged.
    let plain = tree_json(&t, &[]);
    let v = tree_json(&t, &["merge:nothing*"]);
    assert_eq!(
        v["warnings"],
        serde_json::json!(["merge:nothing*: no scope matches; nothing changed"])
    );
    assert_eq!(v["threads"][0]["roots"], plain["threads"][0]["roots"]);
    let v = tree_json(&t, &["focus:nowhere"]);
    assert_eq!(v["threads"], serde_json::json!([]));
    assert_eq!(
        v["warnings"][0].as_str().unwrap(),
        "focus:nowhere: nothing to focus on (no such scope); the view is empty"
    );
}

#[test]
fn cli_flags_apply_in_the_order_given() {
    let bytes = std::fs::read(fixtures_dir().join("capture_PFD4.puffin")).unwrap();
    let (_dir, f) = temp_file("c.puffin", &bytes);
    let f = f.to_str().unwrap();
    let out = run(&[
        "tree",
        f,
        "--merge",
        "main_loop",
        "--focus",
        "sleep",
        "--json",
    ]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        v["transforms"],
        serde_json::json!(["merge:main_loop", "focus:sleep"])
    );
    assert_eq!(v["threads"][0]["roots"][0]["name"], "sleep");
    // The other order: `sleep` is not at the top level before the merge.
    let out = run(&[
        "tree",
        f,
        "--focus",
        "sleep",
        "--merge",
        "main_loop",
        "--json",
    ]);
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        v["transforms"],
        serde_json::json!(["focus:sleep", "merge:main_loop"])
    );
    assert_eq!(v["threads"], serde_json::json!([]));
    // Text: the stack, and what is shown of what was recorded.
    let out = run(&["tree", f, "--drop", "sleep"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.starts_with("transforms: drop:sleep\n"), "{text}");
    assert!(
        text.contains("thread main: shown 15.912 of 1081.887 ms"),
        "{text}"
    );
    let out = run(&["tree", f, "--merge", "[x"]);
    assert_eq!(code(&out), 2);
    assert!(stderr(&out).contains("unclosed ["), "{}", stderr(&out));
    // Flame graph and report take the same flags.
    let out = run(&["flamegraph", f, "--folded", "--only-my-code"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(String::from_utf8_lossy(&out.stdout).contains("[puffin_http]"));
    let out = run(&[
        "export",
        f,
        "-o",
        "-",
        "--format",
        "folded",
        "--only-my-code",
    ]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(String::from_utf8_lossy(&out.stdout).contains("[puffin_http]"));
    let out = run(&["export", f, "-o", "-", "--format", "chrome", "--merge", "x"]);
    assert_eq!(code(&out), 2);
    assert!(
        stderr(&out).contains("--format folded only"),
        "{}",
        stderr(&out)
    );
    let out = run(&["report", f, "--merge", "main_loop"]);
    let md = String::from_utf8_lossy(&out.stdout);
    assert!(
        md.contains("read with the transforms `merge:main_loop`"),
        "{md}"
    );
}

#[test]
fn origins() {
    let o = |f: &str, n: &str| origin(f, n).map(|o| (o.crate_name, o.dependency));
    assert_eq!(
        o("egui-0.37.0/src/context.rs", "x"),
        Some(("egui".into(), true))
    );
    assert_eq!(o("src/main.rs", "x"), None);
    assert_eq!(o("my_app/src/lib.rs", "x"), Some(("my_app".into(), false)));
    assert_eq!(
        o(
            "/home/u/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/wgpu-24.0.0-rc.1/src/a/b.rs",
            "x"
        ),
        Some(("wgpu".into(), true))
    );
    assert_eq!(
        o(
            "/home/u/.cargo/git/checkouts/egui-abc/1234/crates/egui/src/ui.rs",
            "x"
        ),
        Some(("egui".into(), true))
    );
    assert_eq!(
        o("C:\\Users\\u\\app\\src\\main.rs", "x"),
        Some(("app".into(), false))
    );
    assert_eq!(o("", "rayon::join"), Some(("rayon".into(), false)));
    assert_eq!(o("", "<T as Foo>::bar"), None);
    // puffin's shortened paths of deeper files.
    assert_eq!(
        o("egui-0.37.0/…/input_state/mod.rs", "x"),
        Some(("egui".into(), true))
    );
    assert_eq!(
        o("epaint-0.37.0/…/text_layout.rs", "x"),
        Some(("epaint".into(), true))
    );
    assert_eq!(o("examples/hello_world.rs", "x"), None);
}

// ---------------------------------------------------------------------------
// A real egui app

/// A small egui app run for 30 frames under puffin: egui's own scopes
/// (through `profiling`, recorded as `egui-0.37.0/src/….rs`) around the
/// app's (`my_app::…`, this file).
fn egui_capture() -> Vec<u8> {
    puffin::set_scopes_on(true);
    let view = puffin::GlobalFrameView::default();
    let mut harness = egui_kittest::Harness::new_ui(|ui| {
        puffin::profile_scope!("my_app::ui");
        ui.heading("puffin-lens");
        for i in 0..20 {
            puffin::profile_scope!("my_app::row");
            ui.horizontal(|ui| {
                ui.label(format!("row {i}"));
                let _ = ui.button("click");
            });
        }
        std::thread::sleep(std::time::Duration::from_micros(200));
    });
    for _ in 0..30 {
        puffin::GlobalProfiler::lock().new_frame();
        harness.step();
    }
    puffin::GlobalProfiler::lock().new_frame();
    puffin::set_scopes_on(false);
    let mut bytes = Vec::new();
    view.lock().write(&mut bytes).expect("writes");
    bytes
}

#[test]
fn only_my_code_on_a_real_egui_app() {
    let trace = trace_of(&egui_capture());
    let files: Vec<&str> = trace.defs.file.iter().map(|&f| trace.str(f)).collect();
    assert!(
        files.iter().any(|f| f.starts_with("egui-0.37.0/src/")),
        "egui's scopes recorded: {files:?}"
    );
    let (before, _) = engine_tree(&trace, &Stack::default());
    let stack = Stack::parse(&["only-my-code"]).unwrap();
    let (after, json) = engine_tree(&trace, &stack);
    assert_eq!(comparable(reference(&trace, &stack)), after);
    // Every thread's total unchanged.
    let totals = |t: &RTree| {
        t.iter()
            .map(|(k, v)| (k.clone(), v.total))
            .collect::<Vec<_>>()
    };
    assert_eq!(totals(&before), totals(&after));
    // The app's own scopes keep their totals (summed over their nodes,
    // outermost calls: they do not nest here); every other node is one per
    // crate run, named after the crate.
    fn walk(n: &RNode, name: &str, f: &mut dyn FnMut(&str, &RNode)) {
        f(name, n);
        for (k, c) in &n.children {
            walk(c, k, f);
        }
    }
    let own = |t: &RTree| {
        let mut m: BTreeMap<String, (u64, i64)> = BTreeMap::new();
        for th in t.values() {
            walk(th, "", &mut |name, n| {
                if name.starts_with("my_app::") {
                    let e = m.entry(name.to_owned()).or_default();
                    e.0 += n.count;
                    e.1 += n.total;
                }
            });
        }
        m
    };
    let own_before = own(&before);
    assert_eq!(own_before.len(), 2, "{own_before:?}");
    assert_eq!(own_before, own(&after));
    let mut crates = std::collections::BTreeSet::new();
    for th in after.values() {
        walk(th, "", &mut |name, n| {
            if name.starts_with('[') {
                crates.insert(name.to_owned());
            }
            let kids: Vec<&String> = n.children.keys().collect();
            for k in &kids {
                assert!(
                    k.starts_with('[') || k.starts_with("my_app::"),
                    "a dependency's scope left visible: {k} in {json}"
                );
            }
        });
    }
    assert!(crates.contains("[egui]"), "{crates:?}");
}
