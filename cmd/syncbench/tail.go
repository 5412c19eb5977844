package main

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/syncmodels/syncmodels/harness"
	"github.com/syncmodels/syncmodels/latency"
)

// Tail stragglers in `syncbench compare` (-straggler-kind tail, -tail):
// every operation of a straggler (a release fetched, a commit sent) takes
// an extra delay from a heavy-tailed distribution, slsML's storage tail
// latency (harness.Tail, package latency).

// tailUsage is -tail's help.
const tailUsage = "with -straggler-kind tail: each operation's extra delay, key=value pairs median=DUR,sigma=X (a lognormal body), p=X,scale=DUR,alpha=X (a Pareto tail drawn with probability p), max=DUR (a cap); the default is slsML-like: milliseconds, and for one operation in 10,000 tens of seconds (package latency)"

// checkTail reads -tail, and gives Tail stragglers every worker unless
// -stragglers was set. Its errors are one-line usage errors naming -tail.
func (f *compareFlags) checkTail() error {
	d, err := latency.Parse(f.tail)
	if err != nil {
		var ie *latency.InputError
		if errors.As(err, &ie) {
			return fmt.Errorf("-tail %q: %s", f.tail, ie.Reason)
		}
		return fmt.Errorf("-tail %q: %v", f.tail, err)
	}
	f.tailDist = d
	if f.stragglerKind != harness.Tail {
		return nil
	}
	if d.IsZero() {
		return fmt.Errorf("-tail %q delays nothing: give a distribution (e.g. %s), or -stragglers 0 for no stragglers", f.tail, latency.Default())
	}
	if f.fs != nil && !setFlags(f.fs)["stragglers"] {
		f.stragglers = f.workers
	}
	return nil
}

// tailLine describes Tail stragglers ws (worker IDs) for the table: who,
// the distribution and its closed-form quantiles.
func (c *comparison) tailLine(ws []string) string {
	f := c.f
	who := "every worker's operations"
	switch {
	case len(ws) == 1:
		who = "worker " + ws[0] + "'s operations"
	case len(ws) < f.workers:
		who = fmt.Sprintf("%d workers' operations (%s)", len(ws), strings.Join(ws, ", "))
	}
	d := f.tailDist
	if d.Sigma == 0 && d.P == 0 {
		return fmt.Sprintf("tail latency on %s: %s (fixed)", who, d)
	}
	var qs []string
	for _, q := range []struct {
		name string
		q    float64
	}{{"p50", 0.5}, {"p99", 0.99}, {"p99.9", 0.999}, {"p99.99", 0.9999}, {"p99.999", 0.99999}} {
		if q.q == 1-d.P {
			continue // the quantile's jump from the body to the tail
		}
		qs = append(qs, q.name+" "+roundDuration(d.Quantile(q.q)).String())
	}
	return fmt.Sprintf("tail latency on %s: %s (%s)", who, d, strings.Join(qs, ", "))
}

// roundDuration rounds d to three significant digits.
func roundDuration(d time.Duration) time.Duration {
	m := time.Duration(1)
	for d/m >= 1000 {
		m *= 10
	}
	return d.Round(m)
}
