package harness_test

import (
	"bytes"
	"context"
	"errors"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/syncmodels/syncmodels/algorithms"
	"github.com/syncmodels/syncmodels/algorithms/kmeans"
	"github.com/syncmodels/syncmodels/consistency"
	"github.com/syncmodels/syncmodels/dataset"
	"github.com/syncmodels/syncmodels/harness"
	"github.com/syncmodels/syncmodels/trainer"
	"github.com/syncmodels/syncmodels/transport"
)

func blobsKMeans(t testing.TB, n int) algorithms.Algorithm {
	t.Helper()
	return blobsKMeansOf(t, n, 8, 6)
}

// blobsKMeansOf is K-means with k clusters on n blobs of dimension dim
// around k centres.
func blobsKMeansOf(t testing.TB, n, dim, k int) algorithms.Algorithm {
	t.Helper()
	data := dataset.Blobs(rand.New(rand.NewPCG(1, 2)), n, dim, k, 4)
	alg, err := kmeans.New(data, kmeans.Config{K: k, Init: "random"})
	if err != nil {
		t.Fatal(err)
	}
	return alg
}

func smallExp(alg algorithms.Algorithm, spec string) harness.Experiment {
	return harness.Experiment{
		Algorithm: alg, Sync: consistency.MustParse(spec), Workers: 8, Batch: 100, Seed: 3,
		Stragglers: harness.Stragglers{Kind: harness.Injected, Count: 2, Tau: 8 * time.Millisecond, Every: 200},
		Duration:   200 * time.Millisecond,
	}
}

var allSpecs = []string{"bsp", "bsp:full", "ssp:0", "ssp:3", "asp", "quorum:0.75", "quorum:0.9", "quorum:3", "fsp:2ms", "fsp:2ms:semi"}

// Same seed ⇒ byte-identical trace and identical curve, for every model,
// on 100 ms runs (4 versions of bsp:full, tens to hundreds of the others;
// 11 curve points).
func TestVirtualDeterministic(t *testing.T) {
	alg := blobsKMeans(t, 4000)
	specs := append(slices.Clone(allSpecs), "fsp:3ms+migrate", "fsp:3ms:semi+migrate")
	for _, s := range specs {
		t.Run(s, func(t *testing.T) {
			var traces [2]bytes.Buffer
			var res [2]*harness.Result
			for i := range 2 {
				spec, migrate := strings.CutSuffix(s, "+migrate")
				e := smallExp(alg, spec)
				e.Duration, e.EvalEvery = 100*time.Millisecond, 10*time.Millisecond
				if migrate {
					e.Migrate = &harness.Migration{PointBytes: 64}
				}
				e.Parallel = 1 + i // evaluation parallelism must not matter
				r, err := harness.Run(context.Background(), e)
				if err != nil {
					t.Fatal(err)
				}
				res[i] = r
				if _, err := r.Trace.WriteTo(&traces[i]); err != nil {
					t.Fatal(err)
				}
			}
			if !bytes.Equal(traces[0].Bytes(), traces[1].Bytes()) {
				t.Fatal("same seed, different traces")
			}
			if len(res[0].Curve) != len(res[1].Curve) {
				t.Fatalf("curves of %d and %d points", len(res[0].Curve), len(res[1].Curve))
			}
			for i := range res[0].Curve {
				if res[0].Curve[i] != res[1].Curve[i] {
					t.Fatalf("curve point %d: %+v vs %+v", i, res[0].Curve[i], res[1].Curve[i])
				}
			}
			if res[0].BytesSent != res[1].BytesSent || res[0].Final != res[1].Final {
				t.Fatal("same seed, different results")
			}
			if m := res[0].Migration; m != nil && (m.Windows == 0 || !reflect.DeepEqual(m, res[1].Migration)) {
				t.Fatalf("migration: %d windows; same seed, different records: %v", m.Windows, !reflect.DeepEqual(m, res[1].Migration))
			}
			if traces[0].Len() == 0 || res[0].Versions == 0 {
				t.Fatal("empty run")
			}
		})
	}
}

// BSP in the simulator computes exactly what the single-process trainer
// computes: at every snapshot of version v, the objective equals the
// trainer's after v iterations, bit for bit.
func TestVirtualBSPMatchesTrainer(t *testing.T) {
	testBSPMatchesTrainer(t, harness.Virtual)
}

// The same holds on goroutines: BSP's result does not depend on timing.
func TestRealBSPMatchesTrainer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) { testBSPMatchesTrainer(t, harness.Real) })
}

func testBSPMatchesTrainer(t *testing.T, clock harness.Clock) {
	testBSPMatchesTrainerOn(t, blobsKMeans(t, 4000), clock)
	// LR: the goroutine runtime processes a batch of 100 in 16-point
	// chunks; Worker.Process is split-invariant, so the sums are the same.
	testBSPMatchesTrainerOn(t, logisticLR(t), clock)
}

func testBSPMatchesTrainerOn(t *testing.T, alg algorithms.Algorithm, clock harness.Clock) {
	for _, batch := range []int{0, 100} {
		e := smallExp(alg, "bsp")
		e.Batch = batch
		e.Clock = clock
		e.Network = delayed(200 * time.Microsecond)
		res, err := harness.Run(context.Background(), e)
		if err != nil {
			t.Fatal(err)
		}
		tr, err := trainer.Run(context.Background(), alg, trainer.Config{Workers: e.Workers, Iters: int(res.Versions), Batch: batch, Seed: e.Seed})
		if err != nil {
			t.Fatal(err)
		}
		checked := 0
		for _, p := range res.Curve {
			if p.Version == 0 || int(p.Version) == int(res.Versions) {
				continue // θ0, and the final flush may be a partial round
			}
			if got, want := p.Objective, tr.Objectives[p.Version-1]; got != want {
				t.Fatalf("batch %d version %d: objective %v; trainer %v", batch, p.Version, got, want)
			}
			checked++
		}
		if checked < 3 {
			t.Fatalf("batch %d: only %d snapshots compared (versions %d)", batch, checked, res.Versions)
		}
	}
}

// Stragglers cost BSP and not ASP: BSP's fast workers wait, ASP's do not,
// and ASP's fast workers traverse more of their data than its stragglers.
func TestVirtualStragglers(t *testing.T) {
	alg := blobsKMeans(t, 4000)
	run := func(spec string, kind harness.StragglerKind) *harness.Result {
		e := smallExp(alg, spec)
		e.Stragglers.Kind = kind
		r, err := harness.Run(context.Background(), e)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	bsp, asp := run("bsp", harness.Injected), run("asp", harness.Injected)
	clean := run("bsp", harness.NoStragglers)
	nat := run("bsp", harness.Natural)
	if !(bsp.WaitFraction > 3*asp.WaitFraction) {
		t.Errorf("wait fraction bsp %.3f, asp %.3f: stragglers should make BSP wait", bsp.WaitFraction, asp.WaitFraction)
	}
	if !(clean.Versions > bsp.Versions && clean.Versions > nat.Versions) {
		t.Errorf("BSP versions: clean %d, injected %d, natural %d", clean.Versions, bsp.Versions, nat.Versions)
	}
	var strag, fast []float64
	for _, w := range asp.Workers {
		if w.Straggler {
			strag = append(strag, w.Passes)
			if w.Paused == 0 {
				t.Errorf("straggler %+v never paused", w)
			}
		} else {
			fast = append(fast, w.Passes)
			if w.Paused != 0 {
				t.Errorf("fast worker %+v paused", w)
			}
		}
	}
	if len(strag) != 2 {
		t.Fatalf("%d stragglers; want 2", len(strag))
	}
	if fast[0] < 2*strag[0] {
		t.Errorf("ASP passes: fast %.2f, straggler %.2f", fast[0], strag[0])
	}
	for _, r := range []*harness.Result{bsp, asp, clean, nat} {
		if r.WaitFraction < 0 || r.WaitFraction > 1 {
			t.Errorf("%v: wait fraction %v", r.Sync, r.WaitFraction)
		}
	}
}

func TestTimeToTarget(t *testing.T) {
	alg := blobsKMeans(t, 4000)
	e := smallExp(alg, "bsp")
	r, err := harness.Run(context.Background(), e)
	if err != nil {
		t.Fatal(err)
	}
	mid := r.Curve[len(r.Curve)/2]
	e.Target, e.HasTarget = mid.Objective, true
	r2, err := harness.Run(context.Background(), e)
	if err != nil {
		t.Fatal(err)
	}
	if r2.TimeToTarget < 0 || r2.TimeToTarget > mid.T {
		t.Fatalf("time to target %v; the objective %v is reached at %v", r2.TimeToTarget, mid.Objective, mid.T)
	}
	if got := harness.TimeTo(r.Curve, -1, true); got != -1 {
		t.Fatalf("TimeTo(unreachable) = %v", got)
	}
}

func TestRunRejectsBadExperiments(t *testing.T) {
	alg := blobsKMeans(t, 400)
	bad := []func(*harness.Experiment){
		func(e *harness.Experiment) { e.Algorithm = nil },
		func(e *harness.Experiment) { e.Sync = consistency.Spec{} },
		func(e *harness.Experiment) { e.Workers = 401 },
		func(e *harness.Experiment) { e.Batch = -1 },
		func(e *harness.Experiment) { e.Stragglers.Count = 9 },
		func(e *harness.Experiment) { e.Stragglers.Workers = []int{8} },
		func(e *harness.Experiment) { e.Stragglers = harness.Stragglers{Kind: harness.Natural, Slowdown: 0.5} },
		func(e *harness.Experiment) { e.Cost.Bandwidth = -1 },
		func(e *harness.Experiment) { e.Theta0 = []float64{1} },
		func(e *harness.Experiment) { e.Clock = 7 },
		func(e *harness.Experiment) { e.Sync = consistency.MustParse("quorum:9") }, // 9 of 8 workers
		func(e *harness.Experiment) { e.Clock, e.Retry = harness.Real, -time.Millisecond },
		func(e *harness.Experiment) {
			e.Clock = harness.Real
			e.Network = func(algorithms.Layout) (transport.Transport, error) { return nil, errors.New("no network") }
		},
	}
	for i, mut := range bad {
		e := smallExp(alg, "bsp")
		mut(&e)
		if _, err := harness.Run(context.Background(), e); err == nil {
			t.Errorf("case %d: Run accepted %+v", i, e)
		} else if !errors.Is(err, harness.ErrConfig) {
			t.Errorf("case %d: error %v does not wrap ErrConfig", i, err)
		}
	}
}

func TestRunHonoursContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := harness.Run(ctx, smallExp(blobsKMeans(t, 4000), "asp")); !errors.Is(err, context.Canceled) {
		t.Fatalf("Run with a cancelled context = %v", err)
	}
}

// FSP keeps BSP's one version per round (Run checks it) while stragglers
// no longer hold the round for a full pass: fast workers wait far less
// than under full-batch BSP, and rounds are driven by the timer.
func TestVirtualFSP(t *testing.T) {
	alg := blobsKMeans(t, 4000)
	run := func(spec string) *harness.Result {
		e := smallExp(alg, spec)
		r, err := harness.Run(context.Background(), e)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	bspb, fsp := run("bsp:full"), run("fsp:2ms")
	if !(fsp.WaitFraction < bspb.WaitFraction/2) {
		t.Errorf("wait fraction: fsp %.3f, bsp:full %.3f", fsp.WaitFraction, bspb.WaitFraction)
	}
	if !(fsp.Versions > 2*bspb.Versions) {
		t.Errorf("versions: fsp %d, bsp:full %d", fsp.Versions, bspb.Versions)
	}
	// Interrupted batches are short: mean points per commit well below a pass.
	var pts, commits int64
	for _, w := range fsp.Workers {
		pts += w.Points
		commits += int64(w.Commits)
	}
	if per := float64(pts) / float64(commits); per > 400 {
		t.Errorf("fsp: %.0f points per commit; a pass is 500", per)
	}
	t.Logf("bsp:full versions %d wait %.3f final %.6g; fsp:2ms versions %d wait %.3f final %.6g",
		bspb.Versions, bspb.WaitFraction, bspb.Final, fsp.Versions, fsp.WaitFraction, fsp.Final)
}

// FSP's early trigger (§3.3): with an interval far longer than a pass, the
// first worker to complete its pass initiates the barrier, so every round
// ends after one fast worker's pass and the stragglers commit partial
// passes. Without the trigger each round would wait for every straggler's
// full pass, as full-batch BSP does. Both clocks.
func TestFSPEarlyTrigger(t *testing.T) {
	alg := blobsKMeans(t, 4000)
	for _, clock := range []harness.Clock{harness.Virtual, harness.Real} {
		t.Run(clock.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				e := smallExp(alg, "fsp:1h")
				e.Clock = clock
				if clock == harness.Real {
					// Links take (fake) time, so the rounds do too.
					e.Network = delayed(200 * time.Microsecond)
				}
				r, err := harness.Run(context.Background(), e)
				if err != nil {
					t.Fatal(err)
				}
				// A pass is 500 points (4000 over 8 workers). Count the
				// commits of full and partial passes.
				var fastFull, fast, slowPartial, slow int
				for _, rec := range r.Trace.Records {
					if rec.Kind != consistency.RecCommit {
						continue
					}
					if r.Workers[rec.Worker].Straggler {
						slow++
						if rec.Points < 500 {
							slowPartial++
						}
					} else {
						fast++
						if rec.Points == 500 {
							fastFull++
						}
					}
				}
				// Fast workers complete passes; the stragglers are cut short
				// (without the trigger no commit would be partial).
				if r.Versions < 3 || fastFull == 0 || 2*slowPartial < slow {
					t.Fatalf("versions %d; full passes in %d of %d fast commits, partial ones in %d of %d straggler commits",
						r.Versions, fastFull, fast, slowPartial, slow)
				}
				t.Logf("versions %d; full passes in %d of %d fast commits, partial ones in %d of %d straggler commits",
					r.Versions, fastFull, fast, slowPartial, slow)
			})
		})
	}
}

// Semi-centralized FSP (§5.2): the workers' local timers, set from the
// measured response delays, make the commits of a round arrive closer
// together than the coordinator's signal does, so fast workers wait less.
// With equal links both arrive together anyway; the stragglers here sit
// on congested links (1 ms extra each way).
func TestVirtualSemiCentralized(t *testing.T) {
	alg := blobsKMeans(t, 4000)
	run := func(spec string) *harness.Result {
		e := smallExp(alg, spec)
		e.Stragglers.Latency = time.Millisecond
		r, err := harness.Run(context.Background(), e)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	central, semi := run("fsp:4ms"), run("fsp:4ms:semi")
	t.Logf("central: versions %d wait %.3f; semi: versions %d wait %.3f", central.Versions, central.WaitFraction, semi.Versions, semi.WaitFraction)
	if !(semi.WaitFraction < central.WaitFraction) {
		t.Errorf("wait fraction: semi %.3f, central %.3f", semi.WaitFraction, central.WaitFraction)
	}
}

// An FSP signal can go out before the last releases of the round have
// reached their workers: with a large θ the broadcast outlasts a short
// interval. The link is FIFO, so such a worker receives its release, then
// the interrupt, and commits after its first point; it must not compute
// on to the end of its pass (a lost interrupt used to let it, and made
// every round as long as a straggler's full pass).
func TestVirtualInterruptBehindRelease(t *testing.T) {
	// θ of 16×512 entries: a release is ~64 kB, the broadcast to 16
	// workers ~0.84 ms at 10 Gbit/s, longer than η = 300 µs.
	alg := blobsKMeansOf(t, 16*1000, 512, 16)
	e := harness.Experiment{
		Algorithm: alg, Sync: consistency.MustParse("fsp:300us"), Workers: 16, Seed: 3,
		Duration: 50 * time.Millisecond, EvalEvery: 50 * time.Millisecond, // the curve is not checked
	}
	r, err := harness.Run(context.Background(), e)
	if err != nil {
		t.Fatal(err)
	}
	// A batch can last at most until its interrupt arrives: the whole
	// broadcast (~0.84 ms), η, the latencies and the apply, well under
	// 2 ms = 200 points. A pass is 1,000 points (10 ms).
	for i, w := range r.Workers {
		if w.Commits == 0 {
			t.Fatalf("worker %d never committed", i)
		}
		if per := float64(w.Points) / float64(w.Commits); per > 200 {
			t.Errorf("worker %d: %.0f points per commit; an interrupted batch is at most ~200", i, per)
		}
	}
	t.Logf("versions %d, wait %.3f, points per commit w0 %.0f, w15 %.0f", r.Versions, r.WaitFraction,
		float64(r.Workers[0].Points)/float64(r.Workers[0].Commits), float64(r.Workers[15].Points)/float64(r.Workers[15].Commits))
}
