package main

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/syncmodels/syncmodels/consistency"
	"github.com/syncmodels/syncmodels/harness"
)

// writeTable prints the scenario, the target and one row per run.
func (c *comparison) writeTable(w io.Writer) error {
	f := c.f
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s on %s\n", f.name(), c.alg.Name(), c.d.describe())
	fmt.Fprintf(&b, "%d workers, batch %s, %s\n", f.workers, batchName(f.batch), c.stragglerLine())
	fmt.Fprintf(&b, "%s, %v per run, objective every %v, seed %d\n", f.clockName(), f.duration, f.evalEvery, f.seed)
	if f.clockKind == harness.Virtual {
		b.WriteString(f.profileLine())
	}
	if f.indirect {
		fmt.Fprintf(&b, "indirect communication: a store (RTT %v, %s/s shared) and a signalling channel (%v); bytes sent include the store's\n",
			f.storeRTT, formatBytes(int64(f.storeBW)), f.signal)
	}
	for _, p := range f.plans {
		if p.spec.Kind == consistency.KGroup {
			fmt.Fprintf(&b, "kgroup runs: data streams %v per worker, a batch every %d points (DOLL §III-A); the other runs read their shards\n", f.arrivalSpec, f.batch)
			break
		}
	}
	if f.availability != 1 && f.preemptible >= 0 && f.preemptible < f.workers {
		fmt.Fprintf(&b, "preemptible instances: workers 0 to %d (α = %g); the other %d run on demand\n", f.preemptible-1, f.availability, f.workers-f.preemptible)
	}
	if f.replicas {
		fmt.Fprintf(&b, "replica design (MLLess): every worker keeps a replica and its own optimizer; the coordinator adds their parameter changes\n")
	}
	better := "lower is better"
	if !c.minimize {
		better = "higher is better"
	}
	switch {
	case c.derived && math.IsNaN(c.best):
		fmt.Fprintf(&b, "no target: every run diverged (%.6g at θ0, %s)\n", c.initial, better)
	case c.derived:
		fmt.Fprintf(&b, "target %.6g: %.0f%% of the best run's improvement, from %.6g at θ0 to %.6g (%s)\n",
			c.target, 100*targetFraction, c.initial, c.best, better)
	default:
		fmt.Fprintf(&b, "target %.6g (-target; %.6g at θ0, %s)\n", c.target, c.initial, better)
	}
	b.WriteByte('\n')
	rows := [][]string{{"sync", "time to target", "final objective", "iterations", "server versions", "wait %", "bytes sent"}}
	for i, r := range c.runs {
		ttt := "not reached"
		if r.Diverged {
			ttt = "diverged"
		}
		if c.ttt[i] >= 0 {
			ttt = fmt.Sprintf("%.3f s", c.ttt[i].Seconds())
		}
		rows = append(rows, []string{
			r.Name, ttt, fmt.Sprintf("%.6g", r.Final), fmt.Sprintf("%.1f", r.Iterations),
			fmt.Sprint(r.Versions), fmt.Sprintf("%.1f%%", 100*r.WaitFraction), formatBytes(r.BytesSent),
		})
	}
	writeColumns(&b, rows)
	_, err := io.WriteString(w, b.String())
	return err
}

// stragglerLine describes the stragglers.
func (c *comparison) stragglerLine() string {
	f := c.f
	if f.stragglerKind == harness.NoStragglers {
		return "no stragglers"
	}
	var ws []string
	for i, s := range c.runs[0].Workers {
		if s.Straggler {
			ws = append(ws, strconv.Itoa(i))
		}
	}
	if f.stragglerKind == harness.Tail {
		return c.tailLine(ws)
	}
	who := fmt.Sprintf("%d %s stragglers (workers %s)", f.stragglers, f.stragglerKind, strings.Join(ws, ", "))
	if len(ws) == 1 {
		who = fmt.Sprintf("1 %s straggler (worker %s)", f.stragglerKind, ws[0])
	}
	if f.stragglerKind == harness.Natural {
		return fmt.Sprintf("%s %g× slower", who, f.slowdown)
	}
	return fmt.Sprintf("%s pausing %v every %d points", who, f.tau, f.every)
}

// writeColumns writes rows as aligned columns: the first left-aligned, the
// others right-aligned, two spaces apart.
func writeColumns(b *strings.Builder, rows [][]string) {
	width := make([]int, len(rows[0]))
	for _, r := range rows {
		for j, s := range r {
			width[j] = max(width[j], len([]rune(s)))
		}
	}
	for _, r := range rows {
		for j, s := range r {
			pad := strings.Repeat(" ", width[j]-len([]rune(s)))
			switch {
			case j == 0:
				b.WriteString(s + pad)
			default:
				b.WriteString("  " + pad + s)
			}
		}
		b.WriteByte('\n')
	}
}

// formatBytes writes n in decimal units.
func formatBytes(n int64) string {
	const unit = 1000
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	v, i := float64(n)/unit, 0
	for v >= unit && i < 3 {
		v /= unit
		i++
	}
	return fmt.Sprintf("%.1f %cB", v, "kMGT"[i])
}

// compareJSON is the -json output of `syncbench compare`.
type compareJSON struct {
	Scenario         scenarioJSON `json:"scenario"`
	InitialObjective float64      `json:"initial_objective"`
	Minimize         bool         `json:"minimize"`
	Target           number       `json:"target"`
	TargetDerived    bool         `json:"target_derived"`
	Runs             []runJSON    `json:"runs"`
}

type scenarioJSON struct {
	workloadJSON
	Stragglers       int      `json:"stragglers"`
	StragglerKind    string   `json:"straggler_kind"`
	StragglerWorkers []int    `json:"straggler_workers"`
	TauS             float64  `json:"tau_s"`
	Every            int      `json:"every"`
	Slowdown         float64  `json:"slowdown"`
	Clock            string   `json:"clock"`
	DurationS        float64  `json:"duration_s"`
	EvalEveryS       float64  `json:"eval_every_s"`
	PointCostS       float64  `json:"point_cost_s"`
	LatencyS         float64  `json:"latency_s"`
	Bandwidth        float64  `json:"bandwidth"`
	Sync             []string `json:"sync"`
	// Indirect is the store model of -indirect (absent without it).
	Indirect *indirectJSON `json:"indirect,omitempty"`
	// Replicas is -replicas: every bsp, ssp, asp and quorum run is in
	// MLLess's replica design (a single run says so by its "+replicas"
	// name).
	Replicas bool `json:"replicas,omitempty"`
	// Arrivals is the data streams of kgroup:K runs (-arrivals, or its
	// default), and Preemptible how many workers run on preemptible
	// instances when not all do.
	Arrivals    string `json:"arrivals,omitempty"`
	Preemptible *int   `json:"preemptible,omitempty"`
	// Tail is the tail stragglers' delay distribution (-tail, in its
	// form), with -straggler-kind tail only.
	Tail string `json:"tail,omitempty"`
	// Profile is the cost profile of -profile, absent without; Cores the
	// cores the workers share (-cores or the profile's), absent when
	// each has its own.
	Profile *profileJSON `json:"profile,omitempty"`
	Cores   float64      `json:"cores,omitempty"`
}

type runJSON struct {
	Sync           string   `json:"sync"`
	TimeToTargetS  *float64 `json:"time_to_target_s"`
	FinalObjective number   `json:"final_objective"`
	// Diverged is harness.Result.Diverged: the objective turned
	// non-finite or grew past harness.DivergeFactor × its start, first at
	// diverged_at_s.
	Diverged    bool     `json:"diverged,omitempty"`
	DivergedAtS *float64 `json:"diverged_at_s,omitempty"`
	Iterations  float64  `json:"iterations"`
	Versions    uint64   `json:"versions"`
	// Check is "ok", or the first violation consistency.Check found;
	// LostDeltas and DuplicateApplies count its lost and doubled deltas.
	// Rejoins, ExpiredLeases and RejectedMessages are the real runtime's
	// membership counts (and, over gRPC, what the server refused before
	// the coordinator saw it: refused_streams).
	Check            string  `json:"check"`
	LostDeltas       int     `json:"lost_deltas"`
	DuplicateApplies int     `json:"duplicate_applies"`
	Rejoins          int     `json:"rejoins"`
	ExpiredLeases    int     `json:"expired_leases"`
	RejectedMessages int64   `json:"rejected_messages"`
	Preemptions      int     `json:"preemptions"`
	RefusedStreams   *int64  `json:"refused_streams,omitempty"`
	WaitFraction     float64 `json:"wait_fraction"`
	BytesSent        int64   `json:"bytes_sent"`
	Messages         int64   `json:"messages"`
	// Store is the store's traffic under -indirect; Held the mass an ISP
	// run's workers still hold back at the end.
	Store   *storeJSON   `json:"store,omitempty"`
	Held    *float64     `json:"held,omitempty"`
	Curve   []pointJSON  `json:"curve"`
	Workers []workerJSON `json:"workers"`
	// Migration is what data migration recorded (fspv+asyn, fspv+opt),
	// absent otherwise.
	Migration *migrationJSON `json:"migration,omitempty"`
	// Intervals are the barrier intervals an interval tuner chose (fspb,
	// fspv and their variants), absent otherwise.
	Intervals []intervalJSON `json:"intervals,omitempty"`
	// Stream (kgroup:K) counts the batches the workers announced, those
	// the applied updates used and those still queued at the end.
	Stream *streamJSON `json:"stream,omitempty"`
}

// streamJSON is a kgroup:K run's data streams, summed over workers:
// points that arrived, batches announced, batches used by the applied
// deltas, and batches queued unused at the end.
type streamJSON struct {
	Arrived int64 `json:"arrived_points"`
	Batches int   `json:"batches"`
	Used    int   `json:"batches_used"`
	Queued  int   `json:"batches_queued"`
}

// intervalJSON is a harness.IntervalPoint: from t_s on, the barrier
// interval was interval_s (0 for a full-batch round); probe marks one of
// FSPV's probes.
type intervalJSON struct {
	TS        float64 `json:"t_s"`
	IntervalS float64 `json:"interval_s"`
	Probe     bool    `json:"probe,omitempty"`
}

// migrationJSON summarises a harness.MigrationResult: Eq. 8's ε, the
// workers' passes at the end (mean traversal count of the points each
// owns) with their max/min and the max/min Eq. 8 allows, the final Eq. 8
// imbalance over super-workers, and what moved.
type migrationJSON struct {
	Epsilon       float64   `json:"epsilon"`
	Rounds        int       `json:"rounds"`
	RecordOnly    bool      `json:"record_only"`
	Passes        []float64 `json:"passes"`
	Ratio         float64   `json:"max_min_ratio"`
	RatioBound    float64   `json:"max_min_bound"`
	Imbalance     float64   `json:"imbalance"`
	Plans         int       `json:"plans"`
	Windows       int       `json:"windows"`
	DataPoints    int64     `json:"data_points"`
	VirtualPoints int64     `json:"virtual_points"`
	Reactivated   int64     `json:"reactivated"`
	Bytes         int64     `json:"bytes"`
}

func newMigrationJSON(m *harness.MigrationResult) *migrationJSON {
	if m == nil {
		return nil
	}
	return &migrationJSON{Epsilon: m.Planner.Epsilon, Rounds: m.Planner.Rounds, RecordOnly: m.RecordOnly,
		Passes: m.Passes, Ratio: m.Ratio(), RatioBound: m.RatioBound(), Imbalance: m.Imbalance,
		Plans: m.Plans, Windows: m.Windows, DataPoints: m.DataPoints, VirtualPoints: m.VirtualPoints,
		Reactivated: m.Reactivated, Bytes: m.Bytes}
}

type pointJSON struct {
	TS        float64 `json:"t_s"`
	Objective number  `json:"objective"`
	Version   uint64  `json:"version"`
	Points    int64   `json:"points"`
}

type workerJSON struct {
	Worker    int     `json:"worker"`
	Straggler bool    `json:"straggler"`
	Points    int64   `json:"points"`
	Passes    float64 `json:"passes"`
	Commits   int     `json:"commits"`
	BusyS     float64 `json:"busy_s"`
	PausedS   float64 `json:"paused_s"`
	WaitS     float64 `json:"wait_s"`
	// DelayedS is the time the worker's operations were delayed by tail
	// stragglers (-straggler-kind tail), in neither busy_s nor wait_s.
	DelayedS float64 `json:"delayed_s,omitempty"`
}

// indirectJSON is the store model of -indirect.
type indirectJSON struct {
	RTTS      float64 `json:"rtt_s"`
	Bandwidth float64 `json:"bandwidth"`
	SignalS   float64 `json:"signal_s"`
}

// storeJSON is a run's store traffic.
type storeJSON struct {
	Bytes int64 `json:"bytes"`
	Puts  int64 `json:"puts"`
	Gets  int64 `json:"gets"`
}

func (c *comparison) json() compareJSON {
	f := c.f
	out := compareJSON{
		Scenario: scenarioJSON{
			workloadJSON: f.workloadJSON(c.alg, c.d, f.workers, f.batch),
			Stragglers:   f.stragglers, StragglerKind: f.stragglerKind.String(), StragglerWorkers: []int{},
			TauS: f.tau.Seconds(), Every: f.every, Slowdown: f.slowdown, Clock: f.clockJSON(),
			DurationS: f.duration.Seconds(), EvalEveryS: f.evalEvery.Seconds(), PointCostS: f.pointCost.Seconds(),
			LatencyS: f.latency.Seconds(), Bandwidth: f.bandwidth, Replicas: f.replicas,
			Profile: f.profileJSON(), Cores: max(f.cores, 0),
		},
	}
	for _, p := range f.plans {
		if p.spec.Kind == consistency.KGroup {
			out.Scenario.Arrivals = f.arrivalSpec.String()
		}
	}
	if f.availability != 1 && f.preemptible >= 0 && f.preemptible < f.workers {
		n := f.preemptible
		out.Scenario.Preemptible = &n
	}
	if f.indirect {
		out.Scenario.Indirect = &indirectJSON{RTTS: f.storeRTT.Seconds(), Bandwidth: f.storeBW, SignalS: f.signal.Seconds()}
	}
	out.InitialObjective, out.Minimize, out.Target, out.TargetDerived = c.initial, c.minimize, number(c.target), c.derived
	if f.stragglerKind == harness.NoStragglers {
		out.Scenario.Stragglers = 0
	}
	if f.stragglerKind == harness.Tail {
		out.Scenario.Tail = f.tailDist.String()
	}
	for i, s := range c.runs[0].Workers {
		if s.Straggler {
			out.Scenario.StragglerWorkers = append(out.Scenario.StragglerWorkers, i)
		}
	}
	for i, r := range c.runs {
		out.Scenario.Sync = append(out.Scenario.Sync, r.Name)
		rj := runJSON{
			Sync: r.Name, FinalObjective: number(r.Final), Iterations: r.Iterations, Versions: uint64(r.Versions),
			WaitFraction: r.WaitFraction, BytesSent: r.BytesSent, Messages: r.Messages,
			Migration: newMigrationJSON(r.Migration),
		}
		rj.Check, rj.LostDeltas, rj.DuplicateApplies = checkSummary(c.checks[i])
		rj.Rejoins, rj.ExpiredLeases, rj.RejectedMessages, rj.Preemptions = r.Rejoins, r.Expired, r.Rejected, r.Preemptions
		if g := f.grpc; g != nil && i < len(g.refused) {
			n := g.refused[i].Total()
			rj.RefusedStreams = &n
		}
		if c.ttt[i] >= 0 {
			s := c.ttt[i].Seconds()
			rj.TimeToTargetS = &s
		}
		if r.Diverged {
			s := r.DivergedAt.Seconds()
			rj.Diverged, rj.DivergedAtS = true, &s
		}
		if st := r.Store; st != nil {
			rj.Store = &storeJSON{Bytes: st.Bytes, Puts: st.Puts, Gets: st.Gets}
		}
		if r.Sync.Kind == consistency.ISP {
			held := r.Held
			rj.Held = &held
		}
		for _, p := range r.Intervals {
			rj.Intervals = append(rj.Intervals, intervalJSON{TS: p.T.Seconds(), IntervalS: max(p.Interval, 0).Seconds(), Probe: p.Probe})
		}
		if r.Sync.Kind == consistency.KGroup {
			st := &streamJSON{}
			for _, w := range r.Workers {
				st.Arrived += w.Arrived
				st.Batches += w.Batches
				st.Queued += w.Queued
			}
			st.Used = st.Batches - st.Queued
			rj.Stream = st
		}
		for _, p := range r.Curve {
			rj.Curve = append(rj.Curve, pointJSON{TS: p.T.Seconds(), Objective: number(p.Objective), Version: uint64(p.Version), Points: p.Points})
		}
		for w, s := range r.Workers {
			rj.Workers = append(rj.Workers, workerJSON{
				Worker: w, Straggler: s.Straggler, Points: s.Points, Passes: s.Passes, Commits: s.Commits,
				BusyS: s.Busy.Seconds(), PausedS: s.Paused.Seconds(), WaitS: s.Wait.Seconds(), DelayedS: s.Delayed.Seconds(),
			})
		}
		out.Runs = append(out.Runs, rj)
	}
	return out
}

// writeCSV writes runs.csv, curves.csv and workers.csv into dir, which
// exists (prepareOutputs).
func (c *comparison) writeCSV(dir string) error {
	j := c.json()
	runs := [][]string{{"sync", "time_to_target_s", "final_objective", "iterations", "versions", "wait_fraction", "bytes_sent", "messages", "target"}}
	curves := [][]string{{"sync", "t_s", "objective", "version", "points"}}
	workers := [][]string{{"sync", "worker", "straggler", "points", "passes", "commits", "busy_s", "paused_s", "wait_s"}}
	for _, r := range j.Runs {
		ttt := ""
		if r.TimeToTargetS != nil {
			ttt = ftoa(*r.TimeToTargetS)
		}
		runs = append(runs, []string{r.Sync, ttt, ftoa(float64(r.FinalObjective)), ftoa(r.Iterations), utoa(r.Versions),
			ftoa(r.WaitFraction), itoa(r.BytesSent), itoa(r.Messages), ftoa(float64(j.Target))})
		for _, p := range r.Curve {
			curves = append(curves, []string{r.Sync, ftoa(p.TS), ftoa(float64(p.Objective)), utoa(p.Version), itoa(p.Points)})
		}
		for _, w := range r.Workers {
			workers = append(workers, []string{r.Sync, strconv.Itoa(w.Worker), strconv.FormatBool(w.Straggler),
				itoa(w.Points), ftoa(w.Passes), strconv.Itoa(w.Commits), ftoa(w.BusyS), ftoa(w.PausedS), ftoa(w.WaitS)})
		}
	}
	for name, rows := range map[string][][]string{"runs.csv": runs, "curves.csv": curves, "workers.csv": workers} {
		if err := writeCSVFile(filepath.Join(dir, name), rows); err != nil {
			return err
		}
	}
	return nil
}

func writeCSVFile(path string, rows [][]string) error {
	fh, err := os.Create(path)
	if err != nil {
		return err
	}
	w := csv.NewWriter(fh)
	if err := w.WriteAll(rows); err != nil {
		fh.Close()
		return fmt.Errorf("%s: %w", path, err)
	}
	return fh.Close()
}

func ftoa(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
func itoa(v int64) string   { return strconv.FormatInt(v, 10) }
func utoa(v uint64) string  { return strconv.FormatUint(v, 10) }

// number is a float64 that JSON writes as null when it is not finite (a
// diverged run's objective): encoding/json refuses NaN and ±Inf.
type number float64

func (n number) MarshalJSON() ([]byte, error) {
	f := float64(n)
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return []byte("null"), nil
	}
	return json.Marshal(f)
}

// checkSummary returns a run's check verdict: "ok" or its first
// violation, and the lost and doubled deltas it counts.
func checkSummary(ce *consistency.CheckError) (verdict string, lost, twice int) {
	if ce == nil {
		return "ok", 0, 0
	}
	for _, v := range ce.Violations {
		switch v.Rule {
		case consistency.RuleLost:
			lost++
		case consistency.RuleTwice:
			twice++
		}
	}
	return ce.Violations[0].String(), lost, twice
}

// clockName is the runtime in the table's words.
func (f *compareFlags) clockName() string {
	if f.clock == "grpc" {
		return "grpc runtime (worker processes over gRPC, real clock)"
	}
	if f.exchange != "" {
		return "real clock, messages through " + f.exchangeName()
	}
	return f.clockKind.String() + " clock"
}

// clockJSON is the runtime in the JSON's words: virtual, real or grpc.
func (f *compareFlags) clockJSON() string {
	if f.clock == "grpc" {
		return "grpc"
	}
	return f.clockKind.String()
}

// name is the command's name, for its output.
func (f *compareFlags) name() string {
	if f.coordinator {
		return "syncbench coordinator"
	}
	return "syncbench compare"
}
