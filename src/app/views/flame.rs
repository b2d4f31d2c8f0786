//! The flame graph (key 6): the merged call tree of the frame selection as
//! an icicle, roots at the top, width = share of the shown root's total
//! (the `tree` query's merging and totals), colours by name as in the
//! timeline. All threads side by side (a root per thread name) or one.
//! Click a node to focus it (it becomes the full width; the breadcrumb above
//! goes back up, as does Esc); hover for its numbers; double-click opens its
//! details. The scope filter dims what does not match and states the share
//! that does.
//!
//! Derived data is computed when its inputs change: the merged tree when the
//! frames or the thread do, the layout when the focus, the order or the
//! width do. Drawing walks only the rows in view.

use super::sandwich::{NameTree, TOP_LEVEL, sandwich};
use super::timeline::name_color;
use super::widgets::{breadcrumb, cell_label, transform_menu};
use crate::app::loaded::Loaded;
use crate::app::nav::Matcher;
use crate::engine::analyses::transform::{self, Stack, Target, Transform};
use crate::engine::analyses::{
    FlameLayout, FlameOrder, FlameRect, MergedTree, NodeId, flame_layout, matched_total_ns,
    merged_tree,
};
use crate::units::{count, ms, thread_label};
use egui::{Color32, Pos2, Rect, RichText, Sense, Stroke, vec2};
use std::ops::Range;
use std::sync::Arc;

/// Height of a row.
pub const ROW_HEIGHT: f32 = 18.0;
/// `puffinLens.ui()` lists at most this many nodes.
pub const UI_NODES: usize = 20_000;
/// Nodes laid out at most (those at least a pixel wide; more than any
/// screen shows).
const MAX_RECTS: usize = 200_000;

/// What a click in the flame graph asks of the app.
pub enum FlameAction {
    /// Open the details of this scope name.
    Select(String),
    /// Push this transform on the stack (a bar's menu).
    Transform(Transform),
}

pub struct FlameView {
    loaded: Arc<Loaded>,
    frames: Range<u32>,
    /// One thread (by name), or all side by side.
    thread: Option<String>,
    order: FlameOrder,
    /// The focused node as names from its thread down (empty: the roots).
    focus: Vec<String>,
    /// The merged tree through `stack`.
    tree: MergedTree,
    /// The tree as merged, while a stack is applied.
    base: Option<MergedTree>,
    stack: Stack,
    /// The focused node in `tree` (`None`: the roots).
    focus_node: Option<NodeId>,
    layout: FlameLayout,
    /// The width (points) the layout was made for.
    layout_width: f32,
    filter: (String, bool),
    /// Per node of `tree`: whether its name matches the filter.
    matches: Vec<bool>,
    /// The matched share of the shown root, with the root's label.
    share: Option<(f64, String)>,
    hovered: Option<NodeId>,
    /// Thread names for the picker.
    thread_names: Vec<String>,
    /// Where the graph was last painted (its full height; for tests).
    canvas: Rect,
    /// The sandwich shown instead of the graph: a scope name's callers
    /// (inverted) above it and its callees below.
    sandwich: Option<Sandwich>,
    /// The bar whose menu is open.
    menu_node: Option<NodeId>,
}

/// A scope name's callers and callees, laid out.
struct Sandwich {
    name: String,
    callers: NameTree,
    callees: NameTree,
    callers_layout: FlameLayout<u32>,
    callees_layout: FlameLayout<u32>,
}

impl FlameView {
    /// The flame graph of frames `frames` (positions), all threads: merged
    /// once, for the selection it is first shown with.
    pub fn new(loaded: Arc<Loaded>, frames: Range<u32>) -> Self {
        let trace = loaded.trace();
        let mut thread_names: Vec<String> = (0..trace.threads.len())
            .map(|t| trace.str(trace.threads.name[t]).to_owned())
            .collect();
        thread_names.sort();
        thread_names.dedup();
        let tree = merged_tree(trace, frames.clone(), None);
        let mut view = Self {
            loaded,
            frames,
            thread: None,
            order: FlameOrder::Heavy,
            focus: Vec::new(),
            tree,
            base: None,
            stack: Stack::default(),
            focus_node: None,
            layout: FlameLayout::default(),
            layout_width: 1000.0,
            filter: (String::new(), false),
            matches: Vec::new(),
            share: None,
            hovered: None,
            thread_names,
            canvas: Rect::NOTHING,
            sandwich: None,
            menu_node: None,
        };
        view.relayout();
        view
    }

    pub fn thread(&self) -> Option<&str> {
        self.thread.as_deref()
    }

    pub fn order(&self) -> FlameOrder {
        self.order
    }

    /// The focused node's names, from its thread down (empty: none).
    pub fn focus(&self) -> &[String] {
        &self.focus
    }

    pub fn tree(&self) -> &MergedTree {
        &self.tree
    }

    /// What is painted (after `ensure_layout`).
    pub fn layout(&self) -> &FlameLayout {
        &self.layout
    }

    /// The centre of a laid-out node on the last paint.
    pub fn node_center(&self, r: &FlameRect) -> Pos2 {
        let (x0, x1) = Self::x_range(self.canvas, r);
        Pos2::new(
            (x0 + x1) / 2.0,
            self.canvas.top() + (r.depth as f32 + 0.5) * ROW_HEIGHT,
        )
    }

    /// The matched share of the shown root and the root's label.
    pub fn share(&self) -> Option<&(f64, String)> {
        self.share.as_ref()
    }

    /// The frames (positions) and thread the graph merges; recomputes the
    /// tree when either changed.
    pub fn set_inputs(&mut self, frames: Range<u32>, thread: Option<String>) {
        if frames == self.frames && thread == self.thread {
            return;
        }
        let started = web_time::Instant::now();
        self.frames = frames;
        self.thread = thread;
        self.merge();
        self.resolve_focus();
        self.refresh_matches();
        self.relayout();
        let name = self.sandwich.take().map(|s| s.name);
        self.set_sandwich(name);
        log::debug!(
            "flame graph: {} nodes merged in {:.1} ms",
            self.tree.len(),
            started.elapsed().as_secs_f64() * 1e3
        );
    }

    /// Merges the frames and thread (split by data as the stack asks),
    /// then applies the stack.
    fn merge(&mut self) {
        let trace = self.loaded.trace();
        let base = transform::transformed_tree(
            trace,
            self.frames.clone(),
            self.thread.as_deref(),
            u32::MAX,
            &Stack(
                self.stack
                    .0
                    .iter()
                    .filter(|t| matches!(t, Transform::SplitData(_)))
                    .cloned()
                    .collect(),
            ),
        )
        .tree;
        self.base = Some(base);
        self.transform();
    }

    /// `tree` from `base` through the stack.
    fn transform(&mut self) {
        self.menu_node = None;
        let base = match self.base.take() {
            Some(b) => b,
            None => std::mem::take(&mut self.tree),
        };
        if self.stack.is_empty() {
            self.tree = base;
        } else {
            self.tree = transform::apply(self.loaded.trace(), &base, &self.stack).tree;
            self.base = Some(base);
        }
    }

    /// Shows the graph through `stack`.
    pub fn set_transforms(&mut self, stack: &Stack) {
        if &self.stack == stack {
            return;
        }
        let remerge = self.stack.splits() != stack.splits();
        self.stack = stack.clone();
        if remerge {
            self.merge();
        } else {
            self.transform();
        }
        self.resolve_focus();
        self.refresh_matches();
        self.relayout();
        let name = self.sandwich.take().map(|s| s.name);
        self.set_sandwich(name);
    }

    pub fn set_order(&mut self, order: FlameOrder) {
        if order != self.order {
            self.order = order;
            self.relayout();
        }
    }

    /// Focuses the node with these names from its thread down (empty: the
    /// roots); a path not in the tree focuses as deep as it goes.
    pub fn set_focus(&mut self, path: Vec<String>) {
        self.focus = path;
        self.resolve_focus();
        self.refresh_share();
        self.relayout();
    }

    /// Focuses one level up (Esc); false when nothing is focused.
    pub fn focus_up(&mut self) -> bool {
        if self.focus.is_empty() {
            return false;
        }
        let mut up = self.focus.clone();
        up.pop();
        self.set_focus(up);
        true
    }

    fn resolve_focus(&mut self) {
        let trace = self.loaded.trace();
        let t = &self.tree;
        let mut node: Option<NodeId> = None;
        let mut kept = 0;
        for name in &self.focus {
            let candidates: &[NodeId] = match node {
                None => &t.threads,
                Some(n) => t.children(n),
            };
            match candidates.iter().find(|&&c| t.label(trace, c) == name) {
                Some(&c) => {
                    node = Some(c);
                    kept += 1;
                }
                None => break,
            }
        }
        self.focus.truncate(kept);
        self.focus_node = node;
    }

    pub fn set_filter(&mut self, filter: &str, substring: bool) {
        if self.filter.0 == filter && self.filter.1 == substring {
            return;
        }
        self.filter = (filter.to_owned(), substring);
        self.refresh_matches();
    }

    fn refresh_matches(&mut self) {
        let trace = self.loaded.trace();
        let matcher = Matcher::new(&self.filter.0, self.filter.1);
        if matcher.is_empty() {
            self.matches.clear();
        } else {
            let t = &self.tree;
            let is_thread = |n: usize| t.parent[n] == u32::MAX;
            self.matches = (0..t.len())
                .map(|n| !is_thread(n) && matcher.test(t.label(trace, NodeId(n as u32))))
                .collect();
        }
        self.refresh_share();
    }

    fn refresh_share(&mut self) {
        if self.matches.is_empty() {
            self.share = None;
            return;
        }
        let roots = self.roots();
        let total: i64 = roots
            .iter()
            .map(|r| self.tree.total_ns[r.idx()].max(0))
            .sum();
        let matched = matched_total_ns(&self.tree, &roots, &|n| self.matches[n.idx()]);
        let label = match self.focus_node {
            Some(n) => self.label(n).to_owned(),
            None if self.thread.is_some() => {
                thread_label(self.thread.as_deref().unwrap_or("")).to_owned()
            }
            None => "all threads".to_owned(),
        };
        let share = if total > 0 {
            matched as f64 / total as f64
        } else {
            0.0
        };
        self.share = Some((share, label));
    }

    /// The nodes the full width stands for.
    fn roots(&self) -> Vec<NodeId> {
        match self.focus_node {
            Some(n) => vec![n],
            None => self.tree.threads.clone(),
        }
    }

    fn label(&self, n: NodeId) -> &str {
        let s = self.tree.label(self.loaded.trace(), n);
        if self.tree.parent[n.idx()] == u32::MAX {
            thread_label(s)
        } else {
            s
        }
    }

    /// The names from the thread down to `n`, as the `tree` query writes
    /// them (an unnamed thread is `""`).
    pub fn path_names(&self, n: NodeId) -> Vec<String> {
        let trace = self.loaded.trace();
        self.tree
            .path(n)
            .into_iter()
            .map(|p| self.tree.label(trace, p).to_owned())
            .collect()
    }

    /// Lays out for `width` points when it changed (the inputs re-lay out
    /// at once, so the layout always belongs to the tree shown).
    pub fn ensure_layout(&mut self, width: f32) {
        let width = width.max(50.0);
        if (width - self.layout_width).abs() >= 0.5 {
            self.layout_width = width;
            self.relayout();
            let name = self.sandwich.take().map(|s| s.name);
            self.set_sandwich(name);
        }
    }

    /// Shows the sandwich of scope name `name` (its callers above it, its
    /// callees below) instead of the graph; `None` goes back to the graph.
    pub fn set_sandwich(&mut self, name: Option<String>) {
        self.sandwich = name.map(|name| {
            let (callers, callees) = sandwich(&self.tree, self.loaded.trace(), &name);
            let min = 1.0 / self.layout_width as f64;
            Sandwich {
                callers_layout: callers.layout(min),
                callees_layout: callees.layout(min),
                name,
                callers,
                callees,
            }
        });
    }

    /// The scope name whose sandwich is shown.
    pub fn sandwich_name(&self) -> Option<&str> {
        self.sandwich.as_ref().map(|s| s.name.as_str())
    }

    fn relayout(&mut self) {
        let started = web_time::Instant::now();
        let roots = self.roots();
        self.layout = flame_layout(
            &self.tree,
            self.loaded.trace(),
            &roots,
            self.order,
            1.0 / self.layout_width as f64,
            MAX_RECTS,
        );
        log::debug!(
            "flame graph: {} of {} nodes laid out in {:.1} ms",
            self.layout.rects.len(),
            self.tree.len(),
            started.elapsed().as_secs_f64() * 1e3
        );
    }

    /// Draws the graph; returns what a click asked for.
    pub fn ui(&mut self, ui: &mut egui::Ui) -> Option<FlameAction> {
        let mut action = None;
        let mut open_sandwich = None;
        self.toolbar(ui);
        let width = ui.available_width();
        self.ensure_layout(width);
        if self.sandwich.is_some() {
            return self.sandwich_ui(ui, width);
        }
        let rows = self.layout.rows.max(1);
        let height = rows as f32 * ROW_HEIGHT;
        egui::ScrollArea::vertical()
            .auto_shrink([false, false])
            .show_viewport(ui, |ui, viewport| {
                let (rect, response) = ui.allocate_exact_size(vec2(width, height), Sense::click());
                self.canvas = rect;
                let visible = Rect::from_min_size(
                    rect.min + viewport.min.to_vec2(),
                    vec2(width, viewport.height()),
                );
                self.paint(ui, rect, visible);
                let hit = response
                    .hover_pos()
                    .and_then(|p| self.hit(rect, p))
                    .map(|r| r.node);
                self.hovered = hit;
                if let Some(n) = hit {
                    response
                        .clone()
                        .on_hover_ui_at_pointer(|ui| self.tooltip(ui, n));
                    if self.tree.parent[n.idx()] != u32::MAX {
                        let (s, enter) = ui.input(|i| {
                            (i.key_pressed(egui::Key::S), i.key_pressed(egui::Key::Enter))
                        });
                        if s {
                            open_sandwich = Some(self.label(n).to_owned());
                        }
                        if enter {
                            action = Some(FlameAction::Select(self.label(n).to_owned()));
                        }
                    }
                }
                // The menu is of the bar right-clicked (the pointer then
                // moves into the menu).
                if response.secondary_clicked() {
                    self.menu_node = hit.filter(|&n| self.tree.parent[n.idx()] != u32::MAX);
                }
                if let Some(n) = self.menu_node {
                    let target = Target::of(self.loaded.trace(), &self.tree, n);
                    response.context_menu(|ui| {
                        if let Some(t) = transform_menu(ui, &target) {
                            action = Some(FlameAction::Transform(t));
                        }
                    });
                }
                if response.double_clicked() {
                    if let Some(n) = hit.filter(|&n| self.tree.parent[n.idx()] != u32::MAX) {
                        action = Some(FlameAction::Select(self.label(n).to_owned()));
                    }
                } else if response.clicked()
                    && let Some(n) = hit
                {
                    let path = self.path_names(n);
                    self.set_focus(path);
                }
            });
        if open_sandwich.is_some() {
            self.set_sandwich(open_sandwich);
        }
        action
    }

    /// The sandwich: callers inverted above the scope's row, callees below.
    fn sandwich_ui(&mut self, ui: &mut egui::Ui, width: f32) -> Option<FlameAction> {
        let Some(sw) = &self.sandwich else {
            return None;
        };
        let mut close = false;
        ui.horizontal(|ui| {
            ui.label(
                RichText::new(format!(
                    "Sandwich of {}: who calls it (above, inverted) and what it calls (below), \
                     over every call",
                    sw.name
                ))
                .strong(),
            );
            close = ui.button("Back to the flame graph").clicked();
        });
        let up = sw.callers_layout.rows.max(1);
        let down = sw.callees_layout.rows.max(1);
        let rows = up + down - 1;
        let mut canvas = Rect::NOTHING;
        egui::ScrollArea::vertical()
            .id_salt("sandwich")
            .auto_shrink([false, false])
            .show(ui, |ui| {
                let (rect, _) =
                    ui.allocate_exact_size(vec2(width, rows as f32 * ROW_HEIGHT), Sense::hover());
                canvas = rect;
                let painter = ui.painter_at(rect.intersect(ui.clip_rect()));
                let draw =
                    |tree: &NameTree, layout: &FlameLayout<u32>, row_of: &dyn Fn(u32) -> u32| {
                        for r in &layout.rects {
                            let y = rect.top() + row_of(r.depth) as f32 * ROW_HEIGHT;
                            let (x0, x1) = (
                                rect.left() + (r.x0 * width as f64) as f32,
                                rect.left() + (r.x1 * width as f64) as f32,
                            );
                            let cell = Rect::from_min_max(
                                Pos2::new(x0, y),
                                Pos2::new(x1, y + ROW_HEIGHT - 1.0),
                            );
                            let name = &tree.name[r.node as usize];
                            let fill = if name == TOP_LEVEL {
                                Color32::from_gray(170)
                            } else {
                                name_color(name)
                            };
                            painter.rect_filled(cell, 1.0, fill);
                            cell_label(&painter, cell, name, Color32::from_gray(20));
                        }
                    };
                draw(&sw.callers, &sw.callers_layout, &|d| up - 1 - d);
                draw(&sw.callees, &sw.callees_layout, &|d| up - 1 + d);
            });
        self.canvas = canvas;
        if close {
            self.set_sandwich(None);
        }
        None
    }

    fn toolbar(&mut self, ui: &mut egui::Ui) {
        ui.horizontal_wrapped(|ui| {
            let mut thread = self.thread.clone();
            egui::ComboBox::from_id_salt("flame_thread")
                .selected_text(match &thread {
                    None => "all threads".to_owned(),
                    Some(t) => format!("thread {}", thread_label(t)),
                })
                .show_ui(ui, |ui| {
                    ui.selectable_value(&mut thread, None, "all threads");
                    for name in &self.thread_names {
                        ui.selectable_value(
                            &mut thread,
                            Some(name.clone()),
                            thread_label(name).to_owned(),
                        );
                    }
                });
            if thread != self.thread {
                let frames = self.frames.clone();
                self.set_inputs(frames, thread);
            }
            let mut order = self.order;
            ui.selectable_value(&mut order, FlameOrder::Heavy, "left-heavy")
                .on_hover_text("Siblings by total time, largest first");
            ui.selectable_value(&mut order, FlameOrder::Name, "by name")
                .on_hover_text("Siblings by name: a call keeps its place between selections");
            self.set_order(order);
            ui.separator();
            // The breadcrumb: the roots, then the focused path.
            if let Some(k) = breadcrumb(ui, &self.focus) {
                let path = self.focus[..k].to_vec();
                self.set_focus(path);
            }
            if let Some((share, root)) = &self.share {
                ui.separator();
                ui.label(
                    RichText::new(format!(
                        "{}: {:.1}% of {root}",
                        self.filter.0,
                        share * 100.0
                    ))
                    .strong(),
                );
            }
        });
        ui.label(
            RichText::new(
                "width = share of the shown total · click a node to focus it, double-click for \
                 its details · the gap under a node is its self time",
            )
            .weak(),
        );
    }

    fn x_range(rect: Rect, r: &FlameRect) -> (f32, f32) {
        let w = rect.width() as f64;
        (
            rect.left() + (r.x0 * w) as f32,
            rect.left() + (r.x1 * w) as f32,
        )
    }

    fn hit(&self, rect: Rect, p: Pos2) -> Option<&FlameRect> {
        if !rect.contains(p) {
            return None;
        }
        let depth = ((p.y - rect.top()) / ROW_HEIGHT).floor() as u32;
        let x = ((p.x - rect.left()) / rect.width().max(1.0)) as f64;
        self.layout.at(depth, x)
    }

    fn paint(&self, ui: &egui::Ui, rect: Rect, visible: Rect) {
        let painter = ui.painter_at(visible);
        let trace = self.loaded.trace();
        let t = &self.tree;
        let first = ((visible.top() - rect.top()) / ROW_HEIGHT).floor().max(0.0) as u32;
        let last = ((visible.bottom() - rect.top()) / ROW_HEIGHT)
            .ceil()
            .max(0.0) as u32;
        let dim = !self.matches.is_empty();
        let text_color = Color32::from_gray(20);
        for depth in first..=last.min(self.layout.rows) {
            let y = rect.top() + depth as f32 * ROW_HEIGHT;
            for r in self.layout.row(depth) {
                let (x0, x1) = Self::x_range(rect, r);
                let cell =
                    Rect::from_min_max(Pos2::new(x0, y), Pos2::new(x1, y + ROW_HEIGHT - 1.0));
                let n = r.node.idx();
                let name = self.label(r.node);
                let is_thread = t.parent[n] == u32::MAX;
                let mut fill = if is_thread {
                    Color32::from_gray(170)
                } else {
                    name_color(t.label(trace, NodeId(n as u32)))
                };
                if dim && !self.matches[n] {
                    fill = fill.gamma_multiply(0.3);
                }
                painter.rect_filled(cell, 1.0, fill);
                if self.hovered == Some(r.node) {
                    painter.rect_stroke(
                        cell,
                        1.0,
                        Stroke::new(1.5, Color32::BLACK),
                        egui::StrokeKind::Inside,
                    );
                }
                cell_label(&painter, cell, name, text_color);
            }
        }
    }

    fn tooltip(&self, ui: &mut egui::Ui, n: NodeId) {
        let t = &self.tree;
        let i = n.idx();
        let thread = t.thread_of(n);
        let pct = |part: i64, whole: i64| {
            if whole > 0 {
                format!("{:.1}%", 100.0 * part as f64 / whole as f64)
            } else {
                "-".to_owned()
            }
        };
        let per_frame = t.total_ns[i] as f64 / t.frames.max(1) as f64;
        ui.strong(self.label(n));
        if t.parent[i] != u32::MAX {
            ui.label(format!(
                "total {} ms · self {} ms · {} calls",
                ms(t.total_ns[i]),
                ms(t.self_ns[i]),
                count(t.count[i])
            ));
            ui.label(format!(
                "{} of the shown total · {} of thread {} · {:.3} ms per frame ({} frames)",
                pct(t.total_ns[i], self.layout.total_ns),
                pct(t.total_ns[i], t.total_ns[thread.idx()]),
                self.label(thread),
                per_frame / 1e6,
                t.frames
            ));
            let trace = self.loaded.trace();
            if let Some(def) = (0..trace.defs.len()).find(|&d| trace.defs.name[d] == t.name[i]) {
                let file = trace.str(trace.defs.file[def]);
                if !file.is_empty() {
                    ui.label(RichText::new(format!("{file}:{}", trace.defs.line[def])).weak());
                }
            }
        } else {
            ui.label(format!(
                "thread total {} ms · {} of the shown total",
                ms(t.total_ns[i]),
                pct(t.total_ns[i], self.layout.total_ns)
            ));
        }
        ui.label(
            RichText::new("click: focus · double-click or Enter: details · S: sandwich").weak(),
        );
    }

    /// What `ui()` reads, for republishing it when it changed.
    pub fn fingerprint(&self, h: &mut impl std::hash::Hasher) {
        use std::hash::Hash as _;
        (&self.thread, &self.focus, self.order.as_str()).hash(h);
        (
            self.layout.rects.len(),
            self.layout.total_ns,
            self.tree.len(),
        )
            .hash(h);
        self.share.as_ref().map(|(s, _)| s.to_bits()).hash(h);
        self.sandwich_name().hash(h);
    }

    /// `puffinLens.ui()` for the flame graph: the laid-out nodes (what is
    /// painted), at most [`UI_NODES`].
    pub fn to_json(&self) -> serde_json::Value {
        let t = &self.tree;
        let nodes: Vec<serde_json::Value> = self
            .layout
            .rects
            .iter()
            .take(UI_NODES)
            .map(|r| {
                let n = r.node.idx();
                serde_json::json!({
                    "depth": r.depth,
                    "path": self.path_names(r.node),
                    "x0": r.x0,
                    "x1": r.x1,
                    "total_ns": t.total_ns[n],
                    "self_ns": t.self_ns[n],
                    "count": t.count[n],
                })
            })
            .collect();
        serde_json::json!({
            "thread": self.thread,
            "focus": if self.focus.is_empty() { serde_json::Value::Null } else { self.focus.clone().into() },
            "order": self.order.as_str(),
            "total_ns": self.layout.total_ns,
            "nodes_total": self.layout.rects.len(),
            "share": self.share.as_ref().map(|(s, root)| serde_json::json!({"share": s, "of": root})),
            "nodes": nodes,
            "sandwich": self.sandwich.as_ref().map(|sw| serde_json::json!({
                "name": sw.name,
                "callers": sandwich_json(&sw.callers, &sw.callers_layout),
                "callees": sandwich_json(&sw.callees, &sw.callees_layout),
            })),
        })
    }
}

/// One side of a sandwich for `ui()`: the laid-out nodes with the names
/// from the scope outwards (up the callers, or down the callees).
fn sandwich_json(tree: &NameTree, layout: &FlameLayout<u32>) -> Vec<serde_json::Value> {
    let mut parent = vec![u32::MAX; tree.name.len()];
    for (p, kids) in tree.children.iter().enumerate() {
        for &k in kids {
            parent[k as usize] = p as u32;
        }
    }
    layout
        .rects
        .iter()
        .map(|r| {
            let mut path = Vec::new();
            let mut n = r.node;
            while n != u32::MAX {
                path.push(tree.name[n as usize].clone());
                n = parent[n as usize];
            }
            path.reverse();
            serde_json::json!({"depth": r.depth, "path": path, "x0": r.x0, "x1": r.x1,
                "total_ns": tree.total_ns[r.node as usize]})
        })
        .collect()
}
