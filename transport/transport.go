package transport

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
)

// NodeID names a node of a job: a worker, whose ID is a barrier.WorkerID
// value in [0, MaxNode], or the Coordinator.
type NodeID int

// Coordinator is the NodeID of the coordinator (the parameter server that
// drives the sync-model core).
const Coordinator NodeID = -1

// MaxNode is the largest worker NodeID. The bound keeps IDs portable (they
// fit an int on every platform) and is no restriction in practice.
const MaxNode NodeID = 1<<31 - 1

// Valid reports whether id is the Coordinator or a worker ID in [0, MaxNode].
func (id NodeID) Valid() bool { return id >= Coordinator && id <= MaxNode }

func (id NodeID) String() string {
	if id == Coordinator {
		return "coordinator"
	}
	return fmt.Sprintf("worker %d", int(id))
}

// Endpoint is one node's attachment to a Transport. Its methods are safe for
// concurrent use.
type Endpoint interface {
	// ID returns the node this endpoint belongs to.
	ID() NodeID

	// Send sends m to the node m.To, from this endpoint's node: m.From is
	// ignored and the receiver sees From = ID(). m is encoded before Send
	// returns and is neither retained nor modified, so the caller may reuse
	// it at once; the receiver gets a deep copy.
	//
	// A nil error means the message was handed to the network, not that it
	// will arrive (see the package documentation, "Delivery"). A message to
	// a node that was opened before but is closed now is lost and counted
	// as dropped, as on a network whose peer went away. Send fails, sending
	// nothing, when m is not a valid message for the transport's layout
	// (errors wrapping ErrMalformed or algorithms.ErrLayout, see
	// Message.Validate), when its encoding is larger than the transport's
	// limit (ErrTooLarge), when m.To names a node that was never opened
	// (ErrUnknownNode), after Close (ErrClosed), and when ctx is done
	// before the message could be queued (ctx.Err(), unwrapped). Every
	// other error names the message's kind and destination.
	Send(ctx context.Context, m *Message) error

	// Recv returns the next message delivered to this node, blocking until
	// one arrives, ctx is done (ctx.Err(); a Recv with a context that is
	// already done receives nothing) or the endpoint or transport is closed
	// (ErrClosed). The message is the caller's.
	Recv(ctx context.Context) (*Message, error)

	// Close detaches the node: blocked and later Send and Recv calls return
	// ErrClosed and messages queued for it are dropped. The node's ID may
	// then be opened again (a worker that rejoins). Close is idempotent.
	Close() error
}

// Transport connects a coordinator and its workers. Its methods are safe
// for concurrent use.
type Transport interface {
	// Open attaches node id and returns its endpoint. Opening a node that
	// is open fails (naming it); opening it again after its endpoint was
	// closed succeeds with an empty queue. After Close, Open returns
	// ErrClosed.
	Open(id NodeID) (Endpoint, error)

	// Stats returns the message and byte counts of every node opened so
	// far, as seen by this transport.
	Stats() Stats

	// Close closes every endpoint (blocked calls return ErrClosed), drops
	// every message in flight and releases every resource: no goroutine of
	// the transport outlives Close. Close is idempotent.
	Close() error
}

// Errors. Every error a transport returns names the message kind and the
// node concerned, and wraps one of these (or algorithms.ErrLayout, or a
// context error) so that callers can match it with errors.Is.
var (
	// ErrMalformed reports a message that breaks the format's rules,
	// whether found when encoding (Message.AppendBinary, Message.Validate,
	// Endpoint.Send) or decoding (Unmarshal). The wrapping error names the
	// field, the byte offset or the entry at fault.
	ErrMalformed = errors.New("transport: malformed message")
	// ErrTooLarge reports a message whose encoding exceeds the transport's
	// size limit. Nothing was sent.
	ErrTooLarge = errors.New("transport: message too large")
	// ErrClosed reports a closed endpoint or transport.
	ErrClosed = errors.New("transport: closed")
	// ErrUnknownNode reports a destination that was never opened, or an
	// invalid NodeID.
	ErrUnknownNode = errors.New("transport: unknown node")
	// ErrAlreadyOpen reports an Open of a node whose endpoint is open.
	ErrAlreadyOpen = errors.New("transport: node already open")
)

// Counter counts messages and the bytes of their encodings (Message.Size).
type Counter struct {
	Messages int64
	Bytes    int64
}

// Add adds o to c.
func (c *Counter) Add(o Counter) {
	c.Messages += o.Messages
	c.Bytes += o.Bytes
}

// ByKind holds one Counter per message kind, indexed by Kind; index 0 (no
// kind) stays zero.
type ByKind [numKinds]Counter

// Total returns the sum over all kinds.
func (k ByKind) Total() Counter {
	var t Counter
	for _, c := range k {
		t.Add(c)
	}
	return t
}

// Add adds o to k, kind by kind.
func (k *ByKind) Add(o *ByKind) {
	for i := range k {
		k[i].Add(o[i])
	}
}

// NodeStats counts one node's traffic. Every message a Send accepted is, at
// every moment, received, dropped or in flight: summed over all nodes,
//
//	Sent + Duplicated = Received + Dropped + in flight,
//
// and nothing is in flight once the transport is closed.
type NodeStats struct {
	// Sent counts the messages this node's Send accepted (returned nil),
	// once each, whether the network then delivered, dropped or
	// duplicated them.
	Sent ByKind
	// Duplicated counts the extra copies the network made of messages this
	// node sent.
	Duplicated ByKind
	// Dropped counts copies of messages this node sent that the network
	// lost: dropped at random, addressed to a closed endpoint, still queued
	// when their receiver or the transport closed, or refused by a full
	// queue (duplicates only).
	Dropped ByKind
	// Received counts the messages this node's Recv returned.
	Received ByKind
}

// Add adds o to s, counter by counter.
func (s *NodeStats) Add(o *NodeStats) {
	s.Sent.Add(&o.Sent)
	s.Duplicated.Add(&o.Duplicated)
	s.Dropped.Add(&o.Dropped)
	s.Received.Add(&o.Received)
}

// Stats is a snapshot of a transport's counts, per node. Counts read while
// messages are moving may be mid-update relative to each other; once
// traffic is quiescent they are exact.
type Stats struct {
	Nodes map[NodeID]NodeStats
}

// Total returns the sum over all nodes.
func (s Stats) Total() NodeStats {
	var t NodeStats
	for _, n := range s.Nodes {
		t.Add(&n)
	}
	return t
}

// IDs returns the nodes in increasing order (the Coordinator first).
func (s Stats) IDs() []NodeID {
	return slices.Sorted(maps.Keys(s.Nodes))
}
