package main

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/syncmodels/syncmodels/harness"
)

// claim is a sentence a report wrote from contrived numbers, and what it
// must and must not say for them.
type claim struct {
	name      string
	got       string
	want, not []string
}

// checkClaims checks each claim. Every sentence of reproduce_claims.go is
// fed two sets of numbers where opposite things hold, so a wording that
// no longer follows its numbers fails here.
func checkClaims(t *testing.T, cs []claim) {
	t.Helper()
	for _, c := range cs {
		for _, w := range c.want {
			if !strings.Contains(c.got, w) {
				t.Errorf("%s: %q lacks %q", c.name, c.got, w)
			}
		}
		for _, w := range c.not {
			if strings.Contains(c.got, w) {
				t.Errorf("%s: %q has %q", c.name, c.got, w)
			}
		}
	}
}

func TestRelWord(t *testing.T) {
	for _, c := range []struct {
		x, ref float64
		want   string
	}{{1, 1.3, "below"}, {1.25, 1.3, "close to"}, {1.4, 1.3, "close to"}, {2, 1.3, "above"}} {
		if got := relWord(c.x, c.ref); got != c.want {
			t.Errorf("relWord(%g, %g) = %q; want %q", c.x, c.ref, got, c.want)
		}
	}
}

// The FSP report's sentences.
func TestFSPClaims(t *testing.T) {
	ms := time.Millisecond
	checkClaims(t, []claim{
		{"bspb below the paper", bspbSpeedupLine([]float64{1.5, 5}, []float64{2}),
			[]string{"with stragglers up to 5× (below the paper's 12×)", "without up to 2× (below the paper's 170×)"}, []string{"not below"}},
		{"bspb above the paper", bspbSpeedupLine([]float64{20}, []float64{300}),
			[]string{"up to 20× (not below the paper's 12×)", "up to 3e+02× (not below the paper's 170×)"}, nil},
		{"bspb none reached", bspbSpeedupLine(nil, nil), []string{"with stragglers, no case where both reached the target"}, []string{"below"}},

		{"bspv chose small batches", batchLine(map[int]int{32: 7, 16: 5, 1: 3}, 15, 6, 0.1),
			[]string{"batches of 1/32 of a shard in 7 of its 15 runs, 1/16 of a shard in 5, the full shard in 3", "6 runs of 10% of a run each (60% in all)"}, nil},
		{"bspv chose the full shard", batchLine(map[int]int{1: 15}, 15, 6, 0.1),
			[]string{"batches of the full shard in 15 of its 15 runs"}, []string{"1/32"}},

		{"fspv slower than the paper says", bspvSpeedLine([]float64{0.5, 0.8, 2}, []float64{0.5, 0.6, 1.2}, 32*ms, 4),
			[]string{"below the paper's figure, about 1.3×", "BSPV was the faster in 2", "FSPV was the faster in 1 of 3 cases"}, []string{"waiting at every barrier"}},
		{"fspv faster than the paper says", bspvSpeedLine([]float64{3, 5, 0.9}, []float64{2, 2.5}, 32*ms, 4),
			[]string{"above the paper's figure, about 1.3×", "BSPV was the faster in 0", "FSPV was the faster in 2 of 3 cases", "BSPV waiting at every barrier for the slowest worker (an Injected straggler's 32ms pauses, a Natural one's 4× slower points)"}, nil},
		{"fspv as the paper says", bspvSpeedLine(nil, []float64{1.3}, 32*ms, 4),
			[]string{"close to the paper's figure, about 1.3×", "with stragglers no case had both reach the target"}, nil},

		{"stages moved down", stageLine([]float64{0.6, 0.8, 0.7}), []string{"0.6–0.8× the one before", "shorter in 3 of 3 stage changes"}, nil},
		{"stages moved up", stageLine([]float64{1.4, 2, 1.2}), []string{"1.2–2× the one before", "shorter in 0 of 3 stage changes"}, nil},
		{"one stage", stageLine(nil), []string{"got past its first stage"}, nil},

		{"asp fastest on EM", aspLine(2, 9, 0, 6), []string{"fastest system in 2 of the 9", "tolerated that staleness", "in none of its 6 runs: its stale per-commit Adam steps stall"}, nil},
		{"asp never fastest", aspLine(0, 9, 3, 6), []string{"fastest system in none of the 9", "On LR it reached the target in 3 of its 6 runs."}, []string{"tolerated", "stall"}},

		{"nmf link-bound", nmfLine(16, 2.7, 10, 0.59, 0.98), []string{"NMF is bound by the coordinator's link", "2.7× the compute", "59–98%", "compare broadcasts more than barriers"}, nil},
		{"nmf not link-bound", nmfLine(16, 0.4, 10, 0.1, 0.3), []string{"**NMF's releases.**", "0.4× the compute"}, []string{"bound by", "broadcasts more"}},

		{"semi cost flat", semiCostLine(0.97, 1.02, nil, 100*time.Microsecond, 10*time.Microsecond, 4),
			[]string{"0.97–1.02: the cost per iteration hardly moves here", "(2 × 100 µs)", "4× slower: 40 µs"}, []string{"more than 10%"}},
		{"semi cost moved", semiCostLine(0.97, 1.41, []namedValue{{"NMF", 1.41}, {"K-means, Fashion-MNIST", 1.19}}, 100*time.Microsecond, 10*time.Microsecond, 4),
			[]string{"0.97–1.41, and moved by more than 10% for NMF 1.41; K-means, Fashion-MNIST 1.19"}, []string{"hardly moves"}},

		{"bursts shorter than a shard", burstLine(1000, 3000), []string{"bursts of 1000 points", "3000-point shards", "0.33 of a pass or more"}, nil},
		{"bursts longer than a shard", burstLine(1000, 62), []string{"62-point shards", "a whole pass or more"}, []string{"of a pass or more"}},

		{"spreads", spreadLine([]namedValue{{"K-means", 0.0001}, {"GMM", 0.03}}), []string{"K-means 0.01%; GMM 3%"}, nil},
	})
}

// The MLLess report's sentences.
func TestMLLessClaims(t *testing.T) {
	us, ms, s := time.Microsecond, time.Millisecond, time.Second
	exact := func(v float64) speedup { return speedup{v: v} }
	checkClaims(t, []claim{
		{"communication dominates", commLine(10*us, 1, ms, ms, 0.97, 0.07, exact(3.2)),
			[]string{"Communication dominates here", "waits 97% of the time", "0.07× its bytes", "speedup 3.2×", "almost all store traffic"}, nil},
		{"compute matters", commLine(10*us, 1, ms, ms, 0.3, 0.07, exact(3.2)),
			[]string{"**Communication and compute.**", "waits 30%"}, []string{"dominates", "almost all"}},
		{"isp slower", commLine(10*us, 1, ms, ms, 0.97, 0.3, exact(0.6)),
			[]string{"Communication dominates here", "speedup 0.6×"}, []string{"almost all store traffic"}},

		{"ssp gains nothing", sspLine(exact(1.02), 125, 116, 125, exact(3.1), exact(3.2)),
			[]string{"SSP gains nothing from its slack here** (1× over BSP)", "as busy as BSP (125 MB/s against 116 MB/s, of 125)", "presumably", "ISP's advantage over SSP (3.1×) is about its advantage over BSP (3.2×) here, above the paper's 1.4–1.9×"}, nil},
		{"ssp gains", sspLine(exact(1.6), 200, 100, 125, exact(1.5), exact(2.4)),
			[]string{"**SSP gains 1.6× over BSP here.**", "busier than BSP", "(1.5×) is unlike its advantage over BSP (2.4×) here, within the paper's"}, []string{"gains nothing", "presumably"}},
		{"ssp quieter", sspLine(speedup{v: 0.5, bound: -1}, 50, 100, 125, exact(1.1), exact(1.1)),
			[]string{"gains nothing", "less busy than BSP", "below the paper's 1.4–1.9×"}, nil},

		{"pool trend as the paper's", poolLine([]int{12, 24, 48}, []float64{1e6, 3e6, 7e6}, []string{"bsp+replicas", "isp:0.7"},
			[][]time.Duration{{s, 3 * s, -1}, {s, s, 2 * s}}),
			[]string{"(1.0 MB at 12, 3.0 MB at 24, 7.0 MB at 48 per round): the P(P − 1) GETs grow faster", "bsp+replicas 1.000 s → 3.000 s → not reached", "isp:0.7, whose updates are mostly empty, degraded least: the paper's Fig. 9 trend"}, []string{"unlike"}},
		{"pool trend unlike the paper's", poolLine([]int{12, 24}, []float64{3e6, 1e6}, []string{"bsp+replicas", "isp:0.7"},
			[][]time.Duration{{s, s}, {s, 4 * s}}),
			[]string{"bsp+replicas degraded least, unlike the paper's Fig. 9"}, []string{"grow faster", "the paper's Fig. 9 trend"}},

		{"dense lr requests", lrDenseLine(14, 120, ms, 30*us, "1.6×", 168, 66, 800*ms, 40, nil, 6),
			[]string{"14 parameters", "its store requests (11 GETs of 1 ms", "the messages per round fell from 168 to 66", "40 rounds, so the snapshot grid", "all 6 of its sweep runs reached the target"}, []string{"did not fall", "ended short"}},
		{"dense lr bytes", lrDenseLine(14, 1e6, ms, 90*ms, "0.9×", 60, 60, 8*s, 400, []float64{0.02, 0.1}, 6),
			[]string{"its bytes (90 ms) more than its store requests", "did not fall (60 against BSP's 60)", "400 rounds;", "2 of its 6 sweep runs ended short of the target, by 2%–10% of the improvement"}, []string{"fell from", "snapshot grid"}},

		{"sparse lr bytes, reverse order", lrSparseLine(500, 39, 10000, 40*ms, 11*ms, 0.2, exact(2.9), exact(1.6)),
			[]string{"up to 19500 feature updates over 10000 weights", "so bytes dominate", "cut them to 0.20×", "The paper found the reverse order"}, []string{"As in the paper"}},
		{"sparse lr requests, the paper's order", lrSparseLine(25, 39, 500, 4*ms, 11*ms, 1.2, exact(1.1), exact(1.6)),
			[]string{"yet its store requests cost a round more than its bytes", "left them at 1.20×", "As in the paper, ISP gained less here than on dense LR (1.6×)"}, []string{"reverse", "bytes dominate"}},

		{"tuner keeps evicting", tunerLine([]tunedRun{{name: "PMF 12", evictions: 11, decided: 12, negative: 10, evaluated: 11, reached: false}}, 0.01),
			[]string{"The auto-tuner keeps evicting", "S = 1%", "negative in 10 of the 11", "PMF 12: 11 of 12 decisions", "PMF 12 (11 evicted) did not reach it"}, []string{"still reached"}},
		{"tuner evicts little", tunerLine([]tunedRun{{name: "LR 12", evictions: 1, decided: 6, negative: 1, evaluated: 5, reached: true}}, 0.01),
			[]string{"The auto-tuner's evictions.", "every tuned run that evicted still reached the target"}, []string{"keeps evicting", "did not reach"}},
		{"tuner idle", tunerLine([]tunedRun{{name: "LR 12"}}, 0.01), []string{"took no decision"}, []string{"evicts"}},

		{"short runs", billingLine(3 * ms), []string{"3 ms at the shortest, are too short"}, nil},
		{"long runs", billingLine(20 * s), []string{"the bill is exact"}, []string{"too short"}},
	})
}

// TestBSPVBatchesFromRuns: the report reads BSPV's batch from each run
// (its name, bspv(b=N), as compare prints it), so the sentence follows
// what the pilots chose: the "affords batches of 1/32 of a shard"
// was printed whatever they chose.
func TestBSPVBatchesFromRuns(t *testing.T) {
	w := fspWorkloads(fspQuick, "")[3]
	if w.key != "lr" {
		t.Fatalf("workload 3 is %s; want lr", w.key)
	}
	d, _, err := w.load(1)
	if err != nil {
		t.Fatal(err)
	}
	report := func(batches ...int) string {
		c := &fspCase{w: w, d: d}
		for s, set := range fspSettings {
			cf, err := w.flagsFor(set, 1, fspSystems)
			if err != nil {
				t.Fatal(err)
			}
			if c.alg == nil {
				if c.alg, err = build(&cf.workloadFlags, d); err != nil {
					t.Fatal(err)
				}
			}
			c.flags = append(c.flags, cf)
			runs := make([]*harness.Result, len(fspSystems))
			for j, sys := range fspSystems {
				runs[j] = &harness.Result{Name: sys}
				if sys == "bspv" {
					runs[j].Name = fmt.Sprintf("bspv(b=%d)", batches[s])
				}
			}
			c.runs = append(c.runs, runs)
		}
		return (&fspReport{ran: []*fspCase{c}}).bspvBatches()
	}
	shard := 1000 / 16 // fspQuick's 1,000 points on 16 workers
	checkClaims(t, []claim{
		{"full shards", report(shard, shard, shard), []string{"batches of the full shard in 3 of its 3 runs"}, []string{"1/32"}},
		{"small batches", report(shard/32, shard/16, shard/32), []string{"batches of 1/32 of a shard in 2 of its 3 runs, 1/16 of a shard in 1"}, []string{"full shard"}},
	})
}
