package algorithms

import (
	"errors"
	"fmt"
	"math/rand/v2"
)

// Algorithm is one data-parallel iterative training workload bound to its
// data set. It is the Go shape of the Flegel API (FSP paper Fig. 5:
// initParameter, updateDataPoint, aggregate, updateParameter): every data
// point contributes an additive Delta, deltas are merged, and a Server folds
// merged deltas into its state to produce new parameters θ.
//
// The contract is the same for gradient descent (delta = gradient sum over the
// processed points; the server takes an optimizer step with the mean) and for
// incremental EM (delta = change of sufficient statistics Δs_i = s_i(new) −
// s_i(old) per point, FSP paper Eq. 3; the server runs the M-step from the
// running statistics). Because deltas are associative and commutative, the
// same workload runs unchanged under BSP, SSP, ASP, ISP, FSP and K-grouping.
//
// Implementations do no I/O, start no goroutine and read no clock; all
// randomness comes from the *rand.Rand passed to Init.
type Algorithm interface {
	// Name is a short lower-case name such as "kmeans".
	Name() string
	// Layout gives the lengths of θ and of deltas.
	Layout() Layout
	// NumPoints is the number of data points in the bound data set.
	NumPoints() int
	// Init returns the initial parameters θ0.
	Init(rng *rand.Rand) ([]float64, error)
	// NewWorker returns a worker over the data points with the given indices
	// (a shard), processed in the order given.
	NewWorker(points []int) (Worker, error)
	// NewServer returns the coordinator-side state starting from θ0.
	NewServer(theta0 []float64) (Server, error)
	// Objective combines the workers' partial objectives, evaluated under
	// θ, into the objective (regularisation terms included).
	Objective(theta []float64, parts ...Partial) float64
	// Minimize reports whether smaller objective values are better.
	Minimize() bool
}

// Worker computes the contributions of its shard's data points.
//
// A worker may keep per-point state (EM keeps each point's last
// contribution s_i so that reprocessing the point yields s_i(new) − s_i(old)).
// That state advances when Process runs, so a runtime that drops a computed
// delta must also discard the worker, or restore it from a checkpoint taken
// before (see Checkpointer), to stay consistent.
type Worker interface {
	// Len is the number of local points.
	Len() int
	// SetParams installs the parameters that following calls compute under.
	// The worker reads theta until the next SetParams; the caller must not
	// modify it meanwhile.
	SetParams(theta []float64)
	// Process adds the contributions of local points lo..hi-1 under the
	// current parameters to d and adds hi-lo to d.Count. It must be
	// split-invariant: Process(lo, m, d) then Process(m, hi, d) leaves d
	// bit for bit as Process(lo, hi, d) does (the goroutine runtime
	// processes a batch in chunks; algotest checks it).
	Process(lo, hi int, d *Delta)
	// Evaluate returns this shard's partial objective under the current
	// parameters.
	Evaluate() Partial
}

// Server owns the parameters and whatever state produces them (running EM
// statistics, optimizer moments).
type Server interface {
	// Params returns the current θ. The slice is owned by the server and
	// valid until the next Apply; copy it to keep it longer.
	Params() []float64
	// Apply folds a merged delta into the state and recomputes θ. A delta
	// with the wrong layout or a non-finite live entry is refused with an
	// error and leaves the state unchanged. A delta with Count 0 is a no-op.
	Apply(d *Delta) error
	// Steps is the number of successful Apply calls with Count > 0.
	Steps() int
}

// Partial is a shard's contribution to the objective: a sum over its points
// and the number of points (or observed entries) summed. Partials add.
type Partial struct {
	Sum float64
	N   float64
}

// Add returns p + q.
func (p Partial) Add(q Partial) Partial { return Partial{p.Sum + q.Sum, p.N + q.N} }

// SumPartials returns the sum of parts.
func SumPartials(parts []Partial) Partial {
	var s Partial
	for _, p := range parts {
		s = s.Add(p)
	}
	return s
}

// Errors.
var (
	// ErrLayout reports a delta or parameter vector of the wrong shape.
	ErrLayout = errors.New("algorithms: layout mismatch")
	// ErrConfig reports an invalid configuration.
	ErrConfig = errors.New("algorithms: invalid config")
	// ErrNonFinite reports a NaN or ±Inf value in a delta or parameters.
	// It is always wrapped in a *NonFiniteError that names the entry, so
	// errors.Is(err, ErrNonFinite) holds for the servers', filter's and
	// transport's errors about such a value.
	ErrNonFinite = errors.New("algorithms: non-finite value")
)

// NonFiniteError reports a NaN or ±Inf value in a delta or parameters. It
// reads like
//
//	algorithms: delta entry 17 is NaN
type NonFiniteError struct {
	What  string // "delta" or "params"
	Index int
	Value float64
}

func (e *NonFiniteError) Error() string {
	return fmt.Sprintf("algorithms: %s entry %d is %v", e.What, e.Index, e.Value)
}

// Unwrap returns ErrNonFinite.
func (e *NonFiniteError) Unwrap() error { return ErrNonFinite }

// CheckApply validates a delta against a layout before a Server mutates any
// state: same length, same block width, finite live entries.
func CheckApply(l Layout, d *Delta) error {
	if d == nil {
		return fmt.Errorf("algorithms: nil delta: %w", ErrLayout)
	}
	if len(d.Vec) != l.Delta || d.block != l.Block {
		return fmt.Errorf("algorithms: delta len %d block %d, want len %d block %d: %w",
			len(d.Vec), d.block, l.Delta, l.Block, ErrLayout)
	}
	if d.Count < 0 {
		return fmt.Errorf("algorithms: delta count %d is negative: %w", d.Count, ErrLayout)
	}
	return d.CheckFinite()
}

// CheckParams validates θ: the right length and finite entries.
func CheckParams(l Layout, theta []float64) error {
	if len(theta) != l.Params {
		return fmt.Errorf("algorithms: params len %d, want %d: %w", len(theta), l.Params, ErrLayout)
	}
	for i, v := range theta {
		if v != v || v > maxFloat || v < -maxFloat {
			return &NonFiniteError{What: "params", Index: i, Value: v}
		}
	}
	return nil
}

const maxFloat = 1.7976931348623157e308
