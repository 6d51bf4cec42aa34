//! Package installers that put programs into a directory (review s25
//! R15): `cargo install`, `go install`, `pip install --user`, `pipx
//! install`, `uv tool install`, `npm install -g`. The names of the
//! programs come from the package (a crate's `[[bin]] name = "toolvet"`),
//! not from the command, so an install is a write of files of unknown
//! names into the directory it installs into: the one the command names
//! (`--root`, `GOBIN`, `--prefix`) or the installer's default
//! (`~/.cargo/bin`, `~/go/bin`, `~/.local/bin`). A directory holding a
//! guard rail (the hook program, the agent's launcher, both in
//! `toolvet.state_paths`) is written like any other writer's (see
//! `Analysis::fills_dir`).

use crate::syntax::{Field, Seg};
use crate::walk::commands::base_name;
use crate::walk::{Analysis, Env};

/// The variables naming where an installer puts programs: set before the
/// command (`GOBIN=DIR go install …`), they hold for that command only
/// (see `walk::command_scoped`).
pub(crate) const INSTALL_VARIABLES: &[&str] = &[
    "CARGO_INSTALL_ROOT",
    "CARGO_HOME",
    "GOBIN",
    "GOPATH",
    "PYTHONUSERBASE",
    "PIPX_BIN_DIR",
    "UV_TOOL_BIN_DIR",
    "XDG_BIN_HOME",
    "NPM_CONFIG_PREFIX",
    "npm_config_prefix",
];

/// `dir` + `/rest` (`~/.cargo` + `bin`).
fn joined(dir: &Field, rest: &str) -> Field {
    let mut segs = dir.segs.clone();
    segs.push(Seg::Lit {
        text: format!("/{rest}"),
        quoted: true,
    });
    Field { segs }
}

/// `~/rest`.
fn in_home(rest: &str) -> Field {
    Field {
        segs: vec![
            Seg::Home(None),
            Seg::Lit {
                text: format!("/{rest}"),
                quoted: true,
            },
        ],
    }
}

/// The value of `--opt VALUE` or `--opt=VALUE` (the last one given).
fn option(args: &[Field], names: &[&str]) -> Option<Field> {
    let mut found = None;
    let mut i = 0;
    while let Some(a) = args.get(i) {
        let t = a.text();
        if t == "--" {
            break;
        }
        if names.contains(&t.as_str()) {
            found = args.get(i + 1).cloned();
            i += 1;
        } else if let Some((o, v)) = t.split_once('=')
            && names.contains(&o)
        {
            found = Some(Field::lit(v));
        }
        i += 1;
    }
    found
}

/// Whether `--flag` (or a short `-f` in a cluster) is among the words.
fn flag(texts: &[String], long: &[&str], short: Option<char>) -> bool {
    texts.iter().take_while(|t| *t != "--").any(|t| {
        long.contains(&t.as_str())
            || short.is_some_and(|c| {
                t.len() > 1 && t.starts_with('-') && !t.starts_with("--") && t[1..].contains(c)
            })
    })
}

/// The first operand (word not an option, not `+toolchain`), skipping
/// the values of `valued` options.
fn subcommand<'a>(texts: &'a [String], valued: &[&str]) -> Option<(usize, &'a str)> {
    let mut i = 0;
    while let Some(t) = texts.get(i) {
        if valued.contains(&t.as_str()) {
            i += 2;
            continue;
        }
        if !t.starts_with('-') && !t.starts_with('+') {
            return Some((i, t));
        }
        i += 1;
    }
    None
}

/// A variable's value set in the command or the script, if any.
fn variable(env: &Env, name: &str) -> Option<Field> {
    env.vars.get(name).cloned()
}

/// The directories `name args` installs programs into.
fn install_dirs(name: &str, args: &[Field], env: &Env) -> Vec<Field> {
    let texts: Vec<String> = args.iter().map(Field::text).collect();
    let program = base_name(name);
    let mut dirs = Vec::new();
    match program.as_str() {
        // `cargo install [--root DIR]`: DIR/bin, else
        // `$CARGO_INSTALL_ROOT/bin`, `$CARGO_HOME/bin`, `~/.cargo/bin`;
        // `cargo binstall --install-path DIR` into DIR.
        "cargo" => {
            let Some((k, sub)) = subcommand(&texts, &["--config", "-Z", "-C", "--color"]) else {
                return dirs;
            };
            let rest = &args[k + 1..];
            if !matches!(sub, "install" | "binstall") || flag(&texts[k + 1..], &["--list"], None) {
                return dirs;
            }
            if let Some(d) = option(rest, &["--install-path"]) {
                dirs.push(d);
            }
            let root = option(rest, &["--root"])
                .or_else(|| variable(env, "CARGO_INSTALL_ROOT"))
                .or_else(|| variable(env, "CARGO_HOME"));
            dirs.push(match root {
                Some(r) => joined(&r, "bin"),
                None => in_home(".cargo/bin"),
            });
        }
        // `go install PKG`: `$GOBIN`, else the first `$GOPATH` entry's
        // `bin`, else `~/go/bin`.
        "go" => {
            if subcommand(&texts, &["-C"]).map(|(_, s)| s) != Some("install") {
                return dirs;
            }
            if let Some(d) = variable(env, "GOBIN") {
                dirs.push(d);
            } else if let Some(p) = variable(env, "GOPATH") {
                let first = match p.static_text() {
                    Some(t) => Field::lit(t.split(':').next().unwrap_or(&t)),
                    None => p,
                };
                dirs.push(joined(&first, "bin"));
            } else {
                dirs.push(in_home("go/bin"));
            }
        }
        // `pip install --user`: the user scheme's `bin`
        // (`$PYTHONUSERBASE/bin`, `~/.local/bin`). `--target`, `--prefix`
        // and `--root` are read with `python -m pip` (`code::modules`).
        p if p
            .strip_prefix("pip")
            .is_some_and(|v| v.chars().all(|c| c.is_ascii_digit() || c == '.'))
            && subcommand(&texts, &[]).map(|(_, s)| s) == Some("install")
            && flag(&texts, &["--user"], None) =>
        {
            dirs.push(match variable(env, "PYTHONUSERBASE") {
                Some(b) => joined(&b, "bin"),
                None => in_home(".local/bin"),
            });
        }
        // `pipx install|reinstall|upgrade|install-all`: `$PIPX_BIN_DIR`,
        // else `~/.local/bin`.
        "pipx" => {
            if matches!(
                subcommand(&texts, &[]).map(|(_, s)| s),
                Some("install" | "reinstall" | "reinstall-all" | "upgrade" | "upgrade-all")
            ) {
                dirs.push(variable(env, "PIPX_BIN_DIR").unwrap_or_else(|| in_home(".local/bin")));
            }
        }
        // `uv tool install|upgrade`: `$UV_TOOL_BIN_DIR`, `$XDG_BIN_HOME`,
        // else `~/.local/bin`.
        "uv" => {
            if let Some((k, "tool")) = subcommand(&texts, &[])
                && matches!(
                    subcommand(&texts[k + 1..], &[]).map(|(_, s)| s),
                    Some("install" | "upgrade")
                )
            {
                dirs.push(
                    variable(env, "UV_TOOL_BIN_DIR")
                        .or_else(|| variable(env, "XDG_BIN_HOME"))
                        .unwrap_or_else(|| in_home(".local/bin")),
                );
            }
        }
        // `npm install -g` (`i`, `add`, `update`, `link`): the prefix's
        // `bin` and `lib/node_modules` (`--prefix`, `$NPM_CONFIG_PREFIX`);
        // without one, the prefix an agent launcher among the guarded
        // programs was installed under (`…/lib/node_modules/…`).
        "npm" | "pnpm" => {
            let global = flag(&texts, &["--global", "--location=global"], Some('g'));
            let installs = matches!(
                subcommand(&texts, &["--prefix", "--location"]).map(|(_, s)| s),
                Some("install" | "i" | "add" | "update" | "up" | "upgrade" | "link" | "ln")
            );
            if !(global && installs) {
                return dirs;
            }
            let prefix = option(args, &["--prefix"])
                .or_else(|| variable(env, "NPM_CONFIG_PREFIX"))
                .or_else(|| variable(env, "npm_config_prefix"));
            if let Some(p) = prefix {
                dirs.push(joined(&p, "bin"));
                dirs.push(joined(&p, "lib/node_modules"));
            }
        }
        _ => {}
    }
    dirs
}

/// The npm prefixes the guarded programs were installed under: the part
/// of a path before `/lib/node_modules/`.
fn npm_prefixes(state: &[String]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for p in state {
        if let Some((prefix, _)) = p.split_once("/lib/node_modules/")
            && !prefix.is_empty()
            && !out.iter().any(|o| o == prefix)
        {
            out.push(prefix.to_string());
        }
    }
    out
}

impl Analysis<'_> {
    /// A package installer's programs written into the directory it
    /// installs into ([`install_dirs`]), judged as files of unknown names
    /// written there.
    pub(crate) fn installer_writes(&mut self, name: &str, args: &[Field], env: &mut Env) {
        let mut dirs = install_dirs(name, args, env);
        let texts: Vec<String> = args.iter().map(Field::text).collect();
        let npm_default = matches!(base_name(name).as_str(), "npm" | "pnpm")
            && flag(&texts, &["--global", "--location=global"], Some('g'))
            && dirs.is_empty()
            && option(args, &["--prefix"]).is_none();
        if npm_default
            && matches!(
                subcommand(&texts, &["--prefix", "--location"]).map(|(_, s)| s),
                Some("install" | "i" | "add" | "update" | "up" | "upgrade" | "link" | "ln")
            )
        {
            for p in npm_prefixes(&self.state.state) {
                dirs.push(Field::lit(format!("{p}/bin")));
                dirs.push(Field::lit(format!("{p}/lib/node_modules")));
            }
        }
        for dir in dirs {
            if self.done() {
                return;
            }
            let Some(abs) = self.abs_path(&dir, env) else {
                continue;
            };
            // A guarded program (the hook program, the agent's launcher)
            // in DIR: written, as by any writer of unknown names there.
            let guarded = self
                .state
                .state
                .iter()
                .chain(&self.state.secret)
                .any(|p| crate::paths::is_at_or_under(p, &abs));
            if guarded {
                self.fills_dir(name, &dir, env, false);
            } else if let Some((_, rail)) = self.state.rail_within(&abs) {
                // A built-in guard rail there (`~/.local/bin/env`, which
                // shell start-up files source): a package's program may
                // bear its name. Held rather than denied: installing into
                // the usual directory is common and the name is the
                // package's.
                self.report(
                    false,
                    "shell.guardrail-write",
                    format!(
                        "`{name}` installs programs named by the package into `{}`, which holds `{rail}`, a file \
                         that runs by itself; a person must approve it.",
                        dir.text()
                    ),
                );
            }
        }
    }
}
