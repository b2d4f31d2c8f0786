//! The faster paths of issue 21 against straightforward references, on
//! generated worst-case captures (call paths that rarely repeat, a unique
//! data string on most scopes) and on captures sharing most of their rows.

use puffin_lens::engine::analyses::basis::Basis;
use puffin_lens::engine::analyses::judge::{
    Sample, Sums, judge, judge_rows, needs_calls, untested,
};
use puffin_lens::engine::analyses::{
    self, CompareOptions, CompareRow, CompareSort, CompareTable, FindFilter, GroupBy, Noise,
    SideStats, Status,
};
use puffin_lens::engine::model::Trace;
use puffin_lens::engine::write::puffin::{
    Compression, Format, synthetic_capture, worst_case_capture, write_recording,
};
use std::cmp::Ordering;
use std::collections::BTreeMap;

fn trace(frames: &[puffin_lens::engine::write::puffin::FrameData]) -> Trace {
    let bytes = write_recording(frames, Format::Pfd4(Compression::Lz4));
    puffin_lens::engine::decode_puffin(&bytes)
        .expect("decodes")
        .trace
}

/// Pairs of recordings: unrelated worst cases, a worst case against its
/// own first frames (most rows in both, many equal), and the synthetic one.
fn pairs() -> Vec<(Trace, Trace)> {
    vec![
        (
            trace(&worst_case_capture(12, 300, 12, 1)),
            trace(&worst_case_capture(12, 300, 12, 2)),
        ),
        (
            trace(&worst_case_capture(12, 300, 12, 3)),
            trace(&worst_case_capture(9, 300, 12, 3)),
        ),
        (
            trace(&synthetic_capture(6, 2, 300)),
            trace(&synthetic_capture(8, 2, 300)),
        ),
    ]
}

/// Every (name, data)'s calls, with owned strings: the judgement's input.
fn samples(t: &Trace) -> BTreeMap<(String, String), Sample> {
    let mut out: BTreeMap<(String, String), Sample> = BTreeMap::new();
    let mut frames: BTreeMap<(String, String), BTreeMap<u32, u32>> = BTreeMap::new();
    for i in 0..t.scopes.len() as u32 {
        let s = puffin_lens::engine::model::ScopeIdx(i);
        let key = (t.scope_name(s).to_owned(), t.scope_data(s).to_owned());
        out.entry(key.clone())
            .or_insert_with(|| Sample {
                frames: t.frames.len(),
                ..Default::default()
            })
            .durations_ns
            .push(t.scopes.duration_ns[i as usize]);
        *frames
            .entry(key)
            .or_default()
            .entry(t.scope_frame(s).0)
            .or_default() += 1;
    }
    for (key, f) in frames {
        let s = out.get_mut(&key).unwrap();
        s.frame_units = f.keys().copied().collect();
        s.calls_in_frames = f.into_values().collect();
    }
    out
}

/// `compare` as it was first written: every (name, data) of both sides
/// with owned strings, joined in a map, all sorted, then cut; every row
/// the prefilter cannot bound estimated from all its calls and the rows
/// decided as one family, against the table's drift (the table collects
/// the calls of those rows only: the kinds must agree).
fn reference_compare(a: &Trace, b: &Trace, opts: &CompareOptions) -> Vec<CompareRow> {
    let (calls_a, calls_b) = (samples(a), samples(b));
    let side = |t: &Trace| -> BTreeMap<(String, String), SideStats> {
        analyses::aggregate(t, &FindFilter::default(), GroupBy::NameData, usize::MAX)
            .into_iter()
            .map(|g| {
                (
                    (g.name, g.data.unwrap_or_default()),
                    SideStats {
                        count: g.count,
                        total_ns: g.total_ns,
                        per_call_ns: g.total_ns as f64 / g.count as f64,
                        max_ns: g.max_ns,
                    },
                )
            })
            .collect()
    };
    let (mut sa, sb) = (side(a), side(b));
    let noise = CompareTable::grouped(a, b, GroupBy::NameData, opts.noise)
        .with(a, b)
        .noise();
    let frames = (a.frames.len(), b.frames.len());
    let sums = |s: &SideStats| Sums {
        count: s.count,
        total_ns: s.total_ns,
        max_ns: s.max_ns,
    };
    let mut rows = Vec::new();
    // The rows in both the prefilter cannot bound: judged together.
    let mut candidates: Vec<(usize, Sample, Sample)> = Vec::new();
    let mut push = |(name, data): (String, String), a: Option<SideStats>, b: Option<SideStats>| {
        let key = (name.clone(), data.clone());
        let change = match (&a, &b) {
            (Some(x), Some(y)) if !needs_calls(sums(x), sums(y), frames, &noise) => {
                untested(Some(sums(x)), Some(sums(y)), frames, &noise, Basis::Frame)
            }
            (Some(_), Some(_)) => {
                candidates.push((rows.len(), calls_a[&key].clone(), calls_b[&key].clone()));
                judge(None, None, &noise)
            }
            _ => judge(calls_a.get(&key), calls_b.get(&key), &noise),
        };
        let ta = a.as_ref().map_or(0, |s| s.total_ns);
        let tb = b.as_ref().map_or(0, |s| s.total_ns);
        rows.push(CompareRow {
            name,
            data,
            spike: false, // the judgement's kind, below
            delta_total_ns: tb - ta,
            delta_per_call_ns: match (&a, &b) {
                (Some(a), Some(b)) => Some(b.per_call_ns - a.per_call_ns),
                _ => None,
            },
            status: match (&a, &b) {
                (Some(_), Some(_)) => Status::Both,
                (None, _) => Status::New,
                (_, None) => Status::Gone,
            },
            a,
            b,
            change,
            gap: None,
            structure: None,
        });
    };
    for (key, sb) in sb {
        let sa = sa.remove(&key);
        push(key, sa, Some(sb));
    }
    for (key, sa) in sa {
        push(key, Some(sa), None);
    }
    let (sa, sb): (Vec<Sample>, Vec<Sample>) = candidates
        .iter()
        .map(|(_, x, y)| (x.clone(), y.clone()))
        .unzip();
    let changes = judge_rows(&sa, &sb, &mut noise.clone());
    for ((k, _, _), change) in candidates.iter().zip(changes) {
        rows[*k].change = change;
    }
    for r in &mut rows {
        r.spike = r.change.kind == analyses::Kind::Spike;
    }
    rows.retain(|r| {
        let total = |s: &Option<SideStats>| s.as_ref().map_or(0, |s| s.total_ns);
        opts.filter
            .as_deref()
            .is_none_or(|p| r.name.starts_with(p) || r.data.starts_with(p))
            && (total(&r.a) >= opts.hide_below_ns || total(&r.b) >= opts.hide_below_ns)
    });
    let total = |s: &Option<SideStats>| s.as_ref().map_or(0, |s| s.total_ns);
    let count = |s: &Option<SideStats>| s.as_ref().map_or(0, |s| s.count);
    rows.sort_by(|x, y| {
        match opts.sort {
            CompareSort::AbsDelta => y
                .delta_total_ns
                .unsigned_abs()
                .cmp(&x.delta_total_ns.unsigned_abs()),
            CompareSort::SignedDelta => y.delta_total_ns.cmp(&x.delta_total_ns),
            CompareSort::Total => total(&y.a)
                .max(total(&y.b))
                .cmp(&total(&x.a).max(total(&x.b))),
            CompareSort::Count => count(&y.a)
                .max(count(&y.b))
                .cmp(&count(&x.a).max(count(&x.b))),
            CompareSort::PerCall => match (x.delta_per_call_ns, y.delta_per_call_ns) {
                (Some(p), Some(q)) => q.abs().partial_cmp(&p.abs()).unwrap_or(Ordering::Equal),
                (Some(_), None) => Ordering::Less,
                (None, Some(_)) => Ordering::Greater,
                (None, None) => Ordering::Equal,
            },
            CompareSort::Name => Ordering::Equal,
        }
        .then_with(|| x.name.cmp(&y.name))
        .then_with(|| x.data.cmp(&y.data))
    });
    rows.truncate(opts.top);
    rows
}

fn want_change_placeholder() -> analyses::Change {
    judge(None, None, &Noise::default())
}

#[test]
fn compare_joined_by_ids_answers_as_the_owned_string_join() {
    use clap::ValueEnum as _;
    let mut checked = 0;
    for (a, b) in pairs() {
        for sort in CompareSort::value_variants() {
            for top in [0, 1, 7, 50, usize::MAX] {
                for (filter, hide_below_ns) in [(None, 0), (Some("fn_1"), 0), (None, 200_000)] {
                    let opts = CompareOptions {
                        top,
                        filter: filter.map(str::to_owned),
                        hide_below_ns,
                        sort: *sort,
                        noise: Noise::default(),
                    };
                    let want = reference_compare(&a, &b, &opts);
                    let got = analyses::compare(&a, &b, &opts, None).rows;
                    // The kinds agree; the rest of each row is equal.
                    let strip = |rows: Vec<CompareRow>| -> Vec<(CompareRow, analyses::Kind)> {
                        rows.into_iter()
                            .map(|mut r| {
                                let kind = r.change.kind;
                                r.change = want_change_placeholder();
                                (r, kind)
                            })
                            .collect()
                    };
                    checked += got.len();
                    assert_eq!(
                        strip(got),
                        strip(want),
                        "{sort:?}, top {top}, {filter:?}, {hide_below_ns}"
                    );
                }
            }
        }
    }
    assert!(checked > 10_000, "{checked} rows checked");
}

/// The `tree` answer as first written: nested nodes with owned names,
/// built recursively from the merged tree, cut at `depth` levels.
fn reference_tree(t: &Trace, depth: Option<u32>) -> serde_json::Value {
    use puffin_lens::engine::analyses::tree::{MergedTree, NodeId, merged_tree};
    use serde_json::json;
    let tree = merged_tree(t, 0..t.frames.len() as u32, None);
    fn node(t: &Trace, tree: &MergedTree, n: NodeId, left: u32) -> serde_json::Value {
        let i = n.idx();
        let children: Vec<_> = if left > 1 {
            tree.children(n)
                .iter()
                .map(|&c| node(t, tree, c, left - 1))
                .collect()
        } else {
            Vec::new()
        };
        json!({"name": t.str(tree.name[i]), "count": tree.count[i], "total_ns": tree.total_ns[i],
               "self_ns": tree.self_ns[i], "max_ns": tree.max_ns[i], "children": children})
    }
    let levels = depth.unwrap_or(256);
    let threads: Vec<_> = tree
        .threads
        .iter()
        .map(|&th| {
            let roots: Vec<_> = if levels == 0 {
                Vec::new()
            } else {
                tree.children(th)
                    .iter()
                    .map(|&c| node(t, &tree, c, levels))
                    .collect()
            };
            json!({"name": t.str(tree.name[th.idx()]), "total_ns": tree.total_ns[th.idx()], "roots": roots})
        })
        .collect();
    json!({"frames": tree.frames, "threads": threads})
}

#[test]
fn tree_written_while_walked_answers_as_the_nested_build() {
    use puffin_lens::engine::api::{self, Request};
    let t = trace(&worst_case_capture(20, 500, 12, 7));
    let mut nodes = 0;
    for depth in [None, Some(0), Some(1), Some(3), Some(30)] {
        let args = match depth {
            Some(d) => serde_json::json!({ "depth": d }),
            None => serde_json::json!({}),
        };
        let request = Request::from_json("tree", &args).expect("a request");
        let got = api::answer(&request, &t, None).expect("answers").to_json();
        let want = reference_tree(&t, depth);
        let parsed: serde_json::Value = serde_json::from_str(&got).expect("parses");
        assert_eq!(parsed, want, "depth {depth:?}");
        // Fields in the order the layout documents.
        assert!(got.starts_with("{\"frames\":20,\"threads\":[{\"name\":\"main\",\"total_ns\":"));
        nodes += got.matches("\"children\"").count();
    }
    assert!(nodes > 3_000, "{nodes} nodes compared");
}

/// The `diff` answer as first written: both merged trees joined level by
/// level in ordered maps of owned names, children by |Δ| then name.
fn reference_diff(a: &Trace, b: &Trace, depth: Option<u32>) -> serde_json::Value {
    use puffin_lens::engine::analyses::tree::{MergedTree, NodeId, merged_tree};
    use serde_json::{Value, json};
    let ta = merged_tree(a, 0..a.frames.len() as u32, None);
    let tb = merged_tree(b, 0..b.frames.len() as u32, None);
    type Pairs = BTreeMap<String, (Option<NodeId>, Option<NodeId>)>;
    fn join(a: (&Trace, &MergedTree, &[NodeId]), b: (&Trace, &MergedTree, &[NodeId])) -> Pairs {
        let mut m = Pairs::new();
        for &n in a.2 {
            m.entry(a.0.str(a.1.name[n.idx()]).to_owned())
                .or_default()
                .0 = Some(n);
        }
        for &n in b.2 {
            m.entry(b.0.str(b.1.name[n.idx()]).to_owned())
                .or_default()
                .1 = Some(n);
        }
        m
    }
    struct Ctx<'a> {
        a: &'a Trace,
        b: &'a Trace,
        ta: &'a MergedTree,
        tb: &'a MergedTree,
    }
    fn side(t: &MergedTree, n: Option<NodeId>) -> Value {
        n.map_or(Value::Null, |n| {
            json!({"count": t.count[n.idx()], "total_ns": t.total_ns[n.idx()], "self_ns": t.self_ns[n.idx()]})
        })
    }
    fn total(t: &MergedTree, n: Option<NodeId>) -> i64 {
        n.map_or(0, |n| t.total_ns[n.idx()])
    }
    fn level(c: &Ctx, na: Option<NodeId>, nb: Option<NodeId>, left: u32) -> Vec<Value> {
        if left == 0 {
            return Vec::new();
        }
        let kids =
            |t: &MergedTree, n: Option<NodeId>| n.map_or(Vec::new(), |n| t.children(n).to_vec());
        let (ka, kb) = (kids(c.ta, na), kids(c.tb, nb));
        let mut nodes: Vec<(String, Option<NodeId>, Option<NodeId>)> =
            join((c.a, c.ta, &ka), (c.b, c.tb, &kb))
                .into_iter()
                .map(|(name, (x, y))| (name, x, y))
                .collect();
        let delta = |x: Option<NodeId>, y: Option<NodeId>| total(c.tb, y) - total(c.ta, x);
        // Largest change per frame first: |B/fb - A/fa|, compared as
        // |B*fa - A*fb| (exact); ties by name.
        let (fa, fb) = (
            c.a.frames.len().max(1) as i128,
            c.b.frames.len().max(1) as i128,
        );
        let per_frame = |x: Option<NodeId>, y: Option<NodeId>| {
            (total(c.tb, y) as i128 * fa - total(c.ta, x) as i128 * fb).unsigned_abs()
        };
        nodes.sort_by(|p, q| {
            per_frame(q.1, q.2)
                .cmp(&per_frame(p.1, p.2))
                .then_with(|| p.0.cmp(&q.0))
        });
        nodes
            .into_iter()
            .map(|(name, x, y)| {
                json!({"name": name, "a": side(c.ta, x), "b": side(c.tb, y),
                       "delta_total_ns": delta(x, y), "children": level(c, x, y, left - 1)})
            })
            .collect()
    }
    let c = Ctx {
        a,
        b,
        ta: &ta,
        tb: &tb,
    };
    let levels = depth.unwrap_or(256);
    let threads: Vec<Value> = join((a, &ta, &ta.threads), (b, &tb, &tb.threads))
        .into_iter()
        .map(|(name, (x, y))| {
            json!({"name": name, "a_total_ns": total(&ta, x), "b_total_ns": total(&tb, y),
                   "roots": level(&c, x, y, levels)})
        })
        .collect();
    json!({"warnings": [], "threads": threads})
}

#[test]
fn diff_written_while_walked_answers_as_the_map_join() {
    use puffin_lens::engine::api::{self, Request};
    let mut nodes = 0;
    for (a, b) in pairs() {
        for depth in [None, Some(0), Some(2)] {
            let args = match depth {
                Some(d) => serde_json::json!({ "depth": d }),
                None => serde_json::json!({}),
            };
            let request = Request::from_json("diff", &args).expect("a request");
            let got = api::answer(&request, &a, Some(&b))
                .expect("answers")
                .to_json();
            let mut parsed: serde_json::Value = serde_json::from_str(&got).expect("parses");
            // Every node is judged (tests/judgement.rs checks the kinds)
            // and has its time per frame (each side's sum over its frames,
            // checked here); the rest is the map join's.
            let frames = |k: &str| parsed[k].as_f64().expect("frames per side");
            let (fa, fb) = (frames("frames_a"), frames("frames_b"));
            assert_eq!(parsed["basis"], "frame");
            fn strip(v: &mut serde_json::Value, (fa, fb): (f64, f64)) {
                if let Some(o) = v.as_object_mut() {
                    if o.contains_key("children") {
                        assert!(o.remove("kind").is_some_and(|k| k.is_string()), "{o:?}");
                    }
                    if let Some(per) = o.remove("a_total_per_frame_ns") {
                        let sum = o
                            .get("a")
                            .and_then(|x| x.get("total_ns"))
                            .or(o.get("a_total_ns"));
                        let sum = sum.and_then(serde_json::Value::as_f64);
                        let want = sum.unwrap_or(0.0) / fa;
                        assert!((per.as_f64().unwrap() - want).abs() < 1e-6, "{o:?}");
                    }
                    if let Some(per) = o.remove("b_total_per_frame_ns") {
                        let sum = o
                            .get("b")
                            .and_then(|x| x.get("total_ns"))
                            .or(o.get("b_total_ns"));
                        let sum = sum.and_then(serde_json::Value::as_f64);
                        let want = sum.unwrap_or(0.0) / fb;
                        assert!((per.as_f64().unwrap() - want).abs() < 1e-6, "{o:?}");
                    }
                    for k in ["delta_total_per_frame_ns", "delta_pct"] {
                        o.remove(k);
                    }
                    o.values_mut().for_each(|v| strip(v, (fa, fb)));
                } else if let Some(a) = v.as_array_mut() {
                    a.iter_mut().for_each(|v| strip(v, (fa, fb)));
                }
            }
            for k in ["basis", "units", "frames_a", "frames_b"] {
                parsed.as_object_mut().unwrap().remove(k);
            }
            strip(&mut parsed, (fa, fb));
            assert_eq!(parsed, reference_diff(&a, &b, depth), "depth {depth:?}");
            assert!(got.starts_with("{\"warnings\":[],"), "{:.80}", got);
            nodes += got.matches("\"children\"").count();
        }
    }
    assert!(nodes > 2_000, "{nodes} nodes compared");
}

#[test]
fn aggregate_first_n_by_selection_are_the_first_n_of_the_full_sort() {
    let t = trace(&worst_case_capture(12, 300, 40, 5));
    for by in [GroupBy::Name, GroupBy::NameData] {
        let all = analyses::aggregate(&t, &FindFilter::default(), by, usize::MAX);
        assert!(all.len() >= 40, "{} groups", all.len());
        let mut sorted = all.clone();
        sorted.sort_by(|x, y| {
            y.total_ns
                .cmp(&x.total_ns)
                .then_with(|| x.name.cmp(&y.name))
                .then_with(|| x.data.cmp(&y.data))
        });
        assert_eq!(all, sorted, "{by:?}: the full answer is sorted");
        for n in [1, 5, 12, all.len() - 1] {
            let first = analyses::aggregate(&t, &FindFilter::default(), by, n);
            assert_eq!(first, all[..n], "{by:?}, first {n}");
        }
    }
}

#[test]
fn compare_built_a_chunk_at_a_time_equals_built_at_once() {
    use puffin_lens::engine::analyses::{CompareBuilder, CompareTable, NameOrder};
    // Several chunks of 32k instances, groups and rows on each side.
    let a = trace(&worst_case_capture(40, 2_500, 40, 11));
    let b = trace(&worst_case_capture(36, 2_500, 40, 12));
    let at_once = CompareTable::grouped(&a, &b, GroupBy::NameData, Noise::default());
    let mut builder = CompareBuilder::grouped(GroupBy::NameData, Noise::default());
    let mut steps = 0;
    let sliced = loop {
        steps += 1;
        if let Some(t) = builder.step(&a, &b, &mut || false) {
            break t;
        }
        assert!(builder.progress(&a, &b) <= 1.0);
    };
    assert!(steps > 8, "{steps} steps");
    let all = CompareOptions {
        top: usize::MAX,
        filter: None,
        hide_below_ns: 0,
        sort: CompareSort::Name,
        noise: Noise::default(),
    };
    let (j1, j2) = (at_once.with(&a, &b), sliced.with(&a, &b));
    assert_eq!(j1.rows(&all), j2.rows(&all));
    assert_eq!(j1.pairs(), j2.pairs());
    // The name order a bucket or chunk at a time: the rows `first` orders.
    let want = j1.first(j1.pairs().to_vec(), usize::MAX, CompareSort::Name);
    let mut order = NameOrder::new(j1.pairs().to_vec());
    let mut steps = 0;
    let got = loop {
        steps += 1;
        if let Some(rows) = order.step(&j1, usize::MAX, &mut || false) {
            break rows;
        }
    };
    assert!(steps > 8, "{steps} steps");
    assert_eq!(got, want);
    assert_eq!(got.len(), j1.pairs().len());
}

/// Steps `step` (each given a `more` that always says stop) until it
/// answers; the answer and how many steps it took.
fn sliced<T>(mut step: impl FnMut(&mut dyn FnMut() -> bool) -> Option<T>) -> (T, usize) {
    let mut steps = 0;
    loop {
        steps += 1;
        if let Some(done) = step(&mut || false) {
            return (done, steps);
        }
    }
}

#[test]
fn table_statistics_built_a_slice_at_a_time_equal_a_reference() {
    use puffin_lens::engine::analyses::{NameOrder, StatsBuilder, StatsRows, scope_stats};
    let t = trace(&worst_case_capture(40, 2_500, 40, 11));
    // Every frame (several chunks), and two frames: few instances of a
    // trace of many strings (the grouping's sparse index).
    let cases = [(0..t.frames.len() as u32, 4), (3..5, 0)];
    for ((frames, min_steps), by) in cases
        .iter()
        .flat_map(|c| [(c.clone(), GroupBy::Name), (c.clone(), GroupBy::NameData)])
    {
        let mut builder = StatsBuilder::new(&t, frames.clone(), None, by, None);
        let (stats, steps) = sliced(|more| {
            let done = builder.step(&t, more);
            assert!(builder.progress() <= 1.0);
            done
        });
        assert!(steps > min_steps, "{by:?}: {steps} steps");
        assert_eq!(
            stats,
            scope_stats(&t, frames.clone(), None, by, None),
            "{by:?}"
        );
        // Against durations gathered per (name, data) string.
        let mut want: BTreeMap<(String, String), Vec<i64>> = BTreeMap::new();
        for i in 0..t.scopes.len() {
            if !frames.contains(&t.streams.frame[t.scopes.stream[i].idx()].0) {
                continue;
            }
            let name = t.str(t.defs.name[t.scopes.def[i].idx()]).to_owned();
            let data = match by {
                GroupBy::Name => String::new(),
                _ => t.str(t.scopes.data[i]).to_owned(),
            };
            want.entry((name, data))
                .or_default()
                .push(t.scopes.duration_ns[i]);
        }
        assert_eq!(stats.len(), want.len(), "{by:?}");
        // The rows in (name, data) order, a bucket or chunk at a time.
        let rows = StatsRows {
            trace: &t,
            stats: &stats,
        };
        let mut order = NameOrder::new((0..stats.len() as u32).collect());
        let (by_name, steps) = sliced(|more| order.step(&rows, usize::MAX, more));
        assert!(steps > min_steps, "{by:?}: {steps} steps");
        assert_eq!(by_name.len(), want.len());
        for (&r, ((name, data), durations)) in by_name.iter().zip(&mut want) {
            let r = r as usize;
            assert_eq!(
                (t.str(stats.name[r]), t.str(stats.data[r])),
                (name.as_str(), data.as_str())
            );
            durations.sort_unstable();
            let n = durations.len();
            assert_eq!(stats.count[r], n as u64);
            assert_eq!(stats.total_ns[r], durations.iter().sum::<i64>());
            assert_eq!(
                (stats.min_ns[r], stats.median_ns[r], stats.max_ns[r]),
                (durations[0], durations[(n - 1) / 2], durations[n - 1])
            );
            assert_eq!(stats.p95_ns[r], durations[(95 * n).div_ceil(100) - 1]);
        }
    }
}

#[test]
fn trees_built_a_slice_at_a_time_equal_built_at_once() {
    use puffin_lens::engine::analyses::diff::{DiffTreeBuilder, diff_tree};
    use puffin_lens::engine::analyses::tree::{MergedTreeBuilder, merged_tree};
    let a = trace(&worst_case_capture(40, 2_500, 40, 11));
    let b = trace(&worst_case_capture(36, 2_500, 40, 12));
    for thread in [None, Some("main"), Some("no such thread")] {
        let frames = 3..a.frames.len() as u32;
        let mut builder = MergedTreeBuilder::new(&a, frames.clone(), thread, u32::MAX);
        let (tree, steps) = sliced(|more| builder.step(&a, more));
        assert_eq!(tree, merged_tree(&a, frames, thread), "{thread:?}");
        assert!(
            thread == Some("no such thread") || steps > 2,
            "{thread:?}: {steps} steps"
        );
        let mut builder = DiffTreeBuilder::new(&a, &b, thread, u32::MAX);
        let (tree, steps) = sliced(|more| {
            let done = builder.step(&a, &b, more);
            assert!(builder.progress() <= 1.0);
            done
        });
        assert_eq!(tree, diff_tree(&a, &b, thread), "{thread:?}");
        assert!(
            thread == Some("no such thread") || steps > 4,
            "{thread:?}: {steps} steps"
        );
    }
}

#[test]
fn table_view_built_a_slice_at_a_time_shows_the_rows_built_at_once() {
    use puffin_lens::app::TableView;
    use puffin_lens::app::views::table::SortCol;
    let loaded = loaded(&worst_case_capture(40, 2_500, 40, 11));
    let frames = 0..loaded.trace().frames.len() as u32;
    for by in [GroupBy::Name, GroupBy::NameData] {
        for (sort, descending) in [
            (SortCol::Total, true),
            (SortCol::Name, false),
            (SortCol::P95, true),
        ] {
            let mut whole = TableView::new(loaded.clone());
            whole.set_sort(sort, descending);
            whole.set_inputs(frames.clone(), None, by);
            assert_eq!(whole.building(), None);
            let mut sliced = TableView::new(loaded.clone());
            sliced.set_sort(sort, descending);
            assert!(sliced.start_inputs(frames.clone(), None, by));
            let mut steps = 0;
            while sliced.step_build(Some(std::time::Duration::ZERO)) {
                steps += 1;
                assert!(sliced.rows().is_empty(), "no rows while building");
                assert!(sliced.building().is_some_and(|b| (0.0..=1.0).contains(&b)));
            }
            assert!(steps > 4, "{by:?}: {steps} steps");
            assert!(!whole.rows().is_empty());
            assert_eq!(sliced.rows(), whole.rows(), "{by:?} {sort:?}");
            assert_eq!(sliced.stats(), whole.stats());
        }
    }
}

#[test]
fn a_file_of_many_stretches_decodes_from_its_mapping_as_from_memory() {
    // The CLI maps a recording and hands back the pages the decode has
    // passed (4 MB stretches): a file of several, whole and cut short.
    use puffin_lens::engine::{export_string, load};
    let bytes = write_recording(
        &worst_case_capture(60, 10_000, 300, 5),
        Format::Pfd4(Compression::Lz4),
    );
    assert!(bytes.len() > 2 * (4 << 20), "{} bytes", bytes.len());
    let cut = &bytes[..bytes.len() * 2 / 3];
    let dir = tempfile::tempdir().expect("a temporary directory");
    for (name, bytes, status) in [("whole.puffin", &bytes[..], 0), ("cut.puffin", cut, 3)] {
        let path = dir.path().join(name);
        std::fs::write(&path, bytes).expect("written");
        let path = path.to_str().expect("UTF-8");
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_puffin-lens"))
            .args(["dump", path])
            .output()
            .expect("runs");
        assert_eq!(
            out.status.code(),
            Some(status),
            "{name}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let decoded = load(bytes).expect("decodes");
        let want = export_string(&decoded.trace, path, false);
        let got = String::from_utf8(out.stdout).expect("UTF-8");
        assert!(
            got.trim_end() == want.trim_end(),
            "{name}: the CLI's export differs from the one made in memory"
        );
        if status != 0 {
            let err = String::from_utf8_lossy(&out.stderr);
            for d in &decoded.diagnostics {
                assert!(err.contains(&d.to_string()), "{name}: {d} not in {err}");
            }
        }
    }
}

fn loaded(
    frames: &[puffin_lens::engine::write::puffin::FrameData],
) -> std::sync::Arc<puffin_lens::app::Loaded> {
    let bytes = write_recording(frames, Format::Pfd4(Compression::Lz4));
    let decoded = puffin_lens::engine::decode_puffin(&bytes).expect("decodes");
    std::sync::Arc::new(puffin_lens::app::Loaded::new(
        "worst".into(),
        decoded,
        bytes.len(),
        0.0,
    ))
}

#[test]
fn diff_view_built_a_slice_at_a_time_sorts_as_last_asked() {
    use puffin_lens::app::DiffView;
    use puffin_lens::app::views::diff::DiffSort;
    use std::time::Duration;
    // Over 100k rows: the first sort's keys take several chunks.
    let a = loaded(&worst_case_capture(40, 2_500, 40, 11));
    let b = loaded(&worst_case_capture(36, 2_500, 40, 12));
    let whole = DiffView::new(a.clone(), b.clone());
    let mut sliced = DiffView::start(a.clone(), b.clone());
    while sliced.step_build(Some(Duration::ZERO)) {}
    assert_eq!(sliced.rows_json(usize::MAX), whole.rows_json(usize::MAX));
    assert!(whole.rows_json(usize::MAX).len() > 100_000);
    // The sort and filter changed while the first sort is being made.
    let mut whole = DiffView::new(a.clone(), b.clone());
    whole.set_sort(DiffSort::ATotal, false);
    whole.set_filter("fn_1", true);
    let mut sliced = DiffView::start(a, b);
    let mut sorting = 0;
    while sliced.step_build(Some(Duration::ZERO)) {
        if sliced.building() == Some(0.95) {
            sorting += 1;
            if sorting == 2 {
                sliced.set_sort(DiffSort::ATotal, false);
                sliced.set_filter("fn_1", true);
            }
        }
    }
    assert!(sorting > 2, "{sorting} slices of the first sort");
    let rows = sliced.rows_json(usize::MAX);
    assert!(
        !rows.is_empty() && rows.len() < 100_000,
        "{} rows",
        rows.len()
    );
    assert_eq!(rows, whole.rows_json(usize::MAX));
}

#[test]
fn tree_view_built_a_slice_at_a_time_opens_as_asked_meanwhile() {
    use puffin_lens::app::TreeView;
    use puffin_lens::app::views::tree::Expand;
    use std::time::Duration;
    // 200k instances: several chunks of 32k.
    let rec = loaded(&worst_case_capture(80, 2_500, 40, 11));
    let frames = 0..rec.trace().frames.len() as u32;
    for how in [None, Some(Expand::All), Some(Expand::Levels(2))] {
        let mut whole = TreeView::new(rec.clone());
        whole.set_merged_frames(frames.clone());
        assert_eq!(whole.building(), None);
        let mut sliced = TreeView::new(rec.clone());
        assert!(sliced.start_merged_frames(frames.clone()));
        let mut steps = 0;
        while sliced.step_merged(Some(Duration::ZERO)) {
            steps += 1;
            assert!(sliced.merged_rows().is_empty(), "no rows while building");
            assert!(sliced.building().is_some_and(|b| (0.0..=1.0).contains(&b)));
            if steps == 1
                && let Some(how) = how
            {
                sliced.expand(how);
            }
        }
        assert!(steps > 2, "{steps} steps");
        if let Some(how) = how {
            whole.expand(how);
        }
        assert_eq!(sliced.merged(), whole.merged());
        assert!(whole.merged_rows().len() > 10);
        assert_eq!(sliced.merged_rows(), whole.merged_rows(), "{how:?}");
    }
}

#[test]
fn diff_view_rows_are_in_the_reference_order() {
    use puffin_lens::app::DiffView;
    use puffin_lens::app::views::diff::DiffSort;
    let cases = [
        (
            worst_case_capture(12, 300, 12, 1),
            worst_case_capture(12, 300, 12, 2),
        ),
        (
            worst_case_capture(12, 300, 12, 3),
            worst_case_capture(12, 300, 12, 3),
        ),
        (synthetic_capture(6, 2, 300), synthetic_capture(6, 2, 300)),
        (
            worst_case_capture(40, 2_500, 40, 11),
            worst_case_capture(40, 2_500, 40, 12),
        ),
    ];
    let listed = |rows: Vec<serde_json::Value>| -> Vec<(String, String, i64)> {
        rows.iter()
            .map(|r| {
                (
                    r["name"].as_str().expect("a name").to_owned(),
                    r["data"].as_str().expect("data").to_owned(),
                    r["delta_total_ns"].as_i64().expect("a delta"),
                )
            })
            .collect()
    };
    for (fa, fb) in &cases {
        let (ta, tb) = (trace(fa), trace(fb));
        let mut view = DiffView::new(loaded(fa), loaded(fb));
        for (sort, reference) in [
            (DiffSort::Delta, CompareSort::SignedDelta),
            (DiffSort::Name, CompareSort::Name),
        ] {
            view.set_sort(sort, sort != DiffSort::Name);
            let opts = CompareOptions {
                top: usize::MAX,
                filter: None,
                hide_below_ns: 0,
                sort: reference,
                noise: Noise::default(),
            };
            let want: Vec<_> = reference_compare(&ta, &tb, &opts)
                .into_iter()
                .map(|r| (r.name, r.data, r.delta_total_ns))
                .collect();
            assert!(want.len() > 10);
            assert_eq!(listed(view.rows_json(usize::MAX)), want, "{sort:?}");
        }
    }
}

/// Rows of (name, data) strings, for [`NameOrder`] on its own, and each
/// row's name as a number (the first row of the same name).
struct Strings(Vec<(String, String)>, Vec<u64>);

impl Strings {
    fn new(rows: Vec<(String, String)>) -> Self {
        let mut first: BTreeMap<&str, u64> = BTreeMap::new();
        let keys = rows
            .iter()
            .enumerate()
            .map(|(i, (name, _))| *first.entry(name.as_str()).or_insert(i as u64))
            .collect();
        Self(rows, keys)
    }

    /// [`NameOrder`] of the rows handed to it in a shuffled order, stepped
    /// with a `more` that always says stop: its first `n` rows, with its
    /// progress checked to never go back or past the end.
    fn ordered(&self, n: usize) -> Vec<u32> {
        use puffin_lens::engine::analyses::NameOrder;
        let mut items: Vec<u32> = (0..self.0.len() as u32).collect();
        items.reverse();
        items.rotate_left(self.0.len() / 3);
        let mut order = NameOrder::new(items);
        let mut progress = 0.0;
        sliced(|more| {
            let done = order.step(self, n, more);
            assert!(done.is_some() || (progress..=1.0).contains(&order.progress()));
            progress = order.progress();
            done
        })
        .0
    }

    /// The first `n` rows by a plain sort of the strings.
    fn sorted(&self, n: usize) -> Vec<u32> {
        let mut want: Vec<u32> = (0..self.0.len() as u32).collect();
        want.sort_by(|&x, &y| self.0[x as usize].cmp(&self.0[y as usize]));
        want.truncate(n);
        want
    }
}

impl puffin_lens::engine::analyses::NamedRows<u32> for Strings {
    fn name_key(&self, row: u32) -> u64 {
        self.1[row as usize]
    }

    fn name(&self, row: u32) -> &str {
        &self.0[row as usize].0
    }

    fn data(&self, row: u32) -> &str {
        &self.0[row as usize].1
    }
}

#[test]
fn name_order_of_many_rows_is_the_order_of_the_strings() {
    // Several chunks of rows: bucketing and placing take several steps.
    let rows: Vec<(String, String)> = (0..100_000u64)
        .map(|i| {
            let k = i.wrapping_mul(7_919) % 100_000;
            (format!("n{}", k % 7), format!("entity/{k}"))
        })
        .collect();
    let strings = Strings::new(rows);
    assert_eq!(strings.ordered(usize::MAX), strings.sorted(usize::MAX));
    assert_eq!(strings.ordered(10), strings.sorted(10));
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig { cases: 300, ..Default::default() })]

    /// The name order sorts by integer keys made of a few of each data
    /// string's bytes: data sharing long prefixes, data that are prefixes
    /// of each other, NUL and multi-byte characters, no data, as strings
    /// compare.
    #[test]
    fn name_order_is_the_order_of_the_strings(
        rows in proptest::collection::vec(
            (
                "[ab]{0,2}",
                proptest::prop_oneof![
                    "",
                    "[a\u{0}\u{7f}é]{0,20}",
                    "assets/mesh_[0-9]{0,3}(\\.glb)?",
                    "a_long_shared_prefix_of_thirty/[xy\u{0}]{0,14}",
                ],
            ),
            0..60,
        ),
        n in 0usize..70,
    ) {
        let mut rows = rows;
        rows.sort();
        rows.dedup();
        let strings = Strings::new(rows);
        let got = strings.ordered(n);
        let want = strings.sorted(n);
        proptest::prop_assert_eq!(got, want);
    }
}
