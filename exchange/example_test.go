package exchange_test

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/syncmodels/syncmodels/algorithms"
	"github.com/syncmodels/syncmodels/exchange"
	"github.com/syncmodels/syncmodels/transport"
)

// Two peers exchange updates through the in-process store, as the P2P
// paper's peers do through their one-message queues: each publishes its
// latest update, arrives at the round's barrier and reads the other's
// update without consuming it. The store then loses its data; the peers
// are told what they lost, recover, and the reader does not apply the
// restored update a second time.
func Example() {
	ctx := context.Background()
	l := algorithms.Layout{Params: 2, Delta: 2}
	mem := exchange.NewMemory()
	peers := make([]*exchange.Peer, 2)
	for i := range peers {
		s, err := mem.Open("job-7", exchange.Limits{})
		if err != nil {
			panic(err)
		}
		defer s.Close()
		peers[i], err = exchange.New(s, exchange.Config{Job: 7, ID: transport.NodeID(i), Layout: l})
		if err != nil {
			panic(err)
		}
	}
	update := func(seq uint64, v float64) *transport.Message {
		d := algorithms.NewDelta(l)
		d.Vec[0], d.Count = v, 1
		return &transport.Message{Kind: transport.Commit, Seq: seq, Clock: seq, Points: 1, Delta: d}
	}
	a, b := peers[0], peers[1]

	// Round 1.
	if _, err := a.Publish(ctx, update(1, 0.5)); err != nil {
		panic(err)
	}
	for _, p := range peers {
		if _, err := p.Arrive(ctx, "round/1"); err != nil {
			panic(err)
		}
	}
	n, _ := b.WaitCount(ctx, "round/1", 2)
	m, _ := b.Fresh(ctx, 0)
	fmt.Println("barrier:", n, "read:", m, m.Delta.Vec)
	m, _ = b.Fresh(ctx, 0)
	fmt.Println("again:", m)

	// A NaN is refused, naming the key; nothing is written.
	bad := update(2, 0)
	bad.Delta.Vec[1] = math.NaN()
	_, err := a.Publish(ctx, bad)
	fmt.Println(errors.Is(err, exchange.ErrInput), err)

	// The store loses everything (a Redis restarted without persistence).
	mem.Restart()
	_, err = a.Publish(ctx, update(2, 0.25))
	fmt.Println(errors.Is(err, exchange.ErrLost), err)
	for _, p := range peers {
		if err := p.Recover(ctx); err != nil {
			panic(err)
		}
	}
	m, _ = b.Fresh(ctx, 0) // the restored seq 1, already applied
	fmt.Println("after recovery:", m, "duplicates skipped:", b.Stats().Duplicates)
	if _, err := a.Publish(ctx, update(2, 0.25)); err != nil {
		panic(err)
	}
	m, _ = b.Fresh(ctx, 0)
	fmt.Println("round 2:", m, m.Delta.Vec)
	// Output:
	// barrier: 2 read: commit worker 0→worker 0 job=7 inc=0 seq=1 v=0 clock=1 points=1 delta=2/count=1 [0.5 0]
	// again: <nil>
	// true exchange: worker 0: publish to "latest/0": update seq 2: transport: commit message to worker 0: delta: algorithms: delta entry 1 is NaN: transport: malformed message: exchange: invalid input
	// true exchange: worker 0: put "latest/0": store lost its data (epoch mem-1, now none); lost keys latest/0; lost updates inc 0 seq 1; lost arrivals at round/1
	// after recovery: <nil> duplicates skipped: 2
	// round 2: commit worker 0→worker 0 job=7 inc=0 seq=2 v=0 clock=2 points=1 delta=2/count=1 [0.25 0]
}
