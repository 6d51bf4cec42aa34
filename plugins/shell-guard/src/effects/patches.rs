//! GNU `patch` reading its diff from standard input (review s25 R8):
//! the diff names the files it writes. Text known in the command (a
//! here-document, a here-string, `printf … |`) is read as `patch` reads
//! it: unified and context diffs, git's C-quoted names, both the old and
//! the new name (patch picks whichever exists), `-pN` components
//! stripped and, without `-p`, the base name (GNU patch's default) as
//! well as the whole name; each is a write with the added lines as its
//! content, and its backups ([`Analysis::patch_backup_writes`]) too. A
//! diff piped from a producer whose output is not known (`curl … |
//! patch`, `echo "$d" | patch`) or decoded or downloaded writes files the
//! check cannot name: held, unless the file to patch is given as an
//! operand (then that operand is the write, judged as such). A diff read
//! from a file (`patch -p1 < fix.diff`, `-i fix.diff`) is not read.

use crate::syntax::{Field, Output};
use crate::walk::{Analysis, Env};

/// patch's options that take a value (GNU patch 2.7 `--help`).
const VALUED: &[&str] = &[
    "-p",
    "--strip",
    "-d",
    "--directory",
    "-i",
    "--input",
    "-o",
    "--output",
    "-r",
    "--reject-file",
    "-B",
    "--prefix",
    "-Y",
    "--basename-prefix",
    "-z",
    "--suffix",
    "-V",
    "--version-control",
    "-D",
    "--ifdef",
    "-F",
    "--fuzz",
    "-g",
    "--get",
    "--quoting-style",
    "--reject-format",
    "--read-only",
];

impl Analysis<'_> {
    /// Judge the files `patch` writes from the diff on its standard input
    /// (see the module docs).
    pub(crate) fn patch_input(
        &mut self,
        name: &str,
        args: &[Field],
        env: &mut Env,
        depth: u32,
        stdin: &Output,
    ) {
        let mut strip: Option<usize> = None;
        let mut dir: Option<Field> = None;
        let mut from_file = false;
        let mut operands = 0;
        let mut ended = false;
        let mut i = 0;
        while let Some(a) = args.get(i) {
            i += 1;
            let t = a.text();
            if ended || !t.starts_with('-') || t == "-" {
                operands += 1;
                continue;
            }
            if t == "--" {
                ended = true;
                continue;
            }
            let (opt, value): (&str, Option<Field>) = if let Some((n, v)) = t.split_once('=') {
                (n, Some(Field::lit(v)))
            } else if VALUED.contains(&t.as_str()) {
                i += 1;
                (t.as_str(), args.get(i - 1).cloned())
            } else if t.len() > 2 && !t.starts_with("--") && VALUED.contains(&&t[..2]) {
                (&t[..2], Some(Field::lit(&t[2..])))
            } else {
                (t.as_str(), None)
            };
            match opt {
                "-p" | "--strip" => {
                    strip = value
                        .and_then(|v| v.static_text())
                        .and_then(|v| v.parse().ok());
                }
                "-d" | "--directory" => dir = value,
                "-i" | "--input" => from_file = true,
                _ => {}
            }
        }
        // `patch FILE [PATCH]`: FILE is the write (judged as an output
        // file); `-i`/`< F`: a diff from a file, not read; `--dry-run`
        // writes nothing.
        if operands > 0 || from_file || args.iter().any(|a| a.text() == "--dry-run") {
            return;
        }
        let mut e = env.clone();
        if let Some(d) = &dir {
            self.change_dir(Some(d), &mut e);
        }
        let via = format!("`{name}` (applying the diff on its standard input)");
        match stdin {
            Output::Static(text) => {
                let mut targets: Vec<Field> = Vec::new();
                for file in crate::code::embedded::patch_files(text, Some(strip.unwrap_or(0))) {
                    let content = match file.op {
                        crate::code::embedded::PatchOp::Delete => Output::Unknown,
                        _ => Output::Static(file.added.clone()),
                    };
                    let mut names = vec![file.path.clone()];
                    if strip.is_none()
                        && let Some((_, base)) = file.path.rsplit_once('/')
                        && !base.is_empty()
                    {
                        names.push(base.to_string());
                    }
                    for n in names {
                        if self.done() {
                            return;
                        }
                        let target = Field::lit(n);
                        self.check_write(&target, &mut e, &content, &via, true, depth);
                        targets.push(target);
                    }
                }
                self.patch_backup_writes(name, args, &targets, &mut e);
            }
            other
                if self.unproven_pipe || other.is_tainted() || matches!(other, Output::Secret) =>
            {
                self.report_taint(other, &format!("as the diff `{name}` applies"));
                self.report(
                    false,
                    "shell.guardrail-write",
                    format!(
                        "`{name}` applies a diff piped from a command whose output is not known here, so the files \
                         it writes (named inside the diff) cannot be checked. Name the file to patch (`{name} FILE`) \
                         or give the diff in a here-document; a person must approve this one."
                    ),
                );
            }
            _ => {}
        }
    }
}
