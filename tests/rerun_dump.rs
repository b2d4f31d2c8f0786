//! The JSON export equals what `rerun dump-puffin` (Rerun 0.41) prints, byte
//! for byte: against the real tool when it is installed (`PUFFIN_LENS_RERUN`,
//! the venv `scripts/setup.sh --browser` makes, or `rerun` on PATH), and
//! always against the SHA-256 of its output stored in
//! `tests/fixtures/rerun_dump.sha256` (how it was made: tests/fixtures/README.md).
//! Thread start times are the ones puffin's own reader yields, PFD1-PFD3
//! included, and dumps with or without them read back.

mod common;

use common::{code, fixtures_dir, run_in, stderr};
use puffin_lens::engine;
use puffin_lens::engine::write::puffin::{
    Compression, Format, FrameData, Registration, ScopeNode, ThreadData, synthetic_capture,
    worst_case_capture, write_recording,
};
use serde_json::Value;
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};
use std::process::Command;

const REFERENCES: &str = "rerun_dump.sha256";
/// The release the references were made with; another one is not compared.
const RERUN_VERSION: &str = "rerun-cli 0.41.";

fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The stored references: (sha256, path relative to tests/fixtures), in file order.
fn references() -> Vec<(String, String)> {
    let text = std::fs::read_to_string(fixtures_dir().join(REFERENCES)).expect("references");
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let (hash, path) = l.split_once("  ").expect("`HASH  PATH` lines");
            assert!(
                hash.len() == 64 && hash.bytes().all(|b| b.is_ascii_hexdigit()),
                "{l}"
            );
            (hash.to_owned(), path.to_owned())
        })
        .collect()
}

/// Every fixture recording (relative to tests/fixtures), real captures included.
fn fixture_recordings() -> Vec<String> {
    let mut out = Vec::new();
    for sub in ["", "real"] {
        let dir = fixtures_dir().join(sub);
        for entry in std::fs::read_dir(&dir).expect("fixtures folder") {
            let name = entry.unwrap().file_name().into_string().unwrap();
            if name.ends_with(".puffin") {
                out.push(if sub.is_empty() {
                    name
                } else {
                    format!("{sub}/{name}")
                });
            }
        }
    }
    out.sort();
    out
}

/// The recordings `rerun dump-puffin` reads: the PFD4 ones (its puffin cannot
/// read PFD1-PFD3).
fn pfd4_recordings() -> Vec<String> {
    fixture_recordings()
        .into_iter()
        .filter(|rel| {
            let bytes = std::fs::read(fixtures_dir().join(rel)).unwrap();
            bytes.get(4..8) == Some(b"PFD4")
        })
        .collect()
}

/// Runs `puffin-lens dump NAME` in the recording's folder: rerun writes the
/// file name as `"file"`, and so does our export given a bare name.
fn our_dump(path: &Path) -> Vec<u8> {
    let name = path.file_name().unwrap().to_str().unwrap();
    let out = run_in(path.parent().unwrap(), &["dump", name]);
    assert_eq!(code(&out), 0, "{}: {}", path.display(), stderr(&out));
    assert!(
        out.stderr.is_empty(),
        "{}: {}",
        path.display(),
        stderr(&out)
    );
    out.stdout
}

/// The real `rerun` 0.41, if installed; prints why the comparison is skipped
/// otherwise. `PUFFIN_LENS_RERUN`, when set, must be a working rerun 0.41.
fn rerun() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("PUFFIN_LENS_RERUN") {
        let path = PathBuf::from(path);
        let version = version_of(&path);
        assert!(
            version
                .as_deref()
                .is_some_and(|v| v.starts_with(RERUN_VERSION)),
            "PUFFIN_LENS_RERUN={}: not a working {RERUN_VERSION}x ({version:?})",
            path.display()
        );
        return Some(path);
    }
    let mut candidates = vec![PathBuf::from("/opt/rerun-venv/bin/rerun")];
    if let Some(home) = std::env::var_os("HOME") {
        candidates.push(Path::new(&home).join(".cache/puffin-lens/rerun-venv/bin/rerun"));
    }
    if let Some(paths) = std::env::var_os("PATH") {
        candidates.extend(std::env::split_paths(&paths).map(|d| d.join("rerun")));
    }
    let mut seen = Vec::new();
    for path in candidates.into_iter().filter(|p| p.is_file()) {
        match version_of(&path) {
            Some(v) if v.starts_with(RERUN_VERSION) => return Some(path),
            other => seen.push(format!("{} is {other:?}", path.display())),
        }
    }
    println!(
        "SKIPPED: no rerun ({RERUN_VERSION}x){}",
        if seen.is_empty() {
            String::new()
        } else {
            format!(": {}", seen.join(", "))
        }
    );
    None
}

fn version_of(rerun: &Path) -> Option<String> {
    let out = Command::new(rerun).arg("--version").output().ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_owned())
}

fn rerun_dump(rerun: &Path, path: &Path) -> Vec<u8> {
    let out = Command::new(rerun)
        .arg("dump-puffin")
        .arg(path)
        .output()
        .expect("runs rerun");
    assert!(
        out.status.success(),
        "rerun dump-puffin {}: {}",
        path.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

/// Where two dumps first differ, with some context, for the failure message.
fn first_difference(ours: &[u8], theirs: &[u8]) -> String {
    let at = ours
        .iter()
        .zip(theirs)
        .position(|(a, b)| a != b)
        .unwrap_or(ours.len().min(theirs.len()));
    let around = |b: &[u8]| {
        String::from_utf8_lossy(&b[at.saturating_sub(80)..(at + 80).min(b.len())]).into_owned()
    };
    format!(
        "sizes {} vs {}, first difference at byte {at}:\n ours:  {}\n rerun: {}",
        ours.len(),
        theirs.len(),
        around(ours),
        around(theirs)
    )
}

#[test]
fn stored_references_cover_every_pfd4_capture_and_equal_our_dump() {
    let refs = references();
    let mut listed: Vec<String> = refs.iter().map(|(_, p)| p.clone()).collect();
    listed.sort();
    let pfd4 = pfd4_recordings();
    assert_eq!(listed, pfd4, "{REFERENCES} must list every PFD4 fixture");
    assert!(pfd4.iter().filter(|p| p.starts_with("real/")).count() >= 3);
    for (hash, rel) in &refs {
        let ours = our_dump(&fixtures_dir().join(rel));
        assert_eq!(&sha256_hex(&ours), hash, "{rel}: our dump is not rerun's");
        // The small ones are stored whole too: their expected exports.
        let expected = fixtures_dir().join(rel.replace(".puffin", ".expected.json"));
        if let Ok(bytes) = std::fs::read(&expected) {
            assert_eq!(&sha256_hex(&bytes), hash, "{}", expected.display());
        }
    }
}

#[test]
fn dump_equals_real_rerun_byte_for_byte() {
    let Some(rerun) = rerun() else { return };
    let refs = references();
    for rel in pfd4_recordings() {
        let path = fixtures_dir().join(&rel);
        let theirs = rerun_dump(&rerun, &path);
        let ours = our_dump(&path);
        assert!(
            ours == theirs,
            "{rel}: {}",
            first_difference(&ours, &theirs)
        );
        // And the stored reference is what this rerun prints.
        let stored = refs.iter().find(|(_, p)| *p == rel).map(|(h, _)| h);
        assert_eq!(stored, Some(&sha256_hex(&theirs)), "{rel}: stale reference");
    }
}

fn thread(name: &str, start_time_ns: Option<i64>, scopes: Vec<ScopeNode>) -> ThreadData {
    ThreadData {
        name: name.to_owned(),
        start_time_ns,
        scopes,
    }
}

/// Recordings with what the fixtures lack: threads without a start time or
/// with a negative one, two threads of one name, an empty thread, frames out
/// of order, unregistered ids, function scopes, escapes and non-ASCII text, a
/// registration that changes, and the synthetic and worst-case captures.
/// No empty frame: puffin never writes one, and there rerun's `duration_ns`
/// is `end - start` wrapped (1 for the empty range) where ours is the
/// documented 0. No zstd either: rerun's puffin is built without it.
fn generated() -> Vec<(&'static str, Vec<u8>)> {
    let odd = vec![
        FrameData {
            frame_index: 5,
            threads: vec![
                thread(
                    "main",
                    None,
                    vec![
                        ScopeNode::new(1, 1_000, 9_000)
                            .data("quote \" backslash \\ newline \n tab \t bell \u{7} é 🎉")
                            .child(ScopeNode::new(2, 1_100, 1_200))
                            .child(ScopeNode::new(9, 1_300, 1_300).data(&"x".repeat(200))),
                    ],
                ),
                thread("main", Some(-7), vec![ScopeNode::new(3, 2_000, 2_500)]),
                thread("worker \"1\"", Some(40), vec![]),
                thread("ü-thread", Some(40), vec![ScopeNode::new(1, 3_000, 3_001)]),
            ],
            registrations: vec![
                Registration::named(1, "frame", "app::run", "src/app.rs", 10),
                Registration::function(2, "app::update", "src/app.rs", 20),
                Registration::named(3, "tab\there", "app::work", "C:\\src\\work.rs", 0),
            ],
        },
        FrameData {
            frame_index: 4,
            threads: vec![thread(
                "main",
                None,
                vec![
                    ScopeNode::new(1, 10_000, 10_000),
                    ScopeNode::new(4, 10_001, 10_900),
                ],
            )],
            registrations: vec![
                Registration::named(4, "late", "app::late", "src/late.rs", 99),
                Registration::named(1, "renamed", "app::run", "src/app.rs", 11),
            ],
        },
    ];
    let mut out = Vec::new();
    for (name, c) in [
        ("odd_none.puffin", Compression::None),
        ("odd_lz4.puffin", Compression::Lz4),
    ] {
        out.push((name, write_recording(&odd, Format::Pfd4(c))));
    }
    out.push((
        "synthetic.puffin",
        write_recording(&synthetic_capture(5, 3, 60), Format::Pfd4(Compression::Lz4)),
    ));
    out.push((
        "worst.puffin",
        write_recording(
            &worst_case_capture(3, 80, 25, 7),
            Format::Pfd4(Compression::None),
        ),
    ));
    out
}

#[test]
fn generated_recordings_dump_as_real_rerun_does() {
    let Some(rerun) = rerun() else { return };
    let dir = tempfile::tempdir().unwrap();
    for (name, bytes) in generated() {
        let path = dir.path().join(name);
        std::fs::write(&path, &bytes).unwrap();
        let theirs = rerun_dump(&rerun, &path);
        let ours = our_dump(&path);
        assert!(
            ours == theirs,
            "{name}: {}",
            first_difference(&ours, &theirs)
        );
        // rerun's dump read back as input dumps the same.
        let json = dir.path().join(name.replace(".puffin", ".json"));
        std::fs::write(&json, &theirs).unwrap();
        let again = our_dump(&json);
        let theirs = String::from_utf8(theirs).unwrap();
        let renamed = theirs.replacen(
            &format!("{{\"file\":\"{name}\""),
            &format!(
                "{{\"file\":\"{}\"",
                json.file_name().unwrap().to_str().unwrap()
            ),
            1,
        );
        assert!(renamed != theirs);
        assert_eq!(
            String::from_utf8(again).unwrap(),
            renamed,
            "{name} via JSON"
        );
    }
}

/// Each frame's threads as puffin 0.20's reader has them: (start time, name).
fn puffin_threads(bytes: &[u8]) -> Vec<Vec<(Option<i64>, String)>> {
    assert_eq!(&bytes[..4], b"PUF0");
    let mut r = &bytes[4..];
    let mut frames = Vec::new();
    while let Some(f) = puffin::FrameData::read_next(&mut r).expect("puffin reads the file") {
        let unpacked = f.unpacked().expect("puffin unpacks the frame");
        frames.push(
            unpacked
                .thread_streams
                .keys()
                .map(|t| (t.start_time_ns, t.name.clone()))
                .collect(),
        );
    }
    frames
}

/// Each frame's threads in a dump: (start time, name).
fn dump_threads(dump: &[u8]) -> Vec<Vec<(Option<i64>, String)>> {
    let doc: Value = serde_json::from_slice(dump).expect("valid JSON");
    doc["frames"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            f["threads"]
                .as_array()
                .unwrap()
                .iter()
                .map(|t| {
                    let start = &t["start_time_ns"];
                    assert!(start.is_i64() || start.is_null(), "{start}");
                    (start.as_i64(), t["name"].as_str().unwrap().to_owned())
                })
                .collect()
        })
        .collect()
}

#[test]
fn start_times_are_what_puffin_reads_legacy_captures_included() {
    let all = fixture_recordings();
    assert!(all.iter().any(|p| p.contains("PFD1")) && all.iter().any(|p| p.contains("PFD3")));
    for rel in all {
        let path = fixtures_dir().join(&rel);
        let theirs = puffin_threads(&std::fs::read(&path).unwrap());
        let ours = dump_threads(&our_dump(&path));
        assert_eq!(ours, theirs, "{rel}");
        assert!(
            ours.iter().flatten().all(|(start, _)| start.is_some()),
            "{rel}: every fixture's threads have start times"
        );
    }
    // And `null` where the stream info has none.
    let (name, bytes) = &generated()[0];
    let (_dir, path) = common::temp_file(name, bytes);
    let ours = dump_threads(&our_dump(&path));
    assert_eq!(ours, puffin_threads(bytes));
    assert!(ours[0].iter().any(|(start, _)| start.is_none()));
}

/// `dump` with every `"start_time_ns":…,` taken out: the layout before the key.
fn without_start_times(dump: &str) -> String {
    const KEY: &str = "\"start_time_ns\":";
    let mut out = String::with_capacity(dump.len());
    let mut rest = dump;
    while let Some(at) = rest.find(KEY) {
        out.push_str(&rest[..at]);
        let after = &rest[at + KEY.len()..];
        let comma = after.find(',').expect("a key follows");
        let value = &after[..comma];
        assert!(value == "null" || value.parse::<i64>().is_ok(), "{value}");
        rest = &after[comma + 1..];
    }
    out.push_str(rest);
    out
}

#[test]
fn json_dumps_keep_start_times_and_dumps_without_them_still_read() {
    for rel in fixture_recordings() {
        let bytes = std::fs::read(fixtures_dir().join(&rel)).unwrap();
        let decoded = engine::load(&bytes).unwrap().trace;
        let dump = engine::export_string(&decoded, "x.puffin", false);

        // With the key (ours, or rerun's: the same bytes): start times kept.
        let back = engine::load(dump.as_bytes()).unwrap().trace;
        assert!(back.format.from_json);
        assert_eq!(
            back.threads.start_time_ns, decoded.threads.start_time_ns,
            "{rel}"
        );
        assert!(
            engine::export_string(&back, "x.puffin", false) == dump,
            "{rel}"
        );

        // Without it (older exports): read, no start times, the rest intact,
        // and written back in the documented layout, `null` for the key.
        let old = without_start_times(&dump);
        assert!(old.len() < dump.len() && !old.contains("start_time_ns"));
        let back = engine::load(old.as_bytes()).unwrap().trace;
        assert!(
            back.threads.start_time_ns.iter().all(Option::is_none),
            "{rel}"
        );
        assert_eq!(back.scopes.len(), decoded.scopes.len());
        let again = engine::export_string(&back, "x.puffin", false);
        assert!(again.contains("\"start_time_ns\":null,\"num_scopes\":"));
        assert!(without_start_times(&again) == old, "{rel}");
    }
}
