package consistency_test

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/syncmodels/syncmodels/consistency"
)

// tee feeds every event to the model under test and to its reference
// (the scanning implementation, reference_test.go) and records the first
// difference in their answers.
type tee struct {
	consistency.Model
	ref  consistency.Model
	step int
	diff string
}

func (t *tee) Step(ev consistency.Event) ([]consistency.Effect, error) {
	t.step++
	got, err := t.Model.Step(ev)
	want, refErr := t.ref.Step(ev)
	if t.diff == "" {
		switch {
		case (err == nil) != (refErr == nil) || err != nil && err.Error() != refErr.Error():
			t.diff = fmt.Sprintf("step %d (%v): error %v, reference %v", t.step, ev, err, refErr)
		case !reflect.DeepEqual(got, want):
			t.diff = fmt.Sprintf("step %d (%v):\n\tgot  %v\n\twant %v", t.step, ev, got, want)
		case t.Model.Version() != t.ref.Version() || !reflect.DeepEqual(t.Model.Members(), t.ref.Members()):
			t.diff = fmt.Sprintf("step %d (%v): version or members differ", t.step, ev)
		}
	}
	return got, err
}

// TestIndexedMatchesReference: the models whose bookkeeping is indexed
// (SSP's and ASP's clocks and waiting members, BSP's, FSP's and
// quorum's count of members computing, quorum's waiting members) answer
// every event exactly as the scanning reference does, blocks included or
// omitted (Config.OmitBlocks), on random runs with churn; and the traces
// pass Check.
func TestIndexedMatchesReference(t *testing.T) {
	specs := []string{"bsp", "bsp:full", "isp:0.5", "ssp:0", "ssp:1", "ssp:3", "asp", "quorum:0.5", "quorum:0.9", "quorum:2", "fsp", "fsp:100ms:semi"}
	for _, s := range specs {
		for _, omit := range []bool{false, true} {
			for seed := range uint64(12) {
				spec := consistency.MustParse(s)
				n := 2 + int(seed%5)*3
				workers := make([]consistency.WorkerID, n)
				for i := range workers {
					workers[i] = consistency.WorkerID(i)
				}
				cfg := consistency.Config{Workers: workers, Batch: 10, OmitBlocks: omit}
				m, err := consistency.New(spec, cfg)
				if err != nil {
					t.Fatal(err)
				}
				ref, err := consistency.NewReference(spec, cfg)
				if err != nil {
					t.Fatal(err)
				}
				tm := &tee{Model: m, ref: ref}
				d := wrapDriver(tm, workers)
				err = d.random(rand.New(rand.NewPCG(seed, 11)), 600, seed%3 != 0)
				if tm.diff != "" {
					t.Fatalf("%v omit=%v seed %d: %s", spec, omit, seed, tm.diff)
				}
				if err != nil {
					t.Fatalf("%v omit=%v seed %d: %v", spec, omit, seed, err)
				}
				if tm.step < 100 {
					t.Fatalf("%v seed %d: only %d steps", spec, seed, tm.step)
				}
				if err := consistency.Check(&d.trace); err != nil {
					t.Fatalf("%v omit=%v seed %d: %v", spec, omit, seed, err)
				}
			}
		}
	}
}
