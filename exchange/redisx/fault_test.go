package redisx_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/syncmodels/syncmodels/exchange"
	"github.com/syncmodels/syncmodels/exchange/exchangetest"
	"github.com/syncmodels/syncmodels/exchange/redisx"
	"github.com/syncmodels/syncmodels/exchange/redisx/redistest"
)

// open opens a client whose calls give up quickly when the server is
// down: one dial, no retry (go-redis's defaults retry for about 1.7 s).
func open(t *testing.T, url, ns string) *redisx.Store {
	t.Helper()
	s, err := redisx.Open(t.Context(), url, redisx.Config{Namespace: ns, Options: func(o *redis.Options) {
		o.DialerRetries, o.MaxRetries = 1, -1
	}})
	if err != nil {
		t.Fatalf("Open = %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// A server that is down makes calls fail with ErrUnavailable, promptly;
// once it is back (empty), they fail with ErrLost until Recover.
func TestUnavailable(t *testing.T) {
	srv := redistest.Start(t)
	s := open(t, srv.URL(), "job")
	ctx := t.Context()
	if err := s.Put(ctx, "k", []byte("v")); err != nil {
		t.Fatal(err)
	}
	srv.Kill()
	start := time.Now()
	err := s.Put(ctx, "k", []byte("w"))
	if !errors.Is(err, exchange.ErrUnavailable) || !strings.Contains(err.Error(), `"k"`) {
		t.Errorf("Put with the server down = %v; want ErrUnavailable naming the key", err)
	}
	t.Logf("Put with the server down failed after %v: %v", time.Since(start).Round(time.Millisecond), err)
	_, err = s.WaitCount(ctx, "set", 1)
	if !errors.Is(err, exchange.ErrUnavailable) {
		t.Errorf("WaitCount with the server down = %v; want ErrUnavailable", err)
	}
	srv.Restart()
	_, err = s.Get(ctx, "k")
	if !errors.Is(err, exchange.ErrLost) {
		t.Errorf("Get after the restart = %v; want ErrLost", err)
	}
}

// A server restarted with its data restored (as persistence would) keeps
// the epoch; Check still reports the restart, by the server's run_id.
func TestCheckRunID(t *testing.T) {
	srv := redistest.Start(t)
	s := open(t, srv.URL(), "job")
	ctx := t.Context()
	if err := s.Check(ctx); err != nil {
		t.Fatalf("Check = %v", err)
	}
	epoch := s.Epoch()
	srv.Restart()
	// Restore the epoch key by hand, as an RDB snapshot would.
	raw := redis.NewClient(&redis.Options{Addr: srv.Addr})
	defer raw.Close()
	if err := raw.Set(ctx, "syncmodels:{job}:epoch", epoch, 0).Err(); err != nil {
		t.Fatal(err)
	}
	if err := s.Put(ctx, "k", []byte("v")); err != nil {
		t.Errorf("Put with the epoch restored = %v; want it accepted", err)
	}
	err := s.Check(ctx)
	var ee *exchange.EpochError
	if !errors.As(err, &ee) || !strings.Contains(err.Error(), "run_id") {
		t.Fatalf("Check after the restart = %v; want an EpochError naming the run_id", err)
	}
	if e, err := s.Recover(ctx); err != nil || e != epoch {
		t.Errorf("Recover = %q, %v; want the restored epoch %q", e, err, epoch)
	}
	if err := s.Check(ctx); err != nil {
		t.Errorf("Check after Recover = %v", err)
	}
}

func TestOpenErrors(t *testing.T) {
	ctx := t.Context()
	for _, c := range []struct {
		url  string
		cfg  redisx.Config
		want error
		not  string // must not appear in the error
	}{
		{"redis://127.0.0.1:1", redisx.Config{Namespace: "bad name"}, exchange.ErrConfig, ""},
		{"redis://127.0.0.1:1", redisx.Config{}, exchange.ErrConfig, ""},
		{"redis://127.0.0.1:1", redisx.Config{Namespace: "ns", Prefix: "a{b"}, exchange.ErrConfig, ""},
		{"redis://127.0.0.1:1", redisx.Config{Namespace: "ns", Poll: -1}, exchange.ErrConfig, ""},
		{"redis://127.0.0.1:1", redisx.Config{Namespace: "ns", Limits: exchange.Limits{MaxValue: -1}}, exchange.ErrConfig, ""},
		{"http://user:secret@host:1", redisx.Config{Namespace: "ns"}, exchange.ErrConfig, "secret"},
	} {
		if _, err := redisx.Open(ctx, c.url, c.cfg); !errors.Is(err, c.want) || (c.not != "" && strings.Contains(err.Error(), c.not)) {
			t.Errorf("Open(%s, %+v) = %v; want %v", c.url, c.cfg, err, c.want)
		}
	}
	// Nothing listens on port 1: ErrUnavailable, after go-redis's dial
	// retries (shortened here).
	short, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	_, err := redisx.Open(short, "redis://127.0.0.1:1", redisx.Config{Namespace: "ns", Options: func(o *redis.Options) {
		o.DialerRetries, o.MaxRetries = 1, -1
	}})
	if !errors.Is(err, exchange.ErrUnavailable) {
		t.Errorf("Open of a closed port = %v; want ErrUnavailable", err)
	}
}

// downBackend is a redis-server that, on Restart, is killed, stays down
// for a while — the peers' calls fail with ErrUnavailable and are retried
// — and comes back empty. Its clients give up quickly while it is down.
type downBackend struct{ srv *redistest.Server }

func (b downBackend) Open(t *testing.T, ns string, l exchange.Limits) exchange.Store {
	t.Helper()
	s, err := redisx.Open(t.Context(), b.srv.URL(), redisx.Config{Namespace: ns, Limits: l, Options: func(o *redis.Options) {
		o.DialerRetries, o.MaxRetries = 1, -1
	}})
	if err != nil {
		t.Fatalf("Open = %v", err)
	}
	return s
}

func (b downBackend) Restart(*testing.T) {
	b.srv.Kill()
	time.Sleep(300 * time.Millisecond)
	b.srv.Restart()
}

// Peers in synchronous rounds; redis-server is killed in the middle,
// stays down for 300 ms, and comes back empty: every peer is told what it
// lost, recovers, finishes, and applies no update twice.
func TestKillMidRun(t *testing.T) {
	exchangetest.RestartMidRun(t, downBackend{redistest.Start(t)})
}
