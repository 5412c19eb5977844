package consistency_test

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/syncmodels/syncmodels/consistency"
)

// replay writes r through the Recorder method that records it.
func replay(rec *consistency.Recorder, r consistency.Record) error {
	switch r.Kind {
	case consistency.RecRead:
		rec.Released(r.At, consistency.Effect{Kind: consistency.EfRelease, Worker: r.Worker, Version: r.Version, Clock: r.Clock,
			Budget: r.Points, Batch: r.Batch, Batches: r.Batches})
	case consistency.RecCommit:
		rec.Accepted(r.At, consistency.Event{Kind: consistency.EvCommit, Worker: r.Worker, Seq: r.Seq, Version: r.Version,
			Points: r.Points, Batch: r.Batch}, r.Clock)
	case consistency.RecApply:
		rec.Applied(r.At, consistency.Effect{Kind: consistency.EfApply, Version: r.Version, Deltas: r.Deltas, Final: r.Final})
	case consistency.RecJoin:
		rec.JoinedFrom(r.At, r.Worker, r.Seq)
	case consistency.RecLeave:
		rec.LeftBecause(r.At, r.Worker, r.Reason)
	case consistency.RecStop:
		rec.Stopped(r.At)
	case consistency.RecBatch:
		rec.BatchReady(r.At, r.Worker, r.Batch)
	default:
		return fmt.Errorf("cannot replay %v", r)
	}
	return nil
}

// TestCheckOnlyRecorder: a recorder that checks its records as they come
// (CheckOnly) keeps none and gives the verdict Check gives on the trace a
// keeping recorder writes from the same calls, on random runs of every
// model and on the same runs with a record dropped or repeated (which
// break them).
func TestCheckOnlyRecorder(t *testing.T) {
	specs := []string{"bsp", "ssp:2", "asp", "quorum:0.5", "fsp", "kgroup:3", "kgroup:2:spread"}
	broken := 0
	for _, s := range specs {
		for seed := range uint64(6) {
			spec := consistency.MustParse(s)
			ws := []consistency.WorkerID{0, 1, 2, 3, 4}
			d, err := newDriver(spec, ws, 10)
			if err != nil {
				t.Fatal(err)
			}
			rng := rand.New(rand.NewPCG(seed, 4))
			if spec.Kind == consistency.KGroup {
				err = d.randomGroup(rng, 300)
			} else {
				err = d.random(rng, 300, seed%2 == 1)
			}
			if err != nil {
				t.Fatal(err)
			}
			records := d.trace.Records
			for mutation := range 3 {
				rs := slices.Clone(records)
				i := rng.IntN(len(rs))
				switch mutation {
				case 1:
					rs = slices.Delete(rs, i, i+1)
				case 2:
					rs = slices.Insert(rs, i, rs[i])
				}
				keep := consistency.NewRecorder(spec, ws, false)
				check := consistency.NewRecorder(spec, ws, false)
				check.CheckOnly()
				for _, r := range rs {
					if err := replay(keep, r); err != nil {
						t.Fatal(err)
					}
					if err := replay(check, r); err != nil {
						t.Fatal(err)
					}
				}
				tr := keep.Trace()
				if !reflect.DeepEqual(tr.Records, rs) {
					t.Fatalf("%v seed %d: the replayed trace differs from the driver's", spec, seed)
				}
				wantStats, wantErr := consistency.CheckStats(tr)
				gotStats, gotErr := check.Check()
				if !reflect.DeepEqual(gotStats, wantStats) || !reflect.DeepEqual(gotErr, wantErr) {
					t.Fatalf("%v seed %d mutation %d: CheckOnly says %v, %v; Check on the trace %v, %v", spec, seed, mutation, gotStats, gotErr, wantStats, wantErr)
				}
				if wantErr != nil {
					broken++
				}
				if n := check.Len(); n != len(rs) {
					t.Fatalf("Len = %d; want %d", n, len(rs))
				}
				if got := check.Trace(); len(got.Records) != 0 || got.Spec != spec {
					t.Fatalf("CheckOnly recorder's trace: %d records, spec %v", len(got.Records), got.Spec)
				}
			}
		}
	}
	if broken < 20 {
		t.Fatalf("only %d broken traces: the mutations should break most", broken)
	}
}

// A Checker's Finish can be called again; Add after it panics.
func TestCheckerFinish(t *testing.T) {
	k := consistency.NewChecker(consistency.MustParse("asp"), []consistency.WorkerID{0}, false)
	k.Add(consistency.Record{Kind: consistency.RecRead, Worker: 0})
	_, err1 := k.Finish()
	_, err2 := k.Finish()
	if err1 == nil || !reflect.DeepEqual(err1, err2) {
		t.Fatalf("Finish = %v, then %v; want the same error (no stop record)", err1, err2)
	}
	defer func() {
		if recover() == nil {
			t.Fatal("Add after Finish did not panic")
		}
	}()
	k.Add(consistency.Record{Kind: consistency.RecStop})
}

// randomGroup runs n random events of a KGroup model: announcements of
// random workers' next batches and commits of random computing workers;
// then stop.
func (d *driver) randomGroup(rng *rand.Rand, n int) error {
	if _, err := d.step(consistency.Event{Kind: consistency.EvStart}); err != nil {
		return err
	}
	members := d.m.Members()
	for range n {
		var err error
		if ws := d.computing(); len(ws) > 0 && rng.IntN(2) == 0 {
			_, err = d.commit(ws[rng.IntN(len(ws))])
		} else {
			_, err = d.announce(members[rng.IntN(len(members))])
		}
		if err != nil {
			return err
		}
	}
	_, err := d.step(consistency.Event{Kind: consistency.EvStop})
	return err
}

// withWorkerSide adds the workers' side to a coordinator trace as a
// correct driver records it: a send right before each commit, and the
// confirmation of a worker's latest commit right after its next read
// (or after the stop).
func withWorkerSide(tr *consistency.Trace) *consistency.Trace {
	out := &consistency.Trace{Spec: tr.Spec, Workers: tr.Workers, WorkerSide: true}
	pending := map[consistency.WorkerID]uint64{}
	for _, r := range tr.Records {
		if r.Kind == consistency.RecCommit {
			out.Add(consistency.Record{At: r.At, Kind: consistency.RecSend, Worker: r.Worker, Seq: r.Seq, Clock: r.Clock,
				Version: r.Version, Points: r.Points, Batch: r.Batch})
			pending[r.Worker] = r.Seq
		}
		out.Add(r)
		if seq := pending[r.Worker]; r.Kind == consistency.RecRead && seq > 0 {
			out.Add(consistency.Record{At: r.At, Kind: consistency.RecConfirm, Worker: r.Worker, Seq: seq})
			delete(pending, r.Worker)
		}
	}
	ws := make([]consistency.WorkerID, 0, len(pending))
	for w := range pending {
		ws = append(ws, w)
	}
	slices.Sort(ws)
	for _, w := range ws {
		out.Add(consistency.Record{Kind: consistency.RecConfirm, Worker: w, Seq: pending[w]})
	}
	return out
}

// TestPruningChecker: the checker drops commits once applied and sends
// once confirmed, and skips the scan of the members on an SSP read that
// every member has provably seen; its verdict, violations and stats
// included, is the verdict of the checker that keeps them all and scans,
// on random runs of every
// model with and without the workers' side, each also broken at random
// (a record dropped, repeated, moved, or its sequence number or version
// changed).
func TestPruningChecker(t *testing.T) {
	specs := []string{"bsp", "isp:0.5", "ssp:0", "ssp:1", "ssp:3", "asp", "quorum:0.5", "quorum:2", "fsp"}
	broken, total := 0, 0
	for _, s := range specs {
		for seed := range uint64(8) {
			spec := consistency.MustParse(s)
			ws := []consistency.WorkerID{0, 1, 2, 3}
			d, err := newDriver(spec, ws, 10)
			if err != nil {
				t.Fatal(err)
			}
			rng := rand.New(rand.NewPCG(seed, 9))
			if err := d.random(rng, 200, seed%2 == 1); err != nil {
				t.Fatal(err)
			}
			for _, tr := range []*consistency.Trace{&d.trace, withWorkerSide(&d.trace)} {
				for mutation := range 12 {
					m := &consistency.Trace{Spec: tr.Spec, Workers: tr.Workers, WorkerSide: tr.WorkerSide, Records: slices.Clone(tr.Records)}
					rs := m.Records
					i, j := rng.IntN(len(rs)), rng.IntN(len(rs))
					switch mutation % 6 {
					case 1:
						m.Records = slices.Delete(rs, i, i+1)
					case 2:
						m.Records = slices.Insert(rs, j, rs[i])
					case 3:
						r := rs[i]
						m.Records = slices.Insert(slices.Delete(rs, i, i+1), min(j, len(rs)-1), r)
					case 4:
						rs[i].Seq++
					case 5:
						rs[i].Version++
					}
					wantStats, wantErr := consistency.CheckStatsReference(m)
					if mutation == 0 {
						if wantErr != nil {
							t.Fatalf("%v seed %d worker side %v: %v", spec, seed, tr.WorkerSide, wantErr)
						}
						// Pruned: what is held is at most the deltas in
						// flight at the end, one per worker.
						k := consistency.NewChecker(m.Spec, m.Workers, m.WorkerSide)
						for _, r := range m.Records {
							k.Add(r)
						}
						if c, s := k.Held(); c > 8 || s > 8 {
							t.Fatalf("%v seed %d: the checker holds %d commits and %d sends after %d records", spec, seed, c, s, len(m.Records))
						}
					}
					gotStats, gotErr := consistency.CheckStats(m)
					if !reflect.DeepEqual(gotStats, wantStats) || !reflect.DeepEqual(gotErr, wantErr) {
						t.Fatalf("%v seed %d worker side %v mutation %d: pruning says\n%v\nkeeping all says\n%v", spec, seed, tr.WorkerSide, mutation, gotErr, wantErr)
					}
					total++
					if wantErr != nil {
						broken++
					}
				}
			}
		}
	}
	if broken < total/2 || broken == total {
		t.Fatalf("%d of %d traces broken: want most, not all", broken, total)
	}
}
