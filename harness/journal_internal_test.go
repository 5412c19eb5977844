package harness

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/syncmodels/syncmodels/algorithms"
	"github.com/syncmodels/syncmodels/consistency"
	"github.com/syncmodels/syncmodels/transport"
)

// The journal keeps what was synced, cuts off a record a crash tore, and
// refuses a corrupt journal or another job's.
func TestJournalFile(t *testing.T) {
	alg := mutationKMeans(t)
	l := alg.Layout()
	e := &Experiment{Algorithm: alg, Sync: consistency.MustParse("bsp"), Workers: 4, Seed: 3}
	path := filepath.Join(t.TempDir(), "j")
	j, recs, err := openJournal(path, e, l)
	if err != nil || len(recs) != 0 {
		t.Fatalf("a new journal: %v, %d records", err, len(recs))
	}
	d := algorithms.NewDelta(l)
	d.Vec[3], d.Count = 1.5, 7
	commit := &transport.Message{Kind: transport.Commit, From: 2, To: transport.Coordinator, Job: 3, Incarnation: 1, Seq: 1, Points: 7, Delta: d}
	for _, r := range []journalRecord{
		{kind: jRegistered, worker: 2, inc: 1}, {kind: jStart},
		{kind: jMessage, at: 5 * time.Millisecond, msg: commit},
		{kind: jLeave, at: 9 * time.Millisecond, worker: 1, reason: "lease expired"},
		{kind: jTick, at: 10 * time.Millisecond}, {kind: jSnapshot, at: 11 * time.Millisecond},
	} {
		if err := j.add(r); err != nil {
			t.Fatal(err)
		}
	}
	// A second coordinator on a journal in use is refused.
	if _, _, err := openJournal(path, e, l); !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), "in use") {
		t.Fatalf("a second coordinator on the journal: %v; want refused", err)
	}
	if err := j.close(); err != nil {
		t.Fatal(err)
	}
	good, _ := os.ReadFile(path)

	reopen := func(b []byte) ([]journalRecord, error) {
		t.Helper()
		if err := os.WriteFile(path, b, 0o600); err != nil {
			t.Fatal(err)
		}
		j, recs, err := openJournal(path, e, l)
		if err == nil {
			j.close()
		}
		return recs, err
	}
	recs, err = reopen(good)
	if err != nil || len(recs) != 6 {
		t.Fatalf("reopened: %v, %d records; want 6", err, len(recs))
	}
	if m := recs[2].msg; m == nil || m.Seq != 1 || m.From != 2 || m.Delta.Vec[3] != 1.5 || recs[3].reason != "lease expired" || recs[3].at != 9*time.Millisecond {
		t.Fatalf("records read back differ: %+v", recs)
	}
	// A torn last record (a crash mid-write, never synced) is cut off.
	for _, cut := range []int{1, 5, 9} {
		recs, err := reopen(good[:len(good)-cut])
		if err != nil || len(recs) != 5 {
			t.Fatalf("torn by %d bytes: %v, %d records; want the 5 intact", cut, err, len(recs))
		}
		if info, _ := os.Stat(path); info.Size() >= int64(len(good)-cut) {
			t.Fatalf("torn by %d bytes: the file was not cut back (size %d)", cut, info.Size())
		}
	}
	// A flipped byte inside an earlier record is corruption.
	bad := append([]byte(nil), good...)
	bad[len(good)-40] ^= 0x40
	if _, err := reopen(bad); err == nil || !strings.Contains(err.Error(), "corrupt") {
		t.Fatalf("a corrupt journal: %v; want refused", err)
	}
	// Another job's journal is refused, and left alone.
	other := *e
	other.Seed = 4
	if err := os.WriteFile(path, good, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, _, err := openJournal(path, &other, l); !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), "not this job's") {
		t.Fatalf("another job's journal: %v", err)
	}
	if b, _ := os.ReadFile(path); string(b) != string(good) {
		t.Fatal("the refused journal was changed")
	}
}

// A coordinator on a new journal is generation 1; each coordinator that
// ran the job before adds one.
func TestJournalGeneration(t *testing.T) {
	alg := mutationKMeans(t)
	e := &Experiment{Algorithm: alg, Sync: consistency.MustParse("bsp"), Workers: 4, Seed: 3}
	path := filepath.Join(t.TempDir(), "j")
	gen := func() uint64 {
		t.Helper()
		g, err := JournalGeneration(path)
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	if g := gen(); g != 1 {
		t.Fatalf("no journal: generation %d, want 1", g)
	}
	j, _, err := openJournal(path, e, alg.Layout())
	if err != nil {
		t.Fatal(err)
	}
	add := func(r journalRecord) {
		if err := j.add(r); err != nil {
			t.Fatal(err)
		}
		if err := j.sync(); err != nil {
			t.Fatal(err)
		}
	}
	add(journalRecord{kind: jRegistered, worker: 0, inc: 1})
	if g := gen(); g != 1 {
		t.Fatalf("a journal that ends before the start: generation %d, want 1", g)
	}
	add(journalRecord{kind: jStart})
	add(journalRecord{kind: jTick, at: time.Millisecond})
	if g := gen(); g != 2 {
		t.Fatalf("after one coordinator: generation %d, want 2", g)
	}
	add(journalRecord{kind: jResume, at: time.Millisecond})
	if g := gen(); g != 3 {
		t.Fatalf("after a resume: generation %d, want 3", g)
	}
	j.close()
}
