package arrival_test

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/syncmodels/syncmodels/arrival"
)

// draws returns n successive batch lengths (differences of Next) in
// seconds.
func draws(t *testing.T, d arrival.Dist, rate float64, batch, n int, seed uint64, worker int) []float64 {
	t.Helper()
	st, err := arrival.NewStream(d, rate, batch, seed, worker)
	if err != nil {
		t.Fatalf("NewStream(%v, %v, %d): %v", d, rate, batch, err)
	}
	out := make([]float64, n)
	prev := time.Duration(0)
	for i := range out {
		next := st.Next()
		if next < prev {
			t.Fatalf("Next() = %v after %v: decreasing", next, prev)
		}
		out[i] = (next - prev).Seconds()
		prev = next
	}
	return out
}

// moments returns the sample mean, the unbiased sample variance and the
// standard error of that variance, sqrt((m4 − s⁴)/n) from the sample's
// fourth central moment m4.
func moments(x []float64) (mean, variance, seVar float64) {
	n := float64(len(x))
	for _, v := range x {
		mean += v
	}
	mean /= n
	var m2, m4 float64
	for _, v := range x {
		d := (v - mean) * (v - mean)
		m2 += d
		m4 += d * d
	}
	variance = m2 / (n - 1)
	m4 /= n
	return mean, variance, math.Sqrt(math.Max(m4-variance*variance, 0) / n)
}

// The interarrivals (batch = 1) of every family have mean 1/λ and the
// variance of the closed forms in the DistKind docs: 1/λ² (exponential),
// 0 (fixed), 1/(kλ²) (gamma), (e^{σ²} − 1)/λ² (lognormal),
// 1/(λ²α(α−2)) (Pareto, α > 2). Tolerances are 5 standard errors: σ/√n
// for the mean, and the sample's own estimate sqrt((m4 − s⁴)/n) for the
// variance (Pareto α = 5 has a finite fourth moment). Batches of 256 have
// b times the mean and the variance.
func TestMoments(t *testing.T) {
	const rate = 125.0
	for _, tc := range []struct {
		d     arrival.Dist
		batch int
		n     int
	}{
		{arrival.Dist{Kind: arrival.Poisson}, 1, 200000},
		{arrival.Dist{Kind: arrival.Fixed}, 1, 1000},
		{arrival.Dist{Kind: arrival.Gamma, Shape: 2}, 1, 200000},
		{arrival.Dist{Kind: arrival.Gamma, Shape: 0.3}, 1, 200000},
		{arrival.Dist{Kind: arrival.LogNormal, Shape: 0.5}, 1, 200000},
		{arrival.Dist{Kind: arrival.Pareto, Shape: 5}, 1, 200000},
		{arrival.Dist{Kind: arrival.Poisson}, 256, 20000},
		{arrival.Dist{Kind: arrival.Gamma, Shape: 2}, 256, 20000},
		{arrival.Dist{Kind: arrival.LogNormal, Shape: 0.5}, 256, 2000},
		{arrival.Dist{Kind: arrival.Pareto, Shape: 5}, 256, 2000},
	} {
		x := draws(t, tc.d, rate, tc.batch, tc.n, 7, 3)
		b := float64(tc.batch)
		wantMean, wantVar := b/rate, b*tc.d.Variance(rate)
		mean, variance, seVar := moments(x)
		seMean := math.Sqrt(wantVar / float64(tc.n))
		if math.Abs(mean-wantMean) > 5*seMean+1e-12*wantMean {
			t.Errorf("%v batch %d: mean %.6g; want %.6g ± %.2g", tc.d, tc.batch, mean, wantMean, 5*seMean)
		}
		if math.Abs(variance-wantVar) > 5*seVar+1e-12*wantMean*wantMean {
			t.Errorf("%v batch %d: variance %.6g; want %.6g ± %.2g", tc.d, tc.batch, variance, wantVar, 5*seVar)
		}
	}
}

// ks returns the one-sample Kolmogorov–Smirnov statistic of x against cdf.
func ks(x []float64, cdf func(float64) float64) float64 {
	x = slices.Clone(x)
	slices.Sort(x)
	n := float64(len(x))
	d := 0.0
	for i, v := range x {
		f := cdf(v)
		d = max(d, f-float64(i)/n, float64(i+1)/n-f)
	}
	return d
}

// Batch lengths and interarrivals follow their distributions, by a
// Kolmogorov–Smirnov test against gonum's CDFs: a batch of b = 256
// Poisson arrivals at λ is Erlang(b, λ) (§III-B1: the sum of b
// exponential interarrivals), of b Gamma(k) interarrivals Gamma(b·k, kλ);
// single interarrivals are exponential, gamma, lognormal and Pareto with
// the parameters in the DistKind docs. The bound 1.95/√n is the asymptotic
// critical value at the 0.1% level; the seeds are fixed, so the test is
// deterministic.
func TestDistribution(t *testing.T) {
	const rate, n = 125.0, 4000
	crit := 1.95 / math.Sqrt(n)
	for _, tc := range []struct {
		d     arrival.Dist
		batch int
		cdf   func(float64) float64
	}{
		{arrival.Dist{}, 256, distuv.Gamma{Alpha: 256, Beta: rate}.CDF},
		{arrival.Dist{}, 1, distuv.Exponential{Rate: rate}.CDF},
		{arrival.Dist{}, 3, distuv.Gamma{Alpha: 3, Beta: rate}.CDF},
		{arrival.Dist{Kind: arrival.Gamma, Shape: 2}, 256, distuv.Gamma{Alpha: 512, Beta: 2 * rate}.CDF},
		{arrival.Dist{Kind: arrival.Gamma, Shape: 0.3}, 1, distuv.Gamma{Alpha: 0.3, Beta: 0.3 * rate}.CDF},
		{arrival.Dist{Kind: arrival.LogNormal, Shape: 0.8}, 1, distuv.LogNormal{Mu: -math.Log(rate) - 0.32, Sigma: 0.8}.CDF},
		{arrival.Dist{Kind: arrival.Pareto, Shape: 1.5}, 1, distuv.Pareto{Xm: 0.5 / (1.5 * rate), Alpha: 1.5}.CDF},
	} {
		for _, seed := range []uint64{1, 2, 3} {
			x := draws(t, tc.d, rate, tc.batch, n, seed, 0)
			if d := ks(x, tc.cdf); d > crit {
				t.Errorf("%v batch %d seed %d: KS distance %.4f > %.4f", tc.d, tc.batch, seed, d, crit)
			}
		}
	}
	// The test can fail: it tells batches of 256 points from batches of
	// 250 (Erlang(250, λ), a 2.3% shorter mean).
	x := draws(t, arrival.Dist{}, rate, 256, n, 1, 0)
	if d := ks(x, distuv.Gamma{Alpha: 250, Beta: rate}.CDF); d <= crit {
		t.Errorf("KS distance to the wrong law Erlang(250, λ) = %.4f ≤ %.4f: the test has no power", d, crit)
	}
}

// A Fixed stream's i-th batch completes at exactly (i+1)·b/λ. After 10^8
// points at λ = 3 (a mean interarrival with no finite binary expansion)
// the time is 10^8/3 s to within 1e-15 relative: no rounding drift.
func TestNoDrift(t *testing.T) {
	for _, rate := range []float64{3, 7, 125, 0.3} {
		const batch, points = 256, 100_000_000
		st, err := arrival.NewStream(arrival.Dist{Kind: arrival.Fixed}, rate, batch, 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		var last time.Duration
		for range points / batch {
			last = st.Next()
		}
		n := float64(points / batch * batch)
		want := n / rate * 1e9
		if rel := math.Abs(float64(last)-want) / want; rel > 1e-15 {
			t.Errorf("λ = %v: after %.0f points Next() = %d ns; want %.0f ns (relative error %.2g)", rate, n, last, want, rel)
		}
	}
}

// Next is a pure function of (dist, rate, batch, seed, worker, call
// index): two streams with the same arguments agree, a later start is a
// prefix, and other seeds or workers give other times.
func TestDeterminism(t *testing.T) {
	for _, d := range []arrival.Dist{{}, {Kind: arrival.Gamma, Shape: 0.5}, {Kind: arrival.LogNormal, Shape: 1}, {Kind: arrival.Pareto, Shape: 2}} {
		seq := func(seed uint64, worker, n int) []time.Duration {
			st, err := arrival.NewStream(d, 50, 8, seed, worker)
			if err != nil {
				t.Fatal(err)
			}
			out := make([]time.Duration, n)
			for i := range out {
				out[i] = st.Next()
			}
			return out
		}
		a := seq(42, 5, 500)
		if b := seq(42, 5, 500); !slices.Equal(a, b) {
			t.Errorf("%v: two streams with the same arguments differ", d)
		}
		if b := seq(42, 5, 200); !slices.Equal(a[:200], b) {
			t.Errorf("%v: 200 calls are not a prefix of 500", d)
		}
		if b := seq(43, 5, 500); slices.Equal(a, b) || a[0] == b[0] {
			t.Errorf("%v: seeds 42 and 43 give the same stream", d)
		}
		if b := seq(42, 6, 500); slices.Equal(a, b) || a[0] == b[0] {
			t.Errorf("%v: workers 5 and 6 give the same stream", d)
		}
	}
	// Regression pins, not a check of correctness: the first batches as
	// this package drew them when the test was written (printed by this
	// test on failure). A change to the sampling (the PCG seeding, the
	// gamma method, the scaling) changes them and must be deliberate, since
	// it changes every seeded run.
	st, _ := arrival.NewStream(arrival.Dist{}, 125, 256, 1, 0)
	got := []time.Duration{st.Next(), st.Next(), st.Next()}
	want := []time.Duration{2289024239, 4350400788, 6216968886}
	if !slices.Equal(got, want) {
		t.Errorf("Poisson λ=125 b=256 seed 1 worker 0: first three batches %v; want %v", got, want)
	}
}

func TestNewStreamErrors(t *testing.T) {
	for _, tc := range []struct {
		d      arrival.Dist
		rate   float64
		batch  int
		worker int
		want   string
	}{
		{arrival.Dist{}, 0, 1, 0, "arrival: rate = 0: the rate must be finite and > 0"},
		{arrival.Dist{}, -1, 1, 0, "rate = -1"},
		{arrival.Dist{}, math.NaN(), 1, 0, "rate = NaN"},
		{arrival.Dist{}, math.Inf(1), 1, 0, "rate = +Inf"},
		{arrival.Dist{}, 1e-12, 256, 0, "rate = 1e-12: too slow"},
		{arrival.Dist{}, 1, 0, 0, "batch = 0: the batch size must be ≥ 1"},
		{arrival.Dist{}, 1, 1, -1, "worker = -1: the worker index must be ≥ 0"},
		{arrival.Dist{Kind: arrival.Gamma}, 1, 1, 0, "Dist.Shape = 0: the gamma shape k must be finite and > 0"},
		{arrival.Dist{Kind: arrival.Pareto, Shape: 1}, 1, 1, 0, "Dist.Shape = 1: the Pareto tail index α must be finite and > 1"},
		{arrival.Dist{Kind: arrival.LogNormal, Shape: math.NaN()}, 1, 1, 0, "Dist.Shape = NaN"},
		{arrival.Dist{Kind: arrival.Poisson, Shape: 2}, 1, 1, 0, "Dist.Shape = 2: poisson takes no shape"},
		{arrival.Dist{Kind: 9}, 1, 1, 0, "Dist.Kind = DistKind(9): unknown kind"},
	} {
		st, err := arrival.NewStream(tc.d, tc.rate, tc.batch, 1, tc.worker)
		var ie *arrival.InputError
		switch {
		case err == nil || st != nil:
			t.Errorf("NewStream(%+v, %v, %d, 1, %d) = %v, %v; want an error", tc.d, tc.rate, tc.batch, tc.worker, st, err)
		case !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n"):
			t.Errorf("NewStream(%+v, %v, %d, 1, %d) = %q; want one line containing %q", tc.d, tc.rate, tc.batch, tc.worker, err, tc.want)
		case !errors.Is(err, arrival.ErrConfig) || !errors.As(err, &ie):
			t.Errorf("NewStream(%+v, ...) = %v; want an *InputError wrapping ErrConfig", tc.d, err)
		}
	}
}

// A stream whose batches are centuries long saturates at the largest
// Duration instead of wrapping around.
func TestSaturation(t *testing.T) {
	st, err := arrival.NewStream(arrival.Dist{Kind: arrival.Fixed}, 1e-9, 1, 0, 0) // 31.7 years a point
	if err != nil {
		t.Fatal(err)
	}
	prev := time.Duration(0)
	for i := range 12 {
		next := st.Next()
		if next < prev {
			t.Fatalf("call %d: Next() = %v after %v", i, next, prev)
		}
		prev = next
	}
	if prev != math.MaxInt64 {
		t.Errorf("after 12 × 31.7 years Next() = %v; want the saturated %v", prev, time.Duration(math.MaxInt64))
	}
	if st.Count() != 12 || st.Batch() != 1 || st.Rate() != 1e-9 || st.Dist().Kind != arrival.Fixed {
		t.Errorf("accessors = %d, %d, %v, %v", st.Count(), st.Batch(), st.Rate(), st.Dist())
	}
}
