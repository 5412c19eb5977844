package consistency

import (
	"slices"
	"sync"
	"time"
)

// Recorder writes a run's Trace from what its driver did, one method per
// thing done, so that a driver records what it carried out rather than
// what the model decided: Released after a release was sent, Applied after
// an apply was carried out, Accepted after the model took a commit. The
// workers' side (Sent, Confirmed, Abandoned) makes Check prove that no
// delta was lost between a worker and the coordinator (Trace.WorkerSide).
//
// A Recorder is safe for concurrent use: a goroutine runtime's workers
// record their side while the coordinator records its own. Records keep
// the order of the calls, so a record written after a message was
// received follows the one written before it was sent.
type Recorder struct {
	mu   sync.Mutex
	t    Trace
	sent map[WorkerID]uint64 // each worker's latest Sent sequence number
	// check, if set (CheckOnly), checks the records instead of t keeping
	// them.
	check *Checker
}

// NewRecorder returns a recorder of a run under spec whose initial members
// are workers. workerSide sets Trace.WorkerSide: the driver promises to
// record every delta its workers send (Sent) and what became of it
// (Confirmed or Abandoned).
func NewRecorder(spec Spec, workers []WorkerID, workerSide bool) *Recorder {
	return &Recorder{t: Trace{Spec: spec, Workers: slices.Clone(workers), WorkerSide: workerSide}, sent: map[WorkerID]uint64{}}
}

func (r *Recorder) add(rec Record) {
	r.mu.Lock()
	r.put(rec)
	r.mu.Unlock()
}

// put keeps or checks rec; r.mu is held.
func (r *Recorder) put(rec Record) {
	if r.check != nil {
		r.check.Add(rec)
		return
	}
	r.t.Records = append(r.t.Records, rec)
}

// CheckOnly makes the recorder check each record as it is written (a
// Checker) instead of keeping it, so that a long run's memory does not
// grow with its trace (about 0.6 KB per delta: five records). Trace then
// returns the trace without records, and Check the verdict Check would
// give on the trace. Call it before the first record.
func (r *Recorder) CheckOnly() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.t.Records) > 0 || r.check != nil {
		panic("consistency: Recorder.CheckOnly after the first record")
	}
	r.check = NewChecker(r.t.Spec, r.t.Workers, r.t.WorkerSide)
}

// Check ends the check of a CheckOnly recorder's records and returns the
// result, CheckStats's on the trace they make (Checker.Finish); no record
// may follow. On a recorder that keeps its records it is
// CheckStats(Trace()).
func (r *Recorder) Check() (Stats, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.check == nil {
		return CheckStats(&r.t)
	}
	return r.check.Finish()
}

// Released records that the driver delivered the release e (an EfRelease):
// worker e.Worker computes clock e.Clock on version e.Version (under
// KGroup, its batches e.Batch … e.Batch+e.Batches−1, e.Budget points).
func (r *Recorder) Released(at time.Duration, e Effect) {
	rec := Record{At: at, Kind: RecRead, Worker: e.Worker, Clock: e.Clock, Version: e.Version}
	if e.Batches > 0 {
		rec.Batch, rec.Batches, rec.Points = e.Batch, e.Batches, e.Budget
	}
	r.add(rec)
}

// Accepted records that the model accepted the commit ev (an EvCommit) of
// the worker's clock clock. Record it once the model's Step returned
// without error, before carrying out the effects Step returned.
func (r *Recorder) Accepted(at time.Duration, ev Event, clock uint64) {
	r.add(Record{At: at, Kind: RecCommit, Worker: ev.Worker, Seq: ev.Seq, Clock: clock, Version: ev.Version, Points: ev.Points, Batch: ev.Batch})
}

// BatchReady records that the model accepted worker w's announcement of
// its batch batch (an EvBatchReady).
func (r *Recorder) BatchReady(at time.Duration, w WorkerID, batch uint64) {
	r.add(Record{At: at, Kind: RecBatch, Worker: w, Batch: batch})
}

// Applied records that the driver carried out the apply e (an EfApply).
// The record keeps e.Deltas (a Model gives every apply a slice of its
// own), so the driver must not change it afterwards.
func (r *Recorder) Applied(at time.Duration, e Effect) {
	r.add(Record{At: at, Kind: RecApply, Version: e.Version, Deltas: e.Deltas, Final: e.Final})
}

// Joined and Left record a membership change the model accepted.
func (r *Recorder) Joined(at time.Duration, w WorkerID) {
	r.add(Record{At: at, Kind: RecJoin, Worker: w})
}

// JoinedFrom records that worker w (re)joined with seq as the sequence
// number of its next commit (the EvJoin's Seq; 0: the one after its last
// accepted commit).
func (r *Recorder) JoinedFrom(at time.Duration, w WorkerID, seq uint64) {
	r.add(Record{At: at, Kind: RecJoin, Worker: w, Seq: seq})
}

// Left records that worker w left (EvLeave accepted).
func (r *Recorder) Left(at time.Duration, w WorkerID) {
	r.add(Record{At: at, Kind: RecLeave, Worker: w})
}

// LeftBecause records that worker w left for the given reason, such as
// "lease expired" or "preempted".
func (r *Recorder) LeftBecause(at time.Duration, w WorkerID, reason string) {
	r.add(Record{At: at, Kind: RecLeave, Worker: w, Reason: reason})
}

// SkipTo makes seq the latest sequence number worker w sent, if it is
// later than the one recorded: the numbers in between were used by an
// earlier incarnation of the worker whose records are elsewhere (a
// restarted process), and Sent continues after seq.
func (r *Recorder) SkipTo(w WorkerID, seq uint64) {
	r.mu.Lock()
	r.sent[w] = max(r.sent[w], seq)
	r.mu.Unlock()
}

// Stopped records the end of the run, after the final apply.
func (r *Recorder) Stopped(at time.Duration) { r.add(Record{At: at, Kind: RecStop}) }

// RolledBack records that the server and workers returned to the state
// of version v (RecRollback).
func (r *Recorder) RolledBack(at time.Duration, v Version) {
	r.add(Record{At: at, Kind: RecRollback, Version: v})
}

// Held records what an ISP worker holds back right after its step clock.
func (r *Recorder) Held(at time.Duration, w WorkerID, clock uint64, h *Held) {
	r.add(Record{At: at, Kind: RecHeld, Worker: w, Clock: clock, Held: h})
}

// Sent records, on the worker's side, that worker w sent its next delta
// (computed as clock clock on version v over points points), and returns
// the sequence number the Recorder gave it: 1, 2, 3, … per worker, so
// that the driver cannot reuse or skip one.
func (r *Recorder) Sent(at time.Duration, w WorkerID, clock uint64, v Version, points int) uint64 {
	return r.SentFrom(at, w, clock, v, points, 0)
}

// SentFrom is Sent for a KGroup worker, whose delta was computed from its
// batches batch, batch+1, … (the release's Effect.Batch).
func (r *Recorder) SentFrom(at time.Duration, w WorkerID, clock uint64, v Version, points int, batch uint64) uint64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	seq := r.sent[w] + 1
	r.sent[w] = seq
	r.put(Record{At: at, Kind: RecSend, Worker: w, Seq: seq, Clock: clock, Version: v, Points: points, Batch: batch})
	return seq
}

// LastSent returns worker w's latest Sent sequence number (0 if none).
func (r *Recorder) LastSent(w WorkerID) uint64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.sent[w]
}

// Confirmed records, on the worker's side, that worker w took its delta
// seq as accepted (an acknowledgement, or a release implying it) and
// stopped sending it.
func (r *Recorder) Confirmed(at time.Duration, w WorkerID, seq uint64) {
	r.add(Record{At: at, Kind: RecConfirm, Worker: w, Seq: seq})
}

// Abandoned records, on the worker's side, that worker w deliberately gave
// up its unconfirmed delta seq, for reason (it left, was evicted, the run
// ended with the delta in flight).
func (r *Recorder) Abandoned(at time.Duration, w WorkerID, seq uint64, reason string) {
	r.add(Record{At: at, Kind: RecAbandon, Worker: w, Seq: seq, Reason: reason})
}

// Produced records, on the worker's side, that worker w's stream had
// produced its batches 0 … n−1 when w learnt of the stop (KGroup).
func (r *Recorder) Produced(at time.Duration, w WorkerID, n uint64) {
	r.add(Record{At: at, Kind: RecProduced, Worker: w, Batch: n})
}

// Len returns the number of records so far.
func (r *Recorder) Len() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.check != nil {
		return r.check.Len()
	}
	return len(r.t.Records)
}

// Trace returns a copy of the trace recorded so far (without records
// under CheckOnly).
func (r *Recorder) Trace() *Trace {
	r.mu.Lock()
	defer r.mu.Unlock()
	t := r.t
	t.Workers = slices.Clone(r.t.Workers)
	t.Records = slices.Clone(r.t.Records)
	return &t
}
