//! The kinds of credential the detectors report: each kind's id (its rule
//! is `secrets.<id>`), a phrase for messages, its reporting priority and
//! the domains the credential is meant to be sent to.

use crate::providers::PROVIDERS;
use std::fmt;

/// A kind of credential. Its rule id is `secrets.<id>`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Kind {
    /// Google Cloud service-account key JSON (`private_key` + `client_email`).
    GcpServiceAccount,
    /// PEM (`-----BEGIN ... PRIVATE KEY-----` with a body) or PuTTY private key.
    PrivateKey,
    /// AWS access key id (`AKIA…`, `ASIA…`, `ABIA…`, `ACCA…`).
    AwsAccessKey,
    /// AWS secret access key (40 characters) next to an access key id or
    /// an `aws_secret_access_key` label.
    AwsSecretKey,
    /// GitHub token (`ghp_`, `gho_`, `ghu_`, `ghs_`, `ghr_`, `github_pat_`).
    GithubToken,
    /// Slack token (`xoxa-`, `xoxb-`, `xoxp-`, `xoxr-`, `xoxs-`, `xoxo-`).
    SlackToken,
    /// Slack incoming-webhook URL (`https://hooks.slack.com/services/…`).
    SlackWebhook,
    /// Stripe live secret or restricted key (`sk_live_`, `rk_live_`).
    StripeKey,
    /// Anthropic API key (`sk-ant-…`).
    AnthropicKey,
    /// OpenAI-style API key (`sk-…`, `sk-proj-…`, `sk-svcacct-…`).
    OpenaiKey,
    /// JSON Web Token whose header decodes to JSON with `alg`.
    Jwt,
    /// URL with a password in its userinfo (`https://user:pass@host`).
    BasicAuthUrl,
    /// A provider's token format (index into [`PROVIDERS`]).
    Provider(u8),
    /// A password, secret or token given by name (`password=…`,
    /// `"client_secret": "…"`).
    Password,
    /// Long random-looking token (Shannon entropy above the threshold).
    HighEntropy,
}

impl Kind {
    /// Every kind, in reporting priority order.
    pub fn all() -> Vec<Kind> {
        let mut v: Vec<Kind> = Kind::FIXED[..12].to_vec();
        v.extend((0..PROVIDERS.len()).map(|i| Kind::Provider(i as u8)));
        v.push(Kind::Password);
        v.push(Kind::HighEntropy);
        v
    }

    /// The kinds that are not provider formats.
    const FIXED: [Kind; 13] = [
        Kind::GcpServiceAccount,
        Kind::PrivateKey,
        Kind::AwsAccessKey,
        Kind::AwsSecretKey,
        Kind::GithubToken,
        Kind::SlackToken,
        Kind::SlackWebhook,
        Kind::StripeKey,
        Kind::AnthropicKey,
        Kind::OpenaiKey,
        Kind::Jwt,
        Kind::BasicAuthUrl,
        Kind::HighEntropy,
    ];

    /// The id used in the rule (`secrets.<id>`) and in settings.
    pub fn id(self) -> &'static str {
        match self {
            Kind::PrivateKey => "private-key",
            Kind::GcpServiceAccount => "gcp-service-account",
            Kind::AwsAccessKey => "aws-access-key",
            Kind::AwsSecretKey => "aws-secret-key",
            Kind::GithubToken => "github-token",
            Kind::SlackToken => "slack-token",
            Kind::SlackWebhook => "slack-webhook",
            Kind::StripeKey => "stripe-key",
            Kind::AnthropicKey => "anthropic-key",
            Kind::OpenaiKey => "openai-key",
            Kind::Jwt => "jwt",
            Kind::BasicAuthUrl => "basic-auth-url",
            Kind::Provider(i) => PROVIDERS[i as usize].id,
            Kind::Password => "password",
            Kind::HighEntropy => "high-entropy",
        }
    }

    /// The rule id, e.g. `secrets.aws-access-key`.
    pub fn rule(self) -> String {
        format!("secrets.{}", self.id())
    }

    /// The kind from its id.
    pub fn from_id(id: &str) -> Option<Kind> {
        Kind::all().into_iter().find(|k| k.id() == id)
    }

    /// Hosts (and their subdomains) the credential is meant to be sent to.
    pub fn home_domains(self) -> &'static [&'static str] {
        match self {
            Kind::AwsAccessKey | Kind::AwsSecretKey => &["amazonaws.com"],
            Kind::GithubToken => &["github.com", "githubusercontent.com"],
            Kind::SlackToken | Kind::SlackWebhook => &["slack.com"],
            Kind::StripeKey => &["stripe.com"],
            Kind::AnthropicKey => &["anthropic.com"],
            Kind::OpenaiKey => &["openai.com"],
            Kind::GcpServiceAccount => &["googleapis.com"],
            Kind::Provider(i) => PROVIDERS[i as usize].home,
            _ => &[],
        }
    }
}

impl fmt::Display for Kind {
    /// A phrase for messages, e.g. `an AWS access key id`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Kind::PrivateKey => "a private key",
            Kind::GcpServiceAccount => "a Google Cloud service-account key",
            Kind::AwsAccessKey => "an AWS access key id",
            Kind::AwsSecretKey => "an AWS secret access key",
            Kind::GithubToken => "a GitHub token",
            Kind::SlackToken => "a Slack token",
            Kind::SlackWebhook => "a Slack webhook URL",
            Kind::StripeKey => "a Stripe live key",
            Kind::AnthropicKey => "an Anthropic API key",
            Kind::OpenaiKey => "an OpenAI API key",
            Kind::Jwt => "a JSON Web Token",
            Kind::BasicAuthUrl => "a URL with an embedded password",
            Kind::Provider(i) => PROVIDERS[*i as usize].phrase,
            Kind::Password => "a password or secret given by name",
            Kind::HighEntropy => "a long random-looking token (possibly a credential)",
        })
    }
}
