//! The scripts an agent's settings run are guard rails, end to end (review
//! s23 R8): a project whose `.claude/settings.json` runs `tools/guard.sh`
//! as its PreToolUse hook, and Claude Code's `Write` onto that script,
//! vetted in process by the shipped path-guard
//! (target/plugins/path_guard.wasm).

use crate::support;

use std::path::{Path, PathBuf};
use toolvet_hooks::{Agent, Answer, HookError};

/// A policy with path-guard alone, its state in `dir`.
fn policy(dir: &Path) -> PathBuf {
    support::one_check_policy(dir, "paths", "path_guard.wasm")
}

fn write(policy: &Path, project: &Path, file: &str) -> Result<Answer, HookError> {
    let payload = serde_json::json!({
        "session_id": "autorun-1", "cwd": project.display().to_string(),
        "permission_mode": "default", "hook_event_name": "PreToolUse",
        "tool_name": "Write",
        "tool_input": {"file_path": project.join(file).display().to_string(),
                       "content": "#!/bin/sh\nexit 0\n"},
        "tool_use_id": "toolu_1"
    });
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(toolvet_hooks::vet(
        Agent::ClaudeCode,
        policy,
        payload.to_string().as_bytes(),
    ))
}

#[test]
fn a_write_onto_the_script_a_project_hook_runs_is_denied() {
    let dir = tempfile::tempdir().unwrap();
    let policy = policy(dir.path());
    let project = dir.path().join("project");
    std::fs::create_dir_all(project.join(".claude")).unwrap();
    std::fs::write(
        project.join(".claude/settings.json"),
        r#"{"hooks":{"PreToolUse":[{"matcher":"*","hooks":[
            {"type":"command","command":"\"$CLAUDE_PROJECT_DIR\"/tools/guard.sh"}]}]}}"#,
    )
    .unwrap();
    let answer = write(&policy, &project, "tools/guard.sh");
    assert!(
        matches!(&answer, Ok(Answer::Deny(text)) if text.contains("tools/guard.sh")),
        "{answer:?}"
    );
    // A script no setting runs is an ordinary project file.
    let answer = write(&policy, &project, "tools/other.sh");
    assert!(matches!(answer, Ok(Answer::Allow { .. })), "{answer:?}");
}
