package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// compare -sync kgroup:K runs DOLL's K-grouping over data streams next to
// the other models: the JSON names the streams, counts the batches (all
// announced batches used or queued), and the run passes the checker; with
// some workers preemptible, only those are preempted and the scenario
// says how many.
func TestCompareKGroup(t *testing.T) {
	code, out, errs := runCmd(t, tinyCompare("-sync", "bsp,kgroup:4,kgroup:4:spread", "-arrivals", "poisson:2000", "-batch", "20",
		"-availability", "0.7", "-cycle", "400ms", "-preempt-step", "20ms", "-preemptible", "2", "-duration", "1s", "-json")...)
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	var c compareJSON
	if err := json.Unmarshal([]byte(out), &c); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, out)
	}
	if c.Scenario.Arrivals != "poisson:2000" || c.Scenario.Preemptible == nil || *c.Scenario.Preemptible != 2 {
		t.Fatalf("scenario arrivals %q preemptible %v", c.Scenario.Arrivals, c.Scenario.Preemptible)
	}
	for _, r := range c.Runs {
		if r.Check != "ok" {
			t.Errorf("%s: check %q", r.Sync, r.Check)
		}
		if r.Sync == "bsp" {
			if r.Stream != nil {
				t.Errorf("bsp has a stream summary %+v", r.Stream)
			}
			continue
		}
		st := r.Stream
		if st == nil || st.Batches == 0 || st.Used+st.Queued != st.Batches || st.Arrived != int64(st.Batches)*20 || r.Preemptions == 0 {
			t.Fatalf("%s: stream %+v, %d preemptions", r.Sync, st, r.Preemptions)
		}
		// Every applied update but the last flush used K = 4 batches.
		if want := int(r.Versions) * 4; st.Used > want || st.Used <= want-4 {
			t.Errorf("%s: %d batches used by %d updates of K = 4", r.Sync, st.Used, r.Versions)
		}
	}
	// On goroutines the workers sleep until their points arrive; the run
	// passes the checker too.
	code, out, errs = runCmd(t, tinyCompare("-sync", "kgroup:2", "-clock", "real", "-arrivals", "poisson:4000", "-batch", "20", "-duration", "300ms", "-json")...)
	if code != 0 {
		t.Fatalf("-clock real: exit %d, stderr %q", code, errs)
	}
	c = compareJSON{}
	if err := json.Unmarshal([]byte(out), &c); err != nil {
		t.Fatal(err)
	}
	if r := c.Runs[0]; r.Check != "ok" || r.Stream == nil || r.Stream.Used == 0 || r.Stream.Used+r.Stream.Queued != r.Stream.Batches {
		t.Fatalf("-clock real: check %q, stream %+v", r.Check, r.Stream)
	}
	// The table says what the streams are.
	_, out, _ = runCmd(t, tinyCompare("-sync", "kgroup:2", "-duration", "200ms")...)
	if !strings.Contains(out, "kgroup runs: data streams poisson:") {
		t.Errorf("table does not name the streams:\n%s", out)
	}
}

// Careless kgroup flags are one-line usage errors naming the flag.
func TestCompareKGroupRefused(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{tinyCompare("-sync", "kgroup:4", "-batch", "0"), "-batch ≥ 1"},
		{tinyCompare("-sync", "kgroup:4", "-arrivals", "poisson:-3"), "-arrivals \"poisson:-3\""},
		{tinyCompare("-sync", "kgroup:4", "-arrivals", "nonsense"), "-arrivals \"nonsense\""},
		{tinyCompare("-sync", "kgroup:4", "-arrivals", "poisson:1,2"), "-arrivals \"poisson:1,2\""},
		{tinyCompare("-sync", "kgroup:0"), "-sync \"kgroup:0\""},
		{tinyCompare("-sync", "kgroup:4", "-availability", "0.5", "-preemptible", "99"), "-preemptible 99"},
	} {
		code, _, errs := runCmd(t, tc.args...)
		if code != 2 || !strings.Contains(errs, tc.want) || strings.Count(strings.TrimSpace(errs), "\n") > 0 {
			t.Errorf("%v: exit %d, stderr %q; want 2 and one line with %q", tc.args, code, errs, tc.want)
		}
	}
}
