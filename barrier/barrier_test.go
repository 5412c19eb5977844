package barrier_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/syncmodels/syncmodels/barrier"
)

func TestThresholdNeed(t *testing.T) {
	for _, tt := range []struct {
		k    barrier.Threshold
		n    int
		want int
	}{
		{barrier.Threshold{}, 0, 0},
		{barrier.Threshold{}, 5, 5},
		{barrier.Count(3), 5, 3},
		{barrier.Count(3), 2, 2}, // capped at the members taking part
		{barrier.Count(3), 0, 0},
		{barrier.Fraction(0.9), 10, 9},
		{barrier.Fraction(0.9), 16, 15}, // 14.4 rounds up
		{barrier.Fraction(0.9), 3, 3},
		{barrier.Fraction(0.7), 10, 7}, // 0.7·10 = 7.000000000000001 in float64
		{barrier.Fraction(0.3), 10, 3}, // 0.3·10 = 3.0000000000000004
		{barrier.Fraction(1.0 / 3), 3, 1},
		{barrier.Fraction(0.5), 5, 3},
		{barrier.Fraction(0.01), 5, 1}, // at least one
		{barrier.Fraction(1), 7, 7},
	} {
		if got := tt.k.Need(tt.n); got != tt.want {
			t.Errorf("Threshold(%v).Need(%d) = %d; want %d", tt.k, tt.n, got, tt.want)
		}
	}
}

func TestNewQuorumValidates(t *testing.T) {
	for _, tt := range []struct {
		k    barrier.Threshold
		want string // "" for no error
	}{
		{barrier.Threshold{}, ""},
		{barrier.Count(1), ""},
		{barrier.Fraction(1), ""},
		{barrier.Fraction(0.9), ""},
		{barrier.Count(0), "barrier: NewQuorum: Count(k) = 0: must be ≥ 1"},
		{barrier.Count(-2), "barrier: NewQuorum: Count(k) = -2: must be ≥ 1"},
		{barrier.Fraction(0), "barrier: NewQuorum: Fraction(f) = 0: must be in (0, 1]"},
		{barrier.Fraction(-0.5), "barrier: NewQuorum: Fraction(f) = -0.5: must be in (0, 1]"},
		{barrier.Fraction(1.5), "barrier: NewQuorum: Fraction(f) = 1.5: must be in (0, 1]"},
		{barrier.Fraction(math.NaN()), "barrier: NewQuorum: Fraction(f) = NaN: must be in (0, 1]"},
		{barrier.Fraction(math.Inf(1)), "barrier: NewQuorum: Fraction(f) = +Inf: must be in (0, 1]"},
	} {
		q, err := barrier.NewQuorum(tt.k, 1, 2)
		got := ""
		if err != nil {
			got = err.Error()
			if !errors.Is(err, barrier.ErrConfig) {
				t.Errorf("NewQuorum(%v) error = %v; want one wrapping ErrConfig", tt.k, err)
			}
		} else if q.Threshold() != tt.k {
			t.Errorf("NewQuorum(%v).Threshold() = %v; want %v", tt.k, q.Threshold(), tt.k)
		}
		if got != tt.want {
			t.Errorf("NewQuorum(%v) error = %q; want %q", tt.k, got, tt.want)
		}
	}
}

func TestThresholdString(t *testing.T) {
	for _, tt := range []struct {
		k    barrier.Threshold
		want string
	}{
		{barrier.Threshold{}, "all"},
		{barrier.Count(4), "4"},
		{barrier.Fraction(0.9), "90%"},
		{barrier.Fraction(1.0 / 3), "33.3333%"},
	} {
		if got := tt.k.String(); got != tt.want {
			t.Errorf("%#v.String() = %q; want %q", tt.k, got, tt.want)
		}
	}
}

func TestErrorMessages(t *testing.T) {
	for _, tt := range []struct {
		err  error
		want string
	}{
		{&barrier.WorkerError{Op: "Cyclic.Wait", Worker: 7, Err: barrier.ErrUnknownWorker},
			"barrier: Cyclic.Wait: worker 7: worker is not a member"},
		{&barrier.WorkerError{Op: "Quorum.Wait", Worker: 2, Err: barrier.ErrLeft},
			"barrier: Quorum.Wait: worker 2: worker left"},
		{&barrier.WaitError{Op: "Cyclic.Wait", Worker: 1, Round: 3, Missing: []barrier.WorkerID{2, 5}, Need: 2, Err: context.DeadlineExceeded},
			"barrier: Cyclic.Wait: worker 1 at round 3: context deadline exceeded; awaiting workers [2 5]"},
		{&barrier.WaitError{Op: "Quorum.Wait", Worker: 1, Round: 0, Missing: []barrier.WorkerID{2, 3, 4}, Need: 1, Err: context.Canceled},
			"barrier: Quorum.Wait: worker 1 at round 0: context canceled; awaiting 1 of workers [2 3 4]"},
		{&barrier.WaitError{Op: "ClockTable.Wait", Worker: 4, Round: 9, Missing: []barrier.WorkerID{3, 1}, Need: 2, Err: context.DeadlineExceeded},
			"barrier: ClockTable.Wait: worker 4 at clock 9: context deadline exceeded; awaiting workers [3 1]"},
		{&barrier.WaitError{Op: "Cyclic.Wait", Worker: 1, Round: 0, Err: context.Canceled},
			"barrier: Cyclic.Wait: worker 1 at round 0: context canceled"},
	} {
		if got := tt.err.Error(); got != tt.want {
			t.Errorf("Error() = %q; want %q", got, tt.want)
		}
	}
}

// roundImpls are the implementations of the rounds suite: a Quorum that
// needs everybody must behave as a Cyclic.
var roundImpls = []struct {
	name string
	new  func(ws ...barrier.WorkerID) barrier.Barrier
}{
	{"Cyclic", func(ws ...barrier.WorkerID) barrier.Barrier { return must(barrier.NewCyclic(ws...)) }},
	{"Quorum(100%)", func(ws ...barrier.WorkerID) barrier.Barrier {
		q, err := barrier.NewQuorum(barrier.Fraction(1), ws...)
		if err != nil {
			panic(err)
		}
		return q
	}},
}

func TestRoundsTimeoutNamesMissing(t *testing.T) {
	for _, impl := range roundImpls {
		t.Run(impl.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				b := impl.new(1, 2, 3, 4)
				ctx := context.Background()
				errs := make(chan error, 2)
				go func() { _, err := b.Wait(ctx, 3); errs <- err }()
				start := time.Now()
				tctx, cancel := context.WithTimeout(ctx, 5*time.Second)
				defer cancel()
				round, err := b.Wait(tctx, 1)
				if elapsed := time.Since(start); elapsed != 5*time.Second {
					t.Errorf("Wait returned after %v; want 5s", elapsed)
				}
				var we *barrier.WaitError
				if !errors.As(err, &we) {
					t.Fatalf("Wait(1) = %d, %v; want a *WaitError", round, err)
				}
				if !errors.Is(err, context.DeadlineExceeded) {
					t.Errorf("errors.Is(%v, DeadlineExceeded) = false; want true", err)
				}
				want := &barrier.WaitError{Op: we.Op, Worker: 1, Round: 0, Missing: []barrier.WorkerID{2, 4}, Need: 2, Err: context.DeadlineExceeded}
				if diff := cmp.Diff(want, we); diff != "" {
					t.Errorf("WaitError mismatch (-want +got):\n%s", diff)
				}
				for _, w := range []barrier.WorkerID{2, 4} {
					if !strings.Contains(err.Error(), fmt.Sprint(w)) {
						t.Errorf("error %q does not name worker %d", err, w)
					}
				}
				// The arrival was withdrawn: 2 and 4 alone do not release round 0.
				go func() { _, err := b.Wait(ctx, 2); errs <- err }()
				go func() { _, err := b.Wait(ctx, 4); errs <- err }()
				synctest.Wait()
				if got := b.Round(); got != 0 {
					t.Fatalf("Round() = %d after 1 withdrew; want 0", got)
				}
				if round, err := b.Wait(ctx, 1); round != 0 || err != nil {
					t.Errorf("Wait(1) = %d, %v; want 0, nil", round, err)
				}
				for range 3 {
					if err := <-errs; err != nil {
						t.Error(err)
					}
				}
			})
		})
	}
}

func TestRoundsDoneContextFailsWithoutArriving(t *testing.T) {
	for _, impl := range roundImpls {
		t.Run(impl.name, func(t *testing.T) {
			b := impl.new(1)
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			// Worker 1 alone would release round 0, but its context is done.
			round, err := b.Wait(ctx, 1)
			if !errors.Is(err, context.Canceled) {
				t.Errorf("Wait(cancelled ctx) = %d, %v; want context.Canceled", round, err)
			}
			if got := b.Round(); got != 0 {
				t.Errorf("Round() = %d; want 0", got)
			}
		})
	}
}

func TestRoundsMembershipErrors(t *testing.T) {
	for _, impl := range roundImpls {
		t.Run(impl.name, func(t *testing.T) {
			b := impl.new(1, 2)
			ctx := context.Background()
			for _, tt := range []struct {
				name string
				err  error
				want error
			}{
				{"Wait(9)", func() error { _, err := b.Wait(ctx, 9); return err }(), barrier.ErrUnknownWorker},
				{"Leave(9)", b.Leave(9), barrier.ErrUnknownWorker},
				{"Join(1)", func() error { _, err := b.Join(1); return err }(), barrier.ErrAlreadyMember},
			} {
				var we *barrier.WorkerError
				if !errors.Is(tt.err, tt.want) || !errors.As(tt.err, &we) {
					t.Errorf("%s = %v; want a *WorkerError wrapping %v", tt.name, tt.err, tt.want)
				}
			}
			if got, want := b.Members(), []barrier.WorkerID{1, 2}; !cmp.Equal(got, want) {
				t.Errorf("Members() = %v; want %v", got, want)
			}
		})
	}
}

// Every constructor refuses a bad argument with an *InputError wrapping
// ErrConfig that names it, and never panics.
func TestConstructorsRefuseBadArguments(t *testing.T) {
	for _, tt := range []struct {
		name string
		f    func() (any, error)
		want string
	}{
		{"NewCyclic(1, 2, 1)", func() (any, error) { return barrier.NewCyclic(1, 2, 1) },
			"barrier: NewCyclic: workers[2] = 1: listed twice (also workers[0])"},
		{"NewFlexible(4, 4)", func() (any, error) { return barrier.NewFlexible(4, 4) },
			"barrier: NewFlexible: workers[1] = 4: listed twice (also workers[0])"},
		{"NewQuorum(2, 3, 3)", func() (any, error) { return barrier.NewQuorum(barrier.Count(2), 3, 3) },
			"barrier: NewQuorum: workers[1] = 3: listed twice (also workers[0])"},
		{"NewClockTable(1, 5, 5)", func() (any, error) { return barrier.NewClockTable(1, 5, 5) },
			"barrier: NewClockTable: workers[1] = 5: listed twice (also workers[0])"},
		{"NewClockTable(-1)", func() (any, error) { return barrier.NewClockTable(-1) },
			"barrier: NewClockTable: staleness = -1: must be ≥ 0"},
	} {
		v, err := tt.f()
		var ie *barrier.InputError
		if !errors.Is(err, barrier.ErrConfig) || !errors.As(err, &ie) || err.Error() != tt.want {
			t.Errorf("%s error = %v; want an *InputError wrapping ErrConfig: %q", tt.name, err, tt.want)
		}
		if !reflect.ValueOf(v).IsNil() {
			t.Errorf("%s = %v; want nil with the error", tt.name, v)
		}
	}
	// The same constructors with good arguments succeed.
	for _, f := range []func() (any, error){
		func() (any, error) { return barrier.NewCyclic(1, 2) },
		func() (any, error) { return barrier.NewFlexible() },
		func() (any, error) { return barrier.NewQuorum(barrier.Count(2), 3, 4) },
		func() (any, error) { return barrier.NewClockTable(0, 5, 6) },
	} {
		if v, err := f(); err != nil || reflect.ValueOf(v).IsNil() {
			t.Errorf("constructor = %v, %v; want a value", v, err)
		}
	}
}

func TestClockTableTimeoutNamesSlowest(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ct := must(barrier.NewClockTable(3, 1, 2, 3, 4))
		tick := func(w barrier.WorkerID, n int) {
			for range n {
				if _, err := ct.Tick(w); err != nil {
					t.Fatal(err)
				}
			}
		}
		tick(1, 8)
		tick(2, 1)
		tick(4, 4) // clocks 1=8 2=1 3=0 4=4
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		err := ct.Wait(ctx, 1, 8) // needs every clock ≥ 5
		var we *barrier.WaitError
		if !errors.As(err, &we) || !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("Wait = %v; want a *WaitError wrapping DeadlineExceeded", err)
		}
		if got, want := we.Missing, []barrier.WorkerID{3, 2, 4}; !cmp.Equal(got, want) {
			t.Errorf("Missing = %v; want %v (slowest first)", got, want)
		}
		if got := ct.Min(); got != 0 {
			t.Errorf("Min() = %d; want 0", got)
		}
	})
}

func TestClockTableWaitConditions(t *testing.T) {
	for _, tt := range []struct {
		s      int
		clocks []uint64 // of workers 1.., worker 1 waits
		clock  uint64
		block  bool
	}{
		{0, []uint64{0, 0}, 0, false},
		{0, []uint64{1, 0}, 1, true}, // BSP: everyone must have finished clock 0
		{0, []uint64{1, 1}, 1, false},
		{3, []uint64{3, 0}, 3, false}, // 3 − 3 = 0
		{3, []uint64{4, 0}, 4, true},  // needs min ≥ 1
		{3, []uint64{4, 1}, 4, false},
		{3, []uint64{9, 5, 6}, 9, true}, // needs 6; worker 2 is at 5
		{3, []uint64{9, 6, 6}, 9, false},
		{2, []uint64{0, 0}, 1, false}, // clock < s
	} {
		synctest.Test(t, func(t *testing.T) {
			var ws []barrier.WorkerID
			for i := range tt.clocks {
				ws = append(ws, barrier.WorkerID(i+1))
			}
			ct := must(barrier.NewClockTable(tt.s, ws...))
			for i, c := range tt.clocks {
				for range c {
					if _, err := ct.Tick(ws[i]); err != nil {
						t.Fatal(err)
					}
				}
			}
			ctx, cancel := context.WithTimeout(context.Background(), time.Second)
			defer cancel()
			err := ct.Wait(ctx, 1, tt.clock)
			if got := err != nil; got != tt.block {
				t.Errorf("s=%d clocks=%v: Wait(1, %d) blocked = %v (%v); want %v", tt.s, tt.clocks, tt.clock, got, err, tt.block)
			}
		})
	}
}

// The zero Cyclic and Quorum are empty; the first Join takes part in the
// round in progress (nobody else does), later joiners from the next round.
func TestRoundsZeroValue(t *testing.T) {
	for _, b := range []barrier.Barrier{new(barrier.Cyclic), new(barrier.Quorum)} {
		synctest.Test(t, func(t *testing.T) {
			ctx := context.Background()
			if _, err := b.Wait(ctx, 1); !errors.Is(err, barrier.ErrUnknownWorker) {
				t.Errorf("%T: Wait by non-member = %v; want ErrUnknownWorker", b, err)
			}
			for _, tt := range []struct {
				w    barrier.WorkerID
				want uint64
			}{{1, 0}, {2, 1}, {3, 1}} {
				if got, err := b.Join(tt.w); got != tt.want || err != nil {
					t.Errorf("%T: Join(%d) = %d, %v; want %d, nil", b, tt.w, got, err, tt.want)
				}
			}
			if r, err := b.Wait(ctx, 1); r != 0 || err != nil {
				t.Errorf("%T: Wait(1) = %d, %v; want 0, nil (alone in round 0)", b, r, err)
			}
			done := make(chan error, 2)
			for _, w := range []barrier.WorkerID{1, 2} {
				go func() { _, err := b.Wait(ctx, w); done <- err }()
			}
			if r, err := b.Wait(ctx, 3); r != 1 || err != nil {
				t.Errorf("%T: Wait(3) = %d, %v; want 1, nil", b, r, err)
			}
			for range 2 {
				if err := <-done; err != nil {
					t.Error(err)
				}
			}
		})
	}
}

func TestClockTableZeroValue(t *testing.T) {
	var ct barrier.ClockTable
	ctx := context.Background()
	if err := ct.Wait(ctx, 1, 0); !errors.Is(err, barrier.ErrUnknownWorker) {
		t.Errorf("Wait by non-member = %v; want ErrUnknownWorker", err)
	}
	if c, err := ct.Join(1); c != 0 || err != nil {
		t.Errorf("Join(1) = %d, %v; want 0, nil", c, err)
	}
	if c, err := ct.Tick(1); c != 1 || err != nil {
		t.Errorf("Tick(1) = %d, %v; want 1, nil", c, err)
	}
	if err := ct.Wait(ctx, 1, 1); err != nil { // staleness 0, min 1
		t.Errorf("Wait(1, 1) = %v; want nil", err)
	}
	if got := ct.Staleness(); got != 0 {
		t.Errorf("Staleness() = %d; want 0", got)
	}
}

func TestWaitAfterLeaveAndRejoin(t *testing.T) {
	// A worker that left and joined again is a new member: its old blocked
	// Wait reports ErrLeft, its new Wait takes part normally.
	synctest.Test(t, func(t *testing.T) {
		c := must(barrier.NewCyclic(1, 2))
		ctx := context.Background()
		errc := make(chan error, 1)
		go func() { _, err := c.Wait(ctx, 1); errc <- err }()
		synctest.Wait()
		if err := c.Leave(1); err != nil {
			t.Fatal(err)
		}
		if err := <-errc; !errors.Is(err, barrier.ErrLeft) {
			t.Errorf("blocked Wait after Leave = %v; want ErrLeft", err)
		}
		if r, err := c.Join(1); r != 1 || err != nil {
			t.Errorf("Join(1) = %d, %v; want 1, nil", r, err)
		}
		// Round 0 awaits only worker 2.
		if r, err := c.Wait(ctx, 2); r != 0 || err != nil {
			t.Errorf("Wait(2) = %d, %v; want 0, nil", r, err)
		}
		go func() { _, err := c.Wait(ctx, 1); errc <- err }()
		if r, err := c.Wait(ctx, 2); r != 1 || err != nil {
			t.Errorf("Wait(2) = %d, %v; want 1, nil", r, err)
		}
		if err := <-errc; err != nil {
			t.Error(err)
		}
	})
}

func TestClockTableAdvance(t *testing.T) {
	ct := must(barrier.NewClockTable(0, 1, 2))
	for _, tt := range []struct {
		w       barrier.WorkerID
		to      uint64
		want    uint64
		wantMin uint64
	}{
		{1, 3, 3, 0},
		{1, 2, 3, 0}, // never back
		{2, 2, 2, 2},
		{2, 2, 2, 2}, // idempotent
		{2, 5, 5, 3},
		{1, math.MaxUint64, math.MaxUint64, 5},
	} {
		got, err := ct.Advance(tt.w, tt.to)
		if got != tt.want || err != nil {
			t.Errorf("Advance(%d, %d) = %d, %v; want %d, nil", tt.w, tt.to, got, err, tt.want)
		}
		if m := ct.Min(); m != tt.wantMin {
			t.Errorf("after Advance(%d, %d): Min() = %d; want %d", tt.w, tt.to, m, tt.wantMin)
		}
	}
	if got, _ := ct.Tick(1); got != math.MaxUint64 {
		t.Errorf("Tick at MaxUint64 = %d; want it to saturate", got)
	}
	if _, err := ct.Advance(9, 1); !errors.Is(err, barrier.ErrUnknownWorker) {
		t.Errorf("Advance(9, 1) = %v; want ErrUnknownWorker", err)
	}
}

// must returns v, and panics on an error: for fixtures whose arguments are
// valid.
func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
