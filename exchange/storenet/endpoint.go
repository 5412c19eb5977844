package storenet

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/syncmodels/syncmodels/exchange"
	"github.com/syncmodels/syncmodels/transport"
)

// endpoint is a node's open attachment, with its own store client.
type endpoint struct {
	net   *Network
	node  *node
	store exchange.Store
	topic string // the inbox
	token string // names the endpoint's blobs and its open marker
	blobs atomic.Uint64
	done  chan struct{} // closed by Close
	once  sync.Once

	// rw orders the client's epoch: Send's store calls hold it for
	// reading, recover for writing, so that the epoch a Send records its
	// note in is the one the note went to. (Recv's Read, which may block
	// for long, checks the epoch after the call instead.)
	rw sync.RWMutex
	// cause is the loss recover last recovered from; guarded by rw.
	cause error
	// unregistered: recover adopted a new epoch but could not register
	// the node in it yet.
	unregistered atomic.Bool

	// The store's health as this endpoint last found it: after a call
	// failed for want of the store, no call is made until downUntil
	// (Send drops at once, Recv waits), and each failure in a row
	// doubles the wait, from Config.Backoff to MaxBackoff. So an outage
	// costs each endpoint a few probes a second rather than one per
	// message: a client's dial errors trip go-redis's circuit breaker,
	// which then probes once a second.
	hmu       sync.Mutex
	fails     int
	downUntil time.Time
	lastErr   error

	// Recv's state, guarded by rmu: the epoch the inbox is read in, the
	// last note fetched (pos) and the last note handled (cursor), and the
	// notes fetched but not yet handled.
	rmu    sync.Mutex
	repoch string
	pos    uint64
	cursor uint64
	buf    []exchange.Note
}

var _ transport.Endpoint = (*endpoint)(nil)

func (e *endpoint) ID() transport.NodeID { return e.node.id }

func (e *endpoint) isClosed() bool {
	select {
	case <-e.done:
		return true
	default:
		return false
	}
}

// failed records a call that failed for want of the store and returns
// how long to wait before the next.
func (e *endpoint) failed(err error) time.Duration {
	e.hmu.Lock()
	defer e.hmu.Unlock()
	d := e.net.cfg.Backoff
	for i := 0; i < e.fails && d < MaxBackoff; i++ {
		d *= 2
	}
	d = min(d, MaxBackoff)
	e.fails++
	e.downUntil, e.lastErr = time.Now().Add(d), err
	return d
}

// healthy records a call that reached the store.
func (e *endpoint) healthy() {
	e.hmu.Lock()
	e.fails, e.downUntil, e.lastErr = 0, time.Time{}, nil
	e.hmu.Unlock()
}

// down returns how long the endpoint still waits for the store, and the
// error that made it wait.
func (e *endpoint) down() (time.Duration, error) {
	e.hmu.Lock()
	defer e.hmu.Unlock()
	return time.Until(e.downUntil), e.lastErr
}

// Send encodes m and appends it to the inbox of m.To (through a blob if
// it is larger than Config.Inline). See transport.Endpoint. A store that
// cannot be reached drops the message (a Loss of kind Unsent); a store
// that lost its data is recovered from and the message appended in the
// new epoch (the epoch check made the first attempt write nothing).
func (e *endpoint) Send(ctx context.Context, m *transport.Message) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	n := e.net
	mm := *m
	mm.From = e.node.id
	fail := func(err error) error {
		return fmt.Errorf("storenet: %v: send %v to %v: %w", mm.From, mm.Kind, mm.To, err)
	}
	if e.isClosed() {
		return fail(transport.ErrClosed)
	}
	if err := mm.Validate(n.cfg.Layout); err != nil {
		return fmt.Errorf("storenet: %v: send: %w", mm.From, err)
	}
	if limit := n.cfg.MaxMessage; mm.MaxSize() > limit {
		if size := mm.Size(); size > limit {
			return fail(fmt.Errorf("%d bytes exceed the limit of %d: %w", size, limit, transport.ErrTooLarge))
		}
	}
	b, err := mm.AppendBinary(nil)
	if err != nil {
		return fmt.Errorf("storenet: %v: send: %w", mm.From, err) // unreachable after Validate
	}
	ent := entry{from: mm.From, kind: mm.Kind, size: len(b)}
	c := &e.node.count

	// The destination: a node closed here loses the message at once; one
	// never seen must be registered in the store.
	n.mu.Lock()
	dst, known := n.nodes[mm.To], n.known[mm.To]
	localClosed := dst != nil && dst.inbox != nil && dst.ep == nil
	n.mu.Unlock()
	if localClosed {
		c.add(sent, mm.Kind, 1, len(b))
		c.add(dropped, mm.Kind, 1, len(b))
		return nil
	}
	if wait, err := e.down(); wait > 0 {
		return e.unsent(&mm, len(b), fmt.Errorf("the store was unreachable (next try in %v): %w", wait.Round(time.Millisecond), err))
	}
	if !known {
		ok, err := e.registered(ctx, mm.To)
		switch {
		case ctxError(ctx, err) != nil:
			return ctxError(ctx, err)
		case errors.Is(err, exchange.ErrClosed):
			return fail(transport.ErrClosed)
		case err != nil:
			if errors.Is(err, exchange.ErrUnavailable) {
				e.failed(err)
			}
			return e.unsent(&mm, len(b), err)
		case !ok:
			return fail(transport.ErrUnknownNode)
		}
	}

	for attempt := 0; ; attempt++ {
		e.rw.RLock()
		epoch := e.store.Epoch()
		seq, err := e.append(ctx, mm.To, b)
		e.rw.RUnlock()
		switch {
		case err == nil:
			e.healthy()
			c.add(sent, mm.Kind, 1, len(b))
			n.mu.Lock()
			n.recordSent(mm.To, epoch, seq, ent)
			n.mu.Unlock()
			return nil
		case ctxError(ctx, err) != nil:
			return ctxError(ctx, err)
		case errors.Is(err, exchange.ErrClosed):
			return fail(transport.ErrClosed)
		case errors.Is(err, exchange.ErrTooLarge):
			return fail(fmt.Errorf("%w: %w", err, transport.ErrTooLarge))
		case errors.Is(err, exchange.ErrLost) && attempt < 3:
			if rerr := e.recover(ctx, epoch, err); rerr != nil {
				if errors.Is(rerr, exchange.ErrUnavailable) {
					e.failed(rerr)
				}
				return e.unsent(&mm, len(b), rerr)
			}
		default:
			if errors.Is(err, exchange.ErrUnavailable) {
				e.failed(err)
			}
			return e.unsent(&mm, len(b), err)
		}
	}
}

// unsent drops a message Send could not hand to the store and reports it.
// It returns ctx's error if that is the cause, else nil (a loss, as on a
// network).
func (e *endpoint) unsent(m *transport.Message, size int, err error) error {
	c := &e.node.count
	c.add(sent, m.Kind, 1, size)
	c.add(dropped, m.Kind, 1, size)
	var k transport.ByKind
	k[m.Kind] = transport.Counter{Messages: 1, Bytes: int64(size)}
	e.net.loss(Loss{Kind: Unsent, Node: e.node.id, Epoch: e.store.Epoch(), Messages: k,
		Err: fmt.Errorf("%v to %v: %w", m.Kind, m.To, err)})
	return nil
}

// registered reports whether node id is registered in the store (opened
// in its epoch), and remembers it if so.
func (e *endpoint) registered(ctx context.Context, id transport.NodeID) (bool, error) {
	for attempt := 0; ; attempt++ {
		e.rw.RLock()
		epoch := e.store.Epoch()
		v, err := e.store.Get(ctx, nodeKey(id))
		e.rw.RUnlock()
		e.net.count(err, 0, len(v))
		switch {
		case err == nil:
			e.net.mu.Lock()
			e.net.known[id] = true
			e.net.mu.Unlock()
			return true, nil
		case errors.Is(err, exchange.ErrNotFound):
			return false, nil
		case errors.Is(err, exchange.ErrLost) && attempt < 3:
			if err := e.recover(ctx, epoch, err); err != nil {
				return false, err
			}
		default:
			return false, err
		}
	}
}

// append writes encoding b to to's inbox, through a blob if it is large,
// and returns the note's number. e.rw is held for reading.
func (e *endpoint) append(ctx context.Context, to transport.NodeID, b []byte) (uint64, error) {
	n := e.net
	topic := inboxTopic(to)
	if n.cfg.Inline >= 0 && len(b) <= n.cfg.Inline {
		note := messageNote(b)
		seq, err := e.store.Append(ctx, topic, note)
		return seq, n.count(err, len(note), 0)
	}
	key := blobKey(to, e.token, e.blobs.Add(1))
	if err := n.count(e.store.Put(ctx, key, b), len(b), 0); err != nil {
		return 0, err
	}
	note := blobNote(key, b)
	seq, err := e.store.Append(ctx, topic, note)
	if err = n.count(err, len(note), 0); err != nil && !errors.Is(err, exchange.ErrLost) {
		_ = n.count(e.store.Delete(context.WithoutCancel(ctx), key), 0, 0) // best effort: nobody will read it
	}
	return seq, err
}

// recover adopts the store's new epoch after err (an *exchange.EpochError)
// refused a call made in epoch seen, unless another call of this endpoint
// already did, and registers the node in it. The notes of the old epoch
// are gone: Recv notices the epoch change and reports them (a Loss of
// kind Restart).
func (e *endpoint) recover(ctx context.Context, seen string, err error) error {
	e.rw.Lock()
	defer e.rw.Unlock()
	if e.store.Epoch() != seen {
		return nil
	}
	if _, rerr := e.store.Recover(ctx); e.net.count(rerr, 0, 0) != nil {
		return rerr
	}
	e.cause = err
	e.unregistered.Store(true)
	e.register(ctx)
	return nil
}

// register writes the node's key in the store's current epoch, if a
// recovery left it unwritten. e.rw is held (either way).
func (e *endpoint) register(ctx context.Context) {
	if !e.unregistered.Load() {
		return
	}
	if e.net.count(e.store.Put(ctx, nodeKey(e.node.id), []byte(e.token)), len(e.token), 0) == nil {
		e.unregistered.Store(false)
	}
}

// Recv returns the next message of the inbox. See transport.Endpoint. It
// survives the store's faults: it waits for a store that cannot be
// reached, and reports (Loss) and goes past notes lost to a restart, to
// the inbox's cap or to a blob that is gone.
func (e *endpoint) Recv(ctx context.Context) (*transport.Message, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	e.rmu.Lock()
	defer e.rmu.Unlock()
	closed := func() error { return fmt.Errorf("storenet: %v: recv: %w", e.node.id, transport.ErrClosed) }
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if e.isClosed() {
			return nil, closed()
		}
		if len(e.buf) > 0 {
			m, err := e.handle(ctx, e.buf[0])
			if err != nil { // the context or Close: the note stays first
				if errors.Is(err, exchange.ErrClosed) {
					return nil, closed()
				}
				return nil, err
			}
			e.buf = e.buf[1:]
			if m != nil {
				return m, nil
			}
			continue
		}
		if wait, _ := e.down(); wait > 0 {
			if err := e.sleep(ctx, wait); err != nil {
				if errors.Is(err, transport.ErrClosed) {
					return nil, closed()
				}
				return nil, err
			}
		}
		epoch := e.store.Epoch()
		if epoch != e.repoch {
			e.rw.RLock()
			cause := e.cause
			e.rw.RUnlock()
			e.newEpoch(epoch, cause)
			continue
		}
		e.rw.RLock()
		e.register(ctx)
		e.rw.RUnlock()
		// The Read holds no lock: it may block until a note arrives, and
		// a recover must not wait for that. If a recover adopted another
		// epoch meanwhile, the Read may have used this epoch's position
		// in the other: its result is dropped, and the loop starts the
		// new epoch from its first note (nothing is lost: the notes are
		// read again).
		notes, err := e.store.Read(ctx, e.topic, e.pos, e.net.cfg.Batch)
		if e.store.Epoch() != epoch {
			continue
		}
		size := 0
		for _, nt := range notes {
			size += len(nt.Data)
		}
		e.net.count(err, 0, size)
		var te *exchange.TrimmedError
		switch {
		case err == nil:
			e.healthy()
			e.buf = notes
			e.pos = notes[len(notes)-1].Seq
			continue
		case ctxError(ctx, err) != nil:
			return nil, ctxError(ctx, err)
		case errors.Is(err, exchange.ErrClosed) || e.isClosed():
			return nil, closed()
		case errors.As(err, &te):
			e.net.mu.Lock()
			lost, _ := e.net.dropRange(e.node.id, e.repoch, te.From, te.To)
			e.net.mu.Unlock()
			e.pos, e.cursor = te.To, te.To
			e.net.loss(Loss{Kind: Trimmed, Node: e.node.id, Epoch: e.repoch, From: te.From, To: te.To, Messages: lost, Err: err})
			continue
		case errors.Is(err, exchange.ErrLost):
			if err = e.recover(ctx, epoch, err); err == nil {
				continue
			}
		}
		// The store is unreachable (or recovery failed): wait (at the
		// top of the loop) and retry.
		e.failed(err)
	}
}

// newEpoch moves the inbox to epoch now after the store lost its data:
// every note of the old epoch after the cursor is lost. e.rmu is held.
func (e *endpoint) newEpoch(now string, cause error) {
	n := e.net
	n.mu.Lock()
	lost, last := n.dropRange(e.node.id, e.repoch, e.cursor+1, math.MaxUint64)
	n.mu.Unlock()
	l := Loss{Kind: Restart, Node: e.node.id, Epoch: e.repoch, Now: now, From: e.cursor + 1, To: last, Messages: lost, Err: cause}
	e.repoch, e.pos, e.cursor = now, 0, 0
	n.loss(l)
}

// handle handles note nt: it returns the message it holds, or nil for a
// marker or a note lost (reported), or the context's error or
// exchange.ErrClosed, leaving the note unhandled. e.rmu is held.
func (e *endpoint) handle(ctx context.Context, nt exchange.Note) (*transport.Message, error) {
	n := e.net
	skip := func(err error) (*transport.Message, error) {
		n.mu.Lock()
		lost, _ := n.dropRange(e.node.id, e.repoch, nt.Seq, nt.Seq)
		n.mu.Unlock()
		e.cursor = nt.Seq
		n.loss(Loss{Kind: Unreadable, Node: e.node.id, Epoch: e.repoch, From: nt.Seq, To: nt.Seq, Messages: lost, Err: err})
		return nil, nil
	}
	if len(nt.Data) == 0 {
		return skip(fmt.Errorf("an empty note: %w", exchange.ErrMalformed))
	}
	var b []byte
	switch nt.Data[0] {
	case tagOpen:
		n.mu.Lock()
		n.handled(e.node.id, e.repoch, nt.Seq)
		n.mu.Unlock()
		e.cursor = nt.Seq
		return nil, nil
	case tagMessage:
		b = nt.Data[1:]
	case tagBlob:
		r, err := parseBlobNote(nt.Data[1:], n.cfg.MaxMessage)
		if err != nil {
			return skip(err)
		}
		if b, err = e.fetch(ctx, r); err != nil {
			if errors.Is(err, exchange.ErrClosed) || ctxError(ctx, err) != nil {
				return nil, err
			}
			return skip(err)
		}
	default:
		return skip(fmt.Errorf("a note tagged %q is not one of this package's: %w", nt.Data[0], exchange.ErrMalformed))
	}
	m, err := transport.Unmarshal(b, n.cfg.Layout)
	if err == nil && m.To != e.node.id {
		err = fmt.Errorf("a %v message to %v in the inbox of %v: %w", m.Kind, m.To, e.node.id, exchange.ErrMalformed)
	}
	if err != nil {
		return skip(err)
	}
	e.node.count.add(received, m.Kind, 1, len(b))
	n.mu.Lock()
	n.handled(e.node.id, e.repoch, nt.Seq)
	n.mu.Unlock()
	e.cursor = nt.Seq
	return m, nil
}

// fetch reads and deletes blob r, waiting for a store that cannot be
// reached. It fails for good (the caller skips the note) when the blob is
// gone — deleted, or lost with the store's data — or corrupt.
func (e *endpoint) fetch(ctx context.Context, r blobRef) ([]byte, error) {
	for {
		e.rw.RLock()
		b, err := e.store.Get(ctx, r.key)
		e.rw.RUnlock()
		e.net.count(err, 0, len(b))
		switch {
		case err == nil:
			e.healthy()
			if err := r.check(b); err != nil {
				return nil, err
			}
			e.rw.RLock()
			_ = e.net.count(e.store.Delete(ctx, r.key), 0, 0) // best effort: a leftover blob costs memory, not correctness
			e.rw.RUnlock()
			return b, nil
		case ctxError(ctx, err) != nil:
			return nil, ctxError(ctx, err)
		case errors.Is(err, exchange.ErrClosed):
			return nil, err
		case errors.Is(err, exchange.ErrNotFound), errors.Is(err, exchange.ErrLost), errors.Is(err, exchange.ErrTooLarge), errors.Is(err, exchange.ErrMalformed):
			return nil, fmt.Errorf("blob %q: %w", r.key, err)
		}
		if err := e.sleep(ctx, e.failed(err)); err != nil {
			if errors.Is(err, transport.ErrClosed) {
				return nil, exchange.ErrClosed
			}
			return nil, err
		}
	}
}

// ctxError returns the caller's context error that err stems from, or
// nil. A store call may fail with its deadline a moment before ctx.Err()
// reports it (go-redis sets the connection's deadline from ctx's).
func ctxError(ctx context.Context, err error) error {
	if cerr := ctx.Err(); cerr != nil {
		return cerr
	}
	if _, ok := ctx.Deadline(); ok && errors.Is(err, context.DeadlineExceeded) {
		return context.DeadlineExceeded
	}
	return nil
}

// sleep waits d, or until ctx is done (its error) or the endpoint closes
// (transport.ErrClosed).
func (e *endpoint) sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-e.done:
		return transport.ErrClosed
	}
}

// Close closes the endpoint and its store client. The messages in its
// inbox stay in the store, unread, and count as dropped (those sent by
// this Network's endpoints). Close is idempotent.
func (e *endpoint) Close() error {
	e.once.Do(func() {
		close(e.done)
		e.store.Close() // unblocks a blocked Read
		e.rmu.Lock()    // waits for Recv to return
		e.buf = nil
		e.rmu.Unlock()
		n := e.net
		n.mu.Lock()
		n.closeInbox(e.node.id)
		if e.node.ep == e {
			e.node.ep = nil
		}
		n.mu.Unlock()
	})
	return nil
}
