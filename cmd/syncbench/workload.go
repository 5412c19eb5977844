package main

import (
	"flag"
	"fmt"
	"math"

	"github.com/syncmodels/syncmodels/algorithms"
	"github.com/syncmodels/syncmodels/algorithms/optim"
)

// workloadFlags are the flags that choose the algorithm and its data,
// shared by `syncbench train` and `syncbench compare`.
type workloadFlags struct {
	algo, data, init, optimizer string
	n, dim, k, rank             int
	lr, l2                      float64
	positive                    int
	seed                        uint64
	float32                     bool
}

// workloadDefaults are the defaults a command registers the workload
// flags with.
type workloadDefaults struct {
	algo string
	k    int
	// lr is what the -lr help says 0 means.
	lr string
	// seed is what the -seed help says the seed drives.
	seed string
}

func (f *workloadFlags) register(fs *flag.FlagSet, def workloadDefaults) {
	fs.StringVar(&f.algo, "algo", def.algo, "algorithm: kmeans, gmm, fcm, lr, pmf or nmf")
	fs.StringVar(&f.data, "data", "", "data set: idx:PATH (file or directory), libsvm:PATH, csv:PATH (label first), movielens:PATH, synthetic:NAME (blobs, logistic, sparse-logistic, ratings, nonneg); default synthetic data for the algorithm")
	fs.IntVar(&f.n, "n", 0, "points (ratings for synthetic:ratings) of synthetic data; 0 = generator default")
	fs.IntVar(&f.dim, "dim", 0, "dimension of synthetic data; 0 = generator default")
	fs.IntVar(&f.k, "k", def.k, "clusters (kmeans, gmm, fcm)")
	fs.IntVar(&f.rank, "rank", 10, "factor rank (pmf, nmf)")
	fs.Float64Var(&f.lr, "lr", 0, "learning rate (lr, pmf, nmf); 0 = "+def.lr)
	fs.Float64Var(&f.l2, "l2", -1, "L2 coefficient λ (lr, pmf); negative = the algorithm's default")
	fs.StringVar(&f.optimizer, "optimizer", "", "optimizer for lr, pmf, nmf: sgd, momentum, nesterov or adam; empty = the algorithm's default")
	fs.StringVar(&f.init, "init", "kmeans++", "initial centers for kmeans, gmm, fcm: first (the first k points), random or kmeans++")
	fs.IntVar(&f.positive, "positive", -1, "lr on multi-class data: this class is label 1, all others 0")
	fs.Uint64Var(&f.seed, "seed", 1, "random seed ("+def.seed+")")
	fs.BoolVar(&f.float32, "float32", false, "kmeans: store data as float32 for speed")
}

// check validates the workload flags (usage errors) and fills -data's
// default.
func (f *workloadFlags) check() error {
	if _, ok := defaultData[f.algo]; !ok {
		return fmt.Errorf("-algo %q: want kmeans, gmm, fcm, lr, pmf or nmf", f.algo)
	}
	switch {
	case f.k < 1:
		return fmt.Errorf("-k %d: want ≥ 1", f.k)
	case f.rank < 1:
		return fmt.Errorf("-rank %d: want ≥ 1", f.rank)
	case f.n < 0 || f.dim < 0:
		return fmt.Errorf("-n %d -dim %d: want ≥ 0", f.n, f.dim)
	case f.lr < 0 || math.IsNaN(f.lr) || math.IsInf(f.lr, 0):
		return fmt.Errorf("-lr %v: want a finite number ≥ 0", f.lr)
	case math.IsNaN(f.l2) || math.IsInf(f.l2, 0):
		return fmt.Errorf("-l2 %v: want a finite number", f.l2)
	}
	switch f.init {
	case "first", "random", "kmeans++":
	default:
		return fmt.Errorf("-init %q: want first, random or kmeans++", f.init)
	}
	if f.optimizer != "" {
		if _, err := optim.ParseMethod(f.optimizer); err != nil {
			return fmt.Errorf("-optimizer %q: want sgd, momentum, nesterov or adam", f.optimizer)
		}
	}
	if f.data == "" {
		f.data = defaultData[f.algo]
	}
	return nil
}

// load loads the data and builds the algorithm over it. Its errors are
// runtime errors (exit status 1).
func (f *workloadFlags) load() (algorithms.Algorithm, *data, error) {
	d, err := loadData(f.data, synthSize{f.n, f.dim}, f.seed)
	if err != nil {
		return nil, nil, err
	}
	alg, err := build(f, d)
	if err != nil {
		return nil, nil, err
	}
	return alg, d, nil
}

// optimConfig returns the optimizer configuration from the flags over the
// algorithm's defaults.
func (f *workloadFlags) optimConfig(def optim.Config) optim.Config {
	c := def
	if f.optimizer != "" {
		c.Method, _ = optim.ParseMethod(f.optimizer)
	}
	if f.lr > 0 {
		c.LR = f.lr
	}
	return c
}

// workloadJSON is the part of both commands' JSON output that describes
// the workload.
type workloadJSON struct {
	Algo    string `json:"algo"`
	Data    string `json:"data"`
	Points  int    `json:"points"`
	Dim     int    `json:"dim"`
	Workers int    `json:"workers"`
	Batch   int    `json:"batch"`
	Seed    uint64 `json:"seed"`
}

func (f *workloadFlags) workloadJSON(alg algorithms.Algorithm, d *data, workers, batch int) workloadJSON {
	n, dim := d.shape()
	return workloadJSON{Algo: alg.Name(), Data: f.data, Points: n, Dim: dim, Workers: workers, Batch: batch, Seed: f.seed}
}
