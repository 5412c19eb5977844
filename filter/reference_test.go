package filter

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"

	"github.com/syncmodels/syncmodels/algorithms"
)

// refISP is a deliberately naive significance filter, written from the
// MLLess code's get_significant_updates: one pass over every entry with the
// division form |acc_i / w_i| > v/sqrt(step+1), w_i = 0 handled apart.
type refISP struct {
	v    float64
	step int
	acc  []float64
}

func (r *refISP) Step(local []float64, live []bool, w []float64) []float64 {
	for i, x := range local {
		r.acc[i] += x
	}
	vt := r.v / math.Sqrt(float64(r.step+1))
	send := make([]float64, len(local))
	for i, a := range r.acc {
		if !live[i] || a == 0 {
			continue
		}
		if w[i] == 0 || math.Abs(a/w[i]) > vt {
			send[i] = a
			r.acc[i] = 0
		}
	}
	r.step++
	return send
}

// refTopK is a deliberately naive top-k with error feedback: sort every
// nonzero accumulated entry by magnitude, ties by index.
type refTopK struct {
	k   int
	acc []float64
}

func (r *refTopK) Step(local []float64) []float64 {
	var idx []int
	for i, x := range local {
		r.acc[i] += x
	}
	for i, a := range r.acc {
		if a != 0 {
			idx = append(idx, i)
		}
	}
	sort.SliceStable(idx, func(p, q int) bool { return math.Abs(r.acc[idx[p]]) > math.Abs(r.acc[idx[q]]) })
	send := make([]float64, len(local))
	for _, i := range idx[:min(r.k, len(idx))] {
		send[i] = r.acc[i]
		r.acc[i] = 0
	}
	return send
}

// conserve checks "nothing lost, nothing duplicated": the sum of every send
// plus what is held equals the sum of every local delta, exactly.
type conserve struct {
	local, sent      []float64
	count, sentCount int
}

func newConserve(n int) *conserve {
	return &conserve{local: make([]float64, n), sent: make([]float64, n)}
}

func (c *conserve) add(local, send *algorithms.Delta) {
	for i, v := range local.Vec {
		c.local[i] += v
	}
	send.Range(func(i int, v float64) bool { c.sent[i] += v; return true })
	c.count += local.Count
	c.sentCount += send.Count
}

func (c *conserve) check(t *testing.T, step int, f Filter) {
	t.Helper()
	held := heldVec(f)
	for i := range c.local {
		if got, want := c.sent[i]+held[i], c.local[i]; got != want {
			t.Fatalf("step %d: entry %d: sent %v + held %v = %v; want Σlocal %v", step, i, c.sent[i], held[i], got, want)
		}
	}
	if c.sentCount != c.count {
		t.Fatalf("step %d: Σ send.Count = %d; want Σ local.Count %d", step, c.sentCount, c.count)
	}
}

func TestSignificanceMatchesReference(t *testing.T) {
	for _, tl := range testLayouts {
		for _, v := range []float64{0, 0.05, 0.5, 0.7, 3} {
			for _, f32 := range []bool{false, true} {
				t.Run(fmt.Sprintf("%s/v=%v/f32=%v", tl.name, v, f32), func(t *testing.T) {
					l := tl.l
					rng := rand.New(rand.NewPCG(1, uint64(l.Delta)*1000+uint64(v*100)))
					f := mustSignificance(t, SignificanceConfig{Layout: l, V: v, Float32: f32})
					ref := &refISP{v: v, acc: make([]float64, l.Delta)}
					cons := newConserve(l.Delta)
					w := randomReplica(rng, l.Delta)
					sentSome, heldSome := false, false
					for step := range 400 {
						local := randomLocal(rng, l, 1+rng.IntN(5))
						localVec := slices.Clone(local.Vec)
						live := liveSet(local)
						send, err := f.Step(local, w)
						if err != nil {
							t.Fatalf("step %d: %v", step, err)
						}
						want := ref.Step(localVec, live, w)
						for i := range want {
							if send.Vec[i] != want[i] {
								if f32 && want[i] != 0 && send.Vec[i] == round32(want[i]) {
									// Float32 sends the rounding; the
									// reference's residual is kept below.
									ref.acc[i] = want[i] - send.Vec[i]
									continue
								}
								t.Fatalf("step %d: send[%d] = %v; want %v (acc held %v, w %v)", step, i, send.Vec[i], want[i], heldVec(f)[i], w[i])
							}
						}
						if send.Count != local.Count {
							t.Fatalf("step %d: send.Count = %d; want local.Count %d", step, send.Count, local.Count)
						}
						if err := algorithms.CheckApply(l, send); err != nil {
							t.Fatalf("step %d: send is not a valid delta: %v", step, err)
						}
						if f32 {
							send.Range(func(i int, v float64) bool {
								if v != round32(v) {
									t.Fatalf("step %d: Float32 send[%d] = %v is not a float32", step, i, v)
								}
								return true
							})
						}
						cons.add(local, send)
						cons.check(t, step, f)
						if got := heldVec(f); !slices.Equal(got, ref.acc) {
							t.Fatalf("step %d: held %v; want reference %v", step, got, ref.acc)
						}
						sentSome = sentSome || slices.ContainsFunc(want, func(x float64) bool { return x != 0 })
						heldSome = heldSome || f.Held().Entries > 0
						// Others' updates move the replica, never acc.
						for range 1 + l.Delta/4 {
							w[rng.IntN(l.Delta)] += dyadic(rng, 0)
						}
					}
					if !sentSome {
						t.Error("the stream never sent anything: test too weak")
					}
					if v > 0 && !heldSome {
						t.Error("the stream never held anything back with v > 0: test too weak")
					}
				})
			}
		}
	}
}

func TestTopKMatchesReference(t *testing.T) {
	for _, tl := range testLayouts {
		for _, k := range []int{1, 3, 16, 1000} {
			t.Run(fmt.Sprintf("%s/k=%d", tl.name, k), func(t *testing.T) {
				l := tl.l
				rng := rand.New(rand.NewPCG(2, uint64(l.Delta)*100+uint64(k)))
				f, err := NewTopK(TopKConfig{Layout: l, K: k})
				if err != nil {
					t.Fatal(err)
				}
				ref := &refTopK{k: k, acc: make([]float64, l.Delta)}
				cons := newConserve(l.Delta)
				for step := range 300 {
					local := randomLocal(rng, l, rng.IntN(4))
					if step%7 == 0 {
						// Ties in magnitude: the smaller index must win.
						local.Range(func(i int, v float64) bool {
							if v != 0 {
								local.Vec[i] = math.Copysign(1, v)
							}
							return true
						})
					}
					want := ref.Step(slices.Clone(local.Vec))
					send, err := f.Step(local, nil)
					if err != nil {
						t.Fatalf("step %d: %v", step, err)
					}
					if !slices.Equal(send.Vec, want) {
						t.Fatalf("step %d: send %v; want %v", step, send.Vec, want)
					}
					if err := algorithms.CheckApply(l, send); err != nil {
						t.Fatalf("step %d: send is not a valid delta: %v", step, err)
					}
					cons.add(local, send)
					cons.check(t, step, f)
				}
			})
		}
	}
}
