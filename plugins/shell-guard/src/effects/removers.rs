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
    let mut i = 0;
    while let Some(t) = texts.get(i) {
        if matches!(t.as_str(), "-H" | "-L" | "-P") || t.starts_with("-O") {
            i += 1;
        } else if t == "-D" {
            i += 2;
        } else {
            break;
        }
    }
    let mut starts: Vec<Field> = Vec::new();
    while let Some(t) = texts.get(i) {
        if t.starts_with('-') || matches!(t.as_str(), "(" | "!" | "," | ")") {
            break;
        }
        starts.push(args[i].clone());
        i += 1;
    }
    if starts.is_empty() {
        starts.push(Field::lit("."));
    }
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

/// The gzip-like programs (gzip(1), bzip2(1), xz(1), lzma, brotli(1)):
/// `Some(true)` for a name that decompresses (`gunzip`, `unxz`), `Some(false)`
/// for one that does with `-d`.
fn compressor(name: &str) -> Option<bool> {
    match name {
        "gunzip" | "bunzip2" | "unxz" | "unlzma" | "uncompress" => Some(true),
        "gzip" | "bzip2" | "xz" | "lzma" | "brotli" | "compress" | "pigz" => Some(false),
        _ => None,
    }
}

/// What a gzip-like program writes (review s23 V25): each file operand
/// is replaced (compressed in place, or removed after decompressing,
/// unless `-k`), and when decompressing, the operand without its suffix
/// (`-S SUF`, else the last `.EXT`) is written. `-c`, `-t`, `-l` write
/// nothing but standard output.
fn compressed_outputs(name: &str, args: &[Field]) -> Vec<(Field, bool)> {
    let texts: Vec<String> = args.iter().map(Field::text).collect();
    let short = |t: &str, c: char| t.starts_with('-') && !t.starts_with("--") && t[1..].contains(c);
    let any = |c: char, long: &[&str]| {
        texts
            .iter()
            .any(|t| short(t, c) || long.contains(&t.as_str()))
    };
    if any('c', &["--stdout", "--to-stdout"]) || any('t', &["--test"]) || any('l', &["--list"]) {
        return Vec::new();
    }
    let decompress = compressor(name) == Some(true) || any('d', &["--decompress", "--uncompress"]);
    let keep = any('k', &["--keep"]);
    let mut suffix: Option<String> = None;
    let mut operands = Vec::new();
    let mut i = 0;
    let mut ended = false;
    while let Some(t) = texts.get(i) {
        if ended || !t.starts_with('-') || t == "-" {
            if t != "-" {
                operands.push(&args[i]);
            }
        } else if t == "--" {
            ended = true;
        } else if t == "-S" || t == "--suffix" {
            suffix = texts.get(i + 1).cloned();
            i += 1;
        } else if let Some(v) = t.strip_prefix("--suffix=").or_else(|| t.strip_prefix("-S")) {
            suffix = Some(v.to_string());
        }
        i += 1;
    }
    let mut out = Vec::new();
    for f in operands {
        if !keep {
            out.push((f.clone(), true));
        }
        if decompress {
            let t = f.text();
            let stripped = match &suffix {
                Some(s) if t.ends_with(s.as_str()) => Some(t[..t.len() - s.len()].to_string()),
                _ => t
                    .rfind('.')
                    .filter(|&d| d > t.rfind('/').map_or(0, |s| s + 1))
                    .map(|d| t[..d].to_string()),
            };
            match (stripped, f.is_dynamic()) {
                (Some(s), false) => out.push((Field::lit(s), true)),
                // A name only known at run time: written beside it.
                _ => out.push((f.clone(), true)),
            }
        }
    }
    out
}

/// The files a program writes as its output operands, besides
/// redirections, `tee`, copies and in-place edits: `dd of=FILE`, the
/// operands of `truncate`, the file `patch` patches (its first operand)
/// and its `-o FILE`. Each comes with whether the write replaces the
/// file's content (`dd conv=notrunc` and `patch` do not).
fn output_files(name: &str, args: &[Field]) -> Vec<(Field, bool)> {
    let mut out = Vec::new();
    match name {
        "dd" => {
            let notrunc = args.iter().any(|a| {
                a.text()
                    .strip_prefix("conv=")
                    .is_some_and(|c| c.split(',').any(|v| v == "notrunc"))
            });
            for a in args {
                if let Some(f) = strip_literal_prefix(a, "of=") {
                    out.push((f, !notrunc));
                }
            }
        }
        "truncate" => {
            let mut i = 0;
            let mut ended = false;
            while let Some(a) = args.get(i) {
                let t = a.text();
                if ended || !t.starts_with('-') || t == "-" {
                    out.push((a.clone(), true));
                } else if t == "--" {
                    ended = true;
                } else if matches!(t.as_str(), "-s" | "-r" | "--size" | "--reference") {
                    i += 1;
                }
                i += 1;
            }
        }
        // bash `history -w|-a FILE` writes the history to FILE (review
        // s23 V3).
        "history" => {
            let writes = args.iter().any(|a| {
                let t = a.text();
                t.starts_with('-') && t[1..].contains(['w', 'a'])
            });
            if writes && let Some(f) = args.iter().find(|a| !a.text().starts_with('-')) {
                out.push((f.clone(), true));
            }
        }
        // `uudecode -o FILE` (sharutils uudecode(1)); the header's path is
        // judged by `Analysis::uudecode_header`.
        "uudecode" => {
            let mut i = 0;
            while let Some(a) = args.get(i) {
                if a.text() == "-o" || a.text() == "--output-file" {
                    out.extend(args.get(i + 1).map(|f| (f.clone(), true)));
                    i += 1;
                } else if let Some(f) = strip_literal_prefix(a, "--output-file=")
                    .or_else(|| strip_literal_prefix(a, "-o"))
                {
                    out.push((f, true));
                }
                i += 1;
            }
        }
        n if compressor(n).is_some() => out.extend(compressed_outputs(n, args)),
        "patch" | "gpatch" => {
            // `-d DIR`: patch works in DIR, so relative files are there.
            let mut dir: Option<Field> = None;
            let mut i = 0;
            let mut operands = 0;
            let mut ended = false;
            while let Some(a) = args.get(i) {
                let t = a.text();
                if ended || !t.starts_with('-') || t == "-" {
                    if operands == 0 {
                        out.push((a.clone(), false));
                    }
                    operands += 1;
                } else if t == "--" {
                    ended = true;
                } else if t == "-o" || t == "--output" {
                    if let Some(f) = args.get(i + 1) {
                        out.push((f.clone(), true));
                    }
                    i += 1;
                } else if let Some(f) = strip_literal_prefix(a, "--output=") {
                    out.push((f, true));
                } else if let Some(f) = strip_literal_prefix(a, "-o") {
                    out.push((f, true));
                } else if t == "-d" || t == "--directory" {
                    dir = args.get(i + 1).cloned();
                    i += 1;
                } else if let Some(d) = strip_literal_prefix(a, "--directory=")
                    .or_else(|| strip_literal_prefix(a, "-d"))
                {
                    dir = Some(d);
                } else if matches!(
                    t.as_str(),
                    "-i" | "--input"
                        | "-p"
                        | "-d"
                        | "--directory"
                        | "-r"
                        | "--reject-file"
                        | "-B"
                        | "--prefix"
                        | "-D"
                        | "--ifdef"
                        | "-F"
                        | "--fuzz"
                        | "-V"
                        | "-z"
                        | "--suffix"
                        | "-Y"
                        | "-g"
                ) {
                    i += 1;
                }
                i += 1;
            }
            if let Some(d) = dir {
                for (f, _) in &mut out {
                    let relative =
                        !f.text().starts_with('/') && !matches!(f.segs.first(), Some(Seg::Home(_)));
                    if relative {
                        let mut segs = d.segs.clone();
                        segs.push(Seg::Lit {
                            text: "/".to_string(),
                            quoted: true,
                        });
                        segs.extend(f.segs.iter().cloned());
                        *f = Field { segs };
                    }
                }
            }
        }
        _ => {}
    }
    out
}

/// The directories a program writes files into whose names it does not
/// give (the names come from an archive, a source tree or a pattern):
/// `tar -x -C DIR` (`.` without `-C`), `unzip -d DIR` (`.` without),
/// `7z x -oDIR`, `git clone URL DIR`, the destination of `cp -r`/`cp -a`
/// and of `rsync -r`/`-a`, and of `cp`/`mv`/`rsync` given a pattern as a
/// source. Whatever guard rail DIR is or holds is written (see
/// `StatePaths::rail_within`).
pub(crate) fn written_dirs(name: &str, args: &[Field]) -> Vec<Field> {
    let texts: Vec<String> = args.iter().map(Field::text).collect();
    let mut dirs = Vec::new();
    match name {
        "tar" | "gtar" | "bsdtar" => {
            let extracts = texts.iter().enumerate().any(|(k, t)| {
                t == "--extract"
                    || t == "--get"
                    || (t.starts_with('-') && !t.starts_with("--") && t.contains('x'))
                    || (k == 0 && !t.starts_with('-') && t.contains('x'))
            });
            if !extracts {
                return dirs;
            }
            // `-P`/`--absolute-names`: member names are kept absolute (and
            // `--transform` may make them so): the files land anywhere
            // (review s23 V15).
            let absolute = texts.iter().enumerate().any(|(k, t)| {
                t == "--absolute-names"
                    || (t.starts_with('-') && !t.starts_with("--") && t.contains('P'))
                    || (k == 0 && !t.starts_with('-') && t.contains('P'))
            });
            if absolute {
                dirs.push(Field::lit("/"));
                return dirs;
            }
            let mut dir = Field::lit(".");
            for (k, t) in texts.iter().enumerate() {
                if t == "-C" || t == "--directory" {
                    if let Some(d) = args.get(k + 1) {
                        dir = d.clone();
                    }
                } else if let Some(d) = strip_literal_prefix(&args[k], "--directory=")
                    .or_else(|| strip_literal_prefix(&args[k], "-C"))
                {
                    dir = d;
                }
            }
            dirs.push(dir);
        }
        // Extractors whose member names come from the archive, into the
        // directory an option names (review s23 V25): `cpio -i -D DIR`
        // (`--absolute-filenames`: anywhere), `dpkg-deb -x|-X|-R ARCHIVE
        // DIR` (also `dpkg -x`), `ar x --output=DIR`, `unar -o DIR`,
        // `unsquashfs -d DIR`, `patch -d DIR` reading file names from the
        // patch.
        "cpio" => {
            if texts.iter().any(|t| t == "--absolute-filenames") {
                dirs.push(Field::lit("/"));
            }
            dirs.extend(option_value(args, &["-D", "--directory"]));
        }
        "dpkg-deb" | "dpkg" => {
            if let Some(k) = texts.iter().position(|t| {
                matches!(
                    t.as_str(),
                    "-x" | "--extract" | "-X" | "--vextract" | "-R" | "--raw-extract"
                )
            }) {
                let operands: Vec<&Field> = args[k + 1..]
                    .iter()
                    .filter(|a| !a.text().starts_with('-'))
                    .collect();
                dirs.extend(operands.get(1).map(|d| (*d).clone()));
            }
        }
        "ar" => dirs.extend(option_value(args, &["--output"])),
        "unar" => dirs.extend(option_value(
            args,
            &["-o", "-output-directory", "--output-directory"],
        )),
        "unsquashfs" => dirs.extend(option_value(args, &["-d", "-dest"])),
        "patch" | "gpatch" => {
            const VALUED: &[&str] = &[
                "-d",
                "--directory",
                "-i",
                "--input",
                "-p",
                "-o",
                "--output",
                "-r",
                "--reject-file",
                "-B",
                "--prefix",
                "-D",
                "--ifdef",
                "-F",
                "--fuzz",
                "-V",
                "-z",
                "--suffix",
                "-Y",
                "-g",
            ];
            let mut operand = false;
            let mut i = 0;
            while let Some(t) = texts.get(i) {
                if VALUED.contains(&t.as_str()) {
                    i += 1;
                } else if !t.starts_with('-') {
                    operand = true;
                }
                i += 1;
            }
            if !operand {
                dirs.extend(option_value(args, &["-d", "--directory"]));
            }
        }
        "unzip" => {
            // Without `-d`, into the working directory; `-l`, `-t`, `-p`,
            // `-v` list, test or print only.
            let reads_only = texts.iter().any(|t| {
                t.starts_with('-')
                    && !t.starts_with("--")
                    && t[1..].contains(['l', 't', 'p', 'v', 'Z'])
            });
            match texts.iter().position(|t| t == "-d") {
                Some(k) => dirs.extend(args.get(k + 1).cloned()),
                None if !reads_only => dirs.push(Field::lit(".")),
                None => {}
            }
        }
        "7z" | "7za" | "7zz" | "7zr" => {
            // `7z x ARCHIVE -oDIR` (or `e`): into DIR, else here.
            if matches!(texts.first().map(String::as_str), Some("x" | "e")) {
                let out = args.iter().find_map(|a| strip_literal_prefix(a, "-o"));
                dirs.push(out.unwrap_or_else(|| Field::lit(".")));
            }
        }
        "git" => {
            // `git clone [options] URL [DIR]`: DIR, when given, is filled
            // with the repository's files (`git clone URL .claude`).
            if let Some(k) = texts.iter().position(|t| t == "clone") {
                let mut operands = Vec::new();
                let mut i = k + 1;
                while let Some(t) = texts.get(i) {
                    if t == "--" {
                        operands.extend(args[i + 1..].iter());
                        break;
                    }
                    if t.starts_with('-') {
                        let value = matches!(
                            t.as_str(),
                            "-b" | "--branch"
                                | "-o"
                                | "--origin"
                                | "-c"
                                | "--config"
                                | "--depth"
                                | "--reference"
                                | "--reference-if-able"
                                | "--separate-git-dir"
                                | "-u"
                                | "--upload-pack"
                                | "--template"
                                | "-j"
                                | "--jobs"
                                | "--filter"
                                | "--shallow-since"
                                | "--shallow-exclude"
                                | "--server-option"
                                | "--bundle-uri"
                                | "--ref-format"
                        );
                        i += if value { 2 } else { 1 };
                        continue;
                    }
                    operands.push(&args[i]);
                    i += 1;
                }
                if let Some(dir) = operands.get(1) {
                    dirs.push((*dir).clone());
                }
            }
            // `git worktree add [options] PATH [COMMIT]` checks the
            // repository's files out into PATH; `git init [options] [DIR]`
            // makes DIR and its `.git` (review s23 V8: `git worktree add
            // ~/.config/autostart`, `git init ~/.ssh`).
            let sub = texts.iter().position(|t| t == "worktree" || t == "init");
            let (from, values): (Option<usize>, &[&str]) = match sub {
                Some(k)
                    if texts[k] == "worktree"
                        && texts.get(k + 1).map(String::as_str) == Some("add") =>
                {
                    (Some(k + 2), &["-b", "-B", "--reason"])
                }
                Some(k) if texts[k] == "init" => (
                    Some(k + 1),
                    &[
                        "--template",
                        "--separate-git-dir",
                        "-b",
                        "--initial-branch",
                        "--object-format",
                        "--ref-format",
                    ],
                ),
                _ => (None, &[]),
            };
            if let Some(mut i) = from {
                while let Some(t) = texts.get(i) {
                    if t == "--" {
                        dirs.extend(args.get(i + 1).cloned());
                        break;
                    }
                    if t.starts_with('-') {
                        i += if values.contains(&t.as_str()) { 2 } else { 1 };
                        continue;
                    }
                    dirs.push(args[i].clone());
                    break;
                }
            }
        }
        "cp" => {
            let recursive = texts.iter().any(|t| {
                matches!(t.as_str(), "--recursive" | "--archive")
                    || (t.starts_with('-')
                        && !t.starts_with("--")
                        && t[1..].contains(['r', 'R', 'a']))
            });
            if let Some(place) = placement(name, args) {
                let unknown_names = place
                    .sources
                    .iter()
                    .any(|f| check_catalog::pattern::is_pattern(&f.text()));
                if recursive || unknown_names {
                    dirs.push(place.dest.clone());
                }
                // A directory copied whole lands in DIR under its own
                // name with every file it holds (`cp -r evil/.claude .`
                // writes `./.claude`, and so its settings).
                if recursive {
                    dirs.extend(place.sources.iter().filter_map(|s| inside(&place.dest, s)));
                }
            }
        }
        "rsync" => {
            let recursive = texts.iter().any(|t| {
                matches!(t.as_str(), "--recursive" | "--archive")
                    || (t.starts_with('-')
                        && !t.starts_with("--")
                        && t[1..].contains(['r', 'R', 'a']))
            });
            let operands: Vec<&Field> =
                args.iter().filter(|a| !a.text().starts_with('-')).collect();
            // A source that is a pattern puts files of unknown names into
            // the destination too (`cp dir/* .claude/`).
            let unknown_names = operands.len() > 1
                && operands[..operands.len() - 1]
                    .iter()
                    .any(|f| check_catalog::pattern::is_pattern(&f.text()));
            if (recursive || unknown_names)
                && operands.len() > 1
                && let Some(last) = operands.last()
            {
                dirs.push((*last).clone());
            }
        }
        "mv" => {
            if let Some(place) = placement(name, args) {
                if place
                    .sources
                    .iter()
                    .any(|f| check_catalog::pattern::is_pattern(&f.text()))
                {
                    dirs.push(place.dest.clone());
                }
                // Any source may be a directory, moved with all it holds:
                // into DIR under its own name (`mv evil/.claude .`), or
                // renamed to the destination itself (`mv evil .claude`).
                if !place.named_dir {
                    dirs.push(place.dest.clone());
                }
                dirs.extend(place.sources.iter().filter_map(|s| inside(&place.dest, s)));
            }
        }
        _ => {}
    }
    dirs
}

/// The operands a program reads whole, descending into directories:
/// what `tar -c`/`-r`/`-u` (relative to its `-C DIR`), `zip -r`, `7z a`,
/// `cp -r`/`-a`, `rsync -r`/`-a`, `scp -r`, `grep -r`/`-R`, `rgrep`, `rg`
/// and `ag` read, with whether the program reads hidden files (`rg` and
/// `ag` skip them unless told).
fn whole_reads(name: &str, args: &[Field]) -> (Vec<Field>, bool) {
    let texts: Vec<String> = args.iter().map(Field::text).collect();
    let short = |letters: &[char]| {
        texts
            .iter()
            .any(|t| t.starts_with('-') && !t.starts_with("--") && t[1..].contains(letters))
    };
    let long = |names: &[&str]| texts.iter().any(|t| names.contains(&t.as_str()));
    let sources = |operands: Vec<&Field>| -> Vec<Field> {
        let n = operands.len().saturating_sub(1);
        operands.into_iter().take(n).cloned().collect()
    };
    let plain = || -> Vec<&Field> { args.iter().filter(|a| !a.text().starts_with('-')).collect() };
    match name {
        "tar" | "gtar" | "bsdtar" => {
            let (operands, options) = tar_old_style(args).unwrap_or_else(|| split("tar", args));
            let creates = options.iter().any(|o| {
                matches!(
                    o.as_str(),
                    "-c" | "-r" | "-u" | "--create" | "--append" | "--update"
                )
            });
            if !creates || long(&["--no-recursion"]) {
                return (Vec::new(), true);
            }
            let dir = texts
                .iter()
                .position(|t| t == "-C" || t == "--directory")
                .and_then(|k| args.get(k + 1).cloned())
                .or_else(|| {
                    args.iter()
                        .find_map(|a| strip_literal_prefix(a, "--directory="))
                });
            let operands = operands
                .into_iter()
                .map(|f| match &dir {
                    Some(d)
                        if !f.text().starts_with('/')
                            && !matches!(f.segs.first(), Some(Seg::Home(_))) =>
                    {
                        let mut segs = d.segs.clone();
                        segs.push(Seg::Lit {
                            text: "/".to_string(),
                            quoted: true,
                        });
                        segs.extend(f.segs.iter().cloned());
                        Field { segs }
                    }
                    _ => f.clone(),
                })
                .collect();
            (operands, true)
        }
        "zip" if short(&['r', 'R']) || long(&["--recurse-paths"]) => {
            let (operands, _) = split(name, args);
            (operands.into_iter().skip(1).cloned().collect(), true)
        }
        "7z" | "7za" | "7zz" | "7zr" if texts.first().is_some_and(|t| t == "a") => {
            let (operands, _) = split(name, args);
            (operands.into_iter().skip(2).cloned().collect(), true)
        }
        "cp" if short(&['r', 'R', 'a']) || long(&["--recursive", "--archive"]) => {
            (sources(plain()), true)
        }
        "rsync" if short(&['r', 'a']) || long(&["--recursive", "--archive"]) => {
            let (operands, _) = split(name, args);
            (sources(operands), true)
        }
        "scp" if short(&['r']) => (sources(plain()), true),
        "grep" | "egrep" | "fgrep" | "rgrep" | "rg" | "ag" => {
            let recursive = matches!(name, "rgrep" | "rg" | "ag")
                || short(&['r', 'R'])
                || long(&["--recursive", "--dereference-recursive"]);
            if !recursive {
                return (Vec::new(), true);
            }
            let pattern_given = texts.iter().any(|t| {
                matches!(t.as_str(), "-e" | "-f" | "--regexp" | "--file")
                    || t.starts_with("--regexp=")
                    || t.starts_with("--file=")
            });
            let mut operands = plain();
            if !pattern_given && !operands.is_empty() {
                operands.remove(0);
            }
            let hidden = !matches!(name, "rg" | "ag")
                || long(&["--hidden", "-uu", "-uuu", "--no-ignore", "-."]);
            let mut operands: Vec<Field> = operands.into_iter().cloned().collect();
            if operands.is_empty() {
                operands.push(Field::lit("."));
            }
            (operands, hidden)
        }
        "find" => {
            // `find START … -exec cat {} +`: a reader given every file
            // below the starts.
            let reads = texts.iter().enumerate().any(|(k, t)| {
                matches!(t.as_str(), "-exec" | "-execdir" | "-ok" | "-okdir")
                    && texts.get(k + 1).is_some_and(|c| {
                        EXEC_READERS.contains(&crate::walk::commands::base_name(c).as_str())
                    })
            });
            if !reads {
                return (Vec::new(), true);
            }
            let starts: Vec<Field> = args
                .iter()
                .skip_while(|a| matches!(a.text().as_str(), "-H" | "-L" | "-P"))
                .take_while(|a| {
                    let t = a.text();
                    !t.starts_with('-') && !matches!(t.as_str(), "(" | "!" | "," | ")")
                })
                .cloned()
                .collect();
            if starts.is_empty() {
                (vec![Field::lit(".")], true)
            } else {
                (starts, true)
            }
        }
        _ => (Vec::new(), true),
    }
}

/// Programs that print or copy the files `find -exec` hands them.
const EXEC_READERS: &[&str] = &[
    "cat", "tac", "head", "tail", "less", "more", "bat", "strings", "xxd", "od", "hexdump",
    "base64", "base32", "cp", "tar", "zip", "grep", "egrep", "rg", "awk", "sed", "nl", "gzip",
    "openssl", "curl", "scp",
];

impl Analysis<'_> {
    /// A hard link (`ln SRC LINK`, `link SRC LINK`, `cp -l SRC LINK`) is a
    /// second name of its source that later calls cannot see through (no
    /// symbolic link to resolve): whatever the new name is then used for
    /// reads or writes the source. A source that is a credential file or
    /// one of toolvet's keys is judged as read (`shell.read-credentials`);
    /// one that is a guard rail or toolvet's state, as written
    /// (`shell.guardrail-write`, `shell.toolvet-state`).
    pub(crate) fn hard_links(&mut self, name: &str, args: &[Field], env: &mut Env) {
        let (operands, options) = split(name, args);
        if !makes_hard_links(name, &options) || operands.is_empty() {
            return;
        }
        // `ln SRC` links SRC into the working directory; otherwise the last
        // operand is the link or the directory it goes in (`-t DIR`
        // is an option's value and not an operand).
        let sources = if operands.len() == 1
            || options
                .iter()
                .any(|o| o == "-t" || o == "--target-directory")
        {
            &operands[..]
        } else {
            &operands[..operands.len() - 1]
        };
        for src in sources {
            if self.done() {
                return;
            }
            if let Some(label) = self.sensitive_label(src, env) {
                self.report(
                    true,
                    "shell.read-credentials",
                    format!(
                        "`{name}` makes a hard link to `{}`, {label}: a second name for it that later reads \
                         cannot tell apart. Credentials must not be read, copied or linked; let the program that \
                         needs them use them in place, or ask the user for what you need.",
                        src.text()
                    ),
                );
                return;
            }
            let Some(abs) = self.abs_path(src, env) else {
                continue;
            };
            // `cp -al DIR`: every file DIR holds gets a second name.
            let whole_dir = name == "cp"
                && options.iter().any(|o| {
                    matches!(o.as_str(), "-a" | "-r" | "-R" | "--archive" | "--recursive")
                });
            if whole_dir
                && self.state.guard_rail(&abs).is_none()
                && let Some((rail, inner)) = self.state.rail_within(&abs)
            {
                let inner_field = Field::lit(inner);
                let via = format!(
                    "`cp -l` of `{}` (hard links: second names for the files it holds, {})",
                    src.text(),
                    rail.label
                );
                self.check_write(&inner_field, env, &Output::Unknown, &via, false, 0);
                continue;
            }
            if self.state.guard_rail(&abs).is_some() {
                let via = format!(
                    "`{name}` (a hard link: a second name for the file that later writes change)"
                );
                self.check_write(src, env, &Output::Unknown, &via, false, 0);
            }
        }
    }

    /// A symbolic link (`ln -s`, `cp -s`, `cp -rs`) passes only when it
    /// proves (review s22 R1): *each target is literal text, and the place
    /// it names — relative to the link's directory, or to the working
    /// directory for `ln -r`, in every place the link may be made — neither
    /// is nor lies under nor holds any of toolvet's state or secret paths
    /// or a guard rail, and is not the home or a directory above it*. Every
    /// other link is held (`shell.symlink-target`): a link to the home, to
    /// `..` from the workspace or to `/` reaches toolvet's files by a path
    /// the checks of later calls (and later sessions, which do not see this
    /// command) read as an ordinary workspace path; a computed target
    /// (`"$(dirname "$PWD")"`, `"$OLDPWD"`) cannot be placed at all.
    fn symlink_targets(&mut self, name: &str, args: &[Field], env: &mut Env) {
        if !matches!(name, "ln" | "cp") || !crate::walk::makes_symlinks(name, args) {
            return;
        }
        let hold = |this: &mut Self, why: String| {
            this.report(
                false,
                "shell.symlink-target",
                format!(
                    "`{name}` makes a symbolic link {why}. A link may point only at a literal place that holds \
                     none of toolvet's files or guard rails; a person must approve this one."
                ),
            );
        };
        let Some(place) = placement(name, args) else {
            hold(self, "whose operands cannot be read".to_string());
            return;
        };
        let relative = name == "ln" && crate::walk::ln_relative(args);
        // Where a relative target is resolved: the link's directory (the
        // destination when it is, or may be, a directory; else its
        // parent), or the working directory for `ln -r`.
        let dest = self.abs_path(&place.dest, env);
        let mut dirs: Vec<String> = Vec::new();
        if let Some(d) = &dest {
            dirs.push(d.clone());
            if !place.named_dir
                && let Some((parent, _)) = d.rsplit_once('/')
            {
                dirs.push(if parent.is_empty() {
                    "/".into()
                } else {
                    parent.into()
                });
            }
        }
        for source in &place.sources {
            if self.done() {
                return;
            }
            let shown = source.text();
            let Some(text) = source.static_text().or_else(|| {
                (crate::walk::source_is_home(source)).then(|| self.abs_path(source, env))?
            }) else {
                hold(
                    self,
                    format!("to `{shown}`, a target computed when the command runs"),
                );
                return;
            };
            let targets: Vec<String> =
                if text.starts_with('/') || crate::walk::source_is_home(source) || relative {
                    self.abs_path(source, env).into_iter().collect()
                } else {
                    dirs.iter()
                        .map(|d| self.through_symlinks(paths::resolve(d, &text)))
                        .collect()
                };
            if targets.is_empty() {
                hold(self, format!("to `{shown}`, whose place is not known"));
                return;
            }
            for target in targets {
                let above_home = paths::is_home_dir(&target, self.home.as_deref())
                    || matches!(target.as_str(), "/" | "/home" | "/Users")
                    || self
                        .home
                        .as_deref()
                        .is_some_and(|h| paths::is_at_or_under(h, &target));
                let holds = self.state.rail_within(&target).is_some()
                    || self.state.secret_within(&target).is_some();
                if above_home || holds {
                    hold(
                        self,
                        format!(
                            "to `{shown}` (`{target}`), which {}",
                            if above_home {
                                "is the home or a directory above it"
                            } else {
                                "is or holds toolvet's state or a guard rail"
                            }
                        ),
                    );
                    return;
                }
            }
        }
    }

    /// `sed -i` and `perl -i` write the files they edit, and `dd of=`,
    /// `truncate` and `patch` their output files (`output_files`): judged
    /// as writes onto them (guard rails, toolvet's state, credentials,
    /// system files).
    /// `ln` writes the link it makes when that is a guard rail's path.
    /// A hard link's sources are judged by [`Self::hard_links`].
    pub(crate) fn in_place_edits(&mut self, name: &str, args: &[Field], env: &mut Env) {
        self.hard_links(name, args, env);
        self.symlink_targets(name, args, env);
        if self.done() {
            return;
        }
        if name == "ln" {
            // A link made at a guard rail's path is a write onto it
            // (`ln -sf /tmp/mine.json .claude/settings.json`), and so is
            // one made in a directory under a guard rail's name (`ln -s -t
            // .claude /tmp/settings.json`, `ln -s /tmp/settings.json
            // .claude/`); a link named like a directory holding guard
            // rails replaces them (`ln -s /tmp/evil/.claude .`).
            let Some(place) = placement(name, args) else {
                return;
            };
            let mut links: Vec<Field> = place
                .sources
                .iter()
                .filter_map(|s| inside(&place.dest, s))
                .collect();
            if !place.named_dir {
                links.push(place.dest.clone());
            }
            for link in links {
                if self.done() {
                    return;
                }
                let Some(abs) = self.abs_path(&link, env) else {
                    continue;
                };
                if self.state.guard_rail(&abs).is_some() {
                    self.check_write(&link, env, &Output::Unknown, "`ln`", false, 0);
                } else if let Some((_, guarded)) = self.state.rail_within(&abs) {
                    self.check_write(
                        &Field::lit(guarded),
                        env,
                        &Output::Unknown,
                        &format!("`ln` (a link named `{}`)", link.text()),
                        false,
                        0,
                    );
                }
            }
            return;
        }
        for (file, truncates) in output_files(name, args) {
            if self.done() {
                return;
            }
            self.check_write(
                &file,
                env,
                &Output::Unknown,
                &format!("`{name}`"),
                truncates,
                0,
            );
        }
        for dir in written_dirs(name, args) {
            if self.done() {
                return;
            }
            let deletes = name == "rsync" && args.iter().any(|a| a.text().starts_with("--del"));
            self.fills_dir(name, &dir, env, deletes);
        }
        let Some(files) = edited_in_place(name, args) else {
            return;
        };
        for file in files {
            if self.done() {
                break;
            }
            self.check_write(
                file,
                env,
                &Output::Unknown,
                &format!("`{name} -i`"),
                false,
                0,
            );
        }
    }

    /// Files of unknown names written into DIR by `name`: a write onto
    /// every guard rail DIR is, lies in or holds (`tar -x -C .claude`, `cp
    /// -r dir/. .claude/`, `git clone URL .`, into a workspace holding the
    /// policy). `deletes`: the program also deletes what DIR holds
    /// (`rsync --delete`, judged as deleting a home rather than writing).
    pub(crate) fn fills_dir(&mut self, name: &str, dir: &Field, env: &mut Env, deletes: bool) {
        let Some(abs) = self.abs_path(dir, env) else {
            return;
        };
        // A home directory (or one above it) holds the user's shell
        // start-up files and agent settings (`~/.bashrc`,
        // `~/.claude/settings.json`) by definition.
        let home_rail = self
            .home
            .clone()
            .or_else(|| crate::paths::home_of(&abs))
            .filter(|h| !deletes && crate::paths::is_at_or_under(h, &abs))
            .map(|h| format!("{h}/.bashrc"));
        let sensitive = crate::effects::sinks::sensitive_files();
        if home_rail.is_none()
            && (sensitive.matches(&abs).is_some()
                || sensitive.matches_glob(&format!("{abs}/*")).is_some())
        {
            // A credential directory (`~/.ssh`, `~/.aws`) filled with files
            // of unknown names: `authorized_keys` may be one (review s23 V17:
            // `git worktree add --force ~/.ssh`).
            self.report(
                true,
                "shell.guardrail-write",
                format!(
                    "`{name}` writes files of unknown names into `{}`, which holds credentials. Do not change \
                     credentials; ask the user.",
                    dir.text()
                ),
            );
            return;
        }
        if let Some(guarded) = home_rail.or_else(|| self.state.rail_within(&abs).map(|(_, g)| g)) {
            self.check_write(
                &Field::lit(guarded),
                env,
                &Output::Unknown,
                &format!(
                    "`{name}` (writing files of unknown names into `{}`)",
                    dir.text()
                ),
                true,
                0,
            );
        }
    }

    /// Directories read whole ([`whole_reads`]): one that holds one of
    /// toolvet's keys (`tar c ~/.local/state/toolvet`, `cp -r
    /// ~/.local/state /tmp/x`, `grep -r . ~/.local`), or a home directory
    /// (or `/`, `/home`) whole, which holds the user's SSH keys and cloud
    /// credentials, is a credential read (`shell.read-credentials`).
    pub(crate) fn whole_directory_reads(&mut self, name: &str, args: &[Field], env: &Env) {
        let (operands, hidden) = whole_reads(name, args);
        for f in &operands {
            let Some(abs) = self.abs_path(f, env) else {
                continue;
            };
            // `rg` skips hidden files and directories unless told.
            let key = self.state.secret_within(&abs).filter(|key| {
                hidden
                    || !key
                        .strip_prefix(abs.as_str())
                        .unwrap_or("")
                        .split('/')
                        .any(|s| s.starts_with('.'))
            });
            let what = if let Some(key) = key {
                format!(
                    "`{key}`, one of toolvet's keys (whoever reads it can forge approvals or history)"
                )
            } else if hidden
                && (abs == "/"
                    || crate::paths::SYSTEM_DIRS[..2].contains(&abs.as_str())
                    || crate::paths::is_home_dir(&abs, self.home.as_deref()))
            {
                "a home directory's SSH keys and cloud credentials".to_string()
            } else {
                continue;
            };
            self.report(
                true,
                "shell.read-credentials",
                format!(
                    "`{name}` reads `{}` whole, which holds {what}. Credentials must not be read into the \
                     conversation, copied or sent anywhere; name the files the task needs instead.",
                    f.text()
                ),
            );
            return;
        }
    }

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
