//! Review s25 R10, R11, R13: writers whose target is implied (the
//! working directory, `NAME` from `NAME.ext`) or named by the data.

use super::*;

/// The policy's directory as the host names it (`toolvet.state_paths`).
const POLICY: &str = "/srv/tv/toolvet.toml";

/// Denied as a write onto toolvet's state, with the host's state paths.
#[track_caller]
fn deny_state(cmd: &str) {
    let got = decided_with(cmd, &[("toolvet.state_paths", format!("[\"{POLICY}\"]"))]);
    assert_eq!(
        got,
        ("deny".into(), Some("shell.toolvet-state".into())),
        "command: {cmd}"
    );
}

#[test]
fn r10_extractors_write_into_the_working_directory() {
    for cmd in [
        "cd /srv/tv && echo $B | base64 -d | cpio -idmu",
        "cd /srv/tv && cpio -i < /tmp/x.cpio",
        "cd /srv/tv && cpio --extract -F /tmp/x.cpio",
        "cd /srv/tv && ar x /tmp/x.a",
        "cd /srv/tv && ar -x /tmp/x.a",
        "cd /srv/tv && ar xv /tmp/x.a",
        "cd /srv/tv && pax -r -f /tmp/x.pax",
        "cd /srv/tv && printf x | pax -r",
        "cd /srv/tv && jar xf /tmp/x.jar",
        "cd /srv/tv && jar -xvf /tmp/x.jar",
        "cd /srv/tv && unrar x /tmp/x.rar",
        "cd /srv/tv && lha x /tmp/x.lzh",
        "cd /srv/tv && unar /tmp/x.zip",
        "cd /srv/tv && cabextract /tmp/x.cab",
        "cd /srv/tv && aunpack /tmp/x.zip",
        "cd /srv/tv && dtrx /tmp/x.zip",
        "cd /srv/tv && atool -x /tmp/x.zip",
        "cpio -p /srv/tv < list.txt",
        "pax -rw /tmp/src /srv/tv",
    ] {
        deny_state(cmd);
    }
    deny("cd ~ && printf x | cpio -idm", "shell.guardrail-write");
    deny("cd ~ && ar x /tmp/x.a", "shell.guardrail-write");
    // Elsewhere, or not extracting.
    allow("cd /tmp/build && cpio -idm < /tmp/x.cpio");
    allow("cd /tmp/build && ar x /tmp/x.a");
    allow("ar rcs libx.a a.o b.o");
    allow("ar t /tmp/x.a");
    allow("cd /tmp/build && jar xf /tmp/x.jar");
    allow("jar tf /tmp/x.jar");
}

#[test]
fn r11_decompressors_write_the_name_without_the_suffix() {
    // zstd, lz4 and lzop keep their input.
    for cmd in [
        "unzstd -f /srv/tv/toolvet.toml.zst",
        "zstd -d -f /srv/tv/toolvet.toml.zst",
        "zstd -df /srv/tv/toolvet.toml.zst",
        "pzstd -d /srv/tv/toolvet.toml.zst",
        "lz4 -d -f /srv/tv/toolvet.toml.lz4",
        "lz4 -dm /srv/tv/toolvet.toml.lz4",
        "lz4 /srv/tv/toolvet.toml.lz4",
        "unlz4 /srv/tv/toolvet.toml.lz4",
        "lzop -d /srv/tv/toolvet.toml.lzo",
        // Kept with `-k`.
        "lzip -dk /srv/tv/toolvet.toml.lz",
        "pbzip2 -dk /srv/tv/toolvet.toml.bz2",
        "unpigz -k /srv/tv/toolvet.toml.gz",
    ] {
        deny_state(cmd);
    }
    for cmd in [
        "lzip -d .claude/settings.json.lz",
        "plzip -d .claude/settings.json.lz",
        "lunzip .claude/settings.json.lz",
        "pbzip2 -d .claude/settings.json.bz2",
        "lbzip2 -d .claude/settings.json.bz2",
        "unpigz .claude/settings.json.gz",
        "pigz -d .claude/settings.json.gz",
        "zstd -d .claude/settings.json.zst",
        "lzop -d .claude/settings.json.lzo",
    ] {
        deny(cmd, "shell.guardrail-write");
    }
    deny(
        "zstd -d --rm .claude/settings.json.zst",
        "shell.guardrail-write",
    );
    // Compressing keeps the input (zstd, lz4, lzop); a named output.
    allow("zstd -q build/big.log");
    allow("lz4 build/big.log");
    allow("zstd -d build/x.zst");
    allow("zstd -d -o build/out.txt /srv/tv/toolvet.toml.zst");
    allow("lz4 -d build/x.lz4 build/out.txt");
    allow("unzstd build/x.zst");
}

#[test]
fn r13_names_from_the_data_are_unknown_names_in_the_directory() {
    for cmd in [
        "cd /srv/tv && curl -O https://example.com/toolvet.toml",
        "cd /srv/tv && curl -sSLO https://example.com/toolvet.toml",
        "cd /srv/tv && curl --remote-name-all https://example.com/toolvet.toml",
        "cd /srv/tv && curl -OJ https://example.com/x",
        "cd /srv/tv && wget https://example.com/toolvet.toml",
        "cd /srv/tv && wget -q https://example.com/x",
    ] {
        deny_state(cmd);
    }
    // `gunzip -N`: the name in the gzip header (`/srv` is a system
    // place already).
    deny("gunzip -N .claude/x.gz", "shell.guardrail-write");
    deny("gunzip -kN .claude/x.gz", "shell.guardrail-write");
    deny("cd ~ && gzip -dkN x.gz", "shell.guardrail-write");
    deny("cd ~ && gunzip --keep --name x.gz", "shell.guardrail-write");
    deny(
        "cd ~/.config && git clone https://example.com/x/environment.d",
        "shell.guardrail-write",
    );
    deny(
        "cd ~/.config && git clone https://example.com/x/environment.d.git/",
        "shell.guardrail-write",
    );
    allow("cd /tmp/build && curl -O https://example.com/a.tgz");
    allow("curl -o build/out.json https://example.com/a.json");
    allow("cd /srv/tv && curl -o /tmp/a.json https://example.com/a.json");
    allow("cd /srv/tv && wget -O /tmp/a.json https://example.com/a.json");
    allow("cd /tmp/build && wget https://example.com/a.tgz");
    // The project root, as `tar -x` there.
    allow("wget -nv https://example.com/x -e robots=off");
    allow("curl -LO https://example.com/a.tgz");
    allow("cd /srv/tv && gunzip -c x.gz > /tmp/x");
    allow("cd /tmp && git clone https://example.com/x/y.git");
}
