package knee

// Test curves of the Python package kneed (github.com/arvkevi/kneed), read
// from its test suite tests/test_sample.py and its kneed/data_generator.py
// (DataGenerator). The knees the tests expect on them are quoted, with the
// kneed test they come from, in kneed_test.go. Curves that kneed draws
// from numpy's global RandomState are in testdata/knee/curves.json,
// written by testdata/knee/make_refs.py.

import "math"

// linspace returns n points from a to b like numpy.linspace: a + i·step
// with the last point set to b.
func linspace(a, b float64, n int) []float64 {
	x := make([]float64, n)
	step := (b - a) / float64(n-1)
	for i := range x {
		x[i] = float64(i)*step + a
	}
	x[n-1] = b
	return x
}

// arange returns a, a+step, … below b like numpy.arange (a + i·step).
func arange(a, b, step float64) []float64 {
	n := int(math.Ceil((b - a) / step))
	x := make([]float64, n)
	for i := range x {
		x[i] = a + float64(i)*step
	}
	return x
}

// figure2 is DataGenerator.figure2, "the values in figure 2 from the
// original kneedle paper": x = linspace(0, 1, 10), y = −1/(x+0.1) + 5.
func figure2() (x, y []float64) {
	x = linspace(0, 1, 10)
	y = make([]float64, len(x))
	for i, v := range x {
		y[i] = -1/(v+0.1) + 5
	}
	return x, y
}

// Four small shapes of DataGenerator, all on x = 0..9.
var (
	kneedX            = []float64{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}
	concaveIncreasing = []float64{0, 60, 80, 85, 90, 95, 96, 97, 98, 99}
	concaveDecreasing = []float64{99, 98, 97, 96, 95, 90, 85, 80, 60, 0}
	convexIncreasing  = []float64{1, 2, 3, 4, 5, 10, 15, 20, 40, 100}
	convexDecreasing  = []float64{100, 40, 20, 15, 10, 5, 4, 3, 2, 1}
)

// bumpy is DataGenerator.bumpy: a convex decreasing curve with local
// bumps, x = 0..89.
var bumpyY = []float64{
	7305.0, 6979.0, 6666.6, 6463.2, 6326.5, 6048.8, 6032.8, 5762.0, 5742.8, 5398.2,
	5256.8, 5227.0, 5001.7, 4942.0, 4854.2, 4734.6, 4558.7, 4491.1, 4411.6, 4333.0,
	4234.6, 4139.1, 4056.8, 4022.5, 3868.0, 3808.3, 3745.3, 3692.3, 3645.6, 3618.3,
	3574.3, 3504.3, 3452.4, 3401.2, 3382.4, 3340.7, 3301.1, 3247.6, 3190.3, 3180.0,
	3154.2, 3089.5, 3045.6, 2989.0, 2993.6, 2941.3, 2875.6, 2866.3, 2834.1, 2785.1,
	2759.7, 2763.2, 2720.1, 2660.1, 2690.2, 2635.7, 2632.9, 2574.6, 2556.0, 2545.7,
	2513.4, 2491.6, 2496.0, 2466.5, 2442.7, 2420.5, 2381.5, 2388.1, 2340.6, 2335.0,
	2318.9, 2319.0, 2308.2, 2262.2, 2235.8, 2259.3, 2221.0, 2202.7, 2184.3, 2170.1,
	2160.0, 2127.7, 2134.7, 2102.0, 2101.4, 2066.4, 2074.3, 2063.7, 2048.1, 2031.9,
}

// flatMaximaY is the curve of test_flat_maxima ("the global maxima has a
// sequentially equal value in the difference curve"), x = 0..17.
var flatMaximaY = []float64{
	1, 0.787701317715959, 0.7437774524158126, 0.6559297218155198,
	0.5065885797950219, 0.36749633967789164, 0.2547584187408492,
	0.16251830161054173, 0.10395314787701318, 0.06734992679355783,
	0.043923865300146414, 0.027818448023426062, 0.01903367496339678,
	0.013177159590043924, 0.010248901903367497, 0.007320644216691069,
	0.005856515373352855, 0.004392386530014641,
}

// logisticY is the curve of test_logistic (convex increasing, x = 1..98).
var logisticY = []float64{
	2.00855493e-45, 1.10299045e-43, 4.48168384e-42, 1.22376580e-41, 5.10688883e-40,
	1.18778110e-38, 5.88777891e-35, 4.25317895e-34, 4.06507035e-33, 6.88084518e-32,
	2.99321831e-31, 1.13291723e-30, 1.05244482e-28, 2.67578448e-27, 1.22522190e-26,
	2.36517846e-26, 8.30369408e-26, 1.24303033e-25, 2.27726918e-25, 1.06330422e-24,
	5.55017673e-24, 1.92068553e-23, 3.31361011e-23, 1.13575247e-22, 1.75386416e-22,
	6.52680518e-22, 2.05106011e-21, 6.37285545e-21, 4.16125535e-20, 1.12709507e-19,
	5.75853420e-19, 1.73333796e-18, 2.70099890e-18, 7.53254646e-18, 1.38139433e-17,
	3.60081965e-17, 8.08419977e-17, 1.86378584e-16, 5.36224556e-16, 8.89404640e-16,
	2.34045104e-15, 4.72168880e-15, 6.84378992e-15, 2.26898430e-14, 3.10087652e-14,
	2.78081199e-13, 1.06479577e-12, 2.81002203e-12, 4.22067092e-12, 9.27095863e-12,
	1.54519738e-11, 4.53347819e-11, 1.35564441e-10, 2.35242087e-10, 4.45253545e-10,
	9.78613696e-10, 1.53140922e-09, 2.81648560e-09, 6.70890436e-09, 1.49724785e-08,
	5.59553565e-08, 1.39510811e-07, 7.64761811e-07, 1.40723957e-06, 4.97638863e-06,
	2.12817943e-05, 3.26471410e-05, 1.02599591e-04, 3.18774179e-04, 5.67297630e-04,
	9.22732716e-04, 1.17445643e-03, 3.59279384e-03, 3.61936491e-02, 6.39493416e-02,
	1.29304829e-01, 1.72272215e-01, 3.46945901e-01, 5.02826602e-01, 6.24800042e-01,
	7.38412957e-01, 7.59931663e-01, 7.73374421e-01, 7.91421897e-01, 8.29325597e-01,
	8.57718637e-01, 8.73286061e-01, 8.77056835e-01, 8.93173768e-01, 9.05435646e-01,
	9.17217910e-01, 9.19119179e-01, 9.24810910e-01, 9.26306908e-01, 9.28621233e-01,
	9.33855835e-01, 9.37263027e-01, 9.41651642e-01,
}

// seq returns a, a+1, …, a+n−1.
func seq(a float64, n int) []float64 {
	x := make([]float64, n)
	for i := range x {
		x[i] = a + float64(i)
	}
	return x
}
