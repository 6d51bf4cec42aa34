//! The agent's own guard rails: files whose content decides what a coding
//! agent may do without asking, or what runs automatically around it.
//! An agent that writes them can loosen its own limits (an allow rule for
//! every command, an approval mode of "never", an MCP server or hook that
//! runs a download). Sources: the settings files documented by Claude
//! Code (`.claude/settings*.json`, `~/.claude.json`), Cursor
//! (`.cursor/mcp.json`, `.cursor/hooks.json`), VS Code Copilot
//! (`.vscode/settings.json`: `chat.tools.autoApprove`, CVE-2025-53773),
//! Codex (`~/.codex/config.toml`, `.codex/hooks.json`), Gemini CLI
//! (`.gemini/settings.json`), Copilot CLI (`.github/hooks/*.json`), the
//! MCP project file `.mcp.json`, githooks(5) and bash(1)/zsh(1) start-up
//! files.
//!
//! toolvet's own state is a guard rail too ([`Kind::ToolvetState`]): the
//! policy that vets the agent, the approval ledger and the key that signs
//! tickets, the decision log and the hooks' per-session history. An agent
//! that writes them approves its own escalations (`sqlite3 approvals.db
//! "UPDATE …"`) or resets its limits. The checks know them by their
//! default names (below) and, exactly, by the paths the host running them
//! passes in the context attributes [`STATE_PATHS_ATTRIBUTE`] and
//! [`SECRET_PATHS_ATTRIBUTE`] ([`StatePaths`]).

use crate::pattern::PathPattern;
use globset::{GlobBuilder, GlobSet, GlobSetBuilder};
use std::borrow::Cow;
use std::sync::OnceLock;

/// `path` as a file system that ignores case compares it, for matching
/// guard rails: every character whose Unicode case folding is an ASCII
/// letter becomes that letter, lower-cased (`ſ` U+017F → `s`, `K` U+212A
/// → `k`, `S` → `s`); other characters stay. APFS and NTFS (case-
/// insensitive by default) and ext4/f2fs `casefold` directories fold case
/// by Unicode, so `.claude/ſettings.json` opens `.claude/settings.json`
/// there (review s10 H19). Borrowed when nothing changes.
pub fn fold_case(path: &str) -> Cow<'_, str> {
    let folds = |c: char| c.is_ascii_uppercase() || (!c.is_ascii() && ascii_fold(c).is_some());
    if !path.chars().any(folds) {
        return Cow::Borrowed(path);
    }
    Cow::Owned(
        path.chars()
            .map(|c| {
                if c.is_ascii() {
                    c.to_ascii_lowercase()
                } else {
                    ascii_fold(c).unwrap_or(c)
                }
            })
            .collect(),
    )
}

/// The ASCII letter a non-ASCII `c` folds to (upper- then lower-cased to
/// one ASCII character), if any.
fn ascii_fold(c: char) -> Option<char> {
    let mut folded = c.to_uppercase().flat_map(char::to_lowercase);
    match (folded.next(), folded.next()) {
        (Some(f), None) if f.is_ascii_alphabetic() => Some(f),
        _ => None,
    }
}

/// What kind of guard rail a file is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// An agent's permission settings, MCP server list or hooks: every
    /// write changes what the agent may do.
    AgentControl,
    /// Editor settings that also hold agent approval settings and name
    /// programs the editor starts (VS Code's `chat.tools.autoApprove`,
    /// `chat.hookFilesLocations`, `git.path`, terminal profiles): a person
    /// approves every write (an edit's fragment cannot show which key it
    /// changes) but one of whole settings that only change how text is
    /// edited and shown ([`inert_editor_settings`]); content that loosens
    /// them is refused.
    EditorSettings,
    /// A program another tool runs by itself: a git hook (run on
    /// checkout, commit, push), a git configuration file (it names
    /// programs git runs), an editor's or terminal multiplexer's start-up
    /// file, a build tool's configuration that names programs. A person
    /// approves a write onto one; content that loosens it is refused.
    GitHook,
    /// A shell start-up file: runs in every new shell.
    ShellStartup,
    /// Instructions and memory the agent reads in every later session
    /// (`AGENTS.md`, `CLAUDE.md`, `GEMINI.md`, Cursor rules, Copilot
    /// instructions): ordinary to edit, so never refused, but a person
    /// approves every write (what the agent writes there is obeyed from
    /// then on, the "rules file backdoor"); install lines (`curl … | sh`)
    /// are ordinary prose there.
    AgentInstructions,
    /// toolvet's own state: the policy, the approval ledger, the ticket
    /// key, the decision log, the hooks' history. Every write is refused:
    /// only a person changes them, outside the agent.
    ToolvetState,
}

/// A guard-rail file and what it is, for messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GuardRail {
    /// Its kind.
    pub kind: Kind,
    /// What it is, e.g. `Claude Code's permission settings`.
    pub label: &'static str,
}

const FILES: &[(&str, Kind, &str)] = &[
    (
        "**/.claude/settings.json",
        Kind::AgentControl,
        "Claude Code's permission settings",
    ),
    (
        "**/.claude/settings.local.json",
        Kind::AgentControl,
        "Claude Code's permission settings",
    ),
    (
        "**/.claude.json",
        Kind::AgentControl,
        "Claude Code's user configuration",
    ),
    // Every agent's hooks, in one place (review s22 R3): the property is
    // *every file an agent's hook configuration names or keeps beside it
    // runs on the agent's tool calls, outside toolvet, so it is a guard
    // rail for every tool*. Each agent's hook settings file and its whole
    // `hooks/` directory, where the projects and the agents' docs keep the
    // scripts those settings run (Gemini CLI's
    // `$GEMINI_PROJECT_DIR/.gemini/hooks/x.sh`, Cursor's
    // `.cursor/hooks/x.sh`, Copilot's `.github/hooks/`): Claude Code,
    // Cursor, Codex, Gemini CLI (and its extensions, and Qwen Code, its
    // fork), Copilot (repository and user directory), Kiro.
    (
        "**/.claude/hooks/**",
        Kind::AgentControl,
        "Claude Code's hooks",
    ),
    (
        "**/.cursor/hooks.json",
        Kind::AgentControl,
        "Cursor's hooks",
    ),
    (
        "**/.cursor/hooks/**",
        Kind::AgentControl,
        "Cursor's hook scripts",
    ),
    ("**/.codex/hooks.json", Kind::AgentControl, "Codex's hooks"),
    (
        "**/.codex/hooks/**",
        Kind::AgentControl,
        "Codex's hook scripts",
    ),
    (
        "**/.gemini/hooks/**",
        Kind::AgentControl,
        "Gemini CLI's hook scripts",
    ),
    (
        "**/.gemini/extensions/**/hooks/**",
        Kind::AgentControl,
        "a Gemini CLI extension's hooks",
    ),
    (
        "**/.qwen/hooks/**",
        Kind::AgentControl,
        "Qwen Code's hook scripts",
    ),
    (
        "**/.github/hooks/**",
        Kind::AgentControl,
        "Copilot's hooks (its hook files and the scripts they run)",
    ),
    (
        "**/.copilot/hooks/**",
        Kind::AgentControl,
        "Copilot CLI's hooks",
    ),
    (
        "**/.kiro/hooks/**",
        Kind::AgentControl,
        "Kiro's agent hooks (they run on editor events)",
    ),
    (
        "**/.mcp.json",
        Kind::AgentControl,
        "the project's MCP server list",
    ),
    (
        "**/.cursor/mcp.json",
        Kind::AgentControl,
        "Cursor's MCP server list",
    ),
    (
        "**/.cursor/cli-config.json",
        Kind::AgentControl,
        "Cursor's agent permissions",
    ),
    (
        "**/.vscode/mcp.json",
        Kind::AgentControl,
        "VS Code's MCP server list",
    ),
    // Other clients' project-level MCP server lists and agent settings
    // (review s8 F9): each starts the servers it names the next time the
    // person opens the repository in that client. Roo Code `.roo/mcp.json`,
    // Amazon Q Developer `.amazonq/mcp.json` and its CLI agents
    // `.amazonq/cli-agents/*.json` (servers and allowed tools), Kiro
    // `.kiro/settings/mcp.json` and its agent hooks `.kiro/hooks/`
    // (commands run on IDE events), opencode's project configuration
    // `opencode.json`/`opencode.jsonc` (its `mcp` servers and `permission`
    // rules), Continue's `.continue/mcpServers/`, Qwen Code's
    // `.qwen/settings.json` (Gemini CLI's format).
    (
        "**/.roo/mcp.json",
        Kind::AgentControl,
        "Roo Code's MCP server list",
    ),
    (
        "**/.amazonq/mcp.json",
        Kind::AgentControl,
        "Amazon Q Developer's MCP server list",
    ),
    (
        "**/.amazonq/cli-agents/**",
        Kind::AgentControl,
        "an Amazon Q CLI agent (the MCP servers it starts and the tools it may use)",
    ),
    (
        "**/.kiro/settings/mcp.json",
        Kind::AgentControl,
        "Kiro's MCP server list",
    ),
    (
        "**/opencode.json",
        Kind::AgentControl,
        "opencode's configuration (its MCP servers and permission rules)",
    ),
    (
        "**/opencode.jsonc",
        Kind::AgentControl,
        "opencode's configuration (its MCP servers and permission rules)",
    ),
    (
        "**/.continue/mcpServers/**",
        Kind::AgentControl,
        "Continue's MCP server list",
    ),
    (
        "**/.qwen/settings.json",
        Kind::AgentControl,
        "Qwen Code's settings (its MCP servers and tool approval)",
    ),
    // More clients' MCP server lists, permissions and loaded code (review
    // s9 G9). Read at project level: Kilo Code `.kilocode/mcp.json` (as
    // Roo Code's), Charm Crush `.crush.json`/`crush.json` (its `mcp`
    // servers and `permissions.allowed_tools`), opencode's project
    // plugins `.opencode/plugin(s)/` (JavaScript/TypeScript it imports at
    // start; its agents and commands are below, as Claude Code's).
    // Read only from the user's home, so listed by that path: Windsurf's
    // `~/.codeium/windsurf/mcp_config.json`, Cline's, Roo Code's and Kilo
    // Code's `cline_mcp_settings.json`/`mcp_settings.json` in the editor's
    // global storage, goose's `~/.config/goose/config.yaml` (its
    // extensions are MCP servers), Crush's `~/.config/crush/crush.json`
    // (by `crush.json`). `.windsurf/mcp.json`, `.cline/mcp.json` and
    // `.goose/config.yaml` in a project are not read by those clients.
    (
        "**/.kilocode/mcp.json",
        Kind::AgentControl,
        "Kilo Code's MCP server list",
    ),
    (
        "**/{crush,.crush}.json",
        Kind::AgentControl,
        "Crush's configuration (its MCP servers and allowed tools)",
    ),
    (
        "**/.opencode/{plugin,plugins}/**",
        Kind::AgentControl,
        "an opencode plugin (code opencode loads when it starts)",
    ),
    (
        "**/.config/opencode/{plugin,plugins}/**",
        Kind::AgentControl,
        "an opencode plugin (code opencode loads when it starts)",
    ),
    (
        "**/.codeium/windsurf/mcp_config.json",
        Kind::AgentControl,
        "Windsurf's MCP server list",
    ),
    (
        "**/settings/{cline_mcp_settings,mcp_settings}.json",
        Kind::AgentControl,
        "Cline's, Roo Code's or Kilo Code's MCP server list",
    ),
    (
        "**/.config/goose/config.yaml",
        Kind::AgentControl,
        "goose's configuration (its extensions are MCP servers)",
    ),
    (
        "**/.codex/config.toml",
        Kind::AgentControl,
        "Codex's approval and sandbox settings",
    ),
    (
        "**/.gemini/settings.json",
        Kind::AgentControl,
        "Gemini CLI's settings",
    ),
    // Copilot CLI's user directory: its settings (trusted folders,
    // allowed tools), MCP servers and hooks.
    (
        "**/.copilot/config.json",
        Kind::AgentControl,
        "Copilot CLI's configuration",
    ),
    (
        "**/.copilot/mcp-config.json",
        Kind::AgentControl,
        "Copilot CLI's MCP server list",
    ),
    // A Gemini CLI extension's manifest starts its MCP servers; its
    // hooks run around every tool call. The rest of an extension (its
    // commands, its context file) escalates below.
    (
        "**/.gemini/extensions/**/gemini-extension.json",
        Kind::AgentControl,
        "a Gemini CLI extension's manifest (Gemini CLI starts the MCP servers it names)",
    ),
    // The same clients' user-level settings, which live outside any dot
    // directory on macOS (`~/Library/Application Support/APP/…`) and
    // Windows (`%APPDATA%`, `AppData/Roaming/APP/…`) and under
    // `~/.config/APP/…` on Linux; matched by place on every OS (review s7
    // F5). Claude Desktop's `claude_desktop_config.json` lists the MCP
    // servers it starts (Anthropic's MCP quickstart and docs/mcp.md, where
    // `toolvet mcp` wraps them). VS Code's user `settings.json` holds
    // `chat.tools.autoApprove` and `chat.hookFilesLocations`, its user
    // `mcp.json` the servers it starts (VS Code docs, "MCP servers" and
    // "User and workspace settings"; the same files under each profile in
    // `User/profiles/*`); Code - Insiders, VSCodium, Cursor and Windsurf
    // are builds of it with the same `User` layout. Zed's `settings.json`
    // holds its `context_servers` and agent tool permissions (Zed docs,
    // "Configuring Zed"). Claude Code's managed settings (Claude Code docs,
    // "Settings": `/Library/Application Support/ClaudeCode/`,
    // `/etc/claude-code/`). Unlike the workspace's `.vscode/settings.json`,
    // no task of the workspace edits these: refused, as the Linux forms
    // were by the home dot-directory rule.
    (
        "**/Claude/claude_desktop_config.json",
        Kind::AgentControl,
        "Claude Desktop's MCP server list",
    ),
    (
        "**/ClaudeCode/managed-settings.json",
        Kind::AgentControl,
        "Claude Code's managed settings",
    ),
    (
        "**/claude-code/managed-settings.json",
        Kind::AgentControl,
        "Claude Code's managed settings",
    ),
    (
        "**/{Code,Code - Insiders,Code - OSS,VSCodium,Cursor,Windsurf}/User/{settings,mcp}.json",
        Kind::AgentControl,
        "an editor's user settings or MCP server list (VS Code or a build of it: agent auto-approval, hook \
         locations, the MCP servers it starts)",
    ),
    (
        "**/{Code,Code - Insiders,Code - OSS,VSCodium,Cursor,Windsurf}/User/profiles/*/{settings,mcp}.json",
        Kind::AgentControl,
        "an editor profile's settings or MCP server list (VS Code or a build of it)",
    ),
    (
        "**/.config/zed/settings.json",
        Kind::AgentControl,
        "Zed's settings (its MCP servers and agent tool permissions)",
    ),
    (
        "**/AppData/Roaming/Zed/settings.json",
        Kind::AgentControl,
        "Zed's settings (its MCP servers and agent tool permissions)",
    ),
    // The other agents' permission lists, by the same token: Codex's
    // command rules (OpenAI Codex docs, "Rules": `*.rules` files in a
    // `rules/` directory beside a configuration layer, `~/.codex/rules/`,
    // earlier `~/.codex/policy/`), Gemini CLI's policy engine (Gemini CLI
    // docs, "Policy engine": `~/.gemini/policies/*.toml`, the workspace's
    // `.gemini/policies/`, the system's `/etc/gemini-cli/` and
    // `/Library/Application Support/GeminiCli/`) and its folder trust
    // (`~/.gemini/trustedFolders.json`: a trusted folder's settings load).
    (
        "**/.codex/rules/**",
        Kind::AgentControl,
        "Codex's command rules (what runs without asking)",
    ),
    (
        "**/.codex/policy/**",
        Kind::AgentControl,
        "Codex's command rules (what runs without asking)",
    ),
    (
        "**/.gemini/policies/**",
        Kind::AgentControl,
        "Gemini CLI's policy rules (what runs without asking)",
    ),
    (
        "**/.gemini/trustedFolders.json",
        Kind::AgentControl,
        "Gemini CLI's trusted folders",
    ),
    (
        "/etc/gemini-cli/**",
        Kind::AgentControl,
        "Gemini CLI's system settings and policies",
    ),
    (
        "**/Application Support/GeminiCli/**",
        Kind::AgentControl,
        "Gemini CLI's system settings and policies",
    ),
    // Cursor CLI's project permissions (Cursor docs, "CLI permissions":
    // `.cursor/cli.json` beside the user's `~/.cursor/cli-config.json`).
    (
        "**/.cursor/cli.json",
        Kind::AgentControl,
        "Cursor CLI's project permissions",
    ),
    (
        "**/.vscode/settings.json",
        Kind::EditorSettings,
        "VS Code's workspace settings",
    ),
    (
        "**/*.code-workspace",
        Kind::EditorSettings,
        "a VS Code workspace file",
    ),
    // Zed's project settings hold `context_servers` (the MCP servers Zed
    // starts) and agent tool permissions beside ordinary editor settings
    // (review s8 F9): as VS Code's workspace settings.
    (
        "**/.zed/settings.json",
        Kind::EditorSettings,
        "Zed's project settings (its MCP servers and agent tool permissions)",
    ),
    ("**/.git/hooks/**", Kind::GitHook, "a git hook"),
    // The directories projects set `core.hooksPath` to (review s22 R4):
    // the conventional `.githooks/`, husky's `.husky/` (husky sets
    // `core.hooksPath=.husky/_`, which runs the scripts beside it).
    (
        "**/.githooks/**",
        Kind::GitHook,
        "a git hook (the directory projects set `core.hooksPath` to)",
    ),
    (
        "**/.husky/**",
        Kind::GitHook,
        "a husky git hook (run at every `git commit`)",
    ),
    // A submodule's git directory: its hooks run in the submodule, and a
    // `git status` of the parent runs them too (review s10 H4).
    (
        "**/.git/modules/**/hooks/**",
        Kind::GitHook,
        "a git hook of a submodule",
    ),
    ("**/.bashrc", Kind::ShellStartup, "a shell start-up file"),
    (
        "**/.bash_profile",
        Kind::ShellStartup,
        "a shell start-up file",
    ),
    (
        "**/.bash_login",
        Kind::ShellStartup,
        "a shell start-up file",
    ),
    (
        "**/.bash_logout",
        Kind::ShellStartup,
        "a shell start-up file",
    ),
    ("**/.profile", Kind::ShellStartup, "a shell start-up file"),
    ("**/.zshrc", Kind::ShellStartup, "a shell start-up file"),
    ("**/.zshenv", Kind::ShellStartup, "a shell start-up file"),
    ("**/.zprofile", Kind::ShellStartup, "a shell start-up file"),
    ("**/.zlogin", Kind::ShellStartup, "a shell start-up file"),
    (
        "**/.config/fish/config.fish",
        Kind::ShellStartup,
        "a shell start-up file",
    ),
    ("/etc/profile", Kind::ShellStartup, "a shell start-up file"),
    (
        "/etc/profile.d/**",
        Kind::ShellStartup,
        "a shell start-up file",
    ),
    (
        "/etc/bash.bashrc",
        Kind::ShellStartup,
        "a shell start-up file",
    ),
    ("/etc/zsh/**", Kind::ShellStartup, "a shell start-up file"),
    // Persistence: files read at every start of something the user runs.
    (
        "**/.bash_aliases",
        Kind::ShellStartup,
        "a shell start-up file (`.bashrc` sources it in every interactive bash)",
    ),
    // A file a start-up file runs is a start-up file (review s22 R2). The
    // checks cannot read `.bashrc` to follow its `source` lines, so the
    // files that installers make the start-up files source are guard
    // rails by their conventional places: rustup's `~/.cargo/env` (sourced
    // from `.profile`, `.bashrc`, `.zshenv`), uv's and pipx's
    // `~/.local/bin/env`, nvm's `~/.nvm/nvm.sh` (and its completion),
    // SDKMAN's `~/.sdkman/bin/sdkman-init.sh`, GHCup's `~/.ghcup/env`,
    // Deno's `~/.deno/env`, `~/.zshrc.local` (sourced by many zsh
    // set-ups), direnv's `direnvrc` and `lib/*.sh` (sourced before every
    // `.envrc`), Bun's `~/.bun/_bun`; their fish forms too.
    (
        "**/.cargo/{env,env.fish,env.nu}",
        Kind::ShellStartup,
        "a file the shell start-up files source (rustup's `~/.cargo/env`)",
    ),
    (
        "**/.local/bin/{env,env.fish}",
        Kind::ShellStartup,
        "a file the shell start-up files source (`~/.local/bin/env`)",
    ),
    (
        "**/.nvm/{nvm.sh,bash_completion}",
        Kind::ShellStartup,
        "a file the shell start-up files source (nvm)",
    ),
    (
        "**/.sdkman/bin/*.sh",
        Kind::ShellStartup,
        "a file the shell start-up files source (SDKMAN)",
    ),
    (
        "**/.ghcup/{env,env.fish}",
        Kind::ShellStartup,
        "a file the shell start-up files source (GHCup)",
    ),
    (
        "**/.deno/{env,env.fish}",
        Kind::ShellStartup,
        "a file the shell start-up files source (Deno)",
    ),
    (
        "**/.bun/_bun",
        Kind::ShellStartup,
        "a file the shell start-up files source (Bun)",
    ),
    (
        "**/.zshrc.local",
        Kind::ShellStartup,
        "a file the shell start-up files source (`.zshrc.local`)",
    ),
    (
        "**/.direnvrc",
        Kind::ShellStartup,
        "direnv's start-up file (sourced before every `.envrc`)",
    ),
    (
        "**/.config/direnv/direnvrc",
        Kind::ShellStartup,
        "direnv's start-up file (sourced before every `.envrc`)",
    ),
    (
        "**/.config/direnv/lib/*.sh",
        Kind::ShellStartup,
        "direnv's start-up file (sourced before every `.envrc`)",
    ),
    // More files shells and programs run code from at start-up (review
    // s24 R2, S6, S8). bash-completion (sourced by Debian's and Ubuntu's
    // default `.bashrc`) sources `~/.bash_completion` and loads the user's
    // completions from `~/.local/share/bash-completion/completions/`;
    // Fedora's default `.bashrc` sources every file in `~/.bashrc.d/`;
    // fish runs `~/.config/fish/conf.d/*.fish` before `config.fish` and
    // loads `functions/` and `completions/` by name; zsh reads `.zlogout`
    // when a login shell exits, a start-up file's compiled `.zwc` in its
    // place, and `compinit` sources `.zcompdump`; shell frameworks'
    // trees are sourced whole by the start-up files that load them
    // (oh-my-zsh, oh-my-bash, bash-it, prezto). A directory counts whole.
    (
        "**/.bash_completion",
        Kind::ShellStartup,
        "a shell start-up file (bash-completion sources it in every interactive bash)",
    ),
    (
        "**/.local/share/bash-completion/completions/**",
        Kind::ShellStartup,
        "a shell start-up file (bash-completion loads the user's completions from it)",
    ),
    (
        "**/.bashrc.d/**",
        Kind::ShellStartup,
        "a shell start-up file (`.bashrc` sources every file in `~/.bashrc.d/`)",
    ),
    (
        "**/.config/fish/{conf.d,functions,completions}/**",
        Kind::ShellStartup,
        "a fish start-up file (fish runs `conf.d/` at every start and loads functions and completions by name)",
    ),
    (
        "**/.zlogout",
        Kind::ShellStartup,
        "a shell start-up file (zsh runs it when a login shell exits)",
    ),
    (
        "**/.{zshenv,zprofile,zshrc,zlogin,zlogout}.zwc",
        Kind::ShellStartup,
        "a compiled zsh start-up file (zsh reads it in place of the start-up file)",
    ),
    (
        "**/.zcompdump*",
        Kind::ShellStartup,
        "zsh's completion dump (`compinit` sources it at every start)",
    ),
    (
        "**/{.oh-my-zsh,.oh-my-bash,.bash_it,.zprezto}/**",
        Kind::ShellStartup,
        "a shell framework's code (the start-up files source it at every start)",
    ),
    (
        "**/.zpreztorc",
        Kind::ShellStartup,
        "a shell start-up file (prezto sources it at every start)",
    ),
    // What the session reads at every login: systemd's user environment
    // (`environment.d`: it can move an agent's settings with
    // `CLAUDE_CONFIG_DIR`) and user units, pam_env's file, X sessions.
    (
        "**/.config/environment.d/**",
        Kind::ShellStartup,
        "the session's environment (systemd sets it at every login)",
    ),
    (
        "**/.config/systemd/user/**",
        Kind::ShellStartup,
        "a systemd user unit (it runs at login or on its timer)",
    ),
    // systemd.unit(5): `$XDG_DATA_HOME/systemd/user` is a user unit
    // directory too (review s25 R14).
    (
        "**/.local/share/systemd/user/**",
        Kind::ShellStartup,
        "a systemd user unit (it runs at login or on its timer)",
    ),
    (
        "**/.pam_environment",
        Kind::ShellStartup,
        "the session's environment (pam_env sets it at every login)",
    ),
    (
        "**/{.xinitrc,.xsession}",
        Kind::ShellStartup,
        "an X session start-up file (it runs at every graphical login)",
    ),
    (
        "**/.xsessionrc",
        Kind::ShellStartup,
        "a shell start-up file (Xsession sources it at every graphical login)",
    ),
    (
        "**/.xprofile",
        Kind::ShellStartup,
        "a shell start-up file (display managers source it at every graphical login)",
    ),
    (
        "**/.config/autostart/*.desktop",
        Kind::ShellStartup,
        "a desktop autostart entry (its `Exec=` runs at every graphical login)",
    ),
    (
        "**/.vimrc",
        Kind::GitHook,
        "Vim's start-up file (Vim runs its `:!` commands and `autocmd`s at every start)",
    ),
    (
        "**/.vim/vimrc",
        Kind::GitHook,
        "Vim's start-up file (Vim runs its `:!` commands and `autocmd`s at every start)",
    ),
    (
        "**/.config/nvim/init.*",
        Kind::GitHook,
        "Neovim's start-up file (Neovim runs its Lua or Vim script at every start)",
    ),
    // Interpreters' and debuggers' start-up files (review s24 S8): GDB
    // runs `~/.gdbinit` (and `~/.config/gdb/gdbinit`, its early forms)
    // at every start, `shell` commands among them; psql runs `~/.psqlrc`
    // (`\!` runs a shell command), sqlite3 `~/.sqliterc` (`.shell`), R
    // and Rscript `.Rprofile` (`system()`), their environment
    // `.Renviron` (it can name another profile), irb and pry theirs, GHCi
    // `.ghci` (`:!`), LLDB `.lldbinit`.
    (
        "**/{.gdbinit,.gdbearlyinit}",
        Kind::GitHook,
        "GDB's start-up file (GDB runs its commands, `shell` among them, at every start)",
    ),
    (
        "**/.config/gdb/{gdbinit,gdbearlyinit}",
        Kind::GitHook,
        "GDB's start-up file (GDB runs its commands, `shell` among them, at every start)",
    ),
    (
        "**/{.psqlrc,.psqlrc-*}",
        Kind::GitHook,
        "psql's start-up file (psql runs it at every start; `\\!` runs a shell command)",
    ),
    (
        "**/.sqliterc",
        Kind::GitHook,
        "sqlite3's start-up file (sqlite3 runs it at every start; `.shell` runs a command)",
    ),
    (
        "**/{.Rprofile,.Renviron}",
        Kind::GitHook,
        "R's start-up file (R and Rscript run it at every start)",
    ),
    (
        "**/{.irbrc,.pryrc,.ghci,.lldbinit}",
        Kind::GitHook,
        "an interpreter's or debugger's start-up file (it runs at every start)",
    ),
    (
        "**/.tmux.conf",
        Kind::GitHook,
        "tmux's start-up file (tmux runs its `run-shell` commands when it starts)",
    ),
    (
        "**/.config/tmux/tmux.conf",
        Kind::GitHook,
        "tmux's start-up file (tmux runs its `run-shell` commands when it starts)",
    ),
    (
        "**/.cargo/config.toml",
        Kind::GitHook,
        "Cargo's configuration (its `runner`, `rustc-wrapper` and `linker` run at every build)",
    ),
    (
        "**/.cargo/config",
        Kind::GitHook,
        "Cargo's configuration (its `runner`, `rustc-wrapper` and `linker` run at every build)",
    ),
    // Files an agent or a tool loads and runs by itself: an agent's
    // skills and subagents can carry hooks that run when they are used;
    // direnv, VS Code tasks, husky and Python run these on their own.
    (
        "**/.claude/skills/**",
        Kind::GitHook,
        "a Claude Code skill (its hooks and scripts run when it is used)",
    ),
    (
        "**/.claude/agents/**",
        Kind::GitHook,
        "a Claude Code subagent definition (its hooks run when it is used)",
    ),
    // The other hooked agents' skills, custom agents and commands (review
    // s7 F4): what Claude Code's `.claude/skills` and `.claude/agents` are
    // to them. A person approves a write; content that loosens them
    // (`tools`/`mcp-servers` granting servers, `| sh`) is refused.
    // Skills, with scripts the agent runs: Copilot and VS Code
    // `.github/skills/`, `~/.copilot/skills/` (VS Code docs, "Agent
    // Skills reference"); Codex `.agents/skills/` in a repository and
    // `~/.agents/skills/`, earlier `~/.codex/skills/` (OpenAI Codex docs,
    // "Agent Skills"); Gemini CLI `.gemini/skills/` (Gemini CLI docs,
    // "Agent Skills", which also reads `.agents/skills/`).
    (
        "**/.github/skills/**",
        Kind::GitHook,
        "a Copilot agent skill (its scripts run when it is used)",
    ),
    (
        "**/.copilot/skills/**",
        Kind::GitHook,
        "a Copilot agent skill (its scripts run when it is used)",
    ),
    (
        "**/.agents/skills/**",
        Kind::GitHook,
        "an agent skill (Codex, Gemini CLI, VS Code; its scripts run when it is used)",
    ),
    (
        "**/.copilot/agents/**",
        Kind::GitHook,
        "a Copilot CLI custom agent (its front matter names the tools and MCP servers it uses)",
    ),
    (
        "**/.codex/skills/**",
        Kind::GitHook,
        "a Codex skill (its scripts run when it is used)",
    ),
    (
        "**/.gemini/skills/**",
        Kind::GitHook,
        "a Gemini CLI skill (its scripts run when it is used)",
    ),
    // Custom agents: front matter names the tools they may use and the
    // MCP servers they start (GitHub docs, "Custom agents configuration":
    // `.github/agents/*.agent.md`; VS Code docs, "Custom agents", which
    // were "chat modes" in `.github/chatmodes/*.chatmode.md`); Gemini CLI
    // subagents in `.gemini/agents/*.md` (Gemini CLI docs, "Subagents").
    (
        "**/.github/agents/**",
        Kind::GitHook,
        "a Copilot custom agent (its front matter names the tools and MCP servers it uses)",
    ),
    (
        "**/.github/chatmodes/**",
        Kind::GitHook,
        "a VS Code chat mode (a custom agent: its front matter names the tools it uses)",
    ),
    (
        "**/.gemini/agents/**",
        Kind::GitHook,
        "a Gemini CLI subagent definition (its front matter names the tools and MCP servers it uses)",
    ),
    // Commands the model or the person invokes that run shell commands
    // when expanded: Claude Code's `.claude/commands/*.md` (Claude Code
    // docs, "Slash commands": `!` lines run in bash, `allowed-tools`
    // front matter) and Gemini CLI's `.gemini/commands/*.toml` (Gemini CLI
    // docs, "Custom commands": `!{…}` runs a shell command).
    (
        "**/.claude/commands/**",
        Kind::GitHook,
        "a Claude Code slash command (its `!` lines run in the shell when it is used)",
    ),
    // opencode's agents (their `permission` and `tools` apply when used)
    // and commands (their !`…` lines run in the shell), project-level and
    // the user's (review s9 G9).
    (
        "**/{.opencode,.config/opencode}/{agent,agents}/**",
        Kind::GitHook,
        "an opencode agent definition (its tool permissions apply when it is used)",
    ),
    (
        "**/{.opencode,.config/opencode}/{command,commands}/**",
        Kind::GitHook,
        "an opencode command (its !`…` lines run in the shell when it is used)",
    ),
    (
        "**/.gemini/commands/**",
        Kind::GitHook,
        "a Gemini CLI custom command (its `!{…}` commands run when it is used)",
    ),
    // Cursor's cloud-agent environment: its `install`, `start` and
    // `terminals` commands run when an agent's machine starts (Cursor
    // docs, "Background agents" / "Cloud agents").
    (
        "**/.cursor/environment.json",
        Kind::GitHook,
        "Cursor's agent environment (its `install`, `start` and `terminals` commands run by themselves)",
    ),
    (
        "**/.envrc",
        Kind::GitHook,
        "direnv's start-up file (it runs on entering the directory)",
    ),
    (
        "**/.vscode/tasks.json",
        Kind::GitHook,
        "VS Code's tasks (a `folderOpen` task runs when the folder opens)",
    ),
    ("**/.husky/**", Kind::GitHook, "a husky git hook"),
    // Commit-hook frameworks' configuration (review s8 F10): once the
    // framework's hook is installed (`pre-commit install`, `lefthook
    // install`, husky's `prepare`), every `git commit` runs the commands
    // they name (`repo: local` with `entry: bash -c …`, lefthook's `run:`,
    // lint-staged's commands). pre-commit reads `.pre-commit-config.yaml`
    // (pre-commit docs); lefthook `lefthook.yml`, `.lefthook.yml`, their
    // `-local` overrides, in YAML, TOML or JSON, also under `.config/`
    // (lefthook docs, "Configuration"); husky 4 `.huskyrc*`; lint-staged
    // `.lintstagedrc*` and `lint-staged.config.*`; overcommit
    // `.overcommit.yml`; simple-git-hooks `.simple-git-hooks.*`.
    (
        "**/.pre-commit-config.yaml",
        Kind::GitHook,
        "pre-commit's configuration (its hooks run at every `git commit`)",
    ),
    // The `.yml` spelling: pre-commit reads only `.yaml` by default, but
    // `pre-commit install -c FILE` writes any name into the hook it
    // installs (review s9 G9).
    (
        "**/.pre-commit-config.yml",
        Kind::GitHook,
        "pre-commit's configuration (its hooks run at every `git commit`)",
    ),
    (
        "**/{lefthook,.lefthook,lefthook-local,.lefthook-local}.{yml,yaml,toml,json,jsonc}",
        Kind::GitHook,
        "lefthook's configuration (its commands run at every `git commit`)",
    ),
    (
        "**/.huskyrc*",
        Kind::GitHook,
        "husky's configuration (its hooks run at every `git commit`)",
    ),
    (
        "**/.lintstagedrc*",
        Kind::GitHook,
        "lint-staged's configuration (its commands run at every `git commit`)",
    ),
    (
        "**/lint-staged.config.*",
        Kind::GitHook,
        "lint-staged's configuration (its commands run at every `git commit`)",
    ),
    (
        "**/.overcommit.yml",
        Kind::GitHook,
        "overcommit's configuration (its hooks run at every `git commit`)",
    ),
    (
        "**/.simple-git-hooks.*",
        Kind::GitHook,
        "simple-git-hooks' configuration (its commands run at every `git commit`)",
    ),
    // A dev container's definition: its `initializeCommand` runs on the
    // host when the editor opens the folder in a container, its other
    // commands in the container (Dev Container specification,
    // "devcontainer.json reference"; review s8 F10).
    (
        "**/.devcontainer/devcontainer.json",
        Kind::GitHook,
        "a dev container definition (its `initializeCommand` runs on the host when the folder is opened)",
    ),
    (
        "**/.devcontainer/*/devcontainer.json",
        Kind::GitHook,
        "a dev container definition (its `initializeCommand` runs on the host when the folder is opened)",
    ),
    (
        "**/.devcontainer.json",
        Kind::GitHook,
        "a dev container definition (its `initializeCommand` runs on the host when the folder is opened)",
    ),
    // Scripts a dev container definition names run with it (its
    // `initializeCommand` on the host): those kept beside it (review s9
    // G9). Its Dockerfile builds inside the container, so is not one.
    (
        "**/.devcontainer/**/*.{sh,bash,zsh,ps1,py,js,mjs,cjs,ts}",
        Kind::GitHook,
        "a dev container script (a command of the dev container definition runs it)",
    ),
    // Tool configurations that name the program the next ordinary command
    // runs, like Cargo's (review s9 G9): Yarn's `yarnPath` (Berry,
    // `.yarnrc.yml`) and `yarn-path` (classic, `.yarnrc`) name the JS file
    // every `yarn` runs, and its releases and plugins are that code;
    // rustup's toolchain file may name a directory of `rustc`/`cargo`
    // (`[toolchain] path`); mise's configurations hold hooks, tasks and
    // `[env] _.source` scripts (mise docs, "Configuration": `mise.toml`,
    // `.mise.toml`, their `.local` and per-environment forms,
    // `.mise/config.toml`, `mise/config.toml`, `.config/mise.toml`,
    // `.config/mise/config*.toml`, `.config/mise/conf.d/`); asdf's and
    // mise's `.tool-versions` may name a directory as a version
    // (`path:DIR`).
    (
        "**/.yarnrc.yml",
        Kind::GitHook,
        "Yarn's configuration (its `yarnPath` runs at every `yarn`)",
    ),
    (
        "**/.yarnrc",
        Kind::GitHook,
        "Yarn's configuration (its `yarn-path` runs at every `yarn`)",
    ),
    (
        "**/.yarn/{releases,plugins}/**",
        Kind::GitHook,
        "Yarn's own code (it runs at every `yarn`)",
    ),
    (
        "**/rust-toolchain.toml",
        Kind::GitHook,
        "rustup's toolchain file (its `path` names the `cargo` and `rustc` every build runs)",
    ),
    (
        "**/rust-toolchain",
        Kind::GitHook,
        "rustup's toolchain file (it can name the `cargo` and `rustc` every build runs)",
    ),
    (
        "**/{mise,.mise}.toml",
        Kind::GitHook,
        "mise's configuration (its hooks, tasks and `_.source` scripts run)",
    ),
    (
        "**/{mise,.mise}.*.toml",
        Kind::GitHook,
        "mise's configuration (its hooks, tasks and `_.source` scripts run)",
    ),
    (
        "**/{.mise,mise,.config/mise}/config*.toml",
        Kind::GitHook,
        "mise's configuration (its hooks, tasks and `_.source` scripts run)",
    ),
    (
        "**/.config/mise.toml",
        Kind::GitHook,
        "mise's configuration (its hooks, tasks and `_.source` scripts run)",
    ),
    (
        "**/.config/mise/conf.d/*.toml",
        Kind::GitHook,
        "mise's configuration (its hooks, tasks and `_.source` scripts run)",
    ),
    (
        "**/.tool-versions",
        Kind::GitHook,
        "the tool versions of asdf and mise (a `path:` version names the programs they run)",
    ),
    (
        "**/.gemini/extensions/**",
        Kind::GitHook,
        "a Gemini CLI extension (Gemini CLI loads its commands and context in every session)",
    ),
    // Instructions and memory every later session of an agent reads:
    // written by the agent, they outlive the conversation that wrote them
    // (a planted "always run …" is obeyed from then on).
    (
        "**/AGENTS.md",
        Kind::AgentInstructions,
        "agent instructions (`AGENTS.md`, read by Codex, Cursor, Copilot and others in every session)",
    ),
    (
        "**/AGENTS.override.md",
        Kind::AgentInstructions,
        "Codex's instructions (`AGENTS.override.md`, read in every session)",
    ),
    (
        "**/CLAUDE.md",
        Kind::AgentInstructions,
        "Claude Code's memory (`CLAUDE.md`, read in every session)",
    ),
    (
        "**/CLAUDE.local.md",
        Kind::AgentInstructions,
        "Claude Code's memory (`CLAUDE.local.md`, read in every session)",
    ),
    (
        "**/GEMINI.md",
        Kind::AgentInstructions,
        "Gemini CLI's context (`GEMINI.md`, read in every session; `save_memory` writes `~/.gemini/GEMINI.md`)",
    ),
    (
        "**/.github/copilot-instructions.md",
        Kind::AgentInstructions,
        "Copilot's repository instructions",
    ),
    (
        "**/.github/instructions/*.instructions.md",
        Kind::AgentInstructions,
        "Copilot's path instructions",
    ),
    // Prompt files: instructions a person or the model runs by name
    // (VS Code docs, "Prompt files": `.github/prompts/*.prompt.md` and
    // the user's `User/prompts/`; Cursor docs, "Commands":
    // `.cursor/commands/*.md`); Gemini CLI's system prompt, read in place
    // of its own when `GEMINI_SYSTEM_MD` is set (Gemini CLI docs, "System
    // prompt override": `.gemini/system.md`).
    (
        "**/.github/prompts/**",
        Kind::AgentInstructions,
        "a Copilot prompt file (instructions the agent follows when it is run)",
    ),
    (
        "**/{Code,Code - Insiders,Code - OSS,VSCodium,Cursor,Windsurf}/User/prompts/**",
        Kind::AgentInstructions,
        "an editor's user prompt, instruction or agent file (read by Copilot in every workspace)",
    ),
    (
        "**/.cursor/commands/**",
        Kind::AgentInstructions,
        "a Cursor command (instructions the agent follows when it is run)",
    ),
    (
        "**/.gemini/system.md",
        Kind::AgentInstructions,
        "Gemini CLI's system prompt (read in place of its own)",
    ),
    (
        "**/.cursorrules",
        Kind::AgentInstructions,
        "Cursor's rules (`.cursorrules`)",
    ),
    (
        "**/.cursor/rules/**",
        Kind::AgentInstructions,
        "Cursor's rules",
    ),
    (
        "**/.windsurfrules",
        Kind::AgentInstructions,
        "Windsurf's rules",
    ),
    ("**/.clinerules", Kind::AgentInstructions, "Cline's rules"),
    (
        "**/.clinerules/**",
        Kind::AgentInstructions,
        "Cline's rules",
    ),
    (
        "**/sitecustomize.py",
        Kind::GitHook,
        "a Python start-up module (it runs in every Python process that finds it)",
    ),
    (
        "**/usercustomize.py",
        Kind::GitHook,
        "a Python start-up module (it runs in every Python process that finds it)",
    ),
    (
        "**/site-packages/*.pth",
        Kind::GitHook,
        "a Python path file (its `import` lines run in every Python process)",
    ),
    (
        "**/toolvet.toml",
        Kind::ToolvetState,
        "a toolvet policy (what the agent may do)",
    ),
    (
        "**/approvals.db*",
        Kind::ToolvetState,
        "toolvet's approval ledger",
    ),
    (
        "**/approvals.key",
        Kind::ToolvetState,
        "toolvet's ticket-signing key",
    ),
    (
        "**/toolvet-decisions*.jsonl",
        Kind::ToolvetState,
        "toolvet's decision log",
    ),
    (
        "**/.local/state/toolvet/**",
        Kind::ToolvetState,
        "toolvet's state directory (the hooks' history)",
    ),
    (
        "**/toolvet/hooks/**",
        Kind::ToolvetState,
        "toolvet's hooks state (the session history)",
    ),
];

/// The context attribute in which the host passes toolvet's own state
/// paths: a JSON array of absolute paths (files or directories) that no
/// tool may write, move or delete: the policy file, the approval ledger
/// (its `-wal`, `-shm` and `-journal` files with it), the decision log,
/// the hooks' state directory. Everything under a directory counts.
pub const STATE_PATHS_ATTRIBUTE: &str = "toolvet.state_paths";

/// The context attribute in which the host passes the paths of its
/// secrets (the ticket-signing key): a JSON array of absolute paths that
/// no tool may read either.
pub const SECRET_PATHS_ATTRIBUTE: &str = "toolvet.secret_paths";

/// toolvet's own state paths as the host passed them (see
/// [`STATE_PATHS_ATTRIBUTE`], [`SECRET_PATHS_ATTRIBUTE`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StatePaths {
    /// No tool writes them.
    pub state: Vec<String>,
    /// No tool reads or writes them.
    pub secret: Vec<String>,
}

impl StatePaths {
    /// Read the two attributes (`attribute` looks one up by name).
    ///
    /// # Errors
    /// An attribute that is not a JSON array of absolute paths, naming it:
    /// a check fails closed on it rather than guess what the host meant.
    pub fn from_attributes<'a>(
        attribute: impl Fn(&str) -> Option<&'a str>,
    ) -> Result<Self, String> {
        let read = |name: &str| -> Result<Vec<String>, String> {
            let Some(text) = attribute(name) else {
                return Ok(Vec::new());
            };
            let paths: Vec<String> = serde_json::from_str(text).map_err(|e| {
                format!(
                    "context.attributes[\"{name}\"]: expected a JSON array of absolute paths: {e}"
                )
            })?;
            paths
                .into_iter()
                .enumerate()
                .map(|(i, p)| {
                    if !p.starts_with('/') {
                        return Err(format!(
                            "context.attributes[\"{name}\"][{i}]: `{p}` is not an absolute path"
                        ));
                    }
                    Ok(clean_absolute(&p))
                })
                .collect()
        };
        Ok(StatePaths {
            state: read(STATE_PATHS_ATTRIBUTE)?,
            secret: read(SECRET_PATHS_ATTRIBUTE)?,
        })
    }

    /// Whether `path` (normalised, absolute) is one of the secret paths or
    /// lies under one. A `path` holding pattern syntax ([`PathPattern`]:
    /// `approvals.ke?`, `*`, `{a,b}`) counts when it can name one.
    pub fn is_secret(&self, path: &str) -> bool {
        let pattern = PathPattern::new(path);
        if pattern.is_pattern() {
            return self.secret.iter().any(|p| names(&pattern, p, false));
        }
        self.secret.iter().any(|p| covers(p, path))
    }

    /// The first secret path at or below `path` (normalised, absolute):
    /// `path` is one, lies under one, or is a directory holding one. What
    /// reading `path` whole (`tar c DIR`, `cp -r DIR`, `grep -r … DIR`)
    /// reads. A pattern counts when it can name such a path.
    pub fn secret_within(&self, path: &str) -> Option<&str> {
        let pattern = PathPattern::new(path);
        self.secret
            .iter()
            .find(|p| {
                if pattern.is_pattern() {
                    names(&pattern, p, true)
                } else {
                    covers(p, path) || covers(path, p)
                }
            })
            .map(String::as_str)
    }

    /// The guard rail at `path`: a built-in one ([`guard_rail`]), else
    /// toolvet's state when `path` is (or is under, or is a SQLite side
    /// file of) a state or secret path. A `path` holding pattern syntax
    /// ([`PathPattern`]) is the guard rail of the first guarded path it
    /// can name: `.claude/setting*.json` is Claude Code's settings.
    pub fn guard_rail(&self, path: &str) -> Option<GuardRail> {
        let pattern = PathPattern::new(path);
        if pattern.is_pattern() {
            return self.rail_named_by(&pattern, false).map(|(rail, _)| rail);
        }
        guard_rail(path).or_else(|| {
            self.state
                .iter()
                .chain(&self.secret)
                .any(|p| covers(p, path))
                .then_some(TOOLVET_STATE)
        })
    }

    /// A guard rail at or below `path` (normalised, absolute), with the
    /// guarded path: `path` is a guard rail ([`StatePaths::guard_rail`]) or
    /// a directory holding one. Removing, moving or writing an unknown set
    /// of files into such a directory is an operation on the guard rail:
    /// `rm -rf .claude`, `mv .cursor /tmp/x`, `tar -x -C .claude`, `rm -r
    /// ~/.local/state/toolvet`.
    ///
    /// A directory holds toolvet's state when a state or secret path lies
    /// below it (exact: the host names them). It holds a built-in guard
    /// rail when it is the rail's own directory, by name: its last
    /// segments are a leading part of the rail's path that is a hidden
    /// directory or two segments or more (`.claude`, `.git/hooks`,
    /// `.local/state/toolvet`, `toolvet/hooks`; not any directory, which
    /// could hold a `.claude/` of its own). A pattern counts when it can
    /// name such a directory.
    pub fn rail_within(&self, path: &str) -> Option<(GuardRail, String)> {
        let pattern = PathPattern::new(path);
        if pattern.is_pattern() {
            return self.rail_named_by(&pattern, true);
        }
        if let Some(rail) = self.guard_rail(path) {
            return Some((rail, path.to_string()));
        }
        if let Some(p) = self
            .state
            .iter()
            .chain(&self.secret)
            .find(|p| covers(path, p))
        {
            return Some((TOOLVET_STATE, p.clone()));
        }
        let lower = fold_case(path);
        for (sample, dirs, _) in rail_dirs() {
            for dir in dirs {
                let holds = if dir.starts_with('/') {
                    lower == *dir
                } else {
                    lower.ends_with(&format!("/{dir}"))
                };
                if holds {
                    // The sample is `dir` and the rest of the rail's path.
                    let guarded = format!("{path}{}", &sample[dir.len()..]);
                    if let Some(rail) = guard_rail(&guarded) {
                        return Some((rail, guarded));
                    }
                }
            }
        }
        None
    }

    /// The first guarded path `pattern` can name (with `within`, also a
    /// directory holding one), with its rail.
    fn rail_named_by(&self, pattern: &PathPattern, within: bool) -> Option<(GuardRail, String)> {
        for p in self.state.iter().chain(&self.secret) {
            if names(pattern, p, within) {
                return Some((TOOLVET_STATE, p.clone()));
            }
        }
        // Built-in rails: their sample files placed below the pattern's
        // literal directory or a directory above it (with one or two
        // segments between, for `*/` in the pattern).
        for base in pattern_bases(pattern) {
            for (sample, dirs, tree) in rail_dirs() {
                let places: Vec<String> = if sample.starts_with('/') {
                    vec![String::new()]
                } else {
                    ["", "/x", "/x/y"]
                        .iter()
                        .map(|mid| format!("{base}{mid}/"))
                        .collect()
                };
                for place in places {
                    let guarded = if sample.starts_with('/') {
                        sample.clone()
                    } else {
                        format!("{place}{sample}")
                    };
                    let dir = guarded.rsplit_once('/').map_or("/", |(d, _)| d);
                    // A rail known only by its file name (`.bashrc`,
                    // `toolvet.toml`) anywhere: named when the pattern
                    // spells the name, not by a wildcard that matches any
                    // file (`build/*`, `*.toml`).
                    let named = if sample.contains('/') {
                        pattern.matches(&guarded)
                    } else {
                        pattern.matches_by_name(&guarded)
                    };
                    // Below a rail that is a whole directory
                    // (`.claude/hooks/*`); a pattern reaching any depth
                    // (`START/**/NAME`) must name the sample itself, or
                    // every name would be below some such directory.
                    let below = named
                        || (*tree
                            && !pattern.spans_directories()
                            && pattern.names_at_or_under(dir));
                    let held = below
                        || (within
                            && dirs.iter().any(|d| {
                                let held = if d.starts_with('/') {
                                    d.clone()
                                } else {
                                    format!("{place}{d}")
                                };
                                pattern.matches(&held)
                            }));
                    // The rail the placed sample is (the costly glob match,
                    // done only for a sample the pattern names).
                    if held && let Some(rail) = guard_rail(&guarded) {
                        return Some((rail, guarded));
                    }
                }
            }
        }
        None
    }
}

/// Whether `pattern` names the guarded path `p` or a path below it (with
/// `within`, also a directory holding it). A pattern reaching any depth
/// (`**`) must name `p` itself: it could otherwise go on below any file.
fn names(pattern: &PathPattern, p: &str, within: bool) -> bool {
    let at = if pattern.spans_directories() {
        pattern.matches(p)
    } else {
        pattern.names_at_or_under(p)
    };
    at || (within && pattern.names_at_or_above(p))
}

/// The rail of toolvet's own state named by the host.
const TOOLVET_STATE: GuardRail = GuardRail {
    kind: Kind::ToolvetState,
    label: "toolvet's own state (the policy, approvals, key or history of the host vetting this agent)",
};

/// The directories a pattern's alternatives start from (their leading
/// literal segments, `/` when none), and every directory above them.
fn pattern_bases(pattern: &PathPattern) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for base in pattern.literal_bases() {
        let mut b = base;
        loop {
            if !out.contains(&b) {
                out.push(b.clone());
            }
            match b.rfind('/') {
                Some(0) | None => {
                    if !out.iter().any(|o| o.is_empty()) {
                        out.push(String::new());
                    }
                    break;
                }
                Some(i) => b.truncate(i),
            }
        }
    }
    out
}

/// A sample path for each built-in rail (its glob with `**/` dropped,
/// `/**` read as `/x` and `*` as `x`), with the directories that hold it
/// by name: the leading parts of the sample that are a hidden directory
/// or two segments or more (see [`StatePaths::rail_within`]), and whether
/// the rail is a whole directory (its glob ends in `/**`: any name below
/// the sample's directory is that rail). Lower case.
fn rail_dirs() -> &'static [(String, Vec<String>, bool)] {
    static DIRS: OnceLock<Vec<(String, Vec<String>, bool)>> = OnceLock::new();
    DIRS.get_or_init(|| {
        FILES
            .iter()
            .flat_map(|(glob, _, _)| expand_braces(glob))
            .map(|glob| {
                let sample = glob
                    .trim_start_matches("**/")
                    .replace("/**", "/x")
                    .replace('*', "x")
                    .to_ascii_lowercase();
                let absolute = sample.starts_with('/');
                let segs: Vec<&str> = sample.split('/').filter(|s| !s.is_empty()).collect();
                let mut dirs = Vec::new();
                for n in 1..segs.len() {
                    let lead = segs[..n].join("/");
                    if absolute {
                        dirs.push(format!("/{lead}"));
                    } else if segs[0].starts_with('.') || n >= 2 {
                        dirs.push(lead);
                    }
                }
                (sample, dirs, glob.ends_with("/**"))
            })
            .collect()
    })
}

/// Text every path a built-in rail matches holds (lower case): for each
/// spelling of each rail's glob, one literal run of it (between `/` and
/// pattern syntax): a hidden name if it has one, else its longest
/// (`.claude`, `claude_desktop_config.json`, `.agents`,
/// `toolvet-decisions`). A word
/// that holds none of them cannot name a built-in rail, so a check that
/// looks for rails among the words of code (`open('…', 'w')`) may skip it;
/// derived from [`FILES`], it cannot fall behind the list.
pub fn name_needles() -> &'static [String] {
    static NEEDLES: OnceLock<Vec<String>> = OnceLock::new();
    NEEDLES.get_or_init(|| {
        let mut out: Vec<String> = Vec::new();
        for glob in FILES.iter().flat_map(|(glob, _, _)| expand_braces(glob)) {
            let run = glob
                .split(['/', '*', '?', '[', ']', '{', '}'])
                .filter(|run| run.len() > 1)
                .max_by_key(|run| (run.starts_with('.'), run.len()))
                .map(str::to_ascii_lowercase);
            // A glob with no literal run could match any word: then no
            // word may be skipped (`/` is in every path).
            let needle = run.unwrap_or_else(|| "/".to_string());
            if !out.contains(&needle) {
                out.push(needle);
            }
        }
        out
    })
}

/// Every spelling a glob's `{a,b}` alternatives give (`{Code,Cursor}/User`
/// → `Code/User`, `Cursor/User`): one sample per alternative, so that each
/// names its own directory. Alternatives do not nest in [`FILES`].
fn expand_braces(glob: &str) -> Vec<String> {
    let (Some(open), Some(close)) = (glob.find('{'), glob.find('}')) else {
        return vec![glob.to_string()];
    };
    if close < open {
        return vec![glob.to_string()];
    }
    let (head, tail) = (&glob[..open], &glob[close + 1..]);
    glob[open + 1..close]
        .split(',')
        .flat_map(|alt| expand_braces(&format!("{head}{alt}{tail}")))
        .collect()
}

/// `path` (absolute) cleaned lexically as the checks clean the paths they
/// compare with it: no empty or `.` segments, `..` removes the segment
/// before it, no trailing `/`.
fn clean_absolute(path: &str) -> String {
    let mut parts: Vec<&str> = Vec::new();
    for segment in path.split('/') {
        match segment {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            s => parts.push(s),
        }
    }
    format!("/{}", parts.join("/"))
}

/// Whether `path` is `base`, lies under it, or is one of its SQLite side
/// files (`-wal`, `-shm`, `-journal`). Case is ignored ([`fold_case`]),
/// as for the built-in rails: on a file system that folds case (APFS,
/// NTFS) `~/.local/STATE/toolvet` is the state directory (review s7 F13).
fn covers(base: &str, path: &str) -> bool {
    if base == "/" {
        return true;
    }
    let (base, path) = (fold_case(base), fold_case(path));
    match path.strip_prefix(&*base) {
        Some("") => true,
        Some(rest) => rest.starts_with('/') || matches!(rest, "-wal" | "-shm" | "-journal"),
        None => false,
    }
}

/// Content that loosens a guard rail, as (case-insensitive text, what it
/// does). Settings keys and values from the agents' documentation.
const LOOSENING: &[(&str, &str)] = &[
    (
        "bypasspermissions",
        "turns off the permission prompts (`bypassPermissions`)",
    ),
    (
        "dangerously-skip-permissions",
        "turns off the permission prompts",
    ),
    (
        "dangerouslyskippermissions",
        "turns off the permission prompts",
    ),
    (
        "skipdangerousmodepermissionprompt",
        "turns off the permission prompts",
    ),
    (
        "autoapprove",
        "approves tool calls automatically (`autoApprove`)",
    ),
    (
        "\"yolo\"",
        "sets the approval mode to yolo (approve everything)",
    ),
    (
        "approval_policy = \"never\"",
        "sets the approval policy to never ask",
    ),
    (
        "\"approvalpolicy\": \"never\"",
        "sets the approval policy to never ask",
    ),
    (
        "danger-full-access",
        "turns off the sandbox (`danger-full-access`)",
    ),
    (
        "disableallhooks",
        "turns off every hook (`disableAllHooks`)",
    ),
    (
        "chat.hookfileslocations",
        "moves where VS Code loads agent hooks from (`chat.hookFilesLocations`), dropping the hooks that vet it",
    ),
    (
        "task.allowautomatictasks",
        "runs workspace tasks automatically",
    ),
    (
        "mcp-servers",
        "names MCP servers the agent starts (`mcp-servers`)",
    ),
    (
        "mcpservers",
        "names MCP servers the agent starts (`mcpServers`)",
    ),
    ("\"deny\": []", "empties the deny rules"),
    ("\"deny\":[]", "empties the deny rules"),
    ("bash(*)", "allows every shell command (`Bash(*)`)"),
    ("bash(curl", "pre-approves network commands"),
    ("| sh", "runs downloaded or piped text as a shell script"),
    ("|sh", "runs downloaded or piped text as a shell script"),
    ("| bash", "runs downloaded or piped text as a shell script"),
];

fn compiled() -> &'static GlobSet {
    static SET: OnceLock<GlobSet> = OnceLock::new();
    SET.get_or_init(|| {
        let mut b = GlobSetBuilder::new();
        for (glob, _, _) in FILES {
            b.add(
                GlobBuilder::new(glob)
                    .case_insensitive(true)
                    .literal_separator(true)
                    .build()
                    .expect("built-in guard-rail globs are valid"),
            );
        }
        b.build().expect("built-in guard-rail globs compile")
    })
}

/// The guard rail at `path` (normalised, absolute or lexically cleaned),
/// if it is one.
pub fn guard_rail(path: &str) -> Option<GuardRail> {
    let hit = compiled().matches(&*fold_case(path)).into_iter().min()?;
    let (_, kind, label) = FILES[hit];
    Some(GuardRail { kind, label })
}

/// The guard rail of a git configuration file (`.git/config`,
/// `.git/config.worktree`, `~/.gitconfig`, `~/.config/git/config`,
/// `/etc/gitconfig`; `path` normalised): git runs the programs its
/// settings name (`core.fsmonitor`, `core.pager`, `core.sshCommand`,
/// `core.hooksPath`, `!` aliases, filters), so a write onto one is a
/// write onto what runs automatically ([`Kind::GitHook`]: a person
/// approves it). Kept apart from the built-in list that
/// [`guard_rail`] reads: shell-guard judges such a file's content key by
/// key (a `[user] name` line is ordinary), while a file tool's write is
/// escalated whole.
pub fn git_config(path: &str) -> Option<GuardRail> {
    let lower = fold_case(path);
    let is_config = [
        "/.git/config",
        "/.git/config.worktree",
        "/.gitconfig",
        "/.config/git/config",
    ]
    .iter()
    .any(|end| lower.ends_with(end))
        || lower == "/etc/gitconfig"
        // A submodule's or a worktree's own configuration (review s10
        // H4: `core.fsmonitor` there runs on the parent's `git status`).
        || ((lower.contains("/.git/modules/") || lower.contains("/.git/worktrees/"))
            && (lower.ends_with("/config") || lower.ends_with("/config.worktree")));
    is_config.then_some(GuardRail {
        kind: Kind::GitHook,
        label: "a git configuration file (git runs the programs it names: `core.fsmonitor`, `core.pager`, \
                `core.sshCommand`, `!` aliases, filters)",
    })
}

/// Invisible or direction-changing characters in `content` (zero-width
/// characters, bidirectional overrides and isolates, Unicode tag
/// characters): text a person reviewing it does not see ("Trojan Source",
/// CVE-2021-42574; the "rules file backdoor").
pub fn hidden_text(content: &str) -> Option<char> {
    content.chars().find(|c| {
        matches!(*c as u32, 0x200B..=0x200F | 0x202A..=0x202E | 0x2060..=0x2064 | 0x2066..=0x2069 | 0xFEFF | 0xE0000..=0xE007F)
    })
}

/// VS Code settings that only change how text is edited and shown, never
/// what runs or is allowed: `editor.` keys with a plain value (a number, a
/// text, a boolean, or a list of them: `editor.tabSize`,
/// `editor.formatOnSave`, `editor.rulers`) but [`ACTIVE_EDITOR_SETTINGS`],
/// and these, whose value is a map of globs to booleans or a plain value.
/// (Not `workbench.`: `workbench.externalBrowser` names a program; not an
/// extension's keys: `prettier.prettierPath` names a module it loads.)
const INERT_EDITOR_SETTINGS: &[&str] = &[
    "files.autoSave",
    "files.encoding",
    "files.eol",
    "files.exclude",
    "files.insertFinalNewline",
    "files.trimFinalNewlines",
    "files.trimTrailingWhitespace",
    "search.exclude",
];

/// `editor.` keys that run code of the workspace's extensions on save
/// (a formatter loading the workspace's configuration, code actions).
const ACTIVE_EDITOR_SETTINGS: &[&str] = &["editor.defaultFormatter", "editor.codeActionsOnSave"];

/// Whether every text of `pieces` (an edit's old and new text) is whole
/// VS Code settings, line by line: each line that is not blank is itself
/// JSON object members (`"editor.tabSize": 4,`) of [`INERT_EDITOR_SETTINGS`]
/// or inert `editor.` keys, or language blocks (`"[python]": {…}`) of
/// them. Line by line, because an edit inside a `//` comment leaves its
/// first line commented and makes the rest live. A text that is no such
/// members (a bare value, a fragment of one, a comment: an edit that
/// cannot show which key it changes), or names any other key, is not; nor
/// is a whole object (a file's whole content), nor no text at all.
pub fn inert_editor_settings(pieces: &[String]) -> bool {
    fn plain(value: &serde_json::Value) -> bool {
        match value {
            serde_json::Value::Object(_) => false,
            serde_json::Value::Array(items) => {
                items.iter().all(|v| !v.is_object() && !v.is_array())
            }
            _ => true,
        }
    }
    fn inert_member(key: &str, value: &serde_json::Value) -> bool {
        if key.starts_with("editor.") {
            return !ACTIVE_EDITOR_SETTINGS.contains(&key) && plain(value);
        }
        INERT_EDITOR_SETTINGS.contains(&key)
            && match value {
                serde_json::Value::Object(globs) => {
                    globs.values().all(serde_json::Value::is_boolean)
                }
                other => plain(other),
            }
    }
    fn inert(members: &serde_json::Map<String, serde_json::Value>, in_block: bool) -> bool {
        members.iter().all(|(key, value)| {
            let block = !in_block && key.len() > 2 && key.starts_with('[') && key.ends_with(']');
            match value {
                serde_json::Value::Object(inner) if block => inert(inner, true),
                _ => inert_member(key, value),
            }
        })
    }
    let members = |line: &str| {
        let line = line.trim();
        if line.starts_with('{') {
            return false;
        }
        let members = line.trim_end_matches(',');
        match serde_json::from_str::<serde_json::Value>(&format!("{{{members}}}")) {
            Ok(serde_json::Value::Object(m)) => !m.is_empty() && inert(&m, false),
            _ => false,
        }
    };
    !pieces.is_empty()
        && pieces.iter().all(|piece| {
            let mut lines = piece.lines().filter(|l| !l.trim().is_empty()).peekable();
            lines.peek().is_some() && lines.all(members)
        })
}

/// What in `content` (text about to be written into a guard-rail file)
/// loosens the guard rail, if anything.
pub fn loosening(content: &str) -> Option<&'static str> {
    let lower = content.to_ascii_lowercase();
    LOOSENING
        .iter()
        .find(|(needle, _)| lower.contains(needle))
        .map(|(_, what)| *what)
}

/// Whether `text` names `toolvet serve`'s decision endpoint
/// (`…/v1/approvals/ID/decision`, any host or prefix; percent-escapes,
/// case and doubled slashes ignored): the HTTP form of `toolvet approvals
/// approve|reject` (review s12 L2).
pub fn names_decision_endpoint(text: &str) -> bool {
    // Percent-decoded, lower case, slashes collapsed.
    let bytes = text.as_bytes();
    let mut plain = String::with_capacity(text.len());
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if b == b'%'
            && let Some(v) = text
                .get(i + 1..i + 3)
                .and_then(|h| u8::from_str_radix(h, 16).ok())
        {
            plain.push(char::from(v));
            i += 3;
            continue;
        }
        plain.push(char::from(b));
        i += 1;
    }
    let mut t = String::with_capacity(plain.len());
    for c in plain.to_ascii_lowercase().chars() {
        if c == '/' && t.ends_with('/') {
            continue;
        }
        t.push(c);
    }
    t.match_indices("v1/approvals/").any(|(k, m)| {
        let rest = &t[k + m.len()..];
        rest.split_once('/').is_some_and(|(id, after)| {
            !id.is_empty()
                && after.strip_prefix("decision").is_some_and(|end| {
                    end.chars()
                        .next()
                        .is_none_or(|c| !c.is_ascii_alphanumeric() && c != '_')
                })
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files() {
        let k = |p: &str| guard_rail(p).map(|g| g.kind);
        assert_eq!(
            k("/w/p/.claude/settings.local.json"),
            Some(Kind::AgentControl)
        );
        assert_eq!(k("/home/a/.claude/settings.json"), Some(Kind::AgentControl));
        assert_eq!(k("/w/p/.cursor/mcp.json"), Some(Kind::AgentControl));
        assert_eq!(k("/w/p/.vscode/settings.json"), Some(Kind::EditorSettings));
        assert_eq!(k("/w/p/.git/hooks/pre-commit"), Some(Kind::GitHook));
        assert_eq!(
            k("/w/p/.git/modules/x/hooks/pre-commit"),
            Some(Kind::GitHook)
        );
        assert_eq!(
            k("/w/p/.git/modules/a/modules/b/hooks/post-checkout"),
            Some(Kind::GitHook)
        );
        assert_eq!(k("/home/a/.bashrc"), Some(Kind::ShellStartup));
        assert_eq!(k("/home/a/.BASHRC"), Some(Kind::ShellStartup));
        assert_eq!(k("/w/p/src/settings.json"), None);
        // Slash commands run their `!` lines (review s7 F4).
        assert_eq!(k("/w/p/.claude/commands/review.md"), Some(Kind::GitHook));
        assert_eq!(k("/w/p/.github/workflows/ci.yml"), None);
        // Review s8 F10: pre-commit runs what it names at every commit
        // once installed (was tested as not a rail).
        assert_eq!(k("/w/p/.pre-commit-config.yaml"), Some(Kind::GitHook));
        assert_eq!(k("/w/p/docs/bashrc.md"), None);
        assert_eq!(k("/w/p/examples/toolvet.toml"), Some(Kind::ToolvetState));
        assert_eq!(k("/w/p/state/approvals.db"), Some(Kind::ToolvetState));
        assert_eq!(k("/w/p/state/approvals.db-wal"), Some(Kind::ToolvetState));
        assert_eq!(k("/w/p/state/approvals.key"), Some(Kind::ToolvetState));
        assert_eq!(
            k("/home/a/.local/state/toolvet/hooks/s1.jsonl"),
            Some(Kind::ToolvetState)
        );
        assert_eq!(
            k("/srv/state/toolvet/hooks/s1.jsonl"),
            Some(Kind::ToolvetState)
        );
        assert_eq!(k("/w/p/docs/toolvet.md"), None);
    }

    #[test]
    fn the_hosts_state_paths() {
        let attrs = |state: &'static str, secret: &'static str| {
            move |name: &str| match name {
                STATE_PATHS_ATTRIBUTE => Some(state),
                SECRET_PATHS_ATTRIBUTE => Some(secret),
                _ => None,
            }
        };
        let p = StatePaths::from_attributes(attrs(
            r#"["/srv/tv/ledger.sqlite", "/srv/tv/hooks/", "/etc/tv/policy.toml"]"#,
            r#"["/srv/tv/signing.bin"]"#,
        ))
        .unwrap();
        let k = |path: &str| p.guard_rail(path).map(|g| g.kind);
        assert_eq!(k("/srv/tv/ledger.sqlite"), Some(Kind::ToolvetState));
        assert_eq!(k("/srv/tv/ledger.sqlite-wal"), Some(Kind::ToolvetState));
        assert_eq!(k("/srv/tv/hooks/s1"), Some(Kind::ToolvetState));
        assert_eq!(k("/srv/tv/hooks"), Some(Kind::ToolvetState));
        assert_eq!(k("/srv/tv/signing.bin"), Some(Kind::ToolvetState));
        assert_eq!(k("/srv/tv/ledger.sqlite.txt"), None);
        assert_eq!(k("/srv/tv/hooksx"), None);
        assert!(p.is_secret("/srv/tv/signing.bin"));
        assert!(!p.is_secret("/srv/tv/ledger.sqlite"));
        assert_eq!(
            StatePaths::from_attributes(|_| None).unwrap(),
            StatePaths::default()
        );
        let messy =
            StatePaths::from_attributes(attrs(r#"["/srv//tv/./x/../hooks/", "/"]"#, "[]")).unwrap();
        assert_eq!(messy.state, ["/srv/tv/hooks", "/"]);
        let e = StatePaths::from_attributes(attrs("[\"state/approvals.db\"]", "[]")).unwrap_err();
        assert_eq!(
            e,
            "context.attributes[\"toolvet.state_paths\"][0]: `state/approvals.db` is not an absolute path"
        );
        assert!(StatePaths::from_attributes(attrs("/srv/x", "[]")).is_err());
    }

    fn host_paths() -> StatePaths {
        StatePaths {
            state: vec![
                "/h/.local/state/toolvet".into(),
                "/w/p/examples/toolvet.toml".into(),
            ],
            secret: vec![
                "/h/.local/state/toolvet/approvals.key".into(),
                "/h/.local/state/toolvet/history.key".into(),
            ],
        }
    }

    #[test]
    fn persistence_files_and_git_configuration() {
        // Red-team review: these were written with file tools unjudged.
        let k = |p: &str| guard_rail(p).map(|g| g.kind);
        // Fourth review: files an agent or a tool loads and runs by itself.
        for p in [
            "/w/p/.claude/skills/deploy/SKILL.md",
            "/w/p/.claude/skills/deploy/scripts/run.sh",
            "/home/a/.claude/agents/helper.md",
            "/w/p/.envrc",
            "/w/p/.vscode/tasks.json",
            "/w/p/.husky/pre-commit",
            "/w/p/sitecustomize.py",
            "/w/p/.venv/lib/python3.11/site-packages/evil.pth",
        ] {
            assert_eq!(k(p), Some(Kind::GitHook), "{p}");
        }
        // (`src/skills/agents.md` is not a skill, but is `AGENTS.md` on a
        // case-insensitive file system: an instruction file, below.)
        for p in [
            "/w/p/src/skills/helper.md",
            "/w/p/docs/commands/x.md",
            "/w/p/custom.py",
        ] {
            assert_eq!(k(p), None, "{p}");
        }
        // Fifth review F8/F6: what switches a hooked agent's vetting off
        // or starts programs, and instructions every later session reads.
        for p in [
            "/home/a/.copilot/config.json",
            "/home/a/.copilot/mcp-config.json",
            "/home/a/.copilot/hooks/x.json",
            "/w/p/.gemini/extensions/x/gemini-extension.json",
            "/home/a/.gemini/extensions/x/hooks/hooks.json",
        ] {
            assert_eq!(k(p), Some(Kind::AgentControl), "{p}");
        }
        assert_eq!(
            k("/home/a/.gemini/extensions/x/commands/deploy.toml"),
            Some(Kind::GitHook)
        );
        assert_eq!(k("/w/p/.vscode/settings.json"), Some(Kind::EditorSettings));
        for p in [
            "/w/p/AGENTS.md",
            "/w/p/sub/AGENTS.md",
            "/w/p/CLAUDE.md",
            "/w/p/.claude/CLAUDE.md",
            "/w/p/CLAUDE.local.md",
            "/w/p/GEMINI.md",
            "/home/a/.gemini/GEMINI.md",
            "/w/p/.github/copilot-instructions.md",
            "/w/p/.github/instructions/rust.instructions.md",
            "/w/p/.cursorrules",
            "/w/p/.cursor/rules/x.mdc",
            "/w/p/.src/skills/agents.md",
        ] {
            assert_eq!(k(p), Some(Kind::AgentInstructions), "{p}");
        }
        for p in [
            "/w/p/README.md",
            "/w/p/docs/agents-overview.md",
            "/w/p/.github/workflows/ci.yml",
        ] {
            assert_eq!(k(p), None, "{p}");
        }
        assert!(loosening("{\"chat.hookFilesLocations\": {\"/tmp/h\": true}}").is_some());
        for p in [
            "/home/a/.bash_aliases",
            "/home/a/.xsessionrc",
            "/home/a/.xprofile",
            "/home/a/.config/autostart/x.desktop",
        ] {
            assert_eq!(k(p), Some(Kind::ShellStartup), "{p}");
        }
        for p in [
            "/home/a/.vimrc",
            "/home/a/.vim/vimrc",
            "/home/a/.config/nvim/init.lua",
            "/home/a/.config/nvim/init.vim",
            "/home/a/.tmux.conf",
            "/home/a/.config/tmux/tmux.conf",
            "/home/a/.cargo/config.toml",
            "/w/p/.cargo/config.toml",
        ] {
            assert_eq!(k(p), Some(Kind::GitHook), "{p}");
        }
        assert_eq!(k("/w/p/src/vimrc.rs"), None);
        assert_eq!(k("/w/p/Cargo.toml"), None);
        assert_eq!(k("/w/p/.config/nvim-notes.md"), None);
        // Git configuration files: their own rail, not in the list the
        // shell check reads key by key.
        let g = |p: &str| git_config(p).map(|g| g.kind);
        for p in [
            "/w/p/.git/config",
            "/w/p/.git/config.worktree",
            "/home/a/.gitconfig",
            "/home/a/.config/git/config",
            "/etc/gitconfig",
            "/w/p/.GIT/CONFIG",
        ] {
            assert_eq!(g(p), Some(Kind::GitHook), "{p}");
        }
        assert_eq!(g("/w/p/.git/config.bak/x"), None);
        // Review s10 H4: a submodule's and a worktree's configuration.
        for p in [
            "/w/p/.git/modules/x/config",
            "/w/p/.git/modules/a/modules/b/config",
            "/w/p/.git/worktrees/w1/config.worktree",
        ] {
            assert_eq!(g(p), Some(Kind::GitHook), "{p}");
        }
        assert_eq!(g("/w/p/.git/modules/x/description"), None);
        assert_eq!(g("/w/p/gitconfig.md"), None);
        assert_eq!(g("/w/p/.git/HEAD"), None);
        assert_eq!(k("/w/p/.git/config"), None);
    }

    #[test]
    fn the_other_agents_skills_agents_and_commands() {
        // Review s7 F4: written unjudged before.
        let k = |p: &str| guard_rail(p).map(|g| g.kind);
        for p in [
            "/w/p/.github/agents/x.agent.md",
            "/w/p/.github/skills/x/SKILL.md",
            "/w/p/.github/skills/x/scripts/run.sh",
            "/w/p/.github/chatmodes/x.chatmode.md",
            "/home/a/.copilot/skills/x/SKILL.md",
            "/w/p/.gemini/skills/x/SKILL.md",
            "/w/p/.gemini/agents/x.md",
            "/w/p/.gemini/commands/x.toml",
            "/w/p/.gemini/commands/git/commit.toml",
            "/w/p/.agents/skills/x/SKILL.md",
            "/home/a/.agents/skills/x/SKILL.md",
            "/home/a/.codex/skills/x/SKILL.md",
            "/w/p/.claude/commands/x.md",
            "/w/p/.cursor/environment.json",
            "/Users/a/project/.GitHub/Agents/X.agent.md",
        ] {
            assert_eq!(k(p), Some(Kind::GitHook), "{p}");
        }
        for p in [
            "/w/p/.github/prompts/x.prompt.md",
            "/w/p/.cursor/commands/x.md",
            "/w/p/.gemini/system.md",
            "/Users/a/Library/Application Support/Code/User/prompts/x.prompt.md",
        ] {
            assert_eq!(k(p), Some(Kind::AgentInstructions), "{p}");
        }
        assert_eq!(k("/w/p/.cursor/cli.json"), Some(Kind::AgentControl));
        // The other agents' permission lists.
        for p in [
            "/home/a/.codex/rules/default.rules",
            "/w/p/.codex/rules/x.rules",
            "/home/a/.codex/policy/x.codexpolicy",
            "/home/a/.gemini/policies/my-rules.toml",
            "/w/p/.gemini/policies/project.toml",
            "/home/a/.gemini/trustedFolders.json",
            "/etc/gemini-cli/settings.json",
            "/Library/Application Support/GeminiCli/policies/x.toml",
        ] {
            assert_eq!(k(p), Some(Kind::AgentControl), "{p}");
        }
        assert_eq!(k("/home/a/.copilot/agents/x.agent.md"), Some(Kind::GitHook));
        // Not these: the same names elsewhere.
        for p in [
            "/w/p/skills/x/SKILL.md",
            "/w/p/.github/workflows/agents.yml",
            "/w/p/docs/prompts/x.prompt.md",
            "/w/p/.gemini/notes.md",
            "/w/p/agents/skills/x.md",
        ] {
            assert_eq!(k(p), None, "{p}");
        }
        // An agent definition that names MCP servers starts programs.
        assert!(loosening("---\nname: x\nmcp-servers:\n  x:\n    command: sh\n---\n").is_some());
        assert!(loosening("---\nmcpServers: {}\n---\n").is_some());
        // Directories holding them.
        let p = StatePaths::default();
        let within = |path: &str| p.rail_within(path).map(|(g, _)| g.kind);
        assert_eq!(within("/w/p/.agents/skills"), Some(Kind::GitHook));
        assert_eq!(within("/w/p/.agents"), Some(Kind::GitHook));
        assert_eq!(within("/w/p/.gemini/commands"), Some(Kind::GitHook));
    }

    #[test]
    fn every_rail_holds_a_needle() {
        // A path a rail matches holds one of the needles (what shell-guard
        // uses to pick the words of inline code worth resolving).
        let needles = name_needles();
        for (sample, _, _) in rail_dirs() {
            let at = format!("/w/{}", sample.trim_start_matches('/'));
            assert!(needles.iter().any(|n| at.contains(n.as_str())), "{at}");
        }
        assert!(needles.iter().any(|n| n == "claude_desktop_config.json"));
        assert!(needles.iter().any(|n| n == ".agents"));
        assert!(!needles.iter().any(|n| n == "/"), "{needles:?}");
    }

    #[test]
    fn client_settings_outside_dot_directories() {
        // Review s7 F5: user-level settings of the clients on macOS,
        // Windows and Linux, by place.
        let k = |p: &str| guard_rail(p).map(|g| g.kind);
        for p in [
            "/Users/a/Library/Application Support/Claude/claude_desktop_config.json",
            "/home/a/.config/Claude/claude_desktop_config.json",
            "/c/Users/a/AppData/Roaming/Claude/claude_desktop_config.json",
            "/Users/a/Library/Application Support/Code/User/settings.json",
            "/Users/a/Library/Application Support/Code/User/mcp.json",
            "/Users/a/Library/Application Support/Code - Insiders/User/mcp.json",
            "/Users/a/Library/Application Support/Cursor/User/settings.json",
            "/Users/a/Library/Application Support/Windsurf/User/settings.json",
            "/Users/a/Library/Application Support/VSCodium/User/settings.json",
            "/Users/a/Library/Application Support/Code/User/profiles/1a2b/settings.json",
            "/home/a/.config/Code/User/settings.json",
            "/home/a/.config/Code/User/mcp.json",
            "/home/a/.config/Code - OSS/User/settings.json",
            "/c/Users/a/AppData/Roaming/Code/User/mcp.json",
            "/home/a/.config/zed/settings.json",
            "/Users/a/.config/zed/settings.json",
            "/c/Users/a/AppData/Roaming/Zed/settings.json",
            "/Library/Application Support/ClaudeCode/managed-settings.json",
            "/etc/claude-code/managed-settings.json",
            "/USERS/A/LIBRARY/APPLICATION SUPPORT/CODE/USER/SETTINGS.JSON",
        ] {
            assert_eq!(k(p), Some(Kind::AgentControl), "{p}");
        }
        for p in [
            "/Users/a/Library/Application Support/Code/User/keybindings.json",
            "/Users/a/Library/Application Support/Code/logs/x.json",
            "/w/p/src/Code/settings.json",
            "/w/p/claude_desktop_config.json.example",
        ] {
            assert_eq!(k(p), None, "{p}");
        }
        // Removing or replacing the directory that holds them.
        let p = StatePaths::default();
        let within = |path: &str| p.rail_within(path).map(|(g, _)| g.kind);
        assert_eq!(
            within("/Users/a/Library/Application Support/Cursor/User"),
            Some(Kind::AgentControl)
        );
        assert_eq!(
            within("/Users/a/Library/Application Support/Code - Insiders/User"),
            Some(Kind::AgentControl)
        );
    }

    #[test]
    fn the_hosts_state_paths_fold_case() {
        // Review s7 F13: a case-folding file system reaches the same file.
        let p = host_paths();
        assert_eq!(
            p.guard_rail("/h/.local/STATE/toolvet/approvals.db")
                .map(|g| g.kind),
            Some(Kind::ToolvetState)
        );
        assert!(p.is_secret("/h/.local/state/Toolvet/APPROVALS.KEY"));
        assert_eq!(
            git_config("/w/p/.Git/Config").map(|g| g.kind),
            Some(Kind::GitHook)
        );
    }

    #[test]
    fn rails_fold_case_by_unicode_as_case_insensitive_file_systems_do() {
        // Review s10 H19: U+017F (long s) folds to `s`, U+212A (Kelvin) to
        // `k`; APFS, NTFS and casefold directories open the real file.
        let p = host_paths();
        for path in [
            "/w/p/.claude/\u{17f}ettings.json",
            "/w/p/.claude/settings.j\u{17f}on",
            "/w/p/.mcp.j\u{17f}on",
            "/w/p/.git/hoo\u{212a}s/pre-commit",
        ] {
            assert!(p.guard_rail(path).is_some(), "{path}");
        }
        assert_eq!(
            git_config("/w/p/.git/config.wor\u{212a}tree").map(|g| g.kind),
            Some(Kind::GitHook)
        );
        assert!(p.is_secret("/h/.local/\u{17f}tate/toolvet/approvals.key"));
        assert_eq!(
            p.rail_within("/w/p/.git/hoo\u{212a}s").map(|(r, _)| r.kind),
            Some(Kind::GitHook)
        );
        // Other letters are not folded onto ASCII: `é` stays `é`.
        assert!(p.guard_rail("/w/p/.claude/s\u{e9}ttings.json").is_none());
        assert_eq!(fold_case("/a/B\u{17f}"), "/a/bs");
        assert!(matches!(fold_case("/a/b"), Cow::Borrowed(_)));
    }

    #[test]
    fn patterns_name_what_they_can_match() {
        let p = host_paths();
        // Key reads through globs (issue 29, third pass).
        for path in [
            "/h/.local/state/toolvet/approvals.ke?",
            "/h/.local/state/toolvet/*",
            "/h/.local/state/toolvet/hist*",
            "/h/.local/state/toolvet/{history,x}.key",
            "/h/.local/state/t[a-z]olvet/approvals.key",
        ] {
            assert!(p.is_secret(path), "{path}");
        }
        assert!(!p.is_secret("/h/.local/state/toolvet/*.db"));
        assert!(
            !p.is_secret("/h/.local/state/*"),
            "a directory is not read by cat"
        );
        // Writes through globs onto built-in rails and the host's paths.
        let k = |path: &str| p.guard_rail(path).map(|g| g.kind);
        assert_eq!(k("/w/p/.claude/setting*.json"), Some(Kind::AgentControl));
        assert_eq!(k("/w/p/.c*/settings.json"), Some(Kind::AgentControl));
        assert_eq!(
            k("/w/p/.claude/{x,settings}.json"),
            Some(Kind::AgentControl)
        );
        assert_eq!(k("/w/p/.cursor/hook?.json"), Some(Kind::AgentControl));
        assert_eq!(k("/w/p/.claude/hooks/*"), Some(Kind::AgentControl));
        assert_eq!(k("/w/p/examples/*.toml"), Some(Kind::ToolvetState));
        assert_eq!(
            k("/h/.local/state/toolvet/hooks/*"),
            Some(Kind::ToolvetState)
        );
        // Patterns written to match hidden files name the hidden rails
        // they match (`rm -rf .[!.]*` at the workspace root, red-team
        // review): `*` alone skips them, a leading `.` asks for them.
        for path in ["/w/q/.*", "/w/q/.[!.]*", "/w/q/.??*", "/w/q/.[a-z]*"] {
            assert_eq!(k(path), Some(Kind::AgentControl), "{path}");
        }
        assert_eq!(k("/w/q/*"), None);
        assert_eq!(k("/w/q/.*.swp"), None);
        assert_eq!(k("/w/p/src/*.rs"), None);
        assert_eq!(k("/w/p/build/*"), None);
        assert_eq!(k("/w/p/.claude/commands/*.md"), Some(Kind::GitHook));
        assert_eq!(k("/w/p/.claude/notes/*.md"), None);
    }

    #[test]
    fn directories_holding_guarded_paths() {
        let p = host_paths();
        let within = |path: &str| p.rail_within(path).map(|(g, at)| (g.kind, at));
        // Removing or writing into an ancestor (issue 29, third pass).
        assert_eq!(
            within("/w/p/.claude"),
            Some((Kind::AgentControl, "/w/p/.claude/settings.json".into()))
        );
        assert_eq!(
            within("/w/p/.cursor").map(|w| w.0),
            Some(Kind::AgentControl)
        );
        assert_eq!(within("/w/p/.codex").map(|w| w.0), Some(Kind::AgentControl));
        assert_eq!(
            within("/w/p/.claude/hooks").map(|w| w.0),
            Some(Kind::AgentControl)
        );
        assert_eq!(within("/w/p/.git/hooks").map(|w| w.0), Some(Kind::GitHook));
        assert_eq!(
            within("/h/.local/state"),
            Some((Kind::ToolvetState, "/h/.local/state/toolvet".into()))
        );
        assert_eq!(
            within("/w/p/examples"),
            Some((Kind::ToolvetState, "/w/p/examples/toolvet.toml".into()))
        );
        assert_eq!(within("/w/p").map(|w| w.0), Some(Kind::ToolvetState));
        assert_eq!(within("/").map(|w| w.0), Some(Kind::ToolvetState));
        assert_eq!(
            within("/srv/x/toolvet/hooks").map(|w| w.0),
            Some(Kind::ToolvetState)
        );
        // Any directory could hold a `.claude/` of its own: not counted.
        assert_eq!(within("/w/q"), None);
        assert_eq!(within("/w/q/build"), None);
        assert_eq!(within("/w/q/crates/toolvet"), None);
        assert_eq!(within("/w/q/.github/workflows"), None);
        // Patterns naming such a directory.
        assert_eq!(within("/w/q/.c*").map(|w| w.0), Some(Kind::AgentControl));
        assert_eq!(
            within("/w/q/.[a-z]*").map(|w| w.0),
            Some(Kind::AgentControl)
        );
        assert_eq!(within("/w/p/*").map(|w| w.0), Some(Kind::ToolvetState));
        assert_eq!(within("/w/q/*"), None);
        assert_eq!(within("/w/q/build/*"), None);
        // Reading a directory whole reads the keys in it.
        assert_eq!(
            p.secret_within("/h/.local/state/toolvet"),
            Some("/h/.local/state/toolvet/approvals.key")
        );
        assert!(p.secret_within("/h").is_some());
        assert!(p.secret_within("/h/.local/st*").is_some());
        assert_eq!(p.secret_within("/w/p"), None);
        assert_eq!(p.secret_within("/h/.local/state/toolvet/hooks"), None);
    }

    #[test]
    fn every_rail_sample_is_its_rail() {
        for (sample, dirs, _) in rail_dirs() {
            let at = if sample.starts_with('/') {
                sample.clone()
            } else {
                format!("/w/{sample}")
            };
            assert!(guard_rail(&at).is_some(), "{sample}");
            for d in dirs {
                assert!(sample.starts_with(d.as_str()), "{d} leads {sample}");
            }
        }
    }

    /// The host cleans the paths it passes with `clean` in
    /// crates/toolvet/src/state_paths.rs, the catalog the paths it reads
    /// with [`clean_absolute`]: the checks compare the two, so they must
    /// agree. These are the cases the host's tests use; a change to either
    /// function that is not made to both fails here or there.
    #[test]
    fn path_cleaning_agrees_with_the_host() {
        for (input, clean) in [
            ("/h/state/", "/h/state"),
            ("/p/./toolvet.toml", "/p/toolvet.toml"),
            ("/x/../h/state", "/h/state"),
            ("/srv//tv/./x/../hooks/", "/srv/tv/hooks"),
            ("/", "/"),
            ("/..", "/"),
            ("/a/b/../../..", "/"),
            ("//usr//lib/", "/usr/lib"),
            ("/a/./b/../c", "/a/c"),
            ("/s/ledger.sqlite", "/s/ledger.sqlite"),
        ] {
            assert_eq!(clean_absolute(input), clean, "{input}");
        }
    }

    #[test]
    fn loosening_content() {
        assert!(loosening("{\"permissions\": {\"defaultMode\": \"bypassPermissions\"}}").is_some());
        assert!(loosening("{\"chat.tools.autoApprove\": true}").is_some());
        assert!(loosening("{\"general\": {\"defaultApprovalMode\": \"yolo\"}}").is_some());
        assert!(loosening("\"deny\": []").is_some());
        assert!(loosening("curl -s https://x | sh").is_some());
        assert_eq!(loosening("{\"editor.tabSize\": 4}"), None);
        assert_eq!(
            loosening("{\"permissions\": {\"deny\": [\"Bash(rm:*)\"]}}"),
            None
        );
    }

    #[test]
    fn other_clients_mcp_lists_and_commit_hook_frameworks() {
        // Review s8 F9: other clients' project-level MCP server lists.
        let k = |p: &str| guard_rail(p).map(|g| g.kind);
        for p in [
            "/w/p/.roo/mcp.json",
            "/w/p/.amazonq/mcp.json",
            "/w/p/.amazonq/cli-agents/dev.json",
            "/w/p/.kiro/settings/mcp.json",
            "/w/p/.kiro/hooks/on-save.kiro.hook",
            "/w/p/opencode.json",
            "/w/p/opencode.jsonc",
            "/home/a/.config/opencode/opencode.json",
            "/w/p/.continue/mcpServers/x.yaml",
            "/w/p/.qwen/settings.json",
            "/w/p/.ROO/MCP.json",
        ] {
            assert_eq!(k(p), Some(Kind::AgentControl), "{p}");
        }
        assert_eq!(k("/w/p/.zed/settings.json"), Some(Kind::EditorSettings));
        // Review s8 F10: commit-hook frameworks and dev containers.
        for p in [
            "/w/p/.pre-commit-config.yaml",
            "/w/p/lefthook.yml",
            "/w/p/.lefthook.yml",
            "/w/p/lefthook-local.yml",
            "/w/p/.lefthook-local.yaml",
            "/w/p/lefthook.toml",
            "/w/p/.config/lefthook.yml",
            "/w/p/sub/lefthook.json",
            "/w/p/.huskyrc",
            "/w/p/.huskyrc.json",
            "/w/p/.lintstagedrc.json",
            "/w/p/lint-staged.config.mjs",
            "/w/p/.overcommit.yml",
            "/w/p/.simple-git-hooks.json",
            "/w/p/.devcontainer/devcontainer.json",
            "/w/p/.devcontainer/python/devcontainer.json",
            "/w/p/.devcontainer.json",
        ] {
            assert_eq!(k(p), Some(Kind::GitHook), "{p}");
        }
        // Neighbours that are not rails.
        for p in [
            "/w/p/.pre-commit-hooks.yaml",
            "/w/p/docs/lefthook.md",
            "/w/p/.devcontainer/Dockerfile",
            "/w/p/src/mcp.json",
            "/w/p/.roo/notes.md",
            "/w/p/.zed/tasks.md",
            "/w/p/opencode.md",
        ] {
            assert_eq!(k(p), None, "{p}");
        }
        // Their directories hold a rail (a removal or move of one is a
        // write onto it), and code naming them is looked at.
        let needles = name_needles();
        for n in [
            ".roo",
            ".pre-commit-config.yaml",
            ".devcontainer",
            "opencode.json",
        ] {
            assert!(needles.iter().any(|x| x == n), "{n}");
        }
        let p = StatePaths::default();
        assert!(p.rail_within("/w/p/.kiro").is_some());
        assert!(p.rail_within("/w/p/.devcontainer").is_some());
    }

    #[test]
    fn more_clients_mcp_lists_and_tool_configs_naming_programs() {
        let k = |p: &str| guard_rail(p).map(|g| g.kind);
        // Review s9 G9: MCP lists, permissions and plugins of more clients.
        for p in [
            "/w/p/.kilocode/mcp.json",
            "/w/p/crush.json",
            "/w/p/.crush.json",
            "/home/a/.config/crush/crush.json",
            "/w/p/.opencode/plugin/x.ts",
            "/w/p/.opencode/plugins/sub/x.js",
            "/home/a/.config/opencode/plugin/x.ts",
            "/home/a/.codeium/windsurf/mcp_config.json",
            "/home/a/.config/Code/User/globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json",
            "/home/a/.config/Code/User/globalStorage/rooveterinaryinc.roo-cline/settings/mcp_settings.json",
            "/home/a/.config/goose/config.yaml",
        ] {
            assert_eq!(k(p), Some(Kind::AgentControl), "{p}");
        }
        // Tool configurations naming what the next command runs, opencode's
        // agents and commands, dev container scripts.
        for p in [
            "/w/p/.opencode/agent/review.md",
            "/w/p/.opencode/commands/x.md",
            "/home/a/.config/opencode/agent/x.md",
            "/w/p/.yarnrc.yml",
            "/w/p/.yarnrc",
            "/w/p/.yarn/releases/yarn-4.5.0.cjs",
            "/w/p/.yarn/plugins/@yarnpkg/plugin-x.cjs",
            "/w/p/rust-toolchain.toml",
            "/w/p/rust-toolchain",
            "/w/p/mise.toml",
            "/w/p/.mise.toml",
            "/w/p/mise.local.toml",
            "/w/p/.mise.production.toml",
            "/w/p/.mise/config.toml",
            "/w/p/mise/config.toml",
            "/w/p/.config/mise.toml",
            "/w/p/.config/mise/config.toml",
            "/w/p/.config/mise/config.local.toml",
            "/w/p/.config/mise/conf.d/x.toml",
            "/home/a/.config/mise/config.toml",
            "/w/p/.tool-versions",
            "/w/p/.pre-commit-config.yml",
            "/w/p/.devcontainer/init.sh",
            "/w/p/.devcontainer/python/post-create.py",
            "/w/p/.DevContainer/Init.SH",
        ] {
            assert_eq!(k(p), Some(Kind::GitHook), "{p}");
        }
        // Neighbours that are not rails (the project-level files these
        // clients do not read among them).
        for p in [
            "/w/p/package.json",
            "/w/p/Cargo.toml",
            "/w/p/.yarn/cache/x.zip",
            "/w/p/.yarn/install-state.gz",
            "/w/p/yarn.lock",
            "/w/p/.opencode/README.md",
            "/w/p/docs/crush.md",
            "/w/p/.devcontainer/Dockerfile",
            "/w/p/.devcontainer/README.md",
            "/w/p/.windsurf/mcp.json",
            "/w/p/.cline/mcp.json",
            "/w/p/.goose/config.yaml",
            "/w/p/src/mise.rs",
            "/w/p/docs/rust-toolchain.md",
            "/w/p/settings/app.json",
        ] {
            assert_eq!(k(p), None, "{p}");
        }
        // A removal of their directories is a write onto them.
        let p = StatePaths::default();
        for dir in [
            "/w/p/.opencode",
            "/w/p/.yarn",
            "/w/p/.kilocode",
            "/w/p/.mise",
        ] {
            assert!(p.rail_within(dir).is_some(), "{dir}");
        }
        assert!(p.rail_within("/w/p/settings").is_none());
        assert!(p.rail_within("/w/p/.yarn/cache").is_none());
        let needles = name_needles();
        for n in [".kilocode", ".crush.json", ".yarnrc.yml", ".tool-versions"] {
            assert!(needles.iter().any(|x| x == n), "{n}");
        }
    }

    #[test]
    fn startup_files_of_distributions_frameworks_and_programs() {
        // Review s24 R2, S6, S8.
        let k = |p: &str| guard_rail(p).map(|g| g.kind);
        for p in [
            "/home/a/.bash_completion",
            "/home/a/.bashrc.d/x.sh",
            "/home/a/.local/share/bash-completion/completions/git",
            "/home/a/.config/fish/conf.d/x.fish",
            "/home/a/.config/fish/functions/ls.fish",
            "/home/a/.zlogout",
            "/home/a/.zshrc.zwc",
            "/home/a/.zcompdump-host-5.9",
            "/home/a/.oh-my-zsh/custom/env.zsh",
            "/home/a/.oh-my-zsh/oh-my-zsh.sh",
            "/home/a/.config/environment.d/50-x.conf",
            "/home/a/.config/systemd/user/x.service",
        ] {
            assert_eq!(k(p), Some(Kind::ShellStartup), "{p}");
        }
        for p in [
            "/home/a/.gdbinit",
            "/home/a/.config/gdb/gdbinit",
            "/home/a/.psqlrc",
            "/home/a/.psqlrc-16",
            "/home/a/.Rprofile",
            "/home/a/.sqliterc",
        ] {
            assert_eq!(k(p), Some(Kind::GitHook), "{p}");
        }
        for p in [
            "/w/p/completions/tool.bash",
            "/w/p/bashrc.d.md",
            "/home/a/.local/share/fish/fish_history",
            "/home/a/.config/fish/notes.md",
        ] {
            assert_eq!(k(p), None, "{p}");
        }
        let p = StatePaths::default();
        assert!(p.rail_within("/home/a/.bashrc.d").is_some());
        assert!(p.rail_within("/home/a/.oh-my-zsh").is_some());
    }
}
