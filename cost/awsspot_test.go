package cost

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"
)

// history is a made-up history in the shape the AWS CLI prints: newest
// first, one record repeated.
const history = `{
    "SpotPriceHistory": [
        {
            "AvailabilityZone": "ca-central-1b",
            "InstanceType": "c5.xlarge",
            "ProductDescription": "SUSE Linux",
            "SpotPrice": "0.161000",
            "Timestamp": "2021-01-02T06:00:00+00:00"
        },
        {
            "AvailabilityZone": "ca-central-1b",
            "InstanceType": "c5.xlarge",
            "ProductDescription": "SUSE Linux",
            "SpotPrice": "0.157500",
            "Timestamp": "2021-01-01T12:30:00.500Z"
        },
        {
            "AvailabilityZone": "ca-central-1b",
            "InstanceType": "c5.xlarge",
            "ProductDescription": "SUSE Linux",
            "SpotPrice": "0.157500",
            "Timestamp": "2021-01-01T12:30:00.500Z"
        },
        {
            "AvailabilityZone": "ca-central-1b",
            "InstanceType": "c5.xlarge",
            "ProductDescription": "SUSE Linux",
            "SpotPrice": "0.158000",
            "Timestamp": "2020-12-31T22:00:00+00:00"
        }
    ],
    "NextToken": ""
}`

func TestParseSpotHistory(t *testing.T) {
	want := []Point{{0, 0.158}, {14*time.Hour + 30*time.Minute + 500*time.Millisecond, 0.1575}, {32 * time.Hour, 0.161}}
	wantStart := time.Date(2020, 12, 31, 22, 0, 0, 0, time.UTC)
	arr := history[strings.Index(history, "[") : strings.LastIndex(history, "]")+1]
	for name, in := range map[string]string{"cli": history, "array": arr} {
		tr, start, err := ParseSpotHistory(strings.NewReader(in), name)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !start.Equal(wantStart) || !reflect.DeepEqual(tr.Points(), want) {
			t.Errorf("%s: ParseSpotHistory = %v from %v; want %v from %v", name, tr.Points(), start, want, wantStart)
		}
		// The trace converts to the CSV form and back.
		var b strings.Builder
		if err := tr.WriteCSV(&b); err != nil {
			t.Fatal(err)
		}
		back, err := ParseTrace(strings.NewReader(b.String()), "csv")
		if err != nil || !reflect.DeepEqual(back.Points(), want) {
			t.Errorf("%s: CSV round trip = %v, %v; want %v", name, back.Points(), err, want)
		}
	}
}

func TestParseSpotHistoryErrors(t *testing.T) {
	rec := func(az, price, ts string) string {
		return `{"AvailabilityZone": "` + az + `", "InstanceType": "c5.xlarge", "ProductDescription": "Linux/UNIX", "SpotPrice": "` + price + `", "Timestamp": "` + ts + `"}`
	}
	const ts0, ts1 = "2021-01-01T00:00:00Z", "2021-01-02T00:00:00Z"
	for _, tc := range []struct {
		in   string
		err  error
		want string
	}{
		{"", ErrSyntax, "cost: h.json: not describe-spot-price-history JSON"},
		{"seconds,price\n0,1\n", ErrSyntax, "not describe-spot-price-history JSON"},
		{`{"SpotPriceHistory": []}`, ErrOutsideTrace, "cost: h.json: no price records: outside price trace"},
		{`[]`, ErrOutsideTrace, "no price records"},
		{"[" + rec("a", "0.1", ts0) + "," + rec("b", "0.1", ts1) + "]", ErrInput,
			"cost: h.json: record 1 (b, c5.xlarge, Linux/UNIX): not the zone, type and product of record 0 (a, c5.xlarge, Linux/UNIX); filter the query to one: invalid input"},
		{"[" + rec("a", "0.1", "2021-01-01 00:00") + "]", ErrSyntax, `record 0 Timestamp "2021-01-01 00:00": not an RFC 3339 time`},
		{"[" + rec("a", "abc", ts0) + "]", ErrSyntax, `cost: h.json: record 0 SpotPrice "abc": not a number: syntax error`},
		{"[" + rec("a", "-0.1", ts0) + "]", ErrNegative, `record 0 SpotPrice "-0.1": price: negative`},
		{"[" + rec("a", "NaN", ts0) + "]", ErrNonFinite, `record 0 SpotPrice "NaN"`},
		{"[" + rec("a", "0.1", ts0) + "," + rec("a", "0.2", ts1) + "," + rec("a", "0.3", ts0) + "]", ErrOrder,
			"cost: h.json: record 2: price 0.3 at 2021-01-01T00:00:00Z, but record 0 has 0.1 at the same time: out of order"},
	} {
		tr, _, err := ParseSpotHistory(strings.NewReader(tc.in), "h.json")
		var pe *ParseError
		switch {
		case err == nil || tr != nil:
			t.Errorf("ParseSpotHistory(%.40q) = %v, %v; want %q", tc.in, tr, err, tc.want)
		case !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n"):
			t.Errorf("ParseSpotHistory(%.40q) = %q; want one line containing %q", tc.in, err, tc.want)
		case !errors.Is(err, tc.err) || !errors.As(err, &pe):
			t.Errorf("ParseSpotHistory(%.40q) = %v; want a *ParseError wrapping %v", tc.in, err, tc.err)
		}
	}
	big := strings.NewReader("[" + strings.Repeat(" ", maxSpotHistory) + "]")
	if _, _, err := ParseSpotHistory(big, "big.json"); !errors.Is(err, ErrSyntax) || !strings.Contains(err.Error(), "larger than") {
		t.Errorf("ParseSpotHistory(64 MiB + 2) = %v; want a size error", err)
	}
}

// FuzzParseSpotHistory: ParseSpotHistory never panics; on success the
// trace starts at 0 and is strictly increasing with valid prices; on
// failure the error is a *ParseError naming the input.
//
//	go test ./cost -run "^$" -fuzz FuzzParseSpotHistory -fuzztime 60s -fuzzminimizetime 5s
func FuzzParseSpotHistory(f *testing.F) {
	f.Add(history)
	f.Add(`[{"AvailabilityZone":"a","SpotPrice":"1","Timestamp":"2021-01-01T00:00:00Z"}]`)
	f.Add(`{"SpotPriceHistory":[{"SpotPrice":"1e999","Timestamp":"0001-01-01T00:00:00Z"},{"SpotPrice":"1","Timestamp":"9999-12-31T23:59:59Z"}]}`)
	f.Add(`[]`)
	f.Fuzz(func(t *testing.T, in string) {
		tr, _, err := ParseSpotHistory(strings.NewReader(in), "fuzz.json")
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) || pe.File != "fuzz.json" {
				t.Fatalf("error %v is not a *ParseError naming fuzz.json", err)
			}
			return
		}
		pts := tr.Points()
		if len(pts) == 0 || pts[0].At != 0 {
			t.Fatalf("trace %v does not start at 0", pts)
		}
		if _, err := NewTrace(pts); err != nil {
			t.Fatalf("NewTrace rejects parsed points: %v", err)
		}
	})
}
