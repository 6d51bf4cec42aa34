//! Reviewer credentials: a person's approval that counts only when signed
//! with a key the agent does not have.
//!
//! The ledger and the ticket key are files of the user the agent runs as,
//! so an agent can write an "approved" row into the ledger, or sign a
//! ticket, itself. A policy that lists `[approvals] reviewer_keys` closes
//! that: an approval (scope `once` or `run`) counts only with a **signed
//! decision** next to it, an Ed25519 signature by one of those keys over
//! the request id, the call it is bound to, the decision, the scope, the
//! reviewer's name and a time limit. The private key lives only in the
//! reviewer's head: it is derived from a passphrase with Argon2id and a
//! salt kept in the key's entry ([`ReviewerKey`]), and is never stored.
//!
//! ```toml
//! [approvals]
//! reviewer_keys = ["ed25519:<public key>:<salt>"]  # `toolvet approvals reviewer-key init`
//! ```
//!
//! What stays possible for an agent that writes the ledger: undoing the
//! consumption of a signed `once` approval, so the very call a person
//! approved runs again, but only where no process remembers the use (a
//! process that consumed it refuses it again whatever the row says,
//! `approval::local`; the hooks start a process per call) and only until
//! the signed time limit, at most [`ONCE_WINDOW_MS`] after signing for
//! `once`; deleting or spoiling
//! signed decisions (the approval then no longer counts: a denial, never
//! an allow). What it cannot do: make any other call, arguments, run,
//! scope or time limit count as approved.
//!
//!
//! This file holds the credentials (keys, signers, what is signed and its
//! verification); `approval::decision` records decisions and decides
//! whether a recorded one counts, signed or sealed.

use super::bound::BoundCall;
use super::types::{ApprovalError, ReviewDecision, Scope, UnixMillis};
use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD as B64;
use ed25519_dalek::{Signature, Signer as _, SigningKey, VerifyingKey};
use serde::{Deserialize, Serialize};
use std::fmt;

/// How long a signed `once` approval counts after it is signed, at most
/// (the request's expiry and the policy's `ttl_s` may end it sooner): ten
/// minutes. It bounds what an agent that writes the ledger gains by
/// setting a consumed row back to approved where no process remembers the
/// use (the hooks start one per call): the same approved call, again,
/// only within these minutes.
pub const ONCE_WINDOW_MS: u64 = 10 * 60 * 1000;

/// The prefix of a reviewer key entry.
pub const KEY_PREFIX: &str = "ed25519:";
/// The prefix of a signed decision.
const TOKEN_PREFIX: &str = "tvd1.";
/// What a reviewer's signature covers, before the decision's JSON.
const DOMAIN: &[u8] = b"toolvet reviewer decision v1\n";
/// Longest signed decision accepted, in bytes.
pub const MAX_SIGNED_DECISION_BYTES: usize = 64 * 1024;
/// Shortest passphrase accepted when a key is made, in characters.
pub const MIN_PASSPHRASE_CHARS: usize = 12;
/// Longest passphrase accepted, in bytes.
pub const MAX_PASSPHRASE_BYTES: usize = 1024;
/// Argon2id cost: memory in KiB, passes, lanes.
const ARGON2_M_KIB: u32 = 64 * 1024;
const ARGON2_T: u32 = 3;
const ARGON2_P: u32 = 1;

/// A reviewer's public key, as `[approvals] reviewer_keys` lists it:
/// `ed25519:<public key>:<salt>`, both unpadded base64url (32 and 16
/// bytes). The salt is what the private key is derived with from the
/// reviewer's passphrase.
#[derive(Clone, PartialEq, Eq)]
pub struct ReviewerKey {
    public: VerifyingKey,
    salt: [u8; 16],
}

impl fmt::Debug for ReviewerKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.entry())
    }
}

impl fmt::Display for ReviewerKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.entry())
    }
}

/// What is wrong with a `reviewer_keys` entry ([`ReviewerKey::parse`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum ReviewerKeyError {
    /// The entry does not start with `ed25519:`.
    #[error(
        "a reviewer key starts with `{}` (`toolvet approvals reviewer-key init` prints one)",
        KEY_PREFIX
    )]
    Prefix,
    /// No `:` between the public key and the salt.
    #[error("a reviewer key is `ed25519:<public key>:<salt>`")]
    Shape,
    /// The public key is not 32 bytes of unpadded base64url.
    #[error("the public key is not 32 bytes of unpadded base64url")]
    PublicKeyEncoding,
    /// The salt is not 16 bytes of unpadded base64url.
    #[error("the salt is not 16 bytes of unpadded base64url")]
    SaltEncoding,
    /// The 32 bytes are not an Ed25519 point.
    #[error("the public key is not an Ed25519 public key")]
    NotEd25519,
    /// The point is of small order (a weak key).
    #[error("the public key is a weak Ed25519 key")]
    Weak,
}

impl ReviewerKey {
    /// Parse a `reviewer_keys` entry.
    ///
    /// # Errors
    /// What is wrong with it: prefix, encoding, lengths, or a public key
    /// that is not a valid Ed25519 point (or a weak one).
    pub fn parse(entry: &str) -> Result<ReviewerKey, ReviewerKeyError> {
        let rest = entry
            .strip_prefix(KEY_PREFIX)
            .ok_or(ReviewerKeyError::Prefix)?;
        let (public, salt) = rest.split_once(':').ok_or(ReviewerKeyError::Shape)?;
        let public: [u8; 32] = B64
            .decode(public)
            .ok()
            .and_then(|b| b.try_into().ok())
            .ok_or(ReviewerKeyError::PublicKeyEncoding)?;
        let salt: [u8; 16] = B64
            .decode(salt)
            .ok()
            .and_then(|b| b.try_into().ok())
            .ok_or(ReviewerKeyError::SaltEncoding)?;
        let public = VerifyingKey::from_bytes(&public).map_err(|_| ReviewerKeyError::NotEd25519)?;
        if public.is_weak() {
            return Err(ReviewerKeyError::Weak);
        }
        Ok(ReviewerKey { public, salt })
    }

    /// The entry text, `ed25519:<public key>:<salt>`.
    pub fn entry(&self) -> String {
        format!(
            "{KEY_PREFIX}{}:{}",
            B64.encode(self.public.as_bytes()),
            B64.encode(self.salt)
        )
    }

    /// The public key, unpadded base64url (as signed decisions name it).
    pub fn public_b64(&self) -> String {
        B64.encode(self.public.as_bytes())
    }
}

/// A reviewer's private key, held only while decisions are signed; never
/// stored, printed or logged.
pub struct ReviewerSigner {
    key: SigningKey,
    public: ReviewerKey,
}

impl fmt::Debug for ReviewerSigner {
    /// Shows the public key only.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ReviewerSigner")
            .field("public", &self.public)
            .finish_non_exhaustive()
    }
}

fn derive(passphrase: &[u8], salt: &[u8; 16]) -> Result<SigningKey, ApprovalError> {
    let params = argon2::Params::new(ARGON2_M_KIB, ARGON2_T, ARGON2_P, Some(32))
        .map_err(|e| ApprovalError::Key(format!("Argon2 parameters: {e}")))?;
    let argon = argon2::Argon2::new(argon2::Algorithm::Argon2id, argon2::Version::V0x13, params);
    let mut seed = zeroize::Zeroizing::new([0u8; 32]);
    argon
        .hash_password_into(passphrase, salt, seed.as_mut())
        .map_err(|e| ApprovalError::Key(format!("deriving the reviewer key: {e}")))?;
    Ok(SigningKey::from_bytes(&seed))
}

fn check_passphrase(passphrase: &[u8]) -> Result<(), ApprovalError> {
    if passphrase.is_empty() {
        return Err(ApprovalError::Key("the passphrase is empty".into()));
    }
    if passphrase.len() > MAX_PASSPHRASE_BYTES {
        return Err(ApprovalError::Key(format!(
            "the passphrase is over {MAX_PASSPHRASE_BYTES} bytes"
        )));
    }
    Ok(())
}

impl ReviewerSigner {
    /// A new reviewer key from `passphrase`, with a fresh random salt: the
    /// signer and the entry to list in `[approvals] reviewer_keys`.
    ///
    /// # Errors
    /// [`ApprovalError::Key`] for a passphrase shorter than
    /// [`MIN_PASSPHRASE_CHARS`] characters or longer than
    /// [`MAX_PASSPHRASE_BYTES`], or no randomness for the salt.
    pub fn create(passphrase: &[u8]) -> Result<ReviewerSigner, ApprovalError> {
        check_passphrase(passphrase)?;
        let chars = String::from_utf8_lossy(passphrase).chars().count();
        if chars < MIN_PASSPHRASE_CHARS {
            return Err(ApprovalError::Key(format!(
                "the passphrase has {chars} characters; a reviewer passphrase needs at least \
                 {MIN_PASSPHRASE_CHARS} (the public key and salt are readable by the agent, which \
                 may guess at it offline)"
            )));
        }
        let mut salt = [0u8; 16];
        getrandom::fill(&mut salt)
            .map_err(|e| ApprovalError::Key(format!("no randomness for a salt: {e}")))?;
        let key = derive(passphrase, &salt)?;
        let public = ReviewerKey {
            public: key.verifying_key(),
            salt,
        };
        Ok(ReviewerSigner { key, public })
    }

    /// The signer of whichever of `keys` `passphrase` derives.
    ///
    /// # Errors
    /// [`ApprovalError::Key`] when `keys` is empty or the passphrase
    /// derives none of them (the message names no key material).
    pub fn unlock(
        passphrase: &[u8],
        keys: &[ReviewerKey],
    ) -> Result<ReviewerSigner, ApprovalError> {
        check_passphrase(passphrase)?;
        if keys.is_empty() {
            return Err(ApprovalError::Key(
                "the policy lists no [approvals] reviewer_keys".into(),
            ));
        }
        for listed in keys {
            let key = derive(passphrase, &listed.salt)?;
            if key.verifying_key() == listed.public {
                return Ok(ReviewerSigner {
                    key,
                    public: listed.clone(),
                });
            }
        }
        Err(ApprovalError::Key(
            "the passphrase matches none of the policy's [approvals] reviewer_keys".into(),
        ))
    }

    /// The public key entry of this signer.
    pub fn public(&self) -> &ReviewerKey {
        &self.public
    }

    pub(super) fn sign(&self, decision: &SignedDecision) -> String {
        let json = serde_json::to_vec(decision).expect("a decision serializes");
        let mut message = DOMAIN.to_vec();
        message.extend_from_slice(&json);
        let signature = self.key.sign(&message);
        format!(
            "{TOKEN_PREFIX}{}.{}",
            B64.encode(&json),
            B64.encode(signature.to_bytes())
        )
    }
}

/// What a reviewer signs: one decision about one request.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SignedDecision {
    /// The request id.
    pub id: String,
    /// The call the request is bound to, as the reviewer saw it.
    pub call: BoundCall,
    /// The principal the request was asked for (`None`: none named); an
    /// approval serves only that principal and agent (review s15 N3).
    #[serde(default)]
    pub principal: Option<String>,
    /// The agent the request was asked for (`None`: none named).
    #[serde(default)]
    pub agent: Option<String>,
    /// Approve or reject.
    pub decision: ReviewDecision,
    /// The approval's scope.
    pub scope: Scope,
    /// Who decided.
    pub reviewer: String,
    /// When it was signed.
    pub signed_at: UnixMillis,
    /// After this the decision no longer counts: the request's expiry as
    /// the reviewer read it, at most the policy's `ttl_s` after signing.
    pub not_after: UnixMillis,
    /// The signing key's public half (unpadded base64url).
    pub key: String,
}

/// The decision in `token`, if its signature is by one of `keys`.
pub(super) fn verify_token(token: &str, keys: &[ReviewerKey]) -> Result<SignedDecision, String> {
    if token.len() > MAX_SIGNED_DECISION_BYTES {
        return Err("the signed decision is oversized".into());
    }
    let rest = token
        .strip_prefix(TOKEN_PREFIX)
        .ok_or("the signed decision is malformed")?;
    let (json, signature) = rest
        .split_once('.')
        .ok_or("the signed decision is malformed")?;
    let json = B64
        .decode(json)
        .map_err(|_| "the signed decision is malformed")?;
    let signature: [u8; 64] = B64
        .decode(signature)
        .ok()
        .and_then(|b| b.try_into().ok())
        .ok_or("the signed decision's signature is malformed")?;
    let decision: SignedDecision =
        serde_json::from_slice(&json).map_err(|_| "the signed decision is malformed")?;
    let key = keys
        .iter()
        .find(|k| k.public_b64() == decision.key)
        .ok_or("the decision is signed by a key the policy does not list")?;
    let mut message = DOMAIN.to_vec();
    message.extend_from_slice(&json);
    key.public
        .verify_strict(&message, &Signature::from_bytes(&signature))
        .map_err(|_| "the signature does not verify")?;
    Ok(decision)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call() -> BoundCall {
        BoundCall {
            tool: "bash".into(),
            arguments_sha256: "ab".repeat(32),
            call_id: String::new(),
            run_id: Some("s1".into()),
            attributes: Default::default(),
        }
    }

    fn decision(signer: &ReviewerSigner) -> SignedDecision {
        SignedDecision {
            id: "apr_1".into(),
            call: call(),
            principal: None,
            agent: None,
            decision: ReviewDecision::Approve,
            scope: Scope::Once,
            reviewer: "alice".into(),
            signed_at: UnixMillis(1),
            not_after: UnixMillis(2),
            key: signer.public().public_b64(),
        }
    }

    #[test]
    fn keys_round_trip_and_only_their_passphrase_unlocks_them() {
        let signer = ReviewerSigner::create(b"correct horse battery").unwrap();
        let entry = signer.public().entry();
        let parsed = ReviewerKey::parse(&entry).unwrap();
        assert_eq!(&parsed, signer.public());
        assert_eq!(parsed.entry(), entry);
        let unlocked =
            ReviewerSigner::unlock(b"correct horse battery", std::slice::from_ref(&parsed))
                .unwrap();
        assert_eq!(unlocked.public(), &parsed);
        let e = ReviewerSigner::unlock(b"wrong horse battery!", &[parsed]).unwrap_err();
        assert!(e.to_string().contains("matches none"), "{e}");
        assert!(ReviewerSigner::create(b"short").is_err());
        for bad in [
            "",
            "ed25519:",
            "rsa:AAAA:AAAA",
            "ed25519:AAAA:AAAAAAAAAAAAAAAAAAAAAA",
            &entry.replace("ed25519:", "ed25519: "),
        ] {
            assert!(ReviewerKey::parse(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn a_signature_holds_only_for_its_bytes_and_its_key() {
        let signer = ReviewerSigner::create(b"correct horse battery").unwrap();
        let other = ReviewerSigner::create(b"another long passphrase").unwrap();
        let keys = [signer.public().clone()];
        let token = signer.sign(&decision(&signer));
        assert_eq!(verify_token(&token, &keys).unwrap(), decision(&signer));
        // Another key, even one listed nowhere, is refused.
        let foreign = other.sign(&decision(&other));
        assert!(verify_token(&foreign, &keys).is_err());
        // Claiming the listed key with another key's signature.
        let mut claimed = decision(&signer);
        claimed.key = signer.public().public_b64();
        let forged = other.sign(&claimed);
        assert!(verify_token(&forged, &keys).is_err());
        // Editing the signed JSON (scope once -> run).
        let (json, sig) = token[TOKEN_PREFIX.len()..].split_once('.').unwrap();
        let text = String::from_utf8(B64.decode(json).unwrap()).unwrap();
        let edited = text.replace("\"once\"", "\"run\"");
        assert_ne!(edited, text);
        let edited = format!("{TOKEN_PREFIX}{}.{sig}", B64.encode(edited));
        assert!(verify_token(&edited, &keys).is_err());
        assert!(verify_token("tvd1.x.y", &keys).is_err());
    }
}
