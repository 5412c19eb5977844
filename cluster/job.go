package cluster

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/syncmodels/syncmodels/algorithms"
	"github.com/syncmodels/syncmodels/arrival"
	"github.com/syncmodels/syncmodels/consistency"
	"github.com/syncmodels/syncmodels/harness"
	"github.com/syncmodels/syncmodels/latency"
	"github.com/syncmodels/syncmodels/workload"
)

// ErrConfig reports a job or an experiment that cannot run across
// processes.
var ErrConfig = errors.New("cluster: invalid config")

// Job is what a worker process needs to take part: the workload (which it
// builds and loads itself), the experiment's settings that decide its
// shard and its behaviour, and a hash of every worker's shard to check
// that it holds the points the coordinator means. It travels as JSON
// (the coordinator serves it over the job's gRPC connection).
type Job struct {
	// Name labels the run (the sync model's, by default); Run numbers it
	// among the Runs a coordinator serves one after another (from 0): a
	// worker process takes part in each.
	Name string `json:"name"`
	Run  int    `json:"run"`
	Runs int    `json:"runs"`
	// Workload is the algorithm and its data, with defaults filled.
	Workload workload.Spec `json:"workload"`
	// Sync is the sync model, in consistency.Parse's syntax.
	Sync    string `json:"sync"`
	Workers int    `json:"workers"`
	Batch   int    `json:"batch,omitempty"`
	// Seed is the experiment's seed (harness.Experiment.Seed): it decides
	// θ0, the shuffle, the stragglers, and names the job on the wire.
	Seed    uint64 `json:"seed"`
	Shuffle bool   `json:"shuffle,omitempty"`
	// Duration, EvalEvery, Retry, Lease and JoinTimeout are Go durations
	// ("2s", "20ms").
	Duration    Duration `json:"duration"`
	EvalEvery   Duration `json:"eval_every,omitempty"`
	Retry       Duration `json:"retry,omitempty"`
	Lease       Duration `json:"lease,omitempty"`
	JoinTimeout Duration `json:"join_timeout,omitempty"`
	// Target (with HasTarget) is the objective of the time to target;
	// AtTarget and MaxIterations end the run early (harness.Stop).
	Target        float64 `json:"target,omitempty"`
	HasTarget     bool    `json:"has_target,omitempty"`
	AtTarget      bool    `json:"at_target,omitempty"`
	MaxIterations int     `json:"max_iterations,omitempty"`
	// Stragglers are the injected, natural or tail-latency slow workers.
	Stragglers Stragglers `json:"stragglers"`
	// Arrivals (K-grouping) is the data streams' arrival.Spec in its
	// command-line form ("poisson:125", "poisson:1-250"): each worker
	// runs its own stream from it and the seed (harness's realstream.go).
	// Empty: no streams.
	Arrivals string `json:"arrivals,omitempty"`
	// Layout is the workload's layout, and ShardHashes[i] worker i's
	// shard (workload.ShardHash): a worker refuses a job whose layout or
	// shard it does not reproduce.
	Layout      algorithms.Layout `json:"layout"`
	ShardHashes []string          `json:"shard_hashes"`
}

// Stragglers is harness.Stragglers as JSON.
type Stragglers struct {
	Kind     string   `json:"kind"` // "none", "injected", "natural" or "tail"
	Count    int      `json:"count,omitempty"`
	Workers  []int    `json:"workers,omitempty"`
	Tau      Duration `json:"tau,omitempty"`
	Every    int      `json:"every,omitempty"`
	Slowdown float64  `json:"slowdown,omitempty"`
	// Delay is a tail's per-operation delay distribution in
	// latency.Parse's form; empty: harness's default.
	Delay string `json:"delay,omitempty"`
}

// Duration is a time.Duration that reads and writes JSON as Go's
// duration strings.
type Duration time.Duration

// MarshalJSON writes d as "1.5s".
func (d Duration) MarshalJSON() ([]byte, error) { return json.Marshal(time.Duration(d).String()) }

// UnmarshalJSON reads a duration string such as "20ms".
func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("cluster: duration %s: want a string such as \"20ms\"", b)
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("cluster: duration %q: %w", s, err)
	}
	*d = Duration(v)
	return nil
}

// NewJob describes e, whose Algorithm was built from spec, for worker
// processes. Settings a worker process cannot reproduce or that need
// shared memory are refused with an error naming them:
// Tuner, ScaleIn, Indirect, Migrate, Preempt, Replicas and ISP (Theta0 and
// Network are the coordinator's only: workers get the parameters with
// their releases).
func NewJob(spec workload.Spec, e harness.Experiment, data *workload.Data) (*Job, error) {
	var refused []string
	for _, f := range []struct {
		set  bool
		name string
	}{
		{e.Tuner != nil, "Tuner"}, {e.ScaleIn != nil, "ScaleIn"},
		{e.Indirect != nil, "Indirect"}, {e.Migrate != nil, "Migrate"}, {e.Preempt != nil, "Preempt"},
		{e.Replicas, "Replicas"}, {e.Sync.Kind == consistency.ISP, "ISP"}, {e.Stop.ErrorBound > 0, "Stop.ErrorBound"},
	} {
		if f.set {
			refused = append(refused, f.name)
		}
	}
	if len(refused) > 0 {
		return nil, fmt.Errorf("cluster: %v cannot run with workers in other processes (yet): %w", refused, ErrConfig)
	}
	if e.Algorithm == nil {
		return nil, fmt.Errorf("cluster: no algorithm: %w", ErrConfig)
	}
	j := &Job{
		Name: e.Name, Runs: 1,
		Workload: spec, Sync: e.Sync.String(), Workers: e.Workers, Batch: e.Batch, Seed: e.Seed, Shuffle: e.Shuffle,
		Duration: Duration(e.Duration), EvalEvery: Duration(e.EvalEvery), Retry: Duration(e.Retry),
		Lease: Duration(e.Lease), JoinTimeout: Duration(e.JoinTimeout),
		Target: e.Target, HasTarget: e.HasTarget, AtTarget: e.Stop.AtTarget, MaxIterations: e.Stop.MaxIterations,
		Stragglers: Stragglers{Kind: e.Stragglers.Kind.String(), Count: e.Stragglers.Count, Workers: e.Stragglers.Workers,
			Tau: Duration(e.Stragglers.Tau), Every: e.Stragglers.Every, Slowdown: e.Stragglers.Slowdown},
		Layout: e.Algorithm.Layout(),
	}
	if e.Stragglers.Delay != (latency.Dist{}) {
		j.Stragglers.Delay = e.Stragglers.Delay.String()
	}
	if e.Arrivals != nil {
		j.Arrivals = e.Arrivals.String()
	}
	if j.Workers == 0 {
		j.Workers = 16 // harness's default, fixed here so that the hashes match
	}
	if e.Arrivals != nil {
		if err := e.Arrivals.Validate(j.Workers); err != nil {
			return nil, fmt.Errorf("cluster: arrivals: %w: %w", err, ErrConfig)
		}
	}
	parts, err := (workload.Sharding{Workers: j.Workers, Shuffle: j.Shuffle, Seed: j.Seed}).Shards(e.Algorithm.NumPoints())
	if err != nil {
		return nil, fmt.Errorf("cluster: %w: %w", err, ErrConfig)
	}
	for _, p := range parts {
		h, err := workload.ShardHash(e.Algorithm, data, p)
		if err != nil {
			return nil, err
		}
		j.ShardHashes = append(j.ShardHashes, h)
	}
	return j, nil
}

// Experiment returns the experiment j describes over alg (built from
// j.Workload), with Remote set: the coordinator's and every worker's.
func (j *Job) Experiment(alg algorithms.Algorithm) (harness.Experiment, error) {
	spec, err := consistency.Parse(j.Sync)
	if err != nil {
		return harness.Experiment{}, fmt.Errorf("cluster: job sync %q: %w: %w", j.Sync, err, ErrConfig)
	}
	if l := alg.Layout(); l != j.Layout {
		return harness.Experiment{}, fmt.Errorf("cluster: the job's layout is %+v; %s built here has %+v: %w", j.Layout, alg.Name(), l, ErrConfig)
	}
	var kind harness.StragglerKind
	switch j.Stragglers.Kind {
	case "", "none":
	case "injected":
		kind = harness.Injected
	case "natural":
		kind = harness.Natural
	case "tail":
		kind = harness.Tail
	default:
		return harness.Experiment{}, fmt.Errorf("cluster: job stragglers kind %q: want none, injected, natural or tail: %w", j.Stragglers.Kind, ErrConfig)
	}
	var delay latency.Dist
	if j.Stragglers.Delay != "" {
		if delay, err = latency.Parse(j.Stragglers.Delay); err != nil {
			return harness.Experiment{}, fmt.Errorf("cluster: job stragglers delay %q: %w: %w", j.Stragglers.Delay, err, ErrConfig)
		}
	}
	var arrivals *arrival.Spec
	if j.Arrivals != "" {
		a, err := arrival.Parse(j.Arrivals)
		if err != nil {
			return harness.Experiment{}, fmt.Errorf("cluster: job arrivals %q: %w: %w", j.Arrivals, err, ErrConfig)
		}
		arrivals = &a
	}
	s := j.Stragglers
	return harness.Experiment{
		Name: j.Name, Algorithm: alg, Sync: spec, Workers: j.Workers, Batch: j.Batch, Seed: j.Seed, Shuffle: j.Shuffle,
		Clock: harness.Real, Remote: true, Duration: time.Duration(j.Duration), EvalEvery: time.Duration(j.EvalEvery),
		Retry: time.Duration(j.Retry), Lease: time.Duration(j.Lease), JoinTimeout: time.Duration(j.JoinTimeout),
		Target: j.Target, HasTarget: j.HasTarget, Stop: harness.Stop{AtTarget: j.AtTarget, MaxIterations: j.MaxIterations},
		Stragglers: harness.Stragglers{Kind: kind, Count: s.Count, Workers: s.Workers, Tau: time.Duration(s.Tau), Every: s.Every, Slowdown: s.Slowdown, Delay: delay},
		Arrivals:   arrivals,
	}, nil
}

// CheckShard verifies that worker id's shard of alg over data is the one
// the job names.
func (j *Job) CheckShard(alg algorithms.Algorithm, data *workload.Data, id int) error {
	if id < 0 || id >= j.Workers || len(j.ShardHashes) != j.Workers {
		return fmt.Errorf("cluster: worker %d of a job of %d workers (%d shard hashes): %w", id, j.Workers, len(j.ShardHashes), ErrConfig)
	}
	p, err := (workload.Sharding{Workers: j.Workers, Shuffle: j.Shuffle, Seed: j.Seed}).Shard(alg.NumPoints(), id)
	if err != nil {
		return fmt.Errorf("cluster: %w: %w", err, ErrConfig)
	}
	h, err := workload.ShardHash(alg, data, p)
	if err != nil {
		return err
	}
	if h != j.ShardHashes[id] {
		return fmt.Errorf("cluster: worker %d holds shard %.16s…; the coordinator's is %.16s… (different data, or a different %s build): %w",
			id, h, j.ShardHashes[id], alg.Name(), ErrConfig)
	}
	return nil
}
