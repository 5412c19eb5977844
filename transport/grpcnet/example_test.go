package grpcnet_test

import (
	"context"
	"errors"
	"fmt"
	"net"

	"github.com/syncmodels/syncmodels/algorithms"
	"github.com/syncmodels/syncmodels/transport"
	"github.com/syncmodels/syncmodels/transport/grpcnet"
)

// A coordinator serving on TCP loopback and two workers dialling it (in
// real use, each in a process of its own): a join, a release, a commit,
// and a message between workers, which the coordinator relays.
func Example() {
	l := algorithms.Layout{Params: 2, Delta: 2}
	// Plaintext on loopback only: between hosts, use TLS (Example_tls).
	srv, err := grpcnet.NewServer(grpcnet.Config{Layout: l, Plaintext: true})
	if err != nil {
		panic(err)
	}
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(lis) }()
	coord, _ := srv.Open(transport.Coordinator)

	cli, err := grpcnet.Dial(lis.Addr().String(), grpcnet.Config{Layout: l, Plaintext: true})
	if err != nil {
		panic(err)
	}
	w0, err := cli.Open(0) // returns once the coordinator has attached it
	if err != nil {
		panic(err)
	}
	w1, _ := cli.Open(1)
	ctx := context.Background()

	w0.Send(ctx, &transport.Message{Kind: transport.Join, To: transport.Coordinator, Job: 1, Incarnation: 1})
	join, _ := coord.Recv(ctx)
	fmt.Println(join)

	coord.Send(ctx, &transport.Message{Kind: transport.Release, To: 0, Job: 1, Seq: 1, Params: []float64{0.5, -1}})
	rel, _ := w0.Recv(ctx)
	fmt.Println(rel, rel.Params)

	d := algorithms.NewDelta(l)
	d.Vec[0], d.Count = 0.25, 8
	w0.Send(ctx, &transport.Message{Kind: transport.Commit, To: transport.Coordinator, Job: 1, Seq: 1, Points: 8, Delta: d})
	com, _ := coord.Recv(ctx)
	fmt.Println(com, com.Delta.Vec)

	w0.Send(ctx, &transport.Message{Kind: transport.Heartbeat, To: 1, Job: 1})
	hb, _ := w1.Recv(ctx)
	fmt.Println(hb)

	cli.Close()
	srv.Close()
	fmt.Println(<-served)
	_, err = coord.Recv(ctx)
	fmt.Println(errors.Is(err, transport.ErrClosed))
	// Output:
	// join worker 0→coordinator job=1 inc=1 seq=0 v=0 clock=0
	// release coordinator→worker 0 job=1 inc=0 seq=1 v=0 clock=0 params=2 [0.5 -1]
	// commit worker 0→coordinator job=1 inc=0 seq=1 v=0 clock=0 points=8 delta=2/count=8 [0.25 0]
	// heartbeat worker 0→worker 1 job=1 inc=0 seq=0 v=0 clock=0
	// <nil>
	// true
}
