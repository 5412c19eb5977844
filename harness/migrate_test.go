package harness_test

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/syncmodels/syncmodels/algorithms"
	"github.com/syncmodels/syncmodels/consistency"
	"github.com/syncmodels/syncmodels/harness"
	"github.com/syncmodels/syncmodels/interval"
	"github.com/syncmodels/syncmodels/migrate"
)

// tally wraps an algorithm and counts, for every worker it creates, how
// often each of its points was processed: an independent ledger of the
// traversals.
type tally struct {
	algorithms.Algorithm
	workers []*tallyWorker
}

type tallyWorker struct {
	algorithms.Worker
	n []int32
}

func (t *tally) NewWorker(points []int) (algorithms.Worker, error) {
	w, err := t.Algorithm.NewWorker(points)
	if err != nil {
		return nil, err
	}
	tw := &tallyWorker{Worker: w, n: make([]int32, len(points))}
	t.workers = append(t.workers, tw)
	return tw, nil
}

func (w *tallyWorker) Process(lo, hi int, d *algorithms.Delta) {
	for i := lo; i < hi; i++ {
		w.n[i]++
	}
	w.Worker.Process(lo, hi, d)
}

// migKMeans: K-means (k = 4) on n 4-dimensional blobs.
func migKMeans(t testing.TB, n int) algorithms.Algorithm {
	t.Helper()
	return blobsKMeansOf(t, n, 4, 4)
}

// migExp: 16 workers, 4 of them Injected stragglers (τ = 32 ms after
// every 1,000 points: 4.2× slower than the others' 10 µs per point), FSP
// with a 4 ms barrier interval, 1.5 s, objective snapshots every 375 ms.
func migExp(alg algorithms.Algorithm, m *harness.Migration) harness.Experiment {
	return harness.Experiment{
		Algorithm: alg, Sync: consistency.MustParse("fsp:4ms"), Workers: 16, Seed: 5,
		Stragglers: harness.Stragglers{Kind: harness.Injected, Count: 4},
		Duration:   1500 * time.Millisecond, EvalEvery: 375 * time.Millisecond,
		Migrate: m,
	}
}

func runMig(t *testing.T, e harness.Experiment) *harness.Result {
	t.Helper()
	r, err := harness.Run(context.Background(), e)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// With migration the traversal passes end within Eq. 8's bound; without
// (the same run recording only) the fast workers make about 4.2× the
// stragglers' passes. Every traversal the placement counted was computed
// exactly once (the ledger of Process calls agrees point by point), and
// the point counts stay within a few passes of each other. 4,000 points
// per worker: a straggler's 250-point bursts between pauses are a small
// part of a pass (1/16), as in the paper's data sets, so that its passes
// can stay within ε of the others'. migExp's timing scaled by 4 (40 µs a
// point, τ = 32 ms after every 250 points: still 4.2× slower) keeps its
// passes and a quarter of its points to compute.
func TestMigrationBalancesPasses(t *testing.T) {
	const eps = 0.5
	alg := migKMeans(t, 64000)
	var finals [2]float64
	for k, record := range []bool{true, false} {
		led := &tally{Algorithm: alg}
		e := migExp(led, &harness.Migration{Planner: migrateConfig(eps), PointBytes: 64, RecordOnly: record})
		e.Cost.PointCost, e.Stragglers.Every = 40*time.Microsecond, 250
		r := runMig(t, e)
		m := r.Migration
		lo, hi := slices.Min(m.Passes), slices.Max(m.Passes)
		t.Logf("record only %v: passes %.2f..%.2f, max/min %.3f (Eq. 8 bound %.3f), imbalance %.3f; %d plans, %d windows, %d points with data, %d virtual (%d back home), %d bytes; final %.8g",
			record, lo, hi, m.Ratio(), m.RatioBound(), m.Imbalance, m.Plans, m.Windows, m.DataPoints, m.VirtualPoints, m.Reactivated, m.Bytes, r.Final)
		finals[k] = r.Final
		if record {
			if m.Ratio() <= m.RatioBound() || m.Windows != 0 || m.Bytes != 0 {
				t.Errorf("without migration: max/min %.3f within the bound %.3f, or %d windows sent", m.Ratio(), m.RatioBound(), m.Windows)
			}
		} else {
			if m.Ratio() > m.RatioBound() || hi-lo > m.SpreadBound() || m.Imbalance > eps {
				t.Errorf("with migration: max/min %.3f, spread %.3f, imbalance %.3f; Eq. 8 with ε = %v allows %.3f, %.3f, %v",
					m.Ratio(), hi-lo, m.Imbalance, eps, m.RatioBound(), m.SpreadBound(), eps)
			}
			if m.DataPoints == 0 || m.Bytes < m.DataPoints*64 {
				t.Errorf("with migration: %d points, %d bytes moved", m.DataPoints, m.Bytes)
			}
		}
		// The ledger: the first 16 workers made are the shards.
		var counted, computed int64
		var clo, chi int32 = 1 << 30, 0
		for h, cs := range m.Counts {
			for i, c := range cs {
				if n := led.workers[h].n[i]; n != c {
					t.Fatalf("point %d/%d: the placement counted %d traversals, Process ran %d times", h, i, c, n)
				}
				counted += int64(c)
				clo, chi = min(clo, c), max(chi, c)
			}
		}
		for _, rec := range r.Trace.Records {
			if rec.Kind == consistency.RecCommit {
				computed += int64(rec.Points)
			}
		}
		if computed > counted || counted-computed > 16*4000 {
			t.Errorf("%d traversals counted, %d points committed", counted, computed)
		}
		if !record && chi-clo > 3 {
			t.Errorf("with migration point counts range %d..%d", clo, chi)
		}
	}
	// Fig. 12's claim: training the stragglers' under-used data helps
	// (K-means: lower is better).
	if !(finals[1] < finals[0]) {
		t.Errorf("objective with migration %.8g, without %.8g", finals[1], finals[0])
	}
}

func migrateConfig(eps float64) (c migrate.Config) {
	c.Epsilon = eps
	return c
}

// RecordOnly runs exactly what a run without migration runs: the
// placement's round robin is the shard's. migExp's timing scaled by 4 as
// in TestMigrationBalancesPasses: 250 points per worker, several passes.
func TestMigrationRecordOnlyIsIdentity(t *testing.T) {
	alg := migKMeans(t, 4000)
	var traces [2]bytes.Buffer
	var res [2]*harness.Result
	for i, m := range []*harness.Migration{nil, {RecordOnly: true, PointBytes: 64}} {
		e := migExp(alg, m)
		e.Cost.PointCost, e.Stragglers.Every = 40*time.Microsecond, 250
		res[i] = runMig(t, e)
		res[i].Trace.WriteTo(&traces[i])
	}
	if !bytes.Equal(traces[0].Bytes(), traces[1].Bytes()) || res[0].Final != res[1].Final || res[0].BytesSent != res[1].BytesSent {
		t.Fatal("recording the passes changed the run")
	}
	for w, ws := range res[0].Workers {
		// The placement also counts the points of the batches the end
		// cut short, which commit nothing.
		if got := res[1].Migration.Passes[w]; got < ws.Passes || got > ws.Passes+1 {
			t.Errorf("worker %d: %v passes recorded, %v committed", w, got, ws.Passes)
		}
	}
}

// Migration under FSPV (checkpoints and rollbacks restore the placement)
// and semi-centralized timers is reproducible and passes the checker.
// migExp's timing scaled by 4 as in TestMigrationBalancesPasses: 1,000
// points per worker.
func TestMigrationFSPVDeterministic(t *testing.T) {
	alg := migKMeans(t, 16000)
	var traces [2]bytes.Buffer
	var res [2]*harness.Result
	for i := range 2 {
		lf, err := interval.NewLinearFit(interval.LinearFitConfig{Probe: 2 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		e := migExp(alg, &harness.Migration{PointBytes: 64})
		e.Sync = consistency.MustParse("fsp:2ms:semi")
		e.Tuner = lf
		e.Cost.PointCost, e.Stragglers.Every = 40*time.Microsecond, 250
		res[i] = runMig(t, e)
		res[i].Trace.WriteTo(&traces[i])
	}
	if !bytes.Equal(traces[0].Bytes(), traces[1].Bytes()) || res[0].Final != res[1].Final ||
		res[0].Migration.Bytes != res[1].Migration.Bytes || !slices.Equal(res[0].Migration.Passes, res[1].Migration.Passes) {
		t.Fatal("same seed, different runs")
	}
	rollbacks := 0
	for _, rec := range res[0].Trace.Records {
		if rec.Kind == consistency.RecRollback {
			rollbacks++
		}
	}
	m := res[0].Migration
	t.Logf("%d rollbacks; max/min %.3f (bound %.3f), %d windows, %d bytes", rollbacks, m.Ratio(), m.RatioBound(), m.Windows, m.Bytes)
	if rollbacks == 0 || m.Windows == 0 {
		t.Errorf("%d rollbacks, %d windows: the test does not exercise both", rollbacks, m.Windows)
	}
}

func TestMigrationRefusesBadConfig(t *testing.T) {
	alg := migKMeans(t, 16000)
	for name, e := range map[string]harness.Experiment{
		"real clock": func() harness.Experiment {
			e := migExp(alg, &harness.Migration{PointBytes: 64})
			e.Clock = harness.Real
			return e
		}(),
		"bsp": func() harness.Experiment {
			e := migExp(alg, &harness.Migration{PointBytes: 64})
			e.Sync = consistency.MustParse("bsp")
			return e
		}(),
		"epsilon": migExp(alg, &harness.Migration{PointBytes: 64, Planner: migrateConfig(2)}),
		"window":  migExp(alg, &harness.Migration{PointBytes: 64, Window: -1}),
		"no size": migExp(alg, &harness.Migration{}),
	} {
		if _, err := harness.Run(context.Background(), e); !errors.Is(err, harness.ErrConfig) {
			t.Errorf("%s: err = %v; want ErrConfig", name, err)
		}
	}
}
