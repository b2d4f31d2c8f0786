//! Connecting to a running app: the Connect… dialog, the live session's
//! frames polled into A, and its actions.

use super::live::{self, LiveAction, LiveSession};
use super::{Loaded, PuffinLensApp, Recording, Side, Slot, platform};
use egui::Key;
use std::sync::Arc;

impl PuffinLensApp {
    /// The live connection, when there is one.
    pub fn live(&self) -> Option<&LiveSession> {
        self.live.as_ref()
    }

    pub fn live_mut(&mut self) -> Option<&mut LiveSession> {
        self.live.as_mut()
    }

    /// Connects to a running app (`host:port` of its puffin_http server;
    /// in the browser a `puffin-lens relay` WebSocket address). Its frames
    /// are shown as A; a recording open as A moves to B, to compare with.
    pub fn connect(&mut self, ctx: &egui::Context, addr: &str) {
        self.live = None;
        match LiveSession::start(addr, self.settings.live_retention, ctx) {
            Ok(session) => {
                log::info!("live: connecting to {}", session.addr);
                if self.a.rec.is_some() && self.b.rec.is_none() && self.b.job.is_none() {
                    std::mem::swap(&mut self.a, &mut self.b);
                }
                self.a = Slot::default();
                self.diff = None;
                self.shown = Side::A;
                self.settings.live_addr = addr.trim().to_owned();
                self.live = Some(session);
                self.error = None;
                self.notice = None;
                self.publish();
            }
            Err(err) => {
                self.set_error(err);
                self.publish();
            }
        }
    }

    /// Shows newer live frames when due (views rebuilt with where the user
    /// was: view, frame, scope, sort), and publishes the connection's status.
    pub(super) fn poll_live(&mut self, ctx: &egui::Context) {
        let Some(live) = self.live.as_mut() else {
            self.shared.borrow_mut().live = None;
            return;
        };
        if let Some((decoded, kept_bytes)) = live.due() {
            let started = web_time::Instant::now();
            let loaded = Arc::new(Loaded::new(live.name(), decoded, kept_bytes, 0.0));
            let budget = self.settings.frame_budget_ms;
            let default_stack = self.settings.default_stack();
            let rec = match self.a.rec.take() {
                Some(old) => {
                    let hash = old.hash();
                    let mut rec = Recording::new(loaded, budget, default_stack.clone());
                    rec.apply_hash(&hash);
                    rec
                }
                None => Recording::new(loaded, budget, default_stack.clone()),
            };
            self.a.rec = Some(rec);
            if self.shown == Side::A {
                let (filter, substring) = (self.filter.clone(), self.settings.substring);
                if let Some(rec) = self.a.rec.as_mut() {
                    rec.sync(&filter, substring);
                }
            }
            self.diff = None;
            live.refreshed(started);
            let shared = &mut *self.shared.borrow_mut();
            shared.a = self.a.rec.as_ref().map(|r| r.loaded().clone());
        }
        if let Some(wait) = live.next_check() {
            ctx.request_repaint_after(wait);
        }
        self.shared.borrow_mut().live = Some(live.status_json());
    }

    pub(super) fn apply_live_action(&mut self, action: LiveAction) {
        let Some(live) = self.live.as_mut() else {
            return;
        };
        live.apply(&action);
        match action {
            LiveAction::Save => {
                let bytes = live.to_puffin();
                if let Err(err) =
                    platform::save_file("live_capture.puffin", "application/octet-stream", &bytes)
                {
                    self.set_error(err);
                }
            }
            LiveAction::Disconnect => self.live = None,
            LiveAction::Retention(r) => self.settings.live_retention = r,
            LiveAction::Pause(_) | LiveAction::Clear => {}
        }
    }

    pub(super) fn connect_dialog(&mut self, ctx: &egui::Context) {
        let Some(mut addr) = self.connect_dialog.take() else {
            return;
        };
        let mut open = true;
        let mut go = false;
        egui::Window::new("Connect to a running app")
            .open(&mut open)
            .collapsible(false)
            .resizable(false)
            .show(ctx, |ui| {
                if cfg!(target_arch = "wasm32") {
                    ui.label(
                        "Browsers cannot open TCP connections: run `puffin-lens relay` next to \
                         the app (it forwards 127.0.0.1:8585 to ws://127.0.0.1:8586), then \
                         connect to the relay's address.",
                    );
                } else {
                    ui.label(
                        "The app serves its frames with puffin_http: \
                         `puffin_http::Server::new(\"127.0.0.1:8585\")` and \
                         `puffin::set_scopes_on(true)`.",
                    );
                }
                let edit = ui.add(
                    egui::TextEdit::singleline(&mut addr)
                        .hint_text(live::default_addr())
                        .desired_width(260.0),
                );
                let enter = edit.lost_focus() && ui.input(|i| i.key_pressed(Key::Enter));
                ui.horizontal(|ui| {
                    go = ui.button("Connect").clicked() || enter;
                });
            });
        if go {
            self.connect(ctx, &addr);
        } else if open {
            self.connect_dialog = Some(addr);
        }
    }
}
