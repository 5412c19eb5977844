package harness

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/syncmodels/syncmodels/arrival"
	"github.com/syncmodels/syncmodels/consistency"
	"github.com/syncmodels/syncmodels/preempt"
)

// kgroupExp is K-grouping over Poisson streams with preemptions, slow
// enough per point (200 µs, 10 ms a batch) that workers are preempted
// while computing and their batches go back to the queue.
func kgroupExp(t *testing.T) Experiment {
	return Experiment{Algorithm: mutationKMeans(t), Sync: consistency.Spec{Kind: consistency.KGroup, Group: 4}, Workers: 6,
		Batch: 50, Seed: 5, Shuffle: true, Arrivals: &arrival.Spec{Rate: 1000}, Duration: 3 * time.Second,
		Cost:    CostModel{PointCost: 200 * time.Microsecond},
		Preempt: &preempt.Config{Alpha: 0.7, MeanCycle: 400 * time.Millisecond, Step: 20 * time.Millisecond}}
}

// A restarted worker computes from where it thinks its stream stands
// (the beginning, for a new process) instead of the batches its release
// names: it recomputes batches already applied while its commit claims
// the released ones. Check catches it from the worker's side of the
// trace: the batches the worker sent are not those it was released for.
func TestCheckCatchesBatchFromOwnPosition(t *testing.T) {
	for _, bug := range []bool{false, true} {
		e := kgroupExp(t)
		e.bugs.ownBatch = bug
		res, err := Run(context.Background(), e)
		if !bug {
			if err != nil {
				t.Fatalf("without the bug: %v", err)
			}
			lost := time.Duration(0)
			for _, w := range res.Workers {
				lost += w.Lost
			}
			if lost == 0 || res.Rejoins == 0 {
				t.Fatalf("no batch was cut short by a preemption (lost %v, %d rejoins): the scenario does not exercise the bug", lost, res.Rejoins)
			}
			continue
		}
		var ce *consistency.CheckError
		if !errors.As(err, &ce) {
			t.Fatalf("with the bug: %v; want a *consistency.CheckError", err)
		}
		found := false
		for _, v := range ce.Violations {
			found = found || v.Rule == consistency.RuleKGroup
		}
		if !found {
			t.Fatalf("no %q violation in %v", consistency.RuleKGroup, err)
		}
		t.Logf("caught: %v", ce.Violations[0])
	}
}

// Under K-grouping a commit cannot reach a busy coordinator (the next
// group is released only after the apply), so the dropBusyCommit bug of
// the other models has no K-grouping form; a batch indicator lost on the
// way is refused by the model itself (a gap in the worker's batch
// numbers), which ends the run with an error rather than a trace to check.
func TestKGroupBatchGapRefused(t *testing.T) {
	e := kgroupExp(t)
	if err := e.validate(); err != nil {
		t.Fatal(err)
	}
	st, err := setup(&e)
	if err != nil {
		t.Fatal(err)
	}
	c := st.coord
	if _, err := c.step(0, consistency.Event{Kind: consistency.EvStart}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.step(1, consistency.Event{Kind: consistency.EvBatchReady, Worker: 0, Batch: 1}); !errors.Is(err, consistency.ErrProtocol) {
		t.Fatalf("batch 1 before batch 0: %v; want ErrProtocol", err)
	}
}
