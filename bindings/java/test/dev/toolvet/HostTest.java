package dev.toolvet;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * The Java package's tests, run with a plain {@code java} (no test
 * framework here: no Maven Central): {@code make java-tests}. Each test is
 * a method; the run fails naming the first expectation that does not hold
 * in each.
 *
 * <p>Properties: {@code toolvet.root} (the repository), {@code toolvet.cli}
 * (the CLI), {@code toolvet.jni} (libtoolvet_jni.so).
 */
public final class HostTest {
    private static final String PASSPHRASE = "correct horse battery staple, for tests only";
    private static final Path ROOT = Path.of(System.getProperty("toolvet.root", "../.."));

    public static void main(String[] args) throws Exception {
        List<String> failed = new ArrayList<>();
        for (var test : List.<Map.Entry<String, Test>>of(
                Map.entry("the example policy denies rm -rf ~ and allows ls", HostTest::denyAndAllow),
                Map.entry("escalated, approved through the CLI, resumed once, replay denied", HostTest::approvedThroughTheCli),
                Map.entry("failures are checked exceptions with their code", HostTest::failures),
                Map.entry("a closed host denies", HostTest::closedDenies),
                Map.entry("a result with a secret is masked; one host serves threads", HostTest::resultsAndThreads))) {
            try {
                test.getValue().run();
                System.out.println("ok    " + test.getKey());
            } catch (Throwable e) {
                System.out.println("FAIL  " + test.getKey() + ": " + e);
                failed.add(test.getKey());
            }
        }
        if (!failed.isEmpty()) {
            System.out.println(failed.size() + " failed");
            System.exit(1);
        }
        System.out.println("java tests: all passed");
    }

    private interface Test {
        void run() throws Exception;
    }

    private static void expect(boolean holds, Object what) {
        if (!holds) throw new AssertionError(String.valueOf(what));
    }

    /** The example policy copied to a scratch directory (its ../target/plugins kept), {@code extra} after its key_file line. */
    private static Path examplePolicy(String extra) throws IOException {
        Path dir = Files.createTempDirectory("toolvet-java-");
        Files.createDirectories(dir.resolve("examples"));
        Files.createDirectories(dir.resolve("target"));
        Files.createSymbolicLink(dir.resolve("target/plugins"), ROOT.toAbsolutePath().resolve("target/plugins"));
        String policy = Files.readString(ROOT.resolve("examples/toolvet.toml"));
        String anchor = "key_file = \"state/approvals.key\"\n";
        expect(policy.contains(anchor), "the example policy has " + anchor);
        policy = policy.replace(anchor, anchor + extra);
        Path path = dir.resolve("examples/toolvet.toml");
        Files.writeString(path, policy);
        return path;
    }

    /** The CLI with the test passphrase on descriptor 3; its standard output. */
    private static String cli(String... args) throws Exception {
        Path pass = Files.createTempFile("toolvet-pass-", ".txt");
        Files.writeString(pass, PASSPHRASE + "\n");
        List<String> command = new ArrayList<>(List.of("bash", "-c", "exec 3<\"$1\"; shift; exec \"$@\" --passphrase-fd 3", "bash",
                pass.toString(), System.getProperty("toolvet.cli", ROOT.resolve("target/release/toolvet").toString())));
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
        int code = p.waitFor();
        Files.delete(pass);
        expect(code == 0, "toolvet " + String.join(" ", args) + " exited " + code);
        return out;
    }

    private static void denyAndAllow() throws Exception {
        try (Host host = Host.loadFile(examplePolicy(""))) {
            Verdict rm = host.check("bash", Map.of("command", "rm -rf ~"), null, null);
            expect(rm.decision() == Verdict.Decision.DENY && "shell.rm-home".equals(rm.rule()), rm);
            Verdict ls = host.check("bash", Map.of("command", "ls"), null, null);
            expect(ls.decision() == Verdict.Decision.ALLOW, ls);
            // Anything that cannot be vetted is a deny, never an exception.
            Verdict bad = host.check("{\"call\":{\"name\":\"bash\",\"name\":\"ls\"}}");
            expect(bad.decision() == Verdict.Decision.DENY && "toolvet.invalid-call".equals(bad.rule()), bad);
            Verdict nul = host.check("{\"call\":{\"name\":\"bash\",\"arguments\":{\"command\":\"ls\u0000; rm -rf ~\"}}}");
            expect(nul.decision() == Verdict.Decision.DENY, nul);
        }
    }

    private static void approvedThroughTheCli() throws Exception {
        String entry = cli("approvals", "reviewer-key", "init");
        expect(entry.startsWith("ed25519:"), entry);
        Path policy = examplePolicy("reviewer_keys = [\"" + entry + "\"]\n");
        try (Host host = Host.loadFile(policy)) {
            Verdict held = host.check("rotate_keys", Map.of("service", "billing"), "run-java", null);
            expect(held.decision() == Verdict.Decision.ESCALATE && held.ticket() != null, held);
            expect(!held.reason().contains("toolvet approvals"), "the model reads how to approve: " + held.reason());
            List<Map<String, Object>> pending = host.approvals("pending", 0, null);
            expect(pending.size() == 1 && held.approvalId().equals(pending.get(0).get("id")), pending);
            cli("approvals", "approve", held.approvalId(), "--reviewer", "alice", "--config", policy.toString());
            Verdict resumed = host.check("rotate_keys", Map.of("service", "billing"), "run-java", held.ticket());
            expect(resumed.decision() == Verdict.Decision.ALLOW, resumed);
            Verdict replayed = host.check("rotate_keys", Map.of("service", "billing"), "run-java", held.ticket());
            expect(replayed.decision() == Verdict.Decision.DENY, replayed);
            expect("consumed".equals(host.approval(held.approvalId()).get("status")), host.approval(held.approvalId()));
        }
    }

    private static void failures() throws Exception {
        try {
            Host.loadFile(Path.of("/nonexistent/toolvet.toml")).close();
            expect(false, "a missing policy loaded");
        } catch (ToolvetException e) {
            expect(e.code() == ToolvetException.CONFIG && e.getMessage().contains("/nonexistent/toolvet.toml"), e);
        }
        try {
            Host.loadToml("[host]\n\n[[check]]\nname = 1\n", Path.of("/tmp"), "inline.toml").close();
            expect(false, "a bad policy loaded");
        } catch (ToolvetException e) {
            expect(e.code() == ToolvetException.CONFIG && e.getMessage().contains("inline.toml:4"), e);
        }
        try (Host host = Host.loadFile(examplePolicy(""))) {
            try {
                host.approval("apr_0000");
                expect(false, "an unknown request was found");
            } catch (ToolvetException e) {
                expect(e.code() == ToolvetException.APPROVAL_NOT_FOUND, e);
            }
            try {
                host.decide("apr_0000", "maybe", "alice", null, null);
                expect(false, "a bad decision was taken");
            } catch (ToolvetException e) {
                expect(e.code() == ToolvetException.APPROVAL_INVALID_REVIEW, e);
            }
            expect(host.reload(null) == 2, "reload");
        }
    }

    private static void closedDenies() throws Exception {
        Host host = Host.loadFile(examplePolicy(""));
        host.close();
        Verdict v = host.check("bash", Map.of("command", "ls"), null, null);
        expect(v.decision() == Verdict.Decision.DENY && "toolvet.host-error".equals(v.rule()), v);
        try {
            host.approvals(null, 0, null);
            expect(false, "a closed host listed");
        } catch (ToolvetException e) {
            expect(e.code() == ToolvetException.CLOSED, e);
        }
    }

    private static void resultsAndThreads() throws Exception {
        try (Host host = Host.loadFile(examplePolicy(""))) {
            Map<String, Object> r = host.checkResult("{\"call\":{\"name\":\"read_file\",\"arguments\":{\"path\":\"a.txt\"}},"
                    + "\"result\":{\"content\":{\"text\":\"key ghp_R8b3kLm2Qx9Vt7Wz1Yc4Hd6Jf0Np5Ks3Ta8U\"}}}");
            expect("redact".equals(r.get("action")) && Map.of("text", "key [redacted: github-token]").equals(r.get("content")), r);
            ExecutorService pool = Executors.newFixedThreadPool(4);
            List<Future<Boolean>> answers = new ArrayList<>();
            for (int i = 0; i < 32; i++) {
                boolean rm = i % 2 == 1;
                answers.add(pool.submit(() -> host.check("bash", Map.of("command", rm ? "rm -rf ~" : "ls"), null, null)
                        .decision() == (rm ? Verdict.Decision.DENY : Verdict.Decision.ALLOW)));
            }
            for (Future<Boolean> a : answers) expect(a.get(), "a concurrent verdict");
            pool.shutdown();
        }
    }
}
