package inproc_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/syncmodels/syncmodels/algorithms"
	"github.com/syncmodels/syncmodels/transport"
	"github.com/syncmodels/syncmodels/transport/inproc"
)

// BenchmarkSendRecv: one worker streams messages to the coordinator, which
// receives them in another goroutine. "chan" is the naive baseline: the
// same encode and decode over a buffered Go channel, so the difference is
// the network's own cost (validation, queueing, accounting).
func BenchmarkSendRecv(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	for _, n := range []int{0, 1000, 100000} {
		l := algorithms.Layout{Params: n, Delta: n}
		m := &transport.Message{Kind: transport.Heartbeat, To: transport.Coordinator, Seq: 1}
		name := "heartbeat"
		if n > 0 {
			m = &transport.Message{Kind: transport.Commit, To: transport.Coordinator, Seq: 1, Points: 100, Delta: algorithms.NewDelta(l)}
			for i := range m.Delta.Vec {
				m.Delta.Vec[i] = rng.NormFloat64()
			}
			name = fmt.Sprintf("commit/dense=%d", n)
		}
		size := m.Size()
		b.Run(name+"/inproc", func(b *testing.B) {
			nw, err := inproc.New(inproc.Config{Layout: l})
			if err != nil {
				b.Fatal(err)
			}
			defer nw.Close()
			c, _ := nw.Open(transport.Coordinator)
			w, _ := nw.Open(0)
			ctx := context.Background()
			done := make(chan error)
			b.SetBytes(int64(size))
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
			st := nw.Stats().Nodes[transport.Coordinator].Received.Total()
			if st.Bytes != int64(b.N*size) {
				b.Fatalf("received %d bytes; want %d", st.Bytes, b.N*size)
			}
			b.ReportMetric(float64(st.Bytes)/float64(b.N), "bytes/msg")
		})
		b.Run(name+"/chan", func(b *testing.B) {
			ch := make(chan []byte, inproc.DefaultInbox)
			done := make(chan error)
			b.SetBytes(int64(size))
			b.ReportMetric(float64(size), "bytes/msg")
			go func() {
				for range b.N {
					if _, err := transport.Unmarshal(<-ch, l); err != nil {
						done <- err
						return
					}
				}
				done <- nil
			}()
			for range b.N {
				buf, err := m.AppendBinary(nil)
				if err != nil {
					b.Fatal(err)
				}
				ch <- buf
			}
			if err := <-done; err != nil {
				b.Fatal(err)
			}
		})
	}
}
