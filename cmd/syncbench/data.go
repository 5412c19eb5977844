package main

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"

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

// sizes of the synthetic data sets; n and dim override them when > 0.
type synthSize struct{ n, dim int }

// loadData parses a -data spec: KIND:PATH for files, synthetic:NAME for the
// seeded generators.
func loadData(spec string, size synthSize, seed uint64) (*data, error) {
	kind, arg, ok := strings.Cut(spec, ":")
	if !ok || arg == "" {
		return nil, fmt.Errorf("-data %q: want KIND:ARG with KIND idx, libsvm, csv, movielens or synthetic", spec)
	}
	d := &data{spec: spec}
	var err error
	switch kind {
	case "idx":
		d.dense, err = loadIDX(arg)
	case "libsvm":
		d.sparse, err = dataset.ReadLIBSVM(arg, dataset.LIBSVMOptions{})
	case "csv":
		d.dense, err = dataset.ReadCSV(arg, dataset.CSVOptions{})
	case "movielens":
		d.ratings, err = dataset.ReadMovieLens(arg)
	case "synthetic":
		err = synthetic(d, arg, size, rand.New(rand.NewPCG(seed, 0xda7a)))
	default:
		return nil, fmt.Errorf("-data %q: unknown kind %q (want idx, libsvm, csv, movielens or synthetic)", spec, kind)
	}
	if err != nil {
		return nil, err
	}
	return d, nil
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

func or(v, def int) int {
	if v > 0 {
		return v
	}
	return def
}

func synthetic(d *data, name string, size synthSize, rng *rand.Rand) error {
	switch name {
	case "blobs":
		d.dense = dataset.Blobs(rng, or(size.n, 20000), or(size.dim, 32), 10, 1.5)
	case "logistic":
		d.dense, _ = dataset.Logistic(rng, or(size.n, 50000), or(size.dim, 100))
	case "sparse-logistic":
		d.sparse, _ = dataset.SparseLogistic(rng, or(size.n, 50000), or(size.dim, 1<<17), 40)
	case "ratings":
		d.ratings = dataset.LowRankRatings(rng, 2000, 4000, 10, or(size.n, 400000), 1)
	case "nonneg":
		d.dense = dataset.NonNegLowRank(rng, or(size.n, 5000), or(size.dim, 100), 10, 0.01)
	default:
		return fmt.Errorf("-data synthetic:%s: unknown generator (want blobs, logistic, sparse-logistic, ratings or nonneg)", name)
	}
	return nil
}
