// Package cost prices training runs: billing models, the price tables of
// the papers, a Ledger that bills resource lifetimes, the MLLess Perf/$
// metric and spot-price traces for preemptible instances.
//
// Everything is pure and deterministic: no clock, no goroutines, no global
// state. Times are time.Duration offsets from the start of a run (integer
// nanoseconds, so rounding to 100 ms, 1 s or 1 h is exact); a simulator
// that keeps virtual time as float64 seconds converts with FromSeconds.
// Money is float64 dollars.
//
// # Sources
//
//   - P. Gimeno Sarroca and M. Sánchez-Artigas, "MLLess: Achieving Cost
//     Efficiency in Serverless Machine Learning Training" (MLLess).
//     Table 2 (IBM Cloud, us-east, April 2021) is IBMCloud2021. §6.1,
//     "Cost computation": the cost of an MLLess run is that of its function
//     workers plus two VMs, a C1.4x4 messaging service and an M1.2x16
//     Redis (MLLess); PyTorch runs four workers per B1.4x8 VM (PyTorch).
//     IBM charges VMs hourly, but the paper is "conservative and assume[s]
//     that VM cost is measured as $/s", which favours PyTorch; that is the
//     default here (Options.VMBilling), with PerHour as the option. Functions
//     have "sub-second billing (often per 100ms)" (§1): Per100ms. §6.2.2
//     defines Perf/$ := 1/Exec.time(s) × 1/Price($): PerfPerDollar, and
//     the relative improvement Gain.
//   - H. Jiang, X. Zhang and C. Joe-Wong, "DOLL: Distributed OnLine
//     Learning Using Preemptible Cloud Instances" (DOLL). §IV-B prices a
//     preemptible instance at π_s per unit time, paid only while available
//     (fraction α), against π_o on demand: MixedRate gives the effective
//     total price (N_tot − N_s)·π_o + α·N_s·π_s. §V bills against a real
//     AWS spot-price history (c5.xlarge, ca-central-1b, mean 0.158 $/hour
//     against 0.286 on demand), traversed at 2000× speed: Trace,
//     ParseTrace, GenerateSpot with the DOLLHigh and DOLLLow models (the
//     trace itself is not available), Trace.Speedup, and a Resource of
//     kind Spot whose lifetimes are its available intervals. Table II reports
//     cost as a percentage of the on-demand-only cost: CostRatio.
//
// # Billing
//
// A Billing rounds each lifetime of a resource up to a multiple of its
// Granularity, after raising it to an optional Minimum. Every lifetime is
// rounded on its own: a worker evicted at 60.05 s under per-second billing
// pays 61 s, and a spot instance preempted three times pays three rounded
// lifetimes. A resource priced by a Trace pays, over the rounded lifetime
// [start, start + billed), the integral of the trace's piecewise-constant
// price.
//
// # Requests and Lambda prices
//
// A serverless pipeline also pays per request. RequestPrice is a price per
// 1,000 or per million requests (PerThousand, PerMillion); a Meter counts
// requests per named service and bills them (RequestBill), beside a
// Ledger's bill of the functions' lifetimes. PerGBSecond gives a
// function's price per second from its memory, as AWS Lambda charges (CPU
// is proportional to memory too); Serverless is such a price list and
// AWS2018 AWS's of 2018, when slsML ("slsML: Towards elastic ML
// infrastructure on AWS Lambda", §"Summary of experiments") found that
// S3 request costs dominate at scale: Lambda $0.00001667 per GB-s billed
// per 100 ms and $0.20 per million invocations, S3 $0.005 per 1,000 PUT
// and $0.0004 per 1,000 GET, DynamoDB on-demand $1.25 and $0.25 per
// million writes and reads, SNS $0.50 per million publishes.
//
// # Ledger
//
// A Ledger records when each resource starts and stops (Start, Stop, or
// Record for a closed lifetime). Resources added mid-run (scale-out) and
// stopped early (scale-in, the MLLess auto-tuner evicting a worker) are
// billed for exactly their lifetimes. Bill gives the total, a Line per
// resource and the total per Kind; BillAt bills a run in progress as of a
// time, and is non-decreasing in that time.
//
// # Price traces
//
// A Trace is a piecewise-constant price in $/hour. ParseTrace and
// LoadTrace read it as CSV, one change a line, and WriteCSV writes the same
// form:
//
//	seconds,price_per_hour
//	0,0.158
//	3600,0.161
//	90000.5,0.157
//
// The first field is the time of the change as seconds from the start of
// the trace (a decimal, ≥ 0, strictly increasing, exact to the nanosecond
// without an exponent); the second is the price from then on until the
// next line, in $/hour (finite, ≥ 0). The first point's time is where the
// trace begins (a lifetime that starts earlier is an error); the last
// price holds forever after. A header line (neither field a number), blank
// lines, # comments, spaces around fields and CRLF line ends are accepted.
// The format has no calendar times: an AWS history has RFC 3339
// timestamps, newest first, for several zones and products at once.
// ParseSpotHistory reads the JSON of `aws ec2 describe-spot-price-history`
// for one zone, type and product, and returns the trace with its start
// time; WriteCSV then gives the CSV above.
//
// # Synthetic spot prices
//
// DOLL's trace (c5.xlarge, ca-central-1b, SUSE, January–March 2021) is
// not published with the paper, so GenerateSpot draws traces with its
// means from a SpotModel. The price changes at the times of a Poisson
// process of mean spacing MeanHold (rounded to whole seconds); between
// changes it is constant. The log of its fluctuating part follows an AR(1)
// chain over the changes, y' = (1 − Reversion)·y + Volatility·Z, started
// in its stationary law; the prices Fee + s·e^y, clamped to [Min, Max]
// when set, are scaled by the one s > 0 that makes the time-weighted mean
// over [0, Horizon) exactly Mean.
//
// The presets DOLLLow and DOLLHigh take their means from DOLL §V-A and
// Fig. 5 and the rest from what is known of AWS spot prices since AWS
// changed its pricing model in late 2017:
//
//   - Change rate, MeanHold = 24 h. Since that change AWS sets spot prices
//     from long-term supply and demand instead of bids, and describes them
//     as predictable and adjusting gradually, over days and weeks, and
//     updated less often than before (AWS Compute Blog, "New Amazon EC2
//     Spot pricing model", and the re:Invent 2017 announcement); users
//     report changes more often than weekly. One day is the middle of
//     "a few a day" to "a few a week". DOLL re-optimises its adaptive
//     method at every change (§V-C), so this is also the rate at which
//     that method acts.
//   - Step size, Volatility = 0.02 with Reversion = 0.1: moves of about 2%
//     of the fluctuating price per change, pulled back over some ten
//     changes; the stationary spread of the log price is about 4.6%. DOLL
//     §III-B4 says c5.xlarge spot prices in US East varied by at most
//     $0.02 from November 2021 to January 2022, and observers of the new
//     model saw prices hover within a band of a few percent. Over 200
//     seeds the DOLLLow trace's range (highest minus lowest price) over its
//     90 days has a median of $0.010 and never exceeds $0.02 (tested).
//   - The SUSE fee. DOLL's high and low settings differ by exactly $0.100
//     per hour both on demand (0.286 against 0.186) and in mean spot price
//     (0.158 against 0.058): the SUSE licence, a flat per-hour charge on
//     top of the Linux price. DOLLHigh is therefore DOLLLow plus Fee =
//     0.10, and the two move by the same dollar amounts. Note that AWS
//     bills SUSE instances per hour, not per second.
//
// DOLL §V-A traverses its trace at 2000× (Trace.Speedup): a 90-day trace
// then lasts 3,888 s of run time, less than the 6,400 s θ0 of its
// experiments, after which the last price holds. A run that needs prices
// for longer generates a longer Horizon.
//
// # Errors
//
// Bad input — a negative time, a stop before its start, an unknown
// resource, a NaN price, a malformed trace line — is an *Error or a
// *ParseError naming the input and wrapping one of the sentinel errors
// (ErrNegative, ErrOrder, ErrUnknown, ErrNonFinite, ...). Nothing panics on
// data, and a Ledger method that fails leaves the Ledger unchanged.
package cost
