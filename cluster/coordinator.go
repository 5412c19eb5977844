package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"

	"github.com/syncmodels/syncmodels/algorithms"
	"github.com/syncmodels/syncmodels/harness"
	"github.com/syncmodels/syncmodels/transport"
	"github.com/syncmodels/syncmodels/transport/grpcnet"
)

// Coordinator runs a job's coordinator: the sync-model core, the server
// and the checker, with its workers in other processes that reach it over
// gRPC (transport/grpcnet).
type Coordinator struct {
	// Experiment is the run, as the coordinator sees it (its Theta0,
	// Progress, Network are its own); Remote, Clock and Network are set
	// by Run.
	Experiment harness.Experiment
	// Job describes Experiment to the workers (NewJob); they fetch it
	// when they connect.
	Job *Job
	// Net configures the gRPC server: TLS or Plaintext, Token, Logger,
	// limits. Its Layout and Job are set from the job.
	Net grpcnet.Config
}

// Report is what a coordinator's run produced.
type Report struct {
	*harness.Result
	// Refused counts what the gRPC server refused before it reached the
	// coordinator: handshakes, tokens, identities, malformed frames.
	Refused grpcnet.Rejections
}

// Run serves the job on lis until the run ends (Job.Duration after every
// worker has joined, or Job.JoinTimeout without them) and returns its
// report; consistency.Check has passed on the coordinator's trace.
func (c *Coordinator) Run(ctx context.Context, lis net.Listener) (*Report, error) {
	e := c.Experiment
	e.Remote, e.Clock = true, harness.Real
	if e.Algorithm == nil || c.Job == nil || e.Algorithm.Layout() != c.Job.Layout {
		lis.Close()
		return nil, fmt.Errorf("cluster: the coordinator's experiment and job do not match (no algorithm, no job, or another layout): %w", ErrConfig)
	}
	desc, err := json.Marshal(c.Job)
	if err != nil {
		lis.Close()
		return nil, fmt.Errorf("cluster: job: %w", err)
	}
	cfg := c.Net
	cfg.Layout, cfg.Job, cfg.Generation = e.Algorithm.Layout(), desc, 1
	if e.Journal != "" {
		// A coordinator resuming from its journal is the next generation:
		// its workers refuse streams from an older one.
		if cfg.Generation, err = harness.JournalGeneration(e.Journal); err != nil {
			lis.Close()
			return nil, err
		}
	}
	srv, err := grpcnet.NewServer(cfg)
	if err != nil {
		lis.Close()
		return nil, err
	}
	// A server that stops serving (a refused listener, say) ends the run
	// at once, with its error, rather than after JoinTimeout.
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	served := make(chan error, 1)
	go func() {
		err := srv.Serve(lis)
		if err != nil {
			cancel(fmt.Errorf("cluster: serve %v: %w", lis.Addr(), err))
		}
		served <- err
	}()
	e.Network = func(algorithms.Layout) (transport.Transport, error) { return srv, nil }
	res, runErr := harness.Run(ctx, e)
	srv.Close() // harness closed it already; Close is idempotent
	if err := <-served; err != nil && (runErr == nil || errors.Is(runErr, context.Canceled)) {
		runErr = fmt.Errorf("cluster: serve %v: %w", lis.Addr(), err)
	}
	if refused := srv.Rejected(); runErr != nil && refused.Total() > 0 {
		// Workers that never joined may have been refused at the door.
		b, _ := json.Marshal(refused)
		runErr = fmt.Errorf("%w (the server refused %d streams or fetches: %s)", runErr, refused.Total(), b)
	}
	if res == nil {
		return nil, runErr
	}
	return &Report{Result: res, Refused: srv.Rejected()}, runErr
}
