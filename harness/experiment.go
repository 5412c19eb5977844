package harness

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/syncmodels/syncmodels/algorithms"
	"github.com/syncmodels/syncmodels/arrival"
	"github.com/syncmodels/syncmodels/consistency"
	"github.com/syncmodels/syncmodels/interval"
	"github.com/syncmodels/syncmodels/latency"
	"github.com/syncmodels/syncmodels/preempt"
	"github.com/syncmodels/syncmodels/scalein"
	"github.com/syncmodels/syncmodels/transport"
)

// ErrConfig reports an invalid experiment: a field of Experiment, or a
// component it names, that cannot run (docs/errors.md).
var ErrConfig = errors.New("harness: invalid config")

// configErr is a configuration error another package found: its message
// is that package's with the harness's context in front, and it matches
// both that package's sentinel and ErrConfig.
type configErr struct {
	context string
	err     error
}

func configError(context string, err error) error { return &configErr{context, err} }

func (e *configErr) Error() string {
	if e.context == "" {
		return "harness: " + e.err.Error()
	}
	return "harness: " + e.context + ": " + e.err.Error()
}

func (e *configErr) Unwrap() []error { return []error{e.err, ErrConfig} }

// Clock selects the runtime.
type Clock uint8

const (
	// Virtual runs a discrete-event simulation: the arithmetic is real,
	// time comes from the CostModel. Same seed, same trace, any machine.
	Virtual Clock = iota
	// Real runs one goroutine per worker and a coordinator goroutine over
	// a Transport, with real compute time and real sleeps for stragglers.
	Real
)

func (c Clock) String() string {
	if c == Real {
		return "real"
	}
	return "virtual"
}

// StragglerKind selects a straggler pattern (FSP paper §6.1).
type StragglerKind uint8

const (
	// NoStragglers: every worker runs at full speed.
	NoStragglers StragglerKind = iota
	// Injected: the chosen workers pause Tau after every Every points
	// they process.
	Injected
	// Natural: the chosen workers are persistently Slowdown times slower.
	Natural
	// Tail: every operation of the chosen workers (by default all of
	// them) takes an extra delay drawn from Stragglers.Delay, a
	// heavy-tailed distribution (package latency): slsML's tail latency
	// (§"Mitigating stragglers": reading a small file from S3 "takes an
	// order of milliseconds", yet "such delays sometimes exceeded 60
	// seconds", and one delayed read holds up everything that waits for
	// it). An operation is one of a worker's exchanges with the
	// coordinator (or, with Indirect, the store): fetching a release
	// (its n-th release is operation 2n) and sending a commit (its n-th
	// commit is operation 2n+1); its delay is
	// Delay.Sample(Seed, worker, operation), at most Duration, the same on
	// both clocks. In virtual time the delayed message arrives that much
	// later, and the worker's later messages on the same link stay behind
	// it (FIFO). On the real clock the worker sleeps before it computes a
	// release and before it sends a commit; a stop cuts the sleep short.
	// Goroutine and remote workers alike (RunWorker draws the same
	// delays). WorkerStats.Delayed counts the delays, which are in
	// neither Busy nor Wait.
	Tail
)

func (k StragglerKind) String() string {
	switch k {
	case Injected:
		return "injected"
	case Natural:
		return "natural"
	case Tail:
		return "tail"
	}
	return "none"
}

// Stragglers configures slow workers. Which workers straggle is drawn from
// the experiment's seed unless Workers lists them.
type Stragglers struct {
	Kind StragglerKind
	// Count is how many workers straggle, chosen at random from the seed.
	// Default 4 when Kind is Injected or Natural (FSP paper §6.1: 4 of
	// 16), every worker when it is Tail.
	Count int
	// Workers, if set, lists the stragglers instead of Count.
	Workers []int
	// Tau is the Injected pause. Default 32 ms (FSP paper §6.1).
	Tau time.Duration
	// Every is the Injected period in points. Default 1,000.
	Every int
	// Slowdown is the Natural factor (≥ 1). Default 4.
	Slowdown float64
	// Latency is extra one-way message latency on the stragglers' links
	// (a congested host), any kind. Virtual clock only. Default 0.
	Latency time.Duration
	// Delay is the Tail stragglers' per-operation delay distribution.
	// Default (the zero Dist) latency.Default(), slsML-like: a 5 ms
	// lognormal body and, for one operation in 10⁴, a Pareto tail from
	// 10 s. Only with Kind Tail.
	Delay latency.Dist
}

// CostModel gives virtual durations. Real runs ignore it.
type CostModel struct {
	// PointCost is the compute time of one data point on a full-speed
	// worker. Default 10 µs.
	PointCost time.Duration
	// Latency is the one-way message latency. Default 100 µs.
	Latency time.Duration
	// Bandwidth is each link's bandwidth in bytes per second; the
	// coordinator has one incoming and one outgoing link shared by all
	// workers, so broadcasts and bursts of commits queue. Default 1.25e9
	// (10 Gbit/s).
	Bandwidth float64
	// EntryCost is the coordinator's time per delta entry merged and per
	// parameter recomputed by an apply. Default 2 ns.
	EntryCost time.Duration
	// MessageCost is the time each message occupies its coordinator
	// link besides its bytes: the runtime's fixed cost of sending and
	// receiving one (encoding, queueing, a wake-up), which the real
	// runtime's coordinator pays message by message. Default 0 (none).
	MessageCost time.Duration
	// Cores, if positive, is the number of cores the workers share, as
	// goroutine workers on one machine share its GOMAXPROCS: a worker
	// with points to compute waits for a free core, first come first
	// served, and is preempted after 10 ms when others wait (Go's
	// scheduler; cores.go). Fractional on a shared machine: ⌈Cores⌉
	// cores computing Cores cores' worth together. Not with
	// semi-centralized timers, data migration, preemptions or scale-in.
	// Default 0: every worker has a core of its own.
	Cores float64
	// Wakeup, with Cores, is how long a core that has been idle takes
	// to start a worker: the operating system's delay in running a
	// thread that slept, long on a machine other processes load. A core
	// stays awake for a commit's round trip (2·(Latency + MessageCost))
	// and a few microseconds more after its worker stops (Go's scheduler
	// spins before it parks the thread, and the coordinator's handling
	// of the commit runs on it). The worker waits meanwhile. Default 0.
	Wakeup time.Duration
	// CommitCPU, with Cores, is the runtime's compute per commit beyond
	// the points — decoding the release, encoding the commit, the
	// coordinator's handling of both, the garbage they make — charged
	// on the shared cores to the worker, before its batch's first
	// point, and counted in its Wait (as the real runtime counts it:
	// outside a batch's computing), not its Busy time. Default 0.
	CommitCPU time.Duration
	// Stall and StallEvery, with Cores, are the operating system taking
	// a core away for other processes, as it does on a loaded machine:
	// after running StallEvery on average, a core stops for Stall on
	// average (each drawn uniformly between 0 and twice its mean, from
	// the Seed), and the worker on it stops with it; the other cores go
	// on with the other workers. A barrier waits for the stopped one.
	// Default 0: none.
	Stall, StallEvery time.Duration
}

// Experiment is one run: a workload, its shards, a sync model, a cluster,
// faults and a clock.
type Experiment struct {
	// Name labels the run in reports. Default Sync.String().
	Name      string
	Algorithm algorithms.Algorithm
	Sync      consistency.Spec
	// Workers is the number of workers (and shards). Default 16.
	Workers int
	// Batch is the number of points a worker processes per commit; 0 is a
	// full pass over its shard. BSP with FullBatch ignores it.
	Batch int
	// Stragglers are the injected or natural slow workers.
	Stragglers Stragglers
	// Clock selects the runtime. Default Virtual.
	Clock Clock
	// Cost is the virtual cost model.
	Cost CostModel
	// Duration is how long the run lasts (virtual or real time). Default 2 s.
	Duration time.Duration
	// EvalEvery is the interval between objective snapshots. Default
	// Duration/40. The objectives are computed after the run, off the
	// clock.
	EvalEvery time.Duration
	// Target, if HasTarget, is the objective whose first crossing gives
	// Result.TimeToTarget.
	Target    float64
	HasTarget bool
	// Seed seeds θ0, the sharding permutation and the straggler choice.
	Seed uint64
	// Shuffle shards a seeded permutation of the points instead of blocks.
	Shuffle bool
	// Theta0, if set, replaces Algorithm.Init.
	Theta0 []float64
	// Parallel bounds the goroutines used to evaluate objectives. It
	// does not change results. Default GOMAXPROCS.
	Parallel int
	// Replicas runs BSP, SSP, ASP or quorum in MLLess's decentralised
	// design (§3, §4.1; ISP always runs in it): every worker keeps a
	// replica and its own optimizer (the workload's server: Adam for LR,
	// momentum for PMF), computes its gradient on its replica, takes a
	// local step and commits the parameter change; the coordinator adds
	// the changes (no optimizer at the server). A worker's replica is the
	// global state of the version it read. Without Replicas the server
	// takes one optimizer step on the mean of the round's gradients (the
	// parameter-server design). Gradient-descent workloads only; both
	// clocks. See isp.go and docs/runtimes.md.
	Replicas bool
	// Tuner, if set, chooses the barrier interval of an FSP run (package
	// interval: Fixed, BinarySearch = FSPB, LinearFit = FSPV). A tuner
	// that asks for checkpoints and rollbacks (LinearFit) needs the
	// Virtual clock and a workload whose server and workers implement
	// algorithms.Checkpointer (every workload of this module does).
	Tuner interval.Tuner
	// ScaleIn, if set, is MLLess's scale-in auto-tuner (§4.2): after every
	// round it sees the time and the loss (on the control sample) and may
	// evict a worker, which then leaves the run; its data is not
	// redistributed (as in MLLess). Replicas are identical under BSP and
	// FSP, so the evicted worker is the highest ID (scalein's tie rule);
	// under ISP each worker reports its replica's loss on the control
	// sample and the worst replica is evicted, its held updates flushed
	// into the global state. Virtual clock, BSP, FSP or ISP, and a
	// positive minimized objective only.
	ScaleIn *scalein.Tuner
	// Indirect, if set, replaces the direct coordinator links of the cost
	// model with MLLess's indirect communication through a shared store
	// and a signalling channel (§3, §6.4; see StoreModel). Virtual clock
	// only. nil: direct links (CostModel).
	Indirect *StoreModel
	// Migrate, if set, turns on FSP's asynchronous data migration (§4;
	// see Migration). Virtual clock and FSP only.
	Migrate *Migration
	// Preempt, if set, preempts and restores workers on seeded schedules:
	// each worker follows DOLL's two-state availability chain (package
	// preempt; DOLL §III-B4, §V-A), worker n's being
	// preempt.Schedule(*Preempt, Seed, n, Duration), timed from the run's
	// start. A preempted worker leaves the sync model (EvLeave) and loses
	// the batch it was computing; restored, it rejoins (EvJoin) as a fresh
	// incarnation whose per-point state is the checkpoint of its last
	// commit. In virtual time its preemption notice follows its last
	// commit, which is applied (see preempt.go). On the Real clock a
	// preemption kills the worker's goroutine without notice (the lease
	// or its next incarnation's join tells the coordinator), and a commit
	// it sent is applied or, if it never arrived, abandoned by the next
	// incarnation, whose state the join's answer confirms or rolls back
	// (see realpreempt.go). Not with ISP, Replicas, a Tuner, ScaleIn,
	// Indirect, Migrate or Remote. nil: no preemptions.
	Preempt *preempt.Config
	// Arrivals, if set, streams the data to the workers as it arrives
	// (DOLL §III-A; see stream.go): worker n receives points as the
	// renewal process Arrivals gives it, at rate λ_n, only while it is
	// available; every Batch points it announces a batch
	// (consistency.EvBatchReady), and it computes a batch only when
	// released for it. The points arrive in the worker's shard order
	// (Shuffle makes it a seeded random order), wrapping round. Needs
	// the K-grouping model (kgroup:K) and Batch > 0, and K-grouping
	// needs Arrivals. Both clocks, goroutine and remote workers alike
	// (realstream.go).
	Arrivals *arrival.Spec
	// Preemptible lists the workers that run on preemptible instances
	// and follow Preempt's availability chain; the others run on demand
	// and are never preempted. nil: every worker (when Preempt is set).
	// Virtual clock only.
	Preemptible []int
	// Provision, if set, revises which workers run on preemptible
	// instances during the run (DOLL §V-C's adaptive method). Virtual
	// clock and Preempt only.
	Provision *Provisioning
	// Stop holds convergence criteria besides Duration (FSP §5.3).
	Stop Stop
	// ControlSample is how many points (a seeded sample) the objective
	// reported to the Tuner and the Stop checks is computed on. Default
	// 4,096.
	ControlSample int
	// Network, if set, makes the Real runtime's transport for a layout.
	// Default an in-process network (transport/inproc) without delays or
	// losses, seeded with Seed.
	Network func(algorithms.Layout) (transport.Transport, error)
	// Retry is how long a Real worker waits for an acknowledgement or a
	// release before it retransmits its commit or sends a heartbeat.
	// Default 20 ms.
	Retry time.Duration
	// Lease (Real) is how long the coordinator goes without hearing from
	// a worker before it takes the worker as gone: the model sees it
	// leave (EvLeave), so BSP and quorum rounds go on without it, and the
	// trace's leave record says the lease expired. A worker that comes
	// back rejoins as its next incarnation. Workers send something at
	// least every Lease/4, computing or not. Default 1 s; at least
	// 4 × Retry.
	Lease time.Duration
	// Remote (Real) says the workers run elsewhere: the runtime starts no
	// worker goroutines, and each worker runs RunWorker with an identical
	// Experiment over an endpoint of the same network (Network must be
	// set). The run's clock starts once every worker has joined.
	Remote bool
	// OnStart (Real), if set, is called with the instant the run's clock
	// read 0 once every worker has joined (or, resuming from a Journal,
	// the instant it would have read 0), from the run's goroutine: what
	// follows the run's time from outside, such as a cluster.Preempter,
	// starts there.
	OnStart func(origin time.Time)
	// JoinTimeout (Remote) bounds the wait for every worker to join.
	// Default 1 minute.
	JoinTimeout time.Duration
	// Journal (Real), if set, is the path of the coordinator's
	// write-ahead journal (journal.go): every input that changes the
	// coordinator's state is made durable before anything it causes is
	// sent, and a coordinator started on an existing journal of the same
	// job replays it and resumes the run where it stopped (after a crash
	// or kill -9); the members then have JoinTimeout to reconnect before
	// their leases run. Not with Tuner, ISP, Replicas or Preempt.
	Journal string
	// Progress, if set, is called from the run's goroutine every ~10% of
	// Duration.
	Progress func(Progress)
	// DiscardTrace checks the run's trace as it is recorded
	// (consistency.Recorder.CheckOnly) instead of keeping it:
	// Result.Trace is nil, and Run fails exactly when consistency.Check
	// on the kept trace would. A trace takes about 0.6 KB per commit
	// (five records), most of the memory of a long run at thousands of
	// workers. Virtual clock only.
	DiscardTrace bool

	// bugs are deliberate faults that this package's tests switch on to
	// show that consistency.Check catches each way a runtime can lose a
	// delta. Always zero outside those tests.
	bugs mutations
}

// mutations are plausible runtime bugs, each off by default.
type mutations struct {
	// dropBusyCommit (virtual): a commit that arrives while the
	// coordinator is busy is dropped instead of queued.
	dropBusyCommit bool
	// noResend (real): a worker sends each commit once and never again.
	noResend bool
	// anyAck (real): a worker takes any acknowledgement, even a stale
	// one for an earlier commit, as the confirmation of its commit.
	anyAck bool
	// globalDedup (real): the coordinator takes a commit whose sequence
	// number is not above the highest it accepted from any worker for a
	// duplicate, and acknowledges it without applying it.
	globalDedup bool
	// rejoinConfirms (real): a worker that rejoins after its lease
	// expired takes its commit in flight as accepted without asking.
	rejoinConfirms bool
	// noRejoinRestore (real): a worker with per-point state that gives
	// up a computed delta keeps the state the delta came from.
	noRejoinRestore bool
	// noRestore (virtual, Preempt): a restored worker starts from a fresh
	// worker instead of the checkpoint of its last commit, so an EM
	// worker adds its points to the statistics again.
	noRestore bool
	// ownBatch (virtual, K-grouping): a worker computes from where it
	// thinks its stream stands, not from the batch its release names; a
	// restored process thinks it is at the beginning.
	ownBatch bool
	// restartStream (real, K-grouping): a new incarnation ignores the
	// join's count and starts its stream at batch 0, and computes from
	// its own count of batches computed, not from the release's batch.
	restartStream bool
	// noBatchResend (real, K-grouping): a worker sends each batch
	// indicator once, never again.
	noBatchResend bool
	// leaveWithBatches (real, K-grouping): at the stop, a worker leaves
	// without seeing its stream's last indicators acknowledged.
	leaveWithBatches bool
	// batchByCount (real, K-grouping): the coordinator numbers a batch
	// indicator by its own count of the worker's batches, not by the
	// number it carries, so a retransmission counts as a new batch.
	batchByCount bool
}

// Progress reports how far a run has got.
type Progress struct {
	Sync    consistency.Spec
	Elapsed time.Duration // virtual or real
	Of      time.Duration
	Version consistency.Version
}

func (e *Experiment) validate() error {
	if e.Algorithm == nil {
		return fmt.Errorf("harness: no algorithm: %w", ErrConfig)
	}
	if e.Sync.Kind == 0 {
		return fmt.Errorf("harness: no sync model: %w", ErrConfig)
	}
	if e.Name == "" {
		e.Name = e.Sync.String()
	}
	if e.Workers == 0 {
		e.Workers = 16
	}
	if e.Duration == 0 {
		e.Duration = 2 * time.Second
	}
	if e.EvalEvery == 0 {
		e.EvalEvery = e.Duration / 40
	}
	if e.ControlSample == 0 {
		e.ControlSample = 4096
	}
	c := &e.Cost
	if c.PointCost == 0 {
		c.PointCost = 10 * time.Microsecond
	}
	if c.Latency == 0 {
		c.Latency = 100 * time.Microsecond
	}
	if c.Bandwidth == 0 {
		c.Bandwidth = 1.25e9
	}
	if c.EntryCost == 0 {
		c.EntryCost = 2 * time.Nanosecond
	}
	s := &e.Stragglers
	if s.Kind > Tail {
		return fmt.Errorf("harness: straggler kind %d: %w", s.Kind, ErrConfig)
	}
	if s.Kind != Tail && s.Delay != (latency.Dist{}) {
		return fmt.Errorf("harness: Stragglers.Delay %v needs Kind Tail (got %v): %w", s.Delay, s.Kind, ErrConfig)
	}
	if s.Kind == Tail {
		if s.Count == 0 && s.Workers == nil {
			s.Count = e.Workers
		}
		if s.Delay == (latency.Dist{}) {
			s.Delay = latency.Default()
		}
		if err := s.Delay.Validate(); err != nil {
			return configError("Stragglers.Delay", err)
		}
	}
	if s.Kind != NoStragglers {
		if s.Count == 0 && s.Workers == nil {
			s.Count = 4
		}
		if s.Tau == 0 {
			s.Tau = 32 * time.Millisecond
		}
		if s.Every == 0 {
			s.Every = 1000
		}
		if s.Slowdown == 0 {
			s.Slowdown = 4
		}
	}
	if e.Indirect != nil {
		m := *e.Indirect // defaults go into a copy, not the caller's model
		if err := m.validate(e); err != nil {
			return err
		}
		e.Indirect = &m
	}
	if e.Preempt != nil {
		pc := *e.Preempt // likewise
		if err := pc.Validate(); err != nil {
			return configError("", err)
		}
		e.Preempt = &pc
	}
	n := e.Algorithm.NumPoints()
	switch {
	case e.Workers < 1 || e.Workers > n:
		return fmt.Errorf("harness: %d workers for %d points: %w", e.Workers, n, ErrConfig)
	case e.Batch < 0:
		return fmt.Errorf("harness: batch %d < 0: %w", e.Batch, ErrConfig)
	case e.Duration < 0 || e.EvalEvery < 0:
		return fmt.Errorf("harness: negative duration: %w", ErrConfig)
	case e.Retry < 0:
		return fmt.Errorf("harness: retry %v < 0: %w", e.Retry, ErrConfig)
	case e.Journal != "" && (e.Clock != Real || e.Tuner != nil || e.Sync.Kind == consistency.ISP || e.Replicas || e.Preempt != nil):
		return fmt.Errorf("harness: a journal needs the real clock, and no Tuner, ISP, Replicas or Preempt (their state is not journaled): %w", ErrConfig)
	case e.Lease < 0 || e.JoinTimeout < 0:
		return fmt.Errorf("harness: lease %v or join timeout %v < 0: %w", e.Lease, e.JoinTimeout, ErrConfig)
	case e.DiscardTrace && e.Clock != Virtual:
		return fmt.Errorf("harness: DiscardTrace needs the virtual clock (the real clock's ISP records are merged into the kept trace): %w", ErrConfig)
	case e.Remote && (e.Clock != Real || e.Network == nil):
		return fmt.Errorf("harness: remote workers need the real clock and a Network: %w", ErrConfig)
	case e.Remote && (e.Sync.Kind == consistency.ISP || e.Replicas):
		return fmt.Errorf("harness: remote workers cannot run ISP or replicas yet (their filters' state is read in process): %w", ErrConfig)
	case c.PointCost < 0 || c.Latency < 0 || c.EntryCost < 0 || !(c.Bandwidth > 0) || math.IsInf(c.Bandwidth, 0):
		return fmt.Errorf("harness: cost model %+v: %w", *c, ErrConfig)
	case s.Count < 0 || s.Count > e.Workers:
		return fmt.Errorf("harness: %d stragglers of %d workers: %w", s.Count, e.Workers, ErrConfig)
	case s.Kind != NoStragglers && (s.Tau < 0 || s.Every < 0 || s.Latency < 0 || !(s.Slowdown >= 1) || math.IsInf(s.Slowdown, 0)):
		return fmt.Errorf("harness: stragglers %+v: %w", *s, ErrConfig)
	case e.validateCores() != nil:
		return e.validateCores()
	case e.Stop.validate(e) != nil:
		return e.Stop.validate(e)
	case e.ScaleIn != nil && (e.Clock != Virtual || (e.Sync.Kind != consistency.BSP && e.Sync.Kind != consistency.FSP && e.Sync.Kind != consistency.ISP) || !e.Algorithm.Minimize()):
		return fmt.Errorf("harness: the scale-in tuner needs the virtual clock, BSP, FSP or ISP and a minimized objective (got %v, %v): %w", e.Clock, e.Sync, ErrConfig)
	case e.validateMigration() != nil:
		return e.validateMigration()
	case e.Replicas && e.Sync.Kind == consistency.FSP:
		return fmt.Errorf("harness: Replicas with %v: the replica design runs BSP, SSP, ASP, quorum and ISP (MLLess has no FSP): %w", e.Sync, ErrConfig)
	case e.Preempt != nil && e.Remote:
		return fmt.Errorf("harness: preemptions of remote workers are their hosts' (kill and restart the RunWorker process); Experiment.Preempt is for the runtime's own workers: %w", ErrConfig)
	case e.Preempt != nil && (e.Sync.Kind == consistency.ISP || e.Replicas || e.Tuner != nil || e.ScaleIn != nil || e.Indirect != nil || e.Migrate != nil):
		return fmt.Errorf("harness: preemptions run without ISP, Replicas, an interval tuner, scale-in, indirect communication and data migration (got %v, %v): %w",
			e.Clock, e.Sync, ErrConfig)
	case e.validateStream() != nil:
		return e.validateStream()
	case e.ControlSample < 0:
		return fmt.Errorf("harness: control sample %d < 0: %w", e.ControlSample, ErrConfig)
	case e.HasTarget && math.IsNaN(e.Target):
		return fmt.Errorf("harness: target is NaN: %w", ErrConfig)
	}
	for _, w := range s.Workers {
		if w < 0 || w >= e.Workers {
			return fmt.Errorf("harness: straggler %d not among workers 0..%d: %w", w, e.Workers-1, ErrConfig)
		}
	}
	return nil
}

// stragglers returns which workers straggle, ascending.
func (e *Experiment) stragglers(rng *rand.Rand) []int {
	s := e.Stragglers
	if s.Kind == NoStragglers {
		return nil
	}
	if s.Workers != nil {
		ws := slices.Clone(s.Workers)
		slices.Sort(ws)
		return slices.Compact(ws)
	}
	ws := rng.Perm(e.Workers)[:s.Count]
	slices.Sort(ws)
	return ws
}

// Point is one objective snapshot.
type Point struct {
	T         time.Duration
	Objective float64
	Version   consistency.Version
	Points    int64 // data points processed by all workers so far
}

// WorkerStats are one worker's totals.
type WorkerStats struct {
	Straggler bool
	// Evicted is set when a scale-in tuner removed the worker at Left.
	Evicted bool
	Left    time.Duration
	Points  int64         // data points processed
	Passes  float64       // Points / shard size
	Commits int           // deltas committed
	Busy    time.Duration // computing, injected pauses included
	Paused  time.Duration // injected pauses and natural slowdown
	Wait    time.Duration // between a commit and the next release
	// Delayed (Tail stragglers) is the time the worker's operations were
	// delayed, within the run: not in Busy nor in Wait.
	Delayed time.Duration
	// Preempted counts the worker's preemptions (Experiment.Preempt);
	// Down is the time it spent preempted (not in Wait), and Lost the
	// compute time of the batches a preemption cut short, which were
	// never committed (not in Busy).
	Preempted int
	Down      time.Duration
	Lost      time.Duration
	// Arrived (Experiment.Arrivals) counts the data points that arrived
	// at the worker, Batches the batches it announced, Queued those it
	// still held unused at the end, and Up its time available (the time
	// its stream ran).
	Arrived         int64
	Batches, Queued int
	Up              time.Duration
}

// DivergeFactor is how far an objective may grow past its start, in
// magnitude, before Result.Diverged flags the run: by a million times
// max(|f(θ0)|, 1), a healthy run of any workload here has long settled.
const DivergeFactor = 1e6

// Result is what a run recorded.
type Result struct {
	Name     string // Experiment.Name, or the sync model
	Sync     consistency.Spec
	Clock    Clock
	Duration time.Duration
	// Curve has the objective at θ0, every EvalEvery, and at the end.
	Curve []Point
	// Final is the objective at the end.
	Final float64
	// Diverged says the run blew up: some point of Curve has a
	// non-finite objective, or one whose magnitude exceeds DivergeFactor
	// times max(|objective at θ0|, 1). DivergedAt is the first such
	// point's time (−1 when Diverged is false). Report such a run as
	// diverged, whatever its Final and TimeToTarget.
	Diverged   bool
	DivergedAt time.Duration
	// TimeToTarget is the first snapshot time whose objective reached
	// Target, or -1 (also without a target).
	TimeToTarget time.Duration
	// Versions is the number of applies (server steps).
	Versions consistency.Version
	// Iterations is the mean number of commits per worker: rounds under
	// BSP, clocks under SSP and ASP.
	Iterations float64
	Workers    []WorkerStats
	// WaitFraction is the share of worker time spent waiting between a
	// commit and the next release. With Remote workers it is the
	// coordinator's view (from a commit's arrival to the next release's
	// sending), and WorkerStats' Busy and Paused are not measured (0).
	WaitFraction float64
	// BytesSent counts both directions, as encoded for the wire, and the
	// data migration's windows. Under ISP a commit carries only the
	// significant entries (filter.AppendDelta's sparse encoding), so the
	// filter's saving shows.
	BytesSent int64
	Messages  int64
	// Store (indirect communication only) counts the store's traffic:
	// the bytes on its link (also in BytesSent), PUTs and GETs.
	Store *StoreStats
	// Held (ISP) is the L1 mass of the updates the remaining workers
	// still hold back at the end: in their replicas, not in Theta.
	// Flushed is the L1 mass that evicted workers flushed into the global
	// state when they left (§4.2).
	Held, Flushed float64
	// Preemptions counts the preemptions of every worker
	// (Experiment.Preempt), Rejoins the joins the coordinator accepted
	// of restored workers or of a worker's later incarnations (a worker
	// restored just before the end may not have rejoined yet).
	Preemptions, Rejoins int
	// Evictions lists the scale-in tuner's evictions.
	Evictions []scalein.Eviction
	// StoppedBy says what ended the run: "duration", "max-iterations",
	// "target" or "error-bound" (Experiment.Stop).
	StoppedBy string
	// Intervals lists the barrier intervals an interval tuner chose.
	Intervals []IntervalPoint
	// Migration is what data migration recorded (Experiment.Migrate),
	// nil without.
	Migration *MigrationResult
	// Membership (Real): Expired counts the leases that ran out, Rejected
	// the worker messages the coordinator refused (an old incarnation, an
	// unknown job or worker); nothing a refused message carried was
	// applied.
	Expired  int
	Rejected int64
	// Resumed (Experiment.Journal) counts the coordinator's starts that
	// resumed the run from its journal.
	Resumed int
	// Instances (Experiment.Preempt) is every worker's life as a cloud
	// instance, for billing: on demand, or preemptible and available, or
	// preemptible and preempted (not billed), in time order per worker.
	Instances []InstanceSpan
	// Trace is the run's record; consistency.Check has passed on it. nil
	// with Experiment.DiscardTrace.
	Trace *consistency.Trace
	// Theta is the final parameter vector.
	Theta []float64
}

// StoreStats is the traffic through the store of indirect communication.
type StoreStats struct {
	Bytes      int64 // carried by the store's link (PUTs and GETs)
	Puts, Gets int64 // requests
}

// TimeTo returns the first time the curve reaches target (≤ when
// minimizing, ≥ otherwise), or -1.
func TimeTo(curve []Point, target float64, minimize bool) time.Duration {
	for _, p := range curve {
		if (minimize && p.Objective <= target) || (!minimize && p.Objective >= target) {
			return p.T
		}
	}
	return -1
}
