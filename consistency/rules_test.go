package consistency_test

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/syncmodels/syncmodels/consistency"
)

// trace builds a trace from compact lines, one record each:
//
//	read W C V [B M [P]] worker W reads version V for clock C (KGroup: for
//	                     its batches B … B+M−1, P = 2M points unless given)
//	commit W S C V [B M] the coordinator accepts W's delta S (clock C, version
//	                     V; KGroup: from batch B over 2M points)
//	apply V W#S …        apply producing V ("apply! …" for the final flush)
//	send W S C V [B M]   worker W sends its delta S (clock C, version V)
//	batch W I            worker W's batch I is ready
//	produced W N         worker W's stream produced N batches by the stop
//	confirm W S          worker W takes S as accepted
//	abandon W S REASON   worker W gives S up
//	join W [S]           worker W joins; S, if given, is its next commit's seq
//	leave W, stop
func trace(t *testing.T, spec string, n int, workerSide bool, lines ...string) *consistency.Trace {
	t.Helper()
	tr := &consistency.Trace{Spec: consistency.MustParse(spec), Workers: workers(n), WorkerSide: workerSide}
	num := func(s string) uint64 {
		v, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatalf("bad number %q", s)
		}
		return v
	}
	for _, l := range lines {
		f := strings.Fields(l)
		r := consistency.Record{}
		switch f[0] {
		case "read":
			r = consistency.Record{Kind: consistency.RecRead, Worker: consistency.WorkerID(num(f[1])), Clock: num(f[2]), Version: consistency.Version(num(f[3]))}
			if len(f) > 4 {
				r.Batch, r.Batches = num(f[4]), int(num(f[5]))
				r.Points = 2 * r.Batches
				if len(f) > 6 {
					r.Points = int(num(f[6]))
				}
			}
		case "commit", "send":
			r = consistency.Record{Kind: consistency.RecCommit, Worker: consistency.WorkerID(num(f[1])), Seq: num(f[2]), Clock: num(f[3]), Version: consistency.Version(num(f[4])), Points: 1}
			if len(f) > 5 {
				r.Batch, r.Points = num(f[5]), 2*int(num(f[6]))
			}
			if f[0] == "send" {
				r.Kind = consistency.RecSend
			}
		case "batch":
			r = consistency.Record{Kind: consistency.RecBatch, Worker: consistency.WorkerID(num(f[1])), Batch: num(f[2])}
		case "produced":
			r = consistency.Record{Kind: consistency.RecProduced, Worker: consistency.WorkerID(num(f[1])), Batch: num(f[2])}
		case "apply", "apply!":
			r = consistency.Record{Kind: consistency.RecApply, Version: consistency.Version(num(f[1])), Final: f[0] == "apply!"}
			for _, d := range f[2:] {
				w, s, _ := strings.Cut(d, "#")
				r.Deltas = append(r.Deltas, consistency.DeltaID{Worker: consistency.WorkerID(num(w)), Seq: num(s)})
			}
		case "confirm":
			r = consistency.Record{Kind: consistency.RecConfirm, Worker: consistency.WorkerID(num(f[1])), Seq: num(f[2])}
		case "abandon":
			r = consistency.Record{Kind: consistency.RecAbandon, Worker: consistency.WorkerID(num(f[1])), Seq: num(f[2]), Reason: strings.Join(f[3:], " ")}
		case "join":
			r = consistency.Record{Kind: consistency.RecJoin, Worker: consistency.WorkerID(num(f[1]))}
			if len(f) > 2 {
				r.Seq = num(f[2])
			}
		case "leave":
			r = consistency.Record{Kind: consistency.RecLeave, Worker: consistency.WorkerID(num(f[1]))}
		case "stop":
			r = consistency.Record{Kind: consistency.RecStop}
		default:
			t.Fatalf("bad line %q", l)
		}
		tr.Add(r)
	}
	return tr
}

// checkRule asserts that Check finds exactly one violation, of rule, whose
// detail contains detail; or none when rule is "".
func checkRule(t *testing.T, tr *consistency.Trace, rule, detail string) {
	t.Helper()
	checkFinds(t, tr, rule, detail, true)
}

// checkFinds asserts that Check finds a violation of rule mentioning
// detail (the only one if exact), or none when rule is "".
func checkFinds(t *testing.T, tr *consistency.Trace, rule, detail string, exact bool) {
	t.Helper()
	err := consistency.Check(tr)
	if rule == "" {
		if err != nil {
			t.Fatalf("Check = %v; want no violation", err)
		}
		return
	}
	var ce *consistency.CheckError
	if !errors.As(err, &ce) {
		t.Fatalf("Check = %v; want one %q violation", err, rule)
	}
	if exact && ce.Total != 1 {
		t.Fatalf("Check = %v; want exactly one %q violation mentioning %q", err, rule, detail)
	}
	for _, v := range ce.Violations {
		if v.Rule == rule && strings.Contains(v.Detail, detail) {
			return
		}
	}
	t.Fatalf("Check = %v; want a %q violation mentioning %q", err, rule, detail)
}

// Each rule of Check on its own, at its boundary: the passing trace and
// the one that breaks the rule differ by one record or one number.
func TestCheckRuleBoundaries(t *testing.T) {
	tests := []struct {
		name, spec string
		n          int
		rule       string // "" = passes
		detail     string
		lines      []string
	}{
		// SSP(1): a worker may read clock s = 1 ahead of a worker still
		// at clock 0, not s+1 = 2.
		{"ssp-at-bound", "ssp:1", 2, "", "", []string{
			"read 0 0 0", "read 1 0 0", "commit 0 1 0 0", "apply 1 0#1", "read 0 1 1", "stop"}},
		{"ssp-one-clock-over", "ssp:1", 2, "ssp", "missing clock 0 of worker 1", []string{
			"read 0 0 0", "read 1 0 0", "commit 0 1 0 0", "apply 1 0#1", "read 0 1 1", "commit 0 2 1 1", "apply 2 0#2", "read 0 2 2", "stop"}},
		// BSP's "every member" rule alone: a round applied without a
		// member that read its version (and never committed).
		{"bsp-every-member-kept", "bsp", 2, "", "", []string{
			"read 0 0 0", "read 1 0 0", "commit 0 1 0 0", "commit 1 1 0 0", "apply 1 0#1 1#1", "stop"}},
		{"bsp-every-member-broken", "bsp", 2, "bsp", "lacks worker 1", []string{
			"read 0 0 0", "read 1 0 0", "commit 0 1 0 0", "apply 1 0#1", "stop"}},
		// BSP's "same version" rule alone: every reader committed, but
		// one delta is applied a version late.
		{"bsp-same-version-broken", "bsp", 2, "bsp", "computed on version 0, not 1", []string{
			"read 0 0 0", "read 1 0 0", "commit 0 1 0 0", "commit 1 1 0 0", "apply 1 0#1", "apply 2 1#1", "stop"}},
		// Quorum 3 of 4: three deltas release, k−1 = 2 do not.
		{"quorum-k", "quorum:3", 4, "", "", []string{
			"read 0 0 0", "read 1 0 0", "read 2 0 0", "read 3 0 0",
			"commit 0 1 0 0", "commit 1 1 0 0", "commit 2 1 0 0", "apply 1 0#1 1#1 2#1", "stop"}},
		{"quorum-k-minus-1", "quorum:3", 4, "quorum", "merges 2 deltas; 4 members need 3", []string{
			"read 0 0 0", "read 1 0 0", "read 2 0 0", "read 3 0 0",
			"commit 0 1 0 0", "commit 1 1 0 0", "apply 1 0#1 1#1", "stop"}},
		// The final flush may merge fewer than k.
		{"quorum-final-flush", "quorum:3", 4, "", "", []string{
			"read 0 0 0", "read 1 0 0", "commit 0 1 0 0", "commit 1 1 0 0", "apply! 1 0#1 1#1", "stop"}},
		// The ledger: a committed delta the stop finds unapplied is lost.
		{"ledger-lost-at-stop", "asp", 1, consistency.RuleLost, "committed (clock 0, v=0) but never applied", []string{
			"read 0 0 0", "commit 0 1 0 0", "stop"}},
		{"ledger-twice", "asp", 1, consistency.RuleTwice, "applied twice", []string{
			"read 0 0 0", "commit 0 1 0 0", "apply 1 0#1", "apply 2 0#1", "stop"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			checkRule(t, trace(t, tc.spec, tc.n, false, tc.lines...), tc.rule, tc.detail)
		})
	}
}

// The workers' side (Trace.WorkerSide): every delta sent and not abandoned
// is accepted; no worker confirms a delta before the coordinator accepted
// it; the coordinator accepts only what was sent.
func TestCheckWorkerSide(t *testing.T) {
	ok := []string{"read 0 0 0", "send 0 1 0 0", "commit 0 1 0 0", "apply 1 0#1", "read 0 1 1", "confirm 0 1", "stop"}
	tests := []struct {
		name, rule, detail string
		lines              []string
	}{
		{"healthy", "", "", ok},
		{"sent-never-accepted", consistency.RuleLost, "the coordinator never accepted it", []string{
			"read 0 0 0", "send 0 1 0 0", "stop"}},
		{"sent-abandoned-at-stop", "", "", []string{
			"read 0 0 0", "send 0 1 0 0", "stop", "abandon 0 1 in flight when the run ended"}},
		{"abandon-without-reason", "ledger", "without a reason", []string{
			"read 0 0 0", "send 0 1 0 0", "abandon 0 1", "stop"}},
		{"stale-ack", consistency.RuleLost, "had not accepted it", []string{
			"read 0 0 0", "send 0 1 0 0", "confirm 0 1", "commit 0 1 0 0", "apply 1 0#1", "stop"}},
		{"accepted-never-sent", "ledger", "never sent", []string{
			"read 0 0 0", "commit 0 1 0 0", "apply 1 0#1", "stop"}},
		{"accepted-other-content", "ledger", "the worker sent clock 0 v=0", []string{
			"read 0 0 0", "send 0 1 0 0", "commit 0 1 0 1", "apply 1 0#1", "stop"}},
		{"send-skips-a-seq", "ledger", "sends seq 2 after 0", []string{
			"read 0 0 0", "send 0 2 0 0", "commit 0 2 0 0", "apply 1 0#2", "stop"}},
		{"confirm-after-stop", "", "", []string{
			"read 0 0 0", "send 0 1 0 0", "commit 0 1 0 0", "apply! 1 0#1", "stop", "confirm 0 1"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			checkFinds(t, trace(t, "asp", 1, true, tc.lines...), tc.rule, tc.detail, false)
		})
	}
	// Worker-side records need WorkerSide: a driver cannot slip them in.
	checkFinds(t, trace(t, "asp", 1, false, ok...), "ledger", "without WorkerSide", false)
}

// A lost delta breaks BSP's rules in cascade; the error puts the root
// cause first and keeps every violation, not the first 20 only.
func TestCheckRootCauseFirst(t *testing.T) {
	lines := []string{"read 0 0 0", "read 1 0 0", "send 0 1 0 0", "send 1 1 0 0", "commit 1 1 0 0"}
	// The coordinator, missing worker 0's delta, goes on without it for
	// 30 rounds (each breaking "every member").
	for v := 1; v <= 30; v++ {
		lines = append(lines, fmt.Sprintf("apply %d 1#%d", v, v), fmt.Sprintf("read 1 %d %d", v, v),
			fmt.Sprintf("send 1 %d %d %d", v+1, v, v), fmt.Sprintf("commit 1 %d %d %d", v+1, v, v))
	}
	lines = append(lines, "apply! 31 1#31", "stop")
	err := consistency.Check(trace(t, "bsp", 2, true, lines...))
	var ce *consistency.CheckError
	if !errors.As(err, &ce) {
		t.Fatalf("Check = %v", err)
	}
	if first := ce.Violations[0]; !first.Root() || !strings.Contains(first.Detail, "w0#1") {
		t.Fatalf("first violation %v; want the lost w0#1", first)
	}
	if len(ce.Violations) != ce.Total || ce.Total < 2 {
		t.Fatalf("%d violations kept of %d", len(ce.Violations), ce.Total)
	}
	if msg := err.Error(); !strings.Contains(msg, "root causes first: 1 lost") || strings.Count(msg, "\n\t") > 21 {
		t.Fatalf("message:\n%s", msg)
	}
}

// A worker that leaves with a sent delta the coordinator never accepted
// rejoins past that delta's number; it must abandon it, and the rejoin
// must not reuse a number already committed.
func TestRejoinSkipsUnacceptedSeq(t *testing.T) {
	base := []string{
		"read 0 0 0", "read 1 0 0",
		"send 0 1 0 0", "commit 0 1 0 0", "confirm 0 1",
		"send 1 1 0 0", "commit 1 1 0 0", "confirm 1 1",
		"apply 1 0#1 1#1",
		"read 0 1 1", "read 1 1 1",
		"send 1 2 1 1", "commit 1 2 1 1", "confirm 1 2",
		"send 0 2 1 1", // lost on the link; worker 0's lease expires
		"leave 0",
	}
	ok := append(append([]string{}, base...),
		"join 0 3", "abandon 0 2 lease expired",
		"apply 2 1#2",
		"read 0 2 2", "read 1 2 2",
		"send 0 3 2 2", "commit 0 3 2 2", "confirm 0 3",
		"apply 3 0#3", "stop")
	checkRule(t, trace(t, "asp", 2, true, ok...), "", "")

	// Without the abandon, the delta the worker sent is lost.
	noAbandon := append(append([]string{}, base...),
		"join 0 3", "apply 2 1#2",
		"read 0 2 2", "send 0 3 2 2", "commit 0 3 2 2", "confirm 0 3", "apply 3 0#3", "stop")
	checkFinds(t, trace(t, "asp", 2, true, noAbandon...), consistency.RuleLost, "w0#2", false)

	// A rejoin at a number already committed would let a delta count twice.
	reuse := append(append([]string{}, base...), "join 0 1", "abandon 0 2 lease expired", "stop")
	checkFinds(t, trace(t, "asp", 2, true, reuse...), consistency.RuleTwice, "rejoins at seq 1", false)
}

// The models take a rejoin's first sequence number and refuse one that
// was already accepted.
func TestModelRejoinSeq(t *testing.T) {
	for _, spec := range []string{"bsp", "ssp:1", "asp", "quorum:1", "fsp:10ms"} {
		t.Run(spec, func(t *testing.T) {
			m, err := consistency.New(consistency.MustParse(spec), consistency.Config{Workers: workers(2)})
			if err != nil {
				t.Fatal(err)
			}
			// rel[w] is the version of worker w's latest release.
			rel := map[consistency.WorkerID]consistency.Version{}
			step := func(ev consistency.Event) (bool, error) {
				if ev.Kind == consistency.EvCommit {
					ev.Version = rel[ev.Worker]
				}
				effs, err := m.Step(ev)
				released := false
				for _, e := range effs {
					if e.Kind == consistency.EfRelease {
						rel[e.Worker] = e.Version
						released = released || e.Worker == 0
					}
				}
				return released, err
			}
			must := func(ev consistency.Event) bool {
				t.Helper()
				r, err := step(ev)
				if err != nil {
					t.Fatal(err)
				}
				return r
			}
			must(consistency.Event{Kind: consistency.EvStart})
			must(consistency.Event{Kind: consistency.EvCommit, Worker: 0, Seq: 1})
			must(consistency.Event{Kind: consistency.EvLeave, Worker: 0})
			_, err = step(consistency.Event{Kind: consistency.EvJoin, Worker: 0, Seq: 1})
			if !errors.Is(err, consistency.ErrProtocol) || !strings.Contains(err.Error(), "already accepted") {
				t.Fatalf("rejoin at an accepted seq: err = %v, want ErrProtocol naming it", err)
			}
			released := must(consistency.Event{Kind: consistency.EvJoin, Worker: 0, Seq: 3})
			// Worker 0 is released in a later round; drive worker 1 (and
			// FSP's timer) until it is.
			for seq := uint64(1); seq < 5 && !released; seq++ {
				released = must(consistency.Event{Kind: consistency.EvCommit, Worker: 1, Seq: seq})
				if !released && spec == "fsp:10ms" {
					released = must(consistency.Event{Kind: consistency.EvTick, Now: time.Hour})
				}
			}
			if !released {
				t.Fatal("the rejoined worker was never released")
			}
			if _, err := step(consistency.Event{Kind: consistency.EvCommit, Worker: 0, Seq: 2}); err == nil {
				t.Fatal("commit 2 after rejoining at 3 was accepted")
			}
			must(consistency.Event{Kind: consistency.EvCommit, Worker: 0, Seq: 3})
		})
	}
}
