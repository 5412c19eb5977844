package p2p

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"time"

	"github.com/syncmodels/syncmodels/algorithms"
	"github.com/syncmodels/syncmodels/exchange"
	"github.com/syncmodels/syncmodels/filter"
	"github.com/syncmodels/syncmodels/transport"
)

// peer is one peer's protocol state: Algorithm 1 for rank id.
type peer struct {
	id     int
	cfg    *Config
	r      *runner
	x      *exchange.Peer
	server algorithms.Server
	worker algorithms.Worker
	n      int // shard size
	cursor int
	q      *filter.QSGDFilter
	proc   *proc
	stats  PeerStats
	round  int
}

// qsgdStream is the PCG stream of peer i's QSGD draws: Seed, qsgdStream+i.
const qsgdStream = 0x95d0

func newPeer(r *runner, id int, shard []int, s exchange.Store) (*peer, error) {
	cfg := &r.cfg
	w, err := cfg.Alg.NewWorker(shard)
	if err != nil {
		return nil, fmt.Errorf("p2p: peer %d: worker: %w", id, err)
	}
	srv, err := cfg.Alg.NewServer(r.theta0)
	if err != nil {
		return nil, fmt.Errorf("p2p: peer %d: server: %w", id, err)
	}
	x, err := exchange.New(s, exchange.Config{
		Job: cfg.Job, ID: transport.NodeID(id), Layout: cfg.Alg.Layout(), Inline: cfg.Inline,
	})
	if err != nil {
		return nil, fmt.Errorf("p2p: peer %d: %w", id, err)
	}
	p := &peer{id: id, cfg: cfg, r: r, x: x, server: srv, worker: w, n: len(shard)}
	p.stats.Peer = id
	if cfg.QSGD != nil {
		p.q, err = filter.NewQSGDFilter(filter.QSGDFilterConfig{
			Layout: cfg.Alg.Layout(), QSGD: *cfg.QSGD,
			Rand: rand.New(rand.NewPCG(cfg.Seed, qsgdStream+uint64(id))),
		})
		if err != nil {
			return nil, fmt.Errorf("p2p: peer %d: %w", id, err)
		}
	}
	return p, nil
}

// run is the peer's protocol: Rounds rounds of compute, publish, (wait,)
// read, average, apply (, wait).
func (p *peer) run(ctx context.Context) error {
	for r := 1; r <= p.cfg.Rounds; r++ {
		p.round = r
		if err := p.step(ctx, r); err != nil {
			return fmt.Errorf("round %d: %w", r, err)
		}
		p.evaluate(r)
	}
	p.stats.Finished = p.proc.Now()
	p.stats.Exchange = p.x.Stats()
	p.r.record(Record{At: p.proc.Now(), Kind: Done, Peer: p.id, Round: p.cfg.Rounds})
	return nil
}

// step runs round r.
func (p *peer) step(ctx context.Context, r int) error {
	own, packed, err := p.compute(r)
	if err != nil {
		return err
	}
	if err := p.publish(ctx, own, packed); err != nil {
		return err
	}
	sync := p.cfg.Mode == Sync
	got := []*transport.Message{own}
	for {
		if sync {
			if err := p.barrier(ctx, "pub/"+strconv.Itoa(r)); err != nil {
				return err
			}
		}
		err := p.readAll(ctx, &got)
		if err == nil {
			break
		}
		if !lost(err) {
			return err
		}
		if err := p.recover(ctx); err != nil {
			return err
		}
	}
	losses := p.stats.Losses
	if err := p.average(got); err != nil {
		return err
	}
	if sync && p.cfg.Barrier == TwoBarriers {
		if err := p.barrier(ctx, "read/"+strconv.Itoa(r)); err != nil {
			return err
		}
	}
	if p.cfg.mutation == mutRereadAfterLoss && p.stats.Losses > losses {
		return p.average(p.rereadLatest(ctx, []*transport.Message{own}))
	}
	return nil
}

// compute computes the peer's gradient of round r on its replica over
// its next Batch points, spends its time by the cost model, and returns
// the update to publish: as the others will receive it (QSGD's decoded
// values) and, with QSGD, its packed encoding.
func (p *peer) compute(r int) (*transport.Message, []byte, error) {
	l := p.cfg.Alg.Layout()
	k := p.cfg.Batch
	if k == 0 || k > p.n {
		k = p.n
	}
	d := algorithms.NewDelta(l)
	p.worker.SetParams(p.server.Params())
	for left := k; left > 0; {
		hi := min(p.cursor+left, p.n)
		p.worker.Process(p.cursor, hi, d)
		left -= hi - p.cursor
		p.cursor = hi % p.n
	}
	p.stats.Points += int64(k)
	t, calls := p.cfg.Cost.ComputeTime(k)
	t = scale(t, p.cfg.Cost.slow(p.id).Compute)
	p.invocations(calls)
	if err := p.proc.Compute(t); err != nil {
		return nil, nil, err
	}
	m := &transport.Message{Kind: transport.Commit, From: transport.NodeID(p.id), Job: p.cfg.Job, Seq: uint64(r), Clock: uint64(r), Version: uint64(r - 1), Points: int64(k), Delta: d}
	if p.q == nil {
		return m, nil, nil
	}
	sent, err := p.q.Step(d, nil)
	if err != nil {
		return nil, nil, fmt.Errorf("quantise: %w", err)
	}
	m.Delta = sent.Clone()
	return m, p.q.AppendMessage(nil), nil
}

// invocations records the function invocations of a gradient starting
// now: wave by wave, Concurrency at a time, each on a slot of its own.
func (p *peer) invocations(calls []time.Duration) {
	s := p.cfg.Cost.Serverless
	if s == nil || len(calls) == 0 {
		return
	}
	conc := s.Concurrency
	if conc <= 0 {
		conc = len(calls)
	}
	slow := p.cfg.Cost.slow(p.id).Compute
	start := p.proc.Now()
	for lo := 0; lo < len(calls); lo += conc {
		for k := lo; k < min(lo+conc, len(calls)); k++ {
			p.stats.Invocations = append(p.stats.Invocations, Invocation{Slot: k - lo, Start: start, Stop: start + scale(calls[k], slow)})
		}
		start += scale(calls[lo], slow)
	}
}

// publish puts the update in the peer's slot, recovering from losses.
func (p *peer) publish(ctx context.Context, m *transport.Message, packed []byte) error {
	for {
		err := p.retry(func() error {
			var err error
			if packed != nil {
				_, err = p.x.PublishPacked(ctx, m, packed)
			} else {
				_, err = p.x.Publish(ctx, m)
			}
			return err
		})
		if err == nil {
			p.r.record(Record{At: p.proc.Now(), Kind: Publish, Peer: p.id, Round: p.round, Update: updateOf(m)})
			return nil
		}
		if !lost(err) {
			return err
		}
		if err := p.recover(ctx); err != nil {
			return err
		}
	}
}

// barrier arrives at the counting set name and waits until every peer
// has: one set per round and phase, so a count never mixes rounds (the
// paper's single synchronisation queue does). After a loss the peer
// recovers — which re-makes its remembered arrivals — and waits again.
func (p *peer) barrier(ctx context.Context, name string) error {
	for {
		err := p.retry(func() error {
			if _, err := p.x.Arrive(ctx, name); err != nil {
				return err
			}
			_, err := p.x.WaitCount(ctx, name, p.cfg.Peers)
			return err
		})
		if err == nil || !lost(err) {
			return err
		}
		if err := p.recover(ctx); err != nil {
			return err
		}
	}
}

// readAll reads every other peer's slot it has no update of yet this
// round, in peer order, and adds what is fresh to got.
func (p *peer) readAll(ctx context.Context, got *[]*transport.Message) error {
	for j := range p.cfg.Peers {
		if j == p.id || slices.ContainsFunc(*got, func(m *transport.Message) bool { return int(m.From) == j }) {
			continue
		}
		var m *transport.Message
		err := p.retry(func() error {
			var err error
			m, err = p.x.Fresh(ctx, transport.NodeID(j))
			return err
		})
		if err != nil {
			return err
		}
		if m != nil {
			p.r.record(Record{At: p.proc.Now(), Kind: Read, Peer: p.id, Round: p.round, Update: updateOf(m)})
			*got = append(*got, m)
		}
	}
	return nil
}

// rereadLatest is the mutation mutRereadAfterLoss: after a loss it reads
// every other peer's latest again, without dedup, and keeps it beside
// what it had.
func (p *peer) rereadLatest(ctx context.Context, got []*transport.Message) []*transport.Message {
	for j := range p.cfg.Peers {
		if j == p.id {
			continue
		}
		m, err := p.x.Latest(ctx, transport.NodeID(j))
		if err != nil {
			continue
		}
		p.r.record(Record{At: p.proc.Now(), Kind: Read, Peer: p.id, Round: p.round, Update: updateOf(m)})
		got = append(got, m)
	}
	return got
}

// average merges the updates in peer order — so that every peer computes
// the same sum, bit for bit — and applies the mean gradient (the merged
// delta's sum over its count: each peer's average over its batches,
// averaged over the peers, for equal shares) to the replica.
func (p *peer) average(got []*transport.Message) error {
	slices.SortStableFunc(got, func(a, b *transport.Message) int {
		if a.From != b.From {
			return int(a.From) - int(b.From)
		}
		return int(a.Seq) - int(b.Seq)
	})
	merged := algorithms.NewDelta(p.cfg.Alg.Layout())
	us := make([]Update, len(got))
	for i, m := range got {
		if err := merged.Merge(m.Delta); err != nil {
			return fmt.Errorf("average %v: %w", updateOf(m), err)
		}
		us[i] = updateOf(m)
	}
	if err := p.server.Apply(merged); err != nil {
		return fmt.Errorf("apply the average of %v: %w", us, err)
	}
	p.r.record(Record{At: p.proc.Now(), Kind: Average, Peer: p.id, Round: p.round, Updates: us, Digest: digest(p.server.Params())})
	return nil
}

// recover records a loss and recovers from it.
func (p *peer) recover(ctx context.Context) error {
	p.stats.Losses++
	p.r.record(Record{At: p.proc.Now(), Kind: Loss, Peer: p.id, Round: p.round})
	for {
		err := p.retry(func() error { return p.x.Recover(ctx) })
		if err == nil {
			p.r.record(Record{At: p.proc.Now(), Kind: Recover, Peer: p.id, Round: p.round})
			return nil
		}
		if !lost(err) { // another loss while recovering: recover again
			return fmt.Errorf("recover: %w", err)
		}
	}
}

// retry runs f again while the store is unreachable, up to
// Config.Unavailable of real time. The retries cost no virtual time, so
// an outage does not change the schedule.
func (p *peer) retry(f func() error) error {
	var deadline time.Time
	for {
		err := f()
		if !errors.Is(err, exchange.ErrUnavailable) || errors.Is(err, errAborted) {
			return err
		}
		if deadline.IsZero() {
			deadline = time.Now().Add(p.cfg.Unavailable)
		} else if time.Now().After(deadline) {
			return fmt.Errorf("store unreachable for %v: %w", p.cfg.Unavailable, err)
		}
		p.stats.Retries++
		time.Sleep(5 * time.Millisecond)
	}
}

// evaluate scores the replica after round r, if it is an evaluation
// round.
func (p *peer) evaluate(r int) {
	if r%p.cfg.Eval != 0 && r != p.cfg.Rounds {
		return
	}
	theta := p.server.Params()
	p.r.eval.SetParams(theta)
	e := evalPoint{round: r, at: p.proc.Now(), objective: p.cfg.Alg.Objective(theta, p.r.eval.Evaluate()), accuracy: math.NaN()}
	if p.cfg.Accuracy != nil {
		e.accuracy = p.cfg.Accuracy(theta)
	}
	p.r.evals[p.id] = append(p.r.evals[p.id], e)
}

// lost reports a loss of the store's data.
func lost(err error) bool { return errors.Is(err, exchange.ErrLost) }

// updateOf names update m.
func updateOf(m *transport.Message) Update {
	return Update{Peer: int(m.From), Seq: m.Seq, Round: int(m.Clock)}
}

// digest hashes θ (FNV-1a over the IEEE-754 bits).
func digest(theta []float64) uint64 {
	h := fnv.New64a()
	var b [8]byte
	for _, v := range theta {
		u := math.Float64bits(v)
		for i := range b {
			b[i] = byte(u >> (8 * i))
		}
		h.Write(b[:])
	}
	return h.Sum64()
}
