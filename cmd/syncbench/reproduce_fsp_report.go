package main

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"

	"github.com/syncmodels/syncmodels/consistency"
	"github.com/syncmodels/syncmodels/harness"
	"github.com/syncmodels/syncmodels/internal/fpdet"
	"github.com/syncmodels/syncmodels/interval"
)

// comparison returns setting s of the case as a compare comparison, for
// compare's table and plot.
func (c *fspCase) comparison(s int) *comparison {
	cmp := &comparison{f: c.flags[s], alg: c.alg, d: c.d, initial: c.initial, best: c.best, target: c.target,
		derived: true, minimize: c.minimize, runs: c.runs[s]}
	for _, r := range c.runs[s] {
		cmp.ttt = append(cmp.ttt, c.ttt(r))
	}
	return cmp
}

// system returns the run of system name in setting s, nil if the report
// has no such system.
func (c *fspCase) system(s int, name string) *harness.Result {
	if i := slices.Index(fspSystems, name); i >= 0 {
		return c.runs[s][i]
	}
	return nil
}

// fspSweep is what the report says about one interval sweep.
type fspSweep struct {
	pass      time.Duration // P: a full-speed pass over a shard
	fullRound time.Duration // BSPB's mean round in the sweep setting
	probe     time.Duration // FSPV's first probe
	lo        time.Duration // FSPV's shortest interval (LinearFitConfig.Min)
	best      time.Duration // best time to target over the fixed η, -1 if none reached
	bestEta   time.Duration
	// bestIn and bestInEta are the best over the fixed η FSPV may choose
	// (η ≥ lo); bestIn is -1 if none of them reached the target.
	bestIn    time.Duration
	bestInEta time.Duration
	fspv      time.Duration // FSPV's time to target, -1 if not reached
	mainEta   time.Duration // the interval FSPV ran longest before its target (or the end)
	shares    []etaShare    // FSPV's intervals by time, longest first
	stages    int           // FSPV stages (probe pairs)
	probing   float64       // the share of that time FSPV spent in probes
	grid      time.Duration // the sweep's snapshot interval
	// The fields above are of the report's seed (the first); over every
	// seed of the sweep: ttts[k][i] is seed k's time to target at etas[i]
	// and fspvs[k] FSPV's (-1: not reached), med[i] and fspvMed their
	// medians, bestMed the least of med (-1 if every median is not
	// reached) at bestMedEta.
	ttts       [][]time.Duration
	fspvs      []time.Duration
	med        []time.Duration
	medStat    []seedStat // med's with their intervals
	fspvStat   seedStat
	fspvMed    time.Duration
	bestMed    time.Duration
	bestMedEta time.Duration
}

// tttStat summarises times to target over seeds (overSeeds, in
// nanoseconds), a run that did not reach the target (-1) counting as
// slower than any (+Inf).
func tttStat(ts []time.Duration) seedStat {
	xs := make([]float64, len(ts))
	for i, t := range ts {
		xs[i] = float64(t)
		if t < 0 {
			xs[i] = math.Inf(1)
		}
	}
	return overSeeds(xs)
}

// tttOf is a time to target of tttStat's, -1 for +Inf or NaN.
func tttOf(ns float64) time.Duration {
	if math.IsInf(ns, 1) || math.IsNaN(ns) {
		return -1
	}
	return time.Duration(ns)
}

// fmtTTTStat formats a median time to target and its interval.
func fmtTTTStat(st seedStat) string {
	return st.fmt(func(ns float64) string { return fmtTTT(tttOf(ns)) })
}

// etaShare is how long FSPV ran at one interval.
type etaShare struct {
	eta   time.Duration
	share float64
}

// firstProbe reports whether Intervals[i] of r is the first probe of a
// stage.
func firstProbe(r *harness.Result, i int) bool {
	return r.Intervals[i].Probe && (i == 0 || !r.Intervals[i-1].Probe)
}

func (c *fspCase) sweepSummary() fspSweep {
	f := c.sweepFlags
	sw := fspSweep{pass: shardPass(c.alg, f), best: -1, bestIn: -1, fspv: -1, grid: f.evalEvery}
	if b := c.system(fspSweepSetting, "bspb"); b != nil && b.Versions > 0 {
		sw.fullRound = b.Duration / time.Duration(b.Versions)
	}
	e := f.experiment(c.alg, consistency.Spec{Kind: consistency.FSP})
	e.Cost = withCostDefaults(e.Cost)
	cfg := linearFitConfig(c.alg, &e)
	sw.probe, sw.lo = cfg.Probe, cfg.Min
	sw.bestMed, sw.fspvMed = -1, -1
	for k, runs := range c.sweep {
		row := make([]time.Duration, len(runs))
		for i, r := range runs {
			row[i] = c.ttt(r)
		}
		sw.ttts = append(sw.ttts, row)
		sw.fspvs = append(sw.fspvs, c.ttt(c.sweepFSPV[k]))
	}
	for i := range c.etas {
		var col []time.Duration
		for _, row := range sw.ttts {
			col = append(col, row[i])
		}
		st := tttStat(col)
		m := tttOf(st.median)
		sw.med, sw.medStat = append(sw.med, m), append(sw.medStat, st)
		if m >= 0 && (sw.bestMed < 0 || m < sw.bestMed) {
			sw.bestMed, sw.bestMedEta = m, c.etas[i]
		}
	}
	sw.fspvStat = tttStat(sw.fspvs)
	sw.fspvMed = tttOf(sw.fspvStat.median)
	if len(c.sweep) == 0 {
		return sw
	}
	for i, t := range sw.ttts[0] {
		if t >= 0 && (sw.best < 0 || t < sw.best) {
			sw.best, sw.bestEta = t, c.etas[i]
		}
		if t >= 0 && c.etas[i] >= sw.lo && (sw.bestIn < 0 || t < sw.bestIn) {
			sw.bestIn, sw.bestInEta = t, c.etas[i]
		}
	}
	r := c.sweepFSPV[0]
	sw.fspv = sw.fspvs[0]
	end := r.Duration
	if sw.fspv >= 0 {
		end = sw.fspv
	}
	var total, probing time.Duration
	for i, iv := range r.Intervals {
		if iv.T >= end {
			break
		}
		if firstProbe(r, i) {
			sw.stages++
		}
		to := end
		if i+1 < len(r.Intervals) {
			to = min(r.Intervals[i+1].T, end)
		}
		if to <= iv.T {
			continue
		}
		total += to - iv.T
		if iv.Probe {
			probing += to - iv.T
		}
		// Intervals that print the same are one.
		if k := slices.IndexFunc(sw.shares, func(s etaShare) bool { return fmtDur(s.eta) == fmtDur(iv.Interval) }); k >= 0 {
			sw.shares[k].share += float64(to - iv.T)
		} else {
			sw.shares = append(sw.shares, etaShare{iv.Interval, float64(to - iv.T)})
		}
	}
	for i := range sw.shares {
		sw.shares[i].share /= float64(total)
	}
	if total > 0 {
		sw.probing = float64(probing) / float64(total)
	}
	slices.SortStableFunc(sw.shares, func(a, b etaShare) int {
		switch {
		case a.share > b.share:
			return -1
		case a.share < b.share:
			return 1
		}
		return 0
	})
	if len(sw.shares) > 0 {
		sw.mainEta = sw.shares[0].eta
	}
	return sw
}

// fmtTTT prints a time to target.
func fmtTTT(t time.Duration) string {
	if t < 0 {
		return "not reached"
	}
	return fmt.Sprintf("%.3f s", t.Seconds())
}

// speedup is how many times faster a (time to target ta) is than b (tb);
// when one of them did not reach the target within its run of length
// dur, it is a bound ("> x" or "< x"), and "n/a" when neither did.
type speedup struct {
	v     float64
	bound int // 0 exact, +1 lower bound (b not reached), −1 upper bound (a not reached), 2 neither reached
}

func speedupOf(ta, tb, dur time.Duration) speedup {
	switch {
	case ta >= 0 && tb >= 0:
		return speedup{v: tb.Seconds() / ta.Seconds()}
	case ta >= 0:
		return speedup{v: dur.Seconds() / ta.Seconds(), bound: 1}
	case tb >= 0:
		return speedup{v: tb.Seconds() / dur.Seconds(), bound: -1}
	}
	return speedup{bound: 2}
}

func (s speedup) String() string {
	switch s.bound {
	case 1:
		return fmt.Sprintf("> %.2g×", s.v)
	case -1:
		return fmt.Sprintf("< %.2g×", s.v)
	case 2:
		return "n/a"
	}
	return fmt.Sprintf("%.2g×", s.v)
}

// fspReport writes the Markdown.
type fspReport struct {
	f     *fspFlags
	scale fspScale
	cases []*fspCase // every workload, skipped ones included
	ran   []*fspCase // the workloads that ran
	migs  []*fspMigCase
	wall  time.Duration
	markdown
}

func writeFSPReport(f *fspFlags, scale fspScale, cases []*fspCase, migs []*fspMigCase, wall time.Duration) error {
	r := &fspReport{f: f, scale: scale, cases: cases, migs: migs, wall: wall}
	for _, c := range cases {
		if c.note == "" {
			r.ran = append(r.ran, c)
		}
	}
	figs := filepath.Join(f.out, "fsp")
	if err := os.MkdirAll(figs, 0o755); err != nil {
		return err
	}
	if err := r.figures(figs); err != nil {
		return err
	}
	if err := r.csv(filepath.Join(figs, "runs.csv")); err != nil {
		return err
	}
	if err := r.fig12Figures(figs); err != nil {
		return err
	}
	if err := r.fig12CSV(filepath.Join(figs, "fig12.csv")); err != nil {
		return err
	}
	r.header()
	r.setup()
	r.runtime()
	r.intervals()
	r.fig12()
	r.fig13()
	r.missing()
	r.details()
	return os.WriteFile(filepath.Join(f.out, "fsp.md"), []byte(r.String()), 0o644)
}

// command is the command line that regenerates the report.
func (r *fspReport) command() string { return reproduceCommand("fsp", r.f.args) }

func (r *fspReport) header() {
	r.p("# FSP §6 reproduced in virtual time\n\n")
	r.p("Generated by `syncbench reproduce fsp`; do not edit by hand. Regenerate with\n\n")
	r.p("```sh\n%s\n```\n\n", r.command())
	r.p("Seed %d. Wall time: %s on %d CPUs (GOMAXPROCS) — the only number in this report that depends on the machine.\n\n",
		r.f.seed, r.wall.Round(time.Second), runtime.GOMAXPROCS(0))
	if r.f.quick {
		r.p("> **-quick**: tiny data sets and runs that only check the pipeline. The numbers below mean little; run without -quick for the report.\n\n")
	}
	r.p("The paper: Zhigang Wang et al., \"FSP: Towards Flexible Synchronous Parallel Frameworks for Distributed Machine Learning\", IEEE TPDS 2022 (the Flegel system), §6 — Figs. 7 and 8 (runtime with and without stragglers), Figs. 11 and 12 (data migration, FSPV+opt), Fig. 13 (semi-centralized coordination) and Fig. 15 (runtime against the barrier interval). ")
	r.p("Every run here is a `harness` run on the **virtual clock**: every delta is really computed and applied, but time comes from a cost model, not from this machine, so the same command and seed write the same tables and figures anywhere (a test regenerates the -quick report twice and compares the bytes). ")
	r.p("Each run is exactly what `syncbench compare` runs with the flags listed under *Setup* (the same presets for bspb, bspv, fspb and fspv; see [compare.md](../compare.md) and [runtimes.md](../runtimes.md)).\n\n")
}

func (r *fspReport) setup() {
	f0 := r.firstFlags()
	r.p("## Setup\n\n")
	r.p("- **Cluster**: %d workers, one contiguous shard each, and a coordinator (the paper: 16 workers on 4 of 8 four-core machines, Gigabit Ethernet). ", f0.workers)
	r.p("%s", r.costModel(f0))
	r.p("- **Stragglers** (§6.1), drawn from the seed, the same workers in every run: *Injected*: %s; *Natural*: %s; and none (Fig. 8).\n",
		r.stragglers(0), r.stragglers(1))
	r.p("- **Systems** (§6.1): `bspb` full-batch BSP; `bspv` mini-batch BSP, batch chosen by a pilot of %.0f%% of the run for each of 1/32 … 1/1 of a shard (not charged to the run: it favours BSPV); ", 100*bspvPilotShare)
	r.p("`asp` asynchronous, each worker committing 1/32 of its shard at a time (the paper's finer ASP, §6.4); `fspb` FSP with the binary-search interval tuner, η0 measured by a full-batch round and capped at P, η at least the shortest interval the cost model allows (one point's time, or twice the longest apply if that is longer); `fspv` FSP with the multi-stage linear-fit tuner (the first stage probes at P/64 and P/32, P the time of a full-speed pass over a shard; each later stage probes next to the η* of the stage before: at η*/√2 and √2·η* if that fit chose η* between its probes, at η*/2 and η* (η* and 2η*) if it moved below (above) them; η* within 4× of the stage's probes and between that shortest interval and P; the prediction checked every 16 iterations, and over twice the last stage's window (up to 64 iterations) when a stage's η* lies within √2 of the last one's; its probes and rollbacks are charged to the run, and the objective snapshots taken during a rolled-back probe show the checkpoint's parameters); `fspv+opt` FSPV+opt (§6): FSPV with asynchronous data migration and semi-centralized timers (see the Fig. 12 section).\n")
	r.p("- **Target** (one per workload, the same for its %d runs): `f0 − %g·(f0 − best)`, with f0 the objective at θ0 and *best* the best final objective over the workload's runs in all three settings — `syncbench compare`'s derived target, pooled over the settings so that times compare across them. ",
		len(fspSystems)*len(fspSettings), targetFraction)
	finer := ""
	if r.scale.sweepSnapshots > 100 {
		finer = " (the Fig. 15 sweep uses a finer one)"
	}
	r.p("(The paper presets a target objective, §5.3.) The time to target is the first objective snapshot at or past it; snapshots are 1/100 of the run apart, so times are rounded up to that grid%s. A run that never gets there within its run length is *not reached*.\n", finer)
	r.p("- **Speedups** are ratios of times to target when both runs reached it. When only one did, the ratio is a bound that uses the other's run length as its time (`> x`: the faster system reached, the other did not; `< x`: the other way round); `n/a` when neither did.\n\n")
	r.p("**Workloads.** Synthetic stand-ins with the dimensions of the paper's smaller data sets (*SDT*, §6.1; NMF's matrix narrower) but far fewer points, so that the whole report runs in minutes on two cores; and Fashion-MNIST (not in the paper, which uses MNIST only for its CNN) when installed. The synthetic blobs have as many clusters as the models fit.\n\n")
	rows := [][]string{{"workload", "paper's data set (P×D)", "here", "model", "shard (pass P)", "run length", "snapshot every"}}
	for _, c := range r.cases {
		if c.note != "" {
			rows = append(rows, []string{c.w.label, c.w.paper, "skipped: " + c.note, "", "", "", ""})
			continue
		}
		f := c.flags[0]
		shard := fmt.Sprintf("%d (%s)", c.alg.NumPoints()/f.workers, fmtDur(shardPass(c.alg, f)))
		rows = append(rows, []string{c.w.label, c.w.paper, c.d.describe(), r.model(c), shard, f.duration.String(), f.evalEvery.String()})
	}
	r.table(rows)
	r.p("\nEach workload's `syncbench compare` flags (plus the data set above, `-seed %d`, `-sync %s` and the straggler flags):\n\n", r.f.seed, strings.Join(fspSystems, ","))
	for _, c := range r.ran {
		r.p("- %s: `%s`\n", c.w.label, strings.Join(c.w.args, " "))
	}
	r.p("\n")
}

// costModel is the setup's cost-model sentence: -profile's costs per
// workload, or compare's fixed defaults.
func (r *fspReport) costModel(f0 *compareFlags) string {
	p := r.f.profile
	if p == nil {
		return fmt.Sprintf("**Cost model**: %v of compute per data point on a full-speed worker — the same for every algorithm and dimension —, %v message latency, %.3g Gbit/s links at the coordinator shared by all workers (%.3g× the paper's Gigabit), 2 ns per entry merged by an apply. Objective evaluations are off the clock.\n",
			f0.pointCost, f0.latency, f0.bandwidth*8/1e9, f0.bandwidth*8/1e9)
	}
	var costs, applies []string
	for _, c := range r.ran {
		costs = append(costs, fmt.Sprintf("%s %v", c.w.short, c.flags[0].pointCost))
		applies = append(applies, fmt.Sprintf("%s %v", c.w.short, c.flags[0].entryCost))
	}
	return fmt.Sprintf("**Cost model**: the cost profile `%s` (measured %s on %s, %s/%s; see [calibrate.md](../calibrate.md)) with a core per worker: compute per data point %s; an apply per entry %s; in-process messages %v latency, %v each and %.3g Gbit/s. Objective evaluations are off the clock.\n",
		r.f.profilePath, p.Date, p.Machine.CPU, p.Machine.GOOS, p.Machine.GOARCH, strings.Join(costs, ", "), strings.Join(applies, ", "), f0.latency, f0.messageCost, f0.bandwidth*8/1e9)
}

// firstFlags returns the compare flags of the first workload that ran, or
// compare's defaults when none did.
func (r *fspReport) firstFlags() *compareFlags {
	if len(r.ran) > 0 {
		return r.ran[0].flags[0]
	}
	f, _ := fspWorkloads(r.scale, "")[0].flagsFor(fspSettings[0], r.f.seed, fspSystems)
	return f
}

func (r *fspReport) stragglers(s int) string {
	if len(r.ran) == 0 {
		return strings.Join(fspSettings[s].args, " ")
	}
	return r.ran[0].comparison(s).stragglerLine()
}

// model describes the algorithm's settings.
func (r *fspReport) model(c *fspCase) string {
	f := c.flags[0]
	switch f.algo {
	case "kmeans", "fcm", "gmm":
		return fmt.Sprintf("%s, k = %d, %s seeds", f.algo, f.k, f.init)
	case "nmf":
		return fmt.Sprintf("nmf, rank %d, syncbench's default optimizer (Adam)", f.rank)
	}
	s := fmt.Sprintf("logreg, Adam %g, λ = 1e-4", f.lr)
	if f.positive >= 0 {
		s += fmt.Sprintf(", class %d vs rest", f.positive)
	}
	return s
}

func (r *fspReport) runtime() {
	r.p("## Runtime with and without stragglers (Figs. 7 and 8)\n\n")
	if len(r.ran) == 0 {
		r.p("No workload ran.\n\n")
		return
	}
	r.p("Virtual time to each workload's target; the fastest in each row is in bold. ")
	r.p("BSPV's chosen batch and every run's final objective, iterations, wait and bytes are under *Per-run details*.\n\n")
	for s, set := range fspSettings {
		r.p("**%s** (%s)\n\n", set.label, r.settingLine(s))
		rows := [][]string{append([]string{"workload", "target"}, fspSystems...)}
		for _, c := range r.ran {
			row := []string{c.w.label, fmt.Sprintf("%.6g", c.target)}
			best := time.Duration(-1)
			for _, run := range c.runs[s] {
				if t := c.ttt(run); t >= 0 && (best < 0 || t < best) {
					best = t
				}
			}
			for _, run := range c.runs[s] {
				t := c.ttt(run)
				cell := fmtTTT(t)
				if t >= 0 && t == best {
					cell = "**" + cell + "**"
				}
				row = append(row, cell)
			}
			rows = append(rows, row)
		}
		r.table(rows)
		r.p("\n")
	}
	r.p("![Fig. 7 here: time to target with Injected and Natural stragglers](fsp/fig7.png)\n\n")
	r.p("![Fig. 8 here: time to target without stragglers](fsp/fig8.png)\n\n")
	r.p("Objective against time, per workload and setting: %s.\n\n", r.curveLinks())
	r.speedups()
}

func (r *fspReport) settingLine(s int) string {
	if s == fspNoStragglers {
		return "Fig. 8"
	}
	return "Fig. 7: " + r.stragglers(s)
}

func (r *fspReport) curveLinks() string {
	var ls []string
	for _, c := range r.ran {
		ls = append(ls, fmt.Sprintf("[%s](fsp/curves-%s.png)", c.w.label, c.w.key))
	}
	return strings.Join(ls, ", ")
}

// speedups writes FSPV's speedups and what the paper claims.
func (r *fspReport) speedups() {
	r.p("### FSPV's speedups\n\n")
	r.p("Time to target of the other system divided by FSPV's (above 1: FSPV is faster).\n\n")
	others := []string{"bspv", "bspb", "fspb"}
	hdr := []string{"workload"}
	for _, o := range others {
		for _, s := range fspSettings {
			hdr = append(hdr, fmt.Sprintf("over %s, %s", strings.ToUpper(o), s.label))
		}
	}
	rows := [][]string{hdr}
	for _, c := range r.ran {
		row := []string{c.w.label}
		for _, o := range others {
			for s := range fspSettings {
				row = append(row, speedupOf(c.ttt(c.system(s, "fspv")), c.ttt(c.system(s, o)), c.flags[s].duration).String())
			}
		}
		rows = append(rows, row)
	}
	ranges := r.fspvSpeedups()
	r.table(rows)
	r.p("\n")
	span := func(v []float64) string {
		if len(v) == 0 {
			return "no case where both reached the target"
		}
		return fmt.Sprintf("%.2g–%.2g× (%d cases where both reached the target; geometric mean %.2g×)", slices.Min(v), slices.Max(v), len(v), geomean(v))
	}
	rows = [][]string{{"FSPV over", "paper, with stragglers", "here, with stragglers", "paper, without", "here, without"}}
	rows = append(rows,
		[]string{"BSPV", "1.3–78×", span(ranges["bspv"][0]), "about 1.3× on average (over all competitors)", span(ranges["bspv"][1])},
		[]string{"BSPB", "1.5–12× (our reading of §6.2's \"up to 12X (from 1.5X) and 170X (from 3.4X) in the two scenarios\")", span(ranges["bspb"][0]), "3.4–170× (same reading)", span(ranges["bspb"][1])},
		[]string{"FSPB", "1.0–3.0×", span(ranges["fspb"][0]), "about 1.3× on average", span(ranges["fspb"][1])},
	)
	r.table(rows)
	r.p("\n")
	r.gaps()
}

// fspNoStragglers is the setting without stragglers (Fig. 8).
const fspNoStragglers = 2

// fspvSpeedups are FSPV's exact speedups (both runs reached the target)
// over bspv, bspb and fspb, by system: [0] with stragglers, [1] without.
func (r *fspReport) fspvSpeedups() map[string][2][]float64 {
	out := map[string][2][]float64{}
	for _, c := range r.ran {
		for _, o := range []string{"bspv", "bspb", "fspb"} {
			rg := out[o]
			for s := range fspSettings {
				sp := speedupOf(c.ttt(c.system(s, "fspv")), c.ttt(c.system(s, o)), c.flags[s].duration)
				if sp.bound != 0 {
					continue
				}
				k := 0
				if s == fspNoStragglers {
					k = 1
				}
				rg[k] = append(rg[k], sp.v)
			}
			out[o] = rg
		}
	}
	return out
}

func geomean(v []float64) float64 {
	s := 0.0
	for _, x := range v {
		s += fpdet.Log(x)
	}
	return fpdet.Exp(s / float64(len(v)))
}

// gaps explains the differences from the paper: counts and tuner
// behaviour measured on the runs, then what in this setup causes them.
func (r *fspReport) gaps() {
	r.p("### Why the numbers differ from the paper's\n\n")
	fastest := make([]int, len(fspSystems))
	reached := make([]int, len(fspSystems))
	pairs := 0
	for _, c := range r.ran {
		for s := range fspSettings {
			pairs++
			for j, run := range c.runs[s] {
				if c.ttt(run) >= 0 {
					reached[j]++
				}
			}
			for _, j := range c.fastest(s) {
				fastest[j]++
			}
		}
	}
	var fs, rs []string
	for j, sys := range fspSystems {
		fs = append(fs, fmt.Sprintf("%s %d", sys, fastest[j]))
		rs = append(rs, fmt.Sprintf("%s %d", sys, reached[j]))
	}
	r.p("**Measured.** Over the %d (workload, setting) pairs, the fastest to the target (ties count for each) was: %s; the target was reached at all by: %s (of %d each). ",
		pairs, strings.Join(fs, ", "), strings.Join(rs, ", "), pairs)
	r.p("%s %s\n\n", r.fspbLine(), r.fspvLine())
	r.p("%s\n\n", r.gapBullets())
}

// fastest returns the indexes (fspSystems order) of the systems fastest
// to the target in setting s, ties included; none if no run reached it.
func (c *fspCase) fastest(s int) []int {
	best, who := time.Duration(-1), []int{}
	for j, run := range c.runs[s] {
		t := c.ttt(run)
		switch {
		case t < 0:
		case best < 0 || t < best:
			best, who = t, []int{j}
		case t == best:
			who = append(who, j)
		}
	}
	return who
}

// fspbLine says where FSPB's binary search stopped, and how BSPB's
// full-batch round compared with P.
func (r *fspReport) fspbLine() string {
	var withS, capped, without, minHit int
	var lows []string
	var rounds []float64 // BSPB's mean round ÷ P, with stragglers
	for _, c := range r.ran {
		pass := shardPass(c.alg, c.flags[0])
		for s := range fspSettings {
			if b := c.system(s, "bspb"); s != fspNoStragglers && b != nil && b.Versions > 0 {
				rounds = append(rounds, float64(b.Duration/time.Duration(b.Versions))/float64(pass))
			}
			run := c.system(s, "fspb")
			if run == nil || len(run.Intervals) == 0 {
				continue
			}
			eta := run.Intervals[len(run.Intervals)-1].Interval
			if s == fspNoStragglers {
				without++
				if eta < pass/16 {
					minHit++
					lows = append(lows, fmt.Sprintf("%s %s", c.w.label, fmtDur(eta)))
				}
				continue
			}
			withS++
			if eta >= pass {
				capped++
			}
		}
	}
	if withS+without == 0 {
		return ""
	}
	line := "FSPB measures η0 as a full-batch round and caps it at a fast worker's pass P (a longer η ends every round by the early trigger, so it behaves like P)"
	if len(rounds) > 0 {
		line += fmt.Sprintf("; with stragglers BSPB's mean full-batch round was %s× P", spanOf(rounds, "%.2g"))
	}
	line += fmt.Sprintf(", and FSPB kept η = P in %d of its %d runs with stragglers.", capped, withS)
	if minHit > 0 {
		line += fmt.Sprintf(" Without stragglers it halved η below P/16 in %d of %d runs (%s).", minHit, without, strings.Join(lows, ", "))
	}
	return line
}

// fspvLine summarizes FSPV's stages and intervals.
func (r *fspReport) fspvLine() string {
	var stages, runs int
	var secs, atMax, probing, total float64
	for _, c := range r.ran {
		for s := range fspSettings {
			run := c.system(s, "fspv")
			if run == nil {
				continue
			}
			e := c.flags[s].experiment(c.alg, consistency.Spec{Kind: consistency.FSP})
			e.Cost = withCostDefaults(e.Cost)
			hi := linearFitConfig(c.alg, &e).Max
			runs++
			secs += run.Duration.Seconds()
			for i, iv := range run.Intervals {
				if firstProbe(run, i) {
					stages++
				}
				to := run.Duration
				if i+1 < len(run.Intervals) {
					to = run.Intervals[i+1].T
				}
				total += (to - iv.T).Seconds()
				switch {
				case iv.Probe:
					probing += (to - iv.T).Seconds()
				case iv.Interval == hi:
					atMax += (to - iv.T).Seconds()
				}
			}
		}
	}
	if runs == 0 || total == 0 {
		return ""
	}
	return fmt.Sprintf("FSPV began a new stage (a checkpoint, two iterations at η_i that are rolled back, two at 2η_i, a new fit) %.0f times per virtual second on average; it spent %.0f%% of its time in these probes and %.0f%% at its upper bound P, where rounds end by the early trigger.",
		float64(stages)/secs, 100*probing/total, 100*atMax/total)
}

// gapBullets explains what in this setup differs from the paper's and
// which way it moves the numbers, with the measurements that show it.
func (r *fspReport) gapBullets() string {
	var b strings.Builder
	b.WriteString("**What differs from the paper, and which way it pushes the numbers.**\n\n")
	sp := r.fspvSpeedups()
	f0 := r.firstFlags()
	b.WriteString("- **Small shards, cheap passes.** The paper's shards hold 300,000–700,000 points, so a full pass takes seconds, a straggler pauses hundreds of times per pass and BSPB makes one update every few seconds (\"BSPB consistently works the worst\", §6.2). ")
	var shards []float64
	var passes, rounds []time.Duration
	var early []string
	for _, c := range r.ran {
		f := c.flags[0]
		shards = append(shards, float64(c.alg.NumPoints()/f.workers))
		passes = append(passes, shardPass(c.alg, f))
		best := time.Duration(-1)
		for s, rs := range c.runs {
			if bb := c.system(s, "bspb"); bb != nil && bb.Versions > 0 {
				rounds = append(rounds, bb.Duration/time.Duration(bb.Versions))
			}
			for _, run := range rs {
				if t := c.ttt(run); t >= 0 && (best < 0 || t < best) {
					best = t
				}
			}
		}
		if best >= 0 && best <= 2*f.evalEvery {
			early = append(early, c.w.label)
		}
	}
	fmt.Fprintf(&b, "Here a shard holds %s points and a pass takes %s of virtual time; BSPB's mean round lasted %s. %s",
		spanOf(shards, "%.0f"), durSpan(passes), durSpan(rounds), bspbSpeedupLine(sp["bspb"][0], sp["bspb"][1]))
	if len(early) > 0 {
		verb := "reaches"
		if len(early) > 1 {
			verb = "reach"
		}
		fmt.Fprintf(&b, " %s %s the target within two snapshots under the fastest system, so those rows mostly measure the first rounds and are rounded to the snapshot grid.", strings.Join(early, ", "), verb)
	}
	gbit := f0.bandwidth * 8 / 1e9
	fmt.Fprintf(&b, "\n- **Cheap barriers, free pilots.** A barrier costs only latency, bandwidth (%.3g Gbit/s, %.3g× the paper's Gigabit) and merge time: no JVM, no garbage collection, no network jitter. ", gbit, gbit)
	b.WriteString(r.bspvBatches())
	b.WriteString(bspvSpeedLine(sp["bspv"][0], sp["bspv"][1], f0.tau, f0.slowdown))
	b.WriteString("- **FSPV's interval.** FSPV fits g(η) linearly between its two probes and maximizes Eq. 7 within 4× of them; each new stage probes next to the last η*, on the side the last fit moved it to, so that the stages can walk towards an optimum far from the first probe (our reading of §3.3, whose footnote sets every η_i to a user value, 200 ms by default). A quality that falls like 1/η (progress per iteration roughly constant, as with Adam's steps) bends away from the line through η_i and 2η_i, so the fit puts η* near its probes. ")
	b.WriteString(stageLine(r.stageFactors()))
	if cfg, ok := r.linearFitConfig(); ok {
		fmt.Fprintf(&b, "A stage ends when progress falls 20%% behind its prediction, and each begins with two rolled-back iterations; a stage whose η* lies within √2 of the last stage's checks its prediction over twice the last window (%d iterations, up to %d), so that stages lengthen while the fits agree. ", cfg.Window, cfg.MaxWindow)
	}
	b.WriteString("When both probes lose (near the end, where two iterations' progress can be smaller than the noise of the sampled objective), the stage does not extrapolate the two losses: it falls back to the probe that loses least per second and probes again after one window. ")
	var sws []string
	for _, c := range r.ran {
		if len(c.sweep) == 0 {
			continue
		}
		sw := c.sweepSummary()
		if sw.best < 0 {
			continue
		}
		best := fmt.Sprintf("the best fixed η (%s)", r.passFrac(sw.bestEta, sw.pass))
		if sw.fspv >= 0 {
			sws = append(sws, fmt.Sprintf("for %s FSPV took %.2f× the time of %s on seed %d", c.w.label, sw.fspv.Seconds()/sw.best.Seconds(), best, c.sweepSeeds[0]))
		} else {
			sws = append(sws, fmt.Sprintf("for %s FSPV did not reach the target on seed %d and %s did", c.w.label, c.sweepSeeds[0], best))
		}
		if sw.fspvMed >= 0 && sw.bestMed >= 0 {
			sws[len(sws)-1] += fmt.Sprintf(", and %.2f× the best median over %d seeds (%s)", sw.fspvMed.Seconds()/sw.bestMed.Seconds(), len(c.sweepSeeds), r.passFrac(sw.bestMedEta, sw.pass))
		}
	}
	if len(sws) > 0 {
		fmt.Fprintf(&b, "In the sweep below, %s; the paper's Fig. 15 has FSPV close to the optimum.", strings.Join(sws, "; "))
	}
	fmt.Fprintf(&b, "\n- **ASP** commits 1/32 of a shard at a time and applies each commit as its own server step. %s\n", r.aspRecord())
	for _, c := range r.ran {
		if c.flags[0].algo != "nmf" {
			continue
		}
		lo, hi := 1.0, 0.0
		for _, rs := range c.runs {
			for _, run := range rs {
				lo, hi = math.Min(lo, run.WaitFraction), math.Max(hi, run.WaitFraction)
			}
		}
		f := c.flags[0]
		bcast := float64(f.workers*c.alg.Layout().Params*8) / f.bandwidth
		b.WriteString(nmfLine(f.workers, bcast/shardPass(c.alg, f).Seconds(), f.bandwidth*8/1e9, lo, hi))
	}
	fmt.Fprintf(&b, "- **Local optima.** Runs that take different paths can end in different local optima, and the target is %.0f%% of the best final's improvement: a run that settles in a worse optimum is *not reached* however fast it converged. The synthetic EM sets are drawn with as many clusters as the models fit, to make one optimum likely. %s",
		100*targetFraction, spreadLine(r.finalSpreads()))
	return b.String()
}

// bspvBatches says which batches BSPV's pilots chose in the table's runs.
func (r *fspReport) bspvBatches() string {
	counts := map[int]int{}
	n, pilots := 0, 0
	for _, c := range r.ran {
		for s := range fspSettings {
			run := c.system(s, "bspv")
			var b int
			if run == nil {
				continue
			}
			if _, err := fmt.Sscanf(run.Name, "bspv(b=%d)", &b); err != nil || b <= 0 {
				continue
			}
			counts[batchDivisor(c.alg.NumPoints()/c.flags[s].workers, b)]++
			n++
		}
		pilots = max(pilots, len(batchCandidates(c.alg, c.flags[0].workers)))
	}
	return batchLine(counts, n, pilots, bspvPilotShare)
}

// batchDivisor returns d such that batch b is shard/d of batchCandidates
// (the largest such d: a small shard makes several candidates equal), or
// the nearest whole ratio if b is none of them.
func batchDivisor(shard, b int) int {
	for _, d := range []int{32, 16, 8, 4, 2, 1} {
		if shard/d == b {
			return d
		}
	}
	return max(int(math.Round(float64(shard)/float64(b))), 1)
}

// bspvPilotShare is the share of a run each of BSPV's pilots takes
// (compareFlags.experimentFor).
const bspvPilotShare = 0.1

// stageFactors are, over the FSPV runs of the tables, the ratios of each
// stage's first probe to the one before.
func (r *fspReport) stageFactors() []float64 {
	var fs []float64
	for _, c := range r.ran {
		for s := range fspSettings {
			run := c.system(s, "fspv")
			if run == nil {
				continue
			}
			prev := time.Duration(0)
			for i, iv := range run.Intervals {
				if !firstProbe(run, i) {
					continue
				}
				if prev > 0 {
					fs = append(fs, float64(iv.Interval)/float64(prev))
				}
				prev = iv.Interval
			}
		}
	}
	return fs
}

// linearFitConfig is FSPV's tuner configuration for the first workload
// that ran.
func (r *fspReport) linearFitConfig() (interval.LinearFitConfig, bool) {
	if len(r.ran) == 0 {
		return interval.LinearFitConfig{}, false
	}
	c := r.ran[0]
	e := c.flags[0].experiment(c.alg, consistency.Spec{Kind: consistency.FSP})
	e.Cost = withCostDefaults(e.Cost)
	return linearFitConfig(c.alg, &e), true
}

// aspRecord is ASP's record on the synthetic EM workloads (fastest or
// not) and on LR (reached or not).
func (r *fspReport) aspRecord() string {
	j := slices.Index(fspSystems, "asp")
	var emFastest, emPairs, lrReached, lrRuns int
	for _, c := range r.ran {
		for s := range fspSettings {
			switch c.w.key {
			case "kmeans", "gmm", "fcm":
				emPairs++
				if slices.Contains(c.fastest(s), j) {
					emFastest++
				}
			case "lr", "lr-fmnist":
				lrRuns++
				if c.ttt(c.runs[s][j]) >= 0 {
					lrReached++
				}
			}
		}
	}
	return aspLine(emFastest, emPairs, lrReached, lrRuns)
}

// finalSpreads are, per EM workload, how far apart its runs' final
// objectives ended: (worst − best)/|best|.
func (r *fspReport) finalSpreads() []namedValue {
	var out []namedValue
	for _, c := range r.ran {
		switch c.flags[0].algo {
		case "kmeans", "gmm", "fcm":
		default:
			continue
		}
		best, worst := math.NaN(), math.NaN()
		for _, rs := range c.runs {
			for _, run := range rs {
				f := run.Final
				if math.IsNaN(best) || c.minimize == (f < best) {
					best = f
				}
				if math.IsNaN(worst) || c.minimize == (f > worst) {
					worst = f
				}
			}
		}
		if best != 0 && !math.IsNaN(best) {
			out = append(out, namedValue{c.w.label, math.Abs(worst-best) / math.Abs(best)})
		}
	}
	return out
}

func (r *fspReport) intervals() {
	r.p("## Runtime against the interval (Fig. 15)\n\n")
	var sweeps []*fspCase
	for _, c := range r.ran {
		if len(c.sweep) > 0 {
			sweeps = append(sweeps, c)
		}
	}
	if len(sweeps) == 0 {
		r.p("No sweep workload ran (-algos).\n\n")
		return
	}
	r.p("FSP with a fixed barrier interval η on a log grid, %s stragglers, for %s; each time to target against FSPV's (the `fspv` run of the table above, same setting, rerun on the sweep's snapshot grid). ",
		fspSettings[fspSweepSetting].label, r.sweepNames(sweeps))
	r.p("Every run of the sweep, FSPV's included, takes an objective snapshot every 1/%d of its run length (%s for %s), %s (the evaluations are off the clock), so that short times to target are resolved: a time is rounded up by less than one snapshot. ",
		r.scale.sweepSnapshots, fmtDur(sweeps[0].sweepFlags.evalEvery), sweeps[0].w.label, timesAsOften(r.scale.sweepSnapshots, 100))
	r.p("η is given as a duration, as a fraction of P (a full-speed pass over a shard; η ≥ P is cut short by the early trigger, so the grid stops there) and, as in the paper's x-axis, of BSPB's mean full-batch round in the same setting. ")
	r.p("The issue's acceptance criterion: FSPV's time to target within %.3g× of the best fixed η's. ", fspAcceptance)
	r.p("Every η and FSPV also ran with %d seeds (%s): a seed changes θ0, the sharding and which workers straggle, not the data set. One seed's curve can be jagged where runs settle in different local optima, and the best of %d fixed η on one seed is a best of %d draws; the medians over the seeds (a run that did not reach the target counts as the slowest; for an even count the mean of the two middle runs, not reached if either is) say which η is best more reliably. The criterion is judged both ways. In brackets, a distribution-free interval for the median, [x(k), x(n+1−k)] of the sorted times (%s; computed with `github.com/montanaflynn/stats`): where two η's intervals overlap, these seeds do not tell them apart.\n\n",
		len(sweeps[0].sweepSeeds), seedList(sweeps[0].sweepSeeds), len(sweeps[0].etas), len(sweeps[0].etas), intervalText(len(sweeps[0].sweepSeeds)))
	for _, c := range sweeps {
		sw := c.sweepSummary()
		r.p("### %s\n\n", c.w.label)
		head := []string{"η", "η / P", "η / full-batch round"}
		for _, sd := range c.sweepSeeds {
			head = append(head, fmt.Sprintf("seed %d", sd))
		}
		rows := [][]string{append(head, "median [interval]", "median ÷ best median")}
		row := func(label string, eta time.Duration, ts []time.Duration, st seedStat) {
			med := tttOf(st.median)
			cells := []string{label, r.frac(eta, sw.pass), r.frac(eta, sw.fullRound)}
			for k, t := range ts {
				cell := fmtTTT(t)
				if k == 0 && t >= 0 && sw.best > 0 && t == sw.best && label != "FSPV" {
					cell = "**" + cell + "**"
				}
				cells = append(cells, cell)
			}
			rel := "—"
			if med >= 0 && sw.bestMed > 0 {
				rel = fmt.Sprintf("%.2f", med.Seconds()/sw.bestMed.Seconds())
			}
			rows = append(rows, append(cells, fmtTTTStat(st), rel))
		}
		for i := range c.etas {
			var ts []time.Duration
			for _, tk := range sw.ttts {
				ts = append(ts, tk[i])
			}
			row(fmtDur(c.etas[i]), c.etas[i], ts, sw.medStat[i])
		}
		row("FSPV", sw.mainEta, sw.fspvs, sw.fspvStat)
		r.table(rows)
		r.p("\nThe FSPV row's η columns give the interval it ran longest on seed %d (%s). Full-batch round (BSPB, %s): %s. On seed %d, before it reached the target (or the end), FSPV ran %d stage(s) (the first probing at %s and %s, each later one next to the last η*) and spent %.0f%% of that time in probes; its intervals by share of that time: %s.\n\n",
			c.sweepSeeds[0], fmtDur(sw.mainEta), fspSettings[fspSweepSetting].label, fmtDur(sw.fullRound), c.sweepSeeds[0], sw.stages, fmtDur(sw.probe), fmtDur(2*sw.probe), float64(100*sw.probing), r.shareLine(sw))
		r.p("%s", belowBound(sw))
		r.p("**Acceptance on seed %d, the report's seed (FSPV within %.3g× of the best fixed η): %s**\n\n", c.sweepSeeds[0], fspAcceptance, verdict(sw.fspv, sw.best, sw.bestEta))
		r.p("**Acceptance on the medians over %d seeds: %s**\n\n", len(c.sweepSeeds), verdict(sw.fspvMed, sw.bestMed, sw.bestMedEta))
		r.p("![Fig. 15 here, %s](fsp/fig15-%s.png)\n\n", c.w.label, c.w.key)
	}
}

// timesAsOften compares a grid of n snapshots per run with the tables'
// grid of m.
func timesAsOften(n, m int) string {
	switch {
	case n == m:
		return "as often as the tables above"
	case n > m && n%m == 0:
		return fmt.Sprintf("%d times as often as the tables above", n/m)
	}
	return fmt.Sprintf("%.3g times as often as the tables above", float64(n)/float64(m))
}

// seedList writes seeds as "1, 2, 3".
func seedList(seeds []uint64) string {
	var s []string
	for _, sd := range seeds {
		s = append(s, strconv.FormatUint(sd, 10))
	}
	return strings.Join(s, ", ")
}

func (r *fspReport) sweepNames(cs []*fspCase) string {
	var n []string
	for _, c := range cs {
		n = append(n, c.w.label)
	}
	return strings.Join(n, " and ")
}

func (r *fspReport) frac(eta, of time.Duration) string {
	if of <= 0 || eta <= 0 {
		return "—"
	}
	return fmt.Sprintf("%.3g", float64(eta)/float64(of))
}

// passFrac writes eta as a fraction of the pass P: "P/32", "2P".
func (r *fspReport) passFrac(eta, pass time.Duration) string {
	switch x := float64(eta) / float64(pass); {
	case x == 1:
		return "P"
	case x > 1:
		return fmt.Sprintf("%.3gP", x)
	default:
		return fmt.Sprintf("P/%.3g", 1/x)
	}
}

func (r *fspReport) shareLine(sw fspSweep) string {
	var s []string
	for i, e := range sw.shares {
		if i == 6 {
			s = append(s, fmt.Sprintf("%d more", len(sw.shares)-i))
			break
		}
		s = append(s, fmt.Sprintf("%s %.0f%%", fmtDur(e.eta), 100*e.share))
	}
	if len(s) == 0 {
		return "none recorded"
	}
	return strings.Join(s, ", ")
}

// belowBound says, when the best fixed η is shorter than FSPV's shortest
// interval, which fixed η FSPV could have chosen and how it compares with
// the best of those; "" otherwise.
func belowBound(sw fspSweep) string {
	if sw.best < 0 || sw.bestEta >= sw.lo {
		return ""
	}
	s := fmt.Sprintf("The best fixed η (%s) is shorter than FSPV's shortest interval, %s (the tuners' lower bound: one point's time, and at least twice the longest apply). ", fmtDur(sw.bestEta), fmtDur(sw.lo))
	switch {
	case sw.bestIn < 0:
		return s + "No fixed η of the grid at or above that bound reached the target.\n\n"
	case sw.fspv < 0:
		return s + fmt.Sprintf("Among the fixed η of the grid at or above it, the best is %s (%s); FSPV did not reach the target.\n\n", fmtDur(sw.bestInEta), fmtTTT(sw.bestIn))
	}
	return s + fmt.Sprintf("Among the fixed η of the grid at or above it, the best is %s (%s): FSPV took %.2f× its time.\n\n", fmtDur(sw.bestInEta), fmtTTT(sw.bestIn), sw.fspv.Seconds()/sw.bestIn.Seconds())
}

// verdict judges the acceptance criterion on FSPV's time to target
// against the best fixed η's (best, at bestEta); -1 is not reached.
func verdict(fspv, best, bestEta time.Duration) string {
	switch {
	case best < 0:
		return "undecided — no fixed η reached the target."
	case fspv < 0:
		return fmt.Sprintf("no — FSPV did not reach the target; the best fixed η (%s) did in %s.", fmtDur(bestEta), fmtTTT(best))
	}
	ratio := fspv.Seconds() / best.Seconds()
	if ratio <= fspAcceptance {
		return fmt.Sprintf("yes — %s against %s at η = %s (%.2f×).", fmtTTT(fspv), fmtTTT(best), fmtDur(bestEta), ratio)
	}
	return fmt.Sprintf("no — %s against %s at η = %s (%.2f×).", fmtTTT(fspv), fmtTTT(best), fmtDur(bestEta), ratio)
}

func (r *fspReport) missing() {
	r.p("## Not reproduced yet\n\n")
	r.p("%s", fig12Missing())
	r.p("- Not attempted: Fig. 9 (τ and the number of stragglers varied), Fig. 10 (per-worker synchronization cost; the per-worker wait is in `runs.csv`'s companions from `syncbench compare -csv`), Fig. 14 (objective against time: the curve figures above are its analogue), Table 2, and the CNN workload (no CNN in this module).\n\n")
}

func (r *fspReport) details() {
	r.p("## Per-run details\n\n")
	r.p("All numbers of every run are in [fsp/runs.csv](fsp/runs.csv). The tables below are `syncbench compare`'s for each workload and setting (with the pooled target).\n\n")
	for _, c := range r.ran {
		r.p("<details><summary>%s</summary>\n\n```text\n", c.w.label)
		for s := range fspSettings {
			if s > 0 {
				r.p("\n")
			}
			var b strings.Builder
			_ = c.comparison(s).writeTable(&b)
			r.p("%s", b.String())
		}
		r.p("```\n\n</details>\n\n")
	}
}

// curveZoom is the share of the best improvement over θ0 that the curve
// figures show, ending at the best final objective.
const curveZoom = 0.2

// figures writes the PNGs into dir.
func (r *fspReport) figures(dir string) error {
	if len(r.ran) == 0 {
		return nil
	}
	var panels []*plot.Plot
	for s := range fspSettings {
		p, err := runtimePanel(r.ran, s)
		if err != nil {
			return err
		}
		panels = append(panels, p)
	}
	if err := saveTiles([][]*plot.Plot{{panels[0]}, {panels[1]}}, 9*vg.Inch, 9*vg.Inch, filepath.Join(dir, "fig7.png")); err != nil {
		return err
	}
	if err := saveTiles([][]*plot.Plot{{panels[2]}}, 9*vg.Inch, 4.5*vg.Inch, filepath.Join(dir, "fig8.png")); err != nil {
		return err
	}
	for _, c := range r.ran {
		var row [][]*plot.Plot
		for s := range fspSettings {
			p, err := c.comparison(s).objectivePlot()
			if err != nil {
				return err
			}
			p.Title.Text = fmt.Sprintf("%s: %s (the last %.0f%% of the improvement)", c.w.label, fspSettings[s].label, 100*curveZoom)
			// Zoom in on the target: the last curveZoom of the best
			// run's improvement over θ0.
			d := math.Abs(c.initial - c.best)
			if c.minimize {
				p.Y.Min, p.Y.Max = c.best-float64(0.02*d), c.best+float64(curveZoom*d)
			} else {
				p.Y.Min, p.Y.Max = c.best-float64(curveZoom*d), c.best+float64(0.02*d)
			}
			row = append(row, []*plot.Plot{p})
		}
		if err := saveTiles(row, 8*vg.Inch, 12*vg.Inch, filepath.Join(dir, "curves-"+c.w.key+".png")); err != nil {
			return err
		}
		if len(c.sweep) > 0 {
			p, err := sweepPlot(c, c.sweepSummary())
			if err != nil {
				return err
			}
			if err := savePNG(p, 8*vg.Inch, 5*vg.Inch, filepath.Join(dir, "fig15-"+c.w.key+".png")); err != nil {
				return err
			}
		}
	}
	return nil
}

// csv writes one row per run.
func (r *fspReport) csv(path string) error {
	rows := [][]string{{"workload", "setting", "system", "run", "interval_s", "duration_s", "target", "time_to_target_s",
		"final_objective", "iterations", "versions", "wait_fraction", "bytes_sent", "messages", "seed"}}
	add := func(c *fspCase, s int, sys string, eta time.Duration, seed uint64, run *harness.Result) {
		ttt := ""
		if t := c.ttt(run); t >= 0 {
			ttt = ftoa(t.Seconds())
		}
		iv := ""
		if eta > 0 {
			iv = ftoa(eta.Seconds())
		}
		rows = append(rows, []string{c.w.key, fspSettings[s].key, sys, run.Name, iv, ftoa(run.Duration.Seconds()), ftoa(c.target), ttt,
			ftoa(run.Final), ftoa(run.Iterations), utoa(uint64(run.Versions)), ftoa(run.WaitFraction), itoa(run.BytesSent), itoa(run.Messages), utoa(seed)})
	}
	for _, c := range r.ran {
		for s := range fspSettings {
			for j, run := range c.runs[s] {
				add(c, s, fspSystems[j], 0, c.flags[s].seed, run)
			}
		}
		if c.semi != nil {
			add(c, fspSemiSetting, "fspv+semi", 0, c.flags[fspSemiSetting].seed, c.semi)
		}
		for k, runs := range c.sweep {
			for i, run := range runs {
				add(c, fspSweepSetting, "fsp", c.etas[i], c.sweepSeeds[k], run)
			}
			add(c, fspSweepSetting, "fspv (sweep grid)", 0, c.sweepSeeds[k], c.sweepFSPV[k])
		}
	}
	return writeCSVFile(path, rows)
}
