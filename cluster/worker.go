package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/syncmodels/syncmodels/algorithms"
	"github.com/syncmodels/syncmodels/harness"
	"github.com/syncmodels/syncmodels/transport"
	"github.com/syncmodels/syncmodels/transport/grpcnet"
	"github.com/syncmodels/syncmodels/workload"
)

// Worker runs one worker process of a job: it fetches the job from the
// coordinator, builds the workload and loads the data itself, checks its
// shard against the coordinator's hash, and runs harness.RunWorker over a
// gRPC stream that it reopens when the connection breaks.
type Worker struct {
	// Target is the coordinator's address ("host:port").
	Target string
	// ID is the worker's ID, Incarnation its first incarnation (default
	// 1; a restarted process passes the next one).
	ID          int
	Incarnation uint32
	// Net configures the connection: TLS or Plaintext, Token. Its Layout
	// is set from the job.
	Net grpcnet.Config
	// Registry builds the workload; default the built-in one.
	Registry *workload.Registry
	// Wait bounds how long the worker tries to reach the coordinator at
	// the start, and Reconnect how long it tries to reopen a broken
	// stream. Defaults 1 minute and 5 s.
	Wait, Reconnect time.Duration
	// OnRun, if set, is called after each run the worker took part in,
	// with the run's job and what the worker did (as Run returns it), as
	// soon as the run ends rather than after the last.
	OnRun func(job *Job, r *harness.WorkerResult)
}

// FetchJob fetches the job from the coordinator at target, retrying
// until it answers with a run numbered at least from, or wait has passed.
func FetchJob(ctx context.Context, target string, cfg grpcnet.Config, from int, wait time.Duration) (*Job, error) {
	cfg.Layout = algorithms.Layout{Params: 1, Delta: 1, Block: 1} // a fetch carries no message
	cli, err := grpcnet.Dial(target, cfg)
	if err != nil {
		return nil, err
	}
	defer cli.Close()
	deadline := time.Now().Add(wait)
	for {
		b, err := cli.Job(ctx)
		if err == nil {
			j := &Job{}
			if err := json.Unmarshal(b, j); err != nil {
				return nil, fmt.Errorf("cluster: the job from %s: %w", target, err)
			}
			if j.Run >= from {
				return j, nil
			}
			err = fmt.Errorf("the coordinator still serves run %d; waiting for run %d", j.Run, from)
		}
		if ctx.Err() != nil || time.Now().After(deadline) || !retryable(err) {
			return nil, fmt.Errorf("cluster: fetching the job from %s: %w", target, err)
		}
		if err := sleepCtx(ctx, 50*time.Millisecond); err != nil {
			return nil, err
		}
	}
}

// Run runs the worker in each of the coordinator's runs, until the last
// ends, and returns what it did in each.
func (w *Worker) Run(ctx context.Context) ([]*harness.WorkerResult, error) {
	if w.Wait == 0 {
		w.Wait = time.Minute
	}
	if w.Reconnect == 0 {
		w.Reconnect = 5 * time.Second
	}
	var out []*harness.WorkerResult
	for run := 0; ; run++ {
		job, err := FetchJob(ctx, w.Target, w.Net, run, w.Wait)
		if err != nil {
			return out, err
		}
		run = job.Run
		res, err := w.runJob(ctx, job)
		if res != nil {
			out = append(out, res)
			if w.OnRun != nil {
				w.OnRun(job, res)
			}
		}
		if err != nil {
			return out, fmt.Errorf("cluster: worker %d, run %d (%s): %w", w.ID, job.Run, job.Name, err)
		}
		if job.Run+1 >= job.Runs {
			return out, nil
		}
	}
}

func (w *Worker) runJob(ctx context.Context, job *Job) (*harness.WorkerResult, error) {
	reg := w.Registry
	if reg == nil {
		reg = workload.NewRegistry()
	}
	alg, data, err := reg.Open(job.Workload)
	if err != nil {
		return nil, fmt.Errorf("the job's workload: %w", err)
	}
	if err := job.CheckShard(alg, data, w.ID); err != nil {
		return nil, err
	}
	e, err := job.Experiment(alg)
	if err != nil {
		return nil, err
	}
	cfg := w.Net
	cfg.Layout = alg.Layout()
	cli, err := grpcnet.Dial(w.Target, cfg)
	if err != nil {
		return nil, err
	}
	defer cli.Close()
	ep, err := openEndpoint(ctx, cli, transport.NodeID(w.ID), w.Wait, w.Reconnect)
	if err != nil {
		return nil, err
	}
	defer ep.Close()
	return harness.RunWorker(ctx, e, ep, harness.WorkerOptions{ID: w.ID, Incarnation: w.Incarnation})
}

// retryable reports whether a failed fetch or open may succeed later: the
// coordinator is not up yet, is busy, or has not released the stream of
// this worker's previous process.
func retryable(err error) bool {
	return !errors.Is(err, grpcnet.ErrConfig) && !isAuth(err) && !isTLS(err)
}

// isTLS reports whether err is a handshake that failed on a certificate
// or a protocol mismatch, which retrying cannot mend: the coordinator's
// certificate does not name the address dialled, or comes from another
// job's CA, or one side runs plaintext. gRPC reports these as
// Unavailable, like a coordinator that is not up yet, so the cause is
// read from the message.
func isTLS(err error) bool {
	s := err.Error()
	for _, k := range []string{"x509:", "tls:", "certificate", "first record does not look like a TLS handshake", "plaintext"} {
		if strings.Contains(s, k) {
			return true
		}
	}
	return false
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// redial is a worker endpoint that reopens its stream when the
// connection breaks, for up to its window: the messages lost meanwhile
// are the protocol's to recover (retransmitted commits, heartbeats, and a
// rejoin if the lease ran out).
//
// After a Stop has passed through it, a broken stream is the end of the
// run (the coordinator closed it): the endpoint closes instead.
type redial struct {
	cli    *grpcnet.Client
	id     transport.NodeID
	window time.Duration

	mu      sync.Mutex
	ep      transport.Endpoint
	closed  bool
	stopped atomic.Bool
	// gen is the highest coordinator generation the worker has talked
	// to: a stream from an older coordinator (one that should be dead,
	// its journal resumed by a newer one) is refused, and nothing it
	// sends is used.
	gen uint64
}

// errOldGeneration reports a stream from an older coordinator than one
// the worker has talked to.
var errOldGeneration = errors.New("cluster: a coordinator of an older generation")

// openEndpoint opens id's stream, trying for up to wait; later breaks are
// repaired for up to reconnect each.
func openEndpoint(ctx context.Context, cli *grpcnet.Client, id transport.NodeID, wait, reconnect time.Duration) (*redial, error) {
	r := &redial{cli: cli, id: id, window: wait}
	if _, err := r.current(ctx, nil); err != nil {
		return nil, err
	}
	r.mu.Lock()
	r.window = reconnect
	r.mu.Unlock()
	return r, nil
}

func (r *redial) ID() transport.NodeID { return r.id }

// current returns the open endpoint, reopening it if it is broken (it is
// the one that failed, failed), trying for up to the window.
func (r *redial) current(ctx context.Context, failed transport.Endpoint) (transport.Endpoint, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return nil, fmt.Errorf("cluster: worker %d: %w", r.id, transport.ErrClosed)
	}
	if r.ep != nil && r.ep != failed {
		return r.ep, nil
	}
	if r.ep != nil {
		r.ep.Close()
		r.ep = nil
	}
	if r.stopped.Load() {
		r.closed = true
		return nil, fmt.Errorf("cluster: worker %d: the coordinator ended the run: %w", r.id, transport.ErrClosed)
	}
	deadline := time.Now().Add(r.window)
	for {
		ep, err := r.cli.Open(r.id)
		if err == nil {
			g := uint64(0)
			if ge, ok := ep.(interface{ Generation() uint64 }); ok {
				g = ge.Generation()
			}
			if g >= r.gen {
				r.gen, r.ep = g, ep
				return ep, nil
			}
			ep.Close()
			err = fmt.Errorf("%w: generation %d answered; generation %d was seen", errOldGeneration, g, r.gen)
		}
		if ctx.Err() != nil || time.Now().After(deadline) || !retryable(err) {
			return nil, fmt.Errorf("cluster: worker %d: reopening its stream: %w: %w", r.id, err, transport.ErrClosed)
		}
		r.mu.Unlock()
		err = sleepCtx(ctx, 50*time.Millisecond)
		r.mu.Lock()
		if err != nil {
			return nil, err
		}
		if r.closed {
			return nil, fmt.Errorf("cluster: worker %d: %w", r.id, transport.ErrClosed)
		}
		if r.ep != nil {
			return r.ep, nil // another caller reopened it meanwhile
		}
	}
}

// broken reports whether err means the stream is gone (not a refused
// message or the caller's context).
func broken(ctx context.Context, err error) bool {
	return err != nil && ctx.Err() == nil && errors.Is(err, transport.ErrClosed)
}

func (r *redial) Send(ctx context.Context, m *transport.Message) error {
	ep, err := r.current(ctx, nil)
	if err != nil {
		return err
	}
	err = ep.Send(ctx, m)
	if !broken(ctx, err) {
		return err
	}
	if ep, err = r.current(ctx, ep); err != nil {
		return err
	}
	return ep.Send(ctx, m)
}

func (r *redial) Recv(ctx context.Context) (*transport.Message, error) {
	for {
		ep, err := r.current(ctx, nil)
		if err != nil {
			return nil, err
		}
		m, err := ep.Recv(ctx)
		if !broken(ctx, err) {
			if m != nil && m.Kind == transport.Stop {
				r.stopped.Store(true)
			}
			return m, err
		}
		if _, err := r.current(ctx, ep); err != nil {
			return nil, err
		}
	}
}

func (r *redial) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.closed = true
	if r.ep != nil {
		return r.ep.Close()
	}
	return nil
}
