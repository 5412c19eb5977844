package harness

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/syncmodels/syncmodels/algorithms"
	"github.com/syncmodels/syncmodels/algorithms/kmeans"
	"github.com/syncmodels/syncmodels/algorithms/logreg"
	"github.com/syncmodels/syncmodels/algorithms/optim"
	"github.com/syncmodels/syncmodels/consistency"
	"github.com/syncmodels/syncmodels/dataset"
	"github.com/syncmodels/syncmodels/transport"
	"github.com/syncmodels/syncmodels/transport/inproc"
)

// The mutation tests: each switches on one plausible runtime bug that
// loses a delta between a worker and the coordinator (Experiment.bugs)
// and shows that consistency.Check itself — not an incidental threshold
// — catches it, with the loss as the first violation. The same scenario
// without the bug passes Check, so each test can fail both ways.

func mutationKMeans(t *testing.T) algorithms.Algorithm {
	t.Helper()
	data := dataset.Blobs(rand.New(rand.NewPCG(1, 2)), 2000, 8, 6, 4)
	alg, err := kmeans.New(data, kmeans.Config{K: 6, Init: "random"})
	if err != nil {
		t.Fatal(err)
	}
	return alg
}

// wantLost asserts that err is Check's verdict with a lost delta first.
func wantLost(t *testing.T, err error, detail string) {
	t.Helper()
	var ce *consistency.CheckError
	if !errors.As(err, &ce) {
		t.Fatalf("Run = %v; want a *consistency.CheckError", err)
	}
	first := ce.Violations[0]
	if first.Rule != consistency.RuleLost || !strings.Contains(first.Detail, detail) {
		t.Fatalf("first violation %v; want rule %q mentioning %q\n%v", first, consistency.RuleLost, detail, err)
	}
	t.Logf("caught: %v (%d violations)", first, ce.Total)
}

// Virtual time: a commit that reaches the coordinator while it is busy
// applying is dropped instead of queued. Nothing on the coordinator's
// side records it, so only the worker's RecSend shows it.
func TestCheckCatchesCommitDroppedWhileBusy(t *testing.T) {
	alg := mutationKMeans(t)
	for _, bug := range []bool{false, true} {
		e := Experiment{Algorithm: alg, Sync: consistency.MustParse("asp"), Workers: 4, Batch: 50, Seed: 3,
			Duration: 20 * time.Millisecond,
			// Applies take long enough that commits arrive while it is busy.
			Cost: CostModel{EntryCost: 200 * time.Nanosecond}}
		e.bugs.dropBusyCommit = bug
		_, err := Run(context.Background(), e)
		if !bug {
			if err != nil {
				t.Fatalf("without the bug: %v", err)
			}
			continue
		}
		wantLost(t, err, "never accepted it")
	}
}

// faultNet wraps an in-process network: the first transmission of worker
// 0's commit 2 is dropped; with staleAck, the coordinator's endpoint
// sends worker 0 a duplicate of its acknowledgement of commit 1 at that
// moment (a delayed duplicate, as a real network delivers).
type faultNet struct {
	transport.Transport
	staleAck bool
	mu       sync.Mutex
	coord    transport.Endpoint
	dropped  bool
}

func (f *faultNet) Open(id transport.NodeID) (transport.Endpoint, error) {
	ep, err := f.Transport.Open(id)
	if err != nil || id != 0 {
		if id == transport.Coordinator {
			f.mu.Lock()
			f.coord = ep
			f.mu.Unlock()
		}
		return ep, err
	}
	return &faultEndpoint{Endpoint: ep, f: f}, nil
}

type faultEndpoint struct {
	transport.Endpoint
	f *faultNet
}

func (e *faultEndpoint) Send(ctx context.Context, m *transport.Message) error {
	f := e.f
	f.mu.Lock()
	drop := m.Kind == transport.Commit && m.Seq == 2 && !f.dropped
	if drop {
		f.dropped = true
	}
	coord := f.coord
	f.mu.Unlock()
	if !drop {
		return e.Endpoint.Send(ctx, m)
	}
	if f.staleAck {
		return coord.Send(ctx, &transport.Message{Kind: transport.Ack, To: 0, Job: m.Job, Incarnation: m.Incarnation, Seq: 1, Clock: 0})
	}
	return nil
}

// realMutation runs a small BSP experiment on goroutines over faultNet
// with the given bug, and reports whether the drop happened.
func realMutation(t *testing.T, spec string, staleAck bool, bugs mutations) (*Result, error, bool) {
	t.Helper()
	var fn *faultNet
	e := Experiment{Algorithm: mutationKMeans(t), Sync: consistency.MustParse(spec), Workers: 4, Batch: 50, Seed: 3,
		Clock: Real, Duration: 100 * time.Millisecond, Retry: 2 * time.Millisecond,
		Network: func(l algorithms.Layout) (transport.Transport, error) {
			tr, err := inproc.New(inproc.Config{Layout: l, Seed: 1, Delay: 50 * time.Microsecond})
			fn = &faultNet{Transport: tr, staleAck: staleAck}
			return fn, err
		}}
	e.bugs = bugs
	res, err := Run(context.Background(), e)
	return res, err, fn != nil && fn.dropped
}

// Real clock: the link drops a commit and the worker never resends it.
// The run stalls (BSP waits for the lost delta); the coordinator's drain
// at the end does not receive it either, and the worker's RecSend has no
// matching commit.
func TestCheckCatchesCommitNeverResent(t *testing.T) {
	for _, bug := range []bool{false, true} {
		synctest.Test(t, func(t *testing.T) {
			res, err, dropped := realMutation(t, "bsp", false, mutations{noResend: bug})
			if !dropped {
				t.Fatal("the fault never fired")
			}
			if !bug {
				if err != nil {
					t.Fatalf("without the bug: %v", err)
				}
				if res.Versions < 3 {
					t.Fatalf("without the bug the run stalled at version %d", res.Versions)
				}
				return
			}
			wantLost(t, err, "w0#2")
		})
	}
}

// Real clock: worker 0's commit 2 is dropped and a stale duplicate of the
// acknowledgement of commit 1 arrives; a worker that takes any ack as
// confirmation stops resending commit 2. Its RecConfirm precedes any
// RecCommit of the delta.
func TestCheckCatchesStaleAck(t *testing.T) {
	for _, bug := range []bool{false, true} {
		synctest.Test(t, func(t *testing.T) {
			_, err, dropped := realMutation(t, "bsp", true, mutations{anyAck: bug})
			if !dropped {
				t.Fatal("the fault never fired")
			}
			if !bug {
				if err != nil {
					t.Fatalf("without the bug: %v", err)
				}
				return
			}
			wantLost(t, err, "had not accepted it")
		})
	}
}

// Real clock: the coordinator deduplicates on the highest sequence number
// of any worker, so the second worker's first commit looks like a
// duplicate; it is refused but acknowledged, and the worker confirms a
// delta that was never accepted.
func TestCheckCatchesRefusedCommitAcked(t *testing.T) {
	for _, bug := range []bool{false, true} {
		synctest.Test(t, func(t *testing.T) {
			_, err, _ := realMutation(t, "asp", false, mutations{globalDedup: bug})
			if !bug {
				if err != nil {
					t.Fatalf("without the bug: %v", err)
				}
				return
			}
			wantLost(t, err, "had not accepted it")
		})
	}
}

// diverged flags a curve that leaves DivergeFactor × its start, or turns
// non-finite, at its first such point; a curve that only wanders does not.
func TestDiverged(t *testing.T) {
	ms := time.Millisecond
	pts := func(fs ...float64) []Point {
		c := make([]Point, len(fs))
		for i, f := range fs {
			c[i] = Point{T: time.Duration(i) * ms, Objective: f}
		}
		return c
	}
	tests := []struct {
		curve []Point
		want  bool
		at    time.Duration
	}{
		{pts(0.69, 0.5, 3, 0.4), false, -1},
		{pts(0.69, 0.5, 1e6, 1e66), true, 3 * ms}, // 1e6 is the bound itself, 1e66 is past it
		{pts(0.69, math.NaN()), true, ms},
		{pts(-5, -4e6, -6e6), true, 2 * ms}, // bound 5e6: |−4e6| is within, |−6e6| is not
		{pts(2, math.Inf(1)), true, ms},
		{nil, false, -1},
	}
	for i, tc := range tests {
		got, at := diverged(tc.curve)
		if got != tc.want || at != tc.at {
			t.Errorf("case %d: diverged = %v at %v; want %v at %v", i, got, at, tc.want, tc.at)
		}
	}
}

// A run whose step size blows the objective up is flagged, not reported
// as healthy; the same run with a sane step is not.
func TestRunFlagsDivergence(t *testing.T) {
	data, _ := dataset.Logistic(rand.New(rand.NewPCG(5, 5)), 4000, 10)
	for _, lr := range []float64{0.1, 1e12} {
		alg, err := logreg.NewDense(data, logreg.Config{Optim: optim.Config{Method: optim.SGD, LR: lr}})
		if err != nil {
			t.Fatal(err)
		}
		res, err := Run(context.Background(), Experiment{Algorithm: alg, Sync: consistency.MustParse("bsp"), Workers: 4, Batch: 100,
			Seed: 1, Duration: 50 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		if want := lr > 1; res.Diverged != want {
			t.Errorf("lr %g: Diverged = %v (curve %v … %v); want %v", lr, res.Diverged, res.Curve[0].Objective, res.Final, want)
		}
	}
}

// partitionExp is a 600 ms BSP run of alg on 4 goroutine workers with a
// 100 ms lease, over a network whose links the test can blackhole.
func partitionExp(t *testing.T, alg algorithms.Algorithm) (Experiment, *BlackholeNet) {
	t.Helper()
	net, err := NewBlackholeNet(alg.Layout())
	if err != nil {
		t.Fatal(err)
	}
	return Experiment{Algorithm: alg, Sync: consistency.MustParse("bsp"), Workers: 4, Batch: 50, Seed: 3,
		Clock: Real, Duration: 600 * time.Millisecond, Retry: 5 * time.Millisecond, Lease: 100 * time.Millisecond,
		Network: func(algorithms.Layout) (transport.Transport, error) { return net, nil }}, net
}

// A worker rejoining after its lease expired learns from the join's
// answer whether its commit in flight was accepted. A worker that took it
// as accepted regardless would lose it: the checker sees a confirmation
// the coordinator never gave.
func TestCheckCatchesRejoinConfirm(t *testing.T) {
	for _, bug := range []bool{false, true} {
		synctest.Test(t, func(t *testing.T) {
			alg := mutationKMeans(t)
			e, net := partitionExp(t, alg)
			e.bugs.rejoinConfirms = bug
			done := make(chan struct{})
			var res *Result
			var err error
			go func() { defer close(done); res, err = Run(context.Background(), e) }()
			time.Sleep(150 * time.Millisecond)
			net.HoleAtCommit(2)
			time.Sleep(300 * time.Millisecond)
			net.Hole(2, false)
			<-done
			if !bug {
				if err != nil {
					t.Fatalf("without the bug: %v", err)
				}
				if res.Rejoins != 1 {
					t.Fatalf("without the bug: %d rejoins; the scenario needs one", res.Rejoins)
				}
				return
			}
			wantLost(t, err, "had not accepted it")
		})
	}
}

// realKept is Run on the real clock, keeping the run's state.
func realKept(t *testing.T, e Experiment) (*Result, *setupState, error) {
	t.Helper()
	if err := e.validate(); err != nil {
		t.Fatal(err)
	}
	st, err := setup(&e)
	if err != nil {
		t.Fatal(err)
	}
	res, err := runReal(context.Background(), &e, st)
	if err != nil {
		return nil, nil, err
	}
	if err := finish(context.Background(), &e, st, res); err != nil {
		t.Fatal(err)
	}
	return res, st, consistency.Check(res.Trace)
}

// A K-means worker cut off with a commit in flight rejoins; its commit
// was never accepted, so it restores its per-point state from before it.
// The server's statistics then equal the sum of every point's latest
// contribution; a worker that kept the state would have its points'
// contributions in the server disagree with what it remembers (and
// count the difference again when it reprocesses them). The checker
// cannot see this: no delta is lost or doubled, only the state diverges.
func TestRejoinRestoresEMState(t *testing.T) {
	for _, bug := range []bool{false, true} {
		synctest.Test(t, func(t *testing.T) {
			alg := mutationKMeans(t)
			e, net := partitionExp(t, alg)
			e.bugs.noRejoinRestore = bug
			go func() {
				// Early, while assignments still change from round to
				// round, so the lost commit's state differs.
				time.Sleep(5 * time.Millisecond)
				net.HoleAtCommit(2)
				time.Sleep(300 * time.Millisecond)
				net.Hole(2, false)
			}()
			res, st, err := realKept(t, e)
			if err != nil {
				t.Fatal(err)
			}
			if res.Rejoins != 1 {
				t.Fatalf("%d rejoins; the scenario needs one", res.Rejoins)
			}
			diff := statsMismatch(t, alg, st)
			switch {
			case !bug && diff != "":
				t.Fatalf("after the rejoin: %s", diff)
			case bug && diff == "":
				t.Fatal("a rejoined worker that kept the state of its lost commit went unnoticed")
			}
		})
	}
}
