package consistency_test

import (
	"math/rand/v2"
	"testing"

	"github.com/syncmodels/syncmodels/barrier"
	"github.com/syncmodels/syncmodels/consistency"
)

// The SSP core and the barrier package's ClockTable implement one
// protocol: driving both with the same commits, the core releases a worker
// for clock c exactly when ClockTable.Wait(w, c) would return at once
// (every clock ≥ c − s), and blocks it exactly when Wait would block.
func TestSSPAgreesWithClockTable(t *testing.T) {
	for _, s := range []int{0, 1, 3} {
		ws := workers(5)
		table, err := barrier.NewClockTable(s, ws...)
		if err != nil {
			t.Fatal(err)
		}
		d, err := newDriver(consistency.Spec{Kind: consistency.SSP, Staleness: s}, ws, 1)
		if err != nil {
			t.Fatal(err)
		}
		check := func(effs []consistency.Effect) {
			for _, e := range effs {
				var need uint64
				switch e.Kind {
				case consistency.EfRelease:
					if e.Clock > uint64(s) {
						need = e.Clock - uint64(s)
					}
					if table.Min() < need {
						t.Fatalf("s=%d: core releases w%d for clock %d; clock table min %d < %d", s, e.Worker, e.Clock, table.Min(), need)
					}
				case consistency.EfBlock:
					c, _ := table.Clock(e.Worker)
					if c > uint64(s) && table.Min() >= c-uint64(s) {
						t.Fatalf("s=%d: core blocks w%d at clock %d; clock table min %d lets it run", s, e.Worker, c, table.Min())
					}
				}
			}
		}
		effs, err := d.step(consistency.Event{Kind: consistency.EvStart})
		if err != nil {
			t.Fatal(err)
		}
		check(effs)
		rng := rand.New(rand.NewPCG(uint64(s), 5))
		for range 2000 {
			comp := d.computing()
			w := comp[rng.IntN(len(comp))]
			if w == 0 && rng.IntN(3) != 0 {
				continue // worker 0 straggles
			}
			if _, err := table.Tick(w); err != nil {
				t.Fatal(err)
			}
			effs, err := d.commit(w)
			if err != nil {
				t.Fatal(err)
			}
			check(effs)
		}
	}
}
