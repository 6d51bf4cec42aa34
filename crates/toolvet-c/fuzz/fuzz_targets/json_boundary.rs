//! libFuzzer driver of libtoolvet's JSON boundary: the property is
//! `tests/all/json_boundary_property.rs`, shared with the seed replay there.
#![no_main]

#[path = "../../tests/all/json_boundary_property.rs"]
mod property;

libfuzzer_sys::fuzz_target!(|data: &[u8]| property::run(data));
