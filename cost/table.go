package cost

import (
	"fmt"
	"strconv"
)

// Instance types of MLLess Table 2.
const (
	TypeMessaging = "C1.4x4"   // MLLess messaging service VM
	TypeRedis     = "M1.2x16"  // MLLess Redis VM
	TypeFunction  = "Function" // IBM Cloud Function, 1 vCPU, 2 GB: one MLLess worker
	TypePyTorchVM = "B1.4x8"   // VM hosting four PyTorch workers
)

// Instance is one row of a price table.
type Instance struct {
	Type     string  // instance type, e.g. "C1.4x4"
	Role     string  // what it runs in the experiments
	Kind     Kind    // FaaS or VM
	VCPUs    int     // virtual CPUs
	MemoryGB float64 // memory in GB
	Workers  int     // training workers it hosts (0 for service VMs)
	Price    Price   // as quoted by the provider
}

// Resource returns a resource of this instance type with the given name and
// billing model.
func (in Instance) Resource(name string, b Billing) Resource {
	return Resource{Name: name, Kind: in.Kind, Price: in.Price, Billing: b}
}

// Table is a price table.
type Table []Instance

// IBMCloud2021 returns MLLess Table 2, "Pricing from IBM Cloud (us-east,
// April. 2021)", with prices in the units the paper quotes: the function
// at 3.4e-5 $/s (the paper rounds this to 0.122 $/hour), the VMs in
// $/hour. Each call returns a fresh Table.
func IBMCloud2021() Table {
	return Table{
		{Type: TypeMessaging, Role: "MLLess messaging service", Kind: VM, VCPUs: 4, MemoryGB: 4, Price: DollarsPerHour(0.15)},
		{Type: TypeRedis, Role: "Redis", Kind: VM, VCPUs: 2, MemoryGB: 16, Price: DollarsPerHour(0.17)},
		{Type: TypeFunction, Role: "MLLess worker", Kind: FaaS, VCPUs: 1, MemoryGB: 2, Workers: 1, Price: DollarsPerSecond(3.4e-5)},
		{Type: TypePyTorchVM, Role: "Four PyTorch workers", Kind: VM, VCPUs: 4, MemoryGB: 8, Workers: 4, Price: DollarsPerHour(0.2)},
	}
}

// Lookup returns the entry of the given type.
func (t Table) Lookup(typ string) (Instance, error) {
	for _, in := range t {
		if in.Type == typ {
			return in, nil
		}
	}
	return Instance{}, &Error{Op: "lookup", Name: typ, Detail: "no such instance type in the price table", Err: ErrUnknown}
}

// Options configures the deployment builders MLLess and PyTorch. The zero
// value gives the paper's accounting.
type Options struct {
	// Table is the price table; nil means IBMCloud2021().
	Table Table
	// VMBilling bills the VMs. The zero value means PerSecond(), the
	// paper's "conservative" convention that VM cost is measured as $/s
	// (MLLess §6.1); PerHour() is how IBM Cloud actually bills, which
	// "would cost more" for PyTorch. Use Exact() for no rounding.
	VMBilling Billing
	// FunctionBilling bills the cloud functions. The zero value means
	// Per100ms(), the FaaS sub-second billing of MLLess §1.
	FunctionBilling Billing
}

func (o Options) withDefaults() Options {
	if o.Table == nil {
		o.Table = IBMCloud2021()
	}
	if o.VMBilling == (Billing{}) {
		o.VMBilling = PerSecond()
	}
	if o.FunctionBilling == (Billing{}) {
		o.FunctionBilling = Per100ms()
	}
	return o
}

// Resource names used by the deployment builders.
const (
	NameMessaging = "messaging" // the C1.4x4 VM of an MLLess deployment
	NameRedis     = "redis"     // the M1.2x16 VM of an MLLess deployment
)

// WorkerName returns the name of MLLess function worker i (0-based):
// "worker-0", "worker-1", ...
func WorkerName(i int) string { return "worker-" + strconv.Itoa(i) }

// VMName returns the name of PyTorch VM i (0-based): "vm-0", "vm-1", ...
func VMName(i int) string { return "vm-" + strconv.Itoa(i) }

func checkWorkers(op string, p int) error {
	if p < 1 {
		return &Error{Op: op, Name: "workers", Detail: fmt.Sprintf("P = %d, want ≥ 1", p), Err: ErrConfig}
	}
	return nil
}

// MLLess returns the resources of an MLLess deployment with p function
// workers, as costed in MLLess §6.1: the messaging-service VM (C1.4x4,
// named NameMessaging), the Redis VM (M1.2x16, NameRedis) and p functions
// named WorkerName(0..p-1).
func MLLess(p int, o Options) ([]Resource, error) {
	if err := checkWorkers("mlless", p); err != nil {
		return nil, err
	}
	o = o.withDefaults()
	msg, err := o.Table.Lookup(TypeMessaging)
	if err != nil {
		return nil, err
	}
	redis, err := o.Table.Lookup(TypeRedis)
	if err != nil {
		return nil, err
	}
	fn, err := o.Table.Lookup(TypeFunction)
	if err != nil {
		return nil, err
	}
	rs := make([]Resource, 0, p+2)
	rs = append(rs, msg.Resource(NameMessaging, o.VMBilling), redis.Resource(NameRedis, o.VMBilling))
	for i := range p {
		rs = append(rs, fn.Resource(WorkerName(i), o.FunctionBilling))
	}
	for _, r := range rs {
		if err := r.Validate(); err != nil {
			return nil, err
		}
	}
	return rs, nil
}

// PyTorch returns the resources of a PyTorch deployment with p workers:
// ⌈p/w⌉ VMs of type B1.4x8, w = 4 workers each (MLLess §6.1: 12 or 24
// workers on 3 or 6 instances), named VMName(0..).
func PyTorch(p int, o Options) ([]Resource, error) {
	if err := checkWorkers("pytorch", p); err != nil {
		return nil, err
	}
	o = o.withDefaults()
	vm, err := o.Table.Lookup(TypePyTorchVM)
	if err != nil {
		return nil, err
	}
	if vm.Workers < 1 {
		return nil, &Error{Op: "pytorch", Name: vm.Type, Detail: fmt.Sprintf("hosts %d workers", vm.Workers), Err: ErrConfig}
	}
	n := (p + vm.Workers - 1) / vm.Workers
	rs := make([]Resource, n)
	for i := range rs {
		rs[i] = vm.Resource(VMName(i), o.VMBilling)
		if err := rs[i].Validate(); err != nil {
			return nil, err
		}
	}
	return rs, nil
}

// Rate returns the price of running all of rs at once, in $/s with no
// rounding: "the price in $/s of the deployment". Resources priced by a
// trace have no single rate and are an error.
func Rate(rs []Resource) (float64, error) {
	total := 0.0
	for _, r := range rs {
		if err := r.Validate(); err != nil {
			return 0, err
		}
		if r.Trace != nil {
			return 0, &Error{Op: "rate", Name: r.Name, Detail: "priced by a trace", Err: ErrInput}
		}
		total += r.Price.Rate()
	}
	return total, nil
}
