package cluster

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// Local runs a job's worker processes on this host: it starts them,
// kills one (SIGKILL, as a crash or a preemption does), restarts it as
// its next incarnation, and stops them all. Command builds the command of
// worker id's given incarnation; Local sets nothing else on it except,
// when they are nil, its Stdout and Stderr (kept, for Output).
type Local struct {
	Command func(id int, incarnation uint32) *exec.Cmd
	// OnExit, if set, is called (from another goroutine) when a worker
	// process ends; killed says Local killed it.
	OnExit func(id int, incarnation uint32, err error, killed bool)

	mu    sync.Mutex
	procs map[int]*proc
	kills int
}

type proc struct {
	killed atomic.Bool
	cmd    *exec.Cmd
	inc    uint32
	out    *syncBuffer
	done   chan struct{}
	err    error
}

// syncBuffer is a bytes.Buffer safe for a process's writes and our reads.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// Start starts worker id as the incarnation after its last (1 for the
// first). It fails if the worker is running.
func (l *Local) Start(id int) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.procs == nil {
		l.procs = map[int]*proc{}
	}
	inc := uint32(1)
	if p := l.procs[id]; p != nil {
		select {
		case <-p.done:
		default:
			return fmt.Errorf("cluster: worker %d is running (pid %d)", id, p.cmd.Process.Pid)
		}
		inc = p.inc + 1
	}
	cmd := l.Command(id, inc)
	out := &syncBuffer{}
	if cmd.Stdout == nil {
		cmd.Stdout = out
	}
	if cmd.Stderr == nil {
		cmd.Stderr = out
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("cluster: starting worker %d: %w", id, err)
	}
	p := &proc{cmd: cmd, inc: inc, out: out, done: make(chan struct{})}
	l.procs[id] = p
	onExit := l.OnExit
	go func() {
		p.err = cmd.Wait()
		close(p.done)
		if onExit != nil {
			onExit(id, inc, p.err, p.killed.Load())
		}
	}()
	return nil
}

// Kill kills worker id's process with SIGKILL and waits for it to end.
func (l *Local) Kill(id int) error {
	l.mu.Lock()
	p := l.procs[id]
	if p != nil {
		l.kills++
	}
	l.mu.Unlock()
	if p == nil {
		return fmt.Errorf("cluster: worker %d was never started", id)
	}
	p.killed.Store(true)
	if err := p.cmd.Process.Signal(syscall.SIGKILL); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return fmt.Errorf("cluster: killing worker %d: %w", id, err)
	}
	<-p.done
	return nil
}

// Kills returns how many kills Local has carried out.
func (l *Local) Kills() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.kills
}

// Wait waits up to timeout for every worker to end, then kills the rest.
// It returns each worker's exit error (nil for a clean exit; killed
// processes report theirs) keyed by ID.
func (l *Local) Wait(timeout time.Duration) map[int]error {
	l.mu.Lock()
	procs := make(map[int]*proc, len(l.procs))
	for id, p := range l.procs {
		procs[id] = p
	}
	l.mu.Unlock()
	deadline := time.After(timeout)
	errs := map[int]error{}
	for id, p := range procs {
		select {
		case <-p.done:
		case <-deadline:
			deadline = closedTimer()
			p.killed.Store(true)
			p.cmd.Process.Signal(syscall.SIGKILL)
			<-p.done
		}
		errs[id] = p.err
	}
	return errs
}

func closedTimer() <-chan time.Time {
	c := make(chan time.Time)
	close(c)
	return c
}

// Output returns what worker id's current process has written, if Local
// kept it.
func (l *Local) Output(id int) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	if p := l.procs[id]; p != nil {
		return p.out.String()
	}
	return ""
}

// Running reports whether worker id's process is running.
func (l *Local) Running(id int) bool {
	l.mu.Lock()
	p := l.procs[id]
	l.mu.Unlock()
	if p == nil {
		return false
	}
	select {
	case <-p.done:
		return false
	default:
		return true
	}
}

// Incarnation returns worker id's current incarnation (0: never started).
func (l *Local) Incarnation(id int) uint32 {
	l.mu.Lock()
	defer l.mu.Unlock()
	if p := l.procs[id]; p != nil {
		return p.inc
	}
	return 0
}
