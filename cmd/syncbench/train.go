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

	"github.com/syncmodels/syncmodels/algorithms"
	"github.com/syncmodels/syncmodels/trainer"
)

// trainFlags are the flags of `syncbench train`.
type trainFlags struct {
	workloadFlags
	iters, batch, workers int
	evalEvery             int
	jsonOut, shuffle      bool
}

// trainJSON is the -json output of `syncbench train`.
type trainJSON struct {
	workloadJSON
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
	fs.SetOutput(stdout)
	f.register(fs, workloadDefaults{algo: "kmeans", k: 10, lr: trainLR, seed: "data generation, initialisation, sharding"})
	fs.IntVar(&f.iters, "iters", 20, "iterations (server steps), ≥ 1")
	fs.IntVar(&f.batch, "batch", -1, "points per worker per iteration; 0 = a full pass over the worker's shard; -1 = the algorithm's: 5000 for pmf, a full pass for the others")
	fs.IntVar(&f.evalEvery, "eval-every", 1, "evaluate the objective (one pass over the data) every N iterations and after the last")
	fs.IntVar(&f.workers, "workers", 1, "data shards (each with a worker; run in parallel, results independent of core count)")
	fs.BoolVar(&f.jsonOut, "json", false, "print a JSON summary instead of text")
	fs.BoolVar(&f.shuffle, "shuffle", false, "shard a seeded permutation of the points instead of contiguous blocks")
	if code, ok := parseFlags(fs, args, f.check, stderr); !ok {
		return code
	}
	if f.batch == -1 {
		f.batch = defaultBatch[f.algo]
	}
	alg, d, err := f.load()
	if err == nil {
		err = checkWorkers(d, f.workers)
	}
	if err == nil {
		err = checkMemory(alg, f.workers)
	}
	if err != nil {
		fmt.Fprintf(stderr, "syncbench train: %v\n", oneLine(err))
		return 1
	}
	warn(stderr, "syncbench train", f.workloadFlags.ignored(fs))
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
		fmt.Fprintf(stderr, "syncbench train: %v\n", oneLine(divergedHint(err, f.lr)))
		return 1
	}
	out := trainJSON{
		workloadJSON: f.workloadJSON(alg, d, f.workers, f.batch),
		Iterations:   res.Iterations, InitialObjective: res.InitialObjective, Objective: res.Objective,
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
	if err := f.workloadFlags.check(); err != nil {
		return err
	}
	switch {
	case f.iters < 1:
		return fmt.Errorf("-iters %d: want ≥ 1 (the default is 20)", f.iters)
	case f.batch < -1:
		return fmt.Errorf("-batch %d: want ≥ 0 (0 = full pass) or -1 (default)", f.batch)
	case f.evalEvery < 1:
		return fmt.Errorf("-eval-every %d: want ≥ 1", f.evalEvery)
	case f.workers < 1:
		return fmt.Errorf("-workers %d: want ≥ 1", f.workers)
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

// divergedHint adds what to do to a run refused for a non-finite update:
// it diverged, and a smaller learning rate is the usual cure. lr is the
// -lr given (0 when the algorithm's own rate was used).
func divergedHint(err error, lr float64) error {
	var nf *algorithms.NonFiniteError
	if !errors.As(err, &nf) {
		return err
	}
	if lr > 0 {
		return fmt.Errorf("%w (the run diverged: try a -lr smaller than %g)", err, lr)
	}
	return fmt.Errorf("%w (the run diverged: try a -lr smaller than the algorithm's)", err)
}

// warn prints each warning as a line "cmd: warning: ...".
func warn(stderr io.Writer, cmd string, ws []string) {
	for _, w := range ws {
		fmt.Fprintf(stderr, "%s: warning: %s\n", cmd, w)
	}
}

// oneLine keeps an error message on one line.
func oneLine(err error) string {
	return strings.ReplaceAll(err.Error(), "\n", "; ")
}

// commandSummaries are the lines `syncbench CMD -h` prints above the
// flags, by flag set name.
var commandSummaries = map[string]string{
	"syncbench compare":   "Runs several sync models on one workload (the same data, shards, θ0 and\nstragglers) and prints a table: time to target, final objective,\niterations, server versions, wait share, bytes sent. docs/compare.md\nexplains the flags and the columns.",
	"syncbench provision": "Plans a DOLL job before renting machines: how many of N_tot workers to put on\npreemptible (spot) instances so that the expected runtime meets the deadline\nat the lowest expected cost (DOLL §IV-B: Eqs. 15-22, Theorems 4 and 5,\nCorollary 2). docs/provision.md explains the model and the output.",
	"syncbench train":     "Trains one algorithm in one process under bulk-synchronous iterations\nand prints one line per iteration (-json: a summary).",
}

// parseFlags parses args into fs and runs check. ok is false when the
// command should stop with status code: 0 after -h, whose help goes to
// fs's output, 2 for a usage error, reported on stderr in one line.
func parseFlags(fs *flag.FlagSet, args []string, check func() error, stderr io.Writer) (code int, ok bool) {
	help := fs.Output()
	// The flag package prints the whole usage after a parse error; the
	// error alone, with where to find the flags, is what helps.
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	err := fs.Parse(args)
	fs.SetOutput(help)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprintf(help, "usage: %s [flags]\n\n", fs.Name())
			if s, ok := commandSummaries[fs.Name()]; ok {
				fmt.Fprintf(help, "%s\n\n", s)
			}
			fmt.Fprintf(help, "flags:\n")
			fs.PrintDefaults()
			return 0, false
		}
		fmt.Fprintf(stderr, "%s: %v; run '%s -h' for help\n", fs.Name(), err, fs.Name())
		return 2, false
	}
	if fs.NArg() > 0 {
		how := "flags are -name value, and a list such as -sync takes commas, not spaces"
		for _, c := range commands {
			if c.name == fs.Arg(0) {
				how = fmt.Sprintf("the command comes first: syncbench %s [flags]", c.name)
			}
		}
		if fs.Arg(0) == "help" {
			how = "help is -h"
		}
		fmt.Fprintf(stderr, "%s: unexpected argument %q (%s); run '%s -h' for help\n", fs.Name(), fs.Arg(0), how, fs.Name())
		return 2, false
	}
	if err := check(); err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", fs.Name(), err)
		return 2, false
	}
	return 0, true
}
