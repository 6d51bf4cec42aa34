//! Arguments that set the directory a tool runs in: the one list of their
//! names, read by the hooks (`toolvet hook`, which vets a call in that
//! directory), by shell-guard (which judges a command's relative operands
//! there) and by path-guard (which resolves a file tool's relative paths
//! there), the last two through [`bases`].
//!
//! Tools name it in many ways: `cwd`, `workdir`, `working_directory`,
//! `workingDirectory`, `directory`, `dir`, `dir_path`, `base_dir`,
//! `project-dir`, and nested, `options: {cwd}` (the npm
//! `shell-command-mcp`). A list of a few exact names leaves every other
//! spelling unread, and the command is judged where it does not run. So a
//! key is matched by its family ([`is_workdir_key`]): folded as a lenient
//! decoder reads it ([`crate::roles::fold`]), without `_`, `-` and `.`, it
//! is one of [`WORKDIR_NAMES`], starts with one of [`WORKDIR_PREFIXES`]
//! or ends with one of [`WORKDIR_SUFFIXES`]. [`values`] finds them at the
//! top of the arguments and one object down (`options.cwd`).
//!
//! A value that names the home (`~`, `~/x`, `$HOME/x`, `${HOME}`) is the
//! home directory's ([`expand_home`]): a server that expands the user or
//! runs `cd {cwd} && …` through a shell runs there, not in a directory
//! called `~`. A value whose place depends on anything else the tool
//! expands (`~bob`, `$PWD`, `` `pwd` ``) is unknown ([`Place::Unknown`]):
//! the caller fails closed. Two that differ are each a place the tool may
//! work in ([`bases`]): the checks judge the call under each, the hooks
//! refuse it.

use crate::roles::fold;
use serde_json::Value;

/// Keys that are a working directory exactly, in their folded form
/// without separators.
pub const WORKDIR_NAMES: &[&str] = &[
    "dir",
    "directory",
    "cwd",
    "pwd",
    "wd",
    "chdir",
    "cd",
    "workdir",
    "workingdir",
    "workingdirectory",
];

/// Key beginnings that make a working directory (`cwd_path`, `cwdPath`,
/// `workdir_abs`, `workingDirectoryPath`, `current_dir`).
pub const WORKDIR_PREFIXES: &[&str] = &[
    "cwd",
    "workdir",
    "workingdir",
    "currentdir",
    "currentworkingdir",
    "chdir",
];

/// Key endings that make a working directory (`working_dir`, `base_dir`,
/// `project_directory`, `dir_path`, `directoryPath`).
pub const WORKDIR_SUFFIXES: &[&str] = &["dir", "directory", "dirpath", "directorypath"];

/// `key` folded ([`fold`]) without `_`, `-` and `.`: `Working_Dir`,
/// `working-dir` and `workingDir` are one name.
fn squeeze(key: &str) -> String {
    fold(key)
        .chars()
        .filter(|c| !matches!(c, '_' | '-' | '.'))
        .collect()
}

/// Whether the argument key `key` names a working directory: its folded,
/// separator-free form is one of [`WORKDIR_NAMES`], or starts with one of
/// [`WORKDIR_PREFIXES`], or ends with one of [`WORKDIR_SUFFIXES`].
pub fn is_workdir_key(key: &str) -> bool {
    let k = squeeze(key);
    !k.is_empty()
        && (WORKDIR_NAMES.contains(&k.as_str())
            || WORKDIR_PREFIXES.iter().any(|p| k.starts_with(p))
            || WORKDIR_SUFFIXES.iter().any(|s| k.ends_with(s)))
}

/// Every working-directory argument of `args` (an object): its keys that
/// [`is_workdir_key`], and those of each object one level down
/// (`options.cwd`), with the dotted path of the key. `null` values are
/// left out (a tool reading one as absent uses another, which is listed);
/// every other value is listed, whatever its type (a caller refuses or
/// distrusts what is not text).
pub fn values(args: &Value) -> Vec<(String, &Value)> {
    let mut out = Vec::new();
    let Some(obj) = args.as_object() else {
        return out;
    };
    for (key, value) in obj {
        if value.is_null() {
            continue;
        }
        if is_workdir_key(key) {
            out.push((key.clone(), value));
        } else if let Value::Object(inner) = value {
            for (k, v) in inner {
                if !v.is_null() && is_workdir_key(k) {
                    out.push((format!("{key}.{k}"), v));
                }
            }
        }
    }
    out
}

/// Where a working-directory value puts the tool.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Place {
    /// A path: absolute, or relative to the caller's working directory
    /// (the home already put in for `~` and `$HOME`).
    Path(String),
    /// Nothing the caller can place: a home that is not known, another
    /// user's home, a variable or command substitution, not text. Says
    /// why.
    Unknown(String),
}

/// The place of the working-directory value `value` (of the argument
/// `key`), with `home` (absolute) for `~`, `~/x`, `$HOME`, `$HOME/x`,
/// `${HOME}` and `${HOME}/x`. Unknown for those without a home, for
/// `~user`, for any other `$` or `` ` `` (expanded by a tool that runs
/// the value through a shell) and for a value that is not text.
pub fn expand_home(key: &str, value: &Value, home: Option<&str>) -> Place {
    let Some(text) = value.as_str() else {
        return Place::Unknown(format!("`{key}` (a working directory) is not text"));
    };
    let rest = if text == "~" || text == "$HOME" || text == "${HOME}" {
        Some("")
    } else {
        ["~/", "$HOME/", "${HOME}/"]
            .iter()
            .find_map(|p| text.strip_prefix(p))
    };
    let expanded = match rest {
        Some(rest) => match home.filter(|h| h.starts_with('/')) {
            Some(h) if rest.is_empty() => h.to_string(),
            Some(h) => format!("{}/{rest}", h.trim_end_matches('/')),
            None => {
                return Place::Unknown(format!(
                    "`{key}` names the home directory (`{text}`), and the home is not known"
                ));
            }
        },
        None if text.starts_with('~') => {
            return Place::Unknown(format!(
                "`{key}` names another user's home (`{text}`), which is not known"
            ));
        }
        None => text.to_string(),
    };
    if expanded.contains(['$', '`']) {
        return Place::Unknown(format!(
            "`{key}` (`{text}`) holds a variable or command substitution, whose value is not known"
        ));
    }
    Place::Path(expanded)
}

/// A directory a call's tool may resolve its relative paths (or run its
/// command) in, by [`bases`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Base {
    /// The caller's working directory (the `cwd` context attribute; none
    /// when it is absent).
    Context,
    /// An absolute directory a working-directory argument names, cleaned.
    Dir(String),
    /// A working-directory argument that cannot be placed (`~` with no
    /// home known, `~bob`, `$PWD`, a relative one with no absolute context
    /// cwd, not text), with why: what is relative to it is unknown, and
    /// the caller fails closed.
    Unknown(String),
}

/// Every directory a call with the arguments `args` may work in: each
/// working-directory argument ([`values`], and the keys named `extra`
/// matched as [`crate::roles::values`] does), placed by [`expand_home`]
/// with `home`, and against `ctx_cwd` (absolute) when relative. A
/// relative one gives the context's cwd too ([`Base::Context`]): a front
/// end (the hooks) may have placed it there already, and the call then
/// comes with it as its cwd. Empty text is no directory. No argument: the
/// context's cwd alone. Each distinct base once (one [`Base::Unknown`],
/// the first reason); the caller judges the call under each, the
/// strictest decision winning: the tool may work in any of them (the
/// hooks refuse two that differ). Read by shell-guard (where a command's
/// relative operands are) and path-guard (where a file tool's relative
/// paths are).
pub fn bases<S: AsRef<str>>(
    args: &Value,
    extra: &[S],
    ctx_cwd: Option<&str>,
    home: Option<&str>,
) -> Vec<Base> {
    let mut found: Vec<(String, &Value)> = values(args);
    for (key, value) in crate::roles::values(args, extra) {
        if !found.iter().any(|(_, v)| std::ptr::eq(*v, value)) {
            found.push((key.to_string(), value));
        }
    }
    let ctx_cwd = ctx_cwd.filter(|c| c.starts_with('/'));
    let mut out: Vec<Base> = Vec::new();
    let mut push = |b: Base| {
        let seen = match &b {
            Base::Unknown(_) => out.iter().any(|o| matches!(o, Base::Unknown(_))),
            _ => out.contains(&b),
        };
        if !seen {
            out.push(b);
        }
    };
    for (key, value) in found {
        if value.as_str().is_some_and(|s| s.trim().is_empty()) {
            continue;
        }
        match expand_home(&key, value, home) {
            Place::Path(p) if p.starts_with('/') => push(Base::Dir(crate::run::resolve("/", &p))),
            Place::Path(p) => match ctx_cwd {
                Some(c) => {
                    push(Base::Dir(crate::run::resolve(c, &p)));
                    push(Base::Context);
                }
                None => push(Base::Unknown(format!(
                    "`{key}` names the relative directory `{p}`, and the caller's working directory is not known"
                ))),
            },
            Place::Unknown(why) => push(Base::Unknown(why)),
        }
    }
    if out.is_empty() {
        out.push(Base::Context);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn every_spelling_of_a_working_directory_is_one() {
        for key in [
            "cwd",
            "CWD",
            "workdir",
            "working_directory",
            "workingDirectory",
            "WorkingDir",
            "working-dir",
            "working_dir",
            "directory",
            "dir",
            "dir_path",
            "dirPath",
            "directoryPath",
            "cwd_path",
            "cwdPath",
            "work_dir",
            "workDir",
            "current_dir",
            "currentDirectory",
            "currentWorkingDirectory",
            "base_dir",
            "project_dir",
            "project_directory",
            "chdir",
            "\u{17f}ub_dir",
        ] {
            assert!(is_workdir_key(key), "{key}");
        }
        for key in [
            "command",
            "cmd",
            "path",
            "file_path",
            "dirs",
            "directories",
            "timeout",
            "",
            "_",
            "discard",
            "direction",
        ] {
            assert!(!is_workdir_key(key), "{key}");
        }
    }

    #[test]
    fn values_are_found_at_the_top_and_one_object_down() {
        let args = json!({
            "command": "rm -rf *",
            "workingDirectory": "/home/alice",
            "options": {"cwd": "/srv", "timeout": 5, "env": {"cwd": "/deeper"}},
            "dir": null,
            "n": 3
        });
        let mut got: Vec<(String, &Value)> = values(&args);
        got.sort_by(|a, b| a.0.cmp(&b.0));
        assert_eq!(
            got,
            [
                ("options.cwd".to_string(), &json!("/srv")),
                ("workingDirectory".to_string(), &json!("/home/alice")),
            ]
        );
        assert!(values(&json!("x")).is_empty());
        assert!(values(&json!({"command": "ls"})).is_empty());
        // A value of another type is listed, for the caller to refuse.
        assert_eq!(values(&json!({"cwd": 7})), [("cwd".to_string(), &json!(7))]);
    }

    #[test]
    fn the_home_is_put_in_and_what_cannot_be_placed_is_unknown() {
        let home = Some("/home/alice");
        let p = |v: &str| expand_home("cwd", &json!(v), home);
        for (value, want) in [
            ("~", "/home/alice"),
            ("~/", "/home/alice"),
            ("~/src", "/home/alice/src"),
            ("$HOME", "/home/alice"),
            ("${HOME}", "/home/alice"),
            ("$HOME/x", "/home/alice/x"),
            ("${HOME}/x", "/home/alice/x"),
            ("sub/dir", "sub/dir"),
            ("/srv/app", "/srv/app"),
            ("a~b", "a~b"),
        ] {
            assert_eq!(p(value), Place::Path(want.into()), "{value}");
        }
        for value in ["~bob", "~bob/x", "$PWD", "${TMPDIR}/x", "`pwd`", "$HOMEX"] {
            assert!(matches!(p(value), Place::Unknown(_)), "{value}");
        }
        for value in ["~", "~/x", "$HOME"] {
            assert!(
                matches!(expand_home("cwd", &json!(value), None), Place::Unknown(_)),
                "{value}"
            );
            assert!(matches!(
                expand_home("cwd", &json!(value), Some("relative")),
                Place::Unknown(_)
            ));
        }
        assert!(matches!(
            expand_home("cwd", &json!(["/a"]), home),
            Place::Unknown(_)
        ));
    }

    #[test]
    fn bases_place_every_working_directory() {
        let home = Some("/home/alice");
        let cwd = Some("/home/alice/project");
        assert_eq!(
            bases(&json!({"path": "x"}), &[] as &[&str], cwd, home),
            [Base::Context]
        );
        assert_eq!(
            bases(
                &json!({"directory": "~/.ssh", "path": "id_rsa"}),
                &[] as &[&str],
                cwd,
                home
            ),
            [Base::Dir("/home/alice/.ssh".into())]
        );
        // A relative one, and the context's cwd (a front end may have
        // placed it already).
        assert_eq!(
            bases(
                &json!({"cwd": "sub/../src/", "file": "a"}),
                &[] as &[&str],
                cwd,
                home
            ),
            [Base::Dir("/home/alice/project/src".into()), Base::Context]
        );
        // Two that differ: both; the same twice: once; empty text: none.
        assert_eq!(
            bases(
                &json!({"dir": "/srv", "options": {"cwd": "/etc"}, "workdir": "/srv/", "wd": " "}),
                &[] as &[&str],
                cwd,
                home
            ),
            [Base::Dir("/srv".into()), Base::Dir("/etc".into())]
        );
        // Extra names of the caller's settings.
        assert_eq!(
            bases(&json!({"where": "/opt"}), &["where"], cwd, home),
            [Base::Dir("/opt".into())]
        );
        // What cannot be placed: one unknown, with why.
        for (args, ctx) in [
            (json!({"cwd": "~bob"}), cwd),
            (json!({"cwd": "$PWD/x", "dir": "`pwd`"}), cwd),
            (json!({"cwd": 7}), cwd),
            (json!({"cwd": "rel"}), None),
            (json!({"cwd": "rel"}), Some("relative/ctx")),
        ] {
            let b = bases(&args, &[] as &[&str], ctx, home);
            assert!(
                matches!(b.as_slice(), [Base::Unknown(why)] if !why.is_empty()),
                "{args}: {b:?}"
            );
        }
        assert!(matches!(
            bases(&json!({"cwd": "~"}), &[] as &[&str], cwd, None).as_slice(),
            [Base::Unknown(_)]
        ));
    }
}
