package grpcnet

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/syncmodels/syncmodels/transport"
)

// Counter categories.
const (
	sent = iota
	dropped
	received
	categories
)

const numKinds = len(transport.ByKind{})

// counters are one node's counts.
type counters [categories][numKinds]struct{ msgs, bytes atomic.Int64 }

func (c *counters) add(cat int, k transport.Kind, size int) {
	c[cat][k].msgs.Add(1)
	c[cat][k].bytes.Add(int64(size))
}

func (c *counters) load(cat int) transport.ByKind {
	var k transport.ByKind
	for i := range k {
		k[i] = transport.Counter{Messages: c[cat][i].msgs.Load(), Bytes: c[cat][i].bytes.Load()}
	}
	return k
}

// stats holds the counters of every node a Server or a Client has seen.
type stats struct {
	mu    sync.Mutex
	nodes map[transport.NodeID]*counters
}

// of returns id's counters, creating them.
func (s *stats) of(id transport.NodeID) *counters {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.nodes == nil {
		s.nodes = make(map[transport.NodeID]*counters)
	}
	c := s.nodes[id]
	if c == nil {
		c = new(counters)
		s.nodes[id] = c
	}
	return c
}

func (s *stats) snapshot() transport.Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := transport.Stats{Nodes: make(map[transport.NodeID]transport.NodeStats, len(s.nodes))}
	for id, c := range s.nodes {
		out.Nodes[id] = transport.NodeStats{
			Sent:     c.load(sent),
			Dropped:  c.load(dropped),
			Received: c.load(received),
		}
	}
	return out
}

// item is a received message waiting for Recv.
type item struct {
	m    *transport.Message
	from *counters // the sender's, for drops
	size int
}

// inbox is an endpoint's queue of received messages, bounded: push blocks
// while it is full.
type inbox struct {
	limit int

	mu     sync.Mutex
	closed bool
	q      []item
	signal chan struct{} // non-nil while a call waits; closed on any change
}

// waitLocked returns a channel closed at the next change. mu is held.
func (b *inbox) waitLocked() <-chan struct{} {
	if b.signal == nil {
		b.signal = make(chan struct{})
	}
	return b.signal
}

// notifyLocked wakes every waiter. mu is held.
func (b *inbox) notifyLocked() {
	if b.signal != nil {
		close(b.signal)
		b.signal = nil
	}
}

// push queues it, waiting for room until ctx or stop is done. It reports
// whether it queued the item; if not, the caller counts it as dropped.
func (b *inbox) push(ctx context.Context, stop <-chan struct{}, it item) bool {
	b.mu.Lock()
	for !b.closed && len(b.q) >= b.limit {
		ch := b.waitLocked()
		b.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return false
		case <-stop:
			return false
		}
		b.mu.Lock()
	}
	if b.closed {
		b.mu.Unlock()
		return false
	}
	b.q = append(b.q, it)
	b.notifyLocked()
	b.mu.Unlock()
	return true
}

// pop returns the oldest item, waiting until one is queued, ctx is done or
// the inbox is closed (ok false, err nil).
func (b *inbox) pop(ctx context.Context) (item, bool, error) {
	if err := ctx.Err(); err != nil {
		return item{}, false, err
	}
	b.mu.Lock()
	for len(b.q) == 0 {
		if b.closed {
			b.mu.Unlock()
			return item{}, false, nil
		}
		ch := b.waitLocked()
		b.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return item{}, false, ctx.Err()
		}
		b.mu.Lock()
	}
	if b.closed {
		b.mu.Unlock()
		return item{}, false, nil
	}
	it := b.q[0]
	b.q[0] = item{}
	b.q = b.q[1:]
	b.notifyLocked()
	b.mu.Unlock()
	return it, true, nil
}

// close closes the inbox and counts what it held as dropped. It reports
// whether this call closed it.
func (b *inbox) close() bool {
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return false
	}
	b.closed = true
	q := b.q
	b.q = nil
	b.notifyLocked()
	b.mu.Unlock()
	for _, it := range q {
		it.from.add(dropped, it.m.Kind, it.size)
	}
	return true
}
