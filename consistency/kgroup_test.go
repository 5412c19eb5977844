package consistency_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/syncmodels/syncmodels/consistency"
)

// groupRun is a random KGroup run: the driver and, per worker, the
// batches its accepted commits used.
type groupRun struct {
	*driver
	k, b   int
	spread bool
	used   map[consistency.WorkerID]uint64
	// order[w][i] is the announcement position of w's batch i.
	order     map[consistency.WorkerID][]int
	announced int
	// groupBatches counts the batches committed since the latest apply;
	// active: a group was released since.
	groupBatches int
	active       bool
	// fresh counts the group starts checked against the reference.
	fresh int
	// lateRecord records each batch announcement after the effects it
	// caused (a runtime bug).
	lateRecord bool
	// lax skips the checks of the model (tests of broken models).
	lax bool
}

func newGroupRun(t *testing.T, m consistency.Model, ws []consistency.WorkerID, b int) *groupRun {
	t.Helper()
	spec := m.Spec()
	return &groupRun{driver: wrapDriver(m, ws), k: spec.Group, b: b, spread: spec.Spread,
		used: map[consistency.WorkerID]uint64{}, order: map[consistency.WorkerID][]int{}}
}

// queued returns, per member, its batches announced and not used.
func (g *groupRun) queued() map[consistency.WorkerID]int {
	q := map[consistency.WorkerID]int{}
	for _, w := range g.m.Members() {
		q[w] = int(g.batches[w] - g.used[w])
	}
	return q
}

// reference is the group a fresh start must take (nothing computing,
// nothing committed in the group), computed independently of the model:
// every member's queued batches, sorted by announcement (FIFO) or by
// (rank in its worker's queue, announcement) — §III-B2's priority, since a
// batch's rank is the number of its worker's batches ahead of it in the
// group — and the first K taken. It returns how many each worker gives.
func (g *groupRun) reference() map[consistency.WorkerID]int {
	type cand struct {
		w           consistency.WorkerID
		rank, order int
	}
	var all []cand
	for w, n := range g.queued() {
		for r := range n {
			all = append(all, cand{w, r, g.order[w][int(g.used[w])+r]})
		}
	}
	slices.SortFunc(all, func(a, b cand) int {
		if g.spread && a.rank != b.rank {
			return a.rank - b.rank
		}
		return a.order - b.order
	})
	take := map[consistency.WorkerID]int{}
	if len(all) < g.k {
		return take
	}
	for _, c := range all[:g.k] {
		take[c.w]++
	}
	return take
}

// step feeds ev and, unless lax, checks the model against the reference
// and its liveness: with no group in progress, an announcement or a rejoin
// starts a group exactly when the reference does, with the reference's
// batches; no group in progress means fewer than K batches queued among
// the members; a group in progress that lacks batches has taken every
// queued batch of the members not computing; a group never holds more
// than K batches.
func (g *groupRun) step(ev consistency.Event) ([]consistency.Effect, error) {
	idle := !g.active
	n := len(g.trace.Records)
	effs, err := g.driver.step(ev)
	if err != nil {
		return nil, err
	}
	switch ev.Kind {
	case consistency.EvBatchReady:
		g.order[ev.Worker] = append(g.order[ev.Worker], g.announced)
		g.announced++
		if g.lateRecord {
			// Move the announcement after what it caused.
			r := g.trace.Records[n]
			g.trace.Records = append(slices.Delete(g.trace.Records, n, n+1), r)
		}
	case consistency.EvCommit:
		g.used[ev.Worker] += uint64(ev.Points / g.b)
		g.groupBatches += ev.Points / g.b
	}
	got := map[consistency.WorkerID]int{}
	for _, e := range effs {
		switch e.Kind {
		case consistency.EfApply:
			g.groupBatches, g.active = 0, false
		case consistency.EfRelease:
			g.active = true
			if !g.lax && (e.Batches < 1 || e.Budget != e.Batches*g.b || e.Batch != g.used[e.Worker]) {
				return nil, fmt.Errorf("release %v: want batches from %d, budget = batches·%d", e, g.used[e.Worker], g.b)
			}
			got[e.Worker] += e.Batches
		}
	}
	if g.lax {
		return effs, nil
	}
	if idle && (ev.Kind == consistency.EvBatchReady || ev.Kind == consistency.EvJoin) {
		want := g.reference()
		if len(want) > 0 {
			g.fresh++
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			return nil, fmt.Errorf("%v with nothing computing: the model releases %v batches per worker; the reference %v", ev, got, want)
		}
	}
	if ev.Kind == consistency.EvStop {
		return effs, nil
	}
	need, total := g.k-g.groupBatches, 0
	for _, e := range g.comp {
		need -= e.Batches
	}
	for w, n := range g.queued() {
		if _, busy := g.comp[w]; g.active && need > 0 && !busy && n > 0 {
			return nil, fmt.Errorf("after %v the group lacks %d batches, but worker %d holds %d queued and computes nothing", ev, need, w, n)
		}
		total += n
	}
	switch {
	case need < 0:
		return nil, fmt.Errorf("after %v the group holds %d batches more than K = %d", ev, -need, g.k)
	case !g.active && total >= g.k:
		return nil, fmt.Errorf("after %v no group runs, though the members hold %d ≥ K = %d queued batches", ev, total, g.k)
	}
	return effs, nil
}

// random runs n random events — announcements (worker 0 four times as
// often as the others: a fast stream), commits, preemptions, rejoins and
// new workers — then stops.
func (g *groupRun) random(rng *rand.Rand, n int) error {
	if _, err := g.step(consistency.Event{Kind: consistency.EvStart}); err != nil {
		return err
	}
	away := []consistency.WorkerID{}
	nextID := consistency.WorkerID(100)
	for range n {
		members := g.m.Members()
		switch r := rng.IntN(100); {
		case r < 40 && len(members) > 0:
			w := members[rng.IntN(len(members))]
			if r < 10 {
				w = members[0]
			}
			if _, err := g.step(consistency.Event{Kind: consistency.EvBatchReady, Worker: w, Batch: g.batches[w]}); err != nil {
				return err
			}
		case r < 75:
			comp := g.computing()
			if len(comp) == 0 {
				continue
			}
			w := comp[rng.IntN(len(comp))]
			rel := g.comp[w]
			seq := max(g.next[w], 1)
			if _, err := g.step(consistency.Event{Kind: consistency.EvCommit, Worker: w, Seq: seq, Version: rel.Version, Points: rel.Budget, Batch: rel.Batch}); err != nil {
				return err
			}
		case r < 85 && len(members) > 1:
			// Preempt a computing worker more often than an idle one.
			w := members[rng.IntN(len(members))]
			if comp := g.computing(); len(comp) > 0 && rng.IntN(2) == 0 {
				w = comp[rng.IntN(len(comp))]
			}
			if _, err := g.step(consistency.Event{Kind: consistency.EvLeave, Worker: w}); err != nil {
				return err
			}
			away = append(away, w)
		case r < 95 && len(away) > 0:
			i := rng.IntN(len(away))
			w := away[i]
			away = slices.Delete(away, i, i+1)
			if _, err := g.step(consistency.Event{Kind: consistency.EvJoin, Worker: w}); err != nil {
				return err
			}
		case r >= 98:
			if _, err := g.step(consistency.Event{Kind: consistency.EvJoin, Worker: nextID}); err != nil {
				return err
			}
			nextID++
		}
	}
	_, err := g.step(consistency.Event{Kind: consistency.EvStop})
	return err
}

// The property test: random arrivals, commits, preemptions and rejoins.
// The model takes the reference's batches at every fresh group start and
// never idles with a group's worth of batches queued; its trace passes
// Check; and CheckStats's accounting agrees with what the driver saw.
func TestKGroupRandomRunsPassCheck(t *testing.T) {
	for _, s := range []string{"kgroup:1", "kgroup:3", "kgroup:4:spread", "kgroup:8", "kgroup:6:spread"} {
		t.Run(s, func(t *testing.T) {
			fresh, applies := 0, 0
			for seed := range uint64(20) {
				m, err := consistency.New(consistency.MustParse(s), consistency.Config{Workers: workers(5), Batch: 3})
				if err != nil {
					t.Fatal(err)
				}
				g := newGroupRun(t, m, workers(5), 3)
				if err := g.random(rand.New(rand.NewPCG(seed, 13)), 600); err != nil {
					t.Fatalf("seed %d: %v", seed, err)
				}
				st, err := consistency.CheckStats(&g.trace)
				if err != nil {
					t.Fatalf("seed %d: %v", seed, err)
				}
				for _, u := range st.Batches {
					if u.Announced != g.batches[u.Worker] || u.Used != g.used[u.Worker] || u.Unused != u.Announced-u.Used {
						t.Fatalf("seed %d: stats %+v; the driver announced %d and committed %d", seed, u, g.batches[u.Worker], g.used[u.Worker])
					}
				}
				fresh += g.fresh
				applies += st.Applies
			}
			// The runs exercise what they claim to.
			if fresh < 20 || applies < 100 {
				t.Fatalf("%d group starts checked, %d applies over 20 seeds; the runs are too short", fresh, applies)
			}
		})
	}
}

// claimSpec is a model that claims another spec than the one it runs.
type claimSpec struct {
	consistency.Model
	spec consistency.Spec
}

func (c claimSpec) Spec() consistency.Spec { return c.spec }

// Each plausible runtime or coordinator bug, switched on alone in an
// otherwise correct run, is caught by Check itself, naming the batches.
func TestKGroupCheckCatchesBugs(t *testing.T) {
	tests := []struct {
		name string
		// run is the model's spec and, unless 0, a bug switched on in it.
		run    string
		bug    consistency.KGroupBug
		late   bool // the driver records announcements after their effects
		rule   string
		detail string
	}{
		// A group threshold off by one either way, under kgroup:4.
		{"group-of-k-minus-1", "kgroup:3", 0, false, consistency.RuleKGroup, "aggregates 3 batches (w"},
		{"group-of-k-plus-1", "kgroup:5", 0, false, consistency.RuleKGroup, "aggregates 5 batches (w"},
		// A preempted worker's batches in flight are dropped: the batches
		// are skipped when it computes its later ones.
		{"preempted-batches-dropped", "kgroup:4", consistency.BugDropOnLeave, false, consistency.RuleLost, "never used, though w"},
		// A commit preempted with its worker is assumed lost: its batches
		// are computed twice.
		{"committed-batches-requeued", "kgroup:4", consistency.BugRequeueCommitted, false, consistency.RuleTwice, "used twice: by w"},
		// A straggler's delta joins the next group: two versions in one
		// update.
		{"straggler-folded", "kgroup:4", consistency.BugFoldStraggler, false, consistency.RuleKGroup, "a group's batches are all computed on the version before its update"},
		// The runtime records an announcement after the release it caused:
		// a batch used before it was ready.
		{"batch-used-before-ready", "kgroup:4", 0, true, consistency.RuleKGroup, "before its batch"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := consistency.Config{Workers: workers(5), Batch: 2}
			var m consistency.Model
			var buggy *consistency.BuggyKGroup
			var err error
			if tc.bug != 0 {
				buggy, err = consistency.NewBuggyKGroup(consistency.MustParse(tc.run), cfg, tc.bug)
				m = buggy
			} else {
				m, err = consistency.New(consistency.MustParse(tc.run), cfg)
			}
			if err != nil {
				t.Fatal(err)
			}
			g := newGroupRun(t, claimSpec{m, consistency.MustParse("kgroup:4")}, workers(5), 2)
			g.lax, g.lateRecord = true, tc.late
			if err := g.random(rand.New(rand.NewPCG(5, 5)), 400); err != nil {
				t.Fatal(err)
			}
			if buggy != nil && buggy.Fired == 0 {
				t.Fatal("the bug never fired")
			}
			checkFinds(t, &g.trace, tc.rule, tc.detail, false)
		})
	}
}

// Each KGroup rule of Check on its own, at its boundary (kgroup:2, b = 2
// points): the passing trace and the one that breaks the rule differ by
// a record or a number. Each breaks one rule exactly once, except where
// the fault causes others (cascades).
func TestKGroupCheckRuleBoundaries(t *testing.T) {
	// One group: a batch of each worker.
	group := []string{"batch 0 0", "batch 1 0", "read 0 0 0 0 1", "read 1 0 0 0 1",
		"commit 0 1 0 0 0 1", "commit 1 1 0 0 0 1", "apply 1 0#1 1#1"}
	with := func(extra ...string) []string { return append(slices.Clone(group), extra...) }
	testKGroupRules(t, 2, []ruleCase{
		{"one-group", "", "", with("stop")},
		// 1. Exactly K batches per update, at most K in the final flush,
		// all on the version before it.
		{"k-minus-1", consistency.RuleKGroup, "apply of version 1 aggregates 1 batch (w0#1: 1); kgroup:2 aggregates exactly 2", []string{
			"batch 0 0", "read 0 0 0 0 1", "commit 0 1 0 0 0 1", "apply 1 0#1", "stop"}},
		{"k-plus-1", consistency.RuleKGroup, "aggregates 3 batches (w0#1: 2, w1#1: 1)", []string{
			"batch 0 0", "batch 0 1", "batch 1 0", "read 0 0 0 0 2", "read 1 0 0 0 1",
			"commit 0 1 0 0 0 2", "commit 1 1 0 0 0 1", "apply 1 0#1 1#1", "stop"}},
		{"final-k", "", "", []string{
			"batch 0 0", "batch 0 1", "read 0 0 0 0 2", "commit 0 1 0 0 0 2", "apply! 1 0#1", "stop"}},
		{"final-k-plus-1", consistency.RuleKGroup, "the final apply (version 1) aggregates 3 batches", []string{
			"batch 0 0", "batch 0 1", "batch 0 2", "read 0 0 0 0 3", "commit 0 1 0 0 0 3", "apply! 1 0#1", "stop"}},
		{"final-fewer", "", "", []string{
			"batch 0 0", "read 0 0 0 0 1", "commit 0 1 0 0 0 1", "apply! 1 0#1", "stop"}},
		{"two-versions", consistency.RuleKGroup, "apply of version 2 merges w1#1 computed on version 0, not 1", []string{
			"batch 0 0", "batch 0 1", "batch 1 0", "read 0 0 0 0 2", "read 1 0 0 0 1",
			"commit 0 1 0 0 0 2", "apply 1 0#1", "batch 0 2", "read 0 1 1 2 1",
			"commit 1 1 0 0 0 1", "commit 0 2 1 1 2 1", "apply 2 0#2 1#1", "stop"}},
		// 2. Every batch used once, in order.
		{"twice", consistency.RuleTwice, "batch 0 of worker 0 used twice: by w0#1 (record 4) and by w0#2", with(
			"batch 1 1", "read 0 1 1 0 1", "read 1 1 1 1 1", "commit 0 2 1 1 0 1", "commit 1 2 1 1 1 1", "apply 2 0#2 1#2", "stop")},
		{"skipped-after-preemption", consistency.RuleLost, "batch 1 of worker 0 never used, though w0#2 used its later batch 2: skipped", with(
			"batch 0 1", "batch 1 1", "read 0 1 1 1 1", "read 1 1 1 1 1", "leave 0", "join 0", "batch 0 2",
			"read 0 1 1 2 1", "commit 0 2 1 1 2 1", "commit 1 2 1 1 1 1", "apply 2 0#2 1#2", "stop")},
		{"recomputed-after-preemption", "", "", with(
			"batch 0 1", "batch 1 1", "read 0 1 1 1 1", "read 1 1 1 1 1", "leave 0", "join 0", "batch 0 2",
			"read 0 1 1 1 1", "commit 0 2 1 1 1 1", "commit 1 2 1 1 1 1", "apply 2 0#2 1#2", "stop")},
		{"out-of-order", consistency.RuleKGroup, "w0#2 uses batch 0 after worker 0's batch 1 was used", []string{
			"batch 0 0", "batch 0 1", "batch 1 0", "read 0 0 0 1 1", "read 1 0 0 0 1",
			"commit 0 1 0 0 1 1", "commit 1 1 0 0 0 1", "apply 1 0#1 1#1", "batch 1 1",
			"read 0 1 1 0 1", "read 1 1 1 1 1", "commit 0 2 1 1 0 1", "commit 1 2 1 1 1 1", "apply 2 0#2 1#2", "stop"}},
		{"unused-at-stop", "", "", with("batch 0 1", "batch 0 2", "stop")},
		// 3. No batch used before it was announced.
		{"used-before-ready", consistency.RuleKGroup, "worker 1 is released for batch 1 before its batch 1 was announced (announced: batch 0)", with(
			"batch 0 1", "read 0 1 1 1 1", "read 1 1 1 1 1", "batch 1 1", "commit 0 2 1 1 1 1", "commit 1 2 1 1 1 1", "apply 2 0#2 1#2", "stop")},
		// 4. Announcements numbered 0, 1, 2, … per worker, by members.
		{"announced-twice", consistency.RuleKGroup, "worker 0 announces batch 0 again (batch 0 announced before)", with("batch 0 0", "stop")},
		{"announcement-gap", consistency.RuleKGroup, "worker 0 announces batch 2, skipping batch 1", with("batch 0 2", "stop")},
		{"announced-while-away", "ledger", "batch announcement by worker 0, which is not a member", with("leave 0", "batch 0 1", "stop")},
		// 5. No release to a worker that is away.
		{"released-while-away", "ledger", "read by worker 0, which is not a member", with("batch 0 1", "leave 0", "read 0 1 1 1 1", "stop")},
		// Releases and commits agree on batches and points.
		{"batch-size-changes", consistency.RuleKGroup, "worker 1 is released for 1 batch over 3 points; batches have 2 points (record 2)", []string{
			"batch 0 0", "batch 1 0", "read 0 0 0 0 1", "read 1 0 0 0 1 3", "stop"}},
		{"commit-other-batch", consistency.RuleKGroup, "w1#1 is computed from batch 1 (2 points); worker 1 was released for batch 0 (2 points)", []string{
			"batch 0 0", "batch 1 0", "batch 1 1", "read 0 0 0 0 1", "read 1 0 0 0 1",
			"commit 0 1 0 0 0 1", "commit 1 1 0 0 1 1", "apply 1 0#1 1#1", "stop"}},
		{"release-without-batches", consistency.RuleKGroup, "worker 0 is released for clock 0 without batches", []string{"read 0 0 0", "stop"}},
		// A worker released again in its group, on the version its
		// previous commit is computed on, reads before that commit is
		// applied; a worker released in a later group may not.
		{"released-again-in-group", "", "", []string{
			"batch 0 0", "batch 0 1", "read 0 0 0 0 1", "commit 0 1 0 0 0 1", "read 0 1 0 1 1", "commit 0 2 1 0 1 1", "apply 1 0#1 0#2", "stop"}},
		{"read-before-own-commit", "ledger", "worker 0 reads version 1 for clock 1 without its own clock 0", []string{
			"batch 1 0", "batch 1 1", "read 1 0 0 0 2", "commit 1 1 0 0 0 2", "apply 1 1#1",
			"batch 0 0", "batch 0 1", "read 0 0 0 0 1", "commit 0 1 0 0 0 1", "read 0 1 1 1 1", "stop"}},
	})
}

// The workers' side of a KGroup trace: a worker sends the batches it was
// released for, and the coordinator accepts them as sent.
func TestKGroupCheckWorkerSide(t *testing.T) {
	head := []string{"batch 0 0", "batch 0 1", "read 0 0 0 0 2"}
	testKGroupRules(t, 1, []ruleCase{
		{"healthy", "", "", append(slices.Clone(head), "send 0 1 0 0 0 2", "commit 0 1 0 0 0 2", "apply 1 0#1", "confirm 0 1", "stop")},
		{"sends-other-batches", consistency.RuleKGroup, "worker 0 sends w0#1 computed from batch 1 over 2 points; it was released for batches 0..1 (4 points)",
			append(slices.Clone(head), "send 0 1 0 0 1 1", "stop", "abandon 0 1 stopped")},
		{"accepted-from-another-batch", consistency.RuleKGroup, "the coordinator accepted w0#1 as computed from batch 1; the worker sent it from batch 0",
			append(slices.Clone(head), "batch 0 2", "send 0 1 0 0 0 2", "commit 0 1 0 0 1 2", "apply 1 0#1", "confirm 0 1", "stop")},
		// The stream's count at the stop: every batch produced announced
		// (before or after the stop record), or one lost.
		{"produced-all-announced", "", "", append(slices.Clone(head), "batch 0 2", "produced 0 3", "stop")},
		{"produced-after-stop", "", "", append(slices.Clone(head), "stop", "produced 0 2")},
		{"produced-one-lost", consistency.RuleLost, "worker 0's stream produced 3 batches by the stop; the coordinator heard of 2 batches: batch 2 lost",
			append(slices.Clone(head), "produced 0 3", "stop")},
		{"produced-many-lost", consistency.RuleLost, "heard of 2 batches: batches 2..40 lost",
			append(slices.Clone(head), "stop", "produced 0 41")},
		// A worker that left (its lease ran out) is not waited for.
		{"produced-by-a-leaver", "", "", append(slices.Clone(head), "leave 0", "stop", "produced 0 5")},
	})
	// RecProduced is worker-side, and KGroup's.
	checkFinds(t, trace(t, "kgroup:2", 1, false, "batch 0 0", "produced 0 1", "stop"), "ledger", "without WorkerSide", false)
	checkFinds(t, trace(t, "bsp", 1, true, "produced 0 1", "stop"), "ledger", "streams are KGroup's", false)
}

type ruleCase struct {
	name, rule, detail string
	lines              []string
}

// cascades are the cases whose fault causes other violations besides the
// one they name: a commit from the wrong batch skips the right one; a
// commit read past is never applied.
var cascades = map[string]bool{"commit-other-batch": true, "read-before-own-commit": true, "accepted-from-another-batch": true}

// testKGroupRules checks kgroup:2 traces of n workers (one worker: with
// its side recorded).
func testKGroupRules(t *testing.T, n int, tests []ruleCase) {
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			checkFinds(t, trace(t, "kgroup:2", n, n == 1, tc.lines...), tc.rule, tc.detail, !cascades[tc.name])
		})
	}
}

// The other models validate EvBatchReady (a member, after the start) and
// ignore it, whatever its batch number.
func TestOtherModelsIgnoreBatchReady(t *testing.T) {
	for _, s := range specs {
		m, err := consistency.New(consistency.MustParse(s), consistency.Config{Workers: workers(3), Batch: 2})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := m.Step(consistency.Event{Kind: consistency.EvBatchReady, Worker: 0}); !errors.Is(err, consistency.ErrProtocol) {
			t.Errorf("%s: batch-ready before the start: %v; want ErrProtocol", s, err)
		}
		if _, err := m.Step(consistency.Event{Kind: consistency.EvStart}); err != nil {
			t.Fatal(err)
		}
		for _, b := range []uint64{0, 0, 7, 3} {
			if effs, err := m.Step(consistency.Event{Kind: consistency.EvBatchReady, Worker: 1, Batch: b}); err != nil || len(effs) != 0 {
				t.Errorf("%s: batch-ready w1 batch=%d = %v, %v; want nothing", s, b, effs, err)
			}
		}
		if _, err := m.Step(consistency.Event{Kind: consistency.EvBatchReady, Worker: 5}); !errors.Is(err, consistency.ErrUnknownWorker) {
			t.Errorf("%s: batch-ready of a non-member: %v; want ErrUnknownWorker", s, err)
		}
	}
}

// Refused KGroup events change nothing: after them the model emits
// exactly what a fresh model fed only the accepted events emits.
func TestKGroupRefusedEventsChangeNothing(t *testing.T) {
	for _, s := range []string{"kgroup:2", "kgroup:3:spread"} {
		spec := consistency.MustParse(s)
		a, _ := newDriver(spec, workers(2), 2)
		b, _ := newDriver(spec, workers(2), 2)
		good := []consistency.Event{
			{Kind: consistency.EvStart},
			{Kind: consistency.EvBatchReady, Worker: 0, Batch: 0},
			{Kind: consistency.EvBatchReady, Worker: 1, Batch: 0},
			{Kind: consistency.EvBatchReady, Worker: 1, Batch: 1},
		}
		bad := []consistency.Event{
			{Kind: consistency.EvBatchReady, Worker: 0, Batch: 0}, // duplicate
			{Kind: consistency.EvBatchReady, Worker: 0, Batch: 2}, // gap
			{Kind: consistency.EvBatchReady, Worker: 9, Batch: 0}, // not a member
			{Kind: consistency.EvCommit, Worker: 0, Seq: 1, Points: 2, Batch: 1},
			{Kind: consistency.EvCommit, Worker: 0, Seq: 1, Points: 4, Batch: 0},
			{Kind: consistency.EvCommit, Worker: 0, Seq: 1, Points: 2, Batch: 0, Version: 1},
			{Kind: consistency.EvCommit, Worker: 0, Seq: 2, Points: 2, Batch: 0},
			{Kind: consistency.EvJoin, Worker: 1},
		}
		for _, ev := range good {
			ea, erra := a.step(ev)
			eb, errb := b.step(ev)
			if erra != nil || errb != nil || fmt.Sprint(ea) != fmt.Sprint(eb) {
				t.Fatalf("%s: %v: %v, %v and %v, %v", s, ev, ea, erra, eb, errb)
			}
		}
		for _, ev := range bad {
			if _, err := a.step(ev); err == nil {
				t.Fatalf("%s: %v accepted", s, ev)
			}
		}
		// Both go on identically.
		for _, w := range []consistency.WorkerID{1, 0} {
			ea, erra := a.commit(w)
			eb, errb := b.commit(w)
			if fmt.Sprint(ea, erra) != fmt.Sprint(eb, errb) {
				t.Fatalf("%s: after refused events commit w%d = %v, %v; fresh model %v, %v", s, w, ea, erra, eb, errb)
			}
		}
		ea, erra := a.announce(0)
		eb, errb := b.announce(0)
		if fmt.Sprint(ea, erra) != fmt.Sprint(eb, errb) {
			t.Fatalf("%s: after refused events announce w0 = %v, %v; fresh model %v, %v", s, ea, erra, eb, errb)
		}
	}
}

// The same seed gives the same trace, byte for byte.
func TestKGroupDeterministic(t *testing.T) {
	run := func() string {
		m, err := consistency.New(consistency.MustParse("kgroup:4:spread"), consistency.Config{Workers: workers(6), Batch: 5})
		if err != nil {
			t.Fatal(err)
		}
		g := newGroupRun(t, m, workers(6), 5)
		if err := g.random(rand.New(rand.NewPCG(42, 42)), 500); err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		if _, err := g.trace.WriteTo(&b); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	if a, b := run(), run(); a != b || !strings.Contains(a, "from-batch=") {
		t.Fatalf("two runs with one seed differ (or print no batches):\n%s\n---\n%s", a, b)
	}
}

// The Recorder copies a KGroup release's batches and budget, a commit's
// and a send's first batch; a release of another model keeps its records
// as they were (no points on reads).
func TestRecorderKGroup(t *testing.T) {
	spec := consistency.MustParse("kgroup:2")
	rec := consistency.NewRecorder(spec, workers(1), true)
	rec.BatchReady(1, 0, 0)
	rec.BatchReady(2, 0, 1)
	rel := consistency.Effect{Kind: consistency.EfRelease, Worker: 0, Budget: 6, Batch: 0, Batches: 2}
	rec.Released(3, rel)
	seq := rec.SentFrom(4, 0, 0, 0, 6, 0)
	rec.Accepted(5, consistency.Event{Kind: consistency.EvCommit, Worker: 0, Seq: seq, Points: 6, Batch: 0}, 0)
	rec.Applied(6, consistency.Effect{Kind: consistency.EfApply, Version: 1, Deltas: []consistency.DeltaID{{Worker: 0, Seq: seq}}})
	rec.Confirmed(7, 0, seq)
	rec.Stopped(8)
	tr := rec.Trace()
	if err := consistency.Check(tr); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	tr.WriteTo(&b)
	want := `model kgroup:2 workers [0]
1ns batch-ready w0 batch=0
2ns batch-ready w0 batch=1
3ns read w0 clock=0 v=0 batches=0..1 points=6
4ns send w0#1 clock=0 v=0 points=6 from-batch=0
5ns commit w0#1 clock=0 v=0 points=6 from-batch=0
6ns apply v=1 [w0#1]
7ns confirm w0#1
8ns stop
`
	if b.String() != want {
		t.Fatalf("trace:\n%s\nwant:\n%s", b.String(), want)
	}
	// A BSP release and commit record what they always did.
	bsp := consistency.NewRecorder(consistency.MustParse("bsp"), workers(1), false)
	bsp.Released(0, consistency.Effect{Kind: consistency.EfRelease, Worker: 0, Budget: 10})
	bsp.Accepted(0, consistency.Event{Kind: consistency.EvCommit, Worker: 0, Seq: 1, Points: 10}, 0)
	if r := bsp.Trace().Records; r[0].Points != 0 || r[0].Batches != 0 || r[1].Batch != 0 || r[0].String() != "0s read w0 clock=0 v=0" {
		t.Fatalf("bsp records %+v", r)
	}
}
