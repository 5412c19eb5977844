package slsml

import (
	"context"
	"errors"
	"reflect"
	"strconv"
	"sync/atomic"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/syncmodels/syncmodels/exchange"
	"github.com/syncmodels/syncmodels/exchange/redisx"
	"github.com/syncmodels/syncmodels/exchange/redisx/redistest"
)

var namespaces atomic.Int64

// redisStore opens a client of a fresh namespace on srv, which gives up
// quickly while the server is down (one dial, no go-redis retry: the
// pipeline retries, in virtual time).
func redisStore(t *testing.T, srv *redistest.Server) exchange.Store {
	t.Helper()
	ns := "slsml-" + strconv.FormatInt(namespaces.Add(1), 10)
	s, err := redisx.Open(t.Context(), srv.URL(), redisx.Config{Namespace: ns, Options: func(o *redis.Options) {
		o.DialerRetries, o.MaxRetries = 1, -1
	}})
	if err != nil {
		t.Fatalf("redisx.Open: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// The same seed gives the same run on a real Redis as in process: the
// schedule is virtual, so which gradients make each quorum, the models,
// the timeline, the bill and the trace are identical.
func TestRedisSameAsMemory(t *testing.T) {
	srv := redistest.Start(t)
	alg := newLogreg(t, 400, 10)
	for _, cfg := range []Config{smallConfig(), straggly()} {
		_, m := memStore(t)
		want := runOK(t, m, alg, cfg)
		got := runOK(t, redisStore(t, srv), alg, cfg)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("seed %d: Redis run differs from the in-process run:\nRedis  %v %+v\nmemory %v %+v", cfg.Seed, got.Time, got.Counts, want.Time, want.Counts)
		}
	}
}

// redis-server killed and restarted empty right after reducer 0 wrote its
// slice of iteration 2: see lossCheck.
func TestLossRedis(t *testing.T) {
	srv := redistest.Start(t)
	lossCheck(t, func(t *testing.T) (exchange.Store, func()) {
		return redisStore(t, srv), srv.Restart
	})
}

// downStore keeps redis-server down for a number of failed calls after
// a kill, then restarts it empty.
type downStore struct {
	exchange.Store
	srv  *redistest.Server
	down int // calls still to fail before the restart; −1: up
}

func (d *downStore) failed(err error) {
	if d.down >= 0 && errors.Is(err, exchange.ErrUnavailable) {
		if d.down--; d.down < 0 {
			d.srv.Restart()
		}
	}
}

func (d *downStore) Put(ctx context.Context, k string, v []byte) error {
	err := d.Store.Put(ctx, k, v)
	d.failed(err)
	return err
}

func (d *downStore) Get(ctx context.Context, k string) ([]byte, error) {
	v, err := d.Store.Get(ctx, k)
	d.failed(err)
	return v, err
}

func (d *downStore) Append(ctx context.Context, topic string, note []byte) (uint64, error) {
	n, err := d.Store.Append(ctx, topic, note)
	d.failed(err)
	return n, err
}

func (d *downStore) Arrive(ctx context.Context, set, member string) (int, error) {
	n, err := d.Store.Arrive(ctx, set, member)
	d.failed(err)
	return n, err
}

func (d *downStore) WaitCount(ctx context.Context, set string, n int) (int, error) {
	got, err := d.Store.WaitCount(ctx, set, n)
	d.failed(err)
	return got, err
}

func (d *downStore) Read(ctx context.Context, topic string, after uint64, max int) ([]exchange.Note, error) {
	notes, err := d.Store.Read(ctx, topic, after, max)
	d.failed(err)
	return notes, err
}

// redis-server killed mid-iteration stays down for several calls (each
// retried after Timing.Retry of virtual time), then comes back empty: the
// pipeline retries, finds the loss, replays, and applies nothing twice.
func TestKillRedisDown(t *testing.T) {
	srv := redistest.Start(t)
	alg := newLogreg(t, 400, 10)
	d := &downStore{Store: redisStore(t, srv), srv: srv, down: -1}
	h := &hookStore{Store: d, key: gradKey(Contribution{Iter: 3, Worker: 5}, 1), after: func() { srv.Kill(); d.down = 5 }}
	res := runOK(t, h, alg, smallConfig())
	if !h.fired || d.down >= 0 {
		t.Fatalf("the server was not killed and restarted (fired %v, down %d)", h.fired, d.down)
	}
	if res.Counts.Losses != 1 || res.Counts.Retries < 5 {
		t.Fatalf("counts %+v; want 1 loss and ≥ 5 retries", res.Counts)
	}
	t.Logf("%+v", res.Counts)
}
