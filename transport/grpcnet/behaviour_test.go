package grpcnet_test

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"math"
	"net"
	"runtime"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/mem"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/grpc/test/bufconn"

	"github.com/syncmodels/syncmodels/algorithms"
	"github.com/syncmodels/syncmodels/transport"
	"github.com/syncmodels/syncmodels/transport/grpcnet"
)

// leakCheck fails the test if goroutines started during it are still
// running a few seconds after it ends.
func leakCheck(t *testing.T) {
	before := runtime.NumGoroutine()
	t.Cleanup(func() {
		deadline := time.Now().Add(3 * time.Second)
		for runtime.NumGoroutine() > before {
			if time.Now().After(deadline) {
				buf := make([]byte, 1<<20)
				t.Errorf("%d goroutines after the test, %d before:\n%s", runtime.NumGoroutine(), before, buf[:runtime.Stack(buf, true)])
				return
			}
			time.Sleep(5 * time.Millisecond)
		}
	})
}

func mustOpen(t *testing.T, tr transport.Transport, id transport.NodeID) transport.Endpoint {
	t.Helper()
	ep, err := tr.Open(id)
	if err != nil {
		t.Fatalf("Open(%v) = %v", id, err)
	}
	return ep
}

func ctxFor(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), d)
	t.Cleanup(cancel)
	return ctx
}

// TestLargeMessages: a release within 8 bytes of the default limit,
// 64 MiB, passes from a worker to another (relayed: the client's send
// limit, the server's receive and send limits and the client's receive
// limit all meet it), so gRPC's 4 MiB default does not bite; one param
// more (8 bytes) is over the limit and refused with ErrTooLarge, by the
// coordinator and by a worker, before anything is sent.
func TestLargeMessages(t *testing.T) {
	if testing.Short() {
		t.Skip("moves 128 MiB")
	}
	leakCheck(t)
	const limit = grpcnet.DefaultMaxMessage
	m := &transport.Message{Kind: transport.Release, To: 0, Params: make([]float64, limit/8)}
	for m.Size() > limit {
		m.Params = m.Params[:len(m.Params)-(m.Size()-limit+7)/8]
	}
	n := len(m.Params)
	for i := range m.Params {
		m.Params[i] = float64(i)
	}
	if m.Size() > limit || m.Size() <= limit-8 {
		t.Fatalf("test release of %d bytes is not within 8 bytes below the limit %d", m.Size(), limit)
	}
	l := algorithms.Layout{Params: n, Delta: 1}
	p := newPair(t, networks[0], grpcnet.Config{Layout: l})
	defer p.Close()
	c, w0, w1 := mustOpen(t, p, transport.Coordinator), mustOpen(t, p, 0), mustOpen(t, p, 1)

	check := func(ep transport.Endpoint, from transport.NodeID) {
		t.Helper()
		got, err := ep.Recv(ctxFor(t, 20*time.Second))
		if err != nil {
			t.Fatalf("%v: Recv of the %d-byte release = %v", ep.ID(), m.Size(), err)
		}
		if got.From != from || len(got.Params) != n {
			t.Fatalf("%v received %v; want the release from %v with %d params", ep.ID(), got, from, n)
		}
		for i, x := range got.Params {
			if x != float64(i) {
				t.Fatalf("%v received param %d = %v; want %v", ep.ID(), i, x, float64(i))
			}
		}
	}
	// Worker 0 to worker 1, relayed: every limit on the way meets it.
	m.To = 1
	if err := w0.Send(ctxFor(t, 20*time.Second), m); err != nil {
		t.Fatalf("worker 0: Send of %d bytes (limit %d) = %v", m.Size(), limit, err)
	}
	check(w1, 0)
	if err := c.Send(t.Context(), &transport.Message{Kind: transport.Heartbeat, To: 0, Seq: 1}); err != nil {
		t.Fatal(err)
	}
	if got, err := w0.Recv(ctxFor(t, 5*time.Second)); err != nil || got.Seq != 1 {
		t.Fatalf("worker 0 Recv = %v, %v; want the heartbeat", got, err)
	}

	big := &transport.Message{Kind: transport.Release, To: 1, Params: make([]float64, n+1)}
	pl := algorithms.Layout{Params: n + 1, Delta: 1}
	// The size limit on its own: a server and client of n+1 params.
	q := newPair(t, networks[0], grpcnet.Config{Layout: pl})
	defer q.Close()
	qc, qw := mustOpen(t, q, transport.Coordinator), mustOpen(t, q, 3)
	big.To = 3
	for _, ep := range []transport.Endpoint{qc, qw} {
		err := ep.Send(t.Context(), big)
		if !errors.Is(err, transport.ErrTooLarge) || !strings.Contains(err.Error(), fmt.Sprint(big.Size())) {
			t.Errorf("%v: Send of %d bytes (limit %d) = %v; want ErrTooLarge naming the size", ep.ID(), big.Size(), limit, err)
		}
	}
	if s := q.Stats().Total().Sent.Total(); s.Messages != 0 {
		t.Errorf("oversized messages counted as sent: %+v", s)
	}
}

func TestLayoutMismatch(t *testing.T) {
	leakCheck(t)
	srv, err := grpcnet.NewServer(grpcnet.Config{Layout: algorithms.Layout{Params: 4, Delta: 4}, Plaintext: true})
	if err != nil {
		t.Fatal(err)
	}
	lis := bufconn.Listen(1 << 16)
	served := make(chan error, 1)
	go func() { served <- srv.Serve(lis) }()
	cli, err := grpcnet.Dial("passthrough:///bufconn", grpcnet.Config{Layout: algorithms.Layout{Params: 4, Delta: 5}, Plaintext: true},
		grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) { return lis.DialContext(ctx) }))
	if err != nil {
		t.Fatal(err)
	}
	_, err = cli.Open(2)
	if !strings.Contains(fmt.Sprint(err), "FailedPrecondition") || !strings.Contains(fmt.Sprint(err), "4,5,0") || !strings.Contains(fmt.Sprint(err), "4,4,0") {
		t.Errorf("Open with another layout = %v; want FailedPrecondition naming both layouts", err)
	}
	// The ID is free again, and nothing was attached.
	if _, ok := srv.Stats().Nodes[2]; ok {
		t.Errorf("the refused worker appears in the server's Stats")
	}
	cli.Close()
	srv.Close()
	if err := <-served; err != nil {
		t.Errorf("Serve = %v; want nil after Close", err)
	}
}

func TestAttachTwice(t *testing.T) {
	leakCheck(t)
	l := algorithms.Layout{Params: 2, Delta: 2}
	p := newPair(t, networks[1], grpcnet.Config{Layout: l})
	defer p.Close()
	mustOpen(t, p, transport.Coordinator)
	mustOpen(t, p, 5)
	// Another process claiming worker 5: a second client.
	other, err := grpcnet.NewClient(p.clientConn(t), grpcnet.Config{Layout: l, Plaintext: true})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if _, err := other.Open(5); !errors.Is(err, transport.ErrAlreadyOpen) {
		t.Errorf("second client's Open(5) = %v; want ErrAlreadyOpen", err)
	}
	if _, err := other.Open(transport.Coordinator); !errors.Is(err, transport.ErrUnknownNode) {
		t.Errorf("client's Open(coordinator) = %v; want ErrUnknownNode", err)
	}
	if _, err := p.srv.Open(3); !errors.Is(err, transport.ErrUnknownNode) {
		t.Errorf("server's Open(worker 3) = %v; want ErrUnknownNode", err)
	}
}

// clientConn returns a new connection to p's server, closed when the test
// ends.
func (p *pair) clientConn(t *testing.T) *grpc.ClientConn {
	t.Helper()
	cc, err := grpc.NewClient(p.target, append(p.dial, grpc.WithTransportCredentials(insecure.NewCredentials()))...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cc.Close() })
	return cc
}

// TestServerCloseOnOwnGRPCServer: a Server registered on a grpc.Server the
// caller owns ends its workers' streams at Close (they see ErrClosed with
// the cause), while the grpc.Server keeps running.
func TestServerCloseOnOwnGRPCServer(t *testing.T) {
	leakCheck(t)
	l := algorithms.Layout{Params: 2, Delta: 2}
	srv, err := grpcnet.NewServer(grpcnet.Config{Layout: l, Plaintext: true})
	if err != nil {
		t.Fatal(err)
	}
	gs := grpc.NewServer(srv.ServerOptions()...)
	srv.Register(gs)
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- gs.Serve(lis) }()
	defer func() { gs.Stop(); <-served }()
	cli, err := grpcnet.Dial(lis.Addr().String(), grpcnet.Config{Layout: l, Plaintext: true})
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	c := mustOpen(t, srv, transport.Coordinator)
	w := mustOpen(t, cli, 1)
	if err := w.Send(t.Context(), &transport.Message{Kind: transport.Join, To: transport.Coordinator, Incarnation: 1}); err != nil {
		t.Fatal(err)
	}
	if m, err := c.Recv(ctxFor(t, 5*time.Second)); err != nil || m.Kind != transport.Join || m.From != 1 {
		t.Fatalf("coordinator Recv = %v, %v; want the join of worker 1", m, err)
	}
	if err := srv.Close(); err != nil {
		t.Fatal(err)
	}
	_, err = w.Recv(ctxFor(t, 5*time.Second))
	if !errors.Is(err, transport.ErrClosed) || !strings.Contains(err.Error(), "coordinator closed") {
		t.Errorf("worker Recv after the server's Close = %v; want ErrClosed saying the coordinator closed", err)
	}
	if err := w.Send(t.Context(), &transport.Message{Kind: transport.Heartbeat, To: transport.Coordinator}); !errors.Is(err, transport.ErrClosed) {
		t.Errorf("worker Send after the server's Close = %v; want ErrClosed", err)
	}
	if _, err := cli.Open(1); err == nil || errors.Is(err, transport.ErrAlreadyOpen) {
		t.Errorf("reopen after the server's Close = %v; want the service's refusal (the worker's ID itself is free)", err)
	}
}

// TestSendHonoursContext: when the coordinator does not read, its inbox,
// then gRPC's flow-control windows fill, and a worker's Send returns its
// context's error instead of blocking; Close still returns promptly.
func TestSendHonoursContext(t *testing.T) {
	leakCheck(t)
	l := algorithms.Layout{Params: 1 << 17, Delta: 1} // 1 MiB releases
	p := newPair(t, networks[1], grpcnet.Config{Layout: l, Inbox: 1})
	defer p.Close()
	mustOpen(t, p, transport.Coordinator)
	w := mustOpen(t, p, 0)
	m := &transport.Message{Kind: transport.Release, To: transport.Coordinator, Params: make([]float64, l.Params)}
	for i := range 200 {
		ctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
		err := w.Send(ctx, m)
		cancel()
		if errors.Is(err, context.DeadlineExceeded) {
			t.Logf("Send %d blocked until its deadline", i)
			return
		}
		if err != nil {
			t.Fatalf("Send %d = %v", i, err)
		}
	}
	t.Fatalf("200 MiB sent to a coordinator that does not read, and no Send blocked")
}

// rawCodec sends *[]byte as they are, under the transport's
// content-subtype: what a hostile or broken client can put on a stream.
type rawCodec struct{}

func (rawCodec) Name() string { return "syncmodels-frame" }
func (rawCodec) Marshal(v any) (mem.BufferSlice, error) {
	return mem.BufferSlice{mem.SliceBuffer(*v.(*[]byte))}, nil
}
func (rawCodec) Unmarshal(d mem.BufferSlice, v any) error {
	*v.(*[]byte) = d.Materialize()
	return nil
}

// TestMalformedFrames: frames that do not decode, or that name another
// sender, end their stream with InvalidArgument, are counted, and deliver
// nothing; the coordinator goes on serving other workers.
func TestMalformedFrames(t *testing.T) {
	leakCheck(t)
	l := algorithms.Layout{Params: 2, Delta: 2}
	p := newPair(t, networks[0], grpcnet.Config{Layout: l})
	defer p.Close()
	c := mustOpen(t, p, transport.Coordinator)
	cc := p.clientConn(t)
	spoofed, _ := (&transport.Message{Kind: transport.Commit, From: 4, To: transport.Coordinator}).AppendBinary(nil)
	for i, b := range [][]byte{{}, {0xff, 0xff, 0xff}, {transport.FormatVersion, 99}, spoofed} {
		ctx := metadata.AppendToOutgoingContext(ctxFor(t, 5*time.Second), "syncmodels-node", "7", "syncmodels-layout", "2,2,0")
		s, err := cc.NewStream(ctx, &grpc.StreamDesc{ServerStreams: true, ClientStreams: true},
			"/syncmodels.transport.v1.Transport/Stream", grpc.ForceCodecV2(rawCodec{}))
		if err != nil {
			t.Fatal(err)
		}
		if err := s.SendMsg(&b); err != nil {
			t.Fatalf("frame %d: SendMsg = %v", i, err)
		}
		var reply []byte
		if err := s.RecvMsg(&reply); status.Code(err) != codes.InvalidArgument {
			t.Errorf("frame %d (%x): stream ended with %v; want InvalidArgument", i, b, err)
		}
		if got := p.srv.Malformed(); got != int64(i+1) {
			t.Errorf("after frame %d: Malformed() = %d; want %d", i, got, i+1)
		}
	}
	w := mustOpen(t, p, 7)
	if err := w.Send(t.Context(), &transport.Message{Kind: transport.Join, To: transport.Coordinator, Seq: 1}); err != nil {
		t.Fatal(err)
	}
	if m, err := c.Recv(ctxFor(t, 5*time.Second)); err != nil || m.From != 7 || m.Seq != 1 {
		t.Errorf("coordinator Recv = %v, %v; want only the valid join of worker 7", m, err)
	}
}

func TestConfig(t *testing.T) {
	pt := func(c grpcnet.Config) grpcnet.Config { c.Plaintext = true; return c }
	for _, c := range []struct {
		name string
		cfg  grpcnet.Config
		want string // in the error
	}{
		{"negative params", pt(grpcnet.Config{Layout: algorithms.Layout{Params: -1}}), "layout"},
		{"negative MaxMessage", pt(grpcnet.Config{MaxMessage: -1}), "MaxMessage"},
		{"MaxMessage over 2^31-1", pt(grpcnet.Config{MaxMessage: 1 << 31}), "MaxMessage"},
		{"negative Inbox", pt(grpcnet.Config{Inbox: -1}), "Inbox"},
		{"PingInterval below 10s", pt(grpcnet.Config{PingInterval: time.Second}), "PingInterval"},
		{"negative CloseTimeout", pt(grpcnet.Config{CloseTimeout: -1}), "CloseTimeout"},
		{"negative OpenRate", pt(grpcnet.Config{OpenRate: -1}), "OpenRate"},
		{"NaN OpenRate", pt(grpcnet.Config{OpenRate: math.NaN()}), "OpenRate"},
		{"negative OpenBurst", pt(grpcnet.Config{OpenBurst: -1}), "OpenBurst"},
		{"neither TLS nor Plaintext", grpcnet.Config{}, "no TLS"},
		{"TLS and Plaintext", pt(grpcnet.Config{TLS: &tls.Config{}}), "both"},
		{"short token", pt(grpcnet.Config{Token: "job.short"}), "Token"},
		{"token with a space", pt(grpcnet.Config{Token: "job.0123456789 abcdef"}), "Token"},
	} {
		if _, err := grpcnet.NewServer(c.cfg); !errors.Is(err, grpcnet.ErrConfig) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("NewServer(%s) = %v; want ErrConfig naming %s", c.name, err, c.want)
		}
		if _, err := grpcnet.Dial("localhost:1", c.cfg); !errors.Is(err, grpcnet.ErrConfig) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Dial(%s) = %v; want ErrConfig naming %s", c.name, err, c.want)
		}
	}
	if _, err := grpcnet.NewServer(grpcnet.Config{TLS: &tls.Config{}}); !errors.Is(err, grpcnet.ErrConfig) {
		t.Errorf("NewServer with a TLS configuration without certificate = %v; want ErrConfig", err)
	}
}
