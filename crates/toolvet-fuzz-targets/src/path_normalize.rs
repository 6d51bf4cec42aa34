//! path-guard's lexical normaliser on arbitrary (path, cwd, home) triples,
//! separated by newlines: never panics; every result is a clean absolute
//! path that normalises to itself; a relative path without `..` never
//! leaves the working directory; `clean_lexically` is idempotent.

use path_guard::{clean_lexically, is_within, normalize};

fn is_clean_absolute(p: &str) -> bool {
    p.starts_with('/')
        && (p == "/" || !p.ends_with('/'))
        && !p[1..]
            .split('/')
            .any(|s| s.is_empty() && p != "/" || s == "." || s == "..")
}

/// The property, on one input (any bytes).
pub fn run(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let mut parts = text.splitn(3, '\n');
    let path = parts.next().unwrap_or("");
    // `normalize` refuses a NUL in the path but not in `cwd` or `home`, and
    // carries it into the result (reported; the host's call validation
    // does not strip NUL from attributes). Kept out here so the properties
    // below stay about the cleaning itself.
    let cwd = parts.next().filter(|c| !c.contains('\0'));
    let home = parts.next().filter(|h| !h.contains('\0'));

    let cleaned = clean_lexically(path);
    assert_eq!(
        clean_lexically(&cleaned),
        cleaned,
        "clean_lexically({path:?})"
    );

    let Ok(p) = normalize(path, cwd, home) else {
        return;
    };
    assert!(
        is_clean_absolute(&p),
        "normalize({path:?}, {cwd:?}, {home:?}) = {p:?}"
    );
    assert_eq!(
        normalize(&p, None, None).as_deref(),
        Ok(p.as_str()),
        "idempotent: {p:?}"
    );

    // `file:` followed by `/` is an absolute path in any spelling
    // (`file:/p`, `file:///p`, `file://localhost/p`; review s23 R10).
    let plain_relative = !path.starts_with('/')
        && !path.starts_with('~')
        && !path.to_ascii_lowercase().starts_with("file:/")
        && !path.split('/').any(|s| s == "..");
    if plain_relative && let Some(cwd) = cwd.filter(|c| c.starts_with('/')) {
        let root = normalize(cwd, None, None).expect("an absolute cwd normalises");
        assert!(is_within(&p, &root), "{path:?} in {cwd:?} escaped to {p:?}");
    }
}
