package grpcnet_test

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"io"
	"log/slog"
	"net"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/syncmodels/syncmodels/algorithms"
	"github.com/syncmodels/syncmodels/transport"
	"github.com/syncmodels/syncmodels/transport/grpcnet"
	"github.com/syncmodels/syncmodels/transport/grpcnet/jobtls"
)

// TestJob: a worker with the job's certificate and token fetches the
// job's description over bufconn and TCP loopback, mutual TLS 1.3, before
// it opens its stream; the fetch attaches no worker and delivers nothing;
// the description is the server's copy (the caller's slice may change),
// and SetJob replaces it or removes it (codes.NotFound, ErrNoJob).
func TestJob(t *testing.T) {
	l := algorithms.Layout{Params: 2, Delta: 2}
	j := newJob(t, "job-desc")
	for _, nw := range networks {
		t.Run(nw.name, func(t *testing.T) {
			leakCheck(t)
			desc := []byte(`{"workload":"kmeans","workers":4,"seed":7}`)
			want := bytes.Clone(desc)
			scfg := j.serverConfig(l)
			scfg.Job = desc
			ccfg := j.workerConfig(t, l, 2)
			ccfg.TLS.ServerName = "localhost" // bufconn's target names no host
			p := newSecurePair(t, nw, scfg, ccfg)
			defer p.Close()
			desc[0] = 'X' // NewServer copied it

			coord := mustOpen(t, p.srv, transport.Coordinator)
			got, err := p.cli.Job(ctxFor(t, 5*time.Second))
			if err != nil || !bytes.Equal(got, want) {
				t.Fatalf("Job = %q, %v; want %q", got, err, want)
			}
			if n := len(p.srv.Stats().Nodes); n != 1 {
				t.Errorf("server Stats has %d nodes after a fetch; want 1, the coordinator (a fetch attaches no worker)", n)
			}
			if r := p.srv.Rejected(); r.Total() != 0 {
				t.Errorf("Rejected() = %+v after a valid fetch; want nothing", r)
			}
			// The worker then attaches as usual.
			w := mustOpen(t, p.cli, 2)
			if err := w.Send(t.Context(), &transport.Message{Kind: transport.Join, To: transport.Coordinator, Incarnation: 1}); err != nil {
				t.Fatal(err)
			}
			if m, err := coord.Recv(ctxFor(t, 5*time.Second)); err != nil || m.From != 2 || m.Kind != transport.Join {
				t.Errorf("coordinator Recv = %v, %v; want worker 2's join, the first message", m, err)
			}

			next := []byte(`{"workload":"kmeans","workers":4,"seed":8}`)
			if err := p.srv.SetJob(next); err != nil {
				t.Fatal(err)
			}
			next[0] = 'X'
			if got, err := p.cli.Job(ctxFor(t, 5*time.Second)); err != nil || string(got) != `{"workload":"kmeans","workers":4,"seed":8}` {
				t.Errorf("Job after SetJob = %q, %v; want the new description", got, err)
			}
			if err := p.srv.SetJob(nil); err != nil {
				t.Fatal(err)
			}
			_, err = p.cli.Job(ctxFor(t, 5*time.Second))
			if status.Code(err) != codes.NotFound || !errors.Is(err, grpcnet.ErrNoJob) || !strings.HasPrefix(err.Error(), "grpcnet: job: ") {
				t.Errorf("Job after SetJob(nil) = %v; want NotFound wrapping ErrNoJob, prefixed \"grpcnet: job: \"", err)
			}
			if r := p.srv.Rejected(); r.Total() != 0 {
				t.Errorf("Rejected() = %+v; want nothing (NotFound is not a refusal)", r)
			}
		})
	}
}

// TestJobNotFound: a server without a Job (nil or empty) answers
// codes.NotFound; the client's error wraps ErrNoJob and nothing is
// counted as refused.
func TestJobNotFound(t *testing.T) {
	leakCheck(t)
	l := algorithms.Layout{Params: 1, Delta: 1}
	for _, job := range [][]byte{nil, {}} {
		p := newPair(t, networks[0], grpcnet.Config{Layout: l, Job: job})
		got, err := p.cli.Job(ctxFor(t, 5*time.Second))
		if status.Code(err) != codes.NotFound || !errors.Is(err, grpcnet.ErrNoJob) || got != nil {
			t.Errorf("Job with Config.Job %#v = %q, %v; want NotFound wrapping ErrNoJob", job, got, err)
		}
		if !strings.Contains(err.Error(), "no job description") {
			t.Errorf("Job error %q does not say there is no job description", err)
		}
		if r := p.srv.Rejected(); r.Total() != 0 {
			t.Errorf("Rejected() = %+v; want nothing", r)
		}
		if err := p.Close(); err != nil {
			t.Error(err)
		}
	}
}

// fetch is a bare job fetch with cfg's transport credentials and the
// metadata md (its token, a worker ID): the description, or how the call
// ended if not with OK.
func fetch(t *testing.T, addr string, cfg grpcnet.Config, md metadata.MD) ([]byte, error) {
	t.Helper()
	cc := bareConn(t, addr, cfg)
	defer cc.Close()
	ctx := metadata.NewOutgoingContext(ctxFor(t, 5*time.Second), md)
	s, err := cc.NewStream(ctx, &grpc.StreamDesc{ServerStreams: true}, "/syncmodels.transport.v1.Transport/Job", grpc.ForceCodecV2(rawCodec{}))
	if err != nil {
		return nil, err
	}
	var req []byte
	if err := s.SendMsg(&req); err != nil && err != io.EOF {
		return nil, err
	}
	var b, more []byte
	if err := s.RecvMsg(&b); err != nil {
		return nil, err
	}
	if err := s.RecvMsg(&more); err != io.EOF { // how the call ended
		if err == nil {
			t.Errorf("job fetch: a second frame %q", more)
		}
		return nil, err
	}
	return b, nil
}

// TestJobRefused: a fetch without the job's credentials is refused with
// the code a stream gets and counted by reason, and its error shows no
// description; a fetch that names a worker its certificate does not is
// refused (PermissionDenied); one naming its own worker, or none, gets the
// description.
func TestJobRefused(t *testing.T) {
	leakCheck(t)
	l := algorithms.Layout{Params: 2, Delta: 2}
	j, other := newJob(t, "job-a"), newJob(t, "job-b")
	const secret = "the-secret-job-description"
	scfg := j.serverConfig(l)
	scfg.Job = []byte(secret)
	srv, addr, coord := serve(t, scfg)

	w3 := j.workerConfig(t, l, 3)
	with := func(c grpcnet.Config, f func(*grpcnet.Config)) grpcnet.Config { f(&c); return c }
	otherSecret, err := jobtls.NewToken("job-a")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name   string
		cfg    grpcnet.Config
		code   codes.Code
		reason func(grpcnet.Rejections) int64
	}{
		{"no token", with(w3, func(c *grpcnet.Config) { c.Token = "" }), codes.Unauthenticated,
			func(r grpcnet.Rejections) int64 { return r.NoToken }},
		{"wrong token", with(w3, func(c *grpcnet.Config) { c.Token = otherSecret }), codes.Unauthenticated,
			func(r grpcnet.Rejections) int64 { return r.BadToken }},
		{"token of another job", with(w3, func(c *grpcnet.Config) { c.Token = other.token }), codes.Unauthenticated,
			func(r grpcnet.Rejections) int64 { return r.WrongJob }},
		{"no client certificate", with(w3, func(c *grpcnet.Config) { c.TLS = &tls.Config{RootCAs: j.ca.Pool()} }), codes.Unavailable,
			func(r grpcnet.Rejections) int64 { return r.Handshake }},
		{"client certificate of another job's CA", with(w3, func(c *grpcnet.Config) {
			c.TLS = other.workerConfig(t, l, 3).TLS
			c.TLS.RootCAs = j.ca.Pool()
		}), codes.Unavailable, func(r grpcnet.Rejections) int64 { return r.Handshake }},
	} {
		before := srv.Rejected()
		cli, err := grpcnet.Dial(addr, c.cfg)
		if err != nil {
			t.Fatal(err)
		}
		got, err := cli.Job(ctxFor(t, 5*time.Second))
		cli.Close()
		if status.Code(err) != c.code || got != nil {
			t.Errorf("%s: Job = %q, %v; want %v", c.name, got, err, c.code)
		}
		if err != nil && (!strings.HasPrefix(err.Error(), "grpcnet: job: ") || strings.Contains(err.Error(), secret) || strings.Contains(err.Error(), j.token)) {
			t.Errorf("%s: Job error %q: want the prefix \"grpcnet: job: \" and no description or token", c.name, err)
		}
		// As in TestRefused: a refused handshake is counted by the
		// server's goroutine, maybe later and maybe more than once.
		hs := c.code == codes.Unavailable
		eventually(t, c.name+": counted", func() bool {
			after := srv.Rejected()
			if hs {
				return c.reason(after) > c.reason(before) && after.Total()-after.Handshake == before.Total()-before.Handshake
			}
			return c.reason(after) == c.reason(before)+1 && after.Total()-after.Handshake == before.Total()-before.Handshake+1
		})
	}

	// A fetch may name its worker; then the certificate must name it.
	auth := func(id string) metadata.MD {
		md := metadata.Pairs("authorization", "Bearer "+j.token)
		if id != "" {
			md.Append("syncmodels-node", id)
		}
		return md
	}
	before := srv.Rejected()
	if got, err := fetch(t, addr, w3, auth("5")); status.Code(err) != codes.PermissionDenied || got != nil {
		t.Errorf("fetch naming worker 5 with worker 3's certificate = %q, %v; want PermissionDenied", got, err)
	}
	if got, err := fetch(t, addr, w3, auth("x")); status.Code(err) != codes.InvalidArgument || got != nil {
		t.Errorf("fetch naming worker \"x\" = %q, %v; want InvalidArgument", got, err)
	}
	if r := srv.Rejected(); r.Identity != before.Identity+1 || r.Metadata != before.Metadata+1 || r.Total() != before.Total()+2 {
		t.Errorf("Rejected() = %+v, before %+v; want one more Identity and one more Metadata", r, before)
	}
	for _, id := range []string{"3", ""} {
		if got, err := fetch(t, addr, w3, auth(id)); err != nil || string(got) != secret {
			t.Errorf("fetch naming worker %q with worker 3's certificate = %q, %v; want the description", id, got, err)
		}
	}
	// Through the client, with a certificate that names several workers.
	cli, err := grpcnet.Dial(addr, j.workerConfig(t, l, 0, 1, 2))
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	if got, err := cli.Job(ctxFor(t, 5*time.Second)); err != nil || string(got) != secret {
		t.Errorf("Job with a certificate of workers 0-2 = %q, %v; want the description", got, err)
	}
	expectNothing(t, srv, coord)
}

// TestJobLarge: a 10 MiB description passes (the limit is MaxMessage, not
// gRPC's 4 MiB); one over MaxMessage is refused by NewServer and SetJob
// (ErrConfig, the description left as it was); a client whose MaxMessage
// is smaller than the description refuses it (ResourceExhausted).
func TestJobLarge(t *testing.T) {
	leakCheck(t)
	l := algorithms.Layout{Params: 1, Delta: 1}
	big := make([]byte, 10<<20)
	for i := range big {
		big[i] = byte(i * 7)
	}
	for _, nw := range networks {
		p := newPair(t, nw, grpcnet.Config{Layout: l, Job: big})
		got, err := p.cli.Job(ctxFor(t, 10*time.Second))
		if err != nil || !bytes.Equal(got, big) {
			t.Errorf("%s: Job of a 10 MiB description = %d bytes, %v; want it whole", nw.name, len(got), err)
		}
		if err := p.Close(); err != nil {
			t.Error(err)
		}
	}

	if _, err := grpcnet.NewServer(grpcnet.Config{Layout: l, Plaintext: true, MaxMessage: 1 << 20, Job: big}); !errors.Is(err, grpcnet.ErrConfig) || !strings.Contains(err.Error(), "Job") {
		t.Errorf("NewServer with a Job over MaxMessage = %v; want ErrConfig naming Job", err)
	}
	p := newPair(t, networks[0], grpcnet.Config{Layout: l, MaxMessage: 1 << 20, Job: []byte("small")})
	defer p.Close()
	if err := p.srv.SetJob(big); !errors.Is(err, grpcnet.ErrConfig) {
		t.Errorf("SetJob of 10 MiB with MaxMessage 1 MiB = %v; want ErrConfig", err)
	}
	if got, err := p.cli.Job(ctxFor(t, 5*time.Second)); err != nil || string(got) != "small" {
		t.Errorf("Job after a refused SetJob = %q, %v; want the old description", got, err)
	}
	if err := p.srv.SetJob(big[:1<<20]); err != nil {
		t.Fatal(err)
	}
	small, err := grpcnet.Dial(p.target, grpcnet.Config{Layout: l, Plaintext: true, MaxMessage: 1 << 10}, p.dial...)
	if err != nil {
		t.Fatal(err)
	}
	defer small.Close()
	if got, err := small.Job(ctxFor(t, 5*time.Second)); status.Code(err) != codes.ResourceExhausted || got != nil {
		t.Errorf("Job of 1 MiB into a client with MaxMessage 1 KiB = %d bytes, %v; want ResourceExhausted", len(got), err)
	}
}

// TestJobContextAndClose: Job honours its context (an ended one, and a
// deadline that passes while the coordinator is unreachable) and, after
// Close, fails with an error wrapping transport.ErrClosed.
func TestJobContextAndClose(t *testing.T) {
	leakCheck(t)
	l := algorithms.Layout{Params: 1, Delta: 1}
	p := newPair(t, networks[1], grpcnet.Config{Layout: l, Job: []byte("{}")})
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := p.cli.Job(ctx); !errors.Is(err, context.Canceled) || !strings.HasPrefix(err.Error(), "grpcnet: job: ") {
		t.Errorf("Job with a cancelled context = %v; want context.Canceled, prefixed", err)
	}
	if got, err := p.cli.Job(ctxFor(t, 5*time.Second)); err != nil || string(got) != "{}" {
		t.Errorf("Job = %q, %v; want {}", got, err)
	}
	target := p.target
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := p.cli.Job(ctxFor(t, 5*time.Second)); !errors.Is(err, transport.ErrClosed) || !strings.HasPrefix(err.Error(), "grpcnet: job: ") {
		t.Errorf("Job after Close = %v; want an error wrapping transport.ErrClosed, prefixed", err)
	}

	// The coordinator has gone: the fetch fails at once (Unavailable;
	// gRPC's fail-fast, nothing retried).
	cli, err := grpcnet.Dial(target, grpcnet.Config{Layout: l, Plaintext: true})
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	if _, err := cli.Job(ctxFor(t, 5*time.Second)); status.Code(err) != codes.Unavailable || !strings.HasPrefix(err.Error(), "grpcnet: job: ") {
		t.Errorf("Job from a coordinator that has gone = %v; want Unavailable, prefixed", err)
	}

	// A listener that accepts and never speaks: the connection never
	// becomes ready, and the fetch ends with its deadline.
	mute, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	accepted := make(chan []net.Conn, 1)
	go func() {
		var conns []net.Conn
		for {
			c, err := mute.Accept()
			if err != nil {
				accepted <- conns
				return
			}
			conns = append(conns, c)
		}
	}()
	defer func() {
		mute.Close()
		for _, c := range <-accepted {
			c.Close()
		}
	}()
	slow, err := grpcnet.Dial(mute.Addr().String(), grpcnet.Config{Layout: l, Plaintext: true})
	if err != nil {
		t.Fatal(err)
	}
	defer slow.Close()
	ctx, cancel = context.WithTimeout(t.Context(), 200*time.Millisecond)
	defer cancel()
	if _, err := slow.Job(ctx); !errors.Is(err, context.DeadlineExceeded) || status.Code(err) != codes.DeadlineExceeded {
		t.Errorf("Job from a coordinator that never answers = %v; want DeadlineExceeded", err)
	}
}

// TestJobRateLimit: job fetches are rate-limited like stream opens, in a
// bucket of their own (OpenRate, OpenBurst): fetches beyond it are
// refused with ResourceExhausted and counted, and do not use up the
// workers' opens; unauthenticated fetches are refused before the limit.
func TestJobRateLimit(t *testing.T) {
	leakCheck(t)
	l := algorithms.Layout{Params: 1, Delta: 1}
	var now atomic.Int64
	now.Store(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).UnixNano())
	clock := func() time.Time { return time.Unix(0, now.Load()) }
	tok, err := jobtls.NewToken("flood")
	if err != nil {
		t.Fatal(err)
	}
	cfg := grpcnet.WithClock(grpcnet.Config{Layout: l, Plaintext: true, Token: tok, OpenRate: 1, OpenBurst: 2, Job: []byte("job")}, clock)
	srv, addr, _ := serve(t, cfg)
	anon, err := grpcnet.Dial(addr, grpcnet.Config{Layout: l, Plaintext: true})
	if err != nil {
		t.Fatal(err)
	}
	defer anon.Close()
	for range 5 {
		if _, err := anon.Job(ctxFor(t, 5*time.Second)); status.Code(err) != codes.Unauthenticated {
			t.Fatalf("Job without token = %v; want Unauthenticated", err)
		}
	}
	cli, err := grpcnet.Dial(addr, grpcnet.Config{Layout: l, Plaintext: true, Token: tok})
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	for i, want := range []codes.Code{codes.OK, codes.OK, codes.ResourceExhausted, codes.ResourceExhausted} {
		if _, err := cli.Job(ctxFor(t, 5*time.Second)); status.Code(err) != want {
			t.Errorf("fetch %d = %v; want %v", i, err, want)
		}
	}
	for id := range transport.NodeID(2) { // the opens' bucket is full
		mustOpen(t, cli, id)
	}
	if _, err := cli.Open(2); status.Code(err) != codes.ResourceExhausted {
		t.Errorf("third Open = %v; want ResourceExhausted", err)
	}
	if r := srv.Rejected(); r.RateLimited != 3 || r.NoToken != 5 || r.Total() != 8 {
		t.Errorf("Rejected() = %+v; want 3 rate-limited (2 fetches, 1 open), 5 without token", r)
	}
	now.Add(int64(time.Second))
	if got, err := cli.Job(ctxFor(t, 5*time.Second)); err != nil || string(got) != "job" {
		t.Errorf("fetch a second later = %q, %v; want the description", got, err)
	}
}

// TestJobLoggedAndRecovered: with a Logger, a fetch is logged like a
// stream (method Job, its code, the worker it names); a panic while
// serving one (in the logger, for worker 13, when the fetch ends) ends it
// with a plain Internal, is counted, and the server goes on serving.
func TestJobLoggedAndRecovered(t *testing.T) {
	leakCheck(t)
	l := algorithms.Layout{Params: 1, Delta: 1}
	h := &panicking{}
	srv, addr, _ := serve(t, grpcnet.Config{Layout: l, Plaintext: true, Logger: slog.New(h), Job: []byte("job")})
	cfg := grpcnet.Config{Layout: l, Plaintext: true}
	got, err := fetch(t, addr, cfg, metadata.Pairs("syncmodels-node", "13"))
	if st, _ := status.FromError(err); st.Code() != codes.Internal || st.Message() != "grpcnet: internal error" || got != nil {
		t.Errorf("fetch naming worker 13 = %q, %v; want Internal \"grpcnet: internal error\"", got, err)
	}
	if r := srv.Rejected(); r.Panics != 1 || r.Total() != 1 {
		t.Errorf("Rejected() = %+v; want 1 panic", r)
	}
	if got, err := fetch(t, addr, cfg, metadata.Pairs("syncmodels-node", "12")); err != nil || string(got) != "job" {
		t.Errorf("fetch naming worker 12 = %q, %v; want the description", got, err)
	}
	var fin slog.Record
	eventually(t, "the fetch logged as finished", func() bool { var ok bool; fin, ok = h.find("finished call"); return ok })
	attrs := map[string]string{}
	fin.Attrs(func(a slog.Attr) bool { attrs[a.Key] = a.Value.String(); return true })
	if attrs["grpc.method"] != "Job" || attrs["grpc.code"] != "OK" || attrs["syncmodels.node"] != "12" {
		t.Errorf("the fetch's record has %v; want grpc.method Job, grpc.code OK, syncmodels.node 12", attrs)
	}
}
