//! Who may do what: two roles, each with its own bearer tokens.
//!
//! - **agent**: vet calls (`/v1/check`, AuthZEN) and read one approval
//!   request by its id (ids are 128-bit random, handed only to the caller
//!   whose call escalated);
//! - **reviewer**: list, read and decide approval requests, follow the
//!   event stream, use the reviewer page.
//!
//! An agent token can never decide. Tokens are kept only as sha256
//! digests; a presented token is hashed and compared with every digest in
//! constant time. A missing or unknown token is 401, a known token of the
//! other role 403, and both bodies name the role the route needs.

use crate::settings::ServeSettings;
use sha2::{Digest, Sha256};
use std::path::Path;
use subtle::ConstantTimeEq;

/// The environment variable holding an agent token (quick start).
pub const AGENT_TOKEN_ENV: &str = "TOOLVET_AGENT_TOKEN";
/// The environment variable holding a reviewer token (quick start).
pub const REVIEWER_TOKEN_ENV: &str = "TOOLVET_REVIEWER_TOKEN";
/// The environment variable holding a gateway token (`--ext-mcp`).
pub const GATEWAY_TOKEN_ENV: &str = "TOOLVET_GATEWAY_TOKEN";
/// Shortest token accepted from a file or the environment, in bytes.
pub const MIN_TOKEN_BYTES: usize = 16;

/// A role a route needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// Vets calls.
    Agent,
    /// Decides approval requests.
    Reviewer,
    /// An MCP gateway calling the ExtMcp service (`--ext-mcp`): reports
    /// the tools its servers list and the session's calls, so it is
    /// trusted more than an agent and is never an agent's token.
    Gateway,
}

impl Role {
    /// `agent` or `reviewer`.
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Agent => "agent",
            Role::Reviewer => "reviewer",
            Role::Gateway => "gateway",
        }
    }
}

/// The digests of the accepted tokens of both roles.
#[derive(Clone, Default)]
pub struct Tokens {
    agent: Vec<[u8; 32]>,
    reviewer: Vec<[u8; 32]>,
    gateway: Vec<[u8; 32]>,
}

impl std::fmt::Debug for Tokens {
    /// Counts only: digests are not printed either.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tokens")
            .field("agent", &self.agent.len())
            .field("reviewer", &self.reviewer.len())
            .field("gateway", &self.gateway.len())
            .finish()
    }
}

/// Why a request is not let in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refused {
    /// No token, a malformed header, or a token nobody issued: 401.
    Unauthenticated {
        /// The role the route needs.
        needs: &'static [Role],
    },
    /// A valid token of a role this route does not accept: 403.
    Forbidden {
        /// The role the route needs.
        needs: &'static [Role],
        /// The roles the token has.
        has: Vec<Role>,
    },
}

impl Tokens {
    /// The tokens of `settings`, its token files and the environment
    /// (`env` looks a variable up, so tests need not touch the process's
    /// environment).
    ///
    /// # Errors
    /// A token file that cannot be read, that others may read, or that
    /// holds a token shorter than [`MIN_TOKEN_BYTES`]; an environment token
    /// that short.
    pub fn load(
        settings: &ServeSettings,
        env: impl Fn(&str) -> Option<String>,
    ) -> Result<Tokens, String> {
        let mut tokens = Tokens {
            agent: settings.agent_tokens_sha256.clone(),
            reviewer: settings.reviewer_tokens_sha256.clone(),
            gateway: settings.gateway_tokens_sha256.clone(),
        };
        for (file, into) in [
            (&settings.agent_token_file, &mut tokens.agent),
            (&settings.reviewer_token_file, &mut tokens.reviewer),
            (&settings.gateway_token_file, &mut tokens.gateway),
        ] {
            if let Some(path) = file {
                into.extend(read_token_file(path)?);
            }
        }
        for (var, into) in [
            (AGENT_TOKEN_ENV, &mut tokens.agent),
            (REVIEWER_TOKEN_ENV, &mut tokens.reviewer),
            (GATEWAY_TOKEN_ENV, &mut tokens.gateway),
        ] {
            if let Some(token) = env(var).filter(|t| !t.is_empty()) {
                if token.trim().len() < MIN_TOKEN_BYTES {
                    return Err(format!(
                        "${var}: a token must be at least {MIN_TOKEN_BYTES} characters"
                    ));
                }
                into.push(digest(token.trim()));
            }
        }
        Ok(tokens)
    }

    /// Whether any token of `role` is configured.
    pub fn has(&self, role: Role) -> bool {
        !self.of(role).is_empty()
    }

    fn of(&self, role: Role) -> &[[u8; 32]] {
        match role {
            Role::Agent => &self.agent,
            Role::Reviewer => &self.reviewer,
            Role::Gateway => &self.gateway,
        }
    }

    /// The roles of `token`, comparing its digest with every configured
    /// digest (no early exit, so the time does not tell which matched).
    pub fn roles_of(&self, token: &str) -> Vec<Role> {
        let presented = digest(token);
        [Role::Agent, Role::Reviewer, Role::Gateway]
            .into_iter()
            .filter(|&role| {
                let mut found = subtle::Choice::from(0);
                for known in self.of(role) {
                    found |= known.ct_eq(&presented);
                }
                bool::from(found)
            })
            .collect()
    }

    /// Let a request with `authorization` (the header's value) in when its
    /// token has one of the roles in `needs`.
    ///
    /// # Errors
    /// [`Refused`].
    pub fn authorize(
        &self,
        authorization: Option<&[u8]>,
        needs: &'static [Role],
    ) -> Result<Vec<Role>, Refused> {
        let token = authorization
            .and_then(|v| std::str::from_utf8(v).ok())
            .and_then(|v| {
                let (scheme, token) = v.trim().split_once(' ')?;
                scheme.eq_ignore_ascii_case("bearer").then(|| token.trim())
            })
            .filter(|t| !t.is_empty())
            .ok_or(Refused::Unauthenticated { needs })?;
        let has = self.roles_of(token);
        if has.is_empty() {
            return Err(Refused::Unauthenticated { needs });
        }
        if has.iter().any(|r| needs.contains(r)) {
            Ok(has)
        } else {
            Err(Refused::Forbidden { needs, has })
        }
    }
}

impl Refused {
    /// The sentence for the response body.
    pub fn message(&self) -> String {
        let needs = |needs: &[Role]| {
            needs
                .iter()
                .map(|r| format!("the {} role", r.as_str()))
                .collect::<Vec<_>>()
                .join(" or ")
        };
        match self {
            Refused::Unauthenticated { needs: n } => format!(
                "this route needs a bearer token with {}; none was given, or it is not a token this server issued",
                needs(n)
            ),
            Refused::Forbidden { needs: n, has } => format!(
                "this route needs {}; the token has {}",
                needs(n),
                needs(has)
            ),
        }
    }

    /// The roles the route needs, for the body.
    pub fn needs(&self) -> &'static [Role] {
        match self {
            Refused::Unauthenticated { needs } | Refused::Forbidden { needs, .. } => needs,
        }
    }
}

fn digest(token: &str) -> [u8; 32] {
    Sha256::digest(token.as_bytes()).into()
}

/// The tokens in `path`: one per line; blank lines and `#` comments are
/// skipped. The file must not be readable by group or others.
fn read_token_file(path: &Path) -> Result<Vec<[u8; 32]>, String> {
    let shown = path.display();
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let meta = std::fs::metadata(path).map_err(|e| format!("{shown}: {e}"))?;
        if meta.mode() & 0o077 != 0 {
            return Err(format!(
                "{shown}: a token file must be readable by its owner only (chmod 600); it is {:o}",
                meta.mode() & 0o777
            ));
        }
    }
    let text = std::fs::read_to_string(path).map_err(|e| format!("{shown}: {e}"))?;
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if line.len() < MIN_TOKEN_BYTES {
            return Err(format!(
                "{shown}:{}: a token must be at least {MIN_TOKEN_BYTES} characters",
                i + 1
            ));
        }
        out.push(digest(line));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const AGENT: &str = "agent-token-0123456789";
    const REVIEWER: &str = "reviewer-token-0123456789";

    fn tokens() -> Tokens {
        Tokens::load(&ServeSettings::default(), |v| match v {
            AGENT_TOKEN_ENV => Some(AGENT.into()),
            REVIEWER_TOKEN_ENV => Some(REVIEWER.into()),
            _ => None,
        })
        .unwrap()
    }

    #[test]
    fn roles_are_separate() {
        let t = tokens();
        let bearer = |s: &str| format!("Bearer {s}");
        assert_eq!(
            t.authorize(Some(bearer(AGENT).as_bytes()), &[Role::Agent]),
            Ok(vec![Role::Agent])
        );
        assert!(matches!(
            t.authorize(Some(bearer(AGENT).as_bytes()), &[Role::Reviewer]),
            Err(Refused::Forbidden { .. })
        ));
        assert!(matches!(
            t.authorize(
                Some(bearer("nope-nope-nope-nope").as_bytes()),
                &[Role::Agent]
            ),
            Err(Refused::Unauthenticated { .. })
        ));
        assert!(matches!(
            t.authorize(Some(AGENT.as_bytes()), &[Role::Agent]),
            Err(Refused::Unauthenticated { .. })
        ));
        assert!(matches!(
            t.authorize(None, &[Role::Agent]),
            Err(Refused::Unauthenticated { .. })
        ));
    }

    #[test]
    fn short_and_readable_token_files_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("t");
        std::fs::write(&file, "# comment\nshort\n").unwrap();
        let mut s = ServeSettings {
            agent_token_file: Some(file.clone()),
            ..ServeSettings::default()
        };
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o644)).unwrap();
            let e = Tokens::load(&s, |_| None).unwrap_err();
            assert!(e.contains("chmod 600"), "{e}");
            std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600)).unwrap();
        }
        let e = Tokens::load(&s, |_| None).unwrap_err();
        assert!(e.contains(":2: a token must be at least"), "{e}");
        std::fs::write(&file, format!("{AGENT}\n")).unwrap();
        let t = Tokens::load(&s, |_| None).unwrap();
        assert_eq!(t.roles_of(AGENT), vec![Role::Agent]);
        s.agent_token_file = None;
        let e = Tokens::load(&s, |_| Some("short".into())).unwrap_err();
        assert!(e.contains("TOOLVET_"), "{e}");
    }
}
