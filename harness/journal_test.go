package harness_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/syncmodels/syncmodels/algorithms"
	"github.com/syncmodels/syncmodels/harness"
	"github.com/syncmodels/syncmodels/transport"
	"github.com/syncmodels/syncmodels/transport/inproc"
)

// survivingNet is a network that outlives its coordinator: the
// harness's Close closes only the coordinator's endpoint, so the remote
// workers keep theirs and a restarted coordinator opens a new one. crash,
// if set, is called with the number of commits the coordinator has
// received, and returns true to kill it.
type survivingNet struct {
	transport.Transport
	mu      sync.Mutex
	coord   transport.Endpoint
	commits atomic.Int64
	crash   func(n int64) bool
}

func (n *survivingNet) Open(id transport.NodeID) (transport.Endpoint, error) {
	ep, err := n.Transport.Open(id)
	if err != nil || id != transport.Coordinator {
		return ep, err
	}
	n.mu.Lock()
	n.coord = ep
	n.mu.Unlock()
	return &countingEndpoint{Endpoint: ep, n: n}, nil
}

func (n *survivingNet) Close() error {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.coord != nil {
		n.coord.Close()
	}
	return nil
}

type countingEndpoint struct {
	transport.Endpoint
	n *survivingNet
}

var errCrash = errors.New("the coordinator crashed")

func (e *countingEndpoint) Recv(ctx context.Context) (*transport.Message, error) {
	m, err := e.Endpoint.Recv(ctx)
	if err == nil && m.Kind == transport.Commit {
		if c := e.n.commits.Add(1); e.n.crash != nil && e.n.crash(c) {
			return nil, errCrash // as if the process died here
		}
	}
	return m, err
}

// A coordinator killed mid-run and started again on its journal resumes
// the job: the workers (other processes, here goroutines that outlive
// it) keep retransmitting, the new coordinator replays the journal and
// goes on, and the run ends with θ bit for bit as an uninterrupted run
// of the same seed under BSP; its joined trace passes the checker (Run
// checks), and a K-means run's statistics are not disturbed either.
func TestJournalResume(t *testing.T) {
	for _, alg := range []algorithms.Algorithm{logisticLR(t), blobsKMeans(t, 2000)} {
		for _, crashAt := range []int64{1, 7, 40} {
			synctest.Test(t, func(t *testing.T) { testJournalResume(t, alg, crashAt) })
		}
	}
}

func testJournalResume(t *testing.T, alg algorithms.Algorithm, crashAt int64) {
	e := memberExp(alg, "bsp")
	e.Duration, e.Stop.MaxIterations = time.Hour, 25
	want, err := harness.Run(context.Background(), e)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := inproc.New(inproc.Config{Layout: alg.Layout(), Seed: 1, Delay: 100 * time.Microsecond})
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	got, _ := crashAndResume(t, e, tr, crashAt)
	if got.Resumed != 1 || got.Versions != want.Versions || !slices.Equal(got.Theta, want.Theta) {
		t.Fatalf("%s, crash at commit %d: resumed %d, %d versions; θ equal to the uninterrupted run's (%d versions): %v",
			alg.Name(), crashAt, got.Resumed, got.Versions, want.Versions, slices.Equal(got.Theta, want.Theta))
	}
}

// crashAndResume runs e with remote workers (RunWorker goroutines over
// tr, which outlive the coordinator) and a journal: the coordinator dies
// at its crashAt-th commit, stays down for 50 ms while the workers
// retransmit into the void, and a new one resumes from the journal. It
// returns the resumed run's result and the workers' (failing the test on
// any worker's error).
func crashAndResume(t *testing.T, e harness.Experiment, tr transport.Transport, crashAt int64) (*harness.Result, []*harness.WorkerResult) {
	t.Helper()
	net := &survivingNet{Transport: tr}
	e.Remote, e.Journal = true, filepath.Join(t.TempDir(), "journal")
	e.Network = func(algorithms.Layout) (transport.Transport, error) { return net, nil }

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var wg sync.WaitGroup
	wres := make([]*harness.WorkerResult, e.Workers)
	werrs := make([]error, e.Workers)
	// The first coordinator opens its endpoint before the workers start.
	net.crash = func(n int64) bool { return n == crashAt }
	first := make(chan error, 1)
	go func() { _, err := harness.Run(ctx, e); first <- err }()
	time.Sleep(time.Millisecond)
	for i := range e.Workers {
		ep, err := tr.Open(transport.NodeID(i))
		if err != nil {
			t.Fatal(err)
		}
		wg.Go(func() {
			defer ep.Close()
			wres[i], werrs[i] = harness.RunWorker(ctx, e, ep, harness.WorkerOptions{ID: i})
		})
	}
	if err := <-first; !errors.Is(err, errCrash) {
		t.Fatalf("the first coordinator ended with %v; want the crash", err)
	}
	info, err := os.Stat(e.Journal)
	if err != nil || info.Size() == 0 {
		t.Fatalf("no journal after the crash: %v", err)
	}
	time.Sleep(50 * time.Millisecond) // down for a while: the workers retransmit into the void
	net.crash = nil
	got, err := harness.Run(ctx, e)
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	wg.Wait()
	for i, err := range werrs {
		if err != nil {
			t.Errorf("worker %d: %v", i, err)
		}
	}
	return got, wres
}

// BenchmarkJournalBSP measures what the journal costs a BSP round on
// goroutines (4 workers, LR): every commit is fsynced before its
// acknowledgement. Compare the two sub-benchmarks' ns/round in one run.
func BenchmarkJournalBSP(b *testing.B) {
	alg := smallLR(b)
	for _, journaled := range []bool{false, true} {
		name := "none"
		if journaled {
			name = "journal"
		}
		b.Run(name, func(b *testing.B) {
			e := memberExp(alg, "bsp")
			e.Duration, e.Stop.MaxIterations = time.Hour, 200
			var rounds int
			for b.Loop() {
				if journaled {
					e.Journal = filepath.Join(b.TempDir(), "journal")
				}
				r, err := harness.Run(context.Background(), e)
				if err != nil {
					b.Fatal(err)
				}
				rounds += int(r.Versions)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(rounds), "ns/round")
		})
	}
}
