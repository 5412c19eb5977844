package grpcnet

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"log/slog"
	"math"
	"net"
	"runtime/debug"
	"slices"
	"sync/atomic"

	"github.com/grpc-ecosystem/go-grpc-middleware/v2/interceptors/auth"
	"github.com/grpc-ecosystem/go-grpc-middleware/v2/interceptors/logging"
	"github.com/grpc-ecosystem/go-grpc-middleware/v2/interceptors/ratelimit"
	"github.com/grpc-ecosystem/go-grpc-middleware/v2/interceptors/recovery"
	"golang.org/x/time/rate"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	grpcpeer "google.golang.org/grpc/peer"
	"google.golang.org/grpc/status"

	"github.com/syncmodels/syncmodels/transport"
	"github.com/syncmodels/syncmodels/transport/grpcnet/jobtls"
)

// errInternal is what a client sees when the server recovered from a
// panic: a plain Internal with a generic message (recovery's default would
// send the panic value and stack as Unknown).
var errInternal = status.Error(codes.Internal, "grpcnet: internal error")

// Rejections counts what a Server refused, by reason: its streams and its
// job fetches (Client.Job), which pass the same checks. Nothing a refused
// stream or frame carried was delivered.
type Rejections struct {
	// Handshake counts connections whose TLS handshake failed: no client
	// certificate, one not issued by the job CA, a version below TLS 1.3,
	// or a peer that connected and left (a TCP probe). The client sees
	// codes.Unavailable.
	Handshake int64 `json:"handshake"`
	// Plaintext counts connections and streams without TLS where TLS is
	// required, and plaintext ones that are not over loopback
	// (codes.Unauthenticated, or a refused connection).
	Plaintext int64 `json:"plaintext"`
	// NoToken counts streams without a bearer token, BadToken those with
	// one that is not the job's, WrongJob those with the token, or a
	// certificate, of another job (codes.Unauthenticated; a certificate:
	// codes.PermissionDenied).
	NoToken  int64 `json:"no_token"`
	BadToken int64 `json:"bad_token"`
	WrongJob int64 `json:"wrong_job"`
	// Identity counts streams whose client certificate does not name
	// their worker (codes.PermissionDenied).
	Identity int64 `json:"identity"`
	// RateLimited counts streams refused over the open rate, and job
	// fetches over theirs (codes.ResourceExhausted).
	RateLimited int64 `json:"rate_limited"`
	// Metadata counts streams whose worker or layout metadata is missing
	// or malformed (codes.InvalidArgument) or names another layout
	// (codes.FailedPrecondition); Attached, those of a worker that is
	// attached already (codes.AlreadyExists).
	Metadata int64 `json:"metadata"`
	Attached int64 `json:"attached"`
	// Malformed counts refused frames (Server.Malformed).
	Malformed int64 `json:"malformed"`
	// Panics counts panics recovered while serving a stream
	// (codes.Internal).
	Panics int64 `json:"panics"`
}

// Total returns the sum of every count.
func (r Rejections) Total() int64 {
	return r.Handshake + r.Plaintext + r.NoToken + r.BadToken + r.WrongJob + r.Identity +
		r.RateLimited + r.Metadata + r.Attached + r.Malformed + r.Panics
}

// rejections are a Server's counts.
type rejections struct {
	handshake, plaintext, noToken, badToken, wrongJob, identity,
	rateLimited, metadata, attached, panics atomic.Int64
}

// Rejected returns what s refused so far, by reason.
func (s *Server) Rejected() Rejections {
	r := &s.rej
	return Rejections{
		Handshake: r.handshake.Load(), Plaintext: r.plaintext.Load(),
		NoToken: r.noToken.Load(), BadToken: r.badToken.Load(), WrongJob: r.wrongJob.Load(),
		Identity: r.identity.Load(), RateLimited: r.rateLimited.Load(),
		Metadata: r.metadata.Load(), Attached: r.attached.Load(),
		Malformed: s.malformed.Load(), Panics: r.panics.Load(),
	}
}

// tlsConfig returns c's TLS configuration, TLS 1.3 unless it says
// otherwise.
func (c *Config) tlsConfig() *tls.Config {
	t := c.TLS.Clone()
	if t.MinVersion == 0 {
		t.MinVersion = tls.VersionTLS13
	}
	return t
}

// serverCreds returns the transport credentials of a Server: TLS that
// counts failed handshakes, or plaintext for loopback connections only.
func (s *Server) serverCreds() credentials.TransportCredentials {
	if s.cfg.Plaintext {
		return loopbackOnly{insecure.NewCredentials(), &s.rej.plaintext}
	}
	return countHandshakes{credentials.NewTLS(s.cfg.tlsConfig()), &s.rej.handshake}
}

// clientCreds returns the transport credentials of a Client's connection.
func (c *Config) clientCreds() credentials.TransportCredentials {
	if c.Plaintext {
		return loopbackOnly{insecure.NewCredentials(), nil}
	}
	return credentials.NewTLS(c.tlsConfig())
}

// countHandshakes counts a server's failed TLS handshakes.
type countHandshakes struct {
	credentials.TransportCredentials
	failed *atomic.Int64
}

func (c countHandshakes) ServerHandshake(conn net.Conn) (net.Conn, credentials.AuthInfo, error) {
	nc, ai, err := c.TransportCredentials.ServerHandshake(conn)
	if err != nil {
		c.failed.Add(1)
	}
	return nc, ai, err
}

func (c countHandshakes) Clone() credentials.TransportCredentials {
	return countHandshakes{c.TransportCredentials.Clone(), c.failed}
}

// loopbackOnly is plaintext that refuses, at the handshake (before any
// header or token is sent), a connection whose ends are not both loopback
// or in-memory addresses. refused, if not nil, counts the refusals.
type loopbackOnly struct {
	credentials.TransportCredentials
	refused *atomic.Int64
}

func (c loopbackOnly) ClientHandshake(ctx context.Context, authority string, conn net.Conn) (net.Conn, credentials.AuthInfo, error) {
	if !isLocal(conn.LocalAddr()) || !isLocal(conn.RemoteAddr()) {
		return nil, nil, fmt.Errorf("grpcnet: plaintext connection to %v refused: not over loopback (configure TLS)", conn.RemoteAddr())
	}
	return c.TransportCredentials.ClientHandshake(ctx, authority, conn)
}

func (c loopbackOnly) ServerHandshake(conn net.Conn) (net.Conn, credentials.AuthInfo, error) {
	if !isLocal(conn.LocalAddr()) || !isLocal(conn.RemoteAddr()) {
		if c.refused != nil {
			c.refused.Add(1)
		}
		return nil, nil, fmt.Errorf("grpcnet: plaintext connection from %v refused: not over loopback (configure TLS)", conn.RemoteAddr())
	}
	return c.TransportCredentials.ServerHandshake(conn)
}

func (c loopbackOnly) Clone() credentials.TransportCredentials {
	return loopbackOnly{c.TransportCredentials.Clone(), c.refused}
}

// isLocal reports whether a is a loopback IP address, a Unix socket, or an
// in-memory connection (grpc's bufconn, net.Pipe): an address whose
// traffic stays on the host.
func isLocal(a net.Addr) bool {
	switch a := a.(type) {
	case nil:
		return false
	case *net.TCPAddr:
		return a.IP.IsLoopback()
	case *net.UnixAddr:
		return true
	}
	switch a.Network() {
	case "bufconn", "pipe", "unix", "unixpacket":
		return true
	}
	host, _, err := net.SplitHostPort(a.String())
	if err != nil {
		return false
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// tokenCreds sends the job's bearer token with every stream.
type tokenCreds struct {
	header string // "Bearer <token>"
	secure bool   // refuse to send it without TLS
}

func (c tokenCreds) GetRequestMetadata(context.Context, ...string) (map[string]string, error) {
	return map[string]string{"authorization": c.header}, nil
}

func (c tokenCreds) RequireTransportSecurity() bool { return c.secure }

// guard is the Server's security: the interceptor chain its service runs
// every stream through, whichever grpc.Server it is registered on.
type guard struct {
	s       *Server
	job     string   // the job of the token, "" if it names none
	token   [32]byte // SHA-256 of the token, for a constant-time compare
	opens   limiter  // stream opens
	fetches limiter  // job fetches: a bucket of their own, so that they do not use up opens
	logger  *slog.Logger
}

// limiter is a token bucket of OpenBurst calls refilled at OpenRate per
// second; it implements ratelimit.Limiter.
type limiter struct {
	s    *Server
	what string // what it limits, for the error
	l    *rate.Limiter
}

// Limit admits a call if the bucket holds one; otherwise it counts the
// refusal (ratelimit answers codes.ResourceExhausted).
func (l *limiter) Limit(context.Context) error {
	if l.l.AllowN(l.s.cfg.now(), 1) {
		return nil
	}
	l.s.rej.rateLimited.Add(1)
	return fmt.Errorf("grpcnet: more than %g %s per second (burst %d)", l.s.cfg.OpenRate, l.what, l.s.cfg.OpenBurst)
}

func newGuard(s *Server) *guard {
	c := &s.cfg
	g := &guard{s: s, logger: c.Logger}
	if c.Token != "" {
		g.token = sha256.Sum256([]byte(c.Token))
		g.job, _ = jobtls.TokenJob(c.Token)
	}
	limit := rate.Limit(c.OpenRate)
	if math.IsInf(c.OpenRate, 1) {
		limit = rate.Inf
	}
	g.opens = limiter{s, "stream opens", rate.NewLimiter(limit, c.OpenBurst)}
	g.fetches = limiter{s, "job fetches", rate.NewLimiter(limit, c.OpenBurst)}
	return g
}

// handler returns h, the handler of Stream, wrapped in the chain,
// outermost first: recovery (a panic becomes a plain Internal), logging
// (only with a Logger), authentication (TLS or loopback plaintext, token,
// certificate identity), then the rate limit on stream opens.
// Authentication comes before the limit so that unauthenticated clients
// cannot use up the opens of the job's workers.
func (g *guard) handler(h grpc.StreamHandler) grpc.StreamHandler {
	return g.chain(h, &grpc.StreamServerInfo{FullMethod: fullMethod, IsClientStream: true, IsServerStream: true},
		func(ctx context.Context) (context.Context, error) { return g.authenticate(ctx, true) }, &g.opens)
}

// jobHandler returns h, the handler of Job, wrapped in the same chain as
// Stream's, with a rate limit of its own and a worker ID that is optional
// (see authenticate).
func (g *guard) jobHandler(h grpc.StreamHandler) grpc.StreamHandler {
	return g.chain(h, &grpc.StreamServerInfo{FullMethod: fullJobMethod, IsServerStream: true},
		func(ctx context.Context) (context.Context, error) { return g.authenticate(ctx, false) }, &g.fetches)
}

// chain wraps h, the handler of the method info names, in recovery,
// logging, authn and the rate limit lim.
func (g *guard) chain(h grpc.StreamHandler, info *grpc.StreamServerInfo, authn auth.AuthFunc, lim *limiter) grpc.StreamHandler {
	ics := []grpc.StreamServerInterceptor{
		recovery.StreamServerInterceptor(recovery.WithRecoveryHandlerContext(g.recovered)),
	}
	if g.logger != nil {
		ics = append(ics, logging.StreamServerInterceptor(slogAdapter(g.logger),
			logging.WithLevels(serverLevel), logging.WithFieldsFromContext(nodeField)))
	}
	ics = append(ics,
		auth.StreamServerInterceptor(authn),
		ratelimit.StreamServerInterceptor(lim))
	for _, ic := range slices.Backward(ics) {
		next := h
		h = func(srv any, ss grpc.ServerStream) error { return ic(srv, ss, info, next) }
	}
	return h
}

// authenticate admits a call, or refuses it with the right code and
// counts why: a call without TLS where TLS is required (or not over
// loopback), a missing, wrong or other job's token, or a client
// certificate that does not name the call's worker. A stream (needNode)
// must name its worker; a job fetch may: if it does not, a client
// certificate must name some worker of the job.
func (g *guard) authenticate(ctx context.Context, needNode bool) (context.Context, error) {
	r := &g.s.rej
	p, _ := grpcpeer.FromContext(ctx)
	if p == nil {
		r.plaintext.Add(1)
		return nil, status.Error(codes.Unauthenticated, "grpcnet: no peer information")
	}
	var leaf *x509.Certificate
	if ti, ok := p.AuthInfo.(credentials.TLSInfo); ok {
		if pc := ti.State.PeerCertificates; len(pc) > 0 {
			leaf = pc[0]
		}
	} else if !g.s.cfg.Plaintext {
		r.plaintext.Add(1)
		return nil, status.Error(codes.Unauthenticated, "grpcnet: TLS required")
	} else if !isLocal(p.LocalAddr) || !isLocal(p.Addr) {
		r.plaintext.Add(1)
		return nil, status.Error(codes.Unauthenticated, "grpcnet: plaintext only over loopback; TLS required")
	}
	if g.s.cfg.Token != "" {
		tok, err := auth.AuthFromMD(ctx, "bearer")
		switch {
		case err != nil && len(metadata.ValueFromIncomingContext(ctx, "authorization")) == 0:
			r.noToken.Add(1)
			return nil, status.Error(codes.Unauthenticated, "grpcnet: bearer token required")
		case err != nil:
			r.badToken.Add(1)
			return nil, status.Error(codes.Unauthenticated, "grpcnet: malformed authorization metadata; want \"Bearer <token>\"")
		}
		if h := sha256.Sum256([]byte(tok)); subtle.ConstantTimeCompare(h[:], g.token[:]) != 1 {
			if j, err := jobtls.TokenJob(tok); err == nil && g.job != "" && j != g.job {
				r.wrongJob.Add(1)
				return nil, status.Error(codes.Unauthenticated, "grpcnet: bearer token of another job")
			}
			r.badToken.Add(1)
			return nil, status.Error(codes.Unauthenticated, "grpcnet: invalid bearer token")
		}
	}
	if leaf != nil {
		job, ids, err := jobtls.Identity(leaf)
		if err != nil {
			r.identity.Add(1)
			return nil, status.Error(codes.PermissionDenied, "grpcnet: the client certificate names no worker")
		}
		if g.job != "" && job != g.job {
			r.wrongJob.Add(1)
			return nil, status.Error(codes.PermissionDenied, "grpcnet: the client certificate is of another job")
		}
		md, _ := metadata.FromIncomingContext(ctx)
		if !needNode && len(md.Get(mdNode)) == 0 {
			return ctx, nil
		}
		id, err := nodeFromMD(md)
		if err != nil {
			r.metadata.Add(1)
			return nil, err
		}
		if !slices.Contains(ids, id) {
			r.identity.Add(1)
			return nil, status.Errorf(codes.PermissionDenied, "grpcnet: the client certificate names %v, not %v", ids, id)
		}
	}
	return ctx, nil
}

// recovered is recovery's handler, and the transport goroutines': it
// counts and logs the panic (with its stack, if there is a Logger) and
// returns errInternal, which tells the client nothing about it.
func (g *guard) recovered(ctx context.Context, p any) error {
	g.s.rej.panics.Add(1)
	if g.logger != nil {
		stack := string(debug.Stack())
		func() {
			defer func() { _ = recover() }() // the logger itself may be what panicked
			g.logger.LogAttrs(ctx, slog.LevelError, "grpcnet: recovered from a panic",
				slog.String("panic", fmt.Sprint(p)), slog.Any("syncmodels.node", nodeField(ctx)), slog.String("stack", stack))
		}()
	}
	return errInternal
}

// safely runs f and turns a panic in it into recovered's error: for the
// goroutines that serve a stream beside its handler, which the recovery
// interceptor does not cover.
func (g *guard) safely(ctx context.Context, f func() error) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = g.recovered(ctx, p)
		}
	}()
	return f()
}

// nodeFromMD returns the worker ID of a stream's metadata.
func nodeFromMD(md metadata.MD) (transport.NodeID, error) {
	v := md.Get(mdNode)
	if len(v) != 1 {
		return 0, status.Errorf(codes.InvalidArgument, "grpcnet: stream metadata %q: %d values, want 1", mdNode, len(v))
	}
	n, err := parseNode(v[0])
	if err != nil {
		return 0, status.Errorf(codes.InvalidArgument, "grpcnet: stream metadata %s=%q is not a worker ID in [0, %d]", mdNode, v[0], int(transport.MaxNode))
	}
	return n, nil
}

// nodeField is the log field naming a stream's worker.
func nodeField(ctx context.Context) logging.Fields {
	if v := metadata.ValueFromIncomingContext(ctx, mdNode); len(v) == 1 {
		return logging.Fields{"syncmodels.node", v[0]}
	}
	return nil
}

// slogAdapter logs the middleware's records to l.
func slogAdapter(l *slog.Logger) logging.Logger {
	return logging.LoggerFunc(func(ctx context.Context, lvl logging.Level, msg string, fields ...any) {
		l.Log(ctx, slog.Level(lvl), msg, fields...)
	})
}

// serverLevel is the log level of a finished stream by its code: refusals
// are warnings, server faults errors.
func serverLevel(c codes.Code) logging.Level {
	switch c {
	case codes.OK, codes.Canceled:
		return logging.LevelInfo
	case codes.Unknown, codes.Internal, codes.Unimplemented, codes.DataLoss:
		return logging.LevelError
	default:
		return logging.LevelWarn
	}
}

// countAccept counts a refusal of accept.
func (s *Server) countAccept(err error) {
	switch status.Code(err) {
	case codes.InvalidArgument, codes.FailedPrecondition:
		s.rej.metadata.Add(1)
	case codes.AlreadyExists:
		s.rej.attached.Add(1)
	}
}
