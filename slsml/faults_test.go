package slsml

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/syncmodels/syncmodels/algorithms"
	"github.com/syncmodels/syncmodels/exchange"
	"github.com/syncmodels/syncmodels/latency"
)

// hookStore calls after once a Put of key has succeeded: where a test
// kills the store mid-run, at a point of the pipeline's schedule (which
// virtual time decides, so the point is the same on every store).
type hookStore struct {
	exchange.Store
	key   string
	after func()
	fired bool
}

func (h *hookStore) Put(ctx context.Context, key string, v []byte) error {
	err := h.Store.Put(ctx, key, v)
	if err == nil && key == h.key && !h.fired {
		h.fired = true
		h.after()
	}
	return err
}

// runFaulty runs with faults f and returns the result and Check's
// verdict.
func runFaulty(t *testing.T, s exchange.Store, alg algorithms.Algorithm, cfg Config, f faults) (*Result, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	res, err := run(ctx, s, alg, cfg, f)
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	return res, Check(res.Trace)
}

// rules returns the rules of a CheckError's violations.
func rules(err error) map[string]int {
	out := map[string]int{}
	var ce *CheckError
	if errors.As(err, &ce) {
		for _, v := range ce.Violations {
			out[v.Rule]++
		}
	}
	return out
}

// straggly is a run where late gradients are frequent.
func straggly() Config {
	cfg := smallConfig()
	cfg.Iterations = 8
	cfg.Timing.Store = latency.Dist{Median: 5 * time.Millisecond, Sigma: 0.5, P: 0.03, Scale: 3 * time.Second, Alpha: 1.2, Max: 60 * time.Second}
	return cfg
}

// The checker catches each plausible bug, switched on one at a time; the
// same run without the bug passes.
func TestCheckerCatchesMutations(t *testing.T) {
	alg := newLogreg(t, 400, 10)
	for _, tc := range []struct {
		name string
		f    faults
		want string // a rule that must be broken
	}{
		// A reducer that starts its window one window too early and keeps
		// no ledger folds the previous window's late gradients again.
		{"late gradient folded twice", faults{foldTwice: true}, RuleTwice},
		// Reducer 1 takes every note it read, past the quorum's.
		{"reducer proceeds with another set", faults{divergent: 2}, RuleReducers},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, s := memStore(t)
			if _, err := runFaulty(t, s, alg, straggly(), faults{}); err != nil {
				t.Fatalf("without the bug: %v", err)
			}
			_, s = memStore(t)
			_, err := runFaulty(t, s, alg, straggly(), tc.f)
			if err == nil {
				t.Fatalf("Check passed a run with the bug")
			}
			if rules(err)[tc.want] == 0 {
				t.Fatalf("Check = %v; want a %q violation", err, tc.want)
			}
			t.Logf("caught: %v", firstLines(err, 3))
		})
	}
}

func firstLines(err error, n int) string {
	lines := strings.Split(err.Error(), "\n")
	return strings.Join(lines[:min(n, len(lines))], "\n")
}

// lossCheck runs the restart scenario on a store: the store loses its
// data right after reducer 0 wrote its slice of iteration 2 (applied, not
// merged). The run must tell, roll reducer 0 back, replay iteration 2,
// apply nothing twice — Check passes and the merged models are what one
// server computes from the sets applied — and with the rollback switched
// off (replayTwice) Check must report the gradients applied twice.
func lossCheck(t *testing.T, open func(t *testing.T) (exchange.Store, func())) {
	alg := newLogreg(t, 400, 10)
	cfg := smallConfig()
	for _, tc := range []struct {
		name string
		f    faults
	}{{"correct", faults{}}, {"no rollback", faults{replayTwice: true}}} {
		t.Run(tc.name, func(t *testing.T) {
			s, restart := open(t)
			h := &hookStore{Store: s, key: sliceKey(2, 0), after: restart}
			res, err := runFaulty(t, h, alg, cfg, tc.f)
			if !h.fired {
				t.Fatal("the store was never restarted")
			}
			if res.Counts.Losses != 1 {
				t.Fatalf("Counts.Losses = %d; want 1", res.Counts.Losses)
			}
			if tc.f.replayTwice {
				if rules(err)[RuleTwice] == 0 {
					t.Fatalf("without rollback, Check = %v; want %q violations", err, RuleTwice)
				}
				t.Logf("caught: %v", firstLines(err, 3))
				return
			}
			if err != nil {
				t.Fatalf("Check: %v", err)
			}
			if res.Counts.Rollbacks < 1 {
				t.Errorf("Counts.Rollbacks = %d; want ≥ 1 (reducer 0 had applied iteration 2)", res.Counts.Rollbacks)
			}
			rolled := false
			for _, r := range res.Trace.Records {
				rolled = rolled || r.Kind == RecRollback && r.Reducer == 0 && r.Iter == 2
			}
			if !rolled {
				t.Error("no rollback of reducer 0's iteration 2 in the trace")
			}
			want, got := oracle(t, alg, cfg.Seed, res.Trace), merges(res.Trace)
			for i := range got {
				if !equalBits(got[i], want[i]) {
					t.Fatalf("θ_%d = %v; one server computes %v from the sets applied", i+1, short(got[i]), short(want[i]))
				}
			}
			t.Logf("loss: %+v", res.Counts)
		})
	}
}

func TestLossMemory(t *testing.T) {
	lossCheck(t, func(t *testing.T) (exchange.Store, func()) {
		m, s := memStore(t)
		return s, m.Restart
	})
}

// A loss after θ_T is published, while late workers still run: nothing
// is replayed; the pending gradients are dropped as lost.
func TestLossAfterTheEnd(t *testing.T) {
	alg := newLogreg(t, 400, 10)
	cfg := straggly()
	m, s := memStore(t)
	h := &hookStore{Store: s, key: modelKey(cfg.Iterations), after: m.Restart}
	res := runOK(t, h, alg, cfg)
	if !h.fired || res.Counts.Losses != 1 || res.Counts.Lost == 0 {
		t.Fatalf("fired %v, counts %+v; want one loss after the end and lost gradients", h.fired, res.Counts)
	}
	if !equalBits(res.Model, merges(res.Trace)[cfg.Iterations-1]) {
		t.Error("the model changed after the loss")
	}
}

// A loss right after θ0 is published: θ0 is published again and the run
// is the one without the loss but for its timing.
func TestLossAtTheStart(t *testing.T) {
	alg := newLogreg(t, 400, 10)
	cfg := smallConfig()
	cfg.Quorum = 1
	m, s := memStore(t)
	h := &hookStore{Store: s, key: modelKey(0), after: m.Restart}
	res := runOK(t, h, alg, cfg)
	_, s2 := memStore(t)
	want := runOK(t, s2, alg, cfg)
	if !h.fired || res.Counts.Losses != 1 {
		t.Fatalf("fired %v, counts %+v; want one loss", h.fired, res.Counts)
	}
	if !equalBits(res.Model, want.Model) {
		t.Errorf("θ_T = %v after a loss at the start; %v without", short(res.Model), short(want.Model))
	}
}
