package cluster_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/syncmodels/syncmodels/arrival"
	"github.com/syncmodels/syncmodels/cluster"
	"github.com/syncmodels/syncmodels/harness"
	"github.com/syncmodels/syncmodels/latency"
	"github.com/syncmodels/syncmodels/workload"
)

// A job carries its data streams (Arrivals) to the worker processes in
// the command-line form: through JSON, Experiment gives back the same
// arrival.Spec, and so the same rates per worker; bad arrivals are
// refused, by NewJob and by Experiment, naming them.
func TestJobArrivals(t *testing.T) {
	e, job, _, lis := setup(t, lrSpec, "kgroup:4", 4)
	lis.Close()
	spec := lrSpec.WithDefaults()
	alg, data, err := workload.Open(spec)
	if err != nil {
		t.Fatal(err)
	}
	for _, text := range []string{"poisson:2000", "poisson:1-250", "gamma:2:10,20,30,40", "lognormal:0.5:125"} {
		a, err := arrival.Parse(text)
		if err != nil {
			t.Fatal(err)
		}
		e.Arrivals = &a
		j, err := cluster.NewJob(spec, e, data)
		if err != nil {
			t.Fatalf("%s: %v", text, err)
		}
		b, err := json.Marshal(j)
		if err != nil {
			t.Fatal(err)
		}
		back := &cluster.Job{}
		if err := json.Unmarshal(b, back); err != nil {
			t.Fatal(err)
		}
		got, err := back.Experiment(alg)
		if err != nil {
			t.Fatalf("%s: %v", text, err)
		}
		want, _ := a.RatesFor(4, e.Seed)
		rates, err := got.Arrivals.RatesFor(4, got.Seed)
		if err != nil || got.Arrivals.String() != text || len(rates) != 4 || rates[3] != want[3] {
			t.Errorf("%s: the job's %q gives back %v (rates %v, want %v): %v", text, back.Arrivals, got.Arrivals, rates, want, err)
		}
	}
	e.Arrivals = &arrival.Spec{Rates: []float64{1, 2}} // two rates for four workers
	if _, err := cluster.NewJob(spec, e, data); !errors.Is(err, cluster.ErrConfig) || !strings.Contains(err.Error(), "arrivals") {
		t.Errorf("NewJob with 2 rates for 4 workers: %v; want ErrConfig naming the arrivals", err)
	}
	job.Arrivals = "poisson:fast"
	if _, err := job.Experiment(alg); !errors.Is(err, cluster.ErrConfig) || !strings.Contains(err.Error(), `"poisson:fast"`) {
		t.Errorf("a job with arrivals %q: %v; want ErrConfig naming them", job.Arrivals, err)
	}
}

// A job carries Tail stragglers and their delay distribution to the
// worker processes: through JSON, Experiment gives back the same
// latency.Dist (the zero one stays zero, harness's default on both
// sides); a bad one is refused naming it.
func TestJobTail(t *testing.T) {
	e, job, _, lis := setup(t, lrSpec, "bsp", 4)
	lis.Close()
	spec := lrSpec.WithDefaults()
	alg, data, err := workload.Open(spec)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []latency.Dist{latency.Default(), {Median: time.Millisecond}, {}} {
		e.Stragglers = harness.Stragglers{Kind: harness.Tail, Count: 2, Delay: d}
		j, err := cluster.NewJob(spec, e, data)
		if err != nil {
			t.Fatalf("%v: %v", d, err)
		}
		b, err := json.Marshal(j)
		if err != nil {
			t.Fatal(err)
		}
		back := &cluster.Job{}
		if err := json.Unmarshal(b, back); err != nil {
			t.Fatal(err)
		}
		got, err := back.Experiment(alg)
		if err != nil {
			t.Fatalf("%v: %v", d, err)
		}
		if s := got.Stragglers; s.Kind != harness.Tail || s.Count != 2 || s.Delay != d {
			t.Errorf("%v: the job (%s) gives back %+v", d, b, s)
		}
	}
	job.Stragglers = cluster.Stragglers{Kind: "tail", Delay: "median=5"}
	if _, err := job.Experiment(alg); !errors.Is(err, cluster.ErrConfig) || !strings.Contains(err.Error(), `delay "median=5"`) {
		t.Errorf("a job with delay %q: %v; want ErrConfig naming it", job.Stragglers.Delay, err)
	}
}
