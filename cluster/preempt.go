package cluster

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"github.com/syncmodels/syncmodels/preempt"
)

// Preempter preempts and restores a Local's worker processes on seeded
// schedules: the gRPC runtime's preemptions. Worker n follows
// preempt.Schedule(Config, Seed, n, Horizon), the schedule the goroutine
// and virtual runtimes follow for Experiment.Preempt with the same seed
// and duration (DOLL §V-A's two-state chain), timed from the run's start.
// A preemption kills the worker's process with SIGKILL, without notice;
// a restore starts a new process as its next incarnation (Local.Start),
// which rejoins, or, for a workload with per-point state (K-means, GMM,
// FCM) whose contributions the coordinator already holds, is refused and
// exits while the run goes on without it.
type Preempter struct {
	Local   *Local
	Config  preempt.Config
	Seed    uint64
	Workers int
	// Horizon is the run's Duration: transitions at or after it are not
	// followed.
	Horizon time.Duration
	// OnTransition, if set, is called after each transition is carried
	// out (from the worker's goroutine).
	OnTransition func(PreemptEvent)
}

// PreemptEvent is one transition of a worker's schedule as carried out.
type PreemptEvent struct {
	Worker     int
	Transition preempt.Transition
	// Late is how long after its scheduled time the transition was
	// carried out.
	Late time.Duration
	// Killed (at a preemption) says a running process was killed; false
	// means the worker's process had already ended (a refused restart, or
	// the end of the run). Incarnation is the killed or the started one.
	Killed      bool
	Incarnation uint32
}

// PreemptStats counts what a Preempter did.
type PreemptStats struct {
	// Preemptions are the schedules' preemptions carried out: Kills of
	// them found the worker's process running and killed it, the others
	// found it ended already. Restores started new processes.
	Preemptions, Kills, Restores int
	// MaxLate is the latest a transition was carried out after its
	// scheduled time.
	MaxLate time.Duration
}

// Schedules returns every worker's schedule, in worker order.
func (p *Preempter) Schedules() ([][]preempt.Transition, error) {
	if p.Local == nil || p.Workers <= 0 {
		return nil, fmt.Errorf("cluster: Preempter needs a Local and Workers > 0 (has %d): %w", p.Workers, ErrConfig)
	}
	out := make([][]preempt.Transition, p.Workers)
	for i := range out {
		ts, err := preempt.Schedule(p.Config, p.Seed, i, p.Horizon)
		if err != nil {
			return nil, fmt.Errorf("cluster: worker %d's preemptions: %w: %w", i, err, ErrConfig)
		}
		out[i] = ts
	}
	return out, nil
}

// Run follows every worker's schedule from origin, the run's start (the
// instant its clock read 0: the first Experiment.Progress call is at
// Elapsed after it), until the schedules end or ctx is done, and returns
// what it did. A transition whose time has passed when Run reaches it is
// carried out at once (PreemptEvent.Late). Every worker must have been
// started (Local.Start) before.
func (p *Preempter) Run(ctx context.Context, origin time.Time) (PreemptStats, error) {
	scheds, err := p.Schedules()
	if err != nil {
		return PreemptStats{}, err
	}
	var (
		mu    sync.Mutex
		st    PreemptStats
		first error
		wg    sync.WaitGroup
	)
	for id, ts := range scheds {
		wg.Go(func() {
			for _, t := range ts {
				at := origin.Add(t.At)
				if err := sleepCtx(ctx, time.Until(at)); err != nil {
					return
				}
				ev := PreemptEvent{Worker: id, Transition: t, Late: max(time.Since(at), 0)}
				var err error
				if t.Available {
					err = p.Local.Start(id)
					ev.Incarnation = p.Local.Incarnation(id)
				} else {
					ev.Killed, ev.Incarnation, err = p.Local.preemptKill(id)
				}
				mu.Lock()
				if err != nil {
					first = firstErr(first, fmt.Errorf("cluster: worker %d, %v: %w", id, t, err))
					mu.Unlock()
					return
				}
				if t.Available {
					st.Restores++
				} else {
					st.Preemptions++
					if ev.Killed {
						st.Kills++
					}
				}
				st.MaxLate = max(st.MaxLate, ev.Late)
				mu.Unlock()
				if p.OnTransition != nil {
					p.OnTransition(ev)
				}
			}
		})
	}
	wg.Wait()
	return st, first
}

func firstErr(a, b error) error {
	if a != nil {
		return a
	}
	return b
}

// preemptKill kills worker id's process with SIGKILL if it is running,
// and reports whether the signal ended it (false: it had ended before)
// and its incarnation.
func (l *Local) preemptKill(id int) (bool, uint32, error) {
	l.mu.Lock()
	p := l.procs[id]
	l.mu.Unlock()
	if p == nil {
		return false, 0, fmt.Errorf("cluster: worker %d was never started", id)
	}
	select {
	case <-p.done:
		return false, p.inc, nil
	default:
	}
	if err := l.Kill(id); err != nil {
		return false, p.inc, err
	}
	var ee *exec.ExitError
	if errors.As(p.err, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() && ws.Signal() == syscall.SIGKILL {
			return true, p.inc, nil
		}
	}
	return false, p.inc, nil
}
