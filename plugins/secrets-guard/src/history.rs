//! Rules over the run's history:
//!
//! - `secrets.committed`: a `git add`/`git commit` that takes in a file a
//!   secret was written to earlier in the run (by a file tool or a shell
//!   redirection), or in the same command;
//! - `secrets.read-then-publish`: an outbound call carrying an encoded
//!   text blob (base64 or hex) after the run read a credential file or
//!   dumped the environment: the usual way a secret is disguised before it
//!   is sent.

use crate::SecretsGuard;
use check_catalog::encoded;
use check_catalog::sensitive::Sensitive;
use check_catalog::words;
use secrets_detect::Kind;
use serde_json::Value;
use toolvet_pdk::json::{Step, walk};
use toolvet_pdk::{Context, Decision, ToolCall};

/// What a `git` command in a shell call stages or commits.
struct Commit {
    /// Everything (`git add -A`, `.`, `git commit -a`).
    all: bool,
    /// Paths named after `git add`.
    paths: Vec<String>,
}

fn commit_of(command: &str) -> Option<Commit> {
    let mut found = None;
    for w in words::commands(command) {
        if words::base_name(&w[0]) != "git" {
            continue;
        }
        let sub = w
            .iter()
            .skip(1)
            .find(|a| !a.starts_with('-'))
            .map(String::as_str);
        let c = found.get_or_insert(Commit {
            all: false,
            paths: Vec::new(),
        });
        match sub {
            Some("add") => {
                let ops = words::operands(&w);
                c.all |= w
                    .iter()
                    .any(|a| matches!(a.as_str(), "-A" | "--all" | "-u" | "--update"))
                    || ops.iter().skip(1).any(|o| *o == "." || *o == "*");
                c.paths.extend(ops.iter().skip(1).map(|o| o.to_string()));
            }
            Some("commit") => {
                c.all |= w.iter().any(|a| {
                    a == "--all" || (a.starts_with('-') && !a.starts_with("--") && a.contains('a'))
                });
            }
            _ => {}
        }
    }
    found.filter(|c| c.all || !c.paths.is_empty())
}

/// The file an earlier call wrote and the strings it wrote: a write tool's
/// path argument, or a shell redirection's target.
fn written(guard: &SecretsGuard, name: &str, args: &Value) -> Option<(String, Value)> {
    if guard.router.is_write_tool(name) {
        let path = guard.router.path_of(args)?;
        return Some((path, args.clone()));
    }
    if guard.router.is_shell_tool(name) {
        let cmd = args.get("command").or_else(|| args.get("cmd"))?.as_str()?;
        let target = cmd
            .split(['>'])
            .nth(1)?
            .split_whitespace()
            .next()?
            .trim_matches(['\'', '"'])
            .to_string();
        return Some((target, Value::String(cmd.to_string())));
    }
    None
}

impl SecretsGuard {
    /// `secrets.committed`, for a shell call that stages or commits.
    pub(crate) fn committed(&self, call: &ToolCall, ctx: &Context) -> Option<Decision> {
        if !self.router.is_shell_tool(&call.name) {
            return None;
        }
        let cmd = call
            .json()
            .get("command")
            .or_else(|| call.json().get("cmd"))?
            .as_str()?;
        let commit = commit_of(cmd)?;
        let real = |v: &Value| {
            self.find(v, &v.to_string())
                .into_iter()
                .find(|f| f.kind != Kind::HighEntropy)
        };
        // Written in the same command: `echo KEY=… >> f && git add f`.
        if cmd.contains('>')
            && let Some(f) = real(call.json())
        {
            return Some(self.committed_decision(f.kind, "in this command"));
        }
        for p in ctx.history.iter().filter(|p| p.outcome.ran()) {
            let Ok(args) = serde_json::from_str::<Value>(&p.arguments) else {
                continue;
            };
            let Some((path, content)) = written(self, &p.name, &args) else {
                continue;
            };
            let included = commit.all
                || commit.paths.iter().any(|c| {
                    path.ends_with(c.trim_start_matches("./"))
                        || c.ends_with(path.trim_start_matches("./"))
                });
            if included && let Some(f) = real(&content) {
                return Some(
                    self.committed_decision(f.kind, &format!("into `{path}` earlier in this run")),
                );
            }
        }
        None
    }

    fn committed_decision(&self, kind: Kind, where_: &str) -> Decision {
        Decision::deny(
            "secrets.committed",
            format!(
                "{kind} was written {where_}, and this command stages or commits that file: once committed (and \
                 pushed) the secret is in the repository's history for good. Remove the value from the file (read it \
                 from an environment variable or a secret store instead), keep such files in `.gitignore`, then commit."
            ),
        )
    }

    /// `secrets.read-then-publish`, for an outbound call.
    pub(crate) fn read_then_publish(&self, call: &ToolCall, ctx: &Context) -> Option<Decision> {
        let at = encoded_text_at(call.json())?;
        let read = ctx
            .history
            .iter()
            .filter(|p| p.outcome.ran())
            .find_map(|p| sensitive_read(&p.arguments))?;
        Some(Decision::deny(
            "secrets.read-then-publish",
            format!(
                "`{at}` holds encoded text (base64 or hex), and earlier in this run {read}: encoding a secret before \
                 sending it is how it is hidden. Send only the data the task needs, in plain text, and never \
                 credentials or the environment."
            ),
        ))
    }
}

/// The path of the first string of `args` that holds encoded text.
fn encoded_text_at(args: &Value) -> Option<String> {
    let mut at = None;
    walk(args, "arguments", &mut |n| {
        if let Value::String(s) = n.value
            && s.len() >= 40
            && !encoded::decoded_texts(s).is_empty()
        {
            at = Some(n.path.to_string());
            return Step::Stop;
        }
        Step::Descend
    });
    at
}

/// Whether some string of `args` holds encoded text (cheap when none is
/// 40 characters long).
pub(crate) fn has_encoded_text(args: &Value) -> bool {
    encoded_text_at(args).is_some()
}

/// What sensitive thing an earlier call read, if any: a credential file
/// (shell command or file tool) or the whole environment.
fn sensitive_read(arguments: &str) -> Option<String> {
    static S: std::sync::OnceLock<Sensitive> = std::sync::OnceLock::new();
    let sensitive =
        S.get_or_init(|| Sensitive::new(&[], &[]).expect("default sensitive patterns are valid"));
    let args: Value = serde_json::from_str(arguments).ok()?;
    let mut found = None;
    walk(&args, "arguments", &mut |n| {
        let Value::String(s) = n.value else {
            return Step::Descend;
        };
        for w in words::commands(s) {
            let name = words::base_name(&w[0]);
            if matches!(name, "env" | "printenv") && w.len() == 1 {
                found = Some("it printed the environment".to_string());
            }
            for op in w.iter().skip(1) {
                let p = op
                    .replace("~/", "/home/user/")
                    .replace("$HOME/", "/home/user/");
                let p = if p.starts_with('/') {
                    p
                } else {
                    format!("/w/{p}")
                };
                if let Some(label) = sensitive.matches(&p) {
                    found = Some(format!("it read `{op}`, {label}"));
                }
            }
        }
        if found.is_some() {
            Step::Stop
        } else {
            Step::Descend
        }
    });
    found
}
