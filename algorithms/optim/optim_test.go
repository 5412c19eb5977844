package optim

import (
	"errors"
	"math"
	"slices"
	"testing"

	"github.com/syncmodels/syncmodels/algorithms"
	"github.com/syncmodels/syncmodels/algorithms/internal/gdtest"
)

// refSteps mirrors testdata/gd/optim_steps.json (written by
// testdata/gd/make_refs.py with plain numpy).
type refSteps struct {
	A           [][]float64 `json:"A"`
	B           []float64   `json:"b"`
	Theta0      []float64   `json:"theta0"`
	Steps       int         `json:"steps"`
	EpochOfStep []int       `json:"epoch_of_step"`
	Width       int         `json:"width"`
	BlockSets   [][]int32   `json:"block_sets"`
	Cases       []struct {
		Name    string      `json:"name"`
		Method  string      `json:"method"`
		LR      float64     `json:"lr"`
		Mu      float64     `json:"mu"`
		Beta1   float64     `json:"beta1"`
		Beta2   float64     `json:"beta2"`
		Eps     float64     `json:"eps"`
		InvSqrt bool        `json:"invsqrt"`
		Dense   [][]float64 `json:"dense"`
		Sparse  [][]float64 `json:"sparse"`
	} `json:"cases"`
}

// relErr returns max_i |got_i − want_i| / max(1, max_i |want_i|): unlike
// gdtest.RelErr it is an absolute error for references below 1, the
// measure the tolerances of these tests are stated in.
func relErr(got, want []float64) float64 {
	scale, e := 1.0, 0.0
	for _, w := range want {
		scale = max(scale, math.Abs(w))
	}
	for i := range want {
		e = max(e, math.Abs(got[i]-want[i]))
	}
	return e / scale
}

func quadGrad(A [][]float64, b, theta, grad []float64) {
	for i := range grad {
		s := -b[i]
		for j, a := range A[i] {
			s += a * theta[j]
		}
		grad[i] = s
	}
}

func TestReferenceTrajectories(t *testing.T) {
	ref := gdtest.LoadJSON[refSteps](t, "optim_steps.json")
	if len(ref.Cases) == 0 {
		t.Fatal("no cases")
	}
	for _, c := range ref.Cases {
		m, err := ParseMethod(c.Method)
		if err != nil {
			t.Fatal(err)
		}
		cfg := Config{Method: m, LR: c.LR, Momentum: c.Mu, Beta1: c.Beta1, Beta2: c.Beta2, Epsilon: c.Eps}
		if c.InvSqrt {
			cfg.Schedule = InvSqrtEpoch
		}
		for _, sparse := range []bool{false, true} {
			want := c.Dense
			name := c.Name + "/dense"
			if sparse {
				want, name = c.Sparse, c.Name+"/lazy"
			}
			t.Run(name, func(t *testing.T) {
				n := len(ref.Theta0)
				opt, err := New(cfg, n)
				if err != nil {
					t.Fatal(err)
				}
				theta := slices.Clone(ref.Theta0)
				grad := make([]float64, n)
				worst := 0.0
				for s := range ref.Steps {
					quadGrad(ref.A, ref.B, theta, grad)
					opt.SetEpoch(ref.EpochOfStep[s])
					if sparse {
						opt.StepBlocks(theta, grad, ref.BlockSets[s], ref.Width)
					} else {
						opt.Step(theta, grad)
					}
					e := relErr(theta, want[s])
					worst = max(worst, e)
					if e > 1e-12 {
						t.Fatalf("step %d: θ = %v; want %v (rel err %.3g)", s+1, theta, want[s], e)
					}
				}
				if opt.Steps() != ref.Steps {
					t.Errorf("Steps() = %d; want %d", opt.Steps(), ref.Steps)
				}
				t.Logf("max rel err over %d steps: %.3g", ref.Steps, worst)
			})
		}
	}
}

// With every block touched, the lazy step is the dense step, bit for bit.
func TestStepBlocksAllEqualsStep(t *testing.T) {
	for _, m := range []Method{SGD, Momentum, Nesterov, Adam} {
		const n, w = 7, 3 // last block short
		a, _ := New(Config{Method: m, LR: 0.05, Schedule: InvSqrtEpoch}, n)
		b, _ := New(Config{Method: m, LR: 0.05, Schedule: InvSqrtEpoch}, n)
		ta, tb := make([]float64, n), make([]float64, n)
		g := make([]float64, n)
		for s := range 9 {
			for i := range g {
				g[i] = math.Sin(float64(3*s+i)) + ta[i]
			}
			a.SetEpoch(s / 2)
			b.SetEpoch(s / 2)
			a.Step(ta, g)
			b.StepBlocks(tb, g, []int32{0, 1, 2}, w)
		}
		if !slices.Equal(ta, tb) {
			t.Errorf("%v: Step gives %v, StepBlocks over all blocks %v", m, ta, tb)
		}
	}
}

func TestStepBlocksLeavesOthers(t *testing.T) {
	for _, m := range []Method{SGD, Momentum, Nesterov, Adam} {
		opt, _ := New(Config{Method: m}, 10)
		theta := make([]float64, 10)
		grad := make([]float64, 10)
		for i := range grad {
			grad[i] = 1
		}
		opt.StepBlocks(theta, grad, []int32{1, 4}, 2) // entries 2,3 and 8,9
		for i, v := range theta {
			live := i == 2 || i == 3 || i == 8 || i == 9
			if live != (v != 0) {
				t.Errorf("%v: θ[%d] = %v after a step on blocks 1 and 4 of width 2", m, i, v)
			}
		}
	}
}

func TestConfigValidate(t *testing.T) {
	var c Config
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	want := Config{Method: SGD, LR: 0.01, Momentum: 0.9, Beta1: 0.9, Beta2: 0.999, Epsilon: 1e-8}
	if c != want {
		t.Errorf("zero Config validated to %+v; want %+v", c, want)
	}
	a := Config{Method: Adam}
	if err := a.Validate(); err != nil || a.LR != 0.001 {
		t.Errorf("Adam default LR = %v (err %v); want 0.001", a.LR, err)
	}
	bad := []Config{
		{Method: Method(9)},
		{Method: -1},
		{Schedule: Schedule(5)},
		{LR: -1},
		{LR: math.NaN()},
		{LR: math.Inf(1)},
		{Momentum: 1},
		{Momentum: -0.1},
		{Beta1: 1},
		{Beta2: 1.5},
		{Beta1: -0.5},
		{Epsilon: -1},
		{Epsilon: math.NaN()},
	}
	for _, c := range bad {
		in := c
		if err := c.Validate(); !errors.Is(err, algorithms.ErrConfig) {
			t.Errorf("Validate(%+v) = %v; want ErrConfig", in, err)
		}
	}
	if _, err := New(Config{}, -1); !errors.Is(err, algorithms.ErrConfig) {
		t.Errorf("New(n=-1) = %v; want ErrConfig", err)
	}
}

func TestRate(t *testing.T) {
	c := Config{LR: 0.3, Schedule: InvSqrtEpoch}
	for e, want := range []float64{0.3, 0.3 / math.Sqrt2, 0.3 / math.Sqrt(3), 0.15} {
		if got := c.Rate(e); math.Abs(got-want) > 1e-16 {
			t.Errorf("Rate(%d) = %v; want %v", e, got, want)
		}
	}
	c.Schedule = Constant
	if got := c.Rate(7); got != 0.3 {
		t.Errorf("constant Rate(7) = %v; want 0.3", got)
	}
}

func TestNames(t *testing.T) {
	for _, m := range []Method{SGD, Momentum, Nesterov, Adam} {
		got, err := ParseMethod(m.String())
		if err != nil || got != m {
			t.Errorf("ParseMethod(%q) = %v, %v; want %v", m.String(), got, err, m)
		}
	}
	if _, err := ParseMethod("rmsprop"); err == nil {
		t.Error("ParseMethod(rmsprop) succeeded")
	}
	if s := Method(7).String(); s != "Method(7)" {
		t.Errorf("Method(7).String() = %q", s)
	}
	if s := InvSqrtEpoch.String(); s != "invsqrt" {
		t.Errorf("InvSqrtEpoch.String() = %q", s)
	}
}

func TestMisusePanics(t *testing.T) {
	opt, _ := New(Config{Method: Adam}, 4)
	for name, fn := range map[string]func(){
		"short theta":    func() { opt.Step(make([]float64, 3), make([]float64, 4)) },
		"block outside":  func() { opt.StepBlocks(make([]float64, 4), make([]float64, 4), []int32{2}, 2) },
		"run outside":    func() { opt.StepBlocks(make([]float64, 4), make([]float64, 4), []int32{1, 2}, 2) },
		"negative block": func() { opt.StepBlocks(make([]float64, 4), make([]float64, 4), []int32{-1}, 2) },
		"zero width":     func() { opt.StepBlocks(make([]float64, 4), make([]float64, 4), []int32{0}, 0) },
		"negative epoch": func() { opt.SetEpoch(-1) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			fn()
		}()
	}
}

func BenchmarkStep(b *testing.B) {
	const n = 1 << 16
	for _, m := range []Method{SGD, Momentum, Nesterov, Adam} {
		b.Run(m.String(), func(b *testing.B) {
			opt, _ := New(Config{Method: m}, n)
			theta, grad := make([]float64, n), make([]float64, n)
			for i := range grad {
				grad[i] = float64(i%7) - 3
			}
			for b.Loop() {
				opt.Step(theta, grad)
			}
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "params/s")
		})
	}
}

// TestOptimizerCheckpoint checks that an optimizer's Restore brings back
// the step counter, the epoch and the buffers, bit for bit.
func TestOptimizerCheckpoint(t *testing.T) {
	for _, m := range []Method{SGD, Momentum, Nesterov, Adam} {
		opt, err := New(Config{Method: m, LR: 0.1, Schedule: InvSqrtEpoch}, 4)
		if err != nil {
			t.Fatal(err)
		}
		theta := []float64{1, 2, 3, 4}
		grads := [][]float64{{1, -1, 2, 0}, {0.5, 0.5, -3, 1}, {2, 0, 1, -1}}
		opt.Step(theta, grads[0])
		opt.SetEpoch(2)
		cp, theta0 := opt.Checkpoint(), slices.Clone(theta)
		replay := func() []float64 {
			th := slices.Clone(theta0)
			opt.Step(th, grads[1])
			opt.SetEpoch(5)
			opt.StepBlocks(th, grads[2], []int32{1}, 2)
			return th
		}
		want := replay()
		for range 2 {
			if err := opt.Restore(cp); err != nil {
				t.Fatalf("%v: Restore: %v", m, err)
			}
			if opt.Steps() != 1 {
				t.Errorf("%v: Steps after Restore = %d; want 1", m, opt.Steps())
			}
			if got := replay(); !slices.Equal(got, want) {
				t.Errorf("%v: after Restore θ = %v; want %v", m, got, want)
			}
		}
		for _, other := range []struct {
			cfg Config
			n   int
		}{{Config{Method: m, LR: 0.1, Schedule: InvSqrtEpoch}, 5}, {Config{Method: m, LR: 0.1}, 4}} {
			o, _ := New(other.cfg, other.n)
			if err := opt.Restore(o.Checkpoint()); !errors.Is(err, algorithms.ErrLayout) {
				t.Errorf("%v: Restore(checkpoint of %+v for %d) = %v; want ErrLayout", m, other.cfg, other.n, err)
			}
		}
	}
}
