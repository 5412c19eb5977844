package storenet_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/syncmodels/syncmodels/algorithms"
	"github.com/syncmodels/syncmodels/exchange"
	"github.com/syncmodels/syncmodels/exchange/redisx"
	"github.com/syncmodels/syncmodels/exchange/redisx/redistest"
	"github.com/syncmodels/syncmodels/exchange/storenet"
	"github.com/syncmodels/syncmodels/harness"
	"github.com/syncmodels/syncmodels/transport"
	"github.com/syncmodels/syncmodels/transport/inproc"
)

// networks returns the transports the benchmarks compare: the in-process
// network (the runtime's default), and storenet over the in-process store
// and over a real Redis (started for the benchmark; skipped without one).
func networks(b *testing.B) []struct {
	name string
	net  func(algorithms.Layout) (transport.Transport, error)
} {
	type nw = struct {
		name string
		net  func(algorithms.Layout) (transport.Transport, error)
	}
	out := []nw{
		{"inproc", func(l algorithms.Layout) (transport.Transport, error) { return inproc.New(inproc.Config{Layout: l}) }},
		{"memory", func(l algorithms.Layout) (transport.Transport, error) {
			return storenet.New(storenet.Config{Layout: l, Dial: storenet.MemoryDial(exchange.NewMemory(), "bench", exchange.Limits{})})
		}},
	}
	srv := redistest.Start(b) // skips the rest without redis-server
	runs := 0
	out = append(out, nw{"redis", func(l algorithms.Layout) (transport.Transport, error) {
		runs++
		return storenet.New(storenet.Config{Layout: l, Dial: storenet.RedisDial(srv.URL(), redisx.Config{Namespace: fmt.Sprintf("bench-%d", runs)})})
	}})
	return out
}

// BenchmarkBSP runs BSP on goroutines (4 workers, logistic regression on
// 4,000 × 10 points, 100 points a commit, 1 s of real time per run) over
// each network and reports rounds (versions) and commits per second and
// the messages per second they took. Compute is a small part of a round:
// the rounds/s measure the transport.
func BenchmarkBSP(b *testing.B) {
	for _, nw := range networks(b) {
		b.Run(nw.name, func(b *testing.B) {
			var versions, commits, msgs, reqs int64
			var wall time.Duration
			for range b.N {
				var sn *storenet.Network
				net := nw.net
				if nw.name != "inproc" {
					net = func(l algorithms.Layout) (transport.Transport, error) {
						t, err := nw.net(l)
						sn, _ = t.(*storenet.Network)
						return t, err
					}
				}
				e := experiment(b, "bsp", time.Second, net)
				res, err := harness.Run(context.Background(), e)
				if err != nil {
					b.Fatal(err)
				}
				versions += int64(res.Versions)
				for _, w := range res.Workers {
					commits += int64(w.Commits)
				}
				msgs += res.Messages
				wall += res.Duration
				if sn != nil {
					reqs += sn.StoreStats().Requests
				}
			}
			s := wall.Seconds()
			b.ReportMetric(float64(versions)/s, "rounds/s")
			b.ReportMetric(float64(commits)/s, "commits/s")
			b.ReportMetric(float64(msgs)/s, "msgs/s")
			if reqs > 0 {
				b.ReportMetric(float64(reqs)/float64(msgs), "requests/msg")
			}
			b.ReportMetric(0, "ns/op")
		})
	}
}

// BenchmarkMessages sends commits of a 1 KB and a 1 MB delta (128 and
// 131,072 float64 values, dense) from a worker to the coordinator, which
// receives them concurrently: messages and MB of encoding per second,
// one sender at a time. At most 1,024 are in flight: storenet has no
// backpressure, and a receiver more than the inbox's cap (4,096 notes)
// behind would lose the oldest.
func BenchmarkMessages(b *testing.B) {
	for _, n := range []int{128, 131072} {
		l := algorithms.Layout{Params: n, Delta: n}
		m := &transport.Message{Kind: transport.Commit, To: transport.Coordinator, Delta: algorithms.NewDelta(l)}
		for i := range m.Delta.Vec {
			m.Delta.Vec[i] = float64(i) + 0.5
		}
		size := m.Size()
		for _, nw := range networks(b) {
			b.Run(fmt.Sprintf("%s/%dKB", nw.name, size>>10), func(b *testing.B) {
				tr, err := nw.net(l)
				if err != nil {
					b.Fatal(err)
				}
				defer tr.Close()
				c, _ := tr.Open(transport.Coordinator)
				w, _ := tr.Open(0)
				done := make(chan error)
				window := make(chan struct{}, 1024)
				go func() {
					for range b.N {
						if _, err := c.Recv(b.Context()); err != nil {
							done <- err
							return
						}
						<-window
					}
					done <- nil
				}()
				b.SetBytes(int64(size))
				b.ResetTimer()
				for i := range b.N {
					window <- struct{}{}
					m.Seq = uint64(i)
					if err := w.Send(b.Context(), m); err != nil {
						b.Fatal(err)
					}
				}
				if err := <-done; err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "msgs/s")
			})
		}
	}
}
