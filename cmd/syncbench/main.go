package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/redis/go-redis/v9"
)

func main() {
	// go-redis logs each failed dial of its pool to stderr; the command's
	// own error already names the store and the cause, once.
	redis.SetLogger(quietRedis{})
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// quietRedis discards go-redis's internal log.
type quietRedis struct{}

func (quietRedis) Printf(context.Context, string, ...any) {}

// commands are syncbench's commands with their one-line summaries, in
// the order the help lists them.
var commands = []struct{ name, summary string }{
	{"compare", "run several sync models (bsp, ssp, asp, quorum, fsp, isp) on one workload with stragglers and print a comparison table; the default command"},
	{"train", "train one algorithm in one process under bulk-synchronous iterations"},
	{"coordinator", "run compare's sync models with the workers in other processes or hosts, over gRPC (TLS and a token)"},
	{"worker", "one worker process of a coordinator's job: it fetches the job, loads its own shard and trains"},
	{"tls", "create a job's CA, its coordinator and worker certificates and its token, for coordinator and worker"},
	{"provision", "plan a DOLL job on preemptible instances: how many of N_tot workers to rent as spot instances to meet a deadline at the lowest expected cost"},
	{"calibrate", "measure this machine's compute, apply and message costs into a cost profile (JSON) that compare, reproduce and fidelity read with -profile"},
	{"fidelity", "run a grid of scenarios on the real clock and in virtual time with calibrated costs, and write docs/fidelity.md: how well the simulator predicts this machine"},
	{"reproduce", "rerun a paper's evaluation into a Markdown report: reproduce doll, fsp, mlless, p2p, slsml"},
	{"help", "print this message"},
}

// commandNames lists the commands for errors: "compare, train, reproduce or help".
func commandNames() string {
	var ns []string
	for _, c := range commands {
		ns = append(ns, c.name)
	}
	return strings.Join(ns[:len(ns)-1], ", ") + " or " + ns[len(ns)-1]
}

// usage is the top-level help.
func usage() string {
	var b strings.Builder
	b.WriteString("usage: syncbench [command] [flags]\n\ncommands:\n")
	for _, c := range commands {
		fmt.Fprintf(&b, "  %-12s %s\n", c.name, c.summary)
	}
	b.WriteString(`
syncbench with no command runs compare. Each command's flags, with their
defaults: syncbench compare -h, syncbench train -h, syncbench reproduce -h.
docs/compare.md explains compare; exit status 0 on success, 1 when the data
or a run fails, 2 for a usage error.
`)
	return b.String()
}

// isHelp reports whether arg asks for help.
func isHelp(arg string) bool {
	switch arg {
	case "-h", "-help", "--help", "help":
		return true
	}
	return false
}

// run executes the command line and returns the exit status: 0 on success,
// 1 on a runtime failure (bad data, refused update), 2 on a usage error.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 && isHelp(args[0]) {
		fmt.Fprint(stdout, usage())
		return 0
	}
	cmd := "compare"
	if len(args) > 0 && len(args[0]) > 0 && args[0][0] != '-' {
		cmd, args = args[0], args[1:]
	}
	switch cmd {
	case "compare":
		return compare(args, stdout, stderr)
	case "train":
		return train(args, stdout, stderr)
	case "reproduce":
		return reproduce(args, stdout, stderr)
	case "coordinator":
		return coordinatorCmd(args, stdout, stderr)
	case "worker":
		return worker(args, stdout, stderr)
	case "tls":
		return tlsCmd(args, stdout, stderr)
	case "provision":
		return provisionCmd(args, stdout, stderr)
	case "calibrate":
		return calibrateCmd(args, stdout, stderr)
	case "fidelity":
		return fidelityCmd(args, stdout, stderr)
	default:
		fmt.Fprintf(stderr, "syncbench: unknown command %q (want %s); run 'syncbench -h' for help\n", cmd, commandNames())
		return 2
	}
}
