package trainer

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"

	"golang.org/x/sync/errgroup"

	"github.com/syncmodels/syncmodels/algorithms"
	"github.com/syncmodels/syncmodels/dataset"
)

// Config configures a run. The zero value is valid: one shard, 20 full-batch
// iterations, seed 0.
type Config struct {
	// Workers is the number of data shards, each with its own worker.
	// Default 1. Changing it changes floating-point summation order only
	// for full-batch runs, and the global batch (Workers × Batch) otherwise.
	Workers int
	// Iters is the number of iterations (server steps). Default 20.
	Iters int
	// Batch is the number of points each worker processes per iteration,
	// continuing round-robin over its shard. 0 means a full pass.
	Batch int
	// Seed seeds Init and, with Shuffle, the sharding permutation.
	Seed uint64
	// Shuffle shards a seeded permutation of the points instead of
	// contiguous blocks.
	Shuffle bool
	// Parallel is the number of goroutines running shards. It does not
	// change results. Default runtime.GOMAXPROCS(0).
	Parallel int
	// EvalEvery evaluates the objective every EvalEvery iterations (and
	// always after the last one). Default 1. Evaluation costs one pass.
	EvalEvery int
	// OnIter, if set, is called after each iteration from the calling
	// goroutine.
	OnIter func(Iter)
	// Theta0, if set, replaces Init.
	Theta0 []float64
}

// Iter describes one finished iteration.
type Iter struct {
	Iteration int     // 1-based
	Objective float64 // NaN when not evaluated in this iteration
	Points    int     // points processed in this iteration, all workers
}

// Result is the outcome of a run.
type Result struct {
	Algo       string
	Iterations int
	// Objective is the objective for the final parameters.
	Objective float64
	// InitialObjective is the objective for θ0.
	InitialObjective float64
	// Objectives has one entry per evaluated iteration (every iteration
	// with the default EvalEvery), in order; EvaluatedAt gives their
	// iteration numbers.
	Objectives  []float64
	EvaluatedAt []int
	// Points is the total number of data-point visits.
	Points int
	// Theta is the final parameter vector (a copy).
	Theta []float64
}

func (c *Config) validate(n int) error {
	if c.Workers == 0 {
		c.Workers = 1
	}
	if c.Iters == 0 {
		c.Iters = 20
	}
	if c.Parallel == 0 {
		c.Parallel = runtime.GOMAXPROCS(0)
	}
	if c.EvalEvery == 0 {
		c.EvalEvery = 1
	}
	switch {
	case c.Workers < 0 || c.Workers > n:
		return fmt.Errorf("trainer: %d workers for %d points: %w", c.Workers, n, algorithms.ErrConfig)
	case c.Iters < 0:
		return fmt.Errorf("trainer: iters %d < 0: %w", c.Iters, algorithms.ErrConfig)
	case c.Batch < 0:
		return fmt.Errorf("trainer: batch %d < 0: %w", c.Batch, algorithms.ErrConfig)
	case c.Parallel < 0:
		return fmt.Errorf("trainer: parallel %d < 0: %w", c.Parallel, algorithms.ErrConfig)
	case c.EvalEvery < 0:
		return fmt.Errorf("trainer: eval-every %d < 0: %w", c.EvalEvery, algorithms.ErrConfig)
	}
	return nil
}

type shard struct {
	w      algorithms.Worker
	cursor int
	delta  *algorithms.Delta
	part   algorithms.Partial
}

// Run trains alg and returns the result. It stops early with ctx.Err() when
// ctx is cancelled, and with the server's error when a delta is refused.
func Run(ctx context.Context, alg algorithms.Algorithm, cfg Config) (*Result, error) {
	n := alg.NumPoints()
	if err := cfg.validate(n); err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(cfg.Seed, 0x5eed))
	var perm *rand.Rand
	if cfg.Shuffle {
		perm = rand.New(rand.NewPCG(cfg.Seed, 0x5a4d))
	}
	parts, err := dataset.Shard(n, cfg.Workers, perm)
	if err != nil {
		return nil, fmt.Errorf("trainer: %w", err)
	}
	theta0 := cfg.Theta0
	if theta0 == nil {
		if theta0, err = alg.Init(rng); err != nil {
			return nil, err
		}
	}
	srv, err := alg.NewServer(theta0)
	if err != nil {
		return nil, err
	}
	layout := alg.Layout()
	shards := make([]*shard, len(parts))
	for i, p := range parts {
		w, err := alg.NewWorker(p)
		if err != nil {
			return nil, err
		}
		shards[i] = &shard{w: w, delta: algorithms.NewDelta(layout)}
	}
	each := func(fn func(s *shard)) error {
		g, gctx := errgroup.WithContext(ctx)
		g.SetLimit(cfg.Parallel)
		for _, s := range shards {
			g.Go(func() error {
				if err := gctx.Err(); err != nil {
					return err
				}
				fn(s)
				return nil
			})
		}
		return g.Wait()
	}
	setParams := func() {
		theta := srv.Params()
		for _, s := range shards {
			s.w.SetParams(theta)
		}
	}
	evaluate := func() (float64, error) {
		if err := each(func(s *shard) { s.part = s.w.Evaluate() }); err != nil {
			return 0, err
		}
		ps := make([]algorithms.Partial, len(shards))
		for i, s := range shards {
			ps[i] = s.part
		}
		return alg.Objective(srv.Params(), ps...), nil
	}

	setParams()
	res := &Result{Algo: alg.Name()}
	if res.InitialObjective, err = evaluate(); err != nil {
		return nil, err
	}
	res.Objective = res.InitialObjective
	merged := algorithms.NewDelta(layout)
	for it := 1; it <= cfg.Iters; it++ {
		err := each(func(s *shard) {
			s.delta.Reset()
			process(s, cfg.Batch)
		})
		if err != nil {
			return res, err
		}
		merged.Reset()
		for _, s := range shards {
			if err := merged.Merge(s.delta); err != nil {
				return res, err
			}
		}
		if err := srv.Apply(merged); err != nil {
			return res, fmt.Errorf("trainer: iteration %d: %w", it, err)
		}
		setParams()
		res.Iterations = it
		res.Points += merged.Count
		obj := nan
		if it%cfg.EvalEvery == 0 || it == cfg.Iters {
			if obj, err = evaluate(); err != nil {
				return res, err
			}
			res.Objective = obj
			res.Objectives = append(res.Objectives, obj)
			res.EvaluatedAt = append(res.EvaluatedAt, it)
		}
		if cfg.OnIter != nil {
			cfg.OnIter(Iter{Iteration: it, Objective: obj, Points: merged.Count})
		}
	}
	res.Theta = slices.Clone(srv.Params())
	return res, nil
}

// process runs the worker over its next batch of points (a full pass when
// batch is 0), wrapping round-robin at the end of the shard.
func process(s *shard, batch int) {
	n := s.w.Len()
	if n == 0 {
		return
	}
	if batch == 0 {
		batch = n
	}
	for batch > 0 {
		hi := min(s.cursor+batch, n)
		s.w.Process(s.cursor, hi, s.delta)
		batch -= hi - s.cursor
		s.cursor = hi % n
	}
}
