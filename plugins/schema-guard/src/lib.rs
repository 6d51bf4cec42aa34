//! `schema-guard`: a toolvet check that validates a call's arguments against
//! the JSON Schema the tool's owner declared (`tool-info.parameters-schema`).
//!
//! Validation uses [`boon`] (JSON Schema drafts 4, 6, 7, 2019-09 and
//! 2020-12; a schema without `$schema` is read as 2020-12). Remote `$ref`s
//! are never fetched: only the schema itself and the standard meta-schemas
//! are available. Arguments that match a schema built from the common
//! keywords are allowed without compiling it ([`walk`]). Declared schemas
//! are cached per schema text for the life of the instance. See the crate
//! README for every setting and rule id.

mod closing;
mod messages;
pub mod walk;

pub use closing::close_objects;
pub use messages::describe_errors;

use serde::Deserialize;
use std::cell::{OnceCell, RefCell};
use std::collections::HashMap;
use std::rc::Rc;
use toolvet_pdk::serde_json::{self, Value};
use toolvet_pdk::{Check, CheckResult, Context, Decision, PluginInfo, ToolCall, ToolInfo};

/// What to do with a tool whose declared schema is invalid: `allow`,
/// `abstain`, `deny` or `escalate` (the kit's [`Action`]).
pub use toolvet_pdk::Action;

/// The check's settings (`[check.settings]`).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Settings {
    /// The decision when the declared schema is not valid JSON, not a valid
    /// JSON Schema, or refers to a schema that is not available (rule
    /// `schema.invalid-schema`). Default `escalate`.
    pub on_invalid_schema: Action,
    /// How many validation errors the deny reason lists (the rest are
    /// counted). Default 3; between 1 and 50.
    pub max_errors: usize,
    /// Treat object schemas that declare `properties` but say nothing about
    /// `additionalProperties` as closed: properties they do not declare are
    /// refused. Default `false` (JSON Schema's own rule: undeclared
    /// properties are allowed). See [`close_objects`].
    pub additional_properties: bool,
    /// Check `format` (`email`, `date-time`, `uri`, `uuid`, `ipv4`, ...) as
    /// an assertion rather than an annotation. Default `true`.
    pub assert_formats: bool,
}

impl Default for Settings {
    fn default() -> Self {
        Self {
            on_invalid_schema: Action::Escalate,
            max_errors: 3,
            additional_properties: false,
            assert_formats: true,
        }
    }
}

/// A schema compiled for validation, together with the schema document it
/// was compiled from (after closing, when `additional_properties` is on),
/// which error messages consult for the allowed property names.
pub struct CompiledSchema {
    schemas: boon::Schemas,
    index: boon::SchemaIndex,
    document: Value,
}

impl std::fmt::Debug for CompiledSchema {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // boon's compiled `Schemas` has no `Debug`: the document says which
        // schema this is.
        f.debug_struct("CompiledSchema")
            .field("document", &self.document)
            .finish_non_exhaustive()
    }
}

/// The location the schema document is registered under. Never fetched.
const SCHEMA_URL: &str = "urn:toolvet:parameters-schema";

/// How many compiled schemas an instance keeps; the cache is emptied when
/// it is full (an instance normally sees few distinct tools).
const CACHE_CAPACITY: usize = 64;

/// The longest schema error quoted in a reason, in characters.
const MAX_SCHEMA_ERROR_CHARS: usize = 300;

/// Refuses every URL: schemas may not load anything from outside.
struct NoLoader;

impl boon::UrlLoader for NoLoader {
    fn load(&self, url: &str) -> Result<Value, Box<dyn std::error::Error>> {
        Err(format!("`{url}` is not available: remote and file references are not loaded").into())
    }
}

impl CompiledSchema {
    /// Compile schema text.
    ///
    /// # Errors
    /// Why the text is not a usable schema: not JSON, not a valid schema
    /// for its draft, a `$ref` that does not resolve inside the document,
    /// an unknown `$schema`.
    pub fn compile(text: &str, close: bool, assert_formats: bool) -> Result<Self, String> {
        Self::compile_document(parse_document(text, close)?, assert_formats)
    }

    /// Compile a schema document already read by [`parse_document`].
    ///
    /// # Errors
    /// As [`CompiledSchema::compile`], except JSON syntax.
    pub fn compile_document(document: Value, assert_formats: bool) -> Result<Self, String> {
        let mut compiler = boon::Compiler::new();
        compiler.use_loader(Box::new(NoLoader));
        if assert_formats {
            compiler.enable_format_assertions();
        }
        compiler
            .add_resource(SCHEMA_URL, document.clone())
            .map_err(|e| e.to_string())?;
        let mut schemas = boon::Schemas::new();
        let index = compiler
            .compile(SCHEMA_URL, &mut schemas)
            .map_err(|e| match &e {
                boon::CompileError::ValidationError { src, .. } => {
                    let (problems, _) = describe_errors(src, &Value::Null, 2);
                    format!(
                        "it does not follow the JSON Schema meta-schema: {}",
                        problems.join("; ")
                    )
                }
                other => format!("{other:#}")
                    .split_whitespace()
                    .collect::<Vec<_>>()
                    .join(" "),
            })?;
        Ok(Self {
            schemas,
            index,
            document,
        })
    }

    /// Validate arguments. `Ok(())` when they match, else one message per
    /// error (at most `max`) and the total number of errors.
    pub fn validate(&self, arguments: &Value, max: usize) -> Result<(), (Vec<String>, usize)> {
        match self.schemas.validate(arguments, self.index) {
            Ok(()) => Ok(()),
            Err(e) => Err(describe_errors(&e, &self.document, max)),
        }
    }
}

/// Read schema text: JSON, an object or a boolean, closed (see
/// [`close_objects`]) when `close` is set.
///
/// # Errors
/// Not JSON, or neither an object nor a boolean.
pub fn parse_document(text: &str, close: bool) -> Result<Value, String> {
    let mut document: Value =
        serde_json::from_str(text).map_err(|e| format!("not valid JSON: {e}"))?;
    if !matches!(document, Value::Object(_) | Value::Bool(_)) {
        return Err("a schema must be a JSON object or a boolean".into());
    }
    if close {
        close_objects(&mut document);
    }
    Ok(document)
}

/// A tool's declared schema as the guard keeps it: the document read (and
/// closed), whether [`walk`] covers it, and its compiled form, made the
/// first time the walk cannot allow a call.
#[derive(Debug)]
pub struct DeclaredSchema {
    document: Value,
    assert_formats: bool,
    walkable: bool,
    compiled: OnceCell<Result<CompiledSchema, String>>,
}

impl DeclaredSchema {
    /// Read schema text with the guard's settings.
    ///
    /// # Errors
    /// As [`parse_document`].
    pub fn read(text: &str, close: bool, assert_formats: bool) -> Result<Self, String> {
        let document = parse_document(text, close)?;
        Ok(Self {
            walkable: walk::covers(&document, assert_formats),
            document,
            assert_formats,
            compiled: OnceCell::new(),
        })
    }

    /// Whether the walk covers the schema (so matching arguments are allowed
    /// without compiling it).
    pub fn walkable(&self) -> bool {
        self.walkable
    }

    /// The compiled schema (with the settings it was read with), compiled
    /// on first use.
    ///
    /// # Errors
    /// As [`CompiledSchema::compile_document`].
    pub fn compiled(&self) -> Result<&CompiledSchema, &str> {
        self.compiled
            .get_or_init(|| {
                CompiledSchema::compile_document(self.document.clone(), self.assert_formats)
            })
            .as_ref()
            .map_err(String::as_str)
    }
}

/// The schema [`SchemaGuard`]'s warm-up compiles: a file tool's, with the
/// keywords tool schemas use most.
pub const WARM_UP_SCHEMA: &str = r#"{
  "type": "object",
  "properties": {
    "path": {"type": "string", "minLength": 1, "description": "File to write"},
    "content": {"type": "string"},
    "overwrite": {"type": "boolean", "default": false},
    "mode": {"enum": ["create", "replace"]},
    "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 10},
    "size": {"type": ["integer", "null"], "minimum": 0}
  },
  "required": ["path", "content"],
  "additionalProperties": false
}"#;

/// The configured check.
#[derive(Debug)]
pub struct SchemaGuard {
    settings: Settings,
    cache: RefCell<HashMap<String, Rc<Result<DeclaredSchema, String>>>>,
}

impl SchemaGuard {
    /// The declared schema for `text`, from the cache or read now.
    pub fn declared(&self, text: &str) -> Rc<Result<DeclaredSchema, String>> {
        if let Some(c) = self.cache.borrow().get(text) {
            return Rc::clone(c);
        }
        let compiled = Rc::new(DeclaredSchema::read(
            text,
            self.settings.additional_properties,
            self.settings.assert_formats,
        ));
        let mut cache = self.cache.borrow_mut();
        if cache.len() >= CACHE_CAPACITY {
            cache.clear();
        }
        cache.insert(text.to_string(), Rc::clone(&compiled));
        compiled
    }

    /// How many declared schemas are cached (for tests and benchmarks).
    pub fn cached(&self) -> usize {
        self.cache.borrow().len()
    }

    fn invalid_schema(&self, error: &str) -> Decision {
        let error: String = if error.chars().count() > MAX_SCHEMA_ERROR_CHARS {
            let mut s: String = error.chars().take(MAX_SCHEMA_ERROR_CHARS).collect();
            s.push('…');
            s
        } else {
            error.to_string()
        };
        let message = format!(
            "the tool's declared parameters schema is invalid ({error}), so the arguments \
             could not be checked; the tool's owner must fix the schema"
        );
        self.settings
            .on_invalid_schema
            .decide("schema.invalid-schema", message)
    }
}

impl Check for SchemaGuard {
    type Settings = Settings;

    fn info() -> PluginInfo {
        PluginInfo::new(
            "schema-guard",
            env!("CARGO_PKG_VERSION"),
            "Tool arguments must match the tool's declared JSON Schema",
        )
    }

    fn new(settings: Settings) -> Result<Self, String> {
        if !(1..=50).contains(&settings.max_errors) {
            return Err(format!(
                "settings.max_errors: must be between 1 and 50, got {}",
                settings.max_errors
            ));
        }
        Ok(Self {
            settings,
            cache: RefCell::new(HashMap::new()),
        })
    }

    /// Vets a few typical calls in `configure`, so what the first call
    /// would build lazily is in the snapshot (see [`Check::warm_up`]).
    /// Compiles and applies a typical tool schema in `configure`, so the
    /// validator's own lazily built tables (the JSON Schema meta-schemas
    /// every compile checks a schema against) are in the snapshot; then
    /// empties the cache, which holds only what calls brought.
    fn warm_up(&self) {
        let tool = ToolInfo {
            parameters_schema: Some(WARM_UP_SCHEMA.to_string()),
            ..ToolInfo::default()
        };
        for arguments in [
            r#"{"path": "src/report.md", "content": "A report", "overwrite": false}"#,
            r#"{"path": "", "content": 3, "mode": "append"}"#,
        ] {
            let _ = self.vet(&ToolCall::new("write_file", arguments), &tool);
        }
        self.cache.borrow_mut().clear();
    }

    fn check(&self, call: &ToolCall, tool: &ToolInfo, _ctx: &Context) -> CheckResult {
        Ok(self.vet(call, tool))
    }
}

impl SchemaGuard {
    /// The decision on one call against its tool's declared schema.
    pub fn vet(&self, call: &ToolCall, tool: &ToolInfo) -> Decision {
        let Some(text) = tool
            .parameters_schema
            .as_deref()
            .filter(|t| !t.trim().is_empty())
        else {
            return Decision::Abstain;
        };
        let declared = self.declared(text);
        let declared = match declared.as_ref() {
            Ok(d) => d,
            Err(e) => return self.invalid_schema(e),
        };
        if declared.walkable() && walk::valid(&declared.document, call.json()) {
            return Decision::Allow;
        }
        // Not covered by the walk, or not valid: the compiled validator
        // decides, and words the errors.
        let schema = match declared.compiled() {
            Ok(s) => s,
            Err(e) => return self.invalid_schema(e),
        };
        match schema.validate(call.json(), self.settings.max_errors) {
            Ok(()) => Decision::Allow,
            Err((messages, total)) => {
                let mut reason = format!(
                    "the arguments do not match the {} tool's parameters schema: {}",
                    call.name,
                    messages.join("; ")
                );
                if total > messages.len() {
                    reason.push_str(&format!(" (and {} more)", total - messages.len()));
                }
                reason.push_str(". Fix the arguments and call the tool again.");
                Decision::deny("schema.invalid-arguments", reason)
            }
        }
    }
}

toolvet_pdk::export_check!(SchemaGuard);

#[cfg(test)]
mod tests {
    use super::*;

    fn guard(settings: &str) -> SchemaGuard {
        SchemaGuard::from_settings_json(settings).expect("valid settings")
    }

    fn run(g: &SchemaGuard, schema: Option<&str>, args: &str) -> Decision {
        let tool = ToolInfo {
            parameters_schema: schema.map(str::to_string),
            ..ToolInfo::default()
        };
        g.decide(&ToolCall::new("t", args), &tool, &Context::default())
    }

    fn message(d: &Decision) -> &str {
        match d {
            Decision::Deny(r) | Decision::Escalate(r) => &r.message,
            _ => panic!("no reason in {d:?}"),
        }
    }

    const FILE: &str = r#"{"type":"object","properties":{"path":{"type":"string"},"mode":{"enum":["r","w"]}},"required":["path"]}"#;

    #[test]
    fn no_schema_abstains_and_valid_arguments_are_allowed() {
        let g = guard("{}");
        assert_eq!(run(&g, None, r#"{"x":1}"#), Decision::Abstain);
        assert_eq!(run(&g, Some("  "), r#"{"x":1}"#), Decision::Abstain);
        assert_eq!(
            run(&g, Some(FILE), r#"{"path":"a.txt","mode":"r"}"#),
            Decision::Allow
        );
    }

    #[test]
    fn covered_schemas_allow_without_compiling_and_deny_in_the_validators_words() {
        let g = guard("{}");
        assert_eq!(run(&g, Some(FILE), r#"{"path":"a.txt"}"#), Decision::Allow);
        let declared = g.declared(FILE);
        let declared = declared.as_ref().as_ref().expect("a valid schema");
        assert!(declared.walkable());
        assert!(
            declared.compiled.get().is_none(),
            "compiled for a valid call"
        );
        let d = run(&g, Some(FILE), r#"{"mode":"x"}"#);
        assert!(
            message(&d).contains("`/path`: required property is missing"),
            "{d:?}"
        );
        assert!(declared.compiled.get().is_some());
        // An uncovered schema is compiled for every answer.
        let pattern = r#"{"type":"object","properties":{"path":{"type":"string","pattern":"^/"}}}"#;
        assert_eq!(run(&g, Some(pattern), r#"{"path":"/a"}"#), Decision::Allow);
        let declared = g.declared(pattern);
        let declared = declared.as_ref().as_ref().expect("a valid schema");
        assert!(!declared.walkable());
        assert!(declared.compiled.get().is_some());
    }

    #[test]
    fn violations_deny_with_pointer_and_expectation() {
        let g = guard("{}");
        let d = run(&g, Some(FILE), r#"{"mode":"x"}"#);
        assert_eq!(d.rule(), Some("schema.invalid-arguments"));
        let m = message(&d);
        assert!(m.contains("`/path`: required property is missing"), "{m}");
        assert!(m.contains(r#"`/mode`: must be one of "r", "w""#), "{m}");
    }

    #[test]
    fn max_errors_caps_the_list_and_counts_the_rest() {
        let g = guard(r#"{"max_errors": 1}"#);
        let schema = r#"{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer"},"c":{"type":"integer"}}}"#;
        let d = run(&g, Some(schema), r#"{"a":"1","b":"2","c":"3"}"#);
        let m = message(&d);
        assert!(m.contains("(and 2 more)"), "{m}");
        assert_eq!(m.matches("expected integer").count(), 1, "{m}");
    }

    #[test]
    fn invalid_schema_follows_setting() {
        let bad = r#"{"type":"strng"}"#;
        let d = run(&guard("{}"), Some(bad), "{}");
        assert_eq!(d.kind(), "escalate");
        assert_eq!(d.rule(), Some("schema.invalid-schema"));
        let d = run(
            &guard(r#"{"on_invalid_schema":"deny"}"#),
            Some("{not json"),
            "{}",
        );
        assert_eq!(d.kind(), "deny");
        assert!(message(&d).contains("not valid JSON"), "{}", message(&d));
        let d = run(
            &guard(r#"{"on_invalid_schema":"abstain"}"#),
            Some(bad),
            "{}",
        );
        assert_eq!(d, Decision::Abstain);
        // A remote reference is never fetched.
        let remote = r#"{"$ref":"https://example.com/schema.json"}"#;
        let d = run(&guard("{}"), Some(remote), "{}");
        assert_eq!(d.rule(), Some("schema.invalid-schema"));
    }

    #[test]
    fn compiled_schemas_are_cached_per_text() {
        let g = guard("{}");
        run(&g, Some(FILE), r#"{"path":"a"}"#);
        run(&g, Some(FILE), r#"{"path":"b"}"#);
        assert_eq!(g.cached(), 1);
        run(&g, Some(r#"{"type":"object"}"#), "{}");
        assert_eq!(g.cached(), 2);
    }

    #[test]
    fn additional_properties_setting_closes_open_schemas() {
        let open = guard("{}");
        let closed = guard(r#"{"additional_properties": true}"#);
        let args = r#"{"path":"a","recursive":true}"#;
        assert_eq!(run(&open, Some(FILE), args), Decision::Allow);
        let d = run(&closed, Some(FILE), args);
        let m = message(&d);
        assert!(m.contains("`/recursive`: property is not allowed"), "{m}");
        assert!(m.contains("allowed: mode, path"), "{m}");
    }

    #[test]
    fn formats_are_asserted_unless_disabled() {
        let schema = r#"{"type":"object","properties":{"to":{"type":"string","format":"email"}}}"#;
        let d = run(&guard("{}"), Some(schema), r#"{"to":"not-an-address"}"#);
        assert!(
            message(&d).contains("`/to`: must be a valid email"),
            "{}",
            message(&d)
        );
        let off = guard(r#"{"assert_formats": false}"#);
        assert_eq!(
            run(&off, Some(schema), r#"{"to":"not-an-address"}"#),
            Decision::Allow
        );
    }

    #[test]
    fn bad_settings_name_the_key() {
        let e = SchemaGuard::from_settings_json(r#"{"max_errors": 0}"#)
            .err()
            .unwrap();
        assert!(e.starts_with("settings.max_errors:"), "{e}");
        let e = SchemaGuard::from_settings_json(r#"{"max_erors": 2}"#)
            .err()
            .unwrap();
        assert!(e.contains("max_erors"), "{e}");
        let e = SchemaGuard::from_settings_json(r#"{"on_invalid_schema": "ignore"}"#)
            .err()
            .unwrap();
        assert!(e.starts_with("settings.on_invalid_schema:"), "{e}");
    }
}
