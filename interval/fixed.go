package interval

import "time"

// Fixed is a constant interval: it asks for one iteration at η after
// another, for ever, and reads nothing from the reports beyond checking
// them. It is Flegel's default after its first iteration (a constant
// 250 ms) and the baseline the adaptive tuners are measured against.
type Fixed struct {
	eta time.Duration
	x   exchange
}

// NewFixed returns a Tuner whose every request is {OpRun, η, 1}. η must be
// positive.
func NewFixed(eta time.Duration) (*Fixed, error) {
	if eta <= 0 {
		return nil, badConfig("η", eta, "must be positive")
	}
	return &Fixed{eta: eta}, nil
}

// Next returns {OpRun, η, 1}, or ErrPending.
func (t *Fixed) Next() (Request, error) {
	return t.x.issue(Request{Op: OpRun, Interval: t.eta, Iterations: 1})
}

// Observe checks the report of the pending request.
func (t *Fixed) Observe(rep Report) error {
	if err := t.x.check(rep); err != nil {
		return err
	}
	t.x.pending = false
	return nil
}

// Interval returns η.
func (t *Fixed) Interval() time.Duration { return t.eta }
