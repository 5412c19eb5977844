package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/syncmodels/syncmodels/consistency"
	"github.com/syncmodels/syncmodels/harness"
)

// tiny is a comparison over 800 points and 4 workers for 50 ms of virtual
// time: a few milliseconds per run, so tables of them stay fast under -race.
var tiny = []string{"-n", "800", "-dim", "10", "-workers", "4", "-stragglers", "1", "-batch", "50", "-duration", "50ms"}

func tinyCompare(extra ...string) []string {
	return append(append([]string{"compare"}, tiny...), extra...)
}

// writeFile writes content to name in a fresh temporary directory and
// returns its path.
func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestRefusedBeforeWork: every input of issue #11 §2 that used to run
// with a wrong or mislabelled result now fails in one line that names the
// flag and says what to do, with the expected status, no output on
// stdout, and before any run started (no progress line).
func TestRefusedBeforeWork(t *testing.T) {
	empty := writeFile(t, "empty.csv", "")
	blank := writeFile(t, "blank.csv", "\n\n")
	tinyCSV := writeFile(t, "tiny.csv", "0,1,2\n1,2,3\n0,3,1\n")
	oneClass := writeFile(t, "one.csv", "1,1,2\n1,2,3\n1,3,1\n")
	header := writeFile(t, "header.csv", "label,a,b\n0,1,2\n1,2,3\n")
	zeroBased := writeFile(t, "zero.svm", "1 0:1.5 3:2\n0 1:1\n")
	dir := t.TempDir()
	file := writeFile(t, "file", "x")
	csvBlocked := mkdir(t, dir, "csvout")
	mkdir(t, csvBlocked, "runs.csv")
	presets := "bspb, bspv, fspb, fspv, fspv+semi, fspv+asyn, fspv+opt"
	for _, tc := range []struct {
		args []string
		code int
		want []string // each must appear in the one line
	}{
		// -sync: a quorum larger than the workers ran as BSP.
		{tinyCompare("-sync", "quorum:5"), 2, []string{"-sync quorum:5", "more than the 4 workers", "quorum:1 to quorum:4"}},
		{tinyCompare("-sync", "bsp,quorum:17", "-replicas"), 2, []string{"quorum:17", "more than the 4 workers"}},
		{tinyCompare("-sync", "quorum:0"), 2, []string{`-sync "quorum:0"`, "≥ 1", presets}},
		{tinyCompare("-sync", "quorum:-2"), 2, []string{`-sync "quorum:-2"`, presets}},
		{tinyCompare("-sync", "quorum:1.5"), 2, []string{`-sync "quorum:1.5"`, "0 < F ≤ 1", presets}},
		{tinyCompare("-sync", "quorum:0.0"), 2, []string{`-sync "quorum:0.0"`}},
		{tinyCompare("-sync", "quorum"), 2, []string{`-sync "quorum"`}},
		{tinyCompare("-sync", "ssp:-1"), 2, []string{`-sync "ssp:-1"`, "S ≥ 0", presets}},
		{tinyCompare("-sync", "ssp:1.5"), 2, []string{`-sync "ssp:1.5"`}},
		{tinyCompare("-sync", "ssp"), 2, []string{`-sync "ssp"`}},
		{tinyCompare("-sync", "isp:-0.1"), 2, []string{`-sync "isp:-0.1"`, "V ≥ 0", presets}},
		{tinyCompare("-sync", "isp:NaN"), 2, []string{`-sync "isp:NaN"`}},
		{tinyCompare("-sync", "isp:+Inf"), 2, []string{`-sync "isp:+Inf"`}},
		{tinyCompare("-sync", "fsp:0"), 2, []string{`-sync "fsp:0"`, presets}},
		{tinyCompare("-sync", "fsp:-5ms"), 2, []string{`-sync "fsp:-5ms"`}},
		{tinyCompare("-sync", "fsp:0s:semi"), 2, []string{`-sync "fsp:0s:semi"`}},
		{tinyCompare("-sync", "fsp:soon"), 2, []string{`-sync "fsp:soon"`}},
		{tinyCompare("-sync", "bsp:2"), 2, []string{`-sync "bsp:2"`}},
		{tinyCompare("-sync", "asp:1"), 2, []string{`-sync "asp:1"`}},
		{tinyCompare("-sync", "bsb"), 2, []string{`-sync "bsb": unknown model`, presets}},
		{tinyCompare("-sync", "fspv+replicas"), 2, []string{"replica design"}},
		{tinyCompare("-sync", "bsp,"), 2, []string{`-sync ""`, "stray comma"}},
		{[]string{"compare", "help"}, 2, []string{`unexpected argument "help"`, "help is -h"}},
		// train -iters 0 ran 20.
		{[]string{"train", "-iters", "0"}, 2, []string{"-iters 0", "≥ 1", "default is 20"}},
		{[]string{"train", "-iters", "-3"}, 2, []string{"-iters -3"}},
		// lr with an absent -positive class trained on all-zero labels.
		{[]string{"train", "-algo", "lr", "-data", "synthetic:blobs", "-n", "200", "-positive", "99"}, 1,
			[]string{"-positive 99", "no label 99", "0, 1, 2, 3, 4, 5, 6, 7, 8, 9"}},
		{[]string{"train", "-algo", "lr", "-data", "synthetic:blobs", "-n", "200"}, 1, []string{"-positive", "0, 1, 2"}},
		{[]string{"train", "-algo", "lr", "-data", "csv:" + oneClass}, 1, []string{"both classes", "every label"}},
		{[]string{"train", "-algo", "lr", "-data", "csv:" + oneClass, "-positive", "1"}, 1, []string{"-positive 1", "no negative class"}},
		{[]string{"train", "-algo", "lr", "-positive", "-2"}, 2, []string{"-positive -2"}},
		{tinyCompare("-algo", "lr", "-data", "synthetic:blobs", "-positive", "10"), 1, []string{"-positive 10", "no label 10"}},
		// A -target that θ0 meets made every time to target 0 s.
		{tinyCompare("-target", "0.7"), 2, []string{"-target 0.7", "θ0 already has objective 0.693147", "below 0.693147"}},
		{tinyCompare("-target", "0.69315"), 2, []string{"-target 0.69315"}},
		{tinyCompare("-algo", "gmm", "-k", "3", "-target", "-1e300"), 2, []string{"-target -1e+300", "higher is better", "above"}},
		// Output paths are checked before the data is even loaded.
		{tinyCompare("-plot", dir), 1, []string{"-plot " + dir, ".png"}},
		{tinyCompare("-plot", filepath.Join(dir, "p.svg")), 1, []string{"p.svg", ".png"}},
		{tinyCompare("-plot", mkdir(t, dir, "d.png")), 1, []string{"d.png", "is a directory"}},
		{tinyCompare("-plot", filepath.Join(dir, "missing", "p.png")), 1, []string{"missing"}},
		{tinyCompare("-plot", filepath.Join(file, "p.png")), 1, []string{file, "not a directory"}},
		{tinyCompare("-csv", filepath.Join(file, "out")), 1, []string{"-csv", file}},
		{tinyCompare("-csv", csvBlocked), 1, []string{"runs.csv", "is a directory"}},
		// Flag-parser errors: one line and where the help is.
		{tinyCompare("-workers", "x"), 2, []string{`invalid value "x" for flag -workers`, "run 'syncbench compare -h' for help"}},
		{[]string{"train", "-nosuchflag"}, 2, []string{"flag provided but not defined: -nosuchflag", "run 'syncbench train -h' for help"}},
		{[]string{"compare", "-sync", "bsp", "asp"}, 2, []string{`unexpected argument "asp"`, "commas"}},
		{[]string{"-n", "100", "train"}, 2, []string{`unexpected argument "train"`, "syncbench train [flags]"}},
		{[]string{"frobnicate"}, 2, []string{`unknown command "frobnicate"`, "compare, train, coordinator, worker, tls, provision, calibrate, fidelity, reproduce or help"}},
		// Data: name the file and the fix.
		{[]string{"train", "-data", "csv:" + empty}, 1, []string{empty, "no data points"}},
		{[]string{"train", "-data", "csv:" + blank}, 1, []string{blank, "no data points"}},
		{tinyCompare("-data", "csv:"+empty), 1, []string{empty, "no data points"}},
		{[]string{"train", "-algo", "lr", "-data", "csv:" + tinyCSV, "-workers", "4"}, 1, []string{"-workers 4", "only 3 data points"}},
		{tinyCompare("-data", "csv:"+tinyCSV, "-stragglers", "0"), 1, []string{"-workers 4", "only 3 data points"}},
		{[]string{"train", "-algo", "lr", "-data", "libsvm:" + zeroBased}, 1, []string{"index 0", "-data libsvm0:" + zeroBased}},
		{[]string{"train", "-algo", "lr", "-data", "csv:" + header}, 1, []string{"header line"}},
		{[]string{"train", "-data", tinyCSV}, 1, []string{"-data csv:" + tinyCSV}},
		{[]string{"train", "-k", "50", "-n", "20"}, 1, []string{"-k 50", "-k ≤ 20"}},
		{[]string{"train", "-n", "1000000000"}, 1, []string{"-n 1000000000", "more than syncbench generates"}},
		{tinyCompare("-eval-every", "1ns"), 2, []string{"-eval-every 1ns", "at most 10000"}},
		// Sizes that overflowed the virtual clock (negative wait shares) or
		// the memory (a crash).
		{tinyCompare("-straggler-kind", "natural", "-slowdown", "1e300"), 2, []string{"-slowdown 1e+300", "one commit would take"}},
		{tinyCompare("-tau", "2000000h"), 2, []string{"-tau 2000000h0m0s", "at most 1000h0m0s"}},
		{tinyCompare("-bandwidth", "1e-300"), 2, []string{"-bandwidth 1e-300", "at least 1 byte per second"}},
		{[]string{"train", "-algo", "nmf", "-rank", "100000000", "-n", "100", "-dim", "5"}, 1, []string{"-rank 100000000", "more than syncbench allocates"}},
		{[]string{"train", "-algo", "pmf", "-rank", "200", "-n", "5000", "-workers", "5000"}, 1, []string{"-workers 5000", "want fewer workers"}},
	} {
		code, out, errs := runCmd(t, tc.args...)
		line := strings.TrimSuffix(errs, "\n")
		ok := code == tc.code && out == "" && line != "" && !strings.Contains(line, "\n")
		for _, w := range tc.want {
			ok = ok && strings.Contains(line, w)
		}
		for _, bad := range []string{"ZeroBased", "invalid config", "Usage of", "[1/"} {
			ok = ok && !strings.Contains(errs, bad)
		}
		if !ok {
			t.Errorf("syncbench %s:\nexit %d, stdout %q, stderr %q;\nwant exit %d, nothing on stdout and one line with %q",
				strings.Join(tc.args, " "), code, out, errs, tc.code, tc.want)
		}
	}
}

func mkdir(t *testing.T, parent, name string) string {
	t.Helper()
	p := filepath.Join(parent, name)
	if err := os.MkdirAll(p, 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestPlotLeftAloneOnError: a bad input after a valid -plot leaves an
// existing plot as it was.
func TestPlotLeftAloneOnError(t *testing.T) {
	plot := writeFile(t, "old.png", "old")
	if code, _, errs := runCmd(t, tinyCompare("-plot", plot, "-target", "0.9")...); code != 2 {
		t.Fatalf("exit %d, stderr %q; want 2", code, errs)
	}
	if b, err := os.ReadFile(plot); err != nil || string(b) != "old" {
		t.Errorf("plot %q, %v; want it untouched", b, err)
	}
}

// TestWarnings: inputs that are legal but do not do what they seem to
// run, with exit status 0, and say so on stderr.
func TestWarnings(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{tinyCompare("-sync", "quorum:4,quorum:0.9"), []string{
			"warning: quorum:4 needs all 4 workers every round, so it waits as bsp does",
			"warning: quorum:0.9 needs all 4 workers"}},
		{tinyCompare("-sync", "bsp", "-duration", "200us"), []string{"warning: no run improved on θ0's objective 0.693147 in 200µs"}},
		{tinyCompare("-sync", "fsp:1s"), []string{"warning: fsp:1s: the interval is not shorter than -duration 50ms"}},
		{tinyCompare("-sync", "bsp", "-k", "3", "-init", "first"), []string{
			"warning: -k has no effect with -algo lr", "warning: -init has no effect with -algo lr"}},
		{tinyCompare("-sync", "bsp", "-optimizer", "sgd"), []string{"warning: -optimizer sgd keeps lr's learning rate 0.005, chosen for adam"}},
		{tinyCompare("-sync", "bsp", "-stragglers", "0", "-tau", "5ms"), []string{"warning: -tau has no effect without injected stragglers"}},
		{tinyCompare("-sync", "bsp", "-slowdown", "2"), []string{"warning: -slowdown has no effect without natural stragglers"}},
		{tinyCompare("-sync", "bsp", "-store-rtt", "2ms"), []string{"warning: -store-rtt has no effect without -indirect"}},
		{tinyCompare("-sync", "fsp:1ms,bsp:full"), []string{"warning: -batch has no effect on fsp:1ms,bsp:full"}},
		{tinyCompare("-sync", "bsp", "-batch", "1000"), []string{"warning: -batch 1000 is more than a worker's shard (200 points)"}},
		{[]string{"train", "-n", "300", "-iters", "1", "-lr", "0.1", "-dim", "4"}, []string{"warning: -lr has no effect with -algo kmeans"}},
		{[]string{"train", "-algo", "pmf", "-n", "3000", "-iters", "1", "-optimizer", "adam", "-dim", "3"}, []string{
			"warning: -optimizer adam keeps pmf's learning rate 3, chosen for nesterov",
			"warning: -dim has no effect on synthetic:ratings"}},
	} {
		code, out, errs := runCmd(t, tc.args...)
		ok := code == 0 && out != ""
		for _, w := range tc.want {
			ok = ok && strings.Contains(errs, w)
		}
		if !ok {
			t.Errorf("syncbench %s: exit %d, stderr %q; want exit 0 and warnings %q", strings.Join(tc.args, " "), code, errs, tc.want)
		}
	}
	// And the plain runs warn about nothing.
	for _, args := range [][]string{tinyCompare("-sync", "bsp,ssp:1,asp,quorum:3"), {"train", "-n", "300", "-iters", "2"}} {
		if code, _, errs := runCmd(t, args...); code != 0 || strings.Contains(errs, "warning") {
			t.Errorf("syncbench %s: exit %d, stderr %q; want no warning", strings.Join(args, " "), code, errs)
		}
	}
}

// TestHelp: the top-level help lists every command with how to get its
// flags; each command's -h goes to stdout with status 0 and states the
// defaults that 0 or -1 stand for in numbers.
func TestHelp(t *testing.T) {
	for _, args := range [][]string{{"-h"}, {"--help"}, {"help"}} {
		code, out, errs := runCmd(t, args...)
		if code != 0 || errs != "" {
			t.Errorf("syncbench %v: exit %d, stderr %q", args, code, errs)
		}
		for _, c := range commands {
			if !strings.Contains(out, "\n  "+c.name+" ") {
				t.Errorf("syncbench %v does not list %s:\n%s", args, c.name, out)
			}
		}
		for _, w := range []string{"syncbench compare -h", "syncbench train -h", "syncbench reproduce -h"} {
			if !strings.Contains(out, w) {
				t.Errorf("syncbench %v does not say %q", args, w)
			}
		}
		if strings.Contains(out, "Usage of") || strings.Contains(out, "-workers") {
			t.Errorf("syncbench %v prints a command's flags:\n%s", args, out)
		}
	}
	for _, tc := range []struct {
		cmd  string
		want []string
	}{
		{"train", []string{
			"usage: syncbench train [flags]", "(default 20)", "-1 = the algorithm's: 5000 for pmf, a full pass for the others",
			"0 = 0.05 for lr, 3 for pmf, 0.01 for nmf", "negative = 0.0001 for lr, 0 for pmf",
			"empty = adam for lr, nesterov for pmf, adam for nmf", "blobs 20000, logistic 50000", "blobs 32, logistic 100",
			"synthetic:blobs for kmeans, gmm, fcm; synthetic:logistic for lr; synthetic:ratings for pmf; synthetic:nonneg for nmf",
			"-1 = use the labels as they are"}},
		{"compare", []string{
			"usage: syncbench compare [flags]", "0 = 0.005 for lr, 3 for pmf, 0.01 for nmf", "0 = -duration/100 (40ms for the default -duration)",
			`(default "bsp,ssp:3,asp,quorum:0.9,quorum:0.75")`, "default 250ms", "default 0.7", "fspv+semi", "(default 500)"}},
	} {
		code, out, errs := runCmd(t, tc.cmd, "-h")
		if code != 0 || errs != "" {
			t.Errorf("syncbench %s -h: exit %d, stderr %q", tc.cmd, code, errs)
		}
		for _, w := range tc.want {
			if !strings.Contains(out, w) {
				t.Errorf("syncbench %s -h lacks %q", tc.cmd, w)
			}
		}
	}
}

// TestHelpDefaultsAreTheCode checks the numbers the help states against
// what the flags really do: each algorithm's -data default and optimizer.
func TestHelpDefaultsAreTheCode(t *testing.T) {
	for algo, want := range defaultData {
		var f workloadFlags
		f.register(flag.NewFlagSet("t", flag.ContinueOnError), workloadDefaults{algo: algo, k: 10})
		if err := f.check(); err != nil || f.data != want {
			t.Errorf("-algo %s: data %q, %v; want %s", algo, f.data, err, want)
		}
	}
	for _, a := range clusterAlgos {
		if defaultData[a] != defaultData[clusterAlgos[0]] {
			t.Errorf("the -data help groups %v, but %s defaults to %s", clusterAlgos, a, defaultData[a])
		}
	}
	// -lr 0 is the learning rate the help states; another rate differs.
	for _, tc := range []struct {
		cmd, algo string
		lr        float64
	}{{"train", "nmf", 0.01}, {"train", "lr", 0.05}, {"compare", "lr", 0.005}} {
		obj := func(lr float64) float64 {
			args := []string{tc.cmd, "-algo", tc.algo, "-json", "-lr", strconv.FormatFloat(lr, 'g', -1, 64)}
			if tc.cmd == "train" {
				args = append(args, "-n", "200", "-iters", "3")
			} else {
				args = append(append(args, tiny...), "-sync", "bsp")
			}
			code, out, errs := runCmd(t, args...)
			if code != 0 {
				t.Fatalf("syncbench %s: exit %d, %s", strings.Join(args, " "), code, errs)
			}
			if tc.cmd == "train" {
				return objectiveOf(t, out)
			}
			var j compareJSON
			if err := json.Unmarshal([]byte(out), &j); err != nil {
				t.Fatal(err)
			}
			return float64(j.Runs[0].FinalObjective)
		}
		if def, stated, other := obj(0), obj(tc.lr), obj(2*tc.lr); def != stated || def == other {
			t.Errorf("%s -algo %s: -lr 0 ends at %v, -lr %g at %v, -lr %g at %v; want the first two equal", tc.cmd, tc.algo, def, tc.lr, stated, 2*tc.lr, other)
		}
	}
}

func objectiveOf(t *testing.T, out string) float64 {
	t.Helper()
	var j trainJSON
	if err := json.Unmarshal([]byte(out), &j); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	return j.Objective
}

// TestLabelsAreWhatRan drives compare in-process over combinations of
// flags and checks that each run labelled L ran L: its spec is L's, the
// trace the harness checked (consistency.Check) is of L's model, and the
// shape of its rounds is L's: a quorum:K applies K commits at a time, not
// every worker's; bsp, isp and fsp apply every worker's; ssp and asp one.
func TestLabelsAreWhatRan(t *testing.T) {
	for _, extra := range [][]string{
		{"-sync", "bsp,ssp:2,asp,quorum:3,quorum:0.5,quorum:1"},
		{"-sync", "bsp:full,fsp:2ms,fsp:2ms:semi,isp,isp:0", "-stragglers", "2", "-straggler-kind", "natural"},
		{"-sync", "bspb,bspv,fspb,fspv", "-stragglers", "0"},
		{"-sync", "bsp,ssp:1,quorum:2", "-replicas", "-indirect"},
		{"-sync", "quorum:4,quorum:0.9", "-workers", "4"},
		{"-sync", "quorum:7,ssp:0", "-workers", "7", "-shuffle", "-seed", "3"},
		{"-sync", "quorum:2,asp", "-clock", "real", "-duration", "30ms"},
		{"-sync", "bsp,quorum:2", "-algo", "kmeans", "-k", "3"},
		{"-sync", "asp,quorum:0.75", "-algo", "pmf", "-n", "2000", "-lr", "0.3"},
		{"-sync", "bsp,asp", "-target", "0.69"},
	} {
		args := append(append([]string{}, tiny...), extra...)
		var out, errs bytes.Buffer
		code, c := runCompare(append(args, "-json"), &out, &errs)
		if code != 0 {
			t.Errorf("compare %s: exit %d, %s", strings.Join(args, " "), code, errs.String())
			continue
		}
		var j compareJSON
		if err := json.Unmarshal(out.Bytes(), &j); err != nil {
			t.Fatal(err)
		}
		entries := strings.Split(syncOf(args), ",")
		if len(j.Runs) != len(entries) || len(c.runs) != len(entries) {
			t.Errorf("compare %s: %d runs; want %d", strings.Join(args, " "), len(j.Runs), len(entries))
			continue
		}
		for i, r := range c.runs {
			if j.Runs[i].Sync != r.Name || j.Scenario.Sync[i] != r.Name {
				t.Errorf("run %d: JSON says %s, the run is %s", i, j.Runs[i].Sync, r.Name)
			}
			if err := ranAsLabelled(r, c.f.workers); err != nil {
				t.Errorf("compare %s: %v", strings.Join(args, " "), err)
			}
		}
	}
	// The check sees a mislabelled run: a quorum:2 run called quorum:3,
	// quorum:5 (of 4 workers) or bsp.
	var out, errs bytes.Buffer
	code, c := runCompare(append(append([]string{}, tiny...), "-sync", "quorum:2"), &out, &errs)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs.String())
	}
	for _, name := range []string{"quorum:3", "quorum:5", "bsp"} {
		r := *c.runs[0]
		r.Name = name
		if err := ranAsLabelled(&r, 4); err == nil {
			t.Errorf("a quorum:2 run labelled %s passes ranAsLabelled", name)
		}
	}
}

// syncOf returns the last -sync value in args.
func syncOf(args []string) string {
	s := ""
	for i := 0; i+1 < len(args); i++ {
		if args[i] == "-sync" {
			s = args[i+1]
		}
	}
	return s
}

// ranAsLabelled checks run r against its label alone (parsed afresh,
// without the command's view of the workers).
func ranAsLabelled(r *harness.Result, workers int) error {
	label := r.Name
	if strings.HasPrefix(label, "bspv(b=") {
		label = "bspv"
	}
	p, err := parsePlan(label)
	if err != nil {
		return fmt.Errorf("label %q does not parse: %v", r.Name, err)
	}
	if p.spec != r.Sync || r.Trace == nil || r.Trace.Spec != r.Sync {
		return fmt.Errorf("%s ran %v with a trace of %v", r.Name, r.Sync, r.Trace.Spec)
	}
	if len(r.Trace.Workers) != workers {
		return fmt.Errorf("%s: trace of %d workers; want %d", r.Name, len(r.Trace.Workers), workers)
	}
	// want is how many commits each round (non-final apply) takes.
	want := 0
	switch p.spec.Kind {
	case consistency.BSP, consistency.ISP, consistency.FSP:
		want = workers
	case consistency.SSP, consistency.ASP:
		want = 1
	case consistency.Quorum:
		if k, ok := quorumCount(p.spec); ok {
			want = k // as labelled: not capped at the workers
		} else {
			want = p.spec.Need.Need(workers)
		}
	}
	rounds := 0
	for _, rec := range r.Trace.Records {
		if rec.Kind != consistency.RecApply || rec.Final {
			continue
		}
		rounds++
		if len(rec.Deltas) != want {
			return fmt.Errorf("%s: a round applied %d commits (%v); the label means %d", r.Name, len(rec.Deltas), rec.Deltas, want)
		}
	}
	if rounds == 0 {
		return fmt.Errorf("%s: no round in %v", r.Name, r.Duration)
	}
	return nil
}

// TestTrainRunsWhatItSays: train's JSON reports the -iters it was asked
// for and evaluates where -eval-every says.
func TestTrainRunsWhatItSays(t *testing.T) {
	for _, tc := range []struct {
		args  []string
		iters int
		evals []int
	}{
		{[]string{"-iters", "1"}, 1, []int{1}},
		{[]string{"-iters", "5", "-eval-every", "2"}, 5, []int{2, 4, 5}},
		{[]string{"-iters", "3", "-eval-every", "10", "-workers", "3"}, 3, []int{3}},
		{[]string{"-algo", "lr", "-iters", "4", "-batch", "10", "-eval-every", "4"}, 4, []int{4}},
		{[]string{"-algo", "lr", "-data", "synthetic:blobs", "-positive", "3", "-iters", "2"}, 2, []int{1, 2}},
		{[]string{"-algo", "nmf", "-iters", "2", "-rank", "3"}, 2, []int{1, 2}},
		{[]string{"-algo", "pmf", "-n", "3000", "-iters", "2", "-batch", "-1"}, 2, []int{1, 2}},
		{[]string{"-algo", "gmm", "-k", "3", "-iters", "2", "-shuffle", "-workers", "2"}, 2, []int{1, 2}},
	} {
		args := append([]string{"train", "-n", "300", "-json"}, tc.args...)
		code, out, errs := runCmd(t, args...)
		if code != 0 {
			t.Errorf("syncbench %s: exit %d, %s", strings.Join(args, " "), code, errs)
			continue
		}
		var j trainJSON
		if err := json.Unmarshal([]byte(out), &j); err != nil {
			t.Fatal(err)
		}
		if j.Iterations != tc.iters || fmt.Sprint(j.EvaluatedAt) != fmt.Sprint(tc.evals) || len(j.Objectives) != len(tc.evals) {
			t.Errorf("syncbench %s: %d iterations, evaluated at %v; want %d, %v", strings.Join(args, " "), j.Iterations, j.EvaluatedAt, tc.iters, tc.evals)
		}
	}
}

// TestTargetKeepsTheRuns: with -target, compare starts every run from the
// θ0 it checked the target against; that must be the θ0 the runs draw
// without it, or the same seed would give different curves.
func TestTargetKeepsTheRuns(t *testing.T) {
	for _, algo := range []string{"lr", "kmeans"} {
		base := append(tinyCompare("-algo", algo, "-sync", "bsp,asp", "-json"), "-k", "3")
		if algo == "lr" {
			base = base[:len(base)-2]
		}
		_, a, _ := runCmd(t, base...)
		var ja compareJSON
		if err := json.Unmarshal([]byte(a), &ja); err != nil {
			t.Fatal(err)
		}
		_, b, errs := runCmd(t, append(base, "-target", strconv.FormatFloat(float64(ja.Target), 'g', -1, 64))...)
		var jb compareJSON
		if err := json.Unmarshal([]byte(b), &jb); err != nil {
			t.Fatalf("%v: %s", err, errs)
		}
		if ja.InitialObjective != jb.InitialObjective {
			t.Errorf("%s: θ0's objective %v without -target, %v with", algo, ja.InitialObjective, jb.InitialObjective)
		}
		for i := range ja.Runs {
			if ja.Runs[i].FinalObjective != jb.Runs[i].FinalObjective {
				t.Errorf("%s %s: final %v without -target, %v with", algo, ja.Runs[i].Sync, ja.Runs[i].FinalObjective, jb.Runs[i].FinalObjective)
			}
		}
	}
}

// FuzzCompareSync feeds compare arbitrary -sync lists and worker counts:
// it never panics, refuses in one line with nothing on stdout, or exits 0
// with every run being what its label says (ranAsLabelled). A quorum:K
// above the workers is always refused. testdata/fuzz/FuzzCompareSync holds
// seeds beyond these.
func FuzzCompareSync(f *testing.F) {
	for _, s := range []string{"bsp", "quorum:17", "quorum:3", "quorum:0.5,asp", "ssp:2,ssp:2", "fsp:1ms:semi", "isp:0.3", "bspb,fspb", "quorum:1+replicas", "ssp:-1"} {
		f.Add(s, uint8(4), false)
	}
	f.Add("quorum:2,bsp", uint8(2), true)
	f.Fuzz(func(t *testing.T, sync string, workers uint8, replicas bool) {
		w := int(workers%6) + 1
		args := []string{"-n", "120", "-dim", "3", "-workers", strconv.Itoa(w), "-stragglers", "0", "-batch", "10",
			"-duration", "5ms", "-sync", sync, "-json"}
		if replicas {
			args = append(args, "-replicas")
		}
		var out, errs bytes.Buffer
		code, c := runCompare(args, &out, &errs)
		tooBig := false
		for e := range strings.SplitSeq(sync, ",") {
			if spec, err := consistency.Parse(strings.TrimSuffix(strings.TrimSpace(strings.ToLower(e)), replicasSuffix)); err == nil {
				if k, ok := quorumCount(spec); ok && k > w {
					tooBig = true
				}
			}
		}
		switch {
		case code == 0 && tooBig:
			t.Fatalf("-sync %q with %d workers ran: a quorum above the workers", sync, w)
		case code == 0:
			for _, r := range c.runs {
				if err := ranAsLabelled(r, w); err != nil {
					t.Fatalf("-sync %q, %d workers: %v", sync, w, err)
				}
			}
		case out.Len() > 0 || strings.Count(strings.TrimSuffix(errs.String(), "\n"), "\n") > 0:
			t.Fatalf("-sync %q: exit %d with stdout %q and stderr %q; want one line on stderr", sync, code, out.String(), errs.String())
		}
	})
}
