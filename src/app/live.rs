//! Live capture in the app: a connection to a running app's puffin_http
//! server (natively a TCP client thread; in the browser a WebSocket to
//! `puffin-lens relay`) filling an [`engine::read::live::LiveRecording`], shown
//! as recording A and re-read at most a few times a second.
//!
//! [`engine::read::live::LiveRecording`]: crate::engine::read::live::LiveRecording

use crate::engine::Decoded;
use crate::engine::read::live::{LiveState, LiveStatus, Retention, lock};
use std::sync::{Arc, Mutex, MutexGuard};
use web_time::{Duration, Instant};

/// Views are rebuilt at most this often while frames arrive…
const REFRESH: Duration = Duration::from_millis(500);
/// …and never more than a third of the time (a big model takes a while).
const REFRESH_COST_FACTOR: u32 = 3;

/// The address the Connect… dialog offers first.
pub fn default_addr() -> &'static str {
    if cfg!(target_arch = "wasm32") {
        "ws://127.0.0.1:8586"
    } else {
        "127.0.0.1:8585"
    }
}

pub struct LiveSession {
    /// As the user typed it (natively `host:port` with the port filled in).
    pub addr: String,
    state: Arc<Mutex<LiveState>>,
    #[cfg(not(target_arch = "wasm32"))]
    _client: crate::engine::read::live_tcp::LiveClient,
    #[cfg(target_arch = "wasm32")]
    _socket: super::platform::web::LiveSocket,
    /// Frames still arrive, the views stay as they are.
    pub paused: bool,
    /// The recording's generation the views show.
    shown_generation: u64,
    last_refresh: Option<Instant>,
    /// What the last refresh cost (snapshot + views).
    pub refresh_cost: Duration,
}

/// What the live bar asks for.
pub enum LiveAction {
    Pause(bool),
    Clear,
    Save,
    Disconnect,
    Retention(Retention),
}

impl LiveSession {
    /// Connects to `addr`; `ctx` is woken when frames arrive.
    pub fn start(addr: &str, retention: Retention, ctx: &egui::Context) -> Result<Self, String> {
        let ctx = ctx.clone();
        let wake = move || ctx.request_repaint();
        #[cfg(not(target_arch = "wasm32"))]
        {
            use crate::engine::read::live_tcp::{LiveClient, LiveOptions};
            let options = LiveOptions {
                retention,
                ..Default::default()
            };
            let client = LiveClient::start(addr, options, wake)
                .map_err(|err| format!("{addr}: cannot start the connection: {err}"))?;
            Ok(Self::with_state(
                client.addr.clone(),
                client.shared_state(),
                client,
            ))
        }
        #[cfg(target_arch = "wasm32")]
        {
            use crate::engine::read::live::LiveRecording;
            let addr = addr.trim();
            if !(addr.starts_with("ws://") || addr.starts_with("wss://")) {
                return Err(format!(
                    "{addr}: the browser connects through `puffin-lens relay`: give its \
                     WebSocket address, like ws://127.0.0.1:8586"
                ));
            }
            let state = Arc::new(Mutex::new(LiveState::new(LiveRecording::new(retention))));
            let socket = super::platform::web::LiveSocket::open(addr, state.clone(), wake);
            Ok(Self::with_state(addr.to_owned(), state, socket))
        }
    }

    fn with_state(
        addr: String,
        state: Arc<Mutex<LiveState>>,
        #[cfg(not(target_arch = "wasm32"))] client: crate::engine::read::live_tcp::LiveClient,
        #[cfg(target_arch = "wasm32")] socket: super::platform::web::LiveSocket,
    ) -> Self {
        Self {
            addr,
            state,
            #[cfg(not(target_arch = "wasm32"))]
            _client: client,
            #[cfg(target_arch = "wasm32")]
            _socket: socket,
            paused: false,
            shown_generation: 0,
            last_refresh: None,
            refresh_cost: Duration::ZERO,
        }
    }

    /// The recording's name in the app.
    pub fn name(&self) -> String {
        format!("live {}", self.addr)
    }

    pub fn state(&self) -> MutexGuard<'_, LiveState> {
        lock(&self.state)
    }

    /// A snapshot of the recording when the views should show a newer one
    /// now (not paused, something changed, the last refresh long enough ago).
    pub fn due(&mut self) -> Option<(Decoded, usize)> {
        if self.paused || self.wait().is_some_and(|w| w > Duration::ZERO) {
            return None;
        }
        let state = self.state();
        let generation = state.recording.generation;
        if generation == self.shown_generation || state.recording.frames() == 0 && generation == 0 {
            return None;
        }
        let snapshot = (state.recording.snapshot(), state.recording.kept_bytes());
        drop(state);
        self.shown_generation = generation;
        Some(snapshot)
    }

    /// Call after the views were rebuilt from [`Self::due`]'s snapshot.
    pub fn refreshed(&mut self, started: Instant) {
        self.refresh_cost = started.elapsed();
        self.last_refresh = Some(Instant::now());
    }

    /// How long until the next refresh may happen (`None`: any time).
    fn wait(&self) -> Option<Duration> {
        let last = self.last_refresh?;
        let gap = REFRESH.max(self.refresh_cost * REFRESH_COST_FACTOR);
        Some(gap.saturating_sub(last.elapsed()))
    }

    /// When to look again for new frames (while some are not shown yet).
    pub fn next_check(&self) -> Option<Duration> {
        if self.paused || self.state().recording.generation == self.shown_generation {
            return None;
        }
        Some(self.wait().unwrap_or(Duration::ZERO))
    }

    /// The status line: the connection, frames and bytes, and its buttons.
    pub fn ui(&self, ui: &mut egui::Ui) -> Option<LiveAction> {
        let mut action = None;
        let state = self.state();
        let rec = &state.recording;
        let color = match state.status {
            LiveStatus::Connected => egui::Color32::from_rgb(60, 170, 80),
            LiveStatus::Failed(_) => ui.visuals().error_fg_color,
            _ => ui.visuals().warn_fg_color,
        };
        ui.horizontal_wrapped(|ui| {
            let (dot, _) = ui.allocate_exact_size(egui::vec2(10.0, 10.0), egui::Sense::hover());
            ui.painter().circle_filled(dot.center(), 4.5, color);
            ui.label(egui::RichText::new("LIVE").color(color).strong());
            ui.label(&self.addr);
            // The buttons first: the counts after them change width as
            // frames arrive.
            let pause = if self.paused { "Resume" } else { "Pause" };
            if ui
                .button(pause)
                .on_hover_text("Stop updating the views; frames are still received")
                .clicked()
            {
                action = Some(LiveAction::Pause(!self.paused));
            }
            if ui
                .button("Clear")
                .on_hover_text("Drop the frames received so far")
                .clicked()
            {
                action = Some(LiveAction::Clear);
            }
            if ui
                .add_enabled(rec.frames() > 0, egui::Button::new("Save recording…"))
                .on_hover_text(
                    "The kept frames as a .puffin file (puffin 0.20 and puffin_viewer open it)",
                )
                .clicked()
            {
                action = Some(LiveAction::Save);
            }
            if ui.button("Disconnect").clicked() {
                action = Some(LiveAction::Disconnect);
            }
            let mut r = rec.retention();
            ui.menu_button("Keep…", |ui| {
                ui.label("Keep the newest frames; older ones are dropped");
                ui.add(
                    egui::DragValue::new(&mut r.max_frames)
                        .range(1..=10_000_000)
                        .suffix(" frames"),
                );
                ui.add(
                    egui::DragValue::new(&mut r.max_mb)
                        .range(1..=65_536)
                        .suffix(" MB received"),
                );
            });
            if r != rec.retention() {
                action = Some(LiveAction::Retention(r));
            }
            ui.separator();
            ui.label(egui::RichText::new(state.status.describe()).color(color));
            let version = rec
                .version
                .map_or(String::new(), |v| format!(", protocol {v}"));
            ui.label(format!(
                "{} frames kept of {} received · {} received{version}",
                rec.frames(),
                rec.received_frames,
                crate::units::bytes(state.bytes_received),
            ))
            .on_hover_text(format!(
                "{} frames dropped (retention or Clear); {} connection(s) so far",
                rec.dropped_frames, state.connections
            ));
            if self.paused {
                ui.label(
                    egui::RichText::new("paused: the views do not update")
                        .color(ui.visuals().warn_fg_color),
                );
            }
        });
        action
    }

    /// Applies a bar action that only concerns the connection's recording.
    pub fn apply(&mut self, action: &LiveAction) {
        match action {
            LiveAction::Pause(p) => self.paused = *p,
            LiveAction::Clear => self.state().recording.clear(),
            LiveAction::Retention(r) => self.state().recording.set_retention(*r),
            LiveAction::Save | LiveAction::Disconnect => {}
        }
    }

    /// The kept frames as a `.puffin` file.
    pub fn to_puffin(&self) -> Vec<u8> {
        self.state().recording.to_puffin()
    }

    /// What `status()` reports about the connection.
    pub fn status_json(&self) -> serde_json::Value {
        let state = self.state();
        let (kind, message) = state.status.kind_message();
        serde_json::json!({
            "addr": self.addr,
            "status": kind,
            "message": message,
            "frames": state.recording.frames(),
            "received_frames": state.recording.received_frames,
            "dropped_frames": state.recording.dropped_frames,
            "bytes_received": state.bytes_received,
            "paused": self.paused,
            "shown_generation": self.shown_generation,
        })
    }
}
