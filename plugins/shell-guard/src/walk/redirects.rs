//! Redirections and here-documents: what a command reads and writes
//! through `<`, `>`, `>>` and `<<`, and the files those writes leave.

use super::*;

/// Whether a `>&` target is a descriptor as bash reads it (`2`, `-`,
/// `3-`): a literal number, optionally followed by `-`, or `-` alone.
/// Anything else, or a word only known when the command runs, is a file
/// (or may be one).
fn is_descriptor_word(f: &Field) -> bool {
    f.static_text().is_some_and(|t| {
        let n = t.strip_suffix('-').unwrap_or(&t);
        t == "-" || (!n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
    })
}

impl Analysis<'_> {
    /// Handle redirections: check device and network targets, and return
    /// the command's standard input afterwards. `cmd_name` is the command's
    /// name for simple commands.
    pub(crate) fn redirects(
        &mut self,
        redirects: &[ast::IoRedirect],
        env: &mut Env,
        depth: u32,
        stdin: &Output,
        cmd_name: Option<&str>,
    ) -> Output {
        use ast::{IoFileRedirectKind as K, IoFileRedirectTarget as T, IoRedirect as R};
        let mut input = stdin.clone();
        // What each descriptor other than standard input holds after these
        // redirections (see [`Analysis::fds`]): inherited from `exec`, then
        // changed by each redirection in order.
        let mut fds = env.fds.clone();
        // Descriptors (0 included) reading a pipe from a producer whose
        // output is not proven (`< <(python3 …)`), see
        // [`Analysis::unproven_pipe`].
        let mut piped = env.piped_fds.clone();
        for r in redirects {
            if self.done() {
                break;
            }
            match r {
                R::File(fd, kind, target) => {
                    let writes = matches!(
                        kind,
                        K::Write | K::Append | K::Clobber | K::ReadAndWrite | K::DuplicateOutput
                    );
                    let reads = matches!(kind, K::Read | K::ReadAndWrite);
                    let reads_stdin = reads && fd.is_none_or(|f| f == 0);
                    let dest = fd.unwrap_or(if reads { 0 } else { 1 });
                    piped.remove(&match kind {
                        K::DuplicateInput => fd.unwrap_or(0),
                        _ => dest,
                    });
                    if reads
                        && let T::ProcessSubstitution(..) = target
                        && dest != 1
                        && dest != 2
                    {
                        // Marked now; its content is judged below.
                        piped.insert(dest);
                    }
                    if dest > 2 {
                        // A descriptor opened for writing holds no text a
                        // reader could be judged by (`None`); one opened
                        // for reading holds what `<` would give stdin.
                        let content = if reads {
                            self.fd_file_content(target, env, depth)
                        } else {
                            None
                        };
                        if matches!(content, Some(Output::Static(_))) {
                            piped.remove(&dest);
                        }
                        fds.insert(dest, content);
                    }
                    let dup_source = match (kind, target) {
                        (K::DuplicateInput, T::Fd(src)) => Some(Some(*src)),
                        (K::DuplicateInput, T::Duplicate(w)) => Some(
                            self.expand_word(&w.value, env, depth)
                                .first()
                                .and_then(Field::static_text)
                                .and_then(|t| {
                                    // `<&-` closes the descriptor: it reads nothing.
                                    if t == "-" {
                                        return Some(-1);
                                    }
                                    t.trim_end_matches('-').parse::<i32>().ok()
                                }),
                        ),
                        _ => None,
                    };
                    if let Some(src) = dup_source {
                        // `<&N`, `M<&N`: descriptor M (stdin by default)
                        // now reads what N holds. An N not opened in the
                        // call (or only known when it runs) holds what
                        // the caller gave it: not known, held when it
                        // becomes standard input (review s23 V16).
                        if src.is_some_and(|n| piped.contains(&n)) {
                            piped.insert(fd.unwrap_or(0));
                        }
                        let held = match src {
                            Some(0) => Some(input.clone()),
                            Some(-1) => Some(Output::Static(String::new())),
                            Some(n) if n > 2 => fds.get(&n).cloned().flatten(),
                            _ => None,
                        };
                        let dest = fd.unwrap_or(0);
                        if dest == 0 {
                            input = match held {
                                Some(out) => out,
                                None => {
                                    self.report(
                                        false,
                                        "shell.eval-dynamic",
                                        format!(
                                            "The command reads its standard input from a file descriptor \
                                             (`<&{}`) that it did not open, whose content is not known here. \
                                             A person must approve it as it is.",
                                            src.map_or("?".to_string(), |n| n.to_string())
                                        ),
                                    );
                                    Output::Unknown
                                }
                            };
                        } else if dest > 2 {
                            fds.insert(dest, held);
                        }
                        continue;
                    }
                    match target {
                        T::Filename(w) | T::Duplicate(w) => {
                            let fields = self.expand_word(&w.value, env, depth);
                            for f in &fields {
                                let text = f.text();
                                // `< /dev/fd/3`, `4< /dev/stdin`: the
                                // descriptor's content (review s23 V16).
                                if reads
                                    && matches!(target, T::Filename(_))
                                    && let Some(n) = crate::walk::commands::descriptor(&text)
                                {
                                    let held = match n {
                                        Some(0) => Some(input.clone()),
                                        Some(n) if n > 2 => fds.get(&n).cloned().flatten(),
                                        _ => None,
                                    };
                                    let held = held.unwrap_or_else(|| {
                                        self.report(
                                            false,
                                            "shell.eval-dynamic",
                                            format!(
                                                "A redirection reads `{text}`, a file descriptor whose content is \
                                                 not known here. A person must approve it as it is."
                                            ),
                                        );
                                        Output::Unknown
                                    });
                                    if n.is_some_and(|n| n > 2 && piped.contains(&n)) {
                                        piped.insert(dest);
                                    }
                                    if reads_stdin {
                                        input = held;
                                    } else if dest > 2 {
                                        fds.insert(dest, Some(held));
                                    }
                                    continue;
                                }
                                // `< KEY`, `3< KEY`, `<> KEY`, `$(< KEY)`: the
                                // command (or the loop, or `exec`'s shell)
                                // reads the file, wherever the redirection is.
                                if reads
                                    && matches!(target, T::Filename(_))
                                    && let Some(label) = self.sensitive_label(f, env)
                                {
                                    self.report_redirected_read(cmd_name, &text, label);
                                    if reads_stdin {
                                        input = Output::Secret;
                                    }
                                    continue;
                                }
                                if writes {
                                    self.check_device_write(&text, "a redirection");
                                }
                                if is_network_device(&text) {
                                    self.network_redirect(cmd_name);
                                    if reads_stdin {
                                        input = Output::Downloaded;
                                    }
                                } else if reads_stdin {
                                    input = if text == "/dev/null" {
                                        Output::Static(String::new())
                                    } else if let Some(out) = env.file_taint(&text) {
                                        // `curl -so x.sql URL; sqlite3 < x.sql`:
                                        // a download read on standard input
                                        // is downloaded (review s23 V6).
                                        out.clone()
                                    } else if let Some(t) = env.written_text(&text) {
                                        // `bash < r.sh` after writing it (review-s9 G11).
                                        Output::Static(t.to_string())
                                    } else {
                                        Output::Unknown
                                    };
                                }
                            }
                        }
                        T::Fd(_) => {}
                        T::ProcessSubstitution(kind, sub) => {
                            let mut e = env.clone();
                            let out = self.procsub_output(kind, sub, &mut e, depth);
                            if reads_stdin {
                                if matches!(out, Output::Static(_)) {
                                    piped.remove(&0);
                                }
                                input = out;
                            }
                        }
                    }
                }
                R::HereString(fd, w) => {
                    let fields = self.expand_word(&w.value, env, depth);
                    let out = fields_output(&fields, true);
                    piped.remove(&fd.unwrap_or(0));
                    match fd.unwrap_or(0) {
                        0 => input = out,
                        n if n > 2 => {
                            fds.insert(n, Some(out));
                        }
                        _ => {}
                    }
                }
                R::HereDocument(fd, doc) => {
                    let out = self.heredoc(doc, env, depth);
                    piped.remove(&fd.unwrap_or(0));
                    match fd.unwrap_or(0) {
                        0 => input = out,
                        n if n > 2 => {
                            fds.insert(n, Some(out));
                        }
                        _ => {}
                    }
                }
                R::OutputAndError(w, _) => {
                    let fields = self.expand_word(&w.value, env, depth);
                    for f in &fields {
                        let text = f.text();
                        self.check_device_write(&text, "a redirection");
                        if is_network_device(&text) {
                            self.network_redirect(cmd_name);
                        }
                    }
                }
            }
        }
        self.fds = fds;
        self.piped_fds = piped;
        input
    }

    /// What a descriptor opened for reading on `target` holds (`3< F`,
    /// `3< <(…)`): the text of a file this call wrote, a process
    /// substitution's output, empty for `/dev/null`, else unknown. A
    /// sensitive file was reported by the caller's loop; it reads as
    /// a secret.
    fn fd_file_content(
        &mut self,
        target: &ast::IoFileRedirectTarget,
        env: &mut Env,
        depth: u32,
    ) -> Option<Output> {
        use ast::IoFileRedirectTarget as T;
        Some(match target {
            T::Filename(w) => {
                let fields = self.expand_word(&w.value, env, depth);
                match fields.as_slice() {
                    [f] if f.text() == "/dev/null" => Output::Static(String::new()),
                    [f] if self.sensitive_label(f, env).is_some() => Output::Secret,
                    [f] => match env.written_text(&f.text()) {
                        Some(t) => Output::Static(t.to_string()),
                        None => Output::Unknown,
                    },
                    _ => Output::Unknown,
                }
            }
            T::ProcessSubstitution(kind, sub) => {
                let mut e = env.clone();
                self.procsub_output(kind, sub, &mut e, depth)
            }
            T::Fd(_) | T::Duplicate(_) => Output::Unknown,
        })
    }

    /// A credential file or toolvet secret opened for reading by an input
    /// redirection: a read of it by the command it is attached to.
    fn report_redirected_read(&mut self, cmd_name: Option<&str>, file: &str, label: &str) {
        let by = match cmd_name {
            Some(n) => format!("`{n}`"),
            None => "a command".to_string(),
        };
        self.report(
            true,
            "shell.read-credentials",
            format!(
                "An input redirection (`<`) gives {by} the contents of `{file}`, {label}. Credentials must not be \
                 read into the conversation, copied or sent anywhere; let the program that needs them use them in \
                 place (e.g. `ssh -i`, a credential helper), or ask the user for what you need."
            ),
        );
    }

    fn network_redirect(&mut self, cmd_name: Option<&str>) {
        if let Some(name) = cmd_name
            && (crate::walk::commands::is_shell(name)
                || crate::walk::commands::is_interpreter(name))
        {
            self.report(
                true,
                "shell.reverse-shell",
                format!(
                    "`{name}` is connected to a network socket through `/dev/tcp` or `/dev/udp`: \
                     this is a reverse shell that hands control of the machine to a remote host. Do not run it."
                ),
            );
        }
    }

    fn heredoc(&mut self, doc: &ast::IoHereDocument, env: &mut Env, depth: u32) -> Output {
        if !doc.requires_expansion {
            return Output::Static(doc.doc.value.clone());
        }
        // brush's heredoc word parser backtracks exponentially on bodies with
        // many unterminated `$(`; the body is rewritten as the equivalent
        // double-quoted word and validated by the (linear) tokenizer first.
        let word = syntax::heredoc_as_double_quoted(&doc.doc.value);
        let opts = syntax::parser_options();
        let tokens_ok = matches!(syntax::tokenize(&word), Ok(t) if t.len() == 1);
        if !tokens_ok {
            self.report(
                false,
                "shell.unparseable",
                "A here-document contains an unterminated `$(…)` or backquote, so the command cannot be checked. \
                 Fix the here-document, or quote its delimiter (`<<'EOF'`) if it should not be expanded.",
            );
            return Output::Unknown;
        }
        match brush_parser::word::parse(&word, &opts) {
            Ok(pieces) => {
                let mut b = FieldBuilder::default();
                self.expand_pieces(&pieces, &word, true, &mut b, env, depth);
                let fields = b.finish();
                let out = fields_output(&fields, false);
                match out {
                    Output::Unknown => {
                        Output::Static(fields.iter().map(Field::text).collect::<Vec<_>>().join(""))
                    }
                    o => o,
                }
            }
            Err(_) => Output::Static(doc.doc.value.clone()),
        }
    }

    /// Judge the files a command's redirections write (guard rails,
    /// dotfiles, system files); `out` is what the command writes to its
    /// standard output.
    pub(super) fn redirect_writes(
        &mut self,
        redirects: &[ast::IoRedirect],
        env: &mut Env,
        depth: u32,
        out: &Output,
    ) {
        use ast::{IoFileRedirectKind as K, IoFileRedirectTarget as T, IoRedirect as R};
        for r in redirects {
            let (fd, truncates, w) = match r {
                R::File(fd, kind @ (K::Write | K::Append | K::Clobber), T::Filename(w)) => {
                    (*fd, !matches!(kind, K::Append), w)
                }
                // `N<>F` opens F for writing too; what the command writes
                // there overwrites it in place (review s10 H21).
                R::File(fd, K::ReadAndWrite, T::Filename(w)) => (Some(fd.unwrap_or(0)), false, w),
                R::OutputAndError(w, append) => (Some(1), !append, w),
                // `>& WORD` / `N>& WORD`: bash duplicates a descriptor
                // when WORD expands to a number or `-` (`N-`), and
                // otherwise opens WORD as `&> WORD` does (review s22 V6).
                R::File(fd, K::DuplicateOutput, T::Duplicate(w)) => (*fd, true, w),
                _ => continue,
            };
            let content = if fd.is_none_or(|f| f == 1) {
                out.clone()
            } else {
                Output::Unknown
            };
            for f in self.expand_word(&w.value, env, depth) {
                if is_descriptor_word(&f) {
                    continue;
                }
                self.check_write(&f, env, &content, "a redirection", truncates, depth);
            }
        }
    }

    /// Remember the files a command's output redirections write (see
    /// [`Env::written`]): `out` for standard output, unknown content for
    /// another descriptor.
    pub(super) fn note_redirect_writes(
        &mut self,
        redirects: &[ast::IoRedirect],
        env: &mut Env,
        depth: u32,
        out: &Output,
    ) {
        use ast::{IoFileRedirectKind as K, IoFileRedirectTarget as T, IoRedirect as R};
        for r in redirects {
            let (fd, append, w) = match r {
                R::File(
                    fd,
                    kind @ (K::Write | K::Append | K::Clobber | K::ReadAndWrite),
                    T::Filename(w),
                ) => (*fd, matches!(kind, K::Append | K::ReadAndWrite), w),
                R::OutputAndError(w, append) => (Some(1), *append, w),
                R::File(fd, K::DuplicateOutput, T::Duplicate(w)) => (*fd, false, w),
                _ => continue,
            };
            let content = if fd.is_none_or(|f| f == 1) {
                out.clone()
            } else {
                Output::Unknown
            };
            for f in self.expand_word(&w.value, env, depth) {
                if is_descriptor_word(&f) {
                    continue;
                }
                if let Some(t) = f.static_text() {
                    env.note_written(&t, &content, append);
                }
            }
        }
    }
}
