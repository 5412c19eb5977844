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
