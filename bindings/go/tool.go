package toolvet

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
)

// Tool is the shape Go agent frameworks give a tool: LangChainGo's
// tools.Tool is exactly this (Name, Description, Call with the model's
// input text), and Eino's InvokableTool and Genkit's tools come down to
// it (arguments as JSON text in, text out).
type Tool interface {
	Name() string
	Description() string
	Call(ctx context.Context, input string) (string, error)
}

// GuardOptions says how a guarded tool's calls are vetted.
type GuardOptions struct {
	// Context is the run the tool's calls belong to (its RunID binds
	// approvals and the labels results raise).
	Context *CallContext
	// Approve asks a person about an escalated call and returns their
	// answer and name. Nil: an escalated call does not run, and the model
	// reads that a person must approve it.
	Approve func(ctx context.Context, verdict Verdict) (approved bool, reviewer string, err error)
}

// Guarded is a Tool whose every call is vetted before it runs, and whose
// output is vetted before the model reads it.
type Guarded struct {
	host *Host
	tool Tool
	opts GuardOptions
}

// Guard wraps tool so that each call goes through the host first.
func (h *Host) Guard(tool Tool, opts GuardOptions) *Guarded {
	return &Guarded{host: h, tool: tool, opts: opts}
}

// Name is the wrapped tool's name.
func (g *Guarded) Name() string { return g.tool.Name() }

// Description is the wrapped tool's description.
func (g *Guarded) Description() string { return g.tool.Description() }

// Call vets the call (input: the arguments as a JSON object, else
// {"input": input}), runs the tool only when allowed (or approved by a
// person through Approve), and returns its output as the result checks
// leave it. A refusal is returned as the tool's output, with a nil error,
// so the model reads why; a failure of the tool is returned as its error.
func (g *Guarded) Call(ctx context.Context, input string) (string, error) {
	var args map[string]any
	if json.Unmarshal([]byte(input), &args) != nil || args == nil {
		args = map[string]any{"input": input}
	}
	req := Request{
		Call:    Call{ID: callID(), Name: g.tool.Name(), Arguments: args},
		Tool:    &ToolInfo{Description: g.tool.Description()},
		Context: g.opts.Context,
	}
	verdict := g.host.Check(ctx, req)
	if verdict.Decision == Escalate {
		verdict = g.escalated(ctx, req, verdict)
	}
	if verdict.Decision != Allow {
		return refusal(verdict), nil
	}
	out, err := g.tool.Call(ctx, input)
	if err != nil {
		return "", err
	}
	vetted := g.host.CheckResult(ctx, req, Result{Text: out})
	switch vetted.Action {
	case Pass:
		return out, nil
	case Redact:
		if text, ok := vetted.Content["text"].(string); ok {
			return text, nil
		}
	}
	return fmt.Sprintf("toolvet withheld this tool's result: %s", vetted.Reason), nil
}

// escalated asks a person (Approve) about a held call, records the
// answer, and returns the verdict of the call resumed with its ticket.
func (g *Guarded) escalated(ctx context.Context, req Request, held Verdict) Verdict {
	if g.opts.Approve == nil || held.Approval == nil || held.Approval.Ticket == "" {
		return held
	}
	approved, reviewer, err := g.opts.Approve(ctx, held)
	if err != nil {
		return denied(RuleHostError, fmt.Sprintf("no person's answer: %v", err), req.Call)
	}
	decision := "reject"
	if approved {
		decision = "approve"
	}
	if _, err := g.host.Decide(held.Approval.ID, decision, reviewer, DecideOptions{}); err != nil {
		return denied(RuleHostError, fmt.Sprintf("the answer was not recorded: %v", err), req.Call)
	}
	req.Ticket = held.Approval.Ticket
	return g.host.Check(ctx, req)
}

// refusal is the text the model reads for a call that did not run.
func refusal(v Verdict) string {
	what := "denied this call"
	if v.Decision == Escalate {
		what = "held this call for a person's approval; it did not run"
	}
	if v.Rule != "" {
		return fmt.Sprintf("toolvet %s [%s]: %s", what, v.Rule, v.Reason)
	}
	return fmt.Sprintf("toolvet %s: %s", what, v.Reason)
}

func callID() string {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		return ""
	}
	return "go-" + hex.EncodeToString(b[:])
}
