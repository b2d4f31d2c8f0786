//! The top bar and its menus (open, export, settings), the status lines,
//! the view bar and the transform bar.

use super::{Export, FIND, FrameSel, OPEN, PuffinLensApp, Recording, Side, View, platform};
use crate::engine::analyses::transform::{Stack, Transform};
use egui::{Color32, RichText};

/// Frame budgets offered in the top bar (60, 30 and 120 frames per second).
const BUDGETS_MS: [(f64, &str); 3] = [(16.7, "60 fps"), (33.3, "30 fps"), (8.3, "120 fps")];

impl PuffinLensApp {
    pub(super) fn top_bar(&mut self, ui: &mut egui::Ui) {
        let response = ui.horizontal_wrapped(|ui| {
            let row_height = ui.heading("puffin-lens").rect.height();
            ui.separator();
            if ui
                .button("Open…")
                .on_hover_text(format!(
                    "Open a .puffin recording or JSON dump ({}); a second one opens as B",
                    ui.ctx().format_shortcut(&OPEN)
                ))
                .clicked()
            {
                platform::pick_files(&self.shared, None);
            }
            if ui
                .button("Try an example")
                .on_hover_text(
                    "A bundled before/after pair of a game loop: a slower call, and a save \
                     every 10th frame that misses its vsync",
                )
                .clicked()
            {
                self.open_example();
            }
            // The browser: a live app through the relay. The desktop: that,
            // or A/B runs recorded (one menu: the bar stays one row at
            // 1280 px).
            #[cfg(target_arch = "wasm32")]
            if ui
                .button("Connect…")
                .on_hover_text("Watch a running app live (its puffin_http server)")
                .clicked()
            {
                self.connect_dialog = Some(self.settings.live_addr.clone());
            }
            #[cfg(not(target_arch = "wasm32"))]
            ui.menu_button("Connect…", |ui| {
                if ui
                    .button("Watch a running app live…")
                    .on_hover_text("Its puffin_http server's frames, as they come")
                    .clicked()
                {
                    self.connect_dialog = Some(self.settings.live_addr.clone());
                }
                if ui
                    .button("Record A/B runs…")
                    .on_hover_text(
                        "Two builds' runs alternately (two running apps, or two commands), \
                         opened as pairs, judged as `puffin-lens ab` judges them",
                    )
                    .clicked()
                {
                    self.open_record_ab();
                }
            })
            .response
            .on_hover_text("Watch a running app live, or record A/B runs of two builds");
            let has_view = self.slot(self.shown).rec.is_some();
            ui.add_enabled_ui(has_view, |ui| {
                ui.menu_button("Export", |ui| {
                    let items = [
                        (
                            Export::Json,
                            "JSON",
                            "The documented JSON export (same bytes as `puffin-lens dump`)",
                        ),
                        (Export::FramesCsv, "Frames (CSV)", "The frames list as CSV"),
                        (
                            Export::Parquet,
                            "Parquet tables (zip)",
                            "The scopes, frames and scope_defs tables of `puffin-lens export`, \
                             zipped: for DuckDB, Spark, Polars",
                        ),
                        (
                            Export::Flame,
                            "Flame graph (SVG)",
                            "`puffin-lens flamegraph`: an interactive SVG of the frame selection \
                             (zoom and search in the SVG), for flamegraph.pl's readers",
                        ),
                        (
                            Export::Chrome,
                            "Chrome trace (Perfetto)",
                            "The Trace Event Format: open it in Perfetto UI (Open trace file), \
                             chrome://tracing (Load) or the Firefox Profiler",
                        ),
                        (
                            Export::Speedscope,
                            "speedscope",
                            "speedscope's own format: drop it on speedscope",
                        ),
                        (
                            Export::Folded,
                            "Folded stacks",
                            "thread;outer;…;inner self_ns per line: for inferno, flamegraph.pl \
                             or speedscope",
                        ),
                        (
                            Export::Report,
                            "Report (HTML)",
                            "`puffin-lens report` as one page with charts: A, or B against A \
                             when both are open",
                        ),
                    ];
                    for (what, label, hover) in items {
                        if ui.button(label).on_hover_text(hover).clicked() {
                            self.export(what);
                            ui.close();
                        }
                    }
                });
            });
            ui.separator();
            self.chip_rects = [None; 2];
            let paired = self.paired().map(|p| p.source.clone());
            for side in [Side::A, Side::B] {
                let Some(rec) = self.slot(side).rec.as_ref() else {
                    continue;
                };
                // Long names are elided in the middle: the bar stays one row.
                let loaded = rec.loaded();
                let name = &loaded.name;
                let label = match (loaded.runs.len(), &paired) {
                    (1, None) => format!("{}: {}", side.label(), crate::units::elide(name, 18)),
                    (n, Some(_)) => format!("{}: {n} run{}, paired", side.label(), plural(n)),
                    (n, None) => format!(
                        "{}: {n} runs ({})",
                        side.label(),
                        crate::units::elide(&loaded.runs[0], 12)
                    ),
                };
                let hover = match (loaded.runs.len(), &paired) {
                    (n, Some(source)) => format!(
                        "Show this side: {n} run{} of {source}, recorded alternately with the \
                         other side's: run k of A is judged against run k of B (paired runs):\n{}",
                        plural(n),
                        loaded.runs.join("\n")
                    ),
                    (1, None) => format!("Show this recording ({name})"),
                    (n, None) => format!(
                        "Show this side: {n} runs, judged between runs against the other side's \
                         when it has several too:\n{}",
                        loaded.runs.join("\n")
                    ),
                };
                let chip = ui
                    .selectable_label(self.shown == side, label)
                    .on_hover_text(format!(
                        "{hover}\n(drop recordings here to add them as runs of {})",
                        side.label()
                    ));
                self.chip_rects[side as usize] = Some(chip.rect);
                if chip.clicked() {
                    self.shown = side;
                    self.publish();
                }
                let plus = ui.small_button("+").on_hover_text(format!(
                    "Add recordings of the same code as more runs of {}: with several runs \
                         a side, changes are judged against how much each name varies between \
                         runs (the honest noise)",
                    side.label()
                ));
                if let Some(r) = self.chip_rects[side as usize].as_mut() {
                    *r = r.union(plus.rect);
                }
                if plus.clicked() {
                    platform::pick_files(&self.shared, Some(side));
                }
                if ui.small_button("×").on_hover_text("Close").clicked() {
                    self.close(side);
                    return row_height;
                }
            }
            ui.separator();
            ui.add(
                egui::TextEdit::singleline(&mut self.filter)
                    .id(filter_id())
                    .hint_text(format!(
                        "filter scopes ({})",
                        ui.ctx().format_shortcut(&FIND)
                    ))
                    .desired_width(120.0),
            );
            ui.checkbox(&mut self.settings.substring, "substring")
                .on_hover_text(
                    "Match anywhere in the name, any case (else: names starting with the filter)",
                );
            if let Some(rec) = self.slot_mut(self.shown).rec.as_mut() {
                let mut on = rec.transforms.0.contains(&Transform::OnlyMyCode);
                if ui
                    .checkbox(&mut on, "only my code")
                    .on_hover_text(
                        "Collapse every dependency crate's scopes into one node per run \
                         ([egui], [wgpu]): the app's own scopes stay as they are",
                    )
                    .changed()
                {
                    if on {
                        rec.push_transform(Transform::OnlyMyCode);
                    } else {
                        rec.transforms.0.retain(|t| *t != Transform::OnlyMyCode);
                    }
                }
            }
            ui.separator();
            ui.menu_button("Settings", |ui| self.settings_menu(ui))
                .response
                .on_hover_text(format!(
                    "The frame budget (now {} ms) and the theme",
                    self.settings.frame_budget_ms
                ));
            row_height
        });
        // One row of controls, unless the window is too narrow for them.
        let row_height = response.inner.max(1.0);
        let gap = ui.spacing().item_spacing.y;
        self.top_bar_rows =
            ((response.response.rect.height() + gap) / (row_height + gap)).round() as u32;
    }

    /// The top bar's Settings menu: the frame budget and the theme.
    fn settings_menu(&mut self, ui: &mut egui::Ui) {
        let mut budget = self.settings.frame_budget_ms;
        ui.label("Frame budget: the red line of the frame chart; frames over it are highlighted");
        for (ms, fps) in BUDGETS_MS {
            ui.selectable_value(&mut budget, ms, format!("{ms} ms ({fps})"));
        }
        ui.horizontal(|ui| {
            ui.label("other");
            ui.add(
                egui::DragValue::new(&mut budget)
                    .range(0.1..=10_000.0)
                    .speed(0.1)
                    .suffix(" ms"),
            );
        });
        if budget != self.settings.frame_budget_ms {
            self.set_frame_budget_ms(budget);
        }
        ui.separator();
        ui.label("Theme");
        ui.horizontal(theme_buttons);
    }

    /// Rows the top bar took on the last frame (1 unless the window is too
    /// narrow for its controls).
    pub fn top_bar_rows(&self) -> u32 {
        self.top_bar_rows
    }

    pub(super) fn status_lines(&mut self, ui: &mut egui::Ui) {
        if let Some(action) = self.live.as_ref().and_then(|live| live.ui(ui)) {
            self.apply_live_action(action);
        }
        if let Some(err) = self.error.clone() {
            egui::Frame::new()
                .fill(Color32::from_rgb(130, 30, 30))
                .inner_margin(6.0)
                .corner_radius(4.0)
                .show(ui, |ui| {
                    ui.horizontal(|ui| {
                        // The button first: a long line wraps beside it.
                        if ui.small_button("dismiss").clicked() {
                            self.error = None;
                        }
                        ui.add(
                            egui::Label::new(
                                RichText::new(format!("Error: {err}"))
                                    .color(Color32::WHITE)
                                    .strong(),
                            )
                            .wrap(),
                        );
                    });
                });
        }
        let (loading, fetching) = {
            let shared = self.shared.borrow();
            (shared.loading.clone(), shared.fetching().map(str::to_owned))
        };
        if let Some(url) = fetching {
            ui.horizontal(|ui| {
                // In the browser the page's progress bar moves instead (a
                // spinner would repaint the canvas all along).
                #[cfg(not(target_arch = "wasm32"))]
                ui.spinner();
                ui.label(format!("Downloading {url}…"));
            });
        }
        // In the browser the page's HTML progress bar shows how far it is
        // (the canvas is not redrawn while decoding).
        #[cfg(target_arch = "wasm32")]
        if let Some(status) = &loading {
            ui.label(format!("Decoding {} ({})…", status.name, status.side));
        }
        #[cfg(not(target_arch = "wasm32"))]
        if let Some(status) = loading {
            let frac = if status.total_bytes == 0 {
                0.0
            } else {
                status.done_bytes as f32 / status.total_bytes as f32
            };
            ui.add(egui::ProgressBar::new(frac).show_percentage().text(format!(
                "Decoding {} ({}): {:.1} of {:.1} MB",
                status.name,
                status.side,
                status.done_bytes as f64 / 1e6,
                status.total_bytes as f64 / 1e6
            )));
        }
    }
}

/// Overview · Tree · Table · Timeline · Diff (keys 1-5) and the frame selection.
pub(super) fn view_bar(ui: &mut egui::Ui, rec: &mut Recording, diff_enabled: bool) {
    ui.horizontal(|ui| {
        for view in View::ALL {
            let enabled = view != View::Diff || diff_enabled;
            let key = match view.key() {
                egui::Key::Num7 => 7,
                egui::Key::Num6 => 6,
                egui::Key::Num5 => 5,
                egui::Key::Num4 => 4,
                egui::Key::Num3 => 3,
                egui::Key::Num2 => 2,
                _ => 1,
            };
            let hint = if enabled {
                format!("key {key}")
            } else {
                "Open a second recording (B) to compare it with A".to_owned()
            };
            if ui
                .add_enabled(
                    enabled,
                    egui::Button::selectable(
                        rec.view == view,
                        RichText::new(view.title()).strong(),
                    ),
                )
                .on_hover_text(hint)
                .on_disabled_hover_text("Open a second recording (B) to compare it with A")
                .clicked()
            {
                rec.view = view;
            }
        }
        ui.separator();
        let trace = rec.loaded().clone();
        let trace = trace.trace();
        ui.label("frames:");
        if ui
            .selectable_label(
                rec.frames == FrameSel::All,
                format!("all {}", trace.frames.len()),
            )
            .on_hover_text("The tree and the table cover every frame")
            .clicked()
        {
            rec.frames = FrameSel::All;
        }
        if let Some(f) = rec.overview.selected() {
            let one = FrameSel::One(f);
            if ui
                .selectable_label(rec.frames == one, one.label(trace))
                .on_hover_text("The frame selected on the overview")
                .clicked()
            {
                rec.frames = one;
            }
        }
        if let Some((a, b)) = rec.overview.range() {
            let range = FrameSel::Range(a, b);
            if ui
                .selectable_label(rec.frames == range, range.label(trace))
                .on_hover_text("The range dragged on the overview's frame chart")
                .clicked()
            {
                rec.frames = range;
            }
        }
    });
}

/// What the transform breadcrumbs ask.
pub(super) enum BarAction {
    /// Remove the transform at this position.
    Remove(usize),
    Clear,
    /// Keep this stack for every recording opened.
    SaveDefault,
    ClearDefault,
}

/// The transform stack as breadcrumbs under the view bar: each removable
/// (Backspace or Esc remove the last), the default stack's marked, what
/// they matched nothing of said; nothing when there is no stack.
pub(super) fn transform_bar(
    ui: &mut egui::Ui,
    rec: &Recording,
    default: &Stack,
) -> Option<BarAction> {
    let mut action = None;
    if rec.transforms.is_empty() && rec.transform_notice.is_none() {
        if !default.is_empty() {
            ui.horizontal(|ui| {
                ui.label(RichText::new("No transforms (this recording's default removed).").weak());
                if ui
                    .small_button("Forget the default")
                    .on_hover_text(format!("Stop applying {default} to every recording opened"))
                    .clicked()
                {
                    action = Some(BarAction::ClearDefault);
                }
            });
        }
        return action;
    }
    ui.horizontal_wrapped(|ui| {
        ui.label(RichText::new("Transforms:").strong())
            .on_hover_text(
                "Applied in order to the tree, the flame graph and the diff (right-click a node \
                 to add one; Backspace removes the last)",
            );
        for (i, t) in rec.transforms.0.iter().enumerate() {
            if i > 0 {
                ui.label(">");
            }
            let mut label = t.describe();
            if default.0.contains(t) {
                label.push_str(" (default)");
            }
            if ui
                .button(format!("{label}  x"))
                .on_hover_text(format!("{t}: click to remove"))
                .clicked()
            {
                action = Some(BarAction::Remove(i));
            }
        }
        if !rec.transforms.is_empty() {
            if ui.small_button("Clear").clicked() {
                action = Some(BarAction::Clear);
            }
            if &rec.transforms != default
                && ui
                    .small_button("Save as default")
                    .on_hover_text("Apply this stack to every recording opened from now on")
                    .clicked()
            {
                action = Some(BarAction::SaveDefault);
            }
        }
        let note = match rec.view {
            View::Timeline => {
                Some("(the timeline dims what they merge or drop: its truth is time)")
            }
            View::Table | View::Overview => {
                Some("(the tree, the flame graph and the diff show them; the timeline dims)")
            }
            _ => None,
        };
        if let Some(note) = note {
            ui.label(RichText::new(note).weak());
        }
    });
    let warn = ui.visuals().warn_fg_color;
    for w in rec.transform_warnings().iter().chain(&rec.transform_notice) {
        ui.label(RichText::new(w).color(warn));
    }
    action
}

/// Light / dark / system theme (egui's own switch uses emoji glyphs that
/// the bundled fonts lack).
fn theme_buttons(ui: &mut egui::Ui) {
    use egui::ThemePreference;
    let current = ui.ctx().options(|o| o.theme_preference);
    for (pref, label) in [
        (ThemePreference::Light, "Light"),
        (ThemePreference::Dark, "Dark"),
        (ThemePreference::System, "System"),
    ] {
        if ui.selectable_label(current == pref, label).clicked() {
            ui.ctx().set_theme(pref);
        }
    }
}

pub(super) fn filter_id() -> egui::Id {
    egui::Id::unique("scope_filter")
}

/// `"s"` unless one.
fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}
