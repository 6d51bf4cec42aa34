//! tmux's commands, as tmux itself reads them (review s18 R1).
//!
//! tmux finds a command by its exact name, its alias, or a unique prefix
//! of its name (cmd.c `cmd_find`: an ambiguous prefix is an error), and
//! reads each command's flags with its own getopt-style template
//! (arguments.c `args_parse`: flags bundle, a value is the rest of the
//! word or the next word, the flags stop at the first argument or `--`).
//! [`COMMANDS`] is the one table: each command's name, alias, template
//! (as a [`Spec`]), and what its arguments are ([`Operands`]). A command
//! the table does not know, or a flag its template cannot place, is held
//! by the reader in [`crate::code::runners`]. Templates are tmux 3.4's
//! (`cmd-*.c`, `.args = { "…", … }`).

use crate::opts::getopt::{Spec, Takes, short};

const N: Takes = Takes::No;
const V: Takes = Takes::Value;

/// A command's flag table from its template, flags first, then the
/// letters that take a value (`spec!("b" "C"; "d" "c" "t")` for
/// run-shell's `"bd:Cc:t:"`). tmux's commands stop at their first
/// argument: `permute: false`.
macro_rules! spec {
    ($($f:literal)* ; $($v:literal)*) => {
        Spec {
            opts: &[$(short($f, N),)* $(short($v, V),)*],
            permute: false,
            long_only: false,
        }
    };
}

/// What a tmux command does with its arguments.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Operands {
    /// Shell text, joined and run by the default shell (`new-session
    /// CMD`, `run-shell CMD`, `pipe-pane CMD`, `display-popup CMD`).
    Shell,
    /// `if-shell [-F] CONDITION COMMANDS [ELSE]`: CONDITION is shell text
    /// (a format with `-F`), then tmux commands.
    IfShell,
    /// Every argument is a tmux command list (`confirm-before CMD`,
    /// `command-prompt TEMPLATE`, `choose-tree TEMPLATE`).
    Commands,
    /// The first argument is a name (a key, a hook), the rest one tmux
    /// command (`bind-key KEY CMD ARGS…`, `set-hook HOOK CMDS`).
    CommandsAfterName,
    /// `display-menu NAME KEY COMMAND …`: triples, an empty name a
    /// separator; each COMMAND a tmux command list.
    Menu,
    /// `send-keys KEYS…`: typed into the pane's shell.
    Keys,
    /// `set-option NAME VALUE`: hooks (`after-new-window`) and
    /// `default-command` run what they are set to.
    Option,
    /// Names, targets, formats, data.
    Data,
    /// Runs what the check cannot see (`source-file FILE`,
    /// `paste-buffer`: a buffer typed into a pane): held.
    Hold,
}

/// One tmux command.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Command {
    pub name: &'static str,
    pub alias: &'static str,
    /// tmux's template, as written in its source (checked against `spec`
    /// by a test).
    pub template: &'static str,
    pub spec: Spec,
    pub operands: Operands,
    /// Flags whose value is shell text (`detach-client -E CMD`).
    pub shell_flags: &'static str,
}

const fn cmd(
    name: &'static str,
    alias: &'static str,
    template: &'static str,
    spec: Spec,
    operands: Operands,
) -> Command {
    Command {
        name,
        alias,
        template,
        spec,
        operands,
        shell_flags: "",
    }
}

use Operands::*;

/// tmux's commands (tmux 3.4 `cmd_table`).
pub(crate) const COMMANDS: &[Command] = &[
    // Commands that run shell text.
    cmd(
        "new-session",
        "new",
        "Ac:dDe:EF:f:n:Ps:t:x:Xy:",
        spec!("A" "d" "D" "E" "P" "X"; "c" "e" "F" "f" "n" "s" "t" "x" "y"),
        Shell,
    ),
    cmd(
        "new-window",
        "neww",
        "abc:de:F:kn:PSt:",
        spec!("a" "b" "d" "k" "P" "S"; "c" "e" "F" "n" "t"),
        Shell,
    ),
    cmd(
        "split-window",
        "splitw",
        "bc:de:fF:hIl:p:Pt:vZ",
        spec!("b" "d" "f" "h" "I" "P" "v" "Z"; "c" "e" "F" "l" "p" "t"),
        Shell,
    ),
    cmd(
        "respawn-pane",
        "respawnp",
        "c:e:kt:",
        spec!("k"; "c" "e" "t"),
        Shell,
    ),
    cmd(
        "respawn-window",
        "respawnw",
        "c:e:kt:",
        spec!("k"; "c" "e" "t"),
        Shell,
    ),
    // `-C`: the argument is tmux commands (read by the reader).
    cmd(
        "run-shell",
        "run",
        "bd:Cc:t:",
        spec!("b" "C"; "d" "c" "t"),
        Shell,
    ),
    cmd("if-shell", "if", "bFt:", spec!("b" "F"; "t"), IfShell),
    cmd(
        "pipe-pane",
        "pipep",
        "IOot:",
        spec!("I" "O" "o"; "t"),
        Shell,
    ),
    cmd(
        "display-popup",
        "popup",
        "Bb:Cc:d:e:Eh:s:S:t:T:w:x:y:",
        spec!("B" "C" "E"; "b" "c" "d" "e" "h" "s" "S" "t" "T" "w" "x" "y"),
        Shell,
    ),
    Command {
        shell_flags: "E",
        ..cmd(
            "detach-client",
            "detach",
            "aE:s:t:P",
            spec!("a" "P"; "E" "s" "t"),
            Data,
        )
    },
    // Commands that run tmux commands.
    cmd(
        "confirm-before",
        "confirm",
        "bc:p:t:y",
        spec!("b" "y"; "c" "p" "t"),
        Commands,
    ),
    cmd(
        "command-prompt",
        "",
        "1bFkiI:Np:t:T:",
        spec!("1" "b" "F" "k" "i" "N"; "I" "p" "t" "T"),
        Commands,
    ),
    cmd(
        "set-hook",
        "",
        "agpRt:uw",
        spec!("a" "g" "p" "R" "u" "w"; "t"),
        CommandsAfterName,
    ),
    cmd(
        "bind-key",
        "bind",
        "nrN:T:",
        spec!("n" "r"; "N" "T"),
        CommandsAfterName,
    ),
    cmd(
        "display-menu",
        "menu",
        "b:c:C:H:s:S:Ot:T:x:y:",
        spec!("O"; "b" "c" "C" "H" "s" "S" "t" "T" "x" "y"),
        Menu,
    ),
    cmd(
        "choose-tree",
        "",
        "F:f:GK:NO:rst:wZ",
        spec!("G" "N" "r" "s" "w" "Z"; "F" "f" "K" "O" "t"),
        Commands,
    ),
    cmd(
        "choose-client",
        "",
        "F:f:K:NO:rt:Z",
        spec!("N" "r" "Z"; "F" "f" "K" "O" "t"),
        Commands,
    ),
    cmd(
        "choose-buffer",
        "",
        "F:f:K:NO:rt:Z",
        spec!("N" "r" "Z"; "F" "f" "K" "O" "t"),
        Commands,
    ),
    cmd(
        "display-panes",
        "displayp",
        "bd:Nt:",
        spec!("b" "N"; "d" "t"),
        Commands,
    ),
    cmd(
        "source-file",
        "source",
        "t:Fnqv",
        spec!("F" "n" "q" "v"; "t"),
        Hold,
    ),
    cmd(
        "paste-buffer",
        "pasteb",
        "db:prs:t:",
        spec!("d" "p" "r"; "b" "s" "t"),
        Hold,
    ),
    // Typed into a pane.
    cmd(
        "send-keys",
        "send",
        "c:FHKlMN:Rt:X",
        spec!("F" "H" "K" "l" "M" "R" "X"; "c" "N" "t"),
        Keys,
    ),
    // Options: hooks and `default-command` run their value.
    cmd(
        "set-option",
        "set",
        "aFgopqst:uUw",
        spec!("a" "F" "g" "o" "p" "q" "s" "u" "U" "w"; "t"),
        Option,
    ),
    cmd(
        "set-window-option",
        "setw",
        "aFgoqt:u",
        spec!("a" "F" "g" "o" "q" "u"; "t"),
        Option,
    ),
    // Data.
    cmd(
        "attach-session",
        "attach",
        "c:dEf:rt:x",
        spec!("d" "E" "r" "x"; "c" "f" "t"),
        Data,
    ),
    cmd("kill-session", "", "aCt:", spec!("a" "C"; "t"), Data),
    cmd("kill-server", "", "", spec!(;), Data),
    cmd("kill-window", "killw", "at:", spec!("a"; "t"), Data),
    cmd("kill-pane", "killp", "at:", spec!("a"; "t"), Data),
    cmd("list-sessions", "ls", "F:f:", spec!(; "F" "f"), Data),
    cmd(
        "list-windows",
        "lsw",
        "aF:f:t:",
        spec!("a"; "F" "f" "t"),
        Data,
    ),
    cmd(
        "list-panes",
        "lsp",
        "asF:f:t:",
        spec!("a" "s"; "F" "f" "t"),
        Data,
    ),
    cmd("list-clients", "lsc", "F:f:t:", spec!(; "F" "f" "t"), Data),
    cmd(
        "list-keys",
        "lsk",
        "1aNP:T:",
        spec!("1" "a" "N"; "P" "T"),
        Data,
    ),
    cmd("list-commands", "lscm", "F:", spec!(; "F"), Data),
    cmd("list-buffers", "lsb", "F:f:", spec!(; "F" "f"), Data),
    cmd("has-session", "has", "t:", spec!(; "t"), Data),
    cmd(
        "capture-pane",
        "capturep",
        "ab:CeE:JNpPqS:Tt:",
        spec!("a" "C" "e" "J" "N" "p" "P" "q" "T"; "b" "E" "S" "t"),
        Data,
    ),
    cmd(
        "display-message",
        "display",
        "aCc:d:lINpt:F:v",
        spec!("a" "C" "l" "I" "N" "p" "v"; "c" "d" "t" "F"),
        Data,
    ),
    cmd("rename-session", "rename", "t:", spec!(; "t"), Data),
    cmd("rename-window", "renamew", "t:", spec!(; "t"), Data),
    cmd(
        "select-window",
        "selectw",
        "lnpTt:",
        spec!("l" "n" "p" "T"; "t"),
        Data,
    ),
    cmd(
        "select-pane",
        "selectp",
        "DdegLlMmP:RT:t:UZ",
        spec!("D" "d" "e" "g" "L" "l" "M" "m" "R" "U" "Z"; "P" "T" "t"),
        Data,
    ),
    cmd(
        "select-layout",
        "selectl",
        "Enopt:",
        spec!("E" "n" "o" "p"; "t"),
        Data,
    ),
    cmd(
        "resize-pane",
        "resizep",
        "DLMRTt:Ux:y:Z",
        spec!("D" "L" "M" "R" "T" "U" "Z"; "t" "x" "y"),
        Data,
    ),
    cmd(
        "resize-window",
        "resizew",
        "aADLRt:Ux:y:",
        spec!("a" "A" "D" "L" "R" "U"; "t" "x" "y"),
        Data,
    ),
    cmd(
        "switch-client",
        "switchc",
        "c:EFlnO:pt:rT:Z",
        spec!("E" "F" "l" "n" "p" "r" "Z"; "c" "O" "t" "T"),
        Data,
    ),
    cmd(
        "show-options",
        "show",
        "AgHpqst:vw",
        spec!("A" "g" "H" "p" "q" "s" "v" "w"; "t"),
        Data,
    ),
    cmd(
        "show-window-options",
        "showw",
        "gvt:",
        spec!("g" "v"; "t"),
        Data,
    ),
    cmd(
        "show-environment",
        "showenv",
        "hgst:",
        spec!("h" "g" "s"; "t"),
        Data,
    ),
    cmd("show-hooks", "", "gpt:w", spec!("g" "p" "w"; "t"), Data),
    cmd("show-buffer", "showb", "b:", spec!(; "b"), Data),
    cmd(
        "show-messages",
        "showmsgs",
        "JTt:",
        spec!("J" "T"; "t"),
        Data,
    ),
    cmd(
        "set-buffer",
        "setb",
        "ab:t:n:w",
        spec!("a" "w"; "b" "t" "n"),
        Data,
    ),
    cmd("delete-buffer", "deleteb", "b:", spec!(; "b"), Data),
    cmd(
        "copy-mode",
        "",
        "deHMs:t:uq",
        spec!("d" "e" "H" "M" "u" "q"; "s" "t"),
        Data,
    ),
    cmd("clear-history", "clearhist", "Ht:", spec!("H"; "t"), Data),
    cmd(
        "swap-pane",
        "swapp",
        "dDs:t:UZ",
        spec!("d" "D" "U" "Z"; "s" "t"),
        Data,
    ),
    cmd("swap-window", "swapw", "ds:t:", spec!("d"; "s" "t"), Data),
    cmd(
        "move-window",
        "movew",
        "abdkrs:t:",
        spec!("a" "b" "d" "k" "r"; "s" "t"),
        Data,
    ),
    cmd(
        "link-window",
        "linkw",
        "abdks:t:",
        spec!("a" "b" "d" "k"; "s" "t"),
        Data,
    ),
    cmd("unlink-window", "unlinkw", "kt:", spec!("k"; "t"), Data),
    cmd(
        "break-pane",
        "breakp",
        "abdPF:n:s:t:",
        spec!("a" "b" "d" "P"; "F" "n" "s" "t"),
        Data,
    ),
    cmd(
        "join-pane",
        "joinp",
        "bdfhvp:l:s:t:",
        spec!("b" "d" "f" "h" "v"; "p" "l" "s" "t"),
        Data,
    ),
    cmd(
        "move-pane",
        "movep",
        "bdfhvp:l:s:t:",
        spec!("b" "d" "f" "h" "v"; "p" "l" "s" "t"),
        Data,
    ),
    cmd("last-window", "last", "t:", spec!(; "t"), Data),
    cmd("last-pane", "lastp", "det:Z", spec!("d" "e" "Z"; "t"), Data),
    cmd("next-window", "next", "at:", spec!("a"; "t"), Data),
    cmd("previous-window", "prev", "at:", spec!("a"; "t"), Data),
    cmd("next-layout", "nextl", "t:", spec!(; "t"), Data),
    cmd("previous-layout", "prevl", "t:", spec!(; "t"), Data),
    cmd(
        "rotate-window",
        "rotatew",
        "Dt:UZ",
        spec!("D" "U" "Z"; "t"),
        Data,
    ),
    cmd(
        "unbind-key",
        "unbind",
        "anqT:",
        spec!("a" "n" "q"; "T"),
        Data,
    ),
    cmd("lock-session", "locks", "t:", spec!(; "t"), Data),
    cmd("lock-client", "lockc", "t:", spec!(; "t"), Data),
    cmd("lock-server", "lock", "", spec!(;), Data),
    cmd("suspend-client", "suspendc", "t:", spec!(; "t"), Data),
    cmd("start-server", "start", "", spec!(;), Data),
    cmd("wait-for", "wait", "LSU", spec!("L" "S" "U";), Data),
    cmd(
        "find-window",
        "findw",
        "CiNrt:TZ",
        spec!("C" "i" "N" "r" "T" "Z"; "t"),
        Data,
    ),
    cmd("clock-mode", "", "t:", spec!(; "t"), Data),
    cmd(
        "set-environment",
        "setenv",
        "Fhgrt:u",
        spec!("F" "h" "g" "r" "u"; "t"),
        Data,
    ),
    cmd("load-buffer", "loadb", "b:t:w", spec!("w"; "b" "t"), Data),
    cmd(
        "customize-mode",
        "",
        "F:f:Nt:Z",
        spec!("N" "Z"; "F" "f" "t"),
        Data,
    ),
    cmd(
        "clear-prompt-history",
        "clearphist",
        "T:",
        spec!(; "T"),
        Data,
    ),
    cmd("show-prompt-history", "showphist", "T:", spec!(; "T"), Data),
    cmd(
        "server-access",
        "",
        "adlrw",
        spec!("a" "d" "l" "r" "w";),
        Data,
    ),
    cmd("send-prefix", "", "2t:", spec!("2"; "t"), Data),
];

/// The operands a [`Operands::Data`] command takes at most (tmux 3.4
/// `cmd-*.c`, `.args = { "…", lower, upper }`); a command not listed takes
/// none. More operands than these mean the name runs something else
/// (an alias set by `command-alias` before the check ran): held (review
/// s19 S2).
const DATA_OPERANDS: &[(&str, usize)] = &[
    ("list-keys", 1),
    ("list-commands", 1),
    ("display-message", 1),
    ("rename-session", 1),
    ("rename-window", 1),
    ("select-layout", 1),
    ("resize-pane", 1),
    ("resize-window", 1),
    ("show-options", 1),
    ("show-window-options", 1),
    ("show-environment", 1),
    ("show-hooks", 1),
    ("set-buffer", 1),
    ("unbind-key", 1),
    ("wait-for", 1),
    ("find-window", 1),
    ("set-environment", 2),
    ("load-buffer", 1),
    ("server-access", 1),
];

/// How many operands data command `name` takes at most.
pub(crate) fn data_operands(name: &str) -> usize {
    DATA_OPERANDS
        .iter()
        .find(|(n, _)| *n == name)
        .map_or(0, |(_, k)| *k)
}

/// How a command name resolves.
pub(crate) enum Lookup {
    One(&'static Command),
    Unknown,
    Ambiguous,
}

/// The command `name` names, as tmux's `cmd_find`: an exact name or
/// alias, else the only command whose name it begins.
pub(crate) fn lookup(name: &str) -> Lookup {
    if name.is_empty() {
        return Lookup::Unknown;
    }
    if let Some(c) = COMMANDS.iter().find(|c| c.name == name || c.alias == name) {
        return Lookup::One(c);
    }
    let mut hits = COMMANDS.iter().filter(|c| c.name.starts_with(name));
    match (hits.next(), hits.next()) {
        (Some(c), None) => Lookup::One(c),
        (Some(_), Some(_)) => Lookup::Ambiguous,
        _ => Lookup::Unknown,
    }
}

/// tmux's hooks (options-table.c `OPTIONS_TABLE_HOOK`): set to tmux
/// commands, by `set-hook` or `set-option`. `after-*` hooks are one per
/// command.
const HOOKS: &[&str] = &[
    "alert-activity",
    "alert-bell",
    "alert-silence",
    "client-active",
    "client-attached",
    "client-detached",
    "client-focus-in",
    "client-focus-out",
    "client-resized",
    "client-session-changed",
    "command-error",
    "pane-died",
    "pane-exited",
    "pane-focus-in",
    "pane-focus-out",
    "pane-mode-changed",
    "pane-set-clipboard",
    "pane-title-changed",
    "session-closed",
    "session-created",
    "session-renamed",
    "session-window-changed",
    "window-layout-changed",
    "window-linked",
    "window-pane-changed",
    "window-renamed",
    "window-resized",
    "window-unlinked",
];

/// Options whose value is shell text tmux runs (`default-command`: the
/// shell of new panes; `lock-command`; `copy-command`: what copy-pipe
/// runs when given no command).
const SHELL_OPTIONS: &[&str] = &["default-command", "lock-command", "copy-command"];

/// Options that change what a later command runs in ways the check cannot
/// follow: held whatever their value (review s19 S2). `command-alias`
/// renames commands (cmd-parse.c `cmd_parse_expand_alias`: a later `has`
/// may run `run-shell`), `default-shell` is the program new panes run,
/// `editor` the program `customize-mode` and popups start.
/// `update-environment` names the variables copied from an attaching
/// client into the session's environment (review s21 U8).
const HELD_OPTIONS: &[&str] = &[
    "command-alias",
    "default-shell",
    "editor",
    "update-environment",
];

/// What an option's value is, for `set-option NAME VALUE`.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum OptionValue {
    Shell,
    Commands,
    Data,
    /// A prefix of several options that run their value, or one of
    /// [`HELD_OPTIONS`] (`command-alias`, `default-shell`): held.
    Hold,
}

/// Options are matched like commands (options.c `options_match`: exact
/// name, else a unique prefix); `NAME[IDX]` is an array item, `@NAME` a
/// user option (data).
pub(crate) fn option_value(name: &str) -> OptionValue {
    let name = name.split('[').next().unwrap_or(name);
    if name.starts_with('@') || name.is_empty() {
        return OptionValue::Data;
    }
    if name.starts_with("after-") || HOOKS.contains(&name) {
        return OptionValue::Commands;
    }
    if SHELL_OPTIONS.contains(&name) {
        return OptionValue::Shell;
    }
    let acting = HOOKS
        .iter()
        .chain(SHELL_OPTIONS)
        .chain(HELD_OPTIONS)
        .chain(&["after-"])
        .any(|o| o.starts_with(name));
    if acting {
        return OptionValue::Hold;
    }
    OptionValue::Data
}

/// The flags a template string names, with whether each takes a value.
#[cfg(test)]
fn template_opts(t: &str) -> Vec<(char, bool)> {
    let b: Vec<char> = t.chars().collect();
    (0..b.len())
        .filter(|&i| b[i] != ':')
        .map(|i| (b[i], b.get(i + 1) == Some(&':')))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_spec_is_its_template() {
        for c in COMMANDS {
            let mut want = template_opts(c.template);
            let mut got: Vec<(char, bool)> = c
                .spec
                .opts
                .iter()
                .map(|o| (o.short, o.takes == Takes::Value))
                .collect();
            want.sort();
            got.sort();
            assert_eq!(want, got, "{}", c.name);
            assert!(!c.spec.permute);
        }
    }

    #[test]
    fn lookup_by_name_alias_and_unique_prefix() {
        let name = |n: &str| match lookup(n) {
            Lookup::One(c) => c.name,
            Lookup::Unknown => "unknown",
            Lookup::Ambiguous => "ambiguous",
        };
        assert_eq!(name("new-se"), "new-session");
        assert_eq!(name("new"), "new-session");
        assert_eq!(name("run-s"), "run-shell");
        assert_eq!(name("split-w"), "split-window");
        assert_eq!(name("new-w"), "new-window");
        assert_eq!(name("popup"), "display-popup");
        assert_eq!(name("if"), "if-shell");
        assert_eq!(name("ne"), "ambiguous");
        assert_eq!(name("frobnicate"), "unknown");
        assert_eq!(option_value("default-command"), OptionValue::Shell);
        assert_eq!(option_value("after-new-window[1]"), OptionValue::Commands);
        assert_eq!(option_value("default-c"), OptionValue::Hold);
        assert_eq!(option_value("status-style"), OptionValue::Data);
        assert_eq!(option_value("command-alias[100]"), OptionValue::Hold);
        assert_eq!(option_value("command-a"), OptionValue::Hold);
        for (n, _) in DATA_OPERANDS {
            assert!(
                matches!(lookup(n), Lookup::One(c) if c.name == *n && c.operands == Data),
                "{n}"
            );
        }
    }
}
