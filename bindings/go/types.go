package toolvet

import (
	"encoding/json"
	"time"
)

// Call is a proposed tool call: the framework's call id, the tool's name
// and its arguments (a JSON object; nil is {}).
type Call struct {
	ID        string         `json:"id,omitempty"`
	Name      string         `json:"name"`
	Arguments map[string]any `json:"arguments"`
}

// ToolInfo is what the agent's owner declared about the tool.
type ToolInfo struct {
	Description      string         `json:"description,omitempty"`
	Risk             string         `json:"risk,omitempty"`
	RequiresApproval bool           `json:"requires_approval,omitempty"`
	Tags             []string       `json:"tags,omitempty"`
	ParametersSchema map[string]any `json:"parameters_schema,omitempty"`
}

// CallContext is the run a call belongs to. Approvals are bound to
// RunID; the labels a run's results raised are kept by the host per RunID
// (with Principal and Agent), never sent by the caller.
type CallContext struct {
	Agent      string            `json:"agent,omitempty"`
	RunID      string            `json:"run_id,omitempty"`
	Principal  string            `json:"principal,omitempty"`
	Attributes map[string]string `json:"attributes,omitempty"`
	History    []PriorCall       `json:"history,omitempty"`
}

// PriorCall is an earlier call of the run and what happened to it:
// Outcome is "allowed", "denied", "escalated", "approved" or "rejected".
type PriorCall struct {
	Name      string         `json:"name"`
	Arguments map[string]any `json:"arguments"`
	Outcome   string         `json:"outcome"`
}

// Request is one call to vet, as `toolvet check` reads it. Ticket, when
// set, resumes an escalated call: the ticket of its approval request.
type Request struct {
	Call    Call
	Tool    *ToolInfo
	Context *CallContext
	Ticket  string
}

// MarshalJSON writes the request as `toolvet check` reads it.
func (r Request) MarshalJSON() ([]byte, error) {
	call := r.Call
	if call.Arguments == nil {
		call.Arguments = map[string]any{}
	}
	wire := struct {
		Call     Call         `json:"call"`
		Tool     *ToolInfo    `json:"tool,omitempty"`
		Context  *CallContext `json:"context,omitempty"`
		Approval *struct {
			Ticket string `json:"ticket"`
		} `json:"approval,omitempty"`
	}{Call: call, Tool: r.Tool, Context: r.Context}
	if r.Ticket != "" {
		wire.Approval = &struct {
			Ticket string `json:"ticket"`
		}{r.Ticket}
	}
	return json.Marshal(wire)
}

// Decision is a verdict's answer.
type Decision string

const (
	// Allow: the call may run.
	Allow Decision = "allow"
	// Deny: the call must not run; Reason is for the model.
	Deny Decision = "deny"
	// Escalate: a person must approve the call first (Verdict.Approval).
	Escalate Decision = "escalate"
)

// Verdict is the host's answer about one call (the JSON `toolvet check
// --format json` prints).
type Verdict struct {
	Decision   Decision         `json:"decision"`
	DecidedBy  string           `json:"decided_by,omitempty"`
	Rule       string           `json:"rule,omitempty"`
	Reason     string           `json:"reason,omitempty"`
	Approval   *VerdictApproval `json:"approval,omitempty"`
	Checks     []CheckOutcome   `json:"checks"`
	DurationUS uint64           `json:"duration_us"`
	Tool       string           `json:"tool"`
	CallID     string           `json:"call_id"`
}

// VerdictApproval is the approval request an escalation opened (or the
// one a resumed call carried): its Ticket resumes the call once a person
// approved it.
type VerdictApproval struct {
	ID        string    `json:"id"`
	Status    string    `json:"status"`
	Ticket    string    `json:"ticket,omitempty"`
	CreatedAt time.Time `json:"created_at"`
	ExpiresAt time.Time `json:"expires_at"`
	Reviewer  string    `json:"reviewer,omitempty"`
	Message   string    `json:"message,omitempty"`
}

// CheckOutcome is one check's answer within a verdict.
type CheckOutcome struct {
	Check      string `json:"check"`
	Mode       string `json:"mode"`
	Decision   string `json:"decision"`
	Rule       string `json:"rule,omitempty"`
	Reason     string `json:"reason,omitempty"`
	DurationUS uint64 `json:"duration_us"`
}

// Result is what a tool returned: Text, or JSON (a value) when Text is
// empty and JSON is set.
type Result struct {
	Text    string
	JSON    any
	IsError bool
}

// Action is a result verdict's answer.
type Action string

const (
	// Pass: hand the result to the model as it is.
	Pass Action = "pass"
	// Redact: hand the model ResultVerdict.Content (secrets masked).
	Redact Action = "redact"
	// Withhold: do not hand the result to the model; Reason says why.
	Withhold Action = "withhold"
)

// ResultVerdict is the host's answer about a tool's result.
type ResultVerdict struct {
	Action Action `json:"action"`
	Rule   string `json:"rule,omitempty"`
	Reason string `json:"reason,omitempty"`
	// Content is the masked content when Action is Redact:
	// {"text": "..."} or {"json": ...}.
	Content    map[string]any `json:"content,omitempty"`
	Labels     []RunLabel     `json:"labels,omitempty"`
	DurationUS uint64         `json:"duration_us"`
	Tool       string         `json:"tool"`
	CallID     string         `json:"call_id"`
}

// RunLabel is a label a result raised for its run (an injection's
// destinations, a secret seen).
type RunLabel struct {
	Name  string `json:"name"`
	Check string `json:"check"`
	Tool  string `json:"tool"`
}

// ApprovalRequest is one approval request as the ledger holds it.
type ApprovalRequest struct {
	ID     string `json:"id"`
	Status string `json:"status"`
	Call   struct {
		Tool   string `json:"tool"`
		CallID string `json:"call_id"`
		RunID  string `json:"run_id,omitempty"`
	} `json:"call"`
	Arguments json.RawMessage `json:"arguments"`
	Agent     string          `json:"agent,omitempty"`
	Principal string          `json:"principal,omitempty"`
	CreatedAt time.Time       `json:"created_at"`
	ExpiresAt time.Time       `json:"expires_at"`
	Review    *struct {
		Decision  string    `json:"decision"`
		Reviewer  string    `json:"reviewer"`
		Message   string    `json:"message,omitempty"`
		Scope     string    `json:"scope"`
		DecidedAt time.Time `json:"decided_at"`
	} `json:"review,omitempty"`
}
