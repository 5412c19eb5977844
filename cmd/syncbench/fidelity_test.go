package main

import (
	"bytes"
	"context"
	"flag"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/syncmodels/syncmodels/harness"
)

// quickFidelity parses fidelity's flags as the command does.
func quickFidelity(t *testing.T, args ...string) *fidelityFlags {
	t.Helper()
	var f fidelityFlags
	fs := flag.NewFlagSet("syncbench fidelity", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	f.register(fs)
	f.args = args
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	if err := f.check(); err != nil {
		t.Fatal(err)
	}
	return &f
}

// The virtual side of fidelity -quick is a function of the profile and
// what the real runs measured: the pilots, the predictions, the
// ablations and their CSV rows are the same bytes twice (the real runs
// are left out: they are the machine's; LR's BSP and FSP, interrupts
// and stalls included).
func TestFidelityVirtualDeterministic(t *testing.T) {
	prof, err := harness.LoadProfile(writeTestProfile(t))
	if err != nil {
		t.Fatal(err)
	}
	var csvs [2][]byte
	for i := range csvs {
		f := quickFidelity(t, "-quick", "-workloads", "lr", "-workers", "4", "-sync", "bsp,fsp:2ms", "-duration", "10ms")
		sc, err := f.scenarios()
		if err != nil {
			t.Fatal(err)
		}
		if err := pilots(context.Background(), f, prof, sc); err != nil {
			t.Fatal(err)
		}
		for j, s := range sc {
			// What real runs would have measured, differing by scenario:
			// 1,000 preemptions in a second of CPU time, the threads
			// 300 ms in the run queue of which 1,000 wake-ups took 20 µs
			// or 40 µs each.
			os := osStats{CPU: time.Second, RunQueue: 300 * time.Millisecond, Voluntary: 1000, Involuntary: 1000}
			s.meas = []fidReal{{PointNS: 90 + float64(j), WakeNS: 20000, Procs: 2, OS: os}, {PointNS: 120, WakeNS: 40000, Procs: 2, OS: os}}
		}
		if err := predict(context.Background(), f, prof, sc, nil); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(t.TempDir(), "runs.csv")
		if err := writeFidelityCSV(path, sc, false); err != nil {
			t.Fatal(err)
		}
		if csvs[i], err = os.ReadFile(path); err != nil {
			t.Fatal(err)
		}
		if n := bytes.Count(csvs[i], []byte("\n")); n != 1+(4+len(fidAblations))*len(sc) {
			t.Fatalf("%d CSV lines for %d scenarios; want a header and %d per scenario", n, len(sc), 4+len(fidAblations))
		}
		for _, s := range sc {
			if len(s.reps) != 2 || slices.Contains(s.reps, nil) || s.run == nil || s.profile == nil || slices.Contains(s.ablated, nil) || s.dur <= 0 {
				t.Fatalf("%s: predictions %v %v %v %v, run length %v", s.name(), s.reps, s.run != nil, s.profile != nil, s.ablated, s.dur)
			}
		}
		// The prediction at the runs' speed takes their median compute
		// time per point (105 ns) and wake-up (30 µs), and GOMAXPROCS
		// cores; the variant with stalls their median stalls (280 µs and
		// 260 µs: 270 µs, every 1 ms), its compute what is left without
		// them: 105 / 1.27 ns.
		c, err := sc[0].runCost(prof, sc[0].inputs())
		if err != nil {
			t.Fatal(err)
		}
		if c.PointCost != 105*time.Nanosecond || c.Wakeup != 30*time.Microsecond || c.Cores != 2 || c.Stall != 0 {
			t.Errorf("%s: cost model %+v; want point 105ns, wake-up 30µs, 2 cores, no stalls", sc[0].name(), c)
		}
		withStalls(&c, sc[0].inputs())
		if c.PointCost != 83*time.Nanosecond || c.Stall != 270*time.Microsecond || c.StallEvery != time.Millisecond {
			t.Errorf("%s: with stalls %+v; want point 83ns, stalls of 270µs every 1ms", sc[0].name(), c)
		}
	}
	if !bytes.Equal(csvs[0], csvs[1]) {
		t.Fatalf("the virtual side differs between two runs:\n%s\n%s", csvs[0], csvs[1])
	}
}

// fidelity -quick end to end on one workload, one worker count and two
// models: the report's sections, a plot, a CSV row per run.
func TestFidelityQuick(t *testing.T) {
	if testing.Short() {
		t.Skip("real runs (seconds)")
	}
	dir := t.TempDir()
	var out, errb bytes.Buffer
	args := []string{"fidelity", "-quick", "-workloads", "lr", "-workers", "4", "-sync", "bsp,asp", "-profile", writeTestProfile(t), "-out", dir}
	if code := run(args, &out, &errb); code != 0 {
		t.Fatalf("syncbench %s = %d\n%s", strings.Join(args, " "), code, errb.String())
	}
	md, err := os.ReadFile(filepath.Join(dir, "fidelity.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"# Fidelity: virtual time against the real runtime", "**-quick**", "**Machine**", "**Wall time**",
		"## Errors", "| time to target | run |", "| time per iteration | profile |", "(fidelity/fidelity.png)", "| at the median inputs without the work per commit |",
		"## Scenarios", "| lr/4/none/bsp |", "| lr/4/injected/asp |", "## The machine during the runs", "## Outliers", "## The model", "## Method"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("fidelity.md lacks %q", want)
		}
	}
	for _, absent := range []string{"NaN", "%!", "+Inf"} {
		if strings.Contains(string(md), absent) {
			t.Errorf("fidelity.md has %q", absent)
		}
	}
	csv, err := os.ReadFile(filepath.Join(dir, "fidelity", "runs.csv"))
	if err != nil {
		t.Fatal(err)
	}
	// 4 scenarios (2 models × with and without stragglers), one real run,
	// its prediction, the prediction at the median inputs, the profile's
	// and the variants each.
	if want := 1 + 4*(4+len(fidAblations)); bytes.Count(csv, []byte("\n")) != want {
		t.Errorf("runs.csv has %d lines; want %d", bytes.Count(csv, []byte("\n")), want)
	}
	if st, err := os.Stat(filepath.Join(dir, "fidelity", "fidelity.png")); err != nil || st.Size() == 0 {
		t.Errorf("fidelity.png: %v", err)
	}
}

func TestFidelityUsage(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-sync", "fspv"}, "-sync fspv: fidelity runs plain models"},
		{[]string{"-sync", "fsp:1ms:semi"}, "-sync fsp:1ms:semi: fidelity runs plain models"},
		{[]string{"-workers", "4,x"}, `-workers "4,x": "x" is not a worker count`},
		{[]string{"-workloads", "gmm"}, `-workloads "gmm": "gmm" is not one of lr, kmeans`},
		{[]string{"-reps", "0"}, "-reps 0: want ≥ 1"},
	} {
		var out, errb bytes.Buffer
		if code := run(append([]string{"fidelity"}, tc.args...), &out, &errb); code != 2 || !strings.Contains(errb.String(), tc.want) {
			t.Errorf("fidelity %v = %d, %q; want 2 and %q", tc.args, code, errb.String(), tc.want)
		}
	}
}
