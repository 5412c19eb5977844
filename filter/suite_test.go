package filter

import (
	"bytes"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/syncmodels/syncmodels/algorithms"
)

// impl is one Filter implementation under the common suite.
type impl struct {
	name string
	new  func(t testing.TB, l algorithms.Layout, seed uint64) Filter
	// exact: sent + held = Σ local exactly (dyadic inputs); approx: to
	// rounding; neither: unbiased only, nothing held.
	exact, approx bool
}

var impls = []impl{
	{"significance/v=0.5", func(t testing.TB, l algorithms.Layout, _ uint64) Filter {
		return mustSignificance(t, SignificanceConfig{Layout: l, V: 0.5})
	}, true, false},
	{"significance/v=0", func(t testing.TB, l algorithms.Layout, _ uint64) Filter {
		return mustSignificance(t, SignificanceConfig{Layout: l})
	}, true, false},
	{"significance/v=2/float32", func(t testing.TB, l algorithms.Layout, _ uint64) Filter {
		return mustSignificance(t, SignificanceConfig{Layout: l, V: 2, Float32: true})
	}, true, false},
	{"topk/k=3", func(t testing.TB, l algorithms.Layout, _ uint64) Filter {
		f, err := NewTopK(TopKConfig{Layout: l, K: 3})
		if err != nil {
			t.Fatal(err)
		}
		return f
	}, true, false},
	{"topk/k=5/float32", func(t testing.TB, l algorithms.Layout, _ uint64) Filter {
		f, err := NewTopK(TopKConfig{Layout: l, K: 5, Float32: true})
		if err != nil {
			t.Fatal(err)
		}
		return f
	}, true, false},
	{"qsgd/s=255/ef", func(t testing.TB, l algorithms.Layout, seed uint64) Filter {
		return newQSGDFilter(t, l, true, seed)
	}, false, true},
	{"qsgd/s=3/L2", func(t testing.TB, l algorithms.Layout, seed uint64) Filter {
		f, err := NewQSGDFilter(QSGDFilterConfig{Layout: l, QSGD: QSGD{Levels: 3, Norm: L2}, Rand: rand.New(rand.NewPCG(seed, seed))})
		if err != nil {
			t.Fatal(err)
		}
		return f
	}, false, false},
}

func forEach(t *testing.T, fn func(t *testing.T, im impl, l algorithms.Layout)) {
	for _, im := range impls {
		for _, tl := range testLayouts {
			t.Run(im.name+"/"+tl.name, func(t *testing.T) { fn(t, im, tl.l) })
		}
	}
}

// Nothing lost, nothing duplicated: after any number of steps and a final
// Flush, the sends add up to the local deltas; every send is a valid
// delta carrying its step's Count; the flush carries Count 0.
func TestSuiteConservation(t *testing.T) {
	forEach(t, func(t *testing.T, im impl, l algorithms.Layout) {
		rng := rand.New(rand.NewPCG(20, uint64(l.Delta)))
		f := im.new(t, l, 21)
		if f.Layout() != l {
			t.Fatalf("Layout() = %+v; want %+v", f.Layout(), l)
		}
		cons := newConserve(l.Delta)
		for step := range 300 {
			local := randomLocal(rng, l, rng.IntN(4))
			send, err := f.Step(local, randomReplica(rng, l.Delta))
			if err != nil {
				t.Fatalf("step %d: %v", step, err)
			}
			if err := algorithms.CheckApply(l, send); err != nil {
				t.Fatalf("step %d: send is not a valid delta: %v", step, err)
			}
			if send.Count != local.Count {
				t.Fatalf("step %d: send.Count = %d; want %d", step, send.Count, local.Count)
			}
			cons.add(local, send)
			if im.exact {
				cons.check(t, step, f)
			}
			checkHeldBlocks(t, step, f)
			if !im.exact && !im.approx && f.Held() != (Held{}) {
				t.Fatalf("step %d: Held() = %+v; want nothing", step, f.Held())
			}
		}
		h := f.Held()
		var l2, linf float64
		n := 0
		f.RangeHeld(func(_ int, v float64) bool { n++; l2 += v * v; linf = max(linf, math.Abs(v)); return true })
		if h.Entries != n || h.LInf != linf || math.Abs(h.L2-math.Sqrt(l2)) > 1e-12*h.L2 {
			t.Errorf("Held() = %+v; RangeHeld gives %d entries, L2 %v, L∞ %v", h, n, math.Sqrt(l2), linf)
		}
		fl := f.Flush()
		if fl.Count != 0 {
			t.Errorf("Flush().Count = %d; want 0", fl.Count)
		}
		if err := algorithms.CheckApply(l, fl); err != nil {
			t.Errorf("Flush() is not a valid delta: %v", err)
		}
		cons.add(algorithms.NewDelta(l), fl)
		if f.Held() != (Held{}) {
			t.Errorf("Held() after Flush = %+v", f.Held())
		}
		for i := range cons.local {
			d := math.Abs(cons.sent[i] - cons.local[i])
			if (im.exact && d != 0) || (im.approx && d > 1e-9*(1+math.Abs(cons.local[i]))) {
				t.Fatalf("entry %d: sent+flushed %v; want Σ local %v", i, cons.sent[i], cons.local[i])
			}
		}
	})
}

// A refused step leaves the filter exactly as it was: a twin that never
// saw it produces the same sends afterwards (for QSGD: no draw was taken).
func TestSuiteRefusedStepLeavesStateUnchanged(t *testing.T) {
	forEach(t, func(t *testing.T, im impl, l algorithms.Layout) {
		rng := rand.New(rand.NewPCG(22, 22))
		f, twin := im.new(t, l, 23), im.new(t, l, 23)
		w := randomReplica(rng, l.Delta)
		warm := randomLocal(rng, l, 1)
		for _, g := range []Filter{f, twin} {
			if _, err := g.Step(warm.Clone(), w); err != nil {
				t.Fatal(err)
			}
		}
		bad := randomLocal(rng, l, 1)
		i := 0
		bad.Range(func(j int, _ float64) bool { i = j; return true })
		bad.Vec[i] = math.NaN()
		_, err := f.Step(bad, w)
		var nf *algorithms.NonFiniteError
		if !errors.As(err, &nf) || nf.Index != i || nf.What != "delta" {
			t.Fatalf("Step with NaN at %d: error %v; want a NonFiniteError naming delta entry %d", i, err, i)
		}
		wrong := algorithms.NewDelta(algorithms.Layout{Delta: l.Delta + 1, Block: l.Block})
		if _, err := f.Step(wrong, w); !errors.Is(err, algorithms.ErrLayout) {
			t.Fatalf("Step with a wrong layout: %v; want ErrLayout", err)
		}
		if _, err := f.Step(algorithms.NewDelta(l), w[:len(w)/2]); len(w) > 0 && !errors.Is(err, algorithms.ErrLayout) {
			t.Fatalf("Step with a short replica: %v; want ErrLayout", err)
		}
		for step := range 20 {
			next := randomLocal(rng, l, 1)
			a, errA := f.Step(next.Clone(), w)
			b, errB := twin.Step(next, w)
			if errA != nil || errB != nil {
				t.Fatal(errA, errB)
			}
			if !slices.Equal(a.Vec, b.Vec) {
				t.Fatalf("step %d after the refused one: send %v; twin %v", step, a.Vec, b.Vec)
			}
		}
		if !slices.Equal(heldVec(f), heldVec(twin)) {
			t.Errorf("held %v; twin %v", heldVec(f), heldVec(twin))
		}
	})
}

// Same seed twice ⇒ byte-identical wire trace.
func TestSuiteDeterministic(t *testing.T) {
	forEach(t, func(t *testing.T, im impl, l algorithms.Layout) {
		trace := func() []byte {
			rng := rand.New(rand.NewPCG(24, 24))
			f := im.new(t, l, 25)
			var b []byte
			for range 50 {
				send, err := f.Step(randomLocal(rng, l, 1), randomReplica(rng, l.Delta))
				if err != nil {
					t.Fatal(err)
				}
				if b, err = AppendDelta(b, send, Float64); err != nil {
					t.Fatal(err)
				}
			}
			b, _ = AppendDelta(b, f.Flush(), Float64)
			return b
		}
		if a, b := trace(), trace(); !bytes.Equal(a, b) {
			t.Errorf("two runs with the same seed differ (%d vs %d bytes)", len(a), len(b))
		}
	})
}

// Sends of several workers merge into one delta that round-trips the wire.
func TestSuiteSendsMergeAndEncode(t *testing.T) {
	forEach(t, func(t *testing.T, im impl, l algorithms.Layout) {
		rng := rand.New(rand.NewPCG(26, 26))
		workers := []Filter{im.new(t, l, 1), im.new(t, l, 2), im.new(t, l, 3)}
		for step := range 20 {
			merged := algorithms.NewDelta(l)
			for _, f := range workers {
				send, err := f.Step(randomLocal(rng, l, 2), randomReplica(rng, l.Delta))
				if err != nil {
					t.Fatal(err)
				}
				b, err := AppendDelta(nil, send, Float64)
				if err != nil {
					t.Fatal(err)
				}
				got, err := DecodeDelta(b, l)
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(got.Vec, send.Vec) || got.Count != send.Count {
					t.Fatalf("step %d: wire round trip %v; want %v", step, got.Vec, send.Vec)
				}
				if err := merged.Merge(got); err != nil {
					t.Fatal(err)
				}
			}
			if merged.Count != 6 {
				t.Fatalf("step %d: merged Count %d; want 6", step, merged.Count)
			}
		}
	})
}

// checkHeldBlocks checks the accumulator's invariant: after a step, the
// held blocks are exactly the blocks with a nonzero entry, each once, and
// pos indexes blocks.
func checkHeldBlocks(t *testing.T, step int, f Filter) {
	t.Helper()
	var a *accum
	switch f := f.(type) {
	case *Significance:
		a = &f.acc
	case *TopK:
		a = &f.vec.acc
	case *QSGDFilter:
		a = &f.vec.acc
	default:
		t.Fatalf("unknown filter %T", f)
	}
	if !a.sparse() {
		return
	}
	var want []int32
	for b := range a.pos {
		lo, hi := a.span(int32(b))
		if slices.ContainsFunc(a.acc[lo:hi], func(v float64) bool { return v != 0 }) {
			want = append(want, int32(b))
		}
	}
	if got := slices.Sorted(slices.Values(a.blocks)); !slices.Equal(got, want) {
		t.Fatalf("step %d: held blocks %v; want the nonzero blocks %v", step, got, want)
	}
	for p, b := range a.blocks {
		if a.pos[b] != int32(p) {
			t.Fatalf("step %d: pos[%d] = %d; want %d", step, b, a.pos[b], p)
		}
	}
}
