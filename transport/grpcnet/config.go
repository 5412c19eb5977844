package grpcnet

import (
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"strings"
	"time"

	"github.com/grpc-ecosystem/go-grpc-middleware/v2/interceptors/logging"
	"google.golang.org/grpc"
	"google.golang.org/grpc/backoff"
	"google.golang.org/grpc/keepalive"

	"github.com/syncmodels/syncmodels/algorithms"
)

// Defaults.
const (
	// DefaultMaxMessage is the default message size limit, 64 MiB: the
	// in-process transport's (inproc.DefaultMaxMessage), so that what one
	// runtime carries the other carries too. gRPC's own 4 MiB receive
	// default is replaced by it on both sides.
	DefaultMaxMessage = 64 << 20
	// DefaultInbox is the default queue capacity of an endpoint, in
	// messages.
	DefaultInbox = 1024
	// DefaultPingInterval is the default keepalive ping interval, 10 s:
	// grpc-go's smallest for clients (it raises shorter ones to it).
	DefaultPingInterval = 10 * time.Second
	// DefaultPingTimeout is how long, by default, a ping may go
	// unanswered before the connection is considered dead.
	DefaultPingTimeout = 5 * time.Second
	// DefaultOpenTimeout bounds, by default, how long a worker's Open
	// waits for the coordinator to accept its stream.
	DefaultOpenTimeout = 10 * time.Second
	// DefaultCloseTimeout bounds, by default, how long a worker
	// endpoint's Close waits for the coordinator to acknowledge the end
	// of its stream before cancelling it.
	DefaultCloseTimeout = time.Second
	// DefaultOpenRate is how many worker streams per second, by default,
	// a Server accepts on average once its burst is used up.
	DefaultOpenRate = 100
	// DefaultOpenBurst is how many worker streams, by default, a Server
	// accepts at once: enough for a large job's workers to register
	// together.
	DefaultOpenBurst = 1024
	// minToken is the shortest bearer token accepted, in bytes.
	minToken = 16
)

// reconnectBackoff is the workers' reconnection backoff: from 50 ms,
// doubling, at most 1 s apart.
var reconnectBackoff = backoff.Config{BaseDelay: 50 * time.Millisecond, Multiplier: 2, Jitter: 0.2, MaxDelay: time.Second}

// minPingInterval is the server's keepalive enforcement: clients may ping
// as often as every 5 s, half of grpc-go's 10 s floor for client pings, so
// that no grpc-go client configuration can earn the GOAWAY
// "too_many_pings" (grpc-go issue 5161; the server's default allows one
// ping every 5 minutes).
const minPingInterval = 5 * time.Second

// ErrConfig reports an invalid Config.
var ErrConfig = errors.New("grpcnet: invalid config")

// Config configures a Server or a Client. The coordinator and its workers
// must agree on Layout (a worker's stream with another layout is refused)
// and should agree on MaxMessage.
type Config struct {
	// Layout is the layout of the job's parameters and deltas; messages
	// are validated against it on Send and decoded with it on arrival.
	Layout algorithms.Layout

	// MaxMessage is the largest encoded message, in bytes, that Send
	// accepts and that a stream receives; gRPC's send and receive limits
	// are set to it. Default (0) DefaultMaxMessage. At most 2^31−1.
	MaxMessage int
	// Inbox is the capacity of each endpoint's queue of received
	// messages; a full queue stops reading its stream, so gRPC's flow
	// control blocks the senders. Default (0) DefaultInbox.
	Inbox int

	// PingInterval is the keepalive interval: how long a connection may
	// be idle before a ping checks it (the client's and the server's
	// keepalive Time). Default (0) DefaultPingInterval; at least 10 s,
	// grpc-go's floor for clients.
	PingInterval time.Duration
	// PingTimeout is how long a ping may go unanswered before the
	// connection is closed. Default (0) DefaultPingTimeout.
	PingTimeout time.Duration

	// OpenTimeout bounds a worker's Open: dialling and the coordinator's
	// acceptance of the stream. Default (0) DefaultOpenTimeout.
	OpenTimeout time.Duration
	// CloseTimeout bounds a worker endpoint's Close. Default (0)
	// DefaultCloseTimeout.
	CloseTimeout time.Duration

	// TLS is the TLS configuration. A Server's presents its certificate
	// and says how client certificates are verified (jobtls.ServerTLS
	// requires one issued by the job CA: mutual TLS); when a client
	// presents a certificate, the worker it names (jobtls.Identity) must
	// be its stream's, or the stream is refused with
	// codes.PermissionDenied. A Client's trusts the job CA and presents
	// the worker's certificate (jobtls.ClientTLS). MinVersion defaults to
	// TLS 1.3. Exactly one of TLS and Plaintext must be set.
	TLS *tls.Config
	// Plaintext runs without TLS, and is refused unless every connection
	// is local: a Server's listener must be on a loopback address (or a
	// Unix socket, or in memory), and both sides refuse, at the
	// handshake, a connection with a non-loopback end. For tests and
	// single-host runs.
	Plaintext bool
	// Token is the job's bearer token (jobtls.NewToken; at least 16
	// bytes, printable ASCII). A Server with a Token refuses a stream
	// without it, with another one, or with another job's
	// (codes.Unauthenticated), comparing in constant time; a Client
	// sends it with every stream ("authorization: Bearer <token>"), and
	// only over TLS unless Plaintext. Default (""): no token.
	Token string
	// Logger, if not nil, receives a record per stream (started,
	// finished with its code: refusals at Warn, faults at Error) through
	// go-grpc-middleware's logging interceptor, and every recovered
	// panic with its stack. Default (nil): nothing is logged.
	Logger *slog.Logger
	// OpenRate is how many worker streams per second a Server accepts,
	// on average; OpenBurst how many at once. An authenticated stream
	// beyond them is refused with codes.ResourceExhausted (the worker
	// retries its Open later). Default (0) DefaultOpenRate and
	// DefaultOpenBurst; an OpenRate of +Inf sets no limit.
	OpenRate  float64
	OpenBurst int

	// Generation (a Server's) numbers the coordinator's lives: a
	// coordinator restarted from its journal serves the next one. The
	// server announces it in every stream's header; a Client's endpoint
	// reports it (Endpoint.Generation), so that a worker can refuse a
	// stream from an older coordinator than one it has talked to.
	// Default 0.
	Generation uint64

	// Job is a Server's description of the job, opaque bytes (JSON, say)
	// that a worker fetches with Client.Job before it opens its stream;
	// the fetch passes the same checks as a stream (see the package doc,
	// "Job description"). NewServer copies it; Server.SetJob replaces it.
	// At most MaxMessage bytes. Default (nil, or empty): no job, and a
	// fetch is answered codes.NotFound. A Client ignores it.
	Job []byte

	// minPing is the server's keepalive enforcement interval; 0 means
	// minPingInterval. Tests shorten it.
	minPing time.Duration
	// now is the rate limiter's clock; nil means time.Now. Tests set it.
	now func() time.Time
}

// validate fills in defaults and checks every field.
func (c *Config) validate() error {
	l := c.Layout
	if l.Params < 0 || l.Delta < 0 || l.Block < 0 || l.Params > math.MaxInt32 || l.Delta > math.MaxInt32 {
		return fmt.Errorf("grpcnet: layout %+v: lengths must be in [0, 2^31-1]: %w", l, ErrConfig)
	}
	for _, f := range []struct {
		name string
		v    int64
	}{
		{"MaxMessage", int64(c.MaxMessage)}, {"Inbox", int64(c.Inbox)},
		{"PingInterval", int64(c.PingInterval)}, {"PingTimeout", int64(c.PingTimeout)},
		{"OpenTimeout", int64(c.OpenTimeout)}, {"CloseTimeout", int64(c.CloseTimeout)},
		{"OpenBurst", int64(c.OpenBurst)},
	} {
		if f.v < 0 {
			return fmt.Errorf("grpcnet: %s %d is negative: %w", f.name, f.v, ErrConfig)
		}
	}
	switch {
	case c.MaxMessage > math.MaxInt32:
		return fmt.Errorf("grpcnet: MaxMessage %d exceeds 2^31-1: %w", c.MaxMessage, ErrConfig)
	case c.PingInterval != 0 && c.PingInterval < DefaultPingInterval:
		return fmt.Errorf("grpcnet: PingInterval %v is below grpc-go's 10s floor: %w", c.PingInterval, ErrConfig)
	case math.IsNaN(c.OpenRate) || c.OpenRate < 0:
		return fmt.Errorf("grpcnet: OpenRate %v is not a rate in (0, +Inf]: %w", c.OpenRate, ErrConfig)
	case c.TLS != nil && c.Plaintext:
		return fmt.Errorf("grpcnet: both TLS and Plaintext are set: %w", ErrConfig)
	case c.TLS == nil && !c.Plaintext:
		return fmt.Errorf("grpcnet: no TLS configuration: set TLS (jobtls.LoadServer, jobtls.LoadWorker), or Plaintext for loopback only: %w", ErrConfig)
	case c.Token != "" && (len(c.Token) < minToken || strings.IndexFunc(c.Token, func(r rune) bool { return r <= ' ' || r > '~' }) >= 0):
		return fmt.Errorf("grpcnet: Token of %d bytes: want at least %d printable ASCII characters without spaces: %w", len(c.Token), minToken, ErrConfig)
	}
	def := func(p *time.Duration, d time.Duration) {
		if *p == 0 {
			*p = d
		}
	}
	if c.MaxMessage == 0 {
		c.MaxMessage = DefaultMaxMessage
	}
	if c.Inbox == 0 {
		c.Inbox = DefaultInbox
	}
	def(&c.PingInterval, DefaultPingInterval)
	def(&c.PingTimeout, DefaultPingTimeout)
	def(&c.OpenTimeout, DefaultOpenTimeout)
	def(&c.CloseTimeout, DefaultCloseTimeout)
	def(&c.minPing, minPingInterval)
	if c.OpenRate == 0 {
		c.OpenRate = DefaultOpenRate
	}
	if c.OpenBurst == 0 {
		c.OpenBurst = DefaultOpenBurst
	}
	if c.now == nil {
		c.now = time.Now
	}
	if len(c.Job) > c.MaxMessage {
		return fmt.Errorf("grpcnet: Job of %d bytes exceeds MaxMessage %d: %w", len(c.Job), c.MaxMessage, ErrConfig)
	}
	return nil
}

// serverOptions are the grpc.Server options a coordinator needs.
func (c *Config) serverOptions() []grpc.ServerOption {
	return []grpc.ServerOption{
		grpc.MaxRecvMsgSize(c.MaxMessage),
		grpc.MaxSendMsgSize(c.MaxMessage),
		grpc.KeepaliveEnforcementPolicy(keepalive.EnforcementPolicy{
			MinTime:             c.minPing,
			PermitWithoutStream: true,
		}),
		grpc.KeepaliveParams(keepalive.ServerParameters{
			Time:    c.PingInterval,
			Timeout: c.PingTimeout,
		}),
	}
}

// dialOptions are the grpc.ClientConn options a worker needs: keepalive,
// transport credentials, and logging if there is a Logger.
func (c *Config) dialOptions() []grpc.DialOption {
	o := []grpc.DialOption{
		grpc.WithKeepaliveParams(keepalive.ClientParameters{
			Time:                c.PingInterval,
			Timeout:             c.PingTimeout,
			PermitWithoutStream: true,
		}),
		grpc.WithTransportCredentials(c.clientCreds()),
		// A worker whose coordinator restarts reconnects within about a
		// second rather than gRPC's default backoff (up to 2 minutes),
		// which would outlast its lease.
		grpc.WithConnectParams(grpc.ConnectParams{Backoff: reconnectBackoff, MinConnectTimeout: 5 * time.Second}),
	}
	if c.Logger != nil {
		o = append(o, grpc.WithChainStreamInterceptor(logging.StreamClientInterceptor(slogAdapter(c.Logger))))
	}
	return o
}

// callOptions are the options of every worker stream: the frame codec,
// the size limits and the token, per call, so that they hold on a
// ClientConn the caller built.
func (c *Config) callOptions() []grpc.CallOption {
	o := []grpc.CallOption{
		grpc.CallContentSubtype(codecName),
		grpc.MaxCallRecvMsgSize(c.MaxMessage),
		grpc.MaxCallSendMsgSize(c.MaxMessage),
	}
	if c.Token != "" {
		o = append(o, grpc.PerRPCCredentials(tokenCreds{header: "Bearer " + c.Token, secure: !c.Plaintext}))
	}
	return o
}
