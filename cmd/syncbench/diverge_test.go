package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// A run that blows up is reported as diverged — in the table's time to
// target, a warning, and the JSON (whose non-finite objectives are null)
// — and gives no target: "0.000 s to target" from a target derived from a
// diverged run was a wrong answer with exit status 0.
func TestDivergedRunsSaySo(t *testing.T) {
	blowUp := tinyCompare("-sync", "bsp,asp", "-optimizer", "sgd", "-lr", "1e5")
	code, out, errs := runCmd(t, blowUp...)
	if code != 0 || !strings.Contains(out, "no target: every run diverged") || strings.Count(out, " diverged ") < 2 ||
		strings.Contains(out, "0.000 s") || !strings.Contains(errs, "warning: asp diverged at") {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}
	code, out, _ = runCmd(t, append(blowUp, "-json")...)
	var j struct {
		Target *float64 `json:"target"`
		Runs   []struct {
			Sync     string   `json:"sync"`
			Diverged bool     `json:"diverged"`
			At       *float64 `json:"diverged_at_s"`
			TTT      *float64 `json:"time_to_target_s"`
		} `json:"runs"`
	}
	if code != 0 {
		t.Fatalf("-json: exit %d", code)
	}
	if err := json.Unmarshal([]byte(out), &j); err != nil {
		t.Fatalf("-json output does not parse: %v", err)
	}
	if j.Target != nil || len(j.Runs) != 2 {
		t.Fatalf("-json: target %v, %d runs", j.Target, len(j.Runs))
	}
	for _, r := range j.Runs {
		if !r.Diverged || r.At == nil || r.TTT != nil {
			t.Errorf("-json: run %s diverged=%v at %v time to target %v", r.Sync, r.Diverged, r.At, r.TTT)
		}
	}
	// A sane step: nothing diverges, nothing is said about it.
	code, out, errs = runCmd(t, tinyCompare("-sync", "bsp,asp")...)
	if code != 0 || strings.Contains(out, "diverged") || strings.Contains(errs, "diverged") {
		t.Fatalf("sane run: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}
}
