"""Benchmark: the cost of one combinatorial round (paper 002) in the engine, as ratios measured in one run.

A round of combinatorial GP-UCB (K = 8 base arms on n = 200 arms, 16 runs batched, after ``--warm`` rounds)
is timed through the whole engine step (index, top-K oracle, the rank-K block update of the posterior, the
truth-side round monitors), and its parts against references:

* K = 8 vs K = 1 at n = 200 (O(K n²): the ratio should be ≤ 8), and n = 400 vs n = 200 at K = 8 (O(n²): ≈ 4);
* the block update vs K sequential rank-1 updates (``BatchedPosterior.condition_batch``);
* the joint GP-TS draw by counts (:class:`CountPathwiseSampler`, O(n²) per run) vs the data-space pathwise
  sampler (O(n tK)) after t rounds;
* refitting the GP on the K·t observations (O((tK)³), what a naive implementation does) vs the block update.

Usage: python benchmarks/bench_combinatorial.py [--runs 16] [--warm 60] [--reps 20]
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from threadpoolctl import threadpool_limits

from boundcheck.model.kernels import RBF
from boundcheck.model.posterior import BatchedPosterior, PathwiseSampler
from boundcheck.model.priors import GPPrior
from boundcheck.papers.combinatorial.model import BlockPosterior, CountPathwiseSampler


def _prior(n: int) -> GPPrior:
    x = np.random.default_rng(0).uniform(size=(n, 2))
    return GPPrior(f"n{n}", np.zeros(n), RBF(0.2)(x, x))


def _timeit(fn, reps: int) -> float:
    fn()
    best = np.inf
    for _ in range(3):
        t0 = time.perf_counter()
        for _ in range(reps):
            fn()
        best = min(best, (time.perf_counter() - t0) / reps)
    return best


def _warm(prior: GPPrior, m: int, K: int, rounds: int, rng) -> tuple[BlockPosterior, CountPathwiseSampler, list]:
    post = BlockPosterior(prior, 0.01, m)
    smp = CountPathwiseSampler(post)
    hist = []
    for _ in range(rounds):
        idx = np.stack([rng.choice(prior.n, K, replace=False) for _ in range(m)])
        y = rng.normal(size=idx.shape)
        smp.observe(idx)
        post.condition_batch(idx, y)
        hist.append((idx, y))
    return post, smp, hist


def engine_round(n: int, K: int, m: int, warm: int, reps: int) -> float:
    """Seconds per round and run of the whole engine step (combinatorial GP-UCB with the family's round
    monitors), the median over rounds warm+1..warm+reps (the engine reports each finished round)."""
    from dataclasses import replace

    from boundcheck import api
    from boundcheck.papers.combinatorial.world import RandomSubset
    from boundcheck.study.engine import simulate
    from boundcheck.world.actions import TopK

    spec = api.build_study("comb_gp_ucb", "comb_topk", runs=m, horizon=warm + reps, policies=["comb_gp_ucb"])
    prior = _prior(n)
    avail = RandomSubset(n, max(2 * K, n // 2))
    sc = replace(spec.scenario, candidates=(prior,), truth=prior, domain=replace(spec.scenario.domain,
                 points=np.zeros((n, 2))), availability=avail, action_set=TopK(avail, k=K))
    inst = spec.family.instantiate(sc, warm + reps, 0.1)
    stamps = []
    simulate(sc, spec.policies, list(range(m)), 0, inst, progress=lambda t: stamps.append(time.perf_counter()))
    return float(np.median(np.diff(stamps)[warm - 1:])) / m


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--runs", type=int, default=16)
    ap.add_argument("--warm", type=int, default=60)
    ap.add_argument("--reps", type=int, default=20)
    args = ap.parse_args()
    m, warm, reps = args.runs, args.warm, args.reps
    rng = np.random.default_rng(1)
    with threadpool_limits(limits=1, user_api="blas"):
        print(f"one combinatorial round, {m} runs batched, after {warm} rounds (per run; best of 3)")
        e8 = engine_round(200, 8, m, warm, reps)
        e1 = engine_round(200, 1, m, warm, reps)
        e8b = engine_round(400, 8, m, warm, reps)
        print(f"  engine round, K=8, n=200       : {1e3 * e8:8.3f} ms")
        print(f"  engine round, K=1, n=200       : {1e3 * e1:8.3f} ms   ratio K=8/K=1 = {e8 / e1:5.2f}  (O(K n²): ≤ 8)")
        print(f"  engine round, K=8, n=400       : {1e3 * e8b:8.3f} ms   ratio n=400/n=200 = {e8b / e8:5.2f}  "
              "(O(n²): ≈ 4)")

        prior = _prior(200)
        post, smp, hist = _warm(prior, m, 8, warm, rng)
        idx = np.stack([rng.choice(200, 8, replace=False) for _ in range(m)])
        y = rng.normal(size=idx.shape)
        state = post.Sigma.copy(), post.dev.copy()

        def block():
            post.Sigma[:], post.dev[:] = state
            post.condition_batch(idx, y)

        ref = BatchedPosterior([prior], 0.01, m)

        def sequential():
            ref.reset()
            for k in range(8):
                ref.condition(idx[:, k], y[:, k])

        def reset_only():
            ref.reset()

        t_block = _timeit(block, reps)
        t_seq = _timeit(sequential, reps) - _timeit(reset_only, reps)
        print(f"  block update (rank 8)          : {1e3 * t_block / m:8.3f} ms per run")
        print(f"  8 sequential rank-1 updates    : {1e3 * t_seq / m:8.3f} ms per run   ratio = {t_seq / t_block:5.2f}")

        rngs = [np.random.default_rng(i) for i in range(m)]
        t_count = _timeit(lambda: smp.draw(rngs), reps)
        ref_post = BatchedPosterior([prior], 0.01, m)
        pw = PathwiseSampler(ref_post, capacity=8 * warm)
        for i_, y_ in hist:
            for k in range(8):
                pw.observe(i_[:, k])
                ref_post.condition(i_[:, k], y_[:, k])
        t_path = _timeit(lambda: pw.draw(rngs), reps)
        print(f"  joint draw by counts (O(n²))   : {1e3 * t_count / m:8.3f} ms per run")
        print(f"  data-space pathwise (O(n tK))  : {1e3 * t_path / m:8.3f} ms per run   "
              f"ratio = {t_path / t_count:5.2f}")

        X = np.concatenate([h[0][0] for h in hist])  # one run's multiset of K·t observations

        def refit():
            G = prior.K[np.ix_(X, X)] + 0.01 * np.eye(X.size)
            np.linalg.cholesky(G)
            np.linalg.solve(G, prior.K[X])

        t_refit = _timeit(refit, max(1, reps // 10))
        print(f"  refit on {X.size} observations   : {1e3 * t_refit:8.3f} ms per run   ratio = "
              f"{t_refit / (t_block / m):7.1f}")


if __name__ == "__main__":
    main()
