// Command xarch is the cross-architecture determinism check of issue #15:
// it runs a fixed set of syncbench commands — every workload under every
// sync model (compare -json, short virtual-clock runs), the straggler
// kinds, preemption, MLLess's indirect communication, DOLL's arrival
// processes, and every reproduce report with -quick — and prints one
// sha256 digest per case. Run with a syncbench binary built for any
// architecture, it must print the same digests as on amd64; .ci/run
// cross-builds syncbench for 386 and arm64 (run under qemu-user-static)
// and compares their digests with amd64's, and amd64's with -tags
// purego,noasm and with GODEBUG=cpu.fma=off (an x86 CPU without FMA).
//
//	go build -o /tmp/sb ./cmd/syncbench
//	go run ./testdata/xarch /tmp/sb > /tmp/amd64.txt
//	GOARCH=arm64 CGO_ENABLED=0 go build -o /tmp/sb-arm64 ./cmd/syncbench
//	go run ./testdata/xarch -exec qemu-aarch64-static -want /tmp/amd64.txt -png=false /tmp/sb-arm64
//
// A case's digest covers what the command writes: for compare, the JSON's
// scenario and summary with one run (so a case is one workload under one
// sync model); for reproduce, report.md and every CSV (case
// reproduce/PAPER) and the PNG plots (case reproduce/PAPER/png), with the
// report's wall-time line masked — the only line that depends on the
// machine. -png=false leaves the plots out: on arm64, gonum/plot's own
// arithmetic is compiled with fused multiply-adds and moves a few
// anti-aliased pixels (the data plotted is in the CSVs and is checked).
//
// With -want FILE (an earlier run's output) it names every case whose
// digest differs or is missing and exits with status 1.
package main

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"
)

// A command is one syncbench invocation; it yields one or more cases.
type command struct {
	name string   // case name, or prefix for compare's per-run cases
	args []string // syncbench arguments
	out  bool     // a reproduce command writing into the directory "out"
}

// small is the scale of the compare cases: tiny data, four workers, 60 ms
// of virtual time, an objective snapshot every 6 ms — enough for every
// model to synchronize a few times, seconds under qemu.
var small = []string{"-json", "-n", "2000", "-workers", "4", "-stragglers", "1", "-batch", "50",
	"-duration", "60ms", "-eval-every", "6ms", "-seed", "3"}

// Sync models: all of them, for the gradient-descent workloads; the EM
// workloads (K-means, GMM, FCM) refuse ISP and the replica design.
const (
	emSyncs = "bsp,bsp:full,ssp:2,asp,quorum:0.75,quorum:3,fsp:10ms,fsp:10ms:semi,bspb,bspv,fspb,fspv,fspv+semi,fspv+asyn,fspv+opt"
	gdSyncs = emSyncs + ",isp,isp:0,bsp+replicas,ssp:2+replicas,asp+replicas,quorum:0.75+replicas"
)

func commands() []command {
	c := func(name string, args ...string) command {
		return command{name: name, args: append(append([]string{"compare"}, small...), args...)}
	}
	cs := []command{
		c("compare/kmeans", "-algo", "kmeans", "-dim", "16", "-k", "5", "-sync", emSyncs),
		c("compare/gmm", "-algo", "gmm", "-dim", "16", "-k", "5", "-sync", emSyncs),
		c("compare/fcm", "-algo", "fcm", "-dim", "16", "-k", "5", "-sync", emSyncs),
		c("compare/lr", "-algo", "lr", "-dim", "40", "-sync", gdSyncs),
		c("compare/pmf", "-algo", "pmf", "-n", "8000", "-lr", "1", "-sync", gdSyncs),
		c("compare/nmf", "-algo", "nmf", "-n", "400", "-dim", "30", "-sync", gdSyncs),
		// Variants that reach other code: float32 K-means and other
		// initialisations, the optimizers, sparse data, the straggler
		// kinds (natural slowdown; tail latency's lognormal and Pareto
		// draws), preemption chains, MLLess's indirect communication, and
		// DOLL's K-grouping fed by each arrival process.
		c("compare/kmeans-float32", "-algo", "kmeans", "-float32", "-dim", "16", "-k", "5", "-init", "random", "-shuffle", "-sync", "bsp,asp"),
		c("compare/fcm-first", "-algo", "fcm", "-dim", "16", "-k", "5", "-init", "first", "-sync", "ssp:2"),
		c("compare/lr-sgd", "-algo", "lr", "-dim", "40", "-optimizer", "sgd", "-sync", "bsp,asp"),
		c("compare/lr-momentum", "-algo", "lr", "-dim", "40", "-optimizer", "momentum", "-sync", "bsp,asp"),
		c("compare/lr-nesterov", "-algo", "lr", "-dim", "40", "-optimizer", "nesterov", "-l2", "0.01", "-sync", "bsp,asp"),
		c("compare/lr-sparse", "-algo", "lr", "-data", "synthetic:sparse-logistic", "-dim", "4096", "-sync", "bsp,isp"),
		c("compare/lr-natural", "-algo", "lr", "-dim", "40", "-straggler-kind", "natural", "-slowdown", "3", "-sync", "bsp,ssp:2,fspv"),
		c("compare/lr-tail", "-algo", "lr", "-dim", "40", "-straggler-kind", "tail", "-tail", "median=200us,sigma=0.8,p=0.01,scale=5ms,alpha=1.5,max=50ms", "-sync", "bsp,asp,quorum:0.75"),
		c("compare/kmeans-preempt", "-algo", "kmeans", "-dim", "16", "-k", "5", "-availability", "0.7", "-cycle", "40ms", "-preempt-step", "5ms", "-sync", "bsp,asp"),
		c("compare/lr-indirect", "-algo", "lr", "-dim", "40", "-indirect", "-sync", "bsp,isp,asp"),
		c("compare/lr-kgroup-poisson", "-algo", "lr", "-dim", "40", "-arrivals", "poisson:1-5000", "-sync", "kgroup:1,kgroup:2:spread"),
		c("compare/lr-kgroup-gamma", "-algo", "lr", "-dim", "40", "-arrivals", "gamma:2:3000", "-sync", "kgroup:2"),
		c("compare/lr-kgroup-lognormal", "-algo", "lr", "-dim", "40", "-arrivals", "lognormal:0.5:3000", "-sync", "kgroup:2"),
	}
	// The reproduce reports at their -quick scale, on synthetic data (no
	// Fashion-MNIST); fsp on logistic regression only: its K-means alone
	// takes minutes on 386, whose math.FMA is software (the compare cases
	// run every workload under FSP's systems).
	r := func(paper string, args ...string) command {
		return command{name: "reproduce/" + paper, out: true,
			args: append([]string{"reproduce", paper, "-quick", "-out", "out"}, args...)}
	}
	return append(cs,
		r("mlless"),
		r("doll"),
		r("p2p", "-fashion-mnist=", "-seeds", "1"),
		r("slsml"),
		r("fsp", "-fashion-mnist=", "-algos", "lr"),
	)
}

func main() {
	execPrefix := flag.String("exec", "", "run syncbench through this command (e.g. qemu-aarch64-static)")
	want := flag.String("want", "", "compare with the digests in this file (an earlier run's output); exit 1 naming each case that differs")
	png := flag.Bool("png", true, "include the reports' PNG plots (cases reproduce/PAPER/png)")
	run := flag.String("run", "", "only the commands whose name matches this regular expression")
	jobs := flag.Int("j", 1, "commands run at once")
	verbose := flag.Bool("v", false, "print each command's time on stderr")
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "usage: go run ./testdata/xarch [flags] SYNCBENCH\n\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() != 1 {
		flag.Usage()
		os.Exit(2)
	}
	bin, err := filepath.Abs(flag.Arg(0))
	if err != nil {
		fatal(err)
	}
	var only *regexp.Regexp
	if *run != "" {
		if only, err = regexp.Compile(*run); err != nil {
			fatal(fmt.Errorf("-run: %v", err))
		}
	}
	var cmds []command
	for _, c := range commands() {
		if only == nil || only.MatchString(c.name) {
			cmds = append(cmds, c)
		}
	}

	results := make([][][2]string, len(cmds))
	errs := make([]error, len(cmds))
	sem := make(chan struct{}, max(*jobs, 1))
	var wg sync.WaitGroup
	for i, c := range cmds {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			start := time.Now()
			results[i], errs[i] = runCommand(*execPrefix, bin, c, *png)
			if *verbose {
				fmt.Fprintf(os.Stderr, "xarch: %s: %.1f s\n", c.name, time.Since(start).Seconds())
			}
		}()
	}
	wg.Wait()
	failed := false
	var got [][2]string
	for i, c := range cmds {
		if errs[i] != nil {
			fmt.Fprintf(os.Stderr, "xarch: %s: %v\n", c.name, errs[i])
			failed = true
			continue
		}
		got = append(got, results[i]...)
	}
	for _, g := range got {
		fmt.Printf("%s %s\n", g[0], g[1])
	}
	if *want != "" {
		ref, err := readDigests(*want)
		if err != nil {
			fatal(err)
		}
		differ := 0
		seen := map[string]bool{}
		for _, g := range got {
			seen[g[0]] = true
			if w, ok := ref[g[0]]; !ok {
				fmt.Fprintf(os.Stderr, "xarch: %s: not in %s\n", g[0], *want)
				differ++
			} else if w != g[1] {
				fmt.Fprintf(os.Stderr, "xarch: %s: DIFFERS from %s\n", g[0], *want)
				differ++
			}
		}
		for name := range ref {
			// A reference case this run should have produced.
			c, ok := commandOf(name, cmds)
			if !seen[name] && ok && errs[c] == nil && (*png || !strings.HasSuffix(name, "/png")) {
				fmt.Fprintf(os.Stderr, "xarch: %s: missing (in %s)\n", name, *want)
				differ++
			}
		}
		if differ > 0 {
			fmt.Fprintf(os.Stderr, "xarch: %d of %d cases differ from %s\n", differ, len(got), *want)
			failed = true
		} else {
			fmt.Fprintf(os.Stderr, "xarch: all %d cases as in %s\n", len(got), *want)
		}
	}
	if failed {
		os.Exit(1)
	}
}

// commandOf returns the index of the command among cmds that yields the
// case name.
func commandOf(name string, cmds []command) (int, bool) {
	for i, c := range cmds {
		if name == c.name || strings.HasPrefix(name, c.name+"/") {
			return i, true
		}
	}
	return 0, false
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "xarch:", err)
	os.Exit(2)
}

// runCommand runs one command in a fresh directory and digests its cases.
func runCommand(prefix, bin string, c command, png bool) ([][2]string, error) {
	dir, err := os.MkdirTemp("", "xarch-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	argv := append([]string{bin}, c.args...)
	if prefix != "" {
		argv = append(strings.Fields(prefix), argv...)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("%s: %v\n%s", strings.Join(c.args, " "), err, lastLines(stderr.String(), 5))
	}
	if !c.out {
		return compareCases(c.name, stdout.Bytes())
	}
	return reportCases(c.name, filepath.Join(dir, "out"), png)
}

func lastLines(s string, n int) string {
	l := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(l[max(len(l)-n, 0):], "\n")
}

// compareCases digests compare -json's output run by run: each case is the
// document's fields other than runs (scenario, initial objective, target)
// with one run, named NAME/SYNC.
func compareCases(name string, out []byte) ([][2]string, error) {
	dec := json.NewDecoder(bytes.NewReader(out))
	dec.UseNumber() // keep every number's text as syncbench wrote it
	var doc map[string]any
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("compare -json output: %v", err)
	}
	runs, ok := doc["runs"].([]any)
	if !ok || len(runs) == 0 {
		return nil, fmt.Errorf("compare -json output has no runs")
	}
	delete(doc, "runs")
	top, err := json.Marshal(doc) // map keys sorted
	if err != nil {
		return nil, err
	}
	var cases [][2]string
	for _, r := range runs {
		run, _ := r.(map[string]any)
		sync, _ := run["sync"].(string)
		b, err := json.Marshal(run)
		if err != nil {
			return nil, err
		}
		h := sha256.New()
		h.Write(top)
		h.Write(b)
		cases = append(cases, [2]string{name + "/" + sync, hex.EncodeToString(h.Sum(nil))})
	}
	return cases, nil
}

// wallTime is the one machine-dependent line of every report.
var wallTime = regexp.MustCompile(`Wall time: [^ ]+ on [0-9]+ CPUs`)

// reportCases digests a reproduce report's directory: the Markdown and
// CSV files as one case, the PNG plots as another.
func reportCases(name, dir string, png bool) ([][2]string, error) {
	var files []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			files = append(files, path)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	sort.Strings(files)
	data, plots := sha256.New(), sha256.New()
	nd, np := 0, 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		rel, _ := filepath.Rel(dir, f)
		h := data
		switch filepath.Ext(f) {
		case ".md":
			b = wallTime.ReplaceAll(b, []byte("Wall time: (masked)"))
			nd++
		case ".png":
			h = plots
			np++
		default:
			nd++
		}
		fmt.Fprintf(h, "%s %d\n", filepath.ToSlash(rel), len(b))
		h.Write(b)
	}
	if nd == 0 {
		return nil, fmt.Errorf("%s wrote no report", dir)
	}
	cases := [][2]string{{name, hex.EncodeToString(data.Sum(nil))}}
	if png && np > 0 {
		cases = append(cases, [2]string{name + "/png", hex.EncodeToString(plots.Sum(nil))})
	}
	return cases, nil
}

// readDigests reads a file of "case digest" lines.
func readDigests(path string) (map[string]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	m := map[string]string{}
	s := bufio.NewScanner(f)
	for s.Scan() {
		if fs := strings.Fields(s.Text()); len(fs) == 2 {
			m[fs[0]] = fs[1]
		}
	}
	return m, s.Err()
}
