package consistency_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/syncmodels/syncmodels/consistency"
)

var specs = []string{"bsp", "bsp:full", "ssp:0", "ssp:1", "ssp:3", "asp", "quorum:1", "quorum:3", "quorum:0.75", "quorum:1.0", "fsp", "fsp:10ms", "fsp:5ms:semi", "isp:0", "isp:0.7"}

func workers(n int) []consistency.WorkerID {
	ws := make([]consistency.WorkerID, n)
	for i := range ws {
		ws[i] = consistency.WorkerID(i)
	}
	return ws
}

// Every model, driven at random with and without churn, yields a trace
// that passes its checker.
func TestRandomRunsPassCheck(t *testing.T) {
	for _, s := range specs {
		for _, churn := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/churn=%v", s, churn), func(t *testing.T) {
				for seed := range uint64(20) {
					d, err := newDriver(consistency.MustParse(s), workers(6), 8)
					if err != nil {
						t.Fatal(err)
					}
					if err := d.random(rand.New(rand.NewPCG(seed, 1)), 400, churn); err != nil {
						t.Fatalf("seed %d: %v", seed, err)
					}
					if err := consistency.Check(&d.trace); err != nil {
						t.Fatalf("seed %d: %v", seed, err)
					}
				}
			})
		}
	}
}

// Model-specific guarantees measured directly on random traces: SSP's
// clock spread never exceeds s+1, BSP applies every member's delta per
// round, quorum applies at least k.
func TestRandomRunsProperties(t *testing.T) {
	for _, s := range []string{"ssp:0", "ssp:2", "asp"} {
		d, _ := newDriver(consistency.MustParse(s), workers(5), 1)
		if err := d.random(rand.New(rand.NewPCG(7, 7)), 2000, false); err != nil {
			t.Fatal(err)
		}
		spread := 0
		clock := map[consistency.WorkerID]int{}
		for _, r := range d.trace.Records {
			if r.Kind != consistency.RecRead {
				continue
			}
			clock[r.Worker] = int(r.Clock)
			lo, hi := 1<<30, 0
			for _, c := range clock {
				lo, hi = min(lo, c), max(hi, c)
			}
			spread = max(spread, hi-lo)
		}
		spec := consistency.MustParse(s)
		switch {
		case spec.Kind == consistency.SSP && spread > spec.Staleness+1:
			t.Errorf("%s: clock spread %d > s+1 = %d", s, spread, spec.Staleness+1)
		case spec.Kind == consistency.ASP && spread <= 3:
			// Workers 0 and 1 are 4× slower: ASP must let the others run ahead.
			t.Errorf("asp: clock spread %d; stragglers should fall far behind", spread)
		}
	}
}

// brokenSSP claims to be SSP(1) but releases at once like ASP: the checker
// must catch it.
type brokenSSP struct{ consistency.Model }

func (brokenSSP) Spec() consistency.Spec { return consistency.MustParse("ssp:1") }

// brokenBSP claims BSP but is a quorum of 2: rounds end without every
// member.
type brokenBSP struct{ consistency.Model }

func (brokenBSP) Spec() consistency.Spec { return consistency.MustParse("bsp") }

// brokenFSP claims FSP but is a quorum of 3.
type brokenFSP struct{ consistency.Model }

func (brokenFSP) Spec() consistency.Spec { return consistency.MustParse("fsp") }

// brokenQuorum claims quorum:4 but releases at 3.
type brokenQuorum struct{ consistency.Model }

func (brokenQuorum) Spec() consistency.Spec { return consistency.MustParse("quorum:4") }

func mustNew(t *testing.T, s string, n int) consistency.Model {
	m, err := consistency.New(consistency.MustParse(s), consistency.Config{Workers: workers(n), Batch: 4})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestCheckCatchesBrokenModels(t *testing.T) {
	tests := []struct {
		name string
		m    func(t *testing.T) consistency.Model
		rule string
	}{
		{"ssp-ignores-bound", func(t *testing.T) consistency.Model { return brokenSSP{mustNew(t, "asp", 5)} }, "ssp:"},
		{"bsp-without-everyone", func(t *testing.T) consistency.Model { return brokenBSP{mustNew(t, "quorum:2", 5)} }, "bsp:"},
		{"fsp-without-everyone", func(t *testing.T) consistency.Model { return brokenFSP{mustNew(t, "quorum:3", 5)} }, "bsp:"},
		{"quorum-too-small", func(t *testing.T) consistency.Model { return brokenQuorum{mustNew(t, "quorum:3", 5)} }, "quorum:"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := tc.m(t)
			d := wrapDriver(m, workers(5))
			if err := d.random(rand.New(rand.NewPCG(1, 2)), 300, false); err != nil {
				t.Fatal(err)
			}
			err := consistency.Check(&d.trace)
			var ce *consistency.CheckError
			if !errors.As(err, &ce) {
				t.Fatalf("Check = %v; want a *CheckError", err)
			}
			if !strings.Contains(err.Error(), tc.rule) {
				t.Fatalf("Check found %v; want a %q violation", err, tc.rule)
			}
		})
	}
}

// A driver that loses or duplicates an apply is caught by the ledger rules.
func TestCheckCatchesBrokenDrivers(t *testing.T) {
	tests := []struct {
		name   string
		mutate func([]consistency.Effect) []consistency.Effect
		want   string
	}{
		{"drops-a-delta", func(effs []consistency.Effect) []consistency.Effect {
			for i, e := range effs {
				if e.Kind == consistency.EfApply && e.Version == 3 && len(e.Deltas) > 1 {
					effs[i].Deltas = e.Deltas[1:]
				}
			}
			return effs
		}, "never applied"},
		{"applies-twice", func(effs []consistency.Effect) []consistency.Effect {
			for i, e := range effs {
				if e.Kind == consistency.EfApply && e.Version == 4 {
					effs[i].Deltas = append(e.Deltas, e.Deltas[0])
				}
			}
			return effs
		}, "applied twice"},
		{"stale-release", func(effs []consistency.Effect) []consistency.Effect {
			for i, e := range effs {
				if e.Kind == consistency.EfRelease && e.Version == 2 {
					effs[i].Version = 9
				}
			}
			return effs
		}, "only 2 exist"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, _ := newDriver(consistency.MustParse("bsp"), workers(3), 4)
			d.mutate = tc.mutate
			// Commit errors after a mutated release are expected: stop at the first.
			_ = d.random(rand.New(rand.NewPCG(3, 3)), 60, false)
			if len(d.trace.Records) == 0 || d.trace.Records[len(d.trace.Records)-1].Kind != consistency.RecStop {
				d.trace.Add(consistency.Record{Kind: consistency.RecStop})
			}
			err := consistency.Check(&d.trace)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Check = %v; want a violation containing %q", err, tc.want)
			}
		})
	}
}

func TestCheckNeedsStop(t *testing.T) {
	tr := consistency.Trace{Spec: consistency.MustParse("asp"), Workers: workers(1)}
	if err := consistency.Check(&tr); err == nil || !strings.Contains(err.Error(), "no stop record") {
		t.Fatalf("Check of a trace without stop = %v", err)
	}
}

func TestParse(t *testing.T) {
	good := map[string]string{"bsp": "bsp", "BSP:full": "bsp:full", " ssp:3 ": "ssp:3", "asp": "asp",
		"quorum:0.9": "quorum:0.9", "quorum:12": "quorum:12", "ssp:0": "ssp:0", "quorum:1.0": "quorum:1.0",
		"fsp": "fsp", "fsp:100ms": "fsp:100ms", "FSP:1.5s": "fsp:1.5s", "fsp:semi": "fsp:semi", "fsp:20ms:semi": "fsp:20ms:semi",
		"isp": "isp:0.7", "ISP:0.25": "isp:0.25", "isp:0": "isp:0", "isp:1e-3": "isp:0.001",
		"kgroup:1": "kgroup:1", "KGROUP:64": "kgroup:64", "kgroup:8:spread": "kgroup:8:spread", "kgroup:+3": "kgroup:3"}
	for in, want := range good {
		s, err := consistency.Parse(in)
		if err != nil || s.String() != want {
			t.Errorf("Parse(%q) = %v, %v; want %s", in, s, err, want)
		}
	}
	for _, in := range []string{"", "bsp:2", "ssp", "ssp:-1", "ssp:x", "asp:1", "quorum", "quorum:0", "quorum:1.5", "quorum:-0.5", "fsp:0s", "fsp:-1ms", "fsp:x", "fsp:semi:20ms", "fsp:20mssemi", "ksp", "isp:-0.1", "isp:x", "isp:inf", "isp:NaN", "isp:",
		"kgroup", "kgroup:", "kgroup:0", "kgroup:-2", "kgroup:1.5", "kgroup:spread", "kgroup:3:", "kgroup:3:fifo", "kgroup:3:spread:spread", "kgroup::spread"} {
		if s, err := consistency.Parse(in); !errors.Is(err, consistency.ErrConfig) {
			t.Errorf("Parse(%q) = %v, %v; want ErrConfig", in, s, err)
		}
	}
}

func TestNewRejectsBadConfig(t *testing.T) {
	for _, cfg := range []consistency.Config{
		{},
		{Workers: workers(2), Batch: -1},
		{Workers: []consistency.WorkerID{1, 1}},
	} {
		if _, err := consistency.New(consistency.MustParse("bsp"), cfg); !errors.Is(err, consistency.ErrConfig) {
			t.Errorf("New(%+v) = %v; want ErrConfig", cfg, err)
		}
	}
	// KGroup needs K ≥ 1 and a batch size b > 0 (no full pass).
	for _, c := range []struct {
		spec  consistency.Spec
		batch int
	}{{consistency.MustParse("kgroup:2"), 0}, {consistency.Spec{Kind: consistency.KGroup}, 4}, {consistency.Spec{Kind: consistency.KGroup, Group: -1}, 4}} {
		if _, err := consistency.New(c.spec, consistency.Config{Workers: workers(2), Batch: c.batch}); !errors.Is(err, consistency.ErrConfig) {
			t.Errorf("New(%+v, batch %d) = %v; want ErrConfig", c.spec, c.batch, err)
		}
	}
	// K may exceed the workers: a group can hold several batches of one.
	if _, err := consistency.New(consistency.MustParse("kgroup:64"), consistency.Config{Workers: workers(2), Batch: 1}); err != nil {
		t.Errorf("New(kgroup:64, 2 workers) = %v", err)
	}
	// A quorum count above the workers would run as BSP under its label;
	// at the workers, or as a fraction, it is fine.
	for spec, ok := range map[string]bool{"quorum:17": false, "quorum:16": true, "quorum:1.0": true, "quorum:0.01": true, "quorum:1": true} {
		_, err := consistency.New(consistency.MustParse(spec), consistency.Config{Workers: workers(16)})
		if ok != (err == nil) || !ok && !errors.Is(err, consistency.ErrConfig) {
			t.Errorf("New(%s, 16 workers) = %v; want ok = %v", spec, err, ok)
		}
	}
}

// Refused events change nothing: after any refused event the model emits
// exactly what a fresh model fed only the accepted events emits.
func TestRefusedEventsChangeNothing(t *testing.T) {
	for _, s := range specs {
		a, _ := newDriver(consistency.MustParse(s), workers(3), 2)
		b, _ := newDriver(consistency.MustParse(s), workers(3), 2)
		bad := []consistency.Event{
			{Kind: consistency.EvCommit, Worker: 0, Seq: 1}, // before start
			{Kind: consistency.EvStart},
			{Kind: consistency.EvStart},
			{Kind: consistency.EvCommit, Worker: 7, Seq: 1},
			{Kind: consistency.EvCommit, Worker: 0, Seq: 2},
			{Kind: consistency.EvCommit, Worker: 0, Seq: 1, Version: 3},
			{Kind: consistency.EvCommit, Worker: 0, Seq: 1, Points: -1},
			{Kind: consistency.EvProgress, Worker: 0, Points: -1},
			{Kind: consistency.EvJoin, Worker: 1},
			{Kind: consistency.EvLeave, Worker: 9},
			{Kind: consistency.EvSetInterval, Interval: -time.Second},
			{Kind: 99},
		}
		if _, err := b.step(consistency.Event{Kind: consistency.EvStart}); err != nil {
			t.Fatal(err)
		}
		okCount := 0
		for _, ev := range bad {
			if _, err := a.step(ev); err == nil {
				okCount++
			}
		}
		if okCount != 1 {
			t.Fatalf("%s: %d events accepted; want only the first start", s, okCount)
		}
		for _, w := range []consistency.WorkerID{2, 0, 1} {
			ea, erra := a.commit(w)
			eb, errb := b.commit(w)
			if fmt.Sprint(ea, erra) != fmt.Sprint(eb, errb) {
				t.Fatalf("%s: after refused events commit w%d = %v, %v; fresh model %v, %v", s, w, ea, erra, eb, errb)
			}
		}
	}
}
