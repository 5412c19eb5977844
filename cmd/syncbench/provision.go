package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/syncmodels/syncmodels/provision"
)

// maxProvisionWorkers bounds -ntot: the plan takes O(N_tot log N_tot) with
// one rate per worker (sorting the rates), and a hundred thousand instances
// is past any rental this planner is for.
const maxProvisionWorkers = 100_000

// provisionFlags are the flags of `syncbench provision`. The defaults are
// the DOLL paper's §V-A setting: N_tot = 64, J = 10000, K = 20, b = 256,
// λ_A = 125 points/s, and c5.xlarge prices in ca-central-1b, $0.158/h spot
// (the Jan–Mar 2021 mean) against $0.286/h on demand; α = 0.9 and
// θ/θ0 = 1.05 are §V-B's first setting.
type provisionFlags struct {
	ntot, updates, k, batch int
	lambda                  string
	alpha                   float64
	deadline                string
	ratio                   float64
	priceSpot, priceOD      float64
	json                    bool

	// Parsed by check.
	rate  float64   // one rate (λ_A), or 0
	rates []float64 // one rate per worker (λ_{A,n}), or nil
	// uniform is "U(lo, hi)" when rates are its expected order statistics.
	uniform string
	theta   float64 // -deadline in seconds, or 0 when -deadline-ratio sets θ
}

func (f *provisionFlags) register(fs *flag.FlagSet) {
	fs.IntVar(&f.ntot, "ntot", 64, "N_tot, the number of workers (instances) to rent")
	fs.IntVar(&f.updates, "updates", 10000, "J, the number of model updates the job needs")
	fs.IntVar(&f.k, "k", 20, "K, batches aggregated per update (K-grouping)")
	fs.IntVar(&f.batch, "batch", 256, "b, data points per batch")
	fs.StringVar(&f.lambda, "lambda", "125", "data arrival rate in points per second: one rate for every worker (125), N_tot rates separated by commas (one per worker, in order), or U(lo,hi) (also lo-hi, as in compare's -arrivals) for rates from a uniform distribution, planned on its expected order statistics")
	fs.Float64Var(&f.alpha, "alpha", 0.9, "α in [0, 1], the fraction of time a preemptible instance is available")
	fs.StringVar(&f.deadline, "deadline", "", "θ, the deadline on the expected runtime: a duration (1h52m) or seconds (6720); instead of -deadline-ratio")
	fs.Float64Var(&f.ratio, "deadline-ratio", 1.05, "θ/θ0, the deadline as a multiple of θ0, the expected runtime with every worker on demand; instead of -deadline")
	fs.Float64Var(&f.priceSpot, "price-spot", 0.158, "π_s, $ per preemptible instance-hour, billed while available (DOLL §V-A: c5.xlarge spot mean)")
	fs.Float64Var(&f.priceOD, "price-ondemand", 0.286, "π_o, $ per on-demand instance-hour (DOLL §V-A: c5.xlarge on demand)")
	fs.BoolVar(&f.json, "json", false, "print the plan as one JSON object")
}

// check validates every flag and parses -lambda and -deadline; given
// reports whether a flag was set on the command line.
func (f *provisionFlags) check(given func(string) bool) error {
	for _, c := range []struct {
		name string
		v    int
	}{{"-ntot", f.ntot}, {"-updates", f.updates}, {"-k", f.k}, {"-batch", f.batch}} {
		if c.v < 1 {
			return fmt.Errorf("%s %d: want ≥ 1", c.name, c.v)
		}
	}
	if f.ntot > maxProvisionWorkers {
		return fmt.Errorf("-ntot %d: want at most %d", f.ntot, maxProvisionWorkers)
	}
	var err error
	if f.rate, f.rates, f.uniform, err = parseRates(f.lambda, f.ntot); err != nil {
		return err
	}
	if !(f.alpha >= 0 && f.alpha <= 1) {
		return fmt.Errorf("-alpha %v: want α in [0, 1], the fraction of time a preemptible instance is available", f.alpha)
	}
	if !(f.priceSpot >= 0) || math.IsInf(f.priceSpot, 0) {
		return fmt.Errorf("-price-spot %v: want a finite price ≥ 0 ($ per instance-hour)", f.priceSpot)
	}
	if !(f.priceOD > 0) || math.IsInf(f.priceOD, 0) {
		return fmt.Errorf("-price-ondemand %v: want a finite price > 0 ($ per instance-hour)", f.priceOD)
	}
	switch {
	case given("deadline") && given("deadline-ratio"):
		return fmt.Errorf("-deadline %s and -deadline-ratio %v: give one of them, not both", f.deadline, f.ratio)
	case given("deadline"):
		if f.theta, err = parseSeconds(f.deadline); err != nil {
			return err
		}
	case !(f.ratio > 0) || math.IsInf(f.ratio, 0):
		return fmt.Errorf("-deadline-ratio %v: want a finite θ/θ0 ≥ 1", f.ratio)
	}
	return nil
}

// parseSeconds reads -deadline: a Go duration or a number of seconds.
func parseSeconds(s string) (float64, error) {
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil {
		d, derr := time.ParseDuration(strings.TrimSpace(s))
		if derr != nil {
			return 0, fmt.Errorf("-deadline %q: not a duration (1h52m) or a number of seconds (6720)", s)
		}
		v = d.Seconds()
	}
	if !(v > 0) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("-deadline %s: want a finite deadline > 0", s)
	}
	return v, nil
}

// parseRates reads -lambda in the forms of compare's -arrivals rates (one
// rate, a comma-separated list, where "10," is a list of one, or a range
// lo-hi) or as U(lo,hi). A list must have ntot rates. A range stands for
// ntot draws from U(lo, hi) by their expected order statistics
// (provision.UniformRates) and wants 0 < lo ≤ hi, as -arrivals does.
func parseRates(s string, ntot int) (rate float64, rates []float64, uniform string, err error) {
	const want = "want one rate (125), -ntot rates separated by commas, or a range U(lo,hi) or lo-hi"
	t := strings.TrimSpace(s)
	var lo, hi string
	if inner, ok := strings.CutPrefix(strings.ToUpper(t), "U("); ok {
		inner, closed := strings.CutSuffix(inner, ")")
		var two bool
		if lo, hi, two = strings.Cut(inner, ","); !closed || !two {
			return 0, nil, "", fmt.Errorf("-lambda %q: not U(lo,hi); %s", s, want)
		}
	} else if i := rangeDash(t); i > 0 && !strings.Contains(t, ",") {
		lo, hi = t[:i], t[i+1:]
	}
	if lo != "" || hi != "" {
		a, err1 := strconv.ParseFloat(strings.TrimSpace(lo), 64)
		b, err2 := strconv.ParseFloat(strings.TrimSpace(hi), 64)
		if err1 != nil || err2 != nil {
			return 0, nil, "", fmt.Errorf("-lambda %q: the bounds are not two numbers; %s", s, want)
		}
		if !(a > 0) || !(b >= a) || math.IsInf(b, 0) {
			return 0, nil, "", fmt.Errorf("-lambda %q: want bounds 0 < lo ≤ hi, finite (points per second)", s)
		}
		u, err := provision.UniformRates(ntot, a, b)
		return 0, u, fmt.Sprintf("U(%v, %v)", a, b), err
	}
	parts := strings.Split(t, ",")
	list := len(parts) > 1
	if list && strings.TrimSpace(parts[len(parts)-1]) == "" {
		parts = parts[:len(parts)-1] // "10," is a list of one, as in -arrivals
	}
	rates = make([]float64, len(parts))
	for i, p := range parts {
		v, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		switch {
		case strings.TrimSpace(p) == "":
			return 0, nil, "", fmt.Errorf("-lambda %q: empty rate %d (a stray comma?); %s", s, i+1, want)
		case err != nil:
			return 0, nil, "", fmt.Errorf("-lambda %q: %q is not a number; %s", s, p, want)
		case (!(v > 0) || math.IsInf(v, 0)) && !list:
			return 0, nil, "", fmt.Errorf("-lambda %s: want a finite rate > 0 (points per second)", s)
		case !(v > 0) || math.IsInf(v, 0):
			return 0, nil, "", fmt.Errorf("-lambda %q: rate %d is %v; want finite rates > 0 (points per second)", s, i+1, v)
		}
		rates[i] = v
	}
	if !list {
		return rates[0], nil, "", nil
	}
	if len(rates) != ntot {
		return 0, nil, "", fmt.Errorf("-lambda: %d rates for -ntot %d workers; want one rate or %d, one per worker", len(rates), ntot, ntot)
	}
	return 0, rates, "", nil
}

// rangeDash is the index of the '-' between a range's bounds in lo-hi, or
// -1: the first '-' after index 0 that does not follow an exponent's 'e'
// (the rule of compare's -arrivals).
func rangeDash(s string) int {
	for i := 1; i < len(s); i++ {
		if s[i] == '-' && s[i-1] != 'e' && s[i-1] != 'E' {
			return i
		}
	}
	return -1
}

// problem is the provisioning question the flags ask.
func (f *provisionFlags) problem() provision.Problem {
	p := provision.Problem{
		Ntot: f.ntot, Updates: f.updates, K: f.k, Batch: f.batch,
		Lambda: f.rate, Lambdas: f.rates, Alpha: f.alpha,
		PriceSpot: f.priceSpot, PriceOnDemand: f.priceOD,
	}
	if f.theta > 0 {
		p.Deadline = f.theta
	} else {
		p.DeadlineRatio = f.ratio
	}
	return p
}

// provisionPlan is what `syncbench provision` prints; its JSON is the
// command's -json output.
type provisionPlan struct {
	// The inputs, echoed.
	Ntot          int       `json:"ntot"`
	Updates       int       `json:"updates"`
	K             int       `json:"k"`
	Batch         int       `json:"batch"`
	LambdaSpec    string    `json:"lambda_spec"`    // -lambda as given
	Lambda        *float64  `json:"lambda"`         // λ_A; null with one rate per worker
	Lambdas       []float64 `json:"lambdas"`        // λ_{A,n} by worker; null with one rate
	Alpha         float64   `json:"alpha"`          // α
	DeadlineRatio float64   `json:"deadline_ratio"` // θ/θ0, given or from -deadline
	PriceSpot     float64   `json:"price_spot"`     // π_s, $/h
	PriceOnDemand float64   `json:"price_ondemand"` // π_o, $/h

	// The plan.
	Method          string   `json:"method"`             // "theorem4" (one rate) or "theorem5" (one rate per worker)
	Ns              int      `json:"ns"`                 // N_s*
	No              int      `json:"no"`                 // N_o = N_tot − N_s*
	Preemptible     []int    `json:"preemptible"`        // workers on preemptible instances (Eq. 20: the slowest); null with one rate, where any N_s do
	ExpectedRuntime float64  `json:"expected_runtime_s"` // Eq. 15 / 21 at N_s*
	Theta           float64  `json:"theta_s"`            // θ
	Theta0          float64  `json:"theta0_s"`           // θ0, Eq. 15 / 21 at N_s = 0
	ExpectedCost    float64  `json:"expected_cost"`      // $, Eq. 16 / 22 at N_s*
	OnDemandCost    float64  `json:"ondemand_cost"`      // $, Eq. 16 / 22 at N_s = 0
	CostRatio       float64  `json:"cost_ratio"`         // expected_cost / ondemand_cost
	Corollary2Bound *float64 `json:"corollary2_bound"`   // Eq. 19; null with one rate per worker

	uniform      string // "U(lo, hi)" when Lambdas stand for its draws
	deadlineFlag string // the flag that set θ
}

// planProvision solves p and fills the plan; an error names the flag.
func (f *provisionFlags) planProvision(p provision.Problem) (*provisionPlan, error) {
	plan, err := p.Optimal()
	if err != nil {
		return nil, f.flagError(p, err)
	}
	od, err := p.ExpectedCost(0)
	if err != nil {
		return nil, f.flagError(p, err)
	}
	pre, err := p.Preemptible(plan.Ns)
	if err != nil {
		return nil, f.flagError(p, err)
	}
	out := &provisionPlan{
		Ntot: f.ntot, Updates: f.updates, K: f.k, Batch: f.batch,
		LambdaSpec: f.lambda, Lambdas: f.rates, uniform: f.uniform, Alpha: f.alpha,
		DeadlineRatio: plan.Deadline / plan.Theta0,
		PriceSpot:     f.priceSpot, PriceOnDemand: f.priceOD,
		deadlineFlag: "-deadline-ratio",
		Method:       "theorem5", Ns: plan.Ns, No: plan.No, Preemptible: pre,
		ExpectedRuntime: plan.ExpectedRuntime, Theta: plan.Deadline, Theta0: plan.Theta0,
		ExpectedCost: plan.ExpectedCost, OnDemandCost: od, CostRatio: plan.CostRatio,
	}
	if f.theta > 0 {
		out.deadlineFlag = "-deadline"
	}
	if f.rates == nil {
		// Eq. 19 is a bound for one rate only; for one rate per worker the
		// package calls it a reference (provision's doc) and so does the
		// paper's Table II, which gives none.
		rate := f.rate
		out.Lambda, out.Method, out.Preemptible = &rate, "theorem4", nil
		b, err := p.Corollary2Bound()
		if err != nil {
			return nil, f.flagError(p, err)
		}
		out.Corollary2Bound = &b
	}
	return out, nil
}

// flagError turns a provision error into one naming the flag: a deadline
// below θ0 says θ0, the smallest deadline N_s = 0 meets.
func (f *provisionFlags) flagError(p provision.Problem, err error) error {
	var e *provision.Error
	if !errors.As(err, &e) {
		return err
	}
	if errors.Is(err, provision.ErrInfeasible) {
		t0, _ := p.ExpectedRuntime(0)
		given, theta := "-deadline "+f.deadline, f.theta
		if f.theta == 0 {
			given, theta = fmt.Sprintf("-deadline-ratio %v", f.ratio), f.ratio*t0
		}
		return fmt.Errorf("%s: θ = %.6g s is shorter than θ0 = %s, the expected runtime with every worker on demand, "+
			"so no N_s meets it, not even N_s = 0; the smallest feasible deadline is θ0 (-deadline-ratio 1 or -deadline %.6g)",
			given, theta, seconds(t0), t0)
	}
	flagOf := map[string]string{
		"Ntot": "-ntot", "Updates": "-updates", "K": "-k", "Batch": "-batch", "Lambda": "-lambda",
		"Lambdas": "-lambda", "Alpha": "-alpha", "Deadline": "-deadline", "DeadlineRatio": "-deadline-ratio",
		"PriceSpot": "-price-spot", "PriceOnDemand": "-price-ondemand",
	}
	if name, ok := flagOf[e.Field]; ok {
		return fmt.Errorf("%s: %s", name, e.Detail)
	}
	return err
}

// seconds prints a time in seconds, with its duration when that helps.
func seconds(s float64) string {
	if s >= 60 && s < 1e9 {
		return fmt.Sprintf("%.6g s (%v)", s, time.Duration(s*float64(time.Second)).Round(time.Second))
	}
	return fmt.Sprintf("%.6g s", s)
}

// dollars prints a cost: cents above a dollar, four digits below.
func dollars(c float64) string {
	if c >= 1 {
		return fmt.Sprintf("$%.2f", c)
	}
	return fmt.Sprintf("$%.4g", c)
}

// workerList prints worker indices with runs shortened: 0-29, 31, 40-41.
func workerList(ws []int) string {
	if len(ws) == 0 {
		return "none"
	}
	var parts []string
	for i := 0; i < len(ws); {
		j := i
		for j+1 < len(ws) && ws[j+1] == ws[j]+1 {
			j++
		}
		if j > i {
			parts = append(parts, fmt.Sprintf("%d-%d", ws[i], ws[j]))
		} else {
			parts = append(parts, strconv.Itoa(ws[i]))
		}
		i = j + 1
	}
	return strings.Join(parts, ", ")
}

// writeText prints the plan for a person: the inputs, then one quantity a
// line with the equation or theorem of the DOLL paper it comes from.
func (pl *provisionPlan) writeText(w io.Writer) error {
	jkb := float64(pl.Updates) * float64(pl.K) * float64(pl.Batch)
	rates := fmt.Sprintf("λ = %.6g points/s per worker", *orZero(pl.Lambda))
	theta0Src, rtSrc, costSrc, planSrc := "Corollary 2: J·K·b/(N_tot·λ)", "Eq. 15", "Eq. 16", "Theorem 4, Eq. 18"
	if pl.Lambda == nil {
		var sum float64
		for _, l := range pl.Lambdas {
			sum += l
		}
		lo, hi := slices.Min(pl.Lambdas), slices.Max(pl.Lambdas)
		rates = fmt.Sprintf("one λ per worker, %.6g to %.6g points/s, Σλ = %.6g", lo, hi, sum)
		if pl.uniform != "" {
			rates = fmt.Sprintf("λ ~ %s per worker, planned on its expected order statistics, %.6g to %.6g points/s, Σλ = %.6g", pl.uniform, lo, hi, sum)
		}
		theta0Src, rtSrc, costSrc, planSrc = "J·K·b/Σλ (Eq. 21 at N_s = 0)", "Eq. 21", "Eq. 22", "Theorem 5's scan, Lemma 2 (Eq. 23)"
	}
	fmt.Fprintf(w, "DOLL provisioning plan: expected values of the model of §IV-B (docs/provision.md)\n")
	fmt.Fprintf(w, "inputs: N_tot = %d workers, J = %d updates of K = %d batches of b = %d points (J·K·b = %s)\n",
		pl.Ntot, pl.Updates, pl.K, pl.Batch, strconv.FormatFloat(jkb, 'f', -1, 64))
	fmt.Fprintf(w, "        %s\n", rates)
	fmt.Fprintf(w, "        α = %v, π_s = $%v/h spot (billed while available), π_o = $%v/h on demand\n\n", pl.Alpha, pl.PriceSpot, pl.PriceOnDemand)

	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	row := func(label, value, source string) { fmt.Fprintf(tw, "%s\t%s\t%s\n", label, value, source) }
	row("", "", "from the DOLL paper")
	row("plan", fmt.Sprintf("N_s = %d preemptible, N_o = %d on demand", pl.Ns, pl.No), planSrc)
	if pl.Lambda == nil {
		which := "none"
		if pl.Ns > 0 {
			which = fmt.Sprintf("workers %s (the %d slowest)", workerList(pl.Preemptible), pl.Ns)
		}
		row("preemptible", which, "Eq. 20")
	}
	row("expected runtime", fmt.Sprintf("%s = %.4f·θ0", seconds(pl.ExpectedRuntime), pl.ExpectedRuntime/pl.Theta0), rtSrc)
	row("deadline", fmt.Sprintf("θ = %s = %.4f·θ0", seconds(pl.Theta), pl.DeadlineRatio), "input ("+pl.deadlineFlag+")")
	row("θ0", seconds(pl.Theta0)+", every worker on demand", theta0Src)
	row("expected cost", dollars(pl.ExpectedCost), costSrc)
	row("on-demand only", dollars(pl.OnDemandCost)+" (N_s = 0)", costSrc+" at N_s = 0")
	row("cost ratio", fmt.Sprintf("%.4f (saves %.2f%%)", pl.CostRatio, 100*(1-pl.CostRatio)), costSrc+" ÷ on-demand only")
	if pl.Corollary2Bound != nil {
		row("Corollary 2", fmt.Sprintf("%.4f, a lower bound on the cost ratio", *pl.Corollary2Bound), "Eq. 19")
	} else {
		row("Corollary 2", "none with one rate per worker", "Eq. 19 bounds one rate only")
	}
	return tw.Flush()
}

// orZero is *p, or a pointer to 0 when p is nil.
func orZero(p *float64) *float64 {
	if p == nil {
		return new(float64)
	}
	return p
}

// provisionCmd is `syncbench provision`: DOLL's provisioning planner.
func provisionCmd(args []string, stdout, stderr io.Writer) int {
	const name = "syncbench provision"
	var f provisionFlags
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stdout)
	f.register(fs)
	given := func(flagName string) bool {
		set := false
		fs.Visit(func(fl *flag.Flag) { set = set || fl.Name == flagName })
		return set
	}
	if code, ok := parseFlags(fs, args, func() error { return f.check(given) }, stderr); !ok {
		return code
	}
	plan, err := f.planProvision(f.problem())
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", name, oneLine(err))
		return 2
	}
	if f.json {
		err = writeJSON(stdout, plan)
	} else {
		err = plan.writeText(stdout)
	}
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", name, oneLine(err))
		return 1
	}
	return 0
}
