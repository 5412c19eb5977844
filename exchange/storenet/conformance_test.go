package storenet_test

import (
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/syncmodels/syncmodels/exchange"
	"github.com/syncmodels/syncmodels/exchange/redisx"
	"github.com/syncmodels/syncmodels/exchange/redisx/redistest"
	"github.com/syncmodels/syncmodels/exchange/storenet"
	"github.com/syncmodels/syncmodels/transport"
	"github.com/syncmodels/syncmodels/transport/transporttest"
)

// The conformance suite every transport passes, on the in-process store
// and on a real Redis, with messages inline and all in blobs.
func TestConformance(t *testing.T) {
	for _, inline := range []int{0, -1} {
		name := "inline"
		if inline < 0 {
			name = "blobs"
		}
		t.Run("memory/"+name, func(t *testing.T) {
			transporttest.Run(t, func(t *testing.T, o transporttest.Options) transport.Transport {
				return newNet(t, storenet.Config{Layout: o.Layout, MaxMessage: o.MaxMessage, Inline: inline,
					Dial: storenet.MemoryDial(exchange.NewMemory(), "job", exchange.Limits{})})
			})
		})
	}
	srv := redistest.Start(t)
	var jobs atomic.Int64
	for _, inline := range []int{0, -1} {
		name := "inline"
		if inline < 0 {
			name = "blobs"
		}
		t.Run("redis/"+name, func(t *testing.T) {
			transporttest.Run(t, func(t *testing.T, o transporttest.Options) transport.Transport {
				ns := fmt.Sprintf("conformance-%d", jobs.Add(1))
				return newNet(t, storenet.Config{Layout: o.Layout, MaxMessage: o.MaxMessage, Inline: inline,
					Dial: storenet.RedisDial(srv.URL(), redisx.Config{Namespace: ns})})
			})
		})
	}
}

func newNet(t testing.TB, cfg storenet.Config) *storenet.Network {
	t.Helper()
	n, err := storenet.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return n
}
