package cluster

import (
	"context"
	"errors"
	"net"
	"testing"
	"time"

	"github.com/syncmodels/syncmodels/algorithms"
	"github.com/syncmodels/syncmodels/transport"
	"github.com/syncmodels/syncmodels/transport/grpcnet"
)

// A worker that has talked to a coordinator of generation 2 refuses a
// stream from one of generation 1 (an old coordinator still up after its
// journal was resumed elsewhere): nothing it sends is used. A newer one
// is taken.
func TestOldGenerationRefused(t *testing.T) {
	l := algorithms.Layout{Params: 2, Delta: 2, Block: 1}
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := lis.Addr().String()
	serve := func(gen uint64, lis net.Listener) *grpcnet.Server {
		t.Helper()
		srv, err := grpcnet.NewServer(grpcnet.Config{Layout: l, Plaintext: true, Generation: gen})
		if err != nil {
			t.Fatal(err)
		}
		go srv.Serve(lis)
		return srv
	}
	listen := func() net.Listener {
		t.Helper()
		lis, err := net.Listen("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		return lis
	}
	second := serve(2, lis)
	cli, err := grpcnet.Dial(addr, grpcnet.Config{Layout: l, Plaintext: true})
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	ctx := context.Background()
	r, err := openEndpoint(ctx, cli, 0, 5*time.Second, 300*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if r.gen != 2 {
		t.Fatalf("generation %d after the first stream, want 2", r.gen)
	}
	broken := r.ep
	second.Close()
	first := serve(1, listen())
	_, err = r.current(ctx, broken)
	first.Close()
	if !errors.Is(err, errOldGeneration) || !errors.Is(err, transport.ErrClosed) {
		t.Fatalf("reopening to generation 1 after 2: %v; want refused as older", err)
	}
	// A newer coordinator is taken.
	r.mu.Lock()
	r.closed = false
	r.mu.Unlock()
	third := serve(3, listen())
	defer third.Close()
	if _, err := r.current(ctx, nil); err != nil || r.gen != 3 {
		t.Fatalf("reopening to generation 3: %v, generation %d", err, r.gen)
	}
}
