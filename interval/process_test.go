package interval

import (
	"fmt"
	"testing"
	"time"
)

// process is a synthetic FSP training run in virtual time, the tests'
// stand-in for a real system: the objective progresses by g(e)·e per
// iteration of interval e (e is the requested η, or the full-pass time
// if η is longer or FullPass: the early trigger), every barrier costs phi,
// and the quality function g changes when the total progress crosses a
// stage boundary (a two-stage curve like FSP Fig. 2b). A checkpoint saves
// the progress, a rollback restores it; the clock only moves forward.
type process struct {
	minimize bool
	f0       float64       // objective at the start
	full     time.Duration // full-pass time
	phi      time.Duration // barrier cost
	stages   []stage

	progress float64 // since the start, in the improving direction
	saved    float64 // progress at the checkpoint
	clock    time.Duration
}

type stage struct {
	from float64                   // progress at which this stage begins
	g    func(eta float64) float64 // progress per second of computing at interval η (s)
}

// linear returns g(η) = a·η + b.
func linear(a, b float64) func(float64) float64 {
	return func(eta float64) float64 { return a*eta + b }
}

func (p *process) objective() float64 {
	if p.minimize {
		return p.f0 - p.progress
	}
	return p.f0 + p.progress
}

func (p *process) g(eta float64) float64 {
	g := p.stages[0].g
	for _, s := range p.stages {
		if p.progress >= s.from {
			g = s.g
		}
	}
	return g(eta)
}

// do performs req and returns its report.
func (p *process) do(req Request) Report {
	switch req.Op {
	case OpCheckpoint:
		p.saved = p.progress
		return Report{Objective: p.objective()}
	case OpRollback:
		p.progress = p.saved
		return Report{}
	case OpRun:
		var elapsed time.Duration
		for range req.Iterations {
			e := req.Interval
			if e == FullPass || e > p.full {
				e = p.full
			}
			p.progress += p.g(e.Seconds()) * e.Seconds()
			elapsed += e + p.phi
		}
		p.clock += elapsed
		return Report{Objective: p.objective(), Elapsed: elapsed, BarrierCost: p.phi, Iterations: req.Iterations}
	}
	panic(fmt.Sprintf("process: unknown op %v", req.Op))
}

// steady is a process with one quality function for ever and no early
// trigger, starting at f0 = 100.
func steady(minimize bool, phi time.Duration, g func(float64) float64) *process {
	return &process{minimize: minimize, f0: 100, full: time.Hour, phi: phi, stages: []stage{{g: g}}}
}

// must returns a constructor's tuner, failing the test on an error.
func must[T any](v T, err error) func(testing.TB) T {
	return func(tb testing.TB) T {
		tb.Helper()
		if err != nil {
			tb.Fatal(err)
		}
		return v
	}
}

// drive runs t against p for n exchanges and returns the requests.
func drive(tb testing.TB, t Tuner, p *process, n int) []Request {
	tb.Helper()
	reqs := make([]Request, 0, n)
	for range n {
		req, err := t.Next()
		if err != nil {
			tb.Fatalf("Next: %v", err)
		}
		reqs = append(reqs, req)
		if err := t.Observe(p.do(req)); err != nil {
			tb.Fatalf("Observe after %v: %v", req, err)
		}
	}
	return reqs
}

// rate is the progress per elapsed second at interval η (s) for the
// quality function g and barrier cost φ (s): Eq. (7) over T.
func trueRate(g func(float64) float64, eta, phi float64) float64 {
	return eta / (eta + phi) * g(eta)
}
