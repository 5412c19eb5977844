//go:build amd64 && !purego

package kernel

import (
	"math/rand/v2"
	"os"
	"testing"
)

// TestTinyBlocking reruns the shape sweep with blocking parameters shrunk
// so that even d ≤ 70 is split into chunks, k into several panels, and C is
// packed: the driver's chunk/panel/pack bookkeeping is then covered by the
// exhaustive small shapes, tails included, against the float64 references
// and, bit for bit, against the pure-Go code.
func TestTinyBlocking(t *testing.T) {
	if !hasAsm {
		t.Skip("no AVX2/FMA")
	}
	saved := []int{l1Budget, panelMax, rowBlock, packMinRows}
	defer func() { l1Budget, panelMax, rowBlock, packMinRows = saved[0], saved[1], saved[2], saved[3] }()
	r := rand.New(rand.NewPCG(25, 26))
	for c, cfg := range [][4]int{{256, 15, 4, 2}, {512, 5, 3, 1}, {1 << 20, 15, 1, 1}} {
		l1Budget, panelMax, rowBlock, packMinRows = cfg[0], cfg[1], cfg[2], cfg[3]
		kind, i := 0, 0
		dims(func(n, k, d int) {
			if i++; n > 0 && sampled(i, 8, c) {
				checkAllNT(t, r, n, k, d)
				checkNTExact(t, r, kind, n, k, d) // generic follows the blocking bit for bit
				kind = (kind + 1) % numKinds
			}
		})
	}
}

func TestChunkLen(t *testing.T) {
	for _, c := range []struct{ d, max, lanes, want int }{
		{784, 256, 4, 196}, {784, 512, 8, 392}, {100, 256, 4, 100}, {257, 256, 4, 132},
		{1000, 1, 4, 32}, {33, 1, 4, 20},
	} {
		if got := chunkLen(c.d, c.max, c.lanes); got != c.want {
			t.Errorf("chunkLen(%d, %d, %d) = %d, want %d", c.d, c.max, c.lanes, got, c.want)
		}
	}
}

// TestLongExhaustiveSweeps (a long check, SYNCMODELS_LONG=1, which
// .ci/run runs without -race) runs the exhaustive sweeps that -race
// samples, every case (each sampled test whole).
func TestLongExhaustiveSweeps(t *testing.T) {
	if os.Getenv("SYNCMODELS_LONG") != "1" {
		t.Skip("a long check: run with SYNCMODELS_LONG=1")
	}
	if raceEnabled {
		t.Skip("the race detector samples the sweeps; run the long checks without -race")
	}
	for _, c := range []struct {
		name string
		f    func(*testing.T)
	}{
		{"TinyBlocking", TestTinyBlocking}, {"ExactTinyBlocking", TestExactTinyBlocking},
		{"ExactDotsNTLarge", TestExactDotsNTLarge}, {"ExactLevel1", TestExactLevel1}, {"ExactDotsNT", TestExactDotsNT},
		{"DotsNT", TestDotsNT}, {"DotsNT32", TestDotsNT32}, {"DotsNT2", TestDotsNT2}, {"DotsNTBlocked", TestDotsNTBlocked},
	} {
		t.Run(c.name, c.f)
	}
}
