//! The `.puffin` decoder, single-thread and parallel, on arbitrary bytes.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| puffin_lens::engine::invariants::puffin_bytes(data));
