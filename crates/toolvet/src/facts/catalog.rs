//! The tool catalog: the tools agents really expose, each read from its
//! project's own definition, with what it does (effects), whether that can
//! be undone, and what its arguments are for (roles).
//!
//! The shipped catalog is versioned data in `crates/toolvet/catalog/`, one
//! JSON file per source (a coding agent's built-in tools, or one MCP
//! server), embedded at build time; `catalog/README.md` gives the format
//! and the sources with the commits they were read at. Entry ids are
//! `SOURCE/NAME@VERSION` ([`VERSION`]).
//!
//! Lookup ([`Catalog::lookup`]) matches a call's tool name as agents
//! spell MCP tools: the bare name (`merge_pull_request`), or prefixed with
//! the server's name (Claude Code's `mcp__github__merge_pull_request`,
//! `github.merge_pull_request`, `github/…`, `github:…`,
//! `mcp_github_merge_pull_request`), where the prefix must be a server
//! name the catalog records and only that server's entries match (any
//! other prefix makes an unknown name, inferred from its words:
//! `pay_invoice.get_me` is not `get_me`). Names are compared by
//! [`crate::fold::fold`] (case and Unicode form ignored). A bare name
//! several sources define is all of them, their effects joined (the
//! strictest reading).

use super::{Effect, Effects, Role};
use serde::Deserialize;
use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

/// The shipped catalog's version, the `@VERSION` of its entry ids.
pub const VERSION: &str = "2026-12";

/// The shipped catalog files: `(file name, JSON text)`, in name order.
const SHIPPED: &[(&str, &str)] = include!(concat!(env!("OUT_DIR"), "/catalog_files.rs"));

/// One catalog file as written (`catalog/README.md`).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct SourceFile {
    source: String,
    title: String,
    repository: String,
    commit: String,
    #[serde(default)]
    servers: Vec<String>,
    tools: Vec<ToolEntry>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ToolEntry {
    name: String,
    defined_in: String,
    effects: Vec<String>,
    #[serde(default)]
    irreversible: bool,
    #[serde(default)]
    effects_by_value: bool,
    #[serde(default)]
    protected_target: bool,
    #[serde(default)]
    program: Option<String>,
    #[serde(default)]
    arguments: std::collections::BTreeMap<String, String>,
    #[serde(default)]
    keystrokes: Vec<String>,
    #[serde(default)]
    note: Option<String>,
    #[serde(default)]
    wraps: Option<Wraps>,
    #[serde(default)]
    modes: std::collections::BTreeMap<String, std::collections::BTreeMap<String, Vec<String>>>,
}

/// An argument whose value, one of a list the tool's definition
/// enumerates, chooses what the call does (terraform-mcp-server's
/// `create_run` with `run_type = "plan_only"` only plans).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mode {
    /// The top-level argument's name as the source spells it; the tool's
    /// decoder reads that exact key.
    pub argument: String,
    /// Each value the definition enumerates (compared exactly, as the
    /// tool's code compares it) and the effects of a call that sets it.
    pub values: Vec<(String, Effects)>,
}

/// A tool that calls another tool named in its arguments (Cline's
/// `use_mcp_tool`): the argument names (as sent, compared folded) that
/// hold the inner call's server, tool name and arguments (an object, or
/// its JSON text). The host reads the inner call's facts as well
/// (the facts stage, [`super::FactFinder`]).
#[derive(Debug, Clone, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct Wraps {
    /// The argument holding the MCP server's name, if the tool has one.
    #[serde(default)]
    pub server: Option<String>,
    /// The argument holding the inner tool's name.
    pub tool: String,
    /// The argument holding the inner call's arguments.
    pub arguments: String,
}

/// Where one source of the catalog was read.
#[derive(Debug, Clone)]
pub struct Source {
    /// The source's id (its file name without `.json`).
    pub id: String,
    /// What it is, in a few words.
    pub title: String,
    /// `owner/name` of the repository the definitions were read from.
    pub repository: String,
    /// The commit read (40 hex digits).
    pub commit: String,
}

/// One catalogued tool.
#[derive(Debug, Clone)]
pub struct Entry {
    /// `SOURCE/NAME@VERSION`.
    pub id: String,
    /// The tool's name as its source defines it.
    pub name: String,
    /// Index of its [`Source`] in [`Catalog::sources`].
    pub source: usize,
    /// The path in the source's repository where it is defined.
    pub defined_in: String,
    /// The names users register the source's MCP server under (folded);
    /// empty for an agent's built-in tools.
    pub servers: Vec<String>,
    /// What the tool does.
    pub effects: Effects,
    /// The action cannot be undone.
    pub irreversible: bool,
    /// The tool runs a command or query given in the call (a cloud CLI, a
    /// SQL runner): `effects` is all it can reach, and one call's effects
    /// are read from its command's words.
    pub effects_by_value: bool,
    /// Every call changes a protected target that the call itself does
    /// not name: a pull request's merge lands on its base branch (most
    /// often the default branch), Supabase's `merge_branch` on production.
    pub protected_target: bool,
    /// The program whose arguments the tool's `shell-command` list is
    /// (`gcloud` for an argv without it), handed to checks as the values'
    /// dialect.
    pub program: Option<String>,
    /// Argument patterns and their roles: a top-level argument name, or a
    /// JSON Pointer where `*` matches any index or key (segments folded).
    pub arguments: Vec<(Vec<String>, Role)>,
    /// Argument patterns (as in `arguments`) whose values are keystrokes
    /// typed wherever the focus is (a computer-use tool's `text`): text
    /// for a page or a form, and a command line when a terminal has the
    /// focus. The host hands them to checks as `shell-command` values too,
    /// in the dialect [`KEYSTROKES`].
    pub keystrokes: Vec<Vec<String>>,
    /// What the tool does, in a sentence.
    pub note: Option<String>,
    /// The tool calls another one named in its arguments.
    pub wraps: Option<Wraps>,
    /// Arguments whose values choose what one call does; `effects` is what
    /// a call that leaves them out (or sets a value not listed) does.
    pub modes: Vec<Mode>,
}

impl Entry {
    /// The role the entry gives the value at `path` (the keys and indices
    /// from the arguments' root), if any: a pattern matches the path's
    /// start, and what follows it are array indices only.
    pub(crate) fn role_at(&self, path: &[PathStep<'_>]) -> Option<Role> {
        self.arguments
            .iter()
            .find_map(|(pattern, role)| pattern_matches(pattern, path).then_some(*role))
    }

    /// Whether the value at `path` is typed as keystrokes (`keystrokes`).
    pub(crate) fn typed_at(&self, path: &[PathStep<'_>]) -> bool {
        self.keystrokes.iter().any(|p| pattern_matches(p, path))
    }
}

/// The dialect of a `shell-command` value that is keystrokes typed where
/// the focus is ([`Entry::keystrokes`]): a command line only if a terminal
/// has the focus, so a text no shell would read runs nowhere.
pub const KEYSTROKES: &str = "keystrokes";

/// Whether an argument pattern (folded segments) matches `path`: the
/// pattern matches the path's start, and what follows it are array
/// indices only.
fn pattern_matches(pattern: &[String], path: &[PathStep<'_>]) -> bool {
    pattern.len() <= path.len()
        && pattern.iter().zip(path).all(|(p, step)| step.matches(p))
        && path[pattern.len()..]
            .iter()
            .all(|s| matches!(s, PathStep::Index(_)))
}

/// The folded segments of an argument pattern: a top-level name, or a JSON
/// Pointer starting with `/`; `None` when a segment is empty.
fn pattern_segments(pattern: &str) -> Option<Vec<String>> {
    let segments: Vec<String> = match pattern.strip_prefix('/') {
        Some(pointer) => pointer
            .split('/')
            .map(|s| crate::fold::fold(&s.replace("~1", "/").replace("~0", "~")))
            .collect(),
        None => vec![crate::fold::fold(pattern)],
    };
    (!segments.iter().any(String::is_empty)).then_some(segments)
}

/// One step of the path to a value inside the arguments.
#[derive(Debug, Clone, Copy)]
pub(crate) enum PathStep<'a> {
    /// An object key, as sent.
    Key(&'a str),
    /// An array index.
    Index(usize),
}

impl PathStep<'_> {
    fn matches(&self, pattern: &str) -> bool {
        pattern == "*"
            || match self {
                PathStep::Key(k) => crate::fold::fold(k) == pattern,
                PathStep::Index(i) => pattern.parse::<usize>().ok() == Some(*i),
            }
    }
}

/// The catalog: sources, entries, and an index by folded name.
#[derive(Debug, Default)]
pub struct Catalog {
    sources: Vec<Source>,
    entries: Vec<Entry>,
    by_name: HashMap<String, Vec<usize>>,
    servers: Vec<String>,
}

/// A catalog file that does not hold to the format.
#[derive(Debug, thiserror::Error)]
#[error("tool catalog `{file}`: {message}")]
pub struct CatalogError {
    /// The file (or policy) the entry came from.
    pub file: String,
    /// What is wrong and where (tool and key).
    pub message: String,
}

impl Catalog {
    /// The shipped catalog, read once per process.
    pub fn shipped() -> Arc<Catalog> {
        static SHIPPED_CATALOG: OnceLock<Arc<Catalog>> = OnceLock::new();
        SHIPPED_CATALOG
            .get_or_init(|| {
                Arc::new(Catalog::from_files(SHIPPED).unwrap_or_else(|e| {
                    // The files are checked by the unit tests at build; a
                    // broken one must not leave calls without facts.
                    panic!("the shipped tool catalog is invalid: {e}")
                }))
            })
            .clone()
    }

    /// A catalog of the given `(file name, JSON text)` files, each in the
    /// format of `catalog/README.md`.
    ///
    /// # Errors
    /// The first file that is not JSON of that shape, names an unknown
    /// effect or role, repeats a tool name, or whose `source` is not its
    /// file name: the file, the tool and the key.
    pub fn from_files(files: &[(&str, &str)]) -> Result<Catalog, CatalogError> {
        let mut catalog = Catalog::default();
        for (file, text) in files {
            catalog.add_file(file, text)?;
        }
        Ok(catalog)
    }

    fn add_file(&mut self, file: &str, text: &str) -> Result<(), CatalogError> {
        let err = |message: String| CatalogError {
            file: file.to_string(),
            message,
        };
        let de = &mut serde_json::Deserializer::from_str(text);
        let parsed: SourceFile = serde_path_to_error::deserialize(de)
            .map_err(|e| err(format!("at `{}`: {}", e.path(), e.inner())))?;
        if file.strip_suffix(".json") != Some(parsed.source.as_str()) {
            return Err(err(format!(
                "`source` is `{}`, not the file's name",
                parsed.source
            )));
        }
        if !parsed
            .source
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        {
            return Err(err(
                "`source` must be lower-case letters, digits and `-`".into()
            ));
        }
        if parsed.commit.len() != 40 || !parsed.commit.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(err("`commit` must be 40 hexadecimal digits".into()));
        }
        let source = self.sources.len();
        let servers: Vec<String> = parsed
            .servers
            .iter()
            .map(|s| crate::fold::fold(s))
            .collect();
        let mut seen = std::collections::HashSet::new();
        for tool in parsed.tools {
            let at = |key: &str, message: String| {
                err(format!("tool `{}`, `{key}`: {message}", tool.name))
            };
            if tool.name.is_empty() || !seen.insert(tool.name.clone()) {
                return Err(at("name", "empty or repeated in this file".into()));
            }
            let effects = tool
                .effects
                .iter()
                .map(|e| {
                    Effect::from_name(e).ok_or_else(|| {
                        at(
                            "effects",
                            format!(
                                "unknown effect `{e}` (one of: {})",
                                Effect::ALL.map(Effect::name).join(", ")
                            ),
                        )
                    })
                })
                .collect::<Result<Effects, _>>()?;
            let mut arguments = Vec::new();
            for (pattern, role) in &tool.arguments {
                let role = Role::from_name(role).ok_or_else(|| {
                    at(
                        &format!("arguments.{pattern}"),
                        format!(
                            "unknown role `{role}` (one of: {})",
                            Role::ALL.map(Role::name).join(", ")
                        ),
                    )
                })?;
                let segments = pattern_segments(pattern).ok_or_else(|| {
                    at(&format!("arguments.{pattern}"), "an empty segment".into())
                })?;
                arguments.push((segments, role));
            }
            let mut keystrokes = Vec::new();
            for pattern in &tool.keystrokes {
                let segments = pattern_segments(pattern).ok_or_else(|| {
                    at(&format!("keystrokes.{pattern}"), "an empty segment".into())
                })?;
                keystrokes.push(segments);
            }
            let mut modes = Vec::new();
            for (argument, values) in &tool.modes {
                if tool.effects_by_value {
                    return Err(at(
                        &format!("modes.{argument}"),
                        "a tool whose effects are read from its command (`effects_by_value`) has \
                         no modes"
                            .into(),
                    ));
                }
                let mut listed = Vec::new();
                for (value, names) in values {
                    let chosen = names
                        .iter()
                        .map(|e| {
                            Effect::from_name(e).ok_or_else(|| {
                                at(
                                    &format!("modes.{argument}.{value}"),
                                    format!(
                                        "unknown effect `{e}` (one of: {})",
                                        Effect::ALL.map(Effect::name).join(", ")
                                    ),
                                )
                            })
                        })
                        .collect::<Result<Effects, _>>()?;
                    if chosen.is_empty() {
                        return Err(at(
                            &format!("modes.{argument}.{value}"),
                            "names no effect".into(),
                        ));
                    }
                    listed.push((value.clone(), chosen));
                }
                if argument.is_empty() || listed.is_empty() {
                    return Err(at(
                        &format!("modes.{argument}"),
                        "an empty argument name or no values".into(),
                    ));
                }
                modes.push(Mode {
                    argument: argument.clone(),
                    values: listed,
                });
            }
            let index = self.entries.len();
            self.by_name
                .entry(crate::fold::fold(&tool.name))
                .or_default()
                .push(index);
            self.entries.push(Entry {
                id: format!("{}/{}@{VERSION}", parsed.source, tool.name),
                name: tool.name,
                source,
                defined_in: tool.defined_in,
                servers: servers.clone(),
                effects,
                irreversible: tool.irreversible,
                effects_by_value: tool.effects_by_value,
                protected_target: tool.protected_target,
                program: tool.program,
                arguments,
                keystrokes,
                note: tool.note,
                wraps: tool.wraps,
                modes,
            });
        }
        for s in &servers {
            if !self.servers.contains(s) {
                self.servers.push(s.clone());
            }
        }
        self.sources.push(Source {
            id: parsed.source,
            title: parsed.title,
            repository: parsed.repository,
            commit: parsed.commit,
        });
        Ok(())
    }

    /// The sources, in file order.
    pub fn sources(&self) -> &[Source] {
        &self.sources
    }

    /// Every entry.
    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    /// The entries a call to the tool `name` is: see the module
    /// documentation. Empty when none matches.
    pub fn lookup(&self, name: &str) -> Vec<&Entry> {
        let folded = crate::fold::fold(name);
        let direct = self.named(&folded);
        if !direct.is_empty() {
            return direct;
        }
        // `SERVER<sep>TOOL`, the server possibly after an `mcp` word: only
        // a server the catalog knows, and only its entries. Any other
        // prefix is part of an unknown name (`pay_invoice.get_me` is not
        // `get_me`), which is then inferred from its words.
        for sep in ["__", ".", "/", ":"] {
            if let Some((prefix, tool)) = folded.rsplit_once(sep) {
                let server = prefix.strip_prefix(&format!("mcp{sep}")).unwrap_or(prefix);
                let found = self.of_server(tool, server);
                if !found.is_empty() {
                    return found;
                }
            }
        }
        // `SERVER_TOOL` or `mcp_SERVER_TOOL` for a known server name.
        let unprefixed = folded.strip_prefix("mcp_").unwrap_or(&folded);
        for server in &self.servers {
            if let Some(tool) = unprefixed
                .strip_prefix(server.as_str())
                .and_then(|rest| rest.strip_prefix(['_', '-']))
            {
                let found = self.of_server(tool, server);
                if !found.is_empty() {
                    return found;
                }
            }
        }
        Vec::new()
    }

    /// The entries named `tool` (folded) of the MCP server registered as
    /// `server` (folded).
    fn of_server(&self, tool: &str, server: &str) -> Vec<&Entry> {
        self.named(tool)
            .into_iter()
            .filter(|e| e.servers.iter().any(|s| s == server))
            .collect()
    }

    fn named(&self, folded: &str) -> Vec<&Entry> {
        self.by_name
            .get(folded)
            .map(|ix| ix.iter().map(|&i| &self.entries[i]).collect())
            .unwrap_or_default()
    }
}
