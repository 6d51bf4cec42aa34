//! Typed call objects (`toolvet.Call`, `Tool`, `Context`, `PriorCall`) and
//! the request the core vets, built from them or from plain dicts.

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString};

use crate::convert::{write_json, write_str};
use crate::errors;

/// One proposed tool call: the tool's `name`, its `arguments` (a dict) and
/// the framework's call `id`.
#[pyclass(module = "toolvet", frozen, get_all)]
#[derive(Debug)]
pub struct Call {
    name: String,
    arguments: Py<PyAny>,
    id: String,
}

#[pymethods]
impl Call {
    #[new]
    #[pyo3(signature = (name, arguments=None, id=String::new()))]
    fn new(py: Python<'_>, name: String, arguments: Option<Py<PyAny>>, id: String) -> Self {
        let arguments = arguments.unwrap_or_else(|| PyDict::new(py).into_any().unbind());
        Call {
            name,
            arguments,
            id,
        }
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        Ok(format!(
            "Call(name={:?}, arguments={}, id={:?})",
            self.name,
            self.arguments.bind(py).repr()?,
            self.id
        ))
    }
}

/// What the agent's owner declared about a tool.
#[pyclass(module = "toolvet", frozen, get_all)]
#[derive(Debug)]
pub struct Tool {
    description: Option<String>,
    risk: Option<String>,
    requires_approval: bool,
    tags: Vec<String>,
    parameters_schema: Option<Py<PyAny>>,
}

#[pymethods]
impl Tool {
    #[new]
    #[pyo3(signature = (*, description=None, risk=None, requires_approval=false, tags=Vec::new(), parameters_schema=None))]
    fn new(
        description: Option<String>,
        risk: Option<String>,
        requires_approval: bool,
        tags: Vec<String>,
        parameters_schema: Option<Py<PyAny>>,
    ) -> Self {
        Tool {
            description,
            risk,
            requires_approval,
            tags,
            parameters_schema,
        }
    }

    fn __repr__(&self) -> String {
        format!(
            "Tool(risk={:?}, requires_approval={}, tags={:?})",
            self.risk,
            if self.requires_approval {
                "True"
            } else {
                "False"
            },
            self.tags
        )
    }
}

/// An earlier call of the run and what happened to it (`allowed`,
/// `denied`, `escalated`, `approved`, `rejected`).
#[pyclass(module = "toolvet", frozen, get_all)]
#[derive(Debug)]
pub struct PriorCall {
    name: String,
    arguments: Py<PyAny>,
    outcome: String,
}

#[pymethods]
impl PriorCall {
    #[new]
    fn new(name: String, arguments: Py<PyAny>, outcome: String) -> Self {
        PriorCall {
            name,
            arguments,
            outcome,
        }
    }

    fn __repr__(&self) -> String {
        format!(
            "PriorCall(name={:?}, outcome={:?})",
            self.name, self.outcome
        )
    }
}

/// What a tool returned, for `Host.check_result`: `content` is the text
/// the model would read (a `str`) or a JSON value (dicts, lists, numbers,
/// booleans, `None`); `is_error` says the tool reported an error.
#[pyclass(module = "toolvet", frozen, get_all)]
#[derive(Debug)]
pub struct ToolResult {
    content: Py<PyAny>,
    is_error: bool,
}

#[pymethods]
impl ToolResult {
    #[new]
    #[pyo3(signature = (content, *, is_error=false))]
    fn new(content: Py<PyAny>, is_error: bool) -> Self {
        ToolResult { content, is_error }
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        Ok(format!(
            "ToolResult({}, is_error={})",
            self.content.bind(py).repr()?,
            if self.is_error { "True" } else { "False" }
        ))
    }
}

/// The run a call belongs to.
#[pyclass(module = "toolvet", frozen, get_all)]
#[derive(Debug)]
pub struct Context {
    agent: Option<String>,
    run_id: Option<String>,
    principal: Option<String>,
    attributes: Py<PyAny>,
    history: Py<PyAny>,
}

#[pymethods]
impl Context {
    #[new]
    #[pyo3(signature = (*, agent=None, run_id=None, principal=None, attributes=None, history=None))]
    fn new(
        py: Python<'_>,
        agent: Option<String>,
        run_id: Option<String>,
        principal: Option<String>,
        attributes: Option<Py<PyAny>>,
        history: Option<Py<PyAny>>,
    ) -> Self {
        Context {
            agent,
            run_id,
            principal,
            attributes: attributes.unwrap_or_else(|| PyDict::new(py).into_any().unbind()),
            history: history.unwrap_or_else(|| PyList::empty(py).into_any().unbind()),
        }
    }

    fn __repr__(&self) -> String {
        format!(
            "Context(agent={:?}, run_id={:?}, principal={:?})",
            self.agent, self.run_id, self.principal
        )
    }
}

/// Writes a JSON object field by field.
struct Object<'a> {
    out: &'a mut String,
    first: bool,
}

impl<'a> Object<'a> {
    fn open(out: &'a mut String) -> Self {
        out.push('{');
        Object { out, first: true }
    }

    fn key(&mut self, key: &str) -> &mut String {
        if !self.first {
            self.out.push(',');
        }
        self.first = false;
        write_str(key, self.out);
        self.out.push(':');
        self.out
    }

    fn str(&mut self, key: &str, value: &str) {
        write_str(value, self.key(key));
    }

    fn opt(&mut self, key: &str, value: &Option<String>) {
        if let Some(v) = value {
            self.str(key, v);
        }
    }

    fn value(&mut self, key: &str, value: &Bound<'_, PyAny>, path: &str) -> PyResult<()> {
        let mut path = path.to_string();
        write_json(value, &mut path, self.key(key))
    }

    fn close(self) {
        self.out.push('}');
    }
}

/// The JSON text of the request `check(call, tool, context, ticket=…)`
/// describes, for [`toolvet::CallRequest::from_json`].
pub(crate) fn request_json(
    call: &Bound<'_, PyAny>,
    tool: Option<&Bound<'_, PyAny>>,
    context: Option<&Bound<'_, PyAny>>,
    ticket: Option<&str>,
) -> PyResult<String> {
    write_request(call, None, tool, context, ticket)
}

/// The JSON text of the request `check_result(call, result, tool, context)`
/// describes, for [`toolvet::tool_result::ResultRequest::from_json`]: the
/// call's shape plus `result`.
pub(crate) fn result_request_json(
    call: &Bound<'_, PyAny>,
    result: &Bound<'_, PyAny>,
    tool: Option<&Bound<'_, PyAny>>,
    context: Option<&Bound<'_, PyAny>>,
) -> PyResult<String> {
    write_request(call, Some(result), tool, context, None)
}

fn write_request(
    call: &Bound<'_, PyAny>,
    result: Option<&Bound<'_, PyAny>>,
    tool: Option<&Bound<'_, PyAny>>,
    context: Option<&Bound<'_, PyAny>>,
    ticket: Option<&str>,
) -> PyResult<String> {
    let mut out = String::with_capacity(256);
    let mut request = Object::open(&mut out);
    write_call(call, request.key("call"))?;
    if let Some(result) = result {
        write_result(result, request.key("result"))?;
    }
    if let Some(tool) = tool.filter(|t| !t.is_none()) {
        write_tool(tool, request.key("tool"))?;
    }
    if let Some(context) = context.filter(|c| !c.is_none()) {
        write_context(context, request.key("context"))?;
    }
    if let Some(ticket) = ticket {
        let out = request.key("approval");
        let mut claim = Object::open(out);
        claim.str("ticket", ticket);
        claim.close();
    }
    request.close();
    Ok(out)
}

fn write_call(call: &Bound<'_, PyAny>, out: &mut String) -> PyResult<()> {
    if let Ok(typed) = call.cast::<Call>() {
        let c = typed.get();
        let mut o = Object::open(out);
        o.str("id", &c.id);
        o.str("name", &c.name);
        o.value("arguments", c.arguments.bind(call.py()), "call.arguments")?;
        o.close();
        return Ok(());
    }
    expect_mapping(
        call,
        "call",
        "a toolvet.Call or a dict with `name` and `arguments`",
    )?;
    write_json(call, &mut "call".to_string(), out)
}

fn write_result(result: &Bound<'_, PyAny>, out: &mut String) -> PyResult<()> {
    let typed;
    let (content, is_error) = if let Ok(t) = result.cast::<ToolResult>() {
        typed = t.get().content.bind(result.py()).clone();
        (&typed, t.get().is_error)
    } else if result.is_instance_of::<PyString>() {
        (result, false)
    } else {
        expect_mapping(
            result,
            "result",
            "a toolvet.ToolResult, a str (text) or a dict with `content` ({\"text\": …} or {\"json\": …}) and `is_error`",
        )?;
        return write_json(result, &mut "result".to_string(), out);
    };
    let mut o = Object::open(out);
    let kind = if content.is_instance_of::<PyString>() {
        "text"
    } else {
        "json"
    };
    let mut wrapped = Object::open(o.key("content"));
    wrapped.value(kind, content, &format!("result.content.{kind}"))?;
    wrapped.close();
    o.key("is_error")
        .push_str(if is_error { "true" } else { "false" });
    o.close();
    Ok(())
}

fn write_tool(tool: &Bound<'_, PyAny>, out: &mut String) -> PyResult<()> {
    if let Ok(typed) = tool.cast::<Tool>() {
        let t = typed.get();
        let mut o = Object::open(out);
        o.opt("description", &t.description);
        o.opt("risk", &t.risk);
        o.key("requires_approval")
            .push_str(if t.requires_approval { "true" } else { "false" });
        let tags = PyList::new(tool.py(), &t.tags)?;
        o.value("tags", tags.as_any(), "tool.tags")?;
        if let Some(schema) = &t.parameters_schema {
            o.value(
                "parameters_schema",
                schema.bind(tool.py()),
                "tool.parameters_schema",
            )?;
        }
        o.close();
        return Ok(());
    }
    expect_mapping(tool, "tool", "a toolvet.Tool, a dict or None")?;
    write_json(tool, &mut "tool".to_string(), out)
}

fn write_context(context: &Bound<'_, PyAny>, out: &mut String) -> PyResult<()> {
    let py = context.py();
    if let Ok(typed) = context.cast::<Context>() {
        let c = typed.get();
        let mut o = Object::open(out);
        o.opt("agent", &c.agent);
        o.opt("run_id", &c.run_id);
        o.opt("principal", &c.principal);
        o.value("attributes", c.attributes.bind(py), "context.attributes")?;
        let history = c.history.bind(py);
        let out = o.key("history");
        out.push('[');
        for (i, prior) in history.try_iter()?.enumerate() {
            if i > 0 {
                out.push(',');
            }
            write_prior(&prior?, i, out)?;
        }
        out.push(']');
        o.close();
        return Ok(());
    }
    expect_mapping(context, "context", "a toolvet.Context, a dict or None")?;
    write_json(context, &mut "context".to_string(), out)
}

fn write_prior(prior: &Bound<'_, PyAny>, i: usize, out: &mut String) -> PyResult<()> {
    if let Ok(typed) = prior.cast::<PriorCall>() {
        let p = typed.get();
        let mut o = Object::open(out);
        o.str("name", &p.name);
        o.value(
            "arguments",
            p.arguments.bind(prior.py()),
            &format!("context.history[{i}].arguments"),
        )?;
        o.str("outcome", &p.outcome);
        o.close();
        return Ok(());
    }
    write_json(prior, &mut format!("context.history[{i}]"), out)
}

fn expect_mapping(value: &Bound<'_, PyAny>, key: &str, wanted: &str) -> PyResult<()> {
    if value.is_instance_of::<PyDict>() {
        return Ok(());
    }
    let got = value
        .get_type()
        .name()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "object".into());
    Err(errors::call_error(&format!(
        "invalid tool call: `{key}` must be {wanted}, got a {got}"
    )))
}
