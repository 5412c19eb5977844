package kernel

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
)

// benchImpls runs f as sub-benchmarks impl=generic and impl=asm.
func benchImpls(b *testing.B, f func(b *testing.B)) {
	for _, im := range impls() {
		b.Run("impl="+im.name, func(b *testing.B) {
			saved := useAsm
			useAsm = im.asm
			defer func() { useAsm = saved }()
			f(b)
		})
	}
}

func reportFlops(b *testing.B, flopsPerOp float64) {
	b.ReportMetric(flopsPerOp*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
}

func uniform(n int, seed uint64) []float64 {
	r := rand.New(rand.NewPCG(seed, 99))
	v := make([]float64, n)
	for i := range v {
		v[i] = r.Float64()
	}
	return v
}

func to32(v []float64) []float32 {
	w := make([]float32, len(v))
	for i, x := range v {
		w[i] = float32(x)
	}
	return w
}

const benchD = 784

var sink64 float64
var sink32 float32

func BenchmarkDot(b *testing.B) {
	x, y := uniform(benchD, 1), uniform(benchD, 2)
	b.Run(fmt.Sprintf("d=%d", benchD), func(b *testing.B) {
		benchImpls(b, func(b *testing.B) {
			b.SetBytes(2 * 8 * benchD)
			for b.Loop() {
				sink64 += Dot(x, y)
			}
			reportFlops(b, 2*benchD)
		})
	})
}

func BenchmarkSqDist(b *testing.B) {
	x, y := uniform(benchD, 1), uniform(benchD, 2)
	b.Run(fmt.Sprintf("d=%d", benchD), func(b *testing.B) {
		benchImpls(b, func(b *testing.B) {
			b.SetBytes(2 * 8 * benchD)
			for b.Loop() {
				sink64 += SqDist(x, y)
			}
			reportFlops(b, 3*benchD)
		})
	})
}

func BenchmarkAxpy(b *testing.B) {
	x, y := uniform(benchD, 1), uniform(benchD, 2)
	b.Run(fmt.Sprintf("d=%d", benchD), func(b *testing.B) {
		benchImpls(b, func(b *testing.B) {
			b.SetBytes(3 * 8 * benchD)
			for b.Loop() {
				Axpy(1e-9, x, y)
			}
			reportFlops(b, 2*benchD)
		})
	})
}

func BenchmarkDot32(b *testing.B) {
	x, y := to32(uniform(benchD, 1)), to32(uniform(benchD, 2))
	b.Run(fmt.Sprintf("d=%d", benchD), func(b *testing.B) {
		benchImpls(b, func(b *testing.B) {
			b.SetBytes(2 * 4 * benchD)
			for b.Loop() {
				sink32 += Dot32(x, y)
			}
			reportFlops(b, 2*benchD)
		})
	})
}

func BenchmarkAxpy32(b *testing.B) {
	x, y := to32(uniform(benchD, 1)), to32(uniform(benchD, 2))
	b.Run(fmt.Sprintf("d=%d", benchD), func(b *testing.B) {
		benchImpls(b, func(b *testing.B) {
			b.SetBytes(3 * 4 * benchD)
			for b.Loop() {
				Axpy32(1e-9, x, y)
			}
			reportFlops(b, 2*benchD)
		})
	})
}

func BenchmarkAddTo64(b *testing.B) {
	x, y := to32(uniform(benchD, 1)), uniform(benchD, 2)
	b.Run(fmt.Sprintf("d=%d", benchD), func(b *testing.B) {
		benchImpls(b, func(b *testing.B) {
			b.SetBytes((4 + 16) * benchD)
			for b.Loop() {
				AddTo64(x, y)
			}
			reportFlops(b, benchD)
		})
	})
}

func BenchmarkAxpyTo64(b *testing.B) {
	x, y := to32(uniform(benchD, 1)), uniform(benchD, 2)
	b.Run(fmt.Sprintf("d=%d", benchD), func(b *testing.B) {
		benchImpls(b, func(b *testing.B) {
			b.SetBytes((4 + 16) * benchD)
			for b.Loop() {
				AxpyTo64(1e-9, x, y)
			}
			reportFlops(b, 2*benchD)
		})
	})
}

// Cache-resident block: 256 rows against 10 centroids.
func BenchmarkDotsNT(b *testing.B) {
	const n, k, d = 256, 10, benchD
	X, C := uniform(n*d, 3), uniform(k*d, 4)
	out := make([]float64, n*k)
	b.Run(fmt.Sprintf("n=%d,k=%d,d=%d", n, k, d), func(b *testing.B) {
		benchImpls(b, func(b *testing.B) {
			b.SetBytes(8 * n * d)
			for b.Loop() {
				DotsNT(X, n, C, k, d, out)
			}
			reportFlops(b, 2*n*k*d)
		})
	})
}

func BenchmarkDotsNT32(b *testing.B) {
	const n, k, d = 256, 10, benchD
	X, C := to32(uniform(n*d, 3)), to32(uniform(k*d, 4))
	out := make([]float32, n*k)
	b.Run(fmt.Sprintf("n=%d,k=%d,d=%d", n, k, d), func(b *testing.B) {
		benchImpls(b, func(b *testing.B) {
			b.SetBytes(4 * n * d)
			for b.Loop() {
				DotsNT32(X, n, C, k, d, out)
			}
			reportFlops(b, 2*n*k*d)
		})
	})
}

func BenchmarkDotsNT2(b *testing.B) {
	const n, k, d = 256, 10, benchD
	X, A, B := uniform(n*d, 3), uniform(k*d, 4), uniform(k*d, 5)
	out := make([]float64, n*k)
	b.Run(fmt.Sprintf("n=%d,k=%d,d=%d", n, k, d), func(b *testing.B) {
		benchImpls(b, func(b *testing.B) {
			b.SetBytes(8 * n * d)
			for b.Loop() {
				DotsNT2(X, n, A, B, k, d, out)
			}
			reportFlops(b, 4*n*k*d)
		})
	})
}

// Small shapes, where call overhead and tails dominate.
func BenchmarkDotsNTSmall(b *testing.B) {
	for _, s := range []struct{ n, k, d int }{{1000, 3, 2}, {1000, 5, 8}, {1000, 10, 30}} {
		X, C := uniform(s.n*s.d, 3), uniform(s.k*s.d, 4)
		out := make([]float64, s.n*s.k)
		b.Run(fmt.Sprintf("n=%d,k=%d,d=%d", s.n, s.k, s.d), func(b *testing.B) {
			benchImpls(b, func(b *testing.B) {
				for b.Loop() {
					DotsNT(X, s.n, C, s.k, s.d, out)
				}
				reportFlops(b, float64(2*s.n*s.k*s.d))
			})
		})
	}
}

// Full passes over data shaped like Fashion-MNIST (60000×784, pixel values
// in [0,1)), k=10: the K-means assignment step (DotsNT; 0.94 GFLOP and
// 376 MB of X in float64) and, on 20000×784, the diagonal-GMM E-step
// (DotsNT2). goroutines=2 splits the rows in halves, as the workloads do.

var (
	fashionOnce sync.Once
	fashionX    []float64
	fashionX32  []float32
)

const fashionN, fashionK = 60000, 10

func fashion() ([]float64, []float32) {
	fashionOnce.Do(func() {
		fashionX = uniform(fashionN*benchD, 7)
		fashionX32 = to32(fashionX)
	})
	return fashionX, fashionX32
}

func parallelRows(n, g int, f func(lo, hi int)) {
	if g == 1 {
		f(0, n)
		return
	}
	var wg sync.WaitGroup
	for t := 0; t < g; t++ {
		lo, hi := n*t/g, n*(t+1)/g
		wg.Add(1)
		go func() { defer wg.Done(); f(lo, hi) }()
	}
	wg.Wait()
}

func reportPass(b *testing.B, flops float64) {
	sec := b.Elapsed().Seconds() / float64(b.N)
	b.ReportMetric(flops/sec/1e9, "GFLOP/s")
	b.ReportMetric(sec, "s/pass")
}

func BenchmarkKMeansPass(b *testing.B) {
	const n, k, d = fashionN, fashionK, benchD
	X, X32 := fashion()
	C := uniform(k*d, 8)
	C32 := to32(C)
	out, out32 := make([]float64, n*k), make([]float32, n*k)
	for _, g := range []int{1, 2} {
		b.Run(fmt.Sprintf("f64/goroutines=%d", g), func(b *testing.B) {
			benchImpls(b, func(b *testing.B) {
				b.SetBytes(8 * n * d)
				for b.Loop() {
					parallelRows(n, g, func(lo, hi int) {
						DotsNT(X[lo*d:hi*d], hi-lo, C, k, d, out[lo*k:hi*k])
					})
				}
				reportPass(b, 2*n*k*d)
			})
		})
		// As the workloads call it: 64-row blocks (assign/update while hot).
		b.Run(fmt.Sprintf("f64/blocks=64/goroutines=%d", g), func(b *testing.B) {
			benchImpls(b, func(b *testing.B) {
				b.SetBytes(8 * n * d)
				for b.Loop() {
					parallelRows(n, g, func(lo, hi int) {
						for i := lo; i < hi; i += 64 {
							m := min(64, hi-i)
							DotsNT(X[i*d:(i+m)*d], m, C, k, d, out[i*k:(i+m)*k])
						}
					})
				}
				reportPass(b, 2*n*k*d)
			})
		})
		b.Run(fmt.Sprintf("f32/goroutines=%d", g), func(b *testing.B) {
			benchImpls(b, func(b *testing.B) {
				b.SetBytes(4 * n * d)
				for b.Loop() {
					parallelRows(n, g, func(lo, hi int) {
						DotsNT32(X32[lo*d:hi*d], hi-lo, C32, k, d, out32[lo*k:hi*k])
					})
				}
				reportPass(b, 2*n*k*d)
			})
		})
	}
}

func BenchmarkGMMPass(b *testing.B) {
	const n, k, d = 20000, fashionK, benchD
	X, _ := fashion()
	X = X[:n*d]
	A, B := uniform(k*d, 9), uniform(k*d, 10)
	out := make([]float64, n*k)
	for _, g := range []int{1, 2} {
		b.Run(fmt.Sprintf("goroutines=%d", g), func(b *testing.B) {
			benchImpls(b, func(b *testing.B) {
				b.SetBytes(8 * n * d)
				for b.Loop() {
					parallelRows(n, g, func(lo, hi int) {
						DotsNT2(X[lo*d:hi*d], hi-lo, A, B, k, d, out[lo*k:hi*k])
					})
				}
				reportPass(b, 4*n*k*d)
			})
		})
	}
}

// BenchmarkStream measures the read bandwidth the K-means pass is bounded
// by: one Dot over the two halves of the Fashion-sized X (376 MB read),
// split across goroutines like the passes above.
func BenchmarkStream(b *testing.B) {
	X, _ := fashion()
	h := len(X) / 2
	for _, g := range []int{1, 2} {
		b.Run(fmt.Sprintf("goroutines=%d", g), func(b *testing.B) {
			benchImpls(b, func(b *testing.B) {
				b.SetBytes(int64(8 * len(X)))
				var part [2]float64
				for b.Loop() {
					parallelRows(h, g, func(lo, hi int) {
						part[lo*g/h] += Dot(X[lo:hi], X[h+lo:h+hi])
					})
				}
				sink64 += part[0] + part[1]
				reportPass(b, float64(len(X)))
			})
		})
	}
}
