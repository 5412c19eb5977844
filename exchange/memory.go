package exchange

import (
	"context"
	"fmt"
	"sort"
	"sync"
)

// Memory is an in-process store server: the default exchange, with no
// network, no goroutines and no randomness. Its clients (Open) behave as
// Redis clients of package redisx do — the conformance suite in package
// exchangetest holds both to one contract — and the same calls in the same
// order give the same results, epochs and note numbers. Restart simulates
// a store that loses its data, deterministically.
//
// A Memory is safe for concurrent use; use NewMemory to make one.
type Memory struct {
	mu      sync.Mutex
	gen     int               // epochs created so far
	spaces  map[string]*space // by namespace
	changed chan struct{}     // closed and replaced on every change
}

// space is one namespace's data.
type space struct {
	epoch  string
	values map[string][]byte
	sets   map[string]map[string]struct{}
	topics map[string]*topic
}

// topic is an append-only list of notes, capped.
type topic struct {
	last  uint64 // number of the last note appended
	notes []Note // the notes kept, in increasing Seq
}

// NewMemory returns an empty in-process store server.
func NewMemory() *Memory {
	return &Memory{spaces: map[string]*space{}, changed: make(chan struct{})}
}

// Open returns a new client of namespace ns with limits l (zero fields
// take the defaults), which adopts the namespace's epoch, creating one
// ("mem-1", "mem-2", … in creation order) if the namespace has none. As
// with Redis, the limits are the client's: it refuses to write, and to
// return, values beyond its MaxValue, and trims the topics it appends to
// to its MaxNotes.
func (m *Memory) Open(ns string, l Limits) (*MemoryClient, error) {
	if err := CheckName("namespace", ns); err != nil {
		return nil, fmt.Errorf("exchange: Memory.Open: %v: %w", err, ErrConfig)
	}
	l, err := l.WithDefaults()
	if err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return &MemoryClient{m: m, ns: ns, lim: l, epoch: m.adopt(ns), done: make(chan struct{})}, nil
}

// Restart makes every namespace lose its data and its epoch, as a Redis
// server restarted without persistence does. Clients find out at their
// next operation (an *EpochError); blocked WaitCount and Read calls
// return one at once.
func (m *Memory) Restart() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.spaces = map[string]*space{}
	m.notify()
}

// adopt returns ns's epoch, creating the namespace's epoch if it has none.
// m.mu is held.
func (m *Memory) adopt(ns string) string {
	sp := m.spaces[ns]
	if sp == nil {
		m.gen++
		sp = &space{
			epoch:  fmt.Sprintf("mem-%d", m.gen),
			values: map[string][]byte{},
			sets:   map[string]map[string]struct{}{},
			topics: map[string]*topic{},
		}
		m.spaces[ns] = sp
	}
	return sp.epoch
}

// notify wakes every waiter. m.mu is held.
func (m *Memory) notify() {
	close(m.changed)
	m.changed = make(chan struct{})
}

// MemoryClient is a client of a Memory server for one namespace; it
// implements Store.
type MemoryClient struct {
	m     *Memory
	ns    string
	lim   Limits
	done  chan struct{} // closed by Close
	close sync.Once

	mu    sync.Mutex // guards epoch
	epoch string
}

var _ Store = (*MemoryClient)(nil)

// Epoch implements Store.
func (c *MemoryClient) Epoch() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.epoch
}

// enter checks the context, Close and the epoch, and returns the space
// with c.m.mu held; on error the lock is not held.
func (c *MemoryClient) enter(ctx context.Context, op, name string) (*space, error) {
	if err := ctxErr(ctx, op, name); err != nil {
		return nil, err
	}
	select {
	case <-c.done:
		return nil, fmt.Errorf("exchange: %s %q: %w", op, name, ErrClosed)
	default:
	}
	c.m.mu.Lock()
	was := c.Epoch()
	sp := c.m.spaces[c.ns]
	if sp == nil || sp.epoch != was {
		c.m.mu.Unlock()
		now := ""
		if sp != nil {
			now = sp.epoch
		}
		return nil, &EpochError{Op: op, Name: name, Was: was, Now: now}
	}
	return sp, nil
}

// Put implements Store.
func (c *MemoryClient) Put(ctx context.Context, key string, value []byte) error {
	if err := CheckName("key", key); err != nil {
		return err
	}
	if len(value) > c.lim.MaxValue {
		return fmt.Errorf("exchange: put %q: %d bytes, limit %d: %w", key, len(value), c.lim.MaxValue, ErrTooLarge)
	}
	sp, err := c.enter(ctx, "put", key)
	if err != nil {
		return err
	}
	defer c.m.mu.Unlock()
	sp.values[key] = append([]byte{}, value...)
	c.m.notify()
	return nil
}

// Get implements Store.
func (c *MemoryClient) Get(ctx context.Context, key string) ([]byte, error) {
	if err := CheckName("key", key); err != nil {
		return nil, err
	}
	sp, err := c.enter(ctx, "get", key)
	if err != nil {
		return nil, err
	}
	defer c.m.mu.Unlock()
	v, ok := sp.values[key]
	switch {
	case !ok:
		return nil, fmt.Errorf("exchange: get %q: %w", key, ErrNotFound)
	case len(v) > c.lim.MaxValue:
		return nil, fmt.Errorf("exchange: get %q: %d bytes stored, limit %d: %w", key, len(v), c.lim.MaxValue, ErrTooLarge)
	}
	return append([]byte{}, v...), nil
}

// Delete implements Store.
func (c *MemoryClient) Delete(ctx context.Context, key string) error {
	if err := CheckName("key", key); err != nil {
		return err
	}
	sp, err := c.enter(ctx, "delete", key)
	if err != nil {
		return err
	}
	defer c.m.mu.Unlock()
	if _, ok := sp.values[key]; ok {
		delete(sp.values, key)
		c.m.notify()
	}
	return nil
}

// Arrive implements Store.
func (c *MemoryClient) Arrive(ctx context.Context, name, member string) (int, error) {
	if err := CheckName("set", name); err != nil {
		return 0, err
	}
	if err := CheckName("member", member); err != nil {
		return 0, err
	}
	sp, err := c.enter(ctx, "arrive", name)
	if err != nil {
		return 0, err
	}
	defer c.m.mu.Unlock()
	set := sp.sets[name]
	if set == nil {
		set = map[string]struct{}{}
		sp.sets[name] = set
	}
	if _, ok := set[member]; !ok {
		set[member] = struct{}{}
		c.m.notify()
	}
	return len(set), nil
}

// Count implements Store.
func (c *MemoryClient) Count(ctx context.Context, name string) (int, error) {
	if err := CheckName("set", name); err != nil {
		return 0, err
	}
	sp, err := c.enter(ctx, "count", name)
	if err != nil {
		return 0, err
	}
	defer c.m.mu.Unlock()
	return len(sp.sets[name]), nil
}

// WaitCount implements Store.
func (c *MemoryClient) WaitCount(ctx context.Context, name string, n int) (int, error) {
	if err := CheckName("set", name); err != nil {
		return 0, err
	}
	for {
		sp, err := c.enter(ctx, "wait for", name)
		if err != nil {
			return 0, err
		}
		got := len(sp.sets[name])
		changed := c.m.changed
		c.m.mu.Unlock()
		if got >= n {
			return got, nil
		}
		if err := c.block(ctx, changed, "wait for", name); err != nil {
			return 0, err
		}
	}
}

// block waits for a change, the context or Close.
func (c *MemoryClient) block(ctx context.Context, changed chan struct{}, op, name string) error {
	select {
	case <-changed:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("exchange: %s %q: %w", op, name, ctx.Err())
	case <-c.done:
		return fmt.Errorf("exchange: %s %q: %w", op, name, ErrClosed)
	}
}

// Append implements Store.
func (c *MemoryClient) Append(ctx context.Context, name string, note []byte) (uint64, error) {
	if err := CheckName("topic", name); err != nil {
		return 0, err
	}
	if len(note) > c.lim.MaxValue {
		return 0, fmt.Errorf("exchange: append to %q: %d bytes, limit %d: %w", name, len(note), c.lim.MaxValue, ErrTooLarge)
	}
	sp, err := c.enter(ctx, "append to", name)
	if err != nil {
		return 0, err
	}
	defer c.m.mu.Unlock()
	t := sp.topics[name]
	if t == nil {
		t = &topic{}
		sp.topics[name] = t
	}
	t.last++
	t.notes = append(t.notes, Note{Seq: t.last, Data: append([]byte{}, note...)})
	if drop := len(t.notes) - c.lim.MaxNotes; drop > 0 {
		clear(t.notes[:drop])
		t.notes = t.notes[drop:]
	}
	c.m.notify()
	return t.last, nil
}

// Read implements Store.
func (c *MemoryClient) Read(ctx context.Context, name string, after uint64, max int) ([]Note, error) {
	if err := CheckRead(name, max); err != nil {
		return nil, err
	}
	for {
		sp, err := c.enter(ctx, "read", name)
		if err != nil {
			return nil, err
		}
		var out []Note
		if t := sp.topics[name]; t != nil && t.last > after {
			i := sort.Search(len(t.notes), func(i int) bool { return t.notes[i].Seq > after })
			if first := t.notes[i].Seq; first > after+1 {
				c.m.mu.Unlock()
				return nil, trimmedError(name, after+1, first-1, c.lim.MaxNotes)
			}
			for _, n := range t.notes[i:min(len(t.notes), i+max)] {
				out = append(out, Note{Seq: n.Seq, Data: append([]byte{}, n.Data...)})
			}
		}
		changed := c.m.changed
		c.m.mu.Unlock()
		if len(out) > 0 {
			return out, nil
		}
		if err := c.block(ctx, changed, "read", name); err != nil {
			return nil, err
		}
	}
}

// trimmedError reports notes lo…hi of topic dropped by the cap.
func trimmedError(name string, lo, hi uint64, capacity int) error {
	return &TrimmedError{Topic: name, From: lo, To: hi, Cap: capacity}
}

// Check implements Store.
func (c *MemoryClient) Check(ctx context.Context) error {
	if _, err := c.enter(ctx, "check", c.ns); err != nil {
		return err
	}
	c.m.mu.Unlock()
	return nil
}

// Recover implements Store.
func (c *MemoryClient) Recover(ctx context.Context) (string, error) {
	if err := ctxErr(ctx, "recover", c.ns); err != nil {
		return "", err
	}
	select {
	case <-c.done:
		return "", fmt.Errorf("exchange: recover %q: %w", c.ns, ErrClosed)
	default:
	}
	c.m.mu.Lock()
	defer c.m.mu.Unlock()
	e := c.m.adopt(c.ns)
	c.mu.Lock()
	c.epoch = e
	c.mu.Unlock()
	return e, nil
}

// Close implements Store.
func (c *MemoryClient) Close() error {
	c.close.Do(func() { close(c.done) })
	return nil
}
