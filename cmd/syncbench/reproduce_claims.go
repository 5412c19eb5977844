package main

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
)

// The sentences of the reports that state a result. Each takes the
// numbers it speaks of and chooses its wording by comparing them, so that
// a report never says what its runs did not show; reproduce_claims_test.go
// feeds each one numbers that make it say the opposite.

// relWord compares x with ref: "below", "close to" (within 10%) or
// "above".
func relWord(x, ref float64) string {
	switch {
	case x < ref/1.1:
		return "below"
	case x > ref*1.1:
		return "above"
	}
	return "close to"
}

// countIf counts the values of vs for which keep holds.
func countIf(vs []float64, keep func(float64) bool) int {
	n := 0
	for _, v := range vs {
		if keep(v) {
			n++
		}
	}
	return n
}

// spanOf prints the range of vs with format f: "3" or "3–5".
func spanOf(vs []float64, f string) string {
	if len(vs) == 0 {
		return "—"
	}
	lo, hi := fmt.Sprintf(f, slices.Min(vs)), fmt.Sprintf(f, slices.Max(vs))
	if lo == hi {
		return lo
	}
	return lo + "–" + hi
}

// durSpan prints the range of ds.
func durSpan(ds []time.Duration) string {
	if len(ds) == 0 {
		return "—"
	}
	lo, hi := fmtDur(slices.Min(ds)), fmtDur(slices.Max(ds))
	if lo == hi {
		return lo
	}
	return lo + " – " + hi
}

// namedValue is a number that belongs to a workload or a run.
type namedValue struct {
	name string
	v    float64
}

// bspbSpeedupLine compares FSPV's largest exact speedups over BSPB, with
// stragglers and without, with the paper's (§6.2: up to 12× and 170×).
func bspbSpeedupLine(with, without []float64) string {
	part := func(v []float64, paper float64, setting string) string {
		if len(v) == 0 {
			return setting + ", no case where both reached the target"
		}
		hi := slices.Max(v)
		word := "below"
		if hi >= paper {
			word = "not below"
		}
		return fmt.Sprintf("%s up to %.2g× (%s the paper's %g×)", setting, hi, word, paper)
	}
	return "FSPV's speedups over BSPB: " + part(with, 12, "with stragglers") + "; " + part(without, 170, "without") + "."
}

// batchLine says which batches BSPV's pilots chose: counts by the
// shard's divisor (32 for 1/32 of a shard, 1 for the full shard) over n
// runs; pilots is how many candidates each pilot tried, at share of a
// run each.
func batchLine(counts map[int]int, n, pilots int, share float64) string {
	if n == 0 {
		return "No BSPV run. "
	}
	divs := slices.Collect(func(yield func(int) bool) {
		for d := range counts {
			if !yield(d) {
				return
			}
		}
	})
	slices.SortFunc(divs, func(a, b int) int { return cmp.Or(cmp.Compare(counts[b], counts[a]), cmp.Compare(b, a)) })
	var parts []string
	for i, d := range divs {
		what := fmt.Sprintf("1/%d of a shard", d)
		if d == 1 {
			what = "the full shard"
		}
		if i == 0 {
			parts = append(parts, fmt.Sprintf("%s in %d of its %d runs", what, counts[d], n))
		} else {
			parts = append(parts, fmt.Sprintf("%s in %d", what, counts[d]))
		}
	}
	return fmt.Sprintf("BSPV's pilots chose batches of %s; the pilots, %d runs of %.0f%% of a run each (%.0f%% in all), are not charged to it, while FSPV pays for its probes and rollbacks inside its run. ",
		strings.Join(parts, ", "), pilots, 100*share, 100*share*float64(pilots))
}

// bspvSpeedLine compares FSPV with BSPV: without stragglers against the
// paper's about 1.3×, and with stragglers; with and without are FSPV's
// exact speedups over BSPV.
func bspvSpeedLine(with, without []float64, tau time.Duration, slowdown float64) string {
	var s string
	if len(without) == 0 {
		s = "Without stragglers no case had both FSPV and BSPV reach the target"
	} else {
		g := geomean(without)
		s = fmt.Sprintf("Without stragglers FSPV was %.2g× as fast as BSPV (geometric mean of %d cases; BSPV was the faster in %d), %s the paper's figure, about 1.3×",
			g, len(without), countIf(without, func(v float64) bool { return v < 1 }), relWord(g, 1.3))
	}
	if len(with) == 0 {
		return s + "; with stragglers no case had both reach the target.\n"
	}
	k := countIf(with, func(v float64) bool { return v > 1 })
	s += fmt.Sprintf("; with stragglers FSPV was the faster in %d of %d cases (geometric mean %.2g×)", k, len(with), geomean(with))
	if 2*k > len(with) {
		s += fmt.Sprintf(", BSPV waiting at every barrier for the slowest worker (an Injected straggler's %v pauses, a Natural one's %g× slower points)", tau, slowdown)
	}
	return s + ".\n"
}

// stageLine says how far FSPV's stages moved: factors are the ratios of
// each stage's first probe to the one before.
func stageLine(factors []float64) string {
	if len(factors) == 0 {
		return "No FSPV run of the tables got past its first stage. "
	}
	s := slices.Clone(factors)
	slices.Sort(s)
	return fmt.Sprintf("In the FSPV runs of the tables a stage's first probe was %s× the one before (median %.2g; shorter in %d of %d stage changes). ",
		spanOf(factors, "%.2g"), s[len(s)/2], countIf(factors, func(v float64) bool { return v < 1 }), len(factors))
}

// aspLine is ASP's record: fastest in emFastest of the emPairs
// (synthetic EM workload, setting) pairs; on LR it reached the target in
// lrReached of lrRuns runs.
func aspLine(emFastest, emPairs, lrReached, lrRuns int) string {
	var s []string
	switch {
	case emPairs == 0:
	case emFastest > 0:
		s = append(s, fmt.Sprintf("It was the fastest system in %d of the %d (synthetic EM workload, setting) pairs: incremental EM tolerated that staleness on these well-separated clusters, where the paper saw K-means diverge under ASP (Fig. 14a).", emFastest, emPairs))
	default:
		s = append(s, fmt.Sprintf("It was the fastest system in none of the %d (synthetic EM workload, setting) pairs (the paper saw K-means diverge under ASP, Fig. 14a).", emPairs))
	}
	switch {
	case lrRuns == 0:
	case lrReached == 0:
		s = append(s, fmt.Sprintf("On LR it reached the target in none of its %d runs: its stale per-commit Adam steps stall above it, as in [compare.md](../compare.md).", lrRuns))
	default:
		s = append(s, fmt.Sprintf("On LR it reached the target in %d of its %d runs.", lrReached, lrRuns))
	}
	return strings.Join(s, " ")
}

// nmfLine: sending θ to the workers takes ratio times the compute of a
// full pass; NMF's workers wait lo–hi of the time.
func nmfLine(workers int, ratio, gbit, lo, hi float64) string {
	what := fmt.Sprintf("A release carries all of θ, including W's n × rank entries (each row's own factors, which only its worker needs): sending it to %d workers takes %.2g× the compute of a full pass at %.3g Gbit/s, whatever the sync model, and NMF's workers wait %.0f–%.0f%% of the time.",
		workers, ratio, gbit, 100*lo, 100*hi)
	if ratio >= 1 {
		return "- **NMF is bound by the coordinator's link.** " + what + " The NMF rows compare broadcasts more than barriers.\n"
	}
	return "- **NMF's releases.** " + what + "\n"
}

// spreadLine gives how far apart the final objectives of each workload's
// runs ended, relative to the best.
func spreadLine(spreads []namedValue) string {
	if len(spreads) == 0 {
		return ""
	}
	var s []string
	for _, sp := range spreads {
		s = append(s, fmt.Sprintf("%s %.2g%%", sp.name, 100*sp.v))
	}
	return "The final objectives of a workload's runs spread over (worst − best)/|best|: " + strings.Join(s, "; ") + "."
}

// semiCostLine is Fig. 13's conclusion: ratios (fspv+semi's cost per
// iteration over fspv's) range over lo–hi; moved are the workloads whose
// ratio left [0.9, 1.1].
func semiCostLine(lo, hi float64, moved []namedValue, latency, point time.Duration, slowdown float64) string {
	mech := fmt.Sprintf("In the simulator a worker computes until the coordinator's signal reaches it, so the signal's latency is not idle time; a worker's cost runs from its commit, through the commit's and the release's latencies (2 × %s) and the apply, and that is the same under local timers. What the timers can save is the spread of the workers' response delays (a Natural straggler finishes its point in progress %g× slower: %s).",
		fmtDur(latency), slowdown, fmtDur(time.Duration(float64(point)*slowdown)))
	if len(moved) == 0 {
		return fmt.Sprintf(" It ranges over %.2f–%.2f: the cost per iteration hardly moves here (within 10%%), unlike the paper's. %s The accumulated cost therefore follows the iterations, that is, the intervals FSPV's stages chose.", lo, hi, mech)
	}
	var m []string
	for _, v := range moved {
		m = append(m, fmt.Sprintf("%s %.2f", v.name, v.v))
	}
	return fmt.Sprintf(" It ranges over %.2f–%.2f, and moved by more than 10%% for %s. %s", lo, hi, strings.Join(m, "; "), mech)
}

// burstLine says why Fig. 12 needs larger shards: an Injected straggler
// trains bursts of every points between pauses, a fraction of the main
// table's shards.
func burstLine(every, mainShard int) string {
	jump := "a whole pass or more"
	if f := float64(every) / float64(mainShard); f < 1 {
		jump = fmt.Sprintf("%.2g of a pass or more", f)
	}
	return fmt.Sprintf("because an Injected straggler trains in bursts of %d points between pauses: on the %d-point shards of the main table, once migration has taken most of a straggler's points, its passes jump by %s at a time, too coarse for Eq. 8's ε to hold at an arbitrary instant (the paper's shards hold hundreds of thousands of points). ",
		every, mainShard, jump)
}

// MLLess.

// commLine says what a round costs here and how much of BSP's time on
// PMF is waiting (wait), with ISP's bytes per round relative to BSP's
// (ratio) and its speedup.
func commLine(point time.Duration, gbit float64, rtt, signal time.Duration, wait, ratio float64, sp speedup) string {
	title := "**Communication and compute.**"
	if wait >= 0.5 {
		title = "**Communication dominates here.**"
	}
	s := fmt.Sprintf("- %s Our cost model charges a round its compute (%s a rating), the store's bytes at %.3g Gbit/s, %s per store request and %s per signal, and 2 ns per entry aggregated — nothing for Python, (de)serialization, function start-up or the messaging service. ",
		title, fmtDur(point), gbit, fmtDur(rtt), fmtDur(signal))
	s += fmt.Sprintf("MLLess's BSP on PMF at %d workers waits %.0f%% of the time; ISP at v = %g sends %.2f× its bytes per round (speedup %s).", mllessBase, 100*wait, mllessISP, ratio, sp)
	if faster := sp.bound == 1 || sp.bound == 0 && sp.v > 1; wait >= 0.9 && faster {
		s += " In MLLess each round also pays fixed costs that the filter does not remove; here a round is almost all store traffic, so ISP's speedup can follow its byte saving and the rounds it needs more closely than MLLess's could."
	}
	return s + "\n"
}

// sspLine compares SSP with BSP at mllessBase workers: SSP's speedup
// over BSP, the store traffic of each (MB/s, of link), and ISP's
// speedups over SSP and BSP.
func sspLine(sspOverBSP speedup, rateSSP, rateBSP, link float64, ispOverSSP, ispOverBSP speedup) string {
	var s string
	gainsNothing := sspOverBSP.bound == -1 || sspOverBSP.bound == 0 && sspOverBSP.v <= 1.05
	switch {
	case gainsNothing:
		s = fmt.Sprintf("- **SSP gains nothing from its slack here** (%s over BSP). ", sspOverBSP)
	case sspOverBSP.bound == 2:
		s = "- **SSP against BSP**: neither reached the target. "
	default:
		s = fmt.Sprintf("- **SSP gains %s over BSP here.** ", sspOverBSP)
	}
	busy := "as busy as"
	switch {
	case rateSSP > 1.1*rateBSP:
		busy = "busier than"
	case rateSSP < rateBSP/1.1:
		busy = "less busy than"
	}
	s += fmt.Sprintf("SSP saves waiting, not bytes (every worker still fetches every update it missed, §6.4): at %d workers it kept the store's link %s BSP (%.0f MB/s against %.0f MB/s, of %.0f), and our workers are identical, so there is no straggler for the slack to hide.",
		mllessBase, busy, rateSSP, rateBSP, link)
	if gainsNothing {
		s += " MLLess's functions vary in speed, presumably where its SSP found its 1.1× over BSP."
	}
	if ispOverSSP.bound != 0 || ispOverBSP.bound != 0 {
		return s + fmt.Sprintf(" ISP over SSP: %s; over BSP: %s (the paper: 1.4–1.9× over SSP).\n", ispOverSSP, ispOverBSP)
	}
	like := "about"
	if q := ispOverSSP.v / ispOverBSP.v; q < 1/1.1 || q > 1.1 {
		like = "unlike"
	}
	where := "within"
	switch {
	case ispOverSSP.v > 1.9:
		where = "above"
	case ispOverSSP.v < 1.4:
		where = "below"
	}
	return s + fmt.Sprintf(" ISP's advantage over SSP (%s) is %s its advantage over BSP (%s) here, %s the paper's 1.4–1.9×.\n", ispOverSSP, like, ispOverBSP, where)
}

// poolLine is Fig. 9's trend: bytes per BSP round at each pool, and each
// model's times to target across the pools (-1: not reached).
func poolLine(pools []int, perRound []float64, models []string, times [][]time.Duration) string {
	var per []string
	grows := true
	for i, p := range pools {
		per = append(per, fmt.Sprintf("%s at %d", formatBytes(int64(perRound[i])), p))
		if i > 0 && perRound[i] <= perRound[i-1] {
			grows = false
		}
	}
	s := fmt.Sprintf("- **Every worker pulls every other's update.** With the global batch fixed, a round of BSP moves P(P − 1) workers' updates through the one store (%s per round)", strings.Join(per, ", "))
	if grows {
		s += ": the P(P − 1) GETs grow faster than the updates shrink."
	} else {
		s += "."
	}
	// How much each model slowed from the first pool to the last; a run
	// that did not reach the target counts as infinitely slow.
	var parts []string
	least, leastF := "", math.Inf(1)
	for m, name := range models {
		ts := times[m]
		var cells []string
		for _, t := range ts {
			cells = append(cells, fmtTTT(t))
		}
		parts = append(parts, name+" "+strings.Join(cells, " → "))
		a, b := ts[0], ts[len(ts)-1]
		if a < 0 {
			continue
		}
		f := math.Inf(1)
		if b >= 0 {
			f = b.Seconds() / a.Seconds()
		}
		if f < leastF {
			least, leastF = name, f
		}
	}
	s += fmt.Sprintf(" From %d to %d workers the time to target went: %s.", pools[0], pools[len(pools)-1], strings.Join(parts, "; "))
	switch {
	case least == "":
	case strings.HasPrefix(least, "isp"):
		s += fmt.Sprintf(" %s, whose updates are mostly empty, degraded least: the paper's Fig. 9 trend.", least)
	default:
		s += fmt.Sprintf(" %s degraded least, unlike the paper's Fig. 9, where ISP does.", least)
	}
	return s + "\n"
}

// lrDenseLine explains dense LR: params parameters, updates of
// updateBytes; a round's store requests (P − 1 GETs of rtt) against its
// bytes (bytesTime); ISP's speedup and messages per round; the longest
// time to target and most rounds of the sweep runs that reached it; and
// the shortfalls (share of the improvement the target asks for) of the
// runs that did not.
func lrDenseLine(params int, updateBytes float64, rtt, bytesTime time.Duration, speedup string, msgsBSP, msgsISP float64,
	maxTTT time.Duration, maxRounds int, shortfalls []float64, runs int) string {
	req := time.Duration(mllessBase-1) * rtt
	s := fmt.Sprintf("- **Dense LR has %d parameters**: an update is about %s, so a round costs ", params, formatBytes(int64(updateBytes)))
	if req > bytesTime {
		s += fmt.Sprintf("its store requests (%d GETs of %s, one after another: %s) more than its bytes (%s). ", mllessBase-1, fmtDur(rtt), fmtDur(req), fmtDur(bytesTime))
	} else {
		s += fmt.Sprintf("its bytes (%s) more than its store requests (%d GETs of %s: %s). ", fmtDur(bytesTime), mllessBase-1, fmtDur(rtt), fmtDur(req))
	}
	s += fmt.Sprintf("ISP's speedup there is %s at v = %g", speedup, mllessISP)
	if msgsISP < msgsBSP {
		s += fmt.Sprintf("; it saves requests (a worker with nothing significant skips its PUT and the others skip its GET): the messages per round fell from %.0f to %.0f. ", msgsBSP, msgsISP)
	} else {
		s += fmt.Sprintf("; its messages per round did not fall (%.0f against BSP's %.0f). ", msgsISP, msgsBSP)
	}
	if maxRounds > 0 {
		s += fmt.Sprintf("Its sweep runs that reached the target took at most %s of virtual time and %s", fmtDur(maxTTT), plural(maxRounds, "round"))
		if maxRounds <= 100 {
			s += ", so the snapshot grid (1/100 of the run) and a single round move its times by several percent"
		}
		s += "; "
	}
	if len(shortfalls) == 0 {
		return s + fmt.Sprintf("all %d of its sweep runs reached the target.\n", runs)
	}
	return s + fmt.Sprintf("%d of its %d sweep runs ended short of the target, by %s of the improvement it asks for (final losses in the details).\n",
		len(shortfalls), runs, spanOf(mapSlice(shortfalls, func(v float64) float64 { return float64(100 * v) }), "%.3g%%"))
}

// lrSparseLine explains hashed sparse LR: a batch of batch rows with nnz
// features over dim weights; bytesTime and reqTime are a BSP round's time
// for bytes and for store requests; ratio is ISP's bytes per round over
// BSP's; sparse and dense are ISP's speedups over BSP on sparse and
// dense LR.
func lrSparseLine(batch, nnz, dim int, bytesTime, reqTime time.Duration, ratio float64, sparse, dense speedup) string {
	s := fmt.Sprintf("- **Hashed sparse LR**: a batch of %d rows with %d hashed features makes up to %d feature updates over %d weights", batch, nnz, batch*nnz, dim)
	if bytesTime > reqTime {
		s += fmt.Sprintf(", so bytes dominate its rounds (%s against %s of store requests)", fmtDur(bytesTime), fmtDur(reqTime))
	} else {
		s += fmt.Sprintf(", yet its store requests cost a round more than its bytes (%s against %s)", fmtDur(reqTime), fmtDur(bytesTime))
	}
	verb := "cut them to"
	if ratio >= 1 {
		verb = "left them at"
	}
	s += fmt.Sprintf("; the filter %s %.2f× BSP's per round at v = %g (speedup %s). ", verb, ratio, mllessISP, sparse)
	switch {
	case sparse.bound != 0 || dense.bound != 0:
		s += fmt.Sprintf("On dense LR ISP's speedup was %s (the paper found ISP stronger on dense than on sparse LR).", dense)
	case sparse.v > dense.v:
		s += fmt.Sprintf("The paper found the reverse order (ISP stronger on dense than on sparse LR: Criteo's hashed updates \"lend themselves to little compression\"; here %s on dense); our synthetic weights are sparse (a tenth of the columns matter), so most accumulated changes stay insignificant.", dense)
	default:
		s += fmt.Sprintf("As in the paper, ISP gained less here than on dense LR (%s).", dense)
	}
	return s + "\n"
}

// tunedRun is what tunerLine needs of a run with the scale-in tuner.
type tunedRun struct {
	name                string
	evictions, decided  int // evictions; decisions that evaluated Eq. 1 or evicted at the knee
	negative, evaluated int // decisions with s_Δ < 0, of those that evaluated Eq. 1
	reached             bool
}

// tunerLine explains the auto-tuner's evictions.
func tunerLine(runs []tunedRun, s float64) string {
	var ev []string
	var evicted, decided, neg, eval int
	var stalled []string
	for _, r := range runs {
		ev = append(ev, fmt.Sprintf("%s: %d of %d decisions", r.name, r.evictions, r.decided))
		evicted += r.evictions
		decided += r.decided
		neg += r.negative
		eval += r.evaluated
		if r.evictions > 0 && !r.reached {
			stalled = append(stalled, fmt.Sprintf("%s (%d evicted)", r.name, r.evictions))
		}
	}
	if decided == 0 {
		return "- **The auto-tuner took no decision** in any run (it found no knee), so it evicted no one. "
	}
	title := "**The auto-tuner's evictions.**"
	if decided > 0 && 2*evicted >= decided {
		title = "**The auto-tuner keeps evicting.**"
	}
	out := fmt.Sprintf("- %s Removing a worker removes its P − 1 GETs from every round, so the step duration d_p falls with the pool and Eq. 1's s_Δ can go negative (the smaller pool is predicted to be *faster*), which with S = %g%% evicts. Here s_Δ was negative in %d of the %d decisions that evaluated Eq. 1; evictions by run: %s. ",
		title, 100*s, neg, eval, strings.Join(ev, "; "))
	if len(stalled) > 0 {
		out += fmt.Sprintf("The evicted workers' shards leave the training (MLLess does not redistribute them), so a pool evicted too far no longer reaches the target: %s did not reach it. ", strings.Join(stalled, ", "))
	} else if evicted > 0 {
		out += "The evicted workers' shards leave the training (MLLess does not redistribute them); every tuned run that evicted still reached the target. "
	}
	return out
}

// billingLine says why the bill is exact: shortest is the shortest time
// to target priced.
func billingLine(shortest time.Duration) string {
	s := "the bill is exact where the paper rounds to the second and to 100 ms"
	if shortest >= 0 && shortest < 10*time.Second {
		s += fmt.Sprintf(" (our times to target, %s at the shortest, are too short for that rounding not to dominate)", fmtDur(shortest))
	}
	return s
}

// plural writes n and the noun, with an s unless n is 1.
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// mapSlice applies f to each value of vs.
func mapSlice(vs []float64, f func(float64) float64) []float64 {
	out := make([]float64, len(vs))
	for i, v := range vs {
		out[i] = f(v)
	}
	return out
}
