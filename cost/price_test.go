package cost

import (
	"errors"
	"math"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"
)

// close reports whether a and b agree to a relative 1e-12 (or absolute
// 1e-15 near zero).
func closeTo(a, b float64) bool {
	return math.Abs(a-b) <= 1e-12*math.Max(math.Abs(a), math.Abs(b)) || math.Abs(a-b) <= 1e-15
}

func ms(n int64) time.Duration { return time.Duration(n) * time.Millisecond }

func TestBilled(t *testing.T) {
	tests := []struct {
		name string
		b    Billing
		d    time.Duration
		want time.Duration
	}{
		{"exact zero value", Billing{}, ms(1010), ms(1010)},
		{"exact", Exact(), ms(1010) + 1, ms(1010) + 1},
		{"100ms 1.01s", Per100ms(), ms(1010), ms(1100)},
		{"100ms 1.1s", Per100ms(), ms(1100), ms(1100)},
		{"100ms 1ns", Per100ms(), 1, ms(100)},
		{"second 1.01s", PerSecond(), ms(1010), 2 * time.Second},
		{"second 100s", PerSecond(), 100 * time.Second, 100 * time.Second},
		{"second 60.05s", PerSecond(), ms(60050), 61 * time.Second},
		{"hour 100s", PerHour(), 100 * time.Second, time.Hour},
		{"hour 1h", PerHour(), time.Hour, time.Hour},
		{"hour 1h+1s", PerHour(), time.Hour + time.Second, 2 * time.Hour},
		{"zero is free", PerHour(), 0, 0},
		{"zero is free with minimum", PerSecond().WithMinimum(time.Minute), 0, 0},
		{"minimum raises", PerSecond().WithMinimum(time.Minute), 5 * time.Second, time.Minute},
		{"minimum then rounds", PerSecond().WithMinimum(time.Minute), ms(60500), 61 * time.Second},
		{"minimum off-grid rounds", PerSecond().WithMinimum(ms(1500)), ms(10), 2 * time.Second},
		{"max duration exact", Billing{}, math.MaxInt64, math.MaxInt64},
	}
	for _, tt := range tests {
		got, err := tt.b.Billed(tt.d)
		if err != nil || got != tt.want {
			t.Errorf("%s: %+v.Billed(%v) = %v, %v; want %v, nil", tt.name, tt.b, tt.d, got, err, tt.want)
		}
	}
}

func TestBilledErrors(t *testing.T) {
	tests := []struct {
		b    Billing
		d    time.Duration
		want error
	}{
		{PerSecond(), -1, ErrNegative},
		{Billing{Granularity: -time.Second}, time.Second, ErrNegative},
		{Billing{Minimum: -time.Second}, time.Second, ErrNegative},
		{PerHour(), math.MaxInt64, ErrOverflow},
	}
	for _, tt := range tests {
		if _, err := tt.b.Billed(tt.d); !errors.Is(err, tt.want) {
			t.Errorf("%+v.Billed(%v) error = %v; want %v", tt.b, tt.d, err, tt.want)
		}
	}
}

func TestPriceUnits(t *testing.T) {
	// MLLess Table 2 quotes the function at 3.4e-5 $/s and rounds it to
	// 0.122 $/hour (3.4e-5·3600 = 0.1224).
	fn := DollarsPerSecond(3.4e-5)
	tests := []struct {
		name      string
		got, want float64
	}{
		{"function $/hour", fn.Hourly(), 0.1224},
		{"function $/s", fn.Rate(), 3.4e-5},
		{"C1.4x4 $/s", DollarsPerHour(0.15).Rate(), 0.15 / 3600},
		{"C1.4x4 $/hour", DollarsPerHour(0.15).Hourly(), 0.15},
		{"per-minute quote $/hour", Price{Dollars: 0.01, Per: time.Minute}.Hourly(), 0.6},
		{"function for 100 s", fn.For(100 * time.Second), 3.4e-3},
		{"PyTorch worker $/hour", DollarsPerHour(0.2).Hourly() / 4, 0.05},
	}
	for _, tt := range tests {
		if !closeTo(tt.got, tt.want) {
			t.Errorf("%s = %v; want %v", tt.name, tt.got, tt.want)
		}
	}
}

func TestValidateErrors(t *testing.T) {
	tr, err := NewTrace([]Point{{0, 0.1}})
	if err != nil {
		t.Fatal(err)
	}
	good := Resource{Name: "redis", Kind: VM, Price: DollarsPerHour(0.17)}
	tests := []struct {
		name    string
		r       Resource
		want    error
		message string
	}{
		{"nan price", Resource{Name: "redis", Kind: VM, Price: DollarsPerHour(math.NaN())}, ErrNonFinite,
			`cost: resource "redis": price NaN $ per 1h0m0s: not finite`},
		{"negative price", Resource{Name: "w", Kind: FaaS, Price: DollarsPerSecond(-1)}, ErrNegative, ""},
		{"zero period", Resource{Name: "redis", Kind: VM, Price: Price{Dollars: 0.17}}, ErrConfig,
			`cost: resource "redis": price 0.17 $ per 0s: period must be > 0: invalid config`},
		{"no name", Resource{Kind: VM, Price: DollarsPerHour(1)}, ErrConfig, ""},
		{"no kind", Resource{Name: "x", Price: DollarsPerHour(1)}, ErrConfig, `cost: resource "x": kind Kind(0): invalid config`},
		{"price and trace", Resource{Name: "s", Kind: Spot, Price: DollarsPerHour(1), Trace: tr}, ErrConfig, ""},
		{"empty trace", Resource{Name: "s", Kind: Spot, Trace: &Trace{}}, ErrOutsideTrace, ""},
		{"negative granularity", Resource{Name: "s", Kind: VM, Price: DollarsPerHour(1), Billing: Billing{Granularity: -1}}, ErrNegative, ""},
	}
	for _, tt := range tests {
		err := tt.r.Validate()
		if !errors.Is(err, tt.want) {
			t.Errorf("%s: Validate() = %v; want %v", tt.name, err, tt.want)
			continue
		}
		if tt.message != "" && err.Error() != tt.message {
			t.Errorf("%s: Validate() = %q; want %q", tt.name, err.Error(), tt.message)
		}
	}
	if err := good.Validate(); err != nil {
		t.Errorf("Validate(%+v) = %v; want nil", good, err)
	}
}

func TestResourceCost(t *testing.T) {
	fn := Resource{Name: "worker-0", Kind: FaaS, Price: DollarsPerSecond(3.4e-5), Billing: Per100ms()}
	tests := []struct {
		name string
		r    Resource
		ivs  []Interval
		want float64
	}{
		{"one lifetime 1.01s per 100 ms", fn, []Interval{{0, ms(1010)}}, 1.1 * 3.4e-5},
		{"two lifetimes rounded separately", fn, []Interval{{0, ms(1010)}, {ms(2000), ms(3010)}}, 2.2 * 3.4e-5},
		{"nothing", fn, nil, 0},
		{"empty lifetime", fn, []Interval{{ms(5), ms(5)}}, 0},
		{"VM per hour", Resource{Name: "vm", Kind: VM, Price: DollarsPerHour(0.2), Billing: PerHour()}, []Interval{{0, 100 * time.Second}}, 0.2},
	}
	for _, tt := range tests {
		got, err := tt.r.Cost(tt.ivs...)
		if err != nil || !closeTo(got, tt.want) {
			t.Errorf("%s: Cost(%v) = %v, %v; want %v", tt.name, tt.ivs, got, err, tt.want)
		}
	}
	if _, err := fn.Cost(Interval{ms(10), ms(5)}); !errors.Is(err, ErrOrder) {
		t.Errorf("Cost(stop before start) error = %v; want ErrOrder", err)
	}
	if _, err := fn.Cost(Interval{-1, ms(5)}); !errors.Is(err, ErrNegative) {
		t.Errorf("Cost(negative start) error = %v; want ErrNegative", err)
	}
}

func TestFromSeconds(t *testing.T) {
	tests := []struct {
		s    float64
		want time.Duration
		err  error
	}{
		{0, 0, nil},
		{1.01, ms(1010), nil},
		{60, time.Minute, nil},
		{1e-9, 1, nil},
		{0.4e-9, 0, nil},
		{math.NaN(), 0, ErrNonFinite},
		{math.Inf(1), 0, ErrNonFinite},
		{-1, 0, ErrNegative},
		{1e10, 0, ErrOverflow},
		{9.3e9, 0, ErrOverflow},
	}
	for _, tt := range tests {
		got, err := FromSeconds(tt.s)
		if got != tt.want || !errors.Is(err, tt.err) {
			t.Errorf("FromSeconds(%v) = %v, %v; want %v, %v", tt.s, got, err, tt.want, tt.err)
		}
	}
}

func TestKindString(t *testing.T) {
	for k, want := range map[Kind]string{FaaS: "FaaS", VM: "VM", Spot: "Spot", 0: "Kind(0)", 9: "Kind(9)"} {
		if got := k.String(); got != want {
			t.Errorf("Kind(%d).String() = %q; want %q", int(k), got, want)
		}
	}
}

func nan() float64 { return math.NaN() }

func TestOverflowErrors(t *testing.T) {
	tr, _ := NewTrace([]Point{{0, 1}})
	tests := []struct {
		name string
		r    Resource
		iv   Interval
	}{
		{"rounding overflows", Resource{Name: "vm", Kind: VM, Price: DollarsPerHour(1), Billing: PerHour()}, Interval{0, math.MaxInt64}},
		{"trace end overflows", Resource{Name: "spot", Kind: Spot, Trace: tr, Billing: PerHour()}, Interval{math.MaxInt64 - time.Hour + 1, math.MaxInt64 - time.Hour + 2}},
	}
	for _, tt := range tests {
		_, err := tt.r.Cost(tt.iv)
		if !errors.Is(err, ErrOverflow) || !strings.Contains(err.Error(), strconv.Quote(tt.r.Name)) {
			t.Errorf("%s: Cost error = %v; want ErrOverflow naming %q", tt.name, err, tt.r.Name)
		}
	}
}

func TestSmallHelpers(t *testing.T) {
	if got := Kinds(); !reflect.DeepEqual(got, []Kind{FaaS, VM, Spot}) {
		t.Errorf("Kinds() = %v; want [FaaS VM Spot]", got)
	}
	if got := (Interval{sec, 3 * sec}).Len(); got != 2*sec {
		t.Errorf("Interval.Len = %v; want 2s", got)
	}
	long := strings.Repeat("x", 100) + ",1\n"
	_, err := ParseTrace(strings.NewReader(long), "f")
	if want := `cost: f:1: field 1 "` + strings.Repeat("x", maxQuoted) + `"...: not a number: syntax error`; err == nil || err.Error() != want {
		t.Errorf("long field error = %v; want %q", err, want)
	}
	var nilTrace *Trace
	if nilTrace.Points() != nil || nilTrace.Len() != 0 {
		t.Errorf("nil trace has points")
	}
}
