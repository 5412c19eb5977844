package grpcnet

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/syncmodels/syncmodels/transport"
)

// Client is the workers' side of the transport: a transport.Transport whose
// nodes are workers, each attached to the coordinator's Server by a stream
// of its own on one gRPC connection. Create it with Dial, or with
// NewClient on a connection the caller owns.
type Client struct {
	cfg   Config
	cc    grpc.ClientConnInterface
	own   *grpc.ClientConn // closed by Close; nil for NewClient
	stats stats
	wg    sync.WaitGroup

	malformed atomic.Int64

	mu     sync.Mutex
	closed bool
	eps    map[transport.NodeID]*workerEndpoint
}

var _ transport.Transport = (*Client)(nil)

// DialOptions returns the options a grpc.ClientConn to the coordinator
// needs for cfg: keepalive pings every PingInterval (which the Server's
// enforcement policy accepts), transport credentials (TLS with cfg.TLS;
// or, with Plaintext, none, for loopback connections only), and, with a
// Logger, the logging interceptor. The token is sent per stream, so it
// needs no option.
func (c Config) DialOptions() ([]grpc.DialOption, error) {
	if err := c.validate(); err != nil {
		return nil, err
	}
	return c.dialOptions(), nil
}

// Dial returns a client whose workers attach to the coordinator at target
// over a connection of its own, built with cfg.DialOptions and then opts
// (a dialer, interceptors; not transport credentials, which would replace
// cfg's). The connection is made lazily, at the first Open.
func Dial(target string, cfg Config, opts ...grpc.DialOption) (*Client, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	conn, err := grpc.NewClient(target, append(cfg.dialOptions(), opts...)...)
	if err != nil {
		return nil, fmt.Errorf("grpcnet: dial %s: %w", target, err)
	}
	c := newClient(conn, cfg)
	c.own = conn
	return c, nil
}

// NewClient returns a client whose workers attach over cc, which the caller
// owns (and closes after Close); build it with cfg.DialOptions among its
// options. Every stream sends cfg.Token; unless cfg.Plaintext, only over
// a connection with TLS.
func NewClient(cc grpc.ClientConnInterface, cfg Config) (*Client, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	return newClient(cc, cfg), nil
}

func newClient(cc grpc.ClientConnInterface, cfg Config) *Client {
	return &Client{cfg: cfg, cc: cc, eps: make(map[transport.NodeID]*workerEndpoint)}
}

// Malformed returns the number of frames from the coordinator that were
// refused (not a message of the layout, too large, or addressed to
// another node); each closes its endpoint.
func (c *Client) Malformed() int64 { return c.malformed.Load() }

// Open attaches worker id: it opens a stream to the coordinator and returns
// once the coordinator has accepted it (within OpenTimeout). The
// coordinator refuses a worker that is attached already
// (transport.ErrAlreadyOpen) and one with another layout. See
// transport.Transport.
func (c *Client) Open(id transport.NodeID) (transport.Endpoint, error) {
	if id < 0 || id > transport.MaxNode {
		return nil, fmt.Errorf("grpcnet: open node %d: not a worker ID (the client opens workers only): %w", int(id), transport.ErrUnknownNode)
	}
	c.mu.Lock()
	switch {
	case c.closed:
		c.mu.Unlock()
		return nil, fmt.Errorf("grpcnet: open %v: %w", id, transport.ErrClosed)
	case c.eps[id] != nil:
		c.mu.Unlock()
		return nil, fmt.Errorf("grpcnet: open %v: %w", id, transport.ErrAlreadyOpen)
	}
	e := &workerEndpoint{
		c:     c,
		id:    id,
		count: c.stats.of(id),
		in:    inbox{limit: c.cfg.Inbox},
		out:   make(chan []byte),
		done:  make(chan struct{}),
		rdone: make(chan struct{}),
		wdone: make(chan struct{}),
	}
	c.eps[id] = e // reserved while the stream opens
	c.mu.Unlock()

	if err := e.open(); err != nil {
		c.forget(e)
		return nil, err
	}
	c.mu.Lock()
	if c.closed { // Close ran meanwhile and missed e
		c.mu.Unlock()
		e.cancel()
		c.forget(e)
		return nil, fmt.Errorf("grpcnet: open %v: %w", id, transport.ErrClosed)
	}
	e.ready = true
	c.wg.Add(2)
	c.mu.Unlock()
	go func() {
		defer c.wg.Done()
		defer close(e.rdone)
		e.safely(e.read)
	}()
	go func() {
		defer c.wg.Done()
		defer close(e.wdone)
		e.safely(e.write)
	}()
	return e, nil
}

// ErrNoJob reports that the coordinator has no job description
// (codes.NotFound): its Server has no Config.Job, or SetJob removed it.
var ErrNoJob = errors.New("grpcnet: no job description")

// Job fetches the job's description from the coordinator (Config.Job of
// its Server): one call over the client's connection, with the client's
// credentials, that passes the same checks as a worker's stream (see the
// package doc, "Job description") but names no worker and attaches none.
// It retries nothing: a coordinator that cannot be reached fails it at once
// (codes.Unavailable, gRPC's fail-fast), and the caller decides whether to
// call again; while the connection is being made it waits, until ctx is
// done. Errors start with "grpcnet: job:" and keep the gRPC status
// (status.Code finds it); one wraps ErrNoJob if the coordinator has none,
// ctx's error if ctx ended, and transport.ErrClosed after Close.
func (c *Client) Job(ctx context.Context) ([]byte, error) {
	c.mu.Lock()
	closed := c.closed
	c.mu.Unlock()
	if closed {
		return nil, fmt.Errorf("grpcnet: job: %w", transport.ErrClosed)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel() // ends the call if it has not ended
	fail := func(err error) ([]byte, error) {
		switch {
		case status.Code(err) == codes.NotFound:
			return nil, fmt.Errorf("grpcnet: job: %w: %w", err, ErrNoJob)
		case c.isClosed(): // Close closed the connection meanwhile
			return nil, fmt.Errorf("grpcnet: job: %w: %w", err, transport.ErrClosed)
		case ctx.Err() != nil: // the caller's ctx ended (cancel has not run yet)
			return nil, fmt.Errorf("grpcnet: job: %w: %w", err, ctx.Err())
		}
		return nil, fmt.Errorf("grpcnet: job: %w", err)
	}
	s, err := c.cc.NewStream(ctx, jobStreamDesc, fullJobMethod, c.cfg.callOptions()...)
	if err != nil {
		return fail(err)
	}
	// One empty request frame; the coordinator may have answered
	// already (io.EOF: RecvMsg tells how).
	if err := s.SendMsg(&frame{}); err != nil && err != io.EOF {
		return fail(err)
	}
	var f frame
	if err := s.RecvMsg(&f); err != nil {
		if err == io.EOF {
			err = errors.New("the coordinator sent no description")
		}
		return fail(err)
	}
	if err := s.RecvMsg(&frame{}); err != io.EOF {
		if err == nil {
			err = errors.New("the coordinator sent more than one frame")
		}
		return fail(err)
	}
	return f.b, nil
}

func (c *Client) isClosed() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.closed
}

// forget removes e from the open endpoints, so that its ID can be opened
// again.
func (c *Client) forget(e *workerEndpoint) {
	c.mu.Lock()
	if c.eps[e.id] == e {
		delete(c.eps, e.id)
	}
	c.mu.Unlock()
}

// Stats returns the counts of this client's workers, and of the messages
// to them that were dropped on arrival (counted as their senders'). See
// transport.Transport.
func (c *Client) Stats() transport.Stats { return c.stats.snapshot() }

// Close closes every worker's endpoint, then the connection if Dial made
// it, and waits for every goroutine of the client.
func (c *Client) Close() error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		c.wg.Wait()
		return nil
	}
	c.closed = true
	eps := make([]*workerEndpoint, 0, len(c.eps))
	for _, e := range c.eps {
		if e.ready {
			eps = append(eps, e)
		}
	}
	c.mu.Unlock()
	var wg sync.WaitGroup
	for _, e := range eps {
		wg.Go(func() { e.Close() })
	}
	wg.Wait()
	var err error
	if c.own != nil {
		if err = c.own.Close(); err != nil {
			err = fmt.Errorf("grpcnet: close connection: %w", err)
		}
	}
	c.wg.Wait()
	return err
}

// workerEndpoint is a worker's endpoint: its stream to the coordinator.
type workerEndpoint struct {
	c      *Client
	id     transport.NodeID
	count  *counters
	in     inbox
	stream grpc.ClientStream
	cancel context.CancelFunc
	ready  bool // the stream is open and served; guarded by Client.mu

	out   chan []byte   // frames for the writer
	done  chan struct{} // closed by Close, or when the stream ends
	rdone chan struct{} // closed when the reader returns
	wdone chan struct{} // closed when the writer returns

	once  sync.Once
	cause atomic.Pointer[error] // why the stream ended, if not by Close
	gen   uint64                // the coordinator's generation (its header)
}

var _ transport.Endpoint = (*workerEndpoint)(nil)

// Generation returns the generation the coordinator announced when it
// accepted the stream (Config.Generation; 0 from a coordinator that
// announces none). The endpoints Client.Open returns have this method.
func (e *workerEndpoint) Generation() uint64 { return e.gen }

// open opens the stream and waits for the coordinator's header.
func (e *workerEndpoint) open() error {
	ctx, cancel := context.WithCancel(context.Background())
	ctx = metadata.NewOutgoingContext(ctx, metadata.Pairs(
		mdNode, strconv.Itoa(int(e.id)),
		mdLayout, layoutString(e.c.cfg.Layout)))
	var timedOut atomic.Bool
	t := time.AfterFunc(e.c.cfg.OpenTimeout, func() { timedOut.Store(true); cancel() })
	fail := func(err error) error {
		t.Stop()
		cancel()
		if timedOut.Load() {
			return fmt.Errorf("grpcnet: open %v: the coordinator did not accept the stream within %v: %w", e.id, e.c.cfg.OpenTimeout, err)
		}
		if status.Code(err) == codes.AlreadyExists {
			return fmt.Errorf("grpcnet: open %v: %w: %w", e.id, err, transport.ErrAlreadyOpen)
		}
		return fmt.Errorf("grpcnet: open %v: %w", e.id, err)
	}
	s, err := e.c.cc.NewStream(ctx, streamDesc, fullMethod, e.c.cfg.callOptions()...)
	if err != nil {
		return fail(err)
	}
	md, err := s.Header()
	if err == nil && md == nil { // ended without a header: the status says why
		if err = s.RecvMsg(&frame{}); err == nil || err == io.EOF {
			err = errors.New("the coordinator ended the stream")
		}
	}
	if err != nil {
		return fail(err)
	}
	if !t.Stop() { // the timer fired after all and cancelled the stream
		return fail(context.Canceled)
	}
	if v := md.Get(mdGen); len(v) == 1 {
		g, err := strconv.ParseUint(v[0], 10, 64)
		if err != nil {
			return fail(fmt.Errorf("the coordinator's generation %q: %w", v[0], err))
		}
		e.gen = g
	}
	e.stream, e.cancel = s, cancel
	return nil
}

func (e *workerEndpoint) ID() transport.NodeID { return e.id }

// closedErr is the error of a call on a closed endpoint, with the cause if
// the stream ended by itself.
func (e *workerEndpoint) closedErr(op string) error {
	if p := e.cause.Load(); p != nil {
		return fmt.Errorf("grpcnet: %v: %s: stream to the coordinator ended (%v): %w", e.id, op, *p, transport.ErrClosed)
	}
	return fmt.Errorf("grpcnet: %v: %s: %w", e.id, op, transport.ErrClosed)
}

// Send hands m to the stream; messages to other workers are relayed by the
// coordinator, which drops (and counts) those to workers that are not
// attached. See transport.Endpoint.
func (e *workerEndpoint) Send(ctx context.Context, m *transport.Message) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if e.isClosed() {
		return e.closedErr(fmt.Sprintf("send %v to %v", m.Kind, m.To))
	}
	mm, b, err := encode(&e.c.cfg, e.id, m)
	if err != nil {
		return err
	}
	select {
	case e.out <- b:
		e.count.add(sent, mm.Kind, len(b))
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-e.done:
		return e.closedErr(fmt.Sprintf("send %v to %v", mm.Kind, mm.To))
	}
}

// Recv returns the next message for the worker. See transport.Endpoint.
func (e *workerEndpoint) Recv(ctx context.Context) (*transport.Message, error) {
	it, ok, err := e.in.pop(ctx)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, e.closedErr("recv")
	}
	e.count.add(received, it.m.Kind, it.size)
	return it.m, nil
}

// Close ends the worker's stream: it half-closes it and waits (up to
// CloseTimeout) for the coordinator to end it too, so that the coordinator
// has detached the worker when Close returns and the ID can be opened
// again at once. Messages queued for the worker are dropped.
func (e *workerEndpoint) Close() error {
	e.shut(nil)
	t := time.NewTimer(e.c.cfg.CloseTimeout)
	select {
	case <-e.rdone:
	case <-t.C:
	}
	t.Stop()
	e.cancel()
	<-e.rdone
	<-e.wdone
	e.c.forget(e)
	return nil
}

// shut closes the endpoint for its callers; cause is why the stream ended,
// nil for Close.
func (e *workerEndpoint) shut(cause error) {
	e.once.Do(func() {
		if cause != nil {
			e.cause.Store(&cause)
		}
		close(e.done)
		e.in.close()
	})
}

func (e *workerEndpoint) isClosed() bool {
	select {
	case <-e.done:
		return true
	default:
		return false
	}
}

// safely runs f, a goroutine of the endpoint, and ends the stream if it
// panics (in a Logger the caller gave, say), instead of the process.
func (e *workerEndpoint) safely(f func()) {
	defer func() {
		if p := recover(); p != nil {
			e.shut(fmt.Errorf("grpcnet: recovered from a panic: %v", p))
			e.cancel()
			e.c.forget(e)
		}
	}()
	f()
}

// read receives frames until the stream ends. After Close it drops them
// (the inbox is closed) until the coordinator ends the stream.
func (e *workerEndpoint) read() {
	ctx := e.stream.Context()
	for {
		var f frame
		err := e.stream.RecvMsg(&f)
		if err != nil {
			if err == io.EOF {
				err = errors.New("the coordinator ended the stream")
			}
			e.shut(err)
			e.cancel()
			e.c.forget(e)
			return
		}
		m, err := decodeFrame(f.b, e.c.cfg.Layout, e.c.cfg.MaxMessage, anyNode, e.id)
		if err != nil {
			e.c.malformed.Add(1)
			e.shut(err)
			e.cancel()
			e.c.forget(e)
			return
		}
		from := e.c.stats.of(m.From)
		if !e.in.push(ctx, e.done, item{m: m, from: from, size: len(f.b)}) {
			from.add(dropped, m.Kind, len(f.b))
		}
	}
}

// write sends the frames handed to it until the endpoint closes, then
// half-closes the stream.
func (e *workerEndpoint) write() {
	for {
		select {
		case b := <-e.out:
			if err := e.stream.SendMsg(&frame{b}); err != nil {
				// The stream is broken (the reader sees why); the frame
				// is lost.
				e.count.add(dropped, transport.Kind(b[1]), len(b))
			}
		case <-e.done:
			e.stream.CloseSend()
			return
		}
	}
}
