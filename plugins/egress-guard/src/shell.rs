//! The destinations a shell command sends network clients to: their URL
//! operands, and the addresses they connect to given outside the URL
//! (proxies, `--connect-to`, `--resolve`, proxy variables).
//!
//! One reader ([`client_destinations`]) takes every client's words; each
//! destination is a [`Candidate`] vetted by the same rules as a URL.

use crate::extract::{self, Candidate, has_authority_scheme, has_special_scheme, scheme_len};
use check_catalog::words::{base_name, is_name};

/// Network clients whose operands are destinations.
pub const NETWORK_CLIENTS: &[&str] = &[
    "curl", "wget", "http", "https", "xh", "curlie", "aria2c", "lynx", "links", "w3m",
];

/// Clients that fetch from URL operands but speak schemes other than
/// http(s) too (`git+https://`, `ssh://`): only their hosts are judged,
/// and only under the subcommands that fetch (`npm run dev -- --host
/// 0.0.0.0` names no source).
const HOST_CLIENTS: &[(&str, &[&str])] = &[
    ("pip", PIP_FETCHES),
    ("pip3", PIP_FETCHES),
    ("npm", NPM_FETCHES),
    ("pnpm", NPM_FETCHES),
    ("yarn", NPM_FETCHES),
    (
        "git",
        &[
            "clone",
            "remote",
            "fetch",
            "pull",
            "push",
            "submodule",
            "ls-remote",
            "archive",
        ],
    ),
];
const PIP_FETCHES: &[&str] = &["install", "download", "wheel", "index"];
const NPM_FETCHES: &[&str] = &[
    "install", "i", "in", "ins", "inst", "insta", "instal", "isntall", "add", "ci", "update", "up",
    "upgrade",
];

/// Whether `words` (a client first) run a host client under a subcommand
/// that fetches: the first word that is not an option, skipping the value
/// of git's `-c`/`-C`.
fn host_client_fetches(words: &[String]) -> bool {
    let client = base_name(&words[0]);
    let Some((_, fetching)) = HOST_CLIENTS.iter().find(|(c, _)| *c == client) else {
        return false;
    };
    let mut it = words.iter().skip(1);
    while let Some(w) = it.next() {
        if client == "git" && matches!(w.as_str(), "-c" | "-C") {
            it.next();
        } else if !w.starts_with('-') {
            return fetching.contains(&w.as_str());
        }
    }
    false
}

/// Programs that open a raw connection to a host and port: `nc HOST
/// PORT`, `telnet HOST PORT`, `socat - TCP:HOST:PORT`, `openssl s_client
/// -connect HOST:PORT`.
const SOCKET_CLIENTS: &[&str] = &["nc", "ncat", "netcat", "telnet", "socat", "openssl"];

/// Options of `nc`/`ncat`/`netcat`/`telnet` that take a value.
const SOCKET_VALUE_OPTIONS: &[&str] = &[
    "-p",
    "-s",
    "-w",
    "-i",
    "-q",
    "-x",
    "-X",
    "-e",
    "-c",
    "-I",
    "-O",
    "-T",
    "-V",
    "-b",
    "-l",
    "--proxy",
    "--source",
    "--source-port",
    "--wait",
    "--exec",
    "--sh-exec",
    "--lua-exec",
];

/// The destinations of a raw-connection client (`words[0]`), as
/// `http://HOST:PORT/` so that the address rules judge the host; none for
/// a listener (`nc -l`) or a zero-I/O probe (`nc -z`).
fn socket_destinations(words: &[String], vars: &[(String, String)]) -> Vec<String> {
    let client = base_name(&words[0]);
    let words: Vec<String> = words[1..].iter().map(|w| substitute(w, vars)).collect();
    let mut out = Vec::new();
    match client {
        "socat" => {
            for w in &words {
                let upper = w.to_ascii_uppercase();
                let Some((kind, rest)) = w.split_once(':') else {
                    continue;
                };
                let kind = &upper[..kind.len()];
                if matches!(
                    kind,
                    "TCP"
                        | "TCP4"
                        | "TCP6"
                        | "TCP-CONNECT"
                        | "UDP"
                        | "UDP4"
                        | "UDP6"
                        | "UDP-CONNECT"
                        | "OPENSSL"
                        | "SSL"
                        | "PROXY"
                        | "SOCKS4"
                        | "SOCKS4A"
                        | "SOCKS5"
                ) {
                    let target = rest.split(',').next().unwrap_or(rest);
                    if let Some((host, port)) = target.rsplit_once(':') {
                        out.push(socket_url(host, port));
                    }
                }
            }
        }
        "openssl" => {
            let mut it = words.iter();
            while let Some(w) = it.next() {
                let value = match w.as_str() {
                    "-connect" | "-proxy" => it.next().cloned(),
                    _ => w.strip_prefix("-connect=").map(str::to_string),
                };
                if let Some((host, port)) = value.as_deref().and_then(|v| v.rsplit_once(':')) {
                    out.push(socket_url(host, port));
                }
            }
        }
        _ => {
            let mut operands = Vec::new();
            let mut i = 0;
            while let Some(w) = words.get(i) {
                i += 1;
                if w == "--" {
                    operands.extend(words[i..].iter().cloned());
                    break;
                }
                if w.starts_with('-') && w.len() > 1 {
                    let letters = w.trim_start_matches('-');
                    // A listener connects nowhere; a zero-I/O probe
                    // (`nc -z HOST PORT`, a port check) sends and reads
                    // nothing.
                    if !w.starts_with("--") && letters.contains(['l', 'z']) {
                        return Vec::new();
                    }
                    if w == "--listen" || w == "--zero" {
                        return Vec::new();
                    }
                    let last = if w.starts_with("--") {
                        w.split('=').next().unwrap_or(w).to_string()
                    } else {
                        format!("-{}", letters.chars().last().unwrap_or('-'))
                    };
                    if SOCKET_VALUE_OPTIONS.contains(&last.as_str()) && !w.contains('=') {
                        // `-x PROXY`: where the connection goes first.
                        if matches!(last.as_str(), "-x" | "--proxy")
                            && let Some(v) = words.get(i)
                        {
                            let (host, port) = v.rsplit_once(':').unwrap_or((v, "1080"));
                            out.push(socket_url(host, port));
                        }
                        i += 1;
                    }
                    continue;
                }
                operands.push(w.clone());
            }
            if let Some(host) = operands.first() {
                let port = operands.get(1).map_or("80", String::as_str);
                out.push(socket_url(host, port));
            }
        }
    }
    out
}

/// `http://HOST:PORT/` for a raw connection (an IPv6 address bracketed; a
/// port that is not a number is left out).
fn socket_url(host: &str, port: &str) -> String {
    let host = host.trim_matches(['[', ']']);
    let host = if host.contains(':') {
        format!("[{host}]")
    } else {
        host.to_string()
    };
    let port = port.split(['-', ',', ' ']).next().unwrap_or("");
    if !port.is_empty() && port.chars().all(|c| c.is_ascii_digit()) {
        format!("http://{host}:{port}/")
    } else {
        format!("http://{host}/")
    }
}

fn is_host_client(name: &str) -> bool {
    HOST_CLIENTS.iter().any(|(c, _)| *c == name)
}

/// Environment variables naming a proxy (compared ignoring case).
const PROXY_VARS: &[&str] = &[
    "http_proxy",
    "https_proxy",
    "all_proxy",
    "ftp_proxy",
    "ftps_proxy",
    "ws_proxy",
    "wss_proxy",
    "socks_proxy",
];

/// Long options whose value is an address the client connects to
/// (curl, wget, aria2c, npm, pip).
const PROXY_OPTIONS: &[&str] = &[
    "--proxy",
    "--preproxy",
    "--socks4",
    "--socks4a",
    "--socks5",
    "--socks5-hostname",
    "--http-proxy",
    "--https-proxy",
    "--ftp-proxy",
    "--all-proxy",
];

/// curl's short options that take a value.
const CURL_VALUE_SHORT: &str = "AbcCdDeEFHKmoPQrtTuUwxXyYz";

/// Most URLs a curl glob (`[1-3]`, `{a,b}`) may expand to before the
/// command is refused as unjudgeable.
pub const MAX_GLOB_URLS: usize = 1024;
/// A glob range longer than this is judged on its endpoints.
const MAX_RANGE: u64 = 256;

/// What a shell command's text gives: destinations, and globs too large to
/// expand (refused: they cannot be judged).
#[derive(Debug, Default)]
pub struct Destinations {
    /// The URLs and hosts found, each with where in the call it was found.
    pub candidates: Vec<Candidate>,
    /// URL globs too large to expand, as written (refused).
    pub unjudged: Vec<String>,
    /// Clients given their destinations or settings in a file the command
    /// names (`curl -K cfg`, `wget -i urls.txt`): the option as written.
    pub from_files: Vec<String>,
}

/// Destinations in the `command`/`cmd`/`script` strings of a shell call.
pub fn shell_destinations(args: &serde_json::Value) -> Destinations {
    let mut out = Destinations::default();
    // In any case or Unicode form (`Command`): check_catalog::roles.
    for (key, value) in check_catalog::roles::values(args, &["command", "cmd", "script"]) {
        let Some(cmd) = value.as_str() else {
            continue;
        };
        let path = format!("arguments.{key}");
        let vars = assignments(cmd);
        let mut texts = Vec::new();
        // A proxy variable set anywhere in the command (`http_proxy=X curl`,
        // `export ALL_PROXY=X; …`, `env https_proxy=X …`, `wget -e
        // http_proxy=X`) is where the clients after it connect.
        for (name, value) in &vars {
            if is_proxy_var(name) {
                texts.push(proxy_text(value));
            }
        }
        // The shell's own parse: a client inside `if … fi`, `{ …; }` or
        // after a redirection is still the command (review-s7 F1's reader).
        // A client anywhere in the words, not only first: runners and
        // wrappers run it (`uv run curl URL`, `sudo wget URL`,
        // `env A=1 timeout 5 curl URL`, `python -m pip install …`).
        // `/dev/tcp/HOST/PORT` (bash's sockets), wherever it is written.
        for (at, _) in cmd.match_indices("/dev/") {
            let rest = &cmd[at + "/dev/".len()..];
            let Some(rest) = rest
                .strip_prefix("tcp/")
                .or_else(|| rest.strip_prefix("udp/"))
            else {
                continue;
            };
            let end = rest
                .find(|c: char| c.is_whitespace() || "'\";|&<>)".contains(c))
                .unwrap_or(rest.len());
            if let Some((host, port)) = rest[..end].split_once('/') {
                texts.push(socket_url(host, port));
            }
        }
        for w in check_catalog::parse::command_words(cmd) {
            for at in 0..w.len() {
                let name = base_name(&w[at]);
                if SOCKET_CLIENTS.contains(&name) {
                    texts.extend(socket_destinations(&w[at..], &vars));
                }
                if NETWORK_CLIENTS.contains(&name) || host_client_fetches(&w[at..]) {
                    client_destinations(
                        &w[at..],
                        &vars,
                        &mut texts,
                        &mut out.unjudged,
                        &mut out.from_files,
                    );
                }
            }
        }
        out.candidates
            .extend(texts.into_iter().map(|text| Candidate {
                path: path.clone(),
                text,
                from_url_arg: false,
            }));
    }
    out
}

fn is_proxy_var(name: &str) -> bool {
    PROXY_VARS.iter().any(|p| p.eq_ignore_ascii_case(name))
}

/// The destinations one client's words name (`words[0]` is the client):
/// URL-shaped operands and `--opt=URL` values, proxies (`-x`, `--proxy`,
/// `--preproxy`, `--socks5*`, wget `-e http_proxy=…`, git `-c
/// http.proxy=…`), `--connect-to` and `--resolve` targets. `$NAME` is
/// replaced by a value assigned in the same command; curl's URL globs are
/// expanded unless `-g`/`--globoff`. A file of settings or URLs the client
/// reads (`curl -K FILE`, `wget -i FILE`, `--config`, `--input-file`) goes
/// to `from_files` as `OPTION FILE`: what it names is not read here.
pub fn client_destinations(
    words: &[String],
    vars: &[(String, String)],
    out: &mut Vec<String>,
    unjudged: &mut Vec<String>,
    from_files: &mut Vec<String>,
) {
    let client = base_name(&words[0]);
    let host_only = is_host_client(client);
    let globbing = matches!(client, "curl" | "curlie") && !words.iter().any(|w| is_globoff(w));
    let mut plain = |text: &str, out: &mut Vec<String>| {
        if host_only {
            out.extend(host_of_fetch(text));
            return;
        }
        if !is_url_shaped(text) {
            return;
        }
        if !globbing {
            out.push(text.to_string());
            return;
        }
        match expand_glob(text) {
            Some(all) => out.extend(all),
            None => unjudged.push(text.to_string()),
        }
    };
    let mut i = 1;
    let mut ended = false;
    while i < words.len() {
        let w = substitute(&words[i], vars);
        i += 1;
        if ended || !w.starts_with('-') || w == "-" {
            plain(&w, out);
            continue;
        }
        if w == "--" {
            ended = true;
            continue;
        }
        let mut next = || {
            let v = words.get(i).map(|v| substitute(v, vars));
            i += 1;
            v
        };
        let (name, attached) = if w.starts_with("--") {
            match w.split_once('=') {
                Some((n, v)) => (n.to_string(), Some(v.to_string())),
                None => (w.clone(), None),
            }
        } else {
            // A short option: `-x VALUE`, `-xVALUE`, or a cluster ending in
            // the option (`-sx VALUE`).
            let letters = &w[1..];
            // In a curl cluster the first option taking a value takes the
            // rest of the word (`-sx169.254.169.254:80`, `-sSx URL`).
            let letters = match letters.find(|c| CURL_VALUE_SHORT.contains(c)) {
                Some(k) if matches!(client, "curl" | "curlie") => &letters[k..],
                _ => letters,
            };
            match (client, letters.chars().next()) {
                ("curl" | "curlie", Some('x')) | ("wget", Some('e')) | ("git", Some('c'))
                    if letters.len() > 1 =>
                {
                    (
                        format!("-{}", &letters[..1]),
                        Some(letters[1..].to_string()),
                    )
                }
                _ => {
                    let last = letters.chars().last().unwrap_or('-');
                    (format!("-{last}"), None)
                }
            }
        };
        let long = name.as_str();
        let reads_file = match client {
            "curl" | "curlie" => matches!(long, "-K" | "--config"),
            "wget" | "wget2" | "aria2c" => matches!(long, "-i" | "--input-file" | "--config"),
            _ => false,
        };
        if reads_file {
            let file = attached.or_else(&mut next).unwrap_or_default();
            from_files.push(format!("{long} {file}"));
            continue;
        }
        match (client, long) {
            (_, "--connect-to") | (_, "--resolve") => {
                if let Some(v) = attached.or_else(&mut next) {
                    out.extend(if long == "--connect-to" {
                        connect_to_target(&v).into_iter().collect()
                    } else {
                        resolve_targets(&v)
                    });
                }
            }
            _ if (long == "-x" && matches!(client, "curl" | "curlie"))
                || PROXY_OPTIONS.contains(&long) =>
            {
                if let Some(v) = attached.or_else(&mut next) {
                    out.push(proxy_text(&v));
                }
            }
            ("wget", "-e" | "--execute") => {
                if let Some(v) = attached.or_else(&mut next)
                    && let Some((key, value)) = v.split_once('=')
                {
                    let key: String = key
                        .chars()
                        .filter(|c| !matches!(c, '_' | '-'))
                        .collect::<String>()
                        .to_ascii_lowercase();
                    if matches!(key.as_str(), "httpproxy" | "httpsproxy" | "ftpproxy") {
                        out.push(proxy_text(value.trim()));
                    }
                }
            }
            ("git", "-c") => {
                if let Some(v) = attached.or_else(&mut next)
                    && let Some((key, value)) = v.split_once('=')
                {
                    let key = key.to_ascii_lowercase();
                    if key.starts_with("http") && key.ends_with(".proxy") {
                        out.push(proxy_text(value));
                    }
                }
            }
            // `--url=URL`, `--index-url=URL`, `--registry=URL`: the value
            // of any long option, when it looks like a URL.
            _ => {
                if let Some(v) = attached {
                    plain(&v, out);
                }
            }
        }
    }
}

/// Whether `w` turns curl's URL globbing off: `-g`, `--globoff`, or a
/// cluster of flag-only short options holding `g` (`-sg`).
fn is_globoff(w: &str) -> bool {
    w == "--globoff"
        || w.strip_prefix('-').is_some_and(|l| {
            !l.is_empty() && l.contains('g') && l.chars().all(|c| "sSLfkgvIiqN".contains(c))
        })
}

/// A word a URL client takes as a URL: `scheme://…`, a one- or no-slash
/// web scheme (`http:/h`, `http:h`, read as `http://h` by curl and the URL
/// standard) or a bare address (`169.254.169.254/x`).
fn is_url_shaped(w: &str) -> bool {
    has_authority_scheme(w) || has_special_scheme(w) || extract::is_bare_host_url(w)
}

/// A proxy value as a URL whose host is judged: its own scheme
/// (`socks5h://`, `https://`) is the proxy protocol, not a fetch, so it is
/// read as `http://`.
fn proxy_text(value: &str) -> String {
    let v = value.trim();
    match v.find("://") {
        Some(i) if scheme_len(v) == Some(i) => format!("http{}", &v[i..]),
        _ => v.to_string(),
    }
}

/// The host a package manager or git fetches from, as an `http://` URL:
/// `git+https://h/…`, `ssh://git@h/…`, `https://h/…`, scp-like
/// `git@h:path`. Local paths and package names give nothing.
fn host_of_fetch(text: &str) -> Option<String> {
    if text.starts_with(['.', '/', '~']) {
        return None;
    }
    if let Some(n) = scheme_len(text) {
        let scheme = text[..n].to_ascii_lowercase();
        if scheme == "file" {
            return None;
        }
        if text[n..].starts_with("://") {
            return Some(format!("http{}", &text[n..]));
        }
        if has_special_scheme(text) {
            return Some(text.to_string());
        }
    }
    if extract::is_bare_host_url(text) {
        return Some(text.to_string());
    }
    // scp-like `user@host:path`.
    let (user, rest) = text.split_once('@')?;
    let (host, _) = rest.split_once(':')?;
    (is_name(user.replace(['-', '.'], "_").as_str()) && !host.is_empty() && !host.contains('/'))
        .then(|| format!("http://{host}/"))
}

/// `HOST1:PORT1:HOST2:PORT2` (curl `--connect-to`): HOST2, where the
/// connection goes, as a URL; nothing when HOST2 is empty (the URL's
/// host).
fn connect_to_target(v: &str) -> Option<String> {
    let f = colon_fields(v);
    if f.len() < 4 {
        return None;
    }
    let host = f[2..f.len() - 1].join(":");
    let port = &f[f.len() - 1];
    (!host.is_empty()).then(|| host_url(&host, port))
}

/// `[+]HOST:PORT:ADDR[,ADDR]…` (curl `--resolve`): each address, as a URL.
fn resolve_targets(v: &str) -> Vec<String> {
    let v = v.strip_prefix('+').unwrap_or(v);
    if v.starts_with('-') {
        return Vec::new();
    }
    let f = colon_fields(v);
    if f.len() < 3 {
        return Vec::new();
    }
    let port = &f[1];
    f[2..]
        .join(":")
        .split(',')
        .map(str::trim)
        .filter(|a| !a.is_empty())
        .map(|a| host_url(a, port))
        .collect()
}

/// `http://HOST[:PORT]/`, bracketing an IPv6 host.
fn host_url(host: &str, port: &str) -> String {
    let host = if host.contains(':') && !host.starts_with('[') {
        format!("[{host}]")
    } else {
        host.to_string()
    };
    if !port.is_empty() && port.bytes().all(|b| b.is_ascii_digit()) {
        format!("http://{host}:{port}/")
    } else {
        format!("http://{host}/")
    }
}

/// `v` split at `:` outside `[…]`.
fn colon_fields(v: &str) -> Vec<String> {
    let mut out = vec![String::new()];
    let mut depth = 0u32;
    for c in v.chars() {
        match c {
            '[' => depth += 1,
            ']' => depth = depth.saturating_sub(1),
            ':' if depth == 0 => {
                out.push(String::new());
                continue;
            }
            _ => {}
        }
        if let Some(last) = out.last_mut() {
            last.push(c);
        }
    }
    out
}

/// `NAME=value` words anywhere in `cmd` (leading assignments, `export`,
/// `env`, `declare`, `wget -e`), in order, quotes removed. A light split
/// that knows quotes and the shell's operators; the parse
/// (`check_catalog::parse`) drops assignments in front of a command.
pub fn assignments(cmd: &str) -> Vec<(String, String)> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut quote: Option<char> = None;
    let mut chars = cmd.chars();
    while let Some(c) = chars.next() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some('"'), '\\') => word.extend(chars.next()),
            (Some(_), c) => word.push(c),
            (None, '\'' | '"') => {
                quote = Some(c);
                in_word = true;
            }
            (None, '\\') => {
                word.extend(chars.next());
                in_word = true;
            }
            (None, c) if c.is_whitespace() || ";&|()<>`".contains(c) => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            (None, c) => {
                word.push(c);
                in_word = true;
            }
        }
    }
    if in_word {
        words.push(word);
    }
    words
        .into_iter()
        .filter_map(|w| {
            let (name, value) = w.split_once('=')?;
            is_name(name).then(|| (name.to_string(), value.to_string()))
        })
        .collect()
}

/// `word` with `$NAME` and `${NAME}` replaced by the last value assigned
/// to NAME in the command; other expansions are left as written.
pub fn substitute(word: &str, vars: &[(String, String)]) -> String {
    if !word.contains('$') || vars.is_empty() {
        return word.to_string();
    }
    let value = |name: &str| vars.iter().rev().find(|(n, _)| n == name).map(|(_, v)| v);
    let mut out = String::new();
    let mut rest = word;
    while let Some(i) = rest.find('$') {
        out.push_str(&rest[..i]);
        let after = &rest[i + 1..];
        let (name, len) = if let Some(inner) = after.strip_prefix('{') {
            match inner.find('}') {
                Some(e) => (&inner[..e], e + 2),
                None => ("", 0),
            }
        } else {
            let e = after
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(after.len());
            (&after[..e], e)
        };
        match value(name).filter(|_| is_name(name)) {
            Some(v) => out.push_str(v),
            None => out.push_str(&rest[i..i + 1 + len]),
        }
        rest = &after[len..];
    }
    out.push_str(rest);
    out
}

/// Every URL curl's globbing makes of `text`: `{a,b}` sets, `[1-3]`,
/// `[01-10:2]`, `[a-c]` ranges (a lone `[254]` read as that number); a
/// range past [`MAX_RANGE`] values gives its endpoints. `[…]` that is no
/// range (an IPv6 address) stays as written. `None` past
/// [`MAX_GLOB_URLS`] URLs.
pub fn expand_glob(text: &str) -> Option<Vec<String>> {
    let mut parts: Vec<Vec<String>> = Vec::new();
    let mut lit = String::new();
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        let alternatives = match c {
            '\\' if rest.len() > 1 => {
                let n = rest[1..].chars().next().unwrap_or('\\');
                lit.push(n);
                rest = &rest[1 + n.len_utf8()..];
                continue;
            }
            '{' => rest.find('}').map(|e| {
                let set = rest[1..e].split(',').map(str::to_string).collect();
                (set, e + 1)
            }),
            '[' => rest
                .find(']')
                .and_then(|e| range_values(&rest[1..e]).map(|r| (r, e + 1))),
            _ => None,
        };
        match alternatives {
            Some((set, len)) => {
                parts.push(vec![std::mem::take(&mut lit)]);
                parts.push(set);
                rest = &rest[len..];
            }
            None => {
                lit.push(c);
                rest = &rest[c.len_utf8()..];
            }
        }
    }
    parts.push(vec![lit]);
    let mut total: usize = 1;
    for p in &parts {
        total = total.checked_mul(p.len().max(1))?;
        if total > MAX_GLOB_URLS {
            return None;
        }
    }
    let mut out = vec![String::new()];
    for p in parts {
        out = out
            .iter()
            .flat_map(|head| p.iter().map(move |x| format!("{head}{x}")))
            .collect();
    }
    Some(out)
}

/// The values of a curl glob range `N-M[:S]`, `a-z[:S]` or a lone `N`.
fn range_values(inner: &str) -> Option<Vec<String>> {
    let (span, step) = match inner.split_once(':') {
        Some((s, st)) => (s, st.parse::<u64>().ok().filter(|s| *s > 0)?),
        None => (inner, 1),
    };
    let (a, b) = span.split_once('-').unwrap_or((span, span));
    let letters = |s: &str| {
        let mut c = s.chars();
        match (c.next(), c.next()) {
            (Some(x), None) if x.is_ascii_alphabetic() => Some(x as u64),
            _ => None,
        }
    };
    if let (Some(x), Some(y)) = (letters(a), letters(b)) {
        let (lo, hi) = (x.min(y), x.max(y));
        return Some(
            (lo..=hi)
                .step_by(step as usize)
                .filter_map(|v| char::from_u32(v as u32).map(String::from))
                .collect(),
        );
    }
    if a.is_empty() || b.is_empty() || !(a.bytes().chain(b.bytes()).all(|c| c.is_ascii_digit())) {
        return None;
    }
    let width = if a.starts_with('0') { a.len() } else { 0 };
    let x: u64 = a.parse().ok()?;
    let y: u64 = b.parse().ok()?;
    let (lo, hi) = (x.min(y), x.max(y));
    let fmt = |v: u64| format!("{v:0width$}");
    if (hi - lo) / step >= MAX_RANGE {
        return Some(vec![fmt(lo), fmt(hi)]);
    }
    Some((lo..=hi).step_by(step as usize).map(fmt).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs() {
        assert_eq!(
            expand_glob("http://a/[1-3].txt").unwrap(),
            ["http://a/1.txt", "http://a/2.txt", "http://a/3.txt"]
        );
        assert_eq!(expand_glob("h/[08-10:2]").unwrap(), ["h/08", "h/10"]);
        assert_eq!(expand_glob("h/[a-c]").unwrap(), ["h/a", "h/b", "h/c"]);
        assert_eq!(expand_glob("h/[254]").unwrap(), ["h/254"]);
        assert_eq!(
            expand_glob("{x,y}/{1,2}").unwrap(),
            ["x/1", "x/2", "y/1", "y/2"]
        );
        assert_eq!(expand_glob("h/[1-100000]").unwrap(), ["h/1", "h/100000"]);
        assert_eq!(
            expand_glob("http://[::1]:80/").unwrap(),
            ["http://[::1]:80/"]
        );
        assert_eq!(expand_glob("h/\\[1-2]").unwrap(), ["h/[1-2]"]);
        assert!(expand_glob(&"{a,b}".repeat(11)).is_none());
    }

    #[test]
    fn variables() {
        let v = assignments("u='http://a/x' ; export H=\"b c\"; env X=1 curl; echo a=b");
        assert_eq!(
            v,
            [
                ("u".to_string(), "http://a/x".to_string()),
                ("H".to_string(), "b c".to_string()),
                ("X".to_string(), "1".to_string()),
                ("a".to_string(), "b".to_string()),
            ]
        );
        assert_eq!(substitute("$u/y${H}$Z$", &v), "http://a/x/yb c$Z$");
        assert_eq!(substitute("${u", &v), "${u");
    }

    #[test]
    fn connect_and_resolve_fields() {
        assert_eq!(
            connect_to_target("::169.254.169.254:").as_deref(),
            Some("http://169.254.169.254/")
        );
        assert_eq!(
            connect_to_target("a:80:[::1]:8080").as_deref(),
            Some("http://[::1]:8080/")
        );
        assert_eq!(connect_to_target("a:80::"), None);
        assert_eq!(
            resolve_targets("+a:443:[::1],10.0.0.1"),
            ["http://[::1]:443/", "http://10.0.0.1:443/"]
        );
        assert_eq!(resolve_targets("a:80:fd00::1"), ["http://[fd00::1]:80/"]);
        assert!(resolve_targets("-a:80").is_empty());
    }

    #[test]
    fn fetch_hosts() {
        assert_eq!(
            host_of_fetch("git+https://h/x").as_deref(),
            Some("http://h/x")
        );
        assert_eq!(
            host_of_fetch("git@h.example:a/b").as_deref(),
            Some("http://h.example/")
        );
        assert_eq!(host_of_fetch("file:///tmp/x"), None);
        assert_eq!(host_of_fetch("requests==2.0"), None);
        assert_eq!(host_of_fetch("./dist/x.whl"), None);
    }
}
