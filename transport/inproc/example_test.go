package inproc_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/syncmodels/syncmodels/algorithms"
	"github.com/syncmodels/syncmodels/transport"
	"github.com/syncmodels/syncmodels/transport/inproc"
)

// One step of a parameter server: release, commit, ack. The receiver gets
// a decoded deep copy, and Stats counts every message and byte.
func Example() {
	l := algorithms.Layout{Params: 2, Delta: 2}
	nw, err := inproc.New(inproc.Config{Layout: l})
	if err != nil {
		panic(err)
	}
	defer nw.Close()
	coord, _ := nw.Open(transport.Coordinator)
	worker, _ := nw.Open(0)
	ctx := context.Background()

	theta := []float64{0.5, -1}
	if err := coord.Send(ctx, &transport.Message{Kind: transport.Release, To: 0, Job: 1, Seq: 1, Params: theta}); err != nil {
		panic(err)
	}
	theta[0] = 99 // the message was encoded at Send: this does not travel
	rel, _ := worker.Recv(ctx)
	fmt.Println(rel, rel.Params)

	d := algorithms.NewDelta(l)
	d.Vec[0], d.Count = 0.25, 8
	if err := worker.Send(ctx, &transport.Message{Kind: transport.Commit, To: transport.Coordinator, Job: 1, Seq: 1, Points: 8, Delta: d}); err != nil {
		panic(err)
	}
	com, _ := coord.Recv(ctx)
	fmt.Println(com, com.Delta.Vec)
	if err := coord.Send(ctx, &transport.Message{Kind: transport.Ack, To: com.From, Job: 1, Seq: com.Seq}); err != nil {
		panic(err)
	}
	ack, _ := worker.Recv(ctx)
	fmt.Println(ack)

	err = worker.Send(ctx, &transport.Message{Kind: transport.Heartbeat, To: 3})
	fmt.Println(errors.Is(err, transport.ErrUnknownNode), err)

	st := nw.Stats()
	for _, id := range st.IDs() {
		n := st.Nodes[id]
		fmt.Printf("%v: sent %+v received %+v\n", id, n.Sent.Total(), n.Received.Total())
	}
	// Output:
	// release coordinator→worker 0 job=1 inc=0 seq=1 v=0 clock=0 params=2 [0.5 -1]
	// commit worker 0→coordinator job=1 inc=0 seq=1 v=0 clock=0 points=8 delta=2/count=8 [0.25 0]
	// ack coordinator→worker 0 job=1 inc=0 seq=1 v=0 clock=0
	// true inproc: worker 0: send heartbeat to worker 3: transport: unknown node
	// coordinator: sent {Messages:2 Bytes:44} received {Messages:1 Bytes:29}
	// worker 0: sent {Messages:1 Bytes:29} received {Messages:2 Bytes:44}
}

// A lossy link: with a fixed seed a single sender sees the same losses
// and duplicates every run.
func Example_lossy() {
	nw, err := inproc.New(inproc.Config{Drop: 0.3, Duplicate: 0.2, Seed: 6})
	if err != nil {
		panic(err)
	}
	defer nw.Close()
	coord, _ := nw.Open(transport.Coordinator)
	worker, _ := nw.Open(0)
	ctx := context.Background()
	for seq := range uint64(12) {
		if err := worker.Send(ctx, &transport.Message{Kind: transport.Heartbeat, To: transport.Coordinator, Seq: seq}); err != nil {
			panic(err)
		}
	}
	var got []uint64
	for {
		ctx, cancel := context.WithTimeout(ctx, 10*time.Millisecond)
		m, err := coord.Recv(ctx)
		cancel()
		if err != nil {
			break
		}
		got = append(got, m.Seq)
	}
	w := nw.Stats().Nodes[0]
	fmt.Println("received", got)
	fmt.Println("dropped", w.Dropped.Total().Messages, "duplicated", w.Duplicated.Total().Messages)
	// Output:
	// received [0 1 2 3 5 5 6 6 8 10]
	// dropped 4 duplicated 2
}
