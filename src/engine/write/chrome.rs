//! Exports for other viewers, written as they go (no document in memory):
//!
//! - [`write_chrome`]: the Trace Event Format's JSON object form, which
//!   Perfetto UI, chrome://tracing and the Firefox Profiler open: every scope
//!   instance one complete event (`"ph": "X"`), thread names and their order
//!   as metadata events, each frame's start as a global instant event;
//! - [`write_speedscope`]: speedscope's own file format: shared frames (one
//!   per scope definition: name, file, line) and one evented profile per
//!   thread lane (open/close events in nanoseconds).
//!
//! A lane is a thread of the model, or, where a frame has several streams of
//! the same thread (unnamed workers), each of them: `tid` 1, 2, … in order
//! of first appearance. Times are relative to the recording's first frame
//! start (kept exactly in `otherData.start_ns`, a string): microseconds with
//! the nanoseconds as decimals for Chrome, nanoseconds for speedscope.

use crate::engine::model::{ScopeIdx, StreamId, ThreadId, Trace};
use crate::units::thread_label;
use std::io::{self, Write};

/// The lane of every stream, and each lane's (thread, k-th same-thread
/// stream of a frame), in order of first appearance.
pub fn lanes(trace: &Trace) -> (Vec<u32>, Vec<(ThreadId, u32)>) {
    let mut lane_of = Vec::with_capacity(trace.streams.len());
    let mut lanes: Vec<(ThreadId, u32)> = Vec::new();
    let mut index: rustc_hash::FxHashMap<(ThreadId, u32), u32> = Default::default();
    let mut in_frame: rustc_hash::FxHashMap<ThreadId, u32> = Default::default();
    let mut frame = None;
    for s in 0..trace.streams.len() {
        if frame != Some(trace.streams.frame[s]) {
            frame = Some(trace.streams.frame[s]);
            in_frame.clear();
        }
        let t = trace.streams.thread[s];
        let k = in_frame.entry(t).or_insert(0);
        let key = (t, *k);
        *k += 1;
        let lane = *index.entry(key).or_insert_with(|| {
            lanes.push(key);
            lanes.len() as u32 - 1
        });
        lane_of.push(lane);
    }
    (lane_of, lanes)
}

/// A lane's name: the thread's (`(unnamed)` for none), `#k` for the k-th
/// same-named stream of a frame after the first.
pub fn lane_name(trace: &Trace, (t, k): (ThreadId, u32)) -> String {
    let name = thread_label(trace.thread_name(t));
    if k == 0 {
        name.to_owned()
    } else {
        format!("{name} #{}", k + 1)
    }
}

/// The recording's first frame start (the zero of the exported times).
pub fn origin_ns(trace: &Trace) -> i64 {
    trace.frames.range_ns.iter().map(|r| r.0).min().unwrap_or(0)
}

fn json_str(w: &mut impl Write, s: &str) -> io::Result<()> {
    serde_json::to_writer(&mut *w, s).map_err(io::Error::other)
}

/// Nanoseconds as microseconds with three decimals, exactly.
fn micros(w: &mut impl Write, ns: i64) -> io::Result<()> {
    let sign = if ns < 0 { "-" } else { "" };
    let a = ns.unsigned_abs();
    write!(w, "{sign}{}.{:03}", a / 1000, a % 1000)
}

/// The Trace Event Format export of `trace` (named `file`).
pub fn write_chrome(trace: &Trace, file: &str, mut w: impl Write) -> io::Result<()> {
    let origin = origin_ns(trace);
    let (lane_of, lanes) = lanes(trace);
    let s = &trace.scopes;
    w.write_all(b"{\"traceEvents\":[\n")?;
    let mut first = true;
    let mut sep = |w: &mut dyn Write| -> io::Result<()> {
        if !std::mem::take(&mut first) {
            w.write_all(b",\n")?;
        }
        Ok(())
    };
    for (k, &lane) in lanes.iter().enumerate() {
        let tid = k + 1;
        sep(&mut w)?;
        write!(
            w,
            "{{\"ph\":\"M\",\"pid\":1,\"tid\":{tid},\"name\":\"thread_name\",\"args\":{{\"name\":"
        )?;
        json_str(&mut w, &lane_name(trace, lane))?;
        w.write_all(b"}}")?;
        sep(&mut w)?;
        write!(
            w,
            "{{\"ph\":\"M\",\"pid\":1,\"tid\":{tid},\"name\":\"thread_sort_index\",\"args\":{{\"sort_index\":{k}}}}}"
        )?;
    }
    for f in trace.frames.ids() {
        sep(&mut w)?;
        write!(
            w,
            "{{\"ph\":\"i\",\"s\":\"g\",\"pid\":1,\"tid\":1,\"name\":\"frame {}\",\"ts\":",
            trace.frames.frame_index[f.idx()]
        )?;
        micros(&mut w, trace.frames.range_ns[f.idx()].0 - origin)?;
        w.write_all(b"}")?;
        for st in trace.frames.streams(f) {
            let tid = lane_of[st as usize] + 1;
            for i in trace.streams.scopes(StreamId(st)) {
                let iu = i as usize;
                let def = s.def[iu].idx();
                sep(&mut w)?;
                write!(w, "{{\"ph\":\"X\",\"pid\":1,\"tid\":{tid},\"name\":")?;
                json_str(&mut w, trace.scope_name(ScopeIdx(i)))?;
                write!(w, ",\"cat\":\"{}\",\"ts\":", trace.defs.kind[def].as_str())?;
                micros(&mut w, s.start_ns[iu] - origin)?;
                w.write_all(b",\"dur\":")?;
                micros(&mut w, s.duration_ns[iu].max(0))?;
                w.write_all(b",\"args\":{\"data\":")?;
                json_str(&mut w, trace.scope_data(ScopeIdx(i)))?;
                w.write_all(b",\"file\":")?;
                json_str(&mut w, trace.str(trace.defs.file[def]))?;
                write!(
                    w,
                    ",\"line\":{},\"frame_index\":{}}}}}",
                    trace.defs.line[def],
                    trace.frames.frame_index[f.idx()]
                )?;
            }
        }
    }
    w.write_all(b"\n],\"displayTimeUnit\":\"ns\",\"otherData\":{\"exporter\":")?;
    json_str(
        &mut w,
        &format!("puffin-lens {}", env!("CARGO_PKG_VERSION")),
    )?;
    w.write_all(b",\"file\":")?;
    json_str(&mut w, file)?;
    writeln!(w, ",\"start_ns\":\"{origin}\"}}}}")?;
    w.flush()
}

/// speedscope's file format: an evented profile per lane.
pub fn write_speedscope(trace: &Trace, file: &str, mut w: impl Write) -> io::Result<()> {
    let origin = origin_ns(trace);
    let (lane_of, lanes) = lanes(trace);
    let s = &trace.scopes;
    w.write_all(
        b"{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\"shared\":{\"frames\":[",
    )?;
    for d in 0..trace.defs.len() {
        if d > 0 {
            w.write_all(b",")?;
        }
        w.write_all(b"{\"name\":")?;
        json_str(&mut w, trace.str(trace.defs.name[d]))?;
        let file_path = trace.str(trace.defs.file[d]);
        if !file_path.is_empty() {
            w.write_all(b",\"file\":")?;
            json_str(&mut w, file_path)?;
        }
        if trace.defs.line[d] > 0 {
            write!(w, ",\"line\":{}", trace.defs.line[d])?;
        }
        w.write_all(b"}")?;
    }
    w.write_all(b"]},\"profiles\":[")?;
    // Each lane's streams, in file order.
    let mut streams_of: Vec<Vec<u32>> = vec![Vec::new(); lanes.len()];
    for (st, &lane) in lane_of.iter().enumerate() {
        streams_of[lane as usize].push(st as u32);
    }
    let end = trace
        .frames
        .range_ns
        .iter()
        .map(|r| r.1)
        .max()
        .unwrap_or(origin)
        - origin;
    for (k, &lane) in lanes.iter().enumerate() {
        if k > 0 {
            w.write_all(b",")?;
        }
        w.write_all(b"{\"type\":\"evented\",\"name\":")?;
        json_str(&mut w, &lane_name(trace, lane))?;
        write!(
            w,
            ",\"unit\":\"nanoseconds\",\"startValue\":0,\"endValue\":{},\"events\":[",
            end.max(0)
        )?;
        let mut first = true;
        let mut event = |w: &mut dyn Write, kind: char, def: usize, at: i64| -> io::Result<()> {
            if !std::mem::take(&mut first) {
                w.write_all(b",")?;
            }
            write!(w, "{{\"type\":\"{kind}\",\"frame\":{def},\"at\":{at}}}")
        };
        // Open and close in order: a stack of (def, end); a child is clamped
        // into its parent, and a later scope never starts before an earlier
        // one closed (the events stay sorted and nested).
        let mut open: Vec<(usize, i64)> = Vec::new();
        let mut last = 0i64;
        for &st in &streams_of[k] {
            for i in trace.streams.scopes(StreamId(st)) {
                let iu = i as usize;
                let parent_end = open.last().map_or(i64::MAX, |o| o.1);
                let start = (s.start_ns[iu] - origin).max(last);
                // Close what ended before this starts (or is not its parent).
                while let Some(&(def, e)) = open.last() {
                    let is_parent = s.parent[iu] != crate::engine::model::NO_PARENT
                        && open.len() as u32 == s.depth[iu]
                        && e >= start;
                    if is_parent {
                        break;
                    }
                    open.pop();
                    event(&mut w, 'C', def, e.max(last))?;
                    last = e.max(last);
                }
                let start = start.max(last);
                let end = (s.start_ns[iu] + s.duration_ns[iu].max(0) - origin)
                    .min(parent_end)
                    .max(start);
                let def = s.def[iu].idx();
                event(&mut w, 'O', def, start)?;
                last = start;
                open.push((def, end));
            }
            while let Some((def, e)) = open.pop() {
                event(&mut w, 'C', def, e.max(last))?;
                last = e.max(last);
            }
        }
        w.write_all(b"]}")?;
    }
    w.write_all(b"],\"name\":")?;
    json_str(&mut w, file)?;
    w.write_all(b",\"activeProfileIndex\":0,\"exporter\":")?;
    json_str(
        &mut w,
        &format!("puffin-lens {}", env!("CARGO_PKG_VERSION")),
    )?;
    w.write_all(b"}\n")?;
    w.flush()
}
