package harness

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/syncmodels/syncmodels/algorithms/logreg"
	"github.com/syncmodels/syncmodels/algorithms/optim"
	"github.com/syncmodels/syncmodels/consistency"
	"github.com/syncmodels/syncmodels/dataset"
	"github.com/syncmodels/syncmodels/scalein"
)

// Leave-time flush (MLLess §4.2): when the scale-in tuner evicts an ISP
// worker, its held updates reach the global state, so that at the end the
// global state plus what the remaining workers hold equals θ0 plus every
// update any worker produced (to rounding). Without the flush the ledger
// is off by the evicted workers' held mass.
func TestISPLeaverLosesNothing(t *testing.T) {
	data, _ := dataset.Logistic(rand.New(rand.NewPCG(5, 5)), 16000, 20)
	alg, err := logreg.NewDense(data, logreg.Config{Optim: optim.Config{Method: optim.Adam, LR: 0.01}})
	if err != nil {
		t.Fatal(err)
	}
	run := func(drop bool) (gap, flushed float64, evictions int) {
		ids := []int{0, 1, 2, 3, 4, 5, 6, 7}
		tu, err := scalein.New(scalein.Config{Workers: ids, MinWorkers: 2, S: 0.05, Delta: 50 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		e := Experiment{Algorithm: alg, Sync: consistency.MustParse("isp:0.7"), Workers: 8, Batch: 50, Seed: 2,
			Duration: 500 * time.Millisecond, EvalEvery: 500 * time.Millisecond, ScaleIn: tu, ControlSample: 512}
		if err := e.validate(); err != nil {
			t.Fatal(err)
		}
		st, err := setup(&e)
		if err != nil {
			t.Fatal(err)
		}
		st.isp.dropFlush = drop
		res, err := simulate(context.Background(), &e, st)
		if err != nil {
			t.Fatal(err)
		}
		if err := consistency.Check(st.coord.rec.Trace()); err != nil {
			t.Fatal(err)
		}
		// θ_end − θ0 + Σ_remaining held = Σ u.
		ledger := slices.Clone(st.coord.params)
		for i := range ledger {
			ledger[i] -= st.theta0[i]
		}
		for i, w := range st.isp.workers {
			if w.f.Held().Entries > 0 && !slices.ContainsFunc(tu.Evictions(), func(ev scalein.Eviction) bool { return ev.Worker == i }) {
				w.f.RangeHeld(func(j int, v float64) bool { ledger[j] += v; return true })
			}
		}
		total := make([]float64, len(ledger))
		for _, w := range st.isp.workers {
			for i, v := range w.total {
				total[i] += v
			}
		}
		for i, v := range total {
			gap = max(gap, math.Abs(ledger[i]-v))
		}
		// Every worker reported its replica's quality, the tuner's basis
		// for evicting the worst replica.
		for _, w := range tu.Workers() {
			if !w.HasQuality || !(w.Quality > 0) {
				t.Fatalf("worker %d: quality %v (reported %v)", w.ID, w.Quality, w.HasQuality)
			}
		}
		var out []int
		for _, ev := range tu.Evictions() {
			out = append(out, ev.Worker)
		}
		t.Logf("evicted %v", out)
		return gap, res.Flushed, len(tu.Evictions())
	}
	gap, flushed, n := run(false)
	if n == 0 || flushed < 1e-6 {
		t.Fatalf("%d evictions flushed %g: the test needs a leaver holding updates", n, flushed)
	}
	if gap > 1e-12 {
		t.Fatalf("ledger gap %g with the flush; want rounding only", gap)
	}
	if gap, _, _ := run(true); gap < 1e-6 {
		t.Fatalf("ledger gap %g without the flush; the test cannot see a loss", gap)
	}
	t.Logf("%d evictions, flushed mass %.3g, ledger gap %.3g", n, flushed, gap)
}
