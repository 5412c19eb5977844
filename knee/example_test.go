package knee_test

import (
	"fmt"
	"math"

	"github.com/syncmodels/syncmodels/knee"
)

// The curve of Fig. 2 of the Kneedle paper, as kneed generates it:
// y = −1/(x+0.1) + 5 on ten points of [0, 1].
func ExampleKneedle() {
	x := make([]float64, 10)
	y := make([]float64, 10)
	for i := range x {
		x[i] = float64(i) / 9
		y[i] = -1/(x[i]+0.1) + 5
	}
	r, err := knee.Kneedle(x, y, knee.Options{}) // concave increasing, S = 1
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("found %v: point %d, x = %.3f, y = %.3f\n", r.Found, r.Index, r.X, r.Y)
	// Output: found true: point 2, x = 0.222, y = 1.897
}

// The elbow of a K-means inertia curve, a convex decreasing curve.
func ExampleKneedle_elbow() {
	k := []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	inertia := []float64{9800, 5200, 2900, 2100, 1750, 1550, 1420, 1320, 1250, 1190}
	r, err := knee.Kneedle(k, inertia, knee.Options{Curve: knee.Convex, Direction: knee.Decreasing})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("k = %v\n", r.X)
	// Output: k = 3
}

// Online mode keeps scanning and lists every knee; Result holds the last.
func ExampleKneedle_online() {
	x := make([]float64, 60)
	y := make([]float64, 60)
	for i := range x {
		x[i] = float64(i)
		// Two decays: a fast one, then a slower one from x = 30.
		y[i] = math.Exp(-x[i]/3) + 0.5*math.Exp(-max(x[i]-30, 0)/3)
	}
	r, err := knee.Kneedle(x, y, knee.Options{Curve: knee.Convex, Direction: knee.Decreasing, Online: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, k := range r.All {
		fmt.Printf("knee at x = %v\n", k.X)
	}
	fmt.Printf("result: x = %v\n", r.X)
	// Output:
	// knee at x = 8
	// knee at x = 36
	// result: x = 36
}

// A training loss that stays flat before it falls: like kneed, Kneedle
// calls its first point the knee (the curve starts below the chord of a
// convex one); Strict passes over it.
func ExampleKneedle_strict() {
	x := make([]float64, 300)
	y := make([]float64, 300)
	for i := range x {
		x[i] = float64(i)
		y[i] = 0.3 + 0.7/(1+math.Pow(x[i]/30, 3))
	}
	for _, strict := range []bool{false, true} {
		r, err := knee.Kneedle(x, y, knee.Options{Curve: knee.Convex, Direction: knee.Decreasing, Strict: strict})
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("Strict %v: x = %v, %.3f above the chord\n", strict, r.X, r.Diff)
	}
	// Output:
	// Strict false: x = 0, 0.000 above the chord
	// Strict true: x = 67, 0.694 above the chord
}

// Straight lines, flat curves and too few points have no knee.
func ExampleKneedle_noKnee() {
	r, err := knee.Kneedle([]float64{0, 1, 2, 3}, []float64{1, 3, 5, 7}, knee.Options{})
	fmt.Println(r.Found, err)
	_, err = knee.Kneedle([]float64{0, 1, 1}, []float64{1, 3, 5}, knee.Options{})
	fmt.Println(err)
	// Output:
	// false <nil>
	// knee: x[2] = 1: x not strictly increasing (x[1] = 1)
}

// The MLLess heuristic on a training loss, fed one step at a time.
func ExampleThreshold() {
	var d knee.Threshold // MLLess defaults: span 20, slope −7.5e−5 per step, 5 checks
	for step := 0; step < 1000; step++ {
		loss := 0.3 + 0.7*math.Exp(-float64(step)/40)
		if d.Add(float64(step), loss) {
			p, _ := d.Knee()
			fmt.Printf("knee at step %v (loss %.4f), accepted at step %d\n", p.X, p.Y, step)
			break
		}
	}
	// Output: knee at step 241 (loss 0.3017), accepted at step 245
}

// Kneedle as an online detector for the same loss.
func ExampleOnlineKneedle() {
	d := knee.OnlineKneedle{
		Options: knee.Options{Curve: knee.Convex, Direction: knee.Decreasing},
		Stable:  5,
	}
	for step := 0; step < 1000; step++ {
		loss := 0.3 + 0.7*math.Exp(-float64(step)/40)
		if d.Add(float64(step), loss) {
			p, _ := d.Knee()
			fmt.Printf("knee at step %v, accepted at step %d\n", p.X, step)
			break
		}
	}
	// Output: knee at step 55, accepted at step 157
}
