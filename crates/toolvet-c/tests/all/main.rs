//! libtoolvet's Rust-side tests, one binary (each test binary links the
//! whole host): the header against cbindgen, and the JSON boundary's
//! property on its committed seeds.

// The tests call the C ABI as a C program does: through raw pointers.
#![expect(
    unsafe_code,
    reason = "the tests drive libtoolvet's extern \"C\" functions"
)]

mod header;
mod json_boundary;
mod json_boundary_property;
