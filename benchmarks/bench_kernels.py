"""Benchmark: the posterior update kernels against the machine's limits, measured in the same run.

1. **Yardsticks** (one core): a matrix multiply (``dgemm``, n×n·n×n) in GFLOP/s, and a stream ``a += b`` over a
   working set the size of the engine's state, in GB/s (24 bytes moved per element).
2. **The condition step** (``condition`` + ``propagate`` of the grid-state posterior, m runs batched, one prior)
   at n = 400 and n = 900: CPU time per run-step, achieved GFLOP/s (flops executed: the rank-``block`` folds,
   2n² per observation, plus reading Σ[:, x] from the pending rows, 2n·k̄) and GB/s (the folded matrix read and
   written once per fold, the pending rows read each step). Beside it, the first engine's kernel (the
   "reference" arithmetic: an (m, n, n) temporary per rank-1 update) and an in-place BLAS ``dger`` per run. The
   targets: the step at ≥ 30 % of the matmul's GFLOP/s at n = 400, or within 2× of the bandwidth bound (the
   bytes the step must move at the stream rate) at n = 900.
3. **Representations**: grid against data space per run-step as the data length d grows (the rule in
   :func:`boundcheck.model.dataspace.choose_representation`).
4. **Sliding window**: cost per step of drop-oldest + condition in data space as w and n double (O(n·w)).

    python benchmarks/bench_kernels.py [--quick] [--json out.json]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import _common  # noqa: E402 - pins BLAS to one thread before numpy does any work
import numpy as np  # noqa: E402
from scipy.linalg.blas import dger  # noqa: E402

from boundcheck.model.dataspace import DataSpacePosterior  # noqa: E402
from boundcheck.model.domains import grid  # noqa: E402
from boundcheck.model.kernels import RBF  # noqa: E402
from boundcheck.model.posterior import BatchedPosterior, default_block, use_arithmetic  # noqa: E402
from boundcheck.model.priors import GPPrior  # noqa: E402

LAM = 0.01


def prior_on(side: int) -> GPPrior:
    dom = grid(side, 2)
    return GPPrior("se", np.zeros(dom.n), RBF(0.2)(dom.points), 0.01)


def matmul_gflops(n: int, repeat: int) -> float:
    rng = np.random.default_rng(0)
    A, B = rng.normal(size=(n, n)), rng.normal(size=(n, n))
    reps = max(1, int(2e9 // (2 * n**3)))
    times, _ = _common.timed(lambda: [A @ B for _ in range(reps)], repeat)
    return 2 * n**3 * reps / min(times) / 1e9


def stream_gbs(nbytes: int, repeat: int) -> float:
    k = max(1 << 16, nbytes // 16)
    a, b = np.ones(k), np.ones(k)
    reps = max(1, int(4e8 // k))

    def go():
        for _ in range(reps):
            np.add(a, b, out=a)

    times, _ = _common.timed(go, repeat)
    return 24 * k * reps / min(times) / 1e9


def condition_loop(post, X, Y) -> None:
    for t in range(X.shape[0]):
        post.condition(X[t], Y[t])
        post.propagate()


def dger_loop(n: int, m: int, T: int, K: np.ndarray, X: np.ndarray) -> None:
    """Grid-state rank-1 updates with one in-place BLAS dger per run and step (no temporaries)."""
    D = np.zeros((m, n, n))
    rows = np.arange(m)
    for t in range(T):
        x = X[t]
        s = K[x] - D[rows, x]
        v = s[rows, x] + LAM
        for r in range(m):
            dger(-1.0 / v[r], s[r], s[r], a=D[r].T, overwrite_a=1)


def step_model(n: int, block: int) -> tuple[float, float]:
    """(flops, bytes) per run-step of the folded grid condition step."""
    kbar = (block - 1) / 2
    flops = 2.0 * n * n + 2.0 * n * kbar + 12.0 * n
    bytes_ = 16.0 * n * n / block + 8.0 * n * kbar + 8.0 * 12 * n
    return flops, bytes_


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--json")
    args = ap.parse_args()
    info = _common.machine()
    out: dict = {"machine": info}
    print(f"# kernels at the machine's limit — {info['cpu']}, {info['date']}, BLAS threads {info['blas_threads']}"
          "; CPU time, min of repeats")

    # ---------------------------------------------------------------- 1. yardsticks
    cases = [(20, 16, 128), (30, 8, 128)] if not args.quick else [(20, 8, 64)]
    print("\n## yardsticks (one core)")
    yard = {}
    for side, m, _ in cases:
        n = side * side
        yard[n] = {"matmul_gflops": matmul_gflops(n, args.repeat),
                   "stream_gbs": stream_gbs(8 * m * n * n, args.repeat)}
        print(f"  n = {n}: matmul {yard[n]['matmul_gflops']:6.1f} GFLOP/s;  stream a += b over "
              f"{8 * m * n * n / 2**20:.0f} MiB: {yard[n]['stream_gbs']:5.1f} GB/s")
    out["yardsticks"] = yard

    # ---------------------------------------------------------------- 2. the condition step
    print("\n## condition step (grid state, m runs batched, one prior, ε = 0.01)")
    print(f"  {'n':>4} {'m':>3} {'kernel':>22} {'µs/run-step':>12} {'GFLOP/s':>8} {'GB/s':>6} "
          f"{'% matmul':>9} {'× bw bound':>10}")
    steps = []
    for side, m, T in cases:
        n = side * side
        pr = prior_on(side)
        rng = np.random.default_rng(1)
        X, Y = rng.integers(0, n, (T, m)), rng.normal(size=(T, m))
        block = default_block(n)
        flops, nbytes = step_model(n, block)
        kernels = {}
        tf, _ = _common.timed(lambda pr=pr, m=m, X=X, Y=Y: condition_loop(BatchedPosterior([pr], LAM, m), X, Y),
                              args.repeat)
        kernels[f"engine (block {block})"] = (min(tf), flops, nbytes)

        def ref(pr=pr, m=m, X=X, Y=Y):
            with use_arithmetic("reference"):
                condition_loop(BatchedPosterior([pr], LAM, m), X, Y)

        tr, _ = _common.timed(ref, 1 if args.quick else 2)
        kernels["first engine (temporary)"] = (min(tr), 2.0 * n * n, 32.0 * n * n)
        td, _ = _common.timed(lambda n=n, m=m, T=T, pr=pr, X=X: dger_loop(n, m, T, pr.K, X), args.repeat)
        kernels["dger per run"] = (min(td), 2.0 * n * n, 16.0 * n * n)
        for name, (t, fl, by) in kernels.items():
            per = t / (m * T)
            gf, gb = fl / per / 1e9, by / per / 1e9
            bound = (by / (yard[n]["stream_gbs"] * 1e9))
            row = {"n": n, "m": m, "kernel": name, "us_per_run_step": per * 1e6, "gflops": gf, "gbs": gb,
                   "pct_matmul": 100 * gf / yard[n]["matmul_gflops"], "x_bw_bound": per / bound}
            steps.append(row)
            print(f"  {n:>4} {m:>3} {name:>22} {per * 1e6:12.1f} {gf:8.2f} {gb:6.1f} {row['pct_matmul']:8.1f}% "
                  f"{row['x_bw_bound']:9.2f}×")
        eng = next(r for r in steps if r["n"] == n and r["kernel"].startswith("engine"))
        old = next(r for r in steps if r["n"] == n and r["kernel"].startswith("first"))
        print(f"  n = {n}: engine {old['us_per_run_step'] / eng['us_per_run_step']:.1f}× faster than the first "
              f"engine's kernel; {eng['pct_matmul']:.0f}% of matmul, {eng['x_bw_bound']:.2f}× the bandwidth bound")
    out["condition"] = steps

    # ---------------------------------------------------------------- 3. representations
    print("\n## grid vs data space per run-step (condition + propagate + mean/sd queries), T = d steps from empty")
    reps = []
    side, m = (20, 8)
    pr = prior_on(side)
    n = pr.n
    for d in ((25, 50, 100) if args.quick else (25, 50, 100, 200, 400)):
        rng = np.random.default_rng(2)
        X, Y = rng.integers(0, n, (d, m)), rng.normal(size=(d, m))

        def loop(post, X=X, Y=Y):
            for t in range(X.shape[0]):
                post.group_sd()
                post.mean()
                post.condition(X[t], Y[t])
                post.propagate()

        tg, _ = _common.timed(lambda: loop(BatchedPosterior([pr], LAM, m)), args.repeat)
        td, _ = _common.timed(lambda d=d: loop(DataSpacePosterior([pr], LAM, m, max_data=d)), args.repeat)
        row = {"n": n, "d": d, "grid_us": min(tg) / (m * d) * 1e6, "dataspace_us": min(td) / (m * d) * 1e6}
        reps.append(row)
        print(f"  n = {n}, d = {d:>3}: grid {row['grid_us']:7.1f} µs, data space {row['dataspace_us']:7.1f} µs "
              f"(grid/data {row['grid_us'] / row['dataspace_us']:.2f})")
    out["representations"] = reps

    # ---------------------------------------------------------------- 4. sliding window
    print("\n## sliding window (data space): drop the oldest + condition, per run-step, m = 8")
    win = []
    for side in ((10, 20) if args.quick else (10, 20, 30)):
        pr = prior_on(side)
        n = pr.n
        for w in (25, 50, 100):
            rng = np.random.default_rng(3)
            T = w + 100
            X, Y = rng.integers(0, n, (T, 8)), rng.normal(size=(T, 8))
            post = DataSpacePosterior([pr], LAM, 8, window=w)
            for t in range(w):  # fill the window first: time the shifts only
                post.condition(X[t], Y[t])

            def shifts(post=post, X=X, Y=Y, w=w):
                for t in range(w, X.shape[0]):
                    post.condition(X[t], Y[t])  # a full window drops its oldest first

            tw, _ = _common.timed(shifts, 1)
            us = min(tw) / (8 * (T - w)) * 1e6
            win.append({"n": n, "w": w, "us_per_run_step": us})
            print(f"  n = {n:>3}, w = {w:>3}: {us:8.1f} µs per run-step  ({us / (n * w) * 1e3:.2f} ns per n·w)")
    out["window"] = win
    _common.write_json(args.json, out)


if __name__ == "__main__":
    main()
