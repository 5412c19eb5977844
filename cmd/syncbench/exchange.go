package main

import (
	"fmt"
	"os"
	"strings"
	"sync/atomic"
	"time"

	"github.com/syncmodels/syncmodels/algorithms"
	"github.com/syncmodels/syncmodels/exchange"
	"github.com/syncmodels/syncmodels/exchange/storenet"
	"github.com/syncmodels/syncmodels/transport"
)

// compare -clock real -exchange: the goroutine runtime's messages go
// through a store (package exchange/storenet: each node's inbox a topic,
// large messages in blobs) instead of the in-process network, as
// MLLess's go through Redis (§3.1).

const exchangeUsage = "with -clock real: the store the runtime's messages go through instead of the in-process network (package exchange/storenet): memory (exchange.Memory) or redis://HOST:PORT (each run in a namespace of its own); empty = the in-process network"

// checkExchange validates -exchange against -clock.
func (f *compareFlags) checkExchange() error {
	if f.exchange == "" {
		return nil
	}
	if _, err := storenet.ParseExchange(f.exchange, "check"); err != nil {
		return fmt.Errorf("-exchange %q: want memory or redis://HOST:PORT", f.exchange)
	}
	if f.clock != "real" {
		return fmt.Errorf("-exchange %s: the store carries the goroutine runtime's messages; use -clock real, not %s", f.exchange, f.clock)
	}
	f.exchangeNS = fmt.Sprintf("syncbench-%d-%d", os.Getpid(), time.Now().UnixNano())
	return nil
}

// exchangeRuns numbers the networks made, for their namespaces.
var exchangeRuns atomic.Int64

// storeNetwork returns the Network of run name over -exchange: a new
// namespace (a new in-process store for memory) each time it is called.
func (f *compareFlags) storeNetwork(name string) func(algorithms.Layout) (transport.Transport, error) {
	return func(l algorithms.Layout) (transport.Transport, error) {
		ns := fmt.Sprintf("%s-%d-%s", f.exchangeNS, exchangeRuns.Add(1), namespaceSafe(name))
		dial, err := storenet.ParseExchange(f.exchange, ns[:min(len(ns), exchange.MaxName)])
		if err != nil {
			return nil, err
		}
		return storenet.New(storenet.Config{Layout: l, Dial: dial})
	}
}

// namespaceSafe replaces what exchange.CheckName refuses with '_'.
func namespaceSafe(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', strings.ContainsRune("._/:=@+-", r):
			return r
		}
		return '_'
	}, s)
}

// exchangeName says what carries the messages, for the table's heading
// (without the store's address).
func (f *compareFlags) exchangeName() string {
	if f.exchange == "memory" {
		return "the in-process store (exchange.Memory)"
	}
	return "Redis"
}
