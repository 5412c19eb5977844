package interval

import (
	"fmt"
	"time"
)

// BinarySearchConfig configures a BinarySearch. The zero value minimizes
// the objective (a loss), measures η0 with a full pass and searches with
// λ = 2.
type BinarySearchConfig struct {
	// Maximize is true for an objective that increases as training
	// progresses (EM's log-likelihood). The default, false, minimizes: the
	// objective is a loss.
	Maximize bool
	// Initial is η0. 0 (the default) measures it: the first request is a
	// FullPass iteration, and η0 is its runtime less its barrier cost
	// (the full-batch runtime T, as Flegel's FSPB does), clamped to
	// [Min, Max]. Otherwise it must lie in [Min, Max].
	Initial time.Duration
	// Factor is the adjusting factor λ (an integer: η/λ is tried over λ
	// iterations). 0 means 2; otherwise ≥ 2.
	Factor int
	// Min and Max bound η. 0 means 1 ms and 1 h; Min ≤ Max.
	Min, Max time.Duration
	// Window is how many iterations each request asks for once η is
	// fixed. 0 means 4; otherwise ≥ 1.
	Window int
}

func (c *BinarySearchConfig) validate() error {
	if c.Factor == 0 {
		c.Factor = 2
	}
	if c.Min == 0 {
		c.Min = time.Millisecond
	}
	if c.Max == 0 {
		c.Max = time.Hour
	}
	if c.Window == 0 {
		c.Window = 4
	}
	switch {
	case c.Factor < 2:
		return badConfig("BinarySearchConfig.Factor", c.Factor, "must be ≥ 2")
	case c.Window < 1:
		return badConfig("BinarySearchConfig.Window", c.Window, "must be ≥ 1")
	}
	if err := checkBounds("BinarySearchConfig", c.Min, c.Max); err != nil {
		return err
	}
	if c.Initial != 0 && (c.Initial < c.Min || c.Initial > c.Max) {
		return badConfig("BinarySearchConfig.Initial", c.Initial, fmt.Sprintf("must be 0 or in [Min, Max] = [%v, %v]", c.Min, c.Max))
	}
	return nil
}

type searchPhase uint8

const (
	searchMeasure searchPhase = iota // a FullPass measures η0
	searchWarm                       // one iteration at η0 gives the objective the first comparison starts from
	searchBase                       // one iteration at η: Δf per unit time under η
	searchTrial                      // λ iterations at η/λ: Δf' per unit time under η/λ
	searchFixed                      // η is fixed: Window iterations per request
)

// BinarySearch is FSPB, the recursive binary search of FSP §3.3: compare
// the objective's change per unit time over one iteration at the current
// interval η with its change per unit time over the strictly subsequent λ
// iterations at η/λ; while η/λ wins, adopt it and compare it with η/λ²
// (its own λ iterations serve as the next comparison's baseline); once it
// loses (or η/λ would fall below Min), fix η. "Per unit time" divides by
// the elapsed time, barriers included, so the comparison weighs the
// finer interval's better quality against its λ − 1 extra barriers
// (quality versus quantity).
//
// The requests: {OpRun, FullPass, 1} when Initial = 0 (it measures η0),
// or {OpRun, η0, 1} when Initial > 0 (a warm-up that gives the starting
// objective); then {OpRun, η0, 1}, {OpRun, η0/λ, λ}, {OpRun, η0/λ², λ}, …
// until a trial loses; then {OpRun, η, Window} for ever. The search needs log_λ(η0/η*) trials, so a large
// η0 delays it (§3.3); it assumes the objective varies linearly in time
// between adjacent phases, so the natural slow-down of training can stop
// it early. The paper fixes η "unless the environment changes": call
// Restart then.
type BinarySearch struct {
	cfg   BinarySearchConfig
	x     exchange
	phase searchPhase
	eta   time.Duration
	f     float64 // objective after the last run
	rate  float64 // progress per second at eta, from the last base or trial run
}

// NewBinarySearch returns an FSPB tuner, or a *InputError for a bad
// configuration.
func NewBinarySearch(cfg BinarySearchConfig) (*BinarySearch, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	t := &BinarySearch{cfg: cfg}
	t.start()
	return t, nil
}

func (t *BinarySearch) start() {
	t.phase, t.eta = searchMeasure, t.cfg.Initial
	if t.eta != 0 {
		t.phase = searchWarm
	}
}

// Next returns the next request, or ErrPending.
func (t *BinarySearch) Next() (Request, error) {
	r := Request{Op: OpRun, Interval: t.eta, Iterations: 1}
	switch t.phase {
	case searchMeasure:
		r.Interval = FullPass
	case searchTrial:
		r.Interval, r.Iterations = t.eta/time.Duration(t.cfg.Factor), t.cfg.Factor
	case searchFixed:
		r.Iterations = t.cfg.Window
	}
	return t.x.issue(r)
}

// Observe takes the report of the pending request.
func (t *BinarySearch) Observe(rep Report) error {
	if err := t.x.check(rep); err != nil {
		return err
	}
	p, ok := progress(!t.cfg.Maximize, t.f, rep.Objective)
	var r float64
	if ok {
		r, ok = rateOf(p, rep.Elapsed.Seconds())
	}
	if !ok && t.phase != searchMeasure && t.phase != searchWarm {
		return badInput("Report.Objective", rep.Objective, fmt.Sprintf("its change (per second) from %v overflows", t.f))
	}
	t.x.pending = false
	t.f = rep.Objective
	switch t.phase {
	case searchMeasure:
		t.eta = duration(rep.valid(), t.cfg.Min, t.cfg.Max)
		t.phase = searchBase
	case searchWarm:
		t.phase = searchBase
	case searchBase:
		t.rate = r
		t.phase = t.tryFiner()
	case searchTrial:
		if r > t.rate {
			t.eta /= time.Duration(t.cfg.Factor)
			t.rate = r
			t.phase = t.tryFiner()
		} else {
			t.phase = searchFixed
		}
	}
	return nil
}

// tryFiner returns searchTrial if η/λ is within bounds, else searchFixed.
func (t *BinarySearch) tryFiner() searchPhase {
	if t.eta/time.Duration(t.cfg.Factor) < t.cfg.Min {
		return searchFixed
	}
	return searchTrial
}

// Restart starts the search over, as after NewBinarySearch (measuring η0
// again when Initial = 0): for when the environment changes (stragglers
// appear or leave, workers join). It returns ErrPending, changing
// nothing, if a request awaits its report.
func (t *BinarySearch) Restart() error {
	if t.x.pending {
		return ErrPending
	}
	t.start()
	return nil
}

// Interval returns the current η: the interval the search has adopted so
// far (0 before η0 is measured).
func (t *BinarySearch) Interval() time.Duration { return t.eta }

// Done reports whether the search has ended and η is fixed.
func (t *BinarySearch) Done() bool { return t.phase == searchFixed }
