#!/usr/bin/python3
# Reference data for package knee (knee/kneedle_test.go, knee/threshold_test.go).
#
# Regenerate (Debian python3 with numpy; kneed itself is not packaged for
# Debian and PyPI is not reachable here, so nothing below imports kneed):
#
#     cd testdata/knee && /usr/bin/python3 make_refs.py
#
# What this script provides, and what it does not:
#
#   * curves that kneed's test suite (arvkevi/kneed, tests/test_sample.py)
#     draws from numpy's legacy global RandomState, which Go cannot
#     reproduce: the sorted gamma sample of test_gamma_online_offline
#     (np.random.seed(23); 1000 draws of gamma(0.5, 1.0), sorted in
#     decreasing order) and kneed's DataGenerator.noisy_gaussian(mu=50,
#     sigma=10, N=1000, seed=42) (np.random.seed(42); sorted normal draws;
#     y = i/N). The EXPECTED KNEES for these curves are not computed here:
#     they are kneed's own assertions, quoted in the Go tests;
#   * least-squares polynomial fits of a few curves, evaluated at the data,
#     to check the Go polynomial smoothing (Interp) against numpy, both
#     np.polyfit (what kneed's interp_method="polynomial" calls) and the
#     better-conditioned np.polynomial.Polynomial.fit;
#   * a trace of the first-derivative threshold detector (knee.Threshold) on
#     a seeded noisy loss curve, computed from the documented definition in
#     plain numpy (bias-corrected EWMA written as an explicit weighted sum,
#     not as the recursion the Go code uses), for a differential test.
import json
import platform

import numpy as np

SOURCE = {
    "python": platform.python_version(),
    "numpy": np.__version__,
    "script": "testdata/knee/make_refs.py",
}


def dump(name, obj):
    obj = dict(obj)
    obj["source"] = dict(SOURCE, **obj.get("source", {}))
    with open(name, "w") as f:
        json.dump(obj, f, indent=1, sort_keys=True)
        f.write("\n")
    print("wrote", name)


def tolist(a):
    return np.asarray(a, dtype=np.float64).tolist()


# ------------------------------------------------------------ kneed curves

np.random.seed(23)
n = 1000
gamma_x = np.arange(1, n + 1, dtype=np.float64)
gamma_y = np.array(sorted(np.random.gamma(0.5, 1.0, n), reverse=True))

np.random.seed(42)
gauss_x = np.sort(np.random.normal(loc=50, scale=10, size=1000))
gauss_y = np.arange(1000) / 1000.0

dump("curves.json", {
    "gamma": {"x": tolist(gamma_x), "y": tolist(gamma_y),
              "source": {"recipe": "np.random.seed(23); sorted(np.random.gamma(0.5, 1.0, 1000), reverse=True); x = 1..1000 (kneed tests/test_sample.py test_gamma_online_offline)"}},
    "noisy_gaussian": {"x": tolist(gauss_x), "y": tolist(gauss_y),
                       "source": {"recipe": "np.random.seed(42); x = np.sort(np.random.normal(50, 10, 1000)); y = arange(1000)/1000 (kneed DataGenerator.noisy_gaussian(mu=50, sigma=10, N=1000, seed=42))"}},
})

# ------------------------------------------------------- polynomial smoothing

fig2_x = np.linspace(0.0, 1, 10)
fig2_y = -1.0 / (fig2_x + 0.1) + 5

polys = []
for name, x, y, deg in [
    ("figure2", fig2_x, fig2_y, 7),
    ("figure2", fig2_x, fig2_y, 3),
    ("noisy_gaussian", gauss_x, gauss_y, 11),
    ("gamma", gamma_x, gamma_y, 7),
]:
    polyfit = np.poly1d(np.polyfit(x, y, deg))(x)
    cheb = np.polynomial.Polynomial.fit(x, y, deg)(x)
    polys.append({"curve": name, "degree": deg, "x": tolist(x), "y": tolist(y),
                  "polyfit": tolist(polyfit), "fit": tolist(cheb)})
dump("poly.json", {"cases": polys})

# ------------------------------------------------------ threshold detector


def ewma(v, span):
    """Bias-corrected EWMA (pandas ewm(span).mean(), adjust=True) as an
    explicit weighted sum: s_i = sum_j w^(i-j) v_j / sum_j w^(i-j)."""
    w = 1.0 - 2.0 / (span + 1.0)
    out = np.empty(len(v))
    for i in range(len(v)):
        k = w ** np.arange(i, -1, -1, dtype=np.float64)
        out[i] = np.dot(k, v[: i + 1]) / k.sum()
    return out


def threshold_trace(t, loss, span, slope, stable):
    s = ewma(loss, span)
    d = np.diff(s) / np.diff(t)          # slope into point i, i >= 1
    g = ewma(d, span)                    # smoothed slope; g[k] belongs to point k+1
    steep = False
    run = 0
    start = -1
    knee, found_at = -1, -1
    for k in range(len(g)):
        i = k + 1
        if g[k] > slope:                 # flatter than the threshold
            if steep:
                if run == 0:
                    start = i
                run += 1
                if run >= stable:
                    knee, found_at = start, i
                    break
        else:
            steep = True
            run = 0
    return s, g, knee, found_at


rng = np.random.RandomState(7)
steps = np.arange(400, dtype=np.float64)
loss = 0.3 + 0.7 * np.exp(-steps / 40.0) + rng.normal(0, 0.002, size=steps.size)
traces = []
for span, slope, stable in [(20, -7.5e-5, 5), (20, -1e-3, 5), (5, -1e-3, 1), (1, -1e-3, 3)]:
    s, g, knee, found_at = threshold_trace(steps, loss, span, slope, stable)
    traces.append({"span": span, "slope": slope, "stable": stable,
                   "smoothed": tolist(s), "smoothed_slope": tolist(g),
                   "knee": int(knee), "found_at": int(found_at)})
dump("threshold.json", {
    "t": tolist(steps), "loss": tolist(loss), "traces": traces,
    "source": {"recipe": "RandomState(7); loss = 0.3 + 0.7*exp(-t/40) + N(0, 0.002), t = 0..399"},
})
