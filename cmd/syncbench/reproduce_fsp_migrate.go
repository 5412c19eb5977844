package main

import (
	"fmt"
	"image/color"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/syncmodels/syncmodels/harness"
	"github.com/syncmodels/syncmodels/migrate"
)

// Fig. 12 (FSP §6.3): asynchronous data migration. The per-worker
// traversal passes and accumulated objective contributions (Δf) at the end
// of a run, with and without migration, under Injected stragglers and
// without stragglers, and what migration does to the time to target.
//
// The main table's shards (3,000 points) are too small for this: an
// Injected straggler trains in bursts of 1,000 points between its 32 ms
// pauses, so once migration has taken most of its points its passes jump
// by a third of a pass or more at a time and no ε ≤ 1 of Eq. 8 can hold
// at an arbitrary instant. The paper's shards hold hundreds of thousands
// of points. The Fig. 12 runs therefore use 16,000 points per worker.

// fspMigWorkload is a Fig. 12 workload.
type fspMigWorkload struct {
	key, label, algo string
	args             []string // compare flags
	load             func(seed uint64) (*data, string, error)
}

// fspMigRun is one Fig. 12 run: a system in a setting; record runs FSPV
// recording the passes and contributions without migrating (harness
// Migration.RecordOnly: it computes exactly what fspv computes).
type fspMigRun struct {
	setting int
	system  string
	record  bool
}

// fig12Runs: Injected — FSPV without migration, with it (fspv+asyn), and
// FSPV+opt; no stragglers — FSPV with migration (which then has nothing
// to balance).
var fig12Runs = []fspMigRun{{0, "fspv", true}, {0, "fspv+asyn", false}, {0, "fspv+opt", false}, {2, "fspv+asyn", false}}

func (r fspMigRun) label() string {
	s := r.system
	if r.record {
		s += " (no migration)"
	}
	return s + ", " + fspSettings[r.setting].label
}

// fspMigWorkloads lists the Fig. 12 workloads at scale s.
func fspMigWorkloads(s fspScale) []fspMigWorkload {
	dur := time.Duration(2 * float64(s.duration))
	common := []string{"-duration", dur.String(), "-eval-every", (dur / 40).String()}
	return []fspMigWorkload{
		{key: "kmeans", label: "K-means", algo: "kmeans", args: append([]string{"-algo", "kmeans", "-k", "16"}, common...),
			load: blobsData(s.migN, 27, 16, 10)},
		{key: "lr", label: "LR", algo: "lr", args: append([]string{"-algo", "lr", "-lr", "0.01"}, common...),
			load: syntheticData("logistic", s.migN, 28)},
	}
}

// fspMigCase is a Fig. 12 workload's runs (fig12Runs order); the embedded
// fspCase holds the algorithm, the data and the target (derived from
// these runs as compare does).
type fspMigCase struct {
	fspCase
	mw     fspMigWorkload
	mflags []*compareFlags
	mruns  []*harness.Result
}

// fig12Jobs loads the Fig. 12 workloads of the algorithms f selects and
// returns their cases and runs.
func fig12Jobs(f *fspFlags, scale fspScale) ([]*fspMigCase, []fspJob, error) {
	var cases []*fspMigCase
	var jobs []fspJob
	for _, w := range fspMigWorkloads(scale) {
		if !f.only[w.algo] {
			continue
		}
		d, _, err := w.load(f.seed)
		if err != nil {
			return nil, nil, fmt.Errorf("fig. 12 %s: %w", w.key, err)
		}
		mc := &fspMigCase{mw: w, mruns: make([]*harness.Result, len(fig12Runs))}
		mc.d = d
		for i, run := range fig12Runs {
			fw := fspWorkload{key: "fig12-" + w.key, args: w.args}
			cf, err := fw.flagsFor(fspSettings[run.setting], f.seed, []string{run.system})
			if err != nil {
				return nil, nil, err
			}
			if mc.alg == nil {
				if mc.alg, err = build(&cf.workloadFlags, d); err != nil {
					return nil, nil, fmt.Errorf("fig. 12 %s: %w", w.key, err)
				}
				mc.minimize = mc.alg.Minimize()
			}
			cf.pointBytes = pointBytes(d)
			if err := f.costs(cf, d); err != nil {
				return nil, nil, fmt.Errorf("fig. 12 %s: %w", w.key, err)
			}
			p := cf.plans[0]
			p.record = run.record
			mc.mflags = append(mc.mflags, cf)
			jobs = append(jobs, fspJob{c: &mc.fspCase, f: cf, p: p, name: "fig12 " + w.key + " " + run.label(), out: &mc.mruns[i], cost: jobCost(cf, d)})
		}
		cases = append(cases, mc)
	}
	return cases, jobs, nil
}

// deriveTargets sets every case's target once its runs are done.
func deriveMigTargets(cases []*fspMigCase) {
	for _, mc := range cases {
		mc.initial = mc.mruns[0].Curve[0].Objective
		var finals []float64
		for _, r := range mc.mruns {
			finals = append(finals, r.Final)
		}
		mc.best, mc.target = deriveTarget(mc.initial, finals, mc.minimize)
	}
}

// run returns the Fig. 12 run of system (recording or not) in setting s.
func (mc *fspMigCase) run(s int, system string, record bool) *harness.Result {
	for i, r := range fig12Runs {
		if r.setting == s && r.system == system && r.record == record {
			return mc.mruns[i]
		}
	}
	return nil
}

// fig12 writes the section.
func (r *fspReport) fig12() {
	r.p("## Asynchronous data migration (Fig. 12) and FSPV+opt (Fig. 11)\n\n")
	r.p("`fspv+asyn` is FSPV with FSP's asynchronous data migration (§4, `harness.Migration` with its defaults); `fspv+opt` adds the semi-centralized timers (§5.2), the paper's FSPV+opt. ")
	r.p("Migration: at every barrier, from the first %s of the run on, the planner (package `migrate`) tests Eq. 8 on the passes predicted at the end of the run with **ε = %g passes**, pairs super-workers min/max over **d = %d** rounds of T/d (T: the time left) and sizes each pair by Eq. 9; windows of %d points go out on the source's own link while training goes on, the target trains them first, a reversed migration flips marks (virtual migration). ",
		"1/16", migrate.DefaultEpsilon, migrate.DefaultRounds, migrate.DefaultWindowSize)
	r.p("A migrated point is computed by its home shard's worker state under the target's parameters and charged to the target's time, so migration changes who trains what and when, never the arithmetic of a point. See [runtimes.md](../runtimes.md#data-migration-fsp-4).\n\n")
	r.migTimes()
	if len(r.migs) == 0 {
		r.p("The Fig. 12 runs were not selected (`-algos` has neither kmeans nor lr).\n\n")
		return
	}
	mc0 := r.migs[0]
	f0 := mc0.mflags[0]
	r.p("### Passes and contributions per worker (Fig. 12)\n\n")
	r.p("Larger shards than above: %d points per worker (data: %s; P = %s), %s",
		mc0.alg.NumPoints()/f0.workers, mc0.d.describe(), fmtDur(shardPass(mc0.alg, f0)), burstLine(f0.every, r.scale.n/f0.workers))
	r.p("Runs of %s; %s. Passes are the mean traversal count of the points a worker owns at the end (without migration: points processed / shard). ", f0.duration, r.stragglers(0))
	r.p("A worker's contribution is the improvement of the objective on the control sample, accumulated over the run, split among the workers at each sample (every %s) by their shares ⟨d_w, D⟩/‖D‖² of the merged updates D in between (a first-order attribution: the shares of a round add up to 1). ", (f0.duration / 40))
	r.p("Eq. 8 bounds every super-worker's passes to ε of their mean; super-workers group workers within %g passes (`harness.DefaultTolerance`), so the workers' max − min may reach 2ε + 4·%g = %g passes: the bound on max/min below is 1 + %g/min.\n\n",
		harness.DefaultTolerance.Passes, harness.DefaultTolerance.Passes, 2*migrate.DefaultEpsilon+float64(4*harness.DefaultTolerance.Passes), 2*migrate.DefaultEpsilon+float64(4*harness.DefaultTolerance.Passes))
	rows := [][]string{{"workload", "run", "passes min–max", "max/min", "Eq. 8 bound", "within", "Eq. 8 imbalance (ε)", "Δf stragglers / others (per worker)", "time to target", "final objective", "moved with data / by flips (home)", "bytes migrated"}}
	for _, mc := range r.migs {
		for i, run := range fig12Runs {
			res := mc.mruns[i]
			m := res.Migration
			lo, hi := slices.Min(m.Passes), slices.Max(m.Passes)
			within := "yes"
			if m.Ratio() > m.RatioBound() {
				within = "**no**"
			}
			strag, other := contributionShares(res)
			moved := "—"
			if !m.RecordOnly {
				moved = fmt.Sprintf("%d / %d (%d)", m.DataPoints, m.VirtualPoints, m.Reactivated)
			}
			rows = append(rows, []string{mc.mw.label, run.label(), fmt.Sprintf("%.2f–%.2f", lo, hi), fmt.Sprintf("%.3f", m.Ratio()), fmt.Sprintf("%.3f", m.RatioBound()), within,
				fmt.Sprintf("%.3f (%g)", m.Imbalance, m.Planner.Epsilon), strag + " / " + other, fmtTTT(mc.ttt(res)), fmt.Sprintf("%.6g", res.Final), moved, fmtBytes(m.Bytes)})
		}
	}
	r.table(rows)
	r.p("\n")
	for _, mc := range r.migs {
		r.p("![Fig. 12 here: %s, passes and contributions per worker](fsp/fig12-%s.png)\n\n", mc.mw.label, mc.mw.key)
	}
	r.migVerdict()
	r.p("Per-worker numbers: [fsp/fig12.csv](fsp/fig12.csv).\n\n")
}

// migTimes compares FSPV with FSPV+opt in the main table's runs.
func (r *fspReport) migTimes() {
	if !slices.Contains(fspSystems, "fspv+opt") || len(r.ran) == 0 {
		return
	}
	r.p("### Time to target: FSPV against FSPV+opt\n\n")
	r.p("From the main table's runs (the paper, Fig. 11: migration improves FSPV by up to 55.8%%, the semi-centralized timers by up to 32.5%% more; FSPV+opt is 4.5× faster than FSPB where FSPV is 1.2×). Above 1: FSPV+opt is faster.\n\n")
	hdr := []string{"workload"}
	for _, s := range fspSettings {
		hdr = append(hdr, "FSPV, "+s.label, "FSPV+opt, "+s.label, "speedup")
	}
	rows := [][]string{hdr}
	for _, c := range r.ran {
		row := []string{c.w.label}
		for s := range fspSettings {
			a, b := c.ttt(c.system(s, "fspv")), c.ttt(c.system(s, "fspv+opt"))
			row = append(row, fmtTTT(a), fmtTTT(b), speedupOf(b, a, c.flags[s].duration).String())
		}
		rows = append(rows, row)
	}
	r.table(rows)
	r.p("\n")
}

// migVerdict states the acceptance: under Injected stragglers, migration
// keeps max/min within Eq. 8's bound, and FSPV without it does not.
func (r *fspReport) migVerdict() {
	for _, mc := range r.migs {
		base, asyn, opt := mc.run(0, "fspv", true), mc.run(0, "fspv+asyn", false), mc.run(0, "fspv+opt", false)
		ok := func(res *harness.Result) string {
			if res.Migration.Ratio() <= res.Migration.RatioBound() {
				return "within"
			}
			return "**outside**"
		}
		r.p("- **%s**, Injected: max/min passes %.3f without migration (%s the bound %.3f), %.3f with it (%s %.3f), %.3f with FSPV+opt (%s %.3f). ",
			mc.mw.label, base.Migration.Ratio(), ok(base), base.Migration.RatioBound(), asyn.Migration.Ratio(), ok(asyn), asyn.Migration.RatioBound(),
			opt.Migration.Ratio(), ok(opt), opt.Migration.RatioBound())
		r.p("Time to target %s without migration, %s with it (%s), %s with FSPV+opt (%s); final objective %.6g, %.6g, %.6g.\n",
			fmtTTT(mc.ttt(base)), fmtTTT(mc.ttt(asyn)), speedupOf(mc.ttt(asyn), mc.ttt(base), mc.mflags[0].duration),
			fmtTTT(mc.ttt(opt)), speedupOf(mc.ttt(opt), mc.ttt(base), mc.mflags[0].duration), base.Final, asyn.Final, opt.Final)
	}
	r.p("\n")
}

// contributionShares is the mean accumulated contribution per straggler
// and per other worker at the end of res.
func contributionShares(res *harness.Result) (stragglers, others string) {
	var s, o float64
	var ns, no int
	for w, smp := range res.Migration.History.Final() {
		if res.Workers[w].Straggler {
			s += smp.Contribution
			ns++
		} else {
			o += smp.Contribution
			no++
		}
	}
	f := func(v float64, n int) string {
		if n == 0 {
			return "—"
		}
		return fmt.Sprintf("%.4g", v/float64(n))
	}
	return f(s, ns), f(o, no)
}

// fmtBytes prints a byte count in kB or MB.
func fmtBytes(n int64) string {
	switch {
	case n >= 1e6:
		return fmt.Sprintf("%.1f MB", float64(n)/1e6)
	case n >= 1e3:
		return fmt.Sprintf("%.1f kB", float64(n)/1e3)
	}
	return fmt.Sprintf("%d B", n)
}

// fig12Figures writes fig12-KEY.png per workload: passes (top) and
// accumulated contribution (bottom) per worker, a bar per run.
func (r *fspReport) fig12Figures(dir string) error {
	for _, mc := range r.migs {
		top, err := mc.barPlot("traversal passes at the end", func(s migrate.Sample) float64 { return s.Passes })
		if err != nil {
			return err
		}
		bottom, err := mc.barPlot("accumulated contribution Σ Δf (improvement)", func(s migrate.Sample) float64 { return s.Contribution })
		if err != nil {
			return err
		}
		top.Title.Text = fmt.Sprintf("%s: per worker (* = straggler)", mc.mw.label)
		if err := saveTiles([][]*plot.Plot{{top}, {bottom}}, 10*vg.Inch, 8*vg.Inch, filepath.Join(dir, "fig12-"+mc.mw.key+".png")); err != nil {
			return err
		}
	}
	return nil
}

// barPlot draws value(final sample) per worker, a group of bars per
// worker, one bar per run.
func (mc *fspMigCase) barPlot(ylabel string, value func(migrate.Sample) float64) (*plot.Plot, error) {
	p := plot.New()
	p.Y.Label.Text = ylabel
	p.Legend.Top = true
	p.Add(plotter.NewGrid())
	workers := mc.mruns[0].Workers
	var names []string
	for w, ws := range workers {
		n := strconv.Itoa(w)
		if ws.Straggler {
			n += "*"
		}
		names = append(names, n)
	}
	width := vg.Points(24) / vg.Length(len(fig12Runs))
	top := 0.0
	for i, run := range fig12Runs {
		vals := plotter.Values{}
		for _, smp := range mc.mruns[i].Migration.History.Final() {
			vals = append(vals, value(smp))
			top = max(top, value(smp))
		}
		b, err := plotter.NewBarChart(vals, width)
		if err != nil {
			return nil, err
		}
		b.Color = styleFor(run.system).Color
		if slices.ContainsFunc(fig12Runs[:i], func(o fspMigRun) bool { return o.system == run.system }) {
			// The same system in a second setting: its colour, lighter.
			b.Color = lighter(b.Color)
		}
		b.LineStyle.Color = color.Transparent
		b.Offset = (vg.Length(i) - vg.Length(vg.Length(len(fig12Runs)-1)/2)) * width
		p.Add(b)
		p.Legend.Add(run.label(), b)
	}
	p.NominalX(names...)
	// Headroom above the bars for the legend.
	p.Y.Min, p.Y.Max = 0, 1.45*top
	return p, nil
}

// fig12CSV writes every Fig. 12 run's per-worker passes and contribution.
func (r *fspReport) fig12CSV(path string) error {
	rows := [][]string{{"workload", "setting", "system", "migration", "worker", "straggler", "passes", "contribution", "points", "time_to_target_s", "final_objective"}}
	for _, mc := range r.migs {
		for i, run := range fig12Runs {
			res := mc.mruns[i]
			mig := strconv.FormatBool(!run.record)
			ttt := ""
			if t := mc.ttt(res); t >= 0 {
				ttt = ftoa(t.Seconds())
			}
			for w, smp := range res.Migration.History.Final() {
				rows = append(rows, []string{mc.mw.key, fspSettings[run.setting].key, run.system, mig, strconv.Itoa(w), strconv.FormatBool(res.Workers[w].Straggler),
					ftoa(smp.Passes), ftoa(smp.Contribution), itoa(res.Workers[w].Points), ttt, ftoa(res.Final)})
			}
		}
	}
	return writeCSVFile(path, rows)
}

// fig12Missing is the "not reproduced" note for what of §6.3 is left.
func fig12Missing() string {
	return strings.Join([]string{
		"- **Fig. 11's *sync* variant** (blocking migration at the barrier, the counterpart the paper shows losing up to 35.9%): not run. ",
		"Fig. 12, FSPV+opt and Fig. 13 are above; `fspv+asyn` is Fig. 11's *asyn*.\n",
	}, "")
}
