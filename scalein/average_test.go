package scalein

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
)

func TestAverage(t *testing.T) {
	for _, c := range []struct {
		name     string
		replicas [][]float64
		weights  []float64
		want     []float64
	}{
		{"leave-time ½(x_p + x_p′)", [][]float64{{1, 2, 3}, {3, 2, -1}}, nil, []float64{2, 2, 1}},
		{"weighted", [][]float64{{1, 0}, {4, 8}}, []float64{3, 1}, []float64{1.75, 2}},
		{"zero weight ignored", [][]float64{{1, 1}, {1e300, -5}}, []float64{2, 0}, []float64{1, 1}},
		{"one replica", [][]float64{{-7, 0.5}}, nil, []float64{-7, 0.5}},
		{"no overflow", [][]float64{{math.MaxFloat64}, {math.MaxFloat64}}, nil, []float64{math.MaxFloat64}},
		{"large weights", [][]float64{{2}, {4}}, []float64{1e308, 1e308}, []float64{3}},
	} {
		got, err := Average(nil, c.replicas, c.weights)
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("%s: Average(nil, %v, %v) = %v, %v; want %v", c.name, c.replicas, c.weights, got, err, c.want)
		}
	}
}

// dst may be one of the replicas: the in-place form of the leave-time
// average, x_p′ ← ½(x_p + x_p′).
func TestAverageInPlace(t *testing.T) {
	own := []float64{1, 2, 3}
	leaving := []float64{3, 4, 5}
	got, err := Average(own, [][]float64{leaving, own}, nil)
	if err != nil || &got[0] != &own[0] || !slices.Equal(own, []float64{2, 3, 4}) {
		t.Errorf("Average(own, {leaving, own}) = %v, %v; own = %v, want [2 3 4] in place", got, err, own)
	}
	if !slices.Equal(leaving, []float64{3, 4, 5}) {
		t.Errorf("leaving replica changed to %v", leaving)
	}
}

func TestAverageErrors(t *testing.T) {
	for _, c := range []struct {
		name     string
		dst      []float64
		replicas [][]float64
		weights  []float64
		field    string
		err      error
	}{
		{"no replicas", nil, nil, nil, "len(replicas)", ErrLength},
		{"empty replica", nil, [][]float64{{}}, nil, "len(replicas[0])", ErrLength},
		{"ragged", nil, [][]float64{{1, 2}, {1}}, nil, "len(replicas[1])", ErrLength},
		{"weights length", nil, [][]float64{{1}, {2}}, []float64{1}, "len(weights)", ErrLength},
		{"dst length", make([]float64, 3), [][]float64{{1}, {2}}, nil, "len(dst)", ErrLength},
		{"NaN value", nil, [][]float64{{1}, {math.NaN()}}, nil, "replicas[1][0]", ErrNonFinite},
		{"Inf value", nil, [][]float64{{1, math.Inf(-1)}}, nil, "replicas[0][1]", ErrNonFinite},
		{"NaN weight", nil, [][]float64{{1}, {2}}, []float64{1, math.NaN()}, "weights[1]", ErrNonFinite},
		{"negative weight", nil, [][]float64{{1}, {2}}, []float64{-1, 2}, "weights[0]", ErrNegative},
		{"zero weights", nil, [][]float64{{1}, {2}}, []float64{0, 0}, "weights", ErrDomain},
	} {
		before := slices.Clone(c.dst)
		_, err := Average(c.dst, c.replicas, c.weights)
		var ie *InputError
		if !errors.Is(err, c.err) || !errors.As(err, &ie) || ie.Input != c.field || !strings.Contains(err.Error(), c.field) {
			t.Errorf("%s: error %v; want an *InputError on %s matching %v", c.name, err, c.field, c.err)
		}
		if !slices.Equal(c.dst, before) {
			t.Errorf("%s: dst changed", c.name)
		}
	}
}
