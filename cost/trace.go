package cost

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Point is one step of a price trace: from At on, until the next point, the
// price is PerHour $/hour.
type Point struct {
	At      time.Duration // offset from the start of the trace; ≥ 0
	PerHour float64       // price in $/hour; finite, ≥ 0
}

// Trace is a piecewise-constant price over time, such as the AWS spot-price
// history DOLL (§V-A) bills its preemptible workers against. The price at t
// is that of the last point at or before t; the last price holds forever
// after; times before the first point are outside the trace (an error).
//
// A Trace is immutable once built, so one may be shared by many resources
// and goroutines.
type Trace struct {
	points []Point
}

// NewTrace returns a trace of the given points, which must be non-empty,
// strictly increasing in At, with At ≥ 0 and finite, non-negative prices.
// The slice is copied.
func NewTrace(points []Point) (*Trace, error) {
	if len(points) == 0 {
		return nil, &Error{Op: "trace", Detail: "no points", Err: ErrOutsideTrace}
	}
	for i, p := range points {
		if err := checkPoint(p); err != nil {
			err.Detail = fmt.Sprintf("point %d: %s", i, err.Detail)
			return nil, err
		}
		if i > 0 && p.At <= points[i-1].At {
			return nil, &Error{Op: "trace", Detail: fmt.Sprintf("point %d at %v not after point %d at %v", i, p.At, i-1, points[i-1].At), Err: ErrOrder}
		}
	}
	return &Trace{points: append([]Point(nil), points...)}, nil
}

func checkPoint(p Point) *Error {
	switch {
	case p.At < 0:
		return &Error{Op: "trace", Detail: fmt.Sprintf("at %v", p.At), Err: ErrNegative}
	case math.IsNaN(p.PerHour) || math.IsInf(p.PerHour, 0):
		return &Error{Op: "trace", Detail: fmt.Sprintf("price %v $/hour", p.PerHour), Err: ErrNonFinite}
	case p.PerHour < 0:
		return &Error{Op: "trace", Detail: fmt.Sprintf("price %v $/hour", p.PerHour), Err: ErrNegative}
	}
	return nil
}

// Len returns the number of points; 0 for a nil or zero Trace.
func (t *Trace) Len() int {
	if t == nil {
		return 0
	}
	return len(t.points)
}

// Points returns a copy of the points.
func (t *Trace) Points() []Point {
	if t == nil {
		return nil
	}
	return append([]Point(nil), t.points...)
}

// index returns the index of the point in force at time at, or an error if
// at is before the trace or the trace is empty.
func (t *Trace) index(op string, at time.Duration) (int, error) {
	if t.Len() == 0 {
		return 0, &Error{Op: op, Detail: "empty trace", Err: ErrOutsideTrace}
	}
	if at < t.points[0].At {
		return 0, &Error{Op: op, Detail: fmt.Sprintf("time %v before the first point at %v", at, t.points[0].At), Err: ErrOutsideTrace}
	}
	// First point after at, minus one.
	return sort.Search(len(t.points), func(i int) bool { return t.points[i].At > at }) - 1, nil
}

// PriceAt returns the price in $/hour in force at time at.
func (t *Trace) PriceAt(at time.Duration) (float64, error) {
	i, err := t.index("price at", at)
	if err != nil {
		return 0, err
	}
	return t.points[i].PerHour, nil
}

// Cost returns the dollars charged over [start, stop) at the trace's
// prices, with no rounding: the integral of the price over the interval.
func (t *Trace) Cost(start, stop time.Duration) (float64, error) {
	if err := (Interval{start, stop}).check("trace cost", ""); err != nil {
		return 0, err
	}
	i, err := t.index("trace cost", start)
	if err != nil {
		return 0, err
	}
	total := 0.0
	for cur := start; cur < stop; i++ {
		end := stop
		if i+1 < len(t.points) && t.points[i+1].At < stop {
			end = t.points[i+1].At
		}
		total += float64(t.points[i].PerHour * (float64(end-cur) / float64(time.Hour)))
		cur = end
	}
	return total, nil
}

// Mean returns the time-weighted mean price in $/hour over [start, stop),
// or the price at start if the interval is empty. The mean of DOLL's
// "high spot price" trace is 0.158 $/hour against 0.286 on demand (§V-A).
func (t *Trace) Mean(start, stop time.Duration) (float64, error) {
	if start == stop {
		if start < 0 {
			return 0, &Error{Op: "trace mean", Detail: fmt.Sprintf("time %v", start), Err: ErrNegative}
		}
		return t.PriceAt(start)
	}
	c, err := t.Cost(start, stop)
	if err != nil {
		return 0, err
	}
	return c / (float64(stop-start) / float64(time.Hour)), nil
}

// maxLine bounds the length of one line of a trace file.
const maxLine = 64 << 10

// LoadTrace reads a price trace from the named CSV file (see ParseTrace).
func LoadTrace(path string) (*Trace, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, &ParseError{File: path, Err: err}
	}
	defer f.Close()
	return ParseTrace(f, path)
}

// ParseTrace reads a price trace in CSV form, one point per line:
//
//	seconds,price_per_hour
//	0,0.158
//	3600,0.161
//
// seconds is an offset (a decimal number of seconds, ≥ 0, strictly
// increasing; exact to the nanosecond when written without an exponent) and
// price_per_hour is in $/hour (finite, ≥ 0). The first line that is not
// blank or a # comment is a header, and skipped, if neither of its fields
// is a number. Spaces around fields and CRLF line ends are accepted. name
// labels errors, which are *ParseError values naming the line.
func ParseTrace(r io.Reader, name string) (*Trace, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), maxLine)
	var pts []Point
	line, prevLine, content := 0, 0, 0
	for sc.Scan() {
		line++
		text := strings.TrimSpace(sc.Text())
		if text == "" || text[0] == '#' {
			continue
		}
		content++
		fields := strings.Split(text, ",")
		if len(fields) != 2 {
			return nil, &ParseError{File: name, Line: line, Msg: fmt.Sprintf("%d fields, want 2 (seconds,price_per_hour)", len(fields)), Err: ErrSyntax}
		}
		secStr, priceStr := strings.TrimSpace(fields[0]), strings.TrimSpace(fields[1])
		if content == 1 && !numeric(secStr) && !numeric(priceStr) {
			continue // header
		}
		at, perr := parseSeconds(secStr)
		if perr != nil {
			perr.File, perr.Line, perr.Field = name, line, "field 1 "+quote(secStr)
			return nil, perr
		}
		price, perr := parsePrice(priceStr)
		if perr != nil {
			perr.File, perr.Line, perr.Field = name, line, "field 2 "+quote(priceStr)
			return nil, perr
		}
		if n := len(pts); n > 0 && at <= pts[n-1].At {
			return nil, &ParseError{File: name, Line: line,
				Msg: fmt.Sprintf("seconds %s not after %s (line %d)", formatSeconds(at), formatSeconds(pts[n-1].At), prevLine),
				Err: ErrOrder}
		}
		pts = append(pts, Point{At: at, PerHour: price})
		prevLine = line
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, &ParseError{File: name, Line: line + 1, Msg: fmt.Sprintf("line longer than %d bytes", maxLine), Err: ErrSyntax}
		}
		return nil, &ParseError{File: name, Line: line, Err: err}
	}
	if len(pts) == 0 {
		return nil, &ParseError{File: name, Msg: "no price points", Err: ErrOutsideTrace}
	}
	return &Trace{points: pts}, nil
}

// numeric reports whether s parses as a float.
func numeric(s string) bool {
	_, err := strconv.ParseFloat(s, 64)
	return err == nil || errors.Is(err, strconv.ErrRange)
}

// parseSeconds parses a non-negative number of seconds. Plain decimals
// ("12", "0.25", ".5") are converted exactly, rounding beyond nanoseconds
// half up; other float syntax goes through ParseFloat and FromSeconds.
func parseSeconds(s string) (time.Duration, *ParseError) {
	if d, ok, overflow := exactSeconds(s); ok {
		if overflow {
			return 0, &ParseError{Msg: "more than 292 years", Err: ErrOverflow}
		}
		return d, nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return 0, &ParseError{Msg: "not a number", Err: ErrSyntax}
	}
	d, err := FromSeconds(f)
	if err != nil {
		if e := (*Error)(nil); errors.As(err, &e) {
			err = e.Err
		}
		return 0, &ParseError{Msg: "seconds", Err: err}
	}
	return d, nil
}

// exactSeconds converts [+]digits[.digits] (at least one digit) to
// nanoseconds. ok is false if s has another form; overflow is set when it
// has this form but does not fit.
func exactSeconds(s string) (d time.Duration, ok, overflow bool) {
	s = strings.TrimPrefix(s, "+")
	intPart, frac, _ := strings.Cut(s, ".")
	if intPart == "" && frac == "" {
		return 0, false, false
	}
	for _, part := range []string{intPart, frac} {
		for i := 0; i < len(part); i++ {
			if part[i] < '0' || part[i] > '9' {
				return 0, false, false
			}
		}
	}
	var ns uint64
	for i := 0; i < len(intPart); i++ {
		ns = ns*10 + uint64(intPart[i]-'0')
		if ns > math.MaxInt64/uint64(time.Second) {
			return 0, true, true
		}
	}
	ns *= uint64(time.Second)
	var f uint64
	for i := 0; i < 9; i++ {
		f *= 10
		if i < len(frac) {
			f += uint64(frac[i] - '0')
		}
	}
	if len(frac) > 9 && frac[9] >= '5' {
		f++
	}
	ns += f
	if ns > math.MaxInt64 {
		return 0, true, true
	}
	return time.Duration(ns), true, false
}

func parsePrice(s string) (float64, *ParseError) {
	f, err := strconv.ParseFloat(s, 64)
	switch {
	case err != nil && !errors.Is(err, strconv.ErrRange):
		return 0, &ParseError{Msg: "not a number", Err: ErrSyntax}
	case math.IsNaN(f) || math.IsInf(f, 0):
		return 0, &ParseError{Msg: "price", Err: ErrNonFinite}
	case f < 0:
		return 0, &ParseError{Msg: "price", Err: ErrNegative}
	}
	return f, nil
}

// formatSeconds writes d ≥ 0 as exact decimal seconds without trailing
// zeros: "30", "1.5", "0.000000001".
func formatSeconds(d time.Duration) string {
	s := strconv.FormatInt(int64(d/time.Second), 10)
	if frac := int64(d % time.Second); frac != 0 {
		s += "." + strings.TrimRight(fmt.Sprintf("%09d", frac), "0")
	}
	return s
}

// WriteCSV writes t in the format ParseTrace reads, with a header; the
// output parses back to an identical trace.
func (t *Trace) WriteCSV(w io.Writer) error {
	bw := bufio.NewWriter(w)
	bw.WriteString("seconds,price_per_hour\n")
	for _, p := range t.Points() {
		bw.WriteString(formatSeconds(p.At))
		bw.WriteByte(',')
		bw.WriteString(strconv.FormatFloat(p.PerHour, 'g', -1, 64))
		bw.WriteByte('\n')
	}
	return bw.Flush()
}
