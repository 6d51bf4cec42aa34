//! Commands that delete or change files in place: `rm`, `find` (with
//! its `-delete`/`-exec` actions) and `chmod`/`chown`/`chgrp`.

use super::*;

/// Whether `find`'s name test `test PATTERN` may match the start path
/// itself: `-name` against its last component, `-path` against the whole
/// path. A start or pattern that is not known, or a pattern that does not
/// compile, may match.
fn start_matches(start: &Field, test: &str, pattern: &str) -> bool {
    let Some(text) = start.static_text() else {
        return true;
    };
    let subject = if matches!(test, "-name" | "-iname") {
        text.trim_end_matches('/').rsplit('/').next().unwrap_or("")
    } else {
        text.as_str()
    };
    let subject = if subject.is_empty() {
        text.as_str()
    } else {
        subject
    };
    match globset::GlobBuilder::new(pattern)
        .case_insensitive(test.starts_with("-i"))
        .literal_separator(false)
        .build()
    {
        Ok(g) => g.compile_matcher().is_match(subject),
        Err(_) => true,
    }
}

/// `field` with each `{}` of its literal text replaced by `path`, the
/// pieces of a path `find` visits (`find … -exec CMD {} \;`).
fn substitute_found(field: &Field, path: &[Seg]) -> Field {
    let mut segs = Vec::new();
    for s in &field.segs {
        match s {
            Seg::Lit { text, quoted } if text.contains("{}") => {
                for (k, piece) in text.split("{}").enumerate() {
                    if k > 0 {
                        segs.extend(path.iter().cloned());
                    }
                    if !piece.is_empty() {
                        segs.push(Seg::Lit {
                            text: piece.to_string(),
                            quoted: *quoted,
                        });
                    }
                }
            }
            other => segs.push(other.clone()),
        }
    }
    Field { segs }
}

/// Whether an expansion's source text gives several words at once: the
/// positional parameters (`$@`, `$*`) or a whole array (`${a[@]}`,
/// `${a[*]}`, `${!a[@]}`).
fn is_splat(raw: &str) -> bool {
    ["$@", "${@", "$*", "${*", "[@]", "[*]"]
        .iter()
        .any(|s| raw.contains(s))
}

/// The operands of `chattr`, `setfacl` or `setfattr` that name files:
/// not options, not an option's value (`-m SPEC`, `-n NAME`, `-v VALUE`),
/// not chattr's `+i`/`-a`/`=e` mode.
fn metadata_operands<'a>(name: &str, args: &'a [Field]) -> Vec<&'a Field> {
    let takes_value: &[&str] = match name {
        "setfacl" => &[
            "-m",
            "-M",
            "-x",
            "-X",
            "--set",
            "--set-file",
            "--modify",
            "--remove",
        ],
        "setfattr" => &[
            "-n",
            "-v",
            "-x",
            "--name",
            "--value",
            "--remove",
            "--restore",
        ],
        _ => &["-v", "-p"],
    };
    let mut out = Vec::new();
    let mut ended = false;
    let mut i = 0;
    while let Some(a) = args.get(i) {
        let t = a.text();
        i += 1;
        if ended {
            out.push(a);
        } else if t == "--" {
            ended = true;
        } else if takes_value.contains(&t.as_str()) {
            i += 1;
        } else if name == "chattr" && t.len() > 1 && t.starts_with(['+', '-', '=']) {
            // A mode (`+i`, `-R` is recursion, `=ai`): not a file.
        } else if !t.starts_with('-') || t == "-" {
            out.push(a);
        }
    }
    out
}

/// The start paths of a `find` command line (`args`, the words after
/// `find`) as find reads them, `.` when none are given, and the index in
/// `args` of the expression after them. Global options come first (`-H`,
/// `-L`, `-P`, `-O<level>`, `-D <debugopts>`); the starts end at the
/// first word that begins with `-` or is `(`, `!`, `,` or `)`. The one
/// reading of the starts: [`Analysis::find`] judges the command line by
/// it, and the removers (`effects::removers`) read what `find … -delete`
/// removes by it.
pub(crate) fn find_starts(args: &[Field]) -> (Vec<Field>, usize) {
    let mut i = 0;
    while let Some(a) = args.get(i) {
        let t = a.text();
        if matches!(t.as_str(), "-H" | "-L" | "-P") || t.starts_with("-O") {
            i += 1;
        } else if t == "-D" {
            i += 2;
        } else {
            break;
        }
    }
    let mut starts: Vec<Field> = Vec::new();
    while let Some(a) = args.get(i) {
        let t = a.text();
        if t.starts_with('-') || matches!(t.as_str(), "(" | "!" | "," | ")") {
            break;
        }
        starts.push(a.clone());
        i += 1;
    }
    if starts.is_empty() {
        starts.push(Field::lit("."));
    }
    (starts, i)
}

/// A `find` command line, read by [`Analysis::find`].
struct FindLine {
    /// The start paths (`.` when none are given).
    starts: Vec<Field>,
    /// `-delete`, or an `-exec` of a remover.
    deletes: bool,
    /// Each `-exec`/`-execdir`/`-ok`/`-okdir` command, and whether it runs
    /// in the directory of the visited path (`-execdir`, `-okdir`).
    execs: Vec<(Vec<Field>, bool)>,
    /// `-maxdepth`'s value.
    max_depth: Option<String>,
    /// `-mindepth`'s value.
    min_depth: Option<String>,
    /// Name tests (`-name GLOB`, `-path GLOB`).
    name_tests: Vec<(String, String)>,
    /// The expression has alternatives (`-o`), which may bypass the name tests.
    alternatives: bool,
}

impl Analysis<'_> {
    pub(super) fn rm(
        &mut self,
        name: &str,
        args: &[Field],
        env: &mut Env,
        via_xargs: bool,
    ) -> Output {
        let mut recursive = false;
        let mut maybe_recursive = false;
        let mut splat = false;
        let mut no_preserve_root = false;
        let mut targets: Vec<&Field> = Vec::new();
        let mut ended = false;
        for a in args {
            let t = a.text();
            if ended {
                targets.push(a);
                continue;
            }
            if t == "--" {
                ended = true;
            } else if let Some(long) = t.strip_prefix("--") {
                match long {
                    "recursive" => recursive = true,
                    "no-preserve-root" => no_preserve_root = true,
                    _ => {}
                }
            } else if t.starts_with('-') && t.len() > 1 && !a.is_dynamic() {
                if t[1..].contains(['r', 'R']) {
                    recursive = true;
                }
            } else {
                if matches!(a.segs.first(), Some(Seg::Dyn { .. })) {
                    // `rm $FLAGS /x`: the variable may hold `-rf`.
                    maybe_recursive = true;
                }
                // `rm "$@"`, `rm "${args[@]}"`: several words, options
                // among them (`set -- -rf ~; rm "$@"`), none known.
                splat |= a
                    .segs
                    .iter()
                    .any(|s| matches!(s, Seg::Dyn { raw, .. } if is_splat(raw)));
                targets.push(a);
            }
        }
        if no_preserve_root {
            self.report(
                true,
                "shell.no-preserve-root",
                format!(
                    "`{name} --no-preserve-root` turns off the protection against deleting `/`. \
                     Never use it; delete specific paths inside the workspace instead."
                ),
            );
            return Output::Static(String::new());
        }
        if via_xargs && recursive {
            self.report(
                true,
                "shell.xargs-rm",
                format!(
                    "`xargs {name} -r` deletes recursively whatever paths arrive on standard input, which cannot be checked. \
                     Use `find <dir inside the workspace> … -delete`, or list the paths explicitly."
                ),
            );
            return Output::Static(String::new());
        }
        for t in targets {
            if self.done() {
                break;
            }
            let dynamic_ok = !recursive && !splat;
            match self.resolve_target(t, env, false) {
                Target::Dynamic if dynamic_ok => {}
                Target::Dynamic => self.report(
                    false,
                    "shell.rm-dynamic",
                    format!(
                        "`{name} -r {}` deletes a path that depends on values only known at run time (variables, command \
                         output, `cd` to a variable), so the analysis cannot tell what it deletes. Use a literal path inside \
                         the workspace, or a person must approve.",
                        t.text()
                    ),
                ),
                Target::Claimed(shown) => {
                    if recursive || maybe_recursive {
                        let how = format!("{name} -r");
                        self.report(
                            false,
                            "shell.rm-dynamic",
                            crate::walk::claimed_reason(&how, &shown),
                        );
                    }
                }
                Target::Known(place, shown) => {
                    if recursive || maybe_recursive {
                        let rule = match place {
                            Place::Root => "shell.rm-root",
                            Place::Home => "shell.rm-home",
                            Place::System => "shell.rm-system",
                            Place::Outside => "shell.rm-outside-workspace",
                            Place::WorkspaceRoot => "shell.rm-workspace-root",
                            Place::Inside => continue,
                        };
                        self.report_delete(name, rule, place, &shown);
                    } else if place == Place::System {
                        self.report_delete(name, "shell.rm-system", place, &shown);
                    }
                }
            }
        }
        Output::Static(String::new())
    }

    pub(crate) fn report_delete(&mut self, what: &str, rule: &str, place: Place, shown: &str) {
        let hint = self.workspace_hint();
        let (deny, msg) = match place {
            Place::Root => (
                true,
                format!(
                    "`{what}` on `{shown}` would delete the entire filesystem. Delete specific paths inside the workspace instead ({hint})."
                ),
            ),
            Place::Home => (
                true,
                format!(
                    "`{what}` on `{shown}` would delete a home directory. Delete specific paths inside the workspace instead ({hint})."
                ),
            ),
            Place::System => (
                true,
                format!(
                    "`{what}` on `{shown}` would delete operating-system files. Only paths inside the workspace may be deleted ({hint})."
                ),
            ),
            Place::Outside => (
                true,
                format!(
                    "`{what}` on `{shown}` deletes outside the workspace ({hint}). Only delete paths inside the workspace, or ask a person to do it."
                ),
            ),
            Place::WorkspaceRoot => (
                false,
                format!(
                    "`{what}` on `{shown}` deletes the whole workspace. A person must approve; to clean up, delete specific subdirectories such as `build/` instead."
                ),
            ),
            Place::Inside => return,
        };
        self.report(deny, rule, msg);
    }

    pub(super) fn find(
        &mut self,
        args: &[Field],
        env: &mut Env,
        depth: u32,
        own_rules: bool,
    ) -> Output {
        let line = self.find_line(args, env, depth, own_rules);
        if line.deletes && own_rules {
            self.find_deletes(&line.starts, env);
        }
        self.find_execs(line, env, depth)
    }

    /// Read a `find` command line as find reads it: the start paths, the
    /// expression's actions and tests. `-fprint FILE` and its kin are judged
    /// here as the writes they are.
    fn find_line(
        &mut self,
        args: &[Field],
        env: &mut Env,
        depth: u32,
        own_rules: bool,
    ) -> FindLine {
        let (starts, mut i) = find_starts(args);
        let mut deletes = false;
        // Each `-exec`/`-execdir`/`-ok`/`-okdir` command, and whether it runs
        // in the directory of the visited path (`-execdir`, `-okdir`).
        let mut execs: Vec<(Vec<Field>, bool)> = Vec::new();
        let mut max_depth: Option<String> = None;
        let mut min_depth: Option<String> = None;
        // Name tests (`-name GLOB`, `-path GLOB`), and whether the
        // expression has alternatives (`-o`), which may bypass them.
        let mut name_tests: Vec<(String, String)> = Vec::new();
        let mut alternatives = false;
        while let Some(a) = args.get(i) {
            let t = a.text();
            match t.as_str() {
                "-delete" => deletes = true,
                "-exec" | "-execdir" | "-ok" | "-okdir" => {
                    // `;` ends the command; `+` only right after `{}`
                    // (elsewhere find passes it on as an argument).
                    let end = (i + 1..args.len())
                        .find(|&k| match args[k].text().as_str() {
                            ";" => true,
                            "+" => k > i + 1 && args[k - 1].text() == "{}",
                            _ => false,
                        })
                        .unwrap_or(args.len());
                    execs.push((args[i + 1..end].to_vec(), t.ends_with("dir")));
                    i = end;
                }
                "-maxdepth" => max_depth = args.get(i + 1).map(Field::text),
                "-mindepth" => min_depth = args.get(i + 1).map(Field::text),
                "-name" | "-iname" | "-path" | "-ipath" | "-wholename" | "-iwholename" => {
                    if let Some(p) = args.get(i + 1) {
                        name_tests.push((t.clone(), p.text()));
                    }
                }
                "-o" | "-or" | "," => alternatives = true,
                "-fprint" | "-fprint0" | "-fprintf" | "-fls" => {
                    // The file is created or truncated and written
                    // (find(1)), with text `-fprintf` chooses: a write
                    // like a redirection's (review s22 V5).
                    if own_rules && let Some(f) = args.get(i + 1) {
                        let via = format!("`find {t}`");
                        self.check_device_write(&f.text(), &via);
                        self.check_write(f, env, &Output::Unknown, &via, true, depth);
                    }
                }
                _ => {}
            }
            i += 1;
        }
        for (cmd, _) in &execs {
            let Some(first) = cmd.first() else { continue };
            let n = base_name(&first.text());
            // Removers, and the programs that destroy a file's content in
            // place (`truncate -s0 {}`, `dd of={}`, `wipe`).
            if matches!(
                n.as_str(),
                "rm" | "unlink"
                    | "shred"
                    | "srm"
                    | "truncate"
                    | "dd"
                    | "wipe"
                    | "rimraf"
                    | "trash"
                    | "trash-put"
            ) {
                deletes = true;
            }
        }
        FindLine {
            starts,
            deletes,
            execs,
            max_depth,
            min_depth,
            name_tests,
            alternatives,
        }
    }

    /// `find … -delete` (or `-exec` of a remover): each start path judged as
    /// the directory it deletes under.
    fn find_deletes(&mut self, starts: &[Field], env: &mut Env) {
        for start in starts {
            match self.resolve_target(start, env, true) {
                Target::Dynamic => self.report(
                    false,
                    "shell.rm-dynamic",
                    format!(
                        "`find {} … -delete` deletes under a path only known at run time. Use a literal path inside the \
                         workspace, or a person must approve.",
                        start.text()
                    ),
                ),
                Target::Claimed(shown) => {
                    let how = format!("find {} … -delete", start.text());
                    self.report(
                        false,
                        "shell.rm-dynamic",
                        crate::walk::claimed_reason(&how, &shown),
                    );
                }
                Target::Known(Place::Inside | Place::WorkspaceRoot, _) => {}
                Target::Known(place, shown) => {
                    let what = match place {
                        Place::Root => "the entire filesystem",
                        Place::Home => "a home directory",
                        Place::System => "operating-system files",
                        _ => "files outside the workspace",
                    };
                    let hint = self.workspace_hint();
                    self.report(
                        true,
                        "shell.find-delete",
                        format!(
                            "`find {} … -delete` (or `-exec` of a remover: `rm`, `shred`, `truncate`, `dd`) deletes or \
                             empties {what} under `{shown}`. \
                             Run `find` on a directory inside the workspace instead ({hint}).",
                            start.text()
                        ),
                    );
                }
            }
        }
    }

    /// Each `-exec` command, judged as a command of its own once for each
    /// path `{}` stands for.
    fn find_execs(&mut self, line: FindLine, env: &mut Env, depth: u32) -> Output {
        let FindLine {
            starts,
            execs,
            max_depth,
            min_depth,
            name_tests,
            alternatives,
            ..
        } = line;
        // The paths `{}` stands for: the start itself (depth 0) unless
        // `-mindepth` excludes it or a name test is likely to, and a path
        // below the start (`START/{}`) unless `-maxdepth 0`.
        let depth_is = |v: &Option<String>, n: &str| v.as_deref() == Some(n);
        let min_ok = min_depth.is_none() || depth_is(&min_depth, "0");
        let visits_start = |start: &Field| {
            depth_is(&max_depth, "0")
                || (min_ok
                    && (alternatives || name_tests.iter().all(|(t, p)| start_matches(start, t, p))))
        };
        let visits_below = !depth_is(&max_depth, "0");
        if starts.len().saturating_mul(execs.len()) > MAX_FIND_EXEC_RUNS {
            self.report(
                false,
                "shell.too-deep",
                format!(
                    "`find` with {} start paths and {} `-exec` commands is too much to analyse. \
                     Split it into smaller commands.",
                    starts.len(),
                    execs.len()
                ),
            );
            return Output::Unknown;
        }
        for (cmd, in_dir) in &execs {
            // The command is analysed as a command of its own (wrappers,
            // its operands, every rule), once for each path `{}` stands for.
            for start in &starts {
                // (the path, whether it is the start itself)
                let mut visited: Vec<(Vec<Seg>, bool)> = Vec::new();
                if visits_start(start) {
                    visited.push((start.segs.clone(), true));
                }
                if visits_below {
                    let mut below = start.segs.clone();
                    below.push(Seg::Lit {
                        text: "/{}".to_string(),
                        quoted: true,
                    });
                    visited.push((below, false));
                    // A guard rail or a piece of toolvet's state below the
                    // start is among the paths `{}` stands for, unless a
                    // name test rules its name out (`find /opt/tv -name
                    // toolvet -exec chmod -x {} +` changes the hook program).
                    // Every piece of toolvet's state below the start counts
                    // (the first one may be ruled out by a name the next
                    // one has), and the built-in rail the start holds.
                    if let Some(abs) = self.abs_path(start, env) {
                        let mut below: Vec<String> = self
                            .state
                            .state
                            .iter()
                            .chain(&self.state.secret)
                            .filter(|p| crate::paths::is_under(p, &abs))
                            .cloned()
                            .collect();
                        if let Some((_, guarded)) = self.state.rail_within(&abs)
                            && guarded != abs
                            && !below.contains(&guarded)
                        {
                            below.push(guarded);
                        }
                        for guarded in below {
                            let found = Field::lit(guarded);
                            let named = alternatives
                                || name_tests.iter().all(|(t, p)| {
                                    !matches!(t.as_str(), "-name" | "-iname")
                                        || start_matches(&found, t, p)
                                });
                            if named {
                                visited.push((found.segs, false));
                            }
                        }
                    }
                }
                for (path, is_start) in &visited {
                    if self.done() {
                        return Output::Unknown;
                    }
                    let argv: Vec<Field> = cmd.iter().map(|f| substitute_found(f, path)).collect();
                    let mut e = env.clone();
                    if *in_dir {
                        // `-execdir` runs in the directory holding the
                        // visited path: the start's own directory for the
                        // start (`.` stays `.`), the start for paths below.
                        self.change_dir(Some(start), &mut e);
                        let text = start.text();
                        if *is_start && text != "." && !text.ends_with("/.") {
                            self.change_dir(Some(&Field::lit("..")), &mut e);
                        }
                    }
                    self.exec(argv, &mut e, depth, &Output::Unknown, false);
                }
            }
        }
        Output::Unknown
    }

    pub(super) fn chmod(&mut self, name: &str, args: &[Field], env: &mut Env) {
        let mut recursive = false;
        let mut reference = false;
        let mut positional: Vec<&Field> = Vec::new();
        let mut ended = false;
        for a in args {
            let t = a.text();
            if ended {
                positional.push(a);
            } else if t == "--" {
                ended = true;
            } else if t == "--recursive" {
                recursive = true;
            } else if t.starts_with("--reference") {
                reference = true;
            } else if t.starts_with("--") {
            } else if t.len() > 1 && t.starts_with('-') {
                let cluster = &t[1..];
                let is_mode = name == "chmod"
                    && positional.is_empty()
                    && cluster
                        .chars()
                        .all(|c| "rwxXstugoa=+-,0123456789".contains(c))
                    && !cluster.contains('R');
                if is_mode {
                    positional.push(a);
                } else if cluster.contains('R') {
                    recursive = true;
                }
            } else {
                positional.push(a);
            }
        }
        let targets = if reference {
            &positional[..]
        } else {
            positional.get(1..).unwrap_or(&[])
        };
        let what = if name == "chmod" {
            "permissions"
        } else {
            "ownership"
        };
        for t in targets {
            let (place, shown) = match self.resolve_target(t, env, false) {
                Target::Known(place, shown) => (place, shown),
                // `chmod -R 777 "$(cat p)"`: a tree only known at run time,
                // as `rm -r` of one (one file's mode is not judged by place).
                Target::Dynamic if recursive => {
                    self.report(
                        false,
                        "shell.chmod-system",
                        format!(
                            "`{name} -R` on `{}` changes the {what} of a whole tree whose path depends on values only \
                             known at run time (variables, command output), so the analysis cannot tell whether it is \
                             a home or system directory. Use a literal path inside the workspace ({}), or a person \
                             must approve.",
                            t.text(),
                            self.workspace_hint()
                        ),
                    );
                    continue;
                }
                // A claimed directory is outside the workspace, which
                // this rule does not judge (only the root, homes, system).
                Target::Dynamic | Target::Claimed(_) => continue,
            };
            let system_dir = crate::paths::SYSTEM_TREES.contains(&shown.as_str())
                || crate::paths::SYSTEM_DIRS.contains(&shown.as_str());
            let bad = match place {
                Place::Root => true,
                Place::Home | Place::System => recursive || system_dir,
                _ => false,
            };
            if bad {
                let r = if recursive { " -R" } else { "" };
                self.report(
                    true,
                    "shell.chmod-system",
                    format!(
                        "`{name}{r}` on `{shown}` changes the {what} of operating-system or home files, which can make the \
                         machine unusable or insecure. Change {what} only of paths inside the workspace ({}).",
                        self.workspace_hint()
                    ),
                );
            }
        }
        self.metadata_change(name, targets, env);
    }

    /// `xargs shred`: denied, the files it destroys arrive on standard input.
    pub(super) fn xargs_shred(&mut self) -> Output {
        self.report(
            true,
            "shell.xargs-rm",
            "`xargs shred` destroys whatever files arrive on standard input, which cannot be checked. \
             Name the files explicitly, inside the workspace."
                .to_string(),
        );
        Output::Static(String::new())
    }

    /// `unlink`, `shred`: each operand is judged as a file removed (or destroyed).
    pub(super) fn unlink_or_shred(&mut self, name: &str, args: &[Field], env: &mut Env) -> Output {
        for a in flags_positional(args) {
            let t = a.text();
            if name == "shred" {
                self.check_device_write(&t, "`shred`");
            }
            match self.resolve_target(a, env, false) {
                Target::Known(Place::System | Place::Root, shown) => {
                    self.report_delete(name, "shell.rm-system", Place::System, &shown);
                }
                // `shred` destroys the content of whatever file the
                // path turns out to be (`shred -u "$(cat p)"/.ssh/id_rsa`);
                // `unlink` removes one file, as `rm` without `-r`
                // (whose unknown target is allowed).
                Target::Dynamic if name == "shred" => self.report(
                    false,
                    "shell.rm-dynamic",
                    format!(
                        "`shred {}` destroys a file whose path depends on values only known at run time \
                         (variables, command output), so the analysis cannot tell what it destroys. Use a \
                         literal path inside the workspace, or a person must approve.",
                        a.text()
                    ),
                ),
                // Outside the workspace: not judged for one file.
                Target::Dynamic | Target::Claimed(_) | Target::Known(..) => {}
            }
        }
        Output::Static(String::new())
    }

    /// `dd`: `of=` written to a process's memory or a raw device.
    pub(super) fn dd(&mut self, args: &[Field]) -> Output {
        for a in args {
            // `dd of=/proc/PID/mem` (review s16 P2).
            if let Some(path) = a.text().strip_prefix("of=") {
                crate::effects::selfstate::process_file_write(self, path, "`dd`");
            }
            if let Some(path) = a.text().strip_prefix("of=")
                && walk::is_raw_device(path)
            {
                self.report(
                    true,
                    "shell.dd-device",
                    format!(
                        "`dd` writes to the device `{path}`, which overwrites the disk or memory behind it. \
                         Write to an image file inside the workspace (e.g. `of=./disk.img`) instead."
                    ),
                );
            }
        }
        Output::Unknown
    }

    /// `mkfs`, `mkswap`, `wipefs`, …: a filesystem created or wiped on a device.
    pub(super) fn mkfs(&mut self, n: &str) -> Output {
        self.report(
            true,
            "shell.mkfs",
            format!(
                "`{n}` creates or wipes a filesystem, destroying everything on the device. \
                 Do not format disks from an agent; ask a person."
            ),
        );
        Output::Unknown
    }

    /// `chattr`, `setfacl`, `setfattr`: every operand may be a file whose metadata changes.
    pub(super) fn metadata_command(&mut self, name: &str, args: &[Field], env: &mut Env) -> Output {
        // Every operand that is not an option or its value may be
        // a file (`chattr +i F`, `setfacl -m u:x:r F`): judge each.
        let files: Vec<&Field> = metadata_operands(name, args);
        self.metadata_change(name, &files, env);
        Output::Static(String::new())
    }

    /// `cp`, `mv`, `install`, `ln` under their own rules: the destination (however named) and each source landing in it.
    pub(super) fn copy_into_place(
        &mut self,
        name: &str,
        args: &[Field],
        env: &mut Env,
        depth: u32,
    ) -> Output {
        // The destination, however it is named (`-t DIR`,
        // `--target-directory=DIR`, the last operand), is written,
        // and each source lands in it under its own name when it is
        // a directory (`cp -t .claude x/settings.json` and `cp
        // x/settings.json .claude/` write `.claude/settings.json`).
        // `ln`'s links are judged in `in_place_edits`.
        if let Some(place) = crate::effects::removers::placement(name, args) {
            self.check_device_write(&place.dest.text(), &format!("`{name}`"));
            if name != "ln" {
                self.check_write(
                    &place.dest,
                    env,
                    &Output::Unknown,
                    &format!("`{name}`"),
                    true,
                    depth,
                );
                // `cp --parents` (any unambiguous abbreviation, `--pa…`)
                // recreates the source's whole relative path under the
                // destination (review s25 S27).
                let parents = name == "cp"
                    && args
                        .iter()
                        .map(Field::text)
                        .take_while(|t| t != "--")
                        .any(|t| t.len() >= 4 && "--parents".starts_with(t.as_str()));
                for source in &place.sources {
                    if self.done() {
                        break;
                    }
                    if parents && let Some(rel) = source.static_text() {
                        let rel = rel.trim_start_matches("./");
                        if !rel.starts_with('/') && !rel.is_empty() {
                            let mut under = place.dest.clone();
                            under.segs.push(Seg::Lit {
                                text: format!("/{rel}"),
                                quoted: true,
                            });
                            self.check_write(
                                &under,
                                env,
                                &Output::Unknown,
                                &format!("`{name} --parents` (into `{}`)", place.dest.text()),
                                true,
                                depth,
                            );
                        }
                    }
                    let Some(inside) = crate::effects::removers::inside(&place.dest, source) else {
                        continue;
                    };
                    self.check_write(
                        &inside,
                        env,
                        &Output::Unknown,
                        &format!("`{name}` (into `{}`)", place.dest.text()),
                        true,
                        depth,
                    );
                }
            }
        }
        Output::Unknown
    }

    /// `cp`, `mv`, `install`, `rsync`, `ln`, `scp`, `sftp`: the last operand written, and remote copies.
    pub(super) fn copy_or_sync(
        &mut self,
        name: &str,
        args: &[Field],
        env: &mut Env,
        depth: u32,
        own_rules: bool,
    ) -> Output {
        let positional = flags_positional(args);
        if own_rules && let Some(last) = positional.last() {
            self.check_device_write(&last.text(), &format!("`{name}`"));
            if name != "ln" {
                self.check_write(
                    last,
                    env,
                    &Output::Unknown,
                    &format!("`{name}`"),
                    true,
                    depth,
                );
                // The destination may be a directory: each source
                // lands in it under its own name (`rsync x/settings.json
                // .claude/` writes `.claude/settings.json`).
                for source in &positional[..positional.len() - 1] {
                    let Some(inside) = crate::effects::removers::inside(last, source) else {
                        continue;
                    };
                    self.check_write(
                        &inside,
                        env,
                        &Output::Unknown,
                        &format!("`{name}` (into `{}`)", last.text()),
                        true,
                        depth,
                    );
                }
            }
        }
        if own_rules && matches!(name, "scp" | "rsync" | "sftp") {
            self.remote_copy(name, args, env);
        }
        if own_rules && name == "rsync" {
            self.rsync_delete(args, env);
        }
        Output::Unknown
    }
}
