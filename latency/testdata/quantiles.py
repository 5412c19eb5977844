#!/usr/bin/env python3
"""Reference quantiles of latency.Dist mixtures, for quantile_test.go.

Independent of the Go code: the lognormal body's CDF is Python's
statistics.NormalDist (standard library, erf-based), the Pareto tail's
is 1 - (x_m/x)^alpha, and the mixture's q-quantile is the least integer
nanosecond x with CDF(x) >= q, found by bisection on [0, 2^63).

    python3 latency/testdata/quantiles.py > latency/testdata/quantiles.json
"""
import json
import math
from statistics import NormalDist

STD = NormalDist()

# name, median_ns, sigma, p, scale_ns, alpha
DISTS = [
    ("default", 5e6, 0.5, 1e-4, 10e9, 1.5),
    ("rare2s", 0, 0, 0.01, 2e9, 1.5),
    ("overlap", 1e9, 1.0, 0.3, 0.5e9, 1.2),
    ("lognormal", 20e6, 0.8, 0, 0, 0),
    ("pareto", 0, 0, 1, 1e9, 2.5),
    ("fixed", 7e6, 0, 0, 0, 0),
]
# q = 1 - p is left out: there the quantile jumps from the body's far end
# to Scale, and which side a computation lands on depends on rounding.
QS = [0.5, 0.9, 0.99, 0.999, 0.99995, 0.99999]


def cdf(x, median, sigma, p, scale, alpha):
    if median == 0 and sigma == 0:
        body = 1.0  # no body delay: all mass at 0
    elif sigma == 0:
        body = 1.0 if x >= median else 0.0
    else:
        body = 0.0 if x <= 0 else STD.cdf((math.log(x) - math.log(median)) / sigma)
    tail = 0.0
    if p > 0 and x >= scale:
        tail = 1 - (scale / x) ** alpha
    return (1 - p) * body + p * tail


def quantile(q, *d):
    lo, hi = -1, 2**63 - 1  # cdf(lo) < q <= cdf(hi)
    while lo + 1 < hi:
        mid = (lo + hi) // 2
        if cdf(mid, *d) >= q:
            hi = mid
        else:
            lo = mid
    return hi


out = []
for name, *d in DISTS:
    out.append({"name": name, "median_ns": d[0], "sigma": d[1], "p": d[2], "scale_ns": d[3], "alpha": d[4],
                "quantiles": [{"q": q, "ns": quantile(q, *d)} for q in QS if abs(q - (1 - d[2])) > 1e-12]})
print(json.dumps(out, indent=1))
