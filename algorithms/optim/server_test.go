package optim

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/syncmodels/syncmodels/algorithms"
)

func TestServerMeanGradientStep(t *testing.T) {
	l := algorithms.Layout{Params: 3, Delta: 3}
	s, err := NewServer([]float64{1, 2, 3}, ServerConfig{Layout: l, Optim: Config{LR: 0.5}})
	if err != nil {
		t.Fatal(err)
	}
	d := algorithms.NewDelta(l)
	copy(d.Vec, []float64{4, -4, 8})
	d.Count = 4
	if err := s.Apply(d); err != nil {
		t.Fatal(err)
	}
	// θ − 0.5·sum/4
	if want := []float64{0.5, 2.5, 2}; !slices.Equal(s.Params(), want) {
		t.Errorf("θ = %v; want %v", s.Params(), want)
	}
	if s.Steps() != 1 || s.Points() != 4 {
		t.Errorf("Steps, Points = %d, %d; want 1, 4", s.Steps(), s.Points())
	}
}

func TestServerRefusesBadDeltas(t *testing.T) {
	l := algorithms.Layout{Params: 4, Delta: 4, Block: 2}
	for _, m := range []Method{SGD, Nesterov, Adam} {
		s, err := NewServer([]float64{1, 2, 3, 4}, ServerConfig{Layout: l, Optim: Config{Method: m}})
		if err != nil {
			t.Fatal(err)
		}
		good := algorithms.NewDelta(l)
		good.Vec[0], good.Vec[1] = 1, 1
		good.Touch(0)
		good.Count = 1
		if err := s.Apply(good); err != nil {
			t.Fatal(err)
		}
		before := slices.Clone(s.Params())

		nan := algorithms.NewDelta(l)
		nan.Vec[2] = math.NaN()
		nan.Vec[0] = 1
		nan.Touch(1)
		nan.Touch(0)
		nan.Count = 1
		var nf *algorithms.NonFiniteError
		if err := s.Apply(nan); !errors.As(err, &nf) || nf.Index != 2 {
			t.Errorf("%v: Apply(NaN at 2) = %v; want NonFiniteError at 2", m, err)
		}
		inf := nan.Clone()
		inf.Vec[2] = math.Inf(-1)
		if err := s.Apply(inf); !errors.As(err, &nf) {
			t.Errorf("%v: Apply(-Inf) = %v; want NonFiniteError", m, err)
		}
		for _, bad := range []*algorithms.Delta{
			algorithms.NewDelta(algorithms.Layout{Params: 4, Delta: 4}),           // dense
			algorithms.NewDelta(algorithms.Layout{Params: 5, Delta: 5, Block: 2}), // length
			algorithms.NewDelta(algorithms.Layout{Params: 4, Delta: 4, Block: 1}), // width
			nil,
		} {
			if bad != nil {
				bad.Count = 1
			}
			if err := s.Apply(bad); !errors.Is(err, algorithms.ErrLayout) {
				t.Errorf("%v: Apply(wrong layout) = %v; want ErrLayout", m, err)
			}
		}
		neg := algorithms.NewDelta(l)
		neg.Count = -1
		if err := s.Apply(neg); !errors.Is(err, algorithms.ErrLayout) {
			t.Errorf("%v: Apply(count −1) = %v; want ErrLayout", m, err)
		}
		if !slices.Equal(s.Params(), before) || s.Steps() != 1 || s.Points() != 1 {
			t.Errorf("%v: refused deltas changed the server: θ %v → %v, steps %d", m, before, s.Params(), s.Steps())
		}
		// The optimizer state is unchanged too: the next good step equals
		// the one a fresh server fed only the good deltas takes.
		ref, _ := NewServer([]float64{1, 2, 3, 4}, ServerConfig{Layout: l, Optim: Config{Method: m}})
		ref.Apply(good)
		ref.Apply(good)
		s.Apply(good)
		if !slices.Equal(s.Params(), ref.Params()) {
			t.Errorf("%v: after refused deltas θ = %v; want %v", m, s.Params(), ref.Params())
		}
	}
}

func TestServerCountZeroNoop(t *testing.T) {
	l := algorithms.Layout{Params: 2, Delta: 2}
	s, _ := NewServer([]float64{1, 1}, ServerConfig{Layout: l})
	d := algorithms.NewDelta(l)
	d.Vec[0] = 5
	if err := s.Apply(d); err != nil || s.Steps() != 0 || s.Params()[0] != 1 {
		t.Errorf("Apply(count 0) = %v, steps %d, θ %v; want a no-op", err, s.Steps(), s.Params())
	}
}

func TestServerLazySparse(t *testing.T) {
	l := algorithms.Layout{Params: 6, Delta: 6, Block: 2}
	var projected [][2]int
	s, err := NewServer(make([]float64, 6), ServerConfig{
		Layout: l,
		Optim:  Config{Method: Momentum, LR: 1, Momentum: 0.5},
		Project: func(theta []float64, lo, hi int) {
			projected = append(projected, [2]int{lo, hi})
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	d := algorithms.NewDelta(l)
	d.Vec[4], d.Vec[5] = 2, 2
	d.Touch(2)
	d.Vec[0] = 2
	d.Touch(0)
	d.Count = 2
	if err := s.Apply(d); err != nil {
		t.Fatal(err)
	}
	if want := []float64{-1, 0, 0, 0, -1, -1}; !slices.Equal(s.Params(), want) {
		t.Errorf("θ = %v; want %v", s.Params(), want)
	}
	if want := [][2]int{{0, 2}, {4, 6}}; !slices.Equal(projected, want) {
		t.Errorf("projected spans %v; want %v", projected, want)
	}
	// Adjacent blocks coalesce into one span.
	projected = nil
	d.Reset()
	d.Touch(1)
	d.Touch(0)
	d.Count = 1
	s.Apply(d)
	if want := [][2]int{{0, 4}}; !slices.Equal(projected, want) {
		t.Errorf("projected spans %v; want %v", projected, want)
	}
	// Entry 0 had momentum 1 and zero gradient now: v = 0.5, θ = −1.5.
	// Entries 4, 5 were not touched: their momentum did not move them.
	if want := []float64{-1.5, 0, 0, 0, -1, -1}; !slices.Equal(s.Params(), want) {
		t.Errorf("θ = %v; want %v", s.Params(), want)
	}
}

func TestServerSchedule(t *testing.T) {
	l := algorithms.Layout{Params: 1, Delta: 1}
	if _, err := NewServer([]float64{0}, ServerConfig{Layout: l, Optim: Config{Schedule: InvSqrtEpoch}}); !errors.Is(err, algorithms.ErrConfig) {
		t.Errorf("InvSqrtEpoch without Points: %v; want ErrConfig", err)
	}
	s, err := NewServer([]float64{0}, ServerConfig{Layout: l, Points: 4, Optim: Config{LR: 1, Schedule: InvSqrtEpoch}})
	if err != nil {
		t.Fatal(err)
	}
	d := algorithms.NewDelta(l)
	want := 0.0
	// Batches of 3 points: epochs 0, 0, 1, 2, 3, 3 (points 0, 3, 6, 9, 12, 15).
	for i, e := range []int{0, 0, 1, 2, 3, 3} {
		if s.Epoch() != e {
			t.Errorf("step %d: Epoch() = %d; want %d", i, s.Epoch(), e)
		}
		d.Vec[0], d.Count = 3, 3
		s.Apply(d)
		want -= 1 / math.Sqrt(float64(e+1))
	}
	if math.Abs(s.Params()[0]-want) > 1e-15 {
		t.Errorf("θ = %v; want %v", s.Params()[0], want)
	}
}

func TestNewServerErrors(t *testing.T) {
	l := algorithms.Layout{Params: 2, Delta: 2}
	if _, err := NewServer([]float64{1}, ServerConfig{Layout: l}); !errors.Is(err, algorithms.ErrLayout) {
		t.Errorf("short θ0: %v; want ErrLayout", err)
	}
	var nf *algorithms.NonFiniteError
	if _, err := NewServer([]float64{1, math.NaN()}, ServerConfig{Layout: l}); !errors.As(err, &nf) {
		t.Errorf("NaN θ0: %v; want NonFiniteError", err)
	}
	if _, err := NewServer([]float64{1, 2, 3}, ServerConfig{Layout: algorithms.Layout{Params: 3, Delta: 2}}); !errors.Is(err, algorithms.ErrConfig) {
		t.Errorf("Params ≠ Delta: %v; want ErrConfig", err)
	}
	if _, err := NewServer([]float64{1, 2}, ServerConfig{Layout: l, Optim: Config{LR: -1}}); !errors.Is(err, algorithms.ErrConfig) {
		t.Errorf("bad optimizer: %v; want ErrConfig", err)
	}
	theta0 := []float64{1, 2}
	s, _ := NewServer(theta0, ServerConfig{Layout: l})
	theta0[0] = 9
	if s.Params()[0] != 1 {
		t.Error("NewServer did not copy θ0")
	}
	if s.Optimizer().LR != DefaultLR {
		t.Errorf("Optimizer().LR = %v; want the default", s.Optimizer().LR)
	}
}

func TestNewAlgorithmServer(t *testing.T) {
	l := algorithms.Layout{Params: 2, Delta: 2}
	s, err := NewAlgorithmServer([]float64{1}, ServerConfig{Layout: l})
	if s != nil || !errors.Is(err, algorithms.ErrLayout) {
		t.Errorf("short θ0: %v, %v; want a nil Server and ErrLayout", s, err)
	}
	s, err = NewAlgorithmServer([]float64{1, 2}, ServerConfig{Layout: l})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := s.(*Server); !ok || !slices.Equal(s.Params(), []float64{1, 2}) {
		t.Errorf("NewAlgorithmServer = %T with θ %v", s, s.Params())
	}
}

// TestServerCheckpoint checks that Restore brings back θ, the optimizer
// state (including the lazy state of blocks first touched after the
// checkpoint), Steps, Points and the schedule's epoch, bit for bit, and that
// the checkpoints of other servers are refused.
func TestServerCheckpoint(t *testing.T) {
	const n, width = 8, 2
	// Blocks 2 and 3 are first touched after the checkpoint, then again.
	warm, run := [][]int32{{0}, {0, 1}}, [][]int32{{1, 2}, {2, 3}, {3}, {0, 1, 2, 3}}
	rng := rand.New(rand.NewPCG(5, 6))
	deltas := func(l algorithms.Layout, sets [][]int32) []*algorithms.Delta {
		var ds []*algorithms.Delta
		for _, set := range sets {
			d := algorithms.NewDelta(l)
			for _, b := range set {
				d.Touch(int(b))
				for i := int(b) * width; i < int(b+1)*width; i++ {
					d.Vec[i] = rng.NormFloat64()
				}
			}
			if !d.Sparse() {
				for i := range d.Vec {
					d.Vec[i] = rng.NormFloat64()
				}
			}
			d.Count = 1 + rng.IntN(3)
			ds = append(ds, d)
		}
		return ds
	}
	for _, m := range []Method{SGD, Momentum, Nesterov, Adam} {
		for _, block := range []int{0, width} {
			l := algorithms.Layout{Params: n, Delta: n, Block: block}
			cfg := ServerConfig{Name: "test", Layout: l, Points: 5, Optim: Config{Method: m, LR: 0.1, Schedule: InvSqrtEpoch}}
			s, err := NewServer(make([]float64, n), cfg)
			if err != nil {
				t.Fatal(err)
			}
			name := fmt.Sprintf("%v block %d", m, block)
			for _, d := range deltas(l, warm) {
				if err := s.Apply(d); err != nil {
					t.Fatal(err)
				}
			}
			cp := s.Checkpoint()
			theta, steps, points, epoch := slices.Clone(s.Params()), s.Steps(), s.Points(), s.Epoch()
			ds := deltas(l, run)
			replay := func() [][]float64 {
				var out [][]float64
				for _, d := range ds {
					if err := s.Apply(d); err != nil {
						t.Fatal(err)
					}
					out = append(out, slices.Clone(s.Params()))
				}
				return out
			}
			want := replay()
			if s.Epoch() == epoch {
				t.Fatalf("%s: the run did not change the epoch", name)
			}
			for range 2 {
				if err := s.Restore(cp); err != nil {
					t.Fatalf("%s: Restore: %v", name, err)
				}
				if !slices.Equal(s.Params(), theta) || s.Steps() != steps || s.Points() != points || s.Epoch() != epoch {
					t.Errorf("%s: restored θ %v, steps %d, points %d, epoch %d; want %v, %d, %d, %d",
						name, s.Params(), s.Steps(), s.Points(), s.Epoch(), theta, steps, points, epoch)
				}
				for i, got := range replay() {
					if !slices.Equal(got, want[i]) {
						t.Errorf("%s: step %d after Restore: θ = %v; want %v", name, i, got, want[i])
						break
					}
				}
			}

			others := map[string]ServerConfig{}
			for what, change := range map[string]func(c *ServerConfig){
				"name":   func(c *ServerConfig) { c.Name = "other" },
				"points": func(c *ServerConfig) { c.Points = 6 },
				"method": func(c *ServerConfig) { c.Optim.Method = (m + 1) % 4 },
				"lr":     func(c *ServerConfig) { c.Optim.LR = 0.2 },
				"layout": func(c *ServerConfig) { c.Layout.Block = width - block },
			} {
				c := cfg
				change(&c)
				others[what] = c
			}
			before := slices.Clone(s.Params())
			for what, c := range others {
				o, err := NewServer(make([]float64, n), c)
				if err != nil {
					t.Fatal(err)
				}
				if err := s.Restore(o.Checkpoint()); !errors.Is(err, algorithms.ErrLayout) {
					t.Errorf("%s: Restore(checkpoint of a server with another %s) = %v; want ErrLayout", name, what, err)
				}
			}
			if err := s.Restore(s.opt.Checkpoint()); !errors.Is(err, algorithms.ErrLayout) {
				t.Errorf("%s: Restore(the optimizer's checkpoint) = %v; want ErrLayout", name, err)
			}
			if !slices.Equal(s.Params(), before) || s.Steps() != steps+len(run) {
				t.Errorf("%s: refused checkpoints changed the server", name)
			}
		}
	}
}

// SetParams installs a replica and the global point count but keeps the
// optimizer's state: after it, a momentum step moves θ by the same change
// as the server that kept its own θ (dyadic values, exact). Bad input is
// refused and changes nothing.
func TestServerSetParams(t *testing.T) {
	l := algorithms.Layout{Params: 2, Delta: 2}
	cfg := ServerConfig{Layout: l, Optim: Config{Method: Momentum, LR: 0.5, Momentum: 0.5}}
	a, _ := NewServer([]float64{1, 2}, cfg)
	b, _ := NewServer([]float64{1, 2}, cfg)
	d := algorithms.NewDelta(l)
	copy(d.Vec, []float64{2, -4})
	d.Count = 2
	for _, s := range []*Server{a, b} {
		if err := s.Apply(d); err != nil {
			t.Fatal(err)
		}
	}
	if err := a.SetParams([]float64{8, 16}, 40); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(a.Params(), []float64{8, 16}) || a.Points() != 40 || a.Steps() != 1 {
		t.Fatalf("after SetParams θ = %v, points %d, steps %d", a.Params(), a.Points(), a.Steps())
	}
	for _, bad := range [][]float64{{1}, {math.NaN(), 1}} {
		if err := a.SetParams(bad, 1); err == nil {
			t.Fatalf("SetParams(%v) accepted", bad)
		}
	}
	if err := a.SetParams([]float64{1, 1}, -1); err == nil {
		t.Fatal("SetParams with negative points accepted")
	}
	if !slices.Equal(a.Params(), []float64{8, 16}) || a.Points() != 40 {
		t.Fatalf("refused SetParams changed the server: θ = %v, points %d", a.Params(), a.Points())
	}
	ba := slices.Clone(b.Params())
	for _, s := range []*Server{a, b} {
		if err := s.Apply(d); err != nil {
			t.Fatal(err)
		}
	}
	pa, pb := a.Params(), b.Params()
	for i := range pa {
		if ua, ub := pa[i]-[]float64{8, 16}[i], pb[i]-ba[i]; ua != ub {
			t.Fatalf("entry %d moved by %v after SetParams, %v without: the momentum was lost", i, ua, ub)
		}
	}
}
