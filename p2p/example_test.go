package p2p_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/syncmodels/syncmodels/algorithms/logreg"
	"github.com/syncmodels/syncmodels/algorithms/optim"
	"github.com/syncmodels/syncmodels/dataset"
	"github.com/syncmodels/syncmodels/exchange"
	"github.com/syncmodels/syncmodels/filter"
	"github.com/syncmodels/syncmodels/p2p"
)

// Three peers train logistic regression through the in-process store,
// synchronously, publishing QSGD-quantised gradients; peer 2 computes at
// half speed, so the others wait for it at every barrier. The checker
// finds every round averaged by every peer; then the same peers run
// asynchronously: nobody waits, and the checker reports how stale the
// updates they averaged were (their round minus the update's), and that
// the slow peer's last updates came after the others had finished.
func Example() {
	data, _ := dataset.Logistic(rand.New(rand.NewPCG(1, 2)), 300, 20)
	alg, err := logreg.NewDense(data, logreg.Config{Optim: optim.Config{Method: optim.SGD, LR: 0.5}})
	if err != nil {
		panic(err)
	}
	for _, mode := range []p2p.Mode{p2p.Sync, p2p.Async} {
		cfg := p2p.Config{
			Alg: alg, Peers: 3, Mode: mode, Rounds: 8, Batch: 25, QSGD: &filter.QSGD{}, Seed: 1,
			Cost: p2p.CostModel{
				PerPoint: time.Millisecond, RTT: 2 * time.Millisecond, Bandwidth: 1e6,
				Slow: []p2p.Slowdown{{}, {}, {Compute: 2}},
			},
		}
		res, err := p2p.Run(context.Background(), cfg, p2p.MemoryOpener(exchange.NewMemory(), "example"))
		if err != nil {
			panic(err)
		}
		st, err := p2p.Check(res.Trace)
		if err != nil {
			panic(err)
		}
		first, last := res.Curve[0], res.Curve[len(res.Curve)-1]
		compute, comm, wait := res.PerEpoch()
		written, _, requests := res.Totals()
		fmt.Printf("%v: %v for %.0f epochs (per epoch: compute %v, comm %v, wait %v)\n", mode, res.Time, res.Epochs, compute, comm, wait)
		fmt.Printf("  objective %.3f → %.3f; %d requests, %d bytes written\n", first.Objective, last.Objective, requests, written)
		fmt.Printf("  averages %d, staleness %v, unread %v\n", st.Averages, st.Staleness, st.Unread)
	}
	// Output:
	// sync: 513.704ms for 2 epochs (per epoch: compute 133.333333ms, comm 56.852ms, wait 65.998333ms)
	//   objective 0.648 → 0.509; 168 requests, 1320 bytes written
	//   averages 24, staleness map[0:48], unread []
	// async: 449.512ms for 2 epochs (per epoch: compute 133.333333ms, comm 24.737666ms, wait 0s)
	//   objective 0.650 → 0.511; 72 requests, 1320 bytes written
	//   averages 24, staleness map[-3:4 -2:2 -1:2 0:18 1:2 2:2 3:2 4:2], unread [p2@5 overwritten by p2@6 before anyone read it p2@6 overwritten by p2@7 before anyone read it p2@7 overwritten by p2@8 before anyone read it p2@8 still unread at the end]
}
