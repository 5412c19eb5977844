package main

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/syncmodels/syncmodels/algorithms"
	"github.com/syncmodels/syncmodels/algorithms/fcm"
	"github.com/syncmodels/syncmodels/algorithms/gmm"
	"github.com/syncmodels/syncmodels/algorithms/kmeans"
	"github.com/syncmodels/syncmodels/algorithms/logreg"
	"github.com/syncmodels/syncmodels/algorithms/nmf"
	"github.com/syncmodels/syncmodels/algorithms/pmf"
	"github.com/syncmodels/syncmodels/dataset"
)

// build constructs the algorithm the flags name over the loaded data.
func build(f *workloadFlags, d *data) (algorithms.Algorithm, error) {
	needDense := func() (*dataset.Dense, error) {
		if d.dense == nil {
			return nil, fmt.Errorf("-algo %s needs dense data (idx:, csv: or synthetic:blobs/logistic/nonneg), got %s", f.algo, d.spec)
		}
		return d.dense, nil
	}
	// Factor models hold rank values per row and per column.
	var rows, cols int
	switch {
	case f.algo == "pmf" && d.ratings != nil:
		rows, cols = d.ratings.NumUsers, d.ratings.NumItems
	case f.algo == "nmf" && d.dense != nil:
		rows, cols = d.dense.N, d.dense.D
	}
	if v := float64(rows+cols) * float64(f.rank); v > maxValues {
		return nil, fmt.Errorf("-rank %d: %s would hold (%d + %d) × %d = %.3g factors, more than syncbench allocates (%d)", f.rank, f.algo, rows, cols, f.rank, v, maxValues)
	}
	if n, _ := d.shape(); slices.Contains(clusterAlgos, f.algo) && f.k > n {
		return nil, fmt.Errorf("-k %d: %s needs at most one cluster per data point, and %s has %d; want -k ≤ %d", f.k, f.algo, d.spec, n, n)
	}
	switch f.algo {
	case "kmeans":
		x, err := needDense()
		if err != nil {
			return nil, err
		}
		return kmeans.New(x, kmeans.Config{K: f.k, Init: f.init, Float32: f.float32})
	case "gmm":
		x, err := needDense()
		if err != nil {
			return nil, err
		}
		return gmm.New(x, gmm.Config{K: f.k, Init: f.init})
	case "fcm":
		x, err := needDense()
		if err != nil {
			return nil, err
		}
		return fcm.New(x, fcm.Config{K: f.k, Init: f.init})
	case "nmf":
		x, err := needDense()
		if err != nil {
			return nil, err
		}
		return nmf.New(x, nmf.Config{Rank: f.rank, Optim: f.optimConfig()})
	case "pmf":
		if d.ratings == nil {
			return nil, fmt.Errorf("-algo pmf needs ratings data (movielens: or synthetic:ratings), got %s", d.spec)
		}
		cfg := pmf.Config{Rank: f.rank, Optim: f.optimConfig(), Lambda: algoL2["pmf"]}
		if f.l2 >= 0 {
			cfg.Lambda = f.l2
		}
		return pmf.New(d.ratings, cfg)
	case "lr":
		cfg := logreg.Config{Optim: f.optimConfig(), Lambda: algoL2["lr"]}
		if f.l2 >= 0 {
			cfg.Lambda = f.l2
		}
		switch {
		case d.dense != nil:
			x, err := binarize(d.dense.Labels, f.positive, d.spec)
			if err != nil {
				return nil, err
			}
			dd := *d.dense
			dd.Labels = x
			return logreg.NewDense(&dd, cfg)
		case d.sparse != nil:
			x, err := binarize(d.sparse.Labels, f.positive, d.spec)
			if err != nil {
				return nil, err
			}
			ss := *d.sparse
			ss.Labels = x
			return logreg.NewSparse(&ss, cfg)
		}
		return nil, fmt.Errorf("-algo lr needs labelled dense or sparse data, got %s", d.spec)
	}
	return nil, fmt.Errorf("-algo %s: not built yet", f.algo)
}

// binarize maps class positive to 1 and every other label to 0; with
// positive < 0 it returns labels unchanged, which must then be 0/1 (or
// ±1). Either way lr needs both classes: an error names -positive and the
// labels spec holds.
func binarize(labels []float64, positive int, spec string) ([]float64, error) {
	if len(labels) == 0 {
		return nil, fmt.Errorf("-algo lr needs labelled data; %s has no labels (idx: needs its labels-idx1 file beside the images)", spec)
	}
	classes := slices.Clone(labels)
	slices.Sort(classes)
	classes = slices.Compact(classes)
	if positive < 0 {
		for _, v := range classes {
			if v != 0 && v != 1 && v != -1 {
				return nil, fmt.Errorf("-algo lr needs 0/1 labels; %s has labels %s: choose the class that is 1 with -positive%s", spec, describeLabels(classes), positiveExample(classes))
			}
		}
		if len(classes) == 1 || len(classes) == 2 && classes[0] == -1 && classes[1] == 0 {
			return nil, fmt.Errorf("-algo lr needs both classes; every label of %s is %s", spec, describeLabels(classes))
		}
		return labels, nil
	}
	p := float64(positive)
	if !slices.Contains(classes, p) {
		return nil, fmt.Errorf("-positive %d: %s has no label %d; its labels are %s", positive, spec, positive, describeLabels(classes))
	}
	if len(classes) == 1 {
		return nil, fmt.Errorf("-positive %d: every label of %s is %d, so lr would have no negative class", positive, spec, positive)
	}
	y := make([]float64, len(labels))
	for i, v := range labels {
		if v == p {
			y[i] = 1
		}
	}
	return y, nil
}

// describeLabels lists sorted distinct labels: all of them when few,
// else their count and range.
func describeLabels(classes []float64) string {
	if len(classes) > 12 {
		return fmt.Sprintf("%d distinct values from %g to %g", len(classes), classes[0], classes[len(classes)-1])
	}
	s := make([]string, len(classes))
	for i, v := range classes {
		s[i] = strconv.FormatFloat(v, 'g', -1, 64)
	}
	return strings.Join(s, ", ")
}

// positiveExample suggests a -positive value: the first label that is a
// whole number ≥ 0, as " (e.g. -positive 0)", or "" if there is none.
func positiveExample(classes []float64) string {
	for _, v := range classes {
		if v >= 0 && v == math.Trunc(v) && v <= math.MaxInt32 {
			return fmt.Sprintf(" (e.g. -positive %g)", v)
		}
	}
	return ""
}
