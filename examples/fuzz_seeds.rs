//! Writes the fuzz targets' seed corpora (`fuzz/corpus/<target>/seed-*`):
//! recordings of every layout and compression (intact, cut, and with a
//! flipped byte), JSON dumps, query calls and live streams.
//!
//! `cargo run --example fuzz_seeds` (scripts/fuzz.sh runs it when a corpus
//! is missing; the seeds are committed).

use puffin_lens::engine::write::puffin::{
    Compression, Format, synthetic_capture, write_frame, write_recording,
};
use std::path::Path;

fn main() -> std::io::Result<()> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/corpus");
    let write = |target: &str, name: &str, bytes: &[u8]| -> std::io::Result<()> {
        let dir = root.join(target);
        std::fs::create_dir_all(&dir)?;
        std::fs::write(dir.join(format!("seed-{name}")), bytes)
    };
    let formats = [
        ("pfd4-none", Format::Pfd4(Compression::None)),
        ("pfd4-lz4", Format::Pfd4(Compression::Lz4)),
        ("pfd4-zstd", Format::Pfd4(Compression::Zstd)),
        ("pfd3-none", Format::Pfd3(Compression::None)),
        ("pfd3-lz4", Format::Pfd3(Compression::Lz4)),
        ("pfd2", Format::Pfd2),
        ("pfd1", Format::Pfd1),
        ("legacy", Format::Legacy),
    ];
    let capture = synthetic_capture(3, 1, 12);
    for (name, format) in formats {
        let bytes = write_recording(&capture, format);
        write("decode", name, &bytes)?;
        write(
            "decode",
            &format!("{name}-cut"),
            &bytes[..bytes.len() * 2 / 3],
        )?;
        let mut flipped = bytes.clone();
        let at = bytes.len() / 2;
        flipped[at] ^= 0x5a;
        write("decode", &format!("{name}-flipped"), &flipped)?;
        let dump = puffin_lens::engine::export_string(
            &puffin_lens::engine::load(&bytes).expect("decodes").trace,
            name,
            false,
        );
        write("json", name, dump.as_bytes())?;
        write(
            "json",
            &format!("{name}-cut"),
            &dump.as_bytes()[..dump.len() / 2],
        )?;
    }
    for fixture in std::fs::read_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures"))?
    {
        let path = fixture?.path();
        let name = path
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        let bytes = std::fs::read(&path)?;
        if bytes.len() > 64 << 10 {
            continue;
        }
        match path.extension().and_then(|e| e.to_str()) {
            Some("puffin") => write("decode", &name, &bytes)?,
            Some("json") => write("json", &name, &bytes)?,
            _ => {}
        }
    }
    // query: the first byte picks a query, the rest is its arguments.
    let calls: [(u8, &str); 10] = [
        (0, r#"{"top": 3}"#),
        (1, r#"{"frame": 2}"#),
        (2, r#"{"top": 5}"#),
        (3, r#"{"aggregate": true, "by": "name"}"#),
        (4, r#"{"depth": 2, "thread": "main"}"#),
        (5, r#"{"name": "frame_body", "ordered": true}"#),
        (6, r#"{"name": "job"}"#),
        (8, r#"{"lo": 0, "hi": 99999999999999999}"#),
        (9, r#"{"min_ms": 0.5}"#),
        (12, r#"{"id": 1}"#),
    ];
    for (i, (pick, args)) in calls.iter().enumerate() {
        let mut bytes = vec![*pick];
        bytes.extend_from_slice(args.as_bytes());
        write("query", &format!("q{i}"), &bytes)?;
    }
    // live: the first byte is the piece size, then puffin_http messages.
    let mut wire = vec![7u8];
    for f in &synthetic_capture(6, 1, 10) {
        wire.extend_from_slice(&2u16.to_le_bytes());
        write_frame(&mut wire, f, Format::Pfd4(Compression::Lz4));
    }
    write("live", "pfd4-lz4", &wire)?;
    write("live", "cut", &wire[..wire.len() - 9])?;
    Ok(())
}
