//! The "runs code" role: tools that run the code they are given in an
//! interpreter (LangChain's `Python_REPL` `{query}`, smolagents'
//! `python_interpreter` `{code}`, `execute_code` `{code, language}`,
//! `run_python`, `code_interpreter`, …), with the language they run and
//! the arguments holding the code.
//!
//! Such a tool does what `python3 -c CODE`, `node -e CODE` or `bash -c
//! CODE` does, and a check that judges those command lines judges the
//! tool the same way ([`Language::command_line`]). A tool is recognised
//! from the words of its name (`Python_REPL`, `PythonInterpreterTool`,
//! `run-python` all split into words) and the shape of its arguments (a
//! `language` argument beside the code): check authors need not list the
//! framework's names. A tool whose language is not known is
//! [`Language::Unknown`]: the check judges the code as every language it
//! reads and escalates at least, never allows unread code.
//!
//! [`CODE_TOOL_GLOBS`] are the tool-name globs that route such tools to a
//! check: every name [`runs_code`] accepts matches one of them (it is
//! checked), so a check whose default tools include them sees every tool
//! this module knows.

use globset::{GlobBuilder, GlobSet, GlobSetBuilder};
use serde_json::Value;
use std::sync::OnceLock;
use unicode_normalization::UnicodeNormalization;

use crate::roles;

/// The language a code tool runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Language {
    /// Python (`python3 -c`).
    Python,
    /// JavaScript or TypeScript (`node -e`).
    JavaScript,
    /// A POSIX shell (`bash -c`).
    Shell,
    /// Ruby (`ruby -e`).
    Ruby,
    /// Perl (`perl -e`).
    Perl,
    /// PHP (`php -r`).
    Php,
    /// PowerShell (`pwsh -c`).
    PowerShell,
    /// Not known from the tool's name or arguments, or named as a language
    /// none of the above is.
    Unknown,
}

impl Language {
    /// Every known language, for judging code of an unknown one.
    pub const KNOWN: [Language; 7] = [
        Language::Python,
        Language::JavaScript,
        Language::Shell,
        Language::Ruby,
        Language::Perl,
        Language::Php,
        Language::PowerShell,
    ];

    /// The interpreter and the option that run code given on the command
    /// line in this language: `("python3", "-c")`; `None` for
    /// [`Language::Unknown`].
    pub fn interpreter(self) -> Option<(&'static str, &'static str)> {
        Some(match self {
            Language::Python => ("python3", "-c"),
            Language::JavaScript => ("node", "-e"),
            Language::Shell => ("bash", "-c"),
            Language::Ruby => ("ruby", "-e"),
            Language::Perl => ("perl", "-e"),
            Language::Php => ("php", "-r"),
            Language::PowerShell => ("pwsh", "-c"),
            Language::Unknown => return None,
        })
    }

    /// The shell command line that runs `code` as this language's
    /// interpreter would run it from the tool: `python3 -c '<code>'`, the
    /// code single-quoted so that the shell passes it unchanged. A CRLF
    /// line end is a plain newline to every interpreter but the shell
    /// (bash keeps the carriage return in the word before it), so it is
    /// one here too. `None` for [`Language::Unknown`].
    pub fn command_line(self, code: &str) -> Option<String> {
        let (program, option) = self.interpreter()?;
        let code = if self == Language::Shell {
            code.to_string()
        } else {
            code.replace("\r\n", "\n")
        };
        Some(format!(
            "{program} {option} '{}'",
            code.replace('\'', r"'\''")
        ))
    }

    /// The language a word names (`python3`, `Py`, `nodejs`, `TypeScript`,
    /// `zsh`), if any; trailing digits and dots (versions) are ignored.
    pub fn from_word(word: &str) -> Option<Language> {
        let folded = roles::fold(word);
        let w = folded.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.');
        Some(match w {
            "python" | "py" | "ipython" | "jupyter" | "pyodide" | "pypy" | "cpython" => {
                Language::Python
            }
            "javascript" | "js" | "node" | "nodejs" | "deno" | "bun" | "typescript" | "ts"
            | "ecmascript" => Language::JavaScript,
            "bash" | "sh" | "shell" | "zsh" | "dash" | "ksh" => Language::Shell,
            "ruby" | "rb" => Language::Ruby,
            "perl" => Language::Perl,
            "php" => Language::Php,
            "powershell" | "pwsh" => Language::PowerShell,
            _ => return None,
        })
    }
}

/// Argument names that hold the code, in the order they are judged.
pub const CODE_ARGS: &[&str] = &[
    "code",
    "query",
    "source",
    "source_code",
    "script",
    "program",
    "cell",
    "snippet",
    "expression",
    "python_code",
    "js_code",
];

/// Argument names that hold the code itself in a tool whose name says
/// only that it runs something (`exec`, `eval`, `run`, `sandbox_run`,
/// `run_cell`): with one of them such a tool is a code tool (review s7
/// F6). Narrower than [`CODE_ARGS`]: `exec_sql {query}` is not one.
pub const RUN_CODE_ARGS: &[&str] = &[
    "code",
    "source",
    "source_code",
    "script",
    "program",
    "cell",
    "snippet",
    "expression",
    "python_code",
    "js_code",
];

/// Argument names that say which language the code is.
pub const LANGUAGE_ARGS: &[&str] = &[
    "language",
    "languageId",
    "language_id",
    "lang",
    "kernel",
    "kernel_name",
    "runtime",
    "interpreter",
];

/// Tool-name globs (matched ignoring ASCII case, as the host does) that
/// every tool [`runs_code`] accepts matches: what a check adds to its
/// default tools to see code tools. Short words (`py`, `js`) count only
/// set apart by `_` or `-`, so that `deploy` or `json_*` are not routed.
pub const CODE_TOOL_GLOBS: &[&str] = &[
    "*python*",
    "*jupyter*",
    "*pyodide*",
    "*javascript*",
    "*typescript*",
    "*node*",
    "*deno*",
    "*bash*",
    "*shell*",
    "*zsh*",
    "*ruby*",
    "*perl*",
    "*php*",
    "*code*",
    "*repl*",
    "*interpret*",
    "*exec*",
    "*eval*",
    "*kernel*",
    "*run*",
    "*script*",
    "*cell*",
    "*sandbox*",
    "py",
    "py[_-]*",
    "*[_-]py",
    "*[_-]py[_-]*",
    "js",
    "js[_-]*",
    "*[_-]js",
    "*[_-]js[_-]*",
];

/// Words of a name that say the tool runs what it is given.
const ACTION_WORDS: &[&str] = &[
    "repl",
    "interpreter",
    "interpret",
    "exec",
    "execute",
    "executor",
    "execution",
    "run",
    "runner",
    "eval",
    "evaluate",
    "evaluator",
    "kernel",
    "console",
    "sandbox",
];

/// Words that alone say the tool runs code (`repl`, `code_interpreter`).
const CODE_RUNNER_WORDS: &[&str] = &["repl", "interpreter", "interpret", "kernel"];

/// Actions that run code named by a `language` argument (`execute`
/// `{language, code}`, Open Interpreter's shape).
const SHAPE_ACTIONS: &[&str] = &[
    "exec",
    "execute",
    "eval",
    "evaluate",
    "interpret",
    "interpreter",
];

/// What a code tool's call runs.
#[derive(Debug, Clone, PartialEq)]
pub struct CodeRun<'a> {
    /// The languages the code may be in: one when the name and arguments
    /// agree; several when they name different ones (each is judged);
    /// `[Unknown]` when nothing names one or a name is not known.
    pub languages: Vec<Language>,
    /// Every value that may hold the code, with its key: the [`CODE_ARGS`]
    /// present (see [`roles::values`]), then every other top-level string
    /// argument but the language's (a tool may name its code argument
    /// anything, and a harmless `code` beside it must not hide it). Equal
    /// values once.
    pub code: Vec<(&'a str, &'a Value)>,
}

/// The words of a tool name: split at characters that are not letters or
/// digits and at case changes (`PythonREPLTool` → `python`, `repl`,
/// `tool`), folded (`roles::fold`).
pub fn name_words(name: &str) -> Vec<String> {
    let chars: Vec<char> = name.nfkc().collect();
    let mut words = Vec::new();
    let mut word = String::new();
    for (i, &c) in chars.iter().enumerate() {
        if !c.is_alphanumeric() {
            if !word.is_empty() {
                words.push(std::mem::take(&mut word));
            }
            continue;
        }
        let prev = i.checked_sub(1).map(|p| chars[p]);
        let next = chars.get(i + 1).copied();
        let boundary = c.is_uppercase()
            && prev.is_some_and(|p| {
                p.is_lowercase()
                    || p.is_ascii_digit()
                    || (p.is_uppercase() && next.is_some_and(char::is_lowercase))
            });
        if boundary && !word.is_empty() {
            words.push(std::mem::take(&mut word));
        }
        word.push(c);
    }
    if !word.is_empty() {
        words.push(word);
    }
    words
        .into_iter()
        .map(|w| roles::fold(&w))
        .filter(|w| !w.is_empty())
        .collect()
}

fn code_tool_globs() -> &'static GlobSet {
    static GLOBS: OnceLock<GlobSet> = OnceLock::new();
    GLOBS.get_or_init(|| {
        let mut b = GlobSetBuilder::new();
        for g in CODE_TOOL_GLOBS {
            if let Ok(glob) = GlobBuilder::new(g).case_insensitive(true).build() {
                b.add(glob);
            }
        }
        b.build().unwrap_or_else(|_| GlobSet::empty())
    })
}

/// Whether the tool `name` called with `args` runs code, and what: `None`
/// for a tool this role does not cover. A tool runs code when its name
/// (and [`CODE_TOOL_GLOBS`] match it) has
///
/// - a language word and an action (`run_python`, `Python_REPL`,
///   `python_interpreter`, `execute_js`, `node_eval`), or only language
///   words and a [`CODE_ARGS`] argument (`python {code}`);
/// - `code` and an action (`execute_code`, `run_code`,
///   `code_interpreter`), or a word that alone means a code runner
///   (`repl`, `interpreter`, `kernel`);
/// - an action that runs code and a [`LANGUAGE_ARGS`] argument beside
///   a [`CODE_ARGS`] one (`execute {language, code}`);
/// - whatever else its name says, a [`LANGUAGE_ARGS`] argument naming a
///   language this module knows (`run_script {script, language:
///   "python"}`, `run {code, language}`): every string argument may be
///   its code;
/// - or an action word (`exec`, `eval`, `evaluate`, `run`, `sandbox`)
///   and a [`RUN_CODE_ARGS`] argument (`exec {code}`, `run_cell {cell}`,
///   `run_agent_script {script}`, `evaluate {expression}`), in a language
///   nothing names unless an argument does.
///
/// Arguments are looked for at the top and one object down (`execute_code
/// {params: {code}}`, `{input: {code, language}}`): a tool that reads its
/// code from a wrapper object runs it all the same (review s7 F6).
///
/// The languages come from the name's words and the language arguments;
/// a language argument naming none this module knows is
/// [`Language::Unknown`] (the check escalates). A shell tool that has no
/// [`CODE_ARGS`] argument (`run_shell {command}`) is not this role: its
/// command is judged as a command.
pub fn runs_code<'a>(name: &str, args: &'a Value) -> Option<CodeRun<'a>> {
    if !code_tool_globs().is_match(name) {
        return None;
    }
    let words = name_words(name);
    if words.is_empty() {
        return None;
    }
    let has = |list: &[&str]| words.iter().any(|w| list.contains(&w.as_str()));
    let named: Vec<Language> = words
        .iter()
        .filter_map(|w| Language::from_word(w))
        .collect();
    let only_languages = named.len() == words.len();
    let action = has(ACTION_WORDS);
    let code_word = words.iter().any(|w| w == "code");
    // The arguments and the objects one level down.
    let scopes: Vec<&'a Value> = std::iter::once(args)
        .chain(
            args.as_object()
                .into_iter()
                .flat_map(|o| o.values())
                .filter(|v| v.is_object()),
        )
        .collect();
    let in_scopes = |names: &[&str]| -> Vec<(&'a str, &'a Value)> {
        let mut out: Vec<(&'a str, &'a Value)> = Vec::new();
        for scope in &scopes {
            for (k, v) in roles::values(scope, names) {
                if !out.iter().any(|(_, seen)| *seen == v) {
                    out.push((k, v));
                }
            }
        }
        out
    };
    let language_values = in_scopes(LANGUAGE_ARGS);
    let code_values = in_scopes(CODE_ARGS);
    let run_code_values = in_scopes(RUN_CODE_ARGS);
    let argument_languages: Vec<Language> = language_values
        .iter()
        .map(|(_, v)| language_of(v))
        .collect();
    // A name of languages alone (`python`) with its code argument: `bash`
    // `{command}` is a shell tool, not this role.
    let only_languages = only_languages && !code_values.is_empty();
    let by_name = (!named.is_empty() && (action || only_languages))
        || (code_word && action)
        || has(CODE_RUNNER_WORDS);
    let by_shape = has(SHAPE_ACTIONS) && !language_values.is_empty() && !code_values.is_empty();
    let by_language = argument_languages.iter().any(|l| *l != Language::Unknown);
    let by_action = action && !run_code_values.is_empty();
    if !by_name && !by_shape && !by_language && !by_action {
        return None;
    }
    let mut languages: Vec<Language> = named.clone();
    languages.extend(argument_languages);
    if languages.is_empty() {
        languages.push(Language::Unknown);
    }
    let mut seen = Vec::new();
    languages.retain(|l| {
        let first = !seen.contains(l);
        seen.push(*l);
        first
    });
    if code_values.is_empty() && languages == [Language::Shell] {
        // A shell tool (`run_shell {command}`, `run {command, language:
        // "bash"}`): its command is the shell role's (`roles::values`),
        // judged as a command already.
        return None;
    }
    // Every other string argument but the language may be the code too,
    // at the top and one object down: a tool reading `input` runs it
    // whatever harmless `code` beside it.
    let mut code = code_values;
    for scope in &scopes {
        let Some(obj) = scope.as_object() else {
            continue;
        };
        for (k, v) in obj {
            let is_language = language_values
                .iter()
                .any(|(lk, lv)| *lk == k.as_str() && *lv == v);
            if v.is_string()
                && !is_language
                && !code.iter().any(|(ck, cv)| *ck == k.as_str() || *cv == v)
            {
                code.push((k.as_str(), v));
            }
        }
    }
    Some(CodeRun { languages, code })
}

/// The language a language argument's value names: its first word, the
/// program's name of a path (`/usr/bin/python3`, `C:\Py\python.exe`);
/// [`Language::Unknown`] for anything else (a value that is not a string,
/// a language this module does not know).
fn language_of(value: &Value) -> Language {
    value
        .as_str()
        .and_then(|s| s.split_whitespace().next())
        .map(|w| w.rsplit(['/', '\\']).next().unwrap_or(w))
        .map(|w| w.strip_suffix(".exe").unwrap_or(w))
        .and_then(Language::from_word)
        .unwrap_or(Language::Unknown)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn langs(name: &str, args: Value) -> Option<Vec<Language>> {
        runs_code(name, &args).map(|r| r.languages)
    }

    #[test]
    fn names_split_into_words() {
        assert_eq!(name_words("Python_REPL"), ["python", "repl"]);
        assert_eq!(name_words("PythonREPLTool"), ["python", "repl", "tool"]);
        assert_eq!(name_words("python_repl_ast"), ["python", "repl", "ast"]);
        assert_eq!(name_words("runPython3"), ["run", "python3"]);
        assert_eq!(name_words("execute-code"), ["execute", "code"]);
        assert_eq!(name_words("__"), Vec::<String>::new());
    }

    #[test]
    fn the_frameworks_code_tools_run_code_in_their_language() {
        use Language::*;
        for (name, args, want) in [
            ("Python_REPL", json!({"query": "print(1)"}), vec![Python]),
            (
                "python_interpreter",
                json!({"code": "print(1)"}),
                vec![Python],
            ),
            ("python_repl", json!({"query": "1"}), vec![Python]),
            (
                "python_repl_ast",
                json!({"query": "df.head()"}),
                vec![Python],
            ),
            ("run_python", json!({"code": "1"}), vec![Python]),
            ("execute_python", json!({"code": "1"}), vec![Python]),
            ("PythonInterpreterTool", json!({"code": "1"}), vec![Python]),
            ("ipython", json!({"code": "1"}), vec![Python]),
            ("python", json!({"code": "1"}), vec![Python]),
            ("run_py", json!({"code": "1"}), vec![Python]),
            ("run-py", json!({"code": "1"}), vec![Python]),
            ("py-exec", json!({"code": "1"}), vec![Python]),
            (
                "mcp__jupyter__execute_code",
                json!({"code": "1"}),
                vec![Python],
            ),
            ("python3_repl", json!({"code": "1"}), vec![Python]),
            ("node_eval", json!({"code": "1"}), vec![JavaScript]),
            (
                "execute_javascript",
                json!({"script": "1"}),
                vec![JavaScript],
            ),
            ("run_js", json!({"code": "1"}), vec![JavaScript]),
            ("run_bash_script", json!({"script": "ls"}), vec![Shell]),
            (
                "execute_code",
                json!({"code": "1", "language": "python"}),
                vec![Python],
            ),
            (
                "execute_code",
                json!({"code": "1", "Language": "Python 3.11"}),
                vec![Python],
            ),
            (
                "execute",
                json!({"code": "1", "language": "javascript"}),
                vec![JavaScript],
            ),
            ("execute_code", json!({"code": "1"}), vec![Unknown]),
            ("code_interpreter", json!({"code": "1"}), vec![Unknown]),
            (
                "run_code",
                json!({"code": "1", "language": "cobol"}),
                vec![Unknown],
            ),
            ("repl", json!({"code": "1"}), vec![Unknown]),
            (
                "execute_code",
                json!({"code": "1", "interpreter": "/usr/bin/python3"}),
                vec![Python],
            ),
            (
                "execute_code",
                json!({"code": "1", "runtime": "C:\\Py\\python.exe"}),
                vec![Python],
            ),
            (
                "run_python",
                json!({"code": "1", "language": "bash"}),
                vec![Python, Shell],
            ),
        ] {
            assert_eq!(langs(name, args.clone()), Some(want), "{name} {args}");
        }
    }

    #[test]
    fn other_tools_do_not_run_code() {
        for (name, args) in [
            ("bash", json!({"command": "ls"})),
            ("read_file", json!({"path": "a.py"})),
            ("python_docs_search", json!({"query": "pathlib"})),
            ("get_node", json!({"query": "x"})),
            ("exec_sql", json!({"query": "select 1"})),
            ("code_search", json!({"query": "fn main"})),
            ("deploy", json!({"code": "x"})),
            ("run_tests", json!({"command": "pytest"})),
            ("run_shell_command", json!({"command": "ls"})),
            ("shell", json!({"command": "ls", "cwd": "/tmp"})),
            ("run_tests", json!({"command": "pytest", "script": null})),
            ("run_shell", json!({"command": "ls", "language": "bash"})),
            ("run", json!({"command": "ls", "language": "cobol"})),
            ("code_search", json!({"query": "fn main", "lang": "rust"})),
            ("run_workflow", json!({"workflow": "ci.yml"})),
        ] {
            assert_eq!(langs(name, args.clone()), None, "{name} {args}");
        }
    }

    #[test]
    fn generic_names_with_code_or_a_language_run_code() {
        // Review s7 F6: allowed before, whatever the code did.
        use Language::*;
        let py = "import subprocess; subprocess.run('rm -rf ~', shell=True)";
        for (name, args, want) in [
            (
                "run_script",
                json!({"script": py, "language": "python"}),
                vec![Python],
            ),
            (
                "run_script",
                json!({"script": py, "language": "python3"}),
                vec![Python],
            ),
            (
                "run",
                json!({"code": py, "language": "python"}),
                vec![Python],
            ),
            (
                "run",
                json!({"code": py, "languageId": "python"}),
                vec![Python],
            ),
            ("exec", json!({"code": py}), vec![Unknown]),
            ("eval", json!({"code": py}), vec![Unknown]),
            ("execute", json!({"code": py}), vec![Unknown]),
            ("run", json!({"code": py}), vec![Unknown]),
            ("sandbox_run", json!({"code": py}), vec![Unknown]),
            ("run_cell", json!({"cell": py}), vec![Unknown]),
            ("run_agent_script", json!({"script": py}), vec![Unknown]),
            (
                "execute_code",
                json!({"params": {"code": py}}),
                vec![Unknown],
            ),
            (
                "execute_code",
                json!({"input": {"code": py, "language": "python"}}),
                vec![Python],
            ),
            (
                "evaluate",
                json!({"expression": "require('child_process').execSync('rm -rf ~')"}),
                vec![Unknown],
            ),
            // A language argument naming a known interpreter: every
            // string is code, whatever the name.
            (
                "run_task",
                json!({"body": py, "runtime": "python3.12"}),
                vec![Python],
            ),
            (
                "sandbox",
                json!({"input": py, "kernel": "ipython"}),
                vec![Python],
            ),
            // `runPy` is routed (by `*run*`) now, so claimed.
            ("runPy", json!({"code": "x"}), vec![Python]),
            // An unknown language on a code argument escalates.
            (
                "run_script",
                json!({"script": py, "language": "cobol"}),
                vec![Unknown],
            ),
        ] {
            assert_eq!(langs(name, args.clone()), Some(want), "{name} {args}");
        }
        // The code is found one object down, and every string there.
        let args = json!({"params": {"code": py, "timeout": 5}, "note": "x"});
        let run = runs_code("execute_code", &args).unwrap();
        assert_eq!(run.code, [("code", &json!(py)), ("note", &json!("x"))]);
        let args = json!({"input": {"source": py, "language": "python"}});
        let run = runs_code("execute_code", &args).unwrap();
        assert_eq!(run.code, [("source", &json!(py))]);
        let args = json!({"opts": {"text": py}, "lang": "js"});
        let run = runs_code("run_thing", &args).unwrap();
        assert_eq!(run.languages, [JavaScript]);
        assert_eq!(run.code, [("text", &json!(py))]);
    }

    #[test]
    fn the_code_is_every_code_argument_and_every_other_string() {
        let args = json!({"code": "print(1)", "query": "import os", "timeout": 5});
        let run = runs_code("python_repl", &args).unwrap();
        assert_eq!(
            run.code,
            [("code", &json!("print(1)")), ("query", &json!("import os"))]
        );
        // A harmless `code` does not hide what the tool may read instead.
        let args = json!({"code": "print(1)", "input": "import os", "language": "python", "n": 1});
        let run = runs_code("python_exec", &args).unwrap();
        assert_eq!(
            run.code,
            [("code", &json!("print(1)")), ("input", &json!("import os"))]
        );
        // A code argument of another name: every string is code, not the
        // language.
        let args = json!({"input": "import os", "language": "python", "n": 1});
        let run = runs_code("python_exec", &args).unwrap();
        assert_eq!(run.code, [("input", &json!("import os"))]);
        let args = json!({"CODE": "x"});
        assert_eq!(
            runs_code("run_python", &args).unwrap().code,
            [("CODE", &json!("x"))]
        );
    }

    #[test]
    fn every_accepted_name_is_routed_by_the_globs() {
        // The gate in `runs_code` is the globs themselves; spot-check that
        // the frameworks' names pass it.
        for name in [
            "Python_REPL",
            "python_interpreter",
            "code_interpreter",
            "run_code",
            "execute_code",
            "run_py",
            "js_eval",
            "execute",
            "run",
            "run_script",
            "run_cell",
            "sandbox_run",
            "run_agent_script",
            "evaluate",
            "runScript",
        ] {
            assert!(code_tool_globs().is_match(name), "{name}");
        }
        assert!(!code_tool_globs().is_match("deploy"));
        assert!(!code_tool_globs().is_match("json_parse"));
    }

    #[test]
    fn command_lines_quote_the_code_whole() {
        assert_eq!(
            Language::Python.command_line("print('a')\r\nx").unwrap(),
            r"python3 -c 'print('\''a'\'')
x'"
        );
        assert_eq!(
            Language::Shell.command_line("ls\r\n").unwrap(),
            "bash -c 'ls\r\n'"
        );
        assert_eq!(
            Language::JavaScript.command_line("1").unwrap(),
            "node -e '1'"
        );
        assert!(Language::Unknown.command_line("1").is_none());
    }
}
