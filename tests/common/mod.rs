//! Helpers shared by the integration tests.
#![allow(dead_code)]

pub mod generator;
pub mod hostile;
pub mod planted;
pub mod scenario;
pub mod shapes;
pub mod ui;

use puffin_lens::engine::write::puffin::{FrameData, Registration, ScopeNode};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

pub fn fixtures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

/// Runs `puffin-lens ARGS` in `dir`.
pub fn run_in(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_puffin-lens"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("runs puffin-lens")
}

pub fn run(args: &[&str]) -> Output {
    run_in(Path::new(env!("CARGO_MANIFEST_DIR")), args)
}

pub fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// `puffin-lens ARGS` in `dir` that answers (exit 0, 4: the gate tripped,
/// or 5: the gate could not tell): its exit status and stdout as JSON.
pub fn json_in(dir: &Path, args: &[&str]) -> (i32, Value) {
    let out = run_in(dir, args);
    assert!(
        matches!(code(&out), 0 | 4 | 5),
        "{args:?}: {}",
        stderr(&out)
    );
    (code(&out), serde_json::from_slice(&out.stdout).unwrap())
}

pub fn code(out: &Output) -> i32 {
    out.status.code().expect("exited normally, not by a signal")
}

/// `puffin-lens ab`'s `manifest.json` in `dir`.
pub fn manifest(dir: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(dir.join("manifest.json")).expect("a manifest"))
        .expect("the manifest is JSON")
}

/// A temp dir holding `name` with `bytes`.
pub fn temp_file(name: &str, bytes: &[u8]) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join(name);
    std::fs::write(&path, bytes).expect("write temp file");
    (dir, path)
}

/// The export a recording made of `frames` must have, built independently of
/// the exporter from the writer's input. `legacy`: ids are assigned per
/// (name, location) in order of first appearance.
pub fn expected_export(file: &str, frames: &[FrameData], legacy: bool) -> Value {
    let mut regs: Vec<(u32, Value)> = Vec::new();
    let mut legacy_ids: Vec<(String, String)> = Vec::new();
    if !legacy {
        for reg in frames.iter().flat_map(|f| &f.registrations) {
            let Some(id) = reg.id else { continue };
            if regs.iter().any(|(i, _)| *i == id) {
                continue;
            }
            regs.push((id, registration_json(reg)));
        }
    }
    fn truncate(s: &str) -> &str {
        let mut len = s.len().min(127);
        while !s.is_char_boundary(len) {
            len -= 1;
        }
        &s[..len]
    }
    fn scope_json(
        node: &ScopeNode,
        legacy: bool,
        legacy_ids: &mut Vec<(String, String)>,
        regs: &[(u32, Value)],
    ) -> Value {
        let (id, name) = if legacy {
            let key = (
                truncate(&node.name).to_owned(),
                truncate(&node.location).to_owned(),
            );
            let pos = match legacy_ids.iter().position(|k| *k == key) {
                Some(p) => p,
                None => {
                    legacy_ids.push(key.clone());
                    legacy_ids.len() - 1
                }
            };
            (pos as u32 + 1, key.0)
        } else {
            (node.id, name_of(node.id, regs))
        };
        let children: Vec<Value> = node
            .children
            .iter()
            .map(|c| scope_json(c, legacy, legacy_ids, regs))
            .collect();
        json!({"id": id, "name": name, "start_ns": node.start_ns,
               "duration_ns": node.stop_ns - node.start_ns,
               "data": truncate(&node.data), "children": children})
    }
    fn count(nodes: &[ScopeNode], depth: u64) -> (u64, u64) {
        let mut n = 0;
        let mut d = 0;
        for node in nodes {
            let (cn, cd) = count(&node.children, depth + 1);
            n += 1 + cn;
            d = d.max(depth).max(cd);
        }
        (n, d)
    }
    let mut frames_json = Vec::new();
    for frame in frames {
        let mut threads: Vec<_> = frame.threads.iter().collect();
        threads.sort_by(|a, b| (a.start_time_ns, &a.name).cmp(&(b.start_time_ns, &b.name)));
        let mut range = (i64::MAX, i64::MIN);
        let mut total = 0;
        let mut threads_json = Vec::new();
        for t in threads {
            let (n, depth) = count(&t.scopes, 1);
            let trange = match (t.scopes.first(), t.scopes.last()) {
                (Some(a), Some(b)) => (a.start_ns, b.stop_ns),
                _ => (i64::MAX, i64::MIN),
            };
            range = (range.0.min(trange.0), range.1.max(trange.1));
            total += n;
            let scopes: Vec<Value> = t
                .scopes
                .iter()
                .map(|s| scope_json(s, legacy, &mut legacy_ids, &regs))
                .collect();
            threads_json.push(json!({"name": t.name, "start_time_ns": t.start_time_ns,
                "num_scopes": n, "depth": depth,
                "range_ns": [trange.0, trange.1], "scopes": scopes}));
        }
        let duration = if range.0 > range.1 {
            0
        } else {
            range.1 - range.0
        };
        frames_json.push(
            json!({"frame_index": frame.frame_index, "range_ns": [range.0, range.1],
            "duration_ns": duration, "num_scopes": total, "threads": threads_json}),
        );
    }
    let mut scopes = serde_json::Map::new();
    if legacy {
        for (i, (name, location)) in legacy_ids.iter().enumerate() {
            let (file, line) = match location.rsplit_once(':') {
                Some((f, l)) if !l.is_empty() && l.bytes().all(|b| b.is_ascii_digit()) => {
                    (f.to_owned(), l.parse::<u32>().unwrap_or(0))
                }
                _ => (location.clone(), 0),
            };
            scopes.insert(
                (i + 1).to_string(),
                json!({"name": name, "function": "", "file": file, "line": line, "kind": "unknown"}),
            );
        }
    } else {
        regs.sort_by_key(|(id, _)| *id);
        for (id, v) in regs {
            scopes.insert(id.to_string(), v);
        }
    }
    json!({"file": file, "scopes": scopes, "frames": frames_json})
}

fn name_of(id: u32, regs: &[(u32, Value)]) -> String {
    regs.iter()
        .find(|(i, _)| *i == id)
        .map(|(_, v)| v["name"].as_str().unwrap_or_default().to_owned())
        .unwrap_or_else(|| format!("scope#{id}"))
}

fn registration_json(reg: &Registration) -> Value {
    json!({
        "name": reg.scope_name.clone().unwrap_or_else(|| reg.function.clone()),
        "function": reg.function,
        "file": reg.file,
        "line": reg.line,
        "kind": if reg.scope_name.is_some() { "named" } else { "function" },
    })
}

/// serde_json with `preserve_order` is not enabled, so compare as values,
/// and check key order separately where it matters.
pub fn parse(bytes: &[u8]) -> Value {
    serde_json::from_slice(bytes).expect("valid JSON")
}

/// A free port on the loopback (nothing listens on it once returned).
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port()
}

/// examples/ab_app.rs as `cargo test` built it (debug: its frames take
/// tens of milliseconds), as a shell command serving at `addr`, with
/// `plant` ("" for none).
pub fn example_app(addr: &str, plant: &str) -> String {
    let deps = std::env::current_exe().unwrap();
    let exe = deps
        .parent()
        .unwrap()
        .parent()
        .unwrap()
        .join("examples/ab_app");
    assert!(
        exe.is_file(),
        "{} (cargo test builds the examples)",
        exe.display()
    );
    format!("'{}' {addr} {plant}", exe.display())
}

/// An app started for a test (`sh -c 'exec COMMAND'`), killed when dropped.
pub struct Started(pub std::process::Child);

impl Started {
    /// Starts `command` and waits (up to 60 s) until `addr` accepts.
    pub fn serving(command: &str, addr: &str) -> Self {
        let child = Command::new("sh")
            .arg("-c")
            .arg(format!("exec {command}"))
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("starts the app");
        let started = Self(child);
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
        while std::net::TcpStream::connect(addr).is_err() {
            assert!(
                std::time::Instant::now() < deadline,
                "{command} serves no puffin_http at {addr} in 60 s"
            );
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        started
    }
}

impl Drop for Started {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The part `name` of a comparison's frame (`frame.parts`, JSON): its
/// `delta_ns`, or its `share_pct` with `field`.
pub fn frame_part(frame: &Value, name: &str, field: &str) -> f64 {
    let parts = frame["parts"].as_array().expect("frame.parts");
    let p = parts.iter().find(|p| p["part"] == name);
    p.unwrap_or_else(|| panic!("no part {name} in {frame}"))[field]
        .as_f64()
        .unwrap()
}

/// `report a.puffin b.puffin --format json` by the binary, on these bytes.
pub fn cli_report(a: &[u8], b: &[u8]) -> Value {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.puffin"), a).unwrap();
    std::fs::write(dir.path().join("b.puffin"), b).unwrap();
    let (_, v) = json_in(
        dir.path(),
        &["report", "a.puffin", "b.puffin", "--format", "json"],
    );
    v
}
