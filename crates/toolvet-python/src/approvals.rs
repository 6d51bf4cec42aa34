//! `host.approvals`: list, approve and reject approval requests.

use pyo3::prelude::*;
use std::future::Future;

use crate::convert::json_to_py;
use crate::errors;
use crate::host::unwinding;

/// The approvals of a policy: its ledger of requests.
#[pyclass(module = "toolvet", frozen)]
#[derive(Debug)]
pub struct Approvals {
    inner: toolvet::approval::Approvals,
}

impl Approvals {
    pub(crate) fn new(inner: toolvet::approval::Approvals) -> Self {
        Approvals { inner }
    }
}

/// Run an approvals operation with the GIL released.
fn run<T, F>(py: Python<'_>, op: F) -> PyResult<T>
where
    F: Future<Output = Result<T, toolvet::approval::ApprovalError>> + Send + 'static,
    T: Send + 'static,
{
    match py.detach(|| unwinding(|| toolvet::block_on(op))) {
        Ok(Ok(value)) => Ok(value),
        Ok(Err(e)) => Err(errors::approval_error(e)),
        Err(why) => Err(errors::approval_message(
            "ledger",
            &format!("the approvals host failed: {why}"),
        )),
    }
}

fn requests(found: Vec<toolvet::approval::ApprovalRequest>) -> Vec<ApprovalRequest> {
    found
        .into_iter()
        .map(|inner| ApprovalRequest { inner })
        .collect()
}

#[pymethods]
impl Approvals {
    /// Requests waiting for a person, oldest first.
    #[pyo3(signature = (limit=100))]
    fn pending(&self, py: Python<'_>, limit: usize) -> PyResult<Vec<ApprovalRequest>> {
        self.list(py, "pending", limit, None)
    }

    /// One page of requests with `status` (`pending`, `approved`,
    /// `rejected`, `consumed`, `expired`, `all`), oldest first, after the
    /// request `after`.
    #[pyo3(signature = (status="pending", limit=100, after=None))]
    fn list(
        &self,
        py: Python<'_>,
        status: &str,
        limit: usize,
        after: Option<String>,
    ) -> PyResult<Vec<ApprovalRequest>> {
        let status = status.parse().map_err(errors::approval_error)?;
        let query = toolvet::approval::ListQuery {
            status,
            limit,
            after,
        };
        let approvals = self.inner.clone();
        run(py, async move { approvals.list(&query).await }).map(requests)
    }

    /// The request `id`.
    fn get(&self, py: Python<'_>, id: String) -> PyResult<ApprovalRequest> {
        let approvals = self.inner.clone();
        run(py, async move { approvals.get(&id).await }).map(|inner| ApprovalRequest { inner })
    }

    /// Approve request `id` as `reviewer`, for this call once (`scope =
    /// "once"`) or for the same tool and arguments for the rest of the run
    /// (`"run"`). The first decision stands: deciding twice raises.
    ///
    /// A review screen passes `shown`, the request's `review_sha256` as the
    /// person read it: the approval is then recorded only while the request
    /// is still what they saw, else `ApprovalError` of kind `changed`.
    #[pyo3(signature = (id, reviewer, message=None, scope="once", *, shown=None))]
    fn approve(
        &self,
        py: Python<'_>,
        id: String,
        reviewer: &str,
        message: Option<&str>,
        scope: &str,
        shown: Option<String>,
    ) -> PyResult<ApprovalRequest> {
        let review = toolvet::approval::Review::parse("approve", reviewer, message, Some(scope))
            .map_err(errors::approval_error)?;
        self.decide(py, id, review, shown)
    }

    /// Reject request `id` as `reviewer`; the model reads `message`.
    /// `shown` as for `approve`.
    #[pyo3(signature = (id, reviewer, message=None, *, shown=None))]
    fn reject(
        &self,
        py: Python<'_>,
        id: String,
        reviewer: &str,
        message: Option<&str>,
        shown: Option<String>,
    ) -> PyResult<ApprovalRequest> {
        let review = toolvet::approval::Review::parse("reject", reviewer, message, None)
            .map_err(errors::approval_error)?;
        self.decide(py, id, review, shown)
    }

    fn __repr__(&self) -> String {
        format!("<toolvet.Approvals realm={}>", self.inner.realm())
    }
}

impl Approvals {
    fn decide(
        &self,
        py: Python<'_>,
        id: String,
        review: toolvet::approval::Review,
        shown: Option<String>,
    ) -> PyResult<ApprovalRequest> {
        let approvals = self.inner.clone();
        run(py, async move {
            match shown {
                Some(shown) => approvals.decide_shown(&id, review, &shown).await,
                None => approvals.decide(&id, review).await,
            }
        })
        .map(|inner| ApprovalRequest { inner })
    }
}

/// One approval request as the ledger holds it.
#[pyclass(module = "toolvet", frozen)]
#[derive(Debug)]
pub struct ApprovalRequest {
    inner: toolvet::approval::ApprovalRequest,
}

#[pymethods]
impl ApprovalRequest {
    /// `apr_` and 32 hex digits.
    #[getter]
    fn id(&self) -> &str {
        &self.inner.id
    }

    /// `pending`, `approved`, `rejected`, `consumed` or `expired`.
    #[getter]
    fn status(&self) -> &'static str {
        self.inner.status.as_str()
    }

    /// What a person reads and decides, as a digest (hex sha256 of the
    /// bound call, principal, agent and escalations): hand it back as
    /// `shown` with the decision.
    #[getter]
    fn review_sha256(&self) -> String {
        self.inner.review_sha256()
    }

    /// The tool the call is for.
    #[getter]
    fn tool(&self) -> &str {
        &self.inner.call.tool
    }

    /// The framework's call id.
    #[getter]
    fn call_id(&self) -> &str {
        &self.inner.call.call_id
    }

    #[getter]
    fn run_id(&self) -> Option<&str> {
        self.inner.call.run_id.as_deref()
    }

    /// The call's bound context attributes (`cwd`, `agent_tool`,
    /// `mcp.server`, those it had): an approval counts only under the same
    /// values.
    #[getter]
    fn attributes(&self) -> std::collections::BTreeMap<String, String> {
        self.inner.call.attributes.clone()
    }

    /// The call's arguments (attacker-controlled: escape them wherever they
    /// are shown).
    #[getter]
    fn arguments<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        json_to_py(py, self.inner.arguments.get())
    }

    #[getter]
    fn agent(&self) -> Option<&str> {
        self.inner.agent.as_deref()
    }

    #[getter]
    fn principal(&self) -> Option<&str> {
        self.inner.principal.as_deref()
    }

    /// The escalating checks: dicts with `check`, `rule`, `reason`.
    #[getter]
    fn escalations<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let text = serde_json::to_string(&self.inner.escalations)
            .map_err(|e| pyo3::exceptions::PyRuntimeError::new_err(e.to_string()))?;
        json_to_py(py, &text)
    }

    /// The escalating checks' reasons, joined with `; `.
    #[getter]
    fn reason(&self) -> Option<String> {
        let reasons: Vec<&str> = self
            .inner
            .escalations
            .iter()
            .filter_map(|e| e.reason.as_deref())
            .collect();
        (!reasons.is_empty()).then(|| reasons.join("; "))
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
        self.inner.review.as_ref().map(|r| r.reviewer.as_str())
    }

    #[getter]
    fn message(&self) -> Option<&str> {
        self.inner
            .review
            .as_ref()
            .and_then(|r| r.message.as_deref())
    }

    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let text = serde_json::to_string(&self.inner)
            .map_err(|e| pyo3::exceptions::PyRuntimeError::new_err(e.to_string()))?;
        json_to_py(py, &text)
    }

    fn __repr__(&self) -> String {
        format!(
            "<ApprovalRequest {} {} {} call_id={:?}>",
            self.inner.id, self.inner.status, self.inner.call.tool, self.inner.call.call_id
        )
    }
}
