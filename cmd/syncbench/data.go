package main

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/syncmodels/syncmodels/algorithms"
	"github.com/syncmodels/syncmodels/dataset"
)

// data is a loaded data set: exactly one of the fields is set.
type data struct {
	spec    string
	dense   *dataset.Dense
	sparse  *dataset.Sparse
	ratings *dataset.Ratings
}

func (d *data) describe() string {
	switch {
	case d.dense != nil:
		return fmt.Sprintf("%s (%d×%d dense)", d.spec, d.dense.N, d.dense.D)
	case d.sparse != nil:
		return fmt.Sprintf("%s (%d×%d sparse, %d nonzeros)", d.spec, d.sparse.N, d.sparse.D, d.sparse.NNZ())
	default:
		return fmt.Sprintf("%s (%d users × %d items, %d ratings)", d.spec, d.ratings.NumUsers, d.ratings.NumItems, d.ratings.Len())
	}
}

func (d *data) shape() (n, dim int) {
	switch {
	case d.dense != nil:
		return d.dense.N, d.dense.D
	case d.sparse != nil:
		return d.sparse.N, d.sparse.D
	default:
		return d.ratings.Len(), d.ratings.NumUsers + d.ratings.NumItems
	}
}

// pointBytes is the size of one data point on the wire, what data
// migration sends: 8 bytes per feature of a dense point, 12 (a 4-byte
// index and a value) per stored entry of a sparse one on average, 16 for
// a rating (user, item, value); plus 8 for a label where there is one.
func pointBytes(d *data) int {
	switch {
	case d.dense != nil:
		n := 8 * d.dense.D
		if d.dense.Labels != nil {
			n += 8
		}
		return n
	case d.sparse != nil:
		return 8 + 12*d.sparse.NNZ()/max(d.sparse.N, 1)
	default:
		return 16
	}
}

// synthetic names and the algorithm each one is the default data for.
var defaultData = map[string]string{
	"kmeans": "synthetic:blobs",
	"gmm":    "synthetic:blobs",
	"fcm":    "synthetic:blobs",
	"lr":     "synthetic:logistic",
	"pmf":    "synthetic:ratings",
	"nmf":    "synthetic:nonneg",
}

// generators are the synthetic data sets with their default sizes: n
// points (ratings for ratings) of dimension dim; -n and -dim override them
// when > 0. ratings has 2000 users and 4000 items whatever -dim says.
var generators = []generator{
	{"blobs", 20000, 32},
	{"logistic", 50000, 100},
	{"sparse-logistic", 50000, 1 << 17},
	{"ratings", 400000, 0},
	{"nonneg", 5000, 100},
}

type generator struct {
	name   string
	n, dim int
}

// maxValues bounds n·dim of synthetic data (8 GiB of float64s), so that a
// stray zero in -n fails with a message instead of the machine's memory.
const maxValues = 1 << 30

// generatorSizes describes the default sizes for the -n and -dim help.
func generatorSizes(dim bool) string {
	var parts []string
	for _, g := range generators {
		switch {
		case !dim:
			parts = append(parts, fmt.Sprintf("%s %d", g.name, g.n))
		case g.dim > 0:
			parts = append(parts, fmt.Sprintf("%s %d", g.name, g.dim))
		}
	}
	return strings.Join(parts, ", ")
}

// synthSize is the -n and -dim of synthetic data; 0 means the default.
type synthSize struct{ n, dim int }

// dataKinds lists loadData's kinds for errors.
const dataKinds = "idx, libsvm, libsvm0, csv, movielens or synthetic"

// loadData parses a -data spec: KIND:PATH for files, synthetic:NAME for the
// seeded generators. A data set without points is an error naming it.
func loadData(spec string, size synthSize, seed uint64) (*data, error) {
	kind, arg, ok := strings.Cut(spec, ":")
	switch {
	case !ok && spec != "":
		return nil, fmt.Errorf("-data %q: say what it holds, as KIND:PATH with KIND %s (e.g. -data csv:%s)", spec, dataKinds, spec)
	case !ok || arg == "":
		return nil, fmt.Errorf("-data %q: want KIND:PATH or synthetic:NAME with KIND %s", spec, dataKinds)
	}
	d := &data{spec: spec}
	var err error
	switch kind {
	case "idx":
		d.dense, err = loadIDX(arg)
	case "libsvm", "libsvm0":
		d.sparse, err = dataset.ReadLIBSVM(arg, dataset.LIBSVMOptions{ZeroBased: kind == "libsvm0"})
		err = libsvmHint(err, arg)
	case "csv":
		d.dense, err = dataset.ReadCSV(arg, dataset.CSVOptions{})
		err = csvHint(err)
	case "movielens":
		d.ratings, err = dataset.ReadMovieLens(arg)
	case "synthetic":
		err = synthetic(d, arg, size, rand.New(rand.NewPCG(seed, 0xda7a)))
	default:
		return nil, fmt.Errorf("-data %q: unknown kind %q (want %s)", spec, kind, dataKinds)
	}
	if err != nil {
		return nil, err
	}
	if n, _ := d.shape(); n == 0 {
		return nil, fmt.Errorf("-data %s: %s holds no data points (an empty file?)", spec, arg)
	}
	return d, nil
}

// libsvmHint turns the parser's "index 0 in a 1-based file" into what a
// user of the command can do about it: read the file as 0-based.
func libsvmHint(err error, path string) error {
	var pe *dataset.ParseError
	if errors.As(err, &pe) && strings.HasPrefix(pe.Msg, "index 0 in a 1-based file") {
		q := *pe
		q.Msg = "index 0, but -data libsvm: reads LIBSVM's 1-based indices; for a 0-based file use -data libsvm0:" + path
		return &q
	}
	return err
}

// csvHint adds to a non-number on line 1 of a CSV file that a header line
// is the likely cause: the command reads numbers only.
func csvHint(err error) error {
	var pe *dataset.ParseError
	if errors.As(err, &pe) && pe.Line == 1 && pe.Msg == "not a number" {
		q := *pe
		q.Msg = "not a number (a header line? -data csv: reads numbers only: remove it)"
		return &q
	}
	return err
}

// checkMemory refuses more workers than memory for their deltas: each
// holds at least one delta of the algorithm's layout.
func checkMemory(alg algorithms.Algorithm, workers int) error {
	if v := float64(workers) * float64(alg.Layout().Delta); v > maxValues {
		return fmt.Errorf("-workers %d: each holds a delta of %d values, %.3g in all, more than syncbench allocates (%d); want fewer workers", workers, alg.Layout().Delta, v, maxValues)
	}
	return nil
}

// checkWorkers refuses more workers than data points (each worker needs a
// shard), naming the data.
func checkWorkers(d *data, workers int) error {
	if n, _ := d.shape(); workers > n {
		return fmt.Errorf("-workers %d: %s has only %d data points; want at most %d workers", workers, d.spec, n, n)
	}
	return nil
}

// loadIDX reads IDX images. PATH may be a directory holding the
// Fashion-MNIST/MNIST file names (the training set is used) or an images
// file; labels are read from the matching labels file when it exists.
func loadIDX(path string) (*dataset.Dense, error) {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		train, _, err := dataset.FashionMNIST(path)
		return train, err
	}
	labels := ""
	base := filepath.Base(path)
	if strings.Contains(base, "images-idx3") {
		cand := filepath.Join(filepath.Dir(path), strings.Replace(base, "images-idx3", "labels-idx1", 1))
		if _, err := os.Stat(cand); err == nil {
			labels = cand
		}
	}
	return dataset.LoadIDX(path, labels)
}

func synthetic(d *data, name string, size synthSize, rng *rand.Rand) error {
	i := slices.IndexFunc(generators, func(g generator) bool { return g.name == name })
	if i < 0 {
		var names []string
		for _, g := range generators {
			names = append(names, g.name)
		}
		return fmt.Errorf("-data synthetic:%s: unknown generator (want %s)", name, strings.Join(names, ", "))
	}
	g := generators[i]
	n, dim := g.n, g.dim
	if size.n > 0 {
		n = size.n
	}
	if size.dim > 0 {
		dim = size.dim
	}
	// values stored: n·dim dense, n·min(40, dim) sparse, n ratings of 2.
	values := float64(n) * float64(dim)
	switch name {
	case "sparse-logistic":
		values = float64(n) * float64(min(40, dim))
	case "ratings":
		values = 2 * float64(n)
	}
	if values > maxValues {
		return fmt.Errorf("-n %d -dim %d: synthetic:%s that large (%.3g values) is more than syncbench generates (at most %d values)", n, dim, name, values, maxValues)
	}
	switch name {
	case "blobs":
		d.dense = dataset.Blobs(rng, n, dim, 10, 1.5)
	case "logistic":
		d.dense, _ = dataset.Logistic(rng, n, dim)
	case "sparse-logistic":
		// 40 nonzeros per point, or every column when -dim is smaller.
		d.sparse, _ = dataset.SparseLogistic(rng, n, dim, min(40, dim))
	case "ratings":
		d.ratings = dataset.LowRankRatings(rng, 2000, 4000, 10, n, 1)
	case "nonneg":
		d.dense = dataset.NonNegLowRank(rng, n, dim, 10, 0.01)
	}
	return nil
}
