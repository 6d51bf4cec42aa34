//! Which of toolvet's hook command lines a pattern can select: `grep`,
//! `sed` and `awk` patterns read into their alternatives and matched against
//! the hook lines and the columns of a process listing.

use super::code::code_strings;
use super::listings::process_file;
use super::signals::{PGREP, option_values, relation_unknown, selects_by_relation};
use super::*;

/// A POSIX extended regex (procps' `pkill`/`pgrep`, psmisc `killall -r`,
/// `grep -E`: regcomp with REG_EXTENDED) written for regex-syntax, which
/// reads the same operators; `None` for a construct the translation does
/// not model (`(?…)`, `\\d`, `[[=e=]]`, `[a--b]`), then the pattern is not
/// read (review s19 S13). Inside a bracket expression a backslash, `[`,
/// `&` and `~` are literal in POSIX and escaped here.
pub(super) fn ere_hir(pattern: &str) -> Option<Hir> {
    let chars: Vec<char> = pattern.chars().collect();
    let mut out = String::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        match c {
            '\\' => {
                let n = *chars.get(i + 1)?;
                // GNU's `\w \W \s \S \b \B`; any other letter or digit
                // means something else to each reader.
                if n.is_ascii_alphanumeric() && !"wWsSbB".contains(n) {
                    return None;
                }
                out.push('\\');
                out.push(n);
                i += 2;
                continue;
            }
            '(' if chars.get(i + 1) == Some(&'?') => return None,
            '[' => {
                out.push('[');
                let mut j = i + 1;
                if chars.get(j) == Some(&'^') {
                    out.push('^');
                    j += 1;
                }
                if chars.get(j) == Some(&']') {
                    out.push_str("\\]");
                    j += 1;
                }
                loop {
                    let d = *chars.get(j)?;
                    match d {
                        ']' => break,
                        '[' if chars.get(j + 1) == Some(&':') => {
                            let close = (j + 2..chars.len().saturating_sub(1))
                                .find(|&k| chars[k] == ':' && chars[k + 1] == ']')?;
                            out.extend(&chars[j..close + 2]);
                            j = close + 2;
                            continue;
                        }
                        '[' if matches!(chars.get(j + 1), Some('=' | '.')) => return None,
                        '-' if chars.get(j + 1) == Some(&'-') => return None,
                        '\\' | '[' | '&' | '~' => {
                            out.push('\\');
                            out.push(d);
                        }
                        d => out.push(d),
                    }
                    j += 1;
                }
                out.push(']');
                i = j + 1;
                continue;
            }
            _ => out.push(c),
        }
        i += 1;
    }
    ParserBuilder::new()
        .unicode(false)
        .utf8(false)
        .build()
        .parse(&out)
        .ok()
}

/// A POSIX basic regex (grep without `-E`) as the extended regex it
/// means: GNU's `\(…\)`, `\{…\}`, `\|`, `\+`, `\?` are the operators,
/// the bare characters literal, and a `*` first (or after `\(`, `^`) a
/// literal star.
pub(super) fn bre_to_ere(pattern: &str) -> String {
    let chars: Vec<char> = pattern.chars().collect();
    let mut out = String::new();
    let mut i = 0;
    let mut in_class = false;
    while i < chars.len() {
        let c = chars[i];
        if in_class {
            if c == '['
                && let Some(&kind @ (':' | '=' | '.')) = chars.get(i + 1)
                && let Some(close) = (i + 2..chars.len().saturating_sub(1))
                    .find(|&k| chars[k] == kind && chars[k + 1] == ']')
            {
                out.extend(&chars[i..close + 2]);
                i = close + 2;
                continue;
            }
            out.push(c);
            if c == ']' && !out.ends_with("[]") && !out.ends_with("[^]") {
                in_class = false;
            }
            i += 1;
            continue;
        }
        match c {
            '\\' if i + 1 < chars.len() => {
                let n = chars[i + 1];
                if "(){}|+?".contains(n) {
                    out.push(n);
                } else {
                    out.push('\\');
                    out.push(n);
                }
                i += 2;
                continue;
            }
            '(' | ')' | '{' | '}' | '|' | '+' | '?' => {
                out.push('\\');
                out.push(c);
            }
            '*' if out.is_empty() || out.ends_with(['(', '^', '|']) => out.push_str("\\*"),
            '[' => {
                in_class = true;
                out.push(c);
            }
            _ => out.push(c),
        }
        i += 1;
    }
    out
}

/// The literal text each alternative of a parsed pattern requires, as
/// runs in order, lowercased: classes, anchors and anything repeated
/// zero times or more are gaps between runs, so every run is text a
/// match must contain. An alternation inside is spread out into
/// alternatives (at most [`MAX_ALTERNATIVES`]; past that, a gap).
fn hir_runs(h: &Hir) -> Vec<Vec<String>> {
    hir_alternatives(h)
        .iter()
        .map(|a| {
            a.split('\0')
                .filter(|r| !r.is_empty())
                .map(str::to_string)
                .collect()
        })
        .collect()
}

const MAX_ALTERNATIVES: usize = 64;

/// [`hir_runs`]' alternatives, each as text with `\0` for a gap.
fn hir_alternatives(h: &Hir) -> Vec<String> {
    let gap = || vec!["\0".to_string()];
    match h.kind() {
        HirKind::Empty => vec![String::new()],
        HirKind::Literal(l) => vec![String::from_utf8_lossy(&l.0).to_ascii_lowercase()],
        HirKind::Class(_) | HirKind::Look(_) => gap(),
        HirKind::Repetition(r) if r.min == 0 => gap(),
        HirKind::Repetition(r) => hir_alternatives(&r.sub)
            .into_iter()
            .map(|a| format!("\0{a}\0"))
            .collect(),
        HirKind::Capture(c) => hir_alternatives(&c.sub),
        HirKind::Concat(parts) => {
            let mut acc = vec![String::new()];
            for part in parts {
                let next = hir_alternatives(part);
                if acc.len() * next.len() > MAX_ALTERNATIVES {
                    acc = acc.into_iter().map(|a| a + "\0").collect();
                    acc.dedup();
                    if acc.len() > MAX_ALTERNATIVES {
                        return gap();
                    }
                    continue;
                }
                acc = acc
                    .iter()
                    .flat_map(|a| next.iter().map(move |n| format!("{a}{n}")))
                    .collect();
            }
            acc
        }
        HirKind::Alternation(branches) => {
            let all: Vec<String> = branches.iter().flat_map(hir_alternatives).collect();
            if all.len() > MAX_ALTERNATIVES {
                gap()
            } else {
                all
            }
        }
    }
}

/// How far a process pattern reaches toolvet's hooks.
#[derive(PartialEq)]
pub(super) enum Reach {
    /// It cannot match a hook process.
    No,
    /// It matches every process (it can match the empty string: `(zz)?`,
    /// `x*`, `(a|)`, `^`, `$`) or may match a hook's.
    Hook,
    /// It uses syntax the reader does not model: held.
    Unread,
}

/// Whether process pattern `pattern` may match one of toolvet's hook
/// processes: matched against the whole command line (`pkill -f`) or the
/// process name `toolvet` (`full` false). The pattern is parsed (an
/// extended regex, with `bre` also read as a basic one: either reading
/// counts), not scanned as text (review s19 S13): a pattern that can
/// match the empty string matches every process; otherwise an
/// alternative may match when one of its required runs names `toolvet`,
/// or when each of them is part of a hook's command line (`toolvet
/// hook`, `oolv`, `hook gemini`), or it requires no literal text at all
/// (`.`, `.+`).
pub(super) fn pattern_reach(pattern: &str, bre: bool, full: bool, lines: &[String]) -> Reach {
    let mut readings = vec![ere_hir(pattern)];
    if bre {
        readings.push(ere_hir(&bre_to_ere(pattern)));
    }
    if readings.iter().all(Option::is_none) {
        return Reach::Unread;
    }
    let hit = readings.iter().flatten().any(|h| {
        h.properties().minimum_len() == Some(0)
            || hir_runs(h).iter().any(|runs| {
                runs.iter().any(|r| r.contains("toolvet"))
                    || runs.iter().all(|r| {
                        if full {
                            HOOK_COMMAND_LINES.iter().any(|l| l.contains(r.as_str()))
                                || lines.iter().any(|l| run_fits_hook_line(r, l))
                        } else {
                            "toolvet".contains(r.as_str())
                        }
                    })
            })
    });
    if hit { Reach::Hook } else { Reach::No }
}

/// Whether the literal run `r` may be part of hook command line `line`
/// (which starts at the program's base name): inside it, or reaching
/// into it from the directory the program is in (`/usr/local/bin/t`,
/// `bin/toolvet h`), or a directory path alone (`/usr/local/bin/`): the
/// program's directory is not known.
fn run_fits_hook_line(r: &str, line: &str) -> bool {
    if line.contains(r) || (r.ends_with('/') && !r.contains(' ')) {
        return true;
    }
    r.match_indices('/').any(|(k, _)| {
        let (dir, rest) = r.split_at(k + 1);
        !dir.contains(' ') && !rest.is_empty() && line.starts_with(rest)
    })
}

/// Whether `text` names toolvet, also through regex syntax a filter or
/// pattern hides it with (`[t]oolvet`, `tool\vet`, `toolv(e)t`).
pub(super) fn names_toolvet(text: &str) -> bool {
    let bare: String = text
        .to_ascii_lowercase()
        .chars()
        .filter(|c| !"[]()\\^$?*+{}|'\"".contains(*c))
        .collect();
    bare.contains("toolvet") || bare.contains("oolvet") || bare.contains("toolve")
}

/// The words of a command that looks up process ids (`pgrep`, `pidof`,
/// `ps`, or a filter of their output) naming toolvet.
/// `listing`: an earlier stage of the pipeline lists processes, so a
/// filter reading its standard input picks processes.
pub(super) fn looks_up_toolvet(
    name: &str,
    args: &[Field],
    texts: &[String],
    lines: &[String],
    users: &[String],
    listing: bool,
) -> bool {
    match name {
        // Read by procps' table (review s17 Q3: `pgrep --pa $PPID`); the
        // pattern always against the whole command line. A word the table
        // cannot place: every word may be the pattern.
        "pgrep" => {
            let p = getopt::parse(&PGREP, args);
            let relation = option_values(&p, &["parent", "session", "pgroup", "terminal"]);
            let patterns: Vec<&Field> = if p.problems.is_empty() {
                p.operands.iter().map(|&k| &args[k]).collect()
            } else {
                args.iter().filter(|a| !a.text().starts_with('-')).collect()
            };
            // `pgrep -v PAT`: every process it does not match (review s18
            // R3).
            p.has("inverse")
                || selects_by_relation(args)
                || relation.iter().any(|v| relation_unknown(v))
                || patterns
                    .iter()
                    .filter_map(|a| a.static_text())
                    .any(|t| may_select_hook(&t, lines))
        }
        "pidof" | "ps" | "lsof" | "fuser" => {
            texts.iter().any(|t| names_toolvet(t)) || (name == "ps" && selects_by_relation(args))
        }
        // A filter's pattern (`ps aux | grep toolvet | awk …`), not its
        // files (`grep -n port toolvet.toml`).
        "grep" | "egrep" | "fgrep" | "rg" => grep_selects_hook(args, lines, users, listing),
        "awk" | "gawk" | "mawk" | "nawk" | "sed" => {
            script_filter_selects_hook(name, args, lines, users, listing)
        }
        _ => false,
    }
}

/// Whether a pattern that processes are selected by (a pgrep pattern, a
/// grep/awk/sed filter of a process listing, a string code compares
/// process command lines with) may select one of toolvet's hook
/// processes: it names toolvet (also through regex syntax), or may match
/// a hook's command line (`policy.toml`, `gemini-cli --config`, the
/// program's directory; review s16 P8). One predicate for every lookup
/// (review s17 Q8). GNU BRE operators (`a\|b`, `\(…\)`, `\{1,\}`,
/// `\+`, `\?`) count as operators.
pub(crate) fn may_select_hook(pattern: &str, lines: &[String]) -> bool {
    names_toolvet(pattern) || pattern_reach(pattern, true, true, lines) != Reach::No
}

/// Whether a pattern a filter of a process listing matches against the
/// listing's whole lines may select one of toolvet's hook processes
/// (review s21 U2): [`may_select_hook`] of the command, or a match in the
/// other columns a hook's line has in the formats ps, pgrep, lsof and
/// `/proc` entries print ([`fits_listing_columns`]): `grep :` (the TIME
/// column), `grep pts` (the terminal), `grep alice` (the user).
fn may_select_listed_hook(pattern: &str, lines: &[String], users: &[String]) -> bool {
    may_select_hook(pattern, lines) || {
        let mut readings = vec![ere_hir(pattern), ere_hir(&bre_to_ere(pattern))];
        readings.retain(Option::is_some);
        readings.is_empty()
            || readings.iter().flatten().any(|h| {
                hir_runs(h)
                    .iter()
                    .any(|runs| runs.iter().all(|r| fits_listing_columns(r, lines, users)))
            })
    }
}

/// `text` lowercased with every run of digits as one `0`: a number
/// column (pid, ppid, %cpu, vsz, times) matches any digits.
fn collapse_digits(text: &str) -> String {
    let mut out = String::new();
    for c in text.to_ascii_lowercase().chars() {
        if c.is_ascii_digit() {
            if !out.ends_with('0') || out.is_empty() {
                out.push('0');
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// The values a hook process's columns other than its command may show
/// in a process listing, with digits collapsed ([`collapse_digits`]): the
/// user (`users`, `root`) or uid, pid/ppid/%cpu/%mem/vsz/rss numbers
/// (`0`, `0.0`), terminals (`pts/0`, `tty1`, `?`), start and cpu times
/// (`08:00`, `00:00:00`, `1-02:03:04`, `Dec05`, `2026`, lstart's day
/// and month names), priority and wchan dashes; states are
/// [`stat_value`].
fn column_values(users: &[String]) -> Vec<String> {
    const FIXED: &[&str] = &[
        "root",
        "0",
        "0.0",
        "0,0",
        "pts/0",
        "tty0",
        "ttys0",
        "?",
        "console",
        "0:0",
        "0:0:0",
        "0-0:0:0",
        "0:0.0",
        "-",
        "jan",
        "feb",
        "mar",
        "apr",
        "may",
        "jun",
        "jul",
        "aug",
        "sep",
        "oct",
        "nov",
        "dec",
        "sun",
        "mon",
        "tue",
        "wed",
        "thu",
        "fri",
        "sat",
        "jan0",
        "feb0",
        "mar0",
        "apr0",
        "may0",
        "jun0",
        "jul0",
        "aug0",
        "sep0",
        "oct0",
        "nov0",
        "dec0",
        "0u",
        "0r",
        "0w",
        "cwd",
        "txt",
        "mem",
        "rtd",
        "ipv0",
        "tcp",
        "udp",
        "unix",
        "reg",
        "dir",
        "chr",
        "fifo",
        "sock",
        "listen",
        "established",
        "localhost",
        "(listen)",
        "(established)",
        "ts",
        "ff",
        "rr",
        "b",
        "idl",
        "dln",
        "iso",
    ];
    FIXED
        .iter()
        .map(|v| v.to_string())
        .chain(users.iter().map(|u| collapse_digits(u)))
        .collect()
}

/// Whether `token` (lowercased) may be a process state column (`Ss`,
/// `Sl+`, `R`, `D<`, `Zs`, `I`): only state letters and flags.
fn stat_value(token: &str) -> bool {
    !token.is_empty() && token.len() <= 6 && token.chars().all(|c| "rsdztwxipkl+<n".contains(c))
}

/// Whether literal run `run` (lowercased, from a filter's pattern) may
/// be matched by a hook process's line in a listing: inside one column
/// value, or across columns (the first word a column's end, the words
/// between whole column values, the last a column's start), possibly
/// reaching into the command (`00:00:00 toolvet`, `? /usr/local/bin/`).
/// Blanks between columns may be several (ps aligns them).
fn fits_listing_columns(run: &str, lines: &[String], users: &[String]) -> bool {
    let values = column_values(users);
    let run = collapse_digits(run);
    let tokens: Vec<&str> = run.split(' ').filter(|t| !t.is_empty()).collect();
    let whole = |t: &str| values.iter().any(|v| v == t) || stat_value(t);
    let suffix = |t: &str| values.iter().any(|v| v.ends_with(t)) || stat_value(t);
    let prefix = |t: &str| values.iter().any(|v| v.starts_with(t)) || stat_value(t);
    let inside = |t: &str| values.iter().any(|v| v.contains(t)) || stat_value(t);
    let command = |rest: &str| {
        rest.is_empty()
            || rest.starts_with('/')
            || lines.iter().any(|l| collapse_digits(l).starts_with(rest))
            || HOOK_COMMAND_LINES.iter().any(|l| l.starts_with(rest))
    };
    match tokens.as_slice() {
        [] => true,
        [one] => inside(one) || (run.ends_with(' ') && suffix(one)),
        _ => (1..=tokens.len()).any(|k| {
            let rest = tokens[k..].join(" ");
            let last_is_column_start = rest.is_empty() && !run.ends_with(' ');
            tokens[..k].iter().enumerate().all(|(j, t)| {
                if j == 0 && !run.starts_with(' ') {
                    suffix(t)
                } else if j + 1 == k && last_is_column_start {
                    prefix(t)
                } else {
                    whole(t)
                }
            }) && command(&rest)
        }),
    }
}

/// The user names a hook process's line may show: the home directory's
/// and each state path's `/home/NAME` (review s21 U2).
pub(super) fn listing_users(home: Option<&str>, state: &[String]) -> Vec<String> {
    let mut users: Vec<String> = home
        .into_iter()
        .chain(state.iter().map(String::as_str))
        .filter_map(|p| {
            let rest = p
                .strip_prefix("/home/")
                .or_else(|| p.strip_prefix("/Users/"))?;
            rest.split('/')
                .next()
                .filter(|u| !u.is_empty())
                .map(str::to_string)
        })
        .collect();
    if let Some(h) = home.filter(|h| !h.starts_with("/home/") && !h.starts_with("/Users/")) {
        users.extend(
            h.rsplit('/')
                .next()
                .filter(|u| !u.is_empty())
                .map(str::to_string),
        );
    }
    users.sort();
    users.dedup();
    users
}

/// GNU grep's options (grep(1); `getopt_long`, permutation; `-NUM` is
/// `--context=NUM`). Also read for `egrep`, `fgrep` and `rg` (whose
/// other options are problems: every word is then read as a pattern).
pub(super) const GREP: Spec = Spec {
    opts: &[
        long("extended-regexp", 'E', Takes::No),
        long("fixed-strings", 'F', Takes::No),
        long("basic-regexp", 'G', Takes::No),
        long("perl-regexp", 'P', Takes::No),
        long("regexp", 'e', Takes::Value),
        long("file", 'f', Takes::Value),
        long("ignore-case", 'i', Takes::No),
        long("no-ignore-case", '\0', Takes::No),
        short("y", Takes::No),
        long("invert-match", 'v', Takes::No),
        long("word-regexp", 'w', Takes::No),
        long("line-regexp", 'x', Takes::No),
        long("count", 'c', Takes::No),
        long("color", '\0', Takes::Optional),
        long("colour", '\0', Takes::Optional),
        long("files-without-match", 'L', Takes::No),
        long("files-with-matches", 'l', Takes::No),
        long("max-count", 'm', Takes::Value),
        long("only-matching", 'o', Takes::No),
        long("quiet", 'q', Takes::No),
        long("silent", '\0', Takes::No),
        long("no-messages", 's', Takes::No),
        long("byte-offset", 'b', Takes::No),
        long("with-filename", 'H', Takes::No),
        long("no-filename", 'h', Takes::No),
        long("label", '\0', Takes::Value),
        long("line-number", 'n', Takes::No),
        long("initial-tab", 'T', Takes::No),
        long("null", 'Z', Takes::No),
        long("null-data", 'z', Takes::No),
        long("after-context", 'A', Takes::Value),
        long("before-context", 'B', Takes::Value),
        long("context", 'C', Takes::Value),
        long("text", 'a', Takes::No),
        long("binary-files", '\0', Takes::Value),
        long("devices", 'D', Takes::Value),
        long("directories", 'd', Takes::Value),
        long("exclude", '\0', Takes::Value),
        long("exclude-from", '\0', Takes::Value),
        long("exclude-dir", '\0', Takes::Value),
        long("include", '\0', Takes::Value),
        long("recursive", 'r', Takes::No),
        long("dereference-recursive", 'R', Takes::No),
        long("line-buffered", '\0', Takes::No),
        long("binary", 'U', Takes::No),
        short("u", Takes::No),
        long("version", 'V', Takes::No),
        long("help", '\0', Takes::No),
        short("0", Takes::No),
        short("1", Takes::No),
        short("2", Takes::No),
        short("3", Takes::No),
        short("4", Takes::No),
        short("5", Takes::No),
        short("6", Takes::No),
        short("7", Takes::No),
        short("8", Takes::No),
        short("9", Takes::No),
    ],
    permute: true,
    long_only: false,
};

/// Whether a grep of a process listing (its standard input after a
/// listing stage, `listing`: no file operands, not recursive) or of
/// process entries ([`process_file`])
/// may select a hook process: a pattern [`may_select_hook`], or patterns
/// from a file it cannot read. A pattern naming toolvet counts wherever
/// it reads. (An inverted match, `grep -v grep`, narrows what the other
/// filters of the pipeline select: not judged alone.)
fn grep_selects_hook(args: &[Field], lines: &[String], users: &[String], listing: bool) -> bool {
    let p = getopt::parse(&GREP, args);
    let texts = |ks: &[usize]| -> Vec<String> { ks.iter().map(|&k| args[k].text()).collect() };
    let (patterns, files) = if !p.problems.is_empty() {
        // Unplaced words: any word may be the pattern, and none a file.
        let words: Vec<String> = args.iter().map(Field::text).collect();
        (words, Vec::new())
    } else if p.has("regexp") || p.has("file") {
        (option_values(&p, &["regexp"]), texts(&p.operands))
    } else {
        let (first, rest) = p
            .operands
            .split_first()
            .map_or((&[][..], &[][..]), |(f, r)| (std::slice::from_ref(f), r));
        (texts(first), texts(rest))
    };
    let stdin =
        (listing && files.is_empty() && !p.has("recursive") && !p.has("dereference-recursive"))
            || files.iter().any(|f| process_file(f));
    patterns.iter().any(|t| names_toolvet(t))
        || (stdin
            && (p.has("file")
                || patterns
                    .iter()
                    .any(|t| may_select_listed_hook(t, lines, users))))
}

/// The regular expressions and strings in an awk program or sed script:
/// `/RE/`, sed's `s<d>RE<d>…` with any delimiter, `\\%RE%`, and quoted
/// strings of three letters or more (awk `$0 ~ "RE"`, `index($0, "S")`).
fn script_patterns(script: &str) -> Vec<String> {
    let chars: Vec<char> = script.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    let take = |open: usize, close: char| -> Option<(String, usize)> {
        let mut s = String::new();
        let mut j = open;
        while j < chars.len() {
            match chars[j] {
                '\\' if j + 1 < chars.len() => {
                    s.push('\\');
                    s.push(chars[j + 1]);
                    j += 2;
                    continue;
                }
                c if c == close => return Some((s, j)),
                c => s.push(c),
            }
            j += 1;
        }
        None
    };
    while i < chars.len() {
        let c = chars[i];
        let delimiter = match c {
            '/' | '"' => Some(c),
            's' | 'y' | '\\'
                if chars
                    .get(i + 1)
                    .is_some_and(|d| !d.is_alphanumeric() && !d.is_whitespace() && *d != '\\') =>
            {
                i += 1;
                Some(chars[i])
            }
            _ => None,
        };
        if let Some(d) = delimiter
            && let Some((s, end)) = take(i + 1, d)
        {
            // (A string of fewer than three letters or digits is a
            // separator printed, `print $1 " " $2`, not a pattern.)
            if d != '"' || s.chars().filter(|c| c.is_alphanumeric()).count() >= 3 {
                out.push(s);
            }
            i = end;
        }
        i += 1;
    }
    out
}

/// GNU sed's options (sed(1); `getopt_long`, permutation).
pub(super) const SED: Spec = Spec {
    opts: &[
        long("quiet", 'n', Takes::No),
        long("silent", '\0', Takes::No),
        long("expression", 'e', Takes::Value),
        long("file", 'f', Takes::Value),
        long("follow-symlinks", '\0', Takes::No),
        long("in-place", 'i', Takes::Optional),
        long("line-length", 'l', Takes::Value),
        long("posix", '\0', Takes::No),
        long("regexp-extended", 'E', Takes::No),
        short("r", Takes::No),
        long("separate", 's', Takes::No),
        long("sandbox", '\0', Takes::No),
        long("unbuffered", 'u', Takes::No),
        long("null-data", 'z', Takes::No),
        long("binary", 'b', Takes::No),
        long("debug", '\0', Takes::No),
        long("help", '\0', Takes::No),
        long("version", '\0', Takes::No),
    ],
    permute: true,
    long_only: false,
};

/// awk's options (gawk(1), which mawk/nawk/busybox share in part: `-f
/// FILE`, `-F FS`, `-v VAR=VAL`; gawk's `-e`/`--source TEXT`, `-E FILE`,
/// `-i`/`-l` LIB, and its flags); options end at the program text.
pub(super) const AWK: Spec = Spec {
    opts: &[
        long("file", 'f', Takes::Value),
        long("field-separator", 'F', Takes::Value),
        long("assign", 'v', Takes::Value),
        long("source", 'e', Takes::Value),
        long("exec", 'E', Takes::Value),
        long("include", 'i', Takes::Value),
        long("load", 'l', Takes::Value),
        long("characters-as-bytes", 'b', Takes::No),
        long("traditional", 'c', Takes::No),
        long("copyright", 'C', Takes::No),
        long("dump-variables", 'd', Takes::Optional),
        long("debug", 'D', Takes::Optional),
        long("gen-pot", 'g', Takes::No),
        long("help", 'h', Takes::No),
        long("lint", 'L', Takes::Optional),
        long("bignum", 'M', Takes::No),
        long("non-decimal-data", 'n', Takes::No),
        long("use-lc-numeric", 'N', Takes::No),
        long("pretty-print", 'o', Takes::Optional),
        long("optimize", 'O', Takes::No),
        long("profile", 'p', Takes::Optional),
        long("posix", 'P', Takes::No),
        long("re-interval", 'r', Takes::No),
        long("no-optimize", 's', Takes::No),
        long("sandbox", 'S', Takes::No),
        long("lint-old", 't', Takes::No),
        long("version", 'V', Takes::No),
        long("csv", 'k', Takes::No),
        long("persist", 'I', Takes::No),
        short("W", Takes::Value),
    ],
    permute: false,
    long_only: false,
};

/// Whether an awk program or sed script filtering a process listing (its
/// standard input after a listing stage, `listing`) or process entries
/// ([`process_file`]) may select a
/// hook process: one of its patterns [`may_select_hook`]. A script
/// naming toolvet counts wherever it reads.
fn script_filter_selects_hook(
    name: &str,
    args: &[Field],
    lines: &[String],
    users: &[String],
    listing: bool,
) -> bool {
    let sed = name == "sed";
    let p = getopt::parse(if sed { &SED } else { &AWK }, args);
    let mut scripts = option_values(&p, &["expression", "source"]);
    let from_file = p.has("file") || p.has("exec") || !p.problems.is_empty();
    let mut operands: Vec<String> = p.operands.iter().map(|&k| args[k].text()).collect();
    if scripts.is_empty() && !(p.has("file") || p.has("exec")) && !operands.is_empty() {
        scripts.push(operands.remove(0));
    }
    if !p.problems.is_empty() {
        // Unplaced words: any of them may be the script.
        scripts.extend(args.iter().map(Field::text));
    }
    let stdin = (listing && operands.iter().all(|o| o == "-" || o.contains('=')))
        || operands.iter().any(|f| process_file(f));
    let script = scripts.join("\n");
    // Every quoted string too, as the text it is (`$2 == "?"`).
    // (A blank alone is a field separator printed, which no field equals.)
    let strings = code_strings(&script)
        .into_iter()
        .filter(|t| !t.trim().is_empty())
        .map(|t| regex_syntax::escape(&t));
    names_toolvet(&script)
        || (stdin
            && (from_file
                || script_patterns(&script)
                    .into_iter()
                    .chain(strings)
                    .any(|p| may_select_listed_hook(&p, lines, users))))
}
