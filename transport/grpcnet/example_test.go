package grpcnet_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"

	"google.golang.org/grpc/status"

	"github.com/syncmodels/syncmodels/algorithms"
	"github.com/syncmodels/syncmodels/transport"
	"github.com/syncmodels/syncmodels/transport/grpcnet"
	"github.com/syncmodels/syncmodels/transport/grpcnet/jobtls"
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

// A job secured with mutual TLS and a token: jobtls.Create writes the
// job's credentials (in real use once, before the processes start; the
// coordinator's host keeps the directory, each worker's host gets ca.pem,
// its own certificate and key, and the token), the coordinator loads its
// credentials, a worker its own. A client without the token is refused
// and counted; nothing it sent is delivered.
func Example_tls() {
	dir, err := os.MkdirTemp("", "job")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	if err := jobtls.Create(dir, "example", 2, []string{"127.0.0.1", "localhost"}); err != nil {
		panic(err)
	}
	l := algorithms.Layout{Params: 2, Delta: 2}

	// The coordinator.
	sc, err := jobtls.LoadServer(dir)
	if err != nil {
		panic(err)
	}
	srv, err := grpcnet.NewServer(grpcnet.Config{Layout: l, TLS: sc.TLS, Token: sc.Token})
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

	// Worker 1's process.
	wc, err := jobtls.LoadWorker(dir, 1)
	if err != nil {
		panic(err)
	}
	cli, err := grpcnet.Dial(lis.Addr().String(), grpcnet.Config{Layout: l, TLS: wc.TLS, Token: wc.Token})
	if err != nil {
		panic(err)
	}
	w1, err := cli.Open(1)
	if err != nil {
		panic(err)
	}
	ctx := context.Background()
	w1.Send(ctx, &transport.Message{Kind: transport.Join, To: transport.Coordinator, Incarnation: 1})
	join, _ := coord.Recv(ctx)
	fmt.Println(join)

	// Worker 0's certificate, without the token.
	w0, _ := jobtls.LoadWorker(dir, 0)
	bad, _ := grpcnet.Dial(lis.Addr().String(), grpcnet.Config{Layout: l, TLS: w0.TLS})
	_, err = bad.Open(0)
	fmt.Println(status.Code(err))
	fmt.Printf("%+v\n", srv.Rejected())

	bad.Close()
	cli.Close()
	srv.Close()
	fmt.Println(<-served)
	// Output:
	// join worker 1→coordinator job=0 inc=1 seq=0 v=0 clock=0
	// Unauthenticated
	// {Handshake:0 Plaintext:0 NoToken:1 BadToken:0 WrongJob:0 Identity:0 RateLimited:0 Metadata:0 Attached:0 Malformed:0 Panics:0}
	// <nil>
}

// A worker process learns its job from the coordinator before it
// attaches: the coordinator serves a description (here JSON, set after
// the server was built), and the worker fetches it with the same
// credentials as its stream, then opens its stream.
func ExampleClient_Job() {
	l := algorithms.Layout{Params: 2, Delta: 2}
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
	cli, err := grpcnet.Dial(lis.Addr().String(), grpcnet.Config{Layout: l, Plaintext: true})
	if err != nil {
		panic(err)
	}
	ctx := context.Background()

	_, err = cli.Job(ctx) // no description yet
	fmt.Println(errors.Is(err, grpcnet.ErrNoJob), status.Code(err))

	if err := srv.SetJob([]byte(`{"workload":"kmeans","workers":2,"seed":1}`)); err != nil {
		panic(err)
	}
	job, err := cli.Job(ctx)
	fmt.Println(string(job), err)

	cli.Close()
	srv.Close()
	fmt.Println(<-served)
	// Output:
	// true NotFound
	// {"workload":"kmeans","workers":2,"seed":1} <nil>
	// <nil>
}
