//! Commands that remove or destroy the files they are given, besides `rm`:
//! `mv` (its sources are gone from where they were), `shred` and `unlink`,
//! archivers told to delete what they archived (`tar --remove-files`,
//! `zip -m`, `7z a -sdel`, `rsync --remove-source-files`) and compressors
//! that replace their input by default (`gzip`, `bzip2`, `xz`; `zstd` and
//! `lz4` with `--rm`), and moves to the desktop's trash (`trash`,
//! `trash-put`, `gio trash`, `gtrash put`, `kioclient move … trash:/`).
//!
//! Each removed operand is judged twice:
//!
//! - by its place, as `rm` is: `/`, a home directory itself or an
//!   operating-system path is denied (`mv ~ /tmp/x` takes the home away
//!   as surely as `rm -rf ~`); the workspace root itself is escalated when
//!   the program removes directories; any other path outside the workspace
//!   only when the program descends into directories (`tar
//!   --remove-files … ~/docs`, `gzip -r`);
//! - as a write onto it (removing a file changes it): the agent's guard
//!   rails, toolvet's own state and credential files are refused, as a
//!   redirection onto them is (`shred -u ~/.bashrc`, `rm
//!   .claude/settings.json`, `mv state/approvals.db /tmp`).

use crate::paths::{self, Place};
use crate::syntax::{Field, Output, Seg};
use crate::walk::{Analysis, Env, Target};
use std::borrow::Cow;

mod backups;
mod links_and_fills;

pub(crate) use links_and_fills::written_dirs;

/// What a command removes: its operands, and how.
struct Removal<'a> {
    /// The operands removed (or whose content is destroyed).
    operands: Vec<Cow<'a, Field>>,
    /// For each operand, the path whose place decides (the operand
    /// itself; for `find` with name tests, the start it searches).
    placed: Vec<Cow<'a, Field>>,
    /// Judge the operands by place (`rm` has its own rules; `find` only
    /// for a workspace root it removes whole, the rest is its own).
    by_place: bool,
    /// The program can remove a directory (`mv`, archivers).
    dirs: bool,
    /// It descends into directories, removing what is below.
    recursive: bool,
    /// How it is shown in messages (in backticks), e.g. `tar --remove-files`.
    how: String,
}

/// The value-taking options of the programs below (the next word, or the
/// rest of a short cluster, is their value, not an operand).
fn takes_value(program: &str, opt: &str) -> bool {
    match program {
        "mv" | "cp" | "ln" => matches!(opt, "-t" | "-S" | "--suffix") || is_target_directory(opt),
        "install" => {
            is_target_directory(opt)
                || matches!(
                    opt,
                    "-t" | "-S"
                        | "--suffix"
                        | "-m"
                        | "--mode"
                        | "-o"
                        | "--owner"
                        | "-g"
                        | "--group"
                        | "--strip-program"
                )
        }
        "tar" => matches!(
            opt,
            "-f" | "--file"
                | "-C"
                | "--directory"
                | "-T"
                | "--files-from"
                | "-X"
                | "--exclude-from"
                | "-b"
                | "--blocking-factor"
                | "-H"
                | "--format"
                | "-I"
                | "--use-compress-program"
                | "-K"
                | "-L"
                | "-N"
                | "-V"
                | "--label"
                | "--exclude"
                | "--owner"
                | "--group"
                | "--mode"
                | "--mtime"
                | "--transform"
                | "--newer"
        ),
        "zip" => matches!(
            opt,
            "-b" | "-n" | "-t" | "-tt" | "-x" | "-i" | "-P" | "-O" | "-Z"
        ),
        "rsync" => matches!(
            opt,
            "-e" | "--rsh"
                | "-f"
                | "--filter"
                | "--exclude"
                | "--include"
                | "--exclude-from"
                | "--include-from"
                | "--files-from"
                | "--chmod"
                | "--chown"
                | "-T"
                | "--temp-dir"
                | "--partial-dir"
                | "--backup-dir"
                | "--suffix"
                | "--compare-dest"
                | "--copy-dest"
                | "--link-dest"
                | "-B"
                | "--block-size"
                | "--bwlimit"
                | "--port"
                | "--password-file"
                | "--log-file"
        ),
        "shred" => matches!(
            opt,
            "-n" | "--iterations" | "-s" | "--size" | "--random-source"
        ),
        "zstd" | "lz4" => matches!(opt, "-o" | "-D" | "--patch-from"),
        _ => false,
    }
}

/// The operands of `args` (words that are not options or option values)
/// and the options with their values, read the usual way: `--` ends
/// options; `--opt=v` carries its value; a value-taking long option takes
/// the next word; a short cluster is one option a letter, and its first
/// value-taking letter takes the rest of the word or the next word
/// (`-czf out.tgz`, `-tDIR`). An option that takes no value has `None`;
/// one whose value is missing or cannot be read apart (dynamic text) has
/// its own word instead, so that a value is never silently lost.
fn walk_options<'a>(
    program: &str,
    args: &'a [Field],
) -> (Vec<&'a Field>, Vec<(String, Option<Field>)>) {
    let mut operands = Vec::new();
    let mut options = Vec::new();
    let mut ended = false;
    let mut i = 0;
    while let Some(a) = args.get(i) {
        i += 1;
        let t = a.text();
        if ended || t == "-" || !t.starts_with('-') {
            operands.push(a);
            continue;
        }
        if t == "--" {
            ended = true;
            continue;
        }
        if t.starts_with("--") {
            let name = t.split('=').next().unwrap_or(&t).to_string();
            let value = if t.contains('=') {
                Some(strip_literal_prefix(a, &format!("{name}=")).unwrap_or_else(|| a.clone()))
            } else if takes_value(program, &name) {
                i += 1;
                Some(args.get(i - 1).cloned().unwrap_or_else(|| a.clone()))
            } else {
                None
            };
            options.push((name, value));
            continue;
        }
        let letters: Vec<char> = t[1..].chars().collect();
        for (k, c) in letters.iter().enumerate() {
            let opt = format!("-{c}");
            if takes_value(program, &opt) {
                let value = if k + 1 == letters.len() {
                    i += 1;
                    args.get(i - 1).cloned()
                } else {
                    let prefix: String = std::iter::once('-')
                        .chain(letters[..=k].iter().copied())
                        .collect();
                    strip_literal_prefix(a, &prefix)
                };
                options.push((opt, Some(value.unwrap_or_else(|| a.clone()))));
                break;
            }
            options.push((opt, None));
        }
    }
    (operands, options)
}

/// The operands and option names of `args` ([`walk_options`] without the
/// values).
fn split<'a>(program: &str, args: &'a [Field]) -> (Vec<&'a Field>, Vec<String>) {
    let (operands, options) = walk_options(program, args);
    (
        operands,
        options.into_iter().map(|(name, _)| name).collect(),
    )
}

/// Whether `name args` makes hard links: `ln` without `-s`, `link`, and
/// `cp -l`/`--link`.
fn makes_hard_links(name: &str, options: &[String]) -> bool {
    match name {
        "link" => true,
        "ln" => !options.iter().any(|o| o == "-s" || o == "--symbolic"),
        "cp" => options.iter().any(|o| o == "-l" || o == "--link"),
        _ => false,
    }
}

/// `tar`'s old-style first word (`tar czf out.tgz dir`): its letters are
/// options, and each of `f`, `C`, `T`, `X`, `b` takes the next operand.
fn tar_old_style(args: &[Field]) -> Option<(Vec<&Field>, Vec<String>)> {
    let first = args.first()?.text();
    if first.starts_with('-') || !first.chars().all(|c| c.is_ascii_alphabetic()) {
        return None;
    }
    if !first.contains(['c', 'r', 'u', 'x', 't', 'A', 'd']) {
        return None;
    }
    let mut options: Vec<String> = first.chars().map(|c| format!("-{c}")).collect();
    let values = first
        .chars()
        .filter(|c| matches!(c, 'f' | 'C' | 'T' | 'X' | 'b'))
        .count();
    let (rest_operands, rest_options) = split("tar", &args[1..]);
    options.extend(rest_options);
    Some((rest_operands.into_iter().skip(values).collect(), options))
}

/// What `name` with `args` removes, if anything (`rm` has its own rules;
/// only its writes onto guard rails are judged here).
fn removal<'a>(name: &str, args: &'a [Field]) -> Option<Removal<'a>> {
    let has = |options: &[String], any: &[&str]| options.iter().any(|o| any.contains(&o.as_str()));
    let removal = |operands: Vec<&'a Field>, dirs, recursive, how: String| {
        Some(Removal {
            placed: operands.iter().map(|f| Cow::Borrowed(*f)).collect(),
            operands: operands.into_iter().map(Cow::Borrowed).collect(),
            by_place: !matches!(name, "rm" | "srm"),
            dirs,
            recursive,
            how,
        })
    };
    match name {
        "rm" | "srm" => {
            let (operands, options) = split(name, args);
            // `-r` removes directories with what is in them.
            let recursive = has(&options, &["-r", "-R", "--recursive"]);
            let how = if recursive {
                format!("{name} -r")
            } else {
                name.to_string()
            };
            removal(operands, recursive, recursive, how)
        }
        "unlink" => {
            let (operands, _) = split(name, args);
            removal(operands, false, false, name.to_string())
        }
        // Moving to the desktop's trash takes files and whole directories
        // away from where they were, as `mv` does.
        "trash" | "trash-put" | "gtrash" | "gio" | "kioclient" | "kioclient5" => {
            let sub = match name {
                "gtrash" => Some("put"),
                "gio" => Some("trash"),
                "kioclient" | "kioclient5" => Some("move"),
                _ => None,
            };
            let rest = match sub {
                Some(sub) => match args.first() {
                    Some(a) if a.text() == sub => &args[1..],
                    _ => return None,
                },
                None => args,
            };
            let (mut operands, _) = split(name, rest);
            if name.starts_with("kioclient") {
                // `kioclient move SRC… trash:/`: the last operand is where.
                if operands
                    .last()
                    .is_some_and(|d| d.text().starts_with("trash:"))
                {
                    operands.pop();
                } else {
                    return None;
                }
            }
            let how = match sub {
                Some(sub) => format!("{name} {sub}"),
                None => name.to_string(),
            };
            removal(operands, true, true, how)
        }
        "find" => find_removal(args),
        "shred" => {
            let (operands, options) = split(name, args);
            let how = if has(
                &options,
                &[
                    "-u",
                    "--remove",
                    "--remove=unlink",
                    "--remove=wipe",
                    "--remove=wipesync",
                ],
            ) {
                "shred -u"
            } else {
                "shred"
            };
            removal(operands, false, false, how.to_string())
        }
        "mv" => {
            let (mut operands, options) = split(name, args);
            let has_target = has(&options, &["-t", "--target-directory"])
                || args
                    .iter()
                    .any(|a| a.text().starts_with("--target-directory="));
            if !has_target {
                operands.pop();
            }
            removal(operands, true, false, "mv".into())
        }
        "tar" | "gtar" => {
            let (operands, options) = tar_old_style(args).unwrap_or_else(|| split("tar", args));
            if !has(&options, &["--remove-files"]) {
                return None;
            }
            // `-C DIR`: the operands are relative to DIR; judge DIR itself
            // as removed (conservative: `tar -C ~ --remove-files -cf x .`).
            let mut operands = operands;
            let mut i = 0;
            while let Some(a) = args.get(i) {
                let t = a.text();
                if matches!(t.as_str(), "-C" | "--directory") {
                    if let Some(dir) = args.get(i + 1) {
                        operands.push(dir);
                    }
                } else if t.starts_with("--directory=") {
                    operands.push(a);
                }
                i += 1;
            }
            removal(operands, true, true, "tar --remove-files".into())
        }
        "zip" => {
            let (mut operands, options) = split(name, args);
            if !has(&options, &["-m", "--move"]) || operands.is_empty() {
                return None;
            }
            operands.remove(0); // the archive
            let recursive = has(
                &options,
                &["-r", "-R", "--recurse-paths", "--recurse-patterns"],
            );
            removal(operands, true, recursive, "zip -m".into())
        }
        "7z" | "7za" | "7zz" | "7zr" => {
            if !args.iter().any(|a| a.text() == "-sdel") {
                return None;
            }
            let (operands, _) = split(name, args);
            // `7z a ARCHIVE FILES… -sdel`: the command and the archive first.
            let operands = operands.into_iter().skip(2).collect();
            removal(operands, true, true, format!("{name} -sdel"))
        }
        "rsync" => {
            let (mut operands, options) = split(name, args);
            if !has(&options, &["--remove-source-files", "--remove-sent-files"]) {
                return None;
            }
            operands.pop(); // the destination
            let recursive = has(&options, &["-r", "--recursive", "-a", "--archive"]);
            removal(
                operands,
                true,
                recursive,
                "rsync --remove-source-files".into(),
            )
        }
        "gzip" | "pigz" | "bzip2" | "pbzip2" | "xz" | "lzma" | "lzip" | "compress" | "gunzip"
        | "bunzip2" | "unxz" | "unlzma" => {
            let (operands, options) = split(name, args);
            let keeps = has(
                &options,
                &[
                    "-k",
                    "--keep",
                    "-c",
                    "--stdout",
                    "--to-stdout",
                    "-l",
                    "--list",
                    "-t",
                    "--test",
                ],
            );
            if keeps {
                return None;
            }
            let recursive = has(&options, &["-r", "--recursive"]);
            removal(operands, recursive, recursive, name.to_string())
        }
        "zstd" | "unzstd" | "lz4" | "lzop" => {
            let (operands, options) = split(name, args);
            if !has(&options, &["--rm", "-U", "--unlink", "--delete"]) {
                return None;
            }
            let recursive = has(&options, &["-r"]);
            removal(operands, recursive, recursive, format!("{name} --rm"))
        }
        _ => None,
    }
}

/// What `find … -delete` (or `-exec rm …`) removes: each start path
/// whole, or, when name tests (`-name`, `-iname`) pick what is removed
/// and no `-o` offers another way, the paths below each start with such
/// a name (`START/**/NAME`). `-delete` removes only empty directories, so
/// it removes a directory holding a guard rail only through `-exec rm
/// -r`; without name tests every start goes whole either way. A
/// `-path` test is not read: the starts count whole.
fn find_removal(args: &[Field]) -> Option<Removal<'static>> {
    let texts: Vec<String> = args.iter().map(Field::text).collect();
    let (starts, mut i) = crate::walk::commands::find_starts(args);
    let mut deletes = false;
    let mut exec_recursive = false;
    let mut names: Vec<String> = Vec::new();
    let mut other_tests = false;
    while let Some(t) = texts.get(i) {
        match t.as_str() {
            "-delete" => deletes = true,
            "-exec" | "-execdir" | "-ok" | "-okdir" => {
                let cmd = texts
                    .get(i + 1)
                    .map(|c| crate::walk::commands::base_name(c));
                let rest: Vec<&String> = texts[i + 1..]
                    .iter()
                    .take_while(|w| *w != ";" && *w != "+")
                    .collect();
                // Only the visited paths (`{}`) are removed by find; the
                // command's other operands are its own (analysed as a
                // command).
                if matches!(cmd.as_deref(), Some("rm" | "unlink" | "shred" | "srm"))
                    && rest.iter().any(|w| w.contains("{}"))
                {
                    deletes = true;
                    exec_recursive |= rest.into_iter().any(|w| {
                        w == "--recursive"
                            || (w.starts_with('-')
                                && !w.starts_with("--")
                                && w.contains(['r', 'R']))
                    });
                }
            }
            "-name" | "-iname" => {
                if let Some(n) = texts.get(i + 1) {
                    names.push(n.clone());
                    i += 1;
                }
            }
            "-o" | "-or" | "," | "-path" | "-ipath" | "-wholename" | "-iwholename" | "-regex"
            | "-iregex" => other_tests = true,
            _ => {}
        }
        i += 1;
    }
    if !deletes {
        return None;
    }
    let (operands, placed): (Vec<Field>, Vec<Field>) = if names.is_empty() || other_tests {
        (starts.clone(), starts)
    } else {
        starts
            .iter()
            .flat_map(|s| {
                names.iter().map(move |n| {
                    let mut segs = s.segs.clone();
                    segs.push(Seg::Lit {
                        text: "/**/".to_string(),
                        quoted: true,
                    });
                    segs.push(Seg::Lit {
                        text: n.clone(),
                        quoted: false,
                    });
                    (Field { segs }, s.clone())
                })
            })
            .unzip()
    };
    let whole = names.is_empty() || other_tests;
    Some(Removal {
        operands: operands.into_iter().map(Cow::Owned).collect(),
        placed: placed.into_iter().map(Cow::Owned).collect(),
        // `find . -delete` empties the workspace as `rm -rf .` does
        // (`-empty` removes only empty files and directories).
        by_place: whole && !texts.iter().any(|t| t == "-empty"),
        dirs: whole || exec_recursive,
        recursive: whole || exec_recursive,
        how: "find -delete".to_string(),
    })
}

/// The files `sed -i` / `perl -i` edit in place (their operands other
/// than the script), if the command edits in place.
fn edited_in_place<'a>(name: &str, args: &'a [Field]) -> Option<Vec<&'a Field>> {
    let texts: Vec<String> = args.iter().map(Field::text).collect();
    let in_place = |t: &str| {
        t.starts_with("--in-place")
            || (t.starts_with('-')
                && !t.starts_with("--")
                && t[1..].split('.').next().is_some_and(|f| f.contains('i')))
    };
    match name {
        "sed" | "gsed" => {
            if !texts.iter().any(|t| in_place(t)) {
                return None;
            }
            let mut files = Vec::new();
            let mut script_given = false;
            let mut i = 0;
            while let Some(t) = texts.get(i) {
                if matches!(t.as_str(), "-e" | "--expression" | "-f" | "--file") {
                    script_given = true;
                    i += 2;
                    continue;
                }
                if t.starts_with("--expression=") || t.starts_with("--file=") {
                    script_given = true;
                } else if !t.starts_with('-') || t == "-" {
                    files.push(&args[i]);
                }
                i += 1;
            }
            if !script_given && !files.is_empty() {
                files.remove(0);
            }
            Some(files)
        }
        // ruby(1) `-i[EXT]` edits the operands in place as perl's does.
        "perl" | "ruby" => {
            if !texts
                .iter()
                .any(|t| t.starts_with('-') && !t.starts_with("--") && t.contains('i'))
            {
                return None;
            }
            let mut files = Vec::new();
            let mut i = 0;
            while let Some(t) = texts.get(i) {
                // `-e CODE`, `-pie CODE`: the code is the next word.
                if t.starts_with('-') && !t.starts_with("--") && t.ends_with(['e', 'E']) {
                    i += 2;
                    continue;
                }
                if !t.starts_with('-') {
                    files.push(&args[i]);
                }
                i += 1;
            }
            Some(files)
        }
        "awk" | "gawk" => gawk_in_place(args),
        _ => None,
    }
}

/// gawk's `-i inplace` (`--include=inplace`, `-iinplace`, `-W
/// include=inplace`; gawk manual "Enabling In-Place File Editing"): every
/// file operand after the program text is rewritten (review s23 V3).
/// `awk` may be gawk. Options that take a value skip it; the first
/// operand is the program unless `-f`/`-e` gave one; `NAME=VALUE`
/// operands are assignments.
fn gawk_in_place(args: &[Field]) -> Option<Vec<&Field>> {
    const VALUED: &[&str] = &[
        "-f",
        "-e",
        "-v",
        "-F",
        "-i",
        "-l",
        "-W",
        "-E",
        "--file",
        "--source",
        "--assign",
        "--field-separator",
        "--include",
        "--load",
        "--exec",
    ];
    let texts: Vec<String> = args.iter().map(Field::text).collect();
    let inplace = texts.iter().enumerate().any(|(k, t)| {
        let next = texts.get(k + 1).map(String::as_str);
        matches!(t.as_str(), "-i" | "--include" | "-W")
            && matches!(next, Some("inplace" | "include=inplace"))
            || matches!(
                t.as_str(),
                "-iinplace" | "--include=inplace" | "-Winclude=inplace"
            )
            || t.starts_with("--inc") && t.ends_with("=inplace")
    });
    if !inplace {
        return None;
    }
    let mut files = Vec::new();
    let mut program_given = false;
    let mut i = 0;
    let mut ended = false;
    while let Some(t) = texts.get(i) {
        if !ended && t == "--" {
            ended = true;
        } else if !ended && VALUED.contains(&t.as_str()) {
            program_given |= matches!(t.as_str(), "-f" | "-e" | "--file" | "--source");
            i += 2;
            continue;
        } else if !ended && t.starts_with('-') && t != "-" {
            program_given |= t.starts_with("--file=")
                || t.starts_with("--source=")
                || (t.starts_with("-f") || t.starts_with("-e")) && !t.starts_with("--");
        } else if !program_given {
            program_given = true;
        } else if !t.split_once('=').is_some_and(|(n, _)| {
            !n.is_empty() && n.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        }) {
            files.push(&args[i]);
        }
        i += 1;
    }
    Some(files)
}

/// The value of the last of options `names` in `args`: the next word, or
/// attached (`--output=DIR`, `-DDIR` for a one-letter name).
fn option_value(args: &[Field], names: &[&str]) -> Option<Field> {
    let mut found = None;
    let mut i = 0;
    while let Some(a) = args.get(i) {
        let t = a.text();
        if names.contains(&t.as_str()) {
            found = args.get(i + 1).cloned();
            i += 1;
        } else if let Some(v) = names.iter().find_map(|n| {
            if n.starts_with("--") || n.len() > 2 {
                strip_literal_prefix(a, &format!("{n}="))
            } else {
                strip_literal_prefix(a, n)
            }
        }) {
            found = Some(v);
        }
        i += 1;
    }
    found
}

/// `field` without the literal prefix `prefix` (`of=` of `dd of=FILE`),
/// if it starts with it.
pub(crate) fn strip_literal_prefix(field: &Field, prefix: &str) -> Option<Field> {
    let Some(Seg::Lit { text, quoted }) = field.segs.first() else {
        return None;
    };
    let rest = text.strip_prefix(prefix)?;
    let mut segs = Vec::with_capacity(field.segs.len());
    if !rest.is_empty() {
        segs.push(Seg::Lit {
            text: rest.to_string(),
            quoted: *quoted,
        });
    }
    segs.extend(field.segs[1..].iter().cloned());
    (!segs.is_empty()).then_some(Field { segs })
}

/// Where `cp`, `mv`, `install` or `ln` puts what it is given.
pub(crate) struct Placement<'a> {
    /// The destination: the directory named by `-t DIR`,
    /// `--target-directory=DIR` (or any abbreviation GNU accepts, `--t=DIR`)
    /// or `--target-directory DIR`; otherwise the last operand (a file or a
    /// directory); `.` for `ln` given one operand.
    pub dest: Field,
    /// The destination was named as a directory (`-t`, `ln TARGET`).
    pub named_dir: bool,
    /// The sources, each landing in `dest` under its own name when
    /// `dest` is a directory.
    pub sources: Vec<&'a Field>,
}

/// Whether the long option `name` (before any `=`) is an abbreviation of
/// `--target-directory`: `cp`, `mv`, `install` and `ln` have no other long
/// option starting with `t`, so getopt takes `--t`, `--target` and the rest.
fn is_target_directory(name: &str) -> bool {
    name.len() > 2 && "--target-directory".starts_with(name)
}

/// The destination and sources of a copy, move, install or link
/// (`program` one of `cp`, `mv`, `install`, `ln`), whatever way the
/// destination directory is named: `-t DIR`, `-tDIR`, a cluster ending
/// in `t` (`-vt DIR`, `-st DIR`), `--target-directory=DIR`,
/// `--target-directory DIR` and their abbreviations, or the last operand.
/// `None` when nothing is placed (no operand, `cp FILE` alone).
pub(crate) fn placement<'a>(program: &str, args: &'a [Field]) -> Option<Placement<'a>> {
    let (operands, options) = walk_options(program, args);
    // The last destination named wins, as in GNU; a value that cannot be
    // read is still a destination (the option's own word, judged as an
    // unknown directory), not skipped.
    let target = options
        .into_iter()
        .filter(|(name, _)| name == "-t" || is_target_directory(name))
        .rev()
        .find_map(|(_, value)| value);
    if let Some(dest) = target {
        return Some(Placement {
            dest,
            named_dir: true,
            sources: operands,
        });
    }
    match operands.len() {
        0 => None,
        1 if program == "ln" => Some(Placement {
            dest: Field::lit("."),
            named_dir: true,
            sources: operands,
        }),
        1 => None,
        n => Some(Placement {
            dest: operands[n - 1].clone(),
            named_dir: false,
            sources: operands[..n - 1].to_vec(),
        }),
    }
}

/// `dir/NAME` for a source's own name NAME (the name it gets when copied,
/// moved or linked into `dir`); `None` when the source's name is not
/// known (dynamic text, `.`, `..`, a remote `host:path`).
pub(crate) fn inside(dir: &Field, source: &Field) -> Option<Field> {
    let file = source.static_text()?;
    let base = file.trim_end_matches('/').rsplit('/').next().unwrap_or("");
    if base.is_empty() || base == "." || base == ".." || base.contains(':') {
        return None;
    }
    let mut inside = dir.clone();
    inside.segs.push(Seg::Lit {
        text: format!("/{base}"),
        quoted: true,
    });
    Some(inside)
}

impl Analysis<'_> {
    /// Judge what `name` removes (see the module docs). `rm` and `srm` are
    /// judged by place in `rm`; here only as writes.
    pub(crate) fn removals(&mut self, name: &str, args: &[Field], env: &mut Env) {
        if let Some(r) = removal(name, args) {
            self.removed(name, &r, env);
        }
        self.whole_directory_reads(name, args, env);
    }

    /// The directory a name filter or glob narrows (`DIR/**/PAT` of `find
    /// DIR -name PAT`, `DIR/f8*`) when it lies in toolvet's state: there
    /// every file is state, so the filter proves nothing (review s23 R6).
    /// The directory is the part of `abs` before the first pattern
    /// character's segment.
    pub(crate) fn narrowed_state_dir(&self, abs: &str) -> Option<String> {
        let first = abs.find(['*', '?', '[', '{'])?;
        let dir = &abs[..abs[..first].rfind('/')?];
        let dir = if dir.is_empty() { "/" } else { dir };
        self.state
            .guard_rail(dir)
            .is_some_and(|r| r.kind == check_catalog::guardrails::Kind::ToolvetState)
            .then(|| dir.to_string())
    }

    /// Judge the operands of one removal (see [`Analysis::removals`]).
    fn removed(&mut self, name: &str, r: &Removal<'_>, env: &mut Env) {
        for (operand, placed) in r.operands.iter().zip(&r.placed) {
            if self.done() {
                break;
            }
            // `find` judges its own starts (`shell.find-delete`,
            // `shell.rm-dynamic`); `rm` too.
            let own = r.by_place && name != "find";
            let mut claimed = false;
            let place = match self.resolve_target(placed, env, false) {
                Target::Known(place, shown) => Some((place, shown)),
                // A path only known at run time (`tar --remove-files -cf x
                // "$(cat p)"`, `mv "$D" /tmp/x`): as `rm -r` of one, asked
                // about when the program can take a directory away (or
                // destroys the file, `shred -u`). Compressors that replace
                // one file by its archive (`gzip "$f"`) keep the content.
                Target::Dynamic => {
                    if own && (r.dirs || name == "shred") {
                        self.report(
                            false,
                            "shell.rm-dynamic",
                            format!(
                                "`{}` removes `{}`, a path that depends on values only known at run time \
                                 (variables, command output, `cd` to a variable), so the analysis cannot tell \
                                 what it removes. Use a literal path inside the workspace, or a person must approve.",
                                r.how,
                                placed.text()
                            ),
                        );
                    }
                    None
                }
                // A directory an earlier call claims to have created: each
                // rule that would deny it as outside the workspace asks.
                Target::Claimed(shown) => {
                    claimed = true;
                    if own && r.recursive {
                        self.report(
                            false,
                            "shell.rm-dynamic",
                            crate::walk::claimed_reason(&r.how, &shown),
                        );
                    }
                    Some((Place::Outside, shown))
                }
            };
            if r.by_place
                && !claimed
                && let Some((place, shown)) = &place
            {
                let rule = match place {
                    _ if name == "find" && *place != Place::WorkspaceRoot => None,
                    Place::Root => Some("shell.rm-root"),
                    Place::Home => Some("shell.rm-home"),
                    Place::System => Some("shell.rm-system"),
                    Place::WorkspaceRoot if r.dirs => Some("shell.rm-workspace-root"),
                    Place::Outside if r.recursive => Some("shell.rm-outside-workspace"),
                    _ => None,
                };
                if let Some(rule) = rule {
                    self.report_delete(&r.how, rule, place.clone(), shown);
                }
            }
            // Denied by its place already (here, or by `rm`'s and
            // `find`'s own rules): that reason is the one to tell.
            let denied_by_place =
                matches!(place, Some((Place::Root | Place::Home | Place::System, _)))
                    || (r.recursive && !claimed && matches!(place, Some((Place::Outside, _))));
            // Removing a file changes it, as writing it does: judged so
            // for guard rails and credentials (its place was judged above).
            let Some(abs) = self.abs_path(operand, env) else {
                self.unplaced_change(operand, env, &format!("`{}` (removing it)", r.how));
                continue;
            };
            // Inside toolvet's state every file is state, whatever name
            // narrows the removal (review s23 R6: `find STATE/hooks -name
            // 'f8*' -delete`, `rm STATE/hooks/x/f8*`).
            if let Some(dir) = self.narrowed_state_dir(&abs) {
                self.check_write(
                    &Field::lit(dir.clone()),
                    env,
                    &Output::Static(String::new()),
                    &format!("`{}` (removing files in `{dir}`)", r.how),
                    false,
                    0,
                );
                continue;
            }
            if self.state.guard_rail(&abs).is_some()
                || crate::effects::sinks::sensitive_files()
                    .matches_glob(&abs)
                    .is_some()
            {
                self.check_write(
                    operand,
                    env,
                    &Output::Static(String::new()),
                    &format!("`{}` (removing it)", r.how),
                    false,
                    0,
                );
                continue;
            }
            // A directory removed whole takes the guard rails in it
            // along (`rm -rf .claude`, `mv .cursor /tmp/x`, `find
            // ~/.local/state/toolvet -delete`): judged as removing them.
            if r.dirs
                && !denied_by_place
                && let Some((_, guarded)) = self.state.rail_within(&abs)
            {
                self.check_write(
                    &Field::lit(guarded),
                    env,
                    &Output::Static(String::new()),
                    &format!(
                        "`{}` (removing `{}`, which holds it)",
                        r.how,
                        operand.text()
                    ),
                    false,
                    0,
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fields(words: &[&str]) -> Vec<Field> {
        words.iter().map(|w| Field::lit(*w)).collect()
    }

    fn removed(name: &str, words: &[&str]) -> Option<Vec<String>> {
        let args = fields(words);
        removal(name, &args).map(|r| r.operands.iter().map(|f| f.text()).collect())
    }

    #[test]
    fn operands_removed() {
        assert_eq!(removed("mv", &["-f", "~", "/tmp/x"]).unwrap(), ["~"]);
        assert_eq!(
            removed("mv", &["-t", "/tmp", "a", "b"]).unwrap(),
            ["a", "b"]
        );
        assert_eq!(
            removed("tar", &["--remove-files", "-czf", "/tmp/a.tgz", "~"]).unwrap(),
            ["~"]
        );
        assert_eq!(removed("tar", &["czf", "/tmp/a.tgz", "src"]), None);
        assert_eq!(
            removed(
                "tar",
                &["czf", "/tmp/a.tgz", "--remove-files", "src", "docs"]
            )
            .unwrap(),
            ["src", "docs"]
        );
        assert_eq!(
            removed(
                "tar",
                &[
                    "-C",
                    "/home/bob",
                    "--remove-files",
                    "-cf",
                    "/tmp/a.tar",
                    "."
                ]
            )
            .unwrap(),
            [".", "/home/bob"]
        );
        assert_eq!(removed("tar", &["-czf", "a.tgz", "src"]), None);
        assert_eq!(removed("zip", &["-rm", "a.zip", "docs"]).unwrap(), ["docs"]);
        assert_eq!(removed("zip", &["-r", "a.zip", "docs"]), None);
        assert_eq!(removed("7z", &["a", "x.7z", "~", "-sdel"]).unwrap(), ["~"]);
        assert_eq!(
            removed("rsync", &["-a", "--remove-source-files", "~/", "host:/b"]).unwrap(),
            ["~/"]
        );
        assert_eq!(
            removed("shred", &["-n", "3", "-u", "~/.bashrc"]).unwrap(),
            ["~/.bashrc"]
        );
        assert_eq!(removed("gzip", &["-9", "log.txt"]).unwrap(), ["log.txt"]);
        assert_eq!(removed("gzip", &["-k", "log.txt"]), None);
        assert_eq!(removed("zstd", &["log.txt"]), None);
        assert_eq!(removed("zstd", &["--rm", "log.txt"]).unwrap(), ["log.txt"]);
    }

    fn edited(name: &str, words: &[&str]) -> Option<Vec<String>> {
        let args = fields(words);
        edited_in_place(name, &args).map(|f| f.iter().map(|f| f.text()).collect())
    }

    #[test]
    fn files_edited_in_place() {
        assert_eq!(
            edited("sed", &["-i", "s/a/b/", "x.toml"]).unwrap(),
            ["x.toml"]
        );
        assert_eq!(
            edited("sed", &["-i.bak", "-e", "s/a/b/", "a", "b"]).unwrap(),
            ["a", "b"]
        );
        assert_eq!(edited("sed", &["-Ei", "s/a/b/", "x"]).unwrap(), ["x"]);
        assert_eq!(
            edited("sed", &["--in-place", "s/a/b/", "x"]).unwrap(),
            ["x"]
        );
        assert_eq!(edited("sed", &["-n", "s/a/b/p", "x"]), None);
        assert_eq!(
            edited("perl", &["-pi", "-e", "s/a/b/", "x"]).unwrap(),
            ["x"]
        );
        assert_eq!(edited("perl", &["-pie", "s/a/b/", "x"]).unwrap(), ["x"]);
        assert_eq!(edited("perl", &["-ne", "print", "x"]), None);
    }
}
