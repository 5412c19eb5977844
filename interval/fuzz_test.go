package interval

import (
	"errors"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"
)

// FuzzObserve feeds every tuner a mix of good reports and arbitrary ones
// (NaN, ±Inf, huge, negative, zero, mismatched fields). Whatever comes
// in, a refused report is an ErrInput that leaves the state unchanged,
// nothing panics, and every request keeps to the bounds.
func FuzzObserve(f *testing.F) {
	for _, s := range []uint64{0, 1, 2, 3, 42, 1 << 40} {
		f.Add(s)
	}
	floats := []float64{math.NaN(), math.Inf(1), math.Inf(-1), 0, -0.0, 1, -1, math.MaxFloat64, -math.MaxFloat64, math.SmallestNonzeroFloat64, 1e300, -1e-300}
	durs := []time.Duration{0, 1, -1, time.Millisecond, time.Second, math.MaxInt64, math.MinInt64, time.Hour}
	f.Fuzz(func(t *testing.T, seed uint64) {
		rng := rand.New(rand.NewPCG(seed, seed>>7))
		for _, s := range subjects() {
			tu, p := s.make(t, seed%2 == 0)
			var prev []Request
			for range 150 {
				req, err := tu.Next()
				if err != nil {
					t.Fatalf("%s: Next: %v", s.name, err)
				}
				checkRequest(t, s.name, tu, req, prev)
				prev = append(prev, req)
				for rng.IntN(3) == 0 {
					rep := Report{
						Objective:   floats[rng.IntN(len(floats))],
						Elapsed:     durs[rng.IntN(len(durs))],
						BarrierCost: durs[rng.IntN(len(durs))],
						Iterations:  rng.IntN(5) - 1,
					}
					before := state(tu)
					if err := tu.Observe(rep); err != nil {
						if !errors.Is(err, ErrInput) {
							t.Fatalf("%s %v: Observe(%+v) = %v; want ErrInput", s.name, req, rep, err)
						}
						if !reflect.DeepEqual(state(tu), before) {
							t.Fatalf("%s %v: refused %+v changed the state", s.name, req, rep)
						}
						continue
					}
					goto next // an arbitrary report was valid: it stands
				}
				if err := tu.Observe(p.do(req)); err != nil {
					// After an arbitrary objective such as −MaxFloat64 was
					// accepted, the process's own may differ from it by
					// more per second than float64 holds.
					var fe *InputError
					if !errors.As(err, &fe) || fe.Input != "Report.Objective" {
						t.Fatalf("%s %v: %v", s.name, req, err)
					}
					break
				}
			next:
				if lf, ok := tu.(*LinearFit); ok {
					st := lf.Stage()
					if math.IsNaN(st.Rate) || math.IsNaN(st.Progress) || st.Interval < 0 || st.Phi < 0 || st.Elapsed < 0 || st.Remaining < 0 {
						t.Fatalf("%s: stage %+v", s.name, st)
					}
				}
			}
		}
	})
}
