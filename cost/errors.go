package cost

import (
	"errors"
	"strconv"
	"strings"
)

// Sentinel errors. Every error caused by bad input wraps one of them (in an
// *Error or a *ParseError that names the input); match with errors.Is.
var (
	// ErrNegative: a time, duration, price or count is negative.
	ErrNegative = errors.New("cost: negative")
	// ErrNonFinite: a price, time or ratio is NaN or ±Inf.
	ErrNonFinite = errors.New("cost: not finite")
	// ErrNotFinite is the former name of ErrNonFinite, the same error.
	//
	// Deprecated: use ErrNonFinite (docs/errors.md). ErrNotFinite will be
	// removed no earlier than v0.2.0.
	ErrNotFinite = ErrNonFinite
	// ErrOrder: a lifetime stops before it starts, or starts before the
	// previous lifetime of the same resource stopped, or trace times are not
	// strictly increasing.
	ErrOrder = errors.New("cost: out of order")
	// ErrUnknown: no resource (or price-table entry) has that name.
	ErrUnknown = errors.New("cost: unknown resource")
	// ErrDuplicate: a resource with that name was already added.
	ErrDuplicate = errors.New("cost: duplicate resource")
	// ErrRunning: Start or Record on a resource whose lifetime is open.
	ErrRunning = errors.New("cost: resource running")
	// ErrNotRunning: Stop on a resource that is not running.
	ErrNotRunning = errors.New("cost: resource not running")
	// ErrConfig: a price, a resource, a billing model or a price table is
	// invalid (a non-positive price period, an empty name, an unset kind,
	// both a price and a trace, a worker count below 1, a table row that
	// hosts no workers, an availability α outside [0, 1]).
	ErrConfig error = &invalid{"cost: invalid config"}
	// ErrInput: a value passed to a metric is out of its domain where no
	// sentinel below says more (an execution time or a price of 0 for
	// PerfPerDollar, a zero baseline for CostRatio, a trace-priced
	// resource for Rate). Ledger calls report their inputs with the
	// specific sentinels (ErrNegative, ErrOrder, ErrRunning, ...).
	ErrInput error = &invalid{"cost: invalid input"}
	// ErrInvalid matches every error that wraps ErrConfig or ErrInput, the
	// two classes it was split into.
	//
	// Deprecated: match ErrConfig or ErrInput (docs/errors.md). ErrInvalid
	// will be removed no earlier than v0.2.0.
	ErrInvalid = errors.New("cost: invalid")
	// ErrOverflow: a duration does not fit in time.Duration (about 292
	// years) after conversion or rounding.
	ErrOverflow = errors.New("cost: duration overflows")
	// ErrOutsideTrace: a lifetime starts before the first point of its
	// price trace, or a trace is empty.
	ErrOutsideTrace = errors.New("cost: outside price trace")
	// ErrSyntax: a price-trace line is malformed.
	ErrSyntax = errors.New("cost: syntax error")
)

// invalid is the type of ErrConfig and ErrInput: each also matches the
// deprecated ErrInvalid, so code written before the split keeps working
// however the error is wrapped.
type invalid struct{ msg string }

func (e *invalid) Error() string { return e.msg }

// Is reports whether target is ErrInvalid.
func (e *invalid) Is(target error) bool { return target == ErrInvalid }

// Error reports bad input to a function or a Ledger method: the operation,
// the resource or argument it concerns, the offending values, and the reason
// (a sentinel, found by errors.Is through Unwrap). Its message reads like
//
//	cost: stop "worker-3": at 50s, started at 60s: out of order
//	cost: resource "redis": price 0.17 $ per 0s: period must be > 0: invalid config
//
// Error is the package's own form of the module's InputError
// (docs/errors.md): many of its errors are about a call on a named
// resource rather than one value (a stop before the start, a resource
// still running), so it names the operation and the resource and gives
// the values as text, and keeps its name and fields.
type Error struct {
	Op     string // "add", "start", "stop", "record", "bill", "price", ...
	Name   string // resource or argument name; may be empty
	Detail string // the offending values; may be empty
	Err    error  // a sentinel error of this package
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("cost: ")
	b.WriteString(e.Op)
	if e.Name != "" {
		b.WriteByte(' ')
		b.WriteString(strconv.Quote(e.Name))
	}
	if e.Detail != "" {
		b.WriteString(": ")
		b.WriteString(e.Detail)
	}
	if e.Err != nil {
		b.WriteString(": ")
		b.WriteString(strings.TrimPrefix(e.Err.Error(), "cost: "))
	}
	return b.String()
}

// Unwrap returns the reason.
func (e *Error) Unwrap() error { return e.Err }

// rewrap returns err re-labelled with op and name, keeping its detail and
// reason when it is an *Error.
func rewrap(err error, op, name string) error {
	var e *Error
	if !errors.As(err, &e) {
		return &Error{Op: op, Name: name, Err: err}
	}
	return &Error{Op: op, Name: name, Detail: e.Detail, Err: e.Err}
}

// ParseError reports a malformed price trace: the file (or the name given
// to ParseTrace), the 1-based line, the field and what is wrong. Its message
// reads like
//
//	cost: spot.csv:17: field 2 "abc": not a number: syntax error
//	cost: spot.csv:9: seconds 30 not after 30 (line 8): out of order
type ParseError struct {
	File  string // file name or the name given to ParseTrace
	Line  int    // 1-based line number; 0 if the error concerns no line
	Field string // the offending field with its value; may be empty
	Msg   string // what is wrong; may be empty
	Err   error  // a sentinel of this package, or an I/O error
}

func (e *ParseError) Error() string {
	var b strings.Builder
	b.WriteString("cost: ")
	name := e.File
	if name == "" {
		name = "<input>"
	}
	b.WriteString(name)
	if e.Line > 0 {
		b.WriteByte(':')
		b.WriteString(strconv.Itoa(e.Line))
	}
	for _, s := range []string{e.Field, e.Msg} {
		if s != "" {
			b.WriteString(": ")
			b.WriteString(s)
		}
	}
	if e.Err != nil {
		b.WriteString(": ")
		b.WriteString(strings.TrimPrefix(e.Err.Error(), "cost: "))
	}
	return b.String()
}

// Unwrap returns the reason.
func (e *ParseError) Unwrap() error { return e.Err }

// maxQuoted bounds how much of a bad field is copied into an error message.
const maxQuoted = 40

// quote returns s quoted, shortened to maxQuoted bytes.
func quote(s string) string {
	if len(s) > maxQuoted {
		return strconv.Quote(s[:maxQuoted]) + "..."
	}
	return strconv.Quote(s)
}
