#!/usr/bin/env python3
"""Fits the compute-time model of package p2p to the P2P serverless paper's
Tables II and III (VGG11, MNIST, four peers).

Table II (serverless): every batch of B points is one Lambda invocation,
all of a peer's batches run in parallel, and the peer's gradient takes
the time of one invocation: t(B) = Invoke + B * PerPoint.
Table III (instance, t2.large): the peer computes its m batches one after
another: t(B) = m * (Overhead + B * PerPoint), so t/m is linear in B.

Ordinary least squares on the four batch sizes; prints the coefficients
p2p.PaperVGG11 uses and the model's times beside the paper's."""

B = [1024, 512, 128, 64]
m = [15, 30, 118, 235]
serverless = [41.2, 28.1, 12.9, 10.5]
instance = [258, 278.4, 330.4, 394.8]


def ols(x, y):
    n = len(x)
    mx, my = sum(x) / n, sum(y) / n
    sxx = sum((a - mx) ** 2 for a in x)
    sxy = sum((a - mx) * (b - my) for a, b in zip(x, y))
    slope = sxy / sxx
    return my - slope * mx, slope


o, p = ols(B, serverless)
print(f"serverless: Invoke = {o:.4f} s, PerPoint = {p*1e3:.4f} ms")
for b, t in zip(B, serverless):
    print(f"  B={b:5d}: model {o + b*p:7.2f} s, paper {t:7.2f} s")
per = [t / k for t, k in zip(instance, m)]
oi, pi = ols(B, per)
print(f"instance:   Overhead = {oi:.4f} s per batch, PerPoint = {pi*1e3:.4f} ms")
for b, k, t in zip(B, m, instance):
    print(f"  B={b:5d}: model {k*(oi + b*pi):7.2f} s, paper {t:7.2f} s")
