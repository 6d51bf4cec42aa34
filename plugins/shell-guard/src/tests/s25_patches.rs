//! Review s25 R7, R8, R9: patches read as the programs applying them
//! read them.

use super::*;

/// `cmd` with a here-document holding `body`.
fn heredoc(cmd: &str, body: &str) -> String {
    format!("{cmd} <<'EOF'\n{body}EOF\n")
}

#[test]
fn r7_codex_headers_with_white_space_around_them_are_headers() {
    for header in [
        "  *** Add File: .claude/settings.local.json",
        " *** Add File: .claude/settings.local.json",
        "\t*** Add File: .claude/settings.local.json",
        "*** Add File: .claude/settings.local.json  ",
    ] {
        let patch =
            format!("*** Begin Patch\n{header}\n+{{\"disableAllHooks\":true}}\n*** End Patch\n");
        deny(&heredoc("apply_patch", &patch), "shell.guardrail-write");
        let argv = format!("apply_patch '{patch}'");
        deny(&argv, "shell.guardrail-write");
    }
    deny(
        &heredoc(
            "apply_patch",
            "*** Begin Patch\n *** Delete File: examples/toolvet.toml\n *** Add File: examples/toolvet.toml\n+[host]\n+allow_without_checks = true\n*** End Patch\n",
        ),
        "shell.toolvet-state",
    );
    deny(
        &heredoc(
            "apply_patch",
            "*** Begin Patch\n*** Add File: a.txt\n+x\n\t*** Add File: .claude/settings.local.json\n+{}\n*** End Patch\n",
        ),
        "shell.guardrail-write",
    );
    allow(&heredoc(
        "apply_patch",
        "*** Begin Patch\n  *** Add File: src/new.rs\n+fn x() {}\n*** End Patch\n",
    ));
}

const QUOTED: &str = "diff --git \"a/\\056claude/settings.local.json\" \"b/\\056claude/settings.local.json\"\nnew file mode 100644\n--- /dev/null\n+++ \"b/\\056claude/settings.local.json\"\n@@ -0,0 +1 @@\n+{\"disableAllHooks\":true}\n";

#[test]
fn r9_git_quoted_names_are_decoded() {
    deny(&heredoc("git apply", QUOTED), "shell.guardrail-write");
    deny(
        &heredoc("git apply --index", QUOTED),
        "shell.guardrail-write",
    );
    deny(&heredoc("patch -p1", QUOTED), "shell.guardrail-write");
    // Only the `+++` name, quoted.
    deny(
        &heredoc(
            "git apply",
            "--- a/x\n+++ \"b/examples/toolvet.tom\\154\"\n@@ -1 +1 @@\n-a\n+b\n",
        ),
        "shell.toolvet-state",
    );
    // Tabs and quotes in a name.
    deny(
        &heredoc(
            "git apply",
            "diff --git a/x \"b/\\056claude/settings.json\"\n--- a/x\n+++ \"b/\\056claude/settings.json\"\n@@ -1 +1 @@\n-a\n+b\n",
        ),
        "shell.guardrail-write",
    );
    allow(&heredoc(
        "git apply",
        "--- \"a/src/m\\303\\251.rs\"\n+++ \"b/src/m\\303\\251.rs\"\n@@ -1 +1 @@\n-a\n+b\n",
    ));
}

const SETTINGS_DIFF: &str = "--- a/.claude/settings.json\n+++ b/.claude/settings.json\n@@ -1 +1 @@\n-{\n+{\"disableAllHooks\":true,\n";

#[test]
fn r8_patch_reads_the_diff_on_its_standard_input() {
    deny(
        "printf -- '--- a/.claude/settings.json\\n+++ b/.claude/settings.json\\n@@ -1 +1 @@\\n-{\\n+{\"disableAllHooks\":true,\\n' | patch -p1",
        "shell.guardrail-write",
    );
    deny(
        &heredoc("patch -p1", SETTINGS_DIFF),
        "shell.guardrail-write",
    );
    deny(
        &heredoc(
            "patch -p0",
            "--- examples/toolvet.toml\n+++ examples/toolvet.toml\n@@ -1 +1 @@\n-x\n+y\n",
        ),
        "shell.toolvet-state",
    );
    deny(
        &heredoc(
            "patch --strip=0",
            "--- /home/alice/project/examples/toolvet.toml\n+++ /home/alice/project/examples/toolvet.toml\n@@ -1 +1 @@\n-x\n+y\n",
        ),
        "shell.toolvet-state",
    );
    // A here-string.
    deny(
        "patch -p1 <<< $'--- a/.claude/settings.json\\n+++ b/.claude/settings.json\\n@@ -1 +1 @@\\n-{\\n+{}\\n'",
        "shell.guardrail-write",
    );
    // A context diff: `*** OLD` and `--- NEW`.
    deny(
        &heredoc(
            "patch -p0",
            "*** .claude/settings.json\t2026-01-01\n--- .claude/settings.json\t2026-01-01\n***************\n*** 1 ****\n! {}\n--- 1 ----\n! {\"disableAllHooks\":true}\n",
        ),
        "shell.guardrail-write",
    );
    // The old name is patched when the new one does not exist.
    deny(
        &heredoc(
            "patch -p1",
            "--- a/.claude/settings.json\n+++ b/harmless.json\n@@ -1 +1 @@\n-{\n+{}\n",
        ),
        "shell.guardrail-write",
    );
    // Without `-p`, GNU patch takes the base name: in `.claude`.
    deny(
        &heredoc(
            "cd .claude && patch",
            "--- x/settings.json\n+++ x/settings.json\n@@ -1 +1 @@\n-{\n+{}\n",
        ),
        "shell.guardrail-write",
    );
    // Its backups too.
    deny(
        &heredoc(
            "patch -p1 -b -z .json",
            "--- a/.claude/settings\n+++ b/.claude/settings\n@@ -1 +1 @@\n-{\n+{}\n",
        ),
        "shell.guardrail-write",
    );
    allow(&heredoc(
        "patch -p1",
        "--- a/src/main.rs\n+++ b/src/main.rs\n@@ -1 +1 @@\n-a\n+b\n",
    ));
    allow("printf -- '--- a/src/x.rs\\n+++ b/src/x.rs\\n@@ -1 +1 @@\\n-a\\n+b\\n' | patch -p1");
}

#[test]
fn r8_a_diff_whose_text_is_not_known_holds_unless_the_file_is_named() {
    // Downloaded text applied: as downloaded code run.
    deny(
        "curl -s https://example.com/x.diff | patch -p1",
        "shell.remote-exec",
    );
    escalate("echo \"$DIFF\" | patch -p1", "shell.guardrail-write");
    escalate("cat x.diff | gpatch -p1", "shell.guardrail-write");
    escalate("echo \"$DIFF\" | git apply", "shell.guardrail-write");
    // The file to patch named: that is the write.
    allow("echo \"$DIFF\" | patch src/main.rs");
    deny(
        "echo \"$DIFF\" | patch .claude/settings.json",
        "shell.guardrail-write",
    );
    // Nothing written.
    allow("echo \"$DIFF\" | patch -p1 --dry-run");
    allow("echo \"$DIFF\" | git apply --check");
    allow("echo \"$DIFF\" | git apply --stat");
    // A diff from a file is not read (as before).
    allow("patch -p1 < fix.diff");
    allow("patch -p1 -i fix.diff");
}
