package consistency

// KGroupBug is a plausible coordinator bug a test switches on in a KGroup
// model, to show that Check catches it.
type KGroupBug int

// The bugs.
const (
	// BugDropOnLeave: a preempted worker's batches in flight are discarded
	// instead of returned to its queue (its later batches are used, these
	// never).
	BugDropOnLeave KGroupBug = iota + 1
	// BugRequeueCommitted: a worker preempted after committing in the
	// group gets its committed batches back in its queue, as if the
	// commit were lost with it: they are computed again.
	BugRequeueCommitted
	// BugFoldStraggler: the group is applied as soon as one release is
	// still computing, and the straggler's delta, computed on the old
	// version, joins the next group (quorum's fold-in, wrong here).
	BugFoldStraggler
)

// BuggyKGroup is a KGroup model with bug switched on; Fired counts the
// times the bug changed what the model did.
type BuggyKGroup struct {
	*kgroup
	bug   KGroupBug
	Fired int
}

// NewBuggyKGroup returns a KGroup model with bug.
func NewBuggyKGroup(spec Spec, cfg Config, bug KGroupBug) (*BuggyKGroup, error) {
	m, err := New(spec, cfg)
	if err != nil {
		return nil, err
	}
	return &BuggyKGroup{kgroup: m.(*kgroup), bug: bug}, nil
}

func (m *BuggyKGroup) Step(ev Event) ([]Effect, error) {
	var q *kqueue
	inFlight, inGroup := 0, 0
	if w := m.ms[ev.Worker]; w != nil && ev.Kind == EvLeave {
		q = m.qs[ev.Worker]
		inGroup = m.inGroup[ev.Worker]
		if w.state == computing {
			inFlight = q.computing
		}
	}
	out, err := m.kgroup.Step(ev)
	if err != nil {
		return out, err
	}
	switch {
	case m.bug == BugDropOnLeave && inFlight > 0:
		q.used += uint64(inFlight)
		q.order = q.order[inFlight:]
		m.Fired++
	case m.bug == BugRequeueCommitted && inGroup-inFlight > 0:
		n := inGroup - inFlight
		q.used -= uint64(n)
		q.order = append(make([]uint64, n), q.order...)
		m.Fired++
	case m.bug == BugFoldStraggler && ev.Kind == EvCommit && m.active && m.assigned == m.k:
		comp := m.inState(computing)
		if len(comp) != 1 || len(m.pending) == 0 {
			break
		}
		// Apply without the straggler; its batches open the next group.
		out = m.apply(out, false)
		s := comp[0]
		m.committed, m.assigned = 0, m.qs[s].computing
		clear(m.inGroup)
		m.inGroup[s] = m.assigned
		for i, e := range out {
			if e.Kind == EfBlock {
				out = append(out[:i], out[i+1:]...)
				break
			}
		}
		out = m.fill(out)
		m.Fired++
	}
	return out, nil
}

// CheckStatsReference is CheckStats with a checker that keeps every
// commit and send (no pruning) and scans every member on an SSP read (no
// index), the reference for the indexed checker.
func CheckStatsReference(t *Trace) (Stats, error) {
	k := NewChecker(t.Spec, t.Workers, t.WorkerSide)
	k.c.prune, k.c.gmax = false, nil
	for _, r := range t.Records {
		k.Add(r)
	}
	return k.Finish()
}

// Held returns how many commits and sends the checker holds.
func (k *Checker) Held() (commits, sends int) { return len(k.c.commits), len(k.c.sends) }
