"""Benchmark: the sliding-window posterior update (append + drop the oldest by Givens rotations) against
recomputing the window's posterior from scratch (Cholesky of K_XX + λI and solves on the whole domain), per step,
for a batch of runs, while doubling the window w and the domain size n. Two implementations of the update are
timed: :class:`~boundcheck.model.dataspace.DataSpacePosterior` (what SW-GP-UCB runs on) and the verifier's replay
:class:`~boundcheck.model.window_posterior.WindowPosterior` (which also carries the noise, truth and feature
right-hand sides).

The update costs O(w(w + n)) per run and step (O(n·w) for w ≤ n); recomputation costs O(w³ + w²n). The benchmark
prints the time per step of both, each time's ratio to the first row's (doubling w or n should about double the
update's time, and multiply the recomputation's by 4–8), the update's speed-up over recomputation, and the largest
disagreement between the two over the timed steps (must stay below 1e-9). Timings are ratios measured in the same
run (the machine is shared: absolute numbers are noisy).

Usage: python benchmarks/bench_window.py [--runs 25] [--steps 200] [--w 16] [--n 100]
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from threadpoolctl import threadpool_limits

from boundcheck.model.dataspace import DataSpacePosterior
from boundcheck.model.kernels import RBF
from boundcheck.model.priors import GPPrior
from boundcheck.model.window_posterior import WindowPosterior, exact_window_posterior


def bench(n: int, w: int, runs: int, steps: int, seed: int = 0) -> tuple[float, float, float, float]:
    rng = np.random.default_rng(seed)
    x = np.linspace(0, 1, n)[:, None]
    K = RBF(0.2).gram(x)
    prior = GPPrior("se", np.zeros(n), K)
    idx = rng.integers(0, n, (w + steps, runs))
    y = rng.normal(size=(w + steps, runs))

    def shifts(post, drop):
        for s in range(w):
            post.condition(idx[s], y[s])
        t0 = time.perf_counter()
        for s in range(w, w + steps):  # one window shift per step: the newest in, the oldest out
            post.condition(idx[s], y[s])
            if drop:
                post.drop_oldest()
        return (time.perf_counter() - t0) / steps

    ds = DataSpacePosterior([prior], 1.0, runs, window=w)  # drops the oldest itself when full
    t_ds = shifts(ds, False)
    wp = WindowPosterior(prior, 1.0, runs, capacity=w + 1)
    t_wp = shifts(wp, True)
    t0 = time.perf_counter()
    for s in range(w, w + steps):  # the same windows, recomputed from scratch
        lo = s + 1 - w
        mu, s2 = exact_window_posterior(K, prior.mean, idx[lo:s + 1].T, y[lo:s + 1].T, 1.0)
    t_scratch = (time.perf_counter() - t0) / steps
    worst = max(np.abs(mu - ds.mean()[:, 0]).max(), np.abs(s2 - ds.var()[:, 0]).max(),
                np.abs(mu - wp.mu).max(), np.abs(s2 - wp.s2).max())
    return t_ds, t_wp, t_scratch, worst


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--runs", type=int, default=25)
    ap.add_argument("--steps", type=int, default=200)
    ap.add_argument("--w", type=int, default=16)
    ap.add_argument("--n", type=int, default=100)
    args = ap.parse_args()
    w0, n0 = args.w, args.n
    cases = [(n0, w0), (n0, 2 * w0), (n0, 4 * w0), (n0, 8 * w0), (2 * n0, w0), (4 * n0, w0), (2 * n0, 2 * w0)]
    print(f"sliding-window posterior, {args.runs} runs per batch, {args.steps} window shifts, SE ℓ = 0.2, λ = 1; "
          "ms per step (ratio to the first row)")
    print(f"{'n':>5} {'w':>5} {'DataSpacePosterior':>20} {'WindowPosterior':>18} {'from scratch':>18} "
          f"{'speed-up':>9} {'max |diff|':>11}")
    base = None
    for n, w in cases:
        with threadpool_limits(limits=1, user_api="blas"):  # one BLAS thread: comparable on a shared machine
            t_ds, t_wp, t_sc, err = bench(n, w, args.runs, args.steps)
        base = base or (t_ds, t_wp, t_sc)
        print(f"{n:5d} {w:5d} {1e3 * t_ds:12.3f} ({t_ds / base[0]:4.2f}) {1e3 * t_wp:10.3f} ({t_wp / base[1]:4.2f}) "
              f"{1e3 * t_sc:10.3f} ({t_sc / base[2]:4.2f}) {t_sc / t_ds:8.1f}x {err:11.2e}")
    print("doubling w or n about doubles an update (O(n·w) for w ≤ n); recomputation grows as w²n + w³ "
          "(speed-up: DataSpacePosterior against recomputation)")


if __name__ == "__main__":
    main()
