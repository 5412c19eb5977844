package main

import (
	"bufio"
	"cmp"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
)

func main() {
	n := flag.Int("n", 10, "the number of slowest tests to list")
	flag.Parse()
	failed, err := summarize(os.Stdin, os.Stdout, *n)
	if err != nil {
		fmt.Fprintln(os.Stderr, "testtimes:", err)
		os.Exit(2)
	}
	if failed {
		os.Exit(1)
	}
}

// event is a line of `go test -json` (cmd/test2json) or of the build
// output `go test -json` interleaves with it.
type event struct {
	Action     string
	Package    string
	ImportPath string // build-output, build-fail
	Test       string
	Elapsed    float64 // seconds
	Output     string
}

// timing is a package's or a test's time.
type timing struct {
	name    string
	elapsed float64
}

// summarize copies the output of plain `go test` from the -json stream r
// to w, then writes every package's time and the n slowest top-level
// tests. failed reports a failed test, package or build.
func summarize(r io.Reader, w io.Writer, n int) (failed bool, err error) {
	out := bufio.NewWriter(w)
	defer out.Flush()
	type key struct{ pkg, test string }
	buffered := map[key][]string{} // output of tests still running
	var pkgs, tests []timing
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 16*1024*1024)
	for sc.Scan() {
		line := sc.Bytes()
		var e event
		if len(line) == 0 || line[0] != '{' || json.Unmarshal(line, &e) != nil {
			fmt.Fprintf(out, "%s\n", line) // not an event: pass it through
			continue
		}
		k := key{e.Package, e.Test}
		switch e.Action {
		case "build-output":
			out.WriteString(e.Output)
		case "build-fail":
			failed = true
		case "output":
			switch {
			case e.Test != "":
				buffered[k] = append(buffered[k], e.Output)
			case e.Output != "PASS\n" && e.Output != "testing: warning: no tests to run\n":
				// (ok … [no tests to run] follows the warning.)
				out.WriteString(e.Output)
			}
		case "pass", "fail", "skip":
			if e.Action == "fail" {
				failed = true
			}
			if e.Test == "" {
				if e.Action != "skip" {
					pkgs = append(pkgs, timing{e.Package, e.Elapsed})
				}
				// Tests that never ended (a timeout, a panic) show
				// their output with the package's failure.
				for bk, lines := range buffered {
					if bk.pkg == e.Package {
						if e.Action == "fail" {
							out.WriteString(strings.Join(lines, ""))
						}
						delete(buffered, bk)
					}
				}
				continue
			}
			if e.Action == "fail" {
				out.WriteString(strings.Join(buffered[k], ""))
			}
			delete(buffered, k)
			if !strings.Contains(e.Test, "/") && e.Action != "skip" {
				tests = append(tests, timing{shortPkg(e.Package) + " " + e.Test, e.Elapsed})
			}
		}
	}
	if err := sc.Err(); err != nil {
		return failed, err
	}
	byTime := func(a, b timing) int { return cmp.Or(cmp.Compare(b.elapsed, a.elapsed), cmp.Compare(a.name, b.name)) }
	slices.SortFunc(pkgs, byTime)
	slices.SortFunc(tests, byTime)
	if len(pkgs) > 0 {
		total := 0.0
		for _, p := range pkgs {
			total += p.elapsed
		}
		fmt.Fprintf(out, "\npackage times, slowest first (sum %s):\n", secs(total))
		quick := 0
		for _, p := range pkgs {
			if p.elapsed < 0.1 {
				quick++
				continue
			}
			fmt.Fprintf(out, "%9s  %s\n", secs(p.elapsed), p.name)
		}
		if quick > 0 {
			noun := "packages"
			if quick == 1 {
				noun = "package"
			}
			fmt.Fprintf(out, "%9s  %d more %s\n", "< 0.1s", quick, noun)
		}
	}
	if len(tests) > 0 && n > 0 {
		fmt.Fprintf(out, "\nslowest tests:\n")
		for _, t := range tests[:min(n, len(tests))] {
			fmt.Fprintf(out, "%9s  %s\n", secs(t.elapsed), t.name)
		}
	}
	return failed, nil
}

// shortPkg drops the module path from an import path.
func shortPkg(p string) string {
	if s, ok := strings.CutPrefix(p, "github.com/syncmodels/syncmodels/"); ok {
		return s
	}
	return p
}

// secs prints seconds as "12.3s".
func secs(s float64) string { return fmt.Sprintf("%.1fs", s) }
