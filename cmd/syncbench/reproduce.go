package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"time"
)

// papers are the evaluations `syncbench reproduce` regenerates, by name.
var papers = map[string]func(args []string, stdout, stderr io.Writer) int{
	"doll":   reproduceDOLL,
	"p2p":    reproduceP2P,
	"fsp":    reproduceFSP,
	"mlless": reproduceMLLess,
	"slsml":  reproduceSlsML,
}

// reproduce runs `syncbench reproduce PAPER [flags]`: it reruns a paper's
// evaluation in virtual time and writes a Markdown report with PNG figures
// (docs/reproduce/PAPER.md by default).
func reproduce(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		if len(args) > 0 && (args[0] == "-h" || args[0] == "-help" || args[0] == "--help") {
			fmt.Fprint(stdout, reproduceUsage)
			return 0
		}
		fmt.Fprintf(stderr, "syncbench reproduce: name a paper (want doll, fsp, mlless, p2p or slsml)\n%s", reproduceUsage)
		return 2
	}
	run, ok := papers[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "syncbench reproduce: unknown paper %q (want doll, fsp, mlless, p2p or slsml)\n", args[0])
		return 2
	}
	return run(args[1:], stdout, stderr)
}

const reproduceUsage = `usage: syncbench reproduce PAPER [flags]

papers:
  doll  DOLL §V: the static provisioning method's cost and time (Figs. 3,
        4), static vs adaptive vs Corollary 2's bound (Fig. 5), Table II
  fsp   FSP/Flegel (TPDS 2022) §6: runtime with and without stragglers
        (Figs. 7, 8), migration and FSPV+opt (Figs. 11, 12), semi-centralized
        coordination (Fig. 13), runtime against the barrier interval (Fig. 15)
  mlless  MLLess §6: ISP's significance threshold (Fig. 5), the scale-in
        auto-tuner's Perf/$ (Fig. 6), ISP vs SSP vs BSP (Fig. 9)
  p2p   peer-to-peer serverless training: sync vs async convergence, computation
        against communication as peers grow, QSGD, serverless vs instance
        time and cost (-exchange redis://HOST:PORT for a real Redis)
  slsml slsML: pipeline time per iteration against workers with and without
        the 90% semaphore under tail latency, cost against workers and
        reducers (-exchange redis://HOST:PORT for a real Redis)

syncbench reproduce PAPER -h lists its flags; docs/reproduce/PAPER.md is the
report it writes.
`

// reportCommand is the skeleton every `syncbench reproduce PAPER` shares:
// it parses fs (flags registered, validated by check), creates OUT/PAPER
// first so that a bad -out fails before the runs, then calls run under a
// context an interrupt cancels, with the start time for the report's wall
// time. fs is named "syncbench reproduce PAPER".
func reportCommand(paper string, fs *flag.FlagSet, args []string, check func() error, out *string,
	run func(ctx context.Context, start time.Time) error, stdout, stderr io.Writer) int {
	if code, ok := parseFlags(fs, args, check, stderr); !ok {
		return code
	}
	start := time.Now()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	err := os.MkdirAll(filepath.Join(*out, paper), 0o755)
	if err == nil {
		err = run(ctx, start)
	}
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", fs.Name(), oneLine(err))
		return 1
	}
	fmt.Fprintf(stdout, "wrote %s and %s in %.0f s\n", filepath.Join(*out, paper+".md"), filepath.Join(*out, paper)+string(filepath.Separator), time.Since(start).Seconds())
	return 0
}
