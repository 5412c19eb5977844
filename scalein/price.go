package scalein

import (
	"fmt"
	"time"

	"github.com/syncmodels/syncmodels/cost"
)

// Lifetime is the time one worker spent in the pool, on the caller's
// clock: from Start (the run's start, 0) to Stop (its eviction, or the
// end of the run).
type Lifetime struct {
	Worker      int
	Start, Stop time.Duration
}

// Lifetimes returns every configured worker's lifetime in a run that ended
// at end (for Perf/$, the time the target loss was reached), in
// Config.Workers order: evicted workers stop at their eviction's Time,
// the others at end. end must be ≥ 0 and not before any eviction.
func (t *Tuner) Lifetimes(end time.Duration) ([]Lifetime, error) {
	if end < 0 {
		return nil, &InputError{Op: "Lifetimes", Input: "end", Value: end, Err: ErrNegative}
	}
	if k := len(t.evictions); k > 0 && end < t.evictions[k-1].Time {
		e := t.evictions[k-1]
		return nil, &InputError{Op: "Lifetimes", Input: "end", Value: end,
			Detail: fmt.Sprintf("worker %d was evicted at %v", e.Worker, e.Time), Err: ErrTimeOrder}
	}
	stop := make(map[int]time.Duration, len(t.evictions))
	for _, e := range t.evictions {
		stop[e.Worker] = e.Time
	}
	out := make([]Lifetime, len(t.workers))
	for i, w := range t.workers {
		out[i] = Lifetime{Worker: w.id, Stop: end}
		if s, ok := stop[w.id]; ok {
			out[i].Stop = s
		}
	}
	return out, nil
}

// Fixed returns the lifetimes of a run with a fixed pool: every worker
// from 0 to end. It is the baseline the auto-tuner's Perf/$ is compared
// with (MLLess §6.2.2, Fig. 6).
func Fixed(workers []int, end time.Duration) []Lifetime {
	out := make([]Lifetime, len(workers))
	for i, id := range workers {
		out[i] = Lifetime{Worker: id, Stop: end}
	}
	return out
}

// Bill prices a run on the MLLess deployment of cost.MLLess (§6.1): one
// cloud function per lifetime, named cost.WorkerName(Worker) and billed
// over [Start, Stop], plus the messaging and Redis VMs, billed over
// [0, end]. o selects the price table and billing granularity (the zero
// Options is the paper's accounting). Lifetimes must have distinct workers
// ≥ 0 and 0 ≤ Start ≤ Stop ≤ end.
func Bill(lifetimes []Lifetime, end time.Duration, o cost.Options) (cost.Bill, error) {
	if len(lifetimes) == 0 {
		return cost.Bill{}, &InputError{Op: "Bill", Input: "len(lifetimes)", Value: 0, Err: ErrLength}
	}
	if end < 0 {
		return cost.Bill{}, &InputError{Op: "Bill", Input: "end", Value: end, Err: ErrNegative}
	}
	seen := make(map[int]int, len(lifetimes))
	for i, l := range lifetimes {
		field := func(name string) string { return fmt.Sprintf("lifetimes[%d].%s", i, name) }
		switch {
		case l.Worker < 0:
			return cost.Bill{}, &InputError{Op: "Bill", Input: field("Worker"), Value: l.Worker, Err: ErrNegative}
		case l.Start < 0:
			return cost.Bill{}, &InputError{Op: "Bill", Input: field("Start"), Value: l.Start, Err: ErrNegative}
		case l.Stop < l.Start:
			return cost.Bill{}, &InputError{Op: "Bill", Input: field("Stop"), Value: l.Stop,
				Detail: "before Start " + l.Start.String(), Err: ErrTimeOrder}
		case l.Stop > end:
			return cost.Bill{}, &InputError{Op: "Bill", Input: field("Stop"), Value: l.Stop,
				Detail: "after the end " + end.String(), Err: ErrTimeOrder}
		}
		if j, dup := seen[l.Worker]; dup {
			return cost.Bill{}, &InputError{Op: "Bill", Input: field("Worker"), Value: l.Worker,
				Detail: fmt.Sprintf("also lifetimes[%d]", j), Err: ErrDuplicateWorker}
		}
		seen[l.Worker] = i
	}
	rs, err := cost.MLLess(len(lifetimes), o)
	if err != nil {
		return cost.Bill{}, err
	}
	var ledger cost.Ledger
	k := 0
	for i := range rs {
		if rs[i].Name == cost.NameMessaging || rs[i].Name == cost.NameRedis {
			continue
		}
		rs[i].Name = cost.WorkerName(lifetimes[k].Worker)
		k++
	}
	if err := ledger.Add(rs...); err != nil {
		return cost.Bill{}, err
	}
	k = 0
	for _, r := range rs {
		start, stop := time.Duration(0), end
		if r.Name != cost.NameMessaging && r.Name != cost.NameRedis {
			start, stop = lifetimes[k].Start, lifetimes[k].Stop
			k++
		}
		if err := ledger.Record(r.Name, start, stop); err != nil {
			return cost.Bill{}, err
		}
	}
	return ledger.Bill()
}

// PerfPerDollar returns MLLess's cost-efficiency metric (§6.2.2),
// Perf/$ = 1/Exec.time(s) × 1/Price($), of a run that reached its target
// at end, priced by Bill. The gain of the auto-tuner over a fixed pool is
//
//	cost.Gain(PerfPerDollar(tuned, tunedEnd, o), PerfPerDollar(Fixed(ids, fixedEnd), fixedEnd, o))
func PerfPerDollar(lifetimes []Lifetime, end time.Duration, o cost.Options) (float64, error) {
	b, err := Bill(lifetimes, end, o)
	if err != nil {
		return 0, err
	}
	return cost.PerfPerDollar(end, b.Total)
}
