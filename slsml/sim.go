package slsml

import (
	"container/heap"
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/syncmodels/syncmodels/cost"
	"github.com/syncmodels/syncmodels/exchange"
)

// This file is the virtual-time driver: an event queue that decides the
// order of the store operations and times them with the cost model
// (Timing), function containers (cold and warm starts, billing) and the
// request meter. pipeline.go is the pipeline's functions on top of it.

// event is something that happens at a virtual time. Events of an older
// generation (before a loss) are dropped: the invocations they belong to
// died with the store's data.
type event struct {
	at  time.Duration
	seq uint64
	gen int
	fn  func()
}

type eventHeap []event

func (h eventHeap) Len() int { return len(h) }
func (h eventHeap) Less(i, j int) bool {
	if h[i].at != h[j].at {
		return h[i].at < h[j].at
	}
	return h[i].seq < h[j].seq
}
func (h eventHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *eventHeap) Push(x any)   { *h = append(*h, x.(event)) }
func (h *eventHeap) Pop() any {
	old := *h
	e := old[len(old)-1]
	*h = old[:len(old)-1]
	return e
}

// fn is a function of the pipeline (slsML Fig. 2).
type fn int

const (
	fnWorker fn = iota
	fnReducer
	fnMerger
	fnWorkLauncher
	fnReduceLauncher
	numFns
)

var fnNames = [numFns]string{"worker", "reducer", "merger", "work-launcher", "reduce-launcher"}

// container is one warm or cold container of a function: a cost.Ledger
// resource whose lifetimes are its invocations.
type container struct {
	name      string
	idleSince time.Duration
}

// pool is a function's idle containers.
type pool struct {
	n    int
	idle []*container
}

// call is one invocation of a function.
type call struct {
	fn    fn
	index int // the worker or reducer
	iter  int
	gen   int
	key   uint64 // its stream of store delays
	ops   uint64 // operations issued so far
	cont  *container
	start time.Duration
	ended bool
}

// opKind is a store operation.
type opKind int

const (
	opGet opKind = iota
	opPut
	opAppend
	opRead
	opArrive
	opWait
	opRecover
)

// op is one store operation.
type op struct {
	kind   opKind
	name   string // key, set or topic
	value  []byte // Put, Append
	member string // Arrive
	n      int    // WaitCount
	after  uint64 // Read
	max    int    // Read
	bytes  int64  // modelled transfer size
}

// result is an operation's outcome.
type result struct {
	value []byte
	n     int
	seq   uint64
	notes []exchange.Note
	err   error // only exchange.ErrNotFound reaches the caller
}

// Meter service names.
const (
	svcInvoke  = "lambda-invocations"
	svcPut     = "s3-put"
	svcGet     = "s3-get"
	svcWrite   = "dynamodb-write"
	svcRead    = "dynamodb-read"
	svcPublish = "sns-publish"
)

// schedule runs f at virtual time at, in the current generation.
func (s *sim) schedule(at time.Duration, f func()) {
	s.seq++
	heap.Push(&s.events, event{at: at, seq: s.seq, gen: s.gen, fn: f})
}

// loop runs events until none is left, the run fails or ctx is done.
func (s *sim) loop() {
	for s.err == nil && s.events.Len() > 0 {
		e := heap.Pop(&s.events).(event)
		if e.gen != s.gen {
			continue
		}
		s.now = e.at
		e.fn()
		if s.err == nil {
			if err := s.ctx.Err(); err != nil {
				s.err = fmt.Errorf("slsml: run stopped at %v of virtual time: %w", s.now, err)
			}
		}
	}
}

// fail stops the run with err (the first error wins).
func (s *sim) fail(err error) {
	if s.err == nil {
		s.err = err
	}
}

// invoke invokes function f for (index, iter) after the trigger delay:
// it takes an idle container (a warm start) or a new one (a cold start),
// and runs body once started.
func (s *sim) invoke(f fn, index, iter int, body func(*call)) {
	s.count(svcInvoke, 1)
	s.schedule(s.now+s.cfg.Timing.Invoke, func() {
		c := &call{fn: f, index: index, iter: iter, gen: s.gen, start: s.now}
		s.attempts[attemptKey{f, index, iter}]++
		c.key = streamKey(f, index, iter, s.attempts[attemptKey{f, index, iter}])
		p := &s.pools[f]
		start := s.cfg.Timing.ColdStart
		for len(p.idle) > 0 && c.cont == nil {
			ct := p.idle[len(p.idle)-1]
			p.idle = p.idle[:len(p.idle)-1]
			if s.now-ct.idleSince <= s.cfg.Timing.KeepAlive {
				c.cont, start = ct, s.cfg.Timing.WarmStart
			}
		}
		if c.cont == nil {
			c.cont = &container{name: fnNames[f] + "/" + strconv.Itoa(p.n)}
			p.n++
			mem := s.memory(f)
			r, err := s.cfg.Prices.Function(c.cont.name, mem)
			if err == nil {
				err = s.ledger.Add(r)
			}
			if err != nil {
				s.fail(fmt.Errorf("slsml: %w", err))
				return
			}
			s.res.Counts.ColdStarts++
		}
		s.res.Counts.Invocations++
		s.running = append(s.running, c)
		s.schedule(s.now+start, func() { body(c) })
	})
}

// memory returns function f's memory in MB.
func (s *sim) memory(f fn) int {
	switch f {
	case fnWorker:
		return s.cfg.Memory.Worker
	case fnReducer:
		return s.cfg.Memory.Reducer
	case fnMerger:
		return s.cfg.Memory.Merger
	}
	return s.cfg.Memory.Launcher
}

// end ends invocation c now: its container becomes idle and its lifetime
// is billed.
func (s *sim) end(c *call) {
	if c.ended {
		return
	}
	c.ended = true
	if i := slices.Index(s.running, c); i >= 0 {
		s.running = slices.Delete(s.running, i, i+1)
	}
	if err := s.ledger.Record(c.cont.name, c.start, s.now); err != nil {
		s.fail(fmt.Errorf("slsml: %w", err))
		return
	}
	c.cont.idleSince = s.now
	s.pools[c.fn].idle = append(s.pools[c.fn].idle, c.cont)
}

// after runs f d after now, unless c's generation died meanwhile.
func (s *sim) after(c *call, d time.Duration, f func()) {
	s.schedule(s.now+d, f)
}

// do issues ops together for invocation c and calls then with their
// results once all have completed. Operation i completes, and takes
// effect in the store, at now + its delay (drawn from Timing.Store for
// c's i-th operation) + the group's transfer time (all its bytes over
// the function's bandwidth). An operation that finds the store
// unavailable is retried after Timing.Retry; one that finds the store's
// data lost starts the recovery (lose); any other error but
// ErrNotFound stops the run.
func (s *sim) do(c *call, ops []op, then func([]result)) {
	var bytes int64
	for _, o := range ops {
		bytes += o.bytes
	}
	transfer := time.Duration(float64(bytes) / s.cfg.Timing.Bandwidth * float64(time.Second))
	res := make([]result, len(ops))
	left := len(ops)
	if left == 0 {
		then(res)
		return
	}
	for i := range ops {
		var try func(n int)
		try = func(n int) {
			delay := s.cfg.Timing.Store.Sample(s.cfg.Seed, c.key, c.ops)
			c.ops++
			extra := transfer
			if n > 0 {
				extra = time.Duration(float64(ops[i].bytes) / s.cfg.Timing.Bandwidth * float64(time.Second))
			}
			s.after(c, delay+extra, func() {
				r := s.exec(ops[i])
				switch {
				case r.err == nil || errors.Is(r.err, exchange.ErrNotFound):
				case errors.Is(r.err, exchange.ErrUnavailable) && n < s.cfg.Retries:
					s.res.Counts.Retries++
					s.schedule(s.now+s.cfg.Timing.Retry, func() { try(n + 1) })
					return
				case errors.Is(r.err, exchange.ErrUnavailable):
					s.fail(fmt.Errorf("slsml: %v %d retries: %w: %w", r.err, n, ErrStore, r.err))
					return
				case errors.Is(r.err, exchange.ErrLost):
					s.lose()
					return
				default:
					s.fail(fmt.Errorf("slsml: %s: %w", fnNames[c.fn], r.err))
					return
				}
				res[i] = r
				if left--; left == 0 {
					then(res)
				}
			})
		}
		try(0)
	}
}

// exec performs one operation on the store, counting its request.
func (s *sim) exec(o op) result {
	ctx, cancel := context.WithTimeout(s.ctx, s.cfg.OpTimeout)
	defer cancel()
	var r result
	s.res.Bytes += o.bytes
	switch o.kind {
	case opGet:
		s.count(svcGet, 1)
		r.value, r.err = s.s.Get(ctx, o.name)
	case opPut:
		s.count(svcPut, 1)
		r.err = s.s.Put(ctx, o.name, o.value)
		if !s.putKeys[o.name] {
			s.putKeys[o.name] = true
			s.keys = append(s.keys, o.name)
		}
	case opAppend:
		s.count(svcPublish, 1)
		r.seq, r.err = s.s.Append(ctx, o.name, o.value)
	case opRead:
		s.count(svcRead, 1)
		r.notes, r.err = s.s.Read(ctx, o.name, o.after, o.max)
	case opArrive:
		s.count(svcWrite, 1)
		r.n, r.err = s.s.Arrive(ctx, o.name, o.member)
	case opWait:
		s.count(svcRead, 1)
		r.n, r.err = s.s.WaitCount(ctx, o.name, o.n)
	case opRecover:
		_, r.err = s.s.Recover(ctx)
	}
	return r
}

// cleanup deletes the keys the run wrote, best effort, untimed and not
// metered (S3 DELETE requests are free): they are garbage once the run
// is over, and a Redis would keep them.
func (s *sim) cleanup() {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(s.ctx), s.cfg.OpTimeout)
	defer cancel()
	for _, k := range s.keys {
		if err := s.s.Delete(ctx, k); err != nil {
			return
		}
	}
}

// count adds n requests to a metered service.
func (s *sim) count(svc string, n int64) {
	if err := s.meter.Count(svc, n); err != nil {
		s.fail(fmt.Errorf("slsml: %w", err))
	}
}

// attemptKey names an invocation; attempts counts its invocations (a
// replay after a loss is a new attempt with its own delays).
type attemptKey struct {
	f           fn
	index, iter int
}

// streamKey is the latency stream of an invocation: the delays of its
// operations do not depend on other invocations or on the schedule, so
// two runs that differ only in the quorum draw the same delays for the
// same invocations (common random numbers).
func streamKey(f fn, index, iter, attempt int) uint64 {
	return uint64(f)<<56 | uint64(attempt&0xff)<<48 | uint64(iter&0xffffff)<<24 | uint64(index&0xffffff)
}

// newMeter registers the metered services with their prices.
func newMeter(p cost.Serverless) (cost.Meter, error) {
	var m cost.Meter
	for _, sv := range []struct {
		name string
		p    cost.RequestPrice
	}{{svcInvoke, p.Invocation}, {svcPut, p.Put}, {svcGet, p.Get}, {svcWrite, p.Write}, {svcRead, p.Read}, {svcPublish, p.Publish}} {
		if err := m.Add(sv.name, sv.p); err != nil {
			return m, err
		}
	}
	return m, nil
}
