//! The timeline (egui_kittest) on the analyses' scenario: gaps drawn where
//! they are, a window selected on the ruler reports who was busy, a double
//! click fits a bar, zoom keeps the time under the pointer, a click opens
//! the details, and "show in timeline" zooms to an instance.

mod common;

use common::scenario::*;
use common::ui::{click, command, open_scenario, ui_now};
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable as _;
use puffin_lens::app::views::timeline::{LANE_HEADER_HEIGHT, ROW_HEIGHT, Selection};
use puffin_lens::app::views::tree::FrameRow;
use puffin_lens::app::{PuffinLensApp, Side, UiCommand};
use serde_json::{Value, json};

fn opened() -> Harness<'static, PuffinLensApp> {
    // Frames of 1/60 s where it matters: a double click is two clicks within 0.3 s.
    open_scenario(Some(1.0 / 60.0))
}

fn show(h: &mut Harness<'static, PuffinLensApp>, options: Value) -> Value {
    let ui = command(
        h,
        UiCommand::Show {
            view: "timeline".into(),
            options,
        },
    )
    .unwrap_or_else(|e| panic!("show timeline: {e}"));
    // The answer reads the last paint: one more frame paints the new range.
    h.run_steps(2);
    let _ = ui;
    ui_now(h)
}

fn timeline<'a>(
    h: &'a Harness<'static, PuffinLensApp>,
) -> &'a puffin_lens::app::views::timeline::TimelineView {
    h.state()
        .recording(Side::A)
        .unwrap()
        .timeline
        .as_ref()
        .expect("the timeline was shown")
}

/// The centre of depth row `depth` of lane `thread`, at time `t`.
fn at(h: &Harness<'static, PuffinLensApp>, thread: &str, depth: u32, t: i64) -> egui::Pos2 {
    let tl = timeline(h);
    let lane = tl
        .painted()
        .iter()
        .find(|l| l.thread == thread)
        .expect("lane");
    egui::pos2(
        tl.x_of(t),
        lane.top + LANE_HEADER_HEIGHT + depth as f32 * ROW_HEIGHT + ROW_HEIGHT / 2.0,
    )
}

#[test]
fn one_frame_with_its_lanes_and_gaps_where_they_are() {
    let mut h = opened();
    let ui = show(&mut h, json!({"frame": 10}));
    assert_eq!(ui["view"], "timeline");
    assert_eq!(ui["range_ns"], json!([t(0.0), t(20.0)]));
    let lanes: Vec<(&str, u64)> = ui["lanes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| (l["thread"].as_str().unwrap(), l["bars"].as_u64().unwrap()))
        .collect();
    // main: frame, update, render, load; rayon-1: a, b; rayon-2: c, d (frame 10 only).
    assert_eq!(lanes, vec![("main", 4), ("rayon-1", 2), ("rayon-2", 2)]);
    // main's 5 ms gap between update and render (depth 1), 7 ms after load
    // (depth 2), 2 ms at the end of the frame (depth 1).
    let tl = timeline(&h);
    let main = &tl.painted()[0];
    let gaps: Vec<(i64, i64, u32)> = main.gaps.iter().map(|g| (g.0, g.1, g.2)).collect();
    assert_eq!(
        gaps,
        vec![
            (t(5.0), t(10.0), 1),
            (t(11.0), t(18.0), 2),
            (t(18.0), t(20.0), 1)
        ]
    );
    let rect = main.gaps[0].3;
    assert!((rect.left() - tl.x_of(t(5.0))).abs() < 1.0, "{rect:?}");
    assert!((rect.right() - tl.x_of(t(10.0))).abs() < 1.0, "{rect:?}");
    assert!(rect.top() > main.top + LANE_HEADER_HEIGHT + ROW_HEIGHT);

    // Clicking the gap selects its window on every lane.
    let pos = at(&h, "main", 1, t(7.5));
    click(&mut h, pos);
    h.run_steps(2);
    match timeline(&h).selection() {
        Some(Selection::Window {
            lo_ns, hi_ns, busy, ..
        }) => {
            assert_eq!((*lo_ns, *hi_ns), (t(5.0), t(10.0)));
            let busy: Vec<(&str, i64)> = busy
                .iter()
                .map(|b| (b.thread.as_str(), b.busy_ns))
                .collect();
            assert_eq!(
                busy,
                vec![
                    ("main", ns(5.0)),
                    ("rayon-2", ns(4.5)),
                    ("rayon-1", ns(4.0))
                ]
            );
        }
        other => panic!("a window, not {other:?}"),
    }
    h.get_by_label_contains("rayon-2: busy 4.500 ms");

    // The table of that window: what ran entirely inside it (jobs a, b and c).
    h.get_by_label("table of this window").click();
    h.run_steps(3);
    let ui = ui_now(&h);
    assert_eq!(ui["view"], "table");
    let rows: Vec<(&str, u64, i64)> = ui["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["name"].as_str().unwrap(),
                r["count"].as_u64().unwrap(),
                r["total_ns"].as_i64().unwrap(),
            )
        })
        .collect();
    assert_eq!(rows, vec![("job", 3, ns(7.0))]);
    h.get_by_label_contains("only inside a 5.000 ms window");
    h.get_by_label("all time").click();
    h.run_steps(3);
    let ui = ui_now(&h);
    assert_eq!(
        ui["rows"].as_array().unwrap().len(),
        5,
        "frame 10's names: {}",
        ui["rows"]
    );
}

#[test]
fn a_window_dragged_on_the_ruler_reports_the_busy_threads() {
    let mut h = opened();
    show(&mut h, json!({"frame": 10}));
    let tl = timeline(&h);
    let y = tl.canvas().center().y;
    let (from, to) = (tl.x_of(t(5.0)), tl.x_of(t(10.0)));
    h.event(egui::Event::PointerMoved(egui::pos2(from, y)));
    h.step();
    h.event(egui::Event::PointerButton {
        pos: egui::pos2(from, y),
        button: egui::PointerButton::Primary,
        pressed: true,
        modifiers: egui::Modifiers::NONE,
    });
    h.step();
    for k in 1..=6 {
        h.event(egui::Event::PointerMoved(egui::pos2(
            from + (to - from) * k as f32 / 6.0,
            y,
        )));
        h.step();
    }
    h.event(egui::Event::PointerButton {
        pos: egui::pos2(to, y),
        button: egui::PointerButton::Primary,
        pressed: false,
        modifiers: egui::Modifiers::NONE,
    });
    h.run_steps(3);
    let ui = ui_now(&h);
    let sel = &ui["selection"];
    assert_eq!(sel["kind"], "window");
    // Pixel-exact ends: within a pixel's worth of time.
    let px = (t(20.0) - t(0.0)) / timeline(&h).canvas().width() as i64;
    assert!(
        (sel["lo_ns"].as_i64().unwrap() - t(5.0)).abs() <= px,
        "{sel}"
    );
    assert!(
        (sel["hi_ns"].as_i64().unwrap() - t(10.0)).abs() <= px,
        "{sel}"
    );
    let threads: Vec<&str> = sel["busy"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["thread"].as_str().unwrap())
        .collect();
    assert_eq!(threads, ["main", "rayon-2", "rayon-1"]);
    // What ran entirely inside: rayon-1's jobs a and b, rayon-2's c.
    assert_eq!(sel["window"][0]["thread"], "rayon-1");
}

#[test]
fn double_click_fits_a_bar_and_zoom_keeps_the_pointer_time() {
    let mut h = opened();
    // The details panel open first, so the clicks below do not move the canvas.
    command(&mut h, UiCommand::Select("app::render".into())).unwrap();
    show(&mut h, json!({"frame": 10}));
    // Double-click render (10-18 ms, main, depth 1).
    let pos = at(&h, "main", 1, t(14.0));
    click(&mut h, pos);
    click(&mut h, pos);
    h.run_steps(2);
    assert_eq!(timeline(&h).range(), (t(10.0), t(18.0)));
    // The click opened render's details.
    let ui = ui_now(&h);
    assert_eq!(ui["selected_scope"], "app::render");

    // Zoom in around a point: the time under the pointer stays.
    let pos = at(&h, "main", 1, t(12.0));
    let before = timeline(&h).t_of(pos.x);
    h.event(egui::Event::PointerMoved(pos));
    h.step();
    h.event(egui::Event::Zoom(2.0));
    h.run_steps(2);
    let tl = timeline(&h);
    let (lo, hi) = tl.range();
    assert!((hi - lo - ns(4.0)).abs() <= 2, "half the span: {lo}..{hi}");
    let after = tl.t_of(pos.x);
    let px = (hi - lo) / tl.canvas().width() as i64 + 1;
    assert!((after - before).abs() <= px, "{before} vs {after}");
    // F fits the frame again.
    h.key_press(egui::Key::F);
    h.run_steps(2);
    assert_eq!(timeline(&h).range(), (t(0.0), t(20.0)));
}

#[test]
fn show_in_timeline_from_the_details_zooms_to_the_instance() {
    let mut h = opened();
    command(&mut h, UiCommand::Select("load".into())).unwrap();
    // The slowest load (30 ms, frame 12): its "timeline" button.
    h.get_all_by_label("timeline")
        .next()
        .expect("a button")
        .click();
    h.run_steps(3);
    let ui = ui_now(&h);
    assert_eq!(ui["view"], "timeline");
    assert_eq!(ui["frame"], 12);
    assert_eq!(ui["selection"]["kind"], "instance");
    assert_eq!(ui["selection"]["name"], "load");
    assert_eq!(ui["selection"]["duration_ns"], ns(30.0));
    let (lo, hi) = timeline(&h).range();
    assert!(
        lo < t(50.5) && hi > t(80.5) && hi - lo < ns(40.0),
        "{lo}..{hi}"
    );
    // The whole recording, and a range.
    let ui = show(&mut h, json!({"all": true}));
    assert_eq!(ui["range_ns"], json!([t(0.0), t(81.0)]));
    let ui = show(&mut h, json!({"range_ns": [t(1.0), t(2.0)]}));
    assert_eq!(ui["range_ns"], json!([t(1.0), t(2.0)]));
    let err = command(
        &mut h,
        UiCommand::Show {
            view: "timeline".into(),
            options: json!({"range_ns": [5, 1]}),
        },
    )
    .expect_err("refused");
    assert_eq!(err, "show: bad range_ns: [5,1]");

    // From the tree: the selected instance's "Show in timeline".
    command(
        &mut h,
        UiCommand::Show {
            view: "tree".into(),
            options: json!({"mode": "frame", "frame": 10, "expand": "all"}),
        },
    )
    .unwrap();
    let rec = h.state_mut().recording_mut(Side::A).unwrap();
    let render = rec
        .tree
        .frame_rows()
        .iter()
        .copied()
        .find(|r| match r {
            FrameRow::Scope(i) => rec.loaded().trace().scope_name(*i) == "app::render",
            _ => false,
        })
        .expect("render listed");
    rec.tree.select_frame_row(render);
    h.run_steps(2);
    h.get_by_label("Show in timeline").click();
    h.run_steps(3);
    let ui = ui_now(&h);
    assert_eq!(ui["view"], "timeline");
    assert_eq!(ui["selection"]["name"], "app::render");
    assert_eq!(ui["selection"]["start_ns"], t(10.0));
}

/// Zoomed out on 1,000 frames, the frame boundaries are a thinned set (at
/// least 8 points apart), not a line per frame over the lanes; zoomed in,
/// each boundary in view is drawn.
#[test]
fn frame_boundaries_are_thinned_when_zoomed_out() {
    use puffin_lens::app::Settings;
    use puffin_lens::engine::write::puffin::{
        Compression, Format, FrameData, ScopeNode, ThreadData, write_recording,
    };
    const MS: i64 = 1_000_000;
    let t0 = 1_700_000_000_000_000_000i64;
    let frames: Vec<FrameData> = (0..1_000u64)
        .map(|f| {
            let t = t0 + f as i64 * 10 * MS;
            FrameData {
                frame_index: f,
                threads: vec![ThreadData {
                    name: "main".into(),
                    start_time_ns: Some(t0),
                    scopes: vec![ScopeNode::new(1, t, t + 9 * MS)],
                }],
                registrations: Vec::new(),
            }
        })
        .collect();
    let bytes = write_recording(&frames, Format::Pfd4(Compression::Lz4));
    let mut h = common::ui::open_with(None, Settings::default(), "many.puffin", bytes);
    let ui = show(&mut h, json!({"all": true}));
    let width = timeline(&h).canvas().width();
    let lines = ui["frame_lines"].as_u64().unwrap();
    assert!(lines > 10, "some boundaries drawn: {ui}");
    assert!(
        (lines as f32) <= width / 8.0 + 1.0,
        "{lines} lines on a {width}-point canvas"
    );
    // Three frames in view: each of their boundaries.
    let lo = t0 + 100 * 10 * MS - MS;
    let ui = show(&mut h, json!({"range_ns": [lo, lo + 30 * MS]}));
    assert_eq!(ui["frame_lines"], 3, "{ui}");
}

/// What the last frame put on screen, read back without a GPU: the frame's
/// shapes tessellated by egui into the triangles a renderer gets, then the
/// pixel centres of one scanline filled from them (premultiplied alpha
/// blended in painting order, the top-left rule on shared edges; text left
/// out). `colour[c]` is the pixel at x = `x0 + c`.
mod screen {
    use egui::{Color32, Pos2};
    use egui_kittest::Harness;
    use puffin_lens::app::PuffinLensApp;

    /// A triangle: its corners and their colours.
    type Triangle = [(Pos2, Color32); 3];

    pub struct Frame {
        /// Per mesh: its clip rect and triangles.
        meshes: Vec<(egui::Rect, Vec<Triangle>)>,
    }

    /// The last frame's triangles.
    pub fn frame(h: &Harness<'static, PuffinLensApp>) -> Frame {
        let out = h.output();
        let ppp = out.pixels_per_point;
        assert_eq!(ppp, 1.0, "a point is a pixel here");
        let prims = h.ctx.tessellate(out.shapes.clone(), ppp);
        let meshes = prims
            .into_iter()
            .filter_map(|p| match p.primitive {
                egui::epaint::Primitive::Mesh(mesh) => {
                    let tris = mesh
                        .indices
                        .chunks_exact(3)
                        .map(|t| [t[0], t[1], t[2]].map(|i| mesh.vertices[i as usize]))
                        // Glyphs sample the font atlas; shapes its white texel.
                        .filter(|t| t.iter().all(|v| v.uv == egui::epaint::WHITE_UV))
                        .map(|t| t.map(|v| (v.pos, v.color)))
                        .collect();
                    Some((p.clip_rect, tris))
                }
                egui::epaint::Primitive::Callback(_) => None,
            })
            .collect();
        Frame { meshes }
    }

    impl Frame {
        /// The pixels of the scanline through `y` (a pixel's centre is at
        /// `.5`), columns `x0..x1`.
        pub fn scanline(&self, y: f32, x0: i32, x1: i32) -> Vec<Color32> {
            let y = y.floor() + 0.5;
            let n = (x1 - x0).max(0) as usize;
            let mut px = vec![[0.0f32; 4]; n];
            for (clip, tris) in &self.meshes {
                if y < clip.top() || y >= clip.bottom() {
                    continue;
                }
                for t in tris {
                    let (ylo, yhi) = (
                        t.iter().map(|v| v.0.y).fold(f32::MAX, f32::min),
                        t.iter().map(|v| v.0.y).fold(f32::MIN, f32::max),
                    );
                    if y < ylo || y > yhi {
                        continue;
                    }
                    let xlo = t.iter().map(|v| v.0.x).fold(f32::MAX, f32::min);
                    let xhi = t.iter().map(|v| v.0.x).fold(f32::MIN, f32::max);
                    let lo = (xlo.max(clip.left()).floor() as i32).max(x0);
                    let hi = (xhi.min(clip.right()).ceil() as i32).min(x1);
                    for x in lo..hi {
                        let p = Pos2::new(x as f32 + 0.5, y);
                        if p.x < clip.left() || p.x >= clip.right() {
                            continue;
                        }
                        if let Some(c) = inside(t, p) {
                            let d = &mut px[(x - x0) as usize];
                            let a = c[3];
                            for k in 0..4 {
                                d[k] = c[k] + d[k] * (1.0 - a);
                            }
                        }
                    }
                }
            }
            px.iter()
                .map(|c| {
                    let b = |v: f32| (v * 255.0).round().clamp(0.0, 255.0) as u8;
                    Color32::from_rgba_premultiplied(b(c[0]), b(c[1]), b(c[2]), b(c[3]))
                })
                .collect()
        }
    }

    /// The interpolated premultiplied colour (0-1) of triangle `t` at `p`,
    /// if `p` is inside or on an edge (a point on an edge two triangles
    /// share counts twice: the same for an opaque fill, darker for a faint
    /// one, which is what is counted below).
    fn inside(t: &Triangle, p: Pos2) -> Option<[f32; 4]> {
        let [(a, ca), (b, cb), (c, cc)] = *t;
        let cross = |u: Pos2, v: Pos2, q: Pos2| (v - u).x * (q - u).y - (v - u).y * (q - u).x;
        let area = cross(a, b, c);
        if area.abs() < 1e-9 {
            return None;
        }
        let ws = [
            cross(b, c, p) / area,
            cross(c, a, p) / area,
            cross(a, b, p) / area,
        ];
        if ws.iter().any(|&w| w < -1e-6) {
            return None;
        }
        let f = |c: Color32| c.to_array().map(|v| v as f32 / 255.0);
        let (fa, fb, fc) = (f(ca), f(cb), f(cc));
        Some(std::array::from_fn(|k| {
            ws[0] * fa[k] + ws[1] * fb[k] + ws[2] * fc[k]
        }))
    }
}

/// One depth row of a lane as the screen shows it zoomed out.
#[derive(Debug)]
struct RowShare {
    depth: u32,
    /// Columns where the lane has scope time at this depth.
    busy: usize,
    /// Of them, those whose pixel is a scope name's colour at full strength.
    full: usize,
    /// Columns without scope time whose pixel is grey (neither the
    /// background nor a hue: a line).
    grey_idle: usize,
    idle_columns: usize,
}

/// Per depth row of lane `thread` (the only lane of that name), what the
/// last frame's pixels show against where the recording has scope time.
fn row_shares(h: &Harness<'static, PuffinLensApp>, thread: &str) -> Vec<RowShare> {
    use puffin_lens::app::views::timeline::name_color;
    use puffin_lens::engine::ScopeIdx;
    let tl = timeline(h);
    let trace = h.state().recording(Side::A).unwrap().loaded().trace();
    let lane = tl
        .painted()
        .iter()
        .find(|l| l.thread == thread)
        .expect("lane");
    let canvas = tl.canvas();
    let (x0, x1) = (canvas.left().ceil() as i32, canvas.right().floor() as i32);
    let n = (x1 - x0) as usize;
    let mut colours: Vec<egui::Color32> = (0..trace.defs.len())
        .map(|d| name_color(trace.str(trace.defs.name[d])))
        .collect();
    colours.sort_by_key(|c| c.to_array());
    colours.dedup();
    let is_scope = |c: egui::Color32| {
        colours.iter().any(|k| {
            c.a() == 255
                && k.to_array()
                    .iter()
                    .zip(c.to_array())
                    .all(|(&a, b)| a.abs_diff(b) <= 2)
        })
    };
    let frame = screen::frame(h);
    let s = &trace.scopes;
    (0..lane.depth as u32)
        .map(|d| {
            let mut busy = vec![false; n];
            for i in 0..s.len() {
                if s.depth[i] != d
                    || trace.thread_name(trace.scope_thread(ScopeIdx(i as u32))) != thread
                {
                    continue;
                }
                let (a, b) = (
                    tl.x_of(s.start_ns[i]),
                    tl.x_of(s.end_ns(ScopeIdx(i as u32))),
                );
                let (ca, cb) = (
                    a.floor() as i32,
                    (b.ceil() as i32).max(a.floor() as i32 + 1),
                );
                for c in ca.max(x0)..cb.min(x1) {
                    busy[(c - x0) as usize] = true;
                }
            }
            let y = lane.top + LANE_HEADER_HEIGHT + (d as f32 + 0.5) * ROW_HEIGHT;
            let line = frame.scanline(y, x0, x1);
            // The background: the most common colour where nothing ran.
            let mut idle: Vec<[u8; 4]> = (0..n)
                .filter(|&c| !busy[c])
                .map(|c| line[c].to_array())
                .collect();
            idle.sort_unstable();
            let bg = idle
                .chunk_by(|a, b| a == b)
                .max_by_key(|run| run.len())
                .map(|run| run[0]);
            let mut row = RowShare {
                depth: d,
                busy: 0,
                full: 0,
                grey_idle: 0,
                idle_columns: 0,
            };
            for c in 0..n {
                if busy[c] {
                    row.busy += 1;
                    row.full += usize::from(is_scope(line[c]));
                } else {
                    row.idle_columns += 1;
                    let p = line[c].to_array();
                    let spread = p[..3].iter().max().unwrap() - p[..3].iter().min().unwrap();
                    if spread < 8 && Some(p) != bg {
                        row.grey_idle += 1;
                    }
                }
            }
            row
        })
        .collect()
}

/// Vertical line segments the last frame drew across lane `thread`'s rows.
fn lines_across_rows(h: &Harness<'static, PuffinLensApp>, thread: &str) -> usize {
    let tl = timeline(h);
    let lane = tl
        .painted()
        .iter()
        .find(|l| l.thread == thread)
        .expect("lane");
    let rows = (lane.top + LANE_HEADER_HEIGHT)
        ..(lane.top + LANE_HEADER_HEIGHT + lane.depth as f32 * ROW_HEIGHT);
    fn walk(shape: &egui::Shape, out: &mut Vec<[egui::Pos2; 2]>) {
        match shape {
            egui::Shape::LineSegment { points, .. } => out.push(*points),
            egui::Shape::Vec(v) => v.iter().for_each(|s| walk(s, out)),
            _ => {}
        }
    }
    let mut segments = Vec::new();
    for s in &h.output().shapes {
        walk(&s.shape, &mut segments);
    }
    segments
        .iter()
        .filter(|[a, b]| a.x == b.x && a.y.min(b.y) < rows.end && a.y.max(b.y) > rows.start)
        .count()
}

/// The spaced capture of the browser test (examples/capture.rs): FRAMES
/// frames of 10 ms, a 9 ms scope with two children in each on main, a
/// worker busy once every 100 frames.
fn spaced(frames: u64) -> Vec<u8> {
    use puffin_lens::engine::write::puffin::{
        Compression, Format, FrameData, Registration, ScopeNode, ThreadData, write_recording,
    };
    const MS: i64 = 1_000_000;
    let t0 = 1_700_000_000_000_000_000i64;
    let frames: Vec<FrameData> = (0..frames)
        .map(|f| {
            let t = t0 + f as i64 * 10 * MS;
            let mut root = ScopeNode::new(1, t, t + 9 * MS);
            root.children = vec![
                ScopeNode::new(2, t + MS, t + 4 * MS),
                ScopeNode::new(2, t + 5 * MS, t + 8 * MS),
            ];
            let worker = ThreadData {
                name: "worker".to_owned(),
                start_time_ns: Some(t0),
                scopes: if f % 100 == 0 {
                    vec![ScopeNode::new(2, t + 2 * MS, t + 4 * MS)]
                } else {
                    Vec::new()
                },
            };
            FrameData {
                frame_index: f,
                threads: vec![
                    ThreadData {
                        name: "main".to_owned(),
                        start_time_ns: Some(t0),
                        scopes: vec![root],
                    },
                    worker,
                ],
                registrations: if f == 0 {
                    vec![
                        Registration::function(1, "app::frame", "src/main.rs", 1),
                        Registration::function(2, "app::work", "src/main.rs", 2),
                    ]
                } else {
                    Vec::new()
                },
            }
        })
        .collect();
    write_recording(&frames, Format::Pfd4(Compression::Lz4))
}

/// Zoomed out to the whole recording, each pixel column of a lane's row
/// shows the scope covering most of it at full strength (where a frame's
/// 280 ms bar used to vanish behind a tiny scope starting in the same
/// column, and 1-2 px bars came out as faint feathered lines), and frame
/// boundaries are marked on the ruler, not drawn across the lanes: on the
/// real Viewer capture (43 frames of ~280 ms over 12 s) and on the spaced
/// synthetic one (1,000 frames of 10 ms). Zoomed in to a few frames the
/// boundaries are drawn across the lanes again, behind the bars.
#[test]
fn zoomed_out_each_column_shows_the_scope_that_dominates_it() {
    use puffin_lens::app::Settings;
    let viewer = std::fs::read("tests/fixtures/real/rerun_viewer_plots_a.puffin").unwrap();
    for (name, bytes, threads) in [
        ("viewer.puffin", viewer, ["main", "rayon-0"]),
        ("spaced.puffin", spaced(1000), ["main", "worker"]),
    ] {
        let mut h = common::ui::open_with(None, Settings::default(), name, bytes);
        let ui = show(&mut h, json!({"all": true}));
        assert!(ui["frame_lines"].as_u64().unwrap() > 10, "{name}: {ui}");
        for thread in threads {
            let rows = row_shares(&h, thread);
            assert!(!rows.is_empty(), "{name} {thread}");
            let busy: usize = rows.iter().map(|r| r.busy).sum();
            let full: usize = rows.iter().map(|r| r.full).sum();
            assert!(busy > 0, "{name} {thread}: {rows:?}");
            assert!(full * 10 >= busy * 9, "{name} {thread}: {rows:?}");
            for r in &rows {
                assert!(
                    r.full * 10 >= r.busy * 9,
                    "{name} {thread} depth {}: {r:?}",
                    r.depth
                );
                // Where nothing ran: the background, no line through it.
                assert_eq!(r.grey_idle, 0, "{name} {thread}: {r:?}");
            }
            assert_eq!(lines_across_rows(&h, thread), 0, "{name} {thread}");
        }
        // The top-level row spans the frames: coloured (almost) all along.
        let main = row_shares(&h, "main");
        assert!(
            main[0].busy * 10 >= (main[0].busy + main[0].idle_columns) * 9,
            "{main:?}"
        );
        // Three frames in view: their boundaries across the lanes (behind the bars).
        let trace = h.state().recording(Side::A).unwrap().loaded().trace();
        let frames = &trace.frames.range_ns;
        let (lo, hi) = (frames[10].0 - 1_000, frames[12].1);
        let ui = show(&mut h, json!({"range_ns": [lo, hi]}));
        assert_eq!(ui["frame_lines"], 3, "{name}: {ui}");
        assert_eq!(lines_across_rows(&h, "main"), 3, "{name}");
    }
}

/// How long a repaint of the timeline zoomed out to the whole recording
/// takes natively: the view alone on a headless `egui::Context`, layout and
/// tessellation, as benches/views.rs times it (printed, not asserted: the
/// machine's load is not the code's). `PUFFIN_LENS_TIMELINE_2M=1` adds the
/// bench's 2M-scope capture.
#[test]
fn zoomed_out_repaint_time() {
    use puffin_lens::app::Loaded;
    use puffin_lens::app::views::timeline::TimelineView;
    use puffin_lens::engine::write::puffin::{
        Compression, Format, synthetic_capture, worst_case_capture, write_recording,
    };
    use std::sync::Arc;
    let read = |p: &str| std::fs::read(p).unwrap();
    let mut captures = vec![
        (
            "rerun_viewer_plots_a",
            read("tests/fixtures/real/rerun_viewer_plots_a.puffin"),
        ),
        (
            "rerun_sdk_points",
            read("tests/fixtures/real/rerun_sdk_points.puffin"),
        ),
        ("spaced", spaced(1000)),
        (
            "worst 200k",
            write_recording(
                &worst_case_capture(20, 10_000, 40, 7),
                Format::Pfd4(Compression::Lz4),
            ),
        ),
    ];
    if std::env::var_os("PUFFIN_LENS_TIMELINE_2M").is_some() {
        captures.push((
            "synthetic 2M",
            write_recording(
                &synthetic_capture(200, 3, 10_000),
                Format::Pfd4(Compression::Lz4),
            ),
        ));
    }
    for (name, bytes) in captures {
        let decoded = puffin_lens::engine::decode_puffin(&bytes).expect("decodes");
        let loaded = Arc::new(Loaded::new(name.into(), decoded, bytes.len(), 0.0));
        let started = std::time::Instant::now();
        let mut view = TimelineView::new(loaded.clone(), 1_000_000);
        let index_ms = started.elapsed().as_secs_f64() * 1e3;
        view.fit_all();
        let ctx = egui::Context::default();
        let screen = egui::Rect::from_min_size(egui::Pos2::ZERO, egui::vec2(1400.0, 900.0));
        let mut times = Vec::new();
        for k in 0..25 {
            let raw = egui::RawInput {
                screen_rect: Some(screen),
                ..Default::default()
            };
            let started = std::time::Instant::now();
            let mut out = ctx.run_ui(raw, |ui| {
                view.ui(ui);
            });
            out.textures_delta.clear();
            std::hint::black_box(ctx.tessellate(out.shapes, out.pixels_per_point));
            if k >= 5 {
                times.push(started.elapsed().as_secs_f64() * 1e3);
            }
        }
        let mean = times.iter().sum::<f64>() / times.len() as f64;
        let worst = times.iter().copied().fold(0.0, f64::max);
        let bars: usize = view.painted().iter().map(|l| l.bars).sum();
        eprintln!(
            "timeline zoomed out, {name}: {} scopes, index {index_ms:.1} ms, \
             {mean:.2} ms per frame (worst {worst:.2}), {bars} bars",
            loaded.trace().scopes.len()
        );
    }
}
