//! Editors run by the agent (vim's `-c`/`+CMD` commands, the files they
//! write) and `apply_patch`.

use super::*;

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
