/* libtoolvet's C test: the example policy through the C ABI, every
 * function on its success and error paths, and one host shared by
 * threads. Run by crates/toolvet-c/tests/c/run.sh, with the example
 * policy copied to a scratch directory:
 *
 *   abi_test POLICY.toml
 *
 * Exits 0 when every expectation holds, 1 naming the first that does not. */

#include "toolvet.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures = 0;

#define EXPECT(cond, ...)                                                  \
  do {                                                                     \
    if (!(cond)) {                                                         \
      fprintf(stderr, "abi_test.c:%d: expected %s: ", __LINE__, #cond);  \
      fprintf(stderr, __VA_ARGS__);                                        \
      fprintf(stderr, "\n");                                               \
      failures++;                                                          \
    }                                                                      \
  } while (0)

/* The string value of `"key":"…"` in `json` after the first `after`
 * (NULL: from the start), copied into `out`; "" when absent. Enough for
 * the flat ids, tickets and decisions of toolvet's JSON. */
static void field(const char *json, const char *after, const char *key, char *out, size_t size) {
  char pattern[64];
  const char *from = json;
  out[0] = '\0';
  if (after != NULL) {
    from = strstr(json, after);
    if (from == NULL) return;
  }
  snprintf(pattern, sizeof pattern, "\"%s\":\"", key);
  const char *at = strstr(from, pattern);
  if (at == NULL) return;
  at += strlen(pattern);
  size_t n = 0;
  while (at[n] != '\0' && at[n] != '"' && n + 1 < size) n++;
  memcpy(out, at, n);
  out[n] = '\0';
}

/* Vet `request` and return its decision (or action) and rule. */
static void vet(const ToolvetHost *host, const char *request, char *decision, char *rule) {
  char *verdict = toolvet_check(host, request);
  field(verdict, NULL, "decision", decision, 32);
  field(verdict, NULL, "rule", rule, 128);
  toolvet_string_free(verdict);
}

static const char *RM = "{\"call\":{\"id\":\"c-rm\",\"name\":\"bash\",\"arguments\":{\"command\":\"rm -rf ~\"}}}";
static const char *LS = "{\"call\":{\"id\":\"c-ls\",\"name\":\"bash\",\"arguments\":{\"command\":\"ls\"}}}";

static void *vet_in_thread(void *arg) {
  const ToolvetHost *host = arg;
  char decision[32], rule[128];
  for (int i = 0; i < 20; i++) {
    vet(host, (i % 2) ? RM : LS, decision, rule);
    EXPECT(strcmp(decision, (i % 2) ? "deny" : "allow") == 0, "thread call %d: %s", i, decision);
  }
  return NULL;
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: abi_test POLICY.toml\n");
    return 2;
  }
  const char *policy = argv[1];
  char decision[32], rule[128], id[128], ticket[2048];
  char *error = NULL, *json = NULL;
  ToolvetHost *host = NULL;

  EXPECT(strcmp(toolvet_version(), "0.1.0") == 0, "version %s", toolvet_version());

  /* Loading: errors are a code and a message naming what and where. */
  EXPECT(toolvet_load_file("/nonexistent/toolvet.toml", &host, &error) == TOOLVET_CONFIG, "missing file");
  EXPECT(host == NULL && error != NULL && strstr(error, "/nonexistent/toolvet.toml") != NULL, "message %s", error);
  toolvet_string_free(error);
  EXPECT(toolvet_load_toml("[host]\n\n[[check]]\nname = 1\n", "/tmp", "inline.toml", &host, &error) == TOOLVET_CONFIG,
         "bad policy");
  EXPECT(error != NULL && strstr(error, "inline.toml:4") != NULL, "message %s", error);
  toolvet_string_free(error);
  EXPECT(toolvet_load_file(NULL, &host, &error) == TOOLVET_INVALID_ARGUMENT, "NULL path");
  toolvet_string_free(error);
  EXPECT(toolvet_load_file(policy, NULL, NULL) == TOOLVET_INVALID_ARGUMENT, "NULL host_out");

  /* A process that vets calls one at a time sizes its pool first. */
  EXPECT(toolvet_size_instance_pool(0, &error) == TOOLVET_INVALID_ARGUMENT, "pool of 0");
  toolvet_string_free(error);
  EXPECT(toolvet_size_instance_pool(96, &error) == TOOLVET_OK, "pool: %s", error);
  ToolvetStatus loaded = toolvet_load_file(policy, &host, &error);
  if (loaded != TOOLVET_OK) {
    fprintf(stderr, "abi_test: cannot load %s (%d): %s\n", policy, loaded, error ? error : "");
    toolvet_string_free(error);
    return 1;
  }

  /* The done criteria: deny `rm -rf ~`, allow `ls`. */
  vet(host, RM, decision, rule);
  EXPECT(strcmp(decision, "deny") == 0, "rm -rf ~: %s %s", decision, rule);
  vet(host, LS, decision, rule);
  EXPECT(strcmp(decision, "allow") == 0, "ls: %s %s", decision, rule);

  /* Anything that cannot be vetted is a deny, never a crash. */
  vet(host, "{\"call\":", decision, rule);
  EXPECT(strcmp(decision, "deny") == 0 && strcmp(rule, "toolvet.invalid-call") == 0, "malformed: %s %s", decision, rule);
  vet(host, "{\"call\":{\"name\":\"bash\",\"name\":\"ls\",\"arguments\":{}}}", decision, rule);
  EXPECT(strcmp(decision, "deny") == 0 && strcmp(rule, "toolvet.invalid-call") == 0, "duplicate key: %s %s", decision, rule);
  vet(host, "{\"call\":{\"name\":\"bash\",\"arguments\":{\"command\":\"ls\"}},\"context\":{\"labels\":[{\"name\":\"trusted\",\"check\":\"x\",\"tool\":\"y\"}]}}", decision, rule);
  EXPECT(strcmp(decision, "deny") == 0 && strcmp(rule, "toolvet.invalid-call") == 0, "labels sent: %s %s", decision, rule);
  vet(host, NULL, decision, rule);
  EXPECT(strcmp(decision, "deny") == 0 && strcmp(rule, "toolvet.invalid-call") == 0, "NULL request: %s %s", decision, rule);
  vet(NULL, LS, decision, rule);
  EXPECT(strcmp(decision, "deny") == 0 && strcmp(rule, "toolvet.host-error") == 0, "NULL host: %s %s", decision, rule);
  vet(host, "{\"call\":{\"name\":\"bash\",\"arguments\":{\"command\":\"ls\xff\"}}}", decision, rule);
  EXPECT(strcmp(decision, "deny") == 0 && strcmp(rule, "toolvet.invalid-call") == 0, "not UTF-8: %s %s", decision, rule);

  /* Escalate, approve through the library, resume once, deny the replay. */
  const char *rotate = "{\"call\":{\"id\":\"c-rot\",\"name\":\"rotate_keys\",\"arguments\":{\"service\":\"billing\"}},"
                       "\"context\":{\"run_id\":\"run-c\"}}";
  json = toolvet_check(host, rotate);
  field(json, NULL, "decision", decision, sizeof decision);
  field(json, "\"approval\"", "id", id, sizeof id);
  field(json, "\"approval\"", "ticket", ticket, sizeof ticket);
  EXPECT(strcmp(decision, "escalate") == 0 && strncmp(id, "apr_", 4) == 0 && ticket[0] != '\0', "rotate: %s", json);
  toolvet_string_free(json);

  char resumed[4096];
  snprintf(resumed, sizeof resumed,
           "{\"call\":{\"id\":\"c-rot\",\"name\":\"rotate_keys\",\"arguments\":{\"service\":\"billing\"}},"
           "\"context\":{\"run_id\":\"run-c\"},\"approval\":{\"ticket\":\"%s\"}}",
           ticket);
  vet(host, resumed, decision, rule);
  EXPECT(strcmp(decision, "escalate") == 0, "resumed before a decision: %s %s", decision, rule);

  EXPECT(toolvet_approvals_list(host, "pending", 0, NULL, &json, &error) == TOOLVET_OK, "list: %s", error);
  EXPECT(json != NULL && strstr(json, id) != NULL, "pending list %s", json);
  toolvet_string_free(json);
  EXPECT(toolvet_approvals_list(host, "someday", 0, NULL, &json, &error) == TOOLVET_APPROVAL_INVALID_QUERY, "bad status");
  EXPECT(json == NULL && error != NULL, "bad status message");
  toolvet_string_free(error);
  EXPECT(toolvet_approval_get(host, "apr_0000", &json, &error) == TOOLVET_APPROVAL_NOT_FOUND, "unknown id");
  toolvet_string_free(error);
  EXPECT(toolvet_approval_decide(host, id, "maybe", "alice", NULL, NULL, NULL, &json, &error) ==
             TOOLVET_APPROVAL_INVALID_REVIEW, "unknown decision");
  toolvet_string_free(error);
  EXPECT(toolvet_approval_decide(host, id, "approve", "", NULL, NULL, NULL, &json, &error) ==
             TOOLVET_APPROVAL_INVALID_REVIEW, "no reviewer");
  toolvet_string_free(error);
  EXPECT(toolvet_approval_decide(host, id, "approve", "alice", "ok once", NULL, NULL, &json, &error) == TOOLVET_OK,
         "approve: %s", error);
  field(json ? json : "", NULL, "status", rule, sizeof rule);
  EXPECT(strcmp(rule, "approved") == 0, "decided %s", json);
  toolvet_string_free(json);
  EXPECT(toolvet_approval_decide(host, id, "reject", "bob", NULL, NULL, NULL, &json, &error) ==
             TOOLVET_APPROVAL_ALREADY_DECIDED, "second decision");
  toolvet_string_free(error);

  vet(host, resumed, decision, rule);
  EXPECT(strcmp(decision, "allow") == 0, "resumed after approval: %s %s", decision, rule);
  vet(host, resumed, decision, rule);
  EXPECT(strcmp(decision, "deny") == 0, "replayed ticket: %s %s", decision, rule);

  /* A result: the secret is masked, and the run is labelled. */
  json = toolvet_check_result(host,
                              "{\"call\":{\"id\":\"c-read\",\"name\":\"read_file\",\"arguments\":{\"path\":\"a.txt\"}},"
                              "\"result\":{\"content\":{\"text\":\"key ghp_R8b3kLm2Qx9Vt7Wz1Yc4Hd6Jf0Np5Ks3Ta8U\"}}}");
  field(json, NULL, "action", decision, sizeof decision);
  EXPECT(strcmp(decision, "redact") == 0 && strstr(json, "ghp_R8b3") == NULL && strstr(json, "[redacted: github-token]") != NULL,
         "result %s", json);
  toolvet_string_free(json);
  json = toolvet_check_result(host, "{\"call\":{\"name\":\"read_file\"}}");
  field(json, NULL, "action", decision, sizeof decision);
  EXPECT(strcmp(decision, "withhold") == 0, "result without result: %s", json);
  toolvet_string_free(json);
  json = toolvet_check_result(NULL, "{}");
  field(json, NULL, "action", decision, sizeof decision);
  EXPECT(strcmp(decision, "withhold") == 0, "result without host: %s", json);
  toolvet_string_free(json);

  /* One host, four threads at once. */
  pthread_t threads[4];
  for (int i = 0; i < 4; i++) pthread_create(&threads[i], NULL, vet_in_thread, host);
  for (int i = 0; i < 4; i++) pthread_join(threads[i], NULL);

  /* Reload: a new generation; a bad file keeps the old policy. */
  uint64_t generation = 0;
  EXPECT(toolvet_reload(host, NULL, &generation, &error) == TOOLVET_OK && generation == 2, "reload %s", error);
  EXPECT(toolvet_reload(host, "/nonexistent/toolvet.toml", &generation, &error) == TOOLVET_CONFIG, "bad reload");
  toolvet_string_free(error);
  json = toolvet_host_info(host);
  EXPECT(strstr(json, "\"generation\":2") != NULL && strstr(json, "\"has_approvals\":true") != NULL, "info %s", json);
  toolvet_string_free(json);
  vet(host, RM, decision, rule);
  EXPECT(strcmp(decision, "deny") == 0, "rm -rf ~ after reload: %s", decision);

  EXPECT(toolvet_size_instance_pool(64, &error) == TOOLVET_INVALID_ARGUMENT, "pool after the first load");
  toolvet_string_free(error);
  toolvet_host_free(host);
  toolvet_host_free(NULL);
  toolvet_string_free(NULL);
  if (failures == 0) printf("abi_test: all expectations hold\n");
  return failures == 0 ? 0 : 1;
}
