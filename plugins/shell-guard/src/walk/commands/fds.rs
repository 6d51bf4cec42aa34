//! File descriptors named as files (review s23 V16, V14, V22).
//!
//! A program operand or option value naming a descriptor (`/dev/stdin`,
//! `/dev/fd/N`, `/proc/self/fd/N`, and `-` where the program reads `-` as
//! standard input) is not a file: it is what that descriptor holds. The
//! property proven before a command passes: every such name is resolved
//! to a descriptor whose content the walk knows ([`Analysis::fds`]), and a
//! program reading it as code, a list of names or configuration
//! ([`STDIN_FILES`]) is judged on that content as if it had been given
//! inline; anything else (a descriptor not opened in the call, text not
//! known exactly) is held.

use super::*;
use std::collections::HashMap;

/// What a program does with a file it reads through an option.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Reads {
    /// Its program text (`awk -f`, `sed -f`): judged as the inline program.
    Program,
    /// File names, one a line (`tar -T`, `rsync --files-from`, `zip -@`,
    /// `cpio -o`): each is judged as a file the command reads.
    Names,
    /// Its configuration (`ssh -F`): each line is judged as `-o LINE`.
    Config,
    /// Text the check has no reader for (`vim -s`, `gdb -x`): held.
    Opaque,
}

/// A program option whose value is a file the program reads as [`Reads`].
struct StdinFile {
    programs: &'static [&'static str],
    /// The short option letter, if any.
    short: Option<char>,
    /// Long spellings (`--files-from`), taking `=V` or the next word.
    long: &'static [&'static str],
    /// The program reads a value of `-` as standard input.
    dash: bool,
    kind: Reads,
}

const AWKS: &[&str] = &[
    "awk",
    "gawk",
    "mawk",
    "nawk",
    "bwk-awk",
    "original-awk",
    "busybox-awk",
];
const TARS: &[&str] = &["tar", "gtar", "bsdtar"];

/// The options that name a file a program reads as code, names or
/// configuration: one table for every reader of standard-input files.
const STDIN_FILES: &[StdinFile] = &[
    StdinFile {
        programs: AWKS,
        short: Some('f'),
        long: &["--file"],
        dash: true,
        kind: Reads::Program,
    },
    StdinFile {
        programs: &["sed", "gsed"],
        short: Some('f'),
        long: &["--file"],
        dash: true,
        kind: Reads::Program,
    },
    StdinFile {
        programs: TARS,
        short: Some('T'),
        long: &["--files-from"],
        dash: true,
        kind: Reads::Names,
    },
    StdinFile {
        programs: &["rsync"],
        short: None,
        long: &["--files-from"],
        dash: true,
        kind: Reads::Names,
    },
    StdinFile {
        programs: &["ssh", "scp", "sftp"],
        short: Some('F'),
        long: &[],
        dash: false,
        kind: Reads::Config,
    },
    StdinFile {
        programs: &["vim", "vi", "nvim", "ex", "view", "gvim"],
        short: Some('s'),
        long: &[],
        dash: false,
        kind: Reads::Opaque,
    },
    StdinFile {
        programs: &["vim", "vi", "nvim", "ex", "view", "gvim"],
        short: Some('S'),
        long: &[],
        dash: false,
        kind: Reads::Opaque,
    },
    StdinFile {
        programs: &["gdb"],
        short: Some('x'),
        long: &["--command", "-command", "-x"],
        dash: false,
        kind: Reads::Opaque,
    },
];

/// The descriptor a path names: `/dev/stdin` (0), `/dev/fd/N`,
/// `/proc/self/fd/N`, `/proc/thread-self/fd/N`; `Some(None)` for a
/// descriptor path whose number or process is not known
/// (`/proc/123/fd/3`, `/dev/fd/$n`).
pub(crate) fn descriptor(path: &str) -> Option<Option<i32>> {
    if path == "/dev/stdin" {
        return Some(Some(0));
    }
    let num = if let Some(n) = path.strip_prefix("/dev/fd/") {
        n
    } else if let Some(rest) = path.strip_prefix("/proc/") {
        let (who, n) = rest.split_once("/fd/")?;
        if !matches!(who, "self" | "thread-self") {
            return Some(None);
        }
        n
    } else {
        return None;
    };
    Some(num.parse().ok())
}

/// Where in an argument a descriptor path starts: the whole word, the
/// value after `=` (`--files-from=/dev/stdin`), or the value joined to a
/// short option (`-f/dev/stdin`).
fn descriptor_at(word: &str) -> Option<usize> {
    let starts = |i: usize| {
        let rest = &word[i..];
        rest.starts_with("/dev/stdin") || rest.starts_with("/dev/fd/") || rest.starts_with("/proc/")
    };
    if starts(0) {
        return Some(0);
    }
    if let Some(eq) = word.find('=')
        && starts(eq + 1)
    {
        return Some(eq + 1);
    }
    if word.starts_with('-') && !word.starts_with("--") {
        return word.find('/').filter(|&i| i >= 2 && starts(i));
    }
    None
}

/// Whether a descriptor path names the terminal's streams the command
/// writes (`/dev/fd/1`, `/dev/stderr`), which it does not read.
fn output_stream(n: i32) -> bool {
    n == 1 || n == 2
}

impl Analysis<'_> {
    /// Resolve descriptor paths in `argv` (see the module doc): a path
    /// naming descriptor N > 2 that holds known content becomes
    /// `/dev/stdin` and that content the command's standard input, so
    /// every reader of standard input judges it; `/dev/fd/0` and
    /// `/proc/self/fd/0` become `/dev/stdin`. A descriptor not opened
    /// in the call, or two different ones, are held. The flag: the moved
    /// descriptor reads an unproven pipe ([`Analysis::piped_fds`]).
    pub(crate) fn fd_operands(
        &mut self,
        mut argv: Vec<Field>,
        stdin: Output,
        fds: &HashMap<i32, Option<Output>>,
        piped: &std::collections::HashSet<i32>,
    ) -> (Vec<Field>, Output, bool) {
        let mut stdin = stdin;
        let mut moved: Option<i32> = None;
        let mut stdin_named = false;
        for f in argv.iter_mut().skip(1) {
            let text = f.text();
            let Some(at) = descriptor_at(&text) else {
                continue;
            };
            let Some(n) = descriptor(&text[at..]) else {
                continue;
            };
            let held = match n {
                Some(n) if output_stream(n) => continue,
                Some(0) => {
                    stdin_named = true;
                    None
                }
                Some(n) => match fds.get(&n) {
                    // Opened for writing: the command writes it.
                    Some(None) => continue,
                    Some(Some(out)) if moved.is_none_or(|m| m == n) => {
                        moved = Some(n);
                        Some(out.clone())
                    }
                    _ => {
                        self.unknown_descriptor(&text);
                        continue;
                    }
                },
                None => {
                    self.unknown_descriptor(&text);
                    continue;
                }
            };
            if f.is_dynamic() {
                self.unknown_descriptor(&text);
                continue;
            }
            *f = Field::lit(format!("{}/dev/stdin", &text[..at]));
            if let Some(out) = held {
                stdin = out;
            }
        }
        if moved.is_some() && stdin_named {
            // Standard input and another descriptor both named: one
            // stream cannot stand for both.
            self.unknown_descriptor("/dev/stdin");
        }
        let moved_piped = moved.is_some_and(|n| piped.contains(&n));
        (argv, stdin, moved_piped)
    }

    fn unknown_descriptor(&mut self, path: &str) {
        self.report(
            false,
            "shell.eval-dynamic",
            format!(
                "The command names the file descriptor `{path}`, whose content is not known here (it was not \
                 opened in this command, or two descriptors are read), so what the program reads from it cannot \
                 be checked. Pass the text or file directly; a person must approve it as it is."
            ),
        );
    }

    /// Judge what a program reads through an option naming standard
    /// input ([`STDIN_FILES`]): the known text as the program's code,
    /// names or configuration, anything else held.
    pub(crate) fn stdin_files(
        &mut self,
        name: &str,
        args: &[Field],
        env: &mut Env,
        depth: u32,
        stdin: &Output,
    ) {
        let mut kinds: Vec<(Reads, usize, usize)> = Vec::new();
        for (i, a) in args.iter().enumerate() {
            let t = a.text();
            if t == "--" {
                break;
            }
            // mawk's `-W exec FILE` (also `-Wexec FILE`, `-W e FILE`):
            // the program file, and the last option.
            if AWKS.contains(&name) {
                let (w, width) = match t.strip_prefix("-W") {
                    Some("") => (args.get(i + 1).map(Field::text), 3),
                    Some(joined) => (Some(joined.to_string()), 2),
                    None => (None, 0),
                };
                if let Some(w) = w
                    && !w.is_empty()
                    && "exec".starts_with(w.as_str())
                    && args
                        .get(i + width - 1)
                        .is_some_and(|v| v.text() == "/dev/stdin" || v.text() == "-")
                {
                    kinds.push((Reads::Program, i, width));
                }
            }
            for sf in STDIN_FILES.iter().filter(|s| s.programs.contains(&name)) {
                // (value, words the option and value take)
                let value: Option<(String, usize)> = if let Some((k, v)) = t.split_once('=')
                    && sf.long.contains(&k)
                {
                    Some((v.to_string(), 1))
                } else if sf.long.contains(&t.as_str()) {
                    args.get(i + 1).map(|v| (v.text(), 2))
                } else if let Some(c) = sf.short
                    && t.starts_with('-')
                    && !t.starts_with("--")
                    && let Some(k) = t.find(c)
                {
                    let joined = &t[k + c.len_utf8()..];
                    if joined.is_empty() {
                        args.get(i + 1).map(|v| (v.text(), 2))
                    } else {
                        Some((joined.to_string(), 1))
                    }
                } else {
                    None
                };
                if let Some((v, n)) = value
                    && (v == "/dev/stdin" || (sf.dash && v == "-"))
                {
                    kinds.push((sf.kind, i, n));
                }
            }
        }
        // Programs that always read names from standard input in a mode:
        // `zip -@`, `cpio -o` / `-p` (review s23 V22).
        let names_mode = match name {
            "zip" => args.iter().position(|a| {
                let t = a.text();
                t.starts_with('-') && !t.starts_with("--") && t.contains('@')
                    || t == "--names-stdin"
            }),
            "cpio" => args.iter().position(|a| {
                let t = a.text();
                (t.starts_with('-') && !t.starts_with("--") && (t.contains('o') || t.contains('p')))
                    || t == "--create"
                    || t == "--pass-through"
            }),
            _ => None,
        };
        if let Some(i) = names_mode {
            kinds.push((Reads::Names, i, 0));
        }
        let Some(&(kind, at, width)) = kinds.first() else {
            return;
        };
        let text = match stdin {
            Output::Static(t) => t.clone(),
            other => {
                self.report_taint(other, &format!("read by `{name}` from standard input"));
                self.report(
                    false,
                    "shell.eval-dynamic",
                    format!(
                        "`{name}` reads its program, file names or configuration from standard input, whose \
                         content is not known here, so it cannot be checked. Give them in the command; a person \
                         must approve it as it is."
                    ),
                );
                return;
            }
        };
        let lines = text.lines().map(str::trim).filter(|l| !l.is_empty());
        let plain = Output::Unknown;
        match kind {
            Reads::Program => {
                let mut words: Vec<Field> = args
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| *i < at || *i >= at + width)
                    .map(|(_, a)| a.clone())
                    .collect();
                if AWKS.contains(&name) {
                    words.insert(0, Field::lit(text.clone()));
                } else {
                    words.insert(0, Field::lit(text.clone()));
                    words.insert(0, Field::lit("-e"));
                }
                self.dispatch(name, &words, env, depth, &plain, Reached::default());
            }
            Reads::Names => {
                let names: Vec<Field> = lines.map(Field::lit).collect();
                if !names.is_empty() {
                    self.dispatch("cat", &names, env, depth, &plain, Reached::default());
                }
            }
            Reads::Config => {
                let mut words: Vec<Field> = Vec::new();
                for l in lines.filter(|l| !l.starts_with('#')) {
                    words.push(Field::lit("-o"));
                    words.push(Field::lit(l));
                }
                words.extend(
                    args.iter()
                        .enumerate()
                        .filter(|(i, _)| *i < at || *i >= at + width)
                        .map(|(_, a)| a.clone()),
                );
                self.dispatch(name, &words, env, depth, &plain, Reached::default());
            }
            Reads::Opaque => self.report(
                false,
                "shell.eval-dynamic",
                format!(
                    "`{name}` reads commands from standard input, which this check does not read. Put them in a \
                     file in the workspace; a person must approve it as it is."
                ),
            ),
        }
    }
}
