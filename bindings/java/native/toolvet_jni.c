/* JNI glue between dev.toolvet.Native and libtoolvet (toolvet.h).
 *
 * Strings cross as UTF-8 byte arrays, never as JNI's modified UTF-8: the
 * Java side encodes and decodes them (StandardCharsets.UTF_8). A byte
 * array is copied into a NUL-terminated buffer here; a NUL inside it ends
 * the C string early, so the JSON is cut and the call is a deny.
 *
 * A failure is thrown as dev.toolvet.ToolvetException, made by its static
 * `fromNative(int code, byte[] message)`. */

#include <jni.h>
#include <stdlib.h>
#include <string.h>

#include "toolvet.h"

/* A NUL-terminated copy of `bytes` (NULL for a null array); free() it. */
static char *c_string(JNIEnv *env, jbyteArray bytes) {
  if (bytes == NULL) return NULL;
  jsize n = (*env)->GetArrayLength(env, bytes);
  char *out = malloc((size_t)n + 1);
  if (out == NULL) return NULL;
  (*env)->GetByteArrayRegion(env, bytes, 0, n, (jbyte *)out);
  out[n] = '\0';
  return out;
}

/* `text` as a Java byte array; frees `text` with toolvet_string_free. */
static jbyteArray java_bytes(JNIEnv *env, char *text) {
  if (text == NULL) return NULL;
  jsize n = (jsize)strlen(text);
  jbyteArray out = (*env)->NewByteArray(env, n);
  if (out != NULL) (*env)->SetByteArrayRegion(env, out, 0, n, (const jbyte *)text);
  toolvet_string_free(text);
  return out;
}

/* Throw ToolvetException(code, message) and free `message`. */
static void throw_failure(JNIEnv *env, ToolvetStatus code, char *message) {
  jclass cls = (*env)->FindClass(env, "dev/toolvet/ToolvetException");
  if (cls == NULL) return; /* NoClassDefFoundError is pending */
  jmethodID make = (*env)->GetStaticMethodID(env, cls, "fromNative", "(I[B)Ldev/toolvet/ToolvetException;");
  if (make == NULL) return;
  jbyteArray text = java_bytes(env, message);
  jobject error = (*env)->CallStaticObjectMethod(env, cls, make, (jint)code, text);
  if (error != NULL) (*env)->Throw(env, (jthrowable)error);
}

JNIEXPORT jlong JNICALL Java_dev_toolvet_Native_loadFile(JNIEnv *env, jclass cls, jbyteArray path) {
  (void)cls;
  char *cpath = c_string(env, path), *error = NULL;
  ToolvetHost *host = NULL;
  ToolvetStatus status = toolvet_load_file(cpath, &host, &error);
  free(cpath);
  if (status != TOOLVET_OK) {
    throw_failure(env, status, error);
    return 0;
  }
  return (jlong)(intptr_t)host;
}

JNIEXPORT jlong JNICALL Java_dev_toolvet_Native_loadToml(JNIEnv *env, jclass cls, jbyteArray text, jbyteArray base,
                                                          jbyteArray source) {
  (void)cls;
  char *ctext = c_string(env, text), *cbase = c_string(env, base), *csource = c_string(env, source), *error = NULL;
  ToolvetHost *host = NULL;
  ToolvetStatus status = toolvet_load_toml(ctext, cbase, csource, &host, &error);
  free(ctext);
  free(cbase);
  free(csource);
  if (status != TOOLVET_OK) {
    throw_failure(env, status, error);
    return 0;
  }
  return (jlong)(intptr_t)host;
}

JNIEXPORT jlong JNICALL Java_dev_toolvet_Native_reload(JNIEnv *env, jclass cls, jlong host, jbyteArray path) {
  (void)cls;
  char *cpath = c_string(env, path), *error = NULL;
  uint64_t generation = 0;
  ToolvetStatus status = toolvet_reload((const ToolvetHost *)(intptr_t)host, cpath, &generation, &error);
  free(cpath);
  if (status != TOOLVET_OK) {
    throw_failure(env, status, error);
    return 0;
  }
  return (jlong)generation;
}

JNIEXPORT jbyteArray JNICALL Java_dev_toolvet_Native_check(JNIEnv *env, jclass cls, jlong host, jbyteArray request) {
  (void)cls;
  char *crequest = c_string(env, request);
  char *verdict = toolvet_check((const ToolvetHost *)(intptr_t)host, crequest);
  free(crequest);
  return java_bytes(env, verdict);
}

JNIEXPORT jbyteArray JNICALL Java_dev_toolvet_Native_checkResult(JNIEnv *env, jclass cls, jlong host,
                                                                   jbyteArray request) {
  (void)cls;
  char *crequest = c_string(env, request);
  char *verdict = toolvet_check_result((const ToolvetHost *)(intptr_t)host, crequest);
  free(crequest);
  return java_bytes(env, verdict);
}

/* The JSON an approvals function stored in `out`, or the failure thrown. */
static jbyteArray answered(JNIEnv *env, ToolvetStatus status, char *out, char *error) {
  if (status != TOOLVET_OK) {
    throw_failure(env, status, error);
    return NULL;
  }
  return java_bytes(env, out);
}

JNIEXPORT jbyteArray JNICALL Java_dev_toolvet_Native_approvals(JNIEnv *env, jclass cls, jlong host, jbyteArray status,
                                                                 jint limit, jbyteArray after) {
  (void)cls;
  char *cstatus = c_string(env, status), *cafter = c_string(env, after), *out = NULL, *error = NULL;
  ToolvetStatus done = toolvet_approvals_list((const ToolvetHost *)(intptr_t)host, cstatus,
                                              limit < 0 ? UINT32_MAX : (uint32_t)limit, cafter, &out, &error);
  free(cstatus);
  free(cafter);
  return answered(env, done, out, error);
}

JNIEXPORT jbyteArray JNICALL Java_dev_toolvet_Native_approval(JNIEnv *env, jclass cls, jlong host, jbyteArray id) {
  (void)cls;
  char *cid = c_string(env, id), *out = NULL, *error = NULL;
  ToolvetStatus done = toolvet_approval_get((const ToolvetHost *)(intptr_t)host, cid, &out, &error);
  free(cid);
  return answered(env, done, out, error);
}

JNIEXPORT jbyteArray JNICALL Java_dev_toolvet_Native_decide(JNIEnv *env, jclass cls, jlong host, jbyteArray id,
                                                              jbyteArray decision, jbyteArray reviewer,
                                                              jbyteArray message, jbyteArray scope,
                                                              jbyteArray shown) {
  (void)cls;
  char *cid = c_string(env, id), *cdecision = c_string(env, decision), *creviewer = c_string(env, reviewer);
  char *cmessage = c_string(env, message), *cscope = c_string(env, scope), *cshown = c_string(env, shown);
  char *out = NULL, *error = NULL;
  ToolvetStatus done = toolvet_approval_decide((const ToolvetHost *)(intptr_t)host, cid, cdecision, creviewer,
                                               cmessage, cscope, cshown, &out, &error);
  free(cid);
  free(cdecision);
  free(creviewer);
  free(cmessage);
  free(cscope);
  free(cshown);
  return answered(env, done, out, error);
}

JNIEXPORT void JNICALL Java_dev_toolvet_Native_free(JNIEnv *env, jclass cls, jlong host) {
  (void)env;
  (void)cls;
  toolvet_host_free((ToolvetHost *)(intptr_t)host);
}
