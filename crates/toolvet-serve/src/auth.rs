//! Who may do what: four roles, each with its own bearer tokens.
//!
//! - **agent**: vet calls (`/v1/check`, AuthZEN) and read one approval
//!   request by its id (ids are 128-bit random, handed only to the caller
//!   whose call escalated);
//! - **reviewer**: list, read and decide approval requests, follow the
//!   event stream, use the reviewer page; read `/readyz` and `/metrics`;
//! - **gateway**: the ExtMcp callout (`--ext-mcp`);
//! - **metrics**: read `/readyz` and `/metrics`, nothing else.
//!
//! One token has one role: a token configured for two roles stops the
//! server from starting (and a reload from taking effect), so an agent
//! token can never decide. Tokens are kept only as sha256
//! digests; a presented token is hashed and compared with every digest in
//! constant time. A missing or unknown token is 401, a known token of the
//! other role 403, and both bodies name the role the route needs.
//!
//! An agent token is **bound** when an `[serve] agent_tokens` entry gives
//! it: it speaks only for the principals the entry names
//! ([`Speaker::principal_for`]). Other agent tokens are unbound: they may
//! name any principal that no entry binds (see [`crate::settings`]).

use crate::error::ApiError;
use crate::settings::{ServeSettings, TokenSource};
use axum::http::StatusCode;
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use subtle::ConstantTimeEq;

/// The environment variable holding an agent token (quick start).
pub const AGENT_TOKEN_ENV: &str = "TOOLVET_AGENT_TOKEN";
/// The environment variable holding a reviewer token (quick start).
pub const REVIEWER_TOKEN_ENV: &str = "TOOLVET_REVIEWER_TOKEN";
/// The environment variable holding a gateway token (`--ext-mcp`).
pub const GATEWAY_TOKEN_ENV: &str = "TOOLVET_GATEWAY_TOKEN";
/// The environment variable holding a metrics token (`/readyz`,
/// `/metrics`).
pub const METRICS_TOKEN_ENV: &str = "TOOLVET_METRICS_TOKEN";
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
    /// Reads `/readyz` and `/metrics` (a Prometheus scraper, a readiness
    /// probe), and nothing else.
    Metrics,
}

impl Role {
    /// `agent`, `reviewer`, `gateway` or `metrics`.
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Agent => "agent",
            Role::Reviewer => "reviewer",
            Role::Gateway => "gateway",
            Role::Metrics => "metrics",
        }
    }
}

/// The digests of the accepted tokens of every role; no token has two.
#[derive(Clone, Default)]
pub struct Tokens {
    agent: Vec<[u8; 32]>,
    /// Every agent token, bound or not, with who it speaks as.
    speakers: Vec<([u8; 32], Speaker)>,
    reviewer: Vec<[u8; 32]>,
    gateway: Vec<[u8; 32]>,
    metrics: Vec<[u8; 32]>,
}

impl std::fmt::Debug for Tokens {
    /// Counts only: digests are not printed either.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tokens")
            .field("agent", &self.agent.len())
            .field("bound_agent", &self.bound_count())
            .field("reviewer", &self.reviewer.len())
            .field("gateway", &self.gateway.len())
            .field("metrics", &self.metrics.len())
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
    /// A [`TokenError`]: a token file that cannot be read, that others may
    /// read, or that holds a token shorter than [`MIN_TOKEN_BYTES`]; an
    /// environment token that short; one token given to two roles (the
    /// message names the roles and where each was set, never the token).
    pub fn load(
        settings: &ServeSettings,
        env: impl Fn(&str) -> Option<String>,
    ) -> Result<Tokens, TokenError> {
        // Every token with its role and where it was set, so that a token
        // in two roles can be named by its places.
        let mut all: Vec<(Role, [u8; 32], String)> = Vec::new();
        for (role, key, digests) in [
            (
                Role::Agent,
                "agent_tokens_sha256",
                &settings.agent_tokens_sha256,
            ),
            (
                Role::Reviewer,
                "reviewer_tokens_sha256",
                &settings.reviewer_tokens_sha256,
            ),
            (
                Role::Gateway,
                "gateway_tokens_sha256",
                &settings.gateway_tokens_sha256,
            ),
            (
                Role::Metrics,
                "metrics_tokens_sha256",
                &settings.metrics_tokens_sha256,
            ),
        ] {
            for (i, d) in digests.iter().enumerate() {
                all.push((role, *d, format!("[serve] {key}[{i}]")));
            }
        }
        for (role, key, file) in [
            (Role::Agent, "agent_token_file", &settings.agent_token_file),
            (
                Role::Reviewer,
                "reviewer_token_file",
                &settings.reviewer_token_file,
            ),
            (
                Role::Gateway,
                "gateway_token_file",
                &settings.gateway_token_file,
            ),
            (
                Role::Metrics,
                "metrics_token_file",
                &settings.metrics_token_file,
            ),
        ] {
            if let Some(path) = file {
                for (line, d) in read_token_file(path)? {
                    all.push((
                        role,
                        d,
                        format!("[serve] {key} ({}:{line})", path.display()),
                    ));
                }
            }
        }
        let unbound_agents = all.iter().filter(|(r, _, _)| *r == Role::Agent).count();
        let mut bindings = Vec::new();
        for (i, entry) in settings.bound_agent_tokens.iter().enumerate() {
            let place = format!("[serve] agent_tokens[{i}] ({:?})", entry.label);
            let d = match &entry.token {
                TokenSource::Sha256(d) => *d,
                TokenSource::File(path) => match read_token_file(path)?.as_slice() {
                    [(_, d)] => *d,
                    found => {
                        return Err(TokenError::NotOneToken {
                            index: i,
                            label: entry.label.clone(),
                            path: path.clone(),
                            found: found.len(),
                        });
                    }
                },
            };
            all.push((Role::Agent, d, place));
            bindings.push(Arc::new(Binding {
                label: entry.label.clone(),
                principals: entry.principals.clone(),
                agents: entry.agents.clone(),
            }));
        }
        for (role, var) in [
            (Role::Agent, AGENT_TOKEN_ENV),
            (Role::Reviewer, REVIEWER_TOKEN_ENV),
            (Role::Gateway, GATEWAY_TOKEN_ENV),
            (Role::Metrics, METRICS_TOKEN_ENV),
        ] {
            if let Some(token) = env(var).filter(|t| !t.is_empty()) {
                if token.trim().len() < MIN_TOKEN_BYTES {
                    return Err(TokenError::ShortInEnv { var });
                }
                all.push((role, digest(token.trim()), format!("${var}")));
            }
        }
        refuse_shared(&all)?;
        // `all` holds the unbound agent tokens of the table and the file,
        // then one per `agent_tokens` entry, then the environment's.
        let mut bindings = bindings.into_iter();
        let mut agents_seen = 0;
        let mut tokens = Tokens::default();
        for (role, d, place) in all {
            if role == Role::Agent {
                let bound = agents_seen >= unbound_agents
                    && agents_seen < unbound_agents + settings.bound_agent_tokens.len();
                agents_seen += 1;
                let speaker = match bound.then(|| bindings.next()).flatten() {
                    Some(binding) => Speaker::Bound(binding),
                    None => Speaker::Unbound { place },
                };
                tokens.speakers.push((d, speaker));
            }
            match role {
                Role::Agent => tokens.agent.push(d),
                Role::Reviewer => tokens.reviewer.push(d),
                Role::Gateway => tokens.gateway.push(d),
                Role::Metrics => tokens.metrics.push(d),
            }
        }
        refuse_two_bindings(&tokens.speakers)?;
        Ok(tokens)
    }

    fn bound_count(&self) -> usize {
        self.speakers
            .iter()
            .filter(|(_, s)| matches!(s, Speaker::Bound(_)))
            .count()
    }

    /// Who the agent token `token` speaks as; `None` for a token that is
    /// not an agent token. Every digest is compared (no early exit).
    pub fn speaker_of(&self, token: &str) -> Option<Speaker> {
        let presented = digest(token);
        let mut found = None;
        for (known, speaker) in &self.speakers {
            if bool::from(known.ct_eq(&presented)) && found.is_none() {
                found = Some(speaker.clone());
            }
        }
        found
    }

    /// The labels of the bound agent tokens that name `principal`.
    ///
    /// Names are compared as a person compares them
    /// ([`toolvet::fold::fold`]: letter case, Unicode form and white space
    /// ignored), so `BOB@acme.com` is Bob's (review s20 T2), and by ASCII
    /// confusable skeleton ([`skeleton`]), so `B0b@acme.com` is too
    /// (review s24 F1).
    pub fn bound_to(&self, principal: &str) -> Vec<&str> {
        self.speakers
            .iter()
            .filter_map(|(_, s)| match s {
                Speaker::Bound(b) if b.principals.iter().any(|p| alike(p, principal)) => {
                    Some(b.label.as_str())
                }
                _ => None,
            })
            .collect()
    }

    /// The labels of the bound agent tokens whose `agents` name `agent`.
    pub fn agent_bound_to(&self, agent: &str) -> Vec<&str> {
        self.speakers
            .iter()
            .filter_map(|(_, s)| match s {
                Speaker::Bound(b)
                    if b.agents
                        .as_ref()
                        .is_some_and(|a| a.iter().any(|q| alike(q, agent))) =>
                {
                    Some(b.label.as_str())
                }
                _ => None,
            })
            .collect()
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
            Role::Metrics => &self.metrics,
        }
    }

    /// The roles of `token`, comparing its digest with every configured
    /// digest (no early exit, so the time does not tell which matched).
    pub fn roles_of(&self, token: &str) -> Vec<Role> {
        let presented = digest(token);
        [Role::Agent, Role::Reviewer, Role::Gateway, Role::Metrics]
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

/// The principals (and agents) a bound agent token speaks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Binding {
    /// The `agent_tokens` entry's label.
    pub label: String,
    /// The principals it may name.
    pub principals: Vec<String>,
    /// The agents it may name; `None`: any.
    pub agents: Option<Vec<String>>,
}

/// Who an agent token speaks as.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Speaker {
    /// An `agent_tokens` entry: only its principals.
    Bound(Arc<Binding>),
    /// Any principal no entry binds; `place` says where the token is set
    /// (never the token).
    Unbound {
        /// E.g. `[serve] agent_tokens_sha256[0]` or `$TOOLVET_AGENT_TOKEN`.
        place: String,
    },
}

impl Speaker {
    /// How a refusal names the token: the entry's label, or where an
    /// unbound token is set.
    pub fn name(&self) -> String {
        match self {
            Speaker::Bound(b) => format!("agent token {:?}", b.label),
            Speaker::Unbound { place } => format!("the unbound agent token of {place}"),
        }
    }

    /// The principal a request of this token is vetted for, given the
    /// principal the request names at `key` (e.g. `context.principal`).
    /// A bound token: the named principal when the entry names it, its
    /// only principal when none is named. An unbound token: the named
    /// principal unless an `agent_tokens` entry binds it.
    ///
    /// # Errors
    /// 403 `principal-forbidden` for a principal the token may not speak
    /// for; 400 `principal-required` when a token of several principals
    /// names none. The messages name the key and the token's label, never
    /// the token.
    pub fn principal_for(
        &self,
        named: Option<&str>,
        key: &str,
        tokens: &Tokens,
    ) -> Result<Option<String>, ApiError> {
        if let Some(p) = named {
            canonical(p, key, "principal")?;
        }
        let shown = |p: &str| toolvet::display::visible(p).into_owned();
        match (self, named) {
            (Speaker::Bound(b), Some(p)) if b.principals.iter().any(|q| q == p) => {
                Ok(Some(p.to_string()))
            }
            (Speaker::Bound(b), Some(p)) => Err(forbidden(format!(
                "`{key}` names the principal \"{}\", but {} speaks only for {}; a bound token \
                 cannot act, or open, resume or spend approvals, for another principal",
                shown(p),
                self.name(),
                list(&b.principals)
            ))),
            (Speaker::Bound(b), None) => match b.principals.as_slice() {
                [only] => Ok(Some(only.clone())),
                many => Err(ApiError::bad_request(
                    "principal-required",
                    format!(
                        "{} speaks for several principals ({}); name one in `{key}`",
                        self.name(),
                        list(many)
                    ),
                )),
            },
            (Speaker::Unbound { .. }, Some(p)) => {
                let owners = tokens.bound_to(p);
                if owners.is_empty() {
                    Ok(Some(p.to_string()))
                } else {
                    Err(forbidden(format!(
                        "`{key}` names the principal \"{}\", which [serve] agent_tokens binds to \
                         agent token {}; only that token may speak for it, and {} is bound to no \
                         principal",
                        shown(p),
                        owners
                            .iter()
                            .map(|l| format!("{l:?}"))
                            .collect::<Vec<_>>()
                            .join(", "),
                        self.name()
                    )))
                }
            }
            (Speaker::Unbound { .. }, None) => Ok(None),
        }
    }

    /// The agent a request of this token is vetted as, given the agent
    /// the request names at `key` (e.g. `context.agent`): for a token
    /// whose entry lists `agents`, the named agent when listed, its only
    /// agent when none is named; for any other token (unbound, or bound
    /// without `agents`), the named agent unless an `agent_tokens` entry
    /// binds it, as for principals: a bound name is spoken only by the
    /// tokens bound to it.
    ///
    /// # Errors
    /// 403 `agent-forbidden` for an agent the token may not speak as; 400
    /// `agent-required` when a token of several agents names none. The
    /// messages name the key and the token's label, never the token.
    pub fn agent_for(
        &self,
        named: Option<&str>,
        key: &str,
        tokens: &Tokens,
    ) -> Result<Option<String>, ApiError> {
        if let Some(a) = named {
            canonical(a, key, "agent")?;
        }
        let listed = match self {
            Speaker::Bound(b) => b.agents.as_ref(),
            Speaker::Unbound { .. } => None,
        };
        let Some(agents) = listed else {
            let Some(a) = named else {
                return Ok(None);
            };
            let owners = tokens.agent_bound_to(a);
            if owners.is_empty() {
                return Ok(Some(a.to_string()));
            }
            return Err(ApiError::new(
                StatusCode::FORBIDDEN,
                "agent-forbidden",
                format!(
                    "`{key}` names the agent \"{}\", which [serve] agent_tokens binds to agent \
                     token {}; only that token may speak as it, and {} is bound to no agent",
                    toolvet::display::visible(a),
                    owners
                        .iter()
                        .map(|l| format!("{l:?}"))
                        .collect::<Vec<_>>()
                        .join(", "),
                    self.name()
                ),
            ));
        };
        match named {
            Some(a) if agents.iter().any(|q| q == a) => Ok(Some(a.to_string())),
            Some(a) => Err(ApiError::new(
                StatusCode::FORBIDDEN,
                "agent-forbidden",
                format!(
                    "`{key}` names the agent \"{}\", but {} speaks only as {}; a bound token cannot \
                     act as another agent, whose policy rules, requests and grants are its own",
                    toolvet::display::visible(a),
                    self.name(),
                    list(agents)
                ),
            )),
            None => match agents.as_slice() {
                [only] => Ok(Some(only.clone())),
                many => Err(ApiError::bad_request(
                    "agent-required",
                    format!(
                        "{} speaks as several agents ({}); name one in `{key}`",
                        self.name(),
                        list(many)
                    ),
                )),
            },
        }
    }

    /// Whether this token may read a request asked on behalf of
    /// `principal` (the same rule as [`Speaker::principal_for`]; a bound
    /// token reads only its principals' requests).
    pub fn may_read(&self, principal: Option<&str>, tokens: &Tokens) -> bool {
        match (self, principal) {
            (Speaker::Bound(b), Some(p)) => b.principals.iter().any(|q| q == p),
            (Speaker::Bound(_), None) => false,
            (Speaker::Unbound { .. }, Some(p)) => tokens.bound_to(p).is_empty(),
            (Speaker::Unbound { .. }, None) => true,
        }
    }
}

fn list(names: &[String]) -> String {
    names
        .iter()
        .map(|p| format!("\"{}\"", toolvet::display::visible(p)))
        .collect::<Vec<_>>()
        .join(", ")
}

fn forbidden(message: String) -> ApiError {
    ApiError::new(StatusCode::FORBIDDEN, "principal-forbidden", message)
}

/// Refuse an agent token given twice where one of the two is bound: its
/// principals would depend on which entry is read. Names the places,
/// never the token.
fn refuse_two_bindings(speakers: &[([u8; 32], Speaker)]) -> Result<(), TokenError> {
    for (i, (d, one)) in speakers.iter().enumerate() {
        for (other_d, other) in &speakers[i + 1..] {
            let bound = matches!(one, Speaker::Bound(_)) || matches!(other, Speaker::Bound(_));
            if bound && bool::from(d.ct_eq(other_d)) {
                return Err(TokenError::GivenTwice {
                    first: one.name(),
                    second: other.name(),
                });
            }
        }
    }
    Ok(())
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

/// Refuse a token that has two roles: an agent token that is also a
/// reviewer token would approve its own calls, and a gateway or metrics
/// token that is also another role's would carry that role's rights where
/// only the narrower one was meant. The message names both roles and
/// where each was set, never the token or its digest.
fn refuse_shared(all: &[(Role, [u8; 32], String)]) -> Result<(), TokenError> {
    for (i, (role, d, place)) in all.iter().enumerate() {
        for (other_role, other, other_place) in &all[i + 1..] {
            if other_role != role && bool::from(d.ct_eq(other)) {
                return Err(TokenError::TwoRoles {
                    role: *role,
                    place: place.clone(),
                    other_role: *other_role,
                    other_place: other_place.clone(),
                });
            }
        }
    }
    Ok(())
}

/// Why the tokens of a `[serve]` table and the environment are refused
/// ([`Tokens::load`]). Its text (`Display`) names the file, the line, the
/// variable or the places a token was set, never the token or its digest.
#[derive(Debug, thiserror::Error)]
pub enum TokenError {
    /// A token file cannot be read, or is not private (a regular file of
    /// this user's that group and others cannot read).
    #[error("{}: {source}", .path.display())]
    Unreadable {
        /// The token file.
        path: PathBuf,
        /// Why it cannot be used.
        source: toolvet::private_file::PrivateFileError,
    },
    /// A token in a token file is shorter than [`MIN_TOKEN_BYTES`].
    #[error("{}:{line}: a token must be at least {MIN_TOKEN_BYTES} characters", .path.display())]
    ShortInFile {
        /// The token file.
        path: PathBuf,
        /// The token's line (1-based).
        line: usize,
    },
    /// A token in the environment is shorter than [`MIN_TOKEN_BYTES`].
    #[error("${var}: a token must be at least {MIN_TOKEN_BYTES} characters")]
    ShortInEnv {
        /// The variable ([`AGENT_TOKEN_ENV`], …).
        var: &'static str,
    },
    /// The `file` of an `agent_tokens` entry holds no token, or more than
    /// one.
    #[error(
        "[serve] agent_tokens[{index}] ({label:?}): {} must hold exactly one token; it holds {found}",
        .path.display()
    )]
    NotOneToken {
        /// The entry's index.
        index: usize,
        /// The entry's label.
        label: String,
        /// The token file.
        path: PathBuf,
        /// How many tokens it holds.
        found: usize,
    },
    /// One token is given to two roles (an agent token that can review
    /// approves its own calls).
    #[error(
        "one token is both {} token ({place}) and {} token ({other_place}); a token may have one \
         role only (an agent token that can review approves its own calls): issue a separate \
         token for each role",
        with_article(*.role),
        with_article(*.other_role)
    )]
    TwoRoles {
        /// The first role.
        role: Role,
        /// Where it was set (`[serve] agent_tokens_sha256[0]`,
        /// `[serve] reviewer_token_file (<file>:2)`, `$TOOLVET_AGENT_TOKEN`).
        place: String,
        /// The other role.
        other_role: Role,
        /// Where that was set.
        other_place: String,
    },
    /// One agent token is given twice where one of the two is bound (an
    /// `agent_tokens` entry): its principals would depend on which entry
    /// is read.
    #[error(
        "one agent token is given twice, as {first} and as {second}; a bound token is given once, \
         in its [serve] agent_tokens entry"
    )]
    GivenTwice {
        /// The first (`agent token "ci-bot"`, `the unbound agent token of
        /// …`).
        first: String,
        /// The second.
        second: String,
    },
}

/// `role` with its article: `an agent`, `a reviewer`.
fn with_article(role: Role) -> String {
    format!("a{} {}", article(role), role.as_str())
}

fn article(role: Role) -> &'static str {
    match role {
        Role::Agent => "n",
        _ => "",
    }
}

fn digest(token: &str) -> [u8; 32] {
    Sha256::digest(token.as_bytes()).into()
}

/// The tokens in `path`: one per line; blank lines and `#` comments are
/// skipped. The file must be private ([`toolvet::private_file::read_private`]:
/// a regular file of this user's that group and others cannot read). Each token
/// comes with its line number (1-based).
fn read_token_file(path: &Path) -> Result<Vec<(usize, [u8; 32])>, TokenError> {
    let text =
        toolvet::private_file::read_private(path).map_err(|source| TokenError::Unreadable {
            path: path.to_path_buf(),
            source,
        })?;
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if line.len() < MIN_TOKEN_BYTES {
            return Err(TokenError::ShortInFile {
                path: path.to_path_buf(),
                line: i + 1,
            });
        }
        out.push((i + 1, digest(line)));
    }
    Ok(out)
}

/// Whether two principal or agent names read alike to a person: equal
/// folded ([`toolvet::fold::fold`]: case, Unicode form, white space), or
/// equal as ASCII confusable skeletons ([`skeleton`]: `aIice@acme.com`
/// beside `alice@acme.com`, review s24 F1).
fn alike(a: &str, b: &str) -> bool {
    a == b || toolvet::fold::fold(a) == toolvet::fold::fold(b) || skeleton(a) == skeleton(b)
}

/// ASCII letters a person reads alike in a proportional font, each class
/// written as one letter; after case folding, so `I` is in the class of
/// `l`. Non-ASCII look-alikes are left to [`toolvet::display`], which
/// writes them out.
const CONFUSABLE_LETTERS: &[(&[char], char)] = &[(&['i', 'l', '1', '|'], 'l'), (&['0', 'o'], 'o')];

/// ASCII letter pairs read as one letter (after [`CONFUSABLE_LETTERS`]:
/// `cI` is `cl` is `d`).
const CONFUSABLE_PAIRS: &[(&str, &str)] = &[("rn", "m"), ("vv", "w"), ("cl", "d")];

/// Separators a person skips when comparing names by eye.
const SEPARATORS: &[char] = &['.', ',', '_', '-'];

/// `name`'s confusable skeleton: folded ([`toolvet::fold::fold`]), without
/// [`SEPARATORS`], each [`CONFUSABLE_LETTERS`] class as one letter, each
/// [`CONFUSABLE_PAIRS`] pair as its letter. Two names of one skeleton may
/// be read as one name (a small ASCII subset of UTS #39's skeleton).
fn skeleton(name: &str) -> String {
    let mapped: String = toolvet::fold::fold(name)
        .chars()
        .filter(|c| !SEPARATORS.contains(c))
        .map(|c| {
            CONFUSABLE_LETTERS
                .iter()
                .find(|(class, _)| class.contains(&c))
                .map_or(c, |(_, one)| *one)
        })
        .collect();
    CONFUSABLE_PAIRS
        .iter()
        .fold(mapped, |s, (pair, one)| s.replace(pair, one))
}

/// `name` (a principal or an agent, at `key`) when it is in canonical
/// form, without white space anywhere, so `"bob@acme.com "` or
/// `" bob@acme.com"` cannot stand beside Bob's bound name and read as his
/// on a reviewer's screen (review s20 T2). Invisible characters and
/// look-alike letters are shown written out ([`toolvet::display`]), and
/// bound names are compared folded ([`alike`]).
///
/// # Errors
/// 400 `name-not-canonical`, naming the key.
fn canonical(name: &str, key: &str, what: &str) -> Result<(), ApiError> {
    if name.chars().any(char::is_whitespace) {
        return Err(ApiError::bad_request(
            "name-not-canonical",
            format!(
                "`{key}` names the {what} {}: a {what} is one word, without white space",
                toolvet::display::field(name)
            ),
        ));
    }
    Ok(())
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
    fn a_token_in_two_roles_is_refused_naming_the_places_not_the_token() {
        // The same token as agent and reviewer, both from the environment.
        let e = Tokens::load(&ServeSettings::default(), |v| match v {
            AGENT_TOKEN_ENV | REVIEWER_TOKEN_ENV => Some(AGENT.into()),
            _ => None,
        })
        .unwrap_err()
        .to_string();
        assert!(
            e.contains("both an agent token ($TOOLVET_AGENT_TOKEN)"),
            "{e}"
        );
        assert!(
            e.contains("a reviewer token ($TOOLVET_REVIEWER_TOKEN)"),
            "{e}"
        );
        assert!(!e.contains(AGENT), "the token is never shown: {e}");
        assert!(!e.contains(&hex::encode(digest(AGENT))), "{e}");

        // A digest in the table and the same token in a file, for every
        // pair of roles (whitespace around the token does not hide it).
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("tokens");
        std::fs::write(&file, format!("# tokens\n {REVIEWER} \n")).unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600)).unwrap();
        }
        let settings = |table: Role, in_file: Role| {
            let mut s = ServeSettings::default();
            let d = vec![digest(REVIEWER)];
            match table {
                Role::Agent => s.agent_tokens_sha256 = d,
                Role::Reviewer => s.reviewer_tokens_sha256 = d,
                Role::Gateway => s.gateway_tokens_sha256 = d,
                Role::Metrics => s.metrics_tokens_sha256 = d,
            }
            let f = Some(file.clone());
            match in_file {
                Role::Agent => s.agent_token_file = f,
                Role::Reviewer => s.reviewer_token_file = f,
                Role::Gateway => s.gateway_token_file = f,
                Role::Metrics => s.metrics_token_file = f,
            }
            s
        };
        let roles = [Role::Agent, Role::Reviewer, Role::Gateway, Role::Metrics];
        for a in roles {
            for b in roles {
                let loaded = Tokens::load(&settings(a, b), |_| None);
                if a == b {
                    assert_eq!(loaded.unwrap().roles_of(REVIEWER), vec![a]);
                    continue;
                }
                let e = loaded.unwrap_err().to_string();
                let table = format!(
                    "{} token ([serve] {}_tokens_sha256[0])",
                    a.as_str(),
                    a.as_str()
                );
                let in_file = format!(
                    "{} token ([serve] {}_token_file ({}:2))",
                    b.as_str(),
                    b.as_str(),
                    file.display()
                );
                assert!(e.contains(&table), "{e}");
                assert!(e.contains(&in_file), "{e}");
                assert!(!e.contains(REVIEWER), "{e}");
            }
        }
    }

    /// The messages keep their words (the log and `/readyz` show them).
    #[test]
    fn token_errors_read_as_before() {
        for (e, text) in [
            (
                TokenError::TwoRoles {
                    role: Role::Agent,
                    place: "$TOOLVET_AGENT_TOKEN".into(),
                    other_role: Role::Metrics,
                    other_place: "[serve] metrics_tokens_sha256[1]".into(),
                },
                "one token is both an agent token ($TOOLVET_AGENT_TOKEN) and a metrics token \
                 ([serve] metrics_tokens_sha256[1]); a token may have one role only (an agent \
                 token that can review approves its own calls): issue a separate token for each \
                 role",
            ),
            (
                TokenError::GivenTwice {
                    first: "agent token \"ci\"".into(),
                    second: "the unbound agent token of $TOOLVET_AGENT_TOKEN".into(),
                },
                "one agent token is given twice, as agent token \"ci\" and as the unbound agent \
                 token of $TOOLVET_AGENT_TOKEN; a bound token is given once, in its [serve] \
                 agent_tokens entry",
            ),
            (
                TokenError::NotOneToken {
                    index: 2,
                    label: "ci".into(),
                    path: "/p/ci.token".into(),
                    found: 0,
                },
                "[serve] agent_tokens[2] (\"ci\"): /p/ci.token must hold exactly one token; it \
                 holds 0",
            ),
            (
                TokenError::ShortInFile {
                    path: "/p/t".into(),
                    line: 3,
                },
                "/p/t:3: a token must be at least 16 characters",
            ),
        ] {
            assert_eq!(e.to_string(), text);
        }
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
            let e = Tokens::load(&s, |_| None).unwrap_err().to_string();
            assert!(e.contains("chmod 600"), "{e}");
            std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600)).unwrap();
        }
        let e = Tokens::load(&s, |_| None).unwrap_err().to_string();
        assert!(e.contains(":2: a token must be at least"), "{e}");
        std::fs::write(&file, format!("{AGENT}\n")).unwrap();
        let t = Tokens::load(&s, |_| None).unwrap();
        assert_eq!(t.roles_of(AGENT), vec![Role::Agent]);
        s.agent_token_file = None;
        let e = Tokens::load(&s, |_| Some("short".into())).unwrap_err();
        assert!(matches!(e, TokenError::ShortInEnv { .. }), "{e}");
        assert_eq!(
            e.to_string(),
            format!("$TOOLVET_AGENT_TOKEN: a token must be at least {MIN_TOKEN_BYTES} characters")
        );
    }

    /// Review s24 F1: an unbound token cannot name a bound principal or
    /// agent through ASCII look-alikes (`I`/`l`/`1`, `0`/`O`, `rn`/`m`,
    /// `vv`/`w`, `cl`/`d`, separators), with the same 403 as the folded
    /// look-alikes; names that differ otherwise stay usable.
    #[test]
    fn ascii_look_alikes_of_bound_names_are_refused_to_unbound_tokens() {
        let alice = Speaker::Bound(Arc::new(Binding {
            label: "alice-laptop".into(),
            principals: vec!["alice@acme.com".into(), "mike@acme.com".into()],
            agents: Some(vec!["alice-agent".into(), "wolf-bot".into()]),
        }));
        let tokens = Tokens {
            speakers: vec![([7; 32], alice.clone())],
            ..Tokens::default()
        };
        let unbound = Speaker::Unbound {
            place: "[serve] agent_tokens_sha256[0]".into(),
        };
        for p in [
            "aIice@acme.com",
            "a1ice@acme.com",
            "a|ice@acme.com",
            "alice@acrne.com",
            "AIice@ACME.com",
            "a.lice@acme.com",
            "alice@acme-com",
            "rnike@acme.com",
            "alice@acme.c0m",
            "alice@acme.cOm",
        ] {
            let e = unbound
                .principal_for(Some(p), "context.principal", &tokens)
                .unwrap_err();
            assert_eq!(e.status(), StatusCode::FORBIDDEN, "{p}");
            let shown = format!("{e:?}");
            assert!(shown.contains("principal-forbidden"), "{p}: {shown}");
            assert!(shown.contains("alice-laptop"), "{p}: {shown}");
        }
        for a in [
            "aIice-agent",
            "alice_agent",
            "a1ice-agent",
            "vvolf-bot",
            "wo1f-bot",
        ] {
            let e = unbound
                .agent_for(Some(a), "context.agent", &tokens)
                .unwrap_err();
            assert_eq!(e.status(), StatusCode::FORBIDDEN, "{a}");
            assert!(format!("{e:?}").contains("agent-forbidden"), "{a}");
        }
        for p in [
            "bob@acme.com",
            "alicia@acme.com",
            "al@acme.com",
            "alice@acme.org",
        ] {
            assert_eq!(
                unbound
                    .principal_for(Some(p), "context.principal", &tokens)
                    .unwrap(),
                Some(p.to_string())
            );
        }
        for a in ["bob-agent", "alice-agent-2", "wolf"] {
            assert_eq!(
                unbound
                    .agent_for(Some(a), "context.agent", &tokens)
                    .unwrap(),
                Some(a.to_string())
            );
        }
        // The bound token itself names its principals exactly, not by
        // skeleton.
        assert!(
            alice
                .principal_for(Some("aIice@acme.com"), "context.principal", &tokens)
                .is_err()
        );
        assert!(!unbound.may_read(Some("aIice@acme.com"), &tokens));
        assert_eq!(skeleton("aIice@acme.com"), skeleton("alice@acme.com"));
        assert_eq!(skeleton("c1oud"), skeleton("doud"));
        assert_ne!(skeleton("alice@acme.com"), skeleton("alice@acme.org"));
    }
}
