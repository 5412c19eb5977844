package harness_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/syncmodels/syncmodels/algorithms"
	"github.com/syncmodels/syncmodels/consistency"
	"github.com/syncmodels/syncmodels/harness"
	"github.com/syncmodels/syncmodels/transport"
	"github.com/syncmodels/syncmodels/transport/inproc"
)

func memberExp(alg algorithms.Algorithm, spec string) harness.Experiment {
	return harness.Experiment{Algorithm: alg, Sync: consistency.MustParse(spec), Workers: 4, Batch: 100, Seed: 3,
		Clock: harness.Real, Duration: 2 * time.Second, Retry: 5 * time.Millisecond, Lease: 100 * time.Millisecond}
}

// leaves returns the trace's leave records of worker w.
func leaves(tr *consistency.Trace, w consistency.WorkerID) []consistency.Record {
	var out []consistency.Record
	for _, r := range tr.Records {
		if r.Kind == consistency.RecLeave && r.Worker == w {
			out = append(out, r)
		}
	}
	return out
}

// A link that blackholes for less than the lease costs nothing; one that
// blackholes for longer makes the worker leave (the trace says the lease
// expired), the others go on without it, and it rejoins as its next
// incarnation once the link heals. BSP and quorum keep applying while it
// is out; every run passes the checker (harness.Run checks).
func TestBlackholeLease(t *testing.T) {
	km, lr := blobsKMeans(t, 1000), smallLR(t)
	for _, spec := range []string{"bsp", "quorum:3", "ssp:1", "asp", "fsp:20ms"} {
		algs := []algorithms.Algorithm{km} // per-point state: the harder rejoin
		if spec == "bsp" || spec == "asp" {
			algs = append(algs, lr)
		}
		for _, alg := range algs {
			for _, long := range []bool{false, true} {
				name := spec + "/" + alg.Name() + "/short"
				if long {
					name = spec + "/" + alg.Name() + "/long"
				}
				t.Run(name, func(t *testing.T) {
					synctest.Test(t, func(t *testing.T) { testBlackhole(t, alg, spec, long) })
				})
			}
		}
	}
}

func testBlackhole(t *testing.T, alg algorithms.Algorithm, spec string, long bool) {
	net, err := harness.NewBlackholeNet(alg.Layout())
	if err != nil {
		t.Fatal(err)
	}
	e := memberExp(alg, spec)
	e.Network = func(algorithms.Layout) (transport.Transport, error) { return net, nil }
	e.Duration = 600 * time.Millisecond
	outFor := 50 * time.Millisecond // half the lease
	if long {
		outFor = 300 * time.Millisecond // three leases
	}
	done := make(chan struct{})
	var res *harness.Result
	go func() {
		defer close(done)
		res, err = harness.Run(context.Background(), e)
	}()
	time.Sleep(150 * time.Millisecond)
	if long {
		net.HoleAtCommit(2) // it comes back with a commit in flight
	} else {
		net.Hole(2, true)
	}
	time.Sleep(outFor)
	net.Hole(2, false)
	<-done
	if err != nil {
		t.Fatal(err)
	}
	left := leaves(res.Trace, 2)
	if !long {
		if res.Expired != 0 || len(left) != 0 || res.Rejoins != 0 {
			t.Fatalf("a %v blackhole (lease %v): %d expired, %d leaves, %d rejoins; want none", outFor, e.Lease, res.Expired, len(left), res.Rejoins)
		}
		return
	}
	if res.Expired != 1 || len(left) != 1 || !strings.Contains(left[0].Reason, "lease expired") {
		t.Fatalf("a %v blackhole (lease %v): %d expired, leaves %v; want one, naming the lease", outFor, e.Lease, res.Expired, left)
	}
	// Detected within the lease and a few heartbeats of the hole opening.
	if at := left[0].At; at > 150*time.Millisecond+e.Lease+e.Lease/2 {
		t.Errorf("the leave came at %v; the hole opened at 150ms, lease %v", at, e.Lease)
	}
	if res.Rejoins != 1 || res.Rejected == 0 {
		t.Fatalf("%d rejoins, %d rejected messages; want the worker back as incarnation 2 after a refusal", res.Rejoins, res.Rejected)
	}
	// The others went on while worker 2 was out: applies between its
	// leave and its rejoin.
	var leftAt, joinAt time.Duration = left[0].At, -1
	for _, r := range res.Trace.Records {
		if r.Kind == consistency.RecJoin && r.Worker == 2 && r.At > leftAt {
			joinAt = r.At
			break
		}
	}
	if joinAt < 0 {
		t.Fatal("no rejoin record")
	}
	applies, commits2 := 0, 0
	for _, r := range res.Trace.Records {
		switch {
		case r.Kind == consistency.RecApply && r.At > leftAt && r.At < joinAt:
			applies++
		case r.Kind == consistency.RecCommit && r.Worker == 2 && r.At > joinAt:
			commits2++
		}
	}
	if applies < 3 || commits2 < 3 {
		t.Fatalf("%d applies while worker 2 was out, %d commits of worker 2 after it rejoined; want progress on both sides", applies, commits2)
	}
}

// Workers in other processes are RunWorker calls over endpoints of the
// coordinator's network; BSP over them equals BSP on goroutines bit for
// bit, and the joined trace passes the checker.
func TestRemoteWorkersMatchGoroutines(t *testing.T) {
	for _, alg := range []algorithms.Algorithm{blobsKMeans(t, 4000), logisticLR(t)} {
		synctest.Test(t, func(t *testing.T) {
			e := memberExp(alg, "bsp")
			e.Stop = harness.Stop{MaxIterations: 6}
			e.Duration = time.Hour
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
				t.Fatalf("%s: remote workers: %d versions, θ differs from the goroutine runtime's (%d versions)", alg.Name(), remote.Versions, local.Versions)
			}
			for i, r := range results {
				if r.err != nil {
					t.Fatalf("worker %d: %v", i, r.err)
				}
				if err := ledgerAgrees(remote.Trace, r.res.Recorder.Trace()); err != nil {
					t.Fatalf("worker %d's side: %v", i, err)
				}
				if got, want := remote.Workers[i].Commits, r.res.Stats.Commits; got != want {
					t.Errorf("worker %d: the coordinator counted %d commits, the worker %d", i, got, want)
				}
			}
		})
	}
}

// ledgerAgrees checks a remote worker's side of the trace against the
// coordinator's: every delta it sent was accepted by the coordinator or
// abandoned by the worker, and every delta it took as accepted was.
func ledgerAgrees(coord, worker *consistency.Trace) error {
	accepted := map[consistency.DeltaID]bool{}
	for _, r := range coord.Records {
		if r.Kind == consistency.RecCommit {
			accepted[consistency.DeltaID{Worker: r.Worker, Seq: r.Seq}] = true
		}
	}
	sent := map[consistency.DeltaID]bool{}
	for _, r := range worker.Records {
		id := consistency.DeltaID{Worker: r.Worker, Seq: r.Seq}
		switch r.Kind {
		case consistency.RecSend:
			sent[id] = true
		case consistency.RecAbandon:
			delete(sent, id)
		case consistency.RecConfirm:
			if !accepted[id] {
				return fmt.Errorf("%v confirmed, never accepted", id)
			}
		}
	}
	for id := range sent {
		if !accepted[id] {
			return fmt.Errorf("%v sent, neither accepted nor abandoned", id)
		}
	}
	if len(sent) == 0 {
		return errors.New("the worker sent nothing")
	}
	return nil
}

type workerRun struct {
	res *harness.WorkerResult
	err error
}

// runRemote runs e with Remote workers, each a RunWorker over an endpoint
// of tr opened once the coordinator's is; during, if set, runs beside
// them (it may start more workers).
func runRemote(t *testing.T, e harness.Experiment, tr transport.Transport, during func()) (*harness.Result, []workerRun) {
	t.Helper()
	ready := make(chan struct{})
	e.Remote = true
	e.Network = func(algorithms.Layout) (transport.Transport, error) { return &readyNet{tr, ready}, nil }
	results := make([]workerRun, e.Workers)
	var wg sync.WaitGroup
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	for i := range e.Workers {
		wg.Go(func() {
			<-ready
			ep, err := tr.Open(transport.NodeID(i))
			if err != nil {
				results[i].err = err
				return
			}
			defer ep.Close()
			results[i].res, results[i].err = harness.RunWorker(ctx, e, ep, harness.WorkerOptions{ID: i})
		})
	}
	if during != nil {
		wg.Go(during)
	}
	res, err := harness.Run(ctx, e)
	cancel()
	wg.Wait()
	if err != nil {
		t.Fatal(err)
	}
	return res, results
}

// readyNet closes ready once the coordinator's endpoint is open. Its
// Close leaves the network open: the test closes it.
type readyNet struct {
	transport.Transport
	ready chan struct{}
}

func (n *readyNet) Open(id transport.NodeID) (transport.Endpoint, error) {
	ep, err := n.Transport.Open(id)
	if id == transport.Coordinator && err == nil {
		close(n.ready)
	}
	return ep, err
}

// A restarted worker comes back as incarnation 2. A gradient worker has
// no per-point state: it rejoins and computes again. A K-means worker's
// statistics are in the server; a fresh one would count its points twice,
// so its rejoin is refused with an error that says so, and the run goes
// on without it.
func TestRestartedWorker(t *testing.T) {
	// A new process either passes the next incarnation after the old
	// one's lease ran out, or reuses the old incarnation before it did
	// (the coordinator then has it rejoin as the next: answering it as
	// the member would let a fresh K-means worker count its points
	// twice).
	for _, c := range []struct {
		inc   uint32
		after time.Duration // the restart, after the crash at 300 ms
	}{{2, 50 * time.Millisecond}, {1, 10 * time.Millisecond}} {
		for _, alg := range []algorithms.Algorithm{logisticLR(t), blobsKMeans(t, 4000)} {
			synctest.Test(t, func(t *testing.T) { testRestartedWorker(t, alg, c.inc, c.after) })
		}
	}
}

func testRestartedWorker(t *testing.T, alg algorithms.Algorithm, inc uint32, after time.Duration) {
	e := memberExp(alg, "bsp")
	e.Duration = 600 * time.Millisecond
	tr, err := inproc.New(inproc.Config{Layout: alg.Layout(), Seed: 1, Delay: 500 * time.Microsecond})
	if err != nil {
		t.Fatal(err)
	}
	// Worker 1 "crashes" at 300 ms (its endpoint closes, its goroutine
	// ends) and a new process starts after.
	e.Workers = 4
	var restart workerRun
	restarted := make(chan struct{})
	crash := &crashNet{Transport: tr, at: 300 * time.Millisecond, victim: 1}
	res, results := runRemote(t, e, crash, func() {
		defer close(restarted)
		time.Sleep(300*time.Millisecond + after)
		ep, err := tr.Open(1)
		if err != nil {
			restart.err = err
			return
		}
		defer ep.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		restart.res, restart.err = harness.RunWorker(ctx, e, ep, harness.WorkerOptions{ID: 1, Incarnation: inc})
	})
	<-restarted
	if !errors.Is(results[1].err, transport.ErrClosed) {
		t.Fatalf("the crashed worker ended with %v; want its endpoint closed", results[1].err)
	}
	if algorithms.HasState(mustWorker(t, alg)) {
		if restart.err == nil || !errors.Is(restart.err, harness.ErrRefused) || !strings.Contains(restart.err.Error(), "count twice") {
			t.Fatalf("a fresh %s worker (incarnation %d) rejoined: err = %v; want a refusal naming the double count", alg.Name(), inc, restart.err)
		}
		if res.Rejoins != 0 {
			t.Fatalf("%d rejoins; want 0", res.Rejoins)
		}
		return
	}
	if restart.err != nil {
		t.Fatalf("the restarted %s worker: %v", alg.Name(), restart.err)
	}
	if res.Rejoins != 1 || restart.res.Incarnation != 2 || restart.res.Stats.Commits < 3 {
		t.Fatalf("%d rejoins; the restarted worker (first incarnation %d) is incarnation %d with %d commits", res.Rejoins, inc, restart.res.Incarnation, restart.res.Stats.Commits)
	}
}

func mustWorker(t *testing.T, alg algorithms.Algorithm) algorithms.Worker {
	w, err := alg.NewWorker([]int{0})
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// crashNet closes the victim's first endpoint at a time after the
// network is made, as a crash of its process does.
type crashNet struct {
	transport.Transport
	at     time.Duration
	victim transport.NodeID
	once   sync.Once
}

func (n *crashNet) Open(id transport.NodeID) (transport.Endpoint, error) {
	ep, err := n.Transport.Open(id)
	if err != nil || id != n.victim {
		return ep, err
	}
	n.once.Do(func() { time.AfterFunc(n.at, func() { ep.Close() }) })
	return ep, nil
}
