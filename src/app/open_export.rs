//! Opening recordings (loads started, polled and finished into a side,
//! errors, closing) and exporting what is shown ([`Export`], the report,
//! the flame graph).

use super::{
    Incoming, LoadJob, LoadStatus, Loaded, OnDone, Poll, PuffinLensApp, Recording, SLICE, Side,
    Slot, Source, View, platform,
};
use std::sync::Arc;

impl PuffinLensApp {
    /// Queues a recording (as the JavaScript API and file pickers do).
    pub fn open(&self, name: &str, source: Source, side: Option<Side>) {
        self.shared.borrow_mut().push(Incoming {
            add_run: false,
            name: name.to_owned(),
            source,
            side,
            on_done: None,
            turn: 0,
        });
    }

    /// Adds a recording as one more run of `side` (several runs a side,
    /// judged between runs); the side's first run when it has none.
    pub fn open_run(&self, name: &str, source: Source, side: Side) {
        self.shared.borrow_mut().push(Incoming {
            add_run: true,
            name: name.to_owned(),
            source,
            side: Some(side),
            on_done: None,
            turn: 0,
        });
    }

    /// Starts loading a recording. Without a side it becomes A unless a
    /// recording is shown there (then B, to compare). The latest request
    /// for a side wins: whatever was still loading or downloading for it is
    /// cancelled, its `load()` promise rejected, and `status().replaced`
    /// and the notice line say so.
    pub(super) fn start_load(&mut self, ctx: &egui::Context, mut incoming: Incoming) {
        let side = incoming.side.unwrap_or(if self.a.rec.is_none() {
            Side::A
        } else {
            Side::B
        });
        let started = web_time::Instant::now();
        let name = incoming.name.clone();
        // A run added to a side waits for the side's load in flight, and
        // replaces nothing; the first run of a side is a plain load.
        if incoming.add_run {
            let first_fetching = self.shared.borrow().first_run_fetching(side);
            let slot = self.slot_mut(side);
            if slot.job.is_some() || first_fetching {
                slot.queued_runs.push_back(incoming);
                return;
            }
            incoming.add_run = slot.rec.is_some();
        }
        if incoming.add_run {
            let job = LoadJob::start(incoming.name, incoming.source, ctx, self.threaded, false);
            self.tick += 1;
            let asked_at = self.tick;
            let slot = self.slot_mut(side);
            slot.job = Some((job, incoming.on_done));
            slot.adding_run = true;
            slot.asked_at = asked_at;
            log::info!("{name}: loading as one more run of {}", side.label());
            return;
        }
        // A plain request made after a folder of runs was given replaces it.
        if self
            .runs_turn()
            .is_some_and(|t| incoming.turn == 0 || incoming.turn > t)
        {
            self.cancel_runs(&incoming.name);
        }
        // A plain request for the side drops the runs queued for it before
        // it (those asked for after it stay: `?url=A1&url=A2`).
        let turn = incoming.turn;
        let (earlier, later): (Vec<Incoming>, Vec<Incoming>) =
            std::mem::take(&mut self.slot_mut(side).queued_runs)
                .into_iter()
                .partition(|q| turn == 0 || q.turn < turn);
        self.slot_mut(side).queued_runs = later.into();
        for queued in earlier {
            if let Some(on_done) = queued.on_done {
                on_done(Err(format!(
                    "{} ({}) was replaced by {} before it was added as a run",
                    queued.name,
                    side.label(),
                    incoming.name
                )));
            }
        }
        // Made before the request this side took last: its bytes came late.
        let (latest, latest_name) = self.slot(side).turn.clone();
        if incoming.turn < latest {
            let line = format!(
                "{} ({}) was replaced by {}, asked for after it, before it finished loading",
                incoming.name,
                side.label(),
                latest_name
            );
            log::info!("{line}");
            if let Some(on_done) = incoming.on_done {
                on_done(Err(line.clone()));
            }
            self.shared.borrow_mut().replaced = Some(line);
            return;
        }
        self.slot_mut(side).turn = (incoming.turn, incoming.name.clone());
        let mut replaced =
            self.shared
                .borrow_mut()
                .cancel_fetches(side, &incoming.name, incoming.turn);
        if let Some((old, on_done)) = self.slot_mut(side).job.take() {
            let line = format!(
                "{} ({}) was replaced by {} before it finished loading",
                old.name,
                side.label(),
                incoming.name
            );
            if let Some(on_done) = on_done {
                on_done(Err(line.clone()));
            }
            replaced.push(line);
        }
        platform::mark(&format!("load-start {}", incoming.name));
        let first_frame = self.frames_drawn == 0;
        let job = LoadJob::start(
            incoming.name,
            incoming.source,
            ctx,
            self.threaded,
            first_frame,
        );
        log::info!(
            "{name}: load started in {:.0} ms",
            started.elapsed().as_secs_f64() * 1e3
        );
        self.tick += 1;
        let asked_at = self.tick;
        let slot = self.slot_mut(side);
        slot.job = Some((job, incoming.on_done));
        slot.adding_run = false;
        slot.asked_at = asked_at;
        slot.replaced = replaced.pop();
        if let Some(line) = slot.replaced.clone() {
            log::info!("{line}");
            self.notice = Some(line.clone());
            self.shared.borrow_mut().replaced = Some(line);
        }
    }

    /// Advances the loads, decoding for what is left of `SLICE` this frame;
    /// returns whether one needs another frame to go on.
    pub(super) fn poll_loads(&mut self, frame_start: web_time::Instant) -> bool {
        let mut running = None;
        let mut needs_frames = false;
        for side in [Side::A, Side::B] {
            let slot = self.slot_mut(side);
            let Some((job, _)) = &mut slot.job else {
                continue;
            };
            let budget = SLICE.saturating_sub(frame_start.elapsed());
            match job.poll(budget) {
                Poll::Pending {
                    done_bytes,
                    total_bytes,
                    needs_polling,
                } => {
                    needs_frames |= needs_polling;
                    running = Some(LoadStatus {
                        name: job.name.clone(),
                        side: side.label(),
                        done_bytes,
                        total_bytes,
                    });
                }
                Poll::Ready(result) => {
                    let on_done = slot.job.take().and_then(|(_, on_done)| on_done);
                    let adding = std::mem::take(&mut slot.adding_run);
                    let result = match *result {
                        // One more run of the side: joined to what it shows.
                        Ok(run) if adding => match slot.rec.as_ref() {
                            Some(rec) => Ok(rec.loaded().with_run(run)),
                            None => Ok(run),
                        },
                        Err(msg) if adding => {
                            Err(format!("{msg} (left out of {}'s runs)", side.label()))
                        }
                        other => other,
                    };
                    self.finish_load(side, result, on_done);
                    // The next run queued for the side.
                    let ctx = self.shared.borrow().ctx.clone();
                    if let Some(ctx) = ctx
                        && let Some(next) = self.slot_mut(side).queued_runs.pop_front()
                    {
                        self.start_load(&ctx, next);
                        needs_frames = true;
                    }
                }
            }
        }
        let (runs_frames, runs_status) = self.poll_runs(frame_start);
        self.shared.borrow_mut().loading = running.or(runs_status);
        needs_frames || runs_frames
    }

    pub(super) fn finish_load(
        &mut self,
        side: Side,
        result: Result<Loaded, String>,
        on_done: Option<OnDone>,
    ) {
        match result {
            Ok(loaded) => {
                for d in &loaded.summary.diagnostics {
                    log::warn!("{}: {d}", loaded.name);
                }
                let summary_json = loaded.summary.to_json();
                platform::mark(&format!("decoded {}", loaded.name));
                let loaded = Arc::new(loaded);
                let started = web_time::Instant::now();
                let mut rec = Recording::new(
                    loaded.clone(),
                    self.settings.frame_budget_ms,
                    self.settings.default_stack(),
                );
                platform::mark(&format!("overview {}", loaded.name));
                self.shown_mark = Some(loaded.name.clone());
                log::info!(
                    "{}: {} scopes loaded in {:.0} ms; overview built in {:.1} ms",
                    loaded.name,
                    loaded.summary.scopes,
                    loaded.load_ms,
                    started.elapsed().as_secs_f64() * 1e3
                );
                // A link's hash says where to land; without one a pair
                // lands on its findings (below).
                let linked = self.pending_hash.take().map(|hash| rec.apply_hash(&hash));
                self.slot_mut(side).rec = Some(rec);
                // An error from before this request is over; a later one
                // (another request refused meanwhile) stays.
                if self.error_at < self.slot(side).asked_at {
                    self.error = None;
                }
                // What the user just opened is what they see.
                self.shown = side;
                let pair = self.a.rec.is_some() && self.b.rec.is_some();
                self.notice = match (&self.a.rec, &self.b.rec) {
                    (Some(a), Some(b)) => Some(format!(
                        "Showing the findings of B ({}) against A ({}), as `puffin-lens report` \
                         judges them: each name links to its evidence. The Diff view (key 5) \
                         has the whole table; A/B above switch between the recordings.",
                        b.loaded().name,
                        a.loaded().name,
                    )),
                    // Said again once the recording that replaced it is shown.
                    _ => self.slot_mut(side).replaced.take(),
                };
                if loaded.runs.len() > 1 {
                    let other = self
                        .slot(side.other())
                        .rec
                        .as_ref()
                        .map_or(1, |r| r.loaded().runs.len());
                    self.notice = Some(format!(
                        "{} holds {} runs ({}){}",
                        side.label(),
                        loaded.runs.len(),
                        loaded.runs.join(", "),
                        if other > 1 {
                            ": both sides have several runs, so each change is judged against \
                             how much it varies between runs"
                        } else {
                            ": with several runs on the other side too, each change is judged \
                             against how much it varies between runs"
                        }
                    ));
                }
                // A pair opens on its findings.
                if pair
                    && linked.is_none()
                    && let Some(rec) = self.slot_mut(side).rec.as_mut()
                {
                    rec.view = View::Findings;
                }
                let pair_now = self.a.rec.is_some() && self.b.rec.is_some() && {
                    let mut shared = self.shared.borrow_mut();
                    std::mem::take(&mut shared.pair_when_loaded)
                };
                // ?url=A&b=B: A shown, on the pair's findings (a hash that
                // names a view wins).
                if pair_now {
                    self.shown = Side::A;
                    if let Some(rec) = self.a.rec.as_mut()
                        && linked.is_none()
                    {
                        rec.view = View::Findings;
                    }
                }
                self.publish();
                if let Some(on_done) = on_done {
                    on_done(Ok(summary_json));
                }
            }
            Err(msg) => {
                log::error!("{msg}");
                self.set_error(msg.clone());
                self.publish();
                if let Some(on_done) = on_done {
                    on_done(Err(msg));
                }
            }
        }
    }

    /// Shows `msg` as the error line until dismissed or outdated.
    pub(super) fn set_error(&mut self, msg: String) {
        self.tick += 1;
        self.error = Some(msg);
        self.error_at = self.tick;
    }

    /// Tells the outside (JavaScript API) what the app shows now.
    pub(super) fn publish(&self) {
        let mut shared = self.shared.borrow_mut();
        shared.a = self.a.rec.as_ref().map(|r| r.loaded().clone());
        shared.b = self.b.rec.as_ref().map(|r| r.loaded().clone());
        shared.shown = self.shown;
        shared.error = self.error.clone();
    }

    pub(super) fn close(&mut self, side: Side) {
        if side == Side::A {
            self.live = None;
        }
        *self.slot_mut(side) = Slot::default();
        if side == Side::A && self.b.rec.is_some() {
            std::mem::swap(&mut self.a, &mut self.b);
        }
        self.shown = Side::A;
        self.notice = None;
        self.publish();
    }

    pub(super) fn export(&mut self, what: Export) {
        let Some(rec) = self.slot(self.shown).rec.as_ref() else {
            return;
        };
        let file = match (what, &self.a.rec, &self.b.rec) {
            // The report of A, and of B against A when both are open (a
            // folder's paired runs judged as pairs).
            (Export::Report, Some(a), b) => Ok(report_file_with(
                a.loaded(),
                b.as_ref().map(|b| b.loaded().as_ref()),
                self.paired().is_some(),
            )),
            // What the flame view shows: the frame selection, its thread.
            (Export::Flame, ..) => flame_file(
                rec.loaded(),
                rec.frames.positions(rec.loaded().trace()),
                rec.flame.as_ref().and_then(|f| f.thread()),
            ),
            _ => what.file(rec.loaded()),
        };
        let saved = file.and_then(|(name, mime, bytes)| platform::save_file(&name, mime, &bytes));
        if let Err(err) = saved {
            self.set_error(err);
        }
    }
}

/// What "Export JSON" / "Export CSV" save.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Export {
    /// The documented JSON export, as `puffin-lens dump` writes it.
    Json,
    /// The frames list as CSV.
    FramesCsv,
    /// The three Parquet tables of `puffin-lens export`, zipped in its
    /// folder layout (`scopes/`, `frames/`, `scope_defs/`).
    Parquet,
    /// `puffin-lens report A [B] --format html`: A, or B against A when
    /// both are open.
    Report,
    /// `puffin-lens flamegraph`: the interactive SVG of the frame selection
    /// (and of the flame view's thread).
    Flame,
    /// `export --format chrome`: the Trace Event Format (Perfetto UI,
    /// chrome://tracing, the Firefox Profiler).
    Chrome,
    /// `export --format speedscope`.
    Speedscope,
    /// `export --format folded`.
    Folded,
}

/// The HTML report of `a` (and of B against A): name, MIME type, contents.
pub fn report_file(a: &Loaded, b: Option<&Loaded>) -> (String, &'static str, Vec<u8>) {
    report_file_with(a, b, false)
}

/// [`report_file`], judged as paired runs when `paired` (a folder of `ab`
/// runs, as `report DIR` judges them).
fn report_file_with(
    a: &Loaded,
    b: Option<&Loaded>,
    paired: bool,
) -> (String, &'static str, Vec<u8>) {
    use crate::engine::report::Report;
    let report = Report::new(
        (&a.name, &a.decoded),
        b.map(|b| (b.name.as_str(), &b.decoded)),
        super::runs_given::report_options(paired),
    );
    let name = match b {
        Some(b) => format!("{}-vs-{}.report.html", a.name, b.name),
        None => format!("{}.report.html", a.name),
    };
    (name, "text/html", report.html().into_bytes())
}

impl Export {
    /// `"json"` or `"csv"`.
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "json" => Some(Export::Json),
            "csv" => Some(Export::FramesCsv),
            "parquet" => Some(Export::Parquet),
            "report" => Some(Export::Report),
            "flame" => Some(Export::Flame),
            "chrome" => Some(Export::Chrome),
            "speedscope" => Some(Export::Speedscope),
            "folded" => Some(Export::Folded),
            _ => None,
        }
    }

    /// The file to save: name, MIME type and contents.
    pub fn file(self, loaded: &Loaded) -> Result<(String, &'static str, Vec<u8>), String> {
        Ok(match self {
            Export::Json => (
                format!("{}.json", loaded.name),
                "application/json",
                crate::engine::export_string(loaded.trace(), &loaded.name, false).into_bytes(),
            ),
            Export::FramesCsv => (
                format!("{}.frames.csv", loaded.name),
                "text/csv",
                crate::engine::write::json::frames_csv(loaded.trace()).into_bytes(),
            ),
            Export::Parquet => (
                format!("{}.parquet.zip", loaded.name),
                "application/zip",
                parquet_zip(loaded)
                    .map_err(|err| format!("{}: Parquet export: {err}", loaded.name))?,
            ),
            Export::Report => report_file(loaded, None),
            Export::Flame => flame_file(loaded, 0..loaded.trace().frames.len() as u32, None)?,
            Export::Chrome | Export::Speedscope => {
                use crate::engine::write::chrome;
                let mut bytes = Vec::new();
                let (suffix, written) = if self == Export::Chrome {
                    (
                        "trace.json",
                        chrome::write_chrome(loaded.trace(), &loaded.name, &mut bytes),
                    )
                } else {
                    (
                        "speedscope.json",
                        chrome::write_speedscope(loaded.trace(), &loaded.name, &mut bytes),
                    )
                };
                written.map_err(|err| format!("{}: export: {err}", loaded.name))?;
                let stem = loaded
                    .name
                    .rsplit_once('.')
                    .map_or(loaded.name.as_str(), |(stem, _)| stem);
                (format!("{stem}.{suffix}"), "application/json", bytes)
            }
            Export::Folded => {
                let trace = loaded.trace();
                let stem = loaded
                    .name
                    .rsplit_once('.')
                    .map_or(loaded.name.as_str(), |(stem, _)| stem);
                (
                    format!("{stem}.folded"),
                    "text/plain",
                    crate::engine::write::folded::folded(trace, 0..trace.frames.len() as u32, None)
                        .into_bytes(),
                )
            }
        })
    }
}

/// `puffin-lens flamegraph` of these frames (and thread): name, MIME type,
/// contents.
pub fn flame_file(
    loaded: &Loaded,
    frames: std::ops::Range<u32>,
    thread: Option<&str>,
) -> Result<(String, &'static str, Vec<u8>), String> {
    use crate::engine::write::folded;
    let lines = folded::folded(loaded.trace(), frames, thread);
    let title = match thread {
        Some(t) => format!("{} (thread {t})", loaded.name),
        None => loaded.name.clone(),
    };
    let svg = folded::flamegraph_svg(&lines, &title, None)
        .map_err(|err| format!("{}: flame graph: {err}", loaded.name))?;
    Ok((format!("{}.flame.svg", loaded.name), "image/svg+xml", svg))
}

/// `scopes/<stem>.parquet`, `frames/<stem>.parquet` and
/// `scope_defs/<stem>.parquet` in a zip (stored: Parquet pages are
/// compressed already).
fn parquet_zip(loaded: &Loaded) -> Result<Vec<u8>, Box<dyn std::error::Error>> {
    use std::io::Write as _;
    let stem = loaded
        .name
        .rsplit_once('.')
        .map_or(loaded.name.as_str(), |(stem, _)| stem);
    let tables = crate::engine::write::parquet::write_tables(loaded.trace(), &loaded.name)?;
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let options = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Stored)
        .large_file(true);
    for (table, bytes) in tables {
        zip.start_file(format!("{}/{stem}.parquet", table.name()), options)?;
        zip.write_all(&bytes)?;
    }
    Ok(zip.finish()?.into_inner())
}
