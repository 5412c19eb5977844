package dataset

import (
	"bufio"
	"compress/bzip2"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
)

// bufSize is the read buffer size used by all loaders.
const bufSize = 64 << 10

// maxLine bounds the length of one text line, so that a file without
// newlines cannot make a loader buffer unbounded amounts of memory.
const maxLine = 1 << 30

// decompress returns a buffered reader over r, transparently decompressing
// gzip (magic 1f 8b) and bzip2 (magic "BZh1".."BZh9") input. compressed
// reports whether a decoder was inserted, so that the size of r says nothing
// about the size of the data.
func decompress(r io.Reader, name string) (br *bufio.Reader, compressed bool, err error) {
	br = bufio.NewReaderSize(r, bufSize)
	magic, _ := br.Peek(4) // a short or failing input is reported by the parser
	switch {
	case len(magic) >= 2 && magic[0] == 0x1f && magic[1] == 0x8b:
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, true, &ParseError{File: name, Msg: "bad gzip header", Err: err}
		}
		return bufio.NewReaderSize(zr, bufSize), true, nil
	case len(magic) == 4 && magic[0] == 'B' && magic[1] == 'Z' && magic[2] == 'h' && '1' <= magic[3] && magic[3] <= '9':
		return bufio.NewReaderSize(bzip2.NewReader(br), bufSize), true, nil
	}
	return br, false, nil
}

// openFile opens path for a Read function. The returned size is the file
// size, or -1 when unknown.
func openFile(path string) (*os.File, int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, fmt.Errorf("dataset: %w", err)
	}
	size := int64(-1)
	if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
		size = st.Size()
	}
	return f, size, nil
}

// isBlank reports whether b holds only spaces, tabs and carriage returns.
func isBlank(b []byte) bool {
	for _, c := range b {
		if c != ' ' && c != '\t' && c != '\r' {
			return false
		}
	}
	return true
}

// trimSpace removes leading and trailing spaces and tabs.
func trimSpace(b []byte) []byte {
	i, j := 0, len(b)
	for i < j && (b[i] == ' ' || b[i] == '\t') {
		i++
	}
	for j > i && (b[j-1] == ' ' || b[j-1] == '\t') {
		j--
	}
	return b[i:j]
}

// parseFinite parses a finite float64. On failure it returns a message
// describing the problem: "empty", "not a number", "out of range" or
// "not finite". The result is always exactly strconv.ParseFloat's.
func parseFinite(b []byte) (float64, string) {
	if len(b) == 0 {
		return 0, "empty"
	}
	if trailingZero(b) {
		if v, ok := fastFloat(b); ok {
			return v, ""
		}
	}
	v, err := strconv.ParseFloat(string(b), 64)
	if err != nil {
		if errors.Is(err, strconv.ErrRange) {
			return 0, "out of range"
		}
		return 0, "not a number"
	}
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, "not finite"
	}
	return v, ""
}

// parseUint parses a decimal integer of plain ASCII digits no larger than
// max. On failure it returns a message describing the problem.
func parseUint(b []byte, max uint64) (uint64, string) {
	if len(b) == 0 {
		return 0, "empty"
	}
	var v uint64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, "not a non-negative integer"
		}
		d := uint64(c - '0')
		if d > max || v > (max-d)/10 {
			return 0, fmt.Sprintf("larger than %d", max)
		}
		v = v*10 + d
	}
	return v, ""
}

// parseInt64 parses a decimal int64 with an optional sign.
func parseInt64(b []byte) (int64, string) {
	if len(b) == 0 {
		return 0, "empty"
	}
	v, err := strconv.ParseInt(string(b), 10, 64)
	if err != nil {
		if errors.Is(err, strconv.ErrRange) {
			return 0, "out of range"
		}
		return 0, "not an integer"
	}
	return v, ""
}

// trailingZero reports whether the significand of b (the part before an
// exponent of at most 5 characters) ends in '0'. Those are the inputs
// strconv.ParseFloat can be slow on (its Eisel-Lemire step gives up on
// exactly representable values written with 19 digits, as float32 data
// printed with "%.18e" often is) and fastFloat is fast on; for the rest
// strconv is as fast as fastFloat.
func trailingZero(b []byte) bool {
	end := len(b)
	for i := len(b) - 1; i >= 0 && i >= len(b)-6; i-- {
		if b[i] == 'e' || b[i] == 'E' {
			end = i
			break
		}
	}
	return end > 0 && b[end-1] == '0'
}

// pow10 holds the powers of ten that float64 represents exactly.
var pow10 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
	1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// fastFloat parses the common decimal forms [+-]digits[.digits][e[+-]digits]
// when the result is exact by Clinger's fast path: after dropping trailing
// zeros the significand is at most 2^53 and the power of ten at most 22 in
// magnitude, so one correctly rounded multiplication or division gives the
// same float64 as strconv.ParseFloat. Such values (short decimals, and
// float32 data printed with many digits, whose digits end in zeros) are
// common in data files, and strconv is slow on some of them. ok is false for
// anything else, which the caller hands to strconv.
func fastFloat(b []byte) (v float64, ok bool) {
	i, neg := 0, false
	if b[0] == '+' || b[0] == '-' {
		neg = b[0] == '-'
		i++
	}
	var m uint64
	nd, e10, digits := 0, 0, false // nd: significant digits kept in m
	zeros := 0                     // zeros seen after the last nonzero digit, not yet in m
	point := false
	for ; i < len(b); i++ {
		c := b[i]
		if c == '.' {
			if point {
				return 0, false
			}
			point = true
			continue
		}
		if c < '0' || c > '9' {
			break
		}
		digits = true
		if point {
			e10--
		}
		if c == '0' {
			zeros++
			continue
		}
		if nd == 0 {
			zeros = 0 // leading zeros
		}
		// Fold the pending zeros and this digit into m.
		if nd+zeros+1 > 19 {
			return 0, false
		}
		for ; zeros > 0; zeros-- {
			m *= 10
			nd++
		}
		m = m*10 + uint64(c-'0')
		nd++
	}
	if !digits {
		return 0, false
	}
	if nd > 0 {
		e10 += zeros // trailing zeros scale the significand up
	}
	if i < len(b) {
		if b[i] != 'e' && b[i] != 'E' {
			return 0, false
		}
		i++
		eneg := false
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			eneg = b[i] == '-'
			i++
		}
		if i == len(b) {
			return 0, false
		}
		x := 0
		for ; i < len(b); i++ {
			c := b[i]
			if c < '0' || c > '9' || x > 1000 {
				return 0, false
			}
			x = x*10 + int(c-'0')
		}
		if eneg {
			x = -x
		}
		e10 += x
	}
	switch {
	case m == 0:
		v = 0
	case m > 1<<53:
		return 0, false
	case 0 <= e10 && e10 <= 22:
		v = float64(float64(m) * pow10[e10])
	case -22 <= e10 && e10 < 0:
		v = float64(m) / pow10[-e10]
	default:
		return 0, false
	}
	if neg {
		v = -v
	}
	return v, true
}
