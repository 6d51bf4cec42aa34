//! `toolvet hook AGENT` (a coding agent's pre- and post-tool hook) and `toolvet hook
//! install AGENT`; the work is in the `toolvet-hooks` crate.

use clap::{Args, Subcommand, ValueEnum};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::Duration;
use toolvet_hooks::{Agent, MAX_INPUT_BYTES, guard, install};

/// The agents, as command-line values.
#[derive(Clone, Copy, ValueEnum, Debug)]
pub enum AgentName {
    /// Claude Code (PreToolUse, PostToolUse, PostToolUseFailure).
    ClaudeCode,
    /// Codex CLI (PreToolUse, PostToolUse).
    Codex,
    /// Gemini CLI (BeforeTool, AfterTool).
    GeminiCli,
    /// Cursor (beforeShellExecution, beforeMCPExecution, beforeReadFile, preToolUse, postToolUse).
    Cursor,
    /// Copilot CLI (preToolUse, postToolUse).
    Copilot,
}

impl From<AgentName> for Agent {
    fn from(a: AgentName) -> Agent {
        match a {
            AgentName::ClaudeCode => Agent::ClaudeCode,
            AgentName::Codex => Agent::Codex,
            AgentName::GeminiCli => Agent::GeminiCli,
            AgentName::Cursor => Agent::Cursor,
            AgentName::Copilot => Agent::Copilot,
        }
    }
}

/// `toolvet hook …`.
#[derive(Args)]
#[command(args_conflicts_with_subcommands = true)]
pub(crate) struct HookArgs {
    #[command(subcommand)]
    install: Option<HookCommand>,
    /// The agent whose payload arrives on stdin.
    #[arg(value_enum)]
    agent: Option<AgentName>,
    #[command(flatten)]
    run: RunArgs,
}

#[derive(Args)]
struct RunArgs {
    /// The policy file.
    #[arg(long, short, default_value = "toolvet.toml")]
    config: PathBuf,
    /// Answer with a block if vetting takes longer than this.
    #[arg(long, default_value_t = 10_000)]
    timeout_ms: u64,
}

#[derive(Subcommand)]
enum HookCommand {
    /// Print the agent's settings entry, or write it into the project's or
    /// the user's settings file.
    Install {
        /// The agent.
        #[arg(value_enum)]
        agent: AgentName,
        /// The policy file the hook uses (made absolute).
        #[arg(long, short, default_value = "toolvet.toml")]
        config: PathBuf,
        /// Write into the project's settings (the current directory).
        #[arg(long, conflicts_with = "user")]
        project: bool,
        /// Write into the user's settings.
        #[arg(long)]
        user: bool,
    },
}

/// Run `toolvet hook`; returns the exit code.
pub(crate) async fn run(args: HookArgs) -> anyhow::Result<u8> {
    match (args.install, args.agent) {
        (
            Some(HookCommand::Install {
                agent,
                config,
                project,
                user,
            }),
            _,
        ) => install_hook(agent.into(), &config, project, user).await,
        (None, Some(agent)) => Ok(answer(agent.into(), &args.run).await),
        (None, None) => anyhow::bail!(
            "name the agent: toolvet hook claude-code|codex|gemini-cli|cursor|copilot, or toolvet hook install AGENT"
        ),
    }
}

/// The agent a `toolvet hook AGENT …` command line names, read from the
/// raw arguments before clap parses them: when the rest of the line is
/// wrong (an unknown flag, a bad value), that agent must still get a block
/// in its own terms. A bare usage error exits 2, which Cursor and Copilot
/// do not treat as a block. `None` for every other command, and for
/// `toolvet hook install`.
pub(crate) fn agent_in_args(args: &[std::ffi::OsString]) -> Option<Agent> {
    let hook = args.iter().skip(1).position(|a| a == "hook")? + 1;
    let mut rest = args[hook + 1..].iter().filter_map(|a| a.to_str());
    let first = rest.clone().find(|a| !a.starts_with('-'))?;
    if first == "install" {
        return None;
    }
    rest.find_map(|a| AgentName::from_str(a, false).ok())
        .map(Agent::from)
}

/// Answer `agent` with a block saying why toolvet could not vet the call
/// (its command line or the process failed before vetting began); returns
/// the exit code.
pub(crate) fn refuse(agent: Agent, why: &str) -> u8 {
    let rendered = agent.render_failure(why);
    guard::answer(&rendered);
    rendered.exit_code
}

/// Vet the call on stdin and answer; every path ends in exactly one answer.
async fn answer(agent: Agent, run: &RunArgs) -> u8 {
    guard::watchdog(agent, Duration::from_millis(run.timeout_ms.max(1)));
    let config = run.config.clone();
    // A policy that does not parse is answered (blocked) by the hook below.
    if let Ok(policy) = toolvet_preset::policy_from_file(&config) {
        crate::one_shot_pool(&policy);
    }
    guard::guarded(agent, async move {
        let mut input = Vec::new();
        let read = std::io::stdin()
            .lock()
            .take(MAX_INPUT_BYTES as u64 + 1)
            .read_to_end(&mut input);
        match read {
            Ok(_) => toolvet_hooks::run(agent, &config, &input).await,
            Err(e) => agent.render_failure(&format!("cannot read the hook payload: {e}")),
        }
    })
    .await
}

async fn install_hook(
    agent: Agent,
    config: &Path,
    project: bool,
    user: bool,
) -> anyhow::Result<u8> {
    let policy = std::path::absolute(config)?;
    anyhow::ensure!(
        policy.is_file(),
        "{}: no such policy file (the hook would block every call)",
        policy.display()
    );
    load_once(agent, &policy).await.map_err(|e| {
        anyhow::anyhow!(
            "{}: {e} (the hook would block every call)",
            policy.display()
        )
    })?;
    // Say loudly when approvals in this policy cannot be trusted by a hook.
    if let Some(warning) =
        toolvet_hooks::ApprovalTrust::of(&toolvet_preset::policy_from_file(&policy)?).warning()
    {
        eprintln!("toolvet: WARNING: {warning}");
    }
    let toolvet = std::env::current_exe()?;
    let command = install::command(&toolvet, agent, &policy);
    let scope = match (project, user) {
        (true, _) => Some(install::Scope::Project),
        (_, true) => Some(install::Scope::User),
        _ => None,
    };
    let Some(scope) = scope else {
        let snippet = install::merge(agent, serde_json::json!({}), &command)?;
        println!("{}", serde_json::to_string_pretty(&snippet)?);
        return Ok(0);
    };
    let home = std::env::var_os("HOME")
        .map(PathBuf::from)
        .ok_or_else(|| anyhow::anyhow!("HOME is not set"))?;
    let path = install::settings_path(agent, scope, &std::env::current_dir()?, &home)?;
    install::install_into(agent, &path, &command)?;
    println!("installed the {} hook in {}", agent.name(), path.display());
    Ok(0)
}

/// Load the policy as the hook will, so that a policy the hook cannot use
/// is refused at install time, and the compiled-component cache is warm
/// before the first call: a cold cache can take longer to compile than the
/// hook's deadline, and a hook stopped by its watchdog stores nothing.
async fn load_once(agent: Agent, policy: &Path) -> anyhow::Result<()> {
    let policy = toolvet_preset::policy_from_file(policy)?;
    let hooks = toolvet_hooks::HooksConfig::from_policy(&policy)?;
    toolvet_hooks::ToolMap::with_overrides(agent, hooks.tools.get(agent.name()))?;
    // As the hook loads it (every check, since any tool may come), so the
    // reused checks' snapshots are taken now, not in the first call.
    let options = toolvet::LoadOptions {
        preinitialize_reused: true,
        ..crate::progress::load_options()
    };
    toolvet::Host::load_with(policy, options).await?;
    Ok(())
}
