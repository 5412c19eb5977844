package cluster_test

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/syncmodels/syncmodels/algorithms"
	"github.com/syncmodels/syncmodels/arrival"
	"github.com/syncmodels/syncmodels/cluster"
	"github.com/syncmodels/syncmodels/consistency"
	"github.com/syncmodels/syncmodels/harness"
	"github.com/syncmodels/syncmodels/preempt"
	"github.com/syncmodels/syncmodels/transport"
	"github.com/syncmodels/syncmodels/transport/grpcnet"
	"github.com/syncmodels/syncmodels/transport/grpcnet/jobtls"
	"github.com/syncmodels/syncmodels/workload"
)

// Worker processes of the campaign and the benchmarks are this test
// binary, run with procEnv set to "TARGET ID INC TLS WAIT": init runs one
// cluster.Worker, plaintext if TLS is "-" (else the job TLS directory),
// trying to reach the coordinator for WAIT, and exits.
const procEnv = "CLUSTER_TEST_PROC"

func init() {
	if args := os.Getenv(procEnv); args != "" {
		os.Exit(procMain(strings.Fields(args)))
	}
	if args := os.Getenv(echoEnv); args != "" {
		os.Exit(echoMain(strings.Fields(args)))
	}
}

func procMain(args []string) int {
	if len(args) != 5 {
		fmt.Fprintf(os.Stderr, "%s=%q: want TARGET ID INC TLS WAIT\n", procEnv, args)
		return 2
	}
	id, err1 := strconv.Atoi(args[1])
	inc, err2 := strconv.Atoi(args[2])
	wait, err3 := time.ParseDuration(args[4])
	if err1 != nil || err2 != nil || err3 != nil {
		fmt.Fprintf(os.Stderr, "%s=%q: bad ID, INC or WAIT\n", procEnv, args)
		return 2
	}
	cfg := grpcnet.Config{Plaintext: true}
	if args[3] != "-" {
		creds, err := jobtls.LoadWorker(args[3], transport.NodeID(id))
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		cfg = grpcnet.Config{TLS: creds.TLS, Token: creds.Token}
	}
	w := &cluster.Worker{Target: args[0], ID: id, Incarnation: uint32(inc), Net: cfg, Wait: wait}
	if _, err := w.Run(context.Background()); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// exit is how one worker incarnation ended.
type exit struct {
	id     int
	inc    uint32
	err    error
	killed bool
	out    string
}

// procs starts worker processes of this test binary against target (tls:
// a job TLS directory, or "-" for plaintext), each trying to reach the
// coordinator for wait; every incarnation's end, with what it wrote, is
// kept for exits.
type procs struct {
	*cluster.Local
	mu    sync.Mutex
	outs  map[[2]int]*strings.Builder
	exits []exit
}

func newProcs(t testing.TB, target, tls string, wait time.Duration) *procs {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	p := &procs{outs: map[[2]int]*strings.Builder{}}
	p.Local = &cluster.Local{
		Command: func(id int, inc uint32) *exec.Cmd {
			cmd := exec.Command(exe, "-test.run=^$")
			cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%s %d %d %s %v", procEnv, target, id, inc, tls, wait))
			out := &lockedWriter{mu: &p.mu, b: &strings.Builder{}}
			p.mu.Lock()
			p.outs[[2]int{id, int(inc)}] = out.b
			p.mu.Unlock()
			cmd.Stdout, cmd.Stderr = out, out
			return cmd
		},
		OnExit: func(id int, inc uint32, err error, killed bool) {
			p.mu.Lock()
			defer p.mu.Unlock()
			p.exits = append(p.exits, exit{id: id, inc: inc, err: err, killed: killed, out: p.outs[[2]int{id, int(inc)}].String()})
		},
	}
	return p
}

type lockedWriter struct {
	mu *sync.Mutex
	b  *strings.Builder
}

func (w *lockedWriter) Write(b []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(b)
}

// startAll starts workers 0 … n-1.
func (p *procs) startAll(t testing.TB, n int) {
	t.Helper()
	for i := range n {
		if err := p.Start(i); err != nil {
			t.Fatal(err)
		}
	}
}

// ended returns every incarnation's end so far (after Local.Wait: all).
func (p *procs) ended() []exit {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]exit(nil), p.exits...)
}

// ledger counts, from the coordinator's trace, the accepted commits
// never applied (lost) and the applies of a delta beyond its first or of
// one never accepted (twice): what consistency.Check's lost and
// applied-twice rules find, counted here independently of it.
func ledger(tr *consistency.Trace) (commits, lost, twice int) {
	accepted := map[consistency.DeltaID]bool{}
	applied := map[consistency.DeltaID]int{}
	for _, r := range tr.Records {
		switch r.Kind {
		case consistency.RecCommit:
			accepted[consistency.DeltaID{Worker: r.Worker, Seq: r.Seq}] = true
		case consistency.RecApply:
			for _, d := range r.Deltas {
				applied[d]++
			}
		}
	}
	for d := range accepted {
		if applied[d] == 0 {
			lost++
		}
	}
	for d, n := range applied {
		if !accepted[d] {
			twice += n
		} else {
			twice += n - 1
		}
	}
	return len(accepted), lost, twice
}

// preemptRun is one run of the fault campaign: spec under sync with
// worker processes that a Preempter kills and restarts on the schedule of
// cfg and seed.
type preemptRun struct {
	spec    workload.Spec
	sync    string
	workers int
	seed    uint64
	dur     time.Duration
	lease   time.Duration
	cfg     preempt.Config
	// replay: after killing a worker's incarnation k ≥ 2 that ran for
	// replayAfter, replay a commit of incarnation k − 1 on its stream.
	replay bool
	// arrivals, if set, streams the data (the sync model is kgroup:K).
	arrivals *arrival.Spec
}

// preemptOutcome is what one run survived.
type preemptOutcome struct {
	stats                      cluster.PreemptStats
	scheduled                  int // preemptions before the horizon, by the schedules
	versions                   consistency.Version
	commits, lost, twice       int
	rejoins, expired           int
	rejected, refused          int64
	refusedRestarts, lateExits int
	replayed                   int
	stateful                   bool
	trace                      *consistency.Trace
}

// runPreempted runs r and checks what must hold whatever the schedule:
// the coordinator's trace passes consistency.Check (Coordinator.Run
// returns its error otherwise), no accepted delta is lost or applied
// twice, every preemption of the schedule was carried out, and every
// worker process ended as it may: killed by the Preempter, stopped
// cleanly by the coordinator, refused as a restart that would count its
// points twice (K-means), or started too late to reach the run.
func runPreempted(t *testing.T, r preemptRun) preemptOutcome {
	t.Helper()
	spec := r.spec.WithDefaults()
	alg, data, err := workload.Open(spec)
	if err != nil {
		t.Fatal(err)
	}
	e := harness.Experiment{Algorithm: alg, Sync: consistency.MustParse(r.sync), Workers: r.workers, Batch: 100, Seed: r.seed,
		Clock: harness.Real, Duration: r.dur, Retry: 20 * time.Millisecond, Lease: r.lease, JoinTimeout: 30 * time.Second,
		Arrivals: r.arrivals}
	job, err := cluster.NewJob(spec, e, data)
	if err != nil {
		t.Fatal(err)
	}
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := newProcs(t, lis.Addr().String(), "-", 3*time.Second)
	p.startAll(t, r.workers)
	pre := &cluster.Preempter{Local: p.Local, Config: r.cfg, Seed: r.seed, Workers: r.workers, Horizon: r.dur}
	var (
		replayMu  sync.Mutex
		replayed  int
		replayErr error
		since     = make([]time.Time, r.workers) // when each worker's current process started
	)
	if r.replay {
		pre.OnTransition = func(ev cluster.PreemptEvent) {
			replayMu.Lock()
			defer replayMu.Unlock()
			switch {
			case ev.Transition.Available:
				since[ev.Worker] = time.Now()
			case ev.Killed && ev.Incarnation >= 2 && time.Since(since[ev.Worker]) >= replayAfter:
				err := replayOld(lis.Addr().String(), alg.Layout(), e.Seed, ev.Worker, ev.Incarnation-1, replaySeq+uint64(replayed))
				if err != nil {
					replayErr = cmpErr(replayErr, err)
					return
				}
				replayed++
			}
		}
	}
	scheds, err := pre.Schedules()
	if err != nil {
		t.Fatal(err)
	}
	var out preemptOutcome
	for _, ts := range scheds {
		_, n := preempt.Uptime(ts, r.dur)
		out.scheduled += n
	}
	// The run's clock starts when every worker has joined; the first
	// Progress report tells when that was.
	ctx, cancel := context.WithCancel(context.Background())
	var once sync.Once
	type result struct {
		st  cluster.PreemptStats
		err error
	}
	done := make(chan result, 1)
	e.Progress = func(pr harness.Progress) {
		once.Do(func() {
			origin := time.Now().Add(-pr.Elapsed)
			go func() {
				st, err := pre.Run(ctx, origin)
				done <- result{st, err}
			}()
		})
	}
	rep, runErr := (&cluster.Coordinator{Experiment: e, Job: job, Net: grpcnet.Config{Plaintext: true}}).Run(context.Background(), lis)
	cancel()
	var res result
	select {
	case res = <-done:
	default: // the run ended before its first progress report
	}
	p.Wait(5 * time.Second)
	if runErr != nil {
		t.Fatalf("seed %d: %v", r.seed, runErr)
	}
	if res.err != nil {
		t.Fatalf("seed %d: %v", r.seed, res.err)
	}
	if replayErr != nil {
		t.Fatalf("seed %d: %v", r.seed, replayErr)
	}
	out.replayed = replayed
	for _, rec := range rep.Trace.Records {
		if rec.Kind == consistency.RecCommit && rec.Seq >= replaySeq {
			t.Errorf("seed %d: a replayed commit of an old incarnation was accepted: %v", r.seed, rec)
		}
	}
	if rep.Rejected < int64(replayed) {
		t.Errorf("seed %d: %d commits of old incarnations replayed, %d messages rejected", r.seed, replayed, rep.Rejected)
	}
	out.stats = res.st
	out.trace = rep.Trace
	out.stateful = spec.Algo == "kmeans"
	out.versions = rep.Versions
	out.commits, out.lost, out.twice = ledger(rep.Trace)
	out.rejoins, out.expired, out.rejected, out.refused = rep.Rejoins, rep.Expired, rep.Rejected, rep.Refused.Total()
	if out.lost != 0 || out.twice != 0 {
		t.Errorf("seed %d: %d of %d accepted deltas lost, %d applied twice", r.seed, out.lost, out.commits, out.twice)
	}
	if res.st.Preemptions != out.scheduled {
		t.Errorf("seed %d: %d preemptions carried out; the schedules have %d before %v", r.seed, res.st.Preemptions, out.scheduled, r.dur)
	}
	for _, x := range p.ended() {
		switch {
		case x.killed, x.err == nil:
		case out.stateful && strings.Contains(x.out, "count twice"):
			out.refusedRestarts++
		case strings.Contains(x.out, "fetching the job"):
			out.lateExits++ // restarted after the coordinator had closed
		default:
			t.Errorf("seed %d: worker %d incarnation %d ended with %v:\n%s", r.seed, x.id, x.inc, x.err, x.out)
		}
	}
	return out
}

// Replays: a commit of a killed worker's previous incarnation, with a
// sequence number from replaySeq on that no worker reaches, sent on the
// worker's stream (opened by this process) right after the kill. The
// killed incarnation k must have joined, so that k − 1 is old: it ran
// for replayAfter, far longer than a join takes.
const (
	replaySeq   = 1 << 40
	replayAfter = 500 * time.Millisecond
)

// replayOld sends, as worker w's incarnation inc, a commit numbered seq
// to the coordinator at target, over a stream of its own.
func replayOld(target string, l algorithms.Layout, job uint64, w int, inc uint32, seq uint64) error {
	cli, err := grpcnet.Dial(target, grpcnet.Config{Plaintext: true, Layout: l})
	if err != nil {
		return err
	}
	defer cli.Close()
	var ep transport.Endpoint
	for deadline := time.Now().Add(2 * time.Second); ; {
		// The killed process's stream may not be detached yet.
		if ep, err = cli.Open(transport.NodeID(w)); err == nil || time.Now().After(deadline) {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	if err != nil {
		return fmt.Errorf("replaying as worker %d: %w", w, err)
	}
	d := algorithms.NewDelta(l)
	d.Vec[0] = 1
	err = ep.Send(context.Background(), &transport.Message{Kind: transport.Commit, To: transport.Coordinator, Job: job,
		Incarnation: inc, Seq: seq, Points: 1, Delta: d})
	ep.Close() // delivers what was sent before it returns
	return err
}

func cmpErr(a, b error) error {
	if a != nil {
		return a
	}
	return b
}

// A short run of the Preempter: 4 LR worker processes under BSP, killed
// (SIGKILL) and restarted on a seeded schedule; every scheduled
// preemption is carried out, killed workers rejoin as their next
// incarnation, and no accepted delta is lost or applied twice.
func TestPreempterKillsAndRestarts(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	r := preemptRun{spec: lrSpec, sync: "bsp", workers: 4, seed: 5, dur: 2 * time.Second, lease: 300 * time.Millisecond,
		cfg: preempt.Config{Alpha: 0.6, MeanCycle: time.Second, Step: 200 * time.Millisecond}}
	o := runPreempted(t, r)
	if o.scheduled < 2 || o.stats.Kills == 0 || o.rejoins == 0 {
		t.Fatalf("%d preemptions scheduled, %d kills, %d rejoins: want a schedule that kills (seed %d)", o.scheduled, o.stats.Kills, o.rejoins, r.seed)
	}
	t.Logf("%d kills of %d preemptions, %d restores, %d rejoins, %d leases expired, %d rejected, %d versions, %d deltas accepted, latest transition %v late",
		o.stats.Kills, o.stats.Preemptions, o.stats.Restores, o.rejoins, o.expired, o.rejected, o.versions, o.commits, o.stats.MaxLate)
}

// The Preempter under K-grouping: 4 LR worker processes with data
// streams (2,000 points a second each, batches of 100, K = 4), killed
// and restarted on a seeded schedule. Check passes on the coordinator's
// trace (no batch used twice, none skipped, every update 4 batches), and
// every worker that was killed and rejoined announced batches again
// after its rejoin: its new process resumed the stream at the
// coordinator's count (the numbers go on without a gap or a repeat,
// which Check verifies).
func TestPreempterKGroup(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	r := preemptRun{spec: lrSpec, sync: "kgroup:4", workers: 4, seed: 5, dur: 2 * time.Second, lease: 300 * time.Millisecond,
		cfg: preempt.Config{Alpha: 0.6, MeanCycle: time.Second, Step: 200 * time.Millisecond}, arrivals: &arrival.Spec{Rate: 2000}}
	o := runPreempted(t, r)
	if o.scheduled < 2 || o.stats.Kills == 0 || o.rejoins == 0 {
		t.Fatalf("%d preemptions scheduled, %d kills, %d rejoins: want a schedule that kills (seed %d)", o.scheduled, o.stats.Kills, o.rejoins, r.seed)
	}
	lastJoin := map[consistency.WorkerID]time.Duration{}
	announcedAfter := map[consistency.WorkerID]int{}
	for _, rec := range o.trace.Records {
		switch rec.Kind {
		case consistency.RecJoin:
			lastJoin[rec.Worker], announcedAfter[rec.Worker] = rec.At, 0
		case consistency.RecBatch:
			announcedAfter[rec.Worker]++
		}
	}
	for w, at := range lastJoin {
		if at < r.dur-300*time.Millisecond && announcedAfter[w] == 0 {
			t.Errorf("worker %d rejoined at %v and announced no batch after", w, at)
		}
	}
	t.Logf("%d kills of %d preemptions, %d restores, %d rejoins, %d leases expired, %d versions of 4 batches",
		o.stats.Kills, o.stats.Preemptions, o.stats.Restores, o.rejoins, o.expired, o.versions)
}

// Bad Preempter settings are refused naming the field.
func TestPreempterConfig(t *testing.T) {
	for _, c := range []struct {
		p    cluster.Preempter
		want string
	}{
		{cluster.Preempter{Workers: 2, Config: preempt.Config{Alpha: 1}}, "needs a Local"},
		{cluster.Preempter{Local: &cluster.Local{}, Config: preempt.Config{Alpha: 1}}, "Workers > 0"},
		{cluster.Preempter{Local: &cluster.Local{}, Workers: 2, Config: preempt.Config{Alpha: 1.5}}, "Config.Alpha"},
		{cluster.Preempter{Local: &cluster.Local{}, Workers: 2, Config: preempt.Config{Alpha: 1}, Horizon: -1}, "horizon"},
	} {
		if _, err := c.p.Run(context.Background(), time.Now()); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Run with %+v: %v; want an error naming %q", c.p, err, c.want)
		}
	}
}

// The fault campaign (a long check: SYNCMODELS_LONG=1; about two minutes
// without -race). Over 24 seeds, 6 worker processes per run are killed
// with SIGKILL and restarted on preempt.Schedule (α = 0.5, mean cycle
// 1.2 s, sampled every 300 ms: a worker is down about half the time, for
// 300 ms to a few seconds), under BSP, quorum and SSP with LR, whose
// restarted processes rejoin, BSP with K-means, whose restarts are
// refused once the coordinator holds their points' statistics (the run
// goes on without them), and K-grouping (K = 4) with LR over data
// streams of 2,000 points a second per worker, whose restarted processes
// resume their streams at the coordinator's count (Check: no batch lost,
// skipped or used twice). A preemption shorter than the 500 ms lease is
// replaced by the next incarnation's join; a longer one expires the lease
// first. After a kill, a commit of the killed worker's previous
// incarnation is replayed on its stream: refused, never applied. Every
// run passes consistency.Check, and no accepted delta is lost or applied
// twice.
func TestLongFaultCampaign(t *testing.T) {
	if os.Getenv("SYNCMODELS_LONG") != "1" {
		t.Skip("a long check: run with SYNCMODELS_LONG=1")
	}
	cases := []struct {
		spec     workload.Spec
		sync     string
		arrivals *arrival.Spec
	}{{lrSpec, "bsp", nil}, {lrSpec, "quorum:4", nil}, {lrSpec, "ssp:2", nil}, {kmSpec, "bsp", nil},
		{lrSpec, "kgroup:4", &arrival.Spec{Rate: 2000}}}
	cfg := preempt.Config{Alpha: 0.5, MeanCycle: 1200 * time.Millisecond, Step: 300 * time.Millisecond}
	var tot preemptOutcome
	runs := 0
	for seed := uint64(1); seed <= 24; seed++ {
		c := cases[int(seed-1)%len(cases)]
		name := fmt.Sprintf("%s/%s/seed=%d", c.spec.Algo, c.sync, seed)
		t.Run(name, func(t *testing.T) {
			// The first progress report, which starts the Preempter, comes
			// at Duration/10 = Step: no transition is due before it.
			o := runPreempted(t, preemptRun{spec: c.spec, sync: c.sync, workers: 6, seed: seed, dur: 3 * time.Second,
				lease: 500 * time.Millisecond, cfg: cfg, replay: true, arrivals: c.arrivals})
			t.Logf("%2d kills (%d preemptions), %2d restores, %2d rejoins, %2d refused restarts, %2d leases expired, %d old-incarnation commits replayed, %d rejected, %d versions, %d deltas accepted: %d lost, %d applied twice; latest transition %v late",
				o.stats.Kills, o.stats.Preemptions, o.stats.Restores, o.rejoins, o.refusedRestarts, o.expired, o.replayed, o.rejected+o.refused,
				o.versions, o.commits, o.lost, o.twice, o.stats.MaxLate.Round(time.Millisecond))
			if !o.stateful && o.stats.Kills > 0 && o.rejoins == 0 {
				t.Errorf("%d kills and no rejoin", o.stats.Kills)
			}
			runs++
			tot.stats.Kills += o.stats.Kills
			tot.stats.Preemptions += o.stats.Preemptions
			tot.stats.Restores += o.stats.Restores
			tot.stats.MaxLate = max(tot.stats.MaxLate, o.stats.MaxLate)
			tot.rejoins += o.rejoins
			tot.refusedRestarts += o.refusedRestarts
			tot.lateExits += o.lateExits
			tot.expired += o.expired
			tot.replayed += o.replayed
			tot.rejected += o.rejected + o.refused
			tot.commits += o.commits
			tot.lost += o.lost
			tot.twice += o.twice
		})
	}
	t.Logf("campaign: %d runs over %d seeds; %d worker processes killed (SIGKILL) of %d preemptions, %d restarted: %d rejoined, %d refused (K-means), %d too late for the run; %d leases expired; %d commits of old incarnations replayed, none accepted; %d messages rejected; %d deltas accepted: %d lost, %d applied twice; latest transition %v late",
		runs, 24, tot.stats.Kills, tot.stats.Preemptions, tot.stats.Restores, tot.rejoins, tot.refusedRestarts, tot.lateExits,
		tot.expired, tot.replayed, tot.rejected, tot.commits, tot.lost, tot.twice, tot.stats.MaxLate.Round(time.Millisecond))
	if runs == 24 && tot.stats.Kills < 200 {
		t.Errorf("%d kills over the campaign: want at least 200", tot.stats.Kills)
	}
}
