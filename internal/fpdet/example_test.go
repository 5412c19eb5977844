package fpdet_test

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/syncmodels/syncmodels/internal/fpdet"
)

// The same bits on every architecture: e^π and a normal draw are the
// values amd64's math.Exp and math/rand/v2's NormFloat64 give, also on
// arm64 and 386. A product that feeds an addition is converted, so that no
// target fuses it into one multiply-add.
func Example() {
	fmt.Printf("%#x\n", math.Float64bits(fpdet.Exp(math.Pi)))
	r := rand.New(rand.NewPCG(1, 2))
	z := fpdet.NormFloat64(r)
	mean, sd := 10.0, 2.0
	fmt.Printf("%.6f\n", float64(sd*z)+mean)
	// Output:
	// 0x403724046eb09339
	// 10.758891
}
