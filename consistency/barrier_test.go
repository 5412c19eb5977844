package consistency_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

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

// The KGroup core and barrier.Grouper group the same batches: fed the
// same announcements, preemptions and rejoins (between groups), every
// group the core releases is the group Grouper.Next takes.
func TestKGroupAgreesWithGrouper(t *testing.T) {
	for _, s := range []string{"kgroup:1", "kgroup:3", "kgroup:4:spread", "kgroup:7:spread"} {
		spec := consistency.MustParse(s)
		ws := workers(5)
		g, err := barrier.NewGrouper(spec.Group, spec.Spread, ws...)
		if err != nil {
			t.Fatal(err)
		}
		m, err := consistency.New(spec, consistency.Config{Workers: ws, Batch: 1})
		if err != nil {
			t.Fatal(err)
		}
		seq := map[consistency.WorkerID]uint64{}
		groups := 0
		// run carries out effects: it compares each group with the
		// Grouper's and commits its releases at once.
		var run func(effs []consistency.Effect)
		run = func(effs []consistency.Effect) {
			var rels []consistency.Effect
			for _, e := range effs {
				if e.Kind == consistency.EfRelease {
					rels = append(rels, e)
				}
			}
			if len(rels) == 0 {
				return
			}
			ctx, cancel := context.WithTimeout(context.Background(), time.Second)
			takes, err := g.Next(ctx)
			cancel()
			if err != nil {
				t.Fatalf("%s: the core released %v; Grouper.Next: %v", s, rels, err)
			}
			got := ""
			for _, e := range rels {
				got += fmt.Sprint(barrier.Take{Worker: e.Worker, First: e.Batch, Count: e.Batches}) + " "
			}
			want := ""
			for _, tk := range takes {
				want += tk.String() + " "
			}
			if got != want {
				t.Fatalf("%s: group %d: the core releases %s; the Grouper takes %s", s, groups, got, want)
			}
			groups++
			for _, e := range rels {
				seq[e.Worker]++
				effs, err := m.Step(consistency.Event{Kind: consistency.EvCommit, Worker: e.Worker, Seq: seq[e.Worker], Version: e.Version, Points: e.Budget, Batch: e.Batch})
				if err != nil {
					t.Fatal(err)
				}
				run(effs)
			}
		}
		if _, err := m.Step(consistency.Event{Kind: consistency.EvStart}); err != nil {
			t.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(uint64(spec.Group), 3))
		away := map[consistency.WorkerID]bool{}
		for range 3000 {
			w := ws[rng.IntN(len(ws))]
			switch r := rng.IntN(20); {
			case r == 0 && !away[w] && len(away) < 3:
				away[w] = true
				if err := g.Leave(w); err != nil {
					t.Fatal(err)
				}
				effs, err := m.Step(consistency.Event{Kind: consistency.EvLeave, Worker: w})
				if err != nil {
					t.Fatal(err)
				}
				run(effs)
			case r == 1 && away[w]:
				delete(away, w)
				if err := g.Join(w); err != nil {
					t.Fatal(err)
				}
				effs, err := m.Step(consistency.Event{Kind: consistency.EvJoin, Worker: w})
				if err != nil {
					t.Fatal(err)
				}
				run(effs)
			case !away[w] && (w != 0 || rng.IntN(3) == 0):
				b, err := g.Ready(w)
				if err != nil {
					t.Fatal(err)
				}
				effs, err := m.Step(consistency.Event{Kind: consistency.EvBatchReady, Worker: w, Batch: b})
				if err != nil {
					t.Fatal(err)
				}
				run(effs)
			}
		}
		if groups < 100 {
			t.Fatalf("%s: %d groups compared", s, groups)
		}
	}
}
