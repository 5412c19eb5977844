package cost

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestParseTrace(t *testing.T) {
	want := []Point{{0, 0.158}, {ms(1500), 0.161}, {3600 * sec, 0.2}}
	inputs := map[string]string{
		"header":          "seconds,price_per_hour\n0,0.158\n1.5,0.161\n3600,0.2\n",
		"no header":       "0,0.158\n1.5,0.161\n3600,0.2",
		"crlf and spaces": "  t , price \r\n 0 , 0.158\r\n1.500,0.161\r\n\r\n3.6e3,2e-1\r\n",
		"comments":        "# c5.xlarge ca-central-1b\n\nseconds,price_per_hour\n# first\n0,0.158\n+1.5,0.161\n3600.000000000,0.2\n",
	}
	for name, in := range inputs {
		tr, err := ParseTrace(strings.NewReader(in), name)
		if err != nil {
			t.Errorf("%s: ParseTrace error %v", name, err)
			continue
		}
		if got := tr.Points(); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: ParseTrace = %v; want %v", name, got, want)
		}
	}
}

func TestParseTraceErrors(t *testing.T) {
	tests := []struct {
		in   string
		want error
		msg  string
	}{
		{"seconds,price\n0,0.1\nabc,0.2\n", ErrSyntax, `cost: spot.csv:3: field 1 "abc": not a number: syntax error`},
		{"0,0.1\n10,abc\n", ErrSyntax, `cost: spot.csv:2: field 2 "abc": not a number: syntax error`},
		{"0,0.1\n10,NaN\n", ErrNonFinite, `cost: spot.csv:2: field 2 "NaN": price: not finite`},
		{"0,0.1\n10,-0.5\n", ErrNegative, `cost: spot.csv:2: field 2 "-0.5": price: negative`},
		{"0,1e999\n", ErrNonFinite, ""},
		{"-1,0.1\n", ErrNegative, `cost: spot.csv:1: field 1 "-1": seconds: negative`},
		{"nan,0.1\n", ErrNonFinite, ""},
		{"1e300,0.1\n", ErrOverflow, ""},
		{"99999999999,0.1\n", ErrOverflow, `cost: spot.csv:1: field 1 "99999999999": more than 292 years: duration overflows`},
		{"9223372036.854775808,0.1\n", ErrOverflow, ""},
		{"0,0.1\n30,0.2\n\n30,0.3\n", ErrOrder, `cost: spot.csv:4: seconds 30 not after 30 (line 2): out of order`},
		{"0,0.1\n30,0.2\n10,0.3\n", ErrOrder, ""},
		{"0,0.1,7\n", ErrSyntax, `cost: spot.csv:1: 3 fields, want 2 (seconds,price_per_hour): syntax error`},
		{"0\n", ErrSyntax, ""},
		{"seconds,price\nseconds,price\n", ErrSyntax, ""},
		{"a,0.1\n", ErrSyntax, ""}, // one numeric field: not a header
		{"", ErrOutsideTrace, `cost: spot.csv: no price points: outside price trace`},
		{"seconds,price_per_hour\n# nothing\n", ErrOutsideTrace, ""},
		{"0,0.1\n" + strings.Repeat("9", maxLine+1) + "\n", ErrSyntax, `cost: spot.csv:2: line longer than 65536 bytes: syntax error`},
	}
	for _, tt := range tests {
		_, err := ParseTrace(strings.NewReader(tt.in), "spot.csv")
		if !errors.Is(err, tt.want) {
			t.Errorf("ParseTrace(%.40q) error = %v; want %v", tt.in, err, tt.want)
			continue
		}
		var pe *ParseError
		if !errors.As(err, &pe) || pe.File != "spot.csv" {
			t.Errorf("ParseTrace(%.40q) error = %#v; want a *ParseError naming spot.csv", tt.in, err)
		}
		if tt.msg != "" && err.Error() != tt.msg {
			t.Errorf("ParseTrace(%.40q) error = %q; want %q", tt.in, err.Error(), tt.msg)
		}
	}
}

func TestExactSeconds(t *testing.T) {
	tests := []struct {
		in   string
		want time.Duration
	}{
		{"0", 0},
		{".5", ms(500)},
		{"5.", 5 * sec},
		{"0.000000001", 1},
		{"0.0000000004", 0},
		{"0.0000000005", 1},
		{"0.0000000014999", 1},
		{"1.9999999999", 2 * sec},
		{"9223372036.854775807", 1<<63 - 1},
		{"1614556800", 1614556800 * sec}, // an epoch second, 2021-03-01
		{"0.1", ms(100)},                 // exact, unlike float64 0.1·1e9
	}
	for _, tt := range tests {
		got, perr := parseSeconds(tt.in)
		if perr != nil || got != tt.want {
			t.Errorf("parseSeconds(%q) = %v, %v; want %v", tt.in, got, perr, tt.want)
		}
	}
}

func TestLoadTraceAndRoundTrip(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "trace.csv")
	if err := os.WriteFile(path, []byte("0,0.158\n0.123456789,0.161\n7200,0.2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tr, err := LoadTrace(path)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := tr.WriteCSV(&buf); err != nil {
		t.Fatal(err)
	}
	wantCSV := "seconds,price_per_hour\n0,0.158\n0.123456789,0.161\n7200,0.2\n"
	if buf.String() != wantCSV {
		t.Errorf("WriteCSV = %q; want %q", buf.String(), wantCSV)
	}
	back, err := ParseTrace(&buf, "buf")
	if err != nil || !reflect.DeepEqual(back.Points(), tr.Points()) {
		t.Errorf("round trip = %v, %v; want %v", back.Points(), err, tr.Points())
	}
	_, err = LoadTrace(filepath.Join(dir, "missing.csv"))
	var pe *ParseError
	if !errors.As(err, &pe) || !errors.Is(err, os.ErrNotExist) || !strings.Contains(err.Error(), "missing.csv") {
		t.Errorf("LoadTrace(missing) error = %v; want a *ParseError naming the file wrapping ErrNotExist", err)
	}
}

func TestTraceQueries(t *testing.T) {
	tr, err := NewTrace([]Point{{10 * sec, 0.36}, {20 * sec, 0.72}, {30 * sec, 0}})
	if err != nil {
		t.Fatal(err)
	}
	// 0.36 $/hour is 1e-4 $/s.
	costs := []struct {
		start, stop time.Duration
		want        float64
	}{
		{10 * sec, 10 * sec, 0},
		{10 * sec, 20 * sec, 1e-3},
		{15 * sec, 25 * sec, 5e-4 + 1e-3},
		{10 * sec, 100 * sec, 1e-3 + 2e-3},
		{40 * sec, 100 * sec, 0},
	}
	for _, c := range costs {
		got, err := tr.Cost(c.start, c.stop)
		if err != nil || !closeTo(got, c.want) {
			t.Errorf("Cost(%v, %v) = %v, %v; want %v", c.start, c.stop, got, err, c.want)
		}
	}
	prices := []struct {
		at   time.Duration
		want float64
	}{{10 * sec, 0.36}, {20*sec - 1, 0.36}, {20 * sec, 0.72}, {time.Hour, 0}}
	for _, p := range prices {
		if got, err := tr.PriceAt(p.at); err != nil || got != p.want {
			t.Errorf("PriceAt(%v) = %v, %v; want %v", p.at, got, err, p.want)
		}
	}
	if got, err := tr.Mean(10*sec, 30*sec); err != nil || !closeTo(got, 0.54) {
		t.Errorf("Mean(10s, 30s) = %v, %v; want 0.54", got, err)
	}
	if got, err := tr.Mean(25*sec, 25*sec); err != nil || got != 0.72 {
		t.Errorf("Mean(25s, 25s) = %v, %v; want 0.72", got, err)
	}
	for _, bad := range []struct {
		start, stop time.Duration
		want        error
	}{{5 * sec, 15 * sec, ErrOutsideTrace}, {20 * sec, 15 * sec, ErrOrder}, {-sec, 15 * sec, ErrNegative}} {
		if _, err := tr.Cost(bad.start, bad.stop); !errors.Is(err, bad.want) {
			t.Errorf("Cost(%v, %v) error = %v; want %v", bad.start, bad.stop, err, bad.want)
		}
	}
	var empty *Trace
	if _, err := empty.PriceAt(0); !errors.Is(err, ErrOutsideTrace) {
		t.Errorf("nil trace PriceAt error = %v; want ErrOutsideTrace", err)
	}
}

func TestNewTraceErrors(t *testing.T) {
	tests := []struct {
		pts  []Point
		want error
	}{
		{nil, ErrOutsideTrace},
		{[]Point{{-1, 0.1}}, ErrNegative},
		{[]Point{{0, -0.1}}, ErrNegative},
		{[]Point{{0, 0.1}, {0, 0.2}}, ErrOrder},
		{[]Point{{0, 0.1}, {sec, nan()}}, ErrNonFinite},
	}
	for _, tt := range tests {
		if _, err := NewTrace(tt.pts); !errors.Is(err, tt.want) {
			t.Errorf("NewTrace(%v) error = %v; want %v", tt.pts, err, tt.want)
		}
	}
	pts := []Point{{0, 0.1}}
	tr, _ := NewTrace(pts)
	pts[0].PerHour = 9
	if p, _ := tr.PriceAt(0); p != 0.1 {
		t.Errorf("NewTrace does not copy: PriceAt(0) = %v after caller edit; want 0.1", p)
	}
}
