package filter

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/syncmodels/syncmodels/algorithms"
)

// vecFilter is what TopKVec and QSGDVec have in common.
type vecFilter interface {
	Step(dst, x []float64) ([]float64, error)
	Flush(dst []float64) []float64
	RangeHeld(fn func(i int, v float64) bool)
	Held() Held
}

// The Delta filters and their plain-slice forms agree: fed the same
// updates (the vector form being the delta's dense form) with the same
// seeds, they send the same values bit for bit, hold the same entries and
// flush the same, on dense and sparse layouts.
func TestVecAgreesWithDelta(t *testing.T) {
	type pair struct {
		name  string
		delta func(l algorithms.Layout, seed uint64) Filter
		vec   func(n int, seed uint64) vecFilter
	}
	rng := func(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 3)) }
	pairs := []pair{
		{"topk/k=3",
			func(l algorithms.Layout, _ uint64) Filter { return must(NewTopK(TopKConfig{Layout: l, K: 3})) },
			func(n int, _ uint64) vecFilter { return must(NewTopKVec(TopKVecConfig{Len: n, K: 3})) }},
		{"topk/k=5/float32",
			func(l algorithms.Layout, _ uint64) Filter {
				return must(NewTopK(TopKConfig{Layout: l, K: 5, Float32: true}))
			},
			func(n int, _ uint64) vecFilter { return must(NewTopKVec(TopKVecConfig{Len: n, K: 5, Float32: true})) }},
		{"qsgd/ef",
			func(l algorithms.Layout, seed uint64) Filter {
				return must(NewQSGDFilter(QSGDFilterConfig{Layout: l, ErrorFeedback: true, Rand: rng(seed)}))
			},
			func(n int, seed uint64) vecFilter {
				return must(NewQSGDVec(QSGDVecConfig{Len: n, ErrorFeedback: true, Rand: rng(seed)}))
			}},
		{"qsgd/s=3/L2",
			func(l algorithms.Layout, seed uint64) Filter {
				return must(NewQSGDFilter(QSGDFilterConfig{Layout: l, QSGD: QSGD{Levels: 3, Norm: L2}, Rand: rng(seed)}))
			},
			func(n int, seed uint64) vecFilter {
				return must(NewQSGDVec(QSGDVecConfig{Len: n, QSGD: QSGD{Levels: 3, Norm: L2}, Rand: rng(seed)}))
			}},
	}
	for _, p := range pairs {
		for _, tl := range testLayouts {
			for seed := range uint64(20) {
				df, vf := p.delta(tl.l, seed), p.vec(tl.l.Delta, seed)
				in := rand.New(rand.NewPCG(seed, 11))
				var dst []float64
				for step := range 12 {
					local := randomLocal(in, tl.l, 5)
					x := make([]float64, tl.l.Delta) // the dense form
					local.Range(func(i int, v float64) bool { x[i] = v; return true })
					send, err := df.Step(local, nil)
					if err != nil {
						t.Fatal(err)
					}
					if dst, err = vf.Step(dst, x); err != nil {
						t.Fatal(err)
					}
					if !sameBits(send.Vec, dst) {
						t.Fatalf("%s %s seed %d step %d: Delta sends %v; vector sends %v", p.name, tl.name, seed, step, send.Vec, dst)
					}
					held := make([]float64, tl.l.Delta)
					vf.RangeHeld(func(i int, v float64) bool { held[i] = v; return true })
					if !sameBits(heldVec(df), held) || df.Held() != vf.Held() {
						t.Fatalf("%s %s seed %d step %d: Delta holds %v; vector holds %v", p.name, tl.name, seed, step, heldVec(df), held)
					}
				}
				if fd, fv := df.Flush(), vf.Flush(nil); !sameBits(fd.Vec, fv) || vf.Held().Entries != 0 {
					t.Fatalf("%s %s seed %d: Delta flushes %v; vector flushes %v (then holds %+v)", p.name, tl.name, seed, fd.Vec, fv, vf.Held())
				}
			}
		}
	}
}

func sameBits(a, b []float64) bool {
	return slices.EqualFunc(a, b, func(x, y float64) bool { return math.Float64bits(x) == math.Float64bits(y) })
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// Bad vectors are refused with the filter and dst unchanged; bad configs
// wrap ErrConfig.
func TestVecErrors(t *testing.T) {
	for _, c := range []struct {
		name string
		err  error
	}{
		{"TopKVec Len 0", second(NewTopKVec(TopKVecConfig{K: 1}))},
		{"TopKVec K 0", second(NewTopKVec(TopKVecConfig{Len: 3}))},
		{"QSGDVec Len -1", second(NewQSGDVec(QSGDVecConfig{Len: -1, Rand: rand.New(rand.NewPCG(1, 1))}))},
		{"QSGDVec no Rand", second(NewQSGDVec(QSGDVecConfig{Len: 3}))},
		{"QSGDVec levels", second(NewQSGDVec(QSGDVecConfig{Len: 3, QSGD: QSGD{Levels: -2}, Rand: rand.New(rand.NewPCG(1, 1))}))},
	} {
		if !errors.Is(c.err, ErrConfig) {
			t.Errorf("%s: error %v; want ErrConfig", c.name, c.err)
		}
	}
	for _, f := range []vecFilter{
		must(NewTopKVec(TopKVecConfig{Len: 3, K: 1})),
		must(NewQSGDVec(QSGDVecConfig{Len: 3, ErrorFeedback: true, Rand: rand.New(rand.NewPCG(1, 1))})),
	} {
		if _, err := f.Step(nil, []float64{1, 2, 4}); err != nil {
			t.Fatal(err)
		}
		before := f.Held()
		dst := []float64{7, 7, 7}
		got, err := f.Step(dst, []float64{1, 2})
		if !errors.Is(err, ErrLength) || !sameBits(got, []float64{7, 7, 7}) {
			t.Errorf("%T.Step of 2 entries = %v, %v; want dst unchanged and ErrLength", f, got, err)
		}
		got, err = f.Step(dst, []float64{1, math.NaN(), 2})
		var nf *algorithms.NonFiniteError
		if !errors.As(err, &nf) || nf.Index != 1 || nf.What != "x" || !sameBits(got, []float64{7, 7, 7}) ||
			!strings.HasPrefix(err.Error(), "filter: ") || !strings.HasSuffix(err.Error(), ".Step: x[1] = NaN: not finite") {
			t.Errorf("%T.Step with a NaN = %v, %v; want dst unchanged and an error naming x[1] that wraps a NonFiniteError", f, got, err)
		}
		if f.Held() != before {
			t.Errorf("%T: refused steps changed what is held: %+v, was %+v", f, f.Held(), before)
		}
	}
	// An entry that would overflow the accumulator is refused, naming it.
	tk := must(NewTopKVec(TopKVecConfig{Len: 3, K: 1}))
	// A tie sends x[0] and holds x[2] = MaxFloat64; adding it again overflows.
	if _, err := tk.Step(nil, []float64{math.MaxFloat64, 0, math.MaxFloat64}); err != nil {
		t.Fatal(err)
	}
	_, err := tk.Step(nil, []float64{0, 0, math.MaxFloat64})
	var nf *algorithms.NonFiniteError
	if !errors.As(err, &nf) || nf.What != "accumulated delta" || !strings.HasSuffix(err.Error(), "x[2] makes the held entry +Inf: overflow") {
		t.Errorf("overflowing Step = %v; want an error naming x[2] that wraps a NonFiniteError", err)
	}
	f := must(NewTopKVec(TopKVecConfig{Len: 2, K: 1, Float32: true}))
	if _, err := f.Step(nil, []float64{1e300, 1}); !errors.Is(err, ErrRange) {
		t.Errorf("TopKVec Float32 Step of 1e300 = %v; want ErrRange", err)
	}
}

func second[T any](_ T, err error) error { return err }
