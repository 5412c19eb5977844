package workload

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/syncmodels/syncmodels/algorithms/optim"
)

// Spec describes a workload: an algorithm, its data and its settings. It
// is plain data, meant to travel as JSON (a coordinator sends it to its
// workers, which Open the same workload from it). The JSON keys are the
// field names in snake case, the same as syncbench's flags.
//
// Zero values: Data "", N 0, Dim 0, LR 0, Optimizer "", L2 nil and
// Positive nil stand for the algorithm's or the generator's choice, which
// Open resolves; K 0, Rank 0 and Init "" are invalid, and WithDefaults
// fills them. Seed has no default: 0 is a seed like any other (syncbench's
// -seed defaults to 1).
type Spec struct {
	// Algo names the algorithm, a registry name: kmeans, gmm, fcm, lr,
	// pmf or nmf for the built-in registry.
	Algo string `json:"algo"`
	// Data is the data set, KIND:ARG (see Load): idx:PATH, libsvm:PATH,
	// libsvm0:PATH, csv:PATH, movielens:PATH or synthetic:NAME. Empty =
	// the algorithm's (Entry.Data). A PATH is read on the machine that
	// loads it: every worker needs the same file (ShardHash checks).
	Data string `json:"data,omitempty"`
	// N is the number of points of synthetic data (ratings for
	// synthetic:ratings); 0 = the generator's (Generators).
	N int `json:"n,omitempty"`
	// Dim is the dimension of synthetic data; 0 = the generator's.
	// synthetic:ratings ignores it (2000 users × 4000 items).
	Dim int `json:"dim,omitempty"`
	// K is the number of clusters (kmeans, gmm, fcm); default 10.
	K int `json:"k,omitempty"`
	// Rank is the factor rank (pmf, nmf); default 10.
	Rank int `json:"rank,omitempty"`
	// Init chooses the initial centers (kmeans, gmm, fcm): first (the
	// first K points), random or kmeans++; default kmeans++.
	Init string `json:"init,omitempty"`
	// Optimizer is the optimizer of lr, pmf and nmf: sgd, momentum,
	// nesterov or adam; empty = the algorithm's (Entry.Optim).
	Optimizer string `json:"optimizer,omitempty"`
	// LR is the learning rate of lr, pmf and nmf, > 0; 0 = the
	// algorithm's (Entry.Optim.LR).
	LR float64 `json:"lr,omitempty"`
	// L2 is the L2 coefficient λ ≥ 0 of lr and pmf; nil = the
	// algorithm's (Entry.L2).
	L2 *float64 `json:"l2,omitempty"`
	// Positive, for lr on multi-class data, is the class that becomes
	// label 1 (all others 0); nil = use the labels as they are (0/1 or
	// ±1).
	Positive *int `json:"positive,omitempty"`
	// Seed drives the synthetic data (and nothing else: θ0 and sharding
	// take the experiment's seed, Sharding.Seed).
	Seed uint64 `json:"seed"`
	// Float32 stores kmeans's data as float32 for speed.
	Float32 bool `json:"float32,omitempty"`
}

// Defaults of the fields WithDefaults fills (syncbench's flag defaults).
const (
	DefaultK    = 10
	DefaultRank = 10
	DefaultInit = "kmeans++"
)

// MaxValues bounds the values a workload holds: n·dim of synthetic data,
// and (rows + columns)·rank factors of pmf and nmf (8 GiB of float64s), so
// that a stray zero fails with an error instead of exhausting memory.
const MaxValues = 1 << 30

// ErrConfig is matched (errors.Is) by every error that a Spec or a
// Sharding causes, a *SpecError: an invalid field, a data spec of the
// wrong form, or settings that do not fit the data (more clusters than
// points, a positive class the labels lack). Errors reading a data file are
// not ErrConfig.
var ErrConfig = errors.New("workload: invalid spec")

// ErrTooLarge is matched (errors.Is, with ErrConfig) by an error refusing a
// workload of more than MaxValues values.
var ErrTooLarge = errors.New("workload: more than MaxValues values")

// SpecError is an error a Spec or a Sharding causes. It reads
// "workload: " + Msg, for example
//
//	workload: -rank 0: want ≥ 1
type SpecError struct {
	// Field is the JSON key of the field the message starts with: "rank".
	Field string
	// Msg is the message without the package prefix. It names Field first
	// as a flag, a dash and the key, then its value ("-rank 0: want ≥ 1"),
	// and other fields the same way ("want -k ≤ 20"): syncbench, whose
	// flags have these names, prints Msg as it is.
	Msg string
	// Err is ErrConfig, or ErrTooLarge for a workload beyond MaxValues.
	Err error
}

func (e *SpecError) Error() string { return "workload: " + e.Msg }

// Unwrap returns ErrConfig, and ErrTooLarge when that is Err.
func (e *SpecError) Unwrap() []error {
	if e.Err == ErrTooLarge {
		return []error{ErrConfig, ErrTooLarge}
	}
	return []error{ErrConfig}
}

// specErrorf makes an ErrConfig whose message starts with "-FIELD".
func specErrorf(format string, args ...any) error {
	return newSpecError(ErrConfig, format, args...)
}

func newSpecError(err error, format string, args ...any) *SpecError {
	msg := fmt.Sprintf(format, args...)
	field, _, _ := strings.Cut(strings.TrimPrefix(msg, "-"), " ")
	return &SpecError{Field: field, Msg: msg, Err: err}
}

// WithDefaults returns s with the defaults of the built-in registry
// filled; see Registry.WithDefaults.
func (s Spec) WithDefaults() Spec { return builtin.WithDefaults(s) }

// Validate checks s against the built-in registry; see Registry.Validate.
func (s Spec) Validate() error { return builtin.Validate(s) }

// WithDefaults returns s with its zero K, Rank and Init set to DefaultK,
// DefaultRank and DefaultInit, and an empty Data set to the algorithm's,
// as syncbench's flags default. Fields whose zero means the algorithm's
// choice (LR, Optimizer, L2, N, Dim) are left as they are.
func (r *Registry) WithDefaults(s Spec) Spec {
	if s.K == 0 {
		s.K = DefaultK
	}
	if s.Rank == 0 {
		s.Rank = DefaultRank
	}
	if s.Init == "" {
		s.Init = DefaultInit
	}
	if e, ok := r.Lookup(s.Algo); ok && s.Data == "" {
		s.Data = e.Data
	}
	return s
}

// Validate checks the fields of s as they are (call WithDefaults first to
// fill K, Rank and Init): the algorithm is registered; K and Rank ≥ 1; N,
// Dim, LR, L2 and Positive ≥ 0 and finite; Init and Optimizer known. It
// checks every field whatever the algorithm reads. Data is checked by
// Load, which parses it. The error, one line, names the first field at
// fault as a flag ("-k 0: want ≥ 1") and matches ErrConfig.
func (r *Registry) Validate(s Spec) error {
	if _, ok := r.Lookup(s.Algo); !ok {
		return specErrorf("-algo %q: want %s", s.Algo, orList(r.Names()))
	}
	switch {
	case s.K < 1:
		return specErrorf("-k %d: want ≥ 1", s.K)
	case s.Rank < 1:
		return specErrorf("-rank %d: want ≥ 1", s.Rank)
	case s.N < 0 || s.Dim < 0:
		return specErrorf("-n %d -dim %d: want ≥ 0 (0 = the generator's size)", s.N, s.Dim)
	case s.LR < 0 || math.IsNaN(s.LR) || math.IsInf(s.LR, 0):
		return specErrorf("-lr %v: want a finite number ≥ 0 (0 = the algorithm's)", s.LR)
	case s.L2 != nil && !(*s.L2 >= 0 && !math.IsInf(*s.L2, 0)):
		return specErrorf("-l2 %v: want a finite number ≥ 0 (none = the algorithm's)", *s.L2)
	case s.Positive != nil && *s.Positive < 0:
		return specErrorf("-positive %d: want a class label ≥ 0 (none = use the labels as they are)", *s.Positive)
	}
	switch s.Init {
	case "first", "random", "kmeans++":
	default:
		return specErrorf("-init %q: want first, random or kmeans++", s.Init)
	}
	if s.Optimizer != "" {
		if _, err := optim.ParseMethod(s.Optimizer); err != nil {
			return specErrorf("-optimizer %q: want sgd, momentum, nesterov or adam", s.Optimizer)
		}
	}
	return nil
}

// optimConfig returns the optimizer s asks for over the algorithm's base.
func (s Spec) optimConfig(base optim.Config) optim.Config {
	c := base
	if s.Optimizer != "" {
		c.Method, _ = optim.ParseMethod(s.Optimizer)
	}
	if s.LR > 0 {
		c.LR = s.LR
	}
	return c
}

// l2 returns the L2 coefficient s asks for, def when it says none.
func (s Spec) l2(def float64) float64 {
	if s.L2 != nil {
		return *s.L2
	}
	return def
}

// orList joins names as "a, b or c".
func orList(names []string) string {
	switch len(names) {
	case 0:
		return "a registered algorithm (none is)"
	case 1:
		return names[0]
	}
	out := ""
	for i, n := range names[:len(names)-1] {
		if i > 0 {
			out += ", "
		}
		out += n
	}
	return out + " or " + names[len(names)-1]
}
