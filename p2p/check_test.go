package p2p

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/syncmodels/syncmodels/consistency"
)

// syncTrace is a correct two-peer, two-round synchronous trace.
func syncTrace() *Trace {
	u := func(p, r int) Update { return Update{Peer: p, Seq: uint64(r), Round: r} }
	t := &Trace{Mode: Sync, Peers: 2, Rounds: 2}
	for r := 1; r <= 2; r++ {
		t.Add(Record{Kind: Publish, Peer: 0, Round: r, Update: u(0, r)})
		t.Add(Record{Kind: Publish, Peer: 1, Round: r, Update: u(1, r)})
		t.Add(Record{Kind: Read, Peer: 0, Round: r, Update: u(1, r)})
		t.Add(Record{Kind: Read, Peer: 1, Round: r, Update: u(0, r)})
		t.Add(Record{Kind: Average, Peer: 0, Round: r, Updates: []Update{u(0, r), u(1, r)}, Digest: uint64(r)})
		t.Add(Record{Kind: Average, Peer: 1, Round: r, Updates: []Update{u(0, r), u(1, r)}, Digest: uint64(r)})
	}
	t.Add(Record{Kind: Done, Peer: 0, Round: 2})
	t.Add(Record{Kind: Done, Peer: 1, Round: 2})
	return t
}

// Each rule, broken on purpose in a hand-written trace, is reported with
// its record and the peers and updates involved; root causes first.
func TestCheckRules(t *testing.T) {
	if st, err := Check(syncTrace()); err != nil || st.Published != 4 || st.Reads != 4 || st.Averages != 4 || st.Staleness[0] != 4 || len(st.Unread) != 0 {
		t.Fatalf("Check of a correct trace = %+v, %v", st, err)
	}
	for _, c := range []struct {
		name   string
		break_ func(t *Trace)
		rule   string
		detail string
	}{
		{"missing update", func(t *Trace) { t.Records[4].Updates = t.Records[4].Updates[:1] },
			consistency.RuleLost, "p0's round-1 average lacks p1's round-1 update"},
		{"averaged twice", func(t *Trace) {
			t.Records[10].Updates = append(t.Records[10].Updates, Update{Peer: 1, Seq: 1, Round: 1})
		}, consistency.RuleTwice, "p0 averaged p1@1 again in its round 2"},
		{"never published", func(t *Trace) { t.Records[2].Update.Seq = 9 },
			consistency.RuleLost, "p0 read p1#9@1, which was never published"},
		{"the race: next round's update", func(t *Trace) {
			// p0 publishes round 2 early; p1 reads and averages it in
			// its round 1.
			next := Update{Peer: 0, Seq: 2, Round: 2}
			t.Records[3].Update = next
			t.Records[5].Updates[0] = next
			t.Records = slices.Insert(t.Records, 3, Record{Kind: Publish, Peer: 0, Round: 2, Update: next})
		}, RuleRound, "p1 averaged p0@2, an update of round 2, in its round 1"},
		{"replicas differ", func(t *Trace) { t.Records[11].Digest = 7 },
			RuleReplica, "after round 2 p1's replica has digest 0000000000000007, p0's 0000000000000002"},
		{"unread", func(t *Trace) { t.Records[2].Kind = Loss },
			RuleOrder, "p0 averaged p1@1 in its round 1 without reading it"},
		{"own update missing", func(t *Trace) { t.Records[4].Updates[0] = Update{Peer: 0, Seq: 2, Round: 2} },
			RuleOrder, "p0's round-1 average lacks its own round-1 update"},
		{"rounds skipped", func(t *Trace) { t.Records[4].Round = 2 },
			RuleRound, "p0 averaged its round 2 after round 0"},
		{"unfinished", func(t *Trace) { t.Records = append(t.Records[:10], t.Records[11:]...) },
			RuleRound, "p0 finished after averaging 1 of 2 rounds"},
	} {
		tr := syncTrace()
		c.break_(tr)
		_, err := Check(tr)
		var ce *CheckError
		if !errors.As(err, &ce) {
			t.Errorf("%s: Check = %v; want a *CheckError", c.name, err)
			continue
		}
		found := false
		for _, v := range ce.Violations {
			if v.Rule == c.rule && strings.Contains(v.Detail, c.detail) {
				found = true
			}
		}
		if !found {
			t.Errorf("%s: Check = %v; want %s: %s", c.name, err, c.rule, c.detail)
		}
		for i := 1; i < len(ce.Violations); i++ {
			if ce.Violations[i].Root() && !ce.Violations[i-1].Root() {
				t.Errorf("%s: root cause %v listed after %v", c.name, ce.Violations[i], ce.Violations[i-1])
			}
		}
	}
}

// An asynchronous trace has no round rules: Check measures staleness and
// the updates nobody read, and still catches an update averaged twice or
// older than one averaged before.
func TestCheckAsync(t *testing.T) {
	u := func(p, r int) Update { return Update{Peer: p, Seq: uint64(r), Round: r} }
	tr := &Trace{Mode: Async, Peers: 2, Rounds: 3}
	add := func(r Record) { tr.Add(r) }
	add(Record{Kind: Publish, Peer: 0, Round: 1, Update: u(0, 1)})
	add(Record{Kind: Publish, Peer: 0, Round: 2, Update: u(0, 2)}) // overwrites p0@1 unread
	add(Record{Kind: Publish, Peer: 1, Round: 1, Update: u(1, 1)})
	add(Record{Kind: Read, Peer: 1, Round: 1, Update: u(0, 2)})
	add(Record{Kind: Average, Peer: 1, Round: 1, Updates: []Update{u(0, 2), u(1, 1)}})
	add(Record{Kind: Read, Peer: 0, Round: 3, Update: u(1, 1)})
	add(Record{Kind: Publish, Peer: 0, Round: 3, Update: u(0, 3)}) // never read
	add(Record{Kind: Average, Peer: 0, Round: 1, Updates: []Update{u(0, 1)}})
	add(Record{Kind: Average, Peer: 0, Round: 2, Updates: []Update{u(0, 2)}})
	add(Record{Kind: Average, Peer: 0, Round: 3, Updates: []Update{u(0, 3), u(1, 1)}})
	st, err := Check(tr)
	if err != nil {
		t.Fatalf("Check = %v", err)
	}
	if st.Staleness[-1] != 1 || st.Staleness[2] != 1 || len(st.Staleness) != 2 {
		t.Errorf("staleness %v; want one update one round ahead (-1) and one two rounds behind (2)", st.Staleness)
	}
	if len(st.Unread) != 2 || !st.Unread[0].Overwritten || st.Unread[0].By != u(0, 2) || st.Unread[1].Overwritten || st.Unread[1].Update != u(0, 3) {
		t.Errorf("unread %v; want p0@1 overwritten by p0@2, and p0@3 unread at the end", st.Unread)
	}
	if lo, p50, p90, hi, mean := st.StalenessSummary(); lo != -1 || hi != 2 || p50 != -1 || p90 != -1 || mean != 0.5 {
		t.Errorf("StalenessSummary = %d %d %d %d %v; want -1 -1 -1 2 0.5", lo, p50, p90, hi, mean)
	}
	// p1 averages p0@1 after p0@2: older; and p0@2 again: twice.
	tr.Add(Record{Kind: Read, Peer: 1, Round: 2, Update: u(0, 1)})
	tr.Add(Record{Kind: Publish, Peer: 1, Round: 2, Update: u(1, 2)})
	tr.Add(Record{Kind: Average, Peer: 1, Round: 2, Updates: []Update{u(0, 1), u(0, 2), u(1, 2)}})
	_, err = Check(tr)
	for _, want := range []string{"twice: p1 averaged p0@2 again in its round 2", "order: p1 averaged p0@1 in its round 2 after seq 2 of p0"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Check = %v; want %q", err, want)
		}
	}
}
