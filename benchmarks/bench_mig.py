"""Benchmark: certified γ_t brackets on the 400-point 2-D grid (20×20 on [0,1]², RBF), T = 1000.

For each case it prints the wall time of the bracket for every t ≤ T, then the lower and upper ends and
upper/lower, overall and per method, at T = 1000.

    .venv/bin/python benchmarks/bench_mig.py            # the default cases
    .venv/bin/python benchmarks/bench_mig.py --quick    # T = 200, fewer cases
    .venv/bin/python benchmarks/bench_mig.py --json out.json

BLAS threading matters a lot here. The work is many small (≤ 400×400) factorisations. On a loaded machine,
multi-threaded OpenBLAS can be 10–100× slower than ``OPENBLAS_NUM_THREADS=1``, so the benchmark prints the
setting it ran with.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time

import numpy as np

from boundcheck.model.mig import gamma_for_grid

CASES = [
    # (lengthscale, R, eps)
    (0.1, 0.1, 0.0),
    (0.2, 0.1, 0.0),
    (0.2, 1.0, 0.0),
    (0.1, 0.1, 0.01),
    (0.2, 0.1, 0.01),
    (0.2, 1.0, 0.01),
]


def run(cases, horizon: int, grid_n: int = 20, dim: int = 2) -> list[dict]:
    rows = []
    for ell, R, eps in cases:
        t0 = time.perf_counter()
        br = gamma_for_grid("rbf", ell, grid_n, dim, R, horizon, eps=eps)
        dt = time.perf_counter() - t0
        lo, up = br.at(horizon)
        worst = float(np.max(br.upper / np.maximum(br.lower, 1e-300)))
        rows.append({
            "kernel": "rbf", "lengthscale": ell, "R": R, "eps": eps, "grid": f"{grid_n}^{dim}", "T": horizon,
            "seconds": dt, "lower": lo, "upper": up, "ratio": up / lo, "worst_ratio_over_t": worst,
            "methods": {k: (None if not np.isfinite(v[-1]) else float(v[-1])) for k, v in br.methods.items()},
        })
        print(f"RBF ℓ={ell:<4} R={R:<4} ε={eps:<5} T={horizon}: {dt:6.2f} s   "
              f"γ_T ∈ [{lo:10.3f}, {up:10.3f}]   upper/lower = {up / lo:.4f}   (max over t ≤ T: {worst:.4f})")
        for name, v in rows[-1]["methods"].items():
            txt = "n/a" if v is None else f"{v:12.3f}   ×{v / lo:7.4f}"
            print(f"      {name:>18}: {txt}")
    return rows


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="T = 200 and two cases")
    ap.add_argument("--horizon", type=int, default=None)
    ap.add_argument("--json", default=None, help="write the rows to this JSON file")
    args = ap.parse_args(argv)
    horizon = args.horizon or (200 if args.quick else 1000)
    cases = [CASES[1], CASES[4]] if args.quick else CASES
    threads = {k: os.environ.get(k) for k in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")}
    print(f"bench_mig: {platform.machine()}, {os.cpu_count()} CPUs visible, "
          f"affinity {len(os.sched_getaffinity(0)) if hasattr(os, 'sched_getaffinity') else '?'} cores, "
          f"BLAS threads env {threads}")
    t0 = time.perf_counter()
    rows = run(cases, horizon)
    print(f"total {time.perf_counter() - t0:.1f} s")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(rows, fh, indent=2)


if __name__ == "__main__":
    main()
