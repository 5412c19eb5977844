package harness_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/syncmodels/syncmodels/algorithms"
	"github.com/syncmodels/syncmodels/consistency"
	"github.com/syncmodels/syncmodels/harness"
	"github.com/syncmodels/syncmodels/interval"
	"github.com/syncmodels/syncmodels/transport"
	"github.com/syncmodels/syncmodels/transport/inproc"
)

// Under semi-centralized FSP the interval goes out with the release, so
// an interval a tuner sets after a round's apply must reach that round's
// releases: the first round runs at the tuner's 3 ms, not at the spec's
// 250 ms default (which would make it a full pass, 5 ms for a fast
// worker, and much longer for a straggler).
func TestSemiCentralizedTakesTunedInterval(t *testing.T) {
	alg := blobsKMeans(t, 4000)
	e := smallExp(alg, "fsp:semi")
	tu, err := interval.NewFixed(3 * time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	e.Tuner = tu
	r, err := harness.Run(context.Background(), e)
	if err != nil {
		t.Fatal(err)
	}
	for _, rec := range r.Trace.Records {
		if rec.Kind == consistency.RecApply {
			// 3 ms of local timer, plus latency and the commits' transfer.
			if rec.At > 4*time.Millisecond {
				t.Errorf("first apply at %v; want the first round to run at the tuned 3 ms", rec.At)
			}
			break
		}
	}
	if r.Versions < 40 {
		t.Errorf("%d versions in %v at 3 ms per round", r.Versions, r.Duration)
	}
}

// reportLog is an interval.Tuner that records the reports it is given.
type reportLog struct {
	interval.Tuner
	reps []interval.Report
}

func (l *reportLog) Observe(rep interval.Report) error {
	l.reps = append(l.reps, rep)
	return l.Tuner.Observe(rep)
}

// runFixedLogged runs e under a fixed 1 ms interval and returns the
// tuner's reports, at least atLeast of them.
func runFixedLogged(t *testing.T, e harness.Experiment, atLeast int) *reportLog {
	t.Helper()
	f, err := interval.NewFixed(time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	log := &reportLog{Tuner: f}
	e.Tuner = log
	if _, err := harness.Run(context.Background(), e); err != nil {
		t.Fatal(err)
	}
	if len(log.reps) < atLeast {
		t.Fatalf("%d reports; want at least %d", len(log.reps), atLeast)
	}
	return log
}

// The barrier cost φ a tuner is told (interval.Report.BarrierCost) runs
// from the round's barrier initiation to the release. Under
// semi-centralized coordination the barrier begins when the first local
// timer fires, not with an interrupt (there is none), so φ is not 0:
// FSPV took φ = 0 as free barriers and ran at its shortest interval,
// doubling the wait of the default syncbench scenario.
//
// By hand, two equal workers, no stragglers, η = 1 ms = 100 points of
// P = 10 µs, latency L = 100 µs, links fast enough that transfers take
// under a nanosecond and an apply of under 1 µs (≈ 100 entries at 2 ns):
// semi-centralized, both timers are η (equal measured responses), the
// worker commits within one point after its timer fires and the commit
// arrives L later, so φ ∈ [L, L+P+1µs]; centralized, the interrupt
// travels L from the coordinator's timer first, so φ ∈ [2L, 2L+P+1µs].
func TestSemiCentralizedBarrierCost(t *testing.T) {
	const (
		lat   = 100 * time.Microsecond
		point = 10 * time.Microsecond
	)
	alg := blobsKMeans(t, 4000)
	for _, tc := range []struct {
		spec   string
		lo, hi time.Duration
	}{
		{"fsp:semi", lat, lat + point + time.Microsecond},
		{"fsp", 2 * lat, 2*lat + point + time.Microsecond},
	} {
		t.Run(tc.spec, func(t *testing.T) {
			e := smallExp(alg, tc.spec)
			e.Workers, e.Stragglers = 2, harness.Stragglers{}
			e.Cost = harness.CostModel{PointCost: point, Latency: lat, Bandwidth: 1e18}
			e.Duration = 50 * time.Millisecond
			log := runFixedLogged(t, e, 1)
			t.Logf("%d reports, the first: %+v", len(log.reps), log.reps[0])
			for i, rep := range log.reps {
				if rep.BarrierCost < tc.lo || rep.BarrierCost > tc.hi {
					t.Errorf("report %d: φ = %v, want in [%v, %v]", i, rep.BarrierCost, tc.lo, tc.hi)
				}
			}
		})
	}
}

// tap is a transport whose endpoints show every message they send to
// sent before sending it; sent may sleep, delaying the sender's message
// (and the sender) as a slow uplink would.
type tap struct {
	transport.Transport
	sent func(from transport.NodeID, m *transport.Message)
}

func (t *tap) Open(id transport.NodeID) (transport.Endpoint, error) {
	ep, err := t.Transport.Open(id)
	if err != nil {
		return nil, err
	}
	return &tapEndpoint{Endpoint: ep, t: t}, nil
}

type tapEndpoint struct {
	transport.Endpoint
	t *tap
}

func (e *tapEndpoint) Send(ctx context.Context, m *transport.Message) error {
	e.t.sent(e.ID(), m)
	return e.Endpoint.Send(ctx, m)
}

// On the real clock, semi-centralized FSP (§5.2) aims every worker's
// commit at the same arrival: a worker whose commits take longer to reach
// the coordinator gets a shorter local timer. Every worker pauses 1 ms
// after every 50 points (so the time it computes is the fake clock's, in
// a synctest bubble) and worker 0's commits take 2 ms more than the
// others'. Centralized FSP at the same η = 4 ms interrupts everybody at
// once, so worker 0's commit arrives about 2 ms after the others' every
// round; semi-centralized, from the second round on its timer is about
// 2 ms shorter and the commits arrive together. The runs pass the
// harness's consistency checks (Run checks the trace).
func TestRealSemiCentralizedAlignsCommits(t *testing.T) {
	const (
		slow = 2 * time.Millisecond
		eta  = 4 * time.Millisecond
	)
	alg := blobsKMeans(t, 4000)
	spread := map[string]time.Duration{}
	for _, spec := range []string{"fsp:4ms", "fsp:4ms:semi"} {
		t.Run(spec, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				e := smallExp(alg, spec)
				e.Clock = harness.Real
				e.Stragglers = harness.Stragglers{Kind: harness.Injected, Count: e.Workers, Tau: time.Millisecond, Every: 50}
				var mu sync.Mutex
				timers := map[transport.NodeID][]time.Duration{} // the releases' timers, per worker
				e.Network = func(l algorithms.Layout) (transport.Transport, error) {
					net, err := inproc.New(inproc.Config{Layout: l, Delay: 200 * time.Microsecond})
					return &tap{Transport: net, sent: func(from transport.NodeID, m *transport.Message) {
						switch {
						case m.Kind == transport.Release:
							mu.Lock()
							timers[m.To] = append(timers[m.To], m.Timer)
							mu.Unlock()
						case m.Kind == transport.Commit && from == 0:
							time.Sleep(slow)
						}
					}}, err
				}
				res, err := harness.Run(context.Background(), e)
				if err != nil {
					t.Fatal(err)
				}
				// The spread of each round's commit arrivals, from the
				// third round on (the first measures the responses).
				first, last := map[uint64]time.Duration{}, map[uint64]time.Duration{}
				n := map[uint64]int{}
				for _, r := range res.Trace.Records {
					if r.Kind != consistency.RecCommit {
						continue
					}
					if _, ok := first[r.Clock]; !ok {
						first[r.Clock] = r.At
					}
					last[r.Clock], n[r.Clock] = r.At, n[r.Clock]+1
				}
				var sum time.Duration
				rounds := 0
				for c := range n {
					if c >= 2 && n[c] == e.Workers {
						sum += last[c] - first[c]
						rounds++
					}
				}
				if rounds < 5 {
					t.Fatalf("%d complete rounds after the second; the test needs 5", rounds)
				}
				spread[spec] = sum / time.Duration(rounds)
				semi := strings.HasSuffix(spec, ":semi")
				t0, t1 := timers[0], timers[1]
				t.Logf("%d rounds, mean commit spread %v; worker 0's timers %v, worker 1's %v", rounds, spread[spec], t0[:3], t1[:3])
				for w, ts := range timers {
					for i, tm := range ts {
						if (tm > 0) != semi {
							t.Fatalf("worker %d's release %d carries timer %v under %s", w, i, tm, spec)
						}
					}
				}
				if semi {
					// Worker 0's timer is shorter by about its extra delay
					// (7/8 of it: the mean lag grows by 1/8).
					if d := t1[2] - t0[2]; d < slow/2 || d > slow {
						t.Errorf("worker 0's third timer %v, worker 1's %v; want it shorter by about %v", t0[2], t1[2], slow)
					}
				}
			})
		})
	}
	t.Logf("mean spread of commit arrivals in a round: centralized %v, semi-centralized %v", spread["fsp:4ms"], spread["fsp:4ms:semi"])
	if c, s := spread["fsp:4ms"], spread["fsp:4ms:semi"]; c < slow/2 || s > c/4 {
		t.Errorf("commit spread: centralized %v, semi-centralized %v; want centralized ≥ %v and semi-centralized under a quarter of it", c, s, slow/2)
	}
}

// On the real clock the tuner is told a semi-centralized round's barrier
// cost too. The coordinator cannot see a worker's timer fire; it dates
// the barrier's beginning at the earliest release's sending plus its
// timer, so φ also counts the release's delivery: with two equal workers
// that pause 1 ms after every 100 points (the synctest bubble's fake
// clock), latency L = 100 µs each way and η = 1 ms, both timers are η
// and φ = 2L — not 0, which FSPV would take as free barriers.
func TestRealSemiCentralizedBarrierCost(t *testing.T) {
	const lat = 100 * time.Microsecond
	alg := blobsKMeans(t, 4000)
	synctest.Test(t, func(t *testing.T) {
		e := smallExp(alg, "fsp:semi")
		e.Clock, e.Workers = harness.Real, 2
		e.Stragglers = harness.Stragglers{Kind: harness.Injected, Count: 2, Tau: time.Millisecond, Every: 100}
		e.Network = delayed(lat)
		e.Duration = 50 * time.Millisecond
		log := runFixedLogged(t, e, 5)
		t.Logf("%d reports, the first: %+v", len(log.reps), log.reps[0])
		for i, rep := range log.reps {
			if rep.BarrierCost != 2*lat {
				t.Errorf("report %d: φ = %v, want %v", i, rep.BarrierCost, 2*lat)
			}
		}
	})
}
