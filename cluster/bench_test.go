package cluster_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/syncmodels/syncmodels/algorithms"
	"github.com/syncmodels/syncmodels/cluster"
	"github.com/syncmodels/syncmodels/consistency"
	"github.com/syncmodels/syncmodels/harness"
	"github.com/syncmodels/syncmodels/transport"
	"github.com/syncmodels/syncmodels/transport/grpcnet"
	"github.com/syncmodels/syncmodels/transport/grpcnet/jobtls"
	"github.com/syncmodels/syncmodels/workload"
)

// The benchmarks of the gRPC runtime (issue 12's "Benchmarks"). Each
// reports, beside its own figure, the baseline it is measured against in
// the same run and their ratio; nothing here asserts a speed.
//
//	go test ./cluster/ -run '^$' -bench . -count 5

// security is one way of running the job's connections: plaintext on
// loopback, or mutual TLS 1.3 with the job's certificates and a token.
type security struct {
	name string
	dir  string // the job TLS directory; "" for plaintext
}

func securities(b *testing.B, workers int) []security {
	dir := b.TempDir()
	if err := jobtls.Create(dir, "bench", workers, []string{"127.0.0.1"}); err != nil {
		b.Fatal(err)
	}
	return []security{{"plaintext", ""}, {"tls", dir}}
}

// server and worker return the coordinator's and worker id's
// configuration for layout l.
func (s security) server(b *testing.B, l algorithms.Layout) grpcnet.Config {
	if s.dir == "" {
		return grpcnet.Config{Plaintext: true, Layout: l}
	}
	c, err := jobtls.LoadServer(s.dir)
	if err != nil {
		b.Fatal(err)
	}
	return grpcnet.Config{TLS: c.TLS, Token: c.Token, Layout: l}
}

func (s security) worker(b *testing.B, l algorithms.Layout, id int) grpcnet.Config {
	if s.dir == "" {
		return grpcnet.Config{Plaintext: true, Layout: l}
	}
	c, err := jobtls.LoadWorker(s.dir, transport.NodeID(id))
	if err != nil {
		b.Fatal(err)
	}
	return grpcnet.Config{TLS: c.TLS, Token: c.Token, Layout: l}
}

// procArg is the worker processes' TLS argument (procMain).
func (s security) procArg() string {
	if s.dir == "" {
		return "-"
	}
	return s.dir
}

// stream is one worker's gRPC stream to a coordinator on TCP loopback:
// the coordinator's endpoint and the worker's.
type stream struct {
	srv    *grpcnet.Server
	cli    *grpcnet.Client
	served chan error
	c, w   transport.Endpoint
}

func openStream(b *testing.B, s security, l algorithms.Layout) *stream {
	b.Helper()
	srv, err := grpcnet.NewServer(s.server(b, l))
	if err != nil {
		b.Fatal(err)
	}
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	st := &stream{srv: srv, served: make(chan error, 1)}
	go func() { st.served <- srv.Serve(lis) }()
	if st.cli, err = grpcnet.Dial(lis.Addr().String(), s.worker(b, l, 0)); err != nil {
		b.Fatal(err)
	}
	if st.c, err = srv.Open(transport.Coordinator); err != nil {
		b.Fatal(err)
	}
	if st.w, err = st.cli.Open(0); err != nil {
		b.Fatal(err)
	}
	return st
}

func (st *stream) close() {
	st.w.Close()
	st.cli.Close()
	st.srv.Close()
	<-st.served
}

// roundTrip sends a heartbeat from the worker to the coordinator and one
// back.
func (st *stream) roundTrip(b *testing.B) {
	ctx := context.Background()
	if err := st.w.Send(ctx, &transport.Message{Kind: transport.Heartbeat, To: transport.Coordinator}); err != nil {
		b.Fatal(err)
	}
	if _, err := st.c.Recv(ctx); err != nil {
		b.Fatal(err)
	}
	if err := st.c.Send(ctx, &transport.Message{Kind: transport.Heartbeat, To: 0}); err != nil {
		b.Fatal(err)
	}
	if _, err := st.w.Recv(ctx); err != nil {
		b.Fatal(err)
	}
}

// rtt is the mean of n heartbeat round trips over one stream with both
// ends in this process, after 100 not counted.
func rtt(b *testing.B, s security, l algorithms.Layout, n int) time.Duration {
	st := openStream(b, s, l)
	defer st.close()
	for range 100 {
		st.roundTrip(b)
	}
	t0 := time.Now()
	for range n {
		st.roundTrip(b)
	}
	return time.Since(t0) / time.Duration(n)
}

// An echo process is this test binary run with echoEnv set to "TARGET
// TLS PARAMS DELTA BLOCK": it opens worker 0's stream to the coordinator
// at TARGET (plaintext if TLS is "-", else with the job TLS directory
// TLS) for that layout, and sends every message it receives back to the
// coordinator until the stream ends.
const echoEnv = "CLUSTER_TEST_ECHO"

func echoMain(args []string) int {
	var l algorithms.Layout
	if len(args) != 5 {
		fmt.Fprintf(os.Stderr, "%s=%q: want TARGET TLS PARAMS DELTA BLOCK\n", echoEnv, args)
		return 2
	}
	if _, err := fmt.Sscan(strings.Join(args[2:], " "), &l.Params, &l.Delta, &l.Block); err != nil {
		fmt.Fprintf(os.Stderr, "%s=%q: %v\n", echoEnv, args, err)
		return 2
	}
	cfg := grpcnet.Config{Plaintext: true, Layout: l}
	if args[1] != "-" {
		creds, err := jobtls.LoadWorker(args[1], 0)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		cfg = grpcnet.Config{TLS: creds.TLS, Token: creds.Token, Layout: l}
	}
	cli, err := grpcnet.Dial(args[0], cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer cli.Close()
	ep, err := cli.Open(0)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	ctx := context.Background()
	for {
		m, err := ep.Recv(ctx)
		if err != nil {
			return 0
		}
		m.To = transport.Coordinator
		if err := ep.Send(ctx, m); err != nil {
			return 0
		}
	}
}

// processRTT is the mean of n heartbeat round trips over one stream
// between this process, the coordinator, and an echo process, after 100
// not counted.
func processRTT(b *testing.B, s security, l algorithms.Layout, n int) time.Duration {
	srv, err := grpcnet.NewServer(s.server(b, l))
	if err != nil {
		b.Fatal(err)
	}
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(lis) }()
	defer func() { srv.Close(); <-served }()
	c, err := srv.Open(transport.Coordinator)
	if err != nil {
		b.Fatal(err)
	}
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%s %s %d %d %d", echoEnv, lis.Addr(), s.procArg(), l.Params, l.Delta, l.Block))
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() {
		srv.Close()
		if err := cmd.Wait(); err != nil {
			b.Errorf("echo process: %v\n%s", err, out.String())
		}
	}()
	ctx := context.Background()
	ping := &transport.Message{Kind: transport.Heartbeat, To: 0}
	trip := func() {
		// Until the echo process has attached, the send fails: retry.
		for {
			err := c.Send(ctx, ping)
			if err == nil {
				break
			}
			if !errors.Is(err, transport.ErrUnknownNode) {
				b.Fatal(err)
			}
			time.Sleep(10 * time.Millisecond)
		}
		if _, err := c.Recv(ctx); err != nil {
			b.Fatal(err)
		}
	}
	for range 100 {
		trip()
	}
	t0 := time.Now()
	for range n {
		trip()
	}
	return time.Since(t0) / time.Duration(n)
}

// perRound is a BSP run's time per round (one version per round).
func perRound(b *testing.B, res *harness.Result) time.Duration {
	if res.Versions == 0 {
		b.Fatalf("a run of %v without a version", res.Duration)
	}
	return res.Duration / time.Duration(res.Versions)
}

// BenchmarkBSPRound: BSP rounds of 16 worker processes over gRPC on TCP
// loopback, with negligible compute (LR of dimension 2, one point per
// commit), against one stream's heartbeat round trip measured just
// before on the same configuration (issue 12's goal: a round within 2×
// the round trip); against the same run with the 16 workers as
// goroutines of this process over the same gRPC loopback (what the
// processes add); and against the goroutine runtime's in-process network
// (what gRPC adds). Beside 16 workers with and without TLS, it runs 4
// and 1 (plaintext), to show how the round grows with the workers. An op
// is one run of 1,000 rounds of each, so run it with -count for medians;
// the figures are:
//
//	ns/round           a round with worker processes over gRPC
//	rtt-ns             one stream's heartbeat round trip
//	round/rtt          their ratio (goal ≤ 2)
//	goroutines-ns/round  a round with goroutine workers over gRPC
//	inproc-ns/round    a round of the goroutine runtime (in-process network)
//	round/inproc       ns/round over inproc-ns/round
//	msgs/round         messages (both ways) per round with processes
//	coord-cpu-ns/round   CPU time of this process (the coordinator) per
//	                   round with processes, and workers-cpu-ns/round
//	                   that of the worker processes (both include their
//	                   start and the joins: upper bounds)
func BenchmarkBSPRound(b *testing.B) {
	secs := securities(b, 16)
	for _, c := range []struct {
		sec     security
		workers int
	}{{secs[0], 16}, {secs[1], 16}, {secs[0], 4}, {secs[0], 1}} {
		b.Run(fmt.Sprintf("%s/workers=%d", c.sec.name, c.workers), func(b *testing.B) { benchBSPRound(b, c.sec, c.workers) })
	}
}

func benchBSPRound(b *testing.B, s security, workers int) {
	const rounds = 1000
	spec := workload.Spec{Algo: "lr", Data: "synthetic:logistic", N: 64 * workers, Dim: 2, Seed: 1}.WithDefaults()
	alg, data, err := workload.Open(spec)
	if err != nil {
		b.Fatal(err)
	}
	e := harness.Experiment{Algorithm: alg, Sync: consistency.MustParse("bsp"), Workers: workers, Batch: 1, Seed: 3,
		Clock: harness.Real, Duration: 5 * time.Minute, Retry: 250 * time.Millisecond, Lease: 5 * time.Second,
		JoinTimeout: time.Minute, Stop: harness.Stop{MaxIterations: rounds}}
	job, err := cluster.NewJob(spec, e, data)
	if err != nil {
		b.Fatal(err)
	}
	var sum struct {
		procs, rtt, localRTT, gor, inproc time.Duration
		coordCPU, workerCPU               time.Duration
		msgs                              float64
	}
	for range b.N {
		sum.rtt += processRTT(b, s, alg.Layout(), 2000)
		sum.localRTT += rtt(b, s, alg.Layout(), 2000)

		lis, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			b.Fatal(err)
		}
		p := newProcs(b, lis.Addr().String(), s.procArg(), time.Minute)
		self0, children0 := cpuTime(syscall.RUSAGE_SELF), cpuTime(syscall.RUSAGE_CHILDREN)
		p.startAll(b, workers)
		rep, err := (&cluster.Coordinator{Experiment: e, Job: job, Net: s.server(b, algorithms.Layout{})}).Run(context.Background(), lis)
		self := cpuTime(syscall.RUSAGE_SELF) - self0
		for id, err := range p.Wait(10 * time.Second) {
			if err != nil {
				b.Errorf("worker process %d: %v\n%s", id, err, p.Output(id))
			}
		}
		children := cpuTime(syscall.RUSAGE_CHILDREN) - children0
		if err != nil {
			b.Fatal(err)
		}
		sum.procs += perRound(b, rep.Result)
		sum.msgs += float64(rep.Messages) / float64(rep.Versions)
		// The processes' CPU time covers their start and the joins too:
		// an upper bound of a round's.
		sum.coordCPU += self / time.Duration(rep.Versions)
		sum.workerCPU += children / time.Duration(rep.Versions)

		sum.gor += perRound(b, goroutineWorkers(b, s, e, job))

		local := e
		local.Remote = false
		res, err := harness.Run(context.Background(), local)
		if err != nil {
			b.Fatal(err)
		}
		sum.inproc += perRound(b, res)
	}
	n := float64(b.N)
	round, rt, gor, inproc := float64(sum.procs)/n, float64(sum.rtt)/n, float64(sum.gor)/n, float64(sum.inproc)/n
	localRTT := float64(sum.localRTT) / n
	b.ReportMetric(round, "ns/round")
	b.ReportMetric(rt, "rtt-ns")
	b.ReportMetric(round/rt, "round/rtt")
	b.ReportMetric(gor, "goroutines-ns/round")
	b.ReportMetric(localRTT, "local-rtt-ns")
	b.ReportMetric(gor/localRTT, "goroutines/local-rtt")
	b.ReportMetric(inproc, "inproc-ns/round")
	b.ReportMetric(round/inproc, "round/inproc")
	b.ReportMetric(sum.msgs/n, "msgs/round")
	b.ReportMetric(float64(sum.coordCPU)/n, "coord-cpu-ns/round")
	b.ReportMetric(float64(sum.workerCPU)/n, "workers-cpu-ns/round")
}

// cpuTime is the user and system time of who (syscall.RUSAGE_SELF, or
// RUSAGE_CHILDREN: the child processes waited for).
func cpuTime(who int) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(who, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// goroutineWorkers runs e with its workers as goroutines of this process
// that reach the coordinator over gRPC on TCP loopback.
func goroutineWorkers(b *testing.B, s security, e harness.Experiment, job *cluster.Job) *harness.Result {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make([]error, e.Workers)
	for i := range e.Workers {
		w := &cluster.Worker{Target: lis.Addr().String(), ID: i, Net: s.worker(b, algorithms.Layout{}, i), Wait: time.Minute}
		wg.Go(func() { _, errs[i] = w.Run(context.Background()) })
	}
	rep, err := (&cluster.Coordinator{Experiment: e, Job: job, Net: s.server(b, algorithms.Layout{})}).Run(context.Background(), lis)
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			b.Errorf("worker %d: %v", i, err)
		}
	}
	if err != nil {
		b.Fatal(err)
	}
	return rep.Result
}

// BenchmarkCommit1MB: a dense delta of 1 MiB (131,072 float64) over one
// gRPC stream on TCP loopback, against a raw TCP copy of as many bytes
// (the encoded message's) between two sockets on 127.0.0.1, measured
// just before in the same run:
//
//   - commit: the worker streams commits, the coordinator receives them
//     in another goroutine (the raw copy: one socket writes, the other
//     reads);
//   - release+commit: the coordinator sends a release of 1 MiB of
//     parameters, the worker answers with a commit of 1 MiB, in turn (a
//     BSP round of one worker, without compute; the raw copy: 1 MiB each
//     way in turn).
//
// MB/s is gRPC's throughput (encoding and decoding included), tcp-MB/s
// the raw copy's, and grpc/tcp their ratio.
func BenchmarkCommit1MB(b *testing.B) {
	const n = 1 << 17
	l := algorithms.Layout{Params: n, Delta: n}
	rng := rand.New(rand.NewPCG(1, 1))
	commit := &transport.Message{Kind: transport.Commit, To: transport.Coordinator, Points: 100, Delta: algorithms.NewDelta(l)}
	release := &transport.Message{Kind: transport.Release, To: 0, Params: make([]float64, n)}
	for i := range n {
		commit.Delta.Vec[i] = rng.NormFloat64()
		release.Params[i] = rng.NormFloat64()
	}
	size := commit.Size()
	for _, s := range securities(b, 1) {
		b.Run("commit/"+s.name, func(b *testing.B) {
			tcp := rawCopy(b, size, b.N, false)
			st := openStream(b, s, l)
			defer st.close()
			ctx := context.Background()
			done := make(chan error, 1)
			b.SetBytes(int64(size))
			b.ResetTimer()
			go func() {
				for range b.N {
					if _, err := st.c.Recv(ctx); err != nil {
						done <- err
						return
					}
				}
				done <- nil
			}()
			for range b.N {
				if err := st.w.Send(ctx, commit); err != nil {
					b.Fatal(err)
				}
			}
			if err := <-done; err != nil {
				b.Fatal(err)
			}
			reportVsTCP(b, float64(size)*float64(b.N), tcp)
		})
		b.Run("release+commit/"+s.name, func(b *testing.B) {
			tcp := rawCopy(b, size, b.N, true)
			st := openStream(b, s, l)
			defer st.close()
			ctx := context.Background()
			b.SetBytes(int64(size + release.Size()))
			b.ResetTimer()
			for range b.N {
				if err := st.c.Send(ctx, release); err != nil {
					b.Fatal(err)
				}
				if _, err := st.w.Recv(ctx); err != nil {
					b.Fatal(err)
				}
				if err := st.w.Send(ctx, commit); err != nil {
					b.Fatal(err)
				}
				if _, err := st.c.Recv(ctx); err != nil {
					b.Fatal(err)
				}
			}
			reportVsTCP(b, float64(size+release.Size())*float64(b.N), tcp)
		})
	}
}

// reportVsTCP reports the raw copy's throughput and the ratio of the
// benchmark's (bytes in the time the timer ran) to it.
func reportVsTCP(b *testing.B, bytes float64, tcp float64) {
	b.StopTimer()
	grpc := bytes / b.Elapsed().Seconds()
	b.ReportMetric(tcp/1e6, "tcp-MB/s")
	b.ReportMetric(grpc/tcp, "grpc/tcp")
}

// rawCopy copies n messages of size bytes over a TCP connection on
// 127.0.0.1, one way (pingPong false: one side writes, the other reads)
// or both ways in turn, and returns the bytes per second.
func rawCopy(b *testing.B, size, n int, pingPong bool) float64 {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	defer lis.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, err := lis.Accept()
		if err != nil {
			b.Error(err)
		}
		accepted <- c
	}()
	a, err := net.Dial("tcp", lis.Addr().String())
	if err != nil {
		b.Fatal(err)
	}
	defer a.Close()
	c := <-accepted
	if c == nil {
		b.FailNow()
	}
	defer c.Close()
	buf, in := make([]byte, size), make([]byte, size)
	for i := range buf {
		buf[i] = byte(i * 7)
	}
	done := make(chan error, 1)
	t0 := time.Now()
	go func() {
		out := make([]byte, size)
		for range n {
			if _, err := io.ReadFull(c, out); err != nil {
				done <- err
				return
			}
			if pingPong {
				if _, err := c.Write(out); err != nil {
					done <- err
					return
				}
			}
		}
		done <- nil
	}()
	for range n {
		if _, err := a.Write(buf); err != nil {
			b.Fatal(err)
		}
		if pingPong {
			if _, err := io.ReadFull(a, in); err != nil {
				b.Fatal(err)
			}
		}
	}
	if err := <-done; err != nil {
		b.Fatal(err)
	}
	bytes := float64(size) * float64(n)
	if pingPong {
		bytes *= 2
	}
	return bytes / time.Since(t0).Seconds()
}
