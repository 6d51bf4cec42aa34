//! `toolvet approvals list | show | approve | reject`: the approval requests
//! of a policy's ledger, for people at a terminal and for scripts.

use crate::{EXIT_MISMATCH, EXIT_USAGE, Format};
use anyhow::Context as _;
use clap::{Args, Subcommand};
use std::path::{Path, PathBuf};
use toolvet::display::{field, json_visible, one_line, quoted, visible};
use toolvet::{
    approval::ApprovalError, approval::ApprovalRequest, approval::Approvals, approval::ListQuery,
    approval::MAX_PAGE, approval::Review, approval::ReviewerSigner, approval::StatusFilter,
};

/// The subcommands of `toolvet approvals`.
#[derive(Subcommand)]
pub(crate) enum ApprovalsCommand {
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
pub(crate) enum ReviewerKeyCommand {
    /// Make a reviewer key from a passphrase (asked on the terminal) and
    /// print the entry to list in the policy's `[approvals] reviewer_keys`.
    /// Nothing is stored: `toolvet approvals approve` derives the key again
    /// from the same passphrase.
    Init(PassphraseArg),
}

/// Where the reviewer's passphrase comes from.
#[derive(Args)]
pub(crate) struct PassphraseArg {
    /// Read the passphrase from this open file descriptor (3 or higher; one
    /// line) instead of the terminal, for scripts and tests. Never from an
    /// argument, a variable or standard input.
    #[arg(long, value_name = "FD")]
    passphrase_fd: Option<u32>,
}

/// The policy whose approvals to use.
#[derive(Args)]
pub(crate) struct PolicyArg {
    /// The policy file (its `[approvals]` table names the ledger).
    #[arg(long, short, default_value = "toolvet.toml")]
    config: PathBuf,
}

/// Arguments of `toolvet approvals list`.
#[derive(Args)]
pub(crate) struct ListArgs {
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
pub(crate) struct DecideArgs {
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
    /// Approvals without reviewer keys: the request's `review_sha256` as
    /// you read it (`toolvet approvals show ID` prints it, and so does
    /// this command before it asks): the request is approved only if it
    /// still reads so (else exit 1, nothing decided).
    #[arg(long, value_name = "SHA256")]
    shown: Option<String>,
    /// Approvals without reviewer keys: you have read the request, as
    /// `toolvet approvals show` prints it, and approve it without being
    /// asked. Without this, `--shown` or reviewer keys, `approve` asks
    /// you to confirm at the terminal, and refuses when there is none.
    #[arg(long, conflicts_with = "shown")]
    seen: bool,
}

async fn open(policy: &Path) -> anyhow::Result<Approvals> {
    let parsed = toolvet_preset::policy_from_file(policy)?;
    // The preset every front end loads with: a Postgres ledger opens
    // here too, and the approval records are redacted as the host's are.
    toolvet_preset::open_approvals(&parsed)
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
pub(crate) async fn run(command: ApprovalsCommand) -> anyhow::Result<u8> {
    match command {
        ApprovalsCommand::List(args) => list(args).await,
        ApprovalsCommand::Show { id, policy } => {
            let approvals = open(&policy.config).await?;
            match approvals.get(&id).await {
                Ok(request) => {
                    // With the digest `approve --shown` takes back.
                    let mut shown = serde_json::to_value(&request)?;
                    shown["review_sha256"] = request.review_sha256().into();
                    let text = serde_json::to_string_pretty(&shown)?;
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

/// Whether `id` has the shape toolvet gives request ids: `apr_` and 32
/// lowercase hex digits.
fn well_formed_id(id: &str) -> bool {
    id.strip_prefix("apr_").is_some_and(|hex| {
        hex.len() == 32 && hex.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
    })
}

/// A request id as a person reads it: escaped like every other field and,
/// when it is not of toolvet's shape (a row the ledger's writer made, not
/// toolvet), flagged so.
fn shown_id(id: &str) -> String {
    if well_formed_id(id) {
        id.to_string()
    } else {
        format!(
            "{} [NOT A TOOLVET REQUEST ID: row edited by hand]",
            visible(id)
        )
    }
}

/// The request a reviewer is about to decide, in full, escaped: what the
/// decision will be bound to, shown before anything is asked or signed.
fn described(decision: &str, r: &ApprovalRequest) -> String {
    let mut text = format!(
        "You are about to {decision} request {}:\n  tool       {}\n  arguments  {}\n  run        {}\n  call id    {}\n  agent      {}\n  principal  {}\n  expires    {}\n",
        shown_id(&r.id),
        field(&r.call.tool),
        one_line(r.arguments.get()),
        field(r.call.run_id.as_deref().unwrap_or("-")),
        field(if r.call.call_id.is_empty() {
            "-"
        } else {
            &r.call.call_id
        }),
        field(r.agent.as_deref().unwrap_or("-")),
        field(r.principal.as_deref().unwrap_or("-")),
        r.expires_at,
    );
    // Where and through what the call runs: the approval is bound to these.
    for (key, value) in &r.call.attributes {
        text.push_str(&format!("  {:<10} {}\n", field(key), field(value)));
    }
    for e in &r.escalations {
        text.push_str(&format!(
            "  held by    [{}] {}\n",
            field(e.rule.as_deref().unwrap_or(&e.check)),
            one_line(e.reason.as_deref().unwrap_or(""))
        ));
    }
    text.push_str(&format!("  review     {}\n", r.review_sha256()));
    text
}

/// The bound context of `r` for one line: `  cwd /srv/app  agent_tool Bash`.
fn bound_text(r: &ApprovalRequest) -> String {
    r.call
        .attributes
        .iter()
        .map(|(k, v)| format!("  {} {}", field(k), field(v)))
        .collect()
}

/// One request on one line; every value the caller, a plugin or the
/// ledger's writer chose (the id too) is shown with control characters
/// escaped, every name as one [`field`] and every reason [`quoted`], so no
/// white space or quote in them fakes a field or a second record, and the
/// arguments before the reasons, with runs of spaces counted (review s20
/// T3).
fn text_line(r: &ApprovalRequest) -> String {
    let escalations: Vec<String> = r
        .escalations
        .iter()
        .map(|e| {
            format!(
                "[{}] {}",
                field(e.rule.as_deref().unwrap_or(&e.check)),
                quoted(e.reason.as_deref().unwrap_or(""))
            )
        })
        .collect();
    let mut line = format!(
        "{}  {:<8}  {:<12}  run {}  call {}{}  expires {}",
        shown_id(&r.id),
        r.status.as_str(),
        field(&r.call.tool),
        field(r.call.run_id.as_deref().unwrap_or("-")),
        field(if r.call.call_id.is_empty() {
            "-"
        } else {
            &r.call.call_id
        }),
        bound_text(r),
        r.expires_at,
    );
    if let Some(review) = &r.review {
        line.push_str(&format!("  by {}", field(&review.reviewer)));
    }
    line.push_str(&format!("  arguments {}", one_line(r.arguments.get())));
    line.push_str(&format!("  {}", escalations.join("; ")));
    line
}

async fn decide(decision: &str, args: DecideArgs) -> anyhow::Result<u8> {
    let review = Review::parse(
        decision,
        &args.reviewer,
        args.message.as_deref(),
        args.scope.as_deref(),
    )?;
    if !well_formed_id(&args.id) {
        eprintln!(
            "toolvet: `{}` is not a toolvet request id (`apr_` and 32 hex digits); nothing was decided",
            visible(&args.id)
        );
        return Ok(EXIT_USAGE);
    }
    let approvals = open(&args.policy.config).await?;
    // The person reads the very record the decision is bound to, before
    // any passphrase is asked or anything is signed: the decision counts
    // only while the row still reads as it was printed (`review_sha256`).
    let read = match approvals.get(&args.id).await {
        Ok(request) => {
            eprint!("{}", described(decision, &request));
            request.review_sha256()
        }
        Err(e) => return refused(e),
    };
    let signed = decision == "approve" && approvals.requires_signed_approvals();
    let read = if decision == "approve" && !signed {
        // No passphrase prompt follows: the person confirms what they
        // read, or the request is not approved (review s20 T3).
        match confirmed(&args, read)? {
            Some(read) => read,
            None => return Ok(EXIT_USAGE),
        }
    } else {
        read
    };
    let decided = if signed {
        let passphrase = crate::passphrase::read(
            args.passphrase.passphrase_fd,
            &format!("Reviewer passphrase for {}: ", visible(&args.id)),
        )?;
        let signer = ReviewerSigner::unlock(&passphrase, approvals.reviewer_keys())?;
        approvals
            .decide_signed(&args.id, review, &signer, &read)
            .await
    } else {
        approvals.decide_shown(&args.id, review, &read).await
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
                shown_id(&request.id),
                request.status,
                request
                    .escalations
                    .first()
                    .and_then(|e| e.rule.as_deref())
                    .map(field)
                    .unwrap_or_default(),
                field(&request.call.tool),
                field(request.call.run_id.as_deref().unwrap_or("-")),
            );
            Ok(0)
        }
        Err(e) => refused(e),
    }
}

/// The `review_sha256` an unsigned approval is bound to, as the person
/// confirmed it: `--shown` (what they read earlier), `--seen`, or `yes`
/// typed at the terminal after the request was printed (`printed`, its
/// digest). `None` (after saying why) when nothing confirms it.
fn confirmed(args: &DecideArgs, printed: String) -> anyhow::Result<Option<String>> {
    use std::io::{BufRead, IsTerminal};
    if let Some(shown) = &args.shown {
        return Ok(Some(shown.clone()));
    }
    if args.seen {
        return Ok(Some(printed));
    }
    let stdin = std::io::stdin();
    if !stdin.is_terminal() {
        eprintln!(
            "toolvet: nothing was approved: confirm the request printed above with \
             `--shown {printed}` (its review digest), or `--seen` if you have read it"
        );
        return Ok(None);
    }
    eprint!("Approve this request? Type `yes` to approve: ");
    let mut answer = String::new();
    stdin.lock().read_line(&mut answer)?;
    if answer.trim() == "yes" {
        Ok(Some(printed))
    } else {
        eprintln!("toolvet: nothing was approved");
        Ok(None)
    }
}

/// Report a refused operation: exit 1 for a request that cannot be
/// decided, 2 for everything else.
fn refused(e: ApprovalError) -> anyhow::Result<u8> {
    match e {
        ApprovalError::NotFound(_)
        | ApprovalError::AlreadyDecided { .. }
        | ApprovalError::Expired(_)
        | ApprovalError::Changed(_) => {
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

#[cfg(test)]
mod tests {
    use super::*;

    fn request(id: &str) -> ApprovalRequest {
        serde_json::from_value(serde_json::json!({
            "id": id, "status": "pending",
            "call": {"tool": "rotate_keys", "arguments_sha256": "ab", "call_id": "c9", "run_id": "r9",
                     "attributes": {"cwd": "/srv/app", "agent_tool": "mcp__good__rotate_keys"}},
            "arguments": {"env": "prod"}, "agent": null, "principal": null,
            "escalations": [{"check": "policy", "rule": "policy.requires-approval",
                             "reason": "keys need a person\u{1b}[8m"}],
            "created_at": "2026-12-01T00:00:00.000Z", "expires_at": "2026-12-01T01:00:00.000Z",
            "review": null, "consumed_at": null
        }))
        .unwrap()
    }

    /// Review s6 finding 3: an id the agent wrote into the ledger hid the
    /// real request behind a forged line (SGR 8 conceal, cursor moves).
    #[test]
    fn a_forged_id_is_shown_escaped_and_flagged() {
        let forged = "\u{1b}[0mapr_28631af68a691e8a0207e813619e0cca  pending   read_note \u{1b}[8m";
        let line = text_line(&request(forged));
        assert!(!line.contains('\u{1b}'), "{line:?}");
        assert!(line.starts_with("\\x1b[0mapr_28631af6"), "{line:?}");
        assert!(line.contains("NOT A TOOLVET REQUEST ID"), "{line:?}");
        assert!(line.contains("rotate_keys"), "{line:?}");
        // A well-formed id is shown as it is, unflagged.
        let good = "apr_28631af68a691e8a0207e813619e0cca";
        let line = text_line(&request(good));
        assert!(line.starts_with(&format!("{good}  pending")), "{line:?}");
        assert!(!line.contains("NOT A TOOLVET"), "{line:?}");
        for bad in [
            "apr_28631AF68A691E8A0207E813619E0CCA",
            "apr_1",
            "",
            "apr_28631af68a691e8a0207e813619e0ccax",
        ] {
            assert!(!well_formed_id(bad), "{bad}");
        }
    }

    /// The approve prompt shows the request it signs, escaped.
    #[test]
    fn the_reviewer_reads_the_request_before_deciding() {
        let text = described("approve", &request("apr_28631af68a691e8a0207e813619e0cca"));
        assert!(!text.contains('\u{1b}'), "{text:?}");
        for shown in [
            "approve request apr_28631af68a691e8a0207e813619e0cca",
            "tool       rotate_keys",
            r#"arguments  {"env":"prod"}"#,
            "run        r9",
            "call id    c9",
            "cwd        /srv/app",
            "agent_tool mcp__good__rotate_keys",
            "[policy.requires-approval] keys need a person",
        ] {
            assert!(text.contains(shown), "{shown}: {text}");
        }
    }
}
