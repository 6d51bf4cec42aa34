package dev.toolvet;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * A loaded toolvet policy: its checks, its approvals, and the labels each
 * run's results raised, in this process, through libtoolvet (the C ABI)
 * and JNI.
 *
 * <p>Every method may be called from any thread at once; each blocks its
 * thread while the checks run. {@link #check} never throws: a call that
 * cannot be vetted, a closed host or a failure of the host is a deny.
 *
 * <pre>{@code
 * try (Host host = Host.loadFile(Path.of("examples/toolvet.toml"))) {
 *     Verdict v = host.check("bash", Map.of("command", "rm -rf ~"), null, null);
 *     v.decision();   // DENY, rule shell.rm-home
 * }
 * }</pre>
 */
public final class Host implements AutoCloseable {
    private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();
    private long handle;

    private Host(long handle) {
        this.handle = handle;
    }

    /**
     * Load every check of the policy file at {@code path}.
     *
     * @throws ToolvetException {@link ToolvetException#CONFIG} (the file
     *     cannot be read or is not a valid policy) or {@link
     *     ToolvetException#LOAD} (a check, the ledger or its key failed to load)
     */
    public static Host loadFile(Path path) throws ToolvetException {
        return new Host(Native.loadFile(utf8(path.toString())));
    }

    /**
     * Load the policy {@code text}; relative paths in it resolve against
     * {@code baseDir}, and {@code source} (null: {@code <inline>}) names it
     * in errors.
     *
     * @throws ToolvetException as {@link #loadFile}
     */
    public static Host loadToml(String text, Path baseDir, String source) throws ToolvetException {
        return new Host(Native.loadToml(utf8(text), utf8(baseDir.toString()), source == null ? null : utf8(source)));
    }

    /**
     * Vet one call given as the JSON {@code toolvet check} reads ({@code
     * {"call": {...}, "context": {...}, "approval": {"ticket": ...}}}).
     * Never throws.
     */
    public Verdict check(String requestJson) {
        lock.readLock().lock();
        try {
            if (handle == 0) {
                return Verdict.deny("toolvet.host-error", "the policy host is closed, so the call may not run");
            }
            return verdict(Native.check(handle, utf8(requestJson)));
        } catch (RuntimeException | LinkageError e) {
            return Verdict.deny("toolvet.host-error",
                    "the policy host failed while vetting this call (" + e + "), so it may not run");
        } finally {
            lock.readLock().unlock();
        }
    }

    /**
     * Vet a call of {@code tool} with {@code arguments}, in the run {@code
     * runId} (null: none), resuming with {@code ticket} (null: a new call).
     * Never throws.
     */
    public Verdict check(String tool, Map<String, Object> arguments, String runId, String ticket) {
        Map<String, Object> call = new LinkedHashMap<>();
        call.put("name", tool);
        call.put("arguments", arguments == null ? Map.of() : arguments);
        Map<String, Object> request = new LinkedHashMap<>();
        request.put("call", call);
        if (runId != null) request.put("context", Map.of("run_id", runId));
        if (ticket != null) request.put("approval", Map.of("ticket", ticket));
        String json;
        try {
            json = Json.write(request);
        } catch (IllegalArgumentException e) {
            return Verdict.deny("toolvet.invalid-call", "the call cannot be written as JSON: " + e.getMessage());
        }
        return check(json);
    }

    /**
     * Vet what a tool returned, given as the JSON {@code toolvet
     * check-result} reads (the call with its {@code result}). Never throws:
     * anything that fails withholds. The answer's {@code action} is {@code
     * pass}, {@code redact} (hand the model its {@code content}) or {@code
     * withhold}.
     */
    public Map<String, Object> checkResult(String resultRequestJson) {
        lock.readLock().lock();
        try {
            if (handle == 0) {
                return withheld("the policy host is closed");
            }
            return object(new String(Native.checkResult(handle, utf8(resultRequestJson)), StandardCharsets.UTF_8));
        } catch (RuntimeException | LinkageError e) {
            return withheld("the policy host failed while vetting this result (" + e + ")");
        } finally {
            lock.readLock().unlock();
        }
    }

    /**
     * One page of approval requests, oldest first: {@code status} is
     * {@code pending} (null too), {@code approved}, {@code rejected},
     * {@code consumed}, {@code expired} or {@code all}; {@code limit}
     * 1..500 (0: 100); {@code after} the previous page's last id (null:
     * from the start).
     *
     * @throws ToolvetException an {@code APPROVAL_*} code, or {@link ToolvetException#CLOSED}
     */
    @SuppressWarnings("unchecked")
    public List<Map<String, Object>> approvals(String status, int limit, String after) throws ToolvetException {
        Object page = Json.parse(approvalsCall(
                h -> Native.approvals(h, status == null ? null : utf8(status), limit, after == null ? null : utf8(after))));
        return (List<Map<String, Object>>) page;
    }

    /**
     * The approval request {@code id} with its status as of now.
     *
     * @throws ToolvetException {@link ToolvetException#APPROVAL_NOT_FOUND}, ...
     */
    public Map<String, Object> approval(String id) throws ToolvetException {
        return object(approvalsCall(h -> Native.approval(h, utf8(id))));
    }

    /**
     * Record a person's decision ({@code approve} or {@code reject}) about
     * request {@code id}; {@code message} and {@code scope} ({@code once},
     * {@code run}) may be null. The first decision stands. Call it with a
     * person's answer, never from a tool the model can call.
     *
     * @throws ToolvetException {@link ToolvetException#APPROVAL_INVALID_REVIEW}, ...
     */
    public Map<String, Object> decide(String id, String decision, String reviewer, String message, String scope)
            throws ToolvetException {
        return object(approvalsCall(h -> Native.decide(h, utf8(id), utf8(decision), utf8(reviewer),
                message == null ? null : utf8(message), scope == null ? null : utf8(scope), null)));
    }

    /**
     * Read the policy file at {@code path} (null: the file in force) and
     * put it in force; on failure the old policy stays. Returns the new
     * generation.
     *
     * @throws ToolvetException as {@link #loadFile}
     */
    public long reload(Path path) throws ToolvetException {
        lock.readLock().lock();
        try {
            if (handle == 0) throw new ToolvetException(ToolvetException.CLOSED, "the policy host is closed");
            return Native.reload(handle, path == null ? null : utf8(path.toString()));
        } finally {
            lock.readLock().unlock();
        }
    }

    /** Free the host. Calls still running finish first; later ones are denied. */
    @Override
    public void close() {
        lock.writeLock().lock();
        try {
            if (handle != 0) {
                Native.free(handle);
                handle = 0;
            }
        } finally {
            lock.writeLock().unlock();
        }
    }

    private interface ApprovalsCall {
        byte[] on(long handle) throws ToolvetException;
    }

    private String approvalsCall(ApprovalsCall call) throws ToolvetException {
        lock.readLock().lock();
        try {
            if (handle == 0) throw new ToolvetException(ToolvetException.CLOSED, "the policy host is closed");
            return new String(call.on(handle), StandardCharsets.UTF_8);
        } finally {
            lock.readLock().unlock();
        }
    }

    private static Verdict verdict(byte[] answer) {
        Map<String, Object> json = object(new String(answer, StandardCharsets.UTF_8));
        if (!(json.get("decision") instanceof String)) {
            return Verdict.deny("toolvet.host-error", "the policy host's verdict cannot be read, so the call may not run");
        }
        return new Verdict(json);
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> object(String json) {
        Object value = Json.parse(json);
        if (value instanceof Map<?, ?>) return (Map<String, Object>) value;
        throw new IllegalArgumentException("JSON: expected an object");
    }

    private static Map<String, Object> withheld(String why) {
        return Map.of("action", "withhold", "rule", "toolvet.host-error", "reason", why + ", so the result is withheld");
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
