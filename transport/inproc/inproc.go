package inproc

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/syncmodels/syncmodels/transport"
)

// Network is an in-process transport.Transport. Create it with New.
type Network struct {
	cfg     Config
	start   time.Time // the clock's time at New; arrival times count from it
	delayed bool      // Delay or Jitter is set: arrival times need the clock
	bufs    sync.Pool // *[]byte encodings, recycled after Recv

	mu     sync.RWMutex
	nodes  map[transport.NodeID]*node
	closed bool
}

var _ transport.Transport = (*Network)(nil)

// node is a NodeID's lasting state: counters, and its endpoint while open.
type node struct {
	id    transport.NodeID
	count counters
	opens uint64    // times opened; guarded by Network.mu
	ep    *endpoint // the open endpoint or nil; guarded by Network.mu
}

// Counter categories.
const (
	sent = iota
	duplicated
	dropped
	received
	categories
)

const numKinds = len(transport.ByKind{})

type counters [categories][numKinds]struct{ msgs, bytes atomic.Int64 }

func (c *counters) add(cat int, k transport.Kind, copies, size int) {
	c[cat][k].msgs.Add(int64(copies))
	c[cat][k].bytes.Add(int64(copies * size))
}

func (c *counters) load(cat int) transport.ByKind {
	var k transport.ByKind
	for i := range k {
		k[i] = transport.Counter{Messages: c[cat][i].msgs.Load(), Bytes: c[cat][i].bytes.Load()}
	}
	return k
}

// New returns a network for cfg, or an error wrapping ErrConfig naming the
// bad field.
func New(cfg Config) (*Network, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	return &Network{
		cfg:     cfg,
		start:   cfg.Clock.Now(),
		delayed: cfg.Delay > 0 || cfg.Jitter > 0,
		nodes:   make(map[transport.NodeID]*node),
	}, nil
}

// Open attaches node id. See transport.Transport.
func (n *Network) Open(id transport.NodeID) (transport.Endpoint, error) {
	if !id.Valid() {
		return nil, fmt.Errorf("inproc: open node %d: not a node ID: %w", int(id), transport.ErrUnknownNode)
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.closed {
		return nil, fmt.Errorf("inproc: open %v: %w", id, transport.ErrClosed)
	}
	nd := n.nodes[id]
	if nd == nil {
		nd = &node{id: id}
		n.nodes[id] = nd
	}
	if nd.ep != nil {
		return nil, fmt.Errorf("inproc: open %v: %w", id, transport.ErrAlreadyOpen)
	}
	stream := splitmix64(uint64(uint32(int32(id))) | nd.opens<<32)
	nd.opens++
	e := &endpoint{
		net:  n,
		node: nd,
		done: make(chan struct{}),
		rng:  rand.New(rand.NewPCG(n.cfg.Seed, stream)),
	}
	e.wake = func() {
		e.mu.Lock()
		e.notifyLocked()
		e.mu.Unlock()
	}
	nd.ep = e
	return e, nil
}

// Stats returns the counts of every node opened so far.
func (n *Network) Stats() transport.Stats {
	n.mu.RLock()
	defer n.mu.RUnlock()
	s := transport.Stats{Nodes: make(map[transport.NodeID]transport.NodeStats, len(n.nodes))}
	for id, nd := range n.nodes {
		s.Nodes[id] = transport.NodeStats{
			Sent:       nd.count.load(sent),
			Duplicated: nd.count.load(duplicated),
			Dropped:    nd.count.load(dropped),
			Received:   nd.count.load(received),
		}
	}
	return s
}

// Close closes every endpoint and drops the messages in flight. The
// network starts no goroutine; pending delivery timers belong to blocked
// Recv calls, which return.
func (n *Network) Close() error {
	n.mu.Lock()
	n.closed = true
	var eps []*endpoint
	for _, nd := range n.nodes {
		if nd.ep != nil {
			eps = append(eps, nd.ep)
		}
	}
	n.mu.Unlock()
	for _, e := range eps {
		e.Close()
	}
	return nil
}

// now returns the time since New.
func (n *Network) now() time.Duration { return n.cfg.Clock.Now().Sub(n.start) }

// lookup returns the node id and its open endpoint (nil if closed).
func (n *Network) lookup(id transport.NodeID) (*node, *endpoint) {
	n.mu.RLock()
	defer n.mu.RUnlock()
	nd := n.nodes[id]
	if nd == nil {
		return nil, nil
	}
	return nd, nd.ep
}

func (n *Network) getBuf() *[]byte {
	if p, ok := n.bufs.Get().(*[]byte); ok {
		return p
	}
	return new([]byte)
}

func (n *Network) putBuf(p *[]byte) {
	*p = (*p)[:0]
	n.bufs.Put(p)
}

// item is a message queued for an endpoint, in flight or arrived.
type item struct {
	at   time.Duration // arrival time since New; 0 on an undelayed network
	seq  uint64        // queue order among equal arrival times
	from *node
	kind transport.Kind
	buf  *[]byte
}

// endpoint is a node's open attachment.
type endpoint struct {
	net  *Network
	node *node
	done chan struct{} // closed by Close
	wake func()        // notifyLocked under e.mu, for timers

	sendMu sync.Mutex
	rng    *rand.Rand // guarded by sendMu

	mu     sync.Mutex
	closed bool
	q      queue
	seq    uint64
	signal chan struct{} // non-nil while a call waits; closed on any change
}

var _ transport.Endpoint = (*endpoint)(nil)

func (e *endpoint) ID() transport.NodeID { return e.node.id }

// Send encodes m and queues it for m.To, as the link's randomness decides.
// See transport.Endpoint.
func (e *endpoint) Send(ctx context.Context, m *transport.Message) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	mm := *m
	mm.From = e.node.id
	fail := func(err error) error {
		return fmt.Errorf("inproc: %v: send %v to %v: %w", mm.From, mm.Kind, mm.To, err)
	}
	if e.isClosed() {
		return fail(transport.ErrClosed)
	}
	if err := mm.Validate(e.net.cfg.Layout); err != nil {
		return fmt.Errorf("inproc: %v: send: %w", mm.From, err)
	}
	if limit := e.net.cfg.MaxMessage; mm.MaxSize() > limit {
		if size := mm.Size(); size > limit {
			return fail(fmt.Errorf("%d bytes exceed the limit of %d: %w", size, limit, transport.ErrTooLarge))
		}
	}
	dst, dstEp := e.net.lookup(mm.To)
	if dst == nil {
		return fail(transport.ErrUnknownNode)
	}
	buf := e.net.getBuf()
	var err error
	if *buf, err = mm.AppendBinary(*buf); err != nil {
		e.net.putBuf(buf)
		return fmt.Errorf("inproc: %v: send: %w", mm.From, err) // unreachable after Validate
	}
	size := len(*buf)

	// Four draws per message whatever the configuration, so that a seed's
	// drop pattern does not depend on Delay, Jitter or Duplicate.
	e.sendMu.Lock()
	uDrop, uDup, uJit1, uJit2 := e.rng.Float64(), e.rng.Float64(), e.rng.Float64(), e.rng.Float64()
	e.sendMu.Unlock()

	c := &e.node.count
	if uDrop < e.net.cfg.Drop || dstEp == nil {
		e.net.putBuf(buf)
		c.add(sent, mm.Kind, 1, size)
		c.add(dropped, mm.Kind, 1, size)
		return nil
	}
	first := item{at: e.arrival(uJit1), from: e.node, kind: mm.Kind, buf: buf}
	var dup *[]byte
	if uDup < e.net.cfg.Duplicate {
		dup = e.net.getBuf()
		*dup = append(*dup, *buf...)
	}
	switch err := dstEp.push(ctx, e.done, first, true); err {
	case nil:
		c.add(sent, mm.Kind, 1, size)
	case errPeerClosed:
		c.add(sent, mm.Kind, 1, size)
		c.add(dropped, mm.Kind, 1, size)
	default:
		if dup != nil {
			e.net.putBuf(dup)
		}
		e.net.putBuf(buf)
		if err == transport.ErrClosed {
			return fail(err)
		}
		return err
	}
	if dup != nil {
		c.add(duplicated, mm.Kind, 1, size)
		second := item{at: e.arrival(uJit2), from: e.node, kind: mm.Kind, buf: dup}
		if err := dstEp.push(ctx, e.done, second, false); err != nil {
			e.net.putBuf(dup)
			c.add(dropped, mm.Kind, 1, size)
		}
	}
	return nil
}

// arrival returns the arrival time of a message sent now, given a uniform
// draw u in [0, 1) for the jitter.
func (e *endpoint) arrival(u float64) time.Duration {
	if !e.net.delayed {
		return 0
	}
	return e.net.now() + e.net.cfg.Delay + time.Duration(u*float64(e.net.cfg.Jitter))
}

// Errors of push besides ctx.Err() and ErrClosed (the sender closed).
var (
	errPeerClosed = fmt.Errorf("inproc: receiver closed")
	errFull       = fmt.Errorf("inproc: queue full")
)

// push queues it, waiting for room if block is set, until ctx is done or
// senderDone is closed.
func (e *endpoint) push(ctx context.Context, senderDone <-chan struct{}, it item, block bool) error {
	e.mu.Lock()
	for !e.closed && len(e.q) >= e.net.cfg.Inbox {
		if !block {
			e.mu.Unlock()
			return errFull
		}
		ch := e.waitLocked()
		e.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		case <-senderDone:
			return transport.ErrClosed
		}
		e.mu.Lock()
	}
	if e.closed {
		e.mu.Unlock()
		return errPeerClosed
	}
	it.seq = e.seq
	e.seq++
	e.q.push(it)
	e.notifyLocked()
	e.mu.Unlock()
	return nil
}

// Recv returns the next message that has arrived. See transport.Endpoint.
func (e *endpoint) Recv(ctx context.Context) (*transport.Message, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	e.mu.Lock()
	for {
		if e.closed {
			e.mu.Unlock()
			return nil, fmt.Errorf("inproc: %v: recv: %w", e.node.id, transport.ErrClosed)
		}
		wait := time.Duration(-1)
		if len(e.q) > 0 {
			at := e.q[0].at
			if at <= 0 {
				break
			}
			now := e.net.now()
			if at <= now {
				break
			}
			wait = at - now
		}
		ch := e.waitLocked()
		e.mu.Unlock()
		var t Timer
		if wait >= 0 {
			t = e.net.cfg.Clock.AfterFunc(wait, e.wake)
		}
		select {
		case <-ch:
		case <-ctx.Done():
		}
		if t != nil {
			t.Stop()
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		e.mu.Lock()
	}
	it := e.q.pop()
	e.notifyLocked() // room for a blocked sender
	e.mu.Unlock()

	m, err := transport.Unmarshal(*it.buf, e.net.cfg.Layout)
	size := len(*it.buf)
	e.net.putBuf(it.buf)
	if err != nil { // impossible: Send validated the message
		it.from.count.add(dropped, it.kind, 1, size)
		return nil, fmt.Errorf("inproc: %v: recv %v from %v: %w", e.node.id, it.kind, it.from.id, err)
	}
	e.node.count.add(received, it.kind, 1, size)
	return m, nil
}

// Close closes the endpoint and drops what is queued for it.
func (e *endpoint) Close() error {
	e.net.mu.Lock()
	if e.node.ep == e {
		e.node.ep = nil
	}
	e.net.mu.Unlock()

	e.mu.Lock()
	if e.closed {
		e.mu.Unlock()
		return nil
	}
	e.closed = true
	close(e.done)
	q := e.q
	e.q = nil
	e.notifyLocked()
	e.mu.Unlock()

	for _, it := range q {
		it.from.count.add(dropped, it.kind, 1, len(*it.buf))
		e.net.putBuf(it.buf)
	}
	return nil
}

func (e *endpoint) isClosed() bool {
	select {
	case <-e.done:
		return true
	default:
		return false
	}
}

// waitLocked returns a channel that is closed at the endpoint's next
// change (a push, a pop, Close, or a timer's wake-up). e.mu is held.
func (e *endpoint) waitLocked() <-chan struct{} {
	if e.signal == nil {
		e.signal = make(chan struct{})
	}
	return e.signal
}

// notifyLocked wakes every waiter. e.mu is held.
func (e *endpoint) notifyLocked() {
	if e.signal != nil {
		close(e.signal)
		e.signal = nil
	}
}

// splitmix64 scrambles x (Steele, Lea and Flood's SplitMix64 finaliser),
// so that nearby node IDs get unrelated PCG streams.
func splitmix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}
