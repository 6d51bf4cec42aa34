//! The sqlite3 command-line shell's own input, read as `shell.c` reads it
//! (review s22 V2, W2).
//!
//! The property a `sqlite3` command must prove to pass: **its whole input
//! (the arguments after the database, `-cmd` values, the text on standard
//! input when the command shows it) is SQL and dot-commands this reader
//! fully understands**:
//!
//! - a dot-command is read as `do_meta_command` reads it: its name and
//!   arguments split at white space, `'…'` taken as is, `"…"` and
//!   unquoted words with C escapes decoded (`.shell "r\155"` is `rm`,
//!   `.output \174sh` a pipe; a backslash outside quotes holds, as
//!   sqlite3 versions differ, review s23 V1), the name itself quoted
//!   too (`."sh"`); sqlite3 takes any prefix of a command's name (`.sh`,
//!   `.sys`), so only a name spelled out in full is matched against the
//!   short list of commands that read or format ([`READ_ONLY`]); a prefix
//!   of `.shell`/`.system`, or a `|COMMAND` target of `.output`, `.once`,
//!   `.read`, `.import`, is a shell command, judged as one; `.output F`,
//!   `.once F`, `.save F`, `.backup [DB] F`, `.open F` are writes of F,
//!   judged by the write rules, and pass when F is literal; any other
//!   dot-command (`.load`, `.cd`, `.log`, `.trace`, `.excel`, `.system`
//!   spelled otherwise, an abbreviation) is held;
//! - SQL may not name a function or table the shell adds that runs a
//!   program, loads code or reads or writes other files (`edit`,
//!   `load_extension`, `readfile`, `writefile`, `fsdir`, `zipfile`, …; an
//!   identifier in any quoting counts); `ATTACH 'F'` and `VACUUM INTO 'F'`
//!   write F (judged), and a file name that is not a literal string holds;
//! - options are read wherever they stand (before or after the
//!   database, as sqlite3's `main` reads them); `-init FILE` (not read)
//!   and options the table does not know hold;
//! - a `#` line is a comment, and a `.` line a dot-command, only on
//!   standard input and only where no SQL statement is pending (not
//!   inside a string literal spanning lines); a command-line argument is
//!   one dot-command or SQL whole;
//!   `-safe` (without `-unsafe-testing`) proves the input: sqlite3 itself
//!   then refuses all of the above.
//!
//! Input the command does not show (`sqlite3 db < file.sql`) is not read;
//! decoded or downloaded input (`… | base64 -d | sqlite3`) holds.

use crate::syntax::{Field, Output};
use crate::walk::{Analysis, Env};

/// Dot-commands that only read, print or format (sqlite3's `.help`).
const READ_ONLY: &[&str] = &[
    "bail",
    "changes",
    "databases",
    "dbinfo",
    "dump",
    "echo",
    "eqp",
    "exit",
    "explain",
    "fullschema",
    "header",
    "headers",
    "help",
    "indexes",
    "indices",
    "limit",
    "limits",
    "lint",
    "mode",
    "nullvalue",
    "print",
    "prompt",
    "quit",
    "schema",
    "separator",
    "show",
    "stats",
    "tables",
    "timeout",
    "timer",
    "width",
];

/// Names of functions and tables the sqlite3 shell (or SQLite) provides
/// that run programs, load code, or read or write files other than the
/// database (shell.c's `edit`, `readfile`, `writefile`, `fsdir`,
/// `zipfile`, `lsmode`; SQLite's `load_extension`, `fts3_tokenizer`).
const UNSAFE_NAMES: &[&str] = &[
    "edit",
    "load_extension",
    "readfile",
    "writefile",
    "fsdir",
    "zipfile",
    "zipfile_cds",
    "fts3_tokenizer",
    "sqlite_dbpage",
];

/// sqlite3's options (`sqlite3 -help`; one dash or two), with how many
/// values they take (`-lookaside` and `-pagecache` take two). `-A`
/// (`.archive`, which extracts files) is not listed: held.
const OPTIONS: &[(&str, usize)] = &[
    ("append", 0),
    ("ascii", 0),
    ("bail", 0),
    ("batch", 0),
    ("box", 0),
    ("column", 0),
    ("cmd", 1),
    ("csv", 0),
    ("deserialize", 0),
    ("echo", 0),
    ("init", 1),
    ("header", 0),
    ("noheader", 0),
    ("help", 0),
    ("html", 0),
    ("interactive", 0),
    ("json", 0),
    ("line", 0),
    ("list", 0),
    ("lookaside", 2),
    ("markdown", 0),
    ("maxsize", 1),
    ("memtrace", 0),
    ("mmap", 1),
    ("newline", 1),
    ("nofollow", 0),
    ("nonce", 1),
    ("nullvalue", 1),
    ("pagecache", 2),
    ("pcachetrace", 0),
    ("quote", 0),
    ("readonly", 0),
    ("safe", 0),
    ("separator", 1),
    ("stats", 0),
    ("table", 0),
    ("tabs", 0),
    ("unsafe-testing", 0),
    ("version", 0),
    ("vfs", 1),
    ("zip", 0),
    ("heap", 1),
    ("key", 1),
];

/// What a sqlite3 input needs judged.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Reading {
    /// Shell commands it runs (`.shell`, `.sh`, `.output '|cmd'`).
    pub commands: Vec<String>,
    /// Files it writes (`.output F`, `ATTACH 'F'`, `VACUUM INTO 'F'`).
    pub writes: Vec<String>,
    /// What it does that is not proven (held).
    pub unproven: Vec<String>,
}

/// `text` with shell.c's `resolve_backslashes` applied: `\a \b \t \n \v
/// \f \r \" \' \\`, octal `\NNN`, hex `\xHH`.
fn resolve_backslashes(text: &str) -> String {
    let b = text.as_bytes();
    let mut out: Vec<u8> = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i] != b'\\' || i + 1 >= b.len() {
            out.push(b[i]);
            i += 1;
            continue;
        }
        i += 1;
        let c = b[i];
        i += 1;
        let v = match c {
            b'a' => 7,
            b'b' => 8,
            b't' => b'\t',
            b'n' => b'\n',
            b'v' => 11,
            b'f' => 12,
            b'r' => b'\r',
            b'x' => {
                let mut v: u32 = 0;
                let mut k = 0;
                while k < 2 && i < b.len() && b[i].is_ascii_hexdigit() {
                    v = v * 16 + (b[i] as char).to_digit(16).unwrap_or(0);
                    i += 1;
                    k += 1;
                }
                v as u8
            }
            b'0'..=b'7' => {
                let mut v: u32 = u32::from(c - b'0');
                let mut k = 0;
                while k < 2 && i < b.len() && (b'0'..=b'7').contains(&b[i]) {
                    v = v * 8 + u32::from(b[i] - b'0');
                    i += 1;
                    k += 1;
                }
                v as u8
            }
            other => other,
        };
        out.push(v);
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// A dot-command line split as `do_meta_command` splits it (without the
/// leading `.`): words at white space, `'…'` as is, `"…"` decoded.
fn meta_words(line: &str) -> Vec<String> {
    let b: Vec<char> = line.chars().collect();
    let mut words = Vec::new();
    let mut i = 0;
    loop {
        while i < b.len() && b[i].is_whitespace() {
            i += 1;
        }
        if i >= b.len() {
            break;
        }
        let q = b[i];
        if q == '\'' || q == '"' {
            i += 1;
            let start = i;
            while i < b.len() && b[i] != q {
                if b[i] == '\\' && q == '"' && i + 1 < b.len() {
                    i += 1;
                }
                i += 1;
            }
            let w: String = b[start..i.min(b.len())].iter().collect();
            i += 1;
            words.push(if q == '"' { resolve_backslashes(&w) } else { w });
        } else {
            let start = i;
            while i < b.len() && !b[i].is_whitespace() {
                i += 1;
            }
            let w: String = b[start..i].iter().collect();
            // sqlite3 (3.40's `do_meta_command`) decodes an unquoted word
            // too: `\174sh` is `|sh` (review s23 V1). Versions differ, so
            // the decoded word is what is matched, and the caller holds a
            // line with a backslash outside quotes.
            words.push(resolve_backslashes(&w));
        }
    }
    words
}

/// The command `.shell`/`.system` runs for its arguments (shell.c: each
/// argument with a space in it is put in double quotes).
fn system_text(args: &[String]) -> String {
    args.iter()
        .map(|a| {
            if a.contains(' ') {
                format!("\"{a}\"")
            } else {
                a.clone()
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// Whether a dot-command line has a backslash in an unquoted word:
/// whether sqlite3 decodes it depends on its version, so it is held.
fn unquoted_backslash(line: &str) -> bool {
    let mut quote: Option<char> = None;
    let mut escaped = false;
    for c in line.chars() {
        match quote {
            Some(q) => {
                if escaped {
                    escaped = false;
                } else if c == '\\' && q == '"' {
                    escaped = true;
                } else if c == q {
                    quote = None;
                }
            }
            None if c == '\\' => return true,
            None if c == '\'' || c == '"' => quote = Some(c),
            None => {}
        }
    }
    false
}

/// Read one dot-command line (without its `.`).
fn dot_command(line: &str, r: &mut Reading) {
    if unquoted_backslash(line) {
        r.unproven.push(format!(
            "`.{line}` has a backslash outside quotes, which sqlite3 may decode into any text"
        ));
    }
    let words = meta_words(line);
    let Some((name, args)) = words.split_first() else {
        return;
    };
    let n = name.len();
    let prefix_of = |full: &str, min: usize| n >= min && full.starts_with(name.as_str());
    if prefix_of("shell", 2) || prefix_of("system", 2) {
        r.commands.push(system_text(args));
        r.unproven.push(format!(".{name} runs a shell command"));
        return;
    }
    // A `|COMMAND` target of any command that opens one.
    let piped: Vec<&String> = args.iter().filter(|a| a.starts_with('|')).collect();
    if !piped.is_empty() {
        for p in piped {
            r.commands.push(p[1..].to_string());
        }
        r.unproven
            .push(format!(".{name} runs a command through a pipe"));
        return;
    }
    let files: Vec<&String> = args.iter().filter(|a| !a.starts_with('-')).collect();
    match name.as_str() {
        n if READ_ONLY.contains(&n) => {}
        "output" | "once" if args.iter().all(|a| !a.starts_with('-')) && files.len() <= 1 => {
            r.writes.extend(files.into_iter().cloned());
        }
        "save" | "backup" | "open"
            if args.iter().all(|a| !a.starts_with('-')) && !files.is_empty() =>
        {
            r.writes.extend(files.last().map(|f| f.to_string()));
        }
        _ => r.unproven.push(format!(
            ".{name} is not a dot-command this check can prove harmless"
        )),
    }
}

/// The tokens of SQL text: `Ok(id)` an identifier (bare, `"…"`, `` `…` ``,
/// `[…]`, lower-cased), a number or one punctuation character; `Err(s)` a
/// string literal. Comments are skipped.
fn sql_tokens(sql: &str) -> Vec<Result<String, String>> {
    let b: Vec<char> = sql.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c == '-' && b.get(i + 1) == Some(&'-') {
            while i < b.len() && b[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && b.get(i + 1) == Some(&'*') {
            i += 2;
            while i < b.len() && !(b[i] == '*' && b.get(i + 1) == Some(&'/')) {
                i += 1;
            }
            i += 2;
        } else if c == '\'' || c == '"' || c == '`' || c == '[' {
            let close = if c == '[' { ']' } else { c };
            let mut s = String::new();
            i += 1;
            while i < b.len() {
                if b[i] == close {
                    if close != ']' && b.get(i + 1) == Some(&close) {
                        s.push(close);
                        i += 2;
                        continue;
                    }
                    break;
                }
                s.push(b[i]);
                i += 1;
            }
            i += 1;
            out.push(if c == '\'' {
                Err(s)
            } else {
                Ok(s.to_lowercase())
            });
        } else if c.is_alphabetic() || c == '_' {
            let start = i;
            while i < b.len() && (b[i].is_alphanumeric() || b[i] == '_' || b[i] == '$') {
                i += 1;
            }
            out.push(Ok(b[start..i].iter().collect::<String>().to_lowercase()));
        } else if c.is_whitespace() {
            i += 1;
        } else {
            // Punctuation, one character a token (`||`, `(`, `;`).
            out.push(Ok(c.to_string()));
            i += 1;
        }
    }
    out
}

/// Read SQL text: names that run programs or touch other files, and the
/// files `ATTACH` and `VACUUM INTO` write.
fn sql(text: &str, r: &mut Reading) {
    let tokens = sql_tokens(text);
    for (k, t) in tokens.iter().enumerate() {
        let Ok(id) = t else { continue };
        if UNSAFE_NAMES.contains(&id.as_str()) {
            r.unproven.push(format!(
                "the SQL names `{id}`, which runs a program, loads code or reads or writes other files"
            ));
        }
        // The file name: one string literal, and nothing after it but
        // `AS` (ATTACH) or the statement's end (VACUUM INTO): `'a' || 'b'`
        // is an expression, not proven.
        let (at, ends): (usize, &[&str]) = match id.as_str() {
            "attach" => {
                let at = if tokens.get(k + 1) == Some(&Ok("database".into())) {
                    k + 2
                } else {
                    k + 1
                };
                (at, &["as"])
            }
            "vacuum" => {
                // `VACUUM [schema] INTO expr`.
                let into = tokens
                    .iter()
                    .skip(k + 1)
                    .take(2)
                    .position(|t| t == &Ok("into".into()));
                match into {
                    Some(p) => (k + 2 + p, &[";"]),
                    None => continue,
                }
            }
            _ => continue,
        };
        let after = tokens.get(at + 1);
        let literal_alone = after.is_none_or(|t| matches!(t, Ok(w) if ends.contains(&w.as_str())));
        match tokens.get(at) {
            Some(Err(file)) if literal_alone => {
                let path = file
                    .strip_prefix("file:")
                    .map(|p| p.split(['?', '#']).next().unwrap_or(p))
                    .unwrap_or(file);
                if !path.is_empty() && path != ":memory:" {
                    r.writes.push(path.to_string());
                }
            }
            _ => r
                .unproven
                .push(format!("`{id}` names a file that is not a literal string")),
        }
    }
}

/// Whether pending SQL text is a complete statement as sqlite3's
/// `process_input` decides before reading the next line: it ends with `;`
/// outside string literals, quoted names and comments, or its last line
/// is `go` or `/` alone. `None` when that cannot be proven here: a
/// `CREATE TRIGGER` body, whose `;` sqlite3 does not take as the end.
fn sql_complete(pending: &str) -> Option<bool> {
    let b: Vec<char> = pending.chars().collect();
    let mut i = 0;
    let mut last: Option<char> = None;
    while i < b.len() {
        let c = b[i];
        if c == '-' && b.get(i + 1) == Some(&'-') {
            while i < b.len() && b[i] != '\n' {
                i += 1;
            }
            continue;
        }
        if c == '/' && b.get(i + 1) == Some(&'*') {
            i += 2;
            while i < b.len() && !(b[i] == '*' && b.get(i + 1) == Some(&'/')) {
                i += 1;
            }
            if i >= b.len() {
                return Some(false);
            }
            i += 2;
            continue;
        }
        if matches!(c, '\'' | '"' | '`' | '[') {
            let close = if c == '[' { ']' } else { c };
            i += 1;
            while i < b.len() && b[i] != close {
                i += 1;
            }
            if i >= b.len() {
                return Some(false);
            }
            last = Some(close);
            i += 1;
            continue;
        }
        if !c.is_whitespace() {
            last = Some(c);
        }
        i += 1;
    }
    if sql_tokens(pending)
        .iter()
        .any(|t| t == &Ok("trigger".into()))
    {
        return None;
    }
    let last_line = pending.lines().rev().find(|l| !l.trim().is_empty());
    let terminator = last_line.is_some_and(|l| {
        let l = l.trim();
        l == "/" || l.eq_ignore_ascii_case("go")
    });
    Some(last == Some(';') || terminator)
}

/// shell.c's `_all_whitespace`: only white space, `--` comments and
/// closed `/* */` comments.
fn all_whitespace(line: &str) -> bool {
    let b = line.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i].is_ascii_whitespace() {
            i += 1;
        } else if b[i] == b'/' && b.get(i + 1) == Some(&b'*') {
            match line[i + 2..].find("*/") {
                Some(k) => i += 2 + k + 2,
                None => return false,
            }
        } else if b[i] == b'-' && b.get(i + 1) == Some(&b'-') {
            match line[i..].find('\n') {
                Some(k) => i += k,
                None => return true,
            }
        } else {
            return false;
        }
    }
    true
}

/// Read a sqlite3 input text as `process_input` reads it: a line is a
/// dot-command (`.`) or a comment (`#`, in its first column) only when
/// no SQL statement is pending; inside a pending statement (a string
/// literal spanning lines) it is SQL (review s23 V1). Where the end of
/// a statement cannot be proven, a later `.`/`#` line holds.
fn input(text: &str, r: &mut Reading) {
    let mut sql_text = String::new();
    let mut pending = String::new();
    for line in text.lines() {
        let l = line.trim_start();
        // shell.c skips a line of white space and comments while no
        // statement is pending (`_all_whitespace`): the next line starts
        // afresh (`-- c` then `.sh id` runs `id`).
        if pending.is_empty() && all_whitespace(line) {
            continue;
        }
        let special = line.starts_with('#') || l.starts_with('.');
        if special && !pending.is_empty() {
            match sql_complete(&pending) {
                Some(true) => {
                    sql_text.push_str(&pending);
                    pending.clear();
                }
                Some(false) => {}
                None => r.unproven.push(
                    "a dot-command or `#` line follows SQL whose end this check cannot find".into(),
                ),
            }
        }
        if special && pending.is_empty() {
            if let Some(cmd) = l.strip_prefix('.') {
                dot_command(cmd, r);
            }
            continue;
        }
        pending.push_str(line);
        pending.push('\n');
    }
    sql_text.push_str(&pending);
    sql(&sql_text, r);
}

/// Read a sqlite3 command line (`args` after the program name) and the
/// text it reads on standard input when known.
pub(crate) fn read(args: &[Field], stdin: &Output) -> Reading {
    let mut r = Reading::default();
    let mut texts: Vec<String> = Vec::new();
    let mut safe = false;
    let mut unsafe_testing = false;
    let mut db_seen = false;
    let mut i = 0;
    while let Some(a) = args.get(i) {
        i += 1;
        let t = a.text();
        if a.is_dynamic() {
            r.unproven
                .push(format!("`{t}` is only known when the command runs"));
            continue;
        }
        // sqlite3 reads every word starting with `-` as an option,
        // before or after the database (`sqlite3 DB -init F`, review
        // s23 V1); the others are the database, then SQL and dot-commands.
        if !t.starts_with('-') || t == "-" {
            if db_seen {
                texts.push(t);
            } else {
                db_seen = true;
            }
            continue;
        }
        let name = t.trim_start_matches('-');
        let Some(&(opt, takes)) = OPTIONS.iter().find(|(o, _)| *o == name) else {
            r.unproven
                .push(format!("option `{t}` is not one this check knows"));
            continue;
        };
        let values: Vec<String> = args[i..(i + takes).min(args.len())]
            .iter()
            .map(Field::text)
            .collect();
        i += takes;
        match opt {
            "safe" => safe = true,
            "unsafe-testing" => unsafe_testing = true,
            "cmd" => texts.extend(values),
            "init" if values.iter().all(|v| v == "/dev/null") => {}
            "init" => r
                .unproven
                .push("`-init FILE` runs the commands of a file this check does not read".into()),
            _ => {}
        }
    }
    match stdin {
        Output::Static(text) => texts.push(text.clone()),
        // Commands decoded or downloaded here: text the command hides.
        Output::Decoded | Output::Downloaded => r
            .unproven
            .push("its standard input is decoded or downloaded text".into()),
        _ => {}
    }
    for (k, t) in texts.iter().enumerate() {
        let from_stdin = matches!(stdin, Output::Static(_)) && k + 1 == texts.len();
        if t.trim_start().starts_with('.') && !from_stdin {
            // A command-line argument starting with `.` is one
            // dot-command, whatever its lines.
            dot_command(&t.trim_start()[1..], &mut r);
        } else if from_stdin {
            input(t, &mut r);
        } else {
            // A command-line argument is SQL whole: sqlite3 takes no
            // `#` comment in it (review s23 V1).
            sql(t, &mut r);
        }
    }
    if safe && !unsafe_testing {
        r.unproven.clear();
    }
    r
}

impl Analysis<'_> {
    /// The sqlite3 shell's input ([`read`]): the shell commands it runs
    /// judged as commands, the files it writes as writes, and anything
    /// not proven held (`shell.eval-dynamic`).
    pub(crate) fn sqlite_input(
        &mut self,
        name: &str,
        args: &[Field],
        env: &mut Env,
        depth: u32,
        stdin: &Output,
    ) {
        let r = read(args, stdin);
        if self.found_commands(&format!("The `{name}` input"), &r.commands, env, depth) {
            return;
        }
        for f in &r.writes {
            if self.done() {
                return;
            }
            self.check_write(
                &Field::lit(f),
                env,
                &Output::Unknown,
                &format!("`{name}`"),
                true,
                depth,
            );
        }
        if let Some(first) = r.unproven.first()
            && !self.done()
        {
            self.report(
                false,
                "shell.eval-dynamic",
                format!(
                    "`{name}` is given input this check cannot prove harmless ({first}). sqlite3 runs shell \
                     commands, pipes, editors and extensions from its dot-commands and SQL. A person must approve; \
                     or run it with `-safe`, or with SQL and read-only dot-commands only."
                ),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(words: &[&str]) -> Reading {
        let args: Vec<Field> = words.iter().map(|w| Field::lit(*w)).collect();
        read(&args, &Output::Unknown)
    }

    #[test]
    fn reads_as_sqlite3_reads() {
        assert_eq!(r(&[":memory:", ".sh pkill x"]).commands, ["pkill x"]);
        assert_eq!(
            r(&[":memory:", r#".shell "r\155" -rf /x"#]).commands,
            ["rm -rf /x"]
        );
        assert_eq!(r(&[":memory:", r#"."s\150" id"#]).commands, ["id"]);
        assert_eq!(r(&[":memory:", ".output '|sh'"]).commands, ["sh"]);
        assert_eq!(r(&[":memory:", ".once P"]).writes, ["P"]);
        assert_eq!(r(&[":memory:", "ATTACH 'L' AS a"]).writes, ["L"]);
        assert_eq!(r(&[":memory:", "vacuum into 'B'"]).writes, ["B"]);
        assert_eq!(r(&[":memory:", "vacuum into 'B';"]).writes, ["B"]);
        assert!(
            !r(&[":memory:", "attach 'a' || 'b' as x"])
                .unproven
                .is_empty()
        );
        assert!(
            r(&[":memory:", "attach 'a.db' as x; select 1"])
                .unproven
                .is_empty()
        );
        assert!(!r(&[":memory:", "select edit('', 'x')"]).unproven.is_empty());
        assert!(
            !r(&[":memory:", r#"select "EDIT"('', 'x')"#])
                .unproven
                .is_empty()
        );
        assert!(!r(&[":memory:", ".load /tmp/x.so"]).unproven.is_empty());
        assert!(!r(&[":memory:", ".tab"]).unproven.is_empty());
        assert!(r(&["db", ".tables", "select 1"]).unproven.is_empty());
        assert!(r(&["-safe", "db", ".load x"]).unproven.is_empty());
        assert!(r(&["db", "select 'edit is a word'"]).unproven.is_empty());
        // Review s23 V1.
        assert_eq!(r(&[":memory:", r".output \174sh"]).commands, ["sh"]);
        assert!(!r(&[":memory:", r".once \174sh"]).unproven.is_empty());
        assert_eq!(
            r(&[":memory:", r".output /h/\056bashrc"]).writes,
            ["/h/.bashrc"]
        );
        assert!(
            !r(&[":memory:", "-init", "x.sql", ".quit"])
                .unproven
                .is_empty()
        );
        assert!(
            !r(&[":memory:", "select 1", "-cmd", ".sh id"])
                .unproven
                .is_empty()
        );
        assert!(
            !r(&[":memory:", "select 'x\n#', edit('', 'rm -rf ~; true')"])
                .unproven
                .is_empty()
        );
        let piped = |t: &str| read(&[Field::lit("db")], &Output::Static(t.into()));
        assert!(!piped("select 'x\n#', edit('', 'x');\n").unproven.is_empty());
        assert!(
            piped("select 1;\n# edit\n.tables\nselect 2;\n")
                .unproven
                .is_empty()
        );
        assert!(!piped("-- c\n.sh id\n").unproven.is_empty());
        assert!(!piped("  \n/* c */\n.sh id\n").unproven.is_empty());
        assert!(
            !piped("create trigger t after insert on a begin select 1;\n# x\nend;\n")
                .unproven
                .is_empty()
        );
    }
}
