package main

import (
	"fmt"

	"github.com/syncmodels/syncmodels/algorithms"
	"github.com/syncmodels/syncmodels/algorithms/fcm"
	"github.com/syncmodels/syncmodels/algorithms/gmm"
	"github.com/syncmodels/syncmodels/algorithms/kmeans"
	"github.com/syncmodels/syncmodels/algorithms/logreg"
	"github.com/syncmodels/syncmodels/algorithms/nmf"
	"github.com/syncmodels/syncmodels/algorithms/optim"
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
		return nmf.New(x, nmf.Config{Rank: f.rank, Optim: f.optimConfig(optim.Config{Method: optim.Adam, LR: 0.01})})
	case "pmf":
		if d.ratings == nil {
			return nil, fmt.Errorf("-algo pmf needs ratings data (movielens: or synthetic:ratings), got %s", d.spec)
		}
		cfg := pmf.Config{Rank: f.rank, Optim: f.optimConfig(pmf.DefaultOptim)}
		if f.l2 >= 0 {
			cfg.Lambda = f.l2
		}
		return pmf.New(d.ratings, cfg)
	case "lr":
		cfg := logreg.Config{Optim: f.optimConfig(optim.Config{Method: optim.Adam, LR: 0.05})}
		if f.l2 >= 0 {
			cfg.Lambda = f.l2
		} else {
			cfg.Lambda = 1e-4
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
// positive < 0 it returns labels unchanged (logreg checks them).
func binarize(labels []float64, positive int, spec string) ([]float64, error) {
	if labels == nil {
		return nil, fmt.Errorf("%s has no labels", spec)
	}
	if positive < 0 {
		return labels, nil
	}
	y := make([]float64, len(labels))
	for i, v := range labels {
		if v == float64(positive) {
			y[i] = 1
		}
	}
	return y, nil
}
