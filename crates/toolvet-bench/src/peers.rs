//! The peer hosts of the side-by-side benchmark (feature `peers`), each
//! running the rule of `bench-peers/rule` ("deny tool `bash` when its
//! command contains `rm -rf`; allow otherwise"):
//!
//! - [`ExtismRule`]: the Extism host (extism 1.30.0, its own wasmtime 43,
//!   default configuration) with the rule as an Extism plugin
//!   (`bench-peers/rule-extism`, extism-pdk, wasm32-unknown-unknown);
//! - [`CedarRule`]: Cedar (`cedar-policy` 4.14) with [`CEDAR_POLICY`], the
//!   same rule as a policy.
//!
//! Both answer `Some(reason)` to deny and `None` to allow, and both are
//! handed what toolvet is handed: the tool name and the arguments' JSON
//! text, so each pays for reading the arguments.

use cedar_policy::{
    Authorizer, Context, Decision, Entities, EntityId, EntityTypeName, EntityUid, PolicySet,
    Request, RestrictedExpression,
};
use std::path::Path;
use std::str::FromStr;

/// The Extism host with the compiled rule plugin.
pub struct ExtismRule {
    compiled: extism::CompiledPlugin,
    warm: extism::Plugin,
}

impl ExtismRule {
    /// Compile the plugin at `path` (no WASI, no wasmtime cache: the module
    /// is compiled once here and instances come from the compiled plugin).
    /// The bytes are read here: `Wasm::file` needs Extism's
    /// `register-filesystem` feature, which we leave off.
    ///
    /// # Errors
    /// Extism's error if the module cannot be read or compiled.
    pub fn new(path: &Path) -> Result<Self, extism::Error> {
        let bytes = std::fs::read(path)?;
        let manifest = extism::Manifest::new([extism::Wasm::data(bytes)]);
        let compiled = extism::PluginBuilder::new(manifest)
            .with_wasi(false)
            .with_cache_disabled()
            .compile()?;
        let warm = extism::Plugin::new_from_compiled(&compiled)?;
        Ok(Self { compiled, warm })
    }

    fn input(tool: &str, arguments: &str) -> String {
        let mut input = String::with_capacity(tool.len() + 1 + arguments.len());
        input.push_str(tool);
        input.push('\n');
        input.push_str(arguments);
        input
    }

    fn answer(out: &str) -> Option<String> {
        (!out.is_empty()).then(|| out.to_string())
    }

    /// Vet a call in the warm plugin instance, reused across calls (how
    /// Extism plugins are normally used: instances are stateful).
    ///
    /// # Errors
    /// Extism's error if the call fails.
    pub fn check_warm(
        &mut self,
        tool: &str,
        arguments: &str,
    ) -> Result<Option<String>, extism::Error> {
        let out: String = self.warm.call("check", Self::input(tool, arguments))?;
        Ok(Self::answer(&out))
    }

    /// Vet a call in a fresh plugin instance from the compiled plugin (the
    /// isolation toolvet gives by default).
    ///
    /// # Errors
    /// Extism's error if instantiation or the call fails.
    pub fn check_fresh(
        &self,
        tool: &str,
        arguments: &str,
    ) -> Result<Option<String>, extism::Error> {
        let mut plugin = extism::Plugin::new_from_compiled(&self.compiled)?;
        let out: String = plugin.call("check", Self::input(tool, arguments))?;
        Ok(Self::answer(&out))
    }
}

/// The rule as a Cedar policy: permit everything, forbid the `call` action
/// on the `bash` tool when the command matches `*rm -rf*`. `has` keeps a
/// call without a string `command` from erroring (Cedar would skip an
/// erroring forbid, which allows as well).
pub const CEDAR_POLICY: &str = r#"
permit(principal, action, resource);

forbid(principal, action == Action::"call", resource == Tool::"bash")
when { context has command && context.command like "*rm -rf*" };
"#;

/// Cedar's authorizer with [`CEDAR_POLICY`].
pub struct CedarRule {
    authorizer: Authorizer,
    policies: PolicySet,
    entities: Entities,
    principal: EntityUid,
    action: EntityUid,
    tool_type: EntityTypeName,
}

impl CedarRule {
    /// Parse the policy and the fixed entities.
    ///
    /// # Panics
    /// Never with the constant policy (its parse is unit-tested).
    pub fn new() -> Self {
        Self {
            authorizer: Authorizer::new(),
            policies: PolicySet::from_str(CEDAR_POLICY).expect("the Cedar policy parses"),
            entities: Entities::empty(),
            principal: EntityUid::from_str(r#"Agent::"coder""#).expect("principal"),
            action: EntityUid::from_str(r#"Action::"call""#).expect("action"),
            tool_type: EntityTypeName::from_str("Tool").expect("type name"),
        }
    }

    /// Vet a call: read the `command` argument from the JSON text, build the
    /// request, and ask [`Authorizer::is_authorized`].
    pub fn check(&self, tool: &str, arguments: &str) -> Option<String> {
        let context = match bench_rule_command(arguments) {
            Some(command) => Context::from_pairs([(
                "command".to_string(),
                RestrictedExpression::new_string(command),
            )])
            .expect("one string attribute is a valid context"),
            None => Context::empty(),
        };
        let request = self.request(tool, context);
        self.decide(&request)
    }

    /// The request for `tool` with `context` (exposed so the authorizer can
    /// be timed alone).
    pub fn request(&self, tool: &str, context: Context) -> Request {
        let resource =
            EntityUid::from_type_name_and_id(self.tool_type.clone(), EntityId::new(tool));
        Request::new(
            self.principal.clone(),
            self.action.clone(),
            resource,
            context,
            None,
        )
        .expect("no schema, so any request is valid")
    }

    /// `is_authorized` alone on a prepared request.
    pub fn decide(&self, request: &Request) -> Option<String> {
        let response = self
            .authorizer
            .is_authorized(request, &self.policies, &self.entities);
        match response.decision() {
            Decision::Allow => None,
            Decision::Deny => Some("forbidden by the Cedar policy".to_string()),
        }
    }
}

impl Default for CedarRule {
    fn default() -> Self {
        Self::new()
    }
}

/// The `command` argument, as `bench_rule::command` reads it (the same
/// serde_json parse the toolvet and Extism plugins do in the guest).
fn bench_rule_command(arguments: &str) -> Option<String> {
    let args: serde_json::Value = serde_json::from_str(arguments).ok()?;
    Some(args.get("command")?.as_str()?.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cedar_policy_implements_the_rule() {
        let cedar = CedarRule::new();
        assert!(cedar.check("bash", r#"{"command":"rm -rf /"}"#).is_some());
        assert!(cedar.check("bash", r#"{"command":"ls -la"}"#).is_none());
        assert!(cedar.check("shell", r#"{"command":"rm -rf /"}"#).is_none());
        assert!(cedar.check("bash", r#"{"command":7}"#).is_none());
        assert!(cedar.check("bash", "{}").is_none());
    }
}
