//! Reading a recording from disk for the CLI: the file is mapped, not read
//! into memory, and the pages the decode has gone past are handed back to
//! the system as it goes, so a command's peak memory is the model's, not the
//! model's and the file's (a 350 MB file of 20M scopes: 17 bytes a scope
//! less). Where a file cannot be mapped (a pipe, an empty file, not Unix)
//! it is read whole.

use anyhow::Context as _;
use puffin_lens::engine::{self, Decoded, LoadError};
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Decodes the recording at `path`. The outer error: the file could not be
/// read (its message names what failed); the inner one: what it holds is
/// not a recording.
pub(crate) fn decode(path: &Path) -> anyhow::Result<Result<Decoded, LoadError>> {
    let file = std::fs::File::open(path).context("cannot read")?;
    match map(&file) {
        Some(map) => Ok(decode_mapped(&map)),
        None => {
            let bytes = std::fs::read(path).context("cannot read")?;
            Ok(engine::load(&bytes))
        }
    }
}

#[cfg(unix)]
#[allow(unsafe_code)]
fn map(file: &std::fs::File) -> Option<memmap2::Mmap> {
    let meta = file.metadata().ok()?;
    if !meta.is_file() || meta.len() == 0 {
        return None;
    }
    // SAFETY: the map is read-only and only read while the file stays as it
    // is; a file cut shorter while it is decoded (by another program) ends
    // the process with SIGBUS, as for any program that maps its input.
    let map = unsafe { memmap2::Mmap::map(file) }.ok()?;
    let _ = map.advise(memmap2::Advice::Sequential);
    Some(map)
}

#[cfg(not(unix))]
fn map(_file: &std::fs::File) -> Option<memmap2::Mmap> {
    None
}

/// Decodes mapped bytes, handing back each stretch of pages once the
/// decode has gone past it.
fn decode_mapped(map: &memmap2::Mmap) -> Result<Decoded, LoadError> {
    /// Pages are handed back in stretches of this many bytes (a multiple of
    /// the page size).
    const STRETCH: usize = 4 << 20;
    let released = AtomicUsize::new(0);
    engine::read::load_with_progress(map, |done| {
        let from = released.load(Ordering::Relaxed);
        let to = done / STRETCH * STRETCH;
        if to > from {
            release(map, from, to - from);
            released.store(to, Ordering::Relaxed);
        }
    })
}

#[cfg(unix)]
#[allow(unsafe_code)]
fn release(map: &memmap2::Mmap, from: usize, len: usize) {
    // SAFETY: MADV_DONTNEED on a read-only shared file mapping drops the
    // pages from memory; read again, they come back from the file with the
    // same bytes. The decode does not read before `done` again anyway.
    let _ = unsafe { map.unchecked_advise_range(memmap2::UncheckedAdvice::DontNeed, from, len) };
}

#[cfg(not(unix))]
fn release(_map: &memmap2::Mmap, _from: usize, _len: usize) {}
