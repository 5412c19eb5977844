#!/usr/bin/python3
# Reference values for package curvefit (NNLS, EWMA, learning-curve fits).
#
# Regenerate (Debian python: scipy 1.10.1, numpy 1.24.2, mpmath 1.2.1):
#
#     cd testdata/curvefit && /usr/bin/python3 make_refs.py
#
# Outputs (every file names its source):
#   nnls.json   scipy.optimize.nnls on seeded random, ill-conditioned,
#               rank-deficient and scipy-bug-report problems, with the TRUE
#               optimum computed independently (exhaustive active-set
#               enumeration for n <= 12; otherwise the support of the best
#               candidate re-solved and KKT-verified in 60-digit mpmath) and a
#               KKT verdict on scipy's answer.
#   ewma.json   pandas ewm(span).mean() semantics (adjust=True and False)
#               written out in numpy from the explicit weighted-sum formula
#               (pandas is not installed here).
#   fits.json   noisy learning curves (MLLess Eq. 2 and Eq. 3) fitted with
#               scipy.optimize.curve_fit(bounds=(0, inf)) from several
#               starting points, as the MLLess authors' code does.
#   timing.json scipy.optimize.nnls wall time on the 200x4 benchmark problem.
#
# Everything is float64 and deterministic (numpy RandomState / default_rng
# with fixed seeds); only timing.json varies from run to run.
#
# The scipy bug reports against the 1.12-1.15 nnls rewrites (gh-21140,
# gh-21630, gh-22884, gh-25389) are represented as follows; the stored copies
# of the threads do not contain the full arrays (attachments / truncated):
#   gh25389  A = [[1,1],[3,2]], b = [2,3], reconstructed from the reported
#            numbers (unconstrained [-1,3], optimum [0,1.6], residual sqrt(0.2),
#            and the wrong x = [0.82399855, 0.39428778] whose residual this A, b
#            reproduce to 9 digits: 0.8239985542 vs the reported 0.823998554389).
#   gh22884  the two rows of A printed in the report, plus generated rows with
#            the same column scales (1e5..1e9), float32-rounded like the report.
#   gh21630  same magnitudes as the report (A ~ 1e-21, b ~ 1e-8), and the same
#            problem rescaled, on a 50x30 matrix (the 1074x1257 .npz is an
#            attachment).
#   gh21140  an exponential-kernel (Laplace inversion) problem, cond ~ 1e17,
#            the kind of degenerate Jacobian the reporter describes (his
#            matrix is an attachment).
# scipy 1.10.1 here is the Fortran Lawson-Hanson code that predates those
# versions: every case records scipy_ok, and it is True for all of them.
import itertools
import json
import platform
import timeit

import mpmath
import numpy as np
import scipy
from scipy.optimize import curve_fit, lsq_linear, nnls

SOURCE = {
    "python": platform.python_version(),
    "numpy": np.__version__,
    "scipy": scipy.__version__,
    "mpmath": mpmath.__version__,
    "script": "testdata/curvefit/make_refs.py",
}
EPS = np.finfo(float).eps
mpmath.mp.dps = 60


def dump(name, obj):
    """Write obj as JSON: top-level keys one per line, each list element
    (a test case) compact on its own line."""
    obj = dict(obj)
    obj["source"] = dict(SOURCE, **obj.get("source", {}))
    enc = lambda v: json.dumps(v, sort_keys=True, allow_nan=False)  # noqa: E731
    lines = []
    for k in sorted(obj):
        v = obj[k]
        if isinstance(v, list) and v and isinstance(v[0], dict):
            body = ",\n  ".join(enc(e) for e in v)
            lines.append(f"{json.dumps(k)}: [\n  {body}\n ]")
        else:
            lines.append(f"{json.dumps(k)}: {enc(v)}")
    with open(name, "w") as f:
        f.write("{\n " + ",\n ".join(lines) + "\n}\n")
    print("wrote", name)


def tolist(a):
    return np.asarray(a, dtype=np.float64).tolist()


# ---------------------------------------------------------------- NNLS


def kkt(A, b, x):
    """KKT residuals of min ||Ax-b|| s.t. x >= 0, scaled to be comparable.

    Returns (feas, dual, compl): max(-x)/||x||, max(-g)/scale and
    max|x_i g_i|/(||x|| scale) with g = A^T(Ax-b) and
    scale = ||A||_F (||A||_F ||x|| + ||b||)."""
    g = A.T @ (A @ x - b)
    xs = max(np.linalg.norm(x, np.inf), 1e-300)
    scale = np.linalg.norm(A) * (np.linalg.norm(A) * np.linalg.norm(x) + np.linalg.norm(b))
    scale = max(scale, 1e-300)
    return (float(max(0.0, -x.min()) / xs),
            float(max(0.0, -g.min()) / scale),
            float(np.abs(x * g).max() / max(xs * scale, 1e-300)))


def kkt_ok(A, b, x, tol=1e-9):
    f, d, c = kkt(A, b, x)
    return f <= 0 and d <= tol and c <= tol


def enumerate_optimum(A, b):
    """Exhaustive active-set enumeration: for every support S with A_S of
    full column rank, the least-squares solution on S; keep the feasible ones
    (x_S >= 0) and return the one with the smallest residual. Some optimal
    solution always has a linearly independent support, so this is the
    global optimum."""
    m, n = A.shape
    best, bestr = np.zeros(n), np.linalg.norm(b)
    for k in range(1, min(m, n) + 1):
        for S in itertools.combinations(range(n), k):
            AS = A[:, S]
            if np.linalg.matrix_rank(AS) < k:
                continue
            xs = np.linalg.lstsq(AS, b, rcond=None)[0]
            if xs.min() < 0:
                continue
            x = np.zeros(n)
            x[list(S)] = xs
            r = np.linalg.norm(A @ x - b)
            if r < bestr * (1 - 1e-13):
                best, bestr = x, r
    return best


def mp_solve_support(A, b, S):
    """Solve the least-squares problem on support S in 60-digit arithmetic
    (normal equations are exact enough at 60 digits) and verify KKT there.
    Returns (x as float64, rnorm, verified)."""
    m, n = A.shape
    S = [int(j) for j in S]
    x = np.zeros(n)
    if not S:
        r = mpmath.sqrt(mpmath.fsum(mpmath.mpf(v) ** 2 for v in b))
        g = [-mpmath.fsum(mpmath.mpf(A[i, j]) * mpmath.mpf(b[i]) for i in range(m)) for j in range(n)]
        return x, float(r), all(gj >= 0 for gj in g)
    AS = mpmath.matrix([[mpmath.mpf(A[i, j]) for j in S] for i in range(m)])
    bm = mpmath.matrix([mpmath.mpf(v) for v in b])
    N = AS.T * AS
    xs = mpmath.lu_solve(N, AS.T * bm)
    Am = mpmath.matrix([[mpmath.mpf(A[i, j]) for j in range(n)] for i in range(m)])
    xm = mpmath.matrix(n, 1)
    for k, j in enumerate(S):
        xm[j] = xs[k]
    r = Am * xm - bm
    g = Am.T * r
    rn = mpmath.sqrt(mpmath.fsum(v ** 2 for v in r))
    gscale = mpmath.mpf(np.linalg.norm(A)) * (mpmath.mpf(np.linalg.norm(A)) *
                                               mpmath.sqrt(mpmath.fsum(v ** 2 for v in xm)) +
                                               mpmath.mpf(np.linalg.norm(b)))
    ok = all(xs[k] > 0 for k in range(len(S))) and all(
        g[j] >= -gscale * mpmath.mpf(10) ** -40 for j in range(n) if j not in S)
    for j in range(n):
        x[j] = float(xm[j])
    return x, float(rn), ok


def true_optimum(A, b):
    """The true NNLS optimum, computed independently of scipy.nnls."""
    m, n = A.shape
    if n <= 12:
        xe = enumerate_optimum(A, b)
        S = np.nonzero(xe)[0]
        x, rn, ok = mp_solve_support(A, b, S)
        if ok:
            return x, rn, "enumeration+mpmath"
        # Degenerate (rank-deficient) supports: keep the float64 enumeration.
        return xe, float(np.linalg.norm(A @ xe - b)), "enumeration"
    # Larger problems: candidate supports from scipy.nnls and bounded
    # least squares (BVLS), each re-solved in 60 digits; keep a verified one.
    cands = [nnls(A, b, maxiter=50 * n)[0],
             lsq_linear(A, b, bounds=(0, np.inf), method="bvls", tol=1e-15, max_iter=100 * n).x]
    for xc in cands:
        # Supports: the candidate's, and the candidate's without entries at
        # rounding level (weakly active constraints: x_j = 0 and g_j = 0).
        for S in (np.nonzero(xc > 0)[0], np.nonzero(xc > 1e-10 * xc.max())[0]):
            x, rn, ok = mp_solve_support(A, b, S)
            if ok:
                return x, rn, "support+mpmath"
    # Degenerate exact fits (b in the cone up to rounding): no support
    # verifies at 60 digits because b itself carries float64 rounding; keep
    # the candidate with the smaller residual (tests then compare residuals).
    best = min(cands, key=lambda xc: np.linalg.norm(A @ xc - b))
    return best, float(np.linalg.norm(A @ best - b)), "best-candidate"



def finite_or(v, alt=-1.0):
    """JSON has no Inf: singular matrices get cond = -1."""
    return float(v) if np.isfinite(v) else alt


def x_unique(A, b, x):
    """Whether the optimum x is unique. Ax is the same for every optimum
    (the objective is strictly convex in Ax), hence so is g = A^T(Ax-b), and
    every optimum is supported on S u W (S = support of x, W = weakly active
    j with g_j ~ 0). So x is unique iff the columns S u W are independent."""
    g = A.T @ (A @ x - b)
    scale = max(np.linalg.norm(A) * (np.linalg.norm(A) * np.linalg.norm(x) + np.linalg.norm(b)), 1e-300)
    SW = np.nonzero((x > 0) | (np.abs(g) <= 1e-9 * scale))[0]
    if len(SW) == 0:
        return True
    return bool(np.linalg.matrix_rank(A[:, SW]) == len(SW))


def cond_support(A, x):
    S = np.nonzero(x > 0)[0]
    if len(S) == 0:
        return 1.0
    s = np.linalg.svd(A[:, S], compute_uv=False)
    return float(s[0] / s[-1]) if s[-1] > 0 else float("inf")


nnls_cases = []


def add_case(name, A, b, note="", group="random", maxiter=None, gen_x=None):
    A = np.ascontiguousarray(A, dtype=np.float64)
    b = np.ascontiguousarray(b, dtype=np.float64)
    m, n = A.shape
    try:
        xs, rs = nnls(A, b, maxiter=maxiter) if maxiter else nnls(A, b)
        scipy_err = ""
    except RuntimeError as e:
        xs, rs, scipy_err = np.full(n, np.nan), float("nan"), str(e)
    xt, rt, how = true_optimum(A, b)
    assert kkt_ok(A, b, xt), name
    scipy_ok = (not scipy_err) and kkt_ok(A, b, xs) and abs(rs - rt) <= 1e-9 * rt + 1e-12 * np.linalg.norm(b)
    case = {
        "name": name, "group": group, "note": note, "m": m, "n": n,
        "a": tolist(A.ravel()), "b": tolist(b),
        "scipy_x": tolist(np.nan_to_num(xs, nan=-1.0)), "scipy_rnorm": float(np.nan_to_num(rs, nan=-1.0)),
        "scipy_error": scipy_err, "scipy_kkt": list(kkt(A, b, xs)) if not scipy_err else [],
        "scipy_ok": bool(scipy_ok),
        "true_x": tolist(xt), "true_rnorm": rt, "true_method": how,
        "cond": finite_or(np.linalg.cond(A)),
        "cond_support": finite_or(cond_support(A, xt)),
        "b_norm": float(np.linalg.norm(b)),
        "gen_x": tolist(gen_x) if gen_x is not None else [],
        "x_unique": x_unique(A, b, xt),
    }
    nnls_cases.append(case)
    print(f"{name:28s} {m:4d}x{n:<4d} cond={case['cond']:.2e} condS={case['cond_support']:.2e} "
          f"scipy_ok={scipy_ok} {scipy_err} true={how} unique={case['x_unique']}")


rs = np.random.RandomState(20240611)
# Seeded random problems: b = A x_true + noise with x_true having zeros
# (active constraints at the optimum), and pure-noise b.
for (m, n) in [(200, 4), (200, 4), (50, 10), (50, 10), (100, 8), (12, 12), (10, 10), (6, 6),
               (30, 3), (3, 3), (1, 1), (5, 1), (4, 6), (3, 7)]:
    A = rs.standard_normal((m, n))
    xt = np.abs(rs.standard_normal(n))
    xt[rs.rand(n) < 0.4] = 0
    b = A @ xt + 0.1 * rs.standard_normal(m)
    add_case(f"rand_{m}x{n}_sparse", A, b)
    b = rs.standard_normal(m)
    add_case(f"rand_{m}x{n}_noise", A, b)
# Nonnegative data (like curve-fit design matrices): all columns positive.
for (m, n) in [(200, 4), (40, 3)]:
    A = rs.uniform(0, 1, (m, n))
    b = A @ np.array([1.0, 0, 2, 0.5][:n]) + 0.05 * rs.standard_normal(m)
    add_case(f"pos_{m}x{n}", A, b)

# Ill-conditioned: Vandermonde / Hilbert columns (cond 1e8 .. 1e13).
for n in [6, 9, 11, 13]:
    t = np.linspace(0, 1, 40)
    A = np.vander(t, n, increasing=True)
    b = np.exp(-3 * t) + 0.5 * t
    add_case(f"vander_40x{n}", A, b, group="illcond")
    b = A @ np.abs(rs.standard_normal(n)) + 1e-3 * rs.standard_normal(40)
    add_case(f"vander_40x{n}_pos", A, b, group="illcond")
for lo, n in [(0, 11), (0, 13), (1, 7), (1, 9)]:
    t = np.linspace(lo, lo + 1, 30)
    A = np.vander(t, n, increasing=True)
    add_case(f"vander_30x{n}_t{lo}_exact", A, A @ np.ones(n), group="illcond", note="exact fit x = 1, all active")
    add_case(f"vander_30x{n}_t{lo}_near", A, A @ np.ones(n) + 1e-6 * rs.standard_normal(30), group="illcond",
             note="x = 1 plus 1e-6 noise")
for n in [6, 8, 10]:
    H = 1.0 / (np.arange(n)[:, None] + np.arange(n)[None, :] + 1.0)
    add_case(f"hilbert_{n}", H, H @ np.ones(n), group="illcond", note="exact fit x = 1")
    add_case(f"hilbert_{n}_mixed", H, rs.standard_normal(n), group="illcond")
    Ht = 1.0 / (np.arange(3 * n)[:, None] + np.arange(n)[None, :] + 1.0)
    add_case(f"hilbert_{3*n}x{n}", Ht, np.sin(np.arange(3 * n)), group="illcond")

# Rank-deficient.
a = np.arange(25.0).reshape(-1, 5)
add_case("arange_5x5_rank2", a, a @ np.arange(5.0), group="rankdef",
         note="scipy test_nnls: rank 2, exact fit; solution not unique, residual is")
A = rs.standard_normal((20, 4))
A = np.column_stack([A, A[:, 0], A[:, 1] + A[:, 2]])
add_case("dupcols_20x6", A, rs.standard_normal(20), group="rankdef", note="duplicated / dependent columns")
add_case("dupcols_20x6_fit", A, A @ np.array([1.0, 2, 0, 0.5, 0, 0]), group="rankdef",
         note="duplicated / dependent columns, exact fit")
A = rs.standard_normal((15, 5))
A[:, 2] = 0
add_case("zerocol_15x5", A, rs.standard_normal(15), group="rankdef", note="a zero column")
add_case("zero_matrix_4x3", np.zeros((4, 3)), np.ones(4), group="rankdef", note="A = 0")
add_case("negative_b", np.array([[1.0, 0], [1, 0], [0, 1]]), np.array([-1.0, -1, -1]),
         group="docs", note="scipy docs example 2: x = 0")
add_case("docs_example", np.array([[1.0, 0], [1, 0], [0, 1]]), np.array([2.0, 1, 1]),
         group="docs", note="scipy docs example 1")

# scipy's own test suite (scipy/optimize/tests/test_nnls.py, 1.12+).
rng = np.random.default_rng(1685225766635251)
a = rng.uniform(low=-10, high=10, size=[50, 10])
x = np.abs(rng.uniform(low=-2, high=2, size=[10]))
x[::2] = 0
add_case("scipy_test_nnls_tall", a, a @ x, group="scipytest", note="scipy test_nnls_tall; exact fit", gen_x=x)
a = rng.uniform(low=-10, high=10, size=[100, 120])
x = np.abs(rng.uniform(low=-2, high=2, size=[120]))
x[::2] = 0
add_case("scipy_test_nnls_wide", a, a @ x, group="scipytest", note="scipy test_nnls_wide 100x120; exact fit",
         gen_x=x)
nn = np.array([3, 2, 0, 1, 1, 1, 3, 8, 14, 16, 29, 23, 41, 47, 53, 57, 67, 76, 103, 89, 97, 94, 85, 95, 78, 78,
               78, 77, 73, 50, 50, 56, 68, 98, 95, 112, 134, 145, 158, 172, 213, 234, 222, 215, 216, 216, 206,
               183, 135, 156, 110, 92, 63, 60, 52, 29, 20, 16, 12, 5, 5, 5, 1, 2, 3, 0, 2], dtype=float)
kk = np.array([0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0.7205812007860187,
               0., 1.4411624015720375, 0.7205812007860187, 2.882324803144075, 5.76464960628815, 5.76464960628815,
               12.249880413362318, 15.132205216506394, 20.176273622008523, 27.382085629868712, 48.27894045266326,
               47.558359251877235, 68.45521407467177, 97.99904330689854, 108.0871801179028, 135.46926574777152,
               140.51333415327366, 184.4687874012208, 171.49832578707245, 205.36564222401535, 244.27702706646033,
               214.01261663344755, 228.42424064916793, 232.02714665309804, 205.36564222401535, 172.9394881886445,
               191.67459940908097, 162.1307701768542, 153.48379576742198, 110.96950492104689, 103.04311171240067,
               86.46974409432225, 60.528820866025576, 43.234872047161126, 23.779179625938617, 24.499760826724636,
               17.29394881886445, 11.5292992125763, 5.76464960628815, 5.044068405502131, 3.6029060039300935, 0.,
               2.882324803144075, 0., 0., 0.])
N = len(nn)
A = np.diag(nn) @ np.tril(np.ones((N, N)))
w = nn ** 0.5
nz = (nn == 0).nonzero()[0]
A[nz, nz] = 1
A[nz, np.minimum(nz + 1, N - 1)] = -1
w[nz] = 1
kk[nz] = 0
W = np.diag(w)
add_case("scipy_test_max_iterations", W @ A, W @ kk, group="scipytest",
         note="scipy test_nnls_max_iterations: 67x67 monotone-regression system that made the "
              "1.12 Python nnls loop forever")

# --- scipy bug reports against the 1.12-1.15 re-implementations ---------
# gh-25389 (1.15.3: suboptimal x and rnorm = 0). The stored copy of the
# thread gives the numbers but not the arrays: unconstrained solution
# [-1, 3], optimum [0, 1.6] with residual sqrt(0.2), and the wrong answer
# x = [0.82399855, 0.39428778] whose true residual is 0.823998554389196.
# A = [[1,1],[3,2]], b = [2,3] reproduces all four numbers (the wrong x
# gives 0.82399855421 here, 9 digits, the printed x has 8).
A = np.array([[1.0, 1.0], [3.0, 2.0]])
b = np.array([2.0, 3.0])
wrong = np.array([0.82399855, 0.39428778])
add_case("gh25389", A, b, group="scipybug",
         note="scipy gh-25389 (1.15.3 returned x=[0.82399855,0.39428778], rnorm=0.0); reconstructed: "
              f"that x has residual {np.linalg.norm(A @ wrong - b):.10f} here, the report says 0.823998554389196")
# gh-22884 (1.12-1.14 hit maxiter, 1.15 slow): float32 inputs whose
# columns span 1e4..1e9. Only the first two rows of the 5-column A survive
# in the stored thread; they are used verbatim and more rows are generated
# in the same style (positive, column scales 1e5, 1e9, 1e7, 1e6, 1e7,
# float32-rounded).
top = np.array([[8.5419688e+04, 2.8762511e+09, 5.8911850e+06, 3.6511747e+05, 2.1492122e+07],
                [1.8155008e+06, 5.0665938e+09, 4.1405824e+07, 3.2851505e+06, 7.7240560e+07]])
scales = np.array([1e6, 5e9, 4e7, 3e6, 7e7])
rest = rs.uniform(0.02, 1.0, (38, 5)) * scales * rs.lognormal(0, 1, (38, 1))
A = np.vstack([top, rest]).astype(np.float32).astype(np.float64)
b = (A @ np.array([2e-3, 0, 1e-1, 3e-1, 0]) * (1 + 0.05 * rs.standard_normal(40))).astype(np.float32).astype(np.float64)
add_case("gh22884_style", A, b, group="scipybug",
         note="scipy gh-22884 style: float32 data, column scales 1e5..1e9 (first two rows verbatim from the report)")
A2 = np.vstack([top, rest])
b2 = A2 @ np.array([1e-4, 1e-6, 1e-2, 0, 2e-3]) + 1e3 * rs.standard_normal(40)
add_case("gh22884_style_noisy", A2, b2, group="scipybug", note="scipy gh-22884 style, float64, noisy")
# gh-21630 (1.12-1.14 returned x = 0 for A ~ 1e-21, b ~ 1e-8: an absolute
# tolerance). The 1074x1257 .npz attachment is not in the stored thread;
# the same scales on a 50x30 problem whose optimum has many active
# constraints (a wide one would fit exactly and have no unique x).
A = rs.standard_normal((50, 30)) * 1e-21
b = A @ np.where(rs.rand(30) < 0.5, 0.0, rs.exponential(1e13, 30)) + 2e-8 * rs.standard_normal(50)
add_case("gh21630_style_tiny", A, b, group="scipybug",
         note="scipy gh-21630 style: A ~ 1e-21, b ~ 1e-8 (x ~ 1e13), 50x30; scale invariance")
add_case("gh21630_style_scaled", A * 1e21, b * 1e8, group="scipybug",
         note="gh21630_style_tiny with A*1e21, b*1e8: x must equal tiny's x * 1e-13")
# gh-21140 (normal equations in the 1.12 rewrite lose the ill-conditioned
# case; the reporter's matrix is an attachment). A multi-exponential
# (Laplace) kernel, the classic NNLS inversion, cond ~ 1e17, optimum sparse.
tt = np.linspace(0.01, 3, 80)
T = np.logspace(-2, 1, 30)
A = np.exp(-tt[:, None] / T[None, :])
b = A @ np.where(np.isin(np.arange(30), [6, 16, 23]), 1.0, 0.0) + 1e-4 * rs.standard_normal(80)
add_case("gh21140_style_laplace", A, b, group="scipybug",
         note="scipy gh-21140 style: exponential kernel 80x30, cond ~1e17, sparse optimum")

# Benchmark problem (same generator as the Go benchmark's, stored here so
# both sides time the same numbers).
rb = np.random.RandomState(7)
Ab = rb.standard_normal((200, 4))
bb = Ab @ np.array([1.0, 0.0, 2.0, 0.5]) + 0.3 * rb.standard_normal(200)
add_case("bench_200x4", Ab, bb, group="bench")

dump("nnls.json", {"cases": nnls_cases})

# timing: scipy.nnls on the 200x4 benchmark problem
t = timeit.Timer(lambda: nnls(Ab, bb))
n_inner = 20000
best = min(t.repeat(repeat=7, number=n_inner)) / n_inner
t2 = timeit.Timer(lambda: nnls(np.ascontiguousarray(Ab), bb))
print(f"scipy nnls 200x4: {best*1e6:.2f} us/call")
dump("timing.json", {"scipy_nnls_200x4_us": best * 1e6, "method": "timeit min of 7 repeats x 20000 calls",
                     "note": "varies per machine and run; 2-core project machine"})

# ---------------------------------------------------------------- EWMA


def ewma_adjust(x, span):
    """pandas ewm(span=span, adjust=True, ignore_na=False).mean(), explicit:
    y_t = sum_{i<=t, x_i not NaN} (1-a)^(t-i) x_i / sum (1-a)^(t-i), a = 2/(span+1);
    NaN before the first observation."""
    a = 2.0 / (span + 1.0)
    out = np.full(len(x), np.nan)
    for t in range(len(x)):
        i = np.arange(t + 1)
        ok = ~np.isnan(x[: t + 1])
        if not ok.any():
            continue
        w = (1 - a) ** (t - i[ok])
        out[t] = np.sum(w * x[: t + 1][ok]) / np.sum(w)
    return out


def ewma_noadjust(x, span):
    """pandas ewm(span=span, adjust=False).mean() for NaN-free x:
    y_0 = x_0, y_t = (1-a) y_{t-1} + a x_t."""
    a = 2.0 / (span + 1.0)
    out = np.empty(len(x))
    out[0] = x[0]
    for t in range(1, len(x)):
        out[t] = (1 - a) * out[t - 1] + a * x[t]
    return out


re = np.random.RandomState(99)
series = []
loss = 1.0 / (0.05 * np.arange(1, 201) ** 0.8 + 1.0) + 0.2 + 0.02 * re.standard_normal(200)
for name, x in [("loss200", loss), ("short3", np.array([3.0, 1.0, 2.0])), ("one", np.array([4.5])),
                ("walk50", np.cumsum(re.standard_normal(50)))]:
    for span in [1.0, 2.0, 5.0, 20.0, 37.5]:
        series.append({"name": name, "span": span, "x": tolist(x), "nan_at": [],
                       "adjust": tolist(ewma_adjust(x, span)), "noadjust": tolist(ewma_noadjust(x, span))})
x = loss[:30].copy()
nan_at = [0, 1, 7, 8, 9, 29]
x[nan_at] = np.nan
for span in [3.0, 20.0]:
    y = ewma_adjust(x, span)
    series.append({"name": "loss30_nan", "span": span, "x": tolist(np.nan_to_num(x)), "nan_at": nan_at,
                   "adjust": tolist(np.nan_to_num(y, nan=-1.0)), "adjust_nan_at": np.nonzero(np.isnan(y))[0].tolist(),
                   "noadjust": []})
dump("ewma.json", {"series": series,
                   "source": {"formula": "pandas ewm(span).mean() semantics, explicit weighted sums in numpy"}})

# ---------------------------------------------------------------- curve fits


def power(t, a, b, c, d):  # MLLess Eq. 2
    return 1.0 / (a * t ** b + c) + d


def quad(t, a, b, c, d):  # MLLess Eq. 3
    return 1.0 / (a * t * t + b * t + c) + d


rf = np.random.RandomState(4242)
fits = []
specs = [
    ("power", power, [0.05, 0.8, 1.0, 0.2], np.arange(1, 201, dtype=float), 0.01),
    ("power", power, [0.3, 0.5, 2.0, 0.05], np.arange(1, 101, dtype=float), 0.005),
    ("power", power, [0.002, 1.2, 0.8, 0.5], np.arange(10, 1010, 10, dtype=float), 0.02),
    ("power", power, [1.0, 0.7, 0.0, 0.1], np.linspace(1, 50, 60), 0.003),
    ("quadratic", quad, [1e-4, 0.01, 2.0, 0.3], np.arange(1, 151, dtype=float), 0.005),
    ("quadratic", quad, [0.0, 0.05, 1.0, 0.1], np.arange(1, 81, dtype=float), 0.01),
    ("quadratic", quad, [2e-6, 1e-3, 0.5, 0.6], np.arange(100, 2100, 20, dtype=float), 0.01),
    ("quadratic", quad, [0.01, 0.0, 1.5, 0.0], np.linspace(0, 30, 40), 0.002),
]
for model, f, theta, t, sigma in specs:
    y = f(t, *theta) * (1 + sigma * rf.standard_normal(len(t)))
    tries = []
    p0s = [None, [1e-3, 0.5, 1.0, 0.5 * y.min()], theta]
    for p0 in p0s:
        try:
            p, _ = curve_fit(f, t, y, p0=p0, bounds=(0, np.inf), maxfev=20000)
            sse = float(np.sum((y - f(t, *p)) ** 2))
            tries.append({"p0": "ones" if p0 is None else tolist(p0), "theta": tolist(p), "sse": sse})
        except Exception as e:  # noqa: BLE001
            tries.append({"p0": "ones" if p0 is None else tolist(p0), "error": str(e)})
    ok = [tr for tr in tries if "sse" in tr]
    bestfit = min(ok, key=lambda tr: tr["sse"])
    fits.append({"model": model, "true_theta": theta, "sigma": sigma, "t": tolist(t), "y": tolist(y),
                 "scipy": tries, "scipy_best_sse": bestfit["sse"], "scipy_best_theta": bestfit["theta"]})
    print(f"{model:9s} true={theta} best sse={bestfit['sse']:.6e} theta={np.round(bestfit['theta'], 6)}"
          f"  tries={[round(tr.get('sse', -1), 8) for tr in tries]}")
dump("fits.json", {"fits": fits, "source": {
    "method": "scipy.optimize.curve_fit(f, t, y, p0, bounds=(0, inf), maxfev=20000) (TRF); p0 = ones "
              "(scipy default, as the MLLess code), a generic guess, and the true theta; best SSE kept",
    "noise": "y = f(t; theta) * (1 + sigma * N(0,1)), RandomState(4242)"}})
