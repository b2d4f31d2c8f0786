//! A live puffin_http stream in arbitrary pieces.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| puffin_lens::engine::invariants::live_stream(data));
