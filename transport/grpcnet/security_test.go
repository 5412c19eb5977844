package grpcnet_test

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/syncmodels/syncmodels/algorithms"
	"github.com/syncmodels/syncmodels/transport"
	"github.com/syncmodels/syncmodels/transport/grpcnet"
	"github.com/syncmodels/syncmodels/transport/grpcnet/jobtls"
	"github.com/syncmodels/syncmodels/transport/transporttest"
)

// job is a job's credentials, made in memory.
type job struct {
	name   string
	ca     *jobtls.CA
	token  string
	server tls.Certificate
}

func newJob(t testing.TB, name string) *job {
	t.Helper()
	ca, err := jobtls.NewCA(name)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := ca.IssueServer("127.0.0.1", "localhost")
	if err != nil {
		t.Fatal(err)
	}
	tok, err := jobtls.NewToken(name)
	if err != nil {
		t.Fatal(err)
	}
	return &job{name: name, ca: ca, token: tok, server: srv}
}

// serverConfig is the coordinator's configuration: mutual TLS with the job
// CA and the job's token.
func (j *job) serverConfig(l algorithms.Layout) grpcnet.Config {
	return grpcnet.Config{Layout: l, TLS: jobtls.ServerTLS(j.server, j.ca.Pool()), Token: j.token}
}

// workerConfig is the configuration of a client whose certificate names
// workers ids.
func (j *job) workerConfig(t testing.TB, l algorithms.Layout, ids ...transport.NodeID) grpcnet.Config {
	t.Helper()
	cert, err := j.ca.IssueWorker(ids...)
	if err != nil {
		t.Fatal(err)
	}
	return grpcnet.Config{Layout: l, TLS: jobtls.ClientTLS(cert, j.ca.Pool(), ""), Token: j.token}
}

// serve runs a server for cfg on TCP loopback until the test ends and
// returns it, its address and the coordinator's endpoint.
func serve(t *testing.T, cfg grpcnet.Config) (*grpcnet.Server, string, transport.Endpoint) {
	t.Helper()
	srv, err := grpcnet.NewServer(cfg)
	if err != nil {
		t.Fatalf("NewServer = %v", err)
	}
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(lis) }()
	t.Cleanup(func() {
		srv.Close()
		if err := <-served; err != nil {
			t.Errorf("Serve = %v", err)
		}
	})
	return srv, lis.Addr().String(), mustOpen(t, srv, transport.Coordinator)
}

// attempt opens a bare stream for worker id to the server at addr with
// cfg's credentials (its transport credentials, and its token unless
// empty), sends one valid join from id, and returns how the stream ended:
// what a client that does not wait for the coordinator's acceptance gets.
func attempt(t *testing.T, addr string, cfg grpcnet.Config, id transport.NodeID) error {
	t.Helper()
	cc := bareConn(t, addr, cfg)
	defer cc.Close()
	md := metadata.Pairs("syncmodels-node", strconv.Itoa(int(id)), "syncmodels-layout", layoutMD(cfg.Layout))
	if cfg.Token != "" {
		md.Append("authorization", "Bearer "+cfg.Token)
	}
	ctx := metadata.NewOutgoingContext(ctxFor(t, 5*time.Second), md)
	s, err := cc.NewStream(ctx, &grpc.StreamDesc{ServerStreams: true, ClientStreams: true},
		"/syncmodels.transport.v1.Transport/Stream", grpc.ForceCodecV2(rawCodec{}))
	if err != nil {
		return err
	}
	join, _ := (&transport.Message{Kind: transport.Join, From: id, To: transport.Coordinator, Incarnation: 1}).AppendBinary(nil)
	if err := s.SendMsg(&join); err != nil && err != io.EOF {
		return err
	}
	var reply []byte
	err = s.RecvMsg(&reply)
	if err == nil {
		t.Errorf("worker %v's stream: a frame %x came back", id, reply)
	}
	return err
}

// bareConn is a connection to addr with cfg's transport credentials (and
// no token: calls add it to their metadata).
func bareConn(t *testing.T, addr string, cfg grpcnet.Config) *grpc.ClientConn {
	t.Helper()
	opts, err := cfg.DialOptions()
	if err != nil {
		t.Fatal(err)
	}
	cc, err := grpc.NewClient(addr, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return cc
}

func layoutMD(l algorithms.Layout) string {
	b, _ := json.Marshal([]int{l.Params, l.Delta, l.Block})
	return strings.Trim(string(b), "[]")
}

// expectNothing checks that the coordinator has received nothing.
func expectNothing(t *testing.T, srv *grpcnet.Server, coord transport.Endpoint) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
	defer cancel()
	if m, err := coord.Recv(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("coordinator Recv = %v, %v; want nothing delivered", m, err)
	}
	if n := srv.Stats().Total().Received.Total().Messages; n != 0 {
		t.Errorf("coordinator received %d messages; want 0", n)
	}
}

// eventually waits until cond holds (the server counts a failed handshake
// in its own goroutine, after the client has seen it fail).
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); !cond(); {
		if time.Now().After(deadline) {
			t.Errorf("%s: not within 5 s", what)
			return
		}
		time.Sleep(time.Millisecond)
	}
}

// TestConformanceSecure: the conformance suite over mutual TLS 1.3 and
// the job's token on TCP loopback, one client certificate naming the
// workers the suite opens (0 to 7).
func TestConformanceSecure(t *testing.T) {
	j := newJob(t, "conformance")
	transporttest.Run(t, func(t *testing.T, o transporttest.Options) transport.Transport {
		scfg := j.serverConfig(o.Layout)
		ccfg := j.workerConfig(t, o.Layout, 0, 1, 2, 3, 4, 5, 6, 7)
		scfg.MaxMessage, ccfg.MaxMessage = o.MaxMessage, o.MaxMessage
		return newSecurePair(t, networks[1], scfg, ccfg)
	})
}

// TestRefused: streams without the job's credentials are refused with
// the right code and counted by reason, and the valid join each sent is
// not delivered; a worker with them then attaches, and its join is the
// coordinator's first message.
func TestRefused(t *testing.T) {
	leakCheck(t)
	l := algorithms.Layout{Params: 2, Delta: 2}
	j, other := newJob(t, "job-a"), newJob(t, "job-b")
	srv, addr, coord := serve(t, j.serverConfig(l))

	w3 := j.workerConfig(t, l, 3)
	with := func(c grpcnet.Config, f func(*grpcnet.Config)) grpcnet.Config { f(&c); return c }
	otherSecret, err := jobtls.NewToken("job-a")
	if err != nil {
		t.Fatal(err)
	}
	wrongJobCA := *j.ca // the job's CA, naming another job in what it signs
	wrongJobCA.Job = "job-b"
	wrongJobCert, err := wrongJobCA.IssueWorker(5)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name   string
		cfg    grpcnet.Config
		id     transport.NodeID
		code   codes.Code
		reason func(grpcnet.Rejections) int64
	}{
		{"no token", with(w3, func(c *grpcnet.Config) { c.Token = "" }), 3, codes.Unauthenticated,
			func(r grpcnet.Rejections) int64 { return r.NoToken }},
		{"wrong token", with(w3, func(c *grpcnet.Config) { c.Token = otherSecret }), 3, codes.Unauthenticated,
			func(r grpcnet.Rejections) int64 { return r.BadToken }},
		{"token that is no job's", with(w3, func(c *grpcnet.Config) { c.Token = strings.Repeat("x", 51) }), 3, codes.Unauthenticated,
			func(r grpcnet.Rejections) int64 { return r.BadToken }},
		{"token of another job", with(w3, func(c *grpcnet.Config) { c.Token = other.token }), 3, codes.Unauthenticated,
			func(r grpcnet.Rejections) int64 { return r.WrongJob }},
		{"certificate of worker 3 on worker 5's stream", w3, 5, codes.PermissionDenied,
			func(r grpcnet.Rejections) int64 { return r.Identity }},
		{"certificate of the job's CA naming another job", with(w3, func(c *grpcnet.Config) {
			c.TLS = jobtls.ClientTLS(wrongJobCert, j.ca.Pool(), "")
		}), 5, codes.PermissionDenied, func(r grpcnet.Rejections) int64 { return r.WrongJob }},
		{"no client certificate", with(w3, func(c *grpcnet.Config) { c.TLS = &tls.Config{RootCAs: j.ca.Pool()} }), 3, codes.Unavailable,
			func(r grpcnet.Rejections) int64 { return r.Handshake }},
		{"client certificate of another job's CA", with(w3, func(c *grpcnet.Config) {
			c.TLS = other.workerConfig(t, l, 3).TLS
			c.TLS.RootCAs = j.ca.Pool()
		}), 3, codes.Unavailable, func(r grpcnet.Rejections) int64 { return r.Handshake }},
		{"plaintext client", with(w3, func(c *grpcnet.Config) { c.TLS, c.Plaintext, c.Token = nil, true, "" }), 3, codes.Unavailable,
			func(r grpcnet.Rejections) int64 { return r.Handshake }},
	} {
		before := srv.Rejected()
		err := attempt(t, addr, c.cfg, c.id)
		if status.Code(err) != c.code {
			t.Errorf("%s: stream ended with %v; want %v", c.name, err, c.code)
		}
		if strings.Contains(err.Error(), j.token) || strings.Contains(err.Error(), other.token) {
			t.Errorf("%s: the error %q shows a token", c.name, err)
		}
		// A refused handshake is counted by the server's goroutine, maybe
		// after the client has seen it, and maybe more than once: the
		// client may reconnect meanwhile. Other refusals are counted
		// before the client sees them, once.
		hs := status.Code(err) == codes.Unavailable
		eventually(t, c.name+": counted", func() bool {
			after := srv.Rejected()
			if hs {
				return c.reason(after) > c.reason(before) && after.Total()-after.Handshake == before.Total()-before.Handshake
			}
			return c.reason(after) == c.reason(before)+1 && after.Total()-after.Handshake == before.Total()-before.Handshake+1
		})
		// The same through the API: Open fails, with the same code.
		cli, err := grpcnet.Dial(addr, c.cfg)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := cli.Open(c.id); status.Code(err) != c.code {
			t.Errorf("%s: Client.Open(%v) = %v; want %v", c.name, c.id, err, c.code)
		}
		cli.Close()
	}
	expectNothing(t, srv, coord)
	if r := srv.Rejected(); r.Total()-r.Handshake != 12 || r.Handshake < 6 {
		t.Errorf("Rejected() = %+v; want 12 refusals of streams (6 cases, twice) and at least 6 handshakes (3 cases, twice)", r)
	}

	cli, err := grpcnet.Dial(addr, j.workerConfig(t, l, 5))
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	w := mustOpen(t, cli, 5)
	if err := w.Send(t.Context(), &transport.Message{Kind: transport.Join, To: transport.Coordinator, Incarnation: 2}); err != nil {
		t.Fatal(err)
	}
	if m, err := coord.Recv(ctxFor(t, 5*time.Second)); err != nil || m.From != 5 || m.Incarnation != 2 {
		t.Errorf("coordinator Recv = %v, %v; want worker 5's join of incarnation 2, the first message", m, err)
	}
}

// TestPlaintextLoopbackOnly: plaintext is an explicit choice (no
// configuration means no server), is refused off loopback at Serve, at the
// server's handshake and at the client's, and a TLS server registered on
// a grpc.Server without its credentials refuses plaintext streams.
func TestPlaintextLoopbackOnly(t *testing.T) {
	leakCheck(t)
	l := algorithms.Layout{Params: 1, Delta: 1}
	pt := grpcnet.Config{Layout: l, Plaintext: true}
	srv, err := grpcnet.NewServer(pt)
	if err != nil {
		t.Fatal(err)
	}
	lis, err := net.Listen("tcp", ":0")
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Serve(lis); !errors.Is(err, grpcnet.ErrConfig) || !strings.Contains(err.Error(), "loopback") {
		t.Errorf("plaintext Serve on %v = %v; want ErrConfig naming loopback", lis.Addr(), err)
	}
	srv.Close()

	ip := nonLoopbackIP(t)
	// A plaintext server on every interface (its own grpc.Server, so
	// Serve's check does not apply): streams over loopback are served,
	// connections to the outside address are refused at the handshake.
	srv, err = grpcnet.NewServer(pt)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	gs := grpc.NewServer(srv.ServerOptions()...)
	srv.Register(gs)
	lis, err = net.Listen("tcp", ":0")
	if err != nil {
		t.Fatal(err)
	}
	go gs.Serve(lis)
	defer gs.Stop()
	port := lis.Addr().(*net.TCPAddr).Port
	coord := mustOpen(t, srv, transport.Coordinator)
	if err := attempt(t, net.JoinHostPort(ip.String(), strconv.Itoa(port)), grpcnet.Config{Layout: l, Plaintext: true}, 1); status.Code(err) != codes.Unavailable || !strings.Contains(err.Error(), "not over loopback") {
		t.Errorf("plaintext stream to %v = %v; want Unavailable, not over loopback", ip, err)
	}
	// The server saw the connection too, and refused it as well.
	eventually(t, "server refusal counted", func() bool { return srv.Rejected().Plaintext >= 1 })
	seen := srv.Rejected().Plaintext
	// A client that does not check (bare insecure credentials): the
	// server refuses it at the handshake.
	cc, err := grpc.NewClient(net.JoinHostPort(ip.String(), strconv.Itoa(port)), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	ctx := metadata.AppendToOutgoingContext(ctxFor(t, 5*time.Second), "syncmodels-node", "1", "syncmodels-layout", layoutMD(l))
	if s, err := cc.NewStream(ctx, &grpc.StreamDesc{ServerStreams: true, ClientStreams: true}, "/syncmodels.transport.v1.Transport/Stream", grpc.ForceCodecV2(rawCodec{})); err == nil {
		var b []byte
		err = s.RecvMsg(&b)
		if status.Code(err) != codes.Unavailable {
			t.Errorf("bare plaintext stream to %v = %v; want Unavailable", ip, err)
		}
	}
	cc.Close()
	eventually(t, "server refusal counted", func() bool { return srv.Rejected().Plaintext > seen })
	expectNothing(t, srv, coord)
	cli, err := grpcnet.Dial(net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), pt)
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	w := mustOpen(t, cli, 1)
	if err := w.Send(t.Context(), &transport.Message{Kind: transport.Join, To: transport.Coordinator}); err != nil {
		t.Fatal(err)
	}
	if m, err := coord.Recv(ctxFor(t, 5*time.Second)); err != nil || m.From != 1 {
		t.Errorf("coordinator Recv = %v, %v; want the join of worker 1 over loopback", m, err)
	}

	// TLS configured, but registered on a grpc.Server without
	// ServerOptions: the service itself refuses plaintext streams.
	j := newJob(t, "job-a")
	tsrv, err := grpcnet.NewServer(j.serverConfig(l))
	if err != nil {
		t.Fatal(err)
	}
	defer tsrv.Close()
	bare := grpc.NewServer()
	tsrv.Register(bare)
	blis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go bare.Serve(blis)
	defer bare.Stop()
	tc := mustOpen(t, tsrv, transport.Coordinator)
	if err := attempt(t, blis.Addr().String(), grpcnet.Config{Layout: l, Plaintext: true, Token: j.token}, 2); status.Code(err) != codes.Unauthenticated || !strings.Contains(err.Error(), "TLS required") {
		t.Errorf("plaintext stream with the job's token to a TLS server on a bare grpc.Server = %v; want Unauthenticated, TLS required", err)
	}
	if r := tsrv.Rejected(); r.Plaintext != 1 {
		t.Errorf("Rejected().Plaintext = %d; want 1", r.Plaintext)
	}
	expectNothing(t, tsrv, tc)
}

// nonLoopbackIP returns an IPv4 address of this host that is not
// loopback, or skips the test.
func nonLoopbackIP(t *testing.T) net.IP {
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		t.Skipf("no interface addresses: %v", err)
	}
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && !n.IP.IsLoopback() && n.IP.To4() != nil {
			return n.IP
		}
	}
	t.Skip("this host has no non-loopback IPv4 address")
	return nil
}

// panicking is a slog.Handler that panics on the middleware's records of
// worker 13's stream, and keeps the others.
type panicking struct {
	mu   sync.Mutex
	recs []slog.Record
}

func (h *panicking) Enabled(context.Context, slog.Level) bool { return true }
func (h *panicking) WithAttrs([]slog.Attr) slog.Handler       { return h }
func (h *panicking) WithGroup(string) slog.Handler            { return h }
func (h *panicking) Handle(_ context.Context, r slog.Record) error {
	node := ""
	r.Attrs(func(a slog.Attr) bool {
		if a.Key == "syncmodels.node" {
			node = a.Value.String()
		}
		return true
	})
	if node == "13" && (r.Message == "started call" || r.Message == "finished call") {
		panic("logger fails on worker 13: " + r.Message)
	}
	h.mu.Lock()
	h.recs = append(h.recs, r.Clone())
	h.mu.Unlock()
	return nil
}

func (h *panicking) find(msg string) (slog.Record, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, r := range h.recs {
		if r.Message == msg {
			return r, true
		}
	}
	return slog.Record{}, false
}

// TestPanicRecovered: a panic while serving a stream (here in the logger
// the coordinator was given: in the reader goroutine when the first frame
// arrives, then in the interceptor chain when the stream ends) ends that
// stream with a plain Internal and a generic message, delivers nothing,
// is counted and logged with its stack; the server goes on serving.
func TestPanicRecovered(t *testing.T) {
	leakCheck(t)
	l := algorithms.Layout{Params: 2, Delta: 2}
	h := &panicking{}
	srv, addr, coord := serve(t, grpcnet.Config{Layout: l, Plaintext: true, Logger: slog.New(h)})
	err := attempt(t, addr, grpcnet.Config{Layout: l, Plaintext: true}, 13)
	if st, _ := status.FromError(err); st.Code() != codes.Internal || st.Message() != "grpcnet: internal error" {
		t.Errorf("worker 13's stream ended with %v; want Internal \"grpcnet: internal error\"", err)
	}
	if r := srv.Rejected(); r.Panics != 2 {
		t.Errorf("Rejected().Panics = %d; want 2 (the reader's, then the chain's)", r.Panics)
	}
	expectNothing(t, srv, coord)
	rec, ok := h.find("grpcnet: recovered from a panic")
	if !ok {
		t.Fatalf("no record of the recovered panic")
	}
	rec.Attrs(func(a slog.Attr) bool {
		if a.Key == "stack" && !strings.Contains(a.Value.String(), "grpcnet") {
			t.Errorf("the panic's record has stack %q; want the goroutine's stack", a.Value.String())
		}
		if a.Key == "panic" && !strings.Contains(a.Value.String(), "logger fails on worker 13") {
			t.Errorf("the panic's record has panic %q", a.Value.String())
		}
		return true
	})

	// The server keeps serving.
	cli, err := grpcnet.Dial(addr, grpcnet.Config{Layout: l, Plaintext: true})
	if err != nil {
		t.Fatal(err)
	}
	w := mustOpen(t, cli, 14)
	if err := w.Send(t.Context(), &transport.Message{Kind: transport.Join, To: transport.Coordinator, Seq: 1}); err != nil {
		t.Fatal(err)
	}
	if m, err := coord.Recv(ctxFor(t, 5*time.Second)); err != nil || m.From != 14 {
		t.Errorf("coordinator Recv = %v, %v; want worker 14's join", m, err)
	}
	cli.Close()
	eventually(t, "worker 14's stream logged as finished", func() bool { _, ok := h.find("finished call"); return ok })
}

// TestOpenRateLimit: a flood of registrations is refused with
// ResourceExhausted beyond the bucket (burst 3, refilled 1 per second of
// a clock the test moves), then served again once it refills; streams
// refused for their credentials use up nothing.
func TestOpenRateLimit(t *testing.T) {
	leakCheck(t)
	l := algorithms.Layout{Params: 1, Delta: 1}
	var now atomic.Int64
	now.Store(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).UnixNano())
	clock := func() time.Time { return time.Unix(0, now.Load()) }
	tok, err := jobtls.NewToken("flood")
	if err != nil {
		t.Fatal(err)
	}
	cfg := grpcnet.WithClock(grpcnet.Config{Layout: l, Plaintext: true, Token: tok, OpenRate: 1, OpenBurst: 3}, clock)
	srv, addr, _ := serve(t, cfg)
	for range 10 { // unauthenticated: refused before the limit
		if err := attempt(t, addr, grpcnet.Config{Layout: l, Plaintext: true}, 9); status.Code(err) != codes.Unauthenticated {
			t.Fatalf("stream without token = %v; want Unauthenticated", err)
		}
	}
	cli, err := grpcnet.Dial(addr, grpcnet.Config{Layout: l, Plaintext: true, Token: tok})
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	open := func(id transport.NodeID, want codes.Code) {
		t.Helper()
		_, err := cli.Open(id)
		if status.Code(err) != want {
			t.Errorf("Open(%v) = %v; want %v", id, err, want)
		}
	}
	for id := range transport.NodeID(3) {
		open(id, codes.OK)
	}
	for id := transport.NodeID(3); id < 10; id++ {
		open(id, codes.ResourceExhausted)
	}
	if r := srv.Rejected(); r.RateLimited != 7 || r.NoToken != 10 {
		t.Errorf("Rejected() = %+v; want 7 rate-limited, 10 without token", r)
	}
	now.Add(int64(time.Second)) // one open more
	open(3, codes.OK)
	open(4, codes.ResourceExhausted)
	now.Add(int64(10 * time.Second)) // a full bucket again: 3
	for id := transport.NodeID(4); id < 7; id++ {
		open(id, codes.OK)
	}
	open(7, codes.ResourceExhausted)
	if r := srv.Rejected(); r.RateLimited != 9 {
		t.Errorf("Rejected().RateLimited = %d; want 9", r.RateLimited)
	}
}

// syncBuffer is a bytes.Buffer safe for concurrent writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// TestLogging: with a Logger, the coordinator logs each stream as JSON
// records through the middleware: a refusal at WARN with its code and
// worker, never the token; a worker's stream when it starts and ends.
func TestLogging(t *testing.T) {
	leakCheck(t)
	l := algorithms.Layout{Params: 1, Delta: 1}
	j := newJob(t, "logged")
	var buf syncBuffer
	scfg := j.serverConfig(l)
	scfg.Logger = slog.New(slog.NewJSONHandler(&buf, nil))
	_, addr, coord := serve(t, scfg)
	wrong := j.workerConfig(t, l, 4)
	wrong.Token = newJob(t, "other").token
	if err := attempt(t, addr, wrong, 4); status.Code(err) != codes.Unauthenticated {
		t.Fatalf("stream with another job's token = %v", err)
	}
	cli, err := grpcnet.Dial(addr, j.workerConfig(t, l, 4))
	if err != nil {
		t.Fatal(err)
	}
	w := mustOpen(t, cli, 4)
	if err := w.Send(t.Context(), &transport.Message{Kind: transport.Heartbeat, To: transport.Coordinator}); err != nil {
		t.Fatal(err)
	}
	if _, err := coord.Recv(ctxFor(t, 5*time.Second)); err != nil {
		t.Fatal(err)
	}
	cli.Close()
	type rec struct {
		Level, Msg string
		Code       string `json:"grpc.code"`
		Node       string `json:"syncmodels.node"`
	}
	var recs []rec
	eventually(t, "two finished streams logged", func() bool {
		recs = recs[:0]
		for _, line := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
			var r rec
			if err := json.Unmarshal([]byte(line), &r); err != nil {
				t.Fatalf("log line %q: %v", line, err)
			}
			recs = append(recs, r)
		}
		n := 0
		for _, r := range recs {
			if r.Msg == "finished call" {
				n++
			}
		}
		return n == 2
	})
	want := []rec{
		{"WARN", "finished call", "Unauthenticated", "4"},
		{"INFO", "started call", "", "4"},
		{"INFO", "finished call", "OK", "4"},
	}
	if len(recs) != len(want) {
		t.Fatalf("log records %+v; want %+v", recs, want)
	}
	for i := range want {
		if recs[i] != want[i] {
			t.Errorf("log record %d = %+v; want %+v", i, recs[i], want[i])
		}
	}
	if strings.Contains(buf.String(), j.token) || strings.Contains(buf.String(), wrong.Token) {
		t.Errorf("the log shows a token:\n%s", buf.String())
	}
}

// TestTLS13ByDefault: a server whose TLS configuration leaves MinVersion
// unset speaks TLS 1.3 only (Go's own default would accept 1.2).
func TestTLS13ByDefault(t *testing.T) {
	leakCheck(t)
	l := algorithms.Layout{Params: 1, Delta: 1}
	j := newJob(t, "tls13")
	scfg := j.serverConfig(l)
	scfg.TLS.MinVersion = 0
	_, addr, _ := serve(t, scfg)
	cert, err := j.ca.IssueWorker(0)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		max    uint16
		wantOK bool
	}{{tls.VersionTLS12, false}, {tls.VersionTLS13, true}} {
		conn, err := tls.Dial("tcp", addr, &tls.Config{
			Certificates: []tls.Certificate{cert}, RootCAs: j.ca.Pool(), ServerName: "127.0.0.1",
			NextProtos: []string{"h2"}, MaxVersion: c.max,
		})
		if err == nil {
			if v := conn.ConnectionState().Version; v != tls.VersionTLS13 {
				t.Errorf("negotiated version %#x; want TLS 1.3", v)
			}
			conn.Close()
		}
		if (err == nil) != c.wantOK {
			t.Errorf("client with MaxVersion %#x: handshake error %v; want success %v", c.max, err, c.wantOK)
		}
	}
}

// TestTokenNotSentInClear: a client configured for TLS with a token, on a
// plaintext connection the caller made, refuses to send the token: Open
// fails before anything reaches the server.
func TestTokenNotSentInClear(t *testing.T) {
	leakCheck(t)
	l := algorithms.Layout{Params: 1, Delta: 1}
	j := newJob(t, "clear")
	srv, addr, _ := serve(t, grpcnet.Config{Layout: l, Plaintext: true, Token: j.token})
	cc, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer cc.Close()
	cli, err := grpcnet.NewClient(cc, j.workerConfig(t, l, 0))
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	if _, err := cli.Open(0); err == nil || !strings.Contains(err.Error(), "cannot send secure credentials on an insecure connection") {
		t.Errorf("Open over plaintext with a token and a TLS configuration = %v; want a refusal to send it", err)
	}
	if r := srv.Rejected(); r.Total() != 0 {
		t.Errorf("Rejected() = %+v; want nothing: no stream reached the server", r)
	}
	if n := len(srv.Stats().Nodes); n != 1 {
		t.Errorf("the server knows %d nodes; want only the coordinator", n)
	}
}
