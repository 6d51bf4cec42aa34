//! Review s25 S31: options of `sudo`/`doas`/`run0` that choose the
//! program root runs (a shell, another root or directory) take the
//! command out of the read-only exemption.

use super::*;

#[test]
fn s31_sudo_running_a_shell_or_another_root_is_held() {
    for cmd in [
        "SHELL=/tmp/evil sudo -s id",
        "export SHELL=/tmp/evil; sudo -s id",
        "env SHELL=/tmp/evil sudo --shell id",
        "SHELL=/tmp/evil sudo -s systemctl status x",
        "sudo -s id",
        "sudo -i id",
        "sudo --login id",
        "sudo -R /tmp/x id",
        "sudo --chroot=/tmp/x id",
        "sudo -D /tmp/x id",
        "sudo -u root -s id",
        "doas -s id",
        "run0 -i id",
    ] {
        escalate(cmd, "shell.sudo");
    }
}

#[test]
fn s31_read_only_sudo_still_passes() {
    for cmd in [
        "sudo id",
        "sudo -u root id",
        "doas id",
        "sudo -n systemctl status x",
    ] {
        allow(cmd);
    }
}
