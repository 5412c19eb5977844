package emcore

import (
	"fmt"
	"math"

	"github.com/syncmodels/syncmodels/algorithms"
	"github.com/syncmodels/syncmodels/dataset"
)

// Initialisation methods of kmeans.Seed, which kmeans exports as
// kmeans.InitFirst, kmeans.InitRandom and kmeans.InitKMeansPP.
const (
	InitFirst    = "first"    // the first K points
	InitRandom   = "random"   // K distinct points drawn uniformly
	InitKMeansPP = "kmeans++" // greedy k-means++ (the default)
)

// CheckInit returns the initialisation method to use for method: method
// itself, or InitKMeansPP for "". An unknown method is an error wrapping
// algorithms.ErrConfig.
func CheckInit(method, pkg string) (string, error) {
	switch method {
	case "":
		return InitKMeansPP, nil
	case InitFirst, InitRandom, InitKMeansPP:
		return method, nil
	}
	return "", fmt.Errorf("%s: unknown init %q (want %q, %q or %q): %w",
		pkg, method, InitFirst, InitRandom, InitKMeansPP, algorithms.ErrConfig)
}

// CheckShape validates the shape of data for k clusters or components:
// non-nil, consistent (dataset.Dense.Validate), at least one feature and
// 1 ≤ k ≤ data.N. Errors wrap algorithms.ErrConfig.
func CheckShape(data *dataset.Dense, k int, pkg string) error {
	if data == nil {
		return fmt.Errorf("%s: nil data: %w", pkg, algorithms.ErrConfig)
	}
	if err := data.Validate(); err != nil {
		return fmt.Errorf("%s: %v: %w", pkg, err, algorithms.ErrConfig)
	}
	if data.D < 1 {
		return fmt.Errorf("%s: data has %d features: %w", pkg, data.D, algorithms.ErrConfig)
	}
	if k < 1 || k > data.N {
		return fmt.Errorf("%s: K = %d, want 1 ≤ K ≤ %d points: %w", pkg, k, data.N, algorithms.ErrConfig)
	}
	return nil
}

// CheckData validates data for k clusters or components: the checks of
// CheckShape, then finite values. Errors wrap algorithms.ErrConfig.
func CheckData(data *dataset.Dense, k int, pkg string) error {
	if err := CheckShape(data, k, pkg); err != nil {
		return err
	}
	for i, v := range data.X {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("%s: data row %d column %d is %v: %w", pkg, i/data.D, i%data.D, v, algorithms.ErrConfig)
		}
	}
	return nil
}

// CheckPoints validates the point indices of a NewWorker call against a
// data set of n points. Errors wrap algorithms.ErrConfig.
func CheckPoints(points []int, n int, pkg string) error {
	for i, p := range points {
		if p < 0 || p >= n {
			return fmt.Errorf("%s: worker point %d is index %d, want [0,%d): %w",
				pkg, i, p, n, algorithms.ErrConfig)
		}
	}
	return nil
}

// CheckSetParams panics unless θ has the length params.
func CheckSetParams(pkg string, theta []float64, params int) {
	if len(theta) != params {
		panic(fmt.Sprintf("%s: SetParams with %d values, want %d", pkg, len(theta), params))
	}
}

// CheckProcess panics unless a worker of n points can run Process(lo, hi,
// d): it has parameters (ready), 0 ≤ lo ≤ hi ≤ n, and d is a dense delta of
// length delta. Evaluate checks with CheckProcess(pkg, ready, 0, 0, n, nil,
// 0), which skips the delta.
func CheckProcess(pkg string, ready bool, lo, hi, n int, d *algorithms.Delta, delta int) {
	if !ready {
		panic(pkg + ": Process or Evaluate before SetParams")
	}
	if lo < 0 || hi > n || lo > hi {
		panic(fmt.Sprintf("%s: Process(%d, %d) on a worker with %d points", pkg, lo, hi, n))
	}
	if d != nil && (d.Len() != delta || d.Sparse()) {
		panic(fmt.Sprintf("%s: Process into a delta of length %d (sparse %v), want dense %d",
			pkg, d.Len(), d.Sparse(), delta))
	}
}
