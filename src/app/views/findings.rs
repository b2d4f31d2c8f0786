//! The Findings view: a pair's landing (and one recording's), the CLI's
//! `report` rendered in the app in its own words. The report is made once
//! per pair (natively on a background thread; in the browser after one
//! frame has said it is being made), its Markdown split into blocks once,
//! and each block drawn from them: nothing is recomputed per repaint.
//!
//! Every code span that names a scope is a link into the view that shows
//! its evidence (a pair: the diff table with both sides' calls; one
//! recording: the tree with its details), and each "Look at first"
//! sentence links to its first such name. Links go through the location
//! hash, so Back returns here.

pub use super::inline_md::{Span, inline};
use crate::app::loaded::Loaded;
use crate::app::nav::encode_hash;
use crate::engine::report;
use egui::{Color32, RichText};
use std::sync::Arc;

/// A block of the report's Markdown.
#[derive(Clone, Debug, PartialEq)]
pub enum Block {
    Heading(u8, Vec<Span>),
    Paragraph(Vec<Span>),
    /// A list item at a depth (0 the outermost).
    Item(u8, Vec<Span>),
    /// An item of a numbered list, with its number (`3.`).
    Numbered(String, Vec<Span>),
    /// `> [!NOTE]` / `> [!WARNING]` (`warning`), or a plain quote.
    Quote {
        warning: bool,
        spans: Vec<Span>,
    },
    /// Rows of cells (the header first).
    Table(Vec<Vec<Vec<Span>>>),
}

/// A "Look at first" sentence: the CLI report's words, and where its
/// evidence is.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Finding {
    pub sentence: String,
    /// A location hash (`view=diff&mode=table&scope=…`), or `null`.
    pub link: Option<String>,
    /// The sentence as drawn (each scope a link).
    #[serde(skip)]
    pub spans: Vec<Span>,
}

/// The findings as the page draws them, made once from the engine's.
pub struct Findings {
    pub data: report::Findings,
    pub blocks: Vec<Block>,
    pub look_first: Vec<Finding>,
    /// One recording: its frames' durations, the picture at the top (a
    /// pair draws its glance instead).
    pub frames: Option<FramePicture>,
    /// The frames' pacing: each side's periods and their distribution
    /// against the budget (see [`PacingPicture`]).
    pub pacing: Option<PacingPicture>,
    /// The report's "Frame pacing" section but its heading and headline
    /// (the picture's): its tables, drawn under the picture.
    pub pacing_blocks: Vec<Block>,
}

/// The pacing picture as drawn, made once: each side's periods as at most
/// [`PICTURE_BARS`] bars (the slowest of each stretch, with its frame
/// index) and its distribution as [`CDF_POINTS`] + 1 quantiles (ns, from
/// the fastest frame to the slowest), on one scale from 0 to `max_ns`.
pub struct PacingPicture {
    pub headline: String,
    pub budget_ns: f64,
    pub over_ns: f64,
    pub max_ns: f64,
    /// A then B, or one unlabelled side.
    pub sides: Vec<PacingSide>,
}

/// `(label, bars, quantiles_ns)` of one side of the pacing picture.
pub type PacingSide = (String, Vec<(u64, i64)>, Vec<f64>);

/// Quantiles drawn of a side's distribution (0%, 0.5%, … 100%).
const CDF_POINTS: usize = 200;

/// At most `PICTURE_BARS` bars of `all`, each the slowest of its stretch.
fn bars_of(all: &[(u64, i64)]) -> Vec<(u64, i64)> {
    let n = all.len().min(PICTURE_BARS);
    (0..n)
        .filter_map(|k| {
            let (lo, hi) = (
                k * all.len() / n,
                ((k + 1) * all.len() / n).max(k * all.len() / n + 1),
            );
            all[lo..hi]
                .iter()
                .copied()
                .max_by_key(|x| (x.1, std::cmp::Reverse(x.0)))
        })
        .collect()
}

impl PacingPicture {
    fn of(p: &report::PacingPicture) -> Self {
        let sides: Vec<PacingSide> = p
            .sides
            .iter()
            .map(|s| {
                let mut sorted: Vec<i64> = s.series.iter().map(|x| x.1).collect();
                sorted.sort_unstable();
                let q = if sorted.is_empty() {
                    Vec::new()
                } else {
                    (0..=CDF_POINTS)
                        .map(|k| sorted[k * (sorted.len() - 1) / CDF_POINTS] as f64)
                        .collect()
                };
                (s.label.clone(), bars_of(&s.series), q)
            })
            .collect();
        let max_ns = sides
            .iter()
            .flat_map(|s| s.1.iter().map(|b| b.1 as f64))
            .fold(p.budget_ns, f64::max)
            .max(1.0);
        Self {
            headline: p.headline.clone(),
            budget_ns: p.budget_ns,
            over_ns: p.over_ns,
            max_ns,
            sides,
        }
    }
}

/// One recording's frame times as drawn: at most [`PICTURE_BARS`] bars,
/// each the slowest frame of its stretch (a stall stays visible), with the
/// frame index it shows.
pub struct FramePicture {
    pub bars: Vec<(u64, i64)>,
    pub median_ns: i64,
}

/// The most bars of one recording's frame picture.
const PICTURE_BARS: usize = 400;

/// Asks for the engine's findings elsewhere (a thread, a worker): `None`
/// until they are there, then once the answer (an error: made here instead).
pub type Poller = Box<dyn FnMut() -> Option<Result<report::Findings, String>>>;

enum State {
    /// Asked for; not drawn yet (the next frame says they are being made,
    /// the one after makes them when nothing else does).
    Asked {
        drawn: bool,
    },
    /// Being made elsewhere.
    Elsewhere(Poller),
    Ready(Box<Findings>),
}

pub struct FindingsView {
    a: Arc<Loaded>,
    b: Option<Arc<Loaded>>,
    /// A and B are a folder of `ab` runs: judged as pairs.
    paired: bool,
    state: State,
    /// Handed to the shell once ([`Self::wants_work`]).
    offered: bool,
    /// Why they were made here after all (a worker failed), for the log.
    fallback: Option<String>,
    /// Whether the findings have been drawn once: the first frame lays out
    /// only the blocks on screen (the text below the fold, and its glyphs,
    /// come with the next frame, asked for at once).
    drawn: bool,
}

impl FindingsView {
    /// The findings of `a` (against `b`), made at once.
    pub fn new(a: Arc<Loaded>, b: Option<Arc<Loaded>>) -> Self {
        let findings = ready(made_here(&a, b.as_deref(), false), &a, b.as_deref());
        Self {
            a,
            b,
            paired: false,
            state: State::Ready(Box::new(findings)),
            offered: true,
            fallback: None,
            drawn: false,
        }
    }

    /// The findings of `a` (against `b`), to be made: elsewhere when the
    /// shell takes the work ([`Self::wants_work`], [`Self::set_poller`]),
    /// else here once the view has drawn that they are being made.
    pub fn start(a: Arc<Loaded>, b: Option<Arc<Loaded>>) -> Self {
        Self::start_with(a, b, false)
    }

    /// [`Self::start`], A and B judged as paired runs when `paired` (a
    /// folder of `ab` runs, as `report DIR` judges it).
    pub fn start_with(a: Arc<Loaded>, b: Option<Arc<Loaded>>, paired: bool) -> Self {
        Self {
            a,
            b,
            paired,
            state: State::Asked { drawn: false },
            offered: false,
            fallback: None,
            drawn: false,
        }
    }

    /// The recordings to make the findings of, once: the shell may start
    /// the work elsewhere and hand back its [`Poller`].
    pub fn wants_work(&mut self) -> Option<(Arc<Loaded>, Option<Arc<Loaded>>)> {
        if self.offered || !matches!(self.state, State::Asked { .. }) {
            return None;
        }
        self.offered = true;
        Some((self.a.clone(), self.b.clone()))
    }

    /// The findings are being made elsewhere; `poll` brings them.
    pub fn set_poller(&mut self, poll: Poller) {
        if matches!(self.state, State::Asked { .. }) {
            self.state = State::Elsewhere(poll);
        }
    }

    /// Whether it shows these recordings, judged so.
    pub fn shows(&self, a: &Arc<Loaded>, b: Option<&Arc<Loaded>>, paired: bool) -> bool {
        self.paired == paired
            && Arc::ptr_eq(&self.a, a)
            && match (&self.b, b) {
                (Some(x), Some(y)) => Arc::ptr_eq(x, y),
                (None, None) => true,
                _ => false,
            }
    }

    /// The findings, once made.
    pub fn findings(&self) -> Option<&Findings> {
        match &self.state {
            State::Ready(f) => Some(f),
            _ => None,
        }
    }

    /// Still being made.
    pub fn computing(&self) -> bool {
        self.findings().is_none()
    }

    /// Where they were made, when a worker failed and the page made them.
    pub fn fallback(&self) -> Option<&str> {
        self.fallback.as_deref()
    }

    /// Moves the work on: takes the answer made elsewhere, or makes them
    /// here once the "being made" frame was drawn. True when they changed.
    pub fn step(&mut self) -> bool {
        let data = match &mut self.state {
            State::Asked { drawn: true } => made_here(&self.a, self.b.as_deref(), self.paired),
            State::Asked { drawn: false } | State::Ready(_) => return false,
            State::Elsewhere(poll) => match poll() {
                None => return false,
                Some(Ok(data)) => data,
                Some(Err(why)) => {
                    log::warn!("findings: {why}; made on the page's thread");
                    self.fallback = Some(why);
                    self.state = State::Asked { drawn: true };
                    return false;
                }
            },
        };
        self.state = State::Ready(Box::new(ready(data, &self.a, self.b.as_deref())));
        true
    }

    /// Draws the page; returns the location hash of a clicked link.
    pub fn ui(&mut self, ui: &mut egui::Ui) -> Option<String> {
        if self.step() {
            ui.ctx().request_repaint();
        }
        let Some(f) = self.findings() else {
            ui.horizontal(|ui| {
                ui.spinner();
                ui.label(match &self.b {
                    Some(b) => format!(
                        "Judging {} against {}: the findings appear here when done…",
                        b.name, self.a.name
                    ),
                    None => format!(
                        "Reading {}: the findings appear here when done…",
                        self.a.name
                    ),
                });
            });
            if let State::Asked { drawn } = &mut self.state {
                *drawn = true;
            }
            ui.ctx().request_repaint();
            return None;
        };
        let (mut clicked, first) = (None, !self.drawn);
        let pair = self.b.is_some();
        egui::ScrollArea::vertical()
            .auto_shrink([false, false])
            .show(ui, |ui| {
                let width = ui.available_width();
                if width >= WIDE_PX {
                    // A wide screen: the judgement on the left, the frames'
                    // pacing beside it on the right.
                    let width = width.min(MAX_PX);
                    let left = ((width - COLUMN_GAP) * 0.58).floor();
                    let right = width - COLUMN_GAP - left;
                    ui.horizontal_top(|ui| {
                        ui.vertical(|ui| {
                            ui.set_width(left);
                            glance_ui(ui, f, &mut clicked);
                            judgement_ui(ui, f, first, &mut clicked);
                        });
                        ui.add_space(COLUMN_GAP);
                        ui.vertical(|ui| {
                            ui.set_width(right);
                            pacing_section_ui(ui, f, pair, &mut clicked);
                        });
                    });
                } else {
                    ui.set_max_width(width.min(NARROW_PX));
                    glance_ui(ui, f, &mut clicked);
                    pacing_section_ui(ui, f, pair, &mut clicked);
                    judgement_ui(ui, f, first, &mut clicked);
                }
            });
        self.drawn = true;
        clicked
    }

    /// `puffinLens.ui()`'s part: `{computing, runs: {a, b, paired}` (each
    /// side's runs' files; judged as pairs), `look_first:
    /// [{sentence, link}], compute_ms}` and the engine's facts (`noise`,
    /// `drift`, `conditions`, `frame`, `changes` with each one's `link`,
    /// `renames`; one recording: `over_time`, `outliers`). No epoch
    /// timestamp is among them (JS numbers would round it).
    pub fn to_json(&self) -> serde_json::Value {
        let runs = |l: Option<&Arc<Loaded>>| -> serde_json::Value {
            l.map_or(serde_json::json!([]), |l| serde_json::json!(l.runs))
        };
        let mut v = serde_json::json!({
            "computing": self.computing(),
            "runs": {
                "a": runs(Some(&self.a)),
                "b": runs(self.b.as_ref()),
                "paired": self.paired,
            },
            "look_first": [],
        });
        let Some(f) = self.findings() else {
            return v;
        };
        if let (serde_json::Value::Object(out), serde_json::Value::Object(facts)) =
            (&mut v, f.data.facts.clone())
        {
            out.extend(facts);
        }
        v["compute_ms"] = f.data.compute_ms.into();
        // Why a worker did not make them (the page did), if one failed.
        v["fallback"] = self.fallback.clone().into();
        v["look_first"] = serde_json::to_value(&f.look_first).unwrap_or_default();
        // One recording's picture as drawn: [frame index, duration ns] a bar.
        if let Some(p) = &f.frames {
            v["picture"] = serde_json::json!({ "bars": p.bars, "median_ns": p.median_ns });
        }
        // The pacing picture as drawn: each side's bars ([frame index,
        // period ns]) and quantiles (ns), the budget.
        if let Some(p) = &f.pacing {
            v["pacing_picture"] = serde_json::json!({
                "budget_ns": p.budget_ns,
                "over_ns": p.over_ns,
                "max_ns": p.max_ns,
                "sides": p.sides.iter().map(|(label, bars, q)| serde_json::json!({
                    "label": label, "bars": bars, "quantiles_ns": q,
                })).collect::<Vec<_>>(),
            });
        }
        if let Some(changes) = v["changes"].as_array_mut() {
            for c in changes {
                let link = c["name"].as_str().map(|n| scope_link(n, self.b.is_some()));
                c["link"] = link.into();
            }
        }
        v
    }
}

/// The location hash that shows a scope's evidence: with B, the diff
/// table with both sides' calls; alone, the tree with its details.
pub fn scope_link(name: &str, pair: bool) -> String {
    if pair {
        encode_hash(&[
            ("view", "diff".to_owned()),
            ("mode", "table".to_owned()),
            ("scope", name.to_owned()),
        ])
    } else {
        encode_hash(&[("view", "tree".to_owned()), ("scope", name.to_owned())])
    }
}

/// The engine's findings of `a` (against `b`, as paired runs when
/// `paired`), made on this thread.
fn made_here(a: &Loaded, b: Option<&Loaded>, paired: bool) -> report::Findings {
    let started = web_time::Instant::now();
    let mut data = report::findings_with(
        (&a.name, &a.decoded),
        b.map(|b| (b.name.as_str(), &b.decoded)),
        crate::app::runs_given::report_options(paired),
    );
    data.compute_ms = started.elapsed().as_secs_f64() * 1e3;
    data
}

/// The page's blocks and look-first links, from the engine's findings:
/// every code span naming a scope of A or B links to its evidence.
fn ready(data: report::Findings, a: &Loaded, b: Option<&Loaded>) -> Findings {
    let pair = b.is_some();
    let mut names: rustc_hash::FxHashSet<&str> = Default::default();
    for t in std::iter::once(a.trace()).chain(b.map(|b| b.trace())) {
        for d in 0..t.defs.len() {
            names.insert(t.str(t.defs.name[d]));
        }
    }
    let link = |code: &str| names.contains(code).then(|| scope_link(code, pair));
    // The report's title and its own "Look at first" (the page leads
    // with it, each with its link) are left out.
    let mut blocks = blocks(&data.markdown, &link);
    let text = |spans: &[Span]| spans.iter().map(|s| s.text.as_str()).collect::<String>();
    // The glance's section too: the page draws it from its vectors.
    let (mut in_look_first, mut in_glance) = (false, false);
    blocks.retain(|b| match b {
        Block::Heading(1, _) => false,
        Block::Heading(_, spans) if text(spans) == "Look at first" => {
            in_look_first = true;
            false
        }
        Block::Heading(_, spans) if text(spans) == "At a glance" => {
            in_glance = true;
            false
        }
        Block::Heading(..) => {
            (in_look_first, in_glance) = (false, false);
            true
        }
        Block::Numbered(..) if in_look_first => false,
        _ if in_glance => false,
        _ => {
            in_look_first = false;
            true
        }
    });
    link_frames(&mut blocks, pair);
    link_change_paths(&mut blocks, &data.facts);
    link_hot_paths(&mut blocks, &data.facts, pair);
    let look_first = data
        .look_first
        .iter()
        .map(|s| {
            let spans = inline(s, &link);
            Finding {
                sentence: s.clone(),
                link: spans.iter().find_map(|x| x.link.clone()),
                spans,
            }
        })
        .collect();
    let frames = b.is_none().then(|| {
        let t = a.trace();
        let all: Vec<(u64, i64)> = t
            .frames
            .ids()
            .map(|f| (t.frames.frame_index[f.idx()], t.frames.duration_ns(f)))
            .collect();
        let mut sorted: Vec<i64> = all.iter().map(|x| x.1).collect();
        sorted.sort_unstable();
        let median_ns = sorted
            .get(sorted.len().saturating_sub(1) / 2)
            .copied()
            .unwrap_or(0);
        FramePicture {
            bars: bars_of(&all),
            median_ns,
        }
    });
    let pacing = data.pacing.as_ref().map(PacingPicture::of);
    // The pacing section goes under its picture: its heading and headline
    // are the picture's.
    let mut pacing_blocks = Vec::new();
    if pacing.is_some()
        && let Some(at) = blocks.iter().position(
            |b| matches!(b, Block::Heading(_, spans) if text(spans).ends_with("Frame pacing")),
        )
    {
        let level = match &blocks[at] {
            Block::Heading(l, _) => *l,
            _ => 2,
        };
        let end = blocks[at + 1..]
            .iter()
            .position(|b| matches!(b, Block::Heading(l, _) if *l <= level))
            .map_or(blocks.len(), |k| at + 1 + k);
        pacing_blocks = blocks.drain(at..end).skip(2).collect();
    }
    Findings {
        data,
        blocks,
        look_first,
        frames,
        pacing,
        pacing_blocks,
    }
}

/// From this width the page is two columns: the judgement, and the frames'
/// pacing beside it.
const WIDE_PX: f32 = 1500.0;
/// The page's width at most, one column and two.
const NARROW_PX: f32 = 1100.0;
const MAX_PX: f32 = 2400.0;
const COLUMN_GAP: f32 = 24.0;

/// The glance of a pair, or one recording's frame picture.
fn glance_ui(ui: &mut egui::Ui, f: &Findings, clicked: &mut Option<String>) {
    if let Some(g) = &f.data.glance {
        super::glance::ui(ui, g, &|n| scope_link(n, true), clicked);
        ui.add_space(8.0);
        ui.separator();
    } else if let (Some(p), Some(h)) = (&f.frames, f.data.facts["headline"].as_str()) {
        picture_ui(ui, h, p, clicked);
        ui.separator();
    }
}

/// The frames' pacing: its picture and the report's section under it.
fn pacing_section_ui(ui: &mut egui::Ui, f: &Findings, pair: bool, clicked: &mut Option<String>) {
    if let Some(p) = &f.pacing {
        pacing_ui(ui, p, pair, clicked);
        for block in &f.pacing_blocks {
            block_ui(ui, block, clicked);
        }
        ui.separator();
    }
}

/// Look at first, then the report's sections (on the first frame only
/// down to the fold).
fn judgement_ui(ui: &mut egui::Ui, f: &Findings, first: bool, clicked: &mut Option<String>) {
    if !f.look_first.is_empty() {
        ui.heading("Look at first");
        for (k, item) in f.look_first.iter().enumerate() {
            ui.horizontal_wrapped(|ui| {
                ui.spacing_mut().item_spacing.x = 0.0;
                ui.label(RichText::new(format!("{}. ", k + 1)).strong());
                spans_ui(ui, &item.spans, clicked);
                if let Some(link) = &item.link
                    && ui.link("  show evidence →").clicked()
                {
                    *clicked = Some(link.clone());
                }
            });
        }
        ui.add_space(8.0);
        ui.separator();
    }
    let fold = ui.clip_rect().bottom();
    for block in &f.blocks {
        if first && ui.cursor().top() > fold {
            ui.ctx().request_repaint();
            break;
        }
        block_ui(ui, block, clicked);
    }
}

/// One recording's picture: its headline, then its frame times (the
/// median dashed, frames over twice it marked "▲"), each bar a link to the
/// timeline at its frame.
fn picture_ui(ui: &mut egui::Ui, headline: &str, p: &FramePicture, clicked: &mut Option<String>) {
    let spans = inline(headline, &|_| None);
    let text: String = spans.iter().map(|s| s.text.as_str()).collect();
    ui.label(RichText::new(text).size(18.0).strong());
    ui.add_space(4.0);
    if p.bars.is_empty() {
        return;
    }
    ui.label(
        RichText::new("Frame times (each bar the slowest of its stretch; click: the timeline)")
            .weak(),
    );
    let width = ui.available_width().min(1000.0);
    let (rect, resp) = ui.allocate_exact_size(egui::vec2(width, 120.0), egui::Sense::click());
    let max = p.bars.iter().map(|x| x.1).max().unwrap_or(1).max(1) as f32;
    let bw = rect.width() / p.bars.len() as f32;
    // Room above the tallest bar for its mark (the painter clips at the rect).
    let tall = rect.height() - 12.0;
    let painter = ui.painter_at(rect);
    let slow = Color32::from_rgb(0xd9, 0x82, 0x2b);
    let base = Color32::from_rgb(0x4a, 0x78, 0xb0);
    for (k, &(_, ns)) in p.bars.iter().enumerate() {
        let top = rect.bottom() - tall * ns as f32 / max;
        frame_bar(
            &painter,
            rect,
            k,
            bw,
            top,
            (base, slow),
            ns > 2 * p.median_ns,
        );
    }
    let my = rect.bottom() - tall * p.median_ns as f32 / max;
    let dash = egui::Shape::dashed_line(
        &[egui::pos2(rect.left(), my), egui::pos2(rect.right(), my)],
        egui::Stroke::new(1.0, ui.visuals().text_color()),
        4.0,
        3.0,
    );
    painter.extend(dash);
    let at = |pos: egui::Pos2| ((pos.x - rect.left()) / bw) as usize;
    if let Some(pos) = resp.hover_pos()
        && let Some(&(frame, ns)) = p.bars.get(at(pos))
    {
        resp.clone()
            .on_hover_text(format!("frame {frame}: {:.3} ms", ns as f64 / 1e6));
    }
    if resp.clicked()
        && let Some(pos) = resp.interact_pointer_pos()
        && let Some(&(frame, _)) = p.bars.get(at(pos))
    {
        *clicked = Some(crate::app::nav::encode_hash(&[
            ("view", "timeline".to_owned()),
            ("frame", frame.to_string()),
        ]));
    }
    ui.add_space(8.0);
}

/// Bar `k` of a strip of frame bars `bw` wide in `rect`, from `top` to the
/// bottom: `colours.0`, or `colours.1` and marked "▲" (when wide enough)
/// when `marked`. The one-recording picture and the pacing strips draw so.
fn frame_bar(
    painter: &egui::Painter,
    rect: egui::Rect,
    k: usize,
    bw: f32,
    top: f32,
    colours: (Color32, Color32),
    marked: bool,
) {
    let x0 = rect.left() + k as f32 * bw;
    let bar = egui::Rect::from_min_max(
        egui::pos2(x0, top),
        egui::pos2(x0 + (bw - 0.5).max(0.5), rect.bottom()),
    );
    painter.rect_filled(bar, 0.0, if marked { colours.1 } else { colours.0 });
    if marked && bw >= 6.0 {
        painter.text(
            bar.center_top(),
            egui::Align2::CENTER_BOTTOM,
            "▲",
            egui::FontId::proportional(9.0),
            colours.1,
        );
    }
}

/// The side colours of the pacing picture: A blue, B orange (the budget a
/// dashed line in the text colour; frames over it red).
const SIDE_COLOURS: [Color32; 2] = [
    Color32::from_rgb(0x4a, 0x78, 0xb0),
    Color32::from_rgb(0xd9, 0x82, 0x2b),
];

/// The frames' pacing: the headline, each side's frame times on one axis
/// from 0 (frames over the budget red and marked "▲", each bar a link to
/// the timeline at its frame), then both distributions overlaid (the
/// frames sorted: a frame's percentile against its time) with the budget.
/// Drawing is O(bars): the picture holds at most [`PICTURE_BARS`] a side.
fn pacing_ui(ui: &mut egui::Ui, p: &PacingPicture, pair: bool, clicked: &mut Option<String>) {
    ui.heading("Frame pacing");
    let spans = inline(&p.headline, &|_| None);
    let text: String = spans.iter().map(|s| s.text.as_str()).collect();
    ui.label(RichText::new(text).strong());
    ui.add_space(4.0);
    let text_colour = ui.visuals().text_color();
    let over_colour = Color32::from_rgb(0xc0, 0x39, 0x2b);
    let width = ui.available_width().min(1400.0);
    let budget_line = |painter: &egui::Painter, rect: egui::Rect, y: f32| {
        painter.extend(egui::Shape::dashed_line(
            &[egui::pos2(rect.left(), y), egui::pos2(rect.right(), y)],
            egui::Stroke::new(1.0, text_colour),
            4.0,
            3.0,
        ));
    };
    let scale =
        |rect: egui::Rect, ns: f64| rect.bottom() - (rect.height() - 12.0) * (ns / p.max_ns) as f32;
    ui.label(
        RichText::new(format!(
            "Frame times, 0 to {:.1} ms (each bar the slowest of its stretch; dashed: the budget, \
             {:.3} ms; red ▲: over it; click a bar: that frame's timeline)",
            p.max_ns / 1e6,
            p.budget_ns / 1e6
        ))
        .weak(),
    );
    for (k, (label, bars, _)) in p.sides.iter().enumerate() {
        if bars.is_empty() {
            continue;
        }
        ui.horizontal(|ui| {
            ui.label(
                RichText::new(if label.is_empty() { " " } else { label })
                    .strong()
                    .color(SIDE_COLOURS[k % 2]),
            );
            let (rect, resp) =
                ui.allocate_exact_size(egui::vec2(width - 24.0, 90.0), egui::Sense::click());
            let painter = ui.painter_at(rect);
            let bw = rect.width() / bars.len() as f32;
            for (j, &(_, ns)) in bars.iter().enumerate() {
                let colours = (SIDE_COLOURS[k % 2], over_colour);
                let top = scale(rect, ns as f64);
                frame_bar(&painter, rect, j, bw, top, colours, ns as f64 > p.over_ns);
            }
            budget_line(&painter, rect, scale(rect, p.budget_ns));
            let at = |pos: egui::Pos2| ((pos.x - rect.left()) / bw) as usize;
            if let Some(pos) = resp.hover_pos()
                && let Some(&(frame, ns)) = bars.get(at(pos))
            {
                resp.clone()
                    .on_hover_text(format!("frame {frame}: {:.3} ms", ns as f64 / 1e6));
            }
            if resp.clicked()
                && let Some(pos) = resp.interact_pointer_pos()
                && let Some(&(frame, _)) = bars.get(at(pos))
            {
                let mut hash = vec![
                    ("view", "timeline".to_owned()),
                    ("frame", frame.to_string()),
                ];
                if pair {
                    hash.push(("side", if k == 0 { "a" } else { "b" }.to_owned()));
                }
                *clicked = Some(crate::app::nav::encode_hash(&hash));
            }
        });
    }
    ui.add_space(4.0);
    ui.label(
        RichText::new(
            "The frames sorted: each frame's percentile (left: the fastest, right: the \
             slowest) against its time; a line further up is slower frames (dashed: the budget)",
        )
        .weak(),
    );
    let (rect, resp) =
        ui.allocate_exact_size(egui::vec2(width.min(700.0), 140.0), egui::Sense::hover());
    let painter = ui.painter_at(rect);
    painter.rect_stroke(
        rect,
        0.0,
        egui::Stroke::new(0.5, ui.visuals().weak_text_color()),
        egui::StrokeKind::Inside,
    );
    for pct in [50.0f32, 90.0, 99.0] {
        let x = rect.left() + rect.width() * pct / 100.0;
        painter.line_segment(
            [egui::pos2(x, rect.top()), egui::pos2(x, rect.bottom())],
            egui::Stroke::new(0.5, ui.visuals().weak_text_color()),
        );
        painter.text(
            egui::pos2(x + 2.0, rect.top()),
            egui::Align2::LEFT_TOP,
            format!("P{pct:.0}"),
            egui::FontId::proportional(10.0),
            ui.visuals().weak_text_color(),
        );
    }
    for (k, (label, _, q)) in p.sides.iter().enumerate() {
        if q.len() < 2 {
            continue;
        }
        let points: Vec<egui::Pos2> = q
            .iter()
            .enumerate()
            .map(|(j, &ns)| {
                egui::pos2(
                    rect.left() + rect.width() * j as f32 / (q.len() - 1) as f32,
                    scale(rect, ns),
                )
            })
            .collect();
        painter.add(egui::Shape::line(
            points,
            egui::Stroke::new(2.0, SIDE_COLOURS[k % 2]),
        ));
        if !label.is_empty() {
            painter.text(
                egui::pos2(rect.left() + 4.0, rect.top() + 4.0 + 14.0 * k as f32),
                egui::Align2::LEFT_TOP,
                format!("— {label}"),
                egui::FontId::proportional(12.0),
                SIDE_COLOURS[k % 2],
            );
        }
    }
    budget_line(&painter, rect, scale(rect, p.budget_ns));
    painter.text(
        rect.left_bottom() + egui::vec2(2.0, -2.0),
        egui::Align2::LEFT_BOTTOM,
        "0 ms",
        egui::FontId::proportional(10.0),
        ui.visuals().weak_text_color(),
    );
    if let Some(pos) = resp.hover_pos() {
        let pct = ((pos.x - rect.left()) / rect.width()).clamp(0.0, 1.0);
        let lines: Vec<String> = p
            .sides
            .iter()
            .filter(|s| s.2.len() >= 2)
            .map(|(label, _, q)| {
                let j = (pct * (q.len() - 1) as f32).round() as usize;
                format!(
                    "{} P{:.1}: {:.3} ms",
                    if label.is_empty() { "" } else { label },
                    pct * 100.0,
                    q[j] / 1e6
                )
            })
            .collect();
        resp.on_hover_text(lines.join("\n"));
    }
    ui.add_space(8.0);
}

/// Links a path's list item: its code spans are the path's steps in order
/// (`path`: `{thread, steps: [name]}`), each linked to the hash `hash`
/// makes of the focus down to it (thread and names joined by U+001F). A
/// span that is not the next step (none should be) ends the links.
fn link_steps(
    spans: &mut [Span],
    path: &serde_json::Value,
    hash: impl Fn(String) -> Vec<(&'static str, String)>,
) {
    let steps: Vec<&str> = path["steps"]
        .as_array()
        .map(|v| v.iter().filter_map(|s| s.as_str()).collect())
        .unwrap_or_default();
    let mut focus = vec![path["thread"].as_str().unwrap_or_default()];
    for (j, s) in spans.iter_mut().filter(|s| s.code).enumerate() {
        if steps.get(j) != Some(&s.text.as_str()) {
            break;
        }
        focus.push(steps[j]);
        s.link = Some(crate::app::nav::encode_hash(&hash(focus.join("\u{1f}"))));
    }
}

/// Each step of a differential tree's path ("Where it changed": a list
/// item per thread, its steps' names as code spans, outermost first) links
/// to the differential flame graph focused on that step's node.
fn link_change_paths(blocks: &mut [Block], facts: &serde_json::Value) {
    let Some(paths) = facts["change_paths"].as_array() else {
        return;
    };
    let text = |spans: &[Span]| spans.iter().map(|s| s.text.as_str()).collect::<String>();
    let mut under = false;
    let mut k = 0;
    for b in blocks.iter_mut() {
        match b {
            Block::Heading(_, spans) => {
                under = text(spans).starts_with("Where it changed");
            }
            Block::Item(_, spans) if under => {
                let Some(p) = paths.get(k) else {
                    break;
                };
                k += 1;
                link_steps(spans, p, |focus| {
                    vec![
                        ("view", "diff".to_owned()),
                        ("mode", "flame".to_owned()),
                        ("focus", focus),
                    ]
                });
            }
            _ => {}
        }
    }
}

/// Each step of a recording's hot path ("Hot path": a list item per
/// thread, its steps' names as code spans, from the heaviest root down)
/// links to that recording's flame graph focused on the step's node (of a
/// pair, with its side: `side=a`, `side=b`).
fn link_hot_paths(blocks: &mut [Block], facts: &serde_json::Value, pair: bool) {
    let Some(recordings) = facts["hot_paths"].as_array() else {
        return;
    };
    let text = |spans: &[Span]| spans.iter().map(|s| s.text.as_str()).collect::<String>();
    // The recording whose hot paths the list is, and the next item's.
    let mut under: Option<usize> = None;
    let mut k = 0;
    for b in blocks.iter_mut() {
        match b {
            Block::Heading(_, spans) => {
                let t = text(spans);
                under = t
                    .contains("Hot path (merged")
                    .then(|| usize::from(pair && t.starts_with("B (")));
                k = 0;
            }
            Block::Item(_, spans) if under.is_some() => {
                let side = under.unwrap_or(0);
                let Some(p) = recordings.get(side).and_then(|r| r.get(k)) else {
                    continue;
                };
                k += 1;
                link_steps(spans, p, |focus| {
                    let mut pairs = vec![("view", "flame".to_owned()), ("focus", focus)];
                    if pair {
                        pairs.push(("side", if side == 1 { "b" } else { "a" }.to_owned()));
                    }
                    pairs
                });
            }
            _ => {}
        }
    }
}

/// Each slowest frame (the first column of a "Slowest frames" table) links
/// to the timeline at that frame, of its side (a pair's recording sections
/// are headed "A (…)" and "B (…)").
fn link_frames(blocks: &mut [Block], pair: bool) {
    let text = |spans: &[Span]| spans.iter().map(|s| s.text.as_str()).collect::<String>();
    let mut side = "a";
    let mut frames = false;
    for b in blocks.iter_mut() {
        match b {
            Block::Heading(_, spans) => {
                let t = text(spans);
                if pair && t.starts_with("B (") {
                    side = "b";
                } else if pair && t.starts_with("A (") {
                    side = "a";
                }
                frames = t.contains("Slowest frames");
            }
            Block::Table(rows) if frames => {
                for row in rows.iter_mut().skip(1) {
                    let Some(cell) = row.first_mut() else {
                        continue;
                    };
                    let t = text(cell);
                    if let Ok(index) = t.trim().parse::<u64>() {
                        let mut pairs = vec![
                            ("view", "timeline".to_owned()),
                            ("frame", index.to_string()),
                        ];
                        if pair {
                            pairs.push(("side", side.to_owned()));
                        }
                        *cell = vec![Span {
                            text: t,
                            code: false,
                            strong: false,
                            italic: false,
                            link: Some(crate::app::nav::encode_hash(&pairs)),
                        }];
                    }
                }
                frames = false;
            }
            _ => {}
        }
    }
}

/// The Markdown's blocks (the subset `Report::markdown` writes: headings,
/// paragraphs, lists, GitHub alerts, tables); `link` gives a code span's
/// link.
pub fn blocks(md: &str, link: &dyn Fn(&str) -> Option<String>) -> Vec<Block> {
    let mut out = Vec::new();
    let mut para: Vec<&str> = Vec::new();
    let mut table: Vec<Vec<Vec<Span>>> = Vec::new();
    let mut quote: Option<(bool, Vec<&str>)> = None;
    let flush = |out: &mut Vec<Block>,
                 para: &mut Vec<&str>,
                 table: &mut Vec<Vec<Vec<Span>>>,
                 quote: &mut Option<(bool, Vec<&str>)>| {
        if !para.is_empty() {
            out.push(Block::Paragraph(inline(&para.join(" "), link)));
            para.clear();
        }
        if !table.is_empty() {
            out.push(Block::Table(std::mem::take(table)));
        }
        if let Some((warning, lines)) = quote.take() {
            out.push(Block::Quote {
                warning,
                spans: inline(&lines.join(" "), link),
            });
        }
    };
    // Inside a fenced block (the report's Mermaid charts, which the page
    // draws as its pictures): skipped.
    let mut fenced = false;
    for line in md.lines() {
        let trimmed = line.trim_start();
        if trimmed.starts_with("```") {
            flush(&mut out, &mut para, &mut table, &mut quote);
            fenced = !fenced;
        } else if fenced {
        } else if trimmed.is_empty() {
            flush(&mut out, &mut para, &mut table, &mut quote);
        } else if let Some(rest) = trimmed.strip_prefix('>') {
            if quote.is_none() {
                flush(&mut out, &mut para, &mut table, &mut quote);
            }
            let rest = rest.trim_start();
            let q = quote.get_or_insert((false, Vec::new()));
            match rest {
                "[!WARNING]" | "[!CAUTION]" | "[!IMPORTANT]" => q.0 = true,
                "[!NOTE]" | "[!TIP]" => {}
                text => q.1.push(text),
            }
        } else if trimmed.starts_with('|') {
            if table.is_empty() {
                flush(&mut out, &mut para, &mut table, &mut quote);
            }
            let separator = trimmed.chars().all(|c| matches!(c, '|' | '-' | ':' | ' '));
            if !separator {
                table.push(cells(trimmed).iter().map(|c| inline(c, link)).collect());
            }
        } else if trimmed.starts_with('#') {
            flush(&mut out, &mut para, &mut table, &mut quote);
            let level = trimmed.chars().take_while(|&c| c == '#').count();
            out.push(Block::Heading(
                level.min(6) as u8,
                inline(trimmed[level..].trim(), link),
            ));
        } else if let Some((number, item)) = numbered(trimmed) {
            flush(&mut out, &mut para, &mut table, &mut quote);
            out.push(Block::Numbered(number.to_owned(), inline(item, link)));
        } else if let Some(item) = trimmed.strip_prefix("- ") {
            flush(&mut out, &mut para, &mut table, &mut quote);
            let depth = (line.len() - trimmed.len()) / 2;
            out.push(Block::Item(depth.min(8) as u8, inline(item, link)));
        } else {
            if !table.is_empty() || quote.is_some() {
                flush(&mut out, &mut para, &mut table, &mut quote);
            }
            para.push(trimmed);
        }
    }
    flush(&mut out, &mut para, &mut table, &mut quote);
    out
}

/// `3. text`: (`3.`, `text`).
fn numbered(line: &str) -> Option<(&str, &str)> {
    let digits = line.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 || !line[digits..].starts_with(". ") {
        return None;
    }
    Some((&line[..digits + 1], &line[digits + 2..]))
}

/// A table row's cells: split on unescaped `|` (a cell's `\|` is a `|`).
fn cells(row: &str) -> Vec<String> {
    let row = row.trim();
    let row = row.strip_prefix('|').unwrap_or(row);
    let row = row.strip_suffix('|').unwrap_or(row);
    let mut out = vec![String::new()];
    let mut chars = row.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if chars.peek() == Some(&'|') => {
                out.last_mut().unwrap_or(&mut String::new()).push('|');
                chars.next();
            }
            '|' => out.push(String::new()),
            c => {
                if let Some(last) = out.last_mut() {
                    last.push(c);
                }
            }
        }
    }
    out.into_iter().map(|c| c.trim().to_owned()).collect()
}

pub(super) fn spans_ui(ui: &mut egui::Ui, spans: &[Span], clicked: &mut Option<String>) {
    for s in spans {
        let mut t = RichText::new(&s.text);
        if s.code {
            t = t.code();
        }
        if s.strong {
            t = t.strong();
        }
        if s.italic {
            t = t.italics();
        }
        match &s.link {
            Some(link) => {
                if ui.link(t).on_hover_text("Show its evidence").clicked() {
                    *clicked = Some(link.clone());
                }
            }
            None => {
                ui.label(t);
            }
        }
    }
}

fn block_ui(ui: &mut egui::Ui, block: &Block, clicked: &mut Option<String>) {
    match block {
        Block::Heading(level, spans) => {
            ui.add_space(if *level <= 2 { 10.0 } else { 6.0 });
            let text: String = spans.iter().map(|s| s.text.as_str()).collect();
            let size = match level {
                1 => 22.0,
                2 => 19.0,
                _ => 16.0,
            };
            ui.label(RichText::new(text).size(size).strong());
        }
        Block::Paragraph(spans) => {
            ui.horizontal_wrapped(|ui| {
                ui.spacing_mut().item_spacing.x = 0.0;
                spans_ui(ui, spans, clicked);
            });
            ui.add_space(4.0);
        }
        Block::Numbered(number, spans) => {
            ui.horizontal_wrapped(|ui| {
                ui.spacing_mut().item_spacing.x = 0.0;
                ui.add_space(12.0);
                ui.label(RichText::new(format!("{number} ")).strong());
                spans_ui(ui, spans, clicked);
            });
        }
        Block::Item(depth, spans) => {
            ui.horizontal_wrapped(|ui| {
                ui.spacing_mut().item_spacing.x = 0.0;
                ui.add_space(12.0 + 16.0 * *depth as f32);
                ui.label("•  ");
                spans_ui(ui, spans, clicked);
            });
        }
        Block::Quote { warning, spans } => {
            let color = if *warning {
                ui.visuals().warn_fg_color
            } else {
                Color32::from_rgb(90, 140, 220)
            };
            egui::Frame::new()
                .stroke(egui::Stroke::new(1.0, color))
                .inner_margin(6.0)
                .show(ui, |ui| {
                    ui.horizontal_wrapped(|ui| {
                        ui.spacing_mut().item_spacing.x = 0.0;
                        ui.label(
                            RichText::new(if *warning { "Warning: " } else { "Note: " })
                                .color(color)
                                .strong(),
                        );
                        spans_ui(ui, spans, clicked);
                    });
                });
            ui.add_space(4.0);
        }
        Block::Table(rows) => {
            let id = ui.next_auto_id();
            egui::ScrollArea::horizontal()
                .id_salt(id)
                .auto_shrink([false, true])
                .show(ui, |ui| {
                    egui::Grid::new(id).striped(true).show(ui, |ui| {
                        for (k, row) in rows.iter().enumerate() {
                            for cell in row {
                                ui.horizontal(|ui| {
                                    if k == 0 {
                                        let text: String =
                                            cell.iter().map(|s| s.text.as_str()).collect();
                                        ui.label(RichText::new(text).strong());
                                    } else {
                                        spans_ui(ui, cell, clicked);
                                    }
                                });
                            }
                            ui.end_row();
                        }
                    });
                });
            ui.add_space(4.0);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(spans: &[Span]) -> Vec<(&str, bool)> {
        spans.iter().map(|s| (s.text.as_str(), s.code)).collect()
    }

    #[test]
    fn inline_markdown_as_the_report_writes_it() {
        let none = |_: &str| None;
        assert_eq!(
            texts(&inline("`a` then ``x`y`` and \\*z\\* \\|", &none)),
            vec![
                ("a", true),
                (" then ", false),
                ("x`y", true),
                (" and *z* |", false)
            ]
        );
        let s = inline("**The frame**: `` `tick` ``", &none);
        assert!(s[0].strong && s[0].text == "The frame");
        assert_eq!(s[2].text, "`tick`");
        let link = |c: &str| (c == "gc::sweep").then(|| scope_link(c, true));
        let s = inline("new `gc::sweep` under `frame`", &link);
        assert_eq!(
            s[1].link.as_deref(),
            Some("view=diff&mode=table&scope=gc::sweep")
        );
        assert_eq!(s[3].link, None);
    }

    #[test]
    fn blocks_of_a_report() {
        let md = "# T\n\npara one\ncontinued\n\n- item `a`\n  - sub\n\n> [!WARNING]\n> careful\n\n\
                  | x | y |\n|---|---:|\n| `a\\|b` | 2 |\n\n1. one\n2. two\n";
        let b = blocks(md, &|_| None);
        assert_eq!(b.len(), 8, "{b:?}");
        assert!(matches!(&b[7], Block::Numbered(n, s) if n == "2." && s[0].text == "two"));
        assert!(matches!(&b[1], Block::Paragraph(s) if s[0].text == "para one continued"));
        assert!(matches!(&b[3], Block::Item(1, _)));
        assert!(matches!(&b[4], Block::Quote { warning: true, .. }));
        let Block::Table(rows) = &b[5] else {
            panic!("{b:?}")
        };
        assert_eq!(rows.len(), 2);
        assert_eq!(rows[1][0][0].text, "a|b");
        // A fenced block (the report's Mermaid charts) is not drawn.
        let fenced = "before\n```mermaid\nxychart-beta\n    line [1, 2]\n```\nafter\n";
        let b = blocks(fenced, &|_| None);
        assert_eq!(b.len(), 2, "{b:?}");
        assert!(matches!(&b[1], Block::Paragraph(s) if s[0].text == "after"));
    }
}
