package exchange_test

import (
	"fmt"
	"runtime"
	"testing"
	"time"

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
	before := runtime.NumGoroutine()
	exchangetest.Run(t, func(*testing.T) exchangetest.Backend { return memBackend{exchange.NewMemory()} })
	// Memory starts no goroutine and Next's watcher ends with the call:
	// once the suite's own goroutines are done, none is left.
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		buf := make([]byte, 1<<20)
		t.Errorf("%d goroutines after the suite, %d before: leaked\n%s", n, before, buf[:runtime.Stack(buf, true)])
	}
}

// The same calls in the same order give the same epochs, note numbers
// and values.
func TestMemoryDeterministic(t *testing.T) {
	run := func() string {
		m := exchange.NewMemory()
		ctx := t.Context()
		var out []string
		c1, _ := m.Open("a", exchange.Limits{MaxNotes: 2})
		c2, _ := m.Open("b", exchange.Limits{})
		for i := range 4 {
			n, err := c1.Append(ctx, "t", []byte{byte(i)})
			out = append(out, fmt.Sprint(n, err))
		}
		_, err := c1.Read(ctx, "t", 0, 10)
		out = append(out, c1.Epoch(), c2.Epoch(), fmt.Sprint(err))
		m.Restart()
		e, _ := c2.Recover(ctx)
		e1, _ := c1.Recover(ctx)
		return fmt.Sprint(append(out, e, e1))
	}
	a, b := run(), run()
	if a != b {
		t.Errorf("two runs differ:\n%s\n%s", a, b)
	}
	if want := "[1 <nil> 2 <nil> 3 <nil> 4 <nil> mem-1 mem-2 exchange: read \"t\": notes 1 to 2 were dropped (the topic keeps 2) mem-3 mem-4]"; a != want {
		t.Errorf("run = %s; want %s", a, want)
	}
}
