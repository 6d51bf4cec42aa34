//! Where a call sends its arguments: out of the workspace (outbound tools,
//! network URLs, shell network clients, writes outside `cwd`) or not.

use crate::Globs;
use regex::Regex;
use serde_json::Value;
use toolvet_pdk::json::{Step, walk};

/// Default `outbound_tools`: HTTP and browser tools, uploads, email,
/// messaging, webhooks, publishing and issue/comment tools.
/// Globs match anywhere in the name (`*x*`), so MCP-prefixed names
/// (`mcp__github__create_issue`) are covered.
pub const DEFAULT_OUTBOUND_TOOLS: &[&str] = &[
    "http*",
    "*fetch*",
    "curl",
    "wget",
    "browser_*",
    "open_url",
    "download*",
    "*upload*",
    "*post*",
    "*send*",
    "*email*",
    "*mail",
    "*message*",
    "*slack*",
    "*discord*",
    "*teams*",
    "*telegram*",
    "*webhook*",
    "*publish*",
    "*notify*",
    "*tweet*",
    "*gist*",
    "*comment*",
    "*issue*",
    "*pull_request*",
    "*ticket*",
    "*discussion*",
    "*page*",
    "*share*",
    "*sms*",
    "*chat*",
];

pub use check_catalog::args::{CONTAINER_ARGS, RECIPIENT_ARGS, TEXT_ARGS};

/// Default `write_tools`.
pub const DEFAULT_WRITE_TOOLS: &[&str] = &[
    "write*",
    "*_write",
    "create_file",
    "save_file",
    "append*",
    "edit*",
    "str_replace*",
    "put_file",
    "*__write_file",
    "*__edit_file",
    "*__create_file",
];

/// Default `path_args`.
pub const DEFAULT_PATH_ARGS: &[&str] = &[
    "path",
    "file",
    "file_path",
    "filepath",
    "filename",
    "target_file",
    "destination",
    "dest",
];

/// Default `url_args`.
pub const DEFAULT_URL_ARGS: &[&str] = &[
    "url", "urls", "uri", "href", "endpoint", "link", "*_url", "*_uri",
];

/// Default `shell_tools`.
pub const DEFAULT_SHELL_TOOLS: &[&str] = &[
    "bash",
    "sh",
    "zsh",
    "shell",
    "run_command",
    "run_shell*",
    "execute_command",
    "terminal*",
    "powershell",
];

/// Where a call sends its arguments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Route {
    /// Nowhere outside the workspace.
    Inside,
    /// The tool's name matches `outbound_tools`.
    OutboundTool,
    /// A URL argument points at this host.
    Url(String),
    /// A shell command runs this network client.
    Shell(String),
    /// An MCP tool: its arguments go to the MCP server.
    Mcp,
    /// The arguments' names say they are published or sent (a recipient,
    /// a text and the place it goes); the reason.
    Published(String),
    /// A write tool writes to `path`, outside `cwd` (`None`: unknown).
    WriteOutside {
        /// The target path as given.
        path: String,
        /// The workspace directory, when the context gave one.
        cwd: Option<String>,
    },
}

impl Route {
    /// A clause for messages, e.g. ``"`send_email` sends its arguments
    /// outside the workspace"``.
    pub fn describe(&self, tool: &str) -> String {
        match self {
            Route::Inside => format!("`{tool}` keeps it inside the workspace"),
            Route::OutboundTool => format!("`{tool}` sends its arguments outside the workspace"),
            Route::Url(host) => format!("this call sends its arguments to {host}"),
            Route::Shell(client) => format!("the command runs the network client `{client}`"),
            Route::Published(why) => format!("`{tool}` sends it out ({why})"),
            Route::Mcp => format!("`{tool}` hands its arguments to an MCP server"),
            Route::WriteOutside {
                path,
                cwd: Some(cwd),
            } => {
                format!("`{tool}` writes it to `{path}`, outside the workspace `{cwd}`")
            }
            Route::WriteOutside { path, cwd: None } => format!(
                "`{tool}` writes it to `{path}`, and without a `cwd` attribute absolute paths count as outside the workspace"
            ),
        }
    }
}

/// A network URL the call is addressed to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Destination {
    /// Argument path, e.g. `arguments.url`.
    pub path: String,
    /// Lowercase host without trailing dots.
    pub host: String,
}

/// Decides a call's [`Route`].
#[derive(Debug)]
pub struct Router {
    outbound_tools: Globs,
    write_tools: Globs,
    path_args: Globs,
    url_args: Globs,
    shell_tools: Globs,
    network_client: Regex,
}

impl Router {
    /// A router from compiled globs.
    pub fn new(
        outbound_tools: Globs,
        write_tools: Globs,
        path_args: Globs,
        url_args: Globs,
        shell_tools: Globs,
    ) -> Self {
        Self {
            outbound_tools,
            write_tools,
            path_args,
            url_args,
            shell_tools,
            network_client: Regex::new(
                r"(?:^|[\s;&|(`$])((?:curl|wget|nc|ncat|netcat|telnet|socat|scp|sftp|ftp|rsync|ssh|sendmail|mailx?|mutt|https?|xh|aria2c|twine|Invoke-WebRequest|Invoke-RestMethod|iwr|irm)|(?:docker|podman|helm) login|(?:npm|yarn|pnpm|cargo|gem) (?:publish|login|push|adduser))(?:\s|$)",
            )
            .expect("network client regex compiles"),
        }
    }

    /// Network URLs (http, https, ws, wss, ftp, sftp) in arguments whose
    /// names match `url_args`, at any depth, and any argument whose whole
    /// value is such a URL (`{"target": "https://…"}`): a string that is a
    /// URL is a destination whatever its name, except a text argument
    /// ([`TEXT_ARGS`]: a message whose text is a link is not sent to it).
    pub fn destinations(&self, args: &Value) -> Vec<Destination> {
        let mut out = Vec::new();
        walk(args, "arguments", &mut |n| {
            if let Value::String(s) = n.value
                && (self.url_args.is_match(n.key)
                    || (is_whole_url(s)
                        && !TEXT_ARGS.contains(&n.key.to_ascii_lowercase().as_str())))
                && let Ok(url) = url::Url::parse(s.trim())
                && matches!(
                    url.scheme(),
                    "http" | "https" | "ws" | "wss" | "ftp" | "sftp"
                )
                && let Some(host) = url.host_str()
            {
                out.push(Destination {
                    path: n.path.to_string(),
                    host: host.trim_end_matches('.').to_ascii_lowercase(),
                });
            }
            Step::Descend
        });
        out
    }

    /// Whether `tool` writes files.
    pub fn is_write_tool(&self, tool: &str) -> bool {
        self.write_tools.is_match(tool)
    }

    /// Whether `tool` runs shell commands.
    pub fn is_shell_tool(&self, tool: &str) -> bool {
        self.shell_tools.is_match(tool)
    }

    /// The first path argument of a write call.
    pub fn path_of(&self, args: &Value) -> Option<String> {
        args.as_object()?
            .iter()
            .find(|(k, v)| self.path_args.is_match(k) && v.is_string())
            .and_then(|(_, v)| v.as_str().map(str::to_string))
    }

    /// Where the call sends its arguments. Checked in order: a write tool
    /// whose path argument is outside `cwd`, an outbound tool name, a
    /// destination URL, a shell command running a network client.
    pub fn route(
        &self,
        tool: &str,
        args: &Value,
        destinations: &[Destination],
        cwd: Option<&str>,
    ) -> Route {
        if self.write_tools.is_match(tool)
            && let Some(obj) = args.as_object()
        {
            for (k, v) in obj {
                if self.path_args.is_match(k)
                    && let Some(p) = v.as_str()
                    && !is_inside(p, cwd)
                {
                    return Route::WriteOutside {
                        path: p.to_string(),
                        cwd: cwd.map(str::to_string),
                    };
                }
            }
        }
        if self.outbound_tools.is_match(tool) {
            return Route::OutboundTool;
        }
        // An MCP tool hands its arguments to the MCP server, often a remote
        // one; writes of an MCP file server inside the workspace stay
        // inside (above).
        if tool.starts_with("mcp__") && !self.write_tools.is_match(tool) {
            return Route::Mcp;
        }
        if let Some(what) = published(args) {
            return Route::Published(what);
        }
        if let Some(d) = destinations.first() {
            return Route::Url(d.host.clone());
        }
        if self.shell_tools.is_match(tool) {
            let mut found = None;
            visit_strings(args, &mut |s| {
                if found.is_none()
                    && let Some(c) = self.network_client.captures(s)
                {
                    found = Some(c[1].to_string());
                }
            });
            if let Some(client) = found {
                return Route::Shell(client);
            }
        }
        Route::Inside
    }
}

fn visit_strings(v: &Value, f: &mut impl FnMut(&str)) {
    walk(v, "arguments", &mut |n| {
        if let Value::String(s) = n.value {
            f(s);
        }
        Step::Descend
    });
}

/// A string that is nothing but an absolute URL.
fn is_whole_url(s: &str) -> bool {
    let t = s.trim();
    t.len() < 2048
        && !t.contains(char::is_whitespace)
        && t.split_once("://").is_some_and(|(scheme, _)| {
            !scheme.is_empty() && scheme.bytes().all(|b| b.is_ascii_alphabetic())
        })
}

use check_catalog::args::addressed as published;

/// Whether `name` is `domain` or below it.
pub fn is_within(name: &str, domain: &str) -> bool {
    name == domain || name.strip_suffix(domain).is_some_and(|p| p.ends_with('.'))
}

/// Lexically normalised components of a path (`.` dropped, `..` pops);
/// `None` when `..` climbs above the start.
fn normalise<'a>(start: Vec<&'a str>, path: &'a str) -> Option<Vec<&'a str>> {
    let mut out = start;
    for part in path.split(['/', '\\']) {
        match part {
            "" | "." => {}
            ".." => {
                out.pop()?;
            }
            p => out.push(p),
        }
    }
    Some(out)
}

/// Whether a write to `path` stays inside the workspace `cwd`, lexically
/// (symlinks are not resolved; the sandbox has no file system). `~` paths
/// are outside; relative paths are resolved against `cwd`; without `cwd`,
/// relative paths that do not climb out with `..` are inside and absolute
/// paths are outside.
pub fn is_inside(path: &str, cwd: Option<&str>) -> bool {
    let p = path.trim();
    let p = p.strip_prefix("file://").unwrap_or(p);
    if p.starts_with('~') || p.contains("$HOME") {
        return false;
    }
    let absolute = p.starts_with(['/', '\\']) || (p.len() >= 2 && p.as_bytes()[1] == b':');
    match (absolute, cwd) {
        (true, None) => false,
        (true, Some(c)) => {
            let (Some(root), Some(target)) = (normalise(Vec::new(), c), normalise(Vec::new(), p))
            else {
                return false;
            };
            target.starts_with(&root)
        }
        (false, Some(c)) => {
            let Some(root) = normalise(Vec::new(), c) else {
                return false;
            };
            normalise(root.clone(), p).is_some_and(|t| t.starts_with(&root))
        }
        (false, None) => normalise(vec!["<cwd>"], p).is_some_and(|t| t.first() == Some(&"<cwd>")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inside_paths() {
        let cwd = Some("/home/alice/project");
        assert!(is_inside("src/main.rs", cwd));
        assert!(is_inside("./a/../b", cwd));
        assert!(is_inside("/home/alice/project/.env", cwd));
        assert!(is_inside("a/../../project/x", cwd));
        assert!(!is_inside("../x", cwd));
        assert!(!is_inside("/home/alice/project2/x", cwd));
        assert!(!is_inside("/home/alice/project/../.ssh/id_rsa", cwd));
        assert!(!is_inside("/tmp/x", cwd));
        assert!(!is_inside("~/.aws/credentials", cwd));
        assert!(is_inside("notes.txt", None));
        assert!(!is_inside("../notes.txt", None));
        assert!(!is_inside("/etc/x", None));
    }

    #[test]
    fn within() {
        assert!(is_within("api.github.com", "github.com"));
        assert!(!is_within("evilgithub.com", "github.com"));
    }
}
