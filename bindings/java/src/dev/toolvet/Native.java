package dev.toolvet;

/**
 * The JNI functions of {@code libtoolvet_jni} (bindings/java/native), each
 * over the libtoolvet function of the same name. Strings cross as UTF-8
 * bytes; a failure is thrown as {@link ToolvetException}.
 *
 * <p>The library is loaded from the system property {@code toolvet.jni}
 * (a path) when set, else by name ({@code toolvet_jni}) from
 * {@code java.library.path}.
 */
final class Native {
    static {
        String path = System.getProperty("toolvet.jni");
        if (path != null && !path.isEmpty()) {
            System.load(path);
        } else {
            System.loadLibrary("toolvet_jni");
        }
    }

    private Native() {}

    static native long loadFile(byte[] path) throws ToolvetException;

    static native long loadToml(byte[] text, byte[] baseDir, byte[] source) throws ToolvetException;

    static native long reload(long host, byte[] path) throws ToolvetException;

    static native byte[] check(long host, byte[] request);

    static native byte[] checkResult(long host, byte[] request);

    static native byte[] approvals(long host, byte[] status, int limit, byte[] after) throws ToolvetException;

    static native byte[] approval(long host, byte[] id) throws ToolvetException;

    static native byte[] decide(long host, byte[] id, byte[] decision, byte[] reviewer, byte[] message,
            byte[] scope, byte[] shown) throws ToolvetException;

    static native void free(long host);
}
