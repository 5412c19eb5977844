package main

import (
	"fmt"
	"io"
	"os"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

const usage = `usage: syncbench [command] [flags]

commands:
  compare   run several sync models (BSP, SSP, ASP, quorum) on one workload with
            stragglers and print a comparison table; the default command
  train     train one algorithm in one process under bulk-synchronous iterations
  reproduce rerun a paper's evaluation into a Markdown report (reproduce fsp,
            reproduce mlless)
  help      print this message

syncbench COMMAND -h lists a command's flags; docs/compare.md explains compare.
`

// run executes the command line and returns the exit status: 0 on success,
// 1 on a runtime failure (bad data, refused update), 2 on a usage error.
func run(args []string, stdout, stderr io.Writer) int {
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
	case "help":
		fmt.Fprint(stdout, usage)
		return 0
	default:
		fmt.Fprintf(stderr, "syncbench: unknown command %q (want compare, train or help)\n", cmd)
		return 2
	}
}
