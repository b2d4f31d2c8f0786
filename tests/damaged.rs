//! Bad input: the documented exit status, a one-line message naming the file
//! and the place, the intact frames kept, and never a panic or a hang.

mod common;

use common::{code, parse, run, run_in, stderr, temp_file};
use puffin_lens::engine::write::puffin::{
    Compression, Format, FrameData, Registration, ScopeNode, ThreadData, synthetic_capture,
    write_frame, write_recording,
};
use puffin_lens::engine::{self, Severity};

fn frames(n: usize) -> Vec<FrameData> {
    (0..n)
        .map(|i| FrameData {
            frame_index: i as u64,
            threads: vec![ThreadData {
                name: "main".into(),
                start_time_ns: None,
                scopes: vec![
                    ScopeNode::new(1, i as i64 * 100, i as i64 * 100 + 50).child(ScopeNode::new(
                        2,
                        i as i64 * 100 + 1,
                        i as i64 * 100 + 9,
                    )),
                ],
            }],
            registrations: if i == 0 {
                vec![
                    Registration::named(1, "outer", "f", "a.rs", 1),
                    Registration::named(2, "inner", "f", "a.rs", 2),
                ]
            } else {
                vec![]
            },
        })
        .collect()
}

/// Byte offset where each frame record starts.
fn record_offsets(frames: &[FrameData], format: Format) -> Vec<usize> {
    let mut out = b"PUF0".to_vec();
    let mut offsets = Vec::new();
    for f in frames {
        offsets.push(out.len());
        write_frame(&mut out, f, format);
    }
    offsets
}

fn dump(name: &str, bytes: &[u8]) -> std::process::Output {
    let (dir, _) = temp_file(name, bytes);
    run_in(dir.path(), &["dump", name])
}

fn frame_indices(stdout: &[u8]) -> Vec<u64> {
    parse(stdout)["frames"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["frame_index"].as_u64().unwrap())
        .collect()
}

#[test]
fn missing_file_is_exit_1_naming_the_file() {
    let out = run(&["dump", "does/not/exist.puffin"]);
    assert_eq!(code(&out), 1);
    let err = stderr(&out);
    assert!(err.contains("does/not/exist.puffin"), "{err}");
    assert!(err.contains("cannot read"), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(out.stdout.is_empty());
}

#[test]
fn zero_length_file_is_exit_1() {
    let out = dump("empty.puffin", b"");
    assert_eq!(code(&out), 1);
    let err = stderr(&out);
    assert!(
        err.contains("empty.puffin") && err.contains("empty"),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1);
}

#[test]
fn wrong_magic_is_exit_1() {
    let out = dump("notes.txt", b"hello world, not a recording");
    assert_eq!(code(&out), 1);
    let err = stderr(&out);
    assert!(err.contains("notes.txt"), "{err}");
    assert!(err.contains("\"hell\"") && err.contains("PUF0"), "{err}");
    let out = dump("bin.puffin", &[0xff, 0x00, 0x13]);
    assert_eq!(code(&out), 1);
    assert!(stderr(&out).contains("\\xff"), "{}", stderr(&out));
}

#[test]
fn invalid_json_dump_is_exit_1_with_position() {
    let out = dump("broken.json", b"{\"frames\": [ {\"frame_index\": }");
    assert_eq!(code(&out), 1);
    let err = stderr(&out);
    assert!(
        err.contains("broken.json") && err.contains("line 1 column"),
        "{err}"
    );
}

#[test]
fn truncated_file_keeps_every_frame_before_the_cut() {
    let fr = frames(5);
    let bytes = write_recording(&fr, Format::Pfd4(Compression::Lz4));
    let offsets = record_offsets(&fr, Format::Pfd4(Compression::Lz4));
    // Cut in the middle of frame #3.
    let cut = offsets[3] + 10;
    let out = dump("cut.puffin", &bytes[..cut]);
    assert_eq!(code(&out), 3, "{}", stderr(&out));
    assert_eq!(frame_indices(&out.stdout), vec![0, 1, 2]);
    let err = stderr(&out);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("cut.puffin"), "{err}");
    assert!(
        err.contains(&format!("frame #3 at byte {}", offsets[3])),
        "{err}"
    );
    // Every possible cut: no panic, frames before the cut kept.
    for cut in 4..bytes.len() {
        let decoded = engine::load(&bytes[..cut]).unwrap();
        let whole = offsets[1..].iter().filter(|&&end| end <= cut).count();
        let kept = decoded.trace.frames.len();
        assert!(
            kept >= whole,
            "cut at {cut}: kept {kept} frames, expected {whole}"
        );
        assert_eq!(
            decoded.is_damaged(),
            !offsets.contains(&cut),
            "cut at {cut}"
        );
    }
}

#[test]
fn huge_length_field_is_an_error_not_an_allocation() {
    let fr = frames(2);
    let mut bytes = write_recording(&fr, Format::Pfd4(Compression::Lz4));
    let offsets = record_offsets(&fr, Format::Pfd4(Compression::Lz4));
    // The meta length of frame #1 claims 4 GB.
    let at = offsets[1] + 4;
    bytes[at..at + 4].copy_from_slice(&u32::MAX.to_le_bytes());
    let out = dump("huge.puffin", &bytes);
    assert_eq!(code(&out), 3);
    assert_eq!(frame_indices(&out.stdout), vec![0]);
    let err = stderr(&out);
    assert!(
        err.contains("4294967295") && err.contains("remain"),
        "{err}"
    );

    // A 100-byte file whose first record claims 4 GB: nothing decodable.
    let mut small = b"PUF0PFD4".to_vec();
    small.extend_from_slice(&4_000_000_000u32.to_le_bytes());
    small.resize(100, 7);
    let out = dump("small.puffin", &small);
    assert_eq!(code(&out), 1);
    let err = stderr(&out);
    assert!(err.contains("4000000000"), "{err}");
    assert!(err.contains("no frame could be decoded"), "{err}");

    // A lz4 block claiming a huge decompressed size is refused, frame skipped.
    let fr = frames(3);
    let mut bytes = write_recording(&fr, Format::Pfd3(Compression::Lz4));
    let offsets = record_offsets(&fr, Format::Pfd3(Compression::Lz4));
    let meta_len = u32::from_le_bytes(bytes[offsets[1] + 4..offsets[1] + 8].try_into().unwrap());
    let size_at = offsets[1] + 8 + meta_len as usize + 5;
    bytes[size_at..size_at + 4].copy_from_slice(&3_000_000_000u32.to_le_bytes());
    let decoded = engine::load(&bytes).unwrap();
    assert_eq!(decoded.trace.frames.frame_index, vec![0, 2]);
    assert!(decoded.diagnostics[0].message.contains("3000000000"));
}

#[test]
fn unknown_record_version_stops_with_a_clear_message() {
    let fr = frames(3);
    let mut bytes = write_recording(&fr, Format::Pfd4(Compression::Lz4));
    let offsets = record_offsets(&fr, Format::Pfd4(Compression::Lz4));
    bytes[offsets[2]..offsets[2] + 4].copy_from_slice(b"PFD9");
    let out = dump("future.puffin", &bytes);
    assert_eq!(code(&out), 3);
    assert_eq!(frame_indices(&out.stdout), vec![0, 1]);
    let err = stderr(&out);
    assert!(
        err.contains("\"PFD9\"") && err.contains("unknown frame record version"),
        "{err}"
    );
    assert!(
        err.contains(&format!("frame #2 at byte {}", offsets[2])),
        "{err}"
    );

    // Nothing but an unknown version: exit 1.
    let out = dump("only.puffin", b"PUF0PFD9\x01\x02\x03\x04");
    assert_eq!(code(&out), 1);
}

#[test]
fn damaged_frame_is_skipped_and_the_next_decoded() {
    // Stop before start in frame #1.
    let mut fr = frames(3);
    fr[1].threads[0].scopes[0].children[0].stop_ns = 0;
    let out = dump(
        "stop.puffin",
        &write_recording(&fr, Format::Pfd4(Compression::Zstd)),
    );
    assert_eq!(code(&out), 3);
    assert_eq!(frame_indices(&out.stdout), vec![0, 2]);
    let err = stderr(&out);
    assert!(err.contains("frame #1 (frame_index 1)"), "{err}");
    assert!(err.contains("stops before it starts"), "{err}");
    assert!(err.contains("thread \"main\""), "{err}");

    // Unclosed scope in frame #0: its registrations still name frame #1.
    let mut fr = frames(2);
    fr[0].threads[0].scopes[0].unclosed = true;
    let out = dump(
        "open.puffin",
        &write_recording(&fr, Format::Pfd4(Compression::Lz4)),
    );
    assert_eq!(code(&out), 3);
    let json = parse(&out.stdout);
    assert_eq!(frame_indices(&out.stdout), vec![1]);
    assert_eq!(
        json["frames"][0]["threads"][0]["scopes"][0]["name"],
        "outer"
    );
    assert!(stderr(&out).contains("never closed"), "{}", stderr(&out));

    // Legacy layout, too.
    let mut fr = frames(2);
    for f in &mut fr {
        f.threads[0].scopes[0].name = "outer".into();
    }
    fr[0].threads[0].scopes[0].unclosed = true;
    let decoded = engine::load(&write_recording(&fr, Format::Pfd2)).unwrap();
    assert_eq!(decoded.trace.frames.frame_index, vec![1]);
    // The damaged frame's legacy ids were rolled back: numbering starts at 1.
    assert_eq!(decoded.trace.defs.raw_id.len(), 2);
    let json = parse(engine::export_string(&decoded.trace, "x", false).as_bytes());
    assert_eq!(json["scopes"]["1"]["name"], "outer");
}

#[test]
fn registration_without_an_id_is_skipped_with_a_warning() {
    let mut fr = frames(2);
    fr[0].registrations.push(Registration {
        id: None,
        scope_name: Some("ghost".into()),
        function: "f".into(),
        file: "g.rs".into(),
        line: 9,
    });
    let out = dump(
        "reg.puffin",
        &write_recording(&fr, Format::Pfd4(Compression::Lz4)),
    );
    assert_eq!(code(&out), 0, "a warning is not damage");
    let err = stderr(&out);
    assert!(
        err.contains("warning") && err.contains("without a scope id") && err.contains("ghost"),
        "{err}"
    );
    let json = parse(&out.stdout);
    assert_eq!(json["scopes"].as_object().unwrap().len(), 2);
}

#[test]
fn flipped_bytes_never_panic_and_keep_what_they_can() {
    let capture = synthetic_capture(6, 2, 300);
    for format in [
        Format::Pfd4(Compression::Lz4),
        Format::Pfd4(Compression::Zstd),
        Format::Pfd4(Compression::None),
        Format::Pfd3(Compression::Lz4),
        Format::Pfd2,
        Format::Pfd1,
        Format::Legacy,
    ] {
        let bytes = write_recording(&capture, format);
        let mut rng = 0x2545_F491_4F6C_DD1Du64;
        for _ in 0..150 {
            let mut damaged = bytes.clone();
            for _ in 0..3 {
                rng ^= rng << 13;
                rng ^= rng >> 7;
                rng ^= rng << 17;
                let at = 4 + (rng as usize) % (damaged.len() - 4);
                damaged[at] ^= 1 << (rng >> 61);
            }
            // The sequential and the parallel decoder agree on damage too.
            let sequential = engine::decode_puffin(&damaged);
            let parallel = engine::decode_puffin_parallel(&damaged);
            match (&sequential, &parallel) {
                (Ok(a), Ok(b)) => {
                    assert_eq!(a.diagnostics, b.diagnostics);
                    assert_eq!(a.trace.scopes.start_ns, b.trace.scopes.start_ns);
                }
                (Err(_), Err(_)) => {}
                _ => panic!("sequential and parallel decoders disagree"),
            }
            if let Ok(decoded) = sequential {
                // Whatever was kept exports as valid JSON.
                let text = engine::export_string(&decoded.trace, "x", false);
                let _: serde::de::IgnoredAny = serde_json::from_str(&text).expect("valid JSON");
                assert!(decoded.trace.frames.len() <= capture.len() + 1);
            }
        }
    }
}

#[test]
fn flipped_byte_in_a_stream_damages_one_frame_only() {
    let fr = frames(3);
    let mut bytes = write_recording(&fr, Format::Pfd4(Compression::None));
    let offsets = record_offsets(&fr, Format::Pfd4(Compression::None));
    // Find the '(' of frame #1's first scope and break it.
    let pos = offsets[1] + bytes[offsets[1]..].iter().position(|&b| b == b'(').unwrap();
    bytes[pos] = b'X';
    let decoded = engine::load(&bytes).unwrap();
    assert_eq!(decoded.trace.frames.frame_index, vec![0, 2]);
    let d = &decoded.diagnostics[0];
    assert_eq!(d.severity, Severity::Damage);
    assert_eq!(d.record, Some(1));
    assert!(d.message.contains("expected '('"), "{}", d.message);
}

#[test]
fn corrupt_zstd_payload_damages_one_frame_only() {
    let fr = frames(3);
    let format = Format::Pfd4(Compression::Zstd);
    let offsets = record_offsets(&fr, format);
    let clean = write_recording(&fr, format);
    let magic_at = |bytes: &[u8]| {
        offsets[1]
            + bytes[offsets[1]..]
                .windows(4)
                .position(|w| w == [0x28, 0xB5, 0x2F, 0xFD])
                .expect("frame #1 has a zstd payload")
    };
    let at = magic_at(&clean);
    // A broken magic, then a broken block: the decompression context that
    // failed on frame #1 must decode frame #2 as if nothing happened.
    for (pos, mask) in [(at, 0x81u8), (at + 6, 0xFF)] {
        let mut bytes = clean.clone();
        bytes[pos] ^= mask;
        for decoded in [
            engine::decode_puffin(&bytes).unwrap(),
            engine::load(&bytes).unwrap(),
        ] {
            assert_eq!(decoded.trace.frames.frame_index, vec![0, 2], "byte {pos}");
            assert_eq!(decoded.diagnostics[0].record, Some(1));
        }
    }
}

#[test]
fn usage_errors_are_exit_2_and_help_teaches() {
    let out = run(&["dump"]);
    assert_eq!(code(&out), 2);
    let out = run(&["frobnicate"]);
    assert_eq!(code(&out), 2);
    let out = run(&["dump", "--help"]);
    assert_eq!(code(&out), 0);
    let help = String::from_utf8(out.stdout).unwrap();
    assert!(
        help.contains("Examples:") && help.contains("puffin-lens dump capture.puffin"),
        "{help}"
    );
    let out = run(&["--help"]);
    assert!(
        String::from_utf8(out.stdout)
            .unwrap()
            .contains("Exit status")
    );
}

#[test]
fn closed_stdout_pipe_ends_quietly() {
    use std::process::{Command, Stdio};
    let frames = synthetic_capture(40, 3, 2_000);
    let (dir, path) = temp_file(
        "big.puffin",
        &write_recording(&frames, Format::Pfd4(Compression::Lz4)),
    );
    let mut child = Command::new(env!("CARGO_BIN_EXE_puffin-lens"))
        .args(["dump", path.to_str().unwrap()])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Read a little, then close the pipe.
    let mut stdout = child.stdout.take().unwrap();
    let mut buf = [0u8; 16];
    std::io::Read::read_exact(&mut stdout, &mut buf).unwrap();
    drop(stdout);
    let out = child.wait_with_output().unwrap();
    assert_eq!(code(&out), 0);
    assert!(out.stderr.is_empty(), "{}", stderr(&out));
    drop(dir);
}

#[test]
fn zstd_bomb_is_refused_not_allocated() {
    // A frame whose metadata says 40 bytes but whose zstd payload inflates
    // to 64 MB of zeros.
    let zeros = vec![0u8; 64 << 20];
    let packed = zstd::encode_all(&zeros[..], 19).unwrap();
    let mut bytes = b"PUF0PFD3".to_vec();
    let meta = [0u8, 0, 2, 40, 1]; // frame 0, range (0, 1), 40 bytes, 1 scope
    bytes.extend_from_slice(&(meta.len() as u32).to_le_bytes());
    bytes.extend_from_slice(&meta);
    bytes.extend_from_slice(&(packed.len() as u32).to_le_bytes());
    bytes.push(2);
    bytes.extend_from_slice(&packed);
    let out = dump("bomb.puffin", &bytes);
    assert_eq!(code(&out), 1);
    let err = stderr(&out);
    assert!(err.contains("far beyond the frame's stated size"), "{err}");
}
