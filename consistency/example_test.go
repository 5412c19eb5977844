package consistency_test

import (
	"errors"
	"fmt"

	"github.com/syncmodels/syncmodels/consistency"
)

// A driver feeds events to a model and carries out its effects. Here two
// workers run SSP with staleness 0: worker 0 commits twice in a row but may
// not start its second clock until worker 1 has committed its first.
func Example() {
	m, err := consistency.New(consistency.MustParse("ssp:0"),
		consistency.Config{Workers: []consistency.WorkerID{0, 1}, Batch: 100})
	if err != nil {
		panic(err)
	}
	show := func(ev consistency.Event) {
		effs, err := m.Step(ev)
		if err != nil {
			fmt.Println("error:", err)
			return
		}
		fmt.Printf("%v:\n", ev)
		for _, e := range effs {
			fmt.Println("  ", e)
		}
	}
	show(consistency.Event{Kind: consistency.EvStart})
	show(consistency.Event{Kind: consistency.EvCommit, Worker: 0, Seq: 1, Version: 0, Points: 100})
	show(consistency.Event{Kind: consistency.EvCommit, Worker: 1, Seq: 1, Version: 0, Points: 100})
	// Output:
	// start:
	//    release w0 v=0 clock=0 budget=100
	//    release w1 v=0 clock=0 budget=100
	// commit w0 seq=1 v=0 points=100:
	//    apply v=1 [w0#1]
	//    block w0 waiting=[1]
	// commit w1 seq=1 v=0 points=100:
	//    apply v=2 [w1#1]
	//    release w0 v=2 clock=1 budget=100
	//    release w1 v=2 clock=1 budget=100
}

// ISP's spec: the significance threshold v, 0.7 by default (MLLess
// §6.3.1), and the threshold of each step, v/√(t+1).
func ExampleParse_isp() {
	for _, s := range []string{"isp", "isp:0.25", "isp:0"} {
		spec, err := consistency.Parse(s)
		if err != nil {
			panic(err)
		}
		fmt.Printf("%-8s → %v: v_0 = %g, v_3 = %g\n", s, spec, consistency.ISPThreshold(spec.Threshold, 0), consistency.ISPThreshold(spec.Threshold, 3))
	}
	// Output:
	// isp      → isp:0.7: v_0 = 0.7, v_3 = 0.35
	// isp:0.25 → isp:0.25: v_0 = 0.25, v_3 = 0.125
	// isp:0    → isp:0: v_0 = 0, v_3 = 0
}

// Check judges what a driver did. Here a worker's delta was sent but the
// coordinator never received it (a commit dropped on the link and never
// resent): only the workers' side of the trace shows the loss.
func ExampleCheck() {
	rec := consistency.NewRecorder(consistency.MustParse("asp"), []consistency.WorkerID{0, 1}, true)
	m, _ := consistency.New(consistency.MustParse("asp"), consistency.Config{Workers: []consistency.WorkerID{0, 1}, Batch: 10})
	effs, _ := m.Step(consistency.Event{Kind: consistency.EvStart})
	for _, e := range effs {
		rec.Released(0, e) // both workers start clock 0 on version 0
	}
	// Worker 0's delta arrives and is applied.
	seq := rec.Sent(1, 0, 0, 0, 10)
	commit := consistency.Event{Kind: consistency.EvCommit, Worker: 0, Seq: seq, Version: 0, Points: 10}
	effs, _ = m.Step(commit)
	rec.Accepted(2, commit, 0)
	for _, e := range effs {
		if e.Kind == consistency.EfApply {
			rec.Applied(2, e)
		}
	}
	rec.Confirmed(3, 0, seq)
	// Worker 1's delta is lost on the way.
	rec.Sent(4, 1, 0, 0, 10)
	m.Step(consistency.Event{Kind: consistency.EvStop})
	rec.Stopped(5)

	err := consistency.Check(rec.Trace())
	fmt.Println(err)
	var ce *consistency.CheckError
	if errors.As(err, &ce) {
		fmt.Println("root cause:", ce.Violations[0].Root())
	}
	// Output:
	// consistency: asp trace breaks its guarantees (1 violations; root causes first: 1 lost or doubled deltas)
	// 	record 6: lost: worker 1 sent w1#1 (clock 0, v=0) but the coordinator never accepted it, and the worker did not abandon it
	// root cause: true
}

// DOLL's K-grouping with a preemption, recorded and checked. Worker 0 is
// preempted while computing its batch 0: the batch stays in its queue,
// the group is completed from worker 1's next batch, and worker 0
// computes its batch after it rejoins. Nothing is lost or used twice.
func ExampleCheckStats() {
	spec := consistency.MustParse("kgroup:2")
	ws := []consistency.WorkerID{0, 1}
	m, _ := consistency.New(spec, consistency.Config{Workers: ws, Batch: 10})
	rec := consistency.NewRecorder(spec, ws, false)
	releases := map[consistency.WorkerID]consistency.Effect{}
	seq := map[consistency.WorkerID]uint64{}
	feed := func(ev consistency.Event) {
		effs, err := m.Step(ev)
		if err != nil {
			fmt.Println("error:", err)
			return
		}
		switch ev.Kind {
		case consistency.EvBatchReady:
			rec.BatchReady(0, ev.Worker, ev.Batch)
		case consistency.EvCommit:
			rec.Accepted(0, ev, releases[ev.Worker].Clock)
		case consistency.EvLeave:
			rec.LeftBecause(0, ev.Worker, "preempted")
		case consistency.EvJoin:
			rec.Joined(0, ev.Worker)
		}
		fmt.Printf("%v:\n", ev)
		for _, e := range effs {
			fmt.Println("  ", e)
			switch e.Kind {
			case consistency.EfRelease:
				releases[e.Worker] = e
				rec.Released(0, e)
			case consistency.EfApply:
				rec.Applied(0, e)
			}
		}
	}
	commit := func(w consistency.WorkerID) {
		r := releases[w]
		seq[w]++
		feed(consistency.Event{Kind: consistency.EvCommit, Worker: w, Seq: seq[w], Version: r.Version, Points: r.Budget, Batch: r.Batch})
	}
	feed(consistency.Event{Kind: consistency.EvStart})
	feed(consistency.Event{Kind: consistency.EvBatchReady, Worker: 0, Batch: 0})
	feed(consistency.Event{Kind: consistency.EvBatchReady, Worker: 1, Batch: 0})
	feed(consistency.Event{Kind: consistency.EvBatchReady, Worker: 1, Batch: 1})
	feed(consistency.Event{Kind: consistency.EvLeave, Worker: 0})
	commit(1)
	commit(1)
	feed(consistency.Event{Kind: consistency.EvJoin, Worker: 0})
	feed(consistency.Event{Kind: consistency.EvBatchReady, Worker: 1, Batch: 2})
	commit(0)
	commit(1)
	feed(consistency.Event{Kind: consistency.EvStop})
	rec.Stopped(0)

	st, err := consistency.CheckStats(rec.Trace())
	fmt.Println("check:", err)
	for _, u := range st.Batches {
		fmt.Printf("worker %d: %d batches announced, %d used, %d unused\n", u.Worker, u.Announced, u.Used, u.Unused)
	}
	// Output:
	// start:
	// batch-ready w0 batch=0:
	// batch-ready w1 batch=0:
	//    release w0 v=0 clock=0 budget=10 batch=0
	//    release w1 v=0 clock=0 budget=10 batch=0
	// batch-ready w1 batch=1:
	// leave w0:
	// commit w1 seq=1 v=0 points=10:
	//    release w1 v=0 clock=1 budget=10 batch=1
	// commit w1 seq=2 v=0 points=10:
	//    apply v=1 [w1#1 w1#2]
	// join w0:
	// batch-ready w1 batch=2:
	//    release w0 v=1 clock=0 budget=10 batch=0
	//    release w1 v=1 clock=2 budget=10 batch=2
	// commit w0 seq=1 v=1 points=10:
	//    block w0 waiting=[1]
	// commit w1 seq=3 v=1 points=10:
	//    apply v=2 [w0#1 w1#3]
	// stop:
	// check: <nil>
	// worker 0: 1 batches announced, 1 used, 0 unused
	// worker 1: 3 batches announced, 3 used, 0 unused
}
