package harness_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/syncmodels/syncmodels/algorithms/logreg"
	"github.com/syncmodels/syncmodels/algorithms/optim"
	"github.com/syncmodels/syncmodels/consistency"
	"github.com/syncmodels/syncmodels/dataset"
	"github.com/syncmodels/syncmodels/harness"
)

// BSP and ISP (MLLess §4.1) on MLLess's indirect communication (§3): the
// workers exchange updates through a shared store, and ISP's significance
// filter cuts the bytes they push and pull. Virtual time: the same seed
// gives the same numbers on any machine. The store is slow (2 MB/s), so
// the bytes saved are rounds gained.
func Example_iSPIndirect() {
	data, _ := dataset.Logistic(rand.New(rand.NewPCG(1, 1)), 4000, 20)
	alg, err := logreg.NewDense(data, logreg.Config{Optim: optim.Config{Method: optim.Adam, LR: 0.01}})
	if err != nil {
		panic(err)
	}
	for _, sync := range []string{"bsp", "isp:0", "isp:0.7"} {
		r, err := harness.Run(context.Background(), harness.Experiment{
			Algorithm: alg, Sync: consistency.MustParse(sync), Workers: 4, Batch: 50, Seed: 1,
			Duration: 100 * time.Millisecond,
			Indirect: &harness.StoreModel{RTT: time.Millisecond, Bandwidth: 2e6, Signal: time.Millisecond},
		})
		if err != nil {
			panic(err)
		}
		fmt.Printf("%-7s rounds %d, store PUTs %d, GETs %d, %d bytes\n", r.Sync, r.Versions, r.Store.Puts, r.Store.Gets, r.Store.Bytes)
	}
	// Output:
	// bsp     rounds 14, store PUTs 56, GETs 168, 38752 bytes
	// isp:0   rounds 14, store PUTs 56, GETs 168, 38752 bytes
	// isp:0.7 rounds 15, store PUTs 59, GETs 168, 11981 bytes
}
