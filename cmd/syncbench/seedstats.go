package main

import (
	"fmt"
	"math"
	"slices"

	"github.com/montanaflynn/stats"

	"github.com/syncmodels/syncmodels/internal/fpdet"
)

// seedStat is one quantity of a reproduce setting summarised over its
// seeds, with github.com/montanaflynn/stats: the mean and sample standard
// deviation, the median and a distribution-free confidence interval for
// it, and the extremes. Every report that runs several seeds (fsp's
// interval sweep, doll, p2p; slsml's percentiles) summarises with it or
// with the same library. The standard deviation (and slsml's percentiles)
// come from portable_stats.go: the library's algorithms with their
// products rounded, so that arm64 gives amd64's bits.
//
// The interval is [x(k), x(n+1−k)] of the sorted values: it covers the
// population median with probability 1 − 2·P(Bin(n, ½) < k) whatever the
// distribution (the sign test's interval; Hollander, Wolfe and Chicken,
// Nonparametric Statistical Methods, §3.6). k is the largest whose
// coverage is at least 95%; with 5 seeds or fewer no k reaches it and the
// interval is the range (k = 1), of coverage 1 − 2^(1−n). The coverage is
// exact: the binomial terms are stats.Ncr's integers.
//
// A value may be +Inf (a run that never reached its target counts as
// slower than any): the median and the bounds are then +Inf where the
// order statistics are, the mean and deviation +Inf or NaN.
type seedStat struct {
	n          int
	mean, sd   float64 // sd: the sample standard deviation (n − 1), NaN below two seeds
	median     float64 // the mean of the two middle values for an even n
	lo, hi     float64 // the interval for the median
	coverage   float64 // its coverage probability; 0 for one seed (no interval)
	minv, maxv float64
}

// overSeeds summarises xs; every field is NaN (n = 0) for no values.
func overSeeds(xs []float64) seedStat {
	nan := math.NaN()
	st := seedStat{n: len(xs), mean: nan, sd: nan, median: nan, lo: nan, hi: nan, minv: nan, maxv: nan}
	if len(xs) == 0 {
		return st
	}
	// The errors are those of empty input, ruled out above, and of a
	// deviation of one value, which stays NaN.
	st.mean, _ = stats.Mean(xs)
	st.median, _ = stats.Median(xs)
	st.minv, _ = stats.Min(xs)
	st.maxv, _ = stats.Max(xs)
	if len(xs) > 1 {
		st.sd, _ = sampleSD(xs)
	}
	sorted := slices.Sorted(slices.Values(xs))
	n := len(sorted)
	k := medianRank(n)
	st.lo, st.hi = sorted[k-1], sorted[n-k]
	if n > 1 {
		st.coverage = medianCoverage(n, k)
	}
	return st
}

// medianRank is the k of the median's interval for n values: the largest
// whose coverage is at least 95%, 1 if none.
func medianRank(n int) int {
	k := 1
	for k+1 <= (n+1)/2 && medianCoverage(n, k+1) >= 0.95 {
		k++
	}
	return k
}

// medianCoverage is 1 − 2·P(Bin(n, ½) < k), the probability that
// [x(k), x(n+1−k)] of n draws covers their distribution's median.
func medianCoverage(n, k int) float64 {
	below := 0.0
	for i := range k {
		below += float64(stats.Ncr(n, i))
	}
	return 1 - 2*below/fpdet.Exp2(float64(n))
}

// fmt formats the median with f, and its interval in brackets when there
// is one and it is not a single value.
func (s seedStat) fmt(f func(float64) string) string {
	if s.n < 2 || s.lo == s.hi {
		return f(s.median)
	}
	return fmt.Sprintf("%s [%s, %s]", f(s.median), f(s.lo), f(s.hi))
}

// intervalText says, for n seeds, which order statistics bound the
// median's interval and their coverage, for a report's setup.
func intervalText(n int) string {
	if n < 2 {
		return "no interval"
	}
	k := medianRank(n)
	if k == 1 {
		return fmt.Sprintf("the range, %.1f%%", 100*medianCoverage(n, k))
	}
	return fmt.Sprintf("x(%d) to x(%d), %.1f%%", k, n+1-k, 100*medianCoverage(n, k))
}
