//! egress-guard's URL vetting on arbitrary text: never panics, in strict
//! (a URL argument of a URL tool) and lenient (free text) mode, and is
//! consistent with the WHATWG parser it is built on: a text that parses as
//! an http(s) URL whose host is a metadata, loopback, private or internal
//! address is never judged fine.

use egress_guard::address::{classify_domain, classify_ip};
use egress_guard::extract::{Candidate, free_text_urls};
use egress_guard::hosts::Target;
use egress_guard::{EgressGuard, Settings, Vetted};
use toolvet_pdk::Check;

thread_local! {
    // The guard caches compiled globs in a `OnceCell`, so it is not `Sync`;
    // libFuzzer calls the target from one thread.
    static GUARD: EgressGuard = EgressGuard::new(Settings::default()).expect("default settings");
}

/// The property, on one input (any bytes).
pub fn run(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let candidate = Candidate {
        path: "arguments.url".into(),
        text: text.trim().to_string(),
        from_url_arg: true,
    };
    let strict = GUARD.with(|guard| {
        let strict = guard.vet(&candidate, true);
        let _ = guard.vet(&candidate, false);
        strict
    });
    let _ = Target::parse(text);
    let _ = free_text_urls(&serde_json::json!({"body": text}));

    if let Ok(url) = url::Url::parse(candidate.text.as_str())
        && matches!(url.scheme(), "http" | "https")
        && let Some(host) = url.host()
        && let Ok(target) = Target::from_url_host(host)
    {
        let unsafe_host = match &target {
            Target::Ip(ip) => classify_ip(*ip).is_some(),
            Target::Domain(d) => classify_domain(d).is_some(),
        };
        if unsafe_host {
            assert!(
                matches!(strict, Vetted::Bad(_)),
                "{text:?} reaches {target:?} but was judged {strict:?}"
            );
        }
    }
}
