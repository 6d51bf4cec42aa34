package dev.toolvet;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;

/**
 * What the Java binding adds to a verdict (BENCHMARKS.md, "C ABI
 * (libtoolvet), Go and Java"): the example policy without its decision
 * log and a compound {@code bash} call; each call timed alone, and the
 * median of its wall time minus the verdict's own {@code duration_us}.
 * {@code java ... dev.toolvet.CheckBench [N]}, with the properties of
 * {@link HostTest}.
 */
public final class CheckBench {
    public static void main(String[] args) throws Exception {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 3000;
        Path root = Path.of(System.getProperty("toolvet.root", "../.."));
        Path dir = Files.createTempDirectory("toolvet-java-bench-");
        Files.createDirectories(dir.resolve("examples"));
        Files.createDirectories(dir.resolve("target"));
        Files.createSymbolicLink(dir.resolve("target/plugins"), root.toAbsolutePath().resolve("target/plugins"));
        StringBuilder policy = new StringBuilder();
        for (String line : Files.readAllLines(root.resolve("examples/toolvet.toml"))) {
            if (!line.startsWith("decision_log")) policy.append(line).append('\n');
        }
        Path path = dir.resolve("examples/toolvet.toml");
        Files.writeString(path, policy);
        String command = "cd /work/app && git status && git log --oneline -5 && grep -rn \"TODO\" src | head";
        try (Host host = Host.loadFile(path)) {
            for (int i = 0; i < n / 10; i++) host.check("bash", Map.of("command", command), "run-bench", null);
            double[] outside = new double[n];
            for (int i = 0; i < n; i++) {
                long start = System.nanoTime();
                Verdict v = host.check("bash", Map.of("command", command), "run-bench", null);
                long wall = System.nanoTime() - start;
                if (v.decision() != Verdict.Decision.ALLOW) throw new AssertionError(v);
                outside[i] = wall / 1e3 - ((Number) v.json().get("duration_us")).doubleValue();
            }
            Arrays.sort(outside);
            System.out.printf("java Host.check: %d calls, outside the verdict p50 %.1f us%n", n, outside[n / 2]);
        }
    }
}
