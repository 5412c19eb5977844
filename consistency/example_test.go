package consistency_test

import (
	"fmt"

	"github.com/syncmodels/syncmodels/consistency"
)

// A driver feeds events to a model and carries out its effects. Here two
// workers run SSP with staleness 0: worker 0 commits twice in a row but may
// not start its second clock until worker 1 has committed its first.
func Example() {
	m, err := consistency.New(consistency.MustParse("ssp:0"),
		consistency.Config{Workers: []consistency.WorkerID{0, 1}, Batch: 100})
	if err != nil {
		panic(err)
	}
	show := func(ev consistency.Event) {
		effs, err := m.Step(ev)
		if err != nil {
			fmt.Println("error:", err)
			return
		}
		fmt.Printf("%v:\n", ev)
		for _, e := range effs {
			fmt.Println("  ", e)
		}
	}
	show(consistency.Event{Kind: consistency.EvStart})
	show(consistency.Event{Kind: consistency.EvCommit, Worker: 0, Seq: 1, Version: 0, Points: 100})
	show(consistency.Event{Kind: consistency.EvCommit, Worker: 1, Seq: 1, Version: 0, Points: 100})
	// Output:
	// start:
	//    release w0 v=0 clock=0 budget=100
	//    release w1 v=0 clock=0 budget=100
	// commit w0 seq=1 v=0 points=100:
	//    apply v=1 [w0#1]
	//    block w0 waiting=[1]
	// commit w1 seq=1 v=0 points=100:
	//    apply v=2 [w1#1]
	//    release w0 v=2 clock=1 budget=100
	//    release w1 v=2 clock=1 budget=100
}

// ISP's spec: the significance threshold v, 0.7 by default (MLLess
// §6.3.1), and the threshold of each step, v/√(t+1).
func ExampleParse_isp() {
	for _, s := range []string{"isp", "isp:0.25", "isp:0"} {
		spec, err := consistency.Parse(s)
		if err != nil {
			panic(err)
		}
		fmt.Printf("%-8s → %v: v_0 = %g, v_3 = %g\n", s, spec, consistency.ISPThreshold(spec.Threshold, 0), consistency.ISPThreshold(spec.Threshold, 3))
	}
	// Output:
	// isp      → isp:0.7: v_0 = 0.7, v_3 = 0.35
	// isp:0.25 → isp:0.25: v_0 = 0.25, v_3 = 0.125
	// isp:0    → isp:0: v_0 = 0, v_3 = 0
}
