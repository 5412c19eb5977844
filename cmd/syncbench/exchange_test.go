package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/syncmodels/syncmodels/exchange/redisx/redistest"
)

// -exchange is a runtime choice of -clock real: the goroutine runtime's
// messages go through the in-process store or a real Redis, and every
// run passes the checker.
func TestCompareExchange(t *testing.T) {
	srv := redistest.Start(t)
	for _, c := range []struct{ spec, heading string }{
		{"memory", "real clock, messages through the in-process store (exchange.Memory)"},
		{srv.URL(), "real clock, messages through Redis"},
	} {
		t.Run(c.spec, func(t *testing.T) {
			args := smallArgs("-clock", "real", "-exchange", c.spec, "-sync", "bsp,asp,kgroup:4", "-duration", "200ms")
			code, out, errs := runCmd(t, args...)
			if code != 0 {
				t.Fatalf("exit %d, stderr %q", code, errs)
			}
			if !strings.Contains(out, c.heading) || strings.Contains(out, srv.Addr) {
				t.Errorf("the table's heading does not say %q (or names the server's address):\n%s", c.heading, out)
			}
			code, out, errs = runCmd(t, append(args, "-json")...)
			if code != 0 {
				t.Fatalf("-json: exit %d, stderr %q", code, errs)
			}
			var r compareJSON
			if err := json.Unmarshal([]byte(out), &r); err != nil {
				t.Fatal(err)
			}
			if len(r.Runs) != 3 {
				t.Fatalf("%d runs; want 3", len(r.Runs))
			}
			for _, run := range r.Runs {
				if run.Check != "ok" || run.Versions < 3 {
					t.Errorf("%s: check %q, %d versions", run.Sync, run.Check, run.Versions)
				}
			}
		})
	}
}

func TestCompareExchangeErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-exchange", "redis://127.0.0.1:1"}, "-exchange redis://127.0.0.1:1: the store carries the goroutine runtime's messages; use -clock real, not virtual"},
		{[]string{"-exchange", "memory", "-clock", "grpc"}, "use -clock real, not grpc"},
		{[]string{"-exchange", "mem", "-clock", "real"}, `-exchange "mem": want memory or redis://HOST:PORT`},
	} {
		code, _, errs := runCmd(t, smallArgs(tc.args...)...)
		if code != 2 || !strings.Contains(errs, tc.want) || strings.Count(strings.TrimSpace(errs), "\n") > 1 {
			t.Errorf("%v: exit %d, stderr %q; want 2 and one line naming %q", tc.args, code, errs, tc.want)
		}
	}
}
