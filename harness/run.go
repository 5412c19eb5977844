package harness

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/syncmodels/syncmodels/algorithms"
	"github.com/syncmodels/syncmodels/consistency"
)

// Run runs the experiment on the runtime its Clock selects and returns what
// it recorded. The run's trace has passed consistency.Check; a run whose
// trace fails the check returns the *consistency.CheckError.
func Run(ctx context.Context, e Experiment) (*Result, error) {
	if err := e.validate(); err != nil {
		return nil, err
	}
	st, err := setup(&e)
	if err != nil {
		return nil, err
	}
	var res *Result
	switch e.Clock {
	case Virtual:
		res, err = simulate(ctx, &e, st)
	case Real:
		res, err = runReal(ctx, &e, st)
	default:
		return nil, fmt.Errorf("harness: clock %d: %w", e.Clock, ErrConfig)
	}
	if err != nil {
		return res, err
	}
	res.Name = e.Name
	if err := finish(ctx, &e, st, res); err != nil {
		return res, err
	}
	if e.DiscardTrace {
		_, err := st.coord.rec.Check()
		return res, err
	}
	return res, consistency.Check(res.Trace)
}

// setupState is what every runtime starts from.
type setupState struct {
	theta0 []float64
	parts  [][]int
	shards []*shard
	ids    []consistency.WorkerID
	coord  *coordinator
	strag  []int
	layout algorithms.Layout
	tune   *tuning
	sample *sampler
	stop   *stopper
	isp    *ispState
}

func setup(e *Experiment) (*setupState, error) {
	alg := e.Algorithm
	rng := rand.New(rand.NewPCG(e.Seed, 0x5eed))
	parts, err := shardPoints(e)
	if err != nil {
		return nil, err
	}
	theta0 := e.Theta0
	if theta0 == nil {
		if theta0, err = alg.Init(rng); err != nil {
			return nil, err
		}
	}
	if err := algorithms.CheckParams(alg.Layout(), theta0); err != nil {
		return nil, configError("θ0", err)
	}
	st := &setupState{theta0: theta0, parts: parts, layout: alg.Layout()}
	st.strag = e.stragglers(rand.New(rand.NewPCG(e.Seed, 0x57a6)))
	for i, p := range parts {
		w, err := alg.NewWorker(p)
		if err != nil {
			return nil, err
		}
		id := consistency.WorkerID(i)
		s := &shard{id: id, w: w, n: w.Len(), deltaLen: st.layout.Delta, block: st.layout.Block}
		s.straggler = slices.Contains(st.strag, i)
		s.stats.Straggler = s.straggler
		st.shards = append(st.shards, s)
		st.ids = append(st.ids, id)
	}
	st.coord, err = newCoordinator(e, theta0, st.ids)
	if err != nil {
		return nil, err
	}
	if e.Sync.Kind == consistency.ISP || e.Replicas {
		if st.isp, err = newISP(e, st); err != nil {
			return nil, err
		}
	}
	if e.Tuner != nil || e.Stop.active() || e.ScaleIn != nil || e.Migrate != nil {
		if st.sample, err = newSampler(e); err != nil {
			return nil, err
		}
	}
	if st.tune, err = newTuning(e, st); err != nil {
		return nil, err
	}
	st.stop = newStopper(e, st)
	return st, nil
}

// finish evaluates the objective snapshots (off the clock, in parallel over
// shards; the result does not depend on Parallel) and fills the summary.
func finish(ctx context.Context, e *Experiment, st *setupState, res *Result) error {
	alg := e.Algorithm
	evals := make([]algorithms.Worker, len(st.parts))
	for i, p := range st.parts {
		w, err := alg.NewWorker(p)
		if err != nil {
			return err
		}
		evals[i] = w
	}
	par := e.Parallel
	if par <= 0 {
		par = runtime.GOMAXPROCS(0)
	}
	parts := make([]algorithms.Partial, len(evals))
	for _, sn := range st.coord.snaps {
		g, gctx := errgroup.WithContext(ctx)
		g.SetLimit(par)
		for i, w := range evals {
			g.Go(func() error {
				if err := gctx.Err(); err != nil {
					return err
				}
				w.SetParams(sn.theta)
				parts[i] = w.Evaluate()
				return nil
			})
		}
		if err := g.Wait(); err != nil {
			return err
		}
		res.Curve = append(res.Curve, Point{T: sn.t, Objective: alg.Objective(sn.theta, parts...), Version: sn.version, Points: sn.points})
	}
	if n := len(res.Curve); n > 0 {
		res.Final = res.Curve[n-1].Objective
	}
	res.Diverged, res.DivergedAt = diverged(res.Curve)
	res.TimeToTarget = -1
	if e.HasTarget {
		res.TimeToTarget = TimeTo(res.Curve, e.Target, alg.Minimize())
	}
	var commits int
	var wait, total float64
	for _, s := range st.shards {
		s.stats.Passes = float64(s.stats.Points) / float64(max(s.n, 1))
		res.Workers = append(res.Workers, s.stats)
		commits += s.stats.Commits
		wait += float64(s.stats.Wait)
		if s.stats.Evicted {
			total += float64(s.stats.Left)
		} else {
			total += float64(res.Duration)
		}
	}
	if e.ScaleIn != nil {
		res.Evictions = e.ScaleIn.Evictions()
	}
	res.Iterations = float64(commits) / float64(len(st.shards))
	if total > 0 {
		res.WaitFraction = wait / total
	}
	res.Versions = st.coord.model.Version()
	if st.tune != nil {
		res.Intervals = st.tune.log
	}
	res.StoppedBy = st.stop.reason
	if res.Trace == nil && !e.DiscardTrace {
		res.Trace = st.coord.rec.Trace()
	}
	res.Theta = st.coord.params
	return nil
}

// diverged reports whether curve blew up (Result.Diverged) and when.
func diverged(curve []Point) (bool, time.Duration) {
	if len(curve) == 0 {
		return false, -1
	}
	bound := DivergeFactor * max(math.Abs(curve[0].Objective), 1)
	for _, p := range curve {
		if f := p.Objective; math.IsNaN(f) || math.IsInf(f, 0) || math.Abs(f) > bound {
			return true, p.T
		}
	}
	return false, -1
}
