package harness_test

import (
	"fmt"

	"github.com/syncmodels/syncmodels/harness"
)

// A cost profile (syncbench calibrate writes one) gives the cost model of
// a workload on the machine it was measured on: LR's compute per point
// at 100 features from the fitted line, the in-process messages' costs
// from the runtime's null rounds, and the cores the workers share.
func ExampleProfile_CostModel() {
	p, err := harness.ParseProfile("example.json", []byte(`{
  "version": 1, "date": "2026-01-02", "cores": 1.5,
  "machine": {"goos": "linux", "goarch": "amd64", "cpu": "", "num_cpu": 2, "gomaxprocs": 2, "go": "go1.26"},
  "workloads": [{"key": "lr", "size": "dim", "intercept_ns": 30, "slope_ns": 0.8, "r2": 0.99, "apply_entry_ns": 12, "samples": []}],
  "transports": [{"name": "inproc", "latency_ns": 1500, "bandwidth": 3e8, "message_ns": 600, "samples": [], "round_ns": 2000, "worker_ns": 12000}]
}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	c, err := p.CostModel(harness.WorkloadShape{Algo: "lr", Dim: 100}, "inproc")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("point %v, latency %v, message %v, apply %v per entry, %g cores\n", c.PointCost, c.Latency, c.MessageCost, c.EntryCost, c.Cores)
	_, err = p.CostModel(harness.WorkloadShape{Algo: "gmm", Dim: 8, K: 4}, "inproc")
	fmt.Println(err)
	// Output:
	// point 110ns, latency 1µs, message 6µs, apply 12ns per entry, 1.5 cores
	// harness: profile example.json: workloads: no entry "gmm" (have lr)
}
