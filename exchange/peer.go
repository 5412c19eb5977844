package exchange

import (
	"context"
	"errors"
	"fmt"
	"hash/crc32"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/syncmodels/syncmodels/algorithms"
	"github.com/syncmodels/syncmodels/transport"
)

// Config configures a Peer.
type Config struct {
	// Job identifies the training job; every update carries it, and a
	// reader refuses updates of another job.
	Job uint64
	// ID is the peer's node: a worker's ID, or transport.Coordinator.
	ID transport.NodeID
	// Incarnation numbers the peer's lives: a peer that restarts comes
	// back as Incarnation + 1, so its updates are newer than all of its
	// previous life's.
	Incarnation uint32
	// Layout is the layout updates are validated and decoded with.
	Layout algorithms.Layout
	// Inline is the largest update, in encoded bytes, that a slot or a
	// note holds itself; a larger one goes to a blob and the slot or
	// note holds only its key (MLLess §3.1; the P2P paper's S3 UUIDs for
	// messages beyond RabbitMQ's limit). 0 means DefaultInline; −1 puts
	// every update in a blob.
	Inline int
	// Retain is how many blobs of its published updates a peer keeps
	// (the latest and the ones before it), so that a reader that read
	// the slot just before a new Publish still finds the blob. 0 means
	// DefaultRetain; at least 1.
	Retain int
	// Remember is how many of its most recent writes — Puts, Posts and
	// barrier arrivals — a peer keeps, with their bytes, to restore them
	// after the store loses its data (Recover). A post's blob is deleted
	// when the post leaves this window. 0 means DefaultRemember. Its
	// latest published update is always kept.
	Remember int
}

// Defaults of Config.
const (
	DefaultInline   = 16 << 10
	DefaultRetain   = 2
	DefaultRemember = 16
)

// withDefaults validates c and fills its defaults.
func (c Config) withDefaults() (Config, error) {
	bad := func(format string, args ...any) (Config, error) {
		return c, fmt.Errorf("exchange: Config: "+format+": %w", append(args, ErrConfig)...)
	}
	switch {
	case !c.ID.Valid():
		return bad("ID %d is not a node ID", int(c.ID))
	case c.Layout.Delta <= 0 || c.Layout.Params < 0 || c.Layout.Block < 0:
		return bad("layout %+v: want Delta > 0, Params ≥ 0, Block ≥ 0", c.Layout)
	case c.Inline < -1:
		return bad("Inline %d, want ≥ −1", c.Inline)
	case c.Retain < 0:
		return bad("Retain %d is negative", c.Retain)
	case c.Remember < 0:
		return bad("Remember %d is negative", c.Remember)
	}
	if c.Inline == 0 {
		c.Inline = DefaultInline
	}
	if c.Retain == 0 {
		c.Retain = DefaultRetain
	}
	if c.Remember == 0 {
		c.Remember = DefaultRemember
	}
	return c, nil
}

// Stats counts a peer's traffic. Requests is what a serverless store
// bills (S3 and DynamoDB charge per request: slsML found request costs
// dominate at scale).
type Stats struct {
	// Requests is the number of store calls made.
	Requests int64
	// BytesWritten and BytesRead are the bytes of values and notes
	// written and read.
	BytesWritten, BytesRead int64
	// Published, Posted and Puts count updates written by Publish, Post
	// and Put; Received the updates Fresh and Next returned.
	Published, Posted, Puts, Received int64
	// Duplicates and Stale count updates Fresh and Next read again and
	// did not return: already returned, or older than one returned.
	Duplicates, Stale int64
	// Skipped counts notes Next skipped as malformed or whose blob was
	// gone; Trimmed the notes a topic's cap dropped before Next read
	// them.
	Skipped, Trimmed int64
	// Losses counts the data losses this peer recovered from.
	Losses int64
}

// Peer is one participant of a job — a peer, a worker, a reducer, a
// coordinator — exchanging updates (transport.Messages carrying a delta)
// through a Store:
//
//   - Publish makes an update the peer's latest, in its own slot, and
//     Latest or Fresh read another peer's latest without consuming it
//     (the P2P paper's one-message peer queues, §III-B3);
//   - Put and Get store an update under a key of the caller's (slsML's
//     gradients partitioned per reducer, the merged model);
//   - Post appends an update to a topic and Next reads a topic's updates
//     in order (MLLess's updates announced on the signaling channel,
//     slsML's SNS topics); a large update goes to a blob and the note
//     holds its key (MLLess §3.1);
//   - Arrive, Count and WaitCount are barriers and quorums on counting
//     sets (slsML's DynamoDB counter; the P2P paper's synchronisation
//     queue, without its race).
//
// Every update carries its UpdateID (job, peer, incarnation, seq): the
// peer stamps Job, From and Incarnation, and the caller numbers updates
// with Seq, so that an update retried after an error keeps its identity.
// Fresh and Next return each update at most once (a Dedup per channel),
// so a reader never applies an update twice, whatever the store replays.
//
// When the store loses its data, every call fails with a *LostError
// naming what this peer had in the store; Recover adopts the new epoch
// and restores what the peer still holds (its latest update, its
// remembered puts, posts and arrivals), with the same IDs.
//
// A Peer is safe for concurrent use. Writes are serialised, so the store
// sees them in the order they were made.
type Peer struct {
	s   Store
	cfg Config

	wmu sync.Mutex // serialises writes and Recover

	mu        sync.Mutex // guards what follows
	latest    *write     // the last published update
	slotBlobs []string   // blobs of published updates not yet deleted, oldest first
	recent    []write    // the last Remember puts, posts and arrivals, oldest first
	posted    map[string]UpdateID
	fresh     Dedup
	topics    map[string]*reader
	lost      bool          // a call saw ErrLost since the last Recover
	recovered chan struct{} // closed and replaced when Recover adopts a new epoch
	stats     Stats
}

// writeKind says what a remembered write was.
type writeKind uint8

const (
	wPublish writeKind = iota
	wPut
	wPost
	wArrive
)

// write is a remembered write, with what it takes to redo it.
type write struct {
	kind      writeKind
	name      string // the slot or key, the topic, the counting set
	id        UpdateID
	value     []byte // the envelope (Publish, Put) or note (Post)
	blob      string // the blob's key, or ""
	blobValue []byte
}

// reader is Next's state for one topic.
type reader struct {
	mu     sync.Mutex    // held across a Next
	epoch  string        // the epoch cursor counts in
	cursor atomic.Uint64 // the last note read (atomic for LostError)
	seen   Dedup         // guarded by Peer.mu
}

// New returns a peer that exchanges through s (which it does not close).
func New(s Store, cfg Config) (*Peer, error) {
	if s == nil {
		return nil, fmt.Errorf("exchange: New: nil store: %w", ErrConfig)
	}
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	return &Peer{s: s, cfg: cfg, posted: map[string]UpdateID{}, topics: map[string]*reader{}, recovered: make(chan struct{})}, nil
}

// Config returns the peer's configuration, defaults filled in.
func (p *Peer) Config() Config { return p.cfg }

// Store returns the store the peer exchanges through.
func (p *Peer) Store() Store { return p.s }

// Stats returns the peer's counts so far.
func (p *Peer) Stats() Stats {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stats
}

// SlotKey is the key of peer id's slot, where Publish puts its latest
// update.
func SlotKey(id transport.NodeID) string { return "latest/" + strconv.Itoa(int(id)) }

// blobKey is the key of a published update's blob.
func blobKey(id UpdateID) string {
	return fmt.Sprintf("blob/%d/%d/%d", int(id.Peer), id.Incarnation, id.Seq)
}

// postBlobKey is the key of a posted update's blob.
func postBlobKey(topic string, id UpdateID) string {
	return fmt.Sprintf("post/%s/%d/%d/%d", topic, int(id.Peer), id.Incarnation, id.Seq)
}

// member is the peer's member name in counting sets.
func (p *Peer) member() string { return strconv.Itoa(int(p.cfg.ID)) }

// errorf returns an error prefixed with the peer.
func (p *Peer) errorf(format string, args ...any) error {
	return fmt.Errorf("exchange: %v: "+format, append([]any{p.cfg.ID}, args...)...)
}

// encode validates update m for op on name, stamps the peer's header on a
// copy and returns the copy and its encoding: transport's, with the delta
// encoded as packed if packed is not nil (PublishPacked).
func (p *Peer) encode(op, name string, m *transport.Message, packed []byte) (*transport.Message, []byte, error) {
	if m == nil {
		return nil, nil, p.errorf("%s %q: nil update: %w", op, name, ErrInput)
	}
	if !m.Kind.CarriesDelta() || m.Delta == nil {
		return nil, nil, p.errorf("%s %q: a %v message without a delta is not an update (want commit or leave with a delta): %w", op, name, m.Kind, ErrInput)
	}
	mm := *m
	mm.From, mm.Job, mm.Incarnation = p.cfg.ID, p.cfg.Job, p.cfg.Incarnation
	if err := mm.Validate(p.cfg.Layout); err != nil {
		return nil, nil, p.errorf("%s %q: update seq %d: %w: %w", op, name, mm.Seq, err, ErrInput)
	}
	var b []byte
	var err error
	if packed != nil {
		b, err = mm.AppendBinaryDelta(nil, packed)
	} else {
		b, err = mm.AppendBinary(nil)
	}
	if err != nil {
		return nil, nil, p.errorf("%s %q: update seq %d: %w: %w", op, name, mm.Seq, err, ErrInput)
	}
	return &mm, b, nil
}

// pack returns the value to store for encoding b of update mm: inline, or
// a reference to blob key (then also the blob's value).
func (p *Peer) pack(mm *transport.Message, b []byte, blobKey string) (value []byte, blob string, blobValue []byte) {
	if p.cfg.Inline >= 0 && len(b) <= p.cfg.Inline {
		return append([]byte{tagInline}, b...), "", nil
	}
	r := &ref{id: IDOf(mm), version: mm.Version, clock: mm.Clock, size: len(b), sum: crc32.Checksum(b, castagnoli), key: blobKey}
	return appendRef(nil, r), blobKey, b
}

// fail converts a store error: a loss becomes a *LostError naming what the
// peer had in the store; other errors get the peer's prefix.
func (p *Peer) fail(what string, err error) error {
	var ee *EpochError
	if errors.As(err, &ee) {
		p.mu.Lock()
		defer p.mu.Unlock()
		p.lost = true
		return p.lostError(ee)
	}
	return p.errorf("%s: %w", what, err)
}

// count adds one request and its bytes to the stats.
func (p *Peer) count(written, read int) {
	p.mu.Lock()
	p.stats.Requests++
	p.stats.BytesWritten += int64(written)
	p.stats.BytesRead += int64(read)
	p.mu.Unlock()
}

// put is s.Put, counted.
func (p *Peer) put(ctx context.Context, key string, v []byte) error {
	p.count(len(v), 0)
	return p.s.Put(ctx, key, v)
}

// get is s.Get, counted.
func (p *Peer) get(ctx context.Context, key string) ([]byte, error) {
	v, err := p.s.Get(ctx, key)
	p.count(0, len(v))
	return v, err
}

// Publish makes update m (a Commit or Leave message with a delta) the
// peer's latest: it stamps From, Job and Incarnation on a copy, validates
// it against the layout (finite values, lengths), encodes it
// (transport.Message's format) and stores it in the peer's slot — or in a
// blob, with a reference in the slot, if it is larger than Config.Inline.
// m.Seq must not be smaller than the Seq of the last update published in
// this incarnation; publishing the same Seq again is a retry (of an
// update that failed with ErrUnavailable, say) and must carry the same
// update. It returns the update's ID. Invalid updates fail with an error
// wrapping ErrInput (and the transport or algorithms error that says
// what is wrong), and nothing is written.
func (p *Peer) Publish(ctx context.Context, m *transport.Message) (UpdateID, error) {
	return p.publish(ctx, m, nil)
}

// PublishPacked is Publish for a peer that compresses its updates: delta
// is m's delta already encoded, in a form package filter writes
// (filter.QSGDFilter.AppendMessage's packed QSGD levels: the P2P paper's
// QSGD compression, §III-B4), and m.Delta holds the values it decodes to,
// which readers get (transport.Message.AppendBinaryDelta checks that they
// agree). The slot or blob holds the packed bytes, so Stats counts what
// compression saved.
func (p *Peer) PublishPacked(ctx context.Context, m *transport.Message, delta []byte) (UpdateID, error) {
	if delta == nil {
		delta = []byte{}
	}
	return p.publish(ctx, m, delta)
}

// publish is Publish, with the delta encoded as packed if it is not nil.
func (p *Peer) publish(ctx context.Context, m *transport.Message, packed []byte) (UpdateID, error) {
	key := SlotKey(p.cfg.ID)
	mm, b, err := p.encode("publish to", key, m, packed)
	if err != nil {
		return UpdateID{}, err
	}
	id := IDOf(mm)
	p.wmu.Lock()
	defer p.wmu.Unlock()
	p.mu.Lock()
	if l := p.latest; l != nil && l.id.newer(id) {
		p.mu.Unlock()
		return UpdateID{}, p.errorf("publish to %q: seq %d after seq %d was published: %w", key, id.Seq, l.id.Seq, ErrInput)
	}
	p.mu.Unlock()
	w := write{kind: wPublish, name: key, id: id}
	w.value, w.blob, w.blobValue = p.pack(mm, b, blobKey(id))
	if err := p.redo(ctx, &w); err != nil {
		return UpdateID{}, err
	}
	p.mu.Lock()
	p.latest = &w
	p.stats.Published++
	if w.blob != "" && !slices.Contains(p.slotBlobs, w.blob) {
		p.slotBlobs = append(p.slotBlobs, w.blob)
	}
	var stale []string
	if n := len(p.slotBlobs) - p.cfg.Retain; n > 0 {
		stale = slices.Clone(p.slotBlobs[:n])
	}
	p.mu.Unlock()
	for _, k := range stale {
		p.count(0, 0)
		if err := p.s.Delete(ctx, k); err != nil {
			break // kept in slotBlobs: deleted after a later Publish
		}
		p.mu.Lock()
		p.slotBlobs = slices.DeleteFunc(p.slotBlobs, func(s string) bool { return s == k })
		p.mu.Unlock()
	}
	return id, nil
}

// redo performs write w: its blob, then its value, key, note or arrival.
func (p *Peer) redo(ctx context.Context, w *write) error {
	if w.blob != "" {
		if err := p.put(ctx, w.blob, w.blobValue); err != nil {
			return p.fail(fmt.Sprintf("update %v", w.id), err)
		}
	}
	switch w.kind {
	case wPublish, wPut:
		if err := p.put(ctx, w.name, w.value); err != nil {
			return p.fail(fmt.Sprintf("update %v", w.id), err)
		}
	case wPost:
		p.count(len(w.value), 0)
		if _, err := p.s.Append(ctx, w.name, w.value); err != nil {
			return p.fail(fmt.Sprintf("update %v", w.id), err)
		}
	case wArrive:
		p.count(0, 0)
		if _, err := p.s.Arrive(ctx, w.name, p.member()); err != nil {
			return p.fail("arrive", err)
		}
	}
	return nil
}

// remember adds w to the recent writes, replacing an earlier put to the
// same key or arrival at the same set, and returns the blobs of the posts
// that left the window.
func (p *Peer) remember(w write) (drop []string) {
	if w.kind == wPut || w.kind == wArrive {
		p.recent = slices.DeleteFunc(p.recent, func(o write) bool { return o.kind == w.kind && o.name == w.name })
	}
	p.recent = append(p.recent, w)
	if n := len(p.recent) - p.cfg.Remember; n > 0 {
		for _, o := range p.recent[:n] {
			if o.blob != "" {
				drop = append(drop, o.blob)
			}
		}
		p.recent = slices.Delete(p.recent, 0, n)
	}
	return drop
}

// Latest returns peer from's latest published update, without consuming
// it: it may return the same update again (use Fresh to get each once).
// It fails with ErrNotFound if from has published nothing in this epoch,
// and with ErrMalformed, naming the key, if the slot or its blob does not
// hold a valid update of this job from that peer.
func (p *Peer) Latest(ctx context.Context, from transport.NodeID) (*transport.Message, error) {
	m, _, err := p.readSlot(ctx, from, nil)
	return m, err
}

// Fresh is Latest, but returns each update once: nil, with a nil error,
// if from has published nothing, or nothing newer than the update Fresh
// last returned from it. A blob is fetched only when its reference is
// new.
func (p *Peer) Fresh(ctx context.Context, from transport.NodeID) (*transport.Message, error) {
	seen := func(id UpdateID) bool {
		p.mu.Lock()
		defer p.mu.Unlock()
		if p.fresh.New(id) {
			return false
		}
		if last, _ := p.fresh.Last(id.Peer); last == id {
			p.stats.Duplicates++
		} else {
			p.stats.Stale++
		}
		return true
	}
	m, id, err := p.readSlot(ctx, from, seen)
	if err != nil || m == nil {
		return nil, err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.fresh.Admit(id) != nil { // a concurrent Fresh returned it
		return nil, nil
	}
	p.stats.Received++
	return m, nil
}

// readSlot reads from's slot and the update it holds. If seen reports
// the update's ID as seen, it returns a nil message (and the ID) without
// fetching the blob; with a seen function, an empty slot is no update
// and no error (Fresh).
func (p *Peer) readSlot(ctx context.Context, from transport.NodeID, seen func(UpdateID) bool) (*transport.Message, UpdateID, error) {
	key := SlotKey(from)
	for attempt := 0; ; attempt++ {
		v, err := p.get(ctx, key)
		if errors.Is(err, ErrNotFound) && seen != nil {
			return nil, UpdateID{}, nil // Fresh: nothing published
		}
		if err != nil {
			return nil, UpdateID{}, p.fail("read latest of "+from.String(), err)
		}
		env, err := decodeEnvelope(key, v)
		if err != nil {
			return nil, UpdateID{}, p.errorf("%w", err)
		}
		if env.ref == nil {
			m, err := p.decode(strconv.Quote(key), env.inline, from, true)
			if err != nil {
				return nil, UpdateID{}, err
			}
			if seen != nil && seen(IDOf(m)) {
				return nil, IDOf(m), nil
			}
			return m, IDOf(m), nil
		}
		if err := p.checkRef(key, env.ref, from); err != nil {
			return nil, UpdateID{}, err
		}
		if seen != nil && seen(env.ref.id) {
			return nil, env.ref.id, nil
		}
		m, err := p.fetch(ctx, key, env.ref)
		if errors.Is(err, ErrNotFound) && attempt < 3 {
			continue // superseded (and deleted) between the two reads
		}
		if err != nil {
			return nil, UpdateID{}, err
		}
		return m, env.ref.id, nil
	}
}

// checkRef checks that a reference read under key is an update of this
// job from peer from.
func (p *Peer) checkRef(key string, r *ref, from transport.NodeID) error {
	if r.id.Job != p.cfg.Job || r.id.Peer != from {
		return p.errorf("value of %q refers to update %v, want job %d from %v: %w", key, r.id, p.cfg.Job, from, ErrMalformed)
	}
	return nil
}

// fetch reads the blob of reference r (read under key) and decodes it.
func (p *Peer) fetch(ctx context.Context, key string, r *ref) (*transport.Message, error) {
	b, err := p.get(ctx, r.key)
	if err != nil {
		return nil, p.fail(fmt.Sprintf("blob of %q", key), err)
	}
	if len(b) != r.size {
		return nil, p.errorf("blob %q is %d bytes, its reference in %q says %d: %w", r.key, len(b), key, r.size, ErrMalformed)
	}
	if s := crc32.Checksum(b, castagnoli); s != r.sum {
		return nil, p.errorf("blob %q has checksum %#08x, its reference in %q says %#08x: %w", r.key, s, key, r.sum, ErrMalformed)
	}
	m, err := p.decode(fmt.Sprintf("blob %q (referred to by %q)", r.key, key), b, r.id.Peer, true)
	if err != nil {
		return nil, err
	}
	if IDOf(m) != r.id || m.Version != r.version || m.Clock != r.clock {
		return nil, p.errorf("blob %q holds update %v (version %d, clock %d), its reference in %q says %v (version %d, clock %d): %w",
			r.key, IDOf(m), m.Version, m.Clock, key, r.id, r.version, r.clock, ErrMalformed)
	}
	return m, nil
}

// decode decodes an update read from where (a quoted key, or a
// description naming the keys) and checks its header: this job, and peer
// from if checkFrom.
func (p *Peer) decode(where string, b []byte, from transport.NodeID, checkFrom bool) (*transport.Message, error) {
	m, err := transport.Unmarshal(b, p.cfg.Layout)
	if err != nil {
		return nil, p.errorf("value of %s: %w: %w", where, err, ErrMalformed)
	}
	switch {
	case !m.Kind.CarriesDelta() || m.Delta == nil:
		return nil, p.errorf("value of %s is a %v message without a delta, not an update: %w", where, m.Kind, ErrMalformed)
	case m.Job != p.cfg.Job:
		return nil, p.errorf("value of %s is update %v of job %d, want job %d: %w", where, IDOf(m), m.Job, p.cfg.Job, ErrMalformed)
	case checkFrom && m.From != from:
		return nil, p.errorf("value of %s is update %v from %v, want from %v: %w", where, IDOf(m), m.From, from, ErrMalformed)
	}
	return m, nil
}

// Put stores update m under key (stamped and validated as by Publish,
// always inline), replacing what was there, and returns its ID. The peer
// remembers it (Config.Remember) to restore it after a loss.
func (p *Peer) Put(ctx context.Context, key string, m *transport.Message) (UpdateID, error) {
	if err := CheckName("key", key); err != nil {
		return UpdateID{}, p.errorf("%w", err)
	}
	if strings.HasPrefix(key, "latest/") || strings.HasPrefix(key, "blob/") || strings.HasPrefix(key, "post/") {
		return UpdateID{}, p.errorf("put %q: keys under latest/, blob/ and post/ are the peers': %w", key, ErrInput)
	}
	mm, b, err := p.encode("put", key, m, nil)
	if err != nil {
		return UpdateID{}, err
	}
	w := write{kind: wPut, name: key, id: IDOf(mm), value: append([]byte{tagInline}, b...)}
	p.wmu.Lock()
	defer p.wmu.Unlock()
	if err := p.redo(ctx, &w); err != nil {
		return UpdateID{}, err
	}
	p.mu.Lock()
	p.stats.Puts++
	drop := p.remember(w)
	p.mu.Unlock()
	p.deleteBlobs(ctx, drop)
	return w.id, nil
}

// Get returns the update stored under key by Put (or the update a slot
// holds), of this job from any peer. ErrNotFound if there is none.
func (p *Peer) Get(ctx context.Context, key string) (*transport.Message, error) {
	v, err := p.get(ctx, key)
	if err != nil {
		return nil, p.fail("get", err)
	}
	env, err := decodeEnvelope(key, v)
	if err != nil {
		return nil, p.errorf("%w", err)
	}
	if env.ref == nil {
		return p.decode(strconv.Quote(key), env.inline, 0, false)
	}
	if env.ref.id.Job != p.cfg.Job {
		return nil, p.errorf("value of %q refers to update %v, want job %d: %w", key, env.ref.id, p.cfg.Job, ErrMalformed)
	}
	return p.fetch(ctx, key, env.ref)
}

// Delete removes key (a key of the caller's, written by Put).
func (p *Peer) Delete(ctx context.Context, key string) error {
	p.count(0, 0)
	if err := p.s.Delete(ctx, key); err != nil {
		return p.fail("delete", err)
	}
	p.mu.Lock()
	p.recent = slices.DeleteFunc(p.recent, func(o write) bool { return o.kind == wPut && o.name == key })
	p.mu.Unlock()
	return nil
}

// deleteBlobs deletes blobs, best effort: a blob left behind is garbage,
// not an error.
func (p *Peer) deleteBlobs(ctx context.Context, keys []string) {
	for _, k := range keys {
		p.count(0, 0)
		_ = p.s.Delete(ctx, k)
	}
}

// Post appends update m (stamped and validated as by Publish) to topic,
// inline or as a reference to a blob, and returns the note's number.
// m.Seq must not be smaller than the Seq of the peer's last post to the
// topic in this incarnation (the same Seq is a retry; readers return it
// once). The peer remembers the post (Config.Remember) to restore it
// after a loss.
func (p *Peer) Post(ctx context.Context, topic string, m *transport.Message) (uint64, error) {
	if err := CheckName("topic", topic); err != nil {
		return 0, p.errorf("%w", err)
	}
	mm, b, err := p.encode("post to", topic, m, nil)
	if err != nil {
		return 0, err
	}
	id := IDOf(mm)
	w := write{kind: wPost, name: topic, id: id}
	w.value, w.blob, w.blobValue = p.pack(mm, b, postBlobKey(topic, id))
	if w.blob != "" {
		if err := CheckName("blob key", w.blob); err != nil {
			return 0, p.errorf("post to %q: %w", topic, err)
		}
	}
	p.wmu.Lock()
	defer p.wmu.Unlock()
	p.mu.Lock()
	if last, ok := p.posted[topic]; ok && last.newer(id) {
		p.mu.Unlock()
		return 0, p.errorf("post to %q: seq %d after seq %d was posted: %w", topic, id.Seq, last.Seq, ErrInput)
	}
	p.mu.Unlock()
	if w.blob != "" {
		if err := p.put(ctx, w.blob, w.blobValue); err != nil {
			return 0, p.fail(fmt.Sprintf("update %v", id), err)
		}
	}
	p.count(len(w.value), 0)
	n, err := p.s.Append(ctx, topic, w.value)
	if err != nil {
		return 0, p.fail(fmt.Sprintf("update %v", id), err)
	}
	p.mu.Lock()
	p.posted[topic] = id
	p.stats.Posted++
	drop := p.remember(w)
	p.mu.Unlock()
	p.deleteBlobs(ctx, drop)
	return n, nil
}

// NoteError reports a note that Next skipped because it can never be
// read: malformed, or its blob gone (the writer no longer keeps it).
type NoteError struct {
	Topic string
	Seq   uint64
	Err   error
}

func (e *NoteError) Error() string {
	return fmt.Sprintf("exchange: note %d of %q skipped: %v", e.Seq, e.Topic, e.Err)
}

func (e *NoteError) Unwrap() error { return e.Err }

// Next returns, in order, the updates posted to topic that this peer has
// not read yet, at most max, blocking until there is at least one. Each
// update is returned once: notes appended twice, and updates restored
// after a loss that were returned before, are skipped (Stats.Duplicates).
//
// Next returns the updates it read before an error together with the
// error: apply them. A note that can never be read (malformed, or its
// blob gone) is skipped and reported as a *NoteError; notes the topic's
// cap dropped before they were read are skipped and reported with an
// error wrapping ErrTrimmed. Any other error leaves the topic's position
// after the last update returned, so calling Next again retries.
func (p *Peer) Next(ctx context.Context, topic string, max int) ([]*transport.Message, error) {
	if err := CheckRead(topic, max); err != nil {
		return nil, p.errorf("%w", err)
	}
	p.mu.Lock()
	r := p.topics[topic]
	if r == nil {
		r = &reader{}
		p.topics[topic] = r
	}
	p.mu.Unlock()
	r.mu.Lock()
	defer r.mu.Unlock()
	for {
		out, err, again := p.next(ctx, topic, r, max)
		if !again {
			return out, err
		}
	}
}

// next is one attempt of Next, with r.mu held. It reports again if a
// Recover adopted a new epoch meanwhile: the notes it read, if any, were
// not used, and the position was not moved.
func (p *Peer) next(ctx context.Context, topic string, r *reader, max int) (out []*transport.Message, err error, again bool) {
	// The position counts in the epoch the client has now; a Recover
	// that adopts a new one closes ch, which cancels the Read, so that a
	// position of the old epoch is never used in the new one.
	p.mu.Lock()
	epoch, ch := p.s.Epoch(), p.recovered
	p.mu.Unlock()
	if r.epoch != epoch {
		r.epoch = epoch
		r.cursor.Store(0)
	}
	rctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-ch:
			cancel()
		case <-rctx.Done():
		}
	}()
	recovered := func() bool {
		select {
		case <-ch:
			return true
		default:
			return false
		}
	}
	for len(out) == 0 {
		p.count(0, 0)
		notes, err := p.s.Read(rctx, topic, r.cursor.Load(), max)
		if recovered() {
			return nil, nil, true
		}
		var te *TrimmedError
		if errors.As(err, &te) {
			p.mu.Lock()
			p.stats.Trimmed += int64(te.To - te.From + 1)
			p.mu.Unlock()
			r.cursor.Store(te.To)
			return nil, p.errorf("%w", err), false
		}
		if err != nil {
			return nil, p.fail("next", err), false
		}
		for _, n := range notes {
			p.mu.Lock()
			p.stats.BytesRead += int64(len(n.Data)) // part of the Read's reply
			p.mu.Unlock()
			m, err := p.readNote(rctx, topic, n)
			if recovered() {
				return nil, nil, true
			}
			if err != nil {
				if errors.Is(err, ErrMalformed) || errors.Is(err, ErrNotFound) {
					r.cursor.Store(n.Seq)
					p.mu.Lock()
					p.stats.Skipped++
					p.mu.Unlock()
					return out, &NoteError{Topic: topic, Seq: n.Seq, Err: err}, false
				}
				return out, err, false
			}
			r.cursor.Store(n.Seq)
			p.mu.Lock()
			switch err := r.seen.Admit(IDOf(m)); {
			case err == nil:
				out = append(out, m)
				p.stats.Received++
			case errors.Is(err, ErrDuplicate):
				p.stats.Duplicates++
			default:
				p.stats.Stale++
			}
			p.mu.Unlock()
		}
	}
	return out, nil, false
}

// readNote decodes note n of topic and fetches its blob.
func (p *Peer) readNote(ctx context.Context, topic string, n Note) (*transport.Message, error) {
	name := fmt.Sprintf("%s#%d", topic, n.Seq)
	env, err := decodeEnvelope(name, n.Data)
	if err != nil {
		return nil, p.errorf("%w", err)
	}
	if env.ref == nil {
		return p.decode(strconv.Quote(name), env.inline, 0, false)
	}
	if env.ref.id.Job != p.cfg.Job {
		return nil, p.errorf("note %q refers to update %v, want job %d: %w", name, env.ref.id, p.cfg.Job, ErrMalformed)
	}
	return p.fetch(ctx, name, env.ref)
}

// Arrive adds this peer to the counting set name (a barrier or a quorum)
// and returns the set's size. Arriving again counts once. The peer
// remembers the arrival (Config.Remember) to make it again after a loss.
func (p *Peer) Arrive(ctx context.Context, name string) (int, error) {
	if err := CheckName("set", name); err != nil {
		return 0, p.errorf("%w", err)
	}
	p.wmu.Lock()
	defer p.wmu.Unlock()
	p.count(0, 0)
	n, err := p.s.Arrive(ctx, name, p.member())
	if err != nil {
		return 0, p.fail("arrive", err)
	}
	p.mu.Lock()
	drop := p.remember(write{kind: wArrive, name: name})
	p.mu.Unlock()
	p.deleteBlobs(ctx, drop)
	return n, nil
}

// Count returns the size of the counting set name.
func (p *Peer) Count(ctx context.Context, name string) (int, error) {
	p.count(0, 0)
	n, err := p.s.Count(ctx, name)
	if err != nil {
		return 0, p.fail("count", err)
	}
	return n, nil
}

// WaitCount blocks until the counting set name has at least n members and
// returns its size: a barrier (n = every peer) or a quorum (slsML's
// counting semaphore: n = 90% of the workers, rounded up).
func (p *Peer) WaitCount(ctx context.Context, name string, n int) (int, error) {
	p.count(0, 0)
	got, err := p.s.WaitCount(ctx, name, n)
	if err != nil {
		return 0, p.fail("wait", err)
	}
	return got, nil
}

// Check reports whether the store still holds this peer's epoch: nil, or
// a *LostError.
func (p *Peer) Check(ctx context.Context) error {
	p.count(0, 0)
	if err := p.s.Check(ctx); err != nil {
		return p.fail("check", err)
	}
	return nil
}

// Recover adopts the store's current epoch after a loss and restores what
// this peer still holds, with the same update IDs, in the order it wrote
// them: its latest published update (blob and slot), then its remembered
// puts, posts (with new note numbers) and barrier arrivals. Readers
// return restored updates they had returned before as duplicates, never
// twice. Next starts each topic again from the new epoch's first note.
// What no live peer holds stays lost: notes of other peers' posts beyond
// their Remember windows, arrivals and updates of peers that are gone.
//
// Recover does nothing but adopt the epoch if no call of this peer saw a
// loss and the epoch did not change. It may be called again after an
// error (another loss, the store unavailable): restoring is idempotent.
func (p *Peer) Recover(ctx context.Context) error {
	p.wmu.Lock()
	defer p.wmu.Unlock()
	old := p.s.Epoch()
	p.count(0, 0)
	now, err := p.s.Recover(ctx)
	if err != nil {
		return p.errorf("recover: %w", err)
	}
	p.mu.Lock()
	lost := p.lost || now != old
	var redo []write
	if lost {
		if p.latest != nil {
			redo = append(redo, *p.latest)
		}
		redo = append(redo, p.recent...)
		// Next's positions belong to the old epoch: stop the Reads that
		// use them (see next).
		close(p.recovered)
		p.recovered = make(chan struct{})
	}
	p.mu.Unlock()
	if !lost {
		return nil
	}
	for i := range redo {
		if err := p.redo(ctx, &redo[i]); err != nil {
			return err
		}
	}
	p.mu.Lock()
	p.lost = false
	p.stats.Losses++
	p.mu.Unlock()
	return nil
}

// LostError reports that the store lost its data: the store's
// *EpochError, and what this peer knows it lost. It wraps ErrLost.
type LostError struct {
	// Peer is the peer reporting.
	Peer transport.NodeID
	// Cause is the store's report: the operation refused and the epochs.
	Cause *EpochError
	// Keys are the keys this peer had written that the loss took: its
	// slot and its blobs, its remembered puts, the blobs of its
	// remembered posts. Sorted.
	Keys []string
	// Updates are this peer's updates that were in the store: its
	// latest, its remembered puts and posts, in the order written.
	// Recover restores them all, with their IDs.
	Updates []UpdateID
	// Topics are the topics it had posted to (their notes are lost:
	// the new epoch numbers notes from 1); Barriers the counting sets it
	// had arrived at (remembered ones). Sorted.
	Topics, Barriers []string
	// Read is, per topic this peer reads, the number of the last note it
	// had read: notes after it were lost to it unless their writers
	// restore them.
	Read map[string]uint64
}

func (e *LostError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "exchange: %v: %s", e.Peer, e.Cause.text())
	list := func(what string, s []string) {
		if len(s) > 0 {
			fmt.Fprintf(&b, "; %s %s", what, strings.Join(s, ", "))
		}
	}
	list("lost keys", e.Keys)
	if len(e.Updates) > 0 {
		s := make([]string, len(e.Updates))
		for i, id := range e.Updates {
			s[i] = fmt.Sprintf("inc %d seq %d", id.Incarnation, id.Seq)
		}
		list("lost updates", s)
	}
	list("lost notes of topics", e.Topics)
	list("lost arrivals at", e.Barriers)
	if len(e.Read) > 0 {
		topics := make([]string, 0, len(e.Read))
		for t := range e.Read {
			topics = append(topics, t)
		}
		sort.Strings(topics)
		for i, t := range topics {
			topics[i] = fmt.Sprintf("%s after note %d", t, e.Read[t])
		}
		list("unread notes of", topics)
	}
	return b.String()
}

// Unwrap returns the store's *EpochError (which wraps ErrLost).
func (e *LostError) Unwrap() error { return e.Cause }

// lostError builds the report of a loss. p.mu is held.
func (p *Peer) lostError(cause *EpochError) *LostError {
	e := &LostError{Peer: p.cfg.ID, Cause: cause}
	keys := map[string]bool{}
	topics := map[string]bool{}
	sets := map[string]bool{}
	if l := p.latest; l != nil {
		keys[l.name] = true
		e.Updates = append(e.Updates, l.id)
		for _, k := range p.slotBlobs {
			keys[k] = true
		}
	}
	for _, w := range p.recent {
		switch w.kind {
		case wPut:
			keys[w.name] = true
			e.Updates = append(e.Updates, w.id)
		case wPost:
			topics[w.name] = true
			if w.blob != "" {
				keys[w.blob] = true
			}
			e.Updates = append(e.Updates, w.id)
		case wArrive:
			sets[w.name] = true
		}
	}
	sorted := func(m map[string]bool) []string {
		s := make([]string, 0, len(m))
		for k := range m {
			s = append(s, k)
		}
		sort.Strings(s)
		return s
	}
	e.Keys, e.Topics, e.Barriers = sorted(keys), sorted(topics), sorted(sets)
	for t, r := range p.topics {
		if c := r.cursor.Load(); c > 0 {
			if e.Read == nil {
				e.Read = map[string]uint64{}
			}
			e.Read[t] = c
		}
	}
	return e
}
