//! Commands that destroy infrastructure or data in one call: `terraform
//! destroy`, `kubectl delete namespace`, `helm uninstall`, cloud CLI
//! deletes, `dropdb`, `redis-cli FLUSHALL`, ORM schema resets (`prisma db
//! push --force-reset`, `rails db:drop`), `docker volume rm`. They act on
//! remote systems the workspace rules cannot see, so they are judged by
//! what they are: the `destructive_action` setting (default escalate: a
//! person approves, since tearing down a dev stack is sometimes the task).
//!
//! Each entry names the program, words that must appear in order among
//! its operands (options and their values may sit between them), and the
//! flags that make it destructive when the words alone do not.

use crate::syntax::Field;
use crate::walk::Analysis;

/// What a destroyer destroys, for the rule id and the message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Family {
    /// Servers, clusters, networks, buckets, projects.
    Infra,
    /// Databases, tables, caches, volumes.
    Data,
    /// Access: credentials created, policies attached, roles bound.
    Access,
}

/// A word among the operands: one of several spellings.
type Word = &'static [&'static str];

struct Entry {
    programs: &'static [&'static str],
    words: &'static [Word],
    /// At least one of these flags is needed (empty: none).
    any_flag: &'static [&'static str],
    family: Family,
    what: &'static str,
    /// Some argument must contain one of these (empty: none), for clients
    /// given a script (`mongosh --eval 'db.dropDatabase()'`).
    any_text: &'static [&'static str],
}

const fn e(
    programs: &'static [&'static str],
    words: &'static [Word],
    any_flag: &'static [&'static str],
    family: Family,
    what: &'static str,
) -> Entry {
    Entry {
        programs,
        words,
        any_flag,
        family,
        what,
        any_text: &[],
    }
}

const fn t(
    programs: &'static [&'static str],
    any_text: &'static [&'static str],
    family: Family,
    what: &'static str,
) -> Entry {
    Entry {
        programs,
        words: &[],
        any_flag: &[],
        family,
        what,
        any_text,
    }
}

use Family::{Access, Data, Infra};

const TF: &[&str] = &["terraform", "tofu", "terragrunt"];
const DELETE: Word = &["delete"];
const ENTRIES: &[Entry] = &[
    e(
        TF,
        &[&["destroy"]],
        &[],
        Infra,
        "destroys every resource of the configuration",
    ),
    e(
        TF,
        &[&["apply", "plan"]],
        &["-destroy", "--destroy"],
        Infra,
        "destroys every resource of the configuration",
    ),
    e(
        TF,
        &[&["run-all"], &["destroy"]],
        &[],
        Infra,
        "destroys every module's resources",
    ),
    e(
        &["pulumi"],
        &[&["destroy", "down"]],
        &[],
        Infra,
        "destroys every resource of the stack",
    ),
    e(
        &["pulumi"],
        &[&["stack"], &["rm"]],
        &[],
        Infra,
        "removes a stack",
    ),
    e(
        &["cdk", "cdktf"],
        &[&["destroy"]],
        &[],
        Infra,
        "destroys the stacks",
    ),
    e(
        &["serverless", "sls"],
        &[&["remove"]],
        &[],
        Infra,
        "removes the deployed service",
    ),
    e(
        &["kubectl", "oc"],
        &[
            DELETE,
            &[
                "namespace",
                "namespaces",
                "ns",
                "pv",
                "persistentvolume",
                "persistentvolumes",
                "pvc",
                "persistentvolumeclaim",
                "persistentvolumeclaims",
                "crd",
                "crds",
                "customresourcedefinition",
                "customresourcedefinitions",
                "node",
                "nodes",
            ],
        ],
        &[],
        Infra,
        "deletes a namespace, volume, resource definition or node and everything that depends on it",
    ),
    e(
        &["kubectl", "oc"],
        &[DELETE],
        &["--all", "-A", "--all-namespaces"],
        Infra,
        "deletes every resource of a kind",
    ),
    e(
        &["helm"],
        &[&["uninstall", "delete", "del", "un"]],
        &[],
        Infra,
        "uninstalls a release and the resources it created",
    ),
    e(
        &["aws"],
        &[&["s3"], &["rb"]],
        &[],
        Infra,
        "removes a bucket",
    ),
    e(
        &["aws"],
        &[&["*"], &["delete-*", "terminate-*"]],
        &[],
        Infra,
        "deletes cloud resources",
    ),
    e(
        &["aws"],
        &[&["s3"], &["rm"]],
        &["--recursive"],
        Data,
        "deletes every object under a prefix",
    ),
    e(&["gsutil"], &[&["rb"]], &[], Infra, "removes a bucket"),
    e(
        &["gsutil"],
        &[&["rm"]],
        &["-r", "-R", "-rf"],
        Data,
        "deletes every object under a prefix",
    ),
    e(
        &["gcloud"],
        &[&["storage"], &["rm"]],
        &["--recursive", "-r"],
        Data,
        "deletes every object under a prefix",
    ),
    e(
        &["gcloud", "az", "doctl", "linode-cli", "hcloud", "scw"],
        &[DELETE],
        &[],
        Infra,
        "deletes cloud resources",
    ),
    e(
        &["heroku"],
        &[&["apps:destroy", "pg:reset", "addons:destroy"]],
        &[],
        Infra,
        "destroys an app or its database",
    ),
    e(
        &["fly", "flyctl"],
        &[&["apps", "volumes"], &["destroy"]],
        &[],
        Infra,
        "destroys an app or a volume",
    ),
    e(
        &["fly", "flyctl"],
        &[&["destroy"]],
        &[],
        Infra,
        "destroys an app",
    ),
    e(
        &["vercel"],
        &[&["remove", "rm"]],
        &[],
        Infra,
        "removes deployments or a project",
    ),
    e(
        &["netlify"],
        &[&["sites:delete"]],
        &[],
        Infra,
        "deletes a site",
    ),
    e(
        &["firebase"],
        &[&[
            "firestore:delete",
            "database:remove",
            "projects:delete",
            "hosting:disable",
        ]],
        &[],
        Data,
        "deletes the project's data",
    ),
    e(
        &["gh", "glab"],
        &[&["repo"], DELETE],
        &[],
        Infra,
        "deletes a repository",
    ),
    e(
        &["supabase"],
        &[&["db"], &["reset"]],
        &[],
        Data,
        "drops and re-creates the database",
    ),
    e(
        &["supabase"],
        &[&["projects"], DELETE],
        &[],
        Infra,
        "deletes a project",
    ),
    e(
        &["docker", "podman"],
        &[&["system"], &["prune"]],
        &["--volumes"],
        Data,
        "deletes every unused volume (their data)",
    ),
    e(
        &["docker", "podman"],
        &[&["volume"], &["rm", "prune"]],
        &[],
        Data,
        "deletes volumes and their data",
    ),
    e(
        &["docker", "podman", "docker-compose"],
        &[&["down"]],
        &["-v", "--volumes"],
        Data,
        "deletes the project's volumes and their data",
    ),
    e(&["dropdb"], &[], &[], Data, "drops a database"),
    e(&["mysqladmin"], &[&["drop"]], &[], Data, "drops a database"),
    e(
        &["redis-cli", "valkey-cli", "keydb-cli"],
        &[&["flushall", "FLUSHALL", "flushdb", "FLUSHDB"]],
        &[],
        Data,
        "deletes every key",
    ),
    e(
        &["prisma"],
        &[&["db"], &["push"]],
        &["--force-reset", "--accept-data-loss"],
        Data,
        "drops and re-creates the database schema, losing data",
    ),
    e(
        &["prisma"],
        &[&["migrate"], &["reset"]],
        &[],
        Data,
        "drops the database and re-applies every migration",
    ),
    e(
        &["drizzle-kit"],
        &[&["push"]],
        &["--force"],
        Data,
        "applies schema changes that lose data without asking",
    ),
    e(
        &["drizzle-kit"],
        &[&["drop"]],
        &[],
        Data,
        "drops migrations",
    ),
    e(
        &["rails", "rake"],
        &[&[
            "db:drop",
            "db:reset",
            "db:purge",
            "db:schema:load",
            "db:truncate_all",
        ]],
        &[],
        Data,
        "drops or wipes the database",
    ),
    e(
        &["manage.py", "django-admin"],
        &[&["flush", "reset_db", "sqlflush"]],
        &[],
        Data,
        "deletes every row of the database",
    ),
    e(
        &["artisan"],
        &[&["migrate:fresh", "migrate:reset", "db:wipe"]],
        &[],
        Data,
        "drops every table",
    ),
    e(
        &["sequelize", "sequelize-cli"],
        &[&["db:drop"]],
        &[],
        Data,
        "drops the database",
    ),
    e(
        &["typeorm"],
        &[&["schema:drop"]],
        &[],
        Data,
        "drops the schema",
    ),
    e(
        &["mix"],
        &[&["ecto.drop", "ecto.reset"]],
        &[],
        Data,
        "drops the database",
    ),
    e(
        &["alembic"],
        &[&["downgrade"], &["base"]],
        &[],
        Data,
        "reverts every migration",
    ),
    t(
        &["mongosh", "mongo"],
        &["dropDatabase(", ".drop(", "deleteMany({})", "remove({})"],
        Data,
        "drops a database or collection",
    ),
    t(
        &[
            "psql",
            "mysql",
            "mariadb",
            "sqlite3",
            "duckdb",
            "clickhouse-client",
            "cqlsh",
        ],
        &["DROP ", "drop ", "TRUNCATE ", "truncate "],
        Data,
        "runs SQL that drops or truncates",
    ),
    e(
        &["aws"],
        &[
            &["iam"],
            &[
                "create-access-key",
                "create-user",
                "create-login-profile",
                "attach-*",
                "put-*",
                "update-assume-role-policy",
                "add-user-to-group",
            ],
        ],
        &[],
        Access,
        "creates credentials or grants permissions",
    ),
    e(
        &["gcloud"],
        &[&["add-iam-policy-binding", "set-iam-policy"]],
        &[],
        Access,
        "grants permissions",
    ),
    e(
        &["gcloud"],
        &[&["service-accounts"], &["keys"], &["create"]],
        &[],
        Access,
        "creates a service-account key",
    ),
    e(
        &["az"],
        &[&["role"], &["assignment"], &["create"]],
        &[],
        Access,
        "grants a role",
    ),
    e(
        &["kubectl", "oc"],
        &[&["create"], &["clusterrolebinding", "rolebinding"]],
        &[],
        Access,
        "binds a role",
    ),
];

/// Runners whose next operand is the program: `npx prisma …`, `bundle exec
/// rails …`, `python manage.py …`, `php artisan …`.
pub(crate) fn unwrap_runner(name: &str, args: &[Field]) -> Option<(String, Vec<Field>)> {
    let skip_opts = |from: usize| {
        args[from..]
            .iter()
            .position(|a| !a.text().starts_with('-'))
            .map(|p| from + p)
    };
    let at = match name {
        "npx" | "bunx" | "pnpx" => skip_opts(0)?,
        "pnpm" | "yarn" | "npm" | "bun" => match args.first().map(Field::text).as_deref() {
            Some("exec" | "dlx" | "x") => skip_opts(1)?,
            Some(s)
                if !s.starts_with('-')
                    && !matches!(s, "run" | "install" | "add" | "test" | "i" | "ci") =>
            {
                0
            }
            _ => return None,
        },
        "bundle" | "poetry" | "uv" | "pipenv" | "pdm" | "hatch" => {
            match args.first().map(Field::text).as_deref() {
                Some("exec" | "run") => skip_opts(1)?,
                _ => return None,
            }
        }
        n if n.starts_with("python") || n == "php" => skip_opts(0)?,
        _ => return None,
    };
    let program = crate::walk::commands::base_name(&args.get(at)?.text());
    Some((program, args[at + 1..].to_vec()))
}

impl Analysis<'_> {
    /// Report a destroyer with the `destructive_action` of the settings.
    pub(crate) fn destroyer(&mut self, name: &str, args: &[Field]) {
        let runner = matches!(
            name,
            "npx"
                | "bunx"
                | "pnpx"
                | "pnpm"
                | "yarn"
                | "npm"
                | "bun"
                | "bundle"
                | "poetry"
                | "uv"
                | "pipenv"
                | "pdm"
                | "hatch"
                | "php"
        ) || name.starts_with("python");
        if !runner && !ENTRIES.iter().any(|e| e.programs.contains(&name)) {
            return;
        }
        let (program, rest) = match unwrap_runner(name, args) {
            Some(p) => p,
            None => (name.to_string(), args.to_vec()),
        };
        let words: Vec<String> = rest.iter().map(Field::text).collect();
        let operands: Vec<&str> = words
            .iter()
            .map(String::as_str)
            .filter(|w| !w.starts_with('-'))
            .collect();
        let Some(entry) = ENTRIES.iter().find(|e| {
            e.programs.contains(&program.as_str())
                && in_order(&operands, e.words)
                && (e.any_text.is_empty()
                    || words
                        .iter()
                        .any(|w| e.any_text.iter().any(|t| w.contains(t))))
                && (e.any_flag.is_empty()
                    || words.iter().any(|w| {
                        e.any_flag
                            .iter()
                            .any(|f| w == f || w.starts_with(&format!("{f}=")))
                    }))
        }) else {
            return;
        };
        let action = self.opts.destructive_action;
        if !action.stops() {
            return;
        }
        let shown: String = std::iter::once(program.as_str())
            .chain(operands.iter().take(entry.words.len().max(1)).copied())
            .collect::<Vec<_>>()
            .join(" ");
        let (rule, kind) = match entry.family {
            Infra => ("shell.destroy-infra", "infrastructure"),
            Data => ("shell.destroy-data", "data"),
            Access => ("shell.grant-access", "nothing but changes who may do what"),
        };
        self.report(
            action == toolvet_pdk::Action::Deny,
            rule,
            format!(
                "`{shown}` {}: it destroys {kind} outside this machine that cannot be restored from the workspace. A \
                 person must approve; show what would be removed first (a plan, a dry run or a list) and let them decide.",
                entry.what
            ),
        );
    }
}

/// Whether the alternatives of `words` appear in `operands` in order. An
/// alternative ending in `*` matches by prefix (`delete-*`); `*` alone
/// matches any operand.
fn in_order(operands: &[&str], words: &[Word]) -> bool {
    let mut it = operands.iter();
    words.iter().all(|alts| {
        it.any(|o| {
            alts.iter().any(|a| match a.strip_suffix('*') {
                Some(prefix) => o.starts_with(prefix),
                None => a == o,
            })
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn order() {
        assert!(in_order(&["prod", "delete", "ns", "x"], &[DELETE, &["ns"]]));
        assert!(!in_order(&["ns", "delete"], &[DELETE, &["ns"]]));
        assert!(in_order(&["anything"], &[]));
        assert!(in_order(
            &["ec2", "terminate-instances"],
            &[&["*"], &["delete-*", "terminate-*"]]
        ));
        assert!(!in_order(
            &["ec2", "describe-instances"],
            &[&["*"], &["delete-*", "terminate-*"]]
        ));
    }
}
