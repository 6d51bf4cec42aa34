//! libFuzzer driver of `toolvet_fuzz_targets::result_json`, where the property is
//! documented (tests/corpus.rs there replays this target's corpus in CI).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| toolvet_fuzz_targets::result_json::run(data));
