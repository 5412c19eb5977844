package exchange_test

import (
	"testing"

	"github.com/syncmodels/syncmodels/exchange"
	"github.com/syncmodels/syncmodels/exchange/exchangetest"
)

// memBackend is a Memory server under the conformance suite.
type memBackend struct{ m *exchange.Memory }

func (b memBackend) Open(t *testing.T, ns string, l exchange.Limits) exchange.Store {
	t.Helper()
	c, err := b.m.Open(ns, l)
	if err != nil {
		t.Fatalf("Open(%q) = %v", ns, err)
	}
	return c
}

func (b memBackend) Restart(*testing.T) { b.m.Restart() }

func TestMemory(t *testing.T) {
	exchangetest.Run(t, func(*testing.T) exchangetest.Backend { return memBackend{exchange.NewMemory()} })
}
