package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/syncmodels/syncmodels/cluster"
	"github.com/syncmodels/syncmodels/harness"
	"github.com/syncmodels/syncmodels/transport"
	"github.com/syncmodels/syncmodels/transport/grpcnet"
	"github.com/syncmodels/syncmodels/transport/grpcnet/jobtls"
)

// The gRPC runtime's commands: `syncbench coordinator` (compare's runs
// with the workers in other processes), `syncbench worker` (one of them),
// `syncbench tls` (a job's CA, certificates and token), and compare's
// -clock grpc (a coordinator in process and worker processes it starts on
// loopback). The work is package cluster's; this file is flags.

// netFlags are the connection flags of the coordinator and its workers.
type netFlags struct {
	tlsDir    string
	plaintext bool
	lease     time.Duration
	join      time.Duration
	journal   string
	worker    bool // a worker's flags: no lease, join timeout or journal
}

func (n *netFlags) register(fs *flag.FlagSet, worker bool) {
	n.worker = worker
	fs.StringVar(&n.tlsDir, "tls-dir", "", "directory of the job's CA, certificates and token (syncbench tls); TLS 1.3 with client certificates")
	fs.BoolVar(&n.plaintext, "plaintext", false, "no TLS and no token: only over loopback addresses, for local tests")
	if !worker {
		fs.DurationVar(&n.lease, "lease", time.Second, "a worker silent this long leaves the run (its lease expires) and rejoins as its next incarnation")
		fs.DurationVar(&n.join, "join-timeout", time.Minute, "how long the coordinator waits for every worker to join")
		fs.StringVar(&n.journal, "journal", "", "directory of the coordinator's write-ahead journals, one per run: a coordinator restarted with the same flags resumes the runs where they stopped (after a crash or kill -9)")
	}
}

func (n *netFlags) check() error {
	switch {
	case n.tlsDir == "" && !n.plaintext:
		return errors.New("-tls-dir: give the job's TLS directory (syncbench tls -dir DIR creates one), or -plaintext for loopback only")
	case n.tlsDir != "" && n.plaintext:
		return errors.New("-plaintext with -tls-dir: choose one")
	case !n.worker && (n.lease <= 0 || n.join <= 0):
		return fmt.Errorf("-lease %v, -join-timeout %v: want positive durations", n.lease, n.join)
	}
	return nil
}

// server returns the coordinator's gRPC configuration.
func (n *netFlags) server() (grpcnet.Config, error) {
	if n.plaintext {
		return grpcnet.Config{Plaintext: true}, nil
	}
	c, err := jobtls.LoadServer(n.tlsDir)
	if err != nil {
		return grpcnet.Config{}, err
	}
	return grpcnet.Config{TLS: c.TLS, Token: c.Token}, nil
}

// client returns worker id's gRPC configuration.
func (n *netFlags) client(id int) (grpcnet.Config, error) {
	if n.plaintext {
		return grpcnet.Config{Plaintext: true}, nil
	}
	c, err := jobtls.LoadWorker(n.tlsDir, transport.NodeID(id))
	if err != nil {
		return grpcnet.Config{}, err
	}
	return grpcnet.Config{TLS: c.TLS, Token: c.Token}, nil
}

// grpcRuns runs compare's experiments as cluster coordinator runs on one
// address, one after another.
type grpcRuns struct {
	f   *compareFlags
	cfg grpcnet.Config
	lis net.Listener // the first run's; later runs listen again on addr
	// addr is where the coordinator listens.
	addr string
	// local starts and stops the worker processes of compare -clock grpc;
	// nil for syncbench coordinator.
	local *cluster.Local
	// refused is what each run's server refused.
	refused []grpcnet.Rejections
	// statsDir (compareFlags.workerStats) holds the worker processes'
	// -stats files, worker-ID.jsonl; "" if none.
	statsDir string
	// cmds are the worker processes' commands, the latest per ID.
	mu   sync.Mutex
	cmds map[int]*exec.Cmd
}

// runs is how many runs the worker processes serve.
func (g *grpcRuns) runs() int {
	if g.f.grpcRunCount > 0 {
		return g.f.grpcRunCount
	}
	return len(g.f.plans)
}

// pids are the worker processes' process IDs (spawned ones only).
func (g *grpcRuns) pids() []int {
	g.mu.Lock()
	defer g.mu.Unlock()
	var out []int
	for id := range g.f.workers {
		if c := g.cmds[id]; c != nil && c.Process != nil {
			out = append(out, c.Process.Pid)
		}
	}
	return out
}

// workerStats returns what each worker process wrote of run (syncbench
// worker -stats), waiting up to timeout for the lines: a worker writes
// its line once its run ended, which the coordinator's may precede.
func (g *grpcRuns) workerStats(run int, timeout time.Duration) ([]workerStats, error) {
	if g.statsDir == "" {
		return nil, errors.New("the worker processes write no -stats")
	}
	out := make([]workerStats, g.f.workers)
	deadline := time.Now().Add(timeout)
	for id := range g.f.workers {
		path := filepath.Join(g.statsDir, fmt.Sprintf("worker-%d.jsonl", id))
		for {
			found := false
			if b, err := os.ReadFile(path); err == nil {
				for line := range strings.SplitSeq(string(b), "\n") {
					var ws workerStats
					if json.Unmarshal([]byte(line), &ws) == nil && ws.Run == run {
						out[id], found = ws, true
					}
				}
			}
			if found {
				break
			}
			if time.Now().After(deadline) {
				return nil, fmt.Errorf("worker process %d wrote nothing of run %d in %v", id, run, timeout)
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	return out, nil
}

// setupGRPC prepares compare's gRPC runs: the listener, the security, and
// for -clock grpc a job TLS directory and the worker processes.
//
// A worker process that fails (exits with an error it was not killed
// for) cancels the comparison through cancel, naming it.
func (f *compareFlags) setupGRPC(stderr io.Writer, name string, cancel context.CancelCauseFunc) (cleanup func(), err error) {
	g := &grpcRuns{f: f}
	cleanup = func() {}
	lis, err := net.Listen("tcp", f.listen)
	if err != nil {
		return cleanup, fmt.Errorf("-listen %s: %w", f.listen, err)
	}
	g.lis, g.addr = lis, lis.Addr().String()
	if f.spawn {
		dir, err := os.MkdirTemp("", "syncbench-job-")
		if err != nil {
			lis.Close()
			return cleanup, err
		}
		cleanup = func() { os.RemoveAll(dir) }
		if err := jobtls.Create(dir, "syncbench-"+strconv.FormatUint(f.seed, 10), f.workers, []string{"127.0.0.1", "localhost"}); err != nil {
			lis.Close()
			return cleanup, err
		}
		f.net.tlsDir = dir
	}
	if g.cfg, err = f.net.server(); err != nil {
		lis.Close()
		return cleanup, err
	}
	if f.spawn {
		exe, err := os.Executable()
		if err != nil {
			lis.Close()
			return cleanup, err
		}
		dir := f.net.tlsDir
		if f.workerStats {
			g.statsDir = dir
		}
		g.cmds = map[int]*exec.Cmd{}
		g.local = &cluster.Local{Command: func(id int, inc uint32) *exec.Cmd {
			args := []string{"worker", "-coordinator", g.addr, "-id", strconv.Itoa(id),
				"-incarnation", strconv.FormatUint(uint64(inc), 10), "-tls-dir", dir}
			if g.statsDir != "" {
				args = append(args, "-stats", filepath.Join(g.statsDir, fmt.Sprintf("worker-%d.jsonl", id)))
			}
			cmd := exec.Command(exe, args...)
			cmd.Env = append(os.Environ(), mainEnv+"=1")
			g.mu.Lock()
			g.cmds[id] = cmd
			g.mu.Unlock()
			return cmd
		}}
		g.local.OnExit = func(id int, inc uint32, err error, killed bool) {
			var ee *exec.ExitError
			if errors.As(err, &ee) && ee.ExitCode() == exitRefused {
				return // refused by the coordinator: the run goes on without it
			}
			if err != nil && !killed {
				cancel(fmt.Errorf("worker process %d (incarnation %d) failed: %v: %s", id, inc, err, strings.TrimSpace(g.local.Output(id))))
			}
		}
		for i := range f.workers {
			if err := g.local.Start(i); err != nil {
				lis.Close()
				return cleanup, err
			}
		}
		prev := cleanup
		cleanup = func() {
			for id, err := range g.local.Wait(10 * time.Second) {
				if err != nil && !killedBySignal(err) {
					fmt.Fprintf(stderr, "%s: worker process %d: %v\n%s", name, id, err, indent(g.local.Output(id)))
				}
			}
			prev()
		}
	} else {
		fmt.Fprintf(stderr, "%s: listening on %s for %d workers\n", name, g.addr, f.workers)
	}
	f.grpc = g
	return cleanup, nil
}

// mainEnv, set in a process's environment, makes a test binary run
// syncbench's main (the worker processes of compare -clock grpc in tests).
const mainEnv = "SYNCBENCH_RUN_MAIN"

func indent(s string) string {
	if s == "" {
		return ""
	}
	return "    " + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n    ") + "\n"
}

// run runs experiment e, over data d, as run i of the comparison.
func (g *grpcRuns) run(ctx context.Context, e harness.Experiment, d *data, i int) (*harness.Result, error) {
	e.Lease, e.JoinTimeout = g.f.net.lease, g.f.net.join
	if dir := g.f.net.journal; dir != "" {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, fmt.Errorf("-journal: %w", err)
		}
		e.Journal = filepath.Join(dir, fmt.Sprintf("run-%d-%s.journal", i, strings.NewReplacer(":", "_", "/", "_", "+", "_").Replace(e.Name)))
	}
	// Preemptions kill and restart the worker processes (cluster.Preempter)
	// from the run's start on; the job does not carry them.
	preemptCfg := e.Preempt
	e.Preempt = nil
	job, err := cluster.NewJob(g.f.spec(), e, d.workload())
	if err != nil {
		return nil, err
	}
	job.Run, job.Runs = i, g.runs()
	lis := g.lis
	g.lis = nil
	if lis == nil {
		if lis, err = net.Listen("tcp", g.addr); err != nil {
			return nil, fmt.Errorf("listening again on %s: %w", g.addr, err)
		}
	}
	var (
		pre     cluster.PreemptStats
		preErr  error
		started bool
		done    = make(chan struct{})
	)
	pctx, stopPreempt := context.WithCancel(ctx)
	defer stopPreempt()
	if c := preemptCfg; c != nil && g.local != nil {
		p := &cluster.Preempter{Local: g.local, Config: *c, Seed: e.Seed, Workers: e.Workers, Horizon: e.Duration}
		e.OnStart = func(origin time.Time) {
			started = true
			go func() { defer close(done); pre, preErr = p.Run(pctx, origin) }()
		}
	}
	rep, err := (&cluster.Coordinator{Experiment: e, Job: job, Net: g.cfg}).Run(ctx, lis)
	stopPreempt()
	if started {
		<-done
	}
	if g.local != nil {
		// The next run needs every worker: restart the preempted ones
		// and the refused ones as their next incarnations.
		for id := range e.Workers {
			if !g.local.Running(id) && i+1 < g.runs() {
				if err := g.local.Start(id); err != nil {
					return nil, err
				}
			}
		}
	}
	if rep == nil {
		return nil, err
	}
	if err == nil && preErr != nil {
		err = preErr
	}
	rep.Preemptions = pre.Preemptions
	g.refused = append(g.refused, rep.Refused)
	return rep.Result, err
}

// worker is `syncbench worker`.
func worker(args []string, stdout, stderr io.Writer) int {
	const name = "syncbench worker"
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stdout)
	var (
		n         netFlags
		target    string
		id        int
		inc       uint
		wait      time.Duration
		reconnect time.Duration
		statsPath string
	)
	n.register(fs, true)
	fs.StringVar(&target, "coordinator", "", "the coordinator's address, HOST:PORT (required)")
	fs.IntVar(&id, "id", -1, "this worker's ID, 0 to workers−1 (required)")
	fs.UintVar(&inc, "incarnation", 1, "this process's incarnation: 1, or the next after a crash (the coordinator refuses an old one and names the next)")
	fs.DurationVar(&wait, "wait", time.Minute, "how long to keep trying to reach the coordinator")
	fs.DurationVar(&reconnect, "reconnect", 5*time.Second, "how long to keep trying to reopen a broken stream (a coordinator restarting from its -journal must be back within it)")
	fs.StringVar(&statsPath, "stats", "", "a file to append a JSON line to after each run: what this worker did (points, commits, busy and paused time) and the process's CPU and garbage-collection counters then; empty = none")
	check := func() error {
		switch {
		case target == "":
			return errors.New("-coordinator: give the coordinator's HOST:PORT")
		case id < 0:
			return errors.New("-id: give this worker's ID (0 to workers−1)")
		case inc < 1 || inc > 1<<32-1:
			return fmt.Errorf("-incarnation %d: want 1 to %d", inc, uint64(1<<32-1))
		case wait <= 0:
			return fmt.Errorf("-wait %v: want a positive duration", wait)
		case reconnect <= 0:
			return fmt.Errorf("-reconnect %v: want a positive duration", reconnect)
		}
		return n.check()
	}
	if code, ok := parseFlags(fs, args, check, stderr); !ok {
		return code
	}
	cfg, err := n.client(id)
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", name, oneLine(err))
		return 1
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	w := &cluster.Worker{Target: target, ID: id, Incarnation: uint32(inc), Net: cfg, Wait: wait, Reconnect: reconnect}
	var statsErr error
	w.OnRun = func(job *cluster.Job, r *harness.WorkerResult) {
		fmt.Fprintf(stderr, "%s %d: run %d: %d commits, %d points, incarnation %d, %d rejoins\n",
			name, id, job.Run, r.Stats.Commits, r.Stats.Points, r.Incarnation, r.Rejoins)
		if statsPath != "" && statsErr == nil {
			statsErr = appendWorkerStats(statsPath, job.Run, r)
		}
	}
	_, err = w.Run(ctx)
	if err == nil && statsErr != nil {
		err = fmt.Errorf("-stats: %w", statsErr)
	}
	if err != nil {
		fmt.Fprintf(stderr, "%s %d: %v\n", name, id, oneLine(err))
		if errors.Is(err, harness.ErrRefused) {
			return exitRefused
		}
		return 1
	}
	return 0
}

// workerStats is a line of syncbench worker -stats: what the worker did
// in run Run (harness.WorkerStats) and the process's counters at its end
// (cumulative: CPU time, garbage collections and their CPU time).
type workerStats struct {
	Run       int   `json:"run"`
	Points    int64 `json:"points"`
	Commits   int   `json:"commits"`
	BusyNS    int64 `json:"busy_ns"`
	PausedNS  int64 `json:"paused_ns"`
	WaitNS    int64 `json:"wait_ns"`
	CPUNS     int64 `json:"cpu_ns"`
	GCCycles  int   `json:"gc_cycles"`
	GCCPUNS   int64 `json:"gc_cpu_ns"`
	Rejoins   int   `json:"rejoins"`
	Incarnate int   `json:"incarnation"`
}

// appendWorkerStats appends run's line to the file at path.
func appendWorkerStats(path string, run int, r *harness.WorkerResult) error {
	gc := readGC()
	b, err := json.Marshal(workerStats{Run: run, Points: r.Stats.Points, Commits: r.Stats.Commits, BusyNS: int64(r.Stats.Busy), PausedNS: int64(r.Stats.Paused),
		WaitNS: int64(r.Stats.Wait), CPUNS: int64(processCPU()), GCCycles: gc.cycles, GCCPUNS: int64(gc.cpu), Rejoins: r.Rejoins, Incarnate: int(r.Incarnation)})
	if err != nil {
		return err
	}
	fh, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	if _, err := fh.Write(append(b, '\n')); err != nil {
		fh.Close()
		return err
	}
	return fh.Close()
}

// exitRefused is syncbench worker's exit status when the coordinator
// refused it for good (harness.ErrRefused): a restarted K-means worker,
// say. The run goes on without it.
const exitRefused = 3

// tlsCmd is `syncbench tls`: it writes a job's CA, the coordinator's
// certificate, one per worker and the job's token into a directory.
func tlsCmd(args []string, stdout, stderr io.Writer) int {
	const name = "syncbench tls"
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stdout)
	var dir, job, hosts string
	var workers int
	fs.StringVar(&dir, "dir", "", "directory to create (required), or an empty one")
	fs.StringVar(&job, "job", "syncbench", "the job's name, in every certificate and the token")
	fs.IntVar(&workers, "workers", 16, "how many worker certificates to issue")
	fs.StringVar(&hosts, "hosts", "127.0.0.1,localhost", "comma-separated names and addresses the coordinator is reached by")
	check := func() error {
		switch {
		case dir == "":
			return errors.New("-dir: give the directory to create")
		case workers < 1:
			return fmt.Errorf("-workers %d: want at least 1", workers)
		}
		// The keys go into a directory of their own, not beside other
		// files (-dir /tmp would scatter them there).
		if ents, err := os.ReadDir(dir); err == nil && len(ents) > 0 {
			return fmt.Errorf("-dir %s: the directory exists and is not empty; give a new directory for the job's keys", dir)
		}
		return nil
	}
	if code, ok := parseFlags(fs, args, check, stderr); !ok {
		return code
	}
	var hs []string
	for h := range strings.SplitSeq(hosts, ",") {
		if h = strings.TrimSpace(h); h != "" {
			hs = append(hs, h)
		}
	}
	if err := jobtls.Create(dir, job, workers, hs); err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", name, oneLine(err))
		return 1
	}
	fmt.Fprintf(stdout, "%s: job %q: CA, coordinator certificate for %s, %d worker certificates and the token in %s\n"+
		"copy ca.pem, token and worker-ID.pem/worker-ID-key.pem to each worker host; keep ca-key.pem off them\n",
		name, job, strings.Join(hs, ", "), workers, dir)
	return 0
}

// loopback reports whether addr (HOST:PORT) names a loopback host.
func loopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// killedBySignal reports whether a process ended because it was killed
// (by Local, for a preemption or at the end).
func killedBySignal(err error) bool {
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		return false
	}
	ws, ok := ee.Sys().(syscall.WaitStatus)
	return ok && ws.Signaled()
}
