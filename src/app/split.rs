//! Three or more recordings given at once (dropped on the page, or chosen
//! together in the Open dialog): a dialog asks which are runs of A and
//! which of B, the first half by name A's by default (the files waiting,
//! [`super::shared::Split`], are state the shared cell holds). Each side's runs are
//! judged between runs. Files dropped onto A or B in the top bar, or added
//! with its +, are that side's without asking.

#[cfg(target_arch = "wasm32")]
use super::platform;
use super::shared::GivenFile;
#[cfg(not(target_arch = "wasm32"))]
use super::{Incoming, Source};
use super::{PuffinLensApp, Side};

impl PuffinLensApp {
    /// The split dialog, while files wait for it.
    pub(super) fn split_dialog(&mut self, ctx: &egui::Context) {
        let Some(mut split) = self.shared.borrow_mut().split.take() else {
            return;
        };
        let mut open = true;
        let (mut go, mut cancel) = (false, false);
        egui::Window::new(format!("Open {} recordings", split.names.len()))
            .open(&mut open)
            .collapsible(false)
            .resizable(false)
            .anchor(egui::Align2::CENTER_CENTER, egui::Vec2::ZERO)
            .show(ctx, |ui| {
                ui.label(
                    "Which are runs of A (before) and which of B (after)? Several runs a side \
                     are judged between runs: a change must stand out of how much each name \
                     varies from run to run.",
                );
                ui.add_space(4.0);
                let mut order: Vec<usize> = (0..split.names.len()).collect();
                order.sort_by(|&x, &y| split.names[x].cmp(&split.names[y]).then(x.cmp(&y)));
                egui::Grid::new("split_grid").striped(true).show(ui, |ui| {
                    for i in order {
                        ui.label(&split.names[i]);
                        ui.radio_value(&mut split.to_a[i], true, "A");
                        ui.radio_value(&mut split.to_a[i], false, "B");
                        ui.end_row();
                    }
                });
                let (a, b) = (
                    split.to_a.iter().filter(|&&x| x).count(),
                    split.to_a.iter().filter(|&&x| !x).count(),
                );
                ui.add_space(4.0);
                ui.label(format!(
                    "A: {a} run{}, B: {b} run{}",
                    if a == 1 { "" } else { "s" },
                    if b == 1 { "" } else { "s" }
                ));
                ui.horizontal(|ui| {
                    go = ui.button("Open").clicked();
                    cancel = ui.button("Cancel").clicked();
                });
            });
        if go {
            let targets = split.targets();
            self.open_given(ctx, split.files, split.names, targets);
        } else if open && !cancel {
            self.shared.borrow_mut().split = Some(split);
        }
    }

    /// Opens the files given as `targets` say ((side, one more run)): each
    /// takes its turn now, each side's first run first; dropped and picked
    /// files are read (in the browser, one after the other).
    pub(super) fn open_given(
        &mut self,
        ctx: &egui::Context,
        files: Vec<GivenFile>,
        names: Vec<String>,
        targets: Vec<(Option<Side>, bool)>,
    ) {
        let mut given: Vec<_> = files.into_iter().zip(names).zip(targets).collect();
        // Each side's first run first: a run added to a side never starts
        // before the side's first.
        given.sort_by_key(|(_, (_, add_run))| *add_run);
        #[cfg(target_arch = "wasm32")]
        let mut reads = Vec::new();
        for ((file, name), (side, add_run)) in given {
            // Its turn and side now: bytes read later cannot jump it.
            let (turn, side) = {
                let mut shared = self.shared.borrow_mut();
                (shared.take_turn(), Some(shared.side_now(side)))
            };
            #[cfg(not(target_arch = "wasm32"))]
            {
                let source = match file {
                    GivenFile::Dropped(file) => match file.bytes() {
                        Ok(bytes) => Source::Bytes(bytes),
                        Err(_) => Source::Path(file.path().to_path_buf()),
                    },
                    GivenFile::Path(path) => Source::Path(path),
                };
                self.start_load(
                    ctx,
                    Incoming {
                        add_run,
                        name,
                        source,
                        side,
                        on_done: None,
                        turn,
                    },
                );
            }
            #[cfg(target_arch = "wasm32")]
            reads.push((file, name, side, add_run, turn));
        }
        // Read one after the other (in that order).
        #[cfg(target_arch = "wasm32")]
        if !reads.is_empty() {
            let _ = ctx;
            let shared = self.shared.clone();
            wasm_bindgen_futures::spawn_local(async move {
                for (file, name, side, add_run, turn) in reads {
                    let started = web_time::Instant::now();
                    let result = match &file {
                        GivenFile::Picked(f) => platform::web::read_file(f.inner(), &name).await,
                        GivenFile::Dropped(f) => match f.web_file() {
                            Some(web_file) => platform::web::read_file(web_file, &name).await,
                            None => f
                                .bytes_async()
                                .await
                                .map_err(|err| format!("{name}: cannot read: {err}")),
                        },
                    };
                    log::info!(
                        "{name}: read the given file in {:.0} ms",
                        started.elapsed().as_secs_f64() * 1e3
                    );
                    shared
                        .borrow_mut()
                        .open_read(name, (side, add_run), turn, result);
                }
            });
        }
    }
}
