package harness_test

import (
	"context"
	"math/rand/v2"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/syncmodels/syncmodels/algorithms"
	"github.com/syncmodels/syncmodels/consistency"
	"github.com/syncmodels/syncmodels/harness"
	"github.com/syncmodels/syncmodels/transport"
	"github.com/syncmodels/syncmodels/transport/inproc"
)

// replayNet records every commit the workers send and, from a goroutine
// of its own, sends old ones again in a seeded shuffle, each three
// times, on the workers' endpoints: duplicated, reordered and stale
// messages, as a network that replays packets delivers them.
type replayNet struct {
	transport.Transport
	l        algorithms.Layout
	mu       sync.Mutex
	sent     [][]byte // encoded commits, in sending order
	eps      map[transport.NodeID]transport.Endpoint
	injected atomic.Int64
}

func (n *replayNet) Open(id transport.NodeID) (transport.Endpoint, error) {
	ep, err := n.Transport.Open(id)
	if err != nil || id == transport.Coordinator {
		return ep, err
	}
	n.mu.Lock()
	n.eps[id] = ep
	n.mu.Unlock()
	return &recordingEndpoint{Endpoint: ep, n: n}, nil
}

type recordingEndpoint struct {
	transport.Endpoint
	n *replayNet
}

func (e *recordingEndpoint) Send(ctx context.Context, m *transport.Message) error {
	if m.Kind == transport.Commit {
		c := *m
		c.From = e.ID()
		b, err := c.AppendBinary(nil) // a copy: the worker reuses its delta
		if err != nil {
			return err
		}
		e.n.mu.Lock()
		e.n.sent = append(e.n.sent, b)
		e.n.mu.Unlock()
	}
	return e.Endpoint.Send(ctx, m)
}

// inject sends total old commits (a third of them distinct, each three
// times, shuffled), in batches, until done or ctx ends.
func (n *replayNet) inject(ctx context.Context, total int, seed uint64) {
	rng := rand.New(rand.NewPCG(seed, 7))
	for n.injected.Load() < int64(total) && ctx.Err() == nil {
		n.mu.Lock()
		var batch [][]byte
		for range 100 {
			if len(n.sent) > 0 {
				b := n.sent[rng.IntN(len(n.sent))]
				batch = append(batch, b, b, b)
			}
		}
		n.mu.Unlock()
		rng.Shuffle(len(batch), func(i, j int) { batch[i], batch[j] = batch[j], batch[i] })
		for _, b := range batch {
			m, err := transport.Unmarshal(b, n.l)
			if err != nil {
				panic(err)
			}
			n.mu.Lock()
			ep := n.eps[m.From]
			n.mu.Unlock()
			if ep.Send(ctx, m) == nil {
				n.injected.Add(1)
			}
		}
		time.Sleep(100 * time.Microsecond) // a round's time: replays spread over the run
	}
}

// RELIABILITY.md's checklist item 6: old commits, each sent three times
// in a shuffle (duplicated, reordered and stale messages), during a BSP
// run change nothing: every delta is applied once (the checker), the
// coordinator accepts exactly the commits the workers made, and θ is bit
// for bit the run's without them. The README's command replays 3,000
// (9,000 messages) under -race; the long check, the checklist's 10,000
// (30,000 messages).
func TestReplayedCommitsChangeNothing(t *testing.T) { testReplayed(t, 3000) }

// TestLongReplayedCommits is TestReplayedCommitsChangeNothing with the
// checklist's 10,000 replayed commits (SYNCMODELS_LONG=1).
func TestLongReplayedCommits(t *testing.T) {
	if os.Getenv("SYNCMODELS_LONG") != "1" {
		t.Skip("a long check: set SYNCMODELS_LONG=1")
	}
	testReplayed(t, 10000)
}

func testReplayed(t *testing.T, replays int) {
	for _, alg := range []algorithms.Algorithm{logisticLR(t), blobsKMeans(t, 2000)} {
		synctest.Test(t, func(t *testing.T) {
			e := memberExp(alg, "bsp")
			e.Duration, e.Stop.MaxIterations = time.Hour, 300
			want, err := harness.Run(context.Background(), e)
			if err != nil {
				t.Fatal(err)
			}
			tr, err := inproc.New(inproc.Config{Layout: alg.Layout(), Seed: 1, Delay: 100 * time.Microsecond})
			if err != nil {
				t.Fatal(err)
			}
			net := &replayNet{Transport: tr, l: alg.Layout(), eps: map[transport.NodeID]transport.Endpoint{}}
			e.Network = func(algorithms.Layout) (transport.Transport, error) { return net, nil }
			ctx, cancel := context.WithCancel(context.Background())
			var wg sync.WaitGroup
			e.OnStart = func(time.Time) { wg.Go(func() { net.inject(ctx, 3*replays, 1) }) }
			got, err := harness.Run(context.Background(), e)
			cancel()
			wg.Wait()
			if err != nil {
				t.Fatal(err) // Check found a delta applied twice, or the run failed
			}
			commits := 0
			for _, r := range got.Trace.Records {
				if r.Kind == consistency.RecCommit {
					commits++
				}
			}
			sends := 0
			for _, r := range got.Trace.Records {
				if r.Kind == consistency.RecSend {
					sends++
				}
			}
			if n := net.injected.Load(); n < int64(3*replays) {
				t.Fatalf("only %d replays were sent before the run ended; want %d", n, 3*replays)
			}
			if commits != sends || got.Versions != want.Versions || !slices.Equal(got.Theta, want.Theta) {
				t.Fatalf("%s: %d commits accepted of %d sent; %d versions (want %d); θ equal to the run without replays: %v",
					alg.Name(), commits, sends, got.Versions, want.Versions, slices.Equal(got.Theta, want.Theta))
			}
			t.Logf("%s: %d replayed messages, %d commits accepted (= sent), θ unchanged", alg.Name(), net.injected.Load(), commits)
		})
	}
}
