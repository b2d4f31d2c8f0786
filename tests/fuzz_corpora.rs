//! The fuzz targets' corpora (`fuzz/corpus/<target>/`: the seeds and every
//! input a fuzzer found interesting or once crashed on) replayed through
//! the same invariants on stable, in every `cargo test`: a machine without
//! nightly still checks what fuzzing found.

use puffin_lens::engine::{self, invariants};
use std::path::Path;

fn corpus(target: &str) -> Vec<(String, Vec<u8>)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz/corpus")
        .join(target);
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e} (cargo run --example fuzz_seeds)", dir.display()))
        .map(|e| e.expect("listing").path())
        .collect();
    files.sort();
    assert!(!files.is_empty(), "{}: empty corpus", dir.display());
    files
        .into_iter()
        .map(|p| {
            let name = p
                .file_name()
                .unwrap_or_default()
                .to_string_lossy()
                .into_owned();
            (name, std::fs::read(&p).expect("readable"))
        })
        .collect()
}

fn replay(target: &str, check: impl Fn(&[u8]) + std::panic::RefUnwindSafe) {
    let mut failed = Vec::new();
    for (name, bytes) in corpus(target) {
        if std::panic::catch_unwind(|| check(&bytes)).is_err() {
            failed.push(name);
        }
    }
    assert!(
        failed.is_empty(),
        "{target}: invariants broken by {failed:?}"
    );
}

#[test]
fn decode_corpus() {
    replay("decode", invariants::puffin_bytes);
}

#[test]
fn json_corpus() {
    replay("json", invariants::json_bytes);
}

#[test]
fn live_corpus() {
    replay("live", invariants::live_stream);
}

#[test]
fn query_corpus() {
    let bytes =
        std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("samples/threads_demo.puffin"))
            .expect("the sample");
    let trace = engine::load(&bytes).expect("decodes").trace;
    replay("query", |data| invariants::query(&trace, data));
}
