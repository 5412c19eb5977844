package consistency

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/syncmodels/syncmodels/barrier"
)

// WorkerID names a worker. It is the barrier package's type, so that IDs
// pass unchanged between the core and the blocking primitives.
type WorkerID = barrier.WorkerID

// Version numbers parameter versions: θ0 is version 0 and every Apply
// effect produces the next version.
type Version uint64

// DefaultInterval is FSP's barrier interval when none is given: the
// constant 250 ms of the Flegel code.
const DefaultInterval = 250 * time.Millisecond

// FullBatch as an FSP interval (EvSetInterval) makes the rounds full-batch
// BSP rounds: no timer and no early trigger, every member completes its
// pass. Interval tuners measure the full-batch runtime this way (Flegel's
// first iteration).
const FullBatch time.Duration = -1

// FullPass as a Release budget asks the worker for one full pass over its
// shard, starting where its previous batch ended.
const FullPass = 0

// DeltaID names one committed delta: the worker's commit sequence number
// (1, 2, 3, … per worker).
type DeltaID struct {
	Worker WorkerID
	Seq    uint64
}

func (d DeltaID) String() string { return fmt.Sprintf("w%d#%d", d.Worker, d.Seq) }

// EventKind says what happened.
type EventKind uint8

// Event kinds.
const (
	// EvStart starts the run: the model releases its initial members.
	EvStart EventKind = iota + 1
	// EvCommit: Worker committed the delta with sequence number Seq,
	// computed on Version over Points data points.
	EvCommit
	// EvProgress: Worker has processed Points points since its release
	// (the "point done" signal). The models of this package only validate
	// it; a time-triggered barrier (FSP's early trigger after a full pass)
	// acts on it.
	EvProgress
	// EvBatchReady: the batch numbered Batch (0, 1, 2, … per worker) of
	// streamed data is ready at Worker: b = Config.Batch points arrived
	// since its previous batch (DOLL's batch indicator S_B, Algorithm 1).
	// KGroup queues it and counts it towards K; a repeated number is
	// refused with ErrDuplicate, a gap with ErrProtocol. The other models
	// validate the worker and ignore it.
	EvBatchReady
	// EvJoin: Worker joins. It takes part from the next round. A worker
	// that rejoins after leaving continues its sequence numbers: its next
	// commit is Seq if Seq > 0 (a rejoining worker skips the numbers of
	// commits it sent that were never accepted), else the one after its
	// last accepted commit.
	EvJoin
	// EvLeave: Worker leaves (gracefully or preempted). Its committed
	// deltas stay committed; work it had not committed is gone.
	EvLeave
	// EvTick: the time is Now. Time-triggered models act on it.
	EvTick
	// EvStop: the run ends. Every committed delta not yet applied is
	// applied by a final Apply, and no worker is released again.
	EvStop
	// EvSetInterval: a time-triggered model's barrier interval becomes
	// Interval (an interval tuner's decision): for the current round if
	// its barrier has not been initiated yet (the timer is re-armed from
	// the round's start), else from the next round. Other models validate
	// and ignore it.
	EvSetInterval
)

var eventNames = [...]string{"?", "start", "commit", "progress", "batch-ready", "join", "leave", "tick", "stop", "set-interval"}

func (k EventKind) String() string {
	if int(k) < len(eventNames) {
		return eventNames[k]
	}
	return fmt.Sprintf("EventKind(%d)", uint8(k))
}

// Event is one input to a Model.
type Event struct {
	Kind    EventKind
	Worker  WorkerID
	Seq     uint64        // EvCommit; EvJoin: the first sequence number to expect (0: after the last accepted)
	Version Version       // EvCommit: the version the delta was computed on
	Points  int           // EvCommit, EvProgress
	Now     time.Duration // the driver's clock when the event is fed (any event)
	// Interval (EvSetInterval) is the new barrier interval of a
	// time-triggered model.
	Interval time.Duration
	// Batch (KGroup) is the number of the batch that became ready
	// (EvBatchReady), or the first batch of the release a commit answers
	// (EvCommit: the release's Effect.Batch).
	Batch uint64
}

func (e Event) String() string {
	switch e.Kind {
	case EvCommit:
		return fmt.Sprintf("commit w%d seq=%d v=%d points=%d", e.Worker, e.Seq, e.Version, e.Points)
	case EvProgress:
		return fmt.Sprintf("progress w%d points=%d", e.Worker, e.Points)
	case EvJoin:
		if e.Seq > 0 {
			return fmt.Sprintf("join w%d seq=%d", e.Worker, e.Seq)
		}
		return fmt.Sprintf("join w%d", e.Worker)
	case EvBatchReady:
		return fmt.Sprintf("batch-ready w%d batch=%d", e.Worker, e.Batch)
	case EvLeave:
		return fmt.Sprintf("%s w%d", e.Kind, e.Worker)
	case EvTick:
		return fmt.Sprintf("tick %v", e.Now)
	case EvSetInterval:
		return fmt.Sprintf("set-interval %v", e.Interval)
	}
	return e.Kind.String()
}

// EffectKind says what the driver must do.
type EffectKind uint8

// Effect kinds.
const (
	// EfApply: merge Deltas, in the order given, into one delta and apply
	// it to the server; the result is Version. Deltas is never empty.
	EfApply EffectKind = iota + 1
	// EfRelease: send Worker the parameters of Version and have it
	// process Budget points (FullPass: one pass) as its clock Clock, then
	// commit. Version is always the latest applied version. Under KGroup
	// the points are the worker's queued batches Batch, Batch+1, …,
	// Batch+m−1 (Budget = m·b): it computes each batch's gradient on
	// Version and commits one delta, their sum, over Budget points.
	EfRelease
	// EfBlock: Worker has committed and waits; Waiting lists the workers
	// whose progress it waits for. Informational (traces, metrics).
	EfBlock
	// EfInterrupt: tell Worker to commit right after the data point it is
	// processing (FSP's barrier signal, §3.1), however few it processed.
	EfInterrupt
	// EfTimer: feed the model an EvTick when the driver's clock reaches
	// At. A later EfTimer replaces an earlier one.
	EfTimer
)

var effectNames = [...]string{"?", "apply", "release", "block", "interrupt", "timer"}

func (k EffectKind) String() string {
	if int(k) < len(effectNames) {
		return effectNames[k]
	}
	return fmt.Sprintf("EffectKind(%d)", uint8(k))
}

// Effect is one output of a Model: an action for the driver, as data.
type Effect struct {
	Kind    EffectKind
	Worker  WorkerID      // EfRelease, EfBlock
	Version Version       // EfApply: the version produced; EfRelease: the version to compute on
	Clock   uint64        // EfRelease: the worker's clock (0-based iteration) it computes
	Budget  int           // EfRelease: points to process, FullPass for a pass
	Deltas  []DeltaID     // EfApply
	Final   bool          // EfApply: the flush at EvStop
	Waiting []WorkerID    // EfBlock
	At      time.Duration // EfTimer
	// Interval (EfRelease under semi-centralized FSP): the worker commits
	// when its local timer, η adjusted by the runtime, fires.
	Interval time.Duration
	// Batch and Batches (EfRelease under KGroup): the worker computes its
	// batches Batch, Batch+1, …, Batch+Batches−1 (Batches = m ≥ 1, so
	// Budget = m·b). Batches is 0 for the other models.
	Batch   uint64
	Batches int
}

// batchRange prints the batches first, …, first+n−1.
func batchRange(first uint64, n int) string {
	if n == 1 {
		return fmt.Sprintf("batch=%d", first)
	}
	return fmt.Sprintf("batches=%d..%d", first, first+uint64(n)-1)
}

func (e Effect) String() string {
	switch e.Kind {
	case EfApply:
		var b strings.Builder
		fmt.Fprintf(&b, "apply v=%d [", e.Version)
		for i, d := range e.Deltas {
			if i > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(d.String())
		}
		b.WriteByte(']')
		if e.Final {
			b.WriteString(" final")
		}
		return b.String()
	case EfRelease:
		if e.Interval != 0 {
			return fmt.Sprintf("release w%d v=%d clock=%d budget=%d local-timer=%v", e.Worker, e.Version, e.Clock, e.Budget, e.Interval)
		}
		if e.Batches > 0 {
			return fmt.Sprintf("release w%d v=%d clock=%d budget=%d %s", e.Worker, e.Version, e.Clock, e.Budget, batchRange(e.Batch, e.Batches))
		}
		return fmt.Sprintf("release w%d v=%d clock=%d budget=%d", e.Worker, e.Version, e.Clock, e.Budget)
	case EfBlock:
		return fmt.Sprintf("block w%d waiting=%v", e.Worker, e.Waiting)
	case EfInterrupt:
		return fmt.Sprintf("interrupt w%d", e.Worker)
	case EfTimer:
		return fmt.Sprintf("timer %v", e.At)
	}
	return e.Kind.String()
}

// Model is a synchronization model as a deterministic state machine. It
// starts no goroutine, reads no clock and does no I/O: a driver (the
// virtual-time simulator, the goroutine runtime, a gRPC coordinator) feeds
// it events and carries out the effects it returns, in order.
//
// A Model is not safe for concurrent use; a driver that feeds it from
// several goroutines serializes the calls.
type Model interface {
	// Spec is the model and its parameters.
	Spec() Spec
	// Step feeds one event and returns the effects it causes, in the order
	// the driver must carry them out. An invalid event (an unknown worker,
	// a commit out of sequence, any event after EvStop) returns an error
	// wrapping one of the package's sentinels and changes nothing. A
	// commit that was already accepted returns an error wrapping
	// ErrDuplicate, so that a driver can answer a retransmission again.
	Step(ev Event) ([]Effect, error)
	// Version is the latest parameter version the model has asked for.
	Version() Version
	// Members lists the current members in ascending order.
	Members() []WorkerID
}

// Sentinel errors wrapped by Step's errors.
var (
	ErrUnknownWorker = errors.New("consistency: unknown worker")
	ErrDuplicate     = errors.New("consistency: duplicate commit")
	ErrProtocol      = errors.New("consistency: protocol violation")
	ErrStopped       = errors.New("consistency: model stopped")
	ErrConfig        = errors.New("consistency: invalid config")
)

// EventError reports an event a Model refused.
type EventError struct {
	Model  string
	Event  Event
	Reason string
	Err    error // one of the sentinels
}

func (e *EventError) Error() string {
	return fmt.Sprintf("consistency: %s: %v: %s", e.Model, e.Event, e.Reason)
}

func (e *EventError) Unwrap() error { return e.Err }

// ModelKind selects a synchronization model.
type ModelKind uint8

// Model kinds.
const (
	// BSP: bulk synchronous parallel. Every member computes one batch on
	// the same version; the round's deltas are applied together once all
	// committed.
	BSP ModelKind = iota + 1
	// SSP: stale synchronous parallel (Ho et al. 2013) with staleness s.
	SSP
	// ASP: asynchronous parallel: every commit is applied at once and its
	// worker released at once.
	ASP
	// Quorum: k of n (slsML): a round is released when k commits are
	// pending; late commits fold into the next round.
	Quorum
	// FSP: flexible synchronous parallel (FSP paper §3). Every member
	// computes on the same version, like BSP, but the round ends when the
	// coordinator's timer (Interval) fires or a worker completes a full
	// pass over its shard: the others are interrupted and commit after
	// their current point.
	FSP
	// ISP: Insignificance-bounded Synchronous Parallel (MLLess §4.1). The
	// rounds are BSP rounds; what each worker commits is its update
	// filtered by a per-parameter significance filter (package filter):
	// entry i is sent when |acc_i / w_i| > v_t, v_t = v/√(t+1) for the
	// 0-based step t, and held back otherwise. Replicas diverge by the
	// held updates, which Check bounds (RecHeld). Threshold v = 0 sends
	// every update: ISP is BSP (MLLess Appendix A, Corollary 1).
	ISP
	// KGroup: DOLL's K-grouping over data streams (§III-A, Algorithms
	// 1–4; §III-B2). Workers announce each batch of b = Config.Batch
	// streamed points (EvBatchReady); once K batches are queued across
	// the available members, the workers holding them are released, all
	// on the current version, to compute one gradient per batch; the K
	// batches' gradients are applied together, and the next group starts
	// once K more batches are queued. A preempted worker keeps its queued
	// batches, which count again when it rejoins.
	KGroup
)

// DefaultThreshold is ISP's significance threshold v when "isp" is given
// without one: the v = 0.7 of MLLess's experiments (§6.3.1).
const DefaultThreshold = 0.7

// Spec is a model with its parameters. Parse reads the command-line form.
type Spec struct {
	Kind ModelKind
	// FullBatch (BSP): each round is one full pass over every shard
	// (FSP's BSPB) instead of Config.Batch points.
	FullBatch bool
	// Staleness s (SSP): a worker about to compute clock c waits until
	// every member has committed clock c − s − 1.
	Staleness int
	// Need (Quorum): how many pending commits release a round.
	Need barrier.Threshold
	// Interval (FSP): the barrier interval η. Zero means
	// DefaultInterval.
	Interval time.Duration
	// Local (FSP): semi-centralized coordination (FSP paper §5.2): no
	// coordinator timer and no interrupts; each release carries η and the
	// worker commits when its own local timer (η ± δ_i, chosen by the
	// runtime) fires or its pass ends. The second phase — applying and
	// releasing — stays with the coordinator.
	Local bool
	// Threshold (ISP) is the initial significance threshold v ≥ 0; the
	// threshold of step t (0-based) is v/√(t+1) (MLLess §4.1). 0 is BSP.
	Threshold float64
	// Group (KGroup) is K ≥ 1, the number of batches each update
	// aggregates.
	Group int
	// Spread (KGroup) groups batches by DOLL's priority queue (§III-B2): a
	// batch's priority decreases with the number of batches of its worker
	// already in the group, ties broken by announcement order. Without
	// it, batches are grouped in the order they were announced (the FIFO
	// queue of Algorithm 3).
	Spread bool
	// needText is Need as written, for String.
	needText string
}

// Parse reads a model spec: "bsp", "bsp:full", "ssp:S" (S ≥ 0), "asp",
// "quorum:F" (0 < F < 1: a fraction of the members, rounded up),
// "quorum:K" (K ≥ 1 members), "fsp" or "fsp:INTERVAL" (a Go duration such
// as 100ms), "isp" (v = DefaultThreshold) or "isp:V" (V ≥ 0, finite),
// "kgroup:K" (K ≥ 1 batches per update, grouped in announcement order) or
// "kgroup:K:spread" (grouped by DOLL's priority queue). Case is ignored.
func Parse(s string) (Spec, error) {
	name, arg, hasArg := strings.Cut(strings.ToLower(strings.TrimSpace(s)), ":")
	bad := func(why string) (Spec, error) {
		return Spec{}, fmt.Errorf("consistency: sync model %q: %s: %w", s, why, ErrConfig)
	}
	switch name {
	case "bsp":
		switch {
		case !hasArg:
			return Spec{Kind: BSP}, nil
		case arg == "full":
			return Spec{Kind: BSP, FullBatch: true}, nil
		}
		return bad(`want "bsp" or "bsp:full"`)
	case "fsp":
		spec := Spec{Kind: FSP}
		if !hasArg {
			return spec, nil
		}
		if arg == "semi" {
			spec.Local = true
			return spec, nil
		}
		if rest, ok := strings.CutSuffix(arg, ":semi"); ok {
			spec.Local, arg = true, rest
		}
		d, err := time.ParseDuration(arg)
		if err != nil || d <= 0 {
			return bad("want fsp, fsp:INTERVAL, fsp:semi or fsp:INTERVAL:semi with a positive duration such as fsp:100ms")
		}
		spec.Interval = d
		return spec, nil
	case "isp":
		if !hasArg {
			return Spec{Kind: ISP, Threshold: DefaultThreshold}, nil
		}
		v, err := strconv.ParseFloat(arg, 64)
		if err != nil || !(v >= 0) || math.IsInf(v, 0) {
			return bad("want isp or isp:V with a finite significance threshold V ≥ 0 such as isp:0.7")
		}
		return Spec{Kind: ISP, Threshold: v}, nil
	case "kgroup":
		const want = "want kgroup:K or kgroup:K:spread with an integer group size K ≥ 1"
		if !hasArg {
			return bad(want)
		}
		spec := Spec{Kind: KGroup}
		if rest, ok := strings.CutSuffix(arg, ":spread"); ok {
			spec.Spread, arg = true, rest
		}
		k, err := strconv.Atoi(arg)
		if err != nil || k < 1 {
			return bad(want)
		}
		spec.Group = k
		return spec, nil
	case "asp":
		if hasArg {
			return bad(`asp takes no parameter`)
		}
		return Spec{Kind: ASP}, nil
	case "ssp":
		n, err := strconv.Atoi(arg)
		if !hasArg || err != nil || n < 0 {
			return bad("want ssp:S with an integer staleness S ≥ 0")
		}
		return Spec{Kind: SSP, Staleness: n}, nil
	case "quorum":
		if !hasArg {
			return bad("want quorum:F (0 < F < 1) or quorum:K (K ≥ 1)")
		}
		if k, err := strconv.Atoi(arg); err == nil {
			if k < 1 {
				return bad("quorum count must be ≥ 1")
			}
			return Spec{Kind: Quorum, Need: barrier.Count(k), needText: arg}, nil
		}
		f, err := strconv.ParseFloat(arg, 64)
		if err != nil || !(f > 0 && f <= 1) {
			return bad("want quorum:F (0 < F ≤ 1) or quorum:K (K ≥ 1)")
		}
		return Spec{Kind: Quorum, Need: barrier.Fraction(f), needText: arg}, nil
	}
	return bad("unknown model (want bsp, bsp:full, ssp:S, asp, quorum:F, quorum:K, fsp[:INTERVAL], isp[:V] or kgroup:K[:spread])")
}

// MustParse is Parse for specs known to be valid; it panics on error.
func MustParse(s string) Spec {
	spec, err := Parse(s)
	if err != nil {
		panic(err)
	}
	return spec
}

// String returns the spec in Parse's form.
func (s Spec) String() string {
	switch s.Kind {
	case BSP:
		if s.FullBatch {
			return "bsp:full"
		}
		return "bsp"
	case SSP:
		return "ssp:" + strconv.Itoa(s.Staleness)
	case ASP:
		return "asp"
	case ISP:
		return "isp:" + strconv.FormatFloat(s.Threshold, 'g', -1, 64)
	case FSP:
		out := "fsp"
		if s.Interval != 0 {
			out += ":" + s.Interval.String()
		}
		if s.Local {
			out += ":semi"
		}
		return out
	case KGroup:
		if s.Spread {
			return "kgroup:" + strconv.Itoa(s.Group) + ":spread"
		}
		return "kgroup:" + strconv.Itoa(s.Group)
	case Quorum:
		if s.needText != "" {
			return "quorum:" + s.needText
		}
		return "quorum:" + s.Need.String()
	}
	return fmt.Sprintf("ModelKind(%d)", uint8(s.Kind))
}

// Config configures a Model.
type Config struct {
	// Workers are the initial members, distinct. At least one.
	Workers []WorkerID
	// Batch is the number of points a worker processes per commit, or
	// FullPass (the default) for one pass over its shard. BSP with
	// FullBatch ignores it. KGroup: the batch size b > 0, the points of
	// each streamed batch (a release's budget is a multiple of it).
	Batch int
	// OmitBlocks leaves out the EfBlock effects, which are informational:
	// a driver that ignores them (package harness's runtimes) saves
	// building their Waiting lists, each up to every member long, once per
	// commit (quadratic in the members per BSP round). Every other effect
	// is the same, in the same order.
	OmitBlocks bool
}

// New returns the model spec describes.
func New(spec Spec, cfg Config) (Model, error) {
	if cfg.Batch < 0 {
		return nil, fmt.Errorf("consistency: batch %d < 0: %w", cfg.Batch, ErrConfig)
	}
	if len(cfg.Workers) == 0 {
		return nil, fmt.Errorf("consistency: %v: no workers: %w", spec, ErrConfig)
	}
	var b base
	if err := b.init(spec, cfg); err != nil {
		return nil, err
	}
	switch spec.Kind {
	case BSP:
		if spec.FullBatch {
			b.budget = FullPass
		}
		return &bsp{base: b}, nil
	case ISP:
		if !(spec.Threshold >= 0) || math.IsInf(spec.Threshold, 0) {
			return nil, fmt.Errorf("consistency: isp threshold %v, want finite ≥ 0: %w", spec.Threshold, ErrConfig)
		}
		// The rounds are BSP's; the filter lives in the workers.
		return &bsp{base: b}, nil
	case SSP:
		if spec.Staleness < 0 {
			return nil, fmt.Errorf("consistency: ssp staleness %d < 0: %w", spec.Staleness, ErrConfig)
		}
		return newSSP(b, true), nil
	case ASP:
		return newSSP(b, false), nil
	case Quorum:
		if spec.Need.Need(1) != 1 {
			return nil, fmt.Errorf("consistency: quorum threshold %v: %w", spec.Need, ErrConfig)
		}
		// A count threshold (the same need whatever the membership) above
		// the initial members would silently run as BSP.
		if k := spec.Need.Need(1 << 20); k == spec.Need.Need(1<<21) && k > len(cfg.Workers) {
			return nil, fmt.Errorf("consistency: %v needs %d commits per release but there are %d workers (use bsp to wait for all, or a count ≤ %d): %w",
				spec, k, len(cfg.Workers), len(cfg.Workers), ErrConfig)
		}
		return &quorum{base: b}, nil
	case FSP:
		if spec.Interval < 0 {
			return nil, fmt.Errorf("consistency: fsp interval %v < 0: %w", spec.Interval, ErrConfig)
		}
		// A worker's budget is one traversal of its shard: completing it
		// triggers the barrier early (§3.3).
		b.budget = FullPass
		f := &fsp{base: b, interval: spec.Interval, local: spec.Local}
		if f.interval == 0 {
			f.interval = DefaultInterval
		}
		return f, nil
	case KGroup:
		if spec.Group < 1 {
			return nil, fmt.Errorf("consistency: kgroup group size K = %d, want ≥ 1: %w", spec.Group, ErrConfig)
		}
		if cfg.Batch <= 0 {
			return nil, fmt.Errorf("consistency: %v needs a batch size b > 0 (the points per streamed batch), got %d: %w", spec, cfg.Batch, ErrConfig)
		}
		return newKGroup(b), nil
	}
	return nil, fmt.Errorf("consistency: unknown model kind %d: %w", spec.Kind, ErrConfig)
}
