package main

import (
	"flag"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/syncmodels/syncmodels/algorithms"
	"github.com/syncmodels/syncmodels/algorithms/optim"
	"github.com/syncmodels/syncmodels/workload"
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
	// def are the defaults the flags were registered with.
	def workloadDefaults
}

// workloadDefaults are the defaults a command registers the workload
// flags with.
type workloadDefaults struct {
	algo string
	k    int
	// lr is the learning rate -lr 0 stands for, by algorithm, where it
	// differs from algoOptim's.
	lr map[string]float64
	// seed is what the -seed help says the seed drives.
	seed string
}

// trainLR: train uses the algorithms' learning rates (algoOptim).
var trainLR map[string]float64

// gdAlgos are the algorithms trained by gradient descent, which take -lr
// and -optimizer; clusterAlgos take -k and -init.
var (
	gdAlgos      = []string{"lr", "pmf", "nmf"}
	clusterAlgos = []string{"kmeans", "gmm", "fcm"}
)

// algoOptim is the optimizer of each gradient-descent algorithm when
// neither -optimizer nor -lr is given, and algoL2 the L2 coefficient of lr
// and pmf when -l2 is negative: workload's (Entry.Optim, Entry.L2).
var algoOptim, algoL2 = func() (map[string]optim.Config, map[string]float64) {
	o, l2 := map[string]optim.Config{}, map[string]float64{}
	for _, a := range gdAlgos {
		e, _ := workload.Lookup(a)
		o[a], l2[a] = e.Optim, e.L2
	}
	return o, l2
}()

// defaultLR is the learning rate -lr 0 stands for.
func (def workloadDefaults) defaultLR(algo string) float64 {
	if v, ok := def.lr[algo]; ok {
		return v
	}
	return algoOptim[algo].LR
}

func (f *workloadFlags) register(fs *flag.FlagSet, def workloadDefaults) {
	f.def = def
	var lrs, opts []string
	for _, a := range gdAlgos {
		lrs = append(lrs, fmt.Sprintf("%g for %s", def.defaultLR(a), a))
		opts = append(opts, fmt.Sprintf("%v for %s", algoOptim[a].Method, a))
	}
	// The default data, grouped: "synthetic:blobs for kmeans, gmm, fcm; ...".
	var data []string
	for _, g := range [][]string{clusterAlgos, {"lr"}, {"pmf"}, {"nmf"}} {
		data = append(data, fmt.Sprintf("%s for %s", defaultData[g[0]], strings.Join(g, ", ")))
	}
	fs.StringVar(&f.algo, "algo", def.algo, "algorithm: kmeans, gmm, fcm, lr, pmf or nmf")
	fs.StringVar(&f.data, "data", "", "data set: idx:PATH (file or directory), libsvm:PATH (1-based indices), libsvm0:PATH (0-based), csv:PATH (label first), movielens:PATH, synthetic:NAME (blobs, logistic, sparse-logistic, ratings, nonneg); empty = the algorithm's: "+strings.Join(data, "; "))
	fs.IntVar(&f.n, "n", 0, "points of synthetic data (ratings for synthetic:ratings); 0 = the generator's: "+generatorSizes(false))
	fs.IntVar(&f.dim, "dim", 0, "dimension of synthetic data; 0 = the generator's: "+generatorSizes(true)+" (synthetic:ratings is 2000 users × 4000 items)")
	fs.IntVar(&f.k, "k", def.k, "clusters (kmeans, gmm, fcm)")
	fs.IntVar(&f.rank, "rank", 10, "factor rank (pmf, nmf)")
	fs.Float64Var(&f.lr, "lr", 0, "learning rate (lr, pmf, nmf); 0 = "+strings.Join(lrs, ", "))
	fs.Float64Var(&f.l2, "l2", -1, fmt.Sprintf("L2 coefficient λ ≥ 0 (lr, pmf); negative = %g for lr, %g for pmf", algoL2["lr"], algoL2["pmf"]))
	fs.StringVar(&f.optimizer, "optimizer", "", "optimizer for lr, pmf, nmf: sgd, momentum, nesterov or adam; empty = "+strings.Join(opts, ", ")+" (pmf: momentum 0.8)")
	fs.StringVar(&f.init, "init", "kmeans++", "initial centers for kmeans, gmm, fcm: first (the first k points), random or kmeans++")
	fs.IntVar(&f.positive, "positive", -1, "lr on multi-class data: this class is label 1, all others 0; -1 = use the labels as they are (0/1, or ±1)")
	fs.Uint64Var(&f.seed, "seed", 1, "random seed ("+def.seed+")")
	fs.BoolVar(&f.float32, "float32", false, "kmeans: store data as float32 for speed")
}

// check validates the workload flags (usage errors) and fills -data's
// default. The flags' own encodings of "the algorithm's" (-l2 negative,
// -positive -1) are checked here; the rest is workload.Spec.Validate's.
func (f *workloadFlags) check() error {
	switch {
	case math.IsNaN(f.l2) || math.IsInf(f.l2, 0):
		return fmt.Errorf("-l2 %v: want a finite number (negative = the algorithm's)", f.l2)
	case f.positive < -1:
		return fmt.Errorf("-positive %d: want a class label ≥ 0, or -1 to use the labels as they are", f.positive)
	}
	if err := f.spec().Validate(); err != nil {
		return cliError(err)
	}
	if f.data == "" {
		f.data = defaultData[f.algo]
	}
	return nil
}

// spec is the workload the flags describe.
func (f *workloadFlags) spec() workload.Spec {
	s := workload.Spec{Algo: f.algo, Data: f.data, N: f.n, Dim: f.dim, K: f.k, Rank: f.rank, Init: f.init,
		Optimizer: f.optimizer, LR: f.lr, Seed: f.seed, Float32: f.float32}
	if f.l2 >= 0 {
		s.L2 = &f.l2
	}
	if f.positive >= 0 {
		s.Positive = &f.positive
	}
	return s
}

// ignored returns a warning for each workload flag set on the command
// line that has no effect on this run (a flag of another algorithm, a
// synthetic size with a data file), and for an -optimizer that keeps a
// learning rate chosen for another.
func (f *workloadFlags) ignored(fs *flag.FlagSet) []string {
	set := setFlags(fs)
	var ws []string
	for _, r := range []struct {
		flag  string
		algos []string
	}{
		{"k", clusterAlgos}, {"init", clusterAlgos}, {"float32", []string{"kmeans"}}, {"rank", []string{"pmf", "nmf"}},
		{"lr", gdAlgos}, {"optimizer", gdAlgos}, {"l2", []string{"lr", "pmf"}}, {"positive", []string{"lr"}},
	} {
		if set[r.flag] && !slices.Contains(r.algos, f.algo) {
			ws = append(ws, fmt.Sprintf("-%s has no effect with -algo %s (it applies to %s)", r.flag, f.algo, strings.Join(r.algos, ", ")))
		}
	}
	name, synth := strings.CutPrefix(f.data, "synthetic:")
	for _, fl := range []string{"n", "dim"} {
		switch {
		case set[fl] && !synth:
			ws = append(ws, fmt.Sprintf("-%s has no effect on -data %s (it sizes synthetic data)", fl, f.data))
		case set[fl] && fl == "dim" && name == "ratings":
			ws = append(ws, "-dim has no effect on synthetic:ratings (2000 users × 4000 items)")
		}
	}
	if def, ok := algoOptim[f.algo]; ok && f.optimizer != "" && !set["lr"] {
		if m, _ := optim.ParseMethod(f.optimizer); m != def.Method {
			ws = append(ws, fmt.Sprintf("-optimizer %s keeps %s's learning rate %g, chosen for %v; set -lr for %s", f.optimizer, f.algo, f.def.defaultLR(f.algo), def.Method, f.optimizer))
		}
	}
	return ws
}

// setFlags returns the names of the flags set on the command line.
func setFlags(fs *flag.FlagSet) map[string]bool {
	set := map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { set[fl.Name] = true })
	return set
}

// load loads the data and builds the algorithm over it (workload.Open).
// Its errors are runtime errors (exit status 1).
func (f *workloadFlags) load() (algorithms.Algorithm, *data, error) {
	alg, d, err := workload.Open(f.spec())
	if err != nil {
		return nil, nil, cliError(err)
	}
	return alg, fromWorkload(d), nil
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
