//! `NativeHost`: a loaded policy that vets calls, and its approvals.
//!
//! The asynchronous methods return promises resolved on napi-rs's Tokio
//! runtime: loading, checking and the ledger never run on the JavaScript
//! thread. `checkSync` is the exception, for hooks that must answer
//! synchronously: it runs the checks on the calling (JavaScript) thread
//! and blocks its event loop until the verdict is ready.

use crate::error::{NativeError, approval_error, invalid_call, load_error, no_approvals};
use crate::results::{NativeResultVerdict, ToolResult, invalid_result, result_request};
use crate::types::{
    ApprovalRequest, CallContext, CheckSummary, ToolCall, ToolInfo, Verdict, call_request,
};
use napi::Either;
use napi_derive::napi;
use std::path::Path;

/// A loaded policy (`toolvet::Host`). Make one with [`load_file`] or
/// [`load_toml`]; every method may be called concurrently.
///
/// It keeps the labels each run's results raised
/// ([`toolvet::run_labels::RunLabels`], keyed by `runId` with the
/// principal and agent; calls without a `runId` share one run per
/// principal and agent): every later call of the run is vetted with them
/// in `context.labels`, which no caller may send.
#[napi]
#[derive(Debug)]
pub struct NativeHost {
    host: toolvet::Host,
    labels: toolvet::run_labels::RunLabels,
}

/// Load every check of the policy file at `path`.
///
/// A failure is returned, not thrown: `TOOLVET_CONFIG` for a file that
/// cannot be read or is not a valid policy, `TOOLVET_LOAD` for checks (or
/// the ledger, key or decision log) that fail to load, with the CLI's
/// messages.
#[napi]
pub async fn load_file(path: String) -> Either<NativeHost, NativeError> {
    let policy = match toolvet_preset::policy_from_file(Path::new(&path)) {
        Ok(policy) => policy,
        Err(e) => return Either::B(load_error(&toolvet::Error::Config(e))),
    };
    load(policy).await
}

/// Load the policy `text`; relative paths in it (plugins, ledger, decision
/// log) resolve against `base_dir`, and `source` (default `<inline>`)
/// names it in error messages.
///
/// Failures as for [`load_file`].
#[napi]
pub async fn load_toml(
    text: String,
    base_dir: String,
    source: Option<String>,
) -> Either<NativeHost, NativeError> {
    let source = source.unwrap_or_else(|| "<inline>".into());
    let policy =
        match toolvet_preset::policy_from_toml(&text, Path::new(&source), Path::new(&base_dir)) {
            Ok(policy) => policy,
            Err(e) => return Either::B(load_error(&toolvet::Error::Config(e))),
        };
    load(policy).await
}

/// Load `policy` with every front end's preset (`toolvet_preset`: the
/// Postgres ledger, the decision log's redactor), as the CLI does.
async fn load(policy: toolvet::Policy) -> Either<NativeHost, NativeError> {
    match toolvet::Host::load_with(policy, toolvet_preset::options()).await {
        Ok(host) => Either::A(NativeHost::guarded(host)),
        Err(e) => Either::B(load_error(&e)),
    }
}

impl NativeHost {
    /// `host`, its approvals guarded as those of a front end in the
    /// agent's process, running as its user: the ledger is the agent's
    /// file, so without reviewer keys only decisions recorded through
    /// this process count ([`toolvet::approval::Approvals::guard_same_user`];
    /// review-s6 F4).
    fn guarded(host: toolvet::Host) -> NativeHost {
        host.guard_same_user();
        NativeHost {
            host,
            labels: toolvet::run_labels::RunLabels::default(),
        }
    }

    /// The core's request for a call, with its run's labels; else the
    /// deny verdict to answer it with (an invalid call, labels sent).
    async fn labelled(
        &self,
        call: ToolCall,
        tool: Option<ToolInfo>,
        context: Option<CallContext>,
        ticket: Option<String>,
    ) -> Result<toolvet::CallRequest, Box<toolvet::Verdict>> {
        let mut request =
            call_request(call, tool, context, ticket).map_err(|e| Box::new(invalid_call(&e)))?;
        match self.labels.label_call(&self.host, &mut request).await {
            Some(refused) => Err(Box::new(refused)),
            None => Ok(request),
        }
    }

    /// [`NativeHost::labelled`] on the calling thread.
    fn labelled_blocking(
        &self,
        call: ToolCall,
        tool: Option<ToolInfo>,
        context: Option<CallContext>,
        ticket: Option<String>,
    ) -> Result<toolvet::CallRequest, Box<toolvet::Verdict>> {
        let mut request =
            call_request(call, tool, context, ticket).map_err(|e| Box::new(invalid_call(&e)))?;
        match self.labels.label_call_blocking(&self.host, &mut request) {
            Some(refused) => Err(Box::new(refused)),
            None => Ok(request),
        }
    }
}

#[napi]
impl NativeHost {
    /// Vet one call; with `ticket`, a resumed call (the ticket of the
    /// approval request its first ask got). Resolves to the verdict, never
    /// rejects: a check that fails answers its `on_error` decision, a
    /// failure of the host is a deny, and so is a call that cannot be
    /// vetted (rule `toolvet.invalid-call`, the CLI's message).
    #[napi]
    pub async fn check(
        &self,
        call: ToolCall,
        tool: Option<ToolInfo>,
        context: Option<CallContext>,
        ticket: Option<String>,
    ) -> Verdict {
        match self.labelled(call, tool, context, ticket).await {
            Ok(request) => self.host.check(&request).await.into(),
            Err(refused) => (*refused).into(),
        }
    }

    /// [`NativeHost::check`] on the calling thread: **blocks the event
    /// loop** until the verdict is ready. For hooks that must answer
    /// synchronously; use `check` everywhere else.
    #[napi]
    pub fn check_sync(
        &self,
        call: ToolCall,
        tool: Option<ToolInfo>,
        context: Option<CallContext>,
        ticket: Option<String>,
    ) -> Verdict {
        match self.labelled_blocking(call, tool, context, ticket) {
            Ok(request) => self.host.check_blocking(&request).into(),
            Err(refused) => (*refused).into(),
        }
    }

    /// What the checks would decide about a call that is not being made:
    /// no approval request is opened, no ticket read, nothing recorded
    /// (`toolvet::Host::preview`; for decision tools). Never rejects, as
    /// [`NativeHost::check`].
    #[napi]
    pub async fn preview(
        &self,
        call: ToolCall,
        tool: Option<ToolInfo>,
        context: Option<CallContext>,
    ) -> Verdict {
        match self.labelled(call, tool, context, None).await {
            Ok(request) => self.host.preview(&request).await.into(),
            Err(refused) => (*refused).into(),
        }
    }

    /// Vet what `call` returned (`toolvet::Host::check_result`), with the
    /// labels its run's earlier results raised; the labels this result
    /// raises are kept for the run's later calls (and results) when
    /// `context` names a `runId`. Resolves to the verdict, never rejects:
    /// a result check that fails answers its `on_error` (by default the
    /// result is withheld), and a result that cannot be vetted (a
    /// malformed call, a context carrying `labels`) is withheld (rule
    /// `toolvet.invalid-call`, the CLI's message).
    #[napi]
    pub async fn check_result(
        &self,
        call: ToolCall,
        result: ToolResult,
        context: Option<CallContext>,
        tool: Option<ToolInfo>,
    ) -> NativeResultVerdict {
        match result_request(call, result, tool, context) {
            Ok(r) => self
                .labels
                .check_result(&self.host, &r.request, &r.result)
                .await
                .into(),
            Err(e) => invalid_result(&e).into(),
        }
    }

    /// [`NativeHost::check_result`] on the calling thread: **blocks the
    /// event loop** until the verdict is ready.
    #[napi]
    pub fn check_result_sync(
        &self,
        call: ToolCall,
        result: ToolResult,
        context: Option<CallContext>,
        tool: Option<ToolInfo>,
    ) -> NativeResultVerdict {
        match result_request(call, result, tool, context) {
            Ok(r) => self
                .labels
                .check_result_blocking(&self.host, &r.request, &r.result)
                .into(),
            Err(e) => invalid_result(&e).into(),
        }
    }

    /// Whether any check of the policy vets results (a check of contract
    /// 0.2 that exports `result-check`, or one that failed to load, whose
    /// answer is its `on_error`): when false, `checkResult` always passes
    /// and a front end may skip it.
    #[napi(getter)]
    pub fn vets_results(&self) -> bool {
        self.host.vets_results()
    }

    /// One page of approval requests, oldest first: `status` is
    /// `pending` (default), `approved`, `rejected`, `consumed`, `expired`
    /// or `all`; `limit` 1..=500 (default 100); `after` the previous
    /// page's last id.
    ///
    /// Failures (returned): `TOOLVET_APPROVAL_INVALID_QUERY`,
    /// `TOOLVET_APPROVAL_UNAVAILABLE`, `TOOLVET_APPROVAL_UNSUPPORTED` (no
    /// `[approvals]` table).
    #[napi]
    pub async fn approvals(
        &self,
        status: Option<String>,
        limit: Option<f64>,
        after: Option<String>,
    ) -> Either<Vec<ApprovalRequest>, NativeError> {
        let listed = async {
            let approvals = self.approvals_handle()?;
            let status = match status.as_deref() {
                None => toolvet::approval::StatusFilter::Pending,
                Some(s) => s.parse().map_err(|e| approval_error(&e))?,
            };
            let query = toolvet::approval::ListQuery {
                status,
                // A JavaScript number: anything but a whole 1..=500 is
                // the core's `invalid-query` (0 stands for "out of range").
                limit: limit.map_or(100, |l| {
                    if l.fract() == 0.0 && (1.0..=1e6).contains(&l) {
                        l as usize
                    } else {
                        0
                    }
                }),
                after,
            };
            approvals.list(&query).await.map_err(|e| approval_error(&e))
        };
        match listed.await {
            Ok(page) => Either::A(page.into_iter().map(ApprovalRequest::from).collect()),
            Err(e) => Either::B(e),
        }
    }

    /// The approval request `id`, with its status as of now.
    ///
    /// Failures (returned): `TOOLVET_APPROVAL_NOT_FOUND`,
    /// `TOOLVET_APPROVAL_UNAVAILABLE`, `TOOLVET_APPROVAL_UNSUPPORTED`.
    #[napi]
    pub async fn approval(&self, id: String) -> Either<ApprovalRequest, NativeError> {
        let found = match self.approvals_handle() {
            Ok(approvals) => approvals.get(&id).await.map_err(|e| approval_error(&e)),
            Err(e) => Err(e),
        };
        match found {
            Ok(request) => Either::A(request.into()),
            Err(e) => Either::B(e),
        }
    }

    /// Record a person's decision about request `id`: `decision` is
    /// `approve` or `reject`, `reviewer` says who, `message` is recorded
    /// (and is what the model reads on a rejection), `scope` is `once`
    /// (default) or `run` (approvals only). The first decision stands.
    /// `shown`, when given, is the request's `reviewSha256` as the
    /// reviewer read it: an approval is then recorded only while the
    /// request still has that digest (else `TOOLVET_APPROVAL_CHANGED`).
    ///
    /// Failures (returned): `TOOLVET_APPROVAL_INVALID_REVIEW` (a missing
    /// reviewer, an unknown decision or scope: never taken for an
    /// approval), `TOOLVET_APPROVAL_NOT_FOUND`,
    /// `TOOLVET_APPROVAL_ALREADY_DECIDED`, `TOOLVET_APPROVAL_EXPIRED`,
    /// `TOOLVET_APPROVAL_CHANGED`, `TOOLVET_APPROVAL_UNAVAILABLE`,
    /// `TOOLVET_APPROVAL_UNSUPPORTED`.
    #[napi]
    pub async fn decide(
        &self,
        id: String,
        decision: String,
        reviewer: String,
        message: Option<String>,
        scope: Option<String>,
        shown: Option<String>,
    ) -> Either<ApprovalRequest, NativeError> {
        let decided = async {
            let approvals = self.approvals_handle()?;
            let review = toolvet::approval::Review::parse(
                &decision,
                &reviewer,
                message.as_deref(),
                scope.as_deref(),
            )
            .map_err(|e| approval_error(&e))?;
            match shown {
                Some(shown) => approvals.decide_shown(&id, review, &shown).await,
                None => approvals.decide(&id, review).await,
            }
            .map_err(|e| approval_error(&e))
        };
        match decided.await {
            Ok(request) => Either::A(request.into()),
            Err(e) => Either::B(e),
        }
    }

    /// Hex sha256 of the policy in force.
    #[napi(getter)]
    pub fn policy_sha256(&self) -> String {
        self.host.policy_sha256()
    }

    /// The policy file in force (or the `source` of an inline policy).
    #[napi(getter)]
    pub fn policy_source(&self) -> String {
        self.host.policy_source().display().to_string()
    }

    /// How many policies this host has loaded (1 until a reload).
    #[napi(getter)]
    pub fn generation(&self) -> u32 {
        u32::try_from(self.host.generation()).unwrap_or(u32::MAX)
    }

    /// Whether the policy has an `[approvals]` table.
    #[napi(getter)]
    pub fn has_approvals(&self) -> bool {
        self.host.approvals().is_some()
    }

    /// One summary per configured check, in policy order.
    #[napi]
    pub fn checks(&self) -> Vec<CheckSummary> {
        self.host
            .checks()
            .into_iter()
            .map(CheckSummary::from)
            .collect()
    }

    fn approvals_handle(&self) -> Result<toolvet::approval::Approvals, NativeError> {
        self.host
            .approvals()
            .ok_or_else(|| no_approvals(&self.host.policy_source()))
    }
}
