package harness_test

import (
	"context"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/syncmodels/syncmodels/consistency"
	"github.com/syncmodels/syncmodels/harness"
	"github.com/syncmodels/syncmodels/interval"
)

func tuners(t *testing.T) map[string]func() interval.Tuner {
	return map[string]func() interval.Tuner{
		"fixed": func() interval.Tuner {
			f, err := interval.NewFixed(3 * time.Millisecond)
			if err != nil {
				t.Fatal(err)
			}
			return f
		},
		"fspb": func() interval.Tuner {
			b, err := interval.NewBinarySearch(interval.BinarySearchConfig{Min: 100 * time.Microsecond})
			if err != nil {
				t.Fatal(err)
			}
			return b
		},
		"fspv": func() interval.Tuner {
			l, err := interval.NewLinearFit(interval.LinearFitConfig{Probe: 2 * time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			return l
		},
	}
}

// Every tuner drives an FSP run in virtual time; the run passes the BSP
// rules of the checker (Run checks it), is reproducible, and the tuner's
// choices are recorded.
func TestVirtualTuners(t *testing.T) {
	alg := blobsKMeans(t, 4000)
	for name, mk := range tuners(t) {
		t.Run(name, func(t *testing.T) {
			run := func() *harness.Result {
				e := smallExp(alg, "fsp")
				e.EvalEvery = e.Duration // the curve is not compared
				e.Tuner = mk()
				r, err := harness.Run(context.Background(), e)
				if err != nil {
					t.Fatal(err)
				}
				return r
			}
			a, b := run(), run()
			if a.Final != b.Final || len(a.Intervals) != len(b.Intervals) || a.Versions != b.Versions {
				t.Fatal("same seed, different tuned runs")
			}
			if len(a.Intervals) == 0 {
				t.Fatal("no interval recorded")
			}
			rollbacks := 0
			for _, r := range a.Trace.Records {
				if r.Kind == consistency.RecRollback {
					rollbacks++
				}
			}
			if (name == "fspv") != (rollbacks > 0) {
				t.Errorf("%d rollbacks", rollbacks)
			}
			if name == "fspb" && a.Intervals[0].Interval != consistency.FullBatch {
				t.Errorf("FSPB's first interval %v; want a full-batch round", a.Intervals[0].Interval)
			}
			t.Logf("versions %d, final %.6g, intervals %v", a.Versions, a.Final, a.Intervals)
		})
	}
}

// Rolling back works: after FSPV's rollback the run continues from the
// checkpoint's parameters. With rollbacks the deltas applied between the
// checkpoint and the rollback are discarded, so the run differs from a
// Fixed run — but its trace still passes the checker and its objective
// improves.
func TestVirtualRollbackImproves(t *testing.T) {
	e := smallExp(blobsKMeans(t, 4000), "fsp")
	l, err := interval.NewLinearFit(interval.LinearFitConfig{Probe: 2 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	e.Tuner = l
	r, err := harness.Run(context.Background(), e)
	if err != nil {
		t.Fatal(err)
	}
	if r.Final >= r.Curve[0].Objective {
		t.Fatalf("objective %v → %v", r.Curve[0].Objective, r.Final)
	}
}

func TestTunerNeedsFSP(t *testing.T) {
	e := smallExp(blobsKMeans(t, 4000), "bsp")
	e.Tuner = tuners(t)["fixed"]()
	if _, err := harness.Run(context.Background(), e); err == nil || !strings.Contains(err.Error(), "needs an FSP") {
		t.Fatalf("Run = %v", err)
	}
}

// On goroutines, tuners that need no rollback work; FSPV is refused with a
// clear error.
func TestRealTuners(t *testing.T) {
	alg := blobsKMeans(t, 4000)
	for _, name := range []string{"fixed", "fspb", "fspv"} {
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				e := smallExp(alg, "fsp")
				e.Clock = harness.Real
				e.Network = delayed(time.Millisecond)
				e.EvalEvery = e.Duration // the curve is not checked
				e.Tuner = tuners(t)[name]()
				r, err := harness.Run(context.Background(), e)
				if name == "fspv" {
					if err == nil || !strings.Contains(err.Error(), "virtual clock") {
						t.Fatalf("real FSPV: %v", err)
					}
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				t.Logf("versions %d, intervals %v", r.Versions, r.Intervals)
				if len(r.Intervals) == 0 || r.Versions < 3 {
					t.Fatalf("intervals %v, versions %d", r.Intervals, r.Versions)
				}
			})
		})
	}
}

// A first probe's progress is undone by the rollback, so the objective
// snapshots taken during it must not show it: they show the checkpoint's
// parameters (the training state that survives). Otherwise a probe that
// crossed the target would count towards the time to target. The probe
// runs are marked in Result.Intervals.
func TestVirtualRolledBackProbeNotInCurve(t *testing.T) {
	e := smallExp(blobsKMeans(t, 4000), "fsp")
	e.Duration = 50 * time.Millisecond   // five first probes
	e.EvalEvery = 200 * time.Microsecond // several snapshots within each probe
	l, err := interval.NewLinearFit(interval.LinearFitConfig{Probe: 2 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	e.Tuner = l
	r, err := harness.Run(context.Background(), e)
	if err != nil {
		t.Fatal(err)
	}
	probes, checked := 0, 0
	for i, iv := range r.Intervals {
		if !iv.Probe {
			continue
		}
		probes++
		if i > 0 && r.Intervals[i-1].Probe || i+1 == len(r.Intervals) {
			continue // a second probe (kept), or a first one the run's end cut
		}
		if !r.Intervals[i+1].Probe || r.Intervals[i+1].Interval != 2*iv.Interval {
			t.Fatalf("probe %v followed by %v; want the second probe at twice the interval", iv, r.Intervals[i+1])
		}
		// The snapshots from the first probe's start to the rollback (the
		// second probe's start) all show the checkpoint's θ.
		var in []harness.Point
		for _, p := range r.Curve {
			if p.T >= iv.T && p.T <= r.Intervals[i+1].T {
				in = append(in, p)
			}
		}
		if len(in) < 3 {
			t.Fatalf("probe from %v to %v: only %d snapshots", iv.T, r.Intervals[i+1].T, len(in))
		}
		for _, p := range in[1:] {
			if p.Objective != in[0].Objective || p.Version != in[0].Version {
				t.Errorf("probe from %v: snapshot at %v has objective %v (version %d), the checkpoint's is %v (version %d)",
					iv.T, p.T, p.Objective, p.Version, in[0].Objective, in[0].Version)
			}
		}
		checked++
	}
	if checked == 0 || probes < 2*checked {
		t.Fatalf("%d probe runs, %d first probes checked; intervals %v", probes, checked, r.Intervals)
	}
}
