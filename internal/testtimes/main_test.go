package main

import (
	"os"
	"strings"
	"testing"
)

const stream = `{"Action":"start","Package":"github.com/syncmodels/syncmodels/a"}
{"Action":"run","Package":"github.com/syncmodels/syncmodels/a","Test":"TestFast"}
{"Action":"output","Package":"github.com/syncmodels/syncmodels/a","Test":"TestFast","Output":"=== RUN   TestFast\n"}
{"Action":"output","Package":"github.com/syncmodels/syncmodels/a","Test":"TestFast","Output":"--- PASS: TestFast (0.25s)\n"}
{"Action":"pass","Package":"github.com/syncmodels/syncmodels/a","Test":"TestFast","Elapsed":0.27}
{"Action":"run","Package":"github.com/syncmodels/syncmodels/a","Test":"TestSlow"}
{"Action":"output","Package":"github.com/syncmodels/syncmodels/a","Test":"TestSlow","Output":"--- PASS: TestSlow (3.5s)\n"}
{"Action":"pass","Package":"github.com/syncmodels/syncmodels/a","Test":"TestSlow","Elapsed":3.5}
{"Action":"run","Package":"github.com/syncmodels/syncmodels/a","Test":"TestSlow/sub"}
{"Action":"pass","Package":"github.com/syncmodels/syncmodels/a","Test":"TestSlow/sub","Elapsed":3.4}
{"Action":"output","Package":"github.com/syncmodels/syncmodels/a","Output":"PASS\n"}
{"Action":"output","Package":"github.com/syncmodels/syncmodels/a","Output":"ok  \tgithub.com/syncmodels/syncmodels/a\t3.8s\n"}
{"Action":"pass","Package":"github.com/syncmodels/syncmodels/a","Elapsed":3.8}
{"Action":"run","Package":"github.com/syncmodels/syncmodels/b","Test":"TestBroken"}
{"Action":"output","Package":"github.com/syncmodels/syncmodels/b","Test":"TestBroken","Output":"    b_test.go:9: got 2, want 3\n"}
{"Action":"output","Package":"github.com/syncmodels/syncmodels/b","Test":"TestBroken","Output":"--- FAIL: TestBroken (0.01s)\n"}
{"Action":"fail","Package":"github.com/syncmodels/syncmodels/b","Test":"TestBroken","Elapsed":0.01}
{"Action":"output","Package":"github.com/syncmodels/syncmodels/b","Output":"FAIL\n"}
{"Action":"output","Package":"github.com/syncmodels/syncmodels/b","Output":"FAIL\tgithub.com/syncmodels/syncmodels/b\t0.2s\n"}
{"Action":"fail","Package":"github.com/syncmodels/syncmodels/b","Elapsed":0.2}
{"Action":"output","Package":"github.com/syncmodels/syncmodels/c","Output":"?   \tgithub.com/syncmodels/syncmodels/c\t[no test files]\n"}
{"Action":"skip","Package":"github.com/syncmodels/syncmodels/c","Elapsed":0}
{"Action":"output","Package":"github.com/syncmodels/syncmodels/d","Output":"testing: warning: no tests to run\n"}
{"Action":"output","Package":"github.com/syncmodels/syncmodels/d","Output":"ok  \tgithub.com/syncmodels/syncmodels/d\t0.003s [no tests to run]\n"}
{"Action":"pass","Package":"github.com/syncmodels/syncmodels/d","Elapsed":0.003}
`

// Plain go test's lines (ok, FAIL, the failed test's output), then the
// packages by time and the slowest top-level tests.
func Example() {
	failed, err := summarize(strings.NewReader(stream), os.Stdout, 2)
	if err != nil || !failed {
		panic("want a failure")
	}
	// Output:
	// ok  	github.com/syncmodels/syncmodels/a	3.8s
	//     b_test.go:9: got 2, want 3
	// --- FAIL: TestBroken (0.01s)
	// FAIL
	// FAIL	github.com/syncmodels/syncmodels/b	0.2s
	// ?   	github.com/syncmodels/syncmodels/c	[no test files]
	// ok  	github.com/syncmodels/syncmodels/d	0.003s [no tests to run]
	//
	// package times, slowest first (sum 4.0s):
	//      3.8s  github.com/syncmodels/syncmodels/a
	//      0.2s  github.com/syncmodels/syncmodels/b
	//    < 0.1s  1 more package
	//
	// slowest tests:
	//      3.5s  a TestSlow
	//      0.3s  a TestFast
}

// A stream of passing packages is not a failure; a line that is not an
// event (the go command's own messages) passes through.
func TestSummarizePasses(t *testing.T) {
	var b strings.Builder
	in := "go: downloading example.com/m v1.0.0\n" + strings.Split(stream, `{"Action":"run","Package":"github.com/syncmodels/syncmodels/b"`)[0]
	failed, err := summarize(strings.NewReader(in), &b, 10)
	if err != nil || failed {
		t.Fatalf("failed %v, err %v; want a pass", failed, err)
	}
	for _, want := range []string{"go: downloading example.com/m v1.0.0\n", "ok  \tgithub.com/syncmodels/syncmodels/a\t3.8s\n", "slowest tests:\n     3.5s  a TestSlow\n"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, b.String())
		}
	}
	if strings.Contains(b.String(), "=== RUN") || strings.Contains(b.String(), "--- PASS") {
		t.Errorf("a passing test's output is shown:\n%s", b.String())
	}
}

// A test that never ended (a timeout) shows its output with its
// package's failure.
func TestSummarizeTimeout(t *testing.T) {
	in := `{"Action":"run","Package":"p","Test":"TestHang"}
{"Action":"output","Package":"p","Test":"TestHang","Output":"panic: test timed out after 10m0s\n"}
{"Action":"output","Package":"p","Output":"FAIL\tp\t600.0s\n"}
{"Action":"fail","Package":"p","Elapsed":600}
`
	var b strings.Builder
	failed, err := summarize(strings.NewReader(in), &b, 10)
	if err != nil || !failed || !strings.Contains(b.String(), "panic: test timed out after 10m0s\n") {
		t.Errorf("failed %v, err %v, output:\n%s", failed, err, b.String())
	}
}
