package algotest_test

import (
	"math/rand/v2"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/syncmodels/syncmodels/algorithms"
	"github.com/syncmodels/syncmodels/algorithms/algotest"
)

// leaky wraps Quadratic with a server that skips validation: it applies NaN.
type leaky struct{ *algotest.Quadratic }

type leakyServer struct{ algorithms.Server }

func (l leaky) NewServer(theta0 []float64) (algorithms.Server, error) {
	s, err := l.Quadratic.NewServer(theta0)
	return leakyServer{s}, err
}

func (s leakyServer) Apply(d *algorithms.Delta) error {
	if d == nil || len(d.Vec) != len(s.Params()) {
		return algorithms.ErrLayout
	}
	for j, g := range d.Vec {
		s.Params()[j] -= g / float64(max(d.Count, 1))
	}
	return nil
}

// lossy wraps Quadratic with a worker that drops every other point.
type lossy struct{ *algotest.Quadratic }

type lossyWorker struct{ algorithms.Worker }

func (l lossy) NewWorker(p []int) (algorithms.Worker, error) {
	w, err := l.Quadratic.NewWorker(p)
	return lossyWorker{w}, err
}

func (w lossyWorker) Process(lo, hi int, d *algorithms.Delta) {
	for i := lo; i < hi; i += 2 {
		w.Worker.Process(i, i+1, d)
	}
	d.Count += (hi - lo) / 2
}

// rollbacky wraps Quadratic with a server or workers whose Checkpointer is
// broken as fault says:
//   - shallow: the server's Checkpoint keeps θ itself, not a copy;
//   - aliasing: the server's Restore adopts the checkpoint's θ, so the next
//     Apply changes the checkpoint;
//   - lax: the workers' Restore accepts any checkpoint (and does nothing);
//   - hidden: the server does not implement algorithms.Checkpointer.
type rollbacky struct {
	*algotest.Quadratic
	fault string
}

func (r rollbacky) NewServer(theta0 []float64) (algorithms.Server, error) {
	switch r.fault {
	case "shallow", "aliasing":
		if err := algorithms.CheckParams(r.Layout(), theta0); err != nil {
			return nil, err
		}
		return &brokenServer{l: r.Layout(), theta: slices.Clone(theta0), fault: r.fault}, nil
	case "hidden":
		s, err := r.Quadratic.NewServer(theta0)
		return struct{ algorithms.Server }{s}, err
	}
	return r.Quadratic.NewServer(theta0)
}

func (r rollbacky) NewWorker(p []int) (algorithms.Worker, error) {
	w, err := r.Quadratic.NewWorker(p)
	if r.fault == "lax" {
		return laxWorker{w}, err
	}
	return w, err
}

// brokenServer is Quadratic's server with learning rate 1 and a broken
// Checkpointer.
type brokenServer struct {
	l     algorithms.Layout
	theta []float64
	steps int
	fault string
}

type brokenState struct {
	theta []float64
	steps int
}

func (s *brokenServer) Params() []float64 { return s.theta }
func (s *brokenServer) Steps() int        { return s.steps }
func (s *brokenServer) Apply(d *algorithms.Delta) error {
	if err := algorithms.CheckApply(s.l, d); err != nil || d.Count == 0 {
		return err
	}
	for j, g := range d.Vec {
		s.theta[j] -= g / float64(d.Count)
	}
	s.steps++
	return nil
}

func (s *brokenServer) Checkpoint() algorithms.Checkpoint {
	st := &brokenState{theta: slices.Clone(s.theta), steps: s.steps}
	if s.fault == "shallow" {
		st.theta = s.theta
	}
	return algorithms.NewCheckpoint("broken server", st)
}

func (s *brokenServer) Restore(c algorithms.Checkpoint) error {
	st, err := algorithms.CheckpointState[*brokenState](c, "broken server")
	if err != nil {
		return err
	}
	if s.fault == "aliasing" {
		s.theta = st.theta
	} else {
		copy(s.theta, st.theta)
	}
	s.steps = st.steps
	return nil
}

type laxWorker struct{ algorithms.Worker }

func (w laxWorker) Checkpoint() algorithms.Checkpoint {
	return w.Worker.(algorithms.Checkpointer).Checkpoint()
}
func (w laxWorker) Restore(algorithms.Checkpoint) error { return nil }

// TestCheckCatchesBrokenAlgorithms runs Check on deliberately broken
// workloads in child processes and requires it to fail, naming the fault.
func TestCheckCatchesBrokenAlgorithms(t *testing.T) {
	if name := os.Getenv("ALGOTEST_BROKEN"); name != "" {
		q := &algotest.Quadratic{X: algotest.Dyadic(rand.New(rand.NewPCG(1, 1)), 40, 3)}
		switch name {
		case "leaky":
			algotest.Check(t, leaky{q}, algotest.Options{})
		case "lossy":
			algotest.Check(t, lossy{q}, algotest.Options{})
		default:
			algotest.Check(t, rollbacky{q, name}, algotest.Options{RequireCheckpointer: true})
		}
		return
	}
	for _, c := range []struct{ name, want string }{
		{"leaky", "want *NonFiniteError"},
		{"lossy", "batch cut at random points"},
		{"shallow", "after Restore: server Restore gave θ"},
		{"aliasing", "after a second Restore and refused ones: server Restore gave θ"},
		{"lax", "worker Restore(checkpoint of nothing (the zero Checkpoint)) = <nil>; want ErrLayout"},
		{"hidden", "does not implement algorithms.Checkpointer"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			cmd := exec.Command(os.Args[0], "-test.run=^TestCheckCatchesBrokenAlgorithms$")
			cmd.Env = append(os.Environ(), "ALGOTEST_BROKEN="+c.name)
			out, err := cmd.CombinedOutput()
			if err == nil {
				t.Fatalf("Check passed the %s workload; want failure", c.name)
			}
			if !strings.Contains(string(out), c.want) {
				t.Errorf("Check on %s failed without %q:\n%s", c.name, c.want, out)
			}
		})
	}
}
