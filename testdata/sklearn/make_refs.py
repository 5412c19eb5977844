#!/usr/bin/python3
"""Reference outputs for algorithms/kmeans, algorithms/gmm and algorithms/fcm.

Run from the module root with the Debian Python (it has scikit-learn 1.2.1):

    /usr/bin/python3 testdata/sklearn/make_refs.py

It writes, next to this script:

  blobs.csv          300 x 4 synthetic points (3 Gaussian blobs, numpy seed
                     20240601), "%.17g" so that Go parses the same float64s.
  kmeans_blobs.json  sklearn KMeans (lloyd, init = first k points) on blobs.
  kmeans_fashion.json  sklearn KMeans on Fashion-MNIST train (60000 x 784, /255).
  kmeans_fashion_head.json  the same on the first 2000 Fashion-MNIST train images.
  gmm_blobs.json     sklearn GaussianMixture(covariance_type='diag') on blobs.
  gmm_fashion.json   the same on the first 2000 Fashion-MNIST train images.
  fcm_blobs.json     plain numpy textbook fuzzy c-means (no sklearn version).
  fcm_fashion.json   the same on the first 2000 Fashion-MNIST train images.

The Fashion-MNIST files are skipped (with a message) when the Debian package
dataset-fashion-mnist is not installed in /usr/share/datasets/fashion-mnist.

    /usr/bin/python3 testdata/sklearn/make_refs.py --time

writes nothing and instead times scikit-learn on Fashion-MNIST (K-means
Lloyd k=10 on 60000 images, diagonal GMM k=10 on the first 20000), the
references for the Go benchmarks (go test -bench Pass ./algorithms/...).

Every run of an EM algorithm is started from an explicitly given initial
state, so the Go tests can start from exactly the same θ0:
  K-means: centers = X[:k]          (our kmeans.Config{Init: "first"})
  GMM:     weights 1/k, means X[:k], variances Var(X, axis=0) + reg_covar
           (our gmm.Config{Init: "first"}), passed to sklearn as
           weights_init, means_init, precisions_init = 1/variances.
  FCM:     centers = X[:k]          (our fcm.Config{Init: "first"})
"""

import gzip
import json
import os
import sys
import warnings

import numpy as np
import scipy
import sklearn
from sklearn.cluster import KMeans
from sklearn.exceptions import ConvergenceWarning
from sklearn.mixture import GaussianMixture

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = "testdata/sklearn/make_refs.py"
FASHION = "/usr/share/datasets/fashion-mnist"
VERSIONS = "scikit-learn %s, numpy %s, scipy %s, python %s" % (
    sklearn.__version__, np.__version__, scipy.__version__, sys.version.split()[0])


def write_json(name, obj):
    obj["script"] = SCRIPT
    obj["versions"] = VERSIONS
    path = os.path.join(HERE, name)
    with open(path, "w") as f:
        json.dump(obj, f, indent=1)
        f.write("\n")
    print("wrote", path)


def blobs():
    rng = np.random.default_rng(20240601)
    centers = np.array([[0.0, 0.0, 0.0, 0.0],
                        [4.0, 4.0, 0.0, -2.0],
                        [-3.0, 5.0, 3.0, 1.0]])
    scales = np.array([1.0, 0.7, 1.5])
    n = 300
    lab = rng.integers(0, 3, size=n)
    X = centers[lab] + rng.normal(size=(n, 4)) * scales[lab, None]
    # Round to 6 decimals so the CSV is short and human-readable; the
    # rounded values are the data.
    X = np.round(X, 6)
    path = os.path.join(HERE, "blobs.csv")
    with open(path, "w") as f:
        f.write("# 300 x 4 Gaussian blobs, written by %s (numpy default_rng(20240601))\n" % SCRIPT)
        for row in X:
            f.write(",".join("%.17g" % v for v in row) + "\n")
    print("wrote", path)
    # Read back exactly as Go does (decimal -> nearest float64).
    return np.loadtxt(path, delimiter=",", comments="#")


def read_idx_images(path):
    with gzip.open(path, "rb") as f:
        data = f.read()
    magic, n, rows, cols = np.frombuffer(data[:16], dtype=">i4")
    assert magic == 2051, magic
    X = np.frombuffer(data[16:], dtype=np.uint8).reshape(n, rows * cols)
    return X.astype(np.float64) / 255.0


def read_idx_labels(path):
    with gzip.open(path, "rb") as f:
        data = f.read()
    magic, n = np.frombuffer(data[:8], dtype=">i4")
    assert magic == 2049, magic
    return np.frombuffer(data[8:], dtype=np.uint8).astype(np.int64)


def checksums(M):
    """Per-row sums and a position-weighted total that catches permutations."""
    M = np.asarray(M, dtype=np.float64)
    w = np.arange(1, M.size + 1, dtype=np.float64).reshape(M.shape) / M.size
    return {"row_sums": M.sum(axis=1).tolist(), "weighted_sum": float((M * w).sum())}


# ---------------------------------------------------------------- K-means


def numpy_lloyd_counts(X, C, iters):
    """Cluster sizes seen at every Lloyd step, to confirm no cluster went
    empty (sklearn relocates empty clusters, our kmeans keeps the previous
    centroid; the references are only valid when no cluster is empty)."""
    xx = (X * X).sum(1)
    mins = []
    for _ in range(iters):
        d = xx[:, None] - 2 * X @ C.T + (C * C).sum(1)[None, :]
        lab = d.argmin(1)
        cnt = np.bincount(lab, minlength=C.shape[0])
        mins.append(int(cnt.min()))
        C = np.array([X[lab == j].mean(0) for j in range(C.shape[0])])
    return mins


def kmeans_ref(X, k, iters, full_centers):
    runs = []
    for m in iters:
        km = KMeans(n_clusters=k, init=X[:k].copy(), n_init=1, algorithm="lloyd",
                    tol=0.0, max_iter=m)
        km.fit(X)
        lab = km.labels_
        run = {"max_iter": m, "n_iter": int(km.n_iter_), "inertia": float(km.inertia_),
               "counts": np.bincount(lab, minlength=k).tolist()}
        if full_centers:
            run["centers"] = km.cluster_centers_.ravel().tolist()
        else:
            run["centers_checksum"] = checksums(km.cluster_centers_)
        runs.append(run)
    c0 = X[:k]
    inertia0 = float(((X[:, None, :] - c0[None]) ** 2).sum(2).min(1).sum()) if X.shape[0] * k * X.shape[1] < 2e8 else None
    min_counts = numpy_lloyd_counts(X, X[:k].copy(), max(iters))
    assert min(min_counts) > 0, "a cluster went empty: sklearn would relocate it"
    return runs, inertia0, min_counts


# ---------------------------------------------------------------- GMM


def gmm_ref(X, k, iters, full_params, reg=1e-6):
    w0 = np.full(k, 1.0 / k)
    m0 = X[:k].copy()
    v0 = np.tile(X.var(axis=0) + reg, (k, 1))
    runs = []
    for m in iters:
        g = GaussianMixture(n_components=k, covariance_type="diag", tol=0.0, reg_covar=reg,
                            max_iter=m, n_init=1, init_params="random", random_state=0,
                            weights_init=w0, means_init=m0, precisions_init=1.0 / v0)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            g.fit(X)
        run = {"max_iter": m, "n_iter": int(g.n_iter_),
               "lower_bound": float(g.lower_bound_),
               "score": float(g.score(X)),
               "weights": g.weights_.tolist()}
        if full_params:
            run["means"] = g.means_.ravel().tolist()
            run["variances"] = g.covariances_.ravel().tolist()
        else:
            run["means_checksum"] = checksums(g.means_)
            run["variances_checksum"] = checksums(g.covariances_)
            run["log_variances_sum"] = float(np.log(g.covariances_).sum())
        runs.append(run)
    init = {"weights": w0.tolist(), "variances_row0_sum": float(v0[0].sum())}
    if full_params:
        init["means"] = m0.ravel().tolist()
        init["variances"] = v0.ravel().tolist()
    return runs, init


# ---------------------------------------------------------------- FCM


def fcm_memberships(X, C, m):
    D2 = ((X[:, None, :] - C[None, :, :]) ** 2).sum(axis=2)
    U = np.empty_like(D2)
    zero = D2 == 0
    hit = zero.any(axis=1)
    # A point that coincides with one or more centroids belongs to them
    # (split equally), the limit of the formula as x approaches them.
    U[hit] = zero[hit] / zero[hit].sum(axis=1, keepdims=True)
    Dn = D2[~hit]
    p = 1.0 / (m - 1.0)
    U[~hit] = 1.0 / ((Dn[:, :, None] / Dn[:, None, :]) ** p).sum(axis=2)
    return U, D2


def fcm_objective(X, C, m):
    U, D2 = fcm_memberships(X, C, m)
    return float(((U ** m) * D2).sum())


def fcm_ref(X, k, m, iters, full_centers):
    runs = []
    C = X[:k].copy()
    J0 = fcm_objective(X, C, m)
    done = 0
    for target in iters:
        while done < target:
            U, _ = fcm_memberships(X, C, m)
            W = U ** m
            C = (W.T @ X) / W.sum(axis=0)[:, None]
            done += 1
        run = {"iters": target, "objective": fcm_objective(X, C, m)}
        if full_centers:
            run["centers"] = C.ravel().tolist()
        else:
            run["centers_checksum"] = checksums(C)
        runs.append(run)
    return runs, J0


FCM_SOURCE = ("plain numpy textbook fuzzy c-means (Bezdek 1981), written in %s: "
              "u_ij = 1 / sum_l (d_ij^2 / d_il^2)^(1/(m-1)), a point at distance 0 from "
              "z centroids gets membership 1/z to each of them; c_j = sum_i u_ij^m x_i / "
              "sum_i u_ij^m; J = sum_ij u_ij^m d_ij^2 with memberships from the given "
              "centers; no scikit-learn implementation exists" % SCRIPT)


def main():
    X = blobs()
    runs, inertia0, mins = kmeans_ref(X, 3, [1, 2, 5, 50], True)
    write_json("kmeans_blobs.json", {
        "source": "scikit-learn %s sklearn.cluster.KMeans(n_clusters=3, init=X[:3], n_init=1, "
                  "algorithm='lloyd', tol=0, max_iter=m) on blobs.csv; inertia_ is for the "
                  "centers after the last M-step" % sklearn.__version__,
        "data": "blobs.csv", "k": 3, "init": "first", "inertia_init": inertia0,
        "min_cluster_size_per_step": mins, "runs": runs})

    runs, init = gmm_ref(X, 3, [1, 2, 10], True)
    write_json("gmm_blobs.json", {
        "source": "scikit-learn %s sklearn.mixture.GaussianMixture(n_components=3, "
                  "covariance_type='diag', tol=0, reg_covar=1e-6, max_iter=m, weights_init=1/3, "
                  "means_init=X[:3], precisions_init=1/(X.var(0)+1e-6)) on blobs.csv; score is "
                  "score(X) (mean log-likelihood) after fit, lower_bound is lower_bound_ "
                  "(the mean log-likelihood before the last M-step)" % sklearn.__version__,
        "data": "blobs.csv", "k": 3, "reg_covar": 1e-6, "init_params": init, "runs": runs})

    runs, J0 = fcm_ref(X, 3, 2.0, [1, 2, 10], True)
    write_json("fcm_blobs.json", {"source": FCM_SOURCE + "; m=2, c=3, centers0 = X[:3], on blobs.csv",
                                  "data": "blobs.csv", "k": 3, "m": 2.0, "objective_init": J0,
                                  "runs": runs})
    runs, J0 = fcm_ref(X, 3, 1.5, [1, 10], True)
    write_json("fcm_blobs_m1.5.json", {"source": FCM_SOURCE + "; m=1.5, c=3, centers0 = X[:3], on blobs.csv",
                                       "data": "blobs.csv", "k": 3, "m": 1.5, "objective_init": J0,
                                       "runs": runs})

    path = os.path.join(FASHION, "train-images-idx3-ubyte.gz")
    if not os.path.exists(path):
        print("Fashion-MNIST not installed (%s); skipping the Fashion-MNIST references" % path)
        return
    F = read_idx_images(path)
    runs, _, mins = kmeans_ref(F, 10, [1, 20], False)
    write_json("kmeans_fashion.json", {
        "source": "scikit-learn %s sklearn.cluster.KMeans(n_clusters=10, init=X[:10], n_init=1, "
                  "algorithm='lloyd', tol=0, max_iter=m) on Fashion-MNIST train images "
                  "(60000 x 784, float64 = byte/255); inertia_ is for the centers after the "
                  "last M-step" % sklearn.__version__,
        "data": FASHION + "/train-images-idx3-ubyte.gz", "k": 10, "init": "first",
        "min_cluster_size_per_step": mins, "runs": runs})

    S = F[:2000]
    runs, _, mins = kmeans_ref(S, 10, [1, 20], False)
    write_json("kmeans_fashion_head.json", {
        "source": "scikit-learn %s sklearn.cluster.KMeans(n_clusters=10, init=X[:10], n_init=1, "
                  "algorithm='lloyd', tol=0, max_iter=m) on the first 2000 Fashion-MNIST train "
                  "images (/255); inertia_ is for the centers after the last M-step" % sklearn.__version__,
        "data": FASHION + "/train-images-idx3-ubyte.gz[:2000]", "k": 10, "init": "first",
        "min_cluster_size_per_step": mins, "runs": runs})

    runs, init = gmm_ref(S, 10, [1, 10], False)
    write_json("gmm_fashion.json", {
        "source": "scikit-learn %s sklearn.mixture.GaussianMixture(n_components=10, "
                  "covariance_type='diag', tol=0, reg_covar=1e-6, max_iter=m, weights_init=1/10, "
                  "means_init=X[:10], precisions_init=1/(X.var(0)+1e-6)) on the first 2000 "
                  "Fashion-MNIST train images (/255)" % sklearn.__version__,
        "data": FASHION + "/train-images-idx3-ubyte.gz[:2000]", "k": 10, "reg_covar": 1e-6,
        "init_params": init, "runs": runs})

    runs, J0 = fcm_ref(S, 10, 2.0, [1, 10], False)
    write_json("fcm_fashion.json", {"source": FCM_SOURCE + "; m=2, c=10, centers0 = X[:10], on the "
                                    "first 2000 Fashion-MNIST train images (/255)",
                                    "data": FASHION + "/train-images-idx3-ubyte.gz[:2000]",
                                    "k": 10, "m": 2.0, "objective_init": J0, "runs": runs})


def time_sklearn():
    import time
    F = read_idx_images(os.path.join(FASHION, "train-images-idx3-ubyte.gz"))
    res = {}
    for m in (1, 21):
        best = float("inf")
        for _ in range(3):
            t = time.perf_counter()
            KMeans(n_clusters=10, init=F[:10].copy(), n_init=1, algorithm="lloyd", tol=0.0,
                   max_iter=m).fit(F)
            best = min(best, time.perf_counter() - t)
        res[m] = best
    print("KMeans lloyd k=10 on 60000x784: %.4f s per iteration" % ((res[21] - res[1]) / 20))
    S = F[:20000]
    k = 10
    kw = dict(n_components=k, covariance_type="diag", tol=0.0, reg_covar=1e-6, n_init=1,
              init_params="random", random_state=0, weights_init=np.full(k, 1.0 / k),
              means_init=S[:k].copy(), precisions_init=1.0 / np.tile(S.var(0) + 1e-6, (k, 1)))
    for m in (1, 11):
        best = float("inf")
        for _ in range(3):
            t = time.perf_counter()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ConvergenceWarning)
                GaussianMixture(max_iter=m, **kw).fit(S)
            best = min(best, time.perf_counter() - t)
        res["g%d" % m] = best
    print("GaussianMixture diag k=10 on 20000x784: %.4f s per EM iteration" % ((res["g11"] - res["g1"]) / 10))
    # One epoch of per-sample SGD with the log loss on the binary task
    # "class < 5", as benchmarked by algorithms/logreg BenchmarkDenseEpoch.
    from sklearn.linear_model import SGDClassifier
    L = read_idx_labels(os.path.join(FASHION, "train-labels-idx1-ubyte.gz"))
    y = (L < 5).astype(np.float64)
    for m in (1, 6):
        best = float("inf")
        for _ in range(3):
            t = time.perf_counter()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ConvergenceWarning)
                SGDClassifier(loss="log_loss", max_iter=m, tol=None, shuffle=False,
                              random_state=0).fit(F, y)
            best = min(best, time.perf_counter() - t)
        res["s%d" % m] = best
    print("SGDClassifier log_loss on 60000x784: %.4f s per epoch (1-epoch fit %.4f s)"
          % ((res["s6"] - res["s1"]) / 5, res["s1"]))


if __name__ == "__main__":
    if sys.argv[1:] == ["--time"]:
        time_sklearn()
    else:
        main()
