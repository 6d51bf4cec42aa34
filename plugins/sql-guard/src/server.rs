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
//! - security switched off: `SET row_security = off`, `SET
//!   session_replication_role = replica`, `CREATE POLICY … USING (true)`;
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
            )
        )
    };
    let mut out: Vec<(Kind, String)> = Vec::new();
    let mut add = |kind: Kind, message: String| {
        if !out.iter().any(|(k, _)| *k == kind) {
            out.push((kind, message));
        }
    };
    let statement_start = word(0).unwrap_or_default();
    for i in 0..tokens.len() {
        let Some(w) = word(i) else { continue };
        let next = word(i + 1);
        let called = matches!(tokens.get(i + 1), Some(Token::LParen));
        let after_exec = i > 0 && matches!(word(i - 1).as_deref(), Some("exec" | "execute"));
        let short = w.rsplit('.').next().unwrap_or(&w).to_string();
        if FILE_FUNCTIONS.contains(&short.as_str()) && (called || after_exec) {
            add(
                Kind::ServerFile,
                format!(
                    "`{short}` reads or writes files on the database server; query tables instead, and move files with the application's own tools"
                ),
            );
        }
        if PROGRAM_FUNCTIONS.contains(&short.as_str())
            && (called || after_exec || short.starts_with("xp_") || short.starts_with("sp_"))
        {
            add(
                Kind::ServerProgram,
                format!(
                    "`{short}` runs programs or connections from the database server; an agent's SQL must only read and change data"
                ),
            );
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
            ("attach", _) if i == 0 => add(Kind::ServerFile, "`ATTACH DATABASE` opens or creates a database file on the server; work in the database you are connected to".into()),
            ("bulk", Some("insert")) => add(Kind::ServerFile, "`BULK INSERT` reads a file on the database server; insert the rows instead".into()),
            ("vacuum", Some("into")) => add(Kind::ServerFile, "`VACUUM INTO` writes a database file on the server".into()),
            ("set", Some(name @ ("row_security" | "session_replication_role"))) => {
                let value = (i + 2..tokens.len().min(i + 5)).find_map(|j| match tokens[j] {
                    Token::Word(v) => Some(v.value.to_ascii_lowercase()),
                    Token::SingleQuotedString(v) => Some(v.to_ascii_lowercase()),
                    Token::Number(v, _) => Some(v.clone()),
                    _ => None,
                });
                let off = match name {
                    "row_security" => matches!(value.as_deref(), Some("off" | "false" | "0")),
                    _ => matches!(value.as_deref(), Some("replica")),
                };
                if off {
                    add(Kind::SecurityOff, format!("`SET {name}` turns off row-level security or triggers and foreign-key checks for the session; leave them on and change only the rows the task needs"));
                }
            }
            ("using" | "check", _)
                if statement_start == "create"
                    && word(1).as_deref() == Some("policy")
                    && matches!(tokens.get(i + 1), Some(Token::LParen))
                    && word(i + 2).as_deref() == Some("true")
                    && matches!(tokens.get(i + 3), Some(Token::RParen)) =>
            {
                add(Kind::SecurityOff, "a policy `USING (true)` lets every row through, which switches row-level security off for the table; write a condition that limits rows to their owner".into());
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
