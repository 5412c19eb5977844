package exchangetest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/syncmodels/syncmodels/exchange"
	"github.com/syncmodels/syncmodels/transport"
)

// midRun is one peer's account of a run.
type midRun struct {
	applied []exchange.UpdateID         // the updates it applied, in order
	down    int                         // calls that found the store unavailable
	losses  []*exchange.LostError       // the losses it was told of
	final   map[transport.NodeID]uint64 // each other peer's latest Seq at the end
	err     error
}

// restartMidRun runs synchronous peer-to-peer rounds (the P2P paper's
// Algorithm 1 with a correct barrier): each peer publishes its update of
// round r, arrives at barrier round/r, waits for every peer, and applies
// the others' fresh updates. Peer 0 stops after publishing round 6 until
// the store has been restarted, so the loss lands in the middle of the
// run, with the other peers blocked at a barrier. Every peer must be told
// of the loss, with what it lost named; recover; finish every round; and
// never apply an update twice.
func (s suite) restartMidRun(t *testing.T) { RestartMidRun(t, s.newBackend(t)) }

// RestartMidRun is the suite's RestartMidRun test on backend b, for
// implementations that restart in more than one way (killed and restarted
// at once, or down for a while first).
func RestartMidRun(t *testing.T, b Backend) {
	const peers, rounds, restartAt = 3, 12, 6
	ctx, cancel := context.WithTimeout(t.Context(), 4*wake)
	defer cancel()
	ps := make([]*exchange.Peer, peers)
	for i := range ps {
		cfg := exchange.Config{}
		if i == 0 {
			cfg.Inline = -1 // peer 0 publishes through blobs
		}
		ps[i] = peer(t, b, transport.NodeID(i), cfg, exchange.Limits{})
	}
	old := ps[0].Store().Epoch()
	restart, restarted := make(chan struct{}), make(chan struct{})
	runs := make([]midRun, peers)
	var wg sync.WaitGroup
	for i, p := range ps {
		wg.Go(func() {
			pause := func(r uint64) {
				if i == 0 && r == restartAt {
					close(restart)
					select {
					case <-restarted:
					case <-ctx.Done():
					}
				}
			}
			runs[i] = runPeer(ctx, p, peers, rounds, pause)
		})
	}
	select {
	case <-restart:
		b.Restart(t)
	case <-ctx.Done():
	}
	close(restarted)
	wg.Wait()

	var epochs []string
	duplicates := 0
	for i, run := range runs {
		me := transport.NodeID(i)
		if run.err != nil {
			t.Errorf("%v: %v", me, run.err)
			continue
		}
		// Nothing applied twice, nothing out of order, each peer's
		// updates in increasing Seq.
		last := map[transport.NodeID]uint64{}
		for _, id := range run.applied {
			if id.Seq <= last[id.Peer] {
				t.Errorf("%v applied %v after seq %d of that peer: applied twice or out of order", me, id, last[id.Peer])
			}
			last[id.Peer] = id.Seq
		}
		// Told of the loss, with its slot named.
		if len(run.losses) == 0 {
			t.Errorf("%v was never told of the loss", me)
		}
		for _, le := range run.losses {
			if le.Cause.Was != old || !slices.Contains(le.Keys, exchange.SlotKey(me)) || len(le.Updates) == 0 ||
				le.Updates[0].Peer != me || le.Updates[0].Seq < restartAt-1 || !strings.Contains(le.Error(), exchange.SlotKey(me)) {
				t.Errorf("%v's LostError = %v; want epoch %s lost, its slot and its latest update (seq ≥ %d) named", me, le, old, restartAt-1)
			}
		}
		for j := range peers {
			if j != i && run.final[transport.NodeID(j)] != rounds {
				t.Errorf("%v sees %v's latest seq %d at the end; want %d", me, transport.NodeID(j), run.final[transport.NodeID(j)], rounds)
			}
		}
		epochs = append(epochs, ps[i].Store().Epoch())
		duplicates += int(ps[i].Stats().Duplicates)
		t.Logf("%v: applied %d updates, %d calls found the store down, told of %d loss(es): %v", me, len(run.applied), run.down, len(run.losses), run.losses)
	}
	if len(epochs) == peers && (epochs[0] == old || len(slices.Compact(slices.Clone(epochs))) != 1) {
		t.Errorf("epochs at the end %v (was %s); want one new epoch", epochs, old)
	}
	t.Logf("epoch %s → %s; %d updates read again and not applied", old, epochs, duplicates)
}

// runPeer runs one peer's rounds, recovering from losses and waiting out
// an unavailable store. pause is called after each round's publish.
func runPeer(ctx context.Context, p *exchange.Peer, peers int, rounds uint64, pause func(r uint64)) (run midRun) {
	me := p.Config().ID
	step := func(what string, f func() error) error {
		for {
			err := f()
			var le *exchange.LostError
			switch {
			case err == nil:
				return nil
			case errors.As(err, &le):
				run.losses = append(run.losses, le)
				if err := recoverPeer(ctx, p); err != nil {
					return fmt.Errorf("%s: %w", what, err)
				}
			case errors.Is(err, exchange.ErrUnavailable) && ctx.Err() == nil:
				run.down++
				time.Sleep(5 * time.Millisecond)
			default:
				return fmt.Errorf("%s: %w", what, err)
			}
		}
	}
	apply := func(m *transport.Message) error {
		if err := CheckUpdate(m, m.From, 0, m.Seq); err != nil {
			return err
		}
		run.applied = append(run.applied, exchange.IDOf(m))
		return nil
	}
	for r := uint64(1); r <= rounds; r++ {
		err := step("publish", func() error { _, err := p.Publish(ctx, Update(me, r)); return err })
		if err == nil {
			pause(r)
			err = step("arrive", func() error { _, err := p.Arrive(ctx, fmt.Sprintf("round/%d", r)); return err })
		}
		if err == nil {
			err = step("wait", func() error { _, err := p.WaitCount(ctx, fmt.Sprintf("round/%d", r), peers); return err })
		}
		for j := 0; j < peers && err == nil; j++ {
			if transport.NodeID(j) == me {
				continue
			}
			err = step("read", func() error {
				m, err := p.Fresh(ctx, transport.NodeID(j))
				if err == nil && m != nil {
					err = apply(m)
				}
				return err
			})
		}
		if err != nil {
			run.err = fmt.Errorf("round %d: %w", r, err)
			return run
		}
	}
	// A last barrier, then everyone's final update.
	err := step("arrive at the end", func() error { _, err := p.Arrive(ctx, "end"); return err })
	if err == nil {
		err = step("wait at the end", func() error { _, err := p.WaitCount(ctx, "end", peers); return err })
	}
	run.final = map[transport.NodeID]uint64{}
	for j := 0; j < peers && err == nil; j++ {
		if transport.NodeID(j) != me {
			err = step("final read", func() error {
				m, err := p.Latest(ctx, transport.NodeID(j))
				if err == nil {
					run.final[m.From] = m.Seq
				}
				return err
			})
		}
	}
	run.err = err
	return run
}

// recoverPeer calls Recover until it succeeds, waiting out an unavailable
// store and further losses.
func recoverPeer(ctx context.Context, p *exchange.Peer) error {
	for {
		err := p.Recover(ctx)
		switch {
		case err == nil:
			return nil
		case ctx.Err() != nil:
			return err
		case errors.Is(err, exchange.ErrUnavailable), errors.Is(err, exchange.ErrLost):
			time.Sleep(5 * time.Millisecond)
		default:
			return err
		}
	}
}
