package harness

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/syncmodels/syncmodels/algorithms"
	"github.com/syncmodels/syncmodels/arrival"
	"github.com/syncmodels/syncmodels/consistency"
	"github.com/syncmodels/syncmodels/transport"
	"github.com/syncmodels/syncmodels/transport/inproc"
)

// realKGroupExp is K-grouping over Poisson streams on goroutines: 6
// workers at 1,000 points/s, batches of 50, K = 4, for 600 ms of
// synctest's clock, over a link with 1 ms of latency (or net).
func realKGroupExp(t *testing.T, net func(algorithms.Layout) (transport.Transport, error)) Experiment {
	if net == nil {
		net = func(l algorithms.Layout) (transport.Transport, error) {
			return inproc.New(inproc.Config{Layout: l, Delay: time.Millisecond})
		}
	}
	return Experiment{Algorithm: mutationKMeans(t), Sync: consistency.Spec{Kind: consistency.KGroup, Group: 4}, Workers: 6,
		Batch: 50, Seed: 5, Shuffle: true, Arrivals: &arrival.Spec{Rate: 1000}, Clock: Real, Duration: 600 * time.Millisecond,
		Retry: 5 * time.Millisecond, Lease: 50 * time.Millisecond, Network: net}
}

// A restarted worker that starts its stream afresh and computes from its
// own count of the batches it computed — 0, for a new process — rather
// than from the batch its release names (bugs.restartStream; the
// virtual ownBatch bug on goroutines): its commits echo the release, so
// the coordinator takes them, but the worker's side of the trace names
// batches it computed again. Check catches it (the batches a commit was
// computed from are not those released; batches used twice).
func TestCheckCatchesRealStreamRestart(t *testing.T) {
	for _, bug := range []bool{false, true} {
		synctest.Test(t, func(t *testing.T) {
			e := realKGroupExp(t, nil)
			e.Preempt, e.Duration = &realAggressive, time.Second
			e.bugs.restartStream = bug
			res, err := Run(context.Background(), e)
			if !bug {
				if err != nil {
					t.Fatalf("without the bug: %v", err)
				}
				if res.Rejoins == 0 || res.Versions < 10 {
					t.Fatalf("without the bug: %d rejoins, %d versions: the scenario does not exercise the bug", res.Rejoins, res.Versions)
				}
				return
			}
			var ce *consistency.CheckError
			if !errors.As(err, &ce) {
				t.Fatalf("with the bug: %v; want a *consistency.CheckError", err)
			}
			rules := map[string]bool{}
			for _, v := range ce.Violations {
				rules[v.Rule] = true
			}
			if !rules[consistency.RuleKGroup] {
				t.Fatalf("no %q violation in %v", consistency.RuleKGroup, err)
			}
			t.Logf("caught: %v (%d violations)", ce.Violations[0], ce.Total)
		})
	}
}

// A coordinator that numbers a batch indicator by its own count of the
// worker's batches instead of the number the indicator carries
// (bugs.batchByCount) counts every duplicate (the link duplicates 20% of
// the messages) as a new batch: it releases the worker for batches that
// never arrived. The trace cannot show it — its numbering is consistent
// with itself — so the worker's own check does: it is released for more
// than it holds and ends the run with an error naming the batches.
func TestWorkerRefusesBatchesNotArrived(t *testing.T) {
	dup := func(l algorithms.Layout) (transport.Transport, error) {
		return inproc.New(inproc.Config{Layout: l, Seed: 3, Duplicate: 0.2, Delay: time.Millisecond})
	}
	for _, bug := range []bool{false, true} {
		synctest.Test(t, func(t *testing.T) {
			e := realKGroupExp(t, dup)
			e.bugs.batchByCount = bug
			res, err := Run(context.Background(), e)
			switch {
			case !bug && err != nil:
				t.Fatalf("without the bug: %v", err)
			case !bug && res.Versions < 10:
				t.Fatalf("without the bug: %d versions", res.Versions)
			case bug && (err == nil || !strings.Contains(err.Error(), "arrived at it")):
				t.Fatalf("with the bug: %v; want the worker's refusal of batches that never arrived", err)
			case bug:
				t.Logf("caught: %v", err)
			}
		})
	}
}

// A worker that sends each batch indicator once (bugs.noBatchResend)
// over a link that drops 20% of the messages: the first indicator lost
// leaves a gap that the coordinator's model never fills (it refuses the
// later ones, which come out of order), so the worker's stream stalls
// for the rest of the run. Check judges what the coordinator accepted
// against what the workers' side recorded: each worker's stream produced
// count at the stop (RecProduced), which the coordinator's announced
// batches fall short of — RuleLost, naming the batches. Without the bug
// the trace passes, and the workers' announced batches are within 5
// standard deviations of the N·λ·T/b their streams produced.
func TestLostBatchIndicatorStalls(t *testing.T) {
	lossy := func(l algorithms.Layout) (transport.Transport, error) {
		return inproc.New(inproc.Config{Layout: l, Seed: 7, Drop: 0.2, Delay: time.Millisecond})
	}
	for _, bug := range []bool{false, true} {
		synctest.Test(t, func(t *testing.T) {
			e := realKGroupExp(t, lossy)
			e.Duration = 2 * time.Second // a worker's stall lasts: the gap grows
			e.bugs.noBatchResend = bug
			res, err := Run(context.Background(), e)
			if bug {
				wantLost(t, err, "stream produced")
				return
			}
			if err != nil {
				t.Fatalf("without the bug: %v", err)
			}
			want := float64(e.Workers) * e.Arrivals.Rate * res.Duration.Seconds() / float64(e.Batch) // about 240
			got := 0
			for _, ws := range res.Workers {
				got += ws.Batches
			}
			if float64(got) < want-5*math.Sqrt(want)-float64(e.Workers) {
				t.Fatalf("without the bug %d batches announced; want about %.0f", got, want)
			}
		})
	}
}

// lateBatchNet wraps an in-process network: every batch indicator a
// worker sends in the window before the run's end is lost, so that the
// streams end the run with indicators unacknowledged.
type lateBatchNet struct {
	transport.Transport
	from, to atomic.Int64 // the window, Unix nanoseconds (synctest's clock)
	dropped  atomic.Int64
}

func (n *lateBatchNet) Open(id transport.NodeID) (transport.Endpoint, error) {
	ep, err := n.Transport.Open(id)
	if err != nil || id == transport.Coordinator {
		return ep, err
	}
	return &lateBatchEndpoint{Endpoint: ep, n: n}, nil
}

type lateBatchEndpoint struct {
	transport.Endpoint
	n *lateBatchNet
}

func (e *lateBatchEndpoint) Send(ctx context.Context, m *transport.Message) error {
	if now := time.Now().UnixNano(); m.Kind == transport.Batch && now >= e.n.from.Load() && now < e.n.to.Load() {
		e.n.dropped.Add(1)
		return nil
	}
	return e.Endpoint.Send(ctx, m)
}

// At the stop, a worker sends its stream's indicators the coordinator
// has not acknowledged until it has, and only then leaves; the
// coordinator's drain waits for that. Every indicator sent in the last
// 60 ms of the run is lost here: a worker that leaves without seeing
// them acknowledged (bugs.leaveWithBatches) loses the batches its stream
// produced then, and Check, holding the coordinator's count to each
// worker's RecProduced, says which.
func TestStopDrainsBatchIndicators(t *testing.T) {
	for _, bug := range []bool{false, true} {
		synctest.Test(t, func(t *testing.T) {
			var net *lateBatchNet
			e := realKGroupExp(t, func(l algorithms.Layout) (transport.Transport, error) {
				tr, err := inproc.New(inproc.Config{Layout: l, Delay: time.Millisecond})
				net = &lateBatchNet{Transport: tr}
				return net, err
			})
			e.OnStart = func(start time.Time) {
				end := start.Add(e.Duration)
				net.from.Store(end.Add(-60 * time.Millisecond).UnixNano())
				net.to.Store(end.UnixNano())
			}
			e.bugs.leaveWithBatches = bug
			_, err := Run(context.Background(), e)
			if net.dropped.Load() == 0 {
				t.Fatal("no indicator was sent in the run's last 60 ms")
			}
			if bug {
				wantLost(t, err, "stream produced")
				return
			}
			if err != nil {
				t.Fatalf("without the bug (%d indicators lost): %v", net.dropped.Load(), err)
			}
		})
	}
}

// stallNet wraps an in-process network: worker 1's sends stall from the
// window's start for stall (or until their context ends), as a send
// into a full socket buffer does.
type stallNet struct {
	transport.Transport
	from     atomic.Int64 // Unix nanoseconds (synctest's clock); 0 = never
	stall    time.Duration
	all      bool         // heartbeats and every other message too, not commits only
	recvFrom atomic.Int64 // worker 1 receives nothing from then on (0: never)
	// hearRejects: but Rejects
	hearRejects bool
	hit         atomic.Int64
}

func (n *stallNet) Open(id transport.NodeID) (transport.Endpoint, error) {
	ep, err := n.Transport.Open(id)
	if err != nil || id != 1 {
		return ep, err
	}
	return &stallEndpoint{Endpoint: ep, n: n}, nil
}

type stallEndpoint struct {
	transport.Endpoint
	n *stallNet
}

// Recv loses every message but Reject that arrives from the net's
// recvFrom on (0 = never).
func (e *stallEndpoint) Recv(ctx context.Context) (*transport.Message, error) {
	for {
		m, err := e.Endpoint.Recv(ctx)
		if f := e.n.recvFrom.Load(); err != nil || f == 0 || time.Now().UnixNano() < f || m.Kind == transport.Reject && e.n.hearRejects {
			return m, err
		}
	}
}

func (e *stallEndpoint) Send(ctx context.Context, m *transport.Message) error {
	if f := e.n.from.Load(); f > 0 && time.Now().UnixNano() >= f && time.Now().UnixNano() < f+int64(e.n.stall) && (m.Kind == transport.Commit || e.n.all) {
		e.n.hit.Add(1)
		t := time.NewTimer(e.n.stall)
		defer t.Stop()
		select {
		case <-t.C:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return e.Endpoint.Send(ctx, m)
}

// A worker whose sends stall near the run's end ends the run with a
// delta neither accepted nor refused to it, in two ways:
//   - its commits stall for 700 ms (heartbeats go on), or everything does
//     (its lease runs out, and it rejoins): its send had not returned when
//     the drain gave up (50 × Retry), so the delta never left it;
//   - everything stalls for 150 ms from 200 ms before the end (its lease
//     runs out) and it receives nothing from 190 ms before the end but
//     the Reject of its commit, which reaches the coordinator after the
//     lease ran out: it rejoins as incarnation 2 (the coordinator's
//     answer gives the commit up), and the run ends before it hears the
//     answer; or, without the Reject, it never hears that it must
//     rejoin, and ends the run out.
//
// The run ended without the delta, as virtual time ends without a commit
// still on the link; the worker's side records its abandonment, the
// reason saying which, and Check passes. (A member whose commit left it
// and which does not resend it in the drain is
// TestCheckCatchesCommitNeverResent's: lost.)
func TestStalledSendAtTheEnd(t *testing.T) {
	for _, c := range []struct {
		spec   string
		all    bool          // every message of worker 1 stalls, not its commits only
		before time.Duration // the stall starts this long before the end
		stall  time.Duration
		deaf   time.Duration // worker 1 receives nothing from this long before the end (0: never)
		reject bool          // but Rejects
		expire bool          // worker 1's lease runs out
		reason string
	}{
		{"bsp", false, 40 * time.Millisecond, 700 * time.Millisecond, 0, false, false, "its send had not returned"},
		{"asp", true, 40 * time.Millisecond, 700 * time.Millisecond, 0, false, false, "its send had not returned"},
		{"bsp", true, 200 * time.Millisecond, 700 * time.Millisecond, 0, false, true, "its send had not returned"},
		{"bsp", true, 200 * time.Millisecond, 150 * time.Millisecond, 190 * time.Millisecond, true, true, "which the coordinator had replaced by 2"},
		{"bsp", true, 200 * time.Millisecond, 150 * time.Millisecond, 190 * time.Millisecond, false, true, "refuses a non-member's commits"},
	} {
		t.Run(fmt.Sprintf("%s/all=%v/%v/%v/deaf=%v/rejects=%v", c.spec, c.all, c.before, c.stall, c.deaf, c.reject), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var net *stallNet
				e := Experiment{Algorithm: mutationKMeans(t), Sync: consistency.MustParse(c.spec), Workers: 4, Batch: 50, Seed: 3,
					Clock: Real, Duration: 300 * time.Millisecond, Retry: 5 * time.Millisecond, Lease: 50 * time.Millisecond,
					Network: func(l algorithms.Layout) (transport.Transport, error) {
						tr, err := inproc.New(inproc.Config{Layout: l, Seed: 1, Delay: 400 * time.Microsecond})
						net = &stallNet{Transport: tr, stall: c.stall, all: c.all, hearRejects: c.reject}
						return net, err
					}}
				e.OnStart = func(start time.Time) {
					end := start.Add(e.Duration)
					net.from.Store(end.Add(-c.before).UnixNano())
					if c.deaf > 0 {
						net.recvFrom.Store(end.Add(-c.deaf).UnixNano())
					}
				}
				res, err := Run(context.Background(), e)
				if net.hit.Load() == 0 {
					t.Fatal("no send of worker 1 stalled")
				}
				if err != nil {
					t.Fatalf("%+v", err)
				}
				reason := ""
				for _, r := range res.Trace.Records {
					if r.Kind == consistency.RecAbandon && r.Worker == 1 {
						reason = r.Reason
					}
				}
				if c.expire != (res.Expired > 0) {
					t.Fatalf("%d leases expired; want worker 1's to expire: %v", res.Expired, c.expire)
				}
				if !strings.Contains(reason, c.reason) {
					t.Fatalf("worker 1's last abandonment: %q; want one naming %q", reason, c.reason)
				}
				t.Logf("%d expired, %d versions; worker 1's last abandonment: %q", res.Expired, res.Versions, reason)
			})
		})
	}
}
