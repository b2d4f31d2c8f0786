//! The table view: every scope name (or (name, data)) of the frame
//! selection, with count, total, self, mean, min, median, p95, max and share
//! of the total. The statistics are computed when the frames, the thread or
//! the grouping change; the sorted index when the sort changes; the shown
//! rows when the filter changes. Drawing is virtualized.

use super::widgets::{Pointing, f64_order, i64_order, rows_table, transform_menu, triangle};
use crate::app::loaded::Loaded;
use crate::app::nav::Matcher;
use crate::engine::StrId;
use crate::engine::analyses::transform::{Target, Transform, origin};
use crate::engine::analyses::{GroupBy, NameOrder, ScopeStats, StatsBuilder, StatsRows};
use crate::units::{ms, ms_f, thread_label};
use egui::{RichText, Sense};
use egui_extras::Column;
use std::ops::Range;
use std::sync::Arc;

const ROW_HEIGHT: f32 = 18.0;

/// A sortable column.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SortCol {
    Name,
    Count,
    #[default]
    Total,
    SelfTime,
    Mean,
    Min,
    Median,
    P95,
    Max,
}

impl SortCol {
    pub const ALL: [SortCol; 9] = [
        SortCol::Name,
        SortCol::Count,
        SortCol::Total,
        SortCol::SelfTime,
        SortCol::Mean,
        SortCol::Min,
        SortCol::Median,
        SortCol::P95,
        SortCol::Max,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            SortCol::Name => "name",
            SortCol::Count => "count",
            SortCol::Total => "total",
            SortCol::SelfTime => "self",
            SortCol::Mean => "mean",
            SortCol::Min => "min",
            SortCol::Median => "median",
            SortCol::P95 => "p95",
            SortCol::Max => "max",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        SortCol::ALL.into_iter().find(|c| c.as_str() == s)
    }
}

/// Which field the filter applies to.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum FilterOn {
    #[default]
    Name,
    Data,
}

/// What the statistics depend on: frames, thread, grouping, time window.
type StatsKey = (Range<u32>, Option<String>, GroupBy, Option<(i64, i64)>);

pub struct TableView {
    loaded: Arc<Loaded>,
    by: GroupBy,
    thread: Option<String>,
    sort: SortCol,
    /// Largest first (the default for numbers; names go A to Z).
    descending: bool,
    filter: String,
    substring: bool,
    filter_on: FilterOn,
    /// Only instances inside this time window (from the timeline).
    window: Option<(i64, i64)>,
    /// What `stats` was computed for.
    key: Option<StatsKey>,
    stats: ScopeStats,
    /// Rows in (name, data) string order: the name sort, and how ties break.
    by_name: Vec<u32>,
    /// Each row's position in `by_name`.
    tie_rank: Vec<u32>,
    /// Every row, sorted.
    order: Vec<u32>,
    /// The rows shown: `order` after the filter.
    rows: Vec<u32>,
    selected: Option<u32>,
    /// Thread names of the recording, sorted (the thread picker).
    thread_names: Vec<String>,
    /// While the statistics are computed a slice at a time (in the
    /// browser): the build, when it started and in how many slices so far.
    /// The table is empty until it ends.
    building: Option<TableBuild>,
    /// Whether new inputs are built a slice per frame ([`Self::set_sliced`]).
    sliced: bool,
    build_started: web_time::Instant,
    build_slices: usize,
}

/// The table's statistics built a slice at a time: grouped, then their rows
/// put in (name, data) order (the name sort, and every sort's tie-break),
/// then the first sort.
enum TableBuild {
    Stats(StatsBuilder),
    Order(ScopeStats, NameOrder<u32>),
    Sort(ScopeStats, Vec<u32>),
}

impl TableBuild {
    /// How far along, 0 to 1.
    fn progress(&self) -> f32 {
        match self {
            TableBuild::Stats(b) => 0.7 * b.progress(),
            TableBuild::Order(_, o) => 0.7 + 0.25 * o.progress(),
            TableBuild::Sort(..) => 0.95,
        }
    }
}

/// What a click in the table asks of the app.
pub enum TableAction {
    Select(String),
    /// Push this transform on the stack (a row's menu: the tree, the flame
    /// graph and the diff show it).
    Transform(Transform),
}

impl TableView {
    pub fn new(loaded: Arc<Loaded>) -> Self {
        let trace = loaded.trace();
        let mut thread_names: Vec<String> = (0..trace.threads.len())
            .map(|t| {
                trace
                    .thread_name(crate::engine::ThreadId(t as u32))
                    .to_owned()
            })
            .collect();
        thread_names.sort();
        thread_names.dedup();
        Self {
            loaded,
            by: GroupBy::Name,
            thread: None,
            sort: SortCol::Total,
            descending: true,
            filter: String::new(),
            substring: false,
            filter_on: FilterOn::Name,
            window: None,
            key: None,
            stats: ScopeStats::default(),
            by_name: Vec::new(),
            tie_rank: Vec::new(),
            order: Vec::new(),
            rows: Vec::new(),
            selected: None,
            thread_names,
            building: None,
            sliced: false,
            build_started: web_time::Instant::now(),
            build_slices: 0,
        }
    }

    /// Limits the table to what ran inside `[lo, hi]` (or lifts the limit).
    pub fn set_window(&mut self, window: Option<(i64, i64)>) {
        self.window = window;
    }

    pub fn window(&self) -> Option<(i64, i64)> {
        self.window
    }

    pub fn by(&self) -> GroupBy {
        self.by
    }

    pub fn sort(&self) -> (SortCol, bool) {
        (self.sort, self.descending)
    }

    pub fn thread(&self) -> Option<&str> {
        self.thread.as_deref()
    }

    pub fn stats(&self) -> &ScopeStats {
        &self.stats
    }

    /// The rows shown (indices into [`Self::stats`]), in display order.
    pub fn rows(&self) -> &[u32] {
        &self.rows
    }

    /// Recomputes the statistics if the frames, thread or grouping changed:
    /// at once natively; in the browser a slice per frame ([`Self::step_build`],
    /// which `ui` calls), the first slice now (a small table is done in it).
    pub fn set_inputs(&mut self, frames: Range<u32>, thread: Option<String>, by: GroupBy) {
        if self.start_inputs(frames, thread, by) {
            self.step_build(self.sliced.then_some(super::BUILD_SLICE));
        }
    }

    /// Starts computing the statistics if the frames, thread or grouping
    /// changed (whether they did), to be built by [`Self::step_build`].
    pub fn start_inputs(
        &mut self,
        frames: Range<u32>,
        thread: Option<String>,
        by: GroupBy,
    ) -> bool {
        let key = (frames, thread, by, self.window);
        if self.key.as_ref() == Some(&key) {
            return false;
        }
        let trace = self.loaded.trace();
        self.building = Some(TableBuild::Stats(StatsBuilder::new(
            trace,
            key.0.clone(),
            key.1.as_deref(),
            key.2,
            key.3,
        )));
        self.build_started = web_time::Instant::now();
        self.build_slices = 0;
        self.stats = ScopeStats::default();
        self.by_name.clear();
        self.tie_rank.clear();
        self.order.clear();
        self.rows.clear();
        self.thread = key.1.clone();
        self.by = key.2;
        self.key = Some(key);
        self.selected = None;
        true
    }

    /// Builds the statistics for at most `budget` (all of them when `None`);
    /// whether they are still being built.
    pub fn step_build(&mut self, budget: Option<web_time::Duration>) -> bool {
        if self.building.is_none() {
            return false;
        }
        let started = web_time::Instant::now();
        let mut more = || budget.is_none_or(|b| started.elapsed() < b);
        let loaded = self.loaded.clone();
        let trace = loaded.trace();
        self.build_slices += 1;
        loop {
            let Some(build) = self.building.as_mut() else {
                return false;
            };
            match build {
                TableBuild::Stats(builder) => {
                    let Some(stats) = builder.step(trace, &mut more) else {
                        return true;
                    };
                    let order = NameOrder::new((0..stats.len() as u32).collect());
                    *build = TableBuild::Order(stats, order);
                }
                TableBuild::Order(stats, order) => {
                    let rows = StatsRows { trace, stats };
                    let Some(by_name) = order.step(&rows, usize::MAX, &mut more) else {
                        return true;
                    };
                    *build = TableBuild::Sort(std::mem::take(stats), by_name);
                }
                TableBuild::Sort(stats, by_name) => {
                    let mut tie_rank = vec![0u32; by_name.len()];
                    for (k, &r) in by_name.iter().enumerate() {
                        tie_rank[r as usize] = k as u32;
                    }
                    self.stats = std::mem::take(stats);
                    self.by_name = std::mem::take(by_name);
                    self.tie_rank = tie_rank;
                    self.building = None;
                    self.resort();
                    log::info!(
                        "{}: table of {} rows in {:.1} ms ({} slices)",
                        self.loaded.name,
                        self.stats.len(),
                        self.build_started.elapsed().as_secs_f64() * 1e3,
                        self.build_slices
                    );
                    return false;
                }
            }
            if !more() {
                return true;
            }
        }
    }

    /// Builds new inputs' statistics a slice per frame (the browser's
    /// single thread), the first slice when they are set; else at once.
    pub fn set_sliced(&mut self, sliced: bool) {
        self.sliced = sliced;
    }

    /// While the statistics are being built: how far along, 0 to 1.
    pub fn building(&self) -> Option<f32> {
        self.building.as_ref().map(TableBuild::progress)
    }

    pub fn set_sort(&mut self, sort: SortCol, descending: bool) {
        if (sort, descending) != (self.sort, self.descending) {
            self.sort = sort;
            self.descending = descending;
            self.resort();
        }
    }

    /// Clicking a header: sort by it, again to reverse.
    fn click_header(&mut self, col: SortCol) {
        if col == self.sort {
            self.set_sort(col, !self.descending);
        } else {
            self.set_sort(col, col != SortCol::Name);
        }
    }

    pub fn set_filter(&mut self, filter: &str, substring: bool) {
        if filter != self.filter || substring != self.substring {
            self.filter = filter.to_owned();
            self.substring = substring;
            self.refilter();
        }
    }

    /// Which field the filter applies to (name or data).
    pub fn set_filter_on(&mut self, on: FilterOn) {
        if on != self.filter_on {
            self.filter_on = on;
            self.refilter();
        }
    }

    /// Sorts every row by the sort column (ties by name, then data): one
    /// `u128` key per row (the column's value mapped to an order-preserving
    /// `u64`, then the row's rank in name order), sorted without a comparator
    /// that chases the columns.
    pub fn resort(&mut self) {
        let st = &self.stats;
        let desc = self.descending;
        if self.sort == SortCol::Name {
            self.order.clone_from(&self.by_name);
            if desc {
                self.order.reverse();
            }
            self.refilter();
            return;
        }
        let (int, float) = (i64_order, f64_order);
        let value = |r: usize| -> u64 {
            match self.sort {
                SortCol::Name => 0,
                SortCol::Count => st.count[r],
                SortCol::Total => int(st.total_ns[r]),
                SortCol::SelfTime => int(st.self_ns[r]),
                SortCol::Mean => float(st.mean_ns(r)),
                SortCol::Min => int(st.min_ns[r]),
                SortCol::Median => int(st.median_ns[r]),
                SortCol::P95 => int(st.p95_ns[r]),
                SortCol::Max => int(st.max_ns[r]),
            }
        };
        let mut keys: Vec<u128> = (0..st.len())
            .map(|r| {
                let v = value(r);
                let v = if desc { !v } else { v };
                (u128::from(v) << 32) | u128::from(self.tie_rank[r])
            })
            .collect();
        keys.sort_unstable();
        self.order = keys
            .into_iter()
            .map(|k| self.by_name[(k as u32) as usize])
            .collect();
        self.refilter();
    }

    fn refilter(&mut self) {
        let trace = self.loaded.trace();
        if self.filter.is_empty() {
            self.rows.clone_from(&self.order);
            return;
        }
        // Decide once per distinct string, then per row by lookup.
        let column = match self.filter_on {
            FilterOn::Name => &self.stats.name,
            FilterOn::Data => &self.stats.data,
        };
        let matcher = Matcher::new(&self.filter, self.substring);
        // 0: not tested yet, 1: matches, 2: does not.
        let mut verdict = vec![0u8; trace.strings.len()];
        let mut keep = |s: StrId| {
            let v = &mut verdict[s.idx()];
            if *v == 0 {
                *v = if matcher.test(trace.str(s)) { 1 } else { 2 };
            }
            *v == 1
        };
        self.rows = self
            .order
            .iter()
            .copied()
            .filter(|&r| keep(column[r as usize]))
            .collect();
    }

    /// The rows as `puffinLens.ui()` lists them (at most `limit`).
    pub fn rows_json(&self, limit: usize) -> Vec<serde_json::Value> {
        let trace = self.loaded.trace();
        let st = &self.stats;
        self.rows
            .iter()
            .take(limit)
            .map(|&r| {
                let r = r as usize;
                let mut row = serde_json::json!({
                    "name": trace.str(st.name[r]),
                    "count": st.count[r],
                    "total_ns": st.total_ns[r],
                    "self_ns": st.self_ns[r],
                    "mean_ns": st.mean_ns(r),
                    "min_ns": st.min_ns[r],
                    "median_ns": st.median_ns[r],
                    "p95_ns": st.p95_ns[r],
                    "max_ns": st.max_ns[r],
                    "percent": percent(st.total_ns[r], st.all_self_ns),
                });
                if self.by == GroupBy::NameData {
                    row["data"] = trace.str(st.data[r]).into();
                }
                row
            })
            .collect()
    }

    /// Draws the table; `frames` and `label` are the frame selection.
    pub fn ui(
        &mut self,
        ui: &mut egui::Ui,
        frames: Range<u32>,
        frames_label: &str,
    ) -> Option<TableAction> {
        let mut by = self.by;
        let mut thread = self.thread.clone();
        let mut filter_on = self.filter_on;
        let mut clear_window = false;
        ui.horizontal(|ui| {
            ui.label("group by");
            ui.selectable_value(&mut by, GroupBy::Name, "name");
            ui.selectable_value(&mut by, GroupBy::NameData, "name + data");
            ui.separator();
            egui::ComboBox::from_id_salt("table_thread")
                .selected_text(match &thread {
                    None => "all threads".to_owned(),
                    Some(t) => format!("thread {}", thread_label(t)),
                })
                .show_ui(ui, |ui| {
                    ui.selectable_value(&mut thread, None, "all threads");
                    for t in &self.thread_names {
                        ui.selectable_value(&mut thread, Some(t.clone()), thread_label(t));
                    }
                });
            if let Some((lo, hi)) = self.window {
                ui.separator();
                ui.label(format!("only inside a {} ms window", ms(hi - lo)))
                    .on_hover_text(format!("{lo}..{hi} ns, selected on the timeline"));
                if ui.small_button("all time").clicked() {
                    clear_window = true;
                }
            }
            ui.separator();
            ui.label("filter on");
            ui.selectable_value(&mut filter_on, FilterOn::Name, "name");
            ui.selectable_value(&mut filter_on, FilterOn::Data, "data");
        });
        if clear_window {
            self.window = None;
        }
        self.set_inputs(frames, thread, by);
        self.set_filter_on(filter_on);
        if self.step_build(Some(super::BUILD_SLICE)) {
            ui.ctx().request_repaint();
        }
        if let Some(done) = self.building() {
            ui.add(
                egui::ProgressBar::new(done)
                    .text(format!("computing the table… {:.0}%", done * 100.0))
                    .desired_width(360.0),
            );
            return None;
        }
        ui.label(
            RichText::new(format!(
                "{} of {} rows · {frames_label} · click a header to sort (again to reverse), a row for its details",
                self.rows.len(),
                self.stats.len()
            ))
            .weak(),
        );
        let mut clicked_header = None;
        let mut clicked_row = None;
        let mut picked = None;
        let loaded = self.loaded.clone();
        let trace = loaded.trace();
        let st = &self.stats;
        let with_data = self.by == GroupBy::NameData;
        let mut builder = rows_table(ui, "scope_table", 260.0);
        if with_data {
            builder = builder.column(
                Column::initial(160.0)
                    .at_least(60.0)
                    .clip(true)
                    .resizable(true),
            );
        }
        for _ in 0..8 {
            builder = builder.column(Column::exact(78.0));
        }
        builder = builder.column(Column::remainder().at_least(60.0));
        let headers: Vec<(&str, Option<SortCol>)> = {
            let mut h = vec![("name", Some(SortCol::Name))];
            if with_data {
                h.push(("data", None));
            }
            h.extend([
                ("count", Some(SortCol::Count)),
                ("total ms", Some(SortCol::Total)),
                ("self ms", Some(SortCol::SelfTime)),
                ("mean ms", Some(SortCol::Mean)),
                ("min ms", Some(SortCol::Min)),
                ("median ms", Some(SortCol::Median)),
                ("p95 ms", Some(SortCol::P95)),
                ("max ms", Some(SortCol::Max)),
                ("% of total", None),
            ]);
            h
        };
        builder
            .header(ROW_HEIGHT + 2.0, |mut h| {
                for (title, col) in &headers {
                    h.col(|ui| {
                        let text = RichText::new(*title).strong();
                        match col {
                            Some(c) => {
                                let sorted = (*c == self.sort).then_some(self.descending);
                                ui.horizontal(|ui| {
                                    if ui
                                        .add(egui::Button::new(text).frame(false))
                                        .on_hover_text("Sort by this column (again to reverse)")
                                        .clicked()
                                    {
                                        clicked_header = Some(*c);
                                    }
                                    if let Some(descending) = sorted {
                                        sort_arrow(ui, descending);
                                    }
                                });
                            }
                            None => {
                                ui.label(text);
                            }
                        }
                    });
                }
            })
            .body(|body| {
                body.rows(ROW_HEIGHT, self.rows.len(), |mut row| {
                    let r = self.rows[row.index()];
                    let i = r as usize;
                    row.set_selected(self.selected == Some(r));
                    let cell = |row: &mut egui_extras::TableRow<'_, '_>, s: String| {
                        row.col(|ui| {
                            ui.add(egui::Label::new(s).selectable(false).truncate());
                        });
                    };
                    cell(&mut row, trace.str(st.name[i]).to_owned());
                    if with_data {
                        cell(&mut row, trace.str(st.data[i]).to_owned());
                    }
                    cell(&mut row, st.count[i].to_string());
                    cell(&mut row, ms(st.total_ns[i]));
                    cell(&mut row, ms(st.self_ns[i]));
                    cell(&mut row, ms_f(st.mean_ns(i)));
                    cell(&mut row, ms(st.min_ns[i]));
                    cell(&mut row, ms(st.median_ns[i]));
                    cell(&mut row, ms(st.p95_ns[i]));
                    cell(&mut row, ms(st.max_ns[i]));
                    cell(
                        &mut row,
                        format!("{:.1}%", percent(st.total_ns[i], st.all_self_ns)),
                    );
                    let response = row.response();
                    if response.clicked() {
                        clicked_row = Some(r);
                    }
                    response.context_menu(|ui| {
                        let name = trace.str(st.name[i]);
                        let def = trace.defs.name.iter().position(|&n| trace.str(n) == name);
                        let target = Target {
                            name: Some(name.to_owned()),
                            path: Vec::new(),
                            crate_name: def.and_then(|d| {
                                origin(trace.str(trace.defs.file[d]), name).map(|o| o.crate_name)
                            }),
                            split: false,
                        };
                        ui.label(
                            RichText::new("The tree, the flame graph and the diff show it").weak(),
                        );
                        if let Some(t) = transform_menu(ui, &target) {
                            picked = Some(t);
                        }
                    });
                });
            });
        if let Some(t) = picked {
            return Some(TableAction::Transform(t));
        }
        if let Some(c) = clicked_header {
            self.click_header(c);
        }
        let r = clicked_row?;
        self.selected = Some(r);
        Some(TableAction::Select(
            trace.str(self.stats.name[r as usize]).to_owned(),
        ))
    }
}

/// A small triangle: pointing down for a descending sort, up otherwise
/// (the bundled fonts have no arrows).
fn sort_arrow(ui: &mut egui::Ui, descending: bool) {
    let (rect, _) = ui.allocate_exact_size(egui::vec2(10.0, ROW_HEIGHT), Sense::hover());
    let direction = if descending {
        Pointing::Down
    } else {
        Pointing::Up
    };
    triangle(
        ui,
        rect.center(),
        direction,
        ui.visuals().strong_text_color(),
    );
}

fn percent(part: i64, whole: i64) -> f64 {
    if whole == 0 {
        0.0
    } else {
        100.0 * part as f64 / whole as f64
    }
}
