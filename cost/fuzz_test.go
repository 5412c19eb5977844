package cost

import (
	"bytes"
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"
)

// FuzzParseTrace: ParseTrace never panics; on success the trace is valid
// and survives a WriteCSV round trip unchanged; on failure the error is a
// *ParseError naming the input.
//
// Run it with a short -fuzzminimizetime (e.g. 5s): minimizing each new
// interesting input otherwise stalls the workers for up to a minute.
//
//	go test ./cost -run "^$" -fuzz FuzzParseTrace -fuzztime 60s -fuzzminimizetime 5s
func FuzzParseTrace(f *testing.F) {
	for _, s := range []string{
		"seconds,price_per_hour\n0,0.158\n3600,0.161\n",
		"0,0.1\n1.5,0.2",
		"# c\n\n t , p \r\n0 , 1e-3\r\n",
		"0,0.1\n0,0.2\n",
		"-1,0.1\n",
		"1e300,1\n",
		"9223372036.854775807,0\n",
		".5,NaN\n",
		"0,0.1,2\n",
		"",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		tr, err := ParseTrace(strings.NewReader(in), "fuzz.csv")
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) || pe.File != "fuzz.csv" {
				t.Fatalf("error %v is not a *ParseError naming fuzz.csv", err)
			}
			return
		}
		pts := tr.Points()
		if len(pts) == 0 {
			t.Fatal("empty trace without error")
		}
		for i, p := range pts {
			if p.At < 0 || p.PerHour < 0 || math.IsNaN(p.PerHour) || math.IsInf(p.PerHour, 0) {
				t.Fatalf("point %d = %+v invalid", i, p)
			}
			if i > 0 && p.At <= pts[i-1].At {
				t.Fatalf("points %d, %d not increasing: %v, %v", i-1, i, pts[i-1].At, p.At)
			}
		}
		if _, err := NewTrace(pts); err != nil {
			t.Fatalf("NewTrace rejects parsed points: %v", err)
		}
		var buf bytes.Buffer
		if err := tr.WriteCSV(&buf); err != nil {
			t.Fatal(err)
		}
		back, err := ParseTrace(&buf, "round trip")
		if err != nil {
			t.Fatalf("round trip of %q: %v", buf.String(), err)
		}
		if !reflect.DeepEqual(back.Points(), pts) {
			t.Fatalf("round trip = %v; want %v", back.Points(), pts)
		}
		if _, err := tr.Cost(pts[0].At, pts[len(pts)-1].At); err != nil {
			t.Fatalf("Cost over the trace: %v", err)
		}
	})
}
