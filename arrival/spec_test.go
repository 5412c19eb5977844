package arrival_test

import (
	"errors"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/syncmodels/syncmodels/arrival"
)

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want arrival.Spec
		str  string // String() of the result; in if empty
	}{
		{"poisson:125", arrival.Spec{Rate: 125}, ""},
		{"poisson:1-250", arrival.Spec{Lo: 1, Hi: 250}, ""},
		{"poisson:10,20,30", arrival.Spec{Rates: []float64{10, 20, 30}}, ""},
		{"poisson:10,", arrival.Spec{Rates: []float64{10}}, ""},
		{"gamma:2:125", arrival.Spec{Dist: arrival.Dist{Kind: arrival.Gamma, Shape: 2}, Rate: 125}, ""},
		{"fixed:125", arrival.Spec{Dist: arrival.Dist{Kind: arrival.Fixed}, Rate: 125}, ""},
		{"lognormal:0.5:125", arrival.Spec{Dist: arrival.Dist{Kind: arrival.LogNormal, Shape: 0.5}, Rate: 125}, ""},
		{"pareto:2.5:1-250", arrival.Spec{Dist: arrival.Dist{Kind: arrival.Pareto, Shape: 2.5}, Lo: 1, Hi: 250}, ""},
		{"gamma:0.25:0.5,1.5", arrival.Spec{Dist: arrival.Dist{Kind: arrival.Gamma, Shape: 0.25}, Rates: []float64{0.5, 1.5}}, ""},
		{" Poisson : 1e-3-2.5e+2 ", arrival.Spec{Lo: 0.001, Hi: 250}, "poisson:0.001-250"},
		{"poisson:7-7", arrival.Spec{Lo: 7, Hi: 7}, ""},
		{"poisson:1E-3", arrival.Spec{Rate: 0.001}, "poisson:0.001"},
		{"poisson:0.1", arrival.Spec{Rate: 0.1}, ""},
	} {
		got, err := arrival.Parse(tc.in)
		if err != nil {
			t.Errorf("Parse(%q) = %v", tc.in, err)
			continue
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Parse(%q) = %+v; want %+v", tc.in, got, tc.want)
		}
		want := tc.str
		if want == "" {
			want = tc.in
		}
		if s := got.String(); s != want {
			t.Errorf("Parse(%q).String() = %q; want %q", tc.in, s, want)
		}
	}
}

// String round-trips through Parse for specs with awkward numbers.
func TestStringRoundTrip(t *testing.T) {
	for _, s := range []arrival.Spec{
		{Rate: 1.0 / 3},
		{Rate: 1e-7},
		{Rate: 1e300},
		{Lo: 1e-5, Hi: 1e-3},
		{Lo: 0.1, Hi: 1e21},
		{Rates: []float64{math.Pi, 1e-9, 2.5e10}},
		{Dist: arrival.Dist{Kind: arrival.Pareto, Shape: 1.0000001}, Rates: []float64{4}},
		{Dist: arrival.Dist{Kind: arrival.LogNormal, Shape: 1e-3}, Lo: 3, Hi: 3},
	} {
		if err := s.Validate(max(1, len(s.Rates))); err != nil {
			t.Fatalf("Validate(%v) = %v", s, err)
		}
		got, err := arrival.Parse(s.String())
		if err != nil || !reflect.DeepEqual(got, s) {
			t.Errorf("Parse(%q) = %+v, %v; want %+v", s.String(), got, err, s)
		}
	}
}

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want string
		err  error
	}{
		{"", `arrival: spec = "": unknown distribution ""`, arrival.ErrMalformed},
		{"weibull:2:125", `unknown distribution "weibull"`, arrival.ErrMalformed},
		{"poisson", "1 fields separated by ':', want 2 (KIND:RATES for poisson)", arrival.ErrMalformed},
		{"gamma:125", "2 fields separated by ':', want 3 (KIND:SHAPE:RATES for gamma)", arrival.ErrMalformed},
		{"poisson:2:125", "3 fields separated by ':', want 2", arrival.ErrMalformed},
		{"poisson:125:", "3 fields", arrival.ErrMalformed},
		{"gamma:x:125", `shape "x" is not a number`, arrival.ErrMalformed},
		{"gamma::125", `shape "" is empty`, arrival.ErrMalformed},
		{"poisson:abc", `rate "abc" is not a number`, arrival.ErrMalformed},
		{"poisson:", `rate "" is empty`, arrival.ErrMalformed},
		{"poisson:1e999", `rate "1e999" is out of range`, arrival.ErrMalformed},
		{"poisson:10,,30", `rate 1 "" is empty`, arrival.ErrMalformed},
		{"poisson:,", `rate 0 "" is empty`, arrival.ErrMalformed},
		{"poisson:10,x", `rate 1 "x" is not a number`, arrival.ErrMalformed},
		{"poisson:a-250", `lower bound "a" is not a number`, arrival.ErrMalformed},
		{"poisson:1-", `upper bound "" is empty`, arrival.ErrMalformed},
		{"poisson:1-2-3", `upper bound "2-3" is not a number`, arrival.ErrMalformed},
		{"poisson:0", "Spec.Rate = 0: the rate must be finite and > 0", arrival.ErrConfig},
		{"poisson:-5", "Spec.Rate = -5: the rate must be finite and > 0", arrival.ErrConfig},
		{"poisson:NaN", "Spec.Rate = NaN", arrival.ErrConfig},
		{"poisson:Inf", "Spec.Rate = +Inf", arrival.ErrConfig},
		{"poisson:0-0", "Spec.Lo = 0: the lower bound must be finite and > 0", arrival.ErrConfig},
		{"poisson:0-250", "Spec.Lo = 0: the lower bound must be finite and > 0", arrival.ErrConfig},
		{"poisson:250-1", "Spec.Lo = 250: the lower bound must not exceed Hi = 1", arrival.ErrConfig},
		{"poisson:1-NaN", "Spec.Hi = NaN", arrival.ErrConfig},
		{"poisson:10,-1,30", "Spec.Rates[1] = -1: the rate must be finite and > 0", arrival.ErrConfig},
		{"gamma:0:125", "Dist.Shape = 0: the gamma shape k must be finite and > 0", arrival.ErrConfig},
		{"gamma:-1:125", "Dist.Shape = -1", arrival.ErrConfig},
		{"lognormal:0:125", "Dist.Shape = 0: the lognormal σ must be finite and > 0", arrival.ErrConfig},
		{"pareto:1:125", "Dist.Shape = 1: the Pareto tail index α must be finite and > 1", arrival.ErrConfig},
		{"pareto:Inf:125", "Dist.Shape = +Inf", arrival.ErrConfig},
	} {
		got, err := arrival.Parse(tc.in)
		var ie *arrival.InputError
		switch {
		case err == nil:
			t.Errorf("Parse(%q) = %+v; want an error containing %q", tc.in, got, tc.want)
		case !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n"):
			t.Errorf("Parse(%q) = %q; want one line containing %q", tc.in, err, tc.want)
		case !errors.Is(err, tc.err) || !errors.As(err, &ie) || ie.Input != "spec" || ie.Value != tc.in:
			t.Errorf("Parse(%q) = %#v; want an *InputError naming the spec, wrapping %v", tc.in, err, tc.err)
		case !reflect.DeepEqual(got, arrival.Spec{}):
			t.Errorf("Parse(%q) returned %+v with its error; want the zero Spec", tc.in, got)
		}
	}
}

func TestValidate(t *testing.T) {
	for _, tc := range []struct {
		s       arrival.Spec
		workers int
		want    string // "" for valid
	}{
		{arrival.Spec{Rate: 125}, 64, ""},
		{arrival.Spec{Lo: 1, Hi: 250}, 64, ""},
		{arrival.Spec{Rates: []float64{1, 2, 3}}, 3, ""},
		{arrival.Spec{}, 3, "arrival: Spec.Rate = 0: no arrival rate: set Rate, Rates or Lo/Hi"},
		{arrival.Spec{Rate: 125}, 0, "workers = 0: the number of workers must be ≥ 1"},
		{arrival.Spec{Rate: math.NaN()}, 1, "Spec.Rate = NaN: the rate must be finite and > 0"},
		{arrival.Spec{Rate: -1}, 1, "Spec.Rate = -1"},
		{arrival.Spec{Rate: math.Inf(1)}, 1, "Spec.Rate = +Inf"},
		{arrival.Spec{Rates: []float64{1, 2}}, 3, `Spec.Rates = "poisson:1,2": 2 rates for 3 workers (one per worker)`},
		{arrival.Spec{Rates: []float64{1, 0, 3}}, 3, "Spec.Rates[1] = 0: the rate must be finite and > 0"},
		{arrival.Spec{Rates: []float64{1, math.NaN()}}, 2, "Spec.Rates[1] = NaN"},
		{arrival.Spec{Lo: 250, Hi: 1}, 4, "Spec.Lo = 250: the lower bound must not exceed Hi = 1"},
		{arrival.Spec{Lo: 1}, 4, "Spec.Hi = 0: the upper bound must be finite and > 0"},
		{arrival.Spec{Hi: 250}, 4, "Spec.Lo = 0: the lower bound must be finite and > 0"},
		{arrival.Spec{Lo: math.NaN(), Hi: 250}, 4, "Spec.Lo = NaN"},
		{arrival.Spec{Lo: -1, Hi: 250}, 4, "Spec.Lo = -1"},
		{arrival.Spec{Rate: 5, Rates: []float64{1}, Lo: 1, Hi: 2}, 1, `arrival: Spec = "poisson:1,": set only one of Rate, Rates and Lo/Hi (set: Rate, Rates, Lo/Hi)`},
		{arrival.Spec{Rate: 5, Lo: 1, Hi: 2}, 4, `Spec = "poisson:1-2": set only one of Rate, Rates and Lo/Hi (set: Rate, Lo/Hi)`},
		{arrival.Spec{Dist: arrival.Dist{Kind: arrival.Fixed, Shape: 1}, Rate: 1}, 1, "Dist.Shape = 1: fixed takes no shape"},
		{arrival.Spec{Dist: arrival.Dist{Kind: arrival.Gamma, Shape: math.NaN()}, Rate: 1}, 1, "Dist.Shape = NaN"},
		{arrival.Spec{Dist: arrival.Dist{Kind: 200}, Rate: 1}, 1, "Dist.Kind = DistKind(200)"},
	} {
		err := tc.s.Validate(tc.workers)
		if tc.want == "" {
			if err != nil {
				t.Errorf("Validate(%+v, %d) = %v; want nil", tc.s, tc.workers, err)
			}
			continue
		}
		var ie *arrival.InputError
		switch {
		case err == nil:
			t.Errorf("Validate(%+v, %d) = nil; want %q", tc.s, tc.workers, tc.want)
		case !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n"):
			t.Errorf("Validate(%+v, %d) = %q; want one line containing %q", tc.s, tc.workers, err, tc.want)
		case !errors.Is(err, arrival.ErrConfig) || !errors.As(err, &ie):
			t.Errorf("Validate(%+v, %d) = %v; want an *InputError wrapping ErrConfig", tc.s, tc.workers, err)
		}
		if _, err := tc.s.RatesFor(tc.workers, 1); err == nil {
			t.Errorf("RatesFor(%+v, %d) accepted what Validate refused", tc.s, tc.workers)
		}
	}
}

// RatesFor draws heterogeneous rates in [Lo, Hi], deterministically per
// seed, with other rates for other seeds; fewer workers get a prefix; and
// the rates look uniform (mean (Lo+Hi)/2 within 5 standard errors over
// 6,400 draws). Homogeneous and given rates come back as they are.
func TestRatesFor(t *testing.T) {
	s := arrival.Spec{Lo: 1, Hi: 250}
	a, err := s.RatesFor(6400, 9)
	if err != nil {
		t.Fatal(err)
	}
	sum := 0.0
	for i, r := range a {
		if !(r >= 1 && r <= 250) {
			t.Errorf("RatesFor(U(1, 250))[%d] = %v; outside [1, 250]", i, r)
		}
		sum += r
	}
	se := 249 / math.Sqrt(12*6400)
	if mean := sum / 6400; math.Abs(mean-125.5) > 5*se {
		t.Errorf("mean of 6400 U(1, 250) rates = %v; want 125.5 ± %.2f", mean, 5*se)
	}
	if b, _ := s.RatesFor(6400, 9); !slices.Equal(a, b) {
		t.Errorf("RatesFor is not deterministic per seed")
	}
	if b, _ := s.RatesFor(64, 9); !slices.Equal(a[:64], b) {
		t.Errorf("RatesFor(64) is not a prefix of RatesFor(6400)")
	}
	if b, _ := s.RatesFor(64, 10); slices.Equal(a[:64], b) || a[0] == b[0] {
		t.Errorf("seeds 9 and 10 give the same rates")
	}
	if b, _ := (arrival.Spec{Lo: 7, Hi: 7}).RatesFor(3, 1); !slices.Equal(b, []float64{7, 7, 7}) {
		t.Errorf("RatesFor(U(7, 7)) = %v; want all 7", b)
	}
	if b, _ := (arrival.Spec{Rate: 125}).RatesFor(3, 1); !slices.Equal(b, []float64{125, 125, 125}) {
		t.Errorf("RatesFor(Rate 125) = %v", b)
	}
	given := []float64{3, 1, 2}
	b, _ := (arrival.Spec{Rates: given}).RatesFor(3, 1)
	b[0] = 99
	if !slices.Equal(given, []float64{3, 1, 2}) {
		t.Errorf("RatesFor returned the caller's slice, not a copy")
	}
}

// The per-worker rate and stream compose: the run the lead's simulator
// makes, 64 workers with U(1, 250) rates, each worker's first batch of 256
// at about 256/λ_n.
func TestRatesAndStreams(t *testing.T) {
	s, err := arrival.Parse("poisson:1-250")
	if err != nil {
		t.Fatal(err)
	}
	rates, err := s.RatesFor(64, 5)
	if err != nil {
		t.Fatal(err)
	}
	var ratio float64
	for n, r := range rates {
		st, err := arrival.NewStream(s.Dist, r, 256, 5, n)
		if err != nil {
			t.Fatal(err)
		}
		var last time.Duration
		for range 100 {
			last = st.Next()
		}
		ratio += last.Seconds() * r / (100 * 256)
	}
	// Each ratio has mean 1 and sd 1/160 (25,600 points); their mean over
	// 64 workers has sd 1/1280.
	if ratio /= 64; math.Abs(ratio-1) > 5.0/1280 {
		t.Errorf("mean over workers of up-time·λ_n/points = %v; want 1 ± %.4f", ratio, 5.0/1280)
	}
}

func TestDistString(t *testing.T) {
	for _, tc := range []struct {
		d    arrival.Dist
		want string
	}{
		{arrival.Dist{}, "poisson"},
		{arrival.Dist{Kind: arrival.Fixed}, "fixed"},
		{arrival.Dist{Kind: arrival.Gamma, Shape: 2}, "gamma:2"},
		{arrival.Dist{Kind: arrival.Gamma}, "gamma:0"},
		{arrival.Dist{Kind: arrival.Poisson, Shape: 3}, "poisson:3"},
		{arrival.Dist{Kind: 9}, "DistKind(9)"},
	} {
		if got := tc.d.String(); got != tc.want {
			t.Errorf("%#v.String() = %q; want %q", tc.d, got, tc.want)
		}
	}
	if err := (arrival.Dist{Kind: arrival.Gamma, Shape: 2}).Validate(); err != nil {
		t.Errorf("Dist.Validate(gamma:2) = %v", err)
	}
	if err := (arrival.Dist{Kind: arrival.Gamma}).Validate(); !errors.Is(err, arrival.ErrConfig) {
		t.Errorf("Dist.Validate(gamma:0) = %v; want ErrConfig", err)
	}
	if v := (arrival.Dist{Kind: arrival.Pareto, Shape: 2}).Variance(1); !math.IsInf(v, 1) {
		t.Errorf("Variance(pareto:2) = %v; want +Inf", v)
	}
	if v := (arrival.Dist{}).Variance(-1); !math.IsNaN(v) {
		t.Errorf("Variance(rate -1) = %v; want NaN", v)
	}
}

// FuzzParse: Parse never panics; what it accepts validates and
// round-trips through String; what it refuses is an *InputError naming
// the spec.
//
//	go test ./arrival -run "^$" -fuzz FuzzParse -fuzztime 60s
func FuzzParse(f *testing.F) {
	for _, s := range []string{"poisson:125", "poisson:1-250", "poisson:10,20,30", "poisson:10,",
		"gamma:2:125", "fixed:125", "lognormal:0.5:125", "pareto:1.5:1e-3-2", "poisson:-1", "gamma:0:1", ":", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		s, err := arrival.Parse(in)
		if err != nil {
			var ie *arrival.InputError
			if !errors.As(err, &ie) || ie.Input != "spec" || strings.Contains(err.Error(), "\n") {
				t.Fatalf("Parse(%q) = %v; want a one-line *InputError naming the spec", in, err)
			}
			return
		}
		if err := s.Validate(max(1, len(s.Rates))); err != nil {
			t.Fatalf("Parse(%q) = %+v, which Validate refuses: %v", in, s, err)
		}
		back, err := arrival.Parse(s.String())
		if err != nil || !reflect.DeepEqual(back, s) {
			t.Fatalf("Parse(%q).String() = %q parses to %+v, %v; want %+v", in, s.String(), back, err, s)
		}
	})
}
