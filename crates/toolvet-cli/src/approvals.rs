//! `toolvet approvals list | show | approve | reject`: the approval requests
//! of a policy's ledger, for people at a terminal and for scripts.

use crate::{EXIT_MISMATCH, EXIT_USAGE, Format};
use anyhow::Context as _;
use clap::{Args, Subcommand};
use std::path::{Path, PathBuf};
use toolvet::display::{json_visible, visible};
use toolvet::{
    ApprovalError, ApprovalRequest, Approvals, ListQuery, MAX_PAGE, Policy, Review, ReviewerSigner,
    StatusFilter,
};

/// The subcommands of `toolvet approvals`.
#[derive(Subcommand)]
pub enum ApprovalsCommand {
    /// List requests, oldest first.
    List(ListArgs),
    /// Show one request in full (JSON).
    Show {
        /// The request id (`apr_…`).
        id: String,
        #[command(flatten)]
        policy: PolicyArg,
    },
    /// Approve a request: its call may run once (or, with `--scope run`,
    /// the same tool and arguments for the rest of its run).
    Approve(DecideArgs),
    /// Reject a request: the resumed call is denied with your message.
    Reject(DecideArgs),
    /// Reviewer credentials: `toolvet approvals reviewer-key init`.
    #[command(subcommand)]
    ReviewerKey(ReviewerKeyCommand),
}

/// The subcommands of `toolvet approvals reviewer-key`.
#[derive(Subcommand)]
pub enum ReviewerKeyCommand {
    /// Make a reviewer key from a passphrase (asked on the terminal) and
    /// print the entry to list in the policy's `[approvals] reviewer_keys`.
    /// Nothing is stored: `toolvet approvals approve` derives the key again
    /// from the same passphrase.
    Init(PassphraseArg),
}

/// Where the reviewer's passphrase comes from.
#[derive(Args)]
pub struct PassphraseArg {
    /// Read the passphrase from this open file descriptor (3 or higher; one
    /// line) instead of the terminal, for scripts and tests. Never from an
    /// argument, a variable or standard input.
    #[arg(long, value_name = "FD")]
    passphrase_fd: Option<u32>,
}

/// The policy whose approvals to use.
#[derive(Args)]
pub struct PolicyArg {
    /// The policy file (its `[approvals]` table names the ledger).
    #[arg(long, short, default_value = "toolvet.toml")]
    config: PathBuf,
}

/// Arguments of `toolvet approvals list`.
#[derive(Args)]
pub struct ListArgs {
    #[command(flatten)]
    policy: PolicyArg,
    /// Which requests: pending, approved, rejected, consumed, expired or
    /// all.
    #[arg(long, default_value = "pending")]
    status: String,
    /// Output format (JSON: one request per line).
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
    /// Show at most this many.
    #[arg(long, default_value_t = 1000)]
    limit: usize,
}

/// Arguments of `toolvet approvals approve` and `reject`.
#[derive(Args)]
pub struct DecideArgs {
    /// The request id (`apr_…`).
    id: String,
    #[command(flatten)]
    policy: PolicyArg,
    /// Who decides (recorded with the decision).
    #[arg(long)]
    reviewer: String,
    /// A message: the model reads it on a rejection.
    #[arg(long)]
    message: Option<String>,
    /// Approvals only: `once` (the default) or `run`.
    #[arg(long)]
    scope: Option<String>,
    #[command(flatten)]
    passphrase: PassphraseArg,
}

async fn open(policy: &Path) -> anyhow::Result<Approvals> {
    let parsed = Policy::from_file(policy)?;
    // The server's provider, so a Postgres ledger works here too.
    let provider = toolvet_serve::ledger_provider();
    Approvals::open_with(&parsed, Some(&*provider))
        .await?
        .ok_or_else(|| {
            anyhow::anyhow!(
                "{}: the policy has no [approvals] table, so nothing escalates into a request",
                policy.display()
            )
        })
}

/// Run one `toolvet approvals` subcommand; returns the exit code.
///
/// # Errors
/// A policy that does not load, a ledger that cannot be opened or read,
/// bad arguments.
pub async fn run(command: ApprovalsCommand) -> anyhow::Result<u8> {
    match command {
        ApprovalsCommand::List(args) => list(args).await,
        ApprovalsCommand::Show { id, policy } => {
            let approvals = open(&policy.config).await?;
            match approvals.get(&id).await {
                Ok(request) => {
                    let text = serde_json::to_string_pretty(&request)?;
                    println!("{}", json_visible(&text));
                    Ok(0)
                }
                Err(e) => refused(e),
            }
        }
        ApprovalsCommand::Approve(args) => decide("approve", args).await,
        ApprovalsCommand::Reject(args) => decide("reject", args).await,
        ApprovalsCommand::ReviewerKey(ReviewerKeyCommand::Init(source)) => {
            let first = crate::passphrase::read(source.passphrase_fd, "New reviewer passphrase: ")?;
            if source.passphrase_fd.is_none() {
                let again = crate::passphrase::read(None, "The same passphrase again: ")?;
                anyhow::ensure!(*first == *again, "the passphrases differ; nothing was made");
            }
            let signer = ReviewerSigner::create(&first)?;
            println!("{}", signer.public().entry());
            eprintln!(
                "List this entry in the policy's [approvals] reviewer_keys. Keep the policy file \
                 where the agent cannot write it (else it can list a key of its own), and the \
                 passphrase in your head: `toolvet approvals approve` asks for it."
            );
            Ok(0)
        }
    }
}

async fn list(args: ListArgs) -> anyhow::Result<u8> {
    let status: StatusFilter = args.status.parse()?;
    let approvals = open(&args.policy.config).await?;
    let mut query = ListQuery {
        status,
        limit: args.limit.clamp(1, MAX_PAGE),
        after: None,
    };
    let mut shown = 0usize;
    while shown < args.limit {
        query.limit = (args.limit - shown).clamp(1, MAX_PAGE);
        let page = approvals.list(&query).await?;
        for request in &page {
            match args.format {
                Format::Json => {
                    println!("{}", json_visible(&serde_json::to_string(request)?));
                }
                Format::Text => println!("{}", text_line(request)),
            }
        }
        shown += page.len();
        match page.last() {
            Some(last) if page.len() == query.limit => query.after = Some(last.id.clone()),
            _ => break,
        }
    }
    if shown == 0 && args.format == Format::Text {
        eprintln!("no {} approval requests", args.status);
    }
    Ok(0)
}

/// One request on one line; every value the caller or a plugin chose is
/// shown with control characters escaped.
fn text_line(r: &ApprovalRequest) -> String {
    let escalations: Vec<String> = r
        .escalations
        .iter()
        .map(|e| {
            format!(
                "[{}] {}",
                visible(e.rule.as_deref().unwrap_or(&e.check)),
                visible(e.reason.as_deref().unwrap_or(""))
            )
        })
        .collect();
    let mut line = format!(
        "{}  {:<8}  {:<12}  run {}  call {}  expires {}",
        r.id,
        r.status.as_str(),
        visible(&r.call.tool),
        visible(r.call.run_id.as_deref().unwrap_or("-")),
        visible(if r.call.call_id.is_empty() {
            "-"
        } else {
            &r.call.call_id
        }),
        r.expires_at,
    );
    if let Some(review) = &r.review {
        line.push_str(&format!("  by {}", visible(&review.reviewer)));
    }
    line.push_str(&format!("  {}", escalations.join("; ")));
    line.push_str(&format!("  arguments {}", visible(r.arguments.get())));
    line
}

async fn decide(decision: &str, args: DecideArgs) -> anyhow::Result<u8> {
    let review = Review::parse(
        decision,
        &args.reviewer,
        args.message.as_deref(),
        args.scope.as_deref(),
    )?;
    let approvals = open(&args.policy.config).await?;
    let decided = if decision == "approve" && approvals.requires_signed_approvals() {
        let passphrase = crate::passphrase::read(
            args.passphrase.passphrase_fd,
            &format!("Reviewer passphrase for {}: ", visible(&args.id)),
        )?;
        let signer = ReviewerSigner::unlock(&passphrase, approvals.reviewer_keys())?;
        approvals.decide_signed(&args.id, review, &signer).await
    } else {
        approvals.decide(&args.id, review).await
    };
    match decided {
        Ok(request) => {
            let scope = request
                .review
                .as_ref()
                .filter(|_| decision == "approve")
                .map(|r| format!(" (scope {})", r.scope.as_str()))
                .unwrap_or_default();
            println!(
                "{} {}{scope}: {} `{}` in run {}",
                request.id,
                request.status,
                request
                    .escalations
                    .first()
                    .and_then(|e| e.rule.as_deref())
                    .map(visible)
                    .unwrap_or_default(),
                visible(&request.call.tool),
                visible(request.call.run_id.as_deref().unwrap_or("-")),
            );
            Ok(0)
        }
        Err(e) => refused(e),
    }
}

/// Report a refused operation: exit 1 for a request that cannot be
/// decided, 2 for everything else.
fn refused(e: ApprovalError) -> anyhow::Result<u8> {
    match e {
        ApprovalError::NotFound(_)
        | ApprovalError::AlreadyDecided { .. }
        | ApprovalError::Expired(_) => {
            eprintln!("toolvet: {e}");
            Ok(EXIT_MISMATCH)
        }
        ApprovalError::InvalidReview(_) => {
            eprintln!("toolvet: {e}");
            Ok(EXIT_USAGE)
        }
        other => Err(other).context("approvals"),
    }
}
