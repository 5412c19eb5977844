package algotest_test

import (
	"math/rand/v2"
	"os"
	"os/exec"
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

// TestCheckCatchesBrokenAlgorithms runs Check on deliberately broken
// workloads in a child process and requires it to fail, naming the fault.
func TestCheckCatchesBrokenAlgorithms(t *testing.T) {
	if name := os.Getenv("ALGOTEST_BROKEN"); name != "" {
		q := &algotest.Quadratic{X: algotest.Dyadic(rand.New(rand.NewPCG(1, 1)), 40, 3)}
		switch name {
		case "leaky":
			algotest.Check(t, leaky{q}, algotest.Options{})
		case "lossy":
			algotest.Check(t, lossy{q}, algotest.Options{})
		}
		return
	}
	for name, want := range map[string]string{
		"leaky": "want *NonFiniteError",
		"lossy": "batch cut at random points",
	} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestCheckCatchesBrokenAlgorithms$")
		cmd.Env = append(os.Environ(), "ALGOTEST_BROKEN="+name)
		out, err := cmd.CombinedOutput()
		if err == nil {
			t.Errorf("Check passed the %s workload; want failure", name)
			continue
		}
		if !strings.Contains(string(out), want) {
			t.Errorf("Check on %s failed without %q:\n%s", name, want, out)
		}
	}
}
