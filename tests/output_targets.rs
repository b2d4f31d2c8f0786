//! `-o` onto something that is not a regular file: a FIFO (as `/dev/null`
//! or `/dev/stdout` would be) is written in place, never replaced by a file
//! (the atomic rename used to turn `-o /dev/null` into a regular file).

#![cfg(unix)]

mod common;

use common::{code, run_in, stderr};
use std::os::unix::fs::FileTypeExt;
use std::path::Path;

#[test]
fn a_fifo_given_as_output_stays_a_fifo_and_gets_the_bytes() {
    let samples = Path::new(env!("CARGO_MANIFEST_DIR")).join("samples");
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("out.fifo");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    for args in [
        vec!["report", "threads_demo.puffin", "--format", "json", "-o"],
        vec!["dump", "threads_demo.puffin", "-o"],
    ] {
        let reader = {
            let fifo = fifo.clone();
            std::thread::spawn(move || std::fs::read(fifo).unwrap())
        };
        let mut args: Vec<&str> = args;
        let target = fifo.to_str().unwrap();
        args.push(target);
        let out = run_in(&samples, &args);
        assert_eq!(code(&out), 0, "{args:?}: {}", stderr(&out));
        // First (a replaced FIFO would leave the reader waiting forever).
        let kind = std::fs::metadata(&fifo).unwrap().file_type();
        assert!(kind.is_fifo(), "{args:?}: the FIFO was replaced");
        let got = reader.join().unwrap();
        let json: serde_json::Value = serde_json::from_slice(&got).unwrap();
        assert!(json.is_object(), "{args:?}");
    }
}
