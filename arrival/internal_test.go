package arrival

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
	"time"
)

// advance returns the running sum of the batch lengths rounded to the
// nanosecond: compared with the exact sum in big.Float arithmetic after
// each of 10^6 additions of random lengths (0.004 ns to 2 s), it is never
// more than 0.5 ns off, plus the rounding of the float additions d + carry
// (at most (|d| + 0.5)·2^-53 each): nothing else accumulates.
func TestAdvanceExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var st Stream
	exact := new(big.Float).SetPrec(200)
	bound := 0.5
	for i := range 1_000_000 {
		d := math.Ldexp(rng.Float64(), rng.IntN(40)-8)
		bound += (d + 0.5) * 0x1p-53
		exact.Add(exact, new(big.Float).SetFloat64(d))
		got := st.advance(d)
		diff, _ := new(big.Float).Sub(exact, new(big.Float).SetInt64(int64(got))).Float64()
		if math.Abs(diff) > bound {
			t.Fatalf("addition %d: advance = %d ns, exact sum %s ns (off by %.3g ns > %.3g)", i, got, exact.Text('f', 3), diff, bound)
		}
	}
	if st.advance(math.Inf(1)) != time.Duration(math.MaxInt64) || st.advance(1) != time.Duration(math.MaxInt64) {
		t.Errorf("advance(+Inf) does not saturate")
	}
}
