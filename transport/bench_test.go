package transport_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/syncmodels/syncmodels/algorithms"
	"github.com/syncmodels/syncmodels/transport"
)

// benchMessages are the messages of the codec benchmarks: a heartbeat, a
// release of n params, a commit of a dense delta of n entries, and a
// commit that touched 1% of the blocks of a sparse delta of n entries.
func benchMessages(n int) []struct {
	name string
	l    algorithms.Layout
	m    *transport.Message
} {
	rng := rand.New(rand.NewPCG(9, 9))
	dense := algorithms.Layout{Params: n, Delta: n}
	sparse := algorithms.Layout{Params: n, Delta: n, Block: 10}
	rel := &transport.Message{Kind: transport.Release, To: 3, Seq: 1000, Version: 99, Params: make([]float64, n)}
	for i := range rel.Params {
		rel.Params[i] = rng.NormFloat64()
	}
	dc := &transport.Message{Kind: transport.Commit, From: 3, To: transport.Coordinator, Seq: 1000, Points: 512, Delta: algorithms.NewDelta(dense)}
	for i := range dc.Delta.Vec {
		dc.Delta.Vec[i] = rng.NormFloat64()
	}
	sc := &transport.Message{Kind: transport.Commit, From: 3, To: transport.Coordinator, Seq: 1000, Points: 512, Delta: algorithms.NewDelta(sparse)}
	for range n / 1000 {
		b := rng.IntN(n / 10)
		sc.Delta.Touch(b)
		for i := b * 10; i < b*10+10; i++ {
			sc.Delta.Vec[i] = rng.NormFloat64()
		}
	}
	return []struct {
		name string
		l    algorithms.Layout
		m    *transport.Message
	}{
		{"heartbeat", dense, &transport.Message{Kind: transport.Heartbeat, From: 3, To: transport.Coordinator, Seq: 1000}},
		{fmt.Sprintf("release/params=%d", n), dense, rel},
		{fmt.Sprintf("commit/dense=%d", n), dense, dc},
		{fmt.Sprintf("commit/sparse1pct=%d", n), sparse, sc},
	}
}

func BenchmarkAppendBinary(b *testing.B) {
	for _, n := range []int{1000, 100000} {
		for _, c := range benchMessages(n) {
			if n > 1000 && c.name == "heartbeat" {
				continue
			}
			b.Run(c.name, func(b *testing.B) {
				buf := make([]byte, 0, c.m.Size())
				b.SetBytes(int64(c.m.Size()))
				b.ReportMetric(float64(c.m.Size()), "bytes/msg")
				for b.Loop() {
					var err error
					if buf, err = c.m.AppendBinary(buf[:0]); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

func BenchmarkSize(b *testing.B) {
	for _, c := range benchMessages(100000) {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				c.m.Size()
			}
		})
	}
}

func BenchmarkUnmarshal(b *testing.B) {
	for _, n := range []int{1000, 100000} {
		for _, c := range benchMessages(n) {
			if n > 1000 && c.name == "heartbeat" {
				continue
			}
			b.Run(c.name, func(b *testing.B) {
				enc, err := c.m.AppendBinary(nil)
				if err != nil {
					b.Fatal(err)
				}
				b.SetBytes(int64(len(enc)))
				b.ReportMetric(float64(len(enc)), "bytes/msg")
				for b.Loop() {
					if _, err := transport.Unmarshal(enc, c.l); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
