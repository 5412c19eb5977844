package exchange

import (
	"context"
	"errors"
	"fmt"
)

// Store is a shared service that serverless workers exchange state
// through, with the primitives of the papers: values under keys that
// readers read without consuming them (the P2P paper's one-message peer
// queues, MLLess's Redis updates, slsML's S3 objects), counting sets for
// barriers and quorums (slsML's DynamoDB counter, made idempotent), and
// append-only topics for notifications (SNS topics, MLLess's signaling
// channel). A Store is one client's view of one namespace; every client
// of a namespace sees the same data. Implementations: Memory (in
// process, deterministic) and package redisx (a real Redis).
//
// Every method is safe for concurrent use, takes a context and, if the
// context is already done, does nothing and returns an error wrapping
// ctx.Err(). Errors name the operation and the key, set or topic, and
// wrap one of this package's sentinel errors (or a context error), so
// callers match them with errors.Is.
//
// # Epochs
//
// A client adopts the namespace's epoch when it opens: a token stored
// with the data. A store that loses its data (a Redis restarted without
// persistence, a flush) loses the token with it, and every later
// operation of the client — reads, writes and waits alike — fails with
// an *EpochError (wrapping ErrLost) and has no effect, until the client
// calls Recover to adopt the new epoch. So no client ever mixes data of
// two epochs, and none misses that data was lost. A write refused that
// way is not applied: the store checks the epoch and writes in one
// atomic step.
type Store interface {
	// Epoch returns the epoch the client adopted (at open, or at its last
	// Recover).
	Epoch() string

	// Put stores value under key, replacing what was there. A value
	// larger than the store's Limits.MaxValue is refused with
	// ErrTooLarge and the key keeps its value. The store keeps a copy:
	// the caller may reuse value.
	Put(ctx context.Context, key string, value []byte) error
	// Get returns a copy of the value under key, which stays in place:
	// reads do not consume. A key never written (or deleted) is
	// ErrNotFound; a stored value larger than Limits.MaxValue is
	// ErrTooLarge (the value is not transferred).
	Get(ctx context.Context, key string) ([]byte, error)
	// Delete removes key. Deleting an absent key is not an error.
	Delete(ctx context.Context, key string) error

	// Arrive adds member to the counting set name and returns the set's
	// size. It is idempotent: a member counts once however often it
	// arrives, so a retried or replayed arrival never counts twice
	// (unlike an increment, which a retry after a lost reply repeats).
	Arrive(ctx context.Context, name, member string) (int, error)
	// Count returns the size of the counting set name, 0 if none.
	Count(ctx context.Context, name string) (int, error)
	// WaitCount blocks until the counting set name has at least n
	// members and returns its size. n ≤ 0 returns at once.
	WaitCount(ctx context.Context, name string, n int) (int, error)

	// Append appends note to topic and returns its number: 1, 2, … in
	// the epoch. A topic keeps its last Limits.MaxNotes notes. A note
	// larger than Limits.MaxValue is refused with ErrTooLarge.
	Append(ctx context.Context, topic string, note []byte) (uint64, error)
	// Read returns, in order, up to max (≥ 1) notes of topic numbered
	// after `after`, blocking until there is at least one. If notes
	// after `after` were dropped by the topic's cap, it fails with
	// ErrTrimmed naming them (read after the last one named to go on).
	Read(ctx context.Context, topic string, after uint64, max int) ([]Note, error)

	// Check verifies that the client's epoch is current without doing
	// anything else: nil, or an *EpochError. (A Redis client also
	// reports a server restart whose persistence restored the epoch,
	// since the restored data may be older than what was written.)
	Check(ctx context.Context) error
	// Recover adopts the namespace's current epoch, creating a new one
	// if the store has none (the first client to recover after a loss
	// creates it, the others adopt it). It returns the epoch adopted.
	// Nothing of the lost epoch comes back: see Peer.Recover for what
	// a peer restores.
	Recover(ctx context.Context) (string, error)

	// Close releases the client. Later calls fail with ErrClosed, and
	// calls blocked in WaitCount or Read return ErrClosed. The data
	// stays in the store. Close is idempotent.
	Close() error
}

// Note is one notification of a topic.
type Note struct {
	// Seq is the note's number in its topic: 1, 2, … in the epoch.
	Seq uint64
	// Data is the note's payload (a copy).
	Data []byte
}

// Limits bounds what a store holds. The zero value means the defaults.
type Limits struct {
	// MaxValue is the largest value or note in bytes (default
	// DefaultMaxValue).
	MaxValue int
	// MaxNotes is how many notes a topic keeps; older ones are dropped
	// (default DefaultMaxNotes).
	MaxNotes int
}

// Defaults of Limits.
const (
	DefaultMaxValue = 64 << 20
	DefaultMaxNotes = 4096
)

// WithDefaults returns l with its zero fields set to the defaults, or an
// error naming a negative field.
func (l Limits) WithDefaults() (Limits, error) {
	if l.MaxValue < 0 {
		return l, fmt.Errorf("exchange: Limits.MaxValue %d is negative: %w", l.MaxValue, ErrConfig)
	}
	if l.MaxNotes < 0 {
		return l, fmt.Errorf("exchange: Limits.MaxNotes %d is negative: %w", l.MaxNotes, ErrConfig)
	}
	if l.MaxValue == 0 {
		l.MaxValue = DefaultMaxValue
	}
	if l.MaxNotes == 0 {
		l.MaxNotes = DefaultMaxNotes
	}
	return l, nil
}

// Errors. Every error a Store or Peer returns wraps one of these (or a
// context error, or for updates that break the message format
// transport.ErrMalformed as well as ErrMalformed).
var (
	// ErrNotFound reports a key never written, or deleted.
	ErrNotFound = errors.New("exchange: not found")
	// ErrTooLarge reports a value or note beyond the size limit; nothing
	// was written or transferred.
	ErrTooLarge = errors.New("exchange: value too large")
	// ErrLost reports that the store lost its data since the client
	// adopted its epoch (a Redis restarted without persistence); see
	// EpochError and LostError.
	ErrLost = errors.New("exchange: store lost its data")
	// ErrTrimmed reports notes that a topic's cap dropped before they
	// were read.
	ErrTrimmed = errors.New("exchange: notes trimmed")
	// ErrInput reports an invalid argument at run time: a key, set or
	// topic name that CheckName refuses, a Read of max < 1, an update
	// that breaks its rules (not a delta message, non-finite values,
	// another layout, a Seq going back).
	ErrInput = errors.New("exchange: invalid input")
	// ErrConfig reports an invalid configuration (Limits, a Peer's
	// Config, a client's options), before any work starts.
	ErrConfig = errors.New("exchange: invalid configuration")
	// ErrClosed reports a closed client.
	ErrClosed = errors.New("exchange: closed")
	// ErrUnavailable reports a store that could not be reached (a
	// refused connection, a reset, a timeout of the network rather than
	// of the caller's context). The operation may or may not have been
	// applied: every write of this package is idempotent, so retrying it
	// is safe.
	ErrUnavailable = errors.New("exchange: store unavailable")
	// ErrMalformed reports stored bytes that are not a valid value of
	// this package's formats (a corrupt or foreign value, a blob that
	// does not match its reference, an update of another job or peer).
	ErrMalformed = errors.New("exchange: malformed value")
)

// EpochError reports an operation refused because the store's epoch is
// not the one the client adopted. It wraps ErrLost.
type EpochError struct {
	// Op and Name are the operation refused and its key, set or topic.
	Op, Name string
	// Was is the client's epoch; Now the store's ("" if none yet: no
	// client has recovered since the loss).
	Was, Now string
	// Detail says more where the epoch alone does not (a Redis
	// restart detected by its run_id).
	Detail string
}

func (e *EpochError) Error() string { return "exchange: " + e.text() }

// text is the message without the package prefix.
func (e *EpochError) text() string {
	now := e.Now
	if now == "" {
		now = "none"
	}
	s := fmt.Sprintf("%s %q: store lost its data (epoch %s, now %s)", e.Op, e.Name, e.Was, now)
	if e.Detail != "" {
		s += ": " + e.Detail
	}
	return s
}

// Unwrap returns ErrLost.
func (e *EpochError) Unwrap() error { return ErrLost }

// TrimmedError reports notes From to To of a topic that its cap
// (Limits.MaxNotes) dropped before a Read asked for them. It wraps
// ErrTrimmed. Read after To to go on.
type TrimmedError struct {
	Topic    string
	From, To uint64
	Cap      int
}

func (e *TrimmedError) Error() string {
	return fmt.Sprintf("exchange: read %q: notes %d to %d were dropped (the topic keeps %d)", e.Topic, e.From, e.To, e.Cap)
}

// Unwrap returns ErrTrimmed.
func (e *TrimmedError) Unwrap() error { return ErrTrimmed }

// MaxName is the longest key, set or topic name, in bytes.
const MaxName = 200

// CheckName reports whether s is a valid key, set or topic name: 1 to
// MaxName bytes of ASCII letters, digits and . _ / : = @ + -. (No spaces,
// no braces, which Redis Cluster reads as hash tags, no control bytes.)
// what names the argument in the error.
func CheckName(what, s string) error {
	if len(s) == 0 {
		return fmt.Errorf("exchange: empty %s name: %w", what, ErrInput)
	}
	if len(s) > MaxName {
		return fmt.Errorf("exchange: %s name %.20q… is %d bytes, more than %d: %w", what, s, len(s), MaxName, ErrInput)
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case c == '.', c == '_', c == '/', c == ':', c == '=', c == '@', c == '+', c == '-':
		default:
			return fmt.Errorf("exchange: %s name %q: byte %d (%q) is not a letter, digit or one of ._/:=@+-: %w", what, s, i, c, ErrInput)
		}
	}
	return nil
}

// CheckRead validates Read's arguments.
func CheckRead(topic string, max int) error {
	if err := CheckName("topic", topic); err != nil {
		return err
	}
	if max < 1 {
		return fmt.Errorf("exchange: read %q: max %d, want ≥ 1: %w", topic, max, ErrInput)
	}
	return nil
}

// ctxErr returns an error wrapping ctx.Err() for op on name, or nil.
func ctxErr(ctx context.Context, op, name string) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("exchange: %s %q: %w", op, name, err)
	}
	return nil
}
