package harness

import (
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/syncmodels/syncmodels/algorithms"
	"github.com/syncmodels/syncmodels/consistency"
	"github.com/syncmodels/syncmodels/filter"
	"github.com/syncmodels/syncmodels/scalein"
	"github.com/syncmodels/syncmodels/transport"
)

// ISP in the runtimes (MLLess §3, §4.1), both clocks.
//
// Experiment.Replicas runs the other sync models (BSP, SSP, ASP, quorum)
// in the same design, without the filter: a worker's replica is the global
// state of the version it read (the core guarantees read-your-writes, and
// nothing is held back), its local optimizer steps on it, and it commits
// the whole change u; the coordinator adds the commits of each apply. This
// is MLLess's worker code with v = 0 (BSP) or with a slack (SSP, §6.4), so
// "ISP vs SSP vs BSP" compares sync models, not designs. BSP with Replicas
// is isp:0 to the bit (TestReplicasBSPIsISPZero).
//
// The design follows MLLess's architecture rather than this project's
// parameter server. In MLLess every worker keeps a model replica and its
// own optimizer: it computes the gradient of its mini-batch on its
// replica, takes an optimizer step (Adam for LR, momentum for PMF) and
// obtains a parameter change u = −η·(the optimizer's direction); u enters
// the worker's significance filter, which compares the accumulated change
// with the replica's value, |acc_i / w_i| > v_t; the significant entries
// are pushed, and every worker adds the others' pushed updates to its
// replica by plain addition. The filter's units matter: a relative change
// of 0.7 of a parameter is meaningful, a gradient sum compared with a
// parameter is not (filter's doc, "Units").
//
// Here, under ISP:
//
//   - each worker has a local optimizer, the workload's own server
//     (Algorithm.NewServer, which must be an *optim.Server-like server with
//     SetParams: the gradient-descent workloads), with its own optimizer
//     state;
//   - at step t it installs its replica w = g_t + acc (g_t the global state
//     of version t, acc its held updates) and the global number of points
//     applied (MLLess's workers count epochs globally), computes the
//     gradient sum on w, lets the local optimizer step, and takes
//     u = θ' − w on the entries the step touched;
//   - u enters the worker's filter with the replica after the worker's own
//     step (θ', as MLLess updates its weights before filtering); what the
//     filter sends is the commit;
//   - the coordinator merges the sent updates of a round by plain addition
//     into g (no server optimizer): g_{t+1} = g_t + Σ_w sent_w. This is the
//     state every worker would hold if it pulled every other worker's
//     pushed updates, so the release carries it;
//   - each worker's replica is g plus its own held accumulator.
//
// With v = 0 the filter sends every update whole, every replica equals g,
// and the run is BSP of the same parameter-space design to the bit
// (Corollary 1; TestISPZeroIsBSP checks it against an independent loop).
// That design is not the harness's BSP, whose server applies one optimizer
// step to the mean gradient: under ISP P workers each take a local step and
// their changes add up, as in MLLess.
//
// EM workloads (K-means, GMM, FCM) are refused: their deltas are changes of
// sufficient statistics, their servers have no optimizer, and MLLess
// trains GD models only.
//
// A worker that leaves (evicted by the scale-in tuner) flushes its filter:
// its held updates are merged into the next apply, so they are not lost.
// MLLess §4.2 instead averages the leaving worker's replica into the
// others'; averaging halves every worker's own held updates as well as
// adding half the leaver's, so the global state no longer equals the sum
// of the updates sent, and it costs a model-sized transfer per worker.
// The flush adds exactly the leaver's missing mass once and costs a sparse
// message (transport's Leave).

// replicaServer is a local optimizer: an algorithms.Server whose θ and
// point count the worker can replace before each step (optim.Server).
type replicaServer interface {
	algorithms.Server
	SetParams(theta []float64, points int) error
}

// ispWorker is one worker's side of ISP or of a Replicas run.
type ispWorker struct {
	srv replicaServer
	// f is the worker's significance filter under ISP; nil in a Replicas
	// run of another sync model, whose worker sends u whole.
	f       *filter.Significance
	replica []float64 // g + acc, then θ' after the local step
	u       *algorithms.Delta
	// total is the sum of every update u the worker produced: the ledger
	// that the global state plus what is held must equal. Per worker, so
	// that the goroutine runtime's workers do not share it.
	total []float64
}

// ispState is a run's replica state: ISP's, or a Replicas run's (nil
// otherwise).
type ispState struct {
	workers []*ispWorker
	v       float64
	// flushed counts the L1 mass of the leaving workers' flushes.
	flushed float64
	// dropFlush (tests only) discards leaving workers' held updates, to
	// show the ledger test notices.
	dropFlush bool
}

// newISP sets up the workers' replicas and local optimizers (and, under
// ISP, their significance filters) and makes the coordinator add the sent
// changes.
func newISP(e *Experiment, st *setupState) (*ispState, error) {
	l := st.layout
	what := e.Sync.String()
	if e.Sync.Kind != consistency.ISP {
		what += " with Replicas"
	}
	if l.Params != l.Delta {
		return nil, fmt.Errorf("harness: %s needs a gradient-descent workload (its delta must add to its parameters); %s has %d parameters and deltas of %d (MLLess trains GD models only): %w",
			what, e.Algorithm.Name(), l.Params, l.Delta, ErrConfig)
	}
	is := &ispState{v: e.Sync.Threshold}
	for range st.shards {
		srv, err := e.Algorithm.NewServer(st.theta0)
		if err != nil {
			return nil, err
		}
		rs, ok := srv.(replicaServer)
		if !ok {
			return nil, fmt.Errorf("harness: %s needs a workload whose server can be a worker's local optimizer (SetParams, as optim.Server); %s's %T cannot (MLLess trains GD models only): %w",
				what, e.Algorithm.Name(), srv, ErrConfig)
		}
		w := &ispWorker{srv: rs, replica: make([]float64, l.Params), u: algorithms.NewDelta(l), total: make([]float64, l.Delta)}
		if e.Sync.Kind == consistency.ISP {
			if w.f, err = filter.NewSignificance(filter.SignificanceConfig{Layout: l, V: e.Sync.Threshold}); err != nil {
				return nil, err
			}
		}
		is.workers = append(is.workers, w)
	}
	// The coordinator adds the sent updates: no optimizer at the server.
	st.coord.srv = &sumServer{theta: slices.Clone(st.theta0), layout: l}
	return is, nil
}

// filtered reports whether the workers filter their changes (ISP): only
// then do they hold updates back and have replicas of their own.
func (is *ispState) filtered() bool { return is.workers[0].f != nil }

// process runs worker sh's ISP step on k points released with the global
// state g after points points were applied, and writes the update it sends
// into d. It returns what the worker holds back afterwards, for the trace.
func (is *ispState) process(sh *shard, g []float64, points int64, k int, d *algorithms.Delta) (*consistency.Held, error) {
	w := is.workers[sh.id]
	sh.process(w.prepare(g), k, d)
	return w.finish(sh.id, d, points)
}

// prepare sets the worker's replica to g plus its held updates and returns
// it: the parameters its gradient is computed on.
func (w *ispWorker) prepare(g []float64) []float64 {
	copy(w.replica, g)
	if w.f != nil {
		w.f.RangeHeld(func(i int, v float64) bool { w.replica[i] += v; return true })
	}
	return w.replica
}

// finish turns the gradient sum d computed on the replica into the
// worker's parameter change u (a local optimizer step, with points the
// global number of points applied), passes u through the significance
// filter (if any) and writes what it sends into d. It returns what the
// worker holds back afterwards (nil without a filter).
func (w *ispWorker) finish(id consistency.WorkerID, d *algorithms.Delta, points int64) (*consistency.Held, error) {
	u := w.u
	u.Reset()
	u.Count = d.Count
	if d.Count > 0 {
		if err := w.srv.SetParams(w.replica, int(points)); err != nil {
			return nil, fmt.Errorf("harness: worker %d local optimizer: %w", id, err)
		}
		if err := w.srv.Apply(d); err != nil {
			return nil, fmt.Errorf("harness: worker %d local optimizer: %w", id, err)
		}
		theta := w.srv.Params()
		if !d.Sparse() {
			for i, x := range theta {
				u.Vec[i] = x - w.replica[i]
			}
		} else {
			bw := d.BlockWidth()
			for _, b := range d.Blocks() {
				lo, hi := int(b)*bw, min((int(b)+1)*bw, len(theta))
				for i := lo; i < hi; i++ {
					u.Vec[i] = theta[i] - w.replica[i]
				}
				u.Touch(int(b))
			}
		}
		for lo, hi := range liveSpans(u) {
			for i, v := range u.Vec[lo:hi] {
				w.total[lo+i] += v
			}
		}
		copy(w.replica, theta)
	}
	if w.f == nil {
		// No filter: the whole change is sent.
		d.Reset()
		if err := d.Merge(u); err != nil {
			return nil, err
		}
		d.Count = u.Count
		return nil, nil
	}
	sent, err := w.f.Step(u, w.replica)
	if err != nil {
		return nil, fmt.Errorf("harness: worker %d significance filter: %w", id, err)
	}
	d.Reset()
	if err := d.Merge(sent); err != nil {
		return nil, err
	}
	d.Count = sent.Count
	return w.held(), nil
}

// releasePoints is what a release carries in Points: under ISP and in a
// Replicas run the number of points applied so far, which the workers'
// local optimizers use for the epoch (MLLess counts epochs globally); 0
// otherwise.
func (st *setupState) releasePoints() int64 {
	if st.isp == nil {
		return 0
	}
	return st.coord.points
}

// heldRecord is a worker's held state after one commit, reported by a
// goroutine-runtime worker beside the transport.
type heldRecord struct {
	seq, clock uint64
	held       *consistency.Held
}

// mergeHeld inserts the workers' held records into the trace, each right
// after the record of the commit it follows. A record whose commit was
// never accepted (the run ended first) is dropped.
func mergeHeld(tr *consistency.Trace, logs [][]heldRecord) {
	byID := map[consistency.DeltaID]heldRecord{}
	for w, log := range logs {
		for _, h := range log {
			byID[consistency.DeltaID{Worker: consistency.WorkerID(w), Seq: h.seq}] = h
		}
	}
	if len(byID) == 0 {
		return
	}
	out := make([]consistency.Record, 0, len(tr.Records)+len(byID))
	for _, r := range tr.Records {
		out = append(out, r)
		if r.Kind != consistency.RecCommit {
			continue
		}
		if h, ok := byID[consistency.DeltaID{Worker: r.Worker, Seq: r.Seq}]; ok && h.clock == r.Clock {
			out = append(out, consistency.Record{At: r.At, Kind: consistency.RecHeld, Worker: r.Worker, Clock: r.Clock, Held: h.held})
		}
	}
	tr.Records = out
}

// held describes what w holds back after its last step.
func (w *ispWorker) held() *consistency.Held {
	h := &consistency.Held{Worst: -1, Entries: w.f.Held().Entries}
	w.f.RangeHeld(func(_ int, v float64) bool { h.Mass += math.Abs(v); return true })
	if i, acc, r, ok := w.f.Worst(w.replica); ok {
		h.Worst, h.Acc, h.Replica = i, acc, r
	}
	return h
}

// leave flushes worker id's held updates, to be merged into the next
// apply, and returns the flushed delta.
func (is *ispState) leave(id consistency.WorkerID) *algorithms.Delta {
	fl := is.workers[id].f.Flush()
	if is.dropFlush {
		fl.Reset()
	}
	for lo, hi := range liveSpans(fl) {
		for _, v := range fl.Vec[lo:hi] {
			is.flushed += math.Abs(v)
		}
	}
	return fl
}

// heldMass is the L1 mass every remaining worker holds back.
func (is *ispState) heldMass(gone []bool) float64 {
	var m float64
	for i, w := range is.workers {
		if w.f == nil || (gone != nil && gone[i]) {
			continue
		}
		w.f.RangeHeld(func(_ int, v float64) bool { m += math.Abs(v); return true })
	}
	return m
}

// replicaObjective returns the control-sample objective of worker id's
// replica g + acc (for the scale-in tuner's "worst replica").
func (is *ispState) replicaObjective(id int, g []float64, s *sampler) float64 {
	w := is.workers[id]
	r := slices.Clone(g)
	w.f.RangeHeld(func(i int, v float64) bool { r[i] += v; return true })
	return s.objective(r)
}

// liveSpans yields the index ranges of d's live entries.
func liveSpans(d *algorithms.Delta) func(func(int, int) bool) {
	return func(yield func(int, int) bool) {
		if !d.Sparse() {
			yield(0, d.Len())
			return
		}
		bw := d.BlockWidth()
		for _, b := range d.Blocks() {
			if !yield(int(b)*bw, min((int(b)+1)*bw, d.Len())) {
				return
			}
		}
	}
}

// sumServer is ISP's coordinator state: Apply adds a merged delta of
// parameter changes to θ, whatever its Count (no optimizer, no mean).
type sumServer struct {
	theta  []float64
	layout algorithms.Layout
	steps  int
}

func (s *sumServer) Params() []float64 { return s.theta }
func (s *sumServer) Steps() int        { return s.steps }

func (s *sumServer) Apply(d *algorithms.Delta) error {
	if err := algorithms.CheckApply(s.layout, d); err != nil {
		return err
	}
	for lo, hi := range liveSpans(d) {
		for i, v := range d.Vec[lo:hi] {
			s.theta[lo+i] += v
		}
	}
	s.steps++
	return nil
}

// ispLeave flushes an evicted worker's held updates into the next apply
// and charges its Leave message on the coordinator's incoming link.
func (s *sim) ispLeave(t time.Duration, w consistency.WorkerID) error {
	fl := s.st.isp.leave(w)
	if st := s.store; st != nil {
		// The leaver PUTs its flush; the others fetch it with the next
		// round's updates.
		if bytes, entries := updateSize(fl); bytes > 0 {
			st.request(t, bytes)
			st.puts++
			s.msgs++
			st.extra = append(st.extra, storeItem{worker: w, bytes: bytes, entries: entries})
		}
	} else {
		m := transport.Message{Kind: transport.Leave, From: transport.NodeID(w), To: transport.Coordinator, Job: s.e.Seed, Delta: fl}
		s.transmit(&s.in, t, m.Size(), w)
	}
	return s.st.coord.addFlush(fl)
}

// replicaReports gives the scale-in tuner each remaining worker's replica
// quality: its loss on the control sample (MLLess §4.2 evicts the worst
// replica).
func (s *sim) replicaReports() []scalein.Report {
	var rs []scalein.Report
	for i := range s.st.shards {
		if s.gone[i] {
			continue
		}
		rs = append(rs, scalein.Report{ID: i, Quality: s.st.isp.replicaObjective(i, s.st.coord.params, s.st.sample)})
	}
	return rs
}
