package gmm

// mStep sets theta from the statistics st = [N | S1 | S2], in scikit-learn's
// order of operations (sklearn/mixture/_gaussian_mixture.py,
// _estimate_gaussian_parameters and _estimate_gaussian_covariances_diag).
// It is the emcore.MStep of the server; the previous θ is not used.
func (g *GMM) mStep(st, _, theta []float64) {
	k, d := g.k, g.d
	N, S1, S2 := g.split(st)
	w, mu, v := g.split(theta)
	total := 0.0
	for j := 0; j < k; j++ {
		nk := max(N[j], 0) + eps10
		w[j] = nk
		total += nk
		for t := j * d; t < (j+1)*d; t++ {
			s1 := S1[t]
			m := s1 / nk
			x := S2[t]/nk - float64(2*(m*s1/nk)) + float64(m*m) + g.reg
			if !(x > 0) {
				x = g.reg
			}
			mu[t], v[t] = m, x
		}
	}
	for j := range w {
		w[j] /= total
	}
}
