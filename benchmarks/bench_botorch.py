"""Benchmark: the BoTorch adapter batched over runs against the built-in GP-UCB, in the same run.

Times two whole commands, wall clock, one after the other on the same machine:

    boundcheck verify --theorem gp_ucb --runs 200 --horizon 200 --no-report            (the built-in GP-UCB)
    boundcheck verify --theorem gp_ucb --algorithm examples/botorch_ucb_batched.py:BoTorchUCBBatched  (same)

both with the default scenario and ``--jobs`` as verify's default (every core), each in a fresh output folder,
and prints their ratio (target ≤ 3×), the CPU time of each (user + sys of the command and its workers) and the
machine's 1-minute load before and after. The checked command also runs the shadow of the theorem's algorithm
and a reference posterior (conformance and the truth-side monitors): that is what checking BoTorch code costs.
``--per-run`` also times the per-run form (examples/botorch_ucb.py), much slower. ``--fixed`` also times both
commands at T = 2 (same runs): the cost that does not grow with the horizon (imports, probe, worker start).

Usage: python benchmarks/bench_botorch.py [--runs 200] [--horizon 200] [--jobs N] [--repeat 1] [--per-run]
       [--fixed] [--quick] [--json FILE]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BATCHED = str(ROOT / "examples" / "botorch_ucb_batched.py") + ":BoTorchUCBBatched"
PER_RUN = str(ROOT / "examples" / "botorch_ucb.py") + ":BoTorchUCB"


def _cpu_children() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def verify(runs: int, horizon: int, jobs: int | None, algorithm: str | None = None) -> dict:
    """Wall and CPU seconds of one ``verify`` command, and its verdict."""
    with tempfile.TemporaryDirectory(prefix="bench-botorch-") as tmp:
        cmd = [sys.executable, "-m", "boundcheck", "verify", "--theorem", "gp_ucb", "--runs", str(runs),
               "--horizon", str(horizon), "--no-report", "--json", "--out", str(Path(tmp) / "out")]
        cmd += ["--jobs", str(jobs)] if jobs else []
        cmd += ["--algorithm", algorithm] if algorithm else []
        cpu0, t0 = _cpu_children(), time.perf_counter()
        p = subprocess.run(cmd, capture_output=True, text=True, cwd=tmp)
        wall, cpu = time.perf_counter() - t0, _cpu_children() - cpu0
    if p.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} exited {p.returncode}:\n{p.stderr[-3000:]}")
    out = json.loads(p.stdout[p.stdout.index("{"):])
    return {"wall_s": wall, "cpu_s": cpu, "verdict": out["verdict"],
            "conformance": next((c["verdict"] for c in out["claims"] if c["id"] == "conformance"), None)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=200)
    ap.add_argument("--horizon", type=int, default=200)
    ap.add_argument("--jobs", type=int, default=None, help="verify's --jobs (default: verify's own default)")
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--per-run", action="store_true", help="also time the per-run form (slow)")
    ap.add_argument("--fixed", action="store_true", help="also time both commands at T = 2 (the fixed cost)")
    ap.add_argument("--quick", action="store_true", help="50 runs × T = 50")
    ap.add_argument("--json", metavar="FILE")
    args = ap.parse_args()
    runs, horizon = (50, 50) if args.quick else (args.runs, args.horizon)
    try:
        import botorch  # noqa: F401
    except ImportError:
        res = {"skipped": 'botorch is not installed (pip install "boundcheck[botorch]")'}
        print(res["skipped"])
        if args.json:
            Path(args.json).write_text(json.dumps(res, indent=1))
        return
    load0 = os.getloadavg()[0]
    sides = {"builtin": None, "batched": BATCHED} | ({"per_run": PER_RUN} if args.per_run else {})
    rows: dict[str, list[dict]] = {k: [] for k in sides}
    for _ in range(max(1, args.repeat)):  # interleaved: a change of the machine's load hits both sides
        for name, algorithm in sides.items():
            r = verify(runs, horizon, args.jobs, algorithm)
            rows[name].append(r)
            print(f"{name:8} {r['wall_s']:7.1f} s wall {r['cpu_s']:7.1f} s CPU  verdict {r['verdict']}"
                  + (f", conformance {r['conformance']}" if algorithm else ""), flush=True)
    best = {k: min(r["wall_s"] for r in v) for k, v in rows.items()}
    res = {"runs": runs, "horizon": horizon, "jobs": args.jobs, "cores": os.cpu_count(),
           "load_1min_start": load0, "load_1min_end": os.getloadavg()[0], "rows": rows,
           "ratio": best["batched"] / best["builtin"], "target": 3.0}
    if args.per_run:
        res["ratio_per_run"] = best["per_run"] / best["builtin"]
    if args.fixed:  # what a run of the same runs costs at T = 2: imports, the import probe, the workers' start
        res["fixed_wall_s"] = {k: verify(runs, 2, args.jobs, sides[k])["wall_s"] for k in ("builtin", "batched")}
        print(f"fixed cost (T = 2): built-in {res['fixed_wall_s']['builtin']:.1f} s, batched "
              f"{res['fixed_wall_s']['batched']:.1f} s wall", flush=True)
    print(f"batched BoTorch UCB / built-in GP-UCB, {runs} runs × T = {horizon}, {os.cpu_count()} cores (load "
          f"{load0:.1f} → {res['load_1min_end']:.1f}): {res['ratio']:.1f}× wall (min of {args.repeat}; target ≤ 3×)"
          + (f"; per-run form {res['ratio_per_run']:.1f}×" if args.per_run else ""))
    if args.json:
        Path(args.json).write_text(json.dumps(res, indent=1))


if __name__ == "__main__":
    main()
