//! Programs changing what they later run through their own configuration
//! commands (review s23 V8): `npm config set script-shell /tmp/e`, `npm
//! pkg set scripts.test=…`, `gh alias set x --shell …`, `pip config set
//! global.index-url …`. Each writes a file the program reads on every later
//! run (`~/.npmrc`, package.json, gh's and pip's configuration), the same
//! persistence a redirection into those files is held for.
//!
//! The property that must be proven for such a command to pass: every key
//! it sets is in the setter's list of keys that only hold data
//! ([`ConfigSetter::data_keys`]); anything else (a key that names a
//! program, a shell, an index or a hook, an editor session, a key the
//! reader cannot read) is held as a guard-rail write. Values that are shell
//! text (`scripts.*`, `gh alias set --shell`) are also judged as commands.

use crate::syntax::Field;
use crate::walk::{Analysis, Env};

/// One program's configuration-setting subcommand.
struct ConfigSetter {
    /// The program's names.
    programs: &'static [&'static str],
    /// The operand words that select the subcommand (`config set`).
    sub: &'static [&'static str],
    /// The file it edits, for the message.
    file: &'static str,
    /// Keys that only hold data (lower case; a trailing `*` matches any
    /// rest). Empty: every use is held (`npm config edit`).
    data_keys: &'static [&'static str],
    /// Keys whose values are shell commands the program runs later.
    shell_keys: &'static [&'static str],
}

const NPM: &[&str] = &["npm", "pnpm", "yarn", "bun"];

/// npm-family keys that hold no program, path or source of code.
const NPM_DATA_KEYS: &[&str] = &[
    "init-*",
    "init.*",
    "loglevel",
    "fund",
    "audit",
    "progress",
    "color",
    "save-exact",
    "save-prefix",
    "update-notifier",
    "engine-strict",
];

/// package.json fields that hold only data (`npm pkg set version=1.2.3`).
const PKG_DATA_KEYS: &[&str] = &[
    "name",
    "version",
    "description",
    "keywords*",
    "author*",
    "contributors*",
    "license",
    "homepage",
    "repository*",
    "bugs*",
    "funding*",
    "private",
    "engines*",
];

/// Every configuration subcommand the check reads, the one table of them.
const CONFIG_SETTERS: &[ConfigSetter] = &[
    ConfigSetter {
        programs: NPM,
        sub: &["config", "set"],
        file: "the user's .npmrc",
        data_keys: NPM_DATA_KEYS,
        shell_keys: &[],
    },
    ConfigSetter {
        programs: NPM,
        sub: &["c", "set"],
        file: "the user's .npmrc",
        data_keys: NPM_DATA_KEYS,
        shell_keys: &[],
    },
    ConfigSetter {
        programs: NPM,
        sub: &["set"],
        file: "the user's .npmrc",
        data_keys: NPM_DATA_KEYS,
        shell_keys: &[],
    },
    ConfigSetter {
        programs: NPM,
        sub: &["config", "edit"],
        file: "the user's .npmrc",
        data_keys: &[],
        shell_keys: &[],
    },
    ConfigSetter {
        programs: NPM,
        sub: &["pkg", "set"],
        file: "package.json",
        data_keys: PKG_DATA_KEYS,
        shell_keys: &["scripts.*"],
    },
    ConfigSetter {
        programs: &["gh"],
        sub: &["config", "set"],
        file: "gh's configuration",
        data_keys: &[
            "git_protocol",
            "prompt",
            "spinner",
            "color_labels",
            "accessible_colors",
            "accessible_prompter",
        ],
        shell_keys: &[],
    },
    ConfigSetter {
        programs: &["gh"],
        sub: &["alias", "import"],
        file: "gh's aliases",
        data_keys: &[],
        shell_keys: &[],
    },
    ConfigSetter {
        programs: &["pip", "pip3"],
        sub: &["config", "set"],
        file: "pip's configuration",
        data_keys: &[
            "global.timeout",
            "global.retries",
            "global.no-color",
            "global.progress-bar",
            "global.disable-pip-version-check",
        ],
        shell_keys: &[],
    },
    ConfigSetter {
        programs: &["pip", "pip3"],
        sub: &["config", "edit"],
        file: "pip's configuration",
        data_keys: &[],
        shell_keys: &[],
    },
    ConfigSetter {
        programs: &["poetry"],
        sub: &["config"],
        file: "poetry's configuration",
        data_keys: &["virtualenvs.in-project", "virtualenvs.create"],
        shell_keys: &[],
    },
];

/// Whether `key` is in `keys` (lower case; a trailing `*` is any rest).
fn key_in(key: &str, keys: &[&str]) -> bool {
    let key = key.to_ascii_lowercase();
    keys.iter().any(|k| match k.strip_suffix('*') {
        Some(prefix) => key.starts_with(prefix),
        None => key == *k,
    })
}

/// The `(key, value)` pairs of the operands after a setter's subcommand:
/// `KEY=VALUE` words, or `KEY VALUE` pairs; `None` when a word is only
/// known at run time.
fn settings(operands: &[&Field]) -> Option<Vec<(String, Option<String>)>> {
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(w) = operands.get(i) {
        let t = w.static_text()?;
        match t.split_once('=') {
            Some((k, v)) => out.push((k.to_string(), Some(v.to_string()))),
            None => {
                let v = match operands.get(i + 1) {
                    Some(v) => Some(v.static_text()?),
                    None => None,
                };
                out.push((t, v));
                i += 1;
            }
        }
        i += 1;
    }
    Some(out)
}

impl Analysis<'_> {
    /// A program's own configuration command ([`CONFIG_SETTERS`], `gh
    /// alias set`): held unless every key set only holds data; shell text
    /// it stores is judged as commands too (review s23 V8).
    pub(crate) fn config_commands(&mut self, name: &str, args: &[Field], env: &Env, depth: u32) {
        let operands: Vec<&Field> = args.iter().filter(|a| !a.text().starts_with('-')).collect();
        if name == "gh"
            && operands.len() >= 2
            && operands[0].text() == "alias"
            && operands[1].text() == "set"
        {
            self.gh_alias(args, env, depth);
            return;
        }
        let Some(setter) = CONFIG_SETTERS.iter().find(|s| {
            s.programs.contains(&name)
                && operands.len() >= s.sub.len()
                && s.sub.iter().zip(&operands).all(|(w, o)| o.text() == *w)
        }) else {
            return;
        };
        let what = format!("`{name} {}`", setter.sub.join(" "));
        let held = match settings(&operands[setter.sub.len()..]) {
            None => Some("sets a key only known at run time".to_string()),
            Some(_) if setter.data_keys.is_empty() => Some("edits it as a whole".to_string()),
            Some(pairs) => {
                for (k, v) in &pairs {
                    if key_in(k, setter.shell_keys)
                        && let Some(v) = v
                    {
                        let mut e = env.clone();
                        self.script(v, &mut e, depth + 1, &crate::syntax::Output::Unknown);
                    }
                }
                pairs
                    .iter()
                    .find(|(k, _)| !key_in(k, setter.data_keys))
                    .map(|(k, _)| format!("sets `{k}`, which is not a key that only holds data"))
            }
        };
        if let Some(why) = held {
            self.report_config_write(&what, setter.file, &why);
        }
    }

    /// `gh alias set NAME EXPANSION`: an expansion run by the shell
    /// (`--shell`, `-s`, or starting with `!`) is judged as commands and
    /// held; one that is a gh command passes.
    fn gh_alias(&mut self, args: &[Field], env: &Env, depth: u32) {
        let shell = args
            .iter()
            .any(|a| matches!(a.text().as_str(), "--shell" | "-s"));
        let operands: Vec<&Field> = args.iter().filter(|a| !a.text().starts_with('-')).collect();
        let expansion = operands.get(3).map(|f| f.static_text());
        let text = match expansion {
            Some(Some(t)) => t,
            // From standard input (`-`) or only known at run time.
            _ => {
                self.report_config_write(
                    "`gh alias set`",
                    "gh's aliases",
                    "reads its expansion from elsewhere",
                );
                return;
            }
        };
        if shell || text.starts_with('!') {
            let mut e = env.clone();
            self.script(
                text.trim_start_matches('!'),
                &mut e,
                depth + 1,
                &crate::syntax::Output::Unknown,
            );
            self.report_config_write(
                "`gh alias set`",
                "gh's aliases",
                "stores shell text gh runs later",
            );
        }
    }

    fn report_config_write(&mut self, what: &str, file: &str, why: &str) {
        self.report(
            false,
            "shell.guardrail-write",
            format!(
                "{what} changes {file}, which the program reads on every later run, and {why}: what the program \
                 runs later is changed. A person must approve it as it is."
            ),
        );
    }
}
