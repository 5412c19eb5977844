package p2p

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/syncmodels/syncmodels/exchange"
)

// A peer waiting for an arrival that never comes is a deadlock: the
// scheduler says who waits for what, and leaves no goroutine running.
func TestSimDeadlock(t *testing.T) {
	mem := exchange.NewMemory()
	s := newSim(t.Context(), Config{Cost: CostModel{RTT: time.Millisecond}})
	procs := s.spawn(2)
	stores := make([]*simStore, 2)
	for i := range stores {
		c, err := mem.Open("job", exchange.Limits{})
		if err != nil {
			t.Fatal(err)
		}
		stores[i] = &simStore{p: procs[i], s: c}
	}
	ctx := context.Background()
	err := s.run([]func(*proc) error{
		func(*proc) error {
			if _, err := stores[0].Arrive(ctx, "round/1", "0"); err != nil {
				return err
			}
			_, err := stores[0].WaitCount(ctx, "round/1", 2)
			return err
		},
		func(p *proc) error { return p.Compute(time.Second) }, // never arrives
	})
	if err == nil || !strings.Contains(err.Error(), `deadlock`) || !strings.Contains(err.Error(), `peer 0 waits for 2 at "round/1"`) {
		t.Errorf("run = %v; want a deadlock naming peer 0's wait", err)
	}
	if !errors.Is(procs[0].err, errAborted) {
		t.Errorf("the parked peer ended with %v; want errAborted", procs[0].err)
	}
}

// OpenExchange reads -exchange's forms and refuses others.
func TestOpenExchange(t *testing.T) {
	for _, spec := range []string{"", "memory"} {
		open, mem, err := OpenExchange(spec, "ns")
		if err != nil || mem == nil || open == nil {
			t.Errorf("OpenExchange(%q) = %v, %v", spec, mem, err)
		}
	}
	if open, mem, err := OpenExchange("redis://127.0.0.1:1", "ns"); err != nil || mem != nil || open == nil {
		t.Errorf("OpenExchange(redis) = %v, %v", mem, err)
	}
	if _, _, err := OpenExchange("postgres://x", "ns"); !errors.Is(err, ErrConfig) {
		t.Errorf("OpenExchange(postgres) = %v; want ErrConfig", err)
	}
}
