package p2p

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/syncmodels/syncmodels/consistency"
)

// Rules of Check, besides consistency.RuleLost and consistency.RuleTwice
// (root causes: an update a peer should have averaged and did not, or
// averaged twice).
const (
	// RuleRound (Sync): a peer averaged, in its round r, an update of
	// another round (the paper's barrier race: a slow peer reads round
	// r+1's update in round r), or a peer's rounds are missing or out of
	// order.
	RuleRound = "round"
	// RuleReplica (Sync): after round r the peers' replicas differ.
	RuleReplica = "replica"
	// RuleOrder: a peer averaged an update older than one of the same
	// peer it had averaged before, or an average lacks the peer's own
	// update of its round, or holds an update the peer never read.
	RuleOrder = "order"
)

// CheckError lists the violations Check found, root causes (lost or
// doubled updates) first, then the rest in trace order. Its Violations
// are consistency's, so that one reading serves both checkers.
type CheckError struct {
	Mode       Mode
	Barrier    Barrier
	Violations []consistency.Violation
	// Total counts the violations; it exceeds len(Violations) only when
	// more than maxKept non-root violations were found.
	Total int
}

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
	mode := e.Mode.String()
	if e.Mode == Sync {
		mode += " (" + e.Barrier.String() + ")"
	}
	fmt.Fprintf(&b, "p2p: %s trace breaks its guarantees (%d violations", mode, e.Total)
	if roots > 0 {
		fmt.Fprintf(&b, "; root causes first: %d lost or doubled updates", roots)
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

// Stats is what Check measured on a trace besides its violations.
type Stats struct {
	// Published, Reads and Averages count those records.
	Published, Reads, Averages int
	// Staleness counts, over every update a peer averaged from another
	// peer, its staleness: the reader's round minus the update's round
	// (0: the same round; > 0: an older update; < 0: the writer is ahead
	// of the reader). Sync runs have only 0.
	Staleness map[int]int
	// Unread lists the updates no other peer ever read, in trace order.
	Unread []Unread
}

// Unread is an update no other peer read.
type Unread struct {
	Update Update
	// By is the update of the same peer that replaced it in its slot
	// before anyone read it; the zero Update if it was still the peer's
	// latest at the end of the run.
	By Update
	// Overwritten reports whether By is set: the update was published
	// and silently replaced (an asynchronous peer faster than its
	// readers).
	Overwritten bool
}

func (u Unread) String() string {
	if u.Overwritten {
		return fmt.Sprintf("%v overwritten by %v before anyone read it", u.Update, u.By)
	}
	return fmt.Sprintf("%v still unread at the end", u.Update)
}

// StalenessSummary returns the smallest, median, 90th-percentile and
// largest staleness, and their mean, or zeros if there is none.
func (s Stats) StalenessSummary() (lo, p50, p90, hi int, mean float64) {
	keys := slices.Sorted(maps.Keys(s.Staleness))
	n := 0
	sum := 0
	for _, k := range keys {
		n += s.Staleness[k]
		sum += k * s.Staleness[k]
	}
	if n == 0 {
		return 0, 0, 0, 0, 0
	}
	at := func(q float64) int {
		rank := int(q * float64(n-1)) // nearest rank below
		for _, k := range keys {
			if rank < s.Staleness[k] {
				return k
			}
			rank -= s.Staleness[k]
		}
		return keys[len(keys)-1]
	}
	return keys[0], at(0.5), at(0.9), keys[len(keys)-1], float64(sum) / float64(n)
}

// Check verifies that a recorded run kept its mode's guarantee and
// returns what it measured, with a *CheckError listing what broke (nil if
// nothing did).
//
// Every mode: a peer averages only updates that were published (else
// RuleLost) and, but for its own, that it read; each at most once
// (RuleTwice); never one older than an update of the same peer it
// averaged before (RuleOrder); each average holds the peer's own update
// of its round (RuleOrder); each peer's averages are its rounds 1, 2, …
// (RuleRound).
//
// Sync: the round-r average of every peer holds exactly the round-r
// update of every peer — an update of another round breaks RuleRound
// (the race of the paper's one barrier), a missing one RuleLost — and
// after round r every peer's replica has the same digest (RuleReplica).
// A peer that finished (a Done record) averaged every round of the
// trace.
//
// Async has no more rules: Stats reports its staleness distribution and
// the updates nobody read (overwritten before anyone read them, or still
// unread at the end).
func Check(t *Trace) (Stats, error) {
	c := &checker{t: t, err: CheckError{Mode: t.Mode, Barrier: t.Barrier}}
	c.run()
	st := c.stats
	if c.err.Total == 0 {
		return st, nil
	}
	slices.SortStableFunc(c.err.Violations, func(a, b consistency.Violation) int {
		if a.Root() != b.Root() {
			if a.Root() {
				return -1
			}
			return 1
		}
		return cmp.Compare(a.Record, b.Record)
	})
	return st, &c.err
}

type checker struct {
	t     *Trace
	at    int
	err   CheckError
	stats Stats
}

func (c *checker) fail(rule, format string, args ...any) {
	c.err.Total++
	v := consistency.Violation{Record: c.at, Rule: rule, Detail: fmt.Sprintf(format, args...)}
	if v.Root() || len(c.err.Violations) < maxKept {
		c.err.Violations = append(c.err.Violations, v)
	}
}

// peerKey identifies an update in the checker's maps.
type peerKey struct {
	peer int
	seq  uint64
}

func (c *checker) run() {
	t := c.t
	c.stats.Staleness = map[int]int{}
	published := map[peerKey]Update{}
	publishedAt := map[peerKey]int{}
	var order []peerKey          // published updates in trace order
	next := map[peerKey]Update{} // the update that replaced one in its slot
	latest := map[int]peerKey{}
	read := map[peerKey]bool{}             // read by some other peer
	readBy := map[peerKey]map[int]bool{}   // who read it
	averaged := map[int]map[peerKey]bool{} // per peer
	newest := map[int]map[int]uint64{}     // per peer, per writer: newest seq averaged
	rounds := map[int]int{}                // per peer: last round averaged
	done := map[int]bool{}                 // peers that finished
	digests := map[int]map[int]uint64{}    // round → peer → digest
	digestAt := map[int]map[int]int{}      // round → peer → record
	for i, r := range t.Records {
		c.at = i
		switch r.Kind {
		case Publish:
			c.stats.Published++
			k := peerKey{r.Update.Peer, r.Update.Seq}
			if r.Update.Peer != r.Peer {
				c.fail(RuleOrder, "p%d published an update of p%d (%v)", r.Peer, r.Update.Peer, r.Update)
			}
			if old, ok := published[k]; ok {
				if old != r.Update {
					c.fail(consistency.RuleTwice, "p%d published seq %d twice, as %v and as %v", r.Peer, k.seq, old, r.Update)
				}
				continue // a retry of the same update
			}
			published[k] = r.Update
			publishedAt[k] = i
			order = append(order, k)
			if prev, ok := latest[r.Peer]; ok {
				next[prev] = r.Update
			}
			latest[r.Peer] = k
		case Read:
			c.stats.Reads++
			k := peerKey{r.Update.Peer, r.Update.Seq}
			u, ok := published[k]
			switch {
			case !ok:
				c.fail(consistency.RuleLost, "p%d read %v, which was never published", r.Peer, r.Update)
			case u != r.Update:
				c.fail(RuleOrder, "p%d read %v, published as %v", r.Peer, r.Update, u)
			}
			if r.Update.Peer != r.Peer {
				read[k] = true
				if readBy[k] == nil {
					readBy[k] = map[int]bool{}
				}
				readBy[k][r.Peer] = true
			}
		case Average:
			c.stats.Averages++
			c.average(r, published, readBy, averaged, newest, rounds)
			if t.Mode == Sync {
				if digests[r.Round] == nil {
					digests[r.Round], digestAt[r.Round] = map[int]uint64{}, map[int]int{}
				}
				digests[r.Round][r.Peer], digestAt[r.Round][r.Peer] = r.Digest, i
			}
		case Done:
			done[r.Peer] = true
		}
	}
	c.at = len(t.Records)
	if t.Mode == Sync {
		for _, round := range slices.Sorted(maps.Keys(digests)) {
			ds := digests[round]
			peers := slices.Sorted(maps.Keys(ds))
			for _, p := range peers[1:] {
				if ds[p] != ds[peers[0]] {
					c.at = digestAt[round][p]
					c.fail(RuleReplica, "after round %d p%d's replica has digest %016x, p%d's %016x", round, p, ds[p], peers[0], ds[peers[0]])
				}
			}
		}
		c.at = len(t.Records)
		for _, p := range slices.Sorted(maps.Keys(done)) {
			if rounds[p] != t.Rounds {
				c.fail(RuleRound, "p%d finished after averaging %d of %d rounds", p, rounds[p], t.Rounds)
			}
		}
	}
	for _, k := range order {
		if read[k] || c.t.Peers <= 1 {
			continue
		}
		u := Unread{Update: published[k]}
		if n, ok := next[k]; ok {
			u.By, u.Overwritten = n, true
		}
		c.stats.Unread = append(c.stats.Unread, u)
	}
}

// average checks one Average record.
func (c *checker) average(r Record, published map[peerKey]Update, readBy map[peerKey]map[int]bool,
	averaged map[int]map[peerKey]bool, newest map[int]map[int]uint64, rounds map[int]int) {
	t := c.t
	me := r.Peer
	if averaged[me] == nil {
		averaged[me], newest[me] = map[peerKey]bool{}, map[int]uint64{}
	}
	if r.Round != rounds[me]+1 {
		c.fail(RuleRound, "p%d averaged its round %d after round %d", me, r.Round, rounds[me])
	}
	rounds[me] = r.Round
	own := false
	from := map[int]Update{}
	for _, u := range r.Updates {
		k := peerKey{u.Peer, u.Seq}
		pu, ok := published[k]
		switch {
		case !ok:
			c.fail(consistency.RuleLost, "p%d averaged %v in its round %d, which was never published", me, u, r.Round)
		case pu != u:
			c.fail(RuleOrder, "p%d averaged %v in its round %d, published as %v", me, u, r.Round, pu)
		}
		if u.Peer == me && u.Round == r.Round {
			own = true
		} else if u.Peer != me && !readBy[k][me] {
			c.fail(RuleOrder, "p%d averaged %v in its round %d without reading it", me, u, r.Round)
		}
		if averaged[me][k] {
			c.fail(consistency.RuleTwice, "p%d averaged %v again in its round %d", me, u, r.Round)
			continue
		}
		averaged[me][k] = true
		if s, ok := newest[me][u.Peer]; ok && u.Seq < s {
			c.fail(RuleOrder, "p%d averaged %v in its round %d after seq %d of p%d", me, u, r.Round, s, u.Peer)
		}
		newest[me][u.Peer] = max(newest[me][u.Peer], u.Seq)
		if u.Peer != me {
			c.stats.Staleness[r.Round-u.Round]++
		}
		if t.Mode == Sync {
			if u.Round != r.Round {
				c.fail(RuleRound, "p%d averaged %v, an update of round %d, in its round %d", me, u, u.Round, r.Round)
			}
			from[u.Peer] = u
		}
	}
	if !own {
		c.fail(RuleOrder, "p%d's round-%d average lacks its own round-%d update", me, r.Round, r.Round)
	}
	if t.Mode == Sync {
		for p := range t.Peers {
			if _, ok := from[p]; !ok && p != me {
				c.fail(consistency.RuleLost, "p%d's round-%d average lacks p%d's round-%d update", me, r.Round, p, r.Round)
			}
		}
	}
}
