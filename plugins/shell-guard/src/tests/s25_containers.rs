//! Review s25 R16: containers onto toolvet's state and the guard rails:
//! a read-write bind mount writes files of unknown names into its source,
//! a container copy writes its host-side destination.
use super::*;

/// The policy directory (holding the approval key) and the hook program.
fn state() -> Vec<(&'static str, String)> {
    vec![
        (
            "toolvet.state_paths",
            serde_json::json!(["/srv/tv/policy/toolvet.toml", "/opt/tv/bin/toolvet"]).to_string(),
        ),
        (
            "toolvet.secret_paths",
            serde_json::json!(["/srv/tv/policy/state/approvals.key"]).to_string(),
        ),
    ]
}

#[track_caller]
fn denied(cmd: &str, rule: &str) {
    assert_eq!(
        decided_with(cmd, &state()),
        ("deny".into(), Some(rule.into())),
        "{cmd}"
    );
}

#[test]
fn bind_mounts_of_toolvet_state_are_writes_and_key_reads() {
    for cmd in [
        "docker run --rm -v /srv/tv/policy:/p alpine sh -c \"echo x > /p/toolvet.toml\"",
        "docker run --rm -v /srv/tv/policy:/p alpine true",
        "docker run --rm --mount type=bind,src=/srv/tv/policy,dst=/p alpine true",
        "podman run --rm -v /srv/tv/policy:/p:z alpine true",
        "docker run --rm -v /srv/tv/policy:/p:ro alpine true",
    ] {
        denied(cmd, "shell.read-credentials");
    }
    for cmd in [
        "docker run --rm -v /opt/tv/bin:/b alpine cp /bin/true /b/toolvet",
        "docker run --rm --volume=/opt/tv:/o alpine true",
        "docker create -v /srv/tv/policy/toolvet.toml:/p.toml alpine",
    ] {
        denied(cmd, "shell.toolvet-state");
    }
    // The agent's settings directory also holds its credentials: the
    // rule for containers given credentials holds it (row 65).
    let (kind, rule) = decided_with(
        "docker run --rm -v /home/alice/project/.claude:/c alpine true",
        &state(),
    );
    assert_ne!(kind, "allow", "{rule:?}");
}

#[test]
fn container_copies_onto_the_host_are_writes() {
    for cmd in [
        "docker cp c:/x /srv/tv/policy/toolvet.toml",
        "podman cp c:/x /opt/tv/bin/toolvet",
        "kubectl cp ns/pod:/x /srv/tv/policy/toolvet.toml",
        "kubectl -n ns cp pod:/x /opt/tv/bin/",
        "docker container cp c:/x /opt/tv/bin",
    ] {
        denied(cmd, "shell.toolvet-state");
    }
    for cmd in [
        "docker cp c:/x /home/alice/.claude/settings.json",
        "kubectl cp ns/pod:/x /home/alice/.bashrc",
    ] {
        let (kind, rule) = decided_with(cmd, &state());
        assert_eq!(
            (kind.as_str(), rule.as_deref()),
            ("deny", Some("shell.guardrail-write")),
            "{cmd}"
        );
    }
}

#[test]
fn ordinary_mounts_and_copies_stay_allowed() {
    for cmd in [
        "docker run --rm -v \"$PWD:/src\" -w /src rust cargo test",
        "docker run --rm -v /home/alice/project/data:/data alpine ls /data",
        "docker run --rm -v cache:/root/.cache alpine true",
        "docker run --rm --mount type=volume,src=cache,dst=/c alpine true",
        "docker cp ./config.yaml c:/etc/app/config.yaml",
        "docker cp c:/var/log/app.log ./app.log",
        "kubectl cp ns/pod:/tmp/out.txt ./out.txt",
    ] {
        assert_eq!(decided_with(cmd, &state()), ("allow".into(), None), "{cmd}");
    }
}
