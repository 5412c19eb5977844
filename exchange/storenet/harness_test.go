package storenet_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/syncmodels/syncmodels/algorithms"
	"github.com/syncmodels/syncmodels/arrival"
	"github.com/syncmodels/syncmodels/consistency"
	"github.com/syncmodels/syncmodels/exchange"
	"github.com/syncmodels/syncmodels/exchange/redisx"
	"github.com/syncmodels/syncmodels/exchange/redisx/redistest"
	"github.com/syncmodels/syncmodels/exchange/storenet"
	"github.com/syncmodels/syncmodels/harness"
	"github.com/syncmodels/syncmodels/transport"
	"github.com/syncmodels/syncmodels/workload"
)

// lrSpec is the workload of the runtime tests (as package cluster's).
var lrSpec = workload.Spec{Algo: "lr", Data: "synthetic:logistic", N: 4000, Dim: 10, Seed: 1}

// models are the sync models every runtime test covers (as
// cluster.TestEverySyncModelOverGRPC).
var models = []string{"bsp", "ssp:1", "asp", "quorum:3", "fsp:20ms", "kgroup:4"}

// experiment is a goroutine-runtime experiment of 4 workers over the
// network net makes.
func experiment(t testing.TB, sync string, d time.Duration, net func(algorithms.Layout) (transport.Transport, error)) harness.Experiment {
	t.Helper()
	alg, _, err := workload.Open(lrSpec.WithDefaults())
	if err != nil {
		t.Fatal(err)
	}
	e := harness.Experiment{Algorithm: alg, Sync: consistency.MustParse(sync), Workers: 4, Batch: 100, Seed: 3,
		Clock: harness.Real, Duration: d, Retry: 10 * time.Millisecond, Lease: 300 * time.Millisecond, Network: net}
	if e.Sync.Kind == consistency.KGroup {
		// Streams of 2,000 points a second per worker: 20 batches of 100.
		e.Arrivals = &arrival.Spec{Rate: 2000}
	}
	return e
}

// storeNet returns a Network func over dial that keeps the last Network
// made in *last.
func storeNet(dial storenet.Dial, last **storenet.Network) func(algorithms.Layout) (transport.Transport, error) {
	return func(l algorithms.Layout) (transport.Transport, error) {
		n, err := storenet.New(storenet.Config{Layout: l, Dial: dial})
		*last = n
		return n, err
	}
}

// Every sync model runs on goroutines over the store — the in-process
// one and a real Redis — and passes the checker (harness.Run checks);
// nothing is lost on the way.
func TestEverySyncModelOverMemory(t *testing.T) {
	for _, model := range models {
		t.Run(model, func(t *testing.T) {
			everyModel(t, model, storenet.MemoryDial(exchange.NewMemory(), "job", exchange.Limits{}))
		})
	}
}

func TestEverySyncModelOverRedis(t *testing.T) {
	srv := redistest.Start(t)
	for _, model := range models {
		t.Run(model, func(t *testing.T) {
			everyModel(t, model, storenet.RedisDial(srv.URL(), redisx.Config{Namespace: "every-" + model}))
		})
	}
}

func everyModel(t *testing.T, model string, dial storenet.Dial) {
	var net *storenet.Network
	e := experiment(t, model, 400*time.Millisecond, storeNet(dial, &net))
	res, err := harness.Run(context.Background(), e)
	if err != nil {
		t.Fatal(err)
	}
	if res.Versions < 3 || res.Rejected != 0 || res.Expired != 0 {
		t.Fatalf("%d versions, %d messages rejected, %d leases expired", res.Versions, res.Rejected, res.Expired)
	}
	tot := net.Stats().Total()
	sent, recv, drop := tot.Sent.Total(), tot.Received.Total(), tot.Dropped.Total()
	if sent.Messages != res.Messages || sent.Messages == 0 {
		t.Errorf("the network sent %d messages, the run reports %d", sent.Messages, res.Messages)
	}
	// The run closed the network: every message was received or dropped
	// (still in an inbox when its node closed: a last heartbeat, a
	// stop's repeat), and the store lost none.
	if recv.Messages+drop.Messages != sent.Messages || recv.Bytes+drop.Bytes != sent.Bytes {
		t.Errorf("sent %+v, received %+v, dropped %+v: some messages are unaccounted for", sent, recv, drop)
	}
	if l := net.Losses(); len(l) != 0 {
		t.Errorf("losses without a store fault: %v", l)
	}
	t.Logf("%d versions, %d messages (%d bytes, %d dropped at the close), %d store requests", res.Versions, sent.Messages, sent.Bytes, drop.Messages, net.StoreStats().Requests)
}

// redis-server is killed (SIGKILL) mid-run and restarted empty. Every
// endpoint's store client finds the epoch gone (the epoch check of every
// call), adopts the new one and reads its inbox from the new epoch's
// first note: the messages that were in the inboxes, unread, are lost,
// and the Network says which (Loss, Stats.Dropped). Commits are
// retransmitted until acknowledged, releases re-sent on the workers'
// heartbeats, and the coordinator refuses a commit it already applied:
// the run goes on and passes the checker — no delta lost, none applied
// twice. With an outage longer than a lease (the server down 500 ms
// before it restarts), the coordinator expires the workers, which
// rejoin as their next incarnation.
func TestRedisRestartMidRun(t *testing.T) {
	srv := redistest.Start(t)
	for _, c := range []struct {
		model  string
		outage time.Duration // between the kill and the restart
	}{{"bsp", 0}, {"asp", 0}, {"bsp", 500 * time.Millisecond}} {
		name := c.model
		if c.outage > 0 {
			name += "/outage"
		}
		t.Run(name, func(t *testing.T) {
			var net *storenet.Network
			var mu sync.Mutex
			var losses []storenet.Loss
			dial := storenet.RedisDial(srv.URL(), redisx.Config{Namespace: "restart-" + strings.ReplaceAll(name, "/", "-")})
			d := 1500 * time.Millisecond
			if c.outage > 0 {
				d = 2500 * time.Millisecond // the outage, the expiries, the rejoins, and progress after
			}
			e := experiment(t, c.model, d, func(l algorithms.Layout) (transport.Transport, error) {
				n, err := storenet.New(storenet.Config{Layout: l, Dial: dial, OnLoss: func(l storenet.Loss) {
					mu.Lock()
					losses = append(losses, l)
					mu.Unlock()
				}})
				net = n
				return n, err
			})
			// A restart (tens of milliseconds here) is shorter than a
			// lease: the run rides it out on retransmissions. The outage
			// is longer than a lease.
			e.Lease = time.Second
			if c.outage > 0 {
				e.Lease = 300 * time.Millisecond
			}
			var once sync.Once
			var atKill atomic.Int64
			restarted := make(chan struct{})
			e.Progress = func(p harness.Progress) {
				if p.Elapsed < e.Duration/3 {
					return
				}
				once.Do(func() {
					atKill.Store(int64(p.Version))
					go func() {
						defer close(restarted)
						if c.outage > 0 {
							srv.Kill()
							time.Sleep(c.outage)
						}
						srv.Restart()
					}()
				})
			}
			res, err := harness.Run(context.Background(), e)
			<-restarted
			if err != nil {
				t.Fatalf("after a Redis restart: %v", err)
			}
			mu.Lock()
			defer mu.Unlock()
			restarts := map[transport.NodeID]bool{}
			var lost transport.ByKind
			unsent := 0
			for _, l := range losses {
				switch l.Kind {
				case storenet.Restart:
					t.Log(l)
					restarts[l.Node] = true
					lost.Add(&l.Messages)
				case storenet.Unsent:
					unsent++
				}
			}
			// Every node reads its inbox, so each finds the loss.
			if len(restarts) != e.Workers+1 {
				t.Errorf("restart losses reported for %d nodes, want %d (every worker and the coordinator)", len(restarts), e.Workers+1)
			}
			tot := net.Stats().Total()
			sent, recv, drop := tot.Sent.Total(), tot.Received.Total(), tot.Dropped.Total()
			if recv.Messages+drop.Messages != sent.Messages {
				t.Errorf("sent %d, received %d, dropped %d: some messages are unaccounted for", sent.Messages, recv.Messages, drop.Messages)
			}
			if drop.Messages < lost.Total().Messages+int64(unsent) {
				t.Errorf("Stats.Dropped %d < %d messages the restart lost + %d unsent", drop.Messages, lost.Total().Messages, unsent)
			}
			kill := consistency.Version(atKill.Load())
			if res.Versions < kill+5 {
				t.Fatalf("%d versions at the kill, %d at the end: the run did not go on", kill, res.Versions)
			}
			if c.outage > 0 && (res.Expired == 0 || res.Rejoins == 0) {
				t.Errorf("an outage of %v, lease %v: %d leases expired, %d rejoins; want some of each", c.outage, e.Lease, res.Expired, res.Rejoins)
			}
			t.Logf("%s: %d versions at the kill, %d at the end; the restart lost %d messages in the inboxes (%s), %d more could not be sent; %d leases expired, %d rejoins, %d messages rejected",
				name, kill, res.Versions, lost.Total().Messages, kinds(lost), unsent, res.Expired, res.Rejoins, res.Rejected)
		})
	}
}

func kinds(k transport.ByKind) string {
	s := ""
	for _, kind := range transport.Kinds() {
		if c := k[kind].Messages; c > 0 {
			if s != "" {
				s += ", "
			}
			s += fmt.Sprintf("%d %v", c, kind)
		}
	}
	if s == "" {
		return "none"
	}
	return s
}
