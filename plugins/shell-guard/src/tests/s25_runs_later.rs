//! Review s25 R14: what runs later with no person, installed by doors the
//! rules did not watch: `crontab -e` with a program as its editor, other
//! tools' trust approvals (`direnv allow`, `mise trust`), the second
//! systemd user unit directory.
use super::*;

#[test]
fn crontab_edited_by_a_program_is_held() {
    for cmd in [
        "printf '* * * * * rm -rf ~\\n' > /tmp/c && EDITOR='cp /tmp/c' crontab -e",
        "printf '* * * * * cp /tmp/e.json ~/.claude/settings.json\\n' > /tmp/c && EDITOR=\"cp /tmp/c\" crontab -e",
        "VISUAL='cp /tmp/c' crontab -e",
        "export EDITOR='cp /tmp/c'; crontab -e",
        "crontab -e",
        "crontab -u alice -e",
    ] {
        escalate(cmd, "shell.guardrail-write");
    }
    // Listing stays allowed; an editor that removes the home is denied.
    allow("crontab -l");
    deny("EDITOR='rm -rf ~' crontab -e", "shell.rm-home");
}

#[test]
fn other_tools_trust_approvals_are_held() {
    for cmd in [
        "git clone https://github.com/someone/repo r && direnv allow r",
        "direnv allow",
        "direnv allow ~/other-project",
        "direnv permit .",
        "git clone https://github.com/someone/repo r && mise trust r/mise.toml",
        "mise trust",
        "mise trust --all",
        "/usr/local/bin/mise trust .",
    ] {
        escalate(cmd, "shell.guardrail-write");
    }
    for cmd in [
        "direnv deny .",
        "direnv status",
        "direnv exec . make test",
        "mise trust --untrust .",
        "mise ls",
        "mise install",
    ] {
        let (kind, rule) = verdict(cmd);
        assert!(
            kind == "allow" || rule.as_deref() != Some("shell.guardrail-write"),
            "{cmd}: {kind} {rule:?}"
        );
    }
}

#[test]
fn units_in_the_data_home_unit_directory_are_guard_rails() {
    for cmd in [
        "mkdir -p ~/.local/share/systemd/user && printf '[Service]\\nExecStart=/bin/sh -c true\\n[Install]\\nWantedBy=default.target\\n' > ~/.local/share/systemd/user/x.service && systemctl --user enable x.service",
        "echo x > /home/alice/.local/share/systemd/user/x.service",
        "cd ~/.local/share/systemd/user && printf '[Service]\\n' > x.service",
    ] {
        deny(cmd, "shell.guardrail-write");
    }
    allow("systemctl --user enable app.service");
}
