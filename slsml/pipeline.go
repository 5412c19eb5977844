package slsml

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"time"

	"github.com/syncmodels/syncmodels/algorithms"
	"github.com/syncmodels/syncmodels/cost"
	"github.com/syncmodels/syncmodels/exchange"
)

// Result is what a run did and cost.
type Result struct {
	// Model is θ_T, the last model the merger published.
	Model []float64
	// Iterations has one entry per iteration t = 0 … T−1.
	Iterations []Iteration
	// Time is when θ_T was published (virtual time from the start).
	Time time.Duration
	// End is when the last function finished (late workers run on).
	End time.Duration
	// Bytes is the modelled traffic to and from the store, in bytes (at
	// Timing.ModelBytes' scale), requests retried included.
	Bytes int64
	// Counts counts what became of the gradients and the functions.
	Counts Counts
	// Bill is the run's cost.
	Bill Bill
	// Trace is what the run did, for Check.
	Trace *Trace
}

// Iteration is one iteration's timeline, in virtual time.
type Iteration struct {
	// Start is when θ_t was published, End when θ_{t+1} was (after a
	// loss, the replay is part of the iteration).
	Start, End time.Duration
	// Quorum is when the semaphore let the reducers proceed: the Need-th
	// worker of the iteration finished (in its last attempt).
	Quorum time.Duration
	// Last is when the last worker of the iteration finished, which a
	// barrier would have waited for; 0 if one never did (a loss).
	Last time.Duration
	// Applied counts the contributions applied (its own and folded),
	// Folded the late ones of earlier iterations among them, Dropped the
	// late or stale ones its reducers dropped.
	Applied, Folded, Dropped int
}

// Duration is End − Start.
func (it Iteration) Duration() time.Duration { return it.End - it.Start }

// Counts counts a run's gradients (as reducer 0 saw them: every reducer
// sees the same) and functions.
type Counts struct {
	// Written counts the gradients workers wrote (a replay writes again).
	Written int
	// Applied counts the gradients applied; Folded those applied in a
	// later iteration than their own.
	Applied, Folded int
	// Late, Stale, Lost and Ended count the gradients dropped for each
	// Reason.
	Late, Stale, Lost, Ended int
	// Duplicates counts gradients a reducer refused because it had
	// applied or dropped them already (0 unless something replays).
	Duplicates int
	// Losses counts the store's data losses, Rollbacks the reducer
	// applies undone by them, Retries the operations retried after the
	// store was unavailable.
	Losses, Rollbacks, Retries int
	// Invocations counts function invocations; ColdStarts those that
	// started a new container.
	Invocations, ColdStarts int
}

// Bill is a run's cost: functions per GB-second (per-100-ms billing of
// each invocation, at a memory-proportional price) and requests.
type Bill struct {
	Functions cost.Bill
	Requests  cost.RequestBill
	// Total is Functions.Total + Requests.Total, in dollars.
	Total float64
}

// Run trains alg with slsML's pipeline on store s: Config.Iterations
// iterations of W workers, R reducers and a merger, in virtual time (see
// the package documentation). The store must be empty (a fresh
// namespace). Run returns when θ_T is published and every function has
// finished, deleting the keys it wrote (untimed and free, as S3 DELETE
// requests are), or with the first error: a bad config or algorithm
// (ErrConfig), a malformed stored value (ErrMalformed), a store that
// stayed unavailable (ErrStore) or failed otherwise, ctx done.
func Run(ctx context.Context, s exchange.Store, alg algorithms.Algorithm, cfg Config) (*Result, error) {
	return run(ctx, s, alg, cfg, faults{})
}

// faults switches on one plausible bug at a time, for the checker's
// mutation tests.
type faults struct {
	// foldTwice: reducers start their window where the one before their
	// last started, and keep no ledger: the previous window's late
	// gradients are folded again.
	foldTwice bool
	// divergent (reducer index + 1): that reducer takes every note it
	// has read into its window, not stopping at the quorum's.
	divergent int
	// replayTwice: after a loss, reducers neither roll back their apply
	// that was not merged nor refuse what they applied: the replayed
	// iteration is applied again.
	replayTwice bool
}

// reducer is one reducer's state between invocations: its slice's
// optimizer state (a Server over all of θ, of which it owns a slice) and
// its ledger. A Lambda reducer would keep it in the store beside its
// slice; here the driver keeps it.
type reducer struct {
	r, lo, hi int
	srv       algorithms.Server
	ck        algorithms.Checkpointer
	done      map[Contribution]bool // applied or dropped
	pending   *pendingApply         // its apply not yet merged
}

type pendingApply struct {
	iter        int
	ckpt        algorithms.Checkpoint
	set, drops  []Contribution
	late, stale int
}

type sim struct {
	ctx    context.Context
	s      exchange.Store
	alg    algorithms.Algorithm
	cfg    Config
	faults faults
	layout algorithms.Layout
	need   int
	mbytes int64

	now    time.Duration
	events eventHeap
	seq    uint64
	gen    int
	err    error

	pools    [numFns]pool
	running  []*call
	attempts map[attemptKey]int
	ledger   cost.Ledger
	meter    cost.Meter

	cur      int       // θ_cur is the last model published
	theta    []float64 // θ_cur
	epoch    int
	launched map[int]bool // reducers launched for iteration t, this epoch
	merging  map[int]bool // merger launched for iteration t, this epoch
	finished bool         // θ_T published
	workers  []algorithms.Worker
	reducers []*reducer
	written  map[Contribution]bool
	order    []Contribution // contributions by first write
	keys     []string       // keys written, for cleanup
	putKeys  map[string]bool
	trace    Trace
	res      Result
}

func run(ctx context.Context, s exchange.Store, alg algorithms.Algorithm, cfg Config, f faults) (*Result, error) {
	if s == nil {
		return nil, fmt.Errorf("slsml: Run: nil store: %w", ErrConfig)
	}
	if alg == nil {
		return nil, fmt.Errorf("slsml: Run: nil algorithm: %w", ErrConfig)
	}
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	l := alg.Layout()
	switch {
	case l.Params != l.Delta || l.Block != 0:
		return nil, fmt.Errorf("slsml: %s: layout %+v: the pipeline needs dense gradients as long as θ (Params = Delta, Block = 0): each reducer applies its slice of θ from its slice of the gradients: %w", alg.Name(), l, ErrConfig)
	case cfg.Reducers > l.Params:
		return nil, fmt.Errorf("slsml: Config.Reducers = %d, more than θ's %d parameters: %w", cfg.Reducers, l.Params, ErrConfig)
	case alg.NumPoints() < cfg.Workers:
		return nil, fmt.Errorf("slsml: Config.Workers = %d, more than %s's %d data points: %w", cfg.Workers, alg.Name(), alg.NumPoints(), ErrConfig)
	}
	sm := &sim{ctx: ctx, s: s, alg: alg, cfg: cfg, faults: f, layout: l, need: need(cfg.Quorum, cfg.Workers),
		attempts: map[attemptKey]int{}, launched: map[int]bool{}, merging: map[int]bool{}, written: map[Contribution]bool{}, putKeys: map[string]bool{}}
	sm.mbytes = cfg.Timing.ModelBytes
	if sm.mbytes == 0 {
		sm.mbytes = 8 * int64(l.Params)
	}
	if sm.meter, err = newMeter(cfg.Prices); err != nil {
		return nil, fmt.Errorf("slsml: Config.Prices: %v: %w", err, ErrConfig)
	}
	rng := rand.New(rand.NewPCG(cfg.Seed, 0x736c736d6c)) // "slsml"
	theta0, err := alg.Init(rng)
	if err != nil {
		return nil, fmt.Errorf("slsml: %s: Init: %w", alg.Name(), err)
	}
	n := alg.NumPoints()
	for w := range cfg.Workers {
		pts := make([]int, 0, n/cfg.Workers+1)
		for i := w * n / cfg.Workers; i < (w+1)*n/cfg.Workers; i++ {
			pts = append(pts, i)
		}
		wk, err := alg.NewWorker(pts)
		if err != nil {
			return nil, fmt.Errorf("slsml: %s: worker %d: %w", alg.Name(), w, err)
		}
		if algorithms.HasState(wk) {
			return nil, fmt.Errorf("slsml: %s: its workers keep per-point state (EM): the pipeline drops and recomputes gradients, which needs stateless (gradient) workers: %w", alg.Name(), ErrConfig)
		}
		sm.workers = append(sm.workers, wk)
	}
	for r := range cfg.Reducers {
		srv, err := alg.NewServer(theta0)
		if err != nil {
			return nil, fmt.Errorf("slsml: %s: reducer %d: %w", alg.Name(), r, err)
		}
		ck, ok := srv.(algorithms.Checkpointer)
		if !ok {
			return nil, fmt.Errorf("slsml: %s: its server cannot checkpoint (algorithms.Checkpointer): a reducer rolls back after a loss: %w", alg.Name(), ErrConfig)
		}
		lo, hi := bounds(l.Params, cfg.Reducers, r)
		sm.reducers = append(sm.reducers, &reducer{r: r, lo: lo, hi: hi, srv: srv, ck: ck, done: map[Contribution]bool{}})
	}
	sm.trace = Trace{Workers: cfg.Workers, Reducers: cfg.Reducers, Params: l.Params, Iterations: cfg.Iterations,
		Need: sm.need, Late: cfg.Late, MaxLag: cfg.MaxLag}
	sm.res.Iterations = make([]Iteration, cfg.Iterations)

	sm.theta = theta0 // what the merger republishes after a loss before θ1
	sm.publish(theta0)
	sm.loop()
	sm.cleanup()
	if sm.err != nil {
		return nil, sm.err
	}
	if !sm.finished {
		return nil, fmt.Errorf("slsml: the pipeline stalled at iteration %d of %d at %v of virtual time", sm.cur, cfg.Iterations, sm.now)
	}
	return sm.finish()
}

// record appends a record to the trace.
func (s *sim) record(r Record) {
	r.At = s.now
	s.trace.Records = append(s.trace.Records, r)
}

// sliceBytes is the modelled size of reducer r's slice.
func (s *sim) sliceBytes(r int) int64 {
	lo, hi := bounds(s.layout.Params, s.cfg.Reducers, r)
	return s.mbytes * int64(hi-lo) / int64(s.layout.Params)
}

// publish runs the merger's first invocation: θ0 to the store, then the
// first iteration.
func (s *sim) publish(theta0 []float64) {
	s.invoke(fnMerger, 0, -1, func(c *call) {
		s.do(c, []op{{kind: opPut, name: modelKey(0), value: encodeModel(model{iter: 0, theta: theta0}), bytes: s.mbytes}}, func([]result) {
			s.cur, s.theta = 0, theta0
			s.res.Iterations[0].Start = s.now
			s.end(c)
			s.launchWorkers(0)
		})
	})
}

// launchWorkers runs the WorkLauncher of iteration t: it publishes one
// Work notification per worker, each of which invokes a worker (slsML
// Fig. 2, steps 1–2).
func (s *sim) launchWorkers(t int) {
	s.invoke(fnWorkLauncher, 0, t, func(c *call) {
		ops := make([]op, s.cfg.Workers)
		for w := range ops {
			ops[w] = op{kind: opAppend, name: workTopic, value: encodeNote(Contribution{Iter: t, Worker: w})}
		}
		s.do(c, ops, func([]result) {
			s.end(c)
			for w := range s.cfg.Workers {
				s.invoke(fnWorker, w, t, s.work)
			}
		})
	})
}

// work is worker c.index's invocation for iteration c.iter: read θ_t,
// compute the gradient of its batch, write it partitioned per reducer,
// notify WorkDone (step 3).
func (s *sim) work(c *call) {
	t, w := c.iter, c.index
	s.do(c, []op{{kind: opGet, name: modelKey(t), bytes: s.mbytes}}, func(res []result) {
		if res[0].err != nil {
			s.fail(fmt.Errorf("slsml: worker %d: model %d: %w", w, t, res[0].err))
			return
		}
		m, err := decodeModel(modelKey(t), res[0].value, t, s.layout.Params)
		if err != nil {
			s.fail(err)
			return
		}
		d := s.gradient(w, t, m.theta)
		s.after(c, time.Duration(s.cfg.Batch)*s.cfg.Timing.PerPoint, func() {
			cn := Contribution{Iter: t, Worker: w}
			ops := make([]op, s.cfg.Reducers)
			for r := range ops {
				lo, hi := bounds(s.layout.Params, s.cfg.Reducers, r)
				p := partition{c: cn, r: r, count: d.Count, vec: d.Vec[lo:hi]}
				ops[r] = op{kind: opPut, name: gradKey(cn, r), value: encodePartition(p), bytes: s.sliceBytes(r)}
			}
			s.do(c, ops, func([]result) {
				s.do(c, []op{{kind: opAppend, name: doneTopic, value: encodeNote(cn)}}, func(res []result) {
					s.wrote(cn, res[0].seq, d)
					s.end(c)
					s.invoke(fnReduceLauncher, w, t, func(lc *call) { s.launchReducers(lc, cn) })
				})
			})
		})
	})
}

// gradient computes worker w's gradient of iteration t on θ: its shard's
// points from t·Batch on, cycling.
func (s *sim) gradient(w, t int, theta []float64) *algorithms.Delta {
	wk := s.workers[w]
	wk.SetParams(theta)
	d := algorithms.NewDelta(s.layout)
	n := wk.Len()
	off := t * s.cfg.Batch % n
	for left := s.cfg.Batch; left > 0; {
		hi := min(n, off+left)
		wk.Process(off, hi, d)
		left -= hi - off
		off = 0
	}
	return d
}

// wrote records that contribution cn is written: its done note is seq.
func (s *sim) wrote(cn Contribution, seq uint64, d *algorithms.Delta) {
	s.record(Record{Kind: RecWrite, C: cn, Epoch: s.epoch, Seq: seq, Count: d.Count, Vec: slices.Clone(d.Vec)})
	s.res.Counts.Written++
	if !s.written[cn] {
		s.written[cn] = true
		s.order = append(s.order, cn)
	}
	it := &s.res.Iterations[cn.Iter]
	it.Last = max(it.Last, s.now)
}

// launchReducers is the ReduceLauncher, invoked by each WorkDone
// notification: it counts the worker in the iteration's counting set
// (slsML's DynamoDB counter, step 4) and, once Need workers of the
// current iteration are in, invokes the reducers — the counting
// semaphore. A conditional write (one more request) makes sure the
// reducers are launched once.
func (s *sim) launchReducers(c *call, cn Contribution) {
	s.do(c, []op{{kind: opArrive, name: doneSet(cn.Iter), member: strconv.Itoa(cn.Worker)}}, func(res []result) {
		t := cn.Iter
		if t != s.cur || res[0].n < s.need || s.launched[t] || s.finished {
			s.end(c)
			return
		}
		s.launched[t] = true
		s.count(svcWrite, 1)
		s.res.Iterations[t].Quorum = s.now
		ops := make([]op, s.cfg.Reducers)
		for r := range ops {
			ops[r] = op{kind: opAppend, name: reduceTopic, value: encodeNote(Contribution{Iter: t, Worker: r})}
		}
		s.do(c, ops, func([]result) {
			s.end(c)
			for r := range s.cfg.Reducers {
				s.invoke(fnReducer, r, t, s.reduce)
			}
		})
	})
}

// readMax is how many notes a reducer reads at once.
const readMax = 1024

// noteOf is a note of the done topic.
type noteOf struct {
	seq uint64
	c   Contribution
}

// reduce is reducer c.index's invocation for iteration c.iter (step 5):
// wait on the semaphore, read its previous slice (where its last window
// ended), read the done topic's window up to the Need-th gradient of the
// iteration, decide what to apply and drop, read its partitions, sum,
// apply its slice of the update, write its slice and report ReduceDone.
func (s *sim) reduce(c *call) {
	t, rd := c.iter, s.reducers[c.index]
	s.do(c, []op{{kind: opWait, name: doneSet(t), n: s.need}}, func([]result) {
		var prev []op
		if t > 0 {
			prev = []op{{kind: opGet, name: sliceKey(t-1, rd.r), bytes: s.sliceBytes(rd.r)}}
		}
		s.do(c, prev, func(res []result) {
			var from uint64
			if t > 0 && res[0].err == nil { // not found: a new epoch, whose topic starts at 1
				sl, err := decodeSlice(sliceKey(t-1, rd.r), res[0].value, t-1, rd.r, rd.hi-rd.lo)
				if err != nil {
					s.fail(err)
					return
				}
				if !equalBits(sl.theta, rd.srv.Params()[rd.lo:rd.hi]) {
					s.fail(fmt.Errorf("slsml: reducer %d: its slice of θ_%d in the store differs from its state: %w", rd.r, t, ErrMalformed))
					return
				}
				from = sl.cut
				if s.faults.foldTwice {
					from = sl.from
				}
			}
			s.window(c, t, from, func(win []noteOf, cut uint64) { s.apply(c, rd, t, from, cut, win) })
		})
	})
}

// window reads the done topic after note from until it holds Need
// gradients of iteration t, and calls then with the window's notes and
// its last note's number.
func (s *sim) window(c *call, t int, from uint64, then func([]noteOf, uint64)) {
	var win []noteOf
	own := map[int]bool{}
	cursor := from
	var next func()
	next = func() {
		s.do(c, []op{{kind: opRead, name: doneTopic, after: cursor, max: readMax}}, func(res []result) {
			for i, n := range res[0].notes {
				cn, err := decodeNote(n.Seq, n.Data, s.cfg.Workers)
				if err != nil {
					s.fail(err)
					return
				}
				cursor = n.Seq
				win = append(win, noteOf{n.Seq, cn})
				if cn.Iter == t {
					own[cn.Worker] = true
				}
				if len(own) == s.need {
					if s.faults.divergent == c.index+1 {
						for _, m := range res[0].notes[i+1:] {
							cm, _ := decodeNote(m.Seq, m.Data, s.cfg.Workers)
							win = append(win, noteOf{m.Seq, cm})
							cursor = m.Seq
						}
					}
					then(win, cursor)
					return
				}
			}
			next()
		})
	}
	next()
}

// apply decides reducer rd's set and drops for iteration t from its
// window, reads the set's partitions, sums them and applies its slice.
func (s *sim) apply(c *call, rd *reducer, t int, from, cut uint64, win []noteOf) {
	var set, drops []Contribution
	var reasons []Reason
	seen := map[Contribution]bool{}
	for _, n := range win {
		x := n.c
		if seen[x] { // a note appended twice (a retried Append)
			continue
		}
		seen[x] = true
		if rd.done[x] && !s.faults.foldTwice && !s.faults.replayTwice {
			s.res.Counts.Duplicates++
			continue
		}
		switch {
		case x.Iter == t:
			set = append(set, x)
		case x.Iter > t:
			s.fail(fmt.Errorf("slsml: reducer %d: note %d of %q is %v, of an iteration after %d: %w", rd.r, n.seq, doneTopic, x, t, ErrMalformed))
			return
		case s.cfg.Late == Drop:
			drops, reasons = append(drops, x), append(reasons, Late)
		case s.cfg.MaxLag > 0 && t-x.Iter > s.cfg.MaxLag:
			drops, reasons = append(drops, x), append(reasons, Stale)
		default:
			set = append(set, x)
		}
	}
	slices.SortFunc(set, Contribution.compare)
	ops := make([]op, len(set))
	for i, x := range set {
		ops[i] = op{kind: opGet, name: gradKey(x, rd.r), bytes: s.sliceBytes(rd.r)}
	}
	s.do(c, ops, func(res []result) {
		n := rd.hi - rd.lo
		sum, count := make([]float64, n), 0
		for i, x := range set {
			if res[i].err != nil {
				s.fail(fmt.Errorf("slsml: reducer %d: partition %q of %v: %w", rd.r, gradKey(x, rd.r), x, res[i].err))
				return
			}
			p, err := decodePartition(gradKey(x, rd.r), res[i].value, x, rd.r, n)
			if err != nil {
				s.fail(err)
				return
			}
			for j, v := range p.vec {
				sum[j] += v
			}
			count += p.count
		}
		s.after(c, time.Duration(len(set)*n)*s.cfg.Timing.PerFloat, func() {
			ckpt := rd.ck.Checkpoint()
			d := algorithms.NewDelta(s.layout)
			copy(d.Vec[rd.lo:rd.hi], sum)
			d.Count = count
			if err := rd.srv.Apply(d); err != nil {
				s.fail(fmt.Errorf("slsml: reducer %d: apply iteration %d: %w", rd.r, t, err))
				return
			}
			pa := &pendingApply{iter: t, ckpt: ckpt, set: set, drops: drops}
			for i, x := range drops {
				rd.done[x] = true
				s.record(Record{Kind: RecDrop, Iter: t, C: x, Reducer: rd.r, Reason: reasons[i]})
				if reasons[i] == Late {
					pa.late++
				} else {
					pa.stale++
				}
			}
			for _, x := range set {
				rd.done[x] = true
			}
			rd.pending = pa
			params := slices.Clone(rd.srv.Params()[rd.lo:rd.hi])
			s.record(Record{Kind: RecApply, Iter: t, Reducer: rd.r, Epoch: s.epoch, From: from, Cut: cut,
				Set: slices.Clone(set), Count: count, Vec: sum, Params: params})
			sl := slice{iter: t, r: rd.r, from: from, cut: cut, count: count, digest: digest(set), theta: params}
			s.do(c, []op{{kind: opPut, name: sliceKey(t, rd.r), value: encodeSlice(sl), bytes: s.sliceBytes(rd.r)}}, func([]result) {
				s.do(c, []op{{kind: opArrive, name: reducedSet(t), member: strconv.Itoa(rd.r)}}, func(res []result) {
					s.end(c)
					if res[0].n >= s.cfg.Reducers && !s.merging[t] {
						s.merging[t] = true
						s.invoke(fnMerger, 0, t, s.merge)
					}
				})
			})
		})
	})
}

// merge is the merger's invocation for iteration c.iter (step 6): wait
// for every reducer, read their slices, put θ_{t+1} together and publish
// it; publishing commits the reducers' applies. Then the next iteration.
func (s *sim) merge(c *call) {
	t := c.iter
	s.do(c, []op{{kind: opWait, name: reducedSet(t), n: s.cfg.Reducers}}, func([]result) {
		ops := make([]op, s.cfg.Reducers)
		for r := range ops {
			ops[r] = op{kind: opGet, name: sliceKey(t, r), bytes: s.sliceBytes(r)}
		}
		s.do(c, ops, func(res []result) {
			theta := make([]float64, s.layout.Params)
			for r := range ops {
				if res[r].err != nil {
					s.fail(fmt.Errorf("slsml: merger: slice %q: %w", sliceKey(t, r), res[r].err))
					return
				}
				lo, hi := bounds(s.layout.Params, s.cfg.Reducers, r)
				sl, err := decodeSlice(sliceKey(t, r), res[r].value, t, r, hi-lo)
				if err != nil {
					s.fail(err)
					return
				}
				copy(theta[lo:hi], sl.theta)
			}
			s.do(c, []op{{kind: opPut, name: modelKey(t + 1), value: encodeModel(model{iter: t + 1, theta: theta}), bytes: s.mbytes}}, func([]result) {
				s.commit(t, theta)
				s.end(c)
				if t+1 < s.cfg.Iterations {
					s.launchWorkers(t + 1)
				}
			})
		})
	})
}

// commit makes θ_{t+1} the current model: the reducers' applies of t
// can no longer be rolled back.
func (s *sim) commit(t int, theta []float64) {
	s.record(Record{Kind: RecMerge, Iter: t, Params: slices.Clone(theta)})
	s.cur, s.theta = t+1, theta
	it := &s.res.Iterations[t]
	it.End = s.now
	if t+1 < s.cfg.Iterations {
		s.res.Iterations[t+1].Start = s.now
	} else {
		s.finished = true
		s.res.Time = s.now
	}
	for _, rd := range s.reducers {
		pa := rd.pending
		if pa == nil || pa.iter != t {
			continue
		}
		rd.pending = nil
		if rd.r != 0 {
			continue
		}
		for _, x := range pa.set {
			if x.Iter < t {
				it.Folded++
			}
		}
		it.Applied = len(pa.set)
		it.Dropped = pa.late + pa.stale
		s.res.Counts.Applied += len(pa.set)
		s.res.Counts.Folded += it.Folded
		s.res.Counts.Late += pa.late
		s.res.Counts.Stale += pa.stale
	}
}

// lose handles a loss of the store's data (an *exchange.EpochError) found
// during iteration s.cur: every invocation in flight dies; the
// reducers roll back their applies of s.cur (not merged, so not
// published) and drop, as lost, the earlier gradients they had not
// applied (their partitions are gone); the merger adopts the store's new
// epoch, publishes θ_cur again and iteration s.cur is replayed: its
// gradients are recomputed, the same contributions, and applied once.
func (s *sim) lose() {
	s.gen++
	s.epoch++
	s.res.Counts.Losses++
	for _, c := range slices.Clone(s.running) {
		s.end(c)
	}
	s.record(Record{Kind: RecLoss, Iter: s.cur})
	for _, rd := range s.reducers {
		pa := rd.pending
		if pa == nil || s.faults.replayTwice {
			continue
		}
		if err := rd.ck.Restore(pa.ckpt); err != nil {
			s.fail(fmt.Errorf("slsml: reducer %d: roll back iteration %d: %w", rd.r, pa.iter, err))
			return
		}
		for _, x := range append(slices.Clone(pa.set), pa.drops...) {
			delete(rd.done, x)
		}
		rd.pending = nil
		s.res.Counts.Rollbacks++
		s.record(Record{Kind: RecRollback, Iter: pa.iter, Reducer: rd.r})
	}
	for _, rd := range s.reducers {
		for _, x := range s.order {
			if x.Iter < s.cur && !rd.done[x] {
				rd.done[x] = true
				s.record(Record{Kind: RecDrop, Iter: s.cur, C: x, Reducer: rd.r, Reason: Lost})
				if rd.r == 0 {
					s.res.Counts.Lost++
				}
			}
		}
	}
	clear(s.launched)
	clear(s.merging)
	if s.finished {
		// θ_T is published (and held by the merger): nothing to replay,
		// the late workers' gradients were lost (above) or die with
		// their invocations.
		return
	}
	t := s.cur
	s.invoke(fnMerger, 0, t, func(c *call) {
		s.do(c, []op{{kind: opRecover}}, func([]result) {
			s.do(c, []op{{kind: opPut, name: modelKey(t), value: encodeModel(model{iter: t, theta: s.theta}), bytes: s.mbytes}}, func([]result) {
				s.end(c)
				s.launchWorkers(t)
			})
		})
	})
}

// finish drops what is still pending at the end and builds the result.
func (s *sim) finish() (*Result, error) {
	for _, rd := range s.reducers {
		for _, x := range s.order {
			if !rd.done[x] {
				rd.done[x] = true
				s.record(Record{Kind: RecDrop, Iter: s.cfg.Iterations, C: x, Reducer: rd.r, Reason: Ended})
				if rd.r == 0 {
					s.res.Counts.Ended++
				}
			}
		}
	}
	s.res.End = s.now
	s.res.Model = slices.Clone(s.theta)
	fb, err := s.ledger.Bill()
	if err != nil {
		return nil, fmt.Errorf("slsml: bill: %w", err)
	}
	s.res.Bill = Bill{Functions: fb, Requests: s.meter.Bill()}
	s.res.Bill.Total = fb.Total + s.res.Bill.Requests.Total
	tr := s.trace
	s.res.Trace = &tr
	return &s.res, nil
}
