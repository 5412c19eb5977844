package logreg

import (
	"math"

	"github.com/syncmodels/syncmodels/dataset"
)

// relErr1 returns |got − want| / |want|.
func relErr1(got, want float64) float64 { return math.Abs(got-want) / math.Abs(want) }

// refLR mirrors testdata/gd/logreg.json.
type refLR struct {
	N      int         `json:"n"`
	D      int         `json:"d"`
	X      [][]float64 `json:"X"`
	Y      []float64   `json:"y"`
	Lambda float64     `json:"lambda"`
	GD     struct {
		LR        float64              `json:"lr"`
		Theta     map[string][]float64 `json:"theta"`
		Objective []float64            `json:"objective"`
	} `json:"gd"`
	Adam     refOpt `json:"adam"`
	Nesterov refOpt `json:"nesterov"`
	Sklearn  struct {
		Estimator string    `json:"estimator"`
		Coef      []float64 `json:"coef"`
		Intercept float64   `json:"intercept"`
		Objective float64   `json:"objective"`
	} `json:"sklearn"`
	Source map[string]string `json:"source"`
}

type refOpt struct {
	LR    float64     `json:"lr"`
	Mu    float64     `json:"mu"`
	Eps   float64     `json:"eps"`
	Theta [][]float64 `json:"theta"`
}

func (r *refLR) dense() *dataset.Dense {
	m := &dataset.Dense{N: r.N, D: r.D, Labels: r.Y}
	for _, row := range r.X {
		m.X = append(m.X, row...)
	}
	return m
}

// toSparse returns the CSR form of m without its zero entries.
func toSparse(m *dataset.Dense) *dataset.Sparse {
	s := &dataset.Sparse{N: m.N, D: m.D, Indptr: []int{0}, Labels: m.Labels}
	for i := range m.N {
		for j, v := range m.Row(i) {
			if v != 0 {
				s.Indices = append(s.Indices, int32(j))
				s.Values = append(s.Values, v)
			}
		}
		s.Indptr = append(s.Indptr, len(s.Values))
	}
	return s
}

// toDense returns the dense form of s.
func toDense(s *dataset.Sparse) *dataset.Dense {
	m := &dataset.Dense{N: s.N, D: s.D, X: make([]float64, s.N*s.D), Labels: s.Labels}
	for i := range s.N {
		idx, val := s.Row(i)
		for k, j := range idx {
			m.X[i*s.D+int(j)] = val[k]
		}
	}
	return m
}
