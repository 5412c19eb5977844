package grpcnet

import (
	"context"
	"fmt"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"
)

// ServiceName is the gRPC name of the transport's service: the name under
// which its health is reported (see Server.Health), as
// grpc_health_probe -service=syncmodels.transport.v1.Transport asks.
const ServiceName = serviceName

// errShuttingDown refuses new streams and job fetches during Shutdown.
var errShuttingDown = status.Error(codes.Unavailable, "grpcnet: shutting down")

// newHealth returns the health service of a new Server: SERVING for the
// server as a whole ("") and for ServiceName.
func newHealth() *health.Server {
	h := health.NewServer() // "" is SERVING
	h.SetServingStatus(ServiceName, healthpb.HealthCheckResponse_SERVING)
	return h
}

// Health returns s's gRPC health service (grpc.health.v1.Health): SERVING
// for "" and for ServiceName until Shutdown or Close, NOT_SERVING from
// then on. Serve registers it on its grpc.Server; a caller that Registers
// s on a grpc.Server of its own registers it there too if it wants it
// (healthpb.RegisterHealthServer(gs, s.Health())), and s still reports
// NOT_SERVING through it when it shuts down. The service passes the
// server's transport credentials (TLS, with a client certificate if the
// TLS configuration requires one; plaintext over loopback only) but not
// the transport's token, identity and rate checks: a probe carries no
// job token, and the service tells only whether s serves (see the package
// doc, "Health and shutdown").
func (s *Server) Health() *health.Server { return s.health }

// registerHealth registers s's health service on r.
func (s *Server) registerHealth(r grpc.ServiceRegistrar) {
	healthpb.RegisterHealthServer(r, s.health)
}

// Shutdown ends s gracefully. At once it reports NOT_SERVING (Health) and
// refuses new worker streams and job fetches with codes.Unavailable
// "grpcnet: shutting down"; the coordinator's endpoint and the streams
// attached already go on carrying messages both ways until each ends on
// its own (its worker closes it, or it breaks) or ctx is done. Then it
// closes s as Close does: the coordinator's endpoint, any stream left
// (codes.Unavailable), the grpc.Server that Serve created, and every
// goroutine of the transport. It returns nil if every stream ended on its
// own, ctx's error (wrapped) if ctx ended first and the streams left were
// closed. After Close, or a Shutdown that returned, it returns nil.
//
// The streams end when the coordinator's run lets them: a harness run
// drains its workers and then closes the transport itself, so Shutdown is
// for an owner that ends a job from outside (a SIGTERM), with a ctx that
// bounds the drain.
func (s *Server) Shutdown(ctx context.Context) error {
	s.health.Shutdown() // NOT_SERVING first, before anything is refused
	s.mu.Lock()
	if s.drained == nil {
		s.drained = make(chan struct{})
		if len(s.peers) == 0 {
			close(s.drained)
		}
	}
	drained := s.drained
	s.mu.Unlock()
	var err error
	select {
	case <-drained:
	case <-s.done: // closed meanwhile
	case <-ctx.Done():
		err = fmt.Errorf("grpcnet: shutdown: streams still attached: %w", context.Cause(ctx))
	}
	s.Close()
	return err
}

// shuttingDown reports whether Shutdown has begun; s.mu must be held.
func (s *Server) shuttingDown() bool { return s.drained != nil }
