package arrival

import (
	"math"
	"math/rand/v2"
	"time"

	"github.com/syncmodels/syncmodels/internal/fpdet"
)

// Stream is one worker's arrivals: the up-time at which each successive
// batch of points is complete. A Stream is not safe for concurrent use.
type Stream struct {
	dist  Dist
	rate  float64
	batch int
	rng   *rand.Rand

	// Per-batch sampling constants (see newSampler).
	gammaShape float64 // Poisson, Gamma: one Gamma(gammaShape) draw per batch
	gd, gc     float64 // Marsaglia–Tsang's d and c for max(gammaShape, shape+1)
	ginv       float64 // 1/gammaShape when gammaShape < 1, else 0
	scale      float64 // nanoseconds per unit of the draw
	shape      float64 // LogNormal σ, or Pareto 1/α

	ns    int64   // the up-time of the last batch, in nanoseconds
	carry float64 // the sub-nanosecond remainder of the exact sum, in [−0.5, 0.5]
	count int64   // batches returned so far
}

// workerBase offsets worker indices before mixing ("arrival!"), so that
// the streams differ from those other packages (preempt) derive from the
// same seed.
const workerBase = 0x6172_7269_7661_6c21

// mix is the splitmix64 finaliser.
func mix(z uint64) uint64 {
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

// maxBatchNs bounds the mean length of one batch: 2^62 ns, about 146
// years, so that a Stream's first batches cannot overflow a Duration.
const maxBatchNs = 1 << 62

// NewStream returns worker's arrival stream: interarrivals i.i.d. from d
// scaled to mean 1/rate (rate in points per second), grouped into batches
// of batch points. Workers are numbered from 0; each draws from its own
// math/rand/v2 PCG stream seeded with (seed, a mix of worker), so a Stream
// is a pure function of its arguments. Errors are *InputError values
// wrapping ErrConfig that name Dist.Kind, Dist.Shape, rate, batch or
// worker.
func NewStream(d Dist, rate float64, batch int, seed uint64, worker int) (*Stream, error) {
	if err := d.check(); err != nil {
		return nil, err
	}
	switch {
	case !goodRate(rate):
		return nil, configError("rate", rate, "the rate must be finite and > 0 (points per second)")
	case batch < 1:
		return nil, configError("batch", batch, "the batch size must be ≥ 1 point")
	case worker < 0:
		return nil, configError("worker", worker, "the worker index must be ≥ 0")
	}
	meanNs := 1e9 / rate // mean interarrival in nanoseconds
	if float64(batch)*meanNs > maxBatchNs {
		return nil, configError("rate", rate, "too slow: one batch would take more than 146 years on average")
	}
	st := &Stream{dist: d, rate: rate, batch: batch,
		rng: rand.New(rand.NewPCG(seed, mix(uint64(worker)+workerBase)))}
	b := float64(batch)
	switch d.Kind {
	case Poisson, Gamma:
		k := 1.0
		if d.Kind == Gamma {
			k = d.Shape
		}
		// The sum of b Gamma(k, θ) interarrivals is Gamma(b·k, θ), with
		// θ = mean/k.
		st.gammaShape = float64(b * k)
		st.scale = meanNs / k
		a := st.gammaShape
		if a < 1 {
			st.ginv = 1 / a
			a++
		}
		st.gd = a - 1.0/3
		st.gc = 1 / math.Sqrt(9*st.gd)
	case Fixed:
		st.scale = b * meanNs
	case LogNormal:
		// exp(μ + σZ) with μ = ln(mean) − σ²/2: mean·e^{−σ²/2}·e^{σZ}.
		st.shape = d.Shape
		st.scale = meanNs * fpdet.Exp(float64(-d.Shape*d.Shape/2))
	case Pareto:
		// x_m·U^{−1/α} = x_m·e^{E/α} with E ~ Exp(1), x_m = mean·(α−1)/α.
		st.shape = 1 / d.Shape
		st.scale = meanNs * (d.Shape - 1) / d.Shape
	}
	return st, nil
}

// Next returns the worker's up-time (the cumulative time it has been
// available) at which its next batch of points is complete: the sum of
// the first (i+1)·batch interarrival times at the i-th call (i = 0, 1, …).
// The simulator stops the worker's clock while it is preempted (see the
// package documentation). The value is that exact sum rounded to the
// nanosecond (see "Accuracy"); it is non-decreasing, and saturates at the
// largest Duration (about 292 years).
func (st *Stream) Next() time.Duration {
	st.count++
	var d float64 // this batch's length in nanoseconds
	switch st.dist.Kind {
	case Poisson, Gamma:
		d = float64(st.gamma() * st.scale)
	case Fixed:
		d = st.scale
	case LogNormal:
		s := 0.0
		for range st.batch {
			s += fpdet.Exp(float64(st.shape * fpdet.NormFloat64(st.rng)))
		}
		d = float64(s * st.scale)
	case Pareto:
		s := 0.0
		for range st.batch {
			s += fpdet.Exp(float64(st.shape * fpdet.ExpFloat64(st.rng)))
		}
		d = float64(s * st.scale)
	}
	return st.advance(d)
}

// advance adds d nanoseconds to the up-time, keeping the sub-nanosecond
// remainder so that rounding does not accumulate.
func (st *Stream) advance(d float64) time.Duration {
	if st.ns == math.MaxInt64 {
		return math.MaxInt64
	}
	x := d + st.carry
	w := math.Round(x)
	if !(w < float64(math.MaxInt64-st.ns)) { // also catches +Inf and NaN
		st.ns, st.carry = math.MaxInt64, 0
		return math.MaxInt64
	}
	st.ns += int64(w)
	st.carry = x - w
	return time.Duration(st.ns)
}

// gamma returns a Gamma(st.gammaShape, 1) variate by Marsaglia and Tsang's
// method ("A simple method for generating gamma variables", ACM TOMS 26(3),
// 2000), boosted by U^{1/a} for a shape a < 1. Products are converted
// explicitly so that no platform fuses them into FMA instructions.
func (st *Stream) gamma() float64 {
	d, c := st.gd, st.gc
	for {
		x := fpdet.NormFloat64(st.rng)
		t := 1 + float64(c*x)
		if t <= 0 {
			continue
		}
		v := float64(float64(t*t) * t)
		u := st.rng.Float64()
		x2 := float64(x * x)
		var g float64
		if u < 1-float64(float64(0.0331*x2)*x2) {
			g = float64(d * v)
		} else if fpdet.Log(u) < float64(0.5*x2)+float64(d*(1-v+fpdet.Log(v))) {
			g = float64(d * v)
		} else {
			continue
		}
		if st.ginv != 0 {
			g = float64(g * fpdet.Pow(st.rng.Float64(), st.ginv))
		}
		return g
	}
}

// Rate returns the stream's rate λ in points per second.
func (st *Stream) Rate() float64 { return st.rate }

// Batch returns the number of points in a batch.
func (st *Stream) Batch() int { return st.batch }

// Dist returns the stream's interarrival distribution.
func (st *Stream) Dist() Dist { return st.dist }

// Count returns the number of batches Next has returned.
func (st *Stream) Count() int64 { return st.count }
