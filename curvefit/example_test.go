package curvefit_test

import (
	"fmt"
	"math"

	"github.com/syncmodels/syncmodels/curvefit"
	"gonum.org/v1/gonum/mat"
)

func ExampleNNLS() {
	// scipy gh-25389: the unconstrained least-squares solution is [−1, 3];
	// the non-negative optimum is [0, 1.6] with residual √0.2.
	a := mat.NewDense(2, 2, []float64{
		1, 1,
		3, 2,
	})
	x, rnorm, err := curvefit.NNLS(a, []float64{2, 3})
	if err != nil {
		panic(err)
	}
	fmt.Printf("x = [%.4g %.4g], rnorm = %.6f\n", x[0], x[1], rnorm)
	// Output:
	// x = [0 1.6], rnorm = 0.447214
}

func ExampleSolver() {
	// A Solver reuses its workspace: solve many problems without allocating.
	var s curvefit.Solver
	a := []float64{ // 3×2, row-major
		1, 0,
		1, 0,
		0, 1,
	}
	x := make([]float64, 2)
	for _, b := range [][]float64{{2, 1, 1}, {-1, -1, -1}} {
		rnorm, err := s.Solve(a, 3, 2, b, x)
		if err != nil {
			panic(err)
		}
		fmt.Printf("b = %v: x = [%.4g %.4g], rnorm = %.4f\n", b, x[0], x[1], rnorm)
	}
	// Output:
	// b = [2 1 1]: x = [1.5 1], rnorm = 0.7071
	// b = [-1 -1 -1]: x = [0 0], rnorm = 1.7321
}

func ExampleEWMA() {
	losses := []float64{1.0, 0.8, 0.9, 0.5, 0.55, 0.4}
	smooth := curvefit.EWMA(losses, 3) // α = 2/(3+1) = 0.5, pandas adjust=True
	for _, v := range smooth {
		fmt.Printf("%.4f ", v)
	}
	fmt.Println()
	// Output:
	// 1.0000 0.8667 0.8857 0.6800 0.6129 0.5048
}

func ExampleFitQuadratic() {
	// Losses of the slow-convergence region, MLLess Eq. 3.
	truth := curvefit.Quadratic{Theta: [4]float64{1e-4, 0.01, 2, 0.3}}
	var t, y []float64
	for step := 1.0; step <= 100; step++ {
		t = append(t, step)
		y = append(y, truth.Eval(step))
	}
	fit, err := curvefit.FitQuadratic(t, y, curvefit.FitOptions{})
	if err != nil {
		panic(err)
	}
	fmt.Printf("θ = %.6g\n", fit.Params())
	fmt.Printf("loss at step 200: %.4f\n", fit.Eval(200))
	// Output:
	// θ = [0.0001 0.01 2 0.3]
	// loss at step 200: 0.4250
}

func ExamplePower_TimeToLoss() {
	// The reference curve of MLLess Eq. 2: when does it reach a loss of 0.3?
	ref := curvefit.Power{Theta: [4]float64{0.05, 0.8, 1, 0.2}}
	if t, ok := ref.TimeToLoss(0.3); ok {
		fmt.Printf("L(%.1f) = %.4f\n", t, ref.Eval(t))
	}
	if _, ok := ref.TimeToLoss(0.2); !ok {
		fmt.Println("0.2 is the asymptote θ3: never reached")
	}
	// Output:
	// L(659.3) = 0.3000
	// 0.2 is the asymptote θ3: never reached
}

// ExampleFitPower follows the MLLess pipeline: smooth the noisy losses with
// an EWMA, fit the reference curve L_P (Eq. 2) and the slow-convergence
// curve ℓ_p (Eq. 3), and evaluate the scale-in criterion s_Δ of Eq. 1.
func ExampleFitPower() {
	var t, raw []float64
	for step := 1.0; step <= 120; step++ {
		wiggle := 0.004 * float64(int(step)%3-1) // deterministic "noise"
		t = append(t, step)
		raw = append(raw, 1/(0.05*math.Pow(step, 0.8)+1)+0.2+wiggle)
	}
	loss := curvefit.EWMA(raw, 20)
	ref, err := curvefit.FitPower(t, loss, curvefit.FitOptions{})
	if err != nil {
		panic(err)
	}
	slow, err := curvefit.FitQuadratic(t[60:], loss[60:], curvefit.FitOptions{})
	if err != nil {
		panic(err)
	}
	ahead := 150.0
	s := (ref.Eval(ahead) - slow.Eval(ahead)) / ref.Eval(ahead)
	fmt.Printf("L_P(150) = %.3f, ℓ_p(150) = %.3f, s_Δ = %.3f\n", ref.Eval(ahead), slow.Eval(ahead), s)
	// Output:
	// L_P(150) = 0.477, ℓ_p(150) = 0.478, s_Δ = -0.003
}
