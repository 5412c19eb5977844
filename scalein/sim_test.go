package scalein

import (
	"math"
	"math/rand/v2"
	"slices"
	"time"
)

// sim is a synthetic training run with a known learning-curve family.
// Progress is measured in per-worker mini-batches u: every step adds p^e
// (the global batch is p·B, MLLess's weak scaling, §3.2; e = 1 when the
// larger batch is fully efficient, e < 1 when it loses statistical
// efficiency, §6.2.2 and §6.5), and the loss is
//
//	F(u) = 1/(a·u^b + c) + d,
//
// so with a fixed pool of P workers the loss after k steps is exactly
// Eq. 2, L_P(k) = 1/(a·P^(e·b)·k^b + c) + d. A step with p workers takes
// d0 + d1·p seconds (the per-step communication grows linearly with p,
// §4.2 and Fig. 3a), so adding workers speeds training up sublinearly:
// p^e/(d0 + d1·p) per second.
type sim struct {
	P          int
	a, b, c, d float64
	e          float64 // statistical efficiency exponent; 0 means 1
	d0, d1     float64 // seconds
	noise      float64 // relative Gaussian noise on the loss
	spread     float64 // relative spread of the workers' replica quality
	seed       uint64
	tau        float64 // if > 0, F(u) = d + exp(−u/τ)/c instead: a curve that flattens out
	steps      int     // steps to run
	target     float64 // if > 0, stop once the loss is at or below it
	quality    bool    // report per-worker quality
}

// defaultSim: P = 8, knee near step 400 (smoothed slope −7.5e−5 per
// step), d_8 = 0.6 s.
func defaultSim() sim {
	return sim{P: 8, a: 0.04, b: 1, c: 0.667, d: 0.05, d0: 0.2, d1: 0.05, spread: 0.02, seed: 1, steps: 500, quality: true}
}

func (s sim) loss(u float64) float64 {
	if s.tau > 0 {
		return s.d + math.Exp(-u/s.tau)/s.c
	}
	return 1/(s.a*math.Pow(u, s.b)+s.c) + s.d
}

func (s sim) stepTime(p int) float64 { return s.d0 + s.d1*float64(p) }

// progress is what one step with p workers adds to u.
func (s sim) progress(p int) float64 {
	if s.e == 0 {
		return float64(p)
	}
	return math.Pow(float64(p), s.e)
}

func (s sim) ids() []int {
	ids := make([]int, s.P)
	for i := range ids {
		ids[i] = i
	}
	return ids
}

// simEvent is one step of a simulated run.
type simEvent struct {
	obs    Observation
	action Action
	err    error
	u      float64 // progress before the step's decision
	pool   []int
}

// run drives tu for s.steps steps and returns the trace. The caller's
// side of the contract: on Evict, the worker is dropped from the pool
// before the next step.
func (s sim) run(tu *Tuner) []simEvent {
	rng := rand.New(rand.NewPCG(s.seed, 7))
	offset := make([]float64, s.P)
	for i := range offset {
		offset[i] = s.spread * rng.Float64()
	}
	pool := s.ids()
	var u, now float64
	var out []simEvent
	for range s.steps {
		p := len(pool)
		u += s.progress(p)
		now += s.stepTime(p)
		l := s.loss(u) * (1 + s.noise*rng.NormFloat64())
		o := Observation{Time: time.Duration(math.Round(now * 1e9)), Loss: l}
		if s.quality {
			for _, id := range pool {
				o.Workers = append(o.Workers, Report{ID: id, Quality: l * (1 + offset[id]),
					Duration: time.Duration(s.stepTime(p) * 1e9)})
			}
		}
		a, err := tu.Observe(o)
		out = append(out, simEvent{obs: o, action: a, err: err, u: u, pool: slices.Clone(pool)})
		if err != nil || l <= s.target {
			return out
		}
		if a.Op == Evict {
			pool = slices.DeleteFunc(pool, func(id int) bool { return id == a.Worker })
		}
	}
	return out
}

// trueS is s_Δ(t) of Eq. 1 computed from the generating model at the
// decision d of a run whose progress was u: L_P(t + ⌊Δ/d_P⌋) =
// F(P^e·(t+n_P)) and ℓ_p(t + ⌊Δ/d_p⌋) = F(u + p^e·n_p).
func (s sim) trueS(d Decision, u float64, p int, delta time.Duration) float64 {
	nP := math.Floor(delta.Seconds() / s.stepTime(s.P))
	np := math.Floor(delta.Seconds() / s.stepTime(p))
	lP := s.loss(s.progress(s.P) * (float64(d.Step) + nP))
	lp := s.loss(u + s.progress(p)*np)
	return (lp - lP) / lP
}
