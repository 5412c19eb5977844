package migrate

import (
	"errors"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

func mustPlacement(t testing.TB, window int, sizes ...int) *Placement {
	t.Helper()
	p, err := NewPlacement(sizes, PlacementConfig{WindowSize: window})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func checked(t testing.TB, p *Placement, what string) {
	t.Helper()
	if err := p.Check(); err != nil {
		t.Fatalf("after %s: %v", what, err)
	}
}

func next(t testing.TB, p *Placement, w, k int) []Point {
	t.Helper()
	pts, err := p.Next(nil, w, k)
	must(t, err)
	return pts
}

func pts(home int, idx ...int) []Point {
	var out []Point
	for _, i := range idx {
		out = append(out, Point{home, i})
	}
	return out
}

// train trains k points at w and returns them.
func train(t testing.TB, p *Placement, w, k int) []Point {
	t.Helper()
	got := next(t, p, w, k)
	must(t, p.Advance(w, len(got)))
	checked(t, p, fmt.Sprintf("Advance(%d, %d)", w, len(got)))
	return got
}

func migrate(t testing.TB, p *Placement, from, to, n int) Window {
	t.Helper()
	must(t, p.SetPlan([]Transfer{{From: from, To: to, Points: n}}))
	win, ok, err := p.OpenWindow(from)
	must(t, err)
	if !ok {
		t.Fatalf("OpenWindow(%d) opened nothing", from)
	}
	checked(t, p, "OpenWindow")
	return win
}

func TestRoundRobin(t *testing.T) {
	p := mustPlacement(t, 4, 5)
	if got := train(t, p, 0, 3); !reflect.DeepEqual(got, pts(0, 0, 1, 2)) {
		t.Fatalf("first 3 = %v", got)
	}
	// Next wraps as often as k needs; it does not change anything.
	if got := next(t, p, 0, 8); !reflect.DeepEqual(got, pts(0, 3, 4, 0, 1, 2, 3, 4, 0)) {
		t.Fatalf("Next(8) = %v", got)
	}
	if got := train(t, p, 0, 8); !reflect.DeepEqual(got, pts(0, 3, 4, 0, 1, 2, 3, 4, 0)) {
		t.Fatalf("Advance(8) trained %v", got)
	}
	// 11 points over 5: counts 3,2,2,2,2, passes 11/5.
	l, _ := p.Load(0)
	if l.Passes != 11.0/5 || l.Ring != 5 || l.Owned != 5 {
		t.Errorf("Load = %+v; want passes 2.2", l)
	}
	c, owner, _ := p.Count(Point{0, 0})
	if c != 3 || owner != 0 {
		t.Errorf("Count(0/0) = %d at %d; want 3 at 0", c, owner)
	}
}

func TestSlidingWindow(t *testing.T) {
	p := mustPlacement(t, 4, 10, 10)
	train(t, p, 0, 3) // focus is 0/3
	// Bottom-up from the end of the untraversed part: 9, 8, 7, 6.
	win := migrate(t, p, 0, 1, 9)
	if !reflect.DeepEqual(win.Points, pts(0, 9, 8, 7, 6)) || win.Virtual != 0 || win.From != 0 || win.To != 1 {
		t.Fatalf("window = %+v", win)
	}
	// Training never waits: the locked points are skipped.
	if got := next(t, p, 0, 6); !reflect.DeepEqual(got, pts(0, 3, 4, 5, 0, 1, 2)) {
		t.Fatalf("Next while 6–9 are locked = %v", got)
	}
	// One window at a time per source.
	if _, ok, _ := p.OpenWindow(0); ok {
		t.Fatal("second window opened while one is in flight")
	}
	must(t, p.Deliver(win.ID))
	checked(t, p, "Deliver")
	train(t, p, 0, 1) // focus moves to 0/4
	// Next window: 5 (untraversed), then the trained ones latest first:
	// 3, 2, 1 — never the focus 4.
	win, ok, err := p.OpenWindow(0)
	must(t, err)
	if !ok || !reflect.DeepEqual(win.Points, pts(0, 5, 3, 2, 1)) {
		t.Fatalf("second window = %+v", win)
	}
	must(t, p.Deliver(win.ID))
	// The quota has 1 point left, but only the focus 0/4 and 0/0 remain:
	// 0/0 goes, the focus stays.
	win, ok, _ = p.OpenWindow(0)
	if !ok || !reflect.DeepEqual(win.Points, pts(0, 0)) {
		t.Fatalf("third window = %+v", win)
	}
	must(t, p.Deliver(win.ID))
	checked(t, p, "Deliver")
	must(t, p.SetPlan([]Transfer{{From: 0, To: 1, Points: 5}}))
	if _, ok, _ := p.OpenWindow(0); ok {
		t.Fatal("the focus, the last point, was locked")
	}
	l, _ := p.Load(0)
	if l.Owned != 1 || l.Ring != 1 {
		t.Errorf("source load = %+v; want its focus only", l)
	}
}

func TestPriorityQueue(t *testing.T) {
	p := mustPlacement(t, 8, 4, 4)
	train(t, p, 1, 12) // worker 1: every point 3 times, pass 3
	train(t, p, 0, 6)  // worker 0: 0/0, 0/1 twice, 0/2, 0/3 once
	// Worker 0's counts are 2, 2, 1, 1 and its focus is 0/2. The window
	// takes 0/3 (not yet reached in this pass), skips the focus, then the
	// points this pass trained, latest first: 0/1, 0/0.
	win := migrate(t, p, 0, 1, 3)
	if !reflect.DeepEqual(win.Points, pts(0, 3, 1, 0)) {
		t.Fatalf("window = %v", win.Points)
	}
	must(t, p.Deliver(win.ID))
	checked(t, p, "Deliver")
	l, _ := p.Load(1)
	if l.Queued != 3 || l.Owned != 7 || l.Copies != 7 {
		t.Fatalf("target load = %+v; want 3 queued of 7", l)
	}
	// Received points first, fewest traversals first (0/3 has 1, then
	// 0/1 and 0/0 with 2 in arrival order), each once per iteration; then
	// the round robin.
	if got := train(t, p, 1, 5); !reflect.DeepEqual(got, []Point{{0, 3}, {0, 1}, {0, 0}, {1, 0}, {1, 1}}) {
		t.Fatalf("target trained %v", got)
	}
	// Counts 2, 3, 3 now; the round robin has given slots 4–6 (appended
	// after 1/3) 3 passes, so 0/1 and 0/0 are compensated and join it;
	// 0/3 stays queued, not eligible again until the next iteration.
	if l, _ := p.Load(1); l.Queued != 1 || l.Ring != 6 {
		t.Fatalf("after one round: %+v; want 1 queued", l)
	}
	if got := next(t, p, 1, 4); !reflect.DeepEqual(got, []Point{{1, 2}, {1, 3}, {0, 1}, {0, 0}}) {
		t.Fatalf("Next = %v; want the round robin with the settled guests", got)
	}
	must(t, p.BeginIteration(1))
	if got := next(t, p, 1, 1); !reflect.DeepEqual(got, []Point{{0, 3}}) {
		t.Fatalf("after BeginIteration Next = %v; want the queued 0/3", got)
	}
	train(t, p, 1, 1)
	if l, _ := p.Load(1); l.Queued != 0 {
		t.Fatalf("0/3 still queued: %+v", l)
	}
}

func TestVirtualMigration(t *testing.T) {
	p := mustPlacement(t, 16, 20, 20)
	train(t, p, 0, 7)
	win := migrate(t, p, 0, 1, 10)
	if win.Virtual != 0 {
		t.Fatalf("first migration virtual = %d; want 0", win.Virtual)
	}
	must(t, p.Deliver(win.ID))
	// The guests arrive untrained at an untrained worker: no lost pass,
	// so they join its round robin (slots 20–29). 45 points later its
	// focus is 1/15.
	train(t, p, 1, 45)
	data, virtual := p.Moved()
	if data != 10 || virtual != 0 {
		t.Fatalf("Moved = %d, %d; want 10, 0", data, virtual)
	}
	// Reverse: the 10 guests go home by flips; no data moves.
	win = migrate(t, p, 1, 0, 10)
	if win.Virtual != 10 || len(win.Points) != 10 {
		t.Fatalf("reverse window = %+v; want 10 virtual", win)
	}
	for _, pt := range win.Points {
		if pt.Home != 0 {
			t.Fatalf("reverse window sends %v, not a guest from 0", pt)
		}
	}
	must(t, p.Deliver(win.ID))
	checked(t, p, "reverse Deliver")
	data, virtual = p.Moved()
	if data != 10 || virtual != 10 {
		t.Fatalf("Moved = %d, %d; want 10, 10", data, virtual)
	}
	// And forward again: worker 1 still holds inactive copies.
	win = migrate(t, p, 0, 1, 10)
	if win.Virtual != 10 {
		t.Fatalf("second forward window = %+v; want all virtual", win)
	}
	must(t, p.Deliver(win.ID))
	if l, _ := p.Load(1); l.Copies != 30 {
		t.Errorf("worker 1 holds %d copies; want 30 (no new ones)", l.Copies)
	}
	// Counts travelled with the points: nothing lost, nothing doubled.
	var sum int
	for h := range 2 {
		for i := range 20 {
			c, _, err := p.Count(Point{h, i})
			must(t, err)
			sum += c
		}
	}
	if sum != 52 {
		t.Errorf("total traversals = %d; want 7 + 45 = 52", sum)
	}
}

func TestRematchReturnsHome(t *testing.T) {
	// 0 sent 4 points to 2, 1 sent 4 to 3. A plan that sends them back
	// naming the wrong targets (2→1, 3→0) is re-matched to 2→0, 3→1.
	p := mustPlacement(t, 8, 10, 10, 10, 10)
	must(t, p.SetPlan([]Transfer{{From: 0, To: 2, Points: 4}, {From: 1, To: 3, Points: 4}}))
	for _, w := range []int{0, 1} {
		win, ok, _ := p.OpenWindow(w)
		if !ok {
			t.Fatal("nothing opened")
		}
		must(t, p.Deliver(win.ID))
	}
	must(t, p.SetPlan([]Transfer{{From: 2, To: 1, Points: 4}, {From: 3, To: 0, Points: 4}}))
	for _, w := range []int{2, 3} {
		win, ok, _ := p.OpenWindow(w)
		if !ok || win.Virtual != 4 || win.To != w-2 {
			t.Fatalf("window from %d = %+v; want 4 virtual back to %d", w, win, w-2)
		}
		must(t, p.Deliver(win.ID))
	}
	checked(t, p, "return")
	// Different Pair values are never mixed.
	must(t, p.SetPlan([]Transfer{{From: 2, To: 1, Points: 1, Pair: 0}, {From: 3, To: 0, Points: 1, Pair: 1}}))
	if n, _ := p.Pending(2); n != 1 {
		t.Fatal("pending")
	}
	win, _, _ := p.OpenWindow(2)
	if win.To != 1 {
		t.Errorf("pair 0 re-matched across pairs: %+v", win)
	}
}

func TestAbort(t *testing.T) {
	p := mustPlacement(t, 4, 8, 8)
	train(t, p, 0, 2)
	win := migrate(t, p, 0, 1, 4) // 7, 6, 5, 4
	train(t, p, 0, 4)             // 2, 3, 0, 1: a new pass began
	must(t, p.Abort(win.ID))
	checked(t, p, "Abort")
	// The round robin passed their slots while they were locked (their
	// count is 0, the pass is 1): they lost a pass and are queued.
	if l, _ := p.Load(0); l.Queued != 4 || l.Owned != 8 {
		t.Fatalf("after Abort: %+v; want 4 queued of 8", l)
	}
	if got := next(t, p, 0, 4); !reflect.DeepEqual(got, pts(0, 7, 6, 5, 4)) {
		t.Fatalf("Next after Abort = %v", got)
	}
	if err := p.Deliver(win.ID); !errors.Is(err, ErrWindow) {
		t.Errorf("Deliver(aborted) = %v; want ErrWindow", err)
	}
}

// snapshot is the placement's state for "state unchanged" checks.
func snapshot(t testing.TB, p *Placement) string {
	t.Helper()
	var b strings.Builder
	for w := range p.Workers() {
		l, _ := p.Load(w)
		n, _ := p.Pending(w)
		fmt.Fprintf(&b, "%d %+v %d %v|", w, l, n, next(t, p, w, 40))
	}
	d, v := p.Moved()
	fmt.Fprintf(&b, "%d %d", d, v)
	return b.String()
}

func TestPlacementBadInput(t *testing.T) {
	for _, c := range []struct {
		sizes []int
		cfg   PlacementConfig
		input string
		err   error
	}{
		{[]int{3, -1}, PlacementConfig{}, "sizes[1]", ErrInput},
		{nil, PlacementConfig{}, "sizes", ErrInput},
		{[]int{3}, PlacementConfig{WindowSize: -4}, "PlacementConfig.WindowSize", ErrConfig},
	} {
		_, err := NewPlacement(c.sizes, c.cfg)
		var ie *InputError
		if !errors.As(err, &ie) || ie.Input != c.input || !errors.Is(err, c.err) {
			t.Errorf("NewPlacement(%v, %+v) = %v; want an error naming %s", c.sizes, c.cfg, err, c.input)
		}
	}

	p := mustPlacement(t, 4, 10, 10, 10)
	train(t, p, 0, 3)
	win := migrate(t, p, 0, 1, 6)
	before := snapshot(t, p)
	for _, c := range []struct {
		name  string
		call  func() error
		input string
		err   error
	}{
		{"Next unknown worker", func() error { _, err := p.Next(nil, 3, 1); return err }, "w", ErrUnknownWorker},
		{"Next negative k", func() error { _, err := p.Next(nil, 0, -1); return err }, "k", ErrInput},
		{"Advance unknown worker", func() error { return p.Advance(-1, 1) }, "w", ErrUnknownWorker},
		{"Advance negative", func() error { return p.Advance(0, -2) }, "n", ErrInput},
		{"BeginIteration unknown worker", func() error { return p.BeginIteration(7) }, "w", ErrUnknownWorker},
		{"OpenWindow unknown worker", func() error { _, _, err := p.OpenWindow(3); return err }, "src", ErrUnknownWorker},
		{"Deliver unknown window", func() error { return p.Deliver(win.ID + 100) }, "id", ErrWindow},
		{"Abort unknown window", func() error { return p.Abort(0) }, "id", ErrWindow},
		{"SetPlan unknown target", func() error {
			return p.SetPlan([]Transfer{{From: 0, To: 1, Points: 1}, {From: 0, To: 5, Points: 1}})
		}, "transfers[1].To", ErrUnknownWorker},
		{"SetPlan unknown source", func() error { return p.SetPlan([]Transfer{{From: -1, To: 1, Points: 1}}) }, "transfers[0].From", ErrUnknownWorker},
		{"SetPlan to itself", func() error { return p.SetPlan([]Transfer{{From: 2, To: 2, Points: 1}}) }, "transfers[0].To", ErrInput},
		{"SetPlan negative", func() error { return p.SetPlan([]Transfer{{From: 2, To: 1, Points: -1}}) }, "transfers[0].Points", ErrInput},
		{"Stats mismatched lengths", func() error { _, err := p.Stats([]float64{1, 2}); return err }, "len(speeds)", ErrLength},
		{"Stats NaN speed", func() error { _, err := p.Stats([]float64{1, 2, nan()}); return err }, "speeds[2]", ErrInput},
		{"Load unknown worker", func() error { _, err := p.Load(9); return err }, "w", ErrUnknownWorker},
		{"Pending unknown worker", func() error { _, err := p.Pending(9); return err }, "w", ErrUnknownWorker},
		{"Count unknown point", func() error { _, _, err := p.Count(Point{1, 10}); return err }, "pt", ErrInput},
	} {
		err := c.call()
		var ie *InputError
		if !errors.As(err, &ie) || ie.Input != c.input || !errors.Is(err, c.err) {
			t.Errorf("%s: %v; want an error naming %s", c.name, err, c.input)
		}
		if after := snapshot(t, p); after != before {
			t.Errorf("%s changed the placement:\n%s\nwas\n%s", c.name, after, before)
		}
		checked(t, p, c.name)
	}
	// Advancing past what an empty round robin offers is refused.
	q := mustPlacement(t, 4, 0, 3)
	if err := q.Advance(0, 1); !errors.Is(err, ErrInput) {
		t.Errorf("Advance on an empty worker = %v; want ErrInput", err)
	}
}

func nan() float64 { var z float64; return z / z }

// TestRandomOperations drives a placement with seeded random operations,
// checking the invariants after every one, and checks that the round
// robin covers every point: a worker that trains a full round robin's
// worth of points without migrations in between trains each of its ring
// points exactly once.
func TestRandomOperations(t *testing.T) {
	for seed := range uint64(20) {
		trace := randomOps(t, seed, 400)
		if again := randomOps(t, seed, 400); again != trace {
			t.Fatalf("seed %d: two runs differ", seed)
		}
	}
}

func randomOps(t *testing.T, seed uint64, ops int) uint64 {
	rng := rand.New(rand.NewPCG(seed, 99))
	n := 2 + rng.IntN(5)
	sizes := make([]int, n)
	total := 0
	for w := range sizes {
		sizes[w] = rng.IntN(30)
		total += sizes[w]
	}
	p := mustPlacement(t, 1+rng.IntN(8), sizes...)
	h := fnv.New64a()
	var open []uint64
	trained := 0
	for op := range ops {
		w := rng.IntN(n)
		var what string
		switch r := rng.IntN(10); {
		case r < 4:
			got := next(t, p, w, rng.IntN(12))
			must(t, p.Advance(w, len(got)))
			trained += len(got)
			what = fmt.Sprintf("Advance(%d) %v", w, got)
		case r < 5:
			must(t, p.BeginIteration(w))
			what = fmt.Sprintf("BeginIteration(%d)", w)
		case r < 6:
			var tr []Transfer
			for range rng.IntN(4) {
				from, to := rng.IntN(n), rng.IntN(n)
				if from != to {
					tr = append(tr, Transfer{From: from, To: to, Points: rng.IntN(10), Pair: rng.IntN(2)})
				}
			}
			must(t, p.SetPlan(tr))
			what = fmt.Sprintf("SetPlan(%v)", tr)
		case r < 8:
			win, ok, err := p.OpenWindow(w)
			must(t, err)
			if ok {
				open = append(open, win.ID)
			}
			what = fmt.Sprintf("OpenWindow(%d) %+v", w, win)
		default:
			if len(open) == 0 {
				continue
			}
			i := rng.IntN(len(open))
			id := open[i]
			open = append(open[:i], open[i+1:]...)
			if rng.IntN(5) == 0 {
				must(t, p.Abort(id))
				what = fmt.Sprintf("Abort(%d)", id)
			} else {
				must(t, p.Deliver(id))
				what = fmt.Sprintf("Deliver(%d)", id)
			}
		}
		fmt.Fprintln(h, what)
		if err := p.Check(); err != nil {
			t.Fatalf("seed %d op %d %s: %v", seed, op, what, err)
		}
		// Round-robin coverage, on a copy-free probe: a full ring's worth
		// of Next lists each ring point once.
		l, _ := p.Load(w)
		probe := next(t, p, w, l.Queued+l.Ring)
		ring := map[Point]int{}
		for _, pt := range probe[min(len(probe), len(p.workers[w].queue)):] {
			ring[pt]++
		}
		if len(ring) != l.Ring {
			t.Fatalf("seed %d op %d: Next over the ring of %d gave %d distinct points: %v", seed, op, l.Ring, len(ring), probe)
		}
	}
	var sum, owned int
	for hm := range n {
		for i := range sizes[hm] {
			c, _, err := p.Count(Point{hm, i})
			must(t, err)
			sum += c
			owned++
		}
	}
	if sum != trained || owned != total {
		t.Fatalf("seed %d: counts sum to %d over %d points; trained %d over %d", seed, sum, owned, trained, total)
	}
	return h.Sum64()
}
