package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net"
	"slices"
	"strconv"
	"time"

	"github.com/montanaflynn/stats"

	"github.com/syncmodels/syncmodels/algorithms"
	"github.com/syncmodels/syncmodels/consistency"
	"github.com/syncmodels/syncmodels/exchange/redisx"
	"github.com/syncmodels/syncmodels/harness"
	"github.com/syncmodels/syncmodels/internal/fpdet"
	"github.com/syncmodels/syncmodels/transport"
	"github.com/syncmodels/syncmodels/transport/grpcnet"
	"github.com/syncmodels/syncmodels/transport/grpcnet/jobtls"
	"github.com/syncmodels/syncmodels/transport/inproc"
	"github.com/syncmodels/syncmodels/workload"
)

// The transports' costs: the in-process network (transport/inproc, the
// goroutine runtime's default), gRPC over loopback TCP with mutual TLS 1.3
// and a job token (transport/grpcnet, as compare -clock grpc and syncbench
// coordinator use it), and a Redis server (exchange/redisx).

// calibrationDeltas are the delta lengths (float64s) of the commits
// streamed to measure bandwidth; 0 stands for a heartbeat.
// errNoisy is a fit whose slope came out non-positive: the machine's noise
// swamped what grows with the size. calibrate measures again (up to
// calibrateAttempts times) before it gives up.
var errNoisy = errors.New("too noisy")

// calibrateAttempts is how many times calibrate measures a transport
// whose fit is too noisy.
const calibrateAttempts = 3

func calibrationDeltas(quick bool) []int {
	if quick {
		return []int{0, 256, 4096}
	}
	// Up to 128 KiB: deltas of the workloads here are 1–100 KiB (LR's
	// 100 features: 0.8 KiB; K-means 16 × 27: 3.6 KiB).
	return []int{0, 128, 1024, 16384}
}

// network makes a transport for a layout and closes it.
type network struct {
	open func(l algorithms.Layout) (transport.Transport, func(), error)
}

func calibrateTransport(ctx context.Context, f *calibrateFlags, name string, stderr io.Writer) (harness.TransportCost, error) {
	if name == "redis" {
		return calibrateRedis(ctx, f, stderr)
	}
	var nw network
	switch name {
	case "inproc":
		nw.open = func(l algorithms.Layout) (transport.Transport, func(), error) {
			n, err := inproc.New(inproc.Config{Layout: l})
			return n, func() { n.Close() }, err
		}
	case "grpc":
		var err error
		if nw, err = grpcNetwork(max(slices.Max(calibrationWorkers(f.quick)), commitWorkers())); err != nil {
			return harness.TransportCost{}, err
		}
	}
	tc := harness.TransportCost{Name: name}
	// Latency: heartbeat round trips between two goroutines.
	rtt, err := pingPong(ctx, nw, f.repeats, f.minTime)
	if err != nil {
		return tc, err
	}
	tc.LatencyNS = rtt / 2
	var xs, ys []float64
	for _, n := range calibrationDeltas(f.quick) {
		s, err := stream(ctx, nw, n, f.repeats, f.minTime)
		if err != nil {
			return tc, fmt.Errorf("streaming %d-float deltas: %w", n, err)
		}
		tc.Samples = append(tc.Samples, s)
		xs, ys = append(xs, float64(s.Bytes)), append(ys, s.NS)
		fmt.Fprintf(stderr, "syncbench calibrate: %s: %d-byte messages: %.2f µs each\n", name, s.Bytes, s.NS/1e3)
	}
	b, err := slope(xs, ys)
	if err != nil {
		return tc, err
	}
	if b <= 0 {
		return tc, fmt.Errorf("the time per message does not grow with its size (%.3g ns per byte): %w to measure a bandwidth; try a larger -min-time", b, errNoisy)
	}
	tc.Bandwidth = 1e9 / b
	// The fixed cost is the heartbeat's: the fit's intercept is at the
	// mercy of the large messages' noise.
	tc.MessageNS = tc.Samples[0].NS
	fmt.Fprintf(stderr, "syncbench calibrate: %s: latency %.1f µs, %.0f MB/s, %.2f µs per message\n", name, tc.LatencyNS/1e3, tc.Bandwidth/1e6, tc.MessageNS/1e3)
	dur, runs := 300*time.Millisecond, 3
	if f.quick {
		dur, runs = 30*time.Millisecond, 1
	}
	if err := nullRounds(ctx, f.seed, nw, calibrationWorkers(f.quick), dur, runs, &tc, stderr); err != nil {
		return tc, fmt.Errorf("null rounds: %w", err)
	}
	if name == "grpc" {
		if err := processCommit(ctx, f, &nw, &tc, stderr); err != nil {
			return tc, fmt.Errorf("worker processes: %w", err)
		}
	}
	return tc, nil
}

// processCommit measures what worker processes of their own add to the
// gRPC runtime (TransportCost.ProcessCommitNS, NullCommitNS and
// ProcessLatencyNS): BSP runs of workers committing one point of a tiny
// LR workload at a time, with the workers as syncbench worker processes
// on loopback with TLS (compare -clock grpc's, setupGRPC) and with them
// in this process over nw, in turn. With commitWorkers workers, their
// CPU time per commit, every process's; with one worker, how much
// longer a round takes with the worker in a process of its own: twice
// what a message between processes takes beyond one between goroutines
// (LatencyNS), the message reaching the other process and its sleeping
// thread running. (A round's time less its CPU time would not do: the
// processes' idle threads spin, in parallel, looking for work.)
func processCommit(ctx context.Context, f *calibrateFlags, nw *network, tc *harness.TransportCost, stderr io.Writer) error {
	dur, runs := 4*f.minTime, min(f.repeats, 5)
	if f.quick {
		dur, runs = 50*time.Millisecond, 2
	}
	workers := commitWorkers()
	procs, pair, _, _, err := nullProcs(ctx, f.seed, nw, workers, runs, dur)
	if err != nil {
		return err
	}
	if len(procs) == 0 {
		return fmt.Errorf("no round in %d runs of %v", runs, dur)
	}
	tc.ProcessCommitNS, _ = stats.Median(procs)
	tc.NullCommitNS, _ = stats.Median(pair)
	_, _, wall1, pwall1, err := nullProcs(ctx, f.seed, nw, 1, runs, dur)
	if err != nil {
		return err
	}
	if len(wall1) == 0 {
		return fmt.Errorf("no round of one worker process in %d runs of %v", runs, dur)
	}
	w, _ := stats.Median(wall1)
	pw, _ := stats.Median(pwall1)
	tc.ProcessLatencyNS = max(tc.LatencyNS+float64((w-pw)/2), 1)
	fmt.Fprintf(stderr, "syncbench calibrate: %s: a null commit takes %.1f µs of CPU with %d worker processes, %.1f µs with the workers in one process; a null round of one worker %.1f µs in a process of its own, %.1f µs in one process: %.1f µs one way between processes\n",
		tc.Name, tc.ProcessCommitNS/1e3, workers, tc.NullCommitNS/1e3, w/1e3, pw/1e3, tc.ProcessLatencyNS/1e3)
	return nil
}

// nullProcs runs runs null BSP runs of dur with workers worker processes
// (and, with nw, each also with the workers in this process over nw) and
// returns, per run with a round in its span, the CPU time per commit of
// the processes and of the one process, and the time per round of each.
func nullProcs(ctx context.Context, seed uint64, nw *network, workers, runs int, dur time.Duration) (procs, pair, wall, pairWall []float64, err error) {
	var cf compareFlags
	fs := flag.NewFlagSet("syncbench calibrate", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	cf.register(fs)
	const n = 1024
	args := []string{"-algo", "lr", "-data", "synthetic:logistic", "-n", strconv.Itoa(n), "-dim", "2", "-workers", strconv.Itoa(workers),
		"-stragglers", "0", "-sync", "bsp", "-batch", "1", "-duration", dur.String(), "-eval-every", dur.String(), "-seed", strconv.FormatUint(seed, 10), "-clock", "grpc"}
	if err := fs.Parse(args); err != nil {
		return nil, nil, nil, nil, err
	}
	if err := cf.check(); err != nil {
		return nil, nil, nil, nil, err
	}
	d, err := loadData("synthetic:logistic", synthSize{n, 2}, seed)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	alg, err := build(&cf.workloadFlags, d)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	cf.grpcRunCount = runs
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	cleanup, err := cf.setupGRPC(io.Discard, "syncbench calibrate", cancel)
	defer cleanup()
	if err != nil {
		return nil, nil, nil, nil, err
	}
	for i := range runs {
		e, err := cf.experimentFor(ctx, alg, mustPlan("bsp"))
		if err != nil {
			return nil, nil, nil, nil, err
		}
		c, t, err := perVersion(e, cf.grpc.pids(), func(e harness.Experiment) error {
			_, err := cf.grpc.run(ctx, e, d, i)
			if cause := context.Cause(ctx); err != nil && cause != nil && !errors.Is(cause, context.Canceled) {
				err = cause
			}
			return err
		})
		if err != nil {
			return nil, nil, nil, nil, err
		}
		cp, tp := 0.0, 0.0
		if nw != nil {
			e.Clock, e.Lease, e.JoinTimeout = harness.Real, 0, 0
			if cp, tp, err = perVersion(e, nil, func(e harness.Experiment) error { _, err := runOver(ctx, e, nw); return err }); err != nil {
				return nil, nil, nil, nil, err
			}
		}
		if !math.IsNaN(c) && !math.IsNaN(cp) {
			procs, pair, wall, pairWall = append(procs, c/float64(workers)), append(pair, cp/float64(workers)), append(wall, t), append(pairWall, tp)
		}
	}
	return procs, pair, wall, pairWall, nil
}

// calibrationWorkers are the worker counts of the null rounds.
func calibrationWorkers(quick bool) []int {
	if quick {
		return []int{1, 2}
	}
	return []int{1, 2, 4, 8, 16}
}

// nullRounds runs the real runtime over nw (nil: in process) with
// workers that compute (almost) nothing, BSP with one point per commit,
// runs times dur for each number of workers, and fits the median round
// time against the number of workers: tc.RoundNS + tc.WorkerNS·N.
// Progress goes to stderr if it is not nil.
func nullRounds(ctx context.Context, seed uint64, nw network, workers []int, dur time.Duration, runs int, tc *harness.TransportCost, stderr io.Writer) error {
	alg, _, err := workload.Open(workload.Spec{Algo: "lr", N: 1024, Dim: 2, Seed: seed}.WithDefaults())
	if err != nil {
		return err
	}
	tc.Rounds = nil
	var rows [][]float64
	var ys []float64
	for _, n := range workers {
		var times []float64
		for range runs {
			e := harness.Experiment{Algorithm: alg, Sync: consistency.Spec{Kind: consistency.BSP}, Workers: n, Batch: 1,
				Clock: harness.Real, Duration: dur, EvalEvery: dur, Seed: seed}
			var over *network
			if nw.open != nil {
				over = &nw
			}
			r, err := runOver(ctx, e, over)
			if err != nil {
				return err
			}
			if r.Versions == 0 {
				return fmt.Errorf("%d workers: no round in %v", n, dur)
			}
			times = append(times, float64(r.Duration)/float64(r.Versions))
		}
		ns, _ := stats.Median(times)
		tc.Rounds = append(tc.Rounds, harness.RoundSample{Workers: n, NS: ns})
		rows, ys = append(rows, []float64{1, float64(n)}), append(ys, ns)
		if stderr != nil {
			fmt.Fprintf(stderr, "syncbench calibrate: %s: a null BSP round of %d workers: %.1f µs\n", tc.Name, n, ns/1e3)
		}
	}
	c, _, err := leastSquares(rows, ys)
	if err != nil {
		return err
	}
	if c[1] <= 0 {
		return fmt.Errorf("the null rounds' time does not grow with the workers (%.3g ns per worker): %w", c[1], errNoisy)
	}
	tc.RoundNS, tc.WorkerNS = c[0], c[1]
	if stderr != nil {
		fmt.Fprintf(stderr, "syncbench calibrate: %s: runtime round %.1f µs + %.1f µs per worker\n", tc.Name, tc.RoundNS/1e3, tc.WorkerNS/1e3)
	}
	return nil
}

// grpcNetwork makes gRPC pairs over loopback TCP with mutual TLS and a
// token: a job CA, the coordinator's certificate and one for workers 0 to
// workers−1, all of whose streams the one client carries.
func grpcNetwork(workers int) (network, error) {
	const job = "calibrate"
	ca, err := jobtls.NewCA(job)
	if err != nil {
		return network{}, err
	}
	srvCert, err := ca.IssueServer("127.0.0.1", "localhost")
	if err != nil {
		return network{}, err
	}
	ids := make([]transport.NodeID, max(workers, 1))
	for i := range ids {
		ids[i] = transport.NodeID(i)
	}
	wCert, err := ca.IssueWorker(ids...)
	if err != nil {
		return network{}, err
	}
	tok, err := jobtls.NewToken(job)
	if err != nil {
		return network{}, err
	}
	open := func(l algorithms.Layout) (transport.Transport, func(), error) {
		srv, err := grpcnet.NewServer(grpcnet.Config{Layout: l, TLS: jobtls.ServerTLS(srvCert, ca.Pool()), Token: tok})
		if err != nil {
			return nil, nil, err
		}
		lis, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			srv.Close()
			return nil, nil, err
		}
		served := make(chan error, 1)
		go func() { served <- srv.Serve(lis) }()
		cli, err := grpcnet.Dial(lis.Addr().String(), grpcnet.Config{Layout: l, TLS: jobtls.ClientTLS(wCert, ca.Pool(), ""), Token: tok})
		if err != nil {
			srv.Close()
			<-served
			return nil, nil, err
		}
		p := &grpcPair{srv: srv, cli: cli}
		return p, func() { cli.Close(); srv.Close(); <-served }, nil
	}
	return network{open: open}, nil
}

// grpcPair is a coordinator's server and a worker's client as one
// transport.Transport.
type grpcPair struct {
	srv *grpcnet.Server
	cli *grpcnet.Client
}

func (p *grpcPair) Open(id transport.NodeID) (transport.Endpoint, error) {
	if id == transport.Coordinator {
		return p.srv.Open(id)
	}
	return p.cli.Open(id)
}
func (p *grpcPair) Stats() transport.Stats { return p.srv.Stats() }
func (p *grpcPair) Close() error           { p.cli.Close(); return p.srv.Close() }

// endpoints opens the coordinator and worker 0 on a network of layout l.
func endpoints(nw network, l algorithms.Layout) (c, w transport.Endpoint, done func(), err error) {
	tr, closeTr, err := nw.open(l)
	if err != nil {
		return nil, nil, nil, err
	}
	if c, err = tr.Open(transport.Coordinator); err == nil {
		w, err = tr.Open(0)
	}
	if err != nil {
		closeTr()
		return nil, nil, nil, err
	}
	return c, w, closeTr, nil
}

// pingPong returns the median round trip of a heartbeat from the worker
// to the coordinator and back, in nanoseconds.
func pingPong(ctx context.Context, nw network, repeats int, minTime time.Duration) (float64, error) {
	c, w, done, err := endpoints(nw, algorithms.Layout{Params: 1, Delta: 1})
	if err != nil {
		return 0, err
	}
	defer done()
	ping := &transport.Message{Kind: transport.Heartbeat, To: transport.Coordinator}
	pong := &transport.Message{Kind: transport.Heartbeat, To: 0}
	echo := make(chan error, 1)
	ectx, stop := context.WithCancel(ctx)
	defer func() { stop(); <-echo }()
	go func() {
		for {
			if _, err := c.Recv(ectx); err != nil {
				echo <- nil
				return
			}
			if err := c.Send(ectx, pong); err != nil {
				echo <- nil
				return
			}
		}
	}()
	var failed error
	times := timeIt(repeats, minTime, func() float64 {
		if failed != nil {
			return 1
		}
		if err := w.Send(ctx, ping); err != nil {
			failed = err
		} else if _, err := w.Recv(ctx); err != nil {
			failed = err
		}
		return 1
	})
	if failed != nil {
		return 0, failed
	}
	return stats.Median(times)
}

// stream returns the median time per message of commits with n-float
// dense deltas (a heartbeat for 0) streamed from the worker to the
// coordinator, received in another goroutine.
func stream(ctx context.Context, nw network, n, repeats int, minTime time.Duration) (harness.MessageSample, error) {
	l := algorithms.Layout{Params: max(n, 1), Delta: max(n, 1)}
	c, w, done, err := endpoints(nw, l)
	if err != nil {
		return harness.MessageSample{}, err
	}
	defer done()
	m := &transport.Message{Kind: transport.Heartbeat, To: transport.Coordinator}
	if n > 0 {
		d := algorithms.NewDelta(l)
		rng := rand.New(rand.NewPCG(1, 1))
		for i := range d.Vec {
			d.Vec[i] = fpdet.NormFloat64(rng)
		}
		d.Count = 500
		m = &transport.Message{Kind: transport.Commit, To: transport.Coordinator, Seq: 1, Points: 500, Delta: d}
	}
	var failed error
	times := timeIt(repeats, minTime, func() float64 {
		// A burst of 32 messages, all received before the next: the
		// receiver's work is timed with the sender's.
		const burst = 32
		recvd := make(chan error, 1)
		go func() {
			for range burst {
				if _, err := c.Recv(ctx); err != nil {
					recvd <- err
					return
				}
			}
			recvd <- nil
		}()
		for range burst {
			if err := w.Send(ctx, m); err != nil {
				failed = err
				break
			}
		}
		if err := <-recvd; err != nil && failed == nil {
			failed = err
		}
		return burst
	})
	if failed != nil {
		return harness.MessageSample{}, failed
	}
	ns, _ := stats.Median(times)
	return harness.MessageSample{Bytes: m.Size(), NS: ns}, nil
}

// calibrateRedis times GETs of a small value (the latency) and PUTs of
// growing values (the bandwidth) on the Redis server at f.redis.
func calibrateRedis(ctx context.Context, f *calibrateFlags, stderr io.Writer) (harness.TransportCost, error) {
	tc := harness.TransportCost{Name: "redis"}
	cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	st, err := redisx.Open(cctx, f.redis, redisx.Config{Namespace: "calibrate" + strconv.FormatInt(time.Now().UnixNano(), 36)})
	cancel()
	if err != nil {
		return tc, fmt.Errorf("-redis: %w", err)
	}
	defer st.Close()
	var failed error
	if err := st.Put(ctx, "small", []byte("0123456789abcdef")); err != nil {
		return tc, err
	}
	gets := timeIt(f.repeats, f.minTime, func() float64 {
		if _, err := st.Get(ctx, "small"); err != nil && failed == nil {
			failed = err
		}
		return 1
	})
	if failed != nil {
		return tc, failed
	}
	rtt, _ := stats.Median(gets)
	tc.LatencyNS = rtt / 2
	sizes := []int{16, 1 << 10, 1 << 16, 1 << 20}
	if f.quick {
		sizes = []int{16, 1 << 10, 1 << 14}
	}
	var xs, ys []float64
	for _, n := range sizes {
		v := make([]byte, n)
		times := timeIt(f.repeats, f.minTime, func() float64 {
			if err := st.Put(ctx, "value", v); err != nil && failed == nil {
				failed = err
			}
			return 1
		})
		if failed != nil {
			return tc, failed
		}
		ns, _ := stats.Median(times)
		tc.Samples = append(tc.Samples, harness.MessageSample{Bytes: n, NS: ns})
		xs, ys = append(xs, float64(n)), append(ys, ns)
		fmt.Fprintf(stderr, "syncbench calibrate: redis: PUT of %d bytes: %.1f µs\n", n, ns/1e3)
	}
	for _, k := range []string{"small", "value"} {
		st.Delete(ctx, k)
	}
	b, err := slope(xs, ys)
	if err != nil {
		return tc, err
	}
	if b <= 0 {
		return tc, fmt.Errorf("a PUT's time does not grow with its size (%.3g ns per byte): %w; try a larger -min-time", b, errNoisy)
	}
	tc.Bandwidth = 1e9 / b
	fmt.Fprintf(stderr, "syncbench calibrate: redis: latency %.1f µs (half a GET), %.0f MB/s\n", tc.LatencyNS/1e3, tc.Bandwidth/1e6)
	return tc, nil
}

// slope is the least-squares slope of ys against xs.
func slope(xs, ys []float64) (float64, error) {
	rows := make([][]float64, len(xs))
	for i, x := range xs {
		rows[i] = []float64{1, x}
	}
	c, _, err := leastSquares(rows, ys)
	if err != nil {
		return 0, err
	}
	return c[1], nil
}
