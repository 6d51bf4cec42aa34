//! Options that make a program run another program or write a file, the
//! argument-injection surface of "safe" commands (Trail of Bits, *Prompt
//! injection to RCE in AI agents*; GTFOBins): `go test -exec CMD`, `rg
//! --pre CMD`, `ssh -o ProxyCommand=CMD`, `tar --to-command=CMD`, `git -c
//! core.sshCommand=CMD`, `fd -x CMD`, `chroot DIR CMD`; `--output=FILE`
//! writes; `crontab` installs; containers given the host's root or Docker
//! socket; agent CLIs started with their own guard rails off.

use crate::syntax::{Field, Output, Seg};
use crate::walk::{Analysis, Env};

/// `(program, option)` whose value is a shell command. An option ending in
/// `=` also matches its attached form (`--pre=CMD`). Programs with a full
/// option table (tar, ssh, scp, sftp, make, sort, split, wget, gawk, dc,
/// strace)
/// are read by [`crate::opts::progopts`] instead.
const COMMAND_OPTIONS: &[(&str, &str)] = &[
    ("go", "-exec"),
    ("rg", "--pre"),
    ("ripgrep", "--pre"),
    ("rsync", "-e"),
    ("rsync", "--rsh"),
    ("rsync", "--rsync-path"),
    ("zip", "-TT"),
    ("zip", "--unzip-command"),
    ("git", "core.sshCommand="),
    ("git", "core.pager="),
    ("git", "core.fsmonitor="),
    ("git", "--upload-pack"),
    ("git", "--receive-pack"),
    ("npx", "-c"),
    ("npx", "--call"),
    ("npm", "--call"),
    ("script", "-c"),
    ("script", "--command"),
    ("less", "+!"),
    ("less", "+:!"),
    ("more", "+!"),
    ("man", "-P"),
    ("man", "--pager"),
];

/// `(program, option)` whose remaining words are a command (`fd -x rm`).
const COMMAND_TAIL_OPTIONS: &[(&str, &str)] = &[
    ("fd", "-x"),
    ("fd", "--exec"),
    ("fd", "-X"),
    ("fd", "--exec-batch"),
    ("fdfind", "-x"),
];

/// Whether shell-guard has a table entry for `name` here: a command-
/// running option, an agent CLI or an editor. Its words are read by that
/// entry, not as an unknown runner's.
pub(crate) fn is_known_program(name: &str) -> bool {
    COMMAND_OPTIONS.iter().any(|(p, _)| *p == name)
        || COMMAND_TAIL_OPTIONS.iter().any(|(p, _)| *p == name)
        || GETOPT_PROGRAMS.contains(&name)
        || agent_named(name).is_some()
        || is_editor(name)
        || crate::opts::progopts::table_of(name).is_some()
}

/// Programs that parse their options as getopt does: short options
/// cluster (`script -qc CMD`, `tar -cI CMD`, `rsync -ae CMD`, `fd -0x CMD`;
/// the value option's value is the rest of the cluster or the next word)
/// and a long option may be abbreviated (`tar --use-compress-prog=CMD`,
/// `script --comm CMD`, npm's nopt: `npx --cal CMD`).
const GETOPT_PROGRAMS: &[&str] = &[
    "rsync", "script", "npx", "npm", "man", "fd", "fdfind", "git",
];

/// The short options of [`GETOPT_PROGRAMS`] that take a value: in a
/// cluster, the rest is that value (`tar -cfI` names the archive `I`).
fn short_values(name: &str) -> &'static str {
    match name {
        "rsync" => "eBfTM",
        "script" => "EIOTBc",
        "npx" | "npm" => "pc",
        "man" => "MPSmCLRe",
        "fd" | "fdfind" => "tedESjcxX",
        _ => "",
    }
}

/// Where the value of option `opt` of program `name` is in argument `t`
/// (see [`option_in`]).
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum OptionValue {
    /// The next word (`-c CMD`, `-qc CMD`, `--comm CMD`).
    Next,
    /// In the argument itself (`-cCMD`, `-qcCMD`, `--command=CMD`,
    /// `--use-compress-prog=CMD`).
    Attached(String),
}

/// The one option walker of the command-running options: whether argument
/// `t` of program `name` gives option `opt`, and where its value is. The
/// exact spelling always; for [`GETOPT_PROGRAMS`] also `opt` inside a
/// short cluster and an abbreviation of a long `opt` that names no other
/// command-running option of the program (whether it is ambiguous with the
/// program's other options is not known here: read as this one, stricter).
pub(crate) fn option_in(name: &str, opt: &str, t: &str) -> Option<OptionValue> {
    let opt = opt.trim_end_matches('=');
    if t == opt {
        return Some(OptionValue::Next);
    }
    if let Some(v) = t.strip_prefix(opt).and_then(|r| r.strip_prefix('=')) {
        return Some(OptionValue::Attached(v.to_string()));
    }
    if !GETOPT_PROGRAMS.contains(&name) {
        return None;
    }
    if let Some(long) = opt.strip_prefix("--") {
        let given = t.strip_prefix("--")?;
        let (key, value) = match given.split_once('=') {
            Some((k, v)) => (k, Some(v)),
            None => (given, None),
        };
        // `--checkpoint-action=exec=CMD`: the option's value starts so.
        let (long, value) = match long.split_once('=') {
            Some((name, lead)) => match value.and_then(|v| v.strip_prefix(lead)) {
                Some(v) => (name, Some(v.strip_prefix('=').unwrap_or(v))),
                None => return None,
            },
            None => (long, value),
        };
        let others = COMMAND_OPTIONS
            .iter()
            .chain(COMMAND_TAIL_OPTIONS)
            .filter(|(p, _)| *p == name)
            .filter_map(|(_, o)| o.strip_prefix("--")?.split('=').next())
            .filter(|o| *o != long && o.starts_with(key))
            .count();
        if key.len() >= 2 && long.starts_with(key) && others == 0 {
            return Some(match value {
                Some(v) => OptionValue::Attached(v.to_string()),
                None => OptionValue::Next,
            });
        }
        return None;
    }
    // A short option (`-c`) inside a cluster (`-qc`, `-qcCMD`).
    let letter = opt.strip_prefix('-').filter(|l| l.chars().count() == 1)?;
    let cluster = t
        .strip_prefix('-')
        .filter(|c| !c.starts_with('-') && c.len() > 1)?;
    let mut at = None;
    for (k, c) in cluster.char_indices() {
        if c.to_string() == letter {
            at = Some(k);
            break;
        }
        // Another option's value: the rest of the cluster is it.
        if short_values(name).contains(c) {
            return None;
        }
    }
    let at = at?;
    let rest = &cluster[at + letter.len()..];
    Some(if rest.is_empty() {
        OptionValue::Next
    } else {
        OptionValue::Attached(rest.to_string())
    })
}

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
fn runner_agent(name: &str, texts: &[String]) -> Option<(&'static str, Vec<String>)> {
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
fn runtime_agent(name: &str, args: &[Field]) -> Option<(&'static str, Vec<String>)> {
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
    /// Run the scripts hidden in options, check `--output` targets, and the
    /// other rules of this module, for command `name`.
    pub(crate) fn program_options(
        &mut self,
        name: &str,
        args: &[Field],
        env: &mut Env,
        depth: u32,
    ) {
        if name == "script" {
            self.script_writes(args, env, depth);
        }
        let texts: Vec<String> = args.iter().map(Field::text).collect();
        for (i, t) in texts.iter().enumerate() {
            for (program, opt) in COMMAND_OPTIONS {
                if *program != name {
                    continue;
                }
                let value = if t == opt {
                    args.get(i + 1).cloned()
                } else if let Some(v) = t
                    .strip_prefix(opt)
                    .filter(|_| opt.ends_with('=') || !opt.starts_with('-'))
                {
                    Some(Field::lit(v))
                } else if let Some(v) = t.strip_prefix(&format!("-o{opt}")) {
                    Some(Field::lit(v))
                } else {
                    match option_in(name, opt, t) {
                        Some(OptionValue::Next) => args.get(i + 1).cloned(),
                        Some(OptionValue::Attached(v)) => Some(Field::lit(v)),
                        None => None,
                    }
                };
                if let Some(v) = value {
                    self.run_script_field(
                        &v,
                        env,
                        depth,
                        &Output::Unknown,
                        &format!("`{name} {opt}`"),
                    );
                }
            }
            if let Some(at) = COMMAND_TAIL_OPTIONS
                .iter()
                .filter(|(p, _)| *p == name)
                .find_map(|(_, o)| option_in(name, o, t))
            {
                // `fd -x rm …`, `fd -0x rm …`; `fd -xrm …`: `rm` first.
                let mut rest = Vec::new();
                if let OptionValue::Attached(v) = at {
                    rest.push(Field::lit(v));
                }
                rest.extend(args[i + 1..].iter().cloned());
                let mut e = env.clone();
                self.exec(rest, &mut e, depth + 1, &Output::Unknown, false);
            }
            // `--output=FILE` writes FILE, whatever the program.
            let target = match t.strip_prefix("--output=") {
                Some(f) => Some(Field::lit(f)),
                None if t == "--output" => args.get(i + 1).cloned(),
                None if t == "-o" && matches!(name, "gcc" | "cc" | "clang" | "go") => {
                    args.get(i + 1).cloned()
                }
                None => None,
            };
            // `wget -P DIR`: files of the server's names into DIR (review
            // s14 N5).
            if name == "wget" || name == "wget2" {
                let dir = match t.strip_prefix("--directory-prefix=") {
                    Some(d) => Some(Field::lit(d)),
                    None if t == "-P" || t == "--directory-prefix" => args.get(i + 1).cloned(),
                    None => t
                        .strip_prefix("-P")
                        .filter(|d| !d.is_empty())
                        .map(Field::lit),
                };
                if let Some(d) = dir {
                    self.fills_dir(name, &d, env, false);
                }
            }
            if let Some(f) = target {
                self.check_write(
                    &f,
                    env,
                    &Output::Unknown,
                    &format!("`{name} {}`", t.split('=').next().unwrap_or(t)),
                    true,
                    depth,
                );
            }
        }
        // An agent CLI, or one a package runner starts (`npx
        // @anthropic-ai/claude-code`, `pnpm dlx @google/gemini-cli`).
        // Any spelling of its package, pinned (`@latest`), as `-p`'s
        // value, a tarball, or its script run by a JS runtime (review s14
        // N2).
        // Amazon Q's CLI is `q chat` (`q` alone is also other programs).
        let q_chat = (name == "q" && texts.first().is_some_and(|t| t == "chat"))
            .then(|| ("amazon-q", texts.clone()));
        match runner_agent(name, &texts)
            .or_else(|| runtime_agent(name, args))
            .or(q_chat)
        {
            Some((cli, rest)) => self.agent_cli(cli, &rest, env),
            None => match agent_named(name) {
                Some(cli) => self.agent_cli(cli, &texts, env),
                None => self.agent_cli(name, &texts, env),
            },
        }
        if matches!(name, "docker" | "podman" | "nerdctl")
            && texts.first().is_some_and(|s| s == "run" || s == "create")
        {
            self.container_mounts(name, &texts, env);
        }
    }

    /// The rules for starting agent CLI `name` with words `texts`: one
    /// with its permission checks off, other settings or home, or any
    /// session of its own (`shell.agent-unsafe-mode`,
    /// `shell.nested-agent`); nothing for another program.
    fn agent_cli(&mut self, name: &str, texts: &[String], env: &Env) {
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

    /// `crontab -` / `crontab FILE`: installs programs that run on a
    /// schedule. Known lines (`echo '… cmd' | crontab -`) are analysed as
    /// the commands they schedule.
    pub(crate) fn crontab(&mut self, args: &[Field], env: &mut Env, depth: u32, stdin: &Output) {
        let texts: Vec<String> = args.iter().map(Field::text).collect();
        if texts
            .iter()
            .any(|t| matches!(t.as_str(), "-l" | "-e" | "-r" | "-i"))
            || texts.is_empty() && !matches!(stdin, Output::Static(_)) && !stdin.is_secret()
        {
            if texts.iter().any(|t| t == "-r") {
                self.report(
                    false,
                    "shell.guardrail-write",
                    "`crontab -r` removes every scheduled job of the user. A person must approve.",
                );
            }
            return;
        }
        if let Output::Static(text) = stdin {
            for line in text.lines().filter(|l| !l.trim_start().starts_with('#')) {
                let cmd: Vec<&str> = line.split_whitespace().skip(5).collect();
                if !cmd.is_empty() {
                    let mut e = env.clone();
                    self.script(&cmd.join(" "), &mut e, depth + 1, &Output::Unknown);
                }
            }
        }
        self.report(
            false,
            "shell.guardrail-write",
            "`crontab` installs jobs that run on a schedule, outside this session. A person must approve; run the \
             command directly instead.",
        );
    }

    /// A container given the host's root file system, the Docker socket,
    /// or full privileges: it can change anything on the host. One given
    /// a credential file or directory, or the home directory that holds
    /// them, reads them (escalates: the program in it may use them in
    /// place, or send them anywhere).
    fn container_mounts(&mut self, name: &str, texts: &[String], env: &Env) {
        for (i, t) in texts.iter().enumerate() {
            let spec = match t.as_str() {
                "-v" | "--volume" | "--mount" => texts.get(i + 1).map(String::as_str),
                _ => t
                    .strip_prefix("--volume=")
                    .or_else(|| t.strip_prefix("--mount=")),
            };
            let Some(spec) = spec else { continue };
            let source = spec
                .split(',')
                .find_map(|kv| {
                    kv.strip_prefix("source=")
                        .or_else(|| kv.strip_prefix("src="))
                })
                .unwrap_or_else(|| spec.split(':').next().unwrap_or(""));
            let what = match source.trim_end_matches('/') {
                "" => Some("the host's root file system"),
                "/var/run/docker.sock" | "/run/docker.sock" => {
                    Some("the Docker socket (control of every container)")
                }
                "/etc" | "/root" | "/home" | "/boot" | "/usr" => {
                    Some("a system directory of the host")
                }
                _ => None,
            };
            // `-v ~/.ssh:/k`: bash expands a leading `~` of the word.
            let home_rest = source
                .strip_prefix('~')
                .or_else(|| source.strip_prefix("${HOME}"))
                .or_else(|| source.strip_prefix("$HOME"));
            let host = match (home_rest, self.home.as_deref()) {
                (Some(rest), Some(h)) if rest.is_empty() || rest.starts_with('/') => {
                    format!("{h}{rest}")
                }
                _ => source.to_string(),
            };
            let field = Field::lit(&host);
            // A directory mounted gives every file in it (`~/.aws`).
            let within = Field::lit(format!("{}/*", host.trim_end_matches('/')));
            let label = self
                .sensitive_label(&field, env)
                .or_else(|| self.sensitive_label(&within, env))
                .or_else(|| {
                    let abs = self.abs_path(&field, env)?;
                    (self.home.as_deref() == Some(abs.trim_end_matches('/')))
                        .then_some("the home directory, which holds the user's credentials")
                });
            if let Some(label) = label {
                self.report(
                    false,
                    "shell.read-credentials",
                    format!(
                        "`{name} run` mounts `{source}`, {label}, into the container: whatever runs there can read \
                         and send them. A person must approve; mount only the workspace (e.g. `-v \"$PWD:/src\"`)."
                    ),
                );
                continue;
            }
            if let Some(what) = what {
                self.report(
                    true,
                    "shell.container-escape",
                    format!(
                        "`{name} run` mounts {what} into the container, which lets the container change the host. Mount only \
                         the workspace (e.g. `-v \"$PWD:/src\"`)."
                    ),
                );
                return;
            }
        }
        if texts
            .iter()
            .any(|t| t == "--privileged" || t == "--pid=host")
        {
            self.report(
                false,
                "shell.container-escape",
                format!("`{name} run --privileged` gives the container full access to the host. A person must approve."),
            );
        }
    }
}

/// git configuration keys (lower case; `*` is one subsection) whose value
/// is a shell command or program git runs later, besides those
/// [`GIT_PROGRAM_KEY_SUFFIXES`] name; `alias.*` is read apart (a git
/// command or `!shell`). Sources: git-config(1), git-send-email(1),
/// gitattributes(5), git-imap-send(1), git-submodule(1).
const GIT_PROGRAM_KEYS: &[&str] = &[
    "core.gitproxy",
    "core.fsmonitor",
    "diff.external",
    "filter.*.clean",
    "filter.*.smudge",
    "filter.*.process",
    "pager.*",
    "web.browser",
    "sendemail.smtpserver",
    "sendemail.*.smtpserver",
    "interactive.difffilter",
    "remote.*.uploadpack",
    "remote.*.receivepack",
    "remote.*.vcs",
    "difftool.*.path",
    "mergetool.*.path",
    "man.*.path",
    "browser.*.path",
    "imap.tunnel",
    "submodule.*.update",
    "instaweb.httpd",
    "instaweb.browser",
];

/// Endings of git configuration key names (the part after the last dot,
/// lower case: git reads section and key names in any case) whose value
/// is a command or program git runs: `gpg.ssh.defaultKeyCommand`,
/// `core.alternateRefsCommand`, `sendemail.toCmd` / `ccCmd` /
/// `headerCmd` / `sendmailCmd`, `difftool.*.cmd`, `trailer.*.command`,
/// `gpg.program`, `core.editor`, `sequence.editor`, `core.pager`,
/// `credential.helper`, `core.askpass`, `merge.*.driver`,
/// `diff.*.textconv`, `uploadpack.packObjectsHook`, `core.sshCommand`.
/// Read by ending so that a key this list does not name yet is still
/// judged (review s17 Q10).
const GIT_PROGRAM_KEY_SUFFIXES: &[&str] = &[
    "cmd", "command", "program", "editor", "pager", "helper", "askpass", "driver", "textconv",
    "hook",
];

/// Whether git configuration key `key` (lower case) names a command or
/// program git runs.
fn git_program_key(key: &str) -> bool {
    let name = key.rsplit('.').next().unwrap_or(key);
    key.contains('.')
        && (GIT_PROGRAM_KEY_SUFFIXES.iter().any(|s| name.ends_with(s))
            || key_matches(GIT_PROGRAM_KEYS, key))
}

/// git configuration keys that make git read more configuration, or run
/// hooks or transports, from a place the analysis cannot see.
const GIT_INDIRECT_KEYS: &[&str] = &[
    "core.hookspath",
    "include.path",
    "includeif.*.path",
    "init.templatedir",
];

/// Whether `key` (lower case) matches one of `patterns` (`*`: one
/// subsection, which may hold dots).
fn key_matches(patterns: &[&str], key: &str) -> bool {
    patterns.iter().any(|p| match p.split_once('*') {
        None => *p == key,
        Some((head, tail)) => {
            key.len() > head.len() + tail.len() && key.starts_with(head) && key.ends_with(tail)
        }
    })
}

impl Analysis<'_> {
    /// Judge variables set for a command or the shell (`VAR=x cmd`,
    /// `export VAR=x`, `env VAR=x cmd`): a variable whose value is a
    /// command is judged as running it, one naming a file of start-up code
    /// as running code the analysis cannot read, git configuration given
    /// through `GIT_CONFIG_*` as that configuration. `runs_shell`: the
    /// command they are set for is a shell (`ENV` only matters there).
    pub(crate) fn code_variables(
        &mut self,
        assigns: &[(String, Field)],
        env: &mut Env,
        depth: u32,
        runs_shell: bool,
    ) {
        for (name, value) in assigns {
            if self.done() {
                return;
            }
            // Variables a program reads as its options, code, programs or
            // configuration: one table (review s22 V4).
            if self.program_variable(name, value, env, depth, runs_shell) {
                continue;
            }
            let text = value.text();
            if let Some(n) = name
                .strip_prefix("PS")
                .filter(|n| n.len() == 1 && n.chars().all(|c| c.is_ascii_digit()))
            {
                // Prompts expand `$(…)` each time they are shown (`PS4`
                // under `set -x`).
                let _ = n;
                if let Some(t) = value.static_text() {
                    self.scan_substitutions(&t, env, depth + 1);
                }
            } else if let Some(f) = name
                .strip_prefix("BASH_FUNC_")
                .and_then(|n| n.strip_suffix("%%"))
            {
                // `env 'BASH_FUNC_ls%%=() { …; }' bash -c ls`: an exported
                // function, run under the name of a command.
                let body = text.trim_start().strip_prefix("()").unwrap_or(&text);
                let mut e = env.clone();
                self.script(
                    &format!("{f} () {body}"),
                    &mut e,
                    depth + 1,
                    &Output::Unknown,
                );
                self.report(
                    false,
                    "shell.eval-dynamic",
                    format!(
                        "The command exports a shell function `{f}` through the environment, which replaces the \
                         command of that name in every bash it starts. A person must approve it."
                    ),
                );
            } else if name == "GIT_CONFIG_PARAMETERS" {
                self.git_config_parameters(value, env, depth);
            } else if let Some(n) = name.strip_prefix("GIT_CONFIG_KEY_") {
                let value_name = format!("GIT_CONFIG_VALUE_{n}");
                let v = assigns
                    .iter()
                    .rev()
                    .find(|(k, _)| *k == value_name)
                    .map(|(_, v)| v.clone())
                    .or_else(|| env.vars.get(&value_name).cloned())
                    .unwrap_or_else(|| crate::walk::dyn_field(&format!("${value_name}")));
                match value.static_text() {
                    Some(key) => self.git_config_set(&key, Some(&v), env, depth, "`GIT_CONFIG_KEY`"),
                    None => self.report(
                        false,
                        "shell.eval-dynamic",
                        "`GIT_CONFIG_KEY_*` sets a git configuration key only known at run time, which may make git \
                         run a program. Write the configuration out; a person must approve it as it is.",
                    ),
                }
            }
        }
    }

    /// A variable naming a file of code run on start (`BASH_ENV=/tmp/x`):
    /// code written from a download or a decoder is refused, code the
    /// analysis can see (`<(echo …)`) is analysed, any other escalates.
    pub(crate) fn code_file_variable(
        &mut self,
        name: &str,
        value: &Field,
        env: &mut Env,
        depth: u32,
    ) {
        let text = value.text();
        // A file written earlier in the call: its text is the code. One
        // the run's file tools wrote is judged too, and still escalates
        // below (the file may hold other text by now).
        if let Some(path) = value.static_text()
            && let Some(code) = env.written_text(&path).map(str::to_string)
        {
            let mut e = env.clone();
            self.script(&code, &mut e, depth + 1, &Output::Unknown);
            if !env.claimed.contains(&env.file_key(&path)) {
                return;
            }
        }
        if let Some(out) = value
            .static_text()
            .and_then(|t| env.file_taint(&t).cloned())
        {
            self.report_taint(&out, &format!("through `{name}={text}`"));
            return;
        }
        let mut seen = false;
        for seg in &value.segs {
            if let Seg::Dyn { out, .. } = seg {
                match out {
                    Output::Static(code) => {
                        seen = true;
                        let mut e = env.clone();
                        self.script(code, &mut e, depth + 1, &Output::Unknown);
                    }
                    o if o.is_tainted() => {
                        self.report_taint(o, &format!("through `{name}`"));
                        return;
                    }
                    _ => {}
                }
            }
        }
        if !seen {
            self.report(
                false,
                "shell.eval-dynamic",
                format!(
                    "`{name}={text}` makes a program run the code in a file the analysis cannot read (at start-up, \
                     before the command itself). A person must approve it; run the file's commands directly instead."
                ),
            );
        }
    }

    /// `GIT_CONFIG_PARAMETERS="'core.pager'='cmd'"`: git configuration in
    /// the environment, in git's own quoting.
    fn git_config_parameters(&mut self, value: &Field, env: &mut Env, depth: u32) {
        let Some(text) = value.static_text() else {
            self.report(
                false,
                "shell.eval-dynamic",
                "`GIT_CONFIG_PARAMETERS` holds git configuration only known at run time, which may make git run a \
                 program. A person must approve it.",
            );
            return;
        };
        // Shell-quoted words, each `'key'='value'`, `'key=value'` or `'key'`.
        let words = match crate::syntax::tokenize(&text) {
            Ok(tokens) => tokens
                .into_iter()
                .filter_map(|t| match t {
                    brush_parser::Token::Word(w, _) => Some(w),
                    brush_parser::Token::Operator(..) => None,
                })
                .collect::<Vec<_>>(),
            Err(_) => vec![text.clone()],
        };
        for w in words {
            let plain = w.replace('\'', "");
            if let Some((k, v)) = plain.split_once('=') {
                self.git_config_set(
                    k,
                    Some(&Field::lit(v)),
                    env,
                    depth,
                    "`GIT_CONFIG_PARAMETERS`",
                );
            }
        }
    }

    /// A git configuration key set to `value` (`git -c K=V`, `git config
    /// K V`, `GIT_CONFIG_KEY_n`): a key whose value is a program git runs
    /// later is judged as running it now; an alias as running its git
    /// command or `!shell`; keys that make git read configuration, hooks
    /// or transports from elsewhere escalate.
    pub(crate) fn git_config_set(
        &mut self,
        key: &str,
        value: Option<&Field>,
        env: &mut Env,
        depth: u32,
        via: &str,
    ) {
        let lower = key.to_ascii_lowercase();
        let Some(value) = value else {
            return;
        };
        let text = value.text();
        if let Some(alias) = lower.strip_prefix("alias.") {
            let Some(t) = value.static_text() else {
                self.report(
                    false,
                    "shell.eval-dynamic",
                    format!(
                        "{via} defines the git alias `{alias}` from a value only known at run time, so what it runs \
                         cannot be checked. Write it out; a person must approve it as it is."
                    ),
                );
                return;
            };
            let mut e = env.clone();
            match t.trim_start().strip_prefix('!') {
                // `!sh -c …`: a shell command, run by the alias.
                Some(sh) => {
                    self.script(sh, &mut e, depth + 1, &Output::Unknown);
                }
                // Another git command (`push -f origin main`).
                None => {
                    self.script(&format!("git {t}"), &mut e, depth + 1, &Output::Unknown);
                }
            }
            return;
        }
        // `protocol.ext.allow=always` (or every protocol) lets `ext::`
        // remotes run commands; `protocol.file.allow` is ordinary.
        let ext_allowed = matches!(lower.as_str(), "protocol.ext.allow" | "protocol.allow")
            && !text.eq_ignore_ascii_case("never");
        if ext_allowed || key_matches(GIT_INDIRECT_KEYS, &lower) {
            self.report(
                false,
                "shell.guardrail-write",
                format!(
                    "{via} sets `{key}`, which makes git read configuration, run hooks or use transports from a place \
                     this check does not see. A person must approve; leave the repository's git configuration as it is."
                ),
            );
            return;
        }
        if git_program_key(&lower) {
            if matches!(
                text.to_ascii_lowercase().as_str(),
                "" | "true" | "false" | "yes" | "no" | "on" | "off" | "0" | "1"
            ) && !lower.starts_with("alias.")
            {
                return;
            }
            let script = match value.static_text() {
                // `credential.helper = !f() { …; }; f`.
                Some(t) => Field::lit(t.trim_start().trim_start_matches('!')),
                None => value.clone(),
            };
            self.run_script_field(
                &script,
                env,
                depth,
                &Output::Unknown,
                &format!("the program git runs for `{key}` ({via})"),
            );
        }
    }
}

impl Analysis<'_> {
    /// `git -c K=V` / `git --config-env=K=VAR`.
    pub(crate) fn git_option_config(&mut self, how: &str, kv: &Field, env: &mut Env, depth: u32) {
        // The key is the text before the first `=`; the value the pieces
        // after it (a `$VAR` in the value stays unknown).
        let mut key = String::new();
        let mut value = Field::default();
        let mut in_value = false;
        for seg in &kv.segs {
            if in_value {
                value.segs.push(seg.clone());
                continue;
            }
            match seg {
                Seg::Lit { text, quoted } => match text.split_once('=') {
                    Some((k, v)) => {
                        key.push_str(k);
                        in_value = true;
                        if !v.is_empty() {
                            value.segs.push(Seg::Lit {
                                text: v.to_string(),
                                quoted: *quoted,
                            });
                        }
                    }
                    None => key.push_str(text),
                },
                _ => {
                    self.report(
                        false,
                        "shell.eval-dynamic",
                        format!(
                            "`git {how}` sets a configuration key only known at run time (`{}`), which may make git \
                             run a program. Write it out; a person must approve it as it is.",
                            kv.text()
                        ),
                    );
                    return;
                }
            }
        }
        if !in_value {
            return; // `-c K`: a boolean true.
        }
        let value = if how == "--config-env" {
            let name = value.text();
            env.vars
                .get(&name)
                .cloned()
                .unwrap_or_else(|| crate::walk::dyn_field(&format!("${name}")))
        } else {
            value
        };
        self.git_config_set(&key, Some(&value), env, depth, &format!("`git {how}`"));
    }

    /// `git config [--file F] [--add|--replace-all] KEY VALUE`, `git config
    /// set KEY VALUE`: the value set, judged by its key; `--file F` is a
    /// write onto F. Options read by git's table ([`crate::opts::gitopts::GIT_CONFIG`]:
    /// prefixes, `-f`, `-t TYPE`, `--comment TEXT`), so a value option
    /// does not shift the key (review s17 Q10).
    pub(crate) fn git_config(&mut self, args: &[Field], env: &mut Env, depth: u32) {
        use crate::opts::gitopts::{GIT_CONFIG, GIT_CONFIG_READS, read};
        let first = read(&GIT_CONFIG, args);
        let mut found = first.parsed.found.clone();
        let mut run_time = !first.run_time.is_empty();
        let mut words: Vec<&Field> = first.parsed.operands.iter().map(|&k| &args[k]).collect();
        match words.first().map(|w| w.text()).as_deref() {
            // `git config set [OPTIONS] KEY VALUE`: its own options.
            Some("set") => {
                let from = first.parsed.operands[0] + 1;
                let rest = read(&GIT_CONFIG, &args[from..]);
                found.extend(rest.parsed.found.iter().cloned());
                run_time |= !rest.run_time.is_empty();
                words = rest
                    .parsed
                    .operands
                    .iter()
                    .map(|&k| &args[from + k])
                    .collect();
            }
            Some("get" | "list" | "unset" | "edit" | "rename-section" | "remove-section") => return,
            _ => {}
        }
        if run_time {
            self.report(
                false,
                "shell.eval-dynamic",
                "`git config` is given an option only known at run time, which may change the file it writes or \
                 what it sets. Write the options out; a person must approve it as it is.",
            );
        }
        for file in found
            .iter()
            .filter(|f| f.opt.name == "file")
            .filter_map(|f| f.value.as_ref())
        {
            // A git configuration file gets the one key set, judged
            // below; any other file is written as a configuration.
            if file.text() != "-"
                && !self
                    .abs_path(file, env)
                    .is_some_and(|a| crate::effects::sinks::is_git_config_file(&a))
            {
                self.check_write(
                    file,
                    env,
                    &Output::Unknown,
                    "`git config --file`",
                    false,
                    depth,
                );
            }
        }
        if found.iter().any(|f| GIT_CONFIG_READS.contains(&f.opt.name)) {
            return;
        }
        if let [key, value, ..] = words.as_slice() {
            match key.static_text() {
                Some(k) => self.git_config_set(&k, Some(value), env, depth, "`git config`"),
                None => self.report(
                    false,
                    "shell.eval-dynamic",
                    format!(
                        "`git config` sets a key only known at run time (`{}`), which may make git run a program. \
                         Write it out; a person must approve it as it is.",
                        key.text()
                    ),
                ),
            }
        }
    }

    /// `git apply` / `git am` of a patch the analysis can read (a
    /// here-document, a here-string, text piped in): the files it writes
    /// are judged as writes. A patch from a file is not read.
    pub(crate) fn git_apply(
        &mut self,
        sub: &str,
        args: &[Field],
        env: &mut Env,
        depth: u32,
        stdin: &Output,
    ) {
        let mut strip: Option<usize> = None;
        let mut dir: Option<Field> = None;
        let mut from_stdin = true;
        let mut i = 0;
        while let Some(a) = args.get(i) {
            let t = a.text();
            i += 1;
            if let Some(n) = t.strip_prefix("-p") {
                strip = n.parse().ok().or(Some(1));
            } else if let Some(d) = t.strip_prefix("--directory=") {
                dir = Some(Field::lit(d));
            } else if t == "--directory" {
                dir = args.get(i).cloned();
                i += 1;
            } else if t == "-" {
                from_stdin = true;
            } else if !t.starts_with('-') {
                from_stdin = false;
            }
        }
        let Output::Static(text) = stdin else {
            return;
        };
        if !from_stdin {
            return;
        }
        let mut e = env.clone();
        if let Some(d) = dir {
            self.change_dir(Some(&d), &mut e);
        }
        self.patch_writes(&format!("`git {sub}`"), text, strip, &mut e, depth);
    }

    /// Judge the files a patch writes (Codex's `apply_patch` format or a
    /// unified diff) as writes onto them, with the lines it adds as their
    /// content (a guard rail loosened, a git hook's script).
    pub(crate) fn patch_writes(
        &mut self,
        via: &str,
        text: &str,
        strip: Option<usize>,
        env: &mut Env,
        depth: u32,
    ) {
        for file in crate::code::embedded::patch_files(text, strip) {
            if self.done() {
                return;
            }
            let target = Field::lit(&file.path);
            let content = match file.op {
                crate::code::embedded::PatchOp::Delete => Output::Unknown,
                _ => Output::Static(file.added.clone()),
            };
            self.check_write(&target, env, &content, via, true, depth);
        }
    }

    /// `git checkout [REV] [--] PATH…`, `git restore`, `git rm`, `git mv`,
    /// `git checkout-index`: their path operands are written (or removed)
    /// with content from the repository, judged as writes onto them.
    pub(crate) fn git_path_writes(&mut self, sub: &str, args: &[Field], env: &mut Env, depth: u32) {
        // Options whose value is not a path.
        const VALUE_OPTIONS: &[&str] = &[
            "-b",
            "-B",
            "--orphan",
            "-s",
            "--source",
            "--conflict",
            "--prefix",
            "--pathspec-from-file",
            "--track",
            "-t",
        ];
        let mut i = 0;
        while let Some(a) = args.get(i) {
            let t = a.text();
            i += 1;
            if t == "--" || !t.starts_with('-') || t == "-" {
                if t != "--" {
                    let via = format!("`git {sub}`");
                    self.check_write(a, env, &Output::Unknown, &via, true, depth);
                    if let Some(abs) = self.abs_path(a, env)
                        && let Some(guarded) = self.rail_just_within(&abs)
                    {
                        self.check_write(
                            &Field::lit(guarded),
                            env,
                            &Output::Unknown,
                            &format!("{via} (writing `{t}`, which holds it)"),
                            true,
                            depth,
                        );
                    }
                }
                continue;
            }
            if VALUE_OPTIONS.contains(&t.as_str()) {
                i += 1;
            }
            if self.done() {
                return;
            }
        }
    }
}

impl Analysis<'_> {
    /// `git stash [push|save] … [--] PATH…`: the paths it names are taken
    /// out of the working tree (with `-u`/`--all`, untracked files are
    /// deleted), a targeted write onto them as `git checkout -- PATH` is
    /// (review s14 N8). Without paths it is the whole-tree stash, and
    /// `pop`/`apply`/`list`/`show`/`drop` name no path.
    pub(crate) fn git_stash(&mut self, args: &[Field], env: &mut Env, depth: u32) {
        // Options whose value is not a path.
        const VALUE_OPTIONS: &[&str] = &["-m", "--message"];
        let first = args.first().map(Field::text);
        let rest = match first.as_deref() {
            Some("push" | "save") => &args[1..],
            Some(t) if t.starts_with('-') => args,
            _ => return,
        };
        let save = first.as_deref() == Some("save");
        let mut paths = Vec::new();
        let mut ended = false;
        let mut from_file = None;
        let mut i = 0;
        while let Some(a) = rest.get(i) {
            let t = a.text();
            i += 1;
            if ended {
                paths.push(a.clone());
            } else if t == "--" {
                ended = true;
            } else if VALUE_OPTIONS.contains(&t.as_str()) {
                i += 1;
            } else if let Some((option, value)) = t
                .strip_prefix("--")
                .map(|o| o.split_once('=').map_or((o, None), |(n, v)| (n, Some(v))))
                && option.len() >= "pathspec-".len()
                && "pathspec-from-file".starts_with(option)
            {
                // git takes any unique prefix of a long option
                // (`--pathspec-fr=FILE`, `--pathspec-f FILE`; review s16
                // P10).
                from_file = Some(match value {
                    Some(v) => v.to_string(),
                    None => {
                        i += 1;
                        rest.get(i - 1).map_or_else(String::new, Field::text)
                    }
                });
            } else if t.starts_with('-') && t != "-" {
                // `--message=M`, `-mM`, flags.
            } else if !save {
                // `git stash push PATH…`; `save`'s operands are its message.
                paths.push(a.clone());
            }
        }
        if let Some(f) = from_file {
            self.report(
                false,
                "shell.guardrail-write",
                format!(
                    "`git stash` takes its paths from `{f}`, which the check cannot read: they may name the agent's \
                     hook settings (`.claude/settings.json`, `.github/hooks/…`), which the stash takes out of the \
                     working tree. A person must approve; name the paths on the command line."
                ),
            );
        }
        if paths.is_empty() {
            return;
        }
        // Wildcards (git's `*` crosses `/`: `'*.json'` is every agent's
        // JSON hook file), exclude magic (`':!src'` is everything but
        // src) and attribute magic cover guard rails without naming them
        // (review s15 N4). A wildcard after a literal directory
        // (`'src/*.rs'`) is judged as that directory.
        for p in &mut paths {
            let t = p.text();
            let (magic, body) = match t.strip_prefix(":(") {
                Some(r) => r.split_once(')').unwrap_or((r, "")),
                None => match t.strip_prefix(':') {
                    Some(r) if r.starts_with(['!', '^']) => ("exclude", &r[1..]),
                    Some(r) if r.starts_with('/') => ("top", &r[1..]),
                    _ => ("", t.as_str()),
                },
            };
            let magic = magic.to_ascii_lowercase();
            let literal = magic.split(',').any(|m| m.trim() == "literal");
            let wide = magic
                .split(',')
                .any(|m| m.trim() == "exclude" || m.trim().starts_with("attr"));
            let wild = !literal && body.contains(['*', '?', '[']);
            let narrow_dir = body
                .find(['*', '?', '['])
                .and_then(|w| body[..w].rfind('/'))
                .map(|d| &body[..d])
                .filter(|d| !d.is_empty());
            if wide || (wild && narrow_dir.is_none()) {
                self.report(
                    false,
                    "shell.guardrail-write",
                    format!(
                        "`git stash` with the pathspec `{t}` takes out of the working tree every path it matches \
                         (a wildcard crosses directories, an exclude means everything else), which may include the \
                         agent's hook settings (`.claude/settings.json`, `.github/hooks/…`). A person must approve; \
                         name the paths themselves."
                    ),
                );
            } else if wild
                && let Some(d) = narrow_dir
                && p.static_text().is_some()
            {
                let dir = if magic.is_empty() {
                    d.to_string()
                } else {
                    format!(":({magic}){d}")
                };
                *p = Field::lit(&dir);
            }
        }
        // Pathspec magic (`:(top)PATH`, `:/PATH`, `:(glob)…`) names PATH.
        let paths = paths.into_iter().map(|p| {
            let t = p.text();
            let bare = match t.strip_prefix(":(") {
                Some(rest) => rest.split_once(')').map(|(_, path)| path),
                None => t.strip_prefix(":/"),
            };
            match bare {
                Some(b) if p.static_text().is_some() => Field::lit(b),
                _ => p,
            }
        });
        let mut words = vec![Field::lit("--")];
        words.extend(paths);
        self.git_path_writes("stash", &words, env, depth);
    }
}

/// vim's options that take a value (the command ones, `-c`/`--cmd`, are
/// read as commands).
const VIM_VALUE_OPTIONS: &[&str] = &[
    "-S",
    "-u",
    "-U",
    "-i",
    "-T",
    "-w",
    "-W",
    "-t",
    "-q",
    "-r",
    "--servername",
    "--startuptime",
    "--log",
];

/// Whether `name` is an editor whose file operands are written and whose
/// command-line commands are judged ([`Analysis::editor`]).
pub fn is_editor(name: &str) -> bool {
    matches!(
        name,
        "vi" | "vim"
            | "nvim"
            | "gvim"
            | "rvim"
            | "view"
            | "vimdiff"
            | "ex"
            | "ed"
            | "red"
            | "emacs"
            | "emacsclient"
            | "nano"
            | "pico"
            | "micro"
            | "joe"
            | "mg"
            | "kak"
            | "hx"
    )
}

impl Analysis<'_> {
    /// An editor run from the command line: its file operands are writes
    /// onto them (scripted, `vim -c … -c wq FILE` and `ed FILE <<< 'w'`
    /// change them); its commands (vim `-c CMD`, `--cmd CMD`, `+CMD`, an ex
    /// or ed script on standard input, emacs `--eval EXPR`) are code the
    /// analysis cannot read: their shell escapes (`:!cmd`, `r !cmd`,
    /// `system(…)`) are analysed as shell and the guarded paths they name
    /// judged as writes.
    pub(crate) fn editor(
        &mut self,
        name: &str,
        args: &[Field],
        env: &mut Env,
        depth: u32,
        stdin: &Output,
    ) {
        let vim = matches!(
            name,
            "vi" | "vim" | "nvim" | "gvim" | "rvim" | "view" | "vimdiff" | "ex"
        );
        let mut scripts: Vec<String> = Vec::new();
        let mut files: Vec<&Field> = Vec::new();
        let mut ex_mode = matches!(name, "ex" | "ed" | "red");
        let mut lisp: Vec<String> = Vec::new();
        let mut dynamic_script = false;
        let mut note = |f: Option<&Field>| {
            dynamic_script |= f.is_some_and(crate::walk::commands::has_unknown_variable);
            f.map(Field::text)
        };
        let mut ended = false;
        let mut i = 0;
        while let Some(a) = args.get(i) {
            let t = a.text();
            i += 1;
            if ended || t == "-" {
                files.push(a);
                continue;
            }
            if t == "--" {
                ended = true;
                continue;
            }
            if vim {
                if matches!(t.as_str(), "-c" | "--cmd") {
                    scripts.extend(note(args.get(i)));
                    i += 1;
                } else if let Some(cmd) = t.strip_prefix('+') {
                    note(Some(a));
                    scripts.push(cmd.to_string());
                } else if VIM_VALUE_OPTIONS.contains(&t.as_str()) || t == "-s" && !ex_mode {
                    i += 1;
                } else if t.starts_with('-') {
                    if t.starts_with("--") {
                        continue;
                    }
                    ex_mode |= t.contains(['e', 'E']);
                } else {
                    files.push(a);
                }
            } else if matches!(name, "emacs" | "emacsclient") {
                if matches!(t.as_str(), "--eval" | "-eval" | "--execute" | "-e") {
                    lisp.extend(note(args.get(i)));
                    i += 1;
                } else if let Some(e) = t
                    .strip_prefix("--eval=")
                    .or_else(|| t.strip_prefix("--execute="))
                {
                    lisp.push(e.to_string());
                } else if matches!(
                    t.as_str(),
                    "-l" | "--load" | "-f" | "--funcall" | "--script" | "-L" | "--directory"
                ) {
                    i += 1;
                } else if !t.starts_with(['-', '+']) {
                    files.push(a);
                }
            } else if matches!(name, "ed" | "red") {
                if t == "-p" || t == "--prompt" {
                    i += 1;
                } else if !t.starts_with('-') {
                    files.push(a);
                }
            } else if !t.starts_with(['-', '+']) {
                files.push(a);
            }
        }
        if ex_mode && let Output::Static(text) = stdin {
            scripts.push(text.clone());
        }
        if dynamic_script {
            self.report(
                false,
                "shell.eval-dynamic",
                format!(
                    "`{name}` is given commands held in a variable whose value is not known here, so they cannot be \
                     checked. Pass the commands directly; a person must approve it as it is."
                ),
            );
        }
        if scripts
            .iter()
            .any(|s| s.len() > crate::code::embedded::MAX_CODE)
        {
            self.report(
                false,
                "shell.too-long",
                format!(
                    "The `{name}` commands are longer than the {} bytes this check reads. A person must review them.",
                    crate::code::embedded::MAX_CODE
                ),
            );
        }
        for script in &scripts {
            let commands = crate::code::embedded::editor_shell_commands(script);
            if self.found_commands(&format!("The `{name}` commands"), &commands, env, depth) {
                return;
            }
            self.inline_code_paths(&format!("`{name}` commands"), script, env, depth);
        }
        for code in &lisp {
            self.embedded_commands(name, code, env, depth);
        }
        for f in files {
            if self.done() {
                return;
            }
            self.check_write(f, env, &Output::Unknown, &format!("`{name}`"), false, depth);
        }
    }

    /// Codex's `apply_patch` run from the shell (`apply_patch <<'EOF' …`,
    /// or the patch as its argument): the files it adds, updates, deletes
    /// and moves to are writes, judged as from the `apply_patch` tool.
    pub(crate) fn apply_patch(
        &mut self,
        name: &str,
        args: &[Field],
        env: &mut Env,
        depth: u32,
        stdin: &Output,
    ) {
        let text = match args.iter().find(|a| !a.text().starts_with('-')) {
            Some(a) => match a.static_text() {
                Some(t) => Some(t),
                None if a.output().is_tainted() => {
                    self.report_taint(&a.output(), &format!("as the patch of `{name}`"));
                    return;
                }
                None => None,
            },
            None => match stdin {
                Output::Static(t) => Some(t.clone()),
                _ => None,
            },
        };
        match text {
            Some(t) => self.patch_writes(&format!("`{name}`"), &t, None, env, depth),
            None if args.first().is_some_and(|a| {
                a.segs.iter().any(|s| matches!(s, Seg::Dyn { raw, .. } if raw.starts_with('$') && !raw.starts_with("$(")))
            }) =>
            {
                self.report(
                    false,
                    "shell.eval-dynamic",
                    format!(
                        "`{name}` applies a patch held in a variable whose value is not known here, so the files it \
                         writes cannot be checked. Pass the patch directly; a person must approve it as it is."
                    ),
                );
            }
            None => {}
        }
    }
}

impl Analysis<'_> {
    /// Options of git subcommands that run a shell command (`rebase
    /// --exec`, `filter-branch --tree-filter`, `difftool -x`, `grep -O`,
    /// `clone -u`, `send-email --to-cmd`), read as git reads them
    /// ([`crate::opts::gitopts`]: clusters, prefixes; reviews s16 P10, s17 Q5,
    /// Q7), and the subcommands whose remaining words are one (`submodule
    /// foreach CMD…`, `bisect run CMD…`): analysed as shell. `git clone
    /// -c K=V` is configuration, judged as `git -c K=V`.
    pub(crate) fn git_subcommand_programs(
        &mut self,
        sub: &str,
        args: &[Field],
        env: &mut Env,
        depth: u32,
    ) {
        if let Some(cmd) = crate::opts::gitopts::command(sub) {
            self.git_table_programs(sub, cmd, args, env, depth);
        } else if !crate::opts::gitopts::is_builtin(sub) {
            // An alias or an external command: it may stand for any of
            // them (`alias.x = rebase`, then `git x -ix CMD`), so its words
            // are read by every table.
            for cmd in crate::opts::gitopts::GIT_COMMANDS {
                self.git_table_programs(sub, cmd, args, env, depth);
            }
        }
        // `git submodule [-q|--quiet|--cached] foreach [--recursive] CMD…`
        // (git-submodule.sh takes its own options before the command word,
        // and refuses any other; `submodule--helper foreach` is what it
        // runs), `git bisect run CMD…`.
        // An alias or external command may stand for either.
        let first = args.iter().position(|a| !a.text().starts_with('-'));
        let alias = !crate::opts::gitopts::is_builtin(sub);
        let submodule = alias || sub == "submodule" || sub == "submodule--helper";
        let (sub, start) = match first {
            Some(k) if submodule && args[k].text() == "foreach" => ("submodule", k + 1),
            Some(0) if (alias || sub == "bisect") && args[0].text() == "run" => ("bisect", 1),
            _ => return,
        };
        let mut words = &args[start..];
        if sub == "submodule" {
            // foreach's own options (`--recursive`, `-q`).
            let skip = words
                .iter()
                .take_while(|a| a.text().starts_with('-'))
                .count();
            words = &words[skip..];
        }
        if words.is_empty() {
            return;
        }
        let mut e = env.clone();
        if sub == "submodule" {
            // `foreach` runs its words through the shell.
            let script = words.iter().map(Field::text).collect::<Vec<_>>().join(" ");
            self.script(&script, &mut e, depth + 1, &Output::Unknown);
        } else {
            self.exec(words.to_vec(), &mut e, depth + 1, &Output::Unknown, false);
        }
    }
}

impl Analysis<'_> {
    /// `git SUB ARGS` read by table `cmd` (SUB's own, or, for an alias,
    /// each one): the values of its command-running options analysed as
    /// shell, an option word only known at run time held, `clone -c K=V`
    /// judged as `git -c K=V`.
    fn git_table_programs(
        &mut self,
        sub: &str,
        cmd: &crate::opts::gitopts::GitCommand,
        args: &[Field],
        env: &mut Env,
        depth: u32,
    ) {
        let read = crate::opts::gitopts::read(&cmd.spec, args);
        let what = if sub == cmd.name {
            format!("`git {sub}`")
        } else {
            format!(
                "`git {sub}` (an alias or external command, read as `git {}`)",
                cmd.name
            )
        };
        if let Some(&k) = read.run_time.first() {
            self.report(
                false,
                "shell.eval-dynamic",
                format!(
                    "{what} is given the option `{}`, whose letters or name are only known at run time: git may \
                     read it as an option that runs a command. Write the options out; a person must approve it as it is.",
                    args[k].text()
                ),
            );
        }
        for f in &read.parsed.found {
            let Some(v) = &f.value else { continue };
            if cmd.scripts.contains(&f.opt.name) {
                self.run_script_field(
                    v,
                    env,
                    depth,
                    &Output::Unknown,
                    &format!("the command of {what}'s `--{}`", f.opt.name),
                );
            } else if cmd.name == "clone" && f.opt.name == "config" {
                self.git_option_config("clone --config", v, env, depth);
            }
        }
    }
}

/// Options of database and debugger clients whose value is commands
/// (`sqlite3 -cmd`, `psql -c`, `mysql -e`, `gdb -ex`).
fn client_command_options(client: &str) -> &'static [&'static str] {
    match client {
        "sqlite3" | "sqlite" | "sqlcipher" | "litecli" => &["-cmd"],
        "psql" => &["-c", "--command"],
        "mysql" | "mariadb" => &["-e", "--execute"],
        _ => &[],
    }
}

impl Analysis<'_> {
    /// A sed script's `e` commands and `s///e` replacements are shell
    /// commands, its `w FILE` writes FILE; running the pattern space (`e`
    /// alone, a computed `s///e`) is `eval` of text the analysis cannot see.
    pub(crate) fn sed_script(&mut self, name: &str, args: &[Field], env: &mut Env, depth: u32) {
        let mut scripts: Vec<String> = Vec::new();
        let mut from_file = false;
        let mut i = 0;
        let mut first_operand: Option<String> = None;
        while let Some(a) = args.get(i) {
            let t = a.text();
            i += 1;
            if t == "-e" || t == "--expression" {
                scripts.extend(args.get(i).map(Field::text));
                i += 1;
            } else if let Some(s) = t.strip_prefix("--expression=") {
                scripts.push(s.to_string());
            } else if t == "-f" || t == "--file" || t.starts_with("--file=") {
                from_file = true;
                i += usize::from(t == "-f" || t == "--file");
            } else if t == "-l" || t == "--line-length" {
                i += 1;
            } else if t.starts_with('-')
                && t.len() > 1
                && !t.starts_with("--")
                && t[1..].contains('e')
                && !t.starts_with("-i")
            {
                // `-ne SCRIPT`.
                scripts.extend(args.get(i).map(Field::text));
                i += 1;
            } else if !t.starts_with('-') && first_operand.is_none() {
                first_operand = Some(t);
            }
        }
        if scripts.is_empty() && !from_file {
            scripts.extend(first_operand);
        }
        for script in scripts {
            let fx = crate::code::embedded::sed_effects(&script);
            for cmd in &fx.commands {
                let mut e = env.clone();
                self.script(cmd, &mut e, depth + 1, &Output::Unknown);
            }
            if fx.commands.len() + fx.writes.len() > crate::code::embedded::MAX_COMMANDS {
                self.too_many_found(&format!("The `{name}` script"));
            }
            for file in &fx.writes {
                if !matches!(file.as_str(), "/dev/stdout" | "/dev/stderr") {
                    self.check_write(
                        &Field::lit(file.as_str()),
                        env,
                        &Output::Unknown,
                        &format!("`{name}` (`w`)"),
                        true,
                        depth,
                    );
                }
            }
            if fx.runs_unknown {
                self.report(
                    false,
                    "shell.eval-dynamic",
                    format!(
                        "`{name}` runs text of its input as a shell command (`e`, or `s///e` with a computed \
                         replacement), which cannot be checked. A person must approve it."
                    ),
                );
            }
            if self.done() {
                return;
            }
        }
    }

    /// Shell escapes in the commands given to a database or debugger
    /// client (`sqlite3 db '.shell CMD'`, `psql -c '\! CMD'`, `mysql -e
    /// 'system CMD'`), on its command line or
    /// standard input: analysed as shell.
    pub(crate) fn client_commands(
        &mut self,
        name: &str,
        args: &[Field],
        env: &mut Env,
        depth: u32,
        stdin: &Output,
    ) {
        let mut texts: Vec<String> = Vec::new();
        let mut i = 0;
        while let Some(a) = args.get(i) {
            let t = a.text();
            i += 1;
            let options = client_command_options(name);
            if options.contains(&t.as_str()) {
                texts.extend(args.get(i).map(Field::text));
                i += 1;
            } else if let Some((_, v)) = t.split_once('=').filter(|(f, _)| options.contains(f)) {
                texts.push(v.to_string());
            } else if matches!(name, "sqlite3" | "sqlite" | "sqlcipher" | "litecli")
                && !t.starts_with('-')
            {
                // `sqlite3 DB SQL…`: every operand after the database.
                texts.push(t);
            }
        }
        if let Output::Static(text) = stdin {
            texts.push(text.clone());
        }
        let client = if name == "mariadb" { "mysql" } else { name };
        for text in texts {
            if text.len() > crate::code::embedded::MAX_CODE {
                self.report(
                    false,
                    "shell.too-long",
                    format!(
                        "The commands given to `{name}` are longer than the {} bytes this check reads for shell \
                         escapes. A person must review them; or run them from a file.",
                        crate::code::embedded::MAX_CODE
                    ),
                );
                continue;
            }
            let commands = crate::code::embedded::client_shell_commands(client, &text);
            if self.found_commands(&format!("The `{name}` input"), &commands, env, depth) {
                return;
            }
        }
    }
}
