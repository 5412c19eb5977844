package consistency_test

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/syncmodels/syncmodels/algorithms"
	"github.com/syncmodels/syncmodels/consistency"
	"github.com/syncmodels/syncmodels/filter"
)

// ispRun drives an ISP model with one significance filter per worker over
// random local updates, keeping each worker's replica as MLLess does
// (global state, the sum of every sent update, plus the worker's own held
// updates) and recording what each filter holds after every step. The
// filters run with threshold filterV; the trace claims spec.
func ispRun(t *testing.T, spec consistency.Spec, filterV float64, layout algorithms.Layout, seed uint64) *consistency.Trace {
	t.Helper()
	const n, rounds = 3, 30
	rng := rand.New(rand.NewPCG(seed, 9))
	d, err := newDriver(spec, workers(n), 1)
	if err != nil {
		t.Fatal(err)
	}
	global := make([]float64, layout.Delta)
	for i := range global {
		global[i] = rng.NormFloat64()
	}
	fs := make([]*filter.Significance, n)
	for w := range fs {
		if fs[w], err = filter.NewSignificance(filter.SignificanceConfig{Layout: layout, V: filterV}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := d.step(consistency.Event{Kind: consistency.EvStart}); err != nil {
		t.Fatal(err)
	}
	replica := make([]float64, layout.Delta)
	sum := algorithms.NewDelta(layout)
	for range rounds {
		sum.Reset()
		for w, f := range fs {
			local := algorithms.NewDelta(layout)
			local.Count = 1
			for i := range local.Vec {
				if layout.Block > 0 && rng.IntN(3) != 0 {
					continue
				}
				local.Vec[i] = 0.3 * rng.NormFloat64()
				local.Touch(i / max(layout.Block, 1))
			}
			// w's replica after its own update: global + held + local.
			copy(replica, global)
			f.RangeHeld(func(i int, v float64) bool { replica[i] += v; return true })
			for i, v := range local.Vec {
				replica[i] += v
			}
			sent, err := f.Step(local, replica)
			if err != nil {
				t.Fatal(err)
			}
			if err := sum.Merge(sent); err != nil {
				t.Fatal(err)
			}
			clock := d.comp[consistency.WorkerID(w)].Clock
			if _, err := d.commit(consistency.WorkerID(w)); err != nil {
				t.Fatal(err)
			}
			h := &consistency.Held{Worst: -1, Entries: f.Held().Entries}
			f.RangeHeld(func(_ int, v float64) bool { h.Mass += max(v, -v); return true })
			if i, acc, wi, ok := f.Worst(replica); ok {
				h.Worst, h.Acc, h.Replica = i, acc, wi
			}
			d.record(consistency.Record{Kind: consistency.RecHeld, Worker: consistency.WorkerID(w), Clock: clock, Held: h})
		}
		for i, v := range sum.Vec {
			global[i] += v
		}
	}
	if _, err := d.step(consistency.Event{Kind: consistency.EvStop}); err != nil {
		t.Fatal(err)
	}
	return &d.trace
}

func TestISPCheckWithFilters(t *testing.T) {
	layouts := map[string]algorithms.Layout{"dense": {Params: 12, Delta: 12}, "sparse": {Params: 12, Delta: 12, Block: 3}}
	for name, l := range layouts {
		t.Run(name, func(t *testing.T) {
			for seed := range uint64(5) {
				// A correct filter keeps the bound, including v = 0 (BSP).
				for _, v := range []float64{0, 0.2, 0.7} {
					tr := ispRun(t, consistency.Spec{Kind: consistency.ISP, Threshold: v}, v, l, seed)
					if err := consistency.Check(tr); err != nil {
						t.Fatalf("seed %d, v = %g: %v", seed, v, err)
					}
					held := 0
					for _, r := range tr.Records {
						if r.Kind == consistency.RecHeld && r.Held.Worst >= 0 {
							held++
						}
					}
					if (v == 0) != (held == 0) {
						t.Fatalf("seed %d, v = %g: %d steps with checked entries held", seed, v, held)
					}
				}
				// A driver whose filter holds back significant entries (its
				// threshold is 4v, not v) is caught.
				tr := ispRun(t, consistency.Spec{Kind: consistency.ISP, Threshold: 0.2}, 0.8, l, seed)
				err := consistency.Check(tr)
				if err == nil || !strings.Contains(err.Error(), "isp: worker") || !strings.Contains(err.Error(), "holds back entry") {
					t.Fatalf("seed %d: Check = %v; want an isp violation", seed, err)
				}
			}
		})
	}
}
