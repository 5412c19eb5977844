package exchange_test

import (
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/syncmodels/syncmodels/algorithms"
	"github.com/syncmodels/syncmodels/exchange"
	"github.com/syncmodels/syncmodels/filter"
	"github.com/syncmodels/syncmodels/transport"
)

// An update published with its delta as QSGD's packed levels reaches the
// reader as the values the sender holds, inline and through a blob, and
// costs the store a fraction of the float64 bytes; a packed delta that
// does not match the update's values is refused and writes nothing.
func TestPublishPacked(t *testing.T) {
	ctx := t.Context()
	l := algorithms.Layout{Params: 1000, Delta: 1000}
	for _, inline := range []int{0, -1} {
		mem := exchange.NewMemory()
		open := func(id transport.NodeID) *exchange.Peer {
			s, err := mem.Open("job", exchange.Limits{})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { s.Close() })
			p, err := exchange.New(s, exchange.Config{Job: 1, ID: id, Layout: l, Inline: inline})
			if err != nil {
				t.Fatal(err)
			}
			return p
		}
		a, b := open(0), open(1)
		rng := rand.New(rand.NewPCG(1, 2))
		local := algorithms.NewDelta(l)
		for i := range local.Vec {
			local.Vec[i] = rng.NormFloat64()
		}
		local.Count = 10
		q, err := filter.NewQSGDFilter(filter.QSGDFilterConfig{Layout: l, Rand: rand.New(rand.NewPCG(3, 4))})
		if err != nil {
			t.Fatal(err)
		}
		sent, err := q.Step(local, nil)
		if err != nil {
			t.Fatal(err)
		}
		packed := q.AppendMessage(nil)
		m := &transport.Message{Kind: transport.Commit, Seq: 1, Clock: 1, Points: 10, Delta: sent}

		// Refused: values that differ from the packed delta's; nothing written.
		other := sent.Clone()
		other.Vec[0] += 1
		if _, err := a.PublishPacked(ctx, &transport.Message{Kind: transport.Commit, Seq: 1, Delta: other}, packed); !errors.Is(err, exchange.ErrInput) {
			t.Errorf("inline %d: PublishPacked of mismatched values = %v; want ErrInput", inline, err)
		}
		if st := a.Stats(); st.BytesWritten != 0 || st.Published != 0 {
			t.Errorf("inline %d: after a refused publish, stats %+v; want nothing written", inline, st)
		}

		if _, err := a.PublishPacked(ctx, m, packed); err != nil {
			t.Fatalf("inline %d: PublishPacked = %v", inline, err)
		}
		got, err := b.Fresh(ctx, 0)
		if err != nil || got == nil {
			t.Fatalf("inline %d: Fresh = %v, %v", inline, got, err)
		}
		for i, v := range sent.Vec {
			if got.Delta.Vec[i] != v {
				t.Fatalf("inline %d: entry %d = %v; sent %v", inline, i, got.Delta.Vec[i], v)
			}
		}
		full, err := (&transport.Message{Kind: transport.Commit, Seq: 1, Clock: 1, Points: 10, Delta: sent}).AppendBinary(nil)
		if err != nil {
			t.Fatal(err)
		}
		if w := a.Stats().BytesWritten; 4*w >= int64(len(full)) {
			t.Errorf("inline %d: %d bytes written for a packed update, %d as float64; want under a quarter", inline, w, len(full))
		}
	}
}
