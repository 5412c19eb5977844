package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// compare -clock grpc runs the scenario with a coordinator in process and
// worker processes (this test binary, see TestMain) on loopback, over
// gRPC with mutual TLS and a token; the JSON says so and carries each
// run's check and membership counts.
func TestCompareGRPC(t *testing.T) {
	code, out, errs := runCmd(t, tinyCompare("-clock", "grpc", "-sync", "bsp,asp,quorum:3", "-duration", "300ms", "-json")...)
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	var c compareJSON
	if err := json.Unmarshal([]byte(out), &c); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, out)
	}
	if c.Scenario.Clock != "grpc" || len(c.Runs) != 3 {
		t.Fatalf("clock %q, %d runs", c.Scenario.Clock, len(c.Runs))
	}
	for _, r := range c.Runs {
		if r.Check != "ok" || r.LostDeltas != 0 || r.DuplicateApplies != 0 || r.Versions < 3 || r.RefusedStreams == nil || *r.RefusedStreams != 0 {
			t.Errorf("%s: check %q, %d lost, %d twice, %d versions, refused %v", r.Sync, r.Check, r.LostDeltas, r.DuplicateApplies, r.Versions, r.RefusedStreams)
		}
	}
	// Every field a consumer reads is there, also on the virtual clock.
	_, out, _ = runCmd(t, tinyCompare("-sync", "bsp", "-json")...)
	var m map[string]any
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		t.Fatal(err)
	}
	run := m["runs"].([]any)[0].(map[string]any)
	for _, k := range []string{"check", "lost_deltas", "duplicate_applies", "rejoins", "expired_leases", "rejected_messages"} {
		if _, ok := run[k]; !ok {
			t.Errorf("run JSON lacks %q", k)
		}
	}
}

// The gRPC commands refuse careless flags in one line, before any work.
func TestGRPCCommandsRefused(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"coordinator", "-sync", "bsp"}, []string{"-tls-dir", "syncbench tls", "-plaintext"}},
		{[]string{"coordinator", "-plaintext", "-tls-dir", "x"}, []string{"choose one"}},
		{[]string{"coordinator", "-plaintext", "-stragglers", "0"}, []string{"-plaintext with -listen :7070", "loopback"}},
		{append(tinyCompare("-clock", "grpc", "-sync", "isp"), "-json"), []string{"-sync isp", "-clock real"}},
		{[]string{"worker", "-id", "0", "-plaintext"}, []string{"-coordinator"}},
		{[]string{"worker", "-coordinator", "127.0.0.1:1", "-plaintext"}, []string{"-id"}},
		{[]string{"worker", "-coordinator", "127.0.0.1:1", "-id", "0", "-incarnation", "0", "-plaintext"}, []string{"-incarnation 0"}},
		{[]string{"tls"}, []string{"-dir"}},
		{[]string{"coordinator", "-plaintext", "-listen", "127.0.0.1:0", "-availability", "0.5"}, []string{"-availability 0.5", "cannot preempt"}},
		{tinyCompare("-availability", "1.5"), []string{"-availability 1.5"}},
		{tinyCompare("-availability", "0.7", "-cycle", "10ms"), []string{"-cycle 10ms"}},
	} {
		code, _, errs := runCmd(t, tc.args...)
		if code != 2 || strings.Count(strings.TrimSpace(errs), "\n") != 0 {
			t.Errorf("%v: exit %d, stderr %q; want 2 and one line", tc.args, code, errs)
		}
		for _, w := range tc.want {
			if !strings.Contains(errs, w) {
				t.Errorf("%v: stderr %q lacks %q", tc.args, errs, w)
			}
		}
	}
}

// syncbench tls writes a job directory the coordinator and workers load.
func TestTLSCommand(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "job")
	code, out, errs := runCmd(t, "tls", "-dir", dir, "-workers", "2", "-hosts", "127.0.0.1,coord.example")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, f := range []string{"ca.pem", "token", "server.pem", "worker-1.pem"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("%s: %v (output %q)", f, err, out)
		}
	}
	n := netFlags{tlsDir: dir}
	if _, err := n.server(); err != nil {
		t.Fatal(err)
	}
	if _, err := n.client(1); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := runCmd(t, "tls", "-dir", dir); code != 2 || !strings.Contains(errs, dir) || !strings.Contains(errs, "not empty") {
		t.Errorf("a second tls into %s: exit %d, %q; want 2 naming the directory", dir, code, errs)
	}
}

// Preemptions with worker processes: compare -clock grpc kills (SIGKILL)
// and restarts them on the seeded schedules; LR workers rejoin, and the
// runs pass the checker with nothing lost.
func TestCompareGRPCPreemptions(t *testing.T) {
	code, out, errs := runCmd(t, tinyCompare("-clock", "grpc", "-sync", "bsp", "-duration", "1500ms", "-stragglers", "0",
		"-availability", "0.6", "-cycle", "500ms", "-preempt-step", "50ms", "-json")...)
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	var c compareJSON
	if err := json.Unmarshal([]byte(out), &c); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, out)
	}
	r := c.Runs[0]
	if r.Check != "ok" || r.LostDeltas != 0 || r.DuplicateApplies != 0 || r.Preemptions == 0 || r.Rejoins == 0 {
		t.Fatalf("check %q, %d lost, %d twice, %d preemptions, %d rejoins", r.Check, r.LostDeltas, r.DuplicateApplies, r.Preemptions, r.Rejoins)
	}
	t.Logf("%d preemptions, %d rejoins, %d expired leases, %d versions", r.Preemptions, r.Rejoins, r.ExpiredLeases, r.Versions)
}
