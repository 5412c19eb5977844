package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/syncmodels/syncmodels/latency"
)

// tinyTail is tiny without its -stragglers 1: tail stragglers are then
// every worker.
func tinyTail(extra ...string) []string {
	var args []string
	for i := 0; i < len(tiny); i++ {
		if tiny[i] == "-stragglers" {
			i++
			continue
		}
		args = append(args, tiny[i])
	}
	return append(append([]string{"compare"}, args...), extra...)
}

// compare -straggler-kind tail delays every operation of every worker
// (unless -stragglers says how many) by a draw from -tail: the JSON names
// the distribution and counts each worker's delays, the table describes
// it with its quantiles, and the runs pass the checker, on both clocks.
func TestCompareTail(t *testing.T) {
	const spec = "median=1ms,p=0.05,scale=20ms,alpha=1.5"
	for _, clock := range []string{"virtual", "real"} {
		code, out, errs := runCmd(t, tinyTail("-straggler-kind", "tail", "-tail", spec, "-sync", "bsp,quorum:0.75", "-clock", clock, "-duration", "300ms", "-json")...)
		if code != 0 {
			t.Fatalf("%s: exit %d, stderr %q", clock, code, errs)
		}
		var c compareJSON
		if err := json.Unmarshal([]byte(out), &c); err != nil {
			t.Fatalf("output is not JSON: %v\n%s", err, out)
		}
		s := c.Scenario
		if s.StragglerKind != "tail" || s.Tail != spec || s.Stragglers != 4 || fmt.Sprint(s.StragglerWorkers) != "[0 1 2 3]" {
			t.Fatalf("%s: scenario kind %q tail %q, %d stragglers %v; want tail %q on all 4 workers", clock, s.StragglerKind, s.Tail, s.Stragglers, s.StragglerWorkers, spec)
		}
		for _, r := range c.Runs {
			if r.Check != "ok" || r.Versions < 2 {
				t.Errorf("%s %s: check %q, %d versions", clock, r.Sync, r.Check, r.Versions)
			}
			for _, w := range r.Workers {
				// At least a fixed 1 ms for each of its commits.
				if !w.Straggler || w.DelayedS < 0.001*float64(w.Commits) {
					t.Errorf("%s %s: worker %+v; want delays of ≥ 1 ms per commit", clock, r.Sync, w)
				}
			}
		}
	}
	// The table says who, what and its quantiles: the body is a fixed
	// 1 ms, and above q = 0.95 the quantile is the Pareto tail's at
	// (q − 0.95)/0.05, 20 ms × (1 − (q − 0.95)/0.05)^(−1/1.5): 58.5 ms at
	// q = 0.99, 271 ms at 0.999, 1.26 s at 0.9999, 5.85 s at 0.99999.
	// -stragglers limits them.
	_, out, _ := runCmd(t, tinyTail("-straggler-kind", "tail", "-tail", spec, "-sync", "asp")...)
	if want := "tail latency on every worker's operations: " + spec + " (p50 1ms, p99 58.5ms, p99.9 271ms, p99.99 1.26s, p99.999 5.85s)"; !strings.Contains(out, want) {
		t.Errorf("table lacks %q:\n%s", want, out)
	}
	code, out, errs := runCmd(t, tinyCompare("-straggler-kind", "tail", "-sync", "asp", "-json")...)
	var c compareJSON
	if code != 0 || json.Unmarshal([]byte(out), &c) != nil {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	if s := c.Scenario; s.Stragglers != 1 || len(s.StragglerWorkers) != 1 || s.Tail != latency.Default().String() {
		t.Errorf("-stragglers 1 and the default -tail: %d stragglers %v, tail %q; want 1, %q", s.Stragglers, s.StragglerWorkers, s.Tail, latency.Default())
	}
	for _, w := range c.Runs[0].Workers {
		if w.Straggler != (w.DelayedS > 0) {
			t.Errorf("worker %+v: only the straggler is delayed", w)
		}
	}
	// Other straggler kinds have no tail in their JSON.
	_, out, _ = runCmd(t, tinyCompare("-sync", "asp", "-json")...)
	if strings.Contains(out, `"tail"`) || strings.Contains(out, `"delayed_s"`) {
		t.Errorf("an injected-straggler run's JSON names a tail")
	}
}

// With -clock grpc the worker processes get the distribution with the job
// and sleep it: a fixed 50 ms per operation leaves BSP at most one round
// per 100 ms.
func TestCompareTailGRPC(t *testing.T) {
	code, out, errs := runCmd(t, tinyTail("-clock", "grpc", "-straggler-kind", "tail", "-tail", "median=50ms", "-sync", "bsp", "-duration", "400ms", "-json")...)
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	var c compareJSON
	if err := json.Unmarshal([]byte(out), &c); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, out)
	}
	r := c.Runs[0]
	if r.Check != "ok" || r.Versions < 1 || r.Versions > 5 {
		t.Fatalf("check %q, %d versions in 400 ms; want 1 to 5 (each round's release and commit take 50 ms each)", r.Check, r.Versions)
	}
}

// Careless tail flags are one-line usage errors naming the flag; -tail
// without tail stragglers is a warning.
func TestCompareTailRefused(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{tinyCompare("-straggler-kind", "tail", "-tail", "median=5"), `-tail "median=5": median "5" is not a duration`},
		{tinyCompare("-straggler-kind", "tail", "-tail", "none"), `-tail "none" delays nothing`},
		{tinyCompare("-straggler-kind", "tail", "-tail", "p=2,scale=1s,alpha=1"), `-tail "p=2,scale=1s,alpha=1": Dist.P = 2`},
		{tinyCompare("-straggler-kind", "tail", "-tail", "p=0.1,scale=1s"), "Dist.Alpha = 0"},
		{tinyCompare("-straggler-kind", "tail", "-tail", "mean=5ms"), `unknown key "mean"`},
		{tinyCompare("-tail", "median=-1ms"), `-tail "median=-1ms": Dist.Median = -1ms`},
		{tinyCompare("-straggler-kind", "tails"), `-straggler-kind "tails": want injected or natural or tail`},
		{tinyTail("-straggler-kind", "tail", "-stragglers", "5"), "-stragglers 5"},
	} {
		code, _, errs := runCmd(t, tc.args...)
		if code != 2 || !strings.Contains(errs, tc.want) || strings.Count(strings.TrimSpace(errs), "\n") > 0 {
			t.Errorf("%v: exit %d, stderr %q; want 2 and one line with %q", tc.args, code, errs, tc.want)
		}
	}
	_, _, errs := runCmd(t, tinyCompare("-sync", "asp", "-tail", "median=1ms")...)
	if !strings.Contains(errs, "-tail has no effect without tail stragglers") {
		t.Errorf("stderr %q; want a warning that -tail has no effect", errs)
	}
}
