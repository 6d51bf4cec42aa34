//! Other coding agents' command-line tools run by the agent (`claude`,
//! `codex`, `gemini`, …), found directly, through package runners (`npx`,
//! `uvx`, `nix run`) or container runtimes, and the flags and settings
//! that turn their own approvals off.

use super::*;

/// Agent CLIs and the options that turn their permission checks off.
const UNSAFE_AGENT_FLAGS: &[(&str, &str)] = &[
    ("claude", "--dangerously-skip-permissions"),
    ("claude", "bypassPermissions"),
    ("gemini", "--yolo"),
    ("gemini", "-y"),
    ("gemini", "yolo"),
    ("codex", "--dangerously-bypass-approvals-and-sandbox"),
    ("codex", "--yolo"),
    ("codex", "danger-full-access"),
    ("q", "--trust-all-tools"),
    ("amazon-q", "--trust-all-tools"),
    ("kiro-cli", "--trust-all-tools"),
    ("droid", "--skip-permissions-unsafe"),
    ("aider", "--yes-always"),
    ("cursor-agent", "--force"),
    ("opencode", "--dangerously-skip-permissions"),
];

/// Agent CLIs: started from an agent's shell, each runs tool calls of its
/// own, which this session's hooks see only if its settings say so. Each
/// with the packages it is published as (`npx @anthropic-ai/claude-code`,
/// `uvx aider-chat`) and the unscoped names those run under. The one
/// table every spelling of a launch is read against ([`agent_named`],
/// [`agent_package_dir`]).
const AGENT_CLIS: &[(&str, &[&str])] = &[
    ("claude", &["@anthropic-ai/claude-code", "claude-code"]),
    ("codex", &["@openai/codex"]),
    ("gemini", &["@google/gemini-cli", "gemini-cli"]),
    ("qwen", &["@qwen-code/qwen-code", "qwen-code"]),
    ("opencode", &["opencode-ai"]),
    ("aider", &["aider-chat"]),
    ("cursor-agent", &[]),
    ("copilot", &["@github/copilot"]),
    ("amp", &["@sourcegraph/amp"]),
    ("goose", &[]),
    ("crush", &["@charmland/crush"]),
    ("auggie", &["@augmentcode/auggie"]),
    ("kilocode", &["@kilocode/cli"]),
    ("interpreter", &["open-interpreter"]),
    ("grok", &["@vibe-kit/grok-cli", "grok-cli"]),
    ("openhands", &["openhands-ai"]),
    ("cn", &["@continuedev/cli"]),
    ("cline", &["@cline/cli"]),
    ("droid", &[]),
    ("amazon-q", &[]),
    ("kiro-cli", &[]),
];

/// The package a runner's package word names, without what pins or
/// locates it: `@scope/pkg@latest` and `pkg@1.2` are `@scope/pkg` and
/// `pkg`, `npm:@scope/pkg` is `@scope/pkg`, `pkg==1.0`/`pkg[extra]` are
/// `pkg`, and a tarball URL or file (`…/@scope/pkg/-/pkg-1.2.tgz`,
/// `scope-pkg-1.2.tgz`) the package it holds.
fn package_name(word: &str) -> String {
    let w = word.trim().to_ascii_lowercase();
    if let Some(repo) = hosted_repository(&w) {
        return repo;
    }
    let w = w
        .strip_prefix("npm:")
        .or_else(|| w.strip_prefix("jsr:"))
        .unwrap_or(&w)
        .to_string();
    if let Some(stem) = w.strip_suffix(".tgz").or_else(|| w.strip_suffix(".tar.gz")) {
        // A registry URL names the package before `/-/`.
        if let Some((before, _)) = stem.split_once("/-/") {
            let parts: Vec<&str> = before.rsplit('/').take(2).collect();
            return match parts.as_slice() {
                [name, scope, ..] if scope.starts_with('@') => format!("{scope}/{name}"),
                [name, ..] => name.to_string(),
                [] => before.to_string(),
            };
        }
        // `pkg-1.2.3.tgz` (scoped ones packed as `scope-pkg-1.2.3.tgz`).
        let file = crate::walk::commands::base_name(stem);
        let cut = file
            .match_indices('-')
            .find(|(i, _)| file[i + 1..].starts_with(|c: char| c.is_ascii_digit()))
            .map_or(file.len(), |(i, _)| i);
        return file[..cut].to_string();
    }
    // A git source: `github:owner/pkg#ref`, `git+https://…/pkg.git`.
    let w = w.split('#').next().unwrap_or(&w);
    let w = w.strip_suffix(".git").unwrap_or(w).to_string();
    // The version after the (scoped) name: `@scope/pkg@ver`, `pkg@ver`.
    let from = if w.starts_with('@') { 1 } else { 0 };
    let mut end = w[from..].find('@').map_or(w.len(), |i| from + i);
    // Python requirement spellings: `pkg==1.0`, `pkg>=1`, `pkg[extra]`.
    if let Some(i) = w[..end].find(['=', '<', '>', '!', '~', '[', ';', ' ']) {
        end = i;
    }
    w[..end].to_string()
}

/// The repository a source-host URL names (review s15 N5):
/// `git+ssh://git@github.com/OWNER/REPO.git`, `git@github.com:OWNER/REPO`,
/// `https://github.com/OWNER/REPO/archive/main.tar.gz`,
/// `https://codeload.github.com/OWNER/REPO/tar.gz/main`, the same on
/// GitLab and Bitbucket: REPO.
fn hosted_repository(w: &str) -> Option<String> {
    let rest = w.strip_prefix("git+").unwrap_or(w);
    let rest = ["https://", "http://", "ssh://", "git://"]
        .iter()
        .find_map(|s| rest.strip_prefix(s))
        .unwrap_or(rest);
    let rest = rest
        .split_once('@')
        .map_or(rest, |(user, r)| if user.contains('/') { rest } else { r });
    let (host, path) = rest.split_once(['/', ':'])?;
    let host = host.strip_prefix("www.").unwrap_or(host);
    if !matches!(
        host,
        "github.com" | "codeload.github.com" | "gitlab.com" | "bitbucket.org"
    ) {
        return None;
    }
    let repo = path
        .split(['/', '#', '?'])
        .filter(|p| !p.is_empty())
        .nth(1)?;
    Some(repo.strip_suffix(".git").unwrap_or(repo).to_string())
}

/// The agent CLI (its command name) that `word` names as a program or a
/// package, in any spelling [`package_name`] reads: `claude`,
/// `/usr/local/bin/claude`, `@anthropic-ai/claude-code@latest`,
/// `claude-code@2.0.14`, `npm:@openai/codex`, a tarball of one.
pub(crate) fn agent_named(word: &str) -> Option<&'static str> {
    let package = package_name(word);
    let base = crate::walk::commands::base_name(&package);
    let packed = |p: &str| p.trim_start_matches('@').replace('/', "-");
    AGENT_CLIS.iter().find_map(|(cli, names)| {
        let hit = [package.as_str(), base.as_str()]
            .iter()
            .any(|w| w == cli || names.contains(w))
            || names
                .iter()
                .any(|n| n.starts_with('@') && packed(n) == package);
        hit.then_some(*cli)
    })
}

/// The agent CLI whose installed package directory `path` lies in
/// (`/usr/lib/node_modules/@anthropic-ai/claude-code/cli.js`,
/// `$(npm root -g)/@openai/codex/bin/codex.js`,
/// `…/node_modules/opencode-ai/bin/opencode`), or whose own program it is
/// (`/usr/local/bin/gemini`).
fn agent_package_dir(path: &str) -> Option<&'static str> {
    let parts: Vec<&str> = path.split('/').collect();
    let in_dir = |package: &str| match package.split_once('/') {
        Some((scope, name)) => parts.windows(2).any(|w| w[0] == scope && w[1] == name),
        None => parts
            .windows(2)
            .any(|w| w[0] == "node_modules" && w[1] == package),
    };
    AGENT_CLIS
        .iter()
        .find(|(_, names)| names.iter().any(|n| in_dir(n)))
        .map(|(cli, _)| *cli)
        .or_else(|| {
            let base = crate::walk::commands::base_name(path);
            AGENT_CLIS
                .iter()
                .find(|(cli, _)| *cli == base)
                .map(|(cli, _)| *cli)
        })
}

/// The agent CLI a command substitution's source names (`$(which
/// claude)`, `$(command -v gemini)`, `` `npm root -g`/@openai/codex ``):
/// one of its words is an agent CLI or package.
fn agent_in_substitution(raw: &str) -> Option<&'static str> {
    if !raw.contains("$(") && !raw.contains('`') {
        return None;
    }
    raw.split(|c: char| !(c.is_ascii_alphanumeric() || "@/._-".contains(c)))
        .filter(|w| !w.is_empty())
        .find_map(|w| agent_named(w).or_else(|| agent_package_dir(w)))
}

/// Package runners: the words from which their options and the package
/// or program follow (`npx`, `pnpm dlx`, `npm exec`, `uvx`, `pipx run`).
fn package_runner_words<'a>(name: &str, texts: &'a [String]) -> Option<&'a [String]> {
    let first = texts.first().map(String::as_str);
    match name {
        "npx" | "bunx" | "pnpx" | "uvx" => Some(texts),
        "pnpm" | "yarn" | "npm" | "bun" if matches!(first, Some("exec" | "dlx" | "x")) => {
            Some(&texts[1..])
        }
        "pipx" | "volta" if first == Some("run") => Some(&texts[1..]),
        "uv" if first == Some("tool") && texts.get(1).is_some_and(|t| t == "run") => {
            Some(&texts[2..])
        }
        _ => None,
    }
}

/// Package runner options whose value names a package.
const PACKAGE_OPTIONS: &[&str] = &["-p", "--package", "--from", "--spec", "--with"];

/// Package runner options whose value is something else.
const RUNNER_VALUE_OPTIONS: &[&str] = &[
    "--cache",
    "--prefix",
    "-C",
    "--cwd",
    "--dir",
    "--registry",
    "-w",
    "--workspace",
    "--python",
    "--index-url",
    "--extra-index-url",
    "-i",
    "--userconfig",
    "-c",
    "--call",
    "--shell-mode",
    "--pip-args",
    "--node",
    "--npm",
    "--pnpm",
    "--yarn",
    "--env",
];

/// The agent CLI a package runner starts, with the words after its
/// program: the package (any spelling, [`agent_named`]) or any value of
/// `-p/--package/--from/--spec/--with` names one (`npx -p
/// @anthropic-ai/claude-code@latest claude -p …`, `npm exec PKG@VER --
/// -p hi`, `pipx run aider-chat`) (review s14 N2).
pub(super) fn runner_agent(name: &str, texts: &[String]) -> Option<(&'static str, Vec<String>)> {
    if name == "nix" {
        return nix_agent(texts);
    }
    let words = package_runner_words(name, texts)?;
    let mut found = None;
    let mut i = 0;
    while let Some(t) = words.get(i) {
        i += 1;
        if t == "--" {
            if let Some(p) = words.get(i) {
                found = found.or_else(|| agent_named(p));
                return found.map(|cli| (cli, words[i + 1..].to_vec()));
            }
            break;
        }
        if PACKAGE_OPTIONS.contains(&t.as_str()) {
            if let Some(v) = words.get(i) {
                found = found.or_else(|| agent_named(v));
            }
            i += 1;
            continue;
        }
        if let Some((key, value)) = t.split_once('=')
            && PACKAGE_OPTIONS.contains(&key)
        {
            found = found.or_else(|| agent_named(value));
            continue;
        }
        if RUNNER_VALUE_OPTIONS.contains(&t.as_str()) {
            i += 1;
            continue;
        }
        if t.starts_with('-') {
            continue;
        }
        // The package or program; after it, its own words (`npm exec
        // PKG -- ARGS`: after the `--`).
        found = found.or_else(|| agent_named(t));
        let mut rest = &words[i..];
        if rest.first().is_some_and(|w| w == "--") {
            rest = &rest[1..];
        }
        return found.map(|cli| (cli, rest.to_vec()));
    }
    found.map(|cli| (cli, Vec::new()))
}

/// `nix run|shell|develop FLAKEREF#ATTR …`, `nix shell … -c CMD`: the
/// agent CLI an installable's attribute (`nixpkgs#claude-code`,
/// `github:NixOS/nixpkgs#legacyPackages.x86_64-linux.codex`) or the
/// command names (review s15 N5).
fn nix_agent(texts: &[String]) -> Option<(&'static str, Vec<String>)> {
    if !matches!(
        texts.first().map(String::as_str),
        Some("run" | "shell" | "develop" | "profile")
    ) {
        return None;
    }
    let mut i = 1;
    while let Some(t) = texts.get(i) {
        i += 1;
        if t == "--" {
            break;
        }
        if matches!(t.as_str(), "-c" | "--command") {
            let cmd = texts.get(i)?;
            return agent_named(cmd).map(|cli| (cli, texts[i + 1..].to_vec()));
        }
        if let Some((_, attr)) = t.split_once('#') {
            let attr = attr.rsplit('.').next().unwrap_or(attr);
            if let Some(cli) = agent_named(attr) {
                let rest = texts[i..]
                    .iter()
                    .skip_while(|w| *w != "--")
                    .skip(1)
                    .cloned()
                    .collect();
                return Some((cli, rest));
            }
        }
    }
    None
}

/// JS runtime options whose value is not the script.
const RUNTIME_VALUE_OPTIONS: &[&str] = &[
    "-r",
    "--require",
    "--import",
    "--loader",
    "--experimental-loader",
    "--conditions",
    "-C",
    "--title",
    "--env-file",
    "--config",
    "-c",
    "--import-map",
    "--lock",
    "--cert",
    "--cwd",
];

/// The agent CLI a JS runtime runs as its script, with the script's
/// words: `node /usr/lib/node_modules/@anthropic-ai/claude-code/cli.js`,
/// `node "$(npm root -g)/@openai/codex/bin/codex.js"`, `node $(which
/// gemini)`, `bun run …`, `deno run -A npm:@anthropic-ai/claude-code`
/// (review s14 N2).
pub(super) fn runtime_agent(name: &str, args: &[Field]) -> Option<(&'static str, Vec<String>)> {
    // `python3 -m aider`, `python -m interpreter`: the agent's module.
    if name.starts_with("python") || name.starts_with("pypy") {
        // Read as Python reads its options: `-maider`, `-Im aider`,
        // `-Wignore -maider` (review s16 P4).
        let (module, rest) = crate::code::modules::python_module(args)?;
        let top = module.split('.').next().unwrap_or(&module).to_string();
        return AGENT_CLIS
            .iter()
            .find(|(cli, names)| *cli == top || names.iter().any(|n| n.replace('-', "_") == top))
            .map(|(cli, _)| (*cli, rest.iter().map(Field::text).collect()));
    }
    let mut from = match name {
        "node" | "nodejs" | "bun" => 0,
        "deno" if args.first().is_some_and(|a| a.text() == "run") => 1,
        _ => return None,
    };
    if name == "bun" && args.first().is_some_and(|a| a.text() == "run") {
        from = 1;
    }
    let mut i = from;
    while let Some(a) = args.get(i) {
        let t = a.text();
        i += 1;
        if t == "--" {
            continue;
        }
        // Code given inline is the program, not a script file.
        if matches!(t.as_str(), "-e" | "--eval" | "-p" | "--print") {
            return None;
        }
        // A module preloaded into the runtime (`node -r PKG/cli.js`,
        // `--import=…`, `bun --preload …`) runs as the script does.
        let preload = if matches!(
            t.as_str(),
            "-r" | "--require" | "--import" | "--loader" | "--experimental-loader" | "--preload"
        ) {
            args.get(i).map(Field::text)
        } else {
            [
                "--require=",
                "--import=",
                "--loader=",
                "--experimental-loader=",
                "--preload=",
            ]
            .iter()
            .find_map(|o| t.strip_prefix(o).map(str::to_string))
        };
        if let Some(cli) = preload.as_deref().and_then(|m| {
            agent_package_dir(m).or_else(|| {
                let parts: Vec<&str> = m.split('/').collect();
                let package = if m.starts_with('@') {
                    parts.get(..2).map(|p| p.join("/"))
                } else {
                    parts.first().map(|p| p.to_string())
                };
                package.and_then(|p| agent_named(&p))
            })
        }) {
            return Some((cli, Vec::new()));
        }
        if RUNTIME_VALUE_OPTIONS.contains(&t.as_str()) || t == "--preload" {
            i += 1;
            continue;
        }
        if t.starts_with('-') {
            continue;
        }
        let dynamic: String = a
            .segs
            .iter()
            .filter_map(|s| match s {
                Seg::Dyn { raw, .. } => Some(raw.as_str()),
                _ => None,
            })
            .collect::<Vec<_>>()
            .join(" ");
        let cli = agent_package_dir(&t)
            .or_else(|| {
                t.strip_prefix("npm:")
                    .or_else(|| t.strip_prefix("jsr:"))
                    .and_then(agent_named)
            })
            .or_else(|| agent_in_substitution(&dynamic))?;
        return Some((cli, args[i..].iter().map(Field::text).collect()));
    }
    None
}

/// The only words with which an agent CLI is started without a session
/// of its own: it prints its version or help and exits.
const AGENT_CLI_INFO: &[&str] = &["--version", "-v", "-V", "version", "--help", "-h", "help"];

/// Options with which an agent CLI reads other settings or permissions
/// than the session's own, which can leave its hooks off (`--settings
/// '{"disableAllHooks":true}'`, `codex -c hooks=…`, another profile).
const AGENT_CLI_SETTINGS: &[(&str, &str)] = &[
    ("claude", "--settings"),
    ("claude", "--setting-sources"),
    ("claude", "--permission-mode"),
    ("claude", "--allowedTools"),
    ("claude", "--allowed-tools"),
    ("claude", "--mcp-config"),
    ("claude", "--plugin-dir"),
    ("codex", "-c"),
    ("codex", "--config"),
    ("codex", "-p"),
    ("codex", "--profile"),
    ("codex", "-s"),
    ("codex", "--sandbox"),
    ("codex", "-a"),
    ("codex", "--ask-for-approval"),
    ("codex", "--full-auto"),
    ("codex", "--enable"),
    ("codex", "--disable"),
    ("gemini", "--approval-mode"),
    ("gemini", "--allowed-tools"),
    ("gemini", "-e"),
    ("gemini", "--extensions"),
    ("gemini", "--allowed-mcp-server-names"),
    ("*", "--config"),
    ("*", "--settings"),
];

/// Variables that move an agent CLI to another home or configuration
/// directory, where this session's hooks are not installed.
const AGENT_CLI_HOMES: &[&str] = &[
    "HOME",
    "XDG_CONFIG_HOME",
    "CLAUDE_CONFIG_DIR",
    "CODEX_HOME",
    "GEMINI_CLI_HOME",
    "COPILOT_HOME",
];

impl Analysis<'_> {
    /// The rules for starting agent CLI `name` with words `texts`: one
    /// with its permission checks off, other settings or home, or any
    /// session of its own (`shell.agent-unsafe-mode`,
    /// `shell.nested-agent`); nothing for another program.
    pub(super) fn agent_cli(&mut self, name: &str, texts: &[String], env: &Env) {
        if let Some((_, flag)) = UNSAFE_AGENT_FLAGS
            .iter()
            .find(|(p, f)| *p == name && texts.iter().any(|t| t == f))
        {
            self.report(
            false,
            "shell.agent-unsafe-mode",
            format!(
                "The command starts the agent CLI `{name}` with `{flag}`, which turns its own permission checks off, \
                 so whatever it is asked runs unchecked. A person must approve; run it without that option."
            ),
        );
        } else if AGENT_CLIS.iter().any(|(cli, _)| *cli == name) {
            // A nested agent with its hooks off (`--settings
            // '{"disableAllHooks":true}'`, another home or config
            // directory, `-c` overrides) runs whatever it decides to; one
            // started with the session's own settings runs the same hooks.
            let option = texts.iter().find_map(|t| {
                let key = t.split('=').next().unwrap_or(t);
                AGENT_CLI_SETTINGS
                    .iter()
                    .find(|(p, o)| (*p == name || *p == "*") && *o == key)
                    .map(|(_, o)| format!("`{o}`"))
            });
            let moved = AGENT_CLI_HOMES
                .iter()
                .find(|v| env.vars.contains_key(**v) || self.command_vars.iter().any(|c| c == *v))
                .map(|v| format!("`{v}` set"));
            if let Some(how) = option.or(moved) {
                self.report(
                false,
                "shell.nested-agent",
                format!(
                    "The command starts the agent CLI `{name}` with {how}, so it reads other settings than this \
                     session's and its hooks may be off: its own tool calls would run unchecked. A person must \
                     approve; do the work in this session instead."
                ),
            );
            } else if !texts.iter().all(|t| AGENT_CLI_INFO.contains(&t.as_str()))
                || texts.is_empty()
            {
                // Even with the same hooks, a child session is vetted with
                // a history of its own that starts empty: the run's limits
                // (spend, call counts, loops, required order) start again
                // there, as many times as the agent starts one (review s13
                // M2).
                self.report(
                false,
                "shell.nested-agent",
                format!(
                    "The command starts the agent CLI `{name}` as a session of its own. Its tool calls are \
                     vetted in a new session whose history starts empty, so this run's limits (spend, call \
                     counts, loops, required order) would start again there. A person must approve; do the \
                     work in this session instead."
                ),
            );
            }
        }
    }
}
