package slsml

import (
	"math"
	"slices"
	"strings"
	"testing"
)

// Each tampering of a correct trace breaks the rule it should.
func TestCheckTampered(t *testing.T) {
	alg := newLogreg(t, 400, 10)
	_, s := memStore(t)
	base := runOK(t, s, alg, straggly()).Trace
	find := func(tr *Trace, ok func(Record) bool) int {
		for i, r := range tr.Records {
			if ok(r) {
				return i
			}
		}
		t.Fatal("no such record in the trace")
		return -1
	}
	folding := func(r Record) bool {
		return r.Kind == RecApply && slices.ContainsFunc(r.Set, func(x Contribution) bool { return x.Iter < r.Iter })
	}
	for _, tc := range []struct {
		name   string
		tamper func(tr *Trace)
		want   string
	}{
		{"merged model off by one bit", func(tr *Trace) {
			i := find(tr, func(r Record) bool { return r.Kind == RecMerge })
			p := slices.Clone(tr.Records[i].Params)
			p[3] = math.Nextafter(p[3], 1)
			tr.Records[i].Params = p
		}, RuleMerge},
		{"sum off by one bit", func(tr *Trace) {
			i := find(tr, func(r Record) bool { return r.Kind == RecApply })
			v := slices.Clone(tr.Records[i].Vec)
			v[0] = math.Nextafter(v[0], 1)
			tr.Records[i].Vec = v
		}, RuleSum},
		{"a gradient left out of a set", func(tr *Trace) {
			i := find(tr, func(r Record) bool { return r.Kind == RecApply && r.Reducer == 1 })
			tr.Records[i].Set = tr.Records[i].Set[1:]
		}, RuleLost},
		{"a gradient written twice", func(tr *Trace) {
			i := find(tr, func(r Record) bool { return r.Kind == RecWrite })
			w := tr.Records[i]
			w.Seq = 1 << 40
			tr.Records = slices.Insert(tr.Records, i+1, w)
		}, RuleReplay},
		{"a pending gradient never dropped at the end", func(tr *Trace) {
			i := find(tr, func(r Record) bool { return r.Kind == RecDrop && r.Reason == Ended })
			tr.Records = slices.Delete(tr.Records, i, i+1)
		}, RuleLost},
		{"a late gradient dropped under Fold", func(tr *Trace) {
			i := find(tr, folding)
			a := tr.Records[i]
			var late Contribution
			for _, x := range a.Set {
				if x.Iter < a.Iter {
					late = x
				}
			}
			a.Set = slices.DeleteFunc(slices.Clone(a.Set), func(x Contribution) bool { return x == late })
			tr.Records[i] = a
			tr.Records = slices.Insert(tr.Records, i, Record{Kind: RecDrop, Iter: a.Iter, C: late, Reducer: a.Reducer, Reason: Late})
		}, RuleLate},
		{"folded under Drop", func(tr *Trace) { tr.Late = Drop }, RuleLate},
		{"folded beyond MaxLag", func(tr *Trace) {
			tr.MaxLag = 1
			i := find(tr, folding)
			a := tr.Records[i]
			for j, x := range a.Set {
				if x.Iter < a.Iter {
					a.Set = slices.Clone(a.Set)
					a.Set[j].Iter = a.Iter - 2 // pretend it is older
					tr.Records[i] = a
					break
				}
			}
		}, RuleLate},
		{"a window starting early", func(tr *Trace) {
			i := find(tr, func(r Record) bool { return r.Kind == RecApply && r.Iter == 2 })
			tr.Records[i].From--
		}, RuleWindow},
		{"semaphore at another count", func(tr *Trace) { tr.Need-- }, RuleWindow},
		{"a merge missing", func(tr *Trace) {
			i := find(tr, func(r Record) bool { return r.Kind == RecMerge && r.Iter == 3 })
			tr.Records = slices.Delete(tr.Records, i, i+1)
		}, RuleMerge},
		{"a rollback of nothing", func(tr *Trace) {
			tr.Records = append(tr.Records, Record{Kind: RecRollback, Iter: 99, Reducer: 0})
		}, RuleRecord},
		{"an unknown reducer", func(tr *Trace) {
			tr.Records = append(tr.Records, Record{Kind: RecDrop, Reducer: 7, Reason: Ended})
		}, RuleRecord},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := *base
			tr.Records = slices.Clone(base.Records)
			tc.tamper(&tr)
			err := Check(&tr)
			if rules(err)[tc.want] == 0 {
				t.Fatalf("Check = %v; want a %q violation", err, tc.want)
			}
			if err := Check(base); err != nil {
				t.Fatalf("tampering changed the base trace: %v", err)
			}
		})
	}
}

// CheckError lists root causes first and bounds what it prints.
func TestCheckErrorFormat(t *testing.T) {
	e := &CheckError{}
	for i := range 30 {
		e.Violations = append(e.Violations, Violation{Record: i, Rule: RuleSum, Detail: "x"})
	}
	e.Violations = append([]Violation{{Record: 40, Rule: RuleTwice, Detail: "y"}}, e.Violations...)
	s := e.Error()
	if !strings.Contains(s, "31 violations; root causes first: 1 gradients") || !strings.Contains(s, "… 11 more") {
		t.Errorf("CheckError = %s", s)
	}
}
