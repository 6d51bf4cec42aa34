//! What a statement reaches beyond the tables, found in its tokens so that
//! it works in every dialect and on statements the parser cannot read
//! (string literals and comments are tokens of their own, so `SELECT
//! 'pg_read_file'` is not mistaken for a call):
//!
//! - server-side files: `pg_read_file`, `pg_ls_dir`, `lo_import`,
//!   `lo_export`, `LOAD_FILE`, `load_extension`, `OPENROWSET`, `COPY … TO
//!   'file'`, `INTO OUTFILE`/`DUMPFILE`, `LOAD DATA INFILE`, `ATTACH
//!   DATABASE`, `BULK INSERT`, `VACUUM INTO` (PostgreSQL, MySQL, SQLite and
//!   SQL Server documentation; PayloadsAllTheThings' SQL-injection pages);
//! - server-side programs: `COPY … PROGRAM`, `xp_cmdshell`, `sp_OACreate`,
//!   `sys_exec`, `dblink`;
//! - server-side code: untrusted languages (`CREATE FUNCTION … LANGUAGE
//!   plpython3u`, `LANGUAGE c`), `LOAD '…'`, `CREATE EXTENSION` of
//!   untrusted languages, adminpack, file_fdw, dblink and other wrappers,
//!   foreign tables' `OPTIONS (program|filename '…')`;
//! - security switched off: `SET [SESSION|LOCAL] row_security {TO|=} off`
//!   (any quoting of the name, any spelling of false), `SET
//!   session_replication_role … replica`, `set_config('row_security', …)`,
//!   `CREATE POLICY … USING (true)`;
//! - the bodies of functions and procedures ([`routine_bodies`], read by
//!   the caller) and the statements of a PL/pgSQL body
//!   ([`body_statements`]);
//! - tables whose names say they hold credentials (`integration_tokens`,
//!   `api_keys`, `user_passwords`, `secrets`).

use crate::analysis::Kind;
use sqlparser::dialect::Dialect;
use sqlparser::tokenizer::{Token, Tokenizer, Whitespace};

const FILE_FUNCTIONS: &[&str] = &[
    "pg_read_file",
    "pg_read_binary_file",
    "pg_ls_dir",
    "pg_stat_file",
    "pg_ls_logdir",
    "pg_ls_waldir",
    "pg_ls_tmpdir",
    "pg_ls_archive_statusdir",
    "lo_import",
    "lo_export",
    "load_file",
    "load_extension",
    "readfile",
    "writefile",
    "openrowset",
    "opendatasource",
    "xp_dirtree",
    // adminpack
    "pg_file_write",
    "pg_file_read",
    "pg_file_rename",
    "pg_file_unlink",
    "pg_file_sync",
    "pg_logdir_ls",
    "xp_fileexist",
    "xp_subdirs",
    "utl_file",
];
const PROGRAM_FUNCTIONS: &[&str] = &[
    "xp_cmdshell",
    "sp_oacreate",
    "sp_oamethod",
    "sys_exec",
    "sys_eval",
    "dblink",
    "dblink_exec",
    "dbms_scheduler",
];
/// Procedural languages that run code on the database server with its
/// operating-system rights (PostgreSQL's untrusted languages, C and
/// internal functions): `CREATE FUNCTION … LANGUAGE plpython3u`, `CREATE
/// LANGUAGE`, `DO LANGUAGE plperlu`.
const UNTRUSTED_LANGUAGES: &[&str] = &[
    "c",
    "internal",
    "plpythonu",
    "plpython2u",
    "plpython3u",
    "plperlu",
    "pltclu",
    "plsh",
    "plr",
    "javau",
    "pljavau",
];
/// Extensions that reach files on the server (`sql.server-file`).
const FILE_EXTENSIONS: &[&str] = &["adminpack", "file_fdw", "pg_read_server_files"];
/// Extensions that run code or open connections from the server
/// (`sql.server-program`), besides the untrusted languages.
const PROGRAM_EXTENSIONS: &[&str] = &[
    "dblink",
    "postgres_fdw",
    "mysql_fdw",
    "oracle_fdw",
    "tds_fdw",
    "odbc_fdw",
    "jdbc_fdw",
    "multicorn",
    "http",
    "pgsql_http",
    "pg_net",
];
const CREDENTIAL_TABLE_WORDS: &[&str] = &[
    "token",
    "secret",
    "credential",
    "password",
    "passwd",
    "apikey",
    "api_key",
    "private_key",
];

/// toolvet's tables on a Postgres ledger (crates/toolvet-serve's
/// `postgres.rs`), and the prefixes its tables and indexes share.
pub const TOOLVET_TABLE_PREFIXES: &[&str] = &["toolvet_approval", "toolvet_ledger"];

/// The toolvet ledger table `text` names (a word in any quoting, maybe
/// schema-qualified, or inside a string of dynamic SQL), if any.
pub fn toolvet_table(text: &str) -> Option<String> {
    let lower = text.to_ascii_lowercase();
    lower
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .find(|w| TOOLVET_TABLE_PREFIXES.iter().any(|p| w.starts_with(p)))
        .map(str::to_string)
}

/// Findings in `sql`'s tokens; none when it does not tokenize.
pub fn scan(sql: &str, dialect: &dyn Dialect) -> Vec<(Kind, String)> {
    let Ok(tokens) = Tokenizer::new(dialect, sql).tokenize() else {
        return Vec::new();
    };
    let tokens: Vec<&Token> = tokens
        .iter()
        .filter(|t| {
            !matches!(
                t,
                Token::Whitespace(
                    Whitespace::Space
                        | Whitespace::Newline
                        | Whitespace::Tab
                        | Whitespace::SingleLineComment { .. }
                        | Whitespace::MultiLineComment(_)
                )
            )
        })
        .collect();
    let word = |i: usize| -> Option<String> {
        match tokens.get(i) {
            Some(Token::Word(w)) if w.quote_style.is_none() => Some(w.value.to_ascii_lowercase()),
            _ => None,
        }
    };
    let is_string = |i: usize| {
        matches!(
            tokens.get(i),
            Some(
                Token::SingleQuotedString(_)
                    | Token::DoubleQuotedString(_)
                    | Token::NationalStringLiteral(_)
                    | Token::EscapedStringLiteral(_)
                    | Token::DollarQuotedString(_)
            )
        )
    };
    let mut out: Vec<(Kind, String)> = Vec::new();
    let mut add = |kind: Kind, message: String| {
        if !out.iter().any(|(k, _)| *k == kind) {
            out.push((kind, message));
        }
    };
    // Where the current statement starts (after the last `;`) and its
    // first word.
    let mut start = 0;
    let mut statement_start = word(0).unwrap_or_default();
    for i in 0..tokens.len() {
        if matches!(tokens[i], Token::SemiColon) {
            start = i + 1;
            statement_start = word(start).unwrap_or_default();
            continue;
        }
        // toolvet's own ledger tables, named anywhere (review s12 L5).
        let named = match tokens[i] {
            Token::Word(w) => toolvet_table(&w.value),
            Token::SingleQuotedString(v)
            | Token::DoubleQuotedString(v)
            | Token::EscapedStringLiteral(v)
            | Token::NationalStringLiteral(v) => toolvet_table(v),
            Token::DollarQuotedString(d) => toolvet_table(&d.value),
            _ => None,
        };
        if let Some(t) = named {
            add(
                Kind::ToolvetState,
                format!(
                    "the statement names `{t}`, a table of toolvet's approval ledger: a row written there approves or rejects an escalated call, which is a person's decision, never the agent's; stop and ask the user to review the escalated call themselves"
                ),
            );
        }
        let Some(w) = ident(tokens[i]) else { continue };
        let quoted = word(i).is_none();
        let next = word(i + 1);
        let called = matches!(tokens.get(i + 1), Some(Token::LParen));
        let after_exec = i > 0 && matches!(word(i - 1).as_deref(), Some("exec" | "execute"));
        let short = w.rsplit('.').next().unwrap_or(&w).to_string();
        if !quoted && FILE_FUNCTIONS.contains(&short.as_str()) && (called || after_exec) {
            add(
                Kind::ServerFile,
                format!(
                    "`{short}` reads or writes files on the database server; query tables instead, and move files with the application's own tools"
                ),
            );
        }
        if !quoted
            && PROGRAM_FUNCTIONS.contains(&short.as_str())
            && (called || after_exec || short.starts_with("xp_") || short.starts_with("sp_"))
        {
            add(
                Kind::ServerProgram,
                format!(
                    "`{short}` runs programs or connections from the database server; an agent's SQL must only read and change data"
                ),
            );
        }
        if short == "set_config" && called {
            // set_config('row_security', 'off', false): a SET by function.
            let name = tokens.get(i + 2).and_then(|t| literal_text(t));
            // The value: a literal, or an expression (`None`: unknown).
            let value = match (tokens.get(i + 3), tokens.get(i + 4)) {
                (Some(Token::Comma), Some(t)) => Some(literal_text(t).filter(|_| {
                    !matches!(t, Token::Word(_))
                        && matches!(tokens.get(i + 5), Some(Token::Comma | Token::RParen))
                })),
                _ => None,
            };
            if let Some(name) = name
                && let Some(value) = value
                && turns_security_off(&name, value.as_deref())
            {
                add(Kind::SecurityOff, security_off_message(&name));
            }
        }
        if quoted {
            continue;
        }
        match (w.as_str(), next.as_deref()) {
            ("to" | "from", Some("program")) if statement_start == "copy" => add(
                Kind::ServerProgram,
                "`COPY … PROGRAM` runs a shell command on the database server; use `COPY … TO STDOUT` / `FROM STDIN` instead".into(),
            ),
            ("to" | "from", _) if statement_start == "copy" && is_string(i + 1) => add(
                Kind::ServerFile,
                "`COPY` to or from a file reads or writes files on the database server; use `COPY … TO STDOUT` / `FROM STDIN` instead".into(),
            ),
            ("into", Some("outfile" | "dumpfile")) => add(Kind::ServerFile, "`SELECT … INTO OUTFILE` writes a file on the database server; return the rows instead".into()),
            ("infile", _) if statement_start == "load" => add(Kind::ServerFile, "`LOAD DATA INFILE` reads a file on the database server; insert the rows instead".into()),
            ("load", _) if i == start && is_string(i + 1) => add(Kind::ServerProgram, "`LOAD '…'` loads a shared library into the database server, which runs its code; an agent's SQL must only read and change data".into()),
            ("attach", _) if i == start => add(Kind::ServerFile, "`ATTACH DATABASE` opens or creates a database file on the server; work in the database you are connected to".into()),
            ("bulk", Some("insert")) => add(Kind::ServerFile, "`BULK INSERT` reads a file on the database server; insert the rows instead".into()),
            ("vacuum", Some("into")) => add(Kind::ServerFile, "`VACUUM INTO` writes a database file on the server".into()),
            ("set", _)
                if !matches!(
                    statement_start.as_str(),
                    "update" | "insert" | "merge" | "with" | "upsert" | "replace"
                ) =>
            {
                // SET [SESSION|LOCAL] name {TO|=} value; also the SET of
                // ALTER ROLE/DATABASE/SYSTEM and of CREATE FUNCTION.
                let mut j = i + 1;
                if matches!(word(j).as_deref(), Some("session" | "local")) {
                    j += 1;
                }
                let Some(name) = tokens.get(j).and_then(|t| ident(t)) else {
                    continue;
                };
                j += 1;
                if matches!(tokens.get(j), Some(Token::Eq)) || word(j).as_deref() == Some("to") {
                    j += 1;
                }
                let value = tokens.get(j).and_then(|t| literal_text(t));
                if value.is_some() && turns_security_off(&name, value.as_deref()) {
                    add(Kind::SecurityOff, security_off_message(&name));
                }
            }
            ("using" | "check", _)
                if statement_start == "create"
                    && word(start + 1).as_deref() == Some("policy")
                    && matches!(tokens.get(i + 1), Some(Token::LParen))
                    && word(i + 2).as_deref() == Some("true")
                    && matches!(tokens.get(i + 3), Some(Token::RParen)) =>
            {
                add(Kind::SecurityOff, "a policy `USING (true)` lets every row through, which switches row-level security off for the table; write a condition that limits rows to their owner".into());
            }
            ("language", _) if matches!(statement_start.as_str(), "create" | "do") => {
                if let Some(lang) = tokens.get(i + 1).and_then(|t| literal_text(t))
                    && UNTRUSTED_LANGUAGES.contains(&lang.as_str())
                {
                    add(Kind::ServerProgram, format!("`LANGUAGE {lang}` is an untrusted language: its code runs on the database server with the server's operating-system rights, like a shell; write the function in `sql` or `plpgsql`, or ask a database administrator"));
                }
            }
            ("extension", _) if statement_start == "create" => {
                let mut j = i + 1;
                while matches!(word(j).as_deref(), Some("if" | "not" | "exists")) {
                    j += 1;
                }
                if let Some(ext) = tokens.get(j).and_then(|t| ident(t)) {
                    if FILE_EXTENSIONS.contains(&ext.as_str()) {
                        add(Kind::ServerFile, format!("`CREATE EXTENSION {ext}` gives SQL access to files on the database server; ask a database administrator"));
                    } else if PROGRAM_EXTENSIONS.contains(&ext.as_str())
                        || UNTRUSTED_LANGUAGES.contains(&ext.as_str())
                    {
                        add(Kind::ServerProgram, format!("`CREATE EXTENSION {ext}` lets SQL run code or open connections from the database server; ask a database administrator"));
                    }
                }
            }
            ("program" | "filename", _)
                if matches!(statement_start.as_str(), "create" | "alter" | "import")
                    && is_string(i + 1)
                    && (matches!(tokens.get(i.wrapping_sub(1)), Some(Token::LParen | Token::Comma))
                        || matches!(word(i.wrapping_sub(1)).as_deref(), Some("add" | "set"))) =>
            {
                if w == "program" {
                    add(Kind::ServerProgram, "a foreign table with `OPTIONS (program …)` runs a shell command on the database server each time it is read; load data through the application instead".into());
                } else {
                    add(Kind::ServerFile, "a foreign table with `OPTIONS (filename …)` reads a file on the database server; load data through the application instead".into());
                }
            }
            ("from" | "join", _) => {
                if let Some(t) = table_name(&tokens, i + 1)
                    && CREDENTIAL_TABLE_WORDS.iter().any(|c| t.contains(c))
                {
                    add(Kind::SensitiveTable, format!("the statement reads `{t}`, whose name says it holds credentials; a person must approve reading them, and their values must not be sent anywhere"));
                }
            }
            _ => {}
        }
    }
    out
}

/// A word in any quoting (`row_security`, `"row_security"`), lower-cased.
fn ident(t: &Token) -> Option<String> {
    match t {
        Token::Word(w) => Some(w.value.to_ascii_lowercase()),
        _ => None,
    }
}

/// The text of a value a `SET` or a function argument may be given: a
/// word in any quoting, a string or a number, lower-cased.
fn literal_text(t: &Token) -> Option<String> {
    match t {
        Token::Word(w) => Some(w.value.to_ascii_lowercase()),
        Token::SingleQuotedString(v)
        | Token::DoubleQuotedString(v)
        | Token::NationalStringLiteral(v)
        | Token::EscapedStringLiteral(v) => Some(v.trim().to_ascii_lowercase()),
        Token::DollarQuotedString(v) => Some(v.value.trim().to_ascii_lowercase()),
        Token::Number(v, _) => Some(v.clone()),
        _ => None,
    }
}

/// Whether PostgreSQL reads `value` as boolean false: `off` (`of`),
/// `false` and its prefixes, `no` (`n`), `0`, in any case.
fn false_spelling(value: &str) -> bool {
    !value.is_empty()
        && ("false".starts_with(value)
            || "no".starts_with(value)
            || (value.len() >= 2 && "off".starts_with(value))
            || value == "0")
}

/// Whether setting `name` to `value` turns row-level security or triggers
/// off. A value that is not a literal (`None`) counts: it cannot be known.
fn turns_security_off(name: &str, value: Option<&str>) -> bool {
    match name {
        "row_security" => value.is_none_or(false_spelling),
        "session_replication_role" => value.is_none_or(|v| v == "replica"),
        _ => false,
    }
}

fn security_off_message(name: &str) -> String {
    format!(
        "setting `{name}` turns off row-level security or triggers and foreign-key checks for the session; leave them on and change only the rows the task needs"
    )
}

/// The body and language of each `CREATE [OR REPLACE] FUNCTION|PROCEDURE
/// … AS '…'|$$…$$ … LANGUAGE x` in `sql` (language `sql` when not named),
/// so that the body is judged like the statements it runs.
pub fn routine_bodies(sql: &str, dialect: &dyn Dialect) -> Vec<(String, String)> {
    let Ok(tokens) = Tokenizer::new(dialect, sql).tokenize() else {
        return Vec::new();
    };
    let tokens: Vec<&Token> = tokens
        .iter()
        .filter(|t| !matches!(t, Token::Whitespace(_)))
        .collect();
    let mut out = Vec::new();
    for statement in tokens.split(|t| matches!(t, Token::SemiColon)) {
        let words: Vec<String> = statement.iter().take(6).filter_map(|t| ident(t)).collect();
        if words.first().map(String::as_str) != Some("create")
            || !words.iter().any(|w| w == "function" || w == "procedure")
        {
            continue;
        }
        let mut language = "sql".to_string();
        let mut body = None;
        for (k, t) in statement.iter().enumerate() {
            match ident(t).as_deref() {
                Some("language") => {
                    if let Some(l) = statement.get(k + 1).and_then(|t| literal_text(t)) {
                        language = l;
                    }
                }
                Some("as") if body.is_none() => {
                    body = match statement.get(k + 1) {
                        Some(Token::DollarQuotedString(s)) => Some(s.value.clone()),
                        Some(Token::SingleQuotedString(s) | Token::EscapedStringLiteral(s)) => {
                            Some(s.clone())
                        }
                        _ => None,
                    };
                }
                _ => {}
            }
        }
        if let Some(body) = body {
            out.push((language, body));
        }
    }
    out
}

/// Words that start an SQL statement inside a PL/pgSQL body.
const BODY_STATEMENT_WORDS: &[&str] = &[
    "select", "insert", "update", "delete", "merge", "drop", "truncate", "alter", "grant",
    "revoke", "create", "copy", "set", "reset", "with", "call", "load", "lock", "comment",
    "reassign", "security", "vacuum", "execute",
];
/// PL/pgSQL words after which a statement may start.
const BODY_CONTROL_WORDS: &[&str] = &["begin", "then", "else", "loop", "declare", "exception"];

/// One SQL statement found in a PL/pgSQL body.
#[derive(Debug, PartialEq, Eq)]
pub enum BodyStatement {
    /// SQL text to judge like any other.
    Sql(String),
    /// `EXECUTE` of text built at run time: cannot be vetted.
    Dynamic,
}

/// The SQL statements of a PL/pgSQL body (or `None` when it does not
/// tokenize): in each `;`-separated part, the first statement word at the
/// part's start or after a control word (`BEGIN`, `THEN`, `ELSE`,
/// `LOOP`, …) starts a statement that runs to the `;`. `EXECUTE 'literal'`
/// gives the literal; `EXECUTE` of anything else is [`BodyStatement::Dynamic`].
pub fn body_statements(body: &str, dialect: &dyn Dialect) -> Option<Vec<BodyStatement>> {
    let tokens = Tokenizer::new(dialect, body).tokenize().ok()?;
    let tokens: Vec<&Token> = tokens
        .iter()
        .filter(|t| !matches!(t, Token::Whitespace(_)))
        .collect();
    let mut out = Vec::new();
    for part in tokens.split(|t| matches!(t, Token::SemiColon)) {
        let bare = |t: &Token| match t {
            Token::Word(w) if w.quote_style.is_none() => Some(w.value.to_ascii_lowercase()),
            _ => None,
        };
        let Some(k) = (0..part.len()).find(|&k| {
            bare(part[k]).is_some_and(|w| BODY_STATEMENT_WORDS.contains(&w.as_str()))
                && (k == 0
                    || bare(part[k - 1]).is_some_and(|p| BODY_CONTROL_WORDS.contains(&p.as_str())))
        }) else {
            continue;
        };
        if bare(part[k]).as_deref() == Some("execute") {
            match part.get(k + 1) {
                Some(
                    Token::SingleQuotedString(s)
                    | Token::EscapedStringLiteral(s)
                    | Token::DollarQuotedString(sqlparser::ast::DollarQuotedString {
                        value: s, ..
                    }),
                ) if part
                    .get(k + 2)
                    .is_none_or(|t| matches!(bare(t).as_deref(), Some("into" | "using"))) =>
                {
                    out.push(BodyStatement::Sql(s.clone()));
                }
                _ => out.push(BodyStatement::Dynamic),
            }
            continue;
        }
        let text: Vec<String> = part[k..].iter().map(|t| t.to_string()).collect();
        out.push(BodyStatement::Sql(text.join(" ")));
    }
    Some(out)
}

/// A (possibly qualified) table name starting at token `i`, lower-cased.
fn table_name(tokens: &[&Token], mut i: usize) -> Option<String> {
    let mut name = String::new();
    while let Some(Token::Word(w)) = tokens.get(i) {
        name.push_str(&w.value.to_ascii_lowercase());
        if matches!(tokens.get(i + 1), Some(Token::Period)) {
            name.push('.');
            i += 2;
        } else {
            break;
        }
    }
    (!name.is_empty()).then_some(name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use sqlparser::dialect::{GenericDialect, PostgreSqlDialect};

    fn kinds(sql: &str) -> Vec<Kind> {
        scan(sql, &PostgreSqlDialect {})
            .into_iter()
            .map(|(k, _)| k)
            .collect()
    }

    #[test]
    fn server_access() {
        assert_eq!(
            kinds("SELECT pg_read_file('/etc/passwd')"),
            [Kind::ServerFile]
        );
        assert_eq!(
            kinds("COPY (SELECT 1) TO PROGRAM 'id'"),
            [Kind::ServerProgram]
        );
        assert_eq!(kinds("COPY users TO '/tmp/u.csv'"), [Kind::ServerFile]);
        assert!(kinds("COPY users TO STDOUT WITH CSV").is_empty());
        assert!(kinds("SELECT 'pg_read_file(x)' AS s").is_empty());
        assert!(kinds("SELECT id, read_file_count FROM stats").is_empty());
        assert_eq!(
            scan("EXEC xp_cmdshell 'whoami'", &GenericDialect {})[0].0,
            Kind::ServerProgram
        );
        assert_eq!(
            scan("SELECT * INTO OUTFILE '/x' FROM t", &GenericDialect {})[0].0,
            Kind::ServerFile
        );
    }

    #[test]
    fn security_and_credentials() {
        assert_eq!(kinds("SET row_security = off"), [Kind::SecurityOff]);
        assert!(kinds("SET statement_timeout = '5s'").is_empty());
        assert_eq!(
            kinds("CREATE POLICY p ON d FOR ALL USING (true)"),
            [Kind::SecurityOff]
        );
        assert!(kinds("CREATE POLICY p ON d USING (owner_id = auth.uid())").is_empty());
        assert_eq!(
            kinds("SELECT * FROM public.integration_tokens"),
            [Kind::SensitiveTable]
        );
        assert!(kinds("SELECT * FROM support_tickets").is_empty());
    }
}
