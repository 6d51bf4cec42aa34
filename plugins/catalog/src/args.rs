//! What argument names say about a call, whatever the tool is called:
//! arguments that address it to someone (a message), hold a published text,
//! or name the place that text goes (an issue, a page, a ticket). Drawn
//! from the parameter names of common messaging, issue-tracker and wiki
//! APIs and MCP servers (Slack `channel`, e-mail `to`/`cc`, GitHub
//! `owner`/`repo`/`body`, Notion `parent`, Jira `project`/`description`).

/// Argument names that address a message to someone.
pub const RECIPIENT_ARGS: &[&str] = &[
    "to",
    "cc",
    "bcc",
    "recipient",
    "recipients",
    "channel",
    "channel_id",
    "chat_id",
    "phone",
    "phone_number",
    "room",
    "room_id",
    "webhook",
    "webhook_url",
    "thread_ts",
];

/// Argument names of a text that is published or sent; a string argument
/// of this name that is a link is the text, not the call's destination.
pub const TEXT_ARGS: &[&str] = &[
    "body",
    "description",
    "content",
    "text",
    "message",
    "comment",
    "summary",
    "notes",
    "title",
    "subject",
];

/// Argument names of the place a text is published in.
pub const CONTAINER_ARGS: &[&str] = &[
    "repo",
    "repository",
    "owner",
    "project",
    "project_id",
    "parent",
    "space",
    "board",
    "team",
    "issue",
    "issue_number",
    "pull_number",
    "page_id",
    "database_id",
    "list_id",
    "workspace",
];

/// Whether `name` is one of `list` in any case or Unicode form
/// ([`crate::roles::same_key`]).
pub fn is_one_of(name: &str, list: &[&str]) -> bool {
    list.iter().any(|n| crate::roles::same_key(name, n))
}

/// Why a call's arguments are sent or published, judged by their names: a
/// recipient (`to`, `channel`), or a text with the place it goes (`body`
/// with `repo`). `None` when the names say nothing of the kind.
pub fn addressed(args: &serde_json::Value) -> Option<String> {
    let obj = args.as_object()?;
    if let Some(k) = obj.keys().find(|k| is_one_of(k, RECIPIENT_ARGS)) {
        return Some(format!("its `{k}` argument addresses it to someone"));
    }
    let text = obj
        .keys()
        .find(|k| is_one_of(k, TEXT_ARGS) && !is_one_of(k, &["title", "subject"]))?;
    let place = obj.keys().find(|k| is_one_of(k, CONTAINER_ARGS))?;
    Some(format!("it publishes its `{text}` in a `{place}`"))
}

/// The hosts of string arguments (outside text arguments) whose whole
/// value is an http(s) URL: where the call sends its arguments.
pub fn url_hosts(args: &serde_json::Value) -> Vec<String> {
    let mut out = Vec::new();
    let Some(obj) = args.as_object() else {
        return out;
    };
    for (k, v) in obj {
        let Some(s) = v.as_str() else { continue };
        if is_one_of(k, TEXT_ARGS) {
            continue;
        }
        let t = s.trim();
        let rest = t
            .strip_prefix("https://")
            .or_else(|| t.strip_prefix("http://"));
        if let Some(rest) = rest
            && !t.contains(char::is_whitespace)
        {
            let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
            let host = authority
                .rsplit('@')
                .next()
                .unwrap_or("")
                .split(':')
                .next()
                .unwrap_or("");
            if !host.is_empty() {
                out.push(host.trim_end_matches('.').to_ascii_lowercase());
            }
        }
    }
    out
}
