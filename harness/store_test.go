package harness_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/syncmodels/syncmodels/algorithms"
	"github.com/syncmodels/syncmodels/consistency"
	"github.com/syncmodels/syncmodels/filter"
	"github.com/syncmodels/syncmodels/harness"
)

// Two BSP workers over the store, two rounds, computed by hand (closed
// form). k = 10 points per step at c = 10 µs, store RTT r = 1 ms, 1 byte
// per ns on the store link, signalling latency σ = 0.5 ms, S bytes per
// stored update (the dense encoding of LR's gradient), n entries per
// update, e = 2 ns per entry aggregated.
//
// Round 0: both release signals arrive at σ (nothing to fetch at θ0);
// both compute until σ + kc. Worker 0's PUT takes the link for S, reply r
// later; worker 1's PUT queues behind it and its announcement arrives last,
// at A1 = σ + kc + 2S + r + σ, when version 1 is applied. Round 1: the
// releases arrive at A1 + σ; worker 0 GETs worker 1's update (S + r),
// worker 1 GETs worker 0's, queued behind (2S + r); each aggregates n
// entries (ne) and computes (kc). Worker 0's PUT starts at its compute
// end, worker 1's queues behind it, and version 2 is applied when worker
// 1's announcement arrives: A2 = A1 + σ + S + r + ne + kc + 2S + r + σ =
// 4σ + 2kc + 5S + 3r + ne. The store carries 4 PUTs and 2 GETs of S bytes.
func TestIndirectClosedForm(t *testing.T) {
	alg := logisticLR(t)
	const k = 10
	const c, r, sigma, e = 10 * time.Microsecond, time.Millisecond, 500 * time.Microsecond, 2 * time.Nanosecond
	l := alg.Layout()
	full := algorithms.NewDelta(l)
	for i := range full.Vec {
		full.Vec[i] = 1
	}
	full.Count = k
	enc, err := filter.AppendDelta(nil, full, filter.Float64)
	if err != nil {
		t.Fatal(err)
	}
	S, n := time.Duration(len(enc)), time.Duration(l.Delta)
	want := 4*sigma + 2*k*c + 5*S + 3*r + n*e
	ex := harness.Experiment{Algorithm: alg, Sync: consistency.MustParse("bsp"), Workers: 2, Batch: k, Seed: 1,
		Duration: time.Hour, Stop: harness.Stop{MaxIterations: 2},
		Cost:     harness.CostModel{PointCost: c, EntryCost: e},
		Indirect: &harness.StoreModel{RTT: r, Bandwidth: 1e9, Signal: sigma}}
	res, err := harness.Run(context.Background(), ex)
	if err != nil {
		t.Fatal(err)
	}
	if res.Duration != want {
		t.Fatalf("two rounds took %v; closed form %v (S = %d bytes, n = %d)", res.Duration, want, S, n)
	}
	if st := res.Store; st == nil || st.Puts != 4 || st.Gets != 2 || st.Bytes != 6*int64(S) {
		t.Fatalf("store traffic %+v; want 4 PUTs, 2 GETs, %d bytes", res.Store, 6*S)
	}
}

// MLLess §6.4: over a store, SSP saves waiting but not bytes (a slow
// worker fetches every update it missed), while ISP saves bytes, GETs and
// time per round.
func TestIndirectSSPvsISP(t *testing.T) {
	alg := logisticLR(t)
	run := func(sync string) *harness.Result {
		e := harness.Experiment{Algorithm: alg, Sync: consistency.MustParse(sync), Workers: 6, Batch: 40, Seed: 4,
			Duration:   400 * time.Millisecond,
			Stragglers: harness.Stragglers{Kind: harness.Natural, Workers: []int{0}, Slowdown: 3},
			Indirect:   &harness.StoreModel{Bandwidth: 1e7}}
		r, err := harness.Run(context.Background(), e)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	bsp, ssp, isp := run("bsp"), run("ssp:3"), run("isp:0.7")
	perCommit := func(r *harness.Result) float64 {
		commits := 0
		for _, w := range r.Workers {
			commits += w.Commits
		}
		return float64(r.Store.Bytes) / float64(commits)
	}
	for _, r := range []*harness.Result{bsp, ssp, isp} {
		t.Logf("%v: versions %d, store %+v, bytes/commit %.0f, wait %.2f", r.Sync, r.Versions, *r.Store, perCommit(r), r.WaitFraction)
	}
	if b, s := perCommit(bsp), perCommit(ssp); s < 0.9*b {
		t.Errorf("SSP moves %.0f store bytes per commit, BSP %.0f: SSP should not save bytes", s, b)
	}
	if ssp.WaitFraction >= bsp.WaitFraction {
		t.Errorf("SSP waits %.2f, BSP %.2f: SSP should save waiting", ssp.WaitFraction, bsp.WaitFraction)
	}
	if b, i := perCommit(bsp), perCommit(isp); i > 0.8*b {
		t.Errorf("ISP moves %.0f store bytes per commit, BSP %.0f: ISP should save bytes", i, b)
	}
	if isp.Versions <= bsp.Versions {
		t.Errorf("ISP ran %d rounds, BSP %d: the bytes saved should be time saved", isp.Versions, bsp.Versions)
	}
}

func TestIndirectRefusals(t *testing.T) {
	alg := logisticLR(t)
	for _, e := range []harness.Experiment{
		{Algorithm: alg, Sync: consistency.MustParse("bsp"), Workers: 2, Clock: harness.Real, Indirect: &harness.StoreModel{}},
		{Algorithm: alg, Sync: consistency.MustParse("fsp"), Workers: 2, Indirect: &harness.StoreModel{}},
		{Algorithm: alg, Sync: consistency.MustParse("bsp"), Workers: 2, Indirect: &harness.StoreModel{RTT: -1}},
	} {
		if _, err := harness.Run(context.Background(), e); !errors.Is(err, harness.ErrConfig) {
			t.Errorf("%v %v %+v: %v; want ErrConfig", e.Sync, e.Clock, *e.Indirect, err)
		}
	}
}
