//! Which hosts a tool must never reach: cloud metadata services, and
//! loopback, private, link-local and other special-purpose networks.
//!
//! Addresses are classified after the URL parser has turned the host into a
//! canonical [`IpAddr`], so every spelling the WHATWG host parser accepts
//! (`2852039166`, `0251.0376.0251.0376`, `0xa9fea9fe`, `127.1`, `[::ffff:a9fe:a9fe]`,
//! `%31%32%37.0.0.1`, full-width digits, ...) is classified by value, not by
//! text.
//!
//! Sources of the ranges: the IANA special-purpose address registries
//! (RFC 6890) and the RFCs cited on each entry.

use ipnet::{IpNet, Ipv4Net, Ipv6Net};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
use std::sync::OnceLock;

/// Why a host must not be reached.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unsafe {
    /// A cloud instance-metadata endpoint; `service` names who runs it.
    Metadata {
        /// E.g. `AWS, GCP, Azure, OCI and others`.
        service: &'static str,
    },
    /// A special-purpose range or internal name.
    Private {
        /// What the range is, e.g. `loopback address`.
        what: &'static str,
        /// Where the range is defined, e.g. `RFC 1122`.
        source: &'static str,
    },
}

/// Well-known metadata endpoints by address.
const METADATA_IPS: &[(&str, &str)] = &[
    (
        "169.254.169.254",
        "cloud instance metadata service (AWS, GCP, Azure, OCI, DigitalOcean, OpenStack)",
    ),
    (
        "169.254.170.2",
        "AWS ECS task metadata and credentials endpoint",
    ),
    ("100.100.100.200", "Alibaba Cloud instance metadata service"),
    (
        "192.0.0.192",
        "Oracle Cloud Classic instance metadata service",
    ),
    ("fd00:ec2::254", "AWS instance metadata service (IPv6)"),
];

/// Well-known metadata endpoints by DNS name (compared after lowercasing
/// and removing trailing dots).
const METADATA_NAMES: &[(&str, &str)] = &[
    ("metadata.google.internal", "GCP instance metadata service"),
    ("metadata.goog", "GCP instance metadata service"),
    ("metadata", "GCP instance metadata service (short name)"),
    (
        "instance-data",
        "AWS instance metadata service (short name)",
    ),
    (
        "instance-data.ec2.internal",
        "AWS instance metadata service",
    ),
    (
        "metadata.tencentyun.com",
        "Tencent Cloud instance metadata service",
    ),
];

/// IPv4 special-purpose ranges, first match wins.
const V4_RANGES: &[(&str, &str, &str)] = &[
    (
        "0.0.0.0/8",
        "\"this network\" (unspecified) address",
        "RFC 1122 §3.2.1.3",
    ),
    ("10.0.0.0/8", "private address", "RFC 1918"),
    (
        "100.64.0.0/10",
        "carrier-grade NAT shared address",
        "RFC 6598",
    ),
    ("127.0.0.0/8", "loopback address", "RFC 1122 §3.2.1.3"),
    ("169.254.0.0/16", "link-local address", "RFC 3927"),
    ("172.16.0.0/12", "private address", "RFC 1918"),
    (
        "192.0.0.0/24",
        "IETF protocol assignment address",
        "RFC 6890",
    ),
    ("192.168.0.0/16", "private address", "RFC 1918"),
    ("198.18.0.0/15", "benchmarking network address", "RFC 2544"),
    ("224.0.0.0/4", "multicast address", "RFC 5771"),
    (
        "240.0.0.0/4",
        "reserved or broadcast address",
        "RFC 1112 §4, RFC 919",
    ),
];

/// IPv6 special-purpose ranges that do not embed an IPv4 address, first
/// match wins.
const V6_RANGES: &[(&str, &str, &str)] = &[
    ("::/128", "unspecified address", "RFC 4291 §2.5.2"),
    ("::1/128", "loopback address", "RFC 4291 §2.5.3"),
    ("64:ff9b:1::/48", "local-use NAT64 address", "RFC 8215"),
    ("100::/64", "discard-only address", "RFC 6666"),
    ("fc00::/7", "unique local address", "RFC 4193"),
    ("fe80::/10", "link-local address", "RFC 4291 §2.5.6"),
    ("fec0::/10", "site-local address", "RFC 3879"),
    ("ff00::/8", "multicast address", "RFC 4291 §2.7"),
];

struct Tables {
    v4: Vec<(Ipv4Net, &'static str, &'static str)>,
    v6: Vec<(Ipv6Net, &'static str, &'static str)>,
    metadata: Vec<(IpAddr, &'static str)>,
}

fn tables() -> &'static Tables {
    static TABLES: OnceLock<Tables> = OnceLock::new();
    TABLES.get_or_init(|| Tables {
        v4: V4_RANGES
            .iter()
            .map(|(net, what, src)| (net.parse().expect("valid IPv4 table entry"), *what, *src))
            .collect(),
        v6: V6_RANGES
            .iter()
            .map(|(net, what, src)| (net.parse().expect("valid IPv6 table entry"), *what, *src))
            .collect(),
        metadata: METADATA_IPS
            .iter()
            .map(|(ip, what)| (ip.parse().expect("valid metadata address"), *what))
            .collect(),
    })
}

/// The IPv4 address an IPv6 address carries, if it is one of the forms
/// that reach an IPv4 host: IPv4-mapped `::ffff:a.b.c.d` (RFC 4291
/// §2.5.5.2), IPv4-compatible `::a.b.c.d` (RFC 4291 §2.5.5.1, deprecated),
/// IPv4-translated `::ffff:0:a.b.c.d` (RFC 2765), NAT64 well-known prefix
/// `64:ff9b::/96` (RFC 6052), 6to4 `2002:aabb:ccdd::/48` (RFC 3056) and
/// Teredo `2001::/32` (the client address, RFC 4380 §4).
pub fn embedded_ipv4(ip: Ipv6Addr) -> Option<Ipv4Addr> {
    let s = ip.segments();
    let low32 = Ipv4Addr::new((s[6] >> 8) as u8, s[6] as u8, (s[7] >> 8) as u8, s[7] as u8);
    match s {
        // ::ffff:a.b.c.d
        [0, 0, 0, 0, 0, 0xffff, _, _] => Some(low32),
        // ::ffff:0:a.b.c.d
        [0, 0, 0, 0, 0xffff, 0, _, _] => Some(low32),
        // ::a.b.c.d, but not :: and ::1 themselves
        [0, 0, 0, 0, 0, 0, hi, lo] if hi != 0 || lo > 1 => Some(low32),
        // 64:ff9b::a.b.c.d
        [0x64, 0xff9b, 0, 0, 0, 0, _, _] => Some(low32),
        // 2002:AABB:CCDD::/48
        [0x2002, hi, lo, ..] => Some(Ipv4Addr::new(
            (hi >> 8) as u8,
            hi as u8,
            (lo >> 8) as u8,
            lo as u8,
        )),
        // Teredo: client address is the last 32 bits, inverted.
        [0x2001, 0, ..] => Some(Ipv4Addr::from(!u32::from(low32))),
        _ => None,
    }
}

/// Classify an address: `Some` when a tool must not reach it.
///
/// IPv6 forms that carry an IPv4 address (see [`embedded_ipv4`]) are
/// classified by that IPv4 address.
pub fn classify_ip(ip: IpAddr) -> Option<Unsafe> {
    let t = tables();
    if let Some((_, service)) = t.metadata.iter().find(|(m, _)| *m == ip) {
        return Some(Unsafe::Metadata { service });
    }
    match ip {
        IpAddr::V4(v4) => {
            t.v4.iter()
                .find(|(net, _, _)| net.contains(&v4))
                .map(|(_, what, source)| Unsafe::Private { what, source })
        }
        IpAddr::V6(v6) => {
            if let Some(v4) = embedded_ipv4(v6) {
                return classify_ip(IpAddr::V4(v4));
            }
            t.v6.iter()
                .find(|(net, _, _)| net.contains(&v6))
                .map(|(_, what, source)| Unsafe::Private { what, source })
        }
    }
}

/// Domains under which any name resolves to loopback (public DNS records
/// that point at 127.0.0.1).
const LOOPBACK_DOMAINS: &[&str] = &["localtest.me", "lvh.me", "vcap.me"];

/// Wildcard DNS services whose names resolve to the IPv4 address written in
/// them, e.g. `10.0.0.1.nip.io` or `app-10-0-0-1.sslip.io`.
const IP_ECHO_DOMAINS: &[&str] = &["nip.io", "sslip.io", "xip.io", "traefik.me"];

/// Name suffixes reserved for private use: `.localhost` (RFC 6761 §6.3),
/// `.local` (mDNS, RFC 6762), `.home.arpa` (RFC 8375), `.internal` (ICANN
/// private-use TLD, 2024), `.localdomain`, and Kubernetes' `.svc`.
const PRIVATE_SUFFIXES: &[(&str, &str)] = &[
    ("localhost", "RFC 6761 §6.3"),
    ("local", "RFC 6762"),
    ("home.arpa", "RFC 8375"),
    ("internal", "ICANN private-use TLD"),
    ("localdomain", "common resolver convention"),
    ("svc", "Kubernetes cluster DNS"),
];

/// Whether `name` is `domain` or a subdomain of it.
pub fn is_within(name: &str, domain: &str) -> bool {
    name == domain
        || (name.len() > domain.len()
            && name.ends_with(domain)
            && name.as_bytes()[name.len() - domain.len() - 1] == b'.')
}

/// Classify a DNS name (ASCII, lowercase, as the URL parser leaves it;
/// trailing dots are ignored): `Some` when a tool must not reach it.
///
/// Names are not resolved (the sandbox has no DNS), so only names that are
/// internal by construction are caught: metadata names, `localhost`,
/// private-use suffixes, single-label names (resolved through the local
/// search domains), loopback alias domains and IP-echo wildcard DNS
/// services.
pub fn classify_domain(name: &str) -> Option<Unsafe> {
    let name = name.trim_end_matches('.');
    if let Some((_, service)) = METADATA_NAMES.iter().find(|(m, _)| *m == name) {
        return Some(Unsafe::Metadata { service });
    }
    if let Some((_, source)) = PRIVATE_SUFFIXES.iter().find(|(s, _)| is_within(name, s)) {
        return Some(Unsafe::Private {
            what: if is_within(name, "localhost") {
                "loopback name"
            } else {
                "private-use name"
            },
            source,
        });
    }
    if !name.contains('.') {
        return Some(Unsafe::Private {
            what: "single-label (intranet) name",
            source: "resolved through the local DNS search domains",
        });
    }
    if LOOPBACK_DOMAINS.iter().any(|d| is_within(name, d)) {
        return Some(Unsafe::Private {
            what: "name that public DNS resolves to loopback",
            source: "loopback alias domain",
        });
    }
    for domain in IP_ECHO_DOMAINS {
        if is_within(name, domain) && name != *domain {
            let prefix = &name[..name.len() - domain.len() - 1];
            let echoed = echoed_addresses(prefix);
            if echoed.is_empty() {
                // These services exist to point names at any address: a
                // name whose address is not read here may be any of them
                // (review s8 F8).
                return Some(Unsafe::Private {
                    what: "IP-echo DNS name whose address this check cannot read",
                    source: "wildcard DNS service that resolves names to the address written in them",
                });
            }
            // Every address the name may be read as must be public.
            return echoed.into_iter().find_map(classify_ip);
        }
    }
    None
}

/// Every address an IP-echo service may read in a name prefix: four
/// decimal numbers in a row anywhere (dotted `app.10.0.0.1`, dashed
/// `app-10-0-0-1`, or mixed), eight hex digits (`7f000001`,
/// `magic-a9fea9fe`, nip.io's hex form), and a label, or the part of one
/// after a dash, that is an IPv6 address written with `-` for `:`
/// (sslip.io's `--1` for `::1`, `fd00-ec2--254` for `fd00:ec2::254`).
/// Empty when the prefix holds none of these.
fn echoed_addresses(prefix: &str) -> Vec<IpAddr> {
    let mut found = Vec::new();
    let tokens: Vec<&str> = prefix.split(['.', '-']).collect();
    let octet = |t: &str| -> Option<u8> {
        if t.is_empty() || t.len() > 3 || !t.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        t.parse().ok()
    };
    for window in tokens.windows(4) {
        let octets: Option<Vec<u8>> = window.iter().map(|t| octet(t)).collect();
        if let Some(o) = octets {
            found.push(IpAddr::V4(Ipv4Addr::new(o[0], o[1], o[2], o[3])));
        }
    }
    for t in &tokens {
        if t.len() == 8
            && t.bytes().all(|b| b.is_ascii_hexdigit())
            && let Ok(n) = u32::from_str_radix(t, 16)
        {
            found.push(IpAddr::V4(Ipv4Addr::from(n)));
        }
    }
    for label in prefix.split('.') {
        if !label.contains('-') {
            continue;
        }
        // The whole label, and what follows each dash (`www-` before it).
        let starts = std::iter::once(0).chain(label.match_indices('-').map(|(i, _)| i + 1));
        for start in starts {
            let text = label[start..].replace('-', ":");
            if let Ok(v6) = text.parse::<Ipv6Addr>() {
                found.push(IpAddr::V6(v6));
            }
        }
    }
    found
}

/// `ip` with IPv4-mapped IPv6 addresses turned into IPv4, so that list
/// entries written as IPv4 also match `[::ffff:a.b.c.d]`.
pub fn canonical(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V6(v6) => v6
            .to_ipv4_mapped()
            .map(IpAddr::V4)
            .unwrap_or(IpAddr::V6(v6)),
        v4 => v4,
    }
}

/// Whether `net` contains `ip` (after [`canonical`]).
pub fn net_contains(net: &IpNet, ip: IpAddr) -> bool {
    net.contains(&canonical(ip))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    fn what(u: Option<Unsafe>) -> String {
        match u {
            Some(Unsafe::Metadata { .. }) => "metadata".into(),
            Some(Unsafe::Private { what, .. }) => what.into(),
            None => "public".into(),
        }
    }

    #[test]
    fn ipv4_ranges() {
        assert_eq!(what(classify_ip(ip("127.0.0.1"))), "loopback address");
        assert_eq!(what(classify_ip(ip("127.255.3.4"))), "loopback address");
        assert_eq!(what(classify_ip(ip("10.1.2.3"))), "private address");
        assert_eq!(what(classify_ip(ip("172.16.0.1"))), "private address");
        assert_eq!(what(classify_ip(ip("172.31.255.255"))), "private address");
        assert_eq!(what(classify_ip(ip("172.32.0.1"))), "public");
        assert_eq!(what(classify_ip(ip("192.168.1.1"))), "private address");
        assert_eq!(
            what(classify_ip(ip("100.64.0.1"))),
            "carrier-grade NAT shared address"
        );
        assert_eq!(what(classify_ip(ip("100.128.0.1"))), "public");
        assert_eq!(what(classify_ip(ip("169.254.1.1"))), "link-local address");
        assert_eq!(
            what(classify_ip(ip("0.0.0.0"))),
            "\"this network\" (unspecified) address"
        );
        assert_eq!(what(classify_ip(ip("224.0.0.251"))), "multicast address");
        assert_eq!(
            what(classify_ip(ip("255.255.255.255"))),
            "reserved or broadcast address"
        );
        assert_eq!(what(classify_ip(ip("93.184.215.14"))), "public");
        assert_eq!(what(classify_ip(ip("8.8.8.8"))), "public");
    }

    #[test]
    fn metadata_addresses() {
        for m in [
            "169.254.169.254",
            "169.254.170.2",
            "100.100.100.200",
            "fd00:ec2::254",
            "::ffff:169.254.169.254",
            "::ffff:a9fe:a9fe",
            "64:ff9b::a9fe:a9fe",
            "2002:a9fe:a9fe::1",
        ] {
            assert_eq!(what(classify_ip(ip(m))), "metadata", "{m}");
        }
    }

    #[test]
    fn ipv6_ranges() {
        assert_eq!(what(classify_ip(ip("::1"))), "loopback address");
        assert_eq!(what(classify_ip(ip("::"))), "unspecified address");
        assert_eq!(
            what(classify_ip(ip("fd12:3456::1"))),
            "unique local address"
        );
        assert_eq!(what(classify_ip(ip("fc00::1"))), "unique local address");
        assert_eq!(what(classify_ip(ip("fe80::1"))), "link-local address");
        assert_eq!(what(classify_ip(ip("ff02::1"))), "multicast address");
        assert_eq!(
            what(classify_ip(ip("::ffff:127.0.0.1"))),
            "loopback address"
        );
        assert_eq!(what(classify_ip(ip("::127.0.0.1"))), "loopback address");
        assert_eq!(
            what(classify_ip(ip("::ffff:0:10.0.0.1"))),
            "private address"
        );
        assert_eq!(what(classify_ip(ip("2606:4700::1111"))), "public");
        assert_eq!(what(classify_ip(ip("64:ff9b::808:808"))), "public");
    }

    #[test]
    fn teredo_client_is_inverted() {
        // Client 127.0.0.1 is stored as !0x7f000001 = 0x80fffffe.
        assert_eq!(
            embedded_ipv4(ip6("2001:0:4136:e378:8000:63bf:80ff:fffe")),
            Some(Ipv4Addr::new(127, 0, 0, 1))
        );
    }

    fn ip6(s: &str) -> Ipv6Addr {
        s.parse().unwrap()
    }

    #[test]
    fn domains() {
        assert_eq!(
            what(classify_domain("metadata.google.internal")),
            "metadata"
        );
        assert_eq!(
            what(classify_domain("metadata.google.internal.")),
            "metadata"
        );
        assert_eq!(what(classify_domain("metadata")), "metadata");
        assert_eq!(what(classify_domain("localhost")), "loopback name");
        assert_eq!(what(classify_domain("api.localhost")), "loopback name");
        assert_eq!(what(classify_domain("printer.local")), "private-use name");
        assert_eq!(what(classify_domain("db.internal")), "private-use name");
        assert_eq!(
            what(classify_domain("redis")),
            "single-label (intranet) name"
        );
        assert_eq!(
            what(classify_domain("foo.lvh.me")),
            "name that public DNS resolves to loopback"
        );
        assert_eq!(what(classify_domain("169.254.169.254.nip.io")), "metadata");
        assert_eq!(
            what(classify_domain("app-10-0-0-1.sslip.io")),
            "private address"
        );
        assert_eq!(what(classify_domain("app.8.8.8.8.nip.io")), "public");
        assert_eq!(what(classify_domain("app-8-8-8-8.sslip.io")), "public");
        assert_eq!(what(classify_domain("8-8-8-8.sslip.io")), "public");
        assert_eq!(what(classify_domain("nip.io")), "public");
        assert_eq!(what(classify_domain("example.com")), "public");
        assert_eq!(what(classify_domain("notlocalhost.com")), "public");
        assert_eq!(what(classify_domain("internal.example.com")), "public");
    }

    #[test]
    fn within() {
        assert!(is_within("a.example.com", "example.com"));
        assert!(is_within("example.com", "example.com"));
        assert!(!is_within("badexample.com", "example.com"));
    }

    #[test]
    fn ip_echo_names_in_other_forms() {
        // Review s8 F8: sslip.io's IPv6 names (`-` for `:`) and the hex
        // form, allowed before.
        assert_eq!(what(classify_domain("--1.sslip.io")), "loopback address");
        assert_eq!(
            what(classify_domain("www---1.sslip.io")),
            "loopback address"
        );
        assert_eq!(
            what(classify_domain("app.--1.sslip.io")),
            "loopback address"
        );
        assert_eq!(what(classify_domain("fd00-ec2--254.sslip.io")), "metadata");
        assert_eq!(
            what(classify_domain("fe80--1.sslip.io")),
            "link-local address"
        );
        assert_eq!(
            what(classify_domain("--ffff-a9fe-a9fe.sslip.io")),
            "metadata"
        );
        assert_eq!(what(classify_domain("7f000001.nip.io")), "loopback address");
        assert_eq!(what(classify_domain("a9fea9fe.nip.io")), "metadata");
        assert_eq!(what(classify_domain("magic-a9fea9fe.nip.io")), "metadata");
        assert_eq!(
            what(classify_domain("app.0a000001.sslip.io")),
            "private address"
        );
        assert_eq!(
            what(classify_domain(
                "A9FEA9FE.nip.io".to_ascii_lowercase().as_str()
            )),
            "metadata"
        );
        // An address anywhere in the prefix, not only at its end.
        assert_eq!(
            what(classify_domain("10-0-0-1-app.sslip.io")),
            "private address"
        );
        // A public address beside a private one is not enough.
        assert_eq!(
            what(classify_domain("8.8.8.8.fd00-ec2--254.sslip.io")),
            "metadata"
        );
        assert_eq!(
            what(classify_domain("8-8-8-8.127-0-0-1.nip.io")),
            "loopback address"
        );
        // Public ones in the new forms stay allowed.
        assert_eq!(
            what(classify_domain("2a01-4f8-c17-b8f--2.sslip.io")),
            "public"
        );
        assert_eq!(what(classify_domain("08080808.nip.io")), "public");
        // A name whose address is not read fails closed.
        for name in [
            "app.nip.io",
            "www.sslip.io",
            "x-1-2.xip.io",
            "abc.traefik.me",
            "1-2-3.nip.io",
        ] {
            assert_eq!(
                what(classify_domain(name)),
                "IP-echo DNS name whose address this check cannot read",
                "{name}"
            );
        }
    }
}
