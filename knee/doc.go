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
// (github.com/arvkevi/kneed, KneeLocator), does, and its tests reproduce
// the knees asserted by kneed's test suite.
//
//  1. Smoothing (optional, Options.Interp): y is replaced by its
//     least-squares polynomial fit of a given degree, kneed's
//     interp_method="polynomial". The paper smooths with a spline; kneed's
//     default "interp1d" evaluates a linear interpolant at the data itself,
//     which is no smoothing, and is InterpNone here. Smoothing splines are
//     not offered.
//  2. Normalisation: x and the (smoothed) y are mapped onto [0, 1].
//  3. Shape: the curve is turned into a concave increasing one in the unit
//     square, (u, v): a convex curve is flipped vertically (v = 1 − y) and
//     a concave decreasing or convex increasing one is mirrored
//     horizontally (u = 1 − x, traversed from the right). The difference
//     curve is d = v − u. kneed mirrors by reversing the array of y
//     values, which equals this on evenly spaced x; on uneven x this
//     package mirrors the x values too, so the four shapes are exact
//     mirror images of each other.
//  4. Local maxima and minima of d: points not below (not above) both
//     neighbours, an end point being compared with itself, like kneed's
//     argrelextrema(…, greater_equal) with clipped ends. Differences below
//     a tolerance count as ties: 1e-12 in the unit square, or the
//     resolution of the data when larger (64 ulps of the largest |x| and
//     |y|, relative to their ranges; it matters only for values with a
//     large offset, like 1e6 + 1e-3·x).
//  5. Thresholds: T = d(lmx) − S·mean(Δu) for each local maximum, where
//     mean(Δu) = 1/(n−1).
//  6. Scanning from the first local maximum: at a local maximum the
//     threshold becomes its T; at a local minimum it is reset to 0 (the
//     paper's reset, with kneed's reading of it: until the next maximum,
//     only a drop below the chord, d < 0, still declares the previous
//     maximum); when the next value of d is below the current threshold, a
//     knee is declared at the local maximum the threshold came from. Offline (the default, kneed's online=False) the
//     first knee is returned: the paper's rule applied as the data are
//     read, which is also kneed's choice, rather than the maximum of d,
//     which is a different estimator (the point farthest from the chord).
//     Online, scanning continues and Result holds the last knee declared,
//     as kneed's online=True "corrects" old knees; Result.All lists them
//     all.
//
// Beyond kneed, and so that a knee is never invented: a knee must be an
// interior point with d above the tolerance (strictly above the chord), and
// a drop smaller than the tolerance is no drop. kneed can
// report the first point as the knee of a curve given the wrong shape;
// Kneedle reports no knee. Fewer than three points, a flat y (a relative
// spread below 1e-12) and a straight line have no knee.
//
// The result is invariant, up to the tie tolerance, under positive
// affine maps of x and of y (x → a·x + b, y → c·y + d with a, c > 0), and
// mirroring the data (negating y, or reversing the x axis) gives the
// mirrored knee once Curve and Direction are changed to match.
//
// # Threshold and OnlineKneedle
//
// Both implement Detector: Add(x, y) feeds a point and reports whether a
// knee has been accepted; once accepted it never moves. Threshold's exact
// rule, and where it differs from the MLLess code, is documented on the
// type; its defaults are MLLess's (EWMA span 20, slope −7.5e−5 per step,
// 5 stable checks). OnlineKneedle reruns Kneedle on all the points seen so
// far and accepts a knee once it has been the same for Stable points; note
// that Kneedle is scale-free, so on a growing prefix it finds a knee
// relative to the prefix, while Threshold's slope is absolute.
package knee
