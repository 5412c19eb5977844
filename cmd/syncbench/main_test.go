package main

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/syncmodels/syncmodels/dataset"
)

// longEnv opts in to the long checks, tests named TestLong…: the default
// compare scenario and the -quick FSP report with every algorithm run
// twice, and the Fashion-MNIST reference. .ci/run runs them as a step of
// their own.
const longEnv = "SYNCMODELS_LONG"

// long skips t unless $SYNCMODELS_LONG is 1.
func long(t *testing.T) {
	t.Helper()
	if os.Getenv(longEnv) != "1" {
		t.Skipf("a long check: run with %s=1 (.ci/run runs it in a step of its own)", longEnv)
	}
}

func runCmd(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var o, e bytes.Buffer
	code = run(args, &o, &e)
	return code, o.String(), e.String()
}

func TestTrainJSONIsReproducible(t *testing.T) {
	args := []string{"train", "-algo", "kmeans", "-n", "2000", "-dim", "8", "-k", "5", "-iters", "6", "-workers", "3", "-seed", "7", "-json"}
	code, out, errs := runCmd(t, args...)
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	var a trainJSON
	if err := json.Unmarshal([]byte(out), &a); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, out)
	}
	if a.Algo != "kmeans" || a.Iterations != 6 || len(a.Objectives) != 6 || a.Points != 2000 || a.Dim != 8 {
		t.Errorf("summary %+v; want kmeans, 6 iterations, 6 objectives, 2000×8", a)
	}
	if a.Objective != a.Objectives[5] || !(a.Objective <= a.InitialObjective) || a.Seconds <= 0 {
		t.Errorf("objective %v, objectives %v, initial %v, seconds %v", a.Objective, a.Objectives, a.InitialObjective, a.Seconds)
	}
	for i := 1; i < len(a.Objectives); i++ {
		if a.Objectives[i] > a.Objectives[i-1]*(1+1e-12) {
			t.Errorf("K-means inertia rose at iteration %d: %v", i+1, a.Objectives)
		}
	}
	_, out2, _ := runCmd(t, args...)
	var b trainJSON
	if err := json.Unmarshal([]byte(out2), &b); err != nil {
		t.Fatal(err)
	}
	if a.Objective != b.Objective || len(a.Objectives) != len(b.Objectives) {
		t.Errorf("same seed, different results: %v vs %v", a.Objectives, b.Objectives)
	}
	for i := range a.Objectives {
		if a.Objectives[i] != b.Objectives[i] {
			t.Errorf("same seed, objective %d differs: %v vs %v", i, a.Objectives[i], b.Objectives[i])
		}
	}
}

func TestTrainHumanSummary(t *testing.T) {
	code, out, errs := runCmd(t, "train", "-n", "500", "-iters", "2")
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	for _, want := range []string{"kmeans on synthetic:blobs (500×32 dense)", "final objective", "after 2 iterations"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestTrainErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"train", "-algo", "svm"}, 2, `-algo "svm"`},
		{[]string{"train", "-k", "0"}, 2, "-k 0"},
		{[]string{"train", "-init", "middle"}, 2, `-init "middle"`},
		{[]string{"train", "-optimizer", "lbfgs"}, 2, `-optimizer "lbfgs"`},
		{[]string{"train", "-lr", "-1"}, 2, "-lr -1"},
		{[]string{"train", "-eval-every", "0"}, 2, "-eval-every 0"},
		{[]string{"train", "-nosuchflag"}, 2, "flag provided but not defined"},
		{[]string{"train", "extra"}, 2, `unexpected argument "extra"`},
		{[]string{"train", "-data", "nope"}, 1, `-data "nope"`},
		{[]string{"train", "-data", "synthetic:cubes"}, 1, "synthetic:cubes"},
		{[]string{"train", "-data", "csv:/does/not/exist.csv"}, 1, "/does/not/exist.csv"},
		{[]string{"train", "-algo", "pmf", "-data", "synthetic:blobs", "-n", "100"}, 1, "needs"},
		{[]string{"train", "-algo", "lr", "-data", "synthetic:blobs", "-n", "100"}, 1, "label"},
		{[]string{"train", "-k", "50", "-n", "20"}, 1, "kmeans"},
	} {
		code, _, errs := runCmd(t, tc.args...)
		if code != tc.code || !strings.Contains(errs, tc.want) || strings.Count(strings.TrimSpace(errs), "\n") > 0 && tc.code == 1 {
			t.Errorf("syncbench %v: exit %d, stderr %q; want exit %d and one line mentioning %q", tc.args, code, errs, tc.code, tc.want)
		}
	}
}

// TestLongTrainFashionMatchesScikitLearn runs the command end to end on
// Fashion-MNIST and compares with the scikit-learn Lloyd inertia stored in
// testdata/sklearn/kmeans_fashion.json (made by testdata/sklearn/make_refs.py).
// A long check (SYNCMODELS_LONG=1): loading the 60,000 images takes most
// of its 15 s under -race.
func TestLongTrainFashionMatchesScikitLearn(t *testing.T) {
	long(t)
	if _, err := os.Stat(dataset.FashionMNISTDir); err != nil {
		t.Skipf("Fashion-MNIST not installed (apt-get install dataset-fashion-mnist): %v", err)
	}
	raw, err := os.ReadFile("../../testdata/sklearn/kmeans_fashion.json")
	if err != nil {
		t.Fatal(err)
	}
	var ref struct {
		Runs []struct {
			MaxIter int     `json:"max_iter"`
			Inertia float64 `json:"inertia"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(raw, &ref); err != nil {
		t.Fatal(err)
	}
	code, out, errs := runCmd(t, "train", "-algo", "kmeans", "-data", "idx:"+dataset.FashionMNISTDir,
		"-k", "10", "-init", "first", "-iters", "20", "-workers", "2", "-json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var got trainJSON
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	if got.Points != 60000 || got.Dim != 784 || len(got.Objectives) != 20 {
		t.Fatalf("ran on %d×%d with %d objectives; want 60000×784, 20", got.Points, got.Dim, len(got.Objectives))
	}
	for _, r := range ref.Runs {
		g := got.Objectives[r.MaxIter-1]
		if rel := math.Abs(g-r.Inertia) / r.Inertia; rel > 1e-9 {
			t.Errorf("inertia after %d iterations = %.17g; scikit-learn %.17g (rel %.2g)", r.MaxIter, g, r.Inertia, rel)
		}
	}
}

// TestMain runs syncbench's main when mainEnv is set: compare -clock grpc
// starts its worker processes from os.Executable, which in tests is this
// test binary.
func TestMain(m *testing.M) {
	if os.Getenv(mainEnv) != "" {
		os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}
