package main

import (
	"fmt"
	"strings"

	"github.com/syncmodels/syncmodels/algorithms"
	"github.com/syncmodels/syncmodels/dataset"
	"github.com/syncmodels/syncmodels/workload"
)

// data is a loaded data set (a workload.Data): exactly one of the fields
// is set.
type data struct {
	spec    string
	dense   *dataset.Dense
	sparse  *dataset.Sparse
	ratings *dataset.Ratings
}

// fromWorkload and workload convert between data and workload.Data.
func fromWorkload(d *workload.Data) *data {
	return &data{spec: d.Source, dense: d.Dense, sparse: d.Sparse, ratings: d.Ratings}
}

func (d *data) workload() *workload.Data {
	return &workload.Data{Source: d.spec, Dense: d.dense, Sparse: d.sparse, Ratings: d.ratings}
}

func (d *data) describe() string { return d.workload().String() }

func (d *data) shape() (n, dim int) { return d.workload().Shape() }

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

// defaultData is each algorithm's data when -data is empty
// (workload.Entry.Data).
var defaultData = func() map[string]string {
	m := map[string]string{}
	for _, a := range workload.Names() {
		e, _ := workload.Lookup(a)
		m[a] = e.Data
	}
	return m
}()

// maxValues bounds what syncbench allocates (workload.MaxValues), so that
// a stray zero in a flag fails with a message instead of the machine's
// memory.
const maxValues = workload.MaxValues

// generatorSizes describes the default sizes for the -n and -dim help.
func generatorSizes(dim bool) string {
	var parts []string
	for _, g := range workload.Generators() {
		switch {
		case !dim:
			parts = append(parts, fmt.Sprintf("%s %d", g.Name, g.N))
		case g.Dim > 0:
			parts = append(parts, fmt.Sprintf("%s %d", g.Name, g.Dim))
		}
	}
	return strings.Join(parts, ", ")
}

// synthSize is the -n and -dim of synthetic data; 0 means the default.
type synthSize struct{ n, dim int }

// loadData loads a -data spec (workload.Load): KIND:PATH for files,
// synthetic:NAME for the seeded generators.
func loadData(spec string, size synthSize, seed uint64) (*data, error) {
	d, err := workload.Load(workload.Spec{Data: spec, N: size.n, Dim: size.dim, Seed: seed})
	if err != nil {
		return nil, cliError(err)
	}
	return fromWorkload(d), nil
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
