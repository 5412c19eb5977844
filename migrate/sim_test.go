package migrate

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"testing"
	"time"
)

// sim is the test's pure-Go runtime, a discrete-event loop in virtual
// time: workers train at fixed speeds (a slow worker Slowdown times
// slower), a window arrives Latency + PerPoint × its data points after it
// opens (a virtual one after Latency) and its source opens the next at
// once, and at every barrier (every Interval) the planner decides and
// idle sources open windows. Before each event every worker trains the
// points its speed allows since the previous one.
type sim struct {
	Workers, Slow int
	Slowdown      float64
	Size          int           // points per worker
	Fast          float64       // points per second of a regular worker
	Interval      time.Duration // between barriers
	Horizon       time.Duration
	Migrate       bool
	Planner       Config
	Window        int
	Latency       time.Duration
	PerPoint      time.Duration
	// Predict is the remaining time the runtime predicts at now; nil is
	// the truth, Horizon − now.
	Predict func(now time.Duration) time.Duration
	// Recover, if positive, is when the slow workers become as fast as
	// the others (FSP §4.3: stragglers turn "fast" and migration reverses).
	Recover time.Duration
	// CheckAll checks the invariants after every operation; otherwise
	// after every barrier.
	CheckAll bool
}

type simSample struct {
	At        time.Duration
	Passes    []float64 // per worker, Load.Passes
	Imbalance float64   // Eq. 8 over the super-workers' current passes
	Ratio     float64   // max/min of the workers' passes
}

type simResult struct {
	Samples       []simSample
	Data, Virtual int64 // points moved with data, flipped
	Windows       int
	Rounds        int       // new plans with transfers
	Counts        [][]int32 // final per-point counts by home
	Trained       int64     // points trained in total
}

type flight struct {
	id       uint64
	src      int
	due      time.Duration
	virtual  bool
	validate func() error
}

func (s sim) run(tb testing.TB) simResult {
	tb.Helper()
	sizes := make([]int, s.Workers)
	speeds := make([]float64, s.Workers)
	for w := range sizes {
		sizes[w] = s.Size
		speeds[w] = s.Fast
		if w < s.Slow {
			speeds[w] = s.Fast / s.Slowdown
		}
	}
	pl, err := NewPlacement(sizes, PlacementConfig{WindowSize: s.Window})
	if err != nil {
		tb.Fatal(err)
	}
	planner, err := NewPlanner(s.Planner)
	if err != nil {
		tb.Fatal(err)
	}
	check := func(all bool, format string, args ...any) {
		if !all {
			return
		}
		if err := pl.Check(); err != nil {
			tb.Fatalf("after %s: %v", fmt.Sprintf(format, args...), err)
		}
	}
	var res simResult
	var flying []flight
	budget := make([]float64, s.Workers)
	var buf []Point
	open := func(now time.Duration) {
		for w := range s.Workers {
			win, ok, err := pl.OpenWindow(w)
			if err != nil {
				tb.Fatal(err)
			}
			if !ok {
				continue
			}
			res.Windows++
			delay := s.Latency + time.Duration(len(win.Points)-win.Virtual)*s.PerPoint
			flying = append(flying, flight{id: win.ID, src: w, due: now + delay})
			check(s.CheckAll, "OpenWindow(%d)", w)
		}
	}
	// Event loop: the next event is the earliest delivery or the next
	// barrier; every worker trains up to it first.
	var last time.Duration
	train := func(now time.Duration) {
		for w := range s.Workers {
			budget[w] += speeds[w] * (now - last).Seconds()
			n := int(budget[w])
			budget[w] -= float64(n)
			buf, err = pl.Next(buf[:0], w, n)
			if err != nil {
				tb.Fatal(err)
			}
			if err := pl.Advance(w, len(buf)); err != nil {
				tb.Fatal(err)
			}
			res.Trained += int64(len(buf))
			check(s.CheckAll, "Advance(%d, %d) at %v", w, len(buf), now)
		}
		last = now
	}
	barrier := s.Interval
	for {
		slices.SortStableFunc(flying, func(a, b flight) int { return cmp.Compare(a.due, b.due) })
		now := barrier
		if len(flying) > 0 && flying[0].due < now {
			now = flying[0].due
		}
		if now > s.Horizon {
			break
		}
		if s.Recover > 0 && last < s.Recover && now >= s.Recover {
			train(s.Recover)
			for w := range speeds {
				speeds[w] = s.Fast
			}
		}
		train(now)
		if now < barrier {
			f := flying[0]
			flying = flying[1:]
			if err := pl.Deliver(f.id); err != nil {
				tb.Fatal(err)
			}
			check(s.CheckAll, "Deliver(%d) at %v", f.id, now)
			open(now)
			continue
		}
		barrier += s.Interval
		for w := range s.Workers {
			if err := pl.BeginIteration(w); err != nil {
				tb.Fatal(err)
			}
		}
		check(true, "BeginIteration at %v", now)
		stats, err := pl.Stats(speeds)
		if err != nil {
			tb.Fatal(err)
		}
		smp := simSample{At: now, Passes: make([]float64, s.Workers)}
		lo, hi := math.Inf(1), 0.0
		for w, st := range stats {
			smp.Passes[w] = st.Passes
			lo, hi = math.Min(lo, st.Passes), math.Max(hi, st.Passes)
		}
		smp.Ratio = hi / lo
		gs := groups(stats, s.Planner.Tolerance)
		cur := make([]float64, len(gs))
		for k, g := range gs {
			cur[k] = g.Passes
		}
		smp.Imbalance = Imbalance(cur)
		res.Samples = append(res.Samples, smp)
		if !s.Migrate {
			continue
		}
		remaining := s.Horizon - now
		if s.Predict != nil {
			remaining = s.Predict(now)
		}
		dec, err := planner.Plan(Barrier{Now: now, Workers: stats, Remaining: remaining})
		if err != nil {
			tb.Fatal(err)
		}
		if planHook != nil && dec.NewPlan {
			planHook(now, dec)
		}
		if dec.NewPlan {
			if len(dec.Transfers) > 0 {
				res.Rounds++
			}
			if err := pl.SetPlan(dec.Transfers); err != nil {
				tb.Fatal(err)
			}
			check(s.CheckAll, "SetPlan at %v", now)
		}
		open(now)
	}
	if err := pl.Check(); err != nil {
		tb.Fatal(err)
	}
	res.Data, res.Virtual = pl.Moved()
	res.Counts = make([][]int32, s.Workers)
	for h := range s.Workers {
		for i := range s.Size {
			c, _, err := pl.Count(Point{h, i})
			if err != nil {
				tb.Fatal(err)
			}
			res.Counts[h] = append(res.Counts[h], int32(c))
		}
	}
	return res
}

var planHook func(time.Duration, Decision)

func defaultSim() sim {
	return sim{
		Workers: 16, Slow: 4, Slowdown: 4,
		Size: 128, Fast: 1000,
		Interval: 20 * time.Millisecond,
		Horizon:  8 * time.Second,
		Migrate:  true,
		Planner:  Config{Epsilon: 0.5, Rounds: 4, Tolerance: Tolerance{Passes: 0.25, Speed: 0.05, Size: 0.05}},
		Window:   16, Latency: 2 * time.Millisecond, PerPoint: 50 * time.Microsecond,
	}
}

func TestSimExplore(t *testing.T) {
	for _, test := range []Test{TestFinal, TestSplit, TestCurrent} {
		for _, mig := range []bool{false, true} {
			s := defaultSim()
			s.Migrate = mig
			s.Planner.Test = test
			start := time.Now()
			r := s.run(t)
			maxImb, maxRatio := 0.0, 0.0
			for _, smp := range r.Samples {
				if smp.At < time.Second {
					continue
				}
				maxImb = math.Max(maxImb, smp.Imbalance)
				maxRatio = math.Max(maxRatio, smp.Ratio)
			}
			last := r.Samples[len(r.Samples)-1]
			lo, hi := int32(math.MaxInt32), int32(0)
			for _, cs := range r.Counts {
				for _, c := range cs {
					lo, hi = min(lo, c), max(hi, c)
				}
			}
			t.Logf("%v migrate=%v: maxImb %.3f maxRatio %.3f last ratio %.3f imb %.3f passes %.2f..; counts %d..%d data %d virtual %d windows %d rounds %d (%v)",
				test, mig, maxImb, maxRatio, last.Ratio, last.Imbalance, last.Passes[:5], lo, hi, r.Data, r.Virtual, r.Windows, r.Rounds, time.Since(start))
		}
	}
}
