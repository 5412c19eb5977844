package cost

import (
	"fmt"
	"math"
	"strconv"
)

// RequestPrice is a price per request, kept in the units it was quoted
// in: Dollars per Per requests (S3 quotes per 1,000 requests, DynamoDB,
// SNS and Lambda invocations per million). The zero RequestPrice is
// invalid (Per = 0).
//
// slsML (§"Summary of experiments", Cost) found that the cost of S3 calls
// is "the main reason for the extra cost" at scale ("traffic within a
// region is free, and the only cost is for API calls"): a serverless
// pipeline pays per request, not only per second.
type RequestPrice struct {
	Dollars float64 // dollars per Per requests; finite, ≥ 0
	Per     int64   // the number of requests quoted; > 0
}

// PerThousand returns the price x $ per 1,000 requests.
func PerThousand(x float64) RequestPrice { return RequestPrice{Dollars: x, Per: 1000} }

// PerMillion returns the price x $ per 1,000,000 requests.
func PerMillion(x float64) RequestPrice { return RequestPrice{Dollars: x, Per: 1_000_000} }

// Each returns the price of one request. It does not validate p.
func (p RequestPrice) Each() float64 { return p.Dollars / float64(p.Per) }

// For returns the price of n requests. It does not validate p or n.
func (p RequestPrice) For(n int64) float64 { return float64(p.Dollars * (float64(n) / float64(p.Per))) }

// Validate reports whether p is a finite, non-negative price per a
// positive number of requests.
func (p RequestPrice) Validate() error {
	detail := fmt.Sprintf("%v $ per %d requests", p.Dollars, p.Per)
	switch {
	case math.IsNaN(p.Dollars) || math.IsInf(p.Dollars, 0):
		return &Error{Op: "request price", Detail: detail, Err: ErrNonFinite}
	case p.Dollars < 0:
		return &Error{Op: "request price", Detail: detail, Err: ErrNegative}
	case p.Per <= 0:
		return &Error{Op: "request price", Detail: detail + ": the number of requests must be > 0", Err: ErrConfig}
	}
	return nil
}

// PerGBSecond returns the price per second of a function configured with
// memoryMB megabytes, priced at perGBSecond dollars per GB-second: the
// memory-proportional price of AWS Lambda, which allocates CPU in
// proportion to memory too (slsML §"Disk space": "the resource allocation
// of CPU and RAM on Lambda is proportional"). A GB is 1024 MB, as AWS
// counts it: 128 MB is 0.125 GB.
func PerGBSecond(perGBSecond float64, memoryMB int) (Price, error) {
	p := DollarsPerSecond(float64(perGBSecond * float64(memoryMB) / 1024))
	switch {
	case math.IsNaN(perGBSecond) || math.IsInf(perGBSecond, 0):
		return Price{}, &Error{Op: "memory price", Detail: fmt.Sprintf("%v $ per GB-s", perGBSecond), Err: ErrNonFinite}
	case perGBSecond < 0:
		return Price{}, &Error{Op: "memory price", Detail: fmt.Sprintf("%v $ per GB-s", perGBSecond), Err: ErrNegative}
	case memoryMB <= 0:
		return Price{}, &Error{Op: "memory price", Detail: fmt.Sprintf("memory %d MB: must be > 0", memoryMB), Err: ErrConfig}
	}
	return p, nil
}

// Serverless is the price list of a serverless pipeline: functions priced
// per GB-second of memory and per invocation, storage and bookkeeping
// services priced per request.
type Serverless struct {
	// GBSecond is the function price in $ per GB-second (PerGBSecond).
	GBSecond float64
	// Billing rounds each invocation's duration.
	Billing Billing
	// Invocation is the price of invoking a function.
	Invocation RequestPrice
	// Put and Get are the object store's write and read requests (S3
	// PUT and GET).
	Put, Get RequestPrice
	// Write and Read are the bookkeeping table's requests (DynamoDB
	// write and read request units).
	Write, Read RequestPrice
	// Publish is a notification (an SNS publish).
	Publish RequestPrice
}

// AWS2018 returns AWS's list prices (us-east-1) when slsML ran its
// experiments, 2018 to early 2019: Lambda at $0.00001667 per GB-second
// billed per 100 ms, with $0.20 per million invocations; S3 Standard at
// $0.005 per 1,000 PUT and $0.0004 per 1,000 GET requests; DynamoDB
// on-demand (from November 2018) at $1.25 per million write and $0.25
// per million read request units; SNS at $0.50 per million publishes.
// Free tiers are left out. (Lambda has billed per 1 ms since December
// 2020; use Exact or another Billing for today's.)
func AWS2018() Serverless {
	return Serverless{
		GBSecond:   0.00001667,
		Billing:    Per100ms(),
		Invocation: PerMillion(0.20),
		Put:        PerThousand(0.005),
		Get:        PerThousand(0.0004),
		Write:      PerMillion(1.25),
		Read:       PerMillion(0.25),
		Publish:    PerMillion(0.50),
	}
}

// Validate reports whether every price of s is valid.
func (s Serverless) Validate() error {
	if _, err := PerGBSecond(s.GBSecond, 1024); err != nil {
		return err
	}
	if err := s.Billing.Validate(); err != nil {
		return err
	}
	for _, p := range []struct {
		name string
		p    RequestPrice
	}{{"Invocation", s.Invocation}, {"Put", s.Put}, {"Get", s.Get}, {"Write", s.Write}, {"Read", s.Read}, {"Publish", s.Publish}} {
		if err := p.p.Validate(); err != nil {
			return rewrap(err, "request price", p.name)
		}
	}
	return nil
}

// Function returns a resource for one container of a function with
// memoryMB megabytes, priced by s (its invocations are its lifetimes).
func (s Serverless) Function(name string, memoryMB int) (Resource, error) {
	p, err := PerGBSecond(s.GBSecond, memoryMB)
	if err != nil {
		return Resource{}, rewrap(err, "function", name)
	}
	r := Resource{Name: name, Kind: FaaS, Price: p, Billing: s.Billing}
	if err := r.Validate(); err != nil {
		return Resource{}, err
	}
	return r, nil
}

// Meter counts requests per named service and prices them: the per-request
// half of a serverless bill, beside a Ledger's per-second half. The zero
// Meter is empty and ready to use. A Meter is not safe for concurrent use;
// a method that returns an error leaves it as it was.
type Meter struct {
	index map[string]int
	lines []RequestLine
}

// RequestLine is one service's part of a RequestBill.
type RequestLine struct {
	Name     string
	Price    RequestPrice
	Requests int64
	Cost     float64 // dollars
}

// RequestBill is the cost of the requests a Meter counted.
type RequestBill struct {
	Lines []RequestLine // one per service, in the order they were added
	Total float64       // dollars; the sum of Lines[i].Cost in order
}

// Add registers a service and its price, with no request counted yet.
func (m *Meter) Add(name string, p RequestPrice) error {
	if name == "" {
		return &Error{Op: "meter add", Detail: "empty name", Err: ErrConfig}
	}
	if err := p.Validate(); err != nil {
		return rewrap(err, "meter add", name)
	}
	if _, dup := m.index[name]; dup {
		return &Error{Op: "meter add", Name: name, Err: ErrDuplicate}
	}
	if m.index == nil {
		m.index = map[string]int{}
	}
	m.index[name] = len(m.lines)
	m.lines = append(m.lines, RequestLine{Name: name, Price: p})
	return nil
}

// Count adds n requests to service name.
func (m *Meter) Count(name string, n int64) error {
	i, ok := m.index[name]
	if !ok {
		return &Error{Op: "count", Name: name, Err: ErrUnknown}
	}
	if n < 0 {
		return &Error{Op: "count", Name: name, Detail: strconv.FormatInt(n, 10) + " requests", Err: ErrNegative}
	}
	if m.lines[i].Requests > math.MaxInt64-n {
		return &Error{Op: "count", Name: name, Detail: fmt.Sprintf("%d + %d requests", m.lines[i].Requests, n), Err: ErrOverflow}
	}
	m.lines[i].Requests += n
	return nil
}

// Requests returns the requests counted for service name (0 for an
// unknown name).
func (m *Meter) Requests(name string) int64 {
	if i, ok := m.index[name]; ok {
		return m.lines[i].Requests
	}
	return 0
}

// Bill prices the requests counted so far.
func (m *Meter) Bill() RequestBill {
	b := RequestBill{Lines: make([]RequestLine, len(m.lines))}
	for i, ln := range m.lines {
		ln.Cost = ln.Price.For(ln.Requests)
		b.Lines[i] = ln
		b.Total += ln.Cost
	}
	return b
}
