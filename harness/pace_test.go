package harness

import (
	"testing"
	"time"
)

func TestPaceInterrupt(t *testing.T) {
	ms := time.Millisecond
	// 1 ms per point, a 10 ms pause after every 3rd point, 1 point done
	// before: pauses follow batch points 2, 5, 8, …
	p := pace{cost: ms, tau: 10 * ms, every: 3, done: 1}
	if got := p.end(2); got != 12*ms {
		t.Fatalf("end(2) = %v; want 12ms", got)
	}
	if got := p.end(5); got != 25*ms {
		t.Fatalf("end(5) = %v; want 25ms", got)
	}
	tests := []struct {
		e        time.Duration
		points   int
		at, owed time.Duration
	}{
		{0, 1, 1 * ms, 0},                  // computing point 1: finishes it
		{500 * time.Microsecond, 1, ms, 0}, // same
		{ms, 2, 2 * ms, 10 * ms},           // point 1 done exactly: computes point 2, commits, owes its pause
		{2 * ms, 2, 2 * ms, 10 * ms},       // point 2 done, its pause begins: commits, owes the pause
		{11 * ms, 2, 11 * ms, ms},          // late in the pause
		{12 * ms, 3, 13 * ms, 0},           // pause over: finishes point 3
		{24 * ms, 5, 24 * ms, ms},          // in the pause after point 5
		{100 * ms, 6, 26 * ms, 0},          // past the batch end: all 6 points
	}
	for _, tc := range tests {
		n, at, owed := p.interrupt(6, tc.e)
		if n != tc.points || at != tc.at || owed != tc.owed {
			t.Errorf("interrupt(6, %v) = %d points at %v owing %v; want %d at %v owing %v", tc.e, n, at, owed, tc.points, tc.at, tc.owed)
		}
	}
	// No stragglers: the next point boundary.
	q := pace{cost: 2 * ms}
	if n, at, owed := q.interrupt(10, 5*ms); n != 3 || at != 6*ms || owed != 0 {
		t.Errorf("fast worker interrupted at 5ms: %d points at %v owing %v; want 3 at 6ms", n, at, owed)
	}
}
