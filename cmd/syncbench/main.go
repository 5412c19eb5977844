package main

import (
	"fmt"
	"io"
	"os"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run executes the command line and returns the exit status: 0 on success,
// 1 on a runtime failure (bad data, refused update), 2 on a usage error.
func run(args []string, stdout, stderr io.Writer) int {
	cmd := "train"
	if len(args) > 0 && len(args[0]) > 0 && args[0][0] != '-' {
		cmd, args = args[0], args[1:]
	}
	switch cmd {
	case "train":
		return train(args, stdout, stderr)
	case "help":
		fmt.Fprintln(stdout, "usage: syncbench [train] [flags]; syncbench train -h lists the flags")
		return 0
	default:
		fmt.Fprintf(stderr, "syncbench: unknown command %q (want train)\n", cmd)
		return 2
	}
}
