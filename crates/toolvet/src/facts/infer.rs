//! Inference: the facts of a call from its catalog entries when the tool
//! is catalogued, and otherwise from the words of its name and declared
//! description, its JSON Schema, and its argument names and values.
//!
//! Effects from words: a name's words are split (`deleteRepo`,
//! `send-email`, `wallet.send_token` → `delete repo`, `send email`,
//! `wallet send token`). Verbs ([`VERBS`]) give their effect wherever they
//! stand; objects ([`OBJECTS`]: `payment`, `message`, `visibility`) give
//! theirs unless every verb of the name only reads (`list_payments`,
//! `get_message` read; `create_payment`, `update_visibility` do not).
//!
//! Roles from argument names ([`NAMED_ROLES`], keys compared by
//! [`crate::fold::fold`]), the schema's `format` (`uri`, `email`), and
//! values (a string that is an `http(s)` URL is a `url`).

use super::catalog::{Catalog, Entry, PathStep};
use super::{Effect, Effects, FactSource, Role, RoleValue, ToolFacts};
use crate::call::ToolInfo;
use serde_json::Value;

/// Verbs and the effect each gives, wherever it stands in a name.
const VERBS: &[(&str, Effect)] = &[
    // Reads.
    ("get", Effect::Read),
    ("list", Effect::Read),
    ("read", Effect::Read),
    ("search", Effect::Read),
    ("find", Effect::Read),
    ("view", Effect::Read),
    ("show", Effect::Read),
    ("describe", Effect::Read),
    ("fetch", Effect::Read),
    ("lookup", Effect::Read),
    ("retrieve", Effect::Read),
    ("query", Effect::Read),
    ("browse", Effect::Read),
    ("navigate", Effect::Read),
    ("inspect", Effect::Read),
    ("check", Effect::Read),
    ("count", Effect::Read),
    ("download", Effect::Read),
    ("export", Effect::Read),
    ("screenshot", Effect::Read),
    ("status", Effect::Read),
    ("diff", Effect::Read),
    ("history", Effect::Read),
    // Writes.
    ("write", Effect::Write),
    ("create", Effect::Write),
    ("update", Effect::Write),
    ("edit", Effect::Write),
    ("set", Effect::Write),
    ("put", Effect::Write),
    ("patch", Effect::Write),
    ("add", Effect::Write),
    ("insert", Effect::Write),
    ("upsert", Effect::Write),
    ("modify", Effect::Write),
    ("replace", Effect::Write),
    ("rename", Effect::Write),
    ("rewrite", Effect::Write),
    ("undo", Effect::Write),
    ("revert", Effect::Write),
    ("restore", Effect::Write),
    ("pause", Effect::Write),
    ("resume", Effect::Write),
    ("abort", Effect::Write),
    ("cancel", Effect::Write),
    ("move", Effect::Write),
    ("save", Effect::Write),
    ("append", Effect::Write),
    ("commit", Effect::Write),
    ("copy", Effect::Write),
    ("upload", Effect::Write),
    ("import", Effect::Write),
    ("install", Effect::Write),
    ("enable", Effect::Write),
    ("disable", Effect::Write),
    ("configure", Effect::Write),
    ("schedule", Effect::Write),
    ("close", Effect::Write),
    ("archive", Effect::Write),
    ("type", Effect::Write),
    ("fill", Effect::Write),
    ("submit", Effect::Write),
    // Deletes.
    ("delete", Effect::Delete),
    ("remove", Effect::Delete),
    ("rm", Effect::Delete),
    ("del", Effect::Delete),
    ("rb", Effect::Delete),
    ("rmdir", Effect::Delete),
    ("destroy", Effect::Delete),
    ("drop", Effect::Delete),
    ("purge", Effect::Delete),
    ("trash", Effect::Delete),
    ("erase", Effect::Delete),
    ("wipe", Effect::Delete),
    ("truncate", Effect::Delete),
    ("uninstall", Effect::Delete),
    ("terminate", Effect::Delete),
    ("unlink", Effect::Delete),
    ("prune", Effect::Delete),
    ("clear", Effect::Delete),
    ("empty", Effect::Delete),
    // Runs code.
    ("run", Effect::Execute),
    ("exec", Effect::Execute),
    ("execute", Effect::Execute),
    ("eval", Effect::Execute),
    ("evaluate", Effect::Execute),
    ("shell", Effect::Execute),
    ("bash", Effect::Execute),
    ("sh", Effect::Execute),
    ("zsh", Effect::Execute),
    ("powershell", Effect::Execute),
    ("terminal", Effect::Execute),
    ("cmd", Effect::Execute),
    ("command", Effect::Execute),
    ("script", Effect::Execute),
    ("spawn", Effect::Execute),
    ("invoke", Effect::Execute),
    ("python", Effect::Execute),
    ("javascript", Effect::Execute),
    ("repl", Effect::Execute),
    ("interpreter", Effect::Execute),
    ("cli", Effect::Execute),
    ("kubectl", Effect::Execute),
    ("gcloud", Effect::Execute),
    ("az", Effect::Execute),
    ("cron", Effect::Execute),
    // Messages.
    ("send", Effect::OutboundMessage),
    ("reply", Effect::OutboundMessage),
    ("forward", Effect::OutboundMessage),
    ("notify", Effect::OutboundMessage),
    ("email", Effect::OutboundMessage),
    ("mail", Effect::OutboundMessage),
    ("post", Effect::OutboundMessage),
    ("comment", Effect::OutboundMessage),
    ("tweet", Effect::OutboundMessage),
    ("broadcast", Effect::OutboundMessage),
    ("announce", Effect::OutboundMessage),
    ("dm", Effect::OutboundMessage),
    ("share", Effect::OutboundMessage),
    ("invite", Effect::OutboundMessage),
    // Money.
    ("pay", Effect::Payment),
    ("transfer", Effect::Payment),
    ("refund", Effect::Payment),
    ("charge", Effect::Payment),
    ("checkout", Effect::Payment),
    ("withdraw", Effect::Payment),
    ("purchase", Effect::Payment),
    ("buy", Effect::Payment),
    ("payout", Effect::Payment),
    ("remit", Effect::Payment),
    ("wire", Effect::Payment),
    ("tip", Effect::Payment),
    // Publication.
    ("publish", Effect::Publish),
    ("release", Effect::Publish),
    ("merge", Effect::Publish),
    ("push", Effect::Publish),
    ("fork", Effect::Publish),
    // Permissions.
    ("grant", Effect::PermissionChange),
    ("revoke", Effect::PermissionChange),
    ("attach", Effect::PermissionChange),
    ("detach", Effect::PermissionChange),
    ("authorize", Effect::PermissionChange),
    ("unprotect", Effect::PermissionChange),
    ("share", Effect::PermissionChange),
    ("invite", Effect::PermissionChange),
    // Deploys.
    ("deploy", Effect::Deploy),
    ("apply", Effect::Deploy),
    ("rollout", Effect::Deploy),
    ("rollback", Effect::Deploy),
    ("promote", Effect::Deploy),
    ("scale", Effect::Deploy),
    ("provision", Effect::Deploy),
    ("restart", Effect::Deploy),
    ("redeploy", Effect::Deploy),
    ("launch", Effect::Deploy),
    ("upgrade", Effect::Deploy),
];

/// Objects and the effect each gives, unless the name's verbs only read.
const OBJECTS: &[(&str, Effect)] = &[
    ("message", Effect::OutboundMessage),
    ("messages", Effect::OutboundMessage),
    ("email", Effect::OutboundMessage),
    ("emails", Effect::OutboundMessage),
    ("sms", Effect::OutboundMessage),
    ("chat", Effect::OutboundMessage),
    ("notification", Effect::OutboundMessage),
    ("webhook", Effect::OutboundMessage),
    ("payment", Effect::Payment),
    ("payments", Effect::Payment),
    ("payout", Effect::Payment),
    ("refund", Effect::Payment),
    ("transfer", Effect::Payment),
    ("invoice", Effect::Payment),
    ("wallet", Effect::Payment),
    ("money", Effect::Payment),
    // (Not `transaction`: a database's is no payment.)
    ("release", Effect::Publish),
    ("gist", Effect::Publish),
    // Paste sites and DNS records are readable by anyone (review s22 F8).
    ("paste", Effect::Publish),
    ("pastes", Effect::Publish),
    ("pastebin", Effect::Publish),
    ("dns", Effect::Publish),
    ("visibility", Effect::Publish),
    ("public", Effect::Publish),
    ("permission", Effect::PermissionChange),
    ("permissions", Effect::PermissionChange),
    ("role", Effect::PermissionChange),
    ("roles", Effect::PermissionChange),
    ("policy", Effect::PermissionChange),
    ("access", Effect::PermissionChange),
    ("collaborator", Effect::PermissionChange),
    ("collaborators", Effect::PermissionChange),
    ("member", Effect::PermissionChange),
    ("members", Effect::PermissionChange),
    ("acl", Effect::PermissionChange),
    ("iam", Effect::PermissionChange),
    ("protection", Effect::PermissionChange),
    ("password", Effect::PermissionChange),
    ("visibility", Effect::PermissionChange),
    ("deployment", Effect::Deploy),
    ("stack", Effect::Deploy),
];

/// Verbs whose delete cannot be undone (a plain `delete` or `remove` also
/// counts unless the name says `trash` or `archive`).
const DESTROYING: &[&str] = &["destroy", "drop", "purge", "wipe", "erase", "terminate"];

/// Argument names (folded) and the role they give.
pub(crate) const NAMED_ROLES: &[(&str, Role)] = &[
    ("command", Role::ShellCommand),
    ("cmd", Role::ShellCommand),
    ("commandline", Role::ShellCommand),
    ("command_line", Role::ShellCommand),
    ("cmdline", Role::ShellCommand),
    ("shell_command", Role::ShellCommand),
    ("bash_command", Role::ShellCommand),
    ("script", Role::ShellCommand),
    ("code", Role::SourceCode),
    ("source_code", Role::SourceCode),
    ("python_code", Role::SourceCode),
    ("js_code", Role::SourceCode),
    ("javascript", Role::SourceCode),
    ("program", Role::SourceCode),
    ("snippet", Role::SourceCode),
    ("function", Role::SourceCode),
    ("path", Role::FilePath),
    ("paths", Role::FilePath),
    ("file", Role::FilePath),
    ("file_path", Role::FilePath),
    ("filepath", Role::FilePath),
    ("filename", Role::FilePath),
    ("file_name", Role::FilePath),
    ("target_file", Role::FilePath),
    ("absolute_path", Role::FilePath),
    ("relative_path", Role::FilePath),
    ("directory", Role::FilePath),
    ("dir", Role::FilePath),
    ("dir_path", Role::FilePath),
    ("source_path", Role::FilePath),
    ("destination_path", Role::FilePath),
    ("source", Role::FilePath),
    ("destination", Role::FilePath),
    ("target", Role::FilePath),
    ("notebook_path", Role::FilePath),
    ("cwd", Role::FilePath),
    ("workdir", Role::FilePath),
    ("working_directory", Role::FilePath),
    ("url", Role::Url),
    ("uri", Role::Url),
    ("urls", Role::Url),
    ("href", Role::Url),
    ("link", Role::Url),
    ("endpoint", Role::Url),
    ("webhook_url", Role::Url),
    ("callback_url", Role::Url),
    ("index_url", Role::Url),
    ("host", Role::Host),
    ("hostname", Role::Host),
    ("domain", Role::Host),
    ("server", Role::Host),
    ("ip", Role::Host),
    ("address", Role::Host),
    ("to", Role::Recipient),
    ("cc", Role::Recipient),
    ("bcc", Role::Recipient),
    ("recipient", Role::Recipient),
    ("recipients", Role::Recipient),
    ("email", Role::Recipient),
    ("emails", Role::Recipient),
    ("channel", Role::Recipient),
    ("channel_id", Role::Recipient),
    ("chat_id", Role::Recipient),
    ("phone", Role::Recipient),
    ("phone_number", Role::Recipient),
    ("destination_address", Role::Recipient),
    ("to_address", Role::Recipient),
    ("receiver", Role::Recipient),
    ("payee", Role::Recipient),
    ("iban", Role::Recipient),
    ("account", Role::Recipient),
    ("username", Role::Recipient),
    ("invitee", Role::Recipient),
    ("amount", Role::Amount),
    ("amount_cents", Role::Amount),
    ("amount_in_cents", Role::Amount),
    ("currency", Role::Currency),
    ("token", Role::Currency),
    ("asset", Role::Currency),
    ("repo", Role::Repository),
    ("repository", Role::Repository),
    ("repo_name", Role::Repository),
    ("full_name", Role::Repository),
    ("owner", Role::Repository),
    ("branch", Role::Branch),
    ("ref", Role::Branch),
    ("base", Role::Branch),
    ("head", Role::Branch),
    ("target_branch", Role::Branch),
    ("source_branch", Role::Branch),
    ("bucket", Role::CloudResource),
    ("bucket_name", Role::CloudResource),
    ("stack", Role::CloudResource),
    ("stack_name", Role::CloudResource),
    ("namespace", Role::CloudResource),
    ("cluster", Role::CloudResource),
    ("resource", Role::CloudResource),
    ("resource_name", Role::CloudResource),
    ("resource_type", Role::CloudResource),
    ("instance_id", Role::CloudResource),
    ("project_id", Role::CloudResource),
    ("database", Role::CloudResource),
    ("table", Role::CloudResource),
    ("environment", Role::Environment),
    ("env", Role::Environment),
    ("stage", Role::Environment),
    ("context", Role::Environment),
    ("kube_context", Role::Environment),
    ("workspace", Role::Environment),
    ("profile", Role::Environment),
    ("query", Role::Query),
    ("sql", Role::Query),
    ("statement", Role::Query),
];

/// Argument names (folded) of a text that is sent or published: the
/// `outbound-content` role when the call sends or publishes.
const TEXT_NAMES: &[&str] = &[
    "body",
    "text",
    "message",
    "content",
    "comment",
    "subject",
    "title",
    "html",
    "markdown",
    "description",
    "caption",
    "status",
    "note",
    "notes",
    "summary",
    "files",
];

/// Argument names that hold the code of a tool that runs the language
/// its name says, when no argument is named for code (folded).
const CODE_TEXT_NAMES: &[&str] = &[
    "text",
    "input",
    "content",
    "body",
    "source",
    "expression",
    "expr",
    "cell",
];

/// Words of a value naming a protected environment.
const PROTECTED_WORDS: &[&str] = &["prod", "production", "prd", "live"];

/// Branches that are a repository's published line of work: a change there
/// is a change to a protected target.
const PROTECTED_BRANCHES: &[&str] = &["main", "master", "trunk"];

/// Most values inspected per call, and the deepest nesting walked.
const MAX_VALUES: usize = 2_000;
const MAX_DEPTH: usize = 16;

/// Items of one list of names or ids from which a call acts on many
/// objects at once (a bulk archive of an inbox, a label over every issue):
/// such a change is made to a protected target, whatever the objects are.
/// Everyday batches (a few messages labelled, a page of issues closed) stay
/// far below it.
const BULK_ITEMS: usize = 500;

/// The longest list of names or ids in `arguments` (each a string of one
/// word, at most 256 bytes, or an integer), at the top or nested up to
/// three levels, as its JSON Pointer and length, when it holds
/// [`BULK_ITEMS`] or more. Lists of objects (rows, files), of lines or
/// sentences, and of fractions (an embedding's vector) are contents, not
/// targets.
fn bulk_list(arguments: &Value) -> Option<(String, usize)> {
    fn visit(value: &Value, at: &str, depth: usize, best: &mut Option<(String, usize)>) {
        match value {
            Value::Array(items) => {
                let ids = items.iter().all(|v| match v {
                    Value::String(t) => t.len() <= 256 && !t.contains(char::is_whitespace),
                    Value::Number(n) => n.is_u64() || n.is_i64(),
                    _ => false,
                });
                if ids
                    && items.len() >= BULK_ITEMS
                    && best.as_ref().is_none_or(|(_, n)| items.len() > *n)
                {
                    *best = Some((
                        if at.is_empty() {
                            "/".into()
                        } else {
                            at.to_string()
                        },
                        items.len(),
                    ));
                }
            }
            Value::Object(map) if depth < 3 => {
                for (key, v) in map {
                    visit(
                        v,
                        &format!("{at}/{}", pointer_segment(key)),
                        depth + 1,
                        best,
                    );
                }
            }
            _ => {}
        }
    }
    let mut best = None;
    visit(arguments, "", 0, &mut best);
    best
}

/// The facts of a call to `name` with `arguments` and the caller's `tool`.
pub(crate) fn derive(
    catalog: &Catalog,
    name: &str,
    arguments: &Value,
    tool: &ToolInfo,
) -> ToolFacts {
    let entries = catalog.lookup(name);
    let mut reasons = Vec::new();
    let mut effects = Effects::NONE;
    let mut irreversible = false;
    // A command runner's command names a protected environment, or the
    // catalog says every call acts on one.
    let mut known_protected = false;
    let source;
    if entries.is_empty() {
        let mut why = Vec::new();
        let words = words(name);
        if merges_a_request(name) {
            known_protected = true;
            why.push(
                "name: a merge of a pull or merge request lands on its base branch, a protected \
                 target the call does not name"
                    .into(),
            );
        }
        let (found, destroying) = effects_of_words(&words, "name", &mut why);
        effects = found;
        irreversible = destroying;
        if effects.is_empty()
            && let Some(description) = &tool.description
        {
            let first = description.split(['.', '\n']).next().unwrap_or("");
            let words: Vec<String> = words_of(first).into_iter().map(singular_verb).collect();
            let (found, destroying) = effects_of_words(&words, "description", &mut why);
            effects = found;
            irreversible = destroying;
        }
        reasons.extend(why.iter().cloned());
        source = FactSource::Inferred(why);
    } else {
        for e in &entries {
            reasons.push(format!("catalog {}", e.id));
            if e.effects_by_value {
                let (found, destroying, names_protected) =
                    effects_of_values(e, arguments, &mut reasons);
                effects = effects.union(found);
                irreversible |= destroying;
                known_protected |= names_protected;
            } else if let Some(chosen) = chosen_mode(e, arguments, &mut reasons) {
                effects = effects.union(chosen);
                // A call that only reads undoes nothing.
                irreversible |= e.irreversible && !chosen.iter().all(|x| x == Effect::Read);
            } else {
                effects = effects.union(e.effects);
                irreversible |= e.irreversible;
            }
            if e.protected_target {
                known_protected = true;
                reasons.push(format!(
                    "catalog {}: every call changes a protected target it does not name",
                    e.id
                ));
            }
        }
        source = FactSource::Catalog(entries.iter().map(|e| e.id.clone()).collect());
    }
    let declared: Effects = tool
        .tags
        .iter()
        .filter_map(|t| super::Effect::from_name(&crate::fold::fold(t)))
        .collect();
    for e in declared.iter().filter(|e| !effects.contains(*e)) {
        reasons.push(format!("declared tag \"{}\": {}", e.name(), e.name()));
    }
    let source = if effects.is_empty() && !declared.is_empty() {
        FactSource::Declared
    } else {
        source
    };
    effects = effects.union(declared);

    let schema = Schema::of(tool);
    let mut roles = Vec::new();
    let mut walker = Walker {
        entries: &entries,
        schema: &schema,
        out: &mut roles,
        path: Vec::new(),
        budget: MAX_VALUES,
    };
    walker.walk(arguments, None);
    let unread = walker.budget == 0;

    // Values that make something public, whatever the tool is called.
    // Posting into a place that exists (`add_comment`, `post_reply` with
    // `public: true`: a support reply the customer reads) publishes; making
    // a thing public, a new one (a public gist or repository: its audience
    // is chosen then, and what the world has read cannot be taken back) or
    // one that exists, also chooses who may see it: everyone.
    let posts = words(name)
        .iter()
        .any(|w| matches!(w.as_str(), "add" | "post" | "publish" | "reply" | "comment"));
    if let Some(map) = arguments.as_object() {
        for (key, value) in map {
            if makes_public(&crate::fold::fold(key), value) {
                effects.insert(Effect::Publish);
                if posts {
                    reasons.push(format!("/{key} = {value}: publish"));
                } else {
                    effects.insert(Effect::PermissionChange);
                    reasons.push(format!("/{key} = {value}: publish, permission-change"));
                }
            }
        }
    }
    // What the arguments of a tool nobody catalogued add: a command runs;
    // code runs unless the name says the tool only writes or reads it.
    let inferred = matches!(source, FactSource::Inferred(_) | FactSource::Declared);
    let writes_or_reads = effects
        .iter()
        .any(|e| matches!(e, Effect::Write | Effect::Read));
    for (role, why) in [
        (Role::ShellCommand, "a shell command argument"),
        (Role::SourceCode, "a source code argument"),
    ] {
        let adds = inferred && (role == Role::ShellCommand || !writes_or_reads);
        if adds && roles.iter().any(|r| r.role == role) && !effects.contains(Effect::Execute) {
            effects.insert(Effect::Execute);
            reasons.push(format!("{why}: execute"));
        }
    }
    // A tool nobody catalogued that runs a language its name says
    // (`javascript_tool`, `run_python`, `ruby_exec`), with no argument
    // named for code or a command: its top-level text arguments
    // ([`CODE_TEXT_NAMES`]: `text`, `input`) are that language's code, or
    // a command line for a shell's name.
    if inferred
        && effects.contains(Effect::Execute)
        && !roles
            .iter()
            .any(|r| matches!(r.role, Role::ShellCommand | Role::SourceCode))
        && let Some(language) = dialect_of(name, &Value::Null)
        && let Some(map) = arguments.as_object()
    {
        let role = match language.as_str() {
            "bash" | "sh" | "zsh" | "cmd" | "powershell" => Some(Role::ShellCommand),
            "sql" => None,
            _ => Some(Role::SourceCode),
        };
        for (key, value) in map {
            let folded = crate::fold::fold(key);
            if let (Some(role), Some(text)) = (role, value.as_str())
                && CODE_TEXT_NAMES.contains(&folded.as_str())
            {
                // Beside any role the value has already (a path, a URL):
                // facts only add.
                let pointer = format!("/{}", pointer_segment(key));
                reasons.push(format!(
                    "/{key} of a tool that runs {language}: {}",
                    role.name()
                ));
                roles.push(RoleValue {
                    role,
                    pointer,
                    value: text.to_string(),
                    dialect: None,
                });
            }
        }
    }
    let sends = effects.contains(Effect::OutboundMessage) || effects.contains(Effect::Publish);
    // Texts of a call that sends or publishes are its outbound content.
    if sends {
        let mut texts = Vec::new();
        collect_texts(arguments, &mut String::new(), 0, &mut texts);
        for (pointer, value) in texts {
            if !roles.iter().any(|r| r.pointer == pointer) {
                roles.push(RoleValue {
                    role: Role::OutboundContent,
                    pointer,
                    value,
                    dialect: None,
                });
            }
        }
    }
    // A message sent or money moved cannot be called back (the catalog
    // says so itself for the tools it knows).
    if inferred && (effects.contains(Effect::OutboundMessage) || effects.contains(Effect::Payment))
    {
        irreversible = true;
    }

    roles.sort_by(|a, b| a.pointer.cmp(&b.pointer));
    let dialect = dialect_of(name, arguments);
    let program = entries.iter().find_map(|e| e.program.clone());
    for r in &mut roles {
        if r.dialect.as_deref() == Some(super::catalog::KEYSTROKES) {
            continue;
        }
        if r.role == Role::ShellCommand && program.is_some() {
            r.dialect = program.clone();
            continue;
        }
        if matches!(r.role, Role::ShellCommand | Role::SourceCode) && r.dialect.is_none() {
            // The argument's own name first (`python_code`, `javascript`).
            let key = r
                .pointer
                .rsplit('/')
                .find(|s| s.parse::<usize>().is_err())
                .unwrap_or("");
            r.dialect = dialect_of(key, &Value::Null).or_else(|| dialect.clone());
        }
    }

    let mut protected_target = known_protected;
    if unread {
        // Padding must not hide the target: what was not read may name one.
        protected_target = true;
        reasons.push(format!(
            "the arguments hold over {MAX_VALUES} values or nest deeper than {MAX_DEPTH}, so \
             not all were read: the target may be a protected one"
        ));
    }
    if let Some((pointer, count)) = bulk_list(arguments) {
        protected_target = true;
        reasons.push(format!(
            "{pointer} lists {count} names or ids: a change to {BULK_ITEMS} or more objects at once \
             is made to a protected target"
        ));
    }
    // The published line of work of a shared repository (one the call
    // names by `owner/name`), not a local checkout's branch.
    let shared_repository = roles.iter().any(|r| r.role == Role::Repository);
    for r in &roles {
        let named = matches!(
            r.role,
            Role::Environment | Role::CloudResource | Role::Branch
        ) && words_of(&r.value)
            .iter()
            .any(|w| PROTECTED_WORDS.contains(&w.as_str()));
        // Only the branch a change is made on (`branch`, `ref`), not the
        // one a new branch or a pull request starts from or aims at.
        let acted_on = r
            .pointer
            .rsplit('/')
            .next()
            .is_some_and(|k| matches!(crate::fold::fold(k).as_str(), "branch" | "ref"));
        let branch = r.role == Role::Branch && acted_on && shared_repository && {
            let b = r
                .value
                .trim()
                .trim_start_matches("refs/heads/")
                .to_ascii_lowercase();
            PROTECTED_BRANCHES.contains(&b.as_str())
        };
        if named || branch {
            protected_target = true;
            reasons.push(format!(
                "{} = {:?} names a protected environment",
                r.pointer,
                clip(&r.value)
            ));
        }
    }

    // An inferred source carries every clue, those of the values too.
    let source = match source {
        FactSource::Inferred(_) => FactSource::Inferred(reasons.clone()),
        other => other,
    };
    ToolFacts {
        effects,
        irreversible,
        protected_target,
        roles,
        source,
        reasons,
    }
}

/// The effects the entry's [`Mode`](super::catalog::Mode)s choose for
/// this call, when the call sets every mode argument, spelled as the
/// source spells it, as the only key folding to that name, to one of its
/// listed values exactly; `None` (the entry's `effects`, all a call may
/// do) otherwise: a mode argument left out, a value not listed, or a
/// look-alike key that another decoder might read instead (`Run_Type`
/// beside `run_type`).
fn chosen_mode(entry: &Entry, arguments: &Value, why: &mut Vec<String>) -> Option<Effects> {
    let map = arguments.as_object()?;
    let mut chosen = Effects::NONE;
    let mut said = Vec::new();
    for mode in &entry.modes {
        let folded = crate::fold::fold(&mode.argument);
        let mut keys = map.keys().filter(|k| crate::fold::fold(k) == folded);
        // Left out, the tool does its default: the entry's `effects`.
        let key = keys.next()?;
        if keys.next().is_some() || *key != mode.argument {
            return None;
        }
        let value = map.get(key)?.as_str()?;
        let (_, effects) = mode.values.iter().find(|(v, _)| v == value)?;
        chosen = chosen.union(*effects);
        said.push(format!(
            "catalog {}: {} = {value:?}: {}",
            entry.id,
            mode.argument,
            effects
                .iter()
                .map(Effect::name)
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    if said.is_empty() {
        return None;
    }
    why.extend(said);
    Some(chosen)
}

/// Whether the argument `folded_key` set to `value` makes something
/// public: `visibility`/`privacy`/`access_level` set to `public`,
/// `private`/`is_private` set to `false`, `public`/`is_public` to `true`.
fn makes_public(folded_key: &str, value: &Value) -> bool {
    match folded_key {
        "visibility" | "privacy" | "access_level" | "accesslevel" => value
            .as_str()
            .is_some_and(|v| v.trim().eq_ignore_ascii_case("public")),
        // As a decoder that coerces reads them (`"false"`, `0`).
        "private" | "is_private" | "isprivate" => is_flag(value, false),
        "public" | "is_public" | "ispublic" => is_flag(value, true),
        _ => false,
    }
}

/// Whether `value` may be read as the boolean `flag` by some decoder: the
/// boolean; a number, true unless zero; a string as a lenient decoder
/// reads it (pydantic's `"yes"`, `"on"`, `"t"`, `"1"`) or as JavaScript's
/// truthiness does (any text not empty is true, `"false"` too). Either
/// reading counts: the tool's decoder is not known.
fn is_flag(value: &Value, flag: bool) -> bool {
    match value {
        Value::Bool(b) => *b == flag,
        Value::Number(n) => (n.as_f64() != Some(0.0)) == flag,
        Value::String(t) => {
            let t = t.trim().to_ascii_lowercase();
            if flag {
                !t.is_empty()
            } else {
                matches!(t.as_str(), "false" | "f" | "0" | "no" | "n" | "off" | "")
            }
        }
        _ => false,
    }
}

/// Argument names (folded) whose values choose what a command runner does,
/// besides its command, query and resource roles.
const OPERATION_NAMES: &[&str] = &[
    "command",
    "subcommand",
    "operation",
    "operation_name",
    "action",
    "method",
    "verb",
];

/// One call's effects for an `entry` that runs what the call gives it
/// ([`Entry::effects_by_value`]): the verbs of its command, query, resource
/// and operation values (verbs only); `execute` when the entry runs commands; `read` when the
/// words name nothing and the entry reads. Whether a delete among them
/// cannot be undone, and whether the words name a protected environment
/// (`gcloud projects delete acme-prod`).
fn effects_of_values(
    entry: &Entry,
    arguments: &Value,
    why: &mut Vec<String>,
) -> (Effects, bool, bool) {
    let mut texts = Vec::new();
    let mut budget = MAX_VALUES;
    operation_texts(entry, arguments, &mut Vec::new(), &mut texts, &mut budget);
    if budget == 0 {
        // Not every value was read: the call may do all the tool can.
        why.push(format!(
            "the arguments hold over {MAX_VALUES} values, so its command was not read whole: all \
             the tool can do"
        ));
        return (entry.effects, true, true);
    }
    // Both splittings: `DeleteStack` is `delete stack`, `dElEtE` is `delete`.
    let split = |t: &str| {
        let mut w = words(t);
        w.extend(words_of(t));
        w
    };
    let (queries, commands): (Vec<_>, Vec<_>) = texts.iter().partition(|(_, query)| *query);
    let command_words: Vec<String> = commands.iter().flat_map(|(t, _)| split(t)).collect();
    let query_words: Vec<String> = queries.iter().flat_map(|(t, _)| split(t)).collect();
    // A command's objects count beside a verb that changes something
    // (`put-user-policy` changes permissions); a query's do not (`roles` of
    // `SELECT * FROM roles` is a table, judged by the query's own check).
    let (mut effects, mut destroying) = effects_of_words_in(&command_words, "command", why, true);
    let (of_query, query_destroys) = effects_of_words_in(&query_words, "query", why, false);
    effects = effects.union(of_query);
    destroying |= query_destroys;
    let reads_only = query_words.is_empty() && reads_by_name(arguments);
    if reads_only {
        // `rollout` of `rollout history` names the group, not a deploy.
        effects = Effects::NONE;
        effects.insert(Effect::Read);
        destroying = false;
        why.push("the operation it is told by name reads".into());
    }
    let words: Vec<String> = command_words.into_iter().chain(query_words).collect();
    if entry.effects.contains(Effect::Execute) && !reads_only {
        effects.insert(Effect::Execute);
    }
    if effects.iter().all(|e| e == Effect::Execute) && entry.effects.contains(Effect::Read) {
        effects.insert(Effect::Read);
    }
    let protected = words.iter().find(|w| PROTECTED_WORDS.contains(&w.as_str()));
    if let Some(w) = protected {
        why.push(format!(
            "command word \"{w}\" names a protected environment"
        ));
    }
    (effects, destroying, protected.is_some())
}

/// Whether a runner told its operation by name (`kubectl_generic`'s
/// `command: "get"`, or a group and its subcommand, `command: "rollout"`
/// with `subCommand: "history"`) runs an operation that only reads: the
/// runner executing it is then the means, not an effect of the call. Only
/// when the operation keys ([`OPERATION_NAMES`]) are a `command` that is a
/// read verb (with no subcommand, or one that is a read verb too), or a
/// `command` that is no delete verb followed by a `subcommand` that is a
/// read verb; each one lower-case word; and no value of the call holds
/// shell syntax or starts with `-` (an option may stand before the real
/// verb: `--cache-dir=/tmp/get delete`). Words of other values (a
/// resource's name, `status-page`) never count.
fn reads_by_name(arguments: &Value) -> bool {
    let Some(map) = arguments.as_object() else {
        return false;
    };
    let mut command = None;
    let mut subcommand = None;
    for (key, value) in map {
        let folded = crate::fold::fold(key);
        if !OPERATION_NAMES.contains(&folded.as_str()) {
            continue;
        }
        let Some(word) = value
            .as_str()
            .filter(|w| !w.is_empty() && w.bytes().all(|b| b.is_ascii_lowercase()))
        else {
            return false;
        };
        match folded.as_str() {
            "command" if command.is_none() => command = Some(word),
            "subcommand" if subcommand.is_none() => subcommand = Some(word),
            _ => return false,
        }
    }
    let effect = |w: &str| VERBS.iter().find(|(v, _)| *v == w).map(|(_, e)| *e);
    let reads = |w: Option<&str>| w.and_then(effect) == Some(Effect::Read);
    let Some(command) = command else {
        return false;
    };
    let shape = if reads(Some(command)) {
        subcommand.is_none() || reads(subcommand)
    } else {
        effect(command) != Some(Effect::Delete) && reads(subcommand)
    };
    shape && !holds_shell_syntax(arguments)
}

/// Whether any string in `value` holds shell syntax that could run more
/// than the operation its words name (`;`, `|`, `&`, `$`, a backquote,
/// `<`, `>`, a line break), were the runner to hand it to a shell, or is
/// an option (starts with `-`).
fn holds_shell_syntax(value: &Value) -> bool {
    match value {
        Value::String(t) => {
            t.starts_with('-') || t.contains([';', '|', '&', '$', '`', '<', '>', '\n', '\r'])
        }
        Value::Array(items) => items.iter().any(holds_shell_syntax),
        Value::Object(map) => map.values().any(holds_shell_syntax),
        _ => false,
    }
}

/// The strings of `value` that say what a command runner does, each with
/// whether it is a query: those the entry gives a command, query or
/// resource role, and those under an [`OPERATION_NAMES`] key. `budget` is
/// left at 0 when not every value could be read (too many, too deep).
fn operation_texts<'v>(
    entry: &Entry,
    value: &'v Value,
    path: &mut Vec<PathStep<'v>>,
    out: &mut Vec<(&'v str, bool)>,
    budget: &mut usize,
) {
    if *budget == 0 || path.len() > MAX_DEPTH {
        *budget = 0;
        return;
    }
    *budget -= 1;
    match value {
        Value::Object(map) => {
            for (k, v) in map {
                path.push(PathStep::Key(k));
                operation_texts(entry, v, path, out, budget);
                path.pop();
            }
        }
        Value::Array(items) => {
            for (n, v) in items.iter().enumerate() {
                path.push(PathStep::Index(n));
                operation_texts(entry, v, path, out, budget);
                path.pop();
            }
        }
        Value::String(s) => {
            let role = entry.role_at(path);
            let by_role = matches!(
                role,
                Some(Role::ShellCommand | Role::Query | Role::CloudResource | Role::SourceCode)
            );
            let by_name = path.iter().rev().find_map(|p| match p {
                PathStep::Key(k) => Some(OPERATION_NAMES.contains(&crate::fold::fold(k).as_str())),
                PathStep::Index(_) => None,
            });
            if by_role || by_name == Some(true) {
                out.push((s, role == Some(Role::Query)));
            }
        }
        _ => {}
    }
}

/// The effects `words` give (verbs anywhere, objects unless every verb
/// reads), and whether a delete among them cannot be undone; each finding
/// is added to `why` as `WHERE verb "WORD": EFFECT`.
fn effects_of_words(words: &[String], place: &str, why: &mut Vec<String>) -> (Effects, bool) {
    effects_of_words_in(words, place, why, true)
}

/// [`effects_of_words`]; with `objects` false, verbs only (in a command's
/// words, `roles` of `SELECT * FROM roles` or `policy` of `CREATE POLICY`
/// are the objects of a query, which the query's own check judges).
fn effects_of_words_in(
    words: &[String],
    place: &str,
    why: &mut Vec<String>,
    objects: bool,
) -> (Effects, bool) {
    let mut effects = Effects::NONE;
    let mut verbs_read_only = true;
    let mut any_verb = false;
    for w in words {
        for (_, effect) in VERBS.iter().filter(|(v, _)| names(v, w)) {
            any_verb = true;
            if *effect != Effect::Read {
                verbs_read_only = false;
            }
            if !effects.contains(*effect) {
                why.push(format!("{place} verb \"{w}\": {}", effect.name()));
            }
            effects.insert(*effect);
        }
    }
    if objects && !(any_verb && verbs_read_only) {
        for w in words {
            for (_, effect) in OBJECTS.iter().filter(|(o, _)| names(o, w)) {
                if !effects.contains(*effect) {
                    why.push(format!("{place} word \"{w}\": {}", effect.name()));
                }
                effects.insert(*effect);
            }
        }
    }
    let soft = words.iter().any(|w| w == "trash" || w == "archive");
    let destroying = words.iter().any(|w| DESTROYING.contains(&w.as_str()))
        || (effects.contains(Effect::Delete) && !soft);
    (effects, destroying)
}

/// Whether the word `w` is `listed` or its plural (`payouts`, `posts`).
fn names(listed: &str, w: &str) -> bool {
    w == listed || w.strip_suffix('s') == Some(listed)
}

/// A verb of a description in the third person as its base:
/// `deletes` → `delete`, `pushes` → `push`, `sends` → `send`.
fn singular_verb(word: String) -> String {
    for suffix in ["ches", "shes", "sses", "xes"] {
        if word.ends_with(suffix) {
            return word[..word.len() - 2].to_string();
        }
    }
    if word.len() > 3 && word.ends_with('s') && !word.ends_with("ss") {
        return word[..word.len() - 1].to_string();
    }
    word
}

/// Whether an uncatalogued tool's name, without a server prefix
/// (`mcp__github__merge_pr`), merges a pull or merge request: it starts
/// with `merge`, or with `accept`/`enable` and holds `merge`
/// (`mergePullRequest`, `merge_pr`, `accept_merge_request`,
/// `enable_pr_auto_merge`), and names a pull or merge request. Like the
/// catalog's `protected_target` on `merge_pull_request`.
fn merges_a_request(name: &str) -> bool {
    let base = ["__", ".", "/", ":"]
        .iter()
        .filter_map(|sep| name.rsplit_once(sep).map(|(_, b)| b))
        .min_by_key(|b| b.len())
        .unwrap_or(name);
    let words = words(base);
    let merges = match words.first().map(String::as_str) {
        Some("merge") => true,
        Some("accept" | "enable") => words.iter().any(|w| w == "merge"),
        _ => false,
    };
    merges
        && words
            .iter()
            .any(|w| matches!(w.as_str(), "pull" | "pr" | "request" | "mr"))
}

/// The lower-case words of a tool name: split at anything not a letter or
/// digit and where a lower-case letter meets an upper-case one
/// (`deleteRepo`, `Send-Email`, `wallet.send_token`).
pub(crate) fn words(name: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    let mut prev_lower = false;
    for c in name.chars() {
        if !c.is_alphanumeric() {
            if !current.is_empty() {
                out.push(std::mem::take(&mut current));
            }
            prev_lower = false;
            continue;
        }
        if c.is_uppercase() && prev_lower && !current.is_empty() {
            out.push(std::mem::take(&mut current));
        }
        prev_lower = c.is_lowercase() || c.is_ascii_digit();
        current.extend(c.to_lowercase());
    }
    if !current.is_empty() {
        out.push(current);
    }
    out
}

/// The lower-case words of a text (split at anything not a letter or
/// digit).
fn words_of(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

/// The shell or language of the call's command or code, from the tool's
/// name or a `language`/`lang` argument.
fn dialect_of(name: &str, arguments: &Value) -> Option<String> {
    let declared = ["language", "lang", "shell", "interpreter", "runtime"]
        .iter()
        .find_map(|k| arguments.get(*k).and_then(Value::as_str))
        .map(str::to_lowercase);
    if declared.is_some() {
        return declared;
    }
    let words = words(name);
    [
        ("python", "python"),
        ("py", "python"),
        ("javascript", "javascript"),
        ("js", "javascript"),
        ("node", "javascript"),
        ("typescript", "typescript"),
        // A browser runs JavaScript.
        ("browser", "javascript"),
        ("puppeteer", "javascript"),
        ("playwright", "javascript"),
        ("page", "javascript"),
        ("ruby", "ruby"),
        ("powershell", "powershell"),
        ("pwsh", "powershell"),
        ("cmd", "cmd"),
        ("bash", "bash"),
        ("sh", "sh"),
        ("zsh", "zsh"),
        ("sql", "sql"),
    ]
    .iter()
    .find(|(w, _)| words.iter().any(|x| x == w))
    .map(|(_, d)| (*d).to_string())
}

/// What the declared JSON Schema says about top-level properties: the role
/// their `format` gives (`uri` → url, `email` → recipient, `hostname`).
struct Schema {
    formats: Vec<(String, Role)>,
}

impl Schema {
    fn of(tool: &ToolInfo) -> Schema {
        let mut formats = Vec::new();
        let parsed = tool
            .parameters_schema
            .as_ref()
            .and_then(|s| serde_json::from_str::<Value>(s.get()).ok());
        if let Some(props) = parsed
            .as_ref()
            .and_then(|s| s.get("properties"))
            .and_then(Value::as_object)
        {
            for (key, prop) in props {
                let role = match prop.get("format").and_then(Value::as_str) {
                    Some("uri" | "url" | "uri-reference" | "iri") => Some(Role::Url),
                    Some("email" | "idn-email") => Some(Role::Recipient),
                    Some("hostname" | "idn-hostname" | "ipv4" | "ipv6") => Some(Role::Host),
                    _ => None,
                };
                if let Some(role) = role {
                    formats.push((crate::fold::fold(key), role));
                }
            }
        }
        Schema { formats }
    }

    fn role(&self, folded_key: &str) -> Option<Role> {
        self.formats
            .iter()
            .find(|(k, _)| k == folded_key)
            .map(|(_, r)| *r)
    }
}

/// Walks the arguments, giving each scalar value the role the catalog, the
/// schema, its key's name or its shape gives.
struct Walker<'a, 'b> {
    entries: &'a [&'a Entry],
    schema: &'a Schema,
    out: &'a mut Vec<RoleValue>,
    path: Vec<PathStep<'b>>,
    budget: usize,
}

impl<'b> Walker<'_, 'b> {
    /// Walk `value`; `key` is the folded name of the nearest object key
    /// above it.
    fn walk(&mut self, value: &'b Value, key: Option<&str>) {
        if self.budget == 0 || self.path.len() > MAX_DEPTH {
            // Left at 0: not every value was read.
            self.budget = 0;
            return;
        }
        self.budget -= 1;
        match value {
            Value::Object(map) => {
                for (k, v) in map {
                    self.path.push(PathStep::Key(k));
                    let folded = crate::fold::fold(k);
                    self.walk(v, Some(&folded));
                    self.path.pop();
                }
            }
            Value::Array(items) => {
                for (i, v) in items.iter().enumerate() {
                    self.path.push(PathStep::Index(i));
                    self.walk(v, key);
                    self.path.pop();
                }
            }
            Value::Null => {}
            scalar => {
                // A catalogued tool's entry speaks first, and alone for
                // what runs (a text editor's `command` is an edit
                // operation, not a shell command); names and the schema
                // speak for the rest.
                let by_name = key
                    .and_then(|k| self.schema.role(k))
                    .or_else(|| key.and_then(named_role))
                    .filter(|r| {
                        self.entries.is_empty()
                            || !matches!(r, Role::ShellCommand | Role::SourceCode)
                    });
                let role = self
                    .entries
                    .iter()
                    .find_map(|e| e.role_at(&self.path))
                    .or(by_name)
                    .or_else(|| scalar.as_str().and_then(role_of_value));
                let value = match scalar {
                    Value::String(s) => s.clone(),
                    other => other.to_string(),
                };
                // Keystrokes are a command line too, should a terminal
                // have the focus.
                if role != Some(Role::ShellCommand)
                    && self.entries.iter().any(|e| e.typed_at(&self.path))
                {
                    self.out.push(RoleValue {
                        role: Role::ShellCommand,
                        pointer: pointer(&self.path),
                        value: value.clone(),
                        dialect: Some(super::catalog::KEYSTROKES.to_string()),
                    });
                }
                if let Some(role) = role {
                    self.out.push(RoleValue {
                        role,
                        pointer: pointer(&self.path),
                        value,
                        dialect: None,
                    });
                }
            }
        }
    }
}

/// The role an argument named `folded` gives by its name alone (`-` and
/// `_` alike: `stack-name` is `stack_name`).
fn named_role(folded: &str) -> Option<Role> {
    let name = folded.replace('-', "_");
    NAMED_ROLES
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, r)| *r)
        .or_else(|| names_cloud_resource(&name).then_some(Role::CloudResource))
}

/// Kinds of cloud resource whose `…_name` or `…_id` argument names one
/// (`function_name`, `db_cluster_id`, `volumeId`).
const RESOURCE_NOUNS: &[&str] = &[
    "instance",
    "cluster",
    "db",
    "function",
    "service",
    "volume",
    "snapshot",
    "topic",
    "queue",
    "vpc",
    "subnet",
    "deployment",
    "statefulset",
    "nodegroup",
];

/// Whether an argument name (folded, `_` for `-`) names a cloud resource
/// by its form: an identifier or ARN (`db-instance-identifier`,
/// `DBClusterIdentifier`, `role_arn`), or a resource kind's name or id
/// ([`RESOURCE_NOUNS`]: `function_name`, `volumeId`).
fn names_cloud_resource(name: &str) -> bool {
    let compact = name.replace('_', "");
    compact.ends_with("identifier")
        || compact == "arn"
        || name.ends_with("_arn")
        || RESOURCE_NOUNS.iter().any(|noun| {
            ["name", "id", "ids", "names"]
                .iter()
                .any(|tail| compact.ends_with(&format!("{noun}{tail}")))
        })
}

/// The role a string's shape gives: an absolute `http(s)`, `ftp` or `ws`
/// URL is a `url`.
fn role_of_value(s: &str) -> Option<Role> {
    let lower = s.trim_start().get(..8).unwrap_or(s).to_ascii_lowercase();
    ["http://", "https://", "ftp://", "ws://", "wss://"]
        .iter()
        .any(|p| lower.starts_with(p))
        .then_some(Role::Url)
}

/// A key as one segment of a JSON Pointer (RFC 6901: `~` as `~0`, `/` as
/// `~1`).
fn pointer_segment(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

/// The JSON Pointer of `path`.
fn pointer(path: &[PathStep<'_>]) -> String {
    let mut out = String::new();
    for step in path {
        out.push('/');
        match step {
            PathStep::Key(k) => out.push_str(&pointer_segment(k)),
            PathStep::Index(i) => out.push_str(&i.to_string()),
        }
    }
    out
}

/// Every string under a key named like a sent text ([`TEXT_NAMES`]), with
/// its pointer.
fn collect_texts(value: &Value, at: &mut String, depth: usize, out: &mut Vec<(String, String)>) {
    if depth > MAX_DEPTH || out.len() >= MAX_VALUES {
        return;
    }
    if let Value::Object(map) = value {
        for (k, v) in map {
            let len = at.len();
            at.push('/');
            at.push_str(&pointer_segment(k));
            if TEXT_NAMES.contains(&crate::fold::fold(k).as_str()) {
                strings_under(v, at, depth + 1, out);
            } else {
                collect_texts(v, at, depth + 1, out);
            }
            at.truncate(len);
        }
    } else if let Value::Array(items) = value {
        for (i, v) in items.iter().enumerate() {
            let len = at.len();
            at.push('/');
            at.push_str(&i.to_string());
            collect_texts(v, at, depth + 1, out);
            at.truncate(len);
        }
    }
}

/// Every string at or under `value`, with its pointer.
fn strings_under(value: &Value, at: &mut String, depth: usize, out: &mut Vec<(String, String)>) {
    if depth > MAX_DEPTH || out.len() >= MAX_VALUES {
        return;
    }
    match value {
        Value::String(s) => out.push((at.clone(), s.clone())),
        Value::Array(items) => {
            for (i, v) in items.iter().enumerate() {
                let len = at.len();
                at.push('/');
                at.push_str(&i.to_string());
                strings_under(v, at, depth + 1, out);
                at.truncate(len);
            }
        }
        Value::Object(map) => {
            for (k, v) in map {
                let len = at.len();
                at.push('/');
                at.push_str(&pointer_segment(k));
                strings_under(v, at, depth + 1, out);
                at.truncate(len);
            }
        }
        _ => {}
    }
}

/// At most 80 characters of `s`, for a reason.
fn clip(s: &str) -> String {
    match s.char_indices().nth(80) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_string(),
    }
}
