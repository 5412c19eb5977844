package cost

import (
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/syncmodels/syncmodels/internal/fpdet"
)

// SpotModel describes a synthetic spot-price trace: a piecewise-constant
// price that changes at random times by small, mean-reverting moves,
// scaled so that its time-weighted mean over the horizon is exactly Mean.
// GenerateSpot draws one; see the package documentation ("Synthetic spot
// prices") for the model and DOLLHigh and DOLLLow for parameters fitted to
// what DOLL reports of its trace.
type SpotModel struct {
	// Mean is the time-weighted mean price over [0, Horizon) in $/hour;
	// the generated trace has exactly this mean (to float rounding).
	// Required: finite and > Fee.
	Mean float64
	// Horizon is the length of the trace: it has points only before
	// Horizon (its last price holds after it, as in every Trace).
	// Required: > 0.
	Horizon time.Duration
	// MeanHold is the mean time between price changes; holds are
	// exponential, rounded to whole seconds (at least 1 s). Required: at
	// least 1 s.
	MeanHold time.Duration
	// Volatility is the standard deviation of a change's innovation in the
	// log of the fluctuating price part: 0.02 moves it by about 2% per
	// change. ≥ 0 and finite; 0 gives a constant price.
	Volatility float64
	// Reversion is the pull of the log price towards its long-run level at
	// each change, in [0, 1]: 0 is a random walk, 1 draws every price
	// afresh. The stationary standard deviation of the log price is
	// Volatility/sqrt(1 − (1 − Reversion)²).
	Reversion float64
	// Min and Max clamp every price, in $/hour; 0 means no clamp. When
	// set, Min < Mean < Max.
	Min, Max float64
	// Fee is a constant part of the price in $/hour, outside the
	// fluctuation (an operating-system licence billed per hour, such as
	// the SUSE fee DOLLHigh carries); 0 ≤ Fee < Mean. The fluctuating part
	// is scaled to mean Mean − Fee when no clamp binds.
	Fee float64
}

// DOLLLow is DOLL's "low spot price" setting (§V-A, Fig. 5): c5.xlarge
// Linux spot instances with a mean spot price of 0.058 $/hour against 0.186
// on demand, over a 90-day horizon (the January–March 2021 window of the
// paper's trace). The change rate and step size are not in the paper; the
// package documentation ("Synthetic spot prices") gives the sources
// behind MeanHold = 24 h, Volatility = 0.02 and Reversion = 0.1.
func DOLLLow() SpotModel {
	return SpotModel{
		Mean:       0.058,
		Horizon:    90 * 24 * time.Hour,
		MeanHold:   24 * time.Hour,
		Volatility: 0.02,
		Reversion:  0.1,
	}
}

// DOLLHigh is DOLL's "high spot price" trace (§V-A, Fig. 5): c5.xlarge in
// ca-central-1b running SUSE, January–March 2021, mean 0.158 $/hour
// against 0.286 on demand. Both its prices exceed DOLLLow's by exactly
// 0.100 $/hour, which is the SUSE licence fee per instance-hour; so this
// model is DOLLLow plus Fee = 0.10, and with the same seed the two traces
// change at the same times by the same dollar amounts.
func DOLLHigh() SpotModel {
	m := DOLLLow()
	m.Mean, m.Fee = 0.158, 0.10
	return m
}

// spotStream is GenerateSpot's PCG stream ("spotgen!").
const spotStream = 0x7370_6f74_6765_6e21

// Validate checks m and returns an *Error wrapping ErrConfig that names
// the field.
func (m SpotModel) Validate() error {
	bad := func(field, detail string) error {
		return &Error{Op: "spot model", Name: "SpotModel." + field, Detail: detail, Err: ErrConfig}
	}
	finite := func(f float64) bool { return !math.IsNaN(f) && !math.IsInf(f, 0) }
	switch {
	case !finite(m.Fee) || m.Fee < 0:
		return bad("Fee", fmt.Sprintf("%v $/hour: must be finite and ≥ 0", m.Fee))
	case !finite(m.Mean) || !(m.Mean > m.Fee):
		return bad("Mean", fmt.Sprintf("%v $/hour: must be finite and > Fee (%v)", m.Mean, m.Fee))
	case m.Horizon <= 0:
		return bad("Horizon", fmt.Sprintf("%v: must be > 0", m.Horizon))
	case m.MeanHold < time.Second:
		return bad("MeanHold", fmt.Sprintf("%v: must be at least 1s (times are whole seconds)", m.MeanHold))
	case !finite(m.Volatility) || m.Volatility < 0:
		return bad("Volatility", fmt.Sprintf("%v: must be finite and ≥ 0", m.Volatility))
	case !(m.Reversion >= 0 && m.Reversion <= 1):
		return bad("Reversion", fmt.Sprintf("%v: must be in [0, 1]", m.Reversion))
	case !finite(m.Min) || m.Min < 0:
		return bad("Min", fmt.Sprintf("%v $/hour: must be finite and ≥ 0 (0: no clamp)", m.Min))
	case m.Min != 0 && !(m.Min < m.Mean):
		return bad("Min", fmt.Sprintf("%v $/hour: must be below Mean (%v)", m.Min, m.Mean))
	case !finite(m.Max) || m.Max < 0:
		return bad("Max", fmt.Sprintf("%v $/hour: must be finite and ≥ 0 (0: no clamp)", m.Max))
	case m.Max != 0 && !(m.Max > m.Mean):
		return bad("Max", fmt.Sprintf("%v $/hour: must be above Mean (%v)", m.Max, m.Mean))
	}
	return nil
}

// GenerateSpot draws a spot-price trace from m with seed: a pure function
// of (m, seed), the same on every platform up to the last bit of math.Exp
// (one call per price change). The trace starts at 0 and has a point at
// each price change before m.Horizon; consecutive points differ in price.
func GenerateSpot(m SpotModel, seed uint64) (*Trace, error) {
	if err := m.Validate(); err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(seed, spotStream))
	keep := 1 - m.Reversion
	sd := m.Volatility
	// Start in the stationary law of the AR(1) log price, so the trace has
	// no start-up transient; a random walk (Reversion 0) starts at 0.
	y := 0.0
	if m.Reversion > 0 {
		y = float64(float64(sd/math.Sqrt(1-float64(keep*keep))) * fpdet.NormFloat64(rng))
	}
	var at []time.Duration
	var q []float64 // the fluctuating part's shape, exp(y), before scaling
	for t := time.Duration(0); t < m.Horizon; {
		at = append(at, t)
		q = append(q, fpdet.Exp(y))
		hold := time.Duration(math.Round(fpdet.ExpFloat64(rng)*m.MeanHold.Seconds())) * time.Second
		if hold < time.Second {
			hold = time.Second
		}
		if hold > m.Horizon-t {
			break
		}
		t += hold
		y = float64(keep*y) + float64(sd*fpdet.NormFloat64(rng))
	}
	// Hold lengths within the horizon, the weights of the mean.
	w := make([]float64, len(at))
	for i := range at {
		end := m.Horizon
		if i+1 < len(at) {
			end = at[i+1]
		}
		w[i] = float64(end - at[i])
	}
	prices := scaleToMean(q, w, m)
	pts := make([]Point, 0, len(at))
	for i, p := range prices {
		if n := len(pts); n > 0 && pts[n-1].PerHour == p {
			continue
		}
		pts = append(pts, Point{At: at[i], PerHour: p})
	}
	return NewTrace(pts)
}

// scaleToMean returns clamp(Fee + s·q_i, Min, Max) with the scale s > 0
// for which the w-weighted mean is m.Mean. The mean is continuous and
// non-decreasing in s, piecewise linear with the clamps: bisection finds
// the piece that holds the solution, and the solution is computed on it.
func scaleToMean(q, w []float64, m SpotModel) []float64 {
	lo, hi := m.Min, m.Max
	if hi == 0 {
		hi = math.Inf(1)
	}
	var tw float64
	for _, v := range w {
		tw += v
	}
	target := float64(m.Mean * tw)
	price := func(s, qi float64) float64 { return min(max(m.Fee+float64(s*qi), lo), hi) }
	// solve returns the s that meets the mean on the piece where the
	// clamps bind as they do at s0, and false if no point is free there.
	solve := func(s0 float64) (float64, bool) {
		var fixed, slope, free float64
		for i, qi := range q {
			p := m.Fee + float64(s0*qi)
			switch {
			case p <= lo:
				fixed += float64(w[i] * lo)
			case p >= hi:
				fixed += float64(w[i] * hi)
			default:
				free += w[i]
				slope += float64(w[i] * qi)
			}
		}
		if slope == 0 {
			return 0, false
		}
		return (target - fixed - float64(m.Fee*free)) / slope, true
	}
	sum := func(s float64) float64 {
		var t float64
		for i, qi := range q {
			t += float64(w[i] * price(s, qi))
		}
		return t
	}
	// Without binding clamps the first solve is exact.
	s, ok := solve((m.Mean - m.Fee) * tw / dot(q, w))
	if !ok || !consistent(s, solve) {
		a, b := 0.0, 1.0
		for sum(b) < target && b < math.MaxFloat64/4 {
			b = float64(b * 2)
		}
		for range 200 {
			mid := a + float64((b-a)/2)
			if mid <= a || mid >= b {
				break
			}
			if sum(mid) < target {
				a = mid
			} else {
				b = mid
			}
		}
		s = b
		if t, ok := solve(b); ok && consistent(t, solve) {
			s = t
		}
	}
	out := make([]float64, len(q))
	for i, qi := range q {
		out[i] = price(s, qi)
	}
	return out
}

// consistent reports whether the clamps bind at s as they did where s was
// solved for: solving again at s gives s back (to rounding), so the mean
// at s is the target.
func consistent(s float64, solve func(float64) (float64, bool)) bool {
	t, ok := solve(s)
	return ok && math.Abs(t-s) <= 1e-12*math.Abs(s)
}

func dot(a, b []float64) float64 {
	var s float64
	for i := range a {
		s += float64(a[i] * b[i])
	}
	return s
}

// Speedup returns the trace traversed factor times faster: every point at
// t moves to t/factor (rounded to the nanosecond), prices unchanged, so the
// mean over [0, T/factor) is the mean over [0, T) up to that rounding. DOLL §V-A traverses its
// trace at 2000× to emulate runs of days and weeks in hours. When points
// collapse onto one nanosecond the last of them is kept (the price in
// force from then on). factor must be finite and > 0; a factor below 1
// slows the trace down and fails with ErrOverflow past 292 years.
func (t *Trace) Speedup(factor float64) (*Trace, error) {
	switch {
	case t.Len() == 0:
		return nil, &Error{Op: "speedup", Detail: "empty trace", Err: ErrOutsideTrace}
	case math.IsNaN(factor) || math.IsInf(factor, 0):
		return nil, &Error{Op: "speedup", Detail: fmt.Sprintf("factor %v", factor), Err: ErrNonFinite}
	case factor <= 0:
		return nil, &Error{Op: "speedup", Detail: fmt.Sprintf("factor %v: must be > 0", factor), Err: ErrConfig}
	}
	pts := make([]Point, 0, len(t.points))
	for _, p := range t.points {
		var at time.Duration
		if f := int64(factor); float64(f) == factor && factor <= math.MaxInt64/2 {
			// Integer factor: exact rounding division, half away from zero.
			at = p.At / time.Duration(f)
			if 2*(p.At%time.Duration(f)) >= time.Duration(f) {
				at++
			}
		} else {
			x := math.Round(float64(p.At) / factor)
			if !(x < math.MaxInt64) {
				return nil, &Error{Op: "speedup", Detail: fmt.Sprintf("point at %v slowed by %v", p.At, factor), Err: ErrOverflow}
			}
			at = time.Duration(x)
		}
		if n := len(pts); n > 0 && pts[n-1].At == at {
			pts[n-1].PerHour = p.PerHour
			continue
		}
		pts = append(pts, Point{At: at, PerHour: p.PerHour})
	}
	return &Trace{points: pts}, nil
}
