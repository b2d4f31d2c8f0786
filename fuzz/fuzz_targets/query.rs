//! The query API (`puffinLens.query`) with arbitrary names and arguments.
#![no_main]
use std::sync::LazyLock;

static TRACE: LazyLock<puffin_lens::engine::Trace> = LazyLock::new(|| {
    let bytes = include_bytes!("../../samples/threads_demo.puffin");
    puffin_lens::engine::load(bytes).expect("the sample decodes").trace
});

libfuzzer_sys::fuzz_target!(|data: &[u8]| puffin_lens::engine::invariants::query(&TRACE, data));
