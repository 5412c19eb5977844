package main

import (
	"cmp"
	"encoding/csv"
	"fmt"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/montanaflynn/stats"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/syncmodels/syncmodels/consistency"
	"github.com/syncmodels/syncmodels/harness"
	"github.com/syncmodels/syncmodels/internal/fpdet"
)

// docs/fidelity.md: what `syncbench fidelity` measured.

// fidMetric is one of the compared measures.
type fidMetric struct {
	key, label, unit string
	// of returns the measure of a run of s (NaN: none, a target not
	// reached).
	of func(s *fidScenario, r *harness.Result) float64
	// log draws it on log axes.
	log bool
}

var fidMetrics = []fidMetric{
	{"iteration", "time per iteration", "ms", func(s *fidScenario, r *harness.Result) float64 { return float64(perIteration(r).Seconds() * 1e3) }, true},
	{"wait", "wait fraction", "%", func(s *fidScenario, r *harness.Result) float64 { return float64(100 * r.WaitFraction) }, false},
	{"ttt", "time to target", "ms", func(s *fidScenario, r *harness.Result) float64 {
		t := s.timeTo(r)
		if t < 0 {
			return math.NaN()
		}
		return float64(t.Seconds() * 1e3)
	}, true},
}

// fidGoal is the goal: the median relative error on the time to
// target at most this.
const fidGoal = 0.15

// fidKinds are the predictions the report compares, in its order.
var fidKinds = []string{"run", "profile"}

// measured is the median of metric m over s's real runs (NaN if a run
// has none).
func (s *fidScenario) measured(m fidMetric) float64 {
	return s.realMedian(func(r *harness.Result) float64 { return m.of(s, r) })
}

// relErr is predicted/measured − 1 (NaN if either is missing or the
// measure is 0).
func relErr(pred, meas float64) float64 {
	if math.IsNaN(pred) || math.IsNaN(meas) || meas == 0 {
		return math.NaN()
	}
	return pred/meas - 1
}

// result is the virtual run of a prediction kind: "median" (at the real
// runs' median speed), "profile", or an ablation's key.
func (s *fidScenario) result(kind string) *harness.Result {
	switch kind {
	case "median":
		return s.run
	case "profile":
		return s.profile
	}
	for i, a := range fidAblations {
		if a.key == kind && i < len(s.ablated) {
			return s.ablated[i]
		}
	}
	return nil
}

// predicted is metric m of the prediction kind (NaN if none): for
// "run", the median over the predictions of each real run.
func (s *fidScenario) predicted(m fidMetric, kind string) float64 {
	if kind == "run" {
		if len(s.reps) == 0 || slices.Contains(s.reps, nil) {
			return math.NaN()
		}
		return medianOf(s.reps, func(r *harness.Result) float64 { return m.of(s, r) })
	}
	r := s.result(kind)
	if r == nil {
		return math.NaN()
	}
	return m.of(s, r)
}

// fidErrors are the relative errors of a prediction kind on metric m.
func fidErrors(sc []*fidScenario, m fidMetric, kind string) []float64 {
	var out []float64
	for _, s := range sc {
		out = append(out, relErr(s.predicted(m, kind), s.measured(m)))
	}
	return out
}

// repeatError is how far one real run of s lands from the median of
// the scenario's other real runs on metric m: each run's relative error
// against the others' median, and of those the one of median size (the
// lower middle of an even count); NaN with fewer than two real runs or a
// run without the measure. It is the error of predicting the scenario
// by running it once more: the machine's run-to-run noise, the floor
// under a prediction compared with a median of few runs.
func (s *fidScenario) repeatError(m fidMetric) float64 {
	var v []float64
	for _, r := range s.real {
		x := m.of(s, r)
		if math.IsNaN(x) {
			return math.NaN()
		}
		v = append(v, x)
	}
	if len(v) < 2 {
		return math.NaN()
	}
	errs := make([]float64, len(v))
	for i, x := range v {
		others := append(slices.Clone(v[:i]), v[i+1:]...)
		med, err := stats.Median(others)
		if err != nil {
			return math.NaN()
		}
		errs[i] = relErr(x, med)
	}
	slices.SortFunc(errs, func(a, b float64) int { return cmpAbs(a, b) })
	return errs[(len(errs)-1)/2]
}

// cmpAbs orders by absolute value, then by value (NaN last).
func cmpAbs(a, b float64) int {
	if an, bn := math.IsNaN(a), math.IsNaN(b); an || bn {
		return cmp.Compare(b2i(an), b2i(bn))
	}
	return cmp.Or(cmp.Compare(math.Abs(a), math.Abs(b)), cmp.Compare(a, b))
}

// b2i is 1 for true, 0 for false.
func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// repeatErrors are the scenarios' repeat errors on metric m.
func repeatErrors(sc []*fidScenario, m fidMetric) []float64 {
	var out []float64
	for _, s := range sc {
		out = append(out, s.repeatError(m))
	}
	return out
}

// inRange counts the scenarios whose prediction kind on metric m lies
// between the least and the greatest of their real runs, of those with
// both.
func inRange(sc []*fidScenario, m fidMetric, kind string) (in, n int) {
	for _, s := range sc {
		p := s.predicted(m, kind)
		if math.IsNaN(p) || len(s.real) == 0 {
			continue
		}
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, r := range s.real {
			x := m.of(s, r)
			lo, hi = min(lo, x), max(hi, x)
		}
		if math.IsNaN(lo) || math.IsNaN(hi) {
			continue
		}
		n++
		if lo <= p && p <= hi {
			in++
		}
	}
	return in, n
}

// errorRow is a row of an error table: the errors errs (one per
// scenario of sc) of the prediction kind on the measure named label.
func errorRow(sc []*fidScenario, label, kind string, errs []float64) []string {
	med, worst, at, within, n := summary(errs)
	w := "–"
	if at >= 0 {
		w = fmt.Sprintf("%.0f%% (%s)", 100*worst, sc[at].name())
	}
	return []string{label, kind, fidPct(med), fidSigned(signedMedian(errs)), w, fmt.Sprintf("%d of %d", within, n)}
}

// summary is the median and worst absolute error, the worst's index and
// how many lie within fidGoal, over the errors that exist.
func summary(errs []float64) (med, worst float64, at, within, n int) {
	var abs []float64
	worst, at = math.NaN(), -1
	for i, e := range errs {
		if math.IsNaN(e) {
			continue
		}
		a := math.Abs(e)
		abs = append(abs, a)
		if math.IsNaN(worst) || a > worst {
			worst, at = a, i
		}
		if a <= fidGoal {
			within++
		}
	}
	if len(abs) == 0 {
		return math.NaN(), math.NaN(), -1, 0, 0
	}
	med, _ = stats.Median(abs)
	return med, worst, at, within, len(abs)
}

// signedMedian is the median of the errors that exist (its sign says
// whether the predictions run fast or slow).
func signedMedian(errs []float64) float64 {
	var v []float64
	for _, e := range errs {
		if !math.IsNaN(e) {
			v = append(v, e)
		}
	}
	m, err := stats.Median(v)
	if err != nil {
		return math.NaN()
	}
	return m
}

type fidReport struct {
	markdown
	f      *fidelityFlags
	prof   *harness.Profile
	source string
	sc     []*fidScenario
	wall   time.Duration
}

func writeFidelityReport(f *fidelityFlags, prof *harness.Profile, source string, sc []*fidScenario, wall time.Duration) error {
	r := &fidReport{f: f, prof: prof, source: source, sc: sc, wall: wall}
	dir := filepath.Join(f.out, "fidelity")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := r.plot(filepath.Join(dir, "fidelity.png")); err != nil {
		return err
	}
	if err := writeFidelityCSV(filepath.Join(dir, "runs.csv"), sc, true); err != nil {
		return err
	}
	r.header()
	r.summary()
	r.scenarios()
	r.machine()
	r.outliers()
	r.model()
	r.method()
	return os.WriteFile(filepath.Join(f.out, "fidelity.md"), []byte(r.String()), 0o644)
}

func (r *fidReport) command() string {
	cmd := "go run ./cmd/syncbench fidelity"
	for _, a := range r.f.args {
		if a == "" || strings.ContainsAny(a, " \t\"'$") {
			a = strconv.Quote(a)
		}
		cmd += " " + a
	}
	return cmd
}

// all is x over every real run of every scenario.
func (r *fidReport) all(x func(fidReal) float64) []float64 {
	var v []float64
	for _, s := range r.sc {
		for _, m := range s.meas {
			v = append(v, x(m))
		}
	}
	return v
}

func (r *fidReport) header() {
	m := r.prof.Machine
	r.p("# Fidelity: virtual time against the real runtime\n\n")
	r.p("Generated by `syncbench fidelity`; do not edit by hand. Regenerate with\n\n```sh\n%s\n```\n\n", r.command())
	if r.f.quick {
		r.p("> **-quick**: tiny data, 100 ms runs, one repetition: checks the pipeline, the numbers mean little.\n\n")
	}
	loads := r.all(func(m fidReal) float64 { return m.Load })
	lmed, _ := stats.Median(loads)
	share := r.all(func(m fidReal) float64 { return cpuShare(m) })
	smed, _ := stats.Median(slices.DeleteFunc(slices.Clone(share), math.IsNaN))
	r.p("**Machine**: %s/%s, %s, %d CPUs (GOMAXPROCS %d), %s. **Wall time**: %s. The machine is shared: its 1-minute load average around the real runs was %s to %s (median %s) on %d CPUs, and the runs' processes got %s to %s cores' worth of CPU time (median %s; their CPU time over the time, from 10%% to 90%% of each run).\n\n",
		m.GOOS, m.GOARCH, m.CPU, m.NumCPU, m.GOMAXPROCS, m.Go, r.wall.Round(time.Second), fidNum(fidMin(loads), 1), fidNum(fidMax(loads), 1), fidNum(lmed, 1), m.NumCPU,
		fidNum(fidMin(share), 2), fidNum(fidMax(share), 2), fidNum(smed, 2))
	var rts []string
	if len(r.of("inproc")) > 0 {
		rts = append(rts, "goroutine workers and a coordinator over the in-process transport (harness's Real runtime, what `syncbench compare -clock real` runs)")
	}
	if len(r.of("grpc")) > 0 {
		rts = append(rts, "for the gRPC scenarios (named grpc/…), a coordinator in this process and a `syncbench worker` process per worker, over gRPC on loopback with TLS 1.3 and the job's token (package cluster, what `syncbench compare -clock grpc` runs)")
	}
	r.p("Each scenario runs %d time(s) on the **real clock** — %s — and in **virtual time**: ", r.f.reps, strings.Join(rts, "; "))
	r.p("*run*, once per real run with the costs of the cost profile `%s` (its runtime's: the in-process or the gRPC transport and work per commit) scaled to the speed that run measured (in process, its workers' compute time per point, Injected pauses excluded, against the profile's; over gRPC, the CPU time per commit of all its processes against the profile's: *Method*), GOMAXPROCS cores and the wake-up delay probed right before and after it, the median of these predictions against the median of the real runs; and *profile*, once, with the profile's costs alone, as `compare -profile` uses them. ", r.source)
	r.p("*run* asks whether the model turns the machine's speed into the right iterations, waits and times to target; *profile* whether a calibration taken once predicts runs taken later on a machine whose load changes. The virtual side is deterministic: the same profile and inputs (listed in `fidelity/runs.csv`) give the same predictions.\n\n")
}

// cpuShare is the cores' worth of CPU time a real run's process got.
func cpuShare(m fidReal) float64 {
	if m.Span <= 0 || m.OS.CPU <= 0 {
		return math.NaN()
	}
	return float64(m.OS.CPU) / float64(m.Span)
}

func fidMin(v []float64) float64 {
	out := math.NaN()
	for _, x := range v {
		if !math.IsNaN(x) && (math.IsNaN(out) || x < out) {
			out = x
		}
	}
	return out
}

func fidMax(v []float64) float64 {
	out := math.NaN()
	for _, x := range v {
		if !math.IsNaN(x) && (math.IsNaN(out) || x > out) {
			out = x
		}
	}
	return out
}

// fidRuntimeLabel names a runtime in the report.
var fidRuntimeLabel = map[string]string{
	"inproc": "the goroutine runtime (in process)",
	"grpc":   "the gRPC runtime (worker processes)",
}

// of are the scenarios of runtime rt.
func (r *fidReport) of(rt string) []*fidScenario {
	var out []*fidScenario
	for _, s := range r.sc {
		if s.rt == rt {
			out = append(out, s)
		}
	}
	return out
}

// runtimes are the runtimes that have scenarios, in -runtimes order.
func (r *fidReport) runtimes() []string {
	var out []string
	for _, rt := range r.f.rts {
		if len(r.of(rt)) > 0 {
			out = append(out, rt)
		}
	}
	return out
}

func (r *fidReport) summary() {
	r.p("## Errors\n\n")
	r.p("Relative error = predicted / measured − 1, per scenario; each runtime's table gives the median and the largest absolute error over its scenarios, the median signed error (negative: the predictions run fast), and how many are within %.0f%%. The goal: a median error of at most %.0f%% on the time to target. *repeat* is no prediction but the noise floor: each real run taken as the prediction of the median of its scenario's other real runs, the scenario's error of median size among them.\n\n", 100*fidGoal, 100*fidGoal)
	ttt := fidMetrics[2]
	for _, rt := range r.runtimes() {
		sc := r.of(rt)
		r.p("### %s\n\n", strings.ToUpper(fidRuntimeLabel[rt][:1])+fidRuntimeLabel[rt][1:])
		rows := [][]string{{"measure", "prediction", "median error", "median signed", "worst error (scenario)", fmt.Sprintf("within %.0f%%", 100*fidGoal)}}
		for _, m := range fidMetrics {
			for _, kind := range fidKinds {
				rows = append(rows, errorRow(sc, m.label, kind, fidErrors(sc, m, kind)))
			}
			rows = append(rows, errorRow(sc, m.label, "*repeat*", repeatErrors(sc, m)))
		}
		r.table(rows)
		med, _, _, _, _ := summary(fidErrors(sc, ttt, "run"))
		verdict := "meets"
		if !(med <= fidGoal) {
			verdict = "misses"
		}
		r.p("\nFor %s, at the runs' speed the median error on the time to target is %s: the prediction %s the goal. ", fidRuntimeLabel[rt], fidPct(med), verdict)
		if rep, _, _, _, _ := summary(repeatErrors(sc, ttt)); !math.IsNaN(rep) {
			in, n := inRange(sc, ttt, "run")
			r.p("Running a scenario once more misses the median of its other real runs by %s (*repeat*, the median over the scenarios): the machine's run-to-run noise, which the real runs' median carries too; %d of the %d predictions lie between the fastest and the slowest of their scenario's real runs. ", fidPct(rep), in, n)
		}
		pmed, _, _, _, _ := summary(fidErrors(sc, ttt, "profile"))
		r.p("From the profile alone it is %s: the runs' speed against the profile's (%s) ranged from %s to %s (a loaded machine computes slower, and the load moved between the calibration and the runs).\n\n", fidPct(pmed), fidSpeedLabel[fidSpeeds[rt]], fidNum(r.speedRange(sc, fidMin), 2), fidNum(r.speedRange(sc, fidMax), 2))
		r.p("What each term of the model contributes: the prediction at the real runs' median inputs, and again with the operating system's stalls added, or with one term taken out (the same inputs otherwise); the *run* prediction, the median of the predictions of each real run, for comparison.\n\n")
		rows = [][]string{{"prediction", "time per iteration: median error", "median signed", "time to target: median error", "median signed", fmt.Sprintf("time to target within %.0f%%", 100*fidGoal)}}
		kinds := append([]string{"run", "median"}, fidAblationKeys(rt)...)
		labels := append([]string{"run (each real run's inputs, the median prediction)", "at the median inputs (the full model)"}, fidAblationLabels(rt)...)
		for i, kind := range kinds {
			ie := fidErrors(sc, fidMetrics[0], kind)
			te := fidErrors(sc, ttt, kind)
			imed, _, _, _, _ := summary(ie)
			tmed, _, _, within, n := summary(te)
			rows = append(rows, []string{labels[i], fidPct(imed), fidSigned(signedMedian(ie)), fidPct(tmed), fidSigned(signedMedian(te)), fmt.Sprintf("%d of %d", within, n)})
		}
		r.table(rows)
		r.p("\n")
	}
	r.p("![predicted against measured](fidelity/fidelity.png)\n\n")
	r.p("*Predicted against measured, one mark per scenario (colour: sync model; circle: LR, square: K-means; hollow: injected stragglers). One row of panels per runtime and prediction: %s. The solid line is a perfect prediction, the dashed ones ±%.0f%%.*\n\n", strings.Join(r.plotRows(), "; "), 100*fidGoal)
}

// plotRows describe the plot's rows, top to bottom.
func (r *fidReport) plotRows() []string {
	var out []string
	for _, rt := range r.runtimes() {
		for _, kind := range fidKinds {
			what := "at the runs' speed"
			if kind == "profile" {
				what = "from the profile alone"
			}
			out = append(out, fmt.Sprintf("%s, %s", fidRuntimeLabel[rt], what))
		}
	}
	return out
}

// fidAblationKeys are the variants of runtime rt ("": every variant).
func fidAblationKeys(rt string) []string {
	var out []string
	for _, a := range fidAblations {
		if rt == "" || a.rt == "" || a.rt == rt {
			out = append(out, a.key)
		}
	}
	return out
}

func fidAblationLabels(rt string) []string {
	var out []string
	for _, a := range fidAblations {
		if rt == "" || a.rt == "" || a.rt == rt {
			out = append(out, "at the median inputs "+a.label)
		}
	}
	return out
}

// speedRange is agg over the real runs of scenarios sc of the speed
// their prediction at the runs' speed takes (fidSpeeds), the profile's
// being 1.
func (r *fidReport) speedRange(sc []*fidScenario, agg func([]float64) float64) float64 {
	var v []float64
	for _, s := range sc {
		c, err := r.prof.CostModel(s.w.shape, s.rt)
		if err != nil {
			continue
		}
		for i := range s.meas {
			if k, err := s.speed(c, inputsOf(s.meas[i:i+1]), fidSpeeds[s.rt]); err == nil {
				v = append(v, k)
			}
		}
	}
	return agg(v)
}

// fidSpeedLabel names the measures of fidSpeeds.
var fidSpeedLabel = map[string]string{
	"busy": "the workers' compute time per point over the profile's",
	"cpu":  "every process's CPU time per commit over the profile's compute and work per commit",
}

func fidPct(v float64) string {
	if math.IsNaN(v) {
		return "–"
	}
	return fmt.Sprintf("%.0f%%", 100*v)
}

func fidSigned(v float64) string {
	if math.IsNaN(v) {
		return "–"
	}
	return fmt.Sprintf("%+.0f%%", 100*v)
}

func fidNum(v float64, prec int) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "–"
	}
	return strconv.FormatFloat(v, 'f', prec, 64)
}

func (r *fidReport) scenarios() {
	r.p("## Scenarios\n\n")
	r.p("Workload / workers / stragglers / sync model, and the run length. *Measured* is the median over the real runs; each prediction's error follows it. Stragglers: %s. Batches of 500 points; %d objective snapshots per run (times to target interpolated between them); the target is a share of the least improvement over θ0 among the scenario's runs (real and predicted), on the way down to the plateau: 95%% for LR, 98%% for K-means (whose first rounds take 80%% of it).\n\n",
		"a quarter of the workers (at least one) pause 32 ms after every 1,000 points (FSP §6.1's Injected)", r.f.snapshots())
	rows := [][]string{{"scenario", "run", "ms/iteration", "run", "profile", "wait %", "run", "profile", "ms to target", "run", "profile"}}
	for _, s := range r.sc {
		row := []string{s.name(), s.dur.String()}
		for _, m := range fidMetrics {
			meas := s.measured(m)
			prec := 3
			if m.key == "wait" {
				prec = 0
			} else if meas >= 100 {
				prec = 0
			} else if meas >= 10 {
				prec = 1
			}
			row = append(row, fidNum(meas, prec), fidSigned(relErr(s.predicted(m, "run"), meas)), fidSigned(relErr(s.predicted(m, "profile"), meas)))
		}
		rows = append(rows, row)
	}
	r.table(rows)
	r.p("\n")
}

// machine lists what the operating system and the runtime did during
// each scenario's real runs (medians over the repetitions).
func (r *fidReport) machine() {
	r.p("## The machine during the runs\n\n")
	r.p("Medians over each scenario's real runs. *ns/point*: the workers' compute time per point (Busy less Injected pauses, over points), the speed the *run* prediction takes, with its range over the repetitions; *wake µs*: the wake probes' median; *CPU*: the cores' worth of CPU time the process got; *queued µs/it*: how long its threads waited in the operating system's run queue per iteration, and *preempted/it* how often the scheduler took a CPU from one of them (Linux `/proc/self/task/*/schedstat` and `status`); *stall µs* and *every µs*: the stalls the *with stalls* variant draws, the mean time a preemption took a thread's CPU (run-queue time less the wake-ups', per preemption) and the mean running time between two (CPU time per preemption); *GC/s*: garbage collections per second, and *GC %% CPU* their share of the process's CPU time (the coordinator's process); *commit µs*: the CPU time per commit beyond its points, every process's (their CPU time over the span, at that rate over the run, per commit, less a commit's points at the run's compute time per point: a floor, as that time holds the stalls in the batches), against *model µs*, the work per commit the prediction at the runs' median inputs takes. For the gRPC scenarios the counters add up the coordinator's and the worker processes' (`/proc/PID/task/*`). The counters are read at each run's progress reports at 10%% and 90%% of its length: the run itself, not its setup nor the objective's evaluation after it.\n\n")
	rows := [][]string{{"scenario", "ns/point", "range", "wake µs", "CPU", "queued µs/it", "preempted/it", "stall µs", "every µs", "GC/s", "GC % CPU", "commit µs", "model µs"}}
	for _, s := range r.sc {
		pts := r.scen(s, func(m fidReal) float64 { return m.PointNS })
		rows = append(rows, []string{s.name(), fidNum(s.measMedian(func(m fidReal) float64 { return m.PointNS }), 0),
			fmt.Sprintf("%s–%s", fidNum(fidMin(pts), 0), fidNum(fidMax(pts), 0)),
			fidNum(s.measMedian(func(m fidReal) float64 { return m.WakeNS / 1e3 }), 1),
			fidNum(s.measMedian(cpuShare), 2),
			fidNum(s.perIter(func(m fidReal) float64 { return float64(m.OS.RunQueue) / 1e3 }), 0),
			fidNum(s.perIter(func(m fidReal) float64 { return float64(m.OS.Involuntary) }), 2),
			fidNum(s.inputs().StallNS/1e3, 0), fidNum(s.inputs().StallEveryNS/1e3, 0),
			fidNum(s.measMedian(func(m fidReal) float64 { return float64(m.GC.cycles) / m.Span.Seconds() }), 0),
			fidNum(s.measMedian(func(m fidReal) float64 { return 100 * float64(m.GC.cpu) / float64(m.OS.CPU) }), 0),
			fidNum(s.commitMedian()/1e3, 0), fidNum(r.modelCommit(s)/1e3, 0)})
	}
	r.table(rows)
	r.p("\n")
}

// commitCPU is a real run's CPU time per commit beyond its points, in
// ns, every process's: its CPU time per commit (runCPUPerCommit) less
// the points of a commit at the run's compute time per point (NaN where
// not measured). The compute time per point is the workers' Busy time,
// which holds what stalls fell in the batches: the figure is a floor.
func (m fidReal) commitCPU() float64 {
	if !(m.CommitCPUNS > 0) {
		return math.NaN()
	}
	return m.CommitCPUNS - float64(m.CommitPoints*m.PointNS)
}

// commitMedian is the median of commitCPU over the scenario's real runs.
func (s *fidScenario) commitMedian() float64 {
	var v []float64
	for _, m := range s.meas[:min(len(s.meas), len(s.real))] {
		if c := m.commitCPU(); !math.IsNaN(c) {
			v = append(v, c)
		}
	}
	med, err := stats.Median(v)
	if err != nil {
		return math.NaN()
	}
	return med
}

// modelCommit is the work per commit the prediction at the runs' median
// inputs takes, in ns.
func (r *fidReport) modelCommit(s *fidScenario) float64 {
	c, err := s.runCost(r.prof, s.inputs())
	if err != nil {
		return math.NaN()
	}
	return float64(c.CommitCPU)
}

// scen is x over the scenario's real runs.
func (r *fidReport) scen(s *fidScenario, x func(fidReal) float64) []float64 {
	var v []float64
	for _, m := range s.meas {
		v = append(v, x(m))
	}
	return v
}

// perIter is the median over the scenario's real runs of x (a counter
// over the run's span) per iteration of the run.
func (s *fidScenario) perIter(x func(fidReal) float64) float64 {
	var v []float64
	for i, m := range s.meas {
		if it := perIteration(s.real[i]); it > 0 && m.Span > 0 {
			v = append(v, x(m)/float64(m.Span)*float64(it))
		}
	}
	med, err := stats.Median(v)
	if err != nil {
		return math.NaN()
	}
	return med
}

// outliers explains the scenarios whose time to target the prediction
// at the runs' speed misses by more than fidGoal, from what was
// measured.
func (r *fidReport) outliers() {
	r.p("## Outliers\n\n")
	ttt := fidMetrics[2]
	var lines []string
	for _, s := range r.sc {
		e := relErr(s.predicted(ttt, "run"), s.measured(ttt))
		if math.IsNaN(e) || math.Abs(e) <= fidGoal {
			continue
		}
		lines = append(lines, fmt.Sprintf("- **%s** (time to target %s): %s.", s.name(), fidSigned(e), strings.Join(r.diagnose(s), "; ")))
	}
	if len(lines) == 0 {
		r.p("No scenario's time to target is off by more than %.0f%% at the runs' speed.\n\n", 100*fidGoal)
		return
	}
	r.p("The scenarios whose time to target the *run* prediction misses by more than %.0f%%, with what the measurements say of each (every item is computed from the runs):\n\n", 100*fidGoal)
	r.p("%s\n\n", strings.Join(lines, "\n"))
}

// diagnose lists what the measurements say about a scenario.
func (r *fidReport) diagnose(s *fidScenario) []string {
	var out []string
	ttt, it, wait := fidMetrics[2], fidMetrics[0], fidMetrics[1]
	var times []float64
	for _, rr := range s.real {
		if v := ttt.of(s, rr); !math.IsNaN(v) {
			times = append(times, v)
		}
	}
	if len(times) > 1 && fidMin(times) > 0 {
		if sp := fidMax(times) / fidMin(times); sp >= 1.25 {
			out = append(out, fmt.Sprintf("noise: its %d real runs reached the target between %.1f and %.1f ms (×%.2f)", len(times), fidMin(times), fidMax(times), sp))
		}
	}
	if ri, pi := s.realMedian(s.itersToTarget), medianOf(s.reps, s.itersToTarget); ri > 0 && pi > 0 {
		per := func(r *harness.Result) float64 {
			n := s.itersToTarget(r)
			if !(n > 0) {
				return math.NaN()
			}
			return float64(s.timeTo(r).Seconds()*1e3) / n
		}
		out = append(out, fmt.Sprintf("to the target the real runs took %.1f iterations of %.3f ms, the prediction %.1f of %.3f ms (medians; the real runs' iterations over their whole length took %.3f ms)", ri, s.realMedian(per), pi, medianOf(s.reps, per), s.measured(it)))
	}
	pts := r.scen(s, func(m fidReal) float64 { return m.PointNS })
	if len(pts) > 1 && fidMin(pts) > 0 && fidMax(pts)/fidMin(pts) >= 1.25 {
		out = append(out, fmt.Sprintf("the machine's speed changed between its runs (%.0f to %.0f ns per point)", fidMin(pts), fidMax(pts)))
	}
	if ie := relErr(s.predicted(it, "run"), s.measured(it)); !math.IsNaN(ie) && math.Abs(ie) > fidGoal {
		out = append(out, fmt.Sprintf("the time per iteration is off too (%s: %.3f ms predicted, %.3f measured)", fidSigned(ie), s.predicted(it, "run"), s.measured(it)))
	} else if !math.IsNaN(ie) {
		out = append(out, fmt.Sprintf("the time per iteration is right (%s), so the gap is in how far each iteration gets: the real runs %s", fidSigned(ie), r.progressNote(s)))
	}
	if mc, pc := s.commitMedian(), r.modelCommit(s); mc > 0 && pc > 0 && (pc/mc > 1.33 || mc/pc > 1.33) {
		out = append(out, fmt.Sprintf("the processes' CPU time per commit beyond its points was %.0f µs, the model's work per commit %.0f µs (at the runs' median speed)", mc/1e3, pc/1e3))
	}
	if md, pd := s.realMedian(commitDelay), medianOf(s.reps, commitDelay); md > 2*pd && md-pd > 50e3 {
		out = append(out, fmt.Sprintf("one commit in ten reached the coordinator's model %.0f µs or more after its worker sent it (the 90th percentile; predicted %.0f µs): the real coordinator is a goroutine on the workers' GOMAXPROCS cores, the model's takes no core, so the model's FSP barriers begin sooner and its releases go out sooner", md/1e3, pd/1e3))
	}
	if rw, pw := s.realMedian(roundWorkers), medianOf(s.reps, roundWorkers); rw > 0 && pw > 0 && math.Abs(rw/pw-1) > 0.25 {
		out = append(out, fmt.Sprintf("a version's points came from %.1f workers' worth of computing in the real runs, %.1f in the prediction (the participation (Σp)²/Σp² of its deltas' points, the mean over versions, the median run): the model gives the cores to other workers, or to more of them, than the machine did", rw, pw))
	}
	if rs, ps := s.realMedian(shardWorkers), medianOf(s.reps, shardWorkers); rs > 0 && ps > 0 && math.Abs(rs/ps-1) > 0.25 {
		out = append(out, fmt.Sprintf("the run's points came from %.1f workers' shards' worth in the real runs, %.1f in the prediction (the participation of the workers' total points, the median run): the model gives the cores to the same workers round after round, the real runs to others too, so the prediction computes on less of the data", rs, ps))
	}
	if we := s.measured(wait) - s.predicted(wait, "run"); math.Abs(we) > 10 {
		out = append(out, fmt.Sprintf("the wait fraction is %.0f%% measured, %.0f%% predicted", s.measured(wait), s.predicted(wait, "run")))
	}
	iters := s.measured(ttt) / s.measured(it)
	if !math.IsNaN(iters) && iters < 10 {
		out = append(out, fmt.Sprintf("the target is reached in %.1f iterations, so one iteration more or less is %.0f%%", iters, 100/iters))
	}
	if q, per := s.perIter(func(m fidReal) float64 { return float64(m.OS.RunQueue) }), s.measured(it)*1e6; q > 0 && per > 0 && q/per >= 0.2 {
		pre := s.perIter(func(m fidReal) float64 { return float64(m.OS.Involuntary) })
		out = append(out, fmt.Sprintf("the operating system kept its threads waiting for a CPU %.0f µs per iteration (%.0f%% of an iteration's time, summed over threads) and took a CPU from them %.2f times per iteration: the model has the machine's mean speed, not when the other processes took the CPUs", q/1e3, 100*q/per, pre))
	}
	var gcs, shares []float64
	for _, m := range s.meas {
		if d := m.Span.Seconds(); d > 0 && m.OS.CPU > 0 {
			gcs = append(gcs, float64(m.GC.cycles)/d)
			shares = append(shares, float64(m.GC.cpu)/float64(m.OS.CPU))
		}
	}
	if gm, _ := stats.Median(gcs); gm > 0 {
		sh, _ := stats.Median(shares)
		out = append(out, fmt.Sprintf("GC: %.0f cycles/s, %.0f%% of the process's CPU time", gm, 100*sh))
	}
	if len(out) == 0 {
		out = append(out, "nothing measured stands out")
	}
	return out
}

// commitDelay is the 90th percentile of the time, in ns, from a
// worker's sending a commit to the coordinator's accepting it, over a
// run's trace (NaN without the workers' side: the gRPC runtime's worker
// processes keep theirs).
func commitDelay(r *harness.Result) float64 {
	if r.Trace == nil || !r.Trace.WorkerSide {
		return math.NaN()
	}
	type key struct {
		w   consistency.WorkerID
		seq uint64
	}
	sent := map[key]time.Duration{}
	var d []float64
	for _, rec := range r.Trace.Records {
		k := key{rec.Worker, rec.Seq}
		switch rec.Kind {
		case consistency.RecSend:
			sent[k] = rec.At
		case consistency.RecCommit:
			if t, ok := sent[k]; ok {
				d = append(d, float64(rec.At-t))
			}
		}
	}
	m, err := percentile(d, 90)
	if err != nil {
		return math.NaN()
	}
	return m
}

// participation is (Σp)²/Σp² over ps: k when k of them are equal and
// the others 0; NaN when all are 0.
func participation(ps []float64) float64 {
	var s1, s2 float64
	for _, p := range ps {
		s1 += p
		s2 += float64(p * p)
	}
	if s2 == 0 {
		return math.NaN()
	}
	return float64(s1*s1) / s2
}

// roundWorkers is how many workers' worth of computing a run's versions
// applied, on average: for each apply, the participation of the points
// of its deltas (the commits' points in the trace); NaN without applies
// of points.
func roundWorkers(r *harness.Result) float64 {
	if r.Trace == nil {
		return math.NaN()
	}
	pts := map[consistency.DeltaID]float64{}
	var sum float64
	var ps []float64
	n := 0
	for _, rec := range r.Trace.Records {
		switch rec.Kind {
		case consistency.RecCommit:
			pts[consistency.DeltaID{Worker: rec.Worker, Seq: rec.Seq}] = float64(rec.Points)
		case consistency.RecApply:
			ps = ps[:0]
			for _, id := range rec.Deltas {
				ps = append(ps, pts[id])
				delete(pts, id)
			}
			if k := participation(ps); !math.IsNaN(k) {
				sum += k
				n++
			}
		}
	}
	if n == 0 {
		return math.NaN()
	}
	return sum / float64(n)
}

// shardWorkers is how many workers' shards a run computed on: the
// participation of the workers' total points.
func shardWorkers(r *harness.Result) float64 {
	ps := make([]float64, len(r.Workers))
	for i, w := range r.Workers {
		ps[i] = float64(w.Points)
	}
	return participation(ps)
}

// progressNote compares the points applied per server version, real and
// predicted: what asynchronous models make of the same time.
func (r *fidReport) progressNote(s *fidScenario) string {
	pts := func(res *harness.Result) float64 {
		if len(res.Curve) == 0 || res.Versions == 0 {
			return math.NaN()
		}
		return float64(res.Curve[len(res.Curve)-1].Points) / float64(res.Versions)
	}
	pred := medianOf(s.reps, pts)
	return fmt.Sprintf("applied %s points per server version, the prediction %s", fidNum(s.realMedian(pts), 0), fidNum(pred, 0))
}

func (r *fidReport) model() {
	r.p("## The model\n\n")
	r.p("The simulator's cost model had a compute time per point, a message latency and bandwidth, and an apply time per entry, and every worker had a core of its own. Against the goroutine runtime on a machine of %d cores the model now also has (`harness.CostModel`, `harness/cores.go`):\n\n", r.prof.Machine.GOMAXPROCS)
	r.p("- **Cores** (`Cores`): the workers share the cores as goroutines share GOMAXPROCS threads: a worker with points to compute waits for a free core, first come first served, and is preempted after 10 ms when others wait (Go's scheduler), so a round of N batches on C cores takes N/C batch times and each worker's turn counts as waiting, as the real runtime measures it.\n")
	r.p("- **The runtime's work per commit** (`CommitCPU`): decoding a release, encoding a commit, the coordinator's handling of both and the garbage they make, computed on the shared cores before each batch's points. The profile measured it as %s (the process's CPU time per commit of runs committing one point at a time, in units of the profile's compute time per point).", r.commitLine("inproc"))
	if len(r.of("grpc")) > 0 {
		r.p(" For the gRPC runtime it is %s: %s.", r.commitLine("grpc"), r.processLine())
	}
	r.p("\n")
	r.p("- **Wake-ups** (`Wakeup`): a core idle for longer than a commit's round trip has gone to sleep, and starting a worker on it waits for the operating system to run its thread: %s in the profile, %s to %s µs in the probes around the real runs. A worker goes back to the core it ran on (the coordinator's release readies it on the P its commit woke).\n",
		r.wakeLine(), fidNum(fidMin(r.all(func(m fidReal) float64 { return m.WakeNS / 1e3 })), 1), fidNum(fidMax(r.all(func(m fidReal) float64 { return m.WakeNS / 1e3 })), 1))
	var st, ev []float64
	for _, s := range r.of("inproc") {
		in := s.inputs()
		st, ev = append(st, in.StallNS/1e3), append(ev, in.StallEveryNS/1e3)
	}
	if len(st) > 0 {
		se, _, _, _, _ := summary(fidErrors(r.of("inproc"), fidMetrics[2], "stalls"))
		re, _, _, _, _ := summary(fidErrors(r.of("inproc"), fidMetrics[2], "median"))
		r.p("- **Stalls** (`Stall`, `StallEvery`), a variant for the goroutine runtime: the operating system takes a core away for other processes, and the worker on it stops until it comes back; the other cores go on, and a barrier waits for the stopped worker. The mean speed spreads a stall over every batch; a barrier meets it whole. In the in-process runs here a preemption took a thread's CPU for %s to %s µs (medians per scenario; run-queue time less the wake-ups', per preemption) after %s to %s µs of running (CPU time per preemption). The *with stalls* variant draws stalls with its scenario's means (uniform between 0 and twice the mean, from the seed) and computes at the speed left without them; its median error on the time to target is %s against %s without (both at the runs' median inputs). The counters count every preemption of the run's threads, those by the run's own waking threads too, so these means are not the other processes' time slices alone, and the *run* prediction leaves stalls out. There is no such variant for the gRPC runtime: its worker processes' preemptions are mostly each other's turns on the cores, which the shared cores model already, and its speed, from CPU time, holds no stall to take out.\n\n",
			fidNum(fidMin(st), 0), fidNum(fidMax(st), 0), fidNum(fidMin(ev), 0), fidNum(fidMax(ev), 0), fidPct(se), fidPct(re))
	}
	r.processes()
	r.p("Unset, each is 0 and the simulator is what it was. The table under *Errors* shows what each contributes to the predictions here.\n\n")
}

// processes describes, for the gRPC runtime, the CPU time per commit
// the runs' processes measured against the model's, and their threads'
// wait for a CPU against the goroutine runtime's.
func (r *fidReport) processes() {
	sc := r.of("grpc")
	if len(sc) == 0 {
		return
	}
	var meas, model, ratio []float64
	for _, s := range sc {
		mc, pc := s.commitMedian(), r.modelCommit(s)
		if mc > 0 && pc > 0 {
			meas, model, ratio = append(meas, mc/1e3), append(model, pc/1e3), append(ratio, pc/mc)
		}
	}
	queued := func(rt string) float64 {
		var v []float64
		for _, s := range r.of(rt) {
			if it := s.measured(fidMetrics[0]); it > 0 {
				v = append(v, s.perIter(func(m fidReal) float64 { return float64(m.OS.RunQueue) })/(it*1e6))
			}
		}
		m, err := stats.Median(slices.DeleteFunc(v, math.IsNaN))
		if err != nil {
			return math.NaN()
		}
		return m
	}
	med := func(v []float64) float64 {
		m, err := stats.Median(v)
		if err != nil {
			return math.NaN()
		}
		return m
	}
	ce, _, _, _, _ := summary(fidErrors(sc, fidMetrics[2], "cpu"))
	pe, _, _, _, _ := summary(fidErrors(sc, fidMetrics[2], "process"))
	r.p("**Separate processes** (the gRPC runtime). Over its scenarios the processes' CPU time per commit beyond the points (*commit µs* under *The machine during the runs*) was %s to %s µs, median %s; the model's work per commit at the runs' median speed %s to %s µs, median %s, %s times the measured at the median. ",
		fidNum(fidMin(meas), 0), fidNum(fidMax(meas), 0), fidNum(med(meas), 0), fidNum(fidMin(model), 0), fidNum(fidMax(model), 0), fidNum(med(model), 0), fidNum(med(ratio), 2))
	be, _, _, _, _ := summary(fidErrors(sc, fidMetrics[2], "speed-busy"))
	r.p("The operating system time-slices the worker processes among themselves: their threads waited for a CPU %s times an iteration's time, summed over threads (the median scenario), against %s times for the goroutine runtime's, whose scheduler does not slice a batch. A worker's Busy time holds those turns, and the model's shared cores add them again; so the prediction at the runs' speed takes the speed of the gRPC runs from their processes' CPU time per commit, not from the workers' Busy time per point (*Method*). At the speed of the Busy time the median error on the time to target is %s. ", fidNum(queued("grpc"), 1), fidNum(queued("inproc"), 1), fidPct(be))
	r.p("The variant with the runs' own CPU time per commit has a median error on the time to target of %s, and the one without the worker processes' share %s (the tables under *Errors*).\n\n", fidPct(ce), fidPct(pe))
}

// processLine says what the profile measured of the worker processes'
// work per commit.
func (r *fidReport) processLine() string {
	t, ok := r.prof.Transport("grpc")
	if !ok || t.ProcessCommitNS <= 0 {
		return "the profile has no measure of what worker processes add"
	}
	return fmt.Sprintf("the workload's work per commit over gRPC with both ends in one process (TLS, protobuf and system calls included), plus what separate worker processes add — a null commit took %.1f µs of CPU, every process's, with the workers in processes of their own and %.1f µs with them in the coordinator's (calibrate's `process_commit_ns` and `null_commit_ns`): each process's own scheduler, wake-ups across processes and garbage collection, %.1f µs per commit that the measure in one process lacks", t.ProcessCommitNS/1e3, t.NullCommitNS/1e3, (t.ProcessCommitNS-t.NullCommitNS)/1e3)
}

func (r *fidReport) commitLine(rt string) string {
	parts := r.perWorkload(rt, func(s *fidScenario, c harness.CostModel) string {
		if c.PointCost <= 0 {
			return ""
		}
		return fmt.Sprintf("%v per commit for %s (%.0f points' worth)", c.CommitCPU.Round(100*time.Nanosecond), s.w.label, float64(c.CommitCPU)/float64(c.PointCost))
	})
	if len(parts) == 0 {
		return "–"
	}
	return strings.Join(parts, ", ")
}

// perWorkload is f of each workload's first scenario of runtime rt and
// its profile cost model, in -workloads order ("" left out).
func (r *fidReport) perWorkload(rt string, f func(*fidScenario, harness.CostModel) string) []string {
	var out []string
	for _, key := range r.f.works {
		i := slices.IndexFunc(r.sc, func(s *fidScenario) bool { return s.w.key == key && s.rt == rt })
		if i < 0 {
			continue
		}
		c, err := r.prof.CostModel(r.sc[i].w.shape, rt)
		if err != nil {
			continue
		}
		if p := f(r.sc[i], c); p != "" {
			out = append(out, p)
		}
	}
	return out
}

func (r *fidReport) wakeLine() string {
	if r.prof.WakeupNS <= 0 {
		return "not measured"
	}
	return fmt.Sprintf("%.1f µs", r.prof.WakeupNS/1e3)
}

func (r *fidReport) method() {
	r.p("## Method\n\n")
	r.p("- **Workloads**: LR — logistic regression with Adam (learning rate 0.005) on `synthetic:logistic`, 100 features; K-means — 16 clusters of `synthetic:blobs`-style Gaussian blobs (spread 10), 27 features, incremental EM. %s.\n", r.sizes())
	r.p("- **Runs**: every run is what `syncbench compare` runs with `-workers N -stragglers S -sync MODEL -batch 500 -duration D -eval-every D/%d -seed %d` and `-clock real` or `-clock virtual` (the virtual runs with the cost model set from the profile, or from the profile and the real runs' inputs). D is 4 times the time to target of a virtual pilot run from the profile, between %v and %v, so that the snapshots time the target's crossing closely. The real runs go repetition by repetition (every scenario once, then again), so a slow minute of the shared machine touches one repetition of many scenarios.\n", r.f.snapshots(), r.f.seed, r.f.duration/20, r.f.duration)
	if len(r.of("grpc")) > 0 {
		r.p("- **The gRPC runs** (`-runtimes grpc`, `-grpc-workers %s`): what `compare -clock grpc` runs (`setupGRPC`, `grpcRuns.run`): the coordinator in this process listens on loopback with a job's TLS directory, and one `syncbench worker` process per worker, started once per workload and worker count, serves every run of its scenarios (the job's runs, `cluster.Job.Runs`), each run its own coordinator run whose trace `consistency.Check` passes. The workers load the data themselves: LR regenerates `synthetic:logistic` from the seed, K-means reads the blobs from a CSV file written exactly. Each worker writes what it did in each run (`syncbench worker -stats`: points, commits, Busy and Paused time, measured by the runtime code that measures a goroutine worker's), which the coordinator does not see; the compute time per point is the workers' as for the in-process runtime. The gRPC grid is %s at %s workers: a process per worker on this machine's %d cores, so that the grid stays affordable (each gRPC run took %s s longer than its length, the median: the job's fetch, the workers' data load, the join) and measures the runtime more than the operating system's scheduling of many processes.\n",
			r.f.grpcList, r.gridLine(), r.f.grpcList, r.prof.Machine.NumCPU, fidNum(r.setupMedian("grpc"), 1))
	}
	r.p("- **Around each real run**: a wake probe right before and right after it (%d times, a goroutine locked to its thread sleeps 200 µs and sends the time to another whose thread sleeps in the receive; the median delay), %s and, from the run's progress report at 10%% of its length to the one at 90%%, the process's CPU time (`getrusage`), its threads' run-queue time and context switches (Linux `/proc`), and the garbage collector's cycles and CPU time (`runtime/metrics`); for the gRPC runs the worker processes' CPU time, run-queue time and context switches too (`/proc/PID/task/*`), added to the coordinator's, while the garbage collector's counters stay the coordinator's.\n", r.f.wakeSamples(), r.warmLine())
	r.p("- **The prediction at the runs' speed**: the profile's cost model for the workload (`Profile.CostModel`, over the runtime's transport: for the gRPC runtime the latency between processes and the work per commit with worker processes, `docs/calibrate.md`) with every time — compute per point, apply per entry, message latency and cost, work per commit — scaled by a real run's speed (for the variants, the runs' median): for the goroutine runtime its workers' compute time per point over the profile's, which holds what the other processes left of the cores (Go's scheduler does not slice a batch among goroutines); for the gRPC runtime the CPU time per commit of all its processes (their CPU time over the span, at that rate over the run, per commit) over what the profile's costs give a commit (its points at the profile's compute time per point, plus its work per commit), as the workers' Busy time there holds their turns on the cores among the job's own processes, which the model's shared cores add again. The variants *at the speed of the processes' CPU time per commit* (in process) and *at the speed of the workers' Busy time per point* (gRPC) take the other measure. Then %d cores (GOMAXPROCS), and the wake-up delay the probes around that run found (for the variants, the median). Each real run's prediction is a virtual run of its own: their timings differ, and so do the orders in which commits meet, as the real runs' do; the report takes the median. The *with stalls* variant adds stalls with the runs' median length and spacing and divides the work on the cores by 1 + stall/spacing where the speed is the workers' compute time per point, which holds them (the goroutine runtime), not where it is CPU time (gRPC).\n", r.prof.Machine.GOMAXPROCS)
	r.p("- **Measures**: time per iteration = run length / mean commits per worker; wait fraction = `Result.WaitFraction` (from a commit to the next release, the worker's own clock on the real runtime); time to target = the first crossing of the target, interpolated between snapshots.\n")
	r.p("- **The profile** (`%s`): %s.\n\n", r.source, r.profileLine())
}

// warmLine says what ran between the wake probe and the run (-warmup).
func (r *fidReport) warmLine() string {
	if r.f.warmup <= 0 {
		return "then the run at once (`-warmup 0`: its first iterations may run slower than the rest, on cores just back from the probe's idle spell),"
	}
	return fmt.Sprintf("then %v of computing on every core (`-warmup`: on a 2-vCPU virtual machine, cores that had just been idle came back slowly, and a run started on them ran its first iterations, those before the target, slower than its later ones: `fidWarmUp` in cmd/syncbench/machine.go has the measurement),", r.f.warmup)
}

// setupMedian is the median over runtime rt's real runs of their wall
// time less their length, in seconds.
func (r *fidReport) setupMedian(rt string) float64 {
	var v []float64
	for _, s := range r.of(rt) {
		for _, m := range s.meas {
			v = append(v, (m.Wall - s.dur).Seconds())
		}
	}
	med, err := stats.Median(v)
	if err != nil {
		return math.NaN()
	}
	return med
}

// gridLine describes the gRPC grid: its workloads, models and
// stragglers.
func (r *fidReport) gridLine() string {
	var ws []string
	for _, key := range r.f.works {
		if i := slices.IndexFunc(r.of("grpc"), func(s *fidScenario) bool { return s.w.key == key }); i >= 0 {
			ws = append(ws, r.of("grpc")[i].w.label)
		}
	}
	return fmt.Sprintf("%s × %s × with and without Injected stragglers", strings.Join(ws, " and "), strings.Join(r.f.syncs, ", "))
}

func (r *fidReport) sizes() string {
	var out []string
	for _, key := range r.f.works {
		for _, s := range r.sc {
			if s.w.key == key {
				out = append(out, fmt.Sprintf("%s: %s", s.w.label, s.w.d.describe()))
				break
			}
		}
	}
	return strings.Join(out, "; ")
}

func (r *fidReport) profileLine() string {
	var parts []string
	for _, rt := range r.runtimes() {
		parts = append(parts, r.perWorkload(rt, func(s *fidScenario, c harness.CostModel) string {
			return fmt.Sprintf("%s %v per point, %v per apply entry, %v per commit (%s)", s.w.label, c.PointCost, c.EntryCost, c.CommitCPU.Round(100*time.Nanosecond), rt)
		})...)
	}
	for _, rt := range r.runtimes() {
		if t, ok := r.prof.Transport(rt); ok {
			parts = append(parts, fmt.Sprintf("%s messages %.1f µs one way, %.2f µs each, %.0f MB/s", map[string]string{"inproc": "in-process", "grpc": "gRPC"}[rt], t.LatencyNS/1e3, t.MessageNS/1e3, t.Bandwidth/1e6))
		}
	}
	parts = append(parts, fmt.Sprintf("%.2f cores, a wake-up %s", r.prof.Cores, r.wakeLine()))
	return strings.Join(parts, "; ")
}

// plot draws predicted against measured: a row per runtime and
// prediction kind, a column per measure.
func (r *fidReport) plot(path string) error {
	var rows [][]*plot.Plot
	for _, rt := range r.runtimes() {
		for _, kind := range fidKinds {
			var row []*plot.Plot
			for _, m := range fidMetrics {
				p, err := r.panel(m, kind, rt)
				if err != nil {
					return err
				}
				row = append(row, p)
			}
			rows = append(rows, row)
		}
	}
	return saveTiles(rows, 33*vg.Centimeter, vg.Length(float64(vg.Length(len(rows))*10.5*vg.Centimeter)), path)
}

func (r *fidReport) panel(m fidMetric, kind, rt string) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = fmt.Sprintf("%s: %s (%s)", rt, m.label, kind)
	p.X.Label.Text = "measured (" + m.unit + ")"
	p.Y.Label.Text = "predicted (" + m.unit + ")"
	p.Add(plotter.NewGrid())
	lo, hi := math.Inf(1), math.Inf(-1)
	type pt struct {
		xy    plotter.XY
		sync  string
		glyph draw.GlyphDrawer
	}
	var pts []pt
	for _, s := range r.of(rt) {
		x, y := s.measured(m), s.predicted(m, kind)
		if math.IsNaN(x) || math.IsNaN(y) || (m.log && (x <= 0 || y <= 0)) {
			continue
		}
		var g draw.GlyphDrawer = draw.CircleGlyph{}
		if s.w.key == "kmeans" {
			g = draw.SquareGlyph{}
			if s.strag {
				g = draw.BoxGlyph{}
			}
		} else if s.strag {
			g = draw.RingGlyph{}
		}
		pts = append(pts, pt{plotter.XY{X: x, Y: y}, s.sync, g})
		lo, hi = math.Min(lo, math.Min(x, y)), math.Max(hi, math.Max(x, y))
	}
	if len(pts) == 0 {
		lo, hi = 1, 10
	}
	if m.log {
		p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
		p.X.Tick.Marker, p.Y.Tick.Marker = plot.LogTicks{Prec: -1}, plot.LogTicks{Prec: -1}
		lo, hi = lo/1.5, float64(hi*1.5)
	} else {
		lo, hi = 0, 100
	}
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = lo, hi, lo, hi
	// y = x and ±fidGoal.
	for _, f := range []float64{1, 1 - fidGoal, 1 + fidGoal} {
		var xys plotter.XYs
		const n = 50
		for i := range n + 1 {
			x := lo + (hi-lo)*float64(i)/n
			if m.log {
				x = float64(lo * fpdet.Pow(hi/lo, float64(i)/n))
			}
			xys = append(xys, plotter.XY{X: x, Y: float64(f * x)})
		}
		l, err := plotter.NewLine(xys)
		if err != nil {
			return nil, err
		}
		l.Color = color.Gray{Y: 90}
		if f != 1 {
			l.Dashes = []vg.Length{vg.Points(3), vg.Points(3)}
			l.Color = color.Gray{Y: 160}
		}
		p.Add(l)
	}
	seen := map[string]bool{}
	for _, q := range pts {
		st := styleFor(q.sync)
		if _, err := scatter(p, plotter.XYs{q.xy}, st.Color, q.glyph, vg.Points(3.5)); err != nil {
			return nil, err
		}
		if !seen[q.sync] && m.key == "iteration" {
			seen[q.sync] = true
			p.Legend.Add(q.sync, legendGlyph(st.Color, draw.CircleGlyph{}, vg.Points(3.5)))
		}
	}
	p.Legend.Top, p.Legend.Left = true, true
	return p, nil
}

// writeFidelityCSV writes a row per run: the scenario, the run (real #i,
// the prediction at the runs' speed, the profile's, the ablations), its
// measures, and for the real runs what was measured around them; the
// predictions at the runs' speed list the medians they took. withReal
// false writes the predictions only.
func writeFidelityCSV(path string, sc []*fidScenario, withReal bool) error {
	fh, err := os.Create(path)
	if err != nil {
		return err
	}
	w := csv.NewWriter(fh)
	w.Write([]string{"runtime", "workload", "workers", "stragglers", "sync", "run", "per_iteration_ms", "wait_fraction", "time_to_target_ms", "final", "versions", "iterations",
		"point_ns", "wake_ns", "procs", "stall_ms", "stall_every_ms", "load", "cpu_s", "span_s", "runqueue_ms", "involuntary", "voluntary", "gc_cycles", "gc_cpu_ms", "commit_cpu_us", "commit_points", "target"})
	f := func(v float64) string { return strconv.FormatFloat(v, 'g', 8, 64) }
	for _, s := range sc {
		emit := func(run string, r *harness.Result, in []string) {
			row := []string{s.rt, s.w.key, strconv.Itoa(s.workers), strconv.FormatBool(s.strag), s.sync, run,
				f(float64(perIteration(r).Seconds() * 1e3)), f(r.WaitFraction), f(fidMetrics[2].of(s, r)), f(r.Final), strconv.FormatUint(uint64(r.Versions), 10), f(r.Iterations)}
			for len(in) < 15 {
				in = append(in, "")
			}
			w.Write(append(append(row, in...), f(s.target)))
		}
		if withReal {
			for i, r := range s.real {
				m := s.meas[i]
				st, ev := m.stalls()
				emit(fmt.Sprintf("real#%d", i+1), r, []string{f(m.PointNS), f(m.WakeNS), strconv.Itoa(m.Procs), f(st / 1e6), f(ev / 1e6), f(m.Load), f(m.OS.CPU.Seconds()), f(m.Span.Seconds()),
					f(float64(m.OS.RunQueue) / 1e6), strconv.FormatInt(m.OS.Involuntary, 10), strconv.FormatInt(m.OS.Voluntary, 10), strconv.Itoa(m.GC.cycles), f(float64(m.GC.cpu.Seconds() * 1e3)), f(m.CommitCPUNS / 1e3), f(m.CommitPoints)})
			}
		}
		inputs := func(in fidInputs) []string {
			return []string{f(in.PointNS), f(in.WakeNS), strconv.Itoa(in.Procs), f(in.StallNS / 1e6), f(in.StallEveryNS / 1e6), "", "", "", "", "", "", "", "", f(in.CommitCPUNS / 1e3), f(in.CommitPoints)}
		}
		for i, r := range s.reps {
			if r != nil {
				emit(fmt.Sprintf("virtual-run#%d", i+1), r, inputs(inputsOf(s.meas[i:i+1])))
			}
		}
		for _, kind := range append([]string{"median", "profile"}, fidAblationKeys("")...) {
			r := s.result(kind)
			if r == nil {
				continue
			}
			var in []string
			if kind != "profile" {
				in = inputs(s.inputs())
			}
			emit("virtual-"+kind, r, in)
		}
	}
	w.Flush()
	if err := w.Error(); err != nil {
		fh.Close()
		return err
	}
	return fh.Close()
}
