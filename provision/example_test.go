package provision_test

import (
	"fmt"

	"github.com/syncmodels/syncmodels/provision"
)

// The setting of the DOLL paper's Fig. 3 (α = 0.9, θ/θ0 = 1.05, N_tot = 64,
// the c5.xlarge prices of §V) with a job of J·K·b = 128,000 points arriving
// at 10 points/s per worker: θ0 = 128000/640 = 200 s, θ = 210 s, and Eq. 18
// gives ⌊(64 − 128000/(10·210)) / 0.1⌋ = ⌊30.48⌋ = 30.
func Example() {
	p := provision.Problem{
		Ntot: 64, Updates: 1000, K: 8, Batch: 16,
		Lambda:        10,
		Alpha:         0.9,
		DeadlineRatio: 1.05,
		PriceSpot:     0.158, PriceOnDemand: 0.286,
	}
	plan, err := p.Optimal()
	if err != nil {
		fmt.Println(err)
		return
	}
	bound, _ := p.Corollary2Bound()
	fmt.Printf("N_s = %d preemptible, N_o = %d on demand\n", plan.Ns, plan.No)
	fmt.Printf("runtime %.2f s of θ = %.0f s (θ0 = %.0f s)\n", plan.ExpectedRuntime, plan.Deadline, plan.Theta0)
	fmt.Printf("cost $%.4f, %.2f%% of on-demand only; Corollary 2: %.2f%%\n", plan.ExpectedCost, 100*plan.CostRatio, 100*bound)

	p.DeadlineRatio = 0.95
	_, err = p.Optimal()
	fmt.Println(err)
	// Output:
	// N_s = 30 preemptible, N_o = 34 on demand
	// runtime 209.84 s of θ = 210 s (θ0 = 200 s)
	// cost $0.8154, 80.19% of on-demand only; Corollary 2: 79.86%
	// provision: DeadlineRatio: 0.95 is below 1: the deadline is shorter than θ0 = 200 s; no N_s meets it
}
