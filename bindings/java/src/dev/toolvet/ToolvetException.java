package dev.toolvet;

import java.nio.charset.StandardCharsets;

/**
 * A failure libtoolvet reported: its {@link #code()} (libtoolvet's
 * {@code ToolvetStatus}) and its message (the toolvet CLI's, naming the
 * file, line, key or approval request).
 */
public class ToolvetException extends Exception {
    private static final long serialVersionUID = 1L;

    /** A NULL or malformed argument. */
    public static final int INVALID_ARGUMENT = 1;
    /** The policy cannot be read or is not a valid policy. */
    public static final int CONFIG = 2;
    /** A check, the ledger or its key failed to load. */
    public static final int LOAD = 3;
    /** No approval request has this id. */
    public static final int APPROVAL_NOT_FOUND = 4;
    /** The request was decided before; the first decision stands. */
    public static final int APPROVAL_ALREADY_DECIDED = 5;
    /** The request expired before anyone decided it. */
    public static final int APPROVAL_EXPIRED = 6;
    /** A malformed decision: never taken for an approval. */
    public static final int APPROVAL_INVALID_REVIEW = 7;
    /** A malformed list query. */
    public static final int APPROVAL_INVALID_QUERY = 8;
    /** The request changed since the reviewer read it. */
    public static final int APPROVAL_CHANGED = 9;
    /** The ledger or the signing key failed. */
    public static final int APPROVAL_UNAVAILABLE = 10;
    /** The policy has no [approvals] table. */
    public static final int APPROVAL_UNSUPPORTED = 11;
    /** toolvet itself failed; nothing was done. */
    public static final int INTERNAL = 12;
    /** The host was closed. */
    public static final int CLOSED = 100;

    private final int code;

    /** A failure with {@code code} and {@code message}. */
    public ToolvetException(int code, String message) {
        super(message);
        this.code = code;
    }

    /** Which kind of failure: one of the constants of this class. */
    public int code() {
        return code;
    }

    /** Made by the JNI glue: the message arrives as UTF-8 bytes. */
    static ToolvetException fromNative(int code, byte[] message) {
        String text = message == null ? "toolvet: failed" : new String(message, StandardCharsets.UTF_8);
        return new ToolvetException(code, text);
    }
}
