//! `toolvet.Host`: a loaded policy that vets calls, with the GIL released
//! while checks run.

use pyo3::prelude::*;
use pyo3::types::PyList;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::PathBuf;
use std::sync::Arc;
use toolvet::tool_result::{ResultRequest, ResultVerdict as CoreResultVerdict};

use crate::approvals::Approvals;
use crate::convert::json_to_py;
use crate::errors;
use crate::request::{request_json, result_request_json};
use crate::result_verdict::{ResultVerdict, RunLabel};
use crate::verdict::Verdict;
use toolvet::run_labels::RunLabels;

/// The rule of a deny (or withhold) the binding gives when the host itself
/// failed.
pub(crate) const HOST_ERROR_RULE: &str = "toolvet.host-error";

/// Loaded checks ready to vet calls; safe to share between threads. It
/// keeps the labels each run's results raised ([`RunLabels`]).
#[pyclass(module = "toolvet", frozen)]
#[derive(Debug)]
pub struct Host {
    inner: toolvet::Host,
    labels: Arc<RunLabels>,
}

/// Run `f`, turning a panic into `Err` with its message.
pub(crate) fn unwinding<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    catch_unwind(AssertUnwindSafe(f)).map_err(|panic| {
        panic
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| panic.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "a panic".into())
    })
}

/// Vet `request` on this thread (the caller has released the GIL), with
/// the labels its run's results raised, as [`toolvet::Host::check_blocking`]
/// does but without copying the request. Never fails: a failure of the host
/// is a deny.
fn vet(
    host: &toolvet::Host,
    labels: &RunLabels,
    mut request: toolvet::CallRequest,
) -> toolvet::Verdict {
    let host = host.clone();
    let checked = unwinding(move || {
        if let Some(refused) = labels.label_call_blocking(&host, &mut request) {
            return refused;
        }
        toolvet::block_on(async move { host.check(&request).await })
    });
    checked.unwrap_or_else(|why| toolvet::Verdict {
        decision: toolvet::Decision::Deny,
        decided_by: None,
        rule: Some(HOST_ERROR_RULE.into()),
        reason: Some(format!(
            "the policy host failed while vetting this call ({why}), so it may not run"
        )),
        approval: None,
        checks: Vec::new(),
        duration_us: 0,
    })
}

/// Vet what the call of `item` returned, on this thread (the caller has
/// released the GIL), with its run's labels, and keep the labels it
/// raises for the run. Never fails: a failure of the host is a withhold.
fn vet_result(host: &toolvet::Host, labels: &RunLabels, item: ResultRequest) -> CoreResultVerdict {
    let host = host.clone();
    let checked = unwinding(move || {
        let ResultRequest { request, result } = item;
        labels.check_result_blocking(&host, &request, &result)
    });
    checked.unwrap_or_else(|why| {
        CoreResultVerdict::withheld_by_host(
            HOST_ERROR_RULE,
            format!("the policy host failed while vetting this result ({why}), so it is withheld"),
        )
    })
}

/// Refuse labels a caller sent: the host keeps each run's labels itself
/// ([`RunLabels`]), and a caller that could send them could also leave one
/// out.
fn refuse_labels(context: &toolvet::CallContext) -> PyResult<()> {
    if context.labels.is_empty() {
        return Ok(());
    }
    Err(errors::call_error(
        "invalid tool call: `context.labels`: the host keeps each run's labels itself (the labels \
         its results raised through `check_result`), so a call never brings any; send the call \
         without `context.labels`, with its `run_id`",
    ))
}

fn load(py: Python<'_>, policy: toolvet::Policy) -> PyResult<Host> {
    let loaded = py.detach(|| {
        unwinding(|| toolvet::block_on(toolvet::Host::load_with(policy, toolvet_preset::options())))
    });
    match loaded {
        Ok(Ok(inner)) => {
            // This host runs in the agent's process, as its user: the
            // ledger is the agent's file (review-s6 F4).
            inner.guard_same_user();
            Ok(Host {
                inner,
                labels: Arc::new(RunLabels::default()),
            })
        }
        Ok(Err(e)) => Err(errors::policy_error(e)),
        Err(why) => Err(errors::policy_message(&format!(
            "the host failed while loading the policy: {why}"
        ))),
    }
}

/// Parse and validate the request `check` was given.
fn parse(
    call: &Bound<'_, PyAny>,
    tool: Option<&Bound<'_, PyAny>>,
    context: Option<&Bound<'_, PyAny>>,
    ticket: Option<&str>,
) -> PyResult<toolvet::CallRequest> {
    let text = request_json(call, tool, context, ticket)?;
    let request =
        toolvet::CallRequest::from_json(&text).map_err(|e| errors::call_error(&e.to_string()))?;
    refuse_labels(&request.context)?;
    Ok(request)
}

/// Parse and validate the request `check_result` was given.
fn parse_result(
    call: &Bound<'_, PyAny>,
    result: &Bound<'_, PyAny>,
    tool: Option<&Bound<'_, PyAny>>,
    context: Option<&Bound<'_, PyAny>>,
) -> PyResult<ResultRequest> {
    let text = result_request_json(call, result, tool, context)?;
    let item = ResultRequest::from_json(&text).map_err(|e| errors::call_error(&e.to_string()))?;
    refuse_labels(&item.request.context)?;
    Ok(item)
}

#[pymethods]
impl Host {
    /// Load the policy file at `path` (its checks compile once and are
    /// cached).
    #[staticmethod]
    fn from_file(py: Python<'_>, path: PathBuf) -> PyResult<Host> {
        let policy = toolvet_preset::policy_from_file(&path)
            .map_err(|e| errors::policy_error(toolvet::Error::Config(e)))?;
        load(py, policy)
    }

    /// Load a policy from TOML `text`; relative paths in it resolve
    /// against `base_dir` (default: the current directory); `source` names
    /// it in messages.
    #[staticmethod]
    #[pyo3(signature = (text, base_dir=None, source=None))]
    fn from_toml(
        py: Python<'_>,
        text: &str,
        base_dir: Option<PathBuf>,
        source: Option<PathBuf>,
    ) -> PyResult<Host> {
        let base_dir = match base_dir {
            Some(dir) => dir,
            None => std::env::current_dir().map_err(|e| {
                errors::policy_message(&format!("cannot read the current directory: {e}"))
            })?,
        };
        let source = source.unwrap_or_else(|| "toolvet.toml".into());
        let policy = toolvet_preset::policy_from_toml(text, &source, &base_dir)
            .map_err(|e| errors::policy_error(toolvet::Error::Config(e)))?;
        load(py, policy)
    }

    /// Vet one call. `call` is a `toolvet.Call` or a dict (`name`,
    /// `arguments`, optional `id`); `tool` and `context` are typed objects
    /// or dicts in the shape of docs/formats.md; `ticket` resumes an
    /// escalated call. Bad input raises `CallError`; a failure of the host
    /// is a deny verdict, never an exception.
    #[pyo3(signature = (call, tool=None, context=None, *, ticket=None))]
    fn check(
        &self,
        py: Python<'_>,
        call: &Bound<'_, PyAny>,
        tool: Option<&Bound<'_, PyAny>>,
        context: Option<&Bound<'_, PyAny>>,
        ticket: Option<&str>,
    ) -> PyResult<Verdict> {
        let request = parse(call, tool, context, ticket)?;
        let (tool, call_id) = (request.call.name.clone(), request.call.id.clone());
        let (host, labels) = (&self.inner, &*self.labels);
        let verdict = py.detach(move || vet(host, labels, request));
        Ok(Verdict::new(verdict, tool, call_id))
    }

    /// `await host.acheck(...)`: `check` for asyncio, on toolvet's worker
    /// threads. Bad input raises here, before anything is awaited.
    #[pyo3(signature = (call, tool=None, context=None, *, ticket=None))]
    fn acheck<'py>(
        &self,
        py: Python<'py>,
        call: &Bound<'py, PyAny>,
        tool: Option<&Bound<'py, PyAny>>,
        context: Option<&Bound<'py, PyAny>>,
        ticket: Option<&str>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let request = parse(call, tool, context, ticket)?;
        let pending = PendingCheck {
            host: self.inner.clone(),
            labels: self.labels.clone(),
            request,
        };
        py.import("toolvet._aio")?
            .getattr("run_blocking")?
            .call1((pending,))
    }

    /// Vet what a call's tool returned, after it ran: `call`, `tool` and
    /// `context` as for `check` (the same run: `context.run_id`, `agent`,
    /// `principal`); `result` is a `toolvet.ToolResult`, a `str` (text the
    /// model would read) or a dict in the shape of docs/formats.md
    /// (`{"content": {"text": …} | {"json": …}, "is_error": …}`). Returns a
    /// `ResultVerdict`: pass, redact (the model reads `content`) or withhold
    /// (it reads `reason`). The labels it raises are kept for the run, and
    /// its later calls (`check`) are vetted with them; a caller never sends
    /// `context.labels`. Bad input raises `CallError`; a failure of the
    /// host is a withhold, never an exception.
    #[pyo3(signature = (call, result, tool=None, context=None))]
    fn check_result(
        &self,
        py: Python<'_>,
        call: &Bound<'_, PyAny>,
        result: &Bound<'_, PyAny>,
        tool: Option<&Bound<'_, PyAny>>,
        context: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<ResultVerdict> {
        let item = parse_result(call, result, tool, context)?;
        let (tool, call_id) = (item.request.call.name.clone(), item.request.call.id.clone());
        let (host, labels) = (&self.inner, &*self.labels);
        let verdict = py.detach(move || vet_result(host, labels, item));
        Ok(ResultVerdict::new(verdict, tool, call_id))
    }

    /// `await host.acheck_result(...)`: `check_result` for asyncio, on
    /// toolvet's worker threads. Bad input raises here, before anything is
    /// awaited.
    #[pyo3(signature = (call, result, tool=None, context=None))]
    fn acheck_result<'py>(
        &self,
        py: Python<'py>,
        call: &Bound<'py, PyAny>,
        result: &Bound<'py, PyAny>,
        tool: Option<&Bound<'py, PyAny>>,
        context: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let item = parse_result(call, result, tool, context)?;
        let pending = PendingResult {
            host: self.inner.clone(),
            labels: self.labels.clone(),
            item,
        };
        py.import("toolvet._aio")?
            .getattr("run_blocking")?
            .call1((pending,))
    }

    /// Whether any check of the policy may vet results (one of contract
    /// 0.2 that exports `result-check`, or one that failed to load). When
    /// false, `check_result` passes every result untouched, so an adapter
    /// may skip it.
    fn vets_results(&self) -> bool {
        self.inner.vets_results()
    }

    /// The labels the results of the run `run_id` (of `agent` and
    /// `principal`, as the calls' context names them; `None`: the calls
    /// without a run id) raised so far, oldest first: copies, read only.
    #[pyo3(signature = (run_id=None, *, agent=None, principal=None))]
    fn run_labels<'py>(
        &self,
        py: Python<'py>,
        run_id: Option<String>,
        agent: Option<String>,
        principal: Option<String>,
    ) -> PyResult<Bound<'py, PyList>> {
        let context = toolvet::CallContext {
            agent,
            run_id,
            principal,
            ..Default::default()
        };
        let labels = &*self.labels;
        let kept = py.detach(|| labels.labels_blocking(&context));
        PyList::new(py, kept.into_iter().map(RunLabel::new))
    }

    /// The approvals of the policy, or `None` when it has no
    /// `[approvals]` table.
    #[getter]
    fn approvals(&self) -> Option<Approvals> {
        self.inner.approvals().map(Approvals::new)
    }

    /// Hex sha256 of the policy in force.
    #[getter]
    fn policy_sha256(&self) -> String {
        self.inner.policy_sha256()
    }

    /// The policy file in force.
    #[getter]
    fn policy(&self) -> String {
        self.inner.policy_source().display().to_string()
    }

    /// How many policies this host has loaded.
    #[getter]
    fn generation(&self) -> u64 {
        self.inner.generation()
    }

    /// One dict per configured check: `name`, `plugin`, `tools`, ...
    fn checks<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let text = serde_json::to_string(&self.inner.checks())
            .map_err(|e| pyo3::exceptions::PyRuntimeError::new_err(e.to_string()))?;
        json_to_py(py, &text)
    }

    /// Wait (at most `timeout_s`) until every decision so far is in the
    /// decision log. Raises `OSError` when it cannot be written.
    #[pyo3(signature = (timeout_s=10.0))]
    fn flush_decision_log(&self, py: Python<'_>, timeout_s: f64) -> PyResult<()> {
        let timeout = std::time::Duration::try_from_secs_f64(timeout_s)
            .map_err(|e| pyo3::exceptions::PyValueError::new_err(format!("`timeout_s`: {e}")))?;
        let host = self.inner.clone();
        py.detach(|| toolvet::block_on(async move { host.flush_decision_log(timeout).await }))
            .map_err(|e| pyo3::exceptions::PyOSError::new_err(e.to_string()))
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let names = self
            .inner
            .checks()
            .into_iter()
            .map(|c| c.name)
            .collect::<Vec<_>>();
        Ok(format!(
            "<toolvet.Host {} checks={} approvals={}>",
            self.inner.policy_source().display(),
            PyList::new(py, names)?.repr()?,
            if self.inner.approvals().is_some() {
                "on"
            } else {
                "off"
            }
        ))
    }
}

/// One call waiting to be vetted on a worker thread (`acheck`).
#[pyclass(module = "toolvet", frozen)]
#[derive(Debug)]
pub struct PendingCheck {
    host: toolvet::Host,
    labels: Arc<RunLabels>,
    request: toolvet::CallRequest,
}

#[pymethods]
impl PendingCheck {
    fn __call__(&self, py: Python<'_>) -> Verdict {
        let request = self.request.clone();
        let verdict = py.detach(move || vet(&self.host, &self.labels, request));
        Verdict::new(
            verdict,
            self.request.call.name.clone(),
            self.request.call.id.clone(),
        )
    }
}

/// One result waiting to be vetted on a worker thread (`acheck_result`).
#[pyclass(module = "toolvet", frozen)]
#[derive(Debug)]
pub struct PendingResult {
    host: toolvet::Host,
    labels: Arc<RunLabels>,
    item: ResultRequest,
}

#[pymethods]
impl PendingResult {
    fn __call__(&self, py: Python<'_>) -> ResultVerdict {
        let item = self.item.clone();
        let verdict = py.detach(move || vet_result(&self.host, &self.labels, item));
        ResultVerdict::new(
            verdict,
            self.item.request.call.name.clone(),
            self.item.request.call.id.clone(),
        )
    }
}
