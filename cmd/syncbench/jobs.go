package main

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"sync"

	"golang.org/x/sync/errgroup"
)

// runParallel runs run for every job, GOMAXPROCS at a time; the first
// error cancels the context of the others and is returned. Jobs write
// their results to slots of their own: nothing is shared but progress.
func runParallel[J any](ctx context.Context, jobs []J, run func(ctx context.Context, j J) error) error {
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(runtime.GOMAXPROCS(0))
	for _, j := range jobs {
		g.Go(func() error { return run(gctx, j) })
	}
	return g.Wait()
}

// progress prints a command's progress lines, "PREFIX: [done/total] …",
// one per finished job, from concurrent jobs. A nil writer prints
// nothing.
type progress struct {
	w      io.Writer
	prefix string
	total  int
	mu     sync.Mutex
	done   int
}

// step counts a finished job and prints its line.
func (p *progress) step(format string, args ...any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done++
	if p.w != nil {
		fmt.Fprintf(p.w, "%s: [%d/%d] %s\n", p.prefix, p.done, p.total, fmt.Sprintf(format, args...))
	}
}
