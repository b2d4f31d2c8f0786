//! Live capture: the stream a running app's `puffin_http` server sends, and
//! the recording it builds up.
//!
//! # The stream
//!
//! ```text
//! stream  = message*
//! message = u16 protocol_version (little-endian)  record
//! record  = one frame record, as in a .puffin file (see [`super::puffin`])
//! ```
//!
//! puffin_http 0.17 (puffin 0.20) sends version 2 and `PFD4` records; the
//! first record a client gets registers every scope the server knows, later
//! ones only new scopes. Older servers send version 1. A newer version is
//! accepted as long as its records are ones this reader decodes, and named
//! in the error otherwise.
//!
//! Nothing here trusts a length: a message is framed from its length fields
//! ([`record_extent`]) but only buffered as its bytes arrive, and a record
//! claiming more than [`MAX_RECORD_BYTES`] ends the stream with an error.

use super::bytes::{write_bincode_str, write_varint_u64};
use super::decoded::Decoded;
use super::puffin::{Extent, PuffinDecoder, record_extent, show_magic};
use crate::engine::model::{ScopeKind, Trace};
use std::collections::VecDeque;
use std::fmt;

/// The protocol versions this reader was written for (puffin_http 0.17
/// speaks 2).
pub const KNOWN_VERSIONS: std::ops::RangeInclusive<u16> = 1..=2;

/// Largest frame record accepted from a stream.
pub const MAX_RECORD_BYTES: u64 = 256 << 20;

/// Why a stream cannot be read on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StreamError {
    /// The server speaks a protocol version whose records are not ones we read.
    Version { server: u16, detail: String },
    /// Not a puffin_http stream, or a broken one.
    Garbage { offset: u64, detail: String },
    /// A record claims more than [`MAX_RECORD_BYTES`].
    TooLarge { offset: u64, claimed: u64 },
    /// The connection ended in the middle of a message.
    Cut { offset: u64, got: u64, claimed: u64 },
}

impl fmt::Display for StreamError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (lo, hi) = (KNOWN_VERSIONS.start(), KNOWN_VERSIONS.end());
        match self {
            StreamError::Version { server, detail } => {
                let what = if server > hi {
                    "newer than this puffin-lens knows: update puffin-lens \
                     (cargo install --locked --path . from a newer checkout)"
                } else {
                    "older than any puffin_http this reader knows: update the app's puffin_http"
                };
                write!(
                    f,
                    "protocol mismatch: the server speaks puffin_http protocol version {server}, \
                     puffin-lens reads versions {lo} to {hi}; {what} ({detail})"
                )
            }
            StreamError::Garbage { offset, detail } => write!(
                f,
                "not a puffin_http stream: at byte {offset} of the stream, {detail}"
            ),
            StreamError::TooLarge { offset, claimed } => write!(
                f,
                "at byte {offset} of the stream, a frame record claims {claimed} bytes, \
                 more than the limit of {} MB",
                MAX_RECORD_BYTES >> 20
            ),
            StreamError::Cut {
                offset,
                got,
                claimed,
            } => write!(
                f,
                "the connection ended in the middle of a frame record at byte {offset} of the \
                 stream ({got} of at least {claimed} bytes received)"
            ),
        }
    }
}

impl std::error::Error for StreamError {}

/// One message: a frame record and the protocol version it came with.
pub struct Message<'a> {
    pub version: u16,
    pub record: &'a [u8],
}

/// Frames the byte stream into messages, as bytes arrive in any pieces.
/// Buffers at most one message (plus what arrived after it).
#[derive(Default)]
pub struct MessageReader {
    buf: Vec<u8>,
    /// Start of the next message in `buf`.
    start: usize,
    /// Stream offset of `buf[0]`.
    base: u64,
    failed: Option<StreamError>,
}

impl MessageReader {
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds received bytes.
    pub fn feed(&mut self, bytes: &[u8]) {
        if self.start > 0 && self.start >= self.buf.len() / 2 {
            self.base += self.start as u64;
            self.buf.drain(..self.start);
            self.start = 0;
        }
        self.buf.extend_from_slice(bytes);
    }

    /// Bytes received so far.
    pub fn received(&self) -> u64 {
        self.base + self.buf.len() as u64
    }

    /// The next complete message, `None` until more bytes arrive. An error
    /// ends the stream: every later call returns it again.
    pub fn next_message(&mut self) -> Result<Option<Message<'_>>, StreamError> {
        if let Some(err) = &self.failed {
            return Err(err.clone());
        }
        let offset = self.base + self.start as u64;
        let data = &self.buf[self.start..];
        let Some(version) = data.get(..2) else {
            return Ok(None);
        };
        let version = u16::from_le_bytes([version[0], version[1]]);
        let extent = record_extent(&data[2..]);
        let err = match &extent {
            Extent::Complete { len, .. } if *len as u64 > MAX_RECORD_BYTES => {
                Some(StreamError::TooLarge {
                    offset,
                    claimed: *len as u64,
                })
            }
            &Extent::Partial { claimed } if claimed > MAX_RECORD_BYTES => {
                Some(StreamError::TooLarge { offset, claimed })
            }
            // Two bytes of text or noise are no protocol version.
            Extent::Invalid(_) if version > 255 => Some(StreamError::Garbage {
                offset,
                detail: format!(
                    "expected a protocol version (u16) and a frame record, found {}",
                    show_magic(&data[..data.len().min(8)])
                ),
            }),
            Extent::Invalid(detail) if !KNOWN_VERSIONS.contains(&version) => {
                Some(StreamError::Version {
                    server: version,
                    detail: format!("its message starts: {detail}"),
                })
            }
            Extent::Invalid(detail) => Some(StreamError::Garbage {
                offset,
                detail: detail.clone(),
            }),
            _ => None,
        };
        if let Some(err) = err {
            self.failed = Some(err.clone());
            return Err(err);
        }
        let Extent::Complete { len, .. } = extent else {
            return Ok(None);
        };
        let at = self.start + 2;
        self.start = at + len;
        Ok(Some(Message {
            version,
            record: &self.buf[at..at + len],
        }))
    }

    /// Call when the connection ends: an error if it ended inside a message.
    pub fn finish(&self) -> Result<(), StreamError> {
        if let Some(err) = &self.failed {
            return Err(err.clone());
        }
        let got = (self.buf.len() - self.start) as u64;
        if got == 0 {
            return Ok(());
        }
        let claimed = match record_extent(self.buf.get(self.start + 2..).unwrap_or(&[])) {
            Extent::Partial { claimed } => claimed + 2,
            _ => got,
        };
        Err(StreamError::Cut {
            offset: self.base + self.start as u64,
            got,
            claimed,
        })
    }
}

/// How much of a live recording is kept: the oldest frames are dropped
/// beyond either limit.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Retention {
    pub max_frames: usize,
    /// Received record bytes (compressed, as sent).
    pub max_mb: usize,
}

impl Default for Retention {
    /// Five minutes at 60 frames per second, at most 256 MB received.
    fn default() -> Self {
        Self {
            max_frames: 18_000,
            max_mb: 256,
        }
    }
}

impl Retention {
    fn max_bytes(self) -> usize {
        self.max_mb.saturating_mul(1 << 20)
    }
}

/// A recording that grows as frame records arrive: decoded as they come,
/// the oldest frames dropped past the [`Retention`], saved as a `.puffin`
/// file (`PUF0` + `PFD4` records, the first with every scope registration)
/// that puffin's own reader opens.
pub struct LiveRecording {
    decoder: PuffinDecoder<Vec<u8>>,
    /// Start of each kept record in the decoder's bytes, and whether it
    /// made a frame of the model (a damaged one does not).
    starts: VecDeque<(usize, bool)>,
    retention: Retention,
    /// Records received in all (kept or dropped).
    pub received_frames: u64,
    /// Records dropped by the retention or by [`Self::clear`].
    pub dropped_frames: u64,
    /// Protocol version of the last message.
    pub version: Option<u16>,
    /// Changes whenever the recording does.
    pub generation: u64,
}

impl Default for LiveRecording {
    fn default() -> Self {
        Self::new(Retention::default())
    }
}

impl LiveRecording {
    pub fn new(retention: Retention) -> Self {
        Self {
            decoder: empty_decoder(),
            starts: VecDeque::new(),
            retention,
            received_frames: 0,
            dropped_frames: 0,
            version: None,
            generation: 0,
        }
    }

    /// Frames kept.
    pub fn frames(&self) -> usize {
        self.starts.len()
    }

    /// Record bytes kept.
    pub fn kept_bytes(&self) -> usize {
        self.decoder.bytes().len() - 4
    }

    pub fn retention(&self) -> Retention {
        self.retention
    }

    pub fn set_retention(&mut self, retention: Retention) {
        self.retention = retention;
        self.enforce_retention();
    }

    /// Adds one message's frame record and decodes it.
    pub fn push(&mut self, message: &Message<'_>) {
        self.version = Some(message.version);
        let (at, frames) = (self.decoder.bytes().len(), self.decoder.frames_done());
        self.decoder.push_records(message.record);
        while self.decoder.step() {}
        self.starts
            .push_back((at, self.decoder.frames_done() > frames));
        self.received_frames += 1;
        self.generation += 1;
        self.enforce_retention();
    }

    /// Drops every frame; scope registrations are kept for the frames to come.
    pub fn clear(&mut self) {
        self.dropped_frames += self.starts.len() as u64;
        let keep = self.starts.len();
        self.drop_oldest(keep);
    }

    /// The recording as it is now.
    pub fn snapshot(&self) -> Decoded {
        self.decoder.snapshot()
    }

    /// The kept frames as a `.puffin` file.
    pub fn to_puffin(&self) -> Vec<u8> {
        let trace = self.decoder.snapshot().trace;
        let bytes = self.decoder.bytes();
        let first = self.starts.front().map_or(bytes.len(), |s| s.0);
        rebuild(&trace, &bytes[first..])
    }

    fn enforce_retention(&mut self) {
        let r = self.retention;
        if self.starts.len() <= r.max_frames.max(1) && self.kept_bytes() <= r.max_bytes() {
            return;
        }
        // Drop a tenth more than needed, so that rebuilding the model (the
        // cost of a drop) happens once per many frames, not per frame.
        let keep_frames = (r.max_frames - r.max_frames / 10).max(1);
        let keep_bytes = r.max_bytes() - r.max_bytes() / 10;
        let end = self.decoder.bytes().len();
        let mut drop = self.starts.len().saturating_sub(keep_frames);
        while drop + 1 < self.starts.len() && end - self.starts[drop].0 > keep_bytes {
            drop += 1;
        }
        self.dropped_frames += drop as u64;
        self.drop_oldest(drop);
    }

    /// Drops the oldest `n` records and their frames from the model (in
    /// place: one pass over what stays, no decoding). Scope registrations
    /// stay for the frames to come.
    fn drop_oldest(&mut self, n: usize) {
        if n == 0 {
            return;
        }
        let n = n.min(self.starts.len());
        let frames = self.starts.iter().take(n).filter(|s| s.1).count();
        let from = self
            .starts
            .get(n)
            .map_or(self.decoder.bytes().len(), |s| s.0);
        self.decoder.drop_front(from, frames);
        self.starts.drain(..n);
        let shift = from - 4;
        for s in &mut self.starts {
            s.0 -= shift;
        }
        self.generation += 1;
    }
}

fn empty_decoder() -> PuffinDecoder<Vec<u8>> {
    match PuffinDecoder::new(b"PUF0".to_vec()) {
        Ok(d) => d,
        Err(_) => unreachable!("PUF0 is a valid empty recording"),
    }
}

/// `PUF0` + `records`, the first record's registrations replaced by every
/// registration of `trace` (so frames after a dropped one keep their names).
fn rebuild(trace: &Trace, records: &[u8]) -> Vec<u8> {
    let regs = encode_registrations(trace);
    let mut out = Vec::with_capacity(records.len() + regs.len() + 32);
    out.extend_from_slice(b"PUF0");
    match record_extent(records) {
        Extent::Complete {
            len,
            registrations: Some(at),
        } => {
            out.extend_from_slice(&records[..at]);
            out.extend_from_slice(&(regs.len() as u32).to_le_bytes());
            out.extend_from_slice(&regs);
            out.extend_from_slice(&records[len..]);
        }
        _ => out.extend_from_slice(records),
    }
    out
}

/// Every registered scope of `trace`, as a PFD4 registration block.
fn encode_registrations(trace: &Trace) -> Vec<u8> {
    let defs = &trace.defs;
    let ids: Vec<_> = defs
        .registered_sorted()
        .into_iter()
        .filter(|d| matches!(defs.kind[d.idx()], ScopeKind::Named | ScopeKind::Function))
        .collect();
    let mut out = Vec::new();
    write_varint_u64(&mut out, ids.len() as u64);
    for d in ids {
        let i = d.idx();
        out.push(1);
        write_varint_u64(&mut out, u64::from(defs.raw_id[i]));
        if defs.kind[i] == ScopeKind::Named {
            out.push(1);
            write_bincode_str(&mut out, trace.str(defs.name[i]));
        } else {
            out.push(0);
        }
        write_bincode_str(&mut out, trace.str(defs.function[i]));
        write_bincode_str(&mut out, trace.str(defs.file[i]));
        write_varint_u64(&mut out, u64::from(defs.line[i]));
    }
    out
}

/// Where a connection stands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LiveStatus {
    Connecting,
    /// Connected; frames arrive as the app sends them.
    Connected,
    /// Waiting to connect again; why the last attempt or connection ended.
    Reconnecting(String),
    /// The stream cannot be read (protocol mismatch, not a puffin_http
    /// server); tried again every few seconds.
    Failed(String),
    /// Ended for good: `None` when asked to (or the server closed the
    /// stream cleanly), else why it broke.
    Ended(Option<String>),
}

impl LiveStatus {
    /// One line for a status bar.
    pub fn describe(&self) -> String {
        match self {
            LiveStatus::Connecting => "connecting".to_owned(),
            LiveStatus::Connected => "connected".to_owned(),
            LiveStatus::Reconnecting(why) => format!("reconnecting ({why})"),
            LiveStatus::Failed(why) => why.clone(),
            LiveStatus::Ended(None) => "disconnected".to_owned(),
            LiveStatus::Ended(Some(why)) => format!("disconnected: {why}"),
        }
    }
}

/// What a connection shares with whoever shows it.
pub struct LiveState {
    pub recording: LiveRecording,
    pub status: LiveStatus,
    /// Bytes read from the network, all connections together.
    pub bytes_received: u64,
    /// Connections made so far.
    pub connections: u32,
}

impl LiveStatus {
    /// `connecting|connected|reconnecting|failed|ended` and the reason, as
    /// the relay and `status()` report it.
    pub fn kind_message(&self) -> (&'static str, String) {
        match self {
            LiveStatus::Connecting => ("connecting", String::new()),
            LiveStatus::Connected => ("connected", String::new()),
            LiveStatus::Reconnecting(m) => ("reconnecting", m.clone()),
            LiveStatus::Failed(m) => ("failed", m.clone()),
            LiveStatus::Ended(m) => ("ended", m.clone().unwrap_or_default()),
        }
    }
}

impl LiveState {
    pub fn new(recording: LiveRecording) -> Self {
        Self {
            recording,
            status: LiveStatus::Connecting,
            bytes_received: 0,
            connections: 0,
        }
    }

    pub fn set_status(&mut self, status: LiveStatus) {
        if status == LiveStatus::Connected {
            self.connections += 1;
        }
        self.status = status;
    }
}

/// Locks a shared [`LiveState`], whatever a panicking holder left.
pub fn lock(state: &std::sync::Mutex<LiveState>) -> std::sync::MutexGuard<'_, LiveState> {
    state
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::write::json::export_string;
    use crate::engine::write::puffin::{Compression, Format, synthetic_capture, write_frame};

    /// Messages as puffin_http sends them: version, then one record each.
    fn stream(frames: usize, format: Format) -> (Vec<u8>, Vec<u8>) {
        let capture = synthetic_capture(frames, 2, 40);
        let (mut wire, mut file) = (Vec::new(), b"PUF0".to_vec());
        for f in &capture {
            wire.extend_from_slice(&2u16.to_le_bytes());
            write_frame(&mut wire, f, format);
            write_frame(&mut file, f, format);
        }
        (wire, file)
    }

    fn export(bytes: &[u8]) -> String {
        let decoded = crate::engine::load(bytes).expect("decodes");
        assert!(decoded.diagnostics.is_empty(), "{:?}", decoded.diagnostics);
        export_string(&decoded.trace, "x", false)
    }

    fn ingest(wire: &[u8], chunk: usize, live: &mut LiveRecording) -> MessageReader {
        let mut reader = MessageReader::new();
        for piece in wire.chunks(chunk) {
            reader.feed(piece);
            while let Some(m) = reader.next_message().expect("valid stream") {
                live.push(&m);
            }
        }
        reader
    }

    /// Saved and reopened, `live` is `kept`.
    fn assert_saved_is(live: &LiveRecording, kept: &Trace) {
        let saved = crate::engine::load(&live.to_puffin())
            .expect("decodes")
            .trace;
        assert_eq!(
            export_string(&saved, "x", false),
            export_string(kept, "x", false)
        );
    }

    #[test]
    fn any_chunking_gives_the_recording_of_the_file() {
        for format in [
            Format::Pfd4(Compression::Lz4),
            Format::Pfd4(Compression::Zstd),
            Format::Pfd3(Compression::None),
            Format::Pfd2,
            Format::Pfd1,
        ] {
            let (wire, file) = stream(12, format);
            let expected = export(&file);
            for chunk in [1, 7, 4096, wire.len()] {
                let mut live = LiveRecording::default();
                let reader = ingest(&wire, chunk, &mut live);
                reader.finish().expect("ends between messages");
                assert_eq!(live.frames(), 12);
                assert_eq!(reader.received(), wire.len() as u64);
                let snap = live.snapshot();
                assert_eq!(
                    export_string(&snap.trace, "x", false),
                    expected,
                    "{format:?}"
                );
                // Saved, it reopens as the same recording.
                assert_eq!(export(&live.to_puffin()), expected, "{format:?}");
            }
        }
    }

    #[test]
    fn retention_keeps_the_newest_frames_and_every_name() {
        let (wire, file) = stream(50, Format::Pfd4(Compression::Lz4));
        let mut live = LiveRecording::new(Retention {
            max_frames: 20,
            max_mb: 256,
        });
        ingest(&wire, 1000, &mut live);
        assert_eq!(live.received_frames, 50);
        assert!((18..=20).contains(&live.frames()), "{}", live.frames());
        assert_eq!(live.dropped_frames as usize, 50 - live.frames());
        // The kept frames are the last ones, registered as in the file
        // (only the first frame of the stream carried the registrations).
        let full = crate::engine::load(&file).expect("decodes").trace;
        let kept = live.snapshot().trace;
        let n = live.frames();
        let last: Vec<u64> = full.frames.frame_index[50 - n..].to_vec();
        assert_eq!(kept.frames.frame_index, last);
        assert!(kept.defs.has_registration());
        assert!(kept.defs.kind.iter().all(|k| k.is_registered()));
        assert_saved_is(&live, &kept);
        // Clear: no frames, the names stay for the frames to come.
        live.clear();
        assert_eq!(live.frames(), 0);
        assert!(live.snapshot().trace.frames.is_empty());
        let (more, _) = stream(3, Format::Pfd4(Compression::Lz4));
        // Frames 1 and 2 carry no registrations.
        let second = 2 + match record_extent(&more[2..]) {
            Extent::Complete { len, .. } => len,
            other => panic!("{other:?}"),
        };
        ingest(&more[second..], 64, &mut live);
        let trace = live.snapshot().trace;
        assert_eq!(trace.frames.len(), 2);
        assert!(trace.defs.kind.iter().all(|k| k.is_registered()));
    }

    #[test]
    fn a_damaged_record_counts_no_frame_when_dropped() {
        let (wire, file) = stream(10, Format::Pfd4(Compression::None));
        let mut reader = MessageReader::new();
        reader.feed(&wire);
        let mut messages = Vec::new();
        while let Some(m) = reader.next_message().expect("valid") {
            messages.push((m.version, m.record.to_vec()));
        }
        let mut live = LiveRecording::new(Retention {
            max_frames: 5,
            max_mb: 256,
        });
        for (i, (version, record)) in messages.iter().enumerate() {
            let mut record = record.clone();
            if i == 1 {
                // Framing intact, an unknown compression kind.
                let meta_len = u32::from_le_bytes([record[4], record[5], record[6], record[7]]);
                record[8 + meta_len as usize + 4] = 7;
            }
            live.push(&Message {
                version: *version,
                record: &record,
            });
        }
        let snapshot = live.snapshot();
        assert!(snapshot.is_damaged(), "the second record did not decode");
        let kept = snapshot.trace;
        let full = crate::engine::load(&file).expect("decodes").trace;
        assert_eq!(
            kept.frames.frame_index,
            full.frames.frame_index[10 - live.frames()..]
        );
        assert_saved_is(&live, &kept);
    }

    #[test]
    fn bad_streams_are_named() {
        let (wire, _) = stream(3, Format::Pfd4(Compression::None));
        // Cut in the middle of the third message.
        let mut live = LiveRecording::default();
        let reader = ingest(&wire[..wire.len() - 5], 100, &mut live);
        assert_eq!(live.frames(), 2);
        let err = reader.finish().expect_err("cut").to_string();
        assert!(
            err.contains("ended in the middle of a frame record"),
            "{err}"
        );
        // A newer protocol whose records are unknown.
        let mut reader = MessageReader::new();
        reader.feed(&[7, 0, b'P', b'F', b'D', b'9', 0, 0, 0, 0]);
        let err = reader.next_message().err().expect("error").to_string();
        assert!(
            err.contains("protocol version 7") && err.contains("1 to 2"),
            "{err}"
        );
        // A newer protocol with records we read is accepted.
        let mut reader = MessageReader::new();
        let mut v3 = wire.clone();
        v3[0] = 3;
        reader.feed(&v3);
        assert_eq!(
            reader.next_message().expect("ok").expect("whole").version,
            3
        );
        // Not puffin_http at all.
        let mut reader = MessageReader::new();
        reader.feed(b"HTTP/1.1 400 Bad Request\r\n");
        let err = reader.next_message().err().expect("error").to_string();
        assert!(err.starts_with("not a puffin_http stream"), "{err}");
        // A record claiming 4 GB: an error before any such allocation.
        let mut reader = MessageReader::new();
        reader.feed(&[2, 0, b'P', b'F', b'D', b'4', 0xff, 0xff, 0xff, 0xff]);
        let err = reader.next_message().err().expect("error").to_string();
        assert!(err.contains("more than the limit"), "{err}");
    }
}
