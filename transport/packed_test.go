package transport_test

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/syncmodels/syncmodels/algorithms"
	"github.com/syncmodels/syncmodels/filter"
	"github.com/syncmodels/syncmodels/transport"
)

// A commit whose delta is sent as QSGD's packed levels decodes to the
// values the sender holds, in fewer bytes than the float64 encoding; its
// header is AppendBinary's; a delta that does not decode to Delta is
// refused and b is left unchanged.
func TestAppendBinaryDelta(t *testing.T) {
	for _, l := range []algorithms.Layout{{Params: 300, Delta: 300}, {Params: 300, Delta: 300, Block: 4}} {
		rng := rand.New(rand.NewPCG(3, 4))
		local := algorithms.NewDelta(l)
		for i := range local.Vec {
			if l.Block > 0 && i/l.Block%3 != 0 {
				continue
			}
			local.Vec[i] = rng.NormFloat64()
			if l.Block > 0 {
				local.Touch(i / l.Block)
			}
		}
		local.Count = 64
		q, err := filter.NewQSGDFilter(filter.QSGDFilterConfig{Layout: l, Rand: rand.New(rand.NewPCG(5, 6))})
		if err != nil {
			t.Fatal(err)
		}
		sent, err := q.Step(local, nil)
		if err != nil {
			t.Fatal(err)
		}
		packed := q.AppendMessage(nil)
		m := &transport.Message{Kind: transport.Commit, From: 2, Job: 9, Seq: 4, Clock: 3, Points: 64, Delta: sent}
		prefix := []byte("prefix")
		b, err := m.AppendBinaryDelta(bytes.Clone(prefix), packed)
		if err != nil {
			t.Fatalf("block %d: AppendBinaryDelta = %v", l.Block, err)
		}
		if !bytes.HasPrefix(b, prefix) {
			t.Fatalf("block %d: prefix lost", l.Block)
		}
		b = b[len(prefix):]
		got, err := transport.Unmarshal(b, l)
		if err != nil {
			t.Fatalf("block %d: Unmarshal = %v", l.Block, err)
		}
		if got.Seq != 4 || got.From != 2 || got.Delta.Count != 64 {
			t.Errorf("block %d: header %v; want seq 4 from worker 2 count 64", l.Block, got)
		}
		for i, v := range sent.Vec {
			if got.Delta.Vec[i] != v {
				t.Fatalf("block %d: entry %d decodes to %v; sent %v", l.Block, i, got.Delta.Vec[i], v)
			}
		}
		full, err := m.AppendBinary(nil)
		if err != nil {
			t.Fatal(err)
		}
		if 3*len(b) >= len(full) {
			t.Errorf("block %d: packed message %d bytes, float64 %d; want under a third (9-bit levels against 64-bit values)", l.Block, len(b), len(full))
		}
		t.Logf("block %d: %d bytes packed, %d as float64", l.Block, len(b), len(full))

		// Values that differ from Delta are refused, naming the entry.
		other := sent.Clone()
		for i, v := range other.Vec {
			if v != 0 {
				other.Vec[i] = v * 2
				break
			}
		}
		bad := *m
		bad.Delta = other
		out, err := bad.AppendBinaryDelta(prefix, packed)
		if !errors.Is(err, transport.ErrMalformed) || !strings.Contains(err.Error(), "entry") || len(out) != len(prefix) {
			t.Errorf("block %d: AppendBinaryDelta of other values = %d bytes, %v; want ErrMalformed naming the entry, b unchanged", l.Block, len(out), err)
		}
		other = sent.Clone()
		other.Count++
		bad.Delta = other
		if _, err := bad.AppendBinaryDelta(nil, packed); !errors.Is(err, transport.ErrMalformed) {
			t.Errorf("block %d: AppendBinaryDelta with another count = %v; want ErrMalformed", l.Block, err)
		}
		if _, err := bad.AppendBinaryDelta(nil, packed[:len(packed)-1]); !errors.Is(err, transport.ErrMalformed) {
			t.Errorf("block %d: AppendBinaryDelta of a truncated delta = %v; want ErrMalformed", l.Block, err)
		}
		bad.Delta = nil
		if _, err := bad.AppendBinaryDelta(nil, packed); !errors.Is(err, transport.ErrMalformed) {
			t.Errorf("block %d: AppendBinaryDelta without Delta = %v; want ErrMalformed", l.Block, err)
		}
	}
}
