//! The egui application, the same on the desktop and in the browser: the
//! shell (this file: the app's state, its construction and the eframe glue;
//! an `impl PuffinLensApp` per concern in `top_bar` (the bars and menus),
//! `open_export` (opening, progress, errors, export), `dispatch` (input, the
//! JavaScript API's commands, `ui()`) and `connect` (a live app); `loaded`,
//! `loader`, `platform`, `shared`, `recording`, `nav`, `live`) and the views
//! (`views/`), which read the engine's model and keep only UI state.
//!
//! May import: `engine`. Within the shell the imports run
//! `mod.rs` and its concerns → `recording` → `views` → `nav`, `loaded` and
//! `loader` → `platform` → `shared` → `runs_given` and `loaded`; what
//! differs per target lives in `platform`. `open_runs` (a folder of `ab`
//! runs opened by its manifest) is one of the shell's concerns.

mod connect;
mod dispatch;
pub mod live;
mod loaded;
mod loader;
pub mod nav;
mod open_export;
mod open_runs;
pub mod platform;
mod recording;
mod runs_given;
mod shared;
mod split;
mod top_bar;
pub mod views;

pub use loaded::{Loaded, Source};
pub use loader::{LoadJob, Poll, SLICE};
pub use nav::{FrameSel, View};
pub use open_export::{Export, flame_file, report_file};
pub use open_runs::Paired;
pub use platform::file_name;
#[cfg(not(target_arch = "wasm32"))]
pub use platform::record_ab::{AbForm, AbMode};
pub use recording::{Action, Recording, UI_ROWS};
pub use shared::{
    Fetch, Incoming, LoadStatus, OnDone, Shared, SharedState, Side, UiCommand, dropped_side,
    given_targets,
};
pub use views::details::{DetailsAction, DetailsPanel};
pub use views::diff::DiffView;
pub use views::overview::OverviewView;
pub use views::table::TableView;
pub use views::tree::TreeView;

use crate::engine::read::live::Retention;
use egui::{Color32, Key, KeyboardShortcut, Modifiers, RichText};
use live::LiveSession;
use top_bar::{BarAction, transform_bar, view_bar};

/// The example pair behind "Try an example": a game loop on vsync before
/// and after a change (`solve_contacts` slower per call, a 9 ms autosave
/// every 10th frame that misses its vsync), recorded through puffin on a
/// simulated clock (`cargo run --example capture -- example samples`). It
/// opens on its findings, with the frame pacing.
pub const EXAMPLE: [(&str, &[u8]); 2] = [
    (
        "example_before.puffin",
        include_bytes!("../../samples/example_before.puffin"),
    ),
    (
        "example_after.puffin",
        include_bytes!("../../samples/example_after.puffin"),
    ),
];

use crate::engine::analyses::transform::Stack;

const OPEN: KeyboardShortcut = KeyboardShortcut::new(Modifiers::COMMAND, Key::O);
const FIND: KeyboardShortcut = KeyboardShortcut::new(Modifiers::COMMAND, Key::F);

/// View settings: the only thing persisted (never trace data).
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
#[serde(default)]
pub struct Settings {
    /// The frame budget line of the frame chart, in ms: frames over it are
    /// highlighted.
    pub frame_budget_ms: f64,
    /// The scope filter matches substrings (any case) instead of prefixes.
    pub substring: bool,
    /// The address Connect… offers: a puffin_http server natively, a
    /// `puffin-lens relay` WebSocket in the browser.
    pub live_addr: String,
    /// How much of a live capture is kept.
    pub live_retention: Retention,
    /// Transforms applied to every recording opened (`merge:profiling::*`),
    /// shown in its breadcrumbs and removable there.
    pub default_transforms: Vec<String>,
}

impl Default for Settings {
    fn default() -> Self {
        Self {
            frame_budget_ms: 16.7,
            substring: false,
            live_addr: live::default_addr().to_owned(),
            live_retention: Retention::default(),
            default_transforms: Vec::new(),
        }
    }
}

impl Settings {
    /// The default transforms that read (a stored one that no longer does
    /// is left out).
    pub fn default_stack(&self) -> Stack {
        Stack(
            self.default_transforms
                .iter()
                .filter_map(|t| t.parse().ok())
                .collect(),
        )
    }
}

/// One side of a comparison: what is loading and what is shown.
#[derive(Default)]
struct Slot {
    job: Option<(LoadJob, Option<OnDone>)>,
    rec: Option<Recording>,
    /// What the job in flight replaced (one line), told once it is shown.
    replaced: Option<String>,
    /// When the job in flight was asked for ([`PuffinLensApp::tick`]).
    asked_at: u64,
    /// The turn of the latest request taken for this side, and its name: an
    /// earlier request whose bytes arrive later is dropped.
    turn: (u64, String),
    /// The job in flight adds a run to what is shown (several runs a side).
    adding_run: bool,
    /// Runs asked for while another load of this side runs, in order.
    queued_runs: std::collections::VecDeque<Incoming>,
}

pub struct PuffinLensApp {
    shared: Shared,
    settings: Settings,
    a: Slot,
    b: Slot,
    shown: Side,
    /// Filters the lists (Ctrl/Cmd-F focuses it, Esc clears it).
    filter: String,
    /// The last error, shown until dismissed or until a recording asked
    /// for after it loads.
    error: Option<String>,
    /// When the error was set, on the clock of [`Self::tick`].
    error_at: u64,
    /// Counts requests and errors, to tell which came first.
    tick: u64,
    /// Natively, decode on a background thread (tests decode in slices).
    threaded: bool,
    /// A one-line note about what just happened (a second recording opened).
    notice: Option<String>,
    /// The location hash the page was opened with, applied to the first
    /// recording that loads.
    pending_hash: Option<String>,
    /// The hash last written (so the app's own changes are not re-applied).
    last_hash: String,
    /// The hash was just navigated to (a link, Back, Forward): the app's
    /// own statement of it replaces it rather than adding a history entry.
    replace_hash: bool,
    /// A fingerprint of the last published `ui()`, to republish on change only.
    ui_fingerprint: u64,
    /// A against B, made when the diff view is first shown with both open.
    diff: Option<DiffView>,
    /// The findings of the pair (or of the one recording open), made when
    /// the Findings view is first shown.
    findings: Option<views::findings::FindingsView>,
    /// A connection to a running app, shown as A.
    live: Option<LiveSession>,
    /// The Connect… dialog, with the address being typed.
    connect_dialog: Option<String>,
    /// The Record A/B… dialog and its session (the desktop only).
    #[cfg(not(target_arch = "wasm32"))]
    record_ab: Option<platform::record_ab::RecordAb>,
    /// Rows the top bar took on the last frame.
    top_bar_rows: u32,
    /// Where each side's name (with its + and ×) is in the top bar, on the
    /// last frame: files dropped there are added as runs of that side.
    chip_rects: [Option<egui::Rect>; 2],
    /// Frames drawn (the first is marked for `status().timings`).
    frames_drawn: u64,
    /// A recording loaded this frame: its first view is marked ("shown
    /// NAME") once the frame is drawn.
    shown_mark: Option<String>,
    /// The runs of a folder of `ab` runs being decoded, and when they were
    /// asked for (on the clock of [`Self::tick`]).
    runs_open: Option<open_runs::RunsOpen>,
    runs_asked_at: u64,
    /// A and B as a folder of `ab` runs paired them ([`Self::paired`]: while
    /// both sides show what it opened).
    paired: Option<Paired>,
}

impl PuffinLensApp {
    /// The app as eframe creates it, with settings restored from storage.
    pub fn new(cc: &eframe::CreationContext<'_>, shared: Shared) -> Self {
        let settings = cc
            .storage
            .and_then(|s| eframe::get_value(s, eframe::APP_KEY))
            .unwrap_or_default();
        Self::with_context(&cc.egui_ctx, shared, settings)
    }

    pub fn with_context(ctx: &egui::Context, shared: Shared, settings: Settings) -> Self {
        shared.borrow_mut().ctx = Some(ctx.clone());
        // The proportional font (Ubuntu) lacks arrows (→ in every "A → B"
        // of the findings): the monospace font, already embedded, has them.
        let mut fonts = egui::FontDefinitions::default();
        if let Some(mono) = fonts.families.get(&egui::FontFamily::Monospace).cloned()
            && let Some(prop) = fonts.families.get_mut(&egui::FontFamily::Proportional)
        {
            for f in mono {
                if !prop.contains(&f) {
                    prop.push(f);
                }
            }
        }
        ctx.set_fonts(fonts);
        ctx.request_repaint();
        Self {
            shared,
            settings,
            a: Slot::default(),
            b: Slot::default(),
            shown: Side::A,
            filter: String::new(),
            error: None,
            error_at: 0,
            tick: 0,
            threaded: cfg!(not(target_arch = "wasm32")),
            notice: None,
            pending_hash: platform::initial_hash(),
            last_hash: String::new(),
            replace_hash: false,
            ui_fingerprint: 0,
            diff: None,
            findings: None,
            live: None,
            connect_dialog: None,
            #[cfg(not(target_arch = "wasm32"))]
            record_ab: None,
            top_bar_rows: 1,
            chip_rects: [None; 2],
            frames_drawn: 0,
            shown_mark: None,
            runs_open: None,
            runs_asked_at: 0,
            paired: None,
        }
    }

    /// Decode on this thread in slices instead of on a background thread.
    pub fn with_threaded_loading(mut self, threaded: bool) -> Self {
        self.threaded = threaded;
        self
    }

    pub fn shared(&self) -> &Shared {
        &self.shared
    }

    /// The scope filter (Ctrl/Cmd-F, Esc clears).
    pub fn filter(&self) -> &str {
        &self.filter
    }

    /// Sets the scope filter, as typing it does.
    pub fn set_filter(&mut self, filter: &str) {
        self.filter = filter.to_owned();
    }

    pub fn error(&self) -> Option<&str> {
        self.error.as_deref()
    }

    pub fn shown(&self) -> Side {
        self.shown
    }

    /// The overview of a side, once loaded.
    pub fn view(&self, side: Side) -> Option<&OverviewView> {
        self.slot(side).rec.as_ref().map(|r| &r.overview)
    }

    pub fn view_mut(&mut self, side: Side) -> Option<&mut OverviewView> {
        self.slot_mut(side).rec.as_mut().map(|r| &mut r.overview)
    }

    /// A side's recording and its views, once loaded.
    pub fn recording(&self, side: Side) -> Option<&Recording> {
        self.slot(side).rec.as_ref()
    }

    pub fn recording_mut(&mut self, side: Side) -> Option<&mut Recording> {
        self.slot_mut(side).rec.as_mut()
    }

    /// The diff view of A against B, made (or remade, when A or B changed)
    /// on demand; `None` unless both are open.
    pub fn diff_view(&mut self) -> Option<&mut DiffView> {
        let paired = self.paired().is_some();
        let (a, b) = (self.a.rec.as_ref()?.loaded(), self.b.rec.as_ref()?.loaded());
        if !self.diff.as_ref().is_some_and(|d| d.shows(a, b, paired)) {
            // Judged as pairs when A and B are a folder's paired runs.
            let noise = runs_given::noise(paired);
            // In the browser its table is built a slice per frame as it is drawn.
            self.diff = Some(if platform::SLICED_VIEWS {
                DiffView::start_with(a.clone(), b.clone(), noise)
            } else {
                DiffView::new_with(a.clone(), b.clone(), noise)
            });
        }
        self.diff.as_mut()
    }

    /// The findings of A against B (of the one recording open, when only
    /// one is), made (or remade, when A or B changed) on demand; `None`
    /// without a recording. A folder's paired runs are judged as pairs.
    pub fn findings_view(&mut self) -> Option<&mut views::findings::FindingsView> {
        let paired = self.paired().is_some();
        let (a, b) = match (self.a.rec.as_ref(), self.b.rec.as_ref()) {
            (Some(a), b) => (a.loaded().clone(), b.map(|b| b.loaded().clone())),
            (None, Some(b)) => (b.loaded().clone(), None),
            (None, None) => return None,
        };
        if !self
            .findings
            .as_ref()
            .is_some_and(|f| f.shows(&a, b.as_ref(), paired))
        {
            let mut view = views::findings::FindingsView::start_with(a, b, paired);
            // Off the page's thread where the platform can (a thread, a
            // worker); else the view makes them after saying so.
            if let Some((a, b)) = view.wants_work()
                && let Some(ctx) = self.shared.borrow().ctx.clone()
                && let Some(poll) = platform::findings_elsewhere(a, b, paired, &ctx, self.threaded)
            {
                view.set_poller(poll);
            }
            self.findings = Some(view);
        }
        self.findings.as_mut()
    }

    /// The one-line notice shown under the top bar, if any.
    pub fn notice(&self) -> Option<&str> {
        self.notice.as_deref()
    }

    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// Sets the frame budget of every open recording's chart.
    pub fn set_frame_budget_ms(&mut self, budget_ms: f64) {
        self.settings.frame_budget_ms = budget_ms;
        for side in [Side::A, Side::B] {
            if let Some(view) = self.view_mut(side) {
                view.set_budget_ms(budget_ms);
            }
        }
    }

    pub fn is_loading(&self) -> bool {
        self.a.job.is_some() || self.b.job.is_some() || self.runs_open.is_some()
    }

    fn slot(&self, side: Side) -> &Slot {
        match side {
            Side::A => &self.a,
            Side::B => &self.b,
        }
    }

    fn slot_mut(&mut self, side: Side) -> &mut Slot {
        match side {
            Side::A => &mut self.a,
            Side::B => &mut self.b,
        }
    }

    fn welcome(&mut self, ui: &mut egui::Ui) {
        ui.vertical_centered(|ui| {
            ui.add_space(ui.available_height() * 0.25);
            ui.heading("Drop a .puffin recording (or a JSON dump) anywhere on this window");
            ui.label(
                "Everything is analyzed on this machine; nothing is uploaded. \
                 A second recording opens as B, for a before/after comparison.",
            );
            ui.add_space(12.0);
            if ui.button("Open a recording…").clicked() {
                platform::pick_files(&self.shared, None);
            }
            ui.add_space(6.0);
            if ui.button("Try an example").clicked() {
                self.open_example();
            }
        });
    }

    /// Opens the example pair (A, then B): it lands on its findings.
    pub fn open_example(&mut self) {
        for ((name, bytes), side) in EXAMPLE.into_iter().zip([Side::A, Side::B]) {
            self.open(name, Source::Bytes(bytes.to_vec()), Some(side));
        }
    }

    /// The side whose name in the top bar is at `css` (CSS pixels from the
    /// canvas's top left, as the browser gives a drag's place).
    fn chip_at(&self, ctx: &egui::Context, css: [f32; 2]) -> Option<Side> {
        let at = egui::pos2(css[0], css[1]) / ctx.zoom_factor();
        [Side::A, Side::B].into_iter().find(|&side| {
            self.slot(side).rec.is_some()
                && self.chip_rects[side as usize].is_some_and(|r| r.expand(4.0).contains(at))
        })
    }

    fn drop_overlay(&self, ctx: &egui::Context) {
        if ctx.input(|i| i.raw.hovered_files.is_empty()) {
            return;
        }
        let painter = ctx.layer_painter(egui::LayerId::new(
            egui::Order::Foreground,
            egui::Id::unique("drop_overlay"),
        ));
        let rect = ctx.content_rect();
        let pos = self.shared.borrow().drag_pos;
        let over = pos.and_then(|p| self.chip_at(ctx, p));
        let open = [Side::A, Side::B].map(|s| self.slot(s).rec.is_some());
        // The top bar stays visible: the sides' names are drop targets.
        let bar = self
            .chip_rects
            .iter()
            .flatten()
            .fold(egui::Rect::NOTHING, |r, c| r.union(*c));
        let shade = if bar.is_positive() {
            egui::Rect::from_min_max(egui::pos2(rect.min.x, bar.max.y + 4.0), rect.max)
        } else {
            rect
        };
        painter.rect_filled(shade, 0.0, Color32::from_black_alpha(180));
        for side in [Side::A, Side::B] {
            if let Some(r) = self.chip_rects[side as usize].filter(|_| open[side as usize]) {
                let hot = over == Some(side);
                painter.rect_stroke(
                    r.expand(2.0),
                    3.0,
                    egui::Stroke::new(if hot { 3.0 } else { 1.5 }, Color32::from_rgb(90, 170, 255)),
                    egui::StrokeKind::Outside,
                );
            }
        }
        let text = match over {
            Some(side) => format!(
                "Drop to add as runs of {} (each side's runs are judged between runs)",
                side.label()
            ),
            None if open[0] || open[1] => "Drop to open (a second recording opens as B)\n\
                 or drop onto A or B in the top bar to add runs to that side"
                .to_owned(),
            None => "Drop to open (a second recording opens as B;\n\
                 an `ab` folder's files or its zip open as paired runs)"
                .to_owned(),
        };
        painter.text(
            shade.center(),
            egui::Align2::CENTER_CENTER,
            text,
            egui::FontId::proportional(22.0),
            Color32::WHITE,
        );
    }
}

impl eframe::App for PuffinLensApp {
    fn ui(&mut self, ui: &mut egui::Ui, _frame: &mut eframe::Frame) {
        let frame_start = web_time::Instant::now();
        let ctx = ui.ctx().clone();
        self.take_input(&ctx);
        if self.poll_loads(frame_start) {
            ctx.request_repaint();
        }
        let connect = self.shared.borrow_mut().connect.take();
        if let Some(addr) = connect {
            self.connect(&ctx, &addr);
        }
        self.poll_live(&ctx);
        self.connect_dialog(&ctx);
        #[cfg(not(target_arch = "wasm32"))]
        self.record_ab_frame(&ctx);
        self.split_dialog(&ctx);
        self.take_commands();
        egui::Panel::top("top_bar").show(ui, |ui| self.top_bar(ui));
        let (filter, substring) = (self.filter.clone(), self.settings.substring);
        let loading = self.is_loading();
        let mut actions: Vec<Action> = Vec::new();
        let wants_diff = self
            .slot(self.shown)
            .rec
            .as_ref()
            .is_some_and(|r| r.view == View::Diff);
        if wants_diff {
            let stack = self
                .slot(self.shown)
                .rec
                .as_ref()
                .map(|r| r.transforms.clone())
                .unwrap_or_default();
            match self.diff_view() {
                Some(diff) => {
                    diff.set_filter(&filter, substring);
                    diff.set_transforms(&stack);
                }
                None => {
                    if let Some(rec) = self.slot_mut(self.shown).rec.as_mut() {
                        rec.view = View::Overview;
                    }
                }
            }
        }
        let wants_findings = self
            .slot(self.shown)
            .rec
            .as_ref()
            .is_some_and(|r| r.view == View::Findings);
        if wants_findings {
            self.findings_view();
        }
        let diff_enabled = self.a.rec.is_some() && self.b.rec.is_some();
        if let Some(rec) = self.slot_mut(self.shown).rec.as_mut() {
            rec.sync(&filter, substring);
            if let Some(details) = rec.details.as_mut() {
                egui::Panel::right("details")
                    .resizable(true)
                    .default_size(360.0)
                    .show(ui, |ui| {
                        egui::ScrollArea::vertical().show(ui, |ui| {
                            if let Some(a) = details.ui(ui) {
                                actions.push(a.into());
                            }
                        });
                    });
            }
        }
        let default_stack = self.settings.default_stack();
        let mut bar_action = None;
        let mut link_clicked: Option<String> = None;
        egui::CentralPanel::default().show(ui, |ui| {
            self.status_lines(ui);
            let notice = self.notice.clone();
            let (slot, diff, findings) = match self.shown {
                Side::A => (&mut self.a, &mut self.diff, &mut self.findings),
                Side::B => (&mut self.b, &mut self.diff, &mut self.findings),
            };
            match slot.rec.as_mut() {
                Some(rec) => {
                    if let Some(notice) = notice {
                        ui.label(RichText::new(notice).color(ui.visuals().warn_fg_color));
                    }
                    view_bar(ui, rec, diff_enabled);
                    bar_action = transform_bar(ui, rec, &default_stack);
                    ui.separator();
                    match rec.view {
                        View::Findings => {
                            if let Some(link) = findings.as_mut().and_then(|f| f.ui(ui)) {
                                link_clicked = Some(link);
                            }
                        }
                        View::Overview => {
                            if let Some(name) = rec.overview.ui(ui, &filter) {
                                actions.push(Action::Select(name));
                            }
                        }
                        View::Tree => {
                            if let Some(a) = rec.tree.ui(ui) {
                                actions.push(a.into());
                            }
                        }
                        View::Table => {
                            let trace = rec.loaded().clone();
                            let positions = rec.frames.positions(trace.trace());
                            let label = rec.frames.label(trace.trace());
                            if let Some(a) = rec.table.ui(ui, positions, &label) {
                                actions.push(a.into());
                            }
                        }
                        View::Timeline => {
                            if let Some(a) = rec.timeline_mut().ui(ui) {
                                actions.push(a.into());
                            }
                        }
                        View::Flame => {
                            if let Some(a) = rec.flame_mut().ui(ui) {
                                actions.push(a.into());
                            }
                        }
                        View::Diff => match diff.as_mut() {
                            Some(diff) => diff.ui(ui),
                            None => {
                                ui.label("Open a second recording (B) to compare it with A.");
                            }
                        },
                    }
                }
                None if !loading => self.welcome(ui),
                None => {}
            }
        });
        if let Some(rec) = self.slot_mut(self.shown).rec.as_mut() {
            for a in actions {
                rec.apply(a);
            }
            match bar_action {
                Some(BarAction::Remove(i)) if i < rec.transforms.0.len() => {
                    rec.transforms.0.remove(i);
                }
                Some(BarAction::Clear) => rec.transforms.0.clear(),
                _ => {}
            }
            let stack = rec.transforms.clone();
            rec.sync(&filter, substring);
            match bar_action {
                Some(BarAction::SaveDefault) => {
                    self.settings.default_transforms =
                        stack.0.iter().map(|t| t.to_string()).collect();
                }
                Some(BarAction::ClearDefault) => self.settings.default_transforms.clear(),
                _ => {}
            }
        }
        // A finding's link: where it goes, as a hash change would (the
        // hash written below records it, so Back returns).
        if let Some(hash) = link_clicked {
            platform::set_hash(&hash);
            if let Err(e) = self.apply_command(UiCommand::Hash(hash)) {
                self.set_error(e);
            }
        }
        self.publish_ui();
        self.drop_overlay(&ctx);
        self.frames_drawn += 1;
        if self.frames_drawn == 1 {
            platform::mark("first-frame");
            platform::prestart_decoders();
        }
        if let Some(name) = self.shown_mark.take() {
            platform::mark(&format!("shown {name}"));
        }
    }

    fn save(&mut self, storage: &mut dyn eframe::Storage) {
        eframe::set_value(storage, eframe::APP_KEY, &self.settings);
    }
}

/// Opens the desktop app connected to a running app's puffin_http server.
#[cfg(not(target_arch = "wasm32"))]
pub fn run_native_live(addr: String) -> eframe::Result {
    run_native_with(Vec::new(), Some(addr))
}

/// Opens the desktop app, with up to two recordings (A, then B).
#[cfg(not(target_arch = "wasm32"))]
pub fn run_native(files: Vec<std::path::PathBuf>) -> eframe::Result {
    run_native_with(files, None)
}

#[cfg(not(target_arch = "wasm32"))]
fn run_native_with(files: Vec<std::path::PathBuf>, live: Option<String>) -> eframe::Result {
    let options = eframe::NativeOptions {
        viewport: egui::ViewportBuilder::default()
            .with_title("puffin-lens")
            .with_inner_size([1280.0, 800.0])
            .with_drag_and_drop(true),
        ..Default::default()
    };
    eframe::run_native(
        "puffin-lens",
        options,
        Box::new(move |cc| {
            let shared = Shared::default();
            if let Some(addr) = live {
                shared.borrow_mut().connect = Some(addr);
            }
            let app = PuffinLensApp::new(cc, shared);
            for (path, side) in files.into_iter().zip([Side::A, Side::B]) {
                let name = file_name(&path.to_string_lossy());
                app.open(&name, Source::Path(path), Some(side));
            }
            Ok(Box::new(app))
        }),
    )
}
