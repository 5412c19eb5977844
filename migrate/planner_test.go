package migrate

import (
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"
)

// stragglers is the hand-worked barrier: workers 0–3 slow (P 1, 250
// points/s, 256 points), 4–15 fast (P 2, 1000 points/s, 256 points).
func stragglers() []Stats {
	s := make([]Stats, 16)
	for w := range s {
		s[w] = Stats{Passes: 2, Speed: 1000, Size: 256}
		if w < 4 {
			s[w] = Stats{Passes: 1, Speed: 250, Size: 256}
		}
	}
	return s
}

func TestGroups(t *testing.T) {
	st := stragglers()
	gs, err := Groups(st, Tolerance{})
	if err != nil {
		t.Fatal(err)
	}
	if len(gs) != 2 || !reflect.DeepEqual(gs[0].Workers, []int{0, 1, 2, 3}) || len(gs[1].Workers) != 12 {
		t.Fatalf("Groups = %+v; want {0..3} and {4..15}", gs)
	}
	if g := gs[1]; g.Passes != 2 || g.Speed != 1000 || g.Size != 256 {
		t.Errorf("fast group statistics = %+v; want P 2, V 1000, N 256", g)
	}
	// Exact grouping splits on any difference; a tolerance merges.
	st[5].Speed = 990
	if gs, _ := Groups(st, Tolerance{}); len(gs) != 3 {
		t.Errorf("exact: %d groups; want 3", len(gs))
	}
	gs, _ = Groups(st, Tolerance{Speed: 0.02})
	if len(gs) != 2 {
		t.Fatalf("2%% speed tolerance: %d groups; want 2", len(gs))
	}
	// Means: (11·1000 + 990)/12 = 999.1666….
	if want := (11*1000 + 990) / 12.0; math.Abs(gs[1].Speed-want) > 1e-9 {
		t.Errorf("mean speed = %v; want %v", gs[1].Speed, want)
	}
	// Workers with no points are left out.
	st[7].Size = 0
	gs, _ = Groups(st, Tolerance{Speed: 0.02})
	for _, g := range gs {
		for _, w := range g.Workers {
			if w == 7 {
				t.Errorf("worker 7 (size 0) grouped: %+v", gs)
			}
		}
	}
}

func TestPlanHandWorked(t *testing.T) {
	p, err := NewPlanner(Config{Epsilon: 0.4, Rounds: 4, Test: TestCurrent})
	if err != nil {
		t.Fatal(err)
	}
	dec, err := p.Plan(Barrier{Now: time.Second, Workers: stragglers(), Remaining: 8 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	// Eq. 8 on the passes so far: mean of the two super-workers (1+2)/2 =
	// 1.5, deviation 0.5 > ε = 0.4: a cycle starts, split T/d = 8 s/4.
	if dec.Imbalance != 0.5 || dec.Balanced || dec.Round != 1 || !dec.NewPlan || dec.Split != 2*time.Second {
		t.Fatalf("decision = %+v; want imbalance 0.5, unbalanced, round 1, new plan, split 2s", dec)
	}
	// P̃ = P + τ·V/N: slow 1 + 2·250/256 = 2.953125, fast 2 + 2·1000/256
	// = 9.8125. Eq. 9 (TestEq9HandWorked, second case): Δ = 337152/1817 ≈
	// 185.55 → 186 points per slow worker; β = 1/3, so each fast worker
	// receives 4·186/12 = 62.
	if len(dec.Pairs) != 1 {
		t.Fatalf("pairs = %+v; want one", dec.Pairs)
	}
	pr := dec.Pairs[0]
	if pr.Source != 0 || pr.Target != 1 || pr.SourcePredicted != 2.953125 || pr.TargetPredicted != 9.8125 ||
		pr.Beta != 1.0/3 || math.Abs(pr.Delta-337152.0/1817) > 1e-9 || pr.Points != 186 || pr.Compensation {
		t.Fatalf("pair = %+v", pr)
	}
	var want []Transfer
	for s := range 4 {
		for k := range 3 {
			want = append(want, Transfer{From: s, To: 4 + 3*s + k, Points: 62})
		}
	}
	if !reflect.DeepEqual(dec.Transfers, want) {
		t.Fatalf("transfers = %v; want %v", dec.Transfers, want)
	}

	// Mid-round: the plan stands.
	dec, _ = p.Plan(Barrier{Now: 2 * time.Second, Workers: stragglers(), Remaining: 7 * time.Second})
	if dec.NewPlan || dec.Round != 1 || dec.Transfers != nil {
		t.Fatalf("mid-round decision = %+v; want round 1, no new plan", dec)
	}
	// Round 2 at 1 s + 2 s; still unbalanced: planned again with the
	// cycle's split.
	dec, _ = p.Plan(Barrier{Now: 3 * time.Second, Workers: stragglers(), Remaining: 6 * time.Second})
	if !dec.NewPlan || dec.Round != 2 || dec.Split != 2*time.Second || len(dec.Transfers) == 0 {
		t.Fatalf("round 2 decision = %+v", dec)
	}
	// Balanced at round 3's start: the cycle ends and the plan is
	// withdrawn.
	bal := stragglers()
	for w := range bal {
		bal[w].Passes = 2
	}
	dec, _ = p.Plan(Barrier{Now: 5 * time.Second, Workers: bal, Remaining: 4 * time.Second})
	if !dec.NewPlan || dec.Round != 0 || dec.Transfers != nil || !dec.Balanced || p.Round() != 0 {
		t.Fatalf("balanced decision = %+v; want the cycle to end", dec)
	}
	// Idle and balanced: nothing to do.
	dec, _ = p.Plan(Barrier{Now: 6 * time.Second, Workers: bal, Remaining: 3 * time.Second})
	if dec.NewPlan || dec.Round != 0 {
		t.Fatalf("idle decision = %+v", dec)
	}
}

func TestPlanCycleOfDRounds(t *testing.T) {
	p, _ := NewPlanner(Config{Epsilon: 0.4, Rounds: 2, Test: TestCurrent})
	var rounds []int
	for s := range 7 {
		dec, err := p.Plan(Barrier{Now: time.Duration(s) * time.Second, Workers: stragglers(), Remaining: 4 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		rounds = append(rounds, dec.Round)
	}
	// T = 4 s, d = 2: rounds of 2 s. Always unbalanced, so after round 2
	// the cycle ends and the same barrier launches the next one.
	if want := []int{1, 1, 2, 2, 1, 1, 2}; !reflect.DeepEqual(rounds, want) {
		t.Errorf("rounds = %v; want %v", rounds, want)
	}
}

func TestPlanRemainingPasses(t *testing.T) {
	p, _ := NewPlanner(Config{Epsilon: 0.4, Test: TestCurrent})
	// Mean pass rate over the super-workers: (250/256 + 1000/256)/2 =
	// 625/256 passes/s; 19.53125 passes take 19.53125·256/625 = 8 s,
	// split 8 s/4 = 2 s.
	dec, err := p.Plan(Barrier{Now: time.Second, Workers: stragglers(), RemainingPasses: 19.53125})
	if err != nil {
		t.Fatal(err)
	}
	if dec.Split != 2*time.Second {
		t.Errorf("split = %v; want 2s", dec.Split)
	}
}

func TestPlanTests(t *testing.T) {
	for _, c := range []struct {
		test Test
		want float64
	}{
		// Passes so far: 1 and 2, mean 1.5 → 0.5.
		{TestCurrent, 0.5},
		// End of the split (τ = 8 s/4 = 2 s): 2.953125 and 9.8125 →
		// (9.8125 − 2.953125)/2 = 3.4296875.
		{TestSplit, 3.4296875},
		// Convergence (T = 8 s): 1 + 8·250/256 = 8.8125 and 2 +
		// 8·1000/256 = 33.25 → (33.25 − 8.8125)/2 = 12.21875.
		{TestFinal, 12.21875},
	} {
		p, _ := NewPlanner(Config{Test: c.test})
		dec, _ := p.Plan(Barrier{Now: time.Second, Workers: stragglers(), Remaining: 8 * time.Second})
		if dec.Imbalance != c.want {
			t.Errorf("%v: Imbalance = %v; want %v", c.test, dec.Imbalance, c.want)
		}
	}
}

func TestPlanMinSplit(t *testing.T) {
	p, _ := NewPlanner(Config{Epsilon: 0.4, Test: TestCurrent, MinSplit: 3 * time.Second})
	dec, _ := p.Plan(Barrier{Now: time.Second, Workers: stragglers(), Remaining: 8 * time.Second})
	if dec.Split != 3*time.Second {
		t.Errorf("split = %v; want MinSplit 3s (T/d = 2s)", dec.Split)
	}
}

func TestPlanNoTimeLeft(t *testing.T) {
	p, _ := NewPlanner(Config{Epsilon: 0.4, Test: TestCurrent})
	dec, err := p.Plan(Barrier{Now: time.Second, Workers: stragglers()})
	if err != nil {
		t.Fatal(err)
	}
	if dec.Balanced || dec.NewPlan || dec.Round != 0 {
		t.Errorf("decision with no remaining time = %+v; want unbalanced, no plan", dec)
	}
}

func TestPlanKeepsAPoint(t *testing.T) {
	// A stalled source would give everything (Δ = N_s); it keeps one.
	st := []Stats{{Passes: 0, Speed: 0, Size: 10}, {Passes: 5, Speed: 100, Size: 10}}
	p, _ := NewPlanner(Config{Test: TestCurrent})
	dec, _ := p.Plan(Barrier{Now: 0, Workers: st, Remaining: time.Second})
	if len(dec.Transfers) != 1 || dec.Transfers[0].Points != 9 {
		t.Errorf("transfers = %+v; want 9 points from 0 to 1", dec.Transfers)
	}
}

func TestSpread(t *testing.T) {
	for _, c := range []struct {
		sources, targets int
		per              int
	}{{4, 12, 186}, {4, 12, 178}, {3, 2, 5}, {1, 7, 3}, {5, 5, 0}, {2, 3, 1}} {
		src, dst := make([]int, c.sources), make([]int, c.targets)
		for i := range src {
			src[i] = i
		}
		for i := range dst {
			dst[i] = 100 + i
		}
		out := map[int]int{}
		in := map[int]int{}
		for _, tr := range spread(nil, 0, src, dst, c.per) {
			out[tr.From] += tr.Points
			in[tr.To] += tr.Points
		}
		total := c.sources * c.per
		for _, s := range src {
			if out[s] != c.per {
				t.Errorf("%+v: source %d sends %d; want %d", c, s, out[s], c.per)
			}
		}
		for k, d := range dst {
			want := total / c.targets
			if k < total%c.targets {
				want++
			}
			if in[d] != want {
				t.Errorf("%+v: target %d receives %d; want %d", c, d, in[d], want)
			}
		}
	}
}

func TestConfigValidate(t *testing.T) {
	var c Config
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	if c.Epsilon != DefaultEpsilon || c.Rounds != DefaultRounds || c.MinPoints != 1 || c.Test != TestFinal {
		t.Errorf("defaults = %+v", c)
	}
	for _, c := range []struct {
		cfg   Config
		input string
	}{
		{Config{Epsilon: 1.5}, "Config.Epsilon"},
		{Config{Epsilon: -0.1}, "Config.Epsilon"},
		{Config{Epsilon: math.NaN()}, "Config.Epsilon"},
		{Config{Rounds: -1}, "Config.Rounds"},
		{Config{Test: 9}, "Config.Test"},
		{Config{MinPoints: -2}, "Config.MinPoints"},
		{Config{MinSplit: -time.Second}, "Config.MinSplit"},
		{Config{Tolerance: Tolerance{Speed: math.Inf(1)}}, "Tolerance.Speed"},
		{Config{Tolerance: Tolerance{Passes: -1}}, "Tolerance.Passes"},
	} {
		_, err := NewPlanner(c.cfg)
		var ie *InputError
		if !errors.As(err, &ie) || ie.Input != c.input || !errors.Is(err, ErrConfig) {
			t.Errorf("NewPlanner(%+v) = %v; want an ErrConfig naming %s", c.cfg, err, c.input)
		}
	}
}

func TestPlanBadInput(t *testing.T) {
	good := func() Barrier {
		return Barrier{Now: 5 * time.Second, Workers: stragglers(), Remaining: 8 * time.Second}
	}
	for _, c := range []struct {
		name  string
		edit  func(*Barrier)
		input string
		err   error
	}{
		{"negative size", func(b *Barrier) { b.Workers[3].Size = -1 }, "Barrier.Workers[3].Size", ErrInput},
		{"NaN speed", func(b *Barrier) { b.Workers[9].Speed = math.NaN() }, "Barrier.Workers[9].Speed", ErrInput},
		{"negative speed", func(b *Barrier) { b.Workers[0].Speed = -1 }, "Barrier.Workers[0].Speed", ErrInput},
		{"Inf passes", func(b *Barrier) { b.Workers[2].Passes = math.Inf(1) }, "Barrier.Workers[2].Passes", ErrInput},
		{"negative passes", func(b *Barrier) { b.Workers[2].Passes = -0.5 }, "Barrier.Workers[2].Passes", ErrInput},
		{"no workers", func(b *Barrier) { b.Workers = nil }, "Barrier.Workers", ErrInput},
		{"negative remaining", func(b *Barrier) { b.Remaining = -time.Second }, "Barrier.Remaining", ErrInput},
		{"NaN remaining passes", func(b *Barrier) { b.RemainingPasses = math.NaN() }, "Barrier.RemainingPasses", ErrInput},
		{"time going back", func(b *Barrier) { b.Now = time.Second }, "Barrier.Now", ErrInput},
	} {
		p, _ := NewPlanner(Config{Epsilon: 0.4, Test: TestCurrent})
		if _, err := p.Plan(good()); err != nil {
			t.Fatal(err)
		}
		before := *p
		b := good()
		b.Now += time.Second
		c.edit(&b)
		_, err := p.Plan(b)
		var ie *InputError
		if !errors.As(err, &ie) || ie.Input != c.input || !errors.Is(err, c.err) || !strings.Contains(err.Error(), c.input) {
			t.Errorf("%s: Plan = %v; want an error naming %s", c.name, err, c.input)
		}
		if !reflect.DeepEqual(*p, before) {
			t.Errorf("%s: planner changed: %+v; was %+v", c.name, *p, before)
		}
	}
	if _, err := Groups([]Stats{{Size: -3}}, Tolerance{}); !errors.Is(err, ErrInput) || !strings.Contains(err.Error(), "stats[0].Size") {
		t.Errorf("Groups(negative size) = %v; want an error naming stats[0].Size", err)
	}
}
