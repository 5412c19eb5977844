package optim_test

import (
	"fmt"

	"github.com/syncmodels/syncmodels/algorithms/optim"
)

// Minimise f(θ) = ½(θ−3)² with Nesterov momentum.
func Example() {
	opt, err := optim.New(optim.Config{Method: optim.Nesterov, LR: 0.1, Momentum: 0.8}, 1)
	if err != nil {
		panic(err)
	}
	theta := []float64{0}
	grad := make([]float64, 1)
	for range 100 {
		grad[0] = theta[0] - 3
		opt.Step(theta, grad)
	}
	fmt.Printf("θ = %.6f after %d steps\n", theta[0], opt.Steps())
	// Output: θ = 3.000000 after 100 steps
}

// A lazy sparse step moves only the touched blocks.
func ExampleOptimizer_StepBlocks() {
	opt, _ := optim.New(optim.Config{Method: optim.Adam, LR: 0.5}, 6)
	theta := []float64{1, 1, 1, 1, 1, 1}
	grad := []float64{1, 1, 1, 1, 1, 1}
	opt.StepBlocks(theta, grad, []int32{0, 2}, 2) // blocks of width 2: entries 0,1 and 4,5
	fmt.Printf("%.3f\n", theta)
	// Output: [0.500 0.500 1.000 1.000 0.500 0.500]
}
