package grpcnet

import (
	"fmt"
	"strconv"

	"github.com/syncmodels/syncmodels/algorithms"
	"github.com/syncmodels/syncmodels/transport"
)

// anyNode, as decodeFrame's from or to, checks nothing.
const anyNode transport.NodeID = -2

// encode validates m for cfg's layout and size limit and returns a copy
// with From set to self, and its encoding: what Send puts on the wire.
func encode(cfg *Config, self transport.NodeID, m *transport.Message) (transport.Message, []byte, error) {
	mm := *m
	mm.From = self
	if err := mm.Validate(cfg.Layout); err != nil {
		return mm, nil, fmt.Errorf("grpcnet: %v: send: %w", self, err)
	}
	if limit := cfg.MaxMessage; mm.MaxSize() > limit {
		if size := mm.Size(); size > limit {
			return mm, nil, fmt.Errorf("grpcnet: %v: send %v to %v: %d bytes exceed the limit of %d: %w", self, mm.Kind, mm.To, size, limit, transport.ErrTooLarge)
		}
	}
	b, err := mm.AppendBinary(nil)
	if err != nil {
		return mm, nil, fmt.Errorf("grpcnet: %v: send: %w", self, err) // unreachable after Validate
	}
	return mm, b, nil
}

// decodeFrame decodes a frame received from the network: at most max
// bytes, one message of layout l (transport.Unmarshal checks every byte),
// from node from and to node to (anyNode: either unchecked). Errors wrap
// transport.ErrMalformed (or transport.ErrTooLarge, or
// algorithms.ErrLayout) and name what is wrong. It never panics.
func decodeFrame(b []byte, l algorithms.Layout, max int, from, to transport.NodeID) (*transport.Message, error) {
	if len(b) > max {
		return nil, fmt.Errorf("grpcnet: frame of %d bytes exceeds the limit of %d: %w", len(b), max, transport.ErrTooLarge)
	}
	m, err := transport.Unmarshal(b, l)
	if err != nil {
		return nil, fmt.Errorf("grpcnet: frame: %w", err)
	}
	if from != anyNode && m.From != from {
		return nil, fmt.Errorf("grpcnet: frame: %v message from %v on the stream of %v: %w", m.Kind, m.From, from, transport.ErrMalformed)
	}
	if to != anyNode && m.To != to {
		return nil, fmt.Errorf("grpcnet: frame: %v message to %v on the stream of %v: %w", m.Kind, m.To, to, transport.ErrMalformed)
	}
	return m, nil
}

// parseNode parses a worker ID in [0, transport.MaxNode], in canonical
// decimal.
func parseNode(v string) (transport.NodeID, error) {
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 || n > int64(transport.MaxNode) {
		return 0, fmt.Errorf("grpcnet: %q is not a worker ID in [0, %d]", v, int(transport.MaxNode))
	}
	return transport.NodeID(n), nil
}

// layoutString is a layout as the stream's metadata carries it.
func layoutString(l algorithms.Layout) string {
	return fmt.Sprintf("%d,%d,%d", l.Params, l.Delta, l.Block)
}
