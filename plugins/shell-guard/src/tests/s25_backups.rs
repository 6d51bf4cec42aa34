//! Review s25 R12: backup copies named TARGET+SUFFIX are writes.

use super::*;

// The project's `.claude/settings.json` is a guard rail and
// `.claude/settings` is not (a home's `~/.claude/settings` is already a
// home dotfile here).

#[test]
fn copies_keeping_a_backup_under_a_suffix_write_it() {
    for cmd in [
        "cp -b -S .json /tmp/evil.json .claude/settings",
        "cp --backup=simple -S .json X .claude/settings",
        "cp --backup=simple --suffix=.json X .claude/settings",
        "cp -S .json X .claude/settings",
        "cp -bS.json X .claude/settings",
        "SIMPLE_BACKUP_SUFFIX=.json cp -b X .claude/settings",
        "export SIMPLE_BACKUP_SUFFIX=.json; cp -b X .claude/settings",
        "mv -b -S .json X .claude/settings",
        "install -b -S .json X .claude/settings",
        "ln -sfb -S .json X .claude/settings",
        "cp -b -S .json /tmp/settings .claude/",
        "cp -b -S .json -t ~/.claude X/settings",
        // A suffix only known at run time may be any.
        "cp -b -S \"$S\" X .claude/settings",
    ] {
        deny(cmd, "shell.guardrail-write");
    }
    deny(
        "printf '[host]\\n' > examples/toolvet && cp -b -S .toml X examples/toolvet",
        "shell.toolvet-state",
    );
    // Without a backup, or a backup under a harmless name.
    allow("cp X .claude/settings");
    allow("cp -b -S .bak X src/main.rs");
    allow("mv -b X notes.txt");
}

#[test]
fn in_place_editors_write_their_backups() {
    for cmd in [
        "sed -i.json s/a/b/ .claude/settings",
        "sed -Ei.json s/a/b/ .claude/settings",
        "sed --in-place=.json s/a/b/ .claude/settings",
        "sed -e s/a/b/ -i.json .claude/settings",
        // `*` is the file's name: `.claude/*.json` from `settings`.
        "cd /tmp && sed -i'/home/alice/project/.claude/*.json' s/a/b/ settings",
        "perl -i.json -pe 1 .claude/settings",
        "perl -pi.json -e 1 .claude/settings",
        "ruby -i.json -pe 1 .claude/settings",
        "gawk -i inplace -v INPLACE_SUFFIX=.json '{print}' .claude/settings",
        "rsync -b --suffix=.json X .claude/settings",
        "rsync --backup --suffix .json X .claude/settings",
        "patch -b -z .json .claude/settings D",
        "patch -z .json .claude/settings D",
        "patch -b -B .claude/ settings.json D",
    ] {
        deny(cmd, "shell.guardrail-write");
    }
    deny(
        "sed -i.toml s/zzz/zzz/ examples/toolvet",
        "shell.toolvet-state",
    );
    deny(
        "cd examples && sed -i'*.toml' s/zzz/zzz/ toolvet",
        "shell.toolvet-state",
    );
    allow("sed -i.bak s/a/b/ src/main.rs");
    allow("sed -i s/a/b/ src/main.rs");
    allow("perl -pi -e 1 src/main.rs");
    allow("perl -0777 -pi -e 1 src/main.rs");
    deny(
        "perl -0777 -pi.json -e 1 .claude/settings",
        "shell.guardrail-write",
    );
    deny(
        "perl -l -pi.json -e 1 .claude/settings",
        "shell.guardrail-write",
    );
    allow("patch --dry-run -z .json .claude/settings D");
    allow("patch -b src/main.rs fix.diff");
}
