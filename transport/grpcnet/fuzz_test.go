package grpcnet

import (
	"context"
	"errors"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/syncmodels/syncmodels/algorithms"
	"github.com/syncmodels/syncmodels/transport"
	"github.com/syncmodels/syncmodels/transport/transporttest"
)

// FuzzServerFrame feeds arbitrary bytes to the coordinator's frame path, as
// if worker 3's stream carried them: nothing panics; a refused frame is
// counted as malformed, wraps ErrMalformed, ErrTooLarge or ErrLayout, and
// delivers nothing; an accepted one is a valid message from worker 3 that
// the coordinator receives intact (or, addressed to a worker that is not
// attached, is counted as dropped).
func FuzzServerFrame(f *testing.F) {
	l := algorithms.Layout{Params: 6, Delta: 20, Block: 4}
	const limit = 1 << 10
	rng := rand.New(rand.NewPCG(12, 1))
	for _, k := range transport.Kinds() {
		m := transporttest.RandomMessage(rng, l, k)
		m.From, m.To = 3, transport.Coordinator
		if m.Size() > limit {
			m.Params, m.Delta = nil, nil
		}
		b, err := m.AppendBinary(nil)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
		f.Add(b[:len(b)/2]) // truncated
		m.From = 4          // another worker's name
		b, _ = m.AppendBinary(nil)
		f.Add(b)
	}
	relay := &transport.Message{Kind: transport.Heartbeat, From: 3, To: 9} // to a worker not attached
	b, _ := relay.AppendBinary(nil)
	f.Add(b)
	f.Add([]byte{})
	f.Add([]byte{transport.FormatVersion, 0xff})
	f.Add(make([]byte, limit+1))

	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := NewServer(Config{Layout: l, MaxMessage: limit, Plaintext: true})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		ep, err := s.Open(transport.Coordinator)
		if err != nil {
			t.Fatal(err)
		}
		s.known[9] = true // a worker that was attached and left
		count := s.stats.of(3)
		input := append([]byte(nil), b...)
		err = s.receive(context.Background(), 3, count, input)
		st := s.Stats().Nodes[3]
		if err != nil {
			if !errors.Is(err, transport.ErrMalformed) && !errors.Is(err, transport.ErrTooLarge) && !errors.Is(err, algorithms.ErrLayout) {
				t.Fatalf("refused frame: %v; want an error wrapping ErrMalformed, ErrTooLarge or ErrLayout", err)
			}
			if got := s.Malformed(); got != 1 {
				t.Fatalf("Malformed() = %d after one refused frame; want 1", got)
			}
			if d := st.Dropped.Total(); d.Messages != 0 {
				t.Fatalf("a refused frame was counted as dropped: %+v", d)
			}
			expectEmpty(t, ep)
			return
		}
		if s.Malformed() != 0 {
			t.Fatalf("Malformed() = %d after an accepted frame", s.Malformed())
		}
		want, uerr := transport.Unmarshal(b, l)
		if uerr != nil || want.From != 3 || len(b) > limit {
			t.Fatalf("accepted a frame that Unmarshal refuses (%v) or from %v or of %d bytes", uerr, want.From, len(b))
		}
		if want.To != transport.Coordinator {
			if d := st.Dropped.Total(); d != (transport.Counter{Messages: 1, Bytes: int64(len(b))}) {
				t.Fatalf("a frame to %v (not attached) counted as dropped %+v; want 1 message of %d bytes", want.To, d, len(b))
			}
			expectEmpty(t, ep)
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		got, err := ep.Recv(ctx)
		if err != nil {
			t.Fatalf("accepted frame not delivered: %v", err)
		}
		if d := transporttest.Diff(want, got); d != "" {
			t.Fatalf("delivered message differs (-frame +delivered):\n%s", d)
		}
		expectEmpty(t, ep)
	})
}

// expectEmpty checks that nothing is queued for the coordinator.
func expectEmpty(t *testing.T, ep transport.Endpoint) {
	t.Helper()
	in := &ep.(*coordEndpoint).in
	in.mu.Lock()
	n := len(in.q)
	in.mu.Unlock()
	if n != 0 {
		t.Fatalf("the coordinator has %d messages queued; want none", n)
	}
}
