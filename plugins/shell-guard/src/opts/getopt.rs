//! Options read as the program's own parser reads them.
//!
//! Most programs the check looks through (`env`, `timeout`, `nice`,
//! `pkill`, `systemd-run`, `gdb`, …) read their options with glibc's
//! `getopt_long` or `getopt_long_only`, git with its parse-options. They
//! share rules an agent can use to hide a word from a reader that only
//! knows exact spellings (reviews s16 and s17):
//!
//! - short options bundle (`-qp VALUE`, `-ix CMD`), and the first one
//!   that takes a value takes the rest of the word, or the next word;
//! - a long option may be written as any unique prefix (`--sig` for
//!   `--signal`, `--fu` for `--full`), with its value after `=` or as the
//!   next word;
//! - `getopt_long_only` programs (gdb) also take long options after one
//!   dash (`-comm=F`);
//! - options may follow operands (GNU permutation) unless the program
//!   stops at its first operand (`+` in the option string: every command
//!   runner).
//!
//! A program's options are one table, a [`Spec`]; [`parse`] reads an
//! argument list by it into [`Parsed`]. A word the table cannot place (an
//! unknown option, an ambiguous prefix, a missing value) is kept in
//! [`Parsed::problems`]: the program would refuse it, or it is an option
//! the table lacks, so a caller that needs the command's meaning holds it.

use crate::syntax::Field;

/// Whether an option takes a value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Takes {
    /// A flag.
    No,
    /// A value: the rest of a short cluster, `=VALUE`, or the next word.
    Value,
    /// An optional value: only joined (`-d3`, `--debug=3`).
    Optional,
}

/// One option of a program's table.
#[derive(Clone, Copy, Debug)]
pub struct Opt {
    /// The name callers ask for: the long option without dashes, or for
    /// a short-only option its letter (`"k"`).
    pub name: &'static str,
    /// Its short letter, `'\0'` when none.
    pub short: char,
    /// Whether `name` is also a long option's spelling.
    pub long: bool,
    /// Whether it takes a value.
    pub takes: Takes,
}

/// A long option, with its short letter (`'\0'` for none).
pub const fn long(name: &'static str, short: char, takes: Takes) -> Opt {
    Opt {
        name,
        short,
        long: true,
        takes,
    }
}

/// A short-only option; its name is its letter.
pub const fn short(name: &'static str, takes: Takes) -> Opt {
    let b = name.as_bytes();
    assert!(b.len() == 1);
    Opt {
        name,
        short: b[0] as char,
        long: false,
        takes,
    }
}

/// A program's options, as its parser reads them.
#[derive(Clone, Copy, Debug)]
pub struct Spec {
    /// Every option the program takes.
    pub opts: &'static [Opt],
    /// Options may follow operands (GNU's default). `false` for programs
    /// that stop at their first operand: the command a runner runs.
    pub permute: bool,
    /// `getopt_long_only`: long options after one dash too.
    pub long_only: bool,
}

/// One option found, with its value.
#[derive(Clone, Debug)]
pub struct Found {
    /// The option's table entry.
    pub opt: &'static Opt,
    /// Its value, when it takes one and one was given.
    pub value: Option<Field>,
    /// The index of the word that named it.
    pub at: usize,
}

/// An argument list read by a [`Spec`].
#[derive(Clone, Debug, Default)]
pub struct Parsed {
    /// The options, in order.
    pub found: Vec<Found>,
    /// Indexes of the operands, in order.
    pub operands: Vec<usize>,
    /// Where the options end: with `permute: false`, the first operand
    /// (the command a runner runs), or the word after `--`; otherwise the
    /// length of the list.
    pub end: usize,
    /// Words the table cannot place, described (`unknown option --foo`,
    /// `ambiguous option --s`, `option --signal needs a value`).
    pub problems: Vec<String>,
}

impl Parsed {
    /// Whether option `name` was given.
    pub fn has(&self, name: &str) -> bool {
        self.found.iter().any(|f| f.opt.name == name)
    }

    /// The values given to option `name`, in order.
    pub fn values<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a Field> + 'a {
        self.found
            .iter()
            .filter(move |f| f.opt.name == name)
            .filter_map(|f| f.value.as_ref())
    }
}

/// How a long option's spelling resolves.
enum Resolved {
    One(&'static Opt),
    None,
    Ambiguous,
}

/// The long option `n` names: an exact spelling, else the only option it
/// is a prefix of (aliases of one option count once).
fn resolve(spec: &Spec, n: &str) -> Resolved {
    if n.is_empty() {
        return Resolved::None;
    }
    if let Some(o) = spec.opts.iter().find(|o| o.long && o.name == n) {
        return Resolved::One(o);
    }
    let mut hit: Option<&'static Opt> = None;
    for o in spec.opts.iter().filter(|o| o.long && o.name.starts_with(n)) {
        match hit {
            Some(h) if h.name != o.name || h.takes != o.takes => return Resolved::Ambiguous,
            _ => hit = Some(o),
        }
    }
    hit.map_or(Resolved::None, Resolved::One)
}

/// Read `args` by `spec`.
pub fn parse(spec: &Spec, args: &[Field]) -> Parsed {
    let mut p = Parsed {
        end: args.len(),
        ..Parsed::default()
    };
    let mut i = 0;
    while i < args.len() {
        let at = i;
        let t = args[i].text();
        i += 1;
        if t == "--" {
            p.operands.extend(i..args.len());
            p.end = if spec.permute { args.len() } else { i };
            return p;
        }
        if t == "-" || !t.starts_with('-') {
            if !spec.permute {
                p.end = at;
                p.operands.extend(at..args.len());
                return p;
            }
            p.operands.push(at);
            continue;
        }
        let body = t.strip_prefix("--").or_else(|| {
            // getopt_long_only: `-name` is long unless it is one valid
            // short letter, or names no long option.
            let b = &t[1..];
            let n = b.split_once('=').map_or(b, |(n, _)| n);
            let single_short =
                b.chars().count() == 1 && spec.opts.iter().any(|o| b.starts_with(o.short));
            (spec.long_only && !single_short && !matches!(resolve(spec, n), Resolved::None))
                .then_some(b)
        });
        if let Some(body) = body {
            let (n, joined) = match body.split_once('=') {
                Some((n, v)) => (n, Some(v)),
                None => (body, None),
            };
            match resolve(spec, n) {
                Resolved::One(opt) => {
                    let value = match (opt.takes, joined) {
                        (Takes::No, Some(_)) => {
                            p.problems
                                .push(format!("option --{} takes no value", opt.name));
                            None
                        }
                        (Takes::No, None) | (Takes::Optional, None) => None,
                        (_, Some(v)) => Some(Field::lit(v)),
                        (Takes::Value, None) => {
                            i += 1;
                            match args.get(i - 1) {
                                Some(v) => Some(v.clone()),
                                None => {
                                    p.problems
                                        .push(format!("option --{} needs a value", opt.name));
                                    None
                                }
                            }
                        }
                    };
                    p.found.push(Found { opt, value, at });
                }
                Resolved::None => p.problems.push(format!("unknown option `{t}`")),
                Resolved::Ambiguous => p.problems.push(format!("ambiguous option `{t}`")),
            }
            continue;
        }
        // A cluster of short options.
        let cluster = &t[1..];
        for (k, c) in cluster.char_indices() {
            let Some(opt) = spec.opts.iter().find(|o| o.short == c && c != '\0') else {
                p.problems.push(format!("unknown option `-{c}` in `{t}`"));
                break;
            };
            let rest = &cluster[k + c.len_utf8()..];
            let value = match opt.takes {
                Takes::No => {
                    p.found.push(Found {
                        opt,
                        value: None,
                        at,
                    });
                    continue;
                }
                Takes::Optional => (!rest.is_empty()).then(|| Field::lit(rest)),
                Takes::Value if !rest.is_empty() => Some(Field::lit(rest)),
                Takes::Value => {
                    i += 1;
                    match args.get(i - 1) {
                        Some(v) => Some(v.clone()),
                        None => {
                            p.problems.push(format!("option -{c} needs a value"));
                            None
                        }
                    }
                }
            };
            p.found.push(Found { opt, value, at });
            break;
        }
    }
    p
}

#[cfg(test)]
mod tests {
    use super::*;

    const SPEC: Spec = Spec {
        opts: &[
            long("signal", 's', Takes::Value),
            long("kill-after", 'k', Takes::Value),
            long("kill", '\0', Takes::No),
            long("verbose", 'v', Takes::No),
            long("debug", 'd', Takes::Optional),
            short("q", Takes::No),
        ],
        permute: false,
        long_only: false,
    };

    fn words(s: &str) -> Vec<Field> {
        s.split_whitespace().map(Field::lit).collect()
    }

    fn values(p: &Parsed, name: &str) -> Vec<String> {
        p.values(name).map(Field::text).collect()
    }

    #[test]
    fn prefixes_clusters_and_the_end_of_options() {
        let a = words("--sig TERM -qvk5 --kill-a=9 10 cmd -s x");
        let p = parse(&SPEC, &a);
        assert_eq!(values(&p, "signal"), ["TERM"]);
        assert_eq!(values(&p, "kill-after"), ["5", "9"]);
        assert!(p.has("q") && p.has("verbose"));
        assert_eq!(p.end, 4, "{p:?}");
        assert!(p.problems.is_empty(), "{p:?}");
        // `--kil` is a prefix of two options: ambiguous; `--kill` is exact.
        let p = parse(&SPEC, &words("--kil 3 cmd"));
        assert_eq!(p.problems.len(), 1, "{p:?}");
        let p = parse(&SPEC, &words("--kill cmd"));
        assert!(p.has("kill") && p.end == 1, "{p:?}");
        // An optional value is only joined.
        let p = parse(&SPEC, &words("-d 3 cmd"));
        assert_eq!((values(&p, "debug").len(), p.end), (0, 1));
        let p = parse(&SPEC, &words("--deb=3 -- -cmd"));
        assert_eq!((values(&p, "debug"), p.end), (vec!["3".to_string()], 2));
        // Unknown options and a missing value are problems.
        let p = parse(&SPEC, &words("-a q cmd --signal"));
        assert_eq!(p.problems.len(), 1, "{p:?}");
        assert_eq!(p.end, 1);
        let p = parse(&SPEC, &words("-s"));
        assert_eq!(p.problems.len(), 1, "{p:?}");
    }

    #[test]
    fn permutation_and_long_only() {
        let spec = Spec {
            permute: true,
            long_only: true,
            ..SPEC
        };
        let p = parse(&spec, &words("pat -sig=9 other -v -k 1"));
        assert_eq!(p.operands, [0, 2]);
        assert_eq!(values(&p, "signal"), ["9"]);
        assert_eq!(values(&p, "kill-after"), ["1"]);
        assert!(p.has("verbose"));
        // One valid short letter stays short; a word naming no long option
        // is a cluster.
        let p = parse(&spec, &words("-q -vq"));
        assert!(
            p.has("q") && p.has("verbose") && p.problems.is_empty(),
            "{p:?}"
        );
    }
}
