package slsml

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/syncmodels/syncmodels/algorithms"
	"github.com/syncmodels/syncmodels/exchange"
	"github.com/syncmodels/syncmodels/latency"
)

// oracle replays a trace's merged iterations on one Server over all of θ:
// θ0 from the run's seed, then for each merge the full gradients of the
// set reducer 0 applied, summed in the set's order. It returns the models
// it computes, θ_1 … θ_T. The pipeline's reducers each apply a slice on
// their own Server; with a coordinate-wise optimizer (Adam, L2) the merged
// models must equal these bit for bit.
func oracle(t *testing.T, alg algorithms.Algorithm, seed uint64, tr *Trace) [][]float64 {
	t.Helper()
	theta0, err := alg.Init(rand.New(rand.NewPCG(seed, 0x736c736d6c)))
	if err != nil {
		t.Fatal(err)
	}
	srv, err := alg.NewServer(theta0)
	if err != nil {
		t.Fatal(err)
	}
	grads := map[Contribution]Record{}
	applies := map[int]Record{} // reducer 0's live apply per iteration
	var out [][]float64
	for _, r := range tr.Records {
		switch {
		case r.Kind == RecWrite:
			grads[r.C] = r
		case r.Kind == RecApply && r.Reducer == 0:
			applies[r.Iter] = r
		case r.Kind == RecRollback && r.Reducer == 0:
			delete(applies, r.Iter)
		case r.Kind == RecMerge:
			a, ok := applies[r.Iter]
			if !ok {
				t.Fatalf("merge of iteration %d without reducer 0's apply", r.Iter)
			}
			d := algorithms.NewDelta(alg.Layout())
			for _, x := range a.Set {
				g := grads[x]
				for i, v := range g.Vec {
					d.Vec[i] += v
				}
				d.Count += g.Count
			}
			if err := srv.Apply(d); err != nil {
				t.Fatal(err)
			}
			out = append(out, slices.Clone(srv.Params()))
		}
	}
	return out
}

// merges returns the models a trace's merges published.
func merges(tr *Trace) [][]float64 {
	var out [][]float64
	for _, r := range tr.Records {
		if r.Kind == RecMerge {
			out = append(out, r.Params)
		}
	}
	return out
}

// The reducers' slices put together are what one server computes from
// the same contributions, bit for bit — with the semaphore and folding,
// and with a barrier, where every iteration applies exactly its own W
// gradients (plain synchronous SGD).
func TestMatchesOneServer(t *testing.T) {
	alg := newLogreg(t, 400, 10)
	for _, tc := range []struct {
		name string
		cfg  Config
	}{
		{"quorum 0.75 with stragglers", smallConfig()},
		{"barrier", Config{Workers: 5, Reducers: 4, Iterations: 5, Batch: 16, Quorum: 1, Seed: 3}},
		{"one reducer", Config{Workers: 4, Reducers: 1, Iterations: 4, Batch: 10, Seed: 4, Timing: Timing{Store: tails()}}},
		{"a reducer per parameter", Config{Workers: 3, Reducers: 11, Iterations: 3, Batch: 10, Seed: 5}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, s := memStore(t)
			res := runOK(t, s, alg, tc.cfg)
			want, got := oracle(t, alg, tc.cfg.Seed, res.Trace), merges(res.Trace)
			if len(got) != tc.cfg.Iterations || len(want) != len(got) {
				t.Fatalf("%d merges, oracle %d; want %d", len(got), len(want), tc.cfg.Iterations)
			}
			for i := range got {
				if !equalBits(got[i], want[i]) {
					t.Fatalf("θ_%d = %v; one server computes %v", i+1, short(got[i]), short(want[i]))
				}
			}
			if !equalBits(res.Model, got[len(got)-1]) {
				t.Errorf("Result.Model %v is not the last merge %v", short(res.Model), short(got[len(got)-1]))
			}
			if tc.cfg.Quorum == 1 {
				for _, r := range res.Trace.Records {
					if r.Kind != RecApply {
						continue
					}
					if len(r.Set) != tc.cfg.Workers {
						t.Fatalf("barrier: %v; want all %d workers", r, tc.cfg.Workers)
					}
					for _, x := range r.Set {
						if x.Iter != r.Iter {
							t.Fatalf("barrier: %v folds %v", r, x)
						}
					}
				}
				if res.Counts.Folded != 0 || res.Counts.Ended != 0 {
					t.Errorf("barrier: counts %+v; want nothing folded or pending", res.Counts)
				}
			}
		})
	}
}

// The same seed gives the same run: model, timeline, counts, bill, trace.
func TestDeterministic(t *testing.T) {
	alg := newLogreg(t, 400, 10)
	cfg := smallConfig()
	_, s1 := memStore(t)
	_, s2 := memStore(t)
	a, b := runOK(t, s1, alg, cfg), runOK(t, s2, alg, cfg)
	if !reflect.DeepEqual(a, b) {
		t.Fatalf("two runs with seed %d differ:\n%+v\n%+v", cfg.Seed, a.Counts, b.Counts)
	}
	cfg.Seed++
	_, s3 := memStore(t)
	if c := runOK(t, s3, alg, cfg); c.Time == a.Time {
		t.Errorf("seeds %d and %d both took %v: the seed changes nothing", cfg.Seed-1, cfg.Seed, c.Time)
	}
}

// With stragglers, the semaphore folds late gradients into later
// iterations (Fold), drops them (Drop), or drops those beyond MaxLag.
func TestLatePolicies(t *testing.T) {
	alg := newLogreg(t, 400, 10)
	cfg := smallConfig()
	cfg.Iterations = 10
	for _, tc := range []struct {
		late   LatePolicy
		maxLag int
		check  func(c Counts) bool
		want   string
	}{
		{Fold, 0, func(c Counts) bool { return c.Folded > 0 && c.Late == 0 && c.Stale == 0 }, "folded > 0, none dropped"},
		{Drop, 0, func(c Counts) bool { return c.Folded == 0 && c.Late > 0 && c.Stale == 0 }, "late > 0, none folded"},
		{Fold, 1, func(c Counts) bool { return c.Folded > 0 && c.Stale > 0 && c.Late == 0 }, "folded > 0 and stale > 0"},
	} {
		t.Run(fmt.Sprintf("%v/maxlag=%d", tc.late, tc.maxLag), func(t *testing.T) {
			cfg := cfg
			cfg.Late, cfg.MaxLag = tc.late, tc.maxLag
			cfg.Timing.Store = latency.Dist{Median: 5 * time.Millisecond, Sigma: 0.5, P: 0.03, Scale: 3 * time.Second, Alpha: 1.2, Max: 60 * time.Second}
			_, s := memStore(t)
			res := runOK(t, s, alg, cfg)
			c := res.Counts
			if !tc.check(c) {
				t.Fatalf("counts %+v; want %s", c, tc.want)
			}
			// Every gradient written is accounted for once.
			if got := c.Applied + c.Late + c.Stale + c.Lost + c.Ended; got != c.Written {
				t.Errorf("applied %d + dropped %d = %d; want written %d", c.Applied, got-c.Applied, got, c.Written)
			}
		})
	}
}

// The request meter counts exactly the pipeline's requests (slsML Fig. 2):
// per iteration a Work note per worker, a model read, R partitions and a
// WorkDone note per worker, an arrival per worker, a launch flag and R
// Reduce notes; per reducer a wait, its previous slice (after the first
// iteration), its window (one read here), a partition per applied
// gradient, its slice and an arrival; the merger's wait, R slices and
// the model.
func TestRequests(t *testing.T) {
	alg := newLogreg(t, 400, 10)
	cfg := smallConfig()
	_, s := memStore(t)
	res := runOK(t, s, alg, cfg)
	W, R, T := int64(cfg.Workers), int64(cfg.Reducers), int64(cfg.Iterations)
	c := res.Counts
	written, applied := int64(c.Written), int64(c.Applied)
	want := map[string]int64{
		svcPut:     1 + written*R + T*R + T,
		svcGet:     written + (T-1)*R + applied*R + T*R,
		svcPublish: T*W + written + T*R,
		svcWrite:   written + T + T*R,
		svcRead:    T*R + T*R + T,
		svcInvoke:  1 + T + T*W + written + T*R + T,
	}
	for _, ln := range res.Bill.Requests.Lines {
		if ln.Requests != want[ln.Name] {
			t.Errorf("%s: %d requests; want %d", ln.Name, ln.Requests, want[ln.Name])
		}
		if ln.Cost != ln.Price.For(ln.Requests) {
			t.Errorf("%s: $%v for %d requests at %+v", ln.Name, ln.Cost, ln.Requests, ln.Price)
		}
	}
	if int64(c.Invocations) != want[svcInvoke] {
		t.Errorf("Counts.Invocations = %d; want %d", c.Invocations, want[svcInvoke])
	}
	if got := res.Bill.Functions.Total + res.Bill.Requests.Total; got != res.Bill.Total {
		t.Errorf("Bill.Total = %v; want functions + requests = %v", res.Bill.Total, got)
	}
	// Per-100-ms billing of each invocation at a memory-proportional price.
	for _, ln := range res.Bill.Functions.Lines {
		if ln.Billed%(100*time.Millisecond) != 0 || ln.Billed < ln.Runtime {
			t.Errorf("%s: ran %v, billed %v; want rounded up to 100 ms", ln.Resource.Name, ln.Runtime, ln.Billed)
		}
	}
}

func TestConfigErrors(t *testing.T) {
	alg := newLogreg(t, 40, 4)
	ok := Config{Workers: 2, Iterations: 1, Batch: 1}
	for _, tc := range []struct {
		name string
		edit func(*Config)
		want string
	}{
		{"no workers", func(c *Config) { c.Workers = 0 }, "Workers = 0"},
		{"no iterations", func(c *Config) { c.Iterations = 0 }, "Iterations = 0"},
		{"no batch", func(c *Config) { c.Batch = 0 }, "Batch = 0"},
		{"quorum > 1", func(c *Config) { c.Quorum = 1.5 }, "Quorum = 1.5"},
		{"negative quorum", func(c *Config) { c.Quorum = -0.1 }, "Quorum = -0.1"},
		{"policy", func(c *Config) { c.Late = 7 }, "Late = LatePolicy(7)"},
		{"maxlag with drop", func(c *Config) { c.Late, c.MaxLag = Drop, 2 }, "MaxLag = 2 needs Late = Fold"},
		{"too many reducers", func(c *Config) { c.Reducers = 6 }, "Reducers = 6, more than θ's 5"},
		{"too many workers", func(c *Config) { c.Workers = 41 }, "Workers = 41, more than"},
		{"bandwidth", func(c *Config) { c.Timing.Bandwidth = -1 }, "Timing.Bandwidth = -1"},
		{"cold start", func(c *Config) { c.Timing.ColdStart = -time.Second }, "Timing.ColdStart = -1s"},
		{"memory", func(c *Config) { c.Memory.Worker = -5 }, "Memory.Worker = -5"},
		{"latency", func(c *Config) { c.Timing.Store = latency.Dist{Median: time.Millisecond, P: 0.5} }, "Timing.Store"},
		{"prices", func(c *Config) { c.Prices.GBSecond = -1 }, "Prices"},
	} {
		cfg := ok
		tc.edit(&cfg)
		_, s := memStore(t)
		_, err := Run(context.Background(), s, alg, cfg)
		if !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: Run = %v; want ErrConfig naming %q", tc.name, err, tc.want)
		}
		if v, _ := s.Get(context.Background(), modelKey(0)); v != nil {
			t.Errorf("%s: refused run wrote θ0", tc.name)
		}
	}
	_, s := memStore(t)
	if _, err := Run(context.Background(), s, nil, ok); !errors.Is(err, ErrConfig) {
		t.Errorf("nil algorithm: %v; want ErrConfig", err)
	}
	if _, err := Run(context.Background(), nil, alg, ok); !errors.Is(err, ErrConfig) {
		t.Errorf("nil store: %v; want ErrConfig", err)
	}
}

// corruptStore returns a foreign value for one key.
type corruptStore struct {
	exchange.Store
	key string
}

func (c corruptStore) Get(ctx context.Context, key string) ([]byte, error) {
	v, err := c.Store.Get(ctx, key)
	if key == c.key && err == nil {
		v = slices.Clone(v)
		v[len(v)/2] ^= 0x40
	}
	return v, err
}

// A corrupt stored value stops the run with ErrMalformed naming the key.
func TestMalformed(t *testing.T) {
	alg := newLogreg(t, 400, 10)
	for _, key := range []string{"model/1", "grad/0/3/1", "slice/1/2"} {
		_, s := memStore(t)
		cfg := smallConfig()
		cfg.Quorum = 1
		_, err := Run(context.Background(), corruptStore{s, key}, alg, cfg)
		if !errors.Is(err, ErrMalformed) || !strings.Contains(err.Error(), fmt.Sprintf("%q", key)) {
			t.Errorf("corrupt %s: Run = %v; want ErrMalformed naming it", key, err)
		}
	}
}

func TestContext(t *testing.T) {
	alg := newLogreg(t, 400, 10)
	_, s := memStore(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Run(ctx, s, alg, smallConfig()); !errors.Is(err, context.Canceled) {
		t.Errorf("Run with a cancelled context = %v; want context.Canceled", err)
	}
}

// Run leaves no model, partition or slice behind.
func TestCleanup(t *testing.T) {
	alg := newLogreg(t, 400, 10)
	_, s := memStore(t)
	cfg := smallConfig()
	runOK(t, s, alg, cfg)
	for _, k := range []string{modelKey(0), modelKey(cfg.Iterations), gradKey(Contribution{Iter: 1, Worker: 2}, 1), sliceKey(3, 0)} {
		if _, err := s.Get(context.Background(), k); !errors.Is(err, exchange.ErrNotFound) {
			t.Errorf("after the run, Get(%q) = %v; want ErrNotFound", k, err)
		}
	}
}
