package kernel_test

import (
	"fmt"

	"github.com/syncmodels/syncmodels/internal/kernel"
)

// DotsNT computes every row of X against every row of C: the inner products
// behind ‖x − c‖² = ‖x‖² − 2x·c + ‖c‖² in K-means.
func ExampleDotsNT() {
	X := []float64{ // 2 points in R^3
		1, 2, 3,
		0, 1, 0,
	}
	C := []float64{ // 2 centroids
		1, 0, 0,
		0, 0, 1,
	}
	out := make([]float64, 2*2)
	kernel.DotsNT(X, 2, C, 2, 3, out)
	fmt.Println(out)
	// Output: [1 3 0 0]
}
