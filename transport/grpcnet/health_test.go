package grpcnet_test

import (
	"context"
	"crypto/tls"
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"

	"github.com/syncmodels/syncmodels/algorithms"
	"github.com/syncmodels/syncmodels/transport"
	"github.com/syncmodels/syncmodels/transport/grpcnet"
)

// healthOf asks the health service over cc about service.
func healthOf(t *testing.T, cc grpc.ClientConnInterface, service string) (healthpb.HealthCheckResponse_ServingStatus, error) {
	t.Helper()
	r, err := healthpb.NewHealthClient(cc).Check(ctxFor(t, 5*time.Second), &healthpb.HealthCheckRequest{Service: service})
	if err != nil {
		return healthpb.HealthCheckResponse_UNKNOWN, err
	}
	return r.Status, nil
}

// expectHealth checks that the health of "" and of the transport's
// service is want.
func expectHealth(t *testing.T, cc grpc.ClientConnInterface, want healthpb.HealthCheckResponse_ServingStatus) {
	t.Helper()
	for _, svc := range []string{"", grpcnet.ServiceName} {
		if got, err := healthOf(t, cc, svc); err != nil || got != want {
			t.Errorf("health of %q = %v, %v; want %v", svc, got, err, want)
		}
	}
}

// TestHealthServing: Serve serves the health service, SERVING for the
// server and the transport's service, and NotFound for others.
func TestHealthServing(t *testing.T) {
	leakCheck(t)
	l := algorithms.Layout{Params: 2, Delta: 2}
	for _, nw := range networks {
		t.Run(nw.name, func(t *testing.T) {
			p := newPair(t, nw, grpcnet.Config{Layout: l})
			defer p.Close()
			cc := p.clientConn(t)
			expectHealth(t, cc, healthpb.HealthCheckResponse_SERVING)
			if _, err := healthOf(t, cc, "no.such.Service"); status.Code(err) != codes.NotFound {
				t.Errorf("health of an unknown service = %v; want NotFound", err)
			}
		})
	}
}

// TestHealthSecurity: over mutual TLS with a token, a probe with the
// job's client certificate and no token is answered; one without a
// client certificate fails the handshake (the transport's guard is not
// weakened), and a stream without the token is still refused.
func TestHealthSecurity(t *testing.T) {
	leakCheck(t)
	l := algorithms.Layout{Params: 2, Delta: 2}
	j := newJob(t, "job-h")
	srv, addr, coord := serve(t, j.serverConfig(l))
	probe := j.workerConfig(t, l, 0)
	probe.Token = ""
	cc := bareConn(t, addr, probe)
	defer cc.Close()
	expectHealth(t, cc, healthpb.HealthCheckResponse_SERVING)

	noCert := probe
	noCert.TLS = &tls.Config{RootCAs: j.ca.Pool()}
	cc2 := bareConn(t, addr, noCert)
	defer cc2.Close()
	before := srv.Rejected().Handshake
	if _, err := healthOf(t, cc2, ""); status.Code(err) != codes.Unavailable {
		t.Errorf("health without a client certificate = %v; want Unavailable (failed handshake)", err)
	}
	eventually(t, "failed handshake counted", func() bool { return srv.Rejected().Handshake > before })

	if err := attempt(t, addr, probe, 0); status.Code(err) != codes.Unauthenticated {
		t.Errorf("a stream without the token = %v; want Unauthenticated", err)
	}
	expectNothing(t, srv, coord)
}

// TestHealthOnOwnGRPCServer: on a grpc.Server the caller owns, the
// Server's Health registered beside it reports NOT_SERVING after Close
// while the grpc.Server goes on.
func TestHealthOnOwnGRPCServer(t *testing.T) {
	leakCheck(t)
	l := algorithms.Layout{Params: 2, Delta: 2}
	srv, err := grpcnet.NewServer(grpcnet.Config{Layout: l, Plaintext: true})
	if err != nil {
		t.Fatal(err)
	}
	gs := grpc.NewServer(srv.ServerOptions()...)
	srv.Register(gs)
	healthpb.RegisterHealthServer(gs, srv.Health())
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- gs.Serve(lis) }()
	defer func() { gs.Stop(); <-served }()
	cc := bareConn(t, lis.Addr().String(), grpcnet.Config{Layout: l, Plaintext: true})
	defer cc.Close()
	expectHealth(t, cc, healthpb.HealthCheckResponse_SERVING)
	if err := srv.Close(); err != nil {
		t.Fatal(err)
	}
	expectHealth(t, cc, healthpb.HealthCheckResponse_NOT_SERVING)
}

// exchange checks that worker w and the coordinator c still carry
// messages both ways.
func exchange(t *testing.T, c, w transport.Endpoint, seq uint64) {
	t.Helper()
	up := &transport.Message{Kind: transport.Heartbeat, To: transport.Coordinator, Seq: seq}
	if err := w.Send(ctxFor(t, 5*time.Second), up); err != nil {
		t.Fatalf("worker %v Send = %v", w.ID(), err)
	}
	if m, err := c.Recv(ctxFor(t, 5*time.Second)); err != nil || m.From != w.ID() || m.Seq != seq {
		t.Fatalf("coordinator Recv = %v, %v; want worker %v's heartbeat %d", m, err, w.ID(), seq)
	}
	down := &transport.Message{Kind: transport.Heartbeat, To: w.ID(), Seq: seq}
	if err := c.Send(ctxFor(t, 5*time.Second), down); err != nil {
		t.Fatalf("coordinator Send to %v = %v", w.ID(), err)
	}
	if m, err := w.Recv(ctxFor(t, 5*time.Second)); err != nil || m.From != transport.Coordinator || m.Seq != seq {
		t.Fatalf("worker %v Recv = %v, %v; want the coordinator's heartbeat %d", w.ID(), m, err, seq)
	}
}

// TestShutdownDrains: Shutdown reports NOT_SERVING while the attached
// streams still carry messages both ways (to the coordinator, from it, and
// relayed between workers); new streams and job fetches are refused with
// Unavailable; Shutdown returns nil once the last stream ended, and Serve
// returns nil.
func TestShutdownDrains(t *testing.T) {
	leakCheck(t)
	l := algorithms.Layout{Params: 2, Delta: 2}
	for _, nw := range networks {
		t.Run(nw.name, func(t *testing.T) {
			p := newPair(t, nw, grpcnet.Config{Layout: l, Job: []byte(`{"job":1}`)})
			defer p.Close()
			c := mustOpen(t, p, transport.Coordinator)
			w1, w2 := mustOpen(t, p, 1), mustOpen(t, p, 2)
			probe := p.clientConn(t)
			expectHealth(t, probe, healthpb.HealthCheckResponse_SERVING)

			returned := make(chan error, 1)
			go func() { returned <- p.srv.Shutdown(ctxFor(t, 10*time.Second)) }()
			eventually(t, "NOT_SERVING", func() bool {
				s, err := healthOf(t, probe, grpcnet.ServiceName)
				return err == nil && s == healthpb.HealthCheckResponse_NOT_SERVING
			})
			expectHealth(t, probe, healthpb.HealthCheckResponse_NOT_SERVING)
			// NOT_SERVING is seen while both streams are still attached.
			exchange(t, c, w1, 1)
			exchange(t, c, w2, 1)
			relay := &transport.Message{Kind: transport.Heartbeat, To: 2, Seq: 7}
			if err := w1.Send(ctxFor(t, 5*time.Second), relay); err != nil {
				t.Fatal(err)
			}
			if m, err := w2.Recv(ctxFor(t, 5*time.Second)); err != nil || m.From != 1 || m.Seq != 7 {
				t.Fatalf("relayed Recv = %v, %v; want worker 1's heartbeat 7", m, err)
			}

			_, err := p.cli.Open(3)
			if status.Code(err) != codes.Unavailable || !strings.Contains(err.Error(), "shutting down") {
				t.Errorf("Open(3) during Shutdown = %v; want Unavailable, shutting down", err)
			}
			_, err = p.cli.Job(ctxFor(t, 5*time.Second))
			if status.Code(err) != codes.Unavailable || !strings.Contains(err.Error(), "shutting down") {
				t.Errorf("Job during Shutdown = %v; want Unavailable, shutting down", err)
			}

			// Worker 1 leaves; worker 2 is still served.
			if err := w1.Close(); err != nil {
				t.Fatal(err)
			}
			select {
			case err := <-returned:
				t.Fatalf("Shutdown returned %v with worker 2 attached", err)
			default:
			}
			exchange(t, c, w2, 2)
			if err := w2.Close(); err != nil {
				t.Fatal(err)
			}
			select {
			case err := <-returned:
				if err != nil {
					t.Errorf("Shutdown = %v; want nil (every stream ended on its own)", err)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("Shutdown did not return within 5 s of the last stream's end")
			}
			if _, err := c.Recv(ctxFor(t, 5*time.Second)); !errors.Is(err, transport.ErrClosed) {
				t.Errorf("coordinator Recv after Shutdown = %v; want ErrClosed", err)
			}
			if err := p.srv.Shutdown(t.Context()); err != nil {
				t.Errorf("second Shutdown = %v; want nil", err)
			}
		})
	}
}

// TestShutdownDeadline: a stream that does not end by ctx's deadline is
// closed (the worker sees the coordinator close), and Shutdown returns
// ctx's error.
func TestShutdownDeadline(t *testing.T) {
	leakCheck(t)
	l := algorithms.Layout{Params: 2, Delta: 2}
	p := newPair(t, networks[1], grpcnet.Config{Layout: l})
	defer p.Close()
	c := mustOpen(t, p, transport.Coordinator)
	w := mustOpen(t, p, 1)
	ctx, cancel := context.WithTimeout(t.Context(), 200*time.Millisecond)
	defer cancel()
	err := p.srv.Shutdown(ctx)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Shutdown with a stream attached = %v; want DeadlineExceeded", err)
	}
	_, err = w.Recv(ctxFor(t, 5*time.Second))
	if !errors.Is(err, transport.ErrClosed) || !strings.Contains(err.Error(), "stream to the coordinator ended") {
		t.Errorf("worker Recv after Shutdown = %v; want ErrClosed, the stream ended", err)
	}
	if _, err := c.Recv(ctxFor(t, 5*time.Second)); !errors.Is(err, transport.ErrClosed) {
		t.Errorf("coordinator Recv after Shutdown = %v; want ErrClosed", err)
	}
	if err := <-p.served; err != nil {
		t.Errorf("Serve after Shutdown = %v; want nil", err)
	}
	p.served = nil
}

// TestShutdownIdle: without streams Shutdown returns nil at once; after
// Close it returns nil too.
func TestShutdownIdle(t *testing.T) {
	leakCheck(t)
	l := algorithms.Layout{Params: 2, Delta: 2}
	p := newPair(t, networks[0], grpcnet.Config{Layout: l})
	defer p.Close()
	mustOpen(t, p, transport.Coordinator)
	if err := p.srv.Shutdown(ctxFor(t, 5*time.Second)); err != nil {
		t.Errorf("idle Shutdown = %v; want nil", err)
	}
	srv, err := grpcnet.NewServer(grpcnet.Config{Layout: l, Plaintext: true})
	if err != nil {
		t.Fatal(err)
	}
	srv.Close()
	if err := srv.Shutdown(t.Context()); err != nil {
		t.Errorf("Shutdown after Close = %v; want nil", err)
	}
	if s, err := srv.Health().Check(t.Context(), &healthpb.HealthCheckRequest{}); err != nil || s.Status != healthpb.HealthCheckResponse_NOT_SERVING {
		t.Errorf("health after Close = %v, %v; want NOT_SERVING", s, err)
	}
}
