//! `toolvet new NAME`: scaffold a Rust check that builds and passes its own
//! case file out of the box.

use anyhow::{Context as _, bail};
use std::path::{Path, PathBuf};

const CARGO_TOML: &str = include_str!("../template/Cargo.toml.tmpl");
const LIB_RS: &str = include_str!("../template/src/lib.rs.tmpl");
const CASES_YAML: &str = include_str!("../template/cases.yaml.tmpl");

/// The plugin kit next to this CLI's sources, used when `--pdk` is not given.
fn default_pdk_path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../toolvet-pdk")
}

/// Create `<dir>/<name>/` with `Cargo.toml`, `src/lib.rs` and `cases.yaml`.
///
/// # Errors
/// A name that is not lowercase letters, digits and `-` (starting with a
/// letter), an existing destination, a missing plugin kit, or I/O errors.
pub fn new_check(name: &str, dir: &Path, pdk: Option<&Path>) -> anyhow::Result<PathBuf> {
    let valid = name.starts_with(|c: char| c.is_ascii_lowercase())
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-');
    if !valid {
        bail!("check name `{name}`: use lowercase letters, digits and `-`, starting with a letter");
    }
    let dest = dir.join(name);
    if dest.exists() {
        bail!("{}: already exists", dest.display());
    }
    let pdk = pdk.map(Path::to_path_buf).unwrap_or_else(default_pdk_path);
    let pdk = pdk.canonicalize().with_context(|| {
        format!(
            "plugin kit not found at {} (pass --pdk PATH to crates/toolvet-pdk)",
            pdk.display()
        )
    })?;
    let type_name: String = name
        .split('-')
        .map(|part| {
            let mut chars = part.chars();
            match chars.next() {
                Some(first) => first.to_ascii_uppercase().to_string() + chars.as_str(),
                None => String::new(),
            }
        })
        .collect();
    let fill = |template: &str| {
        template
            .replace("{{name}}", name)
            .replace("{{type_name}}", &type_name)
            .replace("{{crate_file}}", &name.replace('-', "_"))
            .replace("{{pdk_path}}", &pdk.display().to_string())
    };
    std::fs::create_dir_all(dest.join("src"))
        .with_context(|| format!("{}: cannot create", dest.display()))?;
    for (file, template) in [
        ("Cargo.toml", CARGO_TOML),
        ("src/lib.rs", LIB_RS),
        ("cases.yaml", CASES_YAML),
    ] {
        let path = dest.join(file);
        std::fs::write(&path, fill(template))
            .with_context(|| format!("{}: cannot write", path.display()))?;
    }
    Ok(dest)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fills_every_placeholder_and_refuses_bad_names() {
        let dir = tempfile::tempdir().unwrap();
        let dest = new_check("no-secrets", dir.path(), None).unwrap();
        for file in ["Cargo.toml", "src/lib.rs", "cases.yaml"] {
            let text = std::fs::read_to_string(dest.join(file)).unwrap();
            assert!(!text.contains("{{"), "{file} has an unfilled placeholder");
        }
        let lib = std::fs::read_to_string(dest.join("src/lib.rs")).unwrap();
        assert!(lib.contains("pub struct NoSecrets(Settings);"));
        let cases = std::fs::read_to_string(dest.join("cases.yaml")).unwrap();
        assert!(cases.contains("release/no_secrets.wasm"));
        assert!(new_check("no-secrets", dir.path(), None).is_err(), "exists");
        assert!(new_check("Bad_Name", dir.path(), None).is_err());
    }
}
