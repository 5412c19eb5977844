package dataset

import (
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"
)

func TestParseLIBSVM(t *testing.T) {
	tests := []struct {
		name string
		in   string
		opt  LIBSVMOptions
		want *Sparse
	}{
		{"empty", "", LIBSVMOptions{}, &Sparse{Indptr: []int{0}, Indices: []int32{}, Values: []float64{}, Labels: []float64{}}},
		{"one-based", "+1 1:0.5 3:-2\n-1 2:1e-3\n", LIBSVMOptions{},
			&Sparse{N: 2, D: 3, Indptr: []int{0, 2, 3}, Indices: []int32{0, 2, 1}, Values: []float64{0.5, -2, 1e-3}, Labels: []float64{1, -1}}},
		{"zero-based", "0 0:1 7:2", LIBSVMOptions{ZeroBased: true},
			&Sparse{N: 1, D: 8, Indptr: []int{0, 2}, Indices: []int32{0, 7}, Values: []float64{1, 2}, Labels: []float64{0}}},
		{"dim", "1 2:1\n", LIBSVMOptions{Dim: 10},
			&Sparse{N: 1, D: 10, Indptr: []int{0, 1}, Indices: []int32{1}, Values: []float64{1}, Labels: []float64{1}}},
		{"label only, tabs, CRLF, comments", "# header comment\r\n3.5\r\n\t-2\t1:4  # c\r\n\r\n   # only a comment\n", LIBSVMOptions{},
			&Sparse{N: 2, D: 1, Indptr: []int{0, 0, 1}, Indices: []int32{0}, Values: []float64{4}, Labels: []float64{3.5, -2}}},
		{"qid ignored", "2 qid:17 1:1 3:0\n", LIBSVMOptions{},
			&Sparse{N: 1, D: 3, Indptr: []int{0, 2}, Indices: []int32{0, 2}, Values: []float64{1, 0}, Labels: []float64{2}}},
		{"no final newline", "1 5:1", LIBSVMOptions{},
			&Sparse{N: 1, D: 5, Indptr: []int{0, 1}, Indices: []int32{4}, Values: []float64{1}, Labels: []float64{1}}},
	}
	for _, tt := range tests {
		got, err := ParseLIBSVM(strings.NewReader(tt.in), tt.name, tt.opt)
		if err != nil {
			t.Errorf("ParseLIBSVM(%q, %+v): %v", tt.in, tt.opt, err)
			continue
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("ParseLIBSVM(%q, %+v) = %+v; want %+v", tt.in, tt.opt, got, tt.want)
		}
		if err := got.Validate(); err != nil {
			t.Errorf("ParseLIBSVM(%q): Validate: %v", tt.in, err)
		}
	}
}

// libsvmErrors are malformed LIBSVM inputs (default options) and what the
// error must say.
var libsvmErrors = []errCase{
	{"decreasing", "1 2:1 1:3", 1, 0, []string{`feature 2 "1:3"`, "index 1 not greater than the previous index 2"}},
	{"repeated", "1 2:1 2:3", 1, 0, []string{`feature 2 "2:3"`, "not greater"}},
	{"index zero", "1 0:1", 1, 0, []string{`feature 1 "0:1"`, "index 0 in a 1-based file"}},
	{"bad label", "abc 1:1", 1, 0, []string{`label "abc"`, "not a number"}},
	{"nan label", "nan 1:1", 1, 0, []string{`label "nan"`, "not finite"}},
	{"nan value", "1 1:NaN", 1, 0, []string{`feature 1 "1:NaN"`, "value not finite"}},
	{"inf value", "1 1:1 2:-Inf", 1, 0, []string{`feature 2 "2:-Inf"`, "value not finite"}},
	{"overflow value", "1 1:1e999", 1, 0, []string{"value out of range"}},
	{"bad index", "1 x:1", 1, 0, []string{"index not a non-negative integer"}},
	{"negative index", "1 -1:1", 1, 0, []string{"index not a non-negative integer"}},
	{"huge index", "1 99999999999:1", 1, 0, []string{"index larger than 2147483647"}},
	{"missing colon", "1 3", 1, 0, []string{`feature 1 "3"`, "missing ':'"}},
	{"empty value", "1 3:", 1, 0, []string{"value empty"}},
	{"late qid", "1 1:1 qid:3", 1, 0, []string{"qid must come directly after the label"}},
	{"bad qid", "1 qid:x 1:1", 1, 0, []string{"qid not an integer"}},
	{"two qids", "0 qid:0 qid:0", 1, 0, []string{`feature 1 "qid:0"`, "qid must come directly after the label"}},
	{"feature numbering after qid", "1 qid:2 1:1 x", 1, 0, []string{`feature 2 "x"`, "missing ':'"}},
	{"multi-label", "1,2 1:1", 1, 0, []string{`label "1,2"`, "not a number"}},
	{"third line", "1 1:1\n\n-1 1:1 1:2\n", 3, 0, []string{"not greater"}},
}

func TestParseLIBSVMErrors(t *testing.T) {
	for _, tt := range libsvmErrors {
		m, err := ParseLIBSVM(strings.NewReader(tt.in), "bad.svm", LIBSVMOptions{})
		if err == nil {
			t.Errorf("ParseLIBSVM(%q) = %+v; want an error", tt.in, m)
			continue
		}
		checkParseError(t, err, "bad.svm", tt.line, 0, tt.want...)
	}
}

func TestParseLIBSVMOptions(t *testing.T) {
	_, err := ParseLIBSVM(strings.NewReader("1 4:1"), "d.svm", LIBSVMOptions{Dim: 3})
	checkParseError(t, err, "d.svm", 1, 0, "index out of range for Dim = 3")
	_, err = ParseLIBSVM(strings.NewReader("1 3:1"), "d.svm", LIBSVMOptions{Dim: 3, ZeroBased: true})
	checkParseError(t, err, "d.svm", 1, 0, "index out of range for Dim = 3")
	for _, dim := range []int{-1, 1 << 40} {
		if _, err := ParseLIBSVM(strings.NewReader(""), "d.svm", LIBSVMOptions{Dim: dim}); err == nil {
			t.Errorf("ParseLIBSVM(Dim = %d) succeeded; want an error", dim)
		}
	}
}

func TestReadLIBSVMFixtures(t *testing.T) {
	want := &Sparse{N: 3, D: 4, Indptr: []int{0, 2, 3, 5}, Indices: []int32{0, 2, 1, 0, 3},
		Values: []float64{0.5, -2, 1e-3, 1, 4}, Labels: []float64{1, -1, 0}}
	raw, err := os.ReadFile("testdata/small.svm")
	if err != nil {
		t.Fatal(err)
	}
	gzPath := writeTemp(t, "small.svm.gz", gz(raw))
	for _, p := range []string{"testdata/small.svm", "testdata/small.svm.bz2", gzPath} {
		got, err := ReadLIBSVM(p, LIBSVMOptions{})
		if err != nil {
			t.Errorf("ReadLIBSVM(%s): %v", p, err)
			continue
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("ReadLIBSVM(%s) = %+v; want %+v", p, got, want)
		}
	}
	if _, err := ReadLIBSVM("testdata/missing.svm", LIBSVMOptions{}); err == nil || !strings.Contains(err.Error(), "missing.svm") {
		t.Errorf("ReadLIBSVM(missing) error = %v; want one naming the file", err)
	}
}

// TestParseLIBSVMLongLine checks a line longer than the read buffer.
func TestParseLIBSVMLongLine(t *testing.T) {
	var b strings.Builder
	b.WriteString("1")
	const nnz = 60000
	for j := 1; j <= nnz; j++ {
		fmt.Fprintf(&b, " %d:%d", 2*j, j)
	}
	b.WriteString("\n-1 5:1\n")
	m, err := ParseLIBSVM(strings.NewReader(b.String()), "long.svm", LIBSVMOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if m.N != 2 || m.D != 2*nnz || m.NNZ() != nnz+1 || m.Values[nnz-1] != nnz || m.Indices[nnz] != 4 {
		t.Errorf("ParseLIBSVM(long line) = %d×%d with %d entries; want 2×%d with %d", m.N, m.D, m.NNZ(), 2*nnz, nnz+1)
	}
}
