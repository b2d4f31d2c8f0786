//! The browser's worker path (`engine::read::fragment`): a recording decoded
//! a run of records at a time, each run on its own and through its bytes,
//! then merged, is the recording the single decoder reads: every fixture and
//! generated layout (damaged ones too), with runs of one record, of a few
//! kilobytes and of the whole file, compared model and export byte for byte.

mod common;

use common::hostile::hostile_capture;
use puffin_lens::engine::invariants::same_trace;
use puffin_lens::engine::read::fragment::decode_in_runs;
use puffin_lens::engine::write::puffin::{
    Compression, Format, FrameData, Registration, ScopeNode, ThreadData, synthetic_capture,
    worst_case_capture, write_frame, write_recording,
};
use puffin_lens::engine::{decode_puffin, write::json::export_string};

/// Decodes `bytes` both ways with several run sizes; returns how many runs
/// of one record the file made (to check the test splits at all).
fn both_ways(name: &str, bytes: &[u8]) {
    let single = decode_puffin(bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
    for run_bytes in [1, 3000, 64 << 10, usize::MAX] {
        let runs = decode_in_runs(bytes, run_bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(
            single.diagnostics, runs.diagnostics,
            "{name}, runs of {run_bytes} B: problems differ"
        );
        same_trace(
            &single.trace,
            &runs.trace,
            &format!("{name}, runs of {run_bytes} B"),
        );
        assert_eq!(
            export_string(&single.trace, name, true),
            export_string(&runs.trace, name, true)
        );
    }
}

#[test]
fn every_fixture_decodes_the_same_in_runs() {
    let mut seen = 0;
    for dir in [common::fixtures_dir(), "tests/fixtures".into()] {
        let mut paths: Vec<_> = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .map(|e| e.expect("entry").path())
            .filter(|p| p.extension().is_some_and(|e| e == "puffin"))
            .collect();
        paths.sort();
        for path in paths {
            let bytes = std::fs::read(&path).expect("read fixture");
            both_ways(&path.display().to_string(), &bytes);
            seen += 1;
        }
    }
    assert!(seen >= 5, "fixtures found: {seen}");
}

#[test]
fn every_generated_layout_decodes_the_same_in_runs() {
    let formats = [
        Format::Pfd4(Compression::None),
        Format::Pfd4(Compression::Lz4),
        Format::Pfd4(Compression::Zstd),
        Format::Pfd3(Compression::Lz4),
        Format::Pfd3(Compression::Zstd),
        Format::Pfd2,
        Format::Pfd1,
        Format::Legacy,
    ];
    for format in formats {
        let name = format!("{format:?}");
        both_ways(
            &name,
            &write_recording(&synthetic_capture(40, 3, 300), format),
        );
        both_ways(
            &format!("{name} hostile"),
            &write_recording(&hostile_capture(false), format),
        );
        both_ways(
            &format!("{name} worst case"),
            &write_recording(&worst_case_capture(30, 500, 50, 7), format),
        );
    }
}

fn frame(index: u64, ids: &[u32], registrations: Vec<Registration>) -> FrameData {
    let t0 = index as i64 * 1000;
    FrameData {
        frame_index: index,
        threads: vec![ThreadData {
            name: format!("thread {}", index % 2),
            start_time_ns: Some(index as i64 % 2),
            scopes: ids
                .iter()
                .enumerate()
                .map(|(i, &id)| {
                    let t = t0 + i as i64 * 10;
                    ScopeNode::new(id, t, t + 9)
                        .data(&format!("scope#{}", id + 1))
                        .child(ScopeNode::new(id + 1, t + 1, t + 2))
                })
                .collect(),
        }],
        registrations,
    }
}

/// What a run cannot know on its own: ids used before (or without) their
/// registration in another run, registered twice, a data string equal to a
/// `scope#<id>` name, legacy records numbered around PFD4 ids, threads seen
/// in earlier runs.
#[test]
fn state_across_runs_resolves_as_in_one_pass() {
    let mut bytes = b"PUF0".to_vec();
    let reg = |id, name: &str| Registration::named(id, name, "f", "a.rs", id);
    let frames = [
        (frame(0, &[5, 1], vec![]), Format::Pfd4(Compression::Lz4)),
        (
            frame(1, &[1, 9], vec![reg(1, "one")]),
            Format::Pfd4(Compression::None),
        ),
        (
            frame(2, &[2, 5], vec![reg(5, "five"), reg(1, "again")]),
            Format::Pfd4(Compression::Zstd),
        ),
        (frame(3, &[1, 2, 3], vec![]), Format::Legacy),
        (
            frame(4, &[1, 3, 7], vec![reg(3, "three")]),
            Format::Pfd4(Compression::Lz4),
        ),
        (frame(5, &[3, 4], vec![]), Format::Pfd1),
        (
            frame(6, &[4, 11, 9], vec![reg(11, "eleven")]),
            Format::Pfd4(Compression::None),
        ),
    ];
    let mut starts = Vec::new();
    for (f, format) in &frames {
        starts.push(bytes.len());
        write_frame(&mut bytes, f, *format);
    }
    both_ways("mixed", &bytes);

    // Damaged records in the middle, after they made definitions and a
    // thread (rolled back with the frame; "scope#9" stays interned): frame
    // 1's last scope left unclosed, and a byte of frame 4 made a '('.
    let mut damaged = bytes.clone();
    let close: Vec<u8> = [&b")"[..], &1019i64.to_le_bytes()].concat();
    let at = starts[1]
        + bytes[starts[1]..starts[2]]
            .windows(close.len())
            .position(|w| w == close)
            .expect("frame 1's last close");
    damaged[at] = b'X';
    damaged[starts[4] + 30] = b'(';
    let decoded = decode_puffin(&damaged).expect("decodes");
    assert!(
        decoded.diagnostics.iter().any(|d| d.record == Some(1)),
        "frame 1 damaged: {:?}",
        decoded.diagnostics
    );
    assert!(decoded.trace.strings.find("scope#9").is_some());
    both_ways("mixed, damaged", &damaged);
    for cut in [starts[3] + 7, starts[5] + 2, bytes.len() - 1] {
        both_ways(&format!("mixed, cut at {cut}"), &bytes[..cut]);
    }
}

/// A fragment's bytes cut short or with a byte changed anywhere read back
/// as an error or as some fragment, which merges or is refused: never a
/// panic (the page's thread reads what a worker sent).
#[test]
fn malformed_fragments_are_errors() {
    use puffin_lens::engine::PuffinDecoder;
    use puffin_lens::engine::read::fragment::{Fragment, decode_run};
    let frames = synthetic_capture(3, 1, 40);
    let mut bytes = write_recording(&frames, Format::Pfd4(Compression::None));
    write_frame(&mut bytes, &frame(9, &[1, 2], vec![]), Format::Legacy);
    let mut decoder = PuffinDecoder::new(&bytes[..]).expect("decodes");
    let run = decoder.next_run(usize::MAX).expect("a run");
    let good = decode_run(&bytes[run.bytes.clone()], run.bytes.start, run.first_record).to_bytes();
    let mut refused = 0;
    let mut try_merge = |fragment_bytes: &[u8]| match Fragment::from_bytes(fragment_bytes) {
        Ok(fragment) => {
            let mut into = PuffinDecoder::new(&bytes[..]).expect("decodes");
            if fragment.merge_into(&mut into).is_err() {
                refused += 1;
            }
        }
        Err(err) => {
            assert!(err.starts_with("malformed fragment: "), "{err}");
            refused += 1;
        }
    };
    for len in 0..good.len() {
        try_merge(&good[..len]);
    }
    let mut state = 0x2545_f491_4f6c_dd1d_u64;
    for _ in 0..20_000 {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        let mut bad = good.clone();
        let at = (state % bad.len() as u64) as usize;
        bad[at] = (state >> 32) as u8;
        try_merge(&bad);
    }
    assert!(refused > good.len(), "refused {refused}");
}
