package main

import (
	"fmt"
	"math"
	"time"

	"github.com/syncmodels/syncmodels/harness"
)

// syncCost is Fig. 13's synchronization cost of run r: the mean over its
// workers of the time from a commit to the next release (the paper's
// "elapsed time from the point where a worker enters a barrier … to the
// point where it leaves", §6.2), in total and per commit.
func syncCost(r *harness.Result) (total, perIter time.Duration) {
	var wait time.Duration
	commits := 0
	for _, w := range r.Workers {
		wait += w.Wait
		commits += w.Commits
	}
	if n := len(r.Workers); n > 0 {
		total = wait / time.Duration(n)
	}
	if commits > 0 {
		perIter = wait / time.Duration(commits)
	}
	return total, perIter
}

// fig13 compares FSPV with centralized and semi-centralized coordination
// (§5.2, §6.3 and Fig. 13): per workload, the synchronization cost per
// iteration, the iterations, the accumulated cost and the time to target.
func (r *fspReport) fig13() {
	r.p("## Semi-centralized coordination (Fig. 13)\n\n")
	set := fspSettings[fspSemiSetting]
	r.p("`fspv` (centralized: the coordinator's timer signals every worker) against `fspv+semi` (each worker runs a local timer η ± δ_i set from its measured response delay, §5.2; `interval.Offsets`), both FSPV, %s stragglers as in the paper's Fig. 13, over the whole run. The synchronization cost of a worker is the time from its commit to the next release (the paper's definition, §6.2); the table gives its mean over the workers per iteration and accumulated over the run. A cheaper barrier also lets FSPV choose shorter intervals (more iterations, fresher parameters), so the time to target mixes both effects, as the paper notes (§6.3: 56.6%% of K-means' gain from the barrier, the rest from fresher parameters).\n\n", set.label)
	rows := [][]string{{"workload", "fspv: cost / iteration", "fspv+semi: cost / iteration", "ratio", "fspv: iterations", "fspv+semi: iterations", "fspv: accumulated cost", "fspv+semi: accumulated cost", "fspv: time to target", "fspv+semi: time to target"}}
	var cheaper, n int
	lo, hi := math.Inf(1), 0.0
	var moved []namedValue
	for _, c := range r.ran {
		cen := c.system(fspSemiSetting, "fspv")
		if cen == nil || c.semi == nil {
			continue
		}
		ct, ci := syncCost(cen)
		st, si := syncCost(c.semi)
		ratio := "—"
		if ci > 0 {
			x := si.Seconds() / ci.Seconds()
			ratio = fmt.Sprintf("%.2f", x)
			lo, hi = math.Min(lo, x), math.Max(hi, x)
			if x < 0.9 || x > 1.1 {
				moved = append(moved, namedValue{c.w.label, x})
			}
		}
		n++
		if si < ci {
			cheaper++
		}
		rows = append(rows, []string{c.w.label, fmtDur(ci), fmtDur(si), ratio,
			fmt.Sprintf("%.0f", cen.Iterations), fmt.Sprintf("%.0f", c.semi.Iterations),
			fmtDur(ct), fmtDur(st), fmtTTT(c.ttt(cen)), fmtTTT(c.ttt(c.semi))})
	}
	if n == 0 {
		r.p("No workload ran.\n\n")
		return
	}
	r.table(rows)
	r.p("\nThe semi-centralized barrier cost less per iteration in %d of %d workloads (the paper: \"generally beats the counterpart\", Fig. 13a). Ratio: fspv+semi's cost per iteration over fspv's.", cheaper, n)
	if hi > 0 {
		f := r.ran[0].flags[fspSemiSetting]
		r.p("%s", semiCostLine(lo, hi, moved, f.latency, f.pointCost, f.slowdown))
	}
	r.p("\n\n")
}
