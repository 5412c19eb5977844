package p2p

import (
	"fmt"
	"strconv"
	"time"

	"github.com/syncmodels/syncmodels/cost"
)

// LambdaPerGBSecond is the price of AWS Lambda (arm64) per GB-second,
// which Table II's Lambda prices are: 4400 MB cost $0.0000573/s,
// 2800 MB $0.0000362, 1800 MB $0.0000233, 1700 MB $0.0000220, each
// 1.3333e-5 $ per GB-s to three digits (the paper's "custom ARM
// architecture", §IV-D1). A function's price is proportional to its
// memory (§IV-D2).
const LambdaPerGBSecond = 0.0000133334

// LambdaPrice is the price of a function with memoryMB of memory (> 0;
// other values price nothing): cost.PerGBSecond at LambdaPerGBSecond.
func LambdaPrice(memoryMB int) cost.Price {
	p, err := cost.PerGBSecond(LambdaPerGBSecond, memoryMB)
	if err != nil {
		return cost.DollarsPerSecond(0)
	}
	return p
}

// The instance prices of Tables II and III ($/s, as the paper quotes
// them): the small peer that invokes functions and the large peer that
// computes its gradients itself.
var (
	T2Small = cost.DollarsPerSecond(0.00000639) // Table II: $0.023/hour
	T2Large = cost.DollarsPerSecond(0.00002578) // Table III: $0.0928/hour
)

// Prices prices a run.
type Prices struct {
	// Instance is the price of each peer's instance, billed from the
	// start of the run to when the peer finished.
	Instance cost.Price
	// InstanceBilling rounds each instance's lifetime; the zero value
	// bills per second (EC2's Linux billing, without its one-minute
	// minimum).
	InstanceBilling cost.Billing
	// Function is the price of a function while it runs; the zero Price
	// means LambdaPrice of the run's Serverless.MemoryMB.
	Function cost.Price
	// FunctionBilling rounds each invocation; the zero value is
	// cost.Per100ms (Lambda's billing when the paper was written).
	FunctionBilling cost.Billing
}

// Bill prices run r: one VM per peer for its lifetime, and every function
// invocation, on a cost.Ledger. Functions of a peer that run at once are
// separate resources (one per slot), so none is billed twice.
func (r *Result) Bill(p Prices) (cost.Bill, error) {
	if p.InstanceBilling == (cost.Billing{}) {
		p.InstanceBilling = cost.PerSecond()
	}
	if p.FunctionBilling == (cost.Billing{}) {
		p.FunctionBilling = cost.Per100ms()
	}
	if p.Function == (cost.Price{}) {
		mem := r.MemoryMB
		if mem == 0 {
			mem = 1024
		}
		p.Function = LambdaPrice(mem)
	}
	var l cost.Ledger
	for _, ps := range r.Peer {
		name := "peer-" + strconv.Itoa(ps.Peer)
		if err := l.Add(cost.Resource{Name: name, Kind: cost.VM, Price: p.Instance, Billing: p.InstanceBilling}); err != nil {
			return cost.Bill{}, err
		}
		if err := l.Record(name, 0, ps.Finished); err != nil {
			return cost.Bill{}, err
		}
		slots := map[int]string{}
		for _, inv := range ps.Invocations {
			fn, ok := slots[inv.Slot]
			if !ok {
				fn = fmt.Sprintf("peer-%d-fn-%d", ps.Peer, inv.Slot)
				slots[inv.Slot] = fn
				if err := l.Add(cost.Resource{Name: fn, Kind: cost.FaaS, Price: p.Function, Billing: p.FunctionBilling}); err != nil {
					return cost.Bill{}, err
				}
			}
			if err := l.Record(fn, inv.Start, inv.Stop); err != nil {
				return cost.Bill{}, err
			}
		}
	}
	return l.Bill()
}

// PaperCost is the paper's cost per peer of computing gradients for t
// (§V-B2): Eq. 1 with functions, [function rate × batches + instance
// rate] × t, every one of the batches' functions billed for the whole
// computation time; Eq. 2 without (batches = 0), instance rate × t.
func PaperCost(t time.Duration, batches int, function, instance cost.Price) float64 {
	return float64((float64(function.Rate()*float64(batches)) + instance.Rate()) * t.Seconds())
}
