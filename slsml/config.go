package slsml

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/syncmodels/syncmodels/cost"
	"github.com/syncmodels/syncmodels/latency"
)

// Errors. Every error Run returns wraps one of these, or a context error,
// or an error of package exchange (the store's) or algorithms.
var (
	// ErrConfig reports an invalid Config or algorithm, before any work.
	ErrConfig = errors.New("slsml: invalid configuration")
	// ErrMalformed reports a stored value that is not what the pipeline
	// wrote under that key (a foreign or corrupt value).
	ErrMalformed = errors.New("slsml: malformed value")
	// ErrStore reports a store that stayed unavailable beyond
	// Config.Retries retries of one operation.
	ErrStore = errors.New("slsml: store unavailable")
)

// LatePolicy says what becomes of a late gradient: one whose worker
// finished after the counting semaphore let the reducers of its
// iteration proceed.
type LatePolicy int

const (
	// Fold applies a late gradient in the first iteration whose reducers
	// see it (the next one, or later if it is later still), unless
	// Config.MaxLag says it is too old.
	Fold LatePolicy = iota
	// Drop drops every late gradient (counted).
	Drop
)

func (p LatePolicy) String() string {
	switch p {
	case Fold:
		return "fold"
	case Drop:
		return "drop"
	}
	return fmt.Sprintf("LatePolicy(%d)", int(p))
}

// DefaultQuorum is slsML's fraction: "we wait only until a certain
// portion of parallel computations is done (e.g., 90%)" (§"Mitigating
// stragglers").
const DefaultQuorum = 0.9

// Config configures a pipeline run. Zero fields take the defaults given.
type Config struct {
	// Workers (W) compute gradients, each on its own shard of the data.
	// Required, ≥ 1.
	Workers int
	// Reducers (R) each own a contiguous slice of θ (slice r is
	// [r·P/R, (r+1)·P/R) of the P parameters). Default 1; at most P.
	Reducers int
	// Iterations is the number of models the merger publishes after θ0.
	// Required, ≥ 1.
	Iterations int
	// Batch is the number of data points each worker processes per
	// iteration, cycling through its shard. Required, ≥ 1.
	Batch int
	// Quorum is the counting semaphore's fraction: the reducers of an
	// iteration proceed once ⌈Quorum·W⌉ of its workers have completed.
	// 1 is a barrier. Default DefaultQuorum; in (0, 1].
	Quorum float64
	// Late says what becomes of late gradients. Default Fold.
	Late LatePolicy
	// MaxLag bounds folding: a gradient computed on θ_t is folded only
	// into an iteration ≤ t + MaxLag and dropped (counted as stale) after.
	// 0 means no bound. Only with Fold.
	MaxLag int
	// Seed seeds θ0 and the per-operation delays.
	Seed uint64
	// Timing is the virtual-time cost model.
	Timing Timing
	// Prices prices functions and requests. The zero value means
	// cost.AWS2018().
	Prices cost.Serverless
	// Memory is each function's configured memory in MB, which its price
	// is proportional to.
	Memory Memory
	// OpTimeout bounds, in real time, one store operation (a blocked
	// WaitCount or Read that should have returned). Default 30 s.
	OpTimeout time.Duration
	// Retries bounds how often one operation is retried after the store
	// answered ErrUnavailable (each after Timing.Retry). Default 1000.
	Retries int
}

// Memory is the memory, in MB, of each function of the pipeline.
type Memory struct {
	// Worker, Reducer and Merger default to 3008 MB, Lambda's largest in
	// 2018: slsML's workload is CPU-bound and Lambda's CPU is
	// proportional to memory, so "the most cost-efficient approach is to
	// allocate the largest possible configuration" (§"Disk space").
	Worker, Reducer, Merger int
	// Launcher is the WorkLauncher's and the ReduceLauncher's memory
	// (default 128 MB: they only publish and count).
	Launcher int
}

// Timing is the virtual-time cost model: what each step of the pipeline
// takes. The operations themselves go through the real store; only their
// durations are modelled, so a run's schedule — which gradients make
// each iteration's quorum — depends on the seed and this model, never on
// how fast the store or the machine is.
type Timing struct {
	// ColdStart and WarmStart are a function invocation's start-up: cold
	// when no idle container of its function is left (default 1 s),
	// warm when one is reused (default 10 ms).
	ColdStart, WarmStart time.Duration
	// KeepAlive is how long an idle container stays warm (default
	// 10 min).
	KeepAlive time.Duration
	// Invoke is the delay from a notification to the invocation it
	// triggers (default 20 ms).
	Invoke time.Duration
	// PerPoint is a worker's compute time per data point (default 1 ms).
	PerPoint time.Duration
	// PerFloat is a reducer's time to add one float of one partition
	// (default 1 ns).
	PerFloat time.Duration
	// Bandwidth is a function's transfer rate to and from the store in
	// bytes per second (default 80e6): the transfers of operations a
	// function issues together share it.
	Bandwidth float64
	// ModelBytes is the model's size for transfer times; a partition or
	// slice transfers its share. 0 means the encoded size of θ (8 bytes a
	// parameter). A larger value models a larger network (slsML's
	// ResNet-50 is 180 MB) over the same small computation.
	ModelBytes int64
	// Store is every store request's latency, drawn per (invocation,
	// operation) from this seeded distribution. The zero Dist means
	// latency.Default(): 5 ms median, and one request in 10,000 takes
	// tens of seconds (slsML's tail latency).
	Store latency.Dist
	// Retry is the wait before retrying an operation that found the
	// store unavailable (default 100 ms).
	Retry time.Duration
}

// withDefaults validates c and fills in its defaults.
func (c Config) withDefaults() (Config, error) {
	bad := func(format string, args ...any) (Config, error) {
		return c, fmt.Errorf("slsml: Config."+format+": %w", append(args, ErrConfig)...)
	}
	switch {
	case c.Workers < 1:
		return bad("Workers = %d, want ≥ 1", c.Workers)
	case c.Reducers < 0:
		return bad("Reducers = %d, want ≥ 1 (or 0 for 1)", c.Reducers)
	case c.Iterations < 1:
		return bad("Iterations = %d, want ≥ 1", c.Iterations)
	case c.Batch < 1:
		return bad("Batch = %d, want ≥ 1", c.Batch)
	case math.IsNaN(c.Quorum) || c.Quorum < 0 || c.Quorum > 1:
		return bad("Quorum = %v, want a fraction in (0, 1] (or 0 for %v)", c.Quorum, DefaultQuorum)
	case c.Late != Fold && c.Late != Drop:
		return bad("Late = %v, want Fold or Drop", c.Late)
	case c.MaxLag < 0:
		return bad("MaxLag = %d, want ≥ 0 (0: no bound)", c.MaxLag)
	case c.MaxLag > 0 && c.Late != Fold:
		return bad("MaxLag = %d needs Late = Fold (got %v)", c.MaxLag, c.Late)
	case c.OpTimeout < 0:
		return bad("OpTimeout = %v is negative", c.OpTimeout)
	case c.Retries < 0:
		return bad("Retries = %d is negative", c.Retries)
	}
	if c.Reducers == 0 {
		c.Reducers = 1
	}
	if c.Quorum == 0 {
		c.Quorum = DefaultQuorum
	}
	if c.OpTimeout == 0 {
		c.OpTimeout = 30 * time.Second
	}
	if c.Retries == 0 {
		c.Retries = 1000
	}
	if c.Prices == (cost.Serverless{}) {
		c.Prices = cost.AWS2018()
	}
	if err := c.Prices.Validate(); err != nil {
		return bad("Prices: %v", err)
	}
	m := &c.Memory
	for _, f := range []struct {
		name string
		v    *int
		def  int
	}{{"Worker", &m.Worker, 3008}, {"Reducer", &m.Reducer, 3008}, {"Merger", &m.Merger, 3008}, {"Launcher", &m.Launcher, 128}} {
		if *f.v < 0 {
			return bad("Memory.%s = %d MB is negative", f.name, *f.v)
		}
		if *f.v == 0 {
			*f.v = f.def
		}
	}
	t, err := c.Timing.withDefaults()
	if err != nil {
		return c, err
	}
	c.Timing = t
	return c, nil
}

// withDefaults validates t and fills in its defaults.
func (t Timing) withDefaults() (Timing, error) {
	bad := func(format string, args ...any) (Timing, error) {
		return t, fmt.Errorf("slsml: Config.Timing."+format+": %w", append(args, ErrConfig)...)
	}
	for _, d := range []struct {
		name string
		v    *time.Duration
		def  time.Duration
	}{
		{"ColdStart", &t.ColdStart, time.Second},
		{"WarmStart", &t.WarmStart, 10 * time.Millisecond},
		{"KeepAlive", &t.KeepAlive, 10 * time.Minute},
		{"Invoke", &t.Invoke, 20 * time.Millisecond},
		{"PerPoint", &t.PerPoint, time.Millisecond},
		{"PerFloat", &t.PerFloat, time.Nanosecond},
		{"Retry", &t.Retry, 100 * time.Millisecond},
	} {
		if *d.v < 0 {
			return bad("%s = %v is negative", d.name, *d.v)
		}
		if *d.v == 0 {
			*d.v = d.def
		}
	}
	switch {
	case math.IsNaN(t.Bandwidth) || math.IsInf(t.Bandwidth, 0) || t.Bandwidth < 0:
		return bad("Bandwidth = %v bytes/s, want > 0 (or 0 for 80e6)", t.Bandwidth)
	case t.ModelBytes < 0:
		return bad("ModelBytes = %d is negative", t.ModelBytes)
	}
	if t.Bandwidth == 0 {
		t.Bandwidth = 80e6
	}
	if t.Store.IsZero() {
		t.Store = latency.Default()
	}
	if err := t.Store.Validate(); err != nil {
		return bad("Store: %v", err)
	}
	return t, nil
}

// need returns ⌈q·w⌉, at least 1: the completions the semaphore waits for.
func need(q float64, w int) int {
	n := int(math.Ceil(float64(q*float64(w)) - 1e-9))
	return max(1, min(n, w))
}
