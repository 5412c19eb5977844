package main

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/syncmodels/syncmodels/algorithms"
	"github.com/syncmodels/syncmodels/consistency"
	"github.com/syncmodels/syncmodels/harness"
	"github.com/syncmodels/syncmodels/interval"
)

// plan is one entry of -sync: a sync model, or one of the FSP paper's
// configurations (§6.1) built on one.
type plan struct {
	name string
	spec consistency.Spec
	// tuner makes the run's interval tuner (fspb, fspv), nil for none.
	tuner func(alg algorithms.Algorithm, e *harness.Experiment) (interval.Tuner, error)
	// tunedBatch: choose the mini-batch by a pilot (bspv).
	tunedBatch bool
	// migrate turns on FSP's data migration (fspv+opt); record records
	// the passes and contributions without migrating (Fig. 12's
	// baseline; the run computes what it computes without).
	migrate, record bool
	// replicas runs the model in MLLess's replica design
	// (harness.Experiment.Replicas): "+replicas" after a model, or
	// -replicas.
	replicas bool
}

// The FSP paper's configurations (§6.1).
var presets = map[string]plan{
	// BSPB: full-batch BSP.
	"bspb": {name: "bspb", spec: consistency.Spec{Kind: consistency.BSP, FullBatch: true}},
	// BSPV: mini-batch BSP whose batch is chosen at the start by a
	// cost–benefit pilot (harness.ChooseBatch).
	"bspv": {name: "bspv", spec: consistency.Spec{Kind: consistency.BSP}, tunedBatch: true},
	// FSPB: FSP with the binary-search interval tuner, η0 measured by a
	// full-batch round (binarySearchConfig).
	"fspb": {name: "fspb", spec: consistency.Spec{Kind: consistency.FSP}, tuner: func(alg algorithms.Algorithm, e *harness.Experiment) (interval.Tuner, error) {
		return interval.NewBinarySearch(binarySearchConfig(alg, e))
	}},
	// FSPV: FSP with the multi-stage linear-fit tuner (linearFitConfig).
	"fspv": {name: "fspv", spec: consistency.Spec{Kind: consistency.FSP}, tuner: linearFit},
	// FSPV with semi-centralized coordination (§5.2): local timers η ± δ_i.
	"fspv+semi": {name: "fspv+semi", spec: consistency.Spec{Kind: consistency.FSP, Local: true}, tuner: linearFit},
	// FSPV with asynchronous data migration (§4.3; Fig. 11's "asyn").
	"fspv+asyn": {name: "fspv+asyn", spec: consistency.Spec{Kind: consistency.FSP}, tuner: linearFit, migrate: true},
	// FSPV+opt (§6): FSPV with asynchronous data migration (§4,
	// harness.Migration with its defaults) and semi-centralized timers.
	"fspv+opt": {name: "fspv+opt", spec: consistency.Spec{Kind: consistency.FSP, Local: true}, tuner: linearFit, migrate: true},
}

// presetNames are the FSP paper's configurations in the order the help
// lists them.
var presetNames = []string{"bspb", "bspv", "fspb", "fspv", "fspv+semi", "fspv+asyn", "fspv+opt"}

// syncForms lists what a -sync entry may be, for its errors.
func syncForms(workers int) string {
	return fmt.Sprintf("the models are bsp, bsp:full, ssp:S (S ≥ 0), asp, quorum:F (0 < F ≤ 1), quorum:K (1 ≤ K ≤ %d workers), fsp[:INTERVAL][:semi] (INTERVAL > 0), isp[:V] (V ≥ 0), kgroup:K[:spread] (K ≥ 1), MODEL+replicas, and the FSP paper's %s",
		workers, strings.Join(presetNames, ", "))
}

// syncReason is why an entry was refused, without consistency.Parse's
// package prefix, the entry it repeats and its sentinel.
func syncReason(err error) string {
	msg := strings.TrimSuffix(err.Error(), ": "+consistency.ErrConfig.Error())
	if rest, ok := strings.CutPrefix(msg, "consistency: sync model "); ok {
		if i := strings.Index(rest, `": `); i >= 0 {
			msg = rest[i+3:]
		}
	}
	if strings.HasPrefix(msg, "unknown model") {
		return "unknown model"
	}
	return msg
}

// quorumCount returns K of a quorum:K spec; ok is false for other specs
// and for quorum:F.
func quorumCount(spec consistency.Spec) (k int, ok bool) {
	if spec.Kind != consistency.Quorum {
		return 0, false
	}
	k, err := strconv.Atoi(spec.Need.String())
	return k, err == nil
}

func linearFit(alg algorithms.Algorithm, e *harness.Experiment) (interval.Tuner, error) {
	return interval.NewLinearFit(linearFitConfig(alg, e))
}

// linearFitConfig is FSPV's tuner configuration, the same rule for every
// workload, in units of the cost model: P is the time a full-speed worker
// takes for a pass over its shard.
//
//   - The first probe is P/64 (at least Min): "η_i is usually very small"
//     (FSP §3.3; its 200 ms default is a small fraction of a pass over the
//     paper's 300,000-point shards).
//   - η* and later probes lie in [minInterval, P] (FSPB's bounds too;
//     beyond P the early trigger ends every round at the fastest worker's
//     pass, so a longer η behaves the same).
//   - Each stage reaches 4 times beyond its probes (the default), and its
//     prediction is checked every 16 iterations, which averages the noise
//     of the objective over short rounds and amortizes the probes; while
//     successive stages confirm their interval the window doubles, up to
//     64 iterations (LinearFitConfig.MaxWindow).
func linearFitConfig(alg algorithms.Algorithm, e *harness.Experiment) interval.LinearFitConfig {
	lo, pass := minInterval(alg, e), fullPass(alg, e)
	probe := max(pass/64, lo)
	return interval.LinearFitConfig{Maximize: !alg.Minimize(), Probe: probe, Min: lo, Max: max(pass, 2*probe), Window: 16, MaxWindow: 64}
}

// fullPass is P under e's cost model: the time a full-speed worker takes
// for a pass over its shard.
func fullPass(alg algorithms.Algorithm, e *harness.Experiment) time.Duration {
	return time.Duration(alg.NumPoints()/max(e.Workers, 1)) * e.Cost.PointCost
}

// minInterval is the shortest η the tuners may ask for: one point's time,
// and at least twice the longest apply under e's cost model (every
// worker's delta dense, and θ recomputed). The simulator starts a round's
// timer when the last commit arrives, before the apply; an η shorter than
// the apply fires it as the release goes out, and the round has no
// computing time to measure. Below that the tuners find the best interval
// themselves: an earlier floor of 16 points' time excluded LR's best
// fixed interval (12 points) from FSPV's range.
func minInterval(alg algorithms.Algorithm, e *harness.Experiment) time.Duration {
	apply := time.Duration(alg.Layout().Params*(max(e.Workers, 1)+1)) * e.Cost.EntryCost
	return max(e.Cost.PointCost, 2*apply)
}

// binarySearchConfig is FSPB's tuner configuration: η between
// minInterval and P, the time a full-speed worker takes for a pass over its
// shard. The measured η0, the full-batch round, is capped at P: stragglers
// make that round longer than P, but under FSP the early trigger ends
// every round at the fastest worker's pass, so a longer η behaves like P
// and halving it would compare two identical settings.
func binarySearchConfig(alg algorithms.Algorithm, e *harness.Experiment) interval.BinarySearchConfig {
	lo, pass := minInterval(alg, e), fullPass(alg, e)
	return interval.BinarySearchConfig{Maximize: !alg.Minimize(), Min: lo, Max: max(pass, lo)}
}

// parsePlan reads one -sync entry.
func parsePlan(s string) (plan, error) {
	s = strings.TrimSpace(s)
	if p, ok := presets[strings.ToLower(s)]; ok {
		return p, nil
	}
	if m, ok := strings.CutSuffix(strings.ToLower(s), replicasSuffix); ok {
		p, err := parsePlan(m)
		if err != nil {
			return plan{}, err
		}
		return p.withReplicas()
	}
	spec, err := consistency.Parse(s)
	if err != nil {
		return plan{}, err
	}
	return plan{name: spec.String(), spec: spec}, nil
}

// replicasSuffix names a plan run in MLLess's replica design.
const replicasSuffix = "+replicas"

// withReplicas returns p in MLLess's replica design, named with
// "+replicas"; ISP runs in it anyway and is returned as it is. FSP, its
// presets and the tuned batch are refused.
func (p plan) withReplicas() (plan, error) {
	switch {
	case p.spec.Kind == consistency.ISP:
		return p, nil
	case p.spec.Kind == consistency.FSP || p.tuner != nil || p.tunedBatch || p.migrate || p.record:
		return plan{}, fmt.Errorf("%s: the replica design runs bsp, ssp, asp and quorum (isp always runs in it)", p.name)
	}
	p.replicas = true
	p.name += replicasSuffix
	return p, nil
}

// batchCandidates are the mini-batches BSPV's pilot tries: 1/32 to 1/2 of
// a shard, and the full shard.
func batchCandidates(alg algorithms.Algorithm, workers int) []int {
	shard := alg.NumPoints() / max(workers, 1)
	var cs []int
	for _, div := range []int{32, 16, 8, 4, 2, 1} {
		if b := shard / div; b > 0 && (len(cs) == 0 || cs[len(cs)-1] != b) {
			cs = append(cs, b)
		}
	}
	return cs
}

// experimentFor builds the run of p: its model, tuner or tuned batch.
func (f *compareFlags) experimentFor(ctx context.Context, alg algorithms.Algorithm, p plan) (harness.Experiment, error) {
	e := f.experiment(alg, p.spec)
	e.Name = p.name
	e.Replicas = p.replicas
	if p.tuner != nil {
		e.Cost = withCostDefaults(e.Cost)
		t, err := p.tuner(alg, &e)
		if err != nil {
			return e, fmt.Errorf("%s: %w", p.name, err)
		}
		e.Tuner = t
	}
	if p.migrate || p.record {
		e.Migrate = &harness.Migration{PointBytes: f.pointBytes, RecordOnly: p.record}
	}
	if p.tunedBatch {
		b, err := harness.ChooseBatch(ctx, e, batchCandidates(alg, f.workers), bspvPilotShare)
		if err != nil {
			return e, fmt.Errorf("%s: %w", p.name, err)
		}
		e.Batch = b
		e.Name = fmt.Sprintf("bspv(b=%d)", b)
	}
	return e, nil
}

// withCostDefaults fills the harness's cost-model defaults, which the
// tuners' settings are derived from.
func withCostDefaults(c harness.CostModel) harness.CostModel {
	if c.PointCost == 0 {
		c.PointCost = 10 * time.Microsecond
	}
	if c.EntryCost == 0 {
		c.EntryCost = 2 * time.Nanosecond
	}
	return c
}
