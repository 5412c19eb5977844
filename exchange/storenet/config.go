package storenet

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/syncmodels/syncmodels/algorithms"
	"github.com/syncmodels/syncmodels/exchange"
	"github.com/syncmodels/syncmodels/exchange/redisx"
)

// Defaults of Config.
const (
	// DefaultMaxMessage is the default size limit of an encoded message:
	// the exchange's default value limit (64 MiB).
	DefaultMaxMessage = exchange.DefaultMaxValue
	// DefaultInline is the largest message a note holds itself; a larger
	// one goes to a blob (16 KiB, exchange.DefaultInline).
	DefaultInline = exchange.DefaultInline
	// DefaultBatch is how many notes one Read fetches.
	DefaultBatch = 64
	// DefaultBackoff is the first wait after the store was unreachable;
	// it doubles up to MaxBackoff.
	DefaultBackoff = 5 * time.Millisecond
	// MaxBackoff bounds the wait between attempts to reach the store.
	MaxBackoff = 500 * time.Millisecond
	// DefaultOpenTimeout bounds Open's store calls.
	DefaultOpenTimeout = 30 * time.Second
)

// ErrConfig reports an invalid Config.
var ErrConfig = errors.New("storenet: invalid config")

// Dial connects one store client: each endpoint has its own, as each
// serverless worker has its own connection, and adopts and recovers its
// epoch on its own. Every client of a Network must reach the same
// namespace.
type Dial func(ctx context.Context) (exchange.Store, error)

// Config configures a Network.
type Config struct {
	// Layout is the layout of the job's parameters and deltas; messages
	// are validated against it on Send and decoded with it on Recv.
	Layout algorithms.Layout
	// Dial connects a store client for each endpoint. Required.
	Dial Dial
	// MaxMessage is the largest encoded message Send accepts. Default
	// DefaultMaxMessage. The store's own limit (exchange.Limits.MaxValue)
	// also applies, to the note or the blob.
	MaxMessage int
	// Inline is the largest encoded message a note holds itself; a larger
	// one goes to a blob under a key of its own and the note holds only
	// the key, its size and checksum (MLLess §3.1; the P2P paper's S3
	// objects). 0 means DefaultInline; −1 puts every message in a blob.
	Inline int
	// Batch is how many notes one Read fetches. Default DefaultBatch.
	Batch int
	// Backoff is the first wait after the store could not be reached;
	// later waits double, up to MaxBackoff. Default DefaultBackoff.
	Backoff time.Duration
	// OpenTimeout bounds the store calls of Open (connecting, registering
	// the node). Default DefaultOpenTimeout.
	OpenTimeout time.Duration
	// OnLoss, if set, is called with every loss an endpoint detects (see
	// Loss), from the endpoint's goroutine: keep it short. Network.Losses
	// lists them too.
	OnLoss func(Loss)
}

// validate fills in defaults and checks every field.
func (c *Config) validate() error {
	l := c.Layout
	switch {
	case l.Params < 0 || l.Delta < 0 || l.Block < 0 || l.Params > math.MaxInt32 || l.Delta > math.MaxInt32:
		return fmt.Errorf("storenet: layout %+v: lengths must be in [0, 2^31-1]: %w", l, ErrConfig)
	case c.Dial == nil:
		return fmt.Errorf("storenet: Config.Dial is nil (want MemoryDial, RedisDial or ParseExchange's): %w", ErrConfig)
	case c.MaxMessage < 0:
		return fmt.Errorf("storenet: Config.MaxMessage %d is negative: %w", c.MaxMessage, ErrConfig)
	case c.Inline < -1:
		return fmt.Errorf("storenet: Config.Inline %d, want ≥ −1: %w", c.Inline, ErrConfig)
	case c.Batch < 0:
		return fmt.Errorf("storenet: Config.Batch %d is negative: %w", c.Batch, ErrConfig)
	case c.Backoff < 0:
		return fmt.Errorf("storenet: Config.Backoff %v is negative: %w", c.Backoff, ErrConfig)
	case c.OpenTimeout < 0:
		return fmt.Errorf("storenet: Config.OpenTimeout %v is negative: %w", c.OpenTimeout, ErrConfig)
	}
	if c.MaxMessage == 0 {
		c.MaxMessage = DefaultMaxMessage
	}
	if c.Inline == 0 {
		c.Inline = DefaultInline
	}
	if c.Batch == 0 {
		c.Batch = DefaultBatch
	}
	if c.Backoff == 0 {
		c.Backoff = DefaultBackoff
	}
	if c.OpenTimeout == 0 {
		c.OpenTimeout = DefaultOpenTimeout
	}
	return nil
}

// MemoryDial returns a Dial of clients of namespace ns of the in-process
// store m, with limits l (zero fields: the defaults).
func MemoryDial(m *exchange.Memory, ns string, l exchange.Limits) Dial {
	return func(context.Context) (exchange.Store, error) { return m.Open(ns, l) }
}

// RedisDial returns a Dial of clients of the Redis server at url
// (redis://HOST:PORT), configured by cfg (its Namespace is the job's).
//
// The clients fail fast when the server is down: one dial attempt, no
// retry of a command (go-redis's defaults, 5 dial attempts 100 ms apart
// and 3 retries, make a call to a server that is down take about 2 s).
// A transport may drop a message, and the protocol above resends it; a
// Send that stalls for seconds instead stalls its sender past its lease.
// The endpoint backs off instead (Config.Backoff). The pool may hold up
// to 100 connections: go-redis opens its circuit breaker (one dial a
// second) after as many failed dials as the pool's size, counted over
// the client's life. cfg.Options, if set, runs after and may undo this.
func RedisDial(url string, cfg redisx.Config) Dial {
	user := cfg.Options
	cfg.Options = func(o *redis.Options) {
		o.DialerRetries = 1
		o.MaxRetries = -1
		o.PoolSize = max(o.PoolSize, 100)
		if user != nil {
			user(o)
		}
	}
	return func(ctx context.Context) (exchange.Store, error) { return redisx.Open(ctx, url, cfg) }
}

// ParseExchange returns the Dial an -exchange flag names: "" or "memory"
// for a new in-process store (exchange.Memory, namespace ns), or
// redis://HOST:PORT (rediss:// for TLS) for a Redis server, namespace ns.
// It does not connect.
func ParseExchange(spec, ns string) (Dial, error) {
	if err := exchange.CheckName("namespace", ns); err != nil {
		return nil, fmt.Errorf("storenet: %v: %w", err, ErrConfig)
	}
	switch {
	case spec == "" || spec == "memory":
		return MemoryDial(exchange.NewMemory(), ns, exchange.Limits{}), nil
	case strings.HasPrefix(spec, "redis://") || strings.HasPrefix(spec, "rediss://"):
		return RedisDial(spec, redisx.Config{Namespace: ns}), nil
	}
	return nil, fmt.Errorf("storenet: exchange %q: want memory or redis://HOST:PORT: %w", spec, ErrConfig)
}
