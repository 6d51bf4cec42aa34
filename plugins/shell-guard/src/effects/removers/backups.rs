//! Backup copies (review s25 R12): programs that keep the file they
//! replace under a name made of the target and a suffix the command
//! chooses write that name too, with the old content the agent may have
//! planted one command earlier under a name that is no guard rail (`cp
//! X ~/.claude/settings && cp -b -S .json Y ~/.claude/settings` renames
//! the first copy to `~/.claude/settings.json`). The written name never
//! appears as one word, so it is built here and judged as any write:
//!
//! - `cp`, `mv`, `install`, `ln` with `-b`/`--backup[=CONTROL]` or
//!   `-S`/`--suffix` (GNU: a suffix alone makes backups): TARGET+SUFFIX,
//!   the suffix from `-S`, else `SIMPLE_BACKUP_SUFFIX`, else `~`; and the
//!   numbered `TARGET.~N~` whatever `--backup`/`VERSION_CONTROL` say
//!   (`existing`, the default, picks either);
//! - `sed -i[SUFFIX]`/`--in-place[=SUFFIX]`, `perl`/`ruby -i[SUFFIX]`:
//!   NAME+SUFFIX, or, when the suffix holds `*`, the suffix with each `*`
//!   replaced by the file's name as given (GNU sed 4.9 and perl: `-i'bak/*'`
//!   on `d/f` writes `bak/d/f`) or by its base name in its directory (the
//!   reading of GNU sed's manual); gawk's `-i inplace` with
//!   `INPLACE_SUFFIX`/`inplace::suffix`;
//! - `rsync` with `-b`/`--backup`/`--suffix`: TARGET+SUFFIX (`~` by
//!   default; `--backup-dir` is judged as a directory filled);
//! - `patch`, which backs a file up whenever a hunk does not match
//!   exactly even without `-b`: TARGET+SUFFIX (`-z`/`--suffix`, else
//!   `SIMPLE_BACKUP_SUFFIX`, else `.orig`), `TARGET.~N~`, `TARGET.rej`,
//!   `-B PREFIX` (PREFIX+TARGET) and `-Y PREFIX` (DIR/PREFIX+BASE).
//!
//! A suffix only known at run time is any text (`TARGET*`).

use super::*;

/// How a backup name is made from the name of the file backed up.
enum Backup {
    /// NAME + this text.
    Suffix(Field),
    /// This text with each `*` replaced by the name (sed, perl).
    Stars(String),
    /// NAME + any text (a suffix only known at run time).
    Any,
    /// NAME.~N~ (numbered backups).
    Numbered,
    /// This prefix + NAME (`patch -B`).
    Prefix(Field),
    /// DIR/ + this prefix + BASE (`patch -Y`).
    BasePrefix(Field),
}

fn lit(text: &str) -> Seg {
    Seg::Lit {
        text: text.to_string(),
        quoted: true,
    }
}

/// A pattern character (`*`), matching any text.
fn any() -> Seg {
    Seg::Lit {
        text: "*".to_string(),
        quoted: false,
    }
}

/// The suffix a value gives: known text, or any text when some of it is
/// only known at run time.
fn suffix_of(value: &Field) -> Backup {
    match value.static_text() {
        Some(t) if t.contains('*') => Backup::Stars(t),
        Some(t) => Backup::Suffix(Field::lit(t)),
        None => Backup::Any,
    }
}

/// The name's directory part (`d/` of `d/f`, empty for `f`) and base.
fn dir_and_base(name: &Field) -> Option<(Field, Field)> {
    let last = name
        .segs
        .iter()
        .rposition(|s| matches!(s, Seg::Lit { text, .. } if text.contains('/')));
    let Some(k) = last else {
        return Some((Field::default(), name.clone()));
    };
    let Seg::Lit { text, quoted } = &name.segs[k] else {
        return None;
    };
    let cut = text.rfind('/')? + 1;
    let mut dir = Field {
        segs: name.segs[..k].to_vec(),
    };
    dir.segs.push(Seg::Lit {
        text: text[..cut].to_string(),
        quoted: *quoted,
    });
    let mut base = Field::default();
    if cut < text.len() {
        base.segs.push(Seg::Lit {
            text: text[cut..].to_string(),
            quoted: *quoted,
        });
    }
    base.segs.extend(name.segs[k + 1..].iter().cloned());
    Some((dir, base))
}

/// The names a backup of `name` may get.
fn backup_names(name: &Field, how: &Backup) -> Vec<Field> {
    let joined = |parts: &[&Field]| Field {
        segs: parts.iter().flat_map(|f| f.segs.iter().cloned()).collect(),
    };
    match how {
        Backup::Suffix(s) => vec![joined(&[name, s])],
        Backup::Any => vec![Field {
            segs: name.segs.iter().cloned().chain([any()]).collect(),
        }],
        Backup::Numbered => vec![Field {
            segs: name
                .segs
                .iter()
                .cloned()
                .chain([lit(".~"), any(), lit("~")])
                .collect(),
        }],
        Backup::Prefix(p) => vec![joined(&[p, name])],
        Backup::BasePrefix(p) => dir_and_base(name)
            .map(|(dir, base)| joined(&[&dir, p, &base]))
            .into_iter()
            .collect(),
        Backup::Stars(pattern) => {
            let starred = |by: &Field| {
                let mut segs = Vec::new();
                for (k, piece) in pattern.split('*').enumerate() {
                    if k > 0 {
                        segs.extend(by.segs.iter().cloned());
                    }
                    if !piece.is_empty() {
                        segs.push(lit(piece));
                    }
                }
                Field { segs }
            };
            let mut out = vec![starred(name)];
            if let Some((dir, base)) = dir_and_base(name) {
                let in_dir = starred(&base);
                out.push(if in_dir.text().starts_with('/') {
                    in_dir
                } else {
                    joined(&[&dir, &in_dir])
                });
            }
            out
        }
    }
}

/// `SIMPLE_BACKUP_SUFFIX` as this command sets it, else `default`.
fn simple_suffix(env: &Env, default: &str) -> Backup {
    match env.vars.get("SIMPLE_BACKUP_SUFFIX") {
        Some(v) => suffix_of(v),
        None => Backup::Suffix(Field::lit(default)),
    }
}

/// Whether a long option word (before any `=`) is an abbreviation GNU
/// getopt takes for `full`, at least `min` characters long.
fn abbreviates(word: &str, full: &str, min: usize) -> bool {
    word.len() >= min && full.starts_with(word)
}

/// The suffix of `sed -i[SUF]`/`--in-place[=SUF]` (GNU sed: `-e`, `-f`,
/// `-l` take the rest of a cluster or the next word), `None` without a
/// suffix (no backup).
fn sed_suffix(args: &[Field]) -> Option<Backup> {
    let mut found = None;
    let mut i = 0;
    while let Some(a) = args.get(i) {
        i += 1;
        let t = a.text();
        if t == "--" {
            break;
        }
        if let Some(v) = strip_literal_prefix(a, "--in-place=") {
            found = Some(suffix_of(&v));
        } else if matches!(t.as_str(), "--expression" | "--file" | "--line-length") {
            i += 1;
        } else if t.starts_with('-') && !t.starts_with("--") {
            for (k, c) in t.char_indices().skip(1) {
                if c == 'i' {
                    if k + 1 < t.len() {
                        found = Some(
                            strip_literal_prefix(a, &t[..=k])
                                .map_or(Backup::Any, |v| suffix_of(&v)),
                        );
                    }
                    break;
                }
                if matches!(c, 'e' | 'f' | 'l') {
                    if k + 1 == t.len() {
                        i += 1;
                    }
                    break;
                }
            }
        }
    }
    found
}

/// The extension of perl's or ruby's `-i[EXT]` (the rest of its cluster;
/// `-e`, `-E`, `-M`, `-m`, `-I`, `-x`, `-d`, `-D` take the rest or the
/// next word; `-l`, `-0`, `-C` take digits).
fn perl_suffix(args: &[Field]) -> Option<Backup> {
    let mut found = None;
    let mut i = 0;
    while let Some(a) = args.get(i) {
        i += 1;
        let t = a.text();
        if t == "--" || !t.starts_with('-') || t.starts_with("--") {
            continue;
        }
        let chars: Vec<(usize, char)> = t.char_indices().skip(1).collect();
        let mut j = 0;
        while let Some(&(k, c)) = chars.get(j) {
            j += 1;
            if c == 'i' {
                if k + 1 < t.len() {
                    found = Some(
                        strip_literal_prefix(a, &t[..=k]).map_or(Backup::Any, |v| suffix_of(&v)),
                    );
                }
                break;
            }
            if matches!(c, 'e' | 'E' | 'M' | 'm' | 'I' | 'x' | 'd' | 'D') {
                if k + 1 == t.len() && matches!(c, 'e' | 'E' | 'I') {
                    i += 1;
                }
                break;
            }
            if matches!(c, 'l' | '0' | 'C') {
                // `-l[octal]`, `-C[number]`, `-0[octal]` or `-0xHEX`.
                let hex = c == '0' && chars.get(j).is_some_and(|(_, d)| *d == 'x');
                if hex {
                    j += 1;
                }
                while chars.get(j).is_some_and(|(_, d)| {
                    if hex {
                        d.is_ascii_hexdigit()
                    } else {
                        d.is_ascii_digit()
                    }
                }) {
                    j += 1;
                }
            }
        }
    }
    found
}

/// gawk's in-place suffix (`-v INPLACE_SUFFIX=S`, `-v inplace::suffix=S`).
fn gawk_suffix(args: &[Field]) -> Option<Backup> {
    let mut found = None;
    for (k, a) in args.iter().enumerate() {
        let t = a.text();
        let assignment = match t.as_str() {
            "-v" | "--assign" => args.get(k + 1).cloned(),
            _ => strip_literal_prefix(a, "--assign=").or_else(|| strip_literal_prefix(a, "-v")),
        };
        let Some(assignment) = assignment else {
            continue;
        };
        for var in ["INPLACE_SUFFIX=", "inplace::suffix="] {
            if let Some(v) = strip_literal_prefix(&assignment, var) {
                found = Some(suffix_of(&v));
            }
        }
    }
    found
}

impl Analysis<'_> {
    /// Judge the backup copies `name args` makes (see the module docs) as
    /// writes.
    pub(crate) fn backup_writes(&mut self, name: &str, args: &[Field], env: &mut Env) {
        let (targets, ways): (Vec<Field>, Vec<Backup>) = match name {
            "cp" | "mv" | "install" | "ln" => {
                let (_, options) = walk_options(name, args);
                let mut backs = false;
                let mut suffix = None;
                for (opt, value) in &options {
                    let long = opt.starts_with("--");
                    if opt == "-b" || (long && abbreviates(opt, "--backup", 3)) {
                        backs = true;
                    } else if opt == "-S" || (long && abbreviates(opt, "--suffix", 4)) {
                        backs = true;
                        suffix = value.as_ref().map(suffix_of).or(Some(Backup::Any));
                    }
                }
                if !backs {
                    return;
                }
                let Some(place) = placement(name, args) else {
                    return;
                };
                let mut targets: Vec<Field> = place
                    .sources
                    .iter()
                    .filter_map(|s| inside(&place.dest, s))
                    .collect();
                if !place.named_dir {
                    targets.push(place.dest.clone());
                }
                let suffix = suffix.unwrap_or_else(|| simple_suffix(env, "~"));
                (targets, vec![suffix, Backup::Numbered])
            }
            "sed" | "gsed" | "perl" | "ruby" | "awk" | "gawk" => {
                let suffix = match name {
                    "sed" | "gsed" => sed_suffix(args),
                    "awk" | "gawk" => gawk_suffix(args),
                    _ => perl_suffix(args),
                };
                let (Some(suffix), Some(files)) = (suffix, edited_in_place(name, args)) else {
                    return;
                };
                (files.into_iter().cloned().collect(), vec![suffix])
            }
            "rsync" => {
                let (operands, options) = walk_options(name, args);
                let mut backs = false;
                let mut suffix = None;
                let mut backup_dir = false;
                for (opt, value) in &options {
                    match opt.as_str() {
                        "-b" | "--backup" => backs = true,
                        "--suffix" => {
                            backs = true;
                            suffix = Some(value.as_ref().map_or(Backup::Any, suffix_of));
                        }
                        "--backup-dir" => backup_dir = true,
                        _ => {}
                    }
                }
                if !backs || operands.len() < 2 {
                    return;
                }
                let suffix = suffix.unwrap_or_else(|| {
                    Backup::Suffix(Field::lit(if backup_dir { "" } else { "~" }))
                });
                if backup_dir && matches!(&suffix, Backup::Suffix(s) if s.text().is_empty()) {
                    // Into `--backup-dir` under the files' own names:
                    // judged as a directory filled.
                    return;
                }
                let (dest, sources) = operands.split_last().expect("two operands");
                let mut targets: Vec<Field> =
                    sources.iter().filter_map(|s| inside(dest, s)).collect();
                targets.push((*dest).clone());
                (targets, vec![suffix])
            }
            "patch" | "gpatch" if !args.iter().any(|a| a.text() == "--dry-run") => {
                let targets = super::links_and_fills::output_files(name, args)
                    .into_iter()
                    .map(|(f, _)| f)
                    .collect();
                (targets, patch_backups(args, env))
            }
            _ => return,
        };
        self.judge_backups(name, &targets, &ways, env);
    }

    /// The backups `patch` makes of the files a diff names (read from its
    /// text, review s25 R8): judged as writes.
    pub(crate) fn patch_backup_writes(
        &mut self,
        name: &str,
        args: &[Field],
        targets: &[Field],
        env: &mut Env,
    ) {
        let ways = patch_backups(args, env);
        self.judge_backups(name, targets, &ways, env);
    }

    fn judge_backups(&mut self, name: &str, targets: &[Field], ways: &[Backup], env: &mut Env) {
        for target in targets {
            for how in ways {
                for backup in backup_names(target, how) {
                    if self.done() {
                        return;
                    }
                    let via = format!(
                        "`{name}` (the backup of `{}` it keeps under a suffix)",
                        target.text()
                    );
                    self.check_write(&backup, env, &Output::Unknown, &via, true, 0);
                }
            }
        }
    }
}

/// The backup names `patch` may give a file it patches: it backs up on a
/// mismatch even without `-b` (GNU patch's default
/// `--backup-if-mismatch`).
fn patch_backups(args: &[Field], env: &Env) -> Vec<Backup> {
    let suffix = option_value(args, &["-z", "--suffix"])
        .map_or_else(|| simple_suffix(env, ".orig"), |v| suffix_of(&v));
    let mut ways = vec![suffix, Backup::Numbered];
    if option_value(args, &["-r", "--reject-file"]).is_none() {
        ways.push(Backup::Suffix(Field::lit(".rej")));
    }
    if let Some(p) = option_value(args, &["-B", "--prefix"]) {
        ways.push(Backup::Prefix(p));
    }
    if let Some(p) = option_value(args, &["-Y", "--basename-prefix"]) {
        ways.push(Backup::BasePrefix(p));
    }
    ways
}
