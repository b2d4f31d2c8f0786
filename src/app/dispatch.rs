//! What comes in, dispatched to the recordings and views: dropped files
//! and keys, the JavaScript API's commands (`show`, `select`, hash changes),
//! and the `ui()` state it reads back.

use super::shared::{GivenFile, Split};
use super::top_bar::filter_id;
use super::{
    FIND, OPEN, PuffinLensApp, Side, UI_ROWS, UiCommand, View, file_name, given_targets, platform,
    views,
};
use egui::{Key, Modifiers};

impl PuffinLensApp {
    pub(super) fn take_input(&mut self, ctx: &egui::Context) {
        // Errors from outside (a download or a file that could not be read).
        let failed = self.shared.borrow_mut().failed.take();
        if let Some(msg) = failed {
            log::error!("{msg}");
            self.set_error(msg);
            self.publish();
        }
        let incoming = std::mem::take(&mut self.shared.borrow_mut().incoming);
        for item in incoming {
            self.start_load(ctx, item);
        }
        let dropped = ctx.input(|i| i.raw.dropped_files.clone());
        let dropped_any = !dropped.is_empty();
        let names: Vec<String> = dropped
            .iter()
            .map(|f| file_name(&f.path().to_string_lossy()))
            .collect();
        // Dropped onto A or B in the top bar (where the browser says):
        // runs of that side.
        let onto = if !dropped_any {
            None
        } else {
            let at = self.shared.borrow_mut().drop_pos.take();
            at.and_then(|at| self.chip_at(ctx, at))
        };
        // Picked together as a folder of `ab` runs, or read in the browser.
        let (runs_files, runs_given) = {
            let mut shared = self.shared.borrow_mut();
            (shared.runs_files.take(), shared.runs_given.take())
        };
        if let Some((names, mut files)) = runs_files {
            self.open_runs_folder(&names, &mut files);
        }
        if let Some(given) = runs_given {
            self.open_runs(given);
        }
        let mut files: Vec<GivenFile> = dropped.into_iter().map(GivenFile::Dropped).collect();
        // A folder of `ab` runs (its manifest, or its zip): opened by the
        // manifest, whatever it was dropped onto.
        if !files.is_empty() && !self.open_runs_folder(&names, &mut files) {
            let targets = given_targets(&names, onto);
            if let Some(side) = onto {
                self.notice = Some(format!(
                    "Added {} as {} of {}: each side's runs are judged between runs.",
                    names.join(", "),
                    if names.len() == 1 { "a run" } else { "runs" },
                    side.label()
                ));
            }
            if onto.is_none() && names.len() > 2 {
                // Which are A's and which B's: the user says.
                self.shared.borrow_mut().split = Some(Split::new(names, files));
            } else {
                self.open_given(ctx, files, names, targets);
            }
        }
        let (open, find, escape) = ctx.input_mut(|i| {
            (
                i.consume_shortcut(&OPEN),
                i.consume_shortcut(&FIND),
                i.consume_key(Modifiers::NONE, Key::Escape),
            )
        });
        if open {
            platform::pick_files(&self.shared, None);
        }
        if find {
            ctx.memory_mut(|m| m.request_focus(filter_id()));
        }
        // Esc: in a focused flame graph (no filter typed), one level up;
        // else it clears the filter and the error line.
        let flame_up = escape
            && self.filter.is_empty()
            && self
                .slot_mut(self.shown)
                .rec
                .as_mut()
                .filter(|rec| rec.view == View::Flame)
                .and_then(|rec| rec.flame.as_mut())
                .is_some_and(|flame| flame.focus_up());
        // Esc with nothing else to undo, or Backspace outside a text field:
        // the last transform goes.
        let idle = escape && !flame_up && self.filter.is_empty() && self.error.is_none();
        let backspace =
            !ctx.egui_wants_keyboard_input() && ctx.input(|i| i.key_pressed(Key::Backspace));
        if (idle || backspace)
            && let Some(rec) = self.slot_mut(self.shown).rec.as_mut()
        {
            rec.pop_transform();
        }
        if escape && !flame_up {
            self.filter.clear();
            self.error = None;
            ctx.memory_mut(|m| m.surrender_focus(filter_id()));
        }
        // Keys 1-6 switch views, unless a text field has the keyboard.
        if !ctx.egui_wants_keyboard_input()
            && let Some(rec) = self.slot_mut(self.shown).rec.as_mut()
        {
            for view in View::ALL {
                if ctx.input_mut(|i| i.consume_key(Modifiers::NONE, view.key())) {
                    rec.view = view;
                }
            }
        }
    }

    /// Applies the requests of `puffinLens.show`/`select` and hash changes.
    pub(super) fn take_commands(&mut self) {
        let commands = std::mem::take(&mut self.shared.borrow_mut().commands);
        for (command, on_done) in commands {
            let result = self.apply_command(command);
            let result = result.map(|()| self.ui_json().to_string());
            if let Some(on_done) = on_done {
                on_done(result);
            }
        }
    }

    pub(super) fn apply_command(&mut self, command: UiCommand) -> Result<(), String> {
        let substring = self.settings.substring;
        // With A and B open, a hash of one recording's view says its side
        // (`side=a`, `side=b`); without, the shown side stays.
        if let UiCommand::Hash(hash) = &command {
            let pairs = super::nav::decode_hash(hash);
            let side = match super::nav::hash_value(&pairs, "side") {
                Some("b") => Some(Side::B),
                Some("a") => Some(Side::A),
                _ => None,
            };
            if let Some(side) = side
                && side != self.shown
                && self.slot(side).rec.is_some()
            {
                self.shown = side;
                // A hash applies anew to the side it names.
                self.last_hash.clear();
            }
        }
        let slot = match self.shown {
            Side::A => &mut self.a,
            Side::B => &mut self.b,
        };
        let Some(rec) = slot.rec.as_mut() else {
            if let UiCommand::Hash(hash) = command {
                self.pending_hash = Some(hash);
                return Ok(());
            }
            return Err("no recording is open".to_owned());
        };
        match command {
            UiCommand::Show { view, options } if view == "diff" => self.show_diff(&options),
            UiCommand::Show { view, options } if view == "findings" => self.show_findings(&options),
            UiCommand::Show { view, options } => {
                let mut filter = std::mem::take(&mut self.filter);
                let result = rec.show(&view, &options, &mut filter, substring);
                rec.sync(&filter, substring);
                self.filter = filter;
                result
            }
            UiCommand::Select(name) => {
                if rec.select_scope(&name) {
                    Ok(())
                } else {
                    Err(crate::engine::analyses::no_scope_named(&name))
                }
            }
            UiCommand::Transforms(stack) => {
                rec.transforms = stack;
                rec.transform_notice = None;
                let filter = self.filter.clone();
                rec.sync(&filter, substring);
                Ok(())
            }
            UiCommand::Hash(hash) => {
                if hash != self.last_hash {
                    self.replace_hash = true;
                    rec.apply_hash(&hash);
                    if rec.view == View::Diff {
                        // The diff's own details show both sides' calls.
                        rec.details = None;
                        match self.diff_view() {
                            Some(diff) => diff.apply_hash(&hash),
                            None => {
                                if let Some(rec) = self.slot_mut(self.shown).rec.as_mut() {
                                    rec.view = View::Overview;
                                }
                            }
                        }
                    }
                    self.last_hash = hash;
                }
                Ok(())
            }
        }
    }

    /// `puffinLens.show("diff", options)`.
    fn show_diff(&mut self, options: &serde_json::Value) -> Result<(), String> {
        let (filter, substring) = (self.filter.clone(), self.settings.substring);
        let diff = self
            .diff_view()
            .ok_or("the diff needs two recordings open (A and B)")?;
        // A small comparison is done within the slice, before show() answers.
        diff.step_build(Some(views::BUILD_SLICE));
        let filter = diff.show(options, filter)?;
        diff.set_filter(&filter, substring);
        self.filter = filter;
        if let Some(rec) = self.slot_mut(self.shown).rec.as_mut() {
            rec.view = View::Diff;
        }
        Ok(())
    }

    /// `puffinLens.show("findings")`: the Findings page (natively made
    /// before this answers; in the browser `ui().computing` says when they
    /// are ready).
    fn show_findings(&mut self, options: &serde_json::Value) -> Result<(), String> {
        if !matches!(options, serde_json::Value::Null)
            && options.as_object().is_none_or(|o| !o.is_empty())
        {
            return Err(format!(
                "show(\"findings\"): it takes no options, not {options}"
            ));
        }
        let threaded = self.threaded;
        let view = self.findings_view().ok_or("no recording is open")?;
        // Natively, wait for the thread: show() answers with the page.
        while threaded && view.computing() {
            view.step();
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        if let Some(rec) = self.slot_mut(self.shown).rec.as_mut() {
            rec.view = View::Findings;
        }
        Ok(())
    }

    /// What `puffinLens.ui()` returns: the shown recording's views.
    pub fn ui_json(&self) -> serde_json::Value {
        match self.slot(self.shown).rec.as_ref() {
            Some(rec) => {
                let mut v = rec.ui_json(&self.filter);
                v["shown"] = self.shown.label().to_lowercase().into();
                v["top_bar_rows"] = self.top_bar_rows.into();
                // Each side's name in the top bar (points: CSS pixels at
                // zoom 1), where a drop adds runs to that side.
                let chip = |s: Side| {
                    self.chip_rects[s as usize]
                        .map(|r| serde_json::json!([r.min.x, r.min.y, r.max.x, r.max.y]))
                };
                v["chips"] = serde_json::json!({"a": chip(Side::A), "b": chip(Side::B)});
                v["split"] = self
                    .shared
                    .borrow()
                    .split
                    .as_ref()
                    .map(|s| s.to_json())
                    .into();
                // A and B as a folder of `ab` runs paired them (judged as
                // pairs: the findings' `noise.model` is `paired-runs`).
                v["paired"] = self
                    .paired()
                    .map(|p| serde_json::json!({"source": p.source, "pairs": p.pairs}))
                    .into();
                if let (View::Findings, Some(f)) = (rec.view, &self.findings)
                    && let (serde_json::Value::Object(out), serde_json::Value::Object(fj)) =
                        (&mut v, f.to_json())
                {
                    out.extend(fj);
                }
                if let (View::Diff, Some(diff)) = (rec.view, &self.diff) {
                    let (sort, descending) = diff.sort();
                    v["mode"] = diff.mode().as_str().into();
                    v["building"] = diff.building().into();
                    v["normalize"] = diff.normalize().as_str().into();
                    v["basis"] = diff.basis().unit().into();
                    v["units"] = serde_json::json!([diff.units().0, diff.units().1]);
                    v["warnings"] = diff.warnings().into();
                    v["drift"] = diff.drift().into();
                    v["sort"] = sort.as_str().into();
                    v["descending"] = descending.into();
                    v["rows"] = diff.rows_json(UI_ROWS).into();
                    v["details"] = diff
                        .details()
                        .map(|d| {
                            serde_json::json!({
                                "name": d.name, "a_calls": d.a.len(), "b_calls": d.b.len(),
                                // Its call sites as the details list them.
                                "sites": d.sites.as_ref().map(|p| p.sites.iter().map(|s| serde_json::json!({
                                    "caller": s.caller, "thread": s.thread, "kind": s.change.kind,
                                })).collect::<Vec<_>>()),
                                "placed_at": d.sites.as_ref().and_then(|p| p.at),
                            })
                        })
                        .into();
                    if diff.mode() == crate::app::views::diff::DiffMode::Flame {
                        v["nodes"] = v["rows"].take();
                        v["rows"] = serde_json::Value::Array(Vec::new());
                        v["width"] = if diff.flame_width_from_a() { "a" } else { "b" }.into();
                        v["focus"] = if diff.flame_focus().is_empty() {
                            serde_json::Value::Null
                        } else {
                            diff.flame_focus().into()
                        };
                    }
                }
                v
            }
            // Nothing open: null, or the split dialog while it asks.
            None => match self.shared.borrow().split.as_ref() {
                Some(s) => serde_json::json!({"view": null, "split": s.to_json()}),
                None => serde_json::Value::Null,
            },
        }
    }

    /// Republishes `ui()` when what it reads changed, and writes the
    /// location hash.
    pub(super) fn publish_ui(&mut self) {
        use std::hash::{Hash as _, Hasher as _};
        let mut h = rustc_hash::FxHasher::default();
        self.shown.label().hash(&mut h);
        self.filter.hash(&mut h);
        self.paired().map(|p| p.pairs).hash(&mut h);
        if let Some(s) = self.shared.borrow().split.as_ref() {
            (&s.names, &s.to_a).hash(&mut h);
        }
        if let Some(rec) = self.slot(self.shown).rec.as_ref() {
            rec.hash().hash(&mut h);
            rec.tree.merged_rows().len().hash(&mut h);
            rec.tree
                .merged_rows()
                .iter()
                .take(UI_ROWS)
                .for_each(|n| n.hash(&mut h));
            rec.tree
                .frame_rows()
                .iter()
                .take(UI_ROWS)
                .for_each(|r| r.hash(&mut h));
            rec.tree.frame_rows().len().hash(&mut h);
            rec.table.thread().hash(&mut h);
            rec.tree.gap_window().map(|g| g.start_ns).hash(&mut h);
            rec.table
                .rows()
                .iter()
                .take(UI_ROWS)
                .for_each(|r| r.hash(&mut h));
            rec.table.rows().len().hash(&mut h);
            // Progress in whole percents: ui() follows a build.
            let percent = |b: Option<f32>| b.map(|b| (b * 100.0) as u32);
            percent(rec.table.building()).hash(&mut h);
            percent(rec.tree.building()).hash(&mut h);
            if let (View::Timeline, Some(t)) = (rec.view, &rec.timeline) {
                t.fingerprint(&mut h);
            }
            if let (View::Flame, Some(f)) = (rec.view, &rec.flame) {
                f.fingerprint(&mut h);
            }
            if let (View::Findings, Some(f)) = (rec.view, &self.findings) {
                f.computing().hash(&mut h);
            }
            let hash = match (&self.diff, rec.view) {
                (Some(diff), View::Diff) => {
                    diff.fingerprint(&mut h);
                    percent(diff.building()).hash(&mut h);
                    diff.hash()
                }
                // With A and B open, one recording's view says whose.
                (_, View::Findings) => rec.hash(),
                _ if self.a.rec.is_some() && self.b.rec.is_some() => {
                    format!("{}&side={}", rec.hash(), self.shown.label().to_lowercase())
                }
                _ => rec.hash(),
            };
            hash.hash(&mut h);
            if hash != self.last_hash {
                if std::mem::take(&mut self.replace_hash) {
                    platform::replace_hash(&hash);
                } else {
                    platform::set_hash(&hash);
                }
                self.last_hash = hash;
            }
            // Only the statement of the hash just navigated to replaces it.
            self.replace_hash = false;
        }
        let fingerprint = h.finish();
        if fingerprint != self.ui_fingerprint || self.shared.borrow().ui.is_none() {
            self.ui_fingerprint = fingerprint;
            self.shared.borrow_mut().ui = Some(self.ui_json().to_string());
        }
    }
}
