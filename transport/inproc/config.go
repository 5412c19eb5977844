package inproc

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/syncmodels/syncmodels/algorithms"
)

// Defaults.
const (
	// DefaultMaxMessage is the default message size limit: 64 MiB, gRPC's
	// order of magnitude for large messages.
	DefaultMaxMessage = 64 << 20
	// DefaultInbox is the default queue capacity of an endpoint, in
	// messages.
	DefaultInbox = 1024
)

// maxLatency bounds Delay + Jitter (about 146 years), so arrival times do
// not overflow.
const maxLatency = 1 << 62

// ErrConfig reports an invalid Config.
var ErrConfig = errors.New("inproc: invalid config")

// Config configures a Network. The zero value (with a Layout) is a
// reliable, ordered, instantaneous network on the real clock.
type Config struct {
	// Layout is the layout of the job's parameters and deltas; messages
	// are validated against it on Send and decoded with it on Recv.
	Layout algorithms.Layout

	// Seed seeds the link's randomness (drop, duplication, jitter). Each
	// opening of a node draws from its own PCG stream, derived from Seed,
	// the node ID and how many times the node was opened before, so the
	// fate of a sender's messages does not depend on how goroutines of
	// different senders interleave. Default 0.
	Seed uint64

	// Delay is the latency of every message. Default 0. Delay + Jitter
	// must be below 2^62 ns.
	Delay time.Duration
	// Jitter adds a per-message latency drawn uniformly from [0, Jitter).
	// Messages are delivered in order of arrival time, so jitter reorders
	// them. Default 0.
	Jitter time.Duration

	// Drop is the probability, in [0, 1], that a message is lost.
	// Default 0.
	Drop float64
	// Duplicate is the probability, in [0, 1], that a message that is not
	// dropped is delivered twice (the copy with its own jitter). Default 0.
	Duplicate float64

	// MaxMessage is the largest encoded message Send accepts, in bytes.
	// Default (0) DefaultMaxMessage.
	MaxMessage int
	// Inbox is the capacity of each endpoint's queue, in messages, counting
	// those in flight to it. Default (0) DefaultInbox.
	Inbox int

	// Clock supplies the time for delays. Default (nil) the real clock,
	// which testing/synctest fakes inside a bubble: there, create the
	// network and open its endpoints inside the bubble.
	Clock Clock
}

// Clock is the time source of a Network: the current time and one-shot
// callbacks. time.Now and time.AfterFunc satisfy it (see RealClock).
type Clock interface {
	Now() time.Time
	AfterFunc(d time.Duration, f func()) Timer
}

// Timer is a pending AfterFunc callback; *time.Timer satisfies it.
type Timer interface {
	// Stop prevents the callback from running, reporting whether it did.
	Stop() bool
}

// RealClock is the real time: time.Now and time.AfterFunc.
type RealClock struct{}

// Now returns time.Now().
func (RealClock) Now() time.Time { return time.Now() }

// AfterFunc returns time.AfterFunc(d, f).
func (RealClock) AfterFunc(d time.Duration, f func()) Timer { return time.AfterFunc(d, f) }

// validate fills in defaults and checks every field.
func (c *Config) validate() error {
	l := c.Layout
	if l.Params < 0 || l.Delta < 0 || l.Block < 0 || l.Params > math.MaxInt32 || l.Delta > math.MaxInt32 {
		return fmt.Errorf("inproc: layout %+v: lengths must be in [0, 2^31-1]: %w", l, ErrConfig)
	}
	switch {
	case c.Delay < 0:
		return fmt.Errorf("inproc: Delay %v is negative: %w", c.Delay, ErrConfig)
	case c.Jitter < 0:
		return fmt.Errorf("inproc: Jitter %v is negative: %w", c.Jitter, ErrConfig)
	case c.Delay > maxLatency || c.Jitter > maxLatency-c.Delay:
		return fmt.Errorf("inproc: Delay %v + Jitter %v exceeds %v: %w", c.Delay, c.Jitter, time.Duration(maxLatency), ErrConfig)
	case !(c.Drop >= 0 && c.Drop <= 1):
		return fmt.Errorf("inproc: Drop %v is not a probability in [0, 1]: %w", c.Drop, ErrConfig)
	case !(c.Duplicate >= 0 && c.Duplicate <= 1):
		return fmt.Errorf("inproc: Duplicate %v is not a probability in [0, 1]: %w", c.Duplicate, ErrConfig)
	case c.MaxMessage < 0:
		return fmt.Errorf("inproc: MaxMessage %d is negative: %w", c.MaxMessage, ErrConfig)
	case c.Inbox < 0:
		return fmt.Errorf("inproc: Inbox %d is negative: %w", c.Inbox, ErrConfig)
	}
	if c.MaxMessage == 0 {
		c.MaxMessage = DefaultMaxMessage
	}
	if c.Inbox == 0 {
		c.Inbox = DefaultInbox
	}
	if c.Clock == nil {
		c.Clock = RealClock{}
	}
	return nil
}
