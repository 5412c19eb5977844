package main

import (
	"math"
	"sort"

	"github.com/montanaflynn/stats"
)

// github.com/montanaflynn/stats is pure Go, so the compiler fuses its
// multiply-adds on arm64 and other FMA targets: its sample standard
// deviation (Σ d·d) and its interpolated percentile (c[k] + f·Δ) round
// differently there than on amd64. sampleSD and percentile are the same
// algorithms with every product rounded before it is added (internal/fpdet
// explains why), so they return exactly what the library returns on amd64
// (TestPortableStatsMatchLibrary), on every architecture. The library's
// Mean, Median, Min, Max and Ncr have no products and are used as they are.

// sampleSD is stats.StandardDeviationSample: the deviations from the mean
// scaled by a power of two near the largest magnitude (so squaring cannot
// overflow), their squares summed in order, divided by n − 1.
func sampleSD(xs []float64) (float64, error) {
	switch len(xs) {
	case 0:
		return math.NaN(), stats.EmptyInputErr
	case 1:
		return math.NaN(), stats.ErrTooFew
	}
	var top float64
	for _, v := range xs {
		top = math.Max(top, math.Abs(v))
	}
	_, e := math.Frexp(top)
	e = max(e, -1021)
	f := math.Ldexp(1, -e)
	m, _ := stats.Mean(xs)
	m = float64(m * f)
	var v float64
	for _, x := range xs {
		d := float64(x*f) - m
		v += float64(d * d)
	}
	v /= float64(len(xs) - 1)
	return math.Ldexp(math.Sqrt(v), e), nil
}

// percentile is stats.Percentile: linear interpolation between the closest
// ranks of the sorted values, rank = p/100·(n − 1) (NumPy's default).
func percentile(xs []float64, p float64) (float64, error) {
	n := len(xs)
	switch {
	case n == 0:
		return math.NaN(), stats.EmptyInputErr
	case math.IsNaN(p) || p <= 0 || p > 100:
		return math.NaN(), stats.BoundsErr
	case n == 1:
		return xs[0], nil
	}
	for _, v := range xs {
		if math.IsNaN(v) {
			return math.NaN(), nil
		}
	}
	c := append([]float64(nil), xs...)
	sort.Float64s(c)
	rank := float64((p / 100) * float64(n-1))
	k := int(rank)
	f := rank - float64(k)
	if k+1 >= n || f == 0 || c[k+1] == c[k] {
		return c[k], nil
	}
	if delta := c[k+1] - c[k]; !math.IsInf(delta, 1) {
		return c[k] + float64(f*delta), nil
	}
	return float64((1-f)*c[k]) + float64(f*c[k+1]), nil
}
