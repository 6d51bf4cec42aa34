//! Token formats of common providers, one table: the format's id (its rule
//! is `secrets.<id>`), a phrase for messages, a regular expression and the
//! domains the token is meant for. Formats are the providers' documented
//! prefixes (npm `npm_`, GitLab `glpat-`, Google `AIza`, SendGrid `SG.`,
//! Hugging Face `hf_`, …), as also listed by gitleaks' public rules. All
//! formats are compiled into one regular expression that finds tokens
//! (no capture groups: the fast engines), and a set that tells which format
//! a found token is.

use regex::{Regex, RegexSet};

/// One provider's token format.
#[derive(Debug)]
pub struct Provider {
    /// Kind id, e.g. `npm-token` (rule `secrets.npm-token`).
    pub id: &'static str,
    /// For messages, e.g. `an npm access token`.
    pub phrase: &'static str,
    /// The token (ASCII word boundaries are added around it).
    pub pattern: &'static str,
    /// Domains (and their subdomains) the token is meant to be sent to.
    pub home: &'static [&'static str],
}

const fn p(
    id: &'static str,
    phrase: &'static str,
    pattern: &'static str,
    home: &'static [&'static str],
) -> Provider {
    Provider {
        id,
        phrase,
        pattern,
        home,
    }
}

/// The formats, in reporting order.
pub const PROVIDERS: &[Provider] = &[
    p(
        "npm-token",
        "an npm access token",
        r"npm_[A-Za-z0-9]{36}",
        &["npmjs.org", "npmjs.com"],
    ),
    p(
        "gitlab-token",
        "a GitLab token",
        r"(?:glpat|gldt|glrt|glptt|glcbt|gloas|glft|glsoat)-[A-Za-z0-9_-]{20,}",
        &["gitlab.com"],
    ),
    p(
        "google-api-key",
        "a Google API key",
        r"AIza[A-Za-z0-9_-]{35}",
        &["googleapis.com", "google.com"],
    ),
    p(
        "sendgrid-key",
        "a SendGrid API key",
        r"SG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}",
        &["sendgrid.com", "sendgrid.net"],
    ),
    p(
        "huggingface-token",
        "a Hugging Face token",
        r"hf_[A-Za-z0-9]{34,40}",
        &["huggingface.co"],
    ),
    p(
        "twilio-key",
        "a Twilio API key",
        r"SK[0-9a-f]{32}",
        &["twilio.com"],
    ),
    p(
        "shopify-token",
        "a Shopify access token",
        r"shp(?:at|ss|ca|pa)_[A-Fa-f0-9]{32}",
        &["myshopify.com", "shopify.com"],
    ),
    p(
        "digitalocean-token",
        "a DigitalOcean token",
        r"do[opr]_v1_[a-f0-9]{64}",
        &["digitalocean.com"],
    ),
    p(
        "pypi-token",
        "a PyPI upload token",
        r"pypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50,}",
        &["pypi.org"],
    ),
    p(
        "slack-app-token",
        "a Slack app token",
        r"xapp-[0-9]-[A-Za-z0-9-]{20,}",
        &["slack.com"],
    ),
    p(
        "databricks-token",
        "a Databricks token",
        r"dapi[a-f0-9]{32}",
        &["databricks.com", "azuredatabricks.net"],
    ),
    p(
        "vault-token",
        "a HashiCorp Vault token",
        r"hv[sbr]\.[A-Za-z0-9_-]{24,}",
        &[],
    ),
    p(
        "linear-key",
        "a Linear API key",
        r"lin_api_[A-Za-z0-9]{40}",
        &["linear.app"],
    ),
    p(
        "postman-key",
        "a Postman API key",
        r"PMAK-[a-f0-9]{24}-[a-f0-9]{34}",
        &["getpostman.com", "postman.com"],
    ),
    p(
        "grafana-token",
        "a Grafana token",
        r"gl(?:sa|c)_[A-Za-z0-9_=+/-]{32,}",
        &["grafana.net", "grafana.com"],
    ),
    p(
        "doppler-token",
        "a Doppler token",
        r"dp\.(?:pt|st|sa|ct|scim|audit)\.[A-Za-z0-9]{40,}",
        &["doppler.com"],
    ),
    p(
        "age-secret-key",
        "an age secret key",
        r"AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}",
        &[],
    ),
    p(
        "telegram-bot-token",
        "a Telegram bot token",
        r"[0-9]{8,10}:AA[A-Za-z0-9_-]{33}",
        &["telegram.org"],
    ),
    p(
        "discord-webhook",
        "a Discord webhook URL",
        r"https://(?:ptb\.|canary\.)?discord(?:app)?\.com/api/webhooks/[0-9]{17,20}/[A-Za-z0-9_-]{60,}",
        &["discord.com"],
    ),
];

/// Compile [`PROVIDERS`]: one expression that finds tokens (no capture
/// groups, so the fast engines run) and a set that tells their format.
pub fn combined() -> Compiled {
    let alternatives: Vec<String> = PROVIDERS
        .iter()
        .map(|p| format!("(?:{})", p.pattern))
        .collect();
    Compiled {
        any: Regex::new(&format!(r"(?-u:\b)(?:{})(?-u:\b)", alternatives.join("|")))
            .expect("provider patterns compile"),
        which: RegexSet::new(PROVIDERS.iter().map(|p| format!("^(?:{})$", p.pattern)))
            .expect("provider patterns compile"),
    }
}

/// The compiled formats of [`PROVIDERS`].
#[derive(Debug)]
pub struct Compiled {
    any: Regex,
    which: RegexSet,
}

/// `(provider index, start, end)` of every provider token in `text`.
pub fn find(c: &Compiled, text: &str) -> Vec<(usize, usize, usize)> {
    c.any
        .find_iter(text)
        .filter_map(|m| {
            Some((
                c.which.matches(m.as_str()).into_iter().next()?,
                m.start(),
                m.end(),
            ))
        })
        .collect()
}
