//! Tickets: what an escalate verdict hands the caller, and what the
//! resumed call brings back.
//!
//! A ticket is `tv1.<claims>.<tag>`: the claims are a JSON object
//! (base64url, no padding) binding the request id to the call and an
//! expiry; the tag is HMAC-SHA256 over `tv1.<claims>` with the policy's
//! key (base64url). The claims also name the key (`kid`, a digest of it)
//! and the realm, so a ticket from another key or another policy's ledger
//! is told apart from a tampered one. The realm is a digest of the ledger's
//! location (`ledger:` and 32 hex digits) unless the policy names one, so a
//! ticket never carries a path or a URL. The principal (`prn`) and agent
//! (`agt`) that asked are bound too: another principal or agent cannot use
//! the ticket; and so are the call's working directory, agent tool and
//! MCP server (`at`, the context attributes of
//! [`super::BOUND_ATTRIBUTES`] the call had): the same command in another
//! directory, or the same bare tool name on another server, is another
//! call.
//!
//! ```json
//! {"v":2,"kid":"3f2a…","realm":"ledger:9c1e…","id":"apr_…","tool":"bash",
//!  "args":"<sha256>","call":"call_7","run":"run-1","prn":"alice","agt":"coder",
//!  "at":{"agent_tool":"Bash","cwd":"/home/alice/project"},"exp":1764585600000}
//! ```
//!
//! Version 1 tickets (an earlier toolvet: the realm was the ledger's path,
//! no principal or agent) are refused as foreign.

use super::rules;
use super::types::{ApprovalRequest, UnixMillis};
use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use hmac::{Hmac, Mac};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::sync::Arc;

/// The prefix of every ticket this host issues.
const PREFIX: &str = "tv1.";

/// The claims version this host issues and accepts.
const VERSION: u8 = 2;

/// Longest ticket accepted, in bytes; anything longer is malformed.
pub(crate) const MAX_TICKET_BYTES: usize = 4096;

/// What a ticket claims.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Claims {
    /// Claims version ([`VERSION`]).
    pub v: u8,
    /// Which key signed it: 16 hex digits of a digest of the key.
    pub kid: String,
    /// The realm it was issued in.
    pub realm: String,
    /// The approval request.
    pub id: String,
    /// The tool name.
    pub tool: String,
    /// The arguments' canonical sha256.
    pub args: String,
    /// The call id.
    pub call: String,
    /// The run id.
    pub run: Option<String>,
    /// The principal that asked.
    pub prn: Option<String>,
    /// The agent that asked.
    pub agt: Option<String>,
    /// The call's bound context attributes
    /// ([`super::BOUND_ATTRIBUTES`]: `cwd`, `agent_tool`, `mcp.server`;
    /// absent when it had none).
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub at: std::collections::BTreeMap<String, String>,
    /// Expiry, ms since the epoch.
    pub exp: u64,
}

/// Why a ticket is refused, before any ledger is asked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Refusal {
    /// The `approval.*` rule.
    pub rule: &'static str,
    /// What is wrong, for the model and the log.
    pub reason: String,
}

fn refuse(rule: &'static str, reason: impl Into<String>) -> Refusal {
    Refusal {
        rule,
        reason: reason.into(),
    }
}

/// Signs and verifies the tickets of one realm. Never prints its key.
#[derive(Clone)]
pub(crate) struct Signer {
    key: Arc<[u8]>,
    kid: String,
    realm: String,
}

impl std::fmt::Debug for Signer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Signer")
            .field("kid", &self.kid)
            .field("realm", &self.realm)
            .finish_non_exhaustive()
    }
}

impl Signer {
    pub(crate) fn new(key: Vec<u8>, realm: String) -> Signer {
        let mut digest = Sha256::new();
        digest.update(b"toolvet approval key id\0");
        digest.update(&key);
        let kid = hex::encode(&digest.finalize()[..8]);
        Signer {
            key: key.into(),
            kid,
            realm,
        }
    }

    pub(crate) fn realm(&self) -> &str {
        &self.realm
    }

    fn mac(&self) -> Hmac<Sha256> {
        Hmac::<Sha256>::new_from_slice(&self.key).expect("HMAC takes keys of any length")
    }

    /// HMAC-SHA256 with this key over `domain` then `bytes` (32 bytes):
    /// the seal of a decision recorded through toolvet
    /// ([`super::reviewer`]). Another domain than tickets', so a seal is
    /// never a ticket's tag.
    pub(crate) fn seal(&self, domain: &[u8], bytes: &[u8]) -> Vec<u8> {
        let mut mac = self.mac();
        mac.update(domain);
        mac.update(bytes);
        mac.finalize().into_bytes().to_vec()
    }

    /// Whether `tag` is the seal of `bytes` in `domain` (compared in
    /// constant time).
    pub(crate) fn seal_holds(&self, domain: &[u8], bytes: &[u8], tag: &[u8]) -> bool {
        let mut mac = self.mac();
        mac.update(domain);
        mac.update(bytes);
        mac.verify_slice(tag).is_ok()
    }

    /// The ticket of `request`: deterministic, so asking again about the
    /// same request hands out the same ticket.
    pub(crate) fn issue(&self, request: &ApprovalRequest) -> String {
        let claims = Claims {
            v: VERSION,
            kid: self.kid.clone(),
            realm: self.realm.clone(),
            id: request.id.clone(),
            tool: request.call.tool.clone(),
            args: request.call.arguments_sha256.clone(),
            call: request.call.call_id.clone(),
            run: request.call.run_id.clone(),
            prn: request.principal.clone(),
            agt: request.agent.clone(),
            at: request.call.attributes.clone(),
            exp: request.expires_at.0,
        };
        let json = serde_json::to_vec(&claims).expect("claims serialize");
        let mut signed = String::with_capacity(PREFIX.len() + json.len() * 4 / 3 + 48);
        signed.push_str(PREFIX);
        signed.push_str(&URL_SAFE_NO_PAD.encode(json));
        let mut mac = self.mac();
        mac.update(signed.as_bytes());
        let tag = URL_SAFE_NO_PAD.encode(mac.finalize().into_bytes());
        signed.push('.');
        signed.push_str(&tag);
        signed
    }

    /// Check `ticket`'s shape, signature, key, realm and expiry at `now`.
    /// The claims are returned only when every check passes.
    pub(crate) fn verify(&self, ticket: &str, now: UnixMillis) -> Result<Claims, Refusal> {
        let malformed = |why: &str| {
            refuse(
                rules::MALFORMED,
                format!(
                    "the approval ticket is malformed ({why}); resume with the ticket from the escalate verdict, unchanged"
                ),
            )
        };
        if ticket.len() > MAX_TICKET_BYTES {
            return Err(malformed("too long"));
        }
        let Some(rest) = ticket.strip_prefix(PREFIX) else {
            return Err(malformed("no `tv1.` prefix"));
        };
        let Some((claims_b64, tag_b64)) = rest.split_once('.') else {
            return Err(malformed("no signature"));
        };
        let claims_json = URL_SAFE_NO_PAD
            .decode(claims_b64)
            .map_err(|_| malformed("the claims are not base64url"))?;
        let tag = URL_SAFE_NO_PAD
            .decode(tag_b64)
            .map_err(|_| malformed("the signature is not base64url"))?;
        /// Only the version, to tell an older ticket from an unreadable one.
        #[derive(Deserialize)]
        struct Version {
            v: u8,
        }
        match serde_json::from_slice::<Version>(&claims_json) {
            Ok(Version { v: 1 }) => {
                return Err(refuse(
                    rules::FOREIGN,
                    "the approval ticket was issued by an earlier toolvet (version 1 tickets \
                     bind no principal or agent); make the call again to ask a person anew",
                ));
            }
            Ok(Version { v: VERSION }) => {}
            Ok(_) => return Err(malformed("unknown version")),
            Err(_) => return Err(malformed("unreadable claims")),
        }
        let claims: Claims =
            serde_json::from_slice(&claims_json).map_err(|_| malformed("unreadable claims"))?;
        let mut mac = self.mac();
        mac.update(&ticket.as_bytes()[..PREFIX.len() + claims_b64.len()]);
        if mac.verify_slice(&tag).is_err() {
            return Err(if claims.kid != self.kid {
                refuse(
                    rules::FOREIGN,
                    "the approval ticket was signed with another key (another policy or server); \
                     it cannot approve calls here",
                )
            } else {
                refuse(
                    rules::FORGED,
                    "the approval ticket's signature does not match: it was forged or altered",
                )
            });
        }
        if claims.realm != self.realm {
            return Err(refuse(
                rules::FOREIGN,
                "the approval ticket was issued for another policy's approvals; it cannot \
                 approve calls here",
            ));
        }
        if now.0 >= claims.exp {
            return Err(refuse(
                rules::EXPIRED,
                format!(
                    "the approval ticket expired at {}; make the call again to ask a person anew",
                    UnixMillis(claims.exp)
                ),
            ));
        }
        Ok(claims)
    }
}

/// A pending request for `bash` in run `r1`, created at 1,000 ms and
/// expiring at 10,000 ms (Unix time): what the tests and the fuzz target
/// issue tickets for.
#[cfg(any(test, fuzzing))]
fn sample_request() -> ApprovalRequest {
    use crate::approval::{ApprovalStatus, BoundCall};
    ApprovalRequest {
        id: "apr_00112233445566778899aabbccddeeff".into(),
        status: ApprovalStatus::Pending,
        call: BoundCall {
            tool: "bash".into(),
            arguments_sha256: "ab".repeat(32),
            call_id: "c1".into(),
            run_id: Some("r1".into()),
            attributes: Default::default(),
        },
        arguments: serde_json::value::RawValue::from_string("{}".into()).expect("JSON"),
        agent: None,
        principal: None,
        escalations: vec![],
        created_at: UnixMillis(1_000),
        expires_at: UnixMillis(10_000),
        review: None,
        consumed_at: None,
    }
}

/// The fuzz target `ticket_parse` (`fuzz/fuzz_targets/ticket_parse.rs`;
/// cargo-fuzz builds with `--cfg fuzzing`; the tests below replay its
/// corpus): [`Signer::verify`] on
/// arbitrary text never panics and accepts nothing but the ticket the
/// signer issued; and a valid ticket with one byte changed (at the
/// position and by the value the input picks) is never accepted.
#[cfg(any(test, fuzzing))]
#[cfg_attr(
    not(fuzzing),
    allow(
        unreachable_pub,
        reason = "public for `toolvet::fuzzing::ticket`, which exists only under cfg(fuzzing)"
    )
)]
pub fn fuzz_verify(data: &[u8]) {
    let signer = Signer::new(vec![7; 32], "fuzz-realm".into());
    let valid = signer.issue(&sample_request());
    let now = UnixMillis(5_000);
    assert!(
        signer.verify(&valid, now).is_ok(),
        "the issued ticket verifies"
    );
    let text = String::from_utf8_lossy(data);
    if signer.verify(&text, now).is_ok() {
        assert_eq!(text, valid, "only the issued ticket is accepted");
    }
    if let [at, flip, ..] = *data {
        let mut bytes = valid.clone().into_bytes();
        let at = usize::from(at) * bytes.len() / 256;
        bytes[at] ^= flip.max(1);
        let mutated = String::from_utf8_lossy(&bytes);
        assert!(
            signer.verify(&mutated, now).is_err(),
            "a ticket with byte {at} changed was accepted: {mutated}"
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The `ticket_parse` fuzz target's seeds and locally saved crashes
    /// (`fuzz/corpus/ticket_parse/`, `fuzz/artifacts/ticket_parse/`), each
    /// whole and cut at every byte, hold its property.
    #[test]
    fn the_fuzz_corpus_holds_the_property() {
        let fuzz = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz");
        let mut replayed = 0;
        for kind in ["corpus", "artifacts"] {
            let Ok(entries) = std::fs::read_dir(fuzz.join(kind).join("ticket_parse")) else {
                continue;
            };
            for entry in entries {
                let input =
                    std::fs::read(entry.expect("directory entry").path()).expect("readable");
                for end in 0..=input.len() {
                    fuzz_verify(&input[..end]);
                    replayed += 1;
                }
            }
        }
        assert!(replayed > 0, "fuzz/corpus/ticket_parse/ holds no seed");
    }

    fn request() -> ApprovalRequest {
        sample_request()
    }

    fn signer() -> Signer {
        Signer::new(vec![1; 32], "realm-a".into())
    }

    #[test]
    fn an_issued_ticket_verifies_and_is_deterministic() {
        let s = signer();
        let t = s.issue(&request());
        assert_eq!(t, s.issue(&request()));
        let claims = s.verify(&t, UnixMillis(5_000)).unwrap();
        assert_eq!(claims.id, request().id);
        assert_eq!(claims.run.as_deref(), Some("r1"));
    }

    #[test]
    fn expiry_other_keys_and_realms_are_told_apart() {
        let t = signer().issue(&request());
        let rule = |s: &Signer, t: &str, now| s.verify(t, UnixMillis(now)).unwrap_err().rule;
        assert_eq!(rule(&signer(), &t, 10_000), rules::EXPIRED);
        assert_eq!(
            rule(&Signer::new(vec![2; 32], "realm-a".into()), &t, 5_000),
            rules::FOREIGN
        );
        assert_eq!(
            rule(&Signer::new(vec![1; 32], "realm-b".into()), &t, 5_000),
            rules::FOREIGN
        );
        assert_eq!(rule(&signer(), "garbage", 5_000), rules::MALFORMED);
        assert_eq!(rule(&signer(), &"x".repeat(5000), 5_000), rules::MALFORMED);
    }

    #[test]
    fn any_changed_claim_is_forged() {
        let s = signer();
        let t = s.issue(&request());
        let (head, tag) = t.rsplit_once('.').unwrap();
        let claims_b64 = head.strip_prefix(PREFIX).unwrap();
        let mut claims: serde_json::Value =
            serde_json::from_slice(&URL_SAFE_NO_PAD.decode(claims_b64).unwrap()).unwrap();
        claims["args"] = "cd".repeat(32).into();
        let forged = format!(
            "{PREFIX}{}.{tag}",
            URL_SAFE_NO_PAD.encode(serde_json::to_vec(&claims).unwrap())
        );
        assert_eq!(
            s.verify(&forged, UnixMillis(5_000)).unwrap_err().rule,
            rules::FORGED
        );
    }

    #[test]
    fn a_version_1_ticket_is_refused_as_foreign_even_when_signed() {
        // A ticket as an earlier toolvet issued it: signed with the same
        // key, realm and binding, but claims version 1 without principal
        // or agent.
        let s = signer();
        let r = request();
        let claims = serde_json::json!({
            "v": 1, "kid": s.kid, "realm": "realm-a", "id": r.id, "tool": r.call.tool,
            "args": r.call.arguments_sha256, "call": r.call.call_id, "run": r.call.run_id,
            "exp": r.expires_at.0,
        });
        let head = format!(
            "{PREFIX}{}",
            URL_SAFE_NO_PAD.encode(serde_json::to_vec(&claims).unwrap())
        );
        let mut mac = s.mac();
        mac.update(head.as_bytes());
        let old = format!(
            "{head}.{}",
            URL_SAFE_NO_PAD.encode(mac.finalize().into_bytes())
        );
        let refusal = s.verify(&old, UnixMillis(5_000)).unwrap_err();
        assert_eq!(refusal.rule, rules::FOREIGN);
        assert!(
            refusal.reason.contains("earlier toolvet"),
            "{}",
            refusal.reason
        );
    }

    #[test]
    fn the_ticket_binds_the_principal_and_agent() {
        let s = signer();
        let mut r = request();
        r.principal = Some("alice".into());
        r.agent = Some("coder".into());
        let claims = s.verify(&s.issue(&r), UnixMillis(5_000)).unwrap();
        assert_eq!(claims.prn.as_deref(), Some("alice"));
        assert_eq!(claims.agt.as_deref(), Some("coder"));
        let mut other = r.clone();
        other.principal = Some("mallory".into());
        assert_ne!(s.issue(&r), s.issue(&other));
    }

    #[test]
    fn the_debug_form_never_shows_the_key() {
        let s = Signer::new(b"super-secret-key-material-000000".to_vec(), "r".into());
        let shown = format!("{s:?}");
        assert!(!shown.contains("super-secret"), "{shown}");
    }
}
