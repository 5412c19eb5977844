package gdtest

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"
)

// LoadJSON decodes testdata/gd/name into a new T, failing t on any error.
// The path is relative to the test's working directory, which go test sets
// to the package's directory: the callers sit two levels below the module
// root (algorithms/<name>).
func LoadJSON[T any](t testing.TB, name string) *T {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "gd", name))
	if err != nil {
		t.Fatal(err)
	}
	v := new(T)
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return v
}

// RelErr returns max_i |got_i − want_i| / max(1e-300, max_i |want_i|): the
// largest error relative to the largest reference entry. got must be at
// least as long as want.
func RelErr(got, want []float64) float64 {
	scale, e := 1e-300, 0.0
	for _, w := range want {
		scale = max(scale, math.Abs(w))
	}
	for i := range want {
		e = max(e, math.Abs(got[i]-want[i]))
	}
	return e / scale
}

// Seq returns the indices lo, lo+1, …, hi−1.
func Seq(lo, hi int) []int {
	s := make([]int, 0, max(0, hi-lo))
	for i := lo; i < hi; i++ {
		s = append(s, i)
	}
	return s
}

// Shards splits the points 0 … n−1 into k contiguous shards, shard s
// holding s·n/k … (s+1)·n/k − 1.
func Shards(n, k int) [][]int {
	out := make([][]int, k)
	for s := range k {
		out[s] = Seq(s*n/k, (s+1)*n/k)
	}
	return out
}
