//! Generated recordings in every container variant dump to what the writer
//! was given (expected export built independently in `common`).

mod common;

use common::{code, expected_export, parse, run_in, temp_file};
use puffin_lens::engine::write::puffin::{
    Compression, Format, FrameData, Registration, ScopeNode, ThreadData, write_recording,
};
use puffin_lens::engine::{self, ScopeIdx};

fn thread(name: &str, start: Option<i64>, scopes: Vec<ScopeNode>) -> ThreadData {
    ThreadData {
        name: name.to_owned(),
        start_time_ns: start,
        scopes,
    }
}

/// Two frames, nested scopes, two threads, registrations in frame 0 only.
fn basic_frames() -> Vec<FrameData> {
    let frame = |index: u64, t0: i64| FrameData {
        frame_index: index,
        threads: vec![
            thread(
                "main",
                Some(1),
                vec![
                    ScopeNode::new(1, t0, t0 + 1000)
                        .data(&format!("frame {index}"))
                        .child(ScopeNode::new(2, t0 + 10, t0 + 400).child(ScopeNode::new(
                            3,
                            t0 + 20,
                            t0 + 30,
                        )))
                        .child(ScopeNode::new(2, t0 + 500, t0 + 900).data("second")),
                ],
            ),
            thread(
                "worker",
                Some(2),
                vec![
                    ScopeNode::new(3, t0 + 5, t0 + 50).data("job 1"),
                    ScopeNode::new(3, t0 + 60, t0 + 70).data("job 2"),
                ],
            ),
        ],
        registrations: if index == 0 {
            vec![
                Registration::named(1, "frame", "app::run", "src/app.rs", 10),
                Registration::function(2, "app::update", "src/app.rs", 20),
                Registration::named(3, "job", "app::work", "src/work.rs", 30),
            ]
        } else {
            vec![]
        },
    };
    vec![frame(0, 1_000_000), frame(1, 2_000_000)]
}

/// Dumps `frames` written as `format` through the CLI and compares.
fn check_cli(frames: &[FrameData], format: Format) {
    let bytes = write_recording(frames, format);
    let (dir, _) = temp_file("rec.puffin", &bytes);
    let out = run_in(dir.path(), &["dump", "rec.puffin"]);
    assert_eq!(code(&out), 0, "{format:?}: {}", common::stderr(&out));
    let legacy = !matches!(format, Format::Pfd4(_));
    assert_eq!(
        parse(&out.stdout),
        expected_export("rec.puffin", frames, legacy),
        "{format:?}"
    );
}

#[test]
fn every_container_variant_and_compression() {
    let frames = legacy_named_frames();
    for format in [
        Format::Pfd4(Compression::Lz4),
        Format::Pfd4(Compression::Zstd),
        Format::Pfd4(Compression::None),
        Format::Pfd3(Compression::Lz4),
        Format::Pfd3(Compression::Zstd),
        Format::Pfd3(Compression::None),
        Format::Pfd2,
        Format::Pfd1,
        Format::Legacy,
    ] {
        check_cli(&frames, format);
        let decoded = engine::load(&write_recording(&frames, format)).unwrap();
        let expected_kind = match format {
            Format::Pfd4(_) => "PFD4",
            Format::Pfd3(_) => "PFD3",
            Format::Pfd2 => "PFD2",
            Format::Pfd1 => "PFD1",
            Format::Legacy => "legacy",
        };
        assert_eq!(decoded.trace.format.record_kinds, vec![expected_kind]);
    }
}

/// [`basic_frames`] with the names and locations every layout, the legacy
/// one included, carries.
fn legacy_named_frames() -> Vec<FrameData> {
    let mut frames = basic_frames();
    for f in &mut frames {
        for t in &mut f.threads {
            name_legacy(&mut t.scopes);
        }
    }
    frames
}

/// Gives legacy-layout names and locations to scopes (by id).
fn name_legacy(scopes: &mut [ScopeNode]) {
    for s in scopes {
        let (name, loc) = match s.id {
            1 => ("frame", "src/app.rs:10"),
            2 => ("app::update", "src/app.rs:20"),
            _ => ("job", "work.rs"),
        };
        s.name = name.to_owned();
        s.location = loc.to_owned();
        name_legacy(&mut s.children);
    }
}

#[test]
fn legacy_ids_follow_first_appearance_and_split_locations() {
    let scopes = vec![
        ScopeNode::new(0, 0, 10)
            .named("b", "x.rs:5")
            .child(ScopeNode::new(0, 1, 2).named("a", "y.rs")),
        ScopeNode::new(0, 20, 30).named("a", "y.rs"),
        ScopeNode::new(0, 40, 50).named("a", "z.rs:7"),
    ];
    let frames = vec![FrameData {
        frame_index: 3,
        threads: vec![thread("main", None, scopes)],
        registrations: vec![],
    }];
    check_cli(&frames, Format::Pfd3(Compression::Zstd));
    let out = engine::load(&write_recording(&frames, Format::Pfd2)).unwrap();
    let json = parse(engine::export_string(&out.trace, "f", false).as_bytes());
    assert_eq!(json["scopes"]["1"]["name"], "b");
    assert_eq!(json["scopes"]["1"]["file"], "x.rs");
    assert_eq!(json["scopes"]["1"]["line"], 5);
    assert_eq!(json["scopes"]["2"]["file"], "y.rs");
    assert_eq!(json["scopes"]["2"]["line"], 0);
    assert_eq!(json["scopes"]["3"]["name"], "a");
    assert_eq!(json["scopes"]["3"]["kind"], "unknown");
}

#[test]
fn registration_arriving_in_a_later_frame_names_earlier_scopes() {
    let mut frames = basic_frames();
    let regs = std::mem::take(&mut frames[0].registrations);
    frames[1].registrations = regs;
    check_cli(&frames, Format::Pfd4(Compression::Lz4));
    let decoded = engine::load(&write_recording(&frames, Format::Pfd4(Compression::Lz4))).unwrap();
    assert_eq!(decoded.trace.scope_name(ScopeIdx(0)), "frame");
}

#[test]
fn first_registration_of_an_id_wins() {
    let mut frames = basic_frames();
    frames[1].registrations = vec![Registration::named(1, "impostor", "x", "y.rs", 1)];
    check_cli(&frames, Format::Pfd4(Compression::Lz4));
}

#[test]
fn no_registration_at_all_names_scopes_by_id() {
    let mut frames = basic_frames();
    for f in &mut frames {
        f.registrations.clear();
    }
    let bytes = write_recording(&frames, Format::Pfd4(Compression::Lz4));
    let (dir, _) = temp_file("rec.puffin", &bytes);
    let out = run_in(dir.path(), &["dump", "rec.puffin"]);
    assert_eq!(code(&out), 0);
    let json = parse(&out.stdout);
    assert_eq!(json["scopes"], serde_json::json!({}));
    assert_eq!(
        json["frames"][0]["threads"][0]["scopes"][0]["name"],
        "scope#1"
    );
    assert_eq!(json, expected_export("rec.puffin", &frames, false));
    let decoded = engine::load(&bytes).unwrap();
    assert!(!decoded.trace.defs.has_registration());
}

#[test]
fn restarted_and_jumping_frame_indices_keep_every_frame_in_file_order() {
    let mut frames = basic_frames();
    let mut more = basic_frames();
    more[0].frame_index = 0; // restart
    more[1].frame_index = 1000; // jump
    more[0].registrations.clear();
    frames.extend(more);
    frames.push(FrameData {
        frame_index: 5,
        ..basic_frames().remove(1)
    });
    check_cli(&frames, Format::Pfd4(Compression::Zstd));
    let decoded = engine::load(&write_recording(&frames, Format::Pfd4(Compression::Zstd))).unwrap();
    assert_eq!(decoded.trace.frames.frame_index, vec![0, 1, 0, 1000, 5]);
}

#[test]
fn json_hostile_data_strings_are_escaped() {
    let nasty = [
        "quote \" and backslash \\ end",
        "control \u{1} \u{8} \u{c} \n \r \t \u{1f} \u{7f}",
        "non-ASCII: ünïcödé ✓ 🦀 日本語",
        &"x".repeat(127),
        &"y".repeat(200), // truncated to 127 by the writer, as puffin does
        &format!("{}é", "z".repeat(126)), // é would straddle byte 127: dropped
        "{\"json\": [1, 2]}",
    ];
    let scopes: Vec<ScopeNode> = nasty
        .iter()
        .enumerate()
        .map(|(i, s)| ScopeNode::new(1, i as i64 * 10, i as i64 * 10 + 5).data(s))
        .collect();
    let frames = vec![FrameData {
        frame_index: 0,
        threads: vec![thread("thread \"quoted\"\n", None, scopes)],
        registrations: vec![Registration::named(
            1,
            "name \"with\" \\ quotes",
            "f\tn",
            "ü.rs",
            1,
        )],
    }];
    check_cli(&frames, Format::Pfd4(Compression::None));
    let decoded = engine::load(&write_recording(&frames, Format::Pfd4(Compression::None))).unwrap();
    let text = engine::export_string(&decoded.trace, "f", false);
    assert!(text.contains(r#""quote \" and backslash \\ end""#));
    assert!(text.contains(r#""control \u0001 \b \f \n \r \t \u001f "#));
    assert!(text.contains("ünïcödé ✓ 🦀 日本語"));
    let json = parse(text.as_bytes());
    let data = &json["frames"][0]["threads"][0]["scopes"];
    assert_eq!(data[3]["data"].as_str().unwrap().len(), 127);
    assert_eq!(data[4]["data"].as_str().unwrap().len(), 127);
    assert_eq!(data[5]["data"].as_str().unwrap(), "z".repeat(126));
    // And the hostile dump loads back identically.
    let reloaded = engine::load(text.as_bytes()).unwrap();
    assert_eq!(engine::export_string(&reloaded.trace, "f", false), text);
}

#[test]
fn threads_with_identical_names_and_empty_threads() {
    let frames = vec![FrameData {
        frame_index: 0,
        threads: vec![
            thread("", Some(30), vec![ScopeNode::new(1, 100, 200)]),
            thread("", Some(10), vec![ScopeNode::new(1, 110, 120)]),
            thread("", Some(20), vec![]),
            thread("main", None, vec![ScopeNode::new(1, 50, 300)]),
        ],
        registrations: vec![Registration::function(1, "f", "a.rs", 1)],
    }];
    check_cli(&frames, Format::Pfd4(Compression::Lz4));
    let decoded = engine::load(&write_recording(&frames, Format::Pfd4(Compression::Lz4))).unwrap();
    let t = &decoded.trace;
    assert_eq!(t.threads.len(), 4, "same-named threads stay distinct");
    let json = parse(engine::export_string(t, "f", false).as_bytes());
    let threads = json["frames"][0]["threads"].as_array().unwrap();
    // Stored order: no start time first, then by start time.
    let names: Vec<_> = threads
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, vec!["main", "", "", ""]);
    assert_eq!(threads[2]["scopes"], serde_json::json!([]));
    assert_eq!(
        threads[2]["range_ns"],
        serde_json::json!([i64::MAX, i64::MIN])
    );
}

#[test]
fn an_empty_recording_has_no_frames() {
    let (dir, _) = temp_file("empty.puffin", b"PUF0");
    let out = run_in(dir.path(), &["dump", "empty.puffin"]);
    assert_eq!(code(&out), 0);
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        r#"{"file":"empty.puffin","scopes":{},"frames":[]}"#
    );
    // The end-of-stream sentinel stops reading.
    let mut bytes = write_recording(&basic_frames()[..1], Format::Pfd4(Compression::Lz4));
    bytes.extend_from_slice(&[0, 0, 0, 0]);
    bytes.extend_from_slice(b"garbage after the sentinel");
    let decoded = engine::load(&bytes).unwrap();
    assert_eq!(decoded.trace.frames.len(), 1);
    assert!(decoded.diagnostics.is_empty());
}

#[test]
fn model_invariants_hold_on_a_synthetic_capture() {
    let frames = puffin_lens::engine::write::puffin::synthetic_capture(5, 3, 2_000);
    let decoded = engine::load(&write_recording(&frames, Format::Pfd4(Compression::Lz4))).unwrap();
    let t = &decoded.trace;
    let s = &t.scopes;
    assert!(s.len() >= 5 * 2_000);
    for i in 0..s.len() {
        let idx = ScopeIdx(i as u32);
        let parent = s.parent[i];
        // Parents before children, subtrees contiguous and nested.
        assert!(s.subtree_end[i] as usize > i);
        if parent != puffin_lens::engine::model::NO_PARENT {
            let p = parent as usize;
            assert!(p < i && s.subtree_end[i] <= s.subtree_end[p]);
            assert_eq!(s.depth[i], s.depth[p] + 1);
            assert_eq!(s.stream[i], s.stream[p]);
        } else {
            assert_eq!(s.depth[i], 0);
        }
        let children_ns: i64 = s.children(idx).map(|c| s.duration_ns[c.idx()]).sum();
        assert_eq!(s.self_ns[i], (s.duration_ns[i] - children_ns).max(0));
        for c in s.children(idx) {
            assert_eq!(s.parent[c.idx()], i as u32);
        }
    }
    // Streams partition the scopes; frames partition the streams.
    let mut next = 0;
    for f in t.frames.ids() {
        for st in t.frames.streams(f) {
            let range = t.streams.scopes(engine::StreamId(st));
            assert_eq!(range.start, next);
            next = range.end;
            assert_eq!(t.streams.frame[st as usize], f);
        }
    }
    assert_eq!(next as usize, s.len());
}

#[test]
fn sequential_incremental_and_parallel_decoders_agree() {
    let frames = puffin_lens::engine::write::puffin::synthetic_capture(40, 3, 500);
    for format in [
        Format::Pfd4(Compression::Lz4),
        Format::Pfd4(Compression::Zstd),
        Format::Pfd1,
    ] {
        let bytes = write_recording(&frames, format);
        let a = engine::decode_puffin(&bytes).unwrap();
        let b = engine::decode_puffin_parallel(&bytes).unwrap();
        // Frame by frame, as the app does across repaints.
        let mut dec = engine::PuffinDecoder::new(&bytes[..]).unwrap();
        let mut steps = 0;
        while dec.step() {
            steps += 1;
            assert_eq!(dec.frames_done(), steps);
            assert!(dec.bytes_done() <= dec.bytes_total());
        }
        assert_eq!(steps, 40);
        let c = dec.finish();
        let ea = engine::export_string(&a.trace, "x", false);
        assert_eq!(ea, engine::export_string(&b.trace, "x", false));
        assert_eq!(ea, engine::export_string(&c.trace, "x", false));
        assert_eq!(a.trace.format, b.trace.format);
    }
}

/// The size estimate the browser refuses recordings by (before decoding)
/// reads what the frames' metadata claims: exactly the scopes decoded for
/// the layouts that carry metadata outside the streams, and at least as
/// many for the others; for a JSON dump, one per scope.
#[test]
fn size_estimate_matches_what_decoding_holds() {
    let frames = legacy_named_frames();
    for format in [
        Format::Pfd4(Compression::Lz4),
        Format::Pfd4(Compression::Zstd),
        Format::Pfd3(Compression::None),
        Format::Pfd2,
        Format::Pfd1,
        Format::Legacy,
    ] {
        let bytes = write_recording(&frames, format);
        let decoded = engine::load(&bytes).unwrap();
        let scopes = decoded.trace.scopes.len() as u64;
        let estimate = engine::SizeEstimate::of(&bytes);
        if matches!(format, Format::Pfd1 | Format::Legacy) {
            assert!(
                estimate.scopes >= scopes,
                "{format:?}: {estimate:?} vs {scopes}"
            );
        } else {
            assert_eq!(estimate.scopes, scopes, "{format:?}");
            // The streams' bytes of one frame: some, and (uncompressed) fewer
            // than the file's.
            assert!(estimate.max_frame_bytes > 0, "{format:?}");
            if format == Format::Pfd3(Compression::None) {
                assert!(estimate.max_frame_bytes < bytes.len() as u64);
            }
        }
        assert!(estimate.model_bytes() >= scopes * 48);
        let dump = engine::export_string(&decoded.trace, "x.puffin", false);
        let json = engine::SizeEstimate::of(dump.as_bytes());
        assert_eq!(json.scopes, scopes, "{format:?} as JSON");
    }
}

/// A frame claiming more scopes than it could ever decompress to is counted
/// as at most what one frame may hold, and the column reservation taken
/// from the claims never aborts: the file still decodes to its intact part.
#[test]
fn a_lying_scope_count_is_bounded() {
    let frames = basic_frames();
    let mut bytes = write_recording(&frames, Format::Pfd4(Compression::None));
    // The first frame's metadata: frame_index, range, num_bytes, num_scopes
    // (bincode varints); num_scopes, the last, becomes u64::MAX / 2.
    let meta_len = u32::from_le_bytes(bytes[8..12].try_into().unwrap()) as usize;
    let meta = &bytes[12..12 + meta_len];
    let last = meta.len() - 1;
    assert!(meta[last] < 251, "num_scopes is the last varint, one byte");
    let mut claim = meta[..last].to_vec();
    engine::read::bytes::write_varint_u64(&mut claim, u64::MAX / 2);
    let mut patched = bytes[..12].to_vec();
    patched[8..12].copy_from_slice(&(claim.len() as u32).to_le_bytes());
    patched.extend_from_slice(&claim);
    patched.extend_from_slice(&bytes[12 + meta_len..]);
    bytes = patched;
    let estimate = engine::SizeEstimate::of(&bytes);
    assert!(estimate.scopes < (1 << 31), "{estimate:?}");
    assert!(
        estimate.scopes > 10_000_000,
        "the claim is counted, bounded: {estimate:?}"
    );
    let decoded = engine::load(&bytes).unwrap();
    assert_eq!(decoded.trace.frames.len(), frames.len());
}
