package p2p

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/syncmodels/syncmodels/consistency"
	"github.com/syncmodels/syncmodels/cost"
	"github.com/syncmodels/syncmodels/exchange"
	"github.com/syncmodels/syncmodels/exchange/redisx"
	"github.com/syncmodels/syncmodels/exchange/redisx/redistest"
	"github.com/syncmodels/syncmodels/filter"
	"github.com/syncmodels/syncmodels/latency"
)

// base is a small run: 4 peers of logistic regression on 400 points,
// peer 1 computing at half speed.
func base(t testing.TB, mode Mode) Config {
	return Config{
		Alg: lr(t, 400, 8), Peers: 4, Mode: mode, Rounds: 12, Batch: 25, Seed: 7,
		Cost: CostModel{
			PerPoint: time.Millisecond, RTT: 2 * time.Millisecond, Bandwidth: 1e6,
			Latency: latency.Dist{Median: time.Millisecond, Sigma: 0.5},
			Slow:    []Slowdown{{}, {Compute: 2}, {}, {}},
		},
	}
}

func run(t *testing.T, cfg Config, open Opener) *Result {
	t.Helper()
	res, err := Run(t.Context(), cfg, open)
	if err != nil {
		t.Fatalf("Run = %v", err)
	}
	return res
}

func memory() Opener { return MemoryOpener(exchange.NewMemory(), "job") }

// summary is everything a run reports that must not depend on the store
// or the machine: the trace, the curve, the timings and the traffic.
func summary(r *Result) string {
	var b strings.Builder
	b.WriteString(traceText(r.Trace))
	fmt.Fprintf(&b, "time %v epochs %v\n", r.Time, r.Epochs)
	for _, p := range r.Peer {
		x := p.Exchange
		fmt.Fprintf(&b, "p%d finished %v compute %v comm %v wait %v points %d invocations %d requests %d written %d read %d published %d received %d duplicates %d stale %d losses %d\n",
			p.Peer, p.Finished, p.Compute, p.Comm, p.Wait, p.Points, len(p.Invocations), x.Requests, x.BytesWritten, x.BytesRead, x.Published, x.Received, x.Duplicates, x.Stale, p.Losses)
	}
	for _, pt := range r.Curve {
		fmt.Fprintf(&b, "round %d at %v objective %.17g [%.17g, %.17g]\n", pt.Round, pt.Time, pt.Objective, pt.Min, pt.Max)
	}
	return b.String()
}

// Both modes keep their guarantees; a synchronous run's replicas are
// identical and every update is read; the split of time adds up.
func TestModes(t *testing.T) {
	for _, mode := range []Mode{Sync, Async} {
		t.Run(mode.String(), func(t *testing.T) {
			res := run(t, base(t, mode), memory())
			st, err := Check(res.Trace)
			if err != nil {
				t.Fatalf("Check = %v", err)
			}
			if st.Published != 4*12 || st.Averages != 4*12 {
				t.Errorf("stats %+v; want 48 publishes and 48 averages", st)
			}
			first, last := res.Curve[0], res.Curve[len(res.Curve)-1]
			if !(last.Objective < first.Objective) {
				t.Errorf("objective %v after round 1, %v at the end; want a decrease", first.Objective, last.Objective)
			}
			for _, p := range res.Peer {
				if got := p.Compute + p.Comm + p.Wait; got != p.Finished {
					t.Errorf("p%d: compute %v + comm %v + wait %v = %v; finished at %v", p.Peer, p.Compute, p.Comm, p.Wait, got, p.Finished)
				}
			}
			lo, _, _, hi, _ := st.StalenessSummary()
			switch mode {
			case Sync:
				if last.Min != last.Max || len(st.Unread) != 0 || lo != 0 || hi != 0 {
					t.Errorf("sync: final objectives [%v, %v], unread %v, staleness %v; want one replica, all read, staleness 0", last.Min, last.Max, st.Unread, st.Staleness)
				}
				if res.Peer[0].Wait == 0 {
					t.Errorf("sync: p0 never waited for the slow p1")
				}
			case Async:
				if res.Peer[0].Wait != 0 || hi <= 0 || lo >= 0 {
					t.Errorf("async: p0 waited %v, staleness %v; want no wait, and both stale (the slow peer) and ahead (the fast ones) updates", res.Peer[0].Wait, st.Staleness)
				}
				if res.Peer[0].Finished >= res.Peer[1].Finished {
					t.Errorf("async: fast p0 finished at %v, slow p1 at %v", res.Peer[0].Finished, res.Peer[1].Finished)
				}
			}
			t.Logf("%v: %v, final objective %.4f, staleness %v, %d unread", mode, res.Time, last.Objective, st.Staleness, len(st.Unread))
		})
	}
}

// Same seed, same run: trace, curve, timings and traffic, byte for byte.
func TestDeterministic(t *testing.T) {
	for _, mode := range []Mode{Sync, Async} {
		cfg := base(t, mode)
		cfg.QSGD = &filter.QSGD{}
		a, b := summary(run(t, cfg, memory())), summary(run(t, cfg, memory()))
		if a != b {
			t.Errorf("%v: two runs differ:\n%s\n---\n%s", mode, a, b)
		}
		cfg.Seed++
		if c := summary(run(t, cfg, memory())); c == a {
			t.Errorf("%v: another seed gave the same run", mode)
		}
	}
}

// The paper's one barrier a round races: the slow reader p1 averages, in
// its round r, p3's round-r+1 update, published after p3 passed the
// barrier, read, updated and computed; Check catches it. Two barriers a
// round do not race on the same schedule.
func TestOneBarrierRace(t *testing.T) {
	cfg := base(t, Sync)
	cfg.Cost.Slow = []Slowdown{{}, {Comm: 10}, {}, {}}
	cfg.Barrier = OneBarrier
	res := run(t, cfg, memory())
	_, err := Check(res.Trace)
	var ce *CheckError
	if !errors.As(err, &ce) {
		t.Fatalf("Check of the one-barrier run = %v; want a *CheckError", err)
	}
	race := slices.IndexFunc(ce.Violations, func(v consistency.Violation) bool {
		return v.Rule == RuleRound && strings.Contains(v.Detail, "p1 averaged p3@2, an update of round 2, in its round 1")
	})
	if race < 0 {
		t.Errorf("Check = %v; want p1 averaging p3's round-2 update in its round 1", err)
	}
	t.Logf("one barrier: %v", err)

	cfg.Barrier = TwoBarriers
	if _, err := Check(run(t, cfg, memory()).Trace); err != nil {
		t.Errorf("two barriers on the same schedule: Check = %v", err)
	}
}

// An asynchronous peer much faster than the others overwrites its slot
// before anyone reads it: Check reports each such update, and by which
// one it was replaced.
func TestAsyncOverwritten(t *testing.T) {
	cfg := base(t, Async)
	cfg.Cost.Slow = []Slowdown{{Compute: 0.1}, {Compute: 3}, {Compute: 3}, {Compute: 3}}
	res := run(t, cfg, memory())
	st, err := Check(res.Trace)
	if err != nil {
		t.Fatalf("Check = %v", err)
	}
	var over []Unread
	for _, u := range st.Unread {
		if u.Overwritten {
			over = append(over, u)
			if u.Update.Peer != 0 || u.By.Peer != 0 || u.By.Seq != u.Update.Seq+1 {
				t.Errorf("unread %v; want one of the fast p0's updates, replaced by its next", u)
			}
			// Nobody read it: no Read record names it.
			for _, r := range res.Trace.Records {
				if r.Kind == Read && r.Update == u.Update {
					t.Errorf("%v reported unread, but %v", u.Update, r)
				}
			}
		}
	}
	if len(over) == 0 {
		t.Fatalf("unread %v; want updates of p0 overwritten before anyone read them", st.Unread)
	}
	t.Logf("%d updates overwritten unread, e.g. %v", len(over), over[0])
}

// A store restart in the middle of a synchronous run: every peer is told
// of the loss, recovers, finishes, and Check finds every round averaged
// exactly once by everyone — nothing applied twice. The mutation that
// re-reads every slot after a loss without dedup applies updates twice,
// and Check says so.
func TestRestartMidRun(t *testing.T) {
	for _, mut := range []mutation{mutNone, mutRereadAfterLoss} {
		mem := exchange.NewMemory()
		cfg := base(t, Sync)
		cfg.mutation = mut
		cfg.Faults = []Fault{{At: 300 * time.Millisecond, Name: "restart", Do: func(context.Context) error { mem.Restart(); return nil }}}
		res := run(t, cfg, MemoryOpener(mem, "job"))
		st, err := Check(res.Trace)
		losses := 0
		for _, p := range res.Peer {
			if p.Losses == 0 {
				t.Errorf("mutation %d: p%d was never told of the loss", mut, p.Peer)
			}
			losses += p.Losses
		}
		switch mut {
		case mutNone:
			if err != nil {
				t.Errorf("Check after a restart = %v", err)
			}
			t.Logf("restart at 300ms: %d losses recovered, %d publishes, %d reads", losses, st.Published, st.Reads)
		case mutRereadAfterLoss:
			var ce *CheckError
			if !errors.As(err, &ce) || !ce.Violations[0].Root() || ce.Violations[0].Rule != consistency.RuleTwice {
				t.Errorf("Check of the re-reading mutation = %v; want an update averaged twice, first", err)
			} else {
				t.Logf("mutation: %v", ce.Violations[0])
			}
		}
	}
}

// Bad configurations are refused with an error naming the field.
func TestConfigErrors(t *testing.T) {
	alg := lr(t, 20, 2)
	for _, c := range []struct {
		cfg  Config
		want string
	}{
		{Config{Peers: 2, Rounds: 1}, "Alg is nil"},
		{Config{Alg: alg, Peers: 0, Rounds: 1}, "Peers 0"},
		{Config{Alg: alg, Peers: 21, Rounds: 1}, "Peers 21"},
		{Config{Alg: alg, Peers: 2, Rounds: 0}, "Rounds 0"},
		{Config{Alg: alg, Peers: 2, Rounds: 1, Mode: 9}, "Mode"},
		{Config{Alg: alg, Peers: 2, Rounds: 1, Barrier: 9}, "Barrier"},
		{Config{Alg: alg, Peers: 2, Rounds: 1, Batch: -1}, "Batch -1"},
		{Config{Alg: alg, Peers: 2, Rounds: 1, QSGD: &filter.QSGD{Levels: -1}}, "QSGD"},
		{Config{Alg: alg, Peers: 2, Rounds: 1, Cost: CostModel{RTT: -1}}, "RTT"},
		{Config{Alg: alg, Peers: 2, Rounds: 1, Cost: CostModel{Bandwidth: math.NaN()}}, "Bandwidth"},
		{Config{Alg: alg, Peers: 2, Rounds: 1, Cost: CostModel{Slow: []Slowdown{{}}}}, "Slow"},
		{Config{Alg: alg, Peers: 2, Rounds: 1, Cost: CostModel{Serverless: &Serverless{Concurrency: -1}}}, "Concurrency"},
		{Config{Alg: alg, Peers: 2, Rounds: 1, Faults: []Fault{{At: 1}}}, "Faults[0]"},
	} {
		_, err := Run(t.Context(), c.cfg, memory())
		if !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Run(%+v) = %v; want ErrConfig naming %q", c.cfg, err, c.want)
		}
	}
	if _, err := Run(t.Context(), Config{Alg: alg, Peers: 2, Rounds: 1}, nil); !errors.Is(err, ErrConfig) {
		t.Errorf("Run with a nil Opener = %v; want ErrConfig", err)
	}
}

// redisOpener opens clients of a fresh redis-server that give up quickly
// while it is down.
func redisOpener(t *testing.T) (Opener, *redistest.Server) {
	srv := redistest.Start(t)
	return RedisOpener(srv.URL(), "job", redisx.Config{}), srv
}

// The same run on Redis and in process: the same trace, curve, timings
// and traffic, byte for byte — with QSGD, and with redis-server killed in
// the middle and restarted empty.
func TestRedisSameAsMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("starts redis-server")
	}
	for _, mode := range []Mode{Sync, Async} {
		cfg := base(t, mode)
		cfg.QSGD = &filter.QSGD{}
		open, srv := redisOpener(t)
		killed := false
		cfg.Faults = []Fault{{At: 300 * time.Millisecond, Name: "kill redis-server", Do: func(context.Context) error {
			srv.Kill()
			time.Sleep(200 * time.Millisecond)
			srv.Restart()
			killed = true
			return nil
		}}}
		onRedis := run(t, cfg, open)
		if !killed {
			t.Fatal("the fault did not run")
		}
		mem := exchange.NewMemory()
		cfg.Faults[0].Do = func(context.Context) error { mem.Restart(); return nil }
		inProcess := run(t, cfg, MemoryOpener(mem, "job"))
		a, b := summary(onRedis), summary(inProcess)
		if a != b {
			t.Errorf("%v: Redis and in-process runs differ:\n%s\n---\n%s", mode, a, b)
		}
		if _, err := Check(onRedis.Trace); err != nil {
			t.Errorf("%v on Redis: Check = %v", mode, err)
		}
		for _, p := range onRedis.Peer {
			if p.Losses == 0 {
				t.Errorf("%v: p%d was not told of the loss", mode, p.Peer)
			}
		}
		w, r, n := onRedis.Totals()
		t.Logf("%v on Redis, killed at 300ms: %d requests, %d bytes written, %d read", mode, n, w, r)
	}
}

// QSGD publishes packed 9-bit levels: the store moves a fraction of the
// float64 bytes, and synchronous training converges nearly as well.
func TestQSGD(t *testing.T) {
	cfg := base(t, Sync)
	cfg.Alg = lr(t, 400, 200)
	plain := run(t, cfg, memory())
	cfg.QSGD = &filter.QSGD{}
	q := run(t, cfg, memory())
	if _, err := Check(q.Trace); err != nil {
		t.Fatalf("Check = %v", err)
	}
	pw, pr, _ := plain.Totals()
	qw, qr, _ := q.Totals()
	if 4*qw >= pw || 4*qr >= pr {
		t.Errorf("QSGD wrote %d and read %d bytes, float64 %d and %d; want under a quarter", qw, qr, pw, pr)
	}
	a, _ := plain.Final()
	b, _ := q.Final()
	if math.Abs(a.Objective-b.Objective) > 0.02*a.Objective {
		t.Errorf("final objective %v with QSGD, %v without; want within 2%%", b.Objective, a.Objective)
	}
	_, pc, _ := plain.PerEpoch()
	_, qc, _ := q.PerEpoch()
	if qc >= pc {
		t.Errorf("communication per epoch %v with QSGD, %v without; want less", qc, pc)
	}
	t.Logf("bytes written %d → %d (×%.1f), comm/epoch %v → %v, objective %.5f → %.5f", pw, qw, float64(pw)/float64(qw), pc, qc, a.Objective, b.Objective)
}

// Serverless peers invoke one function per batch, all at once (or in
// waves of Concurrency): their computation is the invocations' and the
// bill has them.
func TestServerless(t *testing.T) {
	cfg := base(t, Sync)
	cfg.Cost.Slow = nil
	cfg.Batch = 0 // one gradient over the whole shard a round
	cfg.Rounds = 3
	cfg.Cost.BatchSize = 10
	cfg.Cost.Serverless = &Serverless{Invoke: 100 * time.Millisecond, PerPoint: 2 * time.Millisecond, Concurrency: 4, MemoryMB: 2048}
	res := run(t, cfg, memory())
	if _, err := Check(res.Trace); err != nil {
		t.Fatal(err)
	}
	// 100 points a peer: 10 batches in waves of 4, 4, 2 of 120 ms each.
	wantCompute := 3 * 3 * 120 * time.Millisecond
	for _, p := range res.Peer {
		if len(p.Invocations) != 30 || p.Compute != wantCompute {
			t.Errorf("p%d: %d invocations, compute %v; want 30 and %v", p.Peer, len(p.Invocations), p.Compute, wantCompute)
		}
	}
	b, err := res.Bill(Prices{Instance: T2Small})
	if err != nil {
		t.Fatal(err)
	}
	// 120 invocations of 120 ms, billed as 200 ms at 2 GB.
	want := 120 * 0.2 * 2 * LambdaPerGBSecond
	if got := b.ByKind(cost.FaaS); math.Abs(got-want) > 1e-12 {
		t.Errorf("functions cost $%v; want $%v", got, want)
	}
	t.Logf("bill: %+v", b.ByKind(cost.VM))
}

// A fault that fails ends the run with its error, and no goroutine is
// left behind; so does a cancelled context.
func TestRunFails(t *testing.T) {
	before := runtime.NumGoroutine()
	cfg := base(t, Sync)
	cfg.Faults = []Fault{{At: 100 * time.Millisecond, Name: "broken", Do: func(context.Context) error { return errors.New("boom") }}}
	_, err := Run(t.Context(), cfg, memory())
	if err == nil || !strings.Contains(err.Error(), `fault "broken"`) || !strings.Contains(err.Error(), "boom") {
		t.Errorf("Run with a failing fault = %v; want its error", err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := Run(ctx, base(t, Async), memory()); !errors.Is(err, context.Canceled) {
		t.Errorf("Run with a cancelled context = %v; want context.Canceled", err)
	}
	failing := func(_ context.Context, i int) (exchange.Store, error) {
		if i == 2 {
			return nil, errors.New("no store")
		}
		return exchange.NewMemory().Open("job", exchange.Limits{})
	}
	if _, err := Run(t.Context(), base(t, Sync), failing); err == nil || !strings.Contains(err.Error(), "peer 2") {
		t.Errorf("Run with a store that does not open = %v; want an error naming peer 2", err)
	}
	for range 100 {
		if runtime.NumGoroutine() <= before {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Errorf("%d goroutines before, %d after", before, runtime.NumGoroutine())
}

// redis-server killed in the middle of a synchronous run, down 200 ms,
// back empty: with the mutation that re-reads every slot after a loss,
// a peer applies the restored updates a second time, and Check says so
// (the correct protocol's run on the same schedule is
// TestRedisSameAsMemory's).
func TestKillRedisMutation(t *testing.T) {
	if testing.Short() {
		t.Skip("starts redis-server")
	}
	cfg := base(t, Sync)
	open, srv := redisOpener(t)
	cfg.mutation = mutRereadAfterLoss
	cfg.Faults = []Fault{{At: 300 * time.Millisecond, Name: "kill redis-server", Do: func(context.Context) error {
		srv.Kill()
		time.Sleep(200 * time.Millisecond)
		srv.Restart()
		return nil
	}}}
	_, err := Check(run(t, cfg, open).Trace)
	var ce *CheckError
	if !errors.As(err, &ce) || ce.Violations[0].Rule != consistency.RuleTwice {
		t.Fatalf("Check = %v; want an update averaged twice, first", err)
	}
	t.Logf("%v", ce.Violations[0])
}
