//! `toolvet build [DIR]`: build the check in DIR, in its own language's
//! way, and print the component's path.
//!
//! - **Rust** (a `Cargo.toml`): `cargo build --release --target
//!   wasm32-wasip2`; the path is the cdylib cargo reports, so a
//!   `CARGO_TARGET_DIR` or a workspace elsewhere is followed.
//! - **Python** (`<name with - as _>.py`): the kit's `build.py` with
//!   `$TOOLVET_PYTHON` (a Python with componentize-py), else with a venv
//!   in the cache that the first build makes with the kit's pinned
//!   `requirements.txt` ([`python_toolchain`]), into
//!   `DIR/target/<module>.wasm`; skipped while its inputs are unchanged.
//! - **JavaScript** (`index.js`): the kit's `build.mjs` with `node`
//!   (`$TOOLVET_NODE`; the first build runs `npm ci` in the kit's
//!   directory for its pinned ComponentizeJS, [`js_toolchain`]), into
//!   `DIR/target/<module>.wasm`, the same way. A
//!   check outside the kit's directory imports the kit as the package
//!   `toolvet-check`; `build.mjs` stages it beside the kit first.
//!
//! The tools' own output goes to stderr; stdout carries only the path.

use crate::scaffold::{Lang, default_js_kit, default_python_kit};
use anyhow::{Context as _, bail};
use std::ffi::OsString;
use std::os::fd::AsFd as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The Rust target checks are built for.
const WASM_TARGET: &str = "wasm32-wasip2";

/// The language of the check in `dir`.
///
/// # Errors
/// No check is recognised, naming what was looked for.
pub(crate) fn language(dir: &Path) -> anyhow::Result<Lang> {
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
pub(crate) fn check_dirs(paths: &[PathBuf]) -> anyhow::Result<Vec<PathBuf>> {
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

/// Build the check in `dir` (`kit`: the Python or JavaScript kit) and
/// return its component's path. A build whose inputs are unchanged is
/// skipped (cargo's own fingerprints; the kits' content stamps), unless
/// `force`: then Rust's package is cleaned first and the kits rebuild.
///
/// # Errors
/// The directory holds no check, the toolchain is missing, or the build
/// failed; the message says which and how to fix it.
pub(crate) fn build(dir: &Path, kit: Option<&Path>, force: bool) -> anyhow::Result<PathBuf> {
    if !dir.is_dir() {
        bail!(
            "{}: not a directory (give the check's directory)",
            dir.display()
        );
    }
    let dir = dir
        .canonicalize()
        .with_context(|| format!("{}: cannot resolve", dir.display()))?;
    let lang = language(&dir)?;
    match lang {
        Lang::Rust => {
            if force {
                clean_rust(&dir)?;
            }
            build_rust(&dir)
        }
        Lang::Python | Lang::Js => build_with_kit(&dir, kit, lang, force),
    }
}

fn cargo() -> OsString {
    std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into())
}

/// `cargo clean` of the check's own package (release, wasm target), so the
/// next build compiles it again; its dependencies stay built.
fn clean_rust(dir: &Path) -> anyhow::Result<()> {
    let out = Command::new(cargo())
        .args(["metadata", "--no-deps", "--format-version", "1"])
        .current_dir(dir)
        .stderr(Stdio::inherit())
        .output()
        .context("cannot run cargo metadata")?;
    if !out.status.success() {
        bail!("{}: cargo metadata failed (above)", dir.display());
    }
    let metadata: serde_json::Value = serde_json::from_slice(&out.stdout)
        .with_context(|| format!("{}: cargo metadata printed no JSON", dir.display()))?;
    let manifest = dir.join("Cargo.toml");
    let package = metadata["packages"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|p| p["manifest_path"].as_str().map(Path::new) == Some(manifest.as_path()))
        .and_then(|p| p["name"].as_str())
        .with_context(|| format!("{}: no package in this Cargo.toml", dir.display()))?;
    let status = Command::new(cargo())
        .args([
            "clean",
            "--release",
            "--target",
            WASM_TARGET,
            "--package",
            package,
        ])
        .current_dir(dir)
        .stdout(to_stderr()?)
        .status()
        .context("cannot run cargo clean")?;
    if !status.success() {
        bail!("{}: cargo clean failed (above)", dir.display());
    }
    Ok(())
}

/// The tools' stdout, sent to our stderr.
fn to_stderr() -> anyhow::Result<Stdio> {
    Ok(Stdio::from(std::io::stderr().as_fd().try_clone_to_owned()?))
}

fn build_rust(dir: &Path) -> anyhow::Result<PathBuf> {
    let cargo = cargo();
    let out = Command::new(&cargo)
        .args(["build", "--release", "--target", WASM_TARGET])
        .arg("--message-format=json-render-diagnostics")
        .current_dir(dir)
        .stderr(Stdio::inherit())
        .output()
        .with_context(|| format!("cannot run {}", cargo.to_string_lossy()))?;
    if !out.status.success() {
        bail!(
            "{}: cargo build failed (above; a missing target is added with `rustup target add {WASM_TARGET}`)",
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
fn build_with_kit(
    dir: &Path,
    kit: Option<&Path>,
    lang: Lang,
    force: bool,
) -> anyhow::Result<PathBuf> {
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
            OsString::new(),
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
    let program = match lang {
        Lang::Js => {
            js_toolchain(&kit)?;
            program
        }
        _ => python_toolchain(&kit)?,
    };
    let target = dir.join("target");
    let status = Command::new(&program)
        .arg(&script)
        .arg("--out-dir")
        .arg(&target)
        .args(force.then_some("--force"))
        .arg(dir)
        .stdout(to_stderr()?)
        .status()
        .with_context(|| {
            let variable = match lang {
                Lang::Js => "$TOOLVET_NODE (Node 20 or later)",
                _ => "$TOOLVET_PYTHON (a Python with componentize-py)",
            };
            format!(
                "cannot run {} (check {variable})",
                program.to_string_lossy()
            )
        })?;
    if !status.success() {
        bail!("{}: the {language} build failed (above)", dir.display());
    }
    Ok(target.join(format!("{}.wasm", module(dir)?)))
}

/// The Python that runs the kit's `build.py`: `$TOOLVET_PYTHON`, else a
/// venv under the artifact cache's directory,
/// `toolchains/python-<sha256 of the kit's requirements.txt, 16 hex>/`,
/// which the first build makes (`$TOOLVET_BASE_PYTHON`, default
/// `python3`, `-m venv`, then `pip install -r requirements.txt`), saying
/// so on stderr. A file lock keeps two builds from installing at once; a
/// venv whose install did not finish is made again.
///
/// # Errors
/// No cache directory, or the venv or the install failed.
pub(crate) fn python_toolchain(kit: &Path) -> anyhow::Result<OsString> {
    if let Some(python) = std::env::var_os("TOOLVET_PYTHON").filter(|p| !p.is_empty()) {
        return Ok(python);
    }
    let requirements = kit.join("requirements.txt");
    let pinned = std::fs::read(&requirements)
        .with_context(|| format!("{}: cannot read", requirements.display()))?;
    let digest = hex::encode(<sha2::Sha256 as sha2::Digest>::digest(&pinned));
    let root = toolvet::cache::ArtifactCache::default_dir()
        .context("no cache directory for the Python build tools: set $TOOLVET_CACHE_DIR, or $TOOLVET_PYTHON")?
        .join("toolchains");
    let dir = root.join(format!("python-{}", &digest[..16]));
    let python = dir.join("bin").join("python");
    let done = dir.join(".installed");
    // Made, and still runs (a venv breaks when its base Python goes).
    let usable = || {
        done.is_file()
            && Command::new(&python)
                .args(["-c", ""])
                .status()
                .is_ok_and(|s| s.success())
    };
    if usable() {
        return Ok(python.into());
    }
    std::fs::create_dir_all(&root).with_context(|| format!("{}: cannot create", root.display()))?;
    let lock = std::fs::File::create(root.join(".lock"))
        .with_context(|| format!("{}: cannot create its lock", root.display()))?;
    lock.lock().context("locking the toolchains directory")?;
    if usable() {
        // Another build installed it while this one waited.
        return Ok(python.into());
    }
    eprintln!(
        "toolvet build: installing the pinned Python build tools ({}) into {}, first build only…",
        String::from_utf8_lossy(&pinned)
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" "),
        dir.display()
    );
    if dir.exists() {
        std::fs::remove_dir_all(&dir)
            .with_context(|| format!("{}: cannot remove", dir.display()))?;
    }
    let base = std::env::var_os("TOOLVET_BASE_PYTHON").unwrap_or_else(|| "python3".into());
    let steps: [(OsString, Vec<OsString>); 2] = [
        (
            base.clone(),
            vec!["-m".into(), "venv".into(), dir.clone().into()],
        ),
        (
            dir.join("bin").join("pip").into(),
            vec![
                "install".into(),
                "--disable-pip-version-check".into(),
                "--quiet".into(),
                "-r".into(),
                requirements.clone().into(),
            ],
        ),
    ];
    for (program, args) in steps {
        let status = Command::new(&program)
            .args(&args)
            .stdout(to_stderr()?)
            .status()
            .with_context(|| {
                format!(
                    "cannot run {} (a Python 3.11 or later to make the venv with: check $TOOLVET_BASE_PYTHON)",
                    program.to_string_lossy()
                )
            })?;
        if !status.success() {
            bail!(
                "installing the Python build tools into {} failed (above); set $TOOLVET_PYTHON to a Python with componentize-py instead",
                dir.display()
            );
        }
    }
    std::fs::write(&done, &pinned).with_context(|| format!("{}: cannot write", done.display()))?;
    eprintln!("toolvet build: Python build tools ready");
    Ok(python.into())
}

/// Make sure the JavaScript kit's pinned build tools (ComponentizeJS, from
/// its `package-lock.json`) are installed beside `build.mjs`, which
/// imports them from there: the first build runs `npm ci` in the kit's
/// directory, saying so on stderr.
///
/// # Errors
/// `npm` cannot be run or fails.
pub(crate) fn js_toolchain(kit: &Path) -> anyhow::Result<()> {
    // npm writes node_modules/.package-lock.json last: without it an
    // install did not finish, and `npm ci` starts over.
    let installed = |kit: &Path| {
        kit.join("node_modules/.package-lock.json").is_file()
            && kit
                .join("node_modules/@bytecodealliance/componentize-js/package.json")
                .is_file()
    };
    if installed(kit) {
        return Ok(());
    }
    // One install at a time (two `toolvet build`s starting together).
    let lock = std::fs::File::create(kit.join(".toolvet-install.lock"))
        .with_context(|| format!("{}: cannot create the install lock", kit.display()))?;
    lock.lock()
        .context("locking the JavaScript kit's install")?;
    if installed(kit) {
        return Ok(());
    }
    eprintln!(
        "toolvet build: installing the pinned JavaScript build tools (ComponentizeJS) into {}, first build only…",
        kit.join("node_modules").display()
    );
    let npm = std::env::var_os("TOOLVET_NPM").unwrap_or_else(|| "npm".into());
    let status = Command::new(&npm)
        .args(["ci", "--no-audit", "--no-fund"])
        .current_dir(kit)
        .stdout(to_stderr()?)
        .status()
        .with_context(|| format!("cannot run {}", npm.to_string_lossy()))?;
    if !status.success() {
        bail!(
            "installing the JavaScript build tools in {} failed (above); run `npm ci` there",
            kit.display()
        );
    }
    Ok(())
}
