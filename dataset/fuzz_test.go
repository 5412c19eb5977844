package dataset

import (
	"bytes"
	"errors"
	"math"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// The fuzz property for every parser: it never panics, and it returns
// either a *ParseError or a result whose Validate passes and whose values
// are finite. Where a naive reference parser is cheap to write, the two must
// also agree, and the parallel parsers must give the same result and error
// with tiny chunks on three goroutines as with the defaults.

// isCompressed reports whether the parsers will decompress b.
func isCompressed(b []byte) bool {
	return len(b) >= 2 && b[0] == 0x1f && b[1] == 0x8b ||
		len(b) >= 4 && string(b[:3]) == "BZh" && '1' <= b[3] && b[3] <= '9'
}

func allFinite(xs []float64) bool {
	for _, x := range xs {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return false
		}
	}
	return true
}

// mustParseError fails unless err is a *ParseError.
func mustParseError(t *testing.T, err error) {
	t.Helper()
	var pe *ParseError
	if !errors.As(err, &pe) {
		t.Fatalf("error %v is a %T; want *ParseError", err, err)
	}
}

func FuzzParseIDXImages(f *testing.F) {
	f.Add(idxBytes(idxImagesMagic, []uint32{3, 2, 3}, seq(18)))
	f.Add(gz(idxBytes(idxImagesMagic, []uint32{2, 2, 2}, seq(8))))
	f.Add(idxBytes(idxImagesMagic, []uint32{0, 28, 28}, nil))
	for _, tt := range idxImageErrors {
		f.Add(tt.in)
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		m, err := ParseIDXImages(bytes.NewReader(in), "fuzz")
		m2, err2 := ParseIDXImages(noLen{bytes.NewReader(in)}, "fuzz")
		if (err == nil) != (err2 == nil) {
			t.Fatalf("size known: %v; size hidden: %v; want the same outcome", err, err2)
		}
		if err != nil {
			mustParseError(t, err)
			mustParseError(t, err2)
			return
		}
		if err := m.Validate(); err != nil {
			t.Fatal(err)
		}
		for _, v := range m.X {
			if !(v >= 0 && v <= 1) {
				t.Fatalf("pixel %v not in [0, 1]", v)
			}
		}
		if !reflect.DeepEqual(m, m2) {
			t.Fatalf("size known and hidden give different images")
		}
	})
}

func FuzzParseIDXLabels(f *testing.F) {
	f.Add(idxBytes(idxLabelsMagic, []uint32{4}, []byte{0, 9, 3, 255}))
	f.Add(gz(idxBytes(idxLabelsMagic, []uint32{2}, []byte{1, 2})))
	f.Add(idxBytes(idxLabelsMagic, []uint32{10}, seq(3)))
	f.Add(idxBytes(idxLabelsMagic, []uint32{0xffffffff}, nil))
	f.Add(idxBytes(idxImagesMagic, []uint32{1, 1, 1}, []byte{1}))
	f.Fuzz(func(t *testing.T, in []byte) {
		y, err := ParseIDXLabels(bytes.NewReader(in), "fuzz")
		y2, err2 := ParseIDXLabels(noLen{bytes.NewReader(in)}, "fuzz")
		if (err == nil) != (err2 == nil) {
			t.Fatalf("size known: %v; size hidden: %v; want the same outcome", err, err2)
		}
		if err != nil {
			mustParseError(t, err)
			mustParseError(t, err2)
			return
		}
		for _, v := range y {
			if v != math.Trunc(v) || v < 0 || v > 255 {
				t.Fatalf("label %v not a byte value", v)
			}
		}
		if !reflect.DeepEqual(y, y2) {
			t.Fatalf("size known and hidden give different labels")
		}
	})
}

// refLIBSVM is a deliberately naive LIBSVM parser built on strings and
// strconv, for differential fuzzing.
func refLIBSVM(data string, opt LIBSVMOptions) (*Sparse, bool) {
	m := &Sparse{Indptr: []int{0}, Indices: []int32{}, Values: []float64{}, Labels: []float64{}}
	finite := func(s string) (float64, bool) {
		v, err := strconv.ParseFloat(s, 64)
		return v, err == nil && !math.IsNaN(v) && !math.IsInf(v, 0)
	}
	maxCol := int64(-1)
	for _, line := range strings.Split(data, "\n") {
		line = strings.TrimSuffix(line, "\r")
		line, _, _ = strings.Cut(line, "#")
		toks := strings.FieldsFunc(line, func(r rune) bool { return r == ' ' || r == '\t' })
		if len(toks) == 0 {
			continue
		}
		y, ok := finite(toks[0])
		if !ok {
			return nil, false
		}
		prev := int64(-1)
		for k, tok := range toks[1:] {
			is, vs, found := strings.Cut(tok, ":")
			if !found {
				return nil, false
			}
			if is == "qid" {
				if _, err := strconv.ParseInt(vs, 10, 64); err != nil || k != 0 {
					return nil, false
				}
				continue
			}
			u, err := strconv.ParseUint(is, 10, 64)
			if err != nil || u > math.MaxInt32 {
				return nil, false
			}
			col := int64(u)
			if !opt.ZeroBased {
				col--
			}
			if col < 0 || col <= prev || opt.Dim > 0 && col >= int64(opt.Dim) || col >= math.MaxInt32 {
				return nil, false
			}
			prev = col
			v, ok := finite(vs)
			if !ok {
				return nil, false
			}
			m.Indices = append(m.Indices, int32(col))
			m.Values = append(m.Values, v)
			maxCol = max(maxCol, col)
		}
		m.Labels = append(m.Labels, y)
		m.Indptr = append(m.Indptr, len(m.Indices))
	}
	m.N = len(m.Labels)
	m.D = int(maxCol + 1)
	if opt.Dim > 0 {
		m.D = opt.Dim
	}
	return m, true
}

func FuzzParseLIBSVM(f *testing.F) {
	f.Add([]byte("+1 1:0.5 3:-2 # c\n-1 2:1e-3\n\n0 qid:7 1:1 4:4\n"), uint16(0), false)
	f.Add([]byte("0 0:1 7:2\r\n"), uint16(9), true)
	f.Add(gz([]byte("1 1:1\n")), uint16(0), false)
	for _, tt := range libsvmErrors {
		f.Add([]byte(tt.in), uint16(0), false)
	}
	f.Fuzz(func(t *testing.T, in []byte, dim uint16, zeroBased bool) {
		opt := LIBSVMOptions{Dim: int(dim), ZeroBased: zeroBased}
		m, err := ParseLIBSVM(bytes.NewReader(in), "fuzz", opt)
		m2, err2 := parseLIBSVM(bytes.NewReader(in), "fuzz", opt, 3, 1+len(in)%7)
		if errString(err) != errString(err2) || !reflect.DeepEqual(m, m2) {
			t.Fatalf("small chunks: %v, %v; default: %v, %v", m2, err2, m, err)
		}
		if err != nil {
			mustParseError(t, err)
		} else {
			if err := m.Validate(); err != nil {
				t.Fatal(err)
			}
			if !allFinite(m.Values) || !allFinite(m.Labels) || len(m.Labels) != m.N {
				t.Fatalf("non-finite values or missing labels: %+v", m)
			}
		}
		if isCompressed(in) {
			return
		}
		ref, ok := refLIBSVM(string(in), opt)
		if ok != (err == nil) {
			t.Fatalf("ParseLIBSVM error %v; reference ok = %v", err, ok)
		}
		if ok && !reflect.DeepEqual(m, ref) {
			t.Fatalf("ParseLIBSVM = %+v; reference %+v", m, ref)
		}
	})
}

// refCSV is a deliberately naive CSV parser built on strings and strconv,
// for differential fuzzing.
func refCSV(data string, opt CSVOptions) (*Dense, bool) {
	comma := string(opt.Comma)
	if opt.Comma == 0 {
		comma = ","
	}
	m := &Dense{X: []float64{}}
	if opt.LabelColumn >= 0 {
		m.Labels = []float64{}
	}
	ncols := -1
	for i, line := range strings.Split(data, "\n") {
		line = strings.TrimSuffix(line, "\r")
		if opt.Header && i == 0 || strings.Trim(line, " \t\r") == "" {
			continue
		}
		fields := strings.Split(line, comma)
		if ncols < 0 {
			ncols = len(fields)
			if opt.LabelColumn >= ncols {
				return nil, false
			}
		} else if len(fields) != ncols {
			return nil, false
		}
		for j, s := range fields {
			if comma != " " && comma != "\t" {
				s = strings.Trim(s, " \t")
			}
			v, err := strconv.ParseFloat(s, 64)
			if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, false
			}
			if j == opt.LabelColumn {
				m.Labels = append(m.Labels, v)
			} else {
				m.X = append(m.X, v)
			}
		}
		m.N++
	}
	if ncols > 0 {
		m.D = ncols
		if opt.LabelColumn >= 0 {
			m.D--
		}
	}
	return m, true
}

// fuzzCommas are the separators FuzzParseCSV tries.
var fuzzCommas = []rune{0, ',', ';', '\t', ' ', '¦'}

func FuzzParseCSV(f *testing.F) {
	f.Add([]byte("1,2,3\n0,4,5\n"), int8(0), false, uint8(0))
	f.Add([]byte("y;a\r\n1; 2\r\n\r\n"), int8(1), true, uint8(2))
	f.Add([]byte("1\t2\n"), int8(-1), false, uint8(3))
	f.Add([]byte("1¦2¦-3\n"), int8(2), false, uint8(5))
	f.Add(gz([]byte("1,2\n")), int8(0), false, uint8(0))
	for _, tt := range csvErrors {
		f.Add([]byte(tt.in), int8(0), false, uint8(0))
	}
	f.Fuzz(func(t *testing.T, in []byte, label int8, header bool, comma uint8) {
		opt := CSVOptions{LabelColumn: int(label)%4 - 1, Header: header, Comma: fuzzCommas[int(comma)%len(fuzzCommas)]}
		if opt.LabelColumn < -1 {
			opt.LabelColumn = -1
		}
		m, err := ParseCSV(bytes.NewReader(in), "fuzz", opt)
		m2, err2 := parseCSV(bytes.NewReader(in), "fuzz", opt, 3, 1+len(in)%7)
		if errString(err) != errString(err2) || !reflect.DeepEqual(m, m2) {
			t.Fatalf("small chunks: %v, %v; default: %v, %v", m2, err2, m, err)
		}
		if err != nil {
			mustParseError(t, err)
		} else {
			if err := m.Validate(); err != nil {
				t.Fatal(err)
			}
			if !allFinite(m.X) || !allFinite(m.Labels) || (opt.LabelColumn >= 0) != (m.Labels != nil) {
				t.Fatalf("non-finite values or wrong labels: %+v", m)
			}
		}
		if isCompressed(in) {
			return
		}
		ref, ok := refCSV(string(in), opt)
		if ok != (err == nil) {
			t.Fatalf("ParseCSV(%+v) error %v; reference ok = %v", opt, err, ok)
		}
		if ok && !reflect.DeepEqual(m, ref) {
			t.Fatalf("ParseCSV(%+v) = %+v; reference %+v", opt, m, ref)
		}
	})
}

func FuzzParseMovieLens(f *testing.F) {
	f.Add([]byte("1::1193::5::978300760\n1::661::3::978302109\n2::1193::4::978298413\n"))
	f.Add([]byte("userId,movieId,rating,timestamp\r\n1,1,4.0,964982703\r\n5,1,3.5,847434962\r\n"))
	f.Add([]byte("196\t242\t3\t881250949\n186\t302\t3\t891717742\n"))
	f.Add(gz([]byte("1::2::3::4\n")))
	for _, tt := range movielensErrors {
		f.Add([]byte(tt.in))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		r, err := ParseMovieLens(bytes.NewReader(in), "fuzz")
		if err != nil {
			mustParseError(t, err)
			return
		}
		if err := r.Validate(); err != nil {
			t.Fatal(err)
		}
		if !allFinite(r.Value) || len(r.UserIDs) != r.NumUsers || len(r.ItemIDs) != r.NumItems {
			t.Fatalf("non-finite ratings or id tables of the wrong size: %+v", r)
		}
		// Remapping is a bijection in order of first appearance.
		seenU, seenI := map[int64]bool{}, map[int64]bool{}
		nextU, nextI := int32(0), int32(0)
		for k := range r.Value {
			if u := r.User[k]; u == nextU {
				nextU++
			} else if u > nextU {
				t.Fatalf("user %d appears before user %d", u, nextU)
			}
			if it := r.Item[k]; it == nextI {
				nextI++
			} else if it > nextI {
				t.Fatalf("item %d appears before item %d", it, nextI)
			}
		}
		for _, id := range r.UserIDs {
			if seenU[id] {
				t.Fatalf("user id %d mapped twice", id)
			}
			seenU[id] = true
		}
		for _, id := range r.ItemIDs {
			if seenI[id] {
				t.Fatalf("item id %d mapped twice", id)
			}
			seenI[id] = true
		}
	})
}

// floatSeeds are inputs for the float parsers, fast path and not.
var floatSeeds = []string{"0", "-0", "+0.0", "1", "-1.5", ".5", "5.", "1e5", "1E-5", "2.5e+10",
	"8.692932128906250000e-01", "-6.350818276405334473e-01", "1.000000000000000000e+00",
	"9007199254740993", "9007199254740992", "123456789012345678901", "0.000000000000000000000000001",
	"1e22", "1e23", "3e-22", "3e-23", "1200", "12.00", "1e", "1e+", "e5", ".", "-", "+", "..1", "1.2.3",
	"0x1p3", "1_000", "Inf", "nan", "1e999", "1e-999", "4.9e-324", "1.7976931348623157e308"}

// FuzzParseFinite checks that the fast path of parseFinite agrees with
// strconv.ParseFloat bit for bit.
func FuzzParseFinite(f *testing.F) {
	for _, s := range floatSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if s == "" {
			return
		}
		want, err := strconv.ParseFloat(s, 64)
		v, ok := fastFloat([]byte(s))
		if ok && (err != nil || math.Float64bits(v) != math.Float64bits(want)) {
			t.Fatalf("fastFloat(%q) = %v (%#x); strconv gives %v (%#x), %v", s, v, math.Float64bits(v), want, math.Float64bits(want), err)
		}
		got, msg := parseFinite([]byte(s))
		finite := err == nil && !math.IsInf(want, 0) && !math.IsNaN(want)
		if (msg == "") != finite || finite && math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("parseFinite(%q) = %v, %q; strconv gives %v, %v", s, got, msg, want, err)
		}
	})
}

func TestFastFloatCovers(t *testing.T) {
	// Inputs the fast path must take (else it is not doing its job).
	for _, s := range []string{"0", "-1.5", "8.692932128906250000e-01", "1.000000000000000000e+00", "12.00", "1e22", "3e-22", ".5"} {
		if _, ok := fastFloat([]byte(s)); !ok {
			t.Errorf("fastFloat(%q) fell back to strconv", s)
		}
	}
}

// TestFastFloatRandom compares fastFloat with strconv on seeded random
// values written the ways data files write them.
func TestFastFloatRandom(t *testing.T) {
	rng := newRNG(11)
	taken := 0
	for i := range 200000 {
		x := rng.NormFloat64() * math.Pow(10, float64(rng.IntN(40)-20))
		var s string
		switch i % 5 {
		case 0:
			s = strconv.FormatFloat(float64(float32(x)), 'e', 18, 64) // HIGGS
		case 1:
			s = strconv.FormatFloat(x, 'g', -1, 64)
		case 2:
			s = strconv.FormatFloat(x, 'f', rng.IntN(8), 64)
		case 3:
			s = strconv.FormatFloat(float64(float32(x)), 'g', -1, 32)
		default:
			s = strconv.FormatFloat(x, 'e', rng.IntN(20), 64)
		}
		want, _ := strconv.ParseFloat(s, 64)
		if v, ok := fastFloat([]byte(s)); ok {
			taken++
			if math.Float64bits(v) != math.Float64bits(want) {
				t.Fatalf("fastFloat(%q) = %v; strconv gives %v", s, v, want)
			}
		}
	}
	t.Logf("fast path taken for %d of 200000 values", taken)
}
