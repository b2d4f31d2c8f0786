//! What must hold for any input, checked by the fuzz targets (`fuzz/`) and,
//! on stable, by replaying their corpora (`tests/fuzz_corpora.rs`). Each
//! function panics when an invariant breaks; any other outcome (an error
//! for a bad input) is fine.

use super::api;
use super::read::json::load_json;
use super::read::live::{LiveRecording, MessageReader, Retention};
use super::write::json::export_string;
use super::{Decoded, SizeEstimate, decode_puffin};

/// An intact recording survives decode → export → JSON read → export
/// byte for byte.
fn round_trip(decoded: &Decoded) {
    if decoded.is_damaged() {
        return;
    }
    let json = export_string(&decoded.trace, "fuzz", false);
    // The browser's size estimate counts a dump's scopes exactly (a quote
    // inside a string is escaped, so no string can fake the key).
    assert_eq!(
        SizeEstimate::of_json(json.as_bytes()).scopes,
        decoded.trace.scopes.len() as u64,
        "the size estimate miscounts our own export's scopes"
    );
    let back = match load_json(json.as_bytes()) {
        Ok(d) => d,
        Err(err) => panic!("our own export does not read back: {err}"),
    };
    assert!(
        !back.is_damaged(),
        "our own export reads back damaged: {:?}",
        back.diagnostics
    );
    assert_eq!(
        export_string(&back.trace, "fuzz", false),
        json,
        "the JSON round trip changed the recording"
    );
}

/// Where and how bad each problem is; the wording of a decompressor's
/// complaint may differ with the output buffer it was given.
fn located(d: &Decoded) -> Vec<(super::Severity, Option<usize>, Option<u64>, u64)> {
    d.diagnostics
        .iter()
        .map(|x| (x.severity, x.record, x.frame_index, x.byte_offset))
        .collect()
}

/// The `.puffin` decoder on arbitrary bytes: the single-thread and the
/// parallel paths agree, an intact result round-trips, and the size
/// estimate is bounded.
pub fn puffin_bytes(data: &[u8]) {
    // What the browser checks before decoding: the reservation it implies
    // stays proportional to the input.
    let estimate = SizeEstimate::of(data);
    assert!(
        estimate.reserved <= data.len() as u64,
        "reserved beyond the input: {estimate:?}"
    );
    let Ok(single) = decode_puffin(data) else {
        return;
    };
    #[cfg(not(target_arch = "wasm32"))]
    {
        let parallel = match super::decode_puffin_parallel(data) {
            Ok(d) => d,
            Err(err) => panic!("the parallel decoder refused what the single one read: {err}"),
        };
        assert_eq!(
            located(&single),
            located(&parallel),
            "the decoders disagree on the problems: {:?} vs {:?}",
            single.diagnostics,
            parallel.diagnostics
        );
        assert_eq!(
            export_string(&single.trace, "fuzz", false),
            export_string(&parallel.trace, "fuzz", false),
            "the decoders disagree on the recording"
        );
    }
    // The browser's worker path: runs decoded on their own and merged give
    // the same model, string ids and problems included.
    for run_bytes in [1, 4096] {
        let runs = match super::read::fragment::decode_in_runs(data, run_bytes) {
            Ok(d) => d,
            Err(err) => panic!("the run decoder refused what the single one read: {err}"),
        };
        assert_eq!(
            located(&single),
            located(&runs),
            "the run decoder ({run_bytes} B runs) disagrees on the problems: {:?} vs {:?}",
            single.diagnostics,
            runs.diagnostics
        );
        same_trace(&single.trace, &runs.trace, "the run decoder");
    }
    round_trip(&single);
}

/// `a` and `b` are the same model: the export, and the string table and
/// the definitions and threads in id order.
pub fn same_trace(a: &super::Trace, b: &super::Trace, what: &str) {
    use super::model::StrId;
    let strings = |t: &super::Trace| -> Vec<String> {
        (0..t.strings.len() as u32)
            .map(|i| t.str(StrId(i)).to_owned())
            .collect()
    };
    assert_eq!(strings(a), strings(b), "{what}: the string tables differ");
    assert_eq!(a.defs.raw_id, b.defs.raw_id, "{what}: definitions differ");
    assert_eq!(a.defs.name, b.defs.name, "{what}: definition names differ");
    assert_eq!(a.defs.kind, b.defs.kind, "{what}: definition kinds differ");
    assert_eq!(a.threads.name, b.threads.name, "{what}: threads differ");
    assert_eq!(a.scopes.data, b.scopes.data, "{what}: data columns differ");
    assert_eq!(a.scopes.def, b.scopes.def, "{what}: def columns differ");
    assert_eq!(
        export_string(a, "fuzz", false),
        export_string(b, "fuzz", false),
        "{what}: the exports differ"
    );
}

/// The JSON dump reader on arbitrary bytes.
pub fn json_bytes(data: &[u8]) {
    if let Ok(decoded) = load_json(data) {
        round_trip(&decoded);
    }
}

/// The query API with an arbitrary name and argument object, on a small
/// recording: an answer or an error, never a panic. The first byte picks a
/// known name (or, past them, the rest is the name too).
pub fn query(trace: &super::Trace, data: &[u8]) {
    let names = api::query_names();
    let Some((&pick, rest)) = data.split_first() else {
        return;
    };
    let text = String::from_utf8_lossy(rest);
    let (name, args) = match names.get(pick as usize) {
        Some(name) => (name.to_string(), text.as_ref()),
        None => match text.split_once('\n') {
            Some((name, args)) => (name.to_owned(), args),
            None => (text.to_string(), "{}"),
        },
    };
    let Ok(args) = serde_json::from_str::<serde_json::Value>(args) else {
        return;
    };
    let _ = api::query_json(trace, Some(trace), &name, &args);
}

/// A live stream in arbitrary pieces (the first byte sets the piece size)
/// into a small live recording: whatever is framed decodes, retention
/// holds, and the saved file reopens as the model shown.
pub fn live_stream(data: &[u8]) {
    let Some((&size, rest)) = data.split_first() else {
        return;
    };
    let mut reader = MessageReader::new();
    let mut live = LiveRecording::new(Retention {
        max_frames: 4,
        max_mb: 1,
    });
    for piece in rest.chunks(usize::from(size).max(1)) {
        reader.feed(piece);
        while let Ok(Some(m)) = reader.next_message() {
            live.push(&m);
        }
    }
    assert!(
        live.frames() <= 4,
        "retention kept {} frames",
        live.frames()
    );
    let shown = live.snapshot();
    if shown.is_damaged() {
        return;
    }
    let saved = match decode_puffin(&live.to_puffin()) {
        Ok(d) => d,
        Err(err) => panic!("a saved live recording does not reopen: {err}"),
    };
    assert_eq!(
        export_string(&saved.trace, "fuzz", false),
        export_string(&shown.trace, "fuzz", false),
        "the saved live recording is not the one shown"
    );
}
