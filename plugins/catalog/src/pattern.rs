//! Paths that may be patterns, matched against the paths the checks guard.
//!
//! A shell word such as `~/.local/state/toolvet/approvals.ke?`,
//! `.claude/setting*.json` or `.claude/{settings,x}.json` names whatever the
//! shell makes of it, so a check that compared it as text with a guarded
//! path would miss the file it names. [`PathPattern`] reads an absolute path
//! as a pattern and answers the three questions the checks ask: does it name
//! a given path, a path below one, or a directory holding one.
//!
//! The syntax is bash's, read so that a pattern never names *less* than the
//! shell could:
//!
//! - `*` (any text within a segment), `?` (one character), `[…]` (a class,
//!   `!` or `^` negating it, `a-z` ranges), `\` escaping the next character;
//! - `{a,b}` alternatives, nested, expanded before matching; `{a..b}` (a
//!   sequence) reads as `*`; more than [`MAX_ALTERNATIVES`] alternatives
//!   name anything (fail closed);
//! - a segment `**` (bash's `globstar`) stands for any number of
//!   segments; `{}` is literal, as in bash;
//! - as bash does without `dotglob`, `*`, `?` and `[…]` at the start of a
//!   segment do not match a leading `.` (`build/*` does not name
//!   `build/.claude`, `.*` does);
//! - letters match ASCII case-insensitively (the guard-rail catalogs do,
//!   for file systems that ignore case).

/// Above this many brace alternatives a pattern names anything.
pub const MAX_ALTERNATIVES: usize = 256;

/// One piece of a segment.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Tok {
    /// A literal character.
    Char(char),
    /// `*`.
    Star,
    /// `?`.
    One,
    /// `[…]`: ranges (inclusive), negated.
    Class(Vec<(char, char)>, bool),
}

/// One segment of a pattern.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Part {
    /// `**`: any number of segments.
    Any,
    /// A segment pattern.
    Name(Vec<Tok>),
}

/// An absolute path read as a shell pattern (see the [module
/// documentation](self)).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PathPattern {
    /// Each brace alternative, as segments. Empty with `everything` set.
    alternatives: Vec<Vec<Part>>,
    /// Too many alternatives: the pattern names any path.
    everything: bool,
    /// Whether anything in it is not literal text.
    pattern: bool,
}

/// Whether `path` holds pattern syntax: an unescaped `*`, `?` or `[`, or
/// a brace group with a comma or `..`.
pub fn is_pattern(path: &str) -> bool {
    PathPattern::new(path).is_pattern()
}

impl PathPattern {
    /// Read `path` (absolute, or a relative path matched as if at `/`).
    pub fn new(path: &str) -> PathPattern {
        let mut texts = Vec::new();
        let everything = !expand_braces(path, &mut texts);
        let mut pattern = everything || texts.len() > 1;
        let alternatives = texts
            .iter()
            .map(|t| {
                // `GLOB/..` is the directory the glob sits in, as `a/..` is.
                collapse_parents(t, None)
                    .0
                    .split('/')
                    .filter(|s| !s.is_empty() && *s != ".")
                    .map(|s| {
                        let part = parse_segment(s);
                        if !matches!(&part, Part::Name(toks) if toks.iter().all(|t| matches!(t, Tok::Char(_))))
                        {
                            pattern = true;
                        }
                        part
                    })
                    .collect()
            })
            .collect();
        PathPattern {
            alternatives,
            everything,
            pattern,
        }
    }

    /// Whether the path holds pattern syntax (otherwise it names itself).
    pub fn is_pattern(&self) -> bool {
        self.pattern
    }

    /// Whether a part of it stands for any number of segments (`**`): it
    /// then names paths at any depth.
    pub fn spans_directories(&self) -> bool {
        self.everything || self.alternatives.iter().any(|alt| alt.contains(&Part::Any))
    }

    /// Whether it names `path` (absolute, lexically clean) itself.
    pub fn matches(&self, path: &str) -> bool {
        self.any(path, |states, n, _| states[n])
    }

    /// Whether it names `path` with a last segment that starts with two
    /// literal characters or more (`.bash*`, `toolvet.t?ml`, not `*`,
    /// `*.toml` or `?ashrc`), or with a literal `.` (`.*`, `.[!.]*`,
    /// `.??*`, `.[a-z]*`: a pattern written to match hidden files, which
    /// `*` skips, means every hidden file it matches): it means that
    /// name, not any file of the directory.
    pub fn matches_by_name(&self, path: &str) -> bool {
        self.any(path, |states, n, alt| {
            states[n]
                && matches!(alt.last(), Some(Part::Name(toks))
                    if matches!(toks.as_slice(), [Tok::Char(_), Tok::Char(_), ..] | [Tok::Char('.'), ..]))
        })
    }

    /// Whether it names `base` or a path below it.
    pub fn names_at_or_under(&self, base: &str) -> bool {
        // After reading `base`, any live state can go on matching (every
        // remaining part matches some name).
        self.any(base, |states, _, _| states.iter().any(|s| *s))
    }

    /// Whether it names `path` or a directory holding it (`/`, `/a`, …).
    pub fn names_at_or_above(&self, path: &str) -> bool {
        if self.everything {
            return true;
        }
        let names = segments(path);
        self.alternatives.iter().any(|alt| {
            let mut states = start(alt);
            if states[alt.len()] {
                return true;
            }
            for name in &names {
                states = step(alt, &states, name);
                if states[alt.len()] {
                    return true;
                }
                if !states.iter().any(|s| *s) {
                    return false;
                }
            }
            false
        })
    }

    /// The directory each alternative starts from: its leading literal
    /// segments (`/w/.claude` of `/w/.claude/setting*.json`), `""` for `/`.
    pub fn literal_bases(&self) -> Vec<String> {
        if self.everything {
            return vec![String::new()];
        }
        self.alternatives
            .iter()
            .map(|alt| {
                let mut base = String::new();
                for part in alt {
                    let Part::Name(toks) = part else { break };
                    let text: Option<String> = toks
                        .iter()
                        .map(|t| match t {
                            Tok::Char(c) => Some(*c),
                            _ => None,
                        })
                        .collect();
                    let Some(text) = text else { break };
                    base.push('/');
                    base.push_str(&text);
                }
                base
            })
            .collect()
    }

    /// Runs every alternative over `path` and asks `done` of the states
    /// reached (the states, the index of the accepting one, the
    /// alternative).
    fn any(&self, path: &str, done: impl Fn(&[bool], usize, &[Part]) -> bool) -> bool {
        if self.everything {
            return true;
        }
        let names = segments(path);
        self.alternatives.iter().any(|alt| {
            let mut states = start(alt);
            for name in &names {
                states = step(alt, &states, name);
                if !states.iter().any(|s| *s) {
                    return false;
                }
            }
            done(&states, alt.len(), alt)
        })
    }
}

/// `path` with each `SEGMENT/..` pair removed lexically, whatever the
/// segment holds: a glob followed by `..` (`*/..`, `s*/..`, `[a-z]*/..`)
/// resolves, for every directory it matches, to the directory the glob
/// sits in, just as a plain segment does (`src/..`), so
/// `*/../../../alice` from `/home/alice/project` is `/home/alice`. A check
/// that judged the text up to its first glob judged the working directory
/// instead. Empty and `.` segments are dropped; a `..` with nothing left
/// to remove is kept (it climbs above where the path starts, which the
/// caller resolves: above a home directory, or at `/`); a trailing `/` is
/// kept; an emptied relative path is `.`. An over-approximation of what
/// the shell does for a glob that matches no directory (the system call
/// then fails), which is the safe side.
///
/// `glob` is a byte offset in `path` of its first glob character; the
/// answer carries its offset in the result, or, when the glob's segment
/// was removed, the offset of the first `*`, `?` or `[` in a later
/// segment that remains (`None` when there is none). `**/..` stays `**`
/// (it could be any directory at or above where `**` starts).
pub fn collapse_parents(path: &str, glob: Option<usize>) -> (String, Option<usize>) {
    let absolute = path.starts_with('/');
    // Kept segments as (start, end) byte ranges of `path`.
    let mut kept: Vec<(usize, usize)> = Vec::new();
    let mut start = 0;
    for seg in path.split('/') {
        let range = (start, start + seg.len());
        start = range.1 + 1;
        match seg {
            "" | "." => {}
            // `**/..` could be any directory at or above where `**`
            // starts: `**` alone names all of them.
            ".." if kept.last().is_some_and(|&(a, b)| &path[a..b] == "**") => {}
            ".." if kept.last().is_some_and(|&(a, b)| &path[a..b] != "..") => {
                kept.pop();
            }
            _ => kept.push(range),
        }
    }
    let mut out = String::with_capacity(path.len());
    let mut new_glob = None;
    for (i, &(a, b)) in kept.iter().enumerate() {
        if i > 0 || absolute {
            out.push('/');
        }
        if new_glob.is_none()
            && let Some(g) = glob
        {
            if (a..b).contains(&g) {
                new_glob = Some(out.len() + g - a);
            } else if a > g
                && let Some(k) = path[a..b].find(['*', '?', '['])
            {
                new_glob = Some(out.len() + k);
            }
        }
        out.push_str(&path[a..b]);
    }
    if out.is_empty() {
        out.push_str(if absolute { "/" } else { "." });
    } else if path.len() > 1 && path.ends_with('/') && !out.ends_with('/') {
        out.push('/');
    }
    (out, new_glob)
}

/// The segments of an absolute, clean path.
fn segments(path: &str) -> Vec<&str> {
    path.split('/')
        .filter(|s| !s.is_empty() && *s != ".")
        .collect()
}

/// The states before any name: 0, and every state reachable through
/// leading `Any` parts.
fn start(alt: &[Part]) -> Vec<bool> {
    let mut states = vec![false; alt.len() + 1];
    states[0] = true;
    close(alt, &mut states);
    states
}

/// Adds the states an `Any` part can skip to (it matches no segment).
fn close(alt: &[Part], states: &mut [bool]) {
    for i in 0..alt.len() {
        if states[i] && alt[i] == Part::Any {
            states[i + 1] = true;
        }
    }
}

/// The states after reading one segment `name`.
fn step(alt: &[Part], states: &[bool], name: &str) -> Vec<bool> {
    let mut next = vec![false; alt.len() + 1];
    for i in 0..alt.len() {
        if !states[i] {
            continue;
        }
        match &alt[i] {
            Part::Any => {
                next[i] = true;
                next[i + 1] = true;
            }
            Part::Name(toks) => {
                if segment_matches(toks, name) {
                    next[i + 1] = true;
                }
            }
        }
    }
    close(alt, &mut next);
    next
}

/// Whether a segment pattern matches the name `name` (no `/`).
fn segment_matches(toks: &[Tok], name: &str) -> bool {
    let chars: Vec<char> = name.chars().collect();
    // A leading `.` is matched only by a literal `.`.
    if chars.first() == Some(&'.') && !matches!(toks.first(), Some(Tok::Char('.'))) {
        return false;
    }
    // Classic two-pointer wildcard match with backtracking on `*`.
    let (mut t, mut c) = (0, 0);
    let mut back: Option<(usize, usize)> = None;
    while c < chars.len() {
        let ok = match toks.get(t) {
            Some(Tok::Star) => {
                back = Some((t, c));
                t += 1;
                continue;
            }
            Some(Tok::Char(p)) => p.eq_ignore_ascii_case(&chars[c]),
            Some(Tok::One) => true,
            Some(Tok::Class(ranges, negated)) => {
                let ch = chars[c];
                let lower = ch.to_ascii_lowercase();
                let upper = ch.to_ascii_uppercase();
                let hit = ranges.iter().any(|(a, b)| {
                    (*a..=*b).contains(&ch)
                        || (*a..=*b).contains(&lower)
                        || (*a..=*b).contains(&upper)
                });
                hit != *negated
            }
            None => false,
        };
        if ok {
            t += 1;
            c += 1;
        } else if let Some((bt, bc)) = back {
            t = bt + 1;
            c = bc + 1;
            back = Some((bt, bc + 1));
        } else {
            return false;
        }
    }
    toks[t..].iter().all(|k| *k == Tok::Star)
}

/// One segment's text as a part.
fn parse_segment(s: &str) -> Part {
    if s == "**" {
        return Part::Any;
    }
    let chars: Vec<char> = s.chars().collect();
    let mut toks = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        match chars[i] {
            '\\' if i + 1 < chars.len() => {
                toks.push(Tok::Char(chars[i + 1]));
                i += 2;
                continue;
            }
            '*' => {
                if toks.last() != Some(&Tok::Star) {
                    toks.push(Tok::Star);
                }
            }
            '?' => toks.push(Tok::One),
            '[' => {
                if let Some((class, len)) = parse_class(&chars[i..]) {
                    toks.push(class);
                    i += len;
                    continue;
                }
                toks.push(Tok::Char('['));
            }
            c => toks.push(Tok::Char(c)),
        }
        i += 1;
    }
    Part::Name(toks)
}

/// A `[…]` class at the start of `chars`, with its length; `None` when it
/// is not closed (then `[` is literal, as in bash).
fn parse_class(chars: &[char]) -> Option<(Tok, usize)> {
    let mut i = 1;
    let negated = matches!(chars.get(1), Some('!' | '^'));
    if negated {
        i += 1;
    }
    let mut ranges = Vec::new();
    let mut first = true;
    while let Some(&c) = chars.get(i) {
        if c == ']' && !first {
            return Some((Tok::Class(ranges, negated), i + 1));
        }
        first = false;
        // `[:alpha:]` and friends: any character (over-approximation).
        if c == '[' && chars.get(i + 1) == Some(&':') {
            ranges.push(('\0', char::MAX));
            let close = (i + 2..chars.len().saturating_sub(1))
                .find(|&k| chars[k] == ':' && chars[k + 1] == ']')?;
            i = close + 2;
            continue;
        }
        let c = if c == '\\' {
            i += 1;
            *chars.get(i)?
        } else {
            c
        };
        if chars.get(i + 1) == Some(&'-') && chars.get(i + 2).is_some_and(|e| *e != ']') {
            let end = chars[i + 2];
            ranges.push((c.min(end), c.max(end)));
            i += 3;
        } else {
            ranges.push((c, c));
            i += 1;
        }
    }
    None
}

/// Expands the brace groups of `text` into `out`, as bash does (a group
/// needs a comma or `..` at its top level; `{}` and `{x}` stay literal).
/// Returns `false` when there are more than [`MAX_ALTERNATIVES`].
fn expand_braces(text: &str, out: &mut Vec<String>) -> bool {
    let chars: Vec<char> = text.chars().collect();
    let mut work = vec![chars];
    let mut done: Vec<String> = Vec::new();
    while let Some(w) = work.pop() {
        match first_group(&w) {
            None => done.push(w.iter().collect()),
            Some((open, close, commas)) => {
                let prefix = &w[..open];
                let suffix = &w[close + 1..];
                if commas.is_empty() {
                    // `{a..b}`: a sequence, read as any text.
                    let mut v = prefix.to_vec();
                    v.push('*');
                    v.extend_from_slice(suffix);
                    work.push(v);
                } else {
                    let mut bounds = vec![open];
                    bounds.extend(&commas);
                    bounds.push(close);
                    for pair in bounds.windows(2) {
                        let mut v = prefix.to_vec();
                        v.extend_from_slice(&w[pair[0] + 1..pair[1]]);
                        v.extend_from_slice(suffix);
                        work.push(v);
                    }
                }
            }
        }
        if work.len() + done.len() > MAX_ALTERNATIVES {
            return false;
        }
    }
    done.reverse();
    out.extend(done);
    true
}

/// The first brace group that expands: (open, close, top-level commas);
/// commas empty for a `{a..b}` sequence.
fn first_group(w: &[char]) -> Option<(usize, usize, Vec<usize>)> {
    let mut i = 0;
    while i < w.len() {
        match w[i] {
            '\\' => i += 1,
            '{' => {
                let mut depth = 0;
                let mut commas = Vec::new();
                let mut k = i;
                while k < w.len() {
                    match w[k] {
                        '\\' => k += 1,
                        '{' => depth += 1,
                        '}' => {
                            depth -= 1;
                            if depth == 0 {
                                break;
                            }
                        }
                        ',' if depth == 1 => commas.push(k),
                        _ => {}
                    }
                    k += 1;
                }
                if k < w.len() {
                    let inner: String = w[i + 1..k].iter().collect();
                    if !commas.is_empty() || (inner.contains("..") && !inner.contains('/')) {
                        return Some((i, k, commas));
                    }
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literal_paths_are_not_patterns() {
        for p in ["/a/b", "/a/{}/b", "/a/{x}/b", "/a/b\\*", "/a/[b"] {
            assert!(!PathPattern::new(p).is_pattern(), "{p}");
        }
        assert!(PathPattern::new("/a/b").matches("/a/b"));
        assert!(!PathPattern::new("/a/b").matches("/a/bc"));
    }

    #[test]
    fn globs_match_within_a_segment() {
        let p = PathPattern::new("/h/.local/state/toolvet/approvals.ke?");
        assert!(p.is_pattern());
        assert!(p.matches("/h/.local/state/toolvet/approvals.key"));
        assert!(!p.matches("/h/.local/state/toolvet/approvals.db"));
        let p = PathPattern::new("/w/.claude/setting*.json");
        assert!(p.matches("/w/.claude/settings.json"));
        assert!(p.matches("/w/.claude/settings.local.json"));
        assert!(!p.matches("/w/.claude/x/settings.json"));
        let p = PathPattern::new("/w/.c[a-l]aude/settings.json");
        assert!(p.matches("/w/.claude/settings.json"));
        assert!(p.matches("/w/.CLAUDE/settings.json"));
        assert!(!PathPattern::new("/w/.c[!l]aude/x").matches("/w/.claude/x"));
        assert!(PathPattern::new("/w/[[:alpha:]]pp").matches("/w/app"));
    }

    #[test]
    fn a_leading_dot_needs_a_literal_dot() {
        assert!(!PathPattern::new("/w/build/*").matches("/w/build/.claude"));
        assert!(!PathPattern::new("/w/?claude").matches("/w/.claude"));
        assert!(PathPattern::new("/w/.*").matches("/w/.claude"));
        assert!(PathPattern::new("/w/.[a-z]*").matches("/w/.claude"));
        assert!(PathPattern::new("/w/*").matches("/w/examples"));
    }

    #[test]
    fn braces_expand_and_sequences_read_as_any_text() {
        let p = PathPattern::new("/w/.claude/{settings,x}.json");
        assert!(p.is_pattern());
        assert!(p.matches("/w/.claude/settings.json"));
        assert!(p.matches("/w/.claude/x.json"));
        let p = PathPattern::new("/w/{.cl{a,o}ude,y}/s");
        assert!(p.matches("/w/.claude/s"));
        assert!(p.matches("/w/.cloude/s"));
        assert!(p.matches("/w/y/s"));
        assert!(PathPattern::new("/w/f{1..9}").matches("/w/f7"));
        // Past the bound, anything.
        let many = format!("/w/{}", "{a,b}".repeat(9));
        assert!(PathPattern::new(&many).matches("/etc/passwd"));
    }

    #[test]
    fn under_and_above() {
        let p = PathPattern::new("/h/.local/state/*");
        assert!(p.names_at_or_under("/h/.local/state/toolvet"));
        assert!(!p.names_at_or_under("/h/.local/state/toolvet/approvals.key"));
        assert!(p.names_at_or_above("/h/.local/state/toolvet/approvals.key"));
        assert!(!p.names_at_or_under("/h/.local/other/x"));
        let p = PathPattern::new("/h/.local/state/toolvet/*");
        assert!(p.names_at_or_under("/h/.local/state/toolvet"));
        assert!(!p.names_at_or_above("/h/.local/state/toolvet"));
        let below = PathPattern::new("/w/.claude/**");
        assert!(below.matches("/w/.claude/settings.json"));
        assert!(below.matches("/w/.claude/hooks/x.sh"));
        let deep = PathPattern::new("/w/**/settings.json");
        assert!(deep.matches("/w/.claude/settings.json"));
        assert!(deep.matches("/w/settings.json"));
        assert!(!deep.matches("/v/settings.json"));
    }

    #[test]
    fn a_glob_followed_by_dotdot_is_the_directory_it_sits_in() {
        let c = |p: &str| collapse_parents(p, None).0;
        // Red-team review: `rm -rf */../../../alice` from the project.
        assert_eq!(c("*/../../../alice"), "../../alice");
        assert_eq!(c("./s*/../../../alice"), "../../alice");
        assert_eq!(c("./[a-z]*/../../../alice"), "../../alice");
        assert_eq!(c("/h/alice/p/*/../../../alice"), "/h/alice");
        assert_eq!(c("/h/p/s?c/.."), "/h/p");
        assert_eq!(c("*/.."), ".");
        assert_eq!(c("/*/.."), "/");
        assert_eq!(c("/*/../../x"), "/../x", "a `..` above the start is kept");
        assert_eq!(c("a//./b/"), "a/b/");
        assert_eq!(c("/w/**/../x"), "/w/**/x", "`**/..` stays any depth");
        assert_eq!(c("src/*.rs"), "src/*.rs");
        // The first glob's offset follows the text, or moves to the next
        // glob that remains.
        assert_eq!(
            collapse_parents("*/../../x", Some(0)),
            ("../x".into(), None)
        );
        assert_eq!(
            collapse_parents("./s*/../b/*", Some(3)),
            ("b/*".into(), Some(2))
        );
        assert_eq!(collapse_parents("a/../b*", Some(6)), ("b*".into(), Some(1)));
        // The pattern reads the collapsed path: it names what it reaches.
        let p = PathPattern::new("/h/alice/project/*/../../../alice/.bashrc");
        assert!(p.matches("/h/alice/.bashrc"));
        assert!(!p.matches("/h/alice/project/x/.bashrc"));
        assert!(
            PathPattern::new("/w/.claude/*/../settings.json").matches("/w/.claude/settings.json")
        );
    }

    #[test]
    fn a_pattern_starting_with_a_dot_names_hidden_files() {
        for p in ["/w/.*", "/w/.[!.]*", "/w/.??*", "/w/.[a-z]*"] {
            let p = PathPattern::new(p);
            assert!(p.matches_by_name("/w/.claude"), "{p:?}");
            assert!(p.matches_by_name("/w/.bashrc"), "{p:?}");
        }
        assert!(!PathPattern::new("/w/*").matches_by_name("/w/.bashrc"));
        assert!(!PathPattern::new("/w/?ashrc").matches_by_name("/w/bashrc"));
        assert!(!PathPattern::new("/w/*.toml").matches_by_name("/w/toolvet.toml"));
    }
}
