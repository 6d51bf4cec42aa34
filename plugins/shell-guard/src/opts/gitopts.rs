//! git subcommands' options, read as git reads them (reviews s16 P10, s17
//! Q5, Q7 and Q10): one table per subcommand that can run a command
//! ([`GIT_COMMANDS`]), `git config`'s ([`GIT_CONFIG`]), and the list of
//! git's own commands, so that any other subcommand (an alias, a
//! `git-NAME` program) is read by every table.
//!
//! git's builtins read their options with parse-options
//! (`parse-options.c`): short options bundle and the first letter that
//! takes a value takes the rest of the word or the next word (`rebase -ix
//! CMD`, `difftool -yx CMD`); a long option may be any unique prefix of
//! its name, one letter included (`rebase --e CMD`, `ls-remote --u=CMD`);
//! options and operands mix. `git send-email` reads its options with
//! Perl's Getopt::Long, which takes unique prefixes too, one dash or two,
//! in any case.
//!
//! Each subcommand has one table ([`GitCommand`]): every short letter git
//! knows for it (so a cluster is read letter by letter as git reads it),
//! and the long options that matter here. [`read`] differs from
//! [`crate::opts::getopt::parse`] where git's full table is not this one, always
//! towards reading more:
//!
//! - a long spelling that is a prefix of several listed options is read
//!   as every one of them: git refuses an ambiguous prefix, so reading it
//!   as a command-running option costs nothing when git would run nothing;
//! - a short letter the table does not know is read as a flag, and the
//!   rest of the cluster as more options (git refuses an unknown letter);
//!   a letter with an optional value (`-r[MODE]`, `-S[KEY]`) both gives
//!   the rest as its value and reads on;
//! - `--` is read past (in a table that permutes; `git config` stops at
//!   its first operand): it ends git's options unless it is the value of an
//!   option this table does not list, so the words after it are read as
//!   options too (a path spelled like an option is rare; a command hidden
//!   after a `--` that was a value is not);
//! - an option word whose letters or long name are only known at run
//!   time (`-i$O`, `--$X`) is kept apart ([`GitRead::run_time`]): the
//!   caller holds it. A value joined to a known option (`-x"$C"`,
//!   `--depth=$N`) is that option's value; a word wholly unknown (`"$X"`)
//!   is read as an operand, as elsewhere in the check.

use crate::opts::getopt::{Found, Opt, Parsed, Spec, Takes, long, short};
use crate::syntax::{Field, Seg};

/// A git subcommand's options, and which of them name a command git runs.
#[derive(Debug)]
pub struct GitCommand {
    /// The subcommand (`rebase`).
    pub name: &'static str,
    /// Its options: every short letter, the long options that matter.
    /// `long_only`: read as Getopt::Long reads (`send-email`): one dash or
    /// two, any case.
    pub spec: Spec,
    /// Options (by name) whose value is a shell command git runs (`exec`).
    pub scripts: &'static [&'static str],
}

/// A table of a git builtin: options and operands mix (`permute`).
const fn git_spec(opts: &'static [Opt]) -> Spec {
    Spec {
        opts,
        permute: true,
        long_only: false,
    }
}

const V: Takes = Takes::Value;
const N: Takes = Takes::No;
const O: Takes = Takes::Optional;

/// git's subcommands whose options can make git run a command.
/// Sources: git's `builtin/<name>.c` option tables (`OPT_*('x', …)`),
/// `archive.c`, `git-filter-branch.sh`, `git-instaweb.sh`,
/// `git-send-email.perl`; the man pages for the commands they run.
pub const GIT_COMMANDS: &[GitCommand] = &[
    // `git rebase -x|--exec CMD`: runs CMD through the shell after each
    // commit. `-r[MODE]` and `-S[KEYID]` take an optional joined value.
    GitCommand {
        name: "rebase",
        spec: git_spec(&[
            long("exec", 'x', V),
            short("q", N),
            short("v", N),
            short("n", N),
            short("C", V),
            short("f", N),
            short("m", N),
            short("i", N),
            short("p", N),
            short("k", N),
            short("S", O),
            short("r", O),
            short("s", V),
            short("X", V),
        ]),
        scripts: &["exec"],
    },
    // `git difftool -x|--extcmd CMD`: runs CMD (through the shell) on each
    // pair of files. `-t|--tool` names a configured tool.
    GitCommand {
        name: "difftool",
        spec: git_spec(&[
            long("extcmd", 'x', V),
            long("tool", 't', V),
            short("g", N),
            short("d", N),
            short("y", N),
        ]),
        scripts: &["extcmd"],
    },
    // `git grep -O[PAGER]|--open-files-in-pager[=PAGER]`: opens the
    // matching files with PAGER (run through the shell). The value is
    // optional in git; read here also from the next word, to be safe.
    GitCommand {
        name: "grep",
        spec: git_spec(&[
            long("open-files-in-pager", 'O', V),
            short("v", N),
            short("i", N),
            short("w", N),
            short("a", N),
            short("I", N),
            short("r", N),
            short("E", N),
            short("G", N),
            short("F", N),
            short("P", N),
            short("n", N),
            short("h", N),
            short("H", N),
            short("l", N),
            short("L", N),
            short("z", N),
            short("o", N),
            short("c", N),
            short("q", N),
            short("p", N),
            short("W", N),
            short("(", N),
            short(")", N),
            short("C", V),
            short("B", V),
            short("A", V),
            short("f", V),
            short("e", V),
            short("m", V),
        ]),
        scripts: &["open-files-in-pager"],
    },
    // `git clone -u|--upload-pack CMD`: runs CMD (through the shell, for
    // a local or ssh source) as the remote's upload-pack. `-c|--config
    // K=V` sets configuration in the new repository (read as `git -c`).
    GitCommand {
        name: "clone",
        spec: git_spec(&[
            long("upload-pack", 'u', V),
            long("config", 'c', V),
            short("v", N),
            short("q", N),
            short("n", N),
            short("l", N),
            short("s", N),
            short("j", V),
            short("o", V),
            short("b", V),
        ]),
        scripts: &["upload-pack"],
    },
    // `git fetch|pull|ls-remote --upload-pack CMD`: as for clone (`-u` is
    // another option in fetch and pull: `--update-head-ok`).
    GitCommand {
        name: "fetch",
        spec: git_spec(&[
            long("upload-pack", '\0', V),
            short("v", N),
            short("q", N),
            short("a", N),
            short("f", N),
            short("m", N),
            short("t", N),
            short("n", N),
            short("j", V),
            short("p", N),
            short("P", N),
            short("k", N),
            short("u", N),
            short("o", V),
        ]),
        scripts: &["upload-pack"],
    },
    GitCommand {
        name: "pull",
        spec: git_spec(&[
            long("upload-pack", '\0', V),
            short("v", N),
            short("q", N),
            short("r", O),
            short("n", N),
            short("s", V),
            short("X", V),
            short("S", O),
            short("a", N),
            short("f", N),
            short("t", N),
            short("p", N),
            short("j", O),
            short("k", N),
            short("o", V),
        ]),
        scripts: &["upload-pack"],
    },
    // (`ls-remote` also takes a hidden `--exec`, the same option.)
    GitCommand {
        name: "ls-remote",
        spec: git_spec(&[
            long("upload-pack", '\0', V),
            long("exec", '\0', V),
            short("q", N),
            short("t", N),
            short("b", N),
            short("h", N),
            short("o", V),
        ]),
        scripts: &["upload-pack", "exec"],
    },
    // `git archive --remote=R --exec=CMD`: CMD runs as the remote's
    // upload-archive.
    GitCommand {
        name: "archive",
        spec: git_spec(&[
            long("exec", '\0', V),
            short("o", V),
            short("l", N),
            short("v", N),
        ]),
        scripts: &["exec"],
    },
    // `git push --receive-pack|--exec CMD` runs CMD as the remote's
    // receive-pack. The rest of the table is read by the push rule
    // (force, delete, mirror: `git_push` in walk/commands/git.rs).
    GitCommand {
        name: "push",
        spec: git_spec(&[
            long("exec", '\0', V),
            long("receive-pack", '\0', V),
            long("repo", '\0', V),
            long("push-option", 'o', V),
            long("recurse-submodules", '\0', V),
            long("signed", '\0', O),
            long("all", '\0', N),
            long("branches", '\0', N),
            long("mirror", '\0', N),
            long("delete", 'd', N),
            long("force", 'f', N),
            long("force-with-lease", '\0', O),
            long("force-if-includes", '\0', N),
            short("v", N),
            short("q", N),
            short("n", N),
            short("u", N),
        ]),
        scripts: &["exec", "receive-pack"],
    },
    // `git fetch-pack`/`send-pack --upload-pack|--receive-pack|--exec CMD`
    // (plumbing; they read only full spellings, a prefix is read here too).
    GitCommand {
        name: "fetch-pack",
        spec: git_spec(&[long("upload-pack", '\0', V), long("exec", '\0', V)]),
        scripts: &["upload-pack", "exec"],
    },
    GitCommand {
        name: "send-pack",
        spec: git_spec(&[long("receive-pack", '\0', V), long("exec", '\0', V)]),
        scripts: &["receive-pack", "exec"],
    },
    // `git filter-branch --tree-filter CMD …`: each filter, and `--setup`,
    // is shell code the script evals.
    GitCommand {
        name: "filter-branch",
        spec: git_spec(&[
            long("setup", '\0', V),
            long("tree-filter", '\0', V),
            long("index-filter", '\0', V),
            long("msg-filter", '\0', V),
            long("env-filter", '\0', V),
            long("commit-filter", '\0', V),
            long("parent-filter", '\0', V),
            long("tag-name-filter", '\0', V),
            short("f", N),
            short("d", V),
        ]),
        scripts: &[
            "setup",
            "tree-filter",
            "index-filter",
            "msg-filter",
            "env-filter",
            "commit-filter",
            "parent-filter",
            "tag-name-filter",
        ],
    },
    // `git instaweb -d|--httpd CMD`: the web server's command line, run;
    // `-b|--browser` a browser (a command `git web--browse` runs).
    GitCommand {
        name: "instaweb",
        spec: git_spec(&[
            long("httpd", 'd', V),
            long("browser", 'b', V),
            short("l", N),
            short("p", V),
            short("m", V),
        ]),
        scripts: &["httpd", "browser"],
    },
    // `git send-email --to-cmd|--cc-cmd|--header-cmd CMD` runs CMD through
    // the shell with each patch's path; `--sendmail-cmd CMD` sends each
    // mail through it; `--smtp-server /PATH` runs PATH as sendmail.
    // `--to`/`--cc` (addresses) are listed because their exact spelling
    // is not a prefix of `--to-cmd`/`--cc-cmd`.
    GitCommand {
        name: "send-email",
        spec: Spec {
            opts: &[
                long("to", '\0', V),
                long("cc", '\0', V),
                long("to-cmd", '\0', V),
                long("cc-cmd", '\0', V),
                long("header-cmd", '\0', V),
                long("sendmail-cmd", '\0', V),
                long("smtp-server", '\0', V),
            ],
            permute: true,
            long_only: true,
        },
        scripts: &[
            "to-cmd",
            "cc-cmd",
            "header-cmd",
            "sendmail-cmd",
            "smtp-server",
        ],
    },
];

/// `git config`'s options (`builtin/config.c`): every one taking a value
/// (so that the key and value are found), and those that make it read or
/// remove rather than set. It stops at its first operand
/// (`PARSE_OPT_STOP_AT_NON_OPTION`): a value may start with a dash. The
/// subcommand words (`set`, `get`, …) are operands, read by the caller.
pub const GIT_CONFIG: Spec = Spec {
    opts: &[
        long("file", 'f', V),
        long("blob", '\0', V),
        long("type", 't', V),
        long("value", '\0', V),
        long("url", '\0', V),
        long("default", '\0', V),
        long("comment", '\0', V),
        long("get", '\0', N),
        long("get-all", '\0', N),
        long("get-regexp", '\0', N),
        long("get-urlmatch", '\0', N),
        long("get-color", '\0', N),
        long("get-colorbool", '\0', N),
        long("unset", '\0', N),
        long("unset-all", '\0', N),
        long("list", 'l', N),
        long("edit", 'e', N),
        long("rename-section", '\0', N),
        long("remove-section", '\0', N),
        long("show-origin", '\0', N),
        long("show-scope", '\0', N),
        long("name-only", '\0', N),
        short("z", N),
    ],
    permute: false,
    long_only: false,
};

/// `git clean`'s options (`builtin/clean.c`): `-f|--force` deletes,
/// `-n|--dry-run` only lists; `-e|--exclude` takes a pattern.
pub const GIT_CLEAN: Spec = git_spec(&[
    long("force", 'f', N),
    long("dry-run", 'n', N),
    long("exclude", 'e', V),
    long("interactive", 'i', N),
    long("quiet", 'q', N),
    short("d", N),
    short("x", N),
    short("X", N),
]);

/// `git reset`'s options (`builtin/reset.c`): `--hard` throws away
/// uncommitted changes.
pub const GIT_RESET: Spec = git_spec(&[
    long("hard", '\0', N),
    long("soft", '\0', N),
    long("mixed", '\0', N),
    long("merge", '\0', N),
    long("keep", '\0', N),
    long("patch", 'p', N),
    long("quiet", 'q', N),
    long("intent-to-add", 'N', N),
    long("pathspec-from-file", '\0', V),
]);

/// `git config` options that read or remove, rather than set, a value.
pub const GIT_CONFIG_READS: &[&str] = &[
    "get",
    "get-all",
    "get-regexp",
    "get-urlmatch",
    "get-color",
    "get-colorbool",
    "unset",
    "unset-all",
    "list",
    "edit",
    "rename-section",
    "remove-section",
    "show-origin",
    "show-scope",
    "name-only",
];

/// git's own commands (`git.c`'s command table and `command-list.txt`):
/// a subcommand not among them is an alias (from configuration the check
/// may not see) or an external `git-NAME` program. git never lets an
/// alias replace one of these.
const GIT_BUILTINS: &[&str] = &[
    "add",
    "am",
    "annotate",
    "apply",
    "archimport",
    "archive",
    "backfill",
    "bisect",
    "blame",
    "branch",
    "bugreport",
    "bundle",
    "cat-file",
    "check-attr",
    "check-ignore",
    "check-mailmap",
    "check-ref-format",
    "checkout",
    "checkout--worker",
    "checkout-index",
    "cherry",
    "cherry-pick",
    "citool",
    "clean",
    "clone",
    "column",
    "commit",
    "commit-graph",
    "commit-tree",
    "config",
    "count-objects",
    "credential",
    "credential-cache",
    "credential-cache--daemon",
    "credential-store",
    "cvsexportcommit",
    "cvsimport",
    "cvsserver",
    "daemon",
    "describe",
    "diagnose",
    "diff",
    "diff-files",
    "diff-index",
    "diff-pairs",
    "diff-tree",
    "difftool",
    "fast-export",
    "fast-import",
    "fetch",
    "fetch-pack",
    "filter-branch",
    "fmt-merge-msg",
    "for-each-ref",
    "for-each-repo",
    "format-patch",
    "format-rev",
    "fsck",
    "fsck-objects",
    "fsmonitor--daemon",
    "gc",
    "get-tar-commit-id",
    "grep",
    "gui",
    "hash-object",
    "help",
    "history",
    "hook",
    "http-backend",
    "http-fetch",
    "http-push",
    "imap-send",
    "index-pack",
    "init",
    "init-db",
    "instaweb",
    "interpret-trailers",
    "last-modified",
    "log",
    "ls-files",
    "ls-remote",
    "ls-tree",
    "mailinfo",
    "mailsplit",
    "maintenance",
    "merge",
    "merge-base",
    "merge-file",
    "merge-index",
    "merge-one-file",
    "merge-ours",
    "merge-recursive",
    "merge-recursive-ours",
    "merge-recursive-theirs",
    "merge-subtree",
    "merge-tree",
    "mergetool",
    "mktag",
    "mktree",
    "multi-pack-index",
    "mv",
    "name-rev",
    "notes",
    "p4",
    "pack-objects",
    "pack-redundant",
    "pack-refs",
    "patch-id",
    "pickaxe",
    "prune",
    "prune-packed",
    "pull",
    "push",
    "quiltimport",
    "range-diff",
    "read-tree",
    "rebase",
    "receive-pack",
    "reflog",
    "refs",
    "remote",
    "remote-ext",
    "remote-fd",
    "repack",
    "replace",
    "replay",
    "repo",
    "request-pull",
    "rerere",
    "reset",
    "restore",
    "rev-list",
    "rev-parse",
    "revert",
    "rm",
    "send-email",
    "send-pack",
    "sh-i18n",
    "sh-setup",
    "shell",
    "shortlog",
    "show",
    "show-branch",
    "show-index",
    "show-ref",
    "sparse-checkout",
    "stage",
    "stash",
    "status",
    "stripspace",
    "submodule",
    "submodule--helper",
    "svn",
    "switch",
    "symbolic-ref",
    "tag",
    "unpack-file",
    "unpack-objects",
    "update-index",
    "update-ref",
    "update-server-info",
    "upload-archive",
    "upload-archive--writer",
    "upload-pack",
    "url-parse",
    "var",
    "verify-commit",
    "verify-pack",
    "verify-tag",
    "version",
    "whatchanged",
    "worktree",
    "write-tree",
];

/// Whether `name` is one of git's own commands.
pub fn is_builtin(name: &str) -> bool {
    GIT_BUILTINS.contains(&name)
}

/// The table of git subcommand `name`.
pub fn command(name: &str) -> Option<&'static GitCommand> {
    GIT_COMMANDS.iter().find(|c| c.name == name)
}

/// An argument list read by a git table.
#[derive(Clone, Debug, Default)]
pub struct GitRead {
    /// Options found and operands, as [`crate::opts::getopt::parse`] gives them.
    pub parsed: Parsed,
    /// Indexes of option words whose letters or long name are only known
    /// at run time (`-i$O`, `--$X`, `--e$X=CMD`): git may read them as
    /// any option, a command-running one included.
    pub run_time: Vec<usize>,
}

/// The known text `f` starts with (its leading literal pieces).
fn known_prefix(f: &Field) -> String {
    let mut s = String::new();
    for seg in &f.segs {
        match seg {
            Seg::Lit { text, .. } => s.push_str(text),
            _ => break,
        }
    }
    s
}

/// `f` without its first `n` bytes, which are known text (a value joined
/// to its option: `-x$CMD`, `--exec=$CMD`).
fn field_after(f: &Field, mut n: usize) -> Field {
    let mut out = Field::default();
    for seg in &f.segs {
        match seg {
            Seg::Lit { text, quoted } if n > 0 => {
                let k = n.min(text.len());
                n -= k;
                if k < text.len() {
                    out.segs.push(Seg::Lit {
                        text: text[k..].to_string(),
                        quoted: *quoted,
                    });
                }
            }
            _ => out.segs.push(seg.clone()),
        }
    }
    out
}

/// Read `args` (the words after the subcommand) by `spec`, as described
/// in the module's documentation. `parsed.end` is the length of `args`;
/// `parsed.problems` holds the words naming no listed option.
pub fn read(spec: &Spec, args: &[Field]) -> GitRead {
    let mut r = GitRead::default();
    let p = &mut r.parsed;
    p.end = args.len();
    let mut i = 0;
    while i < args.len() {
        let at = i;
        let field = &args[at];
        let dynamic = field.static_text().is_none();
        // The known text; a word wholly unknown (`"$X"`) is an operand.
        let t = if dynamic {
            known_prefix(field)
        } else {
            field.text()
        };
        i += 1;
        if t == "--" && !dynamic {
            continue;
        }
        if (t == "-" && !dynamic) || !t.starts_with('-') {
            if !spec.permute {
                // The options end at the first operand.
                p.operands.extend(at..args.len());
                return r;
            }
            p.operands.push(at);
            continue;
        }
        let dashes = if t.starts_with("--") { 2 } else { 1 };
        let long_body = t
            .strip_prefix("--")
            .or_else(|| spec.long_only.then(|| &t[1..]));
        if let Some(body) = long_body {
            let (name, joined) = match body.split_once('=') {
                Some((n, _)) => (n, Some(field_after(field, dashes + n.len() + 1))),
                None if dynamic => {
                    r.run_time.push(at);
                    continue;
                }
                None => (body, None),
            };
            // Getopt::Long ignores case; git does not.
            let name = if spec.long_only {
                name.to_ascii_lowercase()
            } else {
                name.to_string()
            };
            let hits = long_candidates(spec, &name);
            if hits.is_empty() {
                p.problems.push(format!("unknown option `{t}`"));
                continue;
            }
            // One value word for them all (git refuses the ambiguous).
            let next = (joined.is_none() && hits.iter().any(|o| o.takes == Takes::Value))
                .then(|| {
                    i += 1;
                    args.get(i - 1).cloned()
                })
                .flatten();
            for opt in hits {
                let value = match opt.takes {
                    Takes::No => None,
                    _ => joined.clone().or_else(|| next.clone()),
                };
                p.found.push(Found { opt, value, at });
            }
            continue;
        }
        let cluster = &t[1..];
        let mut valued = false;
        for (k, c) in cluster.char_indices() {
            let rest = &cluster[k + c.len_utf8()..];
            let Some(opt) = spec.opts.iter().find(|o| o.short == c && c != '\0') else {
                // `-NUM` (grep and archive take numbers), or a letter this
                // table does not list: read on.
                if !c.is_ascii_digit() {
                    p.problems.push(format!("unknown option `-{c}` in `{t}`"));
                }
                continue;
            };
            // The rest of the word, known or not.
            let joined = || field_after(field, 1 + k + c.len_utf8());
            match opt.takes {
                Takes::No => p.found.push(Found {
                    opt,
                    value: None,
                    at,
                }),
                Takes::Optional => p.found.push(Found {
                    opt,
                    value: (!rest.is_empty() || dynamic).then(joined),
                    at,
                }),
                Takes::Value => {
                    let value = if rest.is_empty() && !dynamic {
                        i += 1;
                        args.get(i - 1).cloned()
                    } else {
                        Some(joined())
                    };
                    p.found.push(Found { opt, value, at });
                    valued = true;
                    break;
                }
            }
        }
        if dynamic && !valued {
            // `-i$O`: letters only known at run time.
            r.run_time.push(at);
        }
    }
    r
}

/// The listed long options `name` may name: the one spelled exactly so,
/// else every one it is a prefix of.
fn long_candidates(spec: &Spec, name: &str) -> Vec<&'static Opt> {
    if name.is_empty() {
        return Vec::new();
    }
    if let Some(o) = spec.opts.iter().find(|o| o.long && o.name == name) {
        return vec![o];
    }
    spec.opts
        .iter()
        .filter(|o| o.long && o.name.starts_with(name))
        .collect()
}

/// `git clone`'s options that take the next word as their value (`-b B`,
/// `--depth N`, `-o NAME`, …): read by every reader of a clone's operands
/// (its destination directory), so a value is never taken for one.
pub(crate) const CLONE_VALUE_OPTIONS: &[&str] = &[
    "-b",
    "--branch",
    "-o",
    "--origin",
    "-c",
    "--config",
    "--depth",
    "--reference",
    "--reference-if-able",
    "--separate-git-dir",
    "-u",
    "--upload-pack",
    "--template",
    "-j",
    "--jobs",
    "--filter",
    "--shallow-since",
    "--shallow-exclude",
    "--server-option",
    "--bundle-uri",
    "--ref-format",
];

#[cfg(test)]
mod tests {
    use super::*;

    fn found(sub: &str, cmd: &str) -> Vec<(String, Option<String>)> {
        let args: Vec<Field> = cmd.split_whitespace().map(Field::lit).collect();
        let p = read(&command(sub).unwrap().spec, &args).parsed;
        p.found
            .iter()
            .map(|f| (f.opt.name.to_string(), f.value.as_ref().map(Field::text)))
            .collect()
    }

    fn value(sub: &str, cmd: &str, name: &str) -> Option<String> {
        found(sub, cmd)
            .into_iter()
            .find(|(n, _)| n == name)
            .and_then(|(_, v)| v)
    }

    #[test]
    fn clusters_prefixes_and_dashdash() {
        assert_eq!(
            value("rebase", "-ix CMD HEAD~1", "exec").as_deref(),
            Some("CMD")
        );
        assert_eq!(value("rebase", "-rx CMD", "exec").as_deref(), Some("CMD"));
        assert_eq!(value("rebase", "-ixCMD", "exec").as_deref(), Some("CMD"));
        // `-s` takes the rest: no exec.
        assert_eq!(value("rebase", "-sx HEAD", "exec"), None);
        assert_eq!(value("rebase", "--e CMD", "exec").as_deref(), Some("CMD"));
        assert_eq!(
            value("rebase", "--onto -- -x CMD", "exec").as_deref(),
            Some("CMD")
        );
        assert_eq!(
            value("difftool", "-yx CMD", "extcmd").as_deref(),
            Some("CMD")
        );
        assert_eq!(
            value("difftool", "--e=CMD", "extcmd").as_deref(),
            Some("CMD")
        );
        assert_eq!(
            value("grep", "-nO CMD x", "open-files-in-pager").as_deref(),
            Some("CMD")
        );
        assert_eq!(value("grep", "-e -O x", "open-files-in-pager"), None);
        assert_eq!(
            value("ls-remote", "--u=CMD .", "upload-pack").as_deref(),
            Some("CMD")
        );
        assert_eq!(value("fetch", "-u origin", "upload-pack"), None);
        assert_eq!(
            value("clone", "-qu CMD . x", "upload-pack").as_deref(),
            Some("CMD")
        );
        assert_eq!(
            value("send-email", "-TO-C=CMD x", "to-cmd").as_deref(),
            Some("CMD")
        );
        // An ambiguous prefix is read as every option it may name.
        let f = found("push", "--forc origin main");
        assert!(f.iter().any(|(n, _)| n == "force"), "{f:?}");
        let f = found("push", "--de origin main");
        assert!(f.iter().any(|(n, _)| n == "delete"), "{f:?}");
    }
}
