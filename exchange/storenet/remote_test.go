package storenet_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/syncmodels/syncmodels/algorithms"
	"github.com/syncmodels/syncmodels/consistency"
	"github.com/syncmodels/syncmodels/exchange/redisx"
	"github.com/syncmodels/syncmodels/exchange/redisx/redistest"
	"github.com/syncmodels/syncmodels/exchange/storenet"
	"github.com/syncmodels/syncmodels/harness"
	"github.com/syncmodels/syncmodels/transport"
)

// readyNet closes ready once the coordinator's endpoint is open.
type readyNet struct {
	transport.Transport
	ready chan struct{}
}

func (n *readyNet) Open(id transport.NodeID) (transport.Endpoint, error) {
	ep, err := n.Transport.Open(id)
	if id == transport.Coordinator && err == nil {
		close(n.ready)
	}
	return ep, err
}

// Workers in other processes (harness.RunWorker, each over a Network of
// its own, as a worker process would make) and the coordinator share
// nothing but a Redis namespace: they find each other through the store's
// registry, and BSP and K-grouping run and pass the checker on the
// coordinator's side, every delta a worker sent accepted or abandoned on
// the worker's. Worker processes started before the coordinator's wait
// for it (workers-first).
func TestRemoteWorkersOverRedis(t *testing.T) {
	srv := redistest.Start(t)
	for _, model := range []string{"bsp", "kgroup:4", "bsp-workers-first"} {
		t.Run(model, func(t *testing.T) {
			model, first := strings.CutSuffix(model, "-workers-first")
			dial := storenet.RedisDial(srv.URL(), redisx.Config{Namespace: "remote-" + model})
			ready := make(chan struct{})
			e := experiment(t, model, 500*time.Millisecond, func(l algorithms.Layout) (transport.Transport, error) {
				n, err := storenet.New(storenet.Config{Layout: l, Dial: dial})
				return &readyNet{n, ready}, err
			})
			e.Remote = true
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			results := make([]*harness.WorkerResult, e.Workers)
			errs := make([]error, e.Workers)
			var wg sync.WaitGroup
			for i := range e.Workers {
				wg.Go(func() {
					n := newNet(t, storenet.Config{Layout: e.Algorithm.Layout(), Dial: dial}) // the worker's process
					defer n.Close()
					if !first {
						<-ready
					}
					ep, err := n.Open(transport.NodeID(i))
					if err != nil {
						errs[i] = err
						return
					}
					results[i], errs[i] = harness.RunWorker(ctx, e, ep, harness.WorkerOptions{ID: i})
				})
			}
			if first {
				// The workers' processes start first: their Joins meet a
				// store with no coordinator registered.
				time.Sleep(200 * time.Millisecond)
			}
			res, err := harness.Run(ctx, e)
			cancel()
			wg.Wait()
			if err != nil {
				t.Fatal(err)
			}
			if res.Versions < 3 || res.Rejected != 0 {
				t.Fatalf("%d versions, %d rejected", res.Versions, res.Rejected)
			}
			accepted := map[consistency.DeltaID]bool{}
			for _, r := range res.Trace.Records {
				if r.Kind == consistency.RecCommit {
					accepted[consistency.DeltaID{Worker: r.Worker, Seq: r.Seq}] = true
				}
			}
			for i, r := range results {
				if errs[i] != nil {
					t.Fatalf("worker %d: %v", i, errs[i])
				}
				sent := map[consistency.DeltaID]bool{}
				for _, rec := range r.Recorder.Trace().Records {
					id := consistency.DeltaID{Worker: rec.Worker, Seq: rec.Seq}
					switch rec.Kind {
					case consistency.RecSend:
						sent[id] = true
					case consistency.RecAbandon:
						delete(sent, id)
					}
				}
				if len(sent) == 0 {
					t.Errorf("worker %d sent nothing", i)
				}
				for id := range sent {
					if !accepted[id] {
						t.Errorf("worker %d: %v sent, neither accepted nor abandoned", i, id)
					}
				}
			}
			t.Logf("%s: %d versions, %d messages from the coordinator's process", model, res.Versions, res.Messages)
		})
	}
}
