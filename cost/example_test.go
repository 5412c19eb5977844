package cost_test

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/syncmodels/syncmodels/cost"
)

// An MLLess run with 12 function workers, priced by MLLess Table 2. The
// scale-in auto-tuner evicts four workers at 60 s; the run reaches its
// target loss at 100 s.
func ExampleLedger() {
	rs, err := cost.MLLess(12, cost.Options{})
	if err != nil {
		panic(err)
	}
	var l cost.Ledger
	if err := l.Add(rs...); err != nil {
		panic(err)
	}
	for _, r := range rs {
		_ = l.Start(r.Name, 0)
	}
	for i := 8; i < 12; i++ {
		_ = l.Stop(cost.WorkerName(i), 60*time.Second) // scale-in
	}
	for _, r := range rs {
		if on, _ := l.Running(r.Name); on {
			_ = l.Stop(r.Name, 100*time.Second)
		}
	}
	b, err := l.Bill()
	if err != nil {
		panic(err)
	}
	fmt.Printf("functions $%.6f\n", b.ByKind(cost.FaaS))
	fmt.Printf("VMs       $%.6f\n", b.ByKind(cost.VM))
	fmt.Printf("total     $%.6f\n", b.Total)
	last := b.Lines[len(b.Lines)-1]
	fmt.Printf("%s ran %v, billed $%.6f\n", last.Resource.Name, last.Runtime, last.Cost)
	// Output:
	// functions $0.035360
	// VMs       $0.008889
	// total     $0.044249
	// worker-11 ran 1m0s, billed $0.002040
}

// Per-lifetime rounding under the billing models of the package.
func ExampleBilling_Billed() {
	d := 1010 * time.Millisecond
	for _, b := range []struct {
		name string
		b    cost.Billing
	}{
		{"exact", cost.Exact()},
		{"per 100 ms", cost.Per100ms()},
		{"per second", cost.PerSecond()},
		{"per hour", cost.PerHour()},
		{"per second, 60 s minimum", cost.PerSecond().WithMinimum(time.Minute)},
	} {
		billed, _ := b.b.Billed(d)
		fmt.Printf("%-25s %v\n", b.name, billed)
	}
	// Output:
	// exact                     1.01s
	// per 100 ms                1.1s
	// per second                2s
	// per hour                  1h0m0s
	// per second, 60 s minimum  1m0s
}

// Perf/$ of MLLess and PyTorch with 12 workers, each reaching the target
// loss at a made-up time, and the gain of one over the other. Per-second
// VM billing is the paper's convention; hourly billing makes PyTorch dearer.
func ExamplePerfPerDollar() {
	perf := func(rs []cost.Resource, elapsed time.Duration) (dollars, perf float64) {
		var l cost.Ledger
		_ = l.Add(rs...)
		for _, r := range rs {
			_ = l.Record(r.Name, 0, elapsed)
		}
		b, _ := l.Bill()
		p, _ := cost.PerfPerDollar(elapsed, b.Total)
		return b.Total, p
	}
	ml, _ := cost.MLLess(12, cost.Options{})
	pt, _ := cost.PyTorch(12, cost.Options{})
	ptHourly, _ := cost.PyTorch(12, cost.Options{VMBilling: cost.PerHour()})

	mlCost, mlPerf := perf(ml, 100*time.Second)
	ptCost, ptPerf := perf(pt, 400*time.Second)
	phCost, phPerf := perf(ptHourly, 400*time.Second)
	fmt.Printf("MLLess           $%.4f  Perf/$ %.4f\n", mlCost, mlPerf)
	fmt.Printf("PyTorch per s    $%.4f  Perf/$ %.4f\n", ptCost, ptPerf)
	fmt.Printf("PyTorch per hour $%.4f  Perf/$ %.4f\n", phCost, phPerf)
	g, _ := cost.Gain(mlPerf, ptPerf)
	fmt.Printf("gain %.2fX\n", g)
	// Output:
	// MLLess           $0.0497  Perf/$ 0.2013
	// PyTorch per s    $0.0667  Perf/$ 0.0375
	// PyTorch per hour $0.6000  Perf/$ 0.0042
	// gain 5.37X
}

// A spot instance billed over its available intervals against a price
// trace, compared with an on-demand instance running the whole time.
func ExampleParseTrace() {
	const csv = `seconds,price_per_hour
0,0.158
1800,0.170
3600,0.150
`
	tr, err := cost.ParseTrace(strings.NewReader(csv), "c5.xlarge.csv")
	if err != nil {
		panic(err)
	}
	var l cost.Ledger
	_ = l.Add(
		cost.Resource{Name: "spot-0", Kind: cost.Spot, Trace: tr, Billing: cost.PerSecond()},
		cost.Resource{Name: "od-0", Kind: cost.VM, Price: cost.DollarsPerHour(0.286), Billing: cost.PerSecond()},
	)
	// Available for the first 50 minutes, preempted, back from 1 h to 2 h.
	_ = l.Record("spot-0", 0, 50*time.Minute)
	_ = l.Record("spot-0", time.Hour, 2*time.Hour)
	_ = l.Record("od-0", 0, 2*time.Hour)
	b, _ := l.Bill()
	ratio, _ := cost.CostRatio(b.ByKind(cost.Spot), b.ByKind(cost.VM))
	fmt.Printf("spot      $%.4f over %v\n", b.ByKind(cost.Spot), b.Lines[0].Runtime)
	fmt.Printf("on demand $%.4f over %v\n", b.ByKind(cost.VM), b.Lines[1].Runtime)
	fmt.Printf("spot is %.1f%% of on demand\n", 100*ratio)

	_, err = cost.ParseTrace(strings.NewReader("0,0.158\n1800,abc\n"), "c5.xlarge.csv")
	fmt.Println(err)
	// Output:
	// spot      $0.2857 over 1h50m0s
	// on demand $0.5720 over 2h0m0s
	// spot is 49.9% of on demand
	// cost: c5.xlarge.csv:2: field 2 "abc": not a number: syntax error
}

// DOLL's effective price per hour of 64 workers, 54 of them preemptible
// with availability 0.9, at the §V-A prices.
func ExampleMixedRate() {
	od, spot := cost.DollarsPerHour(0.286), cost.DollarsPerHour(0.158)
	all, _ := cost.MixedRate(64, 0, 0.9, od, spot)
	mixed, _ := cost.MixedRate(10, 54, 0.9, od, spot)
	fmt.Printf("on demand only %.4f $/hour\n", all.Hourly())
	fmt.Printf("mixed          %.4f $/hour\n", mixed.Hourly())
	// Output:
	// on demand only 18.3040 $/hour
	// mixed          10.5388 $/hour
}

// A synthetic stand-in for DOLL's "high spot price" trace (§V-A): 90 days
// of c5.xlarge SUSE spot prices with mean 0.158 $/hour, traversed at
// 2000× as the paper does, so that it lasts 3,888 s of run time.
func ExampleGenerateSpot() {
	m := cost.DOLLHigh()
	tr, err := cost.GenerateSpot(m, 1)
	if err != nil {
		panic(err)
	}
	mean, _ := tr.Mean(0, m.Horizon)
	lo, hi := math.Inf(1), 0.0
	for _, p := range tr.Points() {
		lo, hi = min(lo, p.PerHour), max(hi, p.PerHour)
	}
	fmt.Printf("%d prices over %v, mean $%.3f/h, from $%.4f to $%.4f\n", tr.Len(), m.Horizon, mean, lo, hi)

	fast, err := tr.Speedup(2000)
	if err != nil {
		panic(err)
	}
	for _, p := range fast.Points()[:4] {
		fmt.Printf("from %-10v $%.4f/h\n", p.At.Round(time.Millisecond), p.PerHour)
	}
	// One spot instance up for the first hour of run time pays the
	// sped-up prices.
	c, _ := fast.Cost(0, time.Hour)
	fmt.Printf("first hour of run: $%.4f\n", c)
	// Output:
	// 82 prices over 2160h0m0s, mean $0.158/h, from $0.1523 to $0.1630
	// from 0s         $0.1580/h
	// from 16.755s    $0.1589/h
	// from 1m11.709s  $0.1598/h
	// from 1m24.934s  $0.1604/h
	// first hour of run: $0.1581
}
