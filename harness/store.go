package harness

import (
	"fmt"
	"math"
	"time"

	"github.com/syncmodels/syncmodels/algorithms"
	"github.com/syncmodels/syncmodels/consistency"
	"github.com/syncmodels/syncmodels/filter"
	"github.com/syncmodels/syncmodels/transport"
)

// StoreModel is the cost model of indirect communication (MLLess §3,
// §6.4): serverless workers cannot talk to each other or to a parameter
// server, so they exchange updates through a shared key-value store
// (Redis) and announce them on a signalling channel (RabbitMQ), and there
// are no global parameters: every worker pulls the others' updates and
// adds them to its own replica.
//
// In virtual time (Experiment.Indirect):
//
//   - push: a worker that finishes a step PUTs its update (the encoded
//     sparse delta, filter.AppendDelta) into the store — the store's link,
//     shared by all workers, carries the bytes at Bandwidth, requests served
//     in the order issued, and the reply comes RTT after the transfer ends —
//     then tells the supervisor on the signalling channel (Signal later). A
//     worker whose update is empty (ISP sent nothing) does not PUT; only
//     the announcement goes out, and nobody fetches it (MLLess's
//     update_available flag).
//   - release: the supervisor's "continue" reaches the worker Signal after
//     the round ends; it carries no parameters.
//   - pull: the worker then GETs, one after the other (MLLess's
//     aggregate_updates loop), every update of the other workers applied
//     since the version it last read — each GET is the bytes over the
//     shared store link plus RTT — and adds them to its replica
//     (Cost.EntryCost per entry) before it computes.
//   - the supervisor merges nothing (the workers aggregate), so the
//     coordinator's apply costs no time.
//
// The consequences §6.4 reports follow: BSP pulls P − 1 updates per worker
// per round; SSP lets fast workers run ahead, but a slow worker that reads
// a newer version must fetch every update it missed, so SSP saves waiting
// but not bytes; ISP sends only significant entries (and skips empty
// updates), so it saves bytes and, through the shared store link, time.
//
// Simplifications: one store (no sharding), one FIFO link for PUTs and
// GETs, RTT added after each transfer, signalling messages cost latency
// only (their bytes are counted in BytesSent, not on the store link).
// Virtual clock; BSP, SSP, ASP, quorum and ISP (FSP's interrupts and
// timers are refused).
type StoreModel struct {
	// RTT is one store request's round trip (GET or PUT). Default 1 ms.
	RTT time.Duration
	// Bandwidth is the store's network bandwidth in bytes per second,
	// shared by all workers. Default 1.25e8 (1 Gbit/s, MLLess §6.1).
	Bandwidth float64
	// Signal is the one-way latency of a signalling-channel message.
	// Default 1 ms.
	Signal time.Duration
}

func (m *StoreModel) validate(e *Experiment) error {
	if m == nil {
		return nil
	}
	if m.RTT == 0 {
		m.RTT = time.Millisecond
	}
	if m.Bandwidth == 0 {
		m.Bandwidth = 1.25e8
	}
	if m.Signal == 0 {
		m.Signal = time.Millisecond
	}
	switch {
	case m.RTT < 0 || m.Signal < 0 || !(m.Bandwidth > 0) || m.Bandwidth > 1e300:
		return fmt.Errorf("harness: store model %+v: %w", *m, ErrConfig)
	case e.Clock != Virtual:
		return fmt.Errorf("harness: indirect communication is a virtual-time cost model; the %v clock has its own transport: %w", e.Clock, ErrConfig)
	case e.Sync.Kind == consistency.FSP || e.Tuner != nil:
		return fmt.Errorf("harness: indirect communication with %v: FSP's interrupts and interval tuners are not modelled over a store: %w", e.Sync, ErrConfig)
	}
	return nil
}

// storeItem is one update in the store.
type storeItem struct {
	worker  consistency.WorkerID
	bytes   int
	entries int
}

// storeState is the simulator's store: its link, the updates of each
// version, and what each worker has read.
type storeState struct {
	m    StoreModel
	free time.Duration // the store's link is free from then
	// pending[id] is the stored update of commit id until its apply;
	// extra holds leaving workers' flushes until the next apply.
	pending map[consistency.DeltaID]storeItem
	extra   []storeItem
	// versions[v-1] lists the updates applied in version v.
	versions [][]storeItem
	seen     []consistency.Version
	bytes    int64
	puts     int64
	gets     int64
}

func newStoreState(m StoreModel, workers int) *storeState {
	return &storeState{m: m, pending: map[consistency.DeltaID]storeItem{}, seen: make([]consistency.Version, workers)}
}

// request serves one store request of size bytes issued at t and returns
// when its reply arrives.
func (st *storeState) request(t time.Duration, bytes int) time.Duration {
	start := max(t, st.free)
	st.free = start + time.Duration(math.Round(float64(bytes)/st.m.Bandwidth*1e9))
	st.bytes += int64(bytes)
	return st.free + st.m.RTT
}

// applied records the updates of version v (the coordinator's apply hook).
func (st *storeState) applied(e consistency.Effect) {
	var items []storeItem
	for _, id := range e.Deltas {
		if it, ok := st.pending[id]; ok {
			if it.bytes > 0 {
				items = append(items, it)
			}
			delete(st.pending, id)
		}
	}
	items = append(items, st.extra...)
	st.extra = nil
	for consistency.Version(len(st.versions)) < e.Version-1 {
		st.versions = append(st.versions, nil)
	}
	st.versions = append(st.versions, items)
}

// missing lists the others' updates worker w has not read up to version v,
// and marks them read.
func (st *storeState) missing(w consistency.WorkerID, v consistency.Version) []storeItem {
	var out []storeItem
	for u := st.seen[w] + 1; u <= v && int(u) <= len(st.versions); u++ {
		for _, it := range st.versions[u-1] {
			if it.worker != w {
				out = append(out, it)
			}
		}
	}
	st.seen[w] = max(st.seen[w], v)
	return out
}

// updateSize is the stored size of an update: its wire encoding.
func updateSize(d *algorithms.Delta) (bytes, entries int) {
	b, err := filter.AppendDelta(nil, d, filter.Float64)
	if err != nil {
		return 0, 0 // CheckApply refuses such a delta at the commit
	}
	for lo, hi := range liveSpans(d) {
		for _, v := range d.Vec[lo:hi] {
			if v != 0 {
				entries++
			}
		}
	}
	if entries == 0 {
		return 0, 0
	}
	return len(b), entries
}

// signal charges one signalling-channel message sent at t and returns its
// arrival.
// between the supervisor and worker w.
func (s *sim) signal(t time.Duration, w consistency.WorkerID, m transport.Message) time.Duration {
	s.bytes += int64(m.Size())
	s.msgs++
	lat := s.e.Indirect.Signal
	if s.st.shards[w].straggler {
		lat += s.e.Stragglers.Latency
	}
	return t + lat
}

// storePush stores worker w's update d (commit seq) at the current time and
// returns when its announcement reaches the supervisor.
func (s *sim) storePush(w consistency.WorkerID, seq, clock uint64, v consistency.Version, d *algorithms.Delta) time.Duration {
	st := s.store
	t := s.now
	bytes, entries := updateSize(d)
	st.pending[consistency.DeltaID{Worker: w, Seq: seq}] = storeItem{worker: w, bytes: bytes, entries: entries}
	if bytes > 0 {
		t = st.request(t, bytes)
		st.puts++
		s.msgs++
	}
	return s.signal(t, w, transport.Message{Kind: transport.Commit, From: transport.NodeID(w), To: transport.Coordinator,
		Job: s.e.Seed, Seq: seq, Version: uint64(v), Clock: clock, Points: int64(d.Count)})
}

// fetch runs a release that reached its worker: the worker GETs the
// updates it misses one at a time, aggregates them, then starts.
func (s *sim) fetch(ev *simEvent) {
	st := s.store
	if ev.items == nil {
		ev.items = st.missing(ev.w, ev.eff.Version)
		ev.next = 0
	}
	if ev.next < len(ev.items) {
		it := ev.items[ev.next]
		ev.next++
		ev.entries += it.entries
		st.gets++
		s.msgs++
		ev.t = st.request(s.now, it.bytes)
		s.push(ev)
		return
	}
	ev.fetched = true
	if ev.entries > 0 {
		ev.t = s.now + time.Duration(ev.entries)*s.e.Cost.EntryCost
		s.push(ev)
		return
	}
	s.start(ev)
}
