// Package toolvet vets an AI agent's tool calls before they run, in
// process, through libtoolvet (toolvet's C ABI, crates/toolvet-c): load a
// policy, Check each proposed call (allow, deny with a reason the model
// reads, or escalate to a person), CheckResult each tool's output before
// the model reads it, and record a person's decisions on escalations.
//
// Building needs libtoolvet and its pkg-config file: `make libtoolvet`
// installs them under target/libtoolvet; point PKG_CONFIG_PATH at
// target/libtoolvet/lib/pkgconfig, and LD_LIBRARY_PATH at
// target/libtoolvet/lib to run.
//
// Every method may be called from any goroutine at once; each blocks its
// goroutine (cgo gives the call its own thread) while the checks run.
package toolvet

/*
#cgo pkg-config: toolvet
#include <stdlib.h>
#include <toolvet.h>
*/
import "C"

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"unsafe"
)

// Code says which kind of failure an *Error is (libtoolvet's
// ToolvetStatus).
type Code int

// The codes of libtoolvet's failures.
const (
	CodeInvalidArgument        Code = C.TOOLVET_INVALID_ARGUMENT
	CodeConfig                 Code = C.TOOLVET_CONFIG
	CodeLoad                   Code = C.TOOLVET_LOAD
	CodeApprovalNotFound       Code = C.TOOLVET_APPROVAL_NOT_FOUND
	CodeApprovalAlreadyDecided Code = C.TOOLVET_APPROVAL_ALREADY_DECIDED
	CodeApprovalExpired        Code = C.TOOLVET_APPROVAL_EXPIRED
	CodeApprovalInvalidReview  Code = C.TOOLVET_APPROVAL_INVALID_REVIEW
	CodeApprovalInvalidQuery   Code = C.TOOLVET_APPROVAL_INVALID_QUERY
	CodeApprovalChanged        Code = C.TOOLVET_APPROVAL_CHANGED
	CodeApprovalUnavailable    Code = C.TOOLVET_APPROVAL_UNAVAILABLE
	CodeApprovalUnsupported    Code = C.TOOLVET_APPROVAL_UNSUPPORTED
	CodeInternal               Code = C.TOOLVET_INTERNAL
)

// Error is a failure libtoolvet reported: its code, and its message (the
// toolvet CLI's, naming the file, line, key or request).
type Error struct {
	Code    Code
	Message string
}

func (e *Error) Error() string { return e.Message }

// ErrClosed is returned by a method of a Host after Close.
var ErrClosed = errors.New("toolvet: the host is closed")

// The rules of the verdicts this package gives itself.
const (
	// RuleHostError: the host was closed or failed.
	RuleHostError = "toolvet.host-error"
	// RuleInvalidCall: the call could not be written as JSON.
	RuleInvalidCall = "toolvet.invalid-call"
	// RuleCancelled: the context ended before the verdict was ready.
	RuleCancelled = "toolvet.cancelled"
)

// Host is a loaded policy: its checks, its approvals, and the labels each
// run's results raised. Make one with LoadFile or LoadTOML; Close it when
// done.
type Host struct {
	mu  sync.RWMutex
	ptr *C.ToolvetHost
}

// SizeInstancePool sizes the process's pool of check instances (1..1000,
// default 1000) before the first policy is loaded: a process that vets
// one call at a time needs about six per check, and reserves less address
// space with fewer.
func SizeInstancePool(instances uint32) error {
	var cerr *C.char
	return failure(C.toolvet_size_instance_pool(C.uint32_t(instances), &cerr), cerr)
}

// LoadFile loads every check of the policy file at path (relative paths
// in it resolve against its directory). Errors are *Error with
// CodeConfig (the file cannot be read or is not a valid policy) or
// CodeLoad (a check, the ledger or its key failed to load).
func LoadFile(path string) (*Host, error) {
	cpath := C.CString(path)
	defer C.free(unsafe.Pointer(cpath))
	var ptr *C.ToolvetHost
	var cerr *C.char
	if err := failure(C.toolvet_load_file(cpath, &ptr, &cerr), cerr); err != nil {
		return nil, err
	}
	return newHost(ptr), nil
}

// LoadTOML loads the policy text; relative paths in it resolve against
// baseDir, and source ("" for <inline>) names it in errors.
func LoadTOML(text, baseDir, source string) (*Host, error) {
	ctext, cbase, csource := C.CString(text), C.CString(baseDir), optional(source)
	defer C.free(unsafe.Pointer(ctext))
	defer C.free(unsafe.Pointer(cbase))
	defer C.free(unsafe.Pointer(csource))
	var ptr *C.ToolvetHost
	var cerr *C.char
	if err := failure(C.toolvet_load_toml(ctext, cbase, csource, &ptr, &cerr), cerr); err != nil {
		return nil, err
	}
	return newHost(ptr), nil
}

func newHost(ptr *C.ToolvetHost) *Host {
	h := &Host{ptr: ptr}
	runtime.SetFinalizer(h, (*Host).Close)
	return h
}

// Close frees the host. Calls still running finish first; later ones get
// ErrClosed (Check: a deny).
func (h *Host) Close() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.ptr != nil {
		C.toolvet_host_free(h.ptr)
		h.ptr = nil
	}
	return nil
}

// Reload reads the policy file at path ("" for the file in force) and puts
// it in force; on failure the old policy stays. Returns the host's new
// generation.
func (h *Host) Reload(path string) (uint64, error) {
	h.mu.RLock()
	defer h.mu.RUnlock()
	if h.ptr == nil {
		return 0, ErrClosed
	}
	cpath := optional(path)
	defer C.free(unsafe.Pointer(cpath))
	var generation C.uint64_t
	var cerr *C.char
	if err := failure(C.toolvet_reload(h.ptr, cpath, &generation, &cerr), cerr); err != nil {
		return 0, err
	}
	return uint64(generation), nil
}

// Check vets one proposed call and returns its verdict. It never fails:
// a call that cannot be vetted, a closed host or a failure of the host is
// a deny. When ctx ends first, the answer is a deny (rule
// toolvet.cancelled) at once; the checks finish in the background and
// their verdict is dropped (an approval a resumed call carried may be
// spent by them).
func (h *Host) Check(ctx context.Context, req Request) Verdict {
	body, err := json.Marshal(req)
	if err != nil {
		return denied(RuleInvalidCall, fmt.Sprintf("the call cannot be written as JSON: %v", err), req.Call)
	}
	out, ok := h.call(ctx, func(ptr *C.ToolvetHost, in *C.char) *C.char { return C.toolvet_check(ptr, in) }, body)
	if !ok {
		return denied(RuleCancelled, fmt.Sprintf("the caller stopped waiting for the verdict (%v), so the call may not run", ctx.Err()), req.Call)
	}
	if out == "" {
		return denied(RuleHostError, "the policy host is closed, so the call may not run", req.Call)
	}
	var v Verdict
	if err := json.Unmarshal([]byte(out), &v); err != nil || v.Decision == "" {
		return denied(RuleHostError, "the policy host's verdict cannot be read, so the call may not run", req.Call)
	}
	return v
}

// CheckResult vets what the tool of req returned, before the model reads
// it. It never fails: a result that cannot be vetted, a closed host or a
// failure is withheld, and so is one whose ctx ended first.
func (h *Host) CheckResult(ctx context.Context, req Request, result Result) ResultVerdict {
	wire := map[string]any{"call": req.Call}
	if req.Call.Arguments == nil {
		wire["call"] = Call{ID: req.Call.ID, Name: req.Call.Name, Arguments: map[string]any{}}
	}
	if req.Tool != nil {
		wire["tool"] = req.Tool
	}
	if req.Context != nil {
		wire["context"] = req.Context
	}
	content := map[string]any{"text": result.Text}
	if result.Text == "" && result.JSON != nil {
		content = map[string]any{"json": result.JSON}
	}
	wire["result"] = map[string]any{"content": content, "is_error": result.IsError}
	withheld := func(rule, reason string) ResultVerdict {
		return ResultVerdict{Action: Withhold, Rule: rule, Reason: reason, Tool: req.Call.Name, CallID: req.Call.ID}
	}
	body, err := json.Marshal(wire)
	if err != nil {
		return withheld(RuleInvalidCall, fmt.Sprintf("the result cannot be written as JSON: %v", err))
	}
	out, ok := h.call(ctx, func(ptr *C.ToolvetHost, in *C.char) *C.char { return C.toolvet_check_result(ptr, in) }, body)
	if !ok {
		return withheld(RuleCancelled, fmt.Sprintf("the caller stopped waiting for the verdict (%v), so the result is withheld", ctx.Err()))
	}
	var v ResultVerdict
	if out == "" || json.Unmarshal([]byte(out), &v) != nil || v.Action == "" {
		return withheld(RuleHostError, "the policy host is closed or its verdict cannot be read, so the result is withheld")
	}
	return v
}

// call runs f on the host with body as a C string, on its own goroutine,
// and returns its answer ("" when the host is closed), or false when ctx
// ended first.
func (h *Host) call(ctx context.Context, f func(*C.ToolvetHost, *C.char) *C.char, body []byte) (string, bool) {
	if ctx.Err() != nil {
		return "", false
	}
	// A context that is never done (context.Background) needs no watcher.
	if ctx.Done() == nil {
		return h.withJSON(f, string(body)), true
	}
	done := make(chan string, 1)
	go func() { done <- h.withJSON(f, string(body)) }()
	select {
	case out := <-done:
		return out, true
	case <-ctx.Done():
		return "", false
	}
}

// Approvals lists one page of approval requests, oldest first: status is
// "pending" ("" too), "approved", "rejected", "consumed", "expired" or
// "all"; limit 1..500 (0: 100); after the previous page's last id.
func (h *Host) Approvals(status string, limit int, after string) ([]ApprovalRequest, error) {
	if limit < 0 || limit > 1<<31-1 {
		limit = 1 << 31
	}
	var page []ApprovalRequest
	err := h.approvalsCall(&page, func(ptr *C.ToolvetHost, out **C.char, cerr **C.char) C.ToolvetStatus {
		cstatus, cafter := optional(status), optional(after)
		defer C.free(unsafe.Pointer(cstatus))
		defer C.free(unsafe.Pointer(cafter))
		return C.toolvet_approvals_list(ptr, cstatus, C.uint32_t(limit), cafter, out, cerr)
	})
	return page, err
}

// Approval returns the approval request id with its status as of now.
func (h *Host) Approval(id string) (ApprovalRequest, error) {
	var request ApprovalRequest
	err := h.approvalsCall(&request, func(ptr *C.ToolvetHost, out **C.char, cerr **C.char) C.ToolvetStatus {
		cid := C.CString(id)
		defer C.free(unsafe.Pointer(cid))
		return C.toolvet_approval_get(ptr, cid, out, cerr)
	})
	return request, err
}

// Decision options: Message is recorded (and is what the model reads on a
// rejection); Scope is "once" ("" too) or "run"; Shown, when set, is the
// request's review digest as the reviewer read it.
type DecideOptions struct {
	Message string
	Scope   string
	Shown   string
}

// Decide records a person's decision ("approve" or "reject") about
// approval request id; the first decision stands. Call it with the
// answer a person gave, never from a tool the model can call.
func (h *Host) Decide(id, decision, reviewer string, opts DecideOptions) (ApprovalRequest, error) {
	var request ApprovalRequest
	err := h.approvalsCall(&request, func(ptr *C.ToolvetHost, out **C.char, cerr **C.char) C.ToolvetStatus {
		cid, cdecision, creviewer := C.CString(id), C.CString(decision), C.CString(reviewer)
		cmessage, cscope, cshown := optional(opts.Message), optional(opts.Scope), optional(opts.Shown)
		for _, s := range []*C.char{cid, cdecision, creviewer, cmessage, cscope, cshown} {
			defer C.free(unsafe.Pointer(s))
		}
		return C.toolvet_approval_decide(ptr, cid, cdecision, creviewer, cmessage, cscope, cshown, out, cerr)
	})
	return request, err
}

func (h *Host) approvalsCall(into any, f func(*C.ToolvetHost, **C.char, **C.char) C.ToolvetStatus) error {
	h.mu.RLock()
	defer h.mu.RUnlock()
	if h.ptr == nil {
		return ErrClosed
	}
	var out, cerr *C.char
	if err := failure(f(h.ptr, &out, &cerr), cerr); err != nil {
		return err
	}
	defer C.toolvet_string_free(out)
	if err := json.Unmarshal([]byte(C.GoString(out)), into); err != nil {
		return &Error{Code: CodeInternal, Message: fmt.Sprintf("toolvet: cannot read the approvals answer: %v", err)}
	}
	return nil
}

// Info describes the policy in force: policy_source, policy_sha256,
// generation, has_approvals, vets_results and checks.
func (h *Host) Info() (map[string]any, error) {
	h.mu.RLock()
	defer h.mu.RUnlock()
	if h.ptr == nil {
		return nil, ErrClosed
	}
	out := C.toolvet_host_info(h.ptr)
	defer C.toolvet_string_free(out)
	var info map[string]any
	if err := json.Unmarshal([]byte(C.GoString(out)), &info); err != nil {
		return nil, &Error{Code: CodeInternal, Message: err.Error()}
	}
	return info, nil
}

// Version is libtoolvet's version.
func Version() string { return C.GoString(C.toolvet_version()) }

func optional(s string) *C.char {
	if s == "" {
		return nil
	}
	return C.CString(s)
}

// failure turns a status and its message into an error (nil for OK),
// freeing the message.
func failure(status C.ToolvetStatus, cerr *C.char) error {
	if status == C.TOOLVET_OK {
		return nil
	}
	message := "toolvet: failed"
	if cerr != nil {
		message = C.GoString(cerr)
		C.toolvet_string_free(cerr)
	}
	return &Error{Code: Code(status), Message: message}
}

func denied(rule, reason string, call Call) Verdict {
	return Verdict{Decision: Deny, Rule: rule, Reason: reason, Tool: call.Name, CallID: call.ID}
}

// withJSON runs f (toolvet_check or toolvet_check_result) on the host
// with body as a C string and returns its answer, "" for a closed host.
func (h *Host) withJSON(f func(*C.ToolvetHost, *C.char) *C.char, body string) string {
	h.mu.RLock()
	defer h.mu.RUnlock()
	if h.ptr == nil {
		return ""
	}
	in := C.CString(body)
	defer C.free(unsafe.Pointer(in))
	out := f(h.ptr, in)
	defer C.toolvet_string_free(out)
	return C.GoString(out)
}

// checkJSON is Check below the Go types, on the calling goroutine: the
// request's JSON text in, the verdict's JSON text out (for the benchmark
// that tells the Go layer's cost from the C ABI's).
func (h *Host) checkJSON(body string) string {
	return h.withJSON(func(ptr *C.ToolvetHost, in *C.char) *C.char { return C.toolvet_check(ptr, in) }, body)
}
