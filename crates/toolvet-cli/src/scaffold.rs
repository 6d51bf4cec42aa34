//! `toolvet new NAME --lang rust|python|js [--results]`: scaffold a check
//! that builds, passes its own case file and its native unit tests out of
//! the box, with a README stub and a `.gitignore`, in a directory of its own
//! anywhere on disk. With `--results` the check also vets what tools return
//! (contract `toolvet:check@0.2.0`'s `result-check`).
//!
//! The Rust scaffold comes from `template/` beside this crate; the Python
//! and JavaScript ones from the repository's templates
//! (`plugins/python/template`, `plugins/js/template`, which `make
//! case-tests` also builds and tests as they are, result check included),
//! with their names replaced, so the two cannot drift apart. The templates
//! mark what belongs to the result check with `results: begin` / `results:
//! end` comment lines ([`results_part`]).

use anyhow::{Context as _, bail};
use std::path::{Path, PathBuf};

const CARGO_TOML: &str = include_str!("../template/Cargo.toml.tmpl");
const LIB_RS: &str = include_str!("../template/src/lib.rs.tmpl");
const CASES_YAML: &str = include_str!("../template/cases.yaml.tmpl");
const PY_CHECK: &str = include_str!("../../../plugins/python/template/template.py");
const PY_TEST: &str = include_str!("../../../plugins/python/template/test_template.py");
const PY_CASES: &str = include_str!("../../../plugins/python/template/cases.yaml");
const JS_ENTRY: &str = include_str!("../../../plugins/js/template/index.js");
const JS_CHECK: &str = include_str!("../../../plugins/js/template/template.js");
const JS_TEST: &str = include_str!("../../../plugins/js/template/template.test.js");
const JS_CASES: &str = include_str!("../../../plugins/js/template/cases.yaml");

/// The language of a check.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum Lang {
    /// A crate on the plugin kit `toolvet-pdk`, built with cargo.
    Rust,
    /// A module on the Python kit `toolvet_check`, built with componentize-py.
    Python,
    /// An ES module on the JavaScript kit `toolvet-check`, built with
    /// ComponentizeJS.
    Js,
}

/// The Rust plugin kit next to this CLI's sources, used when `--kit` is not given.
pub(crate) fn default_pdk_path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../toolvet-pdk")
}

/// The Python kit (the directory holding `toolvet_check/` and `build.py`):
/// `$TOOLVET_PYTHON_KIT`, else the one next to this CLI's sources.
pub(crate) fn default_python_kit() -> PathBuf {
    std::env::var_os("TOOLVET_PYTHON_KIT")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../plugins/python"))
}

/// The JavaScript kit (the directory holding `toolvet-check/` and
/// `build.mjs`): `$TOOLVET_JS_KIT`, else the one next to this CLI's sources.
pub(crate) fn default_js_kit() -> PathBuf {
    std::env::var_os("TOOLVET_JS_KIT")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../plugins/js"))
}

/// Longest check name accepted, in bytes (the host takes up to 128, and
/// file names derive from it).
const MAX_NAME_BYTES: usize = 64;

/// Module names a Python check cannot take: Python's keywords and its
/// standard library's top-level modules (Python 3.11's
/// `sys.stdlib_module_names`, without the private ones), which the check's
/// own module would shadow or be shadowed by, and the kit's own modules.
const PY_TAKEN: &[&str] = &[
    "False",
    "None",
    "True",
    "and",
    "as",
    "assert",
    "async",
    "await",
    "break",
    "case",
    "class",
    "continue",
    "def",
    "del",
    "elif",
    "else",
    "except",
    "finally",
    "for",
    "from",
    "global",
    "if",
    "import",
    "in",
    "is",
    "lambda",
    "match",
    "nonlocal",
    "not",
    "or",
    "pass",
    "raise",
    "return",
    "try",
    "while",
    "with",
    "yield",
    "abc",
    "aifc",
    "antigravity",
    "argparse",
    "array",
    "ast",
    "asynchat",
    "asyncio",
    "asyncore",
    "atexit",
    "audioop",
    "base64",
    "bdb",
    "binascii",
    "bisect",
    "builtins",
    "bz2",
    "cProfile",
    "calendar",
    "cgi",
    "cgitb",
    "chunk",
    "cmath",
    "cmd",
    "code",
    "codecs",
    "codeop",
    "collections",
    "colorsys",
    "compileall",
    "concurrent",
    "configparser",
    "contextlib",
    "contextvars",
    "copy",
    "copyreg",
    "crypt",
    "csv",
    "ctypes",
    "curses",
    "dataclasses",
    "datetime",
    "dbm",
    "decimal",
    "difflib",
    "dis",
    "distutils",
    "doctest",
    "email",
    "encodings",
    "ensurepip",
    "enum",
    "errno",
    "faulthandler",
    "fcntl",
    "filecmp",
    "fileinput",
    "fnmatch",
    "fractions",
    "ftplib",
    "functools",
    "gc",
    "genericpath",
    "getopt",
    "getpass",
    "gettext",
    "glob",
    "graphlib",
    "grp",
    "gzip",
    "hashlib",
    "heapq",
    "hmac",
    "html",
    "http",
    "idlelib",
    "imaplib",
    "imghdr",
    "imp",
    "importlib",
    "inspect",
    "io",
    "ipaddress",
    "itertools",
    "json",
    "keyword",
    "lib2to3",
    "linecache",
    "locale",
    "logging",
    "lzma",
    "mailbox",
    "mailcap",
    "marshal",
    "math",
    "mimetypes",
    "mmap",
    "modulefinder",
    "msilib",
    "msvcrt",
    "multiprocessing",
    "netrc",
    "nis",
    "nntplib",
    "nt",
    "ntpath",
    "nturl2path",
    "numbers",
    "opcode",
    "operator",
    "optparse",
    "os",
    "ossaudiodev",
    "pathlib",
    "pdb",
    "pickle",
    "pickletools",
    "pipes",
    "pkgutil",
    "platform",
    "plistlib",
    "poplib",
    "posix",
    "posixpath",
    "pprint",
    "profile",
    "pstats",
    "pty",
    "pwd",
    "py_compile",
    "pyclbr",
    "pydoc",
    "pydoc_data",
    "pyexpat",
    "queue",
    "quopri",
    "random",
    "re",
    "readline",
    "reprlib",
    "resource",
    "rlcompleter",
    "runpy",
    "sched",
    "secrets",
    "select",
    "selectors",
    "shelve",
    "shlex",
    "shutil",
    "signal",
    "site",
    "smtpd",
    "smtplib",
    "sndhdr",
    "socket",
    "socketserver",
    "spwd",
    "sqlite3",
    "sre_compile",
    "sre_constants",
    "sre_parse",
    "ssl",
    "stat",
    "statistics",
    "string",
    "stringprep",
    "struct",
    "subprocess",
    "sunau",
    "symtable",
    "sys",
    "sysconfig",
    "syslog",
    "tabnanny",
    "tarfile",
    "telnetlib",
    "tempfile",
    "termios",
    "textwrap",
    "this",
    "threading",
    "time",
    "timeit",
    "tkinter",
    "token",
    "tokenize",
    "tomllib",
    "trace",
    "traceback",
    "tracemalloc",
    "tty",
    "turtle",
    "turtledemo",
    "types",
    "typing",
    "unicodedata",
    "unittest",
    "urllib",
    "uu",
    "uuid",
    "venv",
    "warnings",
    "wave",
    "weakref",
    "webbrowser",
    "winreg",
    "winsound",
    "wsgiref",
    "xdrlib",
    "xml",
    "xmlrpc",
    "zipapp",
    "zipfile",
    "zipimport",
    "zlib",
    "zoneinfo",
    // CPython's own test package, the kit's build script, the kit.
    "test",
    "build",
    "toolvet_check",
];

/// Type names a check cannot take: the kits' own exports, which its module
/// imports.
const KIT_TAKEN: &[&str] = &[
    "ArgumentsError",
    "Check",
    "Context",
    "DecodeError",
    "Decision",
    "FieldError",
    "PriorCall",
    "SettingsError",
    "ToolCall",
    "ToolInfo",
];

/// A check's names: `no-secrets` is module `no_secrets`, type `NoSecrets`.
struct Names<'a> {
    name: &'a str,
    module: String,
    type_name: String,
}

impl<'a> Names<'a> {
    fn of(name: &'a str) -> anyhow::Result<Self> {
        let valid = name.starts_with(|c: char| c.is_ascii_lowercase())
            && name
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
            && !name.ends_with('-')
            && !name.contains("--");
        if !valid {
            bail!(
                "check name `{name}`: use lowercase letters, digits and single `-`s, starting with a letter"
            );
        }
        if name.len() > MAX_NAME_BYTES {
            bail!("check name `{name}`: at most {MAX_NAME_BYTES} characters");
        }
        let type_name = name
            .split('-')
            .map(|part| {
                let mut chars = part.chars();
                match chars.next() {
                    Some(first) => first.to_ascii_uppercase().to_string() + chars.as_str(),
                    None => String::new(),
                }
            })
            .collect();
        let names = Names {
            name,
            module: name.replace('-', "_"),
            type_name,
        };
        if KIT_TAKEN.contains(&names.type_name.as_str()) {
            bail!(
                "check name `{name}`: its type `{}` would clash with the kit's own `{}`; choose another",
                names.type_name,
                names.type_name
            );
        }
        Ok(names)
    }
}

/// Create `<dir>/<name>/` with the check in `lang`; `kit` is the plugin
/// kit (Rust: crates/toolvet-pdk; Python: plugins/python), defaulting to
/// the ones of this CLI's checkout. `results`: the check also vets tool
/// results (Python and JavaScript).
///
/// # Errors
/// A name that is not lowercase letters, digits and `-` (starting with a
/// letter), an existing destination, a missing plugin kit, `results` for
/// Rust, or I/O errors.
pub(crate) fn new_check(
    name: &str,
    dir: &Path,
    lang: Lang,
    kit: Option<&Path>,
    results: bool,
) -> anyhow::Result<PathBuf> {
    let names = Names::of(name)?;
    if lang == Lang::Python && PY_TAKEN.contains(&names.module.as_str()) {
        bail!(
            "check name `{name}`: a Python check's module `{}` would clash with Python's own `{}` \
             (a keyword, a standard-library module or the kit's); choose another",
            names.module,
            names.module
        );
    }
    let dest = dir.join(name);
    if dest.exists() {
        bail!("{}: already exists", dest.display());
    }
    let (kit, flag) = match lang {
        Lang::Rust => (
            kit.map(Path::to_path_buf).unwrap_or_else(default_pdk_path),
            "--kit PATH to crates/toolvet-pdk",
        ),
        Lang::Python => (
            kit.map(Path::to_path_buf)
                .unwrap_or_else(default_python_kit),
            "--kit PATH to plugins/python, or set $TOOLVET_PYTHON_KIT",
        ),
        Lang::Js => (
            kit.map(Path::to_path_buf).unwrap_or_else(default_js_kit),
            "--kit PATH to plugins/js, or set $TOOLVET_JS_KIT",
        ),
    };
    let kit = kit
        .canonicalize()
        .with_context(|| format!("plugin kit not found at {} (pass {flag})", kit.display()))?;
    let files = match lang {
        Lang::Rust => {
            let manifest = std::fs::read_to_string(kit.join("Cargo.toml")).unwrap_or_default();
            if !manifest.contains("name = \"toolvet-pdk\"") {
                bail!(
                    "{}: not the Rust plugin kit (its Cargo.toml is not toolvet-pdk's; pass {flag})",
                    kit.display()
                );
            }
            rust_files(&names, &kit, results)
        }
        Lang::Python => {
            if !kit.join("toolvet_check").is_dir() {
                bail!(
                    "{}: not the Python kit (no toolvet_check/ in it; pass {flag})",
                    kit.display()
                );
            }
            python_files(&names, &kit, results)
        }
        Lang::Js => {
            if !kit.join("toolvet-check/package.json").is_file() {
                bail!(
                    "{}: not the JavaScript kit (no toolvet-check/package.json in it; pass {flag})",
                    kit.display()
                );
            }
            js_files(&names, &kit, results)
        }
    };
    // Written beside the destination, then renamed into place: a failure
    // part-way leaves no half-made check behind.
    std::fs::create_dir_all(dir).with_context(|| format!("{}: cannot create", dir.display()))?;
    let staging = tempfile::Builder::new()
        .prefix(&format!(".{name}."))
        .tempdir_in(dir)
        .with_context(|| format!("{}: cannot create a directory in it", dir.display()))?;
    for (file, text) in files {
        let path = staging.path().join(&file);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)
                .with_context(|| format!("{}: cannot create", parent.display()))?;
        }
        std::fs::write(&path, text)
            .with_context(|| format!("{}: cannot write", dest.join(&file).display()))?;
    }
    let staged = staging.keep();
    if let Err(e) = std::fs::rename(&staged, &dest) {
        let _ = std::fs::remove_dir_all(&staged);
        return Err(e).with_context(|| format!("{}: cannot create", dest.display()));
    }
    Ok(dest)
}

fn rust_files(names: &Names<'_>, pdk: &Path, results: bool) -> Vec<(String, String)> {
    let fill = |template: &str| {
        // The template exports the check once per variant: with its result
        // check (`results: …`) or without (`plain: …`).
        marked_part(&results_part(template, "//", results), "// plain", !results)
            .replace("{{name}}", names.name)
            .replace("{{type_name}}", &names.type_name)
            .replace("{{crate_file}}", &names.module)
            // A TOML basic string: JSON's escapes are TOML's.
            .replace(
                "\"{{pdk_path}}\"",
                &serde_json::to_string(&pdk.display().to_string()).unwrap_or_default(),
            )
    };
    vec![
        ("Cargo.toml".into(), fill(CARGO_TOML)),
        ("src/lib.rs".into(), fill(LIB_RS)),
        ("cases.yaml".into(), fill(CASES_YAML)),
        ("README.md".into(), readme(names, Lang::Rust, results)),
        // Cargo.lock stays: it pins what the component is built from.
        (".gitignore".into(), "/target/\n".into()),
    ]
}

/// Replace a template's names with the check's: first the texts in
/// `specific` (the check's `name` and rule ids) by placeholders, then the
/// class (`Template…`) and the module (`template`), then the placeholders
/// by their texts, so a name that itself contains `template` is not
/// renamed twice.
fn renamed(text: &str, names: &Names<'_>, specific: &[(&str, String)]) -> String {
    let mut out = text.to_string();
    for (i, (from, _)) in specific.iter().enumerate() {
        out = out.replace(from, &format!("\u{0}{i}\u{0}"));
    }
    out = out
        .replace("Template", &names.type_name)
        .replace("template", &names.module);
    for (i, (_, to)) in specific.iter().enumerate() {
        out = out.replace(&format!("\u{0}{i}\u{0}"), to);
    }
    out
}

/// A template's text with its result-check parts kept (`results`) or left
/// out: the lines between a `<comment> results: begin` line and the next
/// `<comment> results: end` line (whatever they are indented by); the marker
/// lines themselves are dropped either way. `comment` is `#` or `//`.
fn results_part(text: &str, comment: &str, results: bool) -> String {
    marked_part(text, &format!("{comment} results"), results)
}

/// `text` with the lines between a `<marker>: begin` line and the next
/// `<marker>: end` line kept (`keep`) or left out; the marker lines are
/// dropped either way.
fn marked_part(text: &str, marker: &str, keep: bool) -> String {
    let (begin, end) = (format!("{marker}: begin"), format!("{marker}: end"));
    let mut inside = false;
    let mut out = String::with_capacity(text.len());
    for line in text.split_inclusive('\n') {
        let trimmed = line.trim();
        if trimmed == begin {
            inside = true;
        } else if trimmed == end {
            inside = false;
        } else if keep || !inside {
            out.push_str(line);
        }
    }
    out
}

/// The Python template with its names replaced ([`renamed`]), with or
/// without its result check ([`results_part`]; without it, the module binds
/// only `Check`, so the component exports no `result-check`).
fn python_files(names: &Names<'_>, kit: &Path, results: bool) -> Vec<(String, String)> {
    let specific = [
        ("name = \"template\"", format!("name = \"{}\"", names.name)),
        (
            "template.blocked-word",
            format!("{}.blocked-word", names.name),
        ),
        (
            "python3 -m unittest discover -s plugins/python/template",
            "python3 -m unittest".to_string(),
        ),
    ];
    let rename = |text: &str| renamed(&results_part(text, "#", results), names, &specific);
    // The kit's path as a Python string literal (JSON's escapes are Python's).
    let kit_literal = serde_json::to_string(&kit.display().to_string()).unwrap_or_default();
    let test = rename(PY_TEST).replace("or str(HERE.parent)", &format!("or {kit_literal}"));
    let mut check = rename(PY_CHECK);
    if !results {
        check = check.replace("Check = ResultCheck = export(", "Check = export(");
    }

    vec![
        (format!("{}.py", names.module), check),
        (format!("test_{}.py", names.module), test),
        (
            "cases.yaml".into(),
            scaffold_cases(PY_CASES, &names.module, rename),
        ),
        ("README.md".into(), readme(names, Lang::Python, results)),
        (".gitignore".into(), "/target/\n__pycache__/\n".into()),
    ]
}

/// The case file of a template, for the scaffold: its names replaced by
/// `rename`, its header comment dropped, and its plugin the component
/// `toolvet build` writes.
fn scaffold_cases(template: &str, module: &str, rename: impl Fn(&str) -> String) -> String {
    let cases: String = rename(template)
        .lines()
        .filter(|line| !line.starts_with('#'))
        .map(|line| {
            if line.starts_with("plugin:") {
                format!("plugin: target/{module}.wasm\n")
            } else {
                format!("{line}\n")
            }
        })
        .collect();
    format!("# toolvet build && toolvet test cases.yaml\n{cases}")
}

/// The JavaScript template with its names replaced, importing the kit as
/// the package `toolvet-check` (a `file:` dependency on the kit, so `npm
/// install` links it; `toolvet build` stages it beside the check), with or
/// without its result check ([`results_part`]; without it, the entry
/// exports only `check`).
fn js_files(names: &Names<'_>, kit: &Path, results: bool) -> Vec<(String, String)> {
    let specific = [
        ("'../toolvet-check/index.js'", "'toolvet-check'".to_string()),
        (
            "static name = 'template'",
            format!("static name = '{}'", names.name),
        ),
        (
            "template.blocked-word",
            format!("{}.blocked-word", names.name),
        ),
        (
            "`cd plugins/js && node --test`",
            "`node --test` (after `npm install`)".to_string(),
        ),
    ];
    let rename = |text: &str| renamed(&results_part(text, "//", results), names, &specific);
    let kit_dependency = format!("file:{}", kit.join("toolvet-check").display());
    let package = serde_json::json!({
        "name": names.name,
        "version": "0.1.0",
        "private": true,
        "description": "A toolvet check",
        "type": "module",
        "scripts": { "test": "node --test" },
        "dependencies": { "toolvet-check": kit_dependency },
    });
    vec![
        ("index.js".into(), rename(JS_ENTRY)),
        (format!("{}.js", names.module), rename(JS_CHECK)),
        (format!("{}.test.js", names.module), rename(JS_TEST)),
        (
            "package.json".into(),
            serde_json::to_string_pretty(&package).unwrap_or_default() + "\n",
        ),
        (
            "cases.yaml".into(),
            scaffold_cases(JS_CASES, &names.module, rename),
        ),
        ("README.md".into(), readme(names, Lang::Js, results)),
        (".gitignore".into(), "/target/\nnode_modules/\n".into()),
    ]
}

/// A README stub: what the check is and the commands of its loop.
fn readme(names: &Names<'_>, lang: Lang, results: bool) -> String {
    let (source, unit) = match lang {
        Lang::Rust => ("src/lib.rs".to_string(), "cargo test"),
        Lang::Python => (format!("{}.py", names.module), "python3 -m unittest"),
        Lang::Js => (format!("{}.js", names.module), "npm install && npm test"),
    };
    let what = if results {
        "It denies calls whose arguments contain a blocked word,\n\
         and masks blocked words in what tools return (labelling the run\n\
         `blocked-word-seen`)"
    } else {
        "It denies calls whose arguments contain a blocked word"
    };
    let result_step = if results {
        "echo '{\"call\": {\"name\": \"read\", \"arguments\": {}}, \"result\": {\"content\": {\"text\": \"a DROP TABLE b\"}}}' \\\n  \
         | toolvet check-result --config policy.toml   # a result, with the policy below\n"
    } else {
        ""
    };
    format!(
        "# {name}\n\n\
         A toolvet check. {what};\n\
         replace that with your own logic in `{source}`, and describe here what it\n\
         decides, why, and its settings.\n\n\
         ```sh\n\
         toolvet build                 # prints the component's path\n\
         {unit:<29} # native unit tests\n\
         toolvet test cases.yaml       # the cases, through the real host\n\
         {result_step}\
         ```\n\n\
         Use it in a policy:\n\n\
         ```toml\n\
         [[check]]\n\
         name = \"{name}\"\n\
         plugin = \"path/to/{name}/target/…/{module}.wasm\"   # what `toolvet build` printed\n\
         settings = {{ blocked_words = [\"DROP TABLE\"] }}\n\
         ```\n",
        name = names.name,
        module = names.module,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The scaffold asks for the kit as `toolvet-pdk = "X.Y"` (patched to
    /// the checkout until it is published): that must be the kit's own
    /// version, or cargo would refuse the patch.
    #[test]
    fn the_scaffold_asks_for_the_kits_version() {
        let kit = include_str!("../../toolvet-pdk/Cargo.toml");
        let version = kit
            .lines()
            .find_map(|l| l.strip_prefix("version = \""))
            .and_then(|v| v.strip_suffix('"'))
            .expect("the kit's Cargo.toml has a version");
        let wanted = CARGO_TOML
            .lines()
            .find_map(|l| l.strip_prefix("toolvet-pdk = \""))
            .and_then(|v| v.strip_suffix('"'))
            .expect("the template asks for toolvet-pdk by version");
        assert!(
            version.starts_with(&format!("{wanted}.")),
            "template asks for {wanted}, the kit is {version}"
        );
        assert!(
            CARGO_TOML.contains("[patch.crates-io]\ntoolvet-pdk = { path = \"{{pdk_path}}\" }")
        );
    }

    #[test]
    fn fills_every_placeholder_and_refuses_bad_names() {
        let dir = tempfile::tempdir().unwrap();
        let dest = new_check("no-secrets", dir.path(), Lang::Rust, None, false).unwrap();
        for file in [
            "Cargo.toml",
            "src/lib.rs",
            "cases.yaml",
            "README.md",
            ".gitignore",
        ] {
            let text = std::fs::read_to_string(dest.join(file)).unwrap();
            assert!(!text.contains("{{"), "{file} has an unfilled placeholder");
        }
        let lib = std::fs::read_to_string(dest.join("src/lib.rs")).unwrap();
        assert!(lib.contains("pub struct NoSecrets(Settings);"));
        let cases = std::fs::read_to_string(dest.join("cases.yaml")).unwrap();
        assert!(cases.contains("release/no_secrets.wasm"));
        assert!(
            new_check("no-secrets", dir.path(), Lang::Rust, None, false).is_err(),
            "exists"
        );
        let long = "a".repeat(65);
        for bad in ["Bad_Name", "a-", "a--b", "1a", &long, "check", "tool-call"] {
            assert!(
                new_check(bad, dir.path(), Lang::Rust, None, false).is_err(),
                "{bad}"
            );
        }
        for taken in ["json", "class", "build", "typing", "toolvet-check", "test"] {
            let e = new_check(taken, dir.path(), Lang::Python, None, false).unwrap_err();
            assert!(e.to_string().contains("clash with Python"), "{taken}: {e}");
            assert!(
                !dir.path().join(taken).exists(),
                "{taken}: nothing left behind"
            );
        }
        assert!(
            new_check("json", dir.path(), Lang::Js, None, false).is_ok(),
            "not Python: fine"
        );
    }

    #[test]
    fn the_python_scaffold_is_the_template_renamed() {
        let dir = tempfile::tempdir().unwrap();
        let dest = new_check("no-secrets", dir.path(), Lang::Python, None, false).unwrap();
        let check = std::fs::read_to_string(dest.join("no_secrets.py")).unwrap();
        assert!(check.contains("class NoSecrets(Check):"), "{check}");
        assert!(check.contains("name = \"no-secrets\""));
        assert!(check.contains("\"no-secrets.blocked-word\""));
        assert!(check.contains("Check = export(NoSecrets)"));
        assert!(!check.to_lowercase().contains("template"), "{check}");
        let test = std::fs::read_to_string(dest.join("test_no_secrets.py")).unwrap();
        assert!(test.contains("from no_secrets import NoSecrets"));
        let kit = default_python_kit().canonicalize().unwrap();
        assert!(
            test.contains(&format!("or \"{}\"", kit.display())),
            "{test}"
        );
        let cases = std::fs::read_to_string(dest.join("cases.yaml")).unwrap();
        assert!(
            cases.contains("\nplugin: target/no_secrets.wasm\n"),
            "{cases}"
        );
        assert!(cases.contains("rule: no-secrets.blocked-word"));
        // A name holding the template's own name is renamed once.
        let dest = new_check("my-template", dir.path(), Lang::Python, None, false).unwrap();
        let check = std::fs::read_to_string(dest.join("my_template.py")).unwrap();
        assert!(check.contains("name = \"my-template\""), "{check}");
        assert!(check.contains("\"my-template.blocked-word\""), "{check}");
        assert!(check.contains("class MyTemplate(Check):"), "{check}");
        assert!(
            new_check("x", dir.path(), Lang::Python, Some(dir.path()), false).is_err(),
            "not a kit"
        );
    }

    #[test]
    fn the_js_scaffold_is_the_template_renamed_on_the_kit_package() {
        let dir = tempfile::tempdir().unwrap();
        let dest = new_check("no-secrets", dir.path(), Lang::Js, None, false).unwrap();
        let check = std::fs::read_to_string(dest.join("no_secrets.js")).unwrap();
        assert!(
            check.contains("export class NoSecrets extends Check"),
            "{check}"
        );
        assert!(check.contains("static name = 'no-secrets'"));
        assert!(check.contains("from 'toolvet-check'"));
        assert!(!check.to_lowercase().contains("template"), "{check}");
        let entry = std::fs::read_to_string(dest.join("index.js")).unwrap();
        assert!(
            entry.contains("import { NoSecrets } from './no_secrets.js';"),
            "{entry}"
        );
        let package: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(dest.join("package.json")).unwrap())
                .unwrap();
        let kit = default_js_kit()
            .canonicalize()
            .unwrap()
            .join("toolvet-check");
        assert_eq!(
            package["dependencies"]["toolvet-check"],
            format!("file:{}", kit.display())
        );
        let cases = std::fs::read_to_string(dest.join("cases.yaml")).unwrap();
        assert!(
            cases.contains("\nplugin: target/no_secrets.wasm\n"),
            "{cases}"
        );
        assert!(
            new_check("x", dir.path(), Lang::Js, Some(dir.path()), false).is_err(),
            "not a kit"
        );
    }

    /// `--results` keeps the templates' result checks; without it nothing of
    /// them is left (no marker, method, import or export), and Rust refuses
    /// it until its kit has result checks.
    #[test]
    fn results_scaffolds_keep_the_result_check_and_plain_ones_drop_it() {
        let dir = tempfile::tempdir().unwrap();
        let plain = new_check("plain-py", dir.path(), Lang::Python, None, false).unwrap();
        let with = new_check("with-py", dir.path(), Lang::Python, None, true).unwrap();
        let (p, w) = (
            std::fs::read_to_string(plain.join("plain_py.py")).unwrap(),
            std::fs::read_to_string(with.join("with_py.py")).unwrap(),
        );
        for gone in [
            "results:",
            "check_result",
            "ResultCheck",
            "import re",
            "allow_result",
        ] {
            assert!(!p.contains(gone), "{gone} in {p}");
        }
        assert!(p.contains("\nCheck = export(PlainPy)\n"), "{p}");
        assert!(w.contains("    def check_result(self, call"), "{w}");
        assert!(
            w.contains("\nCheck = ResultCheck = export(WithPy)\n"),
            "{w}"
        );
        assert!(!w.contains("results:"), "{w}");
        let test = std::fs::read_to_string(with.join("test_with_py.py")).unwrap();
        assert!(
            test.contains("def test_masks_blocked_words_in_results"),
            "{test}"
        );
        let test = std::fs::read_to_string(plain.join("test_plain_py.py")).unwrap();
        assert!(!test.contains("ToolResult"), "{test}");
        assert!(
            !p.contains("\n\n\n\n") && !test.contains("\n\n\n\n"),
            "{p}\n{test}"
        );

        let plain = new_check("plain-js", dir.path(), Lang::Js, None, false).unwrap();
        let with = new_check("with-js", dir.path(), Lang::Js, None, true).unwrap();
        let entry = |d: &Path| std::fs::read_to_string(d.join("index.js")).unwrap();
        assert!(!entry(&plain).contains("resultCheck"), "{}", entry(&plain));
        assert!(entry(&with).contains("\nexport const resultCheck = check;\n"));
        assert!(entry(&with).contains("from 'toolvet:check/host@0.2.0'"));
        let p = std::fs::read_to_string(plain.join("plain_js.js")).unwrap();
        let w = std::fs::read_to_string(with.join("with_js.js")).unwrap();
        for gone in ["results:", "checkResult", "allowResult"] {
            assert!(!p.contains(gone), "{gone} in {p}");
        }
        assert!(
            w.contains("  checkResult(_call, _tool, _ctx, result) {"),
            "{w}"
        );
        assert!(w.contains("from 'toolvet-check';"), "{w}");
        assert!(!w.contains("results:"), "{w}");
        let readme = std::fs::read_to_string(with.join("README.md")).unwrap();
        assert!(readme.contains("toolvet check-result"), "{readme}");

        let plain = new_check("plain-rs", dir.path(), Lang::Rust, None, false).unwrap();
        let with = new_check("with-rs", dir.path(), Lang::Rust, None, true).unwrap();
        let lib = |d: &Path| std::fs::read_to_string(d.join("src/lib.rs")).unwrap();
        let (p, w) = (lib(&plain), lib(&with));
        for gone in ["results:", "plain:", "ResultCheck", "check_result"] {
            assert!(!p.contains(gone), "{gone} in {p}");
        }
        assert!(
            p.contains("\ntoolvet_pdk::export_check!(PlainRs);\n"),
            "{p}"
        );
        assert!(
            w.contains("\ntoolvet_pdk::export_check!(WithRs, results);\n"),
            "{w}"
        );
        assert!(!w.contains("export_check!(WithRs);"), "{w}");
        assert!(!w.contains("results:") && !w.contains("plain:"), "{w}");
        assert!(w.contains("fn a_blocked_word_in_a_result_is_masked_and_labelled"));
    }
}
