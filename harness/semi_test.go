package harness_test

import (
	"context"
	"testing"
	"time"

	"github.com/syncmodels/syncmodels/consistency"
	"github.com/syncmodels/syncmodels/harness"
	"github.com/syncmodels/syncmodels/interval"
)

// Under semi-centralized FSP the interval goes out with the release, so
// an interval a tuner sets after a round's apply must reach that round's
// releases: the first round runs at the tuner's 3 ms, not at the spec's
// 250 ms default (which would make it a full pass, 5 ms for a fast
// worker, and much longer for a straggler).
func TestSemiCentralizedTakesTunedInterval(t *testing.T) {
	alg := blobsKMeans(t, 4000)
	e := smallExp(alg, "fsp:semi")
	tu, err := interval.NewFixed(3 * time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	e.Tuner = tu
	r, err := harness.Run(context.Background(), e)
	if err != nil {
		t.Fatal(err)
	}
	for _, rec := range r.Trace.Records {
		if rec.Kind == consistency.RecApply {
			// 3 ms of local timer, plus latency and the commits' transfer.
			if rec.At > 4*time.Millisecond {
				t.Errorf("first apply at %v; want the first round to run at the tuned 3 ms", rec.At)
			}
			break
		}
	}
	if r.Versions < 40 {
		t.Errorf("%d versions in %v at 3 ms per round", r.Versions, r.Duration)
	}
}

// reportLog is an interval.Tuner that records the reports it is given.
type reportLog struct {
	interval.Tuner
	reps []interval.Report
}

func (l *reportLog) Observe(rep interval.Report) error {
	l.reps = append(l.reps, rep)
	return l.Tuner.Observe(rep)
}

// The barrier cost φ a tuner is told (interval.Report.BarrierCost) runs
// from the round's barrier initiation to the release. Under
// semi-centralized coordination the barrier begins when the first local
// timer fires, not with an interrupt (there is none), so φ is not 0:
// FSPV took φ = 0 as free barriers and ran at its shortest interval,
// doubling the wait of the default syncbench scenario.
//
// By hand, two equal workers, no stragglers, η = 1 ms = 100 points of
// P = 10 µs, latency L = 100 µs, links fast enough that transfers take
// under a nanosecond and an apply of under 1 µs (≈ 100 entries at 2 ns):
// semi-centralized, both timers are η (equal measured responses), the
// worker commits within one point after its timer fires and the commit
// arrives L later, so φ ∈ [L, L+P+1µs]; centralized, the interrupt
// travels L from the coordinator's timer first, so φ ∈ [2L, 2L+P+1µs].
func TestSemiCentralizedBarrierCost(t *testing.T) {
	const (
		lat   = 100 * time.Microsecond
		point = 10 * time.Microsecond
	)
	alg := blobsKMeans(t, 4000)
	for _, tc := range []struct {
		spec   string
		lo, hi time.Duration
	}{
		{"fsp:semi", lat, lat + point + time.Microsecond},
		{"fsp", 2 * lat, 2*lat + point + time.Microsecond},
	} {
		t.Run(tc.spec, func(t *testing.T) {
			e := smallExp(alg, tc.spec)
			e.Workers, e.Stragglers = 2, harness.Stragglers{}
			e.Cost = harness.CostModel{PointCost: point, Latency: lat, Bandwidth: 1e18}
			e.Duration = 50 * time.Millisecond
			f, err := interval.NewFixed(time.Millisecond)
			if err != nil {
				t.Fatal(err)
			}
			log := &reportLog{Tuner: f}
			e.Tuner = log
			if _, err := harness.Run(context.Background(), e); err != nil {
				t.Fatal(err)
			}
			if len(log.reps) == 0 {
				t.Fatal("no report")
			}
			t.Logf("%d reports, the first: %+v", len(log.reps), log.reps[0])
			for i, rep := range log.reps {
				if rep.BarrierCost < tc.lo || rep.BarrierCost > tc.hi {
					t.Errorf("report %d: φ = %v, want in [%v, %v]", i, rep.BarrierCost, tc.lo, tc.hi)
				}
			}
		})
	}
}
