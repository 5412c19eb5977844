package latency_test

import (
	"encoding/json"
	"errors"
	"math"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/syncmodels/syncmodels/latency"
)

func mustParse(t testing.TB, s string) latency.Dist {
	t.Helper()
	d, err := latency.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// reference is one distribution of testdata/quantiles.json.
type reference struct {
	Name      string  `json:"name"`
	MedianNs  float64 `json:"median_ns"`
	Sigma     float64 `json:"sigma"`
	P         float64 `json:"p"`
	ScaleNs   float64 `json:"scale_ns"`
	Alpha     float64 `json:"alpha"`
	Quantiles []struct {
		Q  float64 `json:"q"`
		Ns int64   `json:"ns"`
	} `json:"quantiles"`
}

func (r reference) dist() latency.Dist {
	return latency.Dist{Median: time.Duration(r.MedianNs), Sigma: r.Sigma, P: r.P, Scale: time.Duration(r.ScaleNs), Alpha: r.Alpha}
}

func references(t *testing.T) []reference {
	t.Helper()
	b, err := os.ReadFile("testdata/quantiles.json")
	if err != nil {
		t.Fatal(err)
	}
	var refs []reference
	if err := json.Unmarshal(b, &refs); err != nil {
		t.Fatal(err)
	}
	if len(refs) == 0 {
		t.Fatal("testdata/quantiles.json holds no distributions")
	}
	return refs
}

// TestQuantileReference compares Quantile with the quantiles that
// testdata/quantiles.py computes independently (Python's
// statistics.NormalDist for the body, bisection on the mixture's CDF).
func TestQuantileReference(t *testing.T) {
	for _, r := range references(t) {
		d := r.dist()
		if err := d.Validate(); err != nil {
			t.Fatalf("%s: %v", r.Name, err)
		}
		for _, q := range r.Quantiles {
			got := d.Quantile(q.Q)
			// The two CDFs differ in the last bits (erfc against erf).
			tol := max(2, int64(1e-9*float64(q.Ns)))
			if diff := int64(got) - q.Ns; diff < -tol || diff > tol {
				t.Errorf("%s (%v).Quantile(%v) = %d ns; want %d ns (testdata/quantiles.py)", r.Name, d, q.Q, int64(got), q.Ns)
			}
		}
	}
}

// TestQuantileEdges: q = 0 and q = 1, a cap, and a panic outside [0, 1].
func TestQuantileEdges(t *testing.T) {
	for _, c := range []struct {
		spec string
		q    float64
		want time.Duration
	}{
		{"none", 0.5, 0},
		{"median=7ms", 0, 0},
		{"median=7ms", 1, 7 * time.Millisecond},
		{"median=5ms,sigma=0.5", 1, math.MaxInt64},
		{"median=5ms,sigma=0.5,max=1s", 1, time.Second},
		{"p=1,scale=1s,alpha=2", 1, math.MaxInt64},
		{"p=1,scale=1s,alpha=2,max=3s", 0.99, 3 * time.Second}, // uncapped 10 s
		{"p=1,scale=1s,alpha=2,max=3s", 0.75, 2 * time.Second}, // below the cap: unchanged
		{"p=1,scale=1s,alpha=2", 0, 0},
	} {
		if got := mustParse(t, c.spec).Quantile(c.q); got != c.want {
			t.Errorf("Parse(%q).Quantile(%v) = %v; want %v", c.spec, c.q, got, c.want)
		}
	}
	for _, q := range []float64{-0.1, 1.1, math.NaN()} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Quantile(%v) did not panic", q)
				}
			}()
			latency.Default().Quantile(q)
		}()
	}
}

// draws returns n draws of d: workers 0..3, operations 0..n/4-1.
func draws(d latency.Dist, seed uint64, n int) []time.Duration {
	xs := make([]time.Duration, 0, n)
	for w := range uint64(4) {
		for op := range uint64(n / 4) {
			xs = append(xs, d.Sample(seed, w, op))
		}
	}
	slices.Sort(xs)
	return xs
}

// TestSampleQuantiles: the empirical distribution of Sample matches the
// closed-form CDF. At each reference quantile x_q the share of draws
// below x_q is at most q and the share at most x_q at least q, within 4
// binomial standard errors; for the continuous distributions the
// Kolmogorov–Smirnov distance is below its 1% critical value 1.63/√n.
func TestSampleQuantiles(t *testing.T) {
	const n = 200_000
	for _, r := range references(t) {
		d := r.dist()
		xs := draws(d, 7, n)
		for _, q := range r.Quantiles {
			x := d.Quantile(q.Q)
			below := float64(sortCount(xs, x, false)) / n
			atMost := float64(sortCount(xs, x, true)) / n
			tol := 4 * math.Sqrt(q.Q*(1-q.Q)/n)
			if below > q.Q+tol || atMost < q.Q-tol {
				t.Errorf("%s: share of draws < Quantile(%v) = %v is %.6f, ≤ it %.6f; want ≤ %v and ≥ %v (±%.6f)",
					r.Name, q.Q, x, below, atMost, q.Q, q.Q, tol)
			}
		}
		if r.Name == "fixed" || r.Name == "rare2s" {
			continue // atoms: no KS test
		}
		var ks float64
		for i, x := range xs {
			f := d.CDF(x)
			ks = max(ks, math.Abs(float64(i+1)/n-f), math.Abs(float64(i)/n-f))
		}
		if crit := 1.63 / math.Sqrt(n); ks > crit {
			t.Errorf("%s: Kolmogorov–Smirnov distance %.5f; want < %.5f (1%% critical value)", r.Name, ks, crit)
		}
		t.Logf("%s: KS %.5f, p50 %v p99 %v p99.9 %v (empirical) against %v %v %v", r.Name, ks,
			xs[n/2], xs[n*99/100], xs[n*999/1000], d.Quantile(0.5), d.Quantile(0.99), d.Quantile(0.999))
	}
}

// sortCount counts the sorted xs below x (or at most x).
func sortCount(xs []time.Duration, x time.Duration, inclusive bool) int {
	i, _ := slices.BinarySearch(xs, x)
	if inclusive {
		for i < len(xs) && xs[i] == x {
			i++
		}
	}
	return i
}

// TestTailIndex: the draws at or above Scale come from the Pareto tail:
// their share is P, and the Hill estimator n / Σ ln(x/Scale) recovers
// α within 4 standard errors (α/√n).
func TestTailIndex(t *testing.T) {
	const n = 400_000
	for _, spec := range []string{
		"median=5ms,sigma=0.5,p=0.05,scale=10s,alpha=1.5",
		"median=5ms,sigma=0.5,p=0.02,scale=2s,alpha=0.8", // infinite mean
		"p=1,scale=1s,alpha=3",
	} {
		d := mustParse(t, spec)
		xs := draws(d, 11, n)
		var k int
		var sum float64
		for _, x := range xs {
			if x >= d.Scale {
				k++
				sum += math.Log(float64(x) / float64(d.Scale))
			}
		}
		share := float64(k) / n
		if tol := 4 * math.Sqrt(d.P*(1-d.P)/n); math.Abs(share-d.P) > tol {
			t.Errorf("%s: share of draws ≥ scale %.5f; want %v ± %.5f", spec, share, d.P, tol)
		}
		hill := float64(k) / sum
		if tol := 4 * d.Alpha / math.Sqrt(float64(k)); math.Abs(hill-d.Alpha) > tol {
			t.Errorf("%s: Hill estimate of α over %d tail draws %.4f; want %v ± %.4f", spec, k, hill, d.Alpha, tol)
		}
		t.Logf("%s: %d tail draws (%.4f), Hill α̂ = %.4f", spec, k, share, hill)
	}
}

// TestCap: no draw exceeds Max, and the share of draws at Max is
// P·(Scale/Max)^α.
func TestCap(t *testing.T) {
	const n = 200_000
	d := mustParse(t, "median=5ms,sigma=0.5,p=0.1,scale=1s,alpha=1.5,max=4s")
	xs := draws(d, 3, n)
	if xs[n-1] != d.Max {
		t.Fatalf("largest draw %v; want the cap %v", xs[n-1], d.Max)
	}
	at := n - sortCount(xs, d.Max, false)
	want := d.P * math.Pow(0.25, 1.5)
	if share := float64(at) / n; math.Abs(share-want) > 4*math.Sqrt(want*(1-want)/n) {
		t.Errorf("share of draws at the cap %.5f; want %.5f", share, want)
	}
}

// TestSampleDeterministic: a draw is a pure function of (d, seed, worker,
// op): the same in any order, and different seeds, workers and
// operations give different draws.
func TestSampleDeterministic(t *testing.T) {
	d := latency.Default()
	var fwd, back []time.Duration
	for op := range uint64(1000) {
		fwd = append(fwd, d.Sample(1, 2, op))
	}
	for op := uint64(999); op < 1000; op-- {
		back = append(back, d.Sample(1, 2, op))
	}
	slices.Reverse(back)
	if !slices.Equal(fwd, back) {
		t.Fatal("Sample depends on the order of the draws")
	}
	same := func(f func(op uint64) time.Duration) int {
		n := 0
		for op := range uint64(1000) {
			if f(op) == fwd[op] {
				n++
			}
		}
		return n
	}
	for name, f := range map[string]func(op uint64) time.Duration{
		"another seed":   func(op uint64) time.Duration { return d.Sample(2, 2, op) },
		"another worker": func(op uint64) time.Duration { return d.Sample(1, 3, op) },
		"the next op":    func(op uint64) time.Duration { return d.Sample(1, 2, op+1) },
	} {
		if n := same(f); n > 5 {
			t.Errorf("%s: %d of 1000 draws equal; want independent draws", name, n)
		}
	}
	if got := mustParse(t, "median=7ms").Sample(1, 2, 3); got != 7*time.Millisecond {
		t.Errorf("fixed 7ms drew %v", got)
	}
	if got := (latency.Dist{}).Sample(1, 2, 3); got != 0 {
		t.Errorf("the zero Dist drew %v", got)
	}
}

func TestParse(t *testing.T) {
	for _, c := range []struct {
		in   string
		want latency.Dist
	}{
		{"none", latency.Dist{}},
		{" NONE ", latency.Dist{}},
		{"median=5ms", latency.Dist{Median: 5 * time.Millisecond}},
		{"median=5ms, sigma=0.5", latency.Dist{Median: 5 * time.Millisecond, Sigma: 0.5}},
		{"p=1,scale=1s,alpha=2", latency.Dist{P: 1, Scale: time.Second, Alpha: 2}},
		{"alpha=1.5,Scale=2s,P=1e-2", latency.Dist{P: 0.01, Scale: 2 * time.Second, Alpha: 1.5}},
		{"median=5ms,sigma=0.5,p=0.0001,scale=10s,alpha=1.5", latency.Default()},
		{"median=1ms,max=1m", latency.Dist{Median: time.Millisecond, Max: time.Minute}},
	} {
		got, err := latency.Parse(c.in)
		if err != nil || got != c.want {
			t.Errorf("Parse(%q) = %+v, %v; want %+v", c.in, got, err, c.want)
		}
	}
}

func TestStringRoundTrip(t *testing.T) {
	for _, d := range []latency.Dist{
		{}, latency.Default(), {Median: time.Millisecond}, {Median: 1500 * time.Microsecond, Sigma: 1},
		{P: 1, Scale: time.Minute, Alpha: 0.5}, {P: 0.01, Scale: 2 * time.Second, Alpha: 1.5, Max: time.Hour},
		{Max: time.Second},
	} {
		back, err := latency.Parse(d.String())
		if err != nil || back != d {
			t.Errorf("Parse(%q) = %+v, %v; want %+v", d.String(), back, err, d)
		}
	}
	if got, want := latency.Default().String(), "median=5ms,sigma=0.5,p=0.0001,scale=10s,alpha=1.5"; got != want {
		t.Errorf("Default().String() = %q; want %q", got, want)
	}
}

func TestParseErrors(t *testing.T) {
	for _, c := range []struct {
		in, want string
		err      error
	}{
		{"", "empty", latency.ErrMalformed},
		{"median", `"median" is not key=value`, latency.ErrMalformed},
		{"median=5", `median "5" is not a duration`, latency.ErrMalformed},
		{"sigma=x,median=1ms", `sigma "x" is not a number`, latency.ErrMalformed},
		{"p=1e999", `p "1e999" is out of range`, latency.ErrMalformed},
		{"median=1ms,median=2ms", "median given twice", latency.ErrMalformed},
		{"mean=5ms", `unknown key "mean"`, latency.ErrMalformed},
		{"median=1ms,", `"" is not key=value`, latency.ErrMalformed},
		{"median=-1ms", "Dist.Median = -1ms: the body's median must be ≥ 0", latency.ErrConfig},
		{"median=1ms,sigma=-1", "Dist.Sigma = -1", latency.ErrConfig},
		{"sigma=0.5", "Dist.Sigma = 0.5: a lognormal body needs Median > 0", latency.ErrConfig},
		{"p=2,scale=1s,alpha=1", "Dist.P = 2: the tail probability must be in [0, 1]", latency.ErrConfig},
		{"p=NaN,scale=1s,alpha=1", "Dist.P = NaN", latency.ErrConfig},
		{"median=5ms,p=1,scale=1s,alpha=1", "Dist.Median = 5ms: with P = 1 the body is never drawn", latency.ErrConfig},
		{"median=5ms,scale=1s", "Dist.P = 0: a tail (Scale, Alpha) needs P > 0", latency.ErrConfig},
		{"median=5ms,p=0.001", "Dist.Scale = 0s: the tail's scale must be > 0", latency.ErrConfig},
		{"p=0.1,scale=1s", "Dist.Alpha = 0: the tail index must be finite and > 0", latency.ErrConfig},
		{"p=0.1,scale=1s,alpha=+Inf", "Dist.Alpha = +Inf", latency.ErrConfig},
		{"median=1ms,max=-1s", "Dist.Max = -1s", latency.ErrConfig},
	} {
		_, err := latency.Parse(c.in)
		var ie *latency.InputError
		switch {
		case err == nil:
			t.Errorf("Parse(%q) = nil error; want %q", c.in, c.want)
		case !errors.As(err, &ie) || ie.Input != "spec" || !errors.Is(err, c.err):
			t.Errorf("Parse(%q) = %v; want an *InputError naming the spec, wrapping %v", c.in, err, c.err)
		case !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n"):
			t.Errorf("Parse(%q) = %q; want one line containing %q", c.in, err, c.want)
		}
	}
}

func TestValidate(t *testing.T) {
	for _, c := range []struct {
		d     latency.Dist
		input string
	}{
		{latency.Dist{Median: -1}, "Dist.Median"},
		{latency.Dist{Median: 1, Sigma: math.Inf(1)}, "Dist.Sigma"},
		{latency.Dist{P: 0.5, Scale: 1, Alpha: math.NaN()}, "Dist.Alpha"},
		{latency.Dist{P: 0.5, Scale: -1, Alpha: 1}, "Dist.Scale"},
		{latency.Dist{Median: 1, Max: -1}, "Dist.Max"},
	} {
		err := c.d.Validate()
		var ie *latency.InputError
		if !errors.As(err, &ie) || ie.Input != c.input || !errors.Is(err, latency.ErrConfig) {
			t.Errorf("%+v.Validate() = %v; want an *InputError naming %s", c.d, err, c.input)
		}
	}
	if err := latency.Default().Validate(); err != nil {
		t.Errorf("Default().Validate() = %v", err)
	}
}

// FuzzParse: Parse never panics; what it accepts validates and
// round-trips through String; what it refuses is a one-line *InputError.
//
//	go test ./latency -run "^$" -fuzz FuzzParse -fuzztime 60s
func FuzzParse(f *testing.F) {
	for _, s := range []string{"none", "median=5ms", "median=5ms,sigma=0.5,p=0.0001,scale=10s,alpha=1.5",
		"p=1,scale=1s,alpha=2,max=3s", "p=2", "=", ",", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		d, err := latency.Parse(in)
		if err != nil {
			var ie *latency.InputError
			if !errors.As(err, &ie) || ie.Input != "spec" || strings.Contains(err.Error(), "\n") {
				t.Fatalf("Parse(%q) = %v; want a one-line *InputError naming the spec", in, err)
			}
			return
		}
		if err := d.Validate(); err != nil {
			t.Fatalf("Parse(%q) = %+v, which Validate refuses: %v", in, d, err)
		}
		back, err := latency.Parse(d.String())
		if err != nil || back != d {
			t.Fatalf("Parse(%q).String() = %q parses to %+v, %v; want %+v", in, d.String(), back, err, d)
		}
	})
}

func BenchmarkSample(b *testing.B) {
	for _, spec := range []string{"median=5ms", "median=5ms,sigma=0.5,p=0.0001,scale=10s,alpha=1.5"} {
		d := mustParse(b, spec)
		b.Run(spec, func(b *testing.B) {
			var s time.Duration
			for i := range b.N {
				s += d.Sample(1, 2, uint64(i))
			}
			_ = s
		})
	}
}
