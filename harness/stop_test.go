package harness_test

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/syncmodels/syncmodels/harness"
)

// The convergence criteria of FSP §5.3 end runs in both runtimes.
func TestStopCriteria(t *testing.T) {
	alg := blobsKMeans(t, 4000)
	ref, err := harness.Run(context.Background(), smallExp(alg, "bsp"))
	if err != nil {
		t.Fatal(err)
	}
	mid := ref.Curve[3].Objective
	for _, clock := range []harness.Clock{harness.Virtual, harness.Real} {
		for _, tc := range []struct {
			name   string
			stop   harness.Stop
			target bool
		}{
			{"max-iterations", harness.Stop{MaxIterations: 5}, false},
			{"target", harness.Stop{AtTarget: true}, true},
			{"error-bound", harness.Stop{ErrorBound: 1e-2}, false},
		} {
			t.Run(clock.String()+"/"+tc.name, func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					e := smallExp(alg, "bsp")
					e.Clock = clock
					e.Network = delayed(200 * time.Microsecond)
					e.Stop = tc.stop
					e.Target, e.HasTarget = mid, tc.target
					r, err := harness.Run(context.Background(), e)
					if err != nil {
						t.Fatal(err)
					}
					if r.StoppedBy != tc.name || r.Duration >= e.Duration {
						t.Fatalf("stopped by %q at %v (versions %d); want %q before %v", r.StoppedBy, r.Duration, r.Versions, tc.name, e.Duration)
					}
					if tc.name == "max-iterations" && r.Versions != 5 {
						t.Errorf("versions %d; want 5", r.Versions)
					}
				})
			})
		}
	}
	// Without criteria the duration ends the run.
	if ref.StoppedBy != "duration" {
		t.Errorf("stopped by %q", ref.StoppedBy)
	}
}

func TestStopValidation(t *testing.T) {
	alg := blobsKMeans(t, 400)
	for _, s := range []harness.Stop{{AtTarget: true}, {MaxIterations: -1}, {ErrorBound: -1}, {Check: -time.Second}} {
		e := smallExp(alg, "bsp")
		e.Stop = s
		if _, err := harness.Run(context.Background(), e); !errors.Is(err, harness.ErrConfig) {
			t.Errorf("Stop %+v: %v", s, err)
		}
	}
}
