package cost

import (
	"fmt"
	"math"
	"time"
)

// Ledger records the lifetimes of the resources of one run and bills them.
// Times are time.Duration offsets from the start of the run (virtual time
// in a simulator — convert float64 seconds with FromSeconds — or elapsed
// wall time in a real run); the Ledger never reads a clock.
//
// Resources may be added at any time: scale-out adds and starts a resource
// mid-run; scale-in (the MLLess auto-tuner evicting a worker) stops it. A
// resource may run several times (a spot instance between preemptions, a
// function invoked again); each lifetime is billed separately, and
// lifetimes of one resource may touch but not overlap.
//
// The zero Ledger is empty and ready to use. A Ledger is not safe for
// concurrent use. A method that returns an error leaves the Ledger as it
// was.
type Ledger struct {
	index    map[string]int
	accounts []account
}

type account struct {
	r       Resource
	closed  []Interval
	open    bool
	openAt  time.Duration // start of the open lifetime
	lastEnd time.Duration // stop of the last closed lifetime
}

// Add registers resources, not yet running. Either all are added or, on
// error (an invalid or duplicate resource), none.
func (l *Ledger) Add(rs ...Resource) error {
	seen := make(map[string]bool, len(rs))
	for _, r := range rs {
		if err := r.Validate(); err != nil {
			return err
		}
		if _, dup := l.index[r.Name]; dup || seen[r.Name] {
			return &Error{Op: "add", Name: r.Name, Err: ErrDuplicate}
		}
		seen[r.Name] = true
	}
	if l.index == nil {
		l.index = make(map[string]int)
	}
	for _, r := range rs {
		l.index[r.Name] = len(l.accounts)
		l.accounts = append(l.accounts, account{r: r})
	}
	return nil
}

// Len returns the number of resources added.
func (l *Ledger) Len() int { return len(l.accounts) }

// Resources returns the resources in the order they were added.
func (l *Ledger) Resources() []Resource {
	rs := make([]Resource, len(l.accounts))
	for i := range l.accounts {
		rs[i] = l.accounts[i].r
	}
	return rs
}

func (l *Ledger) lookup(op, name string) (*account, error) {
	i, ok := l.index[name]
	if !ok {
		return nil, &Error{Op: op, Name: name, Err: ErrUnknown}
	}
	return &l.accounts[i], nil
}

func checkTime(op, name string, at time.Duration) error {
	if at < 0 {
		return &Error{Op: op, Name: name, Detail: fmt.Sprintf("at %v", at), Err: ErrNegative}
	}
	return nil
}

// Start opens a lifetime of the named resource at time at. The resource
// must not be running, and at must not be before the stop of its previous
// lifetime.
func (l *Ledger) Start(name string, at time.Duration) error {
	if err := checkTime("start", name, at); err != nil {
		return err
	}
	a, err := l.lookup("start", name)
	if err != nil {
		return err
	}
	if a.open {
		return &Error{Op: "start", Name: name, Detail: fmt.Sprintf("at %v, running since %v", at, a.openAt), Err: ErrRunning}
	}
	if at < a.lastEnd {
		return &Error{Op: "start", Name: name, Detail: fmt.Sprintf("at %v, previous lifetime stopped at %v", at, a.lastEnd), Err: ErrOrder}
	}
	a.open, a.openAt = true, at
	return nil
}

// Stop closes the open lifetime of the named resource at time at, which
// must not be before its start.
func (l *Ledger) Stop(name string, at time.Duration) error {
	if err := checkTime("stop", name, at); err != nil {
		return err
	}
	a, err := l.lookup("stop", name)
	if err != nil {
		return err
	}
	if !a.open {
		return &Error{Op: "stop", Name: name, Detail: fmt.Sprintf("at %v", at), Err: ErrNotRunning}
	}
	if at < a.openAt {
		return &Error{Op: "stop", Name: name, Detail: fmt.Sprintf("at %v, started at %v", at, a.openAt), Err: ErrOrder}
	}
	a.closed = append(a.closed, Interval{a.openAt, at})
	a.open, a.lastEnd = false, at
	return nil
}

// Record adds a closed lifetime [start, stop] to the named resource, as
// Start(start) then Stop(stop) would.
func (l *Ledger) Record(name string, start, stop time.Duration) error {
	if err := (Interval{start, stop}).check("record", name); err != nil {
		return err
	}
	a, err := l.lookup("record", name)
	if err != nil {
		return err
	}
	if a.open {
		return &Error{Op: "record", Name: name, Detail: fmt.Sprintf("[%v, %v], running since %v", start, stop, a.openAt), Err: ErrRunning}
	}
	if start < a.lastEnd {
		return &Error{Op: "record", Name: name, Detail: fmt.Sprintf("start %v, previous lifetime stopped at %v", start, a.lastEnd), Err: ErrOrder}
	}
	a.closed = append(a.closed, Interval{start, stop})
	a.lastEnd = stop
	return nil
}

// Running reports whether the named resource has an open lifetime.
func (l *Ledger) Running(name string) (bool, error) {
	a, err := l.lookup("running", name)
	if err != nil {
		return false, err
	}
	return a.open, nil
}

// Line is one resource's part of a Bill.
type Line struct {
	Resource  Resource
	Lifetimes int           // number of non-empty lifetimes billed
	Runtime   time.Duration // sum of the lifetimes as they ran
	Billed    time.Duration // sum of the lifetimes as billed (rounded up)
	Cost      float64       // dollars
}

// Bill is the cost of a run, per resource and in total.
type Bill struct {
	Lines  []Line  // one per resource, in the order they were added
	Total  float64 // dollars; the sum of Lines[i].Cost in order
	byKind [numKinds]float64
}

// ByKind returns the dollars charged for resources of kind k.
func (b Bill) ByKind(k Kind) float64 {
	if !k.valid() {
		return 0
	}
	return b.byKind[k]
}

// Bill returns the bill for the whole run. Every resource must have been
// stopped; to bill a run in progress use BillAt.
func (l *Ledger) Bill() (Bill, error) {
	for i := range l.accounts {
		if a := &l.accounts[i]; a.open {
			return Bill{}, &Error{Op: "bill", Name: a.r.Name, Detail: fmt.Sprintf("running since %v; stop it or use BillAt", a.openAt), Err: ErrRunning}
		}
	}
	return l.bill(math.MaxInt64)
}

// BillAt returns the bill as of time at: every lifetime is cut at at (open
// ones are taken to stop there, later ones are left out) and billed as if it
// had stopped there, rounding included. BillAt is non-decreasing in at.
func (l *Ledger) BillAt(at time.Duration) (Bill, error) {
	if err := checkTime("bill at", "", at); err != nil {
		return Bill{}, err
	}
	return l.bill(at)
}

func (l *Ledger) bill(at time.Duration) (Bill, error) {
	b := Bill{Lines: make([]Line, len(l.accounts))}
	for i := range l.accounts {
		a := &l.accounts[i]
		ln := Line{Resource: a.r}
		add := func(start, stop time.Duration) error {
			stop = min(stop, at)
			if stop <= start {
				return nil
			}
			c, billed, err := a.r.lifetime(start, stop)
			if err != nil {
				return err
			}
			ln.Lifetimes++
			ln.Runtime += stop - start
			ln.Billed += billed
			ln.Cost += c
			return nil
		}
		for _, iv := range a.closed {
			if err := add(iv.Start, iv.Stop); err != nil {
				return Bill{}, err
			}
		}
		if a.open {
			if err := add(a.openAt, at); err != nil {
				return Bill{}, err
			}
		}
		b.Lines[i] = ln
		b.Total += ln.Cost
		b.byKind[a.r.Kind] += ln.Cost
	}
	return b, nil
}
