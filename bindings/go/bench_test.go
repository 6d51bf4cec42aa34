package toolvet

import (
	"context"
	"encoding/json"
	"os"
	"sort"
	"strings"
	"testing"
	"time"
)

// BenchmarkCheck: one compound `bash` call per op on the example policy,
// through the Go API (`go`: Go types to JSON, cgo, the C ABI, JSON back
// to Go types; `go-cancellable` with a context that can end, so a
// goroutine per call) and through the C ABI alone (`c`: the same JSON text
// in and out). outside-verdict-p50-us is the time outside the core's own
// duration_us: JSON and the boundary, and the host's work around the
// checks (paths looked up, the run's labels); go minus c is the Go
// layer's cost.
func BenchmarkCheck(b *testing.B) {
	// Without the decision log: its writes are the host's cost, not the
	// binding's (`toolvet bench` leaves it off too).
	policy := examplePolicyB(b)
	text, err := os.ReadFile(policy)
	if err != nil {
		b.Fatal(err)
	}
	var kept []string
	for _, line := range strings.Split(string(text), "\n") {
		if !strings.HasPrefix(line, "decision_log") {
			kept = append(kept, line)
		}
	}
	if err := os.WriteFile(policy, []byte(strings.Join(kept, "\n")), 0o644); err != nil {
		b.Fatal(err)
	}
	h, err := LoadFile(policy)
	if err != nil {
		b.Fatal(err)
	}
	defer h.Close()
	ctx := context.Background()
	req := Request{
		Call: Call{ID: "c-bench", Name: "bash", Arguments: map[string]any{
			"command": "cd /work/app && git status && git log --oneline -5 && grep -rn \"TODO\" src | head",
		}},
		Context: &CallContext{RunID: "run-bench", Attributes: map[string]string{"cwd": "/work/app"}},
	}
	if v := h.Check(ctx, req); v.Decision != Allow {
		b.Fatalf("the benchmark's call is not allowed: %+v", v)
	}
	body, err := json.Marshal(req)
	if err != nil {
		b.Fatal(err)
	}
	// Side by side in one run, each call timed alone: the Go API, and the
	// C ABI alone (the same JSON text in and out, no Go types). Reported:
	// the median of each call's wall time minus the verdict's own
	// duration_us (the core's time inside the checks).
	outside := func(b *testing.B, call func() uint64) {
		samples := make([]float64, 0, b.N)
		for i := 0; i < b.N; i++ {
			start := time.Now()
			inside := call()
			samples = append(samples, float64(time.Since(start).Nanoseconds())/1e3-float64(inside))
		}
		sort.Float64s(samples)
		b.ReportMetric(samples[len(samples)/2], "outside-verdict-p50-us")
	}
	b.Run("go", func(b *testing.B) {
		outside(b, func() uint64 { return h.Check(ctx, req).DurationUS })
	})
	b.Run("go-cancellable", func(b *testing.B) {
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		outside(b, func() uint64 { return h.Check(ctx, req).DurationUS })
	})
	b.Run("c", func(b *testing.B) {
		outside(b, func() uint64 {
			out := h.checkJSON(string(body))
			// The verdict's duration, read after the clock stops would be
			// fairer still; its JSON is small and read by the Go call too.
			var v struct {
				DurationUS uint64 `json:"duration_us"`
			}
			if json.Unmarshal([]byte(out), &v) != nil {
				b.Fatal("no verdict")
			}
			return v.DurationUS
		})
	})
}
