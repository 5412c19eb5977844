package redisx_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/syncmodels/syncmodels/algorithms"
	"github.com/syncmodels/syncmodels/exchange"
	"github.com/syncmodels/syncmodels/exchange/redisx"
	"github.com/syncmodels/syncmodels/exchange/redisx/redistest"
	"github.com/syncmodels/syncmodels/transport"
)

// Delta sizes: 128 and 131072 float64 values, 1 KiB and 1 MiB of values
// (the encoded update adds a header of about 20 bytes).
var benchSizes = []struct {
	name string
	n    int
}{{"1KB", 128}, {"1MB", 128 << 10}}

// benchUpdate returns a dense update of n seeded nonzero values.
func benchUpdate(n int, seq uint64) *transport.Message {
	rng := rand.New(rand.NewPCG(1, seq))
	d := algorithms.NewDelta(algorithms.Layout{Delta: n})
	for i := range d.Vec {
		d.Vec[i] = rng.Float64() + 0.5
	}
	d.Count = 1
	return &transport.Message{Kind: transport.Commit, Seq: seq, Clock: seq, Points: 1, Delta: d}
}

// benchStores opens a store of each kind, in process and on a redis-server
// started for the benchmark.
func benchStores(b *testing.B) []struct {
	name string
	open func() exchange.Store
} {
	srv := redistest.Start(b)
	mem := exchange.NewMemory()
	return []struct {
		name string
		open func() exchange.Store
	}{
		{"store=memory", func() exchange.Store {
			s, err := mem.Open("bench", exchange.Limits{})
			if err != nil {
				b.Fatal(err)
			}
			return s
		}},
		{"store=redis", func() exchange.Store {
			s, err := redisx.Open(context.Background(), srv.URL(), redisx.Config{Namespace: "bench"})
			if err != nil {
				b.Fatal(err)
			}
			return s
		}},
	}
}

// report adds deltas/s and requests per delta to the benchmark's output
// (SetBytes gives MB/s).
func report(b *testing.B, start time.Time, requests int64) {
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "deltas/s")
	b.ReportMetric(float64(requests)/float64(b.N), "requests/delta")
}

// BenchmarkExchange measures one peer publishing updates (Publish) and one
// reading another's latest (Latest), and a post read by Next, through the
// in-process store and through Redis, one call at a time. Updates of 1 KB
// are inline; updates of 1 MB go to a blob (Config.Inline is 16 KiB).
func BenchmarkExchange(b *testing.B) {
	ctx := context.Background()
	runs := 0 // a topic per run
	for _, st := range benchStores(b) {
		for _, size := range benchSizes {
			l := algorithms.Layout{Delta: size.n}
			newPeer := func(id transport.NodeID) *exchange.Peer {
				s := st.open()
				b.Cleanup(func() { s.Close() })
				p, err := exchange.New(s, exchange.Config{Job: 1, ID: id, Layout: l})
				if err != nil {
					b.Fatal(err)
				}
				return p
			}
			m := benchUpdate(size.n, 1)
			enc, _ := m.AppendBinary(nil)
			w, r := newPeer(0), newPeer(1)
			var seq uint64 // w's, across the benchmark's runs
			b.Run(fmt.Sprintf("%s/size=%s/op=publish", st.name, size.name), func(b *testing.B) {
				b.SetBytes(int64(len(enc)))
				req := w.Stats().Requests
				start := time.Now()
				for range b.N {
					seq++
					m.Seq = seq
					if _, err := w.Publish(ctx, m); err != nil {
						b.Fatal(err)
					}
				}
				report(b, start, w.Stats().Requests-req)
			})
			seq++
			m.Seq = seq
			if _, err := w.Publish(ctx, m); err != nil {
				b.Fatal(err)
			}
			b.Run(fmt.Sprintf("%s/size=%s/op=latest", st.name, size.name), func(b *testing.B) {
				b.SetBytes(int64(len(enc)))
				req := r.Stats().Requests
				start := time.Now()
				for range b.N {
					if _, err := r.Latest(ctx, 0); err != nil {
						b.Fatal(err)
					}
				}
				report(b, start, r.Stats().Requests-req)
			})
			b.Run(fmt.Sprintf("%s/size=%s/op=post+next", st.name, size.name), func(b *testing.B) {
				b.SetBytes(int64(len(enc)))
				runs++
				topic := fmt.Sprintf("t/%d", runs)
				pw, pr := newPeer(2), newPeer(3)
				start := time.Now()
				for i := range b.N {
					m.Seq = uint64(i) + 1
					if _, err := pw.Post(ctx, topic, m); err != nil {
						b.Fatal(err)
					}
					if _, err := pr.Next(ctx, topic, 1); err != nil {
						b.Fatal(err)
					}
				}
				report(b, start, pw.Stats().Requests+pr.Stats().Requests)
			})
		}
	}
}

// BenchmarkRaw is the baseline: go-redis SET and GET of the encoded
// update's bytes, no script, no epoch check, no encoding — what
// redis-benchmark measures, from Go.
func BenchmarkRaw(b *testing.B) {
	ctx := context.Background()
	srv := redistest.Start(b)
	c := redis.NewClient(&redis.Options{Addr: srv.Addr})
	defer c.Close()
	for _, size := range benchSizes {
		enc, _ := benchUpdate(size.n, 1).AppendBinary(nil)
		b.Run(fmt.Sprintf("size=%s/op=set", size.name), func(b *testing.B) {
			b.SetBytes(int64(len(enc)))
			start := time.Now()
			for range b.N {
				if err := c.Set(ctx, "raw", enc, 0).Err(); err != nil {
					b.Fatal(err)
				}
			}
			report(b, start, int64(b.N))
		})
		b.Run(fmt.Sprintf("size=%s/op=get", size.name), func(b *testing.B) {
			b.SetBytes(int64(len(enc)))
			start := time.Now()
			for range b.N {
				if _, err := c.Get(ctx, "raw").Bytes(); err != nil {
					b.Fatal(err)
				}
			}
			report(b, start, int64(b.N))
		})
	}
}
