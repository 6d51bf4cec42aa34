//! `toolvet.Verdict` and what it holds: the approval behind an escalate and
//! every check's outcome.

use pyo3::prelude::*;
use pyo3::types::PyList;

use crate::convert::json_to_py;

/// The combined answer about one call.
#[pyclass(module = "toolvet", frozen)]
#[derive(Debug)]
pub struct Verdict {
    pub(crate) inner: toolvet::Verdict,
    /// The tool and call id the verdict is about (as the CLI prints them).
    pub(crate) tool: String,
    pub(crate) call_id: String,
}

impl Verdict {
    pub(crate) fn new(inner: toolvet::Verdict, tool: String, call_id: String) -> Self {
        Verdict {
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

fn to_py(e: serde_json::Error) -> PyErr {
    pyo3::exceptions::PyRuntimeError::new_err(format!("cannot serialize a verdict: {e}"))
}

#[pymethods]
impl Verdict {
    /// `"allow"`, `"deny"` or `"escalate"`.
    #[getter]
    fn decision(&self) -> &'static str {
        self.inner.decision.as_str()
    }

    /// The message for the model (deny) or the approver (escalate).
    #[getter]
    fn reason(&self) -> Option<&str> {
        self.inner.reason.as_deref()
    }

    /// The deciding rule id (`shell.rm-home`, `approval.rejected`, ...).
    #[getter]
    fn rule(&self) -> Option<&str> {
        self.inner.rule.as_deref()
    }

    /// The check whose outcome decided.
    #[getter]
    fn decided_by(&self) -> Option<&str> {
        self.inner.decided_by.as_deref()
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

    /// Wall time of the verdict, in µs.
    #[getter]
    fn duration_us(&self) -> u64 {
        self.inner.duration_us
    }

    /// The approval request behind an escalate, or the approval a resumed
    /// call was settled by.
    #[getter]
    fn approval(&self) -> Option<Approval> {
        self.inner.approval.clone().map(|inner| Approval { inner })
    }

    /// Every check that applied, in policy order.
    #[getter]
    fn checks<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        PyList::new(
            py,
            self.inner
                .checks
                .iter()
                .map(|c| CheckOutcome { inner: c.clone() }),
        )
    }

    #[getter]
    fn allowed(&self) -> bool {
        self.inner.decision == toolvet::Decision::Allow
    }

    #[getter]
    fn denied(&self) -> bool {
        self.inner.decision == toolvet::Decision::Deny
    }

    #[getter]
    fn escalated(&self) -> bool {
        self.inner.decision == toolvet::Decision::Escalate
    }

    /// The verdict as `toolvet check` prints it (JSON text).
    fn to_json(&self) -> PyResult<String> {
        self.json()
    }

    /// The verdict as a dict (the JSON `toolvet check` prints).
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        json_to_py(py, &self.json()?)
    }

    fn __bool__(&self) -> PyResult<bool> {
        Err(pyo3::exceptions::PyTypeError::new_err(
            "a Verdict has no truth value: test `verdict.allowed` or `verdict.decision`",
        ))
    }

    fn __repr__(&self) -> String {
        let mut s = format!("<Verdict {} {}", self.inner.decision, self.tool);
        if let Some(rule) = &self.inner.rule {
            s.push_str(&format!(" rule={rule:?}"));
        }
        if let Some(reason) = &self.inner.reason {
            s.push_str(&format!(" reason={reason:?}"));
        }
        if let Some(approval) = &self.inner.approval {
            s.push_str(&format!(" approval={}({})", approval.id, approval.status));
        }
        s.push_str(&format!(" {}µs>", self.inner.duration_us));
        s
    }
}

/// The approval part of a verdict.
#[pyclass(module = "toolvet", frozen)]
#[derive(Debug)]
pub struct Approval {
    inner: toolvet::approval::VerdictApproval,
}

#[pymethods]
impl Approval {
    /// The request id (`apr_…`).
    #[getter]
    fn id(&self) -> &str {
        &self.inner.id
    }

    /// `pending`, `approved`, `rejected`, `consumed` or `expired`.
    #[getter]
    fn status(&self) -> &'static str {
        self.inner.status.as_str()
    }

    /// The ticket a resumed call carries (pending or approved only).
    #[getter]
    fn ticket(&self) -> Option<&str> {
        self.inner.ticket.as_deref()
    }

    #[getter]
    fn created_at(&self) -> String {
        self.inner.created_at.to_string()
    }

    #[getter]
    fn expires_at(&self) -> String {
        self.inner.expires_at.to_string()
    }

    #[getter]
    fn reviewer(&self) -> Option<&str> {
        self.inner.reviewer.as_deref()
    }

    #[getter]
    fn message(&self) -> Option<&str> {
        self.inner.message.as_deref()
    }

    #[getter]
    fn scope(&self) -> Option<&'static str> {
        self.inner.scope.map(|s| s.as_str())
    }

    /// `True` when this verdict opened the request: the ledger held none
    /// for the call before. An adapter takes a person's approval given
    /// through its framework only for a request it did not just open.
    #[getter]
    fn opened(&self) -> bool {
        self.inner.opened
    }

    /// The escalating checks: dicts with `check`, `rule`, `reason`.
    #[getter]
    fn escalations<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let text = serde_json::to_string(&self.inner.escalations).map_err(to_py)?;
        json_to_py(py, &text)
    }

    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        json_to_py(py, &serde_json::to_string(&self.inner).map_err(to_py)?)
    }

    fn __repr__(&self) -> String {
        format!(
            "<Approval {} {} expires {}>",
            self.inner.id, self.inner.status, self.inner.expires_at
        )
    }
}

/// What one check did with the call.
#[pyclass(module = "toolvet", frozen)]
#[derive(Debug)]
pub struct CheckOutcome {
    inner: toolvet::verdict::CheckOutcome,
}

#[pymethods]
impl CheckOutcome {
    /// The check's name from the policy.
    #[getter]
    fn check(&self) -> &str {
        &self.inner.check
    }

    /// `allow`, `abstain`, `deny` or `escalate`.
    #[getter]
    fn decision(&self) -> &'static str {
        self.inner.decision.as_str()
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
        let mut s = format!("<CheckOutcome {} {}", self.inner.check, self.inner.decision);
        if let Some(rule) = &self.inner.rule {
            s.push_str(&format!(" rule={rule:?}"));
        }
        if let Some(e) = &self.inner.error {
            s.push_str(&format!(" error={}", e.kind.as_str()));
        }
        s.push('>');
        s
    }
}
