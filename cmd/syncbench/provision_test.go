package main

import (
	"encoding/json"
	"io"
	"math"
	"slices"
	"strings"
	"testing"
)

// relClose reports whether a and b agree to a relative 1e-9.
func relClose(a, b float64) bool {
	return a == b || math.Abs(a-b) <= 1e-9*math.Max(math.Abs(a), math.Abs(b))
}

// provisionOut runs syncbench provision with args and -json and decodes
// the plan; it fails the test on a non-zero exit or anything on stderr.
func provisionOut(t *testing.T, args ...string) (provisionPlan, map[string]json.RawMessage) {
	t.Helper()
	code, out, errs := runCmd(t, append(append([]string{"provision"}, args...), "-json")...)
	if code != 0 || errs != "" {
		t.Fatalf("syncbench provision %s -json: exit %d, stderr %q", strings.Join(args, " "), code, errs)
	}
	var pl provisionPlan
	var raw map[string]json.RawMessage
	if err := json.Unmarshal([]byte(out), &pl); err != nil {
		t.Fatalf("output is not the plan's JSON: %v\n%s", err, out)
	}
	if err := json.Unmarshal([]byte(out), &raw); err != nil {
		t.Fatal(err)
	}
	return pl, raw
}

// TestProvisionHandWorked checks the planner's numbers against cases worked
// by hand from the DOLL paper's formulas (§IV-B). Costs are in dollars:
// seconds × $/h ÷ 3600. Prices are the defaults, §V-A's c5.xlarge
// π_s = 0.158 $/h (spot mean) and π_o = 0.286 $/h (on demand).
// testdata/provision_handworked.py recomputes every number below from the
// formulas, without the Go code.
//
// The first four cases are §V-A's job, N_tot = 64, J = 10000, K = 20,
// b = 256, λ = 125 points/s (the command's defaults):
//
//	J·K·b = 10000·20·256 = 51,200,000 points; N_tot·λ = 64·125 = 8000 points/s;
//	θ0 = J·K·b/(N_tot·λ) = 6400 s (§V-A's θ0 = 6400 s).
//	On demand only (Eq. 16 at N_s = 0): 6400 s · 64·0.286 $/h = 6400·18.304/3600 = $32.5404.
func TestProvisionHandWorked(t *testing.T) {
	const jkb, od = 51.2e6, 6400 * 64 * 0.286 / 3600
	cases := []struct {
		name  string
		args  []string
		ns    int
		pre   []int // preemptible workers, one rate per worker only
		theta float64
		t0    float64
		rt    float64
		cost  float64
		od    float64
		bound float64 // NaN: null (one rate per worker)
	}{{
		// §V-B (α, θ/θ0) = (0.9, 1.05): θ = 1.05·6400 = 6720 s.
		// Eq. 18: J·K·b/(λ·θ) = 51.2e6/(125·6720) = 60.952;
		//   N_s* = ⌊(64 − 60.952)/(1 − 0.9)⌋ = ⌊30.476⌋ = 30, N_o = 34.
		// Eq. 15: 51.2e6/(125·(34 + 0.9·30)) = 51.2e6/7625 = 6714.75 s ≤ 6720 s.
		// Eq. 16: price 34·0.286 + 0.9·30·0.158 = 9.724 + 4.266 = 13.99 $/h;
		//   6714.75·13.99/3600 = $26.0943; ratio 26.0943/32.5404 = 0.80190.
		// Eq. 19: 1.05 + (0.9·0.158 − 0.286)·0.05/(0.286·0.1)
		//   = 1.05 − 0.1438·0.05/0.0286 = 1.05 − 0.25140 = 0.79860 (Table II: 79.8%).
		name: "§V-B α=0.9 θ/θ0=1.05", args: nil,
		ns: 30, theta: 6720, t0: 6400, rt: jkb / 7625, cost: jkb / 7625 * 13.99 / 3600, od: od,
		bound: 1.05 - 0.1438*0.05/0.0286,
	}, {
		// §V-B (0.8, 1.05): θ = 6720 s. Eq. 18: ⌊(64 − 60.952)/0.2⌋ = ⌊15.238⌋ = 15, N_o = 49.
		// Eq. 15: 51.2e6/(125·(49 + 0.8·15)) = 51.2e6/(125·61) = 51.2e6/7625 = 6714.75 s.
		// Eq. 16: price 49·0.286 + 0.8·15·0.158 = 14.014 + 1.896 = 15.91 $/h;
		//   6714.75·15.91/3600 = $29.6755; ratio 0.91196.
		// Eq. 19: 1.05 + (0.8·0.158 − 0.286)·0.05/(0.286·0.2)
		//   = 1.05 − 0.1596·0.05/0.0572 = 1.05 − 0.13951 = 0.91049.
		name: "§V-B α=0.8 θ/θ0=1.05", args: []string{"-alpha", "0.8"},
		ns: 15, theta: 6720, t0: 6400, rt: jkb / 7625, cost: jkb / 7625 * 15.91 / 3600, od: od,
		bound: 1.05 - 0.1596*0.05/0.0572,
	}, {
		// §V-B (0.8, 1.10): θ = 7040 s. Eq. 18: 51.2e6/(125·7040) = 58.182;
		//   ⌊(64 − 58.182)/0.2⌋ = ⌊29.091⌋ = 29, N_o = 35.
		// Eq. 15: 51.2e6/(125·(35 + 0.8·29)) = 51.2e6/(125·58.2) = 51.2e6/7275 = 7037.80 s.
		// Eq. 16: price 35·0.286 + 0.8·29·0.158 = 10.01 + 3.6656 = 13.6756 $/h;
		//   7037.80·13.6756/3600 = $26.7350; ratio 0.82159.
		// Eq. 19: 1.1 − 0.1596·0.1/0.0572 = 1.1 − 0.27902 = 0.82098.
		name: "§V-B α=0.8 θ/θ0=1.10", args: []string{"-alpha", "0.8", "-deadline-ratio", "1.1"},
		ns: 29, theta: 7040, t0: 6400, rt: jkb / 7275, cost: jkb / 7275 * 13.6756 / 3600, od: od,
		bound: 1.1 - 0.1596*0.1/0.0572,
	}, {
		// The first setting with θ as a duration: -deadline 1h52m = 6720 s,
		// the same plan.
		name: "-deadline 1h52m", args: []string{"-deadline", "1h52m"},
		ns: 30, theta: 6720, t0: 6400, rt: jkb / 7625, cost: jkb / 7625 * 13.99 / 3600, od: od,
		bound: 1.05 - 0.1438*0.05/0.0286,
	}, {
		// α = 0.9, θ/θ0 = 1.2: θ = 7680 s. Eq. 18: 51.2e6/(125·7680) = 53.333;
		//   (64 − 53.333)/0.1 = 106.67, so the min caps N_s* at N_tot = 64, N_o = 0.
		// Eq. 15: 51.2e6/(125·0.9·64) = 51.2e6/7200 = 7111.11 s.
		// Eq. 16: price 0.9·64·0.158 = 9.1008 $/h; 7111.11·9.1008/3600 = $17.9769;
		//   ratio = (9.1008/7200)/(18.304/8000) = π_s/π_o = 0.55245.
		// Eq. 19: max{1.2 − 0.1438·0.2/0.0286, 0.158/0.286} = max{0.19441, 0.55245} = 0.55245.
		name: "Eq. 18 capped at N_tot", args: []string{"-deadline-ratio", "1.2"},
		ns: 64, theta: 7680, t0: 6400, rt: jkb / 7200, cost: jkb / 7200 * 9.1008 / 3600, od: od,
		bound: 0.158 / 0.286,
	}, {
		// θ = θ0 = 6400 s (-deadline 6400): Eq. 18: ⌊(64 − 64)/0.1⌋ = 0; the plan is
		// on demand only: runtime 6400 s, cost $32.5404, ratio 1.
		// Eq. 19: max{1 + 0, 0.552} = 1.
		name: "deadline θ0", args: []string{"-deadline", "6400"},
		ns: 0, theta: 6400, t0: 6400, rt: 6400, cost: od, od: od, bound: 1,
	}, {
		// One rate per worker: N_tot = 4, J·K·b = 100·2·10 = 2000 points,
		// λ = {40, 10, 30, 20} (sorted 10, 20, 30, 40: workers 1, 3, 2, 0),
		// Σλ = 100, θ0 = 2000/100 = 20 s, θ = 1.2·20 = 24 s, α = 0.5.
		// Eq. 21's denominator 100 − 0.5·Σ_{n≤N_s} λ_n: N_s = 0..4 → 100, 95, 85, 70, 50.
		// Lemma 2 (Eq. 23): 0.5·Σ_{n≤N_s} λ_n ≤ 100 − 2000/24 = 16.67, so N_s ≤ 2 (0.5·30 = 15).
		// Eq. 22: price (4 − N_s)·0.286 + 0.5·N_s·0.158 = 1.144 − 0.207·N_s $/h:
		//   N_s = 0, 1, 2 → 2000·{1.144/100, 0.937/95, 0.730/85}/3600
		//   = $0.0063556, $0.0054795, $0.0047712, decreasing, so N_s* = 2 (workers 1, 3).
		// Eq. 21: 2000/85 = 23.53 s ≤ 24 s; ratio (0.730/85)/(1.144/100) = 0.75072.
		// Corollary 2 gives no bound for one rate per worker: null.
		name: "list of rates", args: []string{"-ntot", "4", "-updates", "100", "-k", "2", "-batch", "10",
			"-lambda", "40,10,30,20", "-alpha", "0.5", "-deadline-ratio", "1.2"},
		ns: 2, pre: []int{1, 3}, theta: 24, t0: 20, rt: 2000.0 / 85,
		cost: 2000 * 0.730 / 85 / 3600, od: 2000 * 1.144 / 100 / 3600, bound: math.NaN(),
	}, {
		// U(5,45) for N_tot = 4 workers stands for the expected order
		// statistics 5 + 40·i/5 = 13, 21, 29, 37 (worker i has the i-th
		// smallest): Σλ = 100 again, θ0 = 20 s, θ = 24 s, α = 0.5.
		// Lemma 2 (Eq. 23): 0.5·Σ_{n≤N_s} λ_n ≤ 16.67, and 0.5·(13 + 21) = 17 breaks it:
		//   N_s ≤ 1 (Eq. 21 at N_s = 2: 2000/83 = 24.10 s > 24 s).
		// Eq. 22: N_s = 0, 1 → 2000·{1.144/100, 0.937/93.5}/3600 = $0.0063556, $0.0055668,
		//   so N_s* = 1 (worker 0); Eq. 21: 2000/93.5 = 21.39 s; ratio (0.937/93.5)/(1.144/100) = 0.87600.
		name: "U(5,45)", args: []string{"-ntot", "4", "-updates", "100", "-k", "2", "-batch", "10",
			"-lambda", "U(5,45)", "-alpha", "0.5", "-deadline-ratio", "1.2"},
		ns: 1, pre: []int{0}, theta: 24, t0: 20, rt: 2000.0 / 93.5,
		cost: 2000 * 0.937 / 93.5 / 3600, od: 2000 * 1.144 / 100 / 3600, bound: math.NaN(),
	}, {
		// The same as a range lo-hi, compare's -arrivals form: 5-45.
		name: "5-45", args: []string{"-ntot", "4", "-updates", "100", "-k", "2", "-batch", "10",
			"-lambda", "5-45", "-alpha", "0.5", "-deadline-ratio", "1.2"},
		ns: 1, pre: []int{0}, theta: 24, t0: 20, rt: 2000.0 / 93.5,
		cost: 2000 * 0.937 / 93.5 / 3600, od: 2000 * 1.144 / 100 / 3600, bound: math.NaN(),
	}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			pl, raw := provisionOut(t, c.args...)
			ntot := 64
			if c.pre != nil {
				ntot = 4
			}
			if pl.Ns != c.ns || pl.No != ntot-c.ns || pl.Ntot != ntot {
				t.Errorf("ns %d, no %d, ntot %d; want %d, %d, %d", pl.Ns, pl.No, pl.Ntot, c.ns, ntot-c.ns, ntot)
			}
			for _, v := range []struct {
				field     string
				got, want float64
			}{
				{"theta_s", pl.Theta, c.theta}, {"theta0_s", pl.Theta0, c.t0},
				{"deadline_ratio", pl.DeadlineRatio, c.theta / c.t0},
				{"expected_runtime_s", pl.ExpectedRuntime, c.rt}, {"expected_cost", pl.ExpectedCost, c.cost},
				{"ondemand_cost", pl.OnDemandCost, c.od}, {"cost_ratio", pl.CostRatio, c.cost / c.od},
			} {
				if !relClose(v.got, v.want) {
					t.Errorf("%s = %v; want %v", v.field, v.got, v.want)
				}
			}
			if pl.ExpectedRuntime > pl.Theta*(1+1e-9) {
				t.Errorf("expected_runtime_s %v exceeds theta_s %v", pl.ExpectedRuntime, pl.Theta)
			}
			if math.IsNaN(c.bound) {
				if string(raw["corollary2_bound"]) != "null" || string(raw["lambda"]) != "null" || pl.Method != "theorem5" ||
					!slices.Equal(pl.Preemptible, c.pre) || len(pl.Lambdas) != ntot {
					t.Errorf("corollary2_bound %s, lambda %s, method %q, preemptible %v, lambdas %v; want null, null, theorem5, %v, %d rates",
						raw["corollary2_bound"], raw["lambda"], pl.Method, pl.Preemptible, pl.Lambdas, c.pre, ntot)
				}
			} else {
				if pl.Corollary2Bound == nil || !relClose(*pl.Corollary2Bound, c.bound) {
					t.Errorf("corollary2_bound %s; want %v", raw["corollary2_bound"], c.bound)
				}
				// Corollary 2 bounds the ratio from below.
				if pl.Corollary2Bound != nil && pl.CostRatio < *pl.Corollary2Bound*(1-1e-9) {
					t.Errorf("cost_ratio %v below corollary2_bound %v", pl.CostRatio, *pl.Corollary2Bound)
				}
				if pl.Lambda == nil || *pl.Lambda != 125 || string(raw["lambdas"]) != "null" ||
					string(raw["preemptible"]) != "null" || pl.Method != "theorem4" {
					t.Errorf("lambda %s, lambdas %s, preemptible %s, method %q; want 125, null, null, theorem4",
						raw["lambda"], raw["lambdas"], raw["preemptible"], pl.Method)
				}
			}
			// The inputs are echoed.
			for _, k := range []string{"updates", "k", "batch", "lambda_spec", "alpha", "price_spot", "price_ondemand"} {
				if _, ok := raw[k]; !ok {
					t.Errorf("JSON has no %q", k)
				}
			}
		})
	}
}

// TestProvisionEchoesInputs: the JSON echoes every input flag.
func TestProvisionEchoesInputs(t *testing.T) {
	pl, _ := provisionOut(t, "-ntot", "3", "-updates", "7", "-k", "2", "-batch", "5", "-lambda", "1,2,3",
		"-alpha", "0.75", "-deadline", "30s", "-price-spot", "0.1", "-price-ondemand", "0.2")
	// θ0 = 7·2·5/(1 + 2 + 3) = 70/6 = 11.667 s; θ/θ0 = 30/(70/6) = 2.5714.
	if pl.Ntot != 3 || pl.Updates != 7 || pl.K != 2 || pl.Batch != 5 || pl.LambdaSpec != "1,2,3" ||
		!slices.Equal(pl.Lambdas, []float64{1, 2, 3}) || pl.Alpha != 0.75 || pl.PriceSpot != 0.1 ||
		pl.PriceOnDemand != 0.2 || pl.Theta != 30 || !relClose(pl.DeadlineRatio, 30/(70.0/6)) {
		t.Errorf("echoed inputs %+v", pl)
	}
}

// TestProvisionText: the text output's key lines, each with its number and
// the equation or theorem it comes from (numbers as in
// TestProvisionHandWorked). A line is found by its label, the text before
// the first two spaces; "inputs:" is the first line of the inputs and ""
// the indented lines after it.
func TestProvisionText(t *testing.T) {
	for _, c := range []struct {
		args  []string
		lines map[string][]string
	}{{
		args: []string{"provision"},
		lines: map[string][]string{
			"inputs:":          {"N_tot = 64 workers, J = 10000 updates of K = 20 batches of b = 256 points (J·K·b = 51200000)"},
			"":                 {"λ = 125 points/s per worker", "α = 0.9, π_s = $0.158/h spot (billed while available), π_o = $0.286/h on demand"},
			"plan":             {"N_s = 30 preemptible, N_o = 34 on demand", "Theorem 4, Eq. 18"},
			"expected runtime": {"6714.75 s (1h51m55s) = 1.0492·θ0", "Eq. 15"},
			"deadline":         {"θ = 6720 s (1h52m0s) = 1.0500·θ0", "input (-deadline-ratio)"},
			"θ0":               {"6400 s (1h46m40s), every worker on demand", "Corollary 2: J·K·b/(N_tot·λ)"},
			"expected cost":    {"$26.09", "Eq. 16"},
			"on-demand only":   {"$32.54 (N_s = 0)", "Eq. 16 at N_s = 0"},
			"cost ratio":       {"0.8019 (saves 19.81%)", "Eq. 16 ÷ on-demand only"},
			"Corollary 2":      {"0.7986, a lower bound on the cost ratio", "Eq. 19"},
		},
	}, {
		args: []string{"provision", "-ntot", "4", "-updates", "100", "-k", "2", "-batch", "10",
			"-lambda", "40,10,30,20", "-alpha", "0.5", "-deadline", "24"},
		lines: map[string][]string{
			"":                 {"one λ per worker, 10 to 40 points/s, Σλ = 100"},
			"plan":             {"N_s = 2 preemptible, N_o = 2 on demand", "Theorem 5's scan, Lemma 2 (Eq. 23)"},
			"preemptible":      {"workers 1, 3 (the 2 slowest)", "Eq. 20"},
			"expected runtime": {"23.5294 s = 1.1765·θ0", "Eq. 21"},
			"deadline":         {"θ = 24 s = 1.2000·θ0", "input (-deadline)"},
			"θ0":               {"20 s, every worker on demand", "J·K·b/Σλ (Eq. 21 at N_s = 0)"},
			"expected cost":    {"$0.004771", "Eq. 22"},
			"on-demand only":   {"$0.006356 (N_s = 0)", "Eq. 22 at N_s = 0"},
			"cost ratio":       {"0.7507 (saves 24.93%)", "Eq. 22 ÷ on-demand only"},
			"Corollary 2":      {"none with one rate per worker"},
		},
	}, {
		// U(1,250)'s expected order statistics for 64 workers: 1 + 249·i/65,
		// 4.83077 to 246.169, Σ = 64·251/2 = 8032.
		args: []string{"provision", "-lambda", "U(1,250)"},
		lines: map[string][]string{
			"":            {"λ ~ U(1, 250) per worker, planned on its expected order statistics, 4.83077 to 246.169 points/s, Σλ = 8032"},
			"preemptible": {"slowest)", "Eq. 20"},
		},
	}} {
		code, out, errs := runCmd(t, c.args...)
		if code != 0 || errs != "" {
			t.Fatalf("syncbench %s: exit %d, stderr %q", strings.Join(c.args, " "), code, errs)
		}
		byLabel := map[string][]string{}
		for l := range strings.SplitSeq(out, "\n") {
			label, _, _ := strings.Cut(strings.TrimLeft(l, " "), "  ")
			switch {
			case strings.HasPrefix(l, " "):
				label = ""
			case strings.HasPrefix(l, "inputs: "):
				label = "inputs:"
			}
			byLabel[label] = append(byLabel[label], l)
		}
		for label, parts := range c.lines {
			for _, w := range parts {
				if !slices.ContainsFunc(byLabel[label], func(l string) bool { return strings.Contains(l, w) }) {
					t.Errorf("syncbench %s: no line %q with %q:\n%s", strings.Join(c.args[1:], " "), label, w, out)
				}
			}
		}
	}
}

// TestProvisionBadInput: each bad input is one line on stderr naming the
// flag, exit status 2, nothing on stdout.
func TestProvisionBadInput(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want []string // each must appear in the one line
	}{
		{[]string{"-alpha", "1.5"}, []string{"-alpha 1.5", "[0, 1]"}},
		{[]string{"-alpha", "-0.1"}, []string{"-alpha -0.1", "[0, 1]"}},
		{[]string{"-alpha", "NaN"}, []string{"-alpha NaN"}},
		{[]string{"-lambda", "0"}, []string{"-lambda 0", "> 0"}},
		{[]string{"-lambda", "-125"}, []string{"-lambda -125", "> 0"}},
		{[]string{"-lambda", "NaN"}, []string{"-lambda NaN"}},
		{[]string{"-lambda", "Inf"}, []string{"-lambda Inf"}},
		{[]string{"-lambda", "fast"}, []string{`-lambda "fast"`, "not a number"}},
		{[]string{"-ntot", "3", "-lambda", "1,0,2"}, []string{`-lambda "1,0,2"`, "rate 2 is 0"}},
		{[]string{"-ntot", "3", "-lambda", "1,-2,2"}, []string{`-lambda "1,-2,2"`, "rate 2 is -2"}},
		{[]string{"-lambda", "1,2,3"}, []string{"-lambda", "3 rates for -ntot 64", "want one rate or 64"}},
		{[]string{"-ntot", "3", "-lambda", "1,,2"}, []string{`-lambda "1,,2"`, "stray comma"}},
		{[]string{"-lambda", "U(1,250"}, []string{`-lambda "U(1,250"`, "not U(lo,hi)"}},
		{[]string{"-lambda", "U(1;250)"}, []string{`-lambda "U(1;250)"`, "not U(lo,hi)"}},
		{[]string{"-lambda", "U(250,1)"}, []string{`-lambda "U(250,1)"`, "0 < lo ≤ hi"}},
		{[]string{"-lambda", "U(0,5)"}, []string{`-lambda "U(0,5)"`, "0 < lo ≤ hi"}},
		{[]string{"-lambda", "U(-1,5)"}, []string{`-lambda "U(-1,5)"`, "0 < lo ≤ hi"}},
		{[]string{"-lambda", "250-1"}, []string{`-lambda "250-1"`, "0 < lo ≤ hi"}},
		{[]string{"-lambda", "1-x"}, []string{`-lambda "1-x"`, "not two numbers"}},
		{[]string{"-lambda", "1-Inf"}, []string{`-lambda "1-Inf"`, "finite"}},
		{[]string{"-ntot", "4", "-lambda", "1,2,3,"}, []string{"-lambda", "3 rates for -ntot 4"}},
		{[]string{"-price-spot", "-0.1"}, []string{"-price-spot -0.1", "≥ 0"}},
		{[]string{"-price-spot", "NaN"}, []string{"-price-spot NaN"}},
		{[]string{"-price-ondemand", "-1"}, []string{"-price-ondemand -1", "> 0"}},
		{[]string{"-price-ondemand", "0"}, []string{"-price-ondemand 0", "> 0"}},
		{[]string{"-k", "0"}, []string{"-k 0", "≥ 1"}},
		{[]string{"-batch", "0"}, []string{"-batch 0", "≥ 1"}},
		{[]string{"-updates", "-3"}, []string{"-updates -3", "≥ 1"}},
		{[]string{"-ntot", "0"}, []string{"-ntot 0", "≥ 1"}},
		{[]string{"-ntot", "200000"}, []string{"-ntot 200000", "at most 100000"}},
		{[]string{"-deadline", "2h", "-deadline-ratio", "1.1"}, []string{"-deadline 2h and -deadline-ratio 1.1", "one of them"}},
		{[]string{"-deadline-ratio", "0"}, []string{"-deadline-ratio 0", "≥ 1"}},
		{[]string{"-deadline-ratio", "NaN"}, []string{"-deadline-ratio NaN"}},
		{[]string{"-deadline", "soon"}, []string{`-deadline "soon"`, "duration"}},
		{[]string{"-deadline", "-5"}, []string{"-deadline -5", "> 0"}},
		{[]string{"-deadline", "0s"}, []string{"-deadline 0s", "> 0"}},
		// A deadline below θ0 = 6400 s: no N_s meets it, not even N_s = 0.
		{[]string{"-deadline-ratio", "0.95"}, []string{"-deadline-ratio 0.95", "θ = 6080 s", "θ0 = 6400 s",
			"not even N_s = 0", "-deadline-ratio 1 or -deadline 6400"}},
		{[]string{"-deadline", "1h40m"}, []string{"-deadline 1h40m", "θ = 6000 s", "θ0 = 6400 s", "not even N_s = 0"}},
		// With rates per worker θ0 = J·K·b/Σλ = 2000/100 = 20 s.
		{[]string{"-ntot", "4", "-updates", "100", "-k", "2", "-batch", "10", "-lambda", "40,10,30,20", "-deadline", "19.5"},
			[]string{"-deadline 19.5", "θ0 = 20 s", "-deadline 20"}},
		// Flag-parser errors.
		{[]string{"-alpha", "high"}, []string{`invalid value "high" for flag -alpha`, "syncbench provision -h"}},
		{[]string{"-ntot", "1.5"}, []string{`invalid value "1.5" for flag -ntot`}},
		{[]string{"64"}, []string{`unexpected argument "64"`}},
	} {
		args := append([]string{"provision"}, tc.args...)
		code, out, errs := runCmd(t, args...)
		line := strings.TrimSuffix(errs, "\n")
		ok := code == 2 && out == "" && strings.HasPrefix(line, "syncbench provision: ") && !strings.Contains(line, "\n")
		for _, w := range tc.want {
			ok = ok && strings.Contains(line, w)
		}
		if !ok {
			t.Errorf("syncbench %s:\nexit %d, stdout %q, stderr %q;\nwant exit 2, nothing on stdout and one line with %q",
				strings.Join(args, " "), code, out, errs, tc.want)
		}
	}
}

// TestProvisionWorkerList: runs of worker indices are shortened.
func TestProvisionWorkerList(t *testing.T) {
	for _, c := range []struct {
		ws   []int
		want string
	}{{nil, "none"}, {[]int{3}, "3"}, {[]int{0, 1, 2}, "0-2"}, {[]int{0, 1, 3, 5, 6, 7, 9}, "0-1, 3, 5-7, 9"}} {
		if got := workerList(c.ws); got != c.want {
			t.Errorf("workerList(%v) = %q; want %q", c.ws, got, c.want)
		}
	}
}

// TestProvisionListened: the command is in the help's command list.
func TestProvisionListed(t *testing.T) {
	code, out, _ := runCmd(t, "-h")
	if code != 0 || !strings.Contains(out, "  provision ") {
		t.Errorf("syncbench -h: exit %d, no provision line:\n%s", code, out)
	}
	code, out, _ = runCmd(t, "provision", "-h")
	if code != 0 || !strings.Contains(out, "usage: syncbench provision [flags]") || !strings.Contains(out, "-deadline-ratio") {
		t.Errorf("syncbench provision -h: exit %d:\n%s", code, out)
	}
}

// BenchmarkProvision times one whole command, flags to printed plan, for
// §V-B's homogeneous setting and for U(1, 250) rates (Theorem 5's scan),
// text output; it reports the N_s planned (from one -json run after).
func BenchmarkProvision(b *testing.B) {
	for _, bc := range []struct {
		name string
		args []string
	}{
		{"lambda=125", []string{"provision"}},
		{"lambda=U(1,250)", []string{"provision", "-lambda", "U(1,250)"}},
		{"lambda=U(1,250)/ntot=100000", []string{"provision", "-lambda", "U(1,250)", "-ntot", "100000"}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				if code := run(bc.args, io.Discard, io.Discard); code != 0 {
					b.Fatalf("exit %d", code)
				}
			}
			var out strings.Builder
			var pl provisionPlan
			if code := run(append(bc.args, "-json"), &out, io.Discard); code != 0 {
				b.Fatalf("exit %d", code)
			}
			if err := json.Unmarshal([]byte(out.String()), &pl); err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(pl.Ns), "N_s")
		})
	}
}
