package dataset

import (
	"os"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

func TestParseCSV(t *testing.T) {
	tests := []struct {
		name string
		in   string
		opt  CSVOptions
		want *Dense
	}{
		{"empty", "", CSVOptions{}, &Dense{X: []float64{}, Labels: []float64{}}},
		{"label first", "1,2,3\n0,4,5\n", CSVOptions{},
			&Dense{N: 2, D: 2, X: []float64{2, 3, 4, 5}, Labels: []float64{1, 0}}},
		{"no label", "1,2,3\n0,4,5", CSVOptions{LabelColumn: -1},
			&Dense{N: 2, D: 3, X: []float64{1, 2, 3, 0, 4, 5}}},
		{"label last", "1,2,3\n0,4,5\n", CSVOptions{LabelColumn: 2},
			&Dense{N: 2, D: 2, X: []float64{1, 2, 0, 4}, Labels: []float64{3, 5}}},
		{"header, CRLF, blank lines, spaces", "y,a,b\r\n1, 2 ,3\r\n\r\n 0 ,\t4,5e-1\r\n\n", CSVOptions{Header: true},
			&Dense{N: 2, D: 2, X: []float64{2, 3, 4, 0.5}, Labels: []float64{1, 0}}},
		{"semicolon", "1;2\n3;4\n", CSVOptions{Comma: ';'},
			&Dense{N: 2, D: 1, X: []float64{2, 4}, Labels: []float64{1, 3}}},
		{"tab", "1\t2\n3\t4\n", CSVOptions{Comma: '\t'},
			&Dense{N: 2, D: 1, X: []float64{2, 4}, Labels: []float64{1, 3}}},
		{"multi-byte separator", "1¦2¦-3\n", CSVOptions{Comma: '¦'},
			&Dense{N: 1, D: 2, X: []float64{2, -3}, Labels: []float64{1}}},
		{"label only", "1\n2\n", CSVOptions{},
			&Dense{N: 2, D: 0, X: []float64{}, Labels: []float64{1, 2}}},
	}
	for _, tt := range tests {
		got, err := ParseCSV(strings.NewReader(tt.in), tt.name, tt.opt)
		if err != nil {
			t.Errorf("ParseCSV(%q, %+v): %v", tt.in, tt.opt, err)
			continue
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("ParseCSV(%q, %+v) = %+v; want %+v", tt.in, tt.opt, got, tt.want)
		}
		if err := got.Validate(); err != nil {
			t.Errorf("ParseCSV(%q): Validate: %v", tt.in, err)
		}
	}
}

// csvErrors are malformed CSV inputs (default options) and what the error
// must say.
var csvErrors = []errCase{
	{"short row", "1,2,3\n1,2\n", 2, 0, []string{"2 columns, want 3 (as on line 1)"}},
	{"long row", "1,2,3\n\n1,2,3,4\n", 3, 0, []string{"more than 3 columns (as on line 1)"}},
	{"empty field", "1,,3", 1, 0, []string{`column 2 ""`, "empty field"}},
	{"trailing comma", "1,2,", 1, 0, []string{`column 3 ""`, "empty field"}},
	{"not a number", "1,2,3\n0,abc,3\n", 2, 0, []string{`column 2 "abc"`, "not a number"}},
	{"nan", "1,NaN,3", 1, 0, []string{`column 2 "NaN"`, "not finite"}},
	{"inf", "1,2,+Inf", 1, 0, []string{`column 3 "+Inf"`, "not finite"}},
	{"overflow", "1,2e400", 1, 0, []string{`column 2 "2e400"`, "out of range"}},
	{"bad label", "yes,1,2", 1, 0, []string{`column 1 (label) "yes"`, "not a number"}},
	{"quoted", `"1",2`, 1, 0, []string{`column 1 (label) "\"1\""`, "not a number"}},
	{"header not skipped", "label,a\n1,2\n", 1, 0, []string{`column 1 (label) "label"`}},
}

func TestParseCSVErrors(t *testing.T) {
	for _, tt := range csvErrors {
		m, err := ParseCSV(strings.NewReader(tt.in), "train.csv", CSVOptions{})
		if err == nil {
			t.Errorf("ParseCSV(%q) = %+v; want an error", tt.in, m)
			continue
		}
		checkParseError(t, err, "train.csv", tt.line, 0, tt.want...)
	}
}

func TestParseCSVOptions(t *testing.T) {
	_, err := ParseCSV(strings.NewReader("1,2\n"), "o.csv", CSVOptions{LabelColumn: 2})
	checkParseError(t, err, "o.csv", 1, 0, "label column 2 (0-based) but the line has 2 columns")
	_, err = ParseCSV(strings.NewReader("a,b\n1,x\n"), "o.csv", CSVOptions{Header: true})
	checkParseError(t, err, "o.csv", 2, 0, `column 2 "x"`)
	for _, opt := range []CSVOptions{{LabelColumn: -2}, {Comma: '"'}, {Comma: '\n'}, {Comma: -5}, {Comma: 0xFFFD}} {
		if _, err := ParseCSV(strings.NewReader("1,2"), "o.csv", opt); err == nil {
			t.Errorf("ParseCSV(%+v) succeeded; want an option error", opt)
		}
	}
}

func TestReadCSVFixture(t *testing.T) {
	raw, err := os.ReadFile("testdata/small.csv")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"testdata/small.csv", writeTemp(t, "small.csv.gz", gz(raw))} {
		m, err := ReadCSV(p, CSVOptions{})
		if err != nil {
			t.Fatalf("ReadCSV(%s): %v", p, err)
		}
		if m.N != 3 || m.D != 3 || !reflect.DeepEqual(m.Labels, []float64{1, 0, 1}) || m.X[0] != 8.692932128906250000e-01 || m.X[8] != -1.635974764823913574e+00 {
			t.Errorf("ReadCSV(%s) = %+v; want the 3×3 HIGGS head", p, m)
		}
	}
}

// TestParseCSVLongLines checks lines longer than the read buffer.
func TestParseCSVLongLines(t *testing.T) {
	const cols = 100000 // ~ 600 KB per line, more than bufSize
	var b strings.Builder
	for row := range 3 {
		for c := range cols {
			if c > 0 {
				b.WriteByte(',')
			}
			b.WriteString(strconv.Itoa(row*cols + c))
		}
		b.WriteByte('\n')
	}
	if b.Len()/3 <= bufSize {
		t.Fatalf("test line of %d bytes is not longer than bufSize %d", b.Len()/3, bufSize)
	}
	m, err := ParseCSV(strings.NewReader(b.String()), "long.csv", CSVOptions{LabelColumn: -1})
	if err != nil {
		t.Fatal(err)
	}
	if m.N != 3 || m.D != cols {
		t.Fatalf("ParseCSV(long lines) = %d×%d; want 3×%d", m.N, m.D, cols)
	}
	for i, v := range m.X {
		if v != float64(i) {
			t.Fatalf("ParseCSV(long lines): X[%d] = %v; want %d", i, v, i)
		}
	}
	_, err = ParseCSV(strings.NewReader(b.String()+"1,2\n"), "long.csv", CSVOptions{LabelColumn: -1})
	checkParseError(t, err, "long.csv", 4, 0, "2 columns, want 100000")
}
