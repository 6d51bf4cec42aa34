//! toolvet's Python exceptions (defined in `toolvet/errors.py`), raised
//! with the messages the CLI prints.

use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::PyType;

fn class(
    py: Python<'_>,
    name: &'static str,
    cell: &'static PyOnceLock<Py<PyType>>,
) -> PyResult<Py<PyType>> {
    cell.get_or_try_init(py, || {
        Ok(py
            .import("toolvet.errors")?
            .getattr(name)?
            .cast_into::<PyType>()?
            .unbind())
    })
    .map(|c| c.clone_ref(py))
}

/// An exception of class `name` with `message` and, when given, `kind`.
fn raise(
    name: &'static str,
    cell: &'static PyOnceLock<Py<PyType>>,
    message: &str,
    kind: Option<&str>,
) -> PyErr {
    Python::attach(|py| {
        let made = class(py, name, cell).and_then(|cls| {
            let err = cls.bind(py).call1((message,))?;
            if let Some(kind) = kind {
                err.setattr("kind", kind)?;
            }
            Ok(PyErr::from_value(err))
        });
        made.unwrap_or_else(|e| e)
    })
}

static CALL: PyOnceLock<Py<PyType>> = PyOnceLock::new();
static POLICY: PyOnceLock<Py<PyType>> = PyOnceLock::new();
static APPROVAL: PyOnceLock<Py<PyType>> = PyOnceLock::new();

/// `toolvet.CallError`: a call that cannot be vetted (its shape).
pub(crate) fn call_error(message: &str) -> PyErr {
    raise("CallError", &CALL, message, None)
}

/// `toolvet.PolicyError` for a policy that cannot be loaded, with the
/// CLI's message (the error and its causes, as `toolvet:` prints them).
pub(crate) fn policy_error(error: toolvet::Error) -> PyErr {
    let kind = match &error {
        toolvet::Error::Config(_) => "config",
        toolvet::Error::Load(_) => "load",
        toolvet::Error::Engine(_) => "engine",
        toolvet::Error::Approvals { .. } => "approvals",
        toolvet::Error::DecisionLog { .. } => "decision-log",
        _ => "other",
    };
    let message = format!("{:#}", anyhow::Error::from(error));
    raise("PolicyError", &POLICY, &message, Some(kind))
}

/// `toolvet.PolicyError` of kind `config` with `message`.
pub(crate) fn policy_message(message: &str) -> PyErr {
    raise("PolicyError", &POLICY, message, Some("config"))
}

/// `toolvet.ApprovalError` with the CLI's message and a `kind`.
pub(crate) fn approval_error(error: toolvet::approval::ApprovalError) -> PyErr {
    let kind = match &error {
        toolvet::approval::ApprovalError::NotFound(_) => "not-found",
        toolvet::approval::ApprovalError::AlreadyDecided { .. } => "already-decided",
        toolvet::approval::ApprovalError::Expired(_) => "expired",
        toolvet::approval::ApprovalError::Changed(_) => "changed",
        toolvet::approval::ApprovalError::InvalidReview(_) => "invalid-review",
        toolvet::approval::ApprovalError::InvalidQuery(_) => "invalid-query",
        toolvet::approval::ApprovalError::Ledger(_) => "ledger",
        toolvet::approval::ApprovalError::Key(_) => "key",
        _ => "other",
    };
    raise("ApprovalError", &APPROVAL, &error.to_string(), Some(kind))
}

/// `toolvet.ApprovalError` of `kind` with `message`.
pub(crate) fn approval_message(kind: &str, message: &str) -> PyErr {
    raise("ApprovalError", &APPROVAL, message, Some(kind))
}
