package p2p

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/syncmodels/syncmodels/algorithms"
	"github.com/syncmodels/syncmodels/dataset"
	"github.com/syncmodels/syncmodels/exchange"
	"github.com/syncmodels/syncmodels/exchange/redisx"
)

// Opener opens peer i's client of the store the peers exchange through:
// every client must be of the same namespace. Run closes them.
type Opener func(ctx context.Context, peer int) (exchange.Store, error)

// MemoryOpener opens clients of namespace ns of an in-process store.
func MemoryOpener(m *exchange.Memory, ns string) Opener {
	return func(context.Context, int) (exchange.Store, error) { return m.Open(ns, exchange.Limits{}) }
}

// RedisOpener opens clients of namespace ns of the Redis server at url
// (redis://host:port), with cfg's other settings.
func RedisOpener(url, ns string, cfg redisx.Config) Opener {
	cfg.Namespace = ns
	return func(ctx context.Context, _ int) (exchange.Store, error) { return redisx.Open(ctx, url, cfg) }
}

// OpenExchange returns an Opener for an -exchange flag's value: "" or
// "memory" for a new in-process store, "redis://HOST:PORT" for a Redis
// server, in namespace ns. It returns the in-process store too (nil for
// Redis), whose Restart a Fault may call.
func OpenExchange(spec, ns string) (Opener, *exchange.Memory, error) {
	switch {
	case spec == "" || spec == "memory":
		m := exchange.NewMemory()
		return MemoryOpener(m, ns), m, nil
	case strings.HasPrefix(spec, "redis://") || strings.HasPrefix(spec, "rediss://"):
		return RedisOpener(spec, ns, redisx.Config{}), nil, nil
	}
	return nil, nil, fmt.Errorf("p2p: -exchange %q: want memory or redis://HOST:PORT: %w", spec, ErrConfig)
}

// Result is what a run measured.
type Result struct {
	Mode    Mode
	Barrier Barrier
	Peers   int
	Rounds  int
	// Quantized reports QSGD compression.
	Quantized bool
	// MemoryMB is the functions' memory with Serverless, else 0.
	MemoryMB int
	// Trace records what every peer did; Check verifies it.
	Trace *Trace
	// Time is when the last peer finished, in virtual time.
	Time time.Duration
	// Epochs is how many passes over its shard each peer made (the
	// smallest shard's count).
	Epochs float64
	// Peer is what each peer did and spent.
	Peer []PeerStats
	// Curve is the objective (and accuracy) after each evaluated round,
	// over the peers' replicas.
	Curve []Point
}

// PeerStats is one peer's part of a run.
type PeerStats struct {
	Peer int
	// Finished is when it finished its last round.
	Finished time.Duration
	// Compute is the time it spent computing gradients (on its instance
	// or waiting for its functions), Comm the time of its store requests
	// (round trips, transfers, latency), Wait the time it was blocked at
	// barriers waiting for other peers.
	Compute, Comm, Wait time.Duration
	// Points counts the data points it computed gradients over.
	Points int64
	// Invocations are its function invocations (Serverless), each on a
	// slot: invocations of one slot do not overlap.
	Invocations []Invocation
	// Exchange is its traffic: requests, bytes written and read.
	Exchange exchange.Stats
	// Losses counts the store losses it recovered from.
	Losses int
	// Retries counts the calls it repeated while the store was
	// unreachable: real time, which a run on another machine need not
	// repeat; not part of the deterministic result.
	Retries int
}

// Invocation is one function invocation of a peer.
type Invocation struct {
	Slot        int
	Start, Stop time.Duration
}

// Point is the state of the replicas after one evaluated round.
type Point struct {
	Round int
	// Time is when the last peer finished the round.
	Time time.Duration
	// Objective is the mean of the peers' replicas' objectives; Min and
	// Max the best and worst (by value).
	Objective, Min, Max float64
	// Accuracy is the mean of Config.Accuracy over the replicas, NaN
	// without one.
	Accuracy float64
}

// evalPoint is one peer's evaluation.
type evalPoint struct {
	round               int
	at                  time.Duration
	objective, accuracy float64
}

// runner holds a run's shared state.
type runner struct {
	cfg    Config
	theta0 []float64
	trace  *Trace
	eval   algorithms.Worker
	evals  [][]evalPoint
}

// record appends to the trace. Only the running peer calls it (the
// scheduler runs one at a time).
func (r *runner) record(rec Record) { r.trace.Add(rec) }

// thetaStream is the PCG stream θ0 is drawn from: Seed, thetaStream.
const thetaStream = 0x7e7a

// Run trains cfg.Alg peer to peer through the store open gives, in
// virtual time, and returns what it measured. It fails on an invalid
// Config, a store it cannot open, a store error it cannot recover from,
// or a deadlock; a run that breaks its mode's guarantee succeeds, and
// Check(res.Trace) says so.
func Run(ctx context.Context, cfg Config, open Opener) (*Result, error) {
	cfg, err := cfg.validate()
	if err != nil {
		return nil, err
	}
	if open == nil {
		return nil, fmt.Errorf("p2p: Run: nil Opener: %w", ErrConfig)
	}
	alg := cfg.Alg
	theta0, err := alg.Init(rand.New(rand.NewPCG(cfg.Seed, thetaStream)))
	if err != nil {
		return nil, fmt.Errorf("p2p: init: %w", err)
	}
	var perm *rand.Rand
	if cfg.Shuffle {
		perm = rand.New(rand.NewPCG(cfg.Seed, 0x5a4d))
	}
	shards, err := dataset.Shard(alg.NumPoints(), cfg.Peers, perm)
	if err != nil {
		return nil, fmt.Errorf("p2p: %w: %w", err, ErrConfig)
	}
	all := make([]int, alg.NumPoints())
	for i := range all {
		all[i] = i
	}
	eval, err := alg.NewWorker(all)
	if err != nil {
		return nil, fmt.Errorf("p2p: evaluation worker: %w", err)
	}
	r := &runner{
		cfg: cfg, theta0: theta0, eval: eval, evals: make([][]evalPoint, cfg.Peers),
		trace: &Trace{Mode: cfg.Mode, Barrier: cfg.Barrier, Peers: cfg.Peers, Rounds: cfg.Rounds},
	}
	s := newSim(ctx, cfg)
	procs := s.spawn(cfg.Peers)
	peers := make([]*peer, cfg.Peers)
	var stores []exchange.Store
	defer func() {
		for _, st := range stores {
			st.Close()
		}
	}()
	for i := range peers {
		st, err := open(ctx, i)
		if err != nil {
			return nil, fmt.Errorf("p2p: open the store for peer %d: %w", i, err)
		}
		stores = append(stores, st)
		ss := &simStore{p: procs[i], s: st}
		if peers[i], err = newPeer(r, i, shards[i], ss); err != nil {
			return nil, err
		}
	}
	bodies := make([]func(*proc) error, len(peers))
	for i, p := range peers {
		bodies[i] = func(pr *proc) error {
			p.proc = pr
			return p.run(ctx)
		}
	}
	if err := s.run(bodies); err != nil {
		return nil, err
	}
	res := &Result{
		Mode: cfg.Mode, Barrier: cfg.Barrier, Peers: cfg.Peers, Rounds: cfg.Rounds,
		Quantized: cfg.QSGD != nil, Trace: r.trace,
	}
	if sv := cfg.Cost.Serverless; sv != nil {
		res.MemoryMB = sv.MemoryMB
		if res.MemoryMB == 0 {
			res.MemoryMB = 1024
		}
	}
	minShard := math.MaxInt
	for i, p := range peers {
		st := p.stats
		pr := s.procs[i]
		st.Compute, st.Comm, st.Wait = pr.compute, pr.comm, pr.wait
		res.Peer = append(res.Peer, st)
		res.Time = max(res.Time, st.Finished)
		minShard = min(minShard, p.n)
	}
	k := cfg.Batch
	if k == 0 || k > minShard {
		k = minShard
	}
	res.Epochs = float64(cfg.Rounds) * float64(k) / float64(minShard)
	res.Curve = curve(r.evals)
	return res, nil
}

// curve averages the peers' evaluations round by round.
func curve(evals [][]evalPoint) []Point {
	if len(evals) == 0 {
		return nil
	}
	var out []Point
	for k, e := range evals[0] {
		pt := Point{Round: e.round, Min: math.Inf(1), Max: math.Inf(-1)}
		var acc float64
		for _, pe := range evals {
			x := pe[k]
			pt.Time = max(pt.Time, x.at)
			pt.Objective += x.objective
			pt.Min, pt.Max = min(pt.Min, x.objective), max(pt.Max, x.objective)
			acc += x.accuracy
		}
		n := float64(len(evals))
		pt.Objective /= n
		pt.Accuracy = acc / n
		out = append(out, pt)
	}
	return out
}

// Totals returns the bytes the peers wrote to and read from the store,
// and their requests.
func (r *Result) Totals() (written, read, requests int64) {
	for _, p := range r.Peer {
		written += p.Exchange.BytesWritten
		read += p.Exchange.BytesRead
		requests += p.Exchange.Requests
	}
	return written, read, requests
}

// PerEpoch returns the mean peer's computation, communication and
// barrier-wait time per epoch (the paper's Fig. 4 splits an epoch into
// computation and communication; waiting is communication there).
func (r *Result) PerEpoch() (compute, comm, wait time.Duration) {
	if len(r.Peer) == 0 || r.Epochs == 0 {
		return 0, 0, 0
	}
	var c, m, w time.Duration
	for _, p := range r.Peer {
		c += p.Compute
		m += p.Comm
		w += p.Wait
	}
	div := float64(len(r.Peer)) * r.Epochs
	f := func(d time.Duration) time.Duration { return time.Duration(float64(d) / div) }
	return f(c), f(m), f(w)
}

// Final returns the last point of the curve, or an error if the run
// evaluated nothing.
func (r *Result) Final() (Point, error) {
	if len(r.Curve) == 0 {
		return Point{}, errors.New("p2p: no evaluation")
	}
	return r.Curve[len(r.Curve)-1], nil
}
