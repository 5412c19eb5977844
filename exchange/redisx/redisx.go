package redisx

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/syncmodels/syncmodels/exchange"
)

// Config configures a client.
type Config struct {
	// Namespace is the job's namespace (exchange.CheckName's alphabet):
	// clients of one namespace share its data, other namespaces are
	// apart. Required.
	Namespace string
	// Limits bounds values and topics (zero fields: the defaults).
	Limits exchange.Limits
	// Prefix starts every key (default "syncmodels:"), so that other
	// users of the same Redis are kept apart.
	Prefix string
	// Poll is how long a blocked WaitCount or Read waits in one server
	// call before it checks the epoch and its context again: the most a
	// cancellation without a deadline, or a loss, takes to be noticed
	// (default 100 ms).
	Poll time.Duration
	// Options, if set, adjusts go-redis's options (pool size, timeouts,
	// TLS, retries) before the client connects.
	Options func(*redis.Options)
}

// Store is a client of a Redis server for one namespace; it implements
// exchange.Store.
type Store struct {
	c    *redis.Client
	cfg  Config
	base string // key prefix of the namespace: Prefix{Namespace}:

	closed atomic.Bool

	mu    sync.Mutex // guards epoch and runID
	epoch string
	runID string
}

var _ exchange.Store = (*Store)(nil)

// Open connects to the Redis server at rawURL (redis://[user:password@]
// host:port[/db], or rediss:// for TLS; go-redis's ParseURL) and adopts
// the namespace's epoch, creating it if the namespace has none.
func Open(ctx context.Context, rawURL string, cfg Config) (*Store, error) {
	if err := exchange.CheckName("namespace", cfg.Namespace); err != nil {
		return nil, fmt.Errorf("redisx: Config.Namespace: %v: %w", err, exchange.ErrConfig)
	}
	l, err := cfg.Limits.WithDefaults()
	if err != nil {
		return nil, fmt.Errorf("redisx: %w", err)
	}
	cfg.Limits = l
	if cfg.Prefix == "" {
		cfg.Prefix = "syncmodels:"
	}
	if strings.ContainsAny(cfg.Prefix, "{}") {
		return nil, fmt.Errorf("redisx: Config.Prefix %q has a brace (Redis Cluster's hash tags): %w", cfg.Prefix, exchange.ErrConfig)
	}
	switch {
	case cfg.Poll < 0:
		return nil, fmt.Errorf("redisx: Config.Poll %v is negative: %w", cfg.Poll, exchange.ErrConfig)
	case cfg.Poll == 0:
		cfg.Poll = 100 * time.Millisecond
	}
	opts, err := redis.ParseURL(rawURL)
	if err != nil {
		return nil, fmt.Errorf("redisx: URL %q: %v: %w", redacted(rawURL), err, exchange.ErrConfig)
	}
	opts.ContextTimeoutEnabled = true
	if cfg.Options != nil {
		cfg.Options(opts)
	}
	s := &Store{
		c:    redis.NewClient(opts),
		cfg:  cfg,
		base: cfg.Prefix + "{" + cfg.Namespace + "}:",
	}
	if _, err := s.Recover(ctx); err != nil {
		s.c.Close()
		return nil, err
	}
	return s, nil
}

// redacted returns rawURL without its password.
func redacted(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil {
		return "(unparsable)"
	}
	return u.Redacted()
}

// Keys of the namespace. They share one hash tag ({namespace}), so a
// script may touch the epoch and the data together, even on a cluster.
func (s *Store) epochKey() string           { return s.base + "epoch" }
func (s *Store) valueKey(k string) string   { return s.base + "k:" + k }
func (s *Store) setKey(n string) string     { return s.base + "c:" + n }
func (s *Store) wakeKey(n string) string    { return s.base + "w:" + n }
func (s *Store) topicKey(n string) string   { return s.base + "t:" + n }
func (s *Store) counterKey(n string) string { return s.base + "n:" + n }

// Epoch implements exchange.Store.
func (s *Store) Epoch() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.epoch
}

// Every script begins by checking the epoch: KEYS[1] is the epoch key,
// ARGV[1] the client's epoch. A mismatch is the error reply "LOST <the
// store's epoch>", and the script has no effect.
const checkEpoch = `
local e = redis.call('GET', KEYS[1])
if e ~= ARGV[1] then return redis.error_reply('LOST ' .. (e or '')) end
`

var (
	scriptCheck = redis.NewScript(checkEpoch + `return 1`)
	// KEYS: epoch, key. ARGV: epoch, value.
	scriptPut = redis.NewScript(checkEpoch + `
redis.call('SET', KEYS[2], ARGV[2])
return 1`)
	// KEYS: epoch, key. ARGV: epoch, max bytes.
	scriptGet = redis.NewScript(checkEpoch + `
local n = redis.call('STRLEN', KEYS[2])
if n > tonumber(ARGV[2]) then return redis.error_reply('TOOLARGE ' .. n) end
return redis.call('GET', KEYS[2])`)
	// KEYS: epoch, key. ARGV: epoch.
	scriptDelete = redis.NewScript(checkEpoch + `
redis.call('DEL', KEYS[2])
return 1`)
	// KEYS: epoch, set, wake stream. ARGV: epoch, member. An arrival
	// that adds a member also wakes the waiters (XREAD on the stream).
	scriptArrive = redis.NewScript(checkEpoch + `
if redis.call('SADD', KEYS[2], ARGV[2]) == 1 then
  redis.call('XADD', KEYS[3], 'MAXLEN', '16', '*', 'm', ARGV[2])
end
return redis.call('SCARD', KEYS[2])`)
	// KEYS: epoch, set, wake stream. ARGV: epoch. Returns the count and
	// the wake stream's last ID, after which a waiter blocks.
	scriptProbe = redis.NewScript(checkEpoch + `
local last = redis.call('XREVRANGE', KEYS[3], '+', '-', 'COUNT', 1)
local id = '0-0'
if #last > 0 then id = last[1][1] end
return {redis.call('SCARD', KEYS[2]), id}`)
	// KEYS: epoch, topic stream, counter. ARGV: epoch, note, cap. Note n
	// has stream ID n-0.
	scriptAppend = redis.NewScript(checkEpoch + `
local n = redis.call('INCR', KEYS[3])
redis.call('XADD', KEYS[2], 'MAXLEN', ARGV[3], n .. '-0', 'd', ARGV[2])
return n`)
	// KEYS: epoch, topic stream. ARGV: epoch, after, max. Returns
	// {n1, data1, n2, data2, …}, or the error "TRIMMED from to" if the
	// cap dropped notes after 'after'.
	scriptRead = redis.NewScript(checkEpoch + `
local after = tonumber(ARGV[2])
local first = redis.call('XRANGE', KEYS[2], '-', '+', 'COUNT', 1)
if #first == 0 then return {} end
local f = tonumber(string.match(first[1][1], '^(%d+)'))
if f > after + 1 then return redis.error_reply('TRIMMED ' .. (after + 1) .. ' ' .. (f - 1)) end
local out = {}
for _, e in ipairs(redis.call('XRANGE', KEYS[2], '(' .. ARGV[2] .. '-0', '+', 'COUNT', ARGV[3])) do
  out[#out + 1] = string.match(e[1], '^(%d+)')
  out[#out + 1] = e[2][2]
end
return out`)
)

// run runs script with the epoch key and the client's epoch prepended.
func (s *Store) run(ctx context.Context, script *redis.Script, keys []string, args ...any) (any, error) {
	return script.Run(ctx, s.c, append([]string{s.epochKey()}, keys...), append([]any{s.Epoch()}, args...)...).Result()
}

// enter checks the context and Close before a call.
func (s *Store) enter(ctx context.Context, op, name string) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("redisx: %s %q: %w", op, name, err)
	}
	if s.closed.Load() {
		return fmt.Errorf("redisx: %s %q: %w", op, name, exchange.ErrClosed)
	}
	return nil
}

// fail maps an error of a call for op on name to the package's errors.
func (s *Store) fail(ctx context.Context, op, name string, err error) error {
	var re redis.Error
	switch {
	case err == nil:
		return nil
	case s.closed.Load():
		return fmt.Errorf("redisx: %s %q: %w", op, name, exchange.ErrClosed)
	case ctx.Err() != nil:
		return fmt.Errorf("redisx: %s %q: %w", op, name, ctx.Err())
	case pastDeadline(ctx):
		// The connection's deadline (ContextTimeoutEnabled) can fire a
		// moment before the context's timer.
		return fmt.Errorf("redisx: %s %q: %w", op, name, context.DeadlineExceeded)
	case errors.Is(err, redis.Nil):
		return fmt.Errorf("redisx: %s %q: %w", op, name, exchange.ErrNotFound)
	case errors.As(err, &re):
		msg := re.Error()
		switch word, rest, _ := strings.Cut(msg, " "); word {
		case "LOST":
			return &exchange.EpochError{Op: op, Name: name, Was: s.Epoch(), Now: rest}
		case "TOOLARGE":
			return fmt.Errorf("redisx: %s %q: %s bytes stored, limit %d: %w", op, name, rest, s.cfg.Limits.MaxValue, exchange.ErrTooLarge)
		case "TRIMMED":
			var from, to uint64
			if _, err := fmt.Sscan(rest, &from, &to); err == nil {
				return &exchange.TrimmedError{Topic: name, From: from, To: to, Cap: s.cfg.Limits.MaxNotes}
			}
		case "WRONGTYPE":
			return fmt.Errorf("redisx: %s %q: %s: %w", op, name, msg, exchange.ErrMalformed)
		}
		// LOADING, BUSY, OOM, READONLY, …: the server cannot serve now.
		return fmt.Errorf("redisx: %s %q: server: %s: %w", op, name, msg, exchange.ErrUnavailable)
	}
	return fmt.Errorf("redisx: %s %q: %v: %w", op, name, err, exchange.ErrUnavailable)
}

// Put implements exchange.Store.
func (s *Store) Put(ctx context.Context, key string, value []byte) error {
	if err := exchange.CheckName("key", key); err != nil {
		return err
	}
	if len(value) > s.cfg.Limits.MaxValue {
		return fmt.Errorf("redisx: put %q: %d bytes, limit %d: %w", key, len(value), s.cfg.Limits.MaxValue, exchange.ErrTooLarge)
	}
	if err := s.enter(ctx, "put", key); err != nil {
		return err
	}
	_, err := s.run(ctx, scriptPut, []string{s.valueKey(key)}, value)
	return s.fail(ctx, "put", key, err)
}

// Get implements exchange.Store.
func (s *Store) Get(ctx context.Context, key string) ([]byte, error) {
	if err := exchange.CheckName("key", key); err != nil {
		return nil, err
	}
	if err := s.enter(ctx, "get", key); err != nil {
		return nil, err
	}
	v, err := s.run(ctx, scriptGet, []string{s.valueKey(key)}, s.cfg.Limits.MaxValue)
	if err != nil {
		return nil, s.fail(ctx, "get", key, err)
	}
	str, ok := v.(string)
	if !ok {
		return nil, fmt.Errorf("redisx: get %q: reply of type %T: %w", key, v, exchange.ErrMalformed)
	}
	return []byte(str), nil
}

// Delete implements exchange.Store.
func (s *Store) Delete(ctx context.Context, key string) error {
	if err := exchange.CheckName("key", key); err != nil {
		return err
	}
	if err := s.enter(ctx, "delete", key); err != nil {
		return err
	}
	_, err := s.run(ctx, scriptDelete, []string{s.valueKey(key)})
	return s.fail(ctx, "delete", key, err)
}

// Arrive implements exchange.Store.
func (s *Store) Arrive(ctx context.Context, name, member string) (int, error) {
	if err := exchange.CheckName("set", name); err != nil {
		return 0, err
	}
	if err := exchange.CheckName("member", member); err != nil {
		return 0, err
	}
	if err := s.enter(ctx, "arrive", name); err != nil {
		return 0, err
	}
	v, err := s.run(ctx, scriptArrive, []string{s.setKey(name), s.wakeKey(name)}, member)
	if err != nil {
		return 0, s.fail(ctx, "arrive", name, err)
	}
	return toInt(v)
}

// Count implements exchange.Store.
func (s *Store) Count(ctx context.Context, name string) (int, error) {
	if err := exchange.CheckName("set", name); err != nil {
		return 0, err
	}
	n, _, err := s.probe(ctx, "count", name)
	return n, err
}

// probe returns the size of set name and its wake stream's last ID.
func (s *Store) probe(ctx context.Context, op, name string) (int, string, error) {
	if err := s.enter(ctx, op, name); err != nil {
		return 0, "", err
	}
	v, err := s.run(ctx, scriptProbe, []string{s.setKey(name), s.wakeKey(name)})
	if err != nil {
		return 0, "", s.fail(ctx, op, name, err)
	}
	a, ok := v.([]any)
	if !ok || len(a) != 2 {
		return 0, "", fmt.Errorf("redisx: %s %q: reply %v: %w", op, name, v, exchange.ErrMalformed)
	}
	n, err := toInt(a[0])
	id, _ := a[1].(string)
	return n, id, err
}

// WaitCount implements exchange.Store. It blocks on the set's wake stream
// (XREAD BLOCK, at most Poll at a time), so it does not poll the count.
func (s *Store) WaitCount(ctx context.Context, name string, n int) (int, error) {
	if err := exchange.CheckName("set", name); err != nil {
		return 0, err
	}
	for {
		got, last, err := s.probe(ctx, "wait for", name)
		if err != nil || got >= n {
			return got, err
		}
		if err := s.block(ctx, "wait for", name, s.wakeKey(name), last); err != nil {
			return 0, err
		}
	}
}

// block waits, at most Poll, for an entry after id in stream key.
func (s *Store) block(ctx context.Context, op, name, key, id string) error {
	poll := s.cfg.Poll
	if d, ok := ctx.Deadline(); ok && time.Until(d) < poll {
		poll = max(time.Until(d), time.Millisecond)
	}
	err := s.c.XRead(ctx, &redis.XReadArgs{Streams: []string{key, id}, Count: 1, Block: poll}).Err()
	if errors.Is(err, redis.Nil) {
		err = nil // timed out: check again
	}
	if err == nil && ctx.Err() != nil {
		err = ctx.Err()
	}
	return s.fail(ctx, op, name, err)
}

// Append implements exchange.Store.
func (s *Store) Append(ctx context.Context, topic string, note []byte) (uint64, error) {
	if err := exchange.CheckName("topic", topic); err != nil {
		return 0, err
	}
	if len(note) > s.cfg.Limits.MaxValue {
		return 0, fmt.Errorf("redisx: append to %q: %d bytes, limit %d: %w", topic, len(note), s.cfg.Limits.MaxValue, exchange.ErrTooLarge)
	}
	if err := s.enter(ctx, "append to", topic); err != nil {
		return 0, err
	}
	v, err := s.run(ctx, scriptAppend, []string{s.topicKey(topic), s.counterKey(topic)}, note, s.cfg.Limits.MaxNotes)
	if err != nil {
		return 0, s.fail(ctx, "append to", topic, err)
	}
	n, err := toInt(v)
	return uint64(n), err
}

// Read implements exchange.Store.
func (s *Store) Read(ctx context.Context, topic string, after uint64, max int) ([]exchange.Note, error) {
	if err := exchange.CheckRead(topic, max); err != nil {
		return nil, err
	}
	for {
		if err := s.enter(ctx, "read", topic); err != nil {
			return nil, err
		}
		v, err := s.run(ctx, scriptRead, []string{s.topicKey(topic)}, after, max)
		if err != nil {
			return nil, s.fail(ctx, "read", topic, err)
		}
		a, ok := v.([]any)
		if !ok || len(a)%2 != 0 {
			return nil, fmt.Errorf("redisx: read %q: reply %T: %w", topic, v, exchange.ErrMalformed)
		}
		notes := make([]exchange.Note, 0, len(a)/2)
		for i := 0; i < len(a); i += 2 {
			ns, _ := a[i].(string)
			data, ok := a[i+1].(string)
			seq, err := strconv.ParseUint(ns, 10, 64)
			if !ok || err != nil {
				return nil, fmt.Errorf("redisx: read %q: entry %v: %w", topic, a[i], exchange.ErrMalformed)
			}
			notes = append(notes, exchange.Note{Seq: seq, Data: []byte(data)})
		}
		if len(notes) > 0 {
			return notes, nil
		}
		if err := s.block(ctx, "read", topic, s.topicKey(topic), strconv.FormatUint(after, 10)+"-0"); err != nil {
			return nil, err
		}
	}
}

// Check implements exchange.Store. Besides the epoch, it compares the
// server's run_id (INFO server) with the one seen at Open or the last
// Recover: a server restarted with persistence keeps the epoch but may
// have lost the writes after its last snapshot.
func (s *Store) Check(ctx context.Context) error {
	name := s.cfg.Namespace
	if err := s.enter(ctx, "check", name); err != nil {
		return err
	}
	if _, err := s.run(ctx, scriptCheck, nil); err != nil {
		return s.fail(ctx, "check", name, err)
	}
	id, err := s.serverRunID(ctx)
	if err != nil {
		return s.fail(ctx, "check", name, err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if id != s.runID {
		return &exchange.EpochError{Op: "check", Name: name, Was: s.epoch, Now: s.epoch,
			Detail: fmt.Sprintf("the server restarted (run_id %s, now %s): data restored from persistence may be older than what was written", s.runID, id)}
	}
	return nil
}

// serverRunID returns the server's run_id.
func (s *Store) serverRunID(ctx context.Context) (string, error) {
	info, err := s.c.Info(ctx, "server").Result()
	if err != nil {
		return "", err
	}
	for _, line := range strings.Split(info, "\n") {
		if id, ok := strings.CutPrefix(strings.TrimSpace(line), "run_id:"); ok {
			return id, nil
		}
	}
	return "", fmt.Errorf("no run_id in INFO server")
}

// Recover implements exchange.Store: it creates the namespace's epoch
// if there is none (SET NX, so one client's token wins), adopts it, and
// notes the server's run_id.
func (s *Store) Recover(ctx context.Context) (string, error) {
	name := s.cfg.Namespace
	if err := s.enter(ctx, "recover", name); err != nil {
		return "", err
	}
	token, err := newToken()
	if err != nil {
		return "", fmt.Errorf("redisx: recover %q: %v: %w", name, err, exchange.ErrUnavailable)
	}
	if err := s.c.SetNX(ctx, s.epochKey(), token, 0).Err(); err != nil {
		return "", s.fail(ctx, "recover", name, err)
	}
	e, err := s.c.Get(ctx, s.epochKey()).Result()
	if err != nil { // redis.Nil: lost again between the two calls
		return "", s.fail(ctx, "recover", name, err)
	}
	id, err := s.serverRunID(ctx)
	if err != nil {
		return "", s.fail(ctx, "recover", name, err)
	}
	s.mu.Lock()
	s.epoch, s.runID = e, id
	s.mu.Unlock()
	return e, nil
}

// newToken returns a fresh epoch token: 64 random bits in hex.
func newToken() (string, error) {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	return "r" + hex.EncodeToString(b[:]), nil
}

// Close implements exchange.Store: it closes the connection pool, which
// ends blocked calls with ErrClosed.
func (s *Store) Close() error {
	if s.closed.Swap(true) {
		return nil
	}
	return s.c.Close()
}

// pastDeadline reports whether ctx's deadline has passed.
func pastDeadline(ctx context.Context) bool {
	d, ok := ctx.Deadline()
	return ok && !time.Now().Before(d)
}

// toInt converts an integer reply.
func toInt(v any) (int, error) {
	n, ok := v.(int64)
	if !ok {
		return 0, fmt.Errorf("redisx: integer reply expected, got %T: %w", v, exchange.ErrMalformed)
	}
	return int(n), nil
}
