//! The JSON dump reader on arbitrary bytes.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| puffin_lens::engine::invariants::json_bytes(data));
