package dataset

import (
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
)

func newRNG(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 1)) }

// TestGeneratorsDeterministic checks that each generator gives identical
// output for the same seed and different output for different seeds.
func TestGeneratorsDeterministic(t *testing.T) {
	gens := map[string]func(seed uint64) any{
		"Blobs": func(s uint64) any { return Blobs(newRNG(s), 50, 3, 4, 1.5) },
		"Logistic": func(s uint64) any {
			m, w := Logistic(newRNG(s), 50, 5)
			return []any{m, w}
		},
		"SparseLogistic": func(s uint64) any {
			m, w := SparseLogistic(newRNG(s), 50, 100, 7)
			return []any{m, w}
		},
		"SparseLogisticDense": func(s uint64) any { // nnz > 32 takes the map path
			m, w := SparseLogistic(newRNG(s), 20, 60, 50)
			return []any{m, w}
		},
		"LowRankRatings": func(s uint64) any { return LowRankRatings(newRNG(s), 20, 30, 3, 200, 1) },
	}
	for name, gen := range gens {
		a, b, c := gen(1), gen(1), gen(2)
		if !reflect.DeepEqual(a, b) {
			t.Errorf("%s: seed 1 twice gave different output", name)
		}
		if reflect.DeepEqual(a, c) {
			t.Errorf("%s: seeds 1 and 2 gave the same output", name)
		}
	}
}

func TestBlobs(t *testing.T) {
	const n, d, k, spread = 3000, 2, 3, 0.5
	m := Blobs(newRNG(7), n, d, k, spread)
	if err := m.Validate(); err != nil || m.N != n || m.D != d {
		t.Fatalf("Blobs = %d×%d, Validate %v; want %d×%d", m.N, m.D, err, n, d)
	}
	// Per-cluster mean and spread: centers in [-10, 10], std ≈ spread.
	var cnt [k]int
	var sum, sq [k][d]float64
	for i := range n {
		c := int(m.Labels[i])
		if c < 0 || c >= k || float64(c) != m.Labels[i] {
			t.Fatalf("Blobs: label %d = %v; want 0..%d", i, m.Labels[i], k-1)
		}
		cnt[c]++
		for j, v := range m.Row(i) {
			sum[c][j] += v
			sq[c][j] += v * v
		}
	}
	for c := range k {
		if cnt[c] < n/k/2 {
			t.Errorf("Blobs: cluster %d has %d points; want about %d", c, cnt[c], n/k)
		}
		for j := range d {
			mean := sum[c][j] / float64(cnt[c])
			sd := math.Sqrt(sq[c][j]/float64(cnt[c]) - mean*mean)
			if mean < -10.2 || mean > 10.2 || math.Abs(sd-spread) > 0.1 {
				t.Errorf("Blobs: cluster %d dim %d mean %.3f sd %.3f; want mean in [-10, 10], sd ≈ %v", c, j, mean, sd, spread)
			}
		}
	}
}

// accuracy returns how often the sign of the true logit predicts the label.
func accuracy(n int, logit func(i int) float64, label func(i int) float64) float64 {
	ok := 0
	for i := range n {
		if (logit(i) > 0) == (label(i) == 1) {
			ok++
		}
	}
	return float64(ok) / float64(n)
}

func TestLogistic(t *testing.T) {
	const n, d = 5000, 20
	m, w := Logistic(newRNG(3), n, d)
	if err := m.Validate(); err != nil || m.N != n || m.D != d || len(w) != d+1 {
		t.Fatalf("Logistic = %d×%d, %d weights, Validate %v; want %d×%d, %d weights", m.N, m.D, len(w), err, n, d, d+1)
	}
	ones := 0
	for _, y := range m.Labels {
		if y != 0 && y != 1 {
			t.Fatalf("Logistic: label %v; want 0 or 1", y)
		}
		ones += int(y)
	}
	if ones < n/5 || ones > 4*n/5 {
		t.Errorf("Logistic: %d of %d labels are 1; want a mix", ones, n)
	}
	logit := func(i int) float64 {
		z := w[d]
		for j, x := range m.Row(i) {
			z += w[j] * x
		}
		return z
	}
	// With logit sd ≈ 2 the Bayes classifier is right ~ 80% of the time.
	if acc := accuracy(n, logit, func(i int) float64 { return m.Labels[i] }); acc < 0.7 || acc > 0.9 {
		t.Errorf("Logistic: true-weight accuracy %.3f; want in [0.7, 0.9]", acc)
	}
}

func TestSparseLogistic(t *testing.T) {
	const n, d, nnz = 5000, 1000, 30
	m, w := SparseLogistic(newRNG(4), n, d, nnz)
	if err := m.Validate(); err != nil || m.N != n || m.D != d || len(w) != d+1 {
		t.Fatalf("SparseLogistic = %d×%d, %d weights, Validate %v", m.N, m.D, len(w), err)
	}
	nonzero := 0
	for _, v := range w[:d] {
		if v != 0 {
			nonzero++
		}
	}
	if nonzero != d/10 {
		t.Errorf("SparseLogistic: %d nonzero weights; want %d", nonzero, d/10)
	}
	for i := range n {
		cols, vals := m.Row(i)
		if len(cols) != nnz {
			t.Fatalf("SparseLogistic: row %d has %d entries; want %d", i, len(cols), nnz)
		}
		for k, c := range cols {
			if c%2 == 0 && vals[k] != 1 {
				t.Fatalf("SparseLogistic: row %d even column %d has value %v; want 1", i, c, vals[k])
			}
		}
	}
	logit := func(i int) float64 {
		z := w[d]
		cols, vals := m.Row(i)
		for k, c := range cols {
			z += w[c] * vals[k]
		}
		return z
	}
	if acc := accuracy(n, logit, func(i int) float64 { return m.Labels[i] }); acc < 0.65 || acc > 0.95 {
		t.Errorf("SparseLogistic: true-weight accuracy %.3f; want in [0.65, 0.95]", acc)
	}
	// nnz = d: every column in every row.
	full, _ := SparseLogistic(newRNG(5), 3, 40, 40)
	if err := full.Validate(); err != nil || full.NNZ() != 120 {
		t.Errorf("SparseLogistic(nnz = d) NNZ %d, Validate %v; want 120", full.NNZ(), err)
	}
}

func TestSampleDistinct(t *testing.T) {
	rng := newRNG(9)
	for _, tt := range []struct{ d, k int }{{1, 1}, {10, 0}, {10, 10}, {100, 5}, {100, 33}, {1 << 30, 40}} {
		got := sampleDistinct(rng, tt.d, tt.k, nil)
		if len(got) != tt.k || !slices.IsSorted(got) || len(slices.Compact(slices.Clone(got))) != tt.k ||
			(tt.k > 0 && (got[0] < 0 || int(got[tt.k-1]) >= tt.d)) {
			t.Errorf("sampleDistinct(d=%d, k=%d) = %v; want %d sorted distinct values in [0, d)", tt.d, tt.k, got, tt.k)
		}
	}
}

func TestLowRankRatings(t *testing.T) {
	const users, items, n = 200, 500, 20000
	r := LowRankRatings(newRNG(6), users, items, 5, n, 1)
	if err := r.Validate(); err != nil || r.Len() != n || r.NumUsers != users || r.NumItems != items {
		t.Fatalf("LowRankRatings: %d ratings %d×%d, Validate %v", r.Len(), r.NumUsers, r.NumItems, err)
	}
	if len(r.UserIDs) != users || len(r.ItemIDs) != items || r.ItemIDs[items-1] != items-1 {
		t.Errorf("LowRankRatings: ids %d users %d items; want identity ids", len(r.UserIDs), len(r.ItemIDs))
	}
	count := make([]int, items)
	mean := 0.0
	for k, v := range r.Value {
		if !(v >= 1 && v <= 5) {
			t.Fatalf("LowRankRatings: value %d = %v; want in [1, 5]", k, v)
		}
		mean += v / n
		count[r.Item[k]]++
	}
	if mean < 2.7 || mean > 3.3 {
		t.Errorf("LowRankRatings: mean rating %.3f; want about 3", mean)
	}
	// Zipf with alpha = 1 over 500 items: the top item gets 1/H(500) ≈ 15%
	// of the ratings; uniform would give 0.2%.
	slices.Sort(count)
	if top := float64(count[items-1]) / n; top < 0.12 || top > 0.18 {
		t.Errorf("LowRankRatings(alpha=1): top item share %.3f; want ≈ 0.147", top)
	}
	u := LowRankRatings(newRNG(6), users, items, 5, n, 0)
	count = make([]int, items)
	for _, it := range u.Item {
		count[it]++
	}
	if top := slices.Max(count); top > 4*n/items {
		t.Errorf("LowRankRatings(alpha=0): top item has %d ratings; want about %d", top, n/items)
	}
}

func TestGeneratorsPanic(t *testing.T) {
	tests := map[string]func(){
		"Blobs k=0":              func() { Blobs(newRNG(1), 1, 1, 0, 1) },
		"Blobs spread NaN":       func() { Blobs(newRNG(1), 1, 1, 1, math.NaN()) },
		"Logistic d=0":           func() { Logistic(newRNG(1), 1, 0) },
		"SparseLogistic nnz>d":   func() { SparseLogistic(newRNG(1), 1, 3, 4) },
		"LowRankRatings alpha<0": func() { LowRankRatings(newRNG(1), 1, 1, 1, 1, -1) },
	}
	for name, f := range tests {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s did not panic", name)
				}
			}()
			f()
		}()
	}
}
