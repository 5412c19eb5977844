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
