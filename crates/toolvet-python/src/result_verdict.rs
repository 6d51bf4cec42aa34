//! `toolvet.ResultVerdict` and what it holds: the answer about what a tool
//! returned (`Host.check_result`), each result check's outcome, and the
//! run labels raised.

use pyo3::prelude::*;
use pyo3::types::PyList;
use toolvet::tool_result::{ResultAction, ResultContent};

use crate::convert::json_to_py;

fn action_str(action: ResultAction) -> &'static str {
    match action {
        ResultAction::Pass => "pass",
        ResultAction::Redact => "redact",
        ResultAction::Withhold => "withhold",
    }
}

fn to_py(e: serde_json::Error) -> PyErr {
    pyo3::exceptions::PyRuntimeError::new_err(format!("cannot serialize a result verdict: {e}"))
}

fn labels<'py>(
    py: Python<'py>,
    labels: &[toolvet::tool_result::RunLabel],
) -> PyResult<Bound<'py, PyList>> {
    PyList::new(py, labels.iter().map(|l| RunLabel { inner: l.clone() }))
}

/// The combined answer about what one call returned.
#[pyclass(module = "toolvet", frozen)]
#[derive(Debug)]
pub struct ResultVerdict {
    pub(crate) inner: toolvet::tool_result::ResultVerdict,
    /// The tool and call id the verdict is about.
    pub(crate) tool: String,
    pub(crate) call_id: String,
}

impl ResultVerdict {
    pub(crate) fn new(
        inner: toolvet::tool_result::ResultVerdict,
        tool: String,
        call_id: String,
    ) -> Self {
        ResultVerdict {
            inner,
            tool,
            call_id,
        }
    }

    fn json(&self) -> PyResult<String> {
        let mut value = serde_json::to_value(&self.inner).map_err(to_py)?;
        if let Some(map) = value.as_object_mut() {
            map.insert("tool".into(), self.tool.clone().into());
            map.insert("call_id".into(), self.call_id.clone().into());
        }
        Ok(value.to_string())
    }
}

#[pymethods]
impl ResultVerdict {
    /// `"pass"` (the model reads the result as returned), `"redact"` (it
    /// reads `content`, masked) or `"withhold"` (it reads `reason`
    /// instead).
    #[getter]
    fn action(&self) -> &'static str {
        action_str(self.inner.action)
    }

    /// What the model reads: the text (a `str`) or the JSON value (dicts,
    /// lists, ...) as returned on pass, masked on redact (every masked part
    /// becomes `[redacted: KIND]`); `None` on withhold.
    #[getter]
    fn content<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        match &self.inner.content {
            None => Ok(None),
            Some(ResultContent::Text(text)) => Ok(Some(text.into_pyobject(py)?.into_any())),
            Some(ResultContent::Json(value)) => json_to_py(py, &value.to_string()).map(Some),
        }
    }

    /// `"text"` or `"json"`: the kind of `content` (`None` on withhold).
    #[getter]
    fn content_kind(&self) -> Option<&'static str> {
        self.inner.content.as_ref().map(|c| match c {
            ResultContent::Text(_) => "text",
            ResultContent::Json(_) => "json",
        })
    }

    /// Why the result was withheld: what the model reads instead of it.
    #[getter]
    fn reason(&self) -> Option<&str> {
        self.inner.reason.as_deref()
    }

    /// The rule of a withhold (`toolvet.*` rules are the host's).
    #[getter]
    fn rule(&self) -> Option<&str> {
        self.inner.rule.as_deref()
    }

    /// The check whose outcome decided a withhold.
    #[getter]
    fn decided_by(&self) -> Option<&str> {
        self.inner.decided_by.as_deref()
    }

    /// The labels the enforcing checks raised (`RunLabel`s). The host keeps
    /// them for the run: its later calls are vetted with them.
    #[getter]
    fn labels<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        labels(py, &self.inner.labels)
    }

    /// Every result check that applied, in policy order.
    #[getter]
    fn checks<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        PyList::new(
            py,
            self.inner
                .checks
                .iter()
                .map(|c| ResultCheckOutcome { inner: c.clone() }),
        )
    }

    /// The tool the call was for.
    #[getter]
    fn tool(&self) -> &str {
        &self.tool
    }

    /// The call's id.
    #[getter]
    fn call_id(&self) -> &str {
        &self.call_id
    }

    /// Wall time of the vetting, in µs.
    #[getter]
    fn duration_us(&self) -> u64 {
        self.inner.duration_us
    }

    #[getter]
    fn passed(&self) -> bool {
        self.inner.action == ResultAction::Pass
    }

    #[getter]
    fn redacted(&self) -> bool {
        self.inner.action == ResultAction::Redact
    }

    #[getter]
    fn withheld(&self) -> bool {
        self.inner.action == ResultAction::Withhold
    }

    /// The verdict as `toolvet check-result` prints it (JSON text).
    fn to_json(&self) -> PyResult<String> {
        self.json()
    }

    /// The verdict as a dict (the JSON `toolvet check-result` prints).
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        json_to_py(py, &self.json()?)
    }

    fn __bool__(&self) -> PyResult<bool> {
        Err(pyo3::exceptions::PyTypeError::new_err(
            "a ResultVerdict has no truth value: test `verdict.action` or `verdict.passed`",
        ))
    }

    fn __repr__(&self) -> String {
        let mut s = format!(
            "<ResultVerdict {} {}",
            action_str(self.inner.action),
            self.tool
        );
        if let Some(rule) = &self.inner.rule {
            s.push_str(&format!(" rule={rule:?}"));
        }
        if !self.inner.labels.is_empty() {
            let names: Vec<&str> = self.inner.labels.iter().map(|l| l.name.as_str()).collect();
            s.push_str(&format!(" labels={names:?}"));
        }
        s.push_str(&format!(" {}µs>", self.inner.duration_us));
        s
    }
}

/// A label a result check raised for the rest of its run.
#[pyclass(module = "toolvet", frozen)]
#[derive(Debug)]
pub struct RunLabel {
    inner: toolvet::tool_result::RunLabel,
}

impl RunLabel {
    pub(crate) fn new(inner: toolvet::tool_result::RunLabel) -> Self {
        RunLabel { inner }
    }
}

#[pymethods]
impl RunLabel {
    /// The label, e.g. `untrusted-content`.
    #[getter]
    fn name(&self) -> &str {
        &self.inner.name
    }

    /// Values the result introduced (addresses, URLs, hosts).
    #[getter]
    fn values(&self) -> Vec<String> {
        self.inner.values.clone()
    }

    /// The check that raised it.
    #[getter]
    fn check(&self) -> &str {
        &self.inner.check
    }

    /// The tool whose result raised it.
    #[getter]
    fn tool(&self) -> &str {
        &self.inner.tool
    }

    /// The id of the call whose result raised it (may be empty).
    #[getter]
    fn call_id(&self) -> &str {
        &self.inner.call_id
    }

    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        json_to_py(py, &serde_json::to_string(&self.inner).map_err(to_py)?)
    }

    fn __repr__(&self) -> String {
        format!(
            "<RunLabel {} from {} by {}>",
            self.inner.name, self.inner.tool, self.inner.check
        )
    }
}

/// What one result check did with a result.
#[pyclass(module = "toolvet", frozen)]
#[derive(Debug)]
pub struct ResultCheckOutcome {
    inner: toolvet::tool_result::ResultCheckOutcome,
}

#[pymethods]
impl ResultCheckOutcome {
    /// The check's name from the policy.
    #[getter]
    fn check(&self) -> &str {
        &self.inner.check
    }

    /// `pass`, `redact` or `withhold`; `None` when it abstained.
    #[getter]
    fn action(&self) -> Option<&'static str> {
        self.inner.action.map(action_str)
    }

    /// `enforce` or `monitor`.
    #[getter]
    fn mode(&self) -> String {
        serde_json::to_value(self.inner.mode)
            .ok()
            .and_then(|v| v.as_str().map(str::to_owned))
            .unwrap_or_default()
    }

    #[getter]
    fn rule(&self) -> Option<&str> {
        self.inner.rule.as_deref()
    }

    #[getter]
    fn reason(&self) -> Option<&str> {
        self.inner.reason.as_deref()
    }

    /// How many parts it masked.
    #[getter]
    fn masks(&self) -> usize {
        self.inner.masks
    }

    /// The labels it raised.
    #[getter]
    fn labels<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        labels(py, &self.inner.labels)
    }

    #[getter]
    fn duration_us(&self) -> u64 {
        self.inner.duration_us
    }

    /// The failure kind (`timeout`, `trap`, ...), when the check failed.
    #[getter]
    fn error(&self) -> Option<&'static str> {
        self.inner.error.as_ref().map(|e| e.kind.as_str())
    }

    /// What the failure was.
    #[getter]
    fn error_message(&self) -> Option<&str> {
        self.inner.error.as_ref().map(|e| e.message.as_str())
    }

    fn __repr__(&self) -> String {
        let action = self.inner.action.map_or("abstain", action_str);
        let mut s = format!("<ResultCheckOutcome {} {action}", self.inner.check);
        if let Some(e) = &self.inner.error {
            s.push_str(&format!(" error={}", e.kind.as_str()));
        }
        s.push('>');
        s
    }
}
