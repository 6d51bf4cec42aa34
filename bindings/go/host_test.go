package toolvet

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// The repository's root: TOOLVET_ROOT, else two directories up.
func root(t testing.TB) string {
	if r := os.Getenv("TOOLVET_ROOT"); r != "" {
		return r
	}
	r, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// examplePolicy copies examples/toolvet.toml to a scratch directory, its
// relative paths kept (../target/plugins), with extra appended to its
// [approvals] table; returns the copy's path.
func examplePolicy(t *testing.T, approvalsExtra string) string {
	return examplePolicyB(t, approvalsExtra)
}

func examplePolicyB(t testing.TB, approvalsExtra ...string) string {
	dir := t.TempDir()
	for _, d := range []string{"examples", "target"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(root(t), "target", "plugins"), filepath.Join(dir, "target", "plugins")); err != nil {
		t.Fatal(err)
	}
	text, err := os.ReadFile(filepath.Join(root(t), "examples", "toolvet.toml"))
	if err != nil {
		t.Fatal(err)
	}
	policy := string(text)
	if len(approvalsExtra) > 0 && approvalsExtra[0] != "" {
		anchor := "key_file = \"state/approvals.key\"\n"
		if !strings.Contains(policy, anchor) {
			t.Fatalf("the example policy has no %q", anchor)
		}
		policy = strings.Replace(policy, anchor, anchor+approvalsExtra[0]+"\n", 1)
	}
	path := filepath.Join(dir, "examples", "toolvet.toml")
	if err := os.WriteFile(path, []byte(policy), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func load(t *testing.T, policy string) *Host {
	h, err := LoadFile(policy)
	if err != nil {
		t.Fatalf("load %s: %v", policy, err)
	}
	t.Cleanup(func() { h.Close() })
	return h
}

func bash(command string) Request {
	return Request{Call: Call{ID: "c-" + command, Name: "bash", Arguments: map[string]any{"command": command}}}
}

const passphrase = "correct horse battery staple, for tests only"

// cli runs the toolvet CLI with the test passphrase on descriptor 3.
func cli(t *testing.T, args ...string) string {
	program := os.Getenv("TOOLVET")
	if program == "" {
		program = filepath.Join(root(t), "target", "release", "toolvet")
	}
	read, write, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := write.WriteString(passphrase + "\n"); err != nil {
		t.Fatal(err)
	}
	write.Close()
	defer read.Close()
	cmd := exec.Command(program, append(args, "--passphrase-fd", "3")...)
	cmd.ExtraFiles = []*os.File{read}
	out, err := cmd.Output()
	if err != nil {
		stderr := ""
		if exit := (*exec.ExitError)(nil); errors.As(err, &exit) {
			stderr = string(exit.Stderr)
		}
		t.Fatalf("toolvet %v: %v: %s", args, err, stderr)
	}
	return strings.TrimSpace(string(out))
}

func TestTheExamplePolicyDeniesRmHomeAndAllowsLs(t *testing.T) {
	h := load(t, examplePolicy(t, ""))
	ctx := context.Background()
	if v := h.Check(ctx, bash("rm -rf ~")); v.Decision != Deny || v.Rule != "shell.rm-home" {
		t.Fatalf("rm -rf ~: %+v", v)
	}
	if v := h.Check(ctx, bash("ls")); v.Decision != Allow || v.Tool != "bash" || v.CallID != "c-ls" {
		t.Fatalf("ls: %+v", v)
	}
	if Version() != "0.1.0" {
		t.Fatalf("version %q", Version())
	}
}

func TestEscalatedThenApprovedThroughTheCLIThenReplayedIsDenied(t *testing.T) {
	entry := cli(t, "approvals", "reviewer-key", "init")
	if !strings.HasPrefix(entry, "ed25519:") {
		t.Fatalf("reviewer key entry %q", entry)
	}
	policy := examplePolicy(t, "reviewer_keys = [\""+entry+"\"]")
	h := load(t, policy)
	ctx := context.Background()
	rotate := Request{
		Call:    Call{ID: "c-rot", Name: "rotate_keys", Arguments: map[string]any{"service": "billing"}},
		Context: &CallContext{RunID: "run-go"},
	}
	held := h.Check(ctx, rotate)
	if held.Decision != Escalate || held.Approval == nil || held.Approval.Ticket == "" {
		t.Fatalf("rotate_keys: %+v", held)
	}
	// The model reads no way to approve itself.
	if strings.Contains(held.Reason, "toolvet approvals") {
		t.Fatalf("the reason names an approval command: %s", held.Reason)
	}
	pending, err := h.Approvals("pending", 0, "")
	if err != nil || len(pending) != 1 || pending[0].ID != held.Approval.ID || pending[0].Call.Tool != "rotate_keys" {
		t.Fatalf("pending: %+v %v", pending, err)
	}
	cli(t, "approvals", "approve", held.Approval.ID, "--reviewer", "alice", "--config", policy)
	rotate.Ticket = held.Approval.Ticket
	if v := h.Check(ctx, rotate); v.Decision != Allow {
		t.Fatalf("resumed after the CLI's approval: %+v", v)
	}
	if v := h.Check(ctx, rotate); v.Decision != Deny {
		t.Fatalf("replayed: %+v", v)
	}
	decided, err := h.Approval(held.Approval.ID)
	if err != nil || decided.Status != "consumed" || decided.Review == nil || decided.Review.Reviewer != "alice" {
		t.Fatalf("decided: %+v %v", decided, err)
	}
}

func TestFailuresAreErrorsWithTheirCode(t *testing.T) {
	_, err := LoadFile("/nonexistent/toolvet.toml")
	var e *Error
	if !errors.As(err, &e) || e.Code != CodeConfig || !strings.Contains(e.Message, "/nonexistent/toolvet.toml") {
		t.Fatalf("missing file: %v", err)
	}
	_, err = LoadTOML("[host]\n\n[[check]]\nname = 1\n", "/tmp", "inline.toml")
	if !errors.As(err, &e) || e.Code != CodeConfig || !strings.Contains(e.Message, "inline.toml:4") {
		t.Fatalf("bad policy: %v", err)
	}
	h := load(t, examplePolicy(t, ""))
	if _, err := h.Approval("apr_0000"); !errors.As(err, &e) || e.Code != CodeApprovalNotFound {
		t.Fatalf("unknown id: %v", err)
	}
	if _, err := h.Approvals("someday", 0, ""); !errors.As(err, &e) || e.Code != CodeApprovalInvalidQuery {
		t.Fatalf("bad status: %v", err)
	}
	if _, err := h.Decide("apr_0000", "maybe", "alice", DecideOptions{}); !errors.As(err, &e) || e.Code != CodeApprovalInvalidReview {
		t.Fatalf("bad decision: %v", err)
	}
	// Anything that cannot be vetted is a deny.
	bad := Request{Call: Call{Name: ""}}
	if v := h.Check(context.Background(), bad); v.Decision != Deny || v.Rule != RuleInvalidCall {
		t.Fatalf("empty name: %+v", v)
	}
	h.Close()
	if v := h.Check(context.Background(), bash("ls")); v.Decision != Deny || v.Rule != RuleHostError {
		t.Fatalf("closed: %+v", v)
	}
	if _, err := h.Approvals("", 0, ""); !errors.Is(err, ErrClosed) {
		t.Fatalf("closed approvals: %v", err)
	}
}

func TestACancelledContextIsADeny(t *testing.T) {
	h := load(t, examplePolicy(t, ""))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if v := h.Check(ctx, bash("ls")); v.Decision != Deny || v.Rule != RuleCancelled {
		t.Fatalf("cancelled: %+v", v)
	}
	if v := h.CheckResult(ctx, bash("ls"), Result{Text: "a.txt"}); v.Action != Withhold {
		t.Fatalf("cancelled result: %+v", v)
	}
}

func TestAResultWithASecretIsMaskedAndOneHostServesGoroutines(t *testing.T) {
	h := load(t, examplePolicy(t, ""))
	ctx := context.Background()
	read := Request{Call: Call{ID: "c-read", Name: "read_file", Arguments: map[string]any{"path": "a.txt"}}}
	v := h.CheckResult(ctx, read, Result{Text: "key ghp_R8b3kLm2Qx9Vt7Wz1Yc4Hd6Jf0Np5Ks3Ta8U"})
	if v.Action != Redact || v.Content["text"] != "key [redacted: github-token]" {
		t.Fatalf("result: %+v", v)
	}
	var wg sync.WaitGroup
	errs := make(chan string, 64)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < 8; i++ {
				want, req := Allow, bash("ls")
				if (g+i)%2 == 1 {
					want, req = Deny, bash("rm -rf ~")
				}
				if v := h.Check(ctx, req); v.Decision != want {
					errs <- string(v.Decision)
				}
			}
		}(g)
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Fatalf("a concurrent verdict was %s", e)
	}
}

// A tool shaped as the Go frameworks' tools are.
type shell struct{ ran []string }

func (s *shell) Name() string        { return "bash" }
func (s *shell) Description() string { return "Run a shell command" }
func (s *shell) Call(_ context.Context, input string) (string, error) {
	s.ran = append(s.ran, input)
	if strings.Contains(input, "cat token") {
		return "ghp_R8b3kLm2Qx9Vt7Wz1Yc4Hd6Jf0Np5Ks3Ta8U", nil
	}
	return "ok", nil
}

func TestAGuardedToolRunsOnlyWhatThePolicyAllows(t *testing.T) {
	h := load(t, examplePolicy(t, ""))
	ctx := context.Background()
	tool := &shell{}
	guarded := h.Guard(tool, GuardOptions{Context: &CallContext{RunID: "run-guard"}})
	out, err := guarded.Call(ctx, `{"command": "rm -rf ~"}`)
	if err != nil || !strings.Contains(out, "[shell.rm-home]") || len(tool.ran) != 0 {
		t.Fatalf("rm -rf ~: %q %v ran %v", out, err, tool.ran)
	}
	out, err = guarded.Call(ctx, `{"command": "ls"}`)
	if err != nil || out != "ok" || len(tool.ran) != 1 {
		t.Fatalf("ls: %q %v ran %v", out, err, tool.ran)
	}
	out, err = guarded.Call(ctx, `{"command": "cat token.txt"}`)
	if err != nil || out != "[redacted: github-token]" {
		t.Fatalf("secret output: %q %v", out, err)
	}
	// An escalation: asked of a person through Approve, then run once.
	asked := 0
	rotate := h.Guard(&named{name: "rotate_keys"}, GuardOptions{
		Context: &CallContext{RunID: "run-guard"},
		Approve: func(_ context.Context, v Verdict) (bool, string, error) {
			asked++
			return v.Rule == "policy.requires-approval", "alice", nil
		},
	})
	out, err = rotate.Call(ctx, `{"service": "billing"}`)
	if err != nil || out != "rotated" || asked != 1 {
		t.Fatalf("rotate: %q %v asked %d", out, err, asked)
	}
	held := h.Guard(&named{name: "rotate_keys"}, GuardOptions{Context: &CallContext{RunID: "run-guard"}})
	if out, _ := held.Call(ctx, `{"service": "web"}`); !strings.Contains(out, "held this call") {
		t.Fatalf("without Approve: %q", out)
	}
}

type named struct{ name string }

func (n *named) Name() string                                 { return n.name }
func (n *named) Description() string                          { return "" }
func (n *named) Call(context.Context, string) (string, error) { return "rotated", nil }
