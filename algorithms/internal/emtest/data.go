package emtest

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"encoding/csv"
	"encoding/json"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/syncmodels/syncmodels/dataset"
	"github.com/syncmodels/syncmodels/internal/fpdet"
)

// RefDir holds the reference outputs written by testdata/sklearn/make_refs.py,
// relative to a workload's package directory.
var RefDir = filepath.Join("..", "..", "testdata", "sklearn")

// ReadBlobs reads testdata/sklearn/blobs.csv (300×4).
func ReadBlobs(t testing.TB) *dataset.Dense {
	t.Helper()
	f, err := os.Open(filepath.Join(RefDir, "blobs.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.Comment = '#'
	m := &dataset.Dense{}
	for {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		m.D = len(rec)
		for _, s := range rec {
			v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
			if err != nil {
				t.Fatal(err)
			}
			m.X = append(m.X, v)
		}
		m.N++
	}
	return m
}

// ReadJSON decodes the reference file RefDir/name into v.
func ReadJSON(t testing.TB, name string, v any) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(RefDir, name))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
}

// fashionPath is the Fashion-MNIST training images file.
var fashionPath = filepath.Join(dataset.FashionMNISTDir, "train-images-idx3-ubyte.gz")

var (
	fashionOnce sync.Once
	fashion     *dataset.Dense
	fashionErr  error
)

// FashionTrain returns the 60000 Fashion-MNIST training images, read once
// per test binary, or skips the test when they are not installed.
func FashionTrain(t testing.TB) *dataset.Dense {
	t.Helper()
	fashionOnce.Do(func() {
		fashion, fashionErr = dataset.ReadIDXImages(fashionPath)
	})
	if fashionErr != nil {
		if os.IsNotExist(fashionErr) || strings.Contains(fashionErr.Error(), "no such file") {
			t.Skipf("Fashion-MNIST not installed (apt-get install dataset-fashion-mnist): %v", fashionErr)
		}
		t.Fatal(fashionErr)
	}
	return fashion
}

// FashionHead returns the first n Fashion-MNIST training images or skips
// the test. It feeds dataset.ParseIDXImages a header for n images followed
// by the first n records of the file, so that only those are decompressed
// and converted (reading all 60000 takes tens of seconds under -race).
func FashionHead(t testing.TB, n int) *dataset.Dense {
	t.Helper()
	f, err := os.Open(fashionPath)
	if os.IsNotExist(err) {
		t.Skipf("Fashion-MNIST not installed (apt-get install dataset-fashion-mnist): %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	hdr := make([]byte, 16)
	if _, err := io.ReadFull(zr, hdr); err != nil {
		t.Fatal(err)
	}
	rows, cols := binary.BigEndian.Uint32(hdr[8:]), binary.BigEndian.Uint32(hdr[12:])
	binary.BigEndian.PutUint32(hdr[4:], uint32(n))
	r := io.MultiReader(bytes.NewReader(hdr), io.LimitReader(zr, int64(n)*int64(rows*cols)))
	m, err := dataset.ParseIDXImages(r, fashionPath)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// RandomBlobs returns n points in d dimensions around k centres with
// coordinates drawn from N(0, scale²); a point of centre c has noise
// N(0, (1+spread·c)²) in every coordinate.
func RandomBlobs(rng *rand.Rand, n, d, k int, scale, spread float64) *dataset.Dense {
	centres := make([]float64, k*d)
	for i := range centres {
		centres[i] = fpdet.NormFloat64(rng) * scale
	}
	m := &dataset.Dense{N: n, D: d, X: make([]float64, n*d)}
	for i := 0; i < n; i++ {
		c := rng.IntN(k)
		for t := 0; t < d; t++ {
			m.X[i*d+t] = centres[c*d+t] + float64(fpdet.NormFloat64(rng)*(1+float64(spread*float64(c))))
		}
	}
	return m
}
