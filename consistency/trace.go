package consistency

import (
	"bufio"
	"fmt"
	"io"
	"time"
)

// RecordKind says what a trace record saw.
type RecordKind uint8

// Record kinds.
const (
	// RecRead: Worker started computing clock Clock on parameter Version.
	RecRead RecordKind = iota + 1
	// RecCommit: the coordinator accepted Worker's delta Seq of clock
	// Clock, computed on Version over Points points.
	RecCommit
	// RecApply: the coordinator applied Deltas (merged, in that order),
	// producing Version. Final marks the flush at the end of the run.
	RecApply
	// RecJoin, RecLeave: membership changed.
	RecJoin
	RecLeave
	// RecStop: the run ended; every commit must have been applied.
	RecStop
	// RecRollback: between rounds, the coordinator restored the server
	// and the workers to a checkpoint taken at version Version (an FSPV
	// probe, FSP §3.3). Later reads still name the model's versions.
	RecRollback
	// RecHeld (ISP): right after its step Clock, Worker's significance
	// filter holds back what Held describes. Check verifies the replica
	// divergence bound on it.
	RecHeld
	// RecSend (worker side): Worker finished computing its delta Seq of
	// clock Clock on Version over Points points and sent it (the first
	// transmission; retransmissions are not recorded).
	RecSend
	// RecConfirm (worker side): Worker took its delta Seq as accepted by
	// the coordinator (an acknowledgement, or a release that implies it)
	// and stopped sending it.
	RecConfirm
	// RecAbandon (worker side): Worker deliberately gave up its delta Seq
	// before it was confirmed; Reason says why (it left, it was evicted,
	// the run ended while the delta was in flight).
	RecAbandon
	// RecBatch: Worker's streamed batch number Batch (0, 1, 2, … per
	// worker) became ready and the coordinator queued it (EvBatchReady
	// accepted).
	RecBatch
	// RecProduced (worker side, KGroup): when the run stopped, Worker's
	// stream had produced Batch batches (0 … Batch−1), each announced to
	// the coordinator; Worker sends its last indicators again until they
	// are acknowledged, and only then leaves. A worker records it once,
	// on learning of the stop as the coordinator's current member.
	RecProduced
)

var recordNames = [...]string{"?", "read", "commit", "apply", "join", "leave", "stop", "rollback", "held", "send", "confirm", "abandon", "batch", "produced"}

// Held describes the updates an ISP worker holds back right after one
// step, as its significance filter's accumulator acc (the sum of the
// worker's own updates not sent yet, MLLess §4.1) and its replica w.
//
// The step checked a set of entries (every entry for a dense layout, the
// entries of the blocks its update touched for a sparse one). Every held
// entry i among them must satisfy |acc_i| ≤ v_t·|w_i|, v_t = v/√(t+1),
// the bound Theorem 1's proof uses; Worst is the checked held entry with
// the largest excess |acc_i| − v_t·|w_i|, so the bound holds for all of
// them iff it holds for Worst.
type Held struct {
	// Entries is the number of nonzero held entries (checked or not).
	Entries int
	// Mass is Σ|acc_i| over every held entry: the replica's divergence
	// from the global state in the L1 norm.
	Mass float64
	// Worst is the index of the checked held entry nearest its bound, or
	// −1 when the step checked no held entry. Acc and Replica are acc and
	// w at that index.
	Worst        int
	Acc, Replica float64
}

func (h Held) String() string {
	if h.Worst < 0 {
		return fmt.Sprintf("entries=%d mass=%g", h.Entries, h.Mass)
	}
	return fmt.Sprintf("entries=%d mass=%g worst=%d acc=%g w=%g", h.Entries, h.Mass, h.Worst, h.Acc, h.Replica)
}

func (k RecordKind) String() string {
	if int(k) < len(recordNames) {
		return recordNames[k]
	}
	return fmt.Sprintf("RecordKind(%d)", uint8(k))
}

// Record is one entry of a run's trace, written by the driver when the
// thing happened (not when it was decided).
type Record struct {
	At      time.Duration // the driver's clock
	Kind    RecordKind
	Worker  WorkerID
	Seq     uint64
	Clock   uint64
	Version Version
	Points  int
	Deltas  []DeltaID
	Final   bool
	// Held (RecHeld) is what the worker holds back after step Clock.
	Held *Held
	// Reason (RecAbandon) says why the worker gave the delta up; (RecLeave)
	// why the worker left, if the driver knows ("lease expired").
	Reason string
	// Batch is the batch that became ready (RecBatch) or, under KGroup,
	// the first batch a release covers (RecRead) and a delta was computed
	// from (RecCommit, RecSend).
	Batch uint64
	// Batches (RecRead under KGroup) is the number of batches the release
	// covers, Batch … Batch+Batches−1; Points is then the release's
	// budget, Batches·b. 0 for the other models.
	Batches int
}

// String prints the record as Trace.WriteTo does, except that the first
// batch of a commit or a send, which only a KGroup trace gives a meaning,
// is left out.
func (r Record) String() string { return r.format(false) }

// format prints the record; grouped (a KGroup trace) adds the first batch
// of commits and sends.
func (r Record) format(grouped bool) string {
	from := ""
	if grouped {
		from = fmt.Sprintf(" from-batch=%d", r.Batch)
	}
	switch r.Kind {
	case RecRead:
		if r.Batches > 0 {
			return fmt.Sprintf("%v read w%d clock=%d v=%d %s points=%d", r.At, r.Worker, r.Clock, r.Version, batchRange(r.Batch, r.Batches), r.Points)
		}
		return fmt.Sprintf("%v read w%d clock=%d v=%d", r.At, r.Worker, r.Clock, r.Version)
	case RecBatch:
		return fmt.Sprintf("%v batch-ready w%d batch=%d", r.At, r.Worker, r.Batch)
	case RecProduced:
		return fmt.Sprintf("%v produced w%d batches=%d", r.At, r.Worker, r.Batch)
	case RecCommit:
		return fmt.Sprintf("%v commit w%d#%d clock=%d v=%d points=%d%s", r.At, r.Worker, r.Seq, r.Clock, r.Version, r.Points, from)
	case RecApply:
		e := Effect{Kind: EfApply, Version: r.Version, Deltas: r.Deltas, Final: r.Final}
		return fmt.Sprintf("%v %v", r.At, e)
	case RecJoin:
		if r.Seq > 0 {
			return fmt.Sprintf("%v join w%d next=#%d", r.At, r.Worker, r.Seq)
		}
		return fmt.Sprintf("%v join w%d", r.At, r.Worker)
	case RecLeave:
		if r.Reason != "" {
			return fmt.Sprintf("%v leave w%d (%s)", r.At, r.Worker, r.Reason)
		}
		return fmt.Sprintf("%v leave w%d", r.At, r.Worker)
	case RecRollback:
		return fmt.Sprintf("%v rollback to the state of v=%d", r.At, r.Version)
	case RecSend:
		return fmt.Sprintf("%v send w%d#%d clock=%d v=%d points=%d%s", r.At, r.Worker, r.Seq, r.Clock, r.Version, r.Points, from)
	case RecConfirm:
		return fmt.Sprintf("%v confirm w%d#%d", r.At, r.Worker, r.Seq)
	case RecAbandon:
		return fmt.Sprintf("%v abandon w%d#%d (%s)", r.At, r.Worker, r.Seq, r.Reason)
	case RecHeld:
		var h Held
		if r.Held != nil {
			h = *r.Held
		}
		return fmt.Sprintf("%v held w%d clock=%d %v", r.At, r.Worker, r.Clock, h)
	}
	return fmt.Sprintf("%v %v", r.At, r.Kind)
}

// Trace is the record of one run under one model. Drivers append to it;
// Check verifies it.
type Trace struct {
	Spec    Spec
	Workers []WorkerID // initial members
	// WorkerSide says the driver records the workers' side too (RecSend,
	// RecConfirm, RecAbandon; RecProduced under KGroup). Check then proves
	// that every delta a worker sent and did not abandon was accepted and
	// applied exactly once, that no worker took a delta as accepted
	// before the coordinator accepted it, and that the coordinator heard
	// of every batch the streams of its members produced: the losses a
	// coordinator-only trace cannot see (a commit dropped on the link and
	// never resent, a stale acknowledgement, a commit refused but
	// acknowledged, a batch indicator dropped and never resent).
	WorkerSide bool
	Records    []Record
}

// Add appends a record.
func (t *Trace) Add(r Record) { t.Records = append(t.Records, r) }

// WriteTo writes the trace as text, one record per line: the form that
// two runs with the same seed must reproduce byte for byte.
func (t *Trace) WriteTo(w io.Writer) (int64, error) {
	bw := bufio.NewWriter(w)
	var n int64
	k, _ := fmt.Fprintf(bw, "model %v workers %v\n", t.Spec, t.Workers)
	n += int64(k)
	grouped := t.Spec.Kind == KGroup
	for _, r := range t.Records {
		k, _ = fmt.Fprintln(bw, r.format(grouped))
		n += int64(k)
	}
	return n, bw.Flush()
}
