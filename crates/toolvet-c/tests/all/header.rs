//! `include/toolvet.h` is what cbindgen makes of `src/` now: a change to
//! the ABI that did not regenerate the header fails here. Regenerate with
//! `TOOLVET_BLESS=1 cargo test -p toolvet-c --test all`.

use std::path::Path;

#[test]
fn the_header_is_what_cbindgen_makes_of_the_source() {
    let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let config = cbindgen::Config::from_file(crate_dir.join("cbindgen.toml")).unwrap();
    let mut made = Vec::new();
    cbindgen::Builder::new()
        .with_crate(crate_dir)
        .with_config(config)
        .generate()
        .unwrap()
        .write(&mut made);
    let made = String::from_utf8(made).unwrap();
    let path = crate_dir.join("include/toolvet.h");
    if std::env::var_os("TOOLVET_BLESS").is_some() {
        std::fs::write(&path, &made).unwrap();
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == made,
        "{} is not what cbindgen makes of src/: regenerate it with \
         `TOOLVET_BLESS=1 cargo test -p toolvet-c --test all`",
        path.display()
    );
}
