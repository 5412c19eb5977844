package migrate

import (
	"math"
	"time"
)

// Imbalance is the left side of Eq. 8 (§4.2) over K super-workers'
// passes: max_i |P_i − (Σ_j P_j)/K|. The mean is over super-workers, not
// workers, as in the paper; K = 0 gives 0. The training process is
// balanced when Imbalance ≤ ε.
func Imbalance(passes []float64) float64 {
	if len(passes) == 0 {
		return 0
	}
	var mean float64
	for _, p := range passes {
		mean += p
	}
	mean /= float64(len(passes))
	var dev float64
	for _, p := range passes {
		dev = math.Max(dev, math.Abs(p-mean))
	}
	return dev
}

// Predict is a super-worker's passes at the end of a time split τ if no
// data moves (§4.2): P̃ = P + τ·V/N, with V in points per second (the
// paper writes τ/(V·N) with V in seconds per point). A group with Size 0
// keeps its passes.
func Predict(g Group, split time.Duration) float64 {
	if g.Size <= 0 {
		return g.Passes
	}
	return g.Passes + split.Seconds()*g.Speed/g.Size
}

// Eq9 is the migration amount Δ of §4.2 for one pair: how many points each
// worker of the source super-worker src (the one with the fewer predicted
// passes) gives away during the time split τ so that src and dst end the
// split with equal passes; each worker of dst receives β·Δ, β =
// |src|/|dst|. Δ is a real number in [0, N_src]; the caller rounds it.
//
// With speeds v in points per second (the paper's V = 1/v), τ = split,
// D = P_dst − P_src (the passes the migrated points lost), Eq. 9 reads
//
//	P_s + τ·v_s/(N_s − Δ) = P_d + (τ·v_d − D·β·Δ)/(N_d + β·Δ)
//
// where D·β·Δ/v_d is the time dst spends compensating the migrated points
// before they train at dst's pace. For D ≥ 0 clearing the denominators
// cancels the Δ² terms, leaving the closed form
//
//	Δ = (D·N_s·N_d + τ·(v_d·N_s − v_s·N_d)) / (D·N_d + τ·(β·v_s + v_d)).
//
// The compensation case: when the split is too short for the compensation,
// τ·v_d − D·β·Δ < 0, the two super-workers compensate together, and Δ
// equalises the time src needs for a pass over its remaining points with
// the time dst needs for a pass over the migrated ones, (N_s − Δ)/v_s =
// β·Δ/v_d, so Δ = N_s·v_d/(v_d + β·v_s); compensation is then true.
//
// When D < 0 the migrated points are ahead of dst's own and need no
// compensation: Δ solves P_s + τ·v_s/(N_s − Δ) = P_d + τ·v_d/(N_d + β·Δ),
// found by bisection (the left side increases and the right decreases
// with Δ). If src's prediction is not below dst's, Δ = 0.
func Eq9(src, dst Group, split time.Duration) (delta float64, compensation bool) {
	if len(src.Workers) == 0 || len(dst.Workers) == 0 || src.Size <= 0 || dst.Size <= 0 {
		return 0, false
	}
	if Predict(src, split) >= Predict(dst, split) {
		return 0, false
	}
	tau := split.Seconds()
	ns, nd := src.Size, dst.Size
	vs, vd := src.Speed, dst.Speed
	beta := float64(len(src.Workers)) / float64(len(dst.Workers))
	d := dst.Passes - src.Passes
	if d < 0 {
		return bisect9(src.Passes, dst.Passes, ns, nd, vs, vd, beta, tau), false
	}
	den := float64(d*nd) + float64(tau*(float64(beta*vs)+vd))
	if den <= 0 {
		return 0, false
	}
	delta = (float64(d*ns*nd) + float64(tau*(float64(vd*ns)-float64(vs*nd)))) / den
	if float64(tau*vd)-float64(d*beta*delta) < 0 {
		if vd+float64(beta*vs) <= 0 {
			return 0, true
		}
		return ns * vd / (vd + float64(beta*vs)), true
	}
	return clamp(delta, 0, ns), false
}

// bisect9 solves P_s + τ·v_s/(N_s − x) = P_d + τ·v_d/(N_d + β·x) for x in
// [0, N_s): the left side minus the right increases with x and is negative
// at 0. If it stays negative, N_s.
func bisect9(ps, pd, ns, nd, vs, vd, beta, tau float64) float64 {
	f := func(x float64) float64 {
		return ps + tau*vs/(ns-x) - pd - tau*vd/(nd+float64(beta*x))
	}
	lo, hi := 0.0, ns
	for range 200 {
		mid := lo + float64((hi-lo)/2)
		if mid <= lo || mid >= hi {
			break
		}
		if f(mid) < 0 {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo + float64((hi-lo)/2)
}

func clamp(x, lo, hi float64) float64 {
	return math.Min(math.Max(x, lo), hi)
}
