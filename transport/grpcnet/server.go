package grpcnet

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/health"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/syncmodels/syncmodels/transport"
)

// Server is the coordinator's side of the transport: a transport.Transport
// whose only local node is the Coordinator, and a gRPC service that
// workers' streams attach to (one stream per worker; see Client). Messages
// between workers are relayed through it. Create it with NewServer, then
// Register it on a grpc.Server built with ServerOptions, or Serve it on a
// listener.
type Server struct {
	cfg   Config
	stats stats
	done  chan struct{} // closed by Close
	wg    sync.WaitGroup
	guard *guard
	creds credentials.TransportCredentials

	malformed atomic.Int64
	rej       rejections
	job       atomic.Pointer[[]byte] // the job's description; nil or empty: none
	health    *health.Server         // the gRPC health service (Health)

	mu     sync.Mutex
	closed bool
	coord  *coordEndpoint             // the open coordinator endpoint, or nil
	peers  map[transport.NodeID]*peer // workers' open streams
	known  map[transport.NodeID]bool  // every node opened so far
	gs     *grpc.Server               // the server Serve created, if any
	// drained is made by Shutdown, which refuses new streams from then
	// on, and closed when no worker's stream is left.
	drained chan struct{}
}

var _ transport.Transport = (*Server)(nil)

// NewServer returns a coordinator-side transport for cfg, or an error
// wrapping ErrConfig naming the bad field. A server's TLS configuration
// must hold a certificate.
func NewServer(cfg Config) (*Server, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	if t := cfg.TLS; t != nil && len(t.Certificates) == 0 && t.GetCertificate == nil && t.GetConfigForClient == nil {
		return nil, fmt.Errorf("grpcnet: the server's TLS configuration has no certificate: %w", ErrConfig)
	}
	s := &Server{
		cfg:    cfg,
		done:   make(chan struct{}),
		peers:  make(map[transport.NodeID]*peer),
		known:  make(map[transport.NodeID]bool),
		health: newHealth(),
	}
	s.guard = newGuard(s)
	s.creds = s.serverCreds()
	s.setJob(cfg.Job)
	s.cfg.Job = nil // s.job holds it
	return s, nil
}

// SetJob replaces the job's description that Client.Job fetches (see
// Config.Job) with a copy of b; nil or empty removes it, so that fetches
// are answered codes.NotFound. Fetches in progress get the old one or the
// new one. A b longer than MaxMessage is refused with ErrConfig and the
// description is left as it was.
func (s *Server) SetJob(b []byte) error {
	if len(b) > s.cfg.MaxMessage {
		return fmt.Errorf("grpcnet: set job: %d bytes exceed MaxMessage %d: %w", len(b), s.cfg.MaxMessage, ErrConfig)
	}
	s.setJob(b)
	return nil
}

func (s *Server) setJob(b []byte) {
	if len(b) == 0 {
		s.job.Store(nil)
		return
	}
	c := slices.Clone(b)
	s.job.Store(&c)
}

// serveJob answers a job fetch, once the guard has admitted it: one frame,
// the job's description, or codes.NotFound if there is none. The request
// frame is not read: it carries nothing.
func (s *Server) serveJob(ss grpc.ServerStream) error {
	if s.isClosed() {
		return status.Error(codes.Unavailable, "grpcnet: coordinator closed")
	}
	s.mu.Lock()
	down := s.shuttingDown()
	s.mu.Unlock()
	if down {
		return errShuttingDown
	}
	p := s.job.Load()
	if p == nil {
		return status.Error(codes.NotFound, "grpcnet: no job description")
	}
	return ss.SendMsg(&frame{*p})
}

// ServerOptions returns the options a grpc.Server that serves s needs:
// its transport credentials (TLS, counting failed handshakes; or, with
// Plaintext, none, for loopback connections only); message size limits of
// cfg.MaxMessage (gRPC's 4 MiB receive default would refuse larger
// messages); keepalive pings every PingInterval; and a keepalive
// enforcement policy that accepts the pings of every grpc-go client, so
// that no worker is sent away with "too_many_pings".
func (s *Server) ServerOptions() []grpc.ServerOption {
	return append(s.cfg.serverOptions(), grpc.Creds(s.creds))
}

// Register registers the transport's service on r, a server the caller
// owns and built with ServerOptions among its options. The service runs
// every stream through its own interceptors (see the package doc,
// "Security"), so its checks hold whatever r's options are: a stream
// without TLS is refused unless Plaintext, and then unless it is over
// loopback.
func (s *Server) Register(r grpc.ServiceRegistrar) {
	r.RegisterService(serviceDesc(
		s.guard.handler(func(_ any, ss grpc.ServerStream) error { return s.handle(ss) }),
		s.guard.jobHandler(func(_ any, ss grpc.ServerStream) error { return s.serveJob(ss) })), s)
}

// Serve serves s on lis with a grpc.Server of its own, built with
// ServerOptions and then opts (interceptors of the caller's; not
// credentials), until Close or Shutdown or until lis fails; it serves the
// gRPC health service (Health) beside the transport's. It returns nil
// after Close or Shutdown. With Plaintext, a listener that is not on a loopback address (or
// a Unix socket, or in memory) is refused with ErrConfig.
func (s *Server) Serve(lis net.Listener, opts ...grpc.ServerOption) error {
	if s.cfg.Plaintext && !isLocal(lis.Addr()) {
		lis.Close()
		return fmt.Errorf("grpcnet: serve: plaintext on %v refused: listen on a loopback address, or configure TLS: %w", lis.Addr(), ErrConfig)
	}
	gs := grpc.NewServer(append(s.ServerOptions(), opts...)...)
	s.Register(gs)
	s.registerHealth(gs)
	s.mu.Lock()
	if s.closed || s.gs != nil {
		closed := s.closed
		s.mu.Unlock()
		lis.Close()
		if closed {
			return fmt.Errorf("grpcnet: serve: %w", transport.ErrClosed)
		}
		return errors.New("grpcnet: serve: already serving")
	}
	s.gs = gs
	s.mu.Unlock()
	err := gs.Serve(lis)
	if s.isClosed() {
		return nil
	}
	return err
}

// Malformed returns the number of frames refused because they did not
// decode as a message of the layout, were larger than MaxMessage, or named
// a sender other than their stream's worker. Each ends its stream with
// codes.InvalidArgument (codes.ResourceExhausted if too large); nothing it
// carried was delivered. Rejected counts them too.
func (s *Server) Malformed() int64 { return s.malformed.Load() }

// Open opens the Coordinator's endpoint; workers attach by dialling
// (Client.Open), not here. See transport.Transport.
func (s *Server) Open(id transport.NodeID) (transport.Endpoint, error) {
	if id != transport.Coordinator {
		return nil, fmt.Errorf("grpcnet: open %v on the server: only the coordinator is local, workers attach with Client.Open: %w", id, transport.ErrUnknownNode)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.closed:
		return nil, fmt.Errorf("grpcnet: open %v: %w", id, transport.ErrClosed)
	case s.coord != nil:
		return nil, fmt.Errorf("grpcnet: open %v: %w", id, transport.ErrAlreadyOpen)
	}
	s.known[id] = true
	e := &coordEndpoint{s: s, count: s.stats.of(id), in: inbox{limit: s.cfg.Inbox}, done: make(chan struct{})}
	s.coord = e
	return e, nil
}

// Stats returns the counts of the coordinator and of every worker that
// attached, as seen by the coordinator: what the coordinator sent and
// received, and the messages of workers that it dropped (to a node that
// has gone, or never was). A worker's sends and receipts are counted by
// its Client.
func (s *Server) Stats() transport.Stats {
	st := s.stats.snapshot()
	s.mu.Lock()
	for id := range s.known {
		if _, ok := st.Nodes[id]; !ok {
			st.Nodes[id] = transport.NodeStats{}
		}
	}
	s.mu.Unlock()
	return st
}

// Close reports NOT_SERVING (Health), closes the coordinator's endpoint,
// ends every worker's stream at once (codes.Unavailable; Shutdown lets
// them end first), stops the grpc.Server that Serve created and waits
// for every goroutine of the transport. A grpc.Server the caller owns
// keeps running (its other services too); the transport's handlers return.
func (s *Server) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		s.wg.Wait()
		return nil
	}
	s.closed = true
	close(s.done)
	s.health.Shutdown()
	coord, gs := s.coord, s.gs
	s.mu.Unlock()
	if coord != nil {
		coord.Close()
	}
	if gs != nil {
		gs.Stop()
	}
	s.wg.Wait()
	return nil
}

func (s *Server) isClosed() bool {
	select {
	case <-s.done:
		return true
	default:
		return false
	}
}

// peer is a worker's open stream.
type peer struct {
	id    transport.NodeID
	count *counters
	ss    grpc.ServerStream
	out   chan []byte   // frames for the writer
	done  chan struct{} // closed when the stream ends
	wdone chan struct{} // closed when the writer returns
}

// handle serves one worker's stream, once the guard has admitted it.
func (s *Server) handle(ss grpc.ServerStream) error {
	ctx := ss.Context()
	id, err := s.accept(ctx)
	if err != nil {
		s.countAccept(err)
		return err
	}
	s.mu.Lock()
	switch {
	case s.closed:
		s.mu.Unlock()
		return status.Error(codes.Unavailable, "grpcnet: coordinator closed")
	case s.shuttingDown():
		s.mu.Unlock()
		return errShuttingDown
	case s.peers[id] != nil:
		s.mu.Unlock()
		s.rej.attached.Add(1)
		return status.Errorf(codes.AlreadyExists, "grpcnet: %v is already attached", id)
	}
	p := &peer{id: id, count: s.stats.of(id), ss: ss, out: make(chan []byte), done: make(chan struct{}), wdone: make(chan struct{})}
	s.peers[id] = p
	s.known[id] = true
	s.wg.Add(2) // under mu, so that Close's Wait sees it
	s.mu.Unlock()

	// The header tells the worker that it is attached: its Open returns.
	if err := ss.SendHeader(metadata.Pairs(mdGen, strconv.FormatUint(s.cfg.Generation, 10))); err != nil {
		s.detach(p)
		close(p.wdone)
		s.wg.Done()
		s.wg.Done()
		return err
	}
	// The reader ends the stream when it returns, the writer only if it
	// panics (recovered: the stream ends with a plain Internal).
	ended := make(chan error, 2)
	go func() {
		defer s.wg.Done()
		ended <- s.guard.safely(ctx, func() error { return s.read(p) })
	}()
	go func() {
		defer s.wg.Done()
		defer close(p.wdone)
		if err := s.guard.safely(ctx, func() error { s.write(p); return nil }); err != nil {
			ended <- err
		}
	}()
	select {
	case err = <-ended:
	case <-s.done:
		err = status.Error(codes.Unavailable, "grpcnet: coordinator closed")
	}
	s.detach(p)
	// Let the writer finish the frame in progress, unless that takes
	// longer than a Close may (a worker that stopped reading): returning
	// cancels the stream, which unblocks it.
	t := time.NewTimer(s.cfg.CloseTimeout)
	defer t.Stop()
	select {
	case <-p.wdone:
	case <-s.done:
	case <-t.C:
	}
	return err
}

// accept checks a new stream's metadata and returns its worker's ID.
func (s *Server) accept(ctx context.Context) (transport.NodeID, error) {
	md, _ := metadata.FromIncomingContext(ctx)
	n, err := nodeFromMD(md)
	if err != nil {
		return 0, err
	}
	v := md.Get(mdLayout)
	if len(v) != 1 {
		return 0, status.Errorf(codes.InvalidArgument, "grpcnet: stream metadata %q: %d values, want 1", mdLayout, len(v))
	}
	if want := layoutString(s.cfg.Layout); v[0] != want {
		return 0, status.Errorf(codes.FailedPrecondition, "grpcnet: worker %d has layout %s, the coordinator %s", int(n), v[0], want)
	}
	return n, nil
}

// detach removes p from the open streams: messages to it are dropped from
// now on.
func (s *Server) detach(p *peer) {
	s.mu.Lock()
	if s.peers[p.id] == p {
		delete(s.peers, p.id)
		close(p.done)
		if s.drained != nil && len(s.peers) == 0 {
			close(s.drained) // the last stream of a Shutdown ended
		}
	}
	s.mu.Unlock()
}

// read receives p's frames and routes them until the stream ends.
func (s *Server) read(p *peer) error {
	for {
		var f frame
		if err := p.ss.RecvMsg(&f); err != nil {
			if err == io.EOF {
				return nil // the worker closed its endpoint
			}
			return err
		}
		if err := s.receive(p.ss.Context(), p.id, p.count, f.b); err != nil {
			code := codes.InvalidArgument
			if errors.Is(err, transport.ErrTooLarge) {
				code = codes.ResourceExhausted
			}
			return status.Error(code, err.Error())
		}
	}
}

// receive decodes frame b from worker from (whose counters are count) and
// routes it. A frame that does not decode, or names another sender, is
// counted as malformed and delivers nothing.
func (s *Server) receive(ctx context.Context, from transport.NodeID, count *counters, b []byte) error {
	m, err := decodeFrame(b, s.cfg.Layout, s.cfg.MaxMessage, from, anyNode)
	if err != nil {
		s.malformed.Add(1)
		return err
	}
	s.route(ctx, count, m, b)
	return nil
}

// route delivers message m, encoded as b, from a worker (whose counters
// are from): to the coordinator's inbox, or to another worker's stream.
// What cannot be delivered is counted as dropped.
func (s *Server) route(ctx context.Context, from *counters, m *transport.Message, b []byte) {
	if m.To == transport.Coordinator {
		s.mu.Lock()
		e := s.coord
		s.mu.Unlock()
		if e == nil || !e.in.push(ctx, s.done, item{m: m, from: from, size: len(b)}) {
			from.add(dropped, m.Kind, len(b))
		}
		return
	}
	s.mu.Lock()
	p := s.peers[m.To]
	s.mu.Unlock()
	if p == nil || !s.hand(ctx, nil, p, b) {
		from.add(dropped, m.Kind, len(b))
	}
}

// hand hands frame b to p's writer, waiting until ctx or stop is done. It
// reports whether the writer took it.
func (s *Server) hand(ctx context.Context, stop <-chan struct{}, p *peer, b []byte) bool {
	select {
	case p.out <- b:
		return true
	case <-p.done:
	case <-s.done:
	case <-ctx.Done():
	case <-stop:
	}
	return false
}

// write sends the frames handed to p until its stream ends. A frame that
// cannot be sent is counted as dropped, as its sender's.
func (s *Server) write(p *peer) {
	for {
		select {
		case b := <-p.out:
			if err := p.ss.SendMsg(&frame{b}); err != nil {
				s.dropFrame(b)
			}
		case <-p.done:
			return
		}
	}
}

// dropFrame counts frame b, which was valid, as dropped by its sender.
func (s *Server) dropFrame(b []byte) {
	if m, err := transport.Unmarshal(b, s.cfg.Layout); err == nil {
		s.stats.of(m.From).add(dropped, m.Kind, len(b))
	}
}

// coordEndpoint is the coordinator's endpoint.
type coordEndpoint struct {
	s     *Server
	count *counters
	in    inbox
	done  chan struct{}
	once  sync.Once
}

var _ transport.Endpoint = (*coordEndpoint)(nil)

func (e *coordEndpoint) ID() transport.NodeID { return transport.Coordinator }

// Send sends m to its worker's stream, or to the coordinator itself. See
// transport.Endpoint.
func (e *coordEndpoint) Send(ctx context.Context, m *transport.Message) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if e.isClosed() {
		return fmt.Errorf("grpcnet: coordinator: send %v to %v: %w", m.Kind, m.To, transport.ErrClosed)
	}
	mm, b, err := encode(&e.s.cfg, transport.Coordinator, m)
	if err != nil {
		return err
	}
	s := e.s
	if mm.To == transport.Coordinator {
		d, err := transport.Unmarshal(b, s.cfg.Layout) // the receiver's own copy
		if err != nil {
			return fmt.Errorf("grpcnet: coordinator: send: %w", err) // unreachable after encode
		}
		if !e.in.push(ctx, e.done, item{m: d, from: e.count, size: len(b)}) {
			if err := ctx.Err(); err != nil {
				return err
			}
			if e.isClosed() {
				return fmt.Errorf("grpcnet: coordinator: send %v to %v: %w", mm.Kind, mm.To, transport.ErrClosed)
			}
		}
		e.count.add(sent, mm.Kind, len(b))
		return nil
	}
	s.mu.Lock()
	p, known := s.peers[mm.To], s.known[mm.To]
	s.mu.Unlock()
	if !known {
		return fmt.Errorf("grpcnet: coordinator: send %v to %v: %w", mm.Kind, mm.To, transport.ErrUnknownNode)
	}
	if p == nil {
		e.count.add(sent, mm.Kind, len(b))
		e.count.add(dropped, mm.Kind, len(b))
		return nil
	}
	if !s.hand(ctx, e.done, p, b) {
		if err := ctx.Err(); err != nil {
			return err
		}
		if e.isClosed() {
			return fmt.Errorf("grpcnet: coordinator: send %v to %v: %w", mm.Kind, mm.To, transport.ErrClosed)
		}
		e.count.add(dropped, mm.Kind, len(b)) // the worker went away meanwhile
	}
	e.count.add(sent, mm.Kind, len(b))
	return nil
}

// Recv returns the next message for the coordinator. See
// transport.Endpoint.
func (e *coordEndpoint) Recv(ctx context.Context) (*transport.Message, error) {
	it, ok, err := e.in.pop(ctx)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("grpcnet: coordinator: recv: %w", transport.ErrClosed)
	}
	e.count.add(received, it.m.Kind, it.size)
	return it.m, nil
}

// Close closes the coordinator's endpoint; workers' messages to it are
// dropped until it is opened again.
func (e *coordEndpoint) Close() error {
	e.once.Do(func() {
		e.s.mu.Lock()
		if e.s.coord == e {
			e.s.coord = nil
		}
		e.s.mu.Unlock()
		close(e.done)
		e.in.close()
	})
	return nil
}

func (e *coordEndpoint) isClosed() bool {
	select {
	case <-e.done:
		return true
	default:
		return false
	}
}
