package cluster_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/syncmodels/syncmodels/arrival"
	"github.com/syncmodels/syncmodels/cluster"
	"github.com/syncmodels/syncmodels/consistency"
	"github.com/syncmodels/syncmodels/harness"
	"github.com/syncmodels/syncmodels/transport"
	"github.com/syncmodels/syncmodels/transport/grpcnet"
	"github.com/syncmodels/syncmodels/transport/grpcnet/jobtls"
	"github.com/syncmodels/syncmodels/workload"
)

// Worker processes of the tests are this test binary, run with
// workerEnv set: TestMain then runs one cluster.Worker and exits.
const workerEnv = "CLUSTER_TEST_WORKER"

func TestMain(m *testing.M) {
	if args := os.Getenv(workerEnv); args != "" {
		os.Exit(workerMain(strings.Fields(args)))
	}
	if args := os.Getenv(coordEnv); args != "" {
		os.Exit(coordMain(strings.Fields(args)))
	}
	os.Exit(m.Run())
}

// workerMain runs worker ID of incarnation INC against TARGET with the
// job TLS directory DIR: args are TARGET ID INC DIR.
func workerMain(args []string) int {
	id, _ := strconv.Atoi(args[1])
	inc, _ := strconv.Atoi(args[2])
	creds, err := jobtls.LoadWorker(args[3], transport.NodeID(id))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	w := &cluster.Worker{Target: args[0], ID: id, Incarnation: uint32(inc),
		Net: grpcnet.Config{TLS: creds.TLS, Token: creds.Token}, Wait: 20 * time.Second}
	if _, err := w.Run(context.Background()); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

var (
	lrSpec = workload.Spec{Algo: "lr", Data: "synthetic:logistic", N: 4000, Dim: 10, Seed: 1}
	kmSpec = workload.Spec{Algo: "kmeans", Data: "synthetic:blobs", N: 4000, Dim: 8, K: 6, Seed: 1}
)

// setup builds spec's workload and an experiment of it, a job TLS
// directory, and a listener on loopback.
func setup(t *testing.T, spec workload.Spec, sync string, workers int) (harness.Experiment, *cluster.Job, string, net.Listener) {
	t.Helper()
	spec = spec.WithDefaults()
	alg, data, err := workload.Open(spec)
	if err != nil {
		t.Fatal(err)
	}
	e := harness.Experiment{Algorithm: alg, Sync: consistency.MustParse(sync), Workers: workers, Batch: 100, Seed: 3,
		Clock: harness.Real, Duration: 600 * time.Millisecond, Retry: 10 * time.Millisecond, Lease: 300 * time.Millisecond,
		JoinTimeout: 20 * time.Second}
	if e.Sync.Kind == consistency.KGroup {
		// Streams of 2,000 points a second per worker: 20 batches of 100.
		e.Arrivals = &arrival.Spec{Rate: 2000}
	}
	job, err := cluster.NewJob(spec, e, data)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := jobtls.Create(dir, "test", workers, []string{"127.0.0.1"}); err != nil {
		t.Fatal(err)
	}
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return e, job, dir, lis
}

func serverNet(t *testing.T, dir string) grpcnet.Config {
	t.Helper()
	c, err := jobtls.LoadServer(dir)
	if err != nil {
		t.Fatal(err)
	}
	return grpcnet.Config{TLS: c.TLS, Token: c.Token}
}

// runInProcess runs the coordinator and its workers as goroutines of this
// process, talking gRPC over TCP loopback with mutual TLS and a token.
func runInProcess(t *testing.T, e harness.Experiment, job *cluster.Job, dir string, lis net.Listener) (*cluster.Report, error) {
	t.Helper()
	var wg sync.WaitGroup
	errs := make([]error, e.Workers)
	for i := range e.Workers {
		creds, err := jobtls.LoadWorker(dir, transport.NodeID(i))
		if err != nil {
			t.Fatal(err)
		}
		w := &cluster.Worker{Target: lis.Addr().String(), ID: i, Net: grpcnet.Config{TLS: creds.TLS, Token: creds.Token}, Wait: 20 * time.Second}
		wg.Go(func() { _, errs[i] = w.Run(context.Background()) })
	}
	rep, err := (&cluster.Coordinator{Experiment: e, Job: job, Net: serverNet(t, dir)}).Run(context.Background(), lis)
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("worker %d: %v", i, err)
		}
	}
	return rep, err
}

// leakCheck fails the test if goroutines started during it still run a
// few seconds after it ends: a coordinator or worker that outlives its
// run.
func leakCheck(t *testing.T) {
	before := runtime.NumGoroutine()
	t.Cleanup(func() {
		deadline := time.Now().Add(5 * time.Second)
		for runtime.NumGoroutine() > before {
			if time.Now().After(deadline) {
				buf := make([]byte, 1<<20)
				t.Errorf("%d goroutines after the test, %d before:\n%s", runtime.NumGoroutine(), before, buf[:runtime.Stack(buf, true)])
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
	})
}

// BSP over gRPC equals BSP on goroutines, bit for bit (which the
// harness's tests tie to the single-process trainer).
func TestGRPCMatchesGoroutines(t *testing.T) {
	for _, spec := range []workload.Spec{lrSpec, kmSpec} {
		t.Run(spec.Algo, func(t *testing.T) {
			leakCheck(t)
			e, job, dir, lis := setup(t, spec, "bsp", 4)
			e.Duration, e.Stop.MaxIterations = time.Minute, 8
			job.Duration, job.MaxIterations = cluster.Duration(e.Duration), 8
			local := e
			local.Remote = false
			want, err := harness.Run(context.Background(), local)
			if err != nil {
				t.Fatal(err)
			}
			rep, err := runInProcess(t, e, job, dir, lis)
			if err != nil {
				t.Fatal(err)
			}
			if rep.Versions != want.Versions || !slices.Equal(rep.Theta, want.Theta) {
				t.Fatalf("over gRPC: %d versions, θ differs from the goroutine runtime's (%d versions)", rep.Versions, want.Versions)
			}
		})
	}
}

// Every sync model runs over gRPC with the checker passing (Run checks);
// K-grouping's workers run their data streams from the job's Arrivals.
func TestEverySyncModelOverGRPC(t *testing.T) {
	for _, sync := range []string{"bsp", "ssp:1", "asp", "quorum:3", "fsp:20ms", "kgroup:4"} {
		t.Run(sync, func(t *testing.T) {
			leakCheck(t)
			e, job, dir, lis := setup(t, lrSpec, sync, 4)
			rep, err := runInProcess(t, e, job, dir, lis)
			if err != nil {
				t.Fatal(err)
			}
			if rep.Versions < 3 || rep.Refused.Total() != 0 || rep.Rejected != 0 {
				t.Fatalf("%d versions, %d streams refused, %d messages rejected", rep.Versions, rep.Refused.Total(), rep.Rejected)
			}
			if e.Arrivals != nil {
				// Every update grouped K = 4 of the batches announced
				// (Check), about N·λ·T/b = 48 of them.
				st, err := consistency.CheckStats(rep.Trace)
				if err != nil {
					t.Fatal(err)
				}
				var announced uint64
				for _, u := range st.Batches {
					announced += u.Announced
				}
				if announced < 24 || uint64(rep.Versions) > announced/4 || uint64(rep.Versions)+4 < announced/4 {
					t.Fatalf("%d batches announced, %d updates of 4", announced, rep.Versions)
				}
				t.Logf("%d batches announced, %d updates of 4", announced, rep.Versions)
			}
		})
	}
}

// A worker that does not reproduce the coordinator's shard refuses to
// take part, naming both hashes.
func TestShardHashMismatch(t *testing.T) {
	_, job, _, lis := setup(t, lrSpec, "bsp", 4)
	lis.Close()
	other := lrSpec.WithDefaults()
	other.Seed = 2 // other data
	alg, data, err := workload.Open(other)
	if err != nil {
		t.Fatal(err)
	}
	if err := job.CheckShard(alg, data, 1); err == nil || !strings.Contains(err.Error(), "holds shard") {
		t.Fatalf("CheckShard on other data: %v; want a refusal naming the shards", err)
	}
	alg, data, err = workload.Open(lrSpec.WithDefaults())
	if err != nil {
		t.Fatal(err)
	}
	if err := job.CheckShard(alg, data, 1); err != nil {
		t.Fatalf("CheckShard on the job's own data: %v", err)
	}
}

// local starts the job's workers as processes of this test binary.
func local(t *testing.T, target, dir string) *cluster.Local {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return &cluster.Local{Command: func(id int, inc uint32) *exec.Cmd {
		cmd := exec.Command(exe, "-test.run=^$")
		cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%s %d %d %s", workerEnv, target, id, inc, dir))
		return cmd
	}}
}

// Real processes on 127.0.0.1: worker 1 is killed with SIGKILL mid-run.
// Its lease expires and BSP and quorum go on without it; a new process
// (incarnation 2) rejoins. A gradient worker rejoins and computes again;
// a K-means worker's restart is refused (its points' statistics are in
// the server and would count twice), and the run goes on without it.
// Under K-grouping the new process resumes its data stream where the
// coordinator's count of its batches stood, and computes again. The
// coordinator's trace passes the checker in every case, so no delta (and
// no batch) was lost or applied twice.
func TestKillWorkerProcess(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	for _, c := range []struct {
		spec workload.Spec
		sync string
	}{{lrSpec, "bsp"}, {lrSpec, "quorum:3"}, {kmSpec, "bsp"}, {lrSpec, "kgroup:4"}} {
		t.Run(c.spec.Algo+"/"+c.sync, func(t *testing.T) {
			e, job, dir, lis := setup(t, c.spec, c.sync, 4)
			e.Duration = 2200 * time.Millisecond
			job.Duration = cluster.Duration(e.Duration)
			l := local(t, lis.Addr().String(), dir)
			for i := range e.Workers {
				if err := l.Start(i); err != nil {
					t.Fatal(err)
				}
			}
			// Kill worker 1 once the run is under way (by its own clock:
			// process start-up under -race may take a while), and start
			// its next incarnation two leases later.
			var once sync.Once
			var killErr error
			killed := make(chan struct{})
			e.Progress = func(p harness.Progress) {
				if p.Elapsed < p.Of/4 {
					return
				}
				once.Do(func() {
					go func() {
						defer close(killed)
						if killErr = l.Kill(1); killErr != nil {
							return
						}
						time.Sleep(2 * e.Lease)
						killErr = l.Start(1)
					}()
				})
			}
			rep, err := (&cluster.Coordinator{Experiment: e, Job: job, Net: serverNet(t, dir)}).Run(context.Background(), lis)
			<-killed
			exits := l.Wait(10 * time.Second)
			if err != nil {
				t.Fatal(err)
			}
			if killErr != nil {
				t.Fatal(killErr)
			}
			for id, err := range exits {
				if id != 1 && err != nil {
					t.Errorf("worker %d: %v\n%s", id, err, l.Output(id))
				}
			}
			var leave *consistency.Record
			for _, r := range rep.Trace.Records {
				if r.Kind == consistency.RecLeave && r.Worker == 1 {
					leave = &r
					break
				}
			}
			if leave == nil || !strings.Contains(leave.Reason, "lease expired") {
				t.Fatalf("no leave of worker 1 naming its lease: %v", leave)
			}
			// The others applied while worker 1 was gone.
			applies := 0
			for _, r := range rep.Trace.Records {
				if r.Kind == consistency.RecApply && r.At > leave.At && r.At < leave.At+300*time.Millisecond {
					applies++
				}
			}
			if applies == 0 {
				t.Fatalf("no apply in the 300 ms after worker 1's leave at %v", leave.At)
			}
			// Other workers may rejoin too if a loaded machine made them miss
			// a lease (alive, with their state): count worker 1's joins, and
			// its later leaves, each a lease the restarted process missed
			// under load, after which it rejoins once more.
			rejoined, missed := 0, 0
			for _, r := range rep.Trace.Records {
				switch {
				case r.Worker != 1 || r.At <= leave.At:
				case r.Kind == consistency.RecJoin:
					rejoined++
				case r.Kind == consistency.RecLeave && strings.Contains(r.Reason, "lease expired"):
					missed++
				}
			}
			if c.spec.Algo == "kmeans" {
				if rejoined != 0 || !strings.Contains(l.Output(1), "count twice") {
					t.Fatalf("worker 1 rejoined %d times; the restarted K-means worker said:\n%s", rejoined, l.Output(1))
				}
				return
			}
			if rejoined < 1 || rejoined > 1+missed || exits[1] != nil {
				t.Fatalf("worker 1 rejoined %d times (%d leases missed after its restart); the restarted worker ended with %v:\n%s", rejoined, missed, exits[1], l.Output(1))
			}
			if e.Arrivals != nil {
				// The new process resumed its stream at the coordinator's
				// count (Check: worker 1's batch numbers go on without a
				// gap or a repeat) and computed again.
				var before, after, readAfter int
				for _, r := range rep.Trace.Records {
					switch {
					case r.Worker != 1:
					case r.Kind == consistency.RecBatch && r.At < leave.At:
						before++
					case r.Kind == consistency.RecBatch:
						after++
					case r.Kind == consistency.RecRead && r.At > leave.At:
						readAfter++
					}
				}
				if before == 0 || after == 0 || readAfter == 0 {
					t.Fatalf("worker 1 announced %d batches before its leave and %d after, and was released %d times after", before, after, readAfter)
				}
				t.Logf("worker 1: %d batches before the kill, %d after its restart, %d releases after", before, after, readAfter)
			}
			t.Logf("%s: %d versions, leave at %v, %d applies in the next 300 ms, %d rejected messages", c.sync, rep.Versions, leave.At, applies, rep.Rejected)
		})
	}
}

// coordEnv makes this test binary a coordinator process: its value is
// JOBFILE JOURNAL ADDR TLSDIR OUT.
const coordEnv = "CLUSTER_TEST_COORD"

// coordResult is what a coordinator process writes to OUT.
type coordResult struct {
	Versions int       `json:"versions"`
	Resumed  int       `json:"resumed"`
	Expired  int       `json:"expired"`
	Theta    []float64 `json:"theta"`
}

func coordMain(args []string) int {
	fail := func(err error) int { fmt.Fprintln(os.Stderr, err); return 1 }
	b, err := os.ReadFile(args[0])
	if err != nil {
		return fail(err)
	}
	job := &cluster.Job{}
	if err := json.Unmarshal(b, job); err != nil {
		return fail(err)
	}
	alg, _, err := workload.Open(job.Workload)
	if err != nil {
		return fail(err)
	}
	e, err := job.Experiment(alg)
	if err != nil {
		return fail(err)
	}
	e.Journal = args[1]
	creds, err := jobtls.LoadServer(args[3])
	if err != nil {
		return fail(err)
	}
	lis, err := net.Listen("tcp", args[2])
	if err != nil {
		return fail(err)
	}
	rep, err := (&cluster.Coordinator{Experiment: e, Job: job, Net: grpcnet.Config{TLS: creds.TLS, Token: creds.Token}}).Run(context.Background(), lis)
	if err != nil {
		return fail(err)
	}
	out, err := json.Marshal(coordResult{Versions: int(rep.Versions), Resumed: rep.Resumed, Expired: rep.Expired, Theta: rep.Theta})
	if err != nil {
		return fail(err)
	}
	if err := os.WriteFile(args[4], out, 0o600); err != nil {
		return fail(err)
	}
	return 0
}

// The coordinator process is killed with SIGKILL mid-run and started
// again on its journal: the workers reconnect, the run resumes, and it
// ends with θ bit for bit as an uninterrupted run of the same seed under
// BSP, its joined trace passing the checker (the coordinator fails
// otherwise).
func TestKillCoordinatorProcess(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	k := newCoordKill(t, 400)
	k.run(t, []int64{20000})
}

// RELIABILITY.md's checklist item 5: the coordinator killed at seeded
// points of 50 runs, up to three times in a run, each at a journal size
// drawn from the seed (so at any record, mid-write included: what the
// killed process had not fsynced is lost, and so never acknowledged);
// every run resumes to the uninterrupted run's θ. A long check
// (SYNCMODELS_LONG=1).
func TestLongCoordinatorKills(t *testing.T) {
	if os.Getenv("SYNCMODELS_LONG") != "1" {
		t.Skip("a long check: run with SYNCMODELS_LONG=1")
	}
	k := newCoordKill(t, 400)
	kills := 0
	for seed := range uint64(50) {
		rng := rand.New(rand.NewPCG(seed, 0xc0de))
		var at []int64
		size := int64(2000)
		for range 1 + rng.IntN(3) {
			size += 1000 + rng.Int64N(40000)
			at = append(at, size)
		}
		kills += k.run(t, at)
	}
	t.Logf("50 runs, %d coordinator kills (SIGKILL), every run resumed to the uninterrupted θ", kills)
}

// coordKill runs a BSP job whose coordinator is a process of this test
// binary, with four in-process workers that outlive it.
type coordKill struct {
	e    harness.Experiment
	job  *cluster.Job
	dir  string
	addr string
	want *harness.Result
	exe  string
}

func newCoordKill(t *testing.T, rounds int) *coordKill {
	e, job, dir, lis := setup(t, lrSpec, "bsp", 4)
	addr := lis.Addr().String()
	lis.Close()
	e.Duration, e.Stop.MaxIterations = time.Minute, rounds
	job.Duration, job.MaxIterations = cluster.Duration(e.Duration), rounds
	// A lease that expires takes a worker out of a round, and θ then
	// differs from the uninterrupted run's for a reason of its own. θ
	// differed once under CI's load (-race, two packages at a time), with
	// setup's 300 ms lease, the one cause found; the failure now counts
	// the expired leases. Nobody dies here but the coordinator, whose
	// restart gives every worker max(Lease, JoinTimeout) to come back.
	e.Lease = 3 * time.Second
	job.Lease = cluster.Duration(e.Lease)
	local := e
	local.Remote = false
	want, err := harness.Run(context.Background(), local)
	if err != nil {
		t.Fatal(err)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return &coordKill{e: e, job: job, dir: dir, addr: addr, want: want, exe: exe}
}

// run runs the job, killing its coordinator process once the journal
// has grown past each size of killAt (ascending) and starting it again;
// it returns how many kills it carried out (a run that ends first needs
// no more).
func (k *coordKill) run(t *testing.T, killAt []int64) int {
	t.Helper()
	tmp := t.TempDir()
	jobFile, journal, out := filepath.Join(tmp, "job.json"), filepath.Join(tmp, "journal"), filepath.Join(tmp, "out.json")
	b, err := json.Marshal(k.job)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(jobFile, b, 0o600); err != nil {
		t.Fatal(err)
	}
	coordinator := func() (*exec.Cmd, *strings.Builder) {
		cmd := exec.Command(k.exe, "-test.run=^$")
		cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%s %s %s %s %s", coordEnv, jobFile, journal, k.addr, k.dir, out))
		var stderr strings.Builder
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		return cmd, &stderr
	}
	var wg sync.WaitGroup
	errs := make([]error, k.e.Workers)
	for i := range k.e.Workers {
		creds, err := jobtls.LoadWorker(k.dir, transport.NodeID(i))
		if err != nil {
			t.Fatal(err)
		}
		w := &cluster.Worker{Target: k.addr, ID: i, Net: grpcnet.Config{TLS: creds.TLS, Token: creds.Token},
			Wait: 20 * time.Second, Reconnect: 20 * time.Second}
		wg.Go(func() { _, errs[i] = w.Run(context.Background()) })
	}
	kills := 0
	cmd, stderr := coordinator()
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	for _, size := range killAt {
		deadline := time.Now().Add(20 * time.Second)
		ended := false
		for !ended {
			if info, err := os.Stat(journal); err == nil && info.Size() > size {
				break
			}
			select {
			case err := <-exited:
				exited <- err
				ended = true
			case <-time.After(2 * time.Millisecond):
			}
			if time.Now().After(deadline) {
				t.Fatalf("the coordinator's journal never reached %d bytes: %s", size, stderr)
			}
		}
		if ended {
			break // it finished before this kill
		}
		cmd.Process.Kill()
		<-exited
		kills++
		cmd, stderr = coordinator()
		go func() { exited <- cmd.Wait() }()
	}
	if err := <-exited; err != nil {
		t.Fatalf("the last coordinator: %v\n%s", err, stderr)
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("worker %d: %v", i, err)
		}
	}
	b, err = os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var got coordResult
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	// A coordinator killed while it still starts (its predecessor's
	// journal was already past the next size) resumes nothing itself.
	resumedOK := got.Resumed == 0 && kills == 0 || got.Resumed >= 1 && got.Resumed <= kills
	if !resumedOK || got.Versions != int(k.want.Versions) || !slices.Equal(got.Theta, k.want.Theta) {
		t.Fatalf("kills at %v: %d kills, resumed %d, %d versions (want %d), %d leases expired, θ equal to the uninterrupted run's: %v",
			killAt, kills, got.Resumed, got.Versions, k.want.Versions, got.Expired, slices.Equal(got.Theta, k.want.Theta))
	}
	return kills
}
