package migrate

import (
	"fmt"
	"math"
)

// Stats are one worker's statistics at a barrier, the n, v and p of FSP
// §4.2.
type Stats struct {
	// Passes p: the traversal passes completed over the points the worker
	// holds, ≥ 0. Without migration it is points processed / shard size;
	// with migration, Placement.Stats gives the mean traversal count of the
	// points the worker owns (migrated points carry their counts).
	Passes float64
	// Speed v: points the worker processes per second, ≥ 0 and finite, as
	// the runtime measured it (for example points over busy time in the
	// last iteration). The paper's V is its inverse, seconds per point.
	Speed float64
	// Size n: points the worker currently maintains, ≥ 0. A worker with no
	// points has nothing to balance and is left out of every super-worker.
	Size int
}

// Tolerance says when two workers' statistics are "the same" (§4.2) for
// grouping them into one super-worker. The zero value groups only exactly
// equal statistics, the paper's literal rule; measured speeds are never
// exactly equal, so runtimes should give some slack.
type Tolerance struct {
	Passes float64 // absolute, in passes (|p − p'| ≤ Passes)
	Speed  float64 // relative (|v − v'| ≤ Speed·max(v, v'))
	Size   float64 // relative (|n − n'| ≤ Size·max(n, n'))
}

func (t Tolerance) validate() error {
	for _, f := range []struct {
		name string
		v    float64
	}{{"Passes", t.Passes}, {"Speed", t.Speed}, {"Size", t.Size}} {
		if math.IsNaN(f.v) || math.IsInf(f.v, 0) || f.v < 0 {
			return inputErr(ErrConfig, "Tolerance."+f.name, f.v, "must be finite and ≥ 0")
		}
	}
	return nil
}

func (t Tolerance) same(a, b Stats) bool {
	return math.Abs(a.Passes-b.Passes) <= t.Passes &&
		math.Abs(a.Speed-b.Speed) <= t.Speed*math.Max(a.Speed, b.Speed) &&
		math.Abs(float64(a.Size-b.Size)) <= t.Size*float64(max(a.Size, b.Size))
}

// Group is a super-worker 𝕎 (§4.2): workers with the same statistics,
// grouped so that the planner pairs a few super-workers instead of many
// workers. Its statistics N, V and P are the means of its members'.
type Group struct {
	Workers []int   // member worker indices, ascending
	Passes  float64 // P
	Speed   float64 // V, points per second
	Size    float64 // N, points
}

// Groups validates stats and groups the workers into super-workers: each
// worker, in index order, joins the first group whose first member has the
// same statistics within tol, or starts a new group. Groups are ordered by
// their first member. Workers with Size 0 are left out.
func Groups(stats []Stats, tol Tolerance) ([]Group, error) {
	if err := tol.validate(); err != nil {
		return nil, err
	}
	if err := validateStats(stats, "stats"); err != nil {
		return nil, err
	}
	return groups(stats, tol), nil
}

func validateStats(stats []Stats, name string) error {
	for i, s := range stats {
		at := func() string { return fmt.Sprintf("%s[%d]", name, i) }
		if math.IsNaN(s.Passes) || math.IsInf(s.Passes, 0) || s.Passes < 0 {
			return inputErr(ErrInput, at()+".Passes", s.Passes, "must be finite and ≥ 0")
		}
		if math.IsNaN(s.Speed) || math.IsInf(s.Speed, 0) || s.Speed < 0 {
			return inputErr(ErrInput, at()+".Speed", s.Speed, "must be finite and ≥ 0")
		}
		if s.Size < 0 {
			return inputErr(ErrInput, at()+".Size", s.Size, "must be ≥ 0")
		}
	}
	return nil
}

// groups is Groups on validated input.
func groups(stats []Stats, tol Tolerance) []Group {
	var out []Group
	var leaders []Stats
	for i, s := range stats {
		if s.Size == 0 {
			continue
		}
		g := -1
		for k, l := range leaders {
			if tol.same(l, s) {
				g = k
				break
			}
		}
		if g < 0 {
			g = len(out)
			out = append(out, Group{})
			leaders = append(leaders, s)
		}
		out[g].Workers = append(out[g].Workers, i)
	}
	for k := range out {
		g := &out[k]
		for _, w := range g.Workers {
			g.Passes += stats[w].Passes
			g.Speed += stats[w].Speed
			g.Size += float64(stats[w].Size)
		}
		n := float64(len(g.Workers))
		g.Passes /= n
		g.Speed /= n
		g.Size /= n
	}
	return out
}
