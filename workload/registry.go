package workload

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/syncmodels/syncmodels/algorithms"
	"github.com/syncmodels/syncmodels/algorithms/fcm"
	"github.com/syncmodels/syncmodels/algorithms/gmm"
	"github.com/syncmodels/syncmodels/algorithms/kmeans"
	"github.com/syncmodels/syncmodels/algorithms/logreg"
	"github.com/syncmodels/syncmodels/algorithms/nmf"
	"github.com/syncmodels/syncmodels/algorithms/optim"
	"github.com/syncmodels/syncmodels/algorithms/pmf"
	"github.com/syncmodels/syncmodels/dataset"
)

// Entry is one algorithm of a Registry.
type Entry struct {
	// Name is the Spec.Algo that selects it, such as "kmeans".
	Name string
	// Data is the data spec a Spec with empty Data loads.
	Data string
	// GD reports an algorithm trained by gradient descent, which reads
	// Spec.Optimizer and Spec.LR over Optim.
	GD bool
	// Optim is the optimizer of a GD algorithm when Spec.Optimizer and
	// Spec.LR are zero. Build reads Spec itself: for a registered entry,
	// Optim and L2 tell (help texts, logs) what its Build does.
	Optim optim.Config
	// L2 is the L2 coefficient when Spec.L2 is nil, for algorithms that
	// read it (lr, pmf).
	L2 float64
	// Build makes the algorithm over d. s has its defaults filled and is
	// valid (Registry.Validate); Build checks that s fits d.
	Build func(s Spec, d *Data) (algorithms.Algorithm, error)
}

// Registry maps algorithm names to their Entry. The zero Registry is empty;
// NewRegistry returns one holding the built-in algorithms. A Registry is
// not safe for concurrent Register calls; reading it concurrently is.
type Registry struct {
	entries []Entry
}

// builtin is the registry of the package-level functions. It is never
// registered into: NewRegistry returns a copy.
var builtin = &Registry{entries: []Entry{
	{Name: "kmeans", Data: "synthetic:blobs", Build: buildKMeans},
	{Name: "gmm", Data: "synthetic:blobs", Build: buildGMM},
	{Name: "fcm", Data: "synthetic:blobs", Build: buildFCM},
	{Name: "lr", Data: "synthetic:logistic", GD: true, Optim: lrOptim, L2: lrL2, Build: buildLR},
	{Name: "pmf", Data: "synthetic:ratings", GD: true, Optim: pmf.DefaultOptim, L2: pmfL2, Build: buildPMF},
	{Name: "nmf", Data: "synthetic:nonneg", GD: true, Optim: nmfOptim, Build: buildNMF},
}}

// The built-in GD algorithms' defaults.
var (
	lrOptim  = optim.Config{Method: optim.Adam, LR: 0.05}
	nmfOptim = optim.Config{Method: optim.Adam, LR: 0.01}
)

const (
	lrL2  = 1e-4
	pmfL2 = 0
)

// NewRegistry returns a registry holding the built-in algorithms: kmeans,
// gmm, fcm (package algorithms/kmeans, gmm, fcm), lr (logreg, dense or
// sparse data), pmf and nmf.
func NewRegistry() *Registry {
	return &Registry{entries: slices.Clone(builtin.entries)}
}

// Register adds e. It refuses an empty name, a name already registered and
// a nil Build.
func (r *Registry) Register(e Entry) error {
	switch {
	case e.Name == "":
		return fmt.Errorf("workload: Register: empty name")
	case e.Build == nil:
		return fmt.Errorf("workload: Register %q: nil Build", e.Name)
	}
	if _, ok := r.Lookup(e.Name); ok {
		return fmt.Errorf("workload: Register %q: already registered", e.Name)
	}
	r.entries = append(r.entries, e)
	return nil
}

// Lookup returns the entry named name.
func (r *Registry) Lookup(name string) (Entry, bool) {
	for _, e := range r.entries {
		if e.Name == name {
			return e, true
		}
	}
	return Entry{}, false
}

// Names returns the registered names in registration order.
func (r *Registry) Names() []string {
	names := make([]string, len(r.entries))
	for i, e := range r.entries {
		names[i] = e.Name
	}
	return names
}

// Names returns the built-in algorithms' names: kmeans, gmm, fcm, lr, pmf,
// nmf.
func Names() []string { return builtin.Names() }

// Lookup returns the built-in algorithm named name.
func Lookup(name string) (Entry, bool) { return builtin.Lookup(name) }

// Build makes the algorithm s names over d, with the built-in registry;
// see Registry.Build.
func Build(s Spec, d *Data) (algorithms.Algorithm, error) { return builtin.Build(s, d) }

// Open loads the data of s and builds its algorithm over it, with the
// built-in registry; see Registry.Open.
func Open(s Spec) (algorithms.Algorithm, *Data, error) { return builtin.Open(s) }

// Build fills the defaults of s, validates it and makes its algorithm over
// d. The algorithm is a function of s and d alone: building it twice, in
// two processes, from the same Spec (a JSON copy included) and the same
// data gives algorithms whose Init draws the same θ0 from the same rng and
// whose workers compute the same deltas, bit for bit. Errors are one line;
// a Spec that does not fit d (kmeans on ratings, K above the number of
// points, a positive class the labels lack) matches ErrConfig.
func (r *Registry) Build(s Spec, d *Data) (algorithms.Algorithm, error) {
	s = r.WithDefaults(s)
	if err := r.Validate(s); err != nil {
		return nil, err
	}
	if d == nil {
		return nil, fmt.Errorf("workload: Build %s: nil data", s.Algo)
	}
	e, _ := r.Lookup(s.Algo)
	return e.Build(s, d)
}

// Open is Load then Build: what a worker given only s does to hold the
// same algorithm as its coordinator.
func (r *Registry) Open(s Spec) (algorithms.Algorithm, *Data, error) {
	s = r.WithDefaults(s)
	if err := r.Validate(s); err != nil {
		return nil, nil, err
	}
	d, err := r.Load(s)
	if err != nil {
		return nil, nil, err
	}
	alg, err := r.Build(s, d)
	if err != nil {
		return nil, nil, err
	}
	return alg, d, nil
}

// dense returns d's dense matrix, or an error naming what s.Algo needs.
func dense(s Spec, d *Data) (*dataset.Dense, error) {
	if d.Dense == nil {
		return nil, specErrorf("-algo %s needs dense data (idx:, csv: or synthetic:blobs/logistic/nonneg), got %s", s.Algo, d.Source)
	}
	return d.Dense, nil
}

// clusterData returns d's dense matrix for a clustering algorithm, which
// needs at most one cluster per point.
func clusterData(s Spec, d *Data) (*dataset.Dense, error) {
	if n, _ := d.Shape(); s.K > n {
		return nil, specErrorf("-k %d: %s needs at most one cluster per data point, and %s has %d; want -k ≤ %d", s.K, s.Algo, d.Source, n, n)
	}
	return dense(s, d)
}

// checkFactors refuses a factor model of more than MaxValues factors: rank
// values per row and per column.
func checkFactors(s Spec, rows, cols int) error {
	if v := float64(float64(rows+cols) * float64(s.Rank)); v > MaxValues {
		return newSpecError(ErrTooLarge, "-rank %d: %s would hold (%d + %d) × %d = %.3g factors, more than %s allocates (%d)", s.Rank, s.Algo, rows, cols, s.Rank, v, LimitOwner, MaxValues)
	}
	return nil
}

func buildKMeans(s Spec, d *Data) (algorithms.Algorithm, error) {
	x, err := clusterData(s, d)
	if err != nil {
		return nil, err
	}
	return kmeans.New(x, kmeans.Config{K: s.K, Init: s.Init, Float32: s.Float32})
}

func buildGMM(s Spec, d *Data) (algorithms.Algorithm, error) {
	x, err := clusterData(s, d)
	if err != nil {
		return nil, err
	}
	return gmm.New(x, gmm.Config{K: s.K, Init: s.Init})
}

func buildFCM(s Spec, d *Data) (algorithms.Algorithm, error) {
	x, err := clusterData(s, d)
	if err != nil {
		return nil, err
	}
	return fcm.New(x, fcm.Config{K: s.K, Init: s.Init})
}

func buildNMF(s Spec, d *Data) (algorithms.Algorithm, error) {
	if d.Dense != nil {
		if err := checkFactors(s, d.Dense.N, d.Dense.D); err != nil {
			return nil, err
		}
	}
	x, err := dense(s, d)
	if err != nil {
		return nil, err
	}
	return nmf.New(x, nmf.Config{Rank: s.Rank, Optim: s.optimConfig(nmfOptim)})
}

func buildPMF(s Spec, d *Data) (algorithms.Algorithm, error) {
	if d.Ratings == nil {
		return nil, specErrorf("-algo pmf needs ratings data (movielens: or synthetic:ratings), got %s", d.Source)
	}
	if err := checkFactors(s, d.Ratings.NumUsers, d.Ratings.NumItems); err != nil {
		return nil, err
	}
	return pmf.New(d.Ratings, pmf.Config{Rank: s.Rank, Optim: s.optimConfig(pmf.DefaultOptim), Lambda: s.l2(pmfL2)})
}

func buildLR(s Spec, d *Data) (algorithms.Algorithm, error) {
	cfg := logreg.Config{Optim: s.optimConfig(lrOptim), Lambda: s.l2(lrL2)}
	switch {
	case d.Dense != nil:
		y, err := binarize(d.Dense.Labels, s.Positive, d.Source)
		if err != nil {
			return nil, err
		}
		x := *d.Dense
		x.Labels = y
		return logreg.NewDense(&x, cfg)
	case d.Sparse != nil:
		y, err := binarize(d.Sparse.Labels, s.Positive, d.Source)
		if err != nil {
			return nil, err
		}
		x := *d.Sparse
		x.Labels = y
		return logreg.NewSparse(&x, cfg)
	}
	return nil, specErrorf("-algo lr needs labelled dense or sparse data, got %s", d.Source)
}

// binarize maps class *positive to 1 and every other label to 0; with
// positive nil it returns labels unchanged, which must then be 0/1 (or
// ±1). Either way lr needs both classes: an error names -positive and the
// labels source holds.
func binarize(labels []float64, positive *int, source string) ([]float64, error) {
	if len(labels) == 0 {
		return nil, specErrorf("-algo lr needs labelled data; %s has no labels (idx: needs its labels-idx1 file beside the images)", source)
	}
	classes := slices.Clone(labels)
	slices.Sort(classes)
	classes = slices.Compact(classes)
	if positive == nil {
		for _, v := range classes {
			if v != 0 && v != 1 && v != -1 {
				return nil, specErrorf("-algo lr needs 0/1 labels; %s has labels %s: choose the class that is 1 with -positive%s", source, describeLabels(classes), positiveExample(classes))
			}
		}
		if len(classes) == 1 || len(classes) == 2 && classes[0] == -1 && classes[1] == 0 {
			return nil, specErrorf("-algo lr needs both classes; every label of %s is %s", source, describeLabels(classes))
		}
		return labels, nil
	}
	pos := *positive
	p := float64(pos)
	if !slices.Contains(classes, p) {
		return nil, specErrorf("-positive %d: %s has no label %d; its labels are %s", pos, source, pos, describeLabels(classes))
	}
	if len(classes) == 1 {
		return nil, specErrorf("-positive %d: every label of %s is %d, so lr would have no negative class", pos, source, pos)
	}
	y := make([]float64, len(labels))
	for i, v := range labels {
		if v == p {
			y[i] = 1
		}
	}
	return y, nil
}

// describeLabels lists sorted distinct labels: all of them when few,
// else their count and range.
func describeLabels(classes []float64) string {
	if len(classes) > 12 {
		return fmt.Sprintf("%d distinct values from %g to %g", len(classes), classes[0], classes[len(classes)-1])
	}
	s := make([]string, len(classes))
	for i, v := range classes {
		s[i] = strconv.FormatFloat(v, 'g', -1, 64)
	}
	return strings.Join(s, ", ")
}

// positiveExample suggests a -positive value: the first label that is a
// whole number ≥ 0, as " (e.g. -positive 0)", or "" if there is none.
func positiveExample(classes []float64) string {
	for _, v := range classes {
		if v >= 0 && v == math.Trunc(v) && v <= math.MaxInt32 {
			return fmt.Sprintf(" (e.g. -positive %g)", v)
		}
	}
	return ""
}
