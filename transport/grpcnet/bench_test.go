package grpcnet_test

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/syncmodels/syncmodels/algorithms"
	"github.com/syncmodels/syncmodels/transport"
	"github.com/syncmodels/syncmodels/transport/grpcnet"
	"github.com/syncmodels/syncmodels/transport/inproc"
)

// benchTransports are the transports the benchmarks compare: gRPC over
// bufconn, over TCP loopback, and over TCP loopback with mutual TLS 1.3
// and a token, and the in-process baseline.
func benchTransports(b *testing.B, l algorithms.Layout) map[string]func() transport.Transport {
	out := map[string]func() transport.Transport{
		"inproc": func() transport.Transport {
			n, err := inproc.New(inproc.Config{Layout: l})
			if err != nil {
				b.Fatal(err)
			}
			return n
		},
	}
	for _, nw := range networks {
		out["grpc-"+nw.name] = func() transport.Transport { return newPair(b, nw, grpcnet.Config{Layout: l}) }
	}
	j := newJob(b, "bench")
	out["grpc-tcp-tls"] = func() transport.Transport {
		return newSecurePair(b, networks[1], j.serverConfig(l), j.workerConfig(b, l, 0))
	}
	return out
}

// BenchmarkRoundTrip: a worker sends a heartbeat to the coordinator, which
// answers with one; ns/op is one round trip (the figure the issue's
// "BSP round against one stream's round-trip time" goal divides by).
func BenchmarkRoundTrip(b *testing.B) {
	l := algorithms.Layout{Params: 1, Delta: 1}
	for _, name := range []string{"inproc", "grpc-bufconn", "grpc-tcp", "grpc-tcp-tls"} {
		b.Run(name, func(b *testing.B) {
			tr := benchTransports(b, l)[name]()
			defer tr.Close()
			c, _ := tr.Open(transport.Coordinator)
			w, _ := tr.Open(0)
			ctx := context.Background()
			ping := &transport.Message{Kind: transport.Heartbeat, To: transport.Coordinator}
			pong := &transport.Message{Kind: transport.Heartbeat, To: 0}
			b.ResetTimer()
			for range b.N {
				if err := w.Send(ctx, ping); err != nil {
					b.Fatal(err)
				}
				if _, err := c.Recv(ctx); err != nil {
					b.Fatal(err)
				}
				if err := c.Send(ctx, pong); err != nil {
					b.Fatal(err)
				}
				if _, err := w.Recv(ctx); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkCommit1MiB: a worker streams commits of a dense 1 MiB delta
// (131,072 float64) to the coordinator, which receives them in another
// goroutine; MB/s is the throughput, encoding and decoding included.
func BenchmarkCommit1MiB(b *testing.B) {
	const n = 1 << 17
	l := algorithms.Layout{Params: n, Delta: n}
	rng := rand.New(rand.NewPCG(1, 1))
	m := &transport.Message{Kind: transport.Commit, To: transport.Coordinator, Points: 100, Delta: algorithms.NewDelta(l)}
	for i := range m.Delta.Vec {
		m.Delta.Vec[i] = rng.NormFloat64()
	}
	for _, name := range []string{"inproc", "grpc-bufconn", "grpc-tcp", "grpc-tcp-tls"} {
		b.Run(name, func(b *testing.B) {
			tr := benchTransports(b, l)[name]()
			defer tr.Close()
			c, _ := tr.Open(transport.Coordinator)
			w, _ := tr.Open(0)
			ctx := context.Background()
			done := make(chan error, 1)
			b.SetBytes(int64(m.Size()))
			b.ResetTimer()
			go func() {
				for range b.N {
					if _, err := c.Recv(ctx); err != nil {
						done <- err
						return
					}
				}
				done <- nil
			}()
			for range b.N {
				if err := w.Send(ctx, m); err != nil {
					b.Fatal(err)
				}
			}
			if err := <-done; err != nil {
				b.Fatal(err)
			}
		})
	}
}
