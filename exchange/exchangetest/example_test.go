package exchangetest_test

import (
	"fmt"

	"github.com/syncmodels/syncmodels/exchange/exchangetest"
)

// The suite's updates carry dyadic values that identify them, so a
// reader can check that what it applied is exactly what was published.
func ExampleCheckUpdate() {
	m := exchangetest.Update(2, 5)
	fmt.Println(m, m.Delta.Vec[:3])
	fmt.Println(exchangetest.CheckUpdate(m, 2, 0, 5))
	m.Delta.Vec[1] = 0
	fmt.Println(exchangetest.CheckUpdate(m, 2, 0, 5))
	// Output:
	// commit worker 2→worker 0 job=7 inc=0 seq=5 v=5 clock=5 points=1 delta=40/count=1 [4.625 4.6259765625 4.626953125]
	// <nil>
	// update job 7 worker 2 inc 0 seq 5: delta entry 1 = 0; want 4.6259765625
}
