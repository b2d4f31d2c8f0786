//! A folder of `ab` runs opened by its manifest ([`super::runs_given`]):
//! the files are read (natively at once, in the browser one after the
//! other), each run decoded as any recording is, one after the other, and
//! once all are, the pairs whose two runs both loaded become A's and B's
//! runs at once, in index order, judged as pairs ([`Paired`]: the findings
//! and the diff use the noise of `report DIR`). A run that cannot be read
//! leaves its pair out, and the error line says so; the other pairs open.

use super::runs_given::{GivenRun, Plan, RunsGiven, is_runs_folder, runs_in_zip};
use super::shared::GivenFile;
use super::{LoadJob, LoadStatus, Loaded, Poll, PuffinLensApp, SLICE, Side, Source, platform};
use std::sync::{Arc, Weak};

/// A's and B's runs as a folder of `ab` runs pairs them: while both sides
/// show exactly what it opened, they are judged as pairs.
pub struct Paired {
    /// Where the manifest was (`manifest.json`, `ci.zip: runs/manifest.json`).
    pub source: String,
    /// The pairs opened.
    pub pairs: usize,
    a: Weak<Loaded>,
    b: Weak<Loaded>,
}

impl Paired {
    /// Whether `a` and `b` are the runs it paired (neither replaced nor
    /// added to since).
    fn holds(&self, a: &Arc<Loaded>, b: &Arc<Loaded>) -> bool {
        std::ptr::eq(self.a.as_ptr(), Arc::as_ptr(a))
            && std::ptr::eq(self.b.as_ptr(), Arc::as_ptr(b))
    }
}

/// The runs of a folder being decoded, one after the other.
pub(super) struct RunsOpen {
    source: String,
    planned: usize,
    /// What of the manifest could not be used, one phrase each.
    unusable: Vec<String>,
    turn: u64,
    /// Each pair's index and its runs (A's, B's).
    pairs: Vec<(usize, [Staged; 2])>,
}

struct Staged {
    name: String,
    stage: Stage,
}

enum Stage {
    Waiting(Vec<u8>),
    Loading(LoadJob),
    Done(Box<Result<Loaded, String>>),
}

impl PuffinLensApp {
    /// The pairing of what A and B show, when they are the runs of a folder
    /// of `ab` runs as it opened them.
    pub fn paired(&self) -> Option<&Paired> {
        let (a, b) = (self.a.rec.as_ref()?.loaded(), self.b.rec.as_ref()?.loaded());
        self.paired.as_ref().filter(|p| p.holds(a, b))
    }

    /// Files given together (dropped or picked, `names` theirs): when they
    /// are a folder of `ab` runs (its manifest among them, or one zip), they
    /// are read and opened by the manifest (natively now, in the browser
    /// once read) and `true`; else `false`, and they are left as they are.
    pub(super) fn open_runs_folder(
        &mut self,
        names: &[String],
        files: &mut Vec<GivenFile>,
    ) -> bool {
        #[cfg(not(target_arch = "wasm32"))]
        let (names, files) = match expand_folder(files) {
            Some((names, folder)) if is_runs_folder(&names) => (names, folder),
            _ if is_runs_folder(names) => (names.to_vec(), std::mem::take(files)),
            _ => return false,
        };
        #[cfg(target_arch = "wasm32")]
        let (names, files) = if is_runs_folder(names) {
            (names.to_vec(), std::mem::take(files))
        } else {
            return false;
        };
        let turn = self.shared.borrow_mut().take_turn();
        #[cfg(not(target_arch = "wasm32"))]
        {
            let read = |i: usize| platform::read_given_now(&files[i], &names[i]);
            let given = match names
                .iter()
                .position(|n| n == crate::engine::runs_manifest::MANIFEST)
            {
                Some(at) => {
                    Plan::new(&names[at], read(at), |f| names.iter().any(|n| n == f)).map(|plan| {
                        plan.given(turn, |f| match names.iter().position(|n| n == f) {
                            Some(i) => read(i),
                            None => Err(format!("{f}: missing")),
                        })
                    })
                }
                None => read(0).and_then(|bytes| runs_in_zip(&names[0], bytes, turn)),
            };
            match given {
                Ok(given) => self.open_runs(given),
                Err(err) => self.runs_error(err),
            }
        }
        #[cfg(target_arch = "wasm32")]
        {
            let shared = self.shared.clone();
            wasm_bindgen_futures::spawn_local(async move {
                let given = read_later(&names, &files, turn).await;
                let mut shared = shared.borrow_mut();
                match given {
                    Ok(given) => {
                        shared.runs_given = Some(given);
                        if let Some(ctx) = &shared.ctx {
                            ctx.request_repaint();
                        }
                    }
                    Err(err) => shared.fail(err),
                }
            });
        }
        true
    }

    fn runs_error(&mut self, err: String) {
        log::error!("{err}");
        self.set_error(err);
        self.publish();
    }

    /// Starts decoding the runs given, one after the other (replacing a
    /// folder still being opened).
    pub(super) fn open_runs(&mut self, given: RunsGiven) {
        let RunsGiven {
            source,
            pairs,
            planned,
            unusable,
            turn,
        } = given;
        let stage = |run: GivenRun| Staged {
            name: run.name,
            stage: match run.bytes {
                Ok(bytes) => Stage::Waiting(bytes),
                Err(err) => Stage::Done(Box::new(Err(err))),
            },
        };
        log::info!("{source}: opening {} pairs of runs", pairs.len());
        self.tick += 1;
        self.runs_asked_at = self.tick;
        self.runs_open = Some(RunsOpen {
            source,
            planned,
            unusable,
            turn,
            pairs: pairs
                .into_iter()
                .map(|(index, a, b)| (index, [stage(a), stage(b)]))
                .collect(),
        });
    }

    /// The turn of the folder of runs being opened, if one is.
    pub(super) fn runs_turn(&self) -> Option<u64> {
        self.runs_open.as_ref().map(|r| r.turn)
    }

    /// A later request for a side replaces the folder being opened.
    pub(super) fn cancel_runs(&mut self, by: &str) {
        if let Some(open) = self.runs_open.take() {
            let line = format!(
                "the runs of {} were replaced by {by} before they finished loading",
                open.source
            );
            log::info!("{line}");
            self.shared.borrow_mut().replaced = Some(line);
        }
    }

    /// Advances the decoding of the folder's runs (the next run, for what
    /// is left of this frame's [`SLICE`]); opens them once all are done.
    /// Whether it needs another frame, and where it stands.
    pub(super) fn poll_runs(
        &mut self,
        frame_start: web_time::Instant,
    ) -> (bool, Option<LoadStatus>) {
        let Some(open) = self.runs_open.as_mut() else {
            return (false, None);
        };
        let ctx = self.shared.borrow().ctx.clone();
        let threaded = self.threaded;
        let next = (open.pairs.iter_mut())
            .flat_map(|(_, runs)| runs.iter_mut().zip([Side::A, Side::B]))
            .find(|(run, _)| !matches!(run.stage, Stage::Done(_)));
        if let Some((run, side)) = next {
            if let Stage::Waiting(bytes) = &mut run.stage {
                let Some(ctx) = ctx else {
                    return (false, None);
                };
                let source = Source::Bytes(std::mem::take(bytes));
                run.stage = Stage::Loading(LoadJob::start(
                    run.name.clone(),
                    source,
                    &ctx,
                    threaded,
                    false,
                ));
            }
            let Stage::Loading(job) = &mut run.stage else {
                return (true, None);
            };
            let budget = SLICE.saturating_sub(frame_start.elapsed());
            return match job.poll(budget) {
                Poll::Pending {
                    done_bytes,
                    total_bytes,
                    needs_polling,
                } => {
                    let status = LoadStatus {
                        name: job.name.clone(),
                        side: side.label(),
                        done_bytes,
                        total_bytes,
                    };
                    (needs_polling, Some(status))
                }
                Poll::Ready(result) => {
                    run.stage = Stage::Done(result);
                    (true, None)
                }
            };
        }
        if let Some(open) = self.runs_open.take() {
            self.install_runs(open);
        }
        (false, None)
    }

    /// The pairs whose two runs loaded, as A's and B's runs (in index
    /// order), judged as pairs; what was left out in the error line.
    fn install_runs(&mut self, open: RunsOpen) {
        let RunsOpen {
            source,
            planned,
            mut unusable,
            turn,
            pairs,
        } = open;
        let mut sides: [Option<Loaded>; 2] = [None, None];
        let mut opened = 0;
        for (index, [a, b]) in pairs {
            let done = |stage| match stage {
                Stage::Done(result) => *result,
                _ => Err("not decoded".to_owned()),
            };
            match (done(a.stage), done(b.stage)) {
                (Ok(a), Ok(b)) => {
                    opened += 1;
                    for (slot, run) in sides.iter_mut().zip([a, b]) {
                        *slot = Some(match slot.take() {
                            Some(side) => side.with_run(run),
                            None => run,
                        });
                    }
                }
                (x, y) => {
                    for (run, result) in [(&a.name, x), (&b.name, y)] {
                        if let Err(err) = result {
                            let err = err.strip_prefix(&format!("{run}: ")).unwrap_or(&err);
                            unusable.push(format!("{run}: {err} (pair {index} left out)"));
                        }
                    }
                }
            }
        }
        let problems = (!unusable.is_empty()).then(|| unusable.join("; "));
        let [Some(a), Some(b)] = sides else {
            self.runs_error(format!(
                "{source}: no pair of runs could be opened: {}",
                problems.unwrap_or_default()
            ));
            return;
        };
        // Both sides replaced: whatever else was loading for them goes.
        let asked_at = self.runs_asked_at;
        for side in [Side::A, Side::B] {
            let cancelled = self.shared.borrow_mut().cancel_fetches(side, &source, turn);
            for line in cancelled {
                log::info!("{line}");
            }
            let slot = self.slot_mut(side);
            slot.queued_runs.clear();
            if let Some((_, Some(on_done))) = slot.job.take() {
                on_done(Err(format!(
                    "replaced by the runs of {source} before it finished loading"
                )));
            }
            slot.adding_run = false;
            slot.turn = (turn, source.clone());
            slot.asked_at = asked_at;
        }
        self.finish_load(Side::A, Ok(a), None);
        self.finish_load(Side::B, Ok(b), None);
        let (Some(a), Some(b)) = (self.a.rec.as_ref(), self.b.rec.as_ref()) else {
            return;
        };
        let (a, b) = (a.loaded(), b.loaded());
        self.paired = Some(Paired {
            source: source.clone(),
            pairs: opened,
            a: Arc::downgrade(a),
            b: Arc::downgrade(b),
        });
        self.notice = Some(format!(
            "Opened {opened} pair{} of runs of {source} ({} planned), recorded alternately: \
             run k of A is judged against run k of B (paired runs, as `puffin-lens report DIR` \
             judges them)",
            if opened == 1 { "" } else { "s" },
            planned,
        ));
        if let Some(problems) = problems {
            self.set_error(format!(
                "{source}: {problems}; {opened} of {planned} pair{} opened",
                if planned == 1 { "" } else { "s" }
            ));
        }
        self.publish();
    }
}

/// Natively, a folder dropped alone: its files (names, files), to be
/// opened by its manifest when it has one.
#[cfg(not(target_arch = "wasm32"))]
fn expand_folder(files: &[GivenFile]) -> Option<(Vec<String>, Vec<GivenFile>)> {
    let dir = match files {
        [GivenFile::Dropped(f)] => f.path().to_path_buf(),
        [GivenFile::Path(p)] => p.clone(),
        _ => return None,
    };
    let mut entries: Vec<std::path::PathBuf> = std::fs::read_dir(&dir)
        .ok()?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_file())
        .collect();
    entries.sort();
    let names = entries
        .iter()
        .map(|p| platform::file_name(&p.to_string_lossy()))
        .collect();
    Some((names, entries.into_iter().map(GivenFile::Path).collect()))
}

/// In the browser: the manifest read first, then the runs it pairs (or
/// the zip), one after the other.
#[cfg(target_arch = "wasm32")]
async fn read_later(names: &[String], files: &[GivenFile], turn: u64) -> Result<RunsGiven, String> {
    let manifest = crate::engine::runs_manifest::MANIFEST;
    let Some(at) = names.iter().position(|n| n == manifest) else {
        let bytes = platform::read_given(&files[0], &names[0]).await?;
        return runs_in_zip(&names[0], bytes, turn);
    };
    let bytes = platform::read_given(&files[at], &names[at]).await;
    let plan = Plan::new(&names[at], bytes, |f| names.iter().any(|n| n == f))?;
    let mut read = std::collections::BTreeMap::new();
    for file in plan.files() {
        if let Some(i) = names.iter().position(|n| *n == file) {
            let bytes = platform::read_given(&files[i], &names[i]).await;
            read.insert(file, bytes);
        }
    }
    Ok(plan.given(turn, |f| {
        read.remove(f)
            .unwrap_or_else(|| Err(format!("{f}: missing")))
    }))
}
