package slsml

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/syncmodels/syncmodels/consistency"
)

// Violation is one broken guarantee, at the record that revealed it:
// package consistency's type, whose Root reports the root causes
// (RuleLost, RuleTwice), which CheckError lists first.
type Violation = consistency.Violation

// Rules of Check.
const (
	// RuleLost: a contribution a worker wrote that some reducer neither
	// applied nor dropped (root cause).
	RuleLost = consistency.RuleLost
	// RuleTwice: a contribution a reducer applied twice, or applied and
	// dropped, or dropped twice; a reducer that applied one iteration
	// twice without a rollback between (root cause).
	RuleTwice = consistency.RuleTwice
	// RuleWindow: a reducer's window of the done topic does not start
	// where its previous one ended (in the epoch), or its set and drops
	// are not exactly the contributions written in the window, or the
	// window holds other than Need contributions of its own iteration
	// (the semaphore proceeds at exactly Need), or a note of the window
	// is not a write of that epoch.
	RuleWindow = "window"
	// RuleLate: a contribution folded against the policy (Late = Drop,
	// or beyond MaxLag), dropped for a reason the policy does not give,
	// or one of a later iteration applied.
	RuleLate = "late"
	// RuleReducers: the reducers' applies of an iteration differ: other
	// sets or windows.
	RuleReducers = "reducers"
	// RuleSum: a reducer's summed slice or count is not the sum of its
	// set's gradients, in the set's order.
	RuleSum = "sum"
	// RuleMerge: a merged model is not the reducers' slices put
	// together, or a merge without every reducer's apply, out of order,
	// or missing at the end; an apply never merged.
	RuleMerge = "merge"
	// RuleReplay: a contribution written twice without a loss between,
	// or rewritten after a loss with another gradient.
	RuleReplay = "replay"
	// RuleRecord: a malformed record (an unknown reducer or worker, an
	// epoch that is not the current one, a rollback of nothing).
	RuleRecord = "record"
)

// CheckError lists every violation Check found, root causes first, then
// the rest in trace order.
type CheckError struct {
	Violations []Violation
}

const maxShown = 20

func (e *CheckError) Error() string {
	var b strings.Builder
	roots := 0
	for _, v := range e.Violations {
		if v.Root() {
			roots++
		}
	}
	fmt.Fprintf(&b, "slsml: trace breaks the pipeline's guarantee (%d violations", len(e.Violations))
	if roots > 0 {
		fmt.Fprintf(&b, "; root causes first: %d gradients lost or applied twice", roots)
	}
	b.WriteString(")")
	for i, v := range e.Violations {
		if i == maxShown {
			fmt.Fprintf(&b, "\n\t… %d more (CheckError.Violations lists them)", len(e.Violations)-maxShown)
			break
		}
		b.WriteString("\n\t")
		b.WriteString(v.String())
	}
	return b.String()
}

// Check verifies the pipeline's guarantee on a trace and returns a
// *CheckError listing what broke, or nil:
//
//   - every gradient a worker wrote is applied exactly once by every
//     reducer — in its iteration, or folded into a later one — or
//     dropped by it for a reason: late under Drop, stale beyond MaxLag,
//     lost with the store, or still pending when the run ended;
//   - in every iteration, each reducer's window of the done topic starts
//     where its previous one ended and holds exactly Need contributions
//     of the iteration (the semaphore), and what it applied and dropped
//     is exactly what was written in the window;
//   - every reducer applied the same set for an iteration (same window);
//   - each reducer's summed slice is the sum of its set's gradients, and
//     each merged model is the reducers' new slices put together (θ_{t+1}
//     = Σ_r slice_r embedded at its bounds), bit for bit;
//   - after a loss, reducers roll back what was not yet merged, and a
//     gradient written again (a replay) is the same gradient.
func Check(t *Trace) error {
	c := newChecker(t)
	for i, r := range t.Records {
		c.at = i
		c.step(r)
	}
	c.at = len(t.Records)
	c.end()
	if len(c.vs) == 0 {
		return nil
	}
	slices.SortStableFunc(c.vs, func(a, b Violation) int {
		if a.Root() != b.Root() {
			if a.Root() {
				return -1
			}
			return 1
		}
		return cmp.Compare(a.Record, b.Record)
	})
	return &CheckError{Violations: c.vs}
}

type noteKey struct {
	epoch int
	seq   uint64
}

type written struct {
	rec   int // index of its latest RecWrite
	epoch int
	count int
	vec   []float64
}

// rstate is one reducer's account.
type rstate struct {
	done    map[Contribution]string // applied or dropped: how, for messages
	applies map[int]int             // iteration → index of its live RecApply
	drops   map[int][]Contribution  // iteration → its late and stale drops before the apply
	reasons map[Contribution]Reason // those drops' reasons
	cut     map[int]uint64          // epoch → where its last live window ended
}

type checker struct {
	t       *Trace
	at      int
	vs      []Violation
	epoch   int
	writes  map[Contribution]*written
	order   []Contribution // contributions by first write
	notes   map[noteKey]Contribution
	red     []*rstate
	merged  int // iterations merged: 0 … merged−1
	lastMrg int // index of the last merge record, −1
}

func newChecker(t *Trace) *checker {
	c := &checker{t: t, writes: map[Contribution]*written{}, notes: map[noteKey]Contribution{}, lastMrg: -1}
	for range max(t.Reducers, 0) {
		c.red = append(c.red, &rstate{done: map[Contribution]string{}, applies: map[int]int{}, drops: map[int][]Contribution{}, reasons: map[Contribution]Reason{}, cut: map[int]uint64{}})
	}
	return c
}

func (c *checker) violate(rule, format string, args ...any) {
	c.vs = append(c.vs, Violation{Record: c.at, Rule: rule, Detail: fmt.Sprintf(format, args...)})
}

func (c *checker) reducer(r Record) *rstate {
	if r.Reducer < 0 || r.Reducer >= len(c.red) {
		c.violate(RuleRecord, "reducer %d of %d", r.Reducer, len(c.red))
		return nil
	}
	return c.red[r.Reducer]
}

func (c *checker) step(r Record) {
	switch r.Kind {
	case RecWrite:
		c.write(r)
	case RecApply:
		c.apply(r)
	case RecDrop:
		c.drop(r)
	case RecRollback:
		c.rollback(r)
	case RecMerge:
		c.merge(r)
	case RecLoss:
		c.epoch++
	default:
		c.violate(RuleRecord, "unknown kind %v", r.Kind)
	}
}

func (c *checker) write(r Record) {
	if r.C.Worker < 0 || r.C.Worker >= c.t.Workers || r.C.Iter < 0 || r.C.Iter >= c.t.Iterations {
		c.violate(RuleRecord, "write of %v: no such worker or iteration (%d workers, %d iterations)", r.C, c.t.Workers, c.t.Iterations)
		return
	}
	if r.Epoch != c.epoch {
		c.violate(RuleRecord, "write of %v in epoch %d, the store is in epoch %d", r.C, r.Epoch, c.epoch)
	}
	k := noteKey{r.Epoch, r.Seq}
	if o, dup := c.notes[k]; dup {
		c.violate(RuleRecord, "write of %v as note %d of epoch %d, which is %v's", r.C, r.Seq, r.Epoch, o)
		return
	}
	c.notes[k] = r.C
	if w := c.writes[r.C]; w != nil {
		switch {
		case w.epoch == r.Epoch:
			c.violate(RuleReplay, "%v written again in epoch %d (first at record %d) with no loss between", r.C, r.Epoch, w.rec)
		case w.count != r.Count || !slices.Equal(w.vec, r.Vec):
			c.violate(RuleReplay, "%v rewritten after a loss with another gradient (%d points, first %d at record %d)", r.C, r.Count, w.count, w.rec)
		}
		w.rec, w.epoch = c.at, r.Epoch
		return
	}
	if len(r.Vec) != c.t.Params {
		c.violate(RuleRecord, "write of %v: gradient of length %d, want %d", r.C, len(r.Vec), c.t.Params)
	}
	c.writes[r.C] = &written{rec: c.at, epoch: r.Epoch, count: r.Count, vec: r.Vec}
	c.order = append(c.order, r.C)
}

// mark records that reducer rs applied or dropped x, or reports it twice.
func (c *checker) mark(rs *rstate, reducer int, x Contribution, how string) {
	if prev, ok := rs.done[x]; ok {
		c.violate(RuleTwice, "reducer %d %s %v, which it %s", reducer, how, x, prev)
		return
	}
	rs.done[x] = how
}

func (c *checker) drop(r Record) {
	rs := c.reducer(r)
	if rs == nil {
		return
	}
	w := c.writes[r.C]
	if w == nil {
		c.violate(RuleRecord, "reducer %d drops %v, never written", r.Reducer, r.C)
		return
	}
	how := fmt.Sprintf("dropped (%v) at record %d", r.Reason, c.at)
	switch r.Reason {
	case Late, Stale:
		// Checked against the window at the apply.
		rs.drops[r.Iter] = append(rs.drops[r.Iter], r.C)
		rs.reasons[r.C] = r.Reason
	case Lost:
		if w.epoch >= c.epoch {
			c.violate(RuleLate, "reducer %d drops %v as lost, but it was written in the current epoch %d", r.Reducer, r.C, w.epoch)
		}
	case Ended:
		if c.merged < c.t.Iterations {
			c.violate(RuleLate, "reducer %d drops %v as pending at the end before the last merge (%d of %d merged)", r.Reducer, r.C, c.merged, c.t.Iterations)
		}
	default:
		c.violate(RuleRecord, "reducer %d drops %v for %v", r.Reducer, r.C, r.Reason)
	}
	c.mark(rs, r.Reducer, r.C, how)
}

func (c *checker) apply(r Record) {
	rs := c.reducer(r)
	if rs == nil {
		return
	}
	t, red := r.Iter, r.Reducer
	if r.Epoch != c.epoch {
		c.violate(RuleRecord, "reducer %d applies iteration %d in epoch %d, the store is in epoch %d", red, t, r.Epoch, c.epoch)
	}
	if prev, ok := rs.applies[t]; ok {
		c.violate(RuleTwice, "reducer %d applies iteration %d again (applied at record %d, not rolled back)", red, t, prev)
	}
	if t < c.merged {
		c.violate(RuleMerge, "reducer %d applies iteration %d, already merged", red, t)
	}
	rs.applies[t] = c.at

	// The window: where the last one ended, exactly Need contributions
	// of iteration t, and the set and drops are what was written in it.
	if want := rs.cut[r.Epoch]; r.From != want {
		c.violate(RuleWindow, "reducer %d's window of iteration %d starts after note %d, its last window ended at note %d", red, t, r.From, want)
	}
	if r.Cut < r.From {
		c.violate(RuleWindow, "reducer %d's window of iteration %d ends at note %d before it starts (%d)", red, t, r.Cut, r.From)
	}
	var window []Contribution
	own := 0
	for seq := r.From + 1; seq <= r.Cut && seq > r.From; seq++ {
		x, ok := c.notes[noteKey{r.Epoch, seq}]
		if !ok {
			c.violate(RuleWindow, "reducer %d's window of iteration %d holds note %d of epoch %d, which no worker wrote", red, t, seq, r.Epoch)
			continue
		}
		window = append(window, x)
		if x.Iter == t {
			own++
		}
	}
	if own != c.t.Need {
		c.violate(RuleWindow, "reducer %d's window of iteration %d (notes %d…%d) holds %d of its gradients, the semaphore proceeds at %d", red, t, r.From+1, r.Cut, own, c.t.Need)
	}
	if r.Cut > r.From {
		if x := c.notes[noteKey{r.Epoch, r.Cut}]; x.Iter != t {
			c.violate(RuleWindow, "reducer %d's window of iteration %d ends with %v, not with one of its gradients", red, t, x)
		}
	}
	rs.cut[r.Epoch] = r.Cut
	got := append(slices.Clone(r.Set), rs.drops[t]...)
	slices.SortFunc(got, Contribution.compare)
	slices.SortFunc(window, Contribution.compare)
	if !slices.Equal(got, window) {
		c.violate(RuleWindow, "reducer %d at iteration %d applied %v and dropped %v; its window (notes %d…%d) holds %v", red, t, r.Set, rs.drops[t], r.From+1, r.Cut, window)
	}
	for _, x := range rs.drops[t] {
		c.checkDrop(red, t, x, rs.reasons[x])
	}

	// Policy, exactly once, sum.
	if !slices.IsSortedFunc(r.Set, Contribution.compare) {
		c.violate(RuleSum, "reducer %d's set of iteration %d is not sorted: %v", red, t, r.Set)
	}
	lo, hi := c.t.Bounds(red)
	sum, count := make([]float64, hi-lo), 0
	for _, x := range r.Set {
		switch {
		case x.Iter > t:
			c.violate(RuleLate, "reducer %d applies %v at iteration %d, before it was computed", red, x, t)
		case x.Iter < t && c.t.Late == Drop:
			c.violate(RuleLate, "reducer %d folds late %v into iteration %d under Drop", red, x, t)
		case x.Iter < t && c.t.MaxLag > 0 && t-x.Iter > c.t.MaxLag:
			c.violate(RuleLate, "reducer %d folds %v into iteration %d, %d late, beyond MaxLag %d", red, x, t, t-x.Iter, c.t.MaxLag)
		}
		c.mark(rs, red, x, fmt.Sprintf("applied at iteration %d (record %d)", t, c.at))
		w := c.writes[x]
		if w == nil {
			continue // reported by the window rule
		}
		count += w.count
		if len(w.vec) == c.t.Params {
			for i := range sum {
				sum[i] += w.vec[lo+i]
			}
		}
	}
	if count != r.Count || !equalBits(sum, r.Vec) {
		c.violate(RuleSum, "reducer %d at iteration %d summed %d points to %v, its set's gradients sum to %d points, %v", red, t, r.Count, short(r.Vec), count, short(sum))
	}
	if len(r.Params) != hi-lo {
		c.violate(RuleRecord, "reducer %d's slice of θ_%d has %d entries, want %d", red, t+1, len(r.Params), hi-lo)
	}
}

// checkDrop checks a late or stale drop at the apply of iteration t.
func (c *checker) checkDrop(red, t int, x Contribution, reason Reason) {
	switch {
	case x.Iter >= t:
		c.violate(RuleLate, "reducer %d drops %v at iteration %d, which is not late", red, x, t)
	case reason == Late && c.t.Late != Drop:
		c.violate(RuleLate, "reducer %d drops late %v at iteration %d under %v", red, x, t, c.t.Late)
	case reason == Stale && (c.t.Late != Fold || c.t.MaxLag == 0 || t-x.Iter <= c.t.MaxLag):
		c.violate(RuleLate, "reducer %d drops %v at iteration %d as stale (%d late; policy %v, MaxLag %d)", red, x, t, t-x.Iter, c.t.Late, c.t.MaxLag)
	}
}

func (c *checker) rollback(r Record) {
	rs := c.reducer(r)
	if rs == nil {
		return
	}
	i, ok := rs.applies[r.Iter]
	if !ok || r.Iter < c.merged {
		c.violate(RuleRecord, "reducer %d rolls back iteration %d, which it has not applied or which is merged", r.Reducer, r.Iter)
		return
	}
	a := c.t.Records[i]
	for _, x := range a.Set {
		delete(rs.done, x)
	}
	for _, x := range rs.drops[r.Iter] {
		delete(rs.done, x)
	}
	delete(rs.drops, r.Iter)
	delete(rs.applies, r.Iter)
	rs.cut[a.Epoch] = a.From
}

func (c *checker) merge(r Record) {
	t := r.Iter
	if t != c.merged {
		c.violate(RuleMerge, "merge of iteration %d, want %d", t, c.merged)
	}
	if len(r.Params) != c.t.Params {
		c.violate(RuleMerge, "θ_%d has %d entries, want %d", t+1, len(r.Params), c.t.Params)
		r.Params = make([]float64, c.t.Params)
	}
	var first *Record
	for red, rs := range c.red {
		i, ok := rs.applies[t]
		if !ok {
			c.violate(RuleMerge, "θ_%d merged without reducer %d's apply of iteration %d", t+1, red, t)
			continue
		}
		a := &c.t.Records[i]
		lo, hi := c.t.Bounds(red)
		if !equalBits(r.Params[lo:hi], a.Params) {
			c.violate(RuleMerge, "θ_%d[%d:%d] = %v, reducer %d's slice is %v", t+1, lo, hi, short(r.Params[lo:hi]), red, short(a.Params))
		}
		if first == nil {
			first = a
			continue
		}
		if !slices.Equal(a.Set, first.Set) || a.From != first.From || a.Cut != first.Cut || a.Epoch != first.Epoch {
			c.violate(RuleReducers, "at iteration %d reducer %d applied %v (notes %d…%d), reducer %d applied %v (notes %d…%d)",
				t, red, a.Set, a.From+1, a.Cut, first.Reducer, first.Set, first.From+1, first.Cut)
		}
	}
	c.merged = max(c.merged, t+1)
	c.lastMrg = c.at
}

func (c *checker) end() {
	if c.merged < c.t.Iterations {
		c.violate(RuleMerge, "%d of %d iterations merged", c.merged, c.t.Iterations)
	}
	for red, rs := range c.red {
		for _, t := range slices.Sorted(maps.Keys(rs.applies)) {
			if i := rs.applies[t]; t >= c.merged {
				c.violate(RuleMerge, "reducer %d's apply of iteration %d (record %d) was never merged", red, t, i)
			}
		}
		for _, x := range c.order {
			if _, ok := rs.done[x]; !ok {
				c.violate(RuleLost, "reducer %d never applied or dropped %v (written at record %d)", red, x, c.writes[x].rec)
			}
		}
	}
}

// equalBits reports whether a and b are equal bit for bit.
func equalBits(a, b []float64) bool {
	return slices.EqualFunc(a, b, func(x, y float64) bool { return math.Float64bits(x) == math.Float64bits(y) })
}

// short formats a vector's first entries for messages.
func short(v []float64) string {
	if len(v) <= 4 {
		return fmt.Sprint(v)
	}
	return fmt.Sprintf("%v…(%d)", v[:4], len(v))
}
