//! `toolvet build [DIR]`: build the check in DIR, in its own language's
//! way, and print the component's path.
//!
//! - **Rust** (a `Cargo.toml`): `cargo build --release --target
//!   wasm32-wasip2`; the path is the cdylib cargo reports, so a
//!   `CARGO_TARGET_DIR` or a workspace elsewhere is followed.
//! - **Python** (`<name with - as _>.py`): the kit's `build.py` with
//!   `$TOOLVET_PYTHON` (default `python3`, which needs componentize-py),
//!   into `DIR/target/<module>.wasm`; skipped while its inputs are
//!   unchanged.
//! - **JavaScript** (`index.js`): the kit's `build.mjs` with `node`
//!   (`$TOOLVET_NODE`; the kit's directory needs `npm ci` once, for
//!   ComponentizeJS), into `DIR/target/<module>.wasm`, the same way. A
//!   check outside the kit's directory imports the kit as the package
//!   `toolvet-check`; `build.mjs` stages it beside the kit first.
//!
//! The tools' own output goes to stderr; stdout carries only the path.

use crate::scaffold::{Lang, default_js_kit, default_python_kit};
use anyhow::{Context as _, bail};
use std::os::fd::AsFd as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The Rust target checks are built for.
const WASM_TARGET: &str = "wasm32-wasip2";

/// The language of the check in `dir`.
///
/// # Errors
/// No check is recognised, naming what was looked for.
pub fn language(dir: &Path) -> anyhow::Result<Lang> {
    if dir.join("Cargo.toml").is_file() {
        return Ok(Lang::Rust);
    }
    if dir.join(format!("{}.py", module(dir)?)).is_file() {
        return Ok(Lang::Python);
    }
    if dir.join("index.js").is_file() {
        return Ok(Lang::Js);
    }
    bail!(
        "{}: no check here (looked for Cargo.toml, {}.py or index.js)",
        dir.display(),
        module(dir)?
    )
}

/// The directories holding the checks of `paths` (case files, or
/// directories of case files), for `toolvet test --build`: each path's
/// own directory, once.
///
/// # Errors
/// A directory that holds no check, naming it.
pub fn check_dirs(paths: &[PathBuf]) -> anyhow::Result<Vec<PathBuf>> {
    let mut dirs: Vec<PathBuf> = Vec::new();
    for path in paths {
        let dir = if path.is_dir() {
            path.clone()
        } else {
            match path.parent() {
                Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
                _ => PathBuf::from("."),
            }
        };
        let dir = dir
            .canonicalize()
            .with_context(|| format!("{}: no such directory", dir.display()))?;
        language(&dir).with_context(|| format!("--build: {}", path.display()))?;
        if !dirs.contains(&dir) {
            dirs.push(dir);
        }
    }
    Ok(dirs)
}

/// The module name of the check in `dir`: its directory name with `-` as `_`.
fn module(dir: &Path) -> anyhow::Result<String> {
    let name = dir
        .file_name()
        .and_then(|n| n.to_str())
        .with_context(|| format!("{}: not a check directory", dir.display()))?;
    Ok(name.replace('-', "_"))
}

/// Build the check in `dir` (`kit`: the Python kit, for a Python check)
/// and return its component's path.
///
/// # Errors
/// The directory holds no check, the toolchain is missing, or the build
/// failed; the message says which and how to fix it.
pub fn build(dir: &Path, kit: Option<&Path>) -> anyhow::Result<PathBuf> {
    let dir = dir
        .canonicalize()
        .with_context(|| format!("{}: no such directory", dir.display()))?;
    let lang = language(&dir)?;
    match lang {
        Lang::Rust => build_rust(&dir),
        Lang::Python | Lang::Js => build_with_kit(&dir, kit, lang),
    }
}

/// The tools' stdout, sent to our stderr.
fn to_stderr() -> anyhow::Result<Stdio> {
    Ok(Stdio::from(std::io::stderr().as_fd().try_clone_to_owned()?))
}

fn build_rust(dir: &Path) -> anyhow::Result<PathBuf> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let out = Command::new(&cargo)
        .args(["build", "--release", "--target", WASM_TARGET])
        .arg("--message-format=json-render-diagnostics")
        .current_dir(dir)
        .stderr(Stdio::inherit())
        .output()
        .with_context(|| format!("cannot run {}", cargo.to_string_lossy()))?;
    if !out.status.success() {
        bail!(
            "{}: cargo build failed (is the target installed? `rustup target add {WASM_TARGET}`)",
            dir.display()
        );
    }
    // The last cdylib artifact cargo reports is the check's component.
    let mut component = None;
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        let Ok(message) = serde_json::from_str::<serde_json::Value>(line) else {
            continue;
        };
        let cdylib = message["target"]["kind"]
            .as_array()
            .is_some_and(|kinds| kinds.iter().any(|k| k == "cdylib"));
        if message["reason"] == "compiler-artifact" && cdylib {
            let wasm = message["filenames"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|f| f.as_str())
                .find(|f| f.ends_with(".wasm"));
            if let Some(wasm) = wasm {
                component = Some(PathBuf::from(wasm));
            }
        }
    }
    component.with_context(|| {
        format!(
            "{}: cargo built no .wasm (the crate needs `crate-type = [\"cdylib\"]`)",
            dir.display()
        )
    })
}

/// A Python or JavaScript check: the kit's build script, into `DIR/target`.
fn build_with_kit(dir: &Path, kit: Option<&Path>, lang: Lang) -> anyhow::Result<PathBuf> {
    let (kit, script, program, language, help) = match lang {
        Lang::Js => (
            kit.map(Path::to_path_buf).unwrap_or_else(default_js_kit),
            "build.mjs",
            std::env::var_os("TOOLVET_NODE").unwrap_or_else(|| "node".into()),
            "JavaScript",
            "--kit PATH to plugins/js, or set $TOOLVET_JS_KIT",
        ),
        Lang::Python | Lang::Rust => (
            kit.map(Path::to_path_buf)
                .unwrap_or_else(default_python_kit),
            "build.py",
            std::env::var_os("TOOLVET_PYTHON").unwrap_or_else(|| "python3".into()),
            "Python",
            "--kit PATH to plugins/python, or set $TOOLVET_PYTHON_KIT",
        ),
    };
    let script = kit.join(script);
    if !script.is_file() {
        bail!(
            "the {language} kit's build script is not at {} (pass {help})",
            script.display()
        );
    }
    let target = dir.join("target");
    let status = Command::new(&program)
        .arg(&script)
        .arg("--out-dir")
        .arg(&target)
        .arg(dir)
        .stdout(to_stderr()?)
        .status()
        .with_context(|| {
            format!(
                "cannot run {} (set $TOOLVET_PYTHON to a Python with componentize-py, \
                 or $TOOLVET_NODE to Node 20 or later)",
                program.to_string_lossy()
            )
        })?;
    if !status.success() {
        bail!("{}: the {language} build failed (above)", dir.display());
    }
    Ok(target.join(format!("{}.wasm", module(dir)?)))
}
