package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"strings"
	"time"

	"github.com/syncmodels/syncmodels/algorithms/optim"
	"github.com/syncmodels/syncmodels/trainer"
)

// trainFlags are the flags of `syncbench train`.
type trainFlags struct {
	algo, data, init, optimizer string
	n, dim, k, rank             int
	iters, batch, workers       int
	evalEvery                   int
	lr, l2                      float64
	positive                    int
	seed                        uint64
	jsonOut, float32, shuffle   bool
}

// trainJSON is the -json output of `syncbench train`.
type trainJSON struct {
	Algo             string    `json:"algo"`
	Data             string    `json:"data"`
	Points           int       `json:"points"`
	Dim              int       `json:"dim"`
	Workers          int       `json:"workers"`
	Batch            int       `json:"batch"`
	Seed             uint64    `json:"seed"`
	Iterations       int       `json:"iterations"`
	InitialObjective float64   `json:"initial_objective"`
	Objective        float64   `json:"objective"`
	Objectives       []float64 `json:"objectives"`
	EvaluatedAt      []int     `json:"evaluated_at"`
	Minimize         bool      `json:"minimize"`
	Seconds          float64   `json:"seconds"`
	SecondsPerIter   float64   `json:"seconds_per_iteration"`
}

func train(args []string, stdout, stderr io.Writer) int {
	var f trainFlags
	fs := flag.NewFlagSet("syncbench train", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&f.algo, "algo", "kmeans", "algorithm: kmeans, gmm, fcm, lr, pmf or nmf")
	fs.StringVar(&f.data, "data", "", "data set: idx:PATH (file or directory), libsvm:PATH, csv:PATH (label first), movielens:PATH, synthetic:NAME (blobs, logistic, sparse-logistic, ratings, nonneg); default synthetic data for the algorithm")
	fs.IntVar(&f.n, "n", 0, "points (ratings for synthetic:ratings) of synthetic data; 0 = generator default")
	fs.IntVar(&f.dim, "dim", 0, "dimension of synthetic data; 0 = generator default")
	fs.IntVar(&f.k, "k", 10, "clusters (kmeans, gmm, fcm)")
	fs.IntVar(&f.rank, "rank", 10, "factor rank (pmf, nmf)")
	fs.IntVar(&f.iters, "iters", 20, "iterations (server steps)")
	fs.IntVar(&f.batch, "batch", -1, "points per worker per iteration; 0 = full pass; -1 = the algorithm's default (full pass; pmf 5000 ratings)")
	fs.IntVar(&f.evalEvery, "eval-every", 1, "evaluate the objective (one pass over the data) every N iterations and after the last")
	fs.IntVar(&f.workers, "workers", 1, "data shards (each with a worker; run in parallel, results independent of core count)")
	fs.Float64Var(&f.lr, "lr", 0, "learning rate (lr, pmf, nmf); 0 = the algorithm's default")
	fs.Float64Var(&f.l2, "l2", -1, "L2 coefficient λ (lr, pmf); negative = the algorithm's default")
	fs.StringVar(&f.optimizer, "optimizer", "", "optimizer for lr, pmf, nmf: sgd, momentum, nesterov or adam; empty = the algorithm's default")
	fs.StringVar(&f.init, "init", "kmeans++", "initial centers for kmeans, gmm, fcm: first (the first k points), random or kmeans++")
	fs.IntVar(&f.positive, "positive", -1, "lr on multi-class data: this class is label 1, all others 0")
	fs.Uint64Var(&f.seed, "seed", 1, "random seed (data generation, initialisation, sharding)")
	fs.BoolVar(&f.jsonOut, "json", false, "print a JSON summary instead of text")
	fs.BoolVar(&f.float32, "float32", false, "kmeans: store data as float32 for speed")
	fs.BoolVar(&f.shuffle, "shuffle", false, "shard a seeded permutation of the points instead of contiguous blocks")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "syncbench train: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	if err := f.check(); err != nil {
		fmt.Fprintf(stderr, "syncbench train: %v\n", err)
		return 2
	}
	if f.data == "" {
		f.data = defaultData[f.algo]
	}
	if f.batch == -1 {
		f.batch = defaultBatch[f.algo]
	}
	d, err := loadData(f.data, synthSize{f.n, f.dim}, f.seed)
	if err != nil {
		fmt.Fprintf(stderr, "syncbench train: %v\n", oneLine(err))
		return 1
	}
	alg, err := build(&f, d)
	if err != nil {
		fmt.Fprintf(stderr, "syncbench train: %v\n", oneLine(err))
		return 1
	}
	if !f.jsonOut {
		fmt.Fprintf(stdout, "syncbench train: %s on %s\n", alg.Name(), d.describe())
		fmt.Fprintf(stdout, "workers %d, batch %s, seed %d\n", f.workers, batchName(f.batch), f.seed)
		fmt.Fprintf(stdout, "%6s  %-22s  %s\n", "iter", "objective", "seconds")
	}
	start := time.Now()
	cfg := trainer.Config{
		Workers: f.workers, Iters: f.iters, Batch: f.batch, Seed: f.seed, Shuffle: f.shuffle, EvalEvery: f.evalEvery,
		OnIter: func(it trainer.Iter) {
			if !f.jsonOut && !math.IsNaN(it.Objective) {
				fmt.Fprintf(stdout, "%6d  %-22.15g  %.3f\n", it.Iteration, it.Objective, time.Since(start).Seconds())
			}
		},
	}
	res, err := trainer.Run(context.Background(), alg, cfg)
	secs := time.Since(start).Seconds()
	if err != nil {
		fmt.Fprintf(stderr, "syncbench train: %v\n", oneLine(err))
		return 1
	}
	n, dim := d.shape()
	out := trainJSON{
		Algo: alg.Name(), Data: f.data, Points: n, Dim: dim, Workers: f.workers, Batch: f.batch, Seed: f.seed,
		Iterations: res.Iterations, InitialObjective: res.InitialObjective, Objective: res.Objective,
		Objectives: res.Objectives, EvaluatedAt: res.EvaluatedAt, Minimize: alg.Minimize(), Seconds: secs,
	}
	if res.Iterations > 0 {
		out.SecondsPerIter = secs / float64(res.Iterations)
	}
	if f.jsonOut {
		if err := writeJSON(stdout, out); err != nil {
			fmt.Fprintf(stderr, "syncbench train: %v\n", err)
			return 1
		}
		return 0
	}
	better := "lower is better"
	if !alg.Minimize() {
		better = "higher is better"
	}
	fmt.Fprintf(stdout, "final objective %.15g (from %.15g; %s) after %d iterations in %.3f s\n",
		res.Objective, res.InitialObjective, better, res.Iterations, secs)
	return 0
}

func (f *trainFlags) check() error {
	if _, ok := defaultData[f.algo]; !ok {
		return fmt.Errorf("-algo %q: want kmeans, gmm, fcm, lr, pmf or nmf", f.algo)
	}
	switch {
	case f.k < 1:
		return fmt.Errorf("-k %d: want ≥ 1", f.k)
	case f.rank < 1:
		return fmt.Errorf("-rank %d: want ≥ 1", f.rank)
	case f.iters < 0:
		return fmt.Errorf("-iters %d: want ≥ 0", f.iters)
	case f.batch < -1:
		return fmt.Errorf("-batch %d: want ≥ 0 (0 = full pass) or -1 (default)", f.batch)
	case f.evalEvery < 1:
		return fmt.Errorf("-eval-every %d: want ≥ 1", f.evalEvery)
	case f.workers < 1:
		return fmt.Errorf("-workers %d: want ≥ 1", f.workers)
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
	return nil
}

// defaultBatch is the -batch used when the flag is -1: a full pass, except
// for PMF, whose per-row steps are too small on full-batch mean gradients.
var defaultBatch = map[string]int{"pmf": 5000}

func batchName(b int) string {
	if b == 0 {
		return "full pass"
	}
	return fmt.Sprint(b)
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// oneLine keeps an error message on one line.
func oneLine(err error) string {
	return strings.ReplaceAll(err.Error(), "\n", "; ")
}

// optimConfig returns the optimizer configuration from the flags over the
// algorithm's defaults.
func (f *trainFlags) optimConfig(def optim.Config) optim.Config {
	c := def
	if f.optimizer != "" {
		c.Method, _ = optim.ParseMethod(f.optimizer)
	}
	if f.lr > 0 {
		c.LR = f.lr
	}
	return c
}
