//! What an approval is bound to: the call ([`BoundCall`]) and the context
//! attributes that say where and through what it runs
//! ([`BOUND_ATTRIBUTES`]). A resumed call must match every field.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The call an approval request is bound to. A resumed call must match
/// every field.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BoundCall {
    /// The tool's name.
    pub tool: String,
    /// Hex sha256 of the canonical JSON of the arguments
    /// ([`crate::CallRequest::arguments_sha256`]).
    pub arguments_sha256: String,
    /// The framework's call id (`""` when the call had none).
    pub call_id: String,
    /// The run the call belongs to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_id: Option<String>,
    /// The call's values of the context attributes that say where and
    /// through what it runs ([`BOUND_ATTRIBUTES`]; those it had, by name).
    /// The same tool name and arguments are another call in another
    /// directory, under another agent tool or on another MCP server, so a
    /// person is shown these and a ticket is bound to them.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub attributes: BTreeMap<String, String>,
}

/// The context attributes an approval is bound to, besides the tool, the
/// arguments, the run, the call id, the principal and the agent:
/// - [`crate::home::CWD_ATTRIBUTE`] (`cwd`): the working directory
///   (`sudo rm -rf build` approved in one project is another call in
///   another);
/// - [`AGENT_TOOL_ATTRIBUTE`] (`agent_tool`): the agent's own name of the
///   tool, which a hook vets under a bare name too (`mcp__good__rotate`
///   and `mcp__evil__rotate` are both `rotate`);
/// - [`MCP_SERVER_ATTRIBUTE`] (`mcp.server`): the MCP server the call goes
///   to (`toolvet mcp`, ExtMcp backends).
pub const BOUND_ATTRIBUTES: &[&str] = &[
    crate::home::CWD_ATTRIBUTE,
    AGENT_TOOL_ATTRIBUTE,
    MCP_SERVER_ATTRIBUTE,
];

/// The call-context attribute naming the tool as the agent calls it,
/// when a front end vets it under another name (a hook: `Bash`,
/// `mcp__github__merge_pull_request`).
pub const AGENT_TOOL_ATTRIBUTE: &str = "agent_tool";

/// The call-context attribute naming the MCP server a call goes to
/// (`toolvet mcp`'s `--name`, an ExtMcp backend).
pub const MCP_SERVER_ATTRIBUTE: &str = "mcp.server";

impl BoundCall {
    /// What `request` is bound to, with `arguments_sha256` its digest.
    pub(crate) fn of(request: &crate::CallRequest, arguments_sha256: String) -> BoundCall {
        BoundCall {
            tool: request.call.name.clone(),
            arguments_sha256,
            call_id: request.call.id.clone(),
            run_id: request.context.run_id.clone(),
            attributes: bound_attributes(request),
        }
    }
}

/// `request`'s values of [`BOUND_ATTRIBUTES`].
pub(crate) fn bound_attributes(request: &crate::CallRequest) -> BTreeMap<String, String> {
    BOUND_ATTRIBUTES
        .iter()
        .filter_map(|k| request.attribute(k).map(|v| (k.to_string(), v.to_string())))
        .collect()
}
