//! One table of the files git subcommands read and write (review s24 R1,
//! R3, R6, R7, R8).
//!
//! The property a `git SUB` must prove to pass: **every file it reads is
//! judged as a read, every file it writes or replaces as a write onto its
//! place, and a subcommand that rewrites or reads files of the work tree it
//! cannot name is judged on the whole work tree.** [`GIT_FILES`] says, for
//! each subcommand, which of its operands and option values it reads
//! (content shown or used: `merge-file -p KEY`, `interpret-trailers KEY`,
//! `commit -F KEY`, `grep --no-index`, `diff --no-index DIR`), which it
//! writes (`merge-file CURRENT`, `checkout-index --prefix=P FILE`), and
//! which forms rewrite every indexed file (`checkout-index -a|--stdin`) or
//! read every file of the tree (`add -A`, `grep --no-index` without a
//! pathspec, `update-index --stdin`). The work tree is the directory git
//! runs in (after `-C`, `--work-tree`: review s23 V17). A read of a
//! directory or of the tree is a read of every file below it (toolvet's
//! keys, a home's credentials); a write onto the tree fills it with files
//! of the index's names, which may be the agent's hook settings
//! (`.claude/settings.json` may be in any project): held, denied where the
//! tree holds a known guard rail. A builtin not in the table given operands
//! is held: what it does with them is not proven.

use super::*;

/// What `git SUB`'s operands are.
#[derive(Clone, Copy, PartialEq)]
enum Operands {
    /// Revisions, refs, names, pathspecs of the repository's content, or
    /// files judged elsewhere (`checkout`, `restore`, `rm`, `mv`, `stash`,
    /// `config`, `clone`, `archive -o`, `bundle`): nothing judged here.
    Names,
    /// Files (or directories, read whole) whose content is shown or used.
    Read,
    /// `merge-file CURRENT BASE OTHER`: all read, CURRENT rewritten
    /// (unless `-p`/`--stdout`).
    MergeFile,
    /// `checkout-index [--prefix=P] FILE…`: each `P FILE` written; `-a`,
    /// `--stdin`: every indexed file under P (or the tree).
    CheckoutIndex,
    /// `add PATHSPEC…`: read into the object store (then printed by `diff
    /// --cached`, `show`); without a pathspec, `-A`/`--all` read the tree.
    Add,
    /// `grep`: with `--no-index`/`--untracked` the pathspecs (or the
    /// tree) are read; otherwise the repository's content.
    Grep,
    /// `diff`: with `--no-index` its two operands are read whole.
    Diff,
}

use Operands::*;

/// One subcommand's row.
struct GitFiles {
    name: &'static str,
    operands: Operands,
    /// Options (with their dashes) whose value is not a file.
    values: &'static [&'static str],
    /// Options whose value is a file read.
    reads: &'static [&'static str],
    /// Options whose value is a file written.
    writes: &'static [&'static str],
    /// Flags by which it reads files whose names come from elsewhere
    /// (stdin, a file): a read of the whole tree.
    reads_tree: &'static [&'static str],
}

const fn names(name: &'static str) -> GitFiles {
    GitFiles {
        name,
        operands: Names,
        values: &[],
        reads: &[],
        writes: &[],
        reads_tree: &[],
    }
}

const fn row(
    name: &'static str,
    operands: Operands,
    values: &'static [&'static str],
    reads: &'static [&'static str],
    writes: &'static [&'static str],
    reads_tree: &'static [&'static str],
) -> GitFiles {
    GitFiles {
        name,
        operands,
        values,
        reads,
        writes,
        reads_tree,
    }
}

/// The table. Subcommands that rewrite the tree by moving it to other
/// commits (`switch`, `merge`, `reset`, `read-tree -u`, `stash`, `checkout
/// .`, `restore .`) are judged by [`Analysis::git_whole_tree`]; `apply`/`am`
/// patches by `git_apply`; path operands of `checkout`/`restore`/`rm`/`mv`
/// by `git_path_writes`.
const GIT_FILES: &[GitFiles] = &[
    row(
        "stage",
        Add,
        &["--chmod"],
        &[],
        &[],
        &["--pathspec-from-file", "--stdin"],
    ),
    row(
        "add",
        Add,
        &["--chmod"],
        &[],
        &[],
        &["--pathspec-from-file", "--stdin"],
    ),
    row(
        "am",
        Read,
        &[
            "-C",
            "-p",
            "-S",
            "--directory",
            "--exclude",
            "--include",
            "--whitespace",
            "--patch-format",
            "--resolvemsg",
            "--quoted-cr",
            "--empty",
        ],
        &[],
        &[],
        &[],
    ),
    row(
        "apply",
        Read,
        &[
            "-C",
            "-p",
            "--directory",
            "--exclude",
            "--include",
            "--whitespace",
            "--build-fake-ancestor",
        ],
        &[],
        &[],
        &[],
    ),
    row("annotate", Names, &[], &["--contents", "-S"], &[], &[]),
    row(
        "blame",
        Names,
        &[],
        &["--contents", "-S", "--ignore-revs-file"],
        &[],
        &[],
    ),
    row("check-ignore", Names, &[], &[], &[], &[]),
    row(
        "checkout-index",
        CheckoutIndex,
        &["--prefix", "--stage"],
        &[],
        &[],
        &[],
    ),
    row(
        "commit",
        Names,
        &[],
        &["-F", "--file", "-t", "--template", "--pathspec-from-file"],
        &[],
        &[],
    ),
    row("commit-tree", Names, &[], &["-F"], &[], &[]),
    row(
        "diff",
        Diff,
        &[
            "-U",
            "--unified",
            "--src-prefix",
            "--dst-prefix",
            "--line-prefix",
            "-S",
            "-G",
            "-O",
            "--relative",
            "--diff-filter",
            "--word-diff-regex",
            "--color-moved",
            "--anchored",
            "-I",
            "--ignore-matching-lines",
        ],
        &[],
        &["--output"],
        &[],
    ),
    row(
        "grep",
        Grep,
        &[
            "-e",
            "-A",
            "-B",
            "-C",
            "-m",
            "--max-count",
            "--max-depth",
            "--threads",
            "--after-context",
            "--before-context",
            "--context",
        ],
        &["-f"],
        &[],
        &[],
    ),
    row(
        "hash-object",
        Read,
        &["-t", "--path"],
        &[],
        &[],
        &["--stdin-paths"],
    ),
    row(
        "interpret-trailers",
        Read,
        &["--trailer", "--where", "--if-exists", "--if-missing"],
        &[],
        &[],
        &[],
    ),
    row("mailinfo", Read, &["--encoding"], &[], &[], &[]),
    row("mailsplit", Read, &["-o"], &[], &[], &[]),
    row(
        "merge-file",
        MergeFile,
        &["-L", "--marker-size", "--diff-algorithm"],
        &[],
        &[],
        &[],
    ),
    row(
        "notes",
        Names,
        &["-m", "--message", "-c", "-C", "--ref"],
        &["-F", "--file"],
        &[],
        &[],
    ),
    row("read-tree", Names, &[], &[], &["--index-output"], &[]),
    row(
        "send-email",
        Read,
        &[
            "--to",
            "--cc",
            "--bcc",
            "--from",
            "--subject",
            "--in-reply-to",
            "--smtp-server",
            "--smtp-user",
            "--identity",
        ],
        &[],
        &[],
        &[],
    ),
    row(
        "tag",
        Names,
        &["-m", "--message", "-u", "--local-user"],
        &["-F", "--file"],
        &[],
        &[],
    ),
    row(
        "update-index",
        Read,
        &["--cacheinfo", "--chmod", "--index-version"],
        &[],
        &[],
        &["--stdin", "--index-info"],
    ),
    names("archive"),
    names("backfill"),
    names("bisect"),
    names("branch"),
    names("bugreport"),
    names("bundle"),
    names("cat-file"),
    names("check-attr"),
    names("check-mailmap"),
    names("check-ref-format"),
    names("checkout"),
    names("cherry"),
    names("cherry-pick"),
    names("clean"),
    names("citool"),
    names("credential-cache"),
    names("credential-store"),
    names("daemon"),
    names("diff-pairs"),
    names("fast-export"),
    names("fast-import"),
    names("for-each-repo"),
    names("format-rev"),
    names("fsck-objects"),
    names("get-tar-commit-id"),
    names("gui"),
    names("history"),
    names("imap-send"),
    names("last-modified"),
    names("multi-pack-index"),
    names("pack-redundant"),
    names("prune-packed"),
    names("refs"),
    names("replay"),
    names("repo"),
    names("rerere"),
    names("show-index"),
    names("unpack-objects"),
    names("update-server-info"),
    names("url-parse"),
    names("clone"),
    names("column"),
    names("commit-graph"),
    names("config"),
    names("count-objects"),
    names("credential"),
    names("describe"),
    names("diff-files"),
    names("diff-index"),
    names("diff-tree"),
    names("difftool"),
    names("fetch"),
    names("filter-branch"),
    names("fmt-merge-msg"),
    names("for-each-ref"),
    names("format-patch"),
    names("fsck"),
    names("gc"),
    names("help"),
    names("hook"),
    names("init"),
    names("init-db"),
    names("instaweb"),
    names("log"),
    names("ls-files"),
    names("ls-remote"),
    names("ls-tree"),
    names("maintenance"),
    names("merge"),
    names("merge-base"),
    names("merge-tree"),
    names("mergetool"),
    names("mktag"),
    names("mktree"),
    names("mv"),
    names("name-rev"),
    names("pack-refs"),
    names("patch-id"),
    names("prune"),
    names("pull"),
    names("push"),
    names("range-diff"),
    names("rebase"),
    names("reflog"),
    names("remote"),
    names("repack"),
    names("replace"),
    names("request-pull"),
    names("reset"),
    names("restore"),
    names("rev-list"),
    names("rev-parse"),
    names("revert"),
    names("rm"),
    names("shortlog"),
    names("show"),
    names("show-branch"),
    names("show-ref"),
    names("sparse-checkout"),
    names("stash"),
    names("status"),
    names("stripspace"),
    names("submodule"),
    names("switch"),
    names("symbolic-ref"),
    names("update-ref"),
    names("var"),
    names("verify-commit"),
    names("verify-tag"),
    names("version"),
    names("whatchanged"),
    names("worktree"),
    names("write-tree"),
];

/// Words read by a row: options (with dashes, a value if they take one)
/// and operands.
fn split_words(row: &GitFiles, args: &[Field]) -> (Vec<(String, Option<Field>)>, Vec<Field>) {
    let takes =
        |o: &str| row.values.contains(&o) || row.reads.contains(&o) || row.writes.contains(&o);
    let mut opts = Vec::new();
    let mut operands = Vec::new();
    let mut ended = false;
    let mut i = 0;
    while let Some(a) = args.get(i) {
        i += 1;
        let t = a.text();
        if ended || t == "-" || !t.starts_with('-') {
            operands.push(a.clone());
        } else if t == "--" {
            ended = true;
        } else if t.starts_with("--") {
            match t.split_once('=') {
                Some((n, _)) => {
                    let v = crate::effects::removers::strip_literal_prefix(a, &format!("{n}="))
                        .unwrap_or_else(|| crate::walk::dyn_field(&t));
                    opts.push((n.to_string(), Some(v)));
                }
                None if takes(&t) => {
                    opts.push((t.clone(), args.get(i).cloned()));
                    i += 1;
                }
                None => opts.push((t.clone(), None)),
            }
        } else {
            // A cluster of letters; one taking a value takes the rest.
            for (k, c) in t[1..].char_indices() {
                let o = format!("-{c}");
                if takes(&o) {
                    let rest = &t[1 + k + c.len_utf8()..];
                    let v = if rest.is_empty() {
                        i += 1;
                        args.get(i - 1).cloned()
                    } else {
                        crate::effects::removers::strip_literal_prefix(
                            a,
                            &t[..1 + k + c.len_utf8()],
                        )
                    };
                    opts.push((o, v));
                    break;
                }
                opts.push((o, None));
            }
        }
    }
    (opts, operands)
}

/// `field` followed by `more` (a `--prefix` value and the path after it).
fn joined(field: &Field, more: &Field) -> Field {
    let mut out = field.clone();
    out.segs.extend(more.segs.iter().cloned());
    out
}

impl Analysis<'_> {
    /// Judge the files `git SUB ARGS` reads and writes by [`GIT_FILES`].
    pub(crate) fn git_files(&mut self, sub: &str, args: &[Field], env: &mut Env, depth: u32) {
        let via = format!("`git {sub}`");
        let Some(row) = GIT_FILES.iter().find(|r| r.name == sub) else {
            // An alias or external command (`git co`, `git filter-repo`)
            // is read by every table where it runs programs or rewrites
            // history; its files are not modelled here.
            if crate::opts::gitopts::is_builtin(sub)
                && args.iter().any(|a| !a.text().starts_with('-'))
            {
                self.report(
                    false,
                    "shell.guardrail-write",
                    format!(
                        "{via} is not in the table of the files git subcommands read and write, and it is given \
                         operands that may be files it reads or writes (a key, the agent's hook settings). A person \
                         must approve it."
                    ),
                );
            }
            return;
        };
        let (opts, operands) = split_words(row, args);
        let has = |names: &[&str]| opts.iter().any(|(o, _)| names.contains(&o.as_str()));
        for (o, v) in &opts {
            let Some(v) = v else { continue };
            if row.reads.contains(&o.as_str()) && v.text() != "-" {
                self.git_read(&via, v, env);
            } else if row.writes.contains(&o.as_str()) {
                self.check_write(v, env, &Output::Unknown, &via, true, depth);
            }
        }
        if opts
            .iter()
            .any(|(o, _)| row.reads_tree.contains(&o.as_str()))
        {
            self.git_read(
                &format!("{via} (files named on its input)"),
                &Field::lit("."),
                env,
            );
        }
        match row.operands {
            Names => {}
            Read => {
                for f in &operands {
                    self.git_read(&via, f, env);
                }
                if sub == "interpret-trailers" && has(&["--in-place"]) {
                    for f in &operands {
                        self.check_write(f, env, &Output::Unknown, &via, true, depth);
                    }
                }
            }
            MergeFile => {
                if has(&["--object-id"]) {
                    return;
                }
                for f in &operands {
                    self.git_read(&via, f, env);
                }
                if !has(&["-p", "--stdout"])
                    && let Some(current) = operands.first()
                {
                    self.check_write(current, env, &Output::Unknown, &via, true, depth);
                }
            }
            CheckoutIndex => {
                let prefix = opts
                    .iter()
                    .find(|(o, _)| o == "--prefix")
                    .and_then(|(_, v)| v.clone());
                for f in &operands {
                    let target = prefix.as_ref().map_or_else(|| f.clone(), |p| joined(p, f));
                    self.check_write(&target, env, &Output::Unknown, &via, true, depth);
                }
                if has(&["-a", "--all", "--stdin"]) {
                    // Every indexed file, under the prefix's directory
                    // (a prefix not ending in `/` begins file names).
                    let root = prefix.is_none();
                    let dir = match &prefix {
                        None => Field::lit("."),
                        Some(p) => {
                            let t = p.text();
                            match t.rfind('/') {
                                Some(k) if k + 1 == t.len() => p.clone(),
                                Some(0) => Field::lit("/"),
                                Some(k) if p.static_text().is_some() => Field::lit(&t[..k]),
                                Some(_) => p.clone(),
                                None => Field::lit("."),
                            }
                        }
                    };
                    self.git_tree_write(&via, &dir, root, env);
                }
            }
            Add => {
                for f in &operands {
                    self.git_read(&via, f, env);
                }
                if operands.is_empty() && has(&["-A", "--all", "--no-ignore-removal"]) {
                    self.git_read(&via, &Field::lit("."), env);
                }
            }
            Grep => {
                if !has(&["--no-index", "--untracked"]) {
                    return;
                }
                let pattern_given = has(&["-e", "-f"]);
                let paths: Vec<&Field> =
                    operands.iter().skip(usize::from(!pattern_given)).collect();
                if paths.is_empty() {
                    self.git_read(&via, &Field::lit("."), env);
                }
                for p in paths {
                    // A pathspec's wildcard reaches below its literal
                    // directory.
                    let t = p.text();
                    let f = match t.find(['*', '?', '[']) {
                        Some(g) => match t[..g].rfind('/') {
                            Some(d) if d > 0 && p.static_text().is_some() => Field::lit(&t[..d]),
                            _ => Field::lit("."),
                        },
                        None => p.clone(),
                    };
                    self.git_read(&via, &f, env);
                }
            }
            Diff => {
                if has(&["--no-index"]) {
                    for f in &operands {
                        self.git_read(&via, f, env);
                    }
                }
            }
        }
    }

    /// `git` reading `f` (a file, or a directory read whole): one of
    /// toolvet's keys at or below it, a credential file, or a home
    /// directory (its SSH keys and cloud credentials) is a credential read.
    fn git_read(&mut self, via: &str, f: &Field, env: &Env) {
        if self.done() {
            return;
        }
        if f.text() == "/dev/null" {
            return;
        }
        let abs = self.abs_path(f, env);
        let what = if let Some(key) = abs.as_deref().and_then(|a| self.state.secret_within(a)) {
            Some(format!(
                "`{key}`, one of toolvet's keys (whoever reads it can forge approvals or history)"
            ))
        } else if let Some(label) = self.sensitive_label(f, env) {
            Some(label.to_string())
        } else if let Some(a) = abs.as_deref()
            && (a == "/"
                || crate::paths::SYSTEM_DIRS[..2].contains(&a)
                || crate::paths::is_home_dir(a, self.home.as_deref())
                || crate::effects::sinks::sensitive_files()
                    .matches_glob(&format!("{a}/*"))
                    .is_some())
        {
            Some("credentials (a home directory's SSH keys and cloud credentials)".to_string())
        } else {
            None
        };
        if let Some(what) = what {
            self.report(
                true,
                "shell.read-credentials",
                format!(
                    "{via} reads `{}`, which is or holds {what}. Credentials must not be read into the \
                     conversation, copied or sent anywhere; name the files the task needs instead.",
                    f.text()
                ),
            );
        }
    }

    /// `git SUB` writing files of the index's names into `dir` (the work
    /// tree, a `--prefix`): a write onto every guard rail `dir` holds
    /// (denied: toolvet's state, a home), and held in any case, since the
    /// index may hold the agent's hook settings (`.claude/settings.json`,
    /// `.github/hooks/*.json`, `.cursor/hooks.json`), staged by `git
    /// update-index --cacheinfo` with any content.
    /// With `root`, `dir` is where git runs and the repository's root may
    /// be above it: a directory inside the project counts as the project.
    pub(crate) fn git_tree_write(&mut self, via: &str, dir: &Field, root: bool, env: &mut Env) {
        self.fills_dir(via, dir, env, false);
        // Held where the agent's project is (its hook settings may be
        // there); elsewhere judged by what the directory is known to hold
        // (review s23 V17).
        let project = match self.abs_path(dir, env) {
            Some(abs) => self.workspace.iter().any(|w| {
                crate::paths::is_at_or_under(w, &abs)
                    || (root && crate::paths::is_at_or_under(&abs, w))
            }),
            None => true,
        };
        if !project {
            return;
        }
        self.report(
            false,
            "shell.guardrail-write",
            format!(
                "{via} writes every file the index holds into `{}`, which may replace the agent's hook settings \
                 (`.claude/settings.json`, `.github/hooks/*.json`) or other guard rails with content staged \
                 beforehand. A person must approve; name the files to write.",
                dir.text()
            ),
        );
    }
}
