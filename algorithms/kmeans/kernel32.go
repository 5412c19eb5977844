package kmeans

// subFrom64 sets y −= float64(x) (exactly widened). Only points that change
// cluster reach it, so it is off the hot path.
//
// TODO: use a kernel variant (for example kernel.AxpyTo64(a float64,
// x []float32, y []float64)) if internal/kernel gains one.
func subFrom64(x []float32, y []float64) {
	y = y[:len(x)]
	for i, v := range x {
		y[i] -= float64(v)
	}
}
