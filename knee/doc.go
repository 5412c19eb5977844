// Package knee finds the knee (or elbow) of a curve: the point after which
// y stops changing quickly. The MLLess scale-in auto-tuner (P. Gimeno
// Sarroca and M. Sánchez-Artigas, "MLLess: Achieving Cost Efficiency in
// Serverless Machine Learning Training", §4.2, "Automatic knee detection")
// waits for
// the knee of the training loss before it removes any worker; the paper
// names Kneedle as a plug-in choice and uses a first-derivative threshold.
// This package provides both:
//
//   - Kneedle, the algorithm of V. Satopää, J. Albrecht, D. Irwin and
//     B. Raghavan, "Finding a 'Kneedle' in a Haystack: Detecting Knee
//     Points in System Behavior", 31st International Conference on
//     Distributed Computing Systems Workshops (ICDCS Workshops), 2011,
//     pp. 166–171, on a whole curve, offline or online;
//   - Threshold, the MLLess heuristic, as an online Detector fed one loss at
//     a time: the first point whose EWMA-smoothed slope is flatter than a
//     threshold, accepted once it has held for a few points;
//   - OnlineKneedle, a Detector that reruns Kneedle as points arrive.
//
// Everything is deterministic and pure: no goroutines, no clock, no global
// state, no randomness.
//
// # Kneedle
//
// Kneedle(x, y, opt) follows the paper's steps; where the paper is silent
// it does what the de-facto implementation, the Python package kneed
// (github.com/arvkevi/kneed, KneeLocator, version 0.8.6), does. Its tests
// reproduce the knees asserted by kneed's test suite, and kneed's answers
// on a random reference set (see "Agreement with kneed" below).
//
//  1. Smoothing (optional, Options.Interp): y is replaced by its
//     least-squares polynomial fit of a given degree, kneed's
//     interp_method="polynomial". The paper smooths with a spline; kneed's
//     default "interp1d" evaluates a linear interpolant at the data itself,
//     which returns y unchanged, and is InterpNone here. Smoothing splines
//     are not offered.
//  2. Normalisation: x and the (smoothed) y are mapped onto [0, 1]:
//     x̂ = (x − min x)/(max x − min x), ŷ likewise.
//  3. Shape: the curve is turned into a concave increasing one in the unit
//     square, (u, v): a convex curve is flipped vertically (v = 1 − ŷ) and
//     a concave decreasing or convex increasing one is mirrored
//     horizontally (traversed from the right). The difference curve is
//     d = v − u. kneed mirrors by reversing the array of ŷ and keeping x̂
//     in place, which is a mirror image only when the spacing of x is
//     symmetric (x_k − x_0 = x_{n−1} − x_{n−1−k}, as on evenly spaced x);
//     Kneedle does the same when the spacing is symmetric to within 1e-9
//     of the range, and otherwise mirrors the x values too
//     (u = 1 − x̂, from the right), so that the four shapes are mirror
//     images of each other on any x.
//  4. Local maxima and minima of d: points not below (not above) either
//     neighbour, an end point being compared with itself (kneed's
//     argrelextrema(…, greater_equal / less_equal), mode "clip").
//  5. Thresholds: T = d(lmx) − S·mean(Δx̂) for each local maximum, where
//     mean(Δx̂) = 1/(n−1) up to rounding (computed as numpy does).
//  6. Scanning from the first local maximum (kneed 0.8.6's find_knee): a
//     local maximum sets the threshold to its T and arms detection; a
//     local minimum disarms it until the next maximum (a point that is
//     both disarms); while armed, when the next value of d is below the
//     threshold, a knee is declared at the local maximum the threshold
//     came from. Offline (the default, kneed's online=False) the first
//     knee is returned: the paper's rule applied as the data are read,
//     which is also kneed's choice, rather than the maximum of d, which is
//     a different estimator (the point farthest from the chord). Online,
//     scanning continues and Result holds the last knee declared, as
//     kneed's online=True "corrects" old knees; Result.All lists them all.
//     Result.DiffCurve is d, in data order, and Knee.Diff its value at the
//     knee.
//
// Like kneed, Kneedle can report an end point, or a local maximum below
// the chord (Knee.Diff ≤ 0), as the knee: on a noisy curve, a curve that
// starts flat, or one given the wrong shape. Options.Strict passes over
// such knees: a knee must then be an interior point strictly above the
// chord (Knee.Diff above the rounding tolerance). OnlineKneedle always
// sets it.
//
// A straight line has no knee, and so has a noisy one whose residuals
// (after smoothing, if any) spread (max − min) less than S/(2(n−1)) of
// the range of y: the difference curve then cannot fall S/(n−1) below a
// maximum. Larger noise makes knees, in kneed as here: smooth it
// (Options.Interp) or raise S. Fewer than three points and a flat y (a
// relative spread below 1e-12) have no knee, and a fall of d must exceed
// the rounding tolerance of the data (1e-12 in the unit square, or 64
// units in the last place of the largest |x| and |y| relative to their
// ranges when larger) to count, so that rounding noise never makes a knee
// even for a tiny S.
//
// # Agreement with kneed
//
// On x whose spacing is symmetric (evenly spaced x, to within 1e-9 of the
// range) and without smoothing, Kneedle performs kneed 0.8.6's
// floating-point operations in kneed's order, so it returns kneed's knee
// (x and y, and every knee online) or kneed's "no knee" for every S,
// shape and mode, ties included, except where it deliberately differs:
// Strict; fewer than three points; a y flat to within 1e-12 (kneed
// normalises the rounding noise); a fall of d within the rounding
// tolerance (which kneed counts, and which only an S with S/(n−1) below
// the tolerance can reach); ranges that overflow float64. NormX and NormY
// are in the data's orientation, where kneed's norm_knee and norm_knee_y
// are in its transformed frame (1 − NormX for a mirrored shape on even x,
// 1 − NormY for a convex one). With polynomial smoothing the fit is the
// same least-squares polynomial as numpy's polyfit, computed in a better
// conditioned way (see Interp), so the smoothed values differ by rounding,
// or by more where np.polyfit is ill-conditioned; the answers agree unless
// a comparison is decided at that level. On uneven x the concave
// decreasing and convex increasing shapes (the mirrored ones) differ by
// design (step 3); the other two agree as on even x.
//
// Measured on the random reference set testdata/knee/kneed_reference.json
// (900 curves: the four shapes, noise, S ∈ {0.5, 1, 2}, online and
// offline, interp1d and polynomial, noisy lines, ties; written by
// testdata/knee/gen_kneed_reference.py with kneed 0.8.6): all 695 curves
// on even x agree; on uneven x, 134 of 205 (all 119 unmirrored, 15 of the
// 86 mirrored).
//
// The result is invariant under positive affine maps of x and of y
// (x → a·x + b, y → c·y + d with a, c > 0), and mirroring the data
// (negating y, or reversing the x axis) gives the mirrored knee once Curve
// and Direction are changed to match, except where the rounding decides a
// tie (a segment of the curve parallel to the chord).
//
// # Threshold and OnlineKneedle
//
// Both implement Detector: Add(x, y) feeds a point and reports whether a
// knee has been accepted; once accepted it never moves. Threshold's exact
// rule, and where it differs from the MLLess code, is documented on the
// type; its defaults are MLLess's (EWMA span 20, slope −7.5e−5 per step,
// 5 stable checks). OnlineKneedle reruns Kneedle, with Strict set, on all
// the points seen so far and accepts a knee once it has been the same for
// Stable points; note
// that Kneedle is scale-free, so on a growing prefix it finds a knee
// relative to the prefix, while Threshold's slope is absolute.
package knee
