//go:build !amd64 || purego

package kernel

// hasAsm reports whether assembly kernels exist for this build and CPU.
const hasAsm = false

// useAsm selects the assembly kernels; never true in this build.
var useAsm = false

func dot(x, y []float64) float64                   { return dotGeneric(x, y) }
func sqDist(x, y []float64) float64                { return sqDistGeneric(x, y) }
func axpy(a float64, x, y []float64)               { axpyGeneric(a, x, y) }
func scale(a float64, x []float64)                 { scaleGeneric(a, x) }
func add(x, y []float64)                           { addGeneric(x, y) }
func dot32(x, y []float32) float32                 { return dot32Generic(x, y) }
func sqDist32(x, y []float32) float32              { return sqDist32Generic(x, y) }
func axpy32(a float32, x, y []float32)             { axpy32Generic(a, x, y) }
func scale32(a float32, x []float32)               { scale32Generic(a, x) }
func add32(x, y []float32)                         { add32Generic(x, y) }
func addTo64(x []float32, y []float64)             { addTo64Generic(x, y) }
func axpyTo64(a float64, x []float32, y []float64) { axpyTo64Generic(a, x, y) }
func dotsNT(X []float64, n int, C []float64, k, d int, out []float64) {
	dotsNTGeneric(X, n, C, k, d, out)
}
func dotsNT32(X []float32, n int, C []float32, k, d int, out []float32) {
	dotsNT32Generic(X, n, C, k, d, out)
}
func dotsNT2(X []float64, n int, A, B []float64, k, d int, out []float64) {
	dotsNT2Generic(X, n, A, B, k, d, out)
}
