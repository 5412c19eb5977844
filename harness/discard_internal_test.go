package harness

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/syncmodels/syncmodels/arrival"
	"github.com/syncmodels/syncmodels/consistency"
	"github.com/syncmodels/syncmodels/preempt"
)

// TestDiscardTrace: a run that checks its trace as it goes
// (Experiment.DiscardTrace) returns the same result as the run that
// keeps it, without the trace, under every model and with preemptions
// and streams; and when a deliberate bug loses a delta, the same
// *consistency.CheckError, violations and record indices included.
func TestDiscardTrace(t *testing.T) {
	alg := mutationKMeans(t)
	cases := []Experiment{
		{Sync: consistency.MustParse("bsp")},
		{Sync: consistency.MustParse("ssp:2"), Stragglers: Stragglers{Kind: Injected, Count: 2, Tau: 2 * time.Millisecond, Every: 40}},
		{Sync: consistency.MustParse("asp"), Preempt: &preempt.Config{Alpha: 0.7, MeanCycle: 20 * time.Millisecond, Step: 2 * time.Millisecond}},
		{Sync: consistency.MustParse("quorum:0.5")},
		{Sync: consistency.MustParse("fsp:5ms")},
		{Sync: consistency.MustParse("isp:0.5"), Algorithm: ledgerLR(t)},
		{Sync: consistency.MustParse("kgroup:3"), Arrivals: &arrival.Spec{Rate: 5000}},
	}
	for _, e := range cases {
		if e.Algorithm == nil {
			e.Algorithm = alg
		}
		e.Workers, e.Batch, e.Seed, e.Duration = 6, 20, 3, 60*time.Millisecond
		t.Run(e.Sync.String(), func(t *testing.T) {
			kept, err := Run(context.Background(), e)
			if err != nil {
				t.Fatal(err)
			}
			if kept.Trace == nil || len(kept.Trace.Records) < 50 {
				t.Fatalf("kept trace %v: want records", kept.Trace)
			}
			if e.Preempt != nil && kept.Preemptions == 0 {
				t.Fatal("no preemption")
			}
			e.DiscardTrace = true
			got, err := Run(context.Background(), e)
			if err != nil {
				t.Fatal(err)
			}
			if got.Trace != nil {
				t.Fatalf("DiscardTrace kept %d records", len(got.Trace.Records))
			}
			kept.Trace = nil
			if !reflect.DeepEqual(got, kept) {
				t.Fatalf("results differ:\n got %+v\nkept %+v", got, kept)
			}
		})
	}
	t.Run("lost delta", func(t *testing.T) {
		e := Experiment{Algorithm: alg, Sync: consistency.MustParse("asp"), Workers: 4, Batch: 50, Seed: 3,
			Duration: 20 * time.Millisecond, Cost: CostModel{EntryCost: 200 * time.Nanosecond}}
		e.bugs.dropBusyCommit = true
		_, keptErr := Run(context.Background(), e)
		e.DiscardTrace = true
		_, err := Run(context.Background(), e)
		var ce, keptCE *consistency.CheckError
		if !errors.As(err, &ce) || !errors.As(keptErr, &keptCE) {
			t.Fatalf("errors %v and %v; want *consistency.CheckError", err, keptErr)
		}
		if !reflect.DeepEqual(ce, keptCE) {
			t.Fatalf("DiscardTrace: %v\nkept trace: %v", err, keptErr)
		}
		wantLost(t, err, "never accepted it")
	})
	t.Run("real clock", func(t *testing.T) {
		e := Experiment{Algorithm: alg, Sync: consistency.MustParse("bsp"), Clock: Real, DiscardTrace: true}
		if _, err := Run(context.Background(), e); !errors.Is(err, ErrConfig) {
			t.Fatalf("Run = %v; want ErrConfig", err)
		}
	})
}
