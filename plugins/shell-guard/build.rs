//! Give the WebAssembly component a larger stack than the 1 MiB default.
//!
//! The shell parser (brush-parser) is recursive descent. `src/syntax.rs`
//! bounds the nesting it can be handed, and the analysis bounds its own
//! recursion, but the bounds are chosen for an 8 MiB stack; the pages are
//! only touched when used, so ordinary calls pay nothing for it.

fn main() {
    let target = std::env::var("TARGET").unwrap_or_default();
    if target.starts_with("wasm32") {
        println!("cargo:rustc-link-arg-cdylib=-zstack-size=8388608");
    }
    println!("cargo:rerun-if-changed=build.rs");
}
