package migrate

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"
)

// benchStats: n workers with seeded statistics. grouped: a quarter are 4×
// slower stragglers and the rest share one speed, so they form two
// super-workers; otherwise every worker's speed differs (K = n).
func benchStats(n int, grouped bool) []Stats {
	rng := rand.New(rand.NewPCG(uint64(n), 7))
	st := make([]Stats, n)
	for w := range st {
		speed := 1000.0
		if w < n/4 {
			speed = 250
		}
		if !grouped {
			speed *= 0.5 + rng.Float64()
		}
		st[w] = Stats{Passes: speed / 500, Speed: speed, Size: 4096}
	}
	return st
}

// BenchmarkPlan is one planning step at a barrier that starts a balancing
// cycle: validation, super-workers, the Eq. 8 test, pairing, Eq. 9 and
// the per-worker transfers.
func BenchmarkPlan(b *testing.B) {
	for _, n := range []int{16, 256} {
		for _, grouped := range []bool{true, false} {
			name := fmt.Sprintf("workers=%d/super-workers=%d", n, n)
			if grouped {
				name = fmt.Sprintf("workers=%d/super-workers=2", n)
			}
			b.Run(name, func(b *testing.B) {
				st := benchStats(n, grouped)
				base, err := NewPlanner(Config{})
				if err != nil {
					b.Fatal(err)
				}
				bar := Barrier{Now: time.Second, Workers: st, Remaining: 60 * time.Second}
				transfers := 0
				b.ReportAllocs()
				for b.Loop() {
					p := *base
					dec, err := p.Plan(bar)
					if err != nil || !dec.NewPlan {
						b.Fatal(err, dec.NewPlan)
					}
					transfers = len(dec.Transfers)
				}
				b.ReportMetric(float64(transfers), "transfers")
			})
		}
	}
}

// BenchmarkTrain is a worker asking for and training a chunk of 16
// points, with a quarter of its points received from another worker.
func BenchmarkTrain(b *testing.B) {
	p, err := NewPlacement([]int{4096, 4096}, PlacementConfig{})
	if err != nil {
		b.Fatal(err)
	}
	if err := p.SetPlan([]Transfer{{From: 0, To: 1, Points: 1024}}); err != nil {
		b.Fatal(err)
	}
	for {
		win, ok, _ := p.OpenWindow(0)
		if !ok {
			break
		}
		_ = p.Deliver(win.ID)
	}
	var buf []Point
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if i%256 == 0 {
			_ = p.BeginIteration(1)
		}
		buf, _ = p.Next(buf[:0], 1, 16)
		_ = p.Advance(1, len(buf))
	}
}
