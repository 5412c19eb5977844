package dataset

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestParseIDXImages(t *testing.T) {
	// Three 2×3 images with pixels 0..17, except pixel 17 is 255.
	data := seq(18)
	data[17] = 255
	raw := idxBytes(idxImagesMagic, []uint32{3, 2, 3}, data)
	want := make([]float64, 18)
	for i, b := range data {
		want[i] = float64(b) / 255.0
	}
	for _, tt := range []struct {
		name string
		in   []byte
	}{{"raw", raw}, {"gzip", gz(raw)}} {
		for _, hide := range []bool{false, true} {
			var r = bytes.NewReader(tt.in)
			m, err := ParseIDXImages(r, tt.name)
			if hide {
				m, err = ParseIDXImages(noLen{bytes.NewReader(tt.in)}, tt.name)
			}
			if err != nil {
				t.Fatalf("ParseIDXImages(%s, hide len %v): %v", tt.name, hide, err)
			}
			if m.N != 3 || m.D != 6 || m.Labels != nil || !slices.Equal(m.X, want) {
				t.Errorf("ParseIDXImages(%s) = %d×%d %v labels %v; want 3×6 %v no labels", tt.name, m.N, m.D, m.X, m.Labels, want)
			}
			if m.X[17] != 1 {
				t.Errorf("ParseIDXImages(%s): pixel 255 = %v; want exactly 1", tt.name, m.X[17])
			}
		}
	}
}

func TestParseIDXLabels(t *testing.T) {
	raw := idxBytes(idxLabelsMagic, []uint32{4}, []byte{0, 9, 3, 255})
	for _, in := range [][]byte{raw, gz(raw)} {
		y, err := ParseIDXLabels(bytes.NewReader(in), "labels")
		if want := []float64{0, 9, 3, 255}; err != nil || !slices.Equal(y, want) {
			t.Errorf("ParseIDXLabels = %v, %v; want %v", y, err, want)
		}
	}
}

func TestParseIDXEmpty(t *testing.T) {
	m, err := ParseIDXImages(bytes.NewReader(idxBytes(idxImagesMagic, []uint32{0, 28, 28}, nil)), "empty")
	if err != nil || m.N != 0 || m.D != 784 || m.Validate() != nil {
		t.Errorf("ParseIDXImages(0 images) = %+v, %v; want 0×784", m, err)
	}
}

func TestLoadIDX(t *testing.T) {
	img := writeTemp(t, "img.gz", gz(idxBytes(idxImagesMagic, []uint32{2, 1, 2}, []byte{0, 51, 102, 255})))
	lab := writeTemp(t, "lab", idxBytes(idxLabelsMagic, []uint32{2}, []byte{7, 1}))
	lab3 := writeTemp(t, "lab3", idxBytes(idxLabelsMagic, []uint32{3}, []byte{7, 1, 2}))

	m, err := LoadIDX(img, lab)
	if err != nil {
		t.Fatal(err)
	}
	if want := []float64{0, 0.2, 0.4, 1}; m.N != 2 || m.D != 2 || !slices.Equal(m.X, want) || !slices.Equal(m.Labels, []float64{7, 1}) {
		t.Errorf("LoadIDX = %+v; want 2×2 %v labels [7 1]", m, want)
	}
	if m, err := LoadIDX(img, ""); err != nil || m.Labels != nil || m.N != 2 {
		t.Errorf(`LoadIDX(img, "") = %+v, %v; want 2 images without labels`, m, err)
	}
	_, err = LoadIDX(img, lab3)
	checkParseError(t, err, lab3, 0, 0, "3 labels for 2 images")
	if _, err := LoadIDX(filepath.Join(t.TempDir(), "missing"), ""); err == nil {
		t.Errorf("LoadIDX(missing file) succeeded")
	}
}

// idxImageErrors are malformed image files (read with their size known
// unless noted) and what the error must say.
var idxImageErrors = []struct {
	name   string
	in     []byte
	hide   bool // hide the size from the parser
	record int
	want   []string
}{
	{name: "empty", in: nil, want: []string{"header", "truncated magic"}},
	{name: "short magic", in: []byte{0, 0, 8}, want: []string{"truncated magic"}},
	{name: "not idx", in: []byte("PK\x03\x04rest"), want: []string{"not an IDX file"}},
	{name: "labels magic", in: idxBytes(idxLabelsMagic, []uint32{1}, []byte{1}), want: []string{"1 dimensions, want 3"}},
	{name: "float type", in: idxBytes(0x00000D03, []uint32{1, 1, 1}, seq(4)), want: []string{"element type 0x0d not supported"}},
	{name: "short dims", in: idxBytes(idxImagesMagic, []uint32{1, 2}, nil), want: []string{"truncated: 3 dimension sizes"}},
	{name: "overflow", in: idxBytes(idxImagesMagic, []uint32{1 << 31, 1 << 31, 1 << 31}, nil), want: []string{"too many values"}},
	{name: "overflow hidden", in: idxBytes(idxImagesMagic, []uint32{0xffffffff, 0xffffffff, 0xffffffff}, nil), hide: true, want: []string{"too many values"}},
	{name: "huge row, no images", in: idxBytes(idxImagesMagic, []uint32{0, 0xffffffff, 0xffffffff}, nil), want: []string{"images of size"}},
	{name: "zero-size images", in: idxBytes(idxImagesMagic, []uint32{5, 0, 28}, nil), want: []string{"images of size 0×28"}},
	{name: "bigger than file", in: idxBytes(idxImagesMagic, []uint32{60000, 28, 28}, seq(100)), want: []string{"47040000 data bytes but only 100 follow"}},
	{name: "truncated record", in: idxBytes(idxImagesMagic, []uint32{3, 2, 2}, seq(9)), hide: true, record: 3, want: []string{"truncated", "after 1 of the record's 4 bytes", "declares 3 records"}},
	{name: "truncated at boundary", in: idxBytes(idxImagesMagic, []uint32{3, 2, 2}, seq(8)), hide: true, record: 3, want: []string{"truncated"}},
	{name: "trailing data", in: idxBytes(idxImagesMagic, []uint32{2, 2, 2}, seq(9)), want: []string{"unexpected data after the 2 records"}},
	{name: "gzip trailer cut", in: gz(idxBytes(idxImagesMagic, []uint32{2, 2, 2}, seq(8)))[:30], want: []string{"after the last record", "unexpected EOF"}},
	{name: "gzip data cut", in: gz(idxBytes(idxImagesMagic, []uint32{1000, 4, 4}, noise(16000)))[:8000], record: 499, want: []string{"truncated", "after 1 of the record's 16 bytes"}},
	{name: "gzip bad checksum", in: corruptCRC(gz(idxBytes(idxImagesMagic, []uint32{2, 2, 2}, seq(8)))), want: []string{"after the last record", "checksum"}},
	{name: "gzip bad header", in: []byte{0x1f, 0x8b, 0, 0}, want: []string{"bad gzip header"}},
}

// noise returns n pseudo-random (incompressible) bytes.
func noise(n int) []byte {
	b := make([]byte, n)
	x := uint32(1)
	for i := range b {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		b[i] = byte(x)
	}
	return b
}

// corruptCRC flips a bit of a gzip stream's CRC-32 trailer.
func corruptCRC(b []byte) []byte {
	b = slices.Clone(b)
	b[len(b)-8] ^= 1
	return b
}

func TestParseIDXImagesErrors(t *testing.T) {
	for _, tt := range idxImageErrors {
		t.Run(tt.name, func(t *testing.T) {
			var m *Dense
			var err error
			if tt.hide {
				m, err = ParseIDXImages(noLen{bytes.NewReader(tt.in)}, tt.name)
			} else {
				m, err = ParseIDXImages(bytes.NewReader(tt.in), tt.name)
			}
			if err == nil {
				t.Fatalf("ParseIDXImages(%s) = %d×%d; want an error", tt.name, m.N, m.D)
			}
			checkParseError(t, err, tt.name, 0, tt.record, tt.want...)
		})
	}
}

func TestParseIDXLabelsErrors(t *testing.T) {
	tests := []struct {
		name   string
		in     []byte
		record int
		want   []string
	}{
		{"images magic", idxBytes(idxImagesMagic, []uint32{1, 1, 1}, []byte{1}), 0, []string{"3 dimensions, want 1"}},
		{"short count", []byte{0, 0, 8, 1, 0}, 0, []string{"truncated: 1 dimension sizes"}},
		{"bigger than file", idxBytes(idxLabelsMagic, []uint32{10}, seq(3)), 0, []string{"10 data bytes but only 3 follow"}},
		{"trailing", idxBytes(idxLabelsMagic, []uint32{2}, seq(3)), 0, []string{"unexpected data after the 2 records"}},
	}
	for _, tt := range tests {
		y, err := ParseIDXLabels(bytes.NewReader(tt.in), tt.name)
		if err == nil {
			t.Errorf("ParseIDXLabels(%s) = %v; want an error", tt.name, y)
			continue
		}
		checkParseError(t, err, tt.name, 0, tt.record, tt.want...)
	}
	// The same truncated file with its size hidden fails at the record.
	_, err := ParseIDXLabels(noLen{bytes.NewReader(idxBytes(idxLabelsMagic, []uint32{10}, seq(3)))}, "hidden")
	checkParseError(t, err, "hidden", 0, 4, "truncated")
}

func TestReadIDXFiles(t *testing.T) {
	raw := idxBytes(idxImagesMagic, []uint32{2, 1, 1}, []byte{0, 255})
	for _, name := range []string{"raw", "gz"} {
		in := raw
		if name == "gz" {
			in = gz(raw)
		}
		p := writeTemp(t, name, in)
		m, err := ReadIDXImages(p)
		if err != nil || !slices.Equal(m.X, []float64{0, 1}) {
			t.Errorf("ReadIDXImages(%s) = %v, %v; want [0 1]", name, m, err)
		}
	}
	// A raw file whose header claims more data than the file holds is
	// refused before anything is allocated.
	p := writeTemp(t, "huge", idxBytes(idxImagesMagic, []uint32{1 << 20, 1 << 10, 1 << 10}, seq(10)))
	_, err := ReadIDXImages(p)
	checkParseError(t, err, p, 0, 0, "but only 10 follow")
	lp := writeTemp(t, "lab.gz", gz(idxBytes(idxLabelsMagic, []uint32{3}, []byte{1, 2, 3})))
	if y, err := ReadIDXLabels(lp); err != nil || !slices.Equal(y, []float64{1, 2, 3}) {
		t.Errorf("ReadIDXLabels(gz) = %v, %v; want [1 2 3]", y, err)
	}
}

// TestFashionMNIST reads a Fashion-MNIST directory of four small files
// (the training pair gzip-compressed, the test pair raw) and, when the
// Debian package is installed, the real test set (10000 images) and the
// real training labels in full. TestLongFashionMNIST reads all 70000
// images, which takes 10–25 s under -race.
func TestFashionMNIST(t *testing.T) {
	dir := t.TempDir()
	for name, b := range map[string][]byte{
		"train-images-idx3-ubyte.gz": gz(idxBytes(idxImagesMagic, []uint32{3, 1, 2}, []byte{0, 255, 51, 102, 0, 0})),
		"train-labels-idx1-ubyte.gz": gz(idxBytes(idxLabelsMagic, []uint32{3}, []byte{9, 0, 4})),
		"t10k-images-idx3-ubyte":     idxBytes(idxImagesMagic, []uint32{2, 1, 2}, []byte{255, 255, 0, 51}),
		"t10k-labels-idx1-ubyte":     idxBytes(idxLabelsMagic, []uint32{2}, []byte{1, 2}),
	} {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	train, test, err := FashionMNIST(dir)
	if err != nil {
		t.Fatal(err)
	}
	if train.N != 3 || train.D != 2 || !slices.Equal(train.X, []float64{0, 1, 0.2, 0.4, 0, 0}) || !slices.Equal(train.Labels, []float64{9, 0, 4}) {
		t.Errorf("FashionMNIST(small dir) train = %+v; want the 3 .gz training images with labels 9, 0, 4", train)
	}
	if test.N != 2 || test.D != 2 || !slices.Equal(test.X, []float64{1, 1, 0, 0.2}) || !slices.Equal(test.Labels, []float64{1, 2}) {
		t.Errorf("FashionMNIST(small dir) test = %+v; want the 2 raw test images with labels 1, 2", test)
	}

	if _, err := os.Stat(filepath.Join(FashionMNISTDir, "t10k-images-idx3-ubyte.gz")); err != nil {
		t.Skipf("Fashion-MNIST not installed in %s (Debian package dataset-fashion-mnist): %v", FashionMNISTDir, err)
	}
	real, err := LoadIDX(filepath.Join(FashionMNISTDir, "t10k-images-idx3-ubyte.gz"), filepath.Join(FashionMNISTDir, "t10k-labels-idx1-ubyte.gz"))
	if err != nil {
		t.Fatal(err)
	}
	checkFashion(t, "test", real, 10000, 1000)
	y, err := ReadIDXLabels(filepath.Join(FashionMNISTDir, "train-labels-idx1-ubyte.gz"))
	if err != nil {
		t.Fatal(err)
	}
	if len(y) != 60000 {
		t.Errorf("train: %d labels; want 60000", len(y))
	}
	checkLabels(t, "train", y, 6000)
}

// TestLongFashionMNIST reads the installed Fashion-MNIST in full, a long
// check (SYNCMODELS_LONG=1).
func TestLongFashionMNIST(t *testing.T) {
	if os.Getenv("SYNCMODELS_LONG") != "1" {
		t.Skip("a long check: run with SYNCMODELS_LONG=1")
	}
	if _, err := os.Stat(filepath.Join(FashionMNISTDir, "train-images-idx3-ubyte.gz")); err != nil {
		t.Skipf("Fashion-MNIST not installed in %s (Debian package dataset-fashion-mnist): %v", FashionMNISTDir, err)
	}
	train, test, err := FashionMNIST(FashionMNISTDir)
	if err != nil {
		t.Fatal(err)
	}
	checkFashion(t, "train", train, 60000, 6000)
	checkFashion(t, "test", test, 10000, 1000)
}

// checkFashion checks m is n Fashion-MNIST images: 28×28 pixels in [0, 1],
// integer labels 0..9, class of each (the sets are balanced).
func checkFashion(t *testing.T, name string, m *Dense, n, class int) {
	t.Helper()
	if err := m.Validate(); err != nil {
		t.Errorf("%s: %v", name, err)
	}
	if m.N != n || m.D != 784 || len(m.Labels) != n {
		t.Errorf("%s: %d×%d with %d labels; want %d×784", name, m.N, m.D, len(m.Labels), n)
	}
	for i, v := range m.X {
		if !(v >= 0 && v <= 1) {
			t.Fatalf("%s: X[%d] = %v; want in [0, 1]", name, i, v)
		}
	}
	checkLabels(t, name, m.Labels, class)
}

// checkLabels checks y are integer labels 0..9, class of them each.
func checkLabels(t *testing.T, name string, y []float64, class int) {
	t.Helper()
	var count [10]int
	for i, v := range y {
		if v != float64(int(v)) || v < 0 || v > 9 {
			t.Fatalf("%s: label %d = %v; want an integer 0..9", name, i, v)
		}
		count[int(v)]++
	}
	for c, k := range count {
		if k != class {
			t.Errorf("%s: class %d has %d images; want %d", name, c, k, class)
		}
	}
}

func TestFashionMNISTMissing(t *testing.T) {
	_, _, err := FashionMNIST(t.TempDir())
	if err == nil {
		t.Errorf("FashionMNIST(empty dir) succeeded")
	}
}
