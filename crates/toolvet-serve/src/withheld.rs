//! The results a check withheld, for the reviewer page: the last
//! [`MAX_WITHHELD`] of this server (`POST /v1/check-result` and ExtMcp's
//! `CheckResponse`), newest first, each with when, through what, whose
//! run, which tool and call, the rule and the reason; never the content.
//!
//! Kept in this server's memory only (a restart empties it, replicas do not
//! share it): it tells a reviewer what the agents were kept from reading,
//! the decision log is the record. Every text is shown as the approval
//! requests' are ([`crate::shown`]): the reason through
//! [`toolvet::display::visible`], the names through
//! [`toolvet::display::identifier`]; the page sets them as text, never
//! HTML.

use serde::Serialize;
use std::collections::VecDeque;
use std::sync::Mutex;
use toolvet::CallRequest;
use toolvet::approval::UnixMillis;
use toolvet::display::{identifier, visible};
use toolvet::tool_result::ResultVerdict;

/// Most withheld results kept; the oldest is forgotten first.
pub const MAX_WITHHELD: usize = 100;

/// One withheld result, its texts as a person reads them.
#[derive(Debug, Clone, Serialize)]
pub struct WithheldResult {
    /// When it was withheld (RFC 3339).
    pub at: UnixMillis,
    /// Through what: `check-result` (`POST /v1/check-result`) or `ext-mcp`.
    pub via: &'static str,
    /// The principal of the call's run.
    pub principal: Option<String>,
    /// The agent.
    pub agent: Option<String>,
    /// The run.
    pub run_id: Option<String>,
    /// The tool whose result it was.
    pub tool: String,
    /// The call's id (empty when the caller gave none).
    pub call_id: String,
    /// The rule that withheld it.
    pub rule: Option<String>,
    /// Why, as the model read it.
    pub reason: String,
}

impl WithheldResult {
    /// The entry for `verdict`, which withheld the result of `request`.
    pub fn new(via: &'static str, request: &CallRequest, verdict: &ResultVerdict) -> Self {
        let name = |s: &str| identifier(s).into_owned();
        let context = &request.context;
        WithheldResult {
            at: UnixMillis::now(),
            via,
            principal: context.principal.as_deref().map(name),
            agent: context.agent.as_deref().map(name),
            run_id: context.run_id.as_deref().map(name),
            tool: name(&request.call.name),
            call_id: name(&request.call.id),
            rule: verdict.rule.as_deref().map(name),
            reason: visible(verdict.reason.as_deref().unwrap_or_default()).into_owned(),
        }
    }
}

/// The last [`MAX_WITHHELD`] withheld results.
#[derive(Debug, Default)]
pub(crate) struct Withheld {
    kept: Mutex<VecDeque<WithheldResult>>,
}

impl Withheld {
    /// Keep `entry`, forgetting the oldest beyond [`MAX_WITHHELD`].
    pub(crate) fn record(&self, entry: WithheldResult) {
        let mut kept = self.kept.lock().unwrap_or_else(|p| p.into_inner());
        if kept.len() >= MAX_WITHHELD {
            kept.pop_front();
        }
        kept.push_back(entry);
    }

    /// Every one kept, newest first.
    pub(crate) fn newest_first(&self) -> Vec<WithheldResult> {
        let kept = self.kept.lock().unwrap_or_else(|p| p.into_inner());
        kept.iter().rev().cloned().collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_last_hundred_newest_first() {
        let withheld = Withheld::default();
        let request = CallRequest::new("fetch", &serde_json::json!({})).unwrap();
        for i in 0..(MAX_WITHHELD + 5) {
            let verdict = ResultVerdict::withheld_by_host("r", format!("reason {i}\u{202e}"));
            withheld.record(WithheldResult::new("check-result", &request, &verdict));
        }
        let all = withheld.newest_first();
        assert_eq!(all.len(), MAX_WITHHELD);
        assert_eq!(
            all[0].reason,
            format!("reason {}\\u{{202e}}", MAX_WITHHELD + 4)
        );
        assert_eq!(all[MAX_WITHHELD - 1].reason, "reason 5\\u{202e}");
    }
}
