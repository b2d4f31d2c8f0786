//! One open recording and its views: the overview, the tree, the table and
//! the scope details, with where the user is (view, frame selection,
//! selected scope). The state is kept per recording while the app runs, and
//! written to the location hash in the browser.

use super::loaded::Loaded;
use super::nav::{
    FrameSel, View, decode_hash, encode_hash, hash_value, sort_option, string_list_option,
};
use super::views::details::{DetailsAction, DetailsPanel};
use super::views::flame::{FlameAction, FlameView};
use super::views::overview::OverviewView;
use super::views::table::{SortCol, TableAction, TableView};
use super::views::timeline::{TimelineAction, TimelineView};
use super::views::tree::{Expand, TreeAction, TreeMode, TreeView};
use crate::engine::analyses::transform::{Stack, Transform};
use crate::engine::analyses::{self, FlameOrder, GroupBy};
use crate::engine::{FrameId, ScopeIdx};
use std::sync::Arc;

/// Rows `puffinLens.ui()` lists, at most.
pub const UI_ROWS: usize = 500;

pub struct Recording {
    pub overview: OverviewView,
    pub tree: TreeView,
    pub table: TableView,
    pub details: Option<DetailsPanel>,
    /// The timeline, indexed when first shown.
    pub timeline: Option<TimelineView>,
    /// The flame graph, merged when first shown.
    pub flame: Option<FlameView>,
    pub view: View,
    pub frames: FrameSel,
    /// The overview's selected frame when `frames` was last synced with it.
    synced_frame: Option<FrameId>,
    /// The overview's range when `frames` was last synced with it.
    synced_range: Option<(FrameId, FrameId)>,
    /// The call-tree transforms the tree, the flame graph and the diff show
    /// (the breadcrumbs under the view bar).
    pub transforms: Stack,
    /// Transforms from the location hash that could not be read (one line).
    pub transform_notice: Option<String>,
}

/// What the views ask of each other, gathered from one frame's clicks.
pub enum Action {
    Select(String),
    Reveal(ScopeIdx),
    /// Zoom the timeline to this instance and highlight it.
    ShowInTimeline(ScopeIdx),
    /// The table of what ran inside this window.
    TableOfWindow(i64, i64),
    CloseDetails,
    /// Push a transform on the stack.
    Transform(Transform),
}

impl From<TimelineAction> for Action {
    fn from(a: TimelineAction) -> Self {
        match a {
            TimelineAction::Select(name) => Action::Select(name),
            TimelineAction::TableOfWindow(lo, hi) => Action::TableOfWindow(lo, hi),
            TimelineAction::Transform(t) => Action::Transform(t),
        }
    }
}

impl From<TreeAction> for Action {
    fn from(a: TreeAction) -> Self {
        match a {
            TreeAction::Select(name) => Action::Select(name),
            TreeAction::ShowInTimeline(i) => Action::ShowInTimeline(i),
            TreeAction::Transform(t) => Action::Transform(t),
        }
    }
}

impl From<TableAction> for Action {
    fn from(a: TableAction) -> Self {
        match a {
            TableAction::Select(name) => Action::Select(name),
            TableAction::Transform(t) => Action::Transform(t),
        }
    }
}

impl From<FlameAction> for Action {
    fn from(a: FlameAction) -> Self {
        match a {
            FlameAction::Select(name) => Action::Select(name),
            FlameAction::Transform(t) => Action::Transform(t),
        }
    }
}

impl From<DetailsAction> for Action {
    fn from(a: DetailsAction) -> Self {
        match a {
            DetailsAction::Select(name) => Action::Select(name),
            DetailsAction::Reveal(i) => Action::Reveal(i),
            DetailsAction::ShowInTimeline(i) => Action::ShowInTimeline(i),
            DetailsAction::Close => Action::CloseDetails,
        }
    }
}

impl Recording {
    pub fn new(loaded: Arc<Loaded>, budget_ms: f64, transforms: Stack) -> Self {
        let overview = OverviewView::new(loaded.clone(), budget_ms);
        let synced_frame = overview.selected();
        // In the browser large trees and tables are built a slice per frame.
        let mut tree = TreeView::new(loaded.clone());
        tree.set_sliced(super::platform::SLICED_VIEWS);
        let mut table = TableView::new(loaded);
        table.set_sliced(super::platform::SLICED_VIEWS);
        Self {
            overview,
            tree,
            table,
            details: None,
            timeline: None,
            flame: None,
            view: View::Overview,
            frames: FrameSel::All,
            synced_frame,
            synced_range: None,
            transforms,
            transform_notice: None,
        }
    }

    /// Pushes `t` on the transform stack (an equal one already there is
    /// not pushed twice).
    pub fn push_transform(&mut self, t: Transform) {
        if !self.transforms.0.contains(&t) {
            self.transforms.0.push(t);
        }
    }

    /// Pops the last transform; false when there is none.
    pub fn pop_transform(&mut self) -> bool {
        self.transforms.0.pop().is_some()
    }

    /// What the transforms matched nothing of, in the view shown.
    pub fn transform_warnings(&self) -> Vec<String> {
        match self.view {
            View::Flame => Vec::new(),
            _ => self.tree.transform_warnings().to_vec(),
        }
    }

    pub fn loaded(&self) -> &Arc<Loaded> {
        self.overview.loaded()
    }

    /// The frame frame-mode shows: the selection's when it is one frame,
    /// else the overview's selected frame.
    pub fn focus_frame(&self) -> Option<FrameId> {
        match self.frames {
            FrameSel::One(f) => Some(f),
            _ => self.overview.selected(),
        }
    }

    /// Follows the overview's clicks (a frame, or a dragged range) and
    /// brings the shown view's derived data up to date. Cheap when nothing
    /// changed.
    pub fn sync(&mut self, filter: &str, substring: bool) {
        // A window clicked or dragged on an unframed recording's run chart
        // opens the timeline on it.
        let window = self.overview.take_window();
        if window.is_some() {
            self.view = View::Timeline;
        }
        if self.overview.selected() != self.synced_frame {
            self.synced_frame = self.overview.selected();
            if let Some(f) = self.synced_frame {
                self.frames = FrameSel::One(f);
            }
        }
        if self.overview.range() != self.synced_range {
            self.synced_range = self.overview.range();
            if let Some((a, b)) = self.synced_range {
                self.frames = FrameSel::Range(a, b);
            }
        }
        let positions = self.frames.positions(self.loaded().trace());
        let stack = self.transforms.clone();
        match self.view {
            View::Tree => {
                self.tree.set_transforms(&stack);
                match self.tree.mode() {
                    TreeMode::Merged => self.tree.set_merged_frames(positions),
                    TreeMode::Frame => self.tree.set_frame(self.focus_frame()),
                }
                self.tree.set_filter(filter, substring);
            }
            View::Table => {
                let (thread, by) = (self.table.thread().map(str::to_owned), self.table.by());
                self.table.set_inputs(positions, thread, by);
                self.table.set_filter(filter, substring);
            }
            View::Timeline => {
                let gap_ns = (self.tree.gap_ms() * 1e6).round() as i64;
                let timeline = self.timeline_mut();
                timeline.set_fit(positions);
                timeline.set_gap_ns(gap_ns);
                timeline.set_filter(filter, substring);
                timeline.set_transforms(&stack);
                if let Some((lo, hi)) = window {
                    timeline.set_range(lo, hi);
                }
            }
            View::Flame => {
                let flame = self.flame_mut();
                let thread = flame.thread().map(str::to_owned);
                flame.set_inputs(positions, thread);
                flame.set_transforms(&stack);
                flame.set_filter(filter, substring);
            }
            View::Overview | View::Diff | View::Findings => {}
        }
    }

    /// The flame graph, merged on first use (for the frame selection then:
    /// not all frames first and the selection after).
    pub fn flame_mut(&mut self) -> &mut FlameView {
        let loaded = self.loaded().clone();
        let positions = self.frames.positions(loaded.trace());
        self.flame
            .get_or_insert_with(|| FlameView::new(loaded, positions))
    }

    /// The timeline, indexed on first use (in the browser a slice per
    /// frame as it is shown).
    pub fn timeline_mut(&mut self) -> &mut TimelineView {
        let gap_ns = (self.tree.gap_ms() * 1e6).round() as i64;
        let loaded = self.loaded().clone();
        self.timeline.get_or_insert_with(|| {
            if super::platform::SLICED_VIEWS {
                TimelineView::sliced(loaded, gap_ns)
            } else {
                TimelineView::new(loaded, gap_ns)
            }
        })
    }

    /// Selects frame `f` everywhere (overview, tree, table).
    pub fn select_frame(&mut self, f: Option<FrameId>) {
        self.overview.select(f);
        self.synced_frame = self.overview.selected();
        self.frames = match f {
            Some(f) => FrameSel::One(f),
            None => FrameSel::All,
        };
    }

    pub fn apply(&mut self, action: Action) {
        match action {
            Action::Select(name) => {
                self.select_scope(&name);
            }
            Action::Reveal(i) => {
                let f = self.loaded().trace().scope_frame(i);
                self.select_frame(Some(f));
                self.view = View::Tree;
                self.tree.reveal(i);
            }
            Action::ShowInTimeline(i) => {
                let f = self.loaded().trace().scope_frame(i);
                self.select_frame(Some(f));
                self.view = View::Timeline;
                let positions = self.frames.positions(self.loaded().trace());
                let timeline = self.timeline_mut();
                timeline.set_fit(positions);
                timeline.show_instance(i);
            }
            Action::TableOfWindow(lo, hi) => {
                self.table.set_window(Some((lo, hi)));
                self.view = View::Table;
            }
            Action::CloseDetails => self.details = None,
            Action::Transform(t) => self.push_transform(t),
        }
    }

    /// Opens the details of scope name `name`; false when there is none.
    pub fn select_scope(&mut self, name: &str) -> bool {
        if self.details.as_ref().is_some_and(|d| d.name() == name) {
            return true;
        }
        self.details = DetailsPanel::new(self.loaded().clone(), name);
        self.details.is_some()
    }

    /// `puffinLens.show(view, options)`.
    pub fn show(
        &mut self,
        view: &str,
        options: &serde_json::Value,
        app_filter: &mut String,
        substring: bool,
    ) -> Result<(), String> {
        let view = View::parse(view).ok_or_else(|| {
            format!(
                "show(view): view must be \"findings\", \"overview\", \"tree\", \"table\", \"timeline\", \"flame\" or \"diff\", not {view:?}"
            )
        })?;
        let opts = match options {
            serde_json::Value::Null => serde_json::Map::new(),
            serde_json::Value::Object(o) => o.clone(),
            other => {
                return Err(format!(
                    "show({view:?}, options): options must be an object, not {other}"
                ));
            }
        };
        let known: &[&str] = match view {
            View::Overview | View::Diff | View::Findings => &[],
            View::Timeline => &["frame", "range_ns", "all"],
            View::Flame => &["frame", "thread", "focus", "order", "sandwich"],
            View::Tree => &["mode", "frame", "expand", "gap_ms"],
            View::Table => &["by", "sort", "descending", "filter", "thread", "frame"],
        };
        if let Some(k) = opts.keys().find(|k| !known.contains(&k.as_str())) {
            return Err(format!(
                "show({:?}): unknown option {k:?} (known: {})",
                view.as_str(),
                known.join(", ")
            ));
        }
        let bad = |k: &str, v: &serde_json::Value| format!("show: bad {k}: {v}");
        let trace = self.loaded().clone();
        let trace = trace.trace();
        self.view = view;
        if let Some(v) = opts.get("frame") {
            match v {
                serde_json::Value::Null => self.frames = FrameSel::All,
                v => {
                    let i = v.as_u64().ok_or_else(|| bad("frame", v))?;
                    let f = analyses::frame_by_index(trace, i)
                        .ok_or_else(|| format!("show: no frame with frame_index {i}"))?;
                    self.select_frame(Some(f));
                }
            }
        }
        match view {
            View::Tree => {
                if let Some(v) = opts.get("mode") {
                    let mode = v
                        .as_str()
                        .and_then(TreeMode::parse)
                        .ok_or_else(|| bad("mode", v))?;
                    self.tree.set_mode(mode);
                }
                if let Some(v) = opts.get("gap_ms") {
                    self.tree
                        .set_gap_ms(v.as_f64().ok_or_else(|| bad("gap_ms", v))?);
                }
                self.sync(app_filter, substring);
                if let Some(v) = opts.get("expand") {
                    let how = match v {
                        serde_json::Value::String(s) if s == "all" => Expand::All,
                        serde_json::Value::String(s) if s == "hot" => Expand::Hot,
                        v => Expand::Levels(
                            v.as_u64()
                                .ok_or_else(|| bad("expand", v))?
                                .min(u32::MAX as u64) as u32,
                        ),
                    };
                    self.tree.expand(how);
                }
            }
            View::Table => {
                if let Some(v) = opts.get("filter") {
                    *app_filter = v.as_str().ok_or_else(|| bad("filter", v))?.to_owned();
                }
                let by = match opts.get("by") {
                    Some(v) => match v.as_str() {
                        Some("name") => GroupBy::Name,
                        Some("name-data") => GroupBy::NameData,
                        _ => return Err(bad("by", v)),
                    },
                    None => self.table.by(),
                };
                let thread = match opts.get("thread") {
                    Some(serde_json::Value::Null) => None,
                    Some(v) => Some(v.as_str().ok_or_else(|| bad("thread", v))?.to_owned()),
                    None => self.table.thread().map(str::to_owned),
                };
                let positions = self.frames.positions(trace);
                self.table.set_inputs(positions, thread, by);
                if let Some((col, desc)) =
                    sort_option(&opts, SortCol::parse, |c| c == SortCol::Name)?
                {
                    self.table.set_sort(col, desc);
                }
                self.sync(app_filter, substring);
            }
            View::Timeline => {
                if opts.get("all").is_some_and(|v| v.as_bool() == Some(true)) {
                    self.frames = FrameSel::All;
                }
                self.sync(app_filter, substring);
                let timeline = self.timeline_mut();
                if let Some(v) = opts.get("range_ns") {
                    let pair = v.as_array().filter(|a| a.len() == 2);
                    let (lo, hi) = match pair.map(|a| (a[0].as_i64(), a[1].as_i64())) {
                        Some((Some(lo), Some(hi))) if hi > lo => (lo, hi),
                        _ => return Err(bad("range_ns", v)),
                    };
                    timeline.set_range(lo, hi);
                } else {
                    timeline.fit_all();
                }
            }
            View::Flame => {
                let thread = match opts.get("thread") {
                    Some(serde_json::Value::Null) => None,
                    Some(v) => Some(v.as_str().ok_or_else(|| bad("thread", v))?.to_owned()),
                    None => self
                        .flame
                        .as_ref()
                        .and_then(|f| f.thread().map(str::to_owned)),
                };
                let order = match opts.get("order") {
                    Some(v) => Some(
                        v.as_str()
                            .and_then(FlameOrder::parse)
                            .ok_or_else(|| bad("order", v))?,
                    ),
                    None => None,
                };
                let focus = match opts.get("focus") {
                    None => None,
                    Some(v) => Some(string_list_option(v).ok_or_else(|| bad("focus", v))?),
                };
                let positions = self.frames.positions(trace);
                let flame = self.flame_mut();
                flame.set_inputs(positions, thread);
                if let Some(order) = order {
                    flame.set_order(order);
                }
                if let Some(path) = focus {
                    flame.set_focus(path);
                }
                match opts.get("sandwich") {
                    None => {}
                    Some(serde_json::Value::Null) => flame.set_sandwich(None),
                    Some(v) => flame.set_sandwich(Some(
                        v.as_str().ok_or_else(|| bad("sandwich", v))?.to_owned(),
                    )),
                }
                self.sync(app_filter, substring);
            }
            View::Overview | View::Diff | View::Findings => {}
        }
        Ok(())
    }

    /// `puffinLens.ui()`: what the app shows now, read from the views' own
    /// row vectors.
    pub fn ui_json(&self, filter: &str) -> serde_json::Value {
        let trace = self.loaded().trace();
        let fi = |f: FrameId| trace.frames.frame_index[f.idx()];
        let frame = match self.frames {
            FrameSel::All => serde_json::Value::Null,
            FrameSel::One(f) => fi(f).into(),
            FrameSel::Range(a, b) => serde_json::json!([fi(a.min(b)), fi(a.max(b))]),
        };
        let rows = match self.view {
            View::Overview | View::Diff | View::Findings | View::Timeline | View::Flame => {
                Vec::new()
            }
            View::Tree => self.tree.rows_json(UI_ROWS),
            View::Table => self.table.rows_json(UI_ROWS),
        };
        let (sort, descending) = self.table.sort();
        let mut value = serde_json::json!({
            "view": self.view.as_str(),
            "frame": frame,
            "filter": filter,
            "selected_scope": self.details.as_ref().map(|d| d.name()),
            "tree_mode": self.tree.mode().as_str(),
            "tree_frame": self.tree.frame().map(fi),
            "tree_building": self.tree.building(),
            "table": {
                "by": match self.table.by() { GroupBy::Name => "name", GroupBy::NameData => "name-data" },
                "sort": sort.as_str(),
                "descending": descending,
                "thread": self.table.thread(),
                "rows_total": self.table.rows().len(),
                "building": self.table.building(),
            },
            "gap": self.tree.gap_window().map(|g| serde_json::json!({
                "thread": g.thread, "idle": g.idle, "start_ns": g.start_ns, "end_ns": g.end_ns, "busy": g.busy,
            })),
            "rows": rows,
            "details": self.details.as_ref().map(|d| d.to_json()),
            "transforms": self.transforms,
            "transform_warnings": self.transform_warnings(),
            "transform_notice": self.transform_notice,
        });
        // The flame graph's own state: {thread, focus, order, nodes, …}.
        if let (View::Flame, Some(f), serde_json::Value::Object(out)) =
            (self.view, &self.flame, &mut value)
            && let serde_json::Value::Object(fl) = f.to_json()
        {
            out.extend(fl);
        }
        // The overview's own: {unframed, chart, frame_bars, run}.
        if let (View::Overview, serde_json::Value::Object(out)) = (self.view, &mut value) {
            out.insert("overview".to_owned(), self.overview.to_json());
        }
        // The timeline's own state: {range_ns, lanes, selection}.
        if let (View::Timeline, Some(t), serde_json::Value::Object(out)) =
            (self.view, &self.timeline, &mut value)
            && let serde_json::Value::Object(tl) = t.to_json()
        {
            out.extend(tl);
        }
        value
    }

    /// The location hash for where the user is.
    pub fn hash(&self) -> String {
        let trace = self.loaded().trace();
        let mut pairs = vec![
            ("view", self.view.as_str().to_owned()),
            ("frame", self.frames.to_hash(trace)),
        ];
        if let Some(d) = &self.details {
            pairs.push(("scope", d.name().to_owned()));
        }
        if !self.transforms.is_empty() {
            // Transforms joined by U+001F (percent-encoded in the hash).
            let tf: Vec<String> = self.transforms.0.iter().map(|t| t.to_string()).collect();
            pairs.push(("tf", tf.join("\u{1f}")));
        }
        match self.view {
            View::Tree => pairs.push(("mode", self.tree.mode().as_str().to_owned())),
            View::Table => {
                let (sort, desc) = self.table.sort();
                pairs.push(("sort", sort.as_str().to_owned()));
                pairs.push(("desc", u8::from(desc).to_string()));
                let by = match self.table.by() {
                    GroupBy::Name => "name",
                    GroupBy::NameData => "name-data",
                };
                pairs.push(("by", by.to_owned()));
            }
            View::Flame => {
                if let Some(f) = &self.flame {
                    if let Some(t) = f.thread() {
                        pairs.push(("thread", t.to_owned()));
                    }
                    if !f.focus().is_empty() {
                        // Names joined by U+001F (percent-encoded in the hash).
                        pairs.push(("focus", f.focus().join("\u{1f}")));
                    }
                    pairs.push(("order", f.order().as_str().to_owned()));
                }
            }
            View::Overview | View::Diff | View::Findings | View::Timeline => {}
        }
        encode_hash(&pairs)
    }

    /// Goes where a hash written by [`Self::hash`] says (unknown parts are ignored).
    pub fn apply_hash(&mut self, hash: &str) {
        let trace = self.loaded().clone();
        let trace = trace.trace();
        let pairs = decode_hash(hash);
        let get = |k: &str| hash_value(&pairs, k);
        if let Some(v) = get("view").and_then(View::parse) {
            self.view = v;
        }
        // The stack: what reads, with a notice naming what does not.
        let mut stack = Stack::default();
        let mut bad = Vec::new();
        for item in get("tf")
            .unwrap_or("")
            .split('\u{1f}')
            .filter(|s| !s.is_empty())
        {
            match item.parse::<Transform>() {
                Ok(t) => stack.0.push(t),
                Err(e) => bad.push(e),
            }
        }
        // A hash the app wrote always says the view: no `tf` then means none.
        if get("tf").is_some() || get("view").is_some() {
            self.transforms = stack;
        }
        self.transform_notice = (!bad.is_empty())
            .then(|| format!("transforms in the link left out: {}", bad.join("; ")));
        if let Some(sel) = get("frame").and_then(|s| FrameSel::from_hash(s, trace)) {
            match sel {
                FrameSel::One(f) => self.select_frame(Some(f)),
                other => self.frames = other,
            }
        }
        if let Some(mode) = get("mode").and_then(TreeMode::parse) {
            self.tree.set_mode(mode);
        }
        let by = match get("by") {
            Some("name-data") => GroupBy::NameData,
            Some("name") => GroupBy::Name,
            _ => self.table.by(),
        };
        let thread = self.table.thread().map(str::to_owned);
        if self.view == View::Table || get("by").is_some() {
            self.table
                .set_inputs(self.frames.positions(trace), thread, by);
        }
        if let Some(col) = get("sort").and_then(SortCol::parse) {
            let desc = get("desc").map_or(col != SortCol::Name, |d| d == "1");
            self.table.set_sort(col, desc);
        }
        if self.view == View::Flame {
            let positions = self.frames.positions(trace);
            let thread = get("thread").map(str::to_owned);
            let order = get("order").and_then(FlameOrder::parse);
            let focus: Vec<String> = get("focus")
                .map(|f| f.split('\u{1f}').map(str::to_owned).collect())
                .unwrap_or_default();
            let flame = self.flame_mut();
            flame.set_inputs(positions, thread);
            if let Some(order) = order {
                flame.set_order(order);
            }
            flame.set_focus(focus);
        }
        match get("scope") {
            Some(name) => {
                self.select_scope(name);
            }
            None => self.details = None,
        }
    }
}
