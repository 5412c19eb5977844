package harness_test

import (
	"fmt"

	"github.com/syncmodels/syncmodels/harness"
)

// A cost profile (syncbench calibrate writes one) gives the cost model of
// a workload on the machine it was measured on: LR's compute per point
// at 100 features from the fitted line, the runtime's work per commit,
// the cores the workers share and the time one takes to wake; the
// cluster model of machines like it, a core per worker, puts the
// runtime's null rounds on the links instead.
func ExampleProfile_CostModel() {
	p, err := harness.ParseProfile("example.json", []byte(`{
  "version": 1, "date": "2026-01-02", "cores": 1.5, "wakeup_ns": 20000,
  "machine": {"goos": "linux", "goarch": "amd64", "cpu": "", "num_cpu": 2, "gomaxprocs": 2, "go": "go1.26"},
  "workloads": [{"key": "lr", "size": "dim", "intercept_ns": 30, "slope_ns": 0.8, "r2": 0.99, "apply_entry_ns": 12, "commit_ns": 15000, "samples": []}],
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
	fmt.Printf("point %v, commit %v, %g cores waking in %v, latency %v, message %v\n", c.PointCost, c.CommitCPU, c.Cores, c.Wakeup, c.Latency, c.MessageCost)
	c, _ = p.ClusterCostModel(harness.WorkloadShape{Algo: "lr", Dim: 100}, "inproc")
	fmt.Printf("cluster: point %v, latency %v, message %v, %g cores\n", c.PointCost, c.Latency, c.MessageCost, c.Cores)
	_, err = p.CostModel(harness.WorkloadShape{Algo: "gmm", Dim: 8, K: 4}, "inproc")
	fmt.Println(err)
	// Output:
	// point 110ns, commit 15µs, 1.5 cores waking in 20µs, latency 900ns, message 600ns
	// cluster: point 110ns, latency 1µs, message 6µs, 0 cores
	// harness: profile example.json: workloads: no entry "gmm" (have lr)
}
