#!/usr/bin/python3
# Reference values for the gradient-descent workloads (algorithms/optim,
# algorithms/logreg, algorithms/pmf, algorithms/nmf).
#
# Regenerate (Debian python with scikit-learn 1.2 and numpy):
#
#     cd testdata/gd && /usr/bin/python3 make_refs.py
#
# Every output file records its source (library and version, parameters).
# Everything is float64 and deterministic (numpy RandomState with fixed seeds).
# The update rules are written out in plain numpy, one line per textbook
# formula, so that the Go tests compare against an independent
# implementation:
#   SGD       θ ← θ − lr·g
#   momentum  v ← μv + g;  θ ← θ − lr·v              (PyTorch SGD, dampening 0)
#   Nesterov  v ← μv + g;  θ ← θ − lr·(g + μv)       (PyTorch SGD, nesterov=True)
#   Adam      m ← β1 m + (1−β1) g;  v ← β2 v + (1−β2) g²;
#             θ ← θ − (lr/(1−β1ᵗ))·m / (√v/√(1−β2ᵗ) + ε)   (PyTorch Adam)
#   schedule  lr_t = lr/√(epoch+1)                   (MLLess)
import json
import platform

import numpy as np
import scipy
import sklearn
from sklearn.linear_model import LogisticRegression

SOURCE = {
    "python": platform.python_version(),
    "numpy": np.__version__,
    "scipy": scipy.__version__,
    "scikit-learn": sklearn.__version__,
    "script": "testdata/gd/make_refs.py",
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


# ---------------------------------------------------------------- optimizers

class Opt:
    """Dense and lazy (block-sparse) optimizer steps, PyTorch conventions."""

    def __init__(self, n, method, lr, mu=0.0, b1=0.9, b2=0.999, eps=1e-8, invsqrt=False):
        self.method, self.lr, self.mu = method, lr, mu
        self.b1, self.b2, self.eps, self.invsqrt = b1, b2, eps, invsqrt
        self.v = np.zeros(n)
        self.m = np.zeros(n)
        self.t = 0

    def step(self, theta, g, idx=None, epoch=0):
        """Update theta[idx] (all entries when idx is None) in place."""
        if idx is None:
            idx = np.arange(len(theta))
        self.t += 1
        lr = self.lr / np.sqrt(epoch + 1) if self.invsqrt else self.lr
        g = g[idx]
        if self.method == "sgd":
            theta[idx] -= lr * g
        elif self.method in ("momentum", "nesterov"):
            self.v[idx] = self.mu * self.v[idx] + g
            if self.method == "momentum":
                theta[idx] -= lr * self.v[idx]
            else:
                theta[idx] -= lr * (g + self.mu * self.v[idx])
        elif self.method == "adam":
            self.m[idx] = self.b1 * self.m[idx] + (1 - self.b1) * g
            self.v[idx] = self.b2 * self.v[idx] + (1 - self.b2) * g * g
            bc1 = 1 - self.b1 ** self.t
            bc2 = 1 - self.b2 ** self.t
            denom = np.sqrt(self.v[idx]) / np.sqrt(bc2) + self.eps
            theta[idx] -= (lr / bc1) * self.m[idx] / denom
        else:
            raise ValueError(self.method)


def optim_refs():
    rs = np.random.RandomState(1)
    n = 6
    B = rs.normal(size=(n, n))
    A = B @ B.T / n + 0.5 * np.eye(n)
    b = rs.normal(size=n)
    theta0 = rs.normal(size=n)
    cases = [
        dict(name="sgd", method="sgd", lr=0.1),
        dict(name="momentum", method="momentum", lr=0.05, mu=0.9),
        dict(name="nesterov", method="nesterov", lr=0.05, mu=0.8),
        dict(name="adam", method="adam", lr=0.1),
        dict(name="adam-eps1e-9-invsqrt", method="adam", lr=0.1, eps=1e-9, invsqrt=True),
        dict(name="nesterov-invsqrt", method="nesterov", lr=0.05, mu=0.8, invsqrt=True),
    ]
    steps = 12
    epoch_of_step = [t // 3 for t in range(steps)]  # epoch = ⌊t/3⌋, t 0-based
    # Lazy (block-sparse) steps: width 2, three blocks.
    width = 2
    block_sets = [[0, 2], [1], [0, 1, 2], [2], [0], [0, 1], [], [1, 2], [0, 1, 2], [2], [1], [0, 2]]
    out = {"A": tolist(A), "b": tolist(b), "theta0": tolist(theta0), "steps": steps,
           "epoch_of_step": epoch_of_step, "width": width, "block_sets": block_sets,
           "cases": []}
    for c in cases:
        kw = {k: v for k, v in c.items() if k not in ("name",)}
        # dense
        o = Opt(n, **kw)
        th = theta0.copy()
        dense = []
        for t in range(steps):
            g = A @ th - b
            o.step(th, g, epoch=epoch_of_step[t])
            dense.append(tolist(th))
        # lazy sparse: gradient Aθ − b evaluated in full, only live blocks used
        o = Opt(n, **kw)
        th = theta0.copy()
        sparse = []
        for t in range(steps):
            g = A @ th - b
            idx = np.array([i for blk in block_sets[t] for i in range(blk * width, (blk + 1) * width)], dtype=int)
            o.step(th, g, idx=idx, epoch=epoch_of_step[t])
            sparse.append(tolist(th))
        case = dict(c)
        case.setdefault("mu", 0.0)
        case.setdefault("eps", 1e-8)
        case.setdefault("invsqrt", False)
        case["beta1"], case["beta2"] = 0.9, 0.999
        case["dense"], case["sparse"] = dense, sparse
        out["cases"].append(case)
    out["source"] = {"what": "optimizer trajectories on f(θ)=½θᵀAθ−bᵀθ, gradient Aθ−b, plain numpy"}
    dump("optim_steps.json", out)


# --------------------------------------------------------- logistic regression

def sigmoid(z):
    return np.where(z >= 0, 1 / (1 + np.exp(-np.abs(z))), np.exp(-np.abs(z)) / (1 + np.exp(-np.abs(z))))


def logloss(z, y):
    # log(1+e^z) − y z, stable
    return np.maximum(z, 0) + np.log1p(np.exp(-np.abs(z))) - y * z


def lr_objective(X, y, w, c, lam):
    z = X @ w + c
    return logloss(z, y).mean() + lam / 2 * w @ w


def lr_grad(X, y, w, c, lam):
    n = len(y)
    r = sigmoid(X @ w + c) - y
    return np.concatenate([X.T @ r / n + lam * w, [r.sum() / n]])


def lr_data():
    rs = np.random.RandomState(7)
    n, d = 60, 6
    X = rs.normal(size=(n, d))
    X[rs.uniform(size=(n, d)) < 0.4] = 0.0  # sparse-ish, for the CSR twin
    X[:, 4] = 0.0  # a feature that never occurs
    w_true = np.array([1.5, -2.0, 0.5, 1.0, 0.0, -0.7])
    p = sigmoid(X @ w_true + 0.3)
    y = (rs.uniform(size=n) < p).astype(np.float64)
    return X, y


def logreg_refs():
    X, y = lr_data()
    n, d = X.shape
    lam = 0.05
    out = {"n": n, "d": d, "X": tolist(X), "y": tolist(y), "lambda": lam}

    # (a) full-batch GD from zeros, 1 and 20 steps
    lr = 0.5
    th = np.zeros(d + 1)
    traj = {}
    objs = [lr_objective(X, y, th[:d], th[d], lam)]
    for t in range(1, 21):
        th = th - lr * lr_grad(X, y, th[:d], th[d], lam)
        objs.append(lr_objective(X, y, th[:d], th[d], lam))
        if t in (1, 20):
            traj[str(t)] = tolist(th)
    out["gd"] = {"lr": lr, "theta": traj, "objective": objs}

    # Adam (ε 1e-9, lr/√(epoch+1)) and Nesterov, 5 full-batch steps from zeros:
    # each full-batch step is one epoch.
    for name, kw in [("adam", dict(method="adam", lr=0.1, eps=1e-9, invsqrt=True)),
                     ("nesterov", dict(method="nesterov", lr=0.5, mu=0.8))]:
        o = Opt(d + 1, **kw)
        th = np.zeros(d + 1)
        tr = []
        for t in range(5):
            g = lr_grad(X, y, th[:d], th[d], lam)
            o.step(th, g, epoch=t)
            tr.append(tolist(th))
        out[name] = dict(kw, theta=tr)
    out["adam"]["schedule"] = "invsqrt"

    # (b) scikit-learn optimum: C·Σ logloss + ½‖w‖² with C = 1/(λ n)
    C = 1.0 / (lam * n)
    # solver='newton-cholesky' (new in 1.2) converges to machine precision;
    # the default lbfgs stops on its ftol with a gradient norm near 1e-6.
    clf = LogisticRegression(penalty="l2", C=C, fit_intercept=True, tol=1e-12, max_iter=100000,
                             solver="newton-cholesky")
    clf.fit(X, y)
    w, c = clf.coef_[0], clf.intercept_[0]
    g = lr_grad(X, y, w, c, lam)
    out["sklearn"] = {
        "estimator": "LogisticRegression(penalty='l2', C=1/(lambda*n), fit_intercept=True, tol=1e-12, max_iter=100000, solver='newton-cholesky')",
        "C": C, "coef": tolist(w), "intercept": float(c), "n_iter": int(clf.n_iter_[0]),
        "objective": lr_objective(X, y, w, c, lam),
        "grad_norm_at_solution": float(np.linalg.norm(g)),
    }
    out["source"] = {"what": "binary logistic regression, λ/2‖w‖² (bias not penalised); GD/Adam/Nesterov in plain numpy; optimum from scikit-learn"}
    dump("logreg.json", out)


# ------------------------------------------------------------------------ PMF

def pmf_refs():
    rs = np.random.RandomState(3)
    users, items, r = 7, 5, 3
    pairs = [(u, m) for u in range(users - 1) for m in range(items) if rs.uniform() < 0.7]  # user 6 unrated
    users_ = np.array([p[0] for p in pairs])
    items_ = np.array([p[1] for p in pairs])
    vals = rs.randint(1, 6, size=len(pairs)).astype(np.float64)
    U0 = rs.normal(0, 0.5, size=(users, r))
    M0 = rs.normal(0, 0.5, size=(items, r))
    lam, mu = 0.05, 0.8
    lrs = {"sgd": 2.0, "nesterov": 0.4}
    N = len(vals)

    def grads(U, M):
        gU = np.zeros_like(U)
        gM = np.zeros_like(M)
        e = vals - np.sum(U[users_] * M[items_], axis=1)
        for k in range(N):
            u, m = users_[k], items_[k]
            gU[u] += -e[k] * M[m] + lam * U[u]
            gM[m] += -e[k] * U[u] + lam * M[m]
        return np.concatenate([gU.ravel(), gM.ravel()]) / N, np.sqrt(np.mean(e * e))

    out = {"users": users, "items": items, "rank": r, "user": users_.tolist(), "item": items_.tolist(),
           "value": tolist(vals), "theta0": tolist(np.concatenate([U0.ravel(), M0.ravel()])),
           "lambda": lam, "momentum": mu}
    touched = sorted(set(users_.tolist()) | set((users + items_).tolist()))
    for method in ("sgd", "nesterov"):
        lr = lrs[method]
        o = Opt((users + items) * r, method, lr, mu=mu)
        th = np.concatenate([U0.ravel(), M0.ravel()])
        rmse, traj = [], []
        for t in range(5):
            U, M = th[:users * r].reshape(users, r), th[users * r:].reshape(items, r)
            g, e = grads(U, M)
            rmse.append(e)
            idx = np.array([i for blk in touched for i in range(blk * r, (blk + 1) * r)])
            o.step(th, g, idx=idx)
            traj.append(tolist(th))
        U, M = th[:users * r].reshape(users, r), th[users * r:].reshape(items, r)
        rmse.append(grads(U, M)[1])
        out[method] = {"lr": lr, "theta": traj, "rmse": rmse}
    out["source"] = {"what": "PMF full-batch GD on ½e²+λ/2(‖U_u‖²+‖M_m‖²) per rating, mean over ratings, touched rows only; plain numpy"}
    dump("pmf.json", out)


# ------------------------------------------------------------------------ NMF

def nmf_refs():
    rs = np.random.RandomState(5)
    n, d, r = 8, 6, 2
    X = np.abs(rs.normal(size=(n, d))) * (rs.uniform(size=(n, d)) < 0.8)
    avg = np.sqrt(X.mean() / r)
    W0 = avg * np.abs(rs.normal(size=(n, r)))
    H0 = avg * np.abs(rs.normal(size=(r, d)))
    lr = 0.05

    def obj(W, H):
        E = X - W @ H
        return 0.5 * np.sum(E * E) / n

    W, H = W0.copy(), H0.copy()
    objs, traj = [obj(W, H)], {}
    for t in range(1, 11):
        E = X - W @ H
        gW = -E @ H.T            # per-point gradient: W row i only sees point i
        gH = -(W.T @ E) / n      # mean over the points
        W, H = np.maximum(W - lr * gW, 0), np.maximum(H - lr * gH, 0)
        objs.append(obj(W, H))
        if t in (1, 10):
            traj[str(t)] = tolist(np.concatenate([W.ravel(), H.ravel()]))
    out = {"n": n, "d": d, "rank": r, "X": tolist(X),
           "theta0": tolist(np.concatenate([W0.ravel(), H0.ravel()])),
           "lr": lr, "theta": traj, "objective": objs}
    out["source"] = {"what": "NMF projected full-batch GD on ½‖X−WH‖²/n, W rows stepped with their own point's gradient, H with the mean; plain numpy"}
    dump("nmf.json", out)


if __name__ == "__main__":
    optim_refs()
    logreg_refs()
    pmf_refs()
    nmf_refs()
