package harness_test

import (
	"context"
	"fmt"
	"os"
	"reflect"
	"runtime"
	"runtime/metrics"
	"testing"
	"time"

	"github.com/syncmodels/syncmodels/consistency"
	"github.com/syncmodels/syncmodels/harness"
	"github.com/syncmodels/syncmodels/workload"
)

// scaleGlobalBatch is the scale benchmark's global batch: the points one
// round over every worker computes, split evenly (10,240 / n per worker,
// at least one: 640 at 16 workers, 10 at 1,024, 1 at 10,000).
const scaleGlobalBatch = 10240

// scaleExperiment is syncbench compare's default scenario (logistic
// regression, Adam at 0.005, on the 50,000×100 synthetic logistic data,
// 4 injected stragglers pausing 32 ms after every 1,000 points, seed 1)
// with n workers sharing a fixed global batch, run for d of virtual
// time with the objective every d/10, its trace checked as it is
// recorded (DiscardTrace).
func scaleExperiment(tb testing.TB, sync string, n int, d time.Duration) harness.Experiment {
	tb.Helper()
	alg, _, err := workload.Open(workload.Spec{Algo: "lr", LR: 0.005, Seed: 1}.WithDefaults())
	if err != nil {
		tb.Fatal(err)
	}
	return harness.Experiment{
		Algorithm: alg, Sync: consistency.MustParse(sync), Workers: n, Batch: max(scaleGlobalBatch/n, 1),
		Stragglers: harness.Stragglers{Kind: harness.Injected, Count: 4, Tau: 32 * time.Millisecond, Every: 1000},
		Duration:   d, EvalEvery: d / 10, Seed: 1, DiscardTrace: true,
	}
}

// liveHeap is the heap the last garbage collection found live.
func liveHeap() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// BenchmarkScale runs the scale scenario (scaleExperiment) under BSP and
// ASP at 16 to 10,000 workers. It reports the wall time per virtual
// second of the run (s/vs, harness.Run from start to end, the objective
// evaluations after the run included), the process's CPU time per
// virtual second (cpu-s/vs, user and system, garbage collection
// included: steadier than the wall time on a shared machine), and two
// memory figures per worker: B/worker, the largest live heap during the
// run (runtime/metrics /gc/heap/live:bytes right after a collection at
// each of the run's nine progress reports, whose time is left out of
// s/vs and cpu-s/vs) minus the live heap before it, over the workers;
// and alloc-B/worker, the bytes the run allocated
// (runtime.MemStats.TotalAlloc), over the workers. The virtual duration shrinks with the fleet (d below) so that
// each case takes seconds; docs/performance.md has the numbers.
//
//	go test -run '^$' -bench Scale -benchtime 1x ./harness
func BenchmarkScale(b *testing.B) {
	for _, n := range []int{16, 256, 1024, 10000} {
		d := map[int]time.Duration{16: time.Second, 256: 500 * time.Millisecond, 1024: 200 * time.Millisecond, 10000: 100 * time.Millisecond}[n]
		for _, sync := range []string{"bsp", "asp"} {
			b.Run(fmt.Sprintf("sync=%s/workers=%d", sync, n), func(b *testing.B) {
				e := scaleExperiment(b, sync, n, d)
				var peak uint64
				var wall, cpu time.Duration
				e.Progress = func(harness.Progress) {
					// A collection, then the live heap; its time is not
					// the run's.
					start, cpu0 := time.Now(), cpuTime()
					runtime.GC()
					peak = max(peak, liveHeap())
					wall -= time.Since(start)
					cpu -= cpuTime() - cpu0
				}
				var before, after runtime.MemStats
				var base uint64
				runs := 0
				for b.Loop() {
					runtime.GC()
					base, peak = liveHeap(), 0
					runtime.ReadMemStats(&before)
					start, cpu0 := time.Now(), cpuTime()
					res, err := harness.Run(context.Background(), e)
					if err != nil {
						b.Fatal(err)
					}
					wall += time.Since(start)
					cpu += cpuTime() - cpu0
					runtime.ReadMemStats(&after)
					runs++
					if res.Versions == 0 {
						b.Fatal("no version applied")
					}
				}
				b.ReportMetric(wall.Seconds()/float64(runs)/d.Seconds(), "s/vs")
				b.ReportMetric(cpu.Seconds()/float64(runs)/d.Seconds(), "cpu-s/vs")
				b.ReportMetric(float64(peak-min(peak, base))/float64(n), "B/worker")
				b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/float64(n), "alloc-B/worker")
			})
		}
	}
}

// tenThousandCase is a model and the virtual time that gives it a few
// commits per worker at 10,000 workers of the tiny workload.
type tenThousandCase struct {
	sync     string
	duration time.Duration
	minIter  float64 // commits per worker at least
}

// TestTenThousandWorkers runs 10,000 workers on a tiny workload
// (logistic regression on 10,000 points of 4 features, one point per
// worker per commit) for a few BSP rounds: every worker commits, the run
// passes consistency.Check (Run checks), and the run that checks its
// trace as it goes (DiscardTrace) returns what the run that keeps it
// returns. TestLongTenThousandWorkers does the same under SSP, ASP,
// quorum and FSP. Neither tests speed or memory (BenchmarkScale measures
// them).
func TestTenThousandWorkers(t *testing.T) {
	tenThousand(t, []tenThousandCase{{"bsp", 5 * time.Millisecond, 2.5}})
}

// TestLongTenThousandWorkers is TestTenThousandWorkers under SSP, ASP,
// quorum and FSP (a long check: SYNCMODELS_LONG=1; about 40 s under
// -race).
func TestLongTenThousandWorkers(t *testing.T) {
	if os.Getenv("SYNCMODELS_LONG") != "1" {
		t.Skip("a long check: set SYNCMODELS_LONG=1")
	}
	tenThousand(t, []tenThousandCase{
		{"ssp:2", 3 * time.Millisecond, 1.5},
		{"asp", 2 * time.Millisecond, 1.5},
		{"quorum:0.9", 3 * time.Millisecond, 2.5},
		{"fsp:30ms", 3 * time.Millisecond, 2.5},
	})
}

func tenThousand(t *testing.T, cases []tenThousandCase) {
	const n = 10000
	alg, _, err := workload.Open(workload.Spec{Algo: "lr", N: n, Dim: 4, LR: 0.01, Seed: 2}.WithDefaults())
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		t.Run(c.sync, func(t *testing.T) {
			e := harness.Experiment{Algorithm: alg, Sync: consistency.MustParse(c.sync), Workers: n, Batch: 1, Seed: 3,
				Duration: c.duration, EvalEvery: c.duration,
				Stragglers: harness.Stragglers{Kind: harness.Injected, Count: n / 100, Tau: time.Millisecond, Every: 1}}
			kept, err := harness.Run(context.Background(), e)
			if err != nil {
				t.Fatal(err)
			}
			for i, w := range kept.Workers {
				if w.Commits == 0 {
					t.Fatalf("worker %d never committed (%d versions)", i, kept.Versions)
				}
			}
			if kept.Iterations < c.minIter {
				t.Fatalf("%.2f commits per worker; want ≥ %g", kept.Iterations, c.minIter)
			}
			e.DiscardTrace = true
			got, err := harness.Run(context.Background(), e)
			if err != nil {
				t.Fatal(err)
			}
			kept.Trace = nil
			if !reflect.DeepEqual(got, kept) {
				t.Fatal("DiscardTrace changed the result")
			}
			t.Logf("%d versions, %.1f commits per worker", kept.Versions, kept.Iterations)
		})
	}
}
