package cost

import (
	"math/rand/v2"
	"testing"
	"time"
)

// naiveBilled is a deliberately simple reference for Billing.Billed: raise
// to the minimum, then add whole granules until the lifetime is covered.
func naiveBilled(b Billing, d time.Duration) time.Duration {
	if d == 0 {
		return 0
	}
	if d < b.Minimum {
		d = b.Minimum
	}
	if b.Granularity <= 1 {
		return d
	}
	var billed time.Duration
	for billed < d {
		billed += b.Granularity
	}
	return billed
}

func TestBilledMatchesNaive(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	grans := []time.Duration{0, 1, 7, 100 * time.Millisecond, time.Second}
	for range 20000 {
		b := Billing{Granularity: grans[rng.IntN(len(grans))]}
		if rng.IntN(3) == 0 {
			b.Minimum = time.Duration(rng.Int64N(int64(3 * time.Second)))
		}
		d := time.Duration(rng.Int64N(int64(10 * time.Second)))
		if b.Granularity < time.Millisecond {
			// Keep the reference's loop short.
			d, b.Minimum = d/time.Second, b.Minimum/time.Second
		}
		got, err := b.Billed(d)
		if want := naiveBilled(b, d); err != nil || got != want {
			t.Fatalf("%+v.Billed(%v) = %v, %v; want %v", b, d, got, err, want)
		}
	}
}

// TestBillingOrderProperty: for any lifetime, exact ≤ per 100 ms ≤ per
// second ≤ per hour, all ≥ 0, each is non-decreasing in the lifetime, and
// the billed cost never falls short of the exact cost.
func TestBillingOrderProperty(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	price := DollarsPerSecond(3.4e-5)
	models := []Billing{Exact(), Per100ms(), PerSecond(), PerHour()}
	res := make([]Resource, len(models))
	for i, b := range models {
		res[i] = Resource{Name: "w", Kind: FaaS, Price: price, Billing: b}
	}
	prev := make([]float64, len(models))
	var d time.Duration
	for range 5000 {
		// Mostly small steps, sometimes big ones, sometimes none.
		switch rng.IntN(4) {
		case 0:
			d += time.Duration(rng.Int64N(int64(2 * time.Hour)))
		case 1:
		default:
			d += time.Duration(rng.Int64N(int64(300 * time.Millisecond)))
		}
		start := time.Duration(rng.Int64N(int64(time.Hour)))
		costs := make([]float64, len(models))
		for i, r := range res {
			c, err := r.Cost(Interval{start, start + d})
			if err != nil {
				t.Fatalf("%+v.Cost(%v) error %v", r.Billing, d, err)
			}
			costs[i] = c
			if c < 0 {
				t.Fatalf("%+v.Cost(%v) = %v < 0", r.Billing, d, c)
			}
			if c < prev[i] {
				t.Fatalf("%+v.Cost not monotone: %v at %v after %v", r.Billing, c, d, prev[i])
			}
			prev[i] = c
		}
		exact := price.For(d)
		if costs[0] != exact {
			t.Fatalf("exact cost of %v = %v; want %v", d, costs[0], exact)
		}
		for i := 1; i < len(costs); i++ {
			if costs[i] < costs[i-1] {
				t.Fatalf("lifetime %v: %+v cost %v < %+v cost %v", d, models[i].Granularity, costs[i], models[i-1].Granularity, costs[i-1])
			}
		}
	}
}

// TestBillAtMonotone: a random ledger's BillAt is non-decreasing in time,
// equals Bill once everything has stopped, and its per-kind totals add up.
func TestBillAtMonotone(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	tr, err := NewTrace([]Point{{0, 0.1}, {20 * sec, 0.3}, {40 * sec, 0.05}, {70 * sec, 0.2}})
	if err != nil {
		t.Fatal(err)
	}
	for trial := range 50 {
		var l Ledger
		models := []Billing{{}, Per100ms(), PerSecond(), PerHour(), PerSecond().WithMinimum(time.Minute)}
		var last time.Duration
		for i := range 8 {
			r := Resource{Name: WorkerName(i), Kind: Kind(1 + rng.IntN(3)), Billing: models[rng.IntN(len(models))]}
			if r.Kind == Spot {
				r.Trace = tr
			} else {
				r.Price = DollarsPerHour(rng.Float64())
			}
			if err := l.Add(r); err != nil {
				t.Fatal(err)
			}
			at := time.Duration(rng.Int64N(int64(10 * time.Second)))
			for range 1 + rng.IntN(4) {
				stop := at + time.Duration(rng.Int64N(int64(30*time.Second)))
				if err := l.Record(r.Name, at, stop); err != nil {
					t.Fatal(err)
				}
				last = max(last, stop)
				at = stop + time.Duration(rng.Int64N(int64(5*time.Second)))
			}
		}
		prev := -1.0
		for at := time.Duration(0); at <= last+time.Second; at += 37 * time.Millisecond {
			b, err := l.BillAt(at)
			if err != nil {
				t.Fatal(err)
			}
			if b.Total < prev {
				t.Fatalf("trial %d: BillAt(%v) = %v < %v earlier", trial, at, b.Total, prev)
			}
			prev = b.Total
		}
		full, err := l.Bill()
		if err != nil {
			t.Fatal(err)
		}
		end, _ := l.BillAt(last)
		if end.Total != full.Total {
			t.Fatalf("trial %d: BillAt(last) = %v; Bill = %v", trial, end.Total, full.Total)
		}
		sum := full.ByKind(FaaS) + full.ByKind(VM) + full.ByKind(Spot)
		if !closeTo(sum, full.Total) {
			t.Fatalf("trial %d: kinds sum to %v; total %v", trial, sum, full.Total)
		}
	}
}

// TestDeterministic: the same operations give bit-identical bills.
func TestDeterministic(t *testing.T) {
	run := func() Bill {
		rs, _ := MLLess(24, Options{})
		var l Ledger
		_ = l.Add(rs...)
		for i, r := range rs {
			_ = l.Record(r.Name, time.Duration(i)*ms(13), 100*sec-time.Duration(i)*ms(71))
		}
		b, _ := l.Bill()
		return b
	}
	a, b := run(), run()
	if a.Total != b.Total || a.ByKind(FaaS) != b.ByKind(FaaS) {
		t.Errorf("two identical runs billed %v and %v", a.Total, b.Total)
	}
}
