//! Host lists (`allow_hosts`, `deny_hosts`, `allow_private_hosts`) and the
//! hosts they are matched against.

use crate::address::{canonical, is_within, net_contains};
use ipnet::IpNet;
use std::fmt;
use std::net::IpAddr;
use url::Host;

/// A URL's host after WHATWG host parsing: a lowercase ASCII domain
/// (IDNA-mapped, trailing dots removed) or an IP address.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// A DNS name.
    Domain(String),
    /// An IPv4 or IPv6 address (IPv4-mapped IPv6 kept as written; list
    /// matching sees through it).
    Ip(IpAddr),
}

impl Target {
    /// Parse a host the way a special (http/https) URL's host is parsed:
    /// percent-decoding, IDNA mapping, IPv4 number forms (decimal, octal,
    /// hex, short forms) and bracketed IPv6.
    ///
    /// # Errors
    /// The parser's message when the text is not a valid host.
    pub fn parse(host: &str) -> Result<Self, String> {
        match Host::parse(host).map_err(|e| e.to_string())? {
            Host::Domain(d) => Ok(Self::from_domain(&d)),
            Host::Ipv4(ip) => Ok(Target::Ip(IpAddr::V4(ip))),
            Host::Ipv6(ip) => Ok(Target::Ip(IpAddr::V6(ip))),
        }
    }

    /// A target from an already parsed URL host.
    pub fn from_url_host(host: Host<&str>) -> Result<Self, String> {
        match host {
            // Opaque hosts (non-special schemes) get the special-scheme host
            // parser so their addresses are classified too.
            Host::Domain(d) => Target::parse(d).or_else(|_| Ok(Self::from_domain(d))),
            Host::Ipv4(ip) => Ok(Target::Ip(IpAddr::V4(ip))),
            Host::Ipv6(ip) => Ok(Target::Ip(IpAddr::V6(ip))),
        }
    }

    fn from_domain(d: &str) -> Self {
        Target::Domain(d.trim_end_matches('.').to_ascii_lowercase())
    }
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Target::Domain(d) => f.write_str(d),
            Target::Ip(IpAddr::V4(ip)) => write!(f, "{ip}"),
            Target::Ip(IpAddr::V6(ip)) => write!(f, "[{ip}]"),
        }
    }
}

/// One entry of a host list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HostPattern {
    /// `*`: every host.
    Any,
    /// `example.com`: exactly that name.
    Exact(String),
    /// `*.example.com`: any name below `example.com` (not the name itself).
    Below(String),
    /// `10.0.0.0/8`, `203.0.113.7`, `[::1]`: addresses in the network.
    Net(IpNet),
}

impl HostPattern {
    /// Parse a list entry: `*`, `name`, `*.name`, an IP address (IPv6 with
    /// or without brackets) or a CIDR network. Names are normalised like URL
    /// hosts (lowercase, IDNA, trailing dot removed), and an entry that the
    /// host parser reads as an address (`0x7f.1`) becomes that address.
    ///
    /// # Errors
    /// A message saying what is wrong with the entry.
    pub fn parse(entry: &str) -> Result<Self, String> {
        let e = entry.trim();
        if e.is_empty() {
            return Err("empty host pattern".into());
        }
        if e == "*" {
            return Ok(HostPattern::Any);
        }
        if e.contains('/') {
            let net: IpNet = e
                .trim_start_matches('[')
                .replace("]/", "/")
                .parse()
                .map_err(|_| format!("`{e}` is not a valid CIDR network (e.g. 10.0.0.0/8)"))?;
            return Ok(HostPattern::Net(net.trunc()));
        }
        if let Some(rest) = e.strip_prefix("*.") {
            if rest.contains('*') {
                return Err(format!(
                    "`{e}`: only a leading `*.` wildcard is supported (e.g. *.example.com)"
                ));
            }
            return match Target::parse(rest) {
                Ok(Target::Domain(d)) => Ok(HostPattern::Below(d)),
                Ok(Target::Ip(_)) => Err(format!("`{e}`: a wildcard needs a domain name")),
                Err(err) => Err(format!("`{e}` is not a valid host: {err}")),
            };
        }
        if e.contains('*') {
            return Err(format!(
                "`{e}`: only a leading `*.` wildcard is supported (e.g. *.example.com)"
            ));
        }
        let bracketed = if e.contains(':') && !e.starts_with('[') {
            format!("[{e}]")
        } else {
            e.to_string()
        };
        match Target::parse(&bracketed) {
            Ok(Target::Domain(d)) => Ok(HostPattern::Exact(d)),
            Ok(Target::Ip(ip)) => Ok(HostPattern::Net(IpNet::from(canonical(ip)))),
            Err(err) => Err(format!("`{e}` is not a valid host: {err}")),
        }
    }

    /// Whether the pattern matches the target.
    pub fn matches(&self, target: &Target) -> bool {
        match (self, target) {
            (HostPattern::Any, _) => true,
            (HostPattern::Exact(p), Target::Domain(d)) => p == d,
            (HostPattern::Below(p), Target::Domain(d)) => d != p && is_within(d, p),
            (HostPattern::Net(net), Target::Ip(ip)) => net_contains(net, *ip),
            _ => false,
        }
    }
}

/// A parsed host list, keeping the entries as written for messages.
#[derive(Debug, Clone, Default)]
pub struct HostList {
    patterns: Vec<HostPattern>,
    written: Vec<String>,
}

impl HostList {
    /// Parse every entry of the setting `key`.
    ///
    /// # Errors
    /// `settings.<key>[i]: ...` for the first bad entry.
    pub fn parse(key: &str, entries: &[String]) -> Result<Self, String> {
        let patterns = entries
            .iter()
            .enumerate()
            .map(|(i, e)| HostPattern::parse(e).map_err(|m| format!("settings.{key}[{i}]: {m}")))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Self {
            patterns,
            written: entries.iter().map(|e| e.trim().to_string()).collect(),
        })
    }

    /// Whether any entry matches.
    pub fn matches(&self, target: &Target) -> bool {
        self.patterns.iter().any(|p| p.matches(target))
    }

    /// Whether the list is empty.
    pub fn is_empty(&self) -> bool {
        self.patterns.is_empty()
    }

    /// The first `n` entries as written, comma-separated, with `, ...` when
    /// there are more.
    pub fn summary(&self, n: usize) -> String {
        let mut s = self
            .written
            .iter()
            .take(n)
            .cloned()
            .collect::<Vec<_>>()
            .join(", ");
        if self.written.len() > n {
            s.push_str(", ...");
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(s: &str) -> Target {
        Target::parse(s).unwrap()
    }

    #[test]
    fn target_parsing_uses_whatwg_ipv4_forms() {
        let meta = Target::Ip("169.254.169.254".parse().unwrap());
        assert_eq!(t("2852039166"), meta);
        assert_eq!(t("0xa9fea9fe"), meta);
        assert_eq!(t("0251.0376.0251.0376"), meta);
        assert_eq!(t("0xa9.0xfe.0xa9.0xfe"), meta);
        assert_eq!(t("169.254.43518"), meta);
        assert_eq!(t("169.254.169.254."), meta);
        assert_eq!(t("%31%36%39.254.169.254"), meta);
        assert_eq!(t("127.1"), Target::Ip("127.0.0.1".parse().unwrap()));
        assert_eq!(t("LOCALHOST."), Target::Domain("localhost".into()));
        assert_eq!(
            t("[::ffff:a9fe:a9fe]").to_string(),
            "[::ffff:169.254.169.254]"
        );
        assert!(Target::parse("999.1.1.1").is_err());
    }

    #[test]
    fn patterns() {
        let below = HostPattern::parse("*.Example.COM.").unwrap();
        assert!(below.matches(&t("api.example.com")));
        assert!(below.matches(&t("a.b.example.com")));
        assert!(!below.matches(&t("example.com")));
        assert!(!below.matches(&t("evilexample.com")));
        assert!(!below.matches(&t("example.com.evil.net")));

        let exact = HostPattern::parse("example.com").unwrap();
        assert!(exact.matches(&t("EXAMPLE.com.")));
        assert!(!exact.matches(&t("www.example.com")));

        let net = HostPattern::parse("10.0.0.0/8").unwrap();
        assert!(net.matches(&t("10.2.3.4")));
        assert!(net.matches(&t("[::ffff:10.2.3.4]")));
        assert!(net.matches(&t("167772161")));
        assert!(!net.matches(&t("11.0.0.1")));

        assert_eq!(
            HostPattern::parse("::1").unwrap(),
            HostPattern::Net("::1/128".parse().unwrap())
        );
        assert_eq!(
            HostPattern::parse("0x7f.1").unwrap(),
            HostPattern::Net("127.0.0.1/32".parse().unwrap())
        );
        assert!(HostPattern::parse("api.*.com").is_err());
        assert!(HostPattern::parse("10.0.0.0/33").is_err());
        assert!(HostPattern::parse("").is_err());
    }
}
