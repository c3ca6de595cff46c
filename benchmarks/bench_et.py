"""Benchmark: the ET-GP-UCB workload of Table 3 (paper 001) — run-steps per second in both posterior
representations, measured in the same process, and the projected time of the full Table 3 run.

The workload is what ``table3`` simulates: the ε chain on the 30×30 grid (SE ℓ = 0.2; sampled through the
clipped eigen-root), noise, and ET-GP-UCB with β_t = 0.4 log(4t), δ_B = 0.1, ε = 0.03 and 0.1, T = 200, through
the engine (:func:`boundcheck.study.engine.simulate`). The same seeds give the same choices in both
representations (checked). Also timed: the sampler alone with the eigen-root and with the jittered Cholesky factor
(the reference it replaces).

Projected Table 3 time = 2 × 30 000 × 200 run-steps / (run-steps per second with the data-space form) / jobs.

With ``--table3 [RUNS]`` it instead times the command itself, ``boundcheck reproduce et_gp_ucb --experiment
table3 --jobs JOBS --no-report`` (each panel's runs stop at their first trigger: ``boundcheck.study.needs``), in a
fresh output folder, and prints its wall time, the CPU time (user + sys, this process's children: the command and
its workers) and the machine's load, and the ratio against the 21 min 25 s the command took on 2 cores before
runs stopped at their first trigger. Without RUNS it runs Table 3's own 30 000 runs per panel; with
RUNS it projects the wall time linearly to 30 000 (the fixed costs make the projection an upper bound).

Usage: python benchmarks/bench_et.py [--grid 30] [--horizon 200] [--runs 200] [--grid-runs 10] [--jobs 2]
       python benchmarks/bench_et.py --table3 [RUNS] [--jobs 2]
"""

from __future__ import annotations

import argparse
import os
import platform
import time
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

from boundcheck.model.sampling import ChainSampler, cholesky_jittered
from boundcheck.papers.et_gp_ucb.catalogue import tv_grid
from boundcheck.papers.et_gp_ucb.et_gp_ucb import ETGPUCB
from boundcheck.papers.et_gp_ucb.family import run_instance
from boundcheck.policies import PolicySpec
from boundcheck.study.engine import simulate


def rate(sc, representation: str, runs: int, seed: int = 0):
    """Run-steps per second of one batch of ``runs`` runs, and the trajectory of ET-GP-UCB."""
    spec = PolicySpec("et_gp_ucb", ETGPUCB, {"representation": representation})
    inst = run_instance(sc)
    simulate(sc, [spec], [0], seed, inst)  # warm-up (imports, factorisations)
    t0 = time.perf_counter()
    traj = simulate(sc, [spec], list(range(runs)), seed, inst)
    dt = time.perf_counter() - t0
    return runs * sc.horizon / dt, traj.algorithms["et_gp_ucb"]


def agreement(a, b, runs: int) -> str:
    """Same choices in every run, or the first divergence falls on an exact UCB tie broken by round-off
    (symmetric grid points have equal posteriors in exact arithmetic)."""
    same, ties = 0, 0
    for r in range(runs):
        d = np.flatnonzero(a.idx[r] != b.idx[r])
        if d.size == 0:
            same += 1
        elif abs(a.steps["ucb"][r, d[0]] - b.steps["ucb"][r, d[0]]) <= 1e-9:
            ties += 1
    return f"{same}/{runs} runs identical, {ties} diverge at an exact UCB tie, {runs - same - ties} otherwise"


def sampler_rate(sc, runs: int, factor: str) -> float:
    s = ChainSampler(sc.truth)
    if factor == "cholesky":
        s.L, s.jitter = cholesky_jittered(sc.truth.K)
    rngs = [np.random.default_rng(i) for i in range(runs)]
    s.start(rngs)
    t0 = time.perf_counter()
    for _ in range(50):
        s.step(rngs)
    return runs * 50 / (time.perf_counter() - t0)


#: ``reproduce et_gp_ucb --experiment table3`` on 2 cores before its runs stopped at the first trigger
TABLE3_BASELINE_S = 21 * 60 + 25
TABLE3_BASELINE_CPU_S = 2409  # its CPU time (user + sys) in that run: both cores busy throughout
TABLE3_RUNS = 30_000


def table3(runs: int | None, jobs: int, json_path: str | None = None) -> None:
    """Time the Table 3 command in a subprocess; print wall, CPU and the ratio against the baseline (and write
    them to ``json_path``: ``make bench`` puts them in docs/performance.md)."""
    import resource
    import subprocess
    import sys
    import tempfile

    load0 = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as tmp:
        cmd = [sys.executable, "-m", "boundcheck.cli", "reproduce", "et_gp_ucb", "--experiment", "table3",
               "--jobs", str(jobs), "--no-report", "--json", "--out", str(Path(tmp) / "t3")]
        if runs is not None:
            cmd += ["--runs", str(runs)]
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        done = subprocess.run(cmd, capture_output=True, text=True)
        wall = time.perf_counter() - t0
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if done.returncode not in (0, 1):
            raise SystemExit(f"table3 failed (exit {done.returncode}): {done.stderr.strip()[-500:]}")
        taus = _table3_taus(Path(tmp) / "t3")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    n = TABLE3_RUNS if runs is None else runs
    projected = wall * TABLE3_RUNS / n
    load1 = os.getloadavg()[0]
    print(f"Table 3 (reproduce et_gp_ucb --experiment table3, {n} runs per panel, T = 200, --jobs {jobs}): "
          f"wall {wall:.1f} s, CPU {cpu:.1f} s (user + sys, command and workers); load average {load0:.1f} → "
          f"{load1:.1f} on {os.cpu_count()} cores")
    for name, (mean, se, k) in taus.items():
        print(f"  {name}: E[τ] = {mean:.2f} ± {se:.2f} (SE, {k} runs)")
    print("  the full path's E[τ] (seed 0, 30 000 runs): 45.50 ± 0.15 at ε = 0.03, 21.50 ± 0.07 at ε = 0.1 "
          "(docs/papers/et_gp_ucb.md); the paper prints none, only Fig. 4's histograms against R-GP-UCB's "
          "N = 29 and 22")
    what = "" if runs is None else f" (projected linearly from {n} runs: {projected:.1f} s)"
    print(f"  against the 21 min 25 s baseline on 2 cores: {TABLE3_BASELINE_S / projected:.1f}× faster{what}; "
          f"target ≤ 180 s: {'met' if projected <= 180 else 'not met'} (wall; CPU/2 = {cpu / 2:.1f} s)")
    if json_path:
        import json

        Path(json_path).write_text(json.dumps({
            "runs": n, "jobs": jobs, "wall_s": wall, "cpu_s": cpu, "projected_wall_s": projected,
            "baseline_s": TABLE3_BASELINE_S, "speedup": TABLE3_BASELINE_S / projected, "load": [load0, load1],
            "taus": {k: {"mean": m, "se": e, "runs": c} for k, (m, e, c) in taus.items()}}, indent=1))
    if max(load0, load1) > (os.cpu_count() or 1):
        print("  the machine was loaded beyond its cores: the wall time overstates the command's; at the baseline's "
              f"CPU/wall ({TABLE3_BASELINE_CPU_S} s / {TABLE3_BASELINE_S} s) the CPU would take "
              f"{cpu * TABLE3_RUNS / n * TABLE3_BASELINE_S / TABLE3_BASELINE_CPU_S:.0f} s on idle cores")


def _table3_taus(out: Path) -> dict[str, tuple[float, float, int]]:
    """Mean ± SE of the first trigger time per panel, from the stored runs tables."""
    from boundcheck.study.store import ResultStore

    res = {}
    for d in sorted((out / "table3").iterdir()):
        runs = ResultStore(d / "results").read_table("runs", ["tau_first"])
        tau = runs["tau_first"].to_numpy(float)
        res[d.name] = (float(tau.mean()), float(tau.std(ddof=1) / np.sqrt(tau.size)), int(tau.size))
    return res


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--grid", type=int, default=30)
    ap.add_argument("--horizon", type=int, default=200)
    ap.add_argument("--runs", type=int, default=200, help="runs per batch, data-space form")
    ap.add_argument("--grid-runs", type=int, default=10, help="runs per batch, grid-state form (m·n² memory)")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--json", default=None, help="with --table3: write its figures to this file")
    ap.add_argument("--blas-threads", type=int, default=1, help="per worker (the experiments pin 1 when jobs > 1)")
    ap.add_argument("--table3", nargs="?", type=int, const=-1, default=None, metavar="RUNS",
                    help="time `boundcheck reproduce et_gp_ucb --experiment table3` (default: its 30 000 runs)")
    args = ap.parse_args()
    if args.table3 is not None:
        table3(None if args.table3 < 0 else args.table3, args.jobs, args.json)
        return
    with threadpool_limits(limits=args.blas_threads, user_api="blas"):
        run(args)


def run(args) -> None:
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, load average {load:.1f}; python "
          f"{platform.python_version()}, numpy {np.__version__}; BLAS threads {args.blas_threads}; "
          f"{time.strftime('%Y-%m-%d %H:%M')}")
    total = 0.0
    for eps in (0.03, 0.1):
        sc = tv_grid(f"bench_eps{eps:g}", points_per_axis=args.grid, eps=eps, horizon=args.horizon,
                     beta_rule="practical")
        ds, a_ds = rate(sc, "dataspace", args.runs)
        gs, a_gs = rate(sc, "grid", args.grid_runs)
        print(f"ε = {eps:g}, |X| = {sc.domain.n}, T = {args.horizon}: data space {ds:8.0f} run-steps/s "
              f"({args.runs} runs/batch), grid state {gs:6.0f} run-steps/s ({args.grid_runs} runs/batch): "
              f"ratio {ds / gs:5.1f}×; {agreement(a_ds, a_gs, args.grid_runs)}")
        total += 30_000 * args.horizon / ds
    se = sampler_rate(sc, args.runs, "eigen")
    sc_ = sampler_rate(sc, args.runs, "cholesky")
    print(f"sampler alone: eigen-root {se:8.0f} run-steps/s, jittered Cholesky {sc_:8.0f} run-steps/s "
          f"(ratio {se / sc_:.1f}×)")
    print(f"projected Table 3 (2 × 30 000 runs × T = {args.horizon}): {total / 60:.1f} min on 1 worker, "
          f"{total / 60 / args.jobs:.1f} min on {args.jobs} (target ≤ 30 min on 2 cores)")


if __name__ == "__main__":
    main()
