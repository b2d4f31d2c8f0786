//! Writes `.puffin` recordings in every container variant the decoder reads
//! (PFD1-PFD4, magic-less legacy; none/lz4/zstd), for tests, benchmarks and
//! the bundled example. Native only (zstd compression).
//!
//! The layout mirrors [`crate::engine::read::puffin`]; streams, metadata and thread order
//! are produced the way puffin produces them.

use crate::engine::read::bytes::{write_bincode_str, write_varint_i64, write_varint_u64};

/// One scope instance to write.
#[derive(Clone, Debug, Default)]
pub struct ScopeNode {
    /// Scope id (PFD4 layout).
    pub id: u32,
    /// Inline name (legacy layout).
    pub name: String,
    /// Inline location, e.g. `src/main.rs:12` (legacy layout).
    pub location: String,
    pub start_ns: i64,
    pub stop_ns: i64,
    pub data: String,
    pub children: Vec<ScopeNode>,
    /// Write the "never closed" marker instead of a size and an end.
    pub unclosed: bool,
}

impl ScopeNode {
    pub fn new(id: u32, start_ns: i64, stop_ns: i64) -> Self {
        Self {
            id,
            start_ns,
            stop_ns,
            ..Default::default()
        }
    }

    pub fn data(mut self, data: &str) -> Self {
        self.data = data.to_owned();
        self
    }

    pub fn named(mut self, name: &str, location: &str) -> Self {
        self.name = name.to_owned();
        self.location = location.to_owned();
        self
    }

    pub fn child(mut self, child: ScopeNode) -> Self {
        self.children.push(child);
        self
    }
}

/// One thread's stream in a frame.
#[derive(Clone, Debug, Default)]
pub struct ThreadData {
    pub name: String,
    pub start_time_ns: Option<i64>,
    pub scopes: Vec<ScopeNode>,
}

/// A scope registration (PFD4).
#[derive(Clone, Debug, Default)]
pub struct Registration {
    pub id: Option<u32>,
    pub scope_name: Option<String>,
    pub function: String,
    pub file: String,
    pub line: u32,
}

impl Registration {
    pub fn named(id: u32, name: &str, function: &str, file: &str, line: u32) -> Self {
        Self {
            id: Some(id),
            scope_name: Some(name.to_owned()),
            function: function.to_owned(),
            file: file.to_owned(),
            line,
        }
    }

    pub fn function(id: u32, function: &str, file: &str, line: u32) -> Self {
        Self {
            id: Some(id),
            scope_name: None,
            function: function.to_owned(),
            file: file.to_owned(),
            line,
        }
    }
}

/// One frame to write.
#[derive(Clone, Debug, Default)]
pub struct FrameData {
    pub frame_index: u64,
    pub threads: Vec<ThreadData>,
    /// Registrations first seen in this frame (PFD4 only).
    pub registrations: Vec<Registration>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Compression {
    None,
    Lz4,
    Zstd,
}

/// Container variant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Pfd4(Compression),
    Pfd3(Compression),
    /// Always zstd.
    Pfd2,
    /// zstd of a legacy frame.
    Pfd1,
    /// Magic-less uncompressed legacy record.
    Legacy,
}

impl Format {
    fn legacy_streams(self) -> bool {
        !matches!(self, Format::Pfd4(_))
    }
}

/// Stream metadata, computed as puffin does.
struct StreamMeta {
    num_scopes: u64,
    depth: u64,
    range_ns: (i64, i64),
}

fn short_str(out: &mut Vec<u8>, s: &str) {
    let mut len = s.len().min(127);
    while !s.is_char_boundary(len) {
        len -= 1;
    }
    out.push(len as u8);
    out.extend_from_slice(&s.as_bytes()[..len]);
}

fn write_scope(
    out: &mut Vec<u8>,
    node: &ScopeNode,
    legacy: bool,
    depth: u64,
    meta: &mut StreamMeta,
) {
    meta.num_scopes += 1;
    meta.depth = meta.depth.max(depth);
    out.push(b'(');
    if legacy {
        out.extend_from_slice(&node.start_ns.to_le_bytes());
        short_str(out, &node.name);
        short_str(out, &node.location);
        short_str(out, &node.data);
    } else {
        out.extend_from_slice(&node.id.to_le_bytes());
        out.extend_from_slice(&node.start_ns.to_le_bytes());
        short_str(out, &node.data);
    }
    if node.unclosed {
        out.extend_from_slice(&u64::MAX.to_le_bytes());
        return;
    }
    let size_at = out.len();
    out.extend_from_slice(&0u64.to_le_bytes());
    for child in &node.children {
        write_scope(out, child, legacy, depth + 1, meta);
    }
    let size = (out.len() - size_at - 8) as u64;
    out[size_at..size_at + 8].copy_from_slice(&size.to_le_bytes());
    out.push(b')');
    out.extend_from_slice(&node.stop_ns.to_le_bytes());
}

/// Encodes one thread's stream and its metadata.
fn encode_stream(thread: &ThreadData, legacy: bool) -> (Vec<u8>, StreamMeta) {
    let mut out = Vec::new();
    let mut meta = StreamMeta {
        num_scopes: 0,
        depth: 0,
        range_ns: (i64::MAX, i64::MIN),
    };
    for scope in &thread.scopes {
        write_scope(&mut out, scope, legacy, 1, &mut meta);
    }
    if let (Some(first), Some(last)) = (thread.scopes.first(), thread.scopes.last()) {
        meta.range_ns = (first.start_ns, last.stop_ns);
    }
    (out, meta)
}

/// bincode `BTreeMap<ThreadInfo, StreamInfo>`; returns (bytes, frame range, num_bytes, num_scopes).
fn encode_streams(frame: &FrameData, legacy: bool) -> (Vec<u8>, (i64, i64), u64, u64) {
    let mut threads: Vec<&ThreadData> = frame.threads.iter().collect();
    // BTreeMap order: start time (None first), then name.
    threads.sort_by(|a, b| (a.start_time_ns, &a.name).cmp(&(b.start_time_ns, &b.name)));
    let mut out = Vec::new();
    write_varint_u64(&mut out, threads.len() as u64);
    let mut range = (i64::MAX, i64::MIN);
    let (mut num_bytes, mut num_scopes) = (0u64, 0u64);
    for thread in threads {
        match thread.start_time_ns {
            Some(t) => {
                out.push(1);
                write_varint_i64(&mut out, t);
            }
            None => out.push(0),
        }
        write_bincode_str(&mut out, &thread.name);
        let (stream, meta) = encode_stream(thread, legacy);
        write_varint_u64(&mut out, stream.len() as u64);
        out.extend_from_slice(&stream);
        write_varint_u64(&mut out, meta.num_scopes);
        write_varint_u64(&mut out, meta.depth);
        write_varint_i64(&mut out, meta.range_ns.0);
        write_varint_i64(&mut out, meta.range_ns.1);
        range.0 = range.0.min(meta.range_ns.0);
        range.1 = range.1.max(meta.range_ns.1);
        num_bytes += stream.len() as u64;
        num_scopes += meta.num_scopes;
    }
    (out, range, num_bytes, num_scopes)
}

fn compress(bytes: &[u8], compression: Compression) -> (u8, Vec<u8>) {
    match compression {
        Compression::None => (0, bytes.to_vec()),
        Compression::Lz4 => (1, lz4_flex::compress_prepend_size(bytes)),
        Compression::Zstd => (2, zstd_encode(bytes)),
    }
}

fn zstd_encode(bytes: &[u8]) -> Vec<u8> {
    // Writing to memory cannot fail.
    zstd::encode_all(bytes, 3).unwrap_or_default()
}

fn u32_len(out: &mut Vec<u8>, len: usize) {
    out.extend_from_slice(&(len as u32).to_le_bytes());
}

/// Appends one frame record.
pub fn write_frame(out: &mut Vec<u8>, frame: &FrameData, format: Format) {
    let (streams, range, num_bytes, num_scopes) = encode_streams(frame, format.legacy_streams());
    let mut meta = Vec::new();
    write_varint_u64(&mut meta, frame.frame_index);
    write_varint_i64(&mut meta, range.0);
    write_varint_i64(&mut meta, range.1);
    write_varint_u64(&mut meta, num_bytes);
    write_varint_u64(&mut meta, num_scopes);
    match format {
        Format::Pfd4(c) | Format::Pfd3(c) => {
            out.extend_from_slice(if matches!(format, Format::Pfd4(_)) {
                b"PFD4"
            } else {
                b"PFD3"
            });
            u32_len(out, meta.len());
            out.extend_from_slice(&meta);
            let (kind, packed) = compress(&streams, c);
            u32_len(out, packed.len());
            out.push(kind);
            out.extend_from_slice(&packed);
            if matches!(format, Format::Pfd4(_)) {
                let regs = encode_registrations(&frame.registrations);
                u32_len(out, regs.len());
                out.extend_from_slice(&regs);
            }
        }
        Format::Pfd2 => {
            out.extend_from_slice(b"PFD2");
            u32_len(out, meta.len());
            out.extend_from_slice(&meta);
            let packed = zstd_encode(&streams);
            u32_len(out, packed.len());
            out.extend_from_slice(&packed);
        }
        Format::Pfd1 | Format::Legacy => {
            // LegacyFrameData: frame_index, streams, range, num_bytes, num_scopes.
            let mut legacy = Vec::new();
            write_varint_u64(&mut legacy, frame.frame_index);
            legacy.extend_from_slice(&streams);
            write_varint_i64(&mut legacy, range.0);
            write_varint_i64(&mut legacy, range.1);
            write_varint_u64(&mut legacy, num_bytes);
            write_varint_u64(&mut legacy, num_scopes);
            if format == Format::Pfd1 {
                out.extend_from_slice(b"PFD1");
                let packed = zstd_encode(&legacy);
                u32_len(out, packed.len());
                out.extend_from_slice(&packed);
            } else {
                u32_len(out, legacy.len());
                out.extend_from_slice(&legacy);
            }
        }
    }
}

/// bincode `Vec<ScopeDetails>`.
pub fn encode_registrations(regs: &[Registration]) -> Vec<u8> {
    let mut out = Vec::new();
    write_varint_u64(&mut out, regs.len() as u64);
    for reg in regs {
        match reg.id {
            Some(id) => {
                out.push(1);
                write_varint_u64(&mut out, u64::from(id));
            }
            None => out.push(0),
        }
        match &reg.scope_name {
            Some(name) => {
                out.push(1);
                write_bincode_str(&mut out, name);
            }
            None => out.push(0),
        }
        write_bincode_str(&mut out, &reg.function);
        write_bincode_str(&mut out, &reg.file);
        write_varint_u64(&mut out, u64::from(reg.line));
    }
    out
}

/// A whole recording: `PUF0`, the frames, no sentinel.
pub fn write_recording(frames: &[FrameData], format: Format) -> Vec<u8> {
    let mut out = b"PUF0".to_vec();
    for frame in frames {
        write_frame(&mut out, frame, format);
    }
    out
}

/// A synthetic capture for examples and benchmarks: `frames` frames with a
/// main thread and `workers` worker threads, about `scopes_per_frame` scope
/// instances per frame, nested, with per-call data strings. Deterministic.
pub fn synthetic_capture(frames: usize, workers: usize, scopes_per_frame: usize) -> Vec<FrameData> {
    let regs = vec![
        Registration::named(1, "frame", "app::run", "src/app.rs", 10),
        Registration::function(2, "app::update", "src/app.rs", 40),
        Registration::named(3, "job", "app::worker", "src/worker.rs", 22),
        Registration::function(4, "app::physics::step", "src/physics.rs", 7),
        Registration::named(5, "load_mesh", "app::assets::load", "src/assets.rs", 91),
        Registration::function(6, "app::render", "src/render.rs", 15),
    ];
    let mut rng: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = move || {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        rng
    };
    let threads_total = workers + 1;
    let per_thread = (scopes_per_frame / threads_total).max(4);
    let mut t = 1_700_000_000_000_000_000i64;
    let mut out = Vec::with_capacity(frames);
    for f in 0..frames {
        let frame_start = t;
        let mut threads = Vec::new();
        for w in 0..threads_total {
            let mut cursor = frame_start + 1_000 * w as i64;
            let mut scopes = Vec::new();
            let mut made = 0;
            // Top-level scopes each holding a small tree: 1 + k + k*2 scopes.
            while made < per_thread {
                let k = (next() % 4 + 1) as usize;
                let top_start = cursor;
                let mut top = ScopeNode::new(if w == 0 { 1 } else { 3 }, top_start, 0)
                    .data(&format!("item {}", next() % 500));
                let mut c = top_start + 50;
                for _ in 0..k {
                    let dur = (next() % 20_000 + 500) as i64;
                    let mut child = ScopeNode::new(2 + (next() % 2) as u32 * 2, c, c + dur);
                    if next() % 3 == 0 {
                        child.data = format!("mesh_{}.glb", next() % 64);
                    }
                    let mut g = c + 10;
                    for _ in 0..2 {
                        let gd = (next() % (dur as u64 / 3).max(1)) as i64;
                        child
                            .children
                            .push(ScopeNode::new(5 + (next() % 2) as u32, g, g + gd));
                        g += gd + 5;
                    }
                    c += dur + (next() % 300) as i64;
                    top.children.push(child);
                }
                top.stop_ns = c + 100;
                made += 1 + 3 * k;
                cursor = top.stop_ns + (next() % 2_000) as i64;
                scopes.push(top);
            }
            threads.push(ThreadData {
                name: if w == 0 {
                    "main".to_owned()
                } else {
                    format!("worker-{w}")
                },
                start_time_ns: Some(w as i64),
                scopes,
            });
        }
        let frame_end = threads
            .iter()
            .filter_map(|t| t.scopes.last().map(|s| s.stop_ns))
            .max()
            .unwrap_or(frame_start);
        t = frame_end + 100_000;
        out.push(FrameData {
            frame_index: f as u64,
            threads,
            registrations: if f == 0 { regs.clone() } else { Vec::new() },
        });
    }
    out
}

/// The worst case a real app's capture makes (issue 21): `frames` frames of
/// `per_frame` scopes on one thread, each opened under the innermost
/// still-open scope after closing a random number of them (depth at most
/// 24), named at random among `names`, with a unique data string on nine in
/// ten (`profile_scope!("load", path)`): call paths rarely repeat and
/// (name, data) pairs almost never. Deterministic for a `seed`.
pub fn worst_case_capture(frames: u64, per_frame: usize, names: u32, seed: u64) -> Vec<FrameData> {
    let mut state: u64 = 0x9E37_79B9_7F4A_7C15 ^ seed.wrapping_mul(0x2545_F491_4F6C_DD1D);
    let mut next = move |n: u64| {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (state >> 33) % n.max(1)
    };
    let regs: Vec<Registration> = (1..=names)
        .map(|id| Registration::named(id, &format!("fn_{id}"), "bench::f", "src/bench.rs", id))
        .collect();
    let mut serial = 0u64;
    (0..frames)
        .map(|f| {
            let t0 = 1_700_000_000_000_000_000 + f as i64 * 100_000_000;
            let mut t = t0;
            let mut stack: Vec<ScopeNode> = vec![ScopeNode::new(1, t0, t0)];
            let close = |stack: &mut Vec<ScopeNode>, t: i64| {
                let mut done = stack.pop().expect("open");
                done.stop_ns = t;
                stack.last_mut().expect("the root").children.push(done);
            };
            for _ in 0..per_frame {
                let k = (next(stack.len() as u64) as usize).min(stack.len() - 1);
                for _ in 0..k {
                    close(&mut stack, t);
                }
                if stack.len() >= 24 {
                    close(&mut stack, t);
                }
                t += 1_000;
                let mut scope = ScopeNode::new(1 + next(u64::from(names)) as u32, t, t);
                if next(10) != 0 {
                    serial += 1;
                    scope.data = format!("assets/mesh_{serial}.glb");
                }
                stack.push(scope);
            }
            while stack.len() > 1 {
                t += 1_000;
                close(&mut stack, t);
            }
            let mut root = stack.pop().expect("the root");
            root.stop_ns = t + 1_000;
            FrameData {
                frame_index: f,
                threads: vec![ThreadData {
                    name: "main".into(),
                    start_time_ns: Some(0),
                    scopes: vec![root],
                }],
                registrations: if f == 0 { regs.clone() } else { Vec::new() },
            }
        })
        .collect()
}
