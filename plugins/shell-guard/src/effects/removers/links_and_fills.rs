//! What the commands that move, copy, compress or archive files do
//! besides removing: the files they write (`dd of=`, `-o FILE`, a
//! compressor's outputs), the directories they fill with files of unknown
//! names or read whole (and the guard rails those hold), the hard and
//! symbolic links they make, and in-place edits.

use super::*;

/// The gzip-like programs (gzip(1), bzip2(1), xz(1), lzma, brotli(1)):
/// `Some(true)` for a name that decompresses (`gunzip`, `unxz`), `Some(false)`
/// for one that does with `-d`.
/// Also the other front ends writing `NAME` from `NAME.ext` (review s25
/// R11): zstd(1), lz4(1), lzop(1), lzip(1) and plzip, pbzip2, lbzip2,
/// pigz/unpigz.
fn compressor(name: &str) -> Option<bool> {
    match name {
        "gunzip" | "bunzip2" | "unxz" | "unlzma" | "uncompress" | "unzstd" | "unlz4" | "lunzip"
        | "unpigz" => Some(true),
        "gzip" | "bzip2" | "xz" | "lzma" | "brotli" | "compress" | "pigz" | "zstd" | "zstdmt"
        | "pzstd" | "lz4" | "lzop" | "lzip" | "plzip" | "pbzip2" | "lbzip2" => Some(false),
        _ => None,
    }
}

/// The compressors that keep their input unless told (`--rm`, `-U`):
/// zstd(1), lz4(1), lzop(1).
fn keeps_input(name: &str) -> bool {
    matches!(
        name,
        "zstd" | "zstdmt" | "pzstd" | "unzstd" | "lz4" | "unlz4" | "lzop"
    )
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
    let decompress = compressor(name) == Some(true)
        || any('d', &["--decompress", "--uncompress"])
        // lz4 decompresses a lone `.lz4` operand by default.
        || (name == "lz4" && {
            let operands: Vec<&String> = texts.iter().filter(|t| !t.starts_with('-')).collect();
            operands.len() == 1 && operands[0].ends_with(".lz4")
        });
    let keep = any('k', &["--keep"])
        || (keeps_input(name) && !any('U', &["--rm", "--unlink", "--delete"]));
    // `zstd -o F`, `lz4 IN OUT`: the output is named (the writer tables).
    let named_output = keeps_input(name)
        && (texts.iter().any(|t| t == "-o" || t.starts_with("-o"))
            || (name.contains("lz4") && texts.iter().filter(|t| !t.starts_with('-')).count() > 1));
    if named_output && !keep {
        return args
            .iter()
            .filter(|a| !a.text().starts_with('-'))
            .take(1)
            .map(|f| (f.clone(), true))
            .collect();
    } else if named_output {
        return Vec::new();
    }
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
pub(super) fn output_files(name: &str, args: &[Field]) -> Vec<(Field, bool)> {
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
        // `ssh-keygen -f KEY` writes KEY and `KEY.pub` when it makes or
        // changes a key (generating, `-p`, `-c`, `-R`, `-u`; review s25
        // S28); its listing and printing modes only read.
        "ssh-keygen" => {
            let mut file = None;
            let mut reads_only = false;
            let mut i = 0;
            while let Some(a) = args.get(i) {
                let t = a.text();
                i += 1;
                if !t.starts_with('-') || t.starts_with("--") || t.len() < 2 {
                    continue;
                }
                for (k, c) in t[1..].char_indices() {
                    if "lyeiFBLDrQkY".contains(c) {
                        reads_only = true;
                    }
                    if c == 'f' {
                        let rest = &t[1 + k + 1..];
                        file = if rest.is_empty() {
                            i += 1;
                            args.get(i - 1).cloned()
                        } else {
                            strip_literal_prefix(a, &t[..2 + k])
                        };
                        break;
                    }
                    if "tbCNPOaIhnVzsGJKmMSTUwZE".contains(c) {
                        // Takes a value: the rest of the word or the next.
                        if t[1 + k + 1..].is_empty() {
                            i += 1;
                        }
                        break;
                    }
                }
            }
            if !reads_only && let Some(f) = file {
                let mut public = f.clone();
                public.segs.push(Seg::Lit {
                    text: ".pub".to_string(),
                    quoted: true,
                });
                out.push((f, true));
                out.push((public, true));
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
            // `-i` extracts into `-D DIR`, else the working directory
            // (review s25 R10); `-p DIR` copies into DIR.
            let mode = |c: char, long: &str| {
                texts.iter().any(|t| {
                    t == long || (t.starts_with('-') && !t.starts_with("--") && t[1..].contains(c))
                })
            };
            if mode('i', "--extract") {
                dirs.push(
                    option_value(args, &["-D", "--directory"]).unwrap_or_else(|| Field::lit(".")),
                );
            } else if mode('p', "--pass-through") {
                dirs.extend(args.iter().rfind(|a| !a.text().starts_with('-')).cloned());
                dirs.extend(option_value(args, &["-D", "--directory"]));
            } else {
                dirs.extend(option_value(args, &["-D", "--directory"]));
            }
        }
        // Extractors whose default directory is the working one (review s25
        // R10): `ar x` (its key letters, dash or not), `jar xf`/`-x`/
        // `--extract` (`-C DIR`), `pax -r` (member names kept as stored,
        // absolute ones too: anywhere; `-rw SRC… DIR` copies into DIR),
        // `unrar x|e ARCHIVE [DIR/]`, `lha x|e`, `cabextract` (`-d DIR`),
        // `atool -x`/`aunpack`, `dtrx`.
        "jar" => {
            let extracts = texts
                .first()
                .is_some_and(|t| t.trim_start_matches('-').starts_with('x') || t == "--extract")
                || texts.iter().any(|t| t == "--extract" || t == "-x");
            if extracts {
                dirs.push(option_value(args, &["-C", "--dir"]).unwrap_or_else(|| Field::lit(".")));
            }
        }
        "pax" => {
            let short = |c: char| {
                texts
                    .iter()
                    .any(|t| t.starts_with('-') && !t.starts_with("--") && t[1..].contains(c))
            };
            if short('r') && short('w') {
                dirs.extend(args.iter().rfind(|a| !a.text().starts_with('-')).cloned());
            } else if short('r') {
                dirs.push(Field::lit("."));
                dirs.push(Field::lit("/"));
            }
        }
        "unrar" | "lha" | "lzh"
            if texts
                .first()
                .is_some_and(|t| matches!(t.trim_start_matches('-'), "x" | "e")) =>
        {
            dirs.push(Field::lit("."));
            dirs.extend(
                args.iter()
                    .skip(1)
                    .filter(|a| !a.text().starts_with('-') && a.text().ends_with('/'))
                    .cloned(),
            );
        }
        "cabextract" => {
            dirs.push(option_value(args, &["-d", "--directory"]).unwrap_or_else(|| Field::lit(".")))
        }
        "aunpack" | "dtrx" => dirs.push(Field::lit(".")),
        "atool" if texts.iter().any(|t| t == "-x" || t == "--extract") => {
            dirs.push(Field::lit("."));
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
        "ar" => {
            let extracts = texts
                .iter()
                .find(|t| !t.starts_with("--"))
                .is_some_and(|k| k.trim_start_matches('-').contains('x'));
            match option_value(args, &["--output"]) {
                Some(d) => dirs.push(d),
                None if extracts => dirs.push(Field::lit(".")),
                None => {}
            }
        }
        "unar" => dirs.push(
            option_value(args, &["-o", "-output-directory", "--output-directory"])
                .unwrap_or_else(|| Field::lit(".")),
        ),
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
        // `gunzip -N` (`gzip -dN`, pigz): the name stored in the gzip
        // header, in the operand's directory (review s25 R13).
        n if compressor(n).is_some()
            && texts.iter().any(|t| {
                t == "--name"
                    || (t.starts_with('-') && !t.starts_with("--") && t[1..].contains('N'))
            })
            && (compressor(n) == Some(true)
                || texts.iter().any(|t| {
                    t == "--decompress"
                        || t == "--uncompress"
                        || (t.starts_with('-') && !t.starts_with("--") && t[1..].contains('d'))
                })) =>
        {
            for f in args.iter().filter(|a| !a.text().starts_with('-')) {
                dirs.push(prefix_dir_of(f));
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
                        let value = crate::opts::gitopts::CLONE_VALUE_OPTIONS.contains(&t.as_str());
                        i += if value { 2 } else { 1 };
                        continue;
                    }
                    operands.push(&args[i]);
                    i += 1;
                }
                if let Some(dir) = operands.get(1) {
                    dirs.push((*dir).clone());
                } else if let Some(url) = operands.first().and_then(|u| u.static_text()) {
                    // The directory git names after the URL (its last
                    // component without `.git`; review s25 R13: `cd
                    // ~/.config && git clone …/environment.d`).
                    let tail = url
                        .trim_end_matches('/')
                        .trim_end_matches("/.git")
                        .rsplit(['/', ':'])
                        .next()
                        .unwrap_or("")
                        .trim_end_matches(".git")
                        .to_string();
                    if !tail.is_empty() && tail != "." && tail != ".." {
                        dirs.push(Field::lit(tail));
                    }
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

/// The directory of a file operand (`d/f.gz` → `d`, `f.gz` → `.`).
fn prefix_dir_of(f: &Field) -> Field {
    match f.static_text() {
        Some(t) => match t.rfind('/') {
            Some(0) => Field::lit("/"),
            Some(i) => Field::lit(&t[..i]),
            None => Field::lit("."),
        },
        None => {
            let mut d = f.clone();
            d.segs.push(Seg::Lit {
                text: "/..".to_string(),
                quoted: true,
            });
            d
        }
    }
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
        // GNU `diff -r EMPTY DIR` (or `diff DIR1 DIR2`, `-N`) prints every
        // file below its directory operands (review s24 R6).
        "diff" | "colordiff" | "gdiff" => (plain().into_iter().cloned().collect(), true),
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
        self.backup_writes(name, args, env);
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
                    self.unplaced_change(&link, env, "`ln`");
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
}
