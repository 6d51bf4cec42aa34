//! Classifying parsed SQL: which statements would run, which of them are
//! destructive, and whether a `WHERE` clause is a real filter.

use sqlparser::ast::{
    BinaryOperator, Expr, FromTable, InTarget, Query, SetExpr, Statement, UnaryOperator, Value,
    Visit, Visitor,
};
use sqlparser::dialect::Dialect;
use sqlparser::parser::Parser;
use std::ops::ControlFlow;

/// A kind of statement (or batch) the settings give an action to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// `DROP` of any object.
    Drop,
    /// `TRUNCATE`.
    Truncate,
    /// `ALTER` of any object, `RENAME TABLE`.
    Alter,
    /// `GRANT`, `REVOKE`, `DENY`, `ALTER DEFAULT PRIVILEGES`.
    Grant,
    /// `DELETE` that is not filtered by a real `WHERE`.
    DeleteWithoutWhere,
    /// `UPDATE` that is not filtered by a real `WHERE`.
    UpdateWithoutWhere,
    /// Several statements in one SQL text.
    MultipleStatements,
    /// Something other than a plain query, in read-only mode.
    ReadOnly,
    /// Server-side file access: `pg_read_file`, `lo_export`, `COPY … TO
    /// 'file'`, `LOAD_FILE`, `INTO OUTFILE`, `LOAD DATA INFILE`, `ATTACH
    /// DATABASE`, `load_extension`, `OPENROWSET(BULK …)`.
    ServerFile,
    /// A server-side program: `COPY … TO/FROM PROGRAM`, `xp_cmdshell`,
    /// `sp_OACreate`, `sys_exec`, `dblink`.
    ServerProgram,
    /// `EXPLAIN ANALYZE` of a statement that changes data: it runs it.
    ExplainAnalyze,
    /// A data-modifying `WITH` clause behind a query.
    HiddenWrite,
    /// Row-level security or integrity checks turned off: `SET row_security
    /// = off`, `SET session_replication_role = replica`, a policy `USING
    /// (true)`.
    SecurityOff,
    /// A read of a table whose name says it holds credentials (`tokens`,
    /// `api_keys`, `secrets`, `passwords`).
    SensitiveTable,
    /// A statement naming toolvet's own ledger tables on a Postgres ledger
    /// (`toolvet_approval_requests`, `toolvet_ledger_meta`,
    /// `toolvet_approval_signed_decisions`): a row written there approves
    /// an escalated call, which is a person's decision (review s12 L5).
    ToolvetState,
}

impl Kind {
    /// Every kind, in the order of the `actions` table.
    pub const ALL: [Kind; 15] = [
        Kind::Drop,
        Kind::Truncate,
        Kind::Alter,
        Kind::Grant,
        Kind::DeleteWithoutWhere,
        Kind::UpdateWithoutWhere,
        Kind::MultipleStatements,
        Kind::ReadOnly,
        Kind::ServerFile,
        Kind::ServerProgram,
        Kind::ExplainAnalyze,
        Kind::HiddenWrite,
        Kind::SecurityOff,
        Kind::SensitiveTable,
        Kind::ToolvetState,
    ];

    /// The kind's key in the `actions` setting, e.g. `delete_without_where`.
    pub fn setting(self) -> &'static str {
        match self {
            Kind::Drop => "drop",
            Kind::Truncate => "truncate",
            Kind::Alter => "alter",
            Kind::Grant => "grant",
            Kind::DeleteWithoutWhere => "delete_without_where",
            Kind::UpdateWithoutWhere => "update_without_where",
            Kind::MultipleStatements => "multiple_statements",
            Kind::ReadOnly => "read_only",
            Kind::ServerFile => "server_file",
            Kind::ServerProgram => "server_program",
            Kind::ExplainAnalyze => "explain_analyze",
            Kind::HiddenWrite => "hidden_write",
            Kind::SecurityOff => "security_off",
            Kind::SensitiveTable => "sensitive_table",
            Kind::ToolvetState => "toolvet_state",
        }
    }

    /// The rule id, e.g. `sql.drop`.
    pub fn rule(self) -> &'static str {
        match self {
            Kind::Drop => "sql.drop",
            Kind::Truncate => "sql.truncate",
            Kind::Alter => "sql.alter",
            Kind::Grant => "sql.grant",
            Kind::DeleteWithoutWhere => "sql.delete-without-where",
            Kind::UpdateWithoutWhere => "sql.update-without-where",
            Kind::MultipleStatements => "sql.multiple-statements",
            Kind::ReadOnly => "sql.read-only",
            Kind::ServerFile => "sql.server-file",
            Kind::ServerProgram => "sql.server-program",
            Kind::ExplainAnalyze => "sql.explain-analyze",
            Kind::HiddenWrite => "sql.hidden-write",
            Kind::SecurityOff => "sql.security-off",
            Kind::SensitiveTable => "sql.sensitive-table",
            Kind::ToolvetState => "sql.toolvet-state",
        }
    }
}

/// One thing found in the SQL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Finding {
    /// A statement (or the batch) of a flagged kind, with a message for the
    /// model that says what is wrong and what would be acceptable.
    Flagged {
        /// What was found.
        kind: Kind,
        /// The reason text.
        message: String,
    },
    /// SQL inside the statement that cannot be vetted: dynamic SQL built
    /// from a non-literal, or literal dynamic SQL that does not parse. The
    /// text is the whole reason message.
    Unparseable(String),
}

/// The part of a reason that says the statement kind is refused by policy.
const POLICY: &str = "which this tool's policy does not let an agent do on its own";

/// How deep literal dynamic SQL (`EXECUTE IMMEDIATE 'EXECUTE IMMEDIATE ...'`)
/// is followed before it counts as unparseable.
const MAX_DYNAMIC_DEPTH: usize = 3;

/// Analyse the statements of one SQL text.
///
/// `statements` are the parser's output for the whole text. Findings come
/// in statement order, the multiple-statements finding last.
pub fn analyze(
    statements: &[Statement],
    dialect: &dyn Dialect,
    allow_multiple: bool,
    read_only: bool,
) -> Vec<Finding> {
    let mut findings = Vec::new();
    for statement in statements {
        examine(statement, dialect, read_only, 0, &mut findings);
    }
    if statements.len() > 1 && !allow_multiple {
        findings.push(Finding::Flagged {
            kind: Kind::MultipleStatements,
            message: format!(
                "the SQL holds {} statements; this tool runs one statement per call, so send \
                 each statement as its own call",
                statements.len()
            ),
        });
    }
    findings
}

/// Examine one statement that would run, and everything it would run.
fn examine(
    statement: &Statement,
    dialect: &dyn Dialect,
    read_only: bool,
    depth: usize,
    findings: &mut Vec<Finding>,
) {
    if let Statement::Explain {
        statement: inner, ..
    } = statement
    {
        // EXPLAIN only plans its statement; EXPLAIN ANALYZE also runs it.
        if explain_runs(statement) {
            if !matches!(inner.as_ref(), Statement::Query(q) if !has_data_modifying_cte(q)) {
                findings.push(Finding::Flagged {
                    kind: Kind::ExplainAnalyze,
                    message: format!(
                        "`EXPLAIN ANALYZE` runs the `{}` it explains, changing data; use `EXPLAIN` without \
                         ANALYZE to see the plan, or run it inside a transaction you roll back",
                        head(inner)
                    ),
                });
            }
            examine(inner, dialect, read_only, depth, findings);
        }
        return;
    }
    if read_only && !is_read_statement(statement) {
        findings.push(read_only_finding(&format!("`{}`", head(statement))));
    }
    if let Statement::Query(q) = statement
        && has_data_modifying_cte(q)
    {
        findings.push(Finding::Flagged {
            kind: Kind::HiddenWrite,
            message: "a `WITH` clause of this query changes data (`INSERT`, `UPDATE` or `DELETE ... \
                      RETURNING`) behind what reads as a `SELECT`; send the change as its own statement"
                .into(),
        });
    }
    let mut walker = Walker {
        dialect,
        read_only,
        depth,
        root: statement,
        findings,
    };
    let _ = statement.visit(&mut walker);
}

/// Whether a query has a `WITH` clause whose body changes data.
fn has_data_modifying_cte(q: &sqlparser::ast::Query) -> bool {
    use sqlparser::ast::SetExpr;
    q.with.as_ref().is_some_and(|w| {
        w.cte_tables.iter().any(|cte| {
            matches!(
                cte.query.body.as_ref(),
                SetExpr::Insert(_) | SetExpr::Update(_) | SetExpr::Delete(_) | SetExpr::Merge(_)
            ) || has_data_modifying_cte(&cte.query)
        })
    })
}

/// Whether an `EXPLAIN` statement executes the statement it explains:
/// `EXPLAIN ANALYZE ...` or PostgreSQL's `EXPLAIN (ANALYZE[ true]) ...`.
fn explain_runs(statement: &Statement) -> bool {
    let Statement::Explain {
        analyze, options, ..
    } = statement
    else {
        return false;
    };
    if *analyze {
        return true;
    }
    options.iter().flatten().any(|o| {
        o.name.value.eq_ignore_ascii_case("analyze")
            && match &o.arg {
                None => true,
                Some(arg) => !matches!(
                    arg.to_string().to_ascii_lowercase().as_str(),
                    "false" | "off" | "0"
                ),
            }
    })
}

/// Top-level statements allowed in read-only mode.
fn is_read_statement(statement: &Statement) -> bool {
    matches!(
        statement,
        Statement::Query(_)
            | Statement::Explain { .. }
            | Statement::ExplainTable { .. }
            | Statement::ShowFunctions { .. }
            | Statement::ShowVariable { .. }
            | Statement::ShowStatus { .. }
            | Statement::ShowVariables { .. }
            | Statement::ShowCreate { .. }
            | Statement::ShowColumns { .. }
            | Statement::ShowCatalogs { .. }
            | Statement::ShowDatabases { .. }
            | Statement::ShowSchemas { .. }
            | Statement::ShowCharset(_)
            | Statement::ShowObjects(_)
            | Statement::ShowTables { .. }
            | Statement::ShowViews { .. }
            | Statement::ShowCollation { .. }
    )
}

fn read_only_finding(what: &str) -> Finding {
    Finding::Flagged {
        kind: Kind::ReadOnly,
        message: format!(
            "this tool is read-only and {what} would change data or state; only SELECT, \
             WITH ... SELECT, EXPLAIN, SHOW and DESCRIBE may run"
        ),
    }
}

/// The leading keywords of a statement's canonical text, e.g. `ALTER
/// TABLE`, `INSERT INTO`: names the statement without quoting its values.
fn head(statement: &Statement) -> String {
    let text = statement.to_string();
    let words: Vec<&str> = text
        .split_whitespace()
        .take_while(|w| !w.is_empty() && w.chars().all(|c| c.is_ascii_uppercase() || c == '_'))
        .take(2)
        .collect();
    if words.is_empty() {
        "this statement".into()
    } else {
        words.join(" ")
    }
}

/// Visits a statement and everything nested in it.
struct Walker<'a> {
    dialect: &'a dyn Dialect,
    read_only: bool,
    depth: usize,
    root: &'a Statement,
    findings: &'a mut Vec<Finding>,
}

impl Walker<'_> {
    fn flag(&mut self, kind: Kind, message: String) {
        self.findings.push(Finding::Flagged { kind, message });
    }

    fn dynamic_sql(&mut self, text: Option<String>) {
        let Some(text) = text else {
            self.findings.push(Finding::Unparseable(
                "the SQL runs dynamic SQL whose text is built at run time, so it cannot be \
                 vetted; send the statement itself"
                    .into(),
            ));
            return;
        };
        if self.depth >= MAX_DYNAMIC_DEPTH {
            self.findings.push(Finding::Unparseable(
                "the SQL nests dynamic SQL too deeply to be vetted; send the statement itself"
                    .into(),
            ));
            return;
        }
        match Parser::parse_sql(self.dialect, &text) {
            Ok(statements) => {
                for s in &statements {
                    examine(
                        s,
                        self.dialect,
                        self.read_only,
                        self.depth + 1,
                        self.findings,
                    );
                }
            }
            Err(e) => self.findings.push(Finding::Unparseable(format!(
                "the dynamic SQL text could not be parsed ({}), so it cannot be vetted; \
                     send the statement itself",
                crate::short_error(&e.to_string())
            ))),
        }
    }
}

impl Visitor for Walker<'_> {
    type Break = ();

    fn pre_visit_statement(&mut self, statement: &Statement) -> ControlFlow<()> {
        let nested = !std::ptr::eq(statement, self.root);
        if nested && self.read_only && !matches!(statement, Statement::Query(_)) {
            let what = format!("the nested `{}`", head(statement));
            self.findings.push(read_only_finding(&what));
        }
        match statement {
            Statement::Drop {
                object_type, names, ..
            } => {
                let names: Vec<String> = names.iter().map(ToString::to_string).collect();
                self.flag(
                    Kind::Drop,
                    format!(
                        "`DROP {object_type} {}` destroys the object and any data in it, {POLICY}; \
                         ask a person to make schema changes",
                        names.join(", ")
                    ),
                );
            }
            Statement::DropFunction(_)
            | Statement::DropDomain(_)
            | Statement::DropProcedure { .. }
            | Statement::DropSecret { .. }
            | Statement::DropPolicy(_)
            | Statement::DropRule(_)
            | Statement::DropConnector { .. }
            | Statement::DropExtension(_)
            | Statement::DropOperator(_)
            | Statement::DropOperatorFamily(_)
            | Statement::DropOperatorClass(_)
            | Statement::DropTrigger(_) => {
                let head = head(statement);
                self.flag(
                    Kind::Drop,
                    format!(
                        "`{head}` removes a database object, {POLICY}; ask a person to make \
                         schema changes"
                    ),
                );
            }
            Statement::Truncate(t) => {
                let names: Vec<String> = t.table_names.iter().map(|n| n.name.to_string()).collect();
                self.flag(
                    Kind::Truncate,
                    format!(
                        "`TRUNCATE {}` removes every row, {POLICY}; to remove specific rows use \
                         `DELETE ... WHERE <condition>`",
                        names.join(", ")
                    ),
                );
            }
            // Turning row-level security on only tightens access.
            Statement::AlterTable(t)
                if !t.operations.is_empty()
                    && t.operations.iter().all(|o| {
                        matches!(
                            o,
                            sqlparser::ast::AlterTableOperation::EnableRowLevelSecurity
                                | sqlparser::ast::AlterTableOperation::ForceRowLevelSecurity
                        )
                    }) => {}
            Statement::AlterTable(_)
            | Statement::AlterSchema(_)
            | Statement::AlterIndex { .. }
            | Statement::AlterView(_)
            | Statement::AlterFunction(_)
            | Statement::AlterType(_)
            | Statement::AlterCollation(_)
            | Statement::AlterOperator(_)
            | Statement::AlterOperatorFamily(_)
            | Statement::AlterOperatorClass(_)
            | Statement::AlterTextSearch(_)
            | Statement::AlterRole { .. }
            | Statement::AlterPolicy(_)
            | Statement::AlterTrigger(_)
            | Statement::AlterConnector { .. }
            | Statement::AlterUser(_)
            | Statement::RenameTable(_) => {
                let head = match statement {
                    Statement::AlterTable(t) => format!("ALTER TABLE {}", t.name),
                    _ => head(statement),
                };
                self.flag(
                    Kind::Alter,
                    format!(
                        "`{head}` changes the schema or an account, {POLICY}; ask a person to \
                         make schema changes"
                    ),
                );
            }
            Statement::Grant(_)
            | Statement::GrantRole(_)
            | Statement::Revoke(_)
            | Statement::RevokeRole(_)
            | Statement::Deny(_)
            | Statement::AlterDefaultPrivileges(_) => {
                let head = head(statement);
                self.flag(
                    Kind::Grant,
                    format!(
                        "`{head}` changes who may access what, {POLICY}; ask a database \
                         administrator"
                    ),
                );
            }
            Statement::Delete(delete) => {
                let tables = match &delete.from {
                    FromTable::WithFromKeyword(t) | FromTable::WithoutKeyword(t) => t,
                };
                let target: Vec<String> = tables.iter().map(|t| t.relation.to_string()).collect();
                let target = target.join(", ");
                if let Some(problem) = where_problem(delete.selection.as_ref()) {
                    self.flag(
                        Kind::DeleteWithoutWhere,
                        format!(
                            "`DELETE FROM {target}` {problem}, so it would delete every row; \
                             add a WHERE clause that selects only the rows to delete \
                             (e.g. `WHERE id = ...`)"
                        ),
                    );
                }
            }
            Statement::Update(update) => {
                let target = update.table.relation.to_string();
                if let Some(problem) = where_problem(update.selection.as_ref()) {
                    self.flag(
                        Kind::UpdateWithoutWhere,
                        format!(
                            "`UPDATE {target}` {problem}, so it would change every row; \
                             add a WHERE clause that selects only the rows to change \
                             (e.g. `WHERE id = ...`)"
                        ),
                    );
                }
            }
            Statement::Execute {
                name,
                parameters,
                immediate,
                ..
            } => {
                let runs_text = *immediate
                    || name.as_ref().is_none_or(|n| {
                        n.to_string()
                            .rsplit('.')
                            .next()
                            .is_some_and(|last| last.eq_ignore_ascii_case("sp_executesql"))
                    });
                if runs_text {
                    let text = parameters.first().and_then(string_literal);
                    self.dynamic_sql(text);
                }
            }
            _ => {}
        }
        ControlFlow::Continue(())
    }

    fn pre_visit_query(&mut self, query: &Query) -> ControlFlow<()> {
        if self.read_only && selects_into(&query.body) {
            self.findings
                .push(read_only_finding("`SELECT ... INTO` (it creates a table)"));
        }
        ControlFlow::Continue(())
    }
}

/// Whether a query body is, or combines, a `SELECT ... INTO`.
fn selects_into(body: &SetExpr) -> bool {
    match body {
        SetExpr::Select(select) => select.into.is_some(),
        SetExpr::Query(query) => selects_into(&query.body),
        SetExpr::SetOperation { left, right, .. } => selects_into(left) || selects_into(right),
        _ => false,
    }
}

/// The text of a string literal expression.
fn string_literal(expr: &Expr) -> Option<String> {
    match expr {
        Expr::Value(v) => v.value.clone().into_string(),
        Expr::Nested(inner) => string_literal(inner),
        _ => None,
    }
}

/// Why a `WHERE` clause does not filter: missing, or always true.
fn where_problem(selection: Option<&Expr>) -> Option<String> {
    match selection {
        None => Some("has no WHERE clause".into()),
        Some(e) if always_true(e) => {
            let text = e.to_string();
            let shown = if text.chars().count() > 40 {
                "its WHERE clause".to_string()
            } else {
                format!("`WHERE {text}`")
            };
            Some(format!("has a WHERE clause that is always true ({shown})"))
        }
        Some(_) => None,
    }
}

/// A constant value of an expression made only of literals.
#[derive(Debug, Clone, PartialEq)]
enum Const {
    Bool(bool),
    Num(f64),
    Str(String),
    Null,
}

impl Const {
    /// SQL truthiness as MySQL and SQLite read a bare value in `WHERE`.
    fn truthy(&self) -> bool {
        match self {
            Const::Bool(b) => *b,
            Const::Num(n) => *n != 0.0,
            Const::Str(_) | Const::Null => false,
        }
    }
}

/// Fold an expression of literals into a constant; `None` when it reads a
/// column, calls a function, or uses an operator not folded here.
fn const_value(expr: &Expr) -> Option<Const> {
    match expr {
        Expr::Value(v) => match &v.value {
            Value::Number(n, _) => n.parse::<f64>().ok().map(Const::Num),
            Value::Boolean(b) => Some(Const::Bool(*b)),
            Value::Null => Some(Const::Null),
            other => other.clone().into_string().map(Const::Str),
        },
        Expr::Nested(inner) => const_value(inner),
        Expr::UnaryOp { op, expr } => match (op, const_value(expr)?) {
            (UnaryOperator::Not, Const::Bool(b)) => Some(Const::Bool(!b)),
            (UnaryOperator::Not, c @ Const::Num(_)) => Some(Const::Bool(!c.truthy())),
            (UnaryOperator::Minus, Const::Num(n)) => Some(Const::Num(-n)),
            (UnaryOperator::Plus, Const::Num(n)) => Some(Const::Num(n)),
            _ => None,
        },
        Expr::BinaryOp { left, op, right } => {
            let (l, r) = (const_value(left)?, const_value(right)?);
            match op {
                BinaryOperator::And => Some(Const::Bool(l.truthy() && r.truthy())),
                BinaryOperator::Or => Some(Const::Bool(l.truthy() || r.truthy())),
                _ => compare(&l, op, &r).map(Const::Bool),
            }
        }
        Expr::IsTrue(inner) => Some(Const::Bool(const_value(inner)?.truthy())),
        Expr::IsNull(inner) => Some(Const::Bool(const_value(inner)? == Const::Null)),
        Expr::IsNotNull(inner) => Some(Const::Bool(const_value(inner)? != Const::Null)),
        _ => None,
    }
}

/// Compare two constants with a comparison operator; `None` for NULLs,
/// mixed types and other operators.
fn compare(l: &Const, op: &BinaryOperator, r: &Const) -> Option<bool> {
    let ord = match (l, r) {
        (Const::Num(a), Const::Num(b)) => a.partial_cmp(b)?,
        (Const::Str(a), Const::Str(b)) => a.cmp(b),
        (Const::Bool(a), Const::Bool(b)) => a.cmp(b),
        _ => return None,
    };
    use std::cmp::Ordering::*;
    Some(match op {
        BinaryOperator::Eq => ord == Equal,
        BinaryOperator::NotEq => ord != Equal,
        BinaryOperator::Lt => ord == Less,
        BinaryOperator::LtEq => ord != Greater,
        BinaryOperator::Gt => ord == Greater,
        BinaryOperator::GtEq => ord != Less,
        _ => return None,
    })
}

/// Whether a `WHERE` condition is trivially true, so it does not narrow
/// the rows a `DELETE`/`UPDATE` touches.
///
/// Caught: constant conditions that fold to true (`1=1`, `TRUE`, `1`,
/// `'a'='a'`, `2>1`, `NOT FALSE`, `1 IN (1, 2)`), a column compared with
/// itself (`id = id`, `x >= x`: true on every non-NULL row), `x LIKE '%'`,
/// an `OR` with such a branch, an `AND` of such conditions, and any of
/// these in parentheses. Conditions that merely happen to match every row
/// (`id > 0`, a subquery over the same table) are not recognised.
pub(crate) fn always_true(expr: &Expr) -> bool {
    if let Some(c) = const_value(expr) {
        return c.truthy();
    }
    match expr {
        Expr::Nested(inner) => always_true(inner),
        Expr::BinaryOp { left, op, right } => match op {
            BinaryOperator::Or => always_true(left) || always_true(right),
            BinaryOperator::And => always_true(left) && always_true(right),
            BinaryOperator::Eq
            | BinaryOperator::GtEq
            | BinaryOperator::LtEq
            | BinaryOperator::Spaceship => left == right && is_plain_column(left),
            _ => false,
        },
        Expr::Like {
            negated: false,
            expr,
            pattern,
            ..
        }
        | Expr::ILike {
            negated: false,
            expr,
            pattern,
            ..
        } => {
            is_plain_column(expr)
                && matches!(const_value(pattern), Some(Const::Str(p)) if !p.is_empty() && p.chars().all(|c| c == '%'))
        }
        Expr::In {
            expr,
            target: InTarget::List(list),
            negated: false,
            ..
        } => match const_value(expr) {
            Some(c) if c != Const::Null => {
                list.iter().any(|item| const_value(item) == Some(c.clone()))
            }
            _ => false,
        },
        _ => false,
    }
}

/// A column reference (`id`, `t.id`), the only operand whose comparison
/// with itself is known to be true on every non-NULL row.
fn is_plain_column(expr: &Expr) -> bool {
    match expr {
        Expr::Identifier(_) | Expr::CompoundIdentifier(_) => true,
        Expr::Nested(inner) => is_plain_column(inner),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sqlparser::dialect::{GenericDialect, MsSqlDialect, PostgreSqlDialect, SnowflakeDialect};

    fn kinds_in(
        dialect: &dyn Dialect,
        sql: &str,
        allow_multiple: bool,
        read_only: bool,
    ) -> Vec<String> {
        let statements = Parser::parse_sql(dialect, sql).expect("parses");
        analyze(&statements, dialect, allow_multiple, read_only)
            .into_iter()
            .map(|f| match f {
                Finding::Flagged { kind, .. } => kind.rule().to_string(),
                Finding::Unparseable(_) => "sql.unparseable".to_string(),
            })
            .collect()
    }

    fn kinds(sql: &str) -> Vec<String> {
        kinds_in(&GenericDialect {}, sql, false, false)
    }

    fn ro(sql: &str) -> Vec<String> {
        kinds_in(&PostgreSqlDialect {}, sql, false, true)
    }

    fn where_of(sql: &str) -> Expr {
        let statements = Parser::parse_sql(&GenericDialect {}, sql).unwrap();
        match &statements[0] {
            Statement::Delete(d) => d.selection.clone().unwrap(),
            other => panic!("not a delete: {other}"),
        }
    }

    #[test]
    fn literal_and_comment_look_alikes_are_not_statements() {
        assert!(kinds("SELECT 'DROP TABLE users'").is_empty());
        assert!(kinds("SELECT drop_count, truncate_at FROM stats -- DROP TABLE stats").is_empty());
        assert!(kinds("/* ALTER TABLE x */ SELECT 1").is_empty());
    }

    #[test]
    fn destructive_statements_get_their_rules() {
        assert_eq!(kinds("DROP TABLE IF EXISTS users CASCADE"), ["sql.drop"]);
        assert_eq!(kinds("drop view v"), ["sql.drop"]);
        assert_eq!(kinds("TRUNCATE TABLE audit_log"), ["sql.truncate"]);
        assert_eq!(kinds("ALTER TABLE users DROP COLUMN email"), ["sql.alter"]);
        assert_eq!(kinds("GRANT ALL ON users TO PUBLIC"), ["sql.grant"]);
        assert_eq!(kinds("REVOKE SELECT ON users FROM bob"), ["sql.grant"]);
    }

    #[test]
    fn drop_message_names_object_type_and_names() {
        let s = Parser::parse_sql(&GenericDialect {}, "DROP TABLE a.users, b").unwrap();
        let f = analyze(&s, &GenericDialect {}, false, false);
        match &f[0] {
            Finding::Flagged { message, .. } => {
                assert!(message.starts_with("`DROP TABLE a.users, b`"), "{message}")
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn delete_and_update_need_a_real_where() {
        assert_eq!(kinds("DELETE FROM users"), ["sql.delete-without-where"]);
        assert_eq!(
            kinds("DELETE FROM users WHERE 1=1"),
            ["sql.delete-without-where"]
        );
        assert_eq!(
            kinds("UPDATE users SET active = false"),
            ["sql.update-without-where"]
        );
        assert_eq!(
            kinds("UPDATE users SET active = false WHERE id = id"),
            ["sql.update-without-where"]
        );
        assert!(kinds("DELETE FROM users WHERE id = 5").is_empty());
        assert!(kinds("UPDATE users SET name = 'x' WHERE id = 5 OR id = 6").is_empty());
    }

    #[test]
    fn tautologies_are_recognised() {
        for sql in [
            "DELETE FROM t WHERE 1=1",
            "DELETE FROM t WHERE TRUE",
            "DELETE FROM t WHERE 1",
            "DELETE FROM t WHERE 'a' = 'a'",
            "DELETE FROM t WHERE (2 > 1)",
            "DELETE FROM t WHERE NOT FALSE",
            "DELETE FROM t WHERE id = 5 OR 1 = 1",
            "DELETE FROM t WHERE 1 = 1 AND 'x' <> 'y'",
            "DELETE FROM t WHERE t.id = t.id",
            "DELETE FROM t WHERE name LIKE '%'",
            "DELETE FROM t WHERE 1 IN (1, 2)",
            "DELETE FROM t WHERE -1 < 0",
        ] {
            assert!(always_true(&where_of(sql)), "{sql}");
        }
        for sql in [
            "DELETE FROM t WHERE id = 5",
            "DELETE FROM t WHERE 1 = 2",
            "DELETE FROM t WHERE 0",
            "DELETE FROM t WHERE id = 5 AND 1 = 1",
            "DELETE FROM t WHERE id = other_id",
            "DELETE FROM t WHERE name LIKE 'a%'",
            "DELETE FROM t WHERE NULL = NULL",
            "DELETE FROM t WHERE 3 IN (1, 2)",
            "DELETE FROM t WHERE f(x) = f(x)",
        ] {
            assert!(!always_true(&where_of(sql)), "{sql}");
        }
    }

    #[test]
    fn multiple_statements_unless_allowed() {
        assert_eq!(kinds("SELECT 1; SELECT 2"), ["sql.multiple-statements"]);
        assert!(kinds_in(&GenericDialect {}, "SELECT 1; SELECT 2", true, false).is_empty());
        // A trailing semicolon is still one statement.
        assert!(kinds("SELECT 1;").is_empty());
    }

    #[test]
    fn nested_writes_are_found() {
        assert_eq!(
            kinds_in(
                &PostgreSqlDialect {},
                "WITH gone AS (DELETE FROM users RETURNING id) SELECT count(*) FROM gone",
                false,
                false
            ),
            ["sql.hidden-write", "sql.delete-without-where"]
        );
        assert_eq!(
            kinds_in(
                &PostgreSqlDialect {},
                "PREPARE wipe AS DELETE FROM users",
                false,
                false
            ),
            ["sql.delete-without-where"]
        );
    }

    #[test]
    fn explain_analyze_runs_its_statement_plain_explain_does_not() {
        assert!(
            kinds_in(
                &PostgreSqlDialect {},
                "EXPLAIN DELETE FROM users",
                false,
                false
            )
            .is_empty()
        );
        assert_eq!(
            kinds_in(
                &PostgreSqlDialect {},
                "EXPLAIN ANALYZE DELETE FROM users",
                false,
                false
            ),
            ["sql.explain-analyze", "sql.delete-without-where"]
        );
        assert_eq!(
            kinds_in(
                &PostgreSqlDialect {},
                "EXPLAIN (ANALYZE, BUFFERS) DELETE FROM users",
                false,
                false
            ),
            ["sql.explain-analyze", "sql.delete-without-where"]
        );
        assert!(
            kinds_in(
                &PostgreSqlDialect {},
                "EXPLAIN (ANALYZE false) DELETE FROM users",
                false,
                false
            )
            .is_empty()
        );
    }

    #[test]
    fn literal_dynamic_sql_is_parsed() {
        assert_eq!(
            kinds_in(
                &SnowflakeDialect,
                "EXECUTE IMMEDIATE 'DROP TABLE users'",
                false,
                false
            ),
            ["sql.drop"]
        );
        assert_eq!(
            kinds_in(
                &MsSqlDialect {},
                "EXEC sp_executesql N'TRUNCATE TABLE users'",
                false,
                false
            ),
            ["sql.truncate"]
        );
        assert_eq!(
            kinds_in(&SnowflakeDialect, "EXECUTE IMMEDIATE :stmt", false, false),
            ["sql.unparseable"]
        );
        // A prepared statement run by name is not dynamic text.
        assert!(
            kinds_in(
                &PostgreSqlDialect {},
                "EXECUTE fetch_user(5, 'bob')",
                false,
                false
            )
            .is_empty()
        );
    }

    #[test]
    fn read_only_allows_queries_only() {
        assert!(ro("SELECT * FROM users WHERE id = 5").is_empty());
        assert!(ro("WITH recent AS (SELECT * FROM orders) SELECT count(*) FROM recent").is_empty());
        assert!(ro("EXPLAIN SELECT * FROM users").is_empty());
        assert!(ro("SHOW TABLES").is_empty());
        assert!(kinds_in(&GenericDialect {}, "DESCRIBE users", false, true).is_empty());
        assert!(ro("SELECT * FROM a UNION SELECT * FROM b").is_empty());
        assert_eq!(
            ro("INSERT INTO users (name) VALUES ('x')"),
            ["sql.read-only"]
        );
        assert_eq!(ro("SELECT * INTO backup FROM users"), ["sql.read-only"]);
        assert_eq!(
            ro("WITH x AS (UPDATE users SET a = 1 WHERE id = 2 RETURNING *) SELECT * FROM x"),
            ["sql.hidden-write", "sql.read-only"]
        );
        assert_eq!(
            ro("EXPLAIN ANALYZE INSERT INTO t VALUES (1)"),
            ["sql.explain-analyze", "sql.read-only"]
        );
        assert_eq!(ro("SET search_path = evil"), ["sql.read-only"]);
        // Read-only and destructive findings both apply.
        assert_eq!(ro("DROP TABLE users"), ["sql.read-only", "sql.drop"]);
    }

    #[test]
    fn head_names_statement_without_values() {
        let s = Parser::parse_sql(
            &PostgreSqlDialect {},
            "ALTER USER bob WITH PASSWORD 'hunter2'",
        )
        .unwrap();
        // PostgreSQL reads ALTER USER as its alias ALTER ROLE.
        assert_eq!(head(&s[0]), "ALTER ROLE");
        let f = analyze(&s, &PostgreSqlDialect {}, false, false);
        match &f[0] {
            Finding::Flagged { kind, message } => {
                assert_eq!(*kind, Kind::Alter);
                assert!(!message.contains("hunter2"), "{message}");
            }
            other => panic!("{other:?}"),
        }
    }
}
