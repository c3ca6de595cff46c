"""Benchmark: the posterior engine against references written as a careful user would, in one run.

Workload: GP-UCB (ε = 0) and TV-GP-UCB (ε = 0.01, the time-varying kernel k_X (1−ε)^{|t−t'|/2}) on a k×k grid of
[0,1]² (n = k² points, SE kernel ℓ = 0.2, noise R = 0.1, β_t = √(2 log(n t² π²/(6δ))), δ = 0.1), for every
n ∈ {100, 400, 900} and T ∈ {100, 200, 400, 1000}. Every side runs the same rule on the same functions and noise,
and the benchmark **asserts that all sides choose the same points** at every step.

References (one run at a time, BLAS on one thread like the engine):

* **refit** — at each step factor the data Gram matrix once, ``L = chol(K_DD + λI)``, and get every variance from
  ONE triangular solve ``V = L⁻¹ K_*ᵀ`` (var = k(x,x) − ‖V[:, x]‖², as scikit-learn does) and the mean from
  ``α = L⁻¹(y − μ_D)``: O(t³/3 + n t²) per step; exact for ε > 0.
* **Sherman–Morrison features** (ε = 0; the finite-arm trick of public kernel-bandit simulators) — features
  Φ (n × r) with ΦΦᵀ = K from its eigendecomposition, A⁻¹ = (Φ_DᵀΦ_D + λI)⁻¹ updated by Sherman–Morrison,
  variances updated in O(n r) and means in O(n r + r²) per step.

The engine is :func:`boundcheck.model.dataspace.make_posterior` (grid or data space, chosen by cost) as the
policies use it: batched over ``--runs`` runs (its per-run time is printed) and, for transparency, on one run.
Printed: CPU seconds per run (min and median of the repeats; one thread, so CPU time is compute time and does
not count time the shared machine gave to others) and the reference/engine ratios.

    python benchmarks/bench_posterior.py [--quick] [--runs 8] [--repeat 3] [--json out.json]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import _common  # noqa: E402 - pins BLAS to one thread before numpy does any work
import numpy as np  # noqa: E402
from scipy.linalg import cholesky, solve_triangular  # noqa: E402

from boundcheck.model.dataspace import choose_representation, make_posterior  # noqa: E402
from boundcheck.model.domains import grid  # noqa: E402
from boundcheck.model.kernels import RBF  # noqa: E402
from boundcheck.model.priors import GPPrior, clipped_root  # noqa: E402
from boundcheck.model.sampling import ChainSampler  # noqa: E402

R, LENGTHSCALE, DELTA = 0.1, 0.2, 0.1


def workload(side: int, T: int, eps: float, runs: int, seed: int = 0):
    dom = grid(side, 2)
    K = RBF(LENGTHSCALE)(dom.points)
    prior = GPPrior("se", np.zeros(dom.n), K, eps)
    rngs = [np.random.default_rng([seed, r]) for r in range(runs)]
    samp = ChainSampler(prior)
    F = np.stack([samp.start(rngs)] + [samp.step(rngs) for _ in range(T - 1)], axis=1)  # (runs, T, n)
    noise = R * np.random.default_rng([seed, 10**6]).standard_normal((runs, T))
    t = np.arange(1, T + 1, dtype=float)
    beta = np.sqrt(2 * np.log(dom.n * t**2 * np.pi**2 / (6 * DELTA)))
    return prior, F, noise, beta


def run_engine(prior, F, noise, beta) -> np.ndarray:
    m, T, _ = F.shape
    post = make_posterior([prior], R**2, m, max_data=T)
    rows = np.arange(m)
    X = np.empty((m, T), dtype=np.int64)
    for t in range(T):
        ucb = post.mean()[:, 0] + beta[t] * post.sd()[:, 0]
        x = np.argmax(ucb, axis=1)
        post.condition(x, F[rows, t, x] + noise[:, t])
        post.propagate()
        X[:, t] = x
    return X


def run_refit(prior, f, noise, beta) -> np.ndarray:
    """One run, refit every step with one triangular solve for all variances."""
    K, mean, eps, lam = prior.K, prior.mean, prior.eps, R**2
    T, n = f.shape
    kdiag = np.diag(K).copy()
    xs, ys = [], []
    X = np.empty(T, dtype=np.int64)
    log_a = 0.5 * np.log1p(-eps) if eps < 1 else -np.inf
    for t in range(T):
        if t == 0:
            mu, var = mean, kdiag
        else:
            idx = np.asarray(xs)
            ts = np.arange(1, t + 1, dtype=float)
            Kd = K[np.ix_(idx, idx)]
            if eps > 0:
                Kd = Kd * np.exp(log_a * np.abs(ts[:, None] - ts[None, :]))
            Kd[np.diag_indices(t)] += lam
            L = cholesky(Kd, lower=True)
            KsT = K[idx]  # (t, n): K_*ᵀ
            if eps > 0:
                KsT = KsT * np.exp(log_a * (t + 1 - ts))[:, None]
            V = solve_triangular(L, KsT, lower=True)  # the one solve with n right-hand sides
            a = solve_triangular(L, np.asarray(ys) - mean[idx], lower=True)
            mu = mean + V.T @ a
            var = kdiag - np.einsum("ij,ij->j", V, V)
        x = int(np.argmax(mu + beta[t] * np.sqrt(np.maximum(var, 0.0))))
        X[t] = x
        xs.append(x)
        ys.append(f[t, x] + noise[t])
    return X


def run_sherman_morrison(prior, f, noise, beta) -> np.ndarray:
    """One run, finite-arm features with Sherman–Morrison updates (static f only)."""
    K, mean, lam = prior.K, prior.mean, R**2
    Phi = clipped_root(K)  # (n, r), Φ Φᵀ = K
    n, r = Phi.shape
    Ainv = np.eye(r) / lam  # (Φ_DᵀΦ_D + λI)⁻¹
    b = np.zeros(r)  # Φ_Dᵀ (y − μ_D)
    var = np.diag(K).copy()  # k(x, x) before data
    dev = np.zeros(n)
    T = f.shape[0]
    X = np.empty(T, dtype=np.int64)
    for t in range(T):
        x = int(np.argmax(mean + dev + beta[t] * np.sqrt(np.maximum(var, 0.0))))
        X[t] = x
        phi = Phi[x]
        g = Ainv @ phi
        denom = 1.0 + phi @ g
        u = Phi @ g  # φ_xᵀ A⁻¹ φ_t for every arm
        var = var - lam * u * u / denom
        Ainv -= np.outer(g, g) / denom
        b += phi * (f[t, x] + noise[t] - mean[x])
        dev = Phi @ (Ainv @ b)
    return X


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="n ∈ {100, 400}, T ∈ {100, 200}")
    ap.add_argument("--runs", type=int, default=8, help="runs batched by the engine (default 8)")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--json")
    args = ap.parse_args()
    sides = (10, 20) if args.quick else (10, 20, 30)
    horizons = (100, 200) if args.quick else (100, 200, 400, 1000)
    info = _common.machine()
    print(f"# posterior engine vs fair references — {info['cpu']}, {info['date']}, BLAS threads {info['blas_threads']}")
    print("# CPU seconds per run (min / median of repeats); ratio = reference / engine (batched; one run)")
    rows = []
    for eps in (0.0, 0.01):
        refs = ("refit", "sherman_morrison") if eps == 0 else ("refit",)
        print(f"\n## {'GP-UCB (ε = 0)' if eps == 0 else f'TV-GP-UCB (ε = {eps})'}")
        head = f"{'n':>5} {'T':>5} {'repr':>9} {'engine×' + str(args.runs):>16} {'engine×1':>16}"
        for ref in refs:
            head += f" {ref:>22} {'ratio':>12}"
        print(head)
        for side in sides:
            for T in horizons:
                n = side * side
                prior, F, noise, beta = workload(side, T, eps, args.runs)
                budget = 20.0
                w = (prior, F, noise, beta)
                tb, Xb = _common.timed(lambda w=w: run_engine(*w), args.repeat, budget)
                t1, X1 = _common.timed(lambda w=w: run_engine(w[0], w[1][:1], w[2][:1], w[3]), args.repeat, budget)
                eng_b = [t / args.runs for t in tb]
                row = {"eps": eps, "n": n, "T": T, "representation": choose_representation(n, max_data=T),
                       "engine_batched": _common.summary(eng_b), "engine_one": _common.summary(t1),
                       "runs": args.runs}
                line = (f"{n:>5} {T:>5} {row['representation']:>9} {min(eng_b):8.4f}/{np.median(eng_b):7.4f} "
                        f"{min(t1):8.4f}/{np.median(t1):7.4f}")
                assert np.array_equal(X1[0], Xb[0]), "engine: batched and single-run choices differ"
                for ref in refs:
                    fn = run_refit if ref == "refit" else run_sherman_morrison
                    tr, Xr = _common.timed(lambda fn=fn, w=w: fn(w[0], w[1][0], w[2][0], w[3]), args.repeat, budget)
                    same = np.array_equal(Xr, Xb[0])
                    if not same:
                        k = int(np.argmax(Xr != Xb[0]))
                        raise AssertionError(f"{ref} and the engine choose different points from step {k + 1} "
                                             f"(n={n}, T={T}, ε={eps})")
                    row[ref] = _common.summary(tr)
                    row[f"ratio_{ref}"] = {"batched": min(tr) / min(eng_b), "one": min(tr) / min(t1)}
                    line += (f" {min(tr):10.4f}/{np.median(tr):10.4f} "
                             f"{row[f'ratio_{ref}']['batched']:6.1f}×/{row[f'ratio_{ref}']['one']:4.1f}×")
                print(line, flush=True)
                rows.append(row)
    print("\nall sides chose the same points at every step (asserted)")
    _common.write_json(args.json, {"machine": info, "rows": rows})


if __name__ == "__main__":
    main()
