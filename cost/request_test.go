package cost

import (
	"errors"
	"math"
	"testing"
	"time"
)

func TestRequestPrice(t *testing.T) {
	tests := []struct {
		p    RequestPrice
		n    int64
		want float64
	}{
		{PerThousand(0.005), 1000, 0.005},
		{PerThousand(0.005), 1, 0.000005},
		{PerThousand(0.0004), 2_500_000, 1.0},
		{PerMillion(1.25), 4_000_000, 5.0},
		{PerMillion(0.5), 0, 0},
	}
	for _, tt := range tests {
		if err := tt.p.Validate(); err != nil {
			t.Errorf("%+v.Validate() = %v; want nil", tt.p, err)
		}
		if got := tt.p.For(tt.n); !closeTo(got, tt.want) {
			t.Errorf("%+v.For(%d) = %v; want %v", tt.p, tt.n, got, tt.want)
		}
		if got, want := tt.p.Each()*float64(tt.n), tt.want; !closeTo(got, want) {
			t.Errorf("%+v.Each()·%d = %v; want %v", tt.p, tt.n, got, want)
		}
	}
}

func TestRequestPriceErrors(t *testing.T) {
	tests := []struct {
		p    RequestPrice
		want error
	}{
		{RequestPrice{}, ErrConfig},
		{RequestPrice{Dollars: 1, Per: -5}, ErrConfig},
		{PerThousand(-1), ErrNegative},
		{PerThousand(math.NaN()), ErrNonFinite},
		{PerMillion(math.Inf(1)), ErrNonFinite},
	}
	for _, tt := range tests {
		if err := tt.p.Validate(); !errors.Is(err, tt.want) {
			t.Errorf("%+v.Validate() = %v; want %v", tt.p, err, tt.want)
		}
	}
}

// Lambda's memory-proportional price: 1,024 MB for one second is one
// GB-second; AWS2018's 3,008 MB for 100 ms is 0.2937… GB-s.
func TestPerGBSecond(t *testing.T) {
	tests := []struct {
		perGBs float64
		mb     int
		want   float64 // $/s
	}{
		{0.00001667, 1024, 0.00001667},
		{0.00001667, 128, 0.00001667 / 8},
		{0.00001667, 3008, 0.00001667 * 3008 / 1024},
		{0, 512, 0},
	}
	for _, tt := range tests {
		p, err := PerGBSecond(tt.perGBs, tt.mb)
		if err != nil || !closeTo(p.Rate(), tt.want) {
			t.Errorf("PerGBSecond(%v, %d) = %v $/s, %v; want %v, nil", tt.perGBs, tt.mb, p.Rate(), err, tt.want)
		}
	}
	for _, tt := range []struct {
		perGBs float64
		mb     int
		want   error
	}{
		{-1, 128, ErrNegative},
		{math.NaN(), 128, ErrNonFinite},
		{1, 0, ErrConfig},
		{1, -128, ErrConfig},
	} {
		if _, err := PerGBSecond(tt.perGBs, tt.mb); !errors.Is(err, tt.want) {
			t.Errorf("PerGBSecond(%v, %d) = %v; want %v", tt.perGBs, tt.mb, err, tt.want)
		}
	}
}

// A 3,008 MB function that runs 1.01 s is billed 1.1 s under AWS2018
// (per 100 ms): 1.1 × 3008/1024 GB-s × $0.00001667.
func TestServerlessFunction(t *testing.T) {
	s := AWS2018()
	if err := s.Validate(); err != nil {
		t.Fatalf("AWS2018().Validate() = %v", err)
	}
	r, err := s.Function("worker/0", 3008)
	if err != nil {
		t.Fatal(err)
	}
	got, err := r.Cost(Interval{0, 1010 * time.Millisecond}, Interval{2 * time.Second, 2*time.Second + time.Millisecond})
	want := (1.1 + 0.1) * 3008.0 / 1024 * 0.00001667
	if err != nil || !closeTo(got, want) {
		t.Errorf("cost of 1.01 s and 1 ms = %v, %v; want %v", got, err, want)
	}
	if _, err := s.Function("x", 0); !errors.Is(err, ErrConfig) {
		t.Errorf("Function with 0 MB = %v; want ErrConfig", err)
	}
	if _, err := s.Function("", 128); !errors.Is(err, ErrConfig) {
		t.Errorf("Function with an empty name = %v; want ErrConfig", err)
	}
	bad := s
	bad.Get = RequestPrice{Dollars: 1}
	if err := bad.Validate(); !errors.Is(err, ErrConfig) {
		t.Errorf("Validate with Get per 0 requests = %v; want ErrConfig", err)
	}
	bad = s
	bad.GBSecond = math.Inf(1)
	if err := bad.Validate(); !errors.Is(err, ErrNonFinite) {
		t.Errorf("Validate with GBSecond +Inf = %v; want ErrNonFinite", err)
	}
}

func TestMeter(t *testing.T) {
	var m Meter
	s := AWS2018()
	if err := m.Add("s3-put", s.Put); err != nil {
		t.Fatal(err)
	}
	if err := m.Add("s3-get", s.Get); err != nil {
		t.Fatal(err)
	}
	for _, n := range []int64{1000, 24, 0} {
		if err := m.Count("s3-put", n); err != nil {
			t.Fatal(err)
		}
	}
	if err := m.Count("s3-get", 5000); err != nil {
		t.Fatal(err)
	}
	b := m.Bill()
	if len(b.Lines) != 2 || b.Lines[0].Name != "s3-put" || b.Lines[0].Requests != 1024 || b.Lines[1].Requests != 5000 {
		t.Fatalf("Bill().Lines = %+v; want s3-put 1024, s3-get 5000", b.Lines)
	}
	if want := 1024*0.005/1000 + 5000*0.0004/1000; !closeTo(b.Total, want) {
		t.Errorf("Bill().Total = %v; want %v", b.Total, want)
	}
	if got := m.Requests("s3-put"); got != 1024 {
		t.Errorf("Requests(s3-put) = %d; want 1024", got)
	}

	// Bad input fails and changes nothing.
	for _, tt := range []struct {
		name string
		err  error
		want error
	}{
		{"duplicate", m.Add("s3-put", s.Put), ErrDuplicate},
		{"empty name", m.Add("", s.Put), ErrConfig},
		{"bad price", m.Add("sns", PerMillion(-1)), ErrNegative},
		{"unknown", m.Count("dynamo", 1), ErrUnknown},
		{"negative", m.Count("s3-put", -1), ErrNegative},
		{"overflow", m.Count("s3-put", math.MaxInt64), ErrOverflow},
	} {
		if !errors.Is(tt.err, tt.want) {
			t.Errorf("%s: %v; want %v", tt.name, tt.err, tt.want)
		}
	}
	if b2 := m.Bill(); len(b2.Lines) != 2 || b2.Total != b.Total {
		t.Errorf("after bad input, Bill() = %+v; want %+v", b2, b)
	}
	var zero Meter
	if b := zero.Bill(); len(b.Lines) != 0 || b.Total != 0 {
		t.Errorf("zero Meter's Bill() = %+v; want empty", b)
	}
}
