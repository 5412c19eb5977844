package cluster_test

import (
	"context"
	"io"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/syncmodels/syncmodels/cluster"
	"github.com/syncmodels/syncmodels/consistency"
	"github.com/syncmodels/syncmodels/transport"
	"github.com/syncmodels/syncmodels/transport/grpcnet"
	"github.com/syncmodels/syncmodels/transport/grpcnet/jobtls"
)

// faultProxy forwards TCP connections to a target and can blackhole
// them: while paused it forwards nothing in either direction (the bytes
// wait, as a network that drops packets makes TCP retransmit them until
// it heals), so the application sees silence, not a reset (the model is
// etcd's pkg/proxy).
type faultProxy struct {
	lis    net.Listener
	target string
	paused atomic.Bool
	mu     sync.Mutex
	resume chan struct{}
	wg     sync.WaitGroup
}

func newFaultProxy(t *testing.T, target string) *faultProxy {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &faultProxy{lis: lis, target: target, resume: make(chan struct{})}
	p.wg.Go(p.serve)
	t.Cleanup(func() { lis.Close(); p.pause(false); p.wg.Wait() })
	return p
}

func (p *faultProxy) addr() string { return p.lis.Addr().String() }

func (p *faultProxy) serve() {
	for {
		c, err := p.lis.Accept()
		if err != nil {
			return
		}
		u, err := net.Dial("tcp", p.target)
		if err != nil {
			c.Close()
			continue
		}
		p.wg.Go(func() { p.pipe(u, c) })
		p.wg.Go(func() { p.pipe(c, u) })
	}
}

// pipe copies src to dst, holding the bytes while the proxy is paused.
func (p *faultProxy) pipe(dst, src net.Conn) {
	defer dst.Close()
	defer src.Close()
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		for p.paused.Load() {
			p.mu.Lock()
			ch := p.resume
			p.mu.Unlock()
			<-ch
		}
		if n > 0 {
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			if err != io.EOF {
				return
			}
			return
		}
	}
}

func (p *faultProxy) pause(on bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if on == p.paused.Load() {
		return
	}
	p.paused.Store(on)
	if !on {
		close(p.resume)
		p.resume = make(chan struct{})
	}
}

// A gRPC link that blackholes for less than the lease causes no leave;
// one that blackholes for five leases (RELIABILITY item 4) makes the
// worker leave, named in the trace, while the others go on; when it
// heals, the worker's late messages are refused and it rejoins as its
// next incarnation, keeping its state (a K-means worker too). The coordinator's trace passes the
// checker (Coordinator.Run fails otherwise).
func TestPartitionedLink(t *testing.T) {
	for _, c := range []struct {
		name string
		for_ time.Duration
	}{{"short", 150 * time.Millisecond}, {"long", 1500 * time.Millisecond}} {
		t.Run(c.name, func(t *testing.T) {
			leakCheck(t)
			e, job, dir, lis := setup(t, kmSpec, "bsp", 4)
			e.Duration = 2500 * time.Millisecond
			job.Duration = cluster.Duration(e.Duration)
			proxy := newFaultProxy(t, lis.Addr().String())
			var wg sync.WaitGroup
			errs := make([]error, e.Workers)
			for i := range e.Workers {
				creds, err := jobtls.LoadWorker(dir, transport.NodeID(i))
				if err != nil {
					t.Fatal(err)
				}
				target := lis.Addr().String()
				if i == 2 {
					target = proxy.addr()
				}
				w := &cluster.Worker{Target: target, ID: i, Net: grpcnet.Config{TLS: creds.TLS, Token: creds.Token}, Wait: 20 * time.Second}
				wg.Go(func() { _, errs[i] = w.Run(context.Background()) })
			}
			go func() {
				time.Sleep(500 * time.Millisecond)
				proxy.pause(true)
				time.Sleep(c.for_)
				proxy.pause(false)
			}()
			rep, err := (&cluster.Coordinator{Experiment: e, Job: job, Net: serverNet(t, dir)}).Run(context.Background(), lis)
			wg.Wait()
			if err != nil {
				t.Fatal(err)
			}
			for i, err := range errs {
				if err != nil {
					t.Errorf("worker %d: %v", i, err)
				}
			}
			var leaves, joins []consistency.Record
			for _, r := range rep.Trace.Records {
				switch {
				case r.Kind == consistency.RecLeave && r.Worker == 2:
					leaves = append(leaves, r)
				case r.Kind == consistency.RecJoin && r.Worker == 2:
					joins = append(joins, r)
				}
			}
			if c.name == "short" {
				if len(leaves) != 0 {
					t.Fatalf("a %v blackhole (lease %v) made worker 2 leave: %v", c.for_, e.Lease, leaves)
				}
				return
			}
			if len(leaves) != 1 || !strings.Contains(leaves[0].Reason, "lease expired") || len(joins) != 1 || joins[0].At < leaves[0].At {
				t.Fatalf("a %v blackhole (lease %v): leaves %v, joins %v; want one leave naming the lease, then a rejoin", c.for_, e.Lease, leaves, joins)
			}
			applies := 0
			for _, r := range rep.Trace.Records {
				if r.Kind == consistency.RecApply && r.At > leaves[0].At && r.At < joins[0].At {
					applies++
				}
			}
			if applies == 0 || rep.Rejected == 0 {
				t.Fatalf("%d applies while worker 2 was out, %d messages refused; want both > 0", applies, rep.Rejected)
			}
			t.Logf("left at %v, rejoined at %v, %d applies meanwhile, %d late messages refused", leaves[0].At, joins[0].At, applies, rep.Rejected)
		})
	}
}
