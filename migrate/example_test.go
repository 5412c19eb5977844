package migrate_test

import (
	"fmt"
	"time"

	"github.com/syncmodels/syncmodels/migrate"
)

// A runtime's loop: train, and at a barrier plan and migrate. Worker 0 is
// 4× slower than the other three.
func Example() {
	speeds := []float64{250, 1000, 1000, 1000} // points per second
	pl, err := migrate.NewPlacement([]int{100, 100, 100, 100}, migrate.PlacementConfig{WindowSize: 32})
	if err != nil {
		panic(err)
	}
	planner, err := migrate.NewPlanner(migrate.Config{Epsilon: 0.5})
	if err != nil {
		panic(err)
	}

	// 100 ms of training.
	var buf []migrate.Point
	for w, v := range speeds {
		buf, _ = pl.Next(buf[:0], w, int(v/10))
		_ = pl.Advance(w, len(buf))
	}

	// The barrier: 4 s of training remain. Eq. 8 on the passes predicted
	// at convergence: worker 0 (25 points done) 0.25 + 4·250/100 = 10.25,
	// the others 1 + 4·1000/100 = 41; their mean 25.625, imbalance
	// 15.375 > ε. The cycle's 4 rounds split the 4 s into 1 s each.
	stats, _ := pl.Stats(speeds)
	dec, err := planner.Plan(migrate.Barrier{Now: 100 * time.Millisecond, Workers: stats, Remaining: 4 * time.Second})
	if err != nil {
		panic(err)
	}
	fmt.Printf("Eq. 8 imbalance %.2f, round %d of a cycle with splits of %v\n", dec.Imbalance, dec.Round, dec.Split)
	for _, p := range dec.Pairs {
		fmt.Printf("pair: Δ = %.1f → %d points per source worker, β = %.2f\n", p.Delta, p.Points, p.Beta)
	}
	fmt.Println("transfers:", dec.Transfers)

	// Eq. 9 with D = 1 − 0.25: Δ = (0.75·100·100 + 1·(1000·100 −
	// 250·100)) / (0.75·100 + 1·(250/3 + 1000)) ≈ 71.2; the three fast
	// workers share the 71 points.
	//
	// Migrate: windows go out one at a time; the runtime delivers each.
	// They take the points worker 0 has not trained yet, from the bottom.
	_ = pl.SetPlan(dec.Transfers)
	for {
		win, ok, _ := pl.OpenWindow(0)
		if !ok {
			break
		}
		fmt.Printf("window %d→%d: %d points, first %v\n", win.From, win.To, len(win.Points), win.Points[0])
		_ = pl.Deliver(win.ID)
	}
	for w := range speeds {
		l, _ := pl.Load(w)
		fmt.Printf("worker %d: %d points (%d queued), passes %.3f\n", w, l.Owned, l.Queued, l.Passes)
	}
	// The next points worker 1 trains: the received ones first.
	buf, _ = pl.Next(buf[:0], 1, 3)
	fmt.Println("worker 1 next:", buf)
	// Output:
	// Eq. 8 imbalance 15.38, round 1 of a cycle with splits of 1s
	// pair: Δ = 71.2 → 71 points per source worker, β = 0.33
	// transfers: [{0 1 24 0} {0 2 24 0} {0 3 23 0}]
	// window 0→1: 24 points, first 0/99
	// window 0→2: 24 points, first 0/75
	// window 0→3: 23 points, first 0/51
	// worker 0: 29 points (0 queued), passes 0.862
	// worker 1: 124 points (24 queued), passes 0.806
	// worker 2: 124 points (24 queued), passes 0.806
	// worker 3: 123 points (23 queued), passes 0.813
	// worker 1 next: [0/99 0/98 0/97]
}

// Eq. 9 for a slow super-worker of 4 and a fast one of 12 that is one
// pass ahead, over a time split of 2 s.
func ExampleEq9() {
	slow := migrate.Group{Workers: []int{0, 1, 2, 3}, Passes: 1, Speed: 250, Size: 256}
	fast := migrate.Group{Workers: []int{4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}, Passes: 2, Speed: 1000, Size: 256}
	delta, compensation := migrate.Eq9(slow, fast, 2*time.Second)
	fmt.Printf("each slow worker gives %.2f points, each fast one gets %.2f (compensation case: %v)\n", delta, delta/3, compensation)
	// Output:
	// each slow worker gives 185.55 points, each fast one gets 61.85 (compensation case: false)
}

// Reversing a migration flips marks: no data moves.
func ExamplePlacement_OpenWindow() {
	pl, _ := migrate.NewPlacement([]int{10, 10}, migrate.PlacementConfig{WindowSize: 4})
	_ = pl.SetPlan([]migrate.Transfer{{From: 0, To: 1, Points: 4}})
	win, _, _ := pl.OpenWindow(0)
	fmt.Println("out:", win.Points, "virtual", win.Virtual)
	_ = pl.Deliver(win.ID)

	_ = pl.SetPlan([]migrate.Transfer{{From: 1, To: 0, Points: 4}})
	win, _, _ = pl.OpenWindow(1)
	fmt.Println("back:", win.Points, "virtual", win.Virtual)
	_ = pl.Deliver(win.ID)
	data, virtual := pl.Moved()
	fmt.Printf("moved with data %d, by flips %d\n", data, virtual)
	// Output:
	// out: [0/9 0/8 0/7 0/6] virtual 0
	// back: [0/6 0/7 0/8 0/9] virtual 4
	// moved with data 4, by flips 4
}
