//! Shell commands embedded in code for other interpreters (best effort).
//!
//! `python -c 'import os; os.system("rm -rf /")'` runs a shell command that
//! the shell parser only sees as a string. This module finds string literals
//! passed to well-known process-spawning functions (`system`, `popen`,
//! `subprocess.run`, `execSync`, Perl/Ruby backquotes and `qx`, …) and
//! recursive-delete helpers (`shutil.rmtree`, `FileUtils.rm_rf`,
//! `fs.rmSync(…, {recursive: true})`), and returns the equivalent shell
//! text. Only literal arguments are understood; anything computed is not.

/// Functions whose first argument is a shell command (string) or an argv
/// (list of strings).
const SPAWNERS: &[&str] = &[
    "system(",
    "popen(",
    "Popen(",
    "run(",
    "call(",
    "check_call(",
    "check_output(",
    "getoutput(",
    "getstatusoutput(",
    "execSync(",
    "exec(",
    "spawnSync(",
    "shell_exec(",
    "passthru(",
];

/// Functions whose first argument is a path deleted recursively.
const RECURSIVE_DELETERS: &[&str] = &[
    "rmtree(",
    "rm_rf(",
    "rm_r(",
    "remove_tree(",
    "rmSync(",
    "rmdirSync(",
];

/// Longest code scanned, in bytes.
const MAX_CODE: usize = 64 * 1024;

/// Shell commands found in `code`, as shell text. `backticks`: the
/// language runs backquoted text as a command (Perl, Ruby, PHP), rather
/// than using it for strings (JavaScript).
pub fn shell_commands(code: &str, backticks: bool) -> Vec<String> {
    let mut found = Vec::new();
    if code.len() > MAX_CODE {
        return found;
    }
    for name in SPAWNERS {
        for (at, _) in code.match_indices(name) {
            // `exec(` and `run(` only count as method calls or bare calls,
            // not as the tail of another identifier (`myrun(`).
            if at > 0 {
                let prev = code[..at].chars().next_back().unwrap_or(' ');
                if prev.is_ascii_alphanumeric() || prev == '_' {
                    continue;
                }
            }
            let rest = code[at + name.len()..].trim_start();
            if let Some(cmd) = first_argument(rest) {
                found.push(cmd);
            }
        }
    }
    for name in RECURSIVE_DELETERS {
        for (at, _) in code.match_indices(name) {
            let rest = code[at + name.len()..].trim_start();
            let recursive =
                *name != "rmSync(" && *name != "rmdirSync(" || rest.contains("recursive");
            if let Some(path) = path_argument(rest)
                && recursive
            {
                found.push(format!("rm -r {}", shell_path(&path)));
            }
        }
    }
    // Perl / Ruby backquotes, qx and %x.
    for (open, close) in [("qx(", ')'), ("qx{", '}'), ("%x(", ')'), ("%x{", '}')] {
        for (at, _) in code.match_indices(open) {
            let rest = &code[at + open.len()..];
            if let Some(end) = rest.find(close) {
                found.push(rest[..end].to_string());
            }
        }
    }
    let ticks: Vec<&str> = code.split('`').collect();
    if backticks && ticks.len() >= 3 {
        for inner in ticks.iter().skip(1).step_by(2).take(16) {
            found.push(inner.to_string());
        }
    }
    found.truncate(32);
    found
}

/// Expressions for the home directory in Python, Node, Ruby and PHP.
const HOME_EXPRESSIONS: &[&str] = &[
    "os.homedir()",
    "require('os').homedir()",
    "require(\"os\").homedir()",
    "Path.home()",
    "pathlib.Path.home()",
    "os.environ['HOME']",
    "os.environ[\"HOME\"]",
    "os.environ.get('HOME')",
    "os.environ.get(\"HOME\")",
    "os.getenv('HOME')",
    "os.getenv(\"HOME\")",
    "process.env.HOME",
    "process.env['HOME']",
    "ENV['HOME']",
    "ENV[\"HOME\"]",
    "Dir.home",
    "getenv('HOME')",
];

/// A path argument: a string literal, `expanduser('~/x')`, or an
/// expression for the home directory (`os.homedir()`, `Path.home()`, …),
/// given as `~`.
fn path_argument(rest: &str) -> Option<String> {
    if let Some((s, _)) = string_literal(rest) {
        return Some(s);
    }
    for call in ["os.path.expanduser(", "expanduser(", "File.expand_path("] {
        if let Some(inner) = rest.strip_prefix(call) {
            return string_literal(inner.trim_start()).map(|(s, _)| s);
        }
    }
    HOME_EXPRESSIONS
        .iter()
        .find(|e| rest.starts_with(*e))
        .map(|_| "~".to_string())
}

/// A path for the shell: quoted, but a leading `~` left to expand.
fn shell_path(path: &str) -> String {
    match path.strip_prefix('~') {
        Some("") => "~".into(),
        Some(rest) if rest.starts_with('/') => format!("~{}", crate::shell_quote(rest)),
        _ => crate::shell_quote(path),
    }
}

/// The first argument when it is a string literal (a command) or a list of
/// string literals (an argv, quoted and joined).
fn first_argument(rest: &str) -> Option<String> {
    if let Some(list) = rest.strip_prefix('[') {
        let mut words = Vec::new();
        let mut s = list.trim_start();
        while let Some((w, after)) = string_literal(s) {
            words.push(crate::shell_quote(&w));
            s = after.trim_start();
            match s.strip_prefix(',') {
                Some(a) => s = a.trim_start(),
                None => break,
            }
        }
        return (!words.is_empty() && s.starts_with(']')).then(|| words.join(" "));
    }
    string_literal(rest).map(|(s, _)| s)
}

/// A leading `'…'` or `"…"` literal (optionally with a one-letter prefix
/// such as `f`, `r`, `b`): its content with backslash escapes undone, and
/// the text after it.
fn string_literal(s: &str) -> Option<(String, &str)> {
    let s = s.strip_prefix(['f', 'r', 'b', 'u']).unwrap_or(s);
    let quote = s.chars().next().filter(|c| *c == '\'' || *c == '"')?;
    let mut out = String::new();
    let mut escaped = false;
    for (i, c) in s[1..].char_indices() {
        if escaped {
            out.push(c);
            escaped = false;
        } else if c == '\\' {
            escaped = true;
        } else if c == quote {
            return Some((out, &s[1 + i + 1..]));
        } else {
            out.push(c);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_commands() {
        assert_eq!(
            shell_commands("import os; os.system('rm -rf /')", false),
            ["rm -rf /"]
        );
        assert_eq!(
            shell_commands(
                r#"import subprocess; subprocess.run(["git", "push", "-f", "origin", "main"])"#,
                false
            ),
            ["git push -f origin main"]
        );
        assert_eq!(
            shell_commands(r#"system("rm -rf \"$HOME\"")"#, false),
            [r#"rm -rf "$HOME""#]
        );
        assert_eq!(
            shell_commands("import shutil; shutil.rmtree('/etc')", false),
            ["rm -r /etc"]
        );
        assert_eq!(
            shell_commands(r#"require("fs").rmSync("/", {recursive: true})"#, false),
            ["rm -r /"]
        );
        assert!(shell_commands(r#"require("fs").rmSync("x.txt")"#, false).is_empty());
        assert_eq!(
            shell_commands(
                "require('fs').rmSync(require('os').homedir(), {recursive: true})",
                false
            ),
            ["rm -r ~"]
        );
        assert_eq!(
            shell_commands("shutil.rmtree(os.path.expanduser('~/code'))", false),
            ["rm -r ~/code"]
        );
        assert_eq!(
            shell_commands("shutil.rmtree(Path.home())", false),
            ["rm -r ~"]
        );
        assert_eq!(shell_commands("print `rm -rf ~`", true), ["rm -rf ~"]);
        assert_eq!(shell_commands("my $x = qx(ls /); ", false), ["ls /"]);
        assert!(shell_commands("myrun('x'); print('rm -rf /')", false).is_empty());
        assert!(shell_commands("console.log(`rm -rf /`)", false).is_empty());
        assert!(shell_commands("os.system(cmd)", false).is_empty());
    }
}
