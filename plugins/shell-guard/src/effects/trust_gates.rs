//! Other tools' trust approvals given from the agent's shell (review s25
//! R14): `direnv allow` and `mise trust` record a person's approval that
//! a directory's `.envrc` / `mise.toml` may run code whenever a shell
//! enters it. Given by the agent (for a tree it just cloned or wrote),
//! nobody read that code: held for a person.

use crate::syntax::Field;
use crate::walk::Analysis;
use crate::walk::commands::base_name;

/// Each tool, the subcommands that grant its trust, and what it trusts.
const TRUST_GATES: &[(&str, &[&str], &str)] = &[
    (
        "direnv",
        &["allow", "permit", "grant"],
        "a directory's `.envrc`, which direnv then runs whenever a shell enters the directory",
    ),
    (
        "mise",
        &["trust"],
        "a `mise.toml`/`.tool-versions`, whose environment, hooks and tasks mise then runs whenever a shell \
         enters the directory",
    ),
    (
        "rtx",
        &["trust"],
        "a `mise.toml`/`.rtx.toml`, whose environment, hooks and tasks then run whenever a shell enters the directory",
    ),
];

impl Analysis<'_> {
    /// `direnv allow`, `mise trust`: a trust approval that is a person's.
    pub(crate) fn trust_gate(&mut self, name: &str, args: &[Field]) {
        let program = base_name(name);
        let Some((_, subs, what)) = TRUST_GATES.iter().find(|(p, _, _)| *p == program) else {
            return;
        };
        let texts: Vec<String> = args.iter().map(Field::text).collect();
        let Some(sub) = texts.iter().find(|t| !t.starts_with('-')) else {
            return;
        };
        // `mise trust --untrust` / `--ignore` take trust away.
        let withdraws = texts
            .iter()
            .any(|t| matches!(t.as_str(), "--untrust" | "--ignore"));
        if !subs.contains(&sub.as_str()) || withdraws {
            return;
        }
        self.report(
            false,
            "shell.guardrail-write",
            format!(
                "`{program} {sub}` approves {what}: that approval is a person's, given after reading the file. A \
                 person must approve it."
            ),
        );
    }
}
