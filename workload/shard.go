package workload

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/syncmodels/syncmodels/algorithms"
	"github.com/syncmodels/syncmodels/dataset"
)

// Sharding says how the data points are split among workers, as
// harness.Experiment does it (its Workers, Shuffle and Seed fields):
// Workers contiguous blocks of the points 0..n−1, the first n mod Workers
// one point larger (dataset.Shard), or blocks of a seeded permutation of
// them when Shuffle.
type Sharding struct {
	// Workers is the number of shards, 1 ≤ Workers ≤ n.
	Workers int `json:"workers"`
	// Shuffle shards rand.New(rand.NewPCG(Seed, 0x5a4d)).Perm(n) instead
	// of 0..n−1.
	Shuffle bool `json:"shuffle,omitempty"`
	// Seed is the experiment's seed (harness.Experiment.Seed), read only
	// with Shuffle.
	Seed uint64 `json:"seed,omitempty"`
}

// permSeed is the PCG stream of the shuffle: harness's setup uses the same.
const permSeed = 0x5a4d

// Shards splits n points into s.Workers shards; shard i is worker i's,
// its points in the order the worker processes them.
func (s Sharding) Shards(n int) ([][]int, error) {
	var perm *rand.Rand
	if s.Shuffle {
		perm = rand.New(rand.NewPCG(s.Seed, permSeed))
	}
	parts, err := dataset.Shard(n, s.Workers, perm)
	if err != nil {
		return nil, specErrorf("-workers %d: %d data points cannot be split into %d shards (want 1 ≤ workers ≤ %d)", s.Workers, n, s.Workers, n)
	}
	return parts, nil
}

// Shard returns worker index's shard of n points: Shards(n)[index].
func (s Sharding) Shard(n, index int) ([]int, error) {
	if index < 0 || index >= s.Workers {
		return nil, &SpecError{Field: "index", Msg: fmt.Sprintf("worker index %d: want 0 ≤ index < %d workers", index, s.Workers), Err: ErrConfig}
	}
	parts, err := s.Shards(n)
	if err != nil {
		return nil, err
	}
	return parts[index], nil
}

// shardHashVersion starts every hash: a change of what ShardHash covers
// changes it.
const shardHashVersion = "syncmodels/workload.ShardHash v1\n"

// ShardHash returns a hex SHA-256 digest that a worker and its coordinator
// compare to agree on the shard the worker holds. It covers the
// algorithm's Name, Layout (Params, Delta, Block) and NumPoints, the
// number of points in the shard and their indices in order, and, when d is
// not nil, each point's data as d holds it: a dense row's features and
// label, a sparse row's column indices, values and label, a rating's user,
// item and value (floats by their IEEE-754 bits, so −0 ≠ 0 and a NaN's
// payload counts). It does not cover the Spec's settings (learning rate,
// Init, Positive) beyond what the layout shows: a worker gets those from
// the coordinator's Spec; nor lr's binarized labels, only the labels d
// holds.
//
// With d it reads the shard's points once; an index out of range, or d of
// another size than alg, is an error.
func ShardHash(alg algorithms.Algorithm, d *Data, points []int) (string, error) {
	n := alg.NumPoints()
	if d != nil {
		if dn, _ := d.Shape(); dn != n {
			return "", fmt.Errorf("workload: ShardHash: %s has %d points, the %s algorithm %d", d.Source, dn, alg.Name(), n)
		}
	}
	h := sha256.New()
	var buf []byte
	u64 := func(v uint64) { buf = binary.LittleEndian.AppendUint64(buf, v) }
	f64 := func(v float64) { u64(math.Float64bits(v)) }
	flush := func() {
		h.Write(buf)
		buf = buf[:0]
	}
	buf = append(buf, shardHashVersion...)
	name := alg.Name()
	u64(uint64(len(name)))
	buf = append(buf, name...)
	l := alg.Layout()
	for _, v := range []int{l.Params, l.Delta, l.Block, n, len(points)} {
		u64(uint64(v))
	}
	for _, i := range points {
		if i < 0 || i >= n {
			return "", fmt.Errorf("workload: ShardHash: point %d out of range [0, %d)", i, n)
		}
		u64(uint64(i))
		if len(buf) >= 1<<16 {
			flush()
		}
	}
	if d != nil {
		// The kind of data (1 dense, 2 sparse, 3 ratings), its dimension
		// and whether it has labels.
		kind, labels := 3, false
		switch {
		case d.Dense != nil:
			kind, labels = 1, d.Dense.Labels != nil
		case d.Sparse != nil:
			kind, labels = 2, d.Sparse.Labels != nil
		}
		_, dim := d.Shape()
		u64(uint64(kind))
		u64(uint64(dim))
		if labels {
			u64(1)
		} else {
			u64(0)
		}
		for _, i := range points {
			switch {
			case d.Dense != nil:
				for _, v := range d.Dense.Row(i) {
					f64(v)
				}
				if d.Dense.Labels != nil {
					f64(d.Dense.Labels[i])
				}
			case d.Sparse != nil:
				idx, val := d.Sparse.Row(i)
				u64(uint64(len(idx)))
				for k := range idx {
					u64(uint64(idx[k]))
					f64(val[k])
				}
				if d.Sparse.Labels != nil {
					f64(d.Sparse.Labels[i])
				}
			case d.Ratings != nil:
				r := d.Ratings
				u64(uint64(r.User[i]))
				u64(uint64(r.Item[i]))
				f64(r.Value[i])
			}
			if len(buf) >= 1<<16 {
				flush()
			}
		}
	}
	flush()
	return hex.EncodeToString(h.Sum(nil)), nil
}
