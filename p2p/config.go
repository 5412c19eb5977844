package p2p

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/syncmodels/syncmodels/algorithms"
	"github.com/syncmodels/syncmodels/filter"
	"github.com/syncmodels/syncmodels/latency"
)

// Mode is how peers wait for each other.
type Mode uint8

const (
	// Sync: a barrier per round; every peer averages the same round of
	// every peer (§III-B6, "a synchronization barrier is added to ensure
	// that all peers progress through the distributed training process
	// together").
	Sync Mode = iota + 1
	// Async: no barrier; a peer averages its own update with whatever
	// the others last published and it has not averaged yet (§III-B6:
	// "a peer can start updating its model with the latest available
	// gradients from other peers, without waiting").
	Async
)

func (m Mode) String() string {
	switch m {
	case Sync:
		return "sync"
	case Async:
		return "async"
	}
	return fmt.Sprintf("Mode(%d)", uint8(m))
}

// ParseMode reads "sync" or "async".
func ParseMode(s string) (Mode, error) {
	switch s {
	case "sync":
		return Sync, nil
	case "async":
		return Async, nil
	}
	return 0, fmt.Errorf("p2p: mode %q: want sync or async: %w", s, ErrConfig)
}

// Barrier is how a synchronous round waits.
type Barrier uint8

const (
	// TwoBarriers (the default) waits twice a round, each time on a
	// counting set of that round: after publishing ("pub/r": every peer's
	// round-r update is in its slot before anyone reads) and after reading
	// ("read/r": nobody replaces its round-r update with round r+1's
	// before every peer has read it). Every peer averages exactly the
	// round-r update of every peer.
	TwoBarriers Barrier = iota
	// OneBarrier is the paper's: one barrier a round, after publishing,
	// then each peer reads the others' latest values. It races: a fast
	// peer passes the barrier, reads, updates, computes and publishes
	// round r+1 into its slot before a slow peer has read its round-r
	// update, and the slow peer averages round r+1's in its round r (and
	// never sees round r's). Kept to reproduce that race; Check reports
	// it.
	OneBarrier
)

func (b Barrier) String() string {
	switch b {
	case TwoBarriers:
		return "two-barriers"
	case OneBarrier:
		return "one-barrier"
	}
	return fmt.Sprintf("Barrier(%d)", uint8(b))
}

// Config configures a run.
type Config struct {
	// Alg is the workload: a gradient-descent workload whose deltas are
	// gradient sums with a Count (logreg, pmf, nmf). Every peer keeps a
	// replica of θ in a Server of its own (Alg.NewServer: its own
	// optimizer state). Required.
	Alg algorithms.Algorithm
	// Peers is the number of peers P, 1 ≤ P ≤ 1024. Peer i trains on
	// shard i of Alg's points (contiguous blocks, or a seeded permutation
	// with Shuffle) and is exchange node i.
	Peers int
	// Mode is Sync or Async. Default Sync.
	Mode Mode
	// Barrier (Sync only) is TwoBarriers (the default) or the paper's
	// racy OneBarrier.
	Barrier Barrier
	// Rounds is how many rounds every peer runs, ≥ 1.
	Rounds int
	// Batch is the number of points a peer computes its gradient on each
	// round, taken in order from its shard and wrapping around; 0 means
	// its whole shard: one gradient per epoch, the average of its batches'
	// gradients, as Algorithm 1 computes it.
	Batch int
	// QSGD, if set, quantises every published gradient (Alistarh et al.,
	// the paper's §III-B4) and publishes it as packed levels
	// (exchange.Peer.PublishPacked); a peer averages its own update as
	// the others receive it, so synchronous replicas stay identical. nil
	// publishes float64 values.
	QSGD *filter.QSGD
	// Seed seeds the QSGD rounding draws, the shuffle, θ0 and the
	// per-operation latencies. Same seed, same run.
	Seed uint64
	// Shuffle shards a seeded permutation of the points instead of
	// contiguous blocks.
	Shuffle bool
	// Job identifies the run in the store (exchange.Config.Job).
	Job uint64
	// Inline is exchange.Config.Inline: the largest update a slot holds
	// itself; larger ones go to a blob (the paper's S3 objects for
	// messages beyond RabbitMQ's limit, §III-B3). 0: the exchange's
	// default (16 KiB).
	Inline int
	// Cost is the cost model that times every operation in virtual time.
	Cost CostModel
	// Eval is how often, in rounds, each peer evaluates the objective
	// (and Accuracy) on its replica; the last round is always evaluated.
	// 0 means every round.
	Eval int
	// Accuracy, if set, scores a replica (test accuracy, say); it is
	// reported beside the objective. It must not keep theta.
	Accuracy func(theta []float64) float64
	// Faults are run, in order of At, when the virtual clock reaches At:
	// a store restart, say (exchange.Memory.Restart, redistest's Kill and
	// Restart). Peers blocked at a barrier then check the store, as a
	// real client's wait notices a loss.
	Faults []Fault
	// Unavailable bounds how long, in real time, a peer retries a store
	// that is unreachable (exchange.ErrUnavailable) before the run fails.
	// Retries cost no virtual time, so they do not change the schedule.
	// 0 means 30 s.
	Unavailable time.Duration

	// mutation switches on one deliberate bug, for the tests that show
	// Check catching it.
	mutation mutation
}

// mutation is a deliberate bug (tests only).
type mutation uint8

const (
	mutNone mutation = iota
	// mutRereadAfterLoss: a peer that learns of a store loss after it
	// averaged its round redoes the round's average: it reads every
	// other peer's slot again with Latest (no dedup) — the restored
	// updates it already applied — and applies them, and its own, again.
	mutRereadAfterLoss
)

// Fault is something done to the store at a virtual time.
type Fault struct {
	// At is the virtual time, ≥ 0.
	At time.Duration
	// Name says what it is, for errors.
	Name string
	// Do does it. An error ends the run.
	Do func(ctx context.Context) error
}

// CostModel times a run in virtual time: computation by a per-point
// cost, store requests by a round trip, bandwidth and an optional
// per-operation latency. The zero value costs nothing; PaperVGG11 is the
// paper's VGG11 on MNIST.
type CostModel struct {
	// PerPoint is the peer's computation time per data point on its
	// instance.
	PerPoint time.Duration
	// BatchSize is B, the size of the batches a peer computes its
	// gradient in (Algorithm 1's m batches of size B; the last may be
	// smaller). 0: one batch of the round's points.
	BatchSize int
	// BatchOverhead is the instance's cost per batch (framework and data
	// loading).
	BatchOverhead time.Duration
	// Serverless, if set, offloads the batches to cloud functions (§III-C:
	// "By assigning specific Lambda functions to data batches"): each
	// batch is one invocation and invocations run in parallel.
	Serverless *Serverless
	// RTT is the round trip of one store request.
	RTT time.Duration
	// Bandwidth is the peer's bandwidth to the store in bytes per second,
	// each way; 0 means unlimited.
	Bandwidth float64
	// Latency, if not zero, adds a seeded delay to every store request
	// (package latency: a heavy tail, say), drawn with Sample(Seed, peer,
	// request number).
	Latency latency.Dist
	// Slow slows peers down: Slow[i] for peer i (len 0, or Peers).
	Slow []Slowdown
}

// Serverless is the function side of the paper's architecture: a peer
// (a small instance) invokes one function per batch of its gradient.
type Serverless struct {
	// Invoke is each invocation's fixed cost: start, orchestration (Step
	// Functions), loading the batch from S3.
	Invoke time.Duration
	// PerPoint is the computation time per data point in a function.
	PerPoint time.Duration
	// Concurrency is how many functions a peer runs at once; 0 means
	// every batch at once (the paper's dynamic state machine).
	Concurrency int
	// MemoryMB is the functions' memory, which sets their price
	// (LambdaPrice). 0 means 1024.
	MemoryMB int
}

// Slowdown multiplies a peer's costs: a straggler.
type Slowdown struct {
	// Compute multiplies its computation time; Comm its store requests'
	// time (round trip, transfer and latency). 0 means 1.
	Compute, Comm float64
}

// ErrConfig reports an invalid Config.
var ErrConfig = errors.New("p2p: invalid configuration")

// validate fills defaults and checks cfg.
func (c Config) validate() (Config, error) {
	bad := func(format string, args ...any) (Config, error) {
		return c, fmt.Errorf("p2p: Config: "+format+": %w", append(args, ErrConfig)...)
	}
	if c.Alg == nil {
		return bad("Alg is nil")
	}
	l := c.Alg.Layout()
	if l.Params != l.Delta {
		return bad("workload %s has params %d and deltas %d: p2p averages gradients, which need a delta per parameter", c.Alg.Name(), l.Params, l.Delta)
	}
	if c.Mode == 0 {
		c.Mode = Sync
	}
	if c.Eval == 0 {
		c.Eval = 1
	}
	if c.Unavailable == 0 {
		c.Unavailable = 30 * time.Second
	}
	n := c.Alg.NumPoints()
	switch {
	case c.Peers < 1 || c.Peers > maxPeers:
		return bad("Peers %d: want 1 ≤ Peers ≤ %d", c.Peers, maxPeers)
	case c.Peers > n:
		return bad("Peers %d: the workload has %d points, one at least per peer", c.Peers, n)
	case c.Mode != Sync && c.Mode != Async:
		return bad("Mode %v unknown", c.Mode)
	case c.Barrier != TwoBarriers && c.Barrier != OneBarrier:
		return bad("Barrier %v unknown", c.Barrier)
	case c.Rounds < 1:
		return bad("Rounds %d: want ≥ 1", c.Rounds)
	case c.Batch < 0:
		return bad("Batch %d is negative", c.Batch)
	case c.Eval < 0:
		return bad("Eval %d is negative", c.Eval)
	case c.Unavailable < 0:
		return bad("Unavailable %v is negative", c.Unavailable)
	case c.Inline < -1:
		return bad("Inline %d: want ≥ −1", c.Inline)
	}
	if c.QSGD != nil {
		if err := checkQSGD(*c.QSGD); err != nil {
			return bad("QSGD: %v", err)
		}
	}
	if err := c.Cost.validate(c.Peers); err != nil {
		return bad("Cost: %v", err)
	}
	for i, f := range c.Faults {
		if f.At < 0 || f.Do == nil {
			return bad("Faults[%d] (%q): want At ≥ 0 and Do set", i, f.Name)
		}
	}
	return c, nil
}

// maxPeers bounds Config.Peers.
const maxPeers = 1024

// checkQSGD checks a QSGD configuration as filter does.
func checkQSGD(q filter.QSGD) error {
	if q.Levels < 0 || q.Levels > filter.MaxLevels {
		return fmt.Errorf("levels %d, want 1..%d (0: %d)", q.Levels, filter.MaxLevels, filter.DefaultLevels)
	}
	if q.Norm != filter.LInf && q.Norm != filter.L2 {
		return fmt.Errorf("norm %v unknown", q.Norm)
	}
	return nil
}

// validate checks the cost model for p peers.
func (m CostModel) validate(p int) error {
	dur := func(name string, d time.Duration) error {
		if d < 0 {
			return fmt.Errorf("%s %v is negative", name, d)
		}
		return nil
	}
	for _, e := range []error{
		dur("PerPoint", m.PerPoint), dur("BatchOverhead", m.BatchOverhead), dur("RTT", m.RTT),
	} {
		if e != nil {
			return e
		}
	}
	switch {
	case m.BatchSize < 0:
		return fmt.Errorf("BatchSize %d is negative", m.BatchSize)
	case !(m.Bandwidth >= 0) || math.IsInf(m.Bandwidth, 0):
		return fmt.Errorf("Bandwidth %v: want a finite number ≥ 0", m.Bandwidth)
	case len(m.Slow) != 0 && len(m.Slow) != p:
		return fmt.Errorf("Slow has %d entries for %d peers", len(m.Slow), p)
	}
	if err := m.Latency.Validate(); err != nil {
		return err
	}
	for i, s := range m.Slow {
		for _, f := range []float64{s.Compute, s.Comm} {
			if !(f >= 0) || math.IsInf(f, 0) {
				return fmt.Errorf("Slow[%d] = %+v: want finite factors ≥ 0", i, s)
			}
		}
	}
	if s := m.Serverless; s != nil {
		switch {
		case s.Invoke < 0 || s.PerPoint < 0:
			return fmt.Errorf("Serverless %+v: negative time", *s)
		case s.Concurrency < 0:
			return fmt.Errorf("Serverless.Concurrency %d is negative", s.Concurrency)
		case s.MemoryMB < 0 || s.MemoryMB > 10240:
			return fmt.Errorf("Serverless.MemoryMB %d: want 128..10240 (0: 1024)", s.MemoryMB)
		}
	}
	return nil
}

// slow returns peer i's slowdown, factors of 0 read as 1.
func (m CostModel) slow(i int) Slowdown {
	s := Slowdown{1, 1}
	if i < len(m.Slow) {
		if f := m.Slow[i].Compute; f > 0 {
			s.Compute = f
		}
		if f := m.Slow[i].Comm; f > 0 {
			s.Comm = f
		}
	}
	return s
}

// Batches returns how a round of n points splits into batches: their
// number and the size of the largest.
func (m CostModel) Batches(n int) (count, largest int) {
	if n <= 0 {
		return 0, 0
	}
	b := m.BatchSize
	if b <= 0 || b > n {
		b = n
	}
	return (n + b - 1) / b, b
}

// ComputeTime returns how long a peer takes to compute its gradient over
// n points, and the function invocations that takes (their durations, in
// waves of Serverless.Concurrency). On the instance the batches run one
// after another, BatchOverhead + b·PerPoint each (Algorithm 1's loop
// over batches); with Serverless every batch is an invocation of
// Invoke + b·PerPoint, and the invocations of a wave run in parallel, so
// a wave lasts as its largest batch.
func (m CostModel) ComputeTime(n int) (time.Duration, []time.Duration) {
	count, largest := m.Batches(n)
	if count == 0 {
		return 0, nil
	}
	if s := m.Serverless; s != nil {
		calls := make([]time.Duration, count)
		for k := range calls {
			b := min(largest, n-k*largest)
			calls[k] = s.Invoke + time.Duration(b)*s.PerPoint
		}
		conc := s.Concurrency
		if conc <= 0 {
			conc = count
		}
		var total time.Duration
		for lo := 0; lo < count; lo += conc {
			total += calls[lo] // the first batch of a wave is a largest one
		}
		return total, calls
	}
	return time.Duration(count)*m.BatchOverhead + time.Duration(n)*m.PerPoint, nil
}

// PaperVGG11 is the cost model fitted to the paper's Tables II and III
// (VGG11 on MNIST, four peers; testdata/fit_tables.py): on a t2.large
// instance a batch of B points takes 0.754 s + B·16.17 ms, one batch after
// another (Table III: 258 s for 15 batches of 1024, 394.8 s for 235 of
// 64); as a Lambda function of MemoryMB it takes 9.25 s + B·32.24 ms, all
// batches at once (Table II: 41.2 s at B = 1024, 10.5 s at B = 64). The
// fits are within 7% of every table entry. The store's round trip and
// bandwidth are not in the paper: rtt and bandwidth (bytes/s) are the
// caller's. With serverless, the memory is Table II's for the batch size
// (4400 MB at 1024, 2800 at 512, 1800 at 128, 1700 at 64; other sizes
// take the next larger listed batch's).
func PaperVGG11(batch int, serverless bool, rtt time.Duration, bandwidth float64) CostModel {
	m := CostModel{
		PerPoint:      16171 * time.Microsecond,
		BatchSize:     batch,
		BatchOverhead: 754 * time.Millisecond,
		RTT:           rtt,
		Bandwidth:     bandwidth,
	}
	if serverless {
		m.Serverless = &Serverless{
			Invoke:   9246 * time.Millisecond,
			PerPoint: 32243 * time.Microsecond,
			MemoryMB: PaperLambdaMemory(batch),
		}
	}
	return m
}

// PaperLambdaMemory is Table II's Lambda memory for batch size b: "Lambda
// memory size was set to match the minimal functional requirements".
func PaperLambdaMemory(b int) int {
	switch {
	case b <= 64:
		return 1700
	case b <= 128:
		return 1800
	case b <= 512:
		return 2800
	}
	return 4400
}
