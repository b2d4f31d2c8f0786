//! Connect… ▸ Record A/B runs… (the desktop only: the browser cannot start programs or open
//! TCP connections): two builds' runs recorded alternately, as `puffin-lens
//! ab` records them (`engine::record::ab`), into a folder with its
//! manifest, then opened as paired runs on their findings. A's and B's are
//! the addresses of two apps already running (each run records frames from
//! one), or two commands: each writes its recording to `{out}`, or starts
//! the app serving puffin_http at an address (started and stopped per run).
//! The session runs on a thread of its own; the dialog shows its progress
//! and stops it.

use crate::engine::record::ab::{self, Control, Names, Progress, Recorder, Session};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

/// How A's and B's runs are recorded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AbMode {
    /// A and B are the addresses of two apps already running.
    TwoApps,
    /// A and B are commands writing their recording to `{out}`.
    Writes,
    /// A and B are commands starting the app serving at `addr`.
    Serves,
}

/// What the dialog asks.
#[derive(Clone, Debug)]
pub struct AbForm {
    pub mode: AbMode,
    pub a: String,
    pub b: String,
    /// With [`AbMode::Serves`]: where the app serves.
    pub addr: String,
    pub runs: usize,
    pub frames: u64,
    pub warmup: u64,
    /// The folder (empty: a new `ab-runs-N` in the current folder).
    pub out: String,
    /// Write into a folder that holds files.
    pub force: bool,
}

impl Default for AbForm {
    fn default() -> Self {
        Self {
            mode: AbMode::TwoApps,
            a: "127.0.0.1:8585".to_owned(),
            b: "127.0.0.1:8586".to_owned(),
            addr: "127.0.0.1:8585".to_owned(),
            runs: 5,
            frames: 300,
            warmup: 30,
            out: String::new(),
            force: false,
        }
    }
}

/// The settings as the dialog names them (in its errors).
const NAMES: Names = Names {
    a: "A",
    b: "B",
    runs: "runs a side",
    out: "folder",
    force: "tick \"write into it\"",
    addr: "\"serves at\"",
    start_timeout: "the app may take 30 s to start serving",
};

impl AbForm {
    fn recorder(&self) -> Recorder {
        match self.mode {
            AbMode::TwoApps => Recorder::Attached {
                frames: self.frames,
                warmup: self.warmup,
                stall_s: 30.0,
            },
            AbMode::Writes => Recorder::Out,
            AbMode::Serves => Recorder::Http {
                addr: self.addr.trim().to_owned(),
                frames: self.frames,
                warmup: self.warmup,
                start_timeout_s: 30.0,
            },
        }
    }

    /// The folder the runs go to: the one given, or the first `ab-runs-N`
    /// not yet in the current folder.
    fn folder(&self) -> PathBuf {
        if !self.out.trim().is_empty() {
            return PathBuf::from(self.out.trim());
        }
        (1..)
            .map(|n| PathBuf::from(format!("ab-runs-{n}")))
            .find(|p| !p.exists())
            .unwrap_or_default()
    }
}

/// A session recording on its thread.
pub struct Running {
    pub out: PathBuf,
    control: Arc<Control>,
    status: Arc<Mutex<String>>,
    thread: Option<std::thread::JoinHandle<Result<usize, String>>>,
}

/// How a session ended: the folder, the pairs it kept, and the error that
/// ended it early (stopped, a run that failed).
pub struct Ended {
    pub out: PathBuf,
    pub kept_pairs: usize,
    pub error: Option<String>,
}

impl Running {
    /// Checks the form and starts recording (`repaint`: called as it goes).
    pub fn start(form: &AbForm, repaint: impl Fn() + Send + 'static) -> Result<Self, String> {
        let out = form.folder();
        let recorder = form.recorder();
        let (a, b) = (form.a.trim().to_owned(), form.b.trim().to_owned());
        ab::check(&a, &b, form.runs, &out, form.force, &recorder, NAMES)
            .map_err(|e| format!("Record A/B: {e:#}"))?;
        let control = Arc::new(Control::new());
        let status = Arc::new(Mutex::new("starting…".to_owned()));
        let (runs, at) = (form.runs, out.clone());
        let (control_t, status_t) = (control.clone(), status.clone());
        let thread = std::thread::Builder::new()
            .name("record-ab".to_owned())
            .spawn(move || {
                let mut session = Session::new(&a, &b, &at, &recorder, &control_t, NAMES)
                    .map_err(|e| format!("{e:#}"))?;
                let told = session.record_until(runs, &mut |p| {
                    if let Ok(mut s) = status_t.lock() {
                        *s = describe(p, s.as_str());
                    }
                    repaint();
                });
                repaint();
                told.map(|()| session.pairs()).map_err(|e| format!("{e:#}"))
            })
            .map_err(|e| format!("Record A/B: cannot start its thread: {e}"))?;
        Ok(Self {
            out,
            control,
            status,
            thread: Some(thread),
        })
    }

    /// What it is doing now, one line.
    pub fn status(&self) -> String {
        self.status.lock().map(|s| s.clone()).unwrap_or_default()
    }

    /// Stops it (the running app stopped; the finished runs kept).
    pub fn stop(&self) {
        let control = self.control.clone();
        // Stopping waits for the app to end: not on the UI's thread.
        std::thread::spawn(move || control.stop());
    }

    /// How it ended, once it has.
    pub fn ended(&mut self) -> Option<Ended> {
        if !self.thread.as_ref()?.is_finished() {
            return None;
        }
        let told = match self.thread.take()?.join() {
            Ok(told) => told,
            Err(_) => Err("the recording thread failed".to_owned()),
        };
        let kept_pairs = kept_pairs(&self.out);
        Some(Ended {
            out: self.out.clone(),
            kept_pairs,
            error: told.err(),
        })
    }
}

/// The finished pairs the folder's manifest lists.
fn kept_pairs(out: &std::path::Path) -> usize {
    use crate::engine::runs_manifest::{MANIFEST, Manifest, finished_pairs};
    std::fs::read(out.join(MANIFEST))
        .ok()
        .and_then(|b| Manifest::parse(&b).ok())
        .map_or(0, |m| {
            finished_pairs(&m, |f| out.join(f).is_file()).pairs.len()
        })
}

/// A progress line (`was`: the line before, kept for frames of the same
/// run).
fn describe(p: &Progress, was: &str) -> String {
    match p {
        Progress::Started { run, total, name } => {
            format!("run {run} of {total} ({name}): starting")
        }
        Progress::Frames { frames, .. } => {
            let head = was.split(':').next().unwrap_or(was);
            format!("{head}: {frames} frames")
        }
        Progress::Recorded {
            run,
            total,
            duration_ms,
            frames,
            ..
        } => format!(
            "run {run} of {total} kept ({frames} frames, {:.1} s)",
            *duration_ms as f64 / 1e3
        ),
    }
}

/// The dialog's state: the form, and the session once started.
#[derive(Default)]
pub struct RecordAb {
    pub form: AbForm,
    pub running: Option<Running>,
    /// The form's last error (a setting that does not hold).
    pub error: Option<String>,
}

/// What the dialog asks of the app.
pub enum DialogAction {
    None,
    Start,
    Close,
}

impl RecordAb {
    /// The dialog: the form while nothing runs, the progress and Stop while
    /// it does.
    pub fn ui(&mut self, ctx: &egui::Context) -> DialogAction {
        let mut open = true;
        let mut action = DialogAction::None;
        egui::Window::new("Record A/B")
            .open(&mut open)
            .collapsible(false)
            .resizable(false)
            .show(ctx, |ui| {
                if let Some(running) = &self.running {
                    ui.label(format!("Recording into {}", running.out.display()));
                    ui.horizontal(|ui| {
                        ui.spinner();
                        ui.label(running.status());
                    });
                    if ui
                        .button("Stop")
                        .on_hover_text("Stop the running app; the finished pairs open")
                        .clicked()
                    {
                        running.stop();
                    }
                    return;
                }
                let f = &mut self.form;
                ui.label(
                    "A's and B's runs alternate (A B B A …, so that the machine's drift weighs \
                     on both alike); the runs and a manifest are kept in the folder, then open \
                     as pairs on their findings (as `puffin-lens ab`).",
                );
                ui.horizontal(|ui| {
                    ui.radio_value(&mut f.mode, AbMode::TwoApps, "Two running apps")
                        .on_hover_text("A and B: the addresses of two apps serving puffin_http");
                    ui.radio_value(&mut f.mode, AbMode::Writes, "Commands writing {out}")
                        .on_hover_text("Each run: `sh -c` the command, {out} its recording's path");
                    ui.radio_value(&mut f.mode, AbMode::Serves, "Commands serving")
                        .on_hover_text(
                            "Each run: the command starts the app serving puffin_http at the \
                             address; its frames are recorded, then it is stopped",
                        );
                });
                let hint = match f.mode {
                    AbMode::TwoApps => ("127.0.0.1:8585", "127.0.0.1:8586"),
                    AbMode::Writes => ("./old/game --record {out}", "./new/game --record {out}"),
                    AbMode::Serves => ("./old/game", "./new/game"),
                };
                egui::Grid::new("record_ab_form")
                    .num_columns(2)
                    .show(ui, |ui| {
                        ui.label("A (before)");
                        ui.add(
                            egui::TextEdit::singleline(&mut f.a)
                                .hint_text(hint.0)
                                .desired_width(380.0),
                        );
                        ui.end_row();
                        ui.label("B (after)");
                        ui.add(
                            egui::TextEdit::singleline(&mut f.b)
                                .hint_text(hint.1)
                                .desired_width(380.0),
                        );
                        ui.end_row();
                        if f.mode == AbMode::Serves {
                            ui.label("Serves at");
                            ui.text_edit_singleline(&mut f.addr);
                            ui.end_row();
                        }
                        ui.label("Runs a side");
                        ui.add(egui::DragValue::new(&mut f.runs).range(1..=1000));
                        ui.end_row();
                        if f.mode != AbMode::Writes {
                            ui.label("Frames a run");
                            ui.add(egui::DragValue::new(&mut f.frames).range(1..=1_000_000));
                            ui.end_row();
                            ui.label("Warm-up frames skipped");
                            ui.add(egui::DragValue::new(&mut f.warmup).range(0..=1_000_000));
                            ui.end_row();
                        }
                        ui.label("Folder");
                        ui.horizontal(|ui| {
                            ui.add(
                                egui::TextEdit::singleline(&mut f.out)
                                    .hint_text("a new ab-runs-N here")
                                    .desired_width(300.0),
                            );
                            if ui.button("Choose…").clicked()
                                && let Some(dir) = rfd::FileDialog::new().pick_folder()
                            {
                                f.out = dir.display().to_string();
                            }
                        });
                        ui.end_row();
                        ui.label("");
                        ui.checkbox(&mut f.force, "write into it even if it holds files");
                        ui.end_row();
                    });
                if let Some(err) = &self.error {
                    ui.colored_label(ui.visuals().error_fg_color, err);
                }
                if ui.button("Record").clicked() {
                    action = DialogAction::Start;
                }
            });
        if !open {
            if let Some(running) = &self.running {
                running.stop();
            }
            return DialogAction::Close;
        }
        action
    }
}

impl crate::app::PuffinLensApp {
    /// Starts recording A/B runs as `form` says (the dialog's Record); the
    /// folder opens as paired runs when they are done. `Err`: a setting
    /// that does not hold, in one line (the dialog shows it too).
    pub fn record_ab(&mut self, ctx: &egui::Context, form: AbForm) -> Result<(), String> {
        let dialog = self.record_ab.get_or_insert_with(RecordAb::default);
        dialog.form = form;
        let repaint = {
            let ctx = ctx.clone();
            move || ctx.request_repaint()
        };
        match Running::start(&dialog.form, repaint) {
            Ok(running) => {
                dialog.running = Some(running);
                dialog.error = None;
                Ok(())
            }
            Err(err) => {
                dialog.error = Some(err.clone());
                Err(err)
            }
        }
    }

    /// The A/B session's progress line while it records.
    pub fn record_ab_status(&self) -> Option<String> {
        let running = self.record_ab.as_ref()?.running.as_ref()?;
        Some(running.status())
    }

    /// Whether an A/B session is recording.
    pub fn is_recording_ab(&self) -> bool {
        self.record_ab_status().is_some()
    }

    /// The Record A/B dialog's error (a setting, a run that failed).
    pub fn record_ab_error(&self) -> Option<&str> {
        self.record_ab.as_ref()?.error.as_deref()
    }

    /// Opens the Record A/B dialog.
    pub(in crate::app) fn open_record_ab(&mut self) {
        self.record_ab.get_or_insert_with(RecordAb::default);
    }

    /// Each frame: the dialog, and a session that ended opened.
    pub(in crate::app) fn record_ab_frame(&mut self, ctx: &egui::Context) {
        let Some(dialog) = self.record_ab.as_mut() else {
            return;
        };
        let ended = dialog.running.as_mut().and_then(Running::ended);
        if let Some(ended) = ended {
            dialog.running = None;
            self.record_ab_ended(ended);
        } else if dialog.running.is_some() {
            ctx.request_repaint_after(std::time::Duration::from_millis(250));
        }
        let Some(dialog) = self.record_ab.as_mut() else {
            return;
        };
        match dialog.ui(ctx) {
            DialogAction::Start => {
                let form = dialog.form.clone();
                let _ = self.record_ab(ctx, form);
            }
            // Closed while recording: it stops, and what it kept opens.
            DialogAction::Close if dialog.running.is_none() => self.record_ab = None,
            DialogAction::Close | DialogAction::None => {}
        }
    }

    /// The finished pairs of a session that ended open as paired runs (on
    /// their findings); an error (stopped, a run that failed) stays in the
    /// dialog, which stays open.
    fn record_ab_ended(&mut self, ended: Ended) {
        log::info!(
            "record A/B: {} pair(s) in {}{}",
            ended.kept_pairs,
            ended.out.display(),
            ended
                .error
                .as_deref()
                .map_or(String::new(), |e| format!(": {e}"))
        );
        if ended.kept_pairs == 0 {
            let err = ended.error.unwrap_or_else(|| "no finished pair".to_owned());
            if let Some(dialog) = self.record_ab.as_mut() {
                dialog.error = Some(format!("Record A/B: {err}"));
            }
            return;
        }
        match (ended.error, self.record_ab.as_mut()) {
            (Some(err), Some(dialog)) => {
                dialog.error = Some(format!(
                    "Record A/B ended early ({err}): its {} finished pair(s) open",
                    ended.kept_pairs
                ));
            }
            _ => self.record_ab = None,
        }
        let name = super::file_name(&ended.out.to_string_lossy());
        let mut shared = self.shared.borrow_mut();
        shared.runs_files = Some((vec![name], vec![super::GivenFile::Path(ended.out)]));
        if let Some(ctx) = &shared.ctx {
            ctx.request_repaint();
        }
    }
}
