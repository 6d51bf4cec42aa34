//! What a tool returned: credentials in a result are masked before the
//! model reads them, by the same detectors that vet calls
//! ([`secrets_detect::Detectors`]), and the run gets the label
//! [`SECRET_SEEN`] so later calls can be judged knowing the agent has seen
//! one.
//!
//! - A text result is masked span by span (`[redacted: aws-access-key]`);
//!   a private key from its `BEGIN` line to its `END` line.
//! - A JSON result is masked value by value: each string holding a secret
//!   is replaced whole (by its JSON Pointer).
//! - Generic high-entropy tokens are not masked unless
//!   `result_entropy = true`: results are full of hashes and ids.
//! - `result_action = "withhold"` withholds instead of masking. The
//!   reason names the kinds, never a secret.
//!
//! A label carries no values: a secret never leaves the check.

use crate::{Kind, SecretsGuard};
use secrets_detect::Hit;
use serde::Deserialize;
use serde_json::Value;
use toolvet_pdk::{Label, Mask, Redaction, ResultContent, ResultDecision, ToolResult};

/// The label raised on a result that held a credential.
pub const SECRET_SEEN: &str = "secret-seen";

/// The rule of a withheld result.
pub const RESULT_RULE: &str = "secrets.in-result";

/// What to do with a result that holds a credential (`result_action`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum OnResult {
    /// Mask each credential (default).
    #[default]
    Redact,
    /// Withhold the whole result.
    Withhold,
}

impl SecretsGuard {
    /// The answer about one result (see the module docs).
    ///
    /// # Errors
    /// A JSON result whose text is not JSON (the host never sends that),
    /// or a text past 4 GiB.
    pub fn vet_result(&self, result: &ToolResult) -> Result<ResultDecision, String> {
        let mut kinds: Vec<Kind> = Vec::new();
        let masks = match &result.content {
            ResultContent::Text(text) => {
                let aws = self.detectors.has_aws_id(text);
                let mut masks = Vec::new();
                for hit in self.result_hits(text, "", aws) {
                    let (start, end) = mask_span(text, &hit);
                    let span = |n: usize| {
                        u32::try_from(n).map_err(|_| "result: text past 4 GiB".to_string())
                    };
                    masks.push(Mask {
                        target: Redaction::Span(span(start)?, span(end)?),
                        kind: hit.kind.id().into(),
                    });
                    kinds.push(hit.kind);
                }
                masks
            }
            ResultContent::Json(json) => {
                let value: Value = serde_json::from_str(json)
                    .map_err(|e| format!("result: not JSON text: {e}"))?;
                let aws = self.detectors.has_aws_id(json);
                let mut masks = Vec::new();
                for (pointer, key, text) in toolvet_pdk::json::string_pointers(&value) {
                    if let Some(hit) = self.result_hits(text, &key, aws).into_iter().next() {
                        masks.push(Mask {
                            target: Redaction::Pointer(pointer),
                            kind: hit.kind.id().into(),
                        });
                        kinds.push(hit.kind);
                    }
                }
                masks
            }
        };
        if masks.is_empty() {
            return Ok(ResultDecision::abstain());
        }
        kinds.sort();
        kinds.dedup();
        let label = Label::new(SECRET_SEEN);
        Ok(match self.on_result {
            OnResult::Redact => ResultDecision::redact(masks).label(label),
            OnResult::Withhold => {
                let names: Vec<&str> = kinds.iter().map(|k| k.id()).collect();
                ResultDecision::withhold(
                    RESULT_RULE,
                    format!(
                        "the result held credentials ({}); it was withheld",
                        names.join(", ")
                    ),
                )
                .label(label)
            }
        })
    }

    /// The detectors' hits in one text of a result, without ignored kinds
    /// and (unless asked) without generic high-entropy tokens.
    fn result_hits(&self, text: &str, key: &str, aws: bool) -> Vec<Hit> {
        let mut hits = self.detectors.scan(text, key, aws);
        hits.retain(|h| {
            !self.ignored.contains(&h.kind) && (self.result_entropy || h.kind != Kind::HighEntropy)
        });
        hits
    }
}

/// The span to mask for `hit`: a private key from its header to the end of
/// its `-----END … -----` line (to the end of the text when there is
/// none), anything else as found.
fn mask_span(text: &str, hit: &Hit) -> (usize, usize) {
    if hit.kind != Kind::PrivateKey {
        return (hit.start, hit.end);
    }
    let after = &text[hit.end..];
    let end = after
        .find("-----END ")
        .and_then(|at| {
            let tail = &after[at + 9..];
            tail.find("-----").map(|close| hit.end + at + 9 + close + 5)
        })
        .unwrap_or(text.len());
    (hit.start, end)
}

#[cfg(test)]
mod tests {
    use super::*;
    use toolvet_pdk::{Check, ResultAction};

    fn guard(settings: &str) -> SecretsGuard {
        SecretsGuard::from_settings_json(settings).unwrap()
    }

    fn masked(text: &str, d: &ResultDecision) -> String {
        let ResultAction::Redact(masks) = &d.action else {
            panic!("not a redact: {d:?}")
        };
        let mut out = text.to_string();
        let mut spans: Vec<(usize, usize, &str)> = masks
            .iter()
            .map(|m| match m.target {
                Redaction::Span(s, e) => (s as usize, e as usize, m.kind.as_str()),
                Redaction::Pointer(_) => panic!("a pointer on text"),
            })
            .collect();
        spans.sort();
        for (s, e, k) in spans.into_iter().rev() {
            out.replace_range(s..e, &format!("[{k}]"));
        }
        out
    }

    #[test]
    fn credentials_in_a_text_result_are_masked_and_labelled() {
        let g = guard("{}");
        let text = "export AWS_ACCESS_KEY_ID=AKIAHBRPOIGF3CBFNOBM\nOK: 3 files\n\
                    -----BEGIN OPENSSH PRIVATE KEY-----\n\
                    b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n\
                    QyNTUxOQAAACD0a2V5LWJvZHktdGhhdC1zaG91bGQtYmUtbWFza2VkLWVudGlyZWx5AAAA\n\
                    -----END OPENSSH PRIVATE KEY-----\ndone";
        let d = g.vet_result(&ToolResult::text(text)).unwrap();
        assert_eq!(d.labels, vec![Label::new(SECRET_SEEN)]);
        assert_eq!(
            masked(text, &d),
            "export AWS_ACCESS_KEY_ID=[aws-access-key]\nOK: 3 files\n[private-key]\ndone"
        );
    }

    #[test]
    fn a_json_result_is_masked_by_pointer_and_clean_results_pass() {
        let g = guard("{}");
        let json = r#"{"items": [{"name": "ci", "value": "ghp_h7yfJs1ON43xKmTecQoXsf2o3gyrDO1xkxwn"}, {"name": "x/y", "value": "plain"}]}"#;
        let d = g
            .vet_result(&ToolResult {
                content: ResultContent::Json(json.into()),
                is_error: false,
            })
            .unwrap();
        let ResultAction::Redact(masks) = &d.action else {
            panic!("{d:?}")
        };
        assert_eq!(masks.len(), 1);
        assert_eq!(masks[0].target, Redaction::Pointer("/items/0/value".into()));
        assert_eq!(masks[0].kind, "github-token");
        let clean = "commit 9fceb02d0ae598e95dc970b74767f19372d61af8\nAuthor: Dana";
        assert_eq!(
            g.vet_result(&ToolResult::text(clean)).unwrap(),
            ResultDecision::abstain()
        );
    }

    #[test]
    fn withhold_names_kinds_never_the_secret() {
        let g = guard(r#"{"result_action": "withhold"}"#);
        let d = g
            .vet_result(&ToolResult::text("key AKIAHBRPOIGF3CBFNOBM"))
            .unwrap();
        let ResultAction::Withhold(r) = &d.action else {
            panic!("{d:?}")
        };
        assert_eq!(r.rule.as_deref(), Some(RESULT_RULE));
        assert!(r.message.contains("aws-access-key"), "{}", r.message);
        assert!(!r.message.contains("AKIA"), "{}", r.message);
        let e = SecretsGuard::from_settings_json(r#"{"result_action": "allow"}"#).unwrap_err();
        assert!(
            e.starts_with("settings.result_action: unknown variant"),
            "{e}"
        );
    }
}
