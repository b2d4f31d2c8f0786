//! Transforms of the merged call tree: a stack of small named operations
//! (the Firefox Profiler's call-tree transforms) applied in order to a
//! [`MergedTree`] before any view, query or export reads it, so noise
//! (dependencies, thin wrappers, recursion) can be hidden and what matters
//! kept in focus.
//!
//! | transform | written | what it does |
//! |---|---|---|
//! | merge | `merge:NAME` | the matching scopes disappear: their own time goes to their parent, their children move up one level |
//! | focus | `focus:A;B;C` | only the subtree at that path of names (from a thread's top level), as the root |
//! | focus-function | `focus-function:NAME` | every call of NAME, wherever it is, merged as one root (nested calls stay below it); its callers gone |
//! | collapse | `collapse:NAME` | a matching node keeps its total; its subtree is folded into its own time |
//! | collapse-crate | `collapse-crate:CRATE` | a run of nested scopes from that crate becomes one node `[CRATE]` |
//! | only-my-code | `only-my-code` | `collapse-crate` of every dependency crate |
//! | collapse-recursion | `collapse-recursion:NAME` or `:all` | a scope directly inside itself is merged into the outer one |
//! | drop | `drop:NAME` | the matching scopes and their subtrees are removed, and their time with them |
//! | split-data | `split-data:NAME` | the matching nodes are split by their data string (`NAME [data]`) |
//!
//! NAME is a scope name or a glob over it (`*` any run of characters, `?`
//! one, `[abc]`/`[a-z]`/`[!a]` a class, `\` escapes). A scope's crate is
//! read from its source file (puffin keeps a dependency's as
//! `wgpu-24.0.0/src/device.rs` and the app's own as `src/main.rs`; full
//! paths under a Cargo registry or git checkout work too), or failing that
//! from the name's leading `module::`. A dependency is a crate whose folder
//! carries a version or lies under `.cargo/registry` or `.cargo/git`.
//!
//! Each transform maps the tree to a new tree, node by node, parents before
//! children ([`apply`]): a node is kept (under its parent's image), made a
//! root, relabelled, absorbed into its parent's image (its own time added
//! there, its total already counted by an ancestor), or removed. Totals
//! follow from that rule alone: a node's total is the sum of the totals of
//! the input nodes it heads, its own time the sum of every input node's
//! own time mapped to it, and a thread's total its own (merged roots') time
//! plus its roots'. Split by data is applied while merging (the data is
//! gone from a merged tree) and so holds for the whole stack wherever it
//! stands.

use super::common::Applied;
use super::tree::{LABEL_BIT, Label, MergedTree, MergedTreeBuilder, NodeId, TreeReport};
use crate::engine::model::{NO_PARENT, ScopeIdx, StrId, Trace};
use rustc_hash::FxHashMap;
use std::fmt;

/// A scope-name pattern: exact, or a glob.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pattern {
    text: String,
    tokens: Option<Vec<Token>>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Token {
    Char(char),
    Any,
    Star,
    /// Ranges (inclusive), negated.
    Class(Vec<(char, char)>, bool),
}

impl Pattern {
    /// Parses a name or a glob; a malformed glob (an unclosed `[`, an empty
    /// class, a trailing `\`) is an error naming what is wrong.
    pub fn new(text: &str) -> Result<Self, String> {
        if text.is_empty() {
            return Err("an empty name".to_owned());
        }
        if !text.contains(['*', '?', '[', '\\']) {
            return Ok(Self {
                text: text.to_owned(),
                tokens: None,
            });
        }
        let mut tokens = Vec::new();
        let mut chars = text.chars().peekable();
        while let Some(c) = chars.next() {
            tokens.push(match c {
                '*' => {
                    while chars.next_if_eq(&'*').is_some() {}
                    Token::Star
                }
                '?' => Token::Any,
                '\\' => Token::Char(
                    chars
                        .next()
                        .ok_or_else(|| format!("glob {text:?} ends with an escape (\\)"))?,
                ),
                '[' => {
                    let negated = chars.next_if(|c| matches!(c, '!' | '^')).is_some();
                    let mut ranges = Vec::new();
                    loop {
                        let c = chars
                            .next()
                            .ok_or_else(|| format!("glob {text:?} has an unclosed ["))?;
                        // A `]` first is a member, not the end.
                        if c == ']' && !ranges.is_empty() {
                            break;
                        }
                        let lo = if c == '\\' {
                            chars.next().unwrap_or('\\')
                        } else {
                            c
                        };
                        let mut hi = lo;
                        if chars.peek() == Some(&'-')
                            && let Some(h) = chars.clone().nth(1).filter(|&h| h != ']')
                        {
                            chars.nth(1);
                            hi = h;
                        }
                        if hi < lo {
                            return Err(format!("glob {text:?} has a range backwards ({lo}-{hi})"));
                        }
                        ranges.push((lo, hi));
                    }
                    Token::Class(ranges, negated)
                }
                c => Token::Char(c),
            });
        }
        Ok(Self {
            text: text.to_owned(),
            tokens: Some(tokens),
        })
    }

    /// `name` as a pattern matching it alone (glob characters escaped).
    pub fn escape(name: &str) -> String {
        let mut out = String::with_capacity(name.len());
        for c in name.chars() {
            if matches!(c, '*' | '?' | '[' | '\\') {
                out.push('\\');
            }
            out.push(c);
        }
        out
    }

    /// As written.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    pub fn matches(&self, name: &str) -> bool {
        match &self.tokens {
            None => name == self.text,
            Some(tokens) => glob_match(tokens, &name.chars().collect::<Vec<_>>()),
        }
    }
}

/// Iterative glob matching with one backtrack point per star (linear in
/// practice, never exponential).
fn glob_match(p: &[Token], s: &[char]) -> bool {
    let (mut pi, mut si) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while si < s.len() {
        let step = match p.get(pi) {
            Some(Token::Star) => {
                star = Some((pi, si));
                pi += 1;
                continue;
            }
            Some(Token::Any) => true,
            Some(Token::Char(c)) => *c == s[si],
            Some(Token::Class(ranges, negated)) => {
                ranges.iter().any(|&(lo, hi)| (lo..=hi).contains(&s[si])) != *negated
            }
            None => false,
        };
        if step {
            pi += 1;
            si += 1;
        } else if let Some((sp, ss)) = star {
            pi = sp + 1;
            si = ss + 1;
            star = Some((sp, ss + 1));
        } else {
            return false;
        }
    }
    p[pi..].iter().all(|t| *t == Token::Star)
}

/// One transform of the stack (see the module's table).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Transform {
    Merge(Pattern),
    /// A path of exact names from a thread's top level.
    Focus(Vec<String>),
    FocusFunction(Pattern),
    Collapse(Pattern),
    CollapseCrate(Pattern),
    OnlyMyCode,
    /// `None`: every name.
    CollapseRecursion(Option<Pattern>),
    Drop(Pattern),
    SplitData(Pattern),
}

/// The transforms' names, as written before the `:`.
pub const TRANSFORM_NAMES: [&str; 9] = [
    "merge",
    "focus",
    "focus-function",
    "collapse",
    "collapse-crate",
    "only-my-code",
    "collapse-recursion",
    "drop",
    "split-data",
];

impl Transform {
    /// The transform `op` with its argument (`None` for `only-my-code`).
    pub fn new(op: &str, arg: Option<&str>) -> Result<Self, String> {
        let pat = || {
            Pattern::new(arg.unwrap_or("")).map_err(|e| {
                if arg.is_none_or(str::is_empty) {
                    format!("{op} needs a scope name or glob ({op}:NAME)")
                } else {
                    e
                }
            })
        };
        Ok(match op {
            "merge" => Self::Merge(pat()?),
            "focus" => {
                let path: Vec<String> = arg
                    .unwrap_or("")
                    .split(';')
                    .map(|s| s.trim().to_owned())
                    .collect();
                if path.iter().any(String::is_empty) {
                    return Err(
                        "focus needs a path of scope names from a thread's top level, \
                         separated by ';' (focus:frame;update;physics)"
                            .to_owned(),
                    );
                }
                Self::Focus(path)
            }
            "focus-function" => Self::FocusFunction(pat()?),
            "collapse" => Self::Collapse(pat()?),
            "collapse-crate" => Self::CollapseCrate(pat()?),
            "only-my-code" => match arg {
                None | Some("") => Self::OnlyMyCode,
                Some(a) => return Err(format!("only-my-code takes no argument, got {a:?}")),
            },
            "collapse-recursion" => match arg {
                None | Some("") | Some("all") => Self::CollapseRecursion(None),
                Some(_) => Self::CollapseRecursion(Some(pat()?)),
            },
            "drop" => Self::Drop(pat()?),
            "split-data" => Self::SplitData(pat()?),
            _ => {
                return Err(format!(
                    "unknown transform {op:?} (known: {})",
                    TRANSFORM_NAMES.join(", ")
                ));
            }
        })
    }

    /// The operation's name.
    pub fn op(&self) -> &'static str {
        match self {
            Self::Merge(_) => "merge",
            Self::Focus(_) => "focus",
            Self::FocusFunction(_) => "focus-function",
            Self::Collapse(_) => "collapse",
            Self::CollapseCrate(_) => "collapse-crate",
            Self::OnlyMyCode => "only-my-code",
            Self::CollapseRecursion(_) => "collapse-recursion",
            Self::Drop(_) => "drop",
            Self::SplitData(_) => "split-data",
        }
    }

    /// The argument, as written (`None` for `only-my-code`).
    pub fn arg(&self) -> Option<String> {
        match self {
            Self::Merge(p)
            | Self::FocusFunction(p)
            | Self::Collapse(p)
            | Self::CollapseCrate(p)
            | Self::Drop(p)
            | Self::SplitData(p) => Some(p.as_str().to_owned()),
            Self::Focus(path) => Some(path.join(";")),
            Self::OnlyMyCode => None,
            Self::CollapseRecursion(p) => {
                Some(p.as_ref().map_or("all", Pattern::as_str).to_owned())
            }
        }
    }

    /// What the app's breadcrumb shows.
    pub fn describe(&self) -> String {
        match self {
            Self::Merge(p) => format!("Merge {}", p.as_str()),
            Self::Focus(path) => format!("Focus {}", path.join(" > ")),
            Self::FocusFunction(p) => format!("Focus on {}", p.as_str()),
            Self::Collapse(p) => format!("Collapse {}", p.as_str()),
            Self::CollapseCrate(p) => format!("Collapse crate {}", p.as_str()),
            Self::OnlyMyCode => "Only my code".to_owned(),
            Self::CollapseRecursion(None) => "Collapse recursion".to_owned(),
            Self::CollapseRecursion(Some(p)) => format!("Collapse recursion {}", p.as_str()),
            Self::Drop(p) => format!("Drop {}", p.as_str()),
            Self::SplitData(p) => format!("Split {} by data", p.as_str()),
        }
    }
}

impl std::str::FromStr for Transform {
    type Err = String;

    /// `op:ARG` (or `only-my-code`, `collapse-recursion`).
    fn from_str(s: &str) -> Result<Self, String> {
        match s.split_once(':') {
            Some((op, arg)) => Self::new(op, Some(arg)),
            None => Self::new(s, None),
        }
    }
}

impl fmt::Display for Transform {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.arg() {
            Some(arg) => write!(f, "{}:{arg}", self.op()),
            None => f.write_str(self.op()),
        }
    }
}

impl serde::Serialize for Transform {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> serde::Deserialize<'de> for Transform {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

/// The transforms, in the order they are applied.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(transparent)]
pub struct Stack(pub Vec<Transform>);

impl Stack {
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The transforms as written (`merge:NAME`), in order.
    pub fn written(&self) -> Vec<String> {
        self.0.iter().map(|t| t.to_string()).collect()
    }

    /// Parses `op:ARG` strings (the URL hash, the JavaScript API).
    pub fn parse<S: AsRef<str>>(items: &[S]) -> Result<Self, String> {
        items
            .iter()
            .map(|s| s.as_ref().parse())
            .collect::<Result<_, _>>()
            .map(Stack)
    }

    /// The split-data transforms' patterns (these need the tree merged
    /// again: a merged tree has no data).
    pub fn splits(&self) -> Vec<&Pattern> {
        self.0
            .iter()
            .filter_map(|t| match t {
                Transform::SplitData(p) => Some(p),
                _ => None,
            })
            .collect()
    }

    /// Per definition of `trace`, whether a split-data transform names it
    /// (`None`: no split-data in the stack).
    pub fn split_defs(&self, trace: &Trace) -> Option<Vec<bool>> {
        let pats = Some(self.splits()).filter(|p| !p.is_empty())?;
        let mut memo: FxHashMap<StrId, bool> = FxHashMap::default();
        Some(
            trace
                .defs
                .name
                .iter()
                .map(|&n| {
                    *memo
                        .entry(n)
                        .or_insert_with(|| pats.iter().any(|p| p.matches(trace.str(n))))
                })
                .collect(),
        )
    }
}

impl fmt::Display for Stack {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.written().join(", "))
    }
}

/// What a transform can be asked of, for a node of a merged tree: its
/// scope name, its path of names from its thread's top level and its
/// crate (the app's context menus offer the transforms these allow).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Target {
    /// `None` for a crate's node or a thread.
    pub name: Option<String>,
    pub path: Vec<String>,
    /// The crate its code comes from (a crate's node: that crate).
    pub crate_name: Option<String>,
    /// Whether its node's name is split by data.
    pub split: bool,
}

impl Target {
    /// The target of node `n` of `tree` (merged from `trace`).
    pub fn of(trace: &Trace, tree: &MergedTree, n: NodeId) -> Self {
        let path: Vec<String> = tree
            .path(n)
            .into_iter()
            .skip(1)
            .map(|p| tree.label(trace, p).to_owned())
            .collect();
        let label = tree.made_label(tree.name[n.idx()]);
        let scope = tree.scope_name(n);
        let crate_name = label.and_then(|l| l.crate_name.clone()).or_else(|| {
            let s = scope?;
            let def = trace.defs.name.iter().position(|&d| d == s)?;
            origin(trace.str(trace.defs.file[def]), trace.str(s)).map(|o| o.crate_name)
        });
        Self {
            name: scope.map(|s| trace.str(s).to_owned()),
            path,
            crate_name,
            split: label.is_some_and(|l| l.scope.is_some()),
        }
    }

    /// The target of scope instance `i` (its name, the names of its
    /// ancestors, its crate).
    pub fn of_instance(trace: &Trace, i: ScopeIdx) -> Self {
        let s = &trace.scopes;
        let up = |&k: &u32| Some(s.parent[k as usize]).filter(|&p| p != NO_PARENT);
        let mut path: Vec<String> = std::iter::successors(Some(i.0), up)
            .map(|k| trace.scope_name(ScopeIdx(k)).to_owned())
            .collect();
        path.reverse();
        let def = s.def[i.idx()].idx();
        let name = trace.scope_name(i);
        Self {
            name: Some(name.to_owned()),
            path,
            crate_name: origin(trace.str(trace.defs.file[def]), name).map(|o| o.crate_name),
            split: false,
        }
    }

    /// The transforms offered for it, with their menu labels.
    pub fn offers(&self) -> Vec<(String, Transform)> {
        let mut out = Vec::new();
        let pat = |n: &str| Pattern::new(&Pattern::escape(n)).ok();
        let named = self.name.as_ref().and_then(|n| Some((n, pat(n)?)));
        if let Some((name, p)) = &named {
            out.push((format!("Merge {name}"), Transform::Merge(p.clone())));
        }
        if !self.path.is_empty() && !self.path.iter().any(|p| p.contains(';')) {
            out.push((
                "Focus on subtree".to_owned(),
                Transform::Focus(self.path.clone()),
            ));
        }
        if let Some((name, p)) = &named {
            out.push((
                format!("Focus on function {name}"),
                Transform::FocusFunction(p.clone()),
            ));
            out.push((format!("Collapse {name}"), Transform::Collapse(p.clone())));
        }
        if let Some(c) = &self.crate_name
            && let Some(p) = pat(c)
        {
            out.push((format!("Collapse crate {c}"), Transform::CollapseCrate(p)));
        }
        if let Some((name, p)) = named {
            out.push((
                format!("Collapse recursion of {name}"),
                Transform::CollapseRecursion(Some(p.clone())),
            ));
            out.push((format!("Drop {name}"), Transform::Drop(p.clone())));
            if !self.split {
                out.push((format!("Split {name} by data"), Transform::SplitData(p)));
            }
        }
        out
    }
}

/// Where a scope's code comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Origin {
    /// The crate (its folder without the version, or the name's leading
    /// `module::`).
    pub crate_name: String,
    /// A dependency (a versioned folder, a Cargo registry or git checkout),
    /// not the app's own code.
    pub dependency: bool,
}

/// Where the code of a scope defined in `file` and named `name` comes from
/// (`None`: nothing says, taken as the app's own code).
pub fn origin(file: &str, name: &str) -> Option<Origin> {
    file_origin(file).unwrap_or_else(|| name_origin(name))
}

/// What a file says of its crate: `Some(None)` the app's own (`src/…`),
/// `Some(Some(_))` a crate's folder, `None` nothing (ask the name).
fn file_origin(file: &str) -> Option<Option<Origin>> {
    let file = file.replace('\\', "/");
    let parts: Vec<&str> = file.split('/').filter(|p| !p.is_empty()).collect();
    let registry = file.contains(".cargo/registry/") || file.contains(".cargo/git/");
    // The crate's folder: before the last `src`, or first where puffin
    // shortened the path (`wgpu-24.0.0/…/backend/mod.rs`).
    let folder = match parts.iter().rposition(|&p| p == "src") {
        // `src/main.rs`: the crate being built.
        Some(0) => return Some(None),
        Some(src) => parts[src - 1],
        None if parts.len() > 2 && parts[1] == "…" => parts[0],
        None if parts.len() > 1 && split_version(parts[0]).1 => parts[0],
        None => return None,
    };
    let (name, versioned) = split_version(folder);
    Some(Some(Origin {
        crate_name: name.to_owned(),
        dependency: versioned || registry,
    }))
}

/// A scope name's leading `module::`, taken as its crate.
fn name_origin(name: &str) -> Option<Origin> {
    match name.split_once("::") {
        Some((module, _)) if !module.is_empty() && !module.starts_with('<') => Some(Origin {
            crate_name: module.to_owned(),
            dependency: false,
        }),
        _ => None,
    }
}

/// `wgpu-24.0.0` -> (`wgpu`, true); `my_app` -> (`my_app`, false).
fn split_version(folder: &str) -> (&str, bool) {
    if let Some(dash) = folder.rfind('-') {
        let version = &folder[dash + 1..];
        let numeric = (version.split(['.', '+']).next())
            .is_some_and(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()));
        if numeric && version.contains('.') {
            return (&folder[..dash], true);
        }
    }
    // A prerelease: `wgpu-24.0.0-rc.1`.
    if let Some(dash) = folder.find('-')
        && folder[dash + 1..].starts_with(|c: char| c.is_ascii_digit())
        && folder[dash + 1..].contains('.')
    {
        return (&folder[..dash], true);
    }
    (folder, false)
}

/// A stack applied to a tree.
#[derive(Clone, Debug, Default)]
pub struct Transformed {
    pub tree: MergedTree,
    /// Per node of the input tree: its node in `tree`, or [`HIDDEN`].
    pub node_of: Vec<u32>,
    /// Per node of the input tree: whether it heads its node (its calls
    /// are the node's calls); false for one merged, absorbed or hidden.
    pub heads: Vec<bool>,
    /// One line per transform that matched nothing.
    pub warnings: Vec<String>,
    /// Per thread node of `tree`: its total before the transforms.
    pub recorded_ns: Vec<(NodeId, i64)>,
}

impl Transformed {
    /// The stack and its warnings, `None` for an empty stack.
    pub fn applied(&self, stack: &Stack) -> Option<Applied> {
        (!stack.is_empty()).then(|| Applied {
            transforms: stack.written(),
            warnings: self.warnings.clone(),
        })
    }

    /// The `tree` answer of the transformed tree, listing `depth` levels,
    /// saying which transforms made it and each thread's total before them.
    pub fn into_report(self, trace: &Trace, stack: &Stack, depth: Option<u32>) -> TreeReport {
        let applied = self.applied(stack);
        TreeReport::new(trace, self.tree, depth).with_applied(applied, self.recorded_ns)
    }
}

/// Not in the transformed tree (dropped, or outside a focus).
pub const HIDDEN: u32 = u32::MAX;
/// Outside a focus, but a descendant may still be focused on.
const OUTSIDE: u32 = u32::MAX - 1;

/// The merged tree of `frames` (of threads named `thread`) with `stack`
/// applied: merged with the data split the stack asks for, all levels when
/// the stack has a transform (a merge lifts deep nodes up), `levels`
/// otherwise.
pub fn transformed_tree(
    trace: &Trace,
    frames: std::ops::Range<u32>,
    thread: Option<&str>,
    levels: u32,
    stack: &Stack,
) -> Transformed {
    transformed_with_nodes(trace, frames, thread, levels, stack, false).0
}

/// [`transformed_tree`] with each instance's node in it when `record`
/// ([`HIDDEN`]: deeper than `levels`, or not one of its node's calls): what
/// a judgement that reads a node's calls needs.
pub fn transformed_with_nodes(
    trace: &Trace,
    frames: std::ops::Range<u32>,
    thread: Option<&str>,
    levels: u32,
    stack: &Stack,
    record: bool,
) -> (Transformed, Vec<u32>) {
    let levels = if stack.is_empty() { levels } else { u32::MAX };
    let mut build = match record {
        true => MergedTreeBuilder::recording(trace, frames, thread, levels),
        false => MergedTreeBuilder::new(trace, frames, thread, levels),
    }
    .split_data(stack.split_defs(trace));
    let tree = (build.step(trace, &mut || true)).expect("a build given all the time it needs ends");
    let mut of = build.take_node_of();
    let tr = if stack.is_empty() {
        Transformed {
            node_of: (0..tree.len() as u32).collect(),
            heads: vec![true; tree.len()],
            tree,
            ..Default::default()
        }
    } else {
        apply(trace, &tree, stack)
    };
    // Each instance's node once transformed: only the calls a node heads
    // are its calls.
    for n in of.iter_mut().filter(|n| **n != HIDDEN) {
        let m = *n as usize;
        *n = if tr.heads[m] { tr.node_of[m] } else { HIDDEN };
    }
    (tr, of)
}

/// Applies `stack` to `tree` (merged from `trace`); `tree` is read, not
/// changed, so the view can keep it to apply another stack to. An empty
/// stack gives a copy of the tree.
pub fn apply(trace: &Trace, tree: &MergedTree, stack: &Stack) -> Transformed {
    Applier::new(tree, stack)
        .step(trace, tree, &mut || true)
        .expect("an application given all the time it needs ends")
}

/// Nodes a transform maps between two questions to `more` (a slice of the
/// page's thread).
const APPLY_CHUNK: usize = 1 << 14;

/// [`apply`] a slice at a time (the page's thread keeps drawing between
/// slices): each transform node by node, [`APPLY_CHUNK`] nodes between
/// two questions to `more`. The tree it applies to is given to each
/// [`Self::step`] (the caller keeps it).
#[derive(Default)]
pub struct Applier {
    stack: Stack,
    /// The transform in progress.
    next: usize,
    /// The tree the transforms so far made (`None`: the input's).
    current: Option<MergedTree>,
    node_of: Vec<u32>,
    heads: Vec<bool>,
    recorded: Vec<(u32, i64)>,
    warnings: Vec<String>,
    origins: Origins,
    run: Option<Run>,
    /// A finished run whose tree's children lists are being sorted (from
    /// this node on), a slice at a time.
    sorting: Option<(Run, usize)>,
    /// Nodes to map in all, and mapped so far (for progress).
    work: usize,
    done: usize,
    /// Nodes mapped between two questions to `more`.
    chunk: usize,
}

impl Applier {
    pub fn new(tree: &MergedTree, stack: &Stack) -> Self {
        Self {
            stack: stack.clone(),
            node_of: (0..tree.len() as u32).collect(),
            heads: vec![true; tree.len()],
            recorded: tree
                .threads
                .iter()
                .map(|&t| (t.0, tree.total_ns[t.idx()]))
                .collect(),
            work: (tree.len() * stack.0.len()).max(1),
            chunk: APPLY_CHUNK,
            ..Default::default()
        }
    }

    /// Asks `more` every `nodes` nodes (tests: slices of a small tree).
    pub fn chunk(mut self, nodes: usize) -> Self {
        self.chunk = nodes.max(1);
        self
    }

    /// How far along, 0 to 1.
    pub fn progress(&self) -> f32 {
        (self.done as f32 / self.work as f32).min(1.0)
    }

    /// Maps nodes until `more` says stop; the transformed tree once every
    /// transform is applied. `tree` is the tree given to [`Self::new`].
    pub fn step(
        &mut self,
        trace: &Trace,
        tree: &MergedTree,
        more: &mut dyn FnMut() -> bool,
    ) -> Option<Transformed> {
        while self.next < self.stack.0.len() {
            let t = &self.stack.0[self.next];
            let input = self.current.as_ref().unwrap_or(tree);
            if self.run.is_none() && self.sorting.is_none() {
                if let Transform::SplitData(p) = t {
                    // Applied while merging (see the module's doc).
                    if !trace.defs.name.iter().any(|&n| p.matches(trace.str(n))) {
                        self.warnings
                            .push(format!("{t}: no scope name matches; nothing changed"));
                    }
                    self.next += 1;
                    continue;
                }
                if touches(trace, input, t, &mut self.origins) == Some(false) {
                    self.warnings
                        .push(format!("{t}: {}", unmatched_words(t, false)));
                    self.done += tree.len();
                    self.next += 1;
                    continue;
                }
                self.run = Some(Run::new(input, t));
            }
            if self.sorting.is_none() {
                let run = self.run.as_mut()?;
                while run.x < input.len() {
                    let until = (run.x + self.chunk).min(input.len());
                    self.done += until - run.x;
                    for x in run.x..until {
                        run.node(trace, input, t, &mut self.origins, x);
                    }
                    run.x = until;
                    if !more() {
                        // The tree is made in slices of its own.
                        return None;
                    }
                }
                let step = self.run.take()?.finish(trace);
                self.sorting = Some((step, 0));
                if !more() {
                    return None;
                }
            }
            // The children lists sorted, a run of nodes at a time.
            let (sorted, next) = self.sorting.as_mut()?;
            while *next < sorted.out.len() {
                let until = (*next + 4 * self.chunk).min(sorted.out.len());
                sorted.out.sort_children(trace, *next..until);
                *next = until;
                if *next < sorted.out.len() && !more() {
                    return None;
                }
            }
            let (step, _) = self.sorting.take()?;
            if !step.matched {
                self.warnings
                    .push(format!("{t}: {}", unmatched_words(t, step.focus)));
            }
            for (n, h) in self.node_of.iter_mut().zip(&mut self.heads) {
                if *n != HIDDEN {
                    let m = *n as usize;
                    *h &= step.heads[m];
                    *n = step.node_of[m];
                }
            }
            self.current = Some(step.out);
            self.next += 1;
            if self.next < self.stack.0.len() && !more() {
                return None;
            }
        }
        let node_of = std::mem::take(&mut self.node_of);
        let mut heads = std::mem::take(&mut self.heads);
        for (n, h) in node_of.iter().zip(&mut heads) {
            *h &= *n != HIDDEN;
        }
        let recorded_ns = std::mem::take(&mut self.recorded)
            .into_iter()
            .map(|(t, ns)| (NodeId(node_of[t as usize]), ns))
            .collect();
        Some(Transformed {
            tree: self.current.take().unwrap_or_else(|| tree.clone()),
            node_of,
            heads,
            warnings: std::mem::take(&mut self.warnings),
            recorded_ns,
        })
    }
}

/// Crates of scope names, found once (when a crate transform first asks):
/// each name's first definition's file, each file read once (a recording
/// has many names, few files).
#[derive(Default)]
struct Origins {
    by_name: Option<FxHashMap<StrId, Option<Origin>>>,
}

impl Origins {
    fn of(&mut self, trace: &Trace, name: StrId) -> Option<&Origin> {
        let by_name = self.by_name.get_or_insert_with(|| {
            let mut by_file: FxHashMap<StrId, Option<Option<Origin>>> = FxHashMap::default();
            let mut by_name = FxHashMap::default();
            for (i, &name) in trace.defs.name.iter().enumerate() {
                by_name.entry(name).or_insert_with(|| {
                    let file = trace.defs.file[i];
                    by_file
                        .entry(file)
                        .or_insert_with(|| file_origin(trace.str(file)))
                        .clone()
                        .unwrap_or_else(|| name_origin(trace.str(name)))
                });
            }
            by_name
        });
        by_name.get(&name).and_then(Option::as_ref)
    }

    /// The crate of `name` that the crate transform `t` collapses, if any.
    fn collapsed(&mut self, trace: &Trace, name: StrId, t: &Transform) -> Option<String> {
        let o = self.of(trace, name)?;
        let hit = match t {
            Transform::OnlyMyCode => o.dependency,
            Transform::CollapseCrate(p) => p.matches(&o.crate_name),
            _ => false,
        };
        hit.then(|| o.crate_name.clone())
    }
}

/// Whether `t` changes `tree` at all, read from its names alone (`None`:
/// the names cannot tell: a focus, or recursion of any name).
fn touches(trace: &Trace, tree: &MergedTree, t: &Transform, origins: &mut Origins) -> Option<bool> {
    // `None`: a crate transform.
    let pat = match t {
        Transform::Merge(p) | Transform::Drop(p) | Transform::Collapse(p) => Some(p),
        Transform::CollapseRecursion(Some(p)) => Some(p),
        Transform::CollapseCrate(_) | Transform::OnlyMyCode => None,
        _ => return None,
    };
    let mut seen: FxHashMap<StrId, bool> = FxHashMap::default();
    Some((0..tree.len()).any(|n| {
        if pat.is_none()
            && tree
                .made_label(tree.name[n])
                .is_some_and(|l| l.crate_name.is_some())
        {
            return tree.parent[n] != u32::MAX;
        }
        let Some(s) = tree.scope_name(NodeId(n as u32)) else {
            return false;
        };
        *seen.entry(s).or_insert_with(|| match pat {
            Some(p) => p.matches(trace.str(s)),
            None => origins.collapsed(trace, s, t).is_some(),
        })
    }))
}

/// What a warning says of a transform that matched nothing.
fn unmatched_words(t: &Transform, focus: bool) -> &'static str {
    match t {
        _ if focus => "nothing to focus on (no such scope); the view is empty",
        Transform::CollapseRecursion(_) => "no scope runs directly inside itself; nothing changed",
        Transform::OnlyMyCode => "no scope comes from a dependency crate; nothing changed",
        Transform::CollapseCrate(_) => "no scope comes from such a crate; nothing changed",
        _ => "no scope matches; nothing changed",
    }
}

/// Output node `img` gets (or may get) a second source: its children made
/// so far without the map are put in it.
fn one_of_many(
    input: &MergedTree,
    out: &MergedTree,
    node_of: &[u32],
    sole: &mut [u32],
    child_of: &mut FxHashMap<(u32, StrId), u32>,
    img: u32,
) {
    let src = sole[img as usize];
    if src == u32::MAX {
        return;
    }
    sole[img as usize] = u32::MAX;
    for &c in input.children(NodeId(src)) {
        let ci = node_of[c.idx()];
        if (ci as usize) < out.len() && out.parent[ci as usize] == img {
            child_of.insert((img, out.name[ci as usize]), ci);
        }
    }
}

/// What a node of the input becomes.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Act {
    /// Under its parent's image, same name.
    Keep,
    /// Under its parent's image, with another name.
    Relabel(StrId),
    /// A root of its thread.
    Root,
    /// Into its parent's image: own time only.
    Absorb,
    /// Gone with its subtree.
    Hide,
    /// Not shown; a descendant may be.
    Outside,
}

/// Per input node: inside a collapsed node (its state).
const INSIDE: u32 = u32::MAX;

/// One transform applied node by node ([`Run::node`], parents before
/// children, a run of nodes at a time), then the tree made ([`Run::finish`]).
#[derive(Default)]
struct Run {
    out: MergedTree,
    node_of: Vec<u32>,
    heads: Vec<bool>,
    /// Per input node: a focus's matched length, [`INSIDE`] a collapse, or
    /// its crate's label.
    state: Vec<u32>,
    child_of: FxHashMap<(u32, StrId), u32>,
    /// Per output node: the one input node that maps to it so far, or
    /// `u32::MAX` (several). A node kept under a parent whose image has
    /// one source needs no lookup (the source's children have distinct
    /// names): most nodes, and no hash map of them. An image that gets a
    /// second source has its children so far put in the map first
    /// ([`one_of_many`]).
    sole: Vec<u32>,
    thread_of: FxHashMap<StrId, u32>,
    /// Per input node: its thread's image.
    thread_img: Vec<u32>,
    crate_label: FxHashMap<String, StrId>,
    memo: FxHashMap<StrId, bool>,
    matched: bool,
    focus: bool,
    /// Input threads listed (one left out by an earlier focus is not).
    listed: Vec<bool>,
    /// The next input node.
    x: usize,
}

impl Run {
    fn new(input: &MergedTree, t: &Transform) -> Self {
        let len = input.len();
        let mut out = MergedTree::default();
        out.frames = input.frames;
        out.labels = input.labels.clone();
        let mut listed = vec![false; len];
        for t in &input.threads {
            listed[t.idx()] = true;
        }
        Self {
            out,
            node_of: vec![HIDDEN; len],
            heads: vec![false; len],
            state: vec![0u32; len],
            sole: Vec::with_capacity(len),
            thread_img: vec![0u32; len],
            focus: matches!(t, Transform::Focus(_) | Transform::FocusFunction(_)),
            listed,
            ..Default::default()
        }
    }

    /// Maps input node `x`.
    fn node(
        &mut self,
        trace: &Trace,
        input: &MergedTree,
        t: &Transform,
        origins: &mut Origins,
        x: usize,
    ) {
        let Self {
            out,
            node_of,
            heads,
            state,
            child_of,
            sole,
            thread_of,
            thread_img,
            crate_label,
            memo,
            matched,
            focus,
            listed,
            ..
        } = self;
        let focus = *focus;
        let name = input.name[x];
        let p = input.parent[x];
        if p == u32::MAX {
            if !listed[x] {
                return; // left out by an earlier focus
            }
            let th = *thread_of.entry(name).or_insert_with(|| {
                sole.push(x as u32);
                out.push(name, u32::MAX, 0)
            });
            node_of[x] = th;
            thread_img[x] = th;
            heads[x] = true;
            // Merged roots' own time stays the thread's (outside any focus).
            if !focus {
                out.self_ns[th as usize] =
                    out.self_ns[th as usize].saturating_add(input.self_ns[x]);
            }
            return;
        }
        let pimg = node_of[p as usize];
        if pimg == HIDDEN {
            return;
        }
        thread_img[x] = thread_img[p as usize];
        let is_root = input.parent[p as usize] == u32::MAX;
        let scope = input.scope_name(NodeId(x as u32));
        let mut hit = |pat: &Pattern| -> bool {
            scope.is_some_and(|s| *memo.entry(s).or_insert_with(|| pat.matches(trace.str(s))))
        };
        let act = match t {
            Transform::Merge(pat) if hit(pat) => Act::Absorb,
            Transform::Drop(pat) if hit(pat) => Act::Hide,
            Transform::Merge(_) | Transform::Drop(_) | Transform::SplitData(_) => Act::Keep,
            Transform::Collapse(_) if state[p as usize] == INSIDE => {
                state[x] = INSIDE;
                Act::Absorb
            }
            Transform::Collapse(pat) => {
                if hit(pat) {
                    state[x] = INSIDE;
                    *matched = true;
                }
                Act::Keep
            }
            Transform::CollapseRecursion(pat)
                if !is_root
                    && name == input.name[p as usize]
                    && pat.as_ref().is_none_or(&mut hit) =>
            {
                Act::Absorb
            }
            Transform::CollapseRecursion(_) => Act::Keep,
            Transform::CollapseCrate(_) | Transform::OnlyMyCode => {
                let krate = (input.made_label(name))
                    .and_then(|l| l.crate_name.clone())
                    .or_else(|| origins.collapsed(trace, scope?, t));
                match krate {
                    None => {
                        state[x] = 0;
                        Act::Keep
                    }
                    Some(c) => {
                        let label = *crate_label.entry(c.clone()).or_insert_with(|| {
                            if let Some(i) = out.labels.iter().position(|l| {
                                l.scope.is_none() && l.crate_name.as_deref() == Some(&c)
                            }) {
                                return StrId(i as u32 | LABEL_BIT);
                            }
                            out.labels.push(Label {
                                text: format!("[{c}]"),
                                scope: None,
                                crate_name: Some(c.clone()),
                            });
                            StrId((out.labels.len() - 1) as u32 | LABEL_BIT)
                        });
                        state[x] = label.0;
                        if state[p as usize] == label.0 {
                            Act::Absorb
                        } else {
                            Act::Relabel(label)
                        }
                    }
                }
            }
            // Inside the focused subtree.
            Transform::Focus(_) | Transform::FocusFunction(_) if pimg != OUTSIDE && !is_root => {
                Act::Keep
            }
            Transform::Focus(path) => {
                let k = if is_root { 0 } else { state[p as usize] };
                let depth = input.depth[x] as usize;
                if k as usize + 1 == depth
                    && path.get(k as usize).map(String::as_str)
                        == Some(input.label(trace, NodeId(x as u32)))
                {
                    state[x] = k + 1;
                    if depth == path.len() {
                        Act::Root
                    } else {
                        Act::Outside
                    }
                } else {
                    Act::Hide
                }
            }
            Transform::FocusFunction(pat) if hit(pat) => Act::Root,
            Transform::FocusFunction(_) => Act::Outside,
        };
        let (img, head) = match act {
            Act::Keep | Act::Relabel(_) | Act::Root => {
                let label = match act {
                    Act::Relabel(l) => l,
                    _ => name,
                };
                let under = if act == Act::Root {
                    thread_img[x]
                } else {
                    pimg
                };
                let depth = out.depth[under as usize] + 1;
                let img = if act == Act::Keep && sole[under as usize] == p {
                    sole.push(x as u32);
                    out.push(label, under, depth)
                } else {
                    one_of_many(input, out, node_of, sole, child_of, under);
                    match child_of.entry((under, label)) {
                        std::collections::hash_map::Entry::Occupied(e) => {
                            let img = *e.get();
                            one_of_many(input, out, node_of, sole, child_of, img);
                            img
                        }
                        std::collections::hash_map::Entry::Vacant(e) => {
                            sole.push(x as u32);
                            *e.insert(out.push(label, under, depth))
                        }
                    }
                };
                (img, true)
            }
            Act::Absorb => {
                one_of_many(input, out, node_of, sole, child_of, pimg);
                (pimg, false)
            }
            Act::Hide => (HIDDEN, false),
            Act::Outside => (OUTSIDE, false),
        };
        *matched |= match act {
            Act::Keep | Act::Outside => false,
            Act::Hide => !focus,
            Act::Absorb | Act::Relabel(_) | Act::Root => true,
        };
        node_of[x] = img;
        if act == Act::Hide && !focus {
            // Dropped: its time leaves every ancestor's total too.
            let mut up = pimg;
            while up != u32::MAX && out.parent[up as usize] != u32::MAX {
                let u = up as usize;
                out.total_ns[u] = out.total_ns[u].saturating_sub(input.total_ns[x]);
                up = out.parent[u];
            }
        }
        if img == HIDDEN || img == OUTSIDE {
            return;
        }
        heads[x] = head;
        let (i, o) = (x, img as usize);
        out.self_ns[o] = out.self_ns[o].saturating_add(input.self_ns[i]);
        if head {
            out.count[o] += input.count[i];
            out.total_ns[o] = out.total_ns[o].saturating_add(input.total_ns[i]);
            out.max_ns[o] = out.max_ns[o].max(input.max_ns[i]);
            out.min_ns[o] = out.min_ns[o].min(input.min_ns[i]);
        }
    }

    /// The tree made (in `out`), once every input node is mapped.
    fn finish(mut self, trace: &Trace) -> Self {
        self.node_of
            .iter_mut()
            .filter(|n| **n == OUTSIDE)
            .for_each(|n| *n = HIDDEN);
        // Threads with nothing left (a focus elsewhere) are left out.
        let threads: Vec<u32> = (self.thread_of.values().copied())
            .filter(|&th| !self.focus || self.out.parent.contains(&th))
            .collect();
        self.out.link(trace, threads);
        self
    }
}
