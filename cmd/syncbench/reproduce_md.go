package main

import (
	"fmt"
	"strconv"
	"strings"
)

// markdown accumulates a reproduction report.
type markdown struct{ strings.Builder }

// p appends a formatted string.
func (m *markdown) p(format string, args ...any) { fmt.Fprintf(&m.Builder, format, args...) }

// table appends a Markdown table; the first row is the header.
func (m *markdown) table(rows [][]string) {
	for i, row := range rows {
		m.p("| %s |\n", strings.Join(row, " | "))
		if i == 0 {
			m.p("|%s\n", strings.Repeat("---|", len(row)))
		}
	}
}

// reproduceCommand is the command line that regenerates a paper's report
// with the flags args, quoted for a POSIX shell where needed.
func reproduceCommand(paper string, args []string) string {
	cmd := "go run ./cmd/syncbench reproduce " + paper
	for _, a := range args {
		if a == "" || strings.ContainsAny(a, " \t\"'$") {
			a = strconv.Quote(a)
		}
		cmd += " " + a
	}
	return cmd
}
