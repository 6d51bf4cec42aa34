//! `toolvet`: vet AI-agent tool calls with sandboxed WebAssembly checks.
//!
//! Exit codes (documented in the README):
//! - 0: allow (or: command succeeded, all cases passed)
//! - 1: `toolvet test` found a mismatching case, or an internal error
//! - 2: usage, policy, plugin-load or input error
//! - 3: deny (the most severe verdict of the calls given)
//! - 4: escalate

mod approvals;
mod bench;
mod builder;
mod calls;
mod cases;
mod hook;
mod log;
mod mcp;
mod passphrase;
mod progress;
mod prune;
mod replay;
mod scaffold;
mod serve;
mod watch;

use anyhow::Context as _;
use cases::Target;
use clap::{Parser, Subcommand, ValueEnum};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use toolvet::display::visible;
use toolvet::tool_result::{ResultAction, ResultVerdict};
use toolvet::{CallRequest, Decision, Host, Policy, Verdict};

const EXIT_MISMATCH: u8 = 1;
const EXIT_USAGE: u8 = 2;
const EXIT_DENY: u8 = 3;
const EXIT_ESCALATE: u8 = 4;
/// `toolvet check-result`: some result was masked (none withheld).
const EXIT_REDACT: u8 = 5;

/// How long `toolvet check` waits for a verdict's decision record.
const RECORD_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);

#[derive(Parser)]
#[command(
    name = "toolvet",
    version,
    about = "Vet AI-agent tool calls before they run"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Vet tool calls (one JSON call, or JSON Lines) and print the verdicts.
    ///
    /// Exit code: 0 allow, 3 deny, 4 escalate (the most severe verdict),
    /// 2 bad policy or input.
    Check {
        /// The policy file.
        #[arg(long, short, default_value = "toolvet.toml")]
        config: PathBuf,
        /// Files with calls (`-` or nothing for stdin).
        files: Vec<PathBuf>,
        /// Output format.
        #[arg(long, value_enum, default_value_t = Format::Json)]
        format: Format,
    },
    /// Vet what tools returned (one JSON object, or JSON Lines: a call with
    /// its `result`, e.g. `{"call": {...}, "result": {"content": {"text":
    /// "..."}}}`) and print the result verdicts: what the model reads.
    ///
    /// Only checks of contract 0.2 that export `result-check` vet results.
    /// Exit code: 0 every result passes, 3 some result is withheld, 5 some
    /// is masked (none withheld), 2 bad policy or input.
    CheckResult {
        /// The policy file.
        #[arg(long, short, default_value = "toolvet.toml")]
        config: PathBuf,
        /// Files with results (`-` or nothing for stdin).
        files: Vec<PathBuf>,
        /// Output format.
        #[arg(long, value_enum, default_value_t = Format::Json)]
        format: Format,
    },
    /// Show how calls are understood, without vetting them: per call (the
    /// input of `check`), the tool facts (effects, whether irreversible,
    /// a protected target, argument roles, the catalog entry or what the
    /// effects were inferred from) and the checks it reaches, with why.
    ///
    /// Exit code: 0, or 2 for a bad policy or input.
    Explain {
        /// The policy file.
        #[arg(long, short, default_value = "toolvet.toml")]
        config: PathBuf,
        /// Files with calls (`-` or nothing for stdin).
        files: Vec<PathBuf>,
        /// Output format.
        #[arg(long, value_enum, default_value_t = Format::Text)]
        format: Format,
    },
    /// Show what a plugin file imports and exports, whether this host can
    /// load it, and what its `describe` says.
    Inspect {
        /// The component file.
        plugin: PathBuf,
        /// Output format.
        #[arg(long, value_enum, default_value_t = Format::Text)]
        format: Format,
    },
    /// Run case files (calls with expected decisions) through the real host.
    ///
    /// Exit code: 0 all passed, 1 a case mismatched, 2 a file or plugin
    /// could not be used.
    Test {
        /// Case files, or directories searched for `cases.yaml` / `*.cases.yaml`.
        #[arg(required = true)]
        paths: Vec<PathBuf>,
        /// Test this plugin instead of the files' own `plugin`/`config`.
        #[arg(long, conflicts_with = "config")]
        plugin: Option<PathBuf>,
        /// Test this policy instead of the files' own `plugin`/`config`.
        #[arg(long)]
        config: Option<PathBuf>,
        /// Print every case, not only failures.
        #[arg(long, short)]
        verbose: bool,
        /// Build the check in each case file's directory first (`toolvet
        /// build`; the layout `toolvet new` makes).
        #[arg(long)]
        build: bool,
        /// Build and test, then again on every change to the checks'
        /// sources (not their target/, node_modules/ or __pycache__/),
        /// until interrupted.
        #[arg(long)]
        watch: bool,
    },
    /// Create a new check: `NAME/` with its source, native unit tests, a
    /// case file, a README stub and a .gitignore, which build and pass out
    /// of the box (`toolvet build`, then `toolvet test cases.yaml`).
    New {
        /// The check's name (lowercase letters, digits, `-`).
        name: String,
        /// Its language.
        #[arg(long, value_enum, default_value_t = scaffold::Lang::Rust)]
        lang: scaffold::Lang,
        /// Where to create it.
        #[arg(long, default_value = ".")]
        dir: PathBuf,
        /// The plugin kit: crates/toolvet-pdk (Rust), plugins/python
        /// (Python) or plugins/js (JavaScript) of the toolvet repository;
        /// default: this CLI's checkout.
        #[arg(long, alias = "pdk")]
        kit: Option<PathBuf>,
        /// The check also vets what tools return (a result check of
        /// contract toolvet:check@0.2.0): Python and JavaScript.
        #[arg(long)]
        results: bool,
    },
    /// Build the check in DIR (Rust, Python or JavaScript) and print its
    /// component's path on stdout (the build tools' output goes to stderr).
    ///
    /// Exit code: 0 built (or up to date), 2 no check or a failed build.
    Build {
        /// The check's directory.
        #[arg(default_value = ".")]
        dir: PathBuf,
        /// The Python or JavaScript kit (plugins/python or plugins/js of
        /// the toolvet repository; default `$TOOLVET_PYTHON_KIT` or
        /// `$TOOLVET_JS_KIT`, else this CLI's checkout).
        #[arg(long)]
        kit: Option<PathBuf>,
        /// Rebuild even when the sources are unchanged (Rust: `cargo
        /// clean` of the check's package first).
        #[arg(long)]
        force: bool,
    },
    /// Compile every plugin of a policy into the artifact cache ahead of
    /// time (e.g. in a container build), and report the load time of each.
    Compile {
        /// The policy file.
        #[arg(long, short, default_value = "toolvet.toml")]
        config: PathBuf,
    },
    /// Measure what a policy costs on your calls: p50 / p99 latency of each
    /// check and of the whole verdict, and verdicts per second.
    Bench(bench::BenchArgs),
    /// Manage the compiled-artifact cache.
    #[command(subcommand)]
    Cache(CacheCommand),
    /// List, approve and reject approval requests (escalated calls waiting
    /// for a person).
    ///
    /// Exit code: 0 done, 1 the request cannot be decided (unknown id,
    /// already decided, expired), 2 bad usage, policy or ledger.
    #[command(subcommand)]
    Approvals(approvals::ApprovalsCommand),
    /// A coding agent's pre-tool hook: vet the call on stdin and answer in
    /// the agent's format; every failure answers with the agent's block.
    /// `toolvet hook install AGENT` prints or writes the settings entry.
    Hook(hook::HookArgs),
    /// A gating MCP proxy: run the MCP server after `--` and vet every
    /// `tools/call` the client on stdin/stdout makes, or serve Streamable
    /// HTTP at `--listen` in front of the server at `--upstream`
    /// (docs/mcp.md). A deny is a tool error the model reads; an escalate
    /// asks the person in the client (elicitation) or names the approval
    /// request.
    ///
    /// Exit code: 0 when the client closes (stdio) or after SIGTERM/SIGINT
    /// (HTTP), 2 when the policy cannot be used, the server cannot start or
    /// the address cannot be bound.
    Mcp(mcp::McpArgs),
    /// Serve the policy over HTTP: vet calls, hold approvals for people
    /// (reviewer page at /ui), health and metrics, hot reload (docs/serve.md).
    ///
    /// Exit code: 0 after a graceful shutdown (SIGTERM, SIGINT), 2 when
    /// the policy, tokens, ledger or address cannot be used.
    Serve(serve::ServeArgs),
    /// Decision-log tools.
    #[command(subcommand)]
    Log(log::LogCommand),
    /// Vet the calls a decision log recorded against another policy and
    /// print each call whose verdict would change (shadow-test a policy).
    ///
    /// Exit code: 0 no verdict changes, 1 some would change, 2 the log or
    /// policy cannot be used.
    Replay(replay::ReplayArgs),
}

#[derive(Subcommand)]
enum CacheCommand {
    /// Remove compiled artifacts and records the given policies do not use
    /// (without `--config`: those no host of this build can load).
    ///
    /// Exit code: 0 done, 2 a policy did not load (nothing removed) or a
    /// file could not be removed.
    Prune(prune::PruneArgs),
}

#[derive(Clone, Copy, ValueEnum, PartialEq, Eq)]
enum Format {
    /// JSON (one verdict per line for `check`).
    Json,
    /// A short line per verdict.
    Text,
}

fn main() -> ExitCode {
    // Colours only on a terminal: piped into a file or another program,
    // escape codes are noise (and multiply what a chatty plugin costs).
    let colour = std::io::IsTerminal::is_terminal(&std::io::stderr());
    tracing_subscriber::fmt()
        .with_ansi(colour)
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("TOOLVET_LOG")
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn")),
        )
        .with_writer(std::io::stderr)
        .init();
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    // A coding agent's hook must block, in that agent's terms, on every
    // failure before vetting starts too: a bad command line, no runtime.
    let hook_agent = hook::agent_in_args(&args);
    let cli = match Cli::try_parse_from(&args) {
        Ok(cli) => cli,
        Err(e) => match hook_agent {
            Some(agent) if e.use_stderr() => {
                let why = e.to_string();
                let first = why.lines().next().unwrap_or("bad arguments");
                return ExitCode::from(hook::refuse(agent, &format!("toolvet hook: {first}")));
            }
            _ => e.exit(),
        },
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            let why = format!("cannot start the async runtime: {e}");
            if let Some(agent) = hook_agent {
                return ExitCode::from(hook::refuse(agent, &why));
            }
            eprintln!("toolvet: {why}");
            return ExitCode::from(EXIT_MISMATCH);
        }
    };
    match runtime.block_on(run(cli)) {
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            // Load errors quote plugins: the core shows what they quote
            // escaped (`LoadErrorKind`'s `Display`); several load errors
            // are one per line.
            eprintln!("toolvet: {e:#}");
            ExitCode::from(EXIT_USAGE)
        }
    }
}

async fn run(cli: Cli) -> anyhow::Result<u8> {
    match cli.command {
        Command::Check {
            config,
            files,
            format,
        } => check(&config, &files, format).await,
        Command::Explain {
            config,
            files,
            format,
        } => explain(&config, &files, format).await,
        Command::CheckResult {
            config,
            files,
            format,
        } => check_result(&config, &files, format).await,
        Command::Inspect { plugin, format } => inspect(&plugin, format).await,
        Command::Test {
            paths,
            plugin,
            config,
            verbose,
            build,
            watch,
        } => {
            let target = plugin.map(Target::Plugin).or(config.map(Target::Policy));
            if !(build || watch) {
                return test(&paths, target.as_ref(), verbose).await;
            }
            let dirs = builder::check_dirs(&paths)?;
            let build_and_test = || async {
                let mut built = Vec::new();
                for dir in &dirs {
                    match builder::build(dir, None, false) {
                        Ok(component) => built.push(component),
                        Err(e) => {
                            eprintln!("toolvet: {e:#}");
                            return Ok(EXIT_USAGE);
                        }
                    }
                }
                // One check: test what was just built (cargo may have put
                // it elsewhere than the case file says, e.g. with
                // CARGO_TARGET_DIR), unless told otherwise.
                let built_target = match (&target, built.as_slice()) {
                    (None, [component]) => Some(Target::Plugin(component.clone())),
                    _ => None,
                };
                test(&paths, target.as_ref().or(built_target.as_ref()), verbose).await
            };
            if !watch {
                return build_and_test().await;
            }
            let mut changes = watch::Changes::watch(&dirs)?;
            loop {
                build_and_test().await?;
                eprintln!("toolvet test --watch: waiting for a change (Ctrl-C stops)");
                changes.next().await;
            }
        }
        Command::Compile { config } => compile(&config).await,
        Command::Bench(args) => bench::run(args).await,
        Command::Cache(CacheCommand::Prune(args)) => prune::run(&args).await,
        Command::Approvals(command) => approvals::run(command).await,
        Command::Hook(args) => hook::run(args).await,
        Command::Mcp(args) => mcp::run(args).await,
        Command::Serve(args) => serve::run(args).await,
        Command::Log(command) => log::run(command),
        Command::Replay(args) => replay::run(args).await,
        Command::New {
            name,
            lang,
            dir,
            kit,
            results,
        } => {
            let dest = scaffold::new_check(&name, &dir, lang, kit.as_deref(), results)?;
            // `--dir .` (the default) shows as `NAME`, not `./NAME`.
            let dest = dest.strip_prefix(".").unwrap_or(&dest);
            println!("created {}", dest.display());
            let toolvet = std::env::current_exe()
                .map(|p| p.display().to_string())
                .unwrap_or_else(|_| "toolvet".into());
            println!(
                "next: cd {} && {toolvet} build && {toolvet} test cases.yaml",
                shell_quoted(&dest.display().to_string()),
                toolvet = shell_quoted(&toolvet)
            );
            Ok(0)
        }
        Command::Build { dir, kit, force } => {
            let component = builder::build(&dir, kit.as_deref(), force)?;
            println!("{}", component.display());
            Ok(0)
        }
    }
}

async fn check(config: &Path, files: &[PathBuf], format: Format) -> anyhow::Result<u8> {
    let host = load_one_shot(config).await?;
    let inputs = calls::read_inputs(files)?;
    let mut worst = Decision::Allow;
    let mut count = 0usize;
    for (source, text) in &inputs {
        for request in calls::parse_calls(source, text) {
            let request = request?;
            // A one-shot process reports only verdicts the log holds.
            let verdict = host.check_recorded(&request, RECORD_TIMEOUT).await;
            print_verdict(source, &request, &verdict, format)?;
            if verdict.decision.severity() > worst.severity() {
                worst = verdict.decision;
            }
            count += 1;
        }
    }
    anyhow::ensure!(
        count > 0,
        "no calls given (expected JSON on stdin or in files)"
    );
    Ok(match worst {
        Decision::Deny => EXIT_DENY,
        Decision::Escalate => EXIT_ESCALATE,
        Decision::Allow => 0,
    })
}

async fn explain(config: &Path, files: &[PathBuf], format: Format) -> anyhow::Result<u8> {
    let host = load_one_shot(config).await?;
    let mut count = 0usize;
    for (source, text) in &calls::read_inputs(files)? {
        for request in calls::parse_calls(source, text) {
            let explained = host.explain(&request?);
            match format {
                Format::Json => println!("{}", serde_json::to_string(&explained)?),
                Format::Text => print!("{}", explain_text(&explained)),
            }
            count += 1;
        }
    }
    anyhow::ensure!(
        count > 0,
        "no calls given (expected JSON on stdin or in files)"
    );
    Ok(0)
}

/// `explained` for a person: the tool, where its facts come from, its
/// effects, the argument roles, the checks that vet it. Every text from
/// the call is written with [`toolvet::display::visible`].
fn explain_text(explained: &toolvet::facts::Explanation) -> String {
    use std::fmt::Write as _;
    use toolvet::display::visible;
    use toolvet::facts::FactSource;
    let f = &explained.facts;
    let mut out = String::new();
    let _ = writeln!(out, "tool: {}", visible(&explained.tool));
    let source = match &f.source {
        FactSource::Catalog(ids) => format!("catalog {}", ids.join(", ")),
        FactSource::Inferred(_) => "inferred".to_string(),
        FactSource::Declared => "declared by the caller".to_string(),
    };
    let _ = writeln!(out, "  known from: {source}");
    let effects: Vec<&str> = f.effects.iter().map(|e| e.name()).collect();
    let _ = writeln!(
        out,
        "  effects: {}{}{}",
        if effects.is_empty() {
            "none found".to_string()
        } else {
            effects.join(", ")
        },
        if f.irreversible { "; irreversible" } else { "" },
        if f.protected_target {
            "; protected target"
        } else {
            ""
        },
    );
    for why in &f.reasons {
        let _ = writeln!(out, "    because {}", visible(why));
    }
    for r in &f.roles {
        let value: String = r.value.chars().take(120).collect();
        let _ = writeln!(
            out,
            "  {} {}: {}",
            r.role.name(),
            visible(&r.pointer),
            visible(&value)
        );
    }
    if explained.checks.is_empty() {
        let _ = writeln!(out, "  checks: none");
    }
    for c in &explained.checks {
        let _ = writeln!(
            out,
            "  check {} (by {})",
            visible(&c.check),
            c.via.join(", ")
        );
    }
    if let Some(why) = &explained.unvettable {
        let _ = writeln!(
            out,
            "  makes a call toolvet cannot vet (denied): {}",
            visible(why)
        );
    }
    for inner in &explained.makes {
        let _ = writeln!(out, "  makes a call, vetted as if made directly:");
        for line in explain_text(inner).lines() {
            let _ = writeln!(out, "    {line}");
        }
    }
    out
}

async fn check_result(config: &Path, files: &[PathBuf], format: Format) -> anyhow::Result<u8> {
    let host = load_one_shot(config).await?;
    let inputs = calls::read_inputs(files)?;
    let mut worst = ResultAction::Pass;
    let mut count = 0usize;
    let rank = |a: ResultAction| match a {
        ResultAction::Pass => 0,
        ResultAction::Redact => 1,
        ResultAction::Withhold => 2,
    };
    for (source, text) in &inputs {
        for item in calls::parse_results(source, text) {
            let item = item?;
            let mut verdict = host.check_result(&item.request, &item.result).await;
            if let Some(withheld) = host.result_recorded(RECORD_TIMEOUT).await
                && verdict.action != ResultAction::Withhold
            {
                verdict = withheld;
            }
            print_result_verdict(source, &item.request, &verdict, format)?;
            if rank(verdict.action) > rank(worst) {
                worst = verdict.action;
            }
            count += 1;
        }
    }
    anyhow::ensure!(
        count > 0,
        "no results given (expected JSON on stdin or in files)"
    );
    Ok(match worst {
        ResultAction::Withhold => EXIT_DENY,
        ResultAction::Redact => EXIT_REDACT,
        ResultAction::Pass => 0,
    })
}

fn print_result_verdict(
    source: &str,
    request: &CallRequest,
    verdict: &ResultVerdict,
    format: Format,
) -> anyhow::Result<()> {
    match format {
        Format::Json => print_json_verdict(source, request, verdict)?,
        Format::Text => {
            let action = match verdict.action {
                ResultAction::Pass => "pass",
                ResultAction::Redact => "redact",
                ResultAction::Withhold => "withhold",
            };
            let mut line = text_line(
                action,
                request,
                source,
                verdict.rule.as_deref(),
                verdict.reason.as_deref(),
            );
            if !verdict.labels.is_empty() {
                let labels: Vec<String> = verdict
                    .labels
                    .iter()
                    .map(|l| visible(&l.name).to_string())
                    .collect();
                line.push_str(&format!("  labels: {}", labels.join(", ")));
            }
            line.push_str(&format!("  ({} µs)", verdict.duration_us));
            write_verdict_line(&line, request)?;
        }
    }
    Ok(())
}

/// Load the policy at `config` for a process that vets a few calls (or
/// results) once: Postgres ledgers and redacted decision records, as the
/// server has, and an instance pool sized for one call.
async fn load_one_shot(config: &Path) -> anyhow::Result<Host> {
    let options = toolvet::LoadOptions {
        observer: progress::observer(),
        ..toolvet_preset::options()
    };
    let policy = toolvet_preset::policy_from_file(config)?;
    one_shot_pool(&policy);
    Ok(Host::load_with(policy, options).await?)
}

/// Print a verdict (of a call or a result) as one JSON line, with the
/// call's `tool` and `call_id` and the input's `source`.
fn print_json_verdict(
    source: &str,
    request: &CallRequest,
    verdict: &impl serde::Serialize,
) -> anyhow::Result<()> {
    let mut value = serde_json::to_value(verdict)?;
    if let Some(map) = value.as_object_mut() {
        map.insert("tool".into(), request.call.name.clone().into());
        map.insert("call_id".into(), request.call.id.clone().into());
        map.insert("source".into(), source.into());
    }
    write_verdict_line(&value.to_string(), request)
}

/// The start of a verdict's text line: the answer, the tool, the source,
/// the rule and the reason. Rules and reasons come from plugins: shown with
/// control characters escaped, so they cannot forge lines or move the
/// cursor.
fn text_line(
    answer: &str,
    request: &CallRequest,
    source: &str,
    rule: Option<&str>,
    reason: Option<&str>,
) -> String {
    let mut line = format!(
        "{answer:<8} {:<12} {}",
        visible(&request.call.name),
        visible(source)
    );
    if let Some(rule) = rule {
        line.push_str(&format!("  [{}]", visible(rule)));
    }
    if let Some(reason) = reason {
        line.push_str(&format!("  {}", visible(reason)));
    }
    line
}

/// Size the instance pool for a process that loads `policy` once and vets
/// a few calls: starting the engine costs less than with the default pool.
pub(crate) fn one_shot_pool(policy: &Policy) {
    if let Err(e) =
        toolvet::engine::size_instance_pool(toolvet::engine::instances_for_one_call(policy))
    {
        tracing::debug!("the default instance pool stays: {e}");
    }
}

fn print_verdict(
    source: &str,
    request: &CallRequest,
    verdict: &Verdict,
    format: Format,
) -> anyhow::Result<()> {
    match format {
        Format::Json => print_json_verdict(source, request, verdict)?,
        Format::Text => {
            let mut line = text_line(
                verdict.decision.as_str(),
                request,
                source,
                verdict.rule.as_deref(),
                verdict.reason.as_deref(),
            );
            if let Some(approval) = &verdict.approval {
                line.push_str(&format!("  approval {} ({})", approval.id, approval.status));
            }
            line.push_str(&format!("  ({} µs)", verdict.duration_us));
            write_verdict_line(&line, request)?;
        }
    }
    Ok(())
}

/// Write one verdict line to stdout, flushed. A closed or full stdout is an
/// error naming the call (the process then exits 2, never 0), not a panic:
/// whoever reads the exit status must not take a verdict nobody could read
/// for an allow.
fn write_verdict_line(line: &str, request: &CallRequest) -> anyhow::Result<()> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    writeln!(out, "{line}")
        .and_then(|()| out.flush())
        .with_context(|| {
            format!(
                "cannot write the verdict of call {} ({}) to stdout",
                visible(&request.call.id),
                visible(&request.call.name)
            )
        })
}

async fn inspect(plugin: &Path, format: Format) -> anyhow::Result<u8> {
    let observer = progress::observer();
    let report = toolvet::inspect::inspect_with(plugin, observer.as_deref())
        .await
        .with_context(|| format!("{}", plugin.display()))?;
    if format == Format::Json {
        println!("{}", serde_json::to_string_pretty(&report)?);
        return Ok(if report.compatible { 0 } else { EXIT_USAGE });
    }
    // Everything below but the sizes and digests comes from the plugin:
    // shown escaped, so it cannot forge lines such as `compatible: yes`.
    println!("file:       {}", visible(&plugin.display().to_string()));
    println!("size:       {} bytes", report.size_bytes);
    println!("sha256:     {}", report.sha256);
    if let Some(d) = &report.describe {
        println!("plugin:     {} {}", visible(&d.name), visible(&d.version));
        println!("about:      {}", visible(&d.description));
        println!("tools:      {}", visible(&d.tools.join(", ")));
    }
    println!(
        "contract:   exports toolvet:check {}; host speaks {}",
        if report.contract_versions.is_empty() {
            "(none)".to_string()
        } else {
            visible(&report.contract_versions.join(", ")).into_owned()
        },
        report.host_contract_versions.join(" and ")
    );
    match &report.incompatibility {
        None => println!("compatible: yes"),
        Some(why) => println!("compatible: no: {}", visible(why)),
    }
    println!(
        "compiled:   {}",
        if report.cached {
            "from the artifact cache"
        } else {
            "now, and stored in the artifact cache"
        }
    );
    // What the sandbox refuses, at a glance, then every import with what
    // the host makes of it.
    let denied: Vec<&str> = report
        .import_access
        .iter()
        .filter(|i| i.access == toolvet::inspect::Access::Denied)
        .map(|i| i.name.as_str())
        .collect();
    if denied.is_empty() {
        println!("denied:     (none of its imports)");
    } else {
        println!(
            "denied:     {} (linked, but every use is refused)",
            visible(&denied.join(", "))
        );
    }
    println!("imports:");
    let width = report
        .imports
        .iter()
        .map(|i| i.chars().count())
        .max()
        .unwrap_or(0);
    for i in &report.import_access {
        let name = visible(&i.name);
        match (i.access, i.note) {
            (toolvet::inspect::Access::Provided, "") => println!("  {name}"),
            (access, "") => println!("  {name:<width$}  {}", access.as_str()),
            (access, note) => println!("  {name:<width$}  {}: {note}", access.as_str()),
        }
    }
    println!("exports:");
    for e in &report.exports {
        println!("  {}", visible(e));
    }
    Ok(if report.compatible { 0 } else { EXIT_USAGE })
}

/// Expand directories into the case files under them.
fn case_files(paths: &[PathBuf]) -> anyhow::Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    for path in paths {
        if path.is_dir() {
            let mut found = Vec::new();
            collect_case_files(path, &mut found)
                .with_context(|| format!("{}: cannot list", path.display()))?;
            found.sort();
            anyhow::ensure!(!found.is_empty(), "{}: no case files found", path.display());
            out.extend(found);
        } else {
            out.push(path.clone());
        }
    }
    Ok(out)
}

fn collect_case_files(dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if path.is_dir() {
            if !matches!(name, "target" | "node_modules") && !name.starts_with('.') {
                collect_case_files(&path, out)?;
            }
        } else if name == "cases.yaml" || name.ends_with(".cases.yaml") {
            out.push(path);
        }
    }
    Ok(())
}

async fn test(paths: &[PathBuf], target: Option<&Target>, verbose: bool) -> anyhow::Result<u8> {
    let (mut passed, mut failed, mut unusable) = (0usize, 0usize, 0usize);
    for file in case_files(paths)? {
        // A file name can hold control characters too.
        let shown = visible(&file.display().to_string()).into_owned();
        // A file that cannot be used is reported, and the others still run.
        let results = match cases::run_file(&file, target).await {
            Ok(results) => results,
            Err(e) => {
                println!("ERROR {}", visible(&e.to_string()));
                unusable += 1;
                continue;
            }
        };
        let file_failed = results.iter().filter(|r| !r.passed()).count();
        for r in &results {
            if r.passed() && !verbose {
                continue;
            }
            let status = if r.passed() { "ok  " } else { "FAIL" };
            println!("{status} {shown}: {}", visible(&r.name));
            if r.passed() {
                println!("       got {}", visible(&r.actual));
            }
            for mismatch in &r.mismatches {
                println!("       {}", visible(mismatch));
            }
            if let Some(reason) = &r.reason {
                println!("       reason: {}", visible(reason));
            }
            if let Some((_, message)) = r.error.as_ref().filter(|_| !r.passed()) {
                println!("       error: {}", visible(message));
            }
        }
        println!("{shown}: {} cases, {} failed", results.len(), file_failed);
        passed += results.len() - file_failed;
        failed += file_failed;
    }
    println!("{passed} passed, {failed} failed");
    if unusable > 0 {
        eprintln!("toolvet: {unusable} case file(s) could not be run");
        return Ok(EXIT_USAGE);
    }
    Ok(if failed == 0 { 0 } else { EXIT_MISMATCH })
}

async fn compile(config: &Path) -> anyhow::Result<u8> {
    let policy = toolvet_preset::policy_from_file(config)?;
    let started = std::time::Instant::now();
    // The compile batch's size and wall time, besides the progress shown
    // (a snapshotted check compiles its snapshot only, outside the batch).
    let batch = std::sync::Arc::new(std::sync::Mutex::new((0, None)));
    let shown = progress::observer();
    let observer = {
        let batch = batch.clone();
        move |event: &toolvet::progress::LoadEvent| {
            let mut batch = batch.lock().unwrap_or_else(|e| e.into_inner());
            match event {
                toolvet::progress::LoadEvent::CompileStarted { checks } => batch.0 = checks.len(),
                toolvet::progress::LoadEvent::CompileFinished { elapsed } => {
                    batch.1 = Some(*elapsed)
                }
                _ => {}
            }
            drop(batch);
            if let Some(shown) = &shown {
                shown.event(event);
            }
        }
    };
    let options = toolvet::LoadOptions {
        observer: Some(std::sync::Arc::new(observer)),
        ..toolvet_preset::options()
    };
    let host = Host::load_with(policy, options).await?;
    let loaded = started.elapsed();
    let summaries = host.checks();
    // Each check's own time: components compile one after another, so a
    // check's time is not the batch's.
    for c in &summaries {
        println!(
            "{:<16} {:<10} {:>9.1} ms  {}",
            visible(&c.name),
            // A snapshotted check's artifact is its snapshot, taken now.
            match (c.cached, c.snapshot) {
                (Some(true), _) => "cached",
                (Some(false), Some(true)) => "snapshot",
                (Some(false), _) => "compiled",
                (None, _) => "broken",
            },
            c.compile_us.unwrap_or(0) as f64 / 1000.0,
            visible(&c.plugin.display().to_string())
        );
    }
    let (compiled, batch) = *batch.lock().unwrap_or_else(|e| e.into_inner());
    match batch {
        Some(wall) => println!(
            "loaded {} checks in {:.1} ms; compiling {compiled} of them took {:.1} ms (wall time, one after another)",
            summaries.len(),
            loaded.as_secs_f64() * 1000.0,
            wall.as_secs_f64() * 1000.0
        ),
        None => println!(
            "loaded {} checks in {:.1} ms",
            summaries.len(),
            loaded.as_secs_f64() * 1000.0
        ),
    }
    // `compile` exists to fill the cache: say so when it could not.
    let broken = summaries.iter().filter(|c| c.load_error.is_some()).count();
    let uncached = summaries
        .iter()
        .filter(|c| c.cache_stored == Some(false))
        .count();
    if broken > 0 || uncached > 0 {
        eprintln!(
            "toolvet: {broken} check(s) failed to load, {uncached} artifact(s) could not be cached"
        );
        return Ok(EXIT_USAGE);
    }
    Ok(0)
}

/// `text` as one shell word: as it is when that is safe, else in single
/// quotes.
fn shell_quoted(text: &str) -> String {
    let plain = !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "/._-+:@%=,".contains(c));
    if plain {
        text.to_string()
    } else {
        format!("'{}'", text.replace('\'', r"'\''"))
    }
}
