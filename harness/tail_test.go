package harness_test

import (
	"bytes"
	"context"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/syncmodels/syncmodels/consistency"
	"github.com/syncmodels/syncmodels/harness"
	"github.com/syncmodels/syncmodels/latency"
	"github.com/syncmodels/syncmodels/transport/inproc"
)

func mustDist(t testing.TB, spec string) latency.Dist {
	t.Helper()
	d, err := latency.Parse(spec)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// A Tail straggler's commit arrives its operation's delay late: for every
// commit, (accepted − sent) − Delay.Sample(Seed, worker, 2n+1) is the
// link's own time (the latency and a sub-µs transmission), and the
// empirical quantiles of the arrival delays are the closed-form quantiles
// of the distribution plus that latency. Every worker's time adds up:
// Busy + Wait + Delayed is the run's duration, less at most the batch
// it was computing at the end.
func TestTailCommitDelays(t *testing.T) {
	d := mustDist(t, "median=2ms,sigma=0.5,p=0.05,scale=20ms,alpha=1.5")
	e := harness.Experiment{Algorithm: blobsKMeans(t, 4000), Sync: consistency.MustParse("asp"), Workers: 8, Batch: 100, Seed: 9,
		Stragglers: harness.Stragglers{Kind: harness.Tail, Delay: d}, Duration: 5 * time.Second, EvalEvery: time.Second}
	res, err := harness.Run(context.Background(), e)
	if err != nil {
		t.Fatal(err)
	}
	lat := 100 * time.Microsecond // the cost model's default latency
	type id struct {
		w   consistency.WorkerID
		seq uint64
	}
	sent := map[id]time.Duration{}
	var delays []time.Duration
	for _, r := range res.Trace.Records {
		switch r.Kind {
		case consistency.RecSend:
			sent[id{r.Worker, r.Seq}] = r.At
		case consistency.RecCommit:
			at, ok := sent[id{r.Worker, r.Seq}]
			if !ok {
				t.Fatalf("commit %d of worker %d accepted, never sent", r.Seq, r.Worker)
			}
			x := r.At - at
			drawn := d.Sample(e.Seed, uint64(r.Worker), 2*(r.Seq-1)+1)
			if link := x - drawn; link < lat || link > lat+10*time.Microsecond {
				t.Fatalf("worker %d commit %d: arrived %v after it was sent, %v of it its drawn delay; want the rest in [%v, %v]",
					r.Worker, r.Seq, x, drawn, lat, lat+10*time.Microsecond)
			}
			delays = append(delays, x-lat)
		}
	}
	n := float64(len(delays))
	if n < 1000 {
		t.Fatalf("%d commits; want ≥ 1000", len(delays))
	}
	slices.Sort(delays)
	for _, q := range []float64{0.5, 0.9, 0.99} {
		x := d.Quantile(q)
		below, _ := slices.BinarySearch(delays, x)
		atMost, _ := slices.BinarySearch(delays, x+10*time.Microsecond)
		tol := 4 * math.Sqrt(q*(1-q)/n)
		if float64(below)/n > q+tol || float64(atMost)/n < q-tol {
			t.Errorf("q = %v: %.4f of the commits' delays are below the closed-form quantile %v and %.4f at most it (+10µs); want %v ± %.4f",
				q, float64(below)/n, x, float64(atMost)/n, q, tol)
		}
		t.Logf("p%v: commit delays %v (empirical, %d commits), %v (closed form)", 100*q, delays[int(q*n)], len(delays), x)
	}
	for i, w := range res.Workers {
		if !w.Straggler || w.Delayed == 0 {
			t.Errorf("worker %d: %+v; want every worker a Tail straggler with delays", i, w)
		}
		sum := w.Busy + w.Wait + w.Delayed
		if sum > res.Duration || sum < res.Duration-2*time.Millisecond {
			t.Errorf("worker %d: busy %v + wait %v + delayed %v = %v; want the run's %v, less at most its last batch",
				i, w.Busy, w.Wait, w.Delayed, sum, res.Duration)
		}
	}
}

// slsML's claim (§"Mitigating stragglers"): with many workers, a rare
// storage operation of seconds holds up a barrier, and waiting for a
// fraction of the workers (its counting semaphore, our quorum) does not.
// 16 workers run 1,000 versions with and without a Tail of 2 s and more
// (Pareto, α = 1.5) for one operation in 6,667: BSP takes several times
// longer, quorum:0.75 hardly any. The ratios are of virtual times.
func TestTailBSPSlowedQuorumNot(t *testing.T) {
	alg := blobsKMeans(t, 4000)
	d := mustDist(t, "p=1.5e-4,scale=2s,alpha=1.5")
	slowdown := func(sync string) float64 {
		var took [2]time.Duration
		var delayed time.Duration
		for i, tail := range []bool{false, true} {
			e := harness.Experiment{Algorithm: alg, Sync: consistency.MustParse(sync), Workers: 16, Batch: 100, Seed: 5,
				Duration: time.Hour, EvalEvery: time.Hour, Stop: harness.Stop{MaxIterations: 1000}}
			if tail {
				e.Stragglers = harness.Stragglers{Kind: harness.Tail, Delay: d}
			}
			res, err := harness.Run(context.Background(), e)
			if err != nil {
				t.Fatal(err)
			}
			if res.Versions != 1000 {
				t.Fatalf("%s: %d versions; want 1000", sync, res.Versions)
			}
			took[i] = res.Duration
			for _, w := range res.Workers {
				delayed += w.Delayed
			}
		}
		r := float64(took[1]) / float64(took[0])
		t.Logf("%s: 1000 versions in %v, with the tail %v (%.2f×); %v of delays", sync, took[0], took[1], r, delayed)
		// The distribution has no body: a delay is a tail draw, of 2 s or
		// more. A barrier waits all of it; a quorum run may end first.
		if delayed == 0 || sync == "bsp" && delayed < d.Scale {
			t.Fatalf("%s: delays %v in all; want at least one tail delay (≥ %v)", sync, delayed, d.Scale)
		}
		return r
	}
	bsp, quorum := slowdown("bsp"), slowdown("quorum:0.75")
	if bsp < 2 || quorum > 1.05 {
		t.Errorf("slowdown by the tail: bsp %.2f×, quorum:0.75 %.2f×; want bsp ≥ 2× and quorum ≤ 1.05×", bsp, quorum)
	}
}

// Same seed, same trace; Count limits the Tail stragglers.
func TestTailDeterministic(t *testing.T) {
	alg := blobsKMeans(t, 4000)
	run := func(seed uint64, count int) (*harness.Result, []byte) {
		e := smallExp(alg, "quorum:0.75")
		e.Seed = seed
		e.Stragglers = harness.Stragglers{Kind: harness.Tail, Count: count, Delay: mustDist(t, "median=1ms,sigma=1,p=0.01,scale=50ms,alpha=1.5")}
		res, err := harness.Run(context.Background(), e)
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if _, err := res.Trace.WriteTo(&b); err != nil {
			t.Fatal(err)
		}
		return res, b.Bytes()
	}
	_, a := run(3, 0)
	_, b := run(3, 0)
	_, c := run(4, 0)
	if !bytes.Equal(a, b) {
		t.Fatal("same seed, different traces")
	}
	if bytes.Equal(a, c) {
		t.Fatal("another seed, the same trace")
	}
	res, _ := run(3, 2)
	var strag int
	for i, w := range res.Workers {
		if w.Straggler {
			strag++
		}
		if w.Straggler != (w.Delayed > 0) {
			t.Errorf("worker %d: straggler %v, delayed %v", i, w.Straggler, w.Delayed)
		}
	}
	if strag != 2 {
		t.Errorf("%d Tail stragglers; want Count = 2", strag)
	}
}

// On goroutines (inside a synctest bubble, so the sleeps are exact) a Tail
// straggler sleeps each operation's delay: a worker that sent c commits
// slept the delays of their c releases and c commits, plus at most the
// next release's and commit's (cut short by the stop); the run passes the
// checker (Run checks it).
func TestTailReal(t *testing.T) {
	alg := blobsKMeans(t, 4000)
	for _, sync := range []string{"bsp", "asp"} {
		t.Run(sync, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				e := smallExp(alg, sync)
				e.Clock = harness.Real
				e.Network = delayed(time.Millisecond)
				d := mustDist(t, "median=2ms,sigma=0.5,p=0.02,scale=50ms,alpha=1.5")
				e.Stragglers = harness.Stragglers{Kind: harness.Tail, Delay: d}
				res, err := harness.Run(context.Background(), e)
				if err != nil {
					t.Fatal(err)
				}
				if res.Versions < 5 {
					t.Fatalf("%d versions", res.Versions)
				}
				for i, w := range res.Workers {
					op := func(n uint64) time.Duration { return min(d.Sample(e.Seed, uint64(i), n), e.Duration) }
					var lo time.Duration
					for n := range uint64(w.Commits) {
						lo += op(2*n) + op(2*n+1)
					}
					c := uint64(w.Commits)
					hi := lo + op(2*c) + op(2*c+1)
					if !w.Straggler || w.Delayed < lo || w.Delayed > hi {
						t.Errorf("worker %d (%d commits): delayed %v; want in [%v, %v]", i, w.Commits, w.Delayed, lo, hi)
					}
				}
				t.Logf("versions %d, wait %.2f, worker 0 %+v", res.Versions, res.WaitFraction, res.Workers[0])
			})
		})
	}
}

// Careless Tail settings are configuration errors naming the field.
func TestTailRejects(t *testing.T) {
	alg := blobsKMeans(t, 4000)
	for _, c := range []struct {
		s    harness.Stragglers
		want string
	}{
		{harness.Stragglers{Kind: harness.Injected, Delay: latency.Default()}, "Stragglers.Delay median=5ms,sigma=0.5,p=0.0001,scale=10s,alpha=1.5 needs Kind Tail"},
		{harness.Stragglers{Kind: harness.Tail, Delay: latency.Dist{P: 2, Scale: 1, Alpha: 1}}, "Stragglers.Delay: latency: Dist.P = 2"},
		{harness.Stragglers{Kind: harness.Tail, Count: 9}, "9 stragglers of 8 workers"},
		{harness.Stragglers{Kind: harness.Tail + 1}, "straggler kind 4"},
	} {
		e := smallExp(alg, "bsp")
		e.Stragglers = c.s
		_, err := harness.Run(context.Background(), e)
		if !errors.Is(err, harness.ErrConfig) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Stragglers %+v: %v; want ErrConfig containing %q", c.s, err, c.want)
		}
	}
	// The defaults: every worker, latency.Default().
	e := smallExp(alg, "asp")
	e.Stragglers = harness.Stragglers{Kind: harness.Tail}
	res, err := harness.Run(context.Background(), e)
	if err != nil {
		t.Fatal(err)
	}
	for i, w := range res.Workers {
		if !w.Straggler || w.Delayed == 0 {
			t.Errorf("worker %d: %+v; want a Tail straggler by default", i, w)
		}
	}
}

// Remote workers (RunWorker) draw the same delays as goroutine workers:
// BSP over them with Tail stragglers equals BSP on goroutines bit for
// bit, each worker reports its delays, and a delay longer than the Lease
// loses no lease (the worker heartbeats while it sleeps).
func TestTailRemote(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		alg := blobsKMeans(t, 4000)
		e := memberExp(alg, "bsp")
		e.Stop = harness.Stop{MaxIterations: 8}
		e.Duration = time.Hour
		d := mustDist(t, "median=2ms,sigma=0.5,p=0.1,scale=300ms,alpha=1.5")
		e.Stragglers = harness.Stragglers{Kind: harness.Tail, Delay: d}
		local, err := harness.Run(context.Background(), e)
		if err != nil {
			t.Fatal(err)
		}
		tr, err := inproc.New(inproc.Config{Layout: alg.Layout(), Seed: 1, Delay: 100 * time.Microsecond})
		if err != nil {
			t.Fatal(err)
		}
		remote, results := runRemote(t, e, tr, nil)
		if !slices.Equal(remote.Theta, local.Theta) || remote.Versions != local.Versions {
			t.Fatalf("remote workers: %d versions, θ differs from the goroutine runtime's (%d versions)", remote.Versions, local.Versions)
		}
		var long int
		for i, r := range results {
			if r.err != nil {
				t.Fatalf("worker %d: %v", i, r.err)
			}
			st := r.res.Stats
			var lo time.Duration
			for n := range uint64(st.Commits) {
				for _, op := range []uint64{2 * n, 2*n + 1} {
					x := d.Sample(e.Seed, uint64(i), op)
					lo += x
					if x > e.Lease {
						long++
					}
				}
			}
			if !st.Straggler || st.Delayed < lo {
				t.Errorf("worker %d (%d commits): delayed %v; want ≥ %v", i, st.Commits, st.Delayed, lo)
			}
			if r.res.Rejoins != 0 {
				t.Errorf("worker %d rejoined %d times: a delay cost its lease", i, r.res.Rejoins)
			}
		}
		if long == 0 {
			t.Fatalf("no delay longer than the lease %v: the test shows nothing about leases", e.Lease)
		}
		t.Logf("%d versions in %v, %d delays longer than the lease", remote.Versions, remote.Duration, long)
	})
}

// Tail stragglers combine with the simulator's other features: FSP's
// interrupts (a delayed release still arrives before its interrupt),
// semi-centralized FSP, indirect communication, preemptions (a delayed
// commit still arrives before the worker's preemption notice) and
// K-grouped streams. Each run passes the checker (Run checks it) and
// delays every worker, on both clocks (indirect communication is virtual
// only).
func TestTailWithOtherFeatures(t *testing.T) {
	alg := blobsKMeans(t, 4000)
	d := mustDist(t, "median=1ms,sigma=1,p=0.02,scale=30ms,alpha=1.5")
	for name, mk := range map[string]func() harness.Experiment{
		"fsp":      func() harness.Experiment { return smallExp(alg, "fsp:2ms") },
		"fsp semi": func() harness.Experiment { return smallExp(alg, "fsp:2ms:semi") },
		"indirect": func() harness.Experiment {
			e := smallExp(alg, "bsp")
			e.Indirect = &harness.StoreModel{RTT: time.Millisecond, Bandwidth: 2e6, Signal: time.Millisecond}
			return e
		},
		"preempt": func() harness.Experiment { return preemptExp(alg, "bsp", &aggressive) },
		"kgroup":  func() harness.Experiment { return streamExp(alg, 4) },
	} {
		for _, clock := range []harness.Clock{harness.Virtual, harness.Real} {
			if clock == harness.Real && name == "indirect" {
				continue // indirect communication is a virtual cost model
			}
			t.Run(name+"/"+clock.String(), func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					e := mk()
					e.Stragglers = harness.Stragglers{Kind: harness.Tail, Delay: d}
					e.Clock = clock
					if clock == harness.Real {
						e.Network = delayed(time.Millisecond)
					}
					res, err := harness.Run(context.Background(), e)
					if err != nil {
						t.Fatal(err)
					}
					for i, w := range res.Workers {
						if w.Delayed == 0 {
							t.Errorf("worker %d never delayed: %+v", i, w)
						}
					}
					t.Logf("versions %d, wait %.2f", res.Versions, res.WaitFraction)
				})
			})
		}
	}
}
