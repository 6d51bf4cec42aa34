//! What the hooks' end-to-end tests share: a policy with one shipped
//! check from target/plugins/ and the shared test cache of compiled checks.

use std::path::{Path, PathBuf};

/// The repository's root directory.
pub(crate) fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// A policy file in `dir` with the one check `name` (component
/// `target/plugins/{wasm}`), its hooks' state in `dir/hooks-state`, and
/// the shared test cache (`TOOLVET_CACHE_DIR`, else
/// target/tmp/toolvet-tests-cache).
pub(crate) fn one_check_policy(dir: &Path, name: &str, wasm: &str) -> PathBuf {
    check_policy(dir, name, &repo_root().join("target/plugins").join(wasm))
}

/// [`one_check_policy`] with the component at `plugin` (a test fixture of
/// target/hostile/, say).
pub(crate) fn check_policy(dir: &Path, name: &str, plugin: &Path) -> PathBuf {
    let cache = std::env::var_os("TOOLVET_CACHE_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo_root().join("target/tmp/toolvet-tests-cache"));
    let path = dir.join("toolvet.toml");
    std::fs::write(
        &path,
        format!(
            "[host]\ndefault_timeout_ms = 5000\ncache_dir = {cache:?}\n\n\
             [[check]]\nname = {name:?}\nplugin = {plugin:?}\n\n\
             [hooks]\nstate_dir = \"hooks-state\"\n",
            cache = cache.display().to_string(),
            plugin = plugin.display().to_string(),
        ),
    )
    .unwrap();
    path
}
