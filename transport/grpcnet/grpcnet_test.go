package grpcnet_test

import (
	"context"
	"errors"
	"net"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/test/bufconn"

	"github.com/syncmodels/syncmodels/transport"
	"github.com/syncmodels/syncmodels/transport/grpcnet"
	"github.com/syncmodels/syncmodels/transport/transporttest"
)

// pair is one Transport made of a Server serving on a listener and a
// Client dialling it: Open(Coordinator) opens the server's endpoint, Open
// of a worker attaches it through the client; Stats merges both sides.
type pair struct {
	srv    *grpcnet.Server
	cli    *grpcnet.Client
	served chan error
	target string            // the server's address
	dial   []grpc.DialOption // how to reach it
}

// network is how a pair's listener is made: bufconn or TCP loopback.
type network struct {
	name   string
	listen func(t testing.TB) (net.Listener, string, []grpc.DialOption)
}

var networks = []network{
	{"bufconn", func(t testing.TB) (net.Listener, string, []grpc.DialOption) {
		lis := bufconn.Listen(1 << 20)
		dial := grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) { return lis.DialContext(ctx) })
		return lis, "passthrough:///bufconn", []grpc.DialOption{dial}
	}},
	{"tcp", func(t testing.TB) (net.Listener, string, []grpc.DialOption) {
		lis, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatalf("listen on loopback: %v", err)
		}
		return lis, lis.Addr().String(), nil
	}},
}

// newPair returns a Plaintext pair for cfg (the conformance suite runs
// over TLS too: TestConformanceSecure).
func newPair(t testing.TB, nw network, cfg grpcnet.Config) *pair {
	t.Helper()
	cfg.Plaintext = true
	return newSecurePair(t, nw, cfg, cfg)
}

// newSecurePair returns a pair whose server has configuration scfg and
// whose client ccfg.
func newSecurePair(t testing.TB, nw network, scfg, ccfg grpcnet.Config) *pair {
	t.Helper()
	srv, err := grpcnet.NewServer(scfg)
	if err != nil {
		t.Fatalf("NewServer(%+v) = %v", scfg, err)
	}
	lis, target, opts := nw.listen(t)
	p := &pair{srv: srv, served: make(chan error, 1), target: target, dial: opts}
	go func() { p.served <- srv.Serve(lis) }()
	if p.cli, err = grpcnet.Dial(target, ccfg, opts...); err != nil {
		srv.Close()
		<-p.served
		t.Fatalf("Dial(%s) = %v", target, err)
	}
	return p
}

func (p *pair) Open(id transport.NodeID) (transport.Endpoint, error) {
	if id == transport.Coordinator {
		return p.srv.Open(id)
	}
	return p.cli.Open(id)
}

func (p *pair) Stats() transport.Stats {
	s := p.srv.Stats()
	for id, n := range p.cli.Stats().Nodes {
		m := s.Nodes[id]
		m.Add(&n)
		s.Nodes[id] = m
	}
	return s
}

func (p *pair) Close() error {
	err := errors.Join(p.cli.Close(), p.srv.Close())
	if p.served != nil {
		err = errors.Join(err, <-p.served)
		p.served = nil
	}
	return err
}

func TestConformance(t *testing.T) {
	for _, nw := range networks {
		t.Run(nw.name, func(t *testing.T) {
			transporttest.Run(t, func(t *testing.T, o transporttest.Options) transport.Transport {
				return newPair(t, nw, grpcnet.Config{Layout: o.Layout, MaxMessage: o.MaxMessage})
			})
		})
	}
}
