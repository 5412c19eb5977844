package harness

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/syncmodels/syncmodels/algorithms"
	"github.com/syncmodels/syncmodels/transport"
	"github.com/syncmodels/syncmodels/transport/inproc"
)

// BlackholeNet (tests only) wraps an in-process network: while a worker's hole is
// open, everything it sends and everything sent to it is lost, as on a
// partitioned link.
type BlackholeNet struct {
	transport.Transport
	mu   sync.Mutex
	eps  map[transport.NodeID]*holeEndpoint
	lost atomic.Int64
}

func NewBlackholeNet(l algorithms.Layout) (*BlackholeNet, error) {
	tr, err := inproc.New(inproc.Config{Layout: l, Seed: 1, Delay: time.Millisecond})
	return &BlackholeNet{Transport: tr, eps: map[transport.NodeID]*holeEndpoint{}}, err
}

func (n *BlackholeNet) Open(id transport.NodeID) (transport.Endpoint, error) {
	ep, err := n.Transport.Open(id)
	if err != nil {
		return nil, err
	}
	h := &holeEndpoint{Endpoint: ep, net: n}
	n.mu.Lock()
	n.eps[id] = h
	n.mu.Unlock()
	return h, nil
}

// Hole opens or closes worker w's blackhole.
func (n *BlackholeNet) Hole(w transport.NodeID, open bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.eps[w].open.Store(open)
}

// HoleAtCommit opens worker w's blackhole when it next sends a commit,
// which is lost: the worker has a commit in flight when it comes back.
func (n *BlackholeNet) HoleAtCommit(w transport.NodeID) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.eps[w].atCommit.Store(true)
}

type holeEndpoint struct {
	transport.Endpoint
	net            *BlackholeNet
	open, atCommit atomic.Bool
}

func (e *holeEndpoint) Send(ctx context.Context, m *transport.Message) error {
	if m.Kind == transport.Commit && e.atCommit.CompareAndSwap(true, false) {
		e.open.Store(true)
	}
	if e.open.Load() {
		e.net.lost.Add(1)
		return nil
	}
	return e.Endpoint.Send(ctx, m)
}

func (e *holeEndpoint) Recv(ctx context.Context) (*transport.Message, error) {
	for {
		m, err := e.Endpoint.Recv(ctx)
		if err != nil || !e.open.Load() {
			return m, err
		}
		e.net.lost.Add(1)
	}
}
