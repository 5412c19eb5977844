package harness_test

import (
	"context"
	"errors"
	"math/rand/v2"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/syncmodels/syncmodels/algorithms"
	"github.com/syncmodels/syncmodels/algorithms/kmeans"
	"github.com/syncmodels/syncmodels/algorithms/optim"
	"github.com/syncmodels/syncmodels/algorithms/pmf"
	"github.com/syncmodels/syncmodels/consistency"
	"github.com/syncmodels/syncmodels/dataset"
	"github.com/syncmodels/syncmodels/harness"
)

func ratingsPMF(t testing.TB) algorithms.Algorithm {
	t.Helper()
	data := dataset.LowRankRatings(rand.New(rand.NewPCG(3, 3)), 300, 200, 4, 12000, 1)
	alg, err := pmf.New(data, pmf.Config{Rank: 4, Lambda: 0.02, Optim: optim.Config{Method: optim.Momentum, Momentum: 0.8, LR: 1}})
	if err != nil {
		t.Fatal(err)
	}
	return alg
}

// bspParameterSpace is an independent implementation of BSP in the
// parameter-space design ISP uses (MLLess §3): every worker computes its
// gradient on the global state g, its own optimizer (the workload's server)
// turns it into a change u, and g += Σ_w u in worker order.
func bspParameterSpace(t *testing.T, alg algorithms.Algorithm, theta0 []float64, workers, batch, rounds int) []float64 {
	t.Helper()
	parts, err := dataset.Shard(alg.NumPoints(), workers, nil)
	if err != nil {
		t.Fatal(err)
	}
	type wk struct {
		w      algorithms.Worker
		srv    *optim.Server
		cursor int
	}
	var ws []*wk
	for _, p := range parts {
		w, err := alg.NewWorker(p)
		if err != nil {
			t.Fatal(err)
		}
		s, err := alg.NewServer(theta0)
		if err != nil {
			t.Fatal(err)
		}
		ws = append(ws, &wk{w: w, srv: s.(*optim.Server)})
	}
	g := slices.Clone(theta0)
	points := 0
	l := alg.Layout()
	for range rounds {
		sum := algorithms.NewDelta(l)
		for _, w := range ws {
			d := algorithms.NewDelta(l)
			w.w.SetParams(g)
			for k := batch; k > 0; {
				hi := min(w.cursor+k, w.w.Len())
				w.w.Process(w.cursor, hi, d)
				k -= hi - w.cursor
				w.cursor = hi % w.w.Len()
			}
			if err := w.srv.SetParams(g, points); err != nil {
				t.Fatal(err)
			}
			if err := w.srv.Apply(d); err != nil {
				t.Fatal(err)
			}
			u := algorithms.NewDelta(l)
			u.Count = d.Count
			th := w.srv.Params()
			if !d.Sparse() {
				for i := range u.Vec {
					u.Vec[i] = th[i] - g[i]
				}
			} else {
				for _, b := range d.Blocks() {
					lo, hi := int(b)*l.Block, min(int(b+1)*l.Block, l.Delta)
					for i := lo; i < hi; i++ {
						u.Vec[i] = th[i] - g[i]
					}
					u.Touch(int(b))
				}
			}
			if err := sum.Merge(u); err != nil {
				t.Fatal(err)
			}
		}
		for i, v := range sum.Vec {
			g[i] += v
		}
		points += sum.Count
	}
	return g
}

// Corollary 1 (MLLess Appendix A): with v = 0 ISP is BSP. The harness's
// isp:0 run ends with exactly the parameters of an independent BSP loop in
// the same parameter-space design, bit for bit, on a dense (LR, Adam) and a
// sparse (PMF, momentum) workload; nothing is held.
func TestISPZeroIsBSP(t *testing.T) {
	for name, alg := range map[string]algorithms.Algorithm{"lr": logisticLR(t), "pmf": ratingsPMF(t)} {
		t.Run(name, func(t *testing.T) {
			const workers, batch, rounds = 4, 40, 25
			theta0, err := alg.Init(rand.New(rand.NewPCG(7, 7)))
			if err != nil {
				t.Fatal(err)
			}
			e := harness.Experiment{Algorithm: alg, Sync: consistency.MustParse("isp:0"), Workers: workers, Batch: batch,
				Theta0: theta0, Duration: time.Hour, Stop: harness.Stop{MaxIterations: rounds}}
			r, err := harness.Run(context.Background(), e)
			if err != nil {
				t.Fatal(err)
			}
			if r.Versions != rounds || r.Held != 0 {
				t.Fatalf("isp:0 ran %d versions, holds %g; want %d, 0", r.Versions, r.Held, rounds)
			}
			want := bspParameterSpace(t, alg, theta0, workers, batch, rounds)
			for i := range want {
				if r.Theta[i] != want[i] {
					t.Fatalf("θ[%d] = %v; BSP in parameter space gives %v", i, r.Theta[i], want[i])
				}
			}
			if slices.Equal(r.Theta, theta0) {
				t.Fatal("θ did not move")
			}
		})
	}
}

// ISP's filter sends fewer bytes than v = 0 (BytesSent counts the sparse
// encoding of what is sent), more is held as v grows, the trace passes the
// divergence check (Run checks it), and the same seed gives the same run.
// 60 ms is about 100 versions of each workload.
func TestISPBytesAndDeterminism(t *testing.T) {
	for name, alg := range map[string]algorithms.Algorithm{"lr": logisticLR(t), "pmf": ratingsPMF(t)} {
		t.Run(name, func(t *testing.T) {
			run := func(v string) *harness.Result {
				e := harness.Experiment{Algorithm: alg, Sync: consistency.MustParse(v), Workers: 4, Batch: 40, Seed: 3,
					Duration: 60 * time.Millisecond, EvalEvery: 60 * time.Millisecond}
				r, err := harness.Run(context.Background(), e)
				if err != nil {
					t.Fatal(err)
				}
				return r
			}
			r0, r1, r7 := run("isp:0"), run("isp:0.1"), run("isp:0.7")
			t.Logf("bytes per version: v=0 %d, v=0.1 %d, v=0.7 %d; held %g, %g",
				r0.BytesSent/int64(r0.Versions), r1.BytesSent/int64(r1.Versions), r7.BytesSent/int64(r7.Versions), r1.Held, r7.Held)
			if !(r7.BytesSent/int64(r7.Versions) < r0.BytesSent/int64(r0.Versions)) || !(r7.Held > 0) {
				t.Fatalf("isp:0.7 sends %d bytes in %d versions, holds %g; isp:0 %d in %d", r7.BytesSent, r7.Versions, r7.Held, r0.BytesSent, r0.Versions)
			}
			if !(0 < r1.Held && r1.Held < r7.Held) || r0.Held != 0 {
				t.Fatalf("held: v=0 %g, v=0.1 %g, v=0.7 %g; want 0 < v=0.1 < v=0.7", r0.Held, r1.Held, r7.Held)
			}
			held := 0
			for _, rec := range r7.Trace.Records {
				if rec.Kind == consistency.RecHeld && rec.Held.Worst >= 0 {
					held++
				}
			}
			if held == 0 {
				t.Fatal("isp:0.7 trace records no held entry")
			}
			again := run("isp:0.7")
			if !slices.Equal(again.Theta, r7.Theta) || again.BytesSent != r7.BytesSent || len(again.Trace.Records) != len(r7.Trace.Records) {
				t.Fatal("same seed, different isp:0.7 run")
			}
		})
	}
}

// ISP on the goroutine runtime: isp:0 ends with the parameters of the
// independent parameter-space BSP loop bit for bit, as on the virtual
// clock, and isp:0.7 over a link that drops and duplicates messages loses
// nothing (the ledger rules) and keeps the divergence bound (the workers'
// held reports are in the trace; Run checks it).
func TestISPRealClock(t *testing.T) {
	alg := logisticLR(t)
	theta0, err := alg.Init(rand.New(rand.NewPCG(7, 7)))
	if err != nil {
		t.Fatal(err)
	}
	synctest.Test(t, func(t *testing.T) {
		// A real worker processes a batch of 40 in 16-point Process calls
		// (it checks for interrupts between chunks); Process is
		// split-invariant, so it sums what the reference loop's one call
		// sums.
		const workers, batch, rounds = 4, 40, 25
		e := harness.Experiment{Algorithm: alg, Sync: consistency.MustParse("isp:0"), Workers: workers, Batch: batch,
			Theta0: theta0, Duration: time.Hour, Stop: harness.Stop{MaxIterations: rounds}, Clock: harness.Real,
			Network: delayed(100 * time.Microsecond)}
		r, err := harness.Run(context.Background(), e)
		if err != nil {
			t.Fatal(err)
		}
		want := bspParameterSpace(t, alg, theta0, workers, batch, rounds)
		if r.Versions != rounds || !slices.Equal(r.Theta, want) {
			t.Fatalf("real isp:0: %d versions, θ differs from BSP in parameter space", r.Versions)
		}
	})
	synctest.Test(t, func(t *testing.T) {
		e := harness.Experiment{Algorithm: alg, Sync: consistency.MustParse("isp:0.7"), Workers: 4, Batch: 40, Seed: 3,
			Duration: 500 * time.Millisecond, Clock: harness.Real,
			Network: lossy}
		r, err := harness.Run(context.Background(), e)
		if err != nil {
			t.Fatal(err)
		}
		held := 0
		for _, rec := range r.Trace.Records {
			if rec.Kind == consistency.RecHeld && rec.Held.Worst >= 0 {
				held++
			}
		}
		t.Logf("versions %d, held records %d, held mass %g", r.Versions, held, r.Held)
		if r.Versions < 10 || held == 0 || !(r.Held > 0) {
			t.Fatalf("versions %d, held records %d, held mass %g", r.Versions, held, r.Held)
		}
	})
}

// ISP is refused with a clear error for EM workloads (no optimizer to turn
// a statistics change into a parameter change; MLLess trains GD models).
func TestISPRefusals(t *testing.T) {
	pts := dataset.Blobs(rand.New(rand.NewPCG(1, 1)), 400, 2, 3, 1)
	km, err := kmeans.New(pts, kmeans.Config{K: 3})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range []harness.Experiment{
		{Algorithm: km, Sync: consistency.MustParse("isp:0.5"), Workers: 2},
		{Algorithm: km, Sync: consistency.MustParse("isp:0.5"), Workers: 2, Clock: harness.Real},
	} {
		if _, err := harness.Run(context.Background(), e); !errors.Is(err, harness.ErrConfig) {
			t.Errorf("%s on %v: %v; want ErrConfig", e.Algorithm.Name(), e.Clock, err)
		} else {
			t.Log(err)
		}
	}
}
