package cluster_test

import (
	"context"
	"fmt"
	"net"
	"sync"
	"time"

	"github.com/syncmodels/syncmodels/cluster"
	"github.com/syncmodels/syncmodels/consistency"
	"github.com/syncmodels/syncmodels/harness"
	"github.com/syncmodels/syncmodels/transport/grpcnet"
	"github.com/syncmodels/syncmodels/workload"
)

// A coordinator and two workers over gRPC on loopback (plaintext: a
// single-host example; across hosts use jobtls and TLS). Here they are
// goroutines; in use, each worker is a process (syncbench worker).
func Example() {
	spec := workload.Spec{Algo: "lr", Data: "synthetic:logistic", N: 1000, Dim: 5, Seed: 1}.WithDefaults()
	alg, data, err := workload.Open(spec)
	if err != nil {
		panic(err)
	}
	e := harness.Experiment{Algorithm: alg, Sync: consistency.MustParse("bsp"), Workers: 2, Batch: 50, Seed: 7,
		Clock: harness.Real, Duration: time.Minute, Stop: harness.Stop{MaxIterations: 5}}
	job, err := cluster.NewJob(spec, e, data)
	if err != nil {
		panic(err)
	}
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	var wg sync.WaitGroup
	for id := range e.Workers {
		w := &cluster.Worker{Target: lis.Addr().String(), ID: id, Net: grpcnet.Config{Plaintext: true}}
		wg.Go(func() {
			if _, err := w.Run(context.Background()); err != nil {
				panic(err)
			}
		})
	}
	c := &cluster.Coordinator{Experiment: e, Job: job, Net: grpcnet.Config{Plaintext: true}}
	rep, err := c.Run(context.Background(), lis) // checked by consistency.Check
	wg.Wait()
	if err != nil {
		panic(err)
	}
	fmt.Printf("%d versions; %d shards hashed; %d streams refused\n", rep.Versions, len(job.ShardHashes), rep.Refused.Total())
	// Output: 5 versions; 2 shards hashed; 0 streams refused
}
