package consistency

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
)

// Violation is one broken guarantee, at the record that revealed it.
type Violation struct {
	Record int    // index into Trace.Records; len(Records) for end-of-trace checks
	Rule   string // "lost", "twice", "ledger", "bsp", "ssp", "quorum", "isp", "kgroup"
	Detail string
}

func (v Violation) String() string {
	return fmt.Sprintf("record %d: %s: %s", v.Record, v.Rule, v.Detail)
}

// Root reports whether v is a root cause: a delta or a KGroup batch lost
// ("lost"), or applied, accepted or used twice ("twice"). Such a fault makes the other rules
// fail in cascade (a round missing a lost delta breaks BSP's "every
// member" rule), so CheckError lists root causes first.
func (v Violation) Root() bool { return v.Rule == RuleLost || v.Rule == RuleTwice }

// Rules of Check whose violations are root causes (Violation.Root).
const (
	// RuleLost: a delta a worker sent, or the coordinator accepted, was
	// never applied and never deliberately abandoned; or a worker took a
	// delta as accepted that the coordinator had not accepted; or (KGroup)
	// a worker's batch was skipped: never used, though a later batch of
	// the same worker was.
	RuleLost = "lost"
	// RuleTwice: a delta committed or applied twice, or (KGroup) a batch
	// used in two commits.
	RuleTwice = "twice"
	// RuleKGroup: a KGroup rule other than a lost or doubled batch: an
	// apply of other than K batches (at most K for the final flush) or of
	// deltas computed on different versions, a batch used before it was
	// announced or out of order, announcements out of sequence, a release
	// or commit whose batches and points disagree.
	RuleKGroup = "kgroup"
)

// CheckError lists every violation Check found, root causes (lost or
// doubled deltas) first, then the rest in trace order.
type CheckError struct {
	Spec       Spec
	Violations []Violation
	// Total counts the violations; it exceeds len(Violations) only when
	// more than maxKept non-root violations were found (root causes are
	// always all kept).
	Total int
}

// maxShown bounds the violations Error prints; maxKept bounds the
// non-root violations kept.
const (
	maxShown = 20
	maxKept  = 10000
)

func (e *CheckError) Error() string {
	var b strings.Builder
	roots := 0
	for _, v := range e.Violations {
		if v.Root() {
			roots++
		}
	}
	fmt.Fprintf(&b, "consistency: %v trace breaks its guarantees (%d violations", e.Spec, e.Total)
	if roots > 0 {
		fmt.Fprintf(&b, "; root causes first: %d lost or doubled deltas", roots)
	}
	b.WriteString(")")
	for i, v := range e.Violations {
		if i == maxShown {
			fmt.Fprintf(&b, "\n\t… %d more (CheckError.Violations lists them)", e.Total-maxShown)
			break
		}
		b.WriteString("\n\t")
		b.WriteString(v.String())
	}
	return b.String()
}

// Check verifies that a recorded run kept its model's guarantee
// (t.Spec) and returns a *CheckError listing what broke, or nil.
//
// Every model: versions are applied in order 1, 2, 3, …; every applied
// delta was committed before and is applied exactly once; at the stop
// record every committed delta has been applied (none lost); each worker
// commits once per read, in sequence, on the version and clock it read;
// nobody reads a version that does not exist yet; a worker reads its own
// earlier commits.
//
// BSP: every delta of the apply producing v+1 was computed on v, and every
// worker that read v and is still a member contributed (the final flush
// excepted). SSP(s): a worker reading for clock c sees every other member's
// commits of clocks ≤ c − s − 1. Quorum: every apply but the final flush
// merges at least Need(members) deltas. ISP: BSP's rules on what was sent,
// and every RecHeld keeps the replica-divergence bound: a held entry i
// after step t satisfies |acc_i| ≤ v_t·|w_i|, v_t = v/√(t+1) (MLLess
// §4.1).
//
// KGroup (DOLL §III-A; rule "kgroup" unless said otherwise): each worker
// announces its batches 0, 1, 2, … in sequence (RecBatch), while a member;
// a release (RecRead) names batches Batch … Batch+Batches−1, all announced
// by then, over Batches·b points (b, the batch size, is the same for every
// release); a commit is from the batches and points its worker was
// released for; every apply but the final flush aggregates exactly K
// batches, the final flush at most K, all computed on the version just
// before the apply. Per worker, the accepted commits' batches tile 0, 1,
// 2, … in sequence order: a batch in two commits breaks RuleTwice, a batch
// never used below one that was breaks RuleLost (a batch skipped, for
// instance after a preemption), a batch used out of order breaks
// "kgroup". Batches announced and never used are allowed: they are still
// queued at the stop (CheckStats counts them). A worker may read its own
// earlier commit's version before that commit is applied only when both
// belong to the same group (computed on the same version).
//
// With t.WorkerSide: each worker sends its deltas in sequence, each on
// what it read; the coordinator accepts only deltas sent, as sent; a
// worker confirms only a delta already accepted; and at the end every
// delta sent was accepted or abandoned (RecAbandon, with a reason).
// Under KGroup, a worker that is a member at the end has had announced
// every batch its stream produced by the stop (RecProduced; RuleLost
// otherwise). Confirm, abandon and produced records may follow the stop
// record.
func Check(t *Trace) error {
	_, err := CheckStats(t)
	return err
}

// Stats is what Check measured on a trace besides its violations.
type Stats struct {
	// Applies counts the apply records (the versions produced).
	Applies int
	// Batches lists, for each worker that announced or used a streamed
	// batch, ascending by worker, what became of its batches.
	Batches []BatchUse
}

// BatchUse is what became of one worker's streamed batches in a trace.
type BatchUse struct {
	Worker WorkerID
	// Announced counts its batches announced (RecBatch): 0 … Announced−1.
	Announced uint64
	// Used counts the distinct announced batches that accepted commits
	// used.
	Used uint64
	// Unused = Announced − Used: batches still queued at the stop (or,
	// with a RuleLost violation, skipped).
	Unused uint64
}

// CheckStats is Check that also returns what it measured: the number of
// applies and, per worker, its batches announced, used and unused. The
// stats are computed whether or not the trace breaks its guarantees.
func CheckStats(t *Trace) (Stats, error) {
	k := NewChecker(t.Spec, t.Workers, t.WorkerSide)
	for _, r := range t.Records {
		k.Add(r)
	}
	return k.Finish()
}

// A Checker is Check fed one record at a time: a driver that checks its
// run as it goes need not keep the trace (Recorder.CheckOnly). Its verdict
// on the records added is CheckStats's on a trace of spec, workers and
// workerSide (Trace's fields) holding those records, violations and
// their record indices included. Its memory grows with the workers and
// the deltas in flight, not with the records.
type Checker struct {
	c    *checker
	n    int
	done bool
}

// NewChecker returns a Checker of a trace of spec whose initial members
// are workers; workerSide is Trace.WorkerSide.
func NewChecker(spec Spec, workers []WorkerID, workerSide bool) *Checker {
	return &Checker{c: newChecker(&Trace{Spec: spec, Workers: workers, WorkerSide: workerSide})}
}

// Add checks the next record. It panics after Finish.
func (k *Checker) Add(r Record) {
	if k.done {
		panic("consistency: Checker.Add after Finish")
	}
	k.c.at = k.n
	k.c.step(r)
	k.n++
}

// Len returns the number of records added.
func (k *Checker) Len() int { return k.n }

// Finish runs the end-of-trace checks and returns what CheckStats returns.
// Later calls return the same.
func (k *Checker) Finish() (Stats, error) {
	c := k.c
	if !k.done {
		k.done = true
		c.at = k.n
		c.end()
		slices.SortStableFunc(c.err.Violations, func(a, b Violation) int {
			if a.Root() != b.Root() {
				if a.Root() {
					return -1
				}
				return 1
			}
			return cmp.Compare(a.Record, b.Record)
		})
	}
	st := c.stats()
	if c.err.Total == 0 {
		return st, nil
	}
	return st, &c.err
}

type wtrack struct {
	member  bool
	readV   Version
	readC   uint64
	reading bool // a read not yet followed by its commit
	lastSeq uint64
	// lastSent is the worker's latest RecSend sequence number.
	lastSent uint64
	// committedC is the clock of the worker's latest commit, if committed.
	committedC uint64
	committed  bool
	first      uint64    // first clock read since joining
	started    bool      // first is set
	applied    []Version // applied[i]: version that applied clock first+frontier+i (0: not yet)
	frontier   int       // clocks first..first+frontier-1 are all applied
	pmax       []Version // pmax[i]: max of applied[0..i], for i < frontier
	// KGroup: the latest read's batches and points, and the version of
	// the latest commit.
	readBatch   uint64
	readBatches int
	readPoints  int
	committedV  Version
}

type commitInfo struct {
	version Version
	clock   uint64
	applied bool
	batches int // KGroup: the batches it aggregates
}

type checker struct {
	spec    Spec
	at      int
	err     CheckError
	version Version
	members int
	ws      map[WorkerID]*wtrack
	ids     []WorkerID // every worker ever seen, ascending
	commits map[DeltaID]*commitInfo
	// readers[v]: workers that read version v and have not committed it
	// (kept for roundRule's models only).
	readers map[Version]map[WorkerID]bool
	stopped bool
	kept    int // non-root violations kept
	// workerSide is Trace.WorkerSide.
	workerSide bool
	// sends: the workers' side (Trace.WorkerSide), every delta sent.
	sends map[DeltaID]*sendInfo
	// applies counts the apply records.
	applies int
	// batches: every worker's streamed batches, kept across leaves.
	batches map[WorkerID]*batchTrack
	// b is a KGroup trace's batch size (points per batch), learnt from its
	// first release (at record bAt); 0 before.
	b   int
	bAt int
	// Pruning, so that memory follows the deltas in flight rather than
	// the trace: a worker's deltas 1 … appliedTo[w] were all committed
	// and applied, and left commits; its deltas 1 … confirmedTo[w] were
	// all sent, committed and confirmed, and left sends. A lookup of a
	// pruned delta finds prunedCommit or prunedSend, which answer every
	// later rule as the entry would have. Not under KGroup, whose
	// messages name a commit's batches.
	prune                  bool
	appliedTo, confirmedTo map[WorkerID]uint64
	// SSP: through counts the started members' first+frontier (each
	// has applied every clock below it), and gmax[c] is the largest
	// pmax any worker reached at clock c. A read that every member has
	// provably seen (sspSeen) skips the scan of the members.
	through clockCount
	gmax    map[uint64]Version
}

// prunedCommit and prunedSend stand for pruned entries: a commit
// applied, a send confirmed. Nothing writes to them.
var (
	prunedCommit = &commitInfo{applied: true}
	prunedSend   = &sendInfo{confirmed: true}
)

// commit returns the commit of id: nil if never committed, prunedCommit
// if committed, applied and pruned.
func (c *checker) commitOf(id DeltaID) *commitInfo {
	if ci := c.commits[id]; ci != nil {
		return ci
	}
	if id.Seq >= 1 && id.Seq <= c.appliedTo[id.Worker] {
		return prunedCommit
	}
	return nil
}

// sendOf returns the send of id: nil if never sent, prunedSend if sent,
// committed, confirmed and pruned.
func (c *checker) sendOf(id DeltaID) *sendInfo {
	if s := c.sends[id]; s != nil {
		return s
	}
	if id.Seq >= 1 && id.Seq <= c.confirmedTo[id.Worker] {
		return prunedSend
	}
	return nil
}

// pruneWorker drops worker w's oldest commits while they are applied and
// its oldest sends while they are committed and confirmed.
func (c *checker) pruneWorker(w WorkerID) {
	if !c.prune {
		return
	}
	for {
		id := DeltaID{w, c.appliedTo[w] + 1}
		ci := c.commits[id]
		if ci == nil || !ci.applied {
			break
		}
		delete(c.commits, id)
		c.appliedTo[w] = id.Seq
	}
	for {
		id := DeltaID{w, c.confirmedTo[w] + 1}
		s := c.sends[id]
		if s == nil || !s.confirmed || c.commitOf(id) == nil {
			break
		}
		delete(c.sends, id)
		c.confirmedTo[w] = id.Seq
	}
}

// roundRule reports whether the trace's model has BSP's rounds (BSP, FSP,
// ISP): an apply must merge every member that read the version before
// it, the only rule that needs readers.
func (c *checker) roundRule() bool {
	return c.spec.Kind == BSP || c.spec.Kind == FSP || c.spec.Kind == ISP
}

// unread notes that worker w no longer reads version v.
func (c *checker) unread(v Version, w WorkerID) {
	if rs := c.readers[v]; rs != nil {
		delete(rs, w)
		if len(rs) == 0 {
			delete(c.readers, v)
		}
	}
}

// sendInfo is what a worker recorded of one delta it sent.
type sendInfo struct {
	at                   int // its RecSend record
	clock                uint64
	version              Version
	points               int
	batch                uint64
	confirmed, abandoned bool
}

func newChecker(t *Trace) *checker {
	c := &checker{spec: t.Spec, ws: map[WorkerID]*wtrack{}, commits: map[DeltaID]*commitInfo{},
		readers: map[Version]map[WorkerID]bool{}, sends: map[DeltaID]*sendInfo{}, workerSide: t.WorkerSide,
		batches: map[WorkerID]*batchTrack{}, prune: t.Spec.Kind != KGroup,
		appliedTo: map[WorkerID]uint64{}, confirmedTo: map[WorkerID]uint64{}}
	c.err.Spec = t.Spec
	if t.Spec.Kind == SSP {
		c.through.count, c.gmax = map[uint64]int{}, map[uint64]Version{}
	}
	for _, w := range t.Workers {
		c.ws[w] = &wtrack{member: true}
		c.addID(w)
		c.members++
	}
	return c
}

func (c *checker) fail(rule, format string, args ...any) {
	c.failAt(c.at, rule, format, args...)
}

func (c *checker) failAt(at int, rule, format string, args ...any) {
	c.err.Total++
	v := Violation{Record: at, Rule: rule, Detail: fmt.Sprintf(format, args...)}
	if v.Root() {
		c.err.Violations = append(c.err.Violations, v)
		return
	}
	if c.kept < maxKept {
		c.kept++
		c.err.Violations = append(c.err.Violations, v)
	}
}

func (c *checker) worker(w WorkerID, what string) *wtrack {
	t := c.ws[w]
	if t == nil || !t.member {
		c.fail("ledger", "%s by worker %d, which is not a member", what, w)
		return nil
	}
	return t
}

func (c *checker) step(r Record) {
	worker := r.Kind == RecSend || r.Kind == RecConfirm || r.Kind == RecAbandon || r.Kind == RecProduced
	if worker && !c.workerSide {
		c.fail("ledger", "worker-side %v record in a trace without WorkerSide", r.Kind)
		return
	}
	if c.stopped && r.Kind != RecConfirm && r.Kind != RecAbandon && r.Kind != RecProduced {
		// A worker learns of the stop after the coordinator: confirming
		// or abandoning its last delta, or saying how far its stream
		// got, after the stop record is normal.
		c.fail("ledger", "%v after the stop record", r.Kind)
		return
	}
	switch r.Kind {
	case RecProduced:
		c.produced(r)
	case RecSend:
		c.send(r)
	case RecConfirm:
		c.confirm(r)
	case RecAbandon:
		c.abandon(r)
	case RecJoin:
		if t := c.ws[r.Worker]; t != nil && t.member {
			c.fail("ledger", "worker %d joins twice", r.Worker)
			return
		}
		old := c.ws[r.Worker]
		t := &wtrack{member: true}
		if old != nil {
			t.lastSeq, t.lastSent = old.lastSeq, old.lastSent
		}
		if r.Seq > 0 {
			// A rejoin that skips the numbers of deltas never accepted.
			if r.Seq <= t.lastSeq {
				c.fail(RuleTwice, "worker %d rejoins at seq %d; %v was already committed", r.Worker, r.Seq, DeltaID{r.Worker, t.lastSeq})
			}
			t.lastSeq = max(t.lastSeq, r.Seq-1)
		}
		c.ws[r.Worker] = t
		c.addID(r.Worker)
		c.members++
	case RecLeave:
		if t := c.worker(r.Worker, "leave"); t != nil {
			t.member = false
			c.members--
			if c.gmax != nil && t.started {
				c.through.remove(t.first + uint64(t.frontier))
			}
			c.unread(t.readV, r.Worker)
		}
	case RecRead:
		c.read(r)
	case RecCommit:
		c.commit(r)
	case RecApply:
		c.apply(r)
	case RecStop:
		c.stopped = true
	case RecRollback:
		// A deliberate return to an earlier state: the deltas applied since
		// were applied (the ledger holds), their effect is discarded.
		if r.Version > c.version {
			c.fail("ledger", "rollback to version %d; only %d exist", r.Version, c.version)
		}
	case RecHeld:
		c.held(r)
	case RecBatch:
		c.batchReady(r)
	default:
		c.fail("ledger", "unknown record kind %d", r.Kind)
	}
}

func (c *checker) read(r Record) {
	t := c.worker(r.Worker, "read")
	if t == nil {
		return
	}
	if t.reading {
		c.fail("ledger", "worker %d reads again without committing clock %d", r.Worker, t.readC)
	}
	if r.Version > c.version {
		c.fail("ledger", "worker %d reads version %d; only %d exist", r.Worker, r.Version, c.version)
	}
	if !t.started {
		t.started, t.first = true, r.Clock
		if c.gmax != nil {
			c.through.add(t.first)
		}
	}
	t.reading, t.readV, t.readC = true, r.Version, r.Clock
	if c.roundRule() {
		if c.readers[r.Version] == nil {
			c.readers[r.Version] = map[WorkerID]bool{}
		}
		c.readers[r.Version][r.Worker] = true
	}
	sameGroup := false
	if c.spec.Kind == KGroup {
		c.readBatches(t, r)
		// Released again in the group its previous commit belongs to: that
		// commit is applied with the group, after this read.
		sameGroup = t.committed && t.committedV == r.Version && t.committedC == r.Clock-1
	}

	// Read-my-writes: the worker's own clocks first..c−1 are applied in
	// versions ≤ the one it reads.
	if r.Clock > t.first && !sameGroup && !c.seen(t, r.Clock-1, r.Version) {
		c.fail("ledger", "worker %d reads version %d for clock %d without its own clock %d", r.Worker, r.Version, r.Clock, r.Clock-1)
	}
	if c.spec.Kind != SSP {
		return
	}
	s := uint64(c.spec.Staleness)
	if r.Clock < s+1 {
		return
	}
	need := r.Clock - s - 1
	if c.through.min() > need && c.gmax[need] <= r.Version {
		// Every started member has applied clock need, none in a version
		// after the one read: the scan below would find nothing.
		return
	}
	for _, w := range c.ids {
		o := c.ws[w]
		if w == r.Worker || !o.member || !o.started || o.first > need {
			continue
		}
		if !c.seen(o, need, r.Version) {
			c.fail("ssp", "worker %d reads version %d for clock %d, missing clock %d of worker %d (staleness %d)",
				r.Worker, r.Version, r.Clock, need, w, s)
		}
	}
}

// seen reports whether clocks first..clock of t were all applied in
// versions ≤ v.
func (c *checker) seen(t *wtrack, clock uint64, v Version) bool {
	i := int(clock - t.first)
	return i < t.frontier && t.pmax[i] <= v
}

func (c *checker) commit(r Record) {
	t := c.worker(r.Worker, "commit")
	if t == nil {
		return
	}
	id := DeltaID{r.Worker, r.Seq}
	switch {
	case !t.reading:
		c.fail("ledger", "worker %d commits %v without a read", r.Worker, id)
	case r.Seq != t.lastSeq+1:
		c.fail("ledger", "worker %d commits seq %d after %d", r.Worker, r.Seq, t.lastSeq)
	case r.Version != t.readV || r.Clock != t.readC:
		c.fail("ledger", "%v computed on version %d clock %d; the worker read version %d clock %d",
			id, r.Version, r.Clock, t.readV, t.readC)
	}
	if c.commitOf(id) != nil {
		c.fail(RuleTwice, "%v committed twice", id)
		return
	}
	if c.workerSide {
		switch s := c.sendOf(id); {
		case s == nil:
			c.fail("ledger", "the coordinator accepted %v, which worker %d never sent", id, r.Worker)
		case s.clock != r.Clock || s.version != r.Version || s.points != r.Points:
			c.fail("ledger", "the coordinator accepted %v as clock %d v=%d points=%d; the worker sent clock %d v=%d points=%d (record %d)",
				id, r.Clock, r.Version, r.Points, s.clock, s.version, s.points, s.at)
		case c.spec.Kind == KGroup && s.batch != r.Batch:
			c.fail(RuleKGroup, "the coordinator accepted %v as computed from batch %d; the worker sent it from batch %d (record %d)",
				id, r.Batch, s.batch, s.at)
		}
	}
	wasReading := t.reading
	t.reading = false
	t.lastSeq = r.Seq
	t.committed, t.committedC, t.committedV = true, r.Clock, r.Version
	c.unread(t.readV, r.Worker)
	ci := &commitInfo{version: r.Version, clock: r.Clock}
	c.commits[id] = ci
	if c.spec.Kind == KGroup {
		ci.batches = c.commitBatches(t, r, id, wasReading)
	}
	c.pruneWorker(r.Worker)
}

func (c *checker) apply(r Record) {
	if r.Version != c.version+1 {
		c.fail("ledger", "apply produces version %d after %d", r.Version, c.version)
	}
	if len(r.Deltas) == 0 {
		c.fail("ledger", "apply of version %d merges no delta", r.Version)
	}
	c.applies++
	prev := c.version
	c.version = r.Version
	batches := 0
	for _, id := range r.Deltas {
		ci := c.commitOf(id)
		switch {
		case ci == nil:
			c.fail("ledger", "apply of version %d merges %v, which was never committed", r.Version, id)
			continue
		case ci.applied:
			c.fail(RuleTwice, "%v applied twice (again in version %d)", id, r.Version)
			continue
		}
		ci.applied = true
		if (c.spec.Kind == BSP || c.spec.Kind == FSP || c.spec.Kind == ISP) && ci.version != prev {
			c.fail("bsp", "apply of version %d merges %v computed on version %d, not %d", r.Version, id, ci.version, prev)
		}
		if c.spec.Kind == KGroup && ci.version != prev {
			c.fail(RuleKGroup, "apply of version %d merges %v computed on version %d, not %d: a group's batches are all computed on the version before its update",
				r.Version, id, ci.version, prev)
		}
		batches += ci.batches
		c.markApplied(id.Worker, ci.clock, r.Version)
	}
	switch c.spec.Kind {
	case BSP, FSP, ISP:
		if !r.Final {
			for _, w := range c.ids {
				if c.readers[prev][w] {
					c.fail("bsp", "apply of version %d lacks worker %d, which read version %d", r.Version, w, prev)
				}
			}
			delete(c.readers, prev)
		}
	case Quorum:
		if need := c.spec.Need.Need(c.members); !r.Final && len(r.Deltas) < need {
			c.fail("quorum", "apply of version %d merges %d deltas; %d members need %d", r.Version, len(r.Deltas), c.members, need)
		}
	case KGroup:
		switch k := c.spec.Group; {
		case !r.Final && batches != k:
			c.fail(RuleKGroup, "apply of version %d aggregates %s (%s); %v aggregates exactly %d", r.Version, nBatches(batches), c.describe(r.Deltas), c.spec, k)
		case r.Final && batches > k:
			c.fail(RuleKGroup, "the final apply (version %d) aggregates %s (%s); %v aggregates at most %d", r.Version, nBatches(batches), c.describe(r.Deltas), c.spec, k)
		}
	}
	for _, id := range r.Deltas {
		c.pruneWorker(id.Worker)
	}
}

// describe lists deltas with the batches each aggregates.
func (c *checker) describe(ds []DeltaID) string {
	var b strings.Builder
	for i, id := range ds {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%v: ", id)
		if ci := c.commits[id]; ci != nil {
			fmt.Fprintf(&b, "%d", ci.batches)
		} else {
			b.WriteString("?")
		}
	}
	return b.String()
}

// held verifies ISP's replica-divergence bound (MLLess §4.1, the bound
// |δ_i| ≤ v_t·|x_i| of Theorem 1's proof) on a worker's held updates right
// after its step r.Clock: the checked held entry nearest its bound must
// satisfy it. The threshold is computed exactly as the filter computes it
// (filter.Significance), so the comparison agrees to the bit.
func (c *checker) held(r Record) {
	t := c.worker(r.Worker, "held record")
	switch {
	case t == nil:
		return
	case c.spec.Kind != ISP:
		c.fail("isp", "held record of worker %d in a %v trace", r.Worker, c.spec)
		return
	case r.Held == nil:
		c.fail("isp", "held record of worker %d without its contents", r.Worker)
		return
	case !t.committed || t.committedC != r.Clock:
		c.fail("isp", "held record of worker %d for step %d, which is not the step it last committed", r.Worker, r.Clock)
		return
	}
	h := r.Held
	if h.Worst < 0 {
		return
	}
	vt := ISPThreshold(c.spec.Threshold, r.Clock)
	if !(math.Abs(h.Acc) <= vt*math.Abs(h.Replica)) {
		c.fail("isp", "worker %d holds back entry %d after step %d: |acc| = %g > v_t·|w| = %g·%g (v = %g)",
			r.Worker, h.Worst, r.Clock, math.Abs(h.Acc), vt, math.Abs(h.Replica), c.spec.Threshold)
	}
}

// ISPThreshold returns the significance threshold of the 0-based step t,
// v_t = v/√(t+1): MLLess §4.1's v/√t with 1-based steps, so the first
// step's threshold is v. It is the formula package filter uses.
func ISPThreshold(v float64, t uint64) float64 { return v / math.Sqrt(float64(t)+1) }

func (c *checker) markApplied(w WorkerID, clock uint64, v Version) {
	t := c.ws[w]
	if t == nil || !t.started || clock < t.first {
		return // a left worker's delta, or one from before it rejoined
	}
	i := int(clock - t.first)
	if i < t.frontier {
		return // nothing reads below the frontier again
	}
	j := i - t.frontier
	for len(t.applied) <= j {
		t.applied = append(t.applied, 0)
	}
	t.applied[j] = v
	from := t.frontier
	for len(t.applied) > 0 && t.applied[0] != 0 {
		m := t.applied[0]
		t.applied = t.applied[1:]
		if t.frontier > 0 {
			m = max(m, t.pmax[t.frontier-1])
		}
		t.pmax = append(t.pmax, m)
		if c.gmax != nil {
			at := t.first + uint64(t.frontier)
			c.gmax[at] = max(c.gmax[at], m)
		}
		t.frontier++
	}
	if c.gmax != nil && t.member && t.frontier > from {
		c.through.remove(t.first + uint64(from))
		c.through.add(t.first + uint64(t.frontier))
	}
}

func (c *checker) end() {
	if !c.stopped {
		c.fail("ledger", "the trace has no stop record, so lost deltas cannot be ruled out")
		return
	}
	c.skippedBatches()
	c.unannounced()
	var lost []DeltaID
	for id, ci := range c.commits {
		if !ci.applied {
			lost = append(lost, id)
		}
	}
	slices.SortFunc(lost, compareDeltaID)
	for _, id := range lost {
		c.fail(RuleLost, "%v was committed (clock %d, v=%d) but never applied", id, c.commits[id].clock, c.commits[id].version)
	}
	var unsent []DeltaID
	for id, s := range c.sends {
		// A delta confirmed before it was accepted was reported then.
		if c.commitOf(id) == nil && !s.abandoned && !s.confirmed {
			unsent = append(unsent, id)
		}
	}
	slices.SortFunc(unsent, compareDeltaID)
	for _, id := range unsent {
		s := c.sends[id]
		c.failAt(s.at, RuleLost, "worker %d sent %v (clock %d, v=%d) but the coordinator never accepted it, and the worker did not abandon it",
			id.Worker, id, s.clock, s.version)
	}
}

// produced takes a worker's RecProduced: how many batches its stream
// produced by the stop, judged at the end (unannounced).
func (c *checker) produced(r Record) {
	if c.spec.Kind != KGroup {
		c.fail("ledger", "worker %d says how many batches its stream produced in a %v trace (streams are KGroup's)", r.Worker, c.spec)
		return
	}
	if bt := c.batchTrack(r.Worker); r.Batch >= bt.produced {
		bt.produced, bt.producedAt = r.Batch, c.at
	}
}

// send checks a worker's RecSend: its deltas go out in sequence, each
// computed on what the worker read.
func (c *checker) send(r Record) {
	t := c.worker(r.Worker, "send")
	if t == nil {
		return
	}
	id := DeltaID{r.Worker, r.Seq}
	if c.sendOf(id) != nil {
		c.fail(RuleTwice, "worker %d sends %v twice", r.Worker, id)
		return
	}
	switch {
	case r.Seq != t.lastSent+1:
		c.fail("ledger", "worker %d sends seq %d after %d", r.Worker, r.Seq, t.lastSent)
	case !t.reading:
		c.fail("ledger", "worker %d sends %v without a read", r.Worker, id)
	case r.Version != t.readV || r.Clock != t.readC:
		c.fail("ledger", "worker %d sends %v computed on version %d clock %d; it read version %d clock %d",
			r.Worker, id, r.Version, r.Clock, t.readV, t.readC)
	}
	if c.spec.Kind == KGroup && t.reading && (r.Batch != t.readBatch || r.Points != t.readPoints) {
		c.fail(RuleKGroup, "worker %d sends %v computed from batch %d over %d points; it was released for %s (%d points)",
			r.Worker, id, r.Batch, r.Points, spanText(t.readBatch, t.readBatch+uint64(t.readBatches)), t.readPoints)
	}
	t.lastSent = max(t.lastSent, r.Seq)
	c.sends[id] = &sendInfo{at: c.at, clock: r.Clock, version: r.Version, points: r.Points, batch: r.Batch}
}

// confirm checks a worker's RecConfirm: the coordinator must have
// accepted the delta before the worker stops sending it.
func (c *checker) confirm(r Record) {
	id := DeltaID{r.Worker, r.Seq}
	s := c.sendOf(id)
	switch {
	case s == nil:
		c.fail("ledger", "worker %d confirms %v, which it never sent", r.Worker, id)
	case s.confirmed:
		c.fail("ledger", "worker %d confirms %v twice", r.Worker, id)
	case s.abandoned:
		c.fail("ledger", "worker %d confirms %v, which it abandoned", r.Worker, id)
	case c.commitOf(id) == nil:
		c.fail(RuleLost, "worker %d took %v as accepted, but the coordinator had not accepted it (a stale or wrong acknowledgement): the delta is lost unless it is sent again",
			r.Worker, id)
	}
	if s != nil && s != prunedSend {
		s.confirmed = true
		c.pruneWorker(r.Worker)
	}
}

// abandon checks a worker's RecAbandon: only a delta sent and not
// confirmed can be given up.
func (c *checker) abandon(r Record) {
	id := DeltaID{r.Worker, r.Seq}
	s := c.sendOf(id)
	switch {
	case s == nil:
		c.fail("ledger", "worker %d abandons %v, which it never sent", r.Worker, id)
		return
	case s.confirmed:
		c.fail("ledger", "worker %d abandons %v, which it confirmed", r.Worker, id)
	case s.abandoned:
		c.fail("ledger", "worker %d abandons %v twice", r.Worker, id)
	case r.Reason == "":
		c.fail("ledger", "worker %d abandons %v without a reason", r.Worker, id)
	}
	if s != prunedSend {
		s.abandoned = true
	}
}

func (c *checker) addID(w WorkerID) {
	i, found := slices.BinarySearch(c.ids, w)
	if !found {
		c.ids = slices.Insert(c.ids, i, w)
	}
}
