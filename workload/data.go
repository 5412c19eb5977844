package workload

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/syncmodels/syncmodels/dataset"
)

// Data is a loaded data set: exactly one of Dense, Sparse and Ratings is
// set. Its data points are the rows of Dense or Sparse, or the ratings.
type Data struct {
	// Source names the data in messages: the data spec it was loaded
	// from ("synthetic:blobs"), or a description.
	Source  string
	Dense   *dataset.Dense
	Sparse  *dataset.Sparse
	Ratings *dataset.Ratings
}

// Shape returns the number of data points and their dimension: for
// ratings, the number of ratings and users + items.
func (d *Data) Shape() (n, dim int) {
	switch {
	case d.Dense != nil:
		return d.Dense.N, d.Dense.D
	case d.Sparse != nil:
		return d.Sparse.N, d.Sparse.D
	case d.Ratings != nil:
		return d.Ratings.Len(), d.Ratings.NumUsers + d.Ratings.NumItems
	}
	return 0, 0
}

// String describes d: its source and shape, as
// "synthetic:blobs (20000×32 dense)".
func (d *Data) String() string {
	switch {
	case d.Dense != nil:
		return fmt.Sprintf("%s (%d×%d dense)", d.Source, d.Dense.N, d.Dense.D)
	case d.Sparse != nil:
		return fmt.Sprintf("%s (%d×%d sparse, %d nonzeros)", d.Source, d.Sparse.N, d.Sparse.D, d.Sparse.NNZ())
	case d.Ratings != nil:
		return fmt.Sprintf("%s (%d users × %d items, %d ratings)", d.Source, d.Ratings.NumUsers, d.Ratings.NumItems, d.Ratings.Len())
	}
	return d.Source + " (no data)"
}

// Generator is a synthetic data set and its default size: N points (ratings
// for ratings) of dimension Dim (0 for ratings, which has 2000 users and
// 4000 items whatever Spec.Dim says).
type Generator struct {
	Name   string
	N, Dim int
}

var generators = []Generator{
	{"blobs", 20000, 32},
	{"logistic", 50000, 100},
	{"sparse-logistic", 50000, 1 << 17},
	{"ratings", 400000, 0},
	{"nonneg", 5000, 100},
}

// Generators returns the synthetic data sets, synthetic:NAME, with their
// default sizes:
//
//   - blobs: 10 Gaussian blobs of spread 1.5 (dataset.Blobs), dense.
//   - logistic: a logistic model's 0/1 labels (dataset.Logistic), dense.
//   - sparse-logistic: the same over 40 nonzeros per point, or every
//     column when Dim is smaller (dataset.SparseLogistic).
//   - ratings: rank-10 ratings of 2000 users × 4000 items
//     (dataset.LowRankRatings).
//   - nonneg: a rank-10 nonnegative matrix (dataset.NonNegLowRank), dense.
func Generators() []Generator { return slices.Clone(generators) }

// dataSeed is the PCG stream of synthetic data: rand.NewPCG(Spec.Seed,
// dataSeed).
const dataSeed = 0xda7a

// dataKinds lists the data kinds for errors.
const dataKinds = "idx, libsvm, libsvm0, csv, movielens or synthetic"

// Load loads the data s names, s.Data or, when it is empty, the
// algorithm's. It reads only Data, N, Dim and Seed (and Algo for the
// default data), and checks them: N and Dim ≥ 0, Data of the form
// KIND:ARG:
//
//   - idx:PATH: IDX images (Fashion-MNIST, MNIST), PATH a directory holding
//     their file names (the training set is read) or an images file, with
//     the labels of the matching labels-idx1 file beside it if there is one.
//   - libsvm:PATH, libsvm0:PATH: a LIBSVM file with 1-based or 0-based
//     indices, sparse.
//   - csv:PATH: numbers only, the label first.
//   - movielens:PATH: MovieLens ratings.
//   - synthetic:NAME: a seeded generator (Generators), sized by N and Dim,
//     drawn from rand.NewPCG(Seed, 0xda7a): the same Spec gives the same
//     data bit for bit on every machine.
//
// A data set without points is an error naming it. Errors are one line;
// those of the Spec match ErrConfig, a file's are the dataset package's
// (*dataset.ParseError, fs errors).
func Load(s Spec) (*Data, error) { return builtin.Load(s) }

// Load is the package Load with r's algorithms' default data.
func (r *Registry) Load(s Spec) (*Data, error) {
	s = r.WithDefaults(s)
	if s.N < 0 || s.Dim < 0 {
		return nil, specErrorf("-n %d -dim %d: want ≥ 0 (0 = the generator's size)", s.N, s.Dim)
	}
	if s.Data == "" {
		if _, ok := r.Lookup(s.Algo); !ok {
			return nil, specErrorf("-algo %q: want %s (or give -data)", s.Algo, orList(r.Names()))
		}
	}
	return loadData(s.Data, s.N, s.Dim, s.Seed)
}

func loadData(spec string, n, dim int, seed uint64) (*Data, error) {
	kind, arg, ok := strings.Cut(spec, ":")
	switch {
	case !ok && spec != "":
		return nil, specErrorf("-data %q: say what it holds, as KIND:PATH with KIND %s (e.g. -data csv:%s)", spec, dataKinds, spec)
	case !ok || arg == "":
		return nil, specErrorf("-data %q: want KIND:PATH or synthetic:NAME with KIND %s", spec, dataKinds)
	}
	d := &Data{Source: spec}
	var err error
	switch kind {
	case "idx":
		d.Dense, err = loadIDX(arg)
	case "libsvm", "libsvm0":
		d.Sparse, err = dataset.ReadLIBSVM(arg, dataset.LIBSVMOptions{ZeroBased: kind == "libsvm0"})
		err = libsvmHint(err, arg)
	case "csv":
		d.Dense, err = dataset.ReadCSV(arg, dataset.CSVOptions{})
		err = csvHint(err)
	case "movielens":
		d.Ratings, err = dataset.ReadMovieLens(arg)
	case "synthetic":
		err = synthetic(d, arg, n, dim, rand.New(rand.NewPCG(seed, dataSeed)))
	default:
		return nil, specErrorf("-data %q: unknown kind %q (want %s)", spec, kind, dataKinds)
	}
	if err != nil {
		return nil, err
	}
	if n, _ := d.Shape(); n == 0 {
		return nil, specErrorf("-data %s: %s holds no data points (an empty file?)", spec, arg)
	}
	return d, nil
}

// libsvmHint turns the parser's "index 0 in a 1-based file" into what a
// user can do about it: read the file as 0-based.
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
// is the likely cause: csv: reads numbers only.
func csvHint(err error) error {
	var pe *dataset.ParseError
	if errors.As(err, &pe) && pe.Line == 1 && pe.Msg == "not a number" {
		q := *pe
		q.Msg = "not a number (a header line? -data csv: reads numbers only: remove it)"
		return &q
	}
	return err
}

// loadIDX reads IDX images. path may be a directory holding the
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

func synthetic(d *Data, name string, n, dim int, rng *rand.Rand) error {
	i := slices.IndexFunc(generators, func(g Generator) bool { return g.Name == name })
	if i < 0 {
		var names []string
		for _, g := range generators {
			names = append(names, g.Name)
		}
		return specErrorf("-data synthetic:%s: unknown generator (want %s)", name, strings.Join(names, ", "))
	}
	g := generators[i]
	if n == 0 {
		n = g.N
	}
	if dim == 0 {
		dim = g.Dim
	}
	// values stored: n·dim dense, n·min(40, dim) sparse, n ratings of 2.
	values := float64(float64(n) * float64(dim))
	switch name {
	case "sparse-logistic":
		values = float64(float64(n) * float64(min(40, dim)))
	case "ratings":
		values = float64(2 * float64(n))
	}
	if values > MaxValues {
		return newSpecError(ErrTooLarge, "-n %d -dim %d: synthetic:%s that large (%.3g values) is more than %s generates (at most %d values)", n, dim, name, values, LimitOwner, MaxValues)
	}
	switch name {
	case "blobs":
		d.Dense = dataset.Blobs(rng, n, dim, 10, 1.5)
	case "logistic":
		d.Dense, _ = dataset.Logistic(rng, n, dim)
	case "sparse-logistic":
		// 40 nonzeros per point, or every column when dim is smaller.
		d.Sparse, _ = dataset.SparseLogistic(rng, n, dim, min(40, dim))
	case "ratings":
		d.Ratings = dataset.LowRankRatings(rng, 2000, 4000, 10, n, 1)
	case "nonneg":
		d.Dense = dataset.NonNegLowRank(rng, n, dim, 10, 0.01)
	}
	return nil
}

// LimitOwner is how an ErrTooLarge message names what refuses the
// workload ("… is more than package workload generates"); a program may
// replace it with its own name (syncbench does).
const LimitOwner = "package workload"
