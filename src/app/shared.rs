//! State shared between the app and the outside: files arriving
//! asynchronously (browser file picker, `?url=`, the JavaScript API) and
//! the recordings the app shows, which the JavaScript API reads.

use super::loaded::{Loaded, Source};
use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Arc;

/// Which side of a comparison: A (before, the main recording) or B (after).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub enum Side {
    #[default]
    A,
    B,
}

impl Side {
    /// The other side.
    pub fn other(self) -> Side {
        match self {
            Side::A => Side::B,
            Side::B => Side::A,
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            Side::A => "A",
            Side::B => "B",
        }
    }

    /// `"a"`/`"b"` (any case); anything else is `None`.
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "a" | "A" => Some(Side::A),
            "b" | "B" => Some(Side::B),
            _ => None,
        }
    }
}

/// Called once a requested load ends: `Ok(summary JSON)` or `Err(message)`.
pub type OnDone = Box<dyn FnOnce(Result<String, String>)>;

/// A recording to open.
pub struct Incoming {
    pub name: String,
    pub source: Source,
    /// `None`: A when nothing is open, else B.
    pub side: Option<Side>,
    pub on_done: Option<OnDone>,
    /// When the request was made ([`SharedState::take_turn`]; 0: when it
    /// is pushed). The latest made wins, whatever order the bytes arrive in.
    pub turn: u64,
    /// Added as one more run of `side` (several runs a side, judged between
    /// runs) instead of replacing what is there; runs asked for while one
    /// loads wait their turn.
    pub add_run: bool,
}

/// Progress of the load in flight, for `status()`.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct LoadStatus {
    pub name: String,
    pub side: &'static str,
    pub done_bytes: usize,
    pub total_bytes: usize,
}

#[derive(Default)]
pub struct SharedState {
    /// Files waiting to be opened by the app.
    pub incoming: Vec<Incoming>,
    /// What the app shows, published after every change.
    pub a: Option<Arc<Loaded>>,
    pub b: Option<Arc<Loaded>>,
    /// The side the overview shows.
    pub shown: Side,
    /// The error line the app shows (one line), for `status()`.
    pub error: Option<String>,
    /// An error from outside, for the app to show ([`Self::fail`]).
    pub failed: Option<String>,
    pub loading: Option<LoadStatus>,
    /// Downloads (`?url=`, `&b=`) in flight, in the order asked.
    pub fetches: Vec<Fetch>,
    /// The last request that another one for the same side replaced before
    /// it finished (one line), for `status()` and the app's notice.
    pub replaced: Option<String>,
    /// Set once the app runs, to wake it when something arrives.
    pub ctx: Option<egui::Context>,
    /// Requests to the views (`puffinLens.show`/`select`, hash changes),
    /// answered with the `ui()` JSON once applied.
    pub commands: Vec<(UiCommand, Option<OnDone>)>,
    /// What `puffinLens.ui()` returns, republished when it changes.
    pub ui: Option<String>,
    /// A live connection to open (`?live=`, `puffinLens.connect`).
    pub connect: Option<String>,
    /// `?url=A&b=B`: show A's side, on the pair's findings, once both are open.
    pub pair_when_loaded: bool,
    /// The live connection's status, for `status()`.
    pub live: Option<serde_json::Value>,
    /// The last turn given to a request ([`Self::take_turn`]).
    pub last_turn: u64,
    /// Where files are dragged over the page, and where they were dropped
    /// (CSS pixels from the canvas's top left): the browser says, the
    /// desktop does not (`None`). A drop onto a side's name in the top bar
    /// adds runs to that side.
    pub drag_pos: Option<[f32; 2]>,
    pub drop_pos: Option<[f32; 2]>,
    /// Three or more files given at once, waiting for the user to say
    /// which are runs of A and which of B.
    pub split: Option<Split>,
    /// Files picked together that are a folder of `ab` runs (its manifest
    /// among them, or one zip), for the app to read and open by the
    /// manifest: names and files.
    pub runs_files: Option<(Vec<String>, Vec<GivenFile>)>,
    /// A folder of `ab` runs read in the browser, for the app to open.
    pub runs_given: Option<super::runs_given::RunsGiven>,
}

/// A download in flight, to become side `side` once it arrives.
pub struct Fetch {
    pub id: u64,
    pub url: String,
    pub side: Side,
    /// Its turn ([`SharedState::take_turn`]): only a later request
    /// cancels it.
    pub turn: u64,
    /// One more run of `side` (a repeated `?url=` or `&b=`).
    pub add_run: bool,
    /// Stops the download (its result is dropped either way once the fetch
    /// is gone from [`SharedState::fetches`]).
    pub abort: Option<Box<dyn FnOnce()>>,
}

/// A request to the views from outside the app.
#[derive(Clone, Debug)]
pub enum UiCommand {
    /// `show(view, options)`: switch the view like a click would.
    Show {
        view: String,
        options: serde_json::Value,
    },
    /// `select(name)`: open the details of a scope name.
    Select(String),
    /// The location hash changed (back/forward, or typed).
    Hash(String),
    /// `setTransforms(list)`: the call-tree transforms shown.
    Transforms(crate::engine::analyses::transform::Stack),
}

pub type Shared = Rc<RefCell<SharedState>>;

impl SharedState {
    /// Queues a recording and wakes the app (a request without a turn
    /// takes one now).
    pub fn push(&mut self, mut incoming: Incoming) {
        if incoming.turn == 0 {
            incoming.turn = self.take_turn();
        }
        self.incoming.push(incoming);
        self.repaint();
    }

    /// A turn for a request made now (a drop, a pick, a `?url=`, a
    /// `load()`), taken before its bytes are read or downloaded.
    pub fn take_turn(&mut self) -> u64 {
        self.last_turn += 1;
        self.last_turn
    }

    /// The side a request made now opens as: `side`, or A unless a
    /// recording is shown there (then B, to compare). Decided when the
    /// request is made, so bytes that arrive late cannot change it.
    pub fn side_now(&self, side: Option<Side>) -> Side {
        side.unwrap_or(if self.a.is_none() { Side::A } else { Side::B })
    }

    /// Opens a file the user gave (dropped or picked) as `side` (`None`: A
    /// unless a recording is shown there), or shows why it could not be
    /// read (`Err`: a line naming the file).
    /// `turn`: when the user gave it (before it was read).
    pub fn open_read(
        &mut self,
        name: String,
        (side, add_run): (Option<Side>, bool),
        turn: u64,
        read: Result<Vec<u8>, String>,
    ) {
        match read {
            Ok(bytes) => self.push(Incoming {
                add_run,
                name,
                source: Source::Bytes(bytes),
                side,
                on_done: None,
                turn,
            }),
            Err(err) => self.fail(err),
        }
    }

    /// The first download in flight, for `status().fetching`.
    pub fn fetching(&self) -> Option<&str> {
        self.fetches.first().map(|f| f.url.as_str())
    }

    /// Whether a download of `side`'s first run is in flight (a run added
    /// to the side waits for it).
    pub fn first_run_fetching(&self, side: Side) -> bool {
        self.fetches.iter().any(|f| f.side == side && !f.add_run)
    }

    /// Drops the downloads meant for `side` asked for before `turn`, because
    /// `by` replaces them;
    /// returns what they were, for the one-line notice.
    pub fn cancel_fetches(&mut self, side: Side, by: &str, turn: u64) -> Vec<String> {
        // Turn 0: pushed without one, so made now, after every fetch.
        let (gone, kept) = std::mem::take(&mut self.fetches)
            .into_iter()
            .partition::<Vec<_>, _>(|f| f.side == side && (turn == 0 || f.turn < turn));
        self.fetches = kept;
        let mut lines = Vec::new();
        for fetch in gone {
            if let Some(abort) = fetch.abort {
                abort();
            }
            // ?url=A&b=B: the pair the findings waited for is no more.
            self.pair_when_loaded = false;
            lines.push(format!(
                "the download of {} ({}) was cancelled: {by} replaced it",
                fetch.url,
                side.label()
            ));
        }
        lines
    }

    /// Queues a request to the views and wakes the app.
    pub fn command(&mut self, command: UiCommand, on_done: Option<OnDone>) {
        self.commands.push((command, on_done));
        self.repaint();
    }

    /// Shows `msg` as the app's error line.
    pub fn fail(&mut self, msg: String) {
        self.error = Some(msg.clone());
        self.failed = Some(msg);
        self.repaint();
    }

    fn repaint(&self) {
        if let Some(ctx) = &self.ctx {
            ctx.request_repaint();
        }
    }

    pub fn loaded(&self, side: Side) -> Option<&Arc<Loaded>> {
        match side {
            Side::A => self.a.as_ref(),
            Side::B => self.b.as_ref(),
        }
    }
}

/// Where each of several files given at once goes: `(side, add_run)` in
/// their order. `into` (the "+ run" of a side): every one is added as a
/// run of that side. Otherwise one file follows the usual rule (`None`);
/// two open as A and B; three or more are runs of both sides, the first
/// half by name A's (several runs a side are judged between runs).
pub fn given_targets(names: &[String], into: Option<Side>) -> Vec<(Option<Side>, bool)> {
    if let Some(side) = into {
        return vec![(Some(side), true); names.len()];
    }
    let n = names.len();
    if n < 3 {
        return (0..n).map(|i| (dropped_side(n, i), false)).collect();
    }
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&x, &y| names[x].cmp(&names[y]).then(x.cmp(&y)));
    let half = n.div_ceil(2);
    let mut out = vec![(None, false); n];
    for (rank, &i) in order.iter().enumerate() {
        let (side, first) = if rank < half {
            (Side::A, rank == 0)
        } else {
            (Side::B, rank == half)
        };
        out[i] = (Some(side), !first);
    }
    out
}

/// The side a file given with `count` others at once opens as: one file
/// follows the usual rule (`None`); two or more open as A and B, to compare
/// (a third replaces B: the later wins).
pub fn dropped_side(count: usize, i: usize) -> Option<Side> {
    match (count, i) {
        (0 | 1, _) => None,
        (_, 0) => Some(Side::A),
        _ => Some(Side::B),
    }
}

/// A file given by the user, not yet read.
pub enum GivenFile {
    Dropped(egui::DroppedFileHandle),
    #[cfg(not(target_arch = "wasm32"))]
    Path(std::path::PathBuf),
    #[cfg(target_arch = "wasm32")]
    Picked(rfd::FileHandle),
}

/// Files waiting for the user to say which side each is a run of.
pub struct Split {
    pub names: Vec<String>,
    pub files: Vec<GivenFile>,
    /// Per file: a run of A (else of B).
    pub to_a: Vec<bool>,
}

impl Split {
    /// The files, the first half by name A's.
    pub fn new(names: Vec<String>, files: Vec<GivenFile>) -> Self {
        let to_a = given_targets(&names, None)
            .iter()
            .map(|(side, _)| *side != Some(Side::B))
            .collect();
        Self { names, files, to_a }
    }

    /// Each file's side, and whether it is one more run of it (each side's
    /// first by name opens it).
    pub fn targets(&self) -> Vec<(Option<Side>, bool)> {
        let mut order: Vec<usize> = (0..self.names.len()).collect();
        order.sort_by(|&x, &y| self.names[x].cmp(&self.names[y]).then(x.cmp(&y)));
        let mut out = vec![(None, false); self.names.len()];
        let mut opened = [false; 2];
        for i in order {
            let side = if self.to_a[i] { Side::A } else { Side::B };
            out[i] = (Some(side), opened[side as usize]);
            opened[side as usize] = true;
        }
        out
    }

    /// The dialog's state for `puffinLens.ui()`.
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::json!({"names": self.names, "to_a": self.to_a})
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_given_at_once_split_into_runs_by_name() {
        let names = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(
            given_targets(&names(&["x.puffin"]), None),
            vec![(None, false)]
        );
        assert_eq!(
            given_targets(&names(&["b.puffin", "a.puffin"]), None),
            vec![(Some(Side::A), false), (Some(Side::B), false)]
        );
        // Five: the first three by name are A's (a1 first), the rest B's.
        assert_eq!(
            given_targets(&names(&["b2", "a2", "a1", "b1", "a3"]), None),
            vec![
                (Some(Side::B), true),
                (Some(Side::A), true),
                (Some(Side::A), false),
                (Some(Side::B), false),
                (Some(Side::A), true),
            ]
        );
        assert_eq!(
            given_targets(&names(&["x", "y"]), Some(Side::B)),
            vec![(Some(Side::B), true); 2]
        );
    }
}
