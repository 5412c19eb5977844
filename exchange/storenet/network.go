package storenet

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/syncmodels/syncmodels/exchange"
	"github.com/syncmodels/syncmodels/transport"
)

// Network is a transport.Transport whose messages go through an
// exchange.Store. Create it with New.
type Network struct {
	cfg Config

	mu     sync.Mutex
	nodes  map[transport.NodeID]*node
	known  map[transport.NodeID]bool // registered in the store, as a Send found
	losses []Loss
	counts [Unsent + 1]int64 // losses by kind
	closed bool

	requests, written, read atomic.Int64
}

var _ transport.Transport = (*Network)(nil)

// node is a NodeID's lasting state: counters, its endpoint while open,
// and its inbox's ledger once opened here.
type node struct {
	id      transport.NodeID
	count   counters
	ep      *endpoint // the open endpoint; guarded by Network.mu
	opening bool      // an Open is connecting; guarded by Network.mu
	inbox   *inbox    // guarded by Network.mu
}

// Counter categories.
const (
	sent = iota
	dropped
	received
)

// counters is a node's transport.NodeStats (no duplicates here: the
// store never copies a note).
type counters struct {
	mu sync.Mutex
	s  transport.NodeStats
}

// add counts copies messages of kind k and size bytes in category cat.
func (c *counters) add(cat int, k transport.Kind, copies, size int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	b := &c.s.Sent
	switch cat {
	case dropped:
		b = &c.s.Dropped
	case received:
		b = &c.s.Received
	}
	b[k].Add(transport.Counter{Messages: int64(copies), Bytes: int64(copies * size)})
}

func (c *counters) load() transport.NodeStats {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.s
}

// New returns a network for cfg, or an error wrapping ErrConfig naming the
// bad field. It does not connect: each Open dials its endpoint's client.
func New(cfg Config) (*Network, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	return &Network{cfg: cfg, nodes: map[transport.NodeID]*node{}, known: map[transport.NodeID]bool{}}, nil
}

// Open attaches node id: it dials a store client, registers the node
// (key node/<id>) and appends an open marker to its inbox (topic
// inbox/<id>), after which it reads, so a reopened node starts empty.
// See transport.Transport.
func (n *Network) Open(id transport.NodeID) (transport.Endpoint, error) {
	if !id.Valid() {
		return nil, fmt.Errorf("storenet: open node %d: not a node ID: %w", int(id), transport.ErrUnknownNode)
	}
	n.mu.Lock()
	if n.closed {
		n.mu.Unlock()
		return nil, fmt.Errorf("storenet: open %v: %w", id, transport.ErrClosed)
	}
	nd := n.nodes[id]
	if nd == nil {
		nd = &node{id: id}
		n.nodes[id] = nd
	}
	if nd.ep != nil || nd.opening {
		n.mu.Unlock()
		return nil, fmt.Errorf("storenet: open %v: %w", id, transport.ErrAlreadyOpen)
	}
	nd.opening = true
	n.mu.Unlock()

	e, err := n.connect(nd)
	n.mu.Lock()
	defer n.mu.Unlock()
	nd.opening = false
	if err == nil && n.closed {
		err = fmt.Errorf("storenet: open %v: %w", id, transport.ErrClosed)
	}
	if err != nil {
		if e != nil {
			e.store.Close()
		}
		if nd.inbox != nil {
			n.closeInbox(id) // what was recorded while connecting
		}
		return nil, err
	}
	n.openInbox(id, e.repoch, e.cursor)
	n.known[id] = true
	nd.ep = e
	return e, nil
}

// connect dials nd's client, registers the node and marks its inbox.
func (n *Network) connect(nd *node) (*endpoint, error) {
	ctx, cancel := context.WithTimeout(context.Background(), n.cfg.OpenTimeout)
	defer cancel()
	fail := func(what string, err error) error {
		return fmt.Errorf("storenet: open %v: %s: %w", nd.id, what, err)
	}
	s, err := n.cfg.Dial(ctx)
	if err != nil {
		return nil, fail("dial", err)
	}
	token, err := newToken()
	if err != nil {
		s.Close()
		return nil, fail("token", err)
	}
	e := &endpoint{net: n, node: nd, store: s, topic: inboxTopic(nd.id), token: token, done: make(chan struct{})}
	marker := append([]byte{tagOpen}, token...)
	for attempt := 0; ; attempt++ {
		err = n.count(s.Put(ctx, nodeKey(nd.id), []byte(token)), len(token), 0)
		var seq uint64
		if err == nil {
			seq, err = s.Append(ctx, e.topic, marker)
			err = n.count(err, len(marker), 0)
		}
		if err == nil {
			e.repoch, e.cursor, e.pos = s.Epoch(), seq, seq
			return e, nil
		}
		// A store that lost its data since the client adopted its epoch:
		// adopt the new one and try again.
		if !errors.Is(err, exchange.ErrLost) || attempt == 3 {
			return e, fail("register", err)
		}
		if _, err := s.Recover(ctx); err != nil {
			return e, fail("recover", err)
		}
	}
}

// count counts one store request of written and read bytes and returns
// err.
func (n *Network) count(err error, written, read int) error {
	n.requests.Add(1)
	n.written.Add(int64(written))
	n.read.Add(int64(read))
	return err
}

// Stats returns the counts of every node opened so far. Sent counts the
// messages this Network's endpoints sent; Received what they received;
// Dropped the messages of this Network's senders that were lost in the
// store (see Loss) or addressed to a node closed here. Messages to and
// from nodes of other processes are counted on one side only.
func (n *Network) Stats() transport.Stats {
	n.mu.Lock()
	defer n.mu.Unlock()
	s := transport.Stats{Nodes: make(map[transport.NodeID]transport.NodeStats, len(n.nodes))}
	for id, nd := range n.nodes {
		s.Nodes[id] = nd.count.load()
	}
	return s
}

// StoreStats counts a Network's store requests: what a store billed per
// request (S3, DynamoDB) would charge.
type StoreStats struct {
	// Requests counts store calls, a blocking Read once however long it
	// waited.
	Requests int64
	// BytesWritten and BytesRead count the notes, blobs and keys written
	// and read.
	BytesWritten, BytesRead int64
}

// StoreStats returns the Network's store requests so far.
func (n *Network) StoreStats() StoreStats {
	return StoreStats{Requests: n.requests.Load(), BytesWritten: n.written.Load(), BytesRead: n.read.Load()}
}

// MaxLosses is how many losses a Network keeps for Losses; LossCount
// counts them all.
const MaxLosses = 1000

// Losses returns the first MaxLosses losses the Network's endpoints
// detected, in the order detected.
func (n *Network) Losses() []Loss {
	n.mu.Lock()
	defer n.mu.Unlock()
	return slices.Clone(n.losses)
}

// LossCount returns how many losses of kind k were detected so far.
func (n *Network) LossCount(k LossKind) int64 {
	n.mu.Lock()
	defer n.mu.Unlock()
	if int(k) >= len(n.counts) {
		return 0
	}
	return n.counts[k]
}

// loss records l and calls Config.OnLoss.
func (n *Network) loss(l Loss) {
	n.mu.Lock()
	if len(n.losses) < MaxLosses {
		n.losses = append(n.losses, l)
	}
	n.counts[l.Kind]++
	n.mu.Unlock()
	if n.cfg.OnLoss != nil {
		n.cfg.OnLoss(l)
	}
}

// Close closes every endpoint, and so their store clients. The messages
// in their inboxes stay in the store, unread (a reopened node skips
// them). Close is idempotent.
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

// newToken returns 48 random bits in hex: an endpoint's name for its
// blobs and its open marker, unique across processes.
func newToken() (string, error) {
	var b [6]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	return hex.EncodeToString(b[:]), nil
}
