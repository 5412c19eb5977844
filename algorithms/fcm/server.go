package fcm

// mStep sets every centroid of theta to S_j/W_j from the statistics
// st = [S | W]; a cluster with W_j ≤ 0 keeps its centroid of prev. It is
// the emcore.MStep of the server.
func (f *FCM) mStep(st, prev, theta []float64) {
	k, dim := f.k, f.d
	S, W := st[:k*dim], st[k*dim:]
	for j := 0; j < k; j++ {
		lo, hi := j*dim, (j+1)*dim
		if !(W[j] > 0) {
			copy(theta[lo:hi], prev[lo:hi])
			continue
		}
		for t := lo; t < hi; t++ {
			theta[t] = S[t] / W[j]
		}
	}
}
