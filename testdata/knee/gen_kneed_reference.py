#!/usr/bin/python3
# Random reference set for knee.Kneedle, judged by kneed 0.8.6.
#
# Regenerate (Debian's python3-numpy and python3-scipy; kneed 0.8.6's source,
# BSD-3-Clause, is read from ../shared/refs/kneed-0.8.6 relative to the
# repository's parent, or from $KNEED_SRC; nothing of kneed is copied here):
#
#     cd testdata/knee && /usr/bin/python3 gen_kneed_reference.py
#
# It writes kneed_reference.json: a "source" header (kneed, numpy, scipy and
# python versions, the seed, this command) and one case a line. Each case is a
# random curve, the KneeLocator arguments, and what kneed 0.8.6 answered:
#
#   knee, knee_y, norm_knee, norm_knee_y   kneed's attributes (null for None;
#                                          kneed leaves knee_y None when the
#                                          knee is x = 0, as `if self.knee:`
#                                          is false there)
#   all_knees, all_norm_knees              sorted (kneed keeps them in sets)
#   all_knees_y                            in the order kneed found them
#   rank_warning                           np.polyfit warned (polynomial only)
#
# The curves (a fixed seed, numpy's PCG64 default_rng):
#   * a concave increasing base f on t in [0, 1] (saturating exponential,
#     log, power, rational, hockey stick, logistic half, two knees, or a
#     straight line), turned into the requested shape (convex decreasing
#     -f(t), concave decreasing f(1-t), convex increasing -f(1-t)), scaled to
#     a random offset and range, plus Gaussian noise of a random relative
#     size (0 to 10 % of the range; the lines also get noise small enough
#     that no knee can exist, see knee.TestKneedleNoisyLine);
#   * x evenly spaced (integer steps from a random start, or a numpy linspace
#     between random ends) or, for about a quarter of the cases, unevenly
#     spaced (sorted uniform draws, a geometric grid, or a quadratic grid);
#   * S in {0.5, 1, 2}, online or offline, interp_method "interp1d" or
#     "polynomial" (degree 7, kneed's default, or 3, 5, 11).
# Every y is rounded to 10 significant digits and every x to 12 before kneed
# sees them, so the JSON holds exactly the numbers kneed was given.
#   * then TIES "tie" cases (interp1d, noise-free, nothing rounded: the JSON
#     holds the shortest repr of every float): piecewise-linear curves whose
#     difference curve has a plateau, on a linspace between random ends, so
#     that kneed's answer depends on how x-hat and y-hat round;
#   * "mean_checks": linspace grids and kneed's |mean(diff(x_normalized))|
#     computed by numpy (pairwise summation), chosen where a left-to-right
#     sum would round differently.
#
# knee/kneed_reference_test.go reads the file.
import json
import os
import platform
import sys
import warnings

import numpy as np
import scipy

HERE = os.path.dirname(os.path.abspath(__file__))
KNEED_SRC = os.environ.get(
    "KNEED_SRC",
    os.path.normpath(os.path.join(HERE, "..", "..", "..", "shared", "refs", "kneed-0.8.6")))
if not os.path.isdir(KNEED_SRC):
    KNEED_SRC = "/work/shared/refs/kneed-0.8.6"
sys.path.insert(0, KNEED_SRC)
import kneed  # noqa: E402
from kneed import KneeLocator  # noqa: E402

assert kneed.__version__ == "0.8.6", kneed.__version__

SEED = 20110620  # ICDCS Workshops 2011, the Kneedle paper
CASES = 800
TIES = 100
OUT = os.path.join(HERE, "kneed_reference.json")

rng = np.random.default_rng(SEED)


def logu(lo, hi):
    return float(np.exp(rng.uniform(np.log(lo), np.log(hi))))


def sig(a, digits):
    """Round to the given number of significant digits, exactly as stored."""
    return np.array([float("%.*g" % (digits, v)) for v in a], dtype=np.float64)


# ---------------------------------------------------------------- base curves
# Each returns a concave increasing f on t in [0, 1] (not necessarily f(0) = 0).

def base_exp(t):
    tau = logu(0.03, 0.5)
    return -np.expm1(-t / tau), "exp(tau=%.3g)" % tau


def base_log(t):
    c = logu(2, 1000)
    return np.log1p(c * t), "log1p(c=%.3g)" % c


def base_power(t):
    p = rng.uniform(0.1, 0.7)
    return t ** p, "power(p=%.3g)" % p


def base_rational(t):
    a = logu(0.02, 1)
    return t / (t + a), "rational(a=%.3g)" % a


def base_hockey(t):
    t0, h = rng.uniform(0.1, 0.6), rng.uniform(0.6, 0.95)
    return h * np.minimum(t, t0) / t0 + (1 - h) * t, "hockey(t0=%.3g,h=%.3g)" % (t0, h)


def base_logistic(t):
    k = rng.uniform(3, 20)
    return 1 / (1 + np.exp(-k * t)), "logistic(k=%.3g)" % k


def base_two(t):
    t1, tau1, tau2 = rng.uniform(0.3, 0.6), logu(0.02, 0.1), logu(0.02, 0.1)
    w = rng.uniform(0.3, 0.7)
    f = w * -np.expm1(-t / tau1) + (1 - w) * -np.expm1(-np.maximum(t - t1, 0) / tau2)
    return f, "two(t1=%.3g,tau=%.3g,%.3g,w=%.3g)" % (t1, tau1, tau2, w)


def base_line(t):
    return t.copy(), "line"


BASES = [base_exp, base_log, base_power, base_rational, base_hockey, base_logistic, base_two]
SHAPES = [("concave", "increasing"), ("concave", "decreasing"),
          ("convex", "increasing"), ("convex", "decreasing")]


def shaped(f_of, t, curve, direction):
    """The base turned into the requested shape, on the grid t."""
    if (curve, direction) == ("concave", "increasing"):
        return f_of(t)
    if (curve, direction) == ("convex", "decreasing"):
        return -f_of(t)
    if (curve, direction) == ("concave", "decreasing"):
        return f_of(1 - t)
    return -f_of(1 - t)  # convex increasing


# --------------------------------------------------------------------- x grids

def grid(n, even, poly):
    """x values (rounded to 12 digits) and the name of the grid."""
    if even:
        if rng.random() < 0.5:
            start = float(rng.integers(-5, 50)) if not poly else float(rng.integers(0, 3))
            return np.arange(n, dtype=np.float64) + start, "arange(%g)" % start
        span = logu(0.1, 1000)
        a = float("%.4g" % (rng.uniform(-1, 1) * span if not poly else rng.uniform(0, 0.5) * span))
        b = float("%.4g" % (a + span))
        return sig(np.linspace(a, b, n), 12), "linspace(%g,%g)" % (a, b)
    kind = rng.integers(3)
    span = logu(1, 1000)
    for _ in range(100):
        if kind == 0:
            x, name = np.sort(rng.uniform(0, span, n)), "sorted uniform"
        elif kind == 1:
            r = logu(1.01, 1.2)
            x, name = span * r ** np.arange(n) / r ** (n - 1), "geometric(r=%.3g)" % r
        else:
            x, name = span * (np.arange(n) / (n - 1)) ** 2, "quadratic"
        x = sig(x, 12)
        if np.all(np.diff(x) > 0):
            return x, name
    raise RuntimeError("no strictly increasing grid")


def tnorm(x):
    return (x - x[0]) / (x[-1] - x[0])


# ------------------------------------------------------------------ the cases

def kneed_answer(x, y, S, curve, direction, interp, online, degree):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        kl = KneeLocator(x, y, S=S, curve=curve, direction=direction,
                         interp_method=interp, online=online, polynomial_degree=degree)
    rank = any(issubclass(w.category, np.RankWarning) for w in caught)

    def f(v):
        return None if v is None else float(v)

    return {
        "knee": f(kl.knee), "knee_y": f(kl.knee_y),
        "norm_knee": f(kl.norm_knee), "norm_knee_y": f(kl.norm_knee_y),
        "all_knees": sorted(float(v) for v in kl.all_knees),
        "all_norm_knees": sorted(float(v) for v in kl.all_norm_knees),
        "all_knees_y": [float(v) for v in kl.all_knees_y],
        "rank_warning": rank,
    }


def make_case(i):
    curve, direction = SHAPES[i % 4]
    line = rng.random() < 0.15
    even = rng.random() >= 0.25
    poly = rng.random() < 0.4
    degree = 7
    if poly and rng.random() < 0.3:
        degree = int(rng.choice([3, 5, 11]))
    n = int(np.clip(np.exp(rng.uniform(np.log(5), np.log(200))), 5, 200))
    S = float(rng.choice([0.5, 1.0, 2.0]))
    online = bool(rng.random() < 0.5)

    x, xname = grid(n, even, poly)
    t = tnorm(x)
    if line:
        base = base_line
    else:
        base = BASES[rng.integers(len(BASES))]
    # Draw the base's parameters once, then evaluate it on any grid.
    state = rng.bit_generator.state
    _, bname = base(t)

    def f_of(tt):
        rng.bit_generator.state = state
        v, _ = base(tt)
        return v

    g = shaped(f_of, t, curve, direction)
    g = (g - g.min()) / (g.max() - g.min())
    if line:
        # Tiny noise (a spread well below S/(2(n-1)) of the range: no knee
        # can exist), or noise that may create knees.
        noise = float(rng.choice([0, 0.02 / n, 0.001, 0.01, 0.05]))
    else:
        noise = float(rng.choice([0, 0, 0.001, 0.003, 0.01, 0.03, 0.1]))
    scale, offset = logu(1e-3, 1e3), float(rng.uniform(-100, 100))
    if line and noise and noise < 0.001:
        e = rng.uniform(-noise / 2, noise / 2, n)  # bounded: spread < noise
    else:
        e = noise * rng.standard_normal(n)
    y = sig(offset + scale * (g + e), 10)
    interp = "polynomial" if poly else "interp1d"
    case = {
        "id": i, "curve": curve, "direction": direction, "S": S, "online": online,
        "interp": interp, "degree": degree, "even": even, "grid": xname,
        "base": bname, "noise": noise,
        "x": [float(v) for v in x], "y": [float(v) for v in y],
    }
    case.update(kneed_answer(x, y, S, curve, direction, interp, online, degree))
    return case


def make_tie_case(i):
    """A curve whose difference curve has a plateau: a piecewise-linear
    base with a middle segment parallel to the chord, evaluated exactly
    (nothing rounded), on a linspace between random ends. Which point of
    the plateau is a local maximum is decided by the rounding of x-hat and
    y-hat, so these cases check that Kneedle rounds as kneed does."""
    curve, direction = SHAPES[i % 4]
    n = int(rng.integers(8, 120))
    S = float(rng.choice([0.5, 1.0, 2.0]))
    online = bool(rng.random() < 0.5)
    # Half of them end the plateau on a grid point and then fall by exactly
    # S per unit of t (last slope 1 - S), so that the fall below kneed's
    # threshold is a tie too, decided by the rounding of the mean of
    # diff(x-hat).
    drop_tie = S < 2 and rng.random() < 0.5
    while True:
        t1, w, s1 = rng.uniform(0.1, 0.4), rng.uniform(0.1, 0.4), rng.uniform(1.5, 3)
        t2 = t1 + w
        if drop_tie:
            t2 = int(rng.integers(n // 3, n - 2)) / (n - 1)
            t1 = rng.uniform(0.1, 0.9) * t2
            s1 = 1 + S * (1 - t2) / t1
        f2 = s1 * t1 + (t2 - t1)
        if t1 + 0.05 < t2 < 0.95 and f2 <= 1:
            break
    s3 = (1 - f2) / (1 - t2)

    def f_of(tt):
        return np.where(tt < t1, s1 * tt, np.where(tt < t2, s1 * t1 + (tt - t1), f2 + s3 * (tt - t2)))

    a = float("%.4g" % rng.uniform(-10, 10))
    b = float("%.4g" % (a + logu(0.1, 100)))
    x = np.linspace(a, b, n)
    g = shaped(f_of, tnorm(x), curve, direction)
    y = float(rng.integers(-50, 50)) + float("%.3g" % logu(0.01, 100)) * g
    case = {
        "id": i, "curve": curve, "direction": direction, "S": S, "online": online,
        "interp": "interp1d", "degree": 7, "even": True, "grid": "linspace(%g,%g)" % (a, b),
        "base": "tie(t1=%.3g,t2=%.3g,s1=%.3g,s3=%.3g)" % (t1, t2, s1, s3), "noise": 0.0,
        "x": [float(v) for v in x], "y": [float(v) for v in y],
    }
    case.update(kneed_answer(x, y, S, curve, direction, "interp1d", online, 7))
    return case


def mean_checks():
    """kneed's S-step, |mean(diff(x_normalized))|, on linspace grids whose
    numpy (pairwise) sum differs from a left-to-right sum."""
    out = []
    for n in [7, 9, 100, 129, 257, 1000, 3001]:
        for _ in range(100):
            a = float("%.4g" % rng.uniform(-10, 10))
            b = float("%.4g" % (a + logu(0.1, 100)))
            x = np.linspace(a, b, n)
            xn = (x - min(x)) / (max(x) - min(x))
            d = np.diff(xn)
            seq = 0.0
            for v in d:
                seq += float(v)
            m = float(np.abs(d.mean()))
            if n < 9 or seq / (n - 1) != m:
                break
        out.append({"x": [float(v) for v in x], "mean": m})
    return out


def main():
    cases = [make_case(i) for i in range(CASES)]
    cases += [make_tie_case(CASES + i) for i in range(TIES)]
    means = mean_checks()
    src = {
        "generator": "testdata/knee/gen_kneed_reference.py",
        "command": "cd testdata/knee && /usr/bin/python3 gen_kneed_reference.py",
        "kneed": kneed.__version__ + " (github.com/arvkevi/kneed, BSD-3-Clause; source from ../shared/refs/kneed-0.8.6, not copied)",
        "numpy": np.__version__,
        "scipy": scipy.__version__,
        "python": platform.python_version(),
        "seed": SEED,
        "rng": "numpy.random.default_rng (PCG64)",
        "cases": len(cases),
    }
    with open(OUT, "w") as fh:
        fh.write('{"source": %s,\n"cases": [\n' % json.dumps(src, sort_keys=True))
        fh.write(",\n".join(json.dumps(c, separators=(",", ":")) for c in cases))
        fh.write('\n],\n"mean_checks": [\n')
        fh.write(",\n".join(json.dumps(m, separators=(",", ":")) for m in means))
        fh.write("\n]}\n")
    even = sum(c["even"] for c in cases)
    found = sum(c["knee"] is not None for c in cases)
    print("wrote %s: %d cases (%d even x), kneed found a knee in %d" % (OUT, len(cases), even, found))


if __name__ == "__main__":
    main()
