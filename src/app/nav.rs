//! Where the user is: the view, the frame selection, the selected scope and
//! each view's mode, and how that is written in the location hash
//! (`#view=tree&frame=102&scope=render&mode=frame`).

use crate::engine::{FrameId, Trace};
use std::ops::Range;

/// The views of the view bar (keys 1-6).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum View {
    /// What to look at first: the report's findings, each a link into the
    /// view that shows it (a pair's landing).
    Findings,
    #[default]
    Overview,
    Tree,
    Table,
    Timeline,
    /// The merged call tree as a flame graph.
    Flame,
    /// A against B (both must be open).
    Diff,
}

impl View {
    pub const ALL: [View; 7] = [
        View::Findings,
        View::Overview,
        View::Tree,
        View::Table,
        View::Timeline,
        View::Flame,
        View::Diff,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            View::Findings => "findings",
            View::Overview => "overview",
            View::Tree => "tree",
            View::Table => "table",
            View::Timeline => "timeline",
            View::Flame => "flame",
            View::Diff => "diff",
        }
    }

    pub fn title(self) -> &'static str {
        match self {
            View::Findings => "Findings",
            View::Overview => "Overview",
            View::Tree => "Tree",
            View::Table => "Table",
            View::Timeline => "Timeline",
            View::Flame => "Flame",
            View::Diff => "Diff",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        View::ALL.into_iter().find(|v| v.as_str() == s)
    }

    /// The key that shows it (1-7; the flame graph came after the diff,
    /// the findings after both).
    pub fn key(self) -> egui::Key {
        match self {
            View::Findings => egui::Key::Num7,
            View::Overview => egui::Key::Num1,
            View::Tree => egui::Key::Num2,
            View::Table => egui::Key::Num3,
            View::Timeline => egui::Key::Num4,
            View::Diff => egui::Key::Num5,
            View::Flame => egui::Key::Num6,
        }
    }
}

/// Which frames the tree and the table cover.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum FrameSel {
    /// Every frame of the recording.
    #[default]
    All,
    One(FrameId),
    /// An inclusive range of frames (file order).
    Range(FrameId, FrameId),
}

impl FrameSel {
    /// Frame positions covered.
    pub fn positions(self, trace: &Trace) -> Range<u32> {
        let n = trace.frames.len() as u32;
        match self {
            FrameSel::All => 0..n,
            FrameSel::One(f) => f.0.min(n)..(f.0 + 1).min(n),
            FrameSel::Range(a, b) => a.0.min(b.0).min(n)..(a.0.max(b.0) + 1).min(n),
        }
    }

    pub fn label(self, trace: &Trace) -> String {
        let fi = |f: FrameId| trace.frames.frame_index.get(f.idx()).copied().unwrap_or(0);
        match self {
            FrameSel::All => format!("all {} frames", trace.frames.len()),
            FrameSel::One(f) => format!("frame {}", fi(f)),
            FrameSel::Range(a, b) => {
                let n = b.0.abs_diff(a.0) + 1;
                format!("frames {}–{} ({n})", fi(a.min(b)), fi(a.max(b)))
            }
        }
    }

    /// In the hash: `all`, a frame_index, or `lo-hi` frame indices.
    pub fn to_hash(self, trace: &Trace) -> String {
        let fi = |f: FrameId| trace.frames.frame_index.get(f.idx()).copied().unwrap_or(0);
        match self {
            FrameSel::All => "all".to_owned(),
            FrameSel::One(f) => fi(f).to_string(),
            FrameSel::Range(a, b) => format!("{}-{}", fi(a.min(b)), fi(a.max(b))),
        }
    }

    pub fn from_hash(s: &str, trace: &Trace) -> Option<Self> {
        let by_index = |t: &str| {
            let i: u64 = t.parse().ok()?;
            crate::engine::analyses::frame_by_index(trace, i)
        };
        if s == "all" {
            return Some(FrameSel::All);
        }
        if let Some((a, b)) = s.split_once('-') {
            return Some(FrameSel::Range(by_index(a)?, by_index(b)?));
        }
        by_index(s).map(FrameSel::One)
    }
}

/// The `sort` and `descending` options of `puffinLens.show`: the column
/// (parsed by `parse`) and its direction, descending unless told otherwise
/// or `ascending_by_default` says the column reads A to Z; `None` without
/// `sort`.
pub fn sort_option<T: Copy>(
    opts: &serde_json::Map<String, serde_json::Value>,
    parse: impl Fn(&str) -> Option<T>,
    ascending_by_default: impl Fn(T) -> bool,
) -> Result<Option<(T, bool)>, String> {
    let Some(v) = opts.get("sort") else {
        return Ok(None);
    };
    let col = v
        .as_str()
        .and_then(parse)
        .ok_or_else(|| format!("show: bad sort: {v}"))?;
    let descending = match opts.get("descending") {
        Some(d) => d
            .as_bool()
            .ok_or_else(|| format!("show: bad descending: {d}"))?,
        None => !ascending_by_default(col),
    };
    Ok(Some((col, descending)))
}

/// `key=value&…` with values percent-encoded.
pub fn encode_hash(pairs: &[(&str, String)]) -> String {
    let mut out = String::new();
    for (k, v) in pairs {
        if !out.is_empty() {
            out.push('&');
        }
        out.push_str(k);
        out.push('=');
        for b in v.bytes() {
            if b.is_ascii_alphanumeric() || b"-_.~:".contains(&b) {
                out.push(b as char);
            } else {
                out.push_str(&format!("%{b:02X}"));
            }
        }
    }
    out
}

/// The pairs of a hash written by [`encode_hash`] (or by hand).
pub fn decode_hash(hash: &str) -> Vec<(String, String)> {
    hash.trim_start_matches('#')
        .split('&')
        .filter_map(|pair| {
            let (k, v) = pair.split_once('=')?;
            Some((k.to_owned(), percent_decode(v)))
        })
        .collect()
}

/// The value of `key` in pairs from [`decode_hash`] (the first, when repeated).
pub fn hash_value<'a>(pairs: &'a [(String, String)], key: &str) -> Option<&'a str> {
    pairs
        .iter()
        .find(|(k, _)| k == key)
        .map(|(_, v)| v.as_str())
}

fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |c: u8| (c as char).to_digit(16);
        if bytes[i] == b'%'
            && i + 2 < bytes.len()
            && let (Some(h), Some(l)) = (hex(bytes[i + 1]), hex(bytes[i + 2]))
        {
            out.push((h * 16 + l) as u8);
            i += 3;
        } else if bytes[i] == b'+' {
            out.push(b' ');
            i += 1;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Whether `text` matches the filter: starts with it, or contains it when
/// `substring` (case-insensitive then).
pub fn matches(text: &str, filter: &str, substring: bool) -> bool {
    Matcher::new(filter, substring).test(text)
}

/// The scope filter, prepared once and tested against many strings without
/// allocating (ASCII filters; others fall back on lowercasing).
pub struct Matcher {
    filter: String,
    lower: String,
    substring: bool,
}

impl Matcher {
    pub fn new(filter: &str, substring: bool) -> Self {
        Self {
            filter: filter.to_owned(),
            lower: filter.to_lowercase(),
            substring,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.filter.is_empty()
    }

    pub fn test(&self, text: &str) -> bool {
        if self.filter.is_empty() {
            return true;
        }
        if !self.substring {
            return text.starts_with(&self.filter);
        }
        let needle = self.lower.as_bytes();
        if self.lower.is_ascii() {
            let first = needle[0];
            text.as_bytes()
                .windows(needle.len())
                .any(|w| w[0].eq_ignore_ascii_case(&first) && w.eq_ignore_ascii_case(needle))
        } else {
            text.to_lowercase().contains(&self.lower)
        }
    }
}

/// An option that is a list of strings (`["main", "frame"]`) or `null`
/// (empty); `None` when it is anything else.
pub fn string_list_option(v: &serde_json::Value) -> Option<Vec<String>> {
    match v {
        serde_json::Value::Null => Some(Vec::new()),
        v => v
            .as_array()?
            .iter()
            .map(|x| x.as_str().map(str::to_owned))
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hash_round_trip() {
        let h = encode_hash(&[("view", "tree".into()), ("scope", "a b&c=é".into())]);
        assert_eq!(h, "view=tree&scope=a%20b%26c%3D%C3%A9");
        assert_eq!(
            decode_hash(&format!("#{h}")),
            vec![
                ("view".to_owned(), "tree".to_owned()),
                ("scope".to_owned(), "a b&c=é".to_owned())
            ]
        );
    }

    #[test]
    fn filters() {
        assert!(matches("render_frame", "render", false));
        assert!(!matches("do_render", "render", false));
        assert!(matches("do_Render", "render", true));
        assert!(matches("x", "", false));
        assert!(matches("Grüße aus Köln", "KÖLN", true));
        assert!(!matches("ab", "abc", true));
    }
}
