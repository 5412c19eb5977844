package redisx_test

import (
	"context"
	"os"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/syncmodels/syncmodels/exchange"
	"github.com/syncmodels/syncmodels/exchange/exchangetest"
	"github.com/syncmodels/syncmodels/exchange/redisx"
	"github.com/syncmodels/syncmodels/exchange/redisx/redistest"
)

func TestMain(m *testing.M) {
	// go-redis logs every failed dial; the fault tests make many.
	redis.SetLogger(discard{})
	os.Exit(m.Run())
}

type discard struct{}

func (discard) Printf(context.Context, string, ...any) {}

// backend is a real redis-server under the conformance suite; Restart
// kills it (SIGKILL) and starts an empty one on the same port.
type backend struct{ srv *redistest.Server }

func (b backend) Open(t *testing.T, ns string, l exchange.Limits) exchange.Store {
	t.Helper()
	s, err := redisx.Open(t.Context(), b.srv.URL(), redisx.Config{Namespace: ns, Limits: l})
	if err != nil {
		t.Fatalf("Open(%s, %q) = %v", b.srv.URL(), ns, err)
	}
	return s
}

func (b backend) Restart(*testing.T) { b.srv.Restart() }

func TestRedis(t *testing.T) {
	exchangetest.Run(t, func(t *testing.T) exchangetest.Backend { return backend{redistest.Start(t)} })
}
