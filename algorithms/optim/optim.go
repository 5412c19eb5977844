package optim

import (
	"fmt"
	"math"
	"slices"

	"github.com/syncmodels/syncmodels/algorithms"
	"github.com/syncmodels/syncmodels/internal/fpdet"
	"github.com/syncmodels/syncmodels/internal/kernel"
)

// Method selects the update rule of an Optimizer.
type Method int

const (
	// SGD is plain gradient descent: θ ← θ − η·g.
	SGD Method = iota
	// Momentum is heavy-ball momentum in the PyTorch convention
	// (dampening 0): v ← μ·v + g; θ ← θ − η·v.
	Momentum
	// Nesterov is Nesterov momentum in the PyTorch convention:
	// v ← μ·v + g; θ ← θ − η·(g + μ·v).
	Nesterov
	// Adam is Kingma and Ba's Adam with bias correction, written as PyTorch
	// does: m ← β1·m + (1−β1)·g; v ← β2·v + (1−β2)·g²;
	// θ ← θ − (η/(1−β1ᵗ))·m / (√v/√(1−β2ᵗ) + ε).
	Adam
)

var methodNames = [...]string{"sgd", "momentum", "nesterov", "adam"}

// String returns the lower-case name of m ("sgd", "momentum", "nesterov",
// "adam").
func (m Method) String() string {
	if m >= 0 && int(m) < len(methodNames) {
		return methodNames[m]
	}
	return fmt.Sprintf("Method(%d)", int(m))
}

// ParseMethod returns the Method named s, as printed by Method.String.
func ParseMethod(s string) (Method, error) {
	for i, n := range methodNames {
		if n == s {
			return Method(i), nil
		}
	}
	return 0, fmt.Errorf("optim: unknown method %q: %w", s, algorithms.ErrConfig)
}

// Schedule selects how the learning rate changes with the epoch.
type Schedule int

const (
	// Constant keeps the learning rate at Config.LR.
	Constant Schedule = iota
	// InvSqrtEpoch uses η_e = LR/√(e+1) in (0-based) epoch e, as MLLess
	// does for logistic regression.
	InvSqrtEpoch
)

// String returns "constant" or "invsqrt".
func (s Schedule) String() string {
	switch s {
	case Constant:
		return "constant"
	case InvSqrtEpoch:
		return "invsqrt"
	}
	return fmt.Sprintf("Schedule(%d)", int(s))
}

// Default hyper-parameters, filled in by Config.Validate for zero fields.
const (
	DefaultLR       = 0.01  // SGD, Momentum, Nesterov
	DefaultAdamLR   = 0.001 // Adam (PyTorch's default)
	DefaultMomentum = 0.9
	DefaultBeta1    = 0.9
	DefaultBeta2    = 0.999
	DefaultEpsilon  = 1e-8 // MLLess used 1e-9 for logistic regression
)

// Config configures an Optimizer. The zero value is valid: SGD with
// learning rate 0.01 and a constant schedule. Zero fields take the defaults
// listed on each; a field that does not apply to Method is ignored.
type Config struct {
	// Method is the update rule. Default SGD.
	Method Method
	// LR is the base learning rate η, in parameter units per unit of mean
	// gradient. Default 0.01 (SGD, Momentum, Nesterov) or 0.001 (Adam).
	LR float64
	// Momentum is μ in [0, 1) for Momentum and Nesterov. Default 0.9 (the
	// MLLess PMF setting is 0.8). For no momentum use Method SGD.
	Momentum float64
	// Beta1 is Adam's first-moment decay β1 in (0, 1). Default 0.9.
	Beta1 float64
	// Beta2 is Adam's second-moment decay β2 in (0, 1). Default 0.999.
	Beta2 float64
	// Epsilon is Adam's ε > 0, added to the bias-corrected √v. Default 1e-8
	// (PyTorch); MLLess used 1e-9.
	Epsilon float64
	// Schedule is the learning-rate schedule. Default Constant.
	Schedule Schedule
}

// Validate fills the defaults of zero fields and reports an error wrapping
// algorithms.ErrConfig for an invalid configuration. It is idempotent.
func (c *Config) Validate() error {
	if c.Method < SGD || c.Method > Adam {
		return fmt.Errorf("optim: unknown method %d: %w", int(c.Method), algorithms.ErrConfig)
	}
	if c.Schedule < Constant || c.Schedule > InvSqrtEpoch {
		return fmt.Errorf("optim: unknown schedule %d: %w", int(c.Schedule), algorithms.ErrConfig)
	}
	if c.LR == 0 {
		c.LR = DefaultLR
		if c.Method == Adam {
			c.LR = DefaultAdamLR
		}
	}
	if c.Momentum == 0 {
		c.Momentum = DefaultMomentum
	}
	if c.Beta1 == 0 {
		c.Beta1 = DefaultBeta1
	}
	if c.Beta2 == 0 {
		c.Beta2 = DefaultBeta2
	}
	if c.Epsilon == 0 {
		c.Epsilon = DefaultEpsilon
	}
	switch {
	case !(c.LR > 0) || math.IsInf(c.LR, 0):
		return fmt.Errorf("optim: learning rate %v is not a positive finite number: %w", c.LR, algorithms.ErrConfig)
	case !(c.Momentum >= 0 && c.Momentum < 1):
		return fmt.Errorf("optim: momentum %v not in [0, 1): %w", c.Momentum, algorithms.ErrConfig)
	case !(c.Beta1 > 0 && c.Beta1 < 1):
		return fmt.Errorf("optim: beta1 %v not in (0, 1): %w", c.Beta1, algorithms.ErrConfig)
	case !(c.Beta2 > 0 && c.Beta2 < 1):
		return fmt.Errorf("optim: beta2 %v not in (0, 1): %w", c.Beta2, algorithms.ErrConfig)
	case !(c.Epsilon > 0) || math.IsInf(c.Epsilon, 0):
		return fmt.Errorf("optim: epsilon %v is not a positive finite number: %w", c.Epsilon, algorithms.ErrConfig)
	}
	return nil
}

// Rate returns the learning rate the schedule gives in (0-based) epoch e.
func (c *Config) Rate(epoch int) float64 {
	if c.Schedule == InvSqrtEpoch {
		return c.LR / math.Sqrt(float64(epoch)+1)
	}
	return c.LR
}

// Optimizer updates parameters θ in place from a mean gradient g.
//
// Step updates every entry. StepBlocks is the lazy sparse step: it updates
// only the entries of the given blocks [b·width, (b+1)·width) and leaves
// every other entry of θ and of the optimizer state (momentum buffer, Adam
// moments) untouched, as PyTorch's SparseAdam and TensorFlow's LazyAdam do.
// The step counter t (Adam's bias correction) is global: it advances once
// per call, whichever blocks the call touches. Consequences of laziness,
// for Momentum, Nesterov and Adam:
//   - a row that is not touched does not move, although in a dense step its
//     momentum would keep moving it and decaying;
//   - when a row is touched again its buffers resume where they were, not
//     decayed by the steps it missed; Adam's bias correction uses the
//     global t, so a row first touched at a late step is corrected as if it
//     had seen t steps of zero gradient.
//
// When every block is touched, StepBlocks equals Step exactly; for SGD the
// two also agree on untouched rows, whose gradient is zero.
//
// An Optimizer is not safe for concurrent use.
type Optimizer interface {
	// Step sets θ ← θ − update(g) for every entry. θ and g must have the
	// length the optimizer was made for.
	Step(theta, grad []float64)
	// StepBlocks is Step restricted to the entries of blocks of the given
	// width (the last block may be short). Blocks must be distinct; they
	// are visited in the order given. Entries of grad outside the blocks
	// are not read.
	StepBlocks(theta, grad []float64, blocks []int32, width int)
	// SetEpoch sets the 0-based epoch the learning-rate schedule uses for
	// the following steps.
	SetEpoch(epoch int)
	// Steps returns the number of Step and StepBlocks calls so far.
	Steps() int
	// Config returns the configuration with defaults filled in.
	Config() Config
	// Checkpoint and Restore save and restore the step counter, the epoch
	// and the momentum buffer or Adam moments, every entry (touched or
	// not). An optimizer refuses the checkpoint of one with another
	// configuration or number of parameters.
	algorithms.Checkpointer
}

// New returns an Optimizer for n parameters. It validates a copy of cfg.
func New(cfg Config, n int) (Optimizer, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if n < 0 {
		return nil, fmt.Errorf("optim: %d parameters: %w", n, algorithms.ErrConfig)
	}
	b := base{cfg: cfg, n: n, lr: cfg.Rate(0), owner: fmt.Sprintf("optimizer %+v for %d parameters", cfg, n)}
	switch cfg.Method {
	case SGD:
		return &sgd{base: b}, nil
	case Momentum, Nesterov:
		return &momentum{base: b, v: make([]float64, n), nesterov: cfg.Method == Nesterov}, nil
	default:
		return &adam{base: b, m: make([]float64, n), v: make([]float64, n)}, nil
	}
}

// base holds what every optimizer shares.
type base struct {
	cfg   Config
	n     int
	t     int     // steps taken
	epoch int     // current epoch for the schedule
	lr    float64 // cfg.Rate(epoch)
	owner string  // of checkpoints: cfg and n
}

// optState is a checkpoint of an optimizer: its base and copies of its
// buffers (nil when it has none).
type optState struct {
	base base
	m, v []float64
}

// checkpoint returns a checkpoint of b and the buffers m and v.
func (b *base) checkpoint(m, v []float64) algorithms.Checkpoint {
	return algorithms.NewCheckpoint(b.owner, &optState{base: *b, m: slices.Clone(m), v: slices.Clone(v)})
}

// restore restores b and the buffers m and v from c.
func (b *base) restore(c algorithms.Checkpoint, m, v []float64) error {
	st, err := algorithms.CheckpointState[*optState](c, b.owner)
	if err != nil {
		return err
	}
	*b = st.base
	copy(m, st.m)
	copy(v, st.v)
	return nil
}

func (b *base) Steps() int     { return b.t }
func (b *base) Config() Config { return b.cfg }
func (b *base) SetEpoch(e int) {
	if e < 0 {
		panic(fmt.Sprintf("optim: negative epoch %d", e))
	}
	b.epoch = e
	b.lr = b.cfg.Rate(e)
}

func (b *base) check(theta, grad []float64) {
	if len(theta) != b.n || len(grad) != b.n {
		panic(fmt.Sprintf("optim: step with len(theta) %d, len(grad) %d; optimizer has %d parameters",
			len(theta), len(grad), b.n))
	}
}

// runs calls fn for each maximal run of consecutive blocks, as an index
// range clipped to n.
func (b *base) runs(blocks []int32, width int, fn func(lo, hi int)) {
	if width <= 0 {
		panic(fmt.Sprintf("optim: block width %d", width))
	}
	for i := 0; i < len(blocks); {
		j := i + 1
		for j < len(blocks) && blocks[j] == blocks[j-1]+1 {
			j++
		}
		first, last := int(blocks[i]), int(blocks[j-1])
		if first < 0 || last*width >= b.n {
			panic(fmt.Sprintf("optim: blocks %d..%d of width %d outside %d parameters", first, last, width, b.n))
		}
		lo, hi := first*width, min((last+1)*width, b.n)
		fn(lo, hi)
		i = j
	}
}

type sgd struct{ base }

func (o *sgd) Checkpoint() algorithms.Checkpoint     { return o.checkpoint(nil, nil) }
func (o *sgd) Restore(c algorithms.Checkpoint) error { return o.restore(c, nil, nil) }

func (o *sgd) Step(theta, grad []float64) {
	o.check(theta, grad)
	o.t++
	kernel.Axpy(-o.lr, grad, theta)
}

func (o *sgd) StepBlocks(theta, grad []float64, blocks []int32, width int) {
	o.check(theta, grad)
	o.t++
	o.runs(blocks, width, func(lo, hi int) { kernel.Axpy(-o.lr, grad[lo:hi], theta[lo:hi]) })
}

type momentum struct {
	base
	v        []float64
	nesterov bool
}

func (o *momentum) Checkpoint() algorithms.Checkpoint     { return o.checkpoint(nil, o.v) }
func (o *momentum) Restore(c algorithms.Checkpoint) error { return o.restore(c, nil, o.v) }

func (o *momentum) Step(theta, grad []float64) {
	o.check(theta, grad)
	o.t++
	o.span(theta, grad, 0, o.n)
}

func (o *momentum) StepBlocks(theta, grad []float64, blocks []int32, width int) {
	o.check(theta, grad)
	o.t++
	o.runs(blocks, width, func(lo, hi int) { o.span(theta, grad, lo, hi) })
}

func (o *momentum) span(theta, grad []float64, lo, hi int) {
	th, g, v := theta[lo:hi], grad[lo:hi], o.v[lo:hi]
	g, v = g[:len(th)], v[:len(th)]
	mu, lr := o.cfg.Momentum, o.lr
	if o.nesterov {
		for i := range th {
			vi := float64(mu*v[i]) + g[i]
			v[i] = vi
			th[i] -= float64(lr * (g[i] + float64(mu*vi)))
		}
		return
	}
	for i := range th {
		vi := float64(mu*v[i]) + g[i]
		v[i] = vi
		th[i] -= float64(lr * vi)
	}
}

type adam struct {
	base
	m, v []float64
	// per-step constants: η_t/(1−β1ᵗ) and 1/√(1−β2ᵗ)
	stepSize, invSq2 float64
}

func (o *adam) Checkpoint() algorithms.Checkpoint     { return o.checkpoint(o.m, o.v) }
func (o *adam) Restore(c algorithms.Checkpoint) error { return o.restore(c, o.m, o.v) }

func (o *adam) begin() {
	o.t++
	bc1 := 1 - fpdet.Pow(o.cfg.Beta1, float64(o.t))
	bc2 := 1 - fpdet.Pow(o.cfg.Beta2, float64(o.t))
	o.stepSize = o.lr / bc1
	o.invSq2 = 1 / math.Sqrt(bc2)
}

func (o *adam) Step(theta, grad []float64) {
	o.check(theta, grad)
	o.begin()
	o.span(theta, grad, 0, o.n)
}

func (o *adam) StepBlocks(theta, grad []float64, blocks []int32, width int) {
	o.check(theta, grad)
	o.begin()
	o.runs(blocks, width, func(lo, hi int) { o.span(theta, grad, lo, hi) })
}

func (o *adam) span(theta, grad []float64, lo, hi int) {
	th, g, m, v := theta[lo:hi], grad[lo:hi], o.m[lo:hi], o.v[lo:hi]
	g, m, v = g[:len(th)], m[:len(th)], v[:len(th)]
	b1, b2, eps := o.cfg.Beta1, o.cfg.Beta2, o.cfg.Epsilon
	step, is2 := o.stepSize, o.invSq2
	c1, c2 := 1-b1, 1-b2
	for i := range th {
		gi := g[i]
		mi := float64(b1*m[i]) + float64(c1*gi)
		vi := float64(b2*v[i]) + float64(c2*gi*gi)
		m[i], v[i] = mi, vi
		th[i] -= step * mi / (float64(math.Sqrt(vi)*is2) + eps)
	}
}
