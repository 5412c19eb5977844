package transporttest

import (
	"math"
	"math/rand/v2"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/syncmodels/syncmodels/algorithms"
	"github.com/syncmodels/syncmodels/internal/fpdet"
	"github.com/syncmodels/syncmodels/transport"
)

// RandomMessage returns a valid message of kind k for layout l with
// seeded, varied contents: header integers from 0 to their maximum (so
// every varint length occurs), Params for Release (usually full, sometimes
// none), a Delta for Commit and Leave (sometimes none; dense or sparse,
// with zero entries and live blocks that are all zero), a Reason for
// Reject, Stop and Leave, a Timer (often 0) for Release, a Batch (often
// 0) for Release, Commit, Batch and Join, and values that are dyadic, random, subnormal,
// huge or −0. From and To are random valid node IDs; set them as needed.
func RandomMessage(rng *rand.Rand, l algorithms.Layout, k transport.Kind) *transport.Message {
	m := &transport.Message{
		Kind:        k,
		From:        randomNode(rng),
		To:          randomNode(rng),
		Job:         randomUint(rng),
		Incarnation: uint32(randomUint(rng)),
		Seq:         randomUint(rng),
		Version:     randomUint(rng),
		Clock:       randomUint(rng),
	}
	switch k {
	case transport.Release:
		m.Budget = int64(randomUint(rng))
		if rng.IntN(4) == 0 {
			m.Budget = -m.Budget
		}
		if rng.IntN(8) != 0 {
			m.Params = make([]float64, l.Params)
			for i := range m.Params {
				m.Params[i] = randomValue(rng)
			}
		}
		if rng.IntN(2) == 0 {
			m.Timer = time.Duration(randomUint(rng) >> 1)
		}
	case transport.Commit, transport.Progress, transport.Leave:
		m.Points = int64(randomUint(rng) >> 1)
	}
	if k.CarriesBatch() && rng.IntN(2) == 0 {
		m.Batch = randomUint(rng)
	}
	if k.CarriesDelta() && rng.IntN(8) != 0 {
		m.Delta = RandomDelta(rng, l)
	}
	switch k {
	case transport.Reject, transport.Stop, transport.Leave:
		reasons := []string{"", "stale incarnation 3 < 4", "run finished: target reached", "préemption — spot instance reclaimed ✓"}
		m.Reason = reasons[rng.IntN(len(reasons))]
	}
	return m
}

// RandomDelta returns a delta for l with a random number of live entries,
// some of them zero, and a random Count.
func RandomDelta(rng *rand.Rand, l algorithms.Layout) *algorithms.Delta {
	d := algorithms.NewDelta(l)
	d.Count = int(randomUint(rng) >> 2)
	if l.Delta == 0 {
		return d
	}
	pZero := []float64{0, 0.5, 0.95, 1}[rng.IntN(4)]
	set := func(i int) {
		if rng.Float64() >= pZero {
			d.Vec[i] = randomValue(rng)
		}
	}
	if l.Block == 0 {
		for i := range d.Vec {
			set(i)
		}
		return d
	}
	blocks := (l.Delta + l.Block - 1) / l.Block
	for range rng.IntN(blocks + 1) {
		b := rng.IntN(blocks)
		d.Touch(b)
		for i := b * l.Block; i < min(l.Delta, (b+1)*l.Block); i++ {
			set(i)
		}
	}
	return d
}

func randomNode(rng *rand.Rand) transport.NodeID {
	switch rng.IntN(4) {
	case 0:
		return transport.Coordinator
	case 1:
		return transport.MaxNode - transport.NodeID(rng.IntN(3))
	}
	return transport.NodeID(rng.IntN(300))
}

// randomUint returns 0, small, or up to 64-bit values: every varint length.
func randomUint(rng *rand.Rand) uint64 {
	switch rng.IntN(4) {
	case 0:
		return 0
	case 1:
		return uint64(rng.IntN(200))
	case 2:
		return math.MaxUint64 - uint64(rng.IntN(2))
	}
	return rng.Uint64() >> rng.UintN(64)
}

func randomValue(rng *rand.Rand) float64 {
	switch rng.IntN(10) {
	case 0:
		return math.Copysign(0, -1)
	case 1:
		return float64(math.SmallestNonzeroFloat64 * float64(1+rng.IntN(9)))
	case 2:
		return float64(math.MaxFloat64 * (float64(rng.Float64()*2) - 1))
	case 3, 4:
		return fpdet.NormFloat64(rng)
	}
	return float64(float64(rng.IntN(2049)-1024) / 256) // dyadic, often 0
}

// Diff returns a human-readable difference between two messages, empty
// when they are equal as the wire carries them: Params compared exactly
// (nil equals empty), deltas by length, block width, Count and values (a
// −0 delta entry equals 0, and which blocks are live does not matter, since
// zero entries are not sent).
func Diff(want, got *transport.Message) string {
	return cmp.Diff(want, got, cmpopts.EquateEmpty(), cmp.Comparer(equalDelta))
}

func equalDelta(a, b *algorithms.Delta) bool {
	if a == nil || b == nil {
		return a == b
	}
	if a.Len() != b.Len() || a.BlockWidth() != b.BlockWidth() || a.Count != b.Count {
		return false
	}
	for i, x := range a.Vec {
		if x != b.Vec[i] {
			return false
		}
	}
	return true
}
