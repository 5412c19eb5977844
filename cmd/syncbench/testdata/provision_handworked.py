#!/usr/bin/env python3
"""Recomputes the hand-worked numbers of cmd/syncbench/provision_test.go
(TestProvisionHandWorked) straight from the DOLL paper's formulas, without
the Go code: Eqs. 15/16 (runtime, cost, one rate), 18 (Theorem 4's N_s*),
19 (Corollary 2), 21/22 (runtime, cost, one rate per worker) and Theorem 5's
scan with Lemma 2 (Eq. 23). Costs in dollars = seconds x $/h / 3600.

    python3 cmd/syncbench/testdata/provision_handworked.py
"""
import math

PS, PO = 0.158, 0.286  # DOLL §V-A: c5.xlarge spot mean and on-demand, $/h


def homogeneous(ntot, J, K, b, lam, alpha, ratio, ps=PS, po=PO):
    jkb = J * K * b
    theta0 = jkb / (ntot * lam)                      # Corollary 2's θ0
    theta = ratio * theta0
    x = (ntot - jkb / (lam * theta)) / (1 - alpha)   # Eq. 18 before the floor
    ns = min(math.floor(x + 1e-9), ntot)
    no = ntot - ns
    runtime = jkb / (lam * (no + alpha * ns))        # Eq. 15
    cost = runtime * (no * po + alpha * ns * ps) / 3600  # Eq. 16
    od = theta0 * ntot * po / 3600                   # Eq. 16 at N_s = 0
    bound = max(ratio + (alpha * ps - po) * (ratio - 1) / (po * (1 - alpha)), ps / po)  # Eq. 19
    return dict(ns=ns, no=no, theta=theta, theta0=theta0, runtime=runtime,
                cost=cost, od=od, ratio=cost / od, bound=bound)


def heterogeneous(J, K, b, lams, alpha, ratio, ps=PS, po=PO):
    jkb = J * K * b
    ntot = len(lams)
    s = sorted(lams)
    theta0 = jkb / sum(s)
    theta = ratio * theta0

    def tp(ns):  # Eq. 20 times K·b
        return sum(s) - (1 - alpha) * sum(s[:ns])

    def cost(ns):  # Eq. 22
        return jkb * (ntot * po + (alpha * ps - po) * ns) / tp(ns) / 3600

    best = 0
    for ns in range(1, ntot + 1):  # Theorem 5's scan
        if (1 - alpha) * sum(s[:ns]) > sum(s) - jkb / theta:  # Lemma 2, Eq. 23
            break
        if cost(ns) > cost(best):
            break
        best = ns
    order = sorted(range(ntot), key=lambda i: (lams[i], i))
    return dict(ns=best, no=ntot - best, preemptible=sorted(order[:best]), theta=theta,
                theta0=theta0, runtime=jkb / tp(best), cost=cost(best), od=cost(0),
                ratio=cost(best) / cost(0))


if __name__ == "__main__":
    for alpha, ratio in [(0.9, 1.05), (0.8, 1.05), (0.8, 1.10), (0.9, 1.2)]:
        print(f"α={alpha} θ/θ0={ratio}:", homogeneous(64, 10000, 20, 256, 125, alpha, ratio))
    print("θ = θ0:", homogeneous(64, 10000, 20, 256, 125, 0.9, 1.0))
    print("list 40,10,30,20:", heterogeneous(100, 2, 10, [40, 10, 30, 20], 0.5, 1.2))
    print("U(5,45), N_tot=4:", heterogeneous(100, 2, 10, [5 + 40 * i / 5 for i in range(1, 5)], 0.5, 1.2))
