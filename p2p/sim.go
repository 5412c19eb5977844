package p2p

import (
	"container/heap"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/syncmodels/syncmodels/exchange"
)

// The virtual-time driver. Every peer runs its protocol in a goroutine of
// its own, but only one goroutine runs at a time: a peer runs until it
// computes or calls the store, then hands control to the scheduler, which
// decides, by the cost model, when that happens in virtual time. Store
// calls are carried out on the real store — in-process or Redis — by the
// scheduler, one at a time, in virtual-time order (ties broken by the
// order they were issued), so the store sees the same calls in the same
// order whatever it is and however fast the machine: same seed, same run.
//
// A store call takes effect at its linearization point, after the
// request's half of the round trip, the peer's per-operation latency and
// the upload; the peer resumes after the response's half and the
// download. A wait on a counting set (WaitCount) counts the set then; if
// it is short, the peer is parked until an arrival completes the count
// (then the count is taken again, for real) or a fault (then the count
// finds the store's loss, as a real client's wait would).

// errAborted is returned by the store calls of a peer whose run was
// stopped (another peer failed, a fault failed, the context ended).
var errAborted = errors.New("p2p: run aborted")

// callKind says what a peer asked the scheduler for.
type callKind uint8

const (
	cCompute callKind = iota + 1
	cOp
	cWait
)

// call is one request of a peer: compute for d, or a store operation.
type call struct {
	p    *proc
	kind callKind
	d    time.Duration // cCompute
	up   int           // bytes sent (cOp, cWait)
	// exec runs the store operation at its linearization point and
	// returns the bytes received; for cWait it reports ok = false to
	// park the peer (the count is short).
	exec func() (down int, ok bool)
	// arrive, if set, names the counting set an arrival went to; count
	// is its size after exec.
	arrive string
	count  int
	// name and need: the set a cWait waits on and the size it waits for.
	name string
	need int

	issued   time.Duration
	parkedAt time.Duration // while parked
	parked   time.Duration // total time parked
}

// proc is a peer's goroutine as the scheduler sees it.
type proc struct {
	id     int
	s      *sim
	resume chan struct{} // the scheduler lets the peer run; closed to abort
	req    *call         // the call the peer yielded with, or nil when done
	done   bool
	err    error
	ops    uint64 // store requests issued, for latency samples

	compute, comm, wait time.Duration
}

// event is something the scheduler does at a virtual time.
type event struct {
	at   time.Duration
	seq  uint64
	exec bool // run c.exec; else resume c.p
	c    *call
}

type eventQueue []event

func (q eventQueue) Len() int { return len(q) }
func (q eventQueue) Less(i, j int) bool {
	if q[i].at != q[j].at {
		return q[i].at < q[j].at
	}
	return q[i].seq < q[j].seq
}
func (q eventQueue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *eventQueue) Push(x any)   { *q = append(*q, x.(event)) }
func (q *eventQueue) Pop() any {
	old := *q
	e := old[len(old)-1]
	*q = old[:len(old)-1]
	return e
}

// sim is the scheduler.
type sim struct {
	ctx    context.Context
	cost   CostModel
	seed   uint64
	now    time.Duration
	q      eventQueue
	seq    uint64
	parked map[string][]*call
	faults []Fault
	yield  chan *proc
	procs  []*proc
}

func newSim(ctx context.Context, cfg Config) *sim {
	faults := slices.Clone(cfg.Faults)
	slices.SortStableFunc(faults, func(a, b Fault) int { return int(a.At - b.At) })
	return &sim{ctx: ctx, cost: cfg.Cost, seed: cfg.Seed, parked: map[string][]*call{}, faults: faults, yield: make(chan *proc)}
}

func (s *sim) push(at time.Duration, exec bool, c *call) {
	s.seq++
	heap.Push(&s.q, event{at: at, seq: s.seq, exec: exec, c: c})
}

// spawn makes n procs, for run.
func (s *sim) spawn(n int) []*proc {
	for i := range n {
		s.procs = append(s.procs, &proc{id: i, s: s, resume: make(chan struct{})})
	}
	return s.procs
}

// run starts proc i (from spawn) on bodies[i] and schedules them to the
// end: every body returned, or one failed (then the others are aborted),
// or every peer left waits for an arrival that can never come.
func (s *sim) run(bodies []func(p *proc) error) error {
	for i, body := range bodies {
		p := s.procs[i]
		go func() {
			if _, ok := <-p.resume; ok {
				p.err = body(p)
			} else {
				p.err = errAborted
			}
			p.req, p.done = nil, true
			s.yield <- p
		}()
		s.push(0, false, &call{p: p, kind: cCompute})
	}
	err := s.loop()
	if err != nil {
		s.abort()
	}
	return err
}

// loop runs events until every peer is done or one fails.
func (s *sim) loop() error {
	for {
		if err := s.ctx.Err(); err != nil {
			return fmt.Errorf("p2p: %w", err)
		}
		if len(s.q) == 0 {
			if s.allDone() {
				return nil
			}
			if len(s.faults) > 0 { // a fault may wake the parked peers
				if err := s.fault(); err != nil {
					return err
				}
				continue
			}
			return s.deadlock()
		}
		ev := heap.Pop(&s.q).(event)
		for len(s.faults) > 0 && s.faults[0].At <= ev.at {
			if err := s.fault(); err != nil {
				return err
			}
		}
		s.now = ev.at
		c := ev.c
		if ev.exec {
			s.execute(c)
			continue
		}
		if err := s.resume(c); err != nil {
			return err
		}
	}
}

// execute runs a store call at its linearization point.
func (s *sim) execute(c *call) {
	down, ok := c.exec()
	if !ok { // a short count: park until an arrival or a fault
		c.parkedAt = s.now
		s.parked[c.name] = append(s.parked[c.name], c)
		return
	}
	if c.arrive != "" {
		s.wake(c.arrive, c.count)
	}
	s.push(s.now+s.respond(c.p.id, down), false, c)
}

// wake reschedules the waits on set name that count n satisfies: the
// store notifies them, and they count again.
func (s *sim) wake(name string, n int) {
	ws := s.parked[name]
	keep := ws[:0]
	for _, w := range ws {
		if w.need <= n {
			w.parked += s.now - w.parkedAt
			s.push(s.now, true, w)
		} else {
			keep = append(keep, w)
		}
	}
	if len(keep) == 0 {
		delete(s.parked, name)
	} else {
		s.parked[name] = keep
	}
}

// fault runs the next fault, then makes every parked wait count again.
func (s *sim) fault() error {
	f := s.faults[0]
	s.faults = s.faults[1:]
	s.now = max(s.now, f.At)
	if err := f.Do(s.ctx); err != nil {
		return fmt.Errorf("p2p: fault %q at %v: %w", f.Name, f.At, err)
	}
	for _, name := range slices.Sorted(maps.Keys(s.parked)) {
		for _, w := range s.parked[name] {
			w.parked += s.now - w.parkedAt
			s.push(s.now, true, w)
		}
		delete(s.parked, name)
	}
	return nil
}

// resume lets peer c.p run until its next call, and schedules that call.
func (s *sim) resume(c *call) error {
	p := c.p
	{
		d := s.now - c.issued
		switch c.kind {
		case cCompute:
			p.compute += d
		case cWait:
			p.wait += c.parked
			p.comm += d - c.parked
		case cOp:
			p.comm += d
		}
	}
	p.resume <- struct{}{}
	if q := <-s.yield; q != p {
		panic("p2p: a peer ran out of turn")
	}
	if p.done {
		if p.err != nil {
			return fmt.Errorf("p2p: peer %d: %w", p.id, p.err)
		}
		return nil
	}
	n := p.req
	n.issued = s.now
	switch n.kind {
	case cCompute:
		s.push(s.now+n.d, false, n)
	default:
		s.push(s.now+s.request(p, n.up), true, n)
	}
	return nil
}

// request is the time from issuing a store call with up bytes to its
// linearization point: half the round trip, the upload and the peer's
// per-operation latency, times its Comm slowdown.
func (s *sim) request(p *proc, up int) time.Duration {
	p.ops++
	d := s.cost.RTT/2 + s.transfer(up)
	if !s.cost.Latency.IsZero() {
		d += s.cost.Latency.Sample(s.seed, uint64(p.id), p.ops)
	}
	return scale(d, s.cost.slow(p.id).Comm)
}

// respond is the time from a call's linearization point to the peer
// having its answer of down bytes.
func (s *sim) respond(peer, down int) time.Duration {
	return scale(s.cost.RTT-s.cost.RTT/2+s.transfer(down), s.cost.slow(peer).Comm)
}

func (s *sim) transfer(bytes int) time.Duration {
	if s.cost.Bandwidth <= 0 || bytes == 0 {
		return 0
	}
	return time.Duration(float64(bytes) / s.cost.Bandwidth * float64(time.Second))
}

func scale(d time.Duration, f float64) time.Duration {
	if f == 1 {
		return d
	}
	return time.Duration(float64(d) * f)
}

func (s *sim) allDone() bool {
	for _, p := range s.procs {
		if !p.done {
			return false
		}
	}
	return true
}

// deadlock describes peers parked forever.
func (s *sim) deadlock() error {
	var w []string
	for _, name := range slices.Sorted(maps.Keys(s.parked)) {
		for _, c := range s.parked[name] {
			w = append(w, fmt.Sprintf("peer %d waits for %d at %q", c.p.id, c.need, name))
		}
	}
	return fmt.Errorf("p2p: deadlock at %v: %s", s.now, strings.Join(w, "; "))
}

// abort stops every peer still running: their store calls return
// errAborted until they return.
func (s *sim) abort() {
	left := 0
	for _, p := range s.procs {
		if !p.done {
			close(p.resume)
			left++
		}
	}
	for left > 0 {
		if q := <-s.yield; q.done {
			left--
		}
	}
}

// do hands the call to the scheduler and returns once it is done in
// virtual time, or errAborted.
func (p *proc) do(c *call) error {
	c.p = p
	p.req = c
	p.s.yield <- p
	if _, ok := <-p.resume; !ok {
		return errAborted
	}
	return nil
}

// Compute spends d of virtual time computing.
func (p *proc) Compute(d time.Duration) error {
	return p.do(&call{kind: cCompute, d: d})
}

// Now is the virtual time (valid while the peer runs).
func (p *proc) Now() time.Duration { return p.s.now }

// simStore is a peer's store client, timed by the scheduler.
type simStore struct {
	p *proc
	s exchange.Store
}

var _ exchange.Store = (*simStore)(nil)

// op runs f as a store call of up bytes sent.
func (c *simStore) op(up int, f func() int) error {
	return c.p.do(&call{kind: cOp, up: up, exec: func() (int, bool) { return f(), true }})
}

func (c *simStore) Epoch() string { return c.s.Epoch() }

func (c *simStore) Put(ctx context.Context, key string, value []byte) error {
	var err error
	if e := c.op(len(key)+len(value), func() int { err = c.s.Put(ctx, key, value); return 0 }); e != nil {
		return e
	}
	return err
}

func (c *simStore) Get(ctx context.Context, key string) ([]byte, error) {
	var v []byte
	var err error
	if e := c.op(len(key), func() int { v, err = c.s.Get(ctx, key); return len(v) }); e != nil {
		return nil, e
	}
	return v, err
}

func (c *simStore) Delete(ctx context.Context, key string) error {
	var err error
	if e := c.op(len(key), func() int { err = c.s.Delete(ctx, key); return 0 }); e != nil {
		return e
	}
	return err
}

func (c *simStore) Arrive(ctx context.Context, name, member string) (int, error) {
	var n int
	var err error
	cl := &call{kind: cOp, up: len(name) + len(member)}
	cl.exec = func() (int, bool) {
		n, err = c.s.Arrive(ctx, name, member)
		if err == nil {
			cl.arrive, cl.count = name, n
		}
		return 0, true
	}
	if e := c.p.do(cl); e != nil {
		return 0, e
	}
	return n, err
}

func (c *simStore) Count(ctx context.Context, name string) (int, error) {
	var n int
	var err error
	if e := c.op(len(name), func() int { n, err = c.s.Count(ctx, name); return 0 }); e != nil {
		return 0, e
	}
	return n, err
}

// WaitCount counts the set at its linearization point and parks the peer
// while the count is short; it never blocks the real store.
func (c *simStore) WaitCount(ctx context.Context, name string, need int) (int, error) {
	var n int
	var err error
	cl := &call{kind: cWait, up: len(name), name: name, need: need}
	cl.exec = func() (int, bool) {
		n, err = c.s.Count(ctx, name)
		return 0, err != nil || n >= need
	}
	if e := c.p.do(cl); e != nil {
		return 0, e
	}
	return n, err
}

func (c *simStore) Append(ctx context.Context, topic string, note []byte) (uint64, error) {
	var n uint64
	var err error
	if e := c.op(len(topic)+len(note), func() int { n, err = c.s.Append(ctx, topic, note); return 0 }); e != nil {
		return 0, e
	}
	return n, err
}

// Read is not served: it blocks on the real store, which the scheduler
// must not (the peer-to-peer protocol reads slots, not topics).
func (c *simStore) Read(ctx context.Context, topic string, after uint64, max int) ([]exchange.Note, error) {
	return nil, fmt.Errorf("p2p: read %q: topics are not served in virtual time: %w", topic, exchange.ErrInput)
}

func (c *simStore) Check(ctx context.Context) error {
	var err error
	if e := c.op(0, func() int { err = c.s.Check(ctx); return 0 }); e != nil {
		return e
	}
	return err
}

func (c *simStore) Recover(ctx context.Context) (string, error) {
	var v string
	var err error
	if e := c.op(0, func() int { v, err = c.s.Recover(ctx); return 0 }); e != nil {
		return "", e
	}
	return v, err
}

func (c *simStore) Close() error { return c.s.Close() }
